/* SPDX-License-Identifier: MIT */
/*
 * Steps of `nvl demo`, the main job. Each layer contributes a step in
 * tools/nvl/demo_<layer>.c with NVL_DEMO_STEP(order, name); steps run in
 * ascending order and print what they did for a person to read. A step
 * returns 0, or a negative errno to fail the demo.
 */
#ifndef NVL_TOOL_DEMO_H
#define NVL_TOOL_DEMO_H

struct nvl_demo_step {
	int order;
	const char *name;
	int (*fn)(void);
	struct nvl_demo_step *next;
};

void nvl_demo_register(struct nvl_demo_step *step);

/* `nvl demo --firmware VERSION`: the GSP firmware version to boot (NULL:
 * the step's default) */
extern const char *nvl_demo_firmware;

#define NVL_DEMO_STEP(order_, name_)                                           \
	static int nvl_demo_fn_##name_(void);                                  \
	static struct nvl_demo_step nvl_demo_step_##name_ = {                  \
		.order = order_, .name = #name_, .fn = nvl_demo_fn_##name_};   \
	__attribute__((constructor)) static void nvl_demo_reg_##name_(void)    \
	{                                                                      \
		nvl_demo_register(&nvl_demo_step_##name_);                     \
	}                                                                      \
	static int nvl_demo_fn_##name_(void)

#endif

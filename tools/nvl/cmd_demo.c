// SPDX-License-Identifier: MIT
/*
 * `nvl demo`: the main job. Runs every registered step in order and stops at
 * the first failure.
 */
#include <stdio.h>
#include <string.h>

#include "nouvelle/nouvelle.h"
#include "nvl_config.h"
#include "bench.h"
#include "cmd.h"
#include "demo.h"
#include "help.h"
#include "term.h"

static struct nvl_demo_step *steps;

void nvl_demo_register(struct nvl_demo_step *step)
{
	struct nvl_demo_step **p = &steps;

	while (*p && (*p)->order <= step->order)
		p = &(*p)->next;
	step->next = *p;
	*p = step;
}

NVL_DEMO_STEP(0, baselines)
{
	printf("  machine baselines (physical limits every benchmark is "
	       "compared with):\n");
	printf("    memcpy bandwidth   %8.2f GB/s\n",
	       nvl_bench_memcpy_bandwidth(true) / 1e9);
	printf("    memset bandwidth   %8.2f GB/s\n",
	       nvl_bench_memset_bandwidth(true) / 1e9);
	printf("    futex ping-pong    %8.0f ns per round trip\n",
	       nvl_bench_futex_pingpong_ns(true));
	return 0;
}

/*
 * What each step runs on, printed under its title so that nobody mistakes a
 * stand-in for the driver on the model. Steps 3 to 6 show a generic layer
 * on its own backend (as its tests do); step 9 is the same layers on a
 * device.
 */
static const struct {
	const char *step;
	const char *runs_on;
} backends[] = {
	{"baselines", "this machine's CPU and memory (no GPU)"},
	{"gsp_boot", "the driver's GSP layer (src/gsp) booting the model's "
		     "GSP firmware from the build's signed images"},
	{"sync", "generic sync layer on host threads; a thread stands in "
		 "for the GPU"},
	{"scheduler", "common scheduler with its null backend (jobs run "
		      "on host threads, no hardware)"},
	{"mm", "the generic memory manager alone: host-memory VRAM/GTT and "
	       "CPU copies (on a device, step 9, moves run on the copy "
	       "engine)"},
	{"vm", "GPUVM with the recording page-table backend (page tables "
	       "kept in host memory, no hardware)"},
	{"model", "the GPU model alone, programmed by the bring-up kit "
		  "(tests/lib, outside the library) without the GSP or the "
		  "driver"},
	{"mmu", "the driver's NVIDIA page tables (src/nv) in the model's "
		"VRAM, walked by the model's MMU"},
	{"driver", "the public API on one model device: GSP boot, two "
		   "clients, RM channels, async VM_BIND, EXEC through the "
		   "scheduler (src/nv); evictions and clears as copy-engine "
		   "jobs on the driver's kernel channel"},
};

static const char *runs_on(const char *name)
{
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		if (!strcmp(backends[i].step, name))
			return backends[i].runs_on;
	return "(unlabelled)";
}

const char *nvl_demo_firmware;

int nvl_cmd_demo(int argc, char **argv)
{
	int n = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			return nvl_help_print(stdout, "demo");
		} else if (!strcmp(argv[i], "--firmware") && i + 1 < argc &&
			   *argv[i + 1]) {
			nvl_demo_firmware = argv[++i];
		} else {
			return nvl_usage_error(
				"demo",
				"'%s': expected --firmware VERSION or --help",
				argv[i]);
		}
	}
	printf("nouvelle %s (%s build)\n", nvl_version(), NVL_BUILD_TYPE);
	for (struct nvl_demo_step *s = steps; s; s = s->next) {
		int ret;

		printf("[%d] %s  -- runs on: %s\n", ++n, s->name,
		       runs_on(s->name));
		fflush(stdout);
		ret = s->fn();
		if (ret) {
			return nvl_tool_fail(
				"demo", "step '%s' failed: %s (%s)", s->name,
				strerror(-ret), nvl_last_error());
		}
	}
	printf("demo complete: %d steps passed\n", n);
	return 0;
}

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

int nvl_cmd_demo(int argc, char **argv)
{
	int n = 0;

	(void)argc;
	(void)argv;
	printf("nouvelle %s (%s build)\n", nvl_version(), NVL_BUILD_TYPE);
	for (struct nvl_demo_step *s = steps; s; s = s->next) {
		int ret;

		printf("[%d] %s\n", ++n, s->name);
		fflush(stdout);
		ret = s->fn();
		if (ret) {
			fprintf(stderr, "nvl demo: step '%s' failed: %s (%s)\n",
				s->name, strerror(-ret), nvl_last_error());
			return 1;
		}
	}
	printf("demo complete: %d steps passed\n", n);
	return 0;
}

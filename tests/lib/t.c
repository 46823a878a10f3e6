// SPDX-License-Identifier: MIT
/* Shared cmocka runner: TAP output, --list, --run GLOB. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [--list] [--run GLOB]\n", argv0);
}

int t_main(const char *group, const struct CMUnitTest *tests, size_t n,
	   int argc, char **argv)
{
	const char *filter = NULL;
	const char *out = getenv("T_OUTPUT");
	const char *name = strrchr(group, '/');

	name = name ? name + 1 : group;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--list")) {
			for (size_t k = 0; k < n; k++)
				printf("%s\n", tests[k].name);
			return 0;
		} else if (!strcmp(argv[i], "--run") && i + 1 < argc) {
			filter = argv[++i];
		} else {
			usage(argv[0]);
			return 2;
		}
	}
	if (!out || strcmp(out, "stdout"))
		cmocka_set_message_output(CM_OUTPUT_TAP);
	if (filter)
		cmocka_set_test_filter(filter);
	return _cmocka_run_group_tests(name, tests, n, NULL, NULL) ? 1 : 0;
}

unsigned long t_fail_each_alloc(int (*op)(void *arg),
				void (*check)(int ret, void *arg), void *arg,
				unsigned long max)
{
	for (unsigned long nth = 1; nth <= max; nth++) {
		int ret;

		nvl_fault_fail_nth(nth, NVL_FAULT_THIS_THREAD);
		ret = op(arg);
		if (nvl_fault_hits() == 0) {
			/* Fewer than nth allocations: the op ran clean. */
			nvl_fault_off();
			if (ret != 0)
				fail_msg("op failed with %d without injection",
					 ret);
			return nth - 1;
		}
		nvl_fault_off();
		if (check)
			check(ret, arg);
	}
	fail_msg("op still allocating after %lu attempts", max);
	return max;
}

uint64_t t_seed(uint64_t def)
{
	const char *s = getenv("T_SEED");
	uint64_t seed = s ? strtoull(s, NULL, 0) : def;

	if (!seed)
		seed = 1;
	return seed;
}

double t_scale(void)
{
	const char *s = getenv("T_SCALE");
	double v = s ? atof(s) : 1.0;

	return v > 0 ? v : 1.0;
}

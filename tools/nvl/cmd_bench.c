// SPDX-License-Identifier: MIT
/* `nvl bench`: run benchmarks (see bench/bench.h). */
#include <string.h>

#include "bench.h"
#include "cmd.h"
#include "help.h"

int nvl_cmd_bench(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return nvl_help_print(stdout, "bench");
	return nvl_bench_main(argc, argv);
}

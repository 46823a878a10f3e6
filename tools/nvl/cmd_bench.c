// SPDX-License-Identifier: MIT
/* `nvl bench`: run benchmarks (see bench/bench.h). */
#include "bench.h"
#include "cmd.h"

int nvl_cmd_bench(int argc, char **argv)
{
	return nvl_bench_main(argc, argv);
}

// SPDX-License-Identifier: MIT
/*
 * abigen benchmarks.
 *
 * abigen_time: wall seconds for abigen over the test version sets (the
 * drift pair and the constructs set: three versions), against the wall
 * time the same compiler takes to compile a reference set of library
 * files (src/base), measured in the same run: the generator must not make
 * a build noticeably slower.
 *
 * pack_unpack: ns per unpack + pack of the largest generated struct
 * (SYSTEM_INFO of the drift set, 112 bytes) against one memcpy of its
 * size through a call the compiler cannot inline either; target ratio <= 4.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "bench.h"
#include "abb.h"
#include "abigen_bench_config.h"

static const char *const ref_files[] = {
	"src/base/alloc.c",  "src/base/idr.c", "src/base/itree.c",
	"src/base/ibtree.c", "src/base/log.c", "src/base/client.c",
};

static int run(const char *cmd)
{
	int st = system(cmd);

	return st == -1 || !WIFEXITED(st) ? -1 : WEXITSTATUS(st);
}

static double time_cmd(const char *cmd, int *err)
{
	int64_t t0 = nvl_bench_now_ns();

	if (run(cmd))
		*err = 1;
	return (double)(nvl_bench_now_ns() - t0) / 1e9;
}

NVL_BENCH(abigen, abigen_time)
{
	char dir[] = "/tmp/nvl-abigen-XXXXXX";
	char cmd[4096];
	int reps = nvl_bench_quick(ctx) ? 1 : 3, err = 0;
	double gen[3], comp[3];

	if (!mkdtemp(dir))
		return -1;
	for (int r = 0; r < reps; r++) {
		snprintf(cmd, sizeof(cmd),
			 "%s --versions %s/drift/versions.txt --want "
			 "%s/drift/want.txt --rename %s/drift/rename.txt "
			 "--prefix d --outdir %s && "
			 "%s --versions %s/cons/versions.txt --want "
			 "%s/cons/want.txt --prefix c --outdir %s",
			 ABIGEN_BENCH_EXE, ABIGEN_BENCH_SETS, ABIGEN_BENCH_SETS,
			 ABIGEN_BENCH_SETS, dir, ABIGEN_BENCH_EXE,
			 ABIGEN_BENCH_SETS, ABIGEN_BENCH_SETS, dir);
		gen[r] = time_cmd(cmd, &err);
		comp[r] = 0;
		for (size_t i = 0; i < sizeof(ref_files) / sizeof(ref_files[0]);
		     i++) {
			snprintf(
				cmd, sizeof(cmd),
				"%s -std=gnu17 -O2 -D_GNU_SOURCE -I%s -I%s/src "
				"-I%s/include -c %s/%s -o %s/ref.o",
				ABIGEN_BENCH_CC, ABIGEN_BENCH_SRC,
				ABIGEN_BENCH_SRC, ABIGEN_BENCH_SRC,
				ABIGEN_BENCH_SRC, ref_files[i], dir);
			comp[r] += time_cmd(cmd, &err);
		}
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	run(cmd);
	if (err) {
		fprintf(stderr, "abigen_time: a command failed\n");
		return -1;
	}
	nvl_bench_report_vs(ctx, "abigen_time", nvl_bench_median_of(gen, reps),
			    "s", "compile_6_base_files",
			    nvl_bench_median_of(comp, reps));
	return 0;
}

struct pu_arg {
	uint8_t wire[128], wire2[128];
	struct abb_sysinfo n;
	size_t size;
	int iters;
};

__attribute__((noinline)) static void copy_call(void *d, const void *s,
						size_t n)
{
	memcpy(d, s, n);
}

static double pu_sample(void *p)
{
	struct pu_arg *a = p;
	int64_t t0 = nvl_bench_now_ns();

	for (int i = 0; i < a->iters; i++) {
		abb_r2_0_sysinfo_unpack(a->wire, a->size, &a->n);
		nvl_bench_do_not_optimize(&a->n);
		abb_r2_0_sysinfo_pack(&a->n, a->wire2, a->size);
		nvl_bench_do_not_optimize(a->wire2);
	}
	return (double)(nvl_bench_now_ns() - t0) / a->iters;
}

static double copy_sample(void *p)
{
	struct pu_arg *a = p;
	int64_t t0 = nvl_bench_now_ns();

	for (int i = 0; i < a->iters; i++) {
		copy_call(a->wire2, a->wire, a->size);
		nvl_bench_do_not_optimize(a->wire2);
	}
	return (double)(nvl_bench_now_ns() - t0) / a->iters;
}

NVL_BENCH(abigen, pack_unpack)
{
	static struct pu_arg a;
	double pu, cp, pus[9], cps[9];
	int reps;

	a.size = abb_r2_0.structs[ABB_S_SYSINFO].wire_size;
	a.iters = nvl_bench_quick(ctx) ? 200000 : 2000000;
	for (size_t i = 0; i < a.size; i++)
		a.wire[i] = (uint8_t)(i * 7 + 1);
	/* canonical image (padding zero), then check the round trip */
	if (abb_r2_0_sysinfo_unpack(a.wire, a.size, &a.n) ||
	    abb_r2_0_sysinfo_pack(&a.n, a.wire, a.size) ||
	    abb_r2_0_sysinfo_unpack(a.wire, a.size, &a.n) ||
	    abb_r2_0_sysinfo_pack(&a.n, a.wire2, a.size) ||
	    memcmp(a.wire, a.wire2, a.size)) {
		fprintf(stderr, "pack_unpack: round trip failed\n");
		return -1;
	}
	/* interleave the samples so both see the same machine load */
	reps = nvl_bench_quick(ctx) ? 3 : 9;
	for (int r = 0; r < reps; r++) {
		pus[r] = pu_sample(&a);
		cps[r] = copy_sample(&a);
	}
	pu = nvl_bench_median_of(pus, reps);
	cp = nvl_bench_median_of(cps, reps);
	nvl_bench_report_extra(ctx, "pack_unpack", pu, "ns", NULL, "memcpy_ns",
			       cp, "ratio_vs_memcpy", pu / cp, "bytes",
			       (double)a.size, NULL);
	return 0;
}

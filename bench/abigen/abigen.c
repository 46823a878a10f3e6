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
 *
 * The same two on the driver's own set (firmware/abi/: 535.54.03,
 * 535.113.01, 570.144), what a build of the library really generates:
 * abigen_time_gsp against the same compile baseline; pack_unpack_gsp_largest
 * for its largest struct in 570.144 (the shadow fault buffer's parameters,
 * mostly the PTE array) and pack_unpack_gsp_fields for the struct with the
 * most wanted fields (GspFwWprMeta), each against one memcpy of its size.
 * Either fails if another struct has become the largest or the fullest,
 * so the definition cannot drift silently.
 *
 * Each pack_unpack figure also reports two_memcpy_ns: a memcpy of the
 * wire size into the neutral struct's storage and one back out to the
 * second wire buffer, the buffers and alignment the generated pair uses:
 * the data movement of any unpack + pack done with the library's memcpy
 * (two copies over three buffers, where the baseline makes one over two;
 * at 24 KiB three buffers no longer fit the L1 cache, two do). It shows
 * how much of ratio_vs_memcpy is that movement and how much is generated
 * code on top (ratio_vs_two_memcpy); ratio_vs_memcpy stays the target.
 *
 * The pack_unpack samples are timed in thread CPU time (nvl_bench_thread_cpu_ns()),
 * abigen_time in wall time (it times child processes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "bench.h"
#include "abb.h"
#include "abigen_bench_config.h"
#include "gspabi.h"

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

/*
 * The compile baseline: six src/base files at -O2, seconds. The build's
 * compiler command may start with ccache: it is disabled here, or every
 * run after the first would time a cache hit, not a compile.
 */
static double time_ref(const char *dir, int *err)
{
	char cmd[4096];
	double t = 0;

	for (size_t i = 0; i < sizeof(ref_files) / sizeof(ref_files[0]); i++) {
		snprintf(cmd, sizeof(cmd),
			 "CCACHE_DISABLE=1 %s -std=gnu17 -O2 -D_GNU_SOURCE "
			 "-I%s -I%s/src "
			 "-I%s/include -c %s/%s -o %s/ref.o",
			 ABIGEN_BENCH_CC, ABIGEN_BENCH_SRC, ABIGEN_BENCH_SRC,
			 ABIGEN_BENCH_SRC, ABIGEN_BENCH_SRC, ref_files[i], dir);
		t += time_cmd(cmd, err);
	}
	return t;
}

/* the abigen run abigen_time_gsp times: the driver's own three versions */
static void gsp_cmd(char *cmd, size_t n, const char *dir)
{
	snprintf(cmd, n,
		 "%s --versions %s/firmware/abi/versions.txt --want "
		 "%s/firmware/abi/want.txt --rename "
		 "%s/firmware/abi/rename.txt --prefix gspabi --outdir %s",
		 ABIGEN_BENCH_EXE, ABIGEN_BENCH_SRC, ABIGEN_BENCH_SRC,
		 ABIGEN_BENCH_SRC, dir);
}

/* the abigen runs abigen_time times: the drift and the constructs sets */
static void sets_cmd(char *cmd, size_t n, const char *dir)
{
	snprintf(cmd, n,
		 "%s --versions %s/drift/versions.txt --want "
		 "%s/drift/want.txt --rename %s/drift/rename.txt "
		 "--prefix d --outdir %s && "
		 "%s --versions %s/cons/versions.txt --want "
		 "%s/cons/want.txt --prefix c --outdir %s",
		 ABIGEN_BENCH_EXE, ABIGEN_BENCH_SETS, ABIGEN_BENCH_SETS,
		 ABIGEN_BENCH_SETS, dir, ABIGEN_BENCH_EXE, ABIGEN_BENCH_SETS,
		 ABIGEN_BENCH_SETS, dir);
}

/*
 * @name: wall seconds of the abigen command @mkcmd writes (output into a
 * fresh temporary directory), median of 3 (1 with --quick), against the
 * compile of ref_files measured in the same repetitions.
 */
static int abigen_vs_compile(struct nvl_bench_ctx *ctx, const char *name,
			     void (*mkcmd)(char *, size_t, const char *))
{
	char dir[] = "/tmp/nvl-abigen-XXXXXX"; /* mkdtemp()'s template */
	char cmd[4096];
	int reps = nvl_bench_quick(ctx) ? 1 : 3, err = 0;
	double gen[3], comp[3];

	if (!mkdtemp(dir))
		return -1;
	for (int r = 0; r < reps; r++) {
		mkcmd(cmd, sizeof(cmd), dir);
		gen[r] = time_cmd(cmd, &err);
		comp[r] = time_ref(dir, &err);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	run(cmd);
	if (err) {
		fprintf(stderr, "%s: a command failed\n", name);
		return -1;
	}
	nvl_bench_report_vs(ctx, name, nvl_bench_median_of(gen, reps), "s",
			    "compile_6_base_files",
			    nvl_bench_median_of(comp, reps));
	return 0;
}

NVL_BENCH(abigen, abigen_time_gsp)
{
	return abigen_vs_compile(ctx, "abigen_time_gsp", gsp_cmd);
}

NVL_BENCH(abigen, abigen_time)
{
	return abigen_vs_compile(ctx, "abigen_time", sets_cmd);
}

/*
 * The pack_unpack samples' clock: this thread's CPU time
 * (nvl_bench_thread_cpu_ns()). They are
 * CPU-bound loops of a few ms; on the shared 2-core machine at load 5-7
 * wall time counted other processes' time slices, and a 4-6 ms
 * pack+unpack sample was preempted far more often than a 1.4 ms memcpy
 * sample, so the median ratio followed the scheduler (2.8 to 5.3 for one
 * binary in consecutive batches). Both sides are timed alike; cache
 * pollution by other processes still counts for both.
 */

struct pu_arg {
	/* cache-line aligned, whatever the neutral struct's alignment and
	 * the linker make of this struct's place: the memcpy baseline's
	 * buffers must not split lines by accident */
	_Alignas(64) uint8_t wire[128];
	_Alignas(64) uint8_t wire2[128];
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
	int64_t t0 = nvl_bench_thread_cpu_ns();

	for (int i = 0; i < a->iters; i++) {
		abb_r2_0_sysinfo_unpack(a->wire, a->size, &a->n);
		nvl_bench_do_not_optimize(&a->n);
		abb_r2_0_sysinfo_pack(&a->n, a->wire2, a->size);
		nvl_bench_do_not_optimize(a->wire2);
	}
	return (double)(nvl_bench_thread_cpu_ns() - t0) / a->iters;
}

static double copy_sample(void *p)
{
	struct pu_arg *a = p;
	int64_t t0 = nvl_bench_thread_cpu_ns();

	for (int i = 0; i < a->iters; i++) {
		copy_call(a->wire2, a->wire, a->size);
		nvl_bench_do_not_optimize(a->wire2);
	}
	return (double)(nvl_bench_thread_cpu_ns() - t0) / a->iters;
}

/*
 * ns per two library copies, @wire -> @mid -> @wire2 (@mid: the neutral
 * struct's storage from its first member, where the generated copies put
 * the data), in thread CPU time.
 */
static double two_copies(uint8_t *mid, const uint8_t *wire, uint8_t *wire2,
			 size_t size, int iters)
{
	int64_t t0 = nvl_bench_thread_cpu_ns();

	for (int i = 0; i < iters; i++) {
		copy_call(mid, wire, size);
		nvl_bench_do_not_optimize(mid);
		copy_call(wire2, mid, size);
		nvl_bench_do_not_optimize(wire2);
	}
	return (double)(nvl_bench_thread_cpu_ns() - t0) / iters;
}

static double two_copy_sample(void *p)
{
	struct pu_arg *a = p;

	return two_copies((uint8_t *)&a->n + 16, a->wire, a->wire2, a->size,
			  a->iters);
}

NVL_BENCH(abigen, pack_unpack)
{
	static struct pu_arg a;
	double pu, cp, fl, pus[9], cps[9], fls[9];
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
	if (16 + a.size > sizeof(a.n)) {
		fprintf(stderr, "pack_unpack: the two copies do not fit\n");
		return -1;
	}
	reps = nvl_bench_quick(ctx) ? 3 : 9;
	for (int r = 0; r < reps; r++) {
		pus[r] = pu_sample(&a);
		cps[r] = copy_sample(&a);
		fls[r] = two_copy_sample(&a);
	}
	pu = nvl_bench_median_of(pus, reps);
	cp = nvl_bench_median_of(cps, reps);
	fl = nvl_bench_median_of(fls, reps);
	nvl_bench_report_extra(ctx, "pack_unpack", pu, "ns", NULL, "memcpy_ns",
			       cp, "ratio_vs_memcpy", pu / cp, "bytes",
			       (double)a.size, "two_memcpy_ns", fl,
			       "ratio_vs_two_memcpy", pu / fl, NULL);
	return 0;
}

/* ---- the driver's own set ------------------------------------------------ */

struct gpu_arg {
	const struct gspabi_struct_ops *s;
	uint8_t *wire, *wire2;
	void *n;
	size_t size;
	int iters;
};

static double gpu_sample(void *p)
{
	struct gpu_arg *a = p;
	int64_t t0 = nvl_bench_thread_cpu_ns();

	for (int i = 0; i < a->iters; i++) {
		a->s->unpack(a->wire, a->size, a->n);
		nvl_bench_do_not_optimize(a->n);
		a->s->pack(a->n, a->wire2, a->size);
		nvl_bench_do_not_optimize(a->wire2);
	}
	return (double)(nvl_bench_thread_cpu_ns() - t0) / a->iters;
}

static double gtwo_copy_sample(void *p)
{
	struct gpu_arg *a = p;

	return two_copies((uint8_t *)a->n + 16, a->wire, a->wire2, a->size,
			  a->iters);
}

static double gcopy_sample(void *p)
{
	struct gpu_arg *a = p;
	int64_t t0 = nvl_bench_thread_cpu_ns();

	for (int i = 0; i < a->iters; i++) {
		copy_call(a->wire2, a->wire, a->size);
		nvl_bench_do_not_optimize(a->wire2);
	}
	return (double)(nvl_bench_thread_cpu_ns() - t0) / a->iters;
}

/*
 * unpack + pack of struct @id of 570.144 (neutral struct of @nsize bytes
 * at @n) against a memcpy of its size; @name's figure. The struct must be
 * the largest (@largest) or the one with the most wanted fields.
 */
static int gsp_pack_unpack(struct nvl_bench_ctx *ctx, const char *name,
			   enum gspabi_struct_id id, bool largest, void *n,
			   size_t nsize)
{
	const struct gspabi_version *v = gspabi_version_find("570.144");
	struct gpu_arg a = {.n = n};
	double pu, cp, fl, pus[9], cps[9], fls[9];
	int reps, ret = -1;

	if (!v || !v->structs[id].present)
		return -1;
	for (unsigned i = 0; i < GSPABI_S__COUNT; i++) {
		const struct gspabi_struct_ops *o = &v->structs[i];

		if (o->present &&
		    (largest ? o->wire_size > v->structs[id].wire_size
			     : __builtin_popcountll(o->fields) >
				       __builtin_popcountll(
					       v->structs[id].fields))) {
			fprintf(stderr, "%s: %s is now the %s struct\n", name,
				o->name, largest ? "largest" : "fullest");
			return -1;
		}
	}
	a.s = &v->structs[id];
	a.size = a.s->wire_size;
	if (16 + a.size > nsize) {
		fprintf(stderr, "%s: the two copies do not fit\n", name);
		return -1;
	}
	a.wire = calloc(1, a.size);
	a.wire2 = calloc(1, a.size);
	if (!a.wire || !a.wire2)
		goto out;
	/* a canonical image: unpack of patterned bytes, packed back */
	for (size_t i = 0; i < a.size; i++)
		a.wire2[i] = (uint8_t)(i * 7 + 1);
	if (a.s->unpack(a.wire2, a.size, n) || a.s->pack(n, a.wire, a.size) ||
	    a.s->unpack(a.wire, a.size, n) || a.s->pack(n, a.wire2, a.size) ||
	    memcmp(a.wire, a.wire2, a.size)) {
		fprintf(stderr, "%s: round trip failed\n", name);
		goto out;
	}
	a.iters = (int)((nvl_bench_quick(ctx) ? 20000000 : 200000000) /
			(a.size + 100));
	reps = nvl_bench_quick(ctx) ? 3 : 9;
	for (int r = 0; r < reps; r++) {
		pus[r] = gpu_sample(&a);
		cps[r] = gcopy_sample(&a);
		fls[r] = gtwo_copy_sample(&a);
	}
	pu = nvl_bench_median_of(pus, reps);
	cp = nvl_bench_median_of(cps, reps);
	fl = nvl_bench_median_of(fls, reps);
	nvl_bench_report_extra(
		ctx, name, pu, "ns", NULL, "memcpy_ns", cp, "ratio_vs_memcpy",
		pu / cp, "bytes", (double)a.size, "fields",
		(double)__builtin_popcountll(a.s->fields), "two_memcpy_ns", fl,
		"ratio_vs_two_memcpy", pu / fl, NULL);
	ret = 0;
out:
	free(a.wire);
	free(a.wire2);
	return ret;
}

NVL_BENCH(abigen, pack_unpack_gsp_largest)
{
	static struct gspabi_shadow_fault_buf n;

	return gsp_pack_unpack(ctx, "pack_unpack_gsp_largest",
			       GSPABI_S_SHADOW_FAULT_BUF, true, &n, sizeof(n));
}

NVL_BENCH(abigen, pack_unpack_gsp_fields)
{
	static struct gspabi_wpr_meta n;

	return gsp_pack_unpack(ctx, "pack_unpack_gsp_fields", GSPABI_S_WPR_META,
			       false, &n, sizeof(n));
}

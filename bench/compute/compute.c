// SPDX-License-Identifier: MIT
/*
 * Compute benchmarks.
 *
 * warp_instr_rate: warp instructions per second of the SM interpreter on
 * one core, running an ALU-bound loop (IADD3, IMAD, LOP3, FFMA, SHF,
 * ISETP, BRA) in 8 CTAs of 4 warps. Baseline: the same operations done
 * natively in C on 32-lane arrays ("native_warp_op_rate", measured in the
 * same run), so the ratio is the interpreter's cost per warp instruction
 * against doing the lane work directly.
 *
 * Both are timed on the calling thread's CPU clock: the figure is defined
 * "on one core", and the interpreter here runs on the calling thread alone
 * (nvl_cs_run() without a worker pool), so wall time on a shared machine
 * would also count the time other tenants held that core (a run beside
 * the test suite got a third of a CPU: 44-59 M/s wall against 160+ on its
 * CPU time). warp_instr_rate_wall reports the wall-clock rates of the same
 * runs beside it.
 */
#include <string.h>

#include "base/alloc.h"
#include "bench.h"
#include "hw/isa/isa.h"
#include "model/compute/sm.h"

static const char alu_loop[] = "  MOV R1, c[0x0][0x160]\n"
			       "  S2R R2, SR_TID.X\n"
			       "  MOV R3, 0x3\n"
			       "  MOV R5, 0x3f800000\n"
			       "loop:\n"
			       "  IADD3 R2, R2, R3, RZ\n"
			       "  IMAD R3, R3, R2, 0x7\n"
			       "  LOP3.LUT R4, R2, R3, RZ, 0x3c, !PT\n"
			       "  FFMA R5, R4, R5, R2\n"
			       "  SHF.L.U32 R6, R4, 0x3, RZ\n"
			       "  IADD3 R1, R1, -0x1, RZ\n"
			       "  ISETP.NE.U32.AND P0, PT, R1, RZ, PT\n"
			       "  @P0 BRA loop\n"
			       "  EXIT\n";

static void *no_memory(void *ctx, uint64_t va, uint32_t size, bool write)
{
	return NULL;
}

#define REPS 5

struct run {
	uint64_t *code;
	size_t n;
	uint32_t iters;
	uint64_t instrs;
	double wall[REPS]; /* the same samples' wall-clock rates */
	int nwall;
};

/* rate of @work per CPU second of this thread; the wall rate into @r */
static double rates(struct run *r, double work, int64_t t0, int64_t c0)
{
	int64_t c1 = nvl_bench_thread_cpu_ns(), t1 = nvl_bench_now_ns();

	if (r->nwall < REPS)
		r->wall[r->nwall++] = work * 1e9 / (double)(t1 - t0);
	return work * 1e9 / (double)NVL_MAX(c1 - c0, 1);
}

static double sample_interp(void *arg)
{
	struct run *r = arg;
	uint32_t c0[0x200 / 4] = {0};
	struct nvl_cs_launch l = {
		.arch = NVL_ISA_SM86,
		.code = r->code,
		.ninsn = (uint32_t)r->n,
		.grid = {8, 1, 1},
		.block = {128, 1, 1},
		.cbuf = {c0},
		.cbuf_B = {sizeof(c0)},
		.translate = no_memory,
	};
	struct nvl_cs_stats st;
	int64_t t0, cpu0;

	c0[0x160 / 4] = r->iters;
	t0 = nvl_bench_now_ns();
	cpu0 = nvl_bench_thread_cpu_ns();
	if (nvl_cs_run(&l, NULL, &st))
		return 0;
	r->instrs = st.warp_instrs;
	return rates(r, (double)st.warp_instrs, t0, cpu0);
}

/* the same lane work natively: 8 operations on 32-lane arrays */
static double sample_native(void *arg)
{
	struct run *r = arg;
	uint32_t a[32], b[32], c[32], d[32], e[32];
	uint64_t ops = 0;
	int64_t t0 = nvl_bench_now_ns(), cpu0 = nvl_bench_thread_cpu_ns();

	for (int i = 0; i < 32; i++)
		a[i] = (uint32_t)i, b[i] = 3, c[i] = 0, d[i] = 0, e[i] = 0;
	for (uint32_t w = 0; w < 32; w++) {
		for (uint32_t k = 0; k < r->iters; k++) {
			for (int i = 0; i < 32; i++) {
				float f;

				a[i] += b[i];
				b[i] = b[i] * a[i] + 7;
				c[i] = a[i] ^ b[i];
				f = (float)c[i] * (float)d[i] + (float)a[i];
				memcpy(&d[i], &f, 4);
				e[i] = c[i] << 3;
			}
			nvl_bench_do_not_optimize(e);
			ops += 8;
		}
	}
	nvl_bench_do_not_optimize(a);
	nvl_bench_do_not_optimize(d);
	return rates(r, (double)ops, t0, cpu0);
}

NVL_BENCH(compute, warp_instr_rate)
{
	struct nvl_isa_asm_error err;
	struct run r = {.iters = nvl_bench_quick(ctx) ? 200 : 5000};
	double v, base, v_wall, base_wall;

	if (nvl_isa_assemble(alu_loop, NVL_ISA_SM86, 0, &r.code, &r.n, &err))
		return -1;
	v = nvl_bench_median(REPS, sample_interp, &r);
	v_wall = nvl_bench_median_of(r.wall, r.nwall);
	r.nwall = 0;
	base = nvl_bench_median(REPS, sample_native, &r);
	base_wall = nvl_bench_median_of(r.wall, r.nwall);
	nvl_free(r.code);
	if (v <= 0)
		return -1;
	nvl_bench_report_vs(ctx, "warp_instr_rate", v, "warp_instr/s",
			    "native_warp_op_rate", base);
	nvl_bench_report_vs(ctx, "warp_instr_rate_wall", v_wall, "warp_instr/s",
			    "native_warp_op_rate_wall", base_wall);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * Model MMU benchmarks: translations per second through the TLB.
 *
 *  - translate_tlb_hit: 64 pages translated over and over (all TLB hits);
 *  - translate_tlb_miss: a sequential sweep over 64 MiB of 4 KiB pages,
 *    eight times the TLB's 4 KiB capacity, so every translation walks the
 *    five table levels.
 */
#include <stdlib.h>

#include "bench.h"
#include "model/mmu.h"
#include "model/model.h"
#include "nv/gmmu.h"
#include "nv/ptmem.h"

#define MIB (1ull << 20)
#define VA (1ull << 34)
#define SPAN (64 * MIB)

struct tb {
	struct nvl_model *m;
	struct nvl_nv_ptmem *pm;
	struct nvl_nv_gmmu *g;
	struct nvl_model_vmctx ctx;
	uint64_t pages, n;
	int ok;
};

static int tb_up(struct tb *b)
{
	struct nvl_nv_gmmu_args ga = {0};
	struct nvl_pt_page pg = {.domain = NVL_GEM_DOMAIN_VRAM,
				 .addr = 256 * MIB};
	struct nvl_pt *pt;

	if (nvl_model_create(nvl_model_profile_find("tu102"), &b->m) ||
	    nvl_nv_ptmem_create(nvl_model_hw(b->m), 2048 * MIB, 32 * MIB,
				&b->pm))
		return -1;
	ga.hw = nvl_model_hw(b->m);
	ga.version = 2;
	ga.mem = &nvl_nv_ptmem_ops;
	ga.mem_priv = b->pm;
	if (nvl_nv_gmmu_create(&ga, &b->g))
		return -1;
	pt = nvl_nv_gmmu_pt(b->g);
	/* VA - PA = 4 KiB apart modulo 64 KiB: 4 KiB pages only */
	if (nvl_pt_get(pt, VA + 4096, SPAN, 12))
		return -1;
	nvl_pt_map_pages(pt, VA + 4096, SPAN, 12, &pg);
	nvl_pt_flush(pt, VA, SPAN + 4096);
	b->ctx.pdb = nvl_nv_gmmu_pdb(b->g);
	b->ctx.aperture = NVL_HW_APERTURE_VIDMEM;
	b->ctx.version = 2;
	return 0;
}

static void tb_down(struct tb *b)
{
	nvl_nv_gmmu_destroy(b->g);
	nvl_nv_ptmem_destroy(b->pm);
	nvl_model_destroy(b->m);
}

static double hit_sample(void *arg)
{
	struct tb *b = arg;
	struct nvl_model_xlate x;
	int64_t t0 = nvl_bench_now_ns();

	for (uint64_t i = 0; i < b->n; i++)
		b->ok += !nvl_model_mmu_translate(
			b->m, &b->ctx, VA + 4096 + ((i * 7) % 64) * 4096, 0,
			&x);
	return (double)b->n * 1e9 / (double)(nvl_bench_now_ns() - t0);
}

static double miss_sample(void *arg)
{
	struct tb *b = arg;
	struct nvl_model_xlate x;
	int64_t t0 = nvl_bench_now_ns();

	for (uint64_t i = 0; i < b->n; i++)
		b->ok += !nvl_model_mmu_translate(
			b->m, &b->ctx, VA + 4096 + (i % (SPAN >> 12)) * 4096, 0,
			&x);
	return (double)b->n * 1e9 / (double)(nvl_bench_now_ns() - t0);
}

NVL_BENCH(mmu, translate)
{
	struct tb b = {0};
	struct nvl_model_mmu_stats s0, s1;
	double hit, miss;
	int reps = nvl_bench_quick(ctx) ? 3 : 7;

	if (tb_up(&b)) {
		tb_down(&b);
		return -1;
	}
	b.n = nvl_bench_quick(ctx) ? 200000 : 2000000;
	hit = nvl_bench_median(reps, hit_sample, &b);
	b.n = SPAN >> 12;
	nvl_model_mmu_invalidate(b.m->mmu, NULL, 0, 0);
	nvl_model_mmu_get_stats(b.m->mmu, &s0);
	miss = nvl_bench_median(reps, miss_sample, &b);
	nvl_model_mmu_get_stats(b.m->mmu, &s1);
	tb_down(&b);
	/* every sweep translation must have walked */
	if (s1.walks - s0.walks != (uint64_t)reps * (SPAN >> 12))
		return -1;
	nvl_bench_report(ctx, "translate_tlb_hit", hit, "translations/s", NULL);
	nvl_bench_report(ctx, "translate_tlb_miss", miss, "translations/s",
			 NULL);
	return 0;
}

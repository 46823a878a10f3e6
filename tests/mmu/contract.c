// SPDX-License-Identifier: MIT
/*
 * The page-table contract: the driver maps through GPUVM's bind path into
 * NVIDIA-format tables, and the model's walker must translate every page
 * exactly as GPUVM's view of the address space says: mixed 4 KiB, 64 KiB,
 * 2 MiB (and 512 MiB) pages, read-only, sparse regions and NULL mappings,
 * VRAM and system memory. Also: unmap + invalidate faults, a missing
 * invalidate leaves stale translations, faults carry the right fields, and
 * tables are freed and allocation failures leave no trace.
 */

#include "world.h"

static void mixes_big_and_small_pages_under_one_pd0_entry(void **state)
{
	struct world w;
	struct nvl_model_xlate x;
	uint64_t base = WIN_START + 4 * MIB; /* 2 MiB aligned */
	struct bop ops[2] = {
		{B_MAP, base, 256 << 10, NULL, 0, 0},
		{B_MAP, base + (512 << 10), 12288, NULL, 4096, 0},
	};

	(void)state;
	world_up(&w, "tiny", 1);
	ops[0].obj = &w.bo[1]->base; /* 64 KiB pieces: 64 KiB pages */
	ops[1].obj = &w.bo[2]->base; /* 4 KiB pieces: 4 KiB pages */
	assert_int_equal(drv_bind(w.v, ops, 2), 0);
	assert_int_equal(nvl_model_mmu_translate(w.v->d->m, &w.v->ctx,
						 base + 0x10000, 0, &x),
			 0);
	assert_int_equal(x.page_shift, 16);
	assert_int_equal(nvl_model_mmu_translate(w.v->d->m, &w.v->ctx,
						 base + (512 << 10) + 4096, 0,
						 &x),
			 0);
	assert_int_equal(x.page_shift, 12);
	assert_int_equal(nvl_model_mmu_translate(w.v->d->m, &w.v->ctx,
						 base + (1 << 20), 0, &x),
			 -EFAULT);
	assert_int_equal(check_range(&w, base, base + 2 * MIB), 0);
	/* a contiguous BO, 2 MiB aligned: one 2 MiB PTE */
	ops[0] = (struct bop){B_MAP,	      base + 2 * MIB, 2 * MIB,
			      &w.bo[0]->base, 2 * MIB,	      0};
	assert_int_equal(drv_bind(w.v, ops, 1), 0);
	assert_int_equal(nvl_model_mmu_translate(w.v->d->m, &w.v->ctx,
						 base + 3 * MIB, 0, &x),
			 0);
	assert_int_equal(x.page_shift, 21);
	assert_int_equal(x.pa, 16 * MIB + 3 * MIB);
	world_down(&w);
}

/*
 * Whole PD0 entries of 64 KiB pages (a VA-PA offset that rules out 2 MiB
 * pages) take the big-page fast path, in runs that stop at an entry that is
 * already a directory with a small table: every page must translate as
 * GPUVM says, at 64 KiB, in place and through shadow tables.
 */
static void whole_entries_of_big_pages(bool shadow)
{
	struct world w;
	struct nvl_model_xlate x;
	uint64_t base = WIN_START + 16 * MIB; /* 2 MiB aligned */
	struct bop ops[1];

	drv_shadow_tables = shadow;
	world_up(&w, "tiny", 3);
	/* entry 2 becomes a directory with a small table first */
	ops[0] = (struct bop){
		B_MAP, base + 4 * MIB + 4096, 4096, &w.bo[2]->base, 0, 0};
	assert_int_equal(drv_bind(w.v, ops, 1), 0);
	/* 8 MiB from BO offset 64 KiB: entries 0, 1 (a run), 2 (generic), 3 */
	ops[0] =
		(struct bop){B_MAP, base, 8 * MIB, &w.bo[0]->base, 64 << 10, 0};
	assert_int_equal(drv_bind(w.v, ops, 1), 0);
	for (uint64_t va = base; va < base + 8 * MIB; va += 64 << 10) {
		assert_int_equal(nvl_model_mmu_translate(w.v->d->m, &w.v->ctx,
							 va + 4096, 0, &x),
				 0);
		assert_int_equal(x.page_shift, 16);
		assert_int_equal(x.pa,
				 16 * MIB + (64 << 10) + (va - base) + 4096);
	}
	assert_int_equal(check_range(&w, base, base + 8 * MIB), 0);
	/* unmap + invalidate: every page faults again */
	ops[0] = (struct bop){B_UNMAP, base, 8 * MIB};
	assert_int_equal(drv_bind(w.v, ops, 1), 0);
	for (uint64_t va = base; va < base + 8 * MIB; va += 64 << 10)
		assert_int_equal(nvl_model_mmu_translate(w.v->d->m, &w.v->ctx,
							 va, 0, &x),
				 -EFAULT);
	assert_int_equal(check_range(&w, base, base + 8 * MIB), 0);
	world_down(&w);
	drv_shadow_tables = false;
}

static void whole_pd0_entries_of_big_pages(void **state)
{
	(void)state;
	whole_entries_of_big_pages(false);
	whole_entries_of_big_pages(true);
}

static void
unmap_and_invalidate_fault_every_page_sparse_reads_zero(void **state)
{
	struct world w;
	struct fault_ent f = {0};
	uint64_t base = WIN_START + 8 * MIB, v = 0x77;
	struct bop ops[3] = {
		{B_MAP, base, 6 * MIB, NULL, 0, 0},
		{B_RCREATE, base + 6 * MIB, 4 * MIB, NULL, 0, 0},
		{B_MAP, base + 7 * MIB, 64 << 10, NULL, 128 << 10, 0},
	};
	uint8_t buf[4096];

	(void)state;
	world_up(&w, "tiny", 2);
	ops[0].obj = &w.bo[0]->base;
	ops[2].obj = &w.bo[1]->base;
	assert_int_equal(drv_bind(w.v, ops, 3), 0);
	assert_int_equal(nvl_model_vm_access(w.v->d->m, &w.v->ctx,
					     base + 7 * MIB + 8, &v, 8, true,
					     ENG, 4),
			 0);
	assert_int_equal(check_range(&w, base, base + 10 * MIB), 0);
	/* unmap the mapping (and the one inside the region: back to sparse) */
	ops[0] = (struct bop){B_UNMAP, base, 6 * MIB};
	ops[1] = (struct bop){B_UNMAP, base + 7 * MIB, 64 << 10};
	assert_int_equal(drv_bind(w.v, ops, 2), 0);
	for (uint64_t va = base; va < base + 6 * MIB; va += 4096) {
		struct nvl_model_xlate x;

		assert_int_equal(nvl_model_mmu_translate(w.v->d->m, &w.v->ctx,
							 va, 0, &x),
				 -EFAULT);
	}
	memset(buf, 0xff, sizeof(buf));
	assert_int_equal(nvl_model_vm_access(w.v->d->m, &w.v->ctx,
					     base + 7 * MIB, buf, 4096, false,
					     ENG, 4),
			 0);
	for (unsigned int i = 0; i < 4096; i++)
		assert_int_equal(buf[i], 0);
	assert_int_equal(nvl_model_vm_access(w.v->d->m, &w.v->ctx, base + 4096,
					     &v, 8, false, ENG, 4),
			 -EFAULT);
	assert_true(dev_next_fault(w.v->d, &f));
	assert_int_equal(f.va, base + 4096);
	assert_int_equal(f.engine, ENG);
	assert_int_equal(f.access, NVL_HW_FAULT_ACCESS_READ);
	assert_true(f.type == NVL_HW_FAULT_PDE || f.type == NVL_HW_FAULT_PTE);
	ops[0] = (struct bop){B_RDESTROY, base + 6 * MIB, 4 * MIB};
	assert_int_equal(drv_bind(w.v, ops, 1), 0);
	assert_int_equal(check_range(&w, base, base + 10 * MIB), 0);
	world_down(&w);
}

static void without_invalidate_the_model_serves_stale_data(void **state)
{
	struct world w;
	uint64_t base = WIN_START + 12 * MIB, v = 0xfeedull, got = 0;
	struct nvl_pt_page pg = {.domain = NVL_GEM_DOMAIN_VRAM,
				 .addr = 100 * MIB};
	struct bop op = {B_MAP, base, 64 << 10, NULL, 0, 0};

	(void)state;
	world_up(&w, "tiny", 3);
	op.obj = &w.bo[0]->base;
	assert_int_equal(drv_bind(w.v, &op, 1), 0);
	assert_int_equal(nvl_model_vm_access(w.v->d->m, &w.v->ctx, base, &v, 8,
					     true, ENG, 0),
			 0);
	/* unmap behind GPUVM's back, no invalidate: the TLB still maps it */
	nvl_pt_unmap(w.v->pt, base, 64 << 10, 16, false);
	assert_int_equal(nvl_model_vm_access(w.v->d->m, &w.v->ctx, base, &got,
					     8, false, ENG, 0),
			 0);
	assert_int_equal(got, 0xfeed);
	nvl_pt_flush(w.v->pt, base, 64 << 10);
	assert_int_equal(nvl_model_vm_access(w.v->d->m, &w.v->ctx, base, &got,
					     8, false, ENG, 0),
			 -EFAULT);
	/* the fault is cached too: a map without invalidate still faults */
	nvl_pt_map_pages(w.v->pt, base, 64 << 10, 16, &pg);
	assert_int_equal(nvl_model_vm_access(w.v->d->m, &w.v->ctx, base, &got,
					     8, false, ENG, 0),
			 -EFAULT);
	nvl_pt_flush(w.v->pt, base, 64 << 10);
	assert_int_equal(nvl_model_vm_access(w.v->d->m, &w.v->ctx, base, &got,
					     8, true, ENG, 0),
			 0);
	assert_int_equal(r64(w.v->d, 100 * MIB), 0xfeed);
	/* restore what GPUVM believes before tearing down */
	nvl_pt_map(w.v->pt, base, 64 << 10, 16, op.obj, 0, 0);
	nvl_pt_flush(w.v->pt, base, 64 << 10);
	assert_int_equal(check_range(&w, base, base + (64 << 10)), 0);
	while (dev_next_fault(w.v->d, &(struct fault_ent){0}))
		;
	world_down(&w);
}

static void read_only_and_system_faults_carry_their_fields(void **state)
{
	struct world w;
	struct fault_ent f;
	uint64_t base = WIN_START + 20 * MIB, v = 5;
	struct bop ops[2] = {
		{B_MAP, base, 64 << 10, NULL, 0, NVL_GPUVA_READONLY},
		{B_MAP, base + MIB, 8192, NULL, 4096, 0},
	};

	(void)state;
	world_up(&w, "tiny", 4);
	ops[0].obj = &w.bo[0]->base;
	ops[1].obj = &w.bo[3]->base;
	assert_int_equal(drv_bind(w.v, ops, 2), 0);
	assert_int_equal(nvl_model_vm_access(w.v->d->m, &w.v->ctx, base + 0x808,
					     &v, 8, true, ENG, 9),
			 -EFAULT);
	assert_true(dev_next_fault(w.v->d, &f));
	assert_int_equal(f.va, base);
	assert_int_equal(f.type, NVL_HW_FAULT_RO_VIOLATION);
	assert_int_equal(f.access, NVL_HW_FAULT_ACCESS_WRITE);
	assert_int_equal(f.engine, ENG);
	/* system memory through the IOMMU: works, then faults once unmapped */
	assert_int_equal(nvl_model_vm_access(w.v->d->m, &w.v->ctx,
					     base + MIB + 4096 + 16, &v, 8,
					     true, ENG, 9),
			 0);
	assert_int_equal(((uint64_t *)w.bo[3]->cpu)[(8192 + 16) / 8], 5);
	assert_int_equal(nvl_hw_dma_unmap(w.v->d->hw, w.bo[3]->dma[1], 4096),
			 0);
	assert_int_equal(nvl_model_vm_access(w.v->d->m, &w.v->ctx, base + MIB,
					     &v, 8, false, ENG, 9),
			 -EFAULT);
	assert_true(dev_next_fault(w.v->d, &f));
	assert_int_equal(f.va, base + MIB);
	assert_int_equal(f.type, NVL_HW_FAULT_REGION_VIOLATION);
	assert_int_equal(f.access, NVL_HW_FAULT_ACCESS_READ);
	assert_int_equal(nvl_hw_dma_map(w.v->d->hw,
					(uint8_t *)w.bo[3]->cpu + 4096, 4096,
					&w.bo[3]->dma[1]),
			 0);
	world_down(&w);
}

struct getarg {
	struct nvl_pt *pt;
	uint64_t va, range;
	unsigned int shift;
	struct nvl_pt_stats before;
};

static int do_get(void *p)
{
	struct getarg *a = p;

	return nvl_pt_get(a->pt, a->va, a->range, a->shift);
}

static void check_get(int ret, void *p)
{
	struct getarg *a = p;
	struct nvl_pt_stats st;

	assert_int_equal(ret, -ENOMEM);
	nvl_pt_get_stats(a->pt, &st);
	assert_int_equal(st.tables, a->before.tables);
	assert_int_equal(st.table_bytes, a->before.table_bytes);
}

static void get_failures_leave_no_trace_and_put_frees_tables(void **state)
{
	struct drv *v;
	struct getarg a;
	struct nvl_pt_stats st;

	(void)state;
	/* without the table cache, so that every get allocates */
	drv_pt_cache = -1;
	v = drv_up("tiny", 0, 1ull << 40);
	drv_pt_cache = 0;
	a = (struct getarg){.pt = v->pt,
			    .va = (1ull << 30) - 4 * MIB,
			    .range = 12 * MIB,
			    .shift = 12};
	nvl_pt_get_stats(v->pt, &a.before);
	t_fail_each_alloc(do_get, check_get, &a, 200);
	nvl_pt_get_stats(v->pt, &st);
	/* PD2, PD1, 2 x PD0 (the range crosses 1 GiB), 6 x (small + big) */
	assert_int_equal(st.tables, a.before.tables + 4 + 12);
	assert_int_equal(nvl_pt_get(v->pt, a.va, a.range, 12), 0); /* nests */
	nvl_pt_put(v->pt, a.va, a.range, 12);
	nvl_pt_get_stats(v->pt, &st);
	assert_int_equal(st.tables, a.before.tables + 16);
	nvl_pt_put(v->pt, a.va, a.range, 12);
	nvl_pt_get_stats(v->pt, &st);
	assert_int_equal(st.tables, 1);
	assert_int_equal(nvl_nv_ptmem_used(v->pm), 4096);
	/* bad arguments change nothing */
	assert_int_equal(nvl_pt_get(v->pt, 4096, 8192, 16), -EINVAL);
	assert_int_equal(nvl_pt_get(v->pt, 0, 0, 12), -EINVAL);
	assert_int_equal(nvl_pt_get(v->pt, 1ull << 49, 4096, 12), -EINVAL);
	nvl_pt_get_stats(v->pt, &st);
	assert_int_equal(st.tables, 1);
	drv_down(v);
}

/*
 * Freed tables go to the table cache and the next get takes them without
 * allocating (even with every allocation failing); reused tables hold stale
 * entries from their last use and must still map exactly; trim frees them.
 */
static void freed_tables_are_cached_and_reused(void **state)
{
	struct world w;
	struct nvl_pt_stats st;
	uint64_t base = WIN_START + 16 * MIB, used0;
	struct bop ops[1];

	(void)state;
	world_up(&w, "tiny", 5);
	used0 = nvl_nv_ptmem_used(w.v->pm);
	/* 4 KiB pages over 6 MiB: small and big tables for three entries */
	ops[0] = (struct bop){B_MAP,	      base + 4096, 6 * MIB - 8192,
			      &w.bo[2]->base, 0,	   0};
	assert_int_equal(drv_bind(w.v, ops, 1), 0);
	ops[0] = (struct bop){B_UNMAP, base + 4096, 6 * MIB - 8192};
	assert_int_equal(drv_bind(w.v, ops, 1), 0);
	nvl_pt_get_stats(w.v->pt, &st);
	assert_true(st.cached >= 6);
	assert_true(st.cached_bytes >= 3 * 4096);
	assert_true(nvl_nv_ptmem_used(w.v->pm) >= used0 + st.cached_bytes);
	/* a get the cache can serve allocates nothing */
	nvl_fault_fail_nth(1, NVL_FAULT_THIS_THREAD);
	assert_int_equal(nvl_pt_get(w.v->pt, base, 6 * MIB, 12), 0);
	assert_int_equal(nvl_fault_hits(), 0);
	nvl_fault_off();
	nvl_pt_put(w.v->pt, base, 6 * MIB, 12);
	/* reused tables (stale entries inside) map exactly: other BO, 64K */
	ops[0] = (struct bop){B_MAP, base, 6 * MIB, &w.bo[1]->base, 0, 0};
	assert_int_equal(drv_bind(w.v, ops, 1), 0);
	assert_int_equal(check_range(&w, base, base + 6 * MIB), 0);
	ops[0] =
		(struct bop){B_MAP, base + 4096, 8192, &w.bo[2]->base, 4096, 0};
	assert_int_equal(drv_bind(w.v, ops, 1), 0);
	assert_int_equal(check_range(&w, base, base + 6 * MIB), 0);
	ops[0] = (struct bop){B_UNMAP, base, 6 * MIB};
	assert_int_equal(drv_bind(w.v, ops, 1), 0);
	assert_int_equal(check_range(&w, base, base + 6 * MIB), 0);
	/* trim gives the cached tables' memory back */
	nvl_pt_trim(w.v->pt);
	nvl_pt_get_stats(w.v->pt, &st);
	assert_int_equal(st.cached, 0);
	assert_int_equal(st.cached_bytes, 0);
	assert_int_equal(nvl_nv_ptmem_used(w.v->pm), used0);
	world_down(&w);
}

static void put_folds_sparse_tables_into_their_parent(void **state)
{
	struct drv *v = drv_up("tiny", 0, 1ull << 40);
	uint64_t region = 1ull << 34, tile = region + 2 * MIB + (64 << 10);
	struct nvl_pt_page pg = {.domain = NVL_GEM_DOMAIN_VRAM,
				 .addr = 8 * MIB};
	struct nvl_model_xlate x;
	struct nvl_pt_stats st, before;

	(void)state;
	/* a 16 MiB sparse region referenced at 2 MiB: PD0-level entries */
	assert_int_equal(nvl_pt_get(v->pt, region, 16 * MIB, 21), 0);
	nvl_pt_sparse(v->pt, region, 16 * MIB, true);
	nvl_pt_flush(v->pt, region, 16 * MIB);
	nvl_pt_get_stats(v->pt, &before);
	/* a 64 KiB tile inside it, then back to sparse and released */
	assert_int_equal(nvl_pt_get(v->pt, tile, 64 << 10, 16), 0);
	nvl_pt_map_pages(v->pt, tile, 64 << 10, 16, &pg);
	nvl_pt_flush(v->pt, tile, 64 << 10);
	assert_int_equal(nvl_model_mmu_translate(v->d->m, &v->ctx, tile, 0, &x),
			 0);
	assert_int_equal(x.state, NVL_MODEL_XLATE_MAPPED);
	assert_int_equal(nvl_model_mmu_translate(v->d->m, &v->ctx,
						 tile + (64 << 10), 0, &x),
			 0);
	assert_int_equal(x.state, NVL_MODEL_XLATE_SPARSE);
	nvl_pt_unmap(v->pt, tile, 64 << 10, 16, true);
	nvl_pt_flush(v->pt, tile, 64 << 10);
	nvl_pt_put(v->pt, tile, 64 << 10, 16);
	nvl_pt_get_stats(v->pt, &st);
	assert_int_equal(st.tables, before.tables);
	assert_int_equal(st.kept, 0);
	for (uint64_t va = region; va < region + 16 * MIB; va += 60 << 10) {
		assert_int_equal(
			nvl_model_mmu_translate(v->d->m, &v->ctx, va, 0, &x),
			0);
		assert_int_equal(x.state, NVL_MODEL_XLATE_SPARSE);
	}
	/* a put that would lose a live translation keeps the table */
	assert_int_equal(nvl_pt_get(v->pt, tile, 64 << 10, 16), 0);
	nvl_pt_map_pages(v->pt, tile, 64 << 10, 16, &pg);
	nvl_pt_put(v->pt, tile, 64 << 10, 16);
	nvl_pt_get_stats(v->pt, &st);
	assert_int_equal(st.kept, 1);
	assert_int_equal(
		nvl_model_mmu_walk(v->d->m, &v->ctx, tile, 0, &x, NULL), 0);
	assert_int_equal(x.state, NVL_MODEL_XLATE_MAPPED);
	/* reuse it, unmap properly: now it goes */
	assert_int_equal(nvl_pt_get(v->pt, tile, 64 << 10, 16), 0);
	nvl_pt_unmap(v->pt, tile, 64 << 10, 16, true);
	nvl_pt_put(v->pt, tile, 64 << 10, 16);
	nvl_pt_sparse(v->pt, region, 16 * MIB, false);
	nvl_pt_put(v->pt, region, 16 * MIB, 21);
	nvl_pt_get_stats(v->pt, &st);
	assert_int_equal(st.tables, 1);
	/* stats.kept counted the deliberate case: tear down without drv_down */
	nvl_gpuvm_destroy(v->vm);
	v->vm = NULL;
	nvl_nv_gmmu_destroy(v->g);
	nvl_nv_ptmem_destroy(v->pm);
	dev_down(v->d);
	free(v);
}

struct mkarg {
	struct dev *d;
	struct nvl_nv_ptmem *pm;
	struct nvl_nv_gmmu *g;
};

static int do_create(void *p)
{
	struct mkarg *a = p;
	struct nvl_nv_gmmu_args ga = {
		.hw = a->d->hw, .version = 2, .mem = &nvl_nv_ptmem_ops};
	int ret = nvl_nv_ptmem_create(a->d->hw, TABLES_BASE, 16 * MIB, &a->pm);

	if (ret)
		return ret;
	ga.mem_priv = a->pm;
	ret = nvl_nv_gmmu_create(&ga, &a->g);
	if (ret) {
		nvl_nv_ptmem_destroy(a->pm);
		a->pm = NULL;
	}
	return ret;
}

static void check_create(int ret, void *p)
{
	struct mkarg *a = p;

	assert_int_equal(ret, -ENOMEM);
	assert_null(a->pm);
}

static void creation_fails_cleanly_and_full_vram_is_enomem(void **state)
{
	struct mkarg a = {.d = dev_up("tiny")};
	struct nvl_nv_gmmu_args ga = {
		.hw = a.d->hw, .version = 2, .mem = &nvl_nv_ptmem_ops};
	struct nvl_nv_ptmem *small;
	struct nvl_nv_gmmu *g;
	struct nvl_pt_stats st;

	(void)state;
	t_fail_each_alloc(do_create, check_create, &a, 50);
	nvl_nv_gmmu_destroy(a.g);
	nvl_nv_ptmem_destroy(a.pm);
	/* bad arguments */
	assert_int_equal(nvl_nv_ptmem_create(a.d->hw, 100, 4096, &small),
			 -EINVAL);
	ga.version = 4;
	assert_int_equal(nvl_nv_gmmu_create(&ga, &g), -EINVAL);
	/* a window of 8 pages: the root and a few tables, then -ENOMEM */
	assert_int_equal(
		nvl_nv_ptmem_create(a.d->hw, TABLES_BASE, 8 * 4096, &small), 0);
	ga.version = 2;
	ga.mem_priv = small;
	assert_int_equal(nvl_nv_gmmu_create(&ga, &g), 0);
	assert_int_equal(nvl_pt_get(nvl_nv_gmmu_pt(g), 0, 64 * MIB, 12),
			 -ENOMEM);
	nvl_pt_get_stats(nvl_nv_gmmu_pt(g), &st);
	assert_int_equal(st.tables, 1);
	assert_int_equal(nvl_nv_ptmem_used(small), 4096);
	assert_int_equal(nvl_pt_get(nvl_nv_gmmu_pt(g), 0, 2 * MIB, 12), 0);
	nvl_pt_put(nvl_nv_gmmu_pt(g), 0, 2 * MIB, 12);
	nvl_nv_gmmu_destroy(g);
	nvl_nv_ptmem_destroy(small);
	dev_down(a.d);
}

static void ampere_maps_512m_pages_at_pd1(void **state)
{
	struct drv *v = drv_up("ga102", 0, 1ull << 40);
	struct tbo *bo =
		tbo_new(v->d->hw, TBO_CONTIG, 1ull << 30, 1ull << 30, 0);
	struct bop op = {B_MAP, 1ull << 32, 1ull << 30, &bo->base, 0, 0};
	struct nvl_model_xlate x;
	struct nvl_pt_stats st;

	(void)state;
	assert_int_equal(drv_bind(v, &op, 1), 0);
	assert_int_equal(nvl_model_mmu_translate(v->d->m, &v->ctx,
						 (1ull << 32) + (700ull << 20),
						 0, &x),
			 0);
	assert_int_equal(x.page_shift, 29);
	assert_int_equal(x.pa, (1ull << 30) + (700ull << 20));
	nvl_pt_get_stats(v->pt, &st);
	assert_int_equal(st.leaves[3], 2);
	op = (struct bop){B_UNMAP, (1ull << 32) + 4096, 4096};
	assert_int_equal(drv_bind(v, &op, 1), 0);
	for (uint64_t va = 1ull << 32; va < (1ull << 32) + 4 * MIB; va += 4096)
		assert_int_equal(drv_check_page(v, va), 0);
	assert_int_equal(drv_check_page(v, (1ull << 32) + 1000 * MIB), 0);
	nvl_gpuvm_destroy(v->vm);
	v->vm = NULL;
	nvl_gem_put(&bo->base);
	drv_down(v);
}

/*
 * Fragmented BOs at 2 MiB-congruent VA and offset: alignment alone would
 * pick 2 MiB pages, the backing's pieces (64 KiB, 4 KiB, system pages)
 * allow no more than their size. GPUVM asks the backend and prepares
 * tables for the smaller pages, so every page maps (drv_down checks
 * stats.errors), remap pieces included.
 */
static void fragmented_bos_at_2m_congruence_get_their_backing_size(void **state)
{
	struct drv *v = drv_up("tiny", 0, 1ull << 40);
	struct tbo *b64 =
		tbo_new(v->d->hw, TBO_FRAG, 8 * MIB, 48 * MIB, 64 << 10);
	struct tbo *b4 = tbo_new(v->d->hw, TBO_FRAG, 4 * MIB, 64 * MIB, 4096);
	struct tbo *bs = tbo_new(v->d->hw, TBO_SYS, 2 * MIB, 0, 0);
	const uint64_t va = 2ull << 30;
	struct bop ops[] = {
		{B_MAP, va, 8 * MIB, &b64->base, 0, 0},
		{B_MAP, va + 8 * MIB, 4 * MIB, &b4->base, 0, 0},
		{B_MAP, va + 12 * MIB, 2 * MIB, &bs->base, 0, 0},
	};
	struct bop cut = {B_UNMAP, va + 2 * MIB + (64 << 10), 64 << 10};
	const unsigned int want[] = {16, 12, 12};

	(void)state;
	assert_int_equal(drv_bind(v, ops, 3), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(
			nvl_gpuvm_find_at(v->vm, ops[i].addr)->page_shift,
			want[i]);
	for (uint64_t a = va; a < va + 14 * MIB; a += 4096)
		assert_int_equal(drv_check_page(v, a), 0);
	/* the pieces left of a cut keep a page size their backing allows */
	assert_int_equal(drv_bind(v, &cut, 1), 0);
	assert_int_equal(nvl_gpuvm_find_at(v->vm, va)->page_shift, 16);
	assert_int_equal(nvl_gpuvm_find_at(v->vm, va + 4 * MIB)->page_shift,
			 16);
	for (uint64_t a = va; a < va + 8 * MIB; a += 4096)
		assert_int_equal(drv_check_page(v, a), 0);
	nvl_gpuvm_destroy(v->vm);
	v->vm = NULL;
	nvl_gem_put(&b64->base);
	nvl_gem_put(&b4->base);
	nvl_gem_put(&bs->base);
	drv_down(v);
}

static int do_get_region(void *p)
{
	struct getarg *a = p;

	return nvl_pt_get_region(a->pt, a->va, a->range);
}

static void check_pages(struct drv *v, const uint64_t *va, int n)
{
	for (int i = 0; i < n; i++)
		assert_int_equal(drv_check_page(v, va[i]), 0);
}

/*
 * A 16 GiB sparse region is written at PD1 and PD0 level: its get takes
 * the directories on the way (PD2, PD1) and the two PD0s its 2 MiB-aligned
 * edges cut, 16 KiB instead of 34 MiB of page tables. A mapping inside
 * brings its own tables and leaves none behind; edges that cut a PD0
 * entry take page tables; failures leave nothing behind.
 */
/*
 * Create a 16 GiB sparse region on @v, check it takes @dirs directories
 * and reads as GPUVM says around a mapping inside, destroy it.
 */
static void sparse_16g_region(struct drv *v, uint64_t dirs)
{
	const uint64_t r = (16ull << 30) + 2 * MIB, end = r + (16ull << 30);
	struct tbo *bo = tbo_new(v->d->hw, TBO_FRAG, 256 << 10, 48 * MIB, 4096);
	struct bop create = {B_RCREATE, r, 16ull << 30};
	struct bop map = {
		B_MAP, r + (5ull << 30) + 4096, 256 << 10, &bo->base, 0, 0};
	struct bop unmap = {B_UNMAP, map.addr, map.range};
	const uint64_t probe[] = {r - 4096,
				  r,
				  r + 4096,
				  r + 510 * MIB,
				  r + (8ull << 30),
				  map.addr - 4096,
				  map.addr,
				  map.addr + (128 << 10),
				  map.addr + map.range,
				  end - 4096,
				  end};
	struct nvl_pt_stats s0, st;

	nvl_pt_get_stats(v->pt, &s0);
	assert_int_equal(drv_bind(v, &create, 1), 0);
	nvl_pt_get_stats(v->pt, &st);
	assert_int_equal(st.tables - s0.tables, dirs);
	assert_int_equal(st.table_bytes - s0.table_bytes, dirs * 4096);
	check_pages(v, probe, NVL_ARRAY_SIZE(probe));
	assert_int_equal(drv_bind(v, &map, 1), 0);
	check_pages(v, probe, NVL_ARRAY_SIZE(probe));
	for (uint64_t va = map.addr; va < map.addr + map.range; va += 4096)
		assert_int_equal(drv_check_page(v, va), 0);
	assert_int_equal(drv_bind(v, &unmap, 1), 0);
	check_pages(v, probe, NVL_ARRAY_SIZE(probe));
	nvl_pt_get_stats(v->pt, &st);
	assert_int_equal(st.tables - s0.tables, dirs);
	create.kind = B_RDESTROY;
	assert_int_equal(drv_bind(v, &create, 1), 0);
	check_pages(v, probe, NVL_ARRAY_SIZE(probe));
	nvl_pt_get_stats(v->pt, &st);
	assert_int_equal(st.tables, s0.tables);
	nvl_gem_put(&bo->base);
}

/*
 * A 16 GiB sparse region is written at PD1 and PD0 level: its get takes
 * the directories on the way (PD2, PD1; PD3 too on Hopper) and the two
 * PD0s its 2 MiB-aligned edges cut, 16-20 KiB instead of 34 MiB of page
 * tables. A mapping inside brings its own tables and leaves none behind;
 * edges that cut a PD0 entry take page tables; failures leave nothing
 * behind.
 */
static void
sparse_regions_reference_only_the_directories_they_need(void **state)
{
	struct drv *v = drv_up("tiny", 0, 1ull << 40);
	struct drv *h = drv_up("gh100", 0, 1ull << 40);
	const uint64_t e = 40ull << 30;
	struct getarg a = {.pt = v->pt, .va = e - 4096, .range = 6 * MIB};
	struct nvl_pt_stats st;

	(void)state;
	sparse_16g_region(v, 4);
	sparse_16g_region(h, 5);
	drv_down(h);

	/* 4 KiB-aligned edges: page tables there, sparse PD0 entries between */
	nvl_pt_get_stats(v->pt, &a.before);
	t_fail_each_alloc(do_get_region, check_get, &a, 200);
	nvl_pt_get_stats(v->pt, &st);
	/* PD2, PD1, 2 x PD0 (the range crosses 40 GiB), 2 x (small + big) */
	assert_int_equal(st.tables, a.before.tables + 4 + 4);
	nvl_pt_sparse(v->pt, a.va, a.range, true);
	nvl_pt_flush(v->pt, a.va, a.range);
	for (uint64_t va = a.va - 4096; va <= a.va + a.range; va += 4096) {
		struct nvl_model_xlate x;
		bool in = va >= a.va && va < a.va + a.range;

		nvl_model_mmu_translate(v->d->m, &v->ctx, va,
					NVL_HW_FAULT_ACCESS_READ, &x);
		assert_int_equal(x.state, in ? NVL_MODEL_XLATE_SPARSE
					     : NVL_MODEL_XLATE_FAULT);
	}
	nvl_pt_sparse(v->pt, a.va, a.range, false);
	nvl_pt_flush(v->pt, a.va, a.range);
	nvl_pt_put_region(v->pt, a.va, a.range);
	assert_int_equal(nvl_pt_get_region(v->pt, 4096, 100), -EINVAL);
	drv_down(v);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(mixes_big_and_small_pages_under_one_pd0_entry),
	cmocka_unit_test(whole_pd0_entries_of_big_pages),
	cmocka_unit_test(
		unmap_and_invalidate_fault_every_page_sparse_reads_zero),
	cmocka_unit_test(without_invalidate_the_model_serves_stale_data),
	cmocka_unit_test(read_only_and_system_faults_carry_their_fields),
	cmocka_unit_test(get_failures_leave_no_trace_and_put_frees_tables),
	cmocka_unit_test(put_folds_sparse_tables_into_their_parent),
	cmocka_unit_test(freed_tables_are_cached_and_reused),
	cmocka_unit_test(creation_fails_cleanly_and_full_vram_is_enomem),
	cmocka_unit_test(ampere_maps_512m_pages_at_pd1),
	cmocka_unit_test(
		fragmented_bos_at_2m_congruence_get_their_backing_size),
	cmocka_unit_test(
		sparse_regions_reference_only_the_directories_they_need),
};

T_MAIN(tests)

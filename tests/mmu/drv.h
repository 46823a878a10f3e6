/* SPDX-License-Identifier: MIT */
/*
 * The driver side of the contract tests: a GPUVM whose page-table backend
 * is the NVIDIA GMMU engine (generic manager + v2/v3 format + VRAM table
 * allocator) on a model device, test BOs with controllable backing, and a
 * bind helper that goes through GPUVM's split/merge + transaction path.
 */
#ifndef NVL_TESTS_MMU_DRV_H
#define NVL_TESTS_MMU_DRV_H

#include "mmut.h"
#include "mm/gem.h"
#include "nv/gmmu.h"
#include "nv/ptmem.h"
#include "vm/gpuvm.h"
#include "vm/sm.h"

#define PTMEM_SIZE (62 * MIB)

/* ---- test BOs --------------------------------------------------------- */

enum tbo_kind { TBO_CONTIG, TBO_FRAG, TBO_SYS };

struct tbo {
	struct nvl_gem_object base;
	enum tbo_kind kind;
	uint64_t pa; /* CONTIG/FRAG: VRAM start */
	uint64_t piece; /* FRAG: piece size; pieces stored in reverse */
	void *cpu; /* SYS: host pages */
	uint64_t *dma; /* SYS: DMA address per 4 KiB page */
	struct nvl_hw *hw;
};

static void tbo_free(struct nvl_gem_object *obj)
{
	struct tbo *b = (struct tbo *)obj;

	if (b->kind == TBO_SYS) {
		for (uint64_t i = 0; i < obj->size_B / 4096; i++)
			nvl_hw_dma_unmap(b->hw, b->dma[i], 4096);
		free(b->dma);
		free(b->cpu);
	}
	free(b);
}

static int tbo_backing(struct nvl_gem_object *obj, uint64_t off,
		       struct nvl_gem_backing *out)
{
	struct tbo *b = (struct tbo *)obj;

	if (off >= obj->size_B)
		return -ENOENT;
	switch (b->kind) {
	case TBO_CONTIG:
		out->domain = NVL_GEM_DOMAIN_VRAM;
		out->addr = b->pa + off;
		out->len_B = obj->size_B - off;
		return 0;
	case TBO_FRAG: {
		uint64_t n = obj->size_B / b->piece, i = off / b->piece;

		out->domain = NVL_GEM_DOMAIN_VRAM;
		out->addr = b->pa + (n - 1 - i) * b->piece + off % b->piece;
		out->len_B = b->piece - off % b->piece;
		return 0;
	}
	default:
		out->domain = NVL_GEM_DOMAIN_GTT;
		out->addr = b->dma[off / 4096] + off % 4096;
		out->len_B = 4096 - off % 4096;
		return 0;
	}
}

static const struct nvl_gem_ops tbo_ops = {
	.free = tbo_free,
	.get_backing = tbo_backing,
};

static inline struct tbo *tbo_new(struct nvl_hw *hw, enum tbo_kind kind,
				  uint64_t size, uint64_t pa, uint64_t piece)
{
	struct tbo *b = calloc(1, sizeof(*b));

	assert_non_null(b);
	nvl_kref_init(&b->base.ref);
	b->base.size_B = size;
	nvl_list_init(&b->base.gpuva.list);
	b->base.ops = &tbo_ops;
	b->kind = kind;
	b->pa = pa;
	b->piece = piece;
	b->hw = hw;
	if (kind == TBO_SYS) {
		b->cpu = aligned_alloc(4096, size);
		b->dma = calloc(size / 4096, sizeof(uint64_t));
		assert_non_null(b->cpu);
		assert_non_null(b->dma);
		memset(b->cpu, 0, size);
		for (uint64_t i = 0; i < size / 4096; i++)
			assert_int_equal(
				nvl_hw_dma_map(hw, (uint8_t *)b->cpu + i * 4096,
					       4096, &b->dma[i]),
				0);
	}
	return b;
}

/* ---- the driver ---------------------------------------------------------- */

struct drv {
	struct dev *d;
	struct nvl_nv_ptmem *pm;
	struct nvl_nv_gmmu *g;
	struct nvl_pt *pt;
	struct nvl_gpuvm *vm;
	struct nvl_model_vmctx ctx;
	bool any_backing; /* GPUVM's page size is only a hint */
};

/*
 * Table memory without a CPU mapping (as a device without BAR1 would
 * offer): the manager keeps CPU shadows and copies entries. Set before
 * drv_up*().
 */
static bool drv_shadow_tables;
static struct nvl_pt_mem_ops drv_shadow_ops;

/* nvl_pt_args.cache_tables for the next drv_up*() (0: the default). */
static int drv_pt_cache;

static inline struct drv *drv_up_opt(const char *profile, uint64_t start,
				     uint64_t end, bool any_backing)
{
	struct drv *v = calloc(1, sizeof(*v));
	struct nvl_nv_gmmu_args ga = {0};
	struct nvl_gpuvm_args va = {0};

	assert_non_null(v);
	v->d = dev_up(profile);
	assert_int_equal(
		nvl_nv_ptmem_create(v->d->hw, TABLES_BASE, PTMEM_SIZE, &v->pm),
		0);
	assert_int_equal(nvl_nv_gmmu_probe(v->d->hw, &ga), 0);
	assert_int_equal(ga.version, v->d->m->profile->mmu_version);
	assert_int_equal(ga.big_leaf_pd1,
			 !!(v->d->m->profile->page_sizes & (1ull << 29)));
	ga.mem = &nvl_nv_ptmem_ops;
	if (drv_shadow_tables) {
		drv_shadow_ops = nvl_nv_ptmem_ops;
		drv_shadow_ops.map = NULL;
		ga.mem = &drv_shadow_ops;
	}
	ga.mem_priv = v->pm;
	ga.any_backing = any_backing;
	ga.cache_tables = drv_pt_cache;
	v->any_backing = any_backing;
	assert_int_equal(nvl_nv_gmmu_create(&ga, &v->g), 0);
	v->pt = nvl_nv_gmmu_pt(v->g);
	va.name = "mmu-test";
	va.start = start;
	va.end = end;
	va.page_shift = 12;
	va.big_page_shifts = nvl_nv_gmmu_big_page_shifts(v->g);
	va.pt_ops = &nvl_pt_ops;
	va.pt_priv = v->pt;
	assert_int_equal(nvl_gpuvm_create(&va, &v->vm), 0);
	v->ctx.pdb = nvl_nv_gmmu_pdb(v->g);
	v->ctx.aperture = NVL_HW_APERTURE_VIDMEM;
	v->ctx.version = ga.version;
	return v;
}

static inline struct drv *drv_up(const char *profile, uint64_t start,
				 uint64_t end)
{
	return drv_up_opt(profile, start, end, false);
}

static inline void drv_down(struct drv *v)
{
	struct nvl_pt_stats st;

	if (v->vm)
		nvl_gpuvm_destroy(v->vm);
	nvl_pt_get_stats(v->pt, &st);
	assert_int_equal(st.tables, 1); /* only the root is left */
	assert_int_equal(st.errors, 0);
	assert_int_equal(st.kept, 0);
	nvl_nv_gmmu_destroy(v->g);
	assert_int_equal(nvl_nv_ptmem_used(v->pm), 0);
	nvl_nv_ptmem_destroy(v->pm);
	dev_down(v->d);
	free(v);
}

enum { B_MAP, B_UNMAP, B_RCREATE, B_RDESTROY };

struct bop {
	int kind;
	uint64_t addr, range;
	struct nvl_gem_object *obj;
	uint64_t off;
	uint32_t flags; /* NVL_GPUVA_* */
};

/* One bind call through GPUVM's path; all or nothing. */
static inline int drv_bind(struct drv *v, const struct bop *ops, int n)
{
	struct nvl_gpuvm_txn txn;
	int ret = 0;

	nvl_gpuvm_txn_begin(v->vm, &txn);
	for (int i = 0; i < n && !ret; i++) {
		const struct bop *b = &ops[i];
		struct nvl_gpuvm_map_req req = {b->addr, b->range, b->obj,
						b->off, b->flags};
		struct nvl_gpuvm_ops l;

		nvl_gpuvm_ops_init(&l);
		switch (b->kind) {
		case B_MAP:
			ret = nvl_gpuvm_sm_map_ops(v->vm, &req, &l);
			break;
		case B_UNMAP:
			ret = nvl_gpuvm_sm_unmap_ops(v->vm, b->addr, b->range,
						     &l);
			break;
		case B_RCREATE:
			ret = nvl_gpuvm_region_create_ops(v->vm, b->addr,
							  b->range, &l);
			break;
		default:
			ret = nvl_gpuvm_region_destroy_ops(v->vm, b->addr,
							   b->range, &l);
			break;
		}
		if (!ret)
			ret = nvl_gpuvm_txn_prepare(&txn, &l);
		if (!ret)
			nvl_gpuvm_txn_apply(&txn, &l);
		nvl_gpuvm_ops_fini(v->vm, &l);
	}
	if (ret) {
		nvl_gpuvm_txn_abort(&txn);
		return ret;
	}
	nvl_gpuvm_txn_commit(&txn);
	nvl_gpuvm_txn_finish(&txn);
	return 0;
}

/* What GPUVM says @va (page aligned) must translate to. */
static inline void drv_expect(struct drv *v, uint64_t va,
			      struct nvl_model_xlate *x, unsigned int *shift)
{
	struct nvl_gpuva *g = nvl_gpuvm_find_at(v->vm, va);
	struct nvl_gpuvm_region *r;

	memset(x, 0, sizeof(*x));
	*shift = 12;
	if (g && (g->flags & NVL_GPUVA_NULL)) {
		x->state = NVL_MODEL_XLATE_SPARSE;
	} else if (g) {
		struct nvl_gem_object *obj = nvl_gpuva_obj(g);
		struct nvl_gem_backing b = {0};

		assert_int_equal(
			obj->ops->get_backing(
				obj, g->bo_offset + va - nvl_gpuva_addr(g), &b),
			0);
		x->state = NVL_MODEL_XLATE_MAPPED;
		x->pa = b.addr;
		x->aperture = b.domain == NVL_GEM_DOMAIN_VRAM
				      ? NVL_HW_APERTURE_VIDMEM
				      : NVL_HW_APERTURE_SYS_COH;
		x->read_only = g->flags & NVL_GPUVA_READONLY;
		*shift = g->page_shift;
	} else {
		x->state = NVL_MODEL_XLATE_FAULT;
		for (r = nvl_gpuvm_region_find_first(v->vm, va, 4096); r;
		     r = nvl_gpuvm_region_next(r, va, 4096))
			if (!r->dead_seq)
				x->state = NVL_MODEL_XLATE_SPARSE;
	}
}

/* Compare the model's translation of @va with GPUVM's; 0 when equal. */
static inline int drv_check_page(struct drv *v, uint64_t va)
{
	struct nvl_model_xlate want, got;
	unsigned int shift;

	drv_expect(v, va, &want, &shift);
	nvl_model_mmu_translate(v->d->m, &v->ctx, va, NVL_HW_FAULT_ACCESS_READ,
				&got);
	if (got.state != want.state)
		goto bad;
	if (want.state == NVL_MODEL_XLATE_MAPPED &&
	    (got.pa != want.pa || got.aperture != want.aperture ||
	     got.read_only != want.read_only ||
	     (!v->any_backing && got.page_shift < shift)))
		goto bad;
	return 0;
bad:
	print_message(
		"# va %#llx: want state %d pa %#llx ap %d ro %d shift>=%u, got "
		"state %d pa %#llx ap %d ro %d shift %u fault %u\n",
		(unsigned long long)va, want.state, (unsigned long long)want.pa,
		want.aperture, want.read_only, shift, got.state,
		(unsigned long long)got.pa, got.aperture, got.read_only,
		got.page_shift, got.fault_type);
	{
		struct nvl_model_walk_trace tr;

		nvl_model_mmu_walk(v->d->m, &v->ctx, va, 0, &got, &tr);
		for (unsigned int i = 0; i < tr.n; i++)
			print_message(
				"#   level %u table %#llx [%u] = %#llx %#llx\n",
				tr.step[i].level,
				(unsigned long long)tr.step[i].table,
				tr.step[i].index,
				(unsigned long long)tr.step[i].lo,
				(unsigned long long)tr.step[i].hi);
	}
	return -1;
}

#endif /* NVL_TESTS_MMU_DRV_H */

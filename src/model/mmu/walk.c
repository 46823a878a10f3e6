// SPDX-License-Identifier: MIT
/*
 * DOC: the model's page-table walker
 *
 * Walks the GMMU tables of one address space for one virtual address and
 * says what the hardware would do: translate (with the leaf's size and
 * permissions), treat as sparse, or fault with a fault type. Versions 2 and
 * 3 (hw/mmu_v2.h, hw/mmu_v3.h) share the walk; they differ in the root
 * level and in how entries encode addresses, sparse and permissions.
 *
 * The walker trusts nothing it reads. A directory entry pointing outside
 * VRAM or at an unmapped system page is a PDE fault; a PTE with the PEER
 * aperture is an UNSUPPORTED_APERTURE fault; a leaf outside VRAM is a
 * REGION_VIOLATION; a large-page PTE where the chip has none is PDE_SIZE.
 * Every walk reads at most one entry per level (depth is bounded by the
 * format), so a loop of tables cannot make it spin: it only reads the same
 * memory as a different level.
 */
#include <errno.h>
#include <string.h>

#include "hw/mmu_v2.h"
#include "hw/mmu_v3.h"
#include "model/model.h"
#include "model/mmu/mmu_internal.h"

struct walk {
	struct nvl_model *m;
	unsigned int version;
	struct nvl_model_xlate *out;
	struct nvl_model_walk_trace *trace;
};

static int read_entry(struct walk *w, unsigned int level,
		      enum nvl_hw_aperture ap, uint64_t table,
		      unsigned int index, unsigned int size, uint64_t *lo,
		      uint64_t *hi)
{
	uint64_t e[2] = {0, 0};
	uint64_t pa = table + (uint64_t)index * size;

	if (ap == NVL_HW_APERTURE_VIDMEM) {
		const uint8_t *p = nvl_model_phys_ptr(w->m, pa, size);

		if (!p)
			return -EFAULT;
		nvl_model_mem_copy(e, p, size);
	} else if (nvl_model_phys_access(w->m, ap, pa, e, size, false)) {
		return -EFAULT;
	}
	*lo = e[0];
	*hi = e[1];
	if (w->trace && w->trace->n < NVL_MODEL_MMU_MAX_STEPS) {
		unsigned int n = w->trace->n++;

		w->trace->step[n].level = level;
		w->trace->step[n].aperture = ap;
		w->trace->step[n].table = table;
		w->trace->step[n].index = index;
		w->trace->step[n].lo = e[0];
		w->trace->step[n].hi = size > 8 ? e[1] : 0;
	}
	return 0;
}

static void set_fault(struct walk *w, unsigned int type, unsigned int shift)
{
	w->out->state = NVL_MODEL_XLATE_FAULT;
	w->out->fault_type = type;
	w->out->page_shift =
		shift > NVL_HW_MMU_SHIFT_512M ? NVL_HW_MMU_SHIFT_512M : shift;
}

static void set_sparse(struct walk *w, unsigned int shift)
{
	w->out->state = NVL_MODEL_XLATE_SPARSE;
	w->out->page_shift =
		shift > NVL_HW_MMU_SHIFT_512M ? NVL_HW_MMU_SHIFT_512M : shift;
}

static int pde_ap(unsigned int code, enum nvl_hw_aperture *ap)
{
	switch (code) {
	case NVL_HW_MMU_PDE_APERTURE_VIDMEM:
		*ap = NVL_HW_APERTURE_VIDMEM;
		return 0;
	case NVL_HW_MMU_PDE_APERTURE_SYS_COH:
		*ap = NVL_HW_APERTURE_SYS_COH;
		return 0;
	case NVL_HW_MMU_PDE_APERTURE_SYS_NONCOH:
		*ap = NVL_HW_APERTURE_SYS_NONCOH;
		return 0;
	default:
		return -1;
	}
}

static uint64_t field(uint64_t v, unsigned int shift, unsigned int bits)
{
	return (v >> shift) & ((1ull << bits) - 1);
}

/* Table address of an 8-byte PDE (PD1..PD4); @ap already decoded. */
static uint64_t pde_addr(unsigned int version, enum nvl_hw_aperture ap,
			 uint64_t e)
{
	if (version == 3)
		return e & NVL_HW_MMU_V3_PDE_ADDR_MASK;
	return field(e, NVL_HW_MMU_V2_PDE_ADDR_SHIFT,
		     ap == NVL_HW_APERTURE_VIDMEM
			     ? NVL_HW_MMU_V2_PDE_ADDR_VID_BITS
			     : NVL_HW_MMU_V2_PDE_ADDR_SYS_BITS)
	       << NVL_HW_MMU_V2_PDE_ADDR_PHYS_SHIFT;
}

static uint64_t big_pt_addr(unsigned int version, enum nvl_hw_aperture ap,
			    uint64_t lo)
{
	if (version == 3)
		return lo & NVL_HW_MMU_V3_DUAL_ADDR_BIG_MASK;
	return field(lo, NVL_HW_MMU_V2_DUAL_ADDR_BIG_SHIFT,
		     ap == NVL_HW_APERTURE_VIDMEM
			     ? NVL_HW_MMU_V2_DUAL_ADDR_BIG_VID_BITS
			     : NVL_HW_MMU_V2_DUAL_ADDR_BIG_SYS_BITS)
	       << NVL_HW_MMU_V2_DUAL_ADDR_BIG_PHYS_SHIFT;
}

static uint64_t small_pt_addr(unsigned int version, enum nvl_hw_aperture ap,
			      uint64_t hi)
{
	if (version == 3)
		return hi & NVL_HW_MMU_V3_DUAL_ADDR_SMALL_MASK;
	return field(hi, NVL_HW_MMU_V2_DUAL_ADDR_SMALL_SHIFT,
		     ap == NVL_HW_APERTURE_VIDMEM
			     ? NVL_HW_MMU_V2_DUAL_ADDR_SMALL_VID_BITS
			     : NVL_HW_MMU_V2_DUAL_ADDR_SMALL_SYS_BITS)
	       << NVL_HW_MMU_V2_DUAL_ADDR_SMALL_PHYS_SHIFT;
}

/* Is an invalid (aperture 0) directory entry marked sparse? */
static bool pde_sparse(unsigned int version, uint64_t e)
{
	if (version == 3)
		return field(e, NVL_HW_MMU_V3_PDE_PCF_SHIFT, 3) &
		       NVL_HW_MMU_V3_PDE_PCF_SPARSE;
	return e & NVL_HW_MMU_V2_PDE_SPARSE;
}

/* A valid PTE (VALID / IS_PTE set) at a leaf of 1 << @shift bytes. */
static void leaf(struct walk *w, uint64_t va, uint64_t pte, unsigned int shift)
{
	struct nvl_model_xlate *x = w->out;
	unsigned int code = field(pte, 1, 2);
	uint64_t base, size = 1ull << shift;

	switch (code) {
	case NVL_HW_MMU_PTE_APERTURE_VIDMEM:
		x->aperture = NVL_HW_APERTURE_VIDMEM;
		break;
	case NVL_HW_MMU_PTE_APERTURE_SYS_COH:
		x->aperture = NVL_HW_APERTURE_SYS_COH;
		break;
	case NVL_HW_MMU_PTE_APERTURE_SYS_NONCOH:
		x->aperture = NVL_HW_APERTURE_SYS_NONCOH;
		break;
	default: /* PEER: no peer GPUs here */
		set_fault(w, NVL_HW_FAULT_UNSUPPORTED_APERTURE, shift);
		return;
	}
	if (w->version == 3) {
		unsigned int pcf = field(pte, NVL_HW_MMU_V3_PTE_PCF_SHIFT, 5);

		base = pte & (x->aperture == NVL_HW_APERTURE_VIDMEM
				      ? NVL_HW_MMU_V3_PTE_ADDR_VID_MASK
				      : NVL_HW_MMU_V3_PTE_ADDR_MASK);
		x->kind = field(pte, NVL_HW_MMU_V3_PTE_KIND_SHIFT, 4);
		x->volatile_ = pcf & NVL_HW_MMU_V3_PTE_PCF_UNCACHED;
		x->privileged = pcf & NVL_HW_MMU_V3_PTE_PCF_PRIVILEGE;
		x->read_only = pcf & NVL_HW_MMU_V3_PTE_PCF_READ_ONLY;
		x->atomic_disable = pcf & NVL_HW_MMU_V3_PTE_PCF_NO_ATOMIC;
	} else {
		base = field(pte, NVL_HW_MMU_V2_PTE_ADDR_SHIFT,
			     x->aperture == NVL_HW_APERTURE_VIDMEM
				     ? NVL_HW_MMU_V2_PTE_ADDR_VID_BITS
				     : NVL_HW_MMU_V2_PTE_ADDR_SYS_BITS)
		       << NVL_HW_MMU_V2_PTE_ADDR_PHYS_SHIFT;
		x->kind = field(pte, NVL_HW_MMU_V2_PTE_KIND_SHIFT, 8);
		x->volatile_ = pte & NVL_HW_MMU_V2_PTE_VOL;
		x->privileged = pte & NVL_HW_MMU_V2_PTE_PRIVILEGE;
		x->read_only = pte & NVL_HW_MMU_V2_PTE_READ_ONLY;
		x->atomic_disable = pte & NVL_HW_MMU_V2_PTE_ATOMIC_DISABLE;
	}
	if (x->kind == NVL_HW_MMU_KIND_INVALID) {
		set_fault(w, NVL_HW_FAULT_UNSUPPORTED_KIND, shift);
		return;
	}
	/* Address bits below the page size are ignored, as by hardware. */
	base &= ~(size - 1);
	if (x->aperture == NVL_HW_APERTURE_VIDMEM &&
	    (base >= w->m->vram_size || size > w->m->vram_size - base)) {
		set_fault(w, NVL_HW_FAULT_REGION_VIOLATION, shift);
		return;
	}
	x->state = NVL_MODEL_XLATE_MAPPED;
	x->page_shift = shift;
	x->pa = base | (va & (size - 1));
}

/* A PTE in a page table (big or small): valid, sparse, block or fall. */
enum pte_kind { PTE_LEAF, PTE_SPARSE, PTE_BLOCK, PTE_EMPTY };

static enum pte_kind classify_pte(unsigned int version, uint64_t pte)
{
	if (pte & NVL_HW_MMU_V2_PTE_VALID) /* bit 0 in both versions */
		return PTE_LEAF;
	if (version == 3) {
		switch (field(pte, NVL_HW_MMU_V3_PTE_PCF_SHIFT, 5)) {
		case NVL_HW_MMU_V3_PTE_PCF_SPARSE:
		case NVL_HW_MMU_V3_PTE_PCF_MAPPING_NOWHERE:
			return PTE_SPARSE;
		case NVL_HW_MMU_V3_PTE_PCF_NO_VALID_4KB_PAGE:
			return PTE_BLOCK;
		default:
			return PTE_EMPTY;
		}
	}
	if (pte & NVL_HW_MMU_V2_PTE_SPARSE)
		return PTE_SPARSE;
	if (pte & NVL_HW_MMU_V2_PTE_BIG_NO_4K)
		return PTE_BLOCK;
	return PTE_EMPTY;
}

static void walk_pd0(struct walk *w, uint64_t va, enum nvl_hw_aperture ap,
		     uint64_t table)
{
	static const struct nvl_hw_mmu_geom pd0 = NVL_HW_MMU_GEOM_PD0;
	static const struct nvl_hw_mmu_geom big = NVL_HW_MMU_GEOM_PT_BIG;
	static const struct nvl_hw_mmu_geom small = NVL_HW_MMU_GEOM_PT_SMALL;
	enum nvl_hw_aperture big_ap, small_ap;
	uint64_t lo, hi, pte, unused;
	bool has_big, has_small;

	if (read_entry(w, NVL_HW_MMU_PD0, ap, table, nvl_hw_mmu_index(pd0, va),
		       16, &lo, &hi)) {
		set_fault(w, NVL_HW_FAULT_PDE, NVL_HW_MMU_SHIFT_512M);
		return;
	}
	if (lo & NVL_HW_MMU_V2_DUAL_IS_PTE) {
		leaf(w, va, lo, NVL_HW_MMU_SHIFT_2M);
		return;
	}
	has_big = !pde_ap(field(lo, 1, 2), &big_ap);
	has_small = !pde_ap(field(hi, 1, 2), &small_ap);
	if (!has_big && !has_small) {
		if (pde_sparse(w->version, lo))
			set_sparse(w, NVL_HW_MMU_SHIFT_2M);
		else
			set_fault(w, NVL_HW_FAULT_PDE, NVL_HW_MMU_SHIFT_2M);
		return;
	}
	if (has_big) {
		if (read_entry(w, NVL_HW_MMU_PT_BIG, big_ap,
			       big_pt_addr(w->version, big_ap, lo),
			       nvl_hw_mmu_index(big, va), 8, &pte, &unused)) {
			set_fault(w, NVL_HW_FAULT_PDE, NVL_HW_MMU_SHIFT_2M);
			return;
		}
		switch (classify_pte(w->version, pte)) {
		case PTE_LEAF:
			leaf(w, va, pte, NVL_HW_MMU_SHIFT_64K);
			return;
		case PTE_SPARSE:
			set_sparse(w, NVL_HW_MMU_SHIFT_64K);
			return;
		case PTE_BLOCK:
			set_fault(w, NVL_HW_FAULT_PTE, NVL_HW_MMU_SHIFT_64K);
			return;
		case PTE_EMPTY:
			break;
		}
		if (!has_small) {
			set_fault(w, NVL_HW_FAULT_PTE, NVL_HW_MMU_SHIFT_64K);
			return;
		}
	}
	if (read_entry(w, NVL_HW_MMU_PT_SMALL, small_ap,
		       small_pt_addr(w->version, small_ap, hi),
		       nvl_hw_mmu_index(small, va), 8, &pte, &unused)) {
		set_fault(w, NVL_HW_FAULT_PDE, NVL_HW_MMU_SHIFT_2M);
		return;
	}
	switch (classify_pte(w->version, pte)) {
	case PTE_LEAF:
		leaf(w, va, pte, NVL_HW_MMU_SHIFT_4K);
		return;
	case PTE_SPARSE:
		set_sparse(w, NVL_HW_MMU_SHIFT_4K);
		return;
	default:
		set_fault(w, NVL_HW_FAULT_PTE, NVL_HW_MMU_SHIFT_4K);
		return;
	}
}

/**
 * nvl_model_mmu_do_walk() - walk the tables of @ctx for @va (no TLB).
 * @mmu: the MMU (for the chip's leaf sizes)
 * @ctx: address space
 * @va: address
 * @out: result; never left uninitialised
 * @trace: entries read, or NULL
 */
void nvl_model_mmu_do_walk(struct nvl_model_mmu *mmu,
			   const struct nvl_model_vmctx *ctx, uint64_t va,
			   struct nvl_model_xlate *out,
			   struct nvl_model_walk_trace *trace,
			   struct pd0_ref *pd0)
{
	static const struct nvl_hw_mmu_geom g2[] = {
		NVL_HW_MMU_GEOM_PD3_V2,
		NVL_HW_MMU_GEOM_PD2,
		NVL_HW_MMU_GEOM_PD1,
	};
	static const struct nvl_hw_mmu_geom g3[] = {
		NVL_HW_MMU_GEOM_PD4,
		NVL_HW_MMU_GEOM_PD3_V3,
		NVL_HW_MMU_GEOM_PD2,
		NVL_HW_MMU_GEOM_PD1,
	};
	struct walk w = {.m = mmu->m,
			 .version = ctx->version,
			 .out = out,
			 .trace = trace};
	const struct nvl_hw_mmu_geom *g = ctx->version == 3 ? g3 : g2;
	unsigned int n = ctx->version == 3 ? 4 : 3;
	unsigned int level =
		ctx->version == 3 ? NVL_HW_MMU_PD4 : NVL_HW_MMU_PD3;
	unsigned int va_bits = ctx->version == 3 ? NVL_HW_MMU_V3_VA_BITS
						 : NVL_HW_MMU_V2_VA_BITS;
	enum nvl_hw_aperture ap = ctx->aperture;
	uint64_t table = ctx->pdb;

	memset(out, 0, sizeof(*out));
	if (trace)
		trace->n = 0;
	if (pd0)
		pd0->tag = 0;
	if ((ctx->version != 2 && ctx->version != 3) ||
	    ap >= NVL_HW_APERTURE_COUNT) {
		set_fault(&w, NVL_HW_FAULT_UNBOUND_INST_BLOCK, 64);
		return;
	}
	if (va >> va_bits) {
		set_fault(&w, NVL_HW_FAULT_VA_LIMIT_VIOLATION, 64);
		return;
	}
	for (unsigned int i = 0; i < n; i++, level++) {
		uint64_t e, unused;
		unsigned int shift = g[i].shift;

		if (read_entry(&w, level, ap, table, nvl_hw_mmu_index(g[i], va),
			       8, &e, &unused)) {
			/* the table this entry's parent named is unreadable */
			set_fault(&w, NVL_HW_FAULT_PDE,
				  i ? g[i - 1].shift : va_bits);
			return;
		}
		if (e & NVL_HW_MMU_V2_PDE_IS_PTE) {
			if (level == NVL_HW_MMU_PD1 && mmu->big_leaf_pd1)
				leaf(&w, va, e, NVL_HW_MMU_SHIFT_512M);
			else
				set_fault(&w, NVL_HW_FAULT_PDE_SIZE, shift);
			return;
		}
		if (pde_ap(field(e, 1, 2), &ap)) {
			if (pde_sparse(ctx->version, e))
				set_sparse(&w, shift);
			else
				set_fault(&w, NVL_HW_FAULT_PDE, shift);
			return;
		}
		table = pde_addr(ctx->version, ap, e);
	}
	if (pd0) {
		pd0->tag = (va >> NVL_HW_MMU_SHIFT_512M) + 1;
		pd0->table = table;
		pd0->aperture = ap;
	}
	walk_pd0(&w, va, ap, table);
}

/**
 * nvl_model_mmu_walk_pd0() - the walk from @pd0's table (the upper levels
 * cached): the same reads and checks as nvl_model_mmu_do_walk() from PD0 on.
 * @mmu: the MMU
 * @ctx: address space
 * @va: address in @pd0's region
 * @pd0: the cached upper levels
 * @out: result; never left uninitialised
 */
void nvl_model_mmu_walk_pd0(struct nvl_model_mmu *mmu,
			    const struct nvl_model_vmctx *ctx, uint64_t va,
			    const struct pd0_ref *pd0,
			    struct nvl_model_xlate *out)
{
	struct walk w = {.m = mmu->m, .version = ctx->version, .out = out};

	memset(out, 0, sizeof(*out));
	walk_pd0(&w, va, pd0->aperture, pd0->table);
}

/**
 * nvl_model_mmu_check_access() - apply the per-access permission checks to
 * a translation: privileged pages fault every request without
 * NVL_MODEL_MMU_ACCESS_PRIV, read-only pages fault writes and atomics,
 * atomic-disabled pages fault atomics.
 * Return: 0, or -EFAULT with @x turned into a FAULT result.
 */
int nvl_model_mmu_check_access(struct nvl_model_xlate *x, unsigned int access)
{
	bool priv = access & NVL_MODEL_MMU_ACCESS_PRIV;
	bool write, atomic;

	access &= ~NVL_MODEL_MMU_ACCESS_PRIV;
	write = access == NVL_HW_FAULT_ACCESS_WRITE ||
		access == NVL_HW_FAULT_ACCESS_ATOMIC ||
		access == NVL_HW_FAULT_ACCESS_ATOMIC_WEAK;
	atomic = access == NVL_HW_FAULT_ACCESS_ATOMIC ||
		 access == NVL_HW_FAULT_ACCESS_ATOMIC_WEAK;

	if (x->state == NVL_MODEL_XLATE_FAULT)
		return -EFAULT;
	if (x->state != NVL_MODEL_XLATE_MAPPED)
		return 0;
	/* dev_mmu PTE PRIVILEGE: privileged requests only (PRIV_VIOLATION) */
	if (x->privileged && !priv) {
		x->state = NVL_MODEL_XLATE_FAULT;
		x->fault_type = NVL_HW_FAULT_PRIV_VIOLATION;
		return -EFAULT;
	}
	if (write && x->read_only) {
		x->state = NVL_MODEL_XLATE_FAULT;
		x->fault_type = NVL_HW_FAULT_RO_VIOLATION;
		return -EFAULT;
	}
	if (atomic && x->atomic_disable) {
		x->state = NVL_MODEL_XLATE_FAULT;
		x->fault_type = NVL_HW_FAULT_ATOMIC_VIOLATION;
		return -EFAULT;
	}
	return 0;
}

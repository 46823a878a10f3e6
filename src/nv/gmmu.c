// SPDX-License-Identifier: MIT
/*
 * DOC: the NVIDIA GMMU page-table format (driver side)
 *
 * Encoders for the version 2 and 3 formats of hw/mmu_v2.h and hw/mmu_v3.h,
 * plugged into the generic manager of vm/pt/: it decides what goes where
 * (page sizes, dual PDEs, sparse, references); this file decides the bits.
 *
 *  - PTEs: VRAM pages get aperture VIDMEM; GTT pages SYS_COH and SYSTEM
 *    pages SYS_NONCOH, both volatile (uncached in L2). Read-only mappings
 *    set READ_ONLY and ATOMIC_DISABLE. The kind is the VM's (0 = pitch).
 *  - Sparse: VALID = 0 with VOL = 1 (v2) or PCF = SPARSE (v3), in PTEs,
 *    in the big half of a dual PDE and in upper PDEs alike.
 *  - Directory entries point at VRAM tables (aperture VIDMEM).
 *
 * The TLB is invalidated through the MMU_INVALIDATE registers (PDB,
 * ALL_VA, SYS_MEMBAR, ACK GLOBALLY, TRIGGER), polling TRIGGER until the
 * MMU clears it, as RM does without a channel after a PTE downgrade (the
 * membar makes the invalidate wait for accesses already translated); the
 * register has no VA-range form (ranged invalidates are Host MEM_OP
 * methods, for when the driver owns a channel).
 *
 * The format and page sizes come from BOOT_0 and the chip table
 * (nv/chip.h), never from registers real GPUs lack.
 */
#include <errno.h>
#include <sched.h>
#include <string.h>

#include "base/alloc.h"
#include "base/log.h"
#include "base/time.h"
#include "hw/hwif.h"
#include "hw/mmu_v2.h"
#include "hw/mmu_v3.h"
#include "hw/regs.h"
#include "nv/chip.h"
#include "nv/gmmu.h"

struct fmt_priv {
	unsigned int version;
	unsigned int kind;
	unsigned int last; /* kind index of PD0 in the generic manager */
};

struct nvl_nv_gmmu {
	struct nvl_hw *hw;
	struct fmt_priv fp;
	struct nvl_pt_format fmt;
	struct nvl_pt *pt;
};

/* ---- encoders ---------------------------------------------------------- */

/* The first PTE for @page and the step from one page to the next. */
static uint64_t pte_first(const struct fmt_priv *fp, unsigned int shift,
			  const struct nvl_pt_page *page, uint64_t *inc)
{
	bool sys = page->domain != NVL_GEM_DOMAIN_VRAM;
	bool ro = page->flags & NVL_VM_PT_READONLY;
	/* dev_mmu.h: NV_MMU_VER2_PTE_ATOMIC_DISABLE 7:7; ver3 PCF
	 * NO_ATOMIC (read-only pages are never atomic) */
	bool noat = ro || (page->flags & NVL_VM_PT_NOATOMIC);
	unsigned int ap = page->domain == NVL_GEM_DOMAIN_GTT
				  ? NVL_HW_MMU_PTE_APERTURE_SYS_COH
			  : sys ? NVL_HW_MMU_PTE_APERTURE_SYS_NONCOH
				: NVL_HW_MMU_PTE_APERTURE_VIDMEM;

	if (fp->version == 3) {
		unsigned int pcf = NVL_HW_MMU_V3_PTE_PCF_NO_ACCESS_COUNT;

		if (sys)
			pcf |= NVL_HW_MMU_V3_PTE_PCF_UNCACHED;
		if (ro)
			pcf |= NVL_HW_MMU_V3_PTE_PCF_READ_ONLY;
		if (noat)
			pcf |= NVL_HW_MMU_V3_PTE_PCF_NO_ATOMIC;
		*inc = 1ull << shift;
		return NVL_HW_MMU_V3_PTE_VALID |
		       (uint64_t)ap << NVL_HW_MMU_V3_PTE_APERTURE_SHIFT |
		       (uint64_t)pcf << NVL_HW_MMU_V3_PTE_PCF_SHIFT |
		       ((uint64_t)fp->kind << NVL_HW_MMU_V3_PTE_KIND_SHIFT &
			NVL_HW_MMU_V3_PTE_KIND_MASK) |
		       (page->addr & NVL_HW_MMU_V3_PTE_ADDR_MASK);
	}
	*inc = 1ull << (shift - NVL_HW_MMU_V2_PTE_ADDR_PHYS_SHIFT +
			NVL_HW_MMU_V2_PTE_ADDR_SHIFT);
	return NVL_HW_MMU_V2_PTE_VALID |
	       (uint64_t)ap << NVL_HW_MMU_V2_PTE_APERTURE_SHIFT |
	       (sys ? NVL_HW_MMU_V2_PTE_VOL : 0) |
	       (ro ? NVL_HW_MMU_V2_PTE_READ_ONLY : 0) |
	       (noat ? NVL_HW_MMU_V2_PTE_ATOMIC_DISABLE : 0) |
	       (uint64_t)(fp->kind & 0xff) << NVL_HW_MMU_V2_PTE_KIND_SHIFT |
	       (page->addr >> NVL_HW_MMU_V2_PTE_ADDR_PHYS_SHIFT)
		       << NVL_HW_MMU_V2_PTE_ADDR_SHIFT;
}

/*
 * A bind writes whole page tables of PTEs that differ only by their
 * address: on x86-64 a second AVX2 build of this loop stores four per
 * instruction instead of two (chosen once, at load time).
 */
/* (not under ThreadSanitizer: its runtime is not up yet when the loader
 * runs the clone's resolver) */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define NVL_NO_CLONES 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define NVL_NO_CLONES 1
#endif
#if defined(__x86_64__) && defined(__has_attribute) && !defined(NVL_NO_CLONES)
#if __has_attribute(target_clones)
#define NVL_PTE_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef NVL_PTE_CLONES
#define NVL_PTE_CLONES
#endif

NVL_PTE_CLONES
static uint64_t pte_fill(uint64_t *out, unsigned int n, uint64_t v,
			 uint64_t inc)
{
	for (unsigned int i = 0; i < n; i++, v += inc)
		out[i] = v;
	return v;
}

static void enc_pte(const void *priv, uint64_t *out, unsigned int n,
		    unsigned int shift, const struct nvl_pt_page *page)
{
	uint64_t inc, v = pte_first(priv, shift, page, &inc);

	pte_fill(out, n, v, inc);
}

static void enc_pte_tables(const void *priv, uint64_t *const *outs,
			   unsigned int ntables, unsigned int n,
			   unsigned int shift, const struct nvl_pt_page *page)
{
	uint64_t inc, v = pte_first(priv, shift, page, &inc);

	for (unsigned int t = 0; t < ntables; t++)
		v = pte_fill(outs[t], n, v, inc);
}

static uint64_t enc_pte_offset(const void *priv, uint64_t pte, uint64_t delta)
{
	const struct fmt_priv *fp = priv;

	if (fp->version == 3)
		return pte + delta;
	return pte + (delta >> NVL_HW_MMU_V2_PTE_ADDR_PHYS_SHIFT
				       << NVL_HW_MMU_V2_PTE_ADDR_SHIFT);
}

static void enc_uniform(const void *priv, uint64_t out[2], unsigned int kind,
			bool sparse)
{
	const struct fmt_priv *fp = priv;

	out[0] = out[1] = 0;
	if (!sparse)
		return;
	if (fp->version == 3) {
		/* PDE, dual big half and PTE all carry SPARSE = 1 at 3 */
		if (kind <= fp->last)
			out[0] = (uint64_t)NVL_HW_MMU_V3_PDE_PCF_SPARSE
				 << NVL_HW_MMU_V3_PDE_PCF_SHIFT;
		else
			out[0] = (uint64_t)NVL_HW_MMU_V3_PTE_PCF_SPARSE
				 << NVL_HW_MMU_V3_PTE_PCF_SHIFT;
		return;
	}
	if (kind < fp->last)
		out[0] = NVL_HW_MMU_V2_PDE_SPARSE;
	else if (kind == fp->last)
		out[0] = NVL_HW_MMU_V2_DUAL_SPARSE_LO;
	else
		out[0] = NVL_HW_MMU_V2_PTE_SPARSE;
}

static uint64_t enc_table(unsigned int version, uint64_t addr, bool big)
{
	uint64_t ap = (uint64_t)NVL_HW_MMU_PDE_APERTURE_VIDMEM
		      << NVL_HW_MMU_V2_PDE_APERTURE_SHIFT;

	if (version == 3)
		return ap | (addr & (big ? NVL_HW_MMU_V3_DUAL_ADDR_BIG_MASK
					 : NVL_HW_MMU_V3_PDE_ADDR_MASK));
	if (big)
		return ap |
		       (addr >> NVL_HW_MMU_V2_DUAL_ADDR_BIG_PHYS_SHIFT
					<< NVL_HW_MMU_V2_DUAL_ADDR_BIG_SHIFT);
	return ap | (addr >> NVL_HW_MMU_V2_PDE_ADDR_PHYS_SHIFT
				     << NVL_HW_MMU_V2_PDE_ADDR_SHIFT);
}

static void enc_pde(const void *priv, uint64_t out[2], unsigned int level,
		    const uint64_t child[2])
{
	const struct fmt_priv *fp = priv;

	out[0] = out[1] = 0;
	if (level < fp->last) {
		if (child[0] != NVL_PT_NO_TABLE)
			out[0] = enc_table(fp->version, child[0], false);
		return;
	}
	/* dual PDE: lo = big half, hi = small half */
	if (child[1] != NVL_PT_NO_TABLE)
		out[0] = enc_table(fp->version, child[1], true);
	if (child[0] != NVL_PT_NO_TABLE)
		out[1] = enc_table(fp->version, child[0], false);
}

const struct nvl_pt_format_ops nvl_nv_gmmu_format_ops = {
	.pte = enc_pte,
	.pte_tables = enc_pte_tables,
	.pte_offset = enc_pte_offset,
	.uniform = enc_uniform,
	.pde = enc_pde,
};

/* ---- TLB invalidate ---------------------------------------------------- */

/*
 * The MMU_INVALIDATE registers are one set per device: PDB, UPPER_PDB and
 * the trigger are written and polled as one sequence, never interleaved
 * with another thread's on the same device (a trigger written while one
 * is in flight is ignored by the MMU, and a PDB written in between would
 * retarget it). Other devices go on: a hung one holds only its own
 * registers, up to its timeout. The lock lives in the device
 * (nvl_hw.inval_lock, a futex lock valid at zero, so no provider has to
 * initialise it): a waiter spins briefly, then sleeps until the holder is
 * done, for at most the holder's timeout, instead of burning a CPU in
 * yields as the flag it replaces made every waiter do. It is a leaf: no
 * lock, allocation or fence wait under it, only the register sequence
 * and its bounded poll.
 */
static void inval_lock(struct nvl_hw *hw)
{
	nvl_flock_lock(&hw->inval_lock);
}

static void inval_unlock(struct nvl_hw *hw)
{
	nvl_flock_unlock(&hw->inval_lock);
}

/* write the request and poll it done; inval_lock() held */
static int inval_run(struct nvl_hw *hw, uint32_t req, uint64_t pdb)
{
	int64_t deadline = nvl_time_ns() + NVL_NV_GMMU_INVALIDATE_TIMEOUT_NS;

	nvl_hw_wr32(hw, NVL_HW_MMU_INVALIDATE,
		    req | NVL_HW_MMU_INVALIDATE_TRIGGER);
	while (nvl_hw_rd32(hw, NVL_HW_MMU_INVALIDATE) &
	       NVL_HW_MMU_INVALIDATE_TRIGGER) {
		if (nvl_time_ns() > deadline)
			return nvl_error(-ETIMEDOUT,
					 "gmmu: TLB invalidate of pdb %#llx "
					 "did not complete",
					 (unsigned long long)pdb);
		sched_yield();
	}
	return 0;
}

/**
 * nvl_nv_gmmu_invalidate() - see gmmu.h.
 */
int nvl_nv_gmmu_invalidate(struct nvl_hw *hw, uint64_t pdb, uint64_t va,
			   uint64_t range)
{
	int ret;

	/* MMU_INVALIDATE has no range form: all VAs of this PDB */
	(void)va;
	(void)range;
	inval_lock(hw);
	nvl_hw_wr32(hw, NVL_HW_MMU_INVALIDATE_PDB,
		    (uint32_t)((pdb >> 12)
			       << NVL_HW_MMU_INVALIDATE_PDB_ADDR_SHIFT));
	nvl_hw_wr32(hw, NVL_HW_MMU_INVALIDATE_UPPER_PDB, (uint32_t)(pdb >> 40));
	/* the page-table layer invalidates after downgrades and upgrades
	 * alike: every invalidate is a membar, as RM's after a downgrade */
	ret = inval_run(hw,
			NVL_HW_MMU_INVALIDATE_ALL_VA |
				NVL_HW_MMU_INVALIDATE_SYS_MEMBAR |
				NVL_HW_MMU_INVALIDATE_ACK_GLOBALLY,
			pdb);
	inval_unlock(hw);
	return ret;
}

int nvl_nv_gmmu_replay(struct nvl_hw *hw, unsigned replay)
{
	int ret;

	inval_lock(hw);
	ret = inval_run(hw,
			NVL_HW_MMU_INVALIDATE_ALL_VA |
				NVL_HW_MMU_INVALIDATE_ALL_PDB |
				(replay & NVL_HW_MMU_INVALIDATE_REPLAY_MASK)
					<< NVL_HW_MMU_INVALIDATE_REPLAY_SHIFT,
			0);
	inval_unlock(hw);
	return ret;
}

static int gmmu_invalidate(void *priv, uint64_t va, uint64_t range)
{
	struct nvl_nv_gmmu *g = priv;
	int ret = nvl_nv_gmmu_invalidate(g->hw, nvl_pt_root(g->pt), va, range);

	/* the page-table layer keeps what the TLB may still reach and
	 * reports the error to GPUVM, which kills the VM */
	if (ret)
		nvl_err(NVL_CAT_NV, "%s", nvl_error_msg());
	return ret;
}

/* ---- the VM's page tables ---------------------------------------------- */

static void level(struct nvl_pt_level *l, unsigned int shift, unsigned int bits,
		  unsigned int esize, bool leaf, unsigned int size)
{
	l->shift = (uint8_t)shift;
	l->bits = (uint8_t)bits;
	l->entry_size = (uint8_t)esize;
	l->leaf = leaf;
	l->table_size = size;
	l->align = size;
}

/**
 * nvl_nv_gmmu_probe() - see gmmu.h.
 */
int nvl_nv_gmmu_probe(struct nvl_hw *hw, struct nvl_nv_gmmu_args *args)
{
	const struct nvl_nv_chip *chip;
	int ret = nvl_nv_chip_identify(hw, &chip);

	if (ret)
		return ret;
	args->hw = hw;
	args->version = chip->mmu_version;
	args->big_leaf_pd1 = chip->big_leaf_pd1;
	return 0;
}

/*
 * The largest leaf shift, at most @top, such that every piece of @obj's
 * backing under [@va, @va + @range) is aligned like the VA and starts and
 * ends on that page size (the last piece may end with the range).
 */
static unsigned int backing_shift(struct nvl_gem_object *obj,
				  uint64_t bo_offset, uint64_t va,
				  uint64_t range, unsigned int top)
{
	static const unsigned int shifts[] = {29, 21, 16, 12};
	const unsigned int last = 3; /* index of the base page */
	unsigned int s = 0; /* index into shifts */
	uint64_t end = va + range;

	while (s < last && shifts[s] > top)
		s++;
	while (va < end && s < last) {
		struct nvl_gem_backing b = {0};
		uint64_t n;

		if (obj->ops->get_backing(obj, bo_offset, &b) ||
		    b.domain == NVL_GEM_DOMAIN_NONE || !b.len_B)
			return 12;
		n = NVL_MIN(end - va, b.len_B);
		for (; s < last; s++) {
			uint64_t mask = (1ull << shifts[s]) - 1;

			if (!((b.addr ^ va) & mask) && !(va & mask) &&
			    (!((va + n) & mask) || va + n == end))
				break;
		}
		va += n;
		bo_offset += n;
	}
	return shifts[s];
}

/* nvl_pt_args.page_shift: GPUVM asks before it prepares a mapping. */
static unsigned int gmmu_page_shift(void *priv, struct nvl_gem_object *obj,
				    uint64_t bo_offset, uint64_t va,
				    uint64_t range, unsigned int max_shift)
{
	(void)priv;
	return backing_shift(obj, bo_offset, va, range, max_shift);
}

/**
 * nvl_nv_gmmu_create() - see gmmu.h.
 */
int nvl_nv_gmmu_create(const struct nvl_nv_gmmu_args *args,
		       struct nvl_nv_gmmu **out)
{
	struct nvl_pt_args pa = {0};
	struct nvl_nv_gmmu *g;
	unsigned int n = 0;
	int ret;

	if (args->version != 2 && args->version != 3)
		return nvl_error(-EINVAL,
				 "gmmu: unsupported page-table version %u",
				 args->version);
	if (!args->mem || !args->hw)
		return nvl_error(-EINVAL, "gmmu: no device or table memory");
	/* NV_MMU_VER2_PTE_KIND 63:56, NV_MMU_VER3_PTE_KIND 11:8; 0x07 is
	 * NV_MMU_PTE_KIND_INVALID (every access would fault) */
	if (args->kind > (args->version == 3 ? 0xfu : 0xffu) ||
	    args->kind == NVL_HW_MMU_KIND_INVALID)
		return nvl_error(-EINVAL,
				 "gmmu: PTE kind %#x does not fit a version %u "
				 "PTE",
				 args->kind, args->version);
	g = nvl_zalloc(sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->hw = args->hw;
	g->fp.version = args->version;
	g->fp.kind = args->kind;
	if (args->version == 3)
		level(&g->fmt.level[n++], 56, 1, 8, false, 4096); /* PD4 */
	level(&g->fmt.level[n++], 47, args->version == 3 ? 9 : 2, 8, false,
	      4096); /* PD3 */
	level(&g->fmt.level[n++], 38, 9, 8, false, 4096); /* PD2 */
	level(&g->fmt.level[n++], 29, 9, 8, args->big_leaf_pd1, 4096); /* PD1 */
	level(&g->fmt.level[n++], 21, 8, 16, true, 4096); /* PD0 */
	g->fmt.nlevels = n;
	g->fmt.npt = 2;
	level(&g->fmt.pt[0], 12, 9, 8, true, 4096); /* small PT */
	level(&g->fmt.pt[1], 16, 5, 8, true, 256); /* big PT */
	g->fmt.ops = &nvl_nv_gmmu_format_ops;
	g->fmt.priv = &g->fp;
	g->fp.last = n - 1;

	pa.fmt = &g->fmt;
	pa.mem = args->mem;
	pa.mem_priv = args->mem_priv;
	pa.invalidate = gmmu_invalidate;
	pa.priv = g;
	pa.any_backing = args->any_backing;
	pa.cache_tables = args->cache_tables;
	pa.page_shift = gmmu_page_shift;
	ret = nvl_pt_create(&pa, &g->pt);
	if (ret) {
		nvl_free(g);
		return ret;
	}
	*out = g;
	return 0;
}

/**
 * nvl_nv_gmmu_destroy() - see gmmu.h.
 */
void nvl_nv_gmmu_destroy(struct nvl_nv_gmmu *g)
{
	if (!g)
		return;
	nvl_pt_destroy(g->pt);
	nvl_free(g);
}

/**
 * nvl_nv_gmmu_pt() - see gmmu.h.
 */
struct nvl_pt *nvl_nv_gmmu_pt(struct nvl_nv_gmmu *g)
{
	return g->pt;
}

/**
 * nvl_nv_gmmu_pdb() - see gmmu.h.
 */
uint64_t nvl_nv_gmmu_pdb(const struct nvl_nv_gmmu *g)
{
	return nvl_pt_root(g->pt);
}

/**
 * nvl_nv_gmmu_big_page_shifts() - see gmmu.h.
 */
uint64_t nvl_nv_gmmu_big_page_shifts(const struct nvl_nv_gmmu *g)
{
	uint64_t m = 1ull << 16 | 1ull << 21;

	if (g->fmt.level[g->fmt.nlevels - 2].leaf)
		m |= 1ull << 29;
	return m;
}

/**
 * nvl_nv_gmmu_backing_shift() - see gmmu.h.
 */
unsigned int nvl_nv_gmmu_backing_shift(struct nvl_gem_object *obj,
				       uint64_t bo_offset, uint64_t va,
				       uint64_t range)
{
	return backing_shift(obj, bo_offset, va, range, 21);
}

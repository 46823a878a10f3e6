// SPDX-License-Identifier: MIT
/*
 * The model MMU against page tables built by hand: every field of the v2
 * and v3 formats, the dual-PDE precedence rules, sparse, faults with their
 * fault-buffer entries, bad tables, and the TLB's stale and negative
 * entries.
 */
#include <pthread.h>
#include <sched.h>

#include "mmut.h"
#include "base/time.h"
#include "hw/mmu_v3.h"

#define ENG NVL_HW_MMU_ENGINE_CE(0)

struct v2 {
	struct nvl_model_vmctx ctx;
	uint64_t pd3, pd2, pd1, pd0;
};

/* PD3[0] -> PD2[0] -> PD1[0] -> PD0: VA [0, 512 MiB) */
static void v2_build(struct dev *d, struct v2 *t)
{
	t->pd3 = dev_alloc(d, 4096, 4096);
	t->pd2 = dev_alloc(d, 4096, 4096);
	t->pd1 = dev_alloc(d, 4096, 4096);
	t->pd0 = dev_alloc(d, 4096, 4096);
	w64(d, t->pd3, V2_PDE_VID(t->pd2));
	w64(d, t->pd2, V2_PDE_VID(t->pd1));
	w64(d, t->pd1, V2_PDE_VID(t->pd0));
	t->ctx.pdb = t->pd3;
	t->ctx.aperture = NVL_HW_APERTURE_VIDMEM;
	t->ctx.version = 2;
}

static void pd0_set(struct dev *d, struct v2 *t, unsigned int i, uint64_t lo,
		    uint64_t hi)
{
	w64(d, t->pd0 + 16ull * i, lo);
	w64(d, t->pd0 + 16ull * i + 8, hi);
}

static int walk(struct dev *d, const struct nvl_model_vmctx *ctx, uint64_t va,
		unsigned int access, struct nvl_model_xlate *x)
{
	return nvl_model_mmu_walk(d->m, ctx, va, access, x, NULL);
}

static void walks_translate_4k_64k_and_2m_pages(void **state)
{
	struct dev *d = dev_up("tiny");
	struct nvl_model_xlate x;
	struct nvl_model_walk_trace tr;
	struct v2 t;
	uint64_t spt, bpt;

	(void)state;
	v2_build(d, &t);
	spt = dev_alloc(d, 4096, 4096);
	bpt = dev_alloc(d, 256, 256);
	pd0_set(d, &t, 0, 0, V2_DUAL_SMALL_VID(spt)); /* [0, 2M): 4K */
	w64(d, spt + 8 * 3, V2_PTE_VID(0x345000));
	pd0_set(d, &t, 1, V2_PTE_VID(16 * MIB), 0); /* [2M, 4M): 2M */
	pd0_set(d, &t, 2, V2_DUAL_BIG_VID(bpt), 0); /* [4M, 6M): 64K */
	w64(d, bpt + 8 * 5, V2_PTE_VID(32 * MIB + 0x50000));

	assert_int_equal(nvl_model_mmu_walk(d->m, &t.ctx, 0x3123,
					    NVL_HW_FAULT_ACCESS_READ, &x, &tr),
			 0);
	assert_int_equal(x.state, NVL_MODEL_XLATE_MAPPED);
	assert_int_equal(x.page_shift, 12);
	assert_int_equal(x.pa, 0x345123);
	assert_int_equal(tr.n, 5); /* PD3, PD2, PD1, PD0, small PT */
	assert_int_equal(tr.step[3].level, 4 /* PD0 */);
	assert_int_equal(tr.step[3].hi, V2_DUAL_SMALL_VID(spt));
	assert_int_equal(tr.step[4].table, spt);
	assert_int_equal(tr.step[4].index, 3);

	assert_int_equal(walk(d, &t.ctx, 2 * MIB + 0x12345,
			      NVL_HW_FAULT_ACCESS_WRITE, &x),
			 0);
	assert_int_equal(x.page_shift, 21);
	assert_int_equal(x.pa, 16 * MIB + 0x12345);

	assert_int_equal(walk(d, &t.ctx, 4 * MIB + 5 * 0x10000 + 0x4321,
			      NVL_HW_FAULT_ACCESS_READ, &x),
			 0);
	assert_int_equal(x.page_shift, 16);
	assert_int_equal(x.pa, 32 * MIB + 0x54321);
	dev_down(d);
}

static void big_pte_takes_precedence_over_small(void **state)
{
	struct dev *d = dev_up("tiny");
	struct nvl_model_xlate x;
	struct v2 t;
	uint64_t spt, bpt;

	(void)state;
	v2_build(d, &t);
	spt = dev_alloc(d, 4096, 4096);
	bpt = dev_alloc(d, 256, 256);
	pd0_set(d, &t, 0, V2_DUAL_BIG_VID(bpt), V2_DUAL_SMALL_VID(spt));
	/* every small PTE valid: small page j -> 1 MiB + j * 4K */
	for (unsigned int j = 0; j < 512; j++)
		w64(d, spt + 8 * j, V2_PTE_VID(MIB + j * 4096ull));
	w64(d, bpt + 0, V2_PTE_VID(8 * MIB)); /* granule 0: big valid */
	w64(d, bpt + 8, 0); /* granule 1: defer to small */
	w64(d, bpt + 16, V2_SPARSE); /* granule 2: sparse */
	w64(d, bpt + 24, V2_PTE_PRIV); /* granule 3: no valid 4K */

	assert_int_equal(walk(d, &t.ctx, 0x1000, 0, &x), 0);
	assert_int_equal(x.page_shift, 16);
	assert_int_equal(x.pa, 8 * MIB + 0x1000);
	assert_int_equal(walk(d, &t.ctx, 0x11000, 0, &x), 0);
	assert_int_equal(x.page_shift, 12);
	assert_int_equal(x.pa, MIB + 0x11000);
	assert_int_equal(walk(d, &t.ctx, 0x21000, 0, &x), 0);
	assert_int_equal(x.state, NVL_MODEL_XLATE_SPARSE);
	assert_int_equal(walk(d, &t.ctx, 0x31000, 0, &x), -EFAULT);
	assert_int_equal(x.fault_type, NVL_HW_FAULT_PTE);
	assert_int_equal(x.page_shift, 16);
	dev_down(d);
}

static void sparse_reads_zero_and_drops_writes_without_fault(void **state)
{
	struct dev *d = dev_up("tiny");
	struct nvl_model_mmu_stats st;
	struct fault_ent f;
	struct v2 t;
	uint64_t spt, sentinel = 0x5a5a5a5a5a5a5a5aull;
	uint8_t buf[8192];

	(void)state;
	v2_build(d, &t);
	spt = dev_alloc(d, 4096, 4096);
	pd0_set(d, &t, 0, 0, V2_DUAL_SMALL_VID(spt));
	w64(d, spt, V2_SPARSE); /* one sparse 4K page */
	w64(d, spt + 8, V2_PTE_VID(0x100000)); /* next page mapped */
	w64(d, 0x100000, sentinel);
	pd0_set(d, &t, 1, V2_SPARSE, 0); /* a sparse 2 MiB */
	w64(d, t.pd2 + 8, V2_SPARSE); /* a sparse 512 GiB */

	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(
		nvl_model_vm_access(d->m, &t.ctx, 0, buf, 8192, false, ENG, 1),
		0);
	for (unsigned int i = 0; i < 4096; i++)
		assert_int_equal(buf[i], 0);
	assert_memory_equal(buf + 4096, &sentinel, 8);
	memset(buf, 0x11, sizeof(buf));
	assert_int_equal(nvl_model_vm_access(d->m, &t.ctx, 2 * MIB + 100, buf,
					     4000, true, ENG, 1),
			 0);
	assert_int_equal(nvl_model_vm_access(d->m, &t.ctx, (1ull << 38) + 5,
					     buf, 64, false, ENG, 1),
			 0);
	assert_int_equal(buf[0], 0);
	/* VRAM unchanged where a write would have landed were it mapped */
	assert_int_equal(r64(d, 0), 0);
	nvl_model_mmu_get_stats(d->m->mmu, &st);
	assert_int_equal(st.faults, 0);
	assert_false(dev_next_fault(d, &f));
	dev_down(d);
}

static void read_only_page_faults_writes_with_fault_entry(void **state)
{
	struct dev *d = dev_up("tiny");
	struct nvl_model_xlate x;
	struct fault_ent f;
	struct v2 t;
	uint64_t spt, v = 42;

	(void)state;
	v2_build(d, &t);
	spt = dev_alloc(d, 4096, 4096);
	pd0_set(d, &t, 0, 0, V2_DUAL_SMALL_VID(spt));
	w64(d, spt + 8 * 7, V2_PTE_VID(0x200000) | V2_PTE_RO);
	w64(d, 0x200000, 7);

	assert_int_equal(
		nvl_model_vm_access(d->m, &t.ctx, 0x7000, &v, 8, false, ENG, 3),
		0);
	assert_int_equal(v, 7);
	v = 42;
	assert_int_equal(
		nvl_model_vm_access(d->m, &t.ctx, 0x7008, &v, 8, true, ENG, 3),
		-EFAULT);
	assert_int_equal(r64(d, 0x200008), 0);
	assert_true(dev_next_fault(d, &f));
	assert_int_equal(f.va, 0x7000);
	assert_int_equal(f.type, NVL_HW_FAULT_RO_VIOLATION);
	assert_int_equal(f.access, NVL_HW_FAULT_ACCESS_WRITE);
	assert_int_equal(f.engine, ENG);
	assert_false(dev_next_fault(d, &f));
	/* atomics are writes too */
	assert_int_equal(nvl_model_mmu_translate(d->m, &t.ctx, 0x7000,
						 NVL_HW_FAULT_ACCESS_ATOMIC,
						 &x),
			 -EFAULT);
	assert_int_equal(x.fault_type, NVL_HW_FAULT_RO_VIOLATION);
	dev_down(d);
}

/*
 * dev_mmu.h NV_MMU_VER2_PTE_PRIVILEGE 5:5 (and the ver3 PCF's privileged
 * bit): a privileged-only page. No engine of the model makes privileged
 * requests (user pushbuffers drive Host, the copy engine and the SMs), so
 * every engine access there faults with FAULT_TYPE PRIV_VIOLATION (5,
 * dev_fault.h), recorded in the fault buffer like the others, reads and
 * writes alike, from the TLB as from a walk; nothing is moved.
 */
static void privileged_page_faults_engine_accesses(void **state)
{
	struct dev *d = dev_up("tiny");
	struct nvl_model_xlate x;
	struct fault_ent f;
	struct v2 t;
	uint64_t spt, v = 42;

	(void)state;
	v2_build(d, &t);
	spt = dev_alloc(d, 4096, 4096);
	pd0_set(d, &t, 0, 0, V2_DUAL_SMALL_VID(spt));
	w64(d, spt + 8 * 4, V2_PTE_VID(0x1ff000));
	w64(d, spt + 8 * 5, V2_PTE_VID(0x200000) | V2_PTE_PRIV);
	w64(d, spt + 8 * 6, V2_PTE_VID(0x201000));
	w64(d, 0x200000, 7);

	for (int pass = 0; pass < 2; pass++) { /* a walk, then the TLB */
		v = 42;
		assert_int_equal(nvl_model_vm_access(d->m, &t.ctx, 0x5000, &v,
						     8, false, ENG, 3),
				 -EFAULT);
		assert_int_equal(v, 42);
		assert_true(dev_next_fault(d, &f));
		assert_int_equal(f.va, 0x5000);
		assert_int_equal(f.type, NVL_HW_FAULT_PRIV_VIOLATION);
		assert_int_equal(f.access, NVL_HW_FAULT_ACCESS_READ);
		assert_int_equal(f.engine, ENG);
		assert_false(dev_next_fault(d, &f));
	}
	assert_int_equal(
		nvl_model_vm_access(d->m, &t.ctx, 0x5008, &v, 8, true, ENG, 3),
		-EFAULT);
	assert_int_equal(r64(d, 0x200008), 0);
	assert_true(dev_next_fault(d, &f));
	assert_int_equal(f.type, NVL_HW_FAULT_PRIV_VIOLATION);
	assert_int_equal(f.access, NVL_HW_FAULT_ACCESS_WRITE);
	/* a copy into the page stops at it, after the page before */
	assert_int_equal(nvl_model_vm_fill(d->m, &t.ctx, 0x4000, 0x11111111,
					   0x2000, ENG, 3),
			 -EFAULT);
	assert_true(dev_next_fault(d, &f));
	assert_int_equal(f.va, 0x5000);
	assert_int_equal(f.type, NVL_HW_FAULT_PRIV_VIOLATION);
	assert_int_equal(r64(d, 0x1ff000), 0x1111111111111111ull);
	assert_int_equal(r64(d, 0x200000), 7);
	/* the neighbour is an ordinary page */
	assert_int_equal(
		nvl_model_vm_access(d->m, &t.ctx, 0x6000, &v, 8, false, ENG, 3),
		0);
	/* the translation still says what the PTE holds */
	assert_int_equal(nvl_model_mmu_walk(d->m, &t.ctx, 0x5000,
					    NVL_HW_FAULT_ACCESS_READ, &x, NULL),
			 -EFAULT);
	assert_int_equal(x.fault_type, NVL_HW_FAULT_PRIV_VIOLATION);
	dev_down(d);
}

/* the same for ver3: PCF bit 1 (privileged) of a valid PTE */
static void v3_privileged_page_faults_engine_accesses(void **state)
{
	struct dev *d = dev_up("gh100");
	struct nvl_model_vmctx ctx = {.aperture = NVL_HW_APERTURE_VIDMEM,
				      .version = 3};
	uint64_t pd4 = dev_alloc(d, 4096, 4096), pd3 = dev_alloc(d, 4096, 4096);
	uint64_t pd2 = dev_alloc(d, 4096, 4096), pd1 = dev_alloc(d, 4096, 4096);
	uint64_t pd0 = dev_alloc(d, 4096, 4096), spt = dev_alloc(d, 4096, 4096);
	struct fault_ent f;
	uint64_t v = 0;

	(void)state;
	ctx.pdb = pd4;
	w64(d, pd4, pd3 | 1u << 1);
	w64(d, pd3, pd2 | 1u << 1);
	w64(d, pd2, pd1 | 1u << 1);
	w64(d, pd1, pd0 | 1u << 1);
	w64(d, pd0 + 8, spt | 1u << 1); /* small half */
	w64(d, spt, 1u | (0x2ull << 3) | 0x500000);
	w64(d, spt + 8, 1u | 0x501000);
	assert_int_equal(
		nvl_model_vm_access(d->m, &ctx, 0x10, &v, 8, false, ENG, 3),
		-EFAULT);
	assert_true(dev_next_fault(d, &f));
	assert_int_equal(f.type, NVL_HW_FAULT_PRIV_VIOLATION);
	assert_int_equal(
		nvl_model_vm_access(d->m, &ctx, 0x1010, &v, 8, false, ENG, 3),
		0);
	dev_down(d);
}

static void invalid_entries_fault_with_their_type(void **state)
{
	struct dev *d = dev_up("tiny");
	struct nvl_model_xlate x;
	struct fault_ent f;
	struct v2 t;
	uint64_t spt, v;

	(void)state;
	v2_build(d, &t);
	spt = dev_alloc(d, 4096, 4096);
	pd0_set(d, &t, 0, 0, V2_DUAL_SMALL_VID(spt));
	w64(d, spt + 8, 1u | 1u << 1 | (0x1000ull >> 12) << 8); /* PEER */
	w64(d, spt + 16, V2_PTE_VID(0) | 0x07ull << 56); /* kind INVALID */
	pd0_set(d, &t, 1, V2_PTE_VID(0x7fe00000ull), 0); /* beyond VRAM */
	pd0_set(d, &t, 2, V2_DUAL_BIG_VID(0x40000000ull),
		0); /* table outside */
	w64(d, t.pd2 + 16, 1); /* IS_PTE at PD2 */

	assert_int_equal(walk(d, &t.ctx, 0x0, 0, &x), -EFAULT);
	assert_int_equal(x.fault_type, NVL_HW_FAULT_PTE);
	assert_int_equal(walk(d, &t.ctx, 0x1000, 0, &x), -EFAULT);
	assert_int_equal(x.fault_type, NVL_HW_FAULT_UNSUPPORTED_APERTURE);
	assert_int_equal(walk(d, &t.ctx, 0x2000, 0, &x), -EFAULT);
	assert_int_equal(x.fault_type, NVL_HW_FAULT_UNSUPPORTED_KIND);
	assert_int_equal(walk(d, &t.ctx, 2 * MIB, 0, &x), -EFAULT);
	assert_int_equal(x.fault_type, NVL_HW_FAULT_REGION_VIOLATION);
	assert_int_equal(walk(d, &t.ctx, 4 * MIB, 0, &x), -EFAULT);
	assert_int_equal(x.fault_type, NVL_HW_FAULT_PDE);
	assert_int_equal(walk(d, &t.ctx, 6 * MIB, 0, &x), -EFAULT);
	assert_int_equal(x.fault_type, NVL_HW_FAULT_PDE);
	assert_int_equal(walk(d, &t.ctx, 2ull << 38, 0, &x), -EFAULT);
	assert_int_equal(x.fault_type, NVL_HW_FAULT_PDE_SIZE);
	assert_int_equal(walk(d, &t.ctx, 1ull << 49, 0, &x), -EFAULT);
	assert_int_equal(x.fault_type, NVL_HW_FAULT_VA_LIMIT_VIOLATION);

	/* through an engine access: the entry names the address and type */
	assert_int_equal(
		nvl_model_vm_access(d->m, &t.ctx, 0x1010, &v, 8, false, ENG, 2),
		-EFAULT);
	assert_true(dev_next_fault(d, &f));
	assert_int_equal(f.va, 0x1000);
	assert_int_equal(f.type, NVL_HW_FAULT_UNSUPPORTED_APERTURE);
	assert_int_equal(f.access, NVL_HW_FAULT_ACCESS_READ);
	dev_down(d);
}

static void table_loops_and_garbage_never_escape(void **state)
{
	struct dev *d = dev_up("tiny");
	struct nvl_model_xlate x;
	struct v2 t;
	uint64_t s = t_seed(0x10057);

	(void)state;
	v2_build(d, &t);
	/* PD1[1] points back at the root, PD0 entries at PD2 */
	w64(d, t.pd1 + 8, V2_PDE_VID(t.pd3));
	pd0_set(d, &t, 3, V2_DUAL_BIG_VID(t.pd2), V2_DUAL_SMALL_VID(t.pd1));
	assert_int_equal(walk(d, &t.ctx, 512 * MIB, 0, &x) == 0 ||
				 x.state == NVL_MODEL_XLATE_FAULT,
			 1);
	walk(d, &t.ctx, 6 * MIB + 0x3000, 0, &x);
	/* random garbage in every table: every walk ends, none escapes */
	for (unsigned int i = 0; i < 512; i++) {
		w64(d, t.pd3 + 8 * (i % 4), t_rand(&s));
		w64(d, t.pd2 + 8 * i, t_rand(&s));
		w64(d, t.pd1 + 8 * i, t_rand(&s));
		w64(d, t.pd0 + 8 * i, t_rand(&s));
	}
	for (unsigned int i = 0; i < 4096; i++) {
		uint64_t va = t_rand(&s) & ((1ull << 49) - 1);

		walk(d, &t.ctx, va, 0, &x);
		assert_true(x.state <= NVL_MODEL_XLATE_FAULT);
		if (x.state == NVL_MODEL_XLATE_MAPPED &&
		    x.aperture == NVL_HW_APERTURE_VIDMEM)
			assert_true(x.pa < d->m->vram_size);
	}
	dev_down(d);
}

static void tlb_serves_stale_translation_until_invalidated(void **state)
{
	struct dev *d = dev_up("tiny");
	struct nvl_model_xlate x;
	struct v2 t;
	uint64_t spt;

	(void)state;
	v2_build(d, &t);
	spt = dev_alloc(d, 4096, 4096);
	pd0_set(d, &t, 0, 0, V2_DUAL_SMALL_VID(spt));
	w64(d, spt, V2_PTE_VID(0x100000));
	w64(d, spt + 8, V2_PTE_VID(0x300000));
	assert_int_equal(nvl_model_mmu_translate(d->m, &t.ctx, 0x10, 0, &x), 0);
	assert_false(x.tlb_hit);
	assert_int_equal(nvl_model_mmu_translate(d->m, &t.ctx, 0x1010, 0, &x),
			 0);
	w64(d, spt, V2_PTE_VID(0x200000));
	w64(d, spt + 8, 0);
	assert_int_equal(nvl_model_mmu_translate(d->m, &t.ctx, 0x10, 0, &x), 0);
	assert_true(x.tlb_hit);
	assert_int_equal(x.pa, 0x100010);
	/* invalidate only the first page: the second stays stale */
	nvl_model_mmu_invalidate(d->m->mmu, &t.ctx, 0, 4096);
	assert_int_equal(nvl_model_mmu_translate(d->m, &t.ctx, 0x10, 0, &x), 0);
	assert_false(x.tlb_hit);
	assert_int_equal(x.pa, 0x200010);
	assert_int_equal(nvl_model_mmu_translate(d->m, &t.ctx, 0x1010, 0, &x),
			 0);
	assert_int_equal(x.pa, 0x300010);
	/* invalidating another address space changes nothing */
	{
		struct nvl_model_vmctx other = t.ctx;

		other.pdb += 4096;
		nvl_model_mmu_invalidate(d->m->mmu, &other, 0, 0);
	}
	assert_int_equal(nvl_model_mmu_translate(d->m, &t.ctx, 0x1010, 0, &x),
			 0);
	assert_true(x.tlb_hit);
	nvl_model_mmu_invalidate(d->m->mmu, NULL, 0, 0);
	assert_int_equal(nvl_model_mmu_translate(d->m, &t.ctx, 0x1010, 0, &x),
			 -EFAULT);
	dev_down(d);
}

static void tlb_caches_faults_so_a_map_needs_an_invalidate(void **state)
{
	struct dev *d = dev_up("tiny");
	struct nvl_model_xlate x;
	struct v2 t;
	uint64_t spt, v = 0;

	(void)state;
	v2_build(d, &t);
	spt = dev_alloc(d, 4096, 4096);
	assert_int_equal(
		nvl_model_vm_access(d->m, &t.ctx, 0x5000, &v, 8, false, ENG, 0),
		-EFAULT);
	pd0_set(d, &t, 0, 0, V2_DUAL_SMALL_VID(spt));
	w64(d, spt + 8 * 5, V2_PTE_VID(0x100000));
	/* the 2 MiB PDE fault is cached: still faults */
	assert_int_equal(nvl_model_mmu_translate(d->m, &t.ctx, 0x5000, 0, &x),
			 -EFAULT);
	assert_true(x.tlb_hit);
	assert_int_equal(x.fault_type, NVL_HW_FAULT_PDE);
	nvl_model_mmu_invalidate(d->m->mmu, &t.ctx, 0x5000, 4096);
	assert_int_equal(nvl_model_mmu_translate(d->m, &t.ctx, 0x5000, 0, &x),
			 0);
	assert_int_equal(x.pa, 0x100000);
	dev_down(d);
}

/*
 * The walk cache holds where PD3..PD1 led for a 512 MiB region: a TLB miss
 * there reads only PD0 and a page table, so a changed upper level is not
 * seen until an invalidate (full or ranged), as with the TLB itself.
 */
static void walk_cache_keeps_upper_levels_until_invalidated(void **state)
{
	struct dev *d = dev_up("tiny");
	struct nvl_model_mmu_stats st;
	struct nvl_model_xlate x;
	struct v2 t;
	uint64_t spt, pd0b, sptb;

	(void)state;
	v2_build(d, &t);
	spt = dev_alloc(d, 4096, 4096);
	pd0_set(d, &t, 0, 0, V2_DUAL_SMALL_VID(spt));
	for (unsigned int i = 0; i < 4; i++)
		w64(d, spt + 8 * i, V2_PTE_VID(0x100000 + i * 4096));
	assert_int_equal(nvl_model_mmu_translate(d->m, &t.ctx, 0x10, 0, &x), 0);
	nvl_model_mmu_get_stats(d->m->mmu, &st);
	assert_int_equal(st.pd0_hits, 0);
	/* a new PD0 (and page table) for the region, no invalidate */
	pd0b = dev_alloc(d, 4096, 4096);
	sptb = dev_alloc(d, 4096, 4096);
	w64(d, pd0b + 8, V2_DUAL_SMALL_VID(sptb));
	for (unsigned int i = 0; i < 4; i++)
		w64(d, sptb + 8 * i, V2_PTE_VID(0x500000 + i * 4096));
	w64(d, t.pd1, V2_PDE_VID(pd0b));
	assert_int_equal(nvl_model_mmu_translate(d->m, &t.ctx, 0x1010, 0, &x),
			 0);
	assert_false(x.tlb_hit);
	assert_int_equal(x.pa, 0x101010);
	nvl_model_mmu_get_stats(d->m->mmu, &st);
	assert_int_equal(st.pd0_hits, 1);
	assert_int_equal(st.walks, 2);
	/* the uncached walker reads the tables as they are */
	assert_int_equal(walk(d, &t.ctx, 0x1010, 0, &x), 0);
	assert_int_equal(x.pa, 0x501010);
	/* a ranged invalidate of another page drops the walk cache */
	nvl_model_mmu_invalidate(d->m->mmu, &t.ctx, 0x3000, 4096);
	assert_int_equal(nvl_model_mmu_translate(d->m, &t.ctx, 0x2010, 0, &x),
			 0);
	assert_int_equal(x.pa, 0x502010);
	assert_int_equal(nvl_model_mmu_translate(d->m, &t.ctx, 0x10, 0, &x), 0);
	assert_true(x.tlb_hit);
	assert_int_equal(x.pa, 0x100010);
	/* a full one drops every filled set and the walk cache */
	w64(d, t.pd1, V2_PDE_VID(t.pd0));
	nvl_model_mmu_invalidate(d->m->mmu, &t.ctx, 0, 0);
	for (unsigned int i = 0; i < 3; i++) {
		assert_int_equal(nvl_model_mmu_translate(
					 d->m, &t.ctx, i * 4096 + 0x10, 0, &x),
				 0);
		assert_false(x.tlb_hit);
		assert_int_equal(x.pa, 0x100010 + i * 4096);
	}
	nvl_model_mmu_get_stats(d->m->mmu, &st);
	assert_int_equal(st.walks, 6);
	assert_int_equal(st.pd0_hits, 3); /* 0x1010 and the last two */
	dev_down(d);
}

static void tlb_sets_hold_eight_ways(void **state)
{
	struct dev *d = dev_up("tiny");
	struct nvl_model_mmu_stats st;
	struct nvl_model_xlate x;
	struct v2 t;
	uint64_t spt;

	(void)state;
	v2_build(d, &t);
	spt = dev_alloc(d, 4096, 4096);
	pd0_set(d, &t, 0, 0, V2_DUAL_SMALL_VID(spt));
	/* pages 0, 64, 128, ... share a 4 KiB set (64 sets) */
	for (unsigned int w = 0; w < 8; w++) {
		w64(d, spt + 8 * 64 * w, V2_PTE_VID(0x100000 + w * 4096));
		assert_int_equal(nvl_model_mmu_translate(
					 d->m, &t.ctx, 64ull * 4096 * w, 0, &x),
				 0);
	}
	w64(d, spt, V2_PTE_VID(0x200000));
	/* eight ways: page 0 is still cached, stale */
	assert_int_equal(nvl_model_mmu_translate(d->m, &t.ctx, 0, 0, &x), 0);
	assert_true(x.tlb_hit);
	assert_int_equal(x.pa, 0x100000);
	/* a ninth page in the set (2 MiB up: the next PD0 entry, sharing
	 * the small table) evicts the oldest (round robin) */
	pd0_set(d, &t, 1, 0, V2_DUAL_SMALL_VID(spt));
	assert_int_equal(
		nvl_model_mmu_translate(d->m, &t.ctx, 64ull * 4096 * 8, 0, &x),
		0);
	nvl_model_mmu_get_stats(d->m->mmu, &st);
	assert_int_equal(st.evictions, 1);
	assert_int_equal(nvl_model_mmu_translate(d->m, &t.ctx, 0, 0, &x), 0);
	assert_false(x.tlb_hit);
	assert_int_equal(x.pa, 0x200000);
	dev_down(d);
}

static void pd1_holds_512m_pages_only_on_ampere(void **state)
{
	struct nvl_model_xlate x;
	const char *chips[] = {"ga102", "tiny"};

	(void)state;
	for (unsigned int c = 0; c < 2; c++) {
		struct dev *d = dev_up(chips[c]);
		struct v2 t;

		v2_build(d, &t);
		w64(d, t.pd1 + 8, V2_PTE_VID(0)); /* [512M, 1G) -> VRAM 0 */
		if (c == 0) {
			assert_int_equal(
				walk(d, &t.ctx, 512 * MIB + 0x123456, 0, &x),
				0);
			assert_int_equal(x.page_shift, 29);
			assert_int_equal(x.pa, 0x123456);
		} else {
			assert_int_equal(walk(d, &t.ctx, 512 * MIB, 0, &x),
					 -EFAULT);
			assert_int_equal(x.fault_type, NVL_HW_FAULT_PDE_SIZE);
		}
		dev_down(d);
	}
}

static void v3_walks_five_levels_with_pcf_permissions(void **state)
{
	struct dev *d = dev_up("gh100");
	struct nvl_model_vmctx ctx = {.aperture = NVL_HW_APERTURE_VIDMEM,
				      .version = 3};
	struct nvl_model_xlate x;
	struct nvl_model_walk_trace tr;
	uint64_t pd4 = dev_alloc(d, 4096, 4096), pd3 = dev_alloc(d, 4096, 4096);
	uint64_t pd2 = dev_alloc(d, 4096, 4096), pd1 = dev_alloc(d, 4096, 4096);
	uint64_t pd0 = dev_alloc(d, 4096, 4096), spt = dev_alloc(d, 4096, 4096);
	uint64_t bpt = dev_alloc(d, 256, 256);
	uint64_t va = (1ull << 56) | (3ull << 47); /* PD4[1], PD3[3] */

	(void)state;
	ctx.pdb = pd4;
	w64(d, pd4 + 8, pd3 | 1u << 1);
	w64(d, pd3 + 8 * 3, pd2 | 1u << 1);
	w64(d, pd2, pd1 | 1u << 1);
	w64(d, pd1, pd0 | 1u << 1);
	w64(d, pd0, bpt | 1u << 1); /* big half */
	w64(d, pd0 + 8, spt | 1u << 1); /* small half */
	/* small page 1: read-only (PCF bit 2) */
	w64(d, spt + 8, 1u | (0x4ull << 3) | 0x500000);
	/* granule 1: big page, no atomics (PCF bit 3) */
	w64(d, bpt + 8, 1u | (0x8ull << 3) | 0x600000);
	/* granule 2: sparse; granule 3: NO_VALID_4KB_PAGE */
	w64(d, bpt + 16, 1ull << 3);
	w64(d, bpt + 24, 3ull << 3);
	w64(d, spt + 8 * 48, 1u | 0x700000); /* hidden by granule 3 */
	pd0 += 16;
	w64(d, pd0, 1u | 0x800000); /* 2M PTE */

	assert_int_equal(
		nvl_model_mmu_walk(d->m, &ctx, va + 0x1004, 0, &x, &tr), 0);
	assert_int_equal(tr.n, 7); /* PD4..PD0, big PT (0: defer), small PT */
	assert_int_equal(x.pa, 0x500004);
	assert_true(x.read_only);
	assert_int_equal(
		walk(d, &ctx, va + 0x1004, NVL_HW_FAULT_ACCESS_WRITE, &x),
		-EFAULT);
	assert_int_equal(x.fault_type, NVL_HW_FAULT_RO_VIOLATION);
	assert_int_equal(walk(d, &ctx, va + 0x10040, 0, &x), 0);
	assert_int_equal(x.page_shift, 16);
	assert_int_equal(x.pa, 0x600040);
	assert_int_equal(
		walk(d, &ctx, va + 0x10040, NVL_HW_FAULT_ACCESS_ATOMIC, &x),
		-EFAULT);
	assert_int_equal(x.fault_type, NVL_HW_FAULT_ATOMIC_VIOLATION);
	assert_int_equal(walk(d, &ctx, va + 0x20000, 0, &x), 0);
	assert_int_equal(x.state, NVL_MODEL_XLATE_SPARSE);
	assert_int_equal(walk(d, &ctx, va + 0x30000, 0, &x), -EFAULT);
	assert_int_equal(x.fault_type, NVL_HW_FAULT_PTE);
	assert_int_equal(walk(d, &ctx, va + 2 * MIB + 9, 0, &x), 0);
	assert_int_equal(x.page_shift, 21);
	assert_int_equal(x.pa, 0x800009);
	/* a v2 walk of a v3 VA is a VA limit violation */
	ctx.version = 2;
	assert_int_equal(walk(d, &ctx, va, 0, &x), -EFAULT);
	assert_int_equal(x.fault_type, NVL_HW_FAULT_VA_LIMIT_VIOLATION);
	dev_down(d);
}

static void system_pages_need_a_dma_mapping(void **state)
{
	struct dev *d = dev_up("tiny");
	struct fault_ent f;
	struct v2 t;
	uint64_t spt, dma, v = 0;
	uint64_t *page = aligned_alloc(4096, 4096);

	(void)state;
	assert_non_null(page);
	memset(page, 0, 4096);
	page[1] = 0x1234;
	assert_int_equal(nvl_hw_dma_map(d->hw, page, 4096, &dma), 0);
	v2_build(d, &t);
	spt = dev_alloc(d, 4096, 4096);
	pd0_set(d, &t, 0, 0, V2_DUAL_SMALL_VID(spt));
	w64(d, spt, V2_PTE_SYS(dma));
	w64(d, spt + 8, V2_PTE_SYS(dma + 0x100000000ull)); /* not mapped */
	assert_int_equal(
		nvl_model_vm_access(d->m, &t.ctx, 8, &v, 8, false, ENG, 0), 0);
	assert_int_equal(v, 0x1234);
	v = 99;
	assert_int_equal(
		nvl_model_vm_access(d->m, &t.ctx, 16, &v, 8, true, ENG, 0), 0);
	assert_int_equal(page[2], 99);
	assert_int_equal(
		nvl_model_vm_access(d->m, &t.ctx, 0x1000, &v, 8, true, ENG, 0),
		-EFAULT);
	assert_true(dev_next_fault(d, &f));
	assert_int_equal(f.type, NVL_HW_FAULT_REGION_VIOLATION);
	assert_int_equal(f.va, 0x1000);
	assert_int_equal(nvl_hw_dma_unmap(d->hw, dma, 4096), 0);
	dev_down(d);
	free(page);
}

static void copy_and_fill_cross_pages_of_every_size(void **state)
{
	struct dev *d = dev_up("tiny");
	struct v2 t;
	uint64_t spt, bpt, s = t_seed(7);
	static uint8_t src[3 * MIB], got[3 * MIB];

	(void)state;
	v2_build(d, &t);
	spt = dev_alloc(d, 4096, 4096);
	bpt = dev_alloc(d, 256, 256);
	/* [0, 2M): 64K pages for the first 1M, then scattered 4K pages */
	pd0_set(d, &t, 0, V2_DUAL_BIG_VID(bpt), V2_DUAL_SMALL_VID(spt));
	for (unsigned int g = 0; g < 16; g++)
		w64(d, bpt + 8 * g, V2_PTE_VID(64 * MIB + g * 0x10000ull));
	for (unsigned int j = 256; j < 512; j++)
		w64(d, spt + 8 * j, V2_PTE_VID(80 * MIB + (511 - j) * 4096ull));
	pd0_set(d, &t, 1, V2_PTE_VID(96 * MIB), 0); /* [2M, 4M): 2M */
	for (size_t i = 0; i < sizeof(src); i += 8) {
		uint64_t r = t_rand(&s);

		memcpy(src + i, &r, 8);
	}
	assert_int_equal(nvl_model_vm_access(d->m, &t.ctx, 0x123, src,
					     sizeof(src), true, ENG, 0),
			 0);
	memset(got, 0, sizeof(got));
	assert_int_equal(nvl_model_vm_access(d->m, &t.ctx, 0x123, got,
					     sizeof(got), false, ENG, 0),
			 0);
	assert_memory_equal(src, got, sizeof(src));
	/* copy the second half over the first, then check it */
	assert_int_equal(nvl_model_vm_copy(d->m, &t.ctx, 0x10, &t.ctx,
					   2 * MIB + 0x10, MIB + 7, ENG, 0),
			 0);
	assert_int_equal(nvl_model_vm_access(d->m, &t.ctx, 0x10, got, MIB + 7,
					     false, ENG, 0),
			 0);
	assert_memory_equal(got, src + 2 * MIB + 0x10 - 0x123, MIB + 7);
	assert_int_equal(nvl_model_vm_fill(d->m, &t.ctx, 0x7ffe, 0xa1b2c3d4u,
					   70001, ENG, 0),
			 0);
	assert_int_equal(nvl_model_vm_access(d->m, &t.ctx, 0x7ffe, got, 70001,
					     false, ENG, 0),
			 0);
	for (unsigned int i = 0; i < 70001; i++)
		assert_int_equal(got[i], (0xa1b2c3d4u >> (8 * (i % 4))) & 0xff);
	dev_down(d);
}

/* ---- invalidate drain ------------------------------------------------ */

#define DRAIN_LEN (64 * MIB)

struct reader {
	struct dev *d;
	const struct nvl_model_vmctx *ctx;
	uint8_t *buf;
	int ret;
};

static void *reader_main(void *arg)
{
	struct reader *r = arg;

	r->ret = nvl_model_vm_access(r->d->m, r->ctx, 0, r->buf, DRAIN_LEN,
				     false, ENG, 0);
	return NULL;
}

static void inval_write(struct dev *d, uint64_t pdb, uint32_t flags)
{
	nvl_hw_wr32(d->hw, NVL_HW_MMU_INVALIDATE_PDB,
		    (uint32_t)(pdb >> 12)
			    << NVL_HW_MMU_INVALIDATE_PDB_ADDR_SHIFT);
	nvl_hw_wr32(d->hw, NVL_HW_MMU_INVALIDATE_UPPER_PDB,
		    (uint32_t)(pdb >> 40));
	nvl_hw_wr32(d->hw, NVL_HW_MMU_INVALIDATE,
		    flags | NVL_HW_MMU_INVALIDATE_TRIGGER);
}

static bool inval_busy(struct dev *d)
{
	return nvl_hw_rd32(d->hw, NVL_HW_MMU_INVALIDATE) &
	       NVL_HW_MMU_INVALIDATE_TRIGGER;
}

#define INVAL_DRAIN                                                            \
	(NVL_HW_MMU_INVALIDATE_ALL_VA | NVL_HW_MMU_INVALIDATE_SYS_MEMBAR |     \
	 NVL_HW_MMU_INVALIDATE_ACK_GLOBALLY)

/*
 * dev_vm.h NV_VIRTUAL_FUNCTION_PRIV_MMU_INVALIDATE with SYS_MEMBAR and
 * ACK GLOBALLY (what RM sets after a PTE downgrade,
 * kgmmuSetTlbInvalidateMembarWarParameters_TU102): TRIGGER reads 0 only
 * once the accesses already translated are done, so a driver that frees
 * the old pages then cannot see them written or read any more. Here an
 * engine read of 64 MiB through 2 MiB pages is in flight (one run, one
 * memcpy) when the invalidate is triggered.
 */
static void membar_invalidate_waits_for_an_access_in_flight(void **state)
{
	struct dev *d = dev_up("tiny");
	struct reader r = {.d = d};
	uint8_t *vram = nvl_model_phys_ptr(d->m, 0, DRAIN_LEN);
	int64_t deadline;
	pthread_t th;
	struct v2 t;

	(void)state;
	v2_build(d, &t);
	for (unsigned int i = 0; i < DRAIN_LEN / (2 * MIB); i++)
		pd0_set(d, &t, i, V2_PTE_VID(i * 2 * MIB), 0);
	assert_non_null(vram);
	memset(vram, 0xab, DRAIN_LEN);
	r.ctx = &t.ctx;
	r.buf = calloc(1, DRAIN_LEN);
	assert_non_null(r.buf);
	assert_int_equal(pthread_create(&th, NULL, reader_main, &r), 0);
	/* the copy has begun: its first eighth landed */
	deadline = nvl_time_ns() + 10 * NVL_NSEC_PER_SEC;
	while (!((volatile uint8_t *)r.buf)[DRAIN_LEN / 8] &&
	       nvl_time_ns() < deadline)
		sched_yield();
	inval_write(d, t.ctx.pdb, INVAL_DRAIN);
	while (inval_busy(d) && nvl_time_ns() < deadline)
		sched_yield();
	assert_false(inval_busy(d));
	/* complete: the access that translated before it is done */
	assert_int_equal(((volatile uint8_t *)r.buf)[DRAIN_LEN - DRAIN_LEN / 8],
			 0xab);
	assert_int_equal(((volatile uint8_t *)r.buf)[DRAIN_LEN - 1], 0xab);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(r.ret, 0);
	free(r.buf);
	dev_down(d);
}

/*
 * The same with an access held open by hand (nvl_model_mmu_enter()): a
 * plain invalidate (no SYS_MEMBAR, or SYS_MEMBAR without an ACK) is not a
 * drain and completes at once; with both, TRIGGER stays 1 until the access
 * exits, the TLB being flushed already.
 */
static void membar_invalidate_completes_when_the_access_exits(void **state)
{
	struct dev *d = dev_up("tiny");
	struct nvl_model_xlate x;
	unsigned int tk, tk2;
	uint64_t spt;
	struct v2 t;

	(void)state;
	v2_build(d, &t);
	spt = dev_alloc(d, 4096, 4096);
	pd0_set(d, &t, 0, 0, V2_DUAL_SMALL_VID(spt));
	w64(d, spt, V2_PTE_VID(0x100000));
	tk = nvl_model_mmu_enter(d->m->mmu, 3);
	assert_int_equal(nvl_model_mmu_translate(d->m, &t.ctx, 0x10, 0, &x), 0);
	w64(d, spt, 0); /* unmapped while the access is in flight */

	inval_write(d, t.ctx.pdb, NVL_HW_MMU_INVALIDATE_ALL_VA);
	assert_false(inval_busy(d));
	inval_write(d, t.ctx.pdb,
		    NVL_HW_MMU_INVALIDATE_ALL_VA |
			    NVL_HW_MMU_INVALIDATE_SYS_MEMBAR);
	assert_false(inval_busy(d));

	inval_write(d, t.ctx.pdb, INVAL_DRAIN);
	for (int i = 0; i < 100; i++)
		assert_true(inval_busy(d));
	/* a trigger while it is busy is ignored */
	inval_write(d, t.ctx.pdb, INVAL_DRAIN);
	assert_true(inval_busy(d));
	/* flushed already: a new translation sees the unmap */
	tk2 = nvl_model_mmu_enter(d->m->mmu, 3);
	assert_int_equal(nvl_model_mmu_translate(d->m, &t.ctx, 0x10, 0, &x),
			 -EFAULT);
	nvl_model_mmu_exit(d->m->mmu, tk);
	assert_false(inval_busy(d));
	/* the next drain waits for the access still open */
	inval_write(d, t.ctx.pdb, INVAL_DRAIN);
	assert_true(inval_busy(d));
	nvl_model_mmu_exit(d->m->mmu, tk2);
	assert_false(inval_busy(d));
	/* nothing in flight: complete at the first poll */
	inval_write(d, 0, INVAL_DRAIN | NVL_HW_MMU_INVALIDATE_ALL_PDB);
	assert_false(inval_busy(d));
	dev_down(d);
}

/*
 * dev_vm.h MMU_INVALIDATE CACHE_LEVEL 26:24 (ALL 0, PTE_ONLY 1, UP_TO_PDE0
 * 2, UP_TO_PDE1 3, ...; PDE0 is the dual-PDE level): an invalidate of the
 * PTEs (and of PDE0) only may leave the upper directory levels cached, so
 * a driver that moved a PD0 and invalidated with PTE_ONLY keeps reaching
 * the old one; UP_TO_PDE1 (like ALL) drops them. The leaf entries go in
 * every case. The MEM_OP method's PAGE_TABLE_LEVEL 9:7 has the same
 * values (clc56f.h), and the model reads it alike (host.c).
 */
static void cache_level_pte_only_keeps_upper_levels(void **state)
{
	struct dev *d = dev_up("tiny");
	struct nvl_model_xlate x;
	uint64_t spt, pd0b, sptb;
	struct v2 t;

	(void)state;
	v2_build(d, &t);
	spt = dev_alloc(d, 4096, 4096);
	pd0_set(d, &t, 0, 0, V2_DUAL_SMALL_VID(spt));
	w64(d, spt, V2_PTE_VID(0x100000));
	assert_int_equal(nvl_model_mmu_translate(d->m, &t.ctx, 0x10, 0, &x), 0);
	/* the region moves to a new PD0; the old PD0's PTE changes too */
	pd0b = dev_alloc(d, 4096, 4096);
	sptb = dev_alloc(d, 4096, 4096);
	w64(d, pd0b + 8, V2_DUAL_SMALL_VID(sptb));
	w64(d, sptb, V2_PTE_VID(0x500000));
	w64(d, t.pd1, V2_PDE_VID(pd0b));
	w64(d, spt, V2_PTE_VID(0x200000));

	inval_write(d, t.ctx.pdb,
		    NVL_HW_MMU_INVALIDATE_ALL_VA |
			    NVL_HW_MMU_CACHE_LEVEL_PTE_ONLY
				    << NVL_HW_MMU_INVALIDATE_CACHE_LEVEL_SHIFT);
	assert_false(inval_busy(d));
	/* the PTE is read again, through the PD0 the walk cache holds */
	assert_int_equal(nvl_model_mmu_translate(d->m, &t.ctx, 0x10, 0, &x), 0);
	assert_false(x.tlb_hit);
	assert_int_equal(x.pa, 0x200010);
	inval_write(d, t.ctx.pdb,
		    NVL_HW_MMU_INVALIDATE_ALL_VA |
			    NVL_HW_MMU_CACHE_LEVEL_UP_TO_PDE0
				    << NVL_HW_MMU_INVALIDATE_CACHE_LEVEL_SHIFT);
	assert_int_equal(nvl_model_mmu_translate(d->m, &t.ctx, 0x10, 0, &x), 0);
	assert_int_equal(x.pa, 0x200010);
	/* UP_TO_PDE1: PD1 is read again */
	inval_write(d, t.ctx.pdb,
		    NVL_HW_MMU_INVALIDATE_ALL_VA |
			    (NVL_HW_MMU_CACHE_LEVEL_UP_TO_PDE0 + 1)
				    << NVL_HW_MMU_INVALIDATE_CACHE_LEVEL_SHIFT);
	assert_int_equal(nvl_model_mmu_translate(d->m, &t.ctx, 0x10, 0, &x), 0);
	assert_int_equal(x.pa, 0x500010);
	/* HUBTLB_ONLY 2:2: the model's one TLB serves hub and GPC clients
	 * alike, so it is flushed all the same */
	w64(d, sptb, V2_PTE_VID(0x600000));
	inval_write(d, t.ctx.pdb,
		    NVL_HW_MMU_INVALIDATE_ALL_VA |
			    NVL_HW_MMU_INVALIDATE_HUBTLB_ONLY);
	assert_int_equal(nvl_model_mmu_translate(d->m, &t.ctx, 0x10, 0, &x), 0);
	assert_int_equal(x.pa, 0x600010);
	dev_down(d);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(walks_translate_4k_64k_and_2m_pages),
	cmocka_unit_test(big_pte_takes_precedence_over_small),
	cmocka_unit_test(sparse_reads_zero_and_drops_writes_without_fault),
	cmocka_unit_test(read_only_page_faults_writes_with_fault_entry),
	cmocka_unit_test(privileged_page_faults_engine_accesses),
	cmocka_unit_test(v3_privileged_page_faults_engine_accesses),
	cmocka_unit_test(invalid_entries_fault_with_their_type),
	cmocka_unit_test(table_loops_and_garbage_never_escape),
	cmocka_unit_test(tlb_serves_stale_translation_until_invalidated),
	cmocka_unit_test(tlb_caches_faults_so_a_map_needs_an_invalidate),
	cmocka_unit_test(walk_cache_keeps_upper_levels_until_invalidated),
	cmocka_unit_test(tlb_sets_hold_eight_ways),
	cmocka_unit_test(pd1_holds_512m_pages_only_on_ampere),
	cmocka_unit_test(v3_walks_five_levels_with_pcf_permissions),
	cmocka_unit_test(system_pages_need_a_dma_mapping),
	cmocka_unit_test(copy_and_fill_cross_pages_of_every_size),
	cmocka_unit_test(membar_invalidate_waits_for_an_access_in_flight),
	cmocka_unit_test(membar_invalidate_completes_when_the_access_exits),
	cmocka_unit_test(cache_level_pte_only_keeps_upper_levels),
};

T_MAIN(tests)

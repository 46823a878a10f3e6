// SPDX-License-Identifier: MIT
/*
 * TEST: mmu_pt_audit
 * Description: session 18's review of the NVIDIA page-table writer, the
 * TLB invalidate and the table memory against NVIDIA's public headers
 * (open-gpu-doc manuals/turing/tu104/dev_mmu.ref.txt, open-gpu-kernel-modules
 * hopper/gh100/dev_mmu.h and turing/tu102/dev_vm.h, RM's
 * kern_gmmu_tu102.c). The bit values below are this file's own reading of
 * those headers, not src/hw's: the entries the driver writes are read back
 * raw (the model walker's trace) and compared with them.
 */
#include "drv.h"
#include "base/log.h"
#include "hw/mmu.h"

#define VA_BASE (1ull << 32)
#define VA_END (VA_BASE + (8ull << 30))

/* the raw entry at walk step @level of @va (the driver's tables) */
static bool step_of(struct drv *v, uint64_t va, unsigned int level,
		    uint64_t *lo, uint64_t *hi, uint64_t *table)
{
	struct nvl_model_walk_trace tr;
	struct nvl_model_xlate x;

	nvl_model_mmu_walk(v->d->m, &v->ctx, va, 0, &x, &tr);
	for (unsigned int i = 0; i < tr.n; i++) {
		if (tr.step[i].level != level)
			continue;
		*lo = tr.step[i].lo;
		if (hi)
			*hi = tr.step[i].hi;
		if (table)
			*table = tr.step[i].table;
		return true;
	}
	return false;
}

/* map one page of @domain/@flags at @va with the manager, return its PTE */
static uint64_t pte_of(struct drv *v, uint64_t va, unsigned int shift,
		       enum nvl_gem_domain domain, uint64_t addr,
		       uint32_t flags)
{
	struct nvl_pt_page pg = {domain, addr, flags};
	unsigned int level = shift == 12   ? NVL_HW_MMU_PT_SMALL
			     : shift == 16 ? NVL_HW_MMU_PT_BIG
					   : NVL_HW_MMU_PD0;
	uint64_t size = 1ull << shift, pte = 0;

	assert_int_equal(nvl_pt_get(v->pt, va, size, shift), 0);
	nvl_pt_map_pages(v->pt, va, size, shift, &pg);
	assert_int_equal(nvl_pt_flush(v->pt, va, size), 0);
	assert_true(step_of(v, va, level, &pte, NULL, NULL));
	nvl_pt_unmap(v->pt, va, size, shift, false);
	assert_int_equal(nvl_pt_flush(v->pt, va, size), 0);
	nvl_pt_put(v->pt, va, size, shift);
	return pte;
}

/*
 * dev_mmu.ref NV_MMU_VER2_PTE: VALID 0:0, APERTURE 2:1 (VIDEO_MEMORY 0,
 * SYSTEM_COHERENT_MEMORY 2, SYSTEM_NON_COHERENT_MEMORY 3), VOL 3:3,
 * PRIVILEGE 5:5, READ_ONLY 6:6, ATOMIC_DISABLE 7:7, ADDRESS_SYS 53:8 /
 * ADDRESS_VID (35-3):8 with ADDRESS_SHIFT 12, KIND 63:56 (PITCH 0).
 * gh100 dev_mmu.h NV_MMU_VER3_PTE: VALID 0:0, APERTURE 2:1, PCF 7:3
 * (REGULAR_RW_ATOMIC_CACHED_ACD 0x10, ..._UNCACHED_ACD 0x11,
 * REGULAR_RO_NO_ATOMIC_CACHED_ACD 0x1C, REGULAR_RW_NO_ATOMIC_CACHED_ACD
 * 0x18), KIND 11:8, ADDRESS 51:12 in place.
 */
static void driver_ptes_carry_the_manuals_bits(void **state)
{
	const uint64_t vpa = 0x2345000, dpa = 0x12345678000ull;
	struct drv *v;

	(void)state;
	v = drv_up("tu102", VA_BASE, VA_END);
	/* VRAM, read-write: VALID | VIDEO_MEMORY | address >> 12 << 8 */
	assert_int_equal(pte_of(v, VA_BASE, 12, NVL_GEM_DOMAIN_VRAM, vpa, 0),
			 0x1ull | (vpa >> 12) << 8);
	/* GTT: SYSTEM_COHERENT_MEMORY (2 << 1), VOL */
	assert_int_equal(pte_of(v, VA_BASE, 12, NVL_GEM_DOMAIN_GTT, dpa, 0),
			 0x1ull | 2u << 1 | 1u << 3 | (dpa >> 12) << 8);
	/* SYSTEM: SYSTEM_NON_COHERENT_MEMORY (3 << 1), VOL */
	assert_int_equal(pte_of(v, VA_BASE, 12, NVL_GEM_DOMAIN_SYSTEM, dpa, 0),
			 0x1ull | 3u << 1 | 1u << 3 | (dpa >> 12) << 8);
	/* read-only: READ_ONLY 6 and ATOMIC_DISABLE 7 */
	assert_int_equal(pte_of(v, VA_BASE, 16, NVL_GEM_DOMAIN_VRAM,
				vpa & ~0xffffull, NVL_VM_PT_READONLY),
			 0x1ull | 1u << 6 | 1u << 7 | (vpa >> 16) << 12);
	/* no atomics: ATOMIC_DISABLE 7 only */
	assert_int_equal(pte_of(v, VA_BASE, 21, NVL_GEM_DOMAIN_VRAM, 2 * MIB,
				NVL_VM_PT_NOATOMIC),
			 0x1ull | 1u << 7 | (2 * MIB >> 12) << 8);
	drv_down(v);

	v = drv_up("gh100", VA_BASE, VA_END);
	assert_int_equal(pte_of(v, VA_BASE, 12, NVL_GEM_DOMAIN_VRAM, vpa, 0),
			 0x1ull | 0x10u << 3 | vpa);
	assert_int_equal(pte_of(v, VA_BASE, 12, NVL_GEM_DOMAIN_GTT, dpa, 0),
			 0x1ull | 2u << 1 | 0x11u << 3 | dpa);
	assert_int_equal(pte_of(v, VA_BASE, 12, NVL_GEM_DOMAIN_SYSTEM, dpa, 0),
			 0x1ull | 3u << 1 | 0x11u << 3 | dpa);
	assert_int_equal(pte_of(v, VA_BASE, 16, NVL_GEM_DOMAIN_VRAM,
				vpa & ~0xffffull, NVL_VM_PT_READONLY),
			 0x1ull | 0x1cu << 3 | (vpa & ~0xffffull));
	assert_int_equal(pte_of(v, VA_BASE, 21, NVL_GEM_DOMAIN_VRAM, 2 * MIB,
				NVL_VM_PT_NOATOMIC),
			 0x1ull | 0x18u << 3 | 2 * MIB);
	drv_down(v);
}

/*
 * Directory entries: NV_MMU_VER2_PDE APERTURE 2:1 (VIDEO_MEMORY 1),
 * ADDRESS 53:8 with shift 12; NV_MMU_VER2_DUAL_PDE big half APERTURE_BIG
 * 2:1, ADDRESS_BIG (53:4) with ADDRESS_BIG_SHIFT 8; small half
 * APERTURE_SMALL 66:65, ADDRESS_SMALL 117:72 with shift 12. Version 3:
 * NV_MMU_VER3_PDE ADDRESS 51:12, DUAL_PDE ADDRESS_BIG 51:8, ADDRESS_SMALL
 * 115:76, all in place, PCF 0 (VALID_CACHED_ATS_ALLOWED).
 */
static void driver_directory_entries_carry_the_manuals_bits(void **state)
{
	static const char *const chips[] = {"tu102", "gh100"};

	(void)state;
	for (unsigned int c = 0; c < 2; c++) {
		struct drv *v = drv_up(chips[c], VA_BASE, VA_END);
		bool v3 = v->ctx.version == 3;
		struct nvl_pt_page pg = {NVL_GEM_DOMAIN_VRAM, 64 * MIB, 0};
		struct nvl_model_walk_trace tr;
		struct nvl_model_xlate x;
		uint64_t lo, hi, spt = 0, bpt = 0, t;

		/* a 4 KiB page and a 64 KiB page under one PD0 entry */
		assert_int_equal(nvl_pt_get(v->pt, VA_BASE, 4096, 12), 0);
		nvl_pt_map_pages(v->pt, VA_BASE, 4096, 12, &pg);
		assert_int_equal(
			nvl_pt_get(v->pt, VA_BASE + 0x10000, 0x10000, 16), 0);
		nvl_pt_map_pages(v->pt, VA_BASE + 0x10000, 0x10000, 16, &pg);
		assert_int_equal(nvl_pt_flush(v->pt, 0, 0), 0);

		assert_true(step_of(v, VA_BASE, NVL_HW_MMU_PT_SMALL, &lo, NULL,
				    &spt));
		assert_true(step_of(v, VA_BASE + 0x10000, NVL_HW_MMU_PT_BIG,
				    &lo, NULL, &bpt));
		assert_true(
			step_of(v, VA_BASE, NVL_HW_MMU_PD0, &lo, &hi, NULL));
		assert_int_equal(lo, 1u << 1 | (v3 ? bpt : (bpt >> 8) << 4));
		assert_int_equal(hi, 1u << 1 | (v3 ? spt : (spt >> 12) << 8));
		/* every upper level names the next table the walk read */
		nvl_model_mmu_walk(v->d->m, &v->ctx, VA_BASE, 0, &x, &tr);
		assert_int_equal(x.state, NVL_MODEL_XLATE_MAPPED);
		for (unsigned int i = 0; i + 1 < tr.n; i++) {
			if (tr.step[i].level >= NVL_HW_MMU_PD0)
				break;
			t = tr.step[i + 1].table;
			assert_int_equal(tr.step[i].lo,
					 1u << 1 | (v3 ? t : (t >> 12) << 8));
		}
		nvl_pt_unmap(v->pt, VA_BASE, 4096, 12, false);
		nvl_pt_unmap(v->pt, VA_BASE + 0x10000, 0x10000, 16, false);
		assert_int_equal(nvl_pt_flush(v->pt, 0, 0), 0);
		nvl_pt_put(v->pt, VA_BASE, 4096, 12);
		nvl_pt_put(v->pt, VA_BASE + 0x10000, 0x10000, 16);
		drv_down(v);
	}
}

/*
 * Sparse: VALID 0 with NV_MMU_VER2_PTE_VOL / NV_MMU_VER2_PDE_VOL /
 * NV_MMU_VER2_DUAL_PDE_VOL_BIG (bit 3) set; version 3: PCF SPARSE 1 in
 * NV_MMU_VER3_PTE_PCF 7:3, NV_MMU_VER3_PDE_PCF 5:3 (SPARSE_ATS_ALLOWED)
 * and NV_MMU_VER3_DUAL_PDE_PCF_BIG 5:3 -- bit 3 alone in every case.
 */
static void sparse_entries_are_the_manuals_encoding(void **state)
{
	static const char *const chips[] = {"tu102", "gh100"};

	(void)state;
	for (unsigned int c = 0; c < 2; c++) {
		struct drv *v = drv_up(chips[c], VA_BASE, VA_END);
		/* 512 MiB (a PD1 entry), 2 MiB (a PD0 entry), and 12 KiB
		 * whose 4 KiB edges cut a PD0 entry (PTEs) */
		const uint64_t r1 = VA_BASE, n1 = 512 * MIB;
		const uint64_t r2 = VA_BASE + 1024 * MIB, n2 = 2 * MIB;
		const uint64_t r3 = VA_BASE + 1536 * MIB + 0x1000, n3 = 0x3000;
		struct nvl_model_walk_trace tr;
		struct nvl_model_xlate x;
		uint64_t lo, hi;

		assert_int_equal(nvl_pt_get_region(v->pt, r1, n1), 0);
		assert_int_equal(nvl_pt_get_region(v->pt, r2, n2), 0);
		assert_int_equal(nvl_pt_get_region(v->pt, r3, n3), 0);
		nvl_pt_sparse(v->pt, r1, n1, true);
		nvl_pt_sparse(v->pt, r2, n2, true);
		nvl_pt_sparse(v->pt, r3, n3, true);
		assert_int_equal(nvl_pt_flush(v->pt, 0, 0), 0);

		assert_true(step_of(v, r1 + 5 * MIB, NVL_HW_MMU_PD1, &lo, NULL,
				    NULL));
		assert_int_equal(lo, 1u << 3);
		assert_true(step_of(v, r2 + 0x1000, NVL_HW_MMU_PD0, &lo, &hi,
				    NULL));
		assert_int_equal(lo, 1u << 3);
		assert_int_equal(hi, 0);
		/* the walk ends at the sparse PTE, whichever table holds it */
		nvl_model_mmu_walk(v->d->m, &v->ctx, r3 + 0x1000, 0, &x, &tr);
		assert_int_equal(x.state, NVL_MODEL_XLATE_SPARSE);
		assert_true(tr.step[tr.n - 1].level >= NVL_HW_MMU_PT_BIG);
		assert_int_equal(tr.step[tr.n - 1].lo, 1u << 3);

		nvl_pt_sparse(v->pt, r1, n1, false);
		nvl_pt_sparse(v->pt, r2, n2, false);
		nvl_pt_sparse(v->pt, r3, n3, false);
		assert_int_equal(nvl_pt_flush(v->pt, 0, 0), 0);
		nvl_pt_put_region(v->pt, r1, n1);
		nvl_pt_put_region(v->pt, r2, n2);
		nvl_pt_put_region(v->pt, r3, n3);
		drv_down(v);
	}
}

/* ---- the MMU_INVALIDATE registers ---------------------------------------- */

struct spy {
	struct nvl_hw hw;
	struct nvl_hw *inner;
	uint32_t pdb, upper, inval;
	unsigned int writes;
};

static uint32_t spy_rd32(struct nvl_hw *hw, uint32_t addr)
{
	struct spy *s = container_of(hw, struct spy, hw);

	return nvl_hw_rd32(s->inner, addr);
}

static void spy_wr32(struct nvl_hw *hw, uint32_t addr, uint32_t val)
{
	struct spy *s = container_of(hw, struct spy, hw);

	if (addr == NVL_HW_MMU_INVALIDATE_PDB)
		s->pdb = val;
	else if (addr == NVL_HW_MMU_INVALIDATE_UPPER_PDB)
		s->upper = val;
	else if (addr == NVL_HW_MMU_INVALIDATE)
		s->inval = val, s->writes++;
	nvl_hw_wr32(s->inner, addr, val);
}

static const struct nvl_hw_ops spy_ops = {
	.rd32 = spy_rd32,
	.wr32 = spy_wr32,
};

/*
 * tu102 dev_vm.h: MMU_INVALIDATE_PDB ADDR 31:4 = PDB >> 12 (ADDR_ALIGNMENT
 * 0xc), APERTURE 1:1 VID_MEM 0; UPPER_PDB ADDR 19:0 = PDB >> 40;
 * MMU_INVALIDATE ALL_VA 0:0, ALL_PDB 1:1, HUBTLB_ONLY 2:2, REPLAY 5:3,
 * SYS_MEMBAR 6:6, ACK 8:7 (GLOBALLY 1), CACHE_LEVEL 26:24 (ALL 0),
 * TRIGGER 31:31. An invalidate is not a drain: after a PTE downgrade
 * (unmap, read-only, a freed table) RM's kgmmuInvalidateTlb_GM107 applies
 * kgmmuSetTlbInvalidateMembarWarParameters_TU102, which sets SYS_MEMBAR
 * TRUE and ACK GLOBALLY, so that accesses already translated through the
 * old entries are done when TRIGGER reads 0. The page-table layer calls
 * the same invalidate after downgrades and upgrades, so every one drains.
 * HUBTLB_ONLY 2:2 is never set: a user VA space's translations live in
 * the GPC TLBs too (RM sets it for BAR VA spaces only, kgmmuInvalidateTlb).
 */
static void invalidate_is_a_membar_of_one_pdb(void **state)
{
	const uint64_t pdb = 0x1234567000ull;
	struct nvl_model *m;
	struct spy s = {.hw.ops = &spy_ops};

	(void)state;
	assert_int_equal(nvl_model_create(nvl_model_profile_find("tu102"), &m),
			 0);
	s.inner = nvl_model_hw(m);
	assert_int_equal(nvl_nv_gmmu_invalidate(&s.hw, pdb, 0x1000, 0x1000), 0);
	assert_int_equal(s.writes, 1);
	assert_int_equal(s.pdb, (uint32_t)((pdb >> 12) << 4)); /* VID_MEM */
	assert_int_equal(s.upper, (uint32_t)(pdb >> 40));
	assert_int_equal(s.inval, 1u << 31 /* TRIGGER */ |
					  1u << 0 /* ALL_VA */ |
					  1u << 6 /* SYS_MEMBAR */ |
					  1u << 7 /* ACK GLOBALLY */);
	/* a replay reaches every TLB: never HUBTLB_ONLY (2:2), CACHE_LEVEL
	 * ALL; REPLAY 5:3 START 1 */
	assert_int_equal(nvl_nv_gmmu_replay(&s.hw, 1), 0);
	assert_int_equal(s.inval, 1u << 31 /* TRIGGER */ |
					  1u << 0 /* ALL_VA */ |
					  1u << 1 /* ALL_PDB */ |
					  1u << 3 /* REPLAY START */);
	nvl_model_destroy(m);
}

/*
 * tu102 dev_vm.h NV_VIRTUAL_FUNCTION_PRIV_MMU_INVALIDATE_UPPER_PDB ADDR is
 * 19:0 (PDB bits 59:40) and MMU_INVALIDATE_PDB has only APERTURE 1:1 and
 * ADDR 31:4: what is written elsewhere in those registers is no part of
 * the PDB, and the invalidate still reaches the PDB's TLB.
 */
static void invalidate_reads_only_the_pdb_fields(void **state)
{
	struct dev *d;
	struct nvl_model_xlate x;
	uint64_t pd3, pd2, pd1, pd0, spt;
	struct nvl_model_vmctx ctx = {.aperture = NVL_HW_APERTURE_VIDMEM,
				      .version = 2};

	(void)state;
	d = dev_up("tu102");
	pd3 = dev_alloc(d, 4096, 4096);
	pd2 = dev_alloc(d, 4096, 4096);
	pd1 = dev_alloc(d, 4096, 4096);
	pd0 = dev_alloc(d, 4096, 4096);
	spt = dev_alloc(d, 4096, 4096);
	w64(d, pd3, V2_PDE_VID(pd2));
	w64(d, pd2, V2_PDE_VID(pd1));
	w64(d, pd1, V2_PDE_VID(pd0));
	w64(d, pd0 + 8, V2_DUAL_SMALL_VID(spt));
	w64(d, spt, V2_PTE_VID(MIB));
	ctx.pdb = pd3;
	assert_int_equal(nvl_model_mmu_translate(d->m, &ctx, 0x10, 0, &x), 0);
	assert_int_equal(x.pa, MIB + 0x10);
	w64(d, spt, V2_PTE_VID(2 * MIB)); /* remapped; the TLB holds MIB */
	nvl_hw_wr32(d->hw, NVL_HW_MMU_INVALIDATE_PDB,
		    (uint32_t)((pd3 >> 12) << 4) | 0xdu /* bits 3:2, 0 */);
	nvl_hw_wr32(d->hw, NVL_HW_MMU_INVALIDATE_UPPER_PDB, 0xfff00000u);
	nvl_hw_wr32(d->hw, NVL_HW_MMU_INVALIDATE, 1u << 31 | 1u << 0);
	assert_int_equal(nvl_hw_rd32(d->hw, NVL_HW_MMU_INVALIDATE) >> 31, 0);
	assert_int_equal(nvl_model_mmu_translate(d->m, &ctx, 0x10, 0, &x), 0);
	assert_int_equal(x.pa, 2 * MIB + 0x10);
	dev_down(d);
}

/* ---- table memory and the format's arguments ------------------------------ */

/*
 * nvl_pt_mem_ops.alloc: a bad request is -EINVAL with a message, never a
 * crash: an alignment of 0 (PAGE % 0) or one that is not a power of two.
 */
static void ptmem_refuses_bad_alignments(void **state)
{
	struct dev *d = dev_up("tiny");
	struct nvl_nv_ptmem *pm;
	uint64_t a[2];

	(void)state;
	assert_int_equal(
		nvl_nv_ptmem_create(d->hw, TABLES_BASE, 16 * 4096, &pm), 0);
	nvl_error_clear();
	assert_int_equal(nvl_nv_ptmem_ops.alloc(pm, 256, 0, a), -EINVAL);
	assert_non_null(strstr(nvl_error_msg(), "ptmem"));
	assert_int_equal(nvl_nv_ptmem_ops.alloc_many(pm, 4096, 0, 2, a),
			 -EINVAL);
	assert_int_equal(nvl_nv_ptmem_ops.alloc(pm, 256, 96, a), -EINVAL);
	assert_int_equal(nvl_nv_ptmem_used(pm), 0);
	assert_int_equal(nvl_nv_ptmem_ops.alloc(pm, 256, 256, a), 0);
	nvl_nv_ptmem_ops.free(pm, a[0], 256);
	assert_int_equal(nvl_nv_ptmem_used(pm), 0);
	nvl_nv_ptmem_destroy(pm);
	dev_down(d);
}

/*
 * The VM's PTE kind must fit the PTE's KIND field (NV_MMU_VER2_PTE_KIND
 * 63:56, NV_MMU_VER3_PTE_KIND 11:8) and not be NV_MMU_PTE_KIND_INVALID
 * (0x07): the writer would otherwise truncate it into another kind, or
 * make every mapping fault.
 */
static void gmmu_refuses_kinds_the_pte_cannot_hold(void **state)
{
	struct dev *d = dev_up("tiny");
	struct nvl_nv_ptmem *pm;
	struct nvl_nv_gmmu_args ga = {0};
	struct nvl_nv_gmmu *g = NULL;
	static const struct {
		unsigned int version, kind;
		int ret;
	} cases[] = {
		{2, 0x100, -EINVAL}, {2, 0x07, -EINVAL}, {3, 0x16, -EINVAL},
		{3, 0x07, -EINVAL},  {3, 0x10, -EINVAL}, {2, 0x06, 0},
		{3, 0x06, 0},
	};

	(void)state;
	assert_int_equal(
		nvl_nv_ptmem_create(d->hw, TABLES_BASE, 16 * 4096, &pm), 0);
	ga.hw = d->hw;
	ga.mem = &nvl_nv_ptmem_ops;
	ga.mem_priv = pm;
	for (unsigned int i = 0; i < NVL_ARRAY_SIZE(cases); i++) {
		ga.version = cases[i].version;
		ga.kind = cases[i].kind;
		g = NULL;
		nvl_error_clear();
		assert_int_equal(nvl_nv_gmmu_create(&ga, &g), cases[i].ret);
		if (cases[i].ret) {
			assert_null(g);
			assert_non_null(strstr(nvl_error_msg(), "kind"));
		}
		nvl_nv_gmmu_destroy(g);
	}
	assert_int_equal(nvl_nv_ptmem_used(pm), 0);
	nvl_nv_ptmem_destroy(pm);
	dev_down(d);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(driver_ptes_carry_the_manuals_bits),
	cmocka_unit_test(driver_directory_entries_carry_the_manuals_bits),
	cmocka_unit_test(sparse_entries_are_the_manuals_encoding),
	cmocka_unit_test(invalidate_is_a_membar_of_one_pdb),
	cmocka_unit_test(invalidate_reads_only_the_pdb_fields),
	cmocka_unit_test(ptmem_refuses_bad_alignments),
	cmocka_unit_test(gmmu_refuses_kinds_the_pte_cannot_hold),
};

T_MAIN(tests)

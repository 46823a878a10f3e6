// SPDX-License-Identifier: MIT
/*
 * TEST: mmu_kit_cross
 * Description: the bring-up kit (tests/lib/kit.c) and the driver (src/nv
 * through GPUVM) are two independent encoders of the page-table manuals:
 * the same mappings written by each must walk, in the model, to the same
 * physical pages with the same page sizes and permissions, on a v2 chip
 * (Turing), a v2 chip with 512 MiB pages (Ampere) and a v3 chip (Hopper).
 */
#include "drv.h"
#include "kit.h"

#define VA (1ull << 36)
#define BO_PA (1ull << 30)
#define BO_SIZE (8 * MIB)

/* one chunk of the BO: VA offset, size, the kit's page size, flags */
static const struct {
	uint64_t off, size;
	unsigned shift;
	bool ro;
} chunks[] = {
	{0, 2 * MIB, 21, false},
	{2 * MIB, 2 * MIB, 16, false}, /* 64 KiB-aligned BO, 2 MiB VA */
	{4 * MIB, 1 * MIB, 12, true},
	{5 * MIB, 3 * MIB, 12, false},
};

/* Return: the state both walks agree on */
static unsigned same_walk(struct drv *v, const struct nvl_model_vmctx *kctx,
			  uint64_t va, unsigned access)
{
	struct nvl_model_xlate a, b;
	int ra = nvl_model_mmu_walk(v->d->m, &v->ctx, va, access, &a, NULL);
	int rb = nvl_model_mmu_walk(v->d->m, kctx, va, access, &b, NULL);

	if (ra != rb || a.state != b.state || a.pa != b.pa ||
	    a.aperture != b.aperture ||
	    (a.state == NVL_MODEL_XLATE_FAULT && a.fault_type != b.fault_type))
		fail_msg("va %#llx access %u: driver %d/%u pa %#llx, kit %d/%u "
			 "pa %#llx",
			 (unsigned long long)va, access, ra, a.state,
			 (unsigned long long)a.pa, rb, b.state,
			 (unsigned long long)b.pa);
	return a.state;
}

static void kit_and_driver_walk_alike(void **state)
{
	static const char *const profiles[] = {"tu102", "ga102", "gh100"};

	for (unsigned p = 0; p < NVL_ARRAY_SIZE(profiles); p++) {
		struct drv *v = drv_up(profiles[p], 0, 1ull << 40);
		struct tbo *bo =
			tbo_new(v->d->hw, TBO_CONTIG, BO_SIZE, BO_PA, 0);
		struct nvl_model_vmctx kctx;
		struct nvl_kit_vm kvm;
		struct nvl_kit kit;
		unsigned mapped = 0, faults = 0;

		/* the kit's tables at the top of VRAM, above the driver's */
		assert_int_equal(nvl_kit_init(&kit, v->d->hw, 2ull << 30), 0);
		assert_int_equal(nvl_kit_vm_init(&kit, &kvm), 0);
		for (unsigned i = 0; i < NVL_ARRAY_SIZE(chunks); i++) {
			struct bop op = {B_MAP,
					 VA + chunks[i].off,
					 chunks[i].size,
					 &bo->base,
					 chunks[i].off,
					 chunks[i].ro ? NVL_GPUVA_READONLY : 0};

			assert_int_equal(drv_bind(v, &op, 1), 0);
			assert_int_equal(
				nvl_kit_map(&kit, &kvm, VA + chunks[i].off,
					    BO_PA + chunks[i].off,
					    chunks[i].size, chunks[i].shift,
					    NVL_HW_APERTURE_VIDMEM,
					    chunks[i].ro ? NVL_KIT_RO : 0),
				0);
		}
		kctx = (struct nvl_model_vmctx){.pdb = kvm.pdb,
						.aperture =
							NVL_HW_APERTURE_VIDMEM,
						.version = kvm.version};
		assert_int_equal(kvm.version, v->ctx.version);
		for (uint64_t va = VA - 64 * 1024;
		     va < VA + BO_SIZE + 64 * 1024; va += 12 * 1024 + 4) {
			mapped += same_walk(v, &kctx, va,
					    NVL_HW_FAULT_ACCESS_READ) ==
				  NVL_MODEL_XLATE_MAPPED;
			faults += same_walk(v, &kctx, va,
					    NVL_HW_FAULT_ACCESS_WRITE) ==
				  NVL_MODEL_XLATE_FAULT;
		}
		/* both the mapped range and the read-only and unmapped
		 * edges were exercised */
		assert_true(mapped > 600);
		assert_true(faults > 80);
		nvl_gpuvm_destroy(v->vm);
		v->vm = NULL;
		nvl_gem_put(&bo->base);
		drv_down(v);
	}
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(kit_and_driver_walk_alike),
};

T_MAIN(tests)

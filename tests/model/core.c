// SPDX-License-Identifier: MIT
/*
 * TEST: model_core
 * Description: chip profiles and identity registers, lazily reserved VRAM,
 * VRAM bounds, the IOMMU table, the interrupt tree and callback, the
 * timer, MMU invalidate completion, and power-on under allocation failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "gpu.h"

static void profiles_report_their_identity(void **state)
{
	static const struct {
		const char *name;
		unsigned arch, ver;
	} want[] = {
		{"tu102", NVL_HW_ARCH_TURING, 2},
		{"ga102", NVL_HW_ARCH_AMPERE, 2},
		{"ad102", NVL_HW_ARCH_ADA, 2},
		{"gh100", NVL_HW_ARCH_HOPPER, 3},
	};

	assert_null(nvl_model_profile_find("nv50"));
	assert_string_equal(nvl_model_profile_find(NULL)->name, "tiny");
	for (size_t i = 0; i < NVL_ARRAY_SIZE(want); i++) {
		const struct nvl_model_profile *p =
			nvl_model_profile_find(want[i].name);
		struct nvl_model *m;
		struct nvl_hw *hw;
		uint32_t boot0;

		assert_non_null(p);
		assert_non_null(p->fw_versions[0]);
		assert_int_equal(nvl_model_create(p, &m), 0);
		hw = nvl_model_hw(m);
		boot0 = nvl_hw_rd32(hw, NVL_HW_PMC_BOOT_0);
		assert_int_equal(boot0 >> NVL_HW_BOOT_0_ARCH_SHIFT &
					 NVL_HW_BOOT_0_ARCH_MASK,
				 want[i].arch);
		assert_int_equal(nvl_hw_rd32(hw, NVL_MODEL_REG_CFG_MMU_VERSION),
				 want[i].ver);
		assert_int_equal(nvl_hw_rd32(hw, NVL_MODEL_REG_CFG_FB_SIZE_MB),
				 p->vram_size >> 20);
		assert_int_equal(nvl_hw_rd32(hw, NVL_MODEL_REG_CFG_NUM_CE),
				 p->num_ce);
		assert_int_equal(nvl_hw_rd32(hw, NVL_MODEL_REG_CFG_CE_CLASS),
				 p->ce_class);
		/* 4K, 64K and 2M pages everywhere */
		assert_int_equal(nvl_hw_rd32(hw, NVL_MODEL_REG_CFG_PAGE_SIZES) &
					 0x211,
				 0x211);
		nvl_model_destroy(m);
	}
	for (unsigned i = 0; nvl_model_profile_at(i); i++)
		assert_non_null(nvl_model_profile_at(i)->name);
}

static long rss_kib(void)
{
	long pages = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	assert_non_null(f);
	assert_int_equal(fscanf(f, "%ld %ld", &pages, &rss), 2);
	fclose(f);
	return rss * (sysconf(_SC_PAGESIZE) / 1024);
}

static void large_vram_is_reserved_lazily(void **state)
{
	const struct nvl_model_profile *p = nvl_model_profile_find("ga102");
	struct nvl_model *m;
	long before = rss_kib(), after;
	uint32_t v = 0x5a5a5a5a, r = 0;

	assert_true(p->vram_size >= (24ull << 30));
	assert_int_equal(nvl_model_create(p, &m), 0);
	/* touch the first and last word of 24 GiB */
	assert_int_equal(nvl_hw_vram_write(nvl_model_hw(m), 0, &v, 4), 0);
	assert_int_equal(
		nvl_hw_vram_write(nvl_model_hw(m), p->vram_size - 4, &v, 4), 0);
	assert_int_equal(
		nvl_hw_vram_read(nvl_model_hw(m), p->vram_size - 4, &r, 4), 0);
	assert_int_equal(r, v);
	/* untouched VRAM reads zero */
	assert_int_equal(nvl_hw_vram_read(nvl_model_hw(m), 12ull << 30, &r, 4),
			 0);
	assert_int_equal(r, 0);
	after = rss_kib();
	assert_true(after - before < 64 * 1024); /* far below 24 GiB */
	nvl_model_destroy(m);
}

static void vram_access_outside_vram_faults(void **state)
{
	struct gpu *g = gpu_up("tiny");
	uint64_t size = g->kit.vram_size;
	uint8_t b[16] = {1};

	assert_int_equal(nvl_hw_vram_write(g->hw, size - 8, b, 16), -EFAULT);
	assert_int_equal(nvl_hw_vram_read(g->hw, size, b, 1), -EFAULT);
	assert_int_equal(nvl_hw_vram_read(g->hw, UINT64_MAX - 4, b, 8),
			 -EFAULT);
	assert_int_equal(nvl_model_phys_access(g->m, NVL_HW_APERTURE_COUNT, 0,
					       b, 1, false),
			 -EFAULT);
	assert_int_equal(nvl_hw_vram_read(g->hw, size - 16, b, 16), 0);
	gpu_down(g);
}

static void dma_to_unmapped_system_page_faults(void **state)
{
	struct gpu *g = gpu_up("tiny");
	uint8_t *a = aligned_alloc(4096, 3 * 4096), b[8] = {0};
	uint64_t d1, d2;

	assert_non_null(a);
	memset(a, 0xab, 3 * 4096);
	assert_int_equal(nvl_hw_dma_map(g->hw, a, 100, &d1), -EINVAL);
	assert_int_equal(nvl_hw_dma_map(g->hw, a + 1, 4096, &d1), -EINVAL);
	assert_int_equal(nvl_hw_dma_map(g->hw, a, 2 * 4096, &d1), 0);
	assert_int_equal(nvl_hw_dma_map(g->hw, a + 2 * 4096, 4096, &d2), 0);
	assert_int_not_equal(d1, d2);
	assert_int_equal(nvl_model_phys_access(g->m, NVL_HW_APERTURE_SYS_COH,
					       d1 + 4090, b, 8, false),
			 0);
	assert_int_equal(b[7], 0xab);
	/* past the end of a mapping, and before the first */
	assert_int_equal(nvl_model_phys_access(g->m, NVL_HW_APERTURE_SYS_COH,
					       d1 + 2 * 4096 - 4, b, 8, false),
			 -EFAULT);
	assert_int_equal(nvl_model_phys_access(g->m, NVL_HW_APERTURE_SYS_NONCOH,
					       0, b, 8, false),
			 -EFAULT);
	assert_int_equal(nvl_hw_dma_unmap(g->hw, d1, 4096), -ENOENT);
	assert_int_equal(nvl_hw_dma_unmap(g->hw, d1, 2 * 4096), 0);
	assert_int_equal(nvl_hw_dma_unmap(g->hw, d1, 2 * 4096), -ENOENT);
	assert_int_equal(nvl_model_phys_access(g->m, NVL_HW_APERTURE_SYS_COH,
					       d1, b, 8, true),
			 -EFAULT);
	memset(b, 0, sizeof(b));
	assert_int_equal(nvl_model_phys_access(g->m, NVL_HW_APERTURE_SYS_COH,
					       d2, b, 8, true),
			 0);
	assert_int_equal(a[2 * 4096], 0);
	gpu_down(g);
	free(a);
}

static void unknown_registers_read_bad_and_ignore_writes(void **state)
{
	struct gpu *g = gpu_up("tiny");

	assert_int_equal(nvl_hw_rd32(g->hw, 0x123456), NVL_HW_REG_BAD);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_PMC_BOOT_0 + 2),
			 NVL_HW_REG_BAD);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_INST(4095)),
			 NVL_HW_REG_BAD); /* tiny has 64 channels */
	nvl_hw_wr32(g->hw, 0x123456, 1);
	nvl_hw_wr32(g->hw, NVL_HW_CHRAM_INST(4095), 1);
	nvl_hw_wr32(g->hw, NVL_HW_DOORBELL, 0xffffffff); /* bad token */
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_PMC_BOOT_0),
			 g->m->profile->boot0);
	gpu_down(g);
}

static void ptimer_counts_nanoseconds(void **state)
{
	struct gpu *g = gpu_up("tiny");
	uint64_t a, b;
	struct timespec ts = {0, 2000000};

	a = nvl_hw_rd32(g->hw, NVL_HW_PTIMER_TIME_0) |
	    (uint64_t)nvl_hw_rd32(g->hw, NVL_HW_PTIMER_TIME_1) << 32;
	nanosleep(&ts, NULL);
	b = nvl_hw_rd32(g->hw, NVL_HW_PTIMER_TIME_0) |
	    (uint64_t)nvl_hw_rd32(g->hw, NVL_HW_PTIMER_TIME_1) << 32;
	assert_true(b - a >= 2000000);
	gpu_down(g);
}

static void irq_callback_sees_enabled_pending_bits_only(void **state)
{
	struct gpu *g = gpu_up("tiny");

	nvl_hw_wr32(g->hw, NVL_HW_INTR_EN_CLEAR(0), ~0u);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_INTR_EN(0)), 0);
	nvl_model_intr_raise(g->m, NVL_HW_INTR_TREE_STALL, NVL_HW_INTR_THERMAL);
	assert_int_equal(atomic_load(&g->irqs), 0);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_INTR_STATUS(0)),
			 NVL_HW_INTR_THERMAL);
	/* enabling a pending interrupt delivers it (from the hub thread) */
	nvl_hw_wr32(g->hw, NVL_HW_INTR_EN_SET(0), NVL_HW_INTR_THERMAL);
	assert_true(gpu_wait_nonzero(&g->irqs, GPU_WAIT));
	assert_true(atomic_load(&g->stall) & NVL_HW_INTR_THERMAL);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_INTR_STATUS(0)), 0);
	/* no handler: status latches, nothing is called */
	assert_int_equal(nvl_hw_set_irq_handler(g->hw, NULL, NULL), 0);
	atomic_store(&g->irqs, 0);
	nvl_model_intr_raise(g->m, NVL_HW_INTR_TREE_NONSTALL, 1);
	assert_int_equal(atomic_load(&g->irqs), 0);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_INTR_STATUS(1)), 1);
	gpu_down(g);
}

static void mmu_invalidate_register_completes(void **state)
{
	struct gpu *g = gpu_up("tiny");

	assert_int_equal(nvl_kit_invalidate(&g->kit, &g->vm), 0);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_MMU_INVALIDATE) &
				 NVL_HW_MMU_INVALIDATE_TRIGGER,
			 0);
	/* the model-only hang holds TRIGGER until released */
	nvl_hw_wr32(g->hw, NVL_MODEL_REG_MMU_INVALIDATE_HANG, 1);
	nvl_hw_wr32(g->hw, NVL_HW_MMU_INVALIDATE,
		    NVL_HW_MMU_INVALIDATE_ALL_VA |
			    NVL_HW_MMU_INVALIDATE_TRIGGER);
	usleep(1000);
	assert_true(nvl_hw_rd32(g->hw, NVL_HW_MMU_INVALIDATE) &
		    NVL_HW_MMU_INVALIDATE_TRIGGER);
	nvl_hw_wr32(g->hw, NVL_MODEL_REG_MMU_INVALIDATE_HANG, 0);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_MMU_INVALIDATE) &
				 NVL_HW_MMU_INVALIDATE_TRIGGER,
			 0);
	gpu_down(g);
}

static int create_destroy(void *arg)
{
	struct nvl_model *m;
	int ret = nvl_model_create(nvl_model_profile_find("tiny"), &m);

	if (!ret)
		nvl_model_destroy(m);
	return ret;
}

static void check_enomem(int ret, void *arg)
{
	assert_int_equal(ret, -ENOMEM);
}

static void power_on_survives_each_allocation_failure(void **state)
{
	unsigned long n =
		t_fail_each_alloc(create_destroy, check_enomem, NULL, 100);

	assert_true(n >= 5);
}

static void failed_dma_map_and_channel_setup_change_nothing(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan ch;
	uint8_t *a = aligned_alloc(4096, 4096), b[4];
	uint64_t d = 0;

	assert_non_null(a);
	nvl_fault_fail_nth(1, NVL_FAULT_THIS_THREAD);
	assert_int_equal(nvl_hw_dma_map(g->hw, a, 4096, &d), -ENOMEM);
	nvl_fault_off();
	assert_int_equal(d, 0);
	/* the DMA address space did not move: the first map gets 4 GiB */
	assert_int_equal(nvl_hw_dma_map(g->hw, a, 4096, &d), 0);
	assert_int_equal(d, 1ull << 32);
	assert_int_equal(nvl_model_phys_access(g->m, NVL_HW_APERTURE_SYS_COH,
					       d + 4096, b, 4, false),
			 -EFAULT);
	nvl_fault_fail_nth(1, NVL_FAULT_THIS_THREAD);
	assert_int_equal(
		nvl_kit_chan_create(&g->kit, &g->vm, 1, 0, 4, 4096, false, &ch),
		-ENOMEM);
	nvl_fault_off();
	assert_null(ch.buf);
	gpu_down(g);
	free(a);
}

static void bad_profile_is_rejected(void **state)
{
	struct nvl_model_profile p = *nvl_model_profile_find("tiny");
	struct nvl_model *m;

	assert_int_equal(nvl_model_create(NULL, &m), -EINVAL);
	p.num_ce = 0;
	assert_int_equal(nvl_model_create(&p, &m), -EINVAL);
	p = *nvl_model_profile_find("tiny");
	p.vram_size = 12345;
	assert_int_equal(nvl_model_create(&p, &m), -EINVAL);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(profiles_report_their_identity),
	cmocka_unit_test(large_vram_is_reserved_lazily),
	cmocka_unit_test(vram_access_outside_vram_faults),
	cmocka_unit_test(dma_to_unmapped_system_page_faults),
	cmocka_unit_test(unknown_registers_read_bad_and_ignore_writes),
	cmocka_unit_test(ptimer_counts_nanoseconds),
	cmocka_unit_test(irq_callback_sees_enabled_pending_bits_only),
	cmocka_unit_test(mmu_invalidate_register_completes),
	cmocka_unit_test(power_on_survives_each_allocation_failure),
	cmocka_unit_test(failed_dma_map_and_channel_setup_change_nothing),
	cmocka_unit_test(bad_profile_is_rejected),
};

T_MAIN(tests)

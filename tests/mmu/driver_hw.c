// SPDX-License-Identifier: MIT
/*
 * TEST: mmu_driver_hw
 * Description: how the driver (src/nv) reaches the hardware: it learns the
 * page-table format and page sizes from BOOT_0 and its chip table, reads
 * no register a real GPU lacks (the model-only block of
 * model/model_regs.h), and reports an MMU invalidate that never completes
 * as -ETIMEDOUT (the model's invalidate-hang hook), without holding up
 * another device's invalidates.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include "t.h"
#include "base/log.h"
#include "base/time.h"
#include "hw/hwif.h"
#include "hw/regs.h"
#include "model/model.h"
#include "model/model_regs.h"
#include "nv/chip.h"
#include "nv/gmmu.h"

/* a device that forwards to the model and records what was read */
struct spy {
	struct nvl_hw hw;
	struct nvl_hw *inner;
	unsigned model_only_reads;
	unsigned reads;
};

static bool model_only(uint32_t addr)
{
	return (addr >= NVL_MODEL_REG_CFG_FB_SIZE_MB &&
		addr <= NVL_MODEL_REG_CFG_CE_CLASS) ||
	       addr == NVL_MODEL_REG_MMU_INVALIDATE_HANG ||
	       (addr >= NVL_MODEL_REG_ENGINE_HANG(0) &&
		addr <= NVL_MODEL_REG_ENGINE_HANG(NVL_HW_ENGINE_MAX - 1) &&
		(addr - NVL_MODEL_REG_ENGINE_HANG(0)) % 0x10 == 0);
}

static uint32_t spy_rd32(struct nvl_hw *hw, uint32_t addr)
{
	struct spy *s = container_of(hw, struct spy, hw);

	s->reads++;
	if (model_only(addr))
		s->model_only_reads++;
	return nvl_hw_rd32(s->inner, addr);
}

static void spy_wr32(struct nvl_hw *hw, uint32_t addr, uint32_t val)
{
	struct spy *s = container_of(hw, struct spy, hw);

	if (model_only(addr))
		s->model_only_reads++;
	nvl_hw_wr32(s->inner, addr, val);
}

static const struct nvl_hw_ops spy_ops = {
	.rd32 = spy_rd32,
	.wr32 = spy_wr32,
};

/*
 * dev_boot.ref NV_PMC_BOOT_0 ARCHITECTURE 28:24: the driver's chip table
 * gives every modelled chip the format and page sizes the model
 * implements, and the driver reads only BOOT_0 to find them.
 */
static void boot_0_selects_mmu_format(void **state)
{
	for (unsigned i = 0; nvl_model_profile_at(i); i++) {
		const struct nvl_model_profile *p = nvl_model_profile_at(i);
		struct nvl_nv_gmmu_args ga = {0};
		const struct nvl_nv_chip *chip;
		struct nvl_model *m;
		struct spy s = {.hw.ops = &spy_ops};

		assert_int_equal(nvl_model_create(p, &m), 0);
		s.inner = nvl_model_hw(m);
		assert_int_equal(nvl_nv_gmmu_probe(&s.hw, &ga), 0);
		assert_int_equal(ga.version, p->mmu_version);
		assert_int_equal(ga.big_leaf_pd1,
				 !!(p->page_sizes & (1ull << 29)));
		assert_int_equal(s.model_only_reads, 0);
		assert_int_equal(s.reads, 1); /* BOOT_0, nothing else */
		assert_int_equal(nvl_nv_chip_identify(&s.hw, &chip), 0);
		assert_int_equal(chip->host_class, p->host_class);
		nvl_model_destroy(m);
	}
}

/*
 * MMU_INVALIDATE TRIGGER 31:31 reads 1 until the invalidate is done: when
 * it never clears, the driver gives up after its timeout with -ETIMEDOUT
 * and a message, and works again once the MMU completes.
 */
static void gmmu_invalidate_timeout(void **state)
{
	struct nvl_model *m;
	struct nvl_hw *hw;
	struct spy s = {.hw.ops = &spy_ops};

	assert_int_equal(nvl_model_create(nvl_model_profile_find("tiny"), &m),
			 0);
	hw = nvl_model_hw(m);
	s.inner = hw;
	assert_int_equal(nvl_nv_gmmu_invalidate(&s.hw, 0x100000, 0, 0), 0);
	nvl_hw_wr32(hw, NVL_MODEL_REG_MMU_INVALIDATE_HANG, 1);
	assert_int_equal(
		nvl_nv_gmmu_invalidate(&s.hw, 0x100000, 0x1000, 0x1000),
		-ETIMEDOUT);
	assert_non_null(strstr(nvl_error_msg(), "did not complete"));
	/* the driver never touched the hook itself */
	assert_int_equal(s.model_only_reads, 0);
	nvl_hw_wr32(hw, NVL_MODEL_REG_MMU_INVALIDATE_HANG, 0);
	assert_int_equal(nvl_nv_gmmu_invalidate(&s.hw, 0x100000, 0, 0), 0);
	nvl_model_destroy(m);
}

struct hung_inval {
	struct nvl_hw *hw;
	int ret;
};

static void *hung_inval_main(void *arg)
{
	struct hung_inval *h = arg;

	h->ret = nvl_nv_gmmu_invalidate(h->hw, 0x100000, 0, 0);
	return NULL;
}

/*
 * The MMU_INVALIDATE registers are one set per device, so the driver
 * serialises their use per device: a device whose invalidate hangs (up to
 * the 1 s timeout) does not hold up another device's.
 */
static void gmmu_invalidate_serialised_per_device(void **state)
{
	struct nvl_model *a, *b;
	struct hung_inval h;
	int64_t t0, deadline;
	pthread_t th;

	(void)state;
	assert_int_equal(nvl_model_create(nvl_model_profile_find("tiny"), &a),
			 0);
	assert_int_equal(nvl_model_create(nvl_model_profile_find("tiny"), &b),
			 0);
	h.hw = nvl_model_hw(a);
	nvl_hw_wr32(h.hw, NVL_MODEL_REG_MMU_INVALIDATE_HANG, 1);
	assert_int_equal(pthread_create(&th, NULL, hung_inval_main, &h), 0);
	/* a's invalidate is in flight: TRIGGER latched and held */
	deadline = nvl_time_ns() + 10 * NVL_NSEC_PER_SEC;
	while (!(nvl_hw_rd32(h.hw, NVL_HW_MMU_INVALIDATE) &
		 NVL_HW_MMU_INVALIDATE_TRIGGER) &&
	       nvl_time_ns() < deadline)
		sched_yield();
	t0 = nvl_time_ns();
	assert_int_equal(
		nvl_nv_gmmu_invalidate(nvl_model_hw(b), 0x100000, 0, 0), 0);
	/* well below a's 1 s timeout */
	assert_true(nvl_time_ns() - t0 < NVL_NV_GMMU_INVALIDATE_TIMEOUT_NS / 2);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(h.ret, -ETIMEDOUT);
	nvl_hw_wr32(h.hw, NVL_MODEL_REG_MMU_INVALIDATE_HANG, 0);
	assert_int_equal(nvl_nv_gmmu_invalidate(h.hw, 0x100000, 0, 0), 0);
	nvl_model_destroy(b);
	nvl_model_destroy(a);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(boot_0_selects_mmu_format),
	cmocka_unit_test(gmmu_invalidate_timeout),
	cmocka_unit_test(gmmu_invalidate_serialised_per_device),
};

T_MAIN(tests)

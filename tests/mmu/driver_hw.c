// SPDX-License-Identifier: MIT
/*
 * TEST: mmu_driver_hw
 * Description: how the driver (src/nv) reaches the hardware: it learns the
 * page-table format and page sizes from BOOT_0 and its chip table, reads
 * no register a real GPU lacks (the model-only block of
 * model/model_regs.h), and reports an MMU invalidate that never completes
 * as -ETIMEDOUT (the model's invalidate-hang hook), without holding up
 * another device's invalidates, and the same device's waiters sleep.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

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

struct waiter {
	struct nvl_hw *hw;
	atomic_bool calling;
	int64_t wall_ns, cpu_ns;
	int ret;
};

static int64_t thread_cpu_ns(void)
{
	struct timespec ts;

	assert_int_equal(clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts), 0);
	return ts.tv_sec * NVL_NSEC_PER_SEC + ts.tv_nsec;
}

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;
	int64_t t0, c0;

	atomic_store(&w->calling, true);
	t0 = nvl_time_ns();
	c0 = thread_cpu_ns();
	w->ret = nvl_nv_gmmu_invalidate(w->hw, 0x200000, 0, 0);
	w->cpu_ns = thread_cpu_ns() - c0;
	w->wall_ns = nvl_time_ns() - t0;
	return NULL;
}

/*
 * The same device's invalidates wait for each other (the registers are
 * one set), and a waiter sleeps while it waits: many binders behind a
 * hung invalidate (polled up to the 1 s timeout) must not each burn a CPU
 * meanwhile. Here one waiter waits 300 ms behind a hung invalidate, then
 * the MMU completes (the hook cleared) and both succeed; the waiter's own
 * CPU time (CLOCK_THREAD_CPUTIME_ID) stays far below its wait. It was
 * about its wait when the lock was a flag taken with yields.
 */
static void gmmu_invalidate_waiter_sleeps(void **state)
{
	struct waiter w = {0};
	struct hung_inval h;
	struct nvl_model *a;
	int64_t deadline;
	pthread_t th, tw;

	(void)state;
	assert_int_equal(nvl_model_create(nvl_model_profile_find("tiny"), &a),
			 0);
	h.hw = nvl_model_hw(a);
	nvl_hw_wr32(h.hw, NVL_MODEL_REG_MMU_INVALIDATE_HANG, 1);
	assert_int_equal(pthread_create(&th, NULL, hung_inval_main, &h), 0);
	deadline = nvl_time_ns() + 10 * NVL_NSEC_PER_SEC;
	while (!(nvl_hw_rd32(h.hw, NVL_HW_MMU_INVALIDATE) &
		 NVL_HW_MMU_INVALIDATE_TRIGGER) &&
	       nvl_time_ns() < deadline)
		sched_yield();
	w.hw = h.hw;
	assert_int_equal(pthread_create(&tw, NULL, waiter_main, &w), 0);
	while (!atomic_load(&w.calling) && nvl_time_ns() < deadline)
		sched_yield();
	nanosleep(&(struct timespec){.tv_nsec = 300 * 1000 * 1000}, NULL);
	/* the MMU completes the held invalidate: the holder returns 0 */
	nvl_hw_wr32(h.hw, NVL_MODEL_REG_MMU_INVALIDATE_HANG, 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(pthread_join(tw, NULL), 0);
	assert_int_equal(h.ret, 0);
	assert_int_equal(w.ret, 0);
	assert_true(w.wall_ns >= 250 * NVL_NSEC_PER_MSEC);
	if (w.cpu_ns > w.wall_ns / 20)
		fail_msg("the waiter used %lld ms of CPU in its %lld ms wait",
			 (long long)(w.cpu_ns / NVL_NSEC_PER_MSEC),
			 (long long)(w.wall_ns / NVL_NSEC_PER_MSEC));
	nvl_model_destroy(a);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(boot_0_selects_mmu_format),
	cmocka_unit_test(gmmu_invalidate_timeout),
	cmocka_unit_test(gmmu_invalidate_serialised_per_device),
	cmocka_unit_test(gmmu_invalidate_waiter_sleeps),
};

T_MAIN(tests)

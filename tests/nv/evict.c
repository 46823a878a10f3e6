// SPDX-License-Identifier: MIT
/*
 * TEST: EXEC revalidates a VM's moved BOs and fences them (docs/driver.md
 * "EXEC"), through the public headers only.
 *
 * - Oversubscription: two clients on a 256 MiB device, each with BOs of
 *   more than half the usable VRAM mapped in its VM; each exec of one
 *   client brings its BOs back and evicts the other's. Each round fills a
 *   new 64 KiB slice of every BO with the copy engine; no BO is ever
 *   rebound. Every byte of every BO is checked after each round: a mapping
 *   left pointing at the VRAM its BO left would write into another BO (or
 *   lose the write). On ga102 and tu102.
 * - A BO evicted while a job that writes it waits on the GPU (a Host
 *   semaphore acquire before a copy-engine fill) is not copied out before
 *   the job's fence signals: after the release, the BO holds the fill.
 * - Allocation failures over such an exec: -ENOMEM, nothing queued.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include <nouvelle/nouvelle.h>

#include "kit.h"
#include "t.h"
#include "t_nv.h"

#define KIB T_NV_KIB
#define MIB T_NV_MIB
#define NBO_MAX T_NV_CL_MAX_BO
/* the device keeps 32 MiB of usable VRAM for page tables and channels
 * (docs/driver.md, "Device life cycle"); the rest holds BOs */
#define DRIVER_VRAM (32 * MIB)
#define BO_SIZE (4 * MIB)
#define SLICE (64 * KIB)
#define ROUNDS 3
#define VA_BO (64 * MIB)
#define VA_PB (32 * MIB)
#define VA_SEM (40 * MIB)

/* the rig's client with a semaphore BO */
static void cl_up(struct nvl_device *dev, struct t_nv_cl *k)
{
	t_nv_cl_up(k, dev, VA_PB, 0);
	t_nv_cl_sem(k, 4 * KIB, VA_SEM);
}

static void cl_down(struct t_nv_cl *k)
{
	t_nv_cl_expect_alive(k);
	t_nv_cl_close(k);
}

static void submit(struct t_nv_cl *k, uint32_t ndw)
{
	assert_int_equal(t_nv_cl_exec(k, k->chan, 0, ndw), 0);
}

static void wait_done(struct t_nv_cl *k)
{
	assert_int_equal(t_nv_cl_wait(k, 20 * T_NV_SEC), 0);
}

static void oversub_on(const char *spec)
{
	struct nvl_device_opts o = {.vram_size = 256 * MIB};
	struct nvl_device_info info;
	struct nvl_device *dev;
	struct t_nv_cl k[2];
	unsigned found_evicted = 0, nbo;
	uint64_t bo_vram;

	assert_int_equal(nvl_device_open(spec, &o, &dev), 0);
	assert_int_equal(nvl_device_query(dev, &info), 0);
	/* each client alone fits (with its pushbuffer and semaphore), both
	 * do not even fit in all of the usable VRAM */
	bo_vram = info.vram_usable - DRIVER_VRAM;
	nbo = (unsigned)(info.vram_usable / 2 / BO_SIZE + 1);
	assert_true(nbo <= NBO_MAX);
	assert_true(nbo * BO_SIZE + 2 * MIB <= bo_vram);
	assert_true(2 * nbo * BO_SIZE > info.vram_usable);
	for (unsigned c = 0; c < 2; c++) {
		cl_up(dev, &k[c]);
		t_nv_cl_bos(&k[c], nbo, BO_SIZE, VA_BO);
	}
	for (unsigned r = 0; r < ROUNDS; r++) {
		for (unsigned c = 0; c < 2; c++) {
			for (unsigned i = 0; i < nbo; i++) {
				struct nvl_bo_info bi;
				uint32_t n;

				assert_int_equal(
					nvl_bo_query(k[c].c, k[c].bo[i], &bi),
					0);
				found_evicted +=
					bi.current != NVL_BO_DOMAIN_VRAM;
				n = nvl_kit_pb_memset(
					k[c].ppb, info.ce_class,
					VA_BO + i * BO_SIZE + r * SLICE,
					t_nv_word(c, i, r), SLICE);
				submit(&k[c], n);
				wait_done(&k[c]);
			}
		}
		for (unsigned c = 0; c < 2; c++)
			t_nv_cl_expect_slices(&k[c], SLICE, c, r, spec);
	}
	/* the clients did push each other out between their execs */
	assert_true(found_evicted >= ROUNDS);
	cl_down(&k[0]);
	cl_down(&k[1]);
	nvl_device_close(dev);
}

static void oversubscribed_without_rebind(void **state)
{
	(void)state;
	oversub_on("model:ga102");
	oversub_on("model:tu102");
}

static void evicted_in_flight(void **state)
{
	struct nvl_device_opts o = {.vram_size = 256 * MIB};
	struct nvl_device_info info;
	struct nvl_device *dev;
	struct nvl_bo_info bi;
	struct t_nv_cl a, b;
	uint32_t n, big;
	uint64_t big_size;

	(void)state;
	assert_int_equal(nvl_device_open("model:ga102", &o, &dev), 0);
	assert_int_equal(nvl_device_query(dev, &info), 0);
	cl_up(dev, &a);
	cl_up(dev, &b);
	a.bo[0] =
		t_nv_cl_bo(&a, 8 * MIB, NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
			   VA_BO, NULL);
	assert_int_equal(nvl_bo_use(a.c, a.bo[0]), 0);
	assert_int_equal(nvl_bo_query(a.c, a.bo[0], &bi), 0);
	assert_int_equal(bi.current, NVL_BO_DOMAIN_VRAM);
	/* the job waits on the GPU for the semaphore, then fills the BO */
	a.psem[0] = 0;
	n = nvl_kit_pb_acquire(a.ppb, VA_SEM, 1);
	n += nvl_kit_pb_memset(a.ppb + n, info.ce_class, VA_BO, 0x600dcafe,
			       8 * MIB);
	submit(&a, n);
	/* B takes (almost) all of VRAM: the idle-looking BO must go */
	big_size = info.vram_usable - DRIVER_VRAM - 4 * MIB;
	assert_int_equal(nvl_bo_create(b.c, big_size, NVL_BO_DOMAIN_VRAM,
				       NVL_BO_DOMAIN_VRAM, 0, &big),
			 0);
	assert_int_equal(nvl_bo_use(b.c, big), 0);
	assert_int_equal(nvl_bo_query(a.c, a.bo[0], &bi), 0);
	assert_int_not_equal(bi.current, NVL_BO_DOMAIN_VRAM);
	/* the job has not run its fill: its fence is pending */
	assert_int_equal(nvl_syncobj_wait(a.c, &a.sync, NULL, 1, 0, 0, NULL),
			 -ETIME);
	atomic_store_explicit((_Atomic uint32_t *)&a.psem[0], 1,
			      memory_order_release);
	wait_done(&a);
	/* the move waited for the job: the fill went with the BO */
	t_nv_expect_words(a.c, a.bo[0], 0, 8 * MIB / 4, 0x600dcafe,
			  "the evicted BO");
	cl_down(&a);
	cl_down(&b);
	nvl_device_close(dev);
}

/*
 * Every allocation of an exec on a VM with an external BO (the exec lock's
 * object list and snapshot, fence slots, the job's dependencies) failing
 * in turn: -ENOMEM, nothing signalled or run, the BO unchanged; then the
 * exec works.
 */
static void exec_alloc_failures(void **state)
{
	struct nvl_device_opts o = {.vram_size = 256 * MIB};
	struct nvl_device_info info;
	struct nvl_channel_info ci;
	struct nvl_device *dev;
	struct nvl_exec_push push = {.va = VA_PB};
	struct nvl_vm_sync sig;
	unsigned long tried = 0;
	struct t_nv_cl a;

	(void)state;
	assert_int_equal(nvl_device_open("model:ga102", &o, &dev), 0);
	assert_int_equal(nvl_device_query(dev, &info), 0);
	cl_up(dev, &a);
	sig.handle = a.sync;
	sig.flags = 0;
	sig.point = 0;
	a.bo[0] =
		t_nv_cl_bo(&a, 1 * MIB, NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
			   VA_BO, NULL);
	push.len = 4 * nvl_kit_pb_memset(a.ppb, info.ce_class, VA_BO,
					 0x5eed5eed, 1 * MIB);
	for (unsigned long nth = 1; nth < 10000; nth++) {
		int ret;

		nvl_fault_fail_nth(nth, NVL_FAULT_THIS_THREAD);
		ret = nvl_exec(a.c, a.chan, &push, 1, NULL, 0, &sig, 1, 0);
		if (!nvl_fault_hits()) {
			nvl_fault_off();
			assert_int_equal(ret, 0);
			break;
		}
		nvl_fault_off();
		tried++;
		assert_int_equal(ret, -ENOMEM);
		assert_int_equal(nvl_channel_query(a.c, a.chan, &ci), 0);
		assert_int_equal(ci.submitted, 0);
		assert_int_not_equal(
			nvl_syncobj_wait(a.c, &a.sync, NULL, 1, 0, 0, NULL), 0);
	}
	assert_true(tried >= 3);
	wait_done(&a);
	t_nv_expect_words(a.c, a.bo[0], 0, MIB / 4, 0x5eed5eed,
			  "the BO after the exec");
	assert_int_equal(nvl_channel_query(a.c, a.chan, &ci), 0);
	assert_int_equal(ci.submitted, 1);
	cl_down(&a);
	nvl_device_close(dev);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(oversubscribed_without_rebind),
		cmocka_unit_test(evicted_in_flight),
		cmocka_unit_test(exec_alloc_failures),
	};

	return t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
}

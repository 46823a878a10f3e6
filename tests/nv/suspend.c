// SPDX-License-Identifier: MIT
/*
 * TEST: suspend to RAM and resume (nvl_device_suspend/resume), through
 * the public headers only.
 *
 * - Live BOs, a VM and a copy channel: suspend (BOs evicted from VRAM,
 *   the board power-cycled: every byte of VRAM lost), resume (the GSP
 *   restores its state through GspFwSRMeta); every byte of every BO is
 *   checked, then new work on the same channel and VM fills another slice
 *   and every byte is checked again. Twice.
 * - A job in flight (blocked on a semaphore): suspend fails -EBUSY after
 *   its bound with nothing changed; released, the job finishes and the
 *   suspend works.
 * - Bad calls: NULL, resume when not suspended, suspend twice, a BO still
 *   mapped in VRAM (-EBUSY), channels and execs while suspended (-EAGAIN).
 * - The VRAM usage check reads under the memory manager's lock while
 *   another thread unpins and frees a VRAM BO (TSan).
 * - Allocation failures on the suspend path: -ENOMEM, the device works.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include <nouvelle/nouvelle.h>

#include "kit.h"
#include "t.h"
#include "t_nv.h"

#define KIB T_NV_KIB
#define MIB T_NV_MIB
#define NBO 4
#define BO_SIZE (4 * MIB)
#define SLICE (64 * KIB)
#define VA_BO (64 * MIB)
#define VA_PB (32 * MIB)
#define VA_SEM (40 * MIB)

/*
 * The rig's client on a device of its own, with a semaphore and NBO data
 * BOs, all movable and none CPU-mapped (a mapped BO cannot be suspended).
 */
static void up(struct t_nv_cl *k, uint32_t job_timeout_ms)
{
	struct nvl_device_opts o = {.vram_size = 256 * MIB,
				    .job_timeout_ms = job_timeout_ms};
	struct nvl_device *dev;

	assert_int_equal(nvl_device_open("model:ga102", &o, &dev), 0);
	t_nv_cl_up(k, dev, VA_PB, T_NV_CL_PB_MOVABLE);
	t_nv_cl_sem(k, 4 * KIB, VA_SEM);
	t_nv_cl_bos(k, NBO, BO_SIZE, VA_BO);
}

static void down(struct t_nv_cl *k)
{
	struct nvl_device *dev = k->dev;

	t_nv_cl_expect_alive(k);
	t_nv_cl_close(k);
	nvl_device_close(dev);
}

/* fill slice @round of every BO with the copy engine, then wait */
static void fill(struct t_nv_cl *k, unsigned round)
{
	uint32_t *pb, n = 0;

	assert_int_equal(nvl_bo_map(k->c, k->pb, (void **)&pb), 0);
	for (unsigned i = 0; i < NBO; i++)
		n += nvl_kit_pb_memset(pb + n, k->info.ce_class,
				       VA_BO + i * BO_SIZE + round * SLICE,
				       t_nv_word(0, i, round), SLICE);
	assert_int_equal(nvl_bo_unmap(k->c, k->pb), 0);
	t_nv_cl_run(k, 0, n, 20 * T_NV_SEC);
}

/* every byte of every BO after rounds 0..@round */
static void check_all(struct t_nv_cl *k, unsigned round)
{
	t_nv_cl_expect_slices(k, SLICE, 0, round, "suspend");
}

static void suspend_resume_live(void **state)
{
	struct nvl_exec_push p = {.va = VA_PB, .len = 16};
	struct nvl_bo_info bi;
	struct t_nv_cl k;
	uint32_t ch2;

	(void)state;
	up(&k, 0);
	fill(&k, 0);
	check_all(&k, 0);
	for (unsigned r = 1; r <= 2; r++) {
		assert_int_equal(nvl_device_suspend(k.dev), 0);
		assert_int_equal(nvl_device_suspend(k.dev), -EALREADY);
		/* nothing left in VRAM, which the power cycle wiped */
		for (unsigned i = 0; i < NBO; i++) {
			assert_int_equal(nvl_bo_query(k.c, k.bo[i], &bi), 0);
			assert_int_not_equal(bi.current, NVL_BO_DOMAIN_VRAM);
		}
		/* no work while suspended */
		assert_int_equal(
			nvl_exec(k.c, k.chan, &p, 1, NULL, 0, NULL, 0, 0),
			-EAGAIN);
		assert_int_equal(
			nvl_channel_create(k.c, k.vm, NVL_ENGINE_COPY, 0, &ch2),
			-EAGAIN);
		assert_int_equal(nvl_device_resume(k.dev), 0);
		assert_int_equal(nvl_device_status(k.dev), 0);
		check_all(&k, r - 1);
		/* the same channel and VM run new work; the BOs come back */
		fill(&k, r);
		check_all(&k, r);
		assert_int_equal(nvl_bo_query(k.c, k.bo[0], &bi), 0);
		assert_int_equal(bi.current, NVL_BO_DOMAIN_VRAM);
	}
	/* and new channels */
	assert_int_equal(
		nvl_channel_create(k.c, k.vm, NVL_ENGINE_COPY, 0, &ch2), 0);
	assert_int_equal(nvl_channel_destroy(k.c, ch2), 0);
	down(&k);
}

static void suspend_with_job_in_flight(void **state)
{
	uint32_t *pb, *sem, n;
	struct t_nv_cl k;

	(void)state;
	/* suspend waits half of it: 5 s, far from the job's own timeout */
	up(&k, 10000);
	assert_int_equal(nvl_bo_map(k.c, k.sem, (void **)&sem), 0);
	sem[0] = 0;
	assert_int_equal(nvl_bo_map(k.c, k.pb, (void **)&pb), 0);
	n = nvl_kit_pb_acquire(pb, VA_SEM, 1);
	n += nvl_kit_pb_memset(pb + n, k.info.ce_class, VA_BO,
			       t_nv_word(0, 0, 0), SLICE);
	assert_int_equal(nvl_bo_unmap(k.c, k.pb), 0);
	assert_int_equal(t_nv_cl_exec(&k, k.chan, 0, n), 0);
	assert_int_equal(nvl_device_suspend(k.dev), -EBUSY);
	assert_non_null(strstr(nvl_last_error(), "jobs still running"));
	assert_int_equal(nvl_device_status(k.dev), 0);
	atomic_store_explicit((_Atomic uint32_t *)&sem[0], 1,
			      memory_order_release);
	assert_int_equal(t_nv_cl_wait(&k, 20 * T_NV_SEC), 0);
	assert_int_equal(nvl_bo_unmap(k.c, k.sem), 0);
	assert_int_equal(nvl_device_suspend(k.dev), 0);
	assert_int_equal(nvl_device_resume(k.dev), 0);
	/* slice 0 of BO 0 holds the fill the job did before the suspend */
	t_nv_expect_words(k.c, k.bo[0], 0, SLICE / 4, t_nv_word(0, 0, 0),
			  "BO 0 after resume");
	down(&k);
}

static void bad_calls(void **state)
{
	struct t_nv_cl k;
	void *p;

	(void)state;
	assert_int_equal(nvl_device_suspend(NULL), -EINVAL);
	assert_int_equal(nvl_device_resume(NULL), -EINVAL);
	up(&k, 0);
	assert_int_equal(nvl_device_resume(k.dev), -EINVAL);
	/* a BO mapped in VRAM cannot move: nothing suspended */
	assert_int_equal(nvl_bo_use(k.c, k.bo[1]), 0);
	assert_int_equal(nvl_bo_map(k.c, k.bo[1], &p), 0);
	assert_int_equal(nvl_device_suspend(k.dev), -EBUSY);
	assert_non_null(strstr(nvl_last_error(), "cannot move"));
	assert_int_equal(nvl_bo_unmap(k.c, k.bo[1]), 0);
	fill(&k, 0);
	check_all(&k, 0);
	down(&k);
}

/*
 * The VRAM usage the suspend checks last (mm->used_B) changes under the
 * memory manager's lock; the suspend must read it under that lock too.
 * A second thread holds a BO mapped (so pinned) in VRAM; once the suspend
 * has refused (-EBUSY), it unmaps and destroys the BO, changing the usage
 * with no other synchronisation with the suspending thread than that
 * lock (the hand-over flags are relaxed atomics): TSan (suite
 * concurrency) reports the suspend's read if it is outside the lock.
 */
struct unpin_race {
	struct t_nv_cl *k;
	atomic_int state; /* 0 start, 1 mapped, 2 go, 3 done */
	uint32_t bo;
};

static void *unpin_race_thread(void *arg)
{
	struct unpin_race *r = arg;
	void *map;

	assert_int_equal(nvl_bo_create(r->k->c, 64 * KIB, NVL_BO_DOMAIN_VRAM,
				       NVL_BO_DOMAIN_VRAM, NVL_BO_CPU_VISIBLE,
				       &r->bo),
			 0);
	assert_int_equal(nvl_bo_use(r->k->c, r->bo), 0);
	assert_int_equal(nvl_bo_map(r->k->c, r->bo, &map), 0);
	atomic_store_explicit(&r->state, 1, memory_order_relaxed);
	while (atomic_load_explicit(&r->state, memory_order_relaxed) != 2)
		sched_yield();
	assert_int_equal(nvl_bo_unmap(r->k->c, r->bo), 0);
	assert_int_equal(nvl_bo_close(r->k->c, r->bo), 0);
	atomic_store_explicit(&r->state, 3, memory_order_relaxed);
	return NULL;
}

static void suspend_reads_usage_under_the_lock(void **state)
{
	struct unpin_race r = {0};
	struct t_nv_cl k;
	pthread_t t;

	(void)state;
	up(&k, 0);
	r.k = &k;
	assert_int_equal(pthread_create(&t, NULL, unpin_race_thread, &r), 0);
	while (atomic_load_explicit(&r.state, memory_order_relaxed) != 1)
		sched_yield();
	assert_int_equal(nvl_device_suspend(k.dev), -EBUSY);
	assert_non_null(strstr(nvl_last_error(), "cannot move"));
	atomic_store_explicit(&r.state, 2, memory_order_relaxed);
	while (atomic_load_explicit(&r.state, memory_order_relaxed) != 3)
		sched_yield();
	assert_int_equal(pthread_join(t, NULL), 0);
	/* nothing pinned now: the suspend works */
	assert_int_equal(nvl_device_suspend(k.dev), 0);
	assert_int_equal(nvl_device_resume(k.dev), 0);
	fill(&k, 0);
	check_all(&k, 0);
	down(&k);
}

static int suspend_op(void *arg)
{
	return nvl_device_suspend(((struct t_nv_cl *)arg)->dev);
}

static void suspend_check(int ret, void *arg)
{
	struct t_nv_cl *k = arg;
	struct nvl_channel_info ci;

	assert_int_equal(ret, -ENOMEM);
	assert_int_equal(nvl_device_status(k->dev), 0);
	assert_int_equal(nvl_device_resume(k->dev), -EINVAL);
	assert_int_equal(nvl_channel_query(k->c, k->chan, &ci), 0);
	assert_int_equal(ci.alive, 1);
}

static void suspend_alloc_failures(void **state)
{
	struct t_nv_cl k;
	unsigned long n;

	(void)state;
	up(&k, 0);
	fill(&k, 0);
	n = t_fail_each_alloc(suspend_op, suspend_check, &k, 400);
	assert_true(n >= 5);
	assert_int_equal(nvl_device_resume(k.dev), 0);
	check_all(&k, 0);
	fill(&k, 1);
	check_all(&k, 1);
	down(&k);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(suspend_resume_live),
	cmocka_unit_test(suspend_with_job_in_flight),
	cmocka_unit_test(bad_calls),
	cmocka_unit_test(suspend_reads_usage_under_the_lock),
	cmocka_unit_test(suspend_alloc_failures),
};

T_MAIN(tests)

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
 * - Allocation failures on the suspend path: -ENOMEM, the device works.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include <nouvelle/nouvelle.h>

#include "kit.h"
#include "t.h"
#include "t_nv.h"

#define KIB (1ull << 10)
#define MIB (1ull << 20)
#define NBO 4
#define BO_SIZE (4 * MIB)
#define SLICE (64 * KIB)
#define VA_BO (64 * MIB)
#define VA_PB (32 * MIB)
#define VA_SEM (40 * MIB)

struct cl {
	struct nvl_device *dev;
	struct nvl_device_info info;
	struct nvl_client *c;
	uint32_t vm, chan, sync, pb, sem;
	uint32_t bo[NBO];
};

static uint32_t make_bo(struct cl *k, uint64_t size, uint64_t va)
{
	struct nvl_vm_bind_op op = {
		.op = NVL_VM_BIND_OP_MAP, .addr = va, .range = size};
	uint32_t h;

	assert_int_equal(nvl_bo_create(k->c, size,
				       NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
				       NVL_BO_DOMAIN_VRAM, NVL_BO_CPU_VISIBLE,
				       &h),
			 0);
	op.handle = h;
	assert_int_equal(
		nvl_vm_bind(k->c, k->vm, 0, &op, 1, NULL, 0, NULL, 0, 0), 0);
	return h;
}

static void up(struct cl *k, uint32_t job_timeout_ms)
{
	struct nvl_device_opts o = {.vram_size = 256 * MIB,
				    .job_timeout_ms = job_timeout_ms};
	struct nvl_vm_create_args va = {.start = 1 * MIB,
					.end = 1ull << 40,
					.kernel_start = 1ull << 39,
					.kernel_range = 16 * MIB};

	memset(k, 0, sizeof(*k));
	assert_int_equal(nvl_device_open("model:ga102", &o, &k->dev), 0);
	assert_int_equal(nvl_device_query(k->dev, &k->info), 0);
	assert_int_equal(nvl_device_client_create(k->dev, &k->c), 0);
	assert_int_equal(nvl_vm_create(k->c, &va, &k->vm), 0);
	k->pb = make_bo(k, 64 * KIB, VA_PB);
	k->sem = make_bo(k, 4 * KIB, VA_SEM);
	for (unsigned i = 0; i < NBO; i++)
		k->bo[i] = make_bo(k, BO_SIZE, VA_BO + i * BO_SIZE);
	assert_int_equal(
		nvl_channel_create(k->c, k->vm, NVL_ENGINE_COPY, 0, &k->chan),
		0);
	assert_int_equal(nvl_syncobj_create(k->c, 0, &k->sync), 0);
}

static void down(struct cl *k)
{
	struct nvl_channel_info ci;

	assert_int_equal(nvl_channel_query(k->c, k->chan, &ci), 0);
	assert_int_equal(ci.alive, 1);
	assert_int_equal(nvl_channel_destroy(k->c, k->chan), 0);
	nvl_client_destroy(k->c);
	nvl_device_close(k->dev);
}

static uint32_t word(unsigned i, unsigned round)
{
	return 0x9e3779b1u * (i * 10 + round + 1) | 1u;
}

/* fill slice @round of every BO with the copy engine, then wait */
static void fill(struct cl *k, unsigned round)
{
	struct nvl_vm_sync s = {.handle = k->sync};
	uint32_t *pb, n = 0;

	assert_int_equal(nvl_bo_map(k->c, k->pb, (void **)&pb), 0);
	for (unsigned i = 0; i < NBO; i++)
		n += nvl_kit_pb_memset(pb + n, k->info.ce_class,
				       VA_BO + i * BO_SIZE + round * SLICE,
				       word(i, round), SLICE);
	assert_int_equal(nvl_bo_unmap(k->c, k->pb), 0);
	struct nvl_exec_push p = {.va = VA_PB, .len = n * 4};

	assert_int_equal(nvl_exec(k->c, k->chan, &p, 1, NULL, 0, &s, 1, 0), 0);
	assert_int_equal(nvl_syncobj_wait(k->c, &k->sync, NULL, 1,
					  t_nv_deadline(20000000000ll), 0,
					  NULL),
			 0);
}

/* every byte of every BO after rounds 0..@round */
static void check_all(struct cl *k, unsigned round)
{
	for (unsigned i = 0; i < NBO; i++) {
		uint32_t *p;

		assert_int_equal(nvl_bo_map(k->c, k->bo[i], (void **)&p), 0);
		for (uint64_t w = 0; w < BO_SIZE / 4; w++) {
			uint64_t slice = w * 4 / SLICE;
			uint32_t want =
				slice <= round ? word(i, (unsigned)slice) : 0;

			if (p[w] != want)
				fail_msg("BO %u round %u: word %llu is %#x, "
					 "not %#x",
					 i, round, (unsigned long long)w, p[w],
					 want);
		}
		assert_int_equal(nvl_bo_unmap(k->c, k->bo[i]), 0);
	}
}

static void suspend_resume_live(void **state)
{
	struct nvl_exec_push p = {.va = VA_PB, .len = 16};
	struct nvl_bo_info bi;
	struct cl k;
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
	struct nvl_vm_sync s = {.handle = 0};
	uint32_t *pb, *sem, n;
	struct cl k;

	(void)state;
	/* suspend waits half of it: 5 s, far from the job's own timeout */
	up(&k, 10000);
	s.handle = k.sync;
	assert_int_equal(nvl_bo_map(k.c, k.sem, (void **)&sem), 0);
	sem[0] = 0;
	assert_int_equal(nvl_bo_map(k.c, k.pb, (void **)&pb), 0);
	n = nvl_kit_pb_acquire(pb, VA_SEM, 1);
	n += nvl_kit_pb_memset(pb + n, k.info.ce_class, VA_BO, word(0, 0),
			       SLICE);
	assert_int_equal(nvl_bo_unmap(k.c, k.pb), 0);
	struct nvl_exec_push p = {.va = VA_PB, .len = n * 4};

	assert_int_equal(nvl_exec(k.c, k.chan, &p, 1, NULL, 0, &s, 1, 0), 0);
	assert_int_equal(nvl_device_suspend(k.dev), -EBUSY);
	assert_non_null(strstr(nvl_last_error(), "jobs still running"));
	assert_int_equal(nvl_device_status(k.dev), 0);
	atomic_store_explicit((_Atomic uint32_t *)&sem[0], 1,
			      memory_order_release);
	assert_int_equal(nvl_syncobj_wait(k.c, &k.sync, NULL, 1,
					  t_nv_deadline(20000000000ll), 0,
					  NULL),
			 0);
	assert_int_equal(nvl_bo_unmap(k.c, k.sem), 0);
	assert_int_equal(nvl_device_suspend(k.dev), 0);
	assert_int_equal(nvl_device_resume(k.dev), 0);
	/* slice 0 of BO 0 holds the fill the job did before the suspend */
	assert_int_equal(nvl_bo_map(k.c, k.bo[0], (void **)&pb), 0);
	for (uint64_t w = 0; w < SLICE / 4; w++)
		if (pb[w] != word(0, 0))
			fail_msg("word %llu is %#x", (unsigned long long)w,
				 pb[w]);
	assert_int_equal(nvl_bo_unmap(k.c, k.bo[0]), 0);
	down(&k);
}

static void bad_calls(void **state)
{
	struct cl k;
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

static int suspend_op(void *arg)
{
	return nvl_device_suspend(((struct cl *)arg)->dev);
}

static void suspend_check(int ret, void *arg)
{
	struct cl *k = arg;
	struct nvl_channel_info ci;

	assert_int_equal(ret, -ENOMEM);
	assert_int_equal(nvl_device_status(k->dev), 0);
	assert_int_equal(nvl_device_resume(k->dev), -EINVAL);
	assert_int_equal(nvl_channel_query(k->c, k->chan, &ci), 0);
	assert_int_equal(ci.alive, 1);
}

static void suspend_alloc_failures(void **state)
{
	struct cl k;
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
	cmocka_unit_test(suspend_alloc_failures),
};

T_MAIN(tests)

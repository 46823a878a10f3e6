// SPDX-License-Identifier: MIT
/*
 * TEST: job timeouts and their recovery on real channels (issue 16 item
 * 2, docs/faults.md "Job timeouts and recovery"). The model's injected
 * engine hang (ENGINE_HANG(e) = chid + 1: engine e makes no progress on
 * that channel until it is reset) never clears on its own, so the tests
 * only rely on the driver's job timeout firing eventually (1 s: long
 * enough that a job merely slowed by the machine or TSan is not taken for
 * a hang, short enough to keep the test quick;
 * nvl_device_opts.job_timeout_ms) and wait for results with generous
 * bounds, never on how long anything took.
 *
 * Each job is one semaphore release (SEM_ADDR/PAYLOAD/EXECUTE RELEASE,
 * clc36f.h) of a value of its own into a data BO: a job that ran leaves
 * its value, a job that did not leaves 0.
 *
 * The hang is armed through the public nvl_channel_inject_hang(); past the
 * public headers only to read the model's ENGINE_STATUS (core/device.h).
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include <nouvelle/nouvelle.h>

#include "base/alloc.h"
#include "core/device.h"
#include "hw/regs.h"
#include "kit.h"
#include "model/gsp/gsp.h"
#include "model/model.h"
#include "rig.h"
#include "t.h"

/* job @i (pushbuffer segment and dst slot @i) signals sync[@s] */
static int rig_exec_on(struct rig *k, int i, int s)
{
	uint32_t *p = k->ppb + i * SEG / 4;
	uint32_t n = nvl_kit_pb_release(p, VA_DST + 4 * i, 0x1000 + i);
	struct nvl_exec_push push = {.va = VA_PB + i * SEG, .len = n * 4};
	struct nvl_vm_sync sig = {.handle = k->sync[s]};

	return nvl_exec(k->c, k->chan, &push, 1, NULL, 0, &sig, 1, 0);
}

static void wait_hung(struct nvl_device *dev)
{
	struct nvl_hw *hw = nvl_model_hw(dev->model);
	int64_t dl = rig_now_ns() + 20000000000ll;

	while (!(nvl_hw_rd32(hw, NVL_HW_ENGINE_STATUS(0)) &
		 NVL_HW_ENGINE_STATUS_HUNG) &&
	       rig_now_ns() < dl)
		nanosleep(&(struct timespec){0, 1000000}, NULL);
}

/* guilty -ETIMEDOUT, innocents behind it run with their data, the channel
 * goes on, another client on the same engine is untouched */
static void hang_recover(void **state)
{
	struct nvl_device *dev = rig_open_dev(0);
	struct nvl_channel_info ci;
	struct rig a, b;

	(void)state;
	rig_up(dev, &a);
	rig_up(dev, &b);
	rig_hang(&a);
	assert_int_equal(rig_exec(&a, 0), 0);
	assert_int_equal(rig_exec(&a, 1), 0);
	assert_int_equal(rig_exec(&a, 2), 0);
	assert_int_equal(rig_exec(&b, 0), 0);
	assert_int_equal(rig_status(&a, 0), -ETIMEDOUT);
	assert_int_equal(rig_status(&a, 1), 1);
	assert_int_equal(rig_status(&a, 2), 1);
	assert_int_equal(a.pdst[0], 0); /* the guilty job never ran */
	assert_int_equal(a.pdst[1], 0x1001);
	assert_int_equal(a.pdst[2], 0x1002);
	assert_int_equal(rig_status(&b, 0), 1);
	assert_int_equal(b.pdst[0], 0x1000);
	/* the channel is alive and takes work */
	assert_int_equal(nvl_channel_query(a.c, a.chan, &ci), 0);
	assert_int_equal(ci.alive, 1);
	assert_int_equal(ci.reason, NVL_CHANNEL_ALIVE);
	assert_int_equal(rig_exec(&a, 3), 0);
	assert_int_equal(rig_status(&a, 3), 1);
	assert_int_equal(a.pdst[3], 0x1003);
	assert_int_equal(nvl_channel_query(b.c, b.chan, &ci), 0);
	assert_int_equal(ci.alive, 1);
	rig_down(&a);
	rig_down(&b);
	nvl_device_close(dev);
}

/* the NVL_NV_HANG_BAN-th (3rd) hang bans the client: -ECANCELED */
static void hang_ban(void **state)
{
	struct nvl_device *dev = rig_open_dev(0);
	struct rig a, b;

	(void)state;
	rig_up(dev, &a);
	rig_up(dev, &b);
	for (int i = 0; i < 3; i++) {
		rig_hang(&a);
		assert_int_equal(rig_exec(&a, i), 0);
		assert_int_equal(rig_status(&a, i), -ETIMEDOUT);
	}
	assert_int_equal(rig_exec(&a, 3), -ECANCELED);
	assert_int_equal(a.pdst[3], 0);
	/* the other client is not banned */
	assert_int_equal(rig_exec(&b, 0), 0);
	assert_int_equal(rig_status(&b, 0), 1);
	assert_int_equal(b.pdst[0], 0x1000);
	rig_down(&a);
	rig_down(&b);
	nvl_device_close(dev);
}

/* destroyed while hung or while its recovery runs: every fence signals
 * with an error, nothing leaks, a new channel works */
static void hang_destroy(void **state)
{
	struct nvl_device *dev = rig_open_dev(0);
	struct rig a;
	int st;

	(void)state;
	rig_up(dev, &a);
	rig_hang(&a);
	assert_int_equal(rig_exec(&a, 0), 0);
	assert_int_equal(rig_exec(&a, 1), 0);
	wait_hung(dev);
	assert_int_equal(nvl_channel_destroy(a.c, a.chan), 0);
	st = rig_status(&a, 0);
	assert_true(st == -ETIMEDOUT || st == -ECANCELED);
	st = rig_status(&a, 1);
	/* cancelled, or run again by a recovery that came first */
	assert_true(st == -ECANCELED || st == 1);
	/* the engine is reset (the recovery's or the next hang's) and a
	 * new channel runs */
	assert_int_equal(
		nvl_channel_create(a.c, a.vm, NVL_ENGINE_COPY, 0, &a.chan), 0);
	rig_hang(&a); /* its recovery resets the engine */
	assert_int_equal(rig_exec(&a, 2), 0);
	assert_int_equal(rig_status(&a, 2), -ETIMEDOUT);
	assert_int_equal(rig_exec(&a, 3), 0);
	assert_int_equal(rig_status(&a, 3), 1);
	assert_int_equal(a.pdst[3], 0x1003);
	rig_down(&a);
	nvl_device_close(dev);
}

/* the firmware cannot reset it (every allocation fails while the
 * recovery runs: its RPC cannot be sent): the channel is killed,
 * NVL_CHANNEL_JOB_TIMEOUT, guilty -ETIMEDOUT, the rest -ECANCELED */
static void hang_alloc_fail(void **state)
{
	struct nvl_device *dev = rig_open_dev(600000); /* no heartbeat RPC */
	struct nvl_channel_info ci;
	int64_t dl;
	struct rig a;

	(void)state;
	rig_up(dev, &a);
	rig_hang(&a);
	assert_int_equal(rig_exec(&a, 0), 0);
	assert_int_equal(rig_exec(&a, 1), 0);
	wait_hung(dev);
	nvl_fault_fail_random(1.0, 1, NVL_FAULT_ALL_THREADS);
	dl = rig_now_ns() + 20000000000ll;
	for (;;) {
		assert_int_equal(nvl_channel_query(a.c, a.chan, &ci), 0);
		if (!ci.alive || rig_now_ns() > dl)
			break;
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	}
	nvl_fault_off();
	assert_int_equal(ci.alive, 0);
	assert_int_equal(ci.error, -ETIMEDOUT);
	assert_int_equal(ci.reason, NVL_CHANNEL_JOB_TIMEOUT);
	assert_int_equal(rig_status(&a, 0), -ETIMEDOUT);
	assert_int_equal(rig_status(&a, 1), -ECANCELED);
	assert_int_equal(rig_exec(&a, 2), -ENODEV);
	rig_down(&a);
	nvl_device_close(dev);
}

/* the firmware dies while a channel is hung (no heartbeat: the recovery's
 * RESET_CHANNEL is what finds it dead): the recovery's RPC times out, the
 * device is lost, every fence of both clients signals with an error and
 * nothing waits forever; nvl_device_reset() boots again, the engine the
 * hang held runs a new client's work */
static void hang_gsp_death(void **state)
{
	struct nvl_device *dev = rig_open_dev(600000); /* no heartbeat RPC */
	struct nvl_channel_info ci;
	struct rig a, b, c;
	int st;

	(void)state;
	rig_up(dev, &a);
	rig_up(dev, &b);
	rig_hang(&a);
	assert_int_equal(rig_exec(&a, 0), 0);
	assert_int_equal(rig_exec(&a, 1), 0);
	assert_int_equal(rig_exec(&b, 0), 0); /* behind the hang */
	wait_hung(dev);
	nvl_model_gsp_inject(dev->model, NVL_MODEL_GSP_HANG, 1, 0);
	/* the guilty job: timed out by its recovery, or failed by the loss */
	st = rig_status(&a, 0);
	assert_true(st == -ETIMEDOUT || st == -ENODEV);
	st = rig_status(&a, 1);
	assert_true(st == -ECANCELED || st == -ENODEV);
	/* the other client's job never ran on the hung engine */
	st = rig_status(&b, 0);
	assert_true(st == -ENODEV || st == 1);
	assert_int_equal(nvl_device_status(dev), -ENODEV);
	assert_int_equal(nvl_channel_query(a.c, a.chan, &ci), 0);
	assert_int_equal(ci.alive, 0);
	assert_int_equal(rig_exec(&a, 2), -ENODEV);
	assert_int_equal(rig_exec(&b, 1), -ENODEV);

	/* reset: boots again; a new client's work runs on the same engine */
	assert_int_equal(nvl_device_reset(dev), 0);
	assert_int_equal(nvl_device_status(dev), 0);
	rig_up(dev, &c);
	assert_int_equal(rig_exec(&c, 0), 0);
	assert_int_equal(rig_status(&c, 0), 1);
	assert_int_equal(c.pdst[0], 0x1000);
	rig_down(&a);
	rig_down(&b);
	rig_down(&c);
	nvl_device_close(dev);
}

/*
 * A channel reuses its finished jobs (and their hardware fences) and the
 * scheduler its fence pairs: every job still runs its own pushes and
 * signals its own fence, and an armed allocation failure still fails an
 * exec whose job would come from the cache, changing nothing.
 */
static void job_reuse(void **state)
{
	struct nvl_device *dev = rig_open_dev(0);
	struct rig a;
	int i, st = 0;

	(void)state;
	rig_up(dev, &a);
	for (i = 0; i < 64; i++) {
		assert_int_equal(rig_exec_on(&a, i, i % NSYNC), 0);
		/* a few in flight at once, the rest one by one */
		if (i % 4 == 3)
			for (int s = 0; s < NSYNC; s++)
				if (s <= i)
					assert_int_equal(rig_status(&a, s), 1);
	}
	for (int s = 0; s < NSYNC; s++)
		assert_int_equal(rig_status(&a, s), 1);
	for (i = 0; i < 64; i++)
		assert_int_equal(a.pdst[i], 0x1000 + i);
	/* the cache is warm: the next exec's first allocation fails */
	nvl_fault_fail_nth(1, NVL_FAULT_THIS_THREAD);
	assert_int_equal(rig_exec_on(&a, 64, 0), -ENOMEM);
	assert_int_equal(nvl_fault_hits(), 1);
	nvl_fault_off();
	assert_int_equal(nvl_syncobj_status(a.c, a.sync[0], 0, &st), 0);
	assert_int_equal(st, 1); /* still job 56's */
	assert_int_equal(a.pdst[64], 0);
	assert_int_equal(rig_exec_on(&a, 65, 0), 0);
	assert_int_equal(rig_status(&a, 0), 1);
	assert_int_equal(a.pdst[65], 0x1000 + 65);
	assert_int_equal(a.pdst[64], 0);
	rig_down(&a);
	nvl_device_close(dev);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hang_recover),
		cmocka_unit_test(hang_ban),
		cmocka_unit_test(hang_destroy),
		cmocka_unit_test(hang_alloc_fail),
		cmocka_unit_test(hang_gsp_death),
		cmocka_unit_test(job_reuse),
	};

	return t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
}

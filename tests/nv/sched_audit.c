// SPDX-License-Identifier: MIT
/*
 * TEST: nv_sched_audit
 * Description: a channel's queued jobs behind another client's hung job
 * (a dependency that signals only when the hang times out) when the
 * channel, or the whole client, is destroyed meanwhile: the destroy
 * returns, the jobs never run, every fence signals with an error (at once
 * for a destroyed channel, exec.h) and nothing leaks (ASan). Helpers as
 * in hang.c. Also: a job whose cross-client dependency failed runs and
 * ends without error (as drm_sched: no dependency error is forwarded); a
 * job fence outlives its device. All passed when written; under load the
 * first failed (-ESRCH, 4 runs in 40 at load ~18): the destroy's
 * scheduler fini flushed the killed entity for up to 1 s, racing with A's
 * 1 s job timeout (fixed in src/sched/entity.c, session 20).
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <nouvelle/nouvelle.h>

#include "base/alloc.h"
#include "core/device.h"
#include "hw/regs.h"
#include "kit.h"
#include "model/gsp/gsp.h"
#include "model/model.h"
#include "rig.h"
#include "t.h"

/* job @i of @k waits for @wait (a syncobj of @k's client) and signals
 * sync[@i] */
static int rig_exec_wait(struct rig *k, int i, uint32_t wait)
{
	uint32_t *p = k->ppb + i * SEG / 4;
	uint32_t n = nvl_kit_pb_release(p, VA_DST + 4 * i, 0x1000 + i);
	struct nvl_exec_push push = {.va = VA_PB + i * SEG, .len = n * 4};
	struct nvl_vm_sync w = {.handle = wait};
	struct nvl_vm_sync sig = {.handle = k->sync[i]};

	return nvl_exec(k->c, k->chan, &push, 1, &w, 1, &sig, 1, 0);
}

/* @b's sync[@s] gets @a's sync[@i] fence through a sync file */
static void share(struct rig *a, int i, struct rig *b, int s)
{
	int fd;

	assert_int_equal(nvl_syncobj_export_sync_file(a->c, a->sync[i], 0, &fd),
			 0);
	assert_int_equal(nvl_syncobj_import_sync_file(b->c, b->sync[s], 0, fd),
			 0);
	close(fd);
}

/*
 * Clients @a and @b of @dev: @a's job 0 hangs its engine, @b's job 0 waits
 * for it (through @b's syncobj 7, shared from @a's sync[0]).
 */
static void behind_hung(struct nvl_device *dev, struct rig *a, struct rig *b)
{
	rig_up(dev, a);
	rig_up(dev, b);
	rig_hang(a);
	assert_int_equal(rig_exec(a, 0), 0);
	share(a, 0, b, 7);
	assert_int_equal(rig_exec_wait(b, 0, b->sync[7]), 0);
}

/*
 * The scenario needs B's channel (or client) gone while A's job still
 * hangs: A's job timeout (1 s, rig.c) must not end it first. On a machine
 * too loaded to set the scenario up within that second (CI at load 16-20)
 * an attempt proves nothing and is made again, on a new device; the checks
 * are made on the first attempt where A's job was still pending after the
 * destroy, hence throughout it (a fence signals once). Whether the timeout
 * fired first is read from A's fence, never guessed from a clock.
 */
#define ATTEMPTS 5

/* A's hung job has not ended (else the attempt is void: a message) */
static bool still_hung(struct rig *a)
{
	int st;

	assert_int_equal(nvl_syncobj_status(a->c, a->sync[0], 0, &st), 0);
	if (st)
		print_message("# A's hang ended (%d) before B was destroyed: "
			      "the machine is slow, again\n",
			      st);
	return !st;
}

/*
 * Client B's jobs queue behind a dependency on client A's hung job; B's
 * channel is destroyed meanwhile. The destroy returns, B's jobs never run
 * and their fences carry -ECANCELED at once.
 */
static void channel_destroyed_behind_a_hung_dependency(void **state)
{
	struct nvl_device *dev;
	struct rig a, b;
	int st, n;

	(void)state;
	for (n = 0; n < ATTEMPTS; n++) {
		dev = rig_open_dev(0);
		behind_hung(dev, &a, &b);
		assert_int_equal(rig_exec(&b, 1), 0);
		assert_int_equal(nvl_channel_destroy(b.c, b.chan), 0);
		if (still_hung(&a))
			break;
		rig_down(&b);
		rig_down(&a);
		nvl_device_close(dev);
	}
	if (n == ATTEMPTS)
		fail_msg("A's hang ended before B's destroy %d times", n);
	/* exec.h: the pending jobs' fences signal with -ECANCELED, at once */
	for (int i = 0; i < 2; i++) {
		assert_int_equal(nvl_syncobj_status(b.c, b.sync[i], 0, &st), 0);
		assert_int_equal(st, -ECANCELED);
	}
	assert_int_equal(rig_status(&a, 0), -ETIMEDOUT);
	assert_int_equal(b.pdst[0], 0);
	assert_int_equal(b.pdst[1], 0);
	rig_down(&b);
	rig_down(&a);
	nvl_device_close(dev);
}

/* The same with client B destroyed whole while its jobs wait. */
static void client_destroyed_behind_a_hung_dependency(void **state)
{
	struct nvl_device *dev;
	struct rig a, b;
	int fd, st, n;
	uint32_t h;

	(void)state;
	for (n = 0; n < ATTEMPTS; n++) {
		dev = rig_open_dev(0);
		behind_hung(dev, &a, &b);
		assert_int_equal(rig_exec(&b, 1), 0);
		/* A keeps B's last fence, as a compositor would */
		assert_int_equal(
			nvl_syncobj_export_sync_file(b.c, b.sync[1], 0, &fd),
			0);
		rig_down(&b);
		if (still_hung(&a))
			break;
		close(fd);
		rig_down(&a);
		nvl_device_close(dev);
	}
	if (n == ATTEMPTS)
		fail_msg("A's hang ended before B's destroy %d times", n);
	assert_int_equal(rig_status(&a, 0), -ETIMEDOUT);
	assert_int_equal(nvl_syncobj_create(a.c, 0, &h), 0);
	assert_int_equal(nvl_syncobj_import_sync_file(a.c, h, 0, fd), 0);
	close(fd);
	assert_int_equal(nvl_syncobj_wait(a.c, &h, NULL, 1,
					  rig_now_ns() + 20000000000ll, 0,
					  NULL),
			 0);
	assert_int_equal(nvl_syncobj_status(a.c, h, 0, &st), 0);
	assert_true(st < 0);
	rig_down(&a);
	nvl_device_close(dev);
}

/*
 * A job's fence outlives its device: exported as a sync file, the client
 * and the device closed (pending work first, then done work), the fence
 * imported into another device's client, waited on, queried, released.
 */
static void fence_outlives_its_device(void **state)
{
	struct nvl_device *dev = rig_open_dev(0), *dev2 = rig_open_dev(0);
	struct rig a, b;
	int fd[2], st;
	uint32_t h[2];

	(void)state;
	rig_up(dev, &a);
	rig_up(dev2, &b);
	assert_int_equal(rig_exec(&a, 0), 0);
	assert_int_equal(rig_status(&a, 0), 1);
	rig_hang(&a);
	assert_int_equal(rig_exec(&a, 1), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(
			nvl_syncobj_export_sync_file(a.c, a.sync[i], 0, &fd[i]),
			0);
	rig_down(&a);
	nvl_device_close(dev);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(nvl_syncobj_create(b.c, 0, &h[i]), 0);
		assert_int_equal(
			nvl_syncobj_import_sync_file(b.c, h[i], 0, fd[i]), 0);
		close(fd[i]);
		assert_int_equal(nvl_syncobj_wait(b.c, &h[i], NULL, 1,
						  rig_now_ns() + 20000000000ll,
						  0, NULL),
				 0);
		assert_int_equal(nvl_syncobj_status(b.c, h[i], 0, &st), 0);
		assert_int_equal(st, i ? -ECANCELED : 1);
	}
	/* B's own job may wait for the dead device's fences */
	assert_int_equal(rig_exec_wait(&b, 0, h[1]), 0);
	assert_int_equal(rig_status(&b, 0), 1);
	assert_int_equal(b.pdst[0], 0x1000);
	rig_down(&b);
	nvl_device_close(dev2);
}

/*
 * A job whose dependency ended with an error still runs, and its own fence
 * carries no error: drm_sched forwards neither (only a killed entity's
 * jobs get -ESRCH; the driver decides what a failed dependency means).
 * Checked again in session 19 against the current upstream scheduler
 * (sched_entity.c of the 2026 tree): popping a job still only waits for
 * its dependencies; a dependency's error only stops the same-scheduler
 * shortcut (wait for its finished fence, not its scheduled one), a guilty
 * entity's jobs get -ECANCELED (and still reach run_job), killed ones
 * -ESRCH. Nothing forwards a dependency's error, so neither do we.
 */
static void dependency_error_is_not_forwarded(void **state)
{
	struct nvl_device *dev = rig_open_dev(0);
	struct rig a, b;

	(void)state;
	behind_hung(dev, &a, &b);
	assert_int_equal(rig_status(&a, 0), -ETIMEDOUT);
	assert_int_equal(rig_status(&b, 0), 1);
	assert_int_equal(b.pdst[0], 0x1000);
	rig_down(&b);
	rig_down(&a);
	nvl_device_close(dev);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(channel_destroyed_behind_a_hung_dependency),
	cmocka_unit_test(client_destroyed_behind_a_hung_dependency),
	cmocka_unit_test(fence_outlives_its_device),
	cmocka_unit_test(dependency_error_is_not_forwarded),
};

T_MAIN(tests)

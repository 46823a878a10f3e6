// SPDX-License-Identifier: MIT
/*
 * TEST: session 18's review of the channel-recovery paths against a
 * hostile client and a forged firmware (docs/faults.md "Job timeouts and
 * recovery", "The path").
 *
 * timeout_deferral_bounded: a job timeout that finds a hang declared on
 * the device less than a timeout ago gives the job one more period (it
 * most likely waited behind that hang). Hangs of other clients' channels
 * (a hostile client makes fresh clients, each under the ban of
 * NVL_NV_HANG_BAN hangs, whose jobs hang) must not defer a hung job for
 * ever. Declarations defer each other too, so a real stream of them comes
 * about one timeout plus the scheduler's slack apart, and keeps a victim
 * waiting as long as its phase stays locked to the victim's checks: long
 * (at the default 5 s timeout, hours for a slack difference of a
 * millisecond), but not something a test can reproduce on time. The test
 * makes the condition itself: a thread stamps the device's last
 * declaration (struct nvl_nv_device.hang_ns) every quarter timeout, as a
 * perfectly locked stream would; the victim's hung job must still end
 * -ETIMEDOUT within a few timeouts.
 *
 * forged_fault_entry_rejected: RM copies whole (VALID), PTIMER-stamped
 * fault entries into the driver's shadow queue (clc369.h
 * NVC369_BUF_ENTRY_VALID, TIMESTAMP). A forged firmware
 * (NVL_MODEL_GSP_FORGE_FAULT) turns a real fault's copy into one naming
 * another client's channel, with VALID clear or with TIMESTAMP 0 (which
 * used to skip the check that keeps a dead predecessor's entry off a
 * channel reusing its instance block): the driver refuses it and counts
 * it (nvl_fault_stats.rejected), the named channel lives and runs work,
 * the faulting channel still dies of its fault through RM's RC_TRIGGERED
 * (Xid 31, with no VA: its entry was not one).
 *
 * The hung job is a Host semaphore acquire (clc36f.h SEM_EXECUTE
 * ACQ_CIRC_GEQ) of a value nothing releases: the channel parks on it
 * (CHRAM ACQUIRE_PENDING), which the driver counts as a hang.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include <nouvelle/nouvelle.h>

#include "base/compiler.h"
#include "base/time.h"
#include "core/device.h"
#include "kit.h"
#include "model/gsp/gsp.h"
#include "model/model.h"
#include "nv/device.h"
#include "rig.h"
#include "t.h"

#define TIMEOUT_MS 250

static struct nvl_device *open_dev(void)
{
	struct nvl_device_opts o = {.job_timeout_ms = TIMEOUT_MS};
	struct nvl_device *dev;

	assert_int_equal(nvl_device_open("model:tiny", &o, &dev), 0);
	return dev;
}

/* job 0 of @k: an acquire of 1 at dst + 0x800 (0, never released) */
static void exec_acquire_hang(struct rig *k)
{
	uint32_t n = nvl_kit_pb_acquire(k->ppb, VA_DST + 0x800, 1);
	struct nvl_exec_push push = {.va = VA_PB, .len = n * 4};
	struct nvl_vm_sync sig = {.handle = k->sync[0]};

	assert_int_equal(nvl_exec(k->c, k->chan, &push, 1, NULL, 0, &sig, 1, 0),
			 0);
}

/* sync[0]'s status now: 0 pending, 1 done, or its error */
static int status_now(struct rig *k)
{
	int st = 0;

	if (nvl_syncobj_wait(k->c, &k->sync[0], NULL, 1, 0, 0, NULL))
		return 0;
	assert_int_equal(nvl_syncobj_status(k->c, k->sync[0], 0, &st), 0);
	return st;
}

static void sleep_ms(int64_t ms)
{
	nanosleep(&(struct timespec){ms / 1000, ms % 1000 * 1000000}, NULL);
}

struct stamper {
	struct nvl_nv_device *nv;
	_Atomic bool stop;
};

static void *stamp_fn(void *arg)
{
	struct stamper *st = arg;

	while (!atomic_load(&st->stop)) {
		atomic_store(&st->nv->hang_ns, nvl_time_ns());
		sleep_ms(TIMEOUT_MS / 4);
	}
	return NULL;
}

static void timeout_deferral_bounded(void **state)
{
	struct nvl_device *dev = open_dev();
	struct stamper st = {.nv = dev->nv};
	struct rig v;
	pthread_t th;
	int64_t t0, ended = 0;
	int s = 0;

	(void)state;
	rig_up(dev, &v);
	assert_int_equal(pthread_create(&th, NULL, stamp_fn, &st), 0);
	exec_acquire_hang(&v);
	t0 = rig_now_ns();
	/* 12 timeouts at most */
	for (int i = 0; i < 48 && !s; i++) {
		sleep_ms(TIMEOUT_MS / 4);
		s = status_now(&v);
		ended = rig_now_ns() - t0;
	}
	atomic_store(&st.stop, true);
	pthread_join(th, NULL);
	if (!s)
		fail_msg("the hung job still pending after %lld ms of other "
			 "channels' hangs",
			 (long long)(ended / 1000000));
	assert_int_equal(s, -ETIMEDOUT);
	/* the period it timed out in and one more, with slack for a loaded
	 * machine */
	if (ended > 5ll * TIMEOUT_MS * 1000000)
		fail_msg("ended after %lld ms", (long long)(ended / 1000000));
	rig_down(&v);
	nvl_device_close(dev);
}

/* @b's channel named by the forged copy of @a's fault (a release to an
 * unmapped VA), with @forge's bits */
static void forged_case(struct nvl_device *dev, uint64_t forge,
			uint64_t rejected)
{
	struct nvl_channel_info ia, ib;
	struct nvl_fault_stats fs;
	struct rig a, b;
	uint32_t n;

	rig_up(dev, &a);
	rig_up(dev, &b);
	assert_int_equal(nvl_channel_query(b.c, b.chan, &ib), 0);
	nvl_model_gsp_inject(dev->model, NVL_MODEL_GSP_FORGE_FAULT, 1,
			     forge | ib.chid);
	n = nvl_kit_pb_release(a.ppb, 256 * MIB, 1);
	{
		struct nvl_exec_push push = {.va = VA_PB, .len = n * 4};
		struct nvl_vm_sync sig = {.handle = a.sync[0]};

		assert_int_equal(
			nvl_exec(a.c, a.chan, &push, 1, NULL, 0, &sig, 1, 0),
			0);
	}
	assert_int_equal(rig_status(&a, 0), -EFAULT);
	assert_int_equal(nvl_channel_query(a.c, a.chan, &ia), 0);
	assert_int_equal(ia.alive, 0);
	assert_int_equal(ia.reason, NVL_CHANNEL_MMU_FAULT);
	assert_int_equal(ia.hw_error, 31);
	assert_int_equal(ia.fault_va, 0);
	assert_int_equal(nvl_device_fault_stats(dev, &fs), 0);
	assert_int_equal(fs.rejected, rejected);
	/* the channel the forgery named was not touched */
	assert_int_equal(nvl_channel_query(b.c, b.chan, &ib), 0);
	assert_int_equal(ib.alive, 1);
	assert_int_equal(rig_exec(&b, 1), 0);
	assert_int_equal(rig_status(&b, 1), 1);
	assert_int_equal(b.pdst[1], 0x1001);
	rig_down(&a);
	rig_down(&b);
}

static void forged_fault_entry_rejected(void **state)
{
	struct nvl_device *dev = open_dev();

	(void)state;
	forged_case(dev, NVL_MODEL_GSP_FORGE_NO_VALID, 1);
	forged_case(dev, NVL_MODEL_GSP_FORGE_NO_TIMESTAMP, 2);
	nvl_device_close(dev);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(timeout_deferral_bounded),
		cmocka_unit_test(forged_fault_entry_rejected),
	};

	return t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
}

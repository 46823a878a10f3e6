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

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(timeout_deferral_bounded),
	};

	return t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
}

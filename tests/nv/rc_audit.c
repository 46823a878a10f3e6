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
 * makes the condition itself: a thread stamps the last declaration
 * (struct nvl_nv_device.hang_ns, per engine since session 21) every
 * quarter timeout, as a perfectly locked stream would; the victim's hung
 * job must still end -ETIMEDOUT within a few timeouts: parked on an
 * acquire with every engine's stamp fresh (one more period, once), and
 * holding copy engine 0 with every other engine's stamp fresh (none:
 * another engine's hang is not one it waited behind). Since session 21
 * only a channel holding its engine when declared stamps it
 * (only_engine_holders_declare), and a job found on its engine is
 * deferred by each such fresh declaration on that engine, without a cap
 * (deferral_per_declaration_on_the_engine, below).
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

#include "base/client.h"
#include "base/compiler.h"
#include "base/time.h"
#include "core/device.h"
#include "hw/regs.h"
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
	uint32_t skip; /* a runlist left alone, or ~0u */
	_Atomic bool stop;
};

static void *stamp_fn(void *arg)
{
	struct stamper *st = arg;

	while (!atomic_load(&st->stop)) {
		for (uint32_t r = 0; r < NVL_NV_HANG_RUNLISTS; r++)
			if (r != st->skip)
				atomic_store(&st->nv->hang_ns[r],
					     nvl_time_ns());
		sleep_ms(TIMEOUT_MS / 4);
	}
	return NULL;
}

/*
 * The victim's job is parked on an acquire (not on the engine) and every
 * engine's declarations are fresh, its own included: one more period, once
 * (@hung false); or it holds copy engine 0 (the model's ENGINE_HANG) and
 * every other engine's declarations are fresh: none (@hung true). Either
 * way it ends -ETIMEDOUT within a few timeouts.
 */
static void deferral_bounded_case(struct nvl_device *dev, bool hung)
{
	struct stamper st = {.nv = dev->nv, .skip = hung ? 0 : ~0u};
	struct rig v;
	pthread_t th;
	int64_t t0, ended = 0;
	int s = 0;

	rig_up(dev, &v);
	assert_int_equal(pthread_create(&th, NULL, stamp_fn, &st), 0);
	if (hung) {
		rig_hang(&v);
		assert_int_equal(rig_exec(&v, 0), 0);
	} else {
		exec_acquire_hang(&v);
	}
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
}

static void timeout_deferral_bounded(void **state)
{
	struct nvl_device *dev = open_dev();

	(void)state;
	deferral_bounded_case(dev, false);
	deferral_bounded_case(dev, true);
	nvl_device_close(dev);
}

/*
 * Only a declaration of a channel that held the engine is kept: a job
 * parked on an acquire (CHRAM ACQUIRE_PENDING, off the engine) declared
 * hung leaves no stamp; one holding copy engine 0 leaves copy engine 0's,
 * and no other engine's.
 */
static void only_engine_holders_declare(void **state)
{
	struct nvl_device *dev = open_dev();
	struct nvl_nv_device *nv = dev->nv;
	struct rig p, h;

	(void)state;
	rig_up(dev, &p);
	exec_acquire_hang(&p);
	assert_int_equal(rig_status(&p, 0), -ETIMEDOUT);
	for (uint32_t r = 0; r < NVL_NV_HANG_RUNLISTS; r++)
		assert_int_equal(atomic_load(&nv->hang_ns[r]), 0);
	rig_up(dev, &h);
	rig_hang(&h);
	assert_int_equal(rig_exec(&h, 0), 0);
	assert_int_equal(rig_status(&h, 0), -ETIMEDOUT);
	assert_true(atomic_load(&nv->hang_ns[0]) > 0);
	for (uint32_t r = 1; r < NVL_NV_HANG_RUNLISTS; r++)
		assert_int_equal(atomic_load(&nv->hang_ns[r]), 0);
	rig_down(&h);
	rig_down(&p);
	nvl_device_close(dev);
}

/*
 * deferral_per_declaration_on_the_engine (session 21, docs/faults.md
 * "Precisely"): a job found on its engine at its check, when a channel
 * that held that engine was declared hung less than a timeout ago, has had
 * the engine only since that channel's reset, less than a timeout: it is
 * not hung, however many such declarations it met (session 19's edge: a
 * second one right before its next check made it -ETIMEDOUT, a hang
 * counted against its client). The victim's job really holds copy engine
 * 0 (the model's ENGINE_HANG, ENGINE_STATUS CHID its channel's) and the
 * declarations of the channels it waited behind are made as the driver
 * records them (struct nvl_nv_device), one every tenth of a timeout, for
 * six timeouts: it must be pending throughout, then end -ETIMEDOUT within
 * two timeouts of the last one, its client charged one hang.
 */
#define EDGE_TIMEOUT_MS 500

struct edge_stamper {
	struct nvl_nv_device *nv;
	unsigned runlist;
	_Atomic bool stop;
};

static void *edge_stamp_fn(void *arg)
{
	struct edge_stamper *st = arg;

	while (!atomic_load(&st->stop)) {
		atomic_store(&st->nv->hang_ns[st->runlist], nvl_time_ns());
		sleep_ms(EDGE_TIMEOUT_MS / 10);
	}
	return NULL;
}

static void deferral_per_declaration_on_the_engine(void **state)
{
	struct nvl_device_opts o = {.job_timeout_ms = EDGE_TIMEOUT_MS};
	struct edge_stamper st = {.runlist = 0};
	struct nvl_channel_info ci;
	struct nvl_device *dev;
	struct nvl_hw *hw;
	struct rig v;
	pthread_t th;
	int64_t t0, dl;
	uint32_t es = 0;
	int s = 0;

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", &o, &dev), 0);
	hw = nvl_model_hw(dev->model);
	st.nv = dev->nv;
	rig_up(dev, &v);
	assert_int_equal(nvl_channel_query(v.c, v.chan, &ci), 0);
	rig_hang(&v);
	assert_int_equal(rig_exec(&v, 0), 0);
	dl = rig_now_ns() + 20000000000ll;
	do {
		es = nvl_hw_rd32(hw, NVL_HW_ENGINE_STATUS(0));
	} while (!(es & NVL_HW_ENGINE_STATUS_HUNG) && rig_now_ns() < dl &&
		 !nanosleep(&(struct timespec){0, 1000000}, NULL));
	assert_true(es & NVL_HW_ENGINE_STATUS_HUNG);
	assert_true(es & NVL_HW_ENGINE_STATUS_CHID_VALID);
	assert_int_equal(es >> NVL_HW_ENGINE_STATUS_CHID_SHIFT & 0xfff,
			 ci.chid);
	assert_int_equal(pthread_create(&th, NULL, edge_stamp_fn, &st), 0);
	t0 = rig_now_ns();
	while (!s && rig_now_ns() - t0 < 6ll * EDGE_TIMEOUT_MS * 1000000) {
		sleep_ms(EDGE_TIMEOUT_MS / 10);
		s = status_now(&v);
	}
	atomic_store(&st.stop, true);
	pthread_join(th, NULL);
	if (s)
		fail_msg("the job ended (%d) after %lld ms, behind fresh "
			 "declarations on its engine",
			 s, (long long)((rig_now_ns() - t0) / 1000000));
	t0 = rig_now_ns();
	while (!s && rig_now_ns() - t0 < 20000000000ll) {
		sleep_ms(EDGE_TIMEOUT_MS / 10);
		s = status_now(&v);
	}
	assert_int_equal(s, -ETIMEDOUT);
	if (rig_now_ns() - t0 > 4ll * EDGE_TIMEOUT_MS * 1000000)
		fail_msg("ended %lld ms after the last declaration",
			 (long long)((rig_now_ns() - t0) / 1000000));
	assert_int_equal(atomic_load(&v.c->hangs), 1);
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
		cmocka_unit_test(deferral_per_declaration_on_the_engine),
		cmocka_unit_test(only_engine_holders_declare),
		cmocka_unit_test(forged_fault_entry_rejected),
	};

	return t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
}

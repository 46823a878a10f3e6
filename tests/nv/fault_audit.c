// SPDX-License-Identifier: MIT
/*
 * TEST: adversarial review of the MMU fault and robust-channel path
 * (issue 16, docs/faults.md; session 17's review "faults").
 *
 * CLEAR_FAULTED (Host method 0x84, clc46f.h/clc56f.h: HANDLE 30:0, TYPE
 * 31:31 PBDMA_FAULTED 0 / ENG_FAULTED 1) lets a faulted channel retry. Its
 * HANDLE is an RM-provided token (UVM's uvm_user_channel_t
 * clear_faulted_token, from UvmGpuChannelInstanceInfo.clearFaultedToken)
 * that only the kernel's fault service pushes, on its own channel (Ampere+
 * even clears through RM's software class C076 CLEAR_FAULTED_A/B or the
 * CHRAM register instead). A user channel must not un-fault a channel: not
 * another client's, nor its own client's one the driver already killed.
 * The model's Host honours the method on privileged channels only (RAMFC
 * CONFIG AUTH_LEVEL, as the physical copy modes); from a user channel it
 * is a METHOD error (Xid 32) and nothing is cleared.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <nouvelle/nouvelle.h>

#include "core/device.h"
#include "firmware/abi/535.113.01/gsp.h"
#include "gsp/gsp.h"
#include "hw/host.h"
#include "hw/regs.h"
#include "model/gsp/gsp.h"
#include "model/model.h"
#include "nv/chan.h"
#include "nv/device.h"

#include "hold.h"
#include "kit.h"
#include "t.h"
#include "t_nv.h"

#define VA_PB (48 * T_NV_MIB)
#define VA_DST (32 * T_NV_MIB)
#define VA_HOLE (80 * T_NV_MIB) /* bound only once the fault is in */
#define GATE 0xf00 /* in the dst BO: a job waits for the CPU to write 1 */
#define WAIT_NS (5 * T_NV_SEC)

static void sleep_ms(long ms)
{
	nanosleep(&(struct timespec){ms / 1000, (ms % 1000) * 1000000}, NULL);
}

/* exec the @ndw dwords at byte @off of @k's pushbuffer on @chan,
 * signalling @sync */
static void exec_sig(struct t_nv_cl *k, uint32_t chan, uint32_t off,
		     uint32_t ndw, uint32_t sync)
{
	struct nvl_exec_push p = {.va = k->pb_va + off, .len = ndw * 4};
	struct nvl_vm_sync s = {.handle = sync};

	assert_int_equal(nvl_exec(k->c, chan, &p, 1, NULL, 0, &s, 1, 0), 0);
}

static int sync_status(struct t_nv_cl *k, uint32_t sync)
{
	int st = 0;

	assert_int_equal(nvl_syncobj_wait(k->c, &sync, NULL, 1,
					  t_nv_deadline(WAIT_NS), 0, NULL),
			 0);
	assert_int_equal(nvl_syncobj_status(k->c, sync, 0, &st), 0);
	return st;
}

/* @k's push at byte @off: CLEAR_FAULTED of ENG_FAULTED with @chid/@rl */
static uint32_t pb_clear_faulted(struct t_nv_cl *k, uint32_t off, uint32_t chid,
				 uint32_t rl)
{
	uint32_t *p = k->ppb + off / 4;

	p[0] = NVL_HW_MTHD_INC(0, NVL_HW_CLEAR_FAULTED, 1);
	p[1] = NVL_HW_CLEAR_FAULTED_HANDLE(chid, rl) | NVL_HW_CLEAR_FAULTED_ENG;
	return 2;
}

/*
 * Client B names client A's faulted channel in CLEAR_FAULTED. RM is held
 * (the model's GSP hung) so that A's channel stays faulted in the
 * hardware, and A binds the hole it faulted on: with the method honoured,
 * A's channel would retry and run its next job while RM never saw it. It
 * must stay faulted; B's channel dies of a METHOD error; once RM runs, A
 * dies of its MMU fault as if B had done nothing.
 */
static void clear_faulted_other_client(void **state)
{
	struct nvl_device_opts o = {.heartbeat_ms = 3600 * 1000};
	struct nvl_device *dev;
	struct nvl_channel_info ci;
	struct t_nv_cl a, b;
	struct nvl_hw *hw;
	uint32_t *dst, *hole, dst_h, hole_h, achid, arl, bchid, brl;
	uint32_t n1, n2, nb, s1, s2;
	int64_t dl;

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", &o, &dev), 0);
	hw = nvl_model_hw(dev->model);
	t_nv_cl_up(&a, dev, VA_PB, 0);
	t_nv_cl_up(&b, dev, VA_PB, 0);
	dst_h = t_nv_cl_bo(&a, 64 * T_NV_KIB, NVL_BO_DOMAIN_VRAM, VA_DST,
			   (void **)&dst);
	assert_int_equal(nvl_syncobj_create(a.c, 0, &s1), 0);
	assert_int_equal(nvl_syncobj_create(a.c, 0, &s2), 0);
	assert_int_equal(nvl_nv_chan_hw_ids(a.c, a.chan, &achid, &arl), 0);
	assert_int_equal(nvl_nv_chan_hw_ids(b.c, b.chan, &bchid, &brl), 0);
	assert_int_equal(arl, brl); /* one copy engine's runlist */
	/* A: job 1 fills a page of the hole, job 2 a page of its BO */
	n1 = nvl_kit_pb_memset(a.ppb, a.info.ce_class, VA_HOLE, 0x11, 4096);
	n2 = nvl_kit_pb_memset(a.ppb + 256, a.info.ce_class, VA_DST, 0x22,
			       4096);
	nb = pb_clear_faulted(&b, 0, achid, arl);

	nvl_model_gsp_inject(dev->model, NVL_MODEL_GSP_HANG, 0, 0);
	exec_sig(&a, a.chan, 0, n1, s1);
	exec_sig(&a, a.chan, 1024, n2, s2);
	dl = t_nv_deadline(WAIT_NS);
	while (!(nvl_hw_rd32(hw, NVL_HW_CHRAM_CTRL(achid)) &
		 NVL_HW_CHRAM_CTRL_ENG_FAULTED))
		assert_true(t_nv_now() < dl);
	/* A mends its VM; only a cleared fault would let the copy retry */
	hole_h = t_nv_cl_bo(&a, 64 * T_NV_KIB, NVL_BO_DOMAIN_VRAM, VA_HOLE,
			    (void **)&hole);
	exec_sig(&b, b.chan, 0, nb, b.sync);
	dl = t_nv_deadline(2 * T_NV_SEC);
	while (!nvl_hw_rd32(hw, NVL_HW_CHRAM_ERROR(bchid)) &&
	       __atomic_load_n(&dst[0], __ATOMIC_ACQUIRE) != 0x22 &&
	       t_nv_now() < dl)
		sleep_ms(1);
	sleep_ms(20); /* a retry the clear started would be done by now */
	assert_int_equal(__atomic_load_n(&dst[0], __ATOMIC_ACQUIRE), 0);
	assert_int_equal(__atomic_load_n(&hole[0], __ATOMIC_ACQUIRE), 0);
	assert_true(nvl_hw_rd32(hw, NVL_HW_CHRAM_CTRL(achid)) &
		    NVL_HW_CHRAM_CTRL_ENG_FAULTED);
	assert_int_equal(nvl_hw_rd32(hw, NVL_HW_CHRAM_ERROR(bchid)),
			 NVL_HW_CHERR_METHOD);

	/* RM goes on: A dies of its fault, B of its bad method */
	nvl_model_gsp_clear_faults(dev->model);
	assert_int_equal(sync_status(&a, s1), -EFAULT);
	assert_int_equal(sync_status(&a, s2), -ECANCELED);
	assert_int_equal(nvl_channel_query(a.c, a.chan, &ci), 0);
	assert_int_equal(ci.alive, 0);
	assert_int_equal(ci.reason, NVL_CHANNEL_MMU_FAULT);
	assert_int_equal(ci.fault_va, VA_HOLE);
	assert_int_equal(sync_status(&b, b.sync), -EIO);
	dl = t_nv_deadline(WAIT_NS);
	do {
		assert_int_equal(nvl_channel_query(b.c, b.chan, &ci), 0);
		if (!ci.alive)
			break;
		sleep_ms(1);
	} while (t_nv_now() < dl);
	assert_int_equal(ci.alive, 0);
	assert_int_equal(ci.reason, NVL_CHANNEL_PUSHBUFFER);
	assert_int_equal(ci.hw_error, 32); /* Xid: PBDMA_ERROR */
	assert_int_equal(dst[0], 0);
	assert_int_equal(nvl_bo_unmap(a.c, dst_h), 0);
	assert_int_equal(nvl_bo_unmap(a.c, hole_h), 0);
	t_nv_cl_down(&a);
	t_nv_cl_down(&b);
	nvl_device_close(dev);
}

/*
 * The same through a client's own second channel, with RM running: the
 * driver killed the faulted channel at its fault entry (its next job
 * -ECANCELED) and RM tears it down only at its next wake-up. A clear in
 * between would let the killed channel run that cancelled job after all.
 */
static void clear_faulted_own_killed_channel(void **state)
{
	struct nvl_device *dev;
	struct nvl_channel_info ci;
	struct t_nv_cl a;
	uint32_t *dst, *hole, dst_h, hole_h, chid, rl, chid2, rl2, chan2;
	uint32_t n0, n1, n2, nb, s0, s1;

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", NULL, &dev), 0);
	t_nv_cl_up(&a, dev, VA_PB, 0);
	dst_h = t_nv_cl_bo(&a, 64 * T_NV_KIB, NVL_BO_DOMAIN_VRAM, VA_DST,
			   (void **)&dst);
	assert_int_equal(
		nvl_channel_create(a.c, a.vm, NVL_ENGINE_COPY, 0, &chan2), 0);
	assert_int_equal(nvl_syncobj_create(a.c, 0, &s0), 0);
	assert_int_equal(nvl_syncobj_create(a.c, 0, &s1), 0);
	assert_int_equal(nvl_nv_chan_hw_ids(a.c, a.chan, &chid, &rl), 0);
	assert_int_equal(nvl_nv_chan_hw_ids(a.c, chan2, &chid2, &rl2), 0);
	assert_int_equal(rl, rl2);
	/* job 0: wait for the CPU's gate, then fill a page of the hole;
	 * job 1 (queued behind it meanwhile): fill a page of the BO */
	n0 = nvl_kit_pb_acquire(a.ppb, VA_DST + GATE, 1);
	n1 = nvl_kit_pb_memset(a.ppb + n0, a.info.ce_class, VA_HOLE, 0x11,
			       4096);
	n2 = nvl_kit_pb_memset(a.ppb + 256, a.info.ce_class, VA_DST, 0x22,
			       4096);
	nb = pb_clear_faulted(&a, 2048, chid, rl);
	exec_sig(&a, a.chan, 0, n0 + n1, s0);
	exec_sig(&a, a.chan, 1024, n2, s1);
	__atomic_store_n(&dst[GATE / 4], 1, __ATOMIC_RELEASE);
	assert_int_equal(sync_status(&a, s0), -EFAULT);
	assert_int_equal(sync_status(&a, s1), -ECANCELED);
	/* the client mends its VM and clears the fault from its other
	 * channel */
	hole_h = t_nv_cl_bo(&a, 64 * T_NV_KIB, NVL_BO_DOMAIN_VRAM, VA_HOLE,
			    (void **)&hole);
	exec_sig(&a, chan2, 2048, nb, a.sync);
	assert_int_equal(sync_status(&a, a.sync), -EIO);
	sleep_ms(20); /* a retry the clear started would be done by now */
	/* the cancelled job never ran */
	assert_int_equal(__atomic_load_n(&dst[0], __ATOMIC_ACQUIRE), 0);
	assert_int_equal(__atomic_load_n(&hole[0], __ATOMIC_ACQUIRE), 0);
	assert_int_equal(nvl_channel_query(a.c, a.chan, &ci), 0);
	assert_int_equal(ci.alive, 0);
	assert_int_equal(ci.reason, NVL_CHANNEL_MMU_FAULT);
	assert_int_equal(nvl_bo_unmap(a.c, dst_h), 0);
	assert_int_equal(nvl_bo_unmap(a.c, hole_h), 0);
	t_nv_cl_down(&a);
	nvl_device_close(dev);
}

static void post_event(struct nvl_device *dev)
{
	int64_t dl = t_nv_deadline(WAIT_NS);

	/* RM's own backlog may be full for a moment: it is not lossy */
	while (nvl_model_gsp_event_post(dev->model, 0, 0, 0) == -ENOSPC)
		assert_true(t_nv_now() < dl);
}

/*
 * RM tore a channel down (a bad method: Xid 32, no fault entry) but its
 * RC_TRIGGERED never reached the driver: the driver's bounded event queue
 * was full (held event thread, a storm of other events), which drops and
 * counts what does not fit (an allocation failure of the event's copy
 * drops it the same way). Nothing else would ever complete the channel's
 * jobs: the job timeout's "is the engine on it?" test said "not hung"
 * forever. The timeout must still end the job with an error and leave the
 * channel dead, not a waiter blocked for good.
 */
static void lost_rc_event_job_still_ends(void **state)
{
	struct hold h = HOLD_INIT;
	struct nvl_device_opts o = {.job_timeout_ms = 1000};
	struct nvl_device *dev;
	struct nvl_channel_info ci;
	struct nvl_gsp_stats gs;
	struct nvl_model_gsp_stats ms;
	struct nvl_gsp *gsp;
	struct t_nv_cl a;
	uint64_t dropped, rc0;
	int64_t dl;
	int st = 0;

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", &o, &dev), 0);
	gsp = dev->nv->gsp;
	t_nv_cl_up(&a, dev, VA_PB, 0);
	hold_event_thread(dev, gsp, &h, post_event);
	/* fill the driver's event queue behind the held handler, then let
	 * RM's backlog of them drain (dropped) until nothing moves */
	dl = t_nv_deadline(WAIT_NS);
	do {
		post_event(dev);
		nvl_gsp_get_stats(gsp, &gs);
		assert_true(t_nv_now() < dl);
	} while (!gs.events_dropped);
	do {
		dropped = gs.events_dropped;
		sleep_ms(50);
		nvl_gsp_get_stats(gsp, &gs);
		assert_true(t_nv_now() < dl);
	} while (gs.events_dropped != dropped);
	nvl_model_gsp_get_stats(dev->model, &ms);
	rc0 = ms.rc_recoveries;
	/* an illegal method (ILLEGAL, 0x04): Xid 32; its OS_ERROR_LOG and
	 * RC_TRIGGERED find the queue full */
	a.ppb[0] = NVL_HW_MTHD_INC(0, 0x04, 1);
	a.ppb[1] = 0;
	assert_int_equal(t_nv_cl_exec(&a, a.chan, 0, 2), 0);
	/* RM sent both (rc_recoveries counts after them), and they reached
	 * the full queue: dropped */
	dl = t_nv_deadline(WAIT_NS);
	do {
		nvl_model_gsp_get_stats(dev->model, &ms);
		assert_true(t_nv_now() < dl);
	} while (ms.rc_recoveries < rc0 + 1);
	do {
		nvl_gsp_get_stats(gsp, &gs);
		assert_true(t_nv_now() < dl);
	} while (gs.events_dropped < dropped + 2);
	hold_release(&h);
	assert_int_equal(nvl_gsp_event_flush(gsp, WAIT_NS), 0);
	/* the job ends (job timeout 1 s), with an error */
	assert_int_equal(nvl_syncobj_wait(a.c, &a.sync, NULL, 1,
					  t_nv_deadline(8 * T_NV_SEC), 0, NULL),
			 0);
	assert_int_equal(nvl_syncobj_status(a.c, a.sync, 0, &st), 0);
	assert_true(st < 0);
	assert_int_equal(nvl_channel_query(a.c, a.chan, &ci), 0);
	assert_int_equal(ci.alive, 0);
	assert_int_equal(nvl_gsp_event_register(
				 gsp, NV_VGPU_MSG_EVENT_POST_EVENT, NULL, NULL),
			 0);
	t_nv_cl_down(&a);
	nvl_device_close(dev);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(clear_faulted_other_client),
		cmocka_unit_test(clear_faulted_own_killed_channel),
		cmocka_unit_test(lost_rc_event_job_still_ends),
	};

	return t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
}

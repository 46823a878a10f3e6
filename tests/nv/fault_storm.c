// SPDX-License-Identifier: MIT
/*
 * TEST: a fault storm that overflows RM's fault buffer (issue 16). Every
 * channel of the tiny chip (64) faults while the model's firmware is
 * stalled, so its 64-entry hardware buffer fills: 63 entries are recorded
 * (PUT + 1 == GET is full, dev_vm MMU_FAULT_BUFFER_GET OVERFLOW) and the
 * 64th is dropped. When the firmware runs again it copies the 63 entries,
 * clears and counts the overflow; the driver kills the 63 channels from
 * their entries and the last one from its RC_TRIGGERED (Xid 31) alone,
 * with no VA. Nothing hangs, the counters say what happened, and the
 * client can make a new channel and run work.
 *
 * And the engine-reset class of RC: the model's injected engine hang
 * (ENGINE_HANG) on a channel, then an engine reset (PMC_ENGINE_RESET, as
 * RM's recovery writes it): RM reports Xid 43 and the driver kills that
 * channel (-EIO for the hung job, -ECANCELED behind it); a channel of
 * another client on the same engine runs once the engine is back.
 *
 * The only tests here past the public headers: they reach the model
 * (core/device.h) to stall its firmware, read the fault buffer's PUT and
 * hang an engine, the one way to make these happen deterministically.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include <nouvelle/nouvelle.h>

#include "core/device.h"
#include "hw/regs.h"
#include "kit.h"
#include "model/gsp/gsp.h"
#include "model/model.h"
#include "model/model_regs.h"
#include "t.h"

#define KIB (1ull << 10)
#define MIB (1ull << 20)
#define VA_DST (32 * MIB)
#define VA_PB (48 * MIB)
#define VA_HOLE (80 * MIB)
#define KSTART (1ull << 39)
#define KRANGE (16 * MIB)
#define NCHAN 64

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void storm_overflow(void **state)
{
	struct nvl_vm_create_args va = {.start = 1 * MIB,
					.end = 1ull << 40,
					.kernel_start = KSTART,
					.kernel_range = KRANGE};
	struct nvl_vm_bind_op op = {
		.op = NVL_VM_BIND_OP_MAP, .addr = VA_PB, .range = 64 * KIB};
	/* the firmware is stalled on purpose while the buffer fills: no
	 * heartbeat may declare it dead meanwhile (a slow run under TSan) */
	struct nvl_device_opts oo = {.heartbeat_ms = 3600 * 1000};
	struct nvl_device *dev;
	struct nvl_device_info in;
	struct nvl_fault_stats st;
	struct nvl_client *c;
	struct nvl_hw *hw;
	uint32_t vm, pb, chan[NCHAN], sync, len, nova = 0;
	uint32_t *ppb;
	int64_t dl;

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", &oo, &dev), 0);
	assert_int_equal(nvl_device_query(dev, &in), 0);
	assert_int_equal(in.num_channels, NCHAN);
	hw = nvl_model_hw(dev->model);
	assert_int_equal(nvl_device_client_create(dev, &c), 0);
	assert_int_equal(nvl_vm_create(c, &va, &vm), 0);
	assert_int_equal(nvl_bo_create(c, 64 * KIB, NVL_BO_DOMAIN_VRAM, 0,
				       NVL_BO_CPU_VISIBLE, &pb),
			 0);
	assert_int_equal(nvl_bo_map(c, pb, (void **)&ppb), 0);
	op.handle = pb;
	assert_int_equal(nvl_vm_bind(c, vm, 0, &op, 1, NULL, 0, NULL, 0, 0), 0);
	assert_int_equal(nvl_syncobj_create(c, 0, &sync), 0);
	for (int i = 0; i < NCHAN; i++)
		assert_int_equal(
			nvl_channel_create(c, vm, NVL_ENGINE_COPY, 0, &chan[i]),
			0);
	/* each channel writes a page of the hole: 64 faults */
	len = 0;
	for (int i = 0; i < NCHAN; i++)
		len = nvl_kit_pb_memset(ppb + i * 32, in.ce_class,
					VA_HOLE + (uint64_t)i * 4096, 1, 64) *
		      4;
	nvl_model_gsp_inject(dev->model, NVL_MODEL_GSP_HANG, 0, 0);
	for (int i = 0; i < NCHAN; i++) {
		struct nvl_exec_push p = {.va = VA_PB + i * 128, .len = len};

		assert_int_equal(
			nvl_exec(c, chan[i], &p, 1, NULL, 0, NULL, 0, 0), 0);
	}
	/* the buffer fills: 63 recorded, then OVERFLOW */
	dl = now_ns() + 60000000000ll;
	while (!(nvl_hw_rd32(hw, NVL_HW_FAULT_BUF_GET(0)) &
		 NVL_HW_FAULT_BUF_GET_OVERFLOW) &&
	       now_ns() < dl)
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	assert_int_equal(nvl_hw_rd32(hw, NVL_HW_FAULT_BUF_PUT(0)) &
				 NVL_HW_FAULT_BUF_PTR_MASK,
			 NCHAN - 1);
	nvl_model_gsp_clear_faults(dev->model);
	/* every channel dies; one of them from its RC event alone */
	dl = now_ns() + 60000000000ll;
	for (int i = 0; i < NCHAN; i++) {
		struct nvl_channel_info ci;

		for (;;) {
			assert_int_equal(nvl_channel_query(c, chan[i], &ci), 0);
			if (!ci.alive || now_ns() > dl)
				break;
			nanosleep(&(struct timespec){0, 1000000}, NULL);
		}
		assert_int_equal(ci.alive, 0);
		assert_int_equal(ci.error, -EFAULT);
		assert_int_equal(ci.reason, NVL_CHANNEL_MMU_FAULT);
		if (!ci.fault_va)
			nova++;
		else
			assert_int_equal(ci.fault_type, 0x0); /* PDE */
	}
	assert_int_equal(nova, 1);
	/* each fault-killed channel's RC_TRIGGERED may still be on its way
	 * (the entry killed it first): wait for all of them */
	dl = now_ns() + 60000000000ll;
	do {
		assert_int_equal(nvl_device_fault_stats(dev, &st), 0);
		if (st.rc_events >= NCHAN)
			break;
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	} while (now_ns() < dl);
	assert_int_equal(st.faults, NCHAN - 1);
	assert_int_equal(st.overflows, 1);
	assert_int_equal(st.killed, NCHAN);
	assert_true(st.rc_events >= NCHAN);
	/* recovered: a new channel runs work and faults are recorded again */
	for (int i = 0; i < NCHAN; i++)
		assert_int_equal(nvl_channel_destroy(c, chan[i]), 0);
	assert_int_equal(
		nvl_channel_create(c, vm, NVL_ENGINE_COPY, 0, &chan[0]), 0);
	{
		struct nvl_exec_push p = {.va = VA_PB, .len = len};
		struct nvl_vm_sync s = {.handle = sync};
		int status = 0;

		assert_int_equal(nvl_exec(c, chan[0], &p, 1, NULL, 0, &s, 1, 0),
				 0);
		assert_int_equal(nvl_syncobj_wait(c, &sync, NULL, 1,
						  now_ns() + 5000000000ll, 0,
						  NULL),
				 0);
		assert_int_equal(nvl_syncobj_status(c, sync, 0, &status), 0);
		assert_int_equal(status, -EFAULT);
	}
	assert_int_equal(nvl_device_fault_stats(dev, &st), 0);
	assert_int_equal(st.faults, NCHAN);
	assert_int_equal(nvl_bo_unmap(c, pb), 0);
	nvl_client_destroy(c);
	nvl_device_close(dev);
}

struct rig {
	struct nvl_client *c;
	uint32_t vm, pb, chan, sync[2];
	uint32_t *ppb;
};

static void rig_up(struct nvl_device *dev, struct rig *k)
{
	struct nvl_vm_create_args va = {.start = 1 * MIB,
					.end = 1ull << 40,
					.kernel_start = KSTART,
					.kernel_range = KRANGE};
	struct nvl_vm_bind_op op = {
		.op = NVL_VM_BIND_OP_MAP, .addr = VA_PB, .range = 64 * KIB};

	assert_int_equal(nvl_device_client_create(dev, &k->c), 0);
	assert_int_equal(nvl_vm_create(k->c, &va, &k->vm), 0);
	assert_int_equal(nvl_bo_create(k->c, 64 * KIB, NVL_BO_DOMAIN_VRAM, 0,
				       NVL_BO_CPU_VISIBLE, &k->pb),
			 0);
	assert_int_equal(nvl_bo_map(k->c, k->pb, (void **)&k->ppb), 0);
	op.handle = k->pb;
	assert_int_equal(
		nvl_vm_bind(k->c, k->vm, 0, &op, 1, NULL, 0, NULL, 0, 0), 0);
	assert_int_equal(
		nvl_channel_create(k->c, k->vm, NVL_ENGINE_COPY, 0, &k->chan),
		0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(nvl_syncobj_create(k->c, 0, &k->sync[i]), 0);
	k->ppb[0] = 0; /* a NOP header */
}

static void rig_exec(struct rig *k, int s)
{
	struct nvl_exec_push p = {.va = VA_PB, .len = 4};
	struct nvl_vm_sync sig = {.handle = k->sync[s]};

	assert_int_equal(nvl_exec(k->c, k->chan, &p, 1, NULL, 0, &sig, 1, 0),
			 0);
}

static int rig_status(struct rig *k, int s)
{
	int st = 0;

	assert_int_equal(nvl_syncobj_wait(k->c, &k->sync[s], NULL, 1,
					  now_ns() + 5000000000ll, 0, NULL),
			 0);
	assert_int_equal(nvl_syncobj_status(k->c, k->sync[s], 0, &st), 0);
	return st;
}

static void rc_engine_reset(void **state)
{
	struct nvl_device *dev;
	struct nvl_channel_info ci;
	struct nvl_hw *hw;
	struct rig a, b;
	int64_t dl;

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", NULL, &dev), 0);
	hw = nvl_model_hw(dev->model);
	rig_up(dev, &a);
	rig_up(dev, &b);
	assert_int_equal(nvl_channel_query(a.c, a.chan, &ci), 0);
	/* copy engine 0 hangs as soon as it picks up a's channel */
	nvl_hw_wr32(hw, NVL_MODEL_REG_ENGINE_HANG(0), ci.chid + 1);
	rig_exec(&a, 0);
	rig_exec(&a, 1);
	dl = now_ns() + 5000000000ll;
	while (!(nvl_hw_rd32(hw, NVL_HW_ENGINE_STATUS(0)) &
		 NVL_HW_ENGINE_STATUS_HUNG) &&
	       now_ns() < dl)
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	assert_true(nvl_hw_rd32(hw, NVL_HW_ENGINE_STATUS(0)) &
		    NVL_HW_ENGINE_STATUS_HUNG);
	/* b's work on the same engine waits behind the hang */
	rig_exec(&b, 0);
	/* the engine reset RM's recovery does */
	nvl_hw_wr32(hw, NVL_HW_PMC_ENGINE_RESET, 1u << 0);
	assert_int_equal(rig_status(&a, 0), -EIO);
	assert_int_equal(rig_status(&a, 1), -ECANCELED);
	assert_int_equal(nvl_channel_query(a.c, a.chan, &ci), 0);
	assert_int_equal(ci.alive, 0);
	assert_int_equal(ci.error, -EIO);
	assert_int_equal(ci.hw_error, 43); /* RESETCHANNEL_VERIF_ERROR */
	assert_int_equal(ci.reason, NVL_CHANNEL_ENGINE_RESET);
	/* the other client's job ran once the engine was back */
	assert_int_equal(rig_status(&b, 0), 1);
	assert_int_equal(nvl_channel_query(b.c, b.chan, &ci), 0);
	assert_int_equal(ci.alive, 1);
	assert_int_equal(nvl_bo_unmap(a.c, a.pb), 0);
	assert_int_equal(nvl_bo_unmap(b.c, b.pb), 0);
	nvl_client_destroy(a.c);
	nvl_client_destroy(b.c);
	nvl_device_close(dev);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(storm_overflow),
		cmocka_unit_test(rc_engine_reset),
	};

	return t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
}

// SPDX-License-Identifier: MIT
/*
 * TEST: nv_reset_audit
 * Description: an adversarial look at a GSP that dies, the device reset
 * (include/nouvelle/device.h nvl_device_reset()), sensor subscriptions
 * around a close, and a firmware that lies in its replies. Each test
 * names the promise it checks; the GSP's death is the model's fault
 * injection (NVL_MODEL_GSP_HANG), the lies a model-only reply hook
 * (nvl_model_gsp_set_reply_hook()). Runs the default firmware only: the
 * lies are written in 535.113.01's layouts.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include <nouvelle/nouvelle.h>

#include "base/alloc.h"
#include "firmware/abi/535.113.01/gsp.h"
#include "core/device.h"
#include "hw/falcon.h"
#include "hw/regs.h"
#include "kit.h"
#include "model/gsp/gsp.h"
#include "model/model.h"
#include "model/pmu.h"
#include "base/client.h"
#include "vm/vm.h"
#include "nv/device.h"
#include "nv/vm.h"
#include "rig.h"
#include "subs.h"
#include "t.h"

/* a "model:tiny" device whose heartbeat finds a dead GSP in 20 ms */
static struct nvl_device *open_dev(uint32_t flags)
{
	struct nvl_device_opts o = {.heartbeat_ms = 20, .flags = flags};
	struct nvl_device *dev;

	assert_int_equal(nvl_device_open("model:tiny", &o, &dev), 0);
	return dev;
}

/* a new client's copy job runs and its fence signals without error */
static void new_client_works(struct nvl_device *dev)
{
	struct rig k;

	rig_up(dev, &k);
	assert_int_equal(rig_exec(&k, 0), 0);
	assert_int_equal(rig_status(&k, 0), 1);
	assert_int_equal(k.pdst[0], 0x1000);
	rig_down(&k);
}

/* ---- a reset that fails part way ------------------------------------- */

struct rf {
	struct nvl_device *dev;
	unsigned failed;
};

static int op_reset(void *arg)
{
	return nvl_device_reset(((struct rf *)arg)->dev);
}

/* device.h: a reset that fails leaves the device lost (and a later reset
 * may be tried): never "alive" with half of the driver missing */
static void check_reset(int ret, void *arg)
{
	struct rf *a = arg;

	const char *msg = nvl_last_error();
	const char *first = strstr(msg, "reset");

	a->failed++;
	assert_true(ret < 0);
	/* the message is this failure's, not one left by an earlier call */
	assert_non_null(first);
	if (strstr(first + 1, "device: reset"))
		fail_msg("reset %u: a stale message: %s", a->failed, msg);
	assert_int_equal(nvl_device_status(a->dev), -ENODEV);
}

/*
 * Every allocation of nvl_device_reset() fails in turn: each failed reset
 * returns an error and the device stays lost; the reset that finally
 * succeeds gives a device on which a new client's job completes.
 */
static void reset_alloc_failures(void **state)
{
	struct rf a = {0};

	(void)state;
	a.dev = open_dev(0);
	rig_lose(a.dev);
	assert_true(t_fail_each_alloc(op_reset, check_reset, &a, 5000) > 0);
	assert_true(a.failed > 0);
	assert_int_equal(nvl_device_status(a.dev), 0);
	new_client_works(a.dev);
	nvl_device_close(a.dev);
}

/* ---- sensor subscriptions and a close --------------------------------- */

/*
 * device.h: after nvl_device_close() the caller may not use @dev, so it
 * cannot unsubscribe any more; a client still alive keeps the device. The
 * close ends the subscriptions: no callback runs once it returns (the
 * callback's argument may be gone with the caller's state).
 */
static void close_ends_subscriptions(void **state)
{
	struct nvl_device_sensor_sub *sub;
	struct nvl_device *dev;
	struct nvl_model *m;
	atomic_int n = 0;
	struct rig k;

	(void)state;
	assert_int_equal(nvl_device_open("model:tu102", NULL, &dev), 0);
	m = dev->model;
	rig_up(dev, &k);
	assert_int_equal(nvl_device_sensors_subscribe(dev,
						      NVL_SENSOR_EVENT_THERMAL,
						      count_event, &n, &sub),
			 0);
	nvl_model_pmu_sim_advance(m, 0);
	room(m, 95000);
	assert_int_equal(events_reach(&n, 1), 1);
	room(m, 25000);
	events_reach(&n, 2);
	assert_int_equal(atomic_load(&n), 1);
	/* closed with k's client alive: the device stays for it */
	nvl_device_close(dev);
	room(m, 95000);
	assert_int_equal(events_reach(&n, 2), 1);
	/* the client still works */
	assert_int_equal(rig_exec(&k, 0), 0);
	assert_int_equal(rig_status(&k, 0), 1);
	rig_down(&k);
}

/* ---- a firmware that lies --------------------------------------------- */

/* one field of a reply, overwritten by the model's firmware (its size) */
struct lie {
	uint32_t function;
	size_t off, size;
	uint64_t value;
	atomic_int told;
};

static void lie_hook(void *arg, uint32_t function, uint8_t *reply, size_t len)
{
	struct lie *l = arg;

	if (function != l->function || l->off + l->size > len)
		return;
	memcpy(reply + l->off, &l->value, l->size);
	atomic_fetch_add(&l->told, 1);
}

#define SI(f)                                                                  \
	offsetof(GspStaticConfigInfo, f), sizeof(((GspStaticConfigInfo *)0)->f)

/*
 * GET_GSP_STATIC_INFO is checked before the driver uses it (the reset
 * boots and asks it again): a VRAM size of 0 or 2^63 (above what the FB
 * range register says), no copy engine or more than a device reports
 * (NVL_DEVICE_MAX_CE, the compute runlist after them), no channel or more
 * than a 12-bit id holds. Each fails the reset (the device stays lost);
 * the truth then boots, with the same figures as before.
 */
static void static_info_lies(void **state)
{
	static const struct {
		size_t off, size;
		uint64_t value;
	} lies[] = {
		{SI(fbLength), 0},
		{SI(fbLength), 1ull << 63},
		{SI(numCopyEngines), 0},
		{SI(numCopyEngines), NVL_DEVICE_MAX_CE + 1},
		{SI(numCopyEngines), 1000000},
		{SI(numChannels), 0},
		{SI(numChannels), 1u << 20},
		{SI(hInternalSubdevice), 0},
	};
	struct nvl_device_info in0, in;
	struct nvl_device_memory mem;
	struct nvl_device *dev;

	(void)state;
	dev = open_dev(0);
	assert_int_equal(nvl_device_query(dev, &in0), 0);
	for (size_t i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
		struct lie l = {
			.function = NV_VGPU_MSG_FUNCTION_GET_GSP_STATIC_INFO,
			.off = lies[i].off,
			.size = lies[i].size,
			.value = lies[i].value};
		int ret;

		rig_lose(dev);
		nvl_model_gsp_set_reply_hook(dev->model, lie_hook, &l);
		ret = nvl_device_reset(dev);
		nvl_model_gsp_set_reply_hook(dev->model, NULL, NULL);
		assert_int_equal(atomic_load(&l.told), 1);
		if (ret != -EPROTO) {
			assert_int_equal(nvl_device_query(dev, &in), 0);
			assert_int_equal(nvl_device_memory(dev, &mem), 0);
			fail_msg(
				"lie %zu (at %zu: %#llx): reset %d, vram %#llx "
				"(reserved %#llx), %u copy engines, %u "
				"channels",
				i, lies[i].off,
				(unsigned long long)lies[i].value, ret,
				(unsigned long long)in.vram_size,
				(unsigned long long)mem.vram_reserved,
				in.num_ce, in.num_channels);
		}
		assert_int_equal(nvl_device_status(dev), -ENODEV);
		assert_int_equal(nvl_device_reset(dev), 0);
		assert_int_equal(nvl_device_query(dev, &in), 0);
		assert_int_equal(in.vram_size, in0.vram_size);
		assert_int_equal(in.num_ce, in0.num_ce);
		assert_int_equal(in.num_channels, in0.num_channels);
	}
	new_client_works(dev);
	nvl_device_close(dev);
}

/*
 * device.h: nvl_device_opts.vram_size is checked before the model powers
 * on. 300 MiB is a multiple of 1 MiB in range, but the FB range register
 * (6 bits of magnitude, a power-of-two scale) cannot say it: the driver
 * lays WPR2 out at 296 MiB and the booter, which knows 300, refused the
 * boot ("booter rejected the WPR meta"). Such a size is a bad option;
 * one the register can say (37 << 4 = 592 MiB) boots.
 */
static void vram_size_the_register_cannot_say(void **state)
{
	struct nvl_device_opts o = {.vram_size = 300ull << 20};
	struct nvl_device_info in;
	struct nvl_device *dev = NULL;

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", &o, &dev), -EINVAL);
	assert_null(strstr(nvl_last_error(), "booter"));
	assert_non_null(strstr(nvl_last_error(), "VRAM size"));
	o.vram_size = 592ull << 20;
	assert_int_equal(nvl_device_open("model:tiny", &o, &dev), 0);
	assert_int_equal(nvl_device_query(dev, &in), 0);
	assert_int_equal(in.vram_size, 592ull << 20);
	nvl_device_close(dev);
}

/* ---- reclocking across a reset and a suspend ------------------------- */

static void rd(struct nvl_device *dev, struct nvl_sensors *s)
{
	assert_int_equal(nvl_device_sensors(dev, s), 0);
}

/* the power limit at @mw and the graphics clock capped at @gr */
static void assert_reclocked(struct nvl_device *dev, uint32_t mw, uint32_t gr)
{
	struct nvl_sensors s;

	rd(dev, &s);
	assert_int_equal(s.power_limit_mw, mw);
	assert_int_equal(s.clk_gr_mhz, gr);
	assert_true(s.throttle & NVL_THROTTLE_APP_CLOCKS);
}

/*
 * docs/sensors.md: what a client with the right set (a power limit,
 * application clocks) stays in force across a suspend and resume (the
 * firmware resumes its saved state) and across a device reset (the
 * board keeps it; the new firmware reports it), until set again: a
 * client reading the sensors after either sees what is enforced.
 */
static void reclock_across(void **state)
{
	struct nvl_sensors s0, s;
	struct nvl_device *dev;
	struct nvl_client *c;

	(void)state;
	dev = open_dev(NVL_DEVICE_OPEN_ADMIN);
	assert_int_equal(
		nvl_device_client_create2(dev, NVL_CLIENT_DEVICE_STATE, &c), 0);
	rd(dev, &s0);
	assert_true(s0.power_min_mw < s0.power_limit_mw);
	assert_int_equal(nvl_device_set_power_limit(c, s0.power_min_mw), 0);
	assert_int_equal(nvl_device_set_app_clocks(c, s0.clk_gr_max_mhz / 2, 0),
			 0);
	assert_reclocked(dev, s0.power_min_mw, s0.clk_gr_max_mhz / 2);
	assert_int_equal(nvl_device_suspend(dev), 0);
	assert_int_equal(nvl_device_resume(dev), 0);
	assert_reclocked(dev, s0.power_min_mw, s0.clk_gr_max_mhz / 2);
	rig_lose(dev);
	assert_int_equal(nvl_device_reset(dev), 0);
	assert_reclocked(dev, s0.power_min_mw, s0.clk_gr_max_mhz / 2);
	/* set again: the defaults */
	assert_int_equal(nvl_device_set_power_limit(c, s0.power_limit_mw), 0);
	assert_int_equal(nvl_device_set_app_clocks(c, 0, 0), 0);
	rd(dev, &s);
	assert_int_equal(s.power_limit_mw, s0.power_limit_mw);
	assert_int_equal(s.clk_gr_mhz, s0.clk_gr_mhz);
	nvl_client_destroy(c);
	nvl_device_close(dev);
}

/* ---- RM handles of the dead firmware ---------------------------------- */

/* the RM VA-space handle of @k's VM */
static uint32_t h_vas(struct rig *k)
{
	struct nvl_vm *vm = nvl_vm_lookup(k->c, k->vm);
	uint32_t h = nvl_nv_vm_of(vm)->h_vas;

	nvl_vm_put(vm);
	return h;
}

/*
 * device.h: objects made before a reset stay dead (VMs refuse binds). A
 * VM's RM VA space went with the old firmware, and the new firmware
 * numbers its objects afresh: the handle the old VM kept may now name
 * another client's VA space (the driver's RM client holds every client's
 * VA spaces). A channel made on the old VM after the reset must be
 * refused, not allocated on whatever VA space that handle names now
 * (it was: on b's), and a bind refused (it was done).
 */
static void old_vm_after_reset(void **state)
{
	struct nvl_vm_create_args va = {.start = 1 * MIB,
					.end = 1ull << 40,
					.kernel_start = KSTART,
					.kernel_range = KRANGE};
	struct nvl_client *c;
	struct nvl_device *dev;
	struct rig a, b;
	uint32_t vm, h;

	(void)state;
	dev = open_dev(0);
	rig_up(dev, &a);
	rig_lose(dev);
	assert_int_equal(nvl_device_reset(dev), 0);
	/* the new firmware's objects: c's VA space, then b's (its VM's
	 * handle is the one a's VM kept) */
	assert_int_equal(nvl_device_client_create(dev, &c), 0);
	assert_int_equal(nvl_vm_create(c, &va, &vm), 0);
	rig_up(dev, &b);
	assert_int_equal(h_vas(&b), h_vas(&a));
	assert_int_equal(nvl_channel_create(a.c, a.vm, NVL_ENGINE_COPY, 0, &h),
			 -ENODEV);
	{
		struct nvl_vm_bind_op op = {.op = NVL_VM_BIND_OP_MAP,
					    .handle = a.dst,
					    .addr = 128 * MIB,
					    .range = 64 * KIB};

		/* device.h: its VM refuses binds */
		assert_int_equal(
			nvl_vm_bind(a.c, a.vm, 0, &op, 1, NULL, 0, NULL, 0, 0),
			-ENODEV);
	}
	/* b is not touched: its job runs */
	assert_int_equal(rig_exec(&b, 0), 0);
	assert_int_equal(rig_status(&b, 0), 1);
	rig_down(&b);
	nvl_client_destroy(c);
	rig_down(&a);
	nvl_device_close(dev);
}

/* a channel allocation's reply names channel id @cid */
struct cid_lie {
	uint32_t host_class, cid;
	atomic_int told;
};

static void cid_hook(void *arg, uint32_t function, uint8_t *reply, size_t len)
{
	struct cid_lie *l = arg;
	size_t at = sizeof(rpc_gsp_rm_alloc_v03_00) +
		    offsetof(NV_CHANNEL_ALLOC_PARAMS, cid);
	uint32_t cls;

	if (function != NV_VGPU_MSG_FUNCTION_GSP_RM_ALLOC || at + 4 > len)
		return;
	memcpy(&cls, reply + offsetof(rpc_gsp_rm_alloc_v03_00, hClass), 4);
	if (cls != l->host_class)
		return;
	memcpy(reply + at, &l->cid, 4);
	atomic_fetch_add(&l->told, 1);
}

/*
 * The channel id RM picks is the index of the channel's CHRAM registers
 * (NVL_HW_CHRAM_CTRL(chid), written when the device is lost or the
 * channel killed) and is matched against ENGINE_STATUS's 12 bits: one at
 * or past the chip's channel count would make the driver write registers
 * elsewhere. Such a reply fails the channel's creation (-EPROTO, nothing
 * left); the truth then works.
 */
static void channel_id_lies(void **state)
{
	struct nvl_vm_create_args va = {.start = 1 * MIB,
					.end = 1ull << 40,
					.kernel_start = KSTART,
					.kernel_range = KRANGE};
	static const uint32_t cids[] = {0, 0x7fffffff, 0xffffffff};
	struct nvl_device_info in;
	struct nvl_device *dev;
	struct nvl_client *c;
	uint32_t vm, h;

	(void)state;
	dev = open_dev(0);
	assert_int_equal(nvl_device_query(dev, &in), 0);
	assert_int_equal(nvl_device_client_create(dev, &c), 0);
	assert_int_equal(nvl_vm_create(c, &va, &vm), 0);
	for (size_t i = 0; i < sizeof(cids) / sizeof(cids[0]); i++) {
		struct cid_lie l = {.host_class = in.host_class,
				    .cid = i ? cids[i] : in.num_channels};

		nvl_model_gsp_set_reply_hook(dev->model, cid_hook, &l);
		assert_int_equal(
			nvl_channel_create(c, vm, NVL_ENGINE_COPY, 0, &h),
			-EPROTO);
		nvl_model_gsp_set_reply_hook(dev->model, NULL, NULL);
		assert_int_equal(atomic_load(&l.told), 1);
	}
	nvl_client_destroy(c);
	new_client_works(dev);
	assert_int_equal(nvl_device_status(dev), 0);
	nvl_device_close(dev);
}

/*
 * device.h: any number of sensor subscribers on each device. The GSP
 * layer kept its one subscription per GSP in a process-wide table of 16,
 * so the 17th device's first subscription failed (-ENOSPC, "too many
 * GSPs"), which device.h does not list.
 */
#define NDEV 17

static void subscribers_on_many_devices(void **state)
{
	struct nvl_device_sensor_sub *sub[NDEV];
	struct nvl_device *dev[NDEV];
	atomic_int n = 0;

	(void)state;
	for (int i = 0; i < NDEV; i++) {
		assert_int_equal(nvl_device_open("model:tiny", NULL, &dev[i]),
				 0);
		if (nvl_device_sensors_subscribe(dev[i],
						 NVL_SENSOR_EVENT_THERMAL,
						 count_event, &n, &sub[i]))
			fail_msg("device %d: %s", i, nvl_last_error());
	}
	for (int i = 0; i < NDEV; i++) {
		nvl_device_sensors_unsubscribe(dev[i], sub[i]);
		nvl_device_close(dev[i]);
	}
}

static int reject_all(const void *img, size_t size, const void *sig,
		      size_t sig_size)
{
	(void)img;
	(void)size;
	(void)sig;
	(void)sig_size;
	return -EKEYREJECTED;
}

/*
 * A reset whose boot fails (the booter refuses the image) leaves a lost
 * device with no GSP at all: every call answers -ENODEV without touching
 * it, an old client's objects go, and the device closes without a second
 * reset (ASan: nothing leaks).
 */
static void failed_reset_then_close(void **state)
{
	struct nvl_device_sensor_sub *sub;
	struct nvl_sensors s;
	struct nvl_client *c;
	struct nvl_device *dev;
	atomic_int n = 0;
	char buf[512];
	struct rig a;

	(void)state;
	dev = open_dev(0);
	rig_up(dev, &a);
	assert_int_equal(nvl_device_sensors_subscribe(dev,
						      NVL_SENSOR_EVENT_THERMAL,
						      count_event, &n, &sub),
			 0);
	rig_lose(dev);
	nvl_model_gsp_set_verify(dev->model, reject_all);
	assert_int_equal(nvl_device_reset(dev), -EKEYREJECTED);
	assert_null(dev->nv->gsp);
	assert_int_equal(nvl_device_status(dev), -ENODEV);
	assert_int_equal(nvl_device_sensors(dev, &s), -ENODEV);
	assert_int_equal(nvl_device_client_create(dev, &c), -ENODEV);
	assert_int_equal(rig_exec(&a, 0), -ENODEV);
	assert_true(nvl_client_fdinfo(a.c, buf, sizeof(buf)) > 0);
	nvl_device_sensors_unsubscribe(dev, sub);
	rig_down(&a);
	nvl_device_close(dev);
}

/*
 * A slow sensor subscriber holds up only its own events: a channel error
 * of a client (Host method ILLEGAL 0x04: SEC_OP 1, COUNT 1, SUBCH 0)
 * kills the channel and fails its job while the subscriber still
 * blocks. Before, the callback ran on the GSP's event thread, which also
 * delivers RC_TRIGGERED: every client's channel errors waited for it.
 */
static void slow_subscriber(void **state)
{
	struct nvl_device_sensor_sub *sub;
	struct nvl_exec_push p = {.va = VA_PB, .len = 8};
	struct nvl_vm_sync sig;
	struct nvl_device *dev;
	struct slow sl = {0};
	struct rig k;

	(void)state;
	assert_int_equal(nvl_device_open("model:tu102", NULL, &dev), 0);
	rig_up(dev, &k);
	assert_int_equal(nvl_device_sensors_subscribe(dev,
						      NVL_SENSOR_EVENT_THERMAL,
						      slow_event, &sl, &sub),
			 0);
	nvl_model_pmu_sim_advance(dev->model, 0);
	room(dev->model, 95000);
	slow_wait_blocked(&sl);
	/* the subscriber blocks now; k's channel errs */
	k.ppb[0] = 0x20010001u;
	k.ppb[1] = 0;
	sig = (struct nvl_vm_sync){.handle = k.sync[0]};
	assert_int_equal(nvl_exec(k.c, k.chan, &p, 1, NULL, 0, &sig, 1, 0), 0);
	assert_int_equal(rig_status(&k, 0), -EIO);
	assert_int_equal(atomic_load(&sl.blocked), 1);
	atomic_store(&sl.release, 1);
	nvl_device_sensors_unsubscribe(dev, sub);
	assert_int_equal(atomic_load(&sl.blocked), 0);
	rig_down(&k);
	nvl_device_close(dev);
}

/* a subscription that must not be called once unsubscribed */
struct churn_sub {
	atomic_int calls, gone, late;
};

static void churn_event(void *arg, enum nvl_sensor_event e)
{
	struct churn_sub *c = arg;

	(void)e;
	atomic_fetch_add(&c->calls, 1);
	if (atomic_load(&c->gone))
		atomic_fetch_add(&c->late, 1);
}

struct churn {
	struct nvl_device *dev;
	atomic_bool stop;
	unsigned rounds, late;
};

static void *churn_thread(void *arg)
{
	struct churn *ch = arg;

	while (!atomic_load(&ch->stop)) {
		struct churn_sub *c = calloc(1, sizeof(*c));
		struct nvl_device_sensor_sub *sub;

		assert_non_null(c);
		assert_int_equal(nvl_device_sensors_subscribe(
					 ch->dev,
					 NVL_SENSOR_EVENT_THERMAL |
						 NVL_SENSOR_EVENT_POWER_CAP,
					 churn_event, c, &sub),
				 0);
		usleep(200);
		nvl_device_sensors_unsubscribe(ch->dev, sub);
		atomic_store(&c->gone, 1);
		usleep(2000);
		ch->late += (unsigned)atomic_load(&c->late);
		free(c);
		ch->rounds++;
	}
	return NULL;
}

/*
 * Many subscribers coming and going on two threads while crossings are
 * delivered: device.h promises no call of a callback once its
 * unsubscribe returned (ThreadSanitizer: no race on the list), and a
 * steady subscriber gets every crossing.
 */
static void subscriber_churn(void **state)
{
	struct nvl_device_sensor_sub *steady;
	struct churn ch[2] = {0};
	pthread_t th[2];
	struct nvl_device *dev;
	atomic_int n = 0;

	(void)state;
	assert_int_equal(nvl_device_open("model:tu102", NULL, &dev), 0);
	assert_int_equal(nvl_device_sensors_subscribe(dev,
						      NVL_SENSOR_EVENT_THERMAL,
						      count_event, &n, &steady),
			 0);
	nvl_model_pmu_sim_advance(dev->model, 0);
	for (int i = 0; i < 2; i++) {
		ch[i].dev = dev;
		assert_int_equal(
			pthread_create(&th[i], NULL, churn_thread, &ch[i]), 0);
	}
	for (int i = 0; i < 6; i++) {
		room(dev->model, i % 2 ? 25000 : 95000);
		usleep(20000);
	}
	assert_int_equal(events_reach(&n, 3), 3);
	for (int i = 0; i < 2; i++) {
		atomic_store(&ch[i].stop, true);
		assert_int_equal(pthread_join(th[i], NULL), 0);
		assert_true(ch[i].rounds > 0);
		assert_int_equal(ch[i].late, 0);
	}
	nvl_device_sensors_unsubscribe(dev, steady);
	nvl_device_close(dev);
}

struct closer {
	struct nvl_device *dev;
	atomic_int done;
	char msg[160];
};

static void close_in_callback(void *arg, enum nvl_sensor_event e)
{
	struct closer *cl = arg;

	(void)e;
	if (atomic_load(&cl->done))
		return;
	nvl_device_close(cl->dev);
	snprintf(cl->msg, sizeof(cl->msg), "%s", nvl_last_error());
	atomic_store(&cl->done, 1);
}

/*
 * device.h: a close from one of the device's sensor callbacks is ignored
 * (it would end the subscription whose callback is running and wait for
 * it): the device goes on working and its owner closes it later.
 */
static void close_from_callback(void **state)
{
	struct nvl_device_sensor_sub *sub;
	struct closer cl = {0};
	struct nvl_sensors s;

	(void)state;
	assert_int_equal(nvl_device_open("model:tu102", NULL, &cl.dev), 0);
	assert_int_equal(
		nvl_device_sensors_subscribe(cl.dev, NVL_SENSOR_EVENT_THERMAL,
					     close_in_callback, &cl, &sub),
		0);
	nvl_model_pmu_sim_advance(cl.dev->model, 0);
	room(cl.dev->model, 95000);
	for (int i = 0; i < 5000 && !atomic_load(&cl.done); i++)
		usleep(1000);
	assert_int_equal(atomic_load(&cl.done), 1);
	assert_non_null(strstr(cl.msg, "ignored"));
	assert_int_equal(nvl_device_sensors(cl.dev, &s), 0);
	nvl_device_sensors_unsubscribe(cl.dev, sub);
	nvl_device_close(cl.dev);
}

/*
 * device.h: while suspended, calls that need the firmware fail with
 * -EAGAIN and change nothing: a sensor read (the struct untouched), a
 * reclocking call, a first subscription; after the resume they work.
 */
static void sensors_while_suspended(void **state)
{
	struct nvl_device_sensor_sub *sub = NULL;
	struct nvl_sensors s0, s;
	struct nvl_device *dev;
	struct nvl_client *c;
	atomic_int n = 0;

	(void)state;
	dev = open_dev(NVL_DEVICE_OPEN_ADMIN);
	assert_int_equal(
		nvl_device_client_create2(dev, NVL_CLIENT_DEVICE_STATE, &c), 0);
	rd(dev, &s0);
	assert_int_equal(nvl_device_suspend(dev), 0);
	memset(&s, 0xa5, sizeof(s));
	assert_int_equal(nvl_device_sensors(dev, &s), -EAGAIN);
	assert_int_equal(((uint8_t *)&s)[0], 0xa5);
	assert_int_equal(nvl_device_set_power_limit(c, s0.power_min_mw),
			 -EAGAIN);
	assert_int_equal(nvl_device_sensors_subscribe(dev,
						      NVL_SENSOR_EVENT_THERMAL,
						      count_event, &n, &sub),
			 -EAGAIN);
	assert_null(sub);
	assert_int_equal(nvl_device_status(dev), 0);
	assert_int_equal(nvl_device_resume(dev), 0);
	rd(dev, &s);
	assert_int_equal(s.power_limit_mw, s0.power_limit_mw);
	assert_int_equal(nvl_device_sensors_subscribe(dev,
						      NVL_SENSOR_EVENT_THERMAL,
						      count_event, &n, &sub),
			 0);
	nvl_device_sensors_unsubscribe(dev, sub);
	nvl_client_destroy(c);
	nvl_device_close(dev);
}

/*
 * The new firmware stops answering during the reset's boot (its replies
 * dropped from INIT_DONE on): the reset fails in bounded time, the device
 * stays lost with WPR2 down, and the next reset boots.
 */
static void reset_meets_a_silent_firmware(void **state)
{
	struct nvl_device *dev;
	int ret;

	(void)state;
	dev = open_dev(0);
	rig_lose(dev);
	nvl_model_gsp_clear_faults(dev->model);
	nvl_model_gsp_inject(dev->model, NVL_MODEL_GSP_DROP, 1000, 0);
	ret = nvl_device_reset(dev);
	assert_int_equal(ret, -ETIMEDOUT);
	assert_non_null(strstr(nvl_last_error(), "INIT_DONE"));
	assert_int_equal(nvl_device_status(dev), -ENODEV);
	assert_int_equal(
		nvl_hw_rd32(nvl_model_hw(dev->model), NVL_HW_PFB_WPR2_ADDR_HI),
		0);
	nvl_model_gsp_clear_faults(dev->model);
	assert_int_equal(nvl_device_reset(dev), 0);
	new_client_works(dev);
	nvl_device_close(dev);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reset_alloc_failures),
		cmocka_unit_test(close_ends_subscriptions),
		cmocka_unit_test(static_info_lies),
		cmocka_unit_test(vram_size_the_register_cannot_say),
		cmocka_unit_test(reclock_across),
		cmocka_unit_test(old_vm_after_reset),
		cmocka_unit_test(channel_id_lies),
		cmocka_unit_test(subscribers_on_many_devices),
		cmocka_unit_test(failed_reset_then_close),
		cmocka_unit_test(slow_subscriber),
		cmocka_unit_test(subscriber_churn),
		cmocka_unit_test(close_from_callback),
		cmocka_unit_test(sensors_while_suspended),
		cmocka_unit_test(reset_meets_a_silent_firmware),
	};

	return t_main(__FILE__, tests, sizeof(tests) / sizeof(tests[0]), argc,
		      argv);
}

// SPDX-License-Identifier: MIT
/*
 * TEST: device state through the public API (include/nouvelle/device.h):
 * the right to change it, reclocking and its effects on copies run with
 * nvl_exec, sensor events to several subscribers, and a GSP that dies
 * with work waited on in every way, then a reset.
 *
 * The model is driven on simulated time (nvl_model_pmu_sim_advance(),
 * model-only): a "sustained copy load" is copies through nvl_exec, each
 * followed by advancing the PMU's clock by the engine time the copy took
 * (nvl_model_pmu_ce_stats()), so the engine is busy the whole simulated
 * time; nvl_model_pmu_set_ce_scale() makes each 256 KiB copy count as
 * 1 GiB of engine work so that seconds pass in a few hundred copies. The
 * hot room (THERM_AMBIENT) and the GSP's death (NVL_MODEL_GSP_HANG) are
 * the model's environment and fault injection, not driver controls.
 * Throttle bits are nvidia-smi's clocks_event_reasons (0x4 SW power cap,
 * 0x8 HW slowdown, 0x40 HW thermal); the acquire is Host's
 * SEM_EXECUTE ACQ_CIRC_GEQ (clc56f.h).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <nouvelle/nouvelle.h>

#include "base/log.h"
#include "core/device.h"
#include "hw/regs.h"
#include "kit.h"
#include "model/gsp/gsp.h"
#include "model/model.h"
#include "model/pmu.h"
#include "sync/fence.h"
#include "sync/syncobj.h"
#include "t.h"
#include "t_nv.h"

#define KIB T_NV_KIB
#define MIB T_NV_MIB
#define BUF (256 * KIB)
#define VA_SRC (16 * MIB)
#define VA_DST (32 * MIB)
#define VA_PB (48 * MIB)
#define VA_SEM (64 * MIB)
#define MS 1000000ull
#define SEC 1000000000ull
#define SCALE 4096u /* 256 KiB counts as 1 GiB of engine work */

/* the rig's client with a semaphore, a source and a target */
struct ctx {
	struct t_nv_cl k;
	struct nvl_model *m;
	uint32_t src, dst;
	uint8_t *psrc, *pdst;
};

static void client_up(struct ctx *x, struct nvl_device *dev, uint32_t flags)
{
	t_nv_cl_up(&x->k, dev, VA_PB, flags);
	t_nv_cl_sem(&x->k, 64 * KIB, VA_SEM);
	x->src = t_nv_cl_bo(&x->k, BUF, NVL_BO_DOMAIN_VRAM, VA_SRC,
			    (void **)&x->psrc);
	x->dst = t_nv_cl_bo(&x->k, BUF, NVL_BO_DOMAIN_VRAM, VA_DST,
			    (void **)&x->pdst);
}

static void up(struct ctx *x, const char *spec, uint32_t open_flags,
	       uint32_t heartbeat_ms)
{
	struct nvl_device_opts o = {.flags = open_flags,
				    .heartbeat_ms = heartbeat_ms};
	struct nvl_device *dev;

	memset(x, 0, sizeof(*x));
	assert_int_equal(nvl_device_open(spec, &o, &dev), 0);
	x->m = dev->model;
	client_up(x, dev, open_flags ? T_NV_CL_DEVICE_STATE : 0);
}

static void client_down(struct ctx *x)
{
	nvl_channel_destroy(x->k.c, x->k.chan);
	/* a CPU mapping holds its BO until unmapped (mm's rule) */
	assert_int_equal(nvl_bo_unmap(x->k.c, x->src), 0);
	assert_int_equal(nvl_bo_unmap(x->k.c, x->dst), 0);
	t_nv_cl_down(&x->k);
}

static void down(struct ctx *x)
{
	client_down(x);
	nvl_device_close(x->k.dev);
}

static void rd(struct ctx *x, struct nvl_sensors *s)
{
	assert_int_equal(nvl_device_sensors(x->k.dev, s), 0);
}

/* one copy of the whole buffer through nvl_exec, waited for */
static void copy(struct ctx *x)
{
	uint32_t n = nvl_kit_pb_copy(x->k.ppb, x->k.info.ce_class, VA_DST,
				     VA_SRC, BUF);

	t_nv_cl_run(&x->k, 0, n, 10 * SEC);
}

/*
 * A sustained copy load for @sim_ns of simulated time: each copy's engine
 * time passes on the PMU's clock, so the engine is always busy. Returns
 * the throughput over the run in bytes per simulated microsecond.
 */
static double load(struct ctx *x, uint64_t sim_ns)
{
	uint64_t b0, n0, b, n, done = 0;

	nvl_model_pmu_ce_stats(x->m, 0, &b0, &n0);
	while (done < sim_ns) {
		uint64_t b1, n1;

		nvl_model_pmu_ce_stats(x->m, 0, &b1, &n1);
		copy(x);
		nvl_model_pmu_ce_stats(x->m, 0, &b, &n);
		assert_true(n > n1);
		nvl_model_pmu_sim_advance(x->m, n - n1);
		done += n - n1;
	}
	return (double)(b - b0) * 1000.0 / (double)(n - n0);
}

/* the copy engine moves 32 B per graphics clock: B/us = 32 x MHz */
static void assert_speed(double bpus, uint32_t mhz)
{
	double want = 32.0 * mhz;

	if (bpus < want * 0.97 || bpus > want * 1.03)
		fail_msg("copy throughput %.0f B/us, not %.0f (%u MHz)", bpus,
			 want, mhz);
}

struct evs {
	atomic_int thermal, power;
};

static void on_event(void *arg, enum nvl_sensor_event e)
{
	struct evs *ev = arg;

	if (e == NVL_SENSOR_EVENT_THERMAL)
		atomic_fetch_add(&ev->thermal, 1);
	else
		atomic_fetch_add(&ev->power, 1);
}

/* the crossings the PMU saw have been posted and handled */
/*
 * @v reaches @want: events go to subscribers from the event thread, after
 * the sensor read that saw the crossing returned, so wait for them
 * (bounded, 10 s: a loaded machine delays that thread), then a little more
 * so that a duplicate would show.
 */
static int events_reach(atomic_int *v, int want)
{
	for (int i = 0; i < 10000 && atomic_load(v) < want; i++)
		usleep(1000);
	usleep(20000);
	return atomic_load(v);
}

static void settle(struct ctx *x)
{
	struct nvl_sensors s;

	/* a read is a round trip behind which the events were queued */
	rd(x, &s);
	usleep(20000);
	rd(x, &s);
}

/* ---- rights ------------------------------------------------------------ */

static void rights(void **state)
{
	struct nvl_sensors s0, s;
	struct nvl_client *c, *plain;
	struct ctx x;

	(void)state;
	up(&x, "model:tu102", 0, 0);
	/* not an admin opener: no client gets the right */
	c = NULL;
	assert_int_equal(
		nvl_device_client_create2(x.k.dev, NVL_CLIENT_DEVICE_STATE, &c),
		-EPERM);
	assert_null(c);
	assert_non_null(strstr(nvl_last_error(), "NVL_DEVICE_OPEN_ADMIN"));
	assert_int_equal(nvl_device_client_create2(x.k.dev, 0x80, &c), -EINVAL);
	assert_int_equal(nvl_device_client_create2(NULL, 0, &c), -EINVAL);
	/* a client without the right: -EPERM, nothing changes */
	rd(&x, &s0);
	assert_int_equal(nvl_device_set_power_limit(x.k.c, s0.power_min_mw),
			 -EPERM);
	assert_non_null(strstr(nvl_last_error(), "NVL_CLIENT_DEVICE_STATE"));
	assert_int_equal(nvl_device_set_pstate_limits(x.k.c, 2, 2), -EPERM);
	assert_int_equal(nvl_device_set_app_clocks(x.k.c, 300, 0), -EPERM);
	assert_int_equal(nvl_device_set_boost(x.k.c, 5), -EPERM);
	rd(&x, &s);
	assert_int_equal(s.power_limit_mw, s0.power_limit_mw);
	assert_int_equal(s.pstate, s0.pstate);
	assert_int_equal(s.clk_gr_mhz, s0.clk_gr_mhz);
	/* a device-less client and NULL */
	assert_int_equal(nvl_client_create(&plain), 0);
	assert_int_equal(nvl_device_set_power_limit(plain, 100000), -EINVAL);
	nvl_client_destroy(plain);
	assert_int_equal(nvl_device_set_boost(NULL, 1), -EINVAL);
	/* bad open flags */
	{
		struct nvl_device_opts o = {.flags = 0x100};
		struct nvl_device *d = NULL;

		assert_int_equal(nvl_device_open("model:tiny", &o, &d),
				 -EINVAL);
		assert_null(d);
	}
	down(&x);

	/* an admin opener: its client may, another of its clients not */
	up(&x, "model:tu102", NVL_DEVICE_OPEN_ADMIN, 0);
	assert_int_equal(nvl_device_client_create2(x.k.dev, 0, &c), 0);
	assert_int_equal(nvl_device_set_power_limit(c, 100000), -EPERM);
	nvl_client_destroy(c);
	rd(&x, &s0);
	/* bad values: -EINVAL, nothing changed */
	assert_int_equal(nvl_device_set_power_limit(x.k.c, s0.power_min_mw - 1),
			 -EINVAL);
	assert_int_equal(nvl_device_set_power_limit(x.k.c, s0.power_max_mw + 1),
			 -EINVAL);
	assert_int_equal(nvl_device_set_pstate_limits(x.k.c, 3, 1), -EINVAL);
	assert_int_equal(nvl_device_set_pstate_limits(x.k.c, 0, 99), -EINVAL);
	assert_int_equal(
		nvl_device_set_app_clocks(x.k.c, s0.clk_gr_max_mhz + 1, 0),
		-EINVAL);
	rd(&x, &s);
	assert_int_equal(s.power_limit_mw, s0.power_limit_mw);
	assert_int_equal(s.clk_gr_mhz, s0.clk_gr_mhz);
	assert_int_equal(s.pstate, s0.pstate);
	/* good values take effect */
	assert_int_equal(nvl_device_set_power_limit(x.k.c, s0.power_min_mw), 0);
	rd(&x, &s);
	assert_int_equal(s.power_limit_mw, s0.power_min_mw);
	assert_int_equal(nvl_device_set_power_limit(x.k.c, s0.power_default_mw),
			 0);
	/* 900 MHz: on tu102's supported-clock table (15 MHz steps from
	 * 300), as an application clock must be */
	assert_int_equal(nvl_device_set_app_clocks(x.k.c, 900, 0), 0);
	rd(&x, &s);
	assert_int_equal(s.clk_gr_mhz, 900);
	assert_true(s.throttle & NVL_THROTTLE_APP_CLOCKS);
	assert_int_equal(nvl_device_set_app_clocks(x.k.c, 0, 0), 0);
	rd(&x, &s);
	assert_int_equal(s.clk_gr_mhz, s0.clk_gr_max_mhz);
	assert_int_equal(nvl_device_set_boost(x.k.c, 0), 0);
	down(&x);
}

/* ---- reclocking under a copy load -------------------------------------- */

/*
 * A lower power limit brings the graphics clock down step by step until
 * board power is under the limit; the copies slow with the clock; raising
 * the limit restores both. Two subscribers: each told once per crossing.
 */
/*
 * A memory clock cap below the slowest P-state's memory clock is refused
 * like a graphics one (device.h: -EINVAL "below the slowest P-state's
 * clock"), and nothing changes.
 */
static void app_clocks_floor(void **state)
{
	struct nvl_sensors s0, s;
	struct ctx x;

	(void)state;
	up(&x, "model:tu102", NVL_DEVICE_OPEN_ADMIN, 0);
	rd(&x, &s0);
	assert_int_equal(nvl_device_set_app_clocks(x.k.c, 0, 1), -EINVAL);
	assert_int_equal(nvl_device_set_app_clocks(x.k.c, s0.clk_gr_max_mhz, 1),
			 -EINVAL);
	rd(&x, &s);
	assert_int_equal(s.clk_mem_mhz, s0.clk_mem_mhz);
	assert_false(s.throttle & NVL_THROTTLE_APP_CLOCKS);
	/* a cap at the maximum is fine, and 0, 0 clears it */
	assert_int_equal(
		nvl_device_set_app_clocks(x.k.c, 0, s0.clk_mem_max_mhz), 0);
	assert_int_equal(nvl_device_set_app_clocks(x.k.c, 0, 0), 0);
	down(&x);
}

static void power_limit_under_copies(void **state)
{
	struct nvl_device_sensor_sub *s1, *s2;
	struct evs e1 = {0}, e2 = {0};
	struct nvl_sensors s0, s;
	uint32_t fmax, limit, last;
	struct ctx x;
	double bpus;

	(void)state;
	up(&x, "model:tu102", NVL_DEVICE_OPEN_ADMIN, 0);
	assert_int_equal(nvl_device_sensors_subscribe(
				 x.k.dev, NVL_SENSOR_EVENT_POWER_CAP, on_event,
				 &e1, &s1),
			 0);
	assert_int_equal(
		nvl_device_sensors_subscribe(x.k.dev,
					     NVL_SENSOR_EVENT_POWER_CAP |
						     NVL_SENSOR_EVENT_THERMAL,
					     on_event, &e2, &s2),
		0);
	nvl_model_pmu_set_ce_scale(x.m, SCALE);
	nvl_model_pmu_sim_advance(x.m, 0);
	for (size_t i = 0; i < BUF; i++)
		x.psrc[i] = (uint8_t)(i * 7 + 1);
	/* full speed under the default limit */
	bpus = load(&x, 1 * SEC);
	rd(&x, &s0);
	fmax = s0.clk_gr_max_mhz;
	assert_int_equal(s0.clk_gr_mhz, fmax);
	assert_speed(bpus, fmax);
	assert_memory_equal(x.pdst, x.psrc, BUF);
	assert_false(s0.throttle & NVL_THROTTLE_SW_POWER_CAP);
	/* a limit between idle and this load's power */
	limit = (s0.power_min_mw + s0.power_mw) / 2;
	assert_true(s0.power_mw > limit);
	assert_int_equal(nvl_device_set_power_limit(x.k.c, limit), 0);
	last = fmax;
	for (int i = 0; i < 10; i++) {
		load(&x, 100 * MS);
		rd(&x, &s);
		assert_true(s.clk_gr_mhz <= last);
		last = s.clk_gr_mhz;
	}
	/* within 1 s of simulated time: under the limit, clock lower */
	assert_true(s.power_mw <= limit);
	assert_true(s.clk_gr_mhz < fmax);
	assert_true(s.throttle & NVL_THROTTLE_SW_POWER_CAP);
	/* converged: close under it, and the copies run at the new clock */
	load(&x, 3 * SEC);
	bpus = load(&x, 500 * MS);
	rd(&x, &s);
	assert_true(s.power_mw <= limit);
	assert_true(s.power_mw >= limit * 95 / 100);
	assert_speed(bpus, s.clk_gr_mhz);
	assert_true(bpus < 32.0 * fmax * 0.9);
	settle(&x);
	assert_int_equal(events_reach(&e1.power, 1), 1);
	assert_int_equal(events_reach(&e2.power, 1), 1);
	assert_int_equal(atomic_load(&e2.thermal), 0);
	/* the limit raised back: full clock and full speed again */
	assert_int_equal(nvl_device_set_power_limit(x.k.c, s0.power_default_mw),
			 0);
	load(&x, 3 * SEC);
	bpus = load(&x, 500 * MS);
	rd(&x, &s);
	assert_int_equal(s.clk_gr_mhz, fmax);
	assert_false(s.throttle & NVL_THROTTLE_SW_POWER_CAP);
	assert_speed(bpus, fmax);
	/* a second crossing: one more event each; s1 gone: only s2 */
	nvl_device_sensors_unsubscribe(x.k.dev, s1);
	assert_int_equal(nvl_device_set_power_limit(x.k.c, limit), 0);
	load(&x, 1 * SEC);
	settle(&x);
	assert_int_equal(atomic_load(&e1.power), 1);
	assert_int_equal(events_reach(&e2.power, 2), 2);
	nvl_device_sensors_unsubscribe(x.k.dev, s2);
	assert_memory_equal(x.pdst, x.psrc, BUF);
	down(&x);
}

/* above the slowdown temperature the clock and the copies run at half */
static void thermal_halves_copies(void **state)
{
	struct nvl_device_sensor_sub *sub;
	struct evs ev = {0};
	struct nvl_sensors s;
	struct nvl_hw *hw;
	uint32_t fmax;
	struct ctx x;
	double bpus;

	(void)state;
	up(&x, "model:tu102", NVL_DEVICE_OPEN_ADMIN, 0);
	hw = nvl_model_hw(x.m);
	assert_int_equal(nvl_device_sensors_subscribe(x.k.dev,
						      NVL_SENSOR_EVENT_THERMAL,
						      on_event, &ev, &sub),
			 0);
	nvl_model_pmu_set_ce_scale(x.m, SCALE);
	nvl_model_pmu_sim_advance(x.m, 0);
	bpus = load(&x, 500 * MS);
	rd(&x, &s);
	fmax = s.clk_gr_max_mhz;
	assert_speed(bpus, fmax);
	/* a hot room */
	nvl_hw_wr32(hw, NVL_HW_THERM_AMBIENT, 95000);
	nvl_model_pmu_sim_advance(x.m, 20 * SEC);
	bpus = load(&x, 500 * MS);
	rd(&x, &s);
	assert_true(s.gpu_temp_c > x.m->profile->slowdown_mc / 1000);
	assert_int_equal(s.clk_gr_mhz, fmax / 2);
	assert_true(s.throttle & NVL_THROTTLE_HW_SLOWDOWN);
	assert_speed(bpus, fmax / 2);
	settle(&x);
	assert_int_equal(events_reach(&ev.thermal, 1), 1);
	assert_int_equal(atomic_load(&ev.power), 0);
	/* cooled: full speed */
	nvl_hw_wr32(hw, NVL_HW_THERM_AMBIENT, 25000);
	nvl_model_pmu_sim_advance(x.m, 30 * SEC);
	bpus = load(&x, 500 * MS);
	rd(&x, &s);
	assert_int_equal(s.clk_gr_mhz, fmax);
	assert_speed(bpus, fmax);
	nvl_device_sensors_unsubscribe(x.k.dev, sub);
	down(&x);
}

/*
 * A callback may call the device's API, but its own sensor subscriptions
 * would take the lock the event thread holds over the callbacks: subscribe
 * and unsubscribe from a callback answer -EDEADLK (unsubscribe: ignored)
 * instead of hanging the event thread (a subscribe there hung it for good
 * before, and the device's close after it).
 */
struct reenter {
	struct nvl_device *dev;
	struct nvl_device_sensor_sub *self;
	atomic_int calls, done;
	int ret;
	char msg[128];
};

static void reenter_cb(void *arg, enum nvl_sensor_event e)
{
	struct reenter *r = arg;
	struct nvl_device_sensor_sub *sub = NULL;

	(void)e;
	if (atomic_fetch_add(&r->calls, 1))
		return;
	r->ret = nvl_device_sensors_subscribe(r->dev, NVL_SENSOR_EVENT_THERMAL,
					      on_event, NULL, &sub);
	nvl_device_sensors_unsubscribe(r->dev, r->self);
	snprintf(r->msg, sizeof(r->msg), "%s", nvl_last_error());
	atomic_store(&r->done, 1);
}

static void subscribe_in_callback(void **state)
{
	struct reenter r = {0};
	struct evs ev = {0};
	struct nvl_device_sensor_sub *other;
	struct ctx x;

	(void)state;
	up(&x, "model:tu102", NVL_DEVICE_OPEN_ADMIN, 0);
	r.dev = x.k.dev;
	assert_int_equal(nvl_device_sensors_subscribe(x.k.dev,
						      NVL_SENSOR_EVENT_THERMAL,
						      reenter_cb, &r, &r.self),
			 0);
	assert_int_equal(nvl_device_sensors_subscribe(x.k.dev,
						      NVL_SENSOR_EVENT_THERMAL,
						      on_event, &ev, &other),
			 0);
	nvl_model_pmu_sim_advance(x.m, 0);
	nvl_hw_wr32(nvl_model_hw(x.m), NVL_HW_THERM_AMBIENT, 95000);
	nvl_model_pmu_sim_advance(x.m, 20 * SEC);
	for (int i = 0; i < 500 && !atomic_load(&r.done); i++)
		nanosleep(&(struct timespec){.tv_nsec = 10 * MS}, NULL);
	if (!atomic_load(&r.done))
		fail_msg("the sensor callback is stuck in its subscribe");
	assert_int_equal(r.ret, -EDEADLK);
	assert_non_null(strstr(r.msg, "callbacks ignored"));
	/* the event went on to the next subscriber; r's is still on */
	assert_int_equal(events_reach(&ev.thermal, 1), 1);
	nvl_device_sensors_unsubscribe(x.k.dev, r.self);
	nvl_device_sensors_unsubscribe(x.k.dev, other);
	down(&x);
}

/* ---- a GSP that dies --------------------------------------------------- */

static char captured[1 << 16];
static pthread_mutex_t cap_lock = PTHREAD_MUTEX_INITIALIZER;

static void sink(enum nvl_log_level l, enum nvl_log_cat c, const char *msg,
		 void *ctx)
{
	size_t n;

	(void)l;
	(void)c;
	(void)ctx;
	pthread_mutex_lock(&cap_lock);
	n = strlen(captured);
	if (n + strlen(msg) + 2 < sizeof(captured)) {
		memcpy(captured + n, msg, strlen(msg));
		captured[n + strlen(msg)] = '\n';
		captured[n + strlen(msg) + 1] = 0;
	}
	pthread_mutex_unlock(&cap_lock);
}

static bool logged(const char *what)
{
	bool found;

	pthread_mutex_lock(&cap_lock);
	found = strstr(captured, what) != NULL;
	pthread_mutex_unlock(&cap_lock);
	return found;
}

struct waiter {
	struct ctx *x;
	int kind; /* 0 sync-file poll, 1 syncobj wait, 2 bind */
	uint32_t h;
	int fd;
	int ret;
	atomic_bool done;
};

static void *wait_thread(void *arg)
{
	struct waiter *w = arg;

	switch (w->kind) {
	case 0: {
		struct pollfd p = {.fd = w->fd, .events = POLLIN};

		w->ret = poll(&p, 1, 30000) == 1 ? 0 : -ETIME;
		break;
	}
	case 1:
		w->ret = nvl_syncobj_wait(w->x->k.c, &w->h, NULL, 1,
					  t_nv_deadline(30 * SEC),
					  NVL_SYNCOBJ_WAIT_ALL, NULL);
		break;
	default: {
		/* a synchronous bind waiting for the blocked job */
		struct nvl_vm_bind_op op = {.op = NVL_VM_BIND_OP_MAP,
					    .handle = w->x->dst,
					    .addr = 128 * MIB,
					    .range = BUF};
		struct nvl_vm_sync ws = {.handle = w->h};

		w->ret = nvl_vm_bind(w->x->k.c, w->x->k.vm, 0, &op, 1, &ws, 1,
				     NULL, 0, 0);
		break;
	}
	}
	atomic_store(&w->done, true);
	return NULL;
}

/* the error the fence of a syncobj carries (internal, for the test) */
static int fence_error(struct nvl_client *c, uint32_t h)
{
	struct nvl_fence *f;
	int st;

	assert_int_equal(nvl_syncobj_find_fence(c, h, 0, 0, &f), 0);
	st = nvl_fence_get_status(f);
	nvl_fence_put(f);
	return st;
}

static void gsp_death_and_reset(void **state)
{
	struct nvl_device_sensor_sub *sub, *sub2 = NULL;
	struct evs ev = {0};
	struct waiter w[3];
	pthread_t th[3];
	struct nvl_exec_push p;
	struct nvl_vm_sync s1 = {0}, s2 = {0}, wt = {0};
	struct nvl_channel_info ci;
	struct nvl_sensors s;
	struct nvl_client *c;
	struct ctx x, y;
	uint32_t h, n;
	int64_t t0;

	(void)state;
	up(&x, "model:tiny", NVL_DEVICE_OPEN_ADMIN, 20);
	assert_int_equal(nvl_device_status(x.k.dev), 0);
	assert_int_equal(nvl_device_sensors_subscribe(x.k.dev,
						      NVL_SENSOR_EVENT_THERMAL,
						      on_event, &ev, &sub),
			 0);
	assert_int_equal(nvl_syncobj_create(x.k.c, 0, &s1.handle), 0);
	assert_int_equal(nvl_syncobj_create(x.k.c, 0, &s2.handle), 0);
	/* J1 blocks the channel on a semaphore nobody releases */
	x.k.psem[0] = 0;
	n = nvl_kit_pb_acquire(x.k.ppb, VA_SEM, 1);
	p = (struct nvl_exec_push){.va = VA_PB, .len = n * 4};
	assert_int_equal(nvl_exec(x.k.c, x.k.chan, &p, 1, NULL, 0, &s1, 1, 0),
			 0);
	/* J2 waits for J1 in the scheduler */
	n = nvl_kit_pb_copy(x.k.ppb + 256, x.k.info.ce_class, VA_DST, VA_SRC,
			    BUF);
	p = (struct nvl_exec_push){.va = VA_PB + 1024, .len = n * 4};
	wt.handle = s1.handle;
	assert_int_equal(nvl_exec(x.k.c, x.k.chan, &p, 1, &wt, 1, &s2, 1, 0),
			 0);
	/* waiters in every kind of wait */
	for (int i = 0; i < 3; i++) {
		w[i] = (struct waiter){.x = &x, .kind = i, .fd = -1};
		w[i].h = i == 1 ? s2.handle : s1.handle;
	}
	assert_int_equal(
		nvl_syncobj_export_sync_file(x.k.c, s1.handle, 0, &w[0].fd), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(
			pthread_create(&th[i], NULL, wait_thread, &w[i]), 0);
	usleep(100000);
	for (int i = 0; i < 3; i++)
		assert_false(atomic_load(&w[i].done));
	assert_int_equal(nvl_channel_query(x.k.c, x.k.chan, &ci), 0);
	assert_int_equal(ci.alive, 1);
	assert_int_equal(ci.completed, 0);

	/* the GSP dies: the heartbeat finds it, everyone is released */
	pthread_mutex_lock(&cap_lock);
	captured[0] = 0;
	pthread_mutex_unlock(&cap_lock);
	nvl_log_set_sink(sink, NULL);
	nvl_model_gsp_inject(x.m, NVL_MODEL_GSP_HANG, 1, 0);
	t0 = nvl_time_ns();
	for (int i = 0; i < 3; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	assert_true(nvl_time_ns() - t0 < 20 * (int64_t)SEC);
	nvl_log_set_sink(NULL, NULL);
	assert_int_equal(nvl_device_status(x.k.dev), -ENODEV);
	assert_int_equal(w[0].ret, 0);
	assert_int_equal(w[1].ret, 0);
	assert_int_equal(w[2].ret, -ENODEV);
	close(w[0].fd);
	assert_int_equal(fence_error(x.k.c, s1.handle), -ENODEV);
	assert_int_equal(fence_error(x.k.c, s2.handle), -ENODEV);
	/* the firmware's logs and the loss are in the log */
	assert_true(logged("gsp LOGINIT:"));
	assert_true(logged("lost"));
	/* the channel is dead; every new call that needs the GPU fails */
	assert_int_equal(nvl_channel_query(x.k.c, x.k.chan, &ci), 0);
	assert_int_equal(ci.alive, 0);
	assert_int_equal(ci.error, -ENODEV);
	p = (struct nvl_exec_push){.va = VA_PB + 1024, .len = n * 4};
	assert_int_equal(nvl_exec(x.k.c, x.k.chan, &p, 1, NULL, 0, NULL, 0, 0),
			 -ENODEV);
	assert_int_equal(
		nvl_channel_create(x.k.c, x.k.vm, NVL_ENGINE_COPY, 0, &h),
		-ENODEV);
	{
		struct nvl_vm_create_args va = {.start = 1 * MIB,
						.end = 1ull << 40,
						.kernel_start = T_NV_KSTART,
						.kernel_range = T_NV_KRANGE};

		assert_int_equal(nvl_vm_create(x.k.c, &va, &h), -ENODEV);
	}
	assert_int_equal(nvl_device_client_create(x.k.dev, &c), -ENODEV);
	assert_int_equal(nvl_device_sensors(x.k.dev, &s), -ENODEV);
	assert_int_equal(nvl_device_set_power_limit(x.k.c, 100000), -ENODEV);
	assert_int_equal(nvl_device_sensors_subscribe(x.k.dev,
						      NVL_SENSOR_EVENT_THERMAL,
						      on_event, &ev, &sub2),
			 -ENODEV);

	/* reset: boots again; the old client's objects stay dead */
	assert_int_equal(nvl_device_reset(x.k.dev), 0);
	assert_int_equal(nvl_device_status(x.k.dev), 0);
	assert_int_equal(nvl_device_reset(x.k.dev), -EBUSY);
	assert_int_equal(nvl_channel_query(x.k.c, x.k.chan, &ci), 0);
	assert_int_equal(ci.alive, 0);
	rd(&x, &s);
	assert_true(nvl_sensors_has(&s, NVL_SENSOR_GPU_TEMP));
	/* a new client works end to end */
	memset(&y, 0, sizeof(y));
	y.m = x.m;
	client_up(&y, x.k.dev, 0);
	for (size_t i = 0; i < BUF; i++)
		y.psrc[i] = (uint8_t)(i * 13 + 5);
	copy(&y);
	assert_memory_equal(y.pdst, y.psrc, BUF);
	/* the new firmware reuses the old channel's id: an error on the
	 * new channel kills it, not the dead one (Host method ILLEGAL 0x04:
	 * SEC_OP 1, COUNT 1, SUBCH 0) */
	{
		struct nvl_channel_info yi;
		struct nvl_vm_sync ys = {.handle = y.k.sync};

		assert_int_equal(nvl_channel_query(y.k.c, y.k.chan, &yi), 0);
		assert_int_equal(nvl_channel_query(x.k.c, x.k.chan, &ci), 0);
		assert_int_equal(yi.chid, ci.chid);
		y.k.ppb[512] = 0x20010001u;
		y.k.ppb[513] = 0;
		p = (struct nvl_exec_push){.va = VA_PB + 2048, .len = 8};
		assert_int_equal(
			nvl_exec(y.k.c, y.k.chan, &p, 1, NULL, 0, &ys, 1, 0),
			0);
		assert_int_equal(nvl_syncobj_wait(y.k.c, &y.k.sync, NULL, 1,
						  t_nv_deadline(10 * SEC), 0,
						  NULL),
				 0);
		assert_int_equal(nvl_channel_query(y.k.c, y.k.chan, &yi), 0);
		assert_int_equal(yi.alive, 0);
		assert_int_equal(yi.error, -EIO);
		assert_int_equal(nvl_channel_query(x.k.c, x.k.chan, &ci), 0);
		assert_int_equal(ci.error, -ENODEV);
	}
	/* the subscription survived the reset */
	nvl_hw_wr32(nvl_model_hw(x.m), NVL_HW_THERM_AMBIENT, 95000);
	nvl_model_pmu_sim_advance(x.m, 20 * SEC);
	settle(&y);
	assert_int_equal(events_reach(&ev.thermal, 1), 1);
	nvl_device_sensors_unsubscribe(x.k.dev, sub);
	/* the old client goes after the reset, the new one after it */
	client_down(&x);
	client_down(&y);
	nvl_device_close(x.k.dev);
}

/* lost and closed without a reset: a job blocked on the ring, nothing
 * hangs and nothing is left (ASan's leak check) */
static void lost_then_close(void **state)
{
	struct nvl_exec_push p;
	struct nvl_vm_sync s1 = {0};
	struct ctx x;
	uint32_t n;

	(void)state;
	up(&x, "model:tiny", 0, 20);
	assert_int_equal(nvl_syncobj_create(x.k.c, 0, &s1.handle), 0);
	x.k.psem[0] = 0;
	n = nvl_kit_pb_acquire(x.k.ppb, VA_SEM, 1);
	p = (struct nvl_exec_push){.va = VA_PB, .len = n * 4};
	assert_int_equal(nvl_exec(x.k.c, x.k.chan, &p, 1, NULL, 0, &s1, 1, 0),
			 0);
	nvl_model_gsp_inject(x.m, NVL_MODEL_GSP_HANG, 1, 0);
	assert_int_equal(nvl_syncobj_wait(x.k.c, &s1.handle, NULL, 1,
					  t_nv_deadline(20 * SEC), 0, NULL),
			 0);
	assert_int_equal(nvl_device_status(x.k.dev), -ENODEV);
	assert_int_equal(fence_error(x.k.c, s1.handle), -ENODEV);
	down(&x);
}

/* a GSP that reads its queue but answers nothing: three heartbeats
 * without a reply make the device lost; a reset brings it back */
static void heartbeat_misses(void **state)
{
	struct nvl_sensors s;
	struct ctx x;

	(void)state;
	up(&x, "model:tiny", 0, 20);
	pthread_mutex_lock(&cap_lock);
	captured[0] = 0;
	pthread_mutex_unlock(&cap_lock);
	nvl_log_set_sink(sink, NULL);
	nvl_model_gsp_inject(x.m, NVL_MODEL_GSP_DROP, 3, 0);
	/* the status flips before the loss is logged: wait for both */
	for (int i = 0; i < 400 && !logged("three heartbeats without a reply");
	     i++)
		usleep(50000);
	nvl_log_set_sink(NULL, NULL);
	assert_int_equal(nvl_device_status(x.k.dev), -ENODEV);
	assert_true(logged("three heartbeats without a reply"));
	assert_int_equal(nvl_device_sensors(x.k.dev, &s), -ENODEV);
	assert_int_equal(nvl_device_reset(x.k.dev), 0);
	rd(&x, &s);
	down(&x);
}

struct af {
	struct ctx *x;
	struct nvl_device_sensor_sub *sub;
	struct nvl_client *c;
	struct evs ev;
};

static int op_subscribe(void *arg)
{
	struct af *a = arg;

	a->sub = NULL;
	return nvl_device_sensors_subscribe(a->x->k.dev,
					    NVL_SENSOR_EVENT_THERMAL, on_event,
					    &a->ev, &a->sub);
}

static void check_subscribe(int ret, void *arg)
{
	struct af *a = arg;

	assert_int_equal(ret, -ENOMEM);
	assert_null(a->sub);
	assert_true(nvl_list_empty(&a->x->k.dev->subs));
	assert_null(a->x->k.dev->gsub);
}

static int op_client(void *arg)
{
	struct af *a = arg;

	a->c = NULL;
	return nvl_device_client_create2(a->x->k.dev, NVL_CLIENT_DEVICE_STATE,
					 &a->c);
}

static void check_client(int ret, void *arg)
{
	assert_int_equal(ret, -ENOMEM);
	assert_null(((struct af *)arg)->c);
}

/* every allocation of a subscription and of a client can fail cleanly */
static void alloc_failures(void **state)
{
	struct af a = {0};
	struct ctx x;

	(void)state;
	up(&x, "model:tiny", NVL_DEVICE_OPEN_ADMIN, 0);
	a.x = &x;
	assert_true(t_fail_each_alloc(op_subscribe, check_subscribe, &a, 1000) >
		    0);
	nvl_device_sensors_unsubscribe(x.k.dev, a.sub);
	assert_null(x.k.dev->gsub);
	assert_true(t_fail_each_alloc(op_client, check_client, &a, 100) > 0);
	assert_int_equal(nvl_device_set_boost(a.c, 0), 0);
	nvl_client_destroy(a.c);
	down(&x);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rights),
		cmocka_unit_test(app_clocks_floor),
		cmocka_unit_test(power_limit_under_copies),
		cmocka_unit_test(thermal_halves_copies),
		cmocka_unit_test(subscribe_in_callback),
		cmocka_unit_test(gsp_death_and_reset),
		cmocka_unit_test(lost_then_close),
		cmocka_unit_test(heartbeat_misses),
		cmocka_unit_test(alloc_failures),
	};

	return t_main(__FILE__, tests, sizeof(tests) / sizeof(tests[0]), argc,
		      argv);
}

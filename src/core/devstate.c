// SPDX-License-Identifier: MIT
/*
 * DOC: device state (uAPI): rights, reclocking, sensor events, loss, reset
 *
 * Rights. Changing device state (power limit, P-state limits, application
 * clocks, boost) is for clients that hold NVL_CLIENT_DEVICE_STATE, as a
 * DRM ioctl marked DRM_ROOT_ONLY is for files whose opener had
 * CAP_SYS_ADMIN. The right is given when the client is made
 * (nvl_device_client_create2()), and only on a device its opener opened
 * with NVL_DEVICE_OPEN_ADMIN: the opener plays the process that holds the
 * capability, a client the file it opened. A call without the right fails
 * with -EPERM before anything reaches the firmware.
 *
 * Sensor events. One firmware event object on the driver's subdevice,
 * armed for both crossings while any subscriber exists; its callback (on
 * the GSP event thread) counts each crossing for the device's sensor
 * thread, which hands it to every subscriber that asked for it and
 * subscribed before it, under ev_lock, so that unsubscribe can promise no
 * later call (and a slow subscriber holds up no GSP event: channel
 * errors, faults). A new subscription waits on subs_new (sev_lock) for
 * the next delivery to move it to the list, so that subscribing never
 * waits for another subscriber's callback.
 * So a callback cannot subscribe or unsubscribe on its own device (both
 * take ev_lock, held by its caller): those calls answer -EDEADLK (a
 * message for unsubscribe) instead of hanging the event thread.
 *
 * Loss. A watchdog thread sends a heartbeat (a NOP round trip) every
 * period; the RPC layer declares a GSP that stopped reading its queue
 * dead, three unanswered heartbeats do the same; any call that meets a
 * dead GSP checks too. The driver's device then kills every channel
 * (src/nv/device.c, src/nv/chan.c). nvl_device_reset() stops the
 * watchdog, drops the firmware subscription, unloads and boots again, and
 * arms the subscriptions on the new firmware.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "base/alloc.h"
#include "base/client.h"
#include "base/log.h"
#include "base/time.h"
#include "core/device.h"
#include "gsp/gsp.h"
#include "gsp/sensors.h"
#include "hw/regs.h"
#include "mm/bo.h"
#include "nouvelle/device.h"
#include "nv/chan.h"
#include "nv/device.h"
#include "nv/fault.h"
#include "nv/replay.h"

struct nvl_device_sensor_sub {
	struct nvl_list link; /* nvl_device.subs */
	struct nvl_device *dev; /* whose list */
	uint32_t events;
	nvl_device_sensor_fn fn;
	void *arg;
	uint64_t from[2]; /* dev->sev_seen when it subscribed */
};

#define ALL_EVENTS (NVL_SENSOR_EVENT_THERMAL | NVL_SENSOR_EVENT_POWER_CAP)

/* ---- the watchdog ------------------------------------------------------ */

static void *watchdog(void *arg)
{
	struct nvl_device *dev = arg;
	struct timespec ts;

	bool kicked;

	pthread_mutex_lock(&dev->wd_lock);
	while (!dev->wd_stop) {
		if (!dev->wd_kick) {
			ts = nvl_ns_to_timespec(nvl_time_ns() +
						dev->heartbeat_ns);
			pthread_cond_timedwait(&dev->wd_cond, &dev->wd_lock,
					       &ts);
			if (dev->wd_stop)
				break;
		}
		kicked = dev->wd_kick;
		dev->wd_kick = false;
		pthread_mutex_unlock(&dev->wd_lock);
		/* kicked: the GSP was found dead; make the device lost now
		 * (every channel killed, every waiter released) */
		if (kicked)
			(void)nvl_nv_device_check(dev->nv);
		else
			(void)nvl_nv_device_heartbeat(dev->nv,
						      NVL_GSP_TIMEOUT_NS);
		pthread_mutex_lock(&dev->wd_lock);
	}
	pthread_mutex_unlock(&dev->wd_lock);
	return NULL;
}

/* the GSP was declared dead on some thread: the watchdog takes it from
 * there, outside that thread's locks (nvl_nv_device_set_lost_notify) */
static void wd_kick(void *arg)
{
	struct nvl_device *dev = arg;

	pthread_mutex_lock(&dev->wd_lock);
	dev->wd_kick = true;
	pthread_cond_broadcast(&dev->wd_cond);
	pthread_mutex_unlock(&dev->wd_lock);
}

int nvl_device_wd_start(struct nvl_device *dev)
{
	pthread_condattr_t a;
	int ret;

	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&dev->wd_cond, &a);
	pthread_condattr_destroy(&a);
	dev->wd_stop = false;
	/* a thread is an allocation (its stack): failure injection asks */
	ret = nvl_might_alloc(0)
		      ? ENOMEM
		      : pthread_create(&dev->wd_thread, NULL, watchdog, dev);
	if (ret) {
		pthread_cond_destroy(&dev->wd_cond);
		return nvl_error(-ret, "device: no watchdog thread (%d)", ret);
	}
	dev->wd_running = true;
	nvl_nv_device_set_lost_notify(dev->nv, wd_kick, dev);
	return 0;
}

void nvl_device_wd_stop(struct nvl_device *dev)
{
	if (!dev->wd_running)
		return;
	nvl_nv_device_set_lost_notify(dev->nv, NULL, NULL);
	pthread_mutex_lock(&dev->wd_lock);
	dev->wd_stop = true;
	pthread_cond_broadcast(&dev->wd_cond);
	pthread_mutex_unlock(&dev->wd_lock);
	pthread_join(dev->wd_thread, NULL);
	pthread_cond_destroy(&dev->wd_cond);
	dev->wd_running = false;
}

static void *sensor_thread(void *arg);

static void sensor_thread_stop(struct nvl_device *dev)
{
	pthread_mutex_lock(&dev->sev_lock);
	dev->sev_stop = true;
	pthread_cond_signal(&dev->sev_cond);
	pthread_mutex_unlock(&dev->sev_lock);
	pthread_join(dev->sev_thread, NULL);
}

int nvl_device_state_init(struct nvl_device *dev)
{
	int ret;

	pthread_mutex_init(&dev->wd_lock, NULL);
	pthread_mutex_init(&dev->sub_lock, NULL);
	pthread_mutex_init(&dev->ev_lock, NULL);
	pthread_mutex_init(&dev->sev_lock, NULL);
	pthread_cond_init(&dev->sev_cond, NULL);
	nvl_list_init(&dev->subs);
	nvl_list_init(&dev->subs_new);
	ret = pthread_create(&dev->sev_thread, NULL, sensor_thread, dev);
	if (ret)
		ret = nvl_error(-ret, "device: no sensor event thread (%d)",
				ret);
	else if ((ret = nvl_device_wd_start(dev)))
		sensor_thread_stop(dev);
	if (ret) {
		pthread_cond_destroy(&dev->sev_cond);
		pthread_mutex_destroy(&dev->sev_lock);
		pthread_mutex_destroy(&dev->ev_lock);
		pthread_mutex_destroy(&dev->sub_lock);
		pthread_mutex_destroy(&dev->wd_lock);
	}
	return ret;
}

/* end every subscription on @dev's two lists (the caller holds their
 * locks, or no one else reaches them any more) */
static void subs_free(struct nvl_device *dev)
{
	struct nvl_device_sensor_sub *s, *n;

	nvl_list_for_each_entry_safe (s, n, &dev->subs, link) {
		nvl_list_del(&s->link);
		nvl_free(s);
	}
	nvl_list_for_each_entry_safe (s, n, &dev->subs_new, link) {
		nvl_list_del(&s->link);
		nvl_free(s);
	}
}

void nvl_device_state_fini(struct nvl_device *dev)
{
	nvl_device_wd_stop(dev);
	nvl_gsp_sensors_unsubscribe(dev->gsub);
	dev->gsub = NULL;
	/* no on_event() runs any more: the subscribers' thread goes */
	sensor_thread_stop(dev);
	pthread_cond_destroy(&dev->sev_cond);
	pthread_mutex_destroy(&dev->sev_lock);
	/* subscriptions the caller left: end them with the device */
	subs_free(dev);
	pthread_mutex_destroy(&dev->ev_lock);
	pthread_mutex_destroy(&dev->sub_lock);
	pthread_mutex_destroy(&dev->wd_lock);
}

/* ---- rights and reclocking ----------------------------------------- */

NVL_API int nvl_device_client_create2(struct nvl_device *dev, uint32_t flags,
				      struct nvl_client **client_out)
{
	struct nvl_client *c;

	if (!dev || !client_out)
		return nvl_error(-EINVAL, "client: NULL argument");
	if (flags & ~(uint32_t)NVL_CLIENT_DEVICE_STATE)
		return nvl_error(-EINVAL, "client: unknown flags %#x", flags);
	if ((flags & NVL_CLIENT_DEVICE_STATE) &&
	    !(dev->open_flags & NVL_DEVICE_OPEN_ADMIN))
		return nvl_error(-EPERM,
				 "client: the right to change device state "
				 "needs a device opened with "
				 "NVL_DEVICE_OPEN_ADMIN");
	if (atomic_load(&dev->closed))
		return nvl_error(-ENODEV, "client: the device is closed");
	if (nvl_nv_device_check(dev->nv))
		return nvl_error(-ENODEV,
				 "client: the device is lost (reset it)");
	if (nvl_client_alloc(&dev->nv->cdev, &c))
		return nvl_error(-ENOMEM, "client: out of memory");
	/* the client holds the device (dropped by nvl_client_destroy) */
	atomic_fetch_add(&dev->refs, 1);
	c->caps = flags;
	/* the device's client list (fdinfo, nvl_device_clients()) */
	c->udev = dev;
	pthread_mutex_lock(&dev->clients_lock);
	nvl_list_add_tail(&c->dev_node, &dev->clients);
	pthread_mutex_unlock(&dev->clients_lock);
	*client_out = c;
	return 0;
}

/* the device of a client allowed to change its state, or an error */
static int state_client(struct nvl_client *c, const char *what,
			struct nvl_nv_device **d_out)
{
	if (!nvl_nv_device_of(c))
		return nvl_error(-EINVAL, "device: %s: %s", what,
				 c ? "the client has no device"
				   : "NULL client");
	if (!(c->caps & NVL_CLIENT_DEVICE_STATE))
		return nvl_error(-EPERM,
				 "device: %s needs a client allowed to change "
				 "device state (NVL_CLIENT_DEVICE_STATE)",
				 what);
	*d_out = nvl_nv_device_of(c);
	if (nvl_nv_device_check(*d_out))
		return nvl_error(-ENODEV, "device: %s: the device is lost",
				 what);
	return 0;
}

/* after a firmware call: a dead GSP makes the device lost */
static int after(struct nvl_nv_device *d, int ret)
{
	if (ret == -ENODEV || ret == -ETIMEDOUT)
		nvl_nv_device_check(d);
	return ret;
}

NVL_API int nvl_device_set_power_limit(struct nvl_client *client, uint32_t mw)
{
	struct nvl_nv_device *d;
	int ret = state_client(client, "power limit", &d);

	if (ret)
		return ret;
	return after(d,
		     nvl_gsp_set_power_limit(d->gsp, d->h_subdevice, true, mw));
}

NVL_API int nvl_device_set_pstate_limits(struct nvl_client *client,
					 unsigned fastest, unsigned slowest)
{
	struct nvl_nv_device *d;
	int ret = state_client(client, "P-state limits", &d);

	if (ret)
		return ret;
	return after(d, nvl_gsp_set_pstate_limits(d->gsp, d->h_subdevice, true,
						  fastest, slowest));
}

NVL_API int nvl_device_set_app_clocks(struct nvl_client *client,
				      uint32_t gr_mhz, uint32_t mem_mhz)
{
	struct nvl_nv_device *d;
	int ret = state_client(client, "application clocks", &d);

	if (ret)
		return ret;
	return after(d, nvl_gsp_set_app_clocks(d->gsp, d->h_subdevice, true,
					       gr_mhz, mem_mhz));
}

NVL_API int nvl_device_set_boost(struct nvl_client *client, uint32_t seconds)
{
	struct nvl_nv_device *d;
	int ret = state_client(client, "boost", &d);

	if (ret)
		return ret;
	return after(d,
		     nvl_gsp_set_boost(d->gsp, d->h_subdevice, true, seconds));
}

/* ---- sensor events ----------------------------------------------------- */

/* the device whose subscribers this thread is calling (ev_lock held) */
static _Thread_local struct nvl_device *dispatching;

/* the crossing numbered @seq (of its kind, from 1) to every subscriber of
 * @event that subscribed before it was counted */
static void deliver(struct nvl_device *dev, enum nvl_sensor_event event,
		    unsigned kind, uint64_t seq)
{
	struct nvl_device_sensor_sub *s, *n;

	pthread_mutex_lock(&dev->ev_lock);
	pthread_mutex_lock(&dev->sev_lock);
	nvl_list_for_each_entry_safe (s, n, &dev->subs_new, link) {
		nvl_list_del(&s->link);
		nvl_list_add_tail(&s->link, &dev->subs);
	}
	pthread_mutex_unlock(&dev->sev_lock);
	dispatching = dev;
	nvl_list_for_each_entry (s, &dev->subs, link)
		if ((s->events & (uint32_t)event) && seq > s->from[kind])
			s->fn(s->arg, event);
	dispatching = NULL;
	pthread_mutex_unlock(&dev->ev_lock);
}

/* the subscribers' thread: each crossing counted by on_event(), in turn */
static void *sensor_thread(void *arg)
{
	static const enum nvl_sensor_event ev[2] = {NVL_SENSOR_EVENT_THERMAL,
						    NVL_SENSOR_EVENT_POWER_CAP};
	struct nvl_device *dev = arg;

	pthread_mutex_lock(&dev->sev_lock);
	while (!dev->sev_stop) {
		bool any = false;

		while (dev->sev_count && !dev->sev_stop) {
			uint32_t h = dev->sev_head;
			unsigned i = (dev->sev_order[h / 64] >> (h % 64)) & 1;
			uint64_t seq;

			/* the oldest crossing not yet delivered, of any kind:
			 * in the order they happened */
			dev->sev_head = (h + 1) % NVL_DEVICE_SEV_QUEUE;
			dev->sev_count--;
			seq = dev->sev_seen[i] - dev->sev_pending[i] + 1;
			dev->sev_pending[i]--;
			any = true;
			pthread_mutex_unlock(&dev->sev_lock);
			deliver(dev, ev[i], i, seq);
			pthread_mutex_lock(&dev->sev_lock);
		}
		if (!any && !dev->sev_stop)
			pthread_cond_wait(&dev->sev_cond, &dev->sev_lock);
	}
	pthread_mutex_unlock(&dev->sev_lock);
	return NULL;
}

/* on the GSP's event thread: count the crossing for the subscribers'
 * thread, which calls them (a slow subscriber must not hold up the GSP
 * events behind it: channel errors, faults) */
static void on_event(void *arg, enum nvl_sensor_event event)
{
	struct nvl_device *dev = arg;
	unsigned i = event == NVL_SENSOR_EVENT_THERMAL ? 0 : 1;

	pthread_mutex_lock(&dev->sev_lock);
	if (dev->sev_count == NVL_DEVICE_SEV_QUEUE) {
		/* a subscriber has held up this many crossings: this one is
		 * not counted (nor told) */
		pthread_mutex_unlock(&dev->sev_lock);
		nvl_warn(NVL_CAT_NV,
			 "device: %u sensor crossings wait for a slow "
			 "subscriber: one dropped",
			 NVL_DEVICE_SEV_QUEUE);
		return;
	}
	{
		uint32_t t =
			(dev->sev_head + dev->sev_count) % NVL_DEVICE_SEV_QUEUE;

		dev->sev_order[t / 64] &= ~(1ull << (t % 64));
		dev->sev_order[t / 64] |= (uint64_t)i << (t % 64);
		dev->sev_count++;
	}
	dev->sev_pending[i]++;
	dev->sev_seen[i]++;
	pthread_cond_signal(&dev->sev_cond);
	pthread_mutex_unlock(&dev->sev_lock);
}

/* sub_lock held */
static int arm(struct nvl_device *dev)
{
	if (dev->gsub)
		return 0;
	return nvl_gsp_sensors_subscribe(dev->nv->gsp, dev->nv->h_subdevice,
					 ALL_EVENTS, on_event, dev, &dev->gsub);
}

NVL_API int nvl_device_sensors_subscribe(struct nvl_device *dev,
					 uint32_t events,
					 nvl_device_sensor_fn fn, void *arg,
					 struct nvl_device_sensor_sub **sub_out)
{
	struct nvl_device_sensor_sub *s;
	int ret;

	if (!dev || !fn || !sub_out || !events || (events & ~ALL_EVENTS))
		return nvl_error(-EINVAL,
				 "device: bad sensor subscription (events "
				 "%#x)",
				 events);
	if (dispatching == dev)
		return nvl_error(-EDEADLK, "device: subscribe from one of the "
					   "device's sensor callbacks");
	s = nvl_zalloc(sizeof(*s));
	if (!s)
		return nvl_error(-ENOMEM, "device: out of memory");
	*s = (struct nvl_device_sensor_sub){
		.dev = dev, .events = events, .fn = fn, .arg = arg};
	pthread_mutex_lock(&dev->sub_lock);
	ret = nvl_nv_device_check(dev->nv)
		      ? nvl_error(-ENODEV, "device: the device is lost")
		      : after(dev->nv, arm(dev));
	if (!ret) {
		/* not under ev_lock: a callback may be running there */
		pthread_mutex_lock(&dev->sev_lock);
		s->from[0] = dev->sev_seen[0];
		s->from[1] = dev->sev_seen[1];
		nvl_list_add_tail(&s->link, &dev->subs_new);
		pthread_mutex_unlock(&dev->sev_lock);
	}
	pthread_mutex_unlock(&dev->sub_lock);
	if (ret) {
		nvl_free(s);
		return ret;
	}
	*sub_out = s;
	return 0;
}

NVL_API void nvl_device_sensors_unsubscribe(struct nvl_device *dev,
					    struct nvl_device_sensor_sub *sub)
{
	bool empty;

	if (!dev || !sub)
		return;
	if (sub->dev != dev) {
		/* it is on the other device's list, under its locks */
		nvl_error(-EINVAL, "device: unsubscribe of another device's "
				   "subscription ignored");
		return;
	}
	if (dispatching == dev) {
		nvl_error(-EDEADLK, "device: unsubscribe from one of the "
				    "device's sensor callbacks ignored");
		return;
	}
	pthread_mutex_lock(&dev->sub_lock);
	pthread_mutex_lock(&dev->ev_lock);
	pthread_mutex_lock(&dev->sev_lock);
	nvl_list_del(&sub->link); /* from subs or subs_new */
	empty = nvl_list_empty(&dev->subs) && nvl_list_empty(&dev->subs_new);
	pthread_mutex_unlock(&dev->sev_lock);
	pthread_mutex_unlock(&dev->ev_lock);
	if (empty) {
		nvl_gsp_sensors_unsubscribe(dev->gsub);
		dev->gsub = NULL;
	}
	pthread_mutex_unlock(&dev->sub_lock);
	nvl_free(sub);
}

bool nvl_device_subs_end(struct nvl_device *dev)
{
	if (dispatching == dev)
		return false;
	pthread_mutex_lock(&dev->sub_lock);
	pthread_mutex_lock(&dev->ev_lock);
	pthread_mutex_lock(&dev->sev_lock);
	subs_free(dev);
	pthread_mutex_unlock(&dev->sev_lock);
	pthread_mutex_unlock(&dev->ev_lock);
	nvl_gsp_sensors_unsubscribe(dev->gsub);
	dev->gsub = NULL;
	pthread_mutex_unlock(&dev->sub_lock);
	return true;
}

/* ---- loss and reset -------------------------------------------------- */

NVL_API int nvl_device_status(struct nvl_device *dev)
{
	if (!dev)
		return nvl_error(-EINVAL, "device: NULL device");
	return nvl_nv_device_check(dev->nv);
}

NVL_API int nvl_device_reset(struct nvl_device *dev)
{
	int ret, ret2;

	if (!dev)
		return nvl_error(-EINVAL, "device: NULL device");
	if (!nvl_nv_device_check(dev->nv))
		return nvl_error(-EBUSY,
				 "device: reset: the device is not lost");
	nvl_device_wd_stop(dev);
	pthread_mutex_lock(&dev->sub_lock);
	/* the dead firmware's event object goes with it */
	nvl_gsp_sensors_unsubscribe(dev->gsub);
	dev->gsub = NULL;
	if (dev->nv->gsp)
		nvl_gsp_set_irq_chain(dev->nv->gsp, NULL, NULL);
	/* the shadow fault buffer and RC handlers were the dead firmware's */
	nvl_nv_fault_fini(dev->nv);
	nvl_nv_replay_fini(dev->nv);
	ret = nvl_nv_device_reset(dev->nv);
	/* a reset ends a suspend the device was lost in: VRAM is on */
	if (!atomic_load(&dev->nv->suspended))
		atomic_store(&dev->mm->vram_off, false);
	if (!ret)
		ret = nvl_nv_fault_init(
			dev->nv, dev->nv->boot0 >> NVL_HW_BOOT_0_ARCH_SHIFT &
					 NVL_HW_BOOT_0_ARCH_MASK);
	if (!ret)
		ret = nvl_nv_replay_init(
			dev->nv, dev->nv->boot0 >> NVL_HW_BOOT_0_ARCH_SHIFT &
					 NVL_HW_BOOT_0_ARCH_MASK);
	if (!ret) {
		bool any;

		nvl_gsp_set_irq_chain(dev->nv->gsp, nvl_nv_irq, dev->nv);
		/* (a delivery may be moving subs_new to subs) */
		pthread_mutex_lock(&dev->sev_lock);
		any = !nvl_list_empty(&dev->subs) ||
		      !nvl_list_empty(&dev->subs_new);
		pthread_mutex_unlock(&dev->sev_lock);
		if (any && arm(dev))
			nvl_warn(NVL_CAT_NV,
				 "device: reset: sensor events not armed "
				 "again: %s",
				 nvl_error_msg());
	}
	pthread_mutex_unlock(&dev->sub_lock);
	ret2 = nvl_device_wd_start(dev);
	if (!ret)
		ret = ret2;
	if (ret && !nvl_nv_device_check(dev->nv)) {
		/* booted, but the driver's half is missing (its fault or
		 * replay buffer, the watchdog): the device stays lost, as
		 * after a failed boot, and a later reset starts over */
		char why[256];

		snprintf(why, sizeof(why), "reset failed: %s", nvl_error_msg());
		nvl_nv_device_lost(dev->nv, why);
		nvl_error(ret, "device: %s", why);
	}
	return ret;
}

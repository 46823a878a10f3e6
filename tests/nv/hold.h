/* SPDX-License-Identifier: MIT */
/*
 * Holding a device's GSP event thread in a POST_EVENT handler until the
 * test releases it (bounded: the handler gives up after 30 s), so that
 * events queue up behind it. Shared by nv_faults and nv_fault_audit.
 */
#ifndef NVL_TESTS_NV_HOLD_H
#define NVL_TESTS_NV_HOLD_H

#include <pthread.h>
#include <stdbool.h>
#include <time.h>

#include "core/device.h"
#include "firmware/abi/535.113.01/gsp.h"
#include "gsp/gsp.h"
#include "model/gsp/gsp.h"
#include "t.h"

struct hold {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool held, release;
};

#define HOLD_INIT                                                              \
	{                                                                      \
		.lock = PTHREAD_MUTEX_INITIALIZER,                             \
		.cond = PTHREAD_COND_INITIALIZER                               \
	}

static inline void hold_on_event(void *arg, uint32_t event, uint32_t result,
				 const void *data, size_t len)
{
	struct hold *h = arg;
	struct timespec ts;

	(void)event, (void)result, (void)data, (void)len;
	clock_gettime(CLOCK_REALTIME, &ts); /* the condition's clock */
	ts.tv_sec += 30;
	pthread_mutex_lock(&h->lock);
	h->held = true;
	pthread_cond_broadcast(&h->cond);
	while (!h->release &&
	       pthread_cond_timedwait(&h->cond, &h->lock, &ts) == 0)
		;
	pthread_mutex_unlock(&h->lock);
}

/* register the holding handler on @gsp; @post posts the event that it
 * holds; returns once the handler holds the event thread */
static inline void hold_event_thread(struct nvl_device *dev,
				     struct nvl_gsp *gsp, struct hold *h,
				     void (*post)(struct nvl_device *dev))
{
	assert_int_equal(nvl_gsp_event_register(gsp,
						NV_VGPU_MSG_EVENT_POST_EVENT,
						hold_on_event, h),
			 0);
	post(dev);
	pthread_mutex_lock(&h->lock);
	while (!h->held)
		pthread_cond_wait(&h->cond, &h->lock);
	pthread_mutex_unlock(&h->lock);
}

/* let the held handler return */
static inline void hold_release(struct hold *h)
{
	pthread_mutex_lock(&h->lock);
	h->release = true;
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->lock);
}

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Sensor-event subscribers of the device (nvl_device_sensors_subscribe())
 * and the heat that makes them fire, shared by nv_sensors_audit and
 * nv_reset_audit: a counting subscriber, a slow one whose first call
 * blocks until the test lets it go, the bounded wait for a count, and
 * the room's temperature on the PMU's simulated time.
 */
#ifndef NVL_TESTS_NV_SUBS_H
#define NVL_TESTS_NV_SUBS_H

#include <stdatomic.h>
#include <unistd.h>

#include <nouvelle/nouvelle.h>

#include "base/time.h"
#include "hw/regs.h"
#include "model/model.h"
#include "model/pmu.h"
#include "t.h"

/* the room's temperature (THERM_AMBIENT: the model's environment, not a
 * driver control); then 20 s of the PMU's simulated time for the chip to
 * follow it (across the slowdown temperature and back, in these tests) */
static inline void room(struct nvl_model *m, uint32_t ambient_mc)
{
	nvl_hw_wr32(nvl_model_hw(m), NVL_HW_THERM_AMBIENT, ambient_mc);
	nvl_model_pmu_sim_advance(m, 20 * NVL_NSEC_PER_SEC);
}

/* @arg an atomic_int: one more per call */
static inline void count_event(void *arg, enum nvl_sensor_event e)
{
	(void)e;
	atomic_fetch_add((atomic_int *)arg, 1);
}

/* @v reaches @want (bounded), then a little more for a late one */
static inline int events_reach(atomic_int *v, int want)
{
	for (int i = 0; i < 5000 && atomic_load(v) < want; i++)
		usleep(1000);
	usleep(50000);
	return atomic_load(v);
}

/* a subscriber that takes its time: its first call blocks until the
 * test sets @release (10 s at most) */
struct slow {
	atomic_int calls, blocked, release;
};

static inline void slow_event(void *arg, enum nvl_sensor_event e)
{
	struct slow *sl = arg;

	(void)e;
	if (atomic_fetch_add(&sl->calls, 1))
		return;
	atomic_store(&sl->blocked, 1);
	for (int i = 0; i < 10000 && !atomic_load(&sl->release); i++)
		usleep(1000);
	atomic_store(&sl->blocked, 0);
}

/* wait (bounded) until @sl's first call blocks */
static inline void slow_wait_blocked(struct slow *sl)
{
	for (int i = 0; i < 5000 && !atomic_load(&sl->blocked); i++)
		usleep(1000);
	assert_int_equal(atomic_load(&sl->blocked), 1);
}

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The set-up the sensor tests share (gsp_sensors, gsp_sensors_audit): a
 * booted kit with root -> device -> subdevice and the PMU on simulated
 * time, a read that must succeed, an event counter, and a read under
 * allocation-failure injection.
 */
#ifndef NVL_TESTS_GSP_SENSORS_KIT_H
#define NVL_TESTS_GSP_SENSORS_KIT_H

#include <stdatomic.h>

#include "gsp/sensors.h"
#include "kit.h"
#include "model/pmu.h"

#define MS 1000000ull
#define SEC 1000000000ull

struct sub_tree {
	uint32_t root, dev, sub;
};

/* boot @profile, make @t; from then on the PMU runs on simulated time
 * only (nvl_model_pmu_sim_advance()) */
static inline void up(struct kit *k, struct sub_tree *t, const char *profile)
{
	kit_up(k, profile);
	kit_tree(k, &t->root, &t->dev, &t->sub);
	nvl_model_pmu_sim_advance(k->m, 0);
}

static inline void rd(struct kit *k, struct sub_tree *t, struct nvl_sensors *s)
{
	assert_int_equal(nvl_gsp_sensors_read(k->gsp, t->sub, s), 0);
}

/* a subscriber's count of each event */
struct evs {
	atomic_uint thermal, power;
};

static inline void on_event(void *arg, enum nvl_sensor_event ev)
{
	struct evs *e = arg;

	if (ev == NVL_SENSOR_EVENT_THERMAL)
		atomic_fetch_add(&e->thermal, 1);
	else if (ev == NVL_SENSOR_EVENT_POWER_CAP)
		atomic_fetch_add(&e->power, 1);
}

/* a read under t_fail_each_alloc(read_op, read_check, struct read_af *):
 * a failed read returns -ENOMEM and leaves the caller's struct untouched */
struct read_af {
	struct kit k;
	struct sub_tree t;
	struct nvl_sensors s;
};

static inline int read_op(void *arg)
{
	struct read_af *a = arg;

	a->s.valid = 0xabcd;
	return nvl_gsp_sensors_read(a->k.gsp, a->t.sub, &a->s);
}

static inline void read_check(int ret, void *arg)
{
	struct read_af *a = arg;

	assert_int_equal(ret, -ENOMEM);
	assert_int_equal(a->s.valid, 0xabcd);
}

#endif

// SPDX-License-Identifier: MIT
/*
 * TEST: nv_sensors_audit
 * Description: an adversarial look at the device's sensor events
 * (include/nouvelle/device.h nvl_device_sensors_subscribe()): each test
 * names the promise it checks. The heat is the model's environment
 * (THERM_AMBIENT) on the PMU's simulated time, not a driver control.
 */
#include <errno.h>
#include <stdatomic.h>
#include <unistd.h>

#include <nouvelle/nouvelle.h>

#include "base/time.h"
#include "core/device.h"
#include "firmware/abi/535.113.01/gsp.h"
#include "gsp/gsp.h"
#include "hw/regs.h"
#include "model/gsp/gsp.h"
#include "model/gsp/perf.h"
#include "model/model.h"
#include "model/pmu.h"
#include "nv/device.h"
#include "subs.h"
#include "t.h"

#define SEC 1000000000ull

/*
 * device.h: a slow callback "delays only the sensor events behind it":
 * another thread's subscribe does not wait for it (it waited for the
 * callback to return: 10 s here). And a subscriber is "told of the
 * crossings in @events", once per crossing: those after it subscribed. A
 * crossing that happened before (its delivery waiting behind the slow
 * callback) is not news to the new subscriber: the old one gets it, the
 * new one not.
 */
static void no_crossing_from_before(void **state)
{
	struct nvl_device_sensor_sub *a, *b;
	struct slow sl = {0};
	struct nvl_device *dev;
	atomic_int nb = 0;
	uint64_t t0;

	(void)state;
	assert_int_equal(nvl_device_open("model:tu102", NULL, &dev), 0);
	nvl_model_pmu_sim_advance(dev->model, 0);
	assert_int_equal(nvl_device_sensors_subscribe(dev,
						      NVL_SENSOR_EVENT_THERMAL,
						      slow_event, &sl, &a),
			 0);
	/* the first crossing: a blocks in its callback */
	room(dev->model, 95000);
	slow_wait_blocked(&sl);
	/* a second crossing, counted, its delivery behind a's callback */
	room(dev->model, 25000);
	room(dev->model, 95000);
	assert_int_equal(
		nvl_model_gsp_perf_posted(dev->model,
					  NVL2080_NOTIFIERS_THERMAL_SLOWDOWN),
		2);
	assert_int_equal(nvl_gsp_event_flush(dev->nv->gsp, NVL_GSP_TIMEOUT_NS),
			 0);
	/* b comes after both crossings, at once */
	t0 = nvl_time_ns();
	assert_int_equal(nvl_device_sensors_subscribe(dev,
						      NVL_SENSOR_EVENT_THERMAL,
						      count_event, &nb, &b),
			 0);
	if (nvl_time_ns() - t0 > 3 * SEC)
		fail_msg("subscribe waited %.1f s for another callback",
			 (double)(nvl_time_ns() - t0) / 1e9);
	assert_int_equal(atomic_load(&sl.blocked), 1);
	atomic_store(&sl.release, 1);
	assert_int_equal(events_reach(&sl.calls, 2), 2);
	assert_int_equal(atomic_load(&nb), 0);
	/* a third crossing: both are told */
	room(dev->model, 25000);
	room(dev->model, 95000);
	assert_int_equal(events_reach(&nb, 1), 1);
	assert_int_equal(events_reach(&sl.calls, 3), 3);
	nvl_device_sensors_unsubscribe(dev, b);
	nvl_device_sensors_unsubscribe(dev, a);
	nvl_device_close(dev);
}

/* a slow subscriber that also logs what it was told, in order */
struct slow_log {
	struct slow sl;
	enum nvl_sensor_event ev[16];
	atomic_int n;
};

static void slow_log_event(void *arg, enum nvl_sensor_event e)
{
	struct slow_log *l = arg;
	int i = atomic_load(&l->n);

	if (i < (int)NVL_ARRAY_SIZE(l->ev))
		l->ev[i] = e;
	atomic_store(&l->n, i + 1);
	slow_event(&l->sl, e);
}

/* a POWER_CAP crossing and its end: two busy engines under an 80 W
 * limit (tu102: 140 W at full clock), then idle under the default one */
static void cap(struct nvl_model *m, bool on)
{
	assert_int_equal(nvl_model_pmu_set_load(m, 0, on ? 1000 : 0), 0);
	assert_int_equal(nvl_model_pmu_set_load(m, 1, on ? 1000 : 0), 0);
	assert_int_equal(nvl_model_pmu_set_power_limit(
				 m, on ? 80000 : m->profile->tdp_mw),
			 0);
	nvl_model_pmu_sim_advance(m, 5 * SEC);
}

/*
 * device.h: the callback runs "once per crossing": the crossings reach a
 * subscriber in the order they happened, also those whose delivery
 * waited behind a slow callback. A first POWER_CAP blocks the
 * subscriber; meanwhile a second POWER_CAP, then a THERMAL crossing are
 * counted: it is told POWER_CAP, POWER_CAP, THERMAL. Before session 19
 * the device's sensor thread handed out the waiting crossings by kind,
 * THERMAL first: POWER_CAP, THERMAL, POWER_CAP.
 */
static void waiting_crossings_in_order(void **state)
{
	struct nvl_device_sensor_sub *a;
	struct slow_log l = {0};
	struct nvl_device *dev;

	(void)state;
	assert_int_equal(nvl_device_open("model:tu102", NULL, &dev), 0);
	nvl_model_pmu_sim_advance(dev->model, 0);
	assert_int_equal(
		nvl_device_sensors_subscribe(dev,
					     NVL_SENSOR_EVENT_THERMAL |
						     NVL_SENSOR_EVENT_POWER_CAP,
					     slow_log_event, &l, &a),
		0);
	cap(dev->model, true);
	slow_wait_blocked(&l.sl);
	cap(dev->model, false);
	cap(dev->model, true);
	cap(dev->model, false);
	room(dev->model, 95000);
	assert_int_equal(nvl_model_gsp_perf_posted(dev->model,
						   NVL2080_NOTIFIERS_POWER_CAP),
			 2);
	assert_int_equal(
		nvl_model_gsp_perf_posted(dev->model,
					  NVL2080_NOTIFIERS_THERMAL_SLOWDOWN),
		1);
	assert_int_equal(nvl_gsp_event_flush(dev->nv->gsp, NVL_GSP_TIMEOUT_NS),
			 0);
	atomic_store(&l.sl.release, 1);
	assert_int_equal(events_reach(&l.n, 3), 3);
	assert_int_equal(l.ev[0], NVL_SENSOR_EVENT_POWER_CAP);
	assert_int_equal(l.ev[1], NVL_SENSOR_EVENT_POWER_CAP);
	assert_int_equal(l.ev[2], NVL_SENSOR_EVENT_THERMAL);
	nvl_device_sensors_unsubscribe(dev, a);
	nvl_device_close(dev);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_crossing_from_before),
		cmocka_unit_test(waiting_crossings_in_order),
	};

	return t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
}

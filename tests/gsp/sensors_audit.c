// SPDX-License-Identifier: MIT
/*
 * TEST: gsp_sensors_audit
 *
 * An adversarial look at sensors and reclocking through the model's GSP
 * firmware (docs/sensors.md), in simulated time
 * (nvl_model_pmu_sim_advance(), model-only). Each test names the promise
 * it checks; what tests/gsp/sensors.c already covers is not repeated.
 *
 * Facts: ../shared/reference/gsp-firmware.md 3.2
 * (NV2080_CTRL_THERMAL_SYSTEM_GET_STATUS_SENSOR_READING: an NvS32 in
 * degrees C); user-tools.md 1.2 (temperature.gpu whole degrees C,
 * clocks_event_reasons bits 0x8 HW slowdown, 0x40 HW thermal).
 */
#include "gsp/priv.h"
#include "gspabi.h"
#include "hw/regs.h"
#include "model/gsp/perf.h"
#include "sensors_kit.h"

/* millidegrees to whole degrees, to the nearest (half away from zero) */
static int32_t nearest_deg(int32_t mc)
{
	return (mc < 0 ? mc - 500 : mc + 500) / 1000;
}

/* ---- units -------------------------------------------------------------- */

/*
 * The GPU temperature is a signed whole number of degrees (the sensor
 * reading's NvS32, the reading range the firmware itself reports starts
 * at -40 C), the nearest to the chip's temperature: below zero as above
 * (a chip at -35.7 C reads -36, not -35).
 */
static void temperature_below_zero(void **state)
{
	struct nvl_model_pmu_state st;
	struct nvl_sensors s;
	struct sub_tree t;
	struct kit k;

	(void)state;
	up(&k, &t, "tu102");
	/* a freezer: the model's environment, not a driver control */
	nvl_hw_wr32(nvl_model_hw(k.m), NVL_HW_THERM_AMBIENT, (uint32_t)-40000);
	nvl_model_pmu_sim_advance(k.m, 60 * SEC);
	rd(&k, &t, &s);
	nvl_model_pmu_get(k.m, &st);
	assert_true(st.temp_mc < -1000);
	assert_true(nvl_sensors_has(&s, NVL_SENSOR_GPU_TEMP));
	assert_int_equal(s.gpu_temp_c, nearest_deg(st.temp_mc));
	/* a value that truncation and rounding tell apart: -30.6 C */
	nvl_hw_wr32(nvl_model_hw(k.m), NVL_HW_THERM_AMBIENT,
		    (uint32_t)(-30600 - (st.temp_mc + 40000)));
	nvl_model_pmu_sim_advance(k.m, 120 * SEC);
	rd(&k, &t, &s);
	nvl_model_pmu_get(k.m, &st);
	assert_true(st.temp_mc % 1000 < -500 || st.temp_mc % 1000 > -500);
	assert_int_equal(s.gpu_temp_c, nearest_deg(st.temp_mc));
	kit_down(&k);
}

/* ---- events ------------------------------------------------------------- */

/*
 * A chip held at its slowdown temperature: loaded, it runs hotter than
 * the limit; halved, cooler. Thermal slowdown must not flip the clock
 * between full and half every PMU step, nor post an event per step: it
 * engages above the limit and lets go only once the chip has cooled a
 * margin below it, so the events are few (one per real engagement) and
 * each one matches an engagement.
 */
static void thermal_oscillation(void **state)
{
	struct nvl_gsp_sensor_sub *sub;
	struct nvl_model_pmu_state st;
	struct evs ev = {0};
	struct sub_tree t;
	struct kit k;
	unsigned edges = 0, flips = 0;
	bool hot = false;

	(void)state;
	up(&k, &t, "tu102");
	assert_int_equal(nvl_gsp_sensors_subscribe(k.gsp, t.sub,
						   NVL_SENSOR_EVENT_THERMAL,
						   on_event, &ev, &sub),
			 0);
	/* tu102, one copy engine busy: 80 W at full clock (T_amb + 16 C),
	 * 35 W halved (T_amb + 7 C); slowdown at 91 C */
	assert_int_equal(nvl_model_pmu_set_load(k.m, 0, 1000), 0);
	nvl_hw_wr32(nvl_model_hw(k.m), NVL_HW_THERM_AMBIENT, 80000);
	for (int i = 0; i < 1000; i++) { /* 10 s, every 10 ms step seen */
		bool now;

		nvl_model_pmu_sim_advance(k.m, 10 * MS);
		nvl_model_pmu_get(k.m, &st);
		now = st.reasons & NVL_MODEL_PMU_REASON_THERMAL;
		edges += now && !hot;
		flips += now != hot;
		hot = now;
	}
	assert_int_equal(nvl_gsp_event_flush(k.gsp, NVL_GSP_TIMEOUT_NS), 0);
	/* it did reach the limit, and held it */
	assert_true(edges >= 1);
	if (flips > 10)
		fail_msg("thermal slowdown flipped %u times in 10 s", flips);
	assert_int_equal(atomic_load(&ev.thermal), edges);
	assert_int_equal(nvl_model_gsp_perf_posted(
				 k.m, NVL2080_NOTIFIERS_THERMAL_SLOWDOWN),
			 edges);
	nvl_gsp_sensors_unsubscribe(sub);
	kit_down(&k);
}

/* ---- reclocking ---------------------------------------------------------- */

/*
 * PERF_BOOST's duration is in seconds, bounded by
 * NV2080_CTRL_PERF_BOOST_DURATION_MAX (3600: an hour), or
 * NV2080_CTRL_PERF_BOOST_DURATION_INFINITE (0xffffffff, until cleared);
 * the control's documented status for a bad argument is
 * NV_ERR_INVALID_ARGUMENT (ctrl2080perf.h, NV2080_CTRL_PERF_BOOST_PARAMS).
 * A longer request is refused, by the driver with a message before
 * anything is sent and by the firmware when it is sent anyway, and
 * changes nothing; before session 19 the firmware took any duration and
 * silently clamped it to 49.7 days (a 32-bit millisecond count). An hour
 * is served whole.
 */
static void boost_longer_than_an_hour(void **state)
{
	NV2080_CTRL_PERF_BOOST_PARAMS bp = {
		.flags = NV2080_CTRL_PERF_BOOST_FLAGS_CMD_BOOST_TO_MAX,
	};
	struct nvl_model_pmu_state st;
	struct sub_tree t;
	struct kit k;

	(void)state;
	up(&k, &t, "tu102");
	/* requested P8, so that a boost shows */
	nvl_hw_wr32(nvl_model_hw(k.m), NVL_HW_PERF_PSTATE, 2);
	assert_int_equal(nvl_gsp_set_boost(k.gsp, t.sub, true, 3601), -EINVAL);
	assert_non_null(strstr(nvl_error_msg(), "3600"));
	assert_int_equal(nvl_gsp_set_boost(k.gsp, t.sub, true, 60 * 86400),
			 -EINVAL);
	/* the firmware refuses it too */
	bp.duration = 3601;
	assert_int_equal(nvl_gsp_rm_control(k.gsp, t.sub,
					    NV2080_CTRL_CMD_PERF_BOOST, &bp,
					    sizeof(bp)),
			 -EINVAL);
	bp.duration = 0xfffffffe;
	assert_int_equal(nvl_gsp_rm_control(k.gsp, t.sub,
					    NV2080_CTRL_CMD_PERF_BOOST, &bp,
					    sizeof(bp)),
			 -EINVAL);
	nvl_model_pmu_get(k.m, &st);
	assert_false(st.boost);
	assert_int_equal(st.pstate_id, 8);
	/* the longest one runs its hour, then ends */
	assert_int_equal(nvl_gsp_set_boost(k.gsp, t.sub, true, 3600), 0);
	nvl_model_pmu_sim_advance(k.m, 3599 * SEC);
	nvl_model_pmu_get(k.m, &st);
	assert_true(st.boost);
	assert_int_equal(st.pstate_id, 0);
	nvl_model_pmu_sim_advance(k.m, 2 * SEC);
	nvl_model_pmu_get(k.m, &st);
	assert_false(st.boost);
	assert_int_equal(st.pstate_id, 8);
	kit_down(&k);
}

/* the events a subscriber was told of, in the order it was told */
struct evlog {
	atomic_uint n;
	enum nvl_sensor_event ev[64];
};

static void log_event(void *arg, enum nvl_sensor_event ev)
{
	struct evlog *l = arg;
	unsigned i = atomic_load(&l->n);

	if (i < NVL_ARRAY_SIZE(l->ev)) {
		l->ev[i] = ev;
		atomic_store(&l->n, i + 1);
	}
}

/*
 * Crossings reach the subscriber in the order they happened. Under load
 * a low power limit caps the clock within a few hundred ms; a hot room
 * takes seconds to heat the chip over its slowdown temperature: both in
 * one stretch of the PMU's time (one integration), the POWER_CAP crossing
 * first. Before session 19 the PMU reported a THERMAL crossing before a
 * POWER_CAP one whatever their order.
 */
static void events_in_order(void **state)
{
	struct nvl_gsp_sensor_sub *sub;
	struct evlog l = {0};
	struct sub_tree t;
	struct kit k;

	(void)state;
	up(&k, &t, "tu102");
	assert_int_equal(
		nvl_gsp_sensors_subscribe(k.gsp, t.sub,
					  NVL_SENSOR_EVENT_THERMAL |
						  NVL_SENSOR_EVENT_POWER_CAP,
					  log_event, &l, &sub),
		0);
	/* tu102: two busy engines draw 140 W at full clock, 80 W capped
	 * (T_amb + 16 C); slowdown at 91 C, reached ~8 s into an 80 C room */
	assert_int_equal(nvl_model_pmu_set_load(k.m, 0, 1000), 0);
	assert_int_equal(nvl_model_pmu_set_load(k.m, 1, 1000), 0);
	assert_int_equal(nvl_model_pmu_set_power_limit(k.m, 80000), 0);
	nvl_hw_wr32(nvl_model_hw(k.m), NVL_HW_THERM_AMBIENT, 80000);
	nvl_model_pmu_sim_advance(k.m, 20 * SEC);
	assert_int_equal(nvl_gsp_event_flush(k.gsp, NVL_GSP_TIMEOUT_NS), 0);
	assert_true(atomic_load(&l.n) >= 2);
	assert_int_equal(l.ev[0], NVL_SENSOR_EVENT_POWER_CAP);
	assert_int_equal(l.ev[1], NVL_SENSOR_EVENT_THERMAL);
	nvl_gsp_sensors_unsubscribe(sub);
	kit_down(&k);
}

/*
 * A power draw that hovers at the cap: the power-cap reason (and its
 * POWER_CAP event) must not flip with every ripple of the load. tu102,
 * two busy engines draw 140 W at full clock; under a 140 W limit (set
 * point 98 %: 137.2 W) the second engine's load alternates between 100 %
 * and 90 % every half second (140 W / 134 W at full clock). The
 * controller caps in the first half-second and lets the clock come back
 * in the 90 % halves; the reason stays (one crossing, one event) until
 * the draw at the unreduced clock is well under the limit (idle: it
 * goes). Before session 19 the reason flipped every half-second: 20
 * flips and 10 POWER_CAP events in 10 s.
 */
static void power_cap_hovering(void **state)
{
	struct nvl_gsp_sensor_sub *sub;
	struct nvl_model_pmu_state st;
	struct evs ev = {0};
	struct sub_tree t;
	struct kit k;
	unsigned edges = 0, flips = 0;
	bool capped = false;

	(void)state;
	up(&k, &t, "tu102");
	assert_int_equal(nvl_gsp_sensors_subscribe(k.gsp, t.sub,
						   NVL_SENSOR_EVENT_POWER_CAP,
						   on_event, &ev, &sub),
			 0);
	assert_int_equal(nvl_model_pmu_set_power_limit(k.m, 140000), 0);
	assert_int_equal(nvl_model_pmu_set_load(k.m, 0, 1000), 0);
	for (int i = 0; i < 1000; i++) { /* 10 s, every 10 ms step seen */
		bool now;

		if (i % 50 == 0)
			assert_int_equal(nvl_model_pmu_set_load(
						 k.m, 1, i % 100 ? 900 : 1000),
					 0);
		nvl_model_pmu_sim_advance(k.m, 10 * MS);
		nvl_model_pmu_get(k.m, &st);
		now = st.reasons & NVL_MODEL_PMU_REASON_POWER_CAP;
		edges += now && !capped;
		flips += now != capped;
		capped = now;
	}
	assert_int_equal(nvl_gsp_event_flush(k.gsp, NVL_GSP_TIMEOUT_NS), 0);
	if (flips > 2)
		fail_msg("the power-cap reason flipped %u times in 10 s",
			 flips);
	assert_int_equal(edges, 1);
	assert_true(capped);
	assert_int_equal(atomic_load(&ev.power), 1);
	assert_int_equal(
		nvl_model_gsp_perf_posted(k.m, NVL2080_NOTIFIERS_POWER_CAP), 1);
	/* idle: the reason goes */
	assert_int_equal(nvl_model_pmu_set_load(k.m, 0, 0), 0);
	assert_int_equal(nvl_model_pmu_set_load(k.m, 1, 0), 0);
	nvl_model_pmu_sim_advance(k.m, 2 * SEC);
	nvl_model_pmu_get(k.m, &st);
	assert_false(st.reasons & NVL_MODEL_PMU_REASON_POWER_CAP);
	assert_int_equal(st.gpc_mhz, k.m->profile->pstates[0].gpc_mhz);
	nvl_gsp_sensors_unsubscribe(sub);
	kit_down(&k);
}

/*
 * util_gpu is nvidia-smi's utilization.gpu: the share of the sample
 * period during which one or more engines was busy (user-tools.md 1.2:
 * the share of the last period with at least one kernel running), the
 * union of the engines' busy time, not the busiest engine's share.
 * Copy engines 0 and 1 busy in the two disjoint halves of every 100 ms
 * for 2 s: some engine was always busy, so util_gpu is 100 %; each
 * engine's own share (util_engine[]) stays about half. Before session 19
 * util_gpu was the busiest engine's share: 62 % here.
 */
static void util_gpu_any_engine(void **state)
{
	struct nvl_sensors s;
	struct sub_tree t;
	struct kit k;

	(void)state;
	up(&k, &t, "tu102");
	for (int i = 0; i < 40; i++) {
		assert_int_equal(
			nvl_model_pmu_set_load(k.m, 0, i % 2 ? 0 : 1000), 0);
		assert_int_equal(
			nvl_model_pmu_set_load(k.m, 1, i % 2 ? 1000 : 0), 0);
		nvl_model_pmu_sim_advance(k.m, 50 * MS);
	}
	rd(&k, &t, &s);
	assert_true(nvl_sensors_has(&s, NVL_SENSOR_UTIL_GPU));
	assert_true(nvl_sensors_has(&s, NVL_SENSOR_UTIL_ENGINES));
	assert_in_range(s.util_engine[0], 3000, 7000);
	assert_in_range(s.util_engine[1], 3000, 7000);
	assert_int_equal(s.util_gpu, 10000);
	kit_down(&k);
}

/*
 * Application clocks are a pair from the board's supported-clock table
 * (NVML's nvmlDeviceSetApplicationsClocks takes a memory and graphics
 * pair listed by nvmlDeviceGetSupportedMemoryClocks / _GraphicsClocks and
 * refuses another with NVML_ERROR_INVALID_ARGUMENT; nvidia-smi -ac passes
 * them on). The model's table: graphics clocks every 15 MHz from the
 * slowest P-state's to the fastest's, memory clocks those of its
 * P-states (tu102: 300..1545 MHz; 405 and 7000 MHz). A clock off the
 * table in range is refused (-EINVAL, NV_ERR_INVALID_ARGUMENT) and
 * changes nothing; before session 19 any clock in range was taken.
 */
static void app_clocks_off_table(void **state)
{
	struct nvl_model_pmu_state st;
	struct sub_tree t;
	struct kit k;

	(void)state;
	up(&k, &t, "tu102");
	assert_int_equal(nvl_gsp_set_app_clocks(k.gsp, t.sub, true, 1035, 7000),
			 0);
	assert_int_equal(nvl_gsp_set_app_clocks(k.gsp, t.sub, true, 901, 0),
			 -EINVAL);
	assert_int_equal(nvl_gsp_set_app_clocks(k.gsp, t.sub, true, 0, 5000),
			 -EINVAL);
	assert_int_equal(nvl_gsp_set_app_clocks(k.gsp, t.sub, true, 1544, 405),
			 -EINVAL);
	nvl_model_pmu_get(k.m, &st);
	assert_int_equal(st.app_gpc_mhz, 1035);
	assert_int_equal(st.app_mem_mhz, 7000);
	/* on the table */
	assert_int_equal(nvl_gsp_set_app_clocks(k.gsp, t.sub, true, 915, 405),
			 0);
	nvl_model_pmu_get(k.m, &st);
	assert_int_equal(st.gpc_mhz, 915);
	assert_int_equal(st.mem_mhz, 405);
	assert_int_equal(nvl_gsp_set_app_clocks(k.gsp, t.sub, true, 300, 0), 0);
	assert_int_equal(nvl_gsp_set_app_clocks(k.gsp, t.sub, true, 1545, 0),
			 0);
	kit_down(&k);
}

/* ---- a real GSP-RM ------------------------------------------------------ */

/*
 * docs/sensors.md: a real GSP-RM answers nouvelle's own controls
 * NV_ERR_NOT_SUPPORTED and "the same driver code degrades to
 * temperature, P-state and utilisation". The P-state is NVIDIA's
 * PERF_GET_CURRENT_PSTATE (0x20802068, Pn = 1 << n, ctrl2080perf.h),
 * which such a firmware answers; and the sample has a timestamp
 * (nvl_sensors.timestamp_ns, no validity bit: never a silent 0), the
 * firmware's time of its perfmon sample (the V2 sample's
 * base.timeStamp).
 */
static void real_firmware_degrades(void **state)
{
	static const uint32_t ours[] = {
		NVL2080_CTRL_CMD_MULTI_CONTROL,
		NVL2080_CTRL_CMD_PMGR_GET_STATUS,
		NVL2080_CTRL_CMD_CLK_GET_INFO,
		NVL2080_CTRL_CMD_PERF_GET_UTIL,
		NVL2080_CTRL_CMD_PERF_GET_STATUS,
	};
	struct nvl_model_pmu_state st;
	struct nvl_sensors s;
	struct sub_tree t;
	struct kit k;

	(void)state;
	up(&k, &t, "tu102");
	for (unsigned i = 0; i < NVL_ARRAY_SIZE(ours); i++)
		assert_int_equal(nvl_model_gsp_perf_disable(k.m, ours[i], true),
				 0);
	nvl_model_pmu_sim_advance(k.m, 5 * SEC);
	/* a P-state other than P0: P5..P8, requested P8 */
	assert_int_equal(nvl_model_pmu_set_pstate_limits(k.m, 1, 2), 0);
	nvl_hw_wr32(nvl_model_hw(k.m), NVL_HW_PERF_PSTATE, 2);
	rd(&k, &t, &s);
	nvl_model_pmu_get(k.m, &st);
	assert_true(nvl_sensors_has(&s, NVL_SENSOR_GPU_TEMP));
	assert_true(nvl_sensors_has(&s, NVL_SENSOR_UTIL_GPU));
	assert_false(nvl_sensors_has(&s, NVL_SENSOR_POWER));
	assert_false(nvl_sensors_has(&s, NVL_SENSOR_CLK_GR));
	assert_false(nvl_sensors_has(&s, NVL_SENSOR_THROTTLE));
	assert_true(nvl_sensors_has(&s, NVL_SENSOR_PSTATE));
	assert_int_equal(s.pstate, 8);
	assert_int_equal(s.pstate, st.pstate_id);
	assert_int_equal(s.timestamp_ns, st.time_ns);
	assert_true(s.timestamp_ns >= 5 * SEC);
	kit_down(&k);
}

/*
 * docs/sensors.md: any failure fails the read and leaves the caller's
 * struct untouched, on the fallback too (a firmware without the multi
 * control: its controls' messages and NVIDIA's wire images are allocated
 * per read); then a read succeeds with the P-state.
 */
static void fallback_alloc_failures(void **state)
{
	struct read_af *a = calloc(1, sizeof(*a));

	(void)state;
	assert_non_null(a);
	up(&a->k, &a->t, "tu102");
	assert_int_equal(nvl_model_gsp_perf_disable(
				 a->k.m, NVL2080_CTRL_CMD_MULTI_CONTROL, true),
			 0);
	assert_true(t_fail_each_alloc(read_op, read_check, a, 100) >= 1);
	assert_true(nvl_sensors_has(&a->s, NVL_SENSOR_PSTATE));
	assert_true(nvl_sensors_has(&a->s, NVL_SENSOR_POWER));
	kit_down(&a->k);
	free(a);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(temperature_below_zero),
		cmocka_unit_test(thermal_oscillation),
		cmocka_unit_test(real_firmware_degrades),
		cmocka_unit_test(fallback_alloc_failures),
		cmocka_unit_test(boost_longer_than_an_hour),
		cmocka_unit_test(events_in_order),
		cmocka_unit_test(power_cap_hovering),
		cmocka_unit_test(util_gpu_any_engine),
		cmocka_unit_test(app_clocks_off_table),
	};

	return t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
}

// SPDX-License-Identifier: MIT
/*
 * TEST: gsp_sensors
 *
 * Sensors and reclocking through the model's GSP firmware, in simulated
 * time (nvl_model_pmu_sim_advance(), model-only): each field against the
 * model PMU's state; fields absent when the chip lacks the sensor or the
 * firmware the control; thermal slowdown halves the graphics clock;
 * sustained load under a lower power limit brings board power under the
 * limit and raising it restores the clocks; one event per crossing;
 * privilege for every reclocking control; copy-engine speed follows the
 * graphics clock; allocation failures in read and subscribe; a firmware
 * version whose generated layer lacks a control's struct: those fields
 * absent, the rest read, its reclocking control -EOPNOTSUPP.
 *
 * Facts: ../shared/reference/gsp-firmware.md 3.2 (THERMAL_SYSTEM_EXECUTE_V2
 * 0x20800513 and its opcodes, PERF_BOOST 0x2080200a,
 * PERF_GET_GPUMON_PERFMON_UTIL_SAMPLES_V2 0x20802096); ctrl2080perf.h
 * PERF_GET_CURRENT_PSTATE 0x20802068 (Pn = 1 << n); public
 * NV2080_CTRL_CLK_DOMAIN GPCCLK 0x1, MCLK 0x10, NVDCLK 0x100000;
 * user-tools.md 1.2 (clocks_event_reasons bits).
 */
#include "gsp/priv.h"
#include "gspabi.h"
#include "model/gsp/perf.h"
#include "sensors_kit.h"

static uint64_t rpcs(struct kit *k);

static int32_t deg(int32_t mc)
{
	return (mc + 500) / 1000;
}

/* every field against the PMU's (frozen, simulated-time) state */
static void check_fields(const char *profile)
{
	const struct nvl_model_profile *pr;
	struct nvl_model_pmu_state st;
	struct nvl_sensors s;
	struct sub_tree t;
	struct kit k;

	up(&k, &t, profile);
	pr = k.m->profile;
	assert_int_equal(nvl_model_pmu_set_load(k.m, 0, 500), 0);
	nvl_model_pmu_sim_advance(k.m, 2 * SEC);
	rd(&k, &t, &s);
	nvl_model_pmu_get(k.m, &st);

	assert_int_equal(s.timestamp_ns, st.time_ns);
	assert_true(nvl_sensors_has(&s, NVL_SENSOR_GPU_TEMP));
	assert_int_equal(s.gpu_temp_c, deg(st.temp_mc));
	assert_true(s.gpu_temp_c > 25); /* warmed by the load */
	/* memory temperature: HBM chips only (a sensor on target MEMORY) */
	assert_int_equal(nvl_sensors_has(&s, NVL_SENSOR_MEM_TEMP),
			 pr->mem_sensor);
	if (pr->mem_sensor)
		assert_int_equal(s.mem_temp_c, deg(st.mem_temp_mc));
	else
		assert_int_equal(s.mem_temp_c, 0);
	assert_true(nvl_sensors_has(&s, NVL_SENSOR_POWER));
	assert_int_equal(s.power_mw, st.power_mw);
	assert_true(s.power_mw > pr->idle_mw);
	assert_int_equal(s.power_limit_mw, pr->tdp_mw);
	assert_int_equal(s.power_default_mw, pr->tdp_mw);
	assert_int_equal(s.energy_mj, st.energy_mj);
	assert_true(s.energy_mj > 2 * pr->idle_mw / 2); /* > half idle * 2 s */
	assert_int_equal(s.clk_gr_mhz, pr->pstates[0].gpc_mhz);
	assert_int_equal(s.clk_mem_mhz, pr->pstates[0].mem_mhz);
	assert_int_equal(s.clk_video_mhz, st.video_mhz);
	assert_int_equal(s.clk_gr_max_mhz, pr->pstates[0].gpc_mhz);
	assert_int_equal(s.clk_mem_max_mhz, pr->pstates[0].mem_mhz);
	assert_int_equal(s.clk_video_max_mhz, st.video_max_mhz);
	assert_true(nvl_sensors_has(&s, NVL_SENSOR_PSTATE));
	assert_int_equal(s.pstate, pr->pstates[0].id);
	{
		/* NVIDIA's control agrees: Pn as bit n */
		NV2080_CTRL_PERF_GET_CURRENT_PSTATE_PARAMS cp = {0};

		assert_int_equal(
			nvl_gsp_rm_control(
				k.gsp, t.sub,
				NV2080_CTRL_CMD_PERF_GET_CURRENT_PSTATE, &cp,
				sizeof(cp)),
			0);
		assert_int_equal(cp.currPstate, 1u << pr->pstates[0].id);
		nvl_hw_wr32(nvl_model_hw(k.m), NVL_HW_PERF_PSTATE, 2);
		assert_int_equal(
			nvl_gsp_rm_control(
				k.gsp, t.sub,
				NV2080_CTRL_CMD_PERF_GET_CURRENT_PSTATE, &cp,
				sizeof(cp)),
			0);
		assert_int_equal(cp.currPstate, 1u << pr->pstates[2].id);
		nvl_hw_wr32(nvl_model_hw(k.m), NVL_HW_PERF_PSTATE, 0);
	}
	/* utilisation from the firmware's sample: engine 0 half busy */
	assert_true(nvl_sensors_has(&s, NVL_SENSOR_UTIL_ENGINES));
	assert_int_equal(s.num_engines, pr->num_ce);
	assert_int_equal(s.util_engine[0], 5000);
	for (unsigned e = 1; e < pr->num_ce; e++)
		assert_int_equal(s.util_engine[e], 0);
	assert_int_equal(s.util_gpu, 5000);
	assert_int_equal(s.util_mem, 5000 / pr->num_ce);
	assert_true(nvl_sensors_has(&s, NVL_SENSOR_THROTTLE));
	assert_int_equal(s.throttle, 0); /* busy, cool, under the limit */
	assert_true(s.throttle_supported & NVL_THROTTLE_SW_POWER_CAP);
	assert_int_equal(nvl_sensors_has(&s, NVL_SENSOR_FAN), pr->fan);
	if (pr->fan)
		assert_int_equal(s.fan_pct, st.fan_pct);

	/* idle: the reason shows once the activity has decayed */
	assert_int_equal(nvl_model_pmu_set_load(k.m, 0, 0), 0);
	nvl_model_pmu_sim_advance(k.m, 2 * SEC);
	rd(&k, &t, &s);
	assert_int_equal(s.throttle, NVL_THROTTLE_GPU_IDLE);
	assert_int_equal(s.util_engine[0], 0);
	kit_down(&k);
}

static void fields_tu102(void **state)
{
	check_fields("tu102");
}

static void fields_gh100(void **state)
{
	check_fields("gh100");
}

/* a firmware with neither samples control: NVIDIA's
 * PERF_GET_GPUMON_PERFMON_UTIL_SAMPLES_V2 nor the reduced PERF_GET_UTIL */
static void samples_off(struct kit *k)
{
	assert_int_equal(
		nvl_model_gsp_perf_disable(
			k->m,
			NV2080_CTRL_CMD_PERF_GET_GPUMON_PERFMON_UTIL_SAMPLES_V2,
			true),
		0);
	assert_int_equal(nvl_model_gsp_perf_disable(
				 k->m, NVL2080_CTRL_CMD_PERF_GET_UTIL, true),
			 0);
}

/* a firmware without a control: its fields absent, the rest present */
static void absent_without_control(void **state)
{
	const uint64_t power = NVL_SENSOR_BIT(NVL_SENSOR_POWER) |
			       NVL_SENSOR_BIT(NVL_SENSOR_POWER_LIMIT) |
			       NVL_SENSOR_BIT(NVL_SENSOR_ENERGY);
	const uint64_t temp = NVL_SENSOR_BIT(NVL_SENSOR_GPU_TEMP);
	struct nvl_sensors s;
	struct sub_tree t;
	struct kit k;
	uint64_t all;

	up(&k, &t, "tu102");
	/* before any perfmon sample: no per-engine figures (a firmware
	 * with neither samples control, NVIDIA's nor the reduced one) */
	samples_off(&k);
	rd(&k, &t, &s);
	assert_false(nvl_sensors_has(&s, NVL_SENSOR_UTIL_ENGINES));
	assert_false(nvl_sensors_has(&s, NVL_SENSOR_UTIL_GPU));
	assert_false(nvl_sensors_has(&s, NVL_SENSOR_UTIL_MEM));
	assert_int_equal(s.util_gpu, 0);
	assert_true(nvl_sensors_has(&s, NVL_SENSOR_PSTATE));
	/* NVIDIA's control only: sent alone after the multi control, the
	 * utilisation from its ring (the perf status, which ran before it,
	 * has no sample yet on this first one) */
	nvl_model_gsp_perf_disable(
		k.m, NV2080_CTRL_CMD_PERF_GET_GPUMON_PERFMON_UTIL_SAMPLES_V2,
		false);
	{
		uint64_t n0 = rpcs(&k);

		rd(&k, &t, &s);
		assert_int_equal(rpcs(&k) - n0, 2);
	}
	assert_true(nvl_sensors_has(&s, NVL_SENSOR_UTIL_GPU));
	assert_true(nvl_sensors_has(&s, NVL_SENSOR_UTIL_MEM));
	assert_false(nvl_sensors_has(&s, NVL_SENSOR_UTIL_ENGINES));
	rd(&k, &t, &s);
	assert_true(nvl_sensors_has(&s, NVL_SENSOR_UTIL_ENGINES));
	nvl_model_gsp_perf_disable(k.m, NVL2080_CTRL_CMD_PERF_GET_UTIL, false);
	rd(&k, &t, &s);
	all = s.valid;
	assert_true((all & power) == power);
	assert_true(all & temp);
	assert_int_equal(nvl_model_gsp_perf_disable(
				 k.m, NVL2080_CTRL_CMD_PMGR_GET_STATUS, true),
			 0);
	assert_int_equal(
		nvl_model_gsp_perf_disable(
			k.m, NV2080_CTRL_CMD_THERMAL_SYSTEM_EXECUTE_V2, true),
		0);
	rd(&k, &t, &s);
	assert_int_equal(s.valid, all & ~power & ~temp);
	assert_int_equal(s.power_mw, 0);
	assert_int_equal(s.gpu_temp_c, 0);
	/* the rest still read */
	assert_int_equal(s.clk_gr_mhz, k.m->profile->pstates[0].gpc_mhz);
	/* the samples controls off: no sample, utilisation absent too */
	samples_off(&k);
	rd(&k, &t, &s);
	assert_false(nvl_sensors_has(&s, NVL_SENSOR_UTIL_GPU));
	/* the perf status still reports the last sample the firmware took */
	assert_true(nvl_sensors_has(&s, NVL_SENSOR_UTIL_ENGINES));
	assert_true(nvl_sensors_has(&s, NVL_SENSOR_THROTTLE));
	/* back on */
	nvl_model_gsp_perf_disable(k.m, NVL2080_CTRL_CMD_PMGR_GET_STATUS,
				   false);
	nvl_model_gsp_perf_disable(
		k.m, NV2080_CTRL_CMD_THERMAL_SYSTEM_EXECUTE_V2, false);
	nvl_model_gsp_perf_disable(
		k.m, NV2080_CTRL_CMD_PERF_GET_GPUMON_PERFMON_UTIL_SAMPLES_V2,
		false);
	nvl_model_gsp_perf_disable(k.m, NVL2080_CTRL_CMD_PERF_GET_UTIL, false);
	rd(&k, &t, &s);
	assert_int_equal(s.valid, all);
	/* a bad subdevice fails the read, nothing written */
	memset(&s, 0x5a, sizeof(s));
	assert_int_equal(nvl_gsp_sensors_read(k.gsp, 0xcaf0ffff, &s), -ENOENT);
	assert_int_equal(s.valid, 0x5a5a5a5a5a5a5a5aull);
	assert_int_equal(nvl_gsp_sensors_read(k.gsp, t.sub, NULL), -EINVAL);
	assert_true(strlen(nvl_error_msg()) > 0);
	/* a dead GSP: -ENODEV at once, nothing written, no -EPERM masking */
	nvl_gsp_mark_dead(k.gsp, "test");
	assert_int_equal(nvl_gsp_sensors_read(k.gsp, t.sub, &s), -ENODEV);
	assert_int_equal(s.valid, 0x5a5a5a5a5a5a5a5aull);
	assert_int_equal(nvl_gsp_set_power_limit(k.gsp, t.sub, true, 100000),
			 -ENODEV);
	assert_int_equal(nvl_gsp_set_power_limit(k.gsp, t.sub, false, 100000),
			 -EPERM);
	kit_down(&k);
}

static void flush(struct kit *k)
{
	assert_int_equal(nvl_gsp_event_flush(k->gsp, NVL_GSP_TIMEOUT_NS), 0);
}

/* sustained load, lower limit: power converges under it; raise: restored */
static void power_limit_convergence(void **state)
{
	const struct nvl_model_profile *pr;
	struct nvl_gsp_sensor_sub *sub;
	struct evs ev = {0};
	struct nvl_sensors s;
	struct sub_tree t;
	struct kit k;
	uint32_t limit, fmax, prev;

	up(&k, &t, "tu102");
	pr = k.m->profile;
	fmax = pr->pstates[0].gpc_mhz;
	assert_int_equal(
		nvl_gsp_sensors_subscribe(k.gsp, t.sub,
					  NVL_SENSOR_EVENT_POWER_CAP |
						  NVL_SENSOR_EVENT_THERMAL,
					  on_event, &ev, &sub),
		0);
	/* two copy engines fully busy: 20 W + 2 x 60 W = 140 W < 250 W */
	assert_int_equal(nvl_model_pmu_set_load(k.m, 0, 1000), 0);
	assert_int_equal(nvl_model_pmu_set_load(k.m, 1, 1000), 0);
	nvl_model_pmu_sim_advance(k.m, 1 * SEC);
	rd(&k, &t, &s);
	assert_int_equal(s.clk_gr_mhz, fmax);
	assert_true(s.power_mw > 130000 && s.power_mw < 250000);
	assert_false(s.throttle & NVL_THROTTLE_SW_POWER_CAP);

	limit = 80000;
	assert_int_equal(nvl_gsp_set_power_limit(k.gsp, t.sub, true, limit), 0);
	/* the clock comes down step by step; 5 s of sustained load */
	prev = fmax;
	for (int i = 0; i < 50; i++) {
		nvl_model_pmu_sim_advance(k.m, 100 * MS);
		rd(&k, &t, &s);
		assert_true(s.clk_gr_mhz <= prev);
		prev = s.clk_gr_mhz;
		if (i >= 10) /* converged within 1 s, then stays under */
			assert_true(s.power_mw <= limit);
	}
	assert_int_equal(s.power_limit_mw, limit);
	assert_true(s.power_mw >= limit * 95 / 100);
	assert_true(s.clk_gr_mhz < fmax * 3 / 4);
	assert_true(s.throttle & NVL_THROTTLE_SW_POWER_CAP);
	flush(&k);
	assert_int_equal(atomic_load(&ev.power), 1); /* one crossing */
	assert_int_equal(
		nvl_model_gsp_perf_posted(k.m, NVL2080_NOTIFIERS_POWER_CAP), 1);

	/* the copy engine slowed with the clock */
	assert_true(nvl_model_pmu_ce_ns(k.m, 1ull << 30) >
		    (1ull << 30) * 1000 / (NVL_MODEL_CE_BYTES_PER_CLK * fmax) *
			    5 / 4);

	/* raise it back: full clock, no cap */
	assert_int_equal(
		nvl_gsp_set_power_limit(k.gsp, t.sub, true, pr->tdp_mw), 0);
	nvl_model_pmu_sim_advance(k.m, 3 * SEC);
	rd(&k, &t, &s);
	assert_int_equal(s.clk_gr_mhz, fmax);
	assert_false(s.throttle & NVL_THROTTLE_SW_POWER_CAP);
	assert_true(s.power_mw > limit);

	/* a second crossing: a second event */
	assert_int_equal(nvl_gsp_set_power_limit(k.gsp, t.sub, true, limit), 0);
	nvl_model_pmu_sim_advance(k.m, 2 * SEC);
	flush(&k);
	assert_int_equal(atomic_load(&ev.power), 2);
	assert_int_equal(atomic_load(&ev.thermal), 0);
	/* out of range: refused, unchanged */
	assert_int_equal(
		nvl_gsp_set_power_limit(k.gsp, t.sub, true, pr->idle_mw - 1),
		-EINVAL);
	rd(&k, &t, &s);
	assert_int_equal(s.power_limit_mw, limit);
	nvl_gsp_sensors_unsubscribe(sub);
	kit_down(&k);
}

/* above the slowdown temperature the clock is halved; once per crossing */
static void thermal_slowdown_halves(void **state)
{
	struct nvl_gsp_sensor_sub *sub;
	struct evs ev = {0};
	struct nvl_hw *hw;
	struct nvl_sensors s;
	struct sub_tree t;
	struct kit k;
	uint32_t fmax;

	up(&k, &t, "tu102");
	hw = nvl_model_hw(k.m);
	fmax = k.m->profile->pstates[0].gpc_mhz;
	assert_int_equal(nvl_gsp_sensors_subscribe(k.gsp, t.sub,
						   NVL_SENSOR_EVENT_THERMAL,
						   on_event, &ev, &sub),
			 0);
	rd(&k, &t, &s);
	assert_int_equal(s.clk_gr_mhz, fmax);
	/* a hot room: the model's environment, not a driver control */
	nvl_hw_wr32(hw, NVL_HW_THERM_AMBIENT, 95000);
	nvl_model_pmu_sim_advance(k.m, 20 * SEC);
	rd(&k, &t, &s);
	assert_true(s.gpu_temp_c > k.m->profile->slowdown_mc / 1000);
	assert_int_equal(s.clk_gr_mhz, fmax / 2);
	assert_int_equal(s.clk_video_mhz, fmax / 2 * 3 / 4);
	assert_true(s.throttle & NVL_THROTTLE_HW_THERMAL);
	assert_true(s.throttle & NVL_THROTTLE_HW_SLOWDOWN);
	nvl_model_pmu_sim_advance(k.m, 20 * SEC); /* still hot */
	flush(&k);
	assert_int_equal(atomic_load(&ev.thermal), 1);
	/* cool down: the clock is back */
	nvl_hw_wr32(hw, NVL_HW_THERM_AMBIENT, 25000);
	nvl_model_pmu_sim_advance(k.m, 30 * SEC);
	rd(&k, &t, &s);
	assert_int_equal(s.clk_gr_mhz, fmax);
	assert_false(s.throttle & NVL_THROTTLE_HW_THERMAL);
	/* heat again: a second crossing, a second event */
	nvl_hw_wr32(hw, NVL_HW_THERM_AMBIENT, 95000);
	nvl_model_pmu_sim_advance(k.m, 20 * SEC);
	flush(&k);
	assert_int_equal(atomic_load(&ev.thermal), 2);
	assert_int_equal(atomic_load(&ev.power), 0); /* not subscribed */
	nvl_gsp_sensors_unsubscribe(sub);
	/* unsubscribed: no more deliveries */
	nvl_hw_wr32(hw, NVL_HW_THERM_AMBIENT, 25000);
	nvl_model_pmu_sim_advance(k.m, 30 * SEC);
	nvl_hw_wr32(hw, NVL_HW_THERM_AMBIENT, 95000);
	nvl_model_pmu_sim_advance(k.m, 20 * SEC);
	flush(&k);
	assert_int_equal(atomic_load(&ev.thermal), 2);
	kit_down(&k);
}

/* every reclocking control: -EPERM without privilege, effects with it */
static void reclock_controls(void **state)
{
	const struct nvl_model_profile *pr;
	struct nvl_model_pmu_state st0, st;
	struct nvl_sensors s;
	struct sub_tree t;
	struct kit k;

	up(&k, &t, "tu102");
	pr = k.m->profile; /* P0 1545, P5 1035, P8 300 MHz */
	nvl_model_pmu_get(k.m, &st0);
	assert_int_equal(nvl_gsp_set_power_limit(k.gsp, t.sub, false, 100000),
			 -EPERM);
	assert_true(strstr(nvl_error_msg(), "power limit") != NULL);
	assert_int_equal(nvl_gsp_set_pstate_limits(k.gsp, t.sub, false, 5, 8),
			 -EPERM);
	assert_int_equal(nvl_gsp_set_app_clocks(k.gsp, t.sub, false, 900, 0),
			 -EPERM);
	assert_int_equal(nvl_gsp_set_boost(k.gsp, t.sub, false, 10), -EPERM);
	nvl_model_pmu_get(k.m, &st);
	assert_int_equal(st.power_limit_mw, st0.power_limit_mw);
	assert_int_equal(st.pstate_fast, st0.pstate_fast);
	assert_int_equal(st.app_gpc_mhz, 0);
	assert_false(st.boost);

	/* application clocks */
	assert_int_equal(nvl_gsp_set_app_clocks(k.gsp, t.sub, true, 900, 0), 0);
	rd(&k, &t, &s);
	assert_int_equal(s.clk_gr_mhz, 900);
	assert_true(s.throttle & NVL_THROTTLE_APP_CLOCKS);
	/* the copy engine follows: 1545/900 times slower */
	assert_int_equal(nvl_model_pmu_ce_ns(k.m, 1ull << 30),
			 (1ull << 30) * 1000 /
				 (NVL_MODEL_CE_BYTES_PER_CLK * 900));
	assert_int_equal(nvl_gsp_set_app_clocks(k.gsp, t.sub, true, 5000, 0),
			 -EINVAL);
	assert_int_equal(nvl_gsp_set_app_clocks(k.gsp, t.sub, true, 0, 0), 0);
	rd(&k, &t, &s);
	assert_int_equal(s.clk_gr_mhz, pr->pstates[0].gpc_mhz);
	assert_false(s.throttle & NVL_THROTTLE_APP_CLOCKS);

	/* P-state limits: P5..P8 */
	assert_int_equal(nvl_gsp_set_pstate_limits(k.gsp, t.sub, true, 5, 8),
			 0);
	rd(&k, &t, &s);
	assert_int_equal(s.pstate, 5);
	assert_int_equal(s.clk_gr_mhz, pr->pstates[1].gpc_mhz);
	assert_int_equal(nvl_gsp_set_pstate_limits(k.gsp, t.sub, true, 8, 5),
			 -EINVAL);
	assert_int_equal(nvl_gsp_set_pstate_limits(k.gsp, t.sub, true, 3, 8),
			 -EINVAL); /* no P3 on this chip */
	/* requested P8 inside the limits, then a boost to the fastest allowed */
	nvl_hw_wr32(nvl_model_hw(k.m), NVL_HW_PERF_PSTATE, 2);
	rd(&k, &t, &s);
	assert_int_equal(s.pstate, 8);
	assert_int_equal(nvl_gsp_set_boost(k.gsp, t.sub, true, 2), 0);
	rd(&k, &t, &s);
	assert_int_equal(s.pstate, 5);
	nvl_model_pmu_sim_advance(k.m, 3 * SEC); /* the boost ran out */
	rd(&k, &t, &s);
	assert_int_equal(s.pstate, 8);
	assert_int_equal(nvl_gsp_set_pstate_limits(k.gsp, t.sub, true, 0, 8),
			 0);
	assert_int_equal(nvl_gsp_set_boost(k.gsp, t.sub, true, UINT32_MAX), 0);
	nvl_model_pmu_sim_advance(k.m, 100 * SEC);
	rd(&k, &t, &s);
	assert_int_equal(s.pstate, 0);
	assert_int_equal(s.clk_gr_mhz, pr->pstates[0].gpc_mhz);
	assert_int_equal(nvl_gsp_set_boost(k.gsp, t.sub, true, 0), 0);
	rd(&k, &t, &s);
	assert_int_equal(s.pstate, 8);
	kit_down(&k);
}

/* the copy engine's accounted speed follows the clock on real copies */
static void ce_speed_follows_clock(void **state)
{
	struct nvl_model_pmu_state st;
	struct kit k;
	uint64_t full, half;

	kit_create(&k, "tiny");
	nvl_model_pmu_get(k.m, &st);
	full = nvl_model_pmu_ce_ns(k.m, 64ull << 20);
	assert_int_equal(full,
			 (64ull << 20) * 1000 /
				 (NVL_MODEL_CE_BYTES_PER_CLK * st.gpc_mhz));
	assert_int_equal(nvl_model_pmu_set_app_clocks(k.m, st.gpc_mhz / 2, 0),
			 0);
	half = nvl_model_pmu_ce_ns(k.m, 64ull << 20);
	assert_true(half >= 2 * full - 1 && half <= 2 * full + 1);
	nvl_model_pmu_ce_account(k.m, 0, 64ull << 20);
	{
		uint64_t b, ns;

		nvl_model_pmu_ce_stats(k.m, 0, &b, &ns);
		assert_int_equal(b, 64ull << 20);
		assert_int_equal(ns, half);
	}
	kit_down(&k);
}

/* allocation failures: read and subscribe fail cleanly */
struct af {
	struct read_af r;
	struct nvl_gsp_sensor_sub *sub;
	unsigned objs;
};

static int sub_op(void *arg)
{
	struct af *a = arg;
	static struct evs ev;

	a->sub = NULL;
	return nvl_gsp_sensors_subscribe(a->r.k.gsp, a->r.t.sub,
					 NVL_SENSOR_EVENT_THERMAL, on_event,
					 &ev, &a->sub);
}

static void sub_check(int ret, void *arg)
{
	struct af *a = arg;

	assert_int_equal(ret, -ENOMEM);
	assert_null(a->sub);
	assert_int_equal(nvl_gsp_rm_count(a->r.k.gsp), a->objs);
}

static void alloc_failures(void **state)
{
	struct af *a = nvl_zalloc(sizeof(*a));

	assert_non_null(a);
	up(&a->r.k, &a->r.t, "tiny");
	/* a read allocates once (its structs and the multi control's
	 * message in one piece) */
	assert_true(t_fail_each_alloc(read_op, read_check, &a->r, 100) >= 1);
	assert_true(nvl_sensors_has(&a->r.s, NVL_SENSOR_POWER));
	a->objs = nvl_gsp_rm_count(a->r.k.gsp);
	assert_true(t_fail_each_alloc(sub_op, sub_check, a, 100) >= 1);
	assert_non_null(a->sub);
	/* one subscriber per GSP */
	{
		struct nvl_gsp_sensor_sub *other;
		struct evs ev;

		assert_int_equal(
			nvl_gsp_sensors_subscribe(a->r.k.gsp, a->r.t.sub,
						  NVL_SENSOR_EVENT_THERMAL,
						  on_event, &ev, &other),
			-EBUSY);
	}
	nvl_gsp_sensors_unsubscribe(a->sub);
	assert_int_equal(nvl_gsp_rm_count(a->r.k.gsp), a->objs);
	kit_down(&a->r.k);
	nvl_free(a);
}

static uint64_t rpcs(struct kit *k)
{
	struct nvl_gsp_stats st;

	nvl_gsp_get_stats(k->gsp, &st);
	return st.rpcs;
}

#define MULTI_SLOTS (2 * NVL2080_CTRL_MULTI_CONTROL_MAX)

/* a multi control of @n entries of PERF_GET_CURRENT_PSTATE (+ @extra
 * bytes, to break the size sum); its result */
static int multi_pstate(struct kit *k, struct sub_tree *t, uint32_t n,
			uint32_t nested, size_t extra, uint32_t *status0)
{
	struct {
		NVL2080_CTRL_MULTI_CONTROL_PARAMS h;
		NV2080_CTRL_PERF_GET_CURRENT_PSTATE_PARAMS p[MULTI_SLOTS];
		uint8_t pad[8];
	} m = {.h.count = n};
	size_t size = sizeof(m.h) + extra;
	int ret;

	for (uint32_t i = 0; i < n && i < NVL2080_CTRL_MULTI_CONTROL_MAX; i++) {
		m.h.entries[i].cmd =
			i == nested ? NVL2080_CTRL_CMD_MULTI_CONTROL
				    : NV2080_CTRL_CMD_PERF_GET_CURRENT_PSTATE;
		m.h.entries[i].paramsSize = sizeof(m.p[0]);
		m.h.entries[i].status = 0xdead;
		size += 8; /* sizeof(m.p[0]) == 4, padded to 8 */
	}
	ret = nvl_gsp_rm_control(k->gsp, t->sub, NVL2080_CTRL_CMD_MULTI_CONTROL,
				 &m, size);
	if (status0)
		*status0 = m.h.entries[0].status;
	return ret;
}

/* the samples control, then PERF_GET_CURRENT_PSTATE */
struct multi_util {
	NVL2080_CTRL_MULTI_CONTROL_PARAMS h;
	NV2080_CTRL_PERF_GET_GPUMON_PERFMON_UTIL_SAMPLES_V2_PARAMS u;
	NV2080_CTRL_PERF_GET_CURRENT_PSTATE_PARAMS p;
	uint32_t pad;
};

/*
 * struct multi_util as a multi control whose command carries the samples
 * control's first @in bytes (its inSize; 0: all) and the P-state's 8,
 * less @cut bytes; the reply, whole, in *@m. Its result.
 */
static int multi_util_in(struct kit *k, struct sub_tree *t, uint32_t in,
			 size_t cut, struct multi_util *m)
{
	size_t hdr = nvl_gsp_rm_control_hdr(k->gsp), got = 0, sent;
	uint8_t *msg =
		calloc(1, hdr + sizeof(*m) + 16); /* + an inSize too big */
	struct multi_util *w = (void *)(msg + hdr);
	size_t keep = in ? in : sizeof(w->u);
	int ret;

	assert_non_null(msg);
	assert_int_equal(sizeof(w->u) % 8, 0);
	w->h.count = 2;
	w->h.entries[0].cmd =
		NV2080_CTRL_CMD_PERF_GET_GPUMON_PERFMON_UTIL_SAMPLES_V2;
	w->h.entries[0].paramsSize = sizeof(w->u);
	w->h.entries[0].inSize = in;
	w->h.entries[1].cmd = NV2080_CTRL_CMD_PERF_GET_CURRENT_PSTATE;
	w->h.entries[1].paramsSize = sizeof(w->p);
	w->u.type = NV2080_CTRL_GPUMON_SAMPLE_TYPE_PERFMON_UTIL;
	w->u.bufSize = sizeof(w->u.samples);
	/* the command: the samples' first bytes, the P-state's right after */
	memmove((uint8_t *)&w->u + keep, &w->p, 8);
	sent = sizeof(w->h) + keep + 8 - cut;
	ret = nvl_gsp_rm_control_frame(
		k->gsp, nvl_gsp_rm_client_of(k->gsp, t->sub), t->sub,
		NVL2080_CTRL_CMD_MULTI_CONTROL, NULL, sent, msg);
	if (!ret)
		ret = nvl_gsp_rpc(k->gsp, GSPABI_K_FUNCTION_GSP_RM_CONTROL, msg,
				  hdr + sent, msg, hdr + sizeof(*m) + 16, &got,
				  NVL_GSP_REPLY_RECV, 0);
	/* refused: the reply is the command's size */
	if (!ret)
		ret = nvl_gsp_rm_control_parse(
			k->gsp, NVL2080_CTRL_CMD_MULTI_CONTROL, msg, got, NULL,
			got == hdr + sent ? sent : sizeof(*m));
	memcpy(m, w, sizeof(*m));
	free(msg);
	return ret;
}

/*
 * A read is one GSP_RM_CONTROL (nouvelle's multi control, every entry
 * served as if sent alone); malformed multis are refused whole; a firmware
 * without it (a real GSP-RM) gets the five controls and the same fields.
 */
static void multi_control_read(void **state)
{
	struct nvl_sensors s1, s2;
	struct sub_tree t;
	struct kit k;
	uint64_t n0;
	uint32_t st0;

	(void)state;
	up(&k, &t, "tu102");
	assert_int_equal(nvl_model_pmu_set_load(k.m, 0, 500), 0);
	nvl_model_pmu_sim_advance(k.m, 2 * SEC);
	rd(&k, &t, &s1); /* the first sample */
	n0 = rpcs(&k);
	rd(&k, &t, &s1);
	assert_int_equal(rpcs(&k) - n0, 1);
	/* one entry as a control of its own */
	assert_int_equal(sizeof(NV2080_CTRL_PERF_GET_CURRENT_PSTATE_PARAMS), 4);
	assert_int_equal(multi_pstate(&k, &t, 1, 99, 0, &st0), 0);
	assert_int_equal(st0, NV_OK);
	/* refused whole: none, too many, nested, sizes that do not add up */
	assert_int_equal(multi_pstate(&k, &t, 0, 99, 0, NULL), -EINVAL);
	assert_int_equal(multi_pstate(&k, &t, 9, 99, 0, NULL), -EINVAL);
	assert_int_equal(multi_pstate(&k, &t, 2, 1, 0, &st0), -EINVAL);
	assert_int_equal(multi_pstate(&k, &t, 2, 99, 8, NULL), -EINVAL);
	assert_int_equal(multi_pstate(&k, &t, 2, 99, 0, &st0), 0);
	/* inSize: the samples control sent without its ring, the next
	 * entry right after it, the reply whole and as the full command's */
	{
		struct multi_util a, b;
		uint32_t off = offsetof(struct multi_util, u.samples) -
			       offsetof(struct multi_util, u);

		assert_int_equal(multi_util_in(&k, &t, off, 0, &a), 0);
		assert_int_equal(a.h.entries[0].status, NV_OK);
		assert_int_equal(a.h.entries[1].status, NV_OK);
		assert_int_equal(a.u.count, 3); /* rd() twice, and this one */
		assert_int_equal(a.u.tracker, 2);
		assert_int_equal(a.u.samples[2].gr.util, s1.util_gpu);
		assert_int_equal(a.p.currPstate,
				 NV2080_CTRL_PERF_PSTATES_P(s1.pstate));
		assert_int_equal(multi_util_in(&k, &t, 0, 0, &b), 0);
		assert_int_equal(b.u.count, 4);
		assert_memory_equal(&a.u.samples[2], &b.u.samples[2],
				    sizeof(a.u.samples[2]));
		assert_int_equal(b.p.currPstate, a.p.currPstate);
		/* refused whole: not a multiple of 8, more than its params,
		 * sizes that do not add up with it */
		assert_int_equal(multi_util_in(&k, &t, off + 4, 0, &a),
				 -EINVAL);
		assert_int_equal(multi_util_in(&k, &t, sizeof(a.u) + 8, 0, &a),
				 -EINVAL);
		assert_int_equal(multi_util_in(&k, &t, off, 8, &a), -EINVAL);
		/* count and tracker (outputs) left out too: zero for it */
		assert_int_equal(multi_util_in(&k, &t, 8, 0, &b), 0);
		assert_int_equal(b.h.entries[0].status, NV_OK);
		assert_int_equal(b.u.count, 5);
	}
	/* a firmware without it: six controls (NVIDIA's samples and current
	 * P-state among them), the same reading (the PMU stands still in
	 * simulated time) */
	assert_int_equal(nvl_model_gsp_perf_disable(
				 k.m, NVL2080_CTRL_CMD_MULTI_CONTROL, true),
			 0);
	n0 = rpcs(&k);
	rd(&k, &t, &s2);
	assert_int_equal(rpcs(&k) - n0, 1 + 6);
	assert_int_equal(s2.valid, s1.valid);
	assert_int_equal(s2.gpu_temp_c, s1.gpu_temp_c);
	assert_int_equal(s2.power_mw, s1.power_mw);
	assert_int_equal(s2.clk_gr_mhz, s1.clk_gr_mhz);
	assert_int_equal(s2.pstate, s1.pstate);
	assert_int_equal(s2.util_gpu, s1.util_gpu);
	assert_int_equal(s2.util_engine[0], s1.util_engine[0]);
	assert_int_equal(s2.throttle, s1.throttle);
	/* remembered: no multi tried again */
	nvl_model_gsp_perf_disable(k.m, NVL2080_CTRL_CMD_MULTI_CONTROL, false);
	n0 = rpcs(&k);
	rd(&k, &t, &s2);
	assert_int_equal(rpcs(&k) - n0, 6);
	assert_int_equal(s2.valid, s1.valid);
	kit_down(&k);
}

/* the command and status queues' write pointers (queue pages, modulo
 * the ring's NVL_GSP_QUEUE_MSG_COUNT) */
static void qptrs(struct kit *k, uint32_t p[2])
{
	struct nvl_gsp_msgq *q = &k->gsp->q;

	p[0] = __atomic_load_n((uint32_t *)(q->mem + q->cmdq_off + q->wptr_off),
			       __ATOMIC_ACQUIRE);
	p[1] = __atomic_load_n(
		(uint32_t *)(q->mem + q->statq_off + q->wptr_off),
		__ATOMIC_ACQUIRE);
}

/*
 * A read is one queue page each way on every chip: the command (the
 * samples ring and the unused instruction slots left out) and the reply
 * (the firmware's samples reduced to the newest one's shares, not the
 * 72-sample ring), against two each way before. Its fields are those of
 * NVIDIA's samples control, sent alone on the same firmware.
 */
static void one_page_each_way(void **state)
{
	static const char *const profiles[] = {"tu102", "gh100"};

	(void)state;
	for (unsigned i = 0; i < NVL_ARRAY_SIZE(profiles); i++) {
		struct nvl_sensors s1, s2;
		uint32_t a[2], b[2];
		struct sub_tree t;
		struct kit k;

		up(&k, &t, profiles[i]);
		assert_int_equal(nvl_model_pmu_set_load(k.m, 0, 500), 0);
		nvl_model_pmu_sim_advance(k.m, 2 * SEC);
		rd(&k, &t, &s1);
		for (int n = 0; n < 3; n++) {
			qptrs(&k, a);
			rd(&k, &t, &s1);
			qptrs(&k, b);
			assert_int_equal((b[0] + NVL_GSP_QUEUE_MSG_COUNT -
					  a[0]) % NVL_GSP_QUEUE_MSG_COUNT,
					 1);
			assert_int_equal((b[1] + NVL_GSP_QUEUE_MSG_COUNT -
					  a[1]) % NVL_GSP_QUEUE_MSG_COUNT,
					 1);
		}
		assert_true(nvl_sensors_has(&s1, NVL_SENSOR_UTIL_GPU));
		assert_true(nvl_sensors_has(&s1, NVL_SENSOR_UTIL_MEM));
		assert_int_equal(s1.util_gpu, 5000);
		/* the same shares through NVIDIA's ring (the PMU stands still
		 * in simulated time) */
		assert_int_equal(
			nvl_model_gsp_perf_disable(
				k.m, NVL2080_CTRL_CMD_PERF_GET_UTIL, true),
			0);
		qptrs(&k, a);
		rd(&k, &t, &s2);
		qptrs(&k, b);
		/* the multi control and NVIDIA's control, its ring back */
		assert_true((b[1] + NVL_GSP_QUEUE_MSG_COUNT - a[1]) %
				    NVL_GSP_QUEUE_MSG_COUNT >=
			    3);
		assert_int_equal(s2.valid, s1.valid);
		assert_int_equal(s2.util_gpu, s1.util_gpu);
		assert_int_equal(s2.util_mem, s1.util_mem);
		assert_int_equal(s2.util_engine[0], s1.util_engine[0]);
		nvl_model_gsp_perf_disable(k.m, NVL2080_CTRL_CMD_PERF_GET_UTIL,
					   false);
		kit_down(&k);
	}
}

/*
 * A firmware version without a control (its generated layer has no struct
 * for it): the read sends the others and reports that control's fields
 * absent, never zero; its reclocking call is refused before anything is
 * sent. The booted layer is swapped for a copy lacking the power and
 * thermal structs, on the multi-control and on the one-by-one path.
 */
static void absent_in_version(void **state)
{
	const uint64_t power = NVL_SENSOR_BIT(NVL_SENSOR_POWER) |
			       NVL_SENSOR_BIT(NVL_SENSOR_POWER_LIMIT) |
			       NVL_SENSOR_BIT(NVL_SENSOR_ENERGY);
	const uint64_t temp = NVL_SENSOR_BIT(NVL_SENSOR_GPU_TEMP);
	const struct gspabi_version *real;
	struct gspabi_version lacking;
	struct nvl_sensors s;
	struct sub_tree t;
	struct kit k;
	uint64_t all;

	up(&k, &t, "tu102");
	rd(&k, &t, &s);
	all = s.valid;
	assert_true((all & power) == power && (all & temp));
	real = k.gsp->abi;
	lacking = *real;
	lacking.structs[GSPABI_S_PMGR_STATUS].present = false;
	lacking.structs[GSPABI_S_PMGR_SET_LIMIT].present = false;
	lacking.structs[GSPABI_S_THERMAL_EXEC].present = false;
	/* and the reduced samples: NVIDIA's sent after the multi control */
	lacking.structs[GSPABI_S_PERF_UTIL].present = false;
	k.gsp->abi = &lacking;
	for (int one_by_one = 0; one_by_one < 2; one_by_one++) {
		atomic_store(&k.gsp->no_multi_control, one_by_one != 0);
		memset(&s, 0x5a, sizeof(s));
		rd(&k, &t, &s);
		assert_int_equal(s.valid, all & ~power & ~temp);
		assert_int_equal(s.power_mw, 0);
		assert_int_equal(s.gpu_temp_c, 0);
		assert_int_equal(s.clk_gr_mhz,
				 k.m->profile->pstates[0].gpc_mhz);
	}
	assert_int_equal(nvl_gsp_set_power_limit(k.gsp, t.sub, true, 100000),
			 -EOPNOTSUPP);
	k.gsp->abi = real;
	atomic_store(&k.gsp->no_multi_control, false);
	rd(&k, &t, &s);
	assert_int_equal(s.valid, all);
	kit_down(&k);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fields_tu102),
		cmocka_unit_test(fields_gh100),
		cmocka_unit_test(absent_without_control),
		cmocka_unit_test(power_limit_convergence),
		cmocka_unit_test(thermal_slowdown_halves),
		cmocka_unit_test(reclock_controls),
		cmocka_unit_test(ce_speed_follows_clock),
		cmocka_unit_test(alloc_failures),
		cmocka_unit_test(multi_control_read),
		cmocka_unit_test(absent_in_version),
		cmocka_unit_test(one_page_each_way),
	};

	return t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
}

// SPDX-License-Identifier: MIT
/*
 * TEST: model_pmu
 * Description: performance states, clocks, power as a function of engine
 * activity, the RC temperature model with ambient, thermal and power
 * throttling with the THERMAL interrupt, energy and busy counters.
 */
#include <stdlib.h>
#include <unistd.h>

#include "gpu.h"
#include "model/pmu.h"

#define SRC 0x100000ull
#define DST 0x2000000ull
#define SEM 0x10000ull

static int32_t temp(struct gpu *g)
{
	return (int32_t)nvl_hw_rd32(g->hw, NVL_HW_THERM_TEMP);
}

/* keep CE0 busy with @n copies of 16 MiB */
static void busy(struct gpu *g, struct nvl_kit_chan *ch, unsigned n)
{
	static uint32_t seq;
	uint32_t p[64], k;

	for (unsigned i = 0; i < n; i++) {
		k = nvl_kit_pb_copy(p, g->ce_class, DST, SRC, 16 << 20);
		k += nvl_kit_pb_release(p + k, SEM, ++seq);
		gpu_push(ch, p, k);
		assert_int_equal(nvl_kit_kick(&g->kit, ch), 0);
		assert_int_equal(nvl_kit_wait_u32(&g->kit, SEM, seq, GPU_WAIT),
				 0);
	}
}

static void pstate_selects_clocks(void **state)
{
	struct gpu *g = gpu_up("tiny");
	const struct nvl_model_profile *p = g->m->profile;
	unsigned n = nvl_hw_rd32(g->hw, NVL_HW_PERF_NUM_PSTATES);

	assert_int_equal(n, p->num_pstates);
	for (unsigned i = 0; i < n; i++) {
		nvl_hw_wr32(g->hw, NVL_HW_PERF_PSTATE, i);
		assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_PERF_PSTATE), i);
		assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CLK_GPC_MHZ),
				 p->pstates[i].gpc_mhz);
		assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CLK_MEM_MHZ),
				 p->pstates[i].mem_mhz);
		assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_PSTATE_ID(i)),
				 p->pstates[i].id);
		assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_PSTATE_GPC_MHZ(i)),
				 p->pstates[i].gpc_mhz);
	}
	nvl_hw_wr32(g->hw, NVL_HW_PERF_PSTATE, n); /* unknown: ignored */
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_PERF_PSTATE), n - 1);
	gpu_down(g);
}

static void activity_raises_power_temperature_and_counters(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan ch;
	uint32_t idle_mw, busy_mw, e0, e1, b0, b1;
	int32_t t0, t1;

	gpu_chan(g, 1, 0, &ch);
	usleep(20000);
	idle_mw = nvl_hw_rd32(g->hw, NVL_HW_POWER_MW);
	t0 = temp(g);
	e0 = nvl_hw_rd32(g->hw, NVL_HW_ENERGY_MJ_LO);
	b0 = nvl_hw_rd32(g->hw, NVL_HW_ENGINE_BUSY_NS_LO(0));
	assert_true(idle_mw > 0);
	busy(g, &ch, 8);
	busy_mw = nvl_hw_rd32(g->hw, NVL_HW_POWER_MW);
	t1 = temp(g);
	e1 = nvl_hw_rd32(g->hw, NVL_HW_ENERGY_MJ_LO);
	b1 = nvl_hw_rd32(g->hw, NVL_HW_ENGINE_BUSY_NS_LO(0));
	assert_true(busy_mw > idle_mw);
	assert_true(t1 > t0);
	assert_true(e1 >= e0);
	assert_true(b1 > b0);
	/* the idle engine counts nothing */
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_ENGINE_BUSY_NS_LO(1)), 0);
	/* at the slowest P-state the same activity costs less power */
	nvl_hw_wr32(g->hw, NVL_HW_PERF_PSTATE, 2);
	busy(g, &ch, 8);
	assert_true(nvl_hw_rd32(g->hw, NVL_HW_POWER_MW) < busy_mw);
	nvl_kit_chan_fini(&g->kit, &ch);
	gpu_down(g);
}

static void ambient_drives_temperature(void **state)
{
	struct gpu *g = gpu_up("tiny");
	int32_t t0 = temp(g);

	assert_int_equal((int32_t)nvl_hw_rd32(g->hw, NVL_HW_THERM_AMBIENT),
			 25000);
	nvl_hw_wr32(g->hw, NVL_HW_THERM_AMBIENT, 60000);
	usleep(50000);
	assert_true(temp(g) > t0);
	assert_true(temp(g) < 60000 + 100000);
	gpu_down(g);
}

static void crossing_slowdown_throttles_and_interrupts(void **state)
{
	struct gpu *g = gpu_up("tiny");
	unsigned full = g->m->profile->pstates[0].gpc_mhz;

	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_THERM_THROTTLE), 0);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CLK_GPC_MHZ), full);
	/* slowdown just above the current temperature, then heat up */
	nvl_hw_wr32(g->hw, NVL_HW_THERM_SLOWDOWN, (uint32_t)(temp(g) + 50));
	nvl_hw_wr32(g->hw, NVL_HW_THERM_AMBIENT, 90000);
	assert_true(gpu_wait_nonzero(&g->stall, GPU_WAIT));
	assert_true(atomic_load(&g->stall) & NVL_HW_INTR_THERMAL);
	usleep(20000);
	assert_true(nvl_hw_rd32(g->hw, NVL_HW_THERM_THROTTLE) &
		    NVL_HW_THROTTLE_THERMAL);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CLK_GPC_MHZ), full / 2);
	gpu_down(g);
}

static void power_limit_throttles_busy_engine(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan ch;
	unsigned full = g->m->profile->pstates[0].gpc_mhz;

	gpu_chan(g, 2, 0, &ch);
	nvl_hw_wr32(g->hw, NVL_HW_POWER_LIMIT_MW, g->m->profile->idle_mw + 1);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_POWER_LIMIT_MW),
			 g->m->profile->idle_mw + 1);
	busy(g, &ch, 8);
	assert_true(nvl_hw_rd32(g->hw, NVL_HW_THERM_THROTTLE) &
		    NVL_HW_THROTTLE_POWER);
	assert_true(nvl_hw_rd32(g->hw, NVL_HW_CLK_GPC_MHZ) < full);
	nvl_kit_chan_fini(&g->kit, &ch);
	gpu_down(g);
}

/* real copies: the engine's simulated time follows the graphics clock, and
 * in simulated time the copies are the PMU's activity */
static void copy_throughput_follows_clock(void **state)
{
	struct gpu *g = gpu_up("tiny");
	const struct nvl_model_profile *pr = g->m->profile;
	struct nvl_model_pmu_state st;
	struct nvl_kit_chan ch;
	uint64_t b0, n0, b1, n1, b2, n2;
	double full, slow;

	gpu_chan(g, 2, 0, &ch);
	nvl_model_pmu_sim_advance(g->m, 0); /* simulated time from here */
	nvl_model_pmu_ce_stats(g->m, 0, &b0, &n0);
	busy(g, &ch, 2);
	nvl_model_pmu_ce_stats(g->m, 0, &b1, &n1);
	assert_int_equal(b1 - b0, 2ull * (16 << 20));
	full = (double)(b1 - b0) / (double)(n1 - n0); /* bytes per ns */
	/* 32 bytes per clock at 1500 MHz: 48 bytes/ns */
	assert_true(full > 47.9 && full < 48.1);
	nvl_hw_wr32(g->hw, NVL_HW_PERF_PSTATE, 1); /* P5: 900 MHz */
	busy(g, &ch, 2);
	nvl_model_pmu_ce_stats(g->m, 0, &b2, &n2);
	slow = (double)(b2 - b1) / (double)(n2 - n1);
	assert_true(slow / full > 0.599 && slow / full < 0.601);
	assert_int_equal(pr->pstates[1].gpc_mhz * 1000 / pr->pstates[0].gpc_mhz,
			 600);
	/* the copies' simulated time is engine 0's activity */
	nvl_model_pmu_sim_advance(g->m, n2 - n0);
	nvl_model_pmu_get(g->m, &st);
	assert_true(st.util_pm[0] > 0);
	assert_true(st.power_mw > pr->idle_mw); /* P5 keeps the memory clock */
	nvl_kit_chan_fini(&g->kit, &ch);
	gpu_down(g);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(pstate_selects_clocks),
	cmocka_unit_test(copy_throughput_follows_clock),
	cmocka_unit_test(activity_raises_power_temperature_and_counters),
	cmocka_unit_test(ambient_drives_temperature),
	cmocka_unit_test(crossing_slowdown_throttles_and_interrupts),
	cmocka_unit_test(power_limit_throttles_busy_engine),
};

T_MAIN(tests)

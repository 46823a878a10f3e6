/* SPDX-License-Identifier: MIT */
/*
 * The model's power/thermal/clock state as the model's GSP firmware sees
 * it (its PMU), the policy knobs the firmware's controls set, and the
 * model-only knobs tests use to drive it in simulated time. Model only:
 * the driver never includes this header.
 */
#ifndef NVL_MODEL_PMU_H
#define NVL_MODEL_PMU_H

#include <stdbool.h>
#include <stdint.h>

#include "hw/regs.h"

struct nvl_model;

/* Reasons the clocks are below what the P-state offers (model side). */
#define NVL_MODEL_PMU_REASON_IDLE (1u << 0) /* no engine busy */
#define NVL_MODEL_PMU_REASON_APP_CLOCKS (1u << 1) /* app clocks below P-state */
#define NVL_MODEL_PMU_REASON_POWER_CAP (1u << 2) /* power controller */
#define NVL_MODEL_PMU_REASON_THERMAL (1u << 3) /* above slowdown: halved */

/** enum nvl_model_pmu_event - crossings the PMU reports (once each). */
enum nvl_model_pmu_event {
	/** @NVL_MODEL_PMU_EV_THERMAL: temperature rose above slowdown */
	NVL_MODEL_PMU_EV_THERMAL = 0,
	/** @NVL_MODEL_PMU_EV_POWER_CAP: the power controller started capping */
	NVL_MODEL_PMU_EV_POWER_CAP,
};

/** struct nvl_model_pmu_state - one consistent snapshot. */
struct nvl_model_pmu_state {
	/** @time_ns: the PMU's clock (simulated once advanced) */
	uint64_t time_ns;
	/** @temp_mc, @mem_temp_mc: GPU and memory (HBM) temperature */
	int32_t temp_mc, mem_temp_mc;
	/** @has_mem_temp: the chip has a memory sensor (@mem_temp_mc valid) */
	bool has_mem_temp;
	/** @slowdown_mc: the slowdown temperature */
	int32_t slowdown_mc;
	/** @power_mw: board power; @power_limit_mw: the enforced limit */
	uint32_t power_mw, power_limit_mw;
	/** @power_min_mw, @power_max_mw, @power_default_mw: accepted range */
	uint32_t power_min_mw, power_max_mw, power_default_mw;
	/** @energy_mj: millijoules since power-on */
	uint64_t energy_mj;
	/** @gpc_mhz, @mem_mhz, @video_mhz: effective clocks */
	uint32_t gpc_mhz, mem_mhz, video_mhz;
	/** @gpc_max_mhz, @mem_max_mhz, @video_max_mhz: the fastest P-state's */
	uint32_t gpc_max_mhz, mem_max_mhz, video_max_mhz;
	/** @pstate_idx: index into the profile's table; @pstate_id: Pn */
	unsigned pstate_idx, pstate_id;
	/** @pstate_fast, @pstate_slow: the P-state index limits */
	unsigned pstate_fast, pstate_slow;
	/** @app_gpc_mhz, @app_mem_mhz: application clocks (0 = default) */
	uint32_t app_gpc_mhz, app_mem_mhz;
	/** @boost: a boost is active */
	bool boost;
	/** @reasons: NVL_MODEL_PMU_REASON_* */
	uint32_t reasons;
	/** @has_fan: the board has a fan; @fan_pct: its duty */
	bool has_fan;
	unsigned fan_pct;
	/** @num_engines: copy engines; @util_pm: busy per mille, averaged */
	unsigned num_engines;
	unsigned util_pm[NVL_HW_ENGINE_MAX];
	/** @util_any_pm: per mille of the time one or more engines was busy
	 * (the union of their busy time), averaged as @util_pm */
	unsigned util_any_pm;
};

/**
 * typedef nvl_model_pmu_event_fn - called (no PMU lock held) on a crossing.
 */
typedef void (*nvl_model_pmu_event_fn)(void *arg, enum nvl_model_pmu_event ev);

/** nvl_model_pmu_get() - integrate up to now and take a snapshot. */
void nvl_model_pmu_get(struct nvl_model *m, struct nvl_model_pmu_state *out);

/**
 * nvl_model_pmu_set_event_fn() - the firmware's crossing callback (NULL
 * removes it; returns only after a running call finished).
 */
void nvl_model_pmu_set_event_fn(struct nvl_model *m, nvl_model_pmu_event_fn fn,
				void *arg);

/**
 * nvl_model_pmu_set_tick_fn() - called (no PMU lock held) on every tick of
 * the hub (every 10 ms), for the firmware's periodic work (NULL removes
 * it; returns only after a running call finished).
 */
void nvl_model_pmu_set_tick_fn(struct nvl_model *m, void (*fn)(void *arg),
			       void *arg);

/** nvl_model_pmu_set_power_limit() - Return: 0 or -ERANGE. */
int nvl_model_pmu_set_power_limit(struct nvl_model *m, uint32_t mw);
/**
 * nvl_model_pmu_set_pstate_limits() - allow P-state indices @fast..@slow
 * (0 = fastest). Return: 0 or -EINVAL.
 */
int nvl_model_pmu_set_pstate_limits(struct nvl_model *m, unsigned fast,
				    unsigned slow);
/* the step of the model's supported graphics clocks (the model's choice:
 * every profile's P-state clocks are on it) */
#define NVL_MODEL_CLK_STEP_MHZ 15

/**
 * nvl_model_pmu_set_app_clocks() - cap graphics/memory clocks (0, 0
 * restores the defaults). Return: 0 or -EINVAL (off the supported-clock
 * table: a graphics clock outside the P-states' range or off its
 * NVL_MODEL_CLK_STEP_MHZ steps, a memory clock no P-state has).
 */
int nvl_model_pmu_set_app_clocks(struct nvl_model *m, uint32_t gpc_mhz,
				 uint32_t mem_mhz);
/**
 * nvl_model_pmu_set_boost() - run at the fastest allowed P-state for
 * @duration_ms of PMU time (0 cancels, UINT32_MAX: until cancelled).
 * Return: 0.
 */
int nvl_model_pmu_set_boost(struct nvl_model *m, uint32_t duration_ms);

/* ---- model-only knobs (tests, benchmarks) ------------------------------ */

/**
 * nvl_model_pmu_sim_advance() - MODEL-ONLY: from now on the PMU runs on
 * simulated time only; move it @ns forward (integrated in 10 ms steps).
 */
void nvl_model_pmu_sim_advance(struct nvl_model *m, uint64_t ns);
/**
 * nvl_model_pmu_set_load() - MODEL-ONLY: hold copy engine @e at least
 * @permille busy, as a sustained copy stream would (0 = measured only).
 * Return: 0 or -EINVAL.
 */
int nvl_model_pmu_set_load(struct nvl_model *m, unsigned e, unsigned permille);
/**
 * nvl_model_pmu_ce_ns() - simulated nanoseconds engine @e needs for
 * @bytes at the current graphics clock (the copy engine's speed follows
 * it: NVL_MODEL_CE_BYTES_PER_CLK bytes per graphics clock).
 */
uint64_t nvl_model_pmu_ce_ns(struct nvl_model *m, uint64_t bytes);
/**
 * nvl_model_pmu_set_ce_scale() - MODEL-ONLY: from now on every copied
 * byte counts as @scale bytes of copy-engine work (engine time and bytes
 * in nvl_model_pmu_ce_stats()), so a test sustains seconds of simulated
 * engine load with megabytes of real copies. 0 and 1 restore the default.
 */
void nvl_model_pmu_set_ce_scale(struct nvl_model *m, unsigned scale);
/** nvl_model_pmu_ce_account() - charge a finished copy to engine @e. */
void nvl_model_pmu_ce_account(struct nvl_model *m, unsigned e, uint64_t bytes);
/**
 * nvl_model_pmu_ce_stats() - bytes copied and simulated busy nanoseconds
 * of engine @e (throughput = bytes / ns).
 */
void nvl_model_pmu_ce_stats(struct nvl_model *m, unsigned e, uint64_t *bytes,
			    uint64_t *ns);

/** Bytes a copy engine moves per graphics clock in the model. */
#define NVL_MODEL_CE_BYTES_PER_CLK 32

#endif /* NVL_MODEL_PMU_H */

/* SPDX-License-Identifier: MIT */
/*
 * nouvelle sensors: one sample of a GPU's temperatures, power, clocks,
 * P-state, utilisation, clock-event reasons and fan, read from the GSP
 * firmware. Every field has a validity bit: a field the chip or the
 * firmware version lacks is absent (its bit clear), never zero.
 */
#ifndef NOUVELLE_SENSORS_H
#define NOUVELLE_SENSORS_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** enum nvl_sensor - the fields of struct nvl_sensors, one validity bit each. */
enum nvl_sensor {
	NVL_SENSOR_GPU_TEMP = 0, /* @gpu_temp_c */
	NVL_SENSOR_MEM_TEMP, /* @mem_temp_c (HBM chips) */
	NVL_SENSOR_POWER, /* @power_mw */
	NVL_SENSOR_POWER_LIMIT, /* @power_limit_mw and its range */
	NVL_SENSOR_ENERGY, /* @energy_mj */
	NVL_SENSOR_CLK_GR, /* @clk_gr_mhz */
	NVL_SENSOR_CLK_MEM, /* @clk_mem_mhz */
	NVL_SENSOR_CLK_VIDEO, /* @clk_video_mhz */
	NVL_SENSOR_CLK_GR_MAX, /* @clk_gr_max_mhz */
	NVL_SENSOR_CLK_MEM_MAX, /* @clk_mem_max_mhz */
	NVL_SENSOR_CLK_VIDEO_MAX, /* @clk_video_max_mhz */
	NVL_SENSOR_PSTATE, /* @pstate */
	NVL_SENSOR_UTIL_GPU, /* @util_gpu */
	NVL_SENSOR_UTIL_MEM, /* @util_mem */
	NVL_SENSOR_UTIL_ENGINES, /* @num_engines, @util_engine */
	NVL_SENSOR_THROTTLE, /* @throttle, @throttle_supported */
	NVL_SENSOR_FAN, /* @fan_pct (boards with a fan) */
	NVL_SENSOR_COUNT
};

/** NVL_SENSOR_BIT() - the validity bit of field @f in nvl_sensors.valid. */
#define NVL_SENSOR_BIT(f) (1ull << (f))

/** Copy engines struct nvl_sensors reports at most. */
#define NVL_SENSORS_MAX_ENGINES 16

/* Clock-event ("throttle") reasons, nvidia-smi's clocks_event_reasons bits. */
#define NVL_THROTTLE_GPU_IDLE 0x0001ull
#define NVL_THROTTLE_APP_CLOCKS 0x0002ull
#define NVL_THROTTLE_SW_POWER_CAP 0x0004ull
#define NVL_THROTTLE_HW_SLOWDOWN 0x0008ull
#define NVL_THROTTLE_HW_THERMAL 0x0040ull

/**
 * struct nvl_sensors - one sample.
 * @timestamp_ns: the GPU's time of the sample (the firmware's clock)
 * @valid: NVL_SENSOR_BIT() of every field present
 * @gpu_temp_c: GPU core temperature, degrees C
 * @mem_temp_c: memory temperature, degrees C
 * @power_mw: board power
 * @power_limit_mw: the enforced power limit
 * @power_min_mw: @power_max_mw: @power_default_mw: the limit's range
 * @energy_mj: energy since power-on, millijoules
 * @clk_gr_mhz: @clk_mem_mhz: @clk_video_mhz: current clocks
 * @clk_gr_max_mhz: @clk_mem_max_mhz: @clk_video_max_mhz: their maxima
 * @pstate: the current P-state number (0 = fastest)
 * @util_gpu: share of the last sample period with an engine busy, 1/100 %
 * @util_mem: memory (copy traffic) share, 1/100 %
 * @num_engines: copy engines in @util_engine
 * @util_engine: each copy engine's busy share, 1/100 %
 * @throttle: active NVL_THROTTLE_* reasons
 * @throttle_supported: reasons the firmware can report
 * @fan_pct: fan duty, percent
 */
struct nvl_sensors {
	uint64_t timestamp_ns;
	uint64_t valid;
	int32_t gpu_temp_c, mem_temp_c;
	uint32_t power_mw, power_limit_mw;
	uint32_t power_min_mw, power_max_mw, power_default_mw;
	uint64_t energy_mj;
	uint32_t clk_gr_mhz, clk_mem_mhz, clk_video_mhz;
	uint32_t clk_gr_max_mhz, clk_mem_max_mhz, clk_video_max_mhz;
	uint32_t pstate;
	uint32_t util_gpu, util_mem;
	uint32_t num_engines;
	uint32_t util_engine[NVL_SENSORS_MAX_ENGINES];
	uint64_t throttle, throttle_supported;
	uint32_t fan_pct;
};

/**
 * nvl_sensors_has() - whether field @f of sample @s is present.
 * @s: a sample
 * @f: the field
 *
 * Return: true when the chip and firmware reported it.
 */
static inline bool nvl_sensors_has(const struct nvl_sensors *s,
				   enum nvl_sensor f)
{
	return s->valid & NVL_SENSOR_BIT(f);
}

/** enum nvl_sensor_event - crossings a subscriber is told about. */
enum nvl_sensor_event {
	/** @NVL_SENSOR_EVENT_THERMAL: the GPU rose above its slowdown temperature */
	NVL_SENSOR_EVENT_THERMAL = 1u << 0,
	/** @NVL_SENSOR_EVENT_POWER_CAP: the power limit started capping clocks */
	NVL_SENSOR_EVENT_POWER_CAP = 1u << 1,
};

#ifdef __cplusplus
}
#endif

#endif /* NOUVELLE_SENSORS_H */

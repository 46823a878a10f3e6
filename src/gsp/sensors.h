/* SPDX-License-Identifier: MIT */
/*
 * Sensors and reclocking through the GSP: GSP_RM_CONTROLs on a subdevice
 * (docs/sensors.md). The GSP-level API the device wraps as
 * nvl_device_sensors() and its reclocking calls.
 */
#ifndef NVL_GSP_SENSORS_H
#define NVL_GSP_SENSORS_H

#include <stdbool.h>
#include <stdint.h>

#include "nouvelle/sensors.h"

struct nvl_gsp;
struct nvl_gsp_sensor_sub;

/**
 * nvl_gsp_sensors_read() - read every sensor of subdevice @hsub of the
 * booted @gsp into @s: the thermal instruction list, perf utilisation
 * samples, the current P-state, and nouvelle's power, clock, perf-status
 * and engine-utilisation controls. A control the firmware answers
 * NV_ERR_NOT_SUPPORTED leaves its fields absent; so does a sensor the chip
 * lacks.
 * Return: 0; -EINVAL (NULL @s); -ENODEV, -ETIMEDOUT or another RPC or
 * NV_STATUS error (then @s is unchanged).
 */
int nvl_gsp_sensors_read(struct nvl_gsp *gsp, uint32_t hsub,
			 struct nvl_sensors *s);

/**
 * nvl_gsp_set_power_limit() - set the enforced board power limit.
 * @privileged: the caller may change device state (else -EPERM)
 * Return: 0, -EPERM, -EINVAL (outside the firmware's range), RPC errors.
 */
int nvl_gsp_set_power_limit(struct nvl_gsp *gsp, uint32_t hsub, bool privileged,
			    uint32_t mw);

/**
 * nvl_gsp_set_pstate_limits() - allow P-states @fastest..@slowest only
 * (P-state numbers, 0 = fastest). Return: 0, -EPERM, -EINVAL, RPC errors.
 */
int nvl_gsp_set_pstate_limits(struct nvl_gsp *gsp, uint32_t hsub,
			      bool privileged, unsigned fastest,
			      unsigned slowest);

/**
 * nvl_gsp_set_app_clocks() - cap the graphics and memory clocks (MHz);
 * 0, 0 restores the defaults. Return: 0, -EPERM, -EINVAL (a clock off the
 * firmware's supported-clock table), RPC errors.
 */
int nvl_gsp_set_app_clocks(struct nvl_gsp *gsp, uint32_t hsub, bool privileged,
			   uint32_t gr_mhz, uint32_t mem_mhz);

/**
 * nvl_gsp_set_boost() - PERF_BOOST to the maximum for @seconds (0 clears
 * the boost, UINT32_MAX lasts until cleared). Return: 0, -EPERM, -EINVAL
 * (over an hour, NV2080_CTRL_PERF_BOOST_DURATION_MAX, but UINT32_MAX), RPC
 * errors.
 */
int nvl_gsp_set_boost(struct nvl_gsp *gsp, uint32_t hsub, bool privileged,
		      uint32_t seconds);

/**
 * typedef nvl_gsp_sensor_event_fn - a subscriber's callback, run on the
 * GSP event thread, once per crossing.
 * @event: NVL_SENSOR_EVENT_THERMAL or NVL_SENSOR_EVENT_POWER_CAP
 */
typedef void (*nvl_gsp_sensor_event_fn)(void *arg, enum nvl_sensor_event event);

/**
 * nvl_gsp_sensors_subscribe() - be told of the crossings in @events
 * (NVL_SENSOR_EVENT_* mask) on subdevice @hsub: an event object
 * (NV01_EVENT_KERNEL_CALLBACK_EX) under it, EVENT_SET_NOTIFICATION
 * (REPEAT) per event, and the POST_EVENT handler. One subscription per
 * @gsp at a time (the GSP client has one handler per event).
 * Return: 0, -EINVAL, -EBUSY (one exists), -ENOMEM, RPC errors.
 */
int nvl_gsp_sensors_subscribe(struct nvl_gsp *gsp, uint32_t hsub,
			      uint32_t events, nvl_gsp_sensor_event_fn fn,
			      void *arg, struct nvl_gsp_sensor_sub **sub_out);

/**
 * nvl_gsp_sensors_unsubscribe() - disarm, free the event object, and
 * return once no callback runs any more. NULL is ignored.
 */
void nvl_gsp_sensors_unsubscribe(struct nvl_gsp_sensor_sub *sub);

#endif /* NVL_GSP_SENSORS_H */

/* SPDX-License-Identifier: MIT */
/*
 * The model firmware's sensor, perf, clock and power controls
 * (ctrl_perf.c): the interface to its RM and a model-only knob for tests.
 */
#ifndef NVL_MODEL_GSP_PERF_H
#define NVL_MODEL_GSP_PERF_H

#include <stdbool.h>
#include <stdint.h>

struct nvl_model;
struct nvl_model_gsp;

/**
 * nvl_model_gsp_perf_disable() - MODEL-ONLY: answer control @cmd with
 * NV_ERR_NOT_SUPPORTED (@off) or serve it again, as a firmware version
 * that lacks it would. Return: 0 or -ENOSPC (too many disabled).
 */
int nvl_model_gsp_perf_disable(struct nvl_model *m, uint32_t cmd, bool off);

/** nvl_model_gsp_perf_posted() - POST_EVENTs sent for notifier @index. */
uint64_t nvl_model_gsp_perf_posted(struct nvl_model *m, uint32_t index);

/* RM side (src/model/gsp only) */
int nvl_fw_perf_init(struct nvl_model_gsp *g);
void nvl_fw_perf_fini(struct nvl_model_gsp *g);
void nvl_fw_perf_reset(struct nvl_model_gsp *g);
/* a control on a subdevice; NV_ERR_NOT_SUPPORTED when not ours */
uint32_t nvl_fw_perf_control(struct nvl_model_gsp *g, uint32_t hclient,
			     uint32_t hobject, uint32_t cmd, void *params,
			     uint32_t size);
/*
 * A batch of controls (NVL2080_CTRL_CMD_MULTI_CONTROL) begins (@on) or
 * ends: between the two, the controls read the PMU once, at the first
 * one that needs it, as one sample of the firmware's state (core held).
 */
void nvl_fw_perf_batch(struct nvl_model_gsp *g, bool on);
/* whether a test turned @cmd off (nvl_model_gsp_perf_disable()) */
bool nvl_fw_perf_disabled(struct nvl_model_gsp *g, uint32_t cmd);
/* EVENT_SET_NOTIFICATION on a subdevice */
void nvl_fw_perf_notify(struct nvl_model_gsp *g, uint32_t hclient,
			uint32_t hsubdevice, uint32_t event, uint32_t action);

#endif /* NVL_MODEL_GSP_PERF_H */

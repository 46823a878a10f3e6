/* SPDX-License-Identifier: MIT */
/* An open device: the provider (the model) and the driver's device. */
#ifndef NVL_CORE_DEVICE_H
#define NVL_CORE_DEVICE_H

struct nvl_mm;
struct nvl_model;
struct nvl_model_profile;
struct nvl_nv_device;

/** struct nvl_device - an open device. */
#include "nouvelle/trace.h"

struct nvl_device {
	/** @model: the provider's device */
	struct nvl_model *model;
	/** @profile: a copy of the chip's profile when options changed it */
	struct nvl_model_profile *profile;
	/** @nv: the driver's device */
	struct nvl_nv_device *nv;
	/** @mm: the memory manager of its clients' BOs (its VRAM) */
	struct nvl_mm *mm;
	/** @trace, @trace_arg: the wire tracer (nvl_device_opts), or NULL */
	nvl_trace_fn trace;
	void *trace_arg;
};

#endif /* NVL_CORE_DEVICE_H */

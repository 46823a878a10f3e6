/* SPDX-License-Identifier: MIT */
/* An open device: the provider (the model) and the driver's device. */
#ifndef NVL_CORE_DEVICE_H
#define NVL_CORE_DEVICE_H

struct nvl_model;
struct nvl_model_profile;
struct nvl_nv_device;

/** A client's channel limit (nvl_device_info.max_channels_per_client). */
#define NVL_DEVICE_CHANNELS_PER_CLIENT 64

/** struct nvl_device - an open device. */
struct nvl_device {
	/** @model: the provider's device */
	struct nvl_model *model;
	/** @profile: a copy of the chip's profile when options changed it */
	struct nvl_model_profile *profile;
	/** @nv: the driver's device */
	struct nvl_nv_device *nv;
};

#endif /* NVL_CORE_DEVICE_H */

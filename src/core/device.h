/* SPDX-License-Identifier: MIT */
/* An open device: the provider (the model) and the driver's device. */
#ifndef NVL_CORE_DEVICE_H
#define NVL_CORE_DEVICE_H

#include <pthread.h>
#include <stdint.h>

#include "base/list.h"

struct nvl_client;
struct nvl_mm;
struct nvl_model;
struct nvl_model_profile;
struct nvl_nv_device;

/** struct nvl_device - an open device. */
struct nvl_device {
	/** @model: the provider's device */
	struct nvl_model *model;
	/** @profile: a copy of the chip's profile when options changed it */
	struct nvl_model_profile *profile;
	/** @nv: the driver's device */
	struct nvl_nv_device *nv;
	/** @mm: the memory manager of its clients' BOs (its VRAM) */
	struct nvl_mm *mm;
	/** @clients_lock: guards @clients (struct nvl_client.dev_node) */
	pthread_mutex_t clients_lock;
	struct nvl_list clients;
	/** @bus: the model's PCI bus number (1, 2, ... in open order) */
	unsigned bus;
	/** @maxfreq_mhz: the copy engines' maximum (graphics) clock, read
	 * once from the sensors; 0 until read or when absent */
	uint32_t maxfreq_mhz;
};

/** nvl_core_client_unlink() - take a device client off its device's list. */
void nvl_core_client_unlink(struct nvl_client *c);

#endif /* NVL_CORE_DEVICE_H */

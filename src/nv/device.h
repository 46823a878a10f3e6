/* SPDX-License-Identifier: MIT */
/*
 * The NVIDIA device, as the driver probes it behind a hardware interface:
 * BOOT_0 → chip, GSP boot, what the firmware's static info says, and the
 * driver's own RM client, device and subdevice.
 */
#ifndef NVL_NV_DEVICE_H
#define NVL_NV_DEVICE_H

#include <stdbool.h>
#include <stdint.h>

#include <pthread.h>

#include "base/compiler.h"
#include "base/list.h"
#include "gsp/boot.h"
#include "hw/hwif.h"
#include "nv/chip.h"
#include "nouvelle/trace.h"

struct nvl_gsp;
struct nvl_nv_ptmem;

/** struct nvl_nv_probe_opts - what the caller of probe may choose. */
struct nvl_nv_probe_opts {
	/** @fw_version: accept only this firmware version (NULL: the chip's) */
	const char *fw_version;
	/** @boot_timeout_ns: bound of each boot wait (0: the GSP default) */
	int64_t boot_timeout_ns;
	/** @trace, @trace_arg: the GSP wire tracer (nouvelle/trace.h) */
	nvl_trace_fn trace;
	void *trace_arg;
};

/** struct nvl_nv_device - a probed, booted device. */
struct nvl_nv_device {
	/** @hw: the hardware interface */
	struct nvl_hw *hw;
	/** @chip: the family's facts, from BOOT_0 (chip.c) */
	const struct nvl_nv_chip *chip;
	/** @name: the chip's name ("tu102"), its firmware directory */
	const char *name;
	/** @fw_versions: the firmware versions the driver accepts for it */
	const char *const *fw_versions;
	/** @boot0: the register's value */
	uint32_t boot0;
	/** @gsp: the GSP client */
	struct nvl_gsp *gsp;
	/** @fw_version: the firmware that booted */
	char fw_version[64];
	/** @boot: what boot learnt (static info, FB regions, timings) */
	struct nvl_gsp_boot_report boot;
	/** @vram_base, @vram_usable: the driver's FB: the largest region RM
	 * left unprotected and unreserved */
	uint64_t vram_base, vram_usable;
	/** @h_client, @h_device, @h_subdevice: the driver's RM objects */
	uint32_t h_client, h_device, h_subdevice;
	/** @mm_size: bytes of FB from @vram_base for BOs (the memory manager) */
	uint64_t mm_size;
	/** @ptmem: page-table memory, above the BOs */
	struct nvl_nv_ptmem *ptmem;
	/** @chan_base: the channel window (NVL_NV_CHAN_SLOTS slots), above */
	uint64_t chan_base;
	/** @chan_lock: @chans, @slot_used */
	pthread_mutex_t chan_lock;
	/** @chans: live channels (struct nvl_nv_chan.link) */
	struct nvl_list chans;
	uint8_t slot_used[256];
	unsigned nchans;
};

/**
 * nvl_nv_device_probe() - probe the device behind @hw: read BOOT_0, pick
 * the chip, load its firmware, boot the GSP, read its static info and
 * allocate the driver's RM client, device and subdevice.
 * Return: 0; -ENODEV (unknown chip), a firmware-load error (-ENOENT,
 * -EBADMSG, -ENOEXEC), a boot error, -EPROTO (static info without usable
 * FB), -ENOMEM. On failure nothing is left up (GSP unloaded).
 */
int nvl_nv_device_probe(struct nvl_hw *hw, const struct nvl_nv_probe_opts *o,
			struct nvl_nv_device **dev_out) NVL_MUST_CHECK;

/**
 * nvl_nv_device_remove() - free the driver's RM objects, unload the GSP
 * and free everything. NULL is a no-op.
 */
void nvl_nv_device_remove(struct nvl_nv_device *d);

#endif /* NVL_NV_DEVICE_H */

/* SPDX-License-Identifier: MIT */
/*
 * The version-dependent side of the model's GSP firmware: code compiled
 * once per firmware version against that version's own headers
 * (firmware/abi/<version>/, see src/model/gsp/meson.build), selected at
 * boot by the version in the image's manifest. Nothing here includes a
 * firmware header: the per-version files do.
 */
#ifndef NVL_MODEL_GSP_WIRE_H
#define NVL_MODEL_GSP_WIRE_H

#include <stddef.h>
#include <stdint.h>

/** struct nvl_fw_static_src - what GET_GSP_STATIC_INFO reports. */
struct nvl_fw_static_src {
	uint64_t fb_length;
	uint32_t gpc_mask, tpc_count;
	uint32_t h_client, h_device, h_subdevice;
	const char *name, *short_name;
	uint32_t num_channels, num_ce, host_class, ce_class;
};

/** struct nvl_fw_wire - one firmware version's wire formats. */
struct nvl_fw_wire {
	/** @version: "570.144" */
	const char *version;
	/** @static_info: GspStaticConfigInfo of this version into @out (at
	 * least 4 KiB); returns its size */
	size_t (*static_info)(const struct nvl_fw_static_src *src, void *out);
};

/**
 * nvl_fw_wire_find() - the wire formats of firmware @version; NULL or an
 * unknown version gives the default (535.113.01).
 */
const struct nvl_fw_wire *nvl_fw_wire_find(const char *version);

#endif /* NVL_MODEL_GSP_WIRE_H */

/* SPDX-License-Identifier: MIT */
/*
 * Per-version behaviour of the firmware interface that a layout cannot
 * express (docs/abigen.md, "How the driver uses the neutral layer"): one
 * small, complete, read-only ops table per version. Layouts, constants and numbers come from the generated layer.
 */
#ifndef NVL_GSP_ABI_OPS_H
#define NVL_GSP_ABI_OPS_H

#include <stdbool.h>
#include <stdint.h>

struct nvl_gsp;
struct gspabi_static_info;
struct gspabi_version;

/**
 * struct nvl_gsp_abi_ops - what differs in behaviour between versions.
 * @version: the firmware version ("570.144")
 * @gpc_mask: the GPC mask: from GET_GSP_STATIC_INFO (535) or, where the
 *   field was removed, from the GR control it moved to (570); @hsubdev is
 *   the internal subdevice
 * @csum_padded: an element's checksum covers its page padding (535.113.01
 *   on); 535.54.03's stops at the element's end (header + RPC length)
 */
struct nvl_gsp_abi_ops {
	const char *version;
	bool csum_padded;
	int (*gpc_mask)(struct nvl_gsp *gsp, const struct gspabi_version *v,
			uint32_t hsubdev, const struct gspabi_static_info *si,
			uint32_t *out);
};

/**
 * nvl_gsp_abi_ops_find() - the ops of @version; an unknown version gets
 * the newest table (a new release behaves as the latest one known until
 * its own table is written).
 */
const struct nvl_gsp_abi_ops *nvl_gsp_abi_ops_find(const char *version);

#endif /* NVL_GSP_ABI_OPS_H */

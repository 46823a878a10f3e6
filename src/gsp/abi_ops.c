// SPDX-License-Identifier: MIT
/*
 * Per-version ops tables (abi_ops.h). 535.54.03 and 535.113.01 carry the
 * GPC mask in their static info; 570.144 removed it and answers a GR
 * control instead (gsp-firmware.md §4.1).
 */
#include <errno.h>
#include <string.h>

#include "base/compiler.h"
#include "base/log.h"
#include "gsp/abi_ops.h"
#include "gsp/rm.h"
#include "gspabi.h"

static int gpc_mask_static(struct nvl_gsp *gsp, const struct gspabi_version *v,
			   uint32_t hsubdev,
			   const struct gspabi_static_info *si, uint32_t *out)
{
	(void)gsp;
	(void)hsubdev;
	if (!(si->present & GSPABI_STATIC_INFO_HAS_GPCMASK))
		return nvl_error(-EPROTO, "gsp: %s: no gpcMask in static info",
				 v->tag);
	*out = si->gpcMask;
	return 0;
}

static int gpc_mask_control(struct nvl_gsp *gsp, const struct gspabi_version *v,
			    uint32_t hsubdev,
			    const struct gspabi_static_info *si, uint32_t *out)
{
	size_t size = v->structs[GSPABI_S_GR_GPC_MASK].wire_size;
	struct gspabi_gr_gpc_mask p = {0};
	uint8_t wire[64];
	uint64_t cmd;
	int ret;

	(void)si;
	if (!size || size > sizeof(wire) ||
	    gspabi_to_wire(v, GSPABI_T_CONTROL,
			   GSPABI_CONTROL_NV2080_CTRL_CMD_GR_GET_GPC_MASK,
			   &cmd))
		return nvl_error(-EPROTO, "gsp: %s: no GR_GET_GPC_MASK control",
				 v->tag);
	if (gspabi_pack(v, GSPABI_S_GR_GPC_MASK, &p, wire, size))
		return nvl_error(-EPROTO, "gsp: %s: GR_GET_GPC_MASK params",
				 v->tag);
	ret = nvl_gsp_rm_control(gsp, hsubdev, (uint32_t)cmd, wire, size);
	if (ret)
		return ret;
	if (gspabi_unpack(v, GSPABI_S_GR_GPC_MASK, wire, size, &p))
		return nvl_error(-EPROTO, "gsp: %s: GR_GET_GPC_MASK reply",
				 v->tag);
	*out = p.gpcMask;
	return 0;
}

/* in version order; a version that behaves as the one before repeats its
 * hooks, so every table is complete and read-only */
static const struct nvl_gsp_abi_ops ops[] = {
	{.version = "535.54.03", .gpc_mask = gpc_mask_static},
	{.version = "535.113.01",
	 .gpc_mask = gpc_mask_static,
	 .csum_padded = true},
	{.version = "570.144",
	 .gpc_mask = gpc_mask_control,
	 .csum_padded = true},
};

const struct nvl_gsp_abi_ops *nvl_gsp_abi_ops_find(const char *version)
{
	size_t i;

	for (i = 0; i + 1 < NVL_ARRAY_SIZE(ops); i++)
		if (version && !strcmp(ops[i].version, version))
			break;
	return &ops[i];
}

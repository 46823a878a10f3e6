/* SPDX-License-Identifier: MIT */
/*
 * NV2080 GR controls of GSP-RM 570.144. The GPC and TPC masks that 535's
 * GET_GSP_STATIC_INFO carried (gpcMask, tpcCount) come from here in 570.
 */
#ifndef NVL_FW_570_CTRL2080GR_H
#define NVL_FW_570_CTRL2080GR_H

#include "nvtypes.h"

#define NV2080_CTRL_CMD_GR_GET_GPC_MASK 0x2080122a
typedef struct NV2080_CTRL_GR_GET_GPC_MASK_PARAMS {
	NV_DECLARE_ALIGNED(NvU64 grRouteInfo, 8); /* 0: the only GR */
	NvU32 gpcMask;
} NV2080_CTRL_GR_GET_GPC_MASK_PARAMS;

#define NV2080_CTRL_CMD_GR_GET_TPC_MASK 0x2080122b
typedef struct NV2080_CTRL_GR_GET_TPC_MASK_PARAMS {
	NV_DECLARE_ALIGNED(NvU64 grRouteInfo, 8);
	NvU32 gpcId;
	NvU32 tpcMask;
} NV2080_CTRL_GR_GET_TPC_MASK_PARAMS;

#endif

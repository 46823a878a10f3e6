/* SPDX-License-Identifier: MIT */
/*
 * abigen drift set, version 2: fbio/fbp masks widened to 64 bits, and the
 * GPC mask removed (it moved to NV2080_CTRL_CMD_GR_GET_GPC_MASK).
 */
#ifndef DRIFT_STATIC_INFO_H
#define DRIFT_STATIC_INFO_H
#include "nvtypes.h"

typedef struct {
	NV_DECLARE_ALIGNED(NvU64 fbio_mask, 8);
	NV_DECLARE_ALIGNED(NvU64 fbp_mask, 8);
	NvU32 l2CacheSize;
} STATIC_CONFIG;

#endif

/* SPDX-License-Identifier: MIT */
/*
 * abigen drift set, version 1: static configuration with 32-bit masks
 * and the GPC mask carried in the RPC itself.
 */
#ifndef DRIFT_STATIC_INFO_H
#define DRIFT_STATIC_INFO_H
#include "nvtypes.h"

typedef struct {
	NvU32 fbio_mask;
	NvU32 fbp_mask;
	NvU32 gpcMask;
	NvU32 l2CacheSize;
} STATIC_CONFIG;

#endif

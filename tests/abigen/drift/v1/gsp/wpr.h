/* SPDX-License-Identifier: MIT */
/* abigen drift set, version 1: WPR metadata with a 7-byte pad. */
#ifndef DRIFT_WPR_H
#define DRIFT_WPR_H
#include "nvtypes.h"

typedef struct {
	NV_DECLARE_ALIGNED(NvU64 magic, 8);
	NvU32 revision;
	NvU32 sizeOfSelf;
	NvU8 bootCount;
	NvU8 padding[7];
	NV_DECLARE_ALIGNED(NvU64 verified, 8);
} WPR_META;

#endif

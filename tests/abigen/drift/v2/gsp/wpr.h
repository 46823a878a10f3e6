/* SPDX-License-Identifier: MIT */
/*
 * abigen drift set, version 2: the pad became flags + pmuReservedSize;
 * the struct keeps its size.
 */
#ifndef DRIFT_WPR_H
#define DRIFT_WPR_H
#include "nvtypes.h"

typedef struct {
	NV_DECLARE_ALIGNED(NvU64 magic, 8);
	NvU32 revision;
	NvU32 sizeOfSelf;
	NvU8 bootCount;
	NvU8 flags;
	NvU8 padding[2];
	NvU32 pmuReservedSize;
	NV_DECLARE_ALIGNED(NvU64 verified, 8);
} WPR_META;

#endif

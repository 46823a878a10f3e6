/* SPDX-License-Identifier: MIT */
/*
 * abigen drift set, version 2: SKU arrays resized and a field added, the
 * board id field renamed, MSENC renamed NVENC, FB_GET_INFO_V2 moved to a
 * new number, a GR control added that now carries the GPC mask, and the
 * LIBOS3 carveout grew.
 */
#ifndef DRIFT_CTRL2080_H
#define DRIFT_CTRL2080_H
#include "nvtypes.h"

#define NV2080_CTRL_CMD_BIOS_GET_SKU_INFO (0x20800808)
#define NV2080_CTRL_CMD_GPU_GET_ENGINES_V2 (0x20800170)
#define NV2080_CTRL_CMD_FB_GET_INFO_V2 (0x208001b0)
#define NV2080_CTRL_CMD_GR_GET_GPC_MASK (0x2080122a)

typedef struct {
	NvU32 boardId;
	char chipSKU[9];
	char chipSKUMod[5];
	NvU32 skuConfigVersion;
} NV2080_CTRL_BIOS_GET_SKU_INFO_PARAMS;

typedef struct {
	NvU32 gpcMask;
} NV2080_CTRL_GR_GET_GPC_MASK_PARAMS;

/* per-engine samples: the element grows to 24 bytes (a process id and an
 * aligned time stamp added) and the array to 6, under the same names */
typedef struct {
	NvU32 util;
	NvU32 procId;
	NvU32 subProcessID;
	NV_DECLARE_ALIGNED(NvU64 timeStamp, 8);
} NV2080_CTRL_PERF_ENGINE_UTIL_SAMPLE;

#define NV2080_CTRL_PERF_ENGINE_UTIL_MAX 6
typedef struct {
	NvU32 count;
	NV_DECLARE_ALIGNED(NV2080_CTRL_PERF_ENGINE_UTIL_SAMPLE
				   samples[NV2080_CTRL_PERF_ENGINE_UTIL_MAX],
			   8);
} NV2080_CTRL_PERF_GET_ENGINE_UTIL_PARAMS;

typedef enum {
	RM_ENGINE_TYPE_NULL = 0,
	RM_ENGINE_TYPE_GR0 = 1,
	RM_ENGINE_TYPE_COPY0 = 9,
	RM_ENGINE_TYPE_NVENC = 0x25,
} RM_ENGINE_TYPE;

#if RMCFG_FEATURE_GSPRM_BULLSEYE
#define GSP_FW_HEAP_SIZE_OVERRIDE_LIBOS3_BAREMETAL_MIN_MB (88 + 12 + 70)
#else
#define GSP_FW_HEAP_SIZE_OVERRIDE_LIBOS3_BAREMETAL_MIN_MB (88)
#endif
#define GSP_FW_HEAP_PARAM_OS_SIZE_LIBOS3_MB 22

#endif

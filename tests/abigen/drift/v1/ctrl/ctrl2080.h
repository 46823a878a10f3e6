/* SPDX-License-Identifier: MIT */
/*
 * abigen drift set, version 1: controls, SKU info, engine types and the
 * heap constants (one of them define-dependent).
 */
#ifndef DRIFT_CTRL2080_H
#define DRIFT_CTRL2080_H
#include "nvtypes.h"

#define NV2080_CTRL_CMD_BIOS_GET_SKU_INFO (0x20800808)
#define NV2080_CTRL_CMD_GPU_GET_ENGINES_V2 (0x20800170)
#define NV2080_CTRL_CMD_FB_GET_INFO_V2 (0x20800a42)

typedef struct {
	NvU32 BoardID;
	char chipSKU[4];
	char chipSKUMod[2];
} NV2080_CTRL_BIOS_GET_SKU_INFO_PARAMS;

/* per-engine samples: an array of structs (element 8 bytes, 4 of them) */
typedef struct {
	NvU32 util;
	NvU32 procId;
} NV2080_CTRL_PERF_ENGINE_UTIL_SAMPLE;

#define NV2080_CTRL_PERF_ENGINE_UTIL_MAX 4
typedef struct {
	NvU32 count;
	NV2080_CTRL_PERF_ENGINE_UTIL_SAMPLE
	samples[NV2080_CTRL_PERF_ENGINE_UTIL_MAX];
} NV2080_CTRL_PERF_GET_ENGINE_UTIL_PARAMS;

typedef enum {
	RM_ENGINE_TYPE_NULL = 0,
	RM_ENGINE_TYPE_GR0 = 1,
	RM_ENGINE_TYPE_COPY0 = 9,
	RM_ENGINE_TYPE_MSENC = 0x25,
} RM_ENGINE_TYPE;

#if RMCFG_FEATURE_GSPRM_BULLSEYE
#define GSP_FW_HEAP_SIZE_OVERRIDE_LIBOS3_BAREMETAL_MIN_MB (88 + 12 + 64)
#else
#define GSP_FW_HEAP_SIZE_OVERRIDE_LIBOS3_BAREMETAL_MIN_MB (88)
#endif
#define GSP_FW_HEAP_PARAM_OS_SIZE_LIBOS3_MB 20

#endif

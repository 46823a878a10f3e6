/* SPDX-License-Identifier: MIT */
/* NV2080 BIOS controls of GSP-RM 570.144 (the SKU strings grew). */
#ifndef NVL_FW_570_CTRL2080BIOS_H
#define NVL_FW_570_CTRL2080BIOS_H

#include "nvtypes.h"

#define NV2080_CTRL_CMD_BIOS_GET_SKU_INFO 0x20800808
#define NV2080_CTRL_BIOS_CHIP_SKU_LEN 9
#define NV2080_CTRL_BIOS_CHIP_SKU_MOD_LEN 5
typedef struct NV2080_CTRL_BIOS_GET_SKU_INFO_PARAMS {
	NvU32 BoardID;
	char chipSKU[NV2080_CTRL_BIOS_CHIP_SKU_LEN];
	char chipSKUMod[NV2080_CTRL_BIOS_CHIP_SKU_MOD_LEN];
	NvU32 skuConfigVersion; /* new in 570 */
	char project[5];
	char projectSKU[5];
	char CDP[6];
	char projectSKUMod[2];
	NvU32 businessCycle;
} NV2080_CTRL_BIOS_GET_SKU_INFO_PARAMS;

#endif

/* SPDX-License-Identifier: MIT */
/*
 * NV2080 clock domain ids of GSP-RM 570.144 (the public
 * NV2080_CTRL_CLK_DOMAIN values; nouvelle's clock controls use them).
 */
#ifndef NVL_FW_570_CTRL2080CLK_H
#define NVL_FW_570_CTRL2080CLK_H

#include "nvtypes.h"

/* ---- clock domains (public NV2080_CTRL_CLK_DOMAIN values) ------------ */
#define NV2080_CTRL_CLK_DOMAIN_GPCCLK 0x00000001
#define NV2080_CTRL_CLK_DOMAIN_MCLK 0x00000010
#define NV2080_CTRL_CLK_DOMAIN_NVDCLK 0x00100000 /* video */

#endif /* NVL_FW_570_CTRL2080CLK_H */

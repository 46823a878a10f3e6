/* SPDX-License-Identifier: MIT */
/*
 * Everything GSP-RM 535.54.03 speaks, in one include. The model's
 * firmware includes this; the driver reaches it only through
 * src/gsp/abi.h (until abigen generates the version-neutral layer).
 */
#ifndef NVL_FW_535_54_GSP_H
#define NVL_FW_535_54_GSP_H

#define NVL_FW_ABI_VERSION "535.54.03"

#include "nvtypes.h"
#include "nvstatus.h"
#include "rpc_global_enums.h"
#include "msgq.h" /* in msgq/ */
#include "rpc_structures.h"
#include "gsp_fw_wpr_meta.h"
#include "libos_init_args.h"
#include "gsp_init_args.h"
#include "rmgspseq.h"
#include "gsp_fw_heap.h"
#include "rm_objects.h"
#include "ctrl2080_sensors.h"
#include "gsp_static_config.h"

#endif

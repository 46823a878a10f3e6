/* SPDX-License-Identifier: MIT */
/*
 * Everything GSP-RM 570.144 speaks, in one include. Its headers are spread
 * over several directories, as NVIDIA's are: sdk/nvidia/inc (types,
 * status, classes and controls), kernel/inc/gpu/gsp (queues, static info),
 * arch/nvalloc/common/inc/gsp (boot structures, heap) and rpc (RPC numbers
 * and payloads). Include path: all four.
 */
#ifndef NVL_FW_570_GSP_H
#define NVL_FW_570_GSP_H

#define NVL_FW_ABI_VERSION "570.144"

#include "nvtypes.h"
#include "nvstatus.h"
#include "rpc_global_enums.h"
#include "msgq.h"
#include "rpc_structures.h"
#include "gsp_fw_wpr_meta.h"
#include "libos_init_args.h"
#include "gsp_init_args.h"
#include "rmgspseq.h"
#include "gsp_fw_heap.h"
#include "rm_objects.h"
#include "gsp_static_config.h"

#endif

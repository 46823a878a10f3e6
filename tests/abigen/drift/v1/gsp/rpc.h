/* SPDX-License-Identifier: MIT */
/* abigen drift set, version 1: an RPC payload and the event numbers. */
#ifndef DRIFT_RPC_H
#define DRIFT_RPC_H
#include "nvtypes.h"

typedef struct rpc_os_error_log_v17_00 {
	NvU32 exceptType;
	NvU32 runlistId;
	NvU32 chid;
	char errString[32];
} rpc_os_error_log_v17_00;

#define NV_VGPU_MSG_EVENT_FIRST_EVENT 0x1000
#define NV_VGPU_MSG_EVENT_GSP_INIT_DONE 0x1001
#define NV_VGPU_MSG_EVENT_OS_ERROR_LOG 0x1006
#define NV_VGPU_MSG_EVENT_GSP_SEND_USER_SHARED_DATA 0x101b
#define NV_VGPU_MSG_EVENT_NVLINK_FAULT_UP 0x101c
#define NV_VGPU_MSG_EVENT_GSP_LOCKDOWN_NOTICE 0x101d
#define NV_VGPU_MSG_EVENT_MIG_CI_CONFIG_UPDATE 0x101e

#endif

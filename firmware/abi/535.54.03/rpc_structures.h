/* SPDX-License-Identifier: MIT */
/*
 * GSP-RM 535.54.03 RPC payloads (what follows the RPC header), named as
 * the firmware's generated structures are: rpc_<function>_v<maj>_<min>.
 */
#ifndef NVL_FW_535_54_RPC_STRUCTURES_H
#define NVL_FW_535_54_RPC_STRUCTURES_H

#include "nvtypes.h"

typedef struct rpc_gsp_rm_alloc_v03_00 {
	NvHandle hClient;
	NvHandle hParent;
	NvHandle hObject;
	NvU32 hClass;
	NvU32 status;     /* inner NV_STATUS of the allocation */
	NvU32 paramsSize;
	NvU32 flags;
	NvU8 reserved[4];
	NvU8 params[];
} rpc_gsp_rm_alloc_v03_00;

typedef struct rpc_gsp_rm_control_v03_00 {
	NvHandle hClient;
	NvHandle hObject;
	NvU32 cmd;
	NvU32 status;     /* inner NV_STATUS of the control */
	NvU32 paramsSize;
	NvU32 flags;
	NvU8 params[];
} rpc_gsp_rm_control_v03_00;

typedef struct NVOS00_PARAMETERS_v03_00 {
	NvHandle hRoot;
	NvHandle hObjectParent;
	NvHandle hObjectOld;
	NvV32 status;
} NVOS00_PARAMETERS_v03_00;

typedef struct rpc_free_v03_00 {
	NVOS00_PARAMETERS_v03_00 params;
} rpc_free_v03_00;

typedef struct rpc_unloading_guest_driver_v1F_07 {
	NvBool bInPMTransition;
	NvBool bGc6Entering;
	NvU32 newLevel;
} rpc_unloading_guest_driver_v1F_07;

typedef struct rpc_os_error_log_v17_00 {
	NvU32 exceptType;
	NvU32 runlistId;
	NvU32 chid;
	char errString[0x100];
} rpc_os_error_log_v17_00;

typedef struct rpc_rc_triggered_v17_02 {
	NvU32 nv2080EngineType;
	NvU32 chid;
	NvU32 exceptType;
	NvU32 scope;
	NvU16 partitionAttributionId;
} rpc_rc_triggered_v17_02;

typedef struct rpc_post_event_v17_00 {
	NvHandle hClient;
	NvHandle hEvent;
	NvU32 notifyIndex;
	NvU32 data;
	NvU16 info16;
	NvU32 status;
	NvU32 eventDataSize;
	NvBool bNotifyList;
	NvU8 eventData[];
} rpc_post_event_v17_00;

typedef struct rpc_run_cpu_sequencer_v17_00 {
	NvU32 bufferSizeDWord;
	NvU32 cmdIndex;
	NvU32 regSaveArea[8];
	NvU32 commandBuffer[];
} rpc_run_cpu_sequencer_v17_00;

typedef struct rpc_gsp_init_done_v17_00 {
	NvU32 unused; /* INIT_DONE carries its verdict in rpc_result */
} rpc_gsp_init_done_v17_00;

/* SET_REGISTRY: a packed table, names after the entries */
typedef struct PACKED_REGISTRY_ENTRY {
	NvU32 nameOffset; /* from the start of the table */
	NvU8 type;        /* REGISTRY_TABLE_ENTRY_TYPE_* */
	NvU32 data;       /* DWORD value, or offset of binary/string data */
	NvU32 length;
} PACKED_REGISTRY_ENTRY;

typedef struct PACKED_REGISTRY_TABLE {
	NvU32 size; /* bytes of the whole table */
	NvU32 numEntries;
	PACKED_REGISTRY_ENTRY entries[];
} PACKED_REGISTRY_TABLE;

#define REGISTRY_TABLE_ENTRY_TYPE_UNKNOWN 0
#define REGISTRY_TABLE_ENTRY_TYPE_DWORD 1
#define REGISTRY_TABLE_ENTRY_TYPE_BINARY 2
#define REGISTRY_TABLE_ENTRY_TYPE_STRING 3

#endif

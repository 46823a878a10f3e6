/* SPDX-License-Identifier: MIT */
/*
 * RM classes, allocation parameters and controls of GSP-RM 535.113.01 that
 * nouvelle uses (a subset, with the SDK's numbers).
 */
#ifndef NVL_FW_535_RM_OBJECTS_H
#define NVL_FW_535_RM_OBJECTS_H

#include "nvtypes.h"

#define NV01_ROOT 0x00000000
#define NV01_DEVICE_0 0x00000080
#define NV20_SUBDEVICE_0 0x00002080
#define FERMI_VASPACE_A 0x000090f1
#define NV01_EVENT_KERNEL_CALLBACK_EX 0x0000007e
#define TURING_CHANNEL_GPFIFO_A 0x0000c46f
#define AMPERE_CHANNEL_GPFIFO_A 0x0000c56f
#define HOPPER_CHANNEL_GPFIFO_A 0x0000c86f
#define TURING_DMA_COPY_A 0x0000c5b5
#define AMPERE_DMA_COPY_A 0x0000c6b5
#define AMPERE_DMA_COPY_B 0x0000c7b5
#define HOPPER_DMA_COPY_A 0x0000c8b5

typedef struct NV0080_ALLOC_PARAMETERS {
	NvU32 deviceId;
	NvHandle hClientShare;
	NvHandle hTargetClient;
	NvHandle hTargetDevice;
	NvV32 flags;
	NV_DECLARE_ALIGNED(NvU64 vaSpaceSize, 8);
	NV_DECLARE_ALIGNED(NvU64 vaStartInternal, 8);
	NV_DECLARE_ALIGNED(NvU64 vaLimitInternal, 8);
	NvV32 vaMode;
} NV0080_ALLOC_PARAMETERS;

typedef struct NV2080_ALLOC_PARAMETERS {
	NvU32 subDeviceId;
} NV2080_ALLOC_PARAMETERS;

typedef struct NV_VASPACE_ALLOCATION_PARAMETERS {
	NvU32 index;
	NvV32 flags;
	NV_DECLARE_ALIGNED(NvU64 vaSize, 8);
	NV_DECLARE_ALIGNED(NvU64 vaStartInternal, 8);
	NV_DECLARE_ALIGNED(NvU64 vaLimitInternal, 8);
	NvU32 bigPageSize;
	NV_DECLARE_ALIGNED(NvU64 vaBase, 8);
} NV_VASPACE_ALLOCATION_PARAMETERS;

/* index: a new VA space (the others name RM's shared ones) */
#define NV_VASPACE_ALLOCATION_INDEX_GPU_NEW 0x00

/*
 * flags (nvos.h): SHARED_MANAGEMENT, RM's root under a client that may
 * commit its own root over it (SET_PAGE_DIRECTORY); IS_EXTERNALLY_OWNED,
 * the client owns every page table and tells RM its root with
 * SET_PAGE_DIRECTORY, RM allocates no VA in it; IS_MIRRORED (UVM's
 * pre-Pascal mirroring, refused with IS_EXTERNALLY_OWNED).
 */
#define NV_VASPACE_ALLOCATION_FLAGS_SHARED_MANAGEMENT (1u << 2)
#define NV_VASPACE_ALLOCATION_FLAGS_IS_EXTERNALLY_OWNED (1u << 3)
#define NV_VASPACE_ALLOCATION_FLAGS_IS_MIRRORED (1u << 5)
/* the VA space's GR/SM faults are replayable (FAULT_REPLAY_TEX/GCC);
 * RM refuses it without IS_EXTERNALLY_OWNED */
#define NV_VASPACE_ALLOCATION_FLAGS_ENABLE_PAGE_FAULTING (1u << 6)

/* bigPageSize: 0 (the format's), 64 KiB or 128 KiB */
#define NV_VASPACE_BIG_PAGE_SIZE_64K (64u * 1024)
#define NV_VASPACE_BIG_PAGE_SIZE_128K (128u * 1024)

/* a trimmed NV_CHANNEL_ALLOC_PARAMS: the fields the model's RM reads */
typedef struct NV_CHANNEL_ALLOC_PARAMS {
	NvHandle hObjectError;
	NvHandle hObjectBuffer;
	NV_DECLARE_ALIGNED(NvU64 gpFifoOffset, 8);
	NvU32 gpFifoEntries;
	NvU32 flags;
	NvHandle hContextShare;
	NvHandle hVASpace;
	NvU32 engineType;
	NvU32 cid; /* out: the channel id the firmware picked */
	/* USERD in FB, driver-owned (RM's hUserdMemory + userdOffset) */
	NV_DECLARE_ALIGNED(NvU64 userdOffset, 8);
	/* out: where RM put the channel's instance block */
	NV_DECLARE_ALIGNED(NvU64 instOffset, 8);
} NV_CHANNEL_ALLOC_PARAMS;

/* flags of NV_CHANNEL_ALLOC_PARAMS (the model's RM reads only this one) */
#define NVOS04_FLAGS_PRIVILEGED_CHANNEL 0x00000001

/* the FB regions (control on a subdevice): what the driver may use */
#define NV2080_CTRL_CMD_FB_GET_FB_REGION_INFO 0x20801320
typedef struct NV2080_CTRL_CMD_FB_GET_FB_REGION_FB_REGION_INFO {
	NV_DECLARE_ALIGNED(NvU64 base, 8);
	NV_DECLARE_ALIGNED(NvU64 limit, 8); /* inclusive */
	NV_DECLARE_ALIGNED(NvU64 reserved, 8);
	NvU32 performance;
	NvBool supportCompressed;
	NvBool supportISO;
	NvBool bProtected;
} NV2080_CTRL_CMD_FB_GET_FB_REGION_FB_REGION_INFO;

#define NV2080_CTRL_CMD_FB_GET_FB_REGION_INFO_MEM_TYPES 16

typedef struct NV2080_CTRL_CMD_FB_GET_FB_REGION_INFO_PARAMS {
	NvU32 numFBRegions;
	NV_DECLARE_ALIGNED(
		NV2080_CTRL_CMD_FB_GET_FB_REGION_FB_REGION_INFO
			fbRegion[NV2080_CTRL_CMD_FB_GET_FB_REGION_INFO_MEM_TYPES],
		8);
} NV2080_CTRL_CMD_FB_GET_FB_REGION_INFO_PARAMS;

/* the work-submit token a doorbell write carries (control on a channel) */
#define NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN 0xc36f0108
typedef struct NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN_PARAMS {
	NvU32 workSubmitToken;
} NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN_PARAMS;

/* reset a channel (control on a channel, ctrl906f.h: RM's robust-channel
 * recovery of it: its engine is reset and its fetch state cleared) */
#define NV906F_CTRL_CMD_RESET_CHANNEL 0x906f0102
#define NV906F_CTRL_CMD_RESET_CHANNEL_REASON_DEFAULT 0
#define NV906F_CTRL_CMD_RESET_CHANNEL_REASON_VERIF 1
#define NV906F_CTRL_CMD_RESET_CHANNEL_REASON_MMU_FLT 2
#define NV906F_CTRL_CMD_RESET_CHANNEL_REASON_ENUM_MAX 3
typedef struct NV906F_CTRL_CMD_RESET_CHANNEL_PARAMS {
	NvU32 engineID;
	NvU32 subdeviceInstance;
	NvU32 resetReason;
	NvBool bIsRcPending;
} NV906F_CTRL_CMD_RESET_CHANNEL_PARAMS;

/*
 * bind a VA space's root page directory (control on the device):
 * numEntries root entries at physAddress; RM takes the VA limit from the
 * last one (numEntries - 1) and wants it within the VA space's size and
 * the format's
 */
#define NV0080_CTRL_CMD_DMA_SET_PAGE_DIRECTORY 0x00801813
typedef struct NV0080_CTRL_DMA_SET_PAGE_DIRECTORY_PARAMS {
	NV_DECLARE_ALIGNED(NvU64 physAddress, 8);
	NvU32 numEntries;
	NvU32 flags;
	NvHandle hVASpace;
	NvU32 chId;
	NvU32 subDeviceId;
	NvU32 pasid;
} NV0080_CTRL_DMA_SET_PAGE_DIRECTORY_PARAMS;

/* flags: APERTURE 1:0 (0 video memory, 1 coherent and 2 non-coherent
 * system memory) */
#define NV0080_CTRL_DMA_SET_PAGE_DIRECTORY_FLAGS_APERTURE_VIDMEM 0
#define NV0080_CTRL_DMA_SET_PAGE_DIRECTORY_FLAGS_APERTURE_SYSMEM_COH 1
#define NV0080_CTRL_DMA_SET_PAGE_DIRECTORY_FLAGS_APERTURE_SYSMEM_NONCOH 2

/*
 * NV0080_CTRL_CMD_DMA_UNSET_PAGE_DIRECTORY (ctrl0080dma.h): the client's
 * root taken back from a VA space (RM's gvaspaceExternalRootDirRevoke():
 * an externally owned space forgets it; a SHARED_MANAGEMENT one goes back
 * to RM's own root); subDeviceId is ID + 1, 0 for broadcast
 */
#define NV0080_CTRL_CMD_DMA_UNSET_PAGE_DIRECTORY 0x00801814
typedef struct NV0080_CTRL_DMA_UNSET_PAGE_DIRECTORY_PARAMS {
	NvHandle hVASpace;
	NvU32 subDeviceId;
} NV0080_CTRL_DMA_UNSET_PAGE_DIRECTORY_PARAMS;

/*
 * NV90F1_CTRL_CMD_VASPACE_COPY_SERVER_RESERVED_PDES (ctrl90f1.h), a
 * control on the FERMI_VASPACE_A object: the client hands RM the page
 * levels (root first) that cover the VA range RM keeps for itself in a
 * split VA space, so that RM's walker uses the client's pages for them
 * (gpu_vaspace.c gvaspaceCopyServerReservedPdes()). hSubDevice, or
 * subDeviceId (ID + 1) when it is 0; pageSize is the VA one entry of the
 * last level given spans; [virtAddrLo, virtAddrHi] the range, aligned to
 * it. Each level: where its table is, its bytes, a GMMU_APERTURE and the
 * VA shift of one of its entries. The same layout in 535 and 570
 * (GMMU_FMT_MAX_LEVELS 6). The element type is named here, not in
 * NVIDIA's header.
 */
#define GMMU_FMT_MAX_LEVELS 6
#define NV90F1_CTRL_CMD_VASPACE_COPY_SERVER_RESERVED_PDES 0x90f10106
typedef struct NV90F1_CTRL_VASPACE_SERVER_PDE_LEVEL {
	NV_DECLARE_ALIGNED(NvU64 physAddress, 8);
	NV_DECLARE_ALIGNED(NvU64 size, 8);
	NvU32 aperture;
	NvU8 pageShift;
} NV90F1_CTRL_VASPACE_SERVER_PDE_LEVEL;
typedef struct NV90F1_CTRL_VASPACE_COPY_SERVER_RESERVED_PDES_PARAMS {
	NvHandle hSubDevice;
	NvU32 subDeviceId;
	NV_DECLARE_ALIGNED(NvU64 pageSize, 8);
	NV_DECLARE_ALIGNED(NvU64 virtAddrLo, 8);
	NV_DECLARE_ALIGNED(NvU64 virtAddrHi, 8);
	NvU32 numLevelsToCopy;
	NV90F1_CTRL_VASPACE_SERVER_PDE_LEVEL levels[GMMU_FMT_MAX_LEVELS];
} NV90F1_CTRL_VASPACE_COPY_SERVER_RESERVED_PDES_PARAMS;

/* GMMU_APERTURE (gmmu_fmt.h): where a page level lives */
#define GMMU_APERTURE_INVALID 0
#define GMMU_APERTURE_VIDEO 1
#define GMMU_APERTURE_PEER 2
#define GMMU_APERTURE_SYS_NONCOH 3
#define GMMU_APERTURE_SYS_COH 4

/* the VA RM keeps in a split VA space: [4 GiB, 4.5 GiB) (gpu_vaspace.h
 * SPLIT_VAS_SERVER_RM_MANAGED_VA_START, _SIZE) */
#define SPLIT_VAS_SERVER_RM_MANAGED_VA_START 0x100000000ULL
#define SPLIT_VAS_SERVER_RM_MANAGED_VA_SIZE 0x20000000ULL

typedef struct NV0005_ALLOC_PARAMETERS {
	NvHandle hParentClient;
	NvHandle hSrcResource;
	NvV32 hClass;
	NvV32 notifyIndex;
	NV_DECLARE_ALIGNED(NvP64 data, 8);
} NV0005_ALLOC_PARAMETERS;

/* ---- controls ------------------------------------------------------ */
#define NV2080_CTRL_CMD_GPU_GET_INFO_V2 0x20800102
#define NV2080_CTRL_CMD_EVENT_SET_NOTIFICATION 0x20800301
#define NV2080_CTRL_CMD_INTERNAL_INTR_GET_KERNEL_TABLE 0x20800a5c

#define NV2080_CTRL_GPU_INFO_MAX_LIST_SIZE 65
typedef struct NV2080_CTRL_GPU_INFO {
	NvU32 index;
	NvU32 data;
} NV2080_CTRL_GPU_INFO;

typedef struct NV2080_CTRL_GPU_GET_INFO_V2_PARAMS {
	NvU32 gpuInfoListSize;
	NV2080_CTRL_GPU_INFO gpuInfoList[NV2080_CTRL_GPU_INFO_MAX_LIST_SIZE];
} NV2080_CTRL_GPU_GET_INFO_V2_PARAMS;

#define NV2080_CTRL_GPU_INFO_INDEX_ECID_LO32 0x00000001
#define NV2080_CTRL_GPU_INFO_INDEX_MINOR_REVISION_EXT 0x00000004

typedef struct NV2080_CTRL_EVENT_SET_NOTIFICATION_PARAMS {
	NvU32 event;
	NvU32 action;
	NvBool bNotifyState;
	NvU32 info32;
	NvU16 info16;
} NV2080_CTRL_EVENT_SET_NOTIFICATION_PARAMS;

#define NV2080_CTRL_EVENT_SET_NOTIFICATION_ACTION_DISABLE 1
#define NV2080_CTRL_EVENT_SET_NOTIFICATION_ACTION_SINGLE 2
#define NV2080_CTRL_EVENT_SET_NOTIFICATION_ACTION_REPEAT 3

#define NV2080_CTRL_INTERNAL_INTR_MAX_TABLE_SIZE 128
typedef struct NV2080_INTR_CATEGORY_SUBTREE_MAP {
	NvU8 subtreeStart;
	NvU8 subtreeEnd;
} NV2080_INTR_CATEGORY_SUBTREE_MAP;

typedef struct NV2080_CTRL_INTERNAL_INTR_GET_KERNEL_TABLE_ENTRY {
	NvU16 engineIdx;
	NvU32 pmcIntrMask;
	NvU32 vectorStall;
	NvU32 vectorNonStall;
} NV2080_CTRL_INTERNAL_INTR_GET_KERNEL_TABLE_ENTRY;

typedef struct NV2080_CTRL_INTERNAL_INTR_GET_KERNEL_TABLE_PARAMS {
	NvU32 tableLen;
	NV2080_CTRL_INTERNAL_INTR_GET_KERNEL_TABLE_ENTRY
		table[NV2080_CTRL_INTERNAL_INTR_MAX_TABLE_SIZE];
	NV2080_INTR_CATEGORY_SUBTREE_MAP subtreeMap[7];
} NV2080_CTRL_INTERNAL_INTR_GET_KERNEL_TABLE_PARAMS;

#define NV2080_CTRL_CMD_BIOS_GET_SKU_INFO 0x20800808
#define NV2080_CTRL_BIOS_CHIP_SKU_LEN 4
#define NV2080_CTRL_BIOS_CHIP_SKU_MOD_LEN 2
typedef struct NV2080_CTRL_BIOS_GET_SKU_INFO_PARAMS {
	NvU32 BoardID;
	char chipSKU[NV2080_CTRL_BIOS_CHIP_SKU_LEN];
	char chipSKUMod[NV2080_CTRL_BIOS_CHIP_SKU_MOD_LEN];
	char project[5];
	char projectSKU[5];
	char CDP[6];
	char projectSKUMod[2];
	NvU32 businessCycle;
} NV2080_CTRL_BIOS_GET_SKU_INFO_PARAMS;

/*
 * Not an NVIDIA control: nouvelle's model firmware answers it by returning
 * its parameters with every byte complemented. It exists to move large
 * parameter blocks (continuation records) both ways in tests and benches.
 */
#define NVL_MODEL_CTRL_CMD_ECHO 0x2080f001

/*
 * Non-replayable faults: the driver's shadow copy of RM's fault buffer
 * (control on a subdevice). The queue address names the queue's own
 * bookkeeping; the PTE array the pages of its entries.
 */
#define NV2080_CTRL_CMD_INTERNAL_GMMU_REGISTER_CLIENT_SHADOW_FAULT_BUFFER 0x20800a9d
#define NV2080_CTRL_CMD_INTERNAL_GMMU_UNREGISTER_CLIENT_SHADOW_FAULT_BUFFER 0x20800a9e
#define NV2080_CTRL_INTERNAL_GMMU_CLIENT_SHADOW_FAULT_BUFFER_MAX_PAGES 1500
typedef struct NV2080_CTRL_INTERNAL_GMMU_REGISTER_CLIENT_SHADOW_FAULT_BUFFER_PARAMS {
	NV_DECLARE_ALIGNED(NvU64 shadowFaultBufferQueuePhysAddr, 8);
	NvU32 shadowFaultBufferSize;
	NV_DECLARE_ALIGNED(
		NvU64 shadowFaultBufferPteArray
			[NV2080_CTRL_INTERNAL_GMMU_CLIENT_SHADOW_FAULT_BUFFER_MAX_PAGES],
		8);
} NV2080_CTRL_INTERNAL_GMMU_REGISTER_CLIENT_SHADOW_FAULT_BUFFER_PARAMS;

/*
 * Robust-channel error codes (nverror.h; the number an Xid reports), the
 * ones RM sends in RC_TRIGGERED / OS_ERROR_LOG exceptType for the channel
 * errors the model detects.
 */
#define ROBUST_CHANNEL_GR_EXCEPTION (13)
#define ROBUST_CHANNEL_GR_SEMAPHORE_TIMEOUT (24)
#define ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT (31)
#define ROBUST_CHANNEL_PBDMA_ERROR (32)
#define ROBUST_CHANNEL_RESETCHANNEL_VERIF_ERROR (43)
#define ROBUST_CHANNEL_PREEMPTIVE_REMOVAL (45)

/*
 * Not NVIDIA's: the bookkeeping page of a shadow fault queue
 * (shadowFaultBufferQueuePhysAddr). RM's own queue structure is internal
 * to the firmware; nouvelle's model RM and driver agree on this one. RM
 * writes PUT, OVERFLOWS and LOST, the driver GET; entries are the 32-byte
 * hardware fault entries, slot i at byte i * 32 of the PTE array's pages.
 */
#define NVL_SHADOW_FAULT_QUEUE_PUT 0x00
#define NVL_SHADOW_FAULT_QUEUE_GET 0x04
#define NVL_SHADOW_FAULT_QUEUE_OVERFLOWS 0x08
#define NVL_SHADOW_FAULT_QUEUE_LOST 0x0c

#endif

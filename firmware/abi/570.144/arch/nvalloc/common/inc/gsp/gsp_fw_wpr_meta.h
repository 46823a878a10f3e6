/* SPDX-License-Identifier: MIT */
/*
 * GspFwWprMeta of GSP-RM 570.144: the 256-byte description of the FB
 * layout and the sysmem inputs that booter_load reads (its address goes to
 * SEC2 mailbox0/1).
 */
#ifndef NVL_FW_570_GSP_FW_WPR_META_H
#define NVL_FW_570_GSP_FW_WPR_META_H

#include "nvtypes.h"

typedef struct GspFwWprMeta {
	NvU64 magic;    /* GSP_FW_WPR_META_MAGIC */
	NvU64 revision; /* GSP_FW_WPR_META_REVISION */

	NvU64 sysmemAddrOfRadix3Elf; /* level-0 page of the radix3 table */
	NvU64 sizeOfRadix3Elf;       /* bytes of .fwimage */
	NvU64 sysmemAddrOfBootloader;
	NvU64 sizeOfBootloader;
	NvU64 bootloaderCodeOffset;
	NvU64 bootloaderDataOffset;
	NvU64 bootloaderManifestOffset;

	union {
		struct {
			NvU64 sysmemAddrOfSignature;
			NvU64 sizeOfSignature;
		};
		struct {
			NvU32 gspFwHeapFreeListWprOffset;
			NvU32 unused0;
			NvU64 unused1;
		};
	};

	NvU64 gspFwRsvdStart;
	NvU64 nonWprHeapOffset;
	NvU64 nonWprHeapSize;
	NvU64 gspFwWprStart;
	NvU64 gspFwHeapOffset;
	NvU64 gspFwHeapSize;
	NvU64 gspFwOffset;
	NvU64 bootBinOffset;
	NvU64 frtsOffset;
	NvU64 frtsSize;
	NvU64 gspFwWprEnd;
	NvU64 fbSize;
	NvU64 vgaWorkspaceOffset;
	NvU64 vgaWorkspaceSize;
	NvU64 bootCount;

	union {
		struct {
			NvU64 partitionRpcAddr;
			NvU16 partitionRpcRequestOffset;
			NvU16 partitionRpcReplyOffset;
			NvU32 elfCodeOffset;
			NvU32 elfDataOffset;
			NvU32 elfCodeSize;
			NvU32 elfDataSize;
			NvU32 lsUcodeVersion;
		};
		struct {
			NvU32 partitionRpcPadding[4];
			NvU64 sysmemAddrOfCrashReportQueue;
			NvU32 sizeOfCrashReportQueue;
			NvU32 lsUcodeVersionPadding[1];
		};
	};

	NvU8 gspFwHeapVfPartitionCount;
	NvU8 flags; /* GSP_FW_FLAGS_* */
	NvU8 padding[2];
	NvU32 pmuReservedSize; /* bytes below the WPR reserved for PMU */
	NvU64 verified; /* booter writes GSP_FW_WPR_META_VERIFIED */
} GspFwWprMeta;

#define GSP_FW_WPR_META_REVISION 1
#define GSP_FW_WPR_META_MAGIC 0xdc3aae21371a60b3ULL
#define GSP_FW_WPR_META_VERIFIED 0xa0a0a0a0a0a0a0a0ULL

/* flags: DRF fields */
#define GSP_FW_FLAGS_CLOCK_BOOST 0:0
#define GSP_FW_FLAGS_RECOVERY_MARGIN_PRESENT 1:1
#define GSP_FW_FLAGS_PPCIE_ENABLED 2:2

/*
 * GspFwSRMeta of 570.144: the four sysmem fields as in 535, then the
 * booter's crypto state as an opaque internal[32], the WPR meta's flags
 * and a subrevision.
 */
typedef struct GspFwSRMeta {
	NvU64 magic;    /* GSP_FW_SR_META_MAGIC */
	NvU64 revision; /* GSP_FW_SR_META_REVISION */

	NvU64 sysmemAddrOfSuspendResumeData; /* level-0 page of the radix3 */
	NvU64 sizeOfSuspendResumeData;

	NvU32 internal[32]; /* the booter's, opaque to the driver */
	NvU32 flags; /* GspFwWprMeta.flags */
	NvU32 subrevision;
	NvU32 padding[22]; /* to 256 bytes, zero */
} GspFwSRMeta;

#define GSP_FW_SR_META_MAGIC 0x8a3bb9e6c6c39d93ULL
#define GSP_FW_SR_META_REVISION 2

#endif

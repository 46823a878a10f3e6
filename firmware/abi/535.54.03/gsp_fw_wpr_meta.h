/* SPDX-License-Identifier: MIT */
/*
 * GspFwWprMeta of GSP-RM 535.54.03: the 256-byte description of the FB
 * layout and the sysmem inputs that booter_load reads (its address goes to
 * SEC2 mailbox0/1).
 */
#ifndef NVL_FW_535_54_GSP_FW_WPR_META_H
#define NVL_FW_535_54_GSP_FW_WPR_META_H

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

	/* flat in 535.54.03: 535.113.01 overlays a crash-report queue here */
	NvU64 partitionRpcAddr;
	NvU16 partitionRpcRequestOffset;
	NvU16 partitionRpcReplyOffset;
	NvU32 elfCodeOffset;
	NvU32 elfDataOffset;
	NvU32 elfCodeSize;
	NvU32 elfDataSize;
	NvU32 lsUcodeVersion;

	NvU8 gspFwHeapVfPartitionCount;
	NvU8 padding[7];
	NvU64 verified; /* booter writes GSP_FW_WPR_META_VERIFIED */
} GspFwWprMeta;

#define GSP_FW_WPR_META_REVISION 1
#define GSP_FW_WPR_META_MAGIC 0xdc3aae21371a60b3ULL
#define GSP_FW_WPR_META_VERIFIED 0xa0a0a0a0a0a0a0a0ULL

/*
 * GspFwSRMeta (revision 2): what suspend hands booter_unload and resume
 * hands booter_load in place of GspFwWprMeta (its address goes to SEC2
 * mailbox0/1; the magic tells the booter which one it got). The driver
 * fills the first four fields: a radix3 table over a sysmem area of
 * gspFwWprEnd - gspFwWprStart bytes into which booter_unload saves WPR2.
 * The booter fills the hashes at suspend and checks them at resume.
 */
typedef struct GspFwSRMeta {
	NvU64 magic;    /* GSP_FW_SR_META_MAGIC */
	NvU64 revision; /* GSP_FW_SR_META_REVISION */

	NvU64 sysmemAddrOfSuspendResumeData; /* level-0 page of the radix3 */
	NvU64 sizeOfSuspendResumeData;

	NvU8 hmac[32]; /* over the whole struct, this field zeroed */
	NvU8 wprMetaHash[32];
	NvU8 heapFreeListHash[32]; /* all zero: no free list */
	NvU8 dataHash[32]; /* over the saved WPR2 data */

	NvU32 padding[24]; /* to 256 bytes, zero */
} GspFwSRMeta;

#define GSP_FW_SR_META_MAGIC 0x8a3bb9e6c6c39d93ULL
#define GSP_FW_SR_META_REVISION 2

#endif

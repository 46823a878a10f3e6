/* SPDX-License-Identifier: MIT */
/*
 * LIBOS memory-region arguments (GSP-RM 570.144): one 4 KiB page of
 * LibosMemoryRegionInitArgument, its address in GSP falcon mailbox0/1.
 */
#ifndef NVL_FW_570_LIBOS_INIT_ARGS_H
#define NVL_FW_570_LIBOS_INIT_ARGS_H

#include "nvtypes.h"

typedef NvU64 LibosAddress;

typedef enum {
	LIBOS_MEMORY_REGION_NONE,
	LIBOS_MEMORY_REGION_CONTIGUOUS,
	LIBOS_MEMORY_REGION_RADIX3
} LibosMemoryRegionKind;

typedef enum {
	LIBOS_MEMORY_REGION_LOC_NONE,
	LIBOS_MEMORY_REGION_LOC_SYSMEM,
	LIBOS_MEMORY_REGION_LOC_FB
} LibosMemoryRegionLoc;

typedef struct {
	LibosAddress id8; /* ASCII name packed big-endian, e.g. "LOGINIT" */
	LibosAddress pa;
	LibosAddress size;
	NvU8 kind; /* LibosMemoryRegionKind */
	NvU8 loc;  /* LibosMemoryRegionLoc */
} LibosMemoryRegionInitArgument;

#define LIBOS_LOG_RING_SIZE 0x10000

#endif

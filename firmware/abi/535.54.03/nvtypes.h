/* SPDX-License-Identifier: MIT */
/*
 * nouvelle's own description of the GSP-RM 535.54.03 interface: basic
 * types. Written in the shape of the firmware's headers (typedef chains,
 * NV_DECLARE_ALIGNED) so the ABI generator reads them like the real ones.
 */
#ifndef NVL_FW_535_54_NVTYPES_H
#define NVL_FW_535_54_NVTYPES_H

typedef unsigned char NvU8;
typedef unsigned short NvU16;
typedef unsigned int NvU32;
typedef unsigned long long NvU64;
typedef signed int NvS32;
typedef NvU8 NvBool;
typedef NvU32 NvHandle;
typedef NvU32 NvV32;
typedef NvU64 NvP64;
typedef NvU64 RmPhysAddr;
typedef NvU32 NV_STATUS;

#define NV_TRUE ((NvBool)1)
#define NV_FALSE ((NvBool)0)

/* a member with an explicit alignment, as the firmware's compiler lays it */
#define NV_DECLARE_ALIGNED(decl, align) decl __attribute__((aligned(align)))

#endif

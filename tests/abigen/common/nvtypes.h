/* SPDX-License-Identifier: MIT */
/*
 * This file keeps the shape of NVIDIA's headers (DRF HI:LO fields, aligned
 * X-macro lists), which is what abigen is tested on: no reformatting.
 */
/* clang-format off */
/*
 * Test header set for abigen: the basic type chain, written in the shape
 * of NVIDIA's nvtypes.h (NvV* base types, NvU* / NvS* on top of them,
 * NvBool and NvHandle as further typedefs, NV_DECLARE_ALIGNED).
 */
#ifndef ABIGEN_TEST_NVTYPES_H
#define ABIGEN_TEST_NVTYPES_H

typedef unsigned char NvV8;
typedef unsigned short NvV16;
typedef unsigned int NvV32;
typedef unsigned long long NvV64;
typedef NvV8 NvU8;
typedef NvV16 NvU16;
typedef NvV32 NvU32;
typedef NvV64 NvU64;
typedef signed char NvS8;
typedef signed short NvS16;
typedef signed int NvS32;
typedef signed long long NvS64;
typedef NvU8 NvBool;
typedef NvU32 NvHandle;

#define NV_DECLARE_ALIGNED(TYPE_VAR, ALIGN) \
	TYPE_VAR __attribute__((aligned(ALIGN)))

#endif

/* SPDX-License-Identifier: MIT */
/*
 * abigen constructs set: one struct per C construct NVIDIA's firmware
 * headers use. Includes come from three directories.
 */
#ifndef CONS_STRUCTS_H
#define CONS_STRUCTS_H

#include "nvtypes.h"
#include "cons_enums.h"
#include "cons_drf.h"

/* the NvU8..NvU64 / NvS* / NvBool / NvHandle typedef chains */
typedef struct {
	NvU8 u8;
	NvU16 u16;
	NvU32 u32;
	NV_DECLARE_ALIGNED(NvU64 u64, 8);
	NvS8 s8;
	NvS16 s16;
	NvS32 s32;
	NV_DECLARE_ALIGNED(NvS64 s64, 8);
	NvBool flag;
	NvHandle handle;
} CONS_TYPES;

/* NV_DECLARE_ALIGNED moves a 64-bit field to an 8-byte boundary */
typedef struct {
	NvU32 lo;
	NV_DECLARE_ALIGNED(NvU64 addr, 8);
	NvU32 tail;
} CONS_ALIGNED;

/* anonymous and nested unions and structs */
typedef struct {
	NvU32 kind;
	union {
		struct {
			NvU32 low;
			NvU32 high;
		};
		NV_DECLARE_ALIGNED(NvU64 whole, 8);
	};
	struct {
		NvU16 a;
		union {
			NvU8 b;
			NvU16 c;
		} u;
	} inner;
} CONS_NESTED;

/* a typedef'd anonymous struct */
typedef struct {
	NvU8 x;
	NvU32 y;
} CONS_ANON_TD;

/* bitfields, including an unnamed pad and a signed one */
typedef struct {
	NvU32 enable : 1;
	NvU32 mode : 3;
	NvU32 : 4;
	NvU32 count : 12;
	NvS32 delta : 5;
	NvU64 big : 40;
	NvU8 tail;
} CONS_BITS;

/* arrays sized by a macro, by an enum value, and two-dimensional */
typedef struct {
	NvU32 gpcMask[CONS_MAX_GPCS];
	NvU8 engState[CONS_ENGINE_COUNT];
	NvU16 grid[2][3];
	NvU32 caps[(CONS_ENGINE_COUNT + 31) / 32 + 1];
} CONS_ARRAYS;

/* a flexible array member */
typedef struct {
	NvU32 count;
	NvU32 flags;
	NV_DECLARE_ALIGNED(NvU64 entries[], 8);
} CONS_FLEX;

/* #pragma pack */
#pragma pack(push, 1)
typedef struct {
	NvU8 a;
	NvU32 b;
	NvU16 c;
} CONS_PACKED;
#pragma pack(pop)

/* a struct known by its tag only */
struct cons_tagged {
	NvU16 id;
	NvU64 value;
};

/* named structs inside a named (typedef'd) union: each is a union arm,
 * and so is every member in it (the thermal instruction's operands) */
typedef union {
	struct {
		NvU32 idx;
		NvU32 type;
	} byTarget;
	struct {
		NvU32 idx;
		NvS32 value;
	} reading;
	NvU32 space[4];
} CONS_OPERANDS;

typedef struct {
	NvU32 opcode;
	CONS_OPERANDS operands;
} CONS_ARMS;

/* an array of structs whose element is a wanted struct of its own (the
 * thermal instruction list, per-engine samples) */
typedef struct {
	NvU16 id;
	NvU8 kind;
	NV_DECLARE_ALIGNED(NvU64 addr, 8);
} CONS_ITEM;

typedef struct {
	NvU32 count;
	CONS_ITEM items[CONS_ENGINE_COUNT];
	NvU32 tail;
} CONS_LIST;

/* runs of fields laid out alike in the wire and the neutral struct,
 * across padding and a field not wanted (skip), and one (f) wanted later
 * in the want list: the generated copies coalesce around them */
typedef struct {
	NvU8 a;
	NV_DECLARE_ALIGNED(NvU64 b, 8);
	NvU32 c;
	NvU32 skip;
	NV_DECLARE_ALIGNED(NvU64 d, 8);
	NvU32 e;
	NvU32 f;
	NV_DECLARE_ALIGNED(NvU64 g, 8);
	NvU16 h;
} CONS_RUNS;

#endif

/* SPDX-License-Identifier: MIT */
/*
 * This file keeps the shape of NVIDIA's headers (DRF HI:LO fields, aligned
 * X-macro lists), which is what abigen is tested on: no reformatting.
 */
/* clang-format off */
/*
 * abigen constructs set: enums. The RPC function numbers come from an
 * X-macro list with implicit values, as in NVIDIA's rpc_global_enums.h.
 */
#ifndef CONS_ENUMS_H
#define CONS_ENUMS_H

#define CONS_FUNCTIONS(X)            \
	X(RM, NOP)                   \
	X(RM, SET_GUEST_SYSTEM_INFO) \
	X(RM, ALLOC_ROOT)            \
	X(RM, ALLOC_DEVICE)          \
	X(RM, FREE)                  \
	X(RM, NUM_FUNCTIONS)

#define X(UNIT, RPC) NV_VGPU_MSG_FUNCTION_##RPC,
enum {
	CONS_FUNCTIONS(X)
};
#undef X

typedef enum {
	CONS_ENGINE_GR,
	CONS_ENGINE_CE0,
	CONS_ENGINE_CE1,
	CONS_ENGINE_NVDEC,
	CONS_ENGINE_COUNT,
} CONS_ENGINE;

#define CONS_MAX_GPCS 6

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Copy engine class (C5B5 Turing, C6B5/C7B5 Ampere/Ada, C8B5 Hopper):
 * methods and LAUNCH_DMA fields, from the dma-copy class facts.
 */
#ifndef NVL_HW_CE_H
#define NVL_HW_CE_H

#include <stdint.h>

#include "hw/methods.h"

#define NVL_HW_CE_CLASS_TURING 0xc5b5
#define NVL_HW_CE_CLASS_AMPERE 0xc6b5
#define NVL_HW_CE_CLASS_ADA 0xc7b5
#define NVL_HW_CE_CLASS_HOPPER 0xc8b5

/* NVL_HW_CE_NOP ... NVL_HW_CE_SET_REMAP_COMPONENTS: hw/methods.h.
 * SET_SEMAPHORE_A, OFFSET_IN_UPPER, OFFSET_OUT_UPPER: VA bits 63:32 in
 * UPPER 16:0 up to C7B5 (a 49-bit VA), 24:0 on C8B5 (57 bits); the model
 * refuses a value with bits above the class's field (CE_LAUNCH error: the
 * class has no such address). _B, _LOWER: bits 31:0.
 * _PAYLOAD_UPPER only on C7B5, C8B5 */
#define NVL_HW_CE_MTHD_ENUM_(fam, name, off, first) NVL_HW_CE_##name = off,
enum nvl_hw_ce_method { NVL_HW_CE_METHODS(NVL_HW_CE_MTHD_ENUM_) };
#undef NVL_HW_CE_MTHD_ENUM_
/** nvl_hw_ce_upper_mask() - the UPPER field of class @cls's address pairs. */
static inline uint32_t nvl_hw_ce_upper_mask(uint32_t cls)
{
	return cls >= NVL_HW_CE_CLASS_HOPPER ? 0x1ffffffu : 0x1ffffu;
}

/* PHYS_MODE TARGET 1:0: the third aperture encoding */
#define NVL_HW_CE_PHYS_LOCAL_FB 0
#define NVL_HW_CE_PHYS_COHERENT_SYSMEM 1
#define NVL_HW_CE_PHYS_NONCOHERENT_SYSMEM 2
#define NVL_HW_CE_PHYS_PEERMEM 3
/* the class's method space ends here (methods >= this are unknown) */
#define NVL_HW_CE_METHOD_END 0x800

/* LAUNCH_DMA fields */
#define NVL_HW_CE_LAUNCH_TRANSFER_MASK 0x3u /* 1:0 */
#define NVL_HW_CE_TRANSFER_NONE 0
#define NVL_HW_CE_TRANSFER_PIPELINED 1
#define NVL_HW_CE_TRANSFER_NON_PIPELINED 2
#define NVL_HW_CE_LAUNCH_FLUSH (1u << 2)
#define NVL_HW_CE_LAUNCH_SEM_SHIFT 3 /* 4:3 */
#define NVL_HW_CE_SEM_NONE 0
#define NVL_HW_CE_SEM_ONE_WORD 1
#define NVL_HW_CE_SEM_FOUR_WORD 2 /* payload + timestamp, 16 B */
#define NVL_HW_CE_SEM_CONDITIONAL_INTR 3
#define NVL_HW_CE_LAUNCH_INTR_SHIFT 5 /* 6:5 */
#define NVL_HW_CE_INTR_NONE 0
#define NVL_HW_CE_INTR_BLOCKING 1
#define NVL_HW_CE_INTR_NON_BLOCKING 2
#define NVL_HW_CE_LAUNCH_SRC_PITCH (1u << 7)
#define NVL_HW_CE_LAUNCH_DST_PITCH (1u << 8)
#define NVL_HW_CE_LAUNCH_MULTI_LINE (1u << 9)
#define NVL_HW_CE_LAUNCH_REMAP (1u << 10)
#define NVL_HW_CE_LAUNCH_SRC_PHYS (1u << 12)
#define NVL_HW_CE_LAUNCH_DST_PHYS (1u << 13)
#define NVL_HW_CE_LAUNCH_SEM_REDUCTION_SHIFT 14 /* 17:14 */
/* SEMAPHORE_REDUCTION_SIGN 18:18: SIGNED 0, UNSIGNED 1 (clc5b5.h) */
#define NVL_HW_CE_LAUNCH_SEM_REDUCTION_UNSIGNED (1u << 18)
#define NVL_HW_CE_LAUNCH_SEM_REDUCTION_ENABLE (1u << 19)
/* SEMAPHORE_PAYLOAD_SIZE 27:27 (C7B5, C8B5 only): TWO_WORD 1 = 64-bit
 * payload, its upper half from SET_SEMAPHORE_PAYLOAD_UPPER */
#define NVL_HW_CE_LAUNCH_SEM_PAYLOAD_64 (1u << 27)

/* Whether @cls has SET_SEMAPHORE_PAYLOAD_UPPER and SEMAPHORE_PAYLOAD_SIZE. */
#define NVL_HW_CE_HAS_PAYLOAD_UPPER(cls)                                       \
	((cls) == NVL_HW_CE_CLASS_ADA || (cls) == NVL_HW_CE_CLASS_HOPPER)

/* SET_REMAP_COMPONENTS */
#define NVL_HW_CE_REMAP_SRC_X 0
#define NVL_HW_CE_REMAP_SRC_Y 1
#define NVL_HW_CE_REMAP_SRC_Z 2
#define NVL_HW_CE_REMAP_SRC_W 3
#define NVL_HW_CE_REMAP_CONST_A 4
#define NVL_HW_CE_REMAP_CONST_B 5
#define NVL_HW_CE_REMAP_NO_WRITE 6
#define NVL_HW_CE_REMAP_DST_SHIFT(c) (4 * (c)) /* X 2:0, Y 6:4, Z, W */
#define NVL_HW_CE_REMAP_COMP_SIZE_SHIFT 16 /* 17:16: size - 1 */
#define NVL_HW_CE_REMAP_NUM_SRC_SHIFT 20 /* 21:20: n - 1 */
#define NVL_HW_CE_REMAP_NUM_DST_SHIFT 24 /* 25:24: n - 1 */

/* Nouveau's BO move launch: NON_PIPELINED | FLUSH | pitch/pitch | MULTI */
#define NVL_HW_CE_LAUNCH_COPY_MULTI 0x386u

#endif /* NVL_HW_CE_H */

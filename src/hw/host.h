/* SPDX-License-Identifier: MIT */
/*
 * Host (FIFO/PBDMA): instance block (RAMFC + PDB), USERD, GPFIFO entries,
 * pushbuffer method headers and the Host methods of the channel classes
 * (C46F-like), from the Turing dev_ram/dev_pbdma manuals and clc56f.h facts.
 */
#ifndef NVL_HW_HOST_H
#define NVL_HW_HOST_H

#include <stdint.h>

#include "hw/methods.h"

/* Memory target encoding of the instance block, USERD and PDB fields. */
#define NVL_HW_RAM_TARGET_VID 0
#define NVL_HW_RAM_TARGET_INVALID 1 /* PDB only: unbound */
#define NVL_HW_RAM_TARGET_SYS_COH 2
#define NVL_HW_RAM_TARGET_SYS_NONCOH 3

/* ---- instance block (4 KiB, 4 KiB aligned) ------------------------- */
#define NVL_HW_INST_SIZE 4096
/* RAMFC: USERD address (512-B aligned), TARGET 1:0, ADDR 31:9 */
#define NVL_HW_RAMFC_USERD 0x008
#define NVL_HW_RAMFC_USERD_HI 0x00c
/*
 * ACQUIRE (dev_ram.ref NV_RAMFC_ACQUIRE = dev_pbdma.ref NV_PPBDMA_ACQUIRE):
 * RETRY_MAN 6:0, RETRY_EXP 10:7 (how often a failed acquire is retried),
 * TIMEOUT_EXP 14:11, TIMEOUT_MAN 30:15, TIMEOUT_EN 31. With TIMEOUT_EN the
 * acquire fails after TIMEOUT_MAN << TIMEOUT_EXP units; the model counts a
 * unit as 1024 ns. TIMEOUT_EN 0 waits forever (Nouveau's 0x7ffff902).
 */
#define NVL_HW_RAMFC_ACQUIRE 0x030
#define NVL_HW_ACQUIRE_RETRY_MAN_MASK 0x7fu
#define NVL_HW_ACQUIRE_RETRY_EXP_SHIFT 7
#define NVL_HW_ACQUIRE_TIMEOUT_EXP_SHIFT 11
#define NVL_HW_ACQUIRE_TIMEOUT_EXP_MASK 0xfu
#define NVL_HW_ACQUIRE_TIMEOUT_MAN_SHIFT 15
#define NVL_HW_ACQUIRE_TIMEOUT_MAN_MASK 0xffffu
#define NVL_HW_ACQUIRE_TIMEOUT_EN (1u << 31)
#define NVL_HW_ACQUIRE_UNIT_NS 1024

/** nvl_hw_acquire_timeout() - ACQUIRE for a timeout of at least @ns. */
static inline uint32_t nvl_hw_acquire_timeout(uint64_t ns)
{
	uint64_t units =
		(ns + NVL_HW_ACQUIRE_UNIT_NS - 1) / NVL_HW_ACQUIRE_UNIT_NS;
	uint32_t e = 0;

	while (units > NVL_HW_ACQUIRE_TIMEOUT_MAN_MASK &&
	       e < NVL_HW_ACQUIRE_TIMEOUT_EXP_MASK) {
		units = (units + 1) >> 1;
		e++;
	}
	if (units > NVL_HW_ACQUIRE_TIMEOUT_MAN_MASK)
		units = NVL_HW_ACQUIRE_TIMEOUT_MAN_MASK;
	return NVL_HW_ACQUIRE_TIMEOUT_EN |
	       (uint32_t)units << NVL_HW_ACQUIRE_TIMEOUT_MAN_SHIFT |
	       e << NVL_HW_ACQUIRE_TIMEOUT_EXP_SHIFT |
	       2u << NVL_HW_ACQUIRE_RETRY_EXP_SHIFT | 2u;
}
/* GPFIFO base: a GPU VA. GP_BASE = VA 31:3; GP_BASE_HI = VA 39:32 in 7:0,
 * LIMIT2 20:16 (the ring has 1 << LIMIT2 entries) */
#define NVL_HW_RAMFC_GP_BASE 0x048
#define NVL_HW_RAMFC_GP_BASE_HI 0x04c
#define NVL_HW_RAMFC_GP_BASE_HI_LIMIT2_SHIFT 16
#define NVL_HW_RAMFC_GP_BASE_HI_LIMIT2_MASK 0x1fu
/* CONFIG: PRIV 8 = privileged channel (may use physical CE modes) */
#define NVL_HW_RAMFC_CONFIG 0x0f4
#define NVL_HW_RAMFC_CONFIG_PRIV (1u << 8)
/* PAGE_DIR_BASE (d128): TARGET 1:0, VOL 2, FAULT_REPLAY_TEX 4,
 * FAULT_REPLAY_GCC 5 (the SM's faults in this VA space are replayable:
 * "fault and stall"), USE_VER2_PT_FORMAT 10,
 * BIG_PAGE_SIZE 11 (0 = 128 KiB, 1 = 64 KiB; the model walks 64 KiB big
 * pages only and refuses 0 with an INSTANCE error), PDB_LO 31:12;
 * d129 = PDB_HI */
#define NVL_HW_RAMIN_PDB 0x200
#define NVL_HW_RAMIN_PDB_HI 0x204
#define NVL_HW_RAMIN_PDB_TARGET_MASK 0x3u
#define NVL_HW_RAMIN_PDB_VOL (1u << 2)
#define NVL_HW_RAMIN_PDB_FAULT_REPLAY_TEX (1u << 4)
#define NVL_HW_RAMIN_PDB_FAULT_REPLAY_GCC (1u << 5)
#define NVL_HW_RAMIN_PDB_USE_VER2 (1u << 10)
#define NVL_HW_RAMIN_PDB_BIG_PAGE_64K (1u << 11)
#define NVL_HW_RAMIN_PDB_LO_MASK 0xfffff000u

/* ---- USERD (class xx6F control block, 512 B) ----------------------- */
#define NVL_HW_USERD_SIZE 512
#define NVL_HW_USERD_GP_GET 0x88 /* read-only, written back by Host */
#define NVL_HW_USERD_GP_PUT 0x8c

/* ---- GPFIFO entry (8 B) -------------------------------------------- */
#define NVL_HW_GP_ENTRY_SIZE 8
#define NVL_HW_GP_ENTRY0_FETCH_COND (1u << 0)
#define NVL_HW_GP_ENTRY0_GET_MASK 0xfffffffcu /* PB address 31:2 */
#define NVL_HW_GP_ENTRY1_GET_HI_MASK 0xffu /* PB address 39:32 */
#define NVL_HW_GP_ENTRY1_LEVEL_SUBROUTINE (1u << 9)
#define NVL_HW_GP_ENTRY1_LENGTH_SHIFT 10 /* 30:10, dwords */
#define NVL_HW_GP_ENTRY1_LENGTH_MASK 0x1fffffu
#define NVL_HW_GP_ENTRY1_SYNC (1u << 31)
/* control entries (LENGTH 0): GP_ENTRY1 OPCODE 7:0; GP_ENTRY0 OPERAND
 * 31:0 (clc46f.h NVC46F_GP_ENTRY1_OPCODE) */
#define NVL_HW_GP_ENTRY1_OPCODE_MASK 0xffu
#define NVL_HW_GP_OPCODE_NOP 0
#define NVL_HW_GP_OPCODE_ILLEGAL 1
#define NVL_HW_GP_OPCODE_GP_CRC 2
#define NVL_HW_GP_OPCODE_PB_CRC 3

/** nvl_hw_gp_entry() - encode a GPFIFO entry for @ndw dwords at @va. */
static inline uint64_t nvl_hw_gp_entry(uint64_t va, uint32_t ndw, int sync)
{
	uint32_t d0 = (uint32_t)va & NVL_HW_GP_ENTRY0_GET_MASK;
	uint32_t d1 = ((uint32_t)(va >> 32) & NVL_HW_GP_ENTRY1_GET_HI_MASK) |
		      (ndw & NVL_HW_GP_ENTRY1_LENGTH_MASK)
			      << NVL_HW_GP_ENTRY1_LENGTH_SHIFT |
		      (sync ? NVL_HW_GP_ENTRY1_SYNC : 0);

	return (uint64_t)d1 << 32 | d0;
}

/* ---- method headers: SEC_OP 31:29 | COUNT 28:16 | SUBCH 15:13 | ADDR 11:0
 * (ADDR = method byte offset >> 2) ---------------------------------- */
#define NVL_HW_MTHD_SEC_OP_SHIFT 29
#define NVL_HW_MTHD_COUNT_SHIFT 16
#define NVL_HW_MTHD_COUNT_MASK 0x1fffu
#define NVL_HW_MTHD_SUBCH_SHIFT 13
#define NVL_HW_MTHD_SUBCH_MASK 0x7u
#define NVL_HW_MTHD_ADDR_MASK 0xfffu
#define NVL_HW_MTHD_RESERVED_BIT (1u << 12)
#define NVL_HW_SEC_OP_GRP0 0 /* NOP (0) or TERT_OP 17:16 subdevice ops */
#define NVL_HW_SEC_OP_INC 1 /* incrementing */
#define NVL_HW_SEC_OP_GRP2 2 /* reserved (tertiary ops) */
#define NVL_HW_SEC_OP_NON_INC 3 /* non-incrementing */
#define NVL_HW_SEC_OP_IMMD 4 /* immediate: 13-bit data in COUNT */
#define NVL_HW_SEC_OP_ONE_INC 5 /* increment once */
#define NVL_HW_SEC_OP_RESERVED6 6
#define NVL_HW_SEC_OP_END_PB_SEGMENT 7
#define NVL_HW_TERT_OP_SHIFT 16 /* for SEC_OP 0: 17:16 */
#define NVL_HW_TERT_OP_SET_SUBDEV_MASK 1
#define NVL_HW_TERT_OP_STORE_SUBDEV_MASK 2
#define NVL_HW_TERT_OP_USE_SUBDEV_MASK 3

/** nvl_hw_gp_control() - encode a control entry: @opcode, @operand. */
static inline uint64_t nvl_hw_gp_control(uint32_t opcode, uint32_t operand)
{
	return (uint64_t)(opcode & NVL_HW_GP_ENTRY1_OPCODE_MASK) << 32 |
	       operand;
}

/** nvl_hw_mthd() - header for @count dwords to method @mthd (bytes). */
static inline uint32_t nvl_hw_mthd(unsigned sec_op, unsigned subch,
				   uint32_t mthd, uint32_t count)
{
	return (uint32_t)sec_op << NVL_HW_MTHD_SEC_OP_SHIFT |
	       (count & NVL_HW_MTHD_COUNT_MASK) << NVL_HW_MTHD_COUNT_SHIFT |
	       (subch & NVL_HW_MTHD_SUBCH_MASK) << NVL_HW_MTHD_SUBCH_SHIFT |
	       ((mthd >> 2) & NVL_HW_MTHD_ADDR_MASK);
}

#define NVL_HW_MTHD_INC(subch, mthd, n) nvl_hw_mthd(1, subch, mthd, n)
#define NVL_HW_MTHD_NINC(subch, mthd, n) nvl_hw_mthd(3, subch, mthd, n)
#define NVL_HW_MTHD_IMMD(subch, mthd, d) nvl_hw_mthd(4, subch, mthd, d)
#define NVL_HW_MTHD_1INC(subch, mthd, n) nvl_hw_mthd(5, subch, mthd, n)
#define NVL_HW_MTHD_END_SEGMENT 0xe0000000u

/* Subchannels 5..7 carry software methods (DEVICE interrupt); Host-only
 * methods (below 0x100) are legal on them and ignore the subchannel. */
#define NVL_HW_SUBCH_COUNT 8
#define NVL_HW_SUBCH_SW_FIRST 5

/* ---- Host methods (offsets < 0x100, any subchannel) ---------------- */
#define NVL_HW_HOST_METHOD_LIMIT 0x100
/* NVL_HW_SET_OBJECT, NVL_HW_NOP, ... NVL_HW_CLEAR_FAULTED: hw/methods.h */
#define NVL_HW_HOST_MTHD_ENUM_(fam, name, off, first) NVL_HW_##name = off,
enum nvl_hw_host_method { NVL_HW_HOST_METHODS(NVL_HW_HOST_MTHD_ENUM_) };
#undef NVL_HW_HOST_MTHD_ENUM_
/* SET_OBJECT: NVCLASS 15:0, ENGINE 20:16; SEMAPHOREA..D are legacy and
 * not modelled (METHOD error); SEM_ADDR_LO 31:2; SEM_ADDR_HI OFFSET 7:0 =
 * VA 39:32 (C86F: 24:0) */
#define NVL_HW_SET_OBJECT_CLASS_MASK 0xffffu

/* MEM_OP_A: TLB_INVALIDATE_INVALIDATION_SIZE 5:0 (a targeted invalidate
 * covers 4 KiB << SIZE bytes, the target aligned down to that size),
 * SYSMEMBAR 11, TARGET VA 31:12; MEM_OP_B: VA 63:32 (clc56f.h) */
#define NVL_HW_MEM_OP_A_INVALIDATION_SIZE_MASK 0x3fu
#define NVL_HW_MEM_OP_A_SYSMEMBAR (1u << 11)
#define NVL_HW_MEM_OP_A_VA_MASK 0xfffff000u
/* MEM_OP_C: PDB ONE(0)/ALL(1) bit 0, PDB aperture 11:10 (0 vid, 2/3 sys),
 * PDB lo 31:12 */
#define NVL_HW_MEM_OP_C_PDB_ALL (1u << 0)
/* MEM_OP_C TLB_INVALIDATE_GPC 1:1 (ENABLE 0, DISABLE 1) and
 * TLB_INVALIDATE_REPLAY 4:2 (NONE 0, START 1, START_ACK_ALL 2,
 * CANCEL_TARGETED 3, CANCEL_GLOBAL 4, CANCEL_VA_GLOBAL 5: the values of
 * MMU_INVALIDATE's REPLAY, hw/regs.h) (clc56f.h) */
#define NVL_HW_MEM_OP_C_GPC_DISABLE (1u << 1)
#define NVL_HW_MEM_OP_C_REPLAY_SHIFT 2
#define NVL_HW_MEM_OP_C_REPLAY_MASK 0x7u
/* MEM_OP_C TLB_INVALIDATE_ACK_TYPE 6:5: NONE 0, GLOBALLY 1, INTRANODE 2
 * (clc56f.h: "only relevant if GPC ENABLE", as REPLAY); with MEM_OP_A
 * SYSMEMBAR and GPC ENABLE the invalidate drains */
#define NVL_HW_MEM_OP_C_ACK_SHIFT 5
#define NVL_HW_MEM_OP_C_ACK_MASK 0x3u
#define NVL_HW_MEM_OP_ACK_ENUM_(fam, m, f, name, n)                            \
	NVL_HW_MEM_OP_ACK_##name = n,
/** enum nvl_hw_mem_op_ack - MEM_OP_C TLB_INVALIDATE_ACK_TYPE (hw/methods.h) */
enum nvl_hw_mem_op_ack { NVL_HW_MEM_OP_ACK_TYPES(NVL_HW_MEM_OP_ACK_ENUM_) };
#undef NVL_HW_MEM_OP_ACK_ENUM_
/* MEM_OP_C TLB_INVALIDATE_PAGE_TABLE_LEVEL 9:7: MMU_INVALIDATE CACHE_LEVEL's
 * values (hw/regs.h NVL_HW_MMU_CACHE_LEVEL_*) */
#define NVL_HW_MEM_OP_C_PAGE_TABLE_LEVEL_SHIFT 7
#define NVL_HW_MEM_OP_C_PAGE_TABLE_LEVEL_MASK 0x7u
#define NVL_HW_MEM_OP_C_PDB_APERTURE_SHIFT 10
#define NVL_HW_MEM_OP_C_PDB_LO_MASK 0xfffff000u
/* MEM_OP_D: PDB hi 26:0, OPERATION 31:27 */
#define NVL_HW_MEM_OP_D_PDB_HI_MASK 0x07ffffffu
#define NVL_HW_MEM_OP_D_OP_SHIFT 27
#define NVL_HW_MEM_OP_D_OP_MASK 0x1fu
/*
 * NVL_HW_MEM_OP_MEMBAR, _MMU_TLB_INVALIDATE(_TARGETED), _L2_*,
 * _ACCESS_COUNTER_CLR (privileged, as the TLB invalidates): the OPERATION
 * values of hw/methods.h's NVL_HW_MEM_OP_OPERATIONS, one name each for the
 * model, the driver and nvl trace
 */
#define NVL_HW_MEM_OP_ENUM_(fam, m, f, name, n) NVL_HW_MEM_OP_##name = n,
/** enum nvl_hw_mem_op - MEM_OP_D OPERATION */
enum nvl_hw_mem_op { NVL_HW_MEM_OP_OPERATIONS(NVL_HW_MEM_OP_ENUM_) };
#undef NVL_HW_MEM_OP_ENUM_

/** nvl_hw_mem_op_d() - MEM_OP_D's data for @op (the PDB's high bits 0). */
static inline uint32_t nvl_hw_mem_op_d(enum nvl_hw_mem_op op)
{
	return (uint32_t)op << NVL_HW_MEM_OP_D_OP_SHIFT;
}

/* YIELD OP 1:0: NOP 0, TSG 3; 1 and 2 are unknown (METHOD error) */
#define NVL_HW_YIELD_OP_MASK 0x3u

/* SEM_EXECUTE */
#define NVL_HW_SEM_OP_MASK 0x7u
#define NVL_HW_SEM_OP_ACQUIRE 0 /* == */
#define NVL_HW_SEM_OP_RELEASE 1
#define NVL_HW_SEM_OP_ACQ_STRICT_GEQ 2 /* unsigned >= */
#define NVL_HW_SEM_OP_ACQ_CIRC_GEQ 3 /* (sem - payload) as signed >= 0 */
#define NVL_HW_SEM_OP_ACQ_AND 4 /* (sem & payload) != 0 */
#define NVL_HW_SEM_OP_ACQ_NOR 5 /* ~(sem | payload) != 0 */
#define NVL_HW_SEM_OP_REDUCTION 6
#define NVL_HW_SEM_ACQUIRE_SWITCH_TSG (1u << 12)
#define NVL_HW_SEM_RELEASE_WFI (1u << 20)
#define NVL_HW_SEM_PAYLOAD_64BIT (1u << 24)
#define NVL_HW_SEM_RELEASE_TIMESTAMP (1u << 25)
#define NVL_HW_SEM_REDUCTION_SHIFT 27 /* 30:27 */
#define NVL_HW_SEM_REDUCTION_MASK 0xfu
#define NVL_HW_SEM_RED_IMIN 0
#define NVL_HW_SEM_RED_IMAX 1
#define NVL_HW_SEM_RED_IXOR 2
#define NVL_HW_SEM_RED_IAND 3
#define NVL_HW_SEM_RED_IOR 4
#define NVL_HW_SEM_RED_IADD 5
#define NVL_HW_SEM_RED_INC 6
#define NVL_HW_SEM_RED_DEC 7
#define NVL_HW_SEM_FORMAT_UNSIGNED (1u << 31)

/* The fence idiom's SEM_EXECUTE values. */
#define NVL_HW_SEM_EXECUTE_RELEASE_WFI_32 0x00100001u
#define NVL_HW_SEM_EXECUTE_ACQ_CIRC_GEQ_SWITCH 0x00001003u

/* CLEAR_FAULTED: HANDLE 30:0 = CHID 15:0 | RUNLIST_ID 22:16, TYPE 31
 * (0 PBDMA_FAULTED, 1 ENG_FAULTED) */
#define NVL_HW_CLEAR_FAULTED_CHID_MASK 0xffffu
#define NVL_HW_CLEAR_FAULTED_RUNLIST_SHIFT 16
#define NVL_HW_CLEAR_FAULTED_RUNLIST_MASK 0x7fu
#define NVL_HW_CLEAR_FAULTED_ENG (1u << 31)
#define NVL_HW_CLEAR_FAULTED_HANDLE(chid, rl)                                  \
	(((uint32_t)(chid)&NVL_HW_CLEAR_FAULTED_CHID_MASK) |                   \
	 ((uint32_t)(rl)&NVL_HW_CLEAR_FAULTED_RUNLIST_MASK)                    \
		 << NVL_HW_CLEAR_FAULTED_RUNLIST_SHIFT)

#endif /* NVL_HW_HOST_H */

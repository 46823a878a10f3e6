/* SPDX-License-Identifier: MIT */
/*
 * BAR0 register map.
 *
 * Offsets follow the Turing/Ampere manuals where the public facts name them
 * (BOOT_0, PTIMER, the VF window at 0xb80000 with the doorbell, the MMU
 * invalidate, BAR2 block and fault-buffer registers). Blocks the facts
 * leave to RM or firmware (channel RAM, interrupt tree, engine
 * status/reset, sensors and clocks) use this family's own layout,
 * documented here: this header is the manual the driver and the model
 * share. Registers no GPU has (the model's configuration, fault injection)
 * are not here: see model/model_regs.h.
 */
#ifndef NVL_HW_REGS_H
#define NVL_HW_REGS_H

/* ---- PMC: identity, engine reset ----------------------------------- */
#define NVL_HW_PMC_BOOT_0 0x00000000
#define NVL_HW_BOOT_0_ARCH_SHIFT 24 /* ARCHITECTURE 28:24 */
#define NVL_HW_BOOT_0_ARCH_MASK 0x1fu
#define NVL_HW_BOOT_0_IMPL_SHIFT 20 /* IMPLEMENTATION 23:20 */
#define NVL_HW_BOOT_0_IMPL_MASK 0xfu
#define NVL_HW_BOOT_0_MAJOR_REV_SHIFT 4 /* 7:4 */
#define NVL_HW_BOOT_0_MINOR_REV_SHIFT 0 /* 3:0 */
#define NVL_HW_BOOT_0_CHIP_ID(v) (((v) >> 20) & 0x1ffu) /* 28:20 */

/*
 * NV_PFB_PRI_MMU_LOCAL_MEMORY_RANGE (dev_fb, TU10x; nova-core's
 * vidmem_size_gp102): VRAM bytes = LOWER_MAG << (LOWER_SCALE + 20), and
 * 15/16 of that when ECC_MODE is set (the ECC carve-out).
 */
#define NVL_HW_PFB_LOCAL_MEMORY_RANGE 0x00100ce0
#define NVL_HW_LMR_LOWER_SCALE(v) ((v)&0xfu) /* 3:0 */
#define NVL_HW_LMR_LOWER_MAG(v) (((v) >> 4) & 0x3fu) /* 9:4 */
#define NVL_HW_LMR_ECC_MODE (1u << 30) /* 30:30 */
#define NVL_HW_ARCH_TURING 0x16
#define NVL_HW_ARCH_AMPERE 0x17
#define NVL_HW_ARCH_HOPPER 0x18
#define NVL_HW_ARCH_ADA 0x19
#define NVL_HW_BOOT_0(arch, impl, maj, min)                                    \
	(((uint32_t)(arch) << 24) | ((uint32_t)(impl) << 20) |                 \
	 ((uint32_t)(maj) << 4) | (uint32_t)(min))

/*
 * Engine reset: writing bit e starts a reset of engine e (NVL_HW_ENGINE_*);
 * the bit reads 1 until the reset finished. Resetting an engine aborts the
 * work in flight; the channel it served gets NVL_HW_CHERR_ENGINE_RESET.
 */
#define NVL_HW_PMC_ENGINE_RESET 0x00000240

/* Engine ids (runlist i serves engine i; CE i = engine i). */
#define NVL_HW_ENGINE_CE(i) (i)
#define NVL_HW_ENGINE_MAX 16

/* ---- interrupt tree (two trees: stall and non-stall) --------------- */
#define NVL_HW_INTR_TREE_STALL 0
#define NVL_HW_INTR_TREE_NONSTALL 1
#define NVL_HW_INTR_STATUS(t) (0x00000100 + 0x10 * (t)) /* W1C */
#define NVL_HW_INTR_EN_SET(t) (0x00000104 + 0x10 * (t)) /* W1S */
#define NVL_HW_INTR_EN_CLEAR(t) (0x00000108 + 0x10 * (t)) /* W1C */
#define NVL_HW_INTR_EN(t) (0x0000010c + 0x10 * (t)) /* RO */
/* stall-tree bits */
#define NVL_HW_INTR_FIFO (1u << 0) /* channel error: CHERR_PENDING */
#define NVL_HW_INTR_FAULT (1u << 1) /* non-replayable fault buffer */
#define NVL_HW_INTR_FAULT_REPLAY (1u << 2) /* replayable fault buffer */
#define NVL_HW_INTR_THERMAL (1u << 3) /* crossed the slowdown limit */
#define NVL_HW_INTR_FAULT_OVERFLOW (1u << 4)
/* (bit 5 is the GSP's message interrupt: hw/falcon.h NVL_HW_INTR_GSP) */
/* a copy engine's stalling interrupt: NVL_HW_CE_LCE_INTR_STATUS says
 * which engine and why */
#define NVL_HW_INTR_CE (1u << 6)
/* non-stall-tree bits: bit e = engine/runlist e (NON_STALL_INTERRUPT
 * method of a channel on runlist e, or a CE non-blocking launch interrupt) */
#define NVL_HW_INTR_NONSTALL_ENGINE(e) (1u << (e))

/*
 * The copy engines' interrupt status (dev_ce.ref NV_CE_LCE_INTR_STATUS(i),
 * 0x104410 + 0x80 i; i = the copy engine, NVL_HW_ENGINE_CE(i)): BLOCKPIPE
 * 0:0, write 1 to clear, is set by a LAUNCH_DMA with INTERRUPT_TYPE
 * BLOCKING, a stalling interrupt (NVL_HW_INTR_CE on the stall tree, which
 * the GSP's RM owns); NON_BLOCKING is the non-stall tree's
 * NVL_HW_INTR_NONSTALL_ENGINE(i) (dev_ce NONBLOCKPIPE, not latched here).
 */
#define NVL_HW_CE_LCE_INTR_STATUS(i) (0x00104410 + 0x80 * (i))
#define NVL_HW_CE_LCE_INTR_BLOCKPIPE (1u << 0)

/* ---- PTIMER -------------------------------------------------------- */
#define NVL_HW_PTIMER_TIME_0 0x00009400 /* ns 31:0 */
#define NVL_HW_PTIMER_TIME_1 0x00009410 /* ns 63:32: read 1, 0, 1 */

/* ---- sensors, power and clocks (this family's layout) -------------- */
#define NVL_HW_THERM_TEMP 0x00020460 /* RO, milli-degC (s32) */
#define NVL_HW_THERM_AMBIENT 0x00020464 /* RW, milli-degC */
#define NVL_HW_THERM_SLOWDOWN 0x00020468 /* RW, milli-degC */
#define NVL_HW_THERM_THROTTLE 0x00020470 /* RO reasons: */
#define NVL_HW_THROTTLE_THERMAL (1u << 0)
#define NVL_HW_THROTTLE_POWER (1u << 1)
#define NVL_HW_POWER_MW 0x00020480 /* RO, board power */
#define NVL_HW_POWER_LIMIT_MW 0x00020484 /* RW */
#define NVL_HW_ENERGY_MJ_LO 0x00020488 /* RO, millijoules since boot */
#define NVL_HW_ENERGY_MJ_HI 0x0002048c
#define NVL_HW_PERF_PSTATE 0x00020500 /* RW: requested P-state index */
#define NVL_HW_PERF_NUM_PSTATES 0x00020504 /* RO */
#define NVL_HW_CLK_GPC_MHZ 0x00020510 /* RO: effective (after throttle) */
#define NVL_HW_CLK_MEM_MHZ 0x00020514 /* RO */
#define NVL_HW_PSTATE_ID(i) (0x00020520 + 0x10 * (i)) /* RO */
#define NVL_HW_PSTATE_GPC_MHZ(i) (0x00020524 + 0x10 * (i)) /* RO */
#define NVL_HW_PSTATE_MEM_MHZ(i) (0x00020528 + 0x10 * (i)) /* RO */

/* ---- engine status and busy counters ------------------------------- */
#define NVL_HW_ENGINE_STATUS(e) (0x00000400 + 0x10 * (e))
#define NVL_HW_ENGINE_STATUS_BUSY (1u << 0)
#define NVL_HW_ENGINE_STATUS_HUNG (1u << 1)
#define NVL_HW_ENGINE_STATUS_CHID_VALID (1u << 31)
#define NVL_HW_ENGINE_STATUS_CHID_SHIFT 16 /* 27:16 */
#define NVL_HW_ENGINE_BUSY_NS_LO(e) (0x00000404 + 0x10 * (e)) /* latches HI */
#define NVL_HW_ENGINE_BUSY_NS_HI(e) (0x00000408 + 0x10 * (e))
/* (0x40c + 0x10 * e is the model-only ENGINE_HANG: model/model_regs.h) */

/* ---- channel RAM (this family's layout; 32 bytes per channel) ------ */
#define NVL_HW_CHRAM(chid) (0x00800000 + 0x20 * (chid))
/* INST: instance block address >> 12 in 27:0, TARGET 29:28, BIND 31 */
#define NVL_HW_CHRAM_INST(chid) (NVL_HW_CHRAM(chid) + 0x00)
#define NVL_HW_CHRAM_INST_PTR_MASK 0x0fffffffu
#define NVL_HW_CHRAM_INST_TARGET_SHIFT 28 /* NVL_HW_RAM_TARGET_* */
#define NVL_HW_CHRAM_INST_BIND (1u << 31)
/* CTRL: ENABLE 0 (RO), ENABLE_SET 10, ENABLE_CLR 11 (W),
 * PBDMA_FAULTED 22, ENG_FAULTED 23 (W1C), ERROR 24 (RO; clears with CLR),
 * BUSY 28 (RO: running, or enabled without error and a taken GPFIFO
 * entry not finished),
 * ACQUIRE_PENDING 29 (RO) */
#define NVL_HW_CHRAM_CTRL(chid) (NVL_HW_CHRAM(chid) + 0x04)
#define NVL_HW_CHRAM_CTRL_ENABLE (1u << 0)
#define NVL_HW_CHRAM_CTRL_ENABLE_SET (1u << 10)
#define NVL_HW_CHRAM_CTRL_ENABLE_CLR (1u << 11)
#define NVL_HW_CHRAM_CTRL_PBDMA_FAULTED (1u << 22)
#define NVL_HW_CHRAM_CTRL_ENG_FAULTED (1u << 23)
#define NVL_HW_CHRAM_CTRL_ERROR (1u << 24)
#define NVL_HW_CHRAM_CTRL_BUSY (1u << 28)
#define NVL_HW_CHRAM_CTRL_ACQUIRE_PENDING (1u << 29)
#define NVL_HW_CHRAM_RUNLIST(chid) (NVL_HW_CHRAM(chid) + 0x08) /* 7:0 */
#define NVL_HW_CHRAM_ERROR(chid) (NVL_HW_CHRAM(chid) + 0x0c) /* CHERR */
#define NVL_HW_CHRAM_ERR_METHOD(chid) (NVL_HW_CHRAM(chid) + 0x10)
#define NVL_HW_CHRAM_ERR_DATA(chid) (NVL_HW_CHRAM(chid) + 0x14)
#define NVL_HW_CHRAM_GP_GET(chid) (NVL_HW_CHRAM(chid) + 0x18) /* RO */

/* Channel error codes (CHRAM_ERROR). */
#define NVL_HW_CHERR_NONE 0
#define NVL_HW_CHERR_GPENTRY 1 /* bad GPFIFO entry */
#define NVL_HW_CHERR_GPPTR 2 /* GP_PUT outside the ring */
#define NVL_HW_CHERR_PBSEG 3 /* bad pushbuffer segment */
#define NVL_HW_CHERR_METHOD 4 /* unknown/illegal method, bad header */
#define NVL_HW_CHERR_DEVICE 5 /* software method (subchannel 5..7) */
#define NVL_HW_CHERR_SEMAPHORE 6 /* bad SEM_EXECUTE */
#define NVL_HW_CHERR_ACQUIRE 7 /* acquire timeout */
#define NVL_HW_CHERR_MMU_FAULT 8 /* PBDMA or engine MMU fault */
#define NVL_HW_CHERR_ENGINE_RESET 9
#define NVL_HW_CHERR_CE_LAUNCH                                                 \
	10 /* copy runlist launch check (HCE_*): bad launch, SET_OBJECT of a    \
	      class its copy engine does not serve (HCE_ILLEGAL_CLASS) */
#define NVL_HW_CHERR_INSTANCE 11 /* unreadable or invalid instance block */
#define NVL_HW_CHERR_COMPUTE                                                   \
	12 /* compute engine: ERR_DATA = hw/compute.h reason */

/* Channels with an error or a fault: bit (chid % 32) of word chid / 32. W1C */
#define NVL_HW_CHERR_PENDING(i) (0x00002a00 + 4 * (i))

/* ---- VF window: doorbell, MMU invalidate, fault buffers ------------ */
#define NVL_HW_VF_BASE 0x00b80000
/* Doorbell: work-submit token = CHID 11:0 | RUNLIST_ID 22:16 */
#define NVL_HW_DOORBELL (NVL_HW_VF_BASE + 0x30090)
#define NVL_HW_DOORBELL_TOKEN(chid, rl)                                        \
	(((uint32_t)(chid)&0xfffu) | (((uint32_t)(rl)&0x7fu) << 16))

/*
 * MMU invalidate (NV_VIRTUAL_FUNCTION_PRIV_MMU_INVALIDATE_PDB/_UPPER_PDB/
 * MMU_INVALIDATE): PDB APERTURE bit 1 (0 vid / 1 sys), ADDR 31:4 = pdb >> 12;
 * UPPER_PDB ADDR 19:0 = pdb >> 40. There is no VA-range form in the
 * manuals: the register invalidates all VAs (ALL_VA) of one PDB or of all
 * PDBs; targeted invalidates go through Host's MEM_OP methods (hw/host.h).
 */
#define NVL_HW_MMU_INVALIDATE_PDB (NVL_HW_VF_BASE + 0x30a0)
#define NVL_HW_MMU_INVALIDATE_PDB_SYS (1u << 1)
#define NVL_HW_MMU_INVALIDATE_PDB_ADDR_SHIFT 4
#define NVL_HW_MMU_INVALIDATE_PDB_ADDR_MASK 0xfffffff0u
#define NVL_HW_MMU_INVALIDATE_UPPER_PDB (NVL_HW_VF_BASE + 0x30a4)
#define NVL_HW_MMU_INVALIDATE_UPPER_PDB_ADDR_MASK 0x000fffffu
#define NVL_HW_MMU_INVALIDATE (NVL_HW_VF_BASE + 0x30b0)
#define NVL_HW_MMU_INVALIDATE_ALL_VA (1u << 0)
#define NVL_HW_MMU_INVALIDATE_ALL_PDB (1u << 1)
#define NVL_HW_MMU_INVALIDATE_HUBTLB_ONLY (1u << 2)
/* REPLAY 5:3: what happens to the replayable faults parked in the uTLBs */
#define NVL_HW_MMU_INVALIDATE_REPLAY_SHIFT 3
#define NVL_HW_MMU_INVALIDATE_REPLAY_MASK 0x7u
#define NVL_HW_MMU_INVALIDATE_REPLAY_NONE 0
#define NVL_HW_MMU_INVALIDATE_REPLAY_START 1
#define NVL_HW_MMU_INVALIDATE_REPLAY_START_ACK_ALL 2
#define NVL_HW_MMU_INVALIDATE_REPLAY_CANCEL_TARGETED 3
#define NVL_HW_MMU_INVALIDATE_REPLAY_CANCEL_GLOBAL 4
#define NVL_HW_MMU_INVALIDATE_REPLAY_CANCEL_VA_GLOBAL 5
#define NVL_HW_MMU_INVALIDATE_SYS_MEMBAR (1u << 6)
/* ACK 8:7: NONE_REQUIRED 0, GLOBALLY 1, INTRANODE 2. A downgrade (unmap,
 * read-only, a freed table) is invalidated with SYS_MEMBAR and ACK
 * GLOBALLY, as RM's kgmmuSetTlbInvalidateMembarWarParameters_TU102 does:
 * an invalidate alone does not wait for accesses already translated */
#define NVL_HW_MMU_INVALIDATE_ACK_SHIFT 7
#define NVL_HW_MMU_INVALIDATE_ACK_MASK 0x3u
#define NVL_HW_MMU_INVALIDATE_ACK_GLOBALLY (1u << 7)
/* CACHE_LEVEL 26:24: ALL 0, PTE_ONLY 1, UP_TO_PDE0..4 2..6 (PDE0 = the
 * dual-PDE level, PD0 here); the same values as MEM_OP_C PAGE_TABLE_LEVEL */
#define NVL_HW_MMU_INVALIDATE_CACHE_LEVEL_SHIFT 24
#define NVL_HW_MMU_INVALIDATE_CACHE_LEVEL_MASK 0x7u
#define NVL_HW_MMU_CACHE_LEVEL_ALL 0
#define NVL_HW_MMU_CACHE_LEVEL_PTE_ONLY 1
#define NVL_HW_MMU_CACHE_LEVEL_UP_TO_PDE0 2
#define NVL_HW_MMU_INVALIDATE_TRIGGER (1u << 31) /* reads 1 until done */

/*
 * Fault buffers i = 0 (non-replayable), 1 (replayable): the VF window's
 * NV_VIRTUAL_FUNCTION_PRIV_MMU_FAULT_BUFFER_* (dev_vm.ref; the same fields
 * as NV_PFB_PRI_MMU_FAULT_BUFFER_* in dev_fb.ref).
 * LO: ADDR_MODE 0:0 (0 VIRTUAL: ADDR is a BAR2 virtual address, as RM and
 * Nouveau program it; 1 PHYSICAL), PHYS_APERTURE 2:1 (0 LOCAL, 2 SYS_COH,
 * 3 SYS_NONCOH), PHYS_VOL 3, ADDR 31:12. HI: ADDR 63:32.
 */
#define NVL_HW_FAULT_BUF_LO(i) (NVL_HW_VF_BASE + 0x3000 + 0x20 * (i))
#define NVL_HW_FAULT_BUF_LO_ADDR_MODE_PHYS (1u << 0)
#define NVL_HW_FAULT_BUF_LO_PHYS_APERTURE_SHIFT 1
#define NVL_HW_FAULT_BUF_LO_PHYS_APERTURE_MASK 0x3u
#define NVL_HW_FAULT_BUF_LO_PHYS_VOL (1u << 3)
#define NVL_HW_FAULT_BUF_LO_ADDR_MASK 0xfffff000u
/* LO for a physical buffer at @pa in aperture @ap (NVL_HW_FAULT_APERTURE_*) */
#define NVL_HW_FAULT_BUF_LO_PHYS(pa, ap)                                       \
	(((uint32_t)(pa)&NVL_HW_FAULT_BUF_LO_ADDR_MASK) |                      \
	 ((uint32_t)(ap)&NVL_HW_FAULT_BUF_LO_PHYS_APERTURE_MASK)               \
		 << NVL_HW_FAULT_BUF_LO_PHYS_APERTURE_SHIFT |                  \
	 NVL_HW_FAULT_BUF_LO_ADDR_MODE_PHYS)
#define NVL_HW_FAULT_BUF_HI(i) (NVL_HW_VF_BASE + 0x3004 + 0x20 * (i))
/* GET: PTR 19:0, GETPTR_CORRUPTED 30 (W1C), OVERFLOW 31 (W1C) */
#define NVL_HW_FAULT_BUF_GET(i) (NVL_HW_VF_BASE + 0x3008 + 0x20 * (i))
#define NVL_HW_FAULT_BUF_PUT(i) (NVL_HW_VF_BASE + 0x300c + 0x20 * (i))
/* SIZE: VAL 19:0 (entries), OVERFLOW_INTR 29, SET_DEFAULT 30 (writing 1
 * loads VAL with the buffer's default size, which reads back), ENABLE 31 */
#define NVL_HW_FAULT_BUF_SIZE(i) (NVL_HW_VF_BASE + 0x3010 + 0x20 * (i))
#define NVL_HW_FAULT_BUF_PTR_MASK 0xfffffu /* 19:0 */
#define NVL_HW_FAULT_BUF_GET_CORRUPTED (1u << 30) /* W1C */
#define NVL_HW_FAULT_BUF_GET_OVERFLOW (1u << 31) /* W1C */
#define NVL_HW_FAULT_BUF_SIZE_OVERFLOW_INTR (1u << 29)
#define NVL_HW_FAULT_BUF_SIZE_SET_DEFAULT (1u << 30)
#define NVL_HW_FAULT_BUF_SIZE_ENABLE (1u << 31)

/*
 * BAR2 instance block: NV_VIRTUAL_FUNCTION_PRIV_BAR2_BLOCK (PTR 27:0 =
 * instance block >> 12, TARGET 29:28 as NVL_HW_RAM_TARGET_*, MODE 31:
 * 1 VIRTUAL). The model uses BAR2 to reach fault buffers given by
 * virtual address.
 */
#define NVL_HW_BAR2_BLOCK (NVL_HW_VF_BASE + 0xf48)
#define NVL_HW_BAR2_BLOCK_PTR_MASK 0x0fffffffu
#define NVL_HW_BAR2_BLOCK_TARGET_SHIFT 28
#define NVL_HW_BAR2_BLOCK_MODE_VIRTUAL (1u << 31)

/* What an unknown register reads. */
#define NVL_HW_REG_BAD 0xbadf5040u

#endif /* NVL_HW_REGS_H */

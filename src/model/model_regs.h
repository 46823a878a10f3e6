/* SPDX-License-Identifier: MIT */
/*
 * Registers that exist only in the model.
 *
 * Real GPUs have none of these: they configure the model, describe it to
 * its own tests and tools, or inject faults. The driver (src/nv, src/gsp)
 * never includes this header: it learns the chip from BOOT_0 and its
 * per-chip table (nv/chip.h), later from the firmware's static info.
 */
#ifndef NVL_MODEL_MODEL_REGS_H
#define NVL_MODEL_MODEL_REGS_H

/* ---- the model's configuration (read-only) ------------------------- */
#define NVL_MODEL_REG_CFG_FB_SIZE_MB 0x00020600
#define NVL_MODEL_REG_CFG_NUM_CE 0x00020604
#define NVL_MODEL_REG_CFG_NUM_CHANNELS 0x00020608
#define NVL_MODEL_REG_CFG_MMU_VERSION 0x0002060c
#define NVL_MODEL_REG_CFG_PAGE_SIZES 0x00020610 /* bit n: 1 << (12 + n) B */
#define NVL_MODEL_REG_CFG_HOST_CLASS 0x00020614
#define NVL_MODEL_REG_CFG_CE_CLASS 0x00020618

/* ---- fault injection ----------------------------------------------- */
/*
 * ENGINE_HANG(e): writing chid + 1 makes engine e stop making progress as
 * soon as it runs work of that channel, until the engine is reset
 * (PMC_ENGINE_RESET). 0 disarms.
 */
#define NVL_MODEL_REG_ENGINE_HANG(e) (0x0000040c + 0x10 * (e))
/*
 * MMU_INVALIDATE_HANG: while 1, an MMU_INVALIDATE trigger never completes
 * (TRIGGER keeps reading 1); writing 0 completes the pending request.
 */
#define NVL_MODEL_REG_MMU_INVALIDATE_HANG 0x00020700

#endif /* NVL_MODEL_MODEL_REGS_H */

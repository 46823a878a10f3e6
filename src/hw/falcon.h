/* SPDX-License-Identifier: MIT */
/*
 * Falcon register blocks: the GSP (a RISC-V core behind a falcon front
 * end) and SEC2 (the falcon that runs booter_load/booter_unload), plus the
 * WPR2 registers of the FB controller.
 *
 * Offsets within a falcon follow the public falcon manual (NV_PFALCON_*);
 * the bases are NV_PGSP and NV_PSEC of Turing..Ada. Bits this family's
 * model defines on its own are marked "model".
 */
#ifndef NVL_HW_FALCON_H
#define NVL_HW_FALCON_H

#define NVL_HW_FALCON_GSP_BASE 0x00110000 /* NV_PGSP */
#define NVL_HW_FALCON_SEC2_BASE 0x00840000 /* NV_PSEC */
#define NVL_HW_FALCON_SIZE 0x2000

/* NV_PFALCON_FALCON_IRQSCLR: write 1 to clear IRQSTAT bits */
#define NVL_HW_FALCON_IRQSCLR 0x004
/* NV_PFALCON_FALCON_IRQSTAT */
#define NVL_HW_FALCON_IRQSTAT 0x008
#define NVL_HW_FALCON_IRQSTAT_HALT (1u << 4)
#define NVL_HW_FALCON_IRQSTAT_SWGEN0 (1u << 6) /* GSP -> CPU message: 0x40 */
/* NV_PFALCON_FALCON_MAILBOX0/1 */
#define NVL_HW_FALCON_MAILBOX0 0x040
#define NVL_HW_FALCON_MAILBOX1 0x044
/* NV_PFALCON_FALCON_OS: the bootloader's appVersion is written here */
#define NVL_HW_FALCON_OS 0x080
/* NV_PFALCON_FALCON_CPUCTL */
#define NVL_HW_FALCON_CPUCTL 0x100
#define NVL_HW_FALCON_CPUCTL_STARTCPU (1u << 1)
#define NVL_HW_FALCON_CPUCTL_HALTED (1u << 4)
/* NV_PFALCON_FALCON_ENGINE: bit 0 holds the falcon in reset (model: write
 * 1 then 0 to reset; reads back the current state) */
#define NVL_HW_FALCON_ENGINE 0x3c0
#define NVL_HW_FALCON_ENGINE_RESET (1u << 0)
/* NV_PRISCV_RISCV_CPUCTL (GSP only): ACTIVE_STAT once LIBOS runs */
#define NVL_HW_FALCON_RISCV_CPUCTL 0x1388
#define NVL_HW_RISCV_CPUCTL_ACTIVE_STAT (1u << 7)
#define NVL_HW_RISCV_CPUCTL_HALTED (1u << 4)
/* NV_PGSP_QUEUE_HEAD(i): the CPU rings the GSP by writing head 0 */
#define NVL_HW_GSP_QUEUE_HEAD(i) (0xc00 + 8 * (i))

/* absolute addresses */
#define NVL_HW_GSP(reg) (NVL_HW_FALCON_GSP_BASE + (reg))
#define NVL_HW_SEC2(reg) (NVL_HW_FALCON_SEC2_BASE + (reg))

/* GSP mailbox0 value after UNLOADING_GUEST_DRIVER completed */
#define NVL_HW_GSP_MAILBOX0_UNLOADED 0x80000000u

/* NV_PFB_PRI_MMU_WPR2_ADDR_LO/HI: WPR2 bounds in 4 KiB units (bits 31:4
 * hold address >> 12, as the manual's ADDR field); HI == 0: no WPR2 */
#define NVL_HW_PFB_WPR2_ADDR_LO 0x001fa824
#define NVL_HW_PFB_WPR2_ADDR_HI 0x001fa828
#define NVL_HW_PFB_WPR2_ADDR_SHIFT 8

/* SEC2 OS register (model): which booter the driver loaded before
 * STARTCPU; the model has no falcon code to run */
#define NVL_HW_SEC2_BOOTER_LOAD 1
#define NVL_HW_SEC2_BOOTER_UNLOAD 2
/* SEC2 mailbox0 after the booter halted (model codes; 0 = success) */
#define NVL_HW_BOOTER_OK 0
#define NVL_HW_BOOTER_ERR_META 0x11 /* WprMeta magic/revision/layout */
#define NVL_HW_BOOTER_ERR_DMA 0x12 /* an input was not readable */
#define NVL_HW_BOOTER_ERR_SIG 0x13 /* signature rejected */
#define NVL_HW_BOOTER_ERR_WPR 0x14 /* WPR2 already/still up */

/*
 * The largest signature the booter takes (GspFwWprMeta sizeOfSignature;
 * model rule: the booter answers ERR_META above it). The loader refuses a
 * larger .fwsignature_<family> section before anything is allocated.
 */
#define NVL_HW_BOOTER_SIG_MAX 0x10000u

/* stall-tree bit (model): the GSP falcon has a pending IRQSTAT bit */
#define NVL_HW_INTR_GSP (1u << 5)

#endif /* NVL_HW_FALCON_H */

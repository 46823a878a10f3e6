/* SPDX-License-Identifier: MIT */
/*
 * GMMU page-table format version 2 (Pascal, Volta, Turing, Ampere, Ada).
 *
 * 49-bit VA, 4 KiB base pages, 64 KiB big pages. Levels (mmu.h geometry):
 *
 *   PD3 48:47 (4 x 8 B) -> PD2 46:38 (512 x 8 B) -> PD1 37:29 (512 x 8 B)
 *   -> PD0 28:21 (256 x 16 B, dual) -> big PT 20:16 (32 x 8 B, 256 B)
 *                                   -> small PT 20:12 (512 x 8 B)
 *
 * A PD0 entry may instead be a 2 MiB PTE, and on Ampere and later a PD1
 * entry a 512 MiB PTE (bit 0, IS_PTE, set: the low qword is a PTE).
 *
 * Every table address field holds `phys >> 4` in the low bits of its
 * qword (a PDE's 53:8 is phys >> 12 shifted left by 8; the big half's
 * 53:4 is phys >> 8 shifted left by 4). Video-memory addresses use only
 * bits 32:8 (32:4 for the big half); bits 35:33 then carry a peer id.
 *
 * Lookup rules the model implements and the driver relies on:
 *  - PTE all zero: unmapped, a PTE fault.
 *  - PTE with VALID = 0 and VOL = 1: sparse (no fault; reads return zero,
 *    writes are dropped: nouvelle's rule, the manuals are silent).
 *  - big PTE with VALID = 0 and PRIVILEGE = 1: "no valid 4 KiB pages": a
 *    fault without looking at the small PTEs.
 *  - big PTE zero: look at the small PTE for the address.
 *  - dual PDE with both apertures 0 and VOL_BIG = 1: the 2 MiB is sparse.
 *  - PD1..PD3 entries with aperture 0 and VOL = 1: the span is sparse.
 */
#ifndef NVL_HW_MMU_V2_H
#define NVL_HW_MMU_V2_H

#include "hw/mmu.h"

#define NVL_HW_MMU_V2_VA_BITS 49
#define NVL_HW_MMU_V2_ROOT NVL_HW_MMU_PD3

/* ---- PDE (8 bytes; PD1..PD3) --------------------------------------- */
#define NVL_HW_MMU_V2_PDE_IS_PTE (1ull << 0)
#define NVL_HW_MMU_V2_PDE_APERTURE_SHIFT 1 /* 2:1, NVL_HW_MMU_PDE_APERTURE_* */
#define NVL_HW_MMU_V2_PDE_APERTURE_MASK (3ull << 1)
#define NVL_HW_MMU_V2_PDE_VOL (1ull << 3)
#define NVL_HW_MMU_V2_PDE_NO_ATS (1ull << 5)
#define NVL_HW_MMU_V2_PDE_ADDR_SHIFT 8 /* field = phys >> 12 */
#define NVL_HW_MMU_V2_PDE_ADDR_PHYS_SHIFT 12
#define NVL_HW_MMU_V2_PDE_ADDR_SYS_BITS 46 /* 53:8 */
#define NVL_HW_MMU_V2_PDE_ADDR_VID_BITS 25 /* 32:8 */

/* ---- dual PDE (16 bytes; PD0). lo = big half, hi = small half ------- */
#define NVL_HW_MMU_V2_DUAL_IS_PTE (1ull << 0) /* lo bit 0 */
#define NVL_HW_MMU_V2_DUAL_APERTURE_BIG_SHIFT 1 /* lo 2:1 */
#define NVL_HW_MMU_V2_DUAL_APERTURE_BIG_MASK (3ull << 1)
#define NVL_HW_MMU_V2_DUAL_VOL_BIG (1ull << 3) /* lo bit 3 */
#define NVL_HW_MMU_V2_DUAL_NO_ATS (1ull << 5) /* lo bit 5 */
#define NVL_HW_MMU_V2_DUAL_ADDR_BIG_SHIFT 4 /* field = phys >> 8 */
#define NVL_HW_MMU_V2_DUAL_ADDR_BIG_PHYS_SHIFT 8
#define NVL_HW_MMU_V2_DUAL_ADDR_BIG_SYS_BITS 50 /* 53:4 */
#define NVL_HW_MMU_V2_DUAL_ADDR_BIG_VID_BITS 29 /* 32:4 */
#define NVL_HW_MMU_V2_DUAL_APERTURE_SMALL_SHIFT 1 /* hi 2:1 (66:65) */
#define NVL_HW_MMU_V2_DUAL_APERTURE_SMALL_MASK (3ull << 1)
#define NVL_HW_MMU_V2_DUAL_VOL_SMALL (1ull << 3) /* hi bit 3 (67) */
#define NVL_HW_MMU_V2_DUAL_ADDR_SMALL_SHIFT 8 /* hi 53:8 (117:72) */
#define NVL_HW_MMU_V2_DUAL_ADDR_SMALL_PHYS_SHIFT 12
#define NVL_HW_MMU_V2_DUAL_ADDR_SMALL_SYS_BITS 46
#define NVL_HW_MMU_V2_DUAL_ADDR_SMALL_VID_BITS 25

/* ---- PTE (8 bytes; PT, and PD0/PD1 when IS_PTE) --------------------- */
#define NVL_HW_MMU_V2_PTE_VALID (1ull << 0)
#define NVL_HW_MMU_V2_PTE_APERTURE_SHIFT 1 /* 2:1, NVL_HW_MMU_PTE_APERTURE_* */
#define NVL_HW_MMU_V2_PTE_APERTURE_MASK (3ull << 1)
#define NVL_HW_MMU_V2_PTE_VOL (1ull << 3)
#define NVL_HW_MMU_V2_PTE_ENCRYPTED (1ull << 4)
#define NVL_HW_MMU_V2_PTE_PRIVILEGE (1ull << 5)
#define NVL_HW_MMU_V2_PTE_READ_ONLY (1ull << 6)
#define NVL_HW_MMU_V2_PTE_ATOMIC_DISABLE (1ull << 7)
#define NVL_HW_MMU_V2_PTE_ADDR_SHIFT 8 /* field = phys >> 12 */
#define NVL_HW_MMU_V2_PTE_ADDR_PHYS_SHIFT 12
#define NVL_HW_MMU_V2_PTE_ADDR_SYS_BITS 46 /* 53:8 */
#define NVL_HW_MMU_V2_PTE_ADDR_VID_BITS 25 /* 32:8 */
#define NVL_HW_MMU_V2_PTE_VID_PEER_SHIFT 33 /* 35:33 */
#define NVL_HW_MMU_V2_PTE_COMPTAGLINE_SHIFT 36 /* 55:36 (vidmem only) */
#define NVL_HW_MMU_V2_PTE_KIND_SHIFT 56 /* 63:56 */
#define NVL_HW_MMU_V2_PTE_KIND_MASK (0xffull << 56)

/* Sparse encodings (see the top comment). */
#define NVL_HW_MMU_V2_PTE_SPARSE NVL_HW_MMU_V2_PTE_VOL
#define NVL_HW_MMU_V2_PTE_BIG_NO_4K NVL_HW_MMU_V2_PTE_PRIVILEGE
#define NVL_HW_MMU_V2_PDE_SPARSE NVL_HW_MMU_V2_PDE_VOL
#define NVL_HW_MMU_V2_DUAL_SPARSE_LO NVL_HW_MMU_V2_DUAL_VOL_BIG

#endif /* NVL_HW_MMU_V2_H */

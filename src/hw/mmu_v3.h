/* SPDX-License-Identifier: MIT */
/*
 * GMMU page-table format version 3 (Hopper).
 *
 * 57-bit VA. One more directory level above version 2's:
 *
 *   PD4 56 (2 x 8 B) -> PD3 55:47 (512 x 8 B) -> PD2 46:38 -> PD1 37:29
 *   -> PD0 28:21 (dual, 16 B) -> big PT 20:16 / small PT 20:12
 *
 * Leaves as in version 2: 4 KiB, 64 KiB, 2 MiB (PD0), 512 MiB (PD1).
 * Addresses are stored in place (no shift games): a PDE's 51:12, the big
 * half's 51:8, the small half's 115:76 (hi qword 51:12), a PTE's 51:12
 * (video memory 39:12).
 *
 * Permissions and caching move into PCF fields:
 *  - PDE PCF 5:3 (either half of a dual PDE too): with an aperture, bit 0
 *    = uncached, bit 1 = ATS not allowed; with aperture 0, value 1 (or 3)
 *    = sparse, 0 (or 2) = invalid.
 *  - PTE PCF 7:3 with VALID = 1: bit 0 uncached, bit 1 privileged, bit 2
 *    read-only, bit 3 atomics disabled, bit 4 access counting disabled.
 *    With VALID = 0: 0 INVALID, 1 SPARSE, 2 MAPPING_NOWHERE (nouvelle: like
 *    sparse), 3 NO_VALID_4KB_PAGE (a big PTE that blocks the small PTEs).
 */
#ifndef NVL_HW_MMU_V3_H
#define NVL_HW_MMU_V3_H

#include "hw/mmu.h"

#define NVL_HW_MMU_V3_VA_BITS 57
#define NVL_HW_MMU_V3_ROOT NVL_HW_MMU_PD4

/* ---- PDE (8 bytes; PD1..PD4) --------------------------------------- */
#define NVL_HW_MMU_V3_PDE_IS_PTE (1ull << 0)
#define NVL_HW_MMU_V3_PDE_APERTURE_SHIFT 1 /* 2:1, NVL_HW_MMU_PDE_APERTURE_* */
#define NVL_HW_MMU_V3_PDE_APERTURE_MASK (3ull << 1)
#define NVL_HW_MMU_V3_PDE_PCF_SHIFT 3 /* 5:3 */
#define NVL_HW_MMU_V3_PDE_PCF_MASK (7ull << 3)
#define NVL_HW_MMU_V3_PDE_PCF_UNCACHED 1u /* with an aperture */
#define NVL_HW_MMU_V3_PDE_PCF_NO_ATS 2u
#define NVL_HW_MMU_V3_PDE_PCF_SPARSE 1u /* with aperture 0 */
#define NVL_HW_MMU_V3_PDE_ADDR_MASK 0x000ffffffffff000ull /* 51:12 */

/* ---- dual PDE (16 bytes; PD0). lo = big half, hi = small half ------- */
#define NVL_HW_MMU_V3_DUAL_IS_PTE (1ull << 0)
#define NVL_HW_MMU_V3_DUAL_APERTURE_BIG_SHIFT 1 /* lo 2:1 */
#define NVL_HW_MMU_V3_DUAL_APERTURE_BIG_MASK (3ull << 1)
#define NVL_HW_MMU_V3_DUAL_PCF_BIG_SHIFT 3 /* lo 5:3 */
#define NVL_HW_MMU_V3_DUAL_PCF_BIG_MASK (7ull << 3)
#define NVL_HW_MMU_V3_DUAL_ADDR_BIG_MASK 0x000fffffffffff00ull /* lo 51:8 */
#define NVL_HW_MMU_V3_DUAL_APERTURE_SMALL_SHIFT 1 /* hi 2:1 (66:65) */
#define NVL_HW_MMU_V3_DUAL_APERTURE_SMALL_MASK (3ull << 1)
#define NVL_HW_MMU_V3_DUAL_PCF_SMALL_SHIFT 3 /* hi 5:3 (69:67) */
#define NVL_HW_MMU_V3_DUAL_PCF_SMALL_MASK (7ull << 3)
#define NVL_HW_MMU_V3_DUAL_ADDR_SMALL_MASK 0x000ffffffffff000ull /* hi 51:12 */

/* ---- PTE (8 bytes) -------------------------------------------------- */
#define NVL_HW_MMU_V3_PTE_VALID (1ull << 0)
#define NVL_HW_MMU_V3_PTE_APERTURE_SHIFT 1 /* 2:1, NVL_HW_MMU_PTE_APERTURE_* */
#define NVL_HW_MMU_V3_PTE_APERTURE_MASK (3ull << 1)
#define NVL_HW_MMU_V3_PTE_PCF_SHIFT 3 /* 7:3 */
#define NVL_HW_MMU_V3_PTE_PCF_MASK (0x1full << 3)
/* PCF bits with VALID = 1 */
#define NVL_HW_MMU_V3_PTE_PCF_UNCACHED 0x01u
#define NVL_HW_MMU_V3_PTE_PCF_PRIVILEGE 0x02u
#define NVL_HW_MMU_V3_PTE_PCF_READ_ONLY 0x04u
#define NVL_HW_MMU_V3_PTE_PCF_NO_ATOMIC 0x08u
#define NVL_HW_MMU_V3_PTE_PCF_NO_ACCESS_COUNT 0x10u
/* PCF values with VALID = 0 */
#define NVL_HW_MMU_V3_PTE_PCF_INVALID 0x00u
#define NVL_HW_MMU_V3_PTE_PCF_SPARSE 0x01u
#define NVL_HW_MMU_V3_PTE_PCF_MAPPING_NOWHERE 0x02u
#define NVL_HW_MMU_V3_PTE_PCF_NO_VALID_4KB_PAGE 0x03u
#define NVL_HW_MMU_V3_PTE_KIND_SHIFT 8 /* 11:8 */
#define NVL_HW_MMU_V3_PTE_KIND_MASK (0xfull << 8)
#define NVL_HW_MMU_V3_PTE_ADDR_MASK 0x000ffffffffff000ull /* 51:12 */
#define NVL_HW_MMU_V3_PTE_ADDR_VID_MASK 0x000000fffffff000ull /* 39:12 */
#define NVL_HW_MMU_V3_PTE_PEER_ID_SHIFT 61 /* 63:61 */

#endif /* NVL_HW_MMU_V3_H */

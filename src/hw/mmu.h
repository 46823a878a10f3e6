/* SPDX-License-Identifier: MIT */
/*
 * GMMU page tables: what both page-table formats share.
 *
 * NVIDIA GPUs since Pascal translate GPU virtual addresses through a radix
 * tree of page directories ending in page tables (mmu_v2.h: Pascal..Ada,
 * 49-bit VA; mmu_v3.h: Hopper, 57-bit VA). Leaves come in four sizes: 4 KiB
 * (small page table), 64 KiB (big page table), 2 MiB (a PTE in place of a
 * PD0 entry) and 512 MiB (a PTE in place of a PD1 entry, Ampere and later).
 *
 * The last directory level, PD0, has 16-byte "dual" entries pointing at a
 * big and a small page table for the same 2 MiB; the MMU looks at the big
 * PTE first and falls through to the small PTE when the big one is zero.
 *
 * Three different aperture encodings exist (PDE, PTE, copy-engine physical
 * mode). Each format header converts its own codes to and from the neutral
 * enum nvl_hw_aperture (aperture.h).
 */
#ifndef NVL_HW_MMU_H
#define NVL_HW_MMU_H

#include <stdint.h>

#include "hw/aperture.h"

/* Page sizes (log2 bytes). */
#define NVL_HW_MMU_SHIFT_4K 12
#define NVL_HW_MMU_SHIFT_64K 16
#define NVL_HW_MMU_SHIFT_2M 21
#define NVL_HW_MMU_SHIFT_512M 29

/* Directory and page tables are placed at 4 KiB (big PT: 256 B). */
#define NVL_HW_MMU_TABLE_ALIGN 4096u
#define NVL_HW_MMU_BIG_PT_ALIGN 256u

/**
 * enum nvl_hw_mmu_level - the levels of both formats, root first. Version 2
 * starts at PD3; version 3 adds PD4 above it.
 */
enum nvl_hw_mmu_level {
	NVL_HW_MMU_PD4 = 0, /* v3 only: VA bit 56 */
	NVL_HW_MMU_PD3, /* v2 root: 48:47; v3: 55:47 */
	NVL_HW_MMU_PD2, /* 46:38 */
	NVL_HW_MMU_PD1, /* 37:29, may hold a 512 MiB PTE (Ampere+) */
	NVL_HW_MMU_PD0, /* 28:21, dual 16-byte entries or a 2 MiB PTE */
	NVL_HW_MMU_PT_BIG, /* 20:16, 32 x 8 B, 64 KiB PTEs */
	NVL_HW_MMU_PT_SMALL, /* 20:12, 512 x 8 B, 4 KiB PTEs */
	NVL_HW_MMU_LEVEL_COUNT
};

/** struct nvl_hw_mmu_geom - where a level's index sits in the VA. */
struct nvl_hw_mmu_geom {
	/** @shift: lowest VA bit of the index (= log2 of one entry's span) */
	uint8_t shift;
	/** @bits: index width */
	uint8_t bits;
	/** @entry_size: bytes per entry */
	uint8_t entry_size;
};

/*
 * Geometry per level (both versions; PD4 and the wider PD3 are v3-only).
 * The v2 PD3 has 2 index bits (48:47), the v3 PD3 9 bits (55:47).
 */
#define NVL_HW_MMU_GEOM_PD4                                                    \
	{                                                                      \
		56, 1, 8                                                       \
	}
#define NVL_HW_MMU_GEOM_PD3_V2                                                 \
	{                                                                      \
		47, 2, 8                                                       \
	}
#define NVL_HW_MMU_GEOM_PD3_V3                                                 \
	{                                                                      \
		47, 9, 8                                                       \
	}
#define NVL_HW_MMU_GEOM_PD2                                                    \
	{                                                                      \
		38, 9, 8                                                       \
	}
#define NVL_HW_MMU_GEOM_PD1                                                    \
	{                                                                      \
		29, 9, 8                                                       \
	}
#define NVL_HW_MMU_GEOM_PD0                                                    \
	{                                                                      \
		21, 8, 16                                                      \
	}
#define NVL_HW_MMU_GEOM_PT_BIG                                                 \
	{                                                                      \
		16, 5, 8                                                       \
	}
#define NVL_HW_MMU_GEOM_PT_SMALL                                               \
	{                                                                      \
		12, 9, 8                                                       \
	}

/**
 * nvl_hw_mmu_index() - the index of @va in a level with geometry @g.
 */
static inline unsigned int nvl_hw_mmu_index(struct nvl_hw_mmu_geom g,
					    uint64_t va)
{
	return (unsigned int)((va >> g.shift) & ((1ull << g.bits) - 1));
}

/*
 * The headers under src/hw/ hold definitions only: the driver and the model
 * each write their own encoder and decoder, so that the contract tests
 * compare two independent readings of the same manual.
 *
 * Directory-entry aperture codes, shared by v2 and v3 PDEs and both halves
 * of a dual PDE: 0 means "no table".
 */
#define NVL_HW_MMU_PDE_APERTURE_INVALID 0u
#define NVL_HW_MMU_PDE_APERTURE_VIDMEM 1u
#define NVL_HW_MMU_PDE_APERTURE_SYS_COH 2u
#define NVL_HW_MMU_PDE_APERTURE_SYS_NONCOH 3u

/* PTE aperture codes, shared by v2 and v3: PEER is not a local memory. */
#define NVL_HW_MMU_PTE_APERTURE_VIDMEM 0u
#define NVL_HW_MMU_PTE_APERTURE_PEER 1u
#define NVL_HW_MMU_PTE_APERTURE_SYS_COH 2u
#define NVL_HW_MMU_PTE_APERTURE_SYS_NONCOH 3u

/* PTE kinds used here (KIND field; 0x07 is INVALID on Turing and later). */
#define NVL_HW_MMU_KIND_PITCH 0x00u
#define NVL_HW_MMU_KIND_GENERIC_MEMORY 0x06u
#define NVL_HW_MMU_KIND_INVALID 0x07u

#endif /* NVL_HW_MMU_H */

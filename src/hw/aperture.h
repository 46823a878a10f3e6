/* SPDX-License-Identifier: MIT */
/*
 * Memory apertures: where a physical address points.
 *
 * NVIDIA hardware encodes the aperture three different ways (a PDE, a PTE
 * and the copy engine's physical mode each number them differently, see
 * mmu*.h and ce.h). This enum is the one neutral name the model and the
 * driver use between them; every format header converts its own encoding
 * to and from it.
 */
#ifndef NVL_HW_APERTURE_H
#define NVL_HW_APERTURE_H

/** enum nvl_hw_aperture - the memory a physical address refers to. */
enum nvl_hw_aperture {
	/** @NVL_HW_APERTURE_VIDMEM: the GPU's own memory (VRAM), by offset */
	NVL_HW_APERTURE_VIDMEM = 0,
	/**
	 * @NVL_HW_APERTURE_SYS_COH: system memory, cache-coherent; the
	 * address is a DMA (IOMMU) address handed out by dma_map
	 */
	NVL_HW_APERTURE_SYS_COH = 1,
	/** @NVL_HW_APERTURE_SYS_NONCOH: system memory, non-coherent */
	NVL_HW_APERTURE_SYS_NONCOH = 2,
	/** @NVL_HW_APERTURE_COUNT: number of apertures (not an aperture) */
	NVL_HW_APERTURE_COUNT
};

/** nvl_hw_aperture_is_sys() - true for the two system-memory apertures. */
static inline int nvl_hw_aperture_is_sys(enum nvl_hw_aperture ap)
{
	return ap == NVL_HW_APERTURE_SYS_COH ||
	       ap == NVL_HW_APERTURE_SYS_NONCOH;
}

#endif /* NVL_HW_APERTURE_H */

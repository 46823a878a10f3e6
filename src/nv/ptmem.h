/* SPDX-License-Identifier: MIT */
/*
 * A small allocator of page-table memory in a window of VRAM, until the
 * memory manager's VRAM allocator takes over (it only needs to provide a
 * struct nvl_pt_mem_ops).
 */
#ifndef NVL_NV_PTMEM_H
#define NVL_NV_PTMEM_H

#include "base/compiler.h"
#include "vm/pt/pt.h"

struct nvl_hw;
struct nvl_nv_ptmem;

/**
 * nvl_nv_ptmem_create() - manage [@base, @base + @size) of VRAM.
 * @hw: the device (tables are written through its VRAM aperture)
 * @base: first byte, 4 KiB aligned
 * @size: bytes, a multiple of 4 KiB
 * @out: the allocator
 *
 * Return: 0, -EINVAL (unaligned or empty window) or -ENOMEM.
 */
int nvl_nv_ptmem_create(struct nvl_hw *hw, uint64_t base, uint64_t size,
			struct nvl_nv_ptmem **out) NVL_MUST_CHECK;

/**
 * nvl_nv_ptmem_destroy() - free the allocator (not the VRAM).
 * @pm: the allocator, or NULL (no-op)
 */
void nvl_nv_ptmem_destroy(struct nvl_nv_ptmem *pm);

/**
 * nvl_nv_ptmem_used() - table memory in use.
 * @pm: the allocator
 *
 * Return: bytes of the 4 KiB pages in use.
 */
uint64_t nvl_nv_ptmem_used(struct nvl_nv_ptmem *pm);

/**
 * nvl_nv_ptmem_ops - table memory ops; priv is the struct nvl_nv_ptmem.
 * Sizes up to 4 KiB; 256-byte requests share 4 KiB pages.
 */
extern const struct nvl_pt_mem_ops nvl_nv_ptmem_ops;

#endif /* NVL_NV_PTMEM_H */

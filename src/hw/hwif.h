/* SPDX-License-Identifier: MIT */
/*
 * The hardware interface: the only way the driver reaches a GPU.
 *
 * A device is a struct nvl_hw whose ops give
 *  - 32-bit BAR0 register reads and writes (offsets in regs.h);
 *  - VRAM reads and writes through a BAR aperture, and optionally a direct
 *    CPU mapping of VRAM;
 *  - DMA mapping of system pages (an IOMMU-like table): the GPU may reach
 *    system memory only at the DMA addresses dma_map handed out; an access
 *    to any other system address faults;
 *  - one interrupt callback, called from the device's own threads whenever
 *    an enabled interrupt becomes pending. The handler reads and clears the
 *    status registers through rd32/wr32.
 *
 * The model implements it (model/model.h, nvl_model_hw()); a real device
 * behind VFIO could too.
 */
#ifndef NVL_HW_HWIF_H
#define NVL_HW_HWIF_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/flock.h"

struct nvl_hw;

/**
 * typedef nvl_hw_irq_fn - the driver's interrupt handler.
 * @arg: the pointer given to set_irq_handler
 *
 * Runs on a device thread; may call rd32/wr32 and the VRAM accessors, must
 * not call set_irq_handler nor destroy the device.
 */
typedef void (*nvl_hw_irq_fn)(void *arg);

/** struct nvl_hw_ops - what a device offers. */
struct nvl_hw_ops {
	/** @rd32: read a BAR0 register (unknown offsets read 0xbadf5040) */
	uint32_t (*rd32)(struct nvl_hw *hw, uint32_t addr);
	/** @wr32: write a BAR0 register (writes to unknown offsets drop) */
	void (*wr32)(struct nvl_hw *hw, uint32_t addr, uint32_t val);
	/**
	 * @vram_read: copy @len bytes of VRAM at @offset to @buf.
	 * Return: 0, or -EFAULT when the range leaves VRAM.
	 */
	int (*vram_read)(struct nvl_hw *hw, uint64_t offset, void *buf,
			 size_t len);
	/**
	 * @vram_write: copy @len bytes from @buf to VRAM at @offset.
	 * Return: 0, or -EFAULT when the range leaves VRAM.
	 */
	int (*vram_write)(struct nvl_hw *hw, uint64_t offset, const void *buf,
			  size_t len);
	/**
	 * @vram_map: optional (NULL when the device offers no CPU mapping of
	 * VRAM): a CPU pointer to @len bytes of VRAM at @offset, as through a
	 * BAR1 mapping, valid until the device is destroyed. Stores through
	 * it reach VRAM in program order; the device may read VRAM at any
	 * time, so publish with a release fence what it must see complete.
	 * Return: the pointer, or NULL when the range leaves VRAM.
	 */
	void *(*vram_map)(struct nvl_hw *hw, uint64_t offset, size_t len);
	/**
	 * @dma_map: let the GPU reach @len bytes of system memory at @cpu
	 * (both 4 KiB-aligned) and return its DMA address in @dma_out.
	 * Return: 0, -EINVAL (unaligned or empty) or -ENOMEM.
	 */
	int (*dma_map)(struct nvl_hw *hw, void *cpu, size_t len,
		       uint64_t *dma_out);
	/**
	 * @dma_unmap: remove a mapping made by dma_map (same @dma, @len).
	 * Return: 0, or -ENOENT when no such mapping exists.
	 */
	int (*dma_unmap)(struct nvl_hw *hw, uint64_t dma, size_t len);
	/**
	 * @set_irq_handler: install @fn (NULL removes it). Returns after
	 * any call to the previous handler has finished.
	 * Return: 0.
	 */
	int (*set_irq_handler)(struct nvl_hw *hw, nvl_hw_irq_fn fn, void *arg);
};

/** struct nvl_hw - a device, as the driver sees it. Embedded by providers. */
struct nvl_hw {
	/** @ops: the device's operations */
	const struct nvl_hw_ops *ops;
	/**
	 * @inval_lock: the driver's, not the provider's: held while the
	 * device's one set of MMU_INVALIDATE registers is in use (nv/gmmu.c).
	 * A futex lock whose zero is "unlocked": a provider zero-fills its
	 * struct nvl_hw (as every one does) and needs no init or fini; a
	 * waiter sleeps.
	 */
	struct nvl_flock inval_lock;
};

/** nvl_hw_rd32() - read BAR0 register @addr. */
static inline uint32_t nvl_hw_rd32(struct nvl_hw *hw, uint32_t addr)
{
	return hw->ops->rd32(hw, addr);
}

/** nvl_hw_wr32() - write BAR0 register @addr. */
static inline void nvl_hw_wr32(struct nvl_hw *hw, uint32_t addr, uint32_t val)
{
	hw->ops->wr32(hw, addr, val);
}

/** nvl_hw_mask() - read-modify-write: clear @clr, set @set. Return: old. */
static inline uint32_t nvl_hw_mask(struct nvl_hw *hw, uint32_t addr,
				   uint32_t clr, uint32_t set)
{
	uint32_t old = nvl_hw_rd32(hw, addr);

	nvl_hw_wr32(hw, addr, (old & ~clr) | set);
	return old;
}

/** nvl_hw_vram_read() - see nvl_hw_ops.vram_read. */
static inline int nvl_hw_vram_read(struct nvl_hw *hw, uint64_t offset,
				   void *buf, size_t len)
{
	return hw->ops->vram_read(hw, offset, buf, len);
}

/** nvl_hw_vram_write() - see nvl_hw_ops.vram_write. */
static inline int nvl_hw_vram_write(struct nvl_hw *hw, uint64_t offset,
				    const void *buf, size_t len)
{
	return hw->ops->vram_write(hw, offset, buf, len);
}

/**
 * nvl_hw_vram_map() - see nvl_hw_ops.vram_map.
 * Return: the pointer, or NULL (no CPU mapping, or outside VRAM).
 */
static inline void *nvl_hw_vram_map(struct nvl_hw *hw, uint64_t offset,
				    size_t len)
{
	return hw->ops->vram_map ? hw->ops->vram_map(hw, offset, len) : NULL;
}

/** nvl_hw_dma_map() - see nvl_hw_ops.dma_map. */
static inline int nvl_hw_dma_map(struct nvl_hw *hw, void *cpu, size_t len,
				 uint64_t *dma_out)
{
	return hw->ops->dma_map(hw, cpu, len, dma_out);
}

/** nvl_hw_dma_unmap() - see nvl_hw_ops.dma_unmap. */
static inline int nvl_hw_dma_unmap(struct nvl_hw *hw, uint64_t dma, size_t len)
{
	return hw->ops->dma_unmap(hw, dma, len);
}

/** nvl_hw_set_irq_handler() - see nvl_hw_ops.set_irq_handler. */
static inline int nvl_hw_set_irq_handler(struct nvl_hw *hw, nvl_hw_irq_fn fn,
					 void *arg)
{
	return hw->ops->set_irq_handler(hw, fn, arg);
}

#endif /* NVL_HW_HWIF_H */

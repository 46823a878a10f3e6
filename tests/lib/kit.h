/* SPDX-License-Identifier: MIT */
/*
 * The bring-up kit: the least a driver must do to get work through the
 * model, written only against the hardware interface (hw/hwif.h) and the
 * hardware definitions under hw/ (plus the model-only VRAM-size register).
 * It lives with the tests, outside the library: the model's own tests,
 * benchmarks, fuzz target and the nvl demo link it; the real driver
 * (src/nv) does not, and the kit does not use src/nv, so the two are
 * independent encoders of the same manuals and check each other (see
 * tests/mmu/driver_hw.c).
 *
 * It allocates VRAM with a bump allocator, writes version-2 or version-3
 * (Hopper) page tables, per BOOT_0's architecture, into VRAM (2 MiB,
 * 64 KiB or 4 KiB PTEs, sparse and read-only pages),
 * builds instance blocks, USERD pages and GPFIFO rings, and submits
 * pushbuffers through GP_PUT and the doorbell.
 */
#ifndef NVL_KIT_H
#define NVL_KIT_H

#include "base/compiler.h"
#include "hw/aperture.h"
#include "hw/hwif.h"

/** struct nvl_kit - a bring-up session on one device. */
struct nvl_kit {
	/** @hw: the device */
	struct nvl_hw *hw;
	/** @vram_size: from CFG_FB_SIZE_MB */
	uint64_t vram_size;
	/** @next: bump pointer for allocations (grows down from the top) */
	uint64_t next;
	/** @floor: allocations never go below this */
	uint64_t floor;
};

/** struct nvl_kit_vm - an address space. */
struct nvl_kit_vm {
	/** @pdb: VRAM address of the root (PD3 in v2, PD4 in v3) */
	uint64_t pdb;
	/** @version: page-table format of the device, 2 or 3 */
	unsigned version;
};

/** Flags for nvl_kit_map(). */
enum nvl_kit_map_flags {
	/** @NVL_KIT_RO: read-only pages */
	NVL_KIT_RO = 1u << 0,
	/** @NVL_KIT_SPARSE: sparse PTEs (reads 0, writes dropped) */
	NVL_KIT_SPARSE = 1u << 1,
	/** @NVL_KIT_NO_ATOMIC: ATOMIC_DISABLE pages */
	NVL_KIT_NO_ATOMIC = 1u << 2,
};

/** struct nvl_kit_chan - a channel and its pushbuffer ring. */
struct nvl_kit_chan {
	unsigned chid;
	unsigned runlist;
	uint64_t inst; /* VRAM */
	uint64_t userd; /* VRAM */
	uint64_t gpfifo; /* VA (= VRAM address, identity mapped) */
	uint32_t gp_entries;
	uint32_t gp_put;
	uint64_t pb; /* VA of the pushbuffer ring */
	uint32_t pb_size; /* bytes */
	uint32_t pb_pos; /* next free byte in the ring */
	uint32_t *buf; /* CPU staging of the segment being built */
	uint32_t buf_cap; /* dwords */
	uint32_t n; /* dwords staged */
};

/**
 * nvl_kit_init() - start a session: VRAM allocations come from
 * [@floor, VRAM end), top down.
 * Return: 0, or -EINVAL when @floor is beyond VRAM.
 */
int nvl_kit_init(struct nvl_kit *k, struct nvl_hw *hw, uint64_t floor);

/**
 * nvl_kit_alloc() - @size bytes of zeroed VRAM aligned to @align.
 * Return: the VRAM address, or 0 when VRAM is exhausted.
 */
uint64_t nvl_kit_alloc(struct nvl_kit *k, uint64_t size, uint64_t align);

/**
 * nvl_kit_vm_init() - an empty address space.
 * Return: 0 or -ENOSPC.
 */
int nvl_kit_vm_init(struct nvl_kit *k, struct nvl_kit_vm *vm);

/**
 * nvl_kit_map() - map [@va, @va + @size) to @pa in @ap with pages of
 * 1 << @page_shift (12, 16 or 21), writing tables as needed. With
 * NVL_KIT_SPARSE, @pa and @ap are ignored.
 * Return: 0, -EINVAL (alignment, page size, a 4K/64K map under a 2 MiB
 * PTE or the reverse) or -ENOSPC (no VRAM for tables).
 */
int nvl_kit_map(struct nvl_kit *k, struct nvl_kit_vm *vm, uint64_t va,
		uint64_t pa, uint64_t size, unsigned page_shift,
		enum nvl_hw_aperture ap, unsigned flags);

/**
 * nvl_kit_unmap() - clear the PTEs of [@va, @va + @size) mapped
 * with pages of 1 << @page_shift (tables stay).
 * Return: 0, -EINVAL, or -ENOENT when a table on the way is missing.
 */
int nvl_kit_unmap(struct nvl_kit *k, struct nvl_kit_vm *vm, uint64_t va,
		  uint64_t size, unsigned page_shift);

/**
 * nvl_kit_invalidate() - invalidate every TLB entry of @vm through
 * the MMU_INVALIDATE registers and wait for completion.
 * Return: 0, or -ETIME after 1 s.
 */
int nvl_kit_invalidate(struct nvl_kit *k, struct nvl_kit_vm *vm);

/**
 * nvl_kit_chan_create() - bind and enable channel @chid on @runlist
 * in @vm, with a 2^@gp_order-entry GPFIFO and a @pb_size-byte pushbuffer
 * ring, all in VRAM and identity-mapped in @vm (VA = VRAM address: the
 * caller maps VRAM identically first). @priv makes it privileged.
 * Return: 0, -ENOMEM or -ENOSPC.
 */
int nvl_kit_chan_create(struct nvl_kit *k, struct nvl_kit_vm *vm, unsigned chid,
			unsigned runlist, unsigned gp_order, uint32_t pb_size,
			bool priv, struct nvl_kit_chan *ch);

/** nvl_kit_chan_fini() - disable the channel, free its staging. */
void nvl_kit_chan_fini(struct nvl_kit *k, struct nvl_kit_chan *ch);

/**
 * nvl_kit_push() - stage @n dwords of the segment being built.
 * Return: 0, or -ENOSPC when the segment would exceed the staging buffer.
 */
int nvl_kit_push(struct nvl_kit_chan *ch, const uint32_t *dw, uint32_t n);

/**
 * nvl_kit_kick() - copy the staged segment into the ring, append a
 * GPFIFO entry, update GP_PUT in USERD and ring the doorbell.
 * Return: 0, or -ENOSPC when the ring or the GPFIFO is full.
 */
int nvl_kit_kick(struct nvl_kit *k, struct nvl_kit_chan *ch);

/**
 * nvl_kit_gp_get() - the channel's GP_GET as written back to USERD.
 */
uint32_t nvl_kit_gp_get(struct nvl_kit *k, struct nvl_kit_chan *ch);

/**
 * nvl_kit_wait_idle() - wait until the channel consumed every entry.
 * Return: 0, -EIO when the channel stopped on an error (CHRAM_ERROR != 0),
 * or -ETIME after @timeout_ns.
 */
int nvl_kit_wait_idle(struct nvl_kit *k, struct nvl_kit_chan *ch,
		      int64_t timeout_ns);

/**
 * nvl_kit_wait_u32() - wait until the 32-bit word at VRAM @pa equals
 * @value. Return: 0 or -ETIME.
 */
int nvl_kit_wait_u32(struct nvl_kit *k, uint64_t pa, uint32_t value,
		     int64_t timeout_ns);

/* Pushbuffer builders: each returns the number of dwords written. */
/** nvl_kit_pb_copy() - CE: set_object + pitch copy of @len bytes. */
uint32_t nvl_kit_pb_copy(uint32_t *p, uint32_t ce_class, uint64_t dst,
			 uint64_t src, uint32_t len);
/** nvl_kit_pb_memset() - CE: fill @len bytes (multiple of 4). */
uint32_t nvl_kit_pb_memset(uint32_t *p, uint32_t ce_class, uint64_t dst,
			   uint32_t pattern, uint32_t len);
/** nvl_kit_pb_release() - Host: 32-bit release + NON_STALL_INTERRUPT. */
uint32_t nvl_kit_pb_release(uint32_t *p, uint64_t va, uint32_t value);
/** nvl_kit_pb_reduce_add() - Host: 32-bit unsigned atomic add of @value. */
uint32_t nvl_kit_pb_reduce_add(uint32_t *p, uint64_t va, uint32_t value);
/** nvl_kit_pb_acquire() - Host: circular >= acquire of @value. */
uint32_t nvl_kit_pb_acquire(uint32_t *p, uint64_t va, uint32_t value);

#endif /* NVL_KIT_H */

/* SPDX-License-Identifier: MIT */
/*
 * The NVIDIA GMMU page-table engine: the v2 (Pascal..Ada) and v3 (Hopper)
 * formats plugged into the generic page-table manager (vm/pt/pt.h), with
 * TLB invalidation through the MMU_INVALIDATE registers. One per VM; its
 * struct nvl_vm_pt_ops is GPUVM's backend.
 */
#ifndef NVL_NV_GMMU_H
#define NVL_NV_GMMU_H

#include "base/compiler.h"
#include "hw/aperture.h"
#include "vm/pt/pt.h"

struct nvl_hw;
struct nvl_nv_gmmu;

/** struct nvl_nv_gmmu_args - what nvl_nv_gmmu_create() needs. */
struct nvl_nv_gmmu_args {
	/** @hw: the device */
	struct nvl_hw *hw;
	/** @version: page-table format, 2 or 3 */
	unsigned int version;
	/** @big_leaf_pd1: the chip has 512 MiB PTEs at PD1 (Ampere+) */
	bool big_leaf_pd1;
	/** @mem: table memory ops (e.g. &nvl_nv_ptmem_ops) */
	const struct nvl_pt_mem_ops *mem;
	/** @mem_priv: for @mem */
	void *mem_priv;
	/** @kind: PTE kind for mappings (0 = pitch/generic) */
	unsigned int kind;
	/**
	 * @any_backing: GPUVM's page sizes are hints; tables are prepared
	 * for 4 KiB and every leaf is picked from the backing (see
	 * nvl_pt_args.any_backing)
	 */
	bool any_backing;
	/** @cache_tables: see nvl_pt_args.cache_tables (0: the default) */
	int cache_tables;
};

/**
 * nvl_nv_gmmu_probe() - fill the chip-dependent part of @args (format
 * version, 512 MiB leaves) from BOOT_0 and the chip table (nv/chip.h).
 * @hw: the device
 * @args: @version and @big_leaf_pd1 are set; @hw too
 *
 * Return: 0, or -ENODEV when BOOT_0 names a chip the table lacks.
 */
int nvl_nv_gmmu_probe(struct nvl_hw *hw, struct nvl_nv_gmmu_args *args);

/**
 * nvl_nv_gmmu_create() - a VM's page tables with an empty root.
 * @args: device, format version, leaf sizes and table memory
 * @out: the page tables
 *
 * Return: 0, -EINVAL (unknown version, no memory ops, a kind the
 * version's PTE KIND field cannot hold or NV_MMU_PTE_KIND_INVALID) or
 * -ENOMEM.
 */
int nvl_nv_gmmu_create(const struct nvl_nv_gmmu_args *args,
		       struct nvl_nv_gmmu **out) NVL_MUST_CHECK;

/**
 * nvl_nv_gmmu_destroy() - free every table.
 * @g: the page tables, or NULL (no-op)
 */
void nvl_nv_gmmu_destroy(struct nvl_nv_gmmu *g);

/**
 * nvl_nv_gmmu_pt() - the generic manager behind @g.
 * @g: the page tables
 *
 * Return: the manager, GPUVM's @pt_priv for &nvl_pt_ops.
 */
struct nvl_pt *nvl_nv_gmmu_pt(struct nvl_nv_gmmu *g);

/**
 * nvl_nv_gmmu_pdb() - where the root directory is.
 * @g: the page tables
 *
 * Return: its VRAM address (for the instance block's PAGE_DIR_BASE).
 */
uint64_t nvl_nv_gmmu_pdb(const struct nvl_nv_gmmu *g);

/**
 * nvl_nv_gmmu_big_page_shifts() - the leaf sizes above 4 KiB.
 * @g: the page tables
 *
 * Return: a mask of page shifts (for nvl_gpuvm_args.big_page_shifts):
 * 64 KiB, 2 MiB and, with big_leaf_pd1, 512 MiB.
 */
uint64_t nvl_nv_gmmu_big_page_shifts(const struct nvl_nv_gmmu *g);

/**
 * nvl_nv_gmmu_backing_shift() - the largest page a backing allows.
 * @obj: the object (caller holds obj->resv)
 * @bo_offset: offset of the mapping in @obj
 * @va: where it is mapped
 * @range: bytes
 *
 * The page-size policy's backing half, for the code that picks a
 * mapping's page size before prepare: every piece of the backing must be
 * physically contiguous and aligned like the VA.
 * Return: 21, 16 or 12; 12 when the object is not resident.
 */
unsigned int nvl_nv_gmmu_backing_shift(struct nvl_gem_object *obj,
				       uint64_t bo_offset, uint64_t va,
				       uint64_t range);

/* How long nvl_nv_gmmu_invalidate() polls for completion. */
#define NVL_NV_GMMU_INVALIDATE_TIMEOUT_NS 1000000000ll

/**
 * nvl_nv_gmmu_invalidate() - invalidate TLB entries through MMU_INVALIDATE.
 * @hw: the device
 * @pdb: VRAM address of the address space's root
 * @va: first byte
 * @range: bytes; 0 for the whole address space
 *
 * The register has no VA-range form: every call invalidates all VAs of
 * @pdb (@va and @range say what the caller needs, for a later MEM_OP
 * path), with SYS_MEMBAR and ACK GLOBALLY (what RM does after a PTE
 * downgrade). Waits (bounded) for completion.
 * Return: 0, or -ETIMEDOUT when the MMU did not finish within
 * NVL_NV_GMMU_INVALIDATE_TIMEOUT_NS.
 */
int nvl_nv_gmmu_invalidate(struct nvl_hw *hw, uint64_t pdb, uint64_t va,
			   uint64_t range);

/**
 * nvl_nv_gmmu_replay() - an MMU_INVALIDATE of every PDB with REPLAY
 * @replay (NVL_HW_MMU_INVALIDATE_REPLAY_*): the replayable faults parked
 * in the uTLBs are re-issued (START) or cancelled. Waits (bounded) for
 * completion. Return: 0 or -ETIMEDOUT.
 */
int nvl_nv_gmmu_replay(struct nvl_hw *hw, unsigned replay);

/** The v2/v3 encoders, exposed for tests of the format. */
extern const struct nvl_pt_format_ops nvl_nv_gmmu_format_ops;

#endif /* NVL_NV_GMMU_H */

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
};

/**
 * nvl_nv_gmmu_create() - a VM's page tables with an empty root.
 * Return: 0, -EINVAL (unknown version, no memory ops) or -ENOMEM.
 */
int nvl_nv_gmmu_create(const struct nvl_nv_gmmu_args *args,
		       struct nvl_nv_gmmu **out) NVL_MUST_CHECK;

/** nvl_nv_gmmu_destroy() - free every table. NULL is a no-op. */
void nvl_nv_gmmu_destroy(struct nvl_nv_gmmu *g);

/** nvl_nv_gmmu_pt() - the generic manager: the @pt_priv for GPUVM. */
struct nvl_pt *nvl_nv_gmmu_pt(struct nvl_nv_gmmu *g);

/** nvl_nv_gmmu_pdb() - VRAM address of the root directory. */
uint64_t nvl_nv_gmmu_pdb(const struct nvl_nv_gmmu *g);

/**
 * nvl_nv_gmmu_big_page_shifts() - the page shifts above 4 KiB this VM's
 * tables can hold (for nvl_gpuvm_args.big_page_shifts): 64 KiB, 2 MiB and,
 * with @big_leaf_pd1, 512 MiB.
 */
uint64_t nvl_nv_gmmu_big_page_shifts(const struct nvl_nv_gmmu *g);

/**
 * nvl_nv_gmmu_backing_shift() - the largest page shift (12, 16, 21) at
 * which [@bo_offset, @bo_offset + @range) of @obj, mapped at @va, can be
 * mapped given its current backing: every piece physically contiguous
 * and aligned like the VA. The page-size policy's backing half, for the
 * code that picks a mapping's page size before prepare. Caller holds
 * obj->resv.
 * Return: the shift; 12 when the object is not resident.
 */
unsigned int nvl_nv_gmmu_backing_shift(struct nvl_gem_object *obj,
				       uint64_t bo_offset, uint64_t va,
				       uint64_t range);

/**
 * nvl_nv_gmmu_invalidate() - invalidate the TLB entries of the address
 * space whose root is at @pdb (VRAM) for [@va, @va + @range) through the
 * MMU_INVALIDATE registers and wait (bounded) for completion.
 * Return: 0, or -ETIMEDOUT when the MMU did not finish within 1 s.
 */
int nvl_nv_gmmu_invalidate(struct nvl_hw *hw, uint64_t pdb, uint64_t va,
			   uint64_t range);

/** The v2/v3 encoders, exposed for tests of the format. */
extern const struct nvl_pt_format_ops nvl_nv_gmmu_format_ops;

#endif /* NVL_NV_GMMU_H */

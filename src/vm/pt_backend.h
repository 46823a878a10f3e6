/* SPDX-License-Identifier: MIT */
/*
 * The page-table backend interface: how GPUVM drives a GPU's page tables.
 *
 * GPUVM is generic; it never knows a page-table format. It asks a backend,
 * through struct nvl_vm_pt_ops, to
 *  - prepare (get): allocate and reference every page-table page a range
 *    needs at a page size. This is the last point where anything may
 *    allocate, and the only op that may fail;
 *  - map / unmap / sparse: write PTEs;
 *  - flush: invalidate the TLB for a range;
 *  - release (put): drop the references taken by get, after the flush that
 *    covers them.
 *
 * map, unmap, sparse and flush run inside the commit phase, a
 * fence-signalling critical section (nvl_fence_begin_signalling()): they must
 * not allocate, block on a lock held while waiting for fences, or fail.
 *
 * Two backends implement it: the recording backend (src/vm/pt_record.c, for
 * tests and benchmarks) and the NVIDIA page-table engine (src/nv/).
 */
#ifndef NVL_VM_PT_BACKEND_H
#define NVL_VM_PT_BACKEND_H

#include "base/compiler.h"

struct nvl_gem_object;

/** PTE flags passed to nvl_vm_pt_ops.map. */
enum nvl_vm_pt_flags {
	/** @NVL_VM_PT_READONLY: GPU writes fault */
	NVL_VM_PT_READONLY = 1u << 0,
	/**
	 * @NVL_VM_PT_NULL: no backing: reads return zero, writes are dropped
	 * (@obj is NULL)
	 */
	NVL_VM_PT_NULL = 1u << 1,
	/** @NVL_VM_PT_NOATOMIC: GPU atomics fault */
	NVL_VM_PT_NOATOMIC = 1u << 2,
	/**
	 * @NVL_VM_PT_SETTLED: not a PTE bit but how to resolve @obj: pages
	 * whose backing is pending (struct nvl_gem_backing's @pending: a
	 * move or clear into it still queued) are left invalid, like pages
	 * without backing. A bind's commit and a fault's service ask it (a
	 * job queued before the move may run before its copy); validate's
	 * rewrite does not (its exec's job waits for the move).
	 */
	NVL_VM_PT_SETTLED = 1u << 3,
};

/**
 * struct nvl_vm_pt_ops - a page-table backend.
 *
 * Every address and range is in bytes, aligned to 1 << @page_shift (or to
 * the VM's page size for sparse/flush). @priv is the backend's own state,
 * given to nvl_vm_create().
 */
struct nvl_vm_pt_ops {
	/**
	 * @get: prepare phase. Allocate and take a reference on every
	 * page-table page that [@va, @va + @range) needs at 1 << @page_shift.
	 * May be called for ranges that are already covered (references nest).
	 * Return: 0, or -ENOMEM (nothing taken).
	 */
	int (*get)(void *priv, uint64_t va, uint64_t range,
		   unsigned int page_shift);
	/**
	 * @put: drop the references of one earlier @get of the same range.
	 * Tables may be freed only once the TLB flush covering them completed.
	 */
	void (*put)(void *priv, uint64_t va, uint64_t range,
		    unsigned int page_shift);
	/**
	 * @map: commit phase. Point [@va, @va + @range) at @obj from
	 * @bo_offset (resolved with obj->ops->get_backing()), or, with
	 * NVL_VM_PT_NULL, at nothing (@obj NULL). @flags: enum
	 * nvl_vm_pt_flags.
	 */
	void (*map)(void *priv, uint64_t va, uint64_t range,
		    unsigned int page_shift, struct nvl_gem_object *obj,
		    uint64_t bo_offset, uint32_t flags);
	/**
	 * @unmap: commit phase. Invalidate [@va, @va + @range); with
	 * @to_sparse the PTEs become sparse (reads zero, writes dropped)
	 * instead of invalid, because the range lies in a sparse region.
	 */
	void (*unmap)(void *priv, uint64_t va, uint64_t range,
		      unsigned int page_shift, bool to_sparse);
	/**
	 * @sparse: commit phase. Make the unmapped range [@va, @va + @range)
	 * sparse (@enable) or invalid again (!@enable).
	 */
	void (*sparse)(void *priv, uint64_t va, uint64_t range, bool enable);
	/** @flush: commit phase. Invalidate the TLB for the range. */
	void (*flush)(void *priv, uint64_t va, uint64_t range);
	/**
	 * @take_error: optional. After a commit: did a write since the last
	 * call fail unexpectedly (e.g. a device error)? Return: 0, or a
	 * negative errno (and forget it). GPUVM marks the bind's fence with
	 * it and bans the VM.
	 */
	int (*take_error)(void *priv);
	/**
	 * @page_shift: optional, prepare phase. The largest page shift, at
	 * most @max_shift, that the backing of @obj from @bo_offset allows
	 * for a mapping of [@va, @va + @range) (pages must be physically
	 * contiguous and aligned like the VA). GPUVM caps its choice from
	 * VA, range and offset alignment with it; without the hook that
	 * choice stands and the backend must map whatever it is given.
	 * Return: a page shift <= @max_shift.
	 */
	unsigned int (*page_shift)(void *priv, struct nvl_gem_object *obj,
				   uint64_t bo_offset, uint64_t va,
				   uint64_t range, unsigned int max_shift);
	/**
	 * @get_region: optional, prepare phase. @get for a sparse region:
	 * reference only what @sparse needs to write [@va, @va + @range)
	 * at the highest levels that cover it; mappings placed inside the
	 * region take their own references with @get. Without it GPUVM
	 * calls @get at the VM's page size.
	 * Return: 0, or -ENOMEM (nothing taken).
	 */
	int (*get_region)(void *priv, uint64_t va, uint64_t range);
	/**
	 * @put_region: drop the references of one earlier @get_region of
	 * the same range (required with @get_region).
	 */
	void (*put_region)(void *priv, uint64_t va, uint64_t range);
	/**
	 * @prefetch: optional hint, any phase: a bind is about to prepare
	 * [@va, @va + @range). The backend may start loading what its @get
	 * will read (its directory entries, its index) so that those cache
	 * misses overlap GPUVM's own search. Must not allocate, lock or fail.
	 */
	void (*prefetch)(void *priv, uint64_t va, uint64_t range);
	/**
	 * @lock: optional (with @unlock). Hold the backend's lock across
	 * many of the calls above: until @unlock, the calling thread's
	 * calls on @priv do not lock again, and no other thread's run. GPUVM
	 * holds it over a whole bind (its prepare, commit and finish, or
	 * each of them) so that a call of N ops takes the lock once, not
	 * 4N times. Nothing that waits for a bind may run under it.
	 */
	void (*lock)(void *priv);
	/** @unlock: release what @lock took (required with @lock). */
	void (*unlock)(void *priv);
	/**
	 * @ready: optional. May the page tables change now? Asked before a
	 * bind (sync or async) builds anything; an error fails the call with
	 * nothing changed. A device's tables cannot while it is suspended:
	 * they are saved in system memory and written back on resume, over
	 * any change made meanwhile.
	 * Return: 0, or a negative errno with a message (-EAGAIN).
	 */
	int (*ready)(void *priv);
};

#endif /* NVL_VM_PT_BACKEND_H */

/* SPDX-License-Identifier: MIT */
/*
 * GPUVM: the generic GPU virtual-address manager.
 *
 * A struct nvl_gpuvm covers the VA window [start, end) minus a
 * kernel-reserved range. It holds
 *  - the mappings (struct nvl_gpuva) in an interval B+tree (base/ibtree.h),
 *  - the sparse regions (struct nvl_gpuvm_region) in an interval tree
 *    (base/itree.h; there are few of them),
 *  - one struct nvl_gpuvm_bo per (VM, GEM object) pair, linked on the
 *    object's gpuva.list, with the external ones on the VM's extobj list and
 *    the evicted ones on its evict list,
 *  - the page-table backend (struct nvl_vm_pt_ops) it drives.
 *
 * Changes go through operation lists (struct nvl_gpuvm_ops, split/merge in
 * sm.c) applied by a transaction (struct nvl_gpuvm_txn, txn.c) in two
 * phases: prepare (allocates) and commit (page-table writes only, inside a
 * fence-signalling section). The tree changes when an op list is applied,
 * so the next op list of the same call sees the result.
 *
 * Locking: @lock protects the trees, the regions and the transaction state;
 * a global lock protects every GEM object's gpuva.list and the extobj and
 * evict lists (nvl_gpuvm_gem_lock()).
 */
#ifndef NVL_VM_GPUVM_H
#define NVL_VM_GPUVM_H

#include <pthread.h>

#include "base/compiler.h"
#include "base/ibtree.h"
#include "base/itree.h"
#include "base/list.h"
#include "base/refcount.h"
#include "sync/flock.h"
#include "vm/pt_backend.h"

struct nvl_gem_object;
struct nvl_gpuvm;
struct nvl_gpuvm_bo;

/** enum nvl_gpuva_flags - per-mapping flags. */
enum nvl_gpuva_flags {
	/** @NVL_GPUVA_READONLY: GPU writes fault */
	NVL_GPUVA_READONLY = 1u << 0,
	/** @NVL_GPUVA_NULL: no BO; reads zero, writes dropped (Xe NULL) */
	NVL_GPUVA_NULL = 1u << 1,
	/** @NVL_GPUVA_NOATOMIC: GPU atomics fault (reads and writes do not) */
	NVL_GPUVA_NOATOMIC = 1u << 2,
	/** @NVL_GPUVA_LAZY: no PTE written at bind; pages map on fault */
	NVL_GPUVA_LAZY = 1u << 5,
	/** @NVL_GPUVA_PENDING: page tables not yet written (async job) */
	NVL_GPUVA_PENDING = 1u << 3,
	/** @NVL_GPUVA_REMOVED: out of the tree, freed when no longer pending */
	NVL_GPUVA_REMOVED = 1u << 4,
	/**
	 * @NVL_GPUVA_KEPT: a REMAP piece that keeps the page-table entries of
	 * a committed mapping (same BO, offset, flags and page size): while
	 * PENDING its entries are already right, so a replayable fault in it
	 * is served
	 */
	NVL_GPUVA_KEPT = 1u << 6,
};

/** Flags a client may request on a map (the rest are GPUVM's). */
#define NVL_GPUVA_USER_FLAGS                                                   \
	(NVL_GPUVA_READONLY | NVL_GPUVA_NULL | NVL_GPUVA_NOATOMIC |            \
	 NVL_GPUVA_LAZY)

/**
 * struct nvl_gpuva - one mapping: [addr, addr + range) -> BO @ bo_offset.
 * 64 bytes; allocated from the VM's node cache. The tree's own nodes (a few
 * bytes per mapping) come from the tree's pool.
 */
struct nvl_gpuva {
	/** @node: start = addr, last = addr + range - 1 */
	struct nvl_ibtree_entry node;
	/** @vm_bo: the (VM, BO) link; NULL for NULL mappings */
	struct nvl_gpuvm_bo *vm_bo;
	/** @bo_offset: byte offset into the BO */
	uint64_t bo_offset;
	/** @bo_link: entry in vm_bo->vas */
	struct nvl_list bo_link;
	/** @flags: enum nvl_gpuva_flags */
	uint16_t flags;
	/** @page_shift: page size the page tables use for it */
	uint8_t page_shift;
	/**
	 * @written: while PENDING, its bind's commit has run (the entries
	 * are written, or left invalid for a backing still being filled):
	 * validate may rewrite them before the bind's finish clears PENDING
	 */
	_Atomic uint8_t written;
};

_Static_assert(sizeof(struct nvl_gpuva) <= 64, "mapping node grew");

static inline uint64_t nvl_gpuva_addr(const struct nvl_gpuva *va)
{
	return va->node.start;
}

static inline uint64_t nvl_gpuva_range(const struct nvl_gpuva *va)
{
	return va->node.last - va->node.start + 1;
}

static inline uint64_t nvl_gpuva_end(const struct nvl_gpuva *va)
{
	return va->node.last + 1;
}

struct nvl_gem_object *nvl_gpuva_obj(const struct nvl_gpuva *va);

/**
 * nvl_gpuva_pt_flags() - the page-table flags (NVL_VM_PT_*) that @va's
 * mapping flags ask for: one translation for every writer of its PTEs
 * (a bind's commit, revalidation, a replayable fault's service).
 */
static inline uint32_t nvl_gpuva_pt_flags(const struct nvl_gpuva *va)
{
	uint32_t f = 0;

	if (va->flags & NVL_GPUVA_READONLY)
		f |= NVL_VM_PT_READONLY;
	if (va->flags & NVL_GPUVA_NULL)
		f |= NVL_VM_PT_NULL;
	if (va->flags & NVL_GPUVA_NOATOMIC)
		f |= NVL_VM_PT_NOATOMIC;
	return f;
}

/** struct nvl_gpuvm_region - a sparse region (Nouveau semantics). */
struct nvl_gpuvm_region {
	/** @node: [start, last] of the region */
	struct nvl_itree_node node;
	/**
	 * @dead_seq: 0 while live; else the transaction that destroyed it
	 * (it stays in the tree, ignored, until that transaction finishes)
	 */
	uint64_t dead_seq;
};

/**
 * struct nvl_gpuvm_bo - the link between one VM and one GEM object: holds a
 * reference on the object, lists the object's mappings in the VM.
 */
struct nvl_gpuvm_bo {
	struct nvl_gpuvm *vm;
	struct nvl_gem_object *obj;
	/** @ref: one per mapping plus transient users */
	struct nvl_kref ref;
	/** @vas: struct nvl_gpuva.bo_link, in link order */
	struct nvl_list vas;
	/** @gem_link: entry in obj->gpuva.list */
	struct nvl_list gem_link;
	/** @extobj_link: entry in vm->extobj (external objects only) */
	struct nvl_list extobj_link;
	/** @evict_link: entry in vm->evict while @evicted */
	struct nvl_list evict_link;
	bool evicted;
	/**
	 * @mapped_leave: obj->leaves when the mappings were last written
	 * whole (made, or rewritten by nvl_gpuvm_bo_remap()), or one past
	 * the leave whose memory nvl_gpuvm_gem_unmap() took them off: they
	 * name no memory @obj left before that leave (vm->zap_lock)
	 */
	_Atomic uint64_t mapped_leave;
};

struct nvl_gpuvm_rebind;

/** struct nvl_gpuvm_bo_ops - driver callbacks for BO tracking. */
struct nvl_gpuvm_bo_ops {
	/**
	 * @validate: bring @vm_bo's object back into a GPU-usable placement
	 * and rewrite its mappings (called by nvl_gpuvm_validate with the
	 * object locked; for client VMs the caller also holds the VM's lock,
	 * as exec does). @defer: NULL, or (nvl_gpuvm_validate_defer()) the
	 * list a rewrite of a backing still being filled is recorded on,
	 * for nvl_gpuvm_bo_remap(). Return: 0 or a negative errno.
	 */
	int (*validate)(struct nvl_gpuvm_bo *vm_bo, void *priv,
			struct nvl_gpuvm_rebind **defer);
	/**
	 * @prefetch: optional: move @vm_bo's object to its preferred
	 * placement (bind PREFETCH). Return: 0 or a negative errno.
	 */
	int (*prefetch)(struct nvl_gpuvm_bo *vm_bo, void *priv);
};

/** struct nvl_gpuvm_args - what nvl_gpuvm_create() needs. */
struct nvl_gpuvm_args {
	const char *name;
	/** @start, @end: the VA window [start, end) in bytes */
	uint64_t start, end;
	/** @kernel_start, @kernel_range: the reserved window (range may be 0) */
	uint64_t kernel_start, kernel_range;
	/** @page_shift: smallest page size (bind granularity), e.g. 12 */
	unsigned int page_shift;
	/**
	 * @big_page_shifts: bit mask of larger page shifts the backend can
	 * use (e.g. 1 << 16 | 1 << 21); a mapping uses the largest one its
	 * address, range and BO offset are aligned to
	 */
	uint64_t big_page_shifts;
	const struct nvl_vm_pt_ops *pt_ops;
	void *pt_priv;
	const struct nvl_gpuvm_bo_ops *bo_ops;
	void *bo_priv;
	/**
	 * @resv: the VM's shared reservation object (VM-private BOs use it);
	 * may be NULL when the caller does no exec locking
	 */
	struct nvl_resv *resv;
};

/**
 * Free-list of 64-byte mapping nodes, refilled from slabs by a bump
 * pointer: a slab's untouched tail stays untouched (not resident).
 */
struct nvl_gpuvm_cache {
	void *free;
	size_t nfree;
	/** @bump, @bump_end: the newest slab's never-used nodes */
	struct nvl_gpuva *bump, *bump_end;
	/** @slabs: singly linked list of slabs, for teardown */
	void *slabs;
	/** @slab_B: size of the next slab */
	size_t slab_B;
};

struct nvl_gpuvm {
	struct nvl_kref ref;
	/*
	 * @lock: the VM lock (see docs/vm.md, Locks): an nvl_flock, inline
	 * and one atomic each way, for the one-op bind's two round trips
	 * (issue 19)
	 */
	struct nvl_flock lock;
	/**
	 * @zap_lock: every vm_bo->vas of this VM changes under it (and the
	 * VM lock), so that nvl_gpuvm_gem_unmap() can walk them from mm's
	 * move worker, which must not take the VM lock (held while waiting
	 * for fences); an inner lock, held only over list updates and the
	 * page-table writes of a remap or an unmap, never while allocating
	 */
	struct nvl_flock zap_lock;
	/**
	 * @zap_pins: nvl_gpuvm_gem_unmap() calls working on this VM;
	 * nvl_gpuvm_destroy() waits for none before freeing it
	 */
	_Atomic unsigned zap_pins;
	/** @nr_zapped: vm_bos whose entries the unmap hook took off */
	_Atomic uint64_t nr_zapped;
	uint64_t start, end;
	uint64_t kstart, kend;
	unsigned int page_shift;
	uint64_t big_page_shifts;
	/**
	 * @vas: the mappings; inserts only after nvl_ibtree_preload() in
	 * prepare, so apply and abort never allocate
	 */
	struct nvl_ibtree vas;
	/**
	 * @tree_room: inserts into @vas the last preload still covers (each
	 * insert, a transaction's or an abort's, takes one; removals give
	 * nodes back), so a call of many ops, and a run of one-op calls,
	 * preloads now and then instead of once per op (txn.c)
	 */
	uint32_t tree_room;
	struct nvl_itree regions;
	/**
	 * @region_hint: the live region the bind path found last
	 * (nvl_gpuvm_region_lookup(), VM lock); cleared when it is freed
	 */
	struct nvl_gpuvm_region *region_hint;
	const struct nvl_vm_pt_ops *pt;
	void *pt_priv;
	const struct nvl_gpuvm_bo_ops *bo_ops;
	void *bo_priv;
	struct nvl_resv *resv;
	/** @extobj: struct nvl_gpuvm_bo.extobj_link (global gem lock) */
	struct nvl_list extobj;
	/** @evict: struct nvl_gpuvm_bo.evict_link (global gem lock) */
	struct nvl_list evict;
	size_t nr_extobj, nr_evict;
	struct nvl_gpuvm_cache cache;
	/**
	 * @spare_log, @spare_cmd: heap logs of a finished transaction, kept
	 * for the next one (with their capacities) so that a bind of many ops
	 * does not grow its logs from scratch every call (VM lock)
	 */
	void *spare_log, *spare_cmd;
	uint32_t spare_caplog, spare_capcmd;
	/**
	 * @spare_bo: the memory of the last vm_bo freed, for the next one
	 * (a tile bound and unbound again creates and frees its vm_bo every
	 * time); swapped atomically, as a last put may run without the lock
	 */
	_Atomic(struct nvl_gpuvm_bo *) spare_bo;
	/**
	 * @spare_bo_locked: the same, left by a put under the VM lock (a
	 * transaction freeing a mapping) for the next obtain, which runs
	 * under it too: two locked instructions fewer per vm_bo freed and
	 * made again (a tile unbound and bound again)
	 */
	struct nvl_gpuvm_bo *spare_bo_locked;
	/**
	 * @bo_hint: the vm_bo obtained last (VM lock): a BO mapped again
	 * takes its reference without the global lock (vm_bo.c)
	 */
	struct nvl_gpuvm_bo *bo_hint;
	/**
	 * @graveyard: vm_bos whose last put ran without the VM lock while
	 * @spare_bo was taken, linked through gem_link.next; freed by the
	 * next obtain (only the VM lock's holder frees vm_bo memory)
	 */
	_Atomic(struct nvl_gpuvm_bo *) graveyard;
	/** @cur_seq: the transaction being built (0: none) */
	uint64_t cur_seq, next_seq;
	/**
	 * @cur_kills: the transaction being built destroyed a region (only
	 * then can a map of it meet one: sm.c's dead_in_txn())
	 */
	bool cur_kills;
	/** @dead: an async commit failed; every later call returns -ENOENT */
	bool dead;
	/**
	 * @no_bulk: tests only: apply every op of a call one at a time (no
	 * nvl_gpuvm_txn_bulk()), the reference the bulk path is checked
	 * against
	 */
	bool no_bulk;
	/**
	 * @nr_bulk: requests applied by nvl_gpuvm_txn_bulk() (tests; wraps).
	 * These two sit in what was padding: the struct keeps its size.
	 */
	uint32_t nr_bulk;
	char name[32];
};

/**
 * nvl_gpuvm_create() - make an empty VM.
 * @args: window, reserved range, page sizes, backend
 * @vm_out: the VM (one reference)
 *
 * Return: 0; -EINVAL for an empty or unaligned window, a reserved range
 * outside it, or a missing backend; -ENOMEM.
 */
int nvl_gpuvm_create(const struct nvl_gpuvm_args *args,
		     struct nvl_gpuvm **vm_out) NVL_MUST_CHECK;

/**
 * nvl_gpuvm_destroy() - unmap everything (page tables included), drop the
 * regions and free the VM. No transaction may be pending.
 * @vm: the VM, may be NULL
 */
void nvl_gpuvm_destroy(struct nvl_gpuvm *vm);

/**
 * nvl_gpuvm_range_valid() - is [@addr, @addr + @range) a non-empty range
 * inside the window, outside the reserved range, without overflow?
 * @vm: the VM
 * @addr: start (bytes)
 * @range: length (bytes)
 *
 * Return: true when valid (alignment is not checked here).
 */
static inline bool nvl_gpuvm_range_valid(const struct nvl_gpuvm *vm,
					 uint64_t addr, uint64_t range)
{
	uint64_t end = addr + range;

	if (!range || end < addr)
		return false;
	if (addr < vm->start || end > vm->end)
		return false;
	return !(vm->kend && addr < vm->kend && end > vm->kstart);
}

/**
 * nvl_gpuvm_find_first() - the lowest mapping overlapping a range.
 * @vm: the VM (lock held)
 * @addr: start
 * @range: length (> 0)
 *
 * Return: the mapping, or NULL.
 */
struct nvl_gpuva *nvl_gpuvm_find_first(const struct nvl_gpuvm *vm,
				       uint64_t addr, uint64_t range);

/**
 * nvl_gpuvm_find_next() - the next mapping after @va overlapping a range.
 * @va: a mapping returned by find_first/find_next for the same range
 * @addr: start
 * @range: length
 *
 * Return: the mapping, or NULL.
 */
struct nvl_gpuva *nvl_gpuvm_find_next(const struct nvl_gpuva *va, uint64_t addr,
				      uint64_t range);

/**
 * nvl_gpuvm_find_at() - the mapping containing @addr.
 * @vm: the VM
 * @addr: an address
 *
 * Return: the mapping, or NULL.
 */
struct nvl_gpuva *nvl_gpuvm_find_at(const struct nvl_gpuvm *vm, uint64_t addr);

/**
 * nvl_gpuvm_find() - the mapping exactly at [@addr, @addr + @range).
 * Return: the mapping, or NULL.
 */
struct nvl_gpuva *nvl_gpuvm_find(const struct nvl_gpuvm *vm, uint64_t addr,
				 uint64_t range);

#define nvl_gpuvm_for_each_va_range(va, vm, addr, range)                       \
	for (va = nvl_gpuvm_find_first(vm, addr, range); va;                   \
	     va = nvl_gpuvm_find_next(va, addr, range))

/**
 * nvl_gpuvm_first_va() - the lowest mapping of @vm.
 * @vm: the VM (lock held)
 *
 * Return: the mapping, or NULL when there is none.
 */
struct nvl_gpuva *nvl_gpuvm_first_va(const struct nvl_gpuvm *vm);

/**
 * nvl_gpuvm_next_va() - the mapping after @va in address order.
 * @va: a mapping in the tree
 *
 * Return: the mapping, or NULL.
 */
struct nvl_gpuva *nvl_gpuvm_next_va(const struct nvl_gpuva *va);

/**
 * nvl_gpuvm_region_find_first() - the lowest live sparse region
 * overlapping [@addr, @addr + @range).
 * Return: the region, or NULL.
 */
struct nvl_gpuvm_region *nvl_gpuvm_region_find_first(const struct nvl_gpuvm *vm,
						     uint64_t addr,
						     uint64_t range);

/* nvl_gpuvm_region_lookup() past its hint: the tree walk (gpuvm.c) */
struct nvl_gpuvm_region *nvl_gpuvm_region_lookup_walk(struct nvl_gpuvm *vm,
						      uint64_t addr,
						      uint64_t range);

/**
 * nvl_gpuvm_region_lookup() - nvl_gpuvm_region_find_first() for the bind
 * path, under the VM lock: a range inside the live region found last is
 * answered without a tree walk (a batch of tiles asks about one region
 * three times per op).
 * @vm: the VM (its lock held)
 * @addr: start (bytes)
 * @range: length (bytes), not 0
 *
 * Return: the region, or NULL.
 */
static inline struct nvl_gpuvm_region *
nvl_gpuvm_region_lookup(struct nvl_gpuvm *vm, uint64_t addr, uint64_t range)
{
	struct nvl_gpuvm_region *r = vm->region_hint;

	/* live regions never overlap: one holding the range is the only one */
	if (r && !r->dead_seq && r->node.start <= addr &&
	    addr + range - 1 <= r->node.last)
		return r;
	return nvl_gpuvm_region_lookup_walk(vm, addr, range);
}

/** nvl_gpuvm_region_next() - next region overlapping the range, or NULL. */
struct nvl_gpuvm_region *nvl_gpuvm_region_next(const struct nvl_gpuvm_region *r,
					       uint64_t addr, uint64_t range);

/**
 * nvl_gpuvm_region_pt_get() - prepare the page tables of a sparse region
 * (the backend's get_region, else get at the VM's page size).
 * Return: 0 or -ENOMEM.
 */
int nvl_gpuvm_region_pt_get(struct nvl_gpuvm *vm, uint64_t addr,
			    uint64_t range);

/** nvl_gpuvm_region_pt_put() - undo nvl_gpuvm_region_pt_get(). */
void nvl_gpuvm_region_pt_put(struct nvl_gpuvm *vm, uint64_t addr,
			     uint64_t range);

/**
 * nvl_gpuvm_page_shift_for() - the page shift a mapping of [@addr,
 * @addr + @range) at @bo_offset of @obj uses: the largest supported size
 * all three are aligned to and, when the backend has the page_shift hook
 * and @obj is not NULL, that @obj's backing allows.
 */
unsigned int nvl_gpuvm_page_shift_for(const struct nvl_gpuvm *vm,
				      struct nvl_gem_object *obj, uint64_t addr,
				      uint64_t range, uint64_t bo_offset);

/* ---- node cache (vm.c) ------------------------------------------------ */

/**
 * nvl_gpuvm_va_alloc() - a zeroed mapping node from the VM's cache.
 * Return: the node, or NULL (-ENOMEM).
 */
struct nvl_gpuva *nvl_gpuvm_va_alloc(struct nvl_gpuvm *vm);

/** nvl_gpuvm_va_free() - give a node back to the cache. */
void nvl_gpuvm_va_free(struct nvl_gpuvm *vm, struct nvl_gpuva *va);

/* ---- vm_bo (vm_bo.c) -------------------------------------------------- */

/**
 * nvl_gpuvm_bo_obtain() - the vm_bo of (@vm, @obj), created and linked if
 * there is none, with a reference.
 * Return: the vm_bo, or NULL (-ENOMEM).
 */
struct nvl_gpuvm_bo *nvl_gpuvm_bo_obtain(struct nvl_gpuvm *vm,
					 struct nvl_gem_object *obj);

/**
 * nvl_gpuvm_bo_find() - the vm_bo of (@vm, @obj) with a reference, or NULL.
 */
struct nvl_gpuvm_bo *nvl_gpuvm_bo_find(struct nvl_gpuvm *vm,
				       struct nvl_gem_object *obj);

/** nvl_gpuvm_bo_get() - take a reference. */
void nvl_gpuvm_bo_get(struct nvl_gpuvm_bo *vm_bo);

/**
 * nvl_gpuvm_bo_put() - drop a reference; the last one unlinks the vm_bo
 * from the object and the VM's lists, drops its object reference and
 * frees it.
 */
void nvl_gpuvm_bo_put(struct nvl_gpuvm_bo *vm_bo);

/**
 * nvl_gpuvm_bo_put_locked() - nvl_gpuvm_bo_put() by a caller that holds
 * the VM's lock (the transaction's, or is its only user): a freed vm_bo's
 * memory is kept for the next obtain without an atomic swap.
 */
void nvl_gpuvm_bo_put_locked(struct nvl_gpuvm_bo *vm_bo);

/** nvl_gpuvm_bo_is_extobj() - does @vm_bo's object have its own resv? */
bool nvl_gpuvm_bo_is_extobj(const struct nvl_gpuvm_bo *vm_bo);

/**
 * nvl_gpuvm_bo_evict() - mark @vm_bo evicted (on the VM's evict list) or
 * back (off the list). Idempotent.
 */
void nvl_gpuvm_bo_evict(struct nvl_gpuvm_bo *vm_bo, bool evicted);

/**
 * nvl_gpuvm_bo_relist() - put @vm_bo on the VM's evict list, its "evicted"
 * unchanged, so that the next validate rewrites its mappings (a bind's
 * commit left some invalid: the backing was still being filled). May be
 * called in a fence-signalling section.
 */
void nvl_gpuvm_bo_relist(struct nvl_gpuvm_bo *vm_bo);

/**
 * nvl_gpuvm_gem_evict() - the eviction hook for mm: lists every vm_bo of
 * @obj (in every VM) on its VM's evict list and marks it evicted (@evicted
 * true), or not (false: @obj moved in, back or out of a fallback place):
 * its mappings still point where @obj was until validate rewrites them.
 */
void nvl_gpuvm_gem_evict(struct nvl_gem_object *obj, bool evicted);

struct nvl_fence;

/**
 * nvl_gpuvm_gem_deps() - the dependency hook for mm (mm/gem.h
 * nvl_gem_deps_fn): appends the BOOKKEEP fences of every VM that maps @obj
 * through its own resv, which the memory @obj leaves must wait for before
 * it is used again (the page-table entries stay until validate).
 * Return: 0 or -ENOMEM.
 */
int nvl_gpuvm_gem_deps(struct nvl_gem_object *obj, unsigned *n,
		       struct nvl_fence ***fences);

/**
 * nvl_gpuvm_gem_unmap() - the unmap hook for mm (mm/gem.h
 * nvl_gem_unmap_fn): invalidates, in every VM, the page-table entries of
 * each vm_bo of @obj whose mappings may still name memory @obj left at
 * leave number @leave (mapped_leave <= @leave), and the TLB over them.
 * The vm_bos stay on their evict lists: the next validate maps them
 * where @obj is. Takes the global gem lock and each VM's zap_lock only.
 */
void nvl_gpuvm_gem_unmap(struct nvl_gem_object *obj, uint64_t leave);

/**
 * nvl_gpuvm_rezap_evicted() - invalidate again the page-table entries of
 * every mapping of a vm_bo on @vm's evict list, and the TLB over them:
 * for a driver that wrote the VM's tables back from a copy taken before
 * unmap-hook calls (nvl_gpuvm_gem_unmap()) that may have run since (a
 * resume from suspend). Takes the VM lock, the zap lock and the gem lock.
 * @vm: the VM
 */
void nvl_gpuvm_rezap_evicted(struct nvl_gpuvm *vm);

/**
 * nvl_gpuvm_validate() - call bo_ops->validate for every evicted vm_bo;
 * a vm_bo leaves the evict list only when the callback succeeded and
 * cleared its "evicted" (nvl_gpuvm_bo_evict(vm_bo, false), which mm's
 * eviction hook does when the object moves back), as in the kernel.
 * Return: 0, -EOPNOTSUPP without a validate callback, or the first error.
 */
int nvl_gpuvm_validate(struct nvl_gpuvm *vm);

/**
 * nvl_gpuvm_validate_defer() - nvl_gpuvm_validate() for an exec: a BO whose
 * new backing is still being filled (its move's copy waits for jobs that
 * may use the old entries) is not rewritten now; what to write is recorded
 * on *@list instead, for nvl_gpuvm_rebind_run() from the exec's job, which
 * waits for the move. VM lock held (and every object's resv).
 * @vm: the VM
 * @list: out: the deferred rewrites (NULL: none); the caller frees them
 *	with nvl_gpuvm_rebind_free()
 *
 * Return: as nvl_gpuvm_validate(), -ENOMEM recording a rewrite; on failure
 * *@list is NULL and nothing was deferred.
 */
int nvl_gpuvm_validate_defer(struct nvl_gpuvm *vm,
			     struct nvl_gpuvm_rebind **list) NVL_MUST_CHECK;

/**
 * nvl_gpuvm_rebind_defer() - record the rewrite of @vm_bo's mappings to
 * its object's backing as it is now (the snapshot the job writes), with a
 * vm_bo reference, at the head of *@list. VM lock and the object's resv
 * held. Nothing is recorded when @vm_bo has no mapping.
 * @vm_bo: the (VM, object) link
 * @list: the exec's deferred rewrites
 *
 * Return: 0 or -ENOMEM (nothing recorded).
 */
int nvl_gpuvm_rebind_defer(struct nvl_gpuvm_bo *vm_bo,
			   struct nvl_gpuvm_rebind **list) NVL_MUST_CHECK;

/**
 * nvl_gpuvm_rebind_run() - write the deferred rewrites of @list: every
 * mapping on each vm_bo now (not those of validate: one unmapped since is
 * not written, one made or split since is, with its own flags; one whose
 * bind has not committed is left to it), from the recorded backing, and
 * invalidate the TLB. No lock held (the zap lock is taken); in a
 * fence-signalling section it neither allocates nor waits. Run once every
 * move they wait for has signalled (the exec's job's run).
 * @list: the rewrites (may be NULL)
 *
 * Return: 0 or the backend's first error (take_error).
 */
int nvl_gpuvm_rebind_run(struct nvl_gpuvm_rebind *list);

/**
 * nvl_gpuvm_rebind_free() - drop @list, run or not (vm_bo references go:
 * not in a signalling section).
 * @list: the rewrites (may be NULL)
 */
void nvl_gpuvm_rebind_free(struct nvl_gpuvm_rebind *list);

/**
 * nvl_gpuvm_bo_remap() - rewrite the page-table entries of every committed
 * mapping of @vm_bo from its object's current backing, then invalidate the
 * TLB over them (after the object moved: exec's revalidation). Mappings
 * still PENDING are left to their bind, which writes them when it runs.
 * Caller holds the VM's lock and the object's resv. With @defer (an
 * exec's validate: nvl_gpuvm_validate_defer()), a backing still being
 * filled is not mapped: the rewrite is recorded on *@defer for the exec's
 * job (@pending set: the vm_bo stays listed).
 * @vm_bo: the (VM, object) link
 * @defer: NULL (rewrite now), or the validate callback's @defer
 * @pending: set to true when a mapping was skipped because it is pending
 *
 * Return: 0, or the backend's error (take_error) after the writes, or
 * -ENOMEM recording a deferred rewrite.
 */
int nvl_gpuvm_bo_remap(struct nvl_gpuvm_bo *vm_bo,
		       struct nvl_gpuvm_rebind **defer, bool *pending);

/**
 * nvl_gpuvm_gem_lock() - take the lock of every GEM object's gpuva.list and
 * of the extobj/evict lists (a leaf: never allocate or wait under it).
 */
void nvl_gpuvm_gem_lock(void);

/** nvl_gpuvm_gem_unlock() - release nvl_gpuvm_gem_lock(). */
void nvl_gpuvm_gem_unlock(void);

/**
 * nvl_gpuvm_extobj_count() - vm_bos on @vm's extobj list.
 * @vm: the VM
 *
 * Return: the count.
 */
size_t nvl_gpuvm_extobj_count(struct nvl_gpuvm *vm);

/**
 * nvl_gpuvm_evict_count() - vm_bos on @vm's evict list.
 * @vm: the VM
 *
 * Return: the count.
 */
size_t nvl_gpuvm_evict_count(struct nvl_gpuvm *vm);

#endif /* NVL_VM_GPUVM_H */

/* SPDX-License-Identifier: MIT */
/*
 * The GEM object: the part of a buffer object that the generic layers above
 * memory management (GPUVM, exec, the scheduler's implicit sync) need. The
 * memory manager's struct nvl_bo embeds it (src/mm/bo.h); GPUVM only ever
 * sees struct nvl_gem_object, as drm_gpuvm only sees drm_gem_object.
 *
 * Contract between src/mm (owner) and src/vm (user). Extend, don't break.
 */
#ifndef NVL_MM_GEM_H
#define NVL_MM_GEM_H

#include "base/compiler.h"
#include "base/list.h"
#include "base/refcount.h"

struct nvl_resv;
struct nvl_gem_object;

/** Where a byte of a GEM object lives, for page-table backends. */
enum nvl_gem_domain {
	NVL_GEM_DOMAIN_NONE = 0, /* no backing (swapped out / not populated) */
	NVL_GEM_DOMAIN_VRAM = 1,
	NVL_GEM_DOMAIN_GTT = 2, /* system pages the GPU can reach */
	NVL_GEM_DOMAIN_SYSTEM = 3,
};

/** struct nvl_gem_backing - one physically contiguous piece of backing. */
struct nvl_gem_backing {
	enum nvl_gem_domain domain;
	/**
	 * @addr: VRAM offset, or DMA address of system pages (until the device
	 * provides an IOMMU mapping, the pages' CPU address)
	 */
	uint64_t addr;
	/** @len_B: bytes contiguous from @addr (>= 4 KiB) */
	uint64_t len_B;
	/**
	 * @pending: the memory does not hold the object's content yet: a
	 * move or clear into it is queued (its fence is the object's KERNEL
	 * fence). A job that waits for that fence may use it; one that does
	 * not (queued before the move, which waits for it) must not reach it
	 */
	bool pending;
};

struct nvl_gem_ops {
	/** @free: last reference dropped: release the object. */
	void (*free)(struct nvl_gem_object *obj);
	/**
	 * @get_backing: where byte @offset of @obj lives now (caller holds
	 * obj->resv). The caller zeroes @out first: an object that knows
	 * nothing of @pending leaves it false. Return: 0, -ENOENT if not
	 * resident.
	 */
	int (*get_backing)(struct nvl_gem_object *obj, uint64_t offset,
			   struct nvl_gem_backing *out);
	/**
	 * @move_pending: optional; a move or clear into @obj's current
	 * backing is still queued (what get_backing() reports as @pending),
	 * without any lock, in any context (a bind's commit asks before it
	 * maps). A move that starts after the answer is heard by the
	 * eviction hooks (nvl_gem_evict_fn).
	 */
	bool (*move_pending)(struct nvl_gem_object *obj);
	/**
	 * @resident: optional; @obj has backing now (false: swapped out or
	 * purged, get_backing() says -ENOENT), read under a leaf lock at
	 * most: not from a fence-signalling section that holds it. GPUVM
	 * asks when it links a new vm_bo, which heard none of the evictions
	 * before it existed: a non-resident object's vm_bo goes on the evict
	 * list, so that the next exec's validate brings it back and maps it.
	 */
	bool (*resident)(struct nvl_gem_object *obj);
};

struct nvl_gem_object {
	/** @ref: reference count; nvl_gem_get/put */
	struct nvl_kref ref;
	/** @size_B: size in bytes, a multiple of 4 KiB */
	uint64_t size_B;
	/**
	 * @resv: the reservation object guarding this object: its own
	 * (@_resv's storage, allocated by mm) or, for a BO private to a VM,
	 * the VM's shared one
	 */
	struct nvl_resv *resv;
	/** @gpuva: GPUVM's list of struct nvl_vm_bo for this object */
	struct {
		/**
		 * @gpuva.list: vm_bos, protected by @gpuva.lock_owner's lock
		 */
		struct nvl_list list;
	} gpuva;
	/** @vm_private: non-NULL when created private to that VM */
	void *vm_private;
	/** @ops: owner's callbacks */
	const struct nvl_gem_ops *ops;
	/** @client_id: id of the client that created it (accounting) */
	uint64_t client_id;
	/**
	 * @leaves: how many times memory has left this object (an eviction,
	 * a validate move, a purge, a swap-out): mm counts, under @resv,
	 * when it commits to the move; GPUVM stamps a vm_bo with it when it
	 * rewrites the vm_bo's mappings (nvl_gem_unmap_fn)
	 */
	_Atomic uint64_t leaves;
};

static inline void nvl_gem_get(struct nvl_gem_object *obj)
{
	nvl_kref_get(&obj->ref);
}

static inline void nvl_gem_put(struct nvl_gem_object *obj)
{
	if (obj && nvl_kref_put(&obj->ref))
		obj->ops->free(obj);
}

struct nvl_client;

/**
 * nvl_gem_lookup() - the GEM object behind a client's BO handle, with a
 * reference (implemented by mm). Return: the object, or NULL.
 */
struct nvl_gem_object *nvl_gem_lookup(struct nvl_client *client,
				      uint32_t handle);

/**
 * typedef nvl_gem_evict_fn - called by mm with obj->resv held when @obj's
 * backing moves out (@evicted true) or back in, or anywhere else (false):
 * after either, mappings of the old backing are stale. GPUVM installs one
 * to keep its evict lists. Must not allocate or sleep.
 */
typedef void (*nvl_gem_evict_fn)(struct nvl_gem_object *obj, bool evicted);

/** NVL_GEM_EVICT_HOOKS - how many eviction hooks can be installed at once. */
#define NVL_GEM_EVICT_HOOKS 4

/**
 * nvl_gem_add_evict_hook() - add @fn to the hooks mm calls on every
 * eviction and restore (implemented by mm). Adding a hook already present
 * does nothing. Safe against concurrent evictions and other adds.
 * Return: 0, or -ENOSPC when NVL_GEM_EVICT_HOOKS hooks are installed.
 */
int nvl_gem_add_evict_hook(nvl_gem_evict_fn fn) NVL_MUST_CHECK;

/** nvl_gem_remove_evict_hook() - remove @fn (no-op if absent). */
void nvl_gem_remove_evict_hook(nvl_gem_evict_fn fn);

struct nvl_fence;

/**
 * typedef nvl_gem_deps_fn - called by mm with obj->resv held before the
 * memory @obj leaves (an eviction, a validate move, a purge) can be used
 * again: append to
 * *@fences (an nvl_malloc'd array of *@n references, NULL when empty) the
 * fences of work that may still reach that memory but is not on @obj's
 * resv. GPUVM installs one: the jobs of every VM that maps @obj (a job
 * submitted before @obj was bound there is on the VM's resv only, and the
 * page-table entries stay until the next exec's validate). May allocate.
 * With @fences NULL (the shrinker, which must not allocate): only set *@n
 * to how many of those sources are still busy, allocating nothing.
 * Return: 0, or -ENOMEM (the array may have grown: the caller puts and
 * frees what it holds, as always).
 */
typedef int (*nvl_gem_deps_fn)(struct nvl_gem_object *obj, unsigned *n,
			       struct nvl_fence ***fences);

/**
 * nvl_gem_set_deps_hook() - install @fn (NULL: none) as the hook of
 * nvl_gem_deps_fn (implemented by mm); one at a time, the last set wins.
 */
void nvl_gem_set_deps_hook(nvl_gem_deps_fn fn);

/**
 * typedef nvl_gem_unmap_fn - called by mm once the memory @obj left at its
 * leave number @leave (the value of obj->leaves before that leave) will
 * not be used by the jobs that were allowed to (the fences of
 * nvl_gem_deps_fn and of @obj's resv have signalled) and before anyone
 * else may use it: make whatever still maps that memory unable to reach
 * it. GPUVM installs one: it invalidates the page-table entries of every
 * vm_bo of @obj not rewritten since (and the TLB), so that a job still
 * running when its fence said done (a fence seqno forged in memory the
 * job could write) faults in its own VM instead of reaching the memory's
 * next owner; the vm_bo stays on its VM's evict list and the next
 * validate maps where @obj is now (Nouveau's move_notify unmaps the same
 * way). Runs in mm's move worker, a fence-signalling path, with no lock
 * held (or in the shrinker with @obj's resv held): must not allocate, wait
 * for a fence or take a lock held while waiting for one. Cannot fail.
 */
typedef void (*nvl_gem_unmap_fn)(struct nvl_gem_object *obj, uint64_t leave);

/**
 * nvl_gem_set_unmap_hook() - install @fn (NULL: none) as the hook of
 * nvl_gem_unmap_fn (implemented by mm); one at a time, the last set wins.
 */
void nvl_gem_set_unmap_hook(nvl_gem_unmap_fn fn);

#endif /* NVL_MM_GEM_H */

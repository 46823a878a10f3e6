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

struct nvl_gem_ops {
	/** @free: last reference dropped: release the object. */
	void (*free)(struct nvl_gem_object *obj);
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
		/** @gpuva.list: vm_bos, protected by @gpuva.lock_owner's lock */
		struct nvl_list list;
	} gpuva;
	/** @vm_private: non-NULL when created private to that VM */
	void *vm_private;
	/** @ops: owner's callbacks */
	const struct nvl_gem_ops *ops;
	/** @client_id: id of the client that created it (accounting) */
	uint64_t client_id;
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

#endif /* NVL_MM_GEM_H */

// SPDX-License-Identifier: MIT
/*
 * DOC: Locking a VM's objects for exec
 *
 * Before an exec, a driver locks the VM's shared reservation object (which
 * covers every BO private to the VM) and the reservation object of every
 * external BO on the VM's extobj list, with wound/wait retry, through the
 * sync layer's exec helper; then validates the evicted BOs. The extobj list
 * is snapshotted (with object references) under the global gem lock, since
 * taking a reservation lock may block: on the stack for up to 8 external
 * objects (no allocation per exec), in an allocated array beyond.
 */
#include <errno.h>

#include "base/alloc.h"
#include "base/log.h"
#include "mm/gem.h"
#include "sync/exec.h"
#include "vm/gpuvm.h"
#include "vm/vm_exec.h"

/* external objects snapshotted on the stack: no allocation per exec */
#define SNAP_INLINE 8

/*
 * Snapshot the extobj list with a reference on each object into @inl (room
 * for SNAP_INLINE) when it fits, else into an array allocated here. The
 * list is read under the global gem lock; the count may change between an
 * allocation and the next look, hence the loop.
 */
static int snapshot(struct nvl_gpuvm *vm, struct nvl_gem_object **inl,
		    struct nvl_gem_object ***objs_out, size_t *n_out)
{
	struct nvl_gem_object **objs = inl;
	size_t room = SNAP_INLINE, n, i;

	for (;;) {
		struct nvl_gpuvm_bo *vm_bo;

		nvl_gpuvm_gem_lock();
		n = vm->nr_extobj;
		if (n <= room) {
			i = 0;
			nvl_list_for_each_entry (vm_bo, &vm->extobj,
						 extobj_link) {
				objs[i++] = vm_bo->obj;
				nvl_gem_get(vm_bo->obj);
			}
			nvl_gpuvm_gem_unlock();
			*objs_out = objs;
			*n_out = i;
			return 0;
		}
		nvl_gpuvm_gem_unlock();
		if (objs != inl)
			nvl_free(objs);
		objs = nvl_calloc(n, sizeof(*objs));
		if (!objs)
			return -ENOMEM;
		room = n;
	}
}

NVL_HOT int nvl_gpuvm_prepare_objects(struct nvl_gpuvm *vm,
				      struct nvl_exec *exec,
				      unsigned int num_fences)
{
	struct nvl_gem_object *inl[SNAP_INLINE], **objs;
	size_t n = 0;
	int ret = 0;

	if (vm->resv) {
		ret = nvl_exec_prepare_obj(exec, vm->resv, num_fences);
		if (ret)
			return ret;
	}
	ret = snapshot(vm, inl, &objs, &n);
	if (ret)
		return ret;
	for (size_t i = 0; i < n; i++) {
		if (!ret && objs[i]->resv)
			ret = nvl_exec_prepare_obj(exec, objs[i]->resv,
						   num_fences);
		nvl_gem_put(objs[i]);
	}
	if (objs != inl)
		nvl_free(objs);
	return ret;
}

NVL_HOT int nvl_gpuvm_exec_lock(struct nvl_gpuvm *vm, struct nvl_exec *exec,
				unsigned int num_fences)
{
	int ret = 0;

	nvl_exec_init(exec, NVL_EXEC_IGNORE_DUPLICATES, 0);
	nvl_exec_until_all_locked(exec)
	{
		ret = nvl_gpuvm_prepare_objects(vm, exec, num_fences);
		nvl_exec_retry_on_contention(exec);
		if (ret)
			break;
	}
	if (ret)
		nvl_exec_fini(exec);
	return ret;
}

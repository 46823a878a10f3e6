// SPDX-License-Identifier: MIT
/*
 * DOC: on-demand paging (the generic half of a replayable fault)
 *
 * A VM created NVL_VM_CREATE_FAULTABLE takes NVL_VM_BIND_LAZY maps: the
 * bind reserves the range for the BO and gets its page tables (so that a
 * fault never allocates), but writes no entry. When the GPU touches such a
 * page the driver's fault service calls nvl_vm_fault_map(), which writes
 * the one page (of the mapping's page size) that covers the address from
 * the mapping's BO and offset, and flushes, exactly as a bind's commit
 * would. A mapping that moves with its BO is rewritten whole
 * (nvl_gpuvm_bo_remap), lazy or not: after a move every page is mapped.
 */
#include <errno.h>

#include "base/log.h"
#include "mm/gem.h"
#include "sync/checker.h"
#include "vm/gpuvm.h"
#include "vm/sm.h"
#include "vm/vm.h"

int nvl_vm_fault_map(struct nvl_vm *vm, uint64_t addr, bool write,
		     uint64_t *page_out, uint64_t *size_out)
{
	struct nvl_gpuvm *g = vm->gpuvm;
	const struct nvl_vm_pt_ops *pt = g->pt;
	struct nvl_signalling_cookie cookie;
	struct nvl_gem_object *obj;
	struct nvl_gpuva *va;
	uint64_t size, page;
	uint32_t flags = 0;
	int ret = 0;
	bool held;

	nvl_flock_lock(&g->lock);
	va = nvl_gpuvm_find_first(g, addr, 1);
	/*
	 * A pending mapping's bind has not written it yet, unless it is a
	 * piece of a committed one that keeps its entries (KEPT): the BO's
	 * pages there are the same before and after that bind.
	 */
	if (!va || !va->vm_bo ||
	    (va->flags & (NVL_GPUVA_REMOVED | NVL_GPUVA_NULL)) ||
	    (va->flags & (NVL_GPUVA_PENDING | NVL_GPUVA_KEPT)) ==
		    NVL_GPUVA_PENDING) {
		nvl_flock_unlock(&g->lock);
		return nvl_error(-ENOENT, "vm %s: no bound BO at %#llx",
				 g->name, (unsigned long long)addr);
	}
	if (write && (va->flags & NVL_GPUVA_READONLY)) {
		nvl_flock_unlock(&g->lock);
		return nvl_error(-EACCES,
				 "vm %s: write fault at %#llx in a read-only "
				 "mapping",
				 g->name, (unsigned long long)addr);
	}
	/*
	 * A move (or clear) into the BO's backing is still queued: the
	 * faulting job was queued before it (a later one waits for it), and
	 * the move waits for that job, so it cannot be made to wait here.
	 * Mapping the new memory would show it what was there before the
	 * copy; the fault is not serviced (after the move it is).
	 */
	obj = nvl_gpuva_obj(va);
	if (obj->ops->move_pending && obj->ops->move_pending(obj)) {
		nvl_flock_unlock(&g->lock);
		return nvl_error(-EBUSY,
				 "vm %s: fault at %#llx: the BO's move into "
				 "its memory is still queued",
				 g->name, (unsigned long long)addr);
	}
	/* the mapping's flags, as its bind would have written them; a move
	 * queued since the check leaves the page invalid (SETTLED) */
	flags = nvl_gpuva_pt_flags(va) | NVL_VM_PT_SETTLED;
	size = 1ull << va->page_shift;
	page = addr & ~(size - 1);
	held = nvl_gpuvm_pt_hold(g);
	cookie = nvl_fence_begin_signalling();
	pt->map(g->pt_priv, page, size, va->page_shift, obj,
		va->bo_offset + (page - nvl_gpuva_addr(va)), flags);
	pt->flush(g->pt_priv, page, size);
	if (pt->take_error)
		ret = pt->take_error(g->pt_priv);
	nvl_fence_end_signalling(cookie);
	nvl_gpuvm_pt_release(g, held);
	nvl_flock_unlock(&g->lock);
	if (ret)
		return nvl_error(ret, "vm %s: mapping the page at %#llx: %d",
				 g->name, (unsigned long long)page, ret);
	*page_out = page;
	*size_out = size;
	return 0;
}

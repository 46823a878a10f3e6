// SPDX-License-Identifier: MIT
/*
 * DOC: deferred rewrites of a moving BO's mappings (exec's validate)
 *
 * An exec's validate brings a BO back to its preferred placement; when the
 * copy that fills the new backing is still queued (it waits for every job
 * already allowed to use the BO, among them jobs of this VM queued earlier
 * on other channels), rewriting the BO's page-table entries at once would
 * show those earlier jobs the new memory before the copy: whatever it held
 * before, another client's freed bytes. So the rewrite is deferred, as Xe
 * makes its rebind a job that depends on the move: validate records what
 * to write (struct nvl_gpuvm_rebind), the exec's job carries it and writes
 * it when the job runs, after every one of its dependencies, the move's
 * fence among them, and before its pushbuffer reaches the ring. Until then
 * the old entries keep naming the memory the BO left, which the jobs queued
 * before the move may still use; once they are done, mm's unmap hook takes
 * those entries off (before the memory is used again), so between that and
 * the rewrite the range is invalid, and no job of the VM that may run then
 * touches it (the later ones wait for the move too).
 *
 * Where the mappings point is decided at validate, under the VM's lock and
 * the BO's resv: the backing the BO has then (a snapshot of its extents,
 * resolved through a GEM object of its own, so that a later move of the
 * BO, which waits for the exec's job, does not change what this job sees).
 * Which mappings are written is decided when the job runs: those on the
 * vm_bo's list then, read under the zap lock (the lock the unmap hook and
 * bind's list updates take), each with its own range, offset, page size
 * and flags. A mapping unmapped since validate is not brought back; the
 * pieces a partial unmap kept, and a mapping made since (its bind left it
 * invalid while the backing was being filled), name the BO's new place;
 * a mapping whose bind has not committed is left to that bind.
 * mapped_leave gets the leave count of the snapshot (unless such a bind is
 * outstanding), so the unmap hook of a later move still takes these
 * entries off.
 *
 * The vm_bo stays on the evict list: the next exec's validate rewrites it
 * once more (at once if the backing is settled by then) and takes it off.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "base/alloc.h"
#include "base/log.h"
#include "mm/gem.h"
#include "vm/gpuvm.h"
#include "vm/sm.h"

/* one piece of the backing at validate */
struct rebind_ext {
	uint64_t off, len, addr;
	enum nvl_gem_domain domain;
};

struct nvl_gpuvm_rebind {
	struct nvl_gpuvm_rebind *next;
	/* what the backend resolves: the backing as it was at validate */
	struct nvl_gem_object snap;
	struct nvl_gpuvm_bo *vm_bo; /* a reference */
	uint64_t leave; /* obj->leaves at validate */
	uint32_t next_n;
	struct rebind_ext *ext;
};

static void snap_free(struct nvl_gem_object *obj)
{
	(void)obj; /* never counted down: freed with its rebind */
}

/* the extent of the snapshot holding byte @offset */
static int snap_backing(struct nvl_gem_object *obj, uint64_t offset,
			struct nvl_gem_backing *out)
{
	const struct nvl_gpuvm_rebind *rb =
		container_of(obj, struct nvl_gpuvm_rebind, snap);
	uint32_t lo = 0, hi = rb->next_n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct rebind_ext *e = &rb->ext[mid];

		if (offset < e->off) {
			hi = mid;
		} else if (offset >= e->off + e->len) {
			lo = mid + 1;
		} else {
			if (e->domain == NVL_GEM_DOMAIN_NONE)
				return -ENOENT;
			out->domain = e->domain;
			out->addr = e->addr + (offset - e->off);
			out->len_B = e->len - (offset - e->off);
			out->pending = false;
			return 0;
		}
	}
	return -ENOENT;
}

static const struct nvl_gem_ops snap_ops = {
	.free = snap_free,
	.get_backing = snap_backing,
};

/* the pieces of @obj's backing from @off: one, at least a page */
static uint64_t piece(struct nvl_gem_object *obj, uint64_t off,
		      struct rebind_ext *e)
{
	struct nvl_gem_backing bk = {0};
	uint64_t left = obj->size_B - off;

	e->off = off;
	if (obj->ops->get_backing(obj, off, &bk) ||
	    bk.domain == NVL_GEM_DOMAIN_NONE || bk.len_B < 4096) {
		e->domain = NVL_GEM_DOMAIN_NONE;
		e->addr = 0;
		e->len = NVL_MIN(left, 4096);
		return e->len;
	}
	e->domain = bk.domain;
	e->addr = bk.addr;
	e->len = NVL_MIN(left, bk.len_B);
	return e->len;
}

int nvl_gpuvm_rebind_defer(struct nvl_gpuvm_bo *vm_bo,
			   struct nvl_gpuvm_rebind **list)
{
	struct nvl_gem_object *obj = vm_bo->obj;
	struct nvl_gpuvm_rebind *rb;
	uint32_t next = 0, i = 0;
	struct rebind_ext e;

	/* the VM's lock and @obj's resv are held: neither list nor backing
	 * changes under us */
	if (nvl_list_empty(&vm_bo->vas))
		return 0;
	for (uint64_t off = 0; off < obj->size_B; next++)
		off += piece(obj, off, &e);
	rb = nvl_zalloc(sizeof(*rb) + next * sizeof(e));
	if (!rb)
		return -ENOMEM;
	rb->ext = (struct rebind_ext *)(rb + 1);
	rb->next_n = next;
	for (uint64_t off = 0; off < obj->size_B; i++)
		off += piece(obj, off, &rb->ext[i]);
	nvl_kref_init(&rb->snap.ref);
	rb->snap.size_B = obj->size_B;
	rb->snap.resv = obj->resv;
	nvl_list_init(&rb->snap.gpuva.list);
	rb->snap.ops = &snap_ops;
	rb->snap.client_id = obj->client_id;
	rb->leave = atomic_load(&obj->leaves);
	nvl_gpuvm_bo_get(vm_bo);
	rb->vm_bo = vm_bo;
	rb->next = *list;
	*list = rb;
	return 0;
}

/*
 * Write @rb's vm_bo's mappings as they are now from the backing recorded
 * at validate; Return: the backend's error.
 */
static int run_one(struct nvl_gpuvm_rebind *rb)
{
	struct nvl_gpuvm_bo *vm_bo = rb->vm_bo;
	struct nvl_gpuvm *vm = vm_bo->vm;
	uint64_t lo = UINT64_MAX, hi = 0;
	bool whole = true;
	struct nvl_gpuva *va;
	bool held;

	held = nvl_gpuvm_pt_hold(vm);
	nvl_flock_lock(&vm->zap_lock);
	/*
	 * Entries made for a later leave (its unmap hook ran: its move
	 * waited for this job, so it cannot have) are not taken back to
	 * this snapshot; the range stays as it is.
	 */
	if (atomic_load(&vm_bo->mapped_leave) > rb->leave) {
		nvl_flock_unlock(&vm->zap_lock);
		nvl_gpuvm_pt_release(vm, held);
		return 0;
	}
	/*
	 * The mappings listed now, not those of validate: one unmapped
	 * since is not brought back, the pieces a split kept and one made
	 * since (its bind left it invalid while the backing was being
	 * filled) name the object's new place, with the flags they have
	 * now. A mapping whose bind has not committed is its bind's.
	 */
	nvl_list_for_each_entry (va, &vm_bo->vas, bo_link) {
		if ((va->flags & NVL_GPUVA_PENDING) &&
		    !atomic_load_explicit(&va->written, memory_order_acquire)) {
			whole = false;
			continue;
		}
		vm->pt->map(vm->pt_priv, nvl_gpuva_addr(va),
			    nvl_gpuva_range(va), va->page_shift, &rb->snap,
			    va->bo_offset, nvl_gpuva_pt_flags(va));
		lo = NVL_MIN(lo, nvl_gpuva_addr(va));
		hi = NVL_MAX(hi, nvl_gpuva_end(va));
	}
	if (hi)
		vm->pt->flush(vm->pt_priv, lo, hi - lo);
	if (whole)
		atomic_store(&vm_bo->mapped_leave, rb->leave);
	nvl_flock_unlock(&vm->zap_lock);
	nvl_gpuvm_pt_release(vm, held);
	if (hi && vm->pt->take_error)
		return vm->pt->take_error(vm->pt_priv);
	return 0;
}
int nvl_gpuvm_rebind_run(struct nvl_gpuvm_rebind *list)
{
	int err = 0;

	for (struct nvl_gpuvm_rebind *rb = list; rb; rb = rb->next) {
		int ret = run_one(rb);

		if (ret && !err)
			err = ret;
	}
	return err;
}

void nvl_gpuvm_rebind_free(struct nvl_gpuvm_rebind *list)
{
	while (list) {
		struct nvl_gpuvm_rebind *next = list->next;

		nvl_gpuvm_bo_put(list->vm_bo);
		nvl_free(list);
		list = next;
	}
}

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
 * What is written is decided at validate, under the VM's lock and the BO's
 * resv: the backing the BO has then (a snapshot of its extents, resolved
 * through a GEM object of its own, so that a later move of the BO, which
 * waits for the exec's job, does not change what this job sees) and the
 * mappings committed then. When the job runs, only those mappings still
 * on the vm_bo (same node, range, offset and page size) are written, from
 * the vm_bo's list under the zap lock, the lock the unmap hook and bind's
 * list updates take: a mapping unmapped since is not brought back.
 * mapped_leave gets the leave count of the snapshot, so the unmap hook of a
 * later move still takes these entries off.
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

/* one committed mapping to write, as it was at validate */
struct rebind_va {
	/* identity only: compared with the nodes still on the list */
	const struct nvl_gpuva *va;
	uint64_t addr, range, bo_offset;
	uint32_t flags; /* NVL_VM_PT_* */
	uint8_t page_shift;
};

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
	/* a mapping was left to its pending bind (mapped_leave not stamped) */
	bool partial;
	uint32_t nva, next_n;
	struct rebind_va *vas;
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

/* does the list's @va still hold the mapping @r recorded? (zap lock) */
static bool same(const struct rebind_va *r, const struct nvl_gpuva *va)
{
	return r->va == va && r->addr == nvl_gpuva_addr(va) &&
	       r->range == nvl_gpuva_range(va) &&
	       r->bo_offset == va->bo_offset && r->page_shift == va->page_shift;
}

int nvl_gpuvm_rebind_defer(struct nvl_gpuvm_bo *vm_bo,
			   struct nvl_gpuvm_rebind **list)
{
	struct nvl_gem_object *obj = vm_bo->obj;
	struct nvl_gpuvm_rebind *rb;
	uint32_t nva = 0, next = 0, i;
	struct rebind_ext e;
	struct nvl_gpuva *va;
	bool partial = false;
	size_t sz;

	/* the VM's lock and @obj's resv are held: neither list nor backing
	 * changes under us */
	nvl_list_for_each_entry (va, &vm_bo->vas, bo_link) {
		if ((va->flags & NVL_GPUVA_PENDING) &&
		    !atomic_load_explicit(&va->written, memory_order_acquire))
			partial = true;
		else
			nva++;
	}
	if (!nva)
		return 0;
	for (uint64_t off = 0; off < obj->size_B; next++)
		off += piece(obj, off, &e);
	sz = sizeof(*rb) + nva * sizeof(rb->vas[0]) + next * sizeof(e);
	rb = nvl_zalloc(sz);
	if (!rb)
		return -ENOMEM;
	rb->vas = (struct rebind_va *)(rb + 1);
	rb->ext = (struct rebind_ext *)(rb->vas + nva);
	rb->nva = nva;
	rb->next_n = next;
	rb->partial = partial;
	i = 0;
	for (uint64_t off = 0; off < obj->size_B; i++)
		off += piece(obj, off, &rb->ext[i]);
	i = 0;
	nvl_list_for_each_entry (va, &vm_bo->vas, bo_link) {
		struct rebind_va *r = &rb->vas[i];

		if ((va->flags & NVL_GPUVA_PENDING) &&
		    !atomic_load_explicit(&va->written, memory_order_acquire))
			continue;
		r->va = va;
		r->addr = nvl_gpuva_addr(va);
		r->range = nvl_gpuva_range(va);
		r->bo_offset = va->bo_offset;
		r->page_shift = va->page_shift;
		r->flags = nvl_gpuva_pt_flags(va);
		i++;
	}
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

/* Write one vm_bo's recorded mappings; Return: the backend's error. */
static int run_one(struct nvl_gpuvm_rebind *rb)
{
	struct nvl_gpuvm_bo *vm_bo = rb->vm_bo;
	struct nvl_gpuvm *vm = vm_bo->vm;
	uint64_t lo = UINT64_MAX, hi = 0;
	bool whole = !rb->partial;
	struct nvl_gpuva *va;
	uint32_t k = 0;
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
	 * The recorded mappings still listed are in the recorded order
	 * (the list only grows at its tail; an abort puts a node back in
	 * its place): one pass, a new node costing a look to the end.
	 */
	nvl_list_for_each_entry (va, &vm_bo->vas, bo_link) {
		const struct rebind_va *r;
		uint32_t q = k;

		while (q < rb->nva && !same(&rb->vas[q], va))
			q++;
		if (q == rb->nva) {
			/* made since validate: its bind writes it */
			whole = false;
			continue;
		}
		r = &rb->vas[q];
		vm->pt->map(vm->pt_priv, r->addr, r->range, r->page_shift,
			    &rb->snap, r->bo_offset, r->flags);
		lo = NVL_MIN(lo, r->addr);
		hi = NVL_MAX(hi, r->addr + r->range);
		k = q + 1;
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

int nvl_gpuvm_validate_defer(struct nvl_gpuvm *vm,
			     struct nvl_gpuvm_rebind **list)
{
	int ret;

	*list = NULL;
	/*
	 * A backend driven under the VM lock only (the recording one, whose
	 * one-op binds skip its lock) cannot be written from the job: it
	 * rewrites at once, as before.
	 */
	if (!vm->pt->lock)
		vm->defer = list;
	ret = nvl_gpuvm_validate(vm);
	vm->defer = NULL;
	if (ret) {
		nvl_gpuvm_rebind_free(*list);
		*list = NULL;
	}
	return ret;
}

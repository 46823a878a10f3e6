// SPDX-License-Identifier: MIT
/*
 * DOC: vm_bo - one link per (VM, GEM object)
 *
 * A struct nvl_gpuvm_bo ties a VM to a GEM object: it holds a reference on
 * the object, lists the object's mappings in that VM (vm_bo->vas) and is
 * itself listed on the object's gpuva.list, so "which VMs map this BO, and
 * where" is a walk from the object.
 *
 * External objects (obj->resv is not the VM's shared reservation object) are
 * on the VM's extobj list once, however many mappings they have; objects
 * private to the VM share its resv and are never listed, so locking the VM's
 * resv covers them all. When mm evicts an object it calls the eviction hook,
 * which puts every vm_bo of the object on its VM's evict list;
 * nvl_gpuvm_validate() revalidates them before the next exec.
 *
 * Every mapping holds one vm_bo reference; the last put unlinks the vm_bo
 * from all three lists and drops the object. The object lists and the
 * extobj/evict lists are protected by one global lock: an object's vm_bos
 * belong to different VMs, and the eviction hook runs under the object's
 * resv, not under any VM lock.
 *
 * Any move of a mapped object leaves its page-table entries behind: the
 * hook lists the vm_bo when the object leaves, and a move back only clears
 * "evicted"; validate's callback rewrites the mappings and so takes it off
 * the list.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "base/alloc.h"
#include "base/log.h"
#include "mm/gem.h"
#include "sync/fence.h"
#include "sync/flock.h"
#include "sync/resv.h"
#include "vm/gpuvm.h"
#include "vm/sm.h"

/*
 * A futex lock (sync/flock.h), not a pthread mutex (issues 15, 19): every
 * exec takes it to snapshot the extobj list and to walk the evict list,
 * and an uncontended pair is two atomics where the mutex cost about 55
 * instructions in two library calls. Like the mutex it is invisible to the
 * checker; a contended taker spins briefly, then sleeps on the futex, so
 * the allocation of a new vm_bo under it stays allowed.
 */
static struct nvl_flock gem_lock = NVL_FLOCK_INIT;

NVL_HOT void nvl_gpuvm_gem_lock(void)
{
	nvl_flock_lock(&gem_lock);
}

NVL_HOT void nvl_gpuvm_gem_unlock(void)
{
	nvl_flock_unlock(&gem_lock);
}

bool nvl_gpuvm_bo_is_extobj(const struct nvl_gpuvm_bo *vm_bo)
{
	return vm_bo->obj->resv != vm_bo->vm->resv || !vm_bo->vm->resv;
}

/*
 * The live vm_bo of (@vm, @obj), with a reference, or NULL. A vm_bo whose
 * last reference just went stays listed until its releaser takes this
 * lock: it is skipped, never revived (a new one is made beside it).
 */
static struct nvl_gpuvm_bo *find_get_locked(struct nvl_gpuvm *vm,
					    struct nvl_gem_object *obj)
{
	struct nvl_gpuvm_bo *vm_bo;

	nvl_list_for_each_entry (vm_bo, &obj->gpuva.list, gem_link)
		if (vm_bo->vm == vm && nvl_kref_get_unless_zero(&vm_bo->ref))
			return vm_bo;
	return NULL;
}

struct nvl_gpuvm_bo *nvl_gpuvm_bo_find(struct nvl_gpuvm *vm,
				       struct nvl_gem_object *obj)
{
	struct nvl_gpuvm_bo *vm_bo;

	nvl_gpuvm_gem_lock();
	vm_bo = find_get_locked(vm, obj);
	nvl_gpuvm_gem_unlock();
	return vm_bo;
}

/*
 * One round trip of the global lock, found or created (issue 19: a tile
 * bound into an empty region creates its vm_bo on every bind).
 */
/*
 * Memory of vm_bos is freed only by the VM lock's holder (or with the VM):
 * a last put elsewhere leaves it in @spare_bo or on @graveyard, which
 * the next obtain empties. So the VM lock holder may read @bo_hint, the
 * vm_bo it obtained last, without the global lock: the memory is still a
 * vm_bo of this VM, live or dead, and a reference taken unless the count
 * already fell to zero means it is live.
 */
static void graveyard_push(struct nvl_gpuvm *vm, struct nvl_gpuvm_bo *vm_bo)
{
	struct nvl_gpuvm_bo *head = atomic_load(&vm->graveyard);

	do {
		vm_bo->gem_link.next = (void *)head;
	} while (!atomic_compare_exchange_weak(&vm->graveyard, &head, vm_bo));
}

/*
 * An unmap hook call (nvl_gpuvm_gem_unmap()) may still read a vm_bo it
 * found listed (the VM's zap_pins count it): while one runs, vm_bo memory
 * is neither freed nor reused (it waits on the graveyard).
 */
static bool zapping(struct nvl_gpuvm *vm)
{
	return atomic_load(&vm->zap_pins) != 0;
}

static void bo_free_locked(struct nvl_gpuvm *vm, struct nvl_gpuvm_bo *vm_bo)
{
	if (vm->bo_hint == vm_bo)
		vm->bo_hint = NULL;
	if (zapping(vm)) {
		graveyard_push(vm, vm_bo);
		return;
	}
	nvl_free(vm_bo);
}

/* VM lock held: free what puts elsewhere left on the graveyard. */
static void bury(struct nvl_gpuvm *vm)
{
	struct nvl_gpuvm_bo *b;

	if (zapping(vm))
		return;
	b = atomic_exchange(&vm->graveyard, NULL);

	while (b) {
		struct nvl_gpuvm_bo *next = (void *)b->gem_link.next;

		if (vm->bo_hint == b)
			vm->bo_hint = NULL;
		nvl_free(b);
		b = next;
	}
}

struct nvl_gpuvm_bo *nvl_gpuvm_bo_obtain(struct nvl_gpuvm *vm,
					 struct nvl_gem_object *obj)
{
	struct nvl_gpuvm_bo *vm_bo = vm->bo_hint;

	/* the pair exists already (a BO mapped many times): no global lock */
	if (vm_bo && vm_bo->obj == obj && nvl_kref_get_unless_zero(&vm_bo->ref))
		return vm_bo;
	if (atomic_load_explicit(&vm->graveyard, memory_order_relaxed))
		bury(vm);
	nvl_gpuvm_gem_lock();
	vm_bo = find_get_locked(vm, obj);
	if (vm_bo) {
		nvl_gpuvm_gem_unlock();
		vm->bo_hint = vm_bo;
		return vm_bo;
	}
	/*
	 * Only the VM's lock holder creates vm_bos of this VM: no race. The
	 * spare its own transactions left needs no atomic; the one a put
	 * elsewhere left is read before it is swapped.
	 */
	vm_bo = NULL;
	if (!zapping(vm)) {
		vm_bo = vm->spare_bo_locked;
		vm->spare_bo_locked = NULL;
		if (!vm_bo &&
		    atomic_load_explicit(&vm->spare_bo, memory_order_relaxed))
			vm_bo = atomic_exchange(&vm->spare_bo, NULL);
	}
	if (vm_bo)
		memset(vm_bo, 0, sizeof(*vm_bo));
	else
		vm_bo = nvl_zalloc(sizeof(*vm_bo));
	if (!vm_bo) {
		nvl_gpuvm_gem_unlock();
		return NULL;
	}
	vm_bo->vm = vm;
	vm_bo->obj = obj;
	nvl_kref_init(&vm_bo->ref);
	/* no mapping yet: a bind writes where @obj is when it runs */
	atomic_init(&vm_bo->mapped_leave,
		    atomic_load_explicit(&obj->leaves, memory_order_relaxed));
	nvl_list_init(&vm_bo->vas);
	nvl_list_init(&vm_bo->extobj_link);
	nvl_list_init(&vm_bo->evict_link);
	nvl_gem_get(obj);
	nvl_list_add_tail(&vm_bo->gem_link, &obj->gpuva.list);
	if (nvl_gpuvm_bo_is_extobj(vm_bo)) {
		nvl_list_add_tail(&vm_bo->extobj_link, &vm->extobj);
		vm->nr_extobj++;
	}
	nvl_gpuvm_gem_unlock();
	vm->bo_hint = vm_bo;
	/*
	 * The new vm_bo heard none of the evictions before it was linked
	 * (those after it hears): an object without backing now (swapped
	 * out, purged) is mapped invalid by the bind's commit, and only a
	 * validate brings it back. List it for the next exec's, as an
	 * eviction would have; "evicted" stays false (the move back clears
	 * it anyway). An object whose memory never left (no leave counted:
	 * a swap-out or purge counts one before it calls the eviction hook,
	 * whose walk the gem lock orders before this vm_bo's link) has its
	 * backing: no need to ask, so a bind of a fresh BO pays nothing.
	 */
	if (atomic_load_explicit(&obj->leaves, memory_order_relaxed) &&
	    obj->ops->resident && !obj->ops->resident(obj))
		nvl_gpuvm_bo_relist(vm_bo);
	return vm_bo;
}

void nvl_gpuvm_bo_get(struct nvl_gpuvm_bo *vm_bo)
{
	nvl_kref_get(&vm_bo->ref);
}

/* The last reference went; @locked: the caller holds the VM's lock. */
static void bo_release(struct nvl_gpuvm_bo *vm_bo, bool locked)
{
	struct nvl_gpuvm *vm = vm_bo->vm;

	nvl_gpuvm_gem_lock();
	nvl_list_del(&vm_bo->gem_link);
	if (!nvl_list_empty(&vm_bo->extobj_link)) {
		nvl_list_del(&vm_bo->extobj_link);
		vm->nr_extobj--;
	}
	if (!nvl_list_empty(&vm_bo->evict_link)) {
		nvl_list_del(&vm_bo->evict_link);
		vm->nr_evict--;
	}
	nvl_gpuvm_gem_unlock();
	nvl_gem_put(vm_bo->obj);
	/* keep the memory for the VM's next vm_bo */
	if (locked) {
		if (!vm->spare_bo_locked) {
			vm->spare_bo_locked = vm_bo;
			return;
		}
		vm_bo = atomic_exchange(&vm->spare_bo, vm_bo);
		if (vm_bo)
			bo_free_locked(vm, vm_bo);
		return;
	}
	/* not the VM lock's holder: never free (see bo_hint), leave it */
	{
		struct nvl_gpuvm_bo *expect = NULL;

		if (atomic_compare_exchange_strong(&vm->spare_bo, &expect,
						   vm_bo))
			return;
		graveyard_push(vm, vm_bo);
	}
}

void nvl_gpuvm_bo_put(struct nvl_gpuvm_bo *vm_bo)
{
	if (vm_bo && nvl_kref_put(&vm_bo->ref))
		bo_release(vm_bo, false);
}

void nvl_gpuvm_bo_put_locked(struct nvl_gpuvm_bo *vm_bo)
{
	if (vm_bo && nvl_kref_put(&vm_bo->ref))
		bo_release(vm_bo, true);
}

static void evict_locked(struct nvl_gpuvm_bo *vm_bo, bool evicted)
{
	struct nvl_gpuvm *vm = vm_bo->vm;

	vm_bo->evicted = evicted;
	if (evicted && nvl_list_empty(&vm_bo->evict_link)) {
		nvl_list_add_tail(&vm_bo->evict_link, &vm->evict);
		vm->nr_evict++;
	} else if (!evicted && !nvl_list_empty(&vm_bo->evict_link)) {
		nvl_list_del(&vm_bo->evict_link);
		nvl_list_init(&vm_bo->evict_link);
		vm->nr_evict--;
	}
}

void nvl_gpuvm_bo_evict(struct nvl_gpuvm_bo *vm_bo, bool evicted)
{
	nvl_gpuvm_gem_lock();
	evict_locked(vm_bo, evicted);
	nvl_gpuvm_gem_unlock();
}

/*
 * Rewrite @vm_bo's mappings at the next validate without calling the BO
 * evicted: a bind's commit left entries invalid because the backing was
 * still being filled. The global lock is a futex lock whose holders never
 * wait for a fence; the commit (a signalling section) may take it.
 */
void nvl_gpuvm_bo_relist(struct nvl_gpuvm_bo *vm_bo)
{
	nvl_gpuvm_gem_lock();
	if (nvl_list_empty(&vm_bo->evict_link)) {
		bool was = vm_bo->evicted;

		evict_locked(vm_bo, true);
		vm_bo->evicted = was;
	}
	nvl_gpuvm_gem_unlock();
}

/*
 * A move back does not make the mappings right: they still point where the
 * object was before it moved. So "evicted" clears but the vm_bo goes on
 * (or stays on) the evict list until validate has rewritten them: a vm_bo
 * made while the object was away (mapped in its fallback, or after another
 * VM saw it leave) was never listed, and its entries name the memory the
 * object just left.
 */
void nvl_gpuvm_gem_evict(struct nvl_gem_object *obj, bool evicted)
{
	struct nvl_gpuvm_bo *vm_bo;

	nvl_gpuvm_gem_lock();
	nvl_list_for_each_entry (vm_bo, &obj->gpuva.list, gem_link) {
		evict_locked(vm_bo, true);
		vm_bo->evicted = evicted;
	}
	nvl_gpuvm_gem_unlock();
}

/*
 * Before the memory of an object that leaves (eviction, validate move,
 * purge) is used again, mm also waits for the jobs of every VM that maps
 * it: a job
 * submitted before the object was bound there is on the VM's resv only,
 * and the page-table entries the move leaves behind (above) stay until the
 * next exec's validate, so such a job would reach the memory's next owner
 * (Xe waits for the VM's resv the same way). VM-private objects share the
 * VM's resv: mm waits for it already.
 */
int nvl_gpuvm_gem_deps(struct nvl_gem_object *obj, unsigned *n,
		       struct nvl_fence ***fences)
{
	struct nvl_gpuvm_bo *vm_bo;
	int ret = 0;

	nvl_gpuvm_gem_lock();
	nvl_list_for_each_entry (vm_bo, &obj->gpuva.list, gem_link) {
		struct nvl_resv *r = vm_bo->vm->resv;
		struct nvl_fence **f, **all;
		unsigned k;

		if (!r || r == obj->resv)
			continue;
		if (!fences) { /* busy or not, nothing allocated */
			*n += nvl_resv_test_signaled(
				      r, NVL_RESV_USAGE_BOOKKEEP) <= 0;
			continue;
		}
		ret = nvl_resv_get_fences(r, NVL_RESV_USAGE_BOOKKEEP, &k, &f);
		if (ret)
			break;
		if (!k)
			continue;
		all = nvl_reallocarray(*fences, *n + k, sizeof(*all));
		if (!all) {
			for (unsigned i = 0; i < k; i++)
				nvl_fence_put(f[i]);
			nvl_free(f);
			ret = -ENOMEM;
			break;
		}
		memcpy(all + *n, f, k * sizeof(*f));
		nvl_free(f);
		*fences = all;
		*n += k;
	}
	nvl_gpuvm_gem_unlock();
	return ret;
}

/* write invalid entries over @va, widening [*lo, *hi) to cover it */
static void zap_va(struct nvl_gpuvm *vm, struct nvl_gpuva *va, uint64_t *lo,
		   uint64_t *hi)
{
	vm->pt->unmap(vm->pt_priv, nvl_gpuva_addr(va), nvl_gpuva_range(va),
		      va->page_shift, false);
	*lo = NVL_MIN(*lo, nvl_gpuva_addr(va));
	*hi = NVL_MAX(*hi, nvl_gpuva_end(va));
}

/*
 * The page-table entries of @vm_bo's mappings off, if they may still name
 * memory @obj left at @leave. Under the zap lock the mappings cannot
 * change, nor can a remap's entries, which stamp mapped_leave under it;
 * the backend's calls take its own lock (a leaf).
 * A pending mapping's range goes too: its bind has not written it, or has
 * written the memory that left; the bind writes it again when it runs.
 */
static void zap_vm_bo(struct nvl_gpuvm_bo *vm_bo, uint64_t leave)
{
	struct nvl_gpuvm *vm = vm_bo->vm;
	uint64_t lo = UINT64_MAX, hi = 0;
	struct nvl_gpuva *va;

	nvl_flock_lock(&vm->zap_lock);
	if (atomic_load(&vm_bo->mapped_leave) > leave) {
		nvl_flock_unlock(&vm->zap_lock);
		return;
	}
	nvl_list_for_each_entry (va, &vm_bo->vas, bo_link)
		zap_va(vm, va, &lo, &hi);
	if (hi)
		vm->pt->flush(vm->pt_priv, lo, hi - lo);
	atomic_store(&vm_bo->mapped_leave, leave + 1);
	atomic_fetch_add_explicit(&vm->nr_zapped, 1, memory_order_relaxed);
	nvl_flock_unlock(&vm->zap_lock);
}

/*
 * The memory @obj left at @leave is about to be used again (mm's move
 * worker, once the jobs allowed to reach it are done): a job still running
 * past a fence that signalled early (a seqno forged in its channel's
 * semaphore, which the VM maps writable) must fault in its own VM, not
 * reach the memory's next owner. One vm_bo at a time: found under the gem
 * lock, its VM pinned (its vm_bos' memory stays; nvl_gpuvm_destroy()
 * waits), then zapped under the VM's zap lock only, never the VM lock
 * (held while waiting for fences) nor the gem lock (a bind takes that
 * one under a backend's lock). No reference is taken: a last put here
 * could free @obj, which takes mm's lock.
 */
void nvl_gpuvm_gem_unmap(struct nvl_gem_object *obj, uint64_t leave)
{
	for (;;) {
		struct nvl_gpuvm_bo *vm_bo, *found = NULL;
		struct nvl_gpuvm *vm;

		nvl_gpuvm_gem_lock();
		nvl_list_for_each_entry (vm_bo, &obj->gpuva.list, gem_link) {
			/*
			 * A backend with the lock hooks (the recording one
			 * of tests and benchmarks, which no device reads)
			 * is driven under the VM lock only: a one-op bind
			 * owns it without its lock (docs/vm.md, Locks).
			 */
			if (atomic_load(&vm_bo->mapped_leave) > leave ||
			    !nvl_kref_read(&vm_bo->ref) || vm_bo->vm->pt->lock)
				continue;
			atomic_fetch_add(&vm_bo->vm->zap_pins, 1);
			found = vm_bo;
			break;
		}
		nvl_gpuvm_gem_unlock();
		if (!found)
			return;
		vm = found->vm;
		zap_vm_bo(found, leave);
		atomic_fetch_sub(&vm->zap_pins, 1);
	}
}

/*
 * The VM's page tables were written back from a copy older than some
 * unmap-hook calls (a device's resume restores the tables it saved at the
 * suspend, and the hook may run meanwhile: a shrinker's purge or swap-out
 * of a GTT BO), so entries the hook invalidated name the memory their
 * objects left again. A vm_bo the hook zapped stays on the evict list
 * until a validate rewrote it, and none runs while the device is
 * suspended: invalidate the mappings of every listed vm_bo again (the next
 * validate maps them where their objects are, as after the hook).
 */
void nvl_gpuvm_rezap_evicted(struct nvl_gpuvm *vm)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	struct nvl_gpuva *va;

	/* as the hook: a backend with lock hooks is no device's */
	if (vm->pt->lock)
		return;
	nvl_flock_lock(&vm->lock);
	nvl_flock_lock(&vm->zap_lock);
	for (va = nvl_gpuvm_first_va(vm); va; va = nvl_gpuvm_next_va(va)) {
		bool listed;

		if (!va->vm_bo)
			continue;
		/* the gem lock is a leaf: not held over the backend's call */
		nvl_gpuvm_gem_lock();
		listed = !nvl_list_empty(&va->vm_bo->evict_link);
		nvl_gpuvm_gem_unlock();
		if (!listed)
			continue;
		zap_va(vm, va, &lo, &hi);
	}
	if (hi)
		vm->pt->flush(vm->pt_priv, lo, hi - lo);
	nvl_flock_unlock(&vm->zap_lock);
	nvl_flock_unlock(&vm->lock);
}

/* every evicted vm_bo's callback, passing it @defer */
static NVL_HOT int validate_evicted(struct nvl_gpuvm *vm,
				    struct nvl_gpuvm_rebind **defer)
{
	struct nvl_gpuvm_bo *vm_bo;
	struct nvl_list seen;
	int ret = 0;

	if (!vm->bo_ops || !vm->bo_ops->validate)
		return nvl_error(-EOPNOTSUPP, "vm %s: no validate callback",
				 vm->name);
	/*
	 * One evicted vm_bo at a time, so the callback runs without the
	 * global lock (it may move memory, and mm calls the eviction hook).
	 * A visited vm_bo waits on @seen, still counted as evicted: the
	 * callback is what clears "evicted" (through the eviction hook when
	 * the object moves back), and only a vm_bo it cleared leaves the
	 * list, as in the kernel. The rest go back to the front, in order.
	 */
	nvl_list_init(&seen);
	nvl_gpuvm_gem_lock();
	while (!nvl_list_empty(&vm->evict)) {
		vm_bo = nvl_list_first_entry(&vm->evict, struct nvl_gpuvm_bo,
					     evict_link);
		nvl_list_move_tail(&vm_bo->evict_link, &seen);
		/* dying: its releaser unlinks it from wherever it is */
		if (!nvl_kref_get_unless_zero(&vm_bo->ref))
			continue;
		nvl_gpuvm_gem_unlock();
		ret = vm->bo_ops->validate(vm_bo, vm->bo_priv, defer);
		nvl_gpuvm_gem_lock();
		if (!ret && !vm_bo->evicted)
			evict_locked(vm_bo, false);
		/* a last put takes the lock itself */
		nvl_gpuvm_gem_unlock();
		nvl_gpuvm_bo_put(vm_bo);
		nvl_gpuvm_gem_lock();
		if (ret)
			break;
	}
	/* what is left of the list follows the vm_bos already visited */
	nvl_list_splice_tail_init(&vm->evict, &seen);
	nvl_list_splice_tail_init(&seen, &vm->evict);
	nvl_gpuvm_gem_unlock();
	return ret;
}

NVL_HOT int nvl_gpuvm_validate(struct nvl_gpuvm *vm)
{
	return validate_evicted(vm, NULL);
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
	ret = validate_evicted(vm, vm->pt->lock ? NULL : list);
	if (ret) {
		nvl_gpuvm_rebind_free(*list);
		*list = NULL;
	}
	return ret;
}

/*
 * The object moved: its committed mappings still point where it was. A
 * pending mapping is its bind's to write (the bind reads the backing when
 * it runs); writing it here could make it visible before its bind's
 * in-fences, or leave entries behind a bind that is cancelled. Once the
 * bind's commit has run (@written) it is committed for this purpose, even
 * before the bind's finish clears PENDING: the commit may have left it
 * invalid for a backing still being filled, for this rewrite to map.
 */
int nvl_gpuvm_bo_remap(struct nvl_gpuvm_bo *vm_bo,
		       struct nvl_gpuvm_rebind **defer, bool *pending)
{
	struct nvl_gpuvm *vm = vm_bo->vm;
	uint64_t lo = UINT64_MAX, hi = 0;
	struct nvl_gpuva *va;
	bool held;

	*pending = false;
	/*
	 * An exec's validate, and the backing is still being filled: jobs
	 * queued before the move may still run on the old entries, which
	 * stay; the exec's job writes the new ones (rebind.c).
	 */
	if (unlikely(defer) && vm_bo->obj->ops->move_pending &&
	    vm_bo->obj->ops->move_pending(vm_bo->obj)) {
		*pending = true;
		return nvl_gpuvm_rebind_defer(vm_bo, defer);
	}
	held = nvl_gpuvm_pt_hold(vm);
	/* against the unmap hook: it must not undo these writes */
	nvl_flock_lock(&vm->zap_lock);
	nvl_list_for_each_entry (va, &vm_bo->vas, bo_link) {
		uint32_t flags = 0;

		if ((va->flags & NVL_GPUVA_PENDING) &&
		    !atomic_load_explicit(&va->written, memory_order_acquire)) {
			*pending = true;
			continue;
		}
		flags |= nvl_gpuva_pt_flags(va);
		vm->pt->map(vm->pt_priv, nvl_gpuva_addr(va),
			    nvl_gpuva_range(va), va->page_shift, vm_bo->obj,
			    va->bo_offset, flags);
		lo = NVL_MIN(lo, nvl_gpuva_addr(va));
		hi = NVL_MAX(hi, nvl_gpuva_end(va));
	}
	if (hi)
		vm->pt->flush(vm->pt_priv, lo, hi - lo);
	/* every mapping names where @obj is now (caller holds its resv) */
	if (!*pending)
		atomic_store(&vm_bo->mapped_leave,
			     atomic_load(&vm_bo->obj->leaves));
	nvl_flock_unlock(&vm->zap_lock);
	nvl_gpuvm_pt_release(vm, held);
	if (hi && vm->pt->take_error)
		return vm->pt->take_error(vm->pt_priv);
	return 0;
}

size_t nvl_gpuvm_extobj_count(struct nvl_gpuvm *vm)
{
	size_t n;

	nvl_gpuvm_gem_lock();
	n = vm->nr_extobj;
	nvl_gpuvm_gem_unlock();
	return n;
}

size_t nvl_gpuvm_evict_count(struct nvl_gpuvm *vm)
{
	size_t n;

	nvl_gpuvm_gem_lock();
	n = vm->nr_evict;
	nvl_gpuvm_gem_unlock();
	return n;
}

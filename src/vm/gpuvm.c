// SPDX-License-Identifier: MIT
/*
 * DOC: GPUVM core
 *
 * The VA space of one VM: its window and reserved range, the interval
 * B+tree of mappings and the interval tree of sparse regions, the lookups over them, and the
 * node cache mappings come from.
 *
 * Mappings never overlap each other, so "first overlapping" and "next
 * overlapping" over the tree give the mappings of a range in address order
 * in O(log n + k). Regions never overlap live regions; a destroyed region
 * stays in its tree (ignored by lookups) until the transaction that destroyed
 * it has written the page tables, so regions may overlap dead ones.
 *
 * The mapping tree is a B+tree (base/ibtree.h): at a million mappings a
 * lookup touches about five nodes instead of twenty scattered AVL nodes. Its
 * nodes come from the tree's own pool, released with the VM; prepare
 * preloads it so that apply and abort never allocate.
 *
 * The node cache: mapping nodes (64 bytes) come from slabs (in order, by a
 * bump pointer, so a slab's unused tail is never touched) and go back to a
 * free list, so a map/unmap pair costs no malloc and a mapping costs 64 bytes
 * plus its share of a slab header. Slabs double from 16 KiB to 8 MiB; the
 * big ones ask for transparent huge pages (madvise), so a walk down a tree of
 * millions of nodes takes far fewer TLB misses. Slabs are freed with the VM.
 */
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "base/alloc.h"
#include "base/log.h"
#include "mm/gem.h"
#include "vm/gpuvm.h"

#define SLAB_MIN_B (16u << 10)
#define SLAB_MAX_B (8u << 20)
#define HUGE_B (2ul << 20)

struct slab {
	struct slab *next;
	size_t n;
	struct nvl_gpuva nodes[];
};

struct nvl_gem_object *nvl_gpuva_obj(const struct nvl_gpuva *va)
{
	return va->vm_bo ? va->vm_bo->obj : NULL;
}

static bool aligned(uint64_t x, unsigned int shift)
{
	return (x & ((1ull << shift) - 1)) == 0;
}

int nvl_gpuvm_create(const struct nvl_gpuvm_args *args,
		     struct nvl_gpuvm **vm_out)
{
	struct nvl_gpuvm *vm;
	uint64_t kend = args->kernel_start + args->kernel_range;

	if (args->page_shift < 12 || args->page_shift > 30)
		return nvl_error(-EINVAL, "vm: page shift %u unsupported",
				 args->page_shift);
	if (args->start >= args->end ||
	    !aligned(args->start, args->page_shift) ||
	    !aligned(args->end, args->page_shift))
		return nvl_error(-EINVAL, "vm: bad window [%#llx, %#llx)",
				 (unsigned long long)args->start,
				 (unsigned long long)args->end);
	if (args->kernel_range &&
	    (kend < args->kernel_start || args->kernel_start < args->start ||
	     kend > args->end ||
	     !aligned(args->kernel_start, args->page_shift) ||
	     !aligned(args->kernel_range, args->page_shift)))
		return nvl_error(-EINVAL,
				 "vm: reserved range [%#llx, +%#llx) not "
				 "inside the window",
				 (unsigned long long)args->kernel_start,
				 (unsigned long long)args->kernel_range);
	if (!args->pt_ops || !args->pt_ops->get || !args->pt_ops->put ||
	    !args->pt_ops->map || !args->pt_ops->unmap ||
	    !args->pt_ops->sparse || !args->pt_ops->flush)
		return nvl_error(-EINVAL, "vm: incomplete page-table backend");
	vm = nvl_zalloc(sizeof(*vm));
	if (!vm)
		return -ENOMEM;
	nvl_kref_init(&vm->ref);
	nvl_flock_init(&vm->lock);
	/* the one-op bind releases it without a locked instruction */
	nvl_flock_asym_enable(&vm->lock);
	nvl_flock_init(&vm->zap_lock);
	vm->start = args->start;
	vm->end = args->end;
	vm->kstart = args->kernel_range ? args->kernel_start : 0;
	vm->kend = args->kernel_range ? kend : 0;
	vm->page_shift = args->page_shift;
	vm->big_page_shifts =
		args->big_page_shifts & ~((2ull << args->page_shift) - 1);
	nvl_ibtree_init(&vm->vas);
	nvl_itree_init(&vm->regions);
	vm->pt = args->pt_ops;
	vm->pt_priv = args->pt_priv;
	vm->bo_ops = args->bo_ops;
	vm->bo_priv = args->bo_priv;
	vm->resv = args->resv;
	nvl_list_init(&vm->extobj);
	nvl_list_init(&vm->evict);
	vm->next_seq = 1;
	snprintf(vm->name, sizeof(vm->name), "%s",
		 args->name ? args->name : "vm");
	*vm_out = vm;
	return 0;
}

void nvl_gpuvm_destroy(struct nvl_gpuvm *vm)
{
	struct nvl_ibtree_entry *e;
	struct nvl_itree_node *n;
	struct slab *s;

	if (!vm)
		return;
	/* Unmap and release every mapping, then every region. */
	while ((e = nvl_ibtree_min(&vm->vas))) {
		struct nvl_gpuva *va = container_of(e, struct nvl_gpuva, node);

		vm->pt->unmap(vm->pt_priv, nvl_gpuva_addr(va),
			      nvl_gpuva_range(va), va->page_shift, false);
		nvl_ibtree_remove(&vm->vas, e);
		if (va->vm_bo) {
			nvl_flock_lock(&vm->zap_lock);
			nvl_list_del(&va->bo_link);
			nvl_flock_unlock(&vm->zap_lock);
		}
		vm->pt->flush(vm->pt_priv, nvl_gpuva_addr(va),
			      nvl_gpuva_range(va));
		vm->pt->put(vm->pt_priv, nvl_gpuva_addr(va),
			    nvl_gpuva_range(va), va->page_shift);
		nvl_gpuvm_va_free(vm, va);
	}
	nvl_ibtree_fini(&vm->vas);
	while ((n = nvl_itree_min(&vm->regions))) {
		struct nvl_gpuvm_region *r =
			container_of(n, struct nvl_gpuvm_region, node);
		uint64_t range = n->last - n->start + 1;

		nvl_itree_remove(&vm->regions, n);
		vm->region_hint = NULL;
		if (!r->dead_seq) {
			vm->pt->sparse(vm->pt_priv, n->start, range, false);
			vm->pt->flush(vm->pt_priv, n->start, range);
		}
		nvl_gpuvm_region_pt_put(vm, n->start, range);
		nvl_free(r);
	}
	/*
	 * An unmap hook call still working on one of this VM's vm_bos (it
	 * found it listed before the mappings above went) puts it into
	 * @spare_bo or @graveyard: wait for it to be done (it only takes
	 * the zap lock and writes page tables).
	 */
	while (atomic_load(&vm->zap_pins))
		sched_yield();
	nvl_free(atomic_load(&vm->spare_bo));
	nvl_free(vm->spare_bo_locked);
	for (struct nvl_gpuvm_bo *b = atomic_load(&vm->graveyard), *next; b;
	     b = next) {
		next = (void *)b->gem_link.next;
		nvl_free(b);
	}
	nvl_free(vm->spare_log);
	nvl_free(vm->spare_cmd);
	while ((s = vm->cache.slabs)) {
		vm->cache.slabs = s->next;
		nvl_free(s);
	}
	nvl_flock_asym_disable(&vm->lock);
	nvl_free(vm);
}

int nvl_gpuvm_region_pt_get(struct nvl_gpuvm *vm, uint64_t addr, uint64_t range)
{
	if (vm->pt->get_region)
		return vm->pt->get_region(vm->pt_priv, addr, range);
	return vm->pt->get(vm->pt_priv, addr, range, vm->page_shift);
}

void nvl_gpuvm_region_pt_put(struct nvl_gpuvm *vm, uint64_t addr,
			     uint64_t range)
{
	if (vm->pt->get_region)
		vm->pt->put_region(vm->pt_priv, addr, range);
	else
		vm->pt->put(vm->pt_priv, addr, range, vm->page_shift);
}

unsigned int nvl_gpuvm_page_shift_for(const struct nvl_gpuvm *vm,
				      struct nvl_gem_object *obj, uint64_t addr,
				      uint64_t range, uint64_t bo_offset)
{
	uint64_t bits = vm->big_page_shifts;
	uint64_t all = addr | range | bo_offset;
	unsigned int cap = 63;

	while (bits) {
		unsigned int s = 63 - (unsigned int)__builtin_clzll(bits);

		bits &= ~(1ull << s);
		if (s > cap || !aligned(all, s))
			continue;
		if (!obj || !vm->pt->page_shift)
			return s;
		/* the backing may be less contiguous than the alignment */
		cap = vm->pt->page_shift(vm->pt_priv, obj, bo_offset, addr,
					 range, s);
		if (cap >= s)
			return s;
	}
	return vm->page_shift;
}

static struct nvl_gpuva *va_of(const struct nvl_ibtree_entry *n)
{
	return n ? container_of(n, struct nvl_gpuva, node) : NULL;
}

/*
 * The interval search reads only the tree's nodes (their keys and each
 * child's largest `last`): a lookup that finds nothing, as most maps do,
 * touches no mapping at all.
 */
static struct nvl_ibtree_entry *first_overlap(const struct nvl_ibtree *t,
					      uint64_t addr, uint64_t last)
{
	return nvl_ibtree_first(t, addr, last);
}

struct nvl_gpuva *nvl_gpuvm_find_first(const struct nvl_gpuvm *vm,
				       uint64_t addr, uint64_t range)
{
	return va_of(first_overlap(&vm->vas, addr, addr + range - 1));
}

struct nvl_gpuva *nvl_gpuvm_find_next(const struct nvl_gpuva *va, uint64_t addr,
				      uint64_t range)
{
	/*
	 * Mappings do not overlap: the in-order successor is the next one,
	 * and it overlaps iff it starts inside the range; none can when @va
	 * reaches the end of the range (then the successor is not touched).
	 */
	struct nvl_ibtree_entry *n;

	if (va->node.last >= addr + range - 1)
		return NULL;
	n = nvl_ibtree_succ(&va->node);
	if (!n || n->start > addr + range - 1)
		return NULL;
	return va_of(n);
}

struct nvl_gpuva *nvl_gpuvm_find_at(const struct nvl_gpuvm *vm, uint64_t addr)
{
	return va_of(first_overlap(&vm->vas, addr, addr));
}

struct nvl_gpuva *nvl_gpuvm_find(const struct nvl_gpuvm *vm, uint64_t addr,
				 uint64_t range)
{
	struct nvl_gpuva *va = nvl_gpuvm_find_at(vm, addr);

	if (va && nvl_gpuva_addr(va) == addr && nvl_gpuva_range(va) == range)
		return va;
	return NULL;
}

struct nvl_gpuva *nvl_gpuvm_first_va(const struct nvl_gpuvm *vm)
{
	return va_of(nvl_ibtree_min(&vm->vas));
}

struct nvl_gpuva *nvl_gpuvm_next_va(const struct nvl_gpuva *va)
{
	return va_of(nvl_ibtree_succ(&va->node));
}

static struct nvl_gpuvm_region *live_region(const struct nvl_itree_node *n,
					    uint64_t s, uint64_t l)
{
	for (; n; n = nvl_itree_next(n, s, l)) {
		struct nvl_gpuvm_region *r =
			container_of(n, struct nvl_gpuvm_region, node);

		if (!r->dead_seq)
			return r;
	}
	return NULL;
}

struct nvl_gpuvm_region *nvl_gpuvm_region_find_first(const struct nvl_gpuvm *vm,
						     uint64_t addr,
						     uint64_t range)
{
	if (nvl_itree_empty(&vm->regions))
		return NULL;
	return live_region(
		nvl_itree_first(&vm->regions, addr, addr + range - 1), addr,
		addr + range - 1);
}

struct nvl_gpuvm_region *nvl_gpuvm_region_lookup_walk(struct nvl_gpuvm *vm,
						      uint64_t addr,
						      uint64_t range)
{
	struct nvl_gpuvm_region *r =
		nvl_gpuvm_region_find_first(vm, addr, range);

	if (r)
		vm->region_hint = r;
	return r;
}

struct nvl_gpuvm_region *nvl_gpuvm_region_next(const struct nvl_gpuvm_region *r,
					       uint64_t addr, uint64_t range)
{
	return live_region(nvl_itree_next(&r->node, addr, addr + range - 1),
			   addr, addr + range - 1);
}

struct nvl_gpuva *nvl_gpuvm_va_alloc(struct nvl_gpuvm *vm)
{
	struct nvl_gpuvm_cache *c = &vm->cache;
	struct nvl_gpuva *va;

	if (!c->free && c->bump == c->bump_end) {
		size_t sz = c->slab_B ? c->slab_B : SLAB_MIN_B;
		struct slab *s;

		s = nvl_malloc(sz);
		if (!s)
			return NULL;
		if (sz >= 2 * HUGE_B) {
			/* the 2 MiB-aligned part of it can use huge pages */
			uintptr_t a = NVL_ALIGN_UP((uintptr_t)s, HUGE_B);
			uintptr_t e = NVL_ALIGN_DOWN((uintptr_t)s + sz, HUGE_B);

			if (e > a)
				madvise((void *)a, e - a, MADV_HUGEPAGE);
		}
		c->slab_B = sz < SLAB_MAX_B ? sz * 2 : SLAB_MAX_B;
		s->n = (sz - sizeof(*s)) / sizeof(s->nodes[0]);
		s->next = c->slabs;
		c->slabs = s;
		/* handed out in order, so the tail is only touched when used */
		c->bump = s->nodes;
		c->bump_end = s->nodes + s->n;
	}
	if (c->free) {
		va = c->free;
		c->free = *(void **)va;
		c->nfree--;
	} else {
		va = c->bump++;
	}
	memset(va, 0, sizeof(*va));
	return va;
}

void nvl_gpuvm_va_free(struct nvl_gpuvm *vm, struct nvl_gpuva *va)
{
	/* the node cache is the VM lock holder's: so is this put */
	if (va->vm_bo)
		nvl_gpuvm_bo_put_locked(va->vm_bo);
	*(void **)va = vm->cache.free;
	vm->cache.free = va;
	vm->cache.nfree++;
}

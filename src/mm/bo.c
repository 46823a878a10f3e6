// SPDX-License-Identifier: MIT
/*
 * DOC: Buffer objects
 *
 * A BO is created with its size, allowed and preferred domains and flags,
 * placed at once (evicting if it must) and named by a handle in the
 * creating client's BO table, which holds a reference, as a DRM file's GEM
 * IDR does. Other clients reach it only through export (a token naming the
 * object and its export generation) and import (their own handle, the same
 * object; a client that already holds the object gets its existing handle,
 * as with PRIME); a token whose BO is gone, or whose slot was reused, fails.
 *
 * The last reference releases the BO: with its fences signalled, its memory
 * returns at once; otherwise it becomes a zombie (place.c) holding a
 * snapshot of its fences, so its memory is not reused while the GPU may
 * still touch it. Released VRAM is dirty and is cleared for its next user,
 * so memory another client used always reaches the next one zeroed.
 *
 * CPU mapping pins the BO where it is until unmapped (there is no fault
 * handler to migrate a mapped BO). VRAM BOs are mappable only with
 * NVL_BO_CPU_VISIBLE, which keeps them contiguous in the CPU-visible window.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/log.h"
#include "mm/bo.h"

/*
 * Eviction hooks: a few slots, filled and emptied by compare-and-swap and
 * read with atomic loads, so that an eviction on one thread and a hook
 * being added on another need no lock (hooks run with a BO's resv held).
 */
static _Atomic(nvl_gem_evict_fn) evict_hooks[NVL_GEM_EVICT_HOOKS];

int nvl_gem_add_evict_hook(nvl_gem_evict_fn fn)
{
	for (unsigned i = 0; i < NVL_GEM_EVICT_HOOKS; i++)
		if (atomic_load(&evict_hooks[i]) == fn)
			return 0;
	for (unsigned i = 0; i < NVL_GEM_EVICT_HOOKS; i++) {
		nvl_gem_evict_fn none = NULL;

		if (atomic_compare_exchange_strong(&evict_hooks[i], &none, fn))
			return 0;
		if (none == fn)
			return 0; /* a concurrent add of the same hook */
	}
	return nvl_error(-ENOSPC, "mm: all %d eviction hook slots are taken",
			 NVL_GEM_EVICT_HOOKS);
}

void nvl_gem_remove_evict_hook(nvl_gem_evict_fn fn)
{
	for (unsigned i = 0; i < NVL_GEM_EVICT_HOOKS; i++) {
		nvl_gem_evict_fn f = fn;

		atomic_compare_exchange_strong(&evict_hooks[i], &f, NULL);
	}
}

void nvl_mm_notify_evict(struct nvl_bo *bo, bool evicted)
{
	for (unsigned i = 0; i < NVL_GEM_EVICT_HOOKS; i++) {
		nvl_gem_evict_fn f = atomic_load(&evict_hooks[i]);

		if (f)
			f(&bo->gem, evicted);
	}
}

static _Atomic(nvl_gem_deps_fn) deps_hook;

void nvl_gem_set_deps_hook(nvl_gem_deps_fn fn)
{
	atomic_store(&deps_hook, fn);
}

int nvl_mm_evict_deps(struct nvl_bo *bo, unsigned *n,
		      struct nvl_fence ***fences)
{
	nvl_gem_deps_fn f = atomic_load(&deps_hook);

	return f ? f(&bo->gem, n, fences) : 0;
}

static _Atomic(nvl_gem_unmap_fn) unmap_hook;

void nvl_gem_set_unmap_hook(nvl_gem_unmap_fn fn)
{
	atomic_store(&unmap_hook, fn);
}

void nvl_mm_unmap_gem(struct nvl_gem_object *obj, uint64_t leave)
{
	nvl_gem_unmap_fn f = atomic_load(&unmap_hook);

	if (f)
		f(obj, leave);
}

uint64_t nvl_mm_leave(struct nvl_bo *bo)
{
	return atomic_fetch_add(&bo->gem.leaves, 1);
}

/* ---- GEM ops ---------------------------------------------------------- */

void nvl_mm_bo_destroy(struct nvl_mm *mm, struct nvl_bo *bo)
{
	if (NVL_NEVER(!nvl_list_empty(&bo->maps)))
		nvl_warn(NVL_CAT_MM, "bo: freed while mapped");
	nvl_mm_release_backing(mm, bo);
	for (unsigned i = 0; i < bo->nzfences; i++)
		nvl_fence_put(bo->zfences[i]);
	nvl_free(bo->zfences);
	if (bo->gem.resv == &bo->own_resv)
		nvl_resv_fini(&bo->own_resv);
	nvl_free(bo);
}

static void bo_free(struct nvl_gem_object *obj)
{
	struct nvl_bo *bo = nvl_bo_from_gem(obj);
	struct nvl_mm *mm = bo->mm;
	bool idle;

	nvl_mutex_lock(&mm->lock);
	if (bo->export_id)
		nvl_idr_remove(&mm->exports, bo->export_id);
	nvl_mm_lru_del(mm, bo);
	idle = nvl_resv_test_signaled(obj->resv, NVL_RESV_USAGE_BOOKKEEP) > 0;
	if (!idle && nvl_resv_get_fences(obj->resv, NVL_RESV_USAGE_BOOKKEEP,
					 &bo->nzfences, &bo->zfences)) {
		/* No memory for the snapshot: wait here instead. */
		nvl_mutex_unlock(&mm->lock);
		(void)nvl_resv_wait(obj->resv, NVL_RESV_USAGE_BOOKKEEP,
				    NVL_TIMEOUT_INFINITE);
		nvl_mutex_lock(&mm->lock);
		idle = true;
	}
	if (idle) {
		nvl_mm_bo_destroy(mm, bo);
	} else {
		if (bo->gem.resv == &bo->own_resv) {
			/* Nobody can lock it any more: drop its fences now. */
			nvl_resv_fini(&bo->own_resv);
			bo->gem.resv = NULL;
		} else {
			bo->gem.resv = NULL; /* a VM's: may go away */
		}
		nvl_list_add_tail(&bo->lru, &mm->zombies);
	}
	nvl_mutex_unlock(&mm->lock);
}

static int backing_locked(struct nvl_bo *bo, uint64_t offset,
			  struct nvl_gem_backing *out)
{
	struct nvl_gem_object *obj = &bo->gem;
	struct nvl_buddy_block *b;
	uint64_t pos = 0;

	switch (bo->dom) {
	case NVL_GEM_DOMAIN_VRAM:
		nvl_list_for_each_entry (b, &bo->blocks, link) {
			uint64_t len = nvl_buddy_block_size(&bo->mm->vram, b);
			struct nvl_buddy_block *n;

			if (offset >= pos + len) {
				pos += len;
				continue;
			}
			out->domain = NVL_GEM_DOMAIN_VRAM;
			out->addr = nvl_buddy_block_offset(b) + (offset - pos);
			out->len_B = len - (offset - pos);
			/* Extend over physically adjacent blocks. */
			for (n = nvl_list_entry(b->link.next,
						struct nvl_buddy_block, link);
			     &n->link != &bo->blocks &&
			     nvl_buddy_block_offset(n) ==
				     out->addr + out->len_B;
			     n = nvl_list_entry(n->link.next,
						struct nvl_buddy_block, link))
				out->len_B +=
					nvl_buddy_block_size(&bo->mm->vram, n);
			return 0;
		}
		return -ENOENT;
	case NVL_GEM_DOMAIN_GTT:
	case NVL_GEM_DOMAIN_SYSTEM:
		/* the caller translates it (not under the leaf lock) */
		out->domain = bo->dom;
		out->addr = (uint64_t)(uintptr_t)bo->host;
		out->len_B = obj->size_B - offset;
		return 0;
	default:
		return -ENOENT;
	}
}

/*
 * GPUVM asks with the VM's lock held but not the BO's resv (a bind's
 * commit, in a fence-signalling section, where mm->lock may not be
 * taken): an eviction or move may be changing the placement at the same
 * time, so the placement is read under mm->place_lock, which every change
 * of it holds. What it gives may be stale once the lock is dropped; the
 * mapping's vm_bo, already on the BO's list, then hears the eviction and
 * the next exec rewrites the mapping. @pending, read with the placement,
 * says whether the job that fills that backing is done (a bind's commit
 * leaves such pages invalid: a job queued before the move could reach
 * them before the move's copy or clear has run).
 */
static int bo_get_backing(struct nvl_gem_object *obj, uint64_t offset,
			  struct nvl_gem_backing *out)
{
	struct nvl_bo *bo = nvl_bo_from_gem(obj);
	int ret;

	if (offset >= obj->size_B)
		return -ENOENT;
	nvl_flock_lock(&bo->mm->place_lock);
	ret = backing_locked(bo, offset, out);
	/* with the placement: a move changes both under the lock */
	out->pending = nvl_bo_move_pending(bo);
	nvl_flock_unlock(&bo->mm->place_lock);
	if (ret || out->domain == NVL_GEM_DOMAIN_VRAM)
		return ret;
	if (bo->mm->ops->dma_addr) {
		/* on a device the GPU sees the pages' DMA address */
		uint64_t dma = bo->mm->ops->dma_addr(
			bo->mm->ops_priv, (const void *)(uintptr_t)out->addr);

		if (!dma)
			return -ENOENT;
		out->addr = dma;
	}
	out->addr += offset;
	return ret;
}

static bool bo_move_pending(struct nvl_gem_object *obj)
{
	return nvl_bo_move_pending(nvl_bo_from_gem(obj));
}

/* read under the leaf lock every change of the placement holds */
static bool bo_resident(struct nvl_gem_object *obj)
{
	struct nvl_bo *bo = nvl_bo_from_gem(obj);
	bool resident;

	nvl_flock_lock(&bo->mm->place_lock);
	resident = bo->dom != NVL_GEM_DOMAIN_NONE;
	nvl_flock_unlock(&bo->mm->place_lock);
	return resident;
}

static const struct nvl_gem_ops bo_gem_ops = {
	.free = bo_free,
	.get_backing = bo_get_backing,
	.move_pending = bo_move_pending,
	.resident = bo_resident,
};

static void handle_get(void *obj)
{
	nvl_gem_get(obj);
}

static void handle_put(void *obj)
{
	nvl_gem_put(obj);
}

static void client_release(struct nvl_client *c);

static const struct nvl_handle_ops bo_handle_ops = {
	.get = handle_get,
	.put = handle_put,
	.release = client_release,
};

__attribute__((constructor)) static void bo_register_kind(void)
{
	nvl_handle_kind_register(NVL_HANDLE_BO, &bo_handle_ops);
}

struct nvl_gem_object *nvl_gem_lookup(struct nvl_client *client,
				      uint32_t handle)
{
	return nvl_client_handle_get(client, NVL_HANDLE_BO, handle);
}

struct nvl_bo *nvl_bo_lookup(struct nvl_client *client, uint32_t handle)
{
	struct nvl_gem_object *obj = nvl_gem_lookup(client, handle);

	return obj ? nvl_bo_from_gem(obj) : NULL;
}

/* ---- create ----------------------------------------------------------- */

int nvl_bo_create_internal(struct nvl_mm *mm, uint64_t client_id,
			   uint64_t size_B, uint32_t domains,
			   uint32_t preferred, uint32_t flags,
			   struct nvl_resv *shared_resv, void *vm_private,
			   struct nvl_bo **bo_out)
{
	uint64_t cap = 0;
	struct nvl_bo *bo;
	int ret;

	if (!size_B || size_B > NVL_BO_MAX_SIZE)
		return nvl_error(-EINVAL, "bo: size %llu outside 1..%llu",
				 (unsigned long long)size_B,
				 (unsigned long long)NVL_BO_MAX_SIZE);
	if (!domains || (domains & ~NVL_BO_DOMAIN_ALL))
		return nvl_error(-EINVAL, "bo: bad domains %#x", domains);
	if (flags & ~NVL_BO_FLAGS_ALL)
		return nvl_error(-EINVAL, "bo: unknown flags %#x",
				 flags & ~NVL_BO_FLAGS_ALL);
	if (!preferred)
		preferred = domains & -domains;
	if (!NVL_IS_POW2(preferred) || !(preferred & domains))
		return nvl_error(-EINVAL,
				 "bo: preferred domain %#x not one "
				 "of %#x",
				 preferred, domains);
	size_B = NVL_ALIGN_UP(size_B, 4096);
	if (domains & NVL_BO_DOMAIN_VRAM)
		cap = (flags & NVL_BO_CPU_VISIBLE) ? mm->visible_B
						   : mm->vram.size_B;
	if (domains & (NVL_BO_DOMAIN_GTT | NVL_BO_DOMAIN_SYSTEM))
		cap = NVL_MAX(cap, __atomic_load_n(&mm->host_budget_B,
						   __ATOMIC_RELAXED));
	if (size_B > cap)
		return nvl_error(-E2BIG,
				 "bo: %llu bytes exceed every allowed "
				 "domain",
				 (unsigned long long)size_B);

	bo = nvl_zalloc(sizeof(*bo));
	if (!bo)
		return -ENOMEM;
	nvl_kref_init(&bo->gem.ref);
	bo->gem.size_B = size_B;
	bo->gem.vm_private = vm_private;
	bo->gem.ops = &bo_gem_ops;
	bo->gem.client_id = client_id;
	nvl_list_init(&bo->gem.gpuva.list);
	bo->mm = mm;
	bo->domains = domains;
	bo->preferred = preferred;
	bo->flags = flags | (vm_private ? NVL_BO_NO_SHARE : 0);
	bo->dom = NVL_GEM_DOMAIN_NONE;
	bo->swap_fd = -1;
	nvl_list_init(&bo->blocks);
	nvl_list_init(&bo->lru);
	nvl_list_init(&bo->maps);
	if (shared_resv) {
		bo->gem.resv = shared_resv;
		ret = nvl_resv_lock(shared_resv, NULL);
		if (ret)
			goto fail_lock;
	} else {
		nvl_resv_init(&bo->own_resv);
		bo->gem.resv = &bo->own_resv;
		if (NVL_NEVER(!nvl_resv_trylock(&bo->own_resv))) {
			ret = -EBUSY;
			goto fail_lock;
		}
	}
	ret = nvl_bo_validate_preferred(bo);
	nvl_resv_unlock(bo->gem.resv);
	if (ret)
		goto fail_lock;
	*bo_out = bo;
	return 0;

fail_lock:
	if (!shared_resv)
		nvl_resv_fini(&bo->own_resv);
	nvl_free(bo);
	return ret;
}

/* ---- CPU mapping ------------------------------------------------------ */

int nvl_bo_kmap(struct nvl_bo *bo, void **ptr_out)
{
	struct nvl_mm *mm = bo->mm;
	int ret;

	nvl_resv_assert_held(bo->gem.resv);
	if ((bo->domains & NVL_BO_DOMAIN_VRAM) &&
	    !(bo->flags & NVL_BO_CPU_VISIBLE))
		return nvl_error(-EPERM, "bo: mapping a BO that may live in "
					 "VRAM needs NVL_BO_CPU_VISIBLE");
	if (bo->dom == NVL_GEM_DOMAIN_NONE) {
		ret = nvl_bo_validate_preferred(bo);
		if (ret)
			return ret;
	}
	ret = nvl_resv_wait(bo->gem.resv, NVL_RESV_USAGE_KERNEL,
			    NVL_TIMEOUT_INFINITE);
	if (ret)
		return ret;
	nvl_mutex_lock(&mm->lock);
	if (bo->dom == NVL_GEM_DOMAIN_VRAM) {
		struct nvl_buddy_block *b = nvl_list_first_entry(
			&bo->blocks, struct nvl_buddy_block, link);

		*ptr_out = nvl_mm_vram_ptr(mm, nvl_buddy_block_offset(b));
	} else {
		*ptr_out = bo->host;
	}
	bo->map_count++;
	nvl_mutex_unlock(&mm->lock);
	return 0;
}

void nvl_bo_kunmap(struct nvl_bo *bo)
{
	nvl_mutex_lock(&bo->mm->lock);
	if (!NVL_NEVER(bo->map_count == 0))
		bo->map_count--;
	nvl_mutex_unlock(&bo->mm->lock);
}

/* ---- client API ------------------------------------------------------- */

static struct nvl_bo *lookup_or_err(struct nvl_client *client, uint32_t handle,
				    int *err)
{
	struct nvl_bo *bo;

	if (!client) {
		*err = nvl_error(-EINVAL, "bo: NULL client");
		return NULL;
	}
	bo = nvl_bo_lookup(client, handle);
	if (!bo)
		*err = nvl_error(-ENOENT, "bo: no BO handle %u in this client",
				 handle);
	return bo;
}

/* A BO the CPU may map: VRAM BOs need CPU_VISIBLE. */
static struct nvl_bo *lookup_mappable(struct nvl_client *client,
				      uint32_t handle, int *err)
{
	struct nvl_bo *bo = lookup_or_err(client, handle, err);

	if (bo && (bo->domains & NVL_BO_DOMAIN_VRAM) &&
	    !(bo->flags & NVL_BO_CPU_VISIBLE)) {
		nvl_bo_put(bo);
		*err = nvl_error(-EPERM, "bo: handle %u is not CPU-visible",
				 handle);
		return NULL;
	}
	return bo;
}

int nvl_bo_create(struct nvl_client *client, uint64_t size_B, uint32_t domains,
		  uint32_t preferred, uint32_t flags, uint32_t *handle_out)
{
	struct nvl_mm *mm;
	struct nvl_bo *bo = NULL;
	int ret;

	if (!client || !handle_out)
		return nvl_error(-EINVAL, "bo: create: NULL %s",
				 !client ? "client" : "handle_out");
	mm = nvl_mm_of_client(client);
	if (!mm)
		return nvl_error(-ENOMEM, "bo: no memory manager");
	ret = nvl_bo_create_internal(mm, client->id, size_B, domains, preferred,
				     flags, NULL, NULL, &bo);
	if (ret)
		return ret;
	ret = nvl_client_handle_add(client, NVL_HANDLE_BO, &bo->gem,
				    handle_out);
	nvl_bo_put(bo);
	return ret;
}

int nvl_bo_close(struct nvl_client *client, uint32_t handle)
{
	if (!client)
		return nvl_error(-EINVAL, "bo: close: NULL client");
	if (nvl_client_handle_remove(client, NVL_HANDLE_BO, handle))
		return nvl_error(-EINVAL, "bo: close of unknown handle %u",
				 handle);
	return 0;
}

/*
 * Per-client mapping records: a client can only end its own mappings. Each
 * is on its BO's list and on its client's (both under mm->lock), and each
 * of its @count mappings holds a reference on the BO. A client that goes
 * ends the mappings it still has (client_release()): otherwise a BO it
 * mapped and never unmapped, or whose handle it closed first (unmap needs
 * the handle), stayed pinned and alive for good.
 */
struct map_rec {
	struct nvl_list link;
	struct nvl_list client_link;
	struct nvl_bo *bo;
	uint64_t client_id;
	unsigned count;
	/* nvl_bo_map() calls between their lookup and their result: the
	 * record stays while any is pending (mm->lock) */
	unsigned pending;
};

static void map_rec_del(struct map_rec *r)
{
	nvl_list_del(&r->link);
	nvl_list_del(&r->client_link);
	nvl_free(r);
}

/* The client is going: nobody calls with it any more. */
static void client_release(struct nvl_client *c)
{
	struct map_rec *r, *t;

	nvl_list_for_each_entry_safe (r, t, &c->maps, client_link) {
		struct nvl_bo *bo = r->bo;
		unsigned n = r->count;

		nvl_mutex_lock(&bo->mm->lock);
		if (!NVL_NEVER(bo->map_count < n))
			bo->map_count -= n;
		map_rec_del(r);
		nvl_mutex_unlock(&bo->mm->lock);
		while (n--)
			nvl_bo_put(bo);
	}
}

static struct map_rec *find_map(struct nvl_bo *bo, uint64_t client_id)
{
	struct map_rec *r;

	nvl_list_for_each_entry (r, &bo->maps, link)
		if (r->client_id == client_id)
			return r;
	return NULL;
}

int nvl_bo_map(struct nvl_client *client, uint32_t handle, void **ptr_out)
{
	struct map_rec *rec = NULL;
	struct nvl_bo *bo;
	int ret;

	if (!ptr_out)
		return nvl_error(-EINVAL, "bo: map: NULL ptr_out");
	bo = lookup_mappable(client, handle, &ret);
	if (!bo)
		return ret;
	nvl_mutex_lock(&bo->mm->lock);
	rec = find_map(bo, client->id);
	if (!rec) {
		rec = nvl_zalloc(sizeof(*rec));
		if (rec) {
			rec->client_id = client->id;
			rec->bo = bo;
			nvl_list_add(&rec->link, &bo->maps);
			nvl_list_add(&rec->client_link, &client->maps);
		}
	}
	if (rec)
		rec->pending++;
	nvl_mutex_unlock(&bo->mm->lock);
	if (!rec) {
		nvl_bo_put(bo);
		return -ENOMEM;
	}
	ret = nvl_resv_lock(bo->gem.resv, NULL);
	if (!ret) {
		ret = nvl_bo_kmap(bo, ptr_out);
		nvl_resv_unlock(bo->gem.resv);
	}
	nvl_mutex_lock(&bo->mm->lock);
	rec->pending--;
	if (!ret)
		rec->count++;
	else if (!rec->count && !rec->pending)
		map_rec_del(rec);
	nvl_mutex_unlock(&bo->mm->lock);
	if (ret)
		nvl_bo_put(bo); /* a mapping keeps the lookup's reference */
	return ret;
}

int nvl_bo_unmap(struct nvl_client *client, uint32_t handle)
{
	struct map_rec *rec;
	struct nvl_bo *bo;
	int ret = 0;

	bo = lookup_mappable(client, handle, &ret);
	if (!bo)
		return ret;
	nvl_mutex_lock(&bo->mm->lock);
	rec = find_map(bo, client->id);
	if (!rec || !rec->count) {
		ret = nvl_error(-EINVAL,
				"bo: handle %u is not mapped by this "
				"client",
				handle);
	} else {
		bo->map_count--;
		if (!--rec->count && !rec->pending)
			map_rec_del(rec);
	}
	nvl_mutex_unlock(&bo->mm->lock);
	if (!ret)
		nvl_bo_put(bo); /* the mapping's */
	nvl_bo_put(bo);
	return ret;
}

int nvl_bo_use(struct nvl_client *client, uint32_t handle)
{
	struct nvl_bo *bo;
	int ret;

	bo = lookup_or_err(client, handle, &ret);
	if (!bo)
		return ret;
	ret = nvl_resv_lock(bo->gem.resv, NULL);
	if (!ret) {
		ret = nvl_bo_validate_preferred(bo);
		nvl_resv_unlock(bo->gem.resv);
	}
	nvl_bo_put(bo);
	return ret;
}

int nvl_bo_wait(struct nvl_client *client, uint32_t handle, int64_t timeout_ns)
{
	struct nvl_bo *bo;
	int ret;

	if (timeout_ns < 0)
		return nvl_error(-EINVAL, "bo: negative timeout");
	bo = lookup_or_err(client, handle, &ret);
	if (!bo)
		return ret;
	ret = nvl_resv_wait(bo->gem.resv, NVL_RESV_USAGE_BOOKKEEP, timeout_ns);
	nvl_bo_put(bo);
	return ret;
}

int nvl_bo_export(struct nvl_client *client, uint32_t handle,
		  uint64_t *token_out)
{
	struct nvl_bo *bo;
	struct nvl_mm *mm;
	int ret = 0;

	if (!token_out)
		return nvl_error(-EINVAL, "bo: export: NULL token_out");
	bo = lookup_or_err(client, handle, &ret);
	if (!bo)
		return ret;
	mm = bo->mm;
	if (bo->flags & NVL_BO_NO_SHARE) {
		nvl_bo_put(bo);
		return nvl_error(-EPERM, "bo: handle %u cannot be shared",
				 handle);
	}
	nvl_mutex_lock(&mm->lock);
	if (!bo->export_id) {
		ret = nvl_idr_alloc(&mm->exports, bo, &bo->export_id);
		if (!ret && bo->export_id >> NVL_MM_TOKEN_SLOT_BITS) {
			nvl_idr_remove(&mm->exports, bo->export_id);
			bo->export_id = 0;
			ret = nvl_error(-ENOSPC, "bo: %u exports are live",
					(1u << NVL_MM_TOKEN_SLOT_BITS) - 1);
		}
		if (!ret)
			bo->export_token =
				(uint64_t)mm->serial << 48 |
				(uint64_t)(++mm->export_gen &
					   ((1u << NVL_MM_TOKEN_GEN_BITS) - 1))
					<< NVL_MM_TOKEN_SLOT_BITS |
				bo->export_id;
	}
	if (!ret)
		*token_out = bo->export_token;
	nvl_mutex_unlock(&mm->lock);
	nvl_bo_put(bo);
	return ret;
}

int nvl_bo_import(struct nvl_client *client, uint64_t token,
		  uint32_t *handle_out)
{
	struct nvl_mm *mm;
	struct nvl_bo *bo;
	uint32_t slot;
	int ret;

	if (!client || !handle_out)
		return nvl_error(-EINVAL, "bo: import: NULL %s",
				 !client ? "client" : "handle_out");
	mm = nvl_mm_of_client(client);
	if (!mm)
		return nvl_error(-ENOMEM, "bo: no memory manager");
	if (token >> 48 != mm->serial && nvl_mm_serial_issued(token >> 48))
		return nvl_error(-EXDEV,
				 "bo: export %#llx is another device's memory "
				 "manager's, not this client's",
				 (unsigned long long)token);
	/* a serial no manager was given: unknown (slot 0 is never used) */
	slot = token >> 48 == mm->serial
		       ? (uint32_t)token & ((1u << NVL_MM_TOKEN_SLOT_BITS) - 1)
		       : 0;
	nvl_mutex_lock(&mm->lock);
	bo = nvl_idr_find(&mm->exports, slot);
	if (bo && (bo->export_token != token ||
		   !nvl_kref_get_unless_zero(&bo->gem.ref)))
		bo = NULL;
	nvl_mutex_unlock(&mm->lock);
	if (!bo)
		return nvl_error(-ENOENT,
				 "bo: export %#llx is stale or "
				 "unknown",
				 (unsigned long long)token);
	/*
	 * As PRIME: a client that already has the object gets its handle.
	 * The look and the new handle under one hold of the client's lock:
	 * two imports of one token at once got two handles before.
	 */
	{
		uint32_t id = 1;
		void *obj;

		nvl_client_lock(client);
		while ((id = nvl_idr_next(&client->tables[NVL_HANDLE_BO], id,
					  &obj)) &&
		       obj != &bo->gem)
			id++;
		if (id) {
			*handle_out = id;
			ret = 0;
		} else {
			ret = nvl_idr_alloc(&client->tables[NVL_HANDLE_BO],
					    &bo->gem, handle_out);
			if (!ret)
				nvl_gem_get(&bo->gem); /* the handle's */
		}
		nvl_client_unlock(client);
	}
	nvl_bo_put(bo);
	return ret ? nvl_error(ret, "bo: import: no handle (%d)", ret) : 0;
}

int nvl_bo_query(struct nvl_client *client, uint32_t handle,
		 struct nvl_bo_info *info_out)
{
	struct nvl_bo *bo;
	int ret;

	if (!info_out)
		return nvl_error(-EINVAL, "bo: query: NULL info_out");
	bo = lookup_or_err(client, handle, &ret);
	if (!bo)
		return ret;
	nvl_mutex_lock(&bo->mm->lock);
	info_out->size_B = bo->gem.size_B;
	info_out->domains = bo->domains;
	info_out->preferred = bo->preferred;
	info_out->flags = bo->flags;
	info_out->current =
		bo->dom == NVL_GEM_DOMAIN_NONE ? 0 : 1u << (bo->dom - 1);
	info_out->pinned = bo->pin_count || bo->map_count;
	nvl_mutex_unlock(&bo->mm->lock);
	nvl_bo_put(bo);
	return 0;
}

int nvl_bo_madvise(struct nvl_client *client, uint32_t handle, uint32_t advice,
		   bool *retained_out)
{
	struct nvl_bo *bo;
	int ret;

	if (advice > NVL_BO_MADV_DONTNEED)
		return nvl_error(-EINVAL, "bo: unknown advice %u", advice);
	if (!retained_out)
		return nvl_error(-EINVAL, "bo: madvise: NULL retained_out");
	bo = lookup_or_err(client, handle, &ret);
	if (!bo)
		return ret;
	nvl_mutex_lock(&bo->mm->lock);
	*retained_out = !bo->purged;
	bo->purgeable = advice == NVL_BO_MADV_DONTNEED;
	if (!bo->purgeable)
		bo->purged = false;
	nvl_mutex_unlock(&bo->mm->lock);
	nvl_bo_put(bo);
	return 0;
}

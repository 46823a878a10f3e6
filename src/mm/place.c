// SPDX-License-Identifier: MIT
/*
 * DOC: Placement and eviction
 *
 * TTM's current model. A placement is an ordered list of places; a place
 * flagged DESIRED is tried only without eviction, FALLBACK only with it.
 * nvl_bo_validate() keeps a BO that already sits in a non-FALLBACK place,
 * else tries the non-FALLBACK places without evicting; keeps a BO that sits
 * in a non-DESIRED place (an allowed fallback, TTM's compatible check when
 * evicting); else tries the non-DESIRED places evicting least recently used
 * BOs of the target domain one by one (LRU per priority, priority 0 first,
 * head first; pinned or mapped BOs, BOs whose resv is contended and BOs
 * outside a requested range are skipped) until the allocation fits; when
 * the LRUs are exhausted it waits for the fences of busy released BOs
 * holding VRAM, one by one, while they could still free enough (memory
 * busy is not memory full: the fences bound the wait, as in TTM), then
 * fails (-ENOMEM).
 *
 * When the CPU-visible window is smaller than VRAM, CPU-visible BOs are
 * placed inside it (contiguous) and the others top-down, so the window stays
 * free for those that need it.
 *
 * An empty placement "guts" a BO (TTM): its backing is dropped and it reads
 * zero when next placed; memory the GPU may still use goes to a ghost, a
 * zombie holding it until the BO's fences signal. Eviction guts purgeable
 * (DONTNEED, not shared) BOs instead of copying them.
 *
 * Evicting a VRAM BO moves it to GTT (or SYSTEM when GTT is not allowed)
 * with a copy job: the job waits for the BO's fences (and the dependency
 * hook's: the jobs of the VMs that map it) and its fence becomes the BO's
 * KERNEL fence, the VRAM is freed at once (pipelined, see mm.c) and GPUVM
 * hears of it through the evict hook. A validate move (move_to()) is the
 * same copy job, and the evict hooks hear it as a move in, so the mappings
 * are rewritten at the next validate. GTT and SYSTEM are both host
 * pages here, so moving between them relabels the pages; host memory is
 * reclaimed by the shrinker (shrink.c), not by LRU eviction.
 *
 * Released BOs whose fences are still pending become zombies: they keep
 * their memory until a later allocation finds their fences signalled.
 *
 * Each VM's private BOs sit contiguously in every LRU (struct nvl_mm_bulk
 * records the first and last), so nvl_mm_bulk_move_tail() moves all of
 * them to the most-recently-used end with one splice per domain.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/log.h"
#include "base/time.h"
#include "mm/bo.h"
#include "sync/fence.h"

/* ---- LRU -------------------------------------------------------------- */

/* The bulk move @bo's LRU place belongs to: none while pinned (TTM keeps
 * pinned resources out of bulk moves). */
static struct nvl_mm_bulk *bulk_of(const struct nvl_bo *bo)
{
	return bo->pin_count ? NULL : bo->bulk;
}

static struct nvl_list *lru_of(struct nvl_mm *mm, const struct nvl_bo *bo)
{
	return &mm->lru[bo->dom][bo->priority];
}

void nvl_mm_lru_add(struct nvl_mm *mm, struct nvl_bo *bo)
{
	struct nvl_mm_bulk *bulk = bulk_of(bo);
	int d = bo->dom, p = bo->priority;

	mm->used_B[d] += bo->gem.size_B;
	if (bulk && bulk->last[d][p]) {
		struct nvl_list *at = &bulk->last[d][p]->lru;

		__nvl_list_add(&bo->lru, at, at->next);
		bulk->last[d][p] = bo;
		return;
	}
	nvl_list_add_tail(&bo->lru, lru_of(mm, bo));
	if (bulk)
		bulk->first[d][p] = bulk->last[d][p] = bo;
}

/*
 * Take @bo (on its LRU) out of @bulk's range without moving it to the
 * most recently used end: at either end of the range it stays where it is;
 * from the middle it moves just past the range (as TTM does), keeping the
 * range contiguous.
 */
static void bulk_leave(struct nvl_mm_bulk *bulk, struct nvl_bo *bo)
{
	int d = bo->dom, p = bo->priority;

	if (bulk->first[d][p] == bo && bulk->last[d][p] == bo) {
		bulk->first[d][p] = bulk->last[d][p] = NULL;
	} else if (bulk->first[d][p] == bo) {
		bulk->first[d][p] =
			nvl_list_entry(bo->lru.next, struct nvl_bo, lru);
	} else if (bulk->last[d][p] == bo) {
		bulk->last[d][p] =
			nvl_list_entry(bo->lru.prev, struct nvl_bo, lru);
	} else {
		struct nvl_list *at = &bulk->last[d][p]->lru;

		nvl_list_del(&bo->lru);
		__nvl_list_add(&bo->lru, at, at->next);
	}
}

void nvl_mm_lru_del(struct nvl_mm *mm, struct nvl_bo *bo)
{
	struct nvl_mm_bulk *bulk = bulk_of(bo);

	if (nvl_list_empty(&bo->lru))
		return;
	mm->used_B[bo->dom] -= bo->gem.size_B;
	if (bulk)
		bulk_leave(bulk, bo);
	nvl_list_del(&bo->lru);
}

void nvl_mm_bo_touch(struct nvl_bo *bo)
{
	struct nvl_mm *mm = bo->mm;

	nvl_mutex_lock(&mm->lock);
	if (!bulk_of(bo) && !nvl_list_empty(&bo->lru))
		nvl_list_move_tail(&bo->lru, lru_of(mm, bo));
	nvl_mutex_unlock(&mm->lock);
}

void nvl_bo_set_bulk_move(struct nvl_bo *bo, struct nvl_mm_bulk *bulk)
{
	struct nvl_mm *mm = bo->mm;

	nvl_mutex_lock(&mm->lock);
	if (bo->bulk != bulk && !nvl_list_empty(&bo->lru)) {
		/* Leaving keeps the LRU place; joining goes to the range. */
		if (bulk_of(bo))
			bulk_leave(bo->bulk, bo);
		bo->bulk = NULL;
		if (bulk && !bo->pin_count) {
			nvl_mm_lru_del(mm, bo);
			bo->bulk = bulk;
			nvl_mm_lru_add(mm, bo);
		}
	}
	bo->bulk = bulk;
	nvl_mutex_unlock(&mm->lock);
}

int nvl_bo_set_priority(struct nvl_bo *bo, unsigned prio)
{
	struct nvl_mm *mm = bo->mm;
	bool on;

	nvl_resv_assert_held(bo->gem.resv);
	if (prio >= NVL_BO_PRIORITIES)
		return nvl_error(-EINVAL, "bo: priority %u above %d", prio,
				 NVL_BO_PRIORITIES - 1);
	nvl_mutex_lock(&mm->lock);
	on = !nvl_list_empty(&bo->lru);
	if (on)
		nvl_mm_lru_del(mm, bo);
	bo->priority = prio;
	if (on)
		nvl_mm_lru_add(mm, bo);
	nvl_mutex_unlock(&mm->lock);
	return 0;
}

void nvl_mm_bulk_move_tail(struct nvl_mm *mm, struct nvl_mm_bulk *bulk)
{
	nvl_mutex_lock(&mm->lock);
	for (int d = 0; d < NVL_MM_NDOM; d++) {
		for (int p = 0; p < NVL_BO_PRIORITIES; p++) {
			struct nvl_list *head = &mm->lru[d][p], *f, *l;

			if (!bulk->first[d][p])
				continue;
			f = &bulk->first[d][p]->lru;
			l = &bulk->last[d][p]->lru;
			if (l->next == head)
				continue;
			/* Cut [f, l] out and splice it before head. */
			f->prev->next = l->next;
			l->next->prev = f->prev;
			f->prev = head->prev;
			head->prev->next = f;
			l->next = head;
			head->prev = l;
		}
	}
	nvl_mutex_unlock(&mm->lock);
}

/* ---- backing ---------------------------------------------------------- */

void nvl_mm_release_backing(struct nvl_mm *mm, struct nvl_bo *bo)
{
	enum nvl_gem_domain dom = bo->dom;
	void *host = bo->host;
	struct nvl_list blocks;

	nvl_list_init(&blocks);
	nvl_flock_lock(&mm->place_lock);
	nvl_list_splice_tail_init(&bo->blocks, &blocks);
	bo->host = NULL;
	bo->dom = NVL_GEM_DOMAIN_NONE;
	nvl_flock_unlock(&mm->place_lock);
	switch (dom) {
	case NVL_GEM_DOMAIN_VRAM:
		nvl_buddy_free_list(&mm->vram, &blocks, 0);
		break;
	case NVL_GEM_DOMAIN_GTT:
	case NVL_GEM_DOMAIN_SYSTEM:
		nvl_mm_host_free(mm, host, bo->gem.size_B);
		break;
	default:
		break;
	}
	if (bo->swap_fd >= 0) {
		close(bo->swap_fd);
		bo->swap_fd = -1;
	}
}

void nvl_mm_reap_zombies(struct nvl_mm *mm)
{
	struct nvl_bo *bo, *n;

	nvl_list_for_each_entry_safe (bo, n, &mm->zombies, lru) {
		bool idle = true;

		for (unsigned i = 0; i < bo->nzfences && idle; i++)
			idle = nvl_fence_is_signaled(bo->zfences[i]);
		if (!idle)
			continue;
		nvl_list_del(&bo->lru);
		nvl_mm_bo_destroy(mm, bo);
	}
}

/* VRAM allocation flags and range for @bo. */
static void vram_params(struct nvl_mm *mm, struct nvl_bo *bo, unsigned *flags,
			uint64_t *end)
{
	*flags = NVL_BUDDY_CLEAR;
	*end = 0;
	if (bo->flags & (NVL_BO_CONTIGUOUS | NVL_BO_CPU_VISIBLE))
		*flags |= NVL_BUDDY_CONTIGUOUS;
	if (mm->visible_B < mm->vram.size_B) {
		if (bo->flags & NVL_BO_CPU_VISIBLE) {
			*flags |= NVL_BUDDY_RANGE;
			*end = mm->visible_B;
		} else {
			/* Keep the CPU-visible window for those who need it. */
			*flags |= NVL_BUDDY_TOPDOWN;
		}
	}
}

static bool in_range(struct nvl_mm *mm, struct nvl_bo *bo, uint64_t end)
{
	struct nvl_buddy_block *b;

	if (!end)
		return true;
	nvl_list_for_each_entry (b, &bo->blocks, link)
		if (nvl_buddy_block_offset(b) < end)
			return true;
	return false;
}

/* put @n fences of @f and free the array */
static void fences_free(struct nvl_fence **f, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		nvl_fence_put(f[i]);
	nvl_free(f);
}

static int gut(struct nvl_mm *mm, struct nvl_bo *bo);

/* Move @victim out of VRAM (resv held); a purgeable one is gutted. */
static int evict_bo(struct nvl_mm *mm, struct nvl_bo *victim)
{
	enum nvl_gem_domain to =
		(victim->domains & NVL_BO_DOMAIN_GTT) ||
				!(victim->domains & NVL_BO_DOMAIN_SYSTEM)
			? NVL_GEM_DOMAIN_GTT
			: NVL_GEM_DOMAIN_SYSTEM;
	void *host;
	int ret;

	if (nvl_bo_purgeable(victim)) {
		/* DONTNEED: the evict placement is empty, the content goes. */
		ret = gut(mm, victim);
		if (!ret) {
			victim->purged = true;
			atomic_fetch_add(&mm->evictions, 1);
		}
		return ret;
	}
	/* host pages a queued move gives up, or new ones */
	ret = nvl_mm_queue_evict(mm, victim, to, &host);
	if (ret)
		return ret;
	nvl_mm_lru_del(mm, victim);
	nvl_flock_lock(&mm->place_lock);
	nvl_buddy_free_list(&mm->vram, &victim->blocks, 0);
	victim->dom = to;
	victim->host = host;
	nvl_flock_unlock(&mm->place_lock);
	nvl_mm_lru_add(mm, victim);
	victim->evicted = true;
	atomic_fetch_add(&mm->evictions, 1);
	nvl_mm_notify_evict(victim, true);
	return 0;
}

int nvl_mm_evict_one(struct nvl_mm *mm, enum nvl_gem_domain dom,
		     struct nvl_resv *held, uint64_t end)
{
	if (dom != NVL_GEM_DOMAIN_VRAM)
		return -ENOSPC;
	/* Priority 0 first, each LRU oldest first. */
	for (int p = 0; p < NVL_BO_PRIORITIES; p++) {
		struct nvl_bo *bo, *n;

		nvl_list_for_each_entry_safe (bo, n, &mm->lru[dom][p], lru) {
			bool locked = false;
			int ret;

			if (bo->pin_count || bo->map_count ||
			    nvl_kref_read(&bo->gem.ref) == 0 ||
			    !in_range(mm, bo, end))
				continue;
			if (bo->gem.resv != held) {
				if (!nvl_resv_trylock(bo->gem.resv))
					continue;
				locked = true;
			}
			ret = evict_bo(mm, bo);
			if (locked)
				nvl_resv_unlock(bo->gem.resv);
			if (ret != -ENOSPC)
				return ret;
		}
	}
	return -ENOSPC;
}

/*
 * Could the released BOs holding VRAM below @end (0 = any) free enough for
 * @size_B, with what is free? (An upper bound: fragmentation may still
 * leave it short; the caller then waits for the rest and fails.)
 */
static bool zombies_could_fit(struct nvl_mm *mm, uint64_t end, uint64_t size_B)
{
	uint64_t have = mm->vram.avail_B;
	struct nvl_bo *bo;

	nvl_list_for_each_entry (bo, &mm->zombies, lru) {
		if (bo->dom != NVL_GEM_DOMAIN_VRAM || !in_range(mm, bo, end))
			continue;
		have += bo->gem.size_B;
		if (have >= size_B)
			return true;
	}
	return false;
}

/*
 * Wait for the oldest released BO still holding VRAM below @end (0 = any)
 * to go idle, then free it: memory busy is not memory full (TTM waits for
 * the fences of what it frees). The wait is bounded by the fences
 * themselves (the scheduler's job timeout; a lost GPU signals them with an
 * error) and by @deadline (mm->zombie_wait_ns, infinite by default).
 * mm->lock held: the fences it waits for are signalled by the GPU or the
 * move worker, which never take it.
 * Return: 0 when one was freed, -ENOSPC when none is left, none could free
 * enough for @size_B, or the deadline passed.
 */
static int wait_zombie(struct nvl_mm *mm, uint64_t end, uint64_t size_B,
		       int64_t deadline)
{
	struct nvl_bo *bo;

	if (!zombies_could_fit(mm, end, size_B))
		return -ENOSPC;
	nvl_list_for_each_entry (bo, &mm->zombies, lru) {
		if (bo->dom != NVL_GEM_DOMAIN_VRAM || !in_range(mm, bo, end))
			continue;
		for (unsigned i = 0; i < bo->nzfences; i++)
			if (nvl_fence_wait_until(bo->zfences[i], deadline) != 0)
				return -ENOSPC;
		nvl_list_del(&bo->lru);
		nvl_mm_bo_destroy(mm, bo);
		return 0;
	}
	return -ENOSPC;
}

/* ---- validate --------------------------------------------------------- */

static bool dom_allowed(struct nvl_bo *bo, enum nvl_gem_domain d)
{
	return d >= NVL_GEM_DOMAIN_VRAM && d <= NVL_GEM_DOMAIN_SYSTEM &&
	       (bo->domains & (1u << (d - 1)));
}

/* New backing for @bo in @dom, with eviction when @evict. */
static int alloc_backing(struct nvl_mm *mm, struct nvl_bo *bo,
			 enum nvl_gem_domain dom, bool evict,
			 struct nvl_list *blocks, void **host)
{
	int64_t deadline;
	unsigned flags;
	uint64_t end;
	int ret;

	if (dom != NVL_GEM_DOMAIN_VRAM) {
		if (bo->dom == NVL_GEM_DOMAIN_GTT ||
		    bo->dom == NVL_GEM_DOMAIN_SYSTEM) {
			*host = bo->host; /* relabel only */
			return 0;
		}
		return nvl_mm_host_alloc(mm, bo->gem.size_B,
					 bo->dom == NVL_GEM_DOMAIN_NONE, host);
	}
	if (atomic_load(&mm->vram_off))
		return nvl_error(-EAGAIN, "bo: no VRAM placement while the "
					  "device is suspended");
	ret = nvl_mm_vram_ready(mm);
	if (ret)
		return ret;
	vram_params(mm, bo, &flags, &end);
	deadline = nvl_deadline_after(mm->zombie_wait_ns);
	for (;;) {
		ret = nvl_buddy_alloc(&mm->vram, 0, end ? end : mm->vram.size_B,
				      bo->gem.size_B, 4096, blocks, flags);
		if (ret != -ENOSPC)
			return ret;
		nvl_mm_reap_zombies(mm);
		ret = nvl_buddy_alloc(&mm->vram, 0, end ? end : mm->vram.size_B,
				      bo->gem.size_B, 4096, blocks, flags);
		if (ret != -ENOSPC || !evict)
			return ret;
		ret = nvl_mm_evict_one(mm, NVL_GEM_DOMAIN_VRAM, bo->gem.resv,
				       end);
		if (ret == -ENOSPC)
			ret = wait_zombie(mm, end, bo->gem.size_B, deadline);
		if (ret)
			return ret == -ENOSPC ? -ENOMEM : ret;
	}
}

/* Put @bo into @dom using the new backing; old backing released. */
static int move_to(struct nvl_mm *mm, struct nvl_bo *bo,
		   enum nvl_gem_domain dom, struct nvl_list *blocks, void *host)
{
	enum nvl_gem_domain from = bo->dom;
	void *old_host = bo->host;
	bool was_on = !nvl_list_empty(&bo->lru);
	uint64_t old_seq = atomic_load(&bo->move_seq);
	struct nvl_list old;
	int ret = 0;

	nvl_list_init(&old);
	nvl_mm_lru_del(mm, bo);
	/*
	 * The new backing is pending from the moment @bo points at it: a
	 * bind's commit reading it now (get_backing, under place_lock) must
	 * not map it before the job that fills it is done; job_push() puts
	 * that job's seqno in its place.
	 */
	nvl_flock_lock(&mm->place_lock);
	nvl_list_splice_tail_init(&bo->blocks, &old);
	nvl_list_splice_tail_init(blocks, &bo->blocks);
	bo->dom = dom;
	bo->host = dom == NVL_GEM_DOMAIN_VRAM ? NULL : host;
	atomic_store(&bo->move_seq, NVL_MM_SEQ_SETUP);
	nvl_flock_unlock(&mm->place_lock);
	if (from == NVL_GEM_DOMAIN_NONE) {
		/* Fresh: host pages come zeroed; dirty VRAM is cleared. */
		if (dom == NVL_GEM_DOMAIN_VRAM)
			ret = nvl_mm_queue_clear(mm, bo);
	} else if (old_host != bo->host || from == NVL_GEM_DOMAIN_VRAM) {
		ret = nvl_mm_queue_copy(mm, bo, from, &old, old_host, dom);
	}
	if (ret) {
		nvl_flock_lock(&mm->place_lock);
		nvl_list_splice_tail_init(&bo->blocks, blocks);
		nvl_list_splice_tail_init(&old, &bo->blocks);
		bo->dom = from;
		bo->host = old_host;
		atomic_store(&bo->move_seq, old_seq);
		nvl_flock_unlock(&mm->place_lock);
		if (was_on)
			nvl_mm_lru_add(mm, bo);
		/*
		 * A bind's commit may have met the new backing pending and
		 * left its entries invalid: list the mappings for the next
		 * validate, which maps the old backing again.
		 */
		nvl_mm_notify_evict(bo, bo->evicted);
		return ret;
	}
	/* no job (an inline clear, a relabel): the backing is what it was */
	nvl_flock_lock(&mm->place_lock);
	if (atomic_load(&bo->move_seq) == NVL_MM_SEQ_SETUP)
		atomic_store(&bo->move_seq, old_seq);
	nvl_flock_unlock(&mm->place_lock);
	/* Old host pages belong to the copy job now; VRAM is free at once. */
	nvl_buddy_free_list(&mm->vram, &old, 0);
	nvl_mm_lru_add(mm, bo);
	/*
	 * Any move of a placed BO, not only one back from an eviction (a BO
	 * placed in its fallback, then moved to its preferred domain): what
	 * maps the old backing (GPUVM's page tables) must hear of it.
	 */
	if (bo->evicted || from != NVL_GEM_DOMAIN_NONE) {
		bo->evicted = false;
		nvl_mm_notify_evict(bo, false);
	}
	return 0;
}

static void free_new(struct nvl_mm *mm, struct nvl_bo *bo,
		     enum nvl_gem_domain dom, struct nvl_list *blocks,
		     void *host)
{
	if (dom == NVL_GEM_DOMAIN_VRAM)
		nvl_buddy_free_list(&mm->vram, blocks, 0);
	else if (host != bo->host)
		nvl_mm_host_free(mm, host, bo->gem.size_B);
}

static int try_place(struct nvl_mm *mm, struct nvl_bo *bo,
		     enum nvl_gem_domain dom, bool evict)
{
	struct nvl_list blocks;
	void *host = NULL;
	int ret;

	nvl_list_init(&blocks);
	ret = alloc_backing(mm, bo, dom, evict, &blocks, &host);
	if (ret)
		return ret;
	ret = move_to(mm, bo, dom, &blocks, host);
	if (ret)
		free_new(mm, bo, dom, &blocks, host);
	return ret;
}

/*
 * Gutting (TTM's empty placement): drop @bo's backing; it reads zero when
 * next placed. Memory the GPU may still use goes to a ghost, a zombie that
 * holds it until the BO's current fences signal.
 */
static int gut(struct nvl_mm *mm, struct nvl_bo *bo)
{
	struct nvl_bo *ghost = NULL;
	struct nvl_fence **vmf = NULL;
	unsigned nvmf = 0;

	if (bo->pin_count || bo->map_count)
		return nvl_error(-EINVAL, "bo: pinned BO cannot be gutted");
	/* jobs that reach the memory through a VM, not on the BO's resv */
	if (bo->dom != NVL_GEM_DOMAIN_NONE &&
	    nvl_mm_evict_deps(bo, &nvmf, &vmf)) {
		fences_free(vmf, nvmf);
		return -ENOMEM;
	}
	if (bo->dom != NVL_GEM_DOMAIN_NONE &&
	    (nvmf || nvl_resv_test_signaled(bo->gem.resv,
					    NVL_RESV_USAGE_BOOKKEEP) <= 0)) {
		struct nvl_fence **all, *unmapped;

		ghost = nvl_zalloc(sizeof(*ghost));
		if (!ghost ||
		    nvl_resv_get_fences(bo->gem.resv, NVL_RESV_USAGE_BOOKKEEP,
					&ghost->nzfences, &ghost->zfences)) {
			nvl_free(ghost);
			fences_free(vmf, nvmf);
			return -ENOMEM;
		}
		/* room for the VMs' jobs and the unmap job's fence */
		all = nvl_reallocarray(ghost->zfences,
				       ghost->nzfences + nvmf + 1,
				       sizeof(*all));
		/*
		 * The ghost frees the memory once the unmap job ran: the
		 * mappings that still name it are off by then (a job still
		 * running past its fence faults: nvl_gem_unmap_fn).
		 */
		if (!all || nvl_mm_queue_unmap(mm, bo, &unmapped)) {
			fences_free(all ? all : ghost->zfences,
				    ghost->nzfences);
			nvl_free(ghost);
			fences_free(vmf, nvmf);
			return -ENOMEM;
		}
		for (unsigned i = 0; i < nvmf; i++)
			all[ghost->nzfences + i] = vmf[i];
		all[ghost->nzfences + nvmf] = unmapped;
		ghost->zfences = all;
		ghost->nzfences += nvmf + 1;
		nvl_free(vmf);
		vmf = NULL;
		nvmf = 0;
		ghost->mm = mm;
		ghost->gem.size_B = bo->gem.size_B;
		ghost->swap_fd = -1;
		nvl_list_init(&ghost->blocks);
		nvl_list_init(&ghost->maps);
	}
	/* idle: whatever still maps the memory goes now, before it is freed */
	if (!ghost && bo->dom != NVL_GEM_DOMAIN_NONE)
		nvl_mm_unmap_gem(&bo->gem, nvl_mm_leave(bo));
	nvl_mm_lru_del(mm, bo);
	if (ghost) {
		ghost->dom = bo->dom;
		ghost->host = bo->host;
		nvl_flock_lock(&mm->place_lock);
		nvl_list_splice_tail_init(&bo->blocks, &ghost->blocks);
		bo->host = NULL;
		bo->dom = NVL_GEM_DOMAIN_NONE;
		nvl_flock_unlock(&mm->place_lock);
		/* Own resv storage unused: nvl_mm_bo_destroy() skips it. */
		ghost->gem.resv = NULL;
		nvl_list_add_tail(&ghost->lru, &mm->zombies);
	}
	nvl_mm_release_backing(mm, bo); /* swap file; memory if idle */
	bo->purged = false;
	nvl_mm_lru_add(mm, bo);
	if (!bo->evicted) {
		bo->evicted = true;
		nvl_mm_notify_evict(bo, true);
	}
	return 0;
}

/* @bo sits in a place of @places that counts (TTM's compatible check):
 * FALLBACK places count only when evicting, DESIRED ones only when not. */
static bool compatible(const struct nvl_bo *bo, const struct nvl_place *places,
		       unsigned n, bool evicting)
{
	for (unsigned i = 0; i < n; i++) {
		uint32_t skip =
			evicting ? NVL_PLACE_DESIRED : NVL_PLACE_FALLBACK;

		if (places[i].domain == bo->dom && !(places[i].flags & skip))
			return true;
	}
	return false;
}

static int validate_locked(struct nvl_bo *bo, const struct nvl_place *places,
			   unsigned n)
{
	struct nvl_mm *mm = bo->mm;
	int ret = -ENOMEM;

	for (unsigned i = 0; i < n; i++)
		if (!dom_allowed(bo, places[i].domain))
			return nvl_error(-EINVAL,
					 "bo: place %u: domain %d not "
					 "allowed",
					 i, places[i].domain);
	if (!n)
		return gut(mm, bo);
	if (compatible(bo, places, n, false)) {
		if (!bulk_of(bo))
			nvl_list_move_tail(&bo->lru, lru_of(mm, bo));
		return 0;
	}
	if (bo->pin_count || bo->map_count)
		return nvl_error(-EINVAL, "bo: pinned BO cannot move");
	if (bo->dom == NVL_GEM_DOMAIN_NONE && bo->swap_fd >= 0) {
		ret = nvl_bo_swap_in(bo);
		if (ret)
			return ret;
		if (compatible(bo, places, n, false))
			return 0;
	}
	/* Pass A: without eviction. */
	for (unsigned i = 0; i < n; i++) {
		if (places[i].flags & NVL_PLACE_FALLBACK)
			continue;
		ret = try_place(mm, bo, places[i].domain, false);
		if (ret != -ENOSPC && ret != -ENOMEM)
			return ret;
	}
	/* Already in a place allowed when evicting: nothing moves. */
	if (compatible(bo, places, n, true))
		return 0;
	/* Pass B: with eviction. */
	for (unsigned i = 0; i < n; i++) {
		if (places[i].flags & NVL_PLACE_DESIRED)
			continue;
		ret = try_place(mm, bo, places[i].domain, true);
		if (ret != -ENOSPC && ret != -ENOMEM)
			return ret;
	}
	return nvl_error(-ENOMEM, "bo: no room for %llu bytes in any place",
			 (unsigned long long)bo->gem.size_B);
}

int nvl_bo_validate(struct nvl_bo *bo, const struct nvl_place *places,
		    unsigned n)
{
	struct nvl_mm *mm = bo->mm;
	int ret;

	nvl_resv_assert_held(bo->gem.resv);
	nvl_mutex_lock(&mm->lock);
	nvl_mm_reap_zombies(mm);
	ret = validate_locked(bo, places, n);
	nvl_mutex_unlock(&mm->lock);
	return ret;
}

int nvl_bo_validate_preferred(struct nvl_bo *bo)
{
	struct nvl_mm *mm = bo->mm;
	struct nvl_place pl[3];
	unsigned n = 0;
	int ret;

	pl[n++] =
		(struct nvl_place){.domain = __builtin_ctz(bo->preferred) + 1};
	for (unsigned d = 0; d < 3; d++)
		if ((bo->domains & (1u << d)) && (1u << d) != bo->preferred)
			pl[n++] = (struct nvl_place){
				.domain = d + 1, .flags = NVL_PLACE_FALLBACK};
	nvl_resv_assert_held(bo->gem.resv);
	nvl_mutex_lock(&mm->lock);
	nvl_mm_reap_zombies(mm);
	if (bo->dom != NVL_GEM_DOMAIN_NONE &&
	    (bo->pin_count || bo->map_count)) {
		/* Pinned or mapped where it is (an allowed domain): stays. */
		ret = 0;
	} else {
		/* The preferred domain, evicting if need be; else a fallback
		 * (where the BO stays if it already sits in one). */
		ret = validate_locked(bo, pl, 1);
		if (ret == -ENOMEM && n > 1)
			ret = validate_locked(bo, pl, n);
	}
	nvl_mutex_unlock(&mm->lock);
	return ret;
}

int nvl_bo_pin(struct nvl_bo *bo)
{
	nvl_resv_assert_held(bo->gem.resv);
	if (bo->dom == NVL_GEM_DOMAIN_NONE)
		return nvl_error(-EINVAL, "bo: pin of a BO without memory");
	nvl_mutex_lock(&bo->mm->lock);
	/* Out of the bulk range, keeping its LRU place. */
	if (!bo->pin_count && bo->bulk && !nvl_list_empty(&bo->lru))
		bulk_leave(bo->bulk, bo);
	bo->pin_count++;
	nvl_mutex_unlock(&bo->mm->lock);
	return 0;
}

void nvl_bo_unpin(struct nvl_bo *bo)
{
	struct nvl_mm *mm = bo->mm;
	bool rejoin;

	nvl_resv_assert_held(bo->gem.resv);
	nvl_mutex_lock(&mm->lock);
	rejoin = bo->pin_count == 1 && bo->bulk && !nvl_list_empty(&bo->lru);
	if (rejoin)
		nvl_mm_lru_del(mm, bo); /* pinned: not in the range */
	if (!NVL_NEVER(bo->pin_count == 0))
		bo->pin_count--;
	if (rejoin)
		nvl_mm_lru_add(mm, bo); /* back at the range's end */
	nvl_mutex_unlock(&mm->lock);
}

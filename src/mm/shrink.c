// SPDX-License-Identifier: MIT
/*
 * DOC: Host memory budget and the BO shrinker
 *
 * GTT and SYSTEM BOs live in host pages, counted against a budget (by
 * default half of RAM) so that the GPU cannot pin all of the system's
 * memory. An allocation that would exceed it first calls the registered
 * shrinkers, with mm->lock held, the shrinker lock (an NVL_LOCK_RECLAIM
 * class) taken and the thread marked as in reclaim, for as long as they
 * make real progress: only the drop of the budgeted bytes counts (the page
 * pool frees pages that never counted against the budget). If they cannot
 * free enough, the allocation fails with -ENOMEM.
 *
 * The BO shrinker walks the GTT and SYSTEM LRUs, low priority and oldest
 * first; its count is what a scan could take. It skips pinned and mapped
 * BOs, BOs being released and BOs whose resv it cannot trylock; it drops
 * the content of purgeable BOs (DONTNEED and not shared: an exported BO's
 * importers still read it); any other BO it waits on
 * for at most 10 ms, and all waits of a scan for at most 30 ms (skipping
 * BOs still busy), then writes it to a memfd
 * and frees its pages. The next validate (use, map) reads it back. Nothing
 * here allocates through nvl_malloc: reclaim must not recurse.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/log.h"
#include "base/time.h"
#include "mm/bo.h"
#include "sync/checker.h"

#define SHRINK_WAIT_NS (10 * NVL_NSEC_PER_MSEC)
/* All waits of one scan together: past this, only idle BOs are taken. */
#define SHRINK_SCAN_WAIT_NS (30 * NVL_NSEC_PER_MSEC)

void nvl_mm_register_shrinker(struct nvl_mm *mm, struct nvl_mm_shrinker *s)
{
	nvl_mutex_lock(&mm->lock);
	nvl_mutex_lock(&mm->shrink_lock);
	nvl_list_add_tail(&s->link, &mm->shrinkers);
	nvl_mutex_unlock(&mm->shrink_lock);
	nvl_mutex_unlock(&mm->lock);
}

void nvl_mm_unregister_shrinker(struct nvl_mm *mm, struct nvl_mm_shrinker *s)
{
	nvl_mutex_lock(&mm->lock);
	nvl_mutex_lock(&mm->shrink_lock);
	nvl_list_del(&s->link);
	nvl_mutex_unlock(&mm->shrink_lock);
	nvl_mutex_unlock(&mm->lock);
}

/*
 * Run the shrinkers for @want_B bytes (mm->lock held). With @budget, only
 * what lowers mm->host_B counts as progress: pages a shrinker hands to the
 * system without having been counted against the budget (the page pool's)
 * help the system but not the budget, so the walk goes on to the next
 * shrinker instead of stopping on a report of bytes "freed".
 * Return: bytes freed (or, with @budget, host_B's drop).
 */
static uint64_t shrink_locked(struct nvl_mm *mm, uint64_t want_B, bool budget)
{
	uint64_t before = atomic_load(&mm->host_B);
	struct nvl_mm_shrinker *s;
	uint64_t freed = 0;

	/* Reclaim first: the shrinker lock is a reclaim lock. */
	nvl_checker_reclaim_enter();
	nvl_mutex_lock(&mm->shrink_lock);
	nvl_list_for_each_entry (s, &mm->shrinkers, link) {
		uint64_t got;

		if (freed >= want_B)
			break;
		if (s->count && !s->count(s))
			continue;
		got = s->scan(s, want_B - freed);
		if (budget) {
			uint64_t now = atomic_load(&mm->host_B);

			freed = now < before ? before - now : 0;
		} else {
			freed += got;
		}
	}
	nvl_mutex_unlock(&mm->shrink_lock);
	nvl_checker_reclaim_leave();
	return freed;
}

uint64_t nvl_mm_shrink(struct nvl_mm *mm, uint64_t want_B)
{
	uint64_t freed;

	nvl_mutex_lock(&mm->lock);
	freed = shrink_locked(mm, want_B, false);
	nvl_mutex_unlock(&mm->lock);
	return freed;
}

int nvl_mm_host_reserve(struct nvl_mm *mm, uint64_t size_B)
{
	uint64_t used = atomic_load(&mm->host_B);

	/* Reclaim while it makes real progress (host_B drops). */
	while (used + size_B > mm->host_budget_B) {
		if (!shrink_locked(mm, used + size_B - mm->host_budget_B,
				   true)) {
			uint64_t over;

			used = atomic_load(&mm->host_B);
			if (used + size_B <= mm->host_budget_B)
				break; /* a move in flight freed its pages */
			over = used + size_B - mm->host_budget_B;
			return nvl_error(-ENOMEM,
					 "mm: %llu bytes over the "
					 "host budget of %llu",
					 (unsigned long long)over,
					 (unsigned long long)mm->host_budget_B);
		}
		used = atomic_load(&mm->host_B);
	}
	atomic_fetch_add(&mm->host_B, size_B);
	return 0;
}

/* Write @bo's pages to a memfd. Return: the fd or -errno. */
static int swap_write(struct nvl_bo *bo)
{
	uint64_t off = 0;
	int fd = memfd_create("nvl-bo-swap", MFD_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (off < bo->gem.size_B) {
		ssize_t n = pwrite(fd, (uint8_t *)bo->host + off,
				   bo->gem.size_B - off, (off_t)off);

		if (n <= 0) {
			close(fd);
			return n < 0 ? -errno : -EIO;
		}
		off += (uint64_t)n;
	}
	return fd;
}

/*
 * Have the jobs of the VMs that map @bo (the dependency hook's, asked
 * without allocating: the shrinker must not) finished? They are polled
 * until @deadline at most, bounded as the resv wait is.
 */
static bool vm_jobs_done(struct nvl_bo *bo, int64_t deadline)
{
	for (;;) {
		struct timespec ts = {0, 100 * 1000};
		unsigned busy = 0;

		if (nvl_mm_evict_deps(bo, &busy, NULL) || !busy)
			return !busy;
		if (nvl_time_ns() >= deadline ||
		    nvl_time_ns() + ts.tv_nsec > deadline)
			return false;
		nanosleep(&ts, NULL);
	}
}

/* Shrink one BO (resv held, mm->lock held). Return: bytes freed. */
static uint64_t shrink_bo(struct nvl_mm *mm, struct nvl_bo *bo,
			  int64_t deadline)
{
	uint64_t size = bo->gem.size_B;
	int64_t wait = NVL_MIN(SHRINK_WAIT_NS, deadline - nvl_time_ns());
	bool purge = nvl_bo_purgeable(bo);
	int fd = -1;
	void *host;

	/* Even a purge must wait: a queued move may still write the pages. */
	if (nvl_resv_wait(bo->gem.resv, NVL_RESV_USAGE_BOOKKEEP,
			  wait > 0 ? wait : 0))
		return 0;
	/* and so must the jobs that reach them through a VM */
	if (!vm_jobs_done(bo,
			  NVL_MIN(deadline, nvl_time_ns() + SHRINK_WAIT_NS)))
		return 0;
	if (!purge) {
		fd = swap_write(bo);
		if (fd < 0)
			return 0;
	}
	/*
	 * Then whatever still maps the pages goes (a job still running past
	 * a forged fence faults; the pool's IOVAs are not reused either).
	 */
	nvl_mm_unmap_gem(&bo->gem, nvl_mm_leave(bo));
	nvl_mm_lru_del(mm, bo);
	nvl_flock_lock(&mm->place_lock);
	host = bo->host;
	bo->host = NULL;
	bo->dom = NVL_GEM_DOMAIN_NONE;
	nvl_flock_unlock(&mm->place_lock);
	nvl_mm_host_free(mm, host, size);
	bo->swap_fd = fd;
	if (purge)
		bo->purged = true;
	else
		atomic_fetch_add(&mm->swapouts, 1);
	nvl_mm_lru_add(mm, bo);
	bo->evicted = true;
	nvl_mm_notify_evict(bo, true);
	return size;
}

/* Whether the BO shrinker may ever take @bo (mm->lock held). */
static bool shrinkable(struct nvl_bo *bo)
{
	return !bo->pin_count && !bo->map_count &&
	       nvl_kref_read(&bo->gem.ref) != 0;
}

static uint64_t bo_scan(struct nvl_mm_shrinker *s, uint64_t want_B)
{
	struct nvl_mm *mm = s->priv;
	int64_t deadline = nvl_time_ns() + SHRINK_SCAN_WAIT_NS;
	uint64_t freed = 0;
	static const int doms[] = {NVL_GEM_DOMAIN_SYSTEM, NVL_GEM_DOMAIN_GTT};

	/* Purgeable first, then the rest; low priority, oldest first. */
	for (int pass = 0; pass < 2 && freed < want_B; pass++) {
		for (int i = 0; i < 2 * NVL_BO_PRIORITIES && freed < want_B;
		     i++) {
			struct nvl_list *list = &mm->lru[doms[i & 1]][i >> 1];
			struct nvl_bo *bo, *n;

			nvl_list_for_each_entry_safe (bo, n, list, lru) {
				if (freed >= want_B)
					break;
				if (!shrinkable(bo) ||
				    nvl_bo_purgeable(bo) != (pass == 0))
					continue;
				if (!nvl_resv_trylock(bo->gem.resv))
					continue;
				freed += shrink_bo(mm, bo, deadline);
				nvl_resv_unlock(bo->gem.resv);
			}
		}
	}
	return freed;
}

static uint64_t bo_count(struct nvl_mm_shrinker *s)
{
	struct nvl_mm *mm = s->priv;
	static const int doms[] = {NVL_GEM_DOMAIN_SYSTEM, NVL_GEM_DOMAIN_GTT};
	uint64_t n = 0;

	/* Only what a scan could take: not pinned, mapped or dying. */
	for (int i = 0; i < 2 * NVL_BO_PRIORITIES; i++) {
		struct nvl_bo *bo;

		nvl_list_for_each_entry (bo, &mm->lru[doms[i & 1]][i >> 1], lru)
			if (shrinkable(bo))
				n += bo->gem.size_B;
	}
	return n;
}

void nvl_mm_bo_shrinker_init(struct nvl_mm *mm)
{
	mm->bo_shrinker.count = bo_count;
	mm->bo_shrinker.scan = bo_scan;
	mm->bo_shrinker.priv = mm;
	nvl_list_add_tail(&mm->bo_shrinker.link, &mm->shrinkers);
}

int nvl_bo_swap_in(struct nvl_bo *bo)
{
	struct nvl_mm *mm = bo->mm;
	enum nvl_gem_domain to =
		(bo->domains & NVL_BO_DOMAIN_GTT) ||
				!(bo->domains & NVL_BO_DOMAIN_SYSTEM)
			? NVL_GEM_DOMAIN_GTT
			: NVL_GEM_DOMAIN_SYSTEM;
	uint64_t off = 0;
	void *host;
	int ret;

	ret = nvl_mm_host_alloc(mm, bo->gem.size_B, false, &host);
	if (ret)
		return ret;
	while (off < bo->gem.size_B) {
		ssize_t n = pread(bo->swap_fd, (uint8_t *)host + off,
				  bo->gem.size_B - off, (off_t)off);

		if (n <= 0) {
			const char *why =
				n < 0 ? strerror(errno) : "short read";

			nvl_mm_host_free(mm, host, bo->gem.size_B);
			return nvl_error(-EIO, "bo: swap-in failed (%s)", why);
		}
		off += (uint64_t)n;
	}
	nvl_mm_lru_del(mm, bo);
	close(bo->swap_fd);
	bo->swap_fd = -1;
	nvl_flock_lock(&mm->place_lock);
	bo->host = host;
	bo->dom = to;
	nvl_flock_unlock(&mm->place_lock);
	nvl_mm_lru_add(mm, bo);
	atomic_fetch_add(&mm->swapins, 1);
	return 0;
}

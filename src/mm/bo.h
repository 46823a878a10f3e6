/* SPDX-License-Identifier: MIT */
/*
 * Buffer objects and the memory manager that places them (internal API).
 *
 * struct nvl_mm is one device's memory: a VRAM region managed by the buddy
 * allocator, host pages for GTT and SYSTEM under a budget, an LRU per
 * domain, a move worker that copies (and clears) memory in FIFO order with a
 * fence per job, and the registered shrinkers. struct nvl_bo embeds the GEM
 * object (mm/gem.h) that GPUVM sees.
 *
 * Locking, outermost first: a BO's resv (ww mutex) -> mm->lock (nvl_mutex,
 * allocation allowed under it) -> the shrinker lock (NVL_LOCK_RECLAIM: no
 * allocation, resvs only trylocked, fence waits bounded). The move worker
 * and its completer take none of them: the worker waits for a job's
 * dependencies and hands it to the device (or copies with the CPU); the
 * completer waits for the device's jobs in order, redoes a failed one with
 * the CPU, signals the job's fence and then releases the old host pages.
 * Moves are pipelined: VRAM given up by a move is reusable at once, since
 * everything that writes VRAM again (clears, moves in) is a later job of
 * the same FIFO, run in order.
 */
#ifndef NVL_MM_BO_H
#define NVL_MM_BO_H

#include <pthread.h>
#include <stdatomic.h>

#include "base/client.h"
#include "base/idr.h"
#include "mm/buddy.h"
#include "mm/gem.h"
#include "sync/checker.h"
#include "sync/fence.h"
#include "sync/resv.h"
#include <nouvelle/bo.h>

#define NVL_MM_NDOM 4 /* indexed by enum nvl_gem_domain */
/* Device jobs (moves, clears) in flight at once (the move pipeline). */
#define NVL_MM_INFLIGHT_MAX 16
/* LRU priorities per domain (TTM_MAX_BO_PRIORITY): 0 is evicted first. */
#define NVL_BO_PRIORITIES 4
/*
 * Default bound of the wait for busy released BOs (mm->zombie_wait_ns):
 * none, their fences bound it (the scheduler's job timeout). It was 100 ms,
 * and a busy device's allocations failed -ENOMEM with memory only busy.
 */
#define NVL_MM_ZOMBIE_WAIT_NS NVL_TIMEOUT_INFINITE

/**
 * struct nvl_mm_mem_ops - where memory comes from: the VRAM region (one big
 * reservation, lazily committed) and host pages for GTT/SYSTEM. The device
 * issue replaces the default (anonymous mmap) with the model's memory.
 */
struct nvl_mm_mem_ops {
	/** @vram_map: reserve @size_B of VRAM backing; *@base_out for CPU */
	int (*vram_map)(void *priv, uint64_t size_B, void **base_out);
	/** @vram_unmap: release it */
	void (*vram_unmap)(void *priv, void *base, uint64_t size_B);
	/** @pages_alloc: zeroed host pages */
	int (*pages_alloc)(void *priv, uint64_t size_B, void **ptr_out);
	/** @pages_free: give them back */
	void (*pages_free)(void *priv, void *ptr, uint64_t size_B);
	/**
	 * @dma_addr: optional (NULL: the GPU cannot reach host pages): the
	 * device address of host pages @ptr that @pages_alloc returned, at
	 * which the GPU reaches them (the provider DMA-maps them when it
	 * allocates them and unmaps them when they are freed). Called with
	 * the BO's resv held; must not allocate. Return: the address, or 0
	 * when @ptr is not mapped.
	 */
	uint64_t (*dma_addr)(void *priv, const void *ptr);
	/**
	 * @dma_unmap: optional, with @dma_addr and @dma_map: tear down the
	 * DMA mapping of pages @ptr (@size_B) that the manager keeps in its
	 * pool instead of freeing them (the device no longer reaches them);
	 * @pages_free still takes them afterwards
	 */
	void (*dma_unmap)(void *priv, void *ptr, uint64_t size_B);
	/**
	 * @dma_map: map such pages again when the pool hands them out.
	 * Return: 0 or -errno (the manager frees them)
	 */
	int (*dma_map)(void *priv, void *ptr, uint64_t size_B);
};

/**
 * struct nvl_mm_extent - one physically contiguous run of a move or a
 * clear: VRAM blocks or a BO's host pages.
 */
struct nvl_mm_extent {
	/** @p: its CPU address (the CPU fallback copies through it) */
	uint8_t *p;
	/** @len: bytes */
	uint64_t len;
	/**
	 * @addr: the device's address: the byte offset in the manager's VRAM
	 * (@dom VRAM), or the DMA address of host pages (GTT, SYSTEM; 0:
	 * the device cannot reach them)
	 */
	uint64_t addr;
	/** @dom: enum nvl_gem_domain */
	uint32_t dom;
};

/**
 * nvl_mm_extents_copy() - the CPU's copy of a move or a clear: the runs
 * @src in order into the runs @dst (@src NULL: zero @dst), through their
 * CPU addresses; what the worker does for a job the device cannot run or
 * failed (and a test's stand-in copy engine for its jobs)
 * @src: the source runs, or NULL for a clear
 * @nsrc: how many
 * @dst: the destination runs
 * @ndst: how many
 */
void nvl_mm_extents_copy(const struct nvl_mm_extent *src, unsigned nsrc,
			 const struct nvl_mm_extent *dst, unsigned ndst);

/**
 * struct nvl_mm_move_ops - a device's copy engine for the move worker
 * (nvl_mm_set_move_ops()). Both callbacks run on the move worker with no
 * lock of the manager held (they may allocate and wait), one at a time,
 * after the job's dependencies signalled, except the earlier jobs of the
 * manager's own FIFO, which may still be in flight (the device runs the
 * job behind them). They queue the work and return its fence; the device must run
 * the jobs in the order they were queued, and a job that fails must fail
 * every job queued behind it until the callback next returns -EAGAIN (one
 * channel that an error kills). An error on the fence means the work
 * failed and the completer redoes it with the CPU (the source is intact:
 * nothing writes memory a move gave up before the move's fence signals).
 * -EAGAIN means the device's channel was found dead and nothing was
 * queued: the worker waits until every job in flight is finished, then
 * calls again (the device makes a new channel). Any other negative return
 * means nothing was queued: the worker does the work with the CPU once the
 * jobs in flight are finished.
 */
struct nvl_mm_move_ops {
	/** @copy: copy the runs @src in order into the runs @dst */
	int (*copy)(void *priv, const struct nvl_mm_extent *src, unsigned nsrc,
		    const struct nvl_mm_extent *dst, unsigned ndst,
		    struct nvl_fence **fence_out);
	/** @clear: zero the runs @dst */
	int (*clear)(void *priv, const struct nvl_mm_extent *dst, unsigned ndst,
		     struct nvl_fence **fence_out);
};

/**
 * nvl_mm_anon_pages_alloc() / nvl_mm_anon_pages_free() - the default
 * provider's host pages (anonymous, zeroed, lazily committed), for providers
 * that bring their own VRAM but keep host pages as they are.
 */
int nvl_mm_anon_pages_alloc(void *priv, uint64_t size_B, void **ptr_out);
void nvl_mm_anon_pages_free(void *priv, void *ptr, uint64_t size_B);

/** struct nvl_mm_config - nvl_mm_create() parameters. */
struct nvl_mm_config {
	/** @vram_B: VRAM size (a multiple of 4 KiB) */
	uint64_t vram_B;
	/** @visible_B: CPU-visible window at the start of VRAM (0 = all) */
	uint64_t visible_B;
	/** @host_budget_B: GTT+SYSTEM budget (0 = half of RAM) */
	uint64_t host_budget_B;
	/** @ops: memory provider, NULL for the default */
	const struct nvl_mm_mem_ops *ops;
	void *ops_priv;
};

/**
 * struct nvl_mm_bulk - LRU bulk move of a VM's private BOs: they sit
 * contiguously in each domain's LRU, so one splice moves them all.
 */
struct nvl_mm_bulk {
	struct nvl_bo *first[NVL_MM_NDOM][NVL_BO_PRIORITIES];
	struct nvl_bo *last[NVL_MM_NDOM][NVL_BO_PRIORITIES];
};

/**
 * struct nvl_mm_shrinker - a registered shrinker. Both callbacks run with
 * mm->lock and the shrinker lock held, inside reclaim: no allocation, only
 * trylocks, only bounded fence waits.
 */
struct nvl_mm_shrinker {
	/** @count: freeable bytes (0 = nothing / unknown) */
	uint64_t (*count)(struct nvl_mm_shrinker *s);
	/** @scan: free up to @want_B; return bytes freed */
	uint64_t (*scan)(struct nvl_mm_shrinker *s, uint64_t want_B);
	void *priv;
	struct nvl_list link;
};

struct nvl_mm_job;

/*
 * An export token: the memory manager's serial (16 bits), the export's
 * generation (24 bits: a slot reused after a BO is gone answers an old token
 * only after 2^24 more exports) and its slot in mm->exports (24 bits).
 */
#define NVL_MM_TOKEN_SLOT_BITS 24
#define NVL_MM_TOKEN_GEN_BITS 24

/** struct nvl_mm - one device's memory manager. */
struct nvl_mm {
	/** @lock: buddy, LRUs, placements, exports */
	struct nvl_mutex lock;
	/**
	 * @place_lock: a leaf lock (no wait, no allocation inside) that a
	 * change of a BO's placement (dom, blocks, host) also holds, for
	 * readers that may not take @lock: a bind's commit reads the
	 * backing in a fence-signalling section with only the VM's lock
	 */
	struct nvl_flock place_lock;
	/**
	 * @done_seq: the seqno of the last job finished (its memory holds
	 * the content), stored before its fence signals. Jobs finish in the
	 * order they were queued (one FIFO, one device channel in order, CPU
	 * jobs only on an empty pipeline), so every job up to it is done.
	 */
	_Atomic uint64_t done_seq;
	struct nvl_mm_config cfg;
	const struct nvl_mm_mem_ops *ops;
	void *ops_priv;

	struct nvl_buddy vram;
	void *vram_base;
	uint64_t visible_B;
	/** @lru: per domain and priority, least recently used first */
	struct nvl_list lru[NVL_MM_NDOM][NVL_BO_PRIORITIES];
	/** @zombies: released BOs waiting for their fences */
	struct nvl_list zombies;
	/**
	 * @zombie_wait_ns: how long a VRAM allocation that found nothing to
	 * evict waits for busy released BOs (NVL_MM_ZOMBIE_WAIT_NS: as long
	 * as their fences take; a bound for fences that may never signal)
	 */
	int64_t zombie_wait_ns;
	/**
	 * @vram_off: VRAM is gone for now (the device is suspended: D3cold
	 * loses it): a VRAM placement fails -EAGAIN, other domains work. Set
	 * and cleared by the device's suspend and resume.
	 */
	atomic_bool vram_off;
	/** @used_B: resident bytes per domain */
	uint64_t used_B[NVL_MM_NDOM];
	/** @host_B: GTT+SYSTEM bytes held, including moves in flight */
	_Atomic uint64_t host_B;
	uint64_t host_budget_B;
	/** @exports: export id -> BO (weak) */
	struct nvl_idr exports;
	/** @export_gen: exports made (NVL_MM_TOKEN_GEN_BITS of it in a token) */
	uint32_t export_gen;
	/**
	 * @serial: this memory manager's number in the process (never 0), in
	 * its export tokens, so that a token from another device's memory
	 * manager is told apart (-EXDEV) instead of naming one of ours
	 */
	uint16_t serial;

	/* move worker */
	pthread_t worker;
	pthread_mutex_t q_lock;
	pthread_cond_t q_cond;
	struct nvl_list queue;
	bool stop;
	bool running; /* the worker is between popping and handing over a job */
	/* jobs handed to the device, oldest first, and their completer */
	pthread_t completer;
	pthread_cond_t inflight_cond; /* a job joined @inflight */
	pthread_cond_t done_cond; /* a job left @inflight, or @running */
	struct nvl_list inflight;
	unsigned ninflight;
	/* the job the worker took off @queue and the one the completer took
	 * off @inflight, until each is finished or listed again (q_lock):
	 * their old host pages can still be handed over */
	struct nvl_mm_job *work_job, *done_job;
	bool stop_completer;
	uint64_t fence_ctx;
	uint64_t seqno;
	/* the device's copy engine (q_lock): NULL = CPU copies */
	const struct nvl_mm_move_ops *move_ops;
	void *move_priv;

	/* shrinkers */
	struct nvl_mutex shrink_lock;
	struct nvl_list shrinkers;
	struct nvl_mm_shrinker bo_shrinker;
	/* host page pool (mm.c) */
	pthread_mutex_t pool_lock;
	struct nvl_list pool;
	uint64_t pool_B;
	struct nvl_mm_shrinker pool_shrinker;

	/* statistics */
	_Atomic uint64_t bytes_moved;
	_Atomic uint64_t evictions;
	_Atomic uint64_t swapouts;
	_Atomic uint64_t swapins;
	/* moves and clears the device did, and those it failed (redone by
	 * the CPU) */
	_Atomic uint64_t gpu_jobs;
	_Atomic uint64_t gpu_bytes;
	_Atomic uint64_t gpu_failures;
	_Atomic uint64_t cpu_jobs; /* moves and clears the CPU did */
	/* evictions into host pages a queued move gave up (no new pages) */
	_Atomic uint64_t host_handovers;
	/* dependencies of jobs the worker found pending: earlier jobs of its
	 * own FIFO left to the device's order, and the others it waited for */
	_Atomic uint64_t dep_chained;
	_Atomic uint64_t dep_waits;
};

/** Placement flags (TTM's DESIRED / FALLBACK). */
enum nvl_place_flags {
	/** @NVL_PLACE_DESIRED: only tried without eviction */
	NVL_PLACE_DESIRED = 1u << 0,
	/** @NVL_PLACE_FALLBACK: only tried when evicting */
	NVL_PLACE_FALLBACK = 1u << 1,
};

/** struct nvl_place - one acceptable place. */
struct nvl_place {
	enum nvl_gem_domain domain;
	uint32_t flags;
};

/** struct nvl_bo - a buffer object. */
struct nvl_bo {
	/** @gem: what GPUVM and exec see; gem.resv guards the fields below */
	struct nvl_gem_object gem;
	struct nvl_resv own_resv;
	struct nvl_mm *mm;
	/*
	 * @move_seq: the seqno of the last job (move, eviction, clear) that
	 * writes the current backing, NVL_MM_SEQ_SETUP while a move is being
	 * queued, 0 if none ever did; written with mm->place_lock held (or
	 * by job_push() over NVL_MM_SEQ_SETUP). The backing is pending (not
	 * yet the BO's content) while it is above mm->done_seq
	 * (nvl_bo_move_pending()). Beside @mm, which its readers load too.
	 */
	_Atomic uint64_t move_seq;
	/** @domains: allowed NVL_BO_DOMAIN_* */
	uint32_t domains;
	/** @preferred: the NVL_BO_DOMAIN_* wanted */
	uint32_t preferred;
	uint32_t flags;
	/* placement, changed with gem.resv and mm->lock held */
	enum nvl_gem_domain dom;
	struct nvl_list blocks; /* VRAM */
	void *host; /* GTT / SYSTEM pages */
	int swap_fd; /* swapped out: content in this memfd */
	bool evicted; /* moved out by someone else */
	/* released with pending fences: on mm->zombies, waiting for these */
	struct nvl_fence **zfences;
	unsigned nzfences;
	bool purgeable; /* NVL_BO_MADV_DONTNEED */
	bool purged;
	struct nvl_list lru;
	/** @priority: LRU priority, 0 (evicted first) .. NVL_BO_PRIORITIES-1 */
	unsigned priority;
	/** @bulk: the VM's bulk move; a pinned BO is kept out of its range */
	struct nvl_mm_bulk *bulk;
	unsigned pin_count;
	unsigned map_count;
	/** @maps: client mappings (bo.c), so a client ends only its own */
	struct nvl_list maps;
	uint32_t export_id;
	uint64_t export_token;
};

static inline struct nvl_bo *nvl_bo_from_gem(struct nvl_gem_object *obj)
{
	return container_of(obj, struct nvl_bo, gem);
}

/* struct nvl_bo's @move_seq while a move is being set up */
#define NVL_MM_SEQ_SETUP UINT64_MAX

/**
 * nvl_bo_move_pending() - a job that writes @bo's current backing (a move
 * into it, an eviction, the clear of fresh VRAM) is queued or running: the
 * memory is not yet @bo's content. No lock needed (a stale answer is made
 * good by the eviction hooks, which hear every move).
 * @bo: the BO
 */
static inline bool nvl_bo_move_pending(struct nvl_bo *bo)
{
	uint64_t seq =
		atomic_load_explicit(&bo->move_seq, memory_order_acquire);

	/* 0: no job ever wrote it (the manager's line is not read) */
	return seq && seq > atomic_load_explicit(&bo->mm->done_seq,
						 memory_order_acquire);
}

/**
 * nvl_bo_is_shared() - @bo was exported (another client may hold it, as a
 * dma-buf's importers do). mm->lock held.
 * @bo: the BO
 */
static inline bool nvl_bo_is_shared(const struct nvl_bo *bo)
{
	return bo->export_id != 0;
}

/**
 * nvl_bo_purgeable() - the shrinker may drop @bo's content: marked
 * DONTNEED and not shared (an importer still reads it; the kernel's
 * drm_gem_shmem never purges exported or imported objects). mm->lock held.
 * @bo: the BO
 */
static inline bool nvl_bo_purgeable(const struct nvl_bo *bo)
{
	return bo->purgeable && !nvl_bo_is_shared(bo);
}

/**
 * nvl_mm_create() - a memory manager with its move worker.
 * @cfg: sizes and provider
 * @mm_out: the manager
 *
 * Return: 0, -EINVAL (bad sizes), -ENOMEM, -EAGAIN (no thread).
 */
int nvl_mm_create(const struct nvl_mm_config *cfg,
		  struct nvl_mm **mm_out) NVL_MUST_CHECK;

/**
 * nvl_mm_destroy() - stop the worker and free the manager; every BO must be
 * gone (released busy BOs get a second per fence, then are leaked).
 * @mm: the manager, may be NULL
 */
void nvl_mm_destroy(struct nvl_mm *mm);

/**
 * nvl_mm_set_move_ops() - let a device's copy engine do the moves and
 * clears of @mm (NULL: the CPU again). Waits until a job that is using the
 * old ops has finished, so a device can tear its engine down after
 * setting NULL.
 * @mm: the manager
 * @ops: the device's ops, or NULL
 * @priv: their argument
 */
void nvl_mm_set_move_ops(struct nvl_mm *mm, const struct nvl_mm_move_ops *ops,
			 void *priv);

/**
 * struct nvl_mm_move_stats - what the move worker did (nvl_mm_move_stats()).
 */
struct nvl_mm_move_stats {
	/** @bytes: bytes moved (copies, not clears) */
	uint64_t bytes;
	/** @evictions: BOs evicted */
	uint64_t evictions;
	/** @gpu_jobs, @gpu_bytes: jobs (copies and clears) the device did */
	uint64_t gpu_jobs, gpu_bytes;
	/** @gpu_failures: jobs the device failed, redone by the CPU */
	uint64_t gpu_failures;
	/** @cpu_jobs: jobs the CPU did (no device, or it could not) */
	uint64_t cpu_jobs;
	/**
	 * @host_handovers: evictions whose destination was the host pages
	 * a move not yet finished gave up (nvl_mm_queue_evict())
	 */
	uint64_t host_handovers;
	/**
	 * @dep_chained: dependencies the worker found pending that were
	 * earlier jobs of its own FIFO: not waited for, the job went to the
	 * device at once behind them (in order on its one channel)
	 */
	uint64_t dep_chained;
	/**
	 * @dep_waits: dependencies the worker found pending and waited for
	 * on the CPU before handing the job over (another context's fences:
	 * a client's job, a bind)
	 */
	uint64_t dep_waits;
};

/** nvl_mm_move_stats() - @mm's move counters. @mm: manager @st: out */
void nvl_mm_move_stats(struct nvl_mm *mm, struct nvl_mm_move_stats *st);

/**
 * nvl_mm_default() - the process-wide manager used by clients without a
 * device (256 MiB VRAM, created on first use).
 * Return: the manager, or NULL when it cannot be created.
 */
struct nvl_mm *nvl_mm_default(void);

/**
 * nvl_mm_serial_issued() - whether some memory manager of this process was
 * given @serial (struct nvl_mm's @serial): an import token naming it but
 * not the importer's manager is another device's (-EXDEV), one naming no
 * manager is unknown (-ENOENT).
 */
bool nvl_mm_serial_issued(uint16_t serial);

/**
 * nvl_mm_of_client() - @client's manager: client->mm (its device's, not
 * owned by the client), else, for a device-less client, the default.
 * @client: the client
 * Return: the manager, or NULL.
 */
struct nvl_mm *nvl_mm_of_client(struct nvl_client *client);

/**
 * nvl_bo_create_internal() - create a BO (not yet in any handle table).
 * @mm: the manager
 * @client_id: creator, for accounting
 * @size_B: bytes, rounded up to 4 KiB
 * @domains: allowed NVL_BO_DOMAIN_*
 * @preferred: one NVL_BO_DOMAIN_* of @domains, 0 for the first allowed
 * @flags: NVL_BO_*
 * @shared_resv: resv to share (a VM's), or NULL for the BO's own
 * @vm_private: the VM the BO is private to, or NULL (such BOs cannot be
 *              exported)
 * @bo_out: the BO with one reference
 *
 * Memory that another client used is always zeroed (dirty VRAM by a clear
 * job whose fence is the BO's KERNEL fence; host pages come zeroed).
 * Return: 0, -EINVAL (size, domains, flags), -E2BIG (larger than every
 * allowed domain), -ENOMEM (no memory even after eviction).
 */
int nvl_bo_create_internal(struct nvl_mm *mm, uint64_t client_id,
			   uint64_t size_B, uint32_t domains,
			   uint32_t preferred, uint32_t flags,
			   struct nvl_resv *shared_resv, void *vm_private,
			   struct nvl_bo **bo_out) NVL_MUST_CHECK;

/** nvl_bo_get() - take a reference. @bo: the BO. Return: @bo. */
static inline struct nvl_bo *nvl_bo_get(struct nvl_bo *bo)
{
	nvl_gem_get(&bo->gem);
	return bo;
}

/** nvl_bo_put() - drop a reference. @bo: the BO, may be NULL */
static inline void nvl_bo_put(struct nvl_bo *bo)
{
	if (bo)
		nvl_gem_put(&bo->gem);
}

/**
 * nvl_bo_lookup() - the BO behind a client's handle, with a reference.
 * @client: the client
 * @handle: its handle
 * Return: the BO or NULL.
 */
struct nvl_bo *nvl_bo_lookup(struct nvl_client *client, uint32_t handle);

/**
 * nvl_bo_validate() - place @bo per @places (TTM's model): if it already
 * sits in a place that is not FALLBACK-only, nothing moves; else places
 * without FALLBACK are tried without eviction; then, if it sits in a place
 * without DESIRED (an allowed fallback), nothing moves; else places without
 * DESIRED are tried with eviction (priority 0 first, least recently used
 * first, then a bounded wait for busy released BOs). The move is a job on
 * the move worker whose fence becomes @bo's KERNEL fence. With @n == 0 the
 * BO is gutted: its backing is dropped (kept by a ghost until its fences
 * signal) and it reads zero when next placed. Caller holds gem.resv.
 * @bo: the BO
 * @places: acceptable places in order
 * @n: how many (0: gut)
 *
 * Return: 0, -EINVAL (pinned elsewhere, or a place outside the allowed
 * domains), -ENOMEM (nothing fits, nothing evictable; or no memory for a
 * ghost), -EIO (reading a swapped-out BO back failed).
 */
int nvl_bo_validate(struct nvl_bo *bo, const struct nvl_place *places,
		    unsigned n) NVL_MUST_CHECK;

/**
 * nvl_bo_validate_preferred() - nvl_bo_validate() with the preferred domain
 * alone (evicting) first, so an evicted BO comes back, then with the other
 * allowed domains as fallback; also brings a swapped-out BO back. A mapped
 * or pinned BO stays where it is. Caller holds gem.resv.
 * @bo: the BO
 * Return: 0, -ENOMEM, -EIO.
 */
int nvl_bo_validate_preferred(struct nvl_bo *bo) NVL_MUST_CHECK;

/**
 * nvl_bo_pin() / nvl_bo_unpin() - keep @bo where it is (never evicted, never
 * swapped). Caller holds gem.resv.
 * @bo: the BO, resident
 * Return: 0, or -EINVAL when not resident.
 */
int nvl_bo_pin(struct nvl_bo *bo) NVL_MUST_CHECK;
void nvl_bo_unpin(struct nvl_bo *bo);

/**
 * nvl_bo_kmap() - CPU pointer to @bo's memory (pins it until
 * nvl_bo_kunmap()). Waits for its KERNEL fences (moves, clears). Caller
 * holds gem.resv.
 * @bo: the BO
 * @ptr_out: the pointer
 * Return: 0, -EPERM (VRAM-capable BO without NVL_BO_CPU_VISIBLE), -ENOMEM.
 */
int nvl_bo_kmap(struct nvl_bo *bo, void **ptr_out) NVL_MUST_CHECK;
void nvl_bo_kunmap(struct nvl_bo *bo);

/**
 * nvl_bo_set_bulk_move() - put @bo (VM-private) in @bulk, or out of it with
 * NULL. Caller holds gem.resv.
 * @bo: the BO
 * @bulk: the VM's bulk move
 */
void nvl_bo_set_bulk_move(struct nvl_bo *bo, struct nvl_mm_bulk *bulk);

/**
 * nvl_bo_set_priority() - move @bo to the LRU of @prio (TTM's per-BO
 * priority): eviction and the shrinker take priority 0 first, oldest
 * first. Caller holds gem.resv.
 * @bo: the BO
 * @prio: 0 .. NVL_BO_PRIORITIES - 1
 * Return: 0 or -EINVAL.
 */
int nvl_bo_set_priority(struct nvl_bo *bo, unsigned prio) NVL_MUST_CHECK;

/**
 * nvl_mm_bulk_move_tail() - move every BO of @bulk to the tail of its LRU
 * (most recently used), O(domains).
 * @mm: the manager
 * @bulk: the bulk move
 */
void nvl_mm_bulk_move_tail(struct nvl_mm *mm, struct nvl_mm_bulk *bulk);

/**
 * nvl_mm_bo_touch() - mark @bo most recently used.
 * @bo: the BO
 */
void nvl_mm_bo_touch(struct nvl_bo *bo);

/**
 * nvl_mm_register_shrinker() - add @s to the shrinkers called when the host
 * budget is exceeded.
 * @mm: the manager
 * @s: the shrinker (count/scan set)
 */
void nvl_mm_register_shrinker(struct nvl_mm *mm, struct nvl_mm_shrinker *s);

/** nvl_mm_unregister_shrinker() - remove @s. @mm: manager @s: shrinker */
void nvl_mm_unregister_shrinker(struct nvl_mm *mm, struct nvl_mm_shrinker *s);

/**
 * nvl_mm_shrink() - run the shrinkers for @want_B bytes (memory pressure).
 * @mm: the manager
 * @want_B: bytes wanted
 * Return: bytes freed.
 */
uint64_t nvl_mm_shrink(struct nvl_mm *mm, uint64_t want_B);

/**
 * nvl_mm_set_host_budget() - change the GTT+SYSTEM budget.
 * @mm: the manager
 * @budget_B: bytes (0 = half of RAM)
 */
void nvl_mm_set_host_budget(struct nvl_mm *mm, uint64_t budget_B);

/**
 * nvl_mm_fdinfo() - @client's memory use as DRM fdinfo text
 * ("drm-total-vram:\t1024 KiB" lines; the memory keys only).
 * @client: the client
 * @buf: output
 * @len: its size
 * Return: characters the full text needs (as snprintf), or -errno.
 */
int nvl_mm_fdinfo(struct nvl_client *client, char *buf, size_t len);

/* ---- internal, between the mm files (mm->lock held unless noted) ----- */

/**
 * nvl_mm_queue_copy() - queue a move of @bo's content from its old backing
 * (@from_blocks in VRAM or @from_host pages) to its current one; the job
 * waits for @bo's fences and its fence becomes @bo's KERNEL fence. Old host
 * pages belong to the job from now on (freed after the copy). Caller holds
 * gem.resv.
 * @mm: the manager
 * @bo: the BO, already pointing at the new backing in domain @to
 * @from: old domain
 * @from_blocks: old VRAM blocks (still allocated; the caller frees them)
 * @from_host: old host pages
 * @to: new domain
 * Return: 0 or -ENOMEM (nothing queued).
 */
int nvl_mm_queue_copy(struct nvl_mm *mm, struct nvl_bo *bo,
		      enum nvl_gem_domain from, struct nvl_list *from_blocks,
		      void *from_host, enum nvl_gem_domain to) NVL_MUST_CHECK;

/**
 * nvl_mm_evict_deps() - append to *@fences (*@n entries, references) the
 * fences the memory @bo leaves (eviction, validate move, purge) must also
 * wait for: the installed nvl_gem_deps_fn's (gem.h; GPUVM: the jobs of the
 * VMs that map @bo).
 * Caller holds gem.resv. Return: 0 or -ENOMEM (put and free the array).
 */
int nvl_mm_evict_deps(struct nvl_bo *bo, unsigned *n,
		      struct nvl_fence ***fences) NVL_MUST_CHECK;

/**
 * nvl_mm_queue_evict() - queue the copy of VRAM BO @bo's content (its
 * blocks, still allocated: the caller frees them) to host pages of domain
 * @to; the job waits for @bo's fences and its fence becomes @bo's KERNEL
 * fence. The pages are those a move not yet finished gives up
 * when there is one of @bo's size (handed over: that move's source is read
 * before this job writes it, since the worker runs jobs in FIFO order and
 * the device's in order on one channel), else new ones
 * (nvl_mm_host_alloc(), not zeroed: the copy writes them whole). Caller
 * holds gem.resv; @bo is not changed.
 * @mm: the manager
 * @bo: the BO, in VRAM
 * @to: GTT or SYSTEM
 * @host_out: the pages, @bo's backing once the caller moves it to @to
 * Return: 0 or -ENOMEM (nothing queued, no pages taken).
 */
int nvl_mm_queue_evict(struct nvl_mm *mm, struct nvl_bo *bo,
		       enum nvl_gem_domain to, void **host_out) NVL_MUST_CHECK;

/**
 * nvl_mm_queue_clear() - zero @bo's dirty VRAM blocks: inline when small and
 * the worker is idle, else as a job whose fence becomes the KERNEL fence.
 * @mm: the manager
 * @bo: the BO (gem.resv held)
 * Return: 0 or -ENOMEM.
 */
int nvl_mm_queue_clear(struct nvl_mm *mm, struct nvl_bo *bo) NVL_MUST_CHECK;

/**
 * nvl_mm_host_alloc() - host pages within the budget (shrinking if needed),
 * from the pool or the provider.
 * @mm: the manager
 * @size_B: bytes
 * @zero: the pages must read zero
 * @ptr_out: the pages
 * Return: 0 or -ENOMEM (over budget, or no memory).
 */
int nvl_mm_host_alloc(struct nvl_mm *mm, uint64_t size_B, bool zero,
		      void **ptr_out) NVL_MUST_CHECK;

/**
 * nvl_mm_host_free() - give host pages back (to the pool when it has room).
 * Any thread, no lock needed.
 * @mm: the manager
 * @ptr: the pages
 * @size_B: their size
 */
void nvl_mm_host_free(struct nvl_mm *mm, void *ptr, uint64_t size_B);

/**
 * nvl_mm_vram_ptr() - CPU address of VRAM byte @offset.
 * @mm: the manager (VRAM mapped)
 * @offset: byte offset
 * Return: the address.
 */
void *nvl_mm_vram_ptr(struct nvl_mm *mm, uint64_t offset);

/**
 * nvl_mm_vram_ready() - map the VRAM region on first use.
 * @mm: the manager
 * Return: 0 or -ENOMEM.
 */
int nvl_mm_vram_ready(struct nvl_mm *mm) NVL_MUST_CHECK;

/**
 * nvl_mm_lru_add() / nvl_mm_lru_del() - put @bo on (take it off) the LRU of
 * its domain at the most recently used end (its bulk's range), and count it
 * in mm->used_B.
 * @mm: the manager
 * @bo: the BO
 */
void nvl_mm_lru_add(struct nvl_mm *mm, struct nvl_bo *bo);
void nvl_mm_lru_del(struct nvl_mm *mm, struct nvl_bo *bo);

/**
 * nvl_mm_reap_zombies() - free released BOs whose fences have signalled.
 * @mm: the manager
 */
void nvl_mm_reap_zombies(struct nvl_mm *mm);

/**
 * nvl_mm_release_backing() - free @bo's memory (VRAM dirty, host pages,
 * swap file); @bo is left without backing.
 * @mm: the manager
 * @bo: the BO
 */
void nvl_mm_release_backing(struct nvl_mm *mm, struct nvl_bo *bo);

/**
 * nvl_mm_wait_idle() - wait, bounded, until the move worker has run every
 * queued job (copies and clears done). Return: 0 or -ETIMEDOUT.
 */
int nvl_mm_wait_idle(struct nvl_mm *mm, int64_t timeout_ns) NVL_MUST_CHECK;

/**
 * nvl_mm_evict_one() - evict the least recently used evictable BO of @dom.
 * @mm: the manager
 * @dom: the domain (only VRAM evicts; host memory is shrunk)
 * @held: a resv the caller holds (BOs sharing it need no trylock)
 * @end: only BOs with memory below this offset (0 = any)
 * Return: 0, -ENOSPC (nothing evictable), -ENOMEM (no room to evict to).
 */
int nvl_mm_evict_one(struct nvl_mm *mm, enum nvl_gem_domain dom,
		     struct nvl_resv *held, uint64_t end) NVL_MUST_CHECK;

/**
 * nvl_mm_bo_destroy() - free an idle, released BO and its memory.
 * @mm: the manager
 * @bo: the BO
 */
void nvl_mm_bo_destroy(struct nvl_mm *mm, struct nvl_bo *bo);

/**
 * nvl_mm_bo_shrinker_init() - register the BO shrinker (at create).
 * @mm: the manager
 */
void nvl_mm_bo_shrinker_init(struct nvl_mm *mm);

/**
 * nvl_mm_host_reserve() - count @size_B against the host budget, running
 * the shrinkers when it would be exceeded.
 * @mm: the manager
 * @size_B: bytes
 * Return: 0 or -ENOMEM.
 */
int nvl_mm_host_reserve(struct nvl_mm *mm, uint64_t size_B) NVL_MUST_CHECK;

/**
 * nvl_bo_swap_in() - read a swapped-out BO back into host pages. Caller
 * holds gem.resv.
 * @bo: the BO
 * Return: 0, -ENOMEM, -EIO.
 */
int nvl_bo_swap_in(struct nvl_bo *bo) NVL_MUST_CHECK;

/**
 * nvl_mm_leave() - count a leave of @bo's memory (gem.leaves; caller holds
 * gem.resv and commits to the move). Return: the leave's number, for
 * nvl_mm_unmap_gem() once that memory's jobs are done.
 */
uint64_t nvl_mm_leave(struct nvl_bo *bo);

/**
 * nvl_mm_unmap_gem() - call the installed nvl_gem_unmap_fn (gem.h) for the
 * memory @obj left at @leave: the jobs allowed to use it are done and it
 * is about to be used again. No allocation, no lock held while waiting.
 */
void nvl_mm_unmap_gem(struct nvl_gem_object *obj, uint64_t leave);

/**
 * nvl_mm_queue_unmap() - queue a job that waits for @bo's fences and the
 * dependency hook's, then calls nvl_mm_unmap_gem() for a leave of @bo
 * (counted now) and signals; its fence becomes @bo's KERNEL fence and a
 * reference is returned in *@fence (a purge's ghost holds its memory until
 * it signals). Caller holds gem.resv and mm->lock.
 * Return: 0 or -ENOMEM (nothing queued).
 */
int nvl_mm_queue_unmap(struct nvl_mm *mm, struct nvl_bo *bo,
		       struct nvl_fence **fence) NVL_MUST_CHECK;

/**
 * nvl_mm_notify_evict() - call every installed eviction hook
 * (nvl_gem_add_evict_hook()) for @bo, whose resv the caller holds.
 */
void nvl_mm_notify_evict(struct nvl_bo *bo, bool evicted);

#endif /* NVL_MM_BO_H */

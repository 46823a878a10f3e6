// SPDX-License-Identifier: MIT
/*
 * DOC: Memory manager and move worker
 *
 * A manager owns the VRAM region (reserved with MAP_NORESERVE on first use,
 * so a large VRAM costs nothing until touched), the host-page budget and one
 * move worker thread. Memory comes from a small provider ops table (a VRAM
 * region, system pages); the default provider is anonymous memory, the
 * device issue plugs the model's memory in.
 *
 * The worker takes jobs in FIFO order: it waits for the job's dependencies
 * (the fences of the BO when the job was queued; not the earlier jobs of
 * this FIFO among them, which the device runs first: wait_deps()) and hands
 * the job to the device's copy engine (nvl_mm_set_move_ops()) without
 * waiting for it: up to NVL_MM_INFLIGHT_MAX jobs are in flight at once. A
 * second thread, the completer, takes the jobs in flight in the same order,
 * waits for each one's device fence, redoes it with the CPU if that fence
 * carries an error, then signals the job's fence (the BO's KERNEL fence,
 * what its users wait on) inside a fence-signalling section and only then
 * frees the old host pages of a move (ghost pages). Without a device, or
 * when the device cannot take a job, the worker does it with the CPU after
 * every job in flight finished. Neither thread takes mm->lock, so waiting
 * for a move fence while holding mm->lock cannot deadlock; and the order
 * (one device channel running jobs in order, fences signalled in order, CPU
 * jobs only on an empty pipeline) makes pipelined eviction safe: VRAM freed
 * by a queued move is only written again by later jobs.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/log.h"
#include "mm/bo.h"
#include "sync/checker.h"

static NVL_LOCK_CLASS(mm_lock_class, "nvl_mm", 0);
static NVL_LOCK_CLASS(mm_shrink_class, "nvl_mm_shrinker", NVL_LOCK_RECLAIM);

#define extent nvl_mm_extent

struct nvl_mm_job {
	struct nvl_list link;
	struct nvl_fence *fence;
	struct nvl_fence **deps;
	unsigned ndeps;
	struct extent *src; /* NULL: clear */
	unsigned nsrc;
	struct extent *dst;
	unsigned ndst;
	void *free_host;
	uint64_t free_len;
	uint64_t bytes;
	struct nvl_fence *hw; /* the device's fence, once handed to it */
	/* the memory a leave gave up (job_prepare()'s @leaves): the unmap
	 * hook's object and leave number, called once the deps are done */
	struct nvl_gem_object *unmap_obj;
	uint64_t unmap_leave;
};

/* ---- default provider ------------------------------------------------- */

int nvl_mm_anon_pages_alloc(void *priv, uint64_t size_B, void **out)
{
	void *p;

	if (nvl_might_alloc(0))
		return -ENOMEM;
	p = mmap(NULL, size_B, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	*out = p;
	return 0;
}

void nvl_mm_anon_pages_free(void *priv, void *p, uint64_t size_B)
{
	munmap(p, size_B);
}

static const struct nvl_mm_mem_ops anon_ops = {
	.vram_map = nvl_mm_anon_pages_alloc,
	.vram_unmap = nvl_mm_anon_pages_free,
	.pages_alloc = nvl_mm_anon_pages_alloc,
	.pages_free = nvl_mm_anon_pages_free,
};

/* ---- move worker ------------------------------------------------------ */

void nvl_mm_extents_copy(const struct nvl_mm_extent *src, unsigned nsrc,
			 const struct nvl_mm_extent *dst, unsigned ndst)
{
	unsigned si = 0, di = 0;
	uint64_t so = 0, dof = 0;

	if (!src) {
		for (unsigned i = 0; i < ndst; i++)
			memset(dst[i].p, 0, dst[i].len);
		return;
	}
	while (si < nsrc && di < ndst) {
		uint64_t n = NVL_MIN(src[si].len - so, dst[di].len - dof);

		memcpy(dst[di].p + dof, src[si].p + so, n);
		so += n;
		dof += n;
		if (so == src[si].len) {
			si++;
			so = 0;
		}
		if (dof == dst[di].len) {
			di++;
			dof = 0;
		}
	}
}

static void cpu_job(struct nvl_mm_job *j)
{
	nvl_mm_extents_copy(j->src, j->nsrc, j->dst, j->ndst);
}

/* every run the device can reach: VRAM, or host pages it DMA-mapped */
static bool reachable(const struct extent *e, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (e[i].dom != NVL_GEM_DOMAIN_VRAM && !e[i].addr)
			return false;
	return true;
}

static void job_free(struct nvl_mm_job *j)
{
	for (unsigned i = 0; i < j->ndeps; i++)
		nvl_fence_put(j->deps[i]);
	nvl_free(j->deps);
	nvl_free(j->src);
	nvl_free(j->dst);
	nvl_fence_put(j->hw);
	nvl_fence_put(j->fence);
	nvl_free(j);
}

/*
 * The job is done (its memory holds the content): signal the fence the BO's
 * users wait on, then give back the memory the move left (ghost pages).
 */
static void job_finish(struct nvl_mm *mm, struct nvl_mm_job *j)
{
	struct nvl_signalling_cookie cookie;
	void *host;

	if (j->src)
		atomic_fetch_add(&mm->bytes_moved, j->bytes);
	/* before the fence: who saw it signalled sees the backing settled */
	atomic_store_explicit(&mm->done_seq, j->fence->seqno,
			      memory_order_release);
	cookie = nvl_fence_begin_signalling();
	nvl_fence_signal(j->fence);
	nvl_fence_end_signalling(cookie);
	/* an eviction may have taken the pages over until now */
	pthread_mutex_lock(&mm->q_lock);
	host = j->free_host;
	j->free_host = NULL;
	if (mm->work_job == j)
		mm->work_job = NULL;
	if (mm->done_job == j)
		mm->done_job = NULL;
	pthread_mutex_unlock(&mm->q_lock);
	if (host)
		nvl_mm_host_free(mm, host, j->free_len);
	job_free(j);
}

/* wait until every job handed to the device is finished (q_lock held) */
static void drain_locked(struct nvl_mm *mm)
{
	while (mm->ninflight)
		pthread_cond_wait(&mm->done_cond, &mm->q_lock);
}

static void drain(struct nvl_mm *mm)
{
	pthread_mutex_lock(&mm->q_lock);
	drain_locked(mm);
	pthread_mutex_unlock(&mm->q_lock);
}

static int gpu_submit(struct nvl_mm *mm, const struct nvl_mm_move_ops *ops,
		      struct nvl_mm_job *j)
{
	if (j->src)
		return ops->copy(mm->move_priv, j->src, j->nsrc, j->dst,
				 j->ndst, &j->hw);
	return ops->clear(mm->move_priv, j->dst, j->ndst, &j->hw);
}

/*
 * Hand @j to the device when it has a copy engine and reaches both sides:
 * the job joins the in-flight list and the completer finishes it when its
 * fence signals. The device's jobs run in order on one channel, so that a
 * job reusing memory an earlier move gave up runs after it. -EAGAIN from
 * the device (its channel died: the jobs in flight fail and are redone)
 * waits for them before the device makes a new channel. Otherwise the CPU
 * does the job, after every job in flight (they may still read memory it
 * writes).
 */
static void submit_job(struct nvl_mm *mm, struct nvl_mm_job *j)
{
	const struct nvl_mm_move_ops *ops = mm->move_ops;
	int ret = -ENODEV;

	if (ops && reachable(j->dst, j->ndst) &&
	    (!j->src || reachable(j->src, j->nsrc))) {
		ret = gpu_submit(mm, ops, j);
		if (ret == -EAGAIN) {
			drain(mm);
			ret = gpu_submit(mm, ops, j);
		}
	}
	if (!ret) {
		pthread_mutex_lock(&mm->q_lock);
		nvl_list_add_tail(&j->link, &mm->inflight);
		mm->work_job = NULL;
		mm->ninflight++;
		pthread_cond_signal(&mm->inflight_cond);
		pthread_mutex_unlock(&mm->q_lock);
		return;
	}
	drain(mm);
	atomic_fetch_add(&mm->cpu_jobs, 1);
	cpu_job(j);
	job_finish(mm, j);
}

/*
 * The completer: the device's jobs in order. A job whose fence carries an
 * error (a copy-engine error killed the channel: the guilty job and those
 * behind it on the channel, or the device was lost) is redone by the CPU
 * before its fence signals: the source is intact, since nothing writes
 * memory a move gave up before the move's fence signals (later device jobs
 * ran on the same dead channel, and the device makes a new one only once
 * the in-flight jobs are finished).
 */
static void *completer_main(void *arg)
{
	struct nvl_mm *mm = arg;

	for (;;) {
		struct nvl_mm_job *j;
		int ret;

		pthread_mutex_lock(&mm->q_lock);
		while (nvl_list_empty(&mm->inflight) && !mm->stop_completer)
			pthread_cond_wait(&mm->inflight_cond, &mm->q_lock);
		if (nvl_list_empty(&mm->inflight)) {
			pthread_mutex_unlock(&mm->q_lock);
			break;
		}
		j = nvl_list_first_entry(&mm->inflight, struct nvl_mm_job,
					 link);
		nvl_list_del(&j->link);
		mm->done_job = j;
		pthread_mutex_unlock(&mm->q_lock);

		(void)nvl_fence_wait(j->hw, NVL_TIMEOUT_INFINITE);
		ret = nvl_fence_get_status(j->hw);
		if (ret >= 0) {
			atomic_fetch_add(&mm->gpu_jobs, 1);
			atomic_fetch_add(&mm->gpu_bytes, j->bytes);
		} else {
			atomic_fetch_add(&mm->gpu_failures, 1);
			nvl_warn(NVL_CAT_MM,
				 "mm: the device's %s of %llu bytes failed "
				 "(%d); the CPU does it",
				 j->src ? "copy" : "clear",
				 (unsigned long long)j->bytes, ret);
			atomic_fetch_add(&mm->cpu_jobs, 1);
			cpu_job(j);
		}
		job_finish(mm, j);
		pthread_mutex_lock(&mm->q_lock);
		mm->ninflight--;
		pthread_cond_broadcast(&mm->done_cond);
		pthread_mutex_unlock(&mm->q_lock);
	}
	return NULL;
}

/*
 * Wait for @j's dependencies, except the earlier jobs of this FIFO (the
 * BO's previous move or clear): each of those is finished, or in flight on
 * the device, whose one channel runs @j after it and fails @j too if it
 * fails (the completer then redoes both with the CPU, in order); and a job
 * the CPU does waits for the whole pipeline first (submit_job()). So a
 * move behind a move of the same BO goes to the device at once, chained
 * there, as TTM pipelines moves behind the moving fence and drm_sched only
 * waits for a same-scheduler dependency to be scheduled; no CPU round trip
 * per move. Other fences (a client's job, a bind) are waited for here, and
 * every one for a job that is no copy or clear (a purge's unmap, finished
 * here at once: the memory it gives up must be left by every earlier job).
 */
static void wait_deps(struct nvl_mm *mm, struct nvl_mm_job *j)
{
	bool chain = j->src || j->ndst;

	for (unsigned i = 0; i < j->ndeps; i++) {
		struct nvl_fence *f = j->deps[i];

		if (nvl_fence_is_signaled(f))
			continue;
		if (chain && f->context == mm->fence_ctx) {
			atomic_fetch_add(&mm->dep_chained, 1);
			continue;
		}
		atomic_fetch_add(&mm->dep_waits, 1);
		(void)nvl_fence_wait(f, NVL_TIMEOUT_INFINITE);
	}
}

static void *worker_main(void *arg)
{
	struct nvl_mm *mm = arg;

	for (;;) {
		struct nvl_mm_job *j;

		pthread_mutex_lock(&mm->q_lock);
		while (nvl_list_empty(&mm->queue) && !mm->stop)
			pthread_cond_wait(&mm->q_cond, &mm->q_lock);
		if (nvl_list_empty(&mm->queue)) {
			pthread_mutex_unlock(&mm->q_lock);
			break;
		}
		/* a bounded pipeline */
		while (mm->ninflight >= NVL_MM_INFLIGHT_MAX)
			pthread_cond_wait(&mm->done_cond, &mm->q_lock);
		j = nvl_list_first_entry(&mm->queue, struct nvl_mm_job, link);
		nvl_list_del(&j->link);
		mm->work_job = j;
		mm->running = true;
		pthread_mutex_unlock(&mm->q_lock);

		wait_deps(mm, j);
		/*
		 * The jobs allowed to reach the memory this job leaves are
		 * done, none that follow in this FIFO has touched it: take
		 * the mappings that may still name it off (a job that ran on
		 * past its fence faults, it reaches nobody's memory).
		 */
		if (j->unmap_obj)
			nvl_mm_unmap_gem(j->unmap_obj, j->unmap_leave);
		/* mm->move_ops changes only while no job runs (q_lock) */
		if (!j->src && !j->ndst)
			job_finish(mm, j); /* an unmap alone (a purge) */
		else
			submit_job(mm, j);
		pthread_mutex_lock(&mm->q_lock);
		mm->running = false;
		pthread_cond_broadcast(&mm->done_cond);
		pthread_mutex_unlock(&mm->q_lock);
	}
	return NULL;
}

int nvl_mm_wait_idle(struct nvl_mm *mm, int64_t timeout_ns)
{
	int64_t dl = nvl_deadline_after(timeout_ns);

	for (;;) {
		struct timespec ts = {0, 100000};
		bool idle;

		pthread_mutex_lock(&mm->q_lock);
		idle = nvl_list_empty(&mm->queue) && !mm->running &&
		       !mm->ninflight;
		pthread_mutex_unlock(&mm->q_lock);
		if (idle)
			return 0;
		if (nvl_time_ns() > dl)
			return -ETIMEDOUT;
		nanosleep(&ts, NULL);
	}
}

static int blocks_to_extents(struct nvl_mm *mm, struct nvl_list *blocks,
			     bool dirty_only, struct extent **out,
			     unsigned *n_out, uint64_t *bytes)
{
	struct nvl_buddy_block *b;
	unsigned n = 0;

	nvl_list_for_each_entry (b, blocks, link)
		n += !dirty_only || !nvl_buddy_block_is_clear(b);
	*out = NULL;
	*n_out = 0;
	*bytes = 0;
	if (!n)
		return 0;
	*out = nvl_calloc(n, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	nvl_list_for_each_entry (b, blocks, link) {
		if (dirty_only && nvl_buddy_block_is_clear(b))
			continue;
		(*out)[*n_out].p =
			nvl_mm_vram_ptr(mm, nvl_buddy_block_offset(b));
		(*out)[*n_out].len = nvl_buddy_block_size(&mm->vram, b);
		(*out)[*n_out].addr = nvl_buddy_block_offset(b);
		(*out)[*n_out].dom = NVL_GEM_DOMAIN_VRAM;
		*bytes += (*out)[*n_out].len;
		(*n_out)++;
	}
	return 0;
}

static int backing_extents(struct nvl_mm *mm, struct nvl_bo *bo,
			   enum nvl_gem_domain dom, struct nvl_list *blocks,
			   void *host, struct extent **out, unsigned *n_out)
{
	uint64_t bytes;

	if (dom == NVL_GEM_DOMAIN_VRAM)
		return blocks_to_extents(mm, blocks, false, out, n_out, &bytes);
	*out = nvl_calloc(1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	(*out)[0].p = host;
	(*out)[0].len = bo->gem.size_B;
	(*out)[0].dom = dom;
	/* where the device reaches the pages, if it does (no allocation) */
	if (mm->ops->dma_addr)
		(*out)[0].addr = mm->ops->dma_addr(mm->ops_priv, host);
	*n_out = 1;
	return 0;
}

/*
 * A slot for the job's fence on top of those the caller reserved: an exec
 * reserves one per BO, then validates (a move or a clear of the BO); had
 * the job's fence taken the exec's slot, the exec's own fence could not be
 * added, and the next eviction would not wait for its job.
 */
static int reserve_own_slot(struct nvl_resv *resv)
{
	unsigned held = resv->usable > resv->num ? resv->usable - resv->num : 0;

	return nvl_resv_reserve_fences(resv, held + 1);
}

/*
 * Allocate a job with dependencies on @bo's fences and a reserved slot.
 * @leaves: the job moves @bo out of memory that is reused behind it (an
 * eviction, a validate move): it also waits for the jobs that reach that
 * memory through a VM's page-table entries without being on @bo's resv
 * (nvl_mm_evict_deps(); the entries stay until the VM's next validate).
 */
static int job_prepare(struct nvl_mm *mm, struct nvl_bo *bo, bool leaves,
		       struct nvl_mm_job **out)
{
	struct nvl_mm_job *j = nvl_zalloc(sizeof(*j));
	int ret;

	if (!j)
		return -ENOMEM;
	nvl_list_init(&j->link);
	ret = nvl_resv_get_fences(bo->gem.resv, NVL_RESV_USAGE_BOOKKEEP,
				  &j->ndeps, &j->deps);
	if (!ret && leaves)
		ret = nvl_mm_evict_deps(bo, &j->ndeps, &j->deps);
	if (!ret)
		ret = reserve_own_slot(bo->gem.resv);
	if (!ret)
		ret = nvl_fence_create(&j->fence, mm->fence_ctx, 0);
	if (ret) {
		job_free(j);
		return ret;
	}
	/*
	 * Before the memory left is used again, whatever still maps it is
	 * unmapped (the hook, from the worker): the leave is counted now, so
	 * that mappings written from here on (a validate after this move)
	 * are not taken off. A job freed unpushed only makes a later unmap
	 * take off a little more than it must (the next validate rewrites).
	 * The object outlives the job: a BO released while a job is queued
	 * on it is a zombie until the job's fence signals.
	 */
	if (leaves) {
		j->unmap_obj = &bo->gem;
		j->unmap_leave = nvl_mm_leave(bo);
	}
	*out = j;
	return 0;
}

/*
 * Publish @j: its fence becomes @bo's KERNEL fence; the worker runs it.
 * @bo's backing is pending until it is done (nvl_bo_move_pending()): for
 * a move, the backing @bo points at already (move_to() marked it pending
 * while it set the move up); for an eviction, the VRAM @bo still points at
 * until the caller moves it to the pages (the VRAM is freed then).
 */
static void job_push(struct nvl_mm *mm, struct nvl_bo *bo, struct nvl_mm_job *j)
{
	pthread_mutex_lock(&mm->q_lock);
	j->fence->seqno = ++mm->seqno;
	atomic_store_explicit(&bo->move_seq, j->fence->seqno,
			      memory_order_release);
	nvl_resv_add_fence(bo->gem.resv, j->fence, NVL_RESV_USAGE_KERNEL);
	nvl_list_add_tail(&j->link, &mm->queue);
	pthread_cond_signal(&mm->q_cond);
	pthread_mutex_unlock(&mm->q_lock);
}

int nvl_mm_queue_copy(struct nvl_mm *mm, struct nvl_bo *bo,
		      enum nvl_gem_domain from, struct nvl_list *from_blocks,
		      void *from_host, enum nvl_gem_domain to)
{
	struct nvl_mm_job *j;
	int ret;

	/* the old backing is reused behind the copy: VRAM at once, host
	 * pages when it ends or by an eviction that takes them over */
	ret = job_prepare(mm, bo, true, &j);
	if (ret)
		return ret;
	ret = backing_extents(mm, bo, from, from_blocks, from_host, &j->src,
			      &j->nsrc);
	if (!ret)
		ret = backing_extents(mm, bo, to, &bo->blocks, bo->host,
				      &j->dst, &j->ndst);
	if (ret) {
		job_free(j);
		return ret;
	}
	if (from != NVL_GEM_DOMAIN_VRAM) {
		j->free_host = from_host;
		j->free_len = bo->gem.size_B;
	}
	j->bytes = bo->gem.size_B;
	job_push(mm, bo, j);
	return 0;
}

int nvl_mm_queue_unmap(struct nvl_mm *mm, struct nvl_bo *bo,
		       struct nvl_fence **fence)
{
	struct nvl_mm_job *j;
	int ret;

	ret = job_prepare(mm, bo, true, &j);
	if (ret)
		return ret;
	*fence = nvl_fence_get(j->fence);
	job_push(mm, bo, j);
	return 0;
}

/* take @j's old host pages if they are @size_B (q_lock held) */
static void *take_free_host(struct nvl_mm_job *j, uint64_t size_B)
{
	void *p = j ? j->free_host : NULL;

	if (!p || j->free_len != size_B)
		return NULL;
	j->free_host = NULL;
	return p;
}

/*
 * Host pages of @size_B that a job not yet finished frees when it is done
 * (a move's old pages), taken from it (q_lock held): the job then frees
 * nothing. The jobs queued, in flight, and the one the worker or the
 * completer holds are looked at; job_finish() reads a job's free_host
 * under q_lock and drops the worker's and completer's pointers to it.
 */
static void *handover_locked(struct nvl_mm *mm, uint64_t size_B)
{
	struct nvl_list *lists[] = {&mm->inflight, &mm->queue};
	void *p = take_free_host(mm->done_job, size_B);

	if (!p)
		p = take_free_host(mm->work_job, size_B);
	for (unsigned i = 0; i < NVL_ARRAY_SIZE(lists) && !p; i++) {
		struct nvl_mm_job *j;

		nvl_list_for_each_entry (j, lists[i], link) {
			p = take_free_host(j, size_B);
			if (p)
				break;
		}
	}
	return p;
}

int nvl_mm_queue_evict(struct nvl_mm *mm, struct nvl_bo *bo,
		       enum nvl_gem_domain to, void **host_out)
{
	uint64_t size_B = bo->gem.size_B;
	struct nvl_mm_job *j;
	void *host;
	int ret;

	/* the blocks are reused behind this job */
	ret = job_prepare(mm, bo, true, &j);
	if (ret)
		return ret;
	ret = backing_extents(mm, bo, NVL_GEM_DOMAIN_VRAM, &bo->blocks, NULL,
			      &j->src, &j->nsrc);
	if (!ret) {
		j->dst = nvl_calloc(1, sizeof(*j->dst));
		if (!j->dst)
			ret = -ENOMEM;
	}
	if (ret) {
		job_free(j);
		return ret;
	}
	/*
	 * Nothing fails once pages are handed over. A job ahead of this one
	 * in the FIFO still reads them; this one runs after it: on the
	 * device's one channel in order, or with the CPU once the jobs ahead
	 * are done (a failed one is redone before the ones behind it).
	 */
	pthread_mutex_lock(&mm->q_lock);
	host = handover_locked(mm, size_B);
	pthread_mutex_unlock(&mm->q_lock);
	if (host) {
		atomic_fetch_add(&mm->host_handovers, 1);
	} else {
		ret = nvl_mm_host_alloc(mm, size_B, false, &host);
		if (ret) {
			job_free(j);
			return ret;
		}
	}
	j->dst[0].p = host;
	j->dst[0].len = size_B;
	j->dst[0].dom = to;
	/* still DMA-mapped when handed over: the job ahead reads them */
	if (mm->ops->dma_addr)
		j->dst[0].addr = mm->ops->dma_addr(mm->ops_priv, host);
	j->ndst = 1;
	j->bytes = size_B;
	job_push(mm, bo, j);
	*host_out = host;
	return 0;
}

/* Small clears run inline when no job is queued or running. */
#define INLINE_CLEAR_MAX_B (1u << 20)

static bool clear_inline(struct nvl_mm *mm, struct nvl_bo *bo)
{
	struct nvl_buddy_block *b;
	uint64_t dirty = 0;
	bool idle;

	nvl_list_for_each_entry (b, &bo->blocks, link)
		if (!nvl_buddy_block_is_clear(b))
			dirty += nvl_buddy_block_size(&mm->vram, b);
	if (dirty > INLINE_CLEAR_MAX_B)
		return false;
	/*
	 * Jobs are only queued under mm->lock, which the caller holds: with
	 * the worker idle, no job can read this memory while we clear it.
	 */
	pthread_mutex_lock(&mm->q_lock);
	/* with a device's copy engine, clears are its jobs */
	idle = nvl_list_empty(&mm->queue) && !mm->running && !mm->ninflight &&
	       !mm->move_ops;
	pthread_mutex_unlock(&mm->q_lock);
	if (!idle)
		return false;
	nvl_list_for_each_entry (b, &bo->blocks, link)
		if (!nvl_buddy_block_is_clear(b))
			memset(nvl_mm_vram_ptr(mm, nvl_buddy_block_offset(b)),
			       0, nvl_buddy_block_size(&mm->vram, b));
	return true;
}

int nvl_mm_queue_clear(struct nvl_mm *mm, struct nvl_bo *bo)
{
	struct nvl_mm_job *j;
	uint64_t bytes;
	int ret;

	if (clear_inline(mm, bo))
		return 0;

	/* fresh memory: nothing reaches it through an old mapping */
	ret = job_prepare(mm, bo, false, &j);
	if (ret)
		return ret;
	ret = blocks_to_extents(mm, &bo->blocks, true, &j->dst, &j->ndst,
				&bytes);
	if (ret || !j->ndst) {
		job_free(j);
		return ret;
	}
	j->bytes = bytes;
	job_push(mm, bo, j);
	return 0;
}

void nvl_mm_set_move_ops(struct nvl_mm *mm, const struct nvl_mm_move_ops *ops,
			 void *priv)
{
	pthread_mutex_lock(&mm->q_lock);
	/* a job being handed over uses the old ops, and the jobs in flight
	 * finish on the old device first */
	while (mm->running || mm->ninflight)
		pthread_cond_wait(&mm->done_cond, &mm->q_lock);
	mm->move_ops = ops;
	mm->move_priv = priv;
	pthread_mutex_unlock(&mm->q_lock);
}

void nvl_mm_move_stats(struct nvl_mm *mm, struct nvl_mm_move_stats *st)
{
	st->bytes = atomic_load(&mm->bytes_moved);
	st->evictions = atomic_load(&mm->evictions);
	st->gpu_jobs = atomic_load(&mm->gpu_jobs);
	st->gpu_bytes = atomic_load(&mm->gpu_bytes);
	st->gpu_failures = atomic_load(&mm->gpu_failures);
	st->cpu_jobs = atomic_load(&mm->cpu_jobs);
	st->host_handovers = atomic_load(&mm->host_handovers);
	st->dep_chained = atomic_load(&mm->dep_chained);
	st->dep_waits = atomic_load(&mm->dep_waits);
}

/* ---- memory ----------------------------------------------------------- */

void *nvl_mm_vram_ptr(struct nvl_mm *mm, uint64_t offset)
{
	return (uint8_t *)mm->vram_base + offset;
}

int nvl_mm_vram_ready(struct nvl_mm *mm)
{
	if (mm->vram_base)
		return 0;
	return mm->ops->vram_map(mm->ops_priv, mm->vram.size_B, &mm->vram_base);
}

/*
 * The host page pool: freed host backings are kept (up to an eighth of the
 * budget) and reused for the same size, so that moves do not pay for page
 * faults on fresh pages. An entry's header lives in its own first bytes.
 * Reuse for a new BO zeroes; a move destination is overwritten anyway. The
 * pool has its own shrinker, called before the BO shrinker. Pages a
 * provider DMA-maps (dma_addr, a device) are unmapped when they enter the
 * pool and mapped again when it hands them out (dma_unmap / dma_map), so
 * that a freed BO's DMA mapping is torn down with it; a provider without
 * those gets its pages back at once. A move then costs no fresh pages
 * (an mmap, the kernel zeroing them, a munmap) at either end.
 */
struct pool_ent {
	struct nvl_list link;
	uint64_t size_B;
};

static void *pool_take(struct nvl_mm *mm, uint64_t size_B)
{
	struct pool_ent *e, *found = NULL;

	pthread_mutex_lock(&mm->pool_lock);
	nvl_list_for_each_entry (e, &mm->pool, link) {
		if (e->size_B == size_B) {
			found = e;
			nvl_list_del(&e->link);
			mm->pool_B -= size_B;
			break;
		}
	}
	pthread_mutex_unlock(&mm->pool_lock);
	return found;
}

static uint64_t pool_drain(struct nvl_mm *mm, uint64_t want_B)
{
	uint64_t freed = 0;

	while (freed < want_B) {
		struct pool_ent *e = NULL;

		pthread_mutex_lock(&mm->pool_lock);
		if (!nvl_list_empty(&mm->pool)) {
			e = nvl_list_first_entry(&mm->pool, struct pool_ent,
						 link);
			nvl_list_del(&e->link);
			mm->pool_B -= e->size_B;
		}
		pthread_mutex_unlock(&mm->pool_lock);
		if (!e)
			break;
		freed += e->size_B;
		mm->ops->pages_free(mm->ops_priv, e, e->size_B);
	}
	return freed;
}

static uint64_t pool_count(struct nvl_mm_shrinker *s)
{
	struct nvl_mm *mm = s->priv;
	uint64_t n;

	pthread_mutex_lock(&mm->pool_lock);
	n = mm->pool_B;
	pthread_mutex_unlock(&mm->pool_lock);
	return n;
}

static uint64_t pool_scan(struct nvl_mm_shrinker *s, uint64_t want_B)
{
	return pool_drain(s->priv, want_B);
}

int nvl_mm_host_alloc(struct nvl_mm *mm, uint64_t size_B, bool zero,
		      void **ptr_out)
{
	int ret = nvl_mm_host_reserve(mm, size_B);
	void *p;

	if (ret)
		return ret;
	p = pool_take(mm, size_B);
	if (p && mm->ops->dma_addr) {
		ret = mm->ops->dma_map(mm->ops_priv, p, size_B);
		if (ret) {
			mm->ops->pages_free(mm->ops_priv, p, size_B);
			atomic_fetch_sub(&mm->host_B, size_B);
			return ret;
		}
	}
	if (p) {
		if (zero)
			memset(p, 0, size_B);
		else
			memset(p, 0, sizeof(struct pool_ent));
		*ptr_out = p;
		return 0;
	}
	ret = mm->ops->pages_alloc(mm->ops_priv, size_B, ptr_out);
	if (ret)
		atomic_fetch_sub(&mm->host_B, size_B);
	return ret;
}

void nvl_mm_host_free(struct nvl_mm *mm, void *ptr, uint64_t size_B)
{
	struct pool_ent *e = ptr;

	atomic_fetch_sub(&mm->host_B, size_B);
	/* DMA-mapped pages (a device's) are unmapped before they are pooled */
	if (mm->ops->dma_addr) {
		if (!mm->ops->dma_unmap || !mm->ops->dma_map) {
			mm->ops->pages_free(mm->ops_priv, ptr, size_B);
			return;
		}
		mm->ops->dma_unmap(mm->ops_priv, ptr, size_B);
	}
	pthread_mutex_lock(&mm->pool_lock);
	/* the budget is read without mm->lock here: relaxed atomics */
	if (mm->pool_B + size_B <=
	    __atomic_load_n(&mm->host_budget_B, __ATOMIC_RELAXED) / 8) {
		e->size_B = size_B;
		nvl_list_add(&e->link, &mm->pool);
		mm->pool_B += size_B;
		e = NULL;
	}
	pthread_mutex_unlock(&mm->pool_lock);
	if (e)
		mm->ops->pages_free(mm->ops_priv, ptr, size_B);
}

/* ---- create / destroy ------------------------------------------------- */

static uint64_t default_budget(void)
{
	long pages = sysconf(_SC_PHYS_PAGES);
	long psz = sysconf(_SC_PAGESIZE);

	if (pages <= 0 || psz <= 0)
		return 1ull << 30;
	return (uint64_t)pages * (uint64_t)psz / 2;
}

void nvl_mm_set_host_budget(struct nvl_mm *mm, uint64_t budget_B)
{
	nvl_mutex_lock(&mm->lock);
	__atomic_store_n(&mm->host_budget_B,
			 budget_B ? budget_B : default_budget(),
			 __ATOMIC_RELAXED);
	nvl_mutex_unlock(&mm->lock);
}

/* the completer finishes the jobs in flight, then stops */
static void stop_completer(struct nvl_mm *mm)
{
	pthread_mutex_lock(&mm->q_lock);
	mm->stop_completer = true;
	pthread_cond_signal(&mm->inflight_cond);
	pthread_mutex_unlock(&mm->q_lock);
	pthread_join(mm->completer, NULL);
}

/* memory managers created in this process: their serials (bo.h) */
static _Atomic uint32_t serials;

static uint16_t next_serial(void)
{
	return (uint16_t)(atomic_fetch_add(&serials, 1) % 0xffff + 1);
}

bool nvl_mm_serial_issued(uint16_t serial)
{
	uint32_t n = atomic_load(&serials);

	return serial && (n >= 0xffff || serial <= n);
}

int nvl_mm_create(const struct nvl_mm_config *cfg, struct nvl_mm **mm_out)
{
	struct nvl_mm *mm;
	int ret;

	if (!cfg->vram_B || (cfg->vram_B & 4095) ||
	    cfg->visible_B > cfg->vram_B || (cfg->visible_B & 4095))
		return nvl_error(-EINVAL,
				 "mm: bad VRAM size %#llx / visible "
				 "%#llx",
				 (unsigned long long)cfg->vram_B,
				 (unsigned long long)cfg->visible_B);
	mm = nvl_zalloc(sizeof(*mm));
	if (!mm)
		return -ENOMEM;
	ret = nvl_buddy_init(&mm->vram, cfg->vram_B, 4096);
	if (ret)
		goto fail_buddy;
	if (nvl_might_alloc(0)) {
		ret = -ENOMEM;
		goto fail_thread;
	}
	mm->cfg = *cfg;
	mm->ops = cfg->ops ? cfg->ops : &anon_ops;
	mm->ops_priv = cfg->ops_priv;
	mm->visible_B = cfg->visible_B ? cfg->visible_B : cfg->vram_B;
	mm->host_budget_B =
		cfg->host_budget_B ? cfg->host_budget_B : default_budget();
	nvl_mutex_init(&mm->lock, &mm_lock_class);
	nvl_flock_init(&mm->place_lock);
	nvl_mutex_init(&mm->shrink_lock, &mm_shrink_class);
	for (int d = 0; d < NVL_MM_NDOM; d++)
		for (int p = 0; p < NVL_BO_PRIORITIES; p++)
			nvl_list_init(&mm->lru[d][p]);
	nvl_list_init(&mm->zombies);
	mm->zombie_wait_ns = NVL_MM_ZOMBIE_WAIT_NS;
	nvl_list_init(&mm->queue);
	nvl_list_init(&mm->shrinkers);
	nvl_idr_init(&mm->exports);
	mm->serial = next_serial();
	mm->fence_ctx = nvl_fence_context_alloc(1);
	pthread_mutex_init(&mm->q_lock, NULL);
	pthread_cond_init(&mm->q_cond, NULL);
	pthread_cond_init(&mm->inflight_cond, NULL);
	pthread_cond_init(&mm->done_cond, NULL);
	nvl_list_init(&mm->inflight);
	pthread_mutex_init(&mm->pool_lock, NULL);
	nvl_list_init(&mm->pool);
	mm->pool_shrinker.count = pool_count;
	mm->pool_shrinker.scan = pool_scan;
	mm->pool_shrinker.priv = mm;
	nvl_list_add_tail(&mm->pool_shrinker.link, &mm->shrinkers);
	if (pthread_create(&mm->completer, NULL, completer_main, mm)) {
		ret = -EAGAIN;
		goto fail_create;
	}
	if (pthread_create(&mm->worker, NULL, worker_main, mm)) {
		stop_completer(mm);
		ret = -EAGAIN;
		goto fail_create;
	}
	nvl_mm_bo_shrinker_init(mm);
	*mm_out = mm;
	return 0;

fail_create:
	pthread_mutex_destroy(&mm->pool_lock);
	pthread_cond_destroy(&mm->done_cond);
	pthread_cond_destroy(&mm->inflight_cond);
	pthread_cond_destroy(&mm->q_cond);
	pthread_mutex_destroy(&mm->q_lock);
	nvl_idr_fini(&mm->exports);
	nvl_mutex_destroy(&mm->shrink_lock);
	nvl_mutex_destroy(&mm->lock);
fail_thread:
	nvl_buddy_fini(&mm->vram);
fail_buddy:
	nvl_free(mm);
	return ret;
}

void nvl_mm_destroy(struct nvl_mm *mm)
{
	if (!mm)
		return;
	pthread_mutex_lock(&mm->q_lock);
	mm->stop = true;
	pthread_cond_signal(&mm->q_cond);
	pthread_mutex_unlock(&mm->q_lock);
	pthread_join(mm->worker, NULL);
	stop_completer(mm);
	/*
	 * Zombies: give their fences a second each; a fence that never
	 * signals (a hung engine) leaks its BO rather than hanging teardown.
	 */
	nvl_mutex_lock(&mm->lock);
	while (!nvl_list_empty(&mm->zombies)) {
		struct nvl_bo *bo =
			nvl_list_first_entry(&mm->zombies, struct nvl_bo, lru);
		bool hung = false;

		nvl_mutex_unlock(&mm->lock);
		for (unsigned i = 0; i < bo->nzfences; i++)
			hung |= nvl_fence_wait(bo->zfences[i],
					       NVL_NSEC_PER_SEC) != 0;
		nvl_mutex_lock(&mm->lock);
		if (hung) {
			nvl_warn(NVL_CAT_MM, "mm: released BO never went "
					     "idle; leaking it");
			nvl_list_del(&bo->lru);
			continue;
		}
		nvl_mm_reap_zombies(mm);
	}
	nvl_mutex_unlock(&mm->lock);
	for (int d = 0; d < NVL_MM_NDOM; d++)
		for (int p = 0; p < NVL_BO_PRIORITIES; p++)
			if (!nvl_list_empty(&mm->lru[d][p]))
				nvl_warn(NVL_CAT_MM,
					 "mm: destroyed with live "
					 "BOs in domain %d",
					 d);
	pool_drain(mm, UINT64_MAX);
	pthread_mutex_destroy(&mm->pool_lock);
	if (mm->vram_base)
		mm->ops->vram_unmap(mm->ops_priv, mm->vram_base,
				    mm->vram.size_B);
	nvl_buddy_fini(&mm->vram);
	nvl_idr_fini(&mm->exports);
	pthread_cond_destroy(&mm->done_cond);
	pthread_cond_destroy(&mm->inflight_cond);
	pthread_cond_destroy(&mm->q_cond);
	pthread_mutex_destroy(&mm->q_lock);
	nvl_mutex_destroy(&mm->shrink_lock);
	nvl_mutex_destroy(&mm->lock);
	nvl_free(mm);
}

static pthread_mutex_t default_lock = PTHREAD_MUTEX_INITIALIZER;
static struct nvl_mm *default_mm;

struct nvl_mm *nvl_mm_default(void)
{
	struct nvl_mm *mm;

	pthread_mutex_lock(&default_lock);
	if (!default_mm) {
		struct nvl_mm_config cfg = {.vram_B = 256ull << 20,
					    .visible_B = 256ull << 20};

		if (nvl_mm_create(&cfg, &default_mm))
			default_mm = NULL;
	}
	mm = default_mm;
	pthread_mutex_unlock(&default_lock);
	return mm;
}

__attribute__((destructor)) static void default_mm_fini(void)
{
	pthread_mutex_lock(&default_lock);
	nvl_mm_destroy(default_mm);
	default_mm = NULL;
	pthread_mutex_unlock(&default_lock);
}

struct nvl_mm *nvl_mm_of_client(struct nvl_client *client)
{
	return client->mm ? client->mm : nvl_mm_default();
}

// SPDX-License-Identifier: MIT
/*
 * DOC: scheduler fences
 *
 * Every job has two fences allocated together at nvl_sched_job_init() and
 * initialised at arm: *scheduled* (context C of the entity) signals when
 * the job is handed to the hardware, *finished* (context C + 1) when the
 * hardware fence signalled, with its error. The finished fence owns the
 * reference to the scheduled one, so the pair lives as long as anyone holds
 * the finished fence; neither points to the scheduler (fences outlive
 * schedulers): the scheduler is recognised by its id only, for the
 * "same scheduler waits for scheduled only" rule.
 *
 * A released pair goes to a process-wide cache (at most SF_CACHE pairs)
 * for the next nvl_sched_fence_alloc() instead of the allocator: the last
 * reference usually drops on the pool's housekeeper (free_job) while the
 * submitter allocates, and the C library's per-thread caches never serve
 * such a pair. A cached pair still goes through nvl_might_alloc(), so
 * failure injection and the signalling checker see every allocation.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>

#include "base/alloc.h"
#include "base/freelist.h"
#include "base/log.h"
#include "sched/sched_internal.h"

static const char *sf_driver_name(struct nvl_fence *f)
{
	(void)f;
	return "nvl_sched";
}

static const char *sf_scheduled_name(struct nvl_fence *f)
{
	(void)f;
	return "scheduled";
}

static const char *sf_finished_name(struct nvl_fence *f)
{
	(void)f;
	return "finished";
}

/* room for a whole batch of the housekeeper's releases (one per 250 us
 * tick: ~80 jobs of an exec latency loop, ~200 pipelined; with 64 a
 * quarter of the pairs came from the allocator): at most 36 KiB */
#define SF_CACHE 256

/* released pairs (base/freelist.h): at most SF_CACHE, then a release frees */
static struct nvl_freelist sf_cache = NVL_FREELIST_INIT(SF_CACHE);
static _Thread_local struct nvl_freelist_local sf_local =
	NVL_FREELIST_LOCAL_INIT(&sf_cache);

static bool sf_cache_put(struct nvl_sched_fence *sf)
{
	return nvl_freelist_put(&sf_cache, sf);
}

/* a cached pair for this thread, or NULL */
static struct nvl_sched_fence *sf_cache_get(void)
{
	return nvl_freelist_get(&sf_local);
}

static NVL_HOT void sf_release_scheduled(struct nvl_fence *f)
{
	struct nvl_sched_fence *sf =
		container_of(f, struct nvl_sched_fence, scheduled);

	if (!sf_cache_put(sf))
		nvl_free(sf);
}

static NVL_HOT void sf_release_finished(struct nvl_fence *f)
{
	struct nvl_sched_fence *sf =
		container_of(f, struct nvl_sched_fence, finished);

	nvl_fence_put(&sf->scheduled);
}

static const struct nvl_fence_ops scheduled_ops = {
	.get_driver_name = sf_driver_name,
	.get_timeline_name = sf_scheduled_name,
	.release = sf_release_scheduled,
};

static const struct nvl_fence_ops finished_ops = {
	.get_driver_name = sf_driver_name,
	.get_timeline_name = sf_finished_name,
	.release = sf_release_finished,
};

NVL_HOT struct nvl_sched_fence *nvl_sched_fence_alloc(uint64_t sched_id)
{
	struct nvl_sched_fence *sf = sf_cache_get();

	if (sf) {
		if (nvl_might_alloc(sizeof(*sf))) {
			if (!sf_cache_put(sf))
				nvl_free(sf);
			return NULL;
		}
	} else {
		sf = nvl_malloc(sizeof(*sf));
		if (!sf)
			return NULL;
	}
	sf->sched_id = sched_id;
	sf->inited = false;
	return sf;
}

NVL_HOT void nvl_sched_fence_init(struct nvl_sched_fence *sf, uint64_t context,
				  uint64_t seqno)
{
	nvl_fence_init64(&sf->scheduled, &scheduled_ops, context, seqno);
	nvl_fence_init64(&sf->finished, &finished_ops, context + 1, seqno);
	sf->inited = true;
}

void nvl_sched_fence_free(struct nvl_sched_fence *sf)
{
	if (!sf_cache_put(sf))
		nvl_free(sf);
}

struct nvl_sched_fence *nvl_sched_fence_from_finished(struct nvl_fence *f)
{
	if (f->ops != &finished_ops)
		return NULL;
	return container_of(f, struct nvl_sched_fence, finished);
}

int nvl_sched_fence_set_dont_pipeline(struct nvl_fence *finished)
{
	if (!finished || !nvl_sched_fence_from_finished(finished))
		return nvl_error(-EINVAL, "sched: DONT_PIPELINE on a fence "
					  "that is not a finished fence");
	atomic_fetch_or(&finished->flags,
			1u << NVL_SCHED_FENCE_DONT_PIPELINE_BIT);
	return 0;
}

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
 * A released pair goes to a small cache of the releasing thread
 * (SF_CACHE pairs; freed when the thread exits) for that thread's next
 * nvl_sched_fence_alloc(): a submitter that replaces its syncobj's and
 * resv's previous fences (the usual last references) reuses them without
 * the allocator. A cached pair still goes through nvl_might_alloc(), so
 * failure injection and the signalling checker see every allocation.
 */
#include <errno.h>
#include <pthread.h>

#include "base/alloc.h"
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

#define SF_CACHE 8

struct sf_cache {
	struct nvl_sched_fence *sf[SF_CACHE];
	unsigned n;
	bool registered; /* with the key, to be freed at thread exit */
};

static _Thread_local struct sf_cache sf_cache;
static pthread_key_t sf_key;
static pthread_once_t sf_key_once = PTHREAD_ONCE_INIT;
static bool sf_key_ok;

static void sf_cache_drain(void *arg)
{
	struct sf_cache *c = arg;

	while (c->n)
		nvl_free(c->sf[--c->n]);
}

static void sf_key_init(void)
{
	sf_key_ok = !pthread_key_create(&sf_key, sf_cache_drain);
}

/* keep @sf for this thread's next allocation; false: free it */
static bool sf_cache_put(struct nvl_sched_fence *sf)
{
	struct sf_cache *c = &sf_cache;

	if (c->n == SF_CACHE)
		return false;
	if (unlikely(!c->registered)) {
		pthread_once(&sf_key_once, sf_key_init);
		if (!sf_key_ok || pthread_setspecific(sf_key, c))
			return false;
		c->registered = true;
	}
	c->sf[c->n++] = sf;
	return true;
}

static void sf_release_scheduled(struct nvl_fence *f)
{
	struct nvl_sched_fence *sf =
		container_of(f, struct nvl_sched_fence, scheduled);

	if (!sf_cache_put(sf))
		nvl_free(sf);
}

static void sf_release_finished(struct nvl_fence *f)
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

struct nvl_sched_fence *nvl_sched_fence_alloc(uint64_t sched_id)
{
	struct sf_cache *c = &sf_cache;
	struct nvl_sched_fence *sf;

	if (c->n) {
		if (nvl_might_alloc(sizeof(*sf)))
			return NULL;
		sf = c->sf[--c->n];
	} else {
		sf = nvl_malloc(sizeof(*sf));
		if (!sf)
			return NULL;
	}
	sf->sched_id = sched_id;
	sf->inited = false;
	return sf;
}

void nvl_sched_fence_init(struct nvl_sched_fence *sf, uint64_t context,
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

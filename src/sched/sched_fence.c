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
 */
#include <errno.h>

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

static void sf_release_scheduled(struct nvl_fence *f)
{
	nvl_free(container_of(f, struct nvl_sched_fence, scheduled));
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
	struct nvl_sched_fence *sf = nvl_malloc(sizeof(*sf));

	if (!sf)
		return NULL;
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

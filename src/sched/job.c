// SPDX-License-Identifier: MIT
/*
 * DOC: scheduler jobs
 *
 * init -> add dependencies -> arm -> push. Everything that allocates
 * happens before arm: nvl_sched_job_init() allocates the fence pair and
 * nvl_sched_job_add_dependency() grows the dependency array. Arm gives the
 * fences their seqno (per-entity counter); after that nothing allocates
 * until free_job().
 *
 * Dependencies are deduplicated by context (the later fence is kept; a
 * timeline's chain nodes only when they are the same node) and
 * already signalled fences are dropped at once; the run path then walks the
 * array in order, waiting for one fence at a time with a callback that
 * makes the entity runnable again.
 */
#include <errno.h>
#include <string.h>

#include "base/alloc.h"
#include "base/log.h"
#include "sched/sched_internal.h"
#include "sync/fence_chain.h"

NVL_HOT int nvl_sched_job_init(struct nvl_sched_job *job,
			       struct nvl_sched_entity *entity,
			       uint32_t credits, void *owner)
{
	struct nvl_sched *sched;
	struct nvl_sched_fence *sf;

	if (!job || !entity || !entity->initialized || entity->detached)
		return nvl_error(-EINVAL, "sched: job init on an entity "
					  "without scheduler");
	sched = entity->sched;
	if (credits == 0)
		return nvl_error(-EINVAL, "sched: job with zero credits");
	if (credits > sched->credit_limit)
		return nvl_error(-EINVAL,
				 "sched: job takes %u credits, "
				 "ring '%s' has %u",
				 credits, sched->name, sched->credit_limit);
	sf = nvl_sched_fence_alloc(sched->id);
	if (!sf)
		return nvl_error(-ENOMEM, "sched: no memory for job fences");
	memset(job, 0, sizeof(*job));
	nvl_list_init(&job->node);
	nvl_list_init(&job->hw_cb.node);
	job->sched = sched;
	job->entity = entity;
	job->s_fence = sf;
	job->credits = credits;
	job->owner = owner;
	job->state = NVL_SCHED_JOB_INIT;
	return 0;
}

int nvl_sched_job_add_dependency(struct nvl_sched_job *job,
				 struct nvl_fence *fence)
{
	if (!fence) {
		return nvl_error(-EINVAL, "sched: NULL dependency");
	}
	if (!job || job->state != NVL_SCHED_JOB_INIT) {
		nvl_fence_put(fence);
		return nvl_error(-EINVAL,
				 "sched: dependency added to a job that is not "
				 "initialised or already armed");
	}
	if (nvl_fence_test_signaled_flag(fence) &&
	    nvl_fence_get_status(fence) == 1) {
		nvl_fence_put(fence);
		return 0;
	}
	for (uint32_t i = 0; i < job->num_deps; i++) {
		struct nvl_fence *old = job->deps[i];

		/*
		 * Chain nodes of two syncobjs may share a context and seqno
		 * (a node moved by a binary transfer passes its context on
		 * to the next point, as dma_fence_chain does): only the
		 * same node is a duplicate of a chain node.
		 */
		if (old->context != fence->context ||
		    (old != fence &&
		     (nvl_to_fence_chain(old) || nvl_to_fence_chain(fence))))
			continue;
		if (nvl_fence_is_later(fence, old)) {
			job->deps[i] = fence;
			nvl_fence_put(old);
		} else {
			nvl_fence_put(fence);
		}
		return 0;
	}
	if (job->num_deps == job->max_deps) {
		uint32_t n = job->max_deps ? job->max_deps * 2 : 4;
		struct nvl_fence **deps =
			nvl_reallocarray(job->deps, n, sizeof(*deps));

		if (!deps) {
			nvl_fence_put(fence);
			return nvl_error(-ENOMEM,
					 "sched: no memory for a dependency");
		}
		job->deps = deps;
		job->max_deps = n;
	}
	job->deps[job->num_deps++] = fence;
	return 0;
}

/* the fences of @resv with usage <= @usage become dependencies of @job */
static __attribute__((noinline)) int add_resv_deps(struct nvl_sched_job *job,
						   struct nvl_resv *resv,
						   enum nvl_resv_usage usage)
{
	struct nvl_resv_iter it;
	struct nvl_fence *f;
	int ret;

	/* the iteration asserts that @resv is held */
	nvl_resv_for_each_fence (&it, resv, usage, f) {
		ret = nvl_sched_job_add_dependency(job, nvl_fence_get(f));
		if (ret)
			return ret;
	}
	return 0;
}

NVL_HOT int nvl_sched_job_add_resv_dependencies(struct nvl_sched_job *job,
						struct nvl_resv *resv,
						enum nvl_resv_usage usage)
{
	struct nvl_resv_iter it;

	if (!job || job->state != NVL_SCHED_JOB_INIT || !resv)
		return nvl_error(-EINVAL,
				 "sched: resv dependencies on a job that is "
				 "not initialised or already armed");
	/*
	 * An exec's two resvs usually hold no fence of @usage (KERNEL: a
	 * move): that is found without a stack frame; a resv that has one
	 * is walked again by add_resv_deps(). The iteration asserts that
	 * @resv is held.
	 */
	if (likely(!nvl_resv_iter_first(&it, resv, usage)))
		return 0;
	return add_resv_deps(job, resv, usage);
}

NVL_HOT int nvl_sched_job_arm(struct nvl_sched_job *job)
{
	struct nvl_sched_entity *e;
	uint64_t seqno;

	if (!job || job->state != NVL_SCHED_JOB_INIT)
		return nvl_error(-EINVAL, "sched: arm of a job that is %s",
				 job && job->state >= NVL_SCHED_JOB_ARMED
					 ? "already armed"
					 : "not initialised");
	e = job->entity;
	seqno = atomic_fetch_add(&e->seqno, 1) + 1;
	nvl_sched_fence_init(job->s_fence, e->fence_context, seqno);
	job->state = NVL_SCHED_JOB_ARMED;
	return 0;
}

NVL_HOT void nvl_sched_job_cleanup(struct nvl_sched_job *job)
{
	struct nvl_sched_fence *sf;

	if (!job || job->state == NVL_SCHED_JOB_NONE)
		return;
	for (uint32_t i = job->dep_next; i < job->num_deps; i++)
		nvl_fence_put(job->deps[i]);
	nvl_free(job->deps);
	job->deps = NULL;
	job->num_deps = job->max_deps = job->dep_next = 0;
	nvl_fence_put(job->hw_fence);
	job->hw_fence = NULL;
	sf = job->s_fence;
	job->s_fence = NULL;
	if (sf && sf->inited) {
		/* Armed but never pushed: nobody may wait forever. */
		if (!nvl_fence_test_signaled_flag(&sf->finished)) {
			nvl_fence_set_error(&sf->scheduled, -ECANCELED);
			nvl_fence_signal(&sf->scheduled);
			nvl_fence_set_error(&sf->finished, -ECANCELED);
			nvl_fence_signal(&sf->finished);
		}
		nvl_fence_put(&sf->finished);
	} else if (sf) {
		nvl_sched_fence_free(sf);
	}
	job->state = NVL_SCHED_JOB_NONE;
}

NVL_HOT struct nvl_fence *nvl_sched_job_finished(struct nvl_sched_job *job)
{
	return job->s_fence ? &job->s_fence->finished : NULL;
}

struct nvl_fence *nvl_sched_job_scheduled(struct nvl_sched_job *job)
{
	return job->s_fence ? &job->s_fence->scheduled : NULL;
}

void nvl_sched_job_set_error(struct nvl_sched_job *job, int err)
{
	if (err < 0 && !job->error)
		job->error = err;
}

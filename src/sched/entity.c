// SPDX-License-Identifier: MIT
/*
 * DOC: entities (submission queues)
 *
 * An entity is a FIFO of jobs bound to one scheduler and one priority. Its
 * fences use two contexts (scheduled, finished) and a per-entity seqno.
 *
 * Push: with the scheduler lock, the job is appended and, if it is the
 * only one, the entity goes on its run queue. *Direct run*: when nothing
 * else on the scheduler is runnable, no thread holds the run token, the
 * scheduler is not stopped and the signalling checker proves that the
 * locks the pusher holds may be held across a signalling section
 * (nvl_checker_signalling_safe(): none is ever taken inside one), the
 * pushing thread takes the token and runs the job itself (dependencies
 * permitting), in a fence-signalling section — no worker wake-up, no
 * context switch. Otherwise a pool worker is woken.
 *
 * Kill: pushes fail with -ESRCH; queued jobs go through the run loop
 * without running: each one, once its dependencies and the entity's
 * previous job finished, signals scheduled and finished with -ESRCH, in
 * order. A banned entity (guilty job) behaves the same with -ECANCELED.
 */
#include <errno.h>

#include "base/alloc.h"
#include "base/log.h"
#include "base/time.h"
#include "sched/sched_internal.h"

int nvl_sched_entity_init(struct nvl_sched_entity *entity,
			  enum nvl_sched_priority priority,
			  struct nvl_sched *sched)
{
	if (!entity || !sched)
		return nvl_error(-EINVAL, "sched: entity init without "
					  "entity or scheduler");
	if ((unsigned)priority >= NVL_SCHED_PRIO_COUNT)
		return nvl_error(-EINVAL, "sched: bad priority %d",
				 (int)priority);
	*entity = (struct nvl_sched_entity){0};
	entity->sched = sched;
	entity->priority = priority;
	nvl_list_init(&entity->jobs);
	nvl_list_init(&entity->rq_node);
	nvl_list_init(&entity->sched_node);
	nvl_list_init(&entity->dep_cb.node);
	entity->fence_context = nvl_fence_context_alloc(2);
	nvl_mutex_lock(&sched->lock);
	if (sched->dying) {
		nvl_mutex_unlock(&sched->lock);
		return nvl_error(-EINVAL, "sched %s: being destroyed",
				 sched->name);
	}
	nvl_list_add_tail(&entity->sched_node, &sched->entities);
	entity->initialized = 1;
	nvl_mutex_unlock(&sched->lock);
	return 0;
}

static int push_fail(struct nvl_sched_job *job, int err, const char *why)
{
	struct nvl_sched_fence *sf = job->s_fence;

	nvl_fence_set_error(&sf->scheduled, err);
	nvl_fence_signal(&sf->scheduled);
	nvl_fence_set_error(&sf->finished, err);
	nvl_fence_signal(&sf->finished);
	job->state = NVL_SCHED_JOB_FAILED;
	return nvl_error(err, "sched: push to %s entity", why);
}

NVL_HOT int nvl_sched_entity_push_job(struct nvl_sched_job *job)
{
	struct nvl_sched_entity *e;
	struct nvl_sched *sched;
	bool direct = false, safe;

	if (!job || job->state != NVL_SCHED_JOB_ARMED)
		return nvl_error(-EINVAL, "sched: push of a job that is %s",
				 job && job->state > NVL_SCHED_JOB_ARMED
					 ? "already pushed"
					 : "not armed");
	e = job->entity;
	if (e->detached)
		return push_fail(job, -ESRCH, "a detached");
	sched = e->sched;
	/* direct run only where the checker proves the caller's locks may be
	 * held across the run's signalling section (before our own lock,
	 * which the run loop takes inside sections by design) */
	safe = !(sched->flags & NVL_SCHED_NO_DIRECT_RUN) &&
	       nvl_checker_signalling_safe();
	nvl_mutex_lock(&sched->lock);
	if (e->killed || e->banned || e->detached || sched->dying) {
		int err = e->banned ? -ECANCELED : -ESRCH;

		nvl_mutex_unlock(&sched->lock);
		return push_fail(job, err,
				 err == -ECANCELED ? "a banned" : "a killed");
	}
	if (job->s_fence->finished.seqno != e->last_pushed_seqno + 1)
		nvl_warn(NVL_CAT_SCHED,
			 "sched %s: job seqno %llu pushed after %llu: arm and "
			 "push are not serialised",
			 sched->name,
			 (unsigned long long)job->s_fence->finished.seqno,
			 (unsigned long long)e->last_pushed_seqno);
	e->last_pushed_seqno = job->s_fence->finished.seqno;
	if (!e->num_queued && !e->waiting_dep) {
		bool alone = true;

		for (int p = 0; p < NVL_SCHED_PRIO_COUNT; p++)
			alone = alone && nvl_list_empty(&sched->rq[p]);
		alone = alone && nvl_list_empty(&sched->kill_list);
		direct = alone && safe && !sched->stopped;
		/* the usual exec on an idle channel: straight to run_job,
		 * not through the run queue (the token given back without
		 * the lock) */
		if (direct && nvl_sched_can_run_unqueued(sched, job) &&
		    nvl_sched_token_take(sched)) {
			nvl_sched_run_unqueued(sched, job);
			nvl_sched_token_release_unlocked(sched);
			return 0;
		}
	}
	job->state = NVL_SCHED_JOB_QUEUED;
	nvl_list_add_tail(&job->node, &e->jobs);
	e->num_queued++;
	if (e->num_queued == 1 && !e->waiting_dep) {
		nvl_sched_entity_ready(sched, e);
		if (!sched->stopped) {
			if (direct && nvl_sched_token_take(sched)) {
				nvl_sched_run_direct(sched, 1);
				nvl_sched_token_release(sched);
			} else if (!nvl_sched_token_notify(sched)) {
				nvl_sched_queue_work(sched, NVL_SCHED_WORK_RUN);
			}
		}
	}
	nvl_mutex_unlock(&sched->lock);
	return 0;
}

int nvl_sched_entity_flush(struct nvl_sched_entity *entity, int64_t timeout_ns)
{
	struct nvl_sched *sched = entity->sched;
	int64_t deadline = nvl_deadline_after(timeout_ns);

	if (!entity->initialized || entity->detached)
		return 0;
	nvl_mutex_lock(&sched->lock);
	while (entity->num_queued && !entity->detached) {
		uint32_t seq;

		if (nvl_time_ns() >= deadline) {
			nvl_mutex_unlock(&sched->lock);
			return nvl_error(-ETIME,
					 "sched %s: flush timed out "
					 "with %u jobs queued",
					 sched->name, entity->num_queued);
		}
		seq = nvl_sched_event_prepare(&sched->ev);
		nvl_mutex_unlock(&sched->lock);
		nvl_sched_event_wait(&sched->ev, seq, deadline);
		nvl_mutex_lock(&sched->lock);
	}
	nvl_mutex_unlock(&sched->lock);
	return 0;
}

void nvl_sched_entity_kill(struct nvl_sched_entity *entity)
{
	struct nvl_sched *sched = entity->sched;

	if (!entity->initialized || entity->detached)
		return;
	nvl_mutex_lock(&sched->lock);
	if (!entity->killed) {
		entity->killed = 1;
		if (!entity->banned)
			entity->error = -ESRCH;
		if (entity->on_rq) {
			nvl_list_del(&entity->rq_node);
			entity->on_rq = 0;
			nvl_sched_entity_ready(sched, entity);
		}
		if (entity->on_rq && !sched->stopped &&
		    !nvl_sched_token_notify(sched))
			nvl_sched_queue_work(sched, NVL_SCHED_WORK_RUN);
	}
	nvl_mutex_unlock(&sched->lock);
}

/*
 * Hand the queued jobs of a closing entity to a scheduler-owned copy, so
 * that fini need not wait for their dependencies. Lock held; the entity is
 * off every run queue, unused by the run loop and has no callback queued.
 */
static void move_to_shadow(struct nvl_sched *sched, struct nvl_sched_entity *e,
			   struct nvl_sched_entity *shadow)
{
	struct nvl_sched_job *job;

	*shadow = (struct nvl_sched_entity){0};
	shadow->sched = sched;
	shadow->priority = e->priority;
	shadow->fence_context = e->fence_context;
	atomic_init(&shadow->seqno, atomic_load(&e->seqno));
	shadow->last_pushed_seqno = e->last_pushed_seqno;
	shadow->killed = 1;
	shadow->banned = e->banned;
	shadow->error = e->error;
	shadow->initialized = 1;
	shadow->shadow = 1;
	shadow->last_scheduled = e->last_scheduled;
	e->last_scheduled = NULL;
	nvl_list_init(&shadow->jobs);
	nvl_list_init(&shadow->rq_node);
	nvl_list_init(&shadow->dep_cb.node);
	nvl_list_splice_tail_init(&e->jobs, &shadow->jobs);
	nvl_list_for_each_entry (job, &shadow->jobs, node)
		job->entity = shadow;
	shadow->num_queued = e->num_queued;
	e->num_queued = 0;
	nvl_list_add_tail(&shadow->sched_node, &sched->entities);
	nvl_sched_entity_ready(sched, shadow);
	if (!sched->stopped && !nvl_sched_token_notify(sched))
		nvl_sched_queue_work(sched, NVL_SCHED_WORK_RUN);
}

void nvl_sched_entity_fini(struct nvl_sched_entity *entity)
{
	struct nvl_sched *sched = entity->sched;
	struct nvl_sched_entity *shadow = NULL;
	struct nvl_fence *last;

	if (!entity->initialized)
		return;
	if (!entity->detached) {
		bool stopped;

		/*
		 * A killed or banned entity's queued jobs never run: a flush
		 * would only wait for their dependencies (another client's
		 * hang: up to its job timeout) and race with them. As the
		 * kernel's drm_sched_entity_is_idle() counts a stopped entity
		 * as idle, skip it; the jobs move to the shadow below.
		 */
		nvl_mutex_lock(&sched->lock);
		stopped = entity->killed || entity->banned;
		nvl_mutex_unlock(&sched->lock);
		if (!stopped)
			(void)nvl_sched_entity_flush(entity, NVL_NSEC_PER_SEC);
		nvl_sched_entity_kill(entity);
		shadow = nvl_zalloc(sizeof(*shadow));
		nvl_mutex_lock(&sched->lock);
		if (shadow && !entity->detached) {
			/* Stop the run loop from picking it up again. */
			entity->closing = 1;
			if (entity->on_rq)
				nvl_list_del(&entity->rq_node);
			entity->on_rq = 0;
			nvl_sched_wait_locked(
				sched, entity->detached ||
					       sched->cur_entity != entity);
			while (entity->waiting_dep && !entity->detached) {
				struct nvl_fence *f = entity->dep_fence;
				bool removed;

				nvl_mutex_unlock(&sched->lock);
				removed = nvl_fence_remove_callback(
					f, &entity->dep_cb);
				nvl_mutex_lock(&sched->lock);
				if (removed) {
					entity->waiting_dep = 0;
					entity->dep_fence = NULL;
				} else {
					nvl_sched_wait_locked(
						sched,
						entity->detached ||
							!entity->waiting_dep);
				}
			}
		}
		/* Jobs already on the ring still count on the entity. */
		nvl_sched_wait_locked(
			sched,
			entity->detached || (!entity->waiting_dep &&
					     !entity->num_inflight &&
					     sched->cur_entity != entity &&
					     (shadow || !entity->num_queued)));
		if (!entity->detached) {
			if (entity->num_queued) {
				move_to_shadow(sched, entity, shadow);
				shadow = NULL;
			}
			if (entity->on_rq)
				nvl_list_del(&entity->rq_node);
			entity->on_rq = 0;
			nvl_list_del(&entity->sched_node);
			entity->detached = 1;
		}
		nvl_mutex_unlock(&sched->lock);
		nvl_free(shadow);
	}
	last = entity->last_scheduled;
	entity->last_scheduled = NULL;
	nvl_fence_put(last);
	entity->initialized = 0;
}

int nvl_sched_entity_error(struct nvl_sched_entity *entity)
{
	struct nvl_sched *sched = entity->sched;
	int err;

	if (!entity->initialized || entity->detached)
		return entity->error ? entity->error : -ESRCH;
	nvl_mutex_lock(&sched->lock);
	err = entity->error;
	nvl_mutex_unlock(&sched->lock);
	return err;
}

int nvl_sched_entity_set_priority(struct nvl_sched_entity *entity,
				  enum nvl_sched_priority priority)
{
	struct nvl_sched *sched;

	if (!entity || !entity->initialized)
		return nvl_error(-EINVAL, "sched: set_priority on an entity "
					  "that is not initialised");
	if ((unsigned)priority >= NVL_SCHED_PRIO_COUNT)
		return nvl_error(-EINVAL, "sched: bad priority %d",
				 (int)priority);
	sched = entity->sched;
	if (entity->detached)
		return nvl_error(-ESRCH, "sched: set_priority on a detached "
					 "entity");
	nvl_mutex_lock(&sched->lock);
	if (entity->killed || entity->banned || entity->detached) {
		nvl_mutex_unlock(&sched->lock);
		return nvl_error(-ESRCH,
				 "sched %s: set_priority on a %s "
				 "entity",
				 sched->name,
				 entity->banned ? "banned" : "killed");
	}
	entity->priority = priority;
	if (entity->on_rq) {
		/* Ready: requeue at the tail of the new run queue. */
		nvl_list_del(&entity->rq_node);
		entity->on_rq = 0;
		nvl_sched_entity_ready(sched, entity);
	}
	nvl_mutex_unlock(&sched->lock);
	return 0;
}

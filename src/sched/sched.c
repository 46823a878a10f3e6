// SPDX-License-Identifier: MIT
/*
 * DOC: schedulers, timeouts, recovery and teardown
 *
 * Timeout: measured as time *without progress on the ring*. The deadline
 * is set to now + timeout when a job enters an empty ring and pushed back
 * to now + timeout whenever a job on the ring completes; it is off while
 * the ring is empty. A long queue of short jobs therefore never times out;
 * one job that runs longer than the timeout while nothing else completes
 * does. On expiry a pool worker takes the run token and calls
 * timedout_job() with the oldest job on the ring (pinned: it cannot be
 * freed during the call).
 *
 * Recovery helpers, for timedout_job(): nvl_sched_stop() detaches the ring
 * from its hardware fences, nvl_sched_job_set_guilty() bans the guilty
 * job's entity, nvl_sched_resubmit_jobs() re-runs the innocent jobs,
 * nvl_sched_start() resumes.
 *
 * Destroy: stop, leave the pool, remove pending dependency callbacks,
 * cancel the jobs on the ring (cancel_job, then force-detach after one
 * second: -ECANCELED), finish the jobs still queued without waiting for
 * their dependencies (a killed entity's -ESRCH, as the kill promised; a
 * banned or still attached entity's -ECANCELED), free everything.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/log.h"
#include "base/time.h"
#include "sched/sched_internal.h"

static NVL_LOCK_CLASS(sched_lock_class, "sched", 0);
static atomic_uint_fast64_t sched_ids;

int nvl_sched_create(const struct nvl_sched_args *args, struct nvl_sched **out)
{
	struct nvl_sched *sched;
	int ret;

	if (!args || !out || !args->ops || !args->ops->run_job ||
	    !args->ops->free_job)
		return nvl_error(-EINVAL,
				 "sched: create needs run_job and free_job");
	if (args->credit_limit == 0)
		return nvl_error(-EINVAL, "sched: credit limit of 0");
	if (args->timeout_ns < 0)
		return nvl_error(-EINVAL, "sched: negative timeout %lld",
				 (long long)args->timeout_ns);
	sched = nvl_zalloc(sizeof(*sched));
	if (!sched)
		return nvl_error(-ENOMEM, "sched: no memory for a scheduler");
	ret = nvl_sched_pool_get();
	if (ret) {
		nvl_free(sched);
		return nvl_error(ret, "sched: cannot start the worker pool");
	}
	nvl_mutex_init(&sched->lock, &sched_lock_class);
	sched->ops = args->ops;
	sched->priv = args->priv;
	sched->id = atomic_fetch_add(&sched_ids, 1) + 1;
	sched->credit_limit = args->credit_limit;
	sched->flags = args->flags;
	sched->timeout_ns =
		args->timeout_ns == NVL_TIMEOUT_INFINITE ? 0 : args->timeout_ns;
	sched->deadline_ns = NVL_TIMEOUT_INFINITE;
	for (int p = 0; p < NVL_SCHED_PRIO_COUNT; p++)
		nvl_list_init(&sched->rq[p]);
	nvl_list_init(&sched->kill_list);
	nvl_list_init(&sched->entities);
	nvl_list_init(&sched->pending);
	nvl_list_init(&sched->dead_shadows);
	nvl_list_init(&sched->done);
	nvl_list_init(&sched->work_node);
	nvl_list_init(&sched->reap_node);
	nvl_list_init(&sched->timer_node);
	snprintf(sched->name, sizeof(sched->name), "%s",
		 args->name ? args->name : "sched");
	*out = sched;
	return 0;
}

NVL_HOT void *nvl_sched_priv(const struct nvl_sched *sched)
{
	return sched->priv;
}

const char *nvl_sched_name(const struct nvl_sched *sched)
{
	return sched->name;
}

uint32_t nvl_sched_credit_count(struct nvl_sched *sched)
{
	uint32_t n;

	nvl_mutex_lock(&sched->lock);
	n = sched->credit_count;
	nvl_mutex_unlock(&sched->lock);
	return n;
}

static bool is_runner(struct nvl_sched *sched)
{
	return nvl_sched_token_held(sched) &&
	       pthread_equal(sched->runner, pthread_self());
}

/* First ring job not yet visited in round @gen, pinned. Lock held. */
static struct nvl_sched_job *next_pending(struct nvl_sched *sched, uint32_t gen,
					  bool detached)
{
	struct nvl_sched_job *job;

	nvl_list_for_each_entry (job, &sched->pending, node) {
		if (job->visit == gen || job->detached != detached)
			continue;
		job->visit = gen;
		job->pinned++;
		return job;
	}
	return NULL;
}

static uint32_t visit_gen(struct nvl_sched *sched)
{
	static atomic_uint gen;

	(void)sched;
	return atomic_fetch_add(&gen, 1) + 1;
}

void nvl_sched_stop(struct nvl_sched *sched)
{
	struct nvl_sched_job *job;
	uint32_t gen;

	nvl_mutex_lock(&sched->lock);
	sched->stopped = true;
	if (!is_runner(sched))
		nvl_sched_wait_locked(sched, !nvl_sched_token_notify(sched));
	gen = visit_gen(sched);
	while ((job = next_pending(sched, gen, false))) {
		bool removed = false;

		nvl_mutex_unlock(&sched->lock);
		if (job->hw_fence)
			removed = nvl_fence_remove_callback(job->hw_fence,
							    &job->hw_cb);
		nvl_mutex_lock(&sched->lock);
		if (removed && !job->done_deferred) {
			job->detached = 1;
			if (job->has_credits) {
				sched->credit_count -= job->credits;
				job->has_credits = 0;
			}
		}
		nvl_sched_job_unpin(sched, job);
	}
	nvl_mutex_unlock(&sched->lock);
}

void nvl_sched_resubmit_jobs(struct nvl_sched *sched)
{
	struct nvl_sched_job *job;
	uint32_t gen;

	nvl_mutex_lock(&sched->lock);
	gen = visit_gen(sched);
	while ((job = next_pending(sched, gen, true))) {
		bool skip = job->guilty || job->error || job->entity_banned;
		struct nvl_fence *old = job->hw_fence;
		struct nvl_signalling_cookie cookie;

		job->detached = 0;
		if (!skip) {
			job->has_credits = 1;
			sched->credit_count += job->credits;
			job->hw_fence = NULL;
		}
		nvl_mutex_unlock(&sched->lock);
		cookie = nvl_fence_begin_signalling();
		if (skip) {
			nvl_sched_job_complete(job, job->error ? job->error
							       : -ECANCELED);
		} else {
			nvl_sched_job_run(sched, job);
			nvl_fence_put(old);
		}
		nvl_fence_end_signalling(cookie);
		nvl_mutex_lock(&sched->lock);
		nvl_sched_job_unpin(sched, job);
	}
	nvl_mutex_unlock(&sched->lock);
}

void nvl_sched_start(struct nvl_sched *sched)
{
	struct nvl_sched_job *job;
	uint32_t gen;

	nvl_mutex_lock(&sched->lock);
	gen = visit_gen(sched);
	while ((job = next_pending(sched, gen, true))) {
		job->detached = 0;
		nvl_mutex_unlock(&sched->lock);
		nvl_sched_job_complete(job, -ECANCELED);
		nvl_mutex_lock(&sched->lock);
		nvl_sched_job_unpin(sched, job);
	}
	sched->stopped = false;
	if (sched->timeout_ns && !sched->timeout_off &&
	    !nvl_list_empty(&sched->pending)) {
		sched->deadline_ns = nvl_sched_deadline(sched);
		nvl_sched_timer_update(sched);
	}
	if (nvl_sched_has_ready(sched) && !nvl_sched_token_notify(sched))
		nvl_sched_queue_work(sched, NVL_SCHED_WORK_RUN);
	nvl_mutex_unlock(&sched->lock);
}

void nvl_sched_fault(struct nvl_sched *sched)
{
	nvl_mutex_lock(&sched->lock);
	if (!nvl_list_empty(&sched->pending)) {
		sched->deadline_ns = nvl_time_ns();
		nvl_sched_queue_work(sched, NVL_SCHED_WORK_TIMEOUT);
	}
	nvl_mutex_unlock(&sched->lock);
}

void nvl_sched_handle_timeout(struct nvl_sched *sched)
{
	struct nvl_sched_job *job;
	enum nvl_sched_stat stat;
	struct nvl_signalling_cookie cookie;

	nvl_mutex_lock(&sched->lock);
	if (sched->stopped || sched->timeout_off ||
	    nvl_list_empty(&sched->pending) ||
	    sched->deadline_ns > nvl_time_ns()) {
		/*
		 * Progress since the timer fired: re-arm. Stopped or idle:
		 * off (nvl_sched_start() and the next job re-arm it).
		 */
		if (sched->stopped || sched->timeout_off ||
		    nvl_list_empty(&sched->pending))
			sched->deadline_ns = NVL_TIMEOUT_INFINITE;
		nvl_sched_timer_update(sched);
		nvl_mutex_unlock(&sched->lock);
		return;
	}
	if (!nvl_sched_token_take(sched)) {
		/*
		 * Another thread runs jobs (a direct run, a worker): its
		 * release of the token, under the lock, queues the timeout
		 * again (nvl_sched_token_release()). Queueing it here at once
		 * spun a pool worker on the scheduler for as long as the
		 * holder kept the token. A holder that let go without the
		 * lock meanwhile: queue it now.
		 */
		sched->timeout_pending = true;
		if (!nvl_sched_token_notify(sched))
			nvl_sched_queue_work(sched, NVL_SCHED_WORK_TIMEOUT);
		nvl_mutex_unlock(&sched->lock);
		return;
	}
	sched->timeout_pending = false;
	job = nvl_list_first_entry(&sched->pending, struct nvl_sched_job, node);
	job->pinned++;
	nvl_mutex_unlock(&sched->lock);

	nvl_warn(NVL_CAT_SCHED, "sched %s: job %llu timed out", sched->name,
		 (unsigned long long)job->s_fence->finished.seqno);
	cookie = nvl_fence_begin_signalling();
	stat = sched->ops->timedout_job ? sched->ops->timedout_job(job)
					: NVL_SCHED_STAT_NO_HANG;
	nvl_fence_end_signalling(cookie);

	nvl_mutex_lock(&sched->lock);
	nvl_sched_job_unpin(sched, job);
	if (stat == NVL_SCHED_STAT_ENODEV) {
		sched->timeout_off = true;
		sched->deadline_ns = NVL_TIMEOUT_INFINITE;
	} else {
		/* No timeout configured (a nvl_sched_fault()): stay off. */
		sched->deadline_ns =
			nvl_list_empty(&sched->pending) || !sched->timeout_ns
				? NVL_TIMEOUT_INFINITE
				: nvl_sched_deadline(sched);
	}
	nvl_sched_timer_update(sched);
	nvl_sched_token_release(sched);
	nvl_mutex_unlock(&sched->lock);
}

void nvl_sched_job_set_guilty(struct nvl_sched_job *job, int err)
{
	struct nvl_sched *sched = job->sched;
	struct nvl_sched_entity *e = job->entity;
	struct nvl_sched_job *j;

	nvl_mutex_lock(&sched->lock);
	job->guilty = 1;
	nvl_sched_job_set_error(job, err);
	if (!e->banned && !e->killed) {
		e->banned = 1;
		e->error = -ECANCELED;
		if (e->on_rq) {
			nvl_list_del(&e->rq_node);
			e->on_rq = 0;
			nvl_sched_entity_ready(sched, e);
		}
	}
	nvl_list_for_each_entry (j, &sched->pending, node)
		if (j->entity == e && j != job)
			j->entity_banned = 1;
	nvl_mutex_unlock(&sched->lock);
}

/* ---- destroy ------------------------------------------------------------ */

static void destroy_drop_dep_waits(struct nvl_sched *sched)
{
	struct nvl_sched_entity *e;

	nvl_mutex_lock(&sched->lock);
restart:
	nvl_list_for_each_entry (e, &sched->entities, sched_node) {
		struct nvl_fence *f = e->dep_fence;

		if (!e->waiting_dep)
			continue;
		nvl_mutex_unlock(&sched->lock);
		if (nvl_fence_remove_callback(f, &e->dep_cb)) {
			nvl_mutex_lock(&sched->lock);
			e->waiting_dep = 0;
			e->dep_fence = NULL;
		} else {
			nvl_mutex_lock(&sched->lock);
			nvl_sched_wait_locked(sched, !e->waiting_dep);
		}
		goto restart;
	}
	nvl_mutex_unlock(&sched->lock);
}

static void destroy_cancel_ring(struct nvl_sched *sched)
{
	int64_t deadline = nvl_deadline_after(NVL_NSEC_PER_SEC);
	struct nvl_sched_job *job;
	uint32_t gen;

	nvl_mutex_lock(&sched->lock);
	if (sched->ops->cancel_job) {
		gen = visit_gen(sched);
		while ((job = next_pending(sched, gen, false))) {
			nvl_mutex_unlock(&sched->lock);
			sched->ops->cancel_job(job);
			nvl_mutex_lock(&sched->lock);
			nvl_sched_job_unpin(sched, job);
		}
		while (!nvl_list_empty(&sched->pending) &&
		       nvl_time_ns() < deadline) {
			uint32_t seq = nvl_sched_event_prepare(&sched->ev);

			nvl_mutex_unlock(&sched->lock);
			nvl_sched_event_wait(&sched->ev, seq, deadline);
			nvl_mutex_lock(&sched->lock);
		}
	}
	/* Whatever is left: detach and finish with -ECANCELED. */
	nvl_mutex_unlock(&sched->lock);
	nvl_sched_stop(sched);
	nvl_sched_start(sched);
	nvl_mutex_lock(&sched->lock);
	sched->stopped = true;
	nvl_sched_wait_locked(sched, nvl_list_empty(&sched->pending));
	nvl_mutex_unlock(&sched->lock);
}

static void destroy_queued(struct nvl_sched *sched)
{
	struct nvl_sched_entity *e, *etmp;

	nvl_mutex_lock(&sched->lock);
	nvl_list_for_each_entry_safe (e, etmp, &sched->entities, sched_node) {
		/* a killed entity's as the run loop finishes them; an entity
		 * still attached is cancelled with the scheduler (vm.c's bind
		 * queues: -ECANCELED, as Xe closing a VM) */
		int err = e->killed && !e->banned ? -ESRCH : -ECANCELED;

		while (!nvl_list_empty(&e->jobs)) {
			struct nvl_sched_job *job = nvl_list_first_entry(
				&e->jobs, struct nvl_sched_job, node);

			nvl_list_del(&job->node);
			e->num_queued--;
			nvl_mutex_unlock(&sched->lock);
			nvl_sched_job_finish_unrun(job, err);
			nvl_mutex_lock(&sched->lock);
		}
		if (e->on_rq)
			nvl_list_del(&e->rq_node);
		e->on_rq = 0;
		e->detached = 1;
		nvl_list_del(&e->sched_node);
		if (e->shadow)
			nvl_list_add_tail(&e->sched_node, &sched->dead_shadows);
	}
	nvl_mutex_unlock(&sched->lock);
}

void nvl_sched_destroy(struct nvl_sched *sched)
{
	if (!sched)
		return;
	nvl_mutex_lock(&sched->lock);
	sched->dying = true;
	sched->stopped = true;
	nvl_sched_wait_locked(sched, !nvl_sched_token_notify(sched));
	nvl_mutex_unlock(&sched->lock);
	nvl_sched_pool_detach(sched);

	destroy_drop_dep_waits(sched);
	destroy_cancel_ring(sched);
	destroy_queued(sched);
	nvl_sched_free_done(sched);

	nvl_mutex_destroy(&sched->lock);
	nvl_free(sched);
	nvl_sched_pool_put();
}

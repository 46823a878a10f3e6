// SPDX-License-Identifier: MIT
/*
 * DOC: selecting, running and completing jobs
 *
 * One thread at a time holds a scheduler's *run token* and selects jobs: a
 * pool worker, or the pushing thread on the direct-run fast path. With the
 * token it picks an entity, resolves the head job's dependencies (without
 * the scheduler lock: adding a fence callback takes the fence's lock, and
 * fence callbacks take the scheduler lock), pops the job, charges its
 * credits, signals *scheduled* and calls run_job(), all inside a
 * fence-signalling section.
 *
 * Selection (under the scheduler lock):
 *  1. entities being killed or banned first: their jobs need no credits;
 *  2. otherwise the highest priority with a runnable entity, except that a
 *     lower priority whose run queue was passed over
 *     NVL_SCHED_STARVE_LIMIT times in a row is served next (aging: no
 *     priority starves forever);
 *  3. inside a priority, round robin: the entity at the head of the run
 *     queue gives one job and goes to the tail;
 *  4. if the chosen head job's credits do not fit, selection stops: lower
 *     priorities are not tried (no priority inversion through small jobs).
 *
 * An entity whose head job waits for a fence is off the run queue; the
 * fence callback puts it back and queues work (every dependency callback
 * wakes the scheduler). Own-entity fences are skipped (FIFO), finished
 * fences of the same scheduler only wait for *scheduled* (unless they carry
 * an error or NVL_SCHED_FENCE_DONT_PIPELINE_BIT: then for *finished*).
 *
 * Completion (the hardware-fence callback, or inline when run_job returned
 * NULL or an already signalled fence) copies the error into *finished*,
 * signals it, returns the credits and moves the job to the free list that
 * the pool's housekeeper drains. A job can be *pinned* (stop, resubmit,
 * timeout, destroy look at it without the lock): its completion then
 * leaves it on the ring list until unpinned, so it cannot be freed under
 * their feet.
 */
#include <errno.h>

#include "base/alloc.h"
#include "base/log.h"
#include "base/time.h"
#include "sched/sched_internal.h"

/* ---- run token ---------------------------------------------------------- */

NVL_HOT bool nvl_sched_token_take(struct nvl_sched *sched)
{
	/* free means 0: a request is only ever added to a held token */
	if (atomic_load_explicit(&sched->token, memory_order_relaxed))
		return false;
	atomic_store_explicit(&sched->token, NVL_SCHED_TOKEN_HELD,
			      memory_order_relaxed);
	sched->runner = pthread_self();
	return true;
}

void nvl_sched_token_release(struct nvl_sched *sched)
{
	/* under the lock: this look covers every request so far */
	atomic_store(&sched->token, 0);
	if (sched->timeout_pending) {
		sched->timeout_pending = false;
		nvl_sched_queue_work(sched, NVL_SCHED_WORK_TIMEOUT);
	}
	if (!sched->stopped && nvl_sched_has_ready(sched))
		nvl_sched_queue_work(sched, NVL_SCHED_WORK_RUN);
	nvl_sched_event_wake(&sched->ev, true);
}

/*
 * One word: a notifier adds the request to a held token with a
 * compare-and-swap; the releaser clears a token without a request with
 * one. Either the request is in before the release (which then fails and
 * goes under the lock) or the token was free (the notifier queues the work
 * itself; a look too many is harmless: queued work finds nothing to run).
 * A waiter for the token (stop, destroy) asks too, so the holder's last
 * access to the scheduler is its unlock, as before: the scheduler may be
 * freed once the token is free.
 */
bool nvl_sched_token_notify(struct nvl_sched *sched)
{
	uint32_t t = atomic_load(&sched->token);

	while (t & NVL_SCHED_TOKEN_HELD)
		if (atomic_compare_exchange_weak(&sched->token, &t,
						 t | NVL_SCHED_TOKEN_RECHECK))
			return true;
	return false;
}

NVL_HOT void nvl_sched_token_release_unlocked(struct nvl_sched *sched)
{
	uint32_t t = NVL_SCHED_TOKEN_HELD;

	if (atomic_compare_exchange_strong(&sched->token, &t, 0))
		return; /* nothing asked: nobody waits, no work to look for */
	nvl_mutex_lock(&sched->lock);
	nvl_sched_token_release(sched);
	nvl_mutex_unlock(&sched->lock);
}

/* ---- selection ---------------------------------------------------------- */

static struct nvl_sched_entity *select_entity(struct nvl_sched *sched)
{
	struct nvl_sched_entity *e;
	struct nvl_sched_job *job;
	int hi = -1, chosen;

	if (!nvl_list_empty(&sched->kill_list))
		return nvl_list_first_entry(&sched->kill_list,
					    struct nvl_sched_entity, rq_node);
	for (int p = 0; p < NVL_SCHED_PRIO_COUNT; p++) {
		if (!nvl_list_empty(&sched->rq[p])) {
			hi = p;
			break;
		}
	}
	if (hi < 0)
		return NULL;
	chosen = hi;
	for (int p = hi + 1; p < NVL_SCHED_PRIO_COUNT; p++) {
		if (!nvl_list_empty(&sched->rq[p]) &&
		    sched->skipped[p] >= NVL_SCHED_STARVE_LIMIT) {
			chosen = p;
			break;
		}
	}
	e = nvl_list_first_entry(&sched->rq[chosen], struct nvl_sched_entity,
				 rq_node);
	job = nvl_list_first_entry(&e->jobs, struct nvl_sched_job, node);
	if (sched->credit_count + job->credits > sched->credit_limit)
		return NULL;
	return e;
}

bool nvl_sched_has_ready(struct nvl_sched *sched)
{
	return select_entity(sched) != NULL;
}

/* Put @e on its run queue if it has a runnable head. Lock held. */
static void entity_make_ready(struct nvl_sched *sched,
			      struct nvl_sched_entity *e, bool front)
{
	struct nvl_list *q;

	if (e->on_rq || e->waiting_dep || e->detached || e->closing ||
	    nvl_list_empty(&e->jobs))
		return;
	q = (e->killed || e->banned) ? &sched->kill_list
				     : &sched->rq[e->priority];
	if (front)
		nvl_list_add(&e->rq_node, q);
	else
		nvl_list_add_tail(&e->rq_node, q);
	e->on_rq = 1;
}

void nvl_sched_entity_ready(struct nvl_sched *sched, struct nvl_sched_entity *e)
{
	entity_make_ready(sched, e, false);
}

/* ---- dependencies ------------------------------------------------------- */

static void dep_cb(struct nvl_fence *f, struct nvl_fence_cb *cb)
{
	struct nvl_sched_entity *e =
		container_of(cb, struct nvl_sched_entity, dep_cb);
	struct nvl_sched *sched = e->sched;
	struct nvl_signalling_cookie cookie = nvl_fence_begin_signalling();

	(void)f;
	nvl_mutex_lock(&sched->lock);
	e->waiting_dep = 0;
	e->dep_fence = NULL;
	entity_make_ready(sched, e, false);
	if (e->on_rq && !sched->stopped && !nvl_sched_token_notify(sched))
		nvl_sched_queue_work(sched, NVL_SCHED_WORK_RUN);
	nvl_sched_event_wake(&sched->ev, true);
	nvl_mutex_unlock(&sched->lock);
	nvl_fence_end_signalling(cookie);
}

/* Wait for @f with a callback. Return: true when the callback is queued. */
static bool dep_wait(struct nvl_sched *sched, struct nvl_sched_entity *e,
		     struct nvl_fence *f)
{
	nvl_mutex_lock(&sched->lock);
	e->waiting_dep = 1;
	e->dep_fence = f;
	if (e->on_rq) {
		nvl_list_del(&e->rq_node);
		e->on_rq = 0;
	}
	nvl_mutex_unlock(&sched->lock);
	if (!nvl_fence_add_callback(f, &e->dep_cb, dep_cb))
		return true;
	nvl_mutex_lock(&sched->lock);
	e->waiting_dep = 0;
	e->dep_fence = NULL;
	entity_make_ready(sched, e, true);
	nvl_mutex_unlock(&sched->lock);
	return false;
}

/* Return: true when the head @job of @e may go. Token held, lock not. */
static bool deps_ready(struct nvl_sched *sched, struct nvl_sched_entity *e,
		       struct nvl_sched_job *job, bool killed)
{
	/* A killed job completes only after the entity's previous one. */
	if (killed && e->last_scheduled &&
	    !nvl_fence_is_signaled(e->last_scheduled) &&
	    dep_wait(sched, e, e->last_scheduled))
		return false;
	while (job->dep_next < job->num_deps) {
		struct nvl_fence *f = job->deps[job->dep_next];
		struct nvl_sched_fence *sf;

		if (f->context == e->fence_context ||
		    f->context == e->fence_context + 1) {
			job->dep_next++; /* own entity: FIFO order */
			nvl_fence_put(f);
			continue;
		}
		/*
		 * Same scheduler: the ring runs its jobs in order, so being
		 * scheduled is enough, unless the fence failed or asks not to
		 * be pipelined behind (DONT_PIPELINE).
		 */
		sf = nvl_sched_fence_from_finished(f);
		if (sf && sf->sched_id == sched->id && !killed &&
		    !atomic_load(&f->error) &&
		    !(atomic_load(&f->flags) &
		      (1u << NVL_SCHED_FENCE_DONT_PIPELINE_BIT)))
			f = &sf->scheduled;
		if (!nvl_fence_is_signaled(f) && dep_wait(sched, e, f))
			return false;
		nvl_fence_put(job->deps[job->dep_next]);
		job->dep_next++;
	}
	return true;
}

/* ---- completion --------------------------------------------------------- */

/* Job leaves the ring list for the free list. Lock held. */
static void job_to_done(struct nvl_sched *sched, struct nvl_sched_job *job)
{
	nvl_list_del(&job->node);
	if (job->pinned) {
		job->done_deferred = 1;
		return;
	}
	job->state = NVL_SCHED_JOB_DONE;
	nvl_list_add_tail(&job->node, &sched->done);
	nvl_sched_queue_reap(sched);
}

void nvl_sched_job_unpin(struct nvl_sched *sched, struct nvl_sched_job *job)
{
	if (--job->pinned == 0 && job->done_deferred) {
		job->done_deferred = 0;
		job->state = NVL_SCHED_JOB_DONE;
		nvl_list_add_tail(&job->node, &sched->done);
		nvl_sched_queue_reap(sched);
	}
}

static void signal_with(struct nvl_fence *f, int err)
{
	if (err < 0 && !nvl_fence_test_signaled_flag(f))
		nvl_fence_set_error(f, err);
	nvl_fence_signal(f);
}

/*
 * nvl_sched_job_complete() inside a fence-signalling section the caller
 * opened (the hardware fence's callback, a run path): a nested section
 * of our own would check nothing more.
 */
static NVL_HOT void job_complete_in_section(struct nvl_sched_job *job, int err)
{
	struct nvl_sched *sched = job->sched;
	struct nvl_sched_entity *e = job->entity;

	if (job->error)
		err = job->error;
	else if (err > 0)
		err = 0;
	signal_with(&job->s_fence->finished, err);

	nvl_mutex_lock(&sched->lock);
	if (job->has_credits) {
		sched->credit_count -= job->credits;
		job->has_credits = 0;
	}
	e->num_inflight--;
	job_to_done(sched, job);
	if (sched->timeout_ns && !sched->timeout_off) {
		sched->deadline_ns = nvl_list_empty(&sched->pending)
					     ? NVL_TIMEOUT_INFINITE
					     : nvl_sched_deadline(sched);
		nvl_sched_timer_update(sched);
	}
	if (!sched->stopped && nvl_sched_has_ready(sched) &&
	    !nvl_sched_token_notify(sched))
		nvl_sched_queue_work(sched, NVL_SCHED_WORK_RUN);
	nvl_sched_event_wake(&sched->ev, true);
	nvl_mutex_unlock(&sched->lock);
}

void nvl_sched_job_complete(struct nvl_sched_job *job, int err)
{
	struct nvl_signalling_cookie cookie = nvl_fence_begin_signalling();

	job_complete_in_section(job, err);
	nvl_fence_end_signalling(cookie);
}

/* run by nvl_fence_signal() of the hardware fence, in its section */
static NVL_HOT void hw_cb(struct nvl_fence *f, struct nvl_fence_cb *cb)
{
	struct nvl_sched_job *job =
		container_of(cb, struct nvl_sched_job, hw_cb);

	job_complete_in_section(job, nvl_fence_get_status(f));
}

/* every caller runs in a fence-signalling section (the run paths) */
void nvl_sched_job_attach_hw(struct nvl_sched_job *job, struct nvl_fence *hw)
{
	if (!hw) {
		job_complete_in_section(job, 0);
		return;
	}
	job->hw_fence = hw;
	if (nvl_fence_add_callback(hw, &job->hw_cb, hw_cb))
		job_complete_in_section(job, nvl_fence_get_status(hw));
}

NVL_HOT void nvl_sched_job_run(struct nvl_sched *sched,
			       struct nvl_sched_job *job)
{
	struct nvl_fence *hw = sched->ops->run_job(job);
	bool kick = hw && sched->ops->kick;

	/* from the kick on, @job is the completing thread's */
	nvl_sched_job_attach_hw(job, hw);
	if (kick)
		sched->ops->kick(sched);
}

void nvl_sched_job_finish_unrun(struct nvl_sched_job *job, int err)
{
	struct nvl_sched *sched = job->sched;
	struct nvl_signalling_cookie cookie = nvl_fence_begin_signalling();

	if (job->error)
		err = job->error;
	signal_with(&job->s_fence->scheduled, err);
	signal_with(&job->s_fence->finished, err);
	nvl_mutex_lock(&sched->lock);
	job->state = NVL_SCHED_JOB_DONE;
	nvl_list_add_tail(&job->node, &sched->done);
	nvl_sched_queue_reap(sched);
	nvl_mutex_unlock(&sched->lock);
	nvl_fence_end_signalling(cookie);
}

void nvl_sched_free_done(struct nvl_sched *sched)
{
	struct nvl_list list;
	struct nvl_sched_job *job, *tmp;

	struct nvl_list shadows;
	struct nvl_sched_entity *e, *etmp;

	nvl_list_init(&list);
	nvl_list_init(&shadows);
	nvl_mutex_lock(&sched->lock);
	nvl_list_splice_tail_init(&sched->done, &list);
	nvl_list_splice_tail_init(&sched->dead_shadows, &shadows);
	sched->reap_queued = false;
	nvl_mutex_unlock(&sched->lock);
	nvl_list_for_each_entry_safe (job, tmp, &list, node) {
		nvl_list_del(&job->node);
		sched->ops->free_job(job);
	}
	nvl_list_for_each_entry_safe (e, etmp, &shadows, sched_node) {
		nvl_list_del(&e->sched_node);
		nvl_fence_put(e->last_scheduled);
		nvl_free(e);
	}
}

/* ---- the run loop ------------------------------------------------------- */

/*
 * @job starts running: its credits are taken, it joins the pending list,
 * and the timeout is armed if it is the only job in flight. Lock held.
 */
static void job_to_pending(struct nvl_sched *sched, struct nvl_sched_entity *e,
			   struct nvl_sched_job *job)
{
	job->state = NVL_SCHED_JOB_RUNNING;
	job->has_credits = 1;
	sched->credit_count += job->credits;
	e->num_inflight++;
	if (nvl_list_empty(&sched->pending) && sched->timeout_ns &&
	    !sched->timeout_off) {
		sched->deadline_ns = nvl_sched_deadline(sched);
		nvl_sched_timer_update(sched);
	}
	nvl_list_add_tail(&job->node, &sched->pending);
}

/* Pop the head job of @e and put it on the ring. Lock held. */
static void job_pop(struct nvl_sched *sched, struct nvl_sched_entity *e,
		    struct nvl_sched_job *job, bool killed,
		    struct nvl_fence **old_last)
{
	nvl_list_del(&job->node);
	e->num_queued--;
	if (e->on_rq) {
		nvl_list_del(&e->rq_node);
		e->on_rq = 0;
	}
	entity_make_ready(sched, e, false); /* round robin: to the tail */
	if (!killed) {
		for (int p = e->priority + 1; p < NVL_SCHED_PRIO_COUNT; p++)
			if (!nvl_list_empty(&sched->rq[p]))
				sched->skipped[p]++;
		sched->skipped[e->priority] = 0;
	}
	*old_last = e->last_scheduled;
	e->last_scheduled = nvl_fence_get(&job->s_fence->finished);
	if (e->num_queued == 0)
		nvl_sched_event_wake(&sched->ev, true);
	if (e->num_queued == 0 && e->shadow) {
		/* A drained copy made by entity fini: free it later. */
		nvl_list_del(&e->sched_node);
		nvl_list_add_tail(&e->sched_node, &sched->dead_shadows);
		e->detached = 1;
		nvl_sched_queue_reap(sched);
	}
	if (killed)
		return;
	job_to_pending(sched, e, job);
}

/*
 * Select and run up to @budget jobs. Token and lock held on entry and
 * exit; the lock is dropped around dependencies and run_job().
 */
static void run_loop(struct nvl_sched *sched, unsigned budget)
{
	while (budget && !sched->stopped) {
		struct nvl_sched_entity *e = select_entity(sched);
		struct nvl_sched_job *job;
		struct nvl_fence *old_last = NULL;
		struct nvl_signalling_cookie cookie;
		bool killed, ready;
		int kill_err;

		if (!e)
			break;
		job = nvl_list_first_entry(&e->jobs, struct nvl_sched_job,
					   node);
		killed = e->killed || e->banned;
		cookie = nvl_fence_begin_signalling();
		/* Without dependencies left, pop under the same lock hold. */
		if (killed || job->dep_next < job->num_deps) {
			sched->cur_entity = e;
			nvl_mutex_unlock(&sched->lock);
			ready = deps_ready(sched, e, job, killed);
			nvl_mutex_lock(&sched->lock);
			if (!ready || sched->stopped ||
			    killed != (e->killed || e->banned)) {
				sched->cur_entity = NULL;
				nvl_sched_event_wake(&sched->ev, true);
				nvl_fence_end_signalling(cookie);
				continue;
			}
		}
		kill_err = e->banned ? -ECANCELED : -ESRCH;
		job_pop(sched, e, job, killed, &old_last);
		sched->cur_entity = NULL;
		nvl_sched_event_wake(&sched->ev, true);
		nvl_mutex_unlock(&sched->lock);

		nvl_fence_put(old_last);
		if (killed) {
			nvl_sched_job_finish_unrun(job, kill_err);
		} else {
			nvl_fence_signal(&job->s_fence->scheduled);
			nvl_sched_job_run(sched, job);
		}
		nvl_fence_end_signalling(cookie);
		budget--;
		nvl_mutex_lock(&sched->lock);
	}
}

void nvl_sched_run_work(struct nvl_sched *sched, unsigned budget)
{
	nvl_mutex_lock(&sched->lock);
	/* a holder (a direct run) is asked to look again instead; if it let
	 * go in between, take the token now */
	for (;;) {
		if (nvl_sched_token_take(sched)) {
			run_loop(sched, budget);
			nvl_sched_token_release(sched);
			break;
		}
		if (nvl_sched_token_notify(sched))
			break;
	}
	nvl_mutex_unlock(&sched->lock);
}

/* Direct run from push: the token is held; run at most @budget jobs. */
void nvl_sched_run_direct(struct nvl_sched *sched, unsigned budget)
{
	run_loop(sched, budget);
}

/*
 * The direct run of a job that was never queued (its entity idle, nothing
 * else runnable, no dependency, its credits free): what job_pop() and the
 * run loop do for it, without the run queue. Token and lock held on
 * entry; the lock is dropped, the token kept.
 */
NVL_HOT void nvl_sched_run_unqueued(struct nvl_sched *sched,
				    struct nvl_sched_job *job)
{
	struct nvl_sched_entity *e = job->entity;
	struct nvl_signalling_cookie cookie;
	struct nvl_fence *old_last;

	sched->skipped[e->priority] = 0;
	old_last = e->last_scheduled;
	e->last_scheduled = nvl_fence_get(&job->s_fence->finished);
	job_to_pending(sched, e, job);
	nvl_mutex_unlock(&sched->lock);

	cookie = nvl_fence_begin_signalling();
	nvl_fence_put(old_last);
	nvl_fence_signal(&job->s_fence->scheduled);
	nvl_sched_job_run(sched, job);
	nvl_fence_end_signalling(cookie);
}

NVL_HOT bool nvl_sched_can_run_unqueued(struct nvl_sched *sched,
					struct nvl_sched_job *job)
{
	return job->dep_next == job->num_deps &&
	       sched->credit_count + job->credits <= sched->credit_limit;
}

// SPDX-License-Identifier: MIT
/*
 * DOC: the scheduler worker pool
 *
 * Schedulers own no thread. One process-wide pool serves all of them:
 *
 *  - run workers (one per CPU, at least two) take schedulers with queued
 *    work (select and run jobs, handle a timeout) from a FIFO; a scheduler
 *    is on that FIFO at most once and runs on one worker at a time;
 *  - one housekeeper frees finished jobs (free_job() off the signalling
 *    path) and watches the timeouts of schedulers with jobs on the ring.
 *    Once it has freed jobs it comes back every REAP_TICK_NS while jobs
 *    keep finishing, and once more REAP_LINGER_NS after a tick that found
 *    none, so that a completion wakes it only when it sleeps for good
 *    (nothing finished during its last tick and linger): a stream of jobs
 *    costs one housekeeper wake-up per tick, not one per job, and sparse
 *    jobs (one per channel creation, as a fault storm makes) no wake-up
 *    from their completion, which is on the fence-signalling path. Timers are
 *    disarmed lazily: a scheduler going idle stays on the timer list until
 *    the housekeeper's next scan, so that the next job, arming its timer
 *    again with a later deadline, does not wake it either.
 *
 * The pool starts with the first scheduler and stays until process exit
 * (a destructor stops it when no scheduler is left), so creating and
 * destroying schedulers never creates threads.
 *
 * Lock order: scheduler lock -> pool lock. Workers hold a reference
 * (pool_refs) on a scheduler they took off a list; nvl_sched_pool_detach()
 * waits for those before the scheduler is freed.
 */
#include <errno.h>
#include <limits.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/futex.h"
#include "base/log.h"
#include "base/time.h"
#include "sched/sched_internal.h"

/* ---- event ------------------------------------------------------------ */

uint32_t nvl_sched_event_prepare(struct nvl_sched_event *ev)
{
	atomic_fetch_add(&ev->waiters, 1);
	return atomic_load(&ev->seq);
}

void nvl_sched_event_wait(struct nvl_sched_event *ev, uint32_t seq,
			  int64_t deadline_ns)
{
	if (deadline_ns > nvl_time_ns())
		nvl_futex_wait(&ev->seq, seq, deadline_ns);
	atomic_fetch_sub(&ev->waiters, 1);
}

void nvl_sched_event_cancel(struct nvl_sched_event *ev)
{
	atomic_fetch_sub(&ev->waiters, 1);
}

/*
 * Waiters bump @waiters before they read @seq and check their condition,
 * and wakers change the condition before they read @waiters (both seq_cst):
 * a waker that sees no waiter knows any later waiter will see its change.
 */
NVL_HOT void nvl_sched_event_wake(struct nvl_sched_event *ev, bool all)
{
	if (!atomic_load(&ev->waiters))
		return;
	atomic_fetch_add(&ev->seq, 1);
	nvl_futex_wake(&ev->seq, all ? INT_MAX : 1);
}

/* ---- pool ------------------------------------------------------------- */

#define MAX_WORKERS 16
/* How long the housekeeper lets finished jobs pile up before freeing. */
#define REAP_TICK_NS (250 * NVL_NSEC_PER_USEC)
/*
 * After a tick that found nothing, how long it still sleeps without being
 * woken for finished jobs before it sleeps for good: jobs that finish a
 * few ticks apart (a job per channel creation, as a fault storm makes)
 * then wait for it instead of each waking it from its completion.
 */
#define REAP_LINGER_NS (4 * NVL_NSEC_PER_MSEC)

static NVL_LOCK_CLASS(pool_lock_class, "sched_pool", 0);

static struct {
	struct nvl_mutex lock;
	struct nvl_list ready, reap, timers;
	struct nvl_sched_event work_ev, hk_ev;
	pthread_t workers[MAX_WORKERS];
	pthread_t hk;
	bool hk_started;
	unsigned nworkers;
	unsigned users;
	int64_t hk_target;
	/* no deadline expires before this (written under lock, read by
	 * nvl_sched_timer_update()'s fast path) */
	_Atomic int64_t timer_next;
	bool hk_idle;
	bool hk_tick; /* asleep for at most REAP_TICK_NS or REAP_LINGER_NS:
		       * no wake to reap */
	bool started;
	bool stopping;
} pool;

static pthread_mutex_t pool_start_lock = PTHREAD_MUTEX_INITIALIZER;

static void sched_unref_locked(struct nvl_sched *sched)
{
	if (--sched->pool_refs == 0 && sched->pool_dead)
		nvl_sched_event_wake(&sched->ev, true);
}

static void *worker_main(void *arg)
{
	(void)arg;
	nvl_mutex_lock(&pool.lock);
	while (!pool.stopping) {
		struct nvl_sched *sched;
		uint32_t work, seq;

		if (nvl_list_empty(&pool.ready)) {
			seq = nvl_sched_event_prepare(&pool.work_ev);
			nvl_mutex_unlock(&pool.lock);
			nvl_sched_event_wait(&pool.work_ev, seq,
					     NVL_TIMEOUT_INFINITE);
			nvl_mutex_lock(&pool.lock);
			continue;
		}
		sched = nvl_list_first_entry(&pool.ready, struct nvl_sched,
					     work_node);
		nvl_list_del(&sched->work_node);
		sched->on_work = false;
		work = sched->work;
		sched->work = 0;
		sched->pool_refs++;
		nvl_mutex_unlock(&pool.lock);

		if (work & NVL_SCHED_WORK_TIMEOUT)
			nvl_sched_handle_timeout(sched);
		if (work & NVL_SCHED_WORK_RUN)
			nvl_sched_run_work(sched, NVL_SCHED_RUN_BUDGET);

		nvl_mutex_lock(&pool.lock);
		sched_unref_locked(sched);
	}
	nvl_mutex_unlock(&pool.lock);
	return NULL;
}

static void queue_work_locked(struct nvl_sched *sched, uint32_t work)
{
	if (sched->pool_dead)
		return;
	sched->work |= work;
	if (!sched->on_work) {
		nvl_list_add_tail(&sched->work_node, &pool.ready);
		sched->on_work = true;
		nvl_sched_event_wake(&pool.work_ev, false);
	}
}

/*
 * The deadline of a listed timer; a disarmed one (INFINITE) is marked off
 * the list (the caller unlinks it) unless nvl_sched_timer_update()'s fast
 * path armed it meanwhile: it stores the deadline and then reads on_timer,
 * this clears on_timer and then reads the deadline (all sequentially
 * consistent), so either this sees the deadline and keeps the timer, or
 * the fast path sees on_timer clear and takes the pool lock to re-list it.
 * Pool lock held.
 */
static int64_t timer_scan_one(struct nvl_sched *sched)
{
	int64_t d = atomic_load(&sched->timer_deadline_ns);

	if (d != NVL_TIMEOUT_INFINITE)
		return d;
	atomic_store(&sched->on_timer, false);
	d = atomic_load(&sched->timer_deadline_ns);
	if (d != NVL_TIMEOUT_INFINITE)
		atomic_store(&sched->on_timer, true);
	return d;
}

static void *housekeeper_main(void *arg)
{
	bool reaped = false, ticked = false;

	(void)arg;
	nvl_mutex_lock(&pool.lock);
	while (!pool.stopping) {
		struct nvl_sched *sched, *tmp;
		int64_t now = nvl_time_ns(), target = NVL_TIMEOUT_INFINITE;
		uint32_t seq;

		/*
		 * Scan the timers only when the earliest deadline known may
		 * have passed (deadlines only move later on progress). A
		 * timer disarmed since (INFINITE) leaves the list here.
		 */
		if (now >= pool.timer_next) {
			nvl_list_for_each_entry_safe (sched, tmp, &pool.timers,
						      timer_node) {
				int64_t d = timer_scan_one(sched);

				if (d == NVL_TIMEOUT_INFINITE) {
					nvl_list_del(&sched->timer_node);
				} else if (d <= now) {
					nvl_list_del(&sched->timer_node);
					sched->on_timer = false;
					queue_work_locked(
						sched, NVL_SCHED_WORK_TIMEOUT);
				} else if (d < target) {
					target = d;
				}
			}
			pool.timer_next = target;
		}
		target = pool.timer_next;
		if (!nvl_list_empty(&pool.reap)) {
			sched = nvl_list_first_entry(
				&pool.reap, struct nvl_sched, reap_node);
			nvl_list_del(&sched->reap_node);
			sched->on_reap = false;
			sched->pool_refs++;
			nvl_mutex_unlock(&pool.lock);
			nvl_sched_free_done(sched);
			nvl_mutex_lock(&pool.lock);
			sched_unref_locked(sched);
			reaped = true;
			continue;
		}
		/*
		 * Jobs finished since the last sleep: more are likely, come
		 * back in a tick for them (completions meanwhile wake no
		 * one). Nothing finished during a tick: linger a while
		 * longer, still unwoken by completions (the finished jobs
		 * of sparse work wait for its end); nothing during that
		 * either: sleep until woken.
		 */
		if (reaped || ticked) {
			int64_t d = reaped ? REAP_TICK_NS : REAP_LINGER_NS;

			if (now + d < target)
				target = now + d;
		}
		pool.hk_tick = reaped || ticked;
		ticked = reaped;
		reaped = false;
		pool.hk_idle = true;
		pool.hk_target = target;
		seq = nvl_sched_event_prepare(&pool.hk_ev);
		nvl_mutex_unlock(&pool.lock);
		nvl_sched_event_wait(&pool.hk_ev, seq, target);
		nvl_mutex_lock(&pool.lock);
		pool.hk_idle = false;
		pool.hk_tick = false;
	}
	nvl_mutex_unlock(&pool.lock);
	return NULL;
}

static void pool_stop_locked(void)
{
	nvl_mutex_lock(&pool.lock);
	pool.stopping = true;
	nvl_sched_event_wake(&pool.work_ev, true);
	nvl_sched_event_wake(&pool.hk_ev, true);
	nvl_mutex_unlock(&pool.lock);
	for (unsigned i = 0; i < pool.nworkers; i++)
		pthread_join(pool.workers[i], NULL);
	if (pool.hk_started)
		pthread_join(pool.hk, NULL);
	pool.hk_started = false;
	pool.nworkers = 0;
	pool.started = false;
	pool.stopping = false;
	nvl_mutex_destroy(&pool.lock);
}

static int pool_start_locked(void)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned n = ncpu < 2 ? 2 : (ncpu > MAX_WORKERS ? MAX_WORKERS : ncpu);
	int ret;

	ret = nvl_might_alloc((n + 1) * 64 * 1024);
	if (ret)
		return ret;
	nvl_mutex_init(&pool.lock, &pool_lock_class);
	nvl_list_init(&pool.ready);
	nvl_list_init(&pool.reap);
	nvl_list_init(&pool.timers);
	pool.timer_next = NVL_TIMEOUT_INFINITE;
	pool.started = true;
	if (pthread_create(&pool.hk, NULL, housekeeper_main, NULL))
		goto fail;
	pool.hk_started = true;
	for (pool.nworkers = 0; pool.nworkers < n; pool.nworkers++) {
		if (pthread_create(&pool.workers[pool.nworkers], NULL,
				   worker_main, NULL))
			goto fail;
	}
	return 0;
fail:
	pool_stop_locked();
	return -EAGAIN;
}

int nvl_sched_pool_get(void)
{
	int ret = 0;

	pthread_mutex_lock(&pool_start_lock);
	if (!pool.started)
		ret = pool_start_locked();
	if (!ret)
		pool.users++;
	pthread_mutex_unlock(&pool_start_lock);
	return ret;
}

void nvl_sched_pool_put(void)
{
	pthread_mutex_lock(&pool_start_lock);
	pool.users--;
	pthread_mutex_unlock(&pool_start_lock);
}

__attribute__((destructor)) static void pool_fini(void)
{
	pthread_mutex_lock(&pool_start_lock);
	if (pool.started && pool.users == 0)
		pool_stop_locked();
	pthread_mutex_unlock(&pool_start_lock);
}

void nvl_sched_queue_work(struct nvl_sched *sched, uint32_t work)
{
	nvl_mutex_lock(&pool.lock);
	queue_work_locked(sched, work);
	nvl_mutex_unlock(&pool.lock);
}

NVL_HOT void nvl_sched_queue_reap(struct nvl_sched *sched)
{
	if (sched->reap_queued)
		return;
	sched->reap_queued = true;
	nvl_mutex_lock(&pool.lock);
	if (!sched->on_reap && !sched->pool_dead) {
		nvl_list_add_tail(&sched->reap_node, &pool.reap);
		sched->on_reap = true;
		if (pool.hk_idle && !pool.hk_tick) {
			pool.hk_idle = false;
			nvl_sched_event_wake(&pool.hk_ev, false);
		}
	}
	nvl_mutex_unlock(&pool.lock);
}

/* two ticks of CLOCK_MONOTONIC_COARSE (ns), 0 until read */
static _Atomic int64_t coarse_slack_ns;

NVL_HOT int64_t nvl_sched_deadline(const struct nvl_sched *sched)
{
	int64_t slack =
		atomic_load_explicit(&coarse_slack_ns, memory_order_relaxed);
	struct timespec ts;

	if (unlikely(!slack)) {
		if (clock_getres(CLOCK_MONOTONIC_COARSE, &ts))
			return nvl_time_ns() + sched->timeout_ns;
		slack = 2 * ((int64_t)ts.tv_sec * NVL_NSEC_PER_SEC +
			     ts.tv_nsec) +
			1;
		atomic_store_explicit(&coarse_slack_ns, slack,
				      memory_order_relaxed);
	}
	if (clock_gettime(CLOCK_MONOTONIC_COARSE, &ts))
		return nvl_time_ns() + sched->timeout_ns;
	return (int64_t)ts.tv_sec * NVL_NSEC_PER_SEC + ts.tv_nsec + slack +
	       sched->timeout_ns;
}

static void timer_update_locked(struct nvl_sched *sched);

NVL_HOT void nvl_sched_timer_update(struct nvl_sched *sched)
{
	int64_t d = sched->deadline_ns;
	int64_t old = atomic_load(&sched->timer_deadline_ns);

	/*
	 * Fast path, without the pool lock (each exec on an idle channel
	 * arms the timer with its job and disarms it with its completion):
	 * a disarm (lazy: the housekeeper's next scan drops the timer), or
	 * a deadline no earlier than the one the listed timer had and than
	 * the housekeeper's next scan (it wakes by then anyway and sees the
	 * new deadline). If a scan dropped the timer meanwhile, on_timer
	 * reads clear after the store and the slow path re-lists it (see
	 * timer_scan_one()). Callers hold sched->lock: one writer at a time.
	 */
	if (d == NVL_TIMEOUT_INFINITE ||
	    (atomic_load(&sched->on_timer) &&
	     (old == NVL_TIMEOUT_INFINITE || d >= old) &&
	     d >= atomic_load(&pool.timer_next))) {
		atomic_store(&sched->timer_deadline_ns, d);
		if (d == NVL_TIMEOUT_INFINITE || atomic_load(&sched->on_timer))
			return;
	}
	timer_update_locked(sched);
}

/* nvl_sched_timer_update()'s slow path, under the pool lock (out of line:
 * the fast path runs twice per exec and then needs no stack frame) */
static __attribute__((noinline)) void
timer_update_locked(struct nvl_sched *sched)
{
	nvl_mutex_lock(&pool.lock);
	if (sched->pool_dead) {
		nvl_mutex_unlock(&pool.lock);
		return;
	}
	/*
	 * Off: left on the list for the housekeeper's next scan (lazy), so
	 * that re-arming it for the next job, later than the housekeeper's
	 * target, wakes no one.
	 */
	sched->timer_deadline_ns = sched->deadline_ns;
	if (sched->deadline_ns != NVL_TIMEOUT_INFINITE) {
		if (sched->deadline_ns < pool.timer_next)
			pool.timer_next = sched->deadline_ns;
		if (!sched->on_timer) {
			nvl_list_add_tail(&sched->timer_node, &pool.timers);
			sched->on_timer = true;
		}
		if (pool.hk_idle && sched->deadline_ns < pool.hk_target) {
			pool.hk_idle = false;
			nvl_sched_event_wake(&pool.hk_ev, false);
		}
	}
	nvl_mutex_unlock(&pool.lock);
}

void nvl_sched_pool_detach(struct nvl_sched *sched)
{
	nvl_mutex_lock(&pool.lock);
	sched->pool_dead = true;
	if (sched->on_work)
		nvl_list_del(&sched->work_node);
	if (sched->on_reap)
		nvl_list_del(&sched->reap_node);
	if (sched->on_timer)
		nvl_list_del(&sched->timer_node);
	sched->on_work = sched->on_reap = false;
	atomic_store(&sched->on_timer, false);
	while (sched->pool_refs) {
		uint32_t seq = nvl_sched_event_prepare(&sched->ev);

		nvl_mutex_unlock(&pool.lock);
		nvl_sched_event_wait(&sched->ev, seq, NVL_TIMEOUT_INFINITE);
		nvl_mutex_lock(&pool.lock);
	}
	nvl_mutex_unlock(&pool.lock);
}

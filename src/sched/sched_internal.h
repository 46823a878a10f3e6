/* SPDX-License-Identifier: MIT */
/*
 * Scheduler internals shared by the files of src/sched/: the scheduler
 * object, the scheduler fences, the worker pool and a futex-based event.
 */
#ifndef NVL_SCHED_INTERNAL_H
#define NVL_SCHED_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "base/list.h"
#include "sched/sched.h"
#include "sync/checker.h"

/* Job states (struct nvl_sched_job.state). */
enum {
	NVL_SCHED_JOB_NONE = 0, /* zeroed or cleaned up */
	NVL_SCHED_JOB_INIT, /* initialised, taking dependencies */
	NVL_SCHED_JOB_ARMED, /* fences have their seqno */
	NVL_SCHED_JOB_QUEUED, /* on its entity's queue */
	NVL_SCHED_JOB_RUNNING, /* on the ring (pending list) */
	NVL_SCHED_JOB_DONE, /* finished, on the free list */
	NVL_SCHED_JOB_FAILED, /* push failed; the caller's */
};

/* Work bits for the pool (struct nvl_sched.work). */
enum {
	NVL_SCHED_WORK_RUN = 1u << 0,
	NVL_SCHED_WORK_TIMEOUT = 1u << 1,
};

/*
 * A queued lower-priority run queue is passed over at most this many times
 * in a row by higher priorities; the next pick serves it.
 */
#define NVL_SCHED_STARVE_LIMIT 16

/* Jobs a worker runs for one scheduler before serving the next one. */
#define NVL_SCHED_RUN_BUDGET 64

/**
 * struct nvl_sched_event - wait for a condition that is changed under a
 * lock: read the sequence, check the condition, sleep on the futex if the
 * sequence did not move. Wakers bump the sequence and only enter the kernel
 * when someone waits.
 */
struct nvl_sched_event {
	atomic_uint seq;
	atomic_uint waiters;
};

/** nvl_sched_event_prepare() - announce a waiter. Return: the sequence. */
uint32_t nvl_sched_event_prepare(struct nvl_sched_event *ev);
/**
 * nvl_sched_event_wait() - sleep until woken or @deadline_ns (absolute),
 * unless the sequence moved since @seq; ends the prepare.
 */
void nvl_sched_event_wait(struct nvl_sched_event *ev, uint32_t seq,
			  int64_t deadline_ns);
/** nvl_sched_event_cancel() - end a prepare without sleeping. */
void nvl_sched_event_cancel(struct nvl_sched_event *ev);
/** nvl_sched_event_wake() - wake one or @all waiters, if any. */
void nvl_sched_event_wake(struct nvl_sched_event *ev, bool all);

/**
 * struct nvl_sched_fence - a job's two fences in one allocation; the
 * finished fence holds the reference to the scheduled one.
 */
struct nvl_sched_fence {
	struct nvl_fence scheduled;
	struct nvl_fence finished;
	uint64_t sched_id;
	bool inited;
};

/** nvl_sched_fence_alloc() - allocate a pair. Return: it, or NULL. */
struct nvl_sched_fence *nvl_sched_fence_alloc(uint64_t sched_id);
/** nvl_sched_fence_init() - arm the pair on @context / @context + 1. */
void nvl_sched_fence_init(struct nvl_sched_fence *sf, uint64_t context,
			  uint64_t seqno);
/** nvl_sched_fence_free() - free a pair that was never armed. */
void nvl_sched_fence_free(struct nvl_sched_fence *sf);
/** nvl_sched_fence_from_finished() - the pair @f is the finished fence of,
 * or NULL. */
struct nvl_sched_fence *nvl_sched_fence_from_finished(struct nvl_fence *f);

struct nvl_sched {
	struct nvl_mutex lock;
	const struct nvl_sched_backend_ops *ops;
	void *priv;
	uint64_t id;
	uint32_t credit_limit;
	uint32_t credit_count;
	uint32_t flags;
	int64_t timeout_ns; /* 0: none */
	int64_t deadline_ns; /* INFINITE when the timer is off */

	/* Run queues of ready entities, and entities being killed. */
	struct nvl_list rq[NVL_SCHED_PRIO_COUNT];
	uint32_t skipped[NVL_SCHED_PRIO_COUNT];
	struct nvl_list kill_list;
	struct nvl_list entities;

	struct nvl_list dead_shadows; /* drained fini copies, to free */
	struct nvl_list pending; /* jobs on the ring, oldest first */
	struct nvl_list done; /* finished jobs waiting for free */

	/*
	 * The run token: one thread selects and runs jobs at a time. Taken
	 * under the lock; a direct run gives it back without the lock
	 * (nvl_sched_token_release_unlocked()) unless someone asked, under
	 * the lock, for a release under the lock (TOKEN_RECHECK in @token:
	 * nvl_sched_token_notify()).
	 */
	pthread_t runner;
	bool stopped;
	bool dying;
	bool timeout_off; /* ENODEV from timedout_job */
	/* the timeout expired while another thread held the run token: its
	 * release (under the lock) queues the timeout work again */
	bool timeout_pending;
	struct nvl_sched_entity *cur_entity;
	/* apart from the plain flags above: the compiler may merge their
	 * loads into one wider load, which must not cover this word */
	_Atomic uint32_t token; /* NVL_SCHED_TOKEN_* */

	/* Waiters for the token, flush, fini, destroy. */
	struct nvl_sched_event ev;

	/* Pool bookkeeping, under the pool lock. */
	struct nvl_list work_node; /* on pool.ready */
	struct nvl_list reap_node; /* on pool.reap */
	struct nvl_list timer_node; /* on pool.timers */
	uint32_t work;
	uint32_t pool_refs;
	/* copy of deadline_ns and "on pool.timers": written under the pool
	 * lock, or (timer_deadline_ns) with only sched->lock on the fast
	 * path of nvl_sched_timer_update() (pool.c) */
	_Atomic int64_t timer_deadline_ns;
	atomic_bool on_timer;
	bool reap_queued; /* under sched->lock */
	bool on_work, on_reap, pool_dead;

	char name[32];
};

/* ---- pool.c ---- */

/** nvl_sched_pool_get() - start the pool if needed. Return: 0, -EAGAIN. */
int nvl_sched_pool_get(void);
/** nvl_sched_pool_put() - a scheduler is gone (the pool stays). */
void nvl_sched_pool_put(void);
/**
 * nvl_sched_queue_work() - have a pool worker run @work (NVL_SCHED_WORK_*)
 * for @sched soon. @sched: locked scheduler. @work: bits.
 */
void nvl_sched_queue_work(struct nvl_sched *sched, uint32_t work);
/** nvl_sched_queue_reap() - have the housekeeper free @sched's done jobs. */
void nvl_sched_queue_reap(struct nvl_sched *sched);
/** nvl_sched_timer_update() - publish @sched->deadline_ns (locked). */
void nvl_sched_timer_update(struct nvl_sched *sched);
/**
 * nvl_sched_deadline() - the timeout deadline of a ring that makes
 * progress now: CLOCK_MONOTONIC_COARSE (read from the vDSO without the
 * TSC) plus two of its ticks plus @sched->timeout_ns. Never earlier than
 * CLOCK_MONOTONIC + timeout; at most about two ticks later (the
 * resolution of the kernel's jiffies-based TDR timer). One read per job
 * entering an empty ring and per completion.
 * @sched: the scheduler (timeout_ns > 0)
 * Return: absolute CLOCK_MONOTONIC ns.
 */
int64_t nvl_sched_deadline(const struct nvl_sched *sched);
/**
 * nvl_sched_pool_detach() - remove @sched from every pool list and wait
 * until no worker uses it; later queueing is ignored.
 */
void nvl_sched_pool_detach(struct nvl_sched *sched);

/* ---- run.c (all "locked" means sched->lock held) ---- */

/** nvl_sched_run_work() - worker entry: select and run up to @budget. */
void nvl_sched_run_work(struct nvl_sched *sched, unsigned budget);
/** nvl_sched_run_direct() - run_loop for a locked token holder. */
void nvl_sched_run_direct(struct nvl_sched *sched, unsigned budget);
/**
 * nvl_sched_can_run_unqueued() - (locked) may @job, pushed to an idle
 * entity with nothing else runnable, run without being queued: no
 * dependency, credits free?
 */
bool nvl_sched_can_run_unqueued(struct nvl_sched *sched,
				struct nvl_sched_job *job);
/**
 * nvl_sched_run_unqueued() - run @job directly (token and lock held; the
 * lock is dropped, the token kept for nvl_sched_token_release_unlocked()).
 */
void nvl_sched_run_unqueued(struct nvl_sched *sched, struct nvl_sched_job *job);
/** nvl_sched_token_take() - take the run token (locked). Return: taken. */
bool nvl_sched_token_take(struct nvl_sched *sched);
/** nvl_sched_token_release() - give it back, requeue ready work (locked). */
void nvl_sched_token_release(struct nvl_sched *sched);
/* the run token word: held, and held with a release under the lock asked */
#define NVL_SCHED_TOKEN_HELD 1u
#define NVL_SCHED_TOKEN_RECHECK 2u

/**
 * nvl_sched_token_release_unlocked() - give the token back without the
 * lock (a direct run): one compare-and-swap, the scheduler's last access,
 * unless nvl_sched_token_notify() asked for a release under the lock
 * (then nvl_sched_token_release() under it).
 */
void nvl_sched_token_release_unlocked(struct nvl_sched *sched);
/**
 * nvl_sched_token_notify() - (locked) something became runnable, or the
 * caller waits for the token: if a thread holds it, make it give it back
 * under the lock, looking for work then.
 * Return: true when the token is held (the holder will look); false when
 * it is free (the caller queues work itself).
 */
bool nvl_sched_token_notify(struct nvl_sched *sched);

/** nvl_sched_token_held() - (locked) is the run token taken? */
static inline bool nvl_sched_token_held(struct nvl_sched *sched)
{
	return atomic_load(&sched->token) & NVL_SCHED_TOKEN_HELD;
}
/** nvl_sched_has_ready() - could a job run now (locked)? */
bool nvl_sched_has_ready(struct nvl_sched *sched);
/**
 * nvl_sched_job_complete() - a job on the ring finished: signal finished
 * with @err (or the job's error), return credits, queue it for freeing.
 */
void nvl_sched_job_complete(struct nvl_sched_job *job, int err);
/** nvl_sched_job_attach_hw() - take run_job()'s result @hw (ref). */
void nvl_sched_job_attach_hw(struct nvl_sched_job *job, struct nvl_fence *hw);
/**
 * nvl_sched_job_run() - run_job(), the completion attached to its fence,
 * then kick(): @job may be freed when this returns. Lock not held.
 */
void nvl_sched_job_run(struct nvl_sched *sched, struct nvl_sched_job *job);
/** nvl_sched_job_finish_unrun() - finish a job that never ran with @err. */
void nvl_sched_job_finish_unrun(struct nvl_sched_job *job, int err);
/** nvl_sched_free_done() - free_job() every finished job of @sched. */
void nvl_sched_free_done(struct nvl_sched *sched);
/** nvl_sched_entity_ready() - queue @e on its run queue if runnable. */
void nvl_sched_entity_ready(struct nvl_sched *sched,
			    struct nvl_sched_entity *e);
/** nvl_sched_job_unpin() - drop a pin; a job done meanwhile is queued. */
void nvl_sched_job_unpin(struct nvl_sched *sched, struct nvl_sched_job *job);

/*
 * Wait on sched->ev until @cond (evaluated under the lock) holds. The
 * waiter is announced before @cond is read: the run token is given back
 * without the lock (a direct run), so a release between the check and
 * the announcement would otherwise wake nobody.
 */
#define nvl_sched_wait_locked(sched, cond)                                     \
	do {                                                                   \
		for (;;) {                                                     \
			uint32_t seq_ = nvl_sched_event_prepare(&(sched)->ev); \
			if (cond) {                                            \
				nvl_sched_event_cancel(&(sched)->ev);          \
				break;                                         \
			}                                                      \
			nvl_mutex_unlock(&(sched)->lock);                      \
			nvl_sched_event_wait(&(sched)->ev, seq_,               \
					     NVL_TIMEOUT_INFINITE);            \
			nvl_mutex_lock(&(sched)->lock);                        \
		}                                                              \
	} while (0)

/** nvl_sched_handle_timeout() - worker entry for an expired timer. */
void nvl_sched_handle_timeout(struct nvl_sched *sched);

#endif /* NVL_SCHED_INTERNAL_H */

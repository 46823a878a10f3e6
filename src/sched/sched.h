/* SPDX-License-Identifier: MIT */
/*
 * The common GPU scheduler.
 *
 * A scheduler (struct nvl_sched) stands for one hardware ring: it owns a
 * credit budget (how much work may be in flight on the ring) and four run
 * queues, one per priority. Entities (struct nvl_sched_entity) are a
 * client's submission queues: FIFO inside, fair between entities of one
 * priority. Jobs (struct nvl_sched_job, embedded in a driver's job) go
 * through init -> add dependencies -> arm -> push; a job runs when its
 * dependencies signalled and its credits fit, then the backend's run_job()
 * returns the hardware fence, and the job's *finished* fence signals with
 * that fence's error.
 *
 * Schedulers have no thread of their own: a small shared pool of workers
 * serves every scheduler with ready work, so one scheduler per channel (the
 * firmware-scheduled shape) costs a few hundred bytes. See docs/sched.md
 * for the policies (fairness, anti-starvation, timeouts, teardown).
 *
 * Locking rules for backends: run_job() may be called from a pool worker or
 * directly from nvl_sched_entity_push_job() in the pushing thread (the
 * "direct run" fast path, NVL_SCHED_NO_DIRECT_RUN turns it off; taken
 * only where nvl_checker_signalling_safe() proves the pusher's locks may
 * be held across a signalling section); it runs
 * inside a fence-signalling critical section and must not allocate, take a
 * reservation lock or wait unboundedly. free_job() runs on a pool worker (or
 * in nvl_sched_destroy()), outside any signalling section.
 */
#ifndef NVL_SCHED_SCHED_H
#define NVL_SCHED_SCHED_H

#include <stdatomic.h>

#include "base/compiler.h"
#include "base/list.h"
#include "sync/fence.h"
#include "sync/resv.h"

struct nvl_sched;
struct nvl_sched_job;
struct nvl_sched_fence;

/** enum nvl_sched_priority - run-queue priorities, highest first. */
enum nvl_sched_priority {
	/** @NVL_SCHED_PRIO_KERNEL: memory management, page-table updates. */
	NVL_SCHED_PRIO_KERNEL = 0,
	/** @NVL_SCHED_PRIO_HIGH: latency-sensitive clients (compositors). */
	NVL_SCHED_PRIO_HIGH,
	/** @NVL_SCHED_PRIO_NORMAL: the default. */
	NVL_SCHED_PRIO_NORMAL,
	/** @NVL_SCHED_PRIO_LOW: background work. */
	NVL_SCHED_PRIO_LOW,
	NVL_SCHED_PRIO_COUNT
};

/** enum nvl_sched_stat - what timedout_job() did. */
enum nvl_sched_stat {
	/** @NVL_SCHED_STAT_RESET: the job hung; the backend recovered. */
	NVL_SCHED_STAT_RESET = 0,
	/** @NVL_SCHED_STAT_NO_HANG: false alarm; the job keeps running. */
	NVL_SCHED_STAT_NO_HANG,
	/** @NVL_SCHED_STAT_ENODEV: the device is gone; no more timeouts. */
	NVL_SCHED_STAT_ENODEV,
};

/**
 * struct nvl_sched_backend_ops - what a scheduler drives.
 */
struct nvl_sched_backend_ops {
	/**
	 * @run_job: put @job on the hardware. Return the hardware fence with
	 * a reference for the scheduler, or NULL when the job is already done
	 * (after nvl_sched_job_set_error() if it failed). Runs in a
	 * fence-signalling section: no allocation. Called again for the same
	 * job by nvl_sched_resubmit_jobs() after a reset.
	 */
	struct nvl_fence *(*run_job)(struct nvl_sched_job *job);
	/**
	 * @kick: optional; make the job run_job() just wrote visible to the
	 * hardware (ring the doorbell). With it, run_job() only writes the
	 * job to the ring and the scheduler calls kick() once the job's
	 * completion is attached to the fence run_job() returned: a
	 * completion from then on runs entirely on the completing thread
	 * and never meets the submitter on the fence's lock or the
	 * scheduler's. From kick() on the job may complete and be freed, so
	 * kick() gets the scheduler, not the job, and the scheduler does not
	 * look at the job again. Not called when run_job() returned NULL.
	 * In the same fence-signalling section as run_job().
	 */
	void (*kick)(struct nvl_sched *sched);
	/**
	 * @timedout_job: the ring made no progress for the scheduler's
	 * timeout and @job is the oldest job on it. Typical recovery:
	 * nvl_sched_stop(), nvl_sched_job_set_guilty() on the hung job,
	 * reset the hardware, nvl_sched_resubmit_jobs(), nvl_sched_start(),
	 * return NVL_SCHED_STAT_RESET. Optional (NULL: no timeouts).
	 */
	enum nvl_sched_stat (*timedout_job)(struct nvl_sched_job *job);
	/**
	 * @free_job: release a finished job; call nvl_sched_job_cleanup()
	 * and free the driver's job. Never in a signalling section.
	 */
	void (*free_job)(struct nvl_sched_job *job);
	/**
	 * @cancel_job: optional; nvl_sched_destroy() calls it for each job
	 * still on the hardware: signal its hardware fence (e.g. with
	 * -ECANCELED) soon, without freeing anything. Without it, destroy
	 * detaches from the hardware fences and finishes those jobs with
	 * -ECANCELED itself.
	 */
	void (*cancel_job)(struct nvl_sched_job *job);
};

/** Scheduler flags (struct nvl_sched_args.flags). */
enum nvl_sched_flags {
	/**
	 * @NVL_SCHED_NO_DIRECT_RUN: never call run_job() from the pushing
	 * thread; every job goes through a pool worker.
	 */
	NVL_SCHED_NO_DIRECT_RUN = 1u << 0,
};

/**
 * struct nvl_sched_args - how to create a scheduler.
 * @ops: backend callbacks (run_job and free_job are mandatory)
 * @credit_limit: credits that may be in flight on the ring (>= 1)
 * @timeout_ns: time without progress on the ring before timedout_job()
 *              is called; NVL_TIMEOUT_INFINITE (or 0) for none
 * @name: for logs; copied (truncated to 31 characters)
 * @priv: backend data, nvl_sched_priv()
 * @flags: enum nvl_sched_flags
 */
struct nvl_sched_args {
	const struct nvl_sched_backend_ops *ops;
	uint32_t credit_limit;
	int64_t timeout_ns;
	const char *name;
	void *priv;
	uint32_t flags;
};

/**
 * struct nvl_sched_entity - a submission queue; embed it, and treat every
 * field as private to the scheduler.
 */
struct nvl_sched_entity {
	struct nvl_sched *sched;
	enum nvl_sched_priority priority;
	/* Queued jobs, FIFO; protected by the scheduler lock. */
	struct nvl_list jobs;
	/* On a run queue (or the kill list) while it has a runnable head. */
	struct nvl_list rq_node;
	/* On the scheduler's list of entities. */
	struct nvl_list sched_node;
	/* scheduled fences use fence_context, finished fence_context + 1. */
	uint64_t fence_context;
	atomic_uint_fast64_t seqno;
	uint64_t last_pushed_seqno;
	uint32_t num_queued;
	/* Jobs of this entity on the ring (run, not yet finished). */
	uint32_t num_inflight;
	/* The head job's dependency being waited on, and its callback. */
	struct nvl_fence *dep_fence;
	struct nvl_fence_cb dep_cb;
	/* finished fence of the last job that left the queue (ref). */
	struct nvl_fence *last_scheduled;
	uint8_t on_rq, waiting_dep, killed, banned, detached, initialized;
	uint8_t closing, shadow;
	int error;
};

/**
 * struct nvl_sched_job - a job; embed it in the driver's job and get back
 * with container_of(). Every field is private to the scheduler.
 */
struct nvl_sched_job {
	struct nvl_list node;
	struct nvl_sched *sched;
	struct nvl_sched_entity *entity;
	struct nvl_sched_fence *s_fence;
	struct nvl_fence *hw_fence;
	struct nvl_fence_cb hw_cb;
	struct nvl_fence **deps;
	uint32_t num_deps, max_deps, dep_next;
	uint32_t credits;
	void *owner;
	int error;
	uint32_t visit;
	uint16_t pinned;
	uint8_t state, guilty, entity_banned, detached, has_credits;
	uint8_t done_deferred;
};

/**
 * nvl_sched_create() - create a scheduler for one ring.
 * @args: ops, credit limit, timeout, name, private data
 * @out: the new scheduler
 *
 * Cheap: no thread is created per scheduler (the shared worker pool is
 * started with the first scheduler of the process).
 *
 * Return: 0; -EINVAL for missing run_job/free_job, a zero credit limit or a
 * negative timeout; -ENOMEM.
 */
int nvl_sched_create(const struct nvl_sched_args *args,
		     struct nvl_sched **out) NVL_MUST_CHECK;

/**
 * nvl_sched_destroy() - tear a scheduler down, jobs in flight included.
 * @sched: the scheduler (NULL is a no-op)
 *
 * Stops running jobs; jobs still on the hardware are cancelled (cancel_job,
 * or detached and finished with -ECANCELED); then jobs still queued (never
 * run: waiting for a dependency or for ring space, or handed over by
 * nvl_sched_entity_fini()) finish in queue order without waiting for their
 * dependencies: a killed entity's with -ESRCH (what the kill promised), a
 * banned or still attached entity's with -ECANCELED. Every job is freed
 * through free_job. Entities still
 * attached are detached: later pushes fail with -ESRCH and
 * nvl_sched_entity_fini() only forgets them. Every fence of every job
 * signals before this returns.
 */
void nvl_sched_destroy(struct nvl_sched *sched);

/** nvl_sched_priv() - the @priv given at creation. */
void *nvl_sched_priv(const struct nvl_sched *sched);

/** nvl_sched_name() - the scheduler's name. */
const char *nvl_sched_name(const struct nvl_sched *sched);

/**
 * nvl_sched_credit_count() - credits of the jobs currently on the ring.
 * @sched: the scheduler
 *
 * Return: the credits in flight (never more than the credit limit).
 */
uint32_t nvl_sched_credit_count(struct nvl_sched *sched);

/**
 * nvl_sched_stop() - pause the scheduler around a reset.
 * @sched: the scheduler
 *
 * No new job runs; waits until a run in progress on another thread
 * returned. Jobs on the hardware are detached from their hardware fences
 * (their credits are dropped; jobs whose hardware fence already signalled
 * complete normally) and stay on the ring's list for
 * nvl_sched_resubmit_jobs(). May be called from timedout_job().
 */
void nvl_sched_stop(struct nvl_sched *sched);

/**
 * nvl_sched_resubmit_jobs() - after a reset, run the stopped ring's jobs
 * again, oldest first.
 * @sched: a stopped scheduler
 *
 * Jobs marked guilty (or with an error) are not re-run: they finish with
 * their error. The others go through run_job() again, which returns a new
 * (or the same, re-armed) hardware fence.
 */
void nvl_sched_resubmit_jobs(struct nvl_sched *sched);

/**
 * nvl_sched_start() - resume a stopped scheduler.
 * @sched: the scheduler
 *
 * Jobs still detached (not resubmitted) finish with -ECANCELED.
 */
void nvl_sched_start(struct nvl_sched *sched);

/**
 * nvl_sched_fault() - report a hang now: run the timeout handling at once
 * instead of waiting for the timeout.
 * @sched: the scheduler
 */
void nvl_sched_fault(struct nvl_sched *sched);

/**
 * nvl_sched_entity_init() - attach a submission queue to a scheduler.
 * @entity: the entity (embedded by the caller)
 * @priority: its run queue
 * @sched: the scheduler
 *
 * Return: 0; -EINVAL for a bad priority or a scheduler being destroyed.
 */
int nvl_sched_entity_init(struct nvl_sched_entity *entity,
			  enum nvl_sched_priority priority,
			  struct nvl_sched *sched) NVL_MUST_CHECK;

/**
 * nvl_sched_entity_flush() - wait (bounded) until the entity's queued jobs
 * have all left the queue (run, or finished when killed).
 * @entity: the entity
 * @timeout_ns: relative timeout, NVL_TIMEOUT_INFINITE allowed
 *
 * Return: 0 when the queue is empty; -ETIME on expiry.
 */
int nvl_sched_entity_flush(struct nvl_sched_entity *entity, int64_t timeout_ns);

/**
 * nvl_sched_entity_kill() - stop an entity for good.
 * @entity: the entity
 *
 * Later pushes fail with -ESRCH. Queued jobs never run: each one finishes
 * with -ESRCH (scheduled then finished signalled), in queue order, once its
 * dependencies and the previous job of the entity finished. Returns at
 * once.
 */
void nvl_sched_entity_kill(struct nvl_sched_entity *entity);

/**
 * nvl_sched_entity_fini() - flush (at most one second; not an entity
 * already killed or banned, whose queued jobs never run), kill, wait until
 * the scheduler no longer uses the entity and none of its jobs is on the
 * ring, and detach it.
 * @entity: the entity (may then be freed by the caller)
 *
 * Jobs still queued (waiting for dependencies) move to a scheduler-owned
 * copy of the entity and finish with -ESRCH (-ECANCELED if it was banned),
 * in order, once their dependencies signal, or at once when the scheduler
 * is destroyed first; fini does not wait for them.
 */
void nvl_sched_entity_fini(struct nvl_sched_entity *entity);

/**
 * nvl_sched_entity_set_priority() - move @entity to another run queue (the
 * kernel's drm_sched_entity_set_priority()). Takes effect at the next
 * selection: a ready entity goes to the tail of its new run queue; jobs
 * already on the ring are not affected.
 * @entity: an initialised entity
 * @priority: the new priority
 *
 * Return: 0; -EINVAL for a bad priority or an entity that is not
 * initialised; -ESRCH for an entity that was killed, banned or detached.
 */
int nvl_sched_entity_set_priority(struct nvl_sched_entity *entity,
				  enum nvl_sched_priority priority);

/**
 * nvl_sched_entity_error() - the entity's ban error.
 * @entity: the entity
 *
 * Return: 0, -ECANCELED once banned (a guilty job), -ESRCH once killed.
 */
int nvl_sched_entity_error(struct nvl_sched_entity *entity);

/**
 * nvl_sched_job_init() - prepare a job for @entity. Allocates its fences.
 * @job: the job (embedded in the driver's job; need not be zeroed)
 * @entity: where it will be pushed
 * @credits: ring space it takes (1 .. credit limit)
 * @owner: opaque, for the driver
 *
 * After success nvl_sched_job_cleanup() must be called once, whether or not
 * the job is ever pushed.
 *
 * Return: 0; -EINVAL for zero credits, credits above the scheduler's limit
 * (never truncated) or an entity without scheduler; -ENOMEM.
 */
int nvl_sched_job_init(struct nvl_sched_job *job,
		       struct nvl_sched_entity *entity, uint32_t credits,
		       void *owner) NVL_MUST_CHECK;

/**
 * nvl_sched_job_add_dependency() - the job runs only after @fence signalled.
 * @job: an initialised, unarmed job
 * @fence: the fence; its reference is consumed in every case
 *
 * Fences of one context are deduplicated (the later one is kept); signalled
 * fences are dropped at once. A finished fence of a job of the same
 * scheduler only waits for that job to be *scheduled* (the ring runs in
 * order).
 *
 * Return: 0; -EINVAL when the job is not initialised or already armed, or
 * @fence is NULL; -ENOMEM.
 */
int nvl_sched_job_add_dependency(struct nvl_sched_job *job,
				 struct nvl_fence *fence) NVL_MUST_CHECK;

/**
 * nvl_sched_job_add_resv_dependencies() - depend on every fence of @resv
 * with usage <= @usage.
 * @job: an initialised, unarmed job
 * @resv: a reservation object, locked by the caller
 * @usage: e.g. NVL_RESV_USAGE_WRITE for a reader, _READ for a writer
 *
 * Return: 0; -EINVAL as nvl_sched_job_add_dependency(); -ENOMEM (the
 * dependencies added before the failure stay).
 */
int nvl_sched_job_add_resv_dependencies(
	struct nvl_sched_job *job, struct nvl_resv *resv,
	enum nvl_resv_usage usage) NVL_MUST_CHECK;

/**
 * nvl_sched_job_arm() - give the job's fences their context and seqno.
 * @job: an initialised job
 *
 * The point of no return: the finished fence may now be published, and the
 * job must be pushed. Arm and push must be serialised per entity by the
 * caller (queue order is seqno order).
 *
 * Return: 0; -EINVAL when not initialised or already armed.
 */
int nvl_sched_job_arm(struct nvl_sched_job *job) NVL_MUST_CHECK;

/**
 * nvl_sched_entity_push_job() - queue an armed job on its entity.
 * @job: the job; on success the scheduler owns it until free_job()
 *
 * May run the job directly (see the header comment). On failure the job is
 * not queued, stays the caller's (nvl_sched_job_cleanup() and free it), and
 * its fences, if armed, are signalled with the returned error so that no
 * published fence is left unsignalled.
 *
 * Return: 0; -EINVAL when not armed or already pushed; -ECANCELED when the
 * entity is banned (a guilty job); -ESRCH when it was killed or its
 * scheduler destroyed.
 */
int nvl_sched_entity_push_job(struct nvl_sched_job *job) NVL_MUST_CHECK;

/**
 * nvl_sched_job_cleanup() - drop what nvl_sched_job_init() and the
 * dependencies hold; from free_job(), or for a job never pushed.
 * @job: the job (a zeroed or already cleaned job is a no-op)
 */
void nvl_sched_job_cleanup(struct nvl_sched_job *job);

/**
 * NVL_SCHED_FENCE_DONT_PIPELINE_BIT - fence flag (the kernel's
 * DRM_SCHED_FENCE_DONT_PIPELINE): a job of the same scheduler that depends
 * on this finished fence waits for it to *finish*, not only to be
 * scheduled (for rings that do not execute their jobs in order, or
 * dependencies the ring cannot order itself).
 */
#define NVL_SCHED_FENCE_DONT_PIPELINE_BIT NVL_FENCE_FLAG_USER_BITS

/**
 * nvl_sched_fence_set_dont_pipeline() - set DONT_PIPELINE on a finished
 * fence (before the dependent jobs are pushed; it is read when a
 * dependency is resolved).
 * @finished: a job's finished fence (nvl_sched_job_finished())
 *
 * Return: 0, or -EINVAL when @finished is not a scheduler finished fence.
 */
int nvl_sched_fence_set_dont_pipeline(struct nvl_fence *finished);

/**
 * nvl_sched_job_finished() - the job's finished fence (no reference taken;
 * take one to keep it). Valid once the job is armed.
 * @job: the job
 */
struct nvl_fence *nvl_sched_job_finished(struct nvl_sched_job *job);

/** nvl_sched_job_scheduled() - the job's scheduled fence (no reference). */
struct nvl_fence *nvl_sched_job_scheduled(struct nvl_sched_job *job);

/**
 * nvl_sched_job_set_error() - the job failed; its finished fence will carry
 * @err (the first error set wins over the hardware fence's).
 * @job: the job
 * @err: negative errno
 */
void nvl_sched_job_set_error(struct nvl_sched_job *job, int err);

/**
 * nvl_sched_job_set_guilty() - the job caused a hang: its finished fence
 * gets @err, it is not resubmitted, and its entity is banned (later pushes
 * fail with -ECANCELED; its queued jobs finish with -ECANCELED without
 * running).
 * @job: the job, normally the one passed to timedout_job()
 * @err: negative errno, e.g. -ETIMEDOUT
 */
void nvl_sched_job_set_guilty(struct nvl_sched_job *job, int err);

/** nvl_sched_job_entity() - the entity the job was initialised for. */
static inline struct nvl_sched_entity *
nvl_sched_job_entity(const struct nvl_sched_job *job)
{
	return job->entity;
}

/** nvl_sched_job_sched() - the scheduler that runs the job. */
static inline struct nvl_sched *
nvl_sched_job_sched(const struct nvl_sched_job *job)
{
	return job->sched;
}

#endif /* NVL_SCHED_SCHED_H */

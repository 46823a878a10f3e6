/* SPDX-License-Identifier: MIT */
/*
 * The null scheduler backend: a fake ring for tests, benchmarks and the
 * demo. Jobs "execute" for a given delay and complete, in ring order, on a
 * completion thread (delay 0: at once, inside run_job()); a job can fail
 * (its hardware fence carries an error), fail at submission (run_job()
 * returns NULL with an error) or hang until the ring is reset. The ring's
 * timedout_job() follows the usual recipe: stop, mark the job guilty
 * (-ETIMEDOUT, entity banned), reset the ring, resubmit the innocent jobs,
 * start.
 */
#ifndef NVL_SCHED_NULL_BACKEND_H
#define NVL_SCHED_NULL_BACKEND_H

#include "sched/sched.h"

struct nvl_sched_null;
struct nvl_sched_null_job;

/** typedef nvl_sched_null_hook_fn - observer called in run_job(). */
typedef void (*nvl_sched_null_hook_fn)(struct nvl_sched_null_job *job,
				       void *arg);

/**
 * struct nvl_sched_null_args - a null ring.
 * @credit_limit: credits of the ring
 * @timeout_ns: scheduler timeout (NVL_TIMEOUT_INFINITE or 0: none)
 * @name: ring name
 * @sched_flags: enum nvl_sched_flags
 * @on_run: optional observer, called at the start of every run_job()
 * @on_run_arg: its argument
 */
struct nvl_sched_null_args {
	uint32_t credit_limit;
	int64_t timeout_ns;
	const char *name;
	uint32_t sched_flags;
	nvl_sched_null_hook_fn on_run;
	void *on_run_arg;
};

/**
 * struct nvl_sched_null_job - a null job (allocated by
 * nvl_sched_null_job_create(), freed by the ring's free_job).
 * @base: the scheduler job
 * @ring: its ring
 * @delay_ns: execution time
 * @fail: error the hardware fence signals with (0: success)
 * @submit_error: run_job() returns NULL with this error (0: none)
 * @hang: never completes until the ring is reset
 * @runs: how many times run_job() ran it
 * @tag: free for the user (test bookkeeping)
 */
struct nvl_sched_null_job {
	struct nvl_sched_job base;
	struct nvl_sched_null *ring;
	int64_t delay_ns;
	int fail;
	int submit_error;
	bool hang;
	atomic_uint runs;
	uint64_t tag;
	/* private */
	struct nvl_fence hw_fence;
	struct nvl_fence *hw;
	struct nvl_list node;
	int64_t due_ns;
	bool on_ring;
};

/**
 * nvl_sched_null_create() - create a null ring and its scheduler.
 * @args: parameters
 * @out: the ring
 *
 * Return: 0; -EINVAL as nvl_sched_create(); -ENOMEM; -EAGAIN when the
 * completion thread cannot start.
 */
int nvl_sched_null_create(const struct nvl_sched_null_args *args,
			  struct nvl_sched_null **out) NVL_MUST_CHECK;

/**
 * nvl_sched_null_destroy() - destroy the scheduler (cancelling jobs still
 * on the ring) and the ring.
 * @ring: the ring (NULL is a no-op)
 */
void nvl_sched_null_destroy(struct nvl_sched_null *ring);

/** nvl_sched_null_sched() - the ring's scheduler. @ring: the ring */
struct nvl_sched *nvl_sched_null_sched(struct nvl_sched_null *ring);

/**
 * nvl_sched_null_job_create() - allocate a job and nvl_sched_job_init() it.
 * @ring: the ring
 * @entity: an entity of the ring's scheduler
 * @credits: credits
 * @delay_ns: execution time
 * @out: the job; after a failed push, free it with
 *       nvl_sched_null_job_free()
 *
 * Return: 0, or the error of nvl_sched_job_init(); -ENOMEM.
 */
int nvl_sched_null_job_create(struct nvl_sched_null *ring,
			      struct nvl_sched_entity *entity, uint32_t credits,
			      int64_t delay_ns,
			      struct nvl_sched_null_job **out) NVL_MUST_CHECK;

/**
 * nvl_sched_null_job_free() - free a job that was never pushed (or whose
 * push failed).
 * @job: the job
 */
void nvl_sched_null_job_free(struct nvl_sched_null_job *job);

/**
 * struct nvl_sched_null_stats - counters of a ring.
 * @freed: jobs freed through free_job
 * @runs: run_job() calls
 * @timeouts: timedout_job() calls
 * @max_credits: most credits seen in flight at a run_job()
 */
struct nvl_sched_null_stats {
	uint64_t freed;
	uint64_t runs;
	uint64_t timeouts;
	uint32_t max_credits;
};

/** nvl_sched_null_stats() - read the ring's counters. */
void nvl_sched_null_stats(struct nvl_sched_null *ring,
			  struct nvl_sched_null_stats *out);

/**
 * nvl_sched_null_wait_freed() - wait until @n jobs were freed in total.
 * @ring: the ring
 * @n: count
 * @timeout_ns: relative timeout
 *
 * Return: 0, or -ETIME.
 */
int nvl_sched_null_wait_freed(struct nvl_sched_null *ring, uint64_t n,
			      int64_t timeout_ns);

#endif /* NVL_SCHED_NULL_BACKEND_H */

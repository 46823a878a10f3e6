/* SPDX-License-Identifier: MIT */
/* Helpers shared by the scheduler tests: a null ring that logs run order. */
#ifndef NVL_TESTS_SCHED_T_H
#define NVL_TESTS_SCHED_T_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>

#include "t.h"
#include "base/time.h"
#include "sched/null_backend.h"
#include "sched/sched.h"
#include "sync/checker.h"

#define T_LOG_MAX 4096

/* Run log: tags of jobs in run_job() order, plus checks done there. */
struct t_log {
	atomic_uint n;
	uint64_t tags[T_LOG_MAX];
	atomic_uint outside_section;
	atomic_uint runs_by_tag[256]; /* jobs may be freed: count here */
	pthread_t last_thread;
};

static inline void t_log_hook(struct nvl_sched_null_job *job, void *arg)
{
	struct t_log *log = arg;
	unsigned i = atomic_fetch_add(&log->n, 1);

	if (!nvl_fence_in_signalling())
		atomic_fetch_add(&log->outside_section, 1);
	if (i < T_LOG_MAX)
		log->tags[i] = job->tag;
	if (job->tag < 256)
		atomic_fetch_add(&log->runs_by_tag[job->tag], 1);
	log->last_thread = pthread_self();
}

static inline struct nvl_sched_null *
t_ring(uint32_t credits, int64_t timeout_ns, uint32_t flags, struct t_log *log)
{
	struct nvl_sched_null_args a = {
		.credit_limit = credits,
		.timeout_ns = timeout_ns,
		.name = "test",
		.sched_flags = flags,
		.on_run = log ? t_log_hook : NULL,
		.on_run_arg = log,
	};
	struct nvl_sched_null *ring = NULL;

	assert_int_equal(nvl_sched_null_create(&a, &ring), 0);
	return ring;
}

static inline void t_entity(struct nvl_sched_entity *e,
			    enum nvl_sched_priority prio,
			    struct nvl_sched_null *ring)
{
	assert_int_equal(
		nvl_sched_entity_init(e, prio, nvl_sched_null_sched(ring)), 0);
}

/*
 * Create, arm and push a job; return it (owned by the scheduler now) and
 * optionally a reference on its finished fence.
 */
static inline struct nvl_sched_null_job *
t_push(struct nvl_sched_null *ring, struct nvl_sched_entity *e,
       uint32_t credits, int64_t delay_ns, uint64_t tag, struct nvl_fence *dep,
       struct nvl_fence **finished)
{
	struct nvl_sched_null_job *j = NULL;

	assert_int_equal(
		nvl_sched_null_job_create(ring, e, credits, delay_ns, &j), 0);
	j->tag = tag;
	if (dep)
		assert_int_equal(nvl_sched_job_add_dependency(
					 &j->base, nvl_fence_get(dep)),
				 0);
	assert_int_equal(nvl_sched_job_arm(&j->base), 0);
	if (finished)
		*finished = nvl_fence_get(nvl_sched_job_finished(&j->base));
	assert_int_equal(nvl_sched_entity_push_job(&j->base), 0);
	return j;
}

/* Like t_push, but the job's fields are set by the caller before push. */
static inline struct nvl_sched_null_job *t_job(struct nvl_sched_null *ring,
					       struct nvl_sched_entity *e,
					       uint32_t credits,
					       int64_t delay_ns, uint64_t tag)
{
	struct nvl_sched_null_job *j = NULL;

	assert_int_equal(
		nvl_sched_null_job_create(ring, e, credits, delay_ns, &j), 0);
	j->tag = tag;
	return j;
}

static inline struct nvl_fence *t_arm_push(struct nvl_sched_null_job *j)
{
	struct nvl_fence *f;

	assert_int_equal(nvl_sched_job_arm(&j->base), 0);
	f = nvl_fence_get(nvl_sched_job_finished(&j->base));
	assert_int_equal(nvl_sched_entity_push_job(&j->base), 0);
	return f;
}

/* Push a job the caller armed; return a reference on its finished fence. */
static inline struct nvl_fence *t_arm_push_armed(struct nvl_sched_null_job *j)
{
	struct nvl_fence *f = nvl_fence_get(nvl_sched_job_finished(&j->base));

	assert_int_equal(nvl_sched_entity_push_job(&j->base), 0);
	return f;
}

static inline int t_wait(struct nvl_fence *f)
{
	assert_int_equal(nvl_fence_wait(f, 5 * NVL_NSEC_PER_SEC), 0);
	return nvl_fence_get_status(f);
}

static inline void t_sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

#endif

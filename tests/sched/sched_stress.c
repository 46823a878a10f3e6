// SPDX-License-Identifier: MIT
/*
 * Stress: many threads pushing at once (own and shared entities, with
 * cross-entity dependencies), many one-entity schedulers created and
 * destroyed, and random allocation failures while building jobs.
 */
#include <stdlib.h>

#include "sched_t.h"
#include "base/alloc.h"

#define THREADS 4

struct pusher {
	struct nvl_sched_null *ring;
	struct nvl_sched_entity own;
	struct nvl_sched_entity *shared;
	pthread_mutex_t *shared_lock;
	struct nvl_fence *last_own, *last_shared;
	int n;
	int idx;
};

/* Per entity, run order must follow push order: tag = entity << 32 | i. */
static pthread_mutex_t order_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t last_tag[THREADS + 1];
static atomic_uint order_errors;

static void order_hook(struct nvl_sched_null_job *job, void *arg)
{
	unsigned ent = job->tag >> 32;
	uint64_t i = job->tag & 0xffffffffu;

	(void)arg;
	pthread_mutex_lock(&order_lock);
	if (last_tag[ent] && i <= last_tag[ent])
		atomic_fetch_add(&order_errors, 1);
	last_tag[ent] = i;
	pthread_mutex_unlock(&order_lock);
}

static void *pusher_main(void *arg)
{
	struct pusher *p = arg;
	struct nvl_fence *prev = NULL;

	for (int i = 1; i <= p->n; i++) {
		struct nvl_sched_null_job *j;
		bool shared = (i % 4) == 0;
		struct nvl_sched_entity *e = shared ? p->shared : &p->own;
		struct nvl_fence *f;

		if (nvl_sched_null_job_create(p->ring, e, 1 + i % 2,
					      (i % 7 == 0) ? 2000 : 0, &j))
			abort();
		j->tag = ((uint64_t)(shared ? THREADS : p->idx) << 32) |
			 (uint64_t)i;
		/* Depend on this thread's previous job (other entity). */
		if (prev && nvl_sched_job_add_dependency(&j->base, prev))
			abort();
		prev = NULL;
		if (shared)
			pthread_mutex_lock(p->shared_lock);
		if (nvl_sched_job_arm(&j->base))
			abort();
		f = nvl_fence_get(nvl_sched_job_finished(&j->base));
		if (shared)
			j->tag = ((uint64_t)THREADS << 32) | f->seqno;
		if (nvl_sched_entity_push_job(&j->base))
			abort();
		if (shared)
			pthread_mutex_unlock(p->shared_lock);
		prev = nvl_fence_get(f);
		if (shared) {
			nvl_fence_put(p->last_shared);
			p->last_shared = f;
		} else {
			nvl_fence_put(p->last_own);
			p->last_own = f;
		}
	}
	nvl_fence_put(prev);
	return NULL;
}

static void many_threads_push_concurrently(void **state)
{
	struct nvl_sched_null_args a = {
		.credit_limit = 16,
		.name = "stress",
		.on_run = order_hook,
	};
	struct nvl_sched_null *ring;
	struct nvl_sched_entity shared;
	pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
	struct pusher p[THREADS];
	pthread_t th[THREADS];
	int n = (int)(2000 * t_scale());
	struct nvl_sched_null_stats st;

	(void)state;
	assert_int_equal(nvl_sched_null_create(&a, &ring), 0);
	t_entity(&shared, NVL_SCHED_PRIO_HIGH, ring);
	for (int i = 0; i < THREADS; i++) {
		p[i] = (struct pusher){.ring = ring,
				       .shared = &shared,
				       .shared_lock = &shared_lock,
				       .n = n,
				       .idx = i};
		t_entity(&p[i].own,
			 i % 2 ? NVL_SCHED_PRIO_NORMAL : NVL_SCHED_PRIO_LOW,
			 ring);
		assert_int_equal(
			pthread_create(&th[i], NULL, pusher_main, &p[i]), 0);
	}
	for (int i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(t_wait(p[i].last_own), 1);
		assert_int_equal(t_wait(p[i].last_shared), 1);
		nvl_fence_put(p[i].last_own);
		nvl_fence_put(p[i].last_shared);
		nvl_sched_entity_fini(&p[i].own);
	}
	nvl_sched_entity_fini(&shared);
	assert_int_equal(nvl_sched_null_wait_freed(ring, (uint64_t)n * THREADS,
						   5 * NVL_NSEC_PER_SEC),
			 0);
	nvl_sched_null_stats(ring, &st);
	assert_int_equal(st.runs, (uint64_t)n * THREADS);
	assert_true(st.max_credits <= 16);
	assert_int_equal(atomic_load(&order_errors), 0);
	nvl_sched_null_destroy(ring);
}

static struct nvl_fence *noop_run(struct nvl_sched_job *job)
{
	(void)job;
	return NULL;
}

static void noop_free(struct nvl_sched_job *job)
{
	nvl_sched_job_cleanup(job);
	nvl_free(job);
}

static const struct nvl_sched_backend_ops noop_ops = {
	.run_job = noop_run,
	.free_job = noop_free,
};

struct chan {
	struct nvl_sched *sched;
	struct nvl_sched_entity e;
};

static void thousands_of_one_entity_schedulers_are_cheap(void **state)
{
	int n = (int)(5000 * t_scale());
	struct chan *c = calloc(n, sizeof(*c));
	struct nvl_sched_args a = {.ops = &noop_ops,
				   .credit_limit = 4,
				   .timeout_ns = NVL_NSEC_PER_SEC};
	int64_t t0 = nvl_time_ns();

	(void)state;
	assert_non_null(c);
	for (int i = 0; i < n; i++) {
		assert_int_equal(nvl_sched_create(&a, &c[i].sched), 0);
		assert_int_equal(nvl_sched_entity_init(&c[i].e,
						       NVL_SCHED_PRIO_NORMAL,
						       c[i].sched),
				 0);
	}
	/* Every channel runs one job. */
	for (int i = 0; i < n; i++) {
		struct nvl_sched_job *job = nvl_malloc(sizeof(*job));
		struct nvl_fence *f;

		assert_non_null(job);
		assert_int_equal(nvl_sched_job_init(job, &c[i].e, 1, NULL), 0);
		assert_int_equal(nvl_sched_job_arm(job), 0);
		f = nvl_fence_get(nvl_sched_job_finished(job));
		assert_int_equal(nvl_sched_entity_push_job(job), 0);
		assert_int_equal(t_wait(f), 1);
		nvl_fence_put(f);
	}
	for (int i = 0; i < n; i++) {
		nvl_sched_entity_fini(&c[i].e);
		nvl_sched_destroy(c[i].sched);
	}
	/* No thread per scheduler: this stays well under a second. */
	assert_true(nvl_time_ns() - t0 < 10 * NVL_NSEC_PER_SEC);
	free(c);
}

static void random_alloc_failures_never_leak_or_hang(void **state)
{
	struct nvl_sched_null *ring = t_ring(8, 0, 0, NULL);
	struct nvl_sched_entity e;
	struct nvl_fence *deps[3];
	uint64_t ctx = nvl_fence_context_alloc(3);
	int ok = 0, failed = 0;

	(void)state;
	t_entity(&e, NVL_SCHED_PRIO_NORMAL, ring);
	for (int i = 0; i < 3; i++)
		assert_int_equal(nvl_fence_create(&deps[i], ctx + i, 1), 0);
	nvl_fault_fail_random(0.2, t_seed(3), NVL_FAULT_THIS_THREAD);
	for (int i = 0; i < 300; i++) {
		struct nvl_sched_null_job *j;
		struct nvl_fence *f;
		int ret = nvl_sched_null_job_create(ring, &e, 1, 0, &j);

		if (ret) {
			assert_int_equal(ret, -ENOMEM);
			failed++;
			continue;
		}
		for (int k = 0; k < 3 && !ret; k++)
			ret = nvl_sched_job_add_dependency(
				&j->base, nvl_fence_get(deps[k]));
		if (ret) {
			assert_int_equal(ret, -ENOMEM);
			nvl_sched_null_job_free(j);
			failed++;
			continue;
		}
		assert_int_equal(nvl_sched_job_arm(&j->base), 0);
		f = nvl_fence_get(nvl_sched_job_finished(&j->base));
		assert_int_equal(nvl_sched_entity_push_job(&j->base), 0);
		nvl_fence_put(f);
		ok++;
	}
	nvl_fault_off();
	assert_true(ok > 0 && failed > 0);
	for (int i = 0; i < 3; i++) {
		nvl_fence_signal(deps[i]);
		nvl_fence_put(deps[i]);
	}
	assert_int_equal(nvl_sched_entity_flush(&e, 5 * NVL_NSEC_PER_SEC), 0);
	assert_int_equal(
		nvl_sched_null_wait_freed(ring, ok, 5 * NVL_NSEC_PER_SEC), 0);
	nvl_sched_entity_fini(&e);
	nvl_sched_null_destroy(ring);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(many_threads_push_concurrently),
	cmocka_unit_test(thousands_of_one_entity_schedulers_are_cheap),
	cmocka_unit_test(random_alloc_failures_never_leak_or_hang),
};

T_MAIN(tests)

// SPDX-License-Identifier: MIT
/*
 * Scheduling policy: FIFO inside an entity, round robin across entities of
 * one priority, priority order with anti-starvation aging, credit limits,
 * dependencies across entities and schedulers (DONT_PIPELINE included),
 * and changing an entity's priority.
 */
#include "sched_t.h"
#include "sync/resv.h"

static void jobs_of_one_entity_run_in_push_order(void **state)
{
	static struct t_log log;
	struct nvl_sched_null *ring =
		t_ring(8, 0, NVL_SCHED_NO_DIRECT_RUN, &log);
	struct nvl_sched_entity e;
	struct nvl_fence *last = NULL;
	uint64_t rng = t_seed(7);
	const int n = 300;

	(void)state;
	atomic_store(&log.n, 0);
	t_entity(&e, NVL_SCHED_PRIO_NORMAL, ring);
	for (int i = 0; i < n; i++) {
		struct nvl_sched_null_job *j =
			t_job(ring, &e, 1 + t_rand(&rng) % 3,
			      (t_rand(&rng) % 4) * NVL_NSEC_PER_USEC * 50, i);

		nvl_fence_put(last);
		last = t_arm_push(j);
	}
	assert_int_equal(t_wait(last), 1);
	nvl_fence_put(last);
	assert_int_equal(atomic_load(&log.n), n);
	for (int i = 0; i < n; i++)
		assert_int_equal(log.tags[i], i);
	nvl_sched_entity_fini(&e);
	nvl_sched_null_destroy(ring);
}

/* Push @per jobs on each entity while stopped, start, return the log. */
static void run_stopped(struct nvl_sched_null *ring,
			struct nvl_sched_entity *es, int ne, int per,
			struct nvl_fence **lastp)
{
	struct nvl_sched *s = nvl_sched_null_sched(ring);
	struct nvl_fence *fs[64];
	int nf = 0;

	nvl_sched_stop(s);
	for (int k = 0; k < ne; k++)
		for (int i = 0; i < per; i++)
			fs[nf++] = t_arm_push(
				t_job(ring, &es[k], 1, 0, k * 100 + i));
	nvl_sched_start(s);
	for (int i = 0; i < nf; i++) {
		assert_int_equal(t_wait(fs[i]), 1);
		if (lastp && i == nf - 1)
			*lastp = nvl_fence_get(fs[i]);
		nvl_fence_put(fs[i]);
	}
}

static void entities_of_one_priority_share_round_robin(void **state)
{
	static struct t_log log;
	struct nvl_sched_null *ring = t_ring(1, 0, 0, &log);
	struct nvl_sched_entity es[3];

	(void)state;
	for (int k = 0; k < 3; k++)
		t_entity(&es[k], NVL_SCHED_PRIO_NORMAL, ring);
	run_stopped(ring, es, 3, 5, NULL);
	assert_int_equal(atomic_load(&log.n), 15);
	for (int i = 0; i < 15; i++)
		assert_int_equal(log.tags[i], (i % 3) * 100 + i / 3);
	for (int k = 0; k < 3; k++)
		nvl_sched_entity_fini(&es[k]);
	nvl_sched_null_destroy(ring);
}

static void higher_priorities_run_first(void **state)
{
	static struct t_log log;
	struct nvl_sched_null *ring = t_ring(1, 0, 0, &log);
	struct nvl_sched_entity es[4];
	/* es[k] gets priority LOW - k: pushed lowest first. */

	(void)state;
	for (int k = 0; k < 4; k++)
		t_entity(&es[k], NVL_SCHED_PRIO_LOW - k, ring);
	run_stopped(ring, es, 4, 4, NULL);
	assert_int_equal(atomic_load(&log.n), 16);
	for (int i = 0; i < 16; i++)
		assert_int_equal(log.tags[i], (3 - i / 4) * 100 + i % 4);
	for (int k = 0; k < 4; k++)
		nvl_sched_entity_fini(&es[k]);
	nvl_sched_null_destroy(ring);
}

static void low_priority_is_served_after_starve_limit(void **state)
{
	static struct t_log log;
	struct nvl_sched_null *ring = t_ring(1, 0, 0, &log);
	struct nvl_sched_entity es[2];
	int low_at = -1;

	(void)state;
	t_entity(&es[0], NVL_SCHED_PRIO_LOW, ring);
	t_entity(&es[1], NVL_SCHED_PRIO_HIGH, ring);
	/* 1 low job and 40 high jobs, all queued before the ring starts. */
	{
		struct nvl_sched *s = nvl_sched_null_sched(ring);
		struct nvl_fence *fs[41];

		nvl_sched_stop(s);
		fs[0] = t_arm_push(t_job(ring, &es[0], 1, 0, 1000));
		for (int i = 0; i < 40; i++)
			fs[i + 1] = t_arm_push(t_job(ring, &es[1], 1, 0, i));
		nvl_sched_start(s);
		for (int i = 0; i < 41; i++) {
			assert_int_equal(t_wait(fs[i]), 1);
			nvl_fence_put(fs[i]);
		}
	}
	for (int i = 0; i < 41; i++)
		if (log.tags[i] == 1000)
			low_at = i;
	/* Passed over exactly 16 times (NVL_SCHED_STARVE_LIMIT), then run. */
	assert_int_equal(low_at, 16);
	nvl_sched_entity_fini(&es[0]);
	nvl_sched_entity_fini(&es[1]);
	nvl_sched_null_destroy(ring);
}

static void credits_in_flight_never_exceed_the_limit(void **state)
{
	struct nvl_sched_null *ring = t_ring(5, 0, 0, NULL);
	struct nvl_sched_entity es[4];
	struct nvl_fence *fs[200];
	struct nvl_sched_null_stats st;
	uint64_t rng = t_seed(11);

	(void)state;
	for (int k = 0; k < 4; k++)
		t_entity(&es[k], NVL_SCHED_PRIO_NORMAL, ring);
	for (int i = 0; i < 200; i++)
		fs[i] = t_arm_push(t_job(ring, &es[i % 4], 1 + t_rand(&rng) % 5,
					 (t_rand(&rng) % 3) * 20000, i));
	for (int i = 0; i < 200; i++) {
		assert_int_equal(t_wait(fs[i]), 1);
		nvl_fence_put(fs[i]);
	}
	nvl_sched_null_stats(ring, &st);
	assert_true(st.max_credits <= 5);
	assert_true(st.max_credits >= 2); /* it did overlap jobs */
	assert_int_equal(st.runs, 200);
	for (int k = 0; k < 4; k++)
		nvl_sched_entity_fini(&es[k]);
	assert_int_equal(nvl_sched_credit_count(nvl_sched_null_sched(ring)), 0);
	nvl_sched_null_destroy(ring);
}

static void dependency_on_other_scheduler_waits_for_finished(void **state)
{
	static struct t_log log;
	struct nvl_sched_null *r1 = t_ring(4, 0, 0, NULL);
	struct nvl_sched_null *r2 = t_ring(4, 0, 0, &log);
	struct nvl_sched_entity e1, e2;
	struct nvl_fence *a, *b;

	(void)state;
	t_entity(&e1, NVL_SCHED_PRIO_NORMAL, r1);
	t_entity(&e2, NVL_SCHED_PRIO_NORMAL, r2);
	t_push(r1, &e1, 1, 30 * NVL_NSEC_PER_MSEC, 1, NULL, &a);
	struct nvl_sched_null_job *jb = t_job(r2, &e2, 1, 0, 2);
	struct nvl_fence *sb;

	assert_int_equal(
		nvl_sched_job_add_dependency(&jb->base, nvl_fence_get(a)), 0);
	assert_int_equal(nvl_sched_job_arm(&jb->base), 0);
	sb = nvl_fence_get(nvl_sched_job_scheduled(&jb->base));
	b = t_arm_push_armed(jb);
	assert_int_equal(t_wait(b), 1);
	assert_true(nvl_fence_is_signaled(a));
	/* b went to its ring only after a finished. */
	assert_true(nvl_fence_timestamp(a) <= nvl_fence_timestamp(sb));
	nvl_fence_put(sb);
	nvl_fence_put(a);
	nvl_fence_put(b);
	nvl_sched_entity_fini(&e1);
	nvl_sched_entity_fini(&e2);
	nvl_sched_null_destroy(r1);
	nvl_sched_null_destroy(r2);
}

static void dependency_on_same_scheduler_waits_for_scheduled(void **state)
{
	static struct t_log log;
	struct nvl_sched_null *r = t_ring(4, 0, 0, &log);
	struct nvl_sched_entity e1, e2;
	struct nvl_fence *a, *b;

	(void)state;
	t_entity(&e1, NVL_SCHED_PRIO_NORMAL, r);
	t_entity(&e2, NVL_SCHED_PRIO_NORMAL, r);
	t_push(r, &e1, 1, 300 * NVL_NSEC_PER_MSEC, 1, NULL, &a);
	t_push(r, &e2, 1, 0, 2, a, &b);
	/* b went to the ring right behind a, before a finished. */
	for (int i = 0; i < 250 && atomic_load(&log.n) < 2; i++)
		t_sleep_ms(1);
	assert_int_equal(atomic_load(&log.n), 2);
	assert_false(nvl_fence_is_signaled(a));
	/* The ring runs in order: b still finishes after a. */
	assert_int_equal(t_wait(b), 1);
	assert_true(nvl_fence_is_signaled(a));
	nvl_fence_put(a);
	nvl_fence_put(b);
	nvl_sched_entity_fini(&e1);
	nvl_sched_entity_fini(&e2);
	nvl_sched_null_destroy(r);
}

/*
 * DONT_PIPELINE (drm_sched's dependency flag): a same-scheduler dependency
 * whose finished fence carries it is waited for until it *finishes*.
 */
static void dont_pipeline_dependency_waits_for_finished(void **state)
{
	static struct t_log log;
	struct nvl_sched_null *r = t_ring(4, 0, 0, &log);
	struct nvl_sched_entity e1, e2;
	struct nvl_fence *a, *b, *stub = nvl_fence_get_stub();

	(void)state;
	t_entity(&e1, NVL_SCHED_PRIO_NORMAL, r);
	t_entity(&e2, NVL_SCHED_PRIO_NORMAL, r);
	t_push(r, &e1, 1, 100 * NVL_NSEC_PER_MSEC, 1, NULL, &a);
	assert_int_equal(nvl_sched_fence_set_dont_pipeline(a), 0);
	/* only scheduler finished fences take the flag */
	assert_int_equal(nvl_sched_fence_set_dont_pipeline(stub), -EINVAL);
	assert_int_equal(nvl_sched_fence_set_dont_pipeline(NULL), -EINVAL);
	t_push(r, &e2, 1, 0, 2, a, &b);
	/* b waits for a to finish: while a runs, b is not on the ring */
	t_sleep_ms(20);
	assert_false(nvl_fence_is_signaled(a));
	assert_int_equal(atomic_load(&log.n), 1);
	assert_int_equal(t_wait(b), 1);
	assert_int_equal(atomic_load(&log.n), 2);
	assert_true(nvl_fence_timestamp(a) <= nvl_fence_timestamp(b));
	nvl_fence_put(stub);
	nvl_fence_put(a);
	nvl_fence_put(b);
	nvl_sched_entity_fini(&e1);
	nvl_sched_entity_fini(&e2);
	nvl_sched_null_destroy(r);
}

static void entity_priority_can_change(void **state)
{
	static struct t_log log;
	struct nvl_sched_null *ring = t_ring(1, 0, 0, &log);
	struct nvl_sched *s = nvl_sched_null_sched(ring);
	struct nvl_sched_entity es[2], dead;
	struct nvl_fence *fs[6];

	(void)state;
	atomic_store(&log.n, 0);
	t_entity(&es[0], NVL_SCHED_PRIO_LOW, ring);
	t_entity(&es[1], NVL_SCHED_PRIO_NORMAL, ring);
	nvl_sched_stop(s);
	for (int i = 0; i < 3; i++)
		fs[i] = t_arm_push(t_job(ring, &es[0], 1, 0, i));
	for (int i = 0; i < 3; i++)
		fs[3 + i] = t_arm_push(t_job(ring, &es[1], 1, 0, 100 + i));
	/* the LOW entity, already ready, is raised above NORMAL */
	assert_int_equal(
		nvl_sched_entity_set_priority(&es[0], NVL_SCHED_PRIO_HIGH), 0);
	nvl_sched_start(s);
	for (int i = 0; i < 6; i++) {
		assert_int_equal(t_wait(fs[i]), 1);
		nvl_fence_put(fs[i]);
	}
	assert_int_equal(atomic_load(&log.n), 6);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(log.tags[i], i);
		assert_int_equal(log.tags[3 + i], 100 + i);
	}
	/* bad input changes nothing */
	assert_int_equal(
		nvl_sched_entity_set_priority(&es[0], NVL_SCHED_PRIO_COUNT),
		-EINVAL);
	assert_int_equal(
		nvl_sched_entity_set_priority(NULL, NVL_SCHED_PRIO_LOW),
		-EINVAL);
	assert_int_equal(es[0].priority, NVL_SCHED_PRIO_HIGH);
	t_entity(&dead, NVL_SCHED_PRIO_LOW, ring);
	nvl_sched_entity_kill(&dead);
	assert_int_equal(
		nvl_sched_entity_set_priority(&dead, NVL_SCHED_PRIO_HIGH),
		-ESRCH);
	nvl_sched_entity_fini(&dead);
	nvl_sched_entity_fini(&es[0]);
	nvl_sched_entity_fini(&es[1]);
	nvl_sched_null_destroy(ring);
}

static void blocked_entity_does_not_hold_up_others(void **state)
{
	static struct t_log log;
	struct nvl_sched_null *r = t_ring(4, 0, 0, &log);
	struct nvl_sched_entity e1, e2;
	struct nvl_fence *gate, *a, *b;

	(void)state;
	assert_int_equal(nvl_fence_create(&gate, nvl_fence_context_alloc(1), 1),
			 0);
	t_entity(&e1, NVL_SCHED_PRIO_HIGH, r);
	t_entity(&e2, NVL_SCHED_PRIO_LOW, r);
	t_push(r, &e1, 1, 0, 1, gate, &a);
	t_push(r, &e2, 1, 0, 2, NULL, &b);
	assert_int_equal(t_wait(b), 1);
	assert_false(nvl_fence_is_signaled(a));
	nvl_fence_signal(gate);
	assert_int_equal(t_wait(a), 1);
	assert_int_equal(log.tags[0], 2);
	assert_int_equal(log.tags[1], 1);
	nvl_fence_put(gate);
	nvl_fence_put(a);
	nvl_fence_put(b);
	nvl_sched_entity_fini(&e1);
	nvl_sched_entity_fini(&e2);
	nvl_sched_null_destroy(r);
}

static void resv_dependencies_follow_usage(void **state)
{
	struct nvl_sched_null *r = t_ring(4, 0, 0, NULL);
	struct nvl_sched_entity e;
	struct nvl_resv resv;
	struct nvl_fence *w, *rd, *f1, *f2;
	struct nvl_sched_null_job *j1, *j2;
	uint64_t ctx = nvl_fence_context_alloc(2);

	(void)state;
	t_entity(&e, NVL_SCHED_PRIO_NORMAL, r);
	nvl_resv_init(&resv);
	assert_int_equal(nvl_fence_create(&w, ctx, 1), 0);
	assert_int_equal(nvl_fence_create(&rd, ctx + 1, 1), 0);
	assert_int_equal(nvl_resv_lock(&resv, NULL), 0);
	assert_int_equal(nvl_resv_reserve_fences(&resv, 2), 0);
	nvl_resv_add_fence(&resv, w, NVL_RESV_USAGE_WRITE);
	nvl_resv_add_fence(&resv, rd, NVL_RESV_USAGE_READ);
	/* A reader waits for writers only; a writer for everything. */
	j1 = t_job(r, &e, 1, 0, 1);
	assert_int_equal(nvl_sched_job_add_resv_dependencies(
				 &j1->base, &resv, NVL_RESV_USAGE_WRITE),
			 0);
	assert_int_equal(j1->base.num_deps, 1);
	j2 = t_job(r, &e, 1, 0, 2);
	assert_int_equal(nvl_sched_job_add_resv_dependencies(
				 &j2->base, &resv, NVL_RESV_USAGE_READ),
			 0);
	assert_int_equal(j2->base.num_deps, 2);
	nvl_resv_unlock(&resv);
	f1 = t_arm_push(j1);
	f2 = t_arm_push(j2);
	nvl_fence_signal(w);
	assert_int_equal(t_wait(f1), 1);
	t_sleep_ms(5);
	assert_false(nvl_fence_is_signaled(f2));
	nvl_fence_signal(rd);
	assert_int_equal(t_wait(f2), 1);
	nvl_fence_put(f1);
	nvl_fence_put(f2);
	nvl_fence_put(w);
	nvl_fence_put(rd);
	nvl_resv_fini(&resv);
	nvl_sched_entity_fini(&e);
	nvl_sched_null_destroy(r);
}

struct resv_ctx {
	struct nvl_sched_entity *e;
	struct nvl_resv *resv;
	struct nvl_sched_job job;
};

static int resv_op(void *arg)
{
	struct resv_ctx *c = arg;
	int ret = nvl_sched_job_init(&c->job, c->e, 1, NULL);

	if (ret)
		return ret;
	ret = nvl_sched_job_add_resv_dependencies(&c->job, c->resv,
						  NVL_RESV_USAGE_BOOKKEEP);
	if (!ret)
		assert_int_equal(c->job.num_deps, 6);
	nvl_sched_job_cleanup(&c->job);
	return ret;
}

static void resv_check(int ret, void *arg)
{
	(void)arg;
	assert_int_equal(ret, -ENOMEM);
}

static void resv_dependencies_survive_alloc_failures(void **state)
{
	struct nvl_sched_null *r = t_ring(4, 0, 0, NULL);
	struct nvl_sched_entity e;
	struct nvl_resv resv;
	struct nvl_fence *fs[6];
	struct resv_ctx c = {.e = &e, .resv = &resv};
	uint64_t ctx = nvl_fence_context_alloc(6);

	(void)state;
	t_entity(&e, NVL_SCHED_PRIO_NORMAL, r);
	nvl_resv_init(&resv);
	assert_int_equal(nvl_resv_lock(&resv, NULL), 0);
	assert_int_equal(nvl_resv_reserve_fences(&resv, 6), 0);
	for (int i = 0; i < 6; i++) {
		assert_int_equal(nvl_fence_create(&fs[i], ctx + i, 1), 0);
		nvl_resv_add_fence(&resv, fs[i],
				   i % 2 ? NVL_RESV_USAGE_READ
					 : NVL_RESV_USAGE_BOOKKEEP);
	}
	assert_true(t_fail_each_alloc(resv_op, resv_check, &c, 20) >= 3);
	nvl_resv_unlock(&resv);
	for (int i = 0; i < 6; i++) {
		assert_int_equal(nvl_kref_read(&fs[i]->refcount), 2);
		nvl_fence_signal(fs[i]);
		nvl_fence_put(fs[i]);
	}
	nvl_resv_fini(&resv);
	nvl_sched_entity_fini(&e);
	nvl_sched_null_destroy(r);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(jobs_of_one_entity_run_in_push_order),
	cmocka_unit_test(entities_of_one_priority_share_round_robin),
	cmocka_unit_test(higher_priorities_run_first),
	cmocka_unit_test(low_priority_is_served_after_starve_limit),
	cmocka_unit_test(credits_in_flight_never_exceed_the_limit),
	cmocka_unit_test(dependency_on_other_scheduler_waits_for_finished),
	cmocka_unit_test(dependency_on_same_scheduler_waits_for_scheduled),
	cmocka_unit_test(dont_pipeline_dependency_waits_for_finished),
	cmocka_unit_test(entity_priority_can_change),
	cmocka_unit_test(blocked_entity_does_not_hold_up_others),
	cmocka_unit_test(resv_dependencies_follow_usage),
	cmocka_unit_test(resv_dependencies_survive_alloc_failures),
};

T_MAIN(tests)

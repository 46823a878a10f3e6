// SPDX-License-Identifier: MIT
/*
 * Scheduler API: bad input, allocation failures, job lifecycle, errors on
 * finished fences, the direct-run path and the signalling sections.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "sched_t.h"
#include "base/alloc.h"
#include "base/log.h"

static struct nvl_fence *stub_run(struct nvl_sched_job *job)
{
	(void)job;
	return NULL;
}

static void stub_free(struct nvl_sched_job *job)
{
	nvl_sched_job_cleanup(job);
}

static const struct nvl_sched_backend_ops stub_ops = {
	.run_job = stub_run,
	.free_job = stub_free,
};

static void create_rejects_bad_arguments(void **state)
{
	struct nvl_sched_backend_ops no_free = {.run_job = stub_run};
	struct nvl_sched_args a = {.ops = &stub_ops, .credit_limit = 0};
	struct nvl_sched *s = NULL;

	(void)state;
	assert_int_equal(nvl_sched_create(&a, &s), -EINVAL);
	assert_non_null(strstr(nvl_error_msg(), "credit limit"));
	a.credit_limit = 1;
	a.timeout_ns = -5;
	assert_int_equal(nvl_sched_create(&a, &s), -EINVAL);
	a.timeout_ns = 0;
	a.ops = &no_free;
	assert_int_equal(nvl_sched_create(&a, &s), -EINVAL);
	assert_null(s);
	a.ops = &stub_ops;
	assert_int_equal(nvl_sched_create(&a, &s), 0);
	nvl_sched_destroy(s);
}

static struct nvl_sched_null *created_ring;

static int ring_create_op(void *arg)
{
	struct nvl_sched_null_args a = {.credit_limit = 2, .name = "x"};

	(void)arg;
	return nvl_sched_null_create(&a, &created_ring);
}

static void ring_create_check(int ret, void *arg)
{
	(void)arg;
	assert_int_equal(ret, -ENOMEM);
	assert_null(created_ring);
}

static void create_survives_alloc_failures(void **state)
{
	unsigned long n;

	(void)state;
	created_ring = NULL;
	n = t_fail_each_alloc(ring_create_op, ring_create_check, NULL, 20);
	assert_true(n >= 2); /* the ring and its scheduler */
	assert_non_null(created_ring);
	nvl_sched_null_destroy(created_ring);
}

static void entity_init_rejects_bad_priority(void **state)
{
	struct nvl_sched_args a = {.ops = &stub_ops, .credit_limit = 1};
	struct nvl_sched_entity e;
	struct nvl_sched *s;

	(void)state;
	assert_int_equal(nvl_sched_create(&a, &s), 0);
	assert_int_equal(nvl_sched_entity_init(&e, NVL_SCHED_PRIO_COUNT, s),
			 -EINVAL);
	assert_int_equal(
		nvl_sched_entity_init(&e, (enum nvl_sched_priority) - 1, s),
		-EINVAL);
	nvl_sched_destroy(s);
}

static void credits_over_limit_rejected_not_truncated(void **state)
{
	struct nvl_sched_null *ring = t_ring(4, 0, 0, NULL);
	struct nvl_sched_entity e;
	struct nvl_sched_job job;

	(void)state;
	t_entity(&e, NVL_SCHED_PRIO_NORMAL, ring);
	assert_int_equal(nvl_sched_job_init(&job, &e, 5, NULL), -EINVAL);
	assert_non_null(strstr(nvl_error_msg(), "5 credits"));
	assert_int_equal(nvl_sched_job_init(&job, &e, 0, NULL), -EINVAL);
	assert_non_null(strstr(nvl_error_msg(), "zero credits"));
	/* At the limit is fine. */
	assert_int_equal(nvl_sched_job_init(&job, &e, 4, NULL), 0);
	nvl_sched_job_cleanup(&job);
	nvl_sched_entity_fini(&e);
	nvl_sched_null_destroy(ring);
}

static void push_of_unarmed_job_fails(void **state)
{
	struct nvl_sched_null *ring = t_ring(4, 0, 0, NULL);
	struct nvl_sched_entity e;
	struct nvl_sched_null_job *j;

	(void)state;
	t_entity(&e, NVL_SCHED_PRIO_NORMAL, ring);
	j = t_job(ring, &e, 1, 0, 0);
	assert_int_equal(nvl_sched_entity_push_job(&j->base), -EINVAL);
	assert_non_null(strstr(nvl_error_msg(), "not armed"));
	assert_int_equal(atomic_load(&j->runs), 0);
	nvl_sched_null_job_free(j);
	nvl_sched_entity_fini(&e);
	nvl_sched_null_destroy(ring);
}

static void arming_twice_fails(void **state)
{
	struct nvl_sched_null *ring = t_ring(4, 0, 0, NULL);
	struct nvl_sched_entity e;
	struct nvl_sched_null_job *j;
	struct nvl_fence *f;
	uint64_t seqno;

	(void)state;
	t_entity(&e, NVL_SCHED_PRIO_NORMAL, ring);
	j = t_job(ring, &e, 1, 0, 0);
	assert_int_equal(nvl_sched_job_arm(&j->base), 0);
	seqno = nvl_sched_job_finished(&j->base)->seqno;
	assert_int_equal(nvl_sched_job_arm(&j->base), -EINVAL);
	assert_non_null(strstr(nvl_error_msg(), "already armed"));
	assert_int_equal(nvl_sched_job_finished(&j->base)->seqno, seqno);
	/* Dependencies after arm are refused too (reference consumed). */
	assert_int_equal(
		nvl_sched_job_add_dependency(&j->base, nvl_fence_get_stub()),
		-EINVAL);
	f = nvl_fence_get(nvl_sched_job_finished(&j->base));
	assert_int_equal(nvl_sched_entity_push_job(&j->base), 0);
	assert_int_equal(t_wait(f), 1);
	nvl_fence_put(f);
	nvl_sched_entity_fini(&e);
	nvl_sched_null_destroy(ring);
}

static void push_to_killed_entity_fails_and_signals(void **state)
{
	struct nvl_sched_null *ring = t_ring(4, 0, 0, NULL);
	struct nvl_sched_entity e;
	struct nvl_sched_null_job *j;
	struct nvl_fence *f;

	(void)state;
	t_entity(&e, NVL_SCHED_PRIO_NORMAL, ring);
	nvl_sched_entity_kill(&e);
	assert_int_equal(nvl_sched_entity_error(&e), -ESRCH);
	j = t_job(ring, &e, 1, 0, 0);
	assert_int_equal(nvl_sched_job_arm(&j->base), 0);
	f = nvl_fence_get(nvl_sched_job_finished(&j->base));
	assert_int_equal(nvl_sched_entity_push_job(&j->base), -ESRCH);
	assert_non_null(strstr(nvl_error_msg(), "killed"));
	/* Never a fence that does not signal. */
	assert_true(nvl_fence_is_signaled(f));
	assert_int_equal(nvl_fence_get_status(f), -ESRCH);
	assert_int_equal(atomic_load(&j->runs), 0);
	nvl_sched_null_job_free(j);
	nvl_fence_put(f);
	nvl_sched_entity_fini(&e);
	nvl_sched_null_destroy(ring);
}

struct init_ctx {
	struct nvl_sched_entity *e;
	struct nvl_sched_job job;
	struct nvl_fence *deps[6];
	bool init_only;
};

static int init_op(void *arg)
{
	struct init_ctx *c = arg;
	int ret = nvl_sched_job_init(&c->job, c->e, 1, NULL);

	if (ret || c->init_only)
		return ret;
	for (int i = 0; i < 6; i++) {
		ret = nvl_sched_job_add_dependency(&c->job,
						   nvl_fence_get(c->deps[i]));
		if (ret) {
			nvl_sched_job_cleanup(&c->job);
			return ret;
		}
	}
	return 0;
}

static void init_check(int ret, void *arg)
{
	(void)arg;
	assert_int_equal(ret, -ENOMEM);
}

static void job_init_and_dependencies_survive_alloc_failures(void **state)
{
	struct nvl_sched_null *ring = t_ring(4, 0, 0, NULL);
	struct nvl_sched_entity e;
	struct init_ctx c = {.e = &e, .init_only = true};
	uint64_t ctx = nvl_fence_context_alloc(6);
	unsigned long n;

	(void)state;
	t_entity(&e, NVL_SCHED_PRIO_NORMAL, ring);
	n = t_fail_each_alloc(init_op, init_check, &c, 10);
	assert_int_equal(n, 1);
	nvl_sched_job_cleanup(&c.job);

	for (int i = 0; i < 6; i++)
		assert_int_equal(nvl_fence_create(&c.deps[i], ctx + i, 1), 0);
	c.init_only = false;
	n = t_fail_each_alloc(init_op, init_check, &c, 20);
	assert_true(n >= 3); /* fences, array, one growth */
	for (int i = 0; i < 6; i++)
		assert_int_equal(nvl_kref_read(&c.deps[i]->refcount), 2);
	/* The job waits for all six. */
	assert_int_equal(nvl_sched_job_arm(&c.job), 0);
	{
		struct nvl_fence *f =
			nvl_fence_get(nvl_sched_job_finished(&c.job));

		nvl_sched_job_cleanup(&c.job); /* never pushed */
		assert_int_equal(nvl_fence_get_status(f), -ECANCELED);
		nvl_fence_put(f);
	}
	for (int i = 0; i < 6; i++) {
		assert_int_equal(nvl_kref_read(&c.deps[i]->refcount), 1);
		nvl_fence_put(c.deps[i]);
	}
	nvl_sched_entity_fini(&e);
	nvl_sched_null_destroy(ring);
}

static void dependencies_dedup_by_context_keeping_later(void **state)
{
	struct nvl_sched_null *ring = t_ring(4, 0, 0, NULL);
	struct nvl_sched_entity e;
	struct nvl_sched_null_job *j;
	uint64_t ctx = nvl_fence_context_alloc(1);
	struct nvl_fence *a, *b, *f;

	(void)state;
	t_entity(&e, NVL_SCHED_PRIO_NORMAL, ring);
	assert_int_equal(nvl_fence_create(&a, ctx, 1), 0);
	assert_int_equal(nvl_fence_create(&b, ctx, 2), 0);
	j = t_job(ring, &e, 1, 0, 0);
	assert_int_equal(
		nvl_sched_job_add_dependency(&j->base, nvl_fence_get(a)), 0);
	assert_int_equal(
		nvl_sched_job_add_dependency(&j->base, nvl_fence_get(b)), 0);
	assert_int_equal(
		nvl_sched_job_add_dependency(&j->base, nvl_fence_get(a)), 0);
	assert_int_equal(j->base.num_deps, 1);
	assert_ptr_equal(j->base.deps[0], b);
	assert_int_equal(nvl_sched_job_add_dependency(&j->base, NULL), -EINVAL);
	f = t_arm_push(j);
	nvl_fence_signal(a);
	t_sleep_ms(5);
	assert_false(nvl_fence_is_signaled(f));
	nvl_fence_signal(b);
	assert_int_equal(t_wait(f), 1);
	nvl_fence_put(f);
	nvl_fence_put(a);
	nvl_fence_put(b);
	nvl_sched_entity_fini(&e);
	nvl_sched_null_destroy(ring);
}

static void finished_fence_carries_the_job_error(void **state)
{
	struct nvl_sched_null *ring = t_ring(4, 0, 0, NULL);
	struct nvl_sched_entity e;
	struct nvl_sched_null_job *j;
	struct nvl_fence *f1, *f2, *f3, *f4;

	(void)state;
	t_entity(&e, NVL_SCHED_PRIO_NORMAL, ring);
	j = t_job(ring, &e, 1, 0, 1);
	j->fail = -EIO; /* hardware fence error, inline */
	f1 = t_arm_push(j);
	j = t_job(ring, &e, 1, 2 * NVL_NSEC_PER_MSEC, 2);
	j->fail = -EFAULT; /* from the completion thread */
	f2 = t_arm_push(j);
	j = t_job(ring, &e, 1, 0, 3);
	j->submit_error = -EINVAL; /* run_job returns NULL + error */
	f3 = t_arm_push(j);
	j = t_job(ring, &e, 1, NVL_NSEC_PER_MSEC, 4);
	f4 = t_arm_push(j);
	assert_int_equal(t_wait(f1), -EIO);
	assert_int_equal(t_wait(f2), -EFAULT);
	assert_int_equal(t_wait(f3), -EINVAL);
	assert_int_equal(t_wait(f4), 1);
	nvl_fence_put(f1);
	nvl_fence_put(f2);
	nvl_fence_put(f3);
	nvl_fence_put(f4);
	nvl_sched_entity_fini(&e);
	nvl_sched_null_destroy(ring);
}

static void idle_push_runs_directly_in_a_signalling_section(void **state)
{
	struct t_log log = {0};
	struct nvl_sched_null *ring = t_ring(4, 0, 0, &log);
	struct nvl_sched_null *ring2 =
		t_ring(4, 0, NVL_SCHED_NO_DIRECT_RUN, &log);
	struct nvl_sched_entity e, e2;
	struct nvl_fence *f;

	(void)state;
	t_entity(&e, NVL_SCHED_PRIO_NORMAL, ring);
	t_entity(&e2, NVL_SCHED_PRIO_NORMAL, ring2);
	f = t_arm_push(t_job(ring, &e, 1, 0, 1));
	/* Ran and completed before push returned, in this thread. */
	assert_int_equal(atomic_load(&log.n), 1);
	assert_true(pthread_equal(log.last_thread, pthread_self()));
	assert_int_equal(nvl_fence_get_status(f), 1);
	assert_false(nvl_fence_in_signalling());
	nvl_fence_put(f);

	f = t_arm_push(t_job(ring2, &e2, 1, 0, 2));
	assert_int_equal(t_wait(f), 1);
	assert_false(pthread_equal(log.last_thread, pthread_self()));
	assert_int_equal(atomic_load(&log.outside_section), 0);
	nvl_fence_put(f);
	nvl_sched_entity_fini(&e);
	nvl_sched_entity_fini(&e2);
	nvl_sched_null_destroy(ring);
	nvl_sched_null_destroy(ring2);
}

/*
 * A push while a direct run holds the run token (the token is given back
 * without the scheduler lock): the pusher cannot run its job and queues no
 * work itself, so the holder must look again when it lets go. A helper
 * thread pushes a job of another entity from inside the first job's
 * run_job(); without that second look the job would wait forever.
 */
struct handoff {
	struct t_log log;
	struct nvl_sched_null_job *j2;
	struct nvl_fence *f2;
	pthread_t run1; /* the thread that ran job 1 */
	atomic_int go, pushed, push_ret;
};

static void *push_on_go(void *arg)
{
	struct handoff *h = arg;

	while (!atomic_load(&h->go))
		t_sleep_ms(1);
	h->f2 = nvl_fence_get(nvl_sched_job_finished(&h->j2->base));
	atomic_store(&h->push_ret, nvl_sched_entity_push_job(&h->j2->base));
	atomic_store(&h->pushed, 1);
	return NULL;
}

static void handoff_hook(struct nvl_sched_null_job *job, void *arg)
{
	struct handoff *h = arg;
	int64_t until = nvl_time_ns() + 5 * NVL_NSEC_PER_SEC;

	t_log_hook(job, &h->log);
	if (job->tag != 1)
		return;
	h->run1 = pthread_self();
	atomic_store(&h->go, 1);
	while (!atomic_load(&h->pushed) && nvl_time_ns() < until)
		sched_yield();
}

static void push_during_a_direct_run_is_not_lost(void **state)
{
	struct handoff h = {0};
	struct nvl_sched_null_args a = {.credit_limit = 4,
					.name = "handoff",
					.on_run = handoff_hook,
					.on_run_arg = &h};
	struct nvl_sched_null *ring = NULL;
	struct nvl_sched_entity e, e2;
	struct nvl_fence *f1;
	pthread_t th;

	(void)state;
	assert_int_equal(nvl_sched_null_create(&a, &ring), 0);
	t_entity(&e, NVL_SCHED_PRIO_NORMAL, ring);
	t_entity(&e2, NVL_SCHED_PRIO_NORMAL, ring);
	h.j2 = t_job(ring, &e2, 1, 0, 2);
	assert_int_equal(nvl_sched_job_arm(&h.j2->base), 0);
	assert_int_equal(pthread_create(&th, NULL, push_on_go, &h), 0);
	/* runs directly here; job 2 is pushed while this run holds the
	 * token */
	f1 = t_arm_push(t_job(ring, &e, 1, 0, 1));
	assert_int_equal(atomic_load(&h.pushed), 1);
	assert_int_equal(atomic_load(&h.push_ret), 0);
	assert_int_equal(h.log.tags[0], 1);
	assert_true(pthread_equal(h.run1, pthread_self()));
	assert_int_equal(t_wait(f1), 1);
	assert_int_equal(t_wait(h.f2), 1);
	assert_int_equal(atomic_load(&h.log.n), 2);
	assert_int_equal(h.log.tags[1], 2);
	pthread_join(th, NULL);
	nvl_fence_put(f1);
	nvl_fence_put(h.f2);
	nvl_sched_entity_fini(&e);
	nvl_sched_entity_fini(&e2);
	nvl_sched_null_destroy(ring);
}

static NVL_LOCK_CLASS(taken_in_section_class, "test_taken_in_section", 0);
static NVL_LOCK_CLASS(plain_class, "test_plain", 0);

/*
 * The direct run holds the pusher's locks across its signalling section:
 * only where the checker proves none of them is ever taken inside one
 * (issue 15 item 8). A lock taken in a section elsewhere makes the push
 * hand the job to a worker instead.
 */
static void direct_run_only_where_the_checker_proves_it_safe(void **state)
{
	struct t_log log = {0};
	struct nvl_sched_null *ring = t_ring(4, 0, 0, &log);
	struct nvl_signalling_cookie c;
	struct nvl_sched_entity e;
	struct nvl_mutex in_sec, plain;
	struct nvl_sched_null_job *j;
	struct nvl_fence *f;

	(void)state;
	t_entity(&e, NVL_SCHED_PRIO_NORMAL, ring);
	nvl_mutex_init(&in_sec, &taken_in_section_class);
	nvl_mutex_init(&plain, &plain_class);
	/* somewhere, in_sec is taken inside a signalling section */
	c = nvl_fence_begin_signalling();
	nvl_mutex_lock(&in_sec);
	nvl_mutex_unlock(&in_sec);
	nvl_fence_end_signalling(c);

	/* holding a lock no section takes: still direct */
	nvl_mutex_lock(&plain);
	assert_true(nvl_checker_signalling_safe());
	f = t_arm_push(t_job(ring, &e, 1, 0, 1));
	assert_true(pthread_equal(log.last_thread, pthread_self()));
	assert_int_equal(nvl_fence_get_status(f), 1);
	nvl_mutex_unlock(&plain);
	nvl_fence_put(f);

	/* holding in_sec: a worker runs it (the job is made first: nothing
	 * may allocate under a lock that sections take) */
	j = t_job(ring, &e, 1, 0, 2);
	nvl_mutex_lock(&in_sec);
	assert_false(nvl_checker_signalling_safe());
	f = t_arm_push(j);
	nvl_mutex_unlock(&in_sec); /* not held while waiting */
	assert_int_equal(t_wait(f), 1);
	assert_false(pthread_equal(log.last_thread, pthread_self()));
	assert_int_equal(atomic_load(&log.outside_section), 0);
	nvl_fence_put(f);
	assert_true(nvl_checker_signalling_safe());
	assert_int_equal(nvl_checker_violations(), 0);
	nvl_mutex_destroy(&in_sec);
	nvl_mutex_destroy(&plain);
	nvl_sched_entity_fini(&e);
	nvl_sched_null_destroy(ring);
}

static void scheduled_signals_before_finished(void **state)
{
	struct nvl_sched_null *ring = t_ring(4, 0, 0, NULL);
	struct nvl_sched_entity e;
	struct nvl_sched_null_job *j;
	struct nvl_fence *s, *f;

	(void)state;
	t_entity(&e, NVL_SCHED_PRIO_NORMAL, ring);
	j = t_job(ring, &e, 1, 200 * NVL_NSEC_PER_MSEC, 0);
	assert_int_equal(nvl_sched_job_arm(&j->base), 0);
	s = nvl_fence_get(nvl_sched_job_scheduled(&j->base));
	f = nvl_fence_get(nvl_sched_job_finished(&j->base));
	assert_int_equal(s->context + 1, f->context);
	assert_int_equal(nvl_sched_entity_push_job(&j->base), 0);
	assert_int_equal(t_wait(s), 1);
	assert_false(nvl_fence_is_signaled(f));
	assert_int_equal(t_wait(f), 1);
	assert_true(nvl_fence_timestamp(s) <= nvl_fence_timestamp(f));
	nvl_fence_put(s);
	nvl_fence_put(f);
	nvl_sched_entity_fini(&e);
	nvl_sched_null_destroy(ring);
}

static void alloc_hook(struct nvl_sched_null_job *job, void *arg)
{
	(void)job;
	(void)arg;
	nvl_free(nvl_malloc(16)); /* forbidden in run_job() */
}

static void allocation_in_run_job_is_caught_by_the_checker(void **state)
{
	struct nvl_sched_null_args a = {
		.credit_limit = 2, .name = "bad", .on_run = alloc_hook};
	struct nvl_sched_null *ring;
	struct nvl_sched_entity e;
	enum nvl_checker_mode old = nvl_checker_set_mode(NVL_CHECKER_COUNT);
	unsigned long before = nvl_checker_violations();
	struct nvl_fence *f;
	char buf[512];

	(void)state;
	assert_int_equal(nvl_sched_null_create(&a, &ring), 0);
	t_entity(&e, NVL_SCHED_PRIO_NORMAL, ring);
	f = t_arm_push(t_job(ring, &e, 1, 0, 0));
	assert_int_equal(t_wait(f), 1);
	nvl_fence_put(f);
	nvl_sched_entity_fini(&e);
	nvl_sched_null_destroy(ring);
	assert_true(nvl_checker_violations() > before);
	nvl_checker_last_report(buf, sizeof(buf));
	assert_true(strlen(buf) > 0);
	nvl_checker_set_mode(old);
}

/*
 * A backend with kick(): the scheduler attaches the job's completion to
 * the hardware fence before the kick (the doorbell), so a job that the
 * "hardware" completes at once, on another thread, while the submitter is
 * still inside kick() (as the runlist thread does right after a doorbell
 * when it preempts the submitter) is completed entirely by that thread:
 * its finished fence signalled there, before push returns, without the
 * completing thread ever waiting for the submitter (which holds no lock
 * the completion takes: were it holding the scheduler's lock or the
 * fence's, the completer would block and kick() would time out here).
 * Deterministic: kick() hands the signal to the helper thread and waits
 * until the helper has seen the finished fence signalled. Both the direct
 * run (on the pushing thread) and a pool worker's run.
 */
struct kick_t {
	struct nvl_sched_job base;
	struct nvl_fence hw;
	pthread_t helper;
	atomic_int go, done, stop, kicks, attached_at_kick, frees;
	atomic_int runs, finished_in_kick, scheduled_at_kick, kick_out;
	atomic_uintptr_t cb_thread;
	struct nvl_fence *scheduled, *finished;
	struct nvl_fence_cb cb;
};

static struct kick_t *kick_cur;

static const char *kick_name(struct nvl_fence *f)
{
	(void)f;
	return "kick-test";
}

static void kick_release(struct nvl_fence *f)
{
	(void)f; /* embedded */
}

static const struct nvl_fence_ops kick_fence_ops = {
	.get_driver_name = kick_name,
	.get_timeline_name = kick_name,
	.release = kick_release,
};

static struct nvl_fence *kick_run(struct nvl_sched_job *job)
{
	struct kick_t *k = container_of(job, struct kick_t, base);

	atomic_fetch_add(&k->runs, 1);
	return nvl_fence_get(&k->hw);
}

static void kick_kick(struct nvl_sched *sched)
{
	struct kick_t *k = kick_cur;
	int64_t end = nvl_time_ns() + 5 * NVL_NSEC_PER_SEC;

	(void)sched;
	assert_true(nvl_fence_in_signalling());
	if (atomic_load(&k->hw.flags) & (1u << NVL_FENCE_FLAG_HAS_CB_BIT))
		atomic_fetch_add(&k->attached_at_kick, 1);
	if (nvl_fence_is_signaled(k->scheduled))
		atomic_fetch_add(&k->scheduled_at_kick, 1);
	atomic_fetch_add(&k->kicks, 1);
	atomic_store(&k->go, 1);
	/* the "hardware" completes the job now, on its own thread */
	while (!atomic_load(&k->done) && nvl_time_ns() < end)
		sched_yield();
	/* the job itself may be freed by now (the housekeeper) */
	if (atomic_load(&k->done) && nvl_fence_is_signaled(k->finished))
		atomic_fetch_add(&k->finished_in_kick, 1);
	atomic_store(&k->kick_out, 1);
}

static void kick_free(struct nvl_sched_job *job)
{
	struct kick_t *k = container_of(job, struct kick_t, base);

	nvl_sched_job_cleanup(job);
	atomic_fetch_add(&k->frees, 1);
}

static const struct nvl_sched_backend_ops kick_ops = {
	.run_job = kick_run,
	.kick = kick_kick,
	.free_job = kick_free,
};

static void *kick_helper(void *arg)
{
	struct kick_t *k = arg;

	while (!atomic_load(&k->go) && !atomic_load(&k->stop))
		sched_yield();
	if (atomic_load(&k->go)) {
		nvl_fence_signal(&k->hw);
		atomic_store(&k->done, 1);
	}
	return NULL;
}

static void kick_cb(struct nvl_fence *f, struct nvl_fence_cb *cb)
{
	struct kick_t *k = container_of(cb, struct kick_t, cb);

	(void)f;
	atomic_store(&k->cb_thread, (uintptr_t)pthread_self());
}

static void completion_before_kick_returns(uint32_t flags)
{
	struct nvl_sched_args a = {
		.ops = &kick_ops,
		.credit_limit = 4,
		.name = "kick",
		.flags = flags,
	};
	struct kick_t *k = calloc(1, sizeof(*k));
	struct nvl_sched_entity e;
	struct nvl_sched *sched;
	unsigned long before = nvl_checker_violations();
	struct nvl_fence *fin;

	assert_non_null(k);
	kick_cur = k;
	nvl_fence_init(&k->hw, &kick_fence_ops, nvl_fence_context_alloc(1), 1);
	assert_int_equal(pthread_create(&k->helper, NULL, kick_helper, k), 0);
	assert_int_equal(nvl_sched_create(&a, &sched), 0);
	assert_int_equal(
		nvl_sched_entity_init(&e, NVL_SCHED_PRIO_NORMAL, sched), 0);
	assert_int_equal(nvl_sched_job_init(&k->base, &e, 1, NULL), 0);
	assert_int_equal(nvl_sched_job_arm(&k->base), 0);
	fin = nvl_fence_get(nvl_sched_job_finished(&k->base));
	k->scheduled = nvl_fence_get(nvl_sched_job_scheduled(&k->base));
	k->finished = fin;
	assert_int_equal(nvl_fence_add_callback(fin, &k->cb, kick_cb), 0);
	assert_int_equal(nvl_sched_entity_push_job(&k->base), 0);
	if (!(flags & NVL_SCHED_NO_DIRECT_RUN)) {
		/* the direct run: kicked from this thread, done before push
		 * returned */
		assert_int_equal(atomic_load(&k->kicks), 1);
		assert_int_equal(nvl_fence_get_status(fin), 1);
	}
	assert_int_equal(t_wait(fin), 1);
	pthread_join(k->helper, NULL);
	/* a worker's kick() may still be on its way out */
	while (!atomic_load(&k->kick_out))
		sched_yield();
	assert_int_equal(atomic_load(&k->runs), 1);
	assert_int_equal(atomic_load(&k->kicks), 1);
	/* attached before the doorbell, completed inside it, by the helper */
	assert_int_equal(atomic_load(&k->attached_at_kick), 1);
	assert_int_equal(atomic_load(&k->finished_in_kick), 1);
	assert_true(pthread_equal((pthread_t)atomic_load(&k->cb_thread),
				  k->helper));
	/* scheduled signalled before the job went to the hardware */
	assert_int_equal(atomic_load(&k->scheduled_at_kick), 1);
	nvl_sched_entity_fini(&e);
	nvl_sched_destroy(sched);
	assert_int_equal(atomic_load(&k->frees), 1);
	nvl_fence_put(k->scheduled);
	nvl_fence_put(fin);
	assert_int_equal(nvl_checker_violations(), before);
	free(k);
}

static void job_completing_inside_kick_is_done_by_the_completer(void **state)
{
	(void)state;
	completion_before_kick_returns(0);
	completion_before_kick_returns(NVL_SCHED_NO_DIRECT_RUN);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(create_rejects_bad_arguments),
	cmocka_unit_test(create_survives_alloc_failures),
	cmocka_unit_test(entity_init_rejects_bad_priority),
	cmocka_unit_test(credits_over_limit_rejected_not_truncated),
	cmocka_unit_test(push_of_unarmed_job_fails),
	cmocka_unit_test(arming_twice_fails),
	cmocka_unit_test(push_to_killed_entity_fails_and_signals),
	cmocka_unit_test(job_init_and_dependencies_survive_alloc_failures),
	cmocka_unit_test(dependencies_dedup_by_context_keeping_later),
	cmocka_unit_test(finished_fence_carries_the_job_error),
	cmocka_unit_test(idle_push_runs_directly_in_a_signalling_section),
	cmocka_unit_test(direct_run_only_where_the_checker_proves_it_safe),
	cmocka_unit_test(push_during_a_direct_run_is_not_lost),
	cmocka_unit_test(scheduled_signals_before_finished),
	cmocka_unit_test(allocation_in_run_job_is_caught_by_the_checker),
	cmocka_unit_test(job_completing_inside_kick_is_done_by_the_completer),
};

T_MAIN(tests)

// SPDX-License-Identifier: MIT
/*
 * TEST: fence
 * Description: fence semantics: exactly-once signalling, errors, callbacks
 * (also racing signal/remove), waits and timeouts, producer ops, timestamps,
 * stub, ordering, release of unsignalled fences, allocation failures,
 * interruptible waits (-EINTR, fence untouched) and wait-any.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "t.h"
#include "base/cpufree.h"
#include "base/time.h"
#include "sync/checker.h"
#include "sync/fence.h"

static struct nvl_fence *mk(void)
{
	struct nvl_fence *f;

	assert_int_equal(nvl_fence_create(&f, nvl_fence_context_alloc(1), 1),
			 0);
	return f;
}

static void signal_is_exactly_once(void **state)
{
	struct nvl_fence *f = mk();

	assert_false(nvl_fence_is_signaled(f));
	assert_int_equal(nvl_fence_get_status(f), 0);
	assert_int_equal(nvl_fence_signal(f), 0);
	assert_int_equal(nvl_fence_signal(f), -EALREADY);
	assert_true(nvl_fence_is_signaled(f));
	assert_int_equal(nvl_fence_get_status(f), 1);
	nvl_fence_put(f);
}

static void error_set_before_signal_is_seen(void **state)
{
	struct nvl_fence *f = mk();

	nvl_fence_set_error(f, -EIO);
	assert_int_equal(nvl_fence_get_status(f), 0);
	nvl_fence_signal(f);
	assert_int_equal(nvl_fence_get_status(f), -EIO);
	/* after signalling, and bad values, are ignored */
	nvl_fence_set_error(f, -ENOMEM);
	assert_int_equal(nvl_fence_get_status(f), -EIO);
	nvl_fence_put(f);

	f = mk();
	nvl_fence_set_error(f, 5);
	nvl_fence_set_error(f, -100000);
	nvl_fence_signal(f);
	assert_int_equal(nvl_fence_get_status(f), 1);
	nvl_fence_put(f);
}

struct counter_cb {
	struct nvl_fence_cb cb;
	int runs;
	int status;
	bool saw_signaled;
};

static void count_cb(struct nvl_fence *f, struct nvl_fence_cb *cb)
{
	struct counter_cb *c = container_of(cb, struct counter_cb, cb);

	c->runs++;
	c->saw_signaled = nvl_fence_test_signaled_flag(f);
	c->status = nvl_fence_get_status(f);
}

static void callbacks_run_once_on_signal(void **state)
{
	struct nvl_fence *f = mk();
	struct counter_cb a = {0}, b = {0};

	assert_int_equal(nvl_fence_add_callback(f, &a.cb, count_cb), 0);
	assert_int_equal(nvl_fence_add_callback(f, &b.cb, count_cb), 0);
	assert_int_equal(a.runs, 0);
	nvl_fence_signal(f);
	assert_int_equal(a.runs, 1);
	assert_int_equal(b.runs, 1);
	assert_true(a.saw_signaled);
	nvl_fence_signal(f);
	assert_int_equal(a.runs, 1);
	/* removing after it ran says so */
	assert_false(nvl_fence_remove_callback(f, &a.cb));
	nvl_fence_put(f);
}

static void add_callback_to_signalled_fence_returns_enoent(void **state)
{
	struct nvl_fence *f = mk();
	struct counter_cb a = {0};

	nvl_fence_signal(f);
	assert_int_equal(nvl_fence_add_callback(f, &a.cb, count_cb), -ENOENT);
	assert_int_equal(a.runs, 0);
	assert_int_equal(nvl_fence_add_callback(NULL, &a.cb, count_cb),
			 -EINVAL);
	assert_int_equal(nvl_fence_add_callback(f, NULL, count_cb), -EINVAL);
	assert_int_equal(nvl_fence_add_callback(f, &a.cb, NULL), -EINVAL);
	nvl_fence_put(f);
}

static void removed_callback_does_not_run(void **state)
{
	struct nvl_fence *f = mk();
	struct counter_cb a = {0};

	assert_int_equal(nvl_fence_add_callback(f, &a.cb, count_cb), 0);
	assert_true(nvl_fence_remove_callback(f, &a.cb));
	assert_false(nvl_fence_remove_callback(f, &a.cb));
	nvl_fence_signal(f);
	assert_int_equal(a.runs, 0);
	nvl_fence_put(f);
}

struct race {
	struct nvl_fence *f;
	struct counter_cb cb;
	bool removed;
};

static void *race_signal(void *p)
{
	nvl_fence_signal(p);
	return NULL;
}

static void concurrent_signal_and_remove_runs_or_removes(void **state)
{
	int n = (int)(2000 * t_scale());

	for (int i = 0; i < n; i++) {
		struct race r = {.f = mk()};
		pthread_t t;

		assert_int_equal(
			nvl_fence_add_callback(r.f, &r.cb.cb, count_cb), 0);
		pthread_create(&t, NULL, race_signal, r.f);
		r.removed = nvl_fence_remove_callback(r.f, &r.cb.cb);
		pthread_join(t, NULL);
		/* exactly one of: removed (never ran) or ran once */
		assert_int_equal(r.cb.runs, r.removed ? 0 : 1);
		nvl_fence_put(r.f);
	}
}

struct multi {
	struct nvl_fence *f;
	atomic_int wins;
	pthread_barrier_t bar;
};

static void *multi_signal(void *p)
{
	struct multi *m = p;

	pthread_barrier_wait(&m->bar);
	if (nvl_fence_signal(m->f) == 0)
		atomic_fetch_add(&m->wins, 1);
	return NULL;
}

static void many_signallers_one_wins(void **state)
{
	for (int round = 0; round < 200; round++) {
		struct multi m = {.f = mk()};
		struct counter_cb c = {0};
		pthread_t t[4];

		pthread_barrier_init(&m.bar, NULL, 4);
		assert_int_equal(nvl_fence_add_callback(m.f, &c.cb, count_cb),
				 0);
		for (int i = 0; i < 4; i++)
			pthread_create(&t[i], NULL, multi_signal, &m);
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
		assert_int_equal(atomic_load(&m.wins), 1);
		assert_int_equal(c.runs, 1);
		pthread_barrier_destroy(&m.bar);
		nvl_fence_put(m.f);
	}
}

static void wait_times_out_with_etime(void **state)
{
	struct nvl_fence *f = mk();
	int64_t t0 = nvl_time_ns();

	assert_int_equal(nvl_fence_wait(f, 0), -ETIME);
	assert_int_equal(nvl_fence_wait(f, 20 * NVL_NSEC_PER_MSEC), -ETIME);
	assert_true(nvl_time_ns() - t0 >= 20 * NVL_NSEC_PER_MSEC);
	assert_int_equal(nvl_fence_wait(f, -1), -EINVAL);
	assert_int_equal(nvl_fence_wait_until(f, nvl_time_ns() - 1000), -ETIME);
	nvl_fence_signal(f);
	assert_int_equal(nvl_fence_wait(f, 0), 0);
	assert_int_equal(nvl_fence_wait(f, NVL_TIMEOUT_INFINITE), 0);
	nvl_fence_put(f);
}

static void *delayed_signal(void *p)
{
	usleep(10000);
	nvl_fence_set_error(p, -ECANCELED);
	nvl_fence_signal(p);
	return NULL;
}

static void waiter_is_woken_by_other_thread_and_sees_error(void **state)
{
	struct nvl_fence *f = mk();
	pthread_t t;

	pthread_create(&t, NULL, delayed_signal, f);
	assert_int_equal(nvl_fence_wait(f, NVL_TIMEOUT_INFINITE), 0);
	assert_int_equal(nvl_fence_get_status(f), -ECANCELED);
	pthread_join(t, NULL);
	nvl_fence_put(f);

	f = mk();
	pthread_create(&t, NULL, delayed_signal, f);
	assert_int_equal(nvl_fence_wait(f, 5 * NVL_NSEC_PER_SEC), 0);
	pthread_join(t, NULL);
	nvl_fence_put(f);
}

/* A producer with every op. */
struct prod {
	struct nvl_fence base;
	int enables, releases;
	bool enable_ret;
	bool hw_done;
	int64_t deadline;
};

static const char *prod_drv(struct nvl_fence *f)
{
	return "testdrv";
}

static const char *prod_tl(struct nvl_fence *f)
{
	return "ring0";
}

static bool prod_enable(struct nvl_fence *f)
{
	struct prod *p = container_of(f, struct prod, base);

	p->enables++;
	return p->enable_ret;
}

static bool prod_signaled(struct nvl_fence *f)
{
	return container_of(f, struct prod, base)->hw_done;
}

static void prod_deadline(struct nvl_fence *f, int64_t d)
{
	struct prod *p = container_of(f, struct prod, base);

	if (!p->deadline || d < p->deadline)
		p->deadline = d;
}

static void prod_release(struct nvl_fence *f)
{
	container_of(f, struct prod, base)->releases++;
}

static const struct nvl_fence_ops prod_ops = {
	.get_driver_name = prod_drv,
	.get_timeline_name = prod_tl,
	.enable_signaling = prod_enable,
	.signaled = prod_signaled,
	.set_deadline = prod_deadline,
	.release = prod_release,
};

static void producer_ops_are_called(void **state)
{
	struct prod p = {.enable_ret = true};
	struct counter_cb c = {0};

	nvl_fence_init(&p.base, &prod_ops, nvl_fence_context_alloc(1), 7);
	assert_string_equal(nvl_fence_driver_name(&p.base), "testdrv");
	assert_string_equal(nvl_fence_timeline_name(&p.base), "ring0");
	assert_int_equal(p.enables, 0);
	assert_int_equal(nvl_fence_add_callback(&p.base, &c.cb, count_cb), 0);
	assert_int_equal(p.enables, 1);
	nvl_fence_enable_sw_signaling(&p.base);
	assert_int_equal(p.enables, 1);
	nvl_fence_set_deadline(&p.base, 500);
	nvl_fence_set_deadline(&p.base, 300);
	nvl_fence_set_deadline(&p.base, 900);
	assert_int_equal(p.deadline, 300);
	/* signaled() polling completes the fence */
	assert_false(nvl_fence_is_signaled(&p.base));
	p.hw_done = true;
	assert_int_equal(nvl_fence_wait(&p.base, NVL_NSEC_PER_SEC), 0);
	assert_int_equal(c.runs, 1);
	nvl_fence_set_deadline(&p.base, 100);
	assert_int_equal(p.deadline, 300);
	nvl_fence_put(&p.base);
	assert_int_equal(p.releases, 1);
}

/*
 * Polling before sleeping (fence.c poll_signal()): a fence whose producer
 * completes it at the first peek after the wait began is caught by the poll
 * when a CPU is free (no WAITERS bit set: nobody slept, the signaller has
 * no one to wake) and by the sleep path when none is. Each wait runs in a
 * fresh thread, so its recent-wait average is the initial one.
 */
struct late_prod {
	struct nvl_fence base;
	atomic_int peeks;
	int done_at;
};

static bool late_signaled(struct nvl_fence *f)
{
	struct late_prod *p = container_of(f, struct late_prod, base);

	return atomic_fetch_add(&p->peeks, 1) + 1 >= p->done_at;
}

static void late_release(struct nvl_fence *f)
{
	/* on the test's stack */
}

static const struct nvl_fence_ops late_ops = {
	.signaled = late_signaled,
	.release = late_release,
};

struct late_wait {
	struct late_prod p;
	int ret;
	uint32_t flags;
};

static void *late_waiter(void *arg)
{
	struct late_wait *w = arg;

	w->ret = nvl_fence_wait(&w->p.base, 10 * NVL_NSEC_PER_SEC);
	w->flags = atomic_load(&w->p.base.flags);
	return NULL;
}

static void late_wait_run(struct late_wait *w)
{
	pthread_t t;

	nvl_fence_init(&w->p.base, &late_ops, nvl_fence_context_alloc(1), 1);
	/* the wait peeks twice before it polls or sleeps */
	w->p.done_at = 3;
	assert_int_equal(pthread_create(&t, NULL, late_waiter, w), 0);
	pthread_join(t, NULL);
	assert_int_equal(w->ret, 0);
	assert_int_equal(atomic_load(&w->p.peeks), 3);
	nvl_fence_put(&w->p.base);
}

static void wait_polls_when_a_cpu_is_free(void **state)
{
	struct late_wait polled = {0}, slept = {0};

	nvl_cpu_poll_test_set(2, 1);
	late_wait_run(&polled);
	assert_false(polled.flags & (1u << NVL_FENCE_FLAG_WAITERS_BIT));
	nvl_cpu_poll_test_set(2, 3);
	late_wait_run(&slept);
	assert_true(slept.flags & (1u << NVL_FENCE_FLAG_WAITERS_BIT));
	nvl_cpu_poll_test_set(-1, 0);
}

static void polling_wait_keeps_its_deadline(void **state)
{
	struct nvl_fence *f = mk();
	int64_t t0;

	nvl_cpu_poll_test_set(2, 1);
	t0 = nvl_time_ns();
	assert_int_equal(nvl_fence_wait(f, 30 * NVL_NSEC_PER_USEC), -ETIME);
	assert_true(nvl_time_ns() - t0 >= 30 * NVL_NSEC_PER_USEC);
	assert_false(nvl_fence_is_signaled(f));
	nvl_cpu_poll_test_set(-1, 0);
	nvl_fence_signal(f);
	nvl_fence_put(f);
}

static void enable_signaling_false_signals_at_once(void **state)
{
	struct prod p = {.enable_ret = false};
	struct counter_cb c = {0};

	nvl_fence_init(&p.base, &prod_ops, nvl_fence_context_alloc(1), 1);
	assert_int_equal(nvl_fence_add_callback(&p.base, &c.cb, count_cb),
			 -ENOENT);
	assert_true(nvl_fence_is_signaled(&p.base));
	assert_int_equal(c.runs, 0);
	nvl_fence_put(&p.base);
	assert_int_equal(p.releases, 1);
}

static void timestamps_are_kept(void **state)
{
	struct nvl_fence *f = mk();
	int64_t t0 = nvl_time_ns();

	assert_int_equal(nvl_fence_timestamp(f), 0);
	nvl_fence_signal(f);
	/* raw TSC stamps are converted: allow 1 us of rounding */
	assert_true(nvl_fence_timestamp(f) >= t0 - 1000);
	assert_true(nvl_fence_timestamp(f) <= nvl_time_ns() + 1000);
	nvl_fence_put(f);

	f = mk();
	nvl_fence_signal_timestamp(f, 12345);
	assert_int_equal(nvl_fence_timestamp(f), 12345);
	nvl_fence_put(f);
}

static void stub_is_signalled_context_zero(void **state)
{
	struct nvl_fence *s = nvl_fence_get_stub();
	uint64_t c1 = nvl_fence_context_alloc(3),
		 c2 = nvl_fence_context_alloc(1);

	assert_true(nvl_fence_is_signaled(s));
	assert_int_equal(s->context, 0);
	assert_int_equal(nvl_fence_get_status(s), 1);
	assert_int_equal(nvl_fence_signal(s), -EALREADY);
	nvl_fence_put(s);
	assert_true(c1 != 0);
	assert_int_equal(c2, c1 + 3);
}

static void ordering_is_wrap_aware_or_64bit(void **state)
{
	struct nvl_fence a, b, c, d;
	uint64_t ctx = nvl_fence_context_alloc(1);

	nvl_fence_init(&a, NULL, ctx, 0xfffffff0u);
	nvl_fence_init(&b, NULL, ctx, 0x10); /* wrapped: later */
	assert_true(nvl_fence_is_later(&b, &a));
	assert_false(nvl_fence_is_later(&a, &b));
	assert_true(nvl_fence_is_later_or_same(&a, &a));
	nvl_fence_init64(&c, NULL, ctx, 0xfffffff0u);
	nvl_fence_init64(&d, NULL, ctx, 0x1fffffff0ull);
	assert_true(nvl_fence_is_later(&d, &c));
	assert_false(nvl_fence_is_later(&c, &d));
	/* other context: warns, answers no */
	nvl_fence_init(&d, NULL, ctx + 1, 5);
	assert_false(nvl_fence_is_later(&d, &a));
}

static void
releasing_unsignalled_fence_with_callbacks_signals_edeadlk(void **state)
{
	struct nvl_fence *f = mk();
	struct counter_cb c = {0};
	assert_int_equal(nvl_fence_add_callback(f, &c.cb, count_cb), 0);
	nvl_fence_put(f);
	assert_int_equal(c.runs, 1);
	assert_int_equal(c.status, -EDEADLK);
}

static int create_op(void *arg)
{
	struct nvl_fence **out = arg;

	return nvl_fence_create(out, 1, 1);
}

static void check_nothing(int ret, void *arg)
{
	assert_int_equal(ret, -ENOMEM);
	assert_null(*(struct nvl_fence **)arg);
}

static void create_fails_cleanly_without_memory(void **state)
{
	struct nvl_fence *f = NULL;

	assert_int_equal(t_fail_each_alloc(create_op, check_nothing, &f, 10),
			 1);
	nvl_fence_put(f);
	assert_int_equal(nvl_fence_create(NULL, 1, 1), -EINVAL);
}

/* A deep cascade of callbacks signalling the next fence must not recurse. */
struct link {
	struct nvl_fence_cb cb;
	struct nvl_fence *next;
	struct nvl_fence_work work;
};

static void link_work(struct nvl_fence_work *w)
{
	struct link *l = container_of(w, struct link, work);

	nvl_fence_signal(l->next);
}

static void link_cb(struct nvl_fence *f, struct nvl_fence_cb *cb)
{
	struct link *l = container_of(cb, struct link, cb);

	l->work.fn = link_work;
	nvl_fence_defer(&l->work);
}

static void deferred_cascade_does_not_recurse(void **state)
{
	enum { N = 100000 };
	struct nvl_fence **f = calloc(N + 1, sizeof(*f));
	struct link *l = calloc(N, sizeof(*l));

	for (int i = 0; i <= N; i++)
		f[i] = mk();
	for (int i = 0; i < N; i++) {
		l[i].next = f[i + 1];
		assert_int_equal(
			nvl_fence_add_callback(f[i], &l[i].cb, link_cb), 0);
	}
	nvl_fence_signal(f[0]);
	assert_true(nvl_fence_is_signaled(f[N]));
	for (int i = 0; i <= N; i++)
		nvl_fence_put(f[i]);
	free(f);
	free(l);
}

static void callbacks_run_inside_signalling_section(void **state)
{
	struct nvl_fence *f = mk();
	struct counter_cb c = {0};

	assert_false(nvl_fence_in_signalling());
	assert_int_equal(nvl_fence_add_callback(f, &c.cb, count_cb), 0);
	nvl_fence_signal(f);
	assert_false(nvl_fence_in_signalling());
	nvl_fence_put(f);
}

/* ---- interruptible waits and wait-any ------------------------------- */

static void on_usr1(int sig)
{
	(void)sig;
}

/*
 * Install a SIGUSR1 handler with SA_RESTART (the hard case: the kernel
 * would restart an untimed futex wait) and return the old action.
 */
static struct sigaction usr1_install(void)
{
	struct sigaction sa = {.sa_handler = on_usr1, .sa_flags = SA_RESTART},
			 old;

	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
	return old;
}

struct intr_wait {
	struct nvl_fence *fences[12];
	uint32_t count, idx;
	bool any;
	int ret;
	atomic_bool done;
};

static void *intr_waiter(void *arg)
{
	struct intr_wait *w = arg;

	if (w->any)
		w->ret = nvl_fence_wait_any(
			w->fences, w->count, NVL_TIMEOUT_INFINITE,
			NVL_FENCE_WAIT_INTERRUPTIBLE, &w->idx);
	else
		w->ret =
			nvl_fence_wait_flags(w->fences[0], NVL_TIMEOUT_INFINITE,
					     NVL_FENCE_WAIT_INTERRUPTIBLE);
	atomic_store(&w->done, true);
	return NULL;
}

/* Signal @t every millisecond until @w is done (at most 5 s). */
static void interrupt_until_done(pthread_t t, struct intr_wait *w)
{
	for (int i = 0; i < 5000 && !atomic_load(&w->done); i++) {
		pthread_kill(t, SIGUSR1);
		usleep(1000);
	}
	pthread_join(t, NULL);
}

static void interruptible_wait_returns_eintr_fence_untouched(void **state)
{
	struct sigaction old = usr1_install();
	struct intr_wait w = {.count = 1};
	pthread_t t;

	w.fences[0] = mk();
	pthread_create(&t, NULL, intr_waiter, &w);
	interrupt_until_done(t, &w);
	assert_true(atomic_load(&w.done));
	assert_int_equal(w.ret, -EINTR);
	/* untouched: unsignalled, no error, still signals normally */
	assert_false(nvl_fence_is_signaled(w.fences[0]));
	assert_int_equal(nvl_fence_get_status(w.fences[0]), 0);
	assert_int_equal(nvl_fence_signal(w.fences[0]), 0);
	assert_int_equal(nvl_fence_wait_flags(w.fences[0], NVL_TIMEOUT_INFINITE,
					      NVL_FENCE_WAIT_INTERRUPTIBLE),
			 0);
	/* bad flags */
	assert_int_equal(nvl_fence_wait_flags(w.fences[0], 0, 0x80), -EINVAL);
	nvl_fence_put(w.fences[0]);
	sigaction(SIGUSR1, &old, NULL);
}

static void *plain_waiter(void *arg)
{
	struct intr_wait *w = arg;

	w->ret = nvl_fence_wait_flags(
		w->fences[0], nvl_deadline_after(30 * NVL_NSEC_PER_MSEC), 0);
	atomic_store(&w->done, true);
	return NULL;
}

static void plain_wait_is_not_interrupted(void **state)
{
	struct sigaction old = usr1_install();
	struct intr_wait w = {.count = 1};
	pthread_t t;

	w.fences[0] = mk();
	pthread_create(&t, NULL, plain_waiter, &w);
	interrupt_until_done(t, &w);
	/* signals arrived all along; without the flag the wait times out */
	assert_int_equal(w.ret, -ETIME);
	nvl_fence_signal(w.fences[0]);
	nvl_fence_put(w.fences[0]);
	sigaction(SIGUSR1, &old, NULL);
}

struct later_sig {
	struct nvl_fence *f;
	int delay_us;
};

static void *signal_fence_later(void *arg)
{
	struct later_sig *l = arg;

	usleep((useconds_t)l->delay_us);
	nvl_fence_signal(l->f);
	return NULL;
}

static void wait_any_reports_which_fence_signalled(void **state)
{
	struct nvl_fence *fs[12];
	struct later_sig l;
	uint32_t idx = 99;
	pthread_t t;

	for (int i = 0; i < 12; i++)
		fs[i] = mk();
	/* poll and timeout */
	assert_int_equal(nvl_fence_wait_any(fs, 3, 0, 0, &idx), -ETIME);
	assert_int_equal(
		nvl_fence_wait_any(fs, 3,
				   nvl_deadline_after(2 * NVL_NSEC_PER_MSEC), 0,
				   &idx),
		-ETIME);
	assert_int_equal(idx, 99);
	/* already signalled: the lowest signalled index */
	nvl_fence_signal(fs[2]);
	nvl_fence_signal(fs[1]);
	assert_int_equal(nvl_fence_wait_any(fs, 3, 0, 0, &idx), 0);
	assert_int_equal(idx, 1);
	/* one signalled while sleeping; 12 fences use the allocated path */
	l.f = fs[9];
	l.delay_us = 5000;
	pthread_create(&t, NULL, signal_fence_later, &l);
	assert_int_equal(
		nvl_fence_wait_any(fs + 3, 9, NVL_TIMEOUT_INFINITE, 0, &idx),
		0);
	pthread_join(t, NULL);
	assert_int_equal(idx, 6); /* fs[9] is entry 6 of fs + 3 */
	/* bad input */
	assert_int_equal(nvl_fence_wait_any(fs, 0, 0, 0, &idx), -EINVAL);
	assert_int_equal(nvl_fence_wait_any(NULL, 1, 0, 0, &idx), -EINVAL);
	assert_int_equal(nvl_fence_wait_any(fs, 1, 0, 0x40, &idx), -EINVAL);
	for (int i = 0; i < 12; i++) {
		nvl_fence_signal(fs[i]);
		nvl_fence_put(fs[i]);
	}
}

static void wait_any_allocation_failure(void **state)
{
	struct nvl_fence *fs[10];
	uint32_t idx = 77;

	for (int i = 0; i < 10; i++)
		fs[i] = mk();
	nvl_fault_fail_nth(1, NVL_FAULT_THIS_THREAD);
	assert_int_equal(
		nvl_fence_wait_any(
			fs, 10, nvl_deadline_after(NVL_NSEC_PER_MSEC), 0, &idx),
		-ENOMEM);
	assert_int_equal(idx, 77);
	/* nothing was left queued on any fence */
	for (int i = 0; i < 10; i++) {
		assert_int_equal(nvl_fence_signal(fs[i]), 0);
		nvl_fence_put(fs[i]);
	}
}

static void interruptible_wait_any_returns_eintr(void **state)
{
	struct sigaction old = usr1_install();
	struct intr_wait w = {.count = 10, .any = true, .idx = 55};
	pthread_t t;

	for (int i = 0; i < 10; i++)
		w.fences[i] = mk();
	pthread_create(&t, NULL, intr_waiter, &w);
	interrupt_until_done(t, &w);
	assert_int_equal(w.ret, -EINTR);
	assert_int_equal(w.idx, 55);
	for (int i = 0; i < 10; i++) {
		assert_int_equal(nvl_fence_get_status(w.fences[i]), 0);
		assert_int_equal(nvl_fence_signal(w.fences[i]), 0);
		nvl_fence_put(w.fences[i]);
	}
	sigaction(SIGUSR1, &old, NULL);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(interruptible_wait_returns_eintr_fence_untouched),
	cmocka_unit_test(plain_wait_is_not_interrupted),
	cmocka_unit_test(wait_any_reports_which_fence_signalled),
	cmocka_unit_test(wait_any_allocation_failure),
	cmocka_unit_test(interruptible_wait_any_returns_eintr),
	cmocka_unit_test(signal_is_exactly_once),
	cmocka_unit_test(error_set_before_signal_is_seen),
	cmocka_unit_test(callbacks_run_once_on_signal),
	cmocka_unit_test(add_callback_to_signalled_fence_returns_enoent),
	cmocka_unit_test(removed_callback_does_not_run),
	cmocka_unit_test(concurrent_signal_and_remove_runs_or_removes),
	cmocka_unit_test(many_signallers_one_wins),
	cmocka_unit_test(wait_times_out_with_etime),
	cmocka_unit_test(waiter_is_woken_by_other_thread_and_sees_error),
	cmocka_unit_test(producer_ops_are_called),
	cmocka_unit_test(wait_polls_when_a_cpu_is_free),
	cmocka_unit_test(polling_wait_keeps_its_deadline),
	cmocka_unit_test(enable_signaling_false_signals_at_once),
	cmocka_unit_test(timestamps_are_kept),
	cmocka_unit_test(stub_is_signalled_context_zero),
	cmocka_unit_test(ordering_is_wrap_aware_or_64bit),
	cmocka_unit_test(
		releasing_unsignalled_fence_with_callbacks_signals_edeadlk),
	cmocka_unit_test(create_fails_cleanly_without_memory),
	cmocka_unit_test(deferred_cascade_does_not_recurse),
	cmocka_unit_test(callbacks_run_inside_signalling_section),
};

T_MAIN(tests)

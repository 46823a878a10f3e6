// SPDX-License-Identifier: MIT
/*
 * TEST: checker
 * Description: every rule of the fence-signalling checker broken on purpose
 * (in COUNT mode) and its report checked: allocation, reclaim locks, reclaim,
 * waits (unbounded and bounded), blocking, lock-order inversions (plain, resv
 * in a section, lock held across a fence wait), WAIT_FOR_SUBMIT with locks
 * held; plus nesting with cookies (double end, end without a section,
 * outer before inner, another thread's cookie), waits that return at once
 * still recording their order edge, OFF mode, and ABORT really aborting;
 * and the steady-state acquisition (the held set against each class's known
 * predecessors) still reporting a known class in a new context.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t.h"
#include "base/time.h"
#include "sync/checker.h"
#include "sync/fence.h"

static char rep[8192];
static enum nvl_checker_mode saved;

static int setup(void **state)
{
	saved = nvl_checker_set_mode(NVL_CHECKER_COUNT);
	nvl_checker_reset();
	return 0;
}

static int teardown(void **state)
{
	nvl_checker_reset();
	nvl_checker_set_mode(saved);
	return 0;
}

static void expect_report(unsigned long n, const char *rule)
{
	assert_int_equal(nvl_checker_violations(), n);
	nvl_checker_last_report(rep, sizeof(rep));
	if (!strstr(rep, rule))
		fail_msg("report lacks rule %s:\n%s", rule, rep);
	assert_non_null(strstr(rep, "current stack:"));
	assert_non_null(strstr(rep, "#0 "));
}

static void allocation_in_section_is_reported(void **state)
{
	struct nvl_signalling_cookie c = nvl_fence_begin_signalling();
	void *p = nvl_malloc(48);

	nvl_fence_end_signalling(c);
	nvl_free(p);
	expect_report(1, "alloc-in-signalling");
	assert_non_null(strstr(rep, "48 bytes"));
	assert_non_null(strstr(rep, "signalling section entered at:"));
	/* outside: fine */
	p = nvl_malloc(48);
	nvl_free(p);
	assert_int_equal(nvl_checker_violations(), 1);
}

static void sections_nest_with_cookies(void **state)
{
	struct nvl_signalling_cookie outer = nvl_fence_begin_signalling();
	struct nvl_signalling_cookie inner = nvl_fence_begin_signalling();

	/* each begin opens its own section, with its own cookie */
	assert_true(outer.id != 0);
	assert_true(inner.id != 0);
	assert_true(outer.id != inner.id);
	nvl_fence_end_signalling(inner);
	assert_true(nvl_fence_in_signalling());
	nvl_fence_end_signalling(outer);
	assert_false(nvl_fence_in_signalling());
	assert_int_equal(nvl_checker_violations(), 0);
}

static void double_end_is_reported(void **state)
{
	struct nvl_signalling_cookie outer = nvl_fence_begin_signalling();
	struct nvl_signalling_cookie inner = nvl_fence_begin_signalling();

	nvl_fence_end_signalling(inner);
	nvl_fence_end_signalling(inner); /* ended twice, outer still open */
	expect_report(1, "signalling-end-twice");
	/* the second end closed nothing: outer is still open */
	assert_true(nvl_fence_in_signalling());
	nvl_fence_end_signalling(outer);
	assert_false(nvl_fence_in_signalling());
	assert_int_equal(nvl_checker_violations(), 1);
}

static void end_without_open_section_is_reported(void **state)
{
	struct nvl_signalling_cookie c = nvl_fence_begin_signalling();

	nvl_fence_end_signalling(c);
	nvl_fence_end_signalling(c); /* double end of the only section */
	expect_report(1, "signalling-end-without-section");
	assert_false(nvl_fence_in_signalling());
}

static void ending_outer_before_inner_is_reported(void **state)
{
	struct nvl_signalling_cookie outer = nvl_fence_begin_signalling();
	struct nvl_signalling_cookie inner = nvl_fence_begin_signalling();

	nvl_fence_end_signalling(outer);
	expect_report(1, "signalling-end-out-of-order");
	/* both are closed now; the late inner end is a second violation */
	assert_false(nvl_fence_in_signalling());
	nvl_fence_end_signalling(inner);
	expect_report(2, "signalling-end-without-section");
}

static void nesting_deeper_than_32_is_reported(void **state)
{
	struct nvl_signalling_cookie c[33];

	for (int i = 0; i < 33; i++)
		c[i] = nvl_fence_begin_signalling();
	expect_report(1, "signalling-nesting-too-deep");
	assert_true(c[32].id == 0); /* not opened: its end is ignored */
	for (int i = 32; i >= 0; i--)
		nvl_fence_end_signalling(c[i]);
	assert_false(nvl_fence_in_signalling());
	assert_int_equal(nvl_checker_violations(), 1);
}

static void *end_thread(void *arg)
{
	struct nvl_signalling_cookie mine = nvl_fence_begin_signalling();

	nvl_fence_end_signalling(*(struct nvl_signalling_cookie *)arg);
	nvl_fence_end_signalling(mine);
	return NULL;
}

static void ending_another_threads_section_is_reported(void **state)
{
	struct nvl_signalling_cookie c = nvl_fence_begin_signalling();
	pthread_t t;

	pthread_create(&t, NULL, end_thread, &c);
	pthread_join(t, NULL);
	expect_report(1, "signalling-end-foreign-cookie");
	assert_true(nvl_fence_in_signalling());
	nvl_fence_end_signalling(c);
	assert_int_equal(nvl_checker_violations(), 1);
}

/*
 * WARN, the release default, is the mode whose common begin and end take
 * the checker's fast path (the other tests run in COUNT, which records
 * full stacks and so never takes it): every section rule still holds.
 */
static void warn_mode_sections_keep_every_rule(void **state)
{
	struct nvl_signalling_cookie a, b, c;
	pthread_t t;
	void *p;

	nvl_checker_set_mode(NVL_CHECKER_WARN);
	a = nvl_fence_begin_signalling();
	assert_true(a.id != 0);
	assert_true(nvl_fence_in_signalling());
	p = nvl_malloc(16);
	nvl_free(p);
	expect_report(1, "alloc-in-signalling");
	assert_non_null(strstr(rep, "signalling section entered at:"));
	nvl_fence_end_signalling(a);
	assert_false(nvl_fence_in_signalling());
	nvl_fence_end_signalling(a);
	expect_report(2, "signalling-end-without-section");

	a = nvl_fence_begin_signalling();
	b = nvl_fence_begin_signalling();
	assert_true(b.id != 0 && a.id != b.id);
	nvl_fence_end_signalling(b);
	nvl_fence_end_signalling(b);
	expect_report(3, "signalling-end-twice");
	assert_true(nvl_fence_in_signalling());
	b = nvl_fence_begin_signalling();
	nvl_fence_end_signalling(a);
	expect_report(4, "signalling-end-out-of-order");
	assert_false(nvl_fence_in_signalling());

	c = nvl_fence_begin_signalling();
	pthread_create(&t, NULL, end_thread, &c);
	pthread_join(t, NULL);
	expect_report(5, "signalling-end-foreign-cookie");
	assert_true(nvl_fence_in_signalling());
	nvl_fence_end_signalling(c);
	assert_false(nvl_fence_in_signalling());
	/* a fresh section after all that is clean */
	a = nvl_fence_begin_signalling();
	nvl_fence_end_signalling(a);
	assert_int_equal(nvl_checker_violations(), 5);
}

static NVL_LOCK_CLASS(shrinker_class, "test_shrinker", NVL_LOCK_RECLAIM);
static NVL_LOCK_CLASS(a_class, "test_a", 0);
static NVL_LOCK_CLASS(b_class, "test_b", 0);
static NVL_LOCK_CLASS(c_class, "test_c", 0);

static void reclaim_lock_in_section_is_reported(void **state)
{
	struct nvl_mutex m;
	struct nvl_signalling_cookie c;

	nvl_mutex_init(&m, &shrinker_class);
	c = nvl_fence_begin_signalling();
	nvl_mutex_lock(&m);
	nvl_mutex_unlock(&m);
	nvl_fence_end_signalling(c);
	expect_report(1, "reclaim-lock-in-signalling");
	assert_non_null(strstr(rep, "test_shrinker"));
	nvl_mutex_destroy(&m);
}

static void reclaim_in_section_is_reported(void **state)
{
	struct nvl_signalling_cookie c = nvl_fence_begin_signalling();

	nvl_checker_reclaim_enter();
	nvl_checker_reclaim_leave();
	nvl_fence_end_signalling(c);
	expect_report(1, "reclaim-in-signalling");
}

/*
 * Inversions use different lock instances of the same classes for the two
 * orders: the checker works on classes (as lockdep does), and TSan, which
 * tracks instances, sees no real deadlock in the test itself.
 */
static void lock_pair(struct nvl_mutex *x, struct nvl_mutex *y)
{
	nvl_mutex_lock(x);
	nvl_mutex_lock(y);
	nvl_mutex_unlock(y);
	nvl_mutex_unlock(x);
}

static void lock_order_inversion_is_reported(void **state)
{
	struct nvl_mutex a, b, a2, b2;

	nvl_mutex_init(&a, &a_class);
	nvl_mutex_init(&b, &b_class);
	nvl_mutex_init(&a2, &a_class);
	nvl_mutex_init(&b2, &b_class);
	lock_pair(&a, &b);
	assert_int_equal(nvl_checker_violations(), 0);
	lock_pair(&b2, &a2);
	expect_report(1, "lock-order-inversion");
	assert_non_null(strstr(rep, "test_a"));
	assert_non_null(strstr(rep, "test_b"));
	assert_non_null(strstr(rep, "stack that established the reverse "
				    "order:"));
	/* reported once per pair */
	lock_pair(&b2, &a2);
	assert_int_equal(nvl_checker_violations(), 1);
	/* trylock records no order */
	nvl_checker_reset();
	nvl_mutex_lock(&a);
	assert_true(nvl_mutex_trylock(&b));
	nvl_mutex_unlock(&b);
	nvl_mutex_unlock(&a);
	lock_pair(&b2, &a2);
	assert_int_equal(nvl_checker_violations(), 0);
	nvl_mutex_destroy(&a);
	nvl_mutex_destroy(&b);
	nvl_mutex_destroy(&a2);
	nvl_mutex_destroy(&b2);
}

static void three_lock_cycle_is_reported(void **state)
{
	struct nvl_mutex a, b, c, a2, c2;

	nvl_mutex_init(&a, &a_class);
	nvl_mutex_init(&b, &b_class);
	nvl_mutex_init(&c, &c_class);
	nvl_mutex_init(&a2, &a_class);
	nvl_mutex_init(&c2, &c_class);
	lock_pair(&a, &b);
	lock_pair(&b, &c);
	assert_int_equal(nvl_checker_violations(), 0);
	lock_pair(&c2, &a2);
	expect_report(1, "lock-order-inversion");
	assert_non_null(strstr(rep, "via"));
	nvl_mutex_destroy(&a);
	nvl_mutex_destroy(&b);
	nvl_mutex_destroy(&c);
	nvl_mutex_destroy(&a2);
	nvl_mutex_destroy(&c2);
}

static void resv_lock_in_section_is_an_inversion(void **state)
{
	struct nvl_signalling_cookie c = nvl_fence_begin_signalling();

	nvl_checker_lock_acquire(&nvl_resv_lock_class, false);
	nvl_checker_lock_release(&nvl_resv_lock_class);
	nvl_fence_end_signalling(c);
	expect_report(1, "lock-order-inversion");
	assert_non_null(strstr(rep, "nvl_resv"));
	assert_non_null(strstr(rep, "fence_signalling"));
}

static void lock_held_while_allocating_then_taken_in_section(void **state)
{
	struct nvl_mutex a;
	void *p;
	struct nvl_signalling_cookie c;

	nvl_mutex_init(&a, &a_class);
	nvl_mutex_lock(&a);
	p = nvl_malloc(16); /* a -> reclaim */
	nvl_free(p);
	nvl_mutex_unlock(&a);
	assert_int_equal(nvl_checker_violations(), 0);
	c = nvl_fence_begin_signalling();
	nvl_mutex_lock(&a); /* fence_signalling -> a: closes the cycle */
	nvl_mutex_unlock(&a);
	nvl_fence_end_signalling(c);
	expect_report(1, "lock-order-inversion");
	nvl_mutex_destroy(&a);
}

static void lock_held_across_fence_wait_and_taken_in_signal_path(void **state)
{
	struct nvl_fence *f;
	struct nvl_mutex a;
	struct nvl_signalling_cookie c;

	nvl_mutex_init(&a, &a_class);
	c = nvl_fence_begin_signalling();
	nvl_mutex_lock(&a); /* the signal path takes a */
	nvl_mutex_unlock(&a);
	nvl_fence_end_signalling(c);
	assert_int_equal(nvl_fence_create(&f, nvl_fence_context_alloc(1), 1),
			 0);
	nvl_mutex_lock(&a);
	assert_int_equal(nvl_fence_wait(f, NVL_NSEC_PER_MSEC), -ETIME);
	nvl_mutex_unlock(&a);
	expect_report(1, "lock-order-inversion");
	nvl_fence_signal(f);
	nvl_fence_put(f);
	nvl_mutex_destroy(&a);
}

/*
 * The kernel annotates every fence wait on entry: a wait that returns at
 * once (already signalled) still records "held lock -> fence_signalling",
 * so the path that takes the lock inside a section is an inversion even
 * though no wait ever blocked.
 */
static void wait_on_signalled_fence_records_its_dependency(void **state)
{
	struct nvl_fence *f;
	struct nvl_mutex a;
	struct nvl_signalling_cookie c;

	nvl_mutex_init(&a, &a_class);
	assert_int_equal(nvl_fence_create(&f, nvl_fence_context_alloc(1), 1),
			 0);
	nvl_fence_signal(f);
	nvl_mutex_lock(&a);
	assert_int_equal(nvl_fence_wait(f, NVL_NSEC_PER_SEC), 0);
	nvl_mutex_unlock(&a);
	assert_int_equal(nvl_checker_violations(), 0);
	c = nvl_fence_begin_signalling();
	nvl_mutex_lock(&a); /* fence_signalling -> a: closes the cycle */
	nvl_mutex_unlock(&a);
	nvl_fence_end_signalling(c);
	expect_report(1, "lock-order-inversion");
	assert_non_null(strstr(rep, "test_a"));
	nvl_fence_put(f);
	nvl_mutex_destroy(&a);
}

/* Same for a poll (timeout 0) of an unsignalled fence. */
static void poll_records_its_dependency(void **state)
{
	struct nvl_fence *f;
	struct nvl_mutex b;
	struct nvl_signalling_cookie c;

	nvl_mutex_init(&b, &b_class);
	assert_int_equal(nvl_fence_create(&f, nvl_fence_context_alloc(1), 1),
			 0);
	nvl_mutex_lock(&b);
	assert_int_equal(nvl_fence_wait(f, 0), -ETIME);
	nvl_mutex_unlock(&b);
	assert_int_equal(nvl_checker_violations(), 0);
	c = nvl_fence_begin_signalling();
	nvl_mutex_lock(&b);
	nvl_mutex_unlock(&b);
	nvl_fence_end_signalling(c);
	expect_report(1, "lock-order-inversion");
	assert_non_null(strstr(rep, "test_b"));
	nvl_fence_signal(f);
	nvl_fence_put(f);
	nvl_mutex_destroy(&b);
}

static void waits_in_section_are_reported(void **state)
{
	struct nvl_fence *f;
	struct nvl_signalling_cookie c;

	assert_int_equal(nvl_fence_create(&f, nvl_fence_context_alloc(1), 1),
			 0);
	c = nvl_fence_begin_signalling();
	/* a poll does not block: fine */
	assert_int_equal(nvl_fence_wait(f, 0), -ETIME);
	assert_int_equal(nvl_checker_violations(), 0);
	assert_int_equal(nvl_fence_wait(f, NVL_NSEC_PER_MSEC), -ETIME);
	nvl_fence_end_signalling(c);
	expect_report(1, "blocking-wait-in-signalling");

	c = nvl_fence_begin_signalling();
	nvl_fence_might_wait(false);
	nvl_fence_end_signalling(c);
	expect_report(2, "unbounded-wait-in-signalling");

	c = nvl_fence_begin_signalling();
	nvl_might_block();
	nvl_fence_end_signalling(c);
	expect_report(3, "blocking-in-signalling");
	nvl_fence_signal(f);
	nvl_fence_put(f);
}

static void wait_for_submit_with_locks_held_is_reported(void **state)
{
	struct nvl_mutex a;

	nvl_mutex_init(&a, &a_class);
	nvl_checker_assert_no_locks("syncobj WAIT_FOR_SUBMIT");
	assert_int_equal(nvl_checker_violations(), 0);
	nvl_mutex_lock(&a);
	nvl_checker_assert_no_locks("syncobj WAIT_FOR_SUBMIT");
	nvl_mutex_unlock(&a);
	expect_report(1, "wait-for-submit-with-locks-held");
	assert_non_null(strstr(rep, "test_a"));
	assert_non_null(strstr(rep, "lock taken at:"));
	nvl_mutex_destroy(&a);
}

struct alloc_cb {
	struct nvl_fence_cb cb;
	void *p;
};

static void allocating_cb(struct nvl_fence *f, struct nvl_fence_cb *cb)
{
	container_of(cb, struct alloc_cb, cb)->p = nvl_malloc(8);
}

static void allocation_in_fence_callback_is_reported(void **state)
{
	struct nvl_fence *f;
	struct alloc_cb a = {0};

	assert_int_equal(nvl_fence_create(&f, nvl_fence_context_alloc(1), 1),
			 0);
	assert_int_equal(nvl_fence_add_callback(f, &a.cb, allocating_cb), 0);
	nvl_fence_signal(f);
	expect_report(1, "alloc-in-signalling");
	nvl_free(a.p);
	nvl_fence_put(f);
}

static void off_mode_checks_nothing(void **state)
{
	struct nvl_signalling_cookie c;
	void *p;

	nvl_checker_set_mode(NVL_CHECKER_OFF);
	c = nvl_fence_begin_signalling();
	assert_true(c.id == 0);
	p = nvl_malloc(8);
	nvl_free(p);
	nvl_fence_end_signalling(c);
	nvl_checker_set_mode(NVL_CHECKER_COUNT);
	assert_int_equal(nvl_checker_violations(), 0);
}

static void abort_mode_aborts(void **state)
{
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0) {
		struct nvl_signalling_cookie c;
		void *p;

		/* keep the child's stderr quiet */
		(void)!freopen("/dev/null", "w", stderr);
		nvl_checker_set_mode(NVL_CHECKER_ABORT);
		c = nvl_fence_begin_signalling();
		p = nvl_malloc(8);
		nvl_free(p);
		nvl_fence_end_signalling(c);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGABRT);
}

static void env_sets_the_mode(void **state)
{
	const char *env = getenv("NVL_CHECKER");

	if (env && !strcmp(env, "abort"))
		assert_int_equal(saved, NVL_CHECKER_ABORT);
	else if (!env)
		assert_int_equal(saved, NVL_CHECKER_WARN);
}

static void *section_thread(void *arg)
{
	struct nvl_signalling_cookie c = nvl_fence_begin_signalling();

	*(bool *)arg = nvl_fence_in_signalling();
	nvl_fence_end_signalling(c);
	return NULL;
}

static void sections_are_per_thread(void **state)
{
	struct nvl_signalling_cookie c = nvl_fence_begin_signalling();
	bool other = false;
	pthread_t t;
	void *p;

	pthread_create(&t, NULL, section_thread, &other);
	pthread_join(t, NULL);
	assert_true(other);
	assert_true(nvl_fence_in_signalling());
	nvl_fence_end_signalling(c);
	/* another thread's section does not cover this thread */
	p = nvl_malloc(8);
	nvl_free(p);
	assert_int_equal(nvl_checker_violations(), 0);
}

/*
 * The steady-state acquisition checks the whole held set against the
 * class's known predecessors (no per-class verdict is kept): an order
 * proven safe many times is checked again in every new context. Each
 * scenario runs in COUNT and in WARN (the release default); ABORT is
 * abort_mode_aborts_on_a_known_class_in_a_new_context.
 */
static NVL_LOCK_CLASS(d_class, "test_d", 0);
static NVL_LOCK_CLASS(e_class, "test_e", 0);

static void in_modes(void (*fn)(void))
{
	static const enum nvl_checker_mode modes[] = {NVL_CHECKER_COUNT,
						      NVL_CHECKER_WARN};

	for (unsigned i = 0; i < 2; i++) {
		nvl_checker_reset();
		nvl_checker_set_mode(modes[i]);
		fn();
	}
	nvl_checker_set_mode(NVL_CHECKER_COUNT);
}

static void safe_then_in_section(void)
{
	struct nvl_mutex a;
	struct nvl_signalling_cookie c;
	void *p;

	nvl_mutex_init(&a, &a_class);
	for (int i = 0; i < 100; i++) { /* known, checked on the fast path */
		nvl_mutex_lock(&a);
		nvl_mutex_unlock(&a);
	}
	nvl_mutex_lock(&a);
	p = nvl_malloc(16); /* a -> reclaim */
	nvl_free(p);
	nvl_mutex_unlock(&a);
	for (int i = 0; i < 100; i++) {
		nvl_mutex_lock(&a);
		nvl_mutex_unlock(&a);
	}
	assert_int_equal(nvl_checker_violations(), 0);
	c = nvl_fence_begin_signalling();
	nvl_mutex_lock(&a); /* new context: fence_signalling -> a */
	nvl_mutex_unlock(&a);
	nvl_fence_end_signalling(c);
	expect_report(1, "lock-order-inversion");
	assert_non_null(strstr(rep, "test_a"));
	nvl_mutex_destroy(&a);
}

static void known_class_taken_in_a_section_is_still_reported(void **state)
{
	in_modes(safe_then_in_section);
}

static void safe_then_under_a_new_lock(void)
{
	struct nvl_mutex a, b, c, d, d2, e;

	nvl_mutex_init(&a, &a_class);
	nvl_mutex_init(&b, &b_class);
	nvl_mutex_init(&c, &c_class);
	nvl_mutex_init(&d, &d_class);
	nvl_mutex_init(&d2, &d_class);
	nvl_mutex_init(&e, &e_class);
	/* d -> e: e is taken under d somewhere */
	lock_pair(&d, &e);
	/* d under a and b (and nested in itself): proven, then fast */
	for (int i = 0; i < 100; i++) {
		nvl_mutex_lock(&a);
		nvl_mutex_lock(&b);
		nvl_mutex_lock(&d);
		nvl_mutex_lock(&d2);
		nvl_mutex_unlock(&d2);
		nvl_mutex_unlock(&d);
		nvl_mutex_unlock(&b);
		nvl_mutex_unlock(&a);
	}
	/* c held as well is fine (no order against d yet) */
	nvl_mutex_lock(&c);
	lock_pair(&a, &d);
	nvl_mutex_unlock(&c);
	assert_int_equal(nvl_checker_violations(), 0);
	/* the same d under a, b and e: e -> d closes d -> e */
	nvl_mutex_lock(&a);
	nvl_mutex_lock(&b);
	nvl_mutex_lock(&e);
	nvl_mutex_lock(&d);
	nvl_mutex_unlock(&d);
	nvl_mutex_unlock(&e);
	nvl_mutex_unlock(&b);
	nvl_mutex_unlock(&a);
	expect_report(1, "lock-order-inversion");
	assert_non_null(strstr(rep, "taking 'test_d' while holding 'test_e'"));
	nvl_mutex_destroy(&a);
	nvl_mutex_destroy(&b);
	nvl_mutex_destroy(&c);
	nvl_mutex_destroy(&d);
	nvl_mutex_destroy(&d2);
	nvl_mutex_destroy(&e);
}

static void known_class_under_a_new_lock_is_still_reported(void **state)
{
	in_modes(safe_then_under_a_new_lock);
}

static void resv_known_then_in_section(void)
{
	struct nvl_signalling_cookie c;

	for (int i = 0; i < 100; i++) {
		nvl_checker_lock_acquire(&nvl_resv_lock_class, false);
		nvl_checker_lock_acquire(&nvl_resv_lock_class, false);
		nvl_checker_lock_release(&nvl_resv_lock_class);
		nvl_checker_lock_release(&nvl_resv_lock_class);
	}
	assert_int_equal(nvl_checker_violations(), 0);
	c = nvl_fence_begin_signalling();
	nvl_checker_lock_acquire(&nvl_resv_lock_class, false);
	nvl_checker_lock_release(&nvl_resv_lock_class);
	nvl_fence_end_signalling(c);
	expect_report(1, "lock-order-inversion");
	assert_non_null(strstr(rep, "nvl_resv"));
}

static void known_resv_in_a_section_is_still_reported(void **state)
{
	in_modes(resv_known_then_in_section);
}

/* the held set after nested and interleaved releases is exact */
static void nested_releases_leave_the_right_locks_held(void **state)
{
	struct nvl_mutex a, a2, b;

	nvl_mutex_init(&a, &a_class);
	nvl_mutex_init(&a2, &a_class);
	nvl_mutex_init(&b, &b_class);
	nvl_mutex_lock(&a);
	nvl_mutex_lock(&a2);
	nvl_mutex_lock(&b);
	nvl_mutex_unlock(&a); /* a2 still holds the class */
	nvl_checker_assert_no_locks("check");
	expect_report(1, "wait-for-submit-with-locks-held");
	assert_non_null(strstr(rep, "2 lock classes held: test_a, test_b"));
	nvl_mutex_unlock(&a2);
	nvl_checker_assert_no_locks("check");
	expect_report(2, "wait-for-submit-with-locks-held");
	assert_non_null(strstr(rep, "1 lock classes held: test_b"));
	nvl_mutex_unlock(&b);
	nvl_checker_assert_no_locks("check");
	assert_int_equal(nvl_checker_violations(), 2);
	assert_true(nvl_checker_signalling_safe());
	nvl_mutex_destroy(&a);
	nvl_mutex_destroy(&a2);
	nvl_mutex_destroy(&b);
}

/*
 * More classes than one word of the held bitmap: an inversion between two
 * classes past the first 64 ids, with 70 others held, is found, and the
 * held set empties again.
 */
#define NMANY 70
static struct nvl_lock_class many_class[NMANY];
static char many_name[NMANY][16];

static void many_held_classes_are_all_checked(void **state)
{
	struct nvl_mutex m[NMANY], x, y;

	for (int i = 0; i < NMANY; i++) {
		if (!many_class[i].name) {
			snprintf(many_name[i], sizeof(many_name[i]), "many%d",
				 i);
			many_class[i].name = many_name[i];
		}
		nvl_mutex_init(&m[i], &many_class[i]);
	}
	for (int r = 0; r < 3; r++) {
		for (int i = 0; i < NMANY; i++)
			nvl_mutex_lock(&m[i]);
		for (int i = NMANY - 1; i >= 0; i--)
			nvl_mutex_unlock(&m[i]);
	}
	assert_int_equal(nvl_checker_violations(), 0);
	assert_true(atomic_load(&many_class[NMANY - 1].id) > 64);
	/* the last two classes in the reverse order, the others held */
	nvl_mutex_init(&x, &many_class[NMANY - 1]);
	nvl_mutex_init(&y, &many_class[NMANY - 2]);
	for (int i = 0; i < NMANY - 2; i++)
		nvl_mutex_lock(&m[i]);
	lock_pair(&x, &y);
	for (int i = NMANY - 3; i >= 0; i--)
		nvl_mutex_unlock(&m[i]);
	expect_report(1, "lock-order-inversion");
	assert_non_null(strstr(rep, "taking 'many68' while holding 'many69'"));
	nvl_checker_assert_no_locks("check");
	assert_int_equal(nvl_checker_violations(), 1);
	for (int i = 0; i < NMANY; i++)
		nvl_mutex_destroy(&m[i]);
	nvl_mutex_destroy(&x);
	nvl_mutex_destroy(&y);
}

/* a reset forgets the edges, the fast path's known predecessors and the
 * classes known to be taken inside sections */
static void reset_forgets_what_the_fast_path_knew(void **state)
{
	struct nvl_mutex a, b, a2, b2;
	struct nvl_signalling_cookie c;

	nvl_mutex_init(&a, &a_class);
	nvl_mutex_init(&b, &b_class);
	nvl_mutex_init(&a2, &a_class);
	nvl_mutex_init(&b2, &b_class);
	for (int i = 0; i < 10; i++)
		lock_pair(&a, &b);
	c = nvl_fence_begin_signalling();
	nvl_mutex_lock(&b);
	nvl_mutex_unlock(&b);
	nvl_fence_end_signalling(c);
	nvl_mutex_lock(&b);
	assert_false(nvl_checker_signalling_safe());
	nvl_mutex_unlock(&b);
	assert_int_equal(nvl_checker_violations(), 0);
	nvl_checker_reset();
	nvl_mutex_lock(&b);
	assert_true(nvl_checker_signalling_safe());
	nvl_mutex_unlock(&b);
	lock_pair(&b2, &a2); /* the only order now */
	assert_int_equal(nvl_checker_violations(), 0);
	lock_pair(&a, &b);
	expect_report(1, "lock-order-inversion");
	nvl_mutex_destroy(&a);
	nvl_mutex_destroy(&b);
	nvl_mutex_destroy(&a2);
	nvl_mutex_destroy(&b2);
}

static void abort_mode_aborts_on_a_known_class_in_a_new_context(void **state)
{
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0) {
		struct nvl_signalling_cookie c;
		struct nvl_mutex a;

		(void)!freopen("/dev/null", "w", stderr);
		nvl_checker_set_mode(NVL_CHECKER_ABORT);
		nvl_mutex_init(&a, &a_class);
		nvl_mutex_lock(&a);
		nvl_fence_might_wait(true); /* a -> fence_signalling */
		nvl_mutex_unlock(&a);
		for (int i = 0; i < 100; i++) {
			nvl_mutex_lock(&a);
			nvl_mutex_unlock(&a);
		}
		c = nvl_fence_begin_signalling();
		nvl_mutex_lock(&a);
		nvl_mutex_unlock(&a);
		nvl_fence_end_signalling(c);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGABRT);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

static const struct CMUnitTest tests[] = {
	T(allocation_in_section_is_reported),
	T(sections_nest_with_cookies),
	T(double_end_is_reported),
	T(end_without_open_section_is_reported),
	T(ending_outer_before_inner_is_reported),
	T(ending_another_threads_section_is_reported),
	T(nesting_deeper_than_32_is_reported),
	T(wait_on_signalled_fence_records_its_dependency),
	T(poll_records_its_dependency),
	T(reclaim_lock_in_section_is_reported),
	T(reclaim_in_section_is_reported),
	T(lock_order_inversion_is_reported),
	T(three_lock_cycle_is_reported),
	T(resv_lock_in_section_is_an_inversion),
	T(lock_held_while_allocating_then_taken_in_section),
	T(lock_held_across_fence_wait_and_taken_in_signal_path),
	T(waits_in_section_are_reported),
	T(wait_for_submit_with_locks_held_is_reported),
	T(allocation_in_fence_callback_is_reported),
	T(off_mode_checks_nothing),
	T(abort_mode_aborts),
	T(env_sets_the_mode),
	T(sections_are_per_thread),
	T(warn_mode_sections_keep_every_rule),
	T(known_class_taken_in_a_section_is_still_reported),
	T(known_class_under_a_new_lock_is_still_reported),
	T(known_resv_in_a_section_is_still_reported),
	T(nested_releases_leave_the_right_locks_held),
	T(many_held_classes_are_all_checked),
	T(reset_forgets_what_the_fast_path_knew),
	T(abort_mode_aborts_on_a_known_class_in_a_new_context),
};

T_MAIN(tests)

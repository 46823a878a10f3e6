// SPDX-License-Identifier: MIT
/*
 * TEST: resv
 * Description: reservation objects: usage ordering of queries, same-context
 * replacement, signalled-slot recycling, reserve-before-add (and its lapse),
 * replace_fences, snapshots, test/wait with timeouts, ww locking rules
 * (-EALREADY, -EDEADLK + lock_slow), allocation failures.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nouvelle/core.h>

#include "t.h"
#include "base/log.h"
#include "base/time.h"
#include "sync/checker.h"
#include "sync/fence_array.h"
#include "sync/resv.h"

static struct nvl_fence *mkf(uint64_t ctx, uint64_t seqno)
{
	struct nvl_fence *f;

	assert_int_equal(nvl_fence_create(&f, ctx, seqno), 0);
	return f;
}

static unsigned count_usage(struct nvl_resv *r, enum nvl_resv_usage u)
{
	struct nvl_resv_iter it;
	struct nvl_fence *f;
	unsigned n = 0;

	nvl_resv_for_each_fence (&it, r, u, f) {
		assert_true(it.fence_usage <= u);
		n++;
	}
	return n;
}

static void queries_return_fences_up_to_usage(void **state)
{
	struct nvl_resv r;
	struct nvl_fence *f[4];

	nvl_resv_init(&r);
	assert_int_equal(nvl_resv_lock(&r, NULL), 0);
	assert_int_equal(nvl_resv_reserve_fences(&r, 4), 0);
	for (int i = 0; i < 4; i++) {
		f[i] = mkf(nvl_fence_context_alloc(1), 1);
		nvl_resv_add_fence(&r, f[i], (enum nvl_resv_usage)i);
	}
	assert_int_equal(count_usage(&r, NVL_RESV_USAGE_KERNEL), 1);
	assert_int_equal(count_usage(&r, NVL_RESV_USAGE_WRITE), 2);
	assert_int_equal(count_usage(&r, NVL_RESV_USAGE_READ), 3);
	assert_int_equal(count_usage(&r, NVL_RESV_USAGE_BOOKKEEP), 4);
	nvl_resv_unlock(&r);
	assert_int_equal(nvl_resv_usage_rw(true), NVL_RESV_USAGE_READ);
	assert_int_equal(nvl_resv_usage_rw(false), NVL_RESV_USAGE_WRITE);

	/* test/wait by usage: only the KERNEL one signalled */
	nvl_fence_signal(f[0]);
	assert_int_equal(nvl_resv_test_signaled(&r, NVL_RESV_USAGE_KERNEL), 1);
	assert_int_equal(nvl_resv_test_signaled(&r, NVL_RESV_USAGE_WRITE), 0);
	assert_int_equal(nvl_resv_wait(&r, NVL_RESV_USAGE_KERNEL, 0), 0);
	assert_int_equal(nvl_resv_wait(&r, NVL_RESV_USAGE_WRITE, 0), -ETIME);
	assert_int_equal(
		nvl_resv_wait(&r, NVL_RESV_USAGE_READ, 5 * NVL_NSEC_PER_MSEC),
		-ETIME);
	assert_int_equal(nvl_resv_wait(&r, NVL_RESV_USAGE_READ, -1), -EINVAL);
	nvl_fence_signal(f[1]);
	nvl_fence_signal(f[2]);
	assert_int_equal(nvl_resv_test_signaled(&r, NVL_RESV_USAGE_READ), 1);
	assert_int_equal(nvl_resv_test_signaled(&r, NVL_RESV_USAGE_BOOKKEEP),
			 0);
	nvl_fence_signal(f[3]);
	assert_int_equal(nvl_resv_wait(&r, NVL_RESV_USAGE_BOOKKEEP,
				       NVL_TIMEOUT_INFINITE),
			 0);
	for (int i = 0; i < 4; i++)
		nvl_fence_put(f[i]);
	nvl_resv_fini(&r);
}

static void same_context_later_fence_replaces_older(void **state)
{
	uint64_t ctx = nvl_fence_context_alloc(1);
	struct nvl_fence *a = mkf(ctx, 1), *b = mkf(ctx, 2), *c = mkf(ctx, 3);
	struct nvl_fence *x = mkf(nvl_fence_context_alloc(1), 1);
	struct nvl_resv r;

	nvl_resv_init(&r);
	assert_int_equal(nvl_resv_lock(&r, NULL), 0);
	assert_int_equal(nvl_resv_reserve_fences(&r, 1), 0);
	nvl_resv_add_fence(&r, a, NVL_RESV_USAGE_READ);
	assert_int_equal(nvl_resv_reserve_fences(&r, 1), 0);
	nvl_resv_add_fence(&r, b, NVL_RESV_USAGE_READ); /* replaces a */
	assert_int_equal(count_usage(&r, NVL_RESV_USAGE_BOOKKEEP), 1);
	/* same fence again: no extra slot */
	nvl_resv_add_fence(&r, b, NVL_RESV_USAGE_READ);
	assert_int_equal(count_usage(&r, NVL_RESV_USAGE_BOOKKEEP), 1);
	/* a write of the same context replaces the read (promotion) */
	assert_int_equal(nvl_resv_reserve_fences(&r, 1), 0);
	nvl_resv_add_fence(&r, c, NVL_RESV_USAGE_WRITE);
	assert_int_equal(count_usage(&r, NVL_RESV_USAGE_WRITE), 1);
	assert_int_equal(count_usage(&r, NVL_RESV_USAGE_BOOKKEEP), 1);
	/* other context adds a slot */
	assert_int_equal(nvl_resv_reserve_fences(&r, 1), 0);
	nvl_resv_add_fence(&r, x, NVL_RESV_USAGE_BOOKKEEP);
	assert_int_equal(count_usage(&r, NVL_RESV_USAGE_BOOKKEEP), 2);
	/* replace_fences swaps the context's fence and usage */
	assert_int_equal(nvl_resv_replace_fences(&r, x->context, a,
						 NVL_RESV_USAGE_KERNEL),
			 0);
	assert_int_equal(count_usage(&r, NVL_RESV_USAGE_KERNEL), 1);
	nvl_resv_unlock(&r);
	nvl_fence_put(a);
	nvl_fence_put(b);
	nvl_fence_put(c);
	nvl_fence_put(x);
	nvl_resv_fini(&r);
}

static void signalled_slots_are_recycled(void **state)
{
	struct nvl_resv r;

	nvl_resv_init(&r);
	assert_int_equal(nvl_resv_lock(&r, NULL), 0);
	for (int i = 0; i < 100; i++) {
		struct nvl_fence *f = mkf(nvl_fence_context_alloc(1), 1);

		assert_int_equal(nvl_resv_reserve_fences(&r, 1), 0);
		nvl_resv_add_fence(&r, f, NVL_RESV_USAGE_BOOKKEEP);
		nvl_fence_signal(f);
		nvl_fence_put(f);
	}
	assert_true(r.num <= 2);
	nvl_resv_unlock(&r);
	nvl_resv_fini(&r);
}

static void reservation_lapses_on_unlock(void **state)
{
	struct nvl_resv r;
	struct nvl_fence *f = mkf(nvl_fence_context_alloc(1), 1);

	nvl_resv_init(&r);
	assert_int_equal(nvl_resv_lock(&r, NULL), 0);
	assert_int_equal(nvl_resv_reserve_fences(&r, 2), 0);
	assert_int_equal(r.usable, 2);
	nvl_resv_unlock(&r);
	assert_int_equal(r.usable, 0);
	assert_int_equal(nvl_resv_lock(&r, NULL), 0);
	assert_int_equal(nvl_resv_reserve_fences(&r, 1), 0);
	nvl_resv_add_fence(&r, f, NVL_RESV_USAGE_WRITE);
	assert_int_equal(r.num, 1);
	nvl_resv_unlock(&r);
	nvl_fence_put(f);
	nvl_resv_fini(&r);
}

/*
 * add_fence on a resv that is not reserved (lock not held, or no slot
 * reserved under this hold) returns an error in every build, changes
 * nothing and says why; today's void add_fence only asserted in debug
 * builds and went on (or dropped the fence silently) in release builds.
 */
static void add_fence_on_unreserved_resv_fails(void **state)
{
	struct nvl_resv r;
	struct nvl_fence *f = mkf(nvl_fence_context_alloc(1), 1);
	struct nvl_fence *g = mkf(nvl_fence_context_alloc(1), 1);
	struct nvl_fence **arr = nvl_malloc(sizeof(*arr));
	struct nvl_fence_array *a;

	nvl_resv_init(&r);
	/* lock not held */
	assert_int_equal(nvl_resv_add_fence(&r, f, NVL_RESV_USAGE_WRITE),
			 -EPERM);
	assert_non_null(strstr(nvl_last_error(), "lock"));
	assert_int_equal(r.num, 0);
	/* held, but the reservation lapsed with the previous unlock */
	assert_int_equal(nvl_resv_lock(&r, NULL), 0);
	assert_int_equal(nvl_resv_reserve_fences(&r, 1), 0);
	assert_int_equal(nvl_resv_add_fence(&r, f, NVL_RESV_USAGE_WRITE), 0);
	nvl_resv_unlock(&r);
	assert_int_equal(nvl_resv_lock(&r, NULL), 0);
	assert_int_equal(nvl_resv_add_fence(&r, g, NVL_RESV_USAGE_READ),
			 -ENOSPC);
	assert_non_null(strstr(nvl_last_error(), "reserved"));
	assert_int_equal(r.num, 1);
	assert_ptr_equal(r.fences[0].fence, f);
	/* a container, a bad usage, NULLs */
	assert_non_null(arr);
	arr[0] = nvl_fence_get(f);
	assert_int_equal(nvl_fence_array_create(1, arr,
						nvl_fence_context_alloc(1), 1,
						false, &a),
			 0);
	assert_int_equal(nvl_resv_reserve_fences(&r, 1), 0);
	assert_int_equal(nvl_resv_add_fence(&r, &a->base, NVL_RESV_USAGE_READ),
			 -EINVAL);
	assert_int_equal(nvl_resv_add_fence(&r, g, (enum nvl_resv_usage)9),
			 -EINVAL);
	assert_int_equal(nvl_resv_add_fence(&r, NULL, NVL_RESV_USAGE_READ),
			 -EINVAL);
	assert_int_equal(nvl_resv_add_fence(NULL, g, NVL_RESV_USAGE_READ),
			 -EINVAL);
	assert_int_equal(r.num, 1);
	/* with the slot reserved it works */
	assert_int_equal(nvl_resv_add_fence(&r, g, NVL_RESV_USAGE_READ), 0);
	assert_int_equal(r.num, 2);
	nvl_resv_unlock(&r);
	nvl_fence_signal(f);
	nvl_fence_signal(g);
	nvl_fence_put(&a->base);
	nvl_fence_put(f);
	nvl_fence_put(g);
	nvl_resv_fini(&r);
}

/*
 * replace_fences, get_fences, test_signaled and wait refuse bad input
 * with -EINVAL (-EPERM for replace_fences without the lock) and a
 * message, and change nothing: replace_fences was void (a NULL
 * replacement was stored, a container or any usage value too), and the
 * readers took any usage value (get_fences snapshotted by it, test_signaled
 * answered "signalled" for a usage above BOOKKEEP's fences).
 */
static void bad_arguments_are_refused_and_change_nothing(void **state)
{
	uint64_t ctx = nvl_fence_context_alloc(1);
	struct nvl_fence *f = mkf(ctx, 1);
	struct nvl_fence *g = mkf(nvl_fence_context_alloc(1), 1);
	struct nvl_fence **arr = nvl_malloc(sizeof(*arr));
	struct nvl_fence **got;
	struct nvl_fence_array *a;
	struct nvl_resv r;
	unsigned n = 7;

	nvl_resv_init(&r);
	assert_int_equal(nvl_resv_lock(&r, NULL), 0);
	assert_int_equal(nvl_resv_reserve_fences(&r, 1), 0);
	assert_int_equal(nvl_resv_add_fence(&r, f, NVL_RESV_USAGE_WRITE), 0);
	assert_non_null(arr);
	arr[0] = nvl_fence_get(g);
	assert_int_equal(nvl_fence_array_create(1, arr,
						nvl_fence_context_alloc(1), 1,
						false, &a),
			 0);
	/* replace_fences: NULLs, a container, a bad usage */
	assert_int_equal(
		nvl_resv_replace_fences(&r, ctx, NULL, NVL_RESV_USAGE_READ),
		-EINVAL);
	assert_non_null(strstr(nvl_last_error(), "NULL"));
	assert_int_equal(
		nvl_resv_replace_fences(NULL, ctx, g, NVL_RESV_USAGE_READ),
		-EINVAL);
	assert_int_equal(
		nvl_resv_replace_fences(&r, ctx, &a->base, NVL_RESV_USAGE_READ),
		-EINVAL);
	assert_non_null(strstr(nvl_last_error(), "container"));
	assert_int_equal(
		nvl_resv_replace_fences(&r, ctx, g, (enum nvl_resv_usage)9),
		-EINVAL);
	assert_non_null(strstr(nvl_last_error(), "usage"));
	assert_int_equal(
		nvl_resv_replace_fences(&r, ctx, g, (enum nvl_resv_usage) - 1),
		-EINVAL);
	assert_int_equal(r.num, 1);
	assert_ptr_equal(r.fences[0].fence, f);
	assert_int_equal(r.fences[0].usage, NVL_RESV_USAGE_WRITE);
	nvl_resv_unlock(&r);
	/* without the lock */
	assert_int_equal(
		nvl_resv_replace_fences(&r, ctx, g, NVL_RESV_USAGE_READ),
		-EPERM);
	assert_non_null(strstr(nvl_last_error(), "lock"));
	assert_ptr_equal(r.fences[0].fence, f);
	assert_int_equal(r.fences[0].usage, NVL_RESV_USAGE_WRITE);

	/* the readers: a bad usage is no query */
	got = arr; /* stale: must come back NULL */
	assert_int_equal(
		nvl_resv_get_fences(&r, (enum nvl_resv_usage)9, &n, &got),
		-EINVAL);
	assert_non_null(strstr(nvl_last_error(), "usage"));
	assert_int_equal(n, 0);
	assert_null(got);
	assert_int_equal(
		nvl_resv_get_fences(NULL, NVL_RESV_USAGE_READ, &n, &got),
		-EINVAL);
	assert_int_equal(
		nvl_resv_get_fences(&r, NVL_RESV_USAGE_READ, NULL, &got),
		-EINVAL);
	assert_int_equal(nvl_resv_test_signaled(&r, (enum nvl_resv_usage)9),
			 -EINVAL);
	assert_non_null(strstr(nvl_last_error(), "usage"));
	assert_int_equal(nvl_resv_test_signaled(NULL, NVL_RESV_USAGE_READ),
			 -EINVAL);
	assert_int_equal(nvl_resv_wait(&r, (enum nvl_resv_usage) - 1, 0),
			 -EINVAL);
	assert_int_equal(nvl_resv_wait(NULL, NVL_RESV_USAGE_READ, 0), -EINVAL);
	/* good input: the kernel's semantics */
	assert_int_equal(nvl_resv_test_signaled(&r, NVL_RESV_USAGE_KERNEL), 1);
	assert_int_equal(nvl_resv_test_signaled(&r, NVL_RESV_USAGE_WRITE), 0);
	assert_int_equal(nvl_resv_lock(&r, NULL), 0);
	assert_int_equal(
		nvl_resv_replace_fences(&r, ctx, g, NVL_RESV_USAGE_BOOKKEEP),
		0);
	/* a context with no fence here: nothing to do */
	assert_int_equal(
		nvl_resv_replace_fences(&r, ctx + 1000, f, NVL_RESV_USAGE_READ),
		0);
	nvl_resv_unlock(&r);
	assert_ptr_equal(r.fences[0].fence, g);
	assert_int_equal(nvl_resv_test_signaled(&r, NVL_RESV_USAGE_READ), 1);
	assert_int_equal(nvl_resv_test_signaled(&r, NVL_RESV_USAGE_BOOKKEEP),
			 0);
	nvl_fence_signal(f);
	nvl_fence_signal(g);
	nvl_fence_put(&a->base);
	nvl_fence_put(f);
	nvl_fence_put(g);
	nvl_resv_fini(&r);
}

static NVL_LOCK_CLASS(waiter_class, "test_resv_waiter", 0);

/*
 * A resv wait records "held -> fence_signalling" on entry, like every
 * fence wait (the kernel's might_wait), even when nothing is pending and it
 * returns at once: a lock held across it and also taken inside a
 * signalling section is then reported the first time, not only once the
 * wait happens to sleep.
 */
static void resv_wait_records_its_dependency_when_empty(void **state)
{
	enum nvl_checker_mode m = nvl_checker_set_mode(NVL_CHECKER_COUNT);
	struct nvl_signalling_cookie c;
	struct nvl_mutex a;
	struct nvl_resv r;

	nvl_checker_reset();
	nvl_mutex_init(&a, &waiter_class);
	nvl_resv_init(&r);
	nvl_mutex_lock(&a);
	assert_int_equal(
		nvl_resv_wait(&r, NVL_RESV_USAGE_BOOKKEEP, NVL_NSEC_PER_SEC),
		0);
	nvl_mutex_unlock(&a);
	assert_int_equal(nvl_checker_violations(), 0);
	c = nvl_fence_begin_signalling();
	nvl_mutex_lock(&a);
	nvl_mutex_unlock(&a);
	nvl_fence_end_signalling(c);
	assert_int_equal(nvl_checker_violations(), 1);
	nvl_resv_fini(&r);
	nvl_mutex_destroy(&a);
	nvl_checker_reset();
	nvl_checker_set_mode(m);
}

static int reserve_op(void *arg)
{
	return nvl_resv_reserve_fences(arg, 64);
}

static void reserve_check(int ret, void *arg)
{
	struct nvl_resv *r = arg;

	assert_int_equal(ret, -ENOMEM);
	assert_int_equal(r->usable, r->num);
}

static void reserve_fails_cleanly_without_memory(void **state)
{
	struct nvl_resv r;

	nvl_resv_init(&r);
	assert_int_equal(nvl_resv_lock(&r, NULL), 0);
	assert_int_equal(t_fail_each_alloc(reserve_op, reserve_check, &r, 5),
			 1);
	assert_true(r.max >= 64);
	nvl_resv_unlock(&r);
	nvl_resv_fini(&r);
}

struct snap {
	struct nvl_resv *r;
	unsigned n;
	struct nvl_fence **fences;
};

static int snap_op(void *arg)
{
	struct snap *s = arg;

	return nvl_resv_get_fences(s->r, NVL_RESV_USAGE_READ, &s->n,
				   &s->fences);
}

static void snap_check(int ret, void *arg)
{
	struct snap *s = arg;

	assert_int_equal(ret, -ENOMEM);
	assert_int_equal(s->n, 0);
	assert_null(s->fences);
}

static void snapshot_takes_references(void **state)
{
	struct nvl_resv r;
	struct nvl_fence *f[3], *single;
	struct snap s = {.r = &r};

	nvl_resv_init(&r);
	assert_int_equal(nvl_resv_lock(&r, NULL), 0);
	assert_int_equal(nvl_resv_reserve_fences(&r, 3), 0);
	for (int i = 0; i < 3; i++) {
		f[i] = mkf(nvl_fence_context_alloc(1), 1);
		nvl_resv_add_fence(&r, f[i],
				   i == 2 ? NVL_RESV_USAGE_BOOKKEEP
					  : NVL_RESV_USAGE_READ);
	}
	nvl_resv_unlock(&r);
	assert_int_equal(t_fail_each_alloc(snap_op, snap_check, &s, 5), 1);
	assert_int_equal(s.n, 2);
	for (unsigned i = 0; i < s.n; i++) {
		assert_int_equal(nvl_kref_read(&s.fences[i]->refcount), 3);
		nvl_fence_put(s.fences[i]);
	}
	nvl_free(s.fences);

	/* singleton: an array of the two READ-or-lower fences */
	assert_int_equal(
		nvl_resv_get_singleton(&r, NVL_RESV_USAGE_READ, &single), 0);
	assert_true(nvl_fence_is_array(single));
	assert_false(nvl_fence_is_signaled(single));
	nvl_fence_signal(f[0]);
	nvl_fence_signal(f[1]);
	assert_int_equal(nvl_fence_wait(single, NVL_NSEC_PER_SEC), 0);
	nvl_fence_put(single);
	assert_int_equal(
		nvl_resv_get_singleton(&r, NVL_RESV_USAGE_KERNEL, &single), 0);
	assert_null(single);
	for (int i = 0; i < 3; i++)
		nvl_fence_put(f[i]);
	nvl_resv_fini(&r);
}

static void ww_rules_ealready_and_backoff(void **state)
{
	struct nvl_resv a, b;
	struct nvl_ww_acquire_ctx old_ctx, young_ctx;

	nvl_resv_init(&a);
	nvl_resv_init(&b);
	nvl_resv_acquire_init(&old_ctx);
	nvl_resv_acquire_init(&young_ctx);
	assert_true(old_ctx.stamp < young_ctx.stamp);
	assert_int_equal(nvl_resv_lock(&a, &young_ctx), 0);
	assert_int_equal(nvl_resv_lock(&a, &young_ctx), -EALREADY);
	/* wounded by an older context: the next contended lock backs off */
	assert_int_equal(nvl_resv_lock(&b, &old_ctx), 0);
	atomic_store(&young_ctx.wounded, true);
	assert_int_equal(nvl_resv_lock(&b, &young_ctx), -EDEADLK);
	nvl_resv_unlock(&a);
	nvl_resv_unlock(&b);
	nvl_resv_lock_slow(&b, &young_ctx);
	assert_int_equal(nvl_resv_lock(&a, &young_ctx), 0);
	nvl_resv_assert_held(&a);
	assert_false(nvl_resv_trylock(&a));
	nvl_resv_unlock(&a);
	nvl_resv_unlock(&b);
	nvl_ww_acquire_fini(&young_ctx);
	nvl_ww_acquire_fini(&old_ctx);
	assert_true(nvl_resv_trylock(&a));
	nvl_resv_unlock(&a);
	nvl_resv_fini(&a);
	nvl_resv_fini(&b);
}

static void *delayed_signal(void *p)
{
	usleep(5000);
	nvl_fence_signal(p);
	return NULL;
}

static void wait_is_woken_by_signal_without_the_lock(void **state)
{
	struct nvl_resv r;
	struct nvl_fence *f = mkf(nvl_fence_context_alloc(1), 1);
	pthread_t t;

	nvl_resv_init(&r);
	assert_int_equal(nvl_resv_lock(&r, NULL), 0);
	assert_int_equal(nvl_resv_reserve_fences(&r, 1), 0);
	nvl_resv_add_fence(&r, f, NVL_RESV_USAGE_WRITE);
	nvl_resv_unlock(&r);
	pthread_create(&t, NULL, delayed_signal, f);
	assert_int_equal(
		nvl_resv_wait(&r, NVL_RESV_USAGE_READ, 5 * NVL_NSEC_PER_SEC),
		0);
	pthread_join(t, NULL);
	nvl_fence_put(f);
	nvl_resv_fini(&r);
}

static void add_fence_after_reserve_is_allowed_in_signalling(void **state)
{
	struct nvl_resv r;
	struct nvl_fence *f = mkf(nvl_fence_context_alloc(1), 1);
	unsigned long before;
	struct nvl_signalling_cookie cookie;

	nvl_resv_init(&r);
	assert_int_equal(nvl_resv_lock(&r, NULL), 0);
	assert_int_equal(nvl_resv_reserve_fences(&r, 1), 0);
	/* the fence is installed: from here on it is a signalling section */
	before = nvl_alloc_count();
	cookie = nvl_fence_begin_signalling();
	nvl_resv_add_fence(&r, f, NVL_RESV_USAGE_BOOKKEEP);
	nvl_resv_unlock(&r);
	nvl_fence_signal(f);
	nvl_fence_end_signalling(cookie);
	assert_int_equal(nvl_alloc_count(), before);
	assert_int_equal(nvl_resv_test_signaled(&r, NVL_RESV_USAGE_BOOKKEEP),
			 1);
	nvl_fence_put(f);
	nvl_resv_fini(&r);
}

/*
 * A resv that never held a fence answers a snapshot without its flock and
 * without allocating (issue 19: a bind peeks at every BO's KERNEL fences).
 */
static void empty_snapshot_allocates_nothing(void **state)
{
	struct nvl_resv r;
	struct nvl_fence *f = mkf(nvl_fence_context_alloc(1), 1);
	struct nvl_fence **v = (struct nvl_fence **)&r;
	unsigned long before;
	unsigned n = 99;

	nvl_resv_init(&r);
	before = nvl_alloc_count();
	assert_int_equal(
		nvl_resv_get_fences(&r, NVL_RESV_USAGE_BOOKKEEP, &n, &v), 0);
	assert_int_equal(n, 0);
	assert_null(v);
	assert_int_equal(nvl_alloc_count(), before);
	/* a KERNEL query of a resv with only a later usage: still none */
	assert_int_equal(nvl_resv_lock(&r, NULL), 0);
	assert_int_equal(nvl_resv_reserve_fences(&r, 1), 0);
	nvl_resv_add_fence(&r, f, NVL_RESV_USAGE_READ);
	nvl_resv_unlock(&r);
	assert_int_equal(nvl_resv_get_fences(&r, NVL_RESV_USAGE_KERNEL, &n, &v),
			 0);
	assert_int_equal(n, 0);
	assert_null(v);
	assert_int_equal(nvl_resv_get_fences(&r, NVL_RESV_USAGE_READ, &n, &v),
			 0);
	assert_int_equal(n, 1);
	assert_ptr_equal(v[0], f);
	nvl_fence_put(v[0]);
	nvl_free(v);
	nvl_fence_put(f);
	nvl_resv_fini(&r);
}

struct adder {
	struct nvl_resv *r;
	struct nvl_fence *f;
};

static void *add_one(void *p)
{
	struct adder *a = p;

	if (nvl_resv_lock(a->r, NULL) || nvl_resv_reserve_fences(a->r, 1))
		abort();
	nvl_resv_add_fence(a->r, a->f, NVL_RESV_USAGE_KERNEL);
	nvl_resv_unlock(a->r);
	return NULL;
}

/*
 * The lock-free empty check against a concurrent add (run under TSan in
 * the concurrency suite): the reader sees nothing or the whole entry.
 */
static void empty_check_races_cleanly_with_an_add(void **state)
{
	for (int round = 0; round < 50; round++) {
		struct nvl_resv r;
		struct adder a = {.r = &r,
				  .f = mkf(nvl_fence_context_alloc(1), 1)};
		struct nvl_fence **v;
		unsigned n = 0;
		pthread_t t;

		nvl_resv_init(&r);
		assert_int_equal(pthread_create(&t, NULL, add_one, &a), 0);
		/* bounded: the adder finishes whatever the scheduling */
		for (long i = 0; i < 1000000 && !n; i++) {
			assert_int_equal(
				nvl_resv_get_fences(&r, NVL_RESV_USAGE_KERNEL,
						    &n, &v),
				0);
			if (!n)
				assert_null(v);
		}
		pthread_join(t, NULL);
		if (!n)
			assert_int_equal(
				nvl_resv_get_fences(&r, NVL_RESV_USAGE_KERNEL,
						    &n, &v),
				0);
		assert_int_equal(n, 1);
		assert_ptr_equal(v[0], a.f);
		nvl_fence_put(v[0]);
		nvl_free(v);
		nvl_fence_put(a.f);
		nvl_resv_fini(&r);
	}
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(add_fence_after_reserve_is_allowed_in_signalling),
	cmocka_unit_test(add_fence_on_unreserved_resv_fails),
	cmocka_unit_test(resv_wait_records_its_dependency_when_empty),
	cmocka_unit_test(queries_return_fences_up_to_usage),
	cmocka_unit_test(same_context_later_fence_replaces_older),
	cmocka_unit_test(signalled_slots_are_recycled),
	cmocka_unit_test(reservation_lapses_on_unlock),
	cmocka_unit_test(reserve_fails_cleanly_without_memory),
	cmocka_unit_test(snapshot_takes_references),
	cmocka_unit_test(ww_rules_ealready_and_backoff),
	cmocka_unit_test(wait_is_woken_by_signal_without_the_lock),
	cmocka_unit_test(empty_snapshot_allocates_nothing),
	cmocka_unit_test(empty_check_races_cleanly_with_an_add),
	cmocka_unit_test(bad_arguments_are_refused_and_change_nothing),
};

T_MAIN(tests)

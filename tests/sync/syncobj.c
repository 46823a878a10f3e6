// SPDX-License-Identifier: MIT
/*
 * TEST: syncobj
 * Description: syncobj uAPI with the kernel's semantics: handles from 1,
 * create/destroy/signal/reset (all-or-nothing), waits (all/any with the
 * first-signalled index, absolute timeouts, -EINVAL for missing fences,
 * WAIT_FOR_SUBMIT, WAIT_AVAILABLE, snapshots), timeline signal/query
 * (prefix rule, LAST_SUBMITTED, unordered points), transfer binary <->
 * timeline, driver helpers, bad input, allocation failures;
 * FOR_SUBMIT waiters keeping the first fence across a reset (uAPI and
 * driver path), interruptible waits, TRANSFER flattening.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nouvelle/core.h>

#include "t.h"
#include "base/client.h"
#include "base/log.h"
#include "base/time.h"
#include "sync/checker.h"
#include "sync/fence_array.h"
#include "sync/syncobj.h"

static struct nvl_client *client(void)
{
	struct nvl_client *c;

	assert_int_equal(nvl_client_create(&c), 0);
	return c;
}

static uint32_t mk(struct nvl_client *c, uint32_t flags)
{
	uint32_t h = 0;

	assert_int_equal(nvl_syncobj_create(c, flags, &h), 0);
	assert_true(h >= 1);
	return h;
}

static int64_t in_ms(int ms)
{
	return nvl_time_ns() + ms * NVL_NSEC_PER_MSEC;
}

static void create_destroy_and_bad_input(void **state)
{
	struct nvl_client *c = client();
	uint32_t h = 0, first = 99;

	assert_int_equal(nvl_syncobj_create(c, 0, &h), 0);
	assert_int_equal(h, 1);
	assert_int_equal(nvl_syncobj_create(c, 0x80, &h), -EINVAL);
	assert_int_equal(nvl_syncobj_create(NULL, 0, &h), -EINVAL);
	assert_int_equal(nvl_syncobj_create(c, 0, NULL), -EINVAL);
	assert_int_equal(nvl_syncobj_destroy(c, 1), 0);
	assert_int_equal(nvl_syncobj_destroy(c, 1), -EINVAL);
	assert_int_equal(nvl_syncobj_destroy(c, 0), -EINVAL);
	assert_int_equal(nvl_syncobj_destroy(c, 77), -EINVAL);
	h = 5;
	/* unknown handles, bad flags, zero counts */
	assert_int_equal(nvl_syncobj_wait(c, &h, NULL, 1, 0, 0, &first),
			 -ENOENT);
	h = mk(c, 0);
	assert_int_equal(nvl_syncobj_wait(c, &h, NULL, 1, 0, 0x100, &first),
			 -EINVAL);
	assert_int_equal(nvl_syncobj_wait(c, &h, NULL, 0, 0, 0, &first), 0);
	assert_int_equal(nvl_syncobj_reset(c, &h, 0), -EINVAL);
	assert_int_equal(nvl_syncobj_signal(c, &h, 0), -EINVAL);
	assert_int_equal(nvl_syncobj_signal(c, NULL, 1), -EINVAL);
	assert_int_equal(nvl_syncobj_query(c, &h, NULL, 1, 0), -EINVAL);
	nvl_client_destroy(c);
}

static void wait_on_no_fence_is_einval_even_if_other_signalled(void **state)
{
	struct nvl_client *c = client();
	uint32_t h[2] = {mk(c, NVL_SYNCOBJ_CREATE_SIGNALED), mk(c, 0)};
	uint32_t first = 99;

	assert_int_equal(nvl_syncobj_wait(c, h, NULL, 2, 0, 0, &first),
			 -EINVAL);
	assert_int_equal(first, 99);
	/* the signalled one alone */
	assert_int_equal(nvl_syncobj_wait(c, h, NULL, 1, 0, 0, &first), 0);
	assert_int_equal(first, 0);
	nvl_client_destroy(c);
}

static void wait_any_reports_first_signalled_index(void **state)
{
	struct nvl_client *c = client();
	uint32_t h[4], first = 99;
	struct nvl_fence *f[4];

	for (int i = 0; i < 4; i++) {
		struct nvl_syncobj *o;

		h[i] = mk(c, 0);
		assert_int_equal(
			nvl_fence_create(&f[i], nvl_fence_context_alloc(1), 1),
			0);
		o = nvl_syncobj_find(c, h[i]);
		nvl_syncobj_replace_fence(o, f[i]);
		nvl_syncobj_put(o);
	}
	assert_int_equal(nvl_syncobj_wait(c, h, NULL, 4, in_ms(2), 0, &first),
			 -ETIME);
	nvl_fence_signal(f[2]);
	assert_int_equal(
		nvl_syncobj_wait(c, h, NULL, 4, in_ms(1000), 0, &first), 0);
	assert_int_equal(first, 2);
	nvl_fence_signal(f[3]);
	nvl_fence_signal(f[1]);
	assert_int_equal(nvl_syncobj_wait(c, h, NULL, 4, 0, 0, &first), 0);
	assert_int_equal(first, 1);
	assert_int_equal(
		nvl_syncobj_wait(c, h, NULL, 4, 0, NVL_SYNCOBJ_WAIT_ALL, NULL),
		-ETIME);
	nvl_fence_signal(f[0]);
	assert_int_equal(
		nvl_syncobj_wait(c, h, NULL, 4, 0, NVL_SYNCOBJ_WAIT_ALL, NULL),
		0);
	for (int i = 0; i < 4; i++)
		nvl_fence_put(f[i]);
	nvl_client_destroy(c);
}

static void timeout_in_the_past_polls(void **state)
{
	struct nvl_client *c = client();
	uint32_t h = mk(c, 0), s = mk(c, NVL_SYNCOBJ_CREATE_SIGNALED);
	struct nvl_syncobj *o = nvl_syncobj_find(c, h);
	struct nvl_fence *f;
	int64_t t0 = nvl_time_ns();

	assert_int_equal(nvl_fence_create(&f, nvl_fence_context_alloc(1), 1),
			 0);
	nvl_syncobj_replace_fence(o, f);
	assert_int_equal(
		nvl_syncobj_wait(c, &h, NULL, 1, t0 - 1000000, 0, NULL),
		-ETIME);
	assert_int_equal(nvl_syncobj_wait(c, &h, NULL, 1, -5, 0, NULL), -ETIME);
	assert_true(nvl_time_ns() - t0 < NVL_NSEC_PER_SEC);
	assert_int_equal(nvl_syncobj_wait(c, &s, NULL, 1, 0, 0, NULL), 0);
	nvl_fence_signal(f);
	nvl_fence_put(f);
	nvl_syncobj_put(o);
	nvl_client_destroy(c);
}

static void reset_and_signal_are_all_or_nothing(void **state)
{
	struct nvl_client *c = client();
	uint32_t h[3] = {mk(c, NVL_SYNCOBJ_CREATE_SIGNALED),
			 mk(c, NVL_SYNCOBJ_CREATE_SIGNALED), 999};

	assert_int_equal(nvl_syncobj_reset(c, h, 3), -ENOENT);
	assert_int_equal(
		nvl_syncobj_wait(c, h, NULL, 2, 0, NVL_SYNCOBJ_WAIT_ALL, NULL),
		0);
	assert_int_equal(nvl_syncobj_reset(c, h, 2), 0);
	assert_int_equal(nvl_syncobj_wait(c, h, NULL, 1, 0, 0, NULL), -EINVAL);
	assert_int_equal(nvl_syncobj_signal(c, h, 3), -ENOENT);
	assert_int_equal(nvl_syncobj_wait(c, h, NULL, 1, 0, 0, NULL), -EINVAL);
	assert_int_equal(nvl_syncobj_signal(c, h, 2), 0);
	assert_int_equal(
		nvl_syncobj_wait(c, h, NULL, 2, 0, NVL_SYNCOBJ_WAIT_ALL, NULL),
		0);
	nvl_client_destroy(c);
}

struct later {
	struct nvl_client *c;
	uint32_t h;
	uint64_t point;
	int delay_us;
};

static void *signal_later(void *p)
{
	struct later *l = p;

	usleep((useconds_t)l->delay_us);
	if (l->point)
		nvl_syncobj_timeline_signal(l->c, &l->h, &l->point, 1);
	else
		nvl_syncobj_signal(l->c, &l->h, 1);
	return NULL;
}

static void wait_for_submit_waits_for_the_fence(void **state)
{
	struct nvl_client *c = client();
	struct later l = {.c = c, .h = mk(c, 0), .delay_us = 10000};
	pthread_t t;

	assert_int_equal(nvl_syncobj_wait(c, &l.h, NULL, 1, in_ms(2),
					  NVL_SYNCOBJ_WAIT_FOR_SUBMIT, NULL),
			 -ETIME);
	pthread_create(&t, NULL, signal_later, &l);
	assert_int_equal(nvl_syncobj_wait(c, &l.h, NULL, 1, in_ms(5000),
					  NVL_SYNCOBJ_WAIT_FOR_SUBMIT, NULL),
			 0);
	pthread_join(t, NULL);
	nvl_client_destroy(c);
}

static void timeline_points_not_yet_submitted(void **state)
{
	struct nvl_client *c = client();
	struct later l = {.c = c, .h = mk(c, 0), .point = 5, .delay_us = 10000};
	uint64_t p = 5, q;
	pthread_t t;

	/* without FOR_SUBMIT: -EINVAL at once */
	assert_int_equal(nvl_syncobj_wait(c, &l.h, &p, 1, in_ms(1000), 0, NULL),
			 -EINVAL);
	/* with it: waits for submission and signal */
	pthread_create(&t, NULL, signal_later, &l);
	assert_int_equal(nvl_syncobj_wait(c, &l.h, &p, 1, in_ms(5000),
					  NVL_SYNCOBJ_WAIT_FOR_SUBMIT, NULL),
			 0);
	pthread_join(t, NULL);
	assert_int_equal(nvl_syncobj_query(c, &l.h, &q, 1, 0), 0);
	assert_int_equal(q, 5);
	/* a lower point is already complete */
	p = 3;
	assert_int_equal(nvl_syncobj_wait(c, &l.h, &p, 1, 0, 0, NULL), 0);
	/* a higher one is not submitted: -EINVAL, or -ETIME when waiting */
	p = 9;
	assert_int_equal(nvl_syncobj_wait(c, &l.h, &p, 1, 0, 0, NULL), -EINVAL);
	assert_int_equal(nvl_syncobj_wait(c, &l.h, &p, 1, in_ms(2),
					  NVL_SYNCOBJ_WAIT_FOR_SUBMIT, NULL),
			 -ETIME);
	nvl_client_destroy(c);
}

static void wait_available_is_done_once_point_exists(void **state)
{
	struct nvl_client *c = client();
	uint32_t h = mk(c, 0);
	struct nvl_syncobj *o = nvl_syncobj_find(c, h);
	struct nvl_fence_chain *chain = nvl_fence_chain_alloc();
	struct nvl_fence *f;
	uint64_t p = 2, q;

	assert_int_equal(nvl_syncobj_wait(c, &h, &p, 1, in_ms(2),
					  NVL_SYNCOBJ_WAIT_AVAILABLE, NULL),
			 -ETIME);
	assert_int_equal(nvl_fence_create(&f, nvl_fence_context_alloc(1), 1),
			 0);
	nvl_syncobj_add_point(o, chain, f, 2);
	/* submitted, not signalled */
	assert_int_equal(nvl_syncobj_wait(c, &h, &p, 1, 0,
					  NVL_SYNCOBJ_WAIT_AVAILABLE, NULL),
			 0);
	assert_int_equal(nvl_syncobj_wait(c, &h, &p, 1, in_ms(2), 0, NULL),
			 -ETIME);
	assert_int_equal(nvl_syncobj_query(c, &h, &q, 1,
					   NVL_SYNCOBJ_QUERY_LAST_SUBMITTED),
			 0);
	assert_int_equal(q, 2);
	assert_int_equal(nvl_syncobj_query(c, &h, &q, 1, 0), 0);
	assert_int_equal(q, 0);
	nvl_fence_signal(f);
	assert_int_equal(nvl_syncobj_wait(c, &h, &p, 1, 0, 0, NULL), 0);
	nvl_fence_put(f);
	nvl_syncobj_put(o);
	nvl_client_destroy(c);
}

static void query_follows_the_signalled_prefix(void **state)
{
	struct nvl_client *c = client();
	uint32_t h = mk(c, 0), b = mk(c, NVL_SYNCOBJ_CREATE_SIGNALED);
	struct nvl_syncobj *o = nvl_syncobj_find(c, h);
	struct nvl_fence *dev;
	uint64_t p = 3, q;

	/* device point 1 pending, host signals 2 and 3 */
	assert_int_equal(nvl_fence_create(&dev, nvl_fence_context_alloc(1), 1),
			 0);
	nvl_syncobj_add_point(o, nvl_fence_chain_alloc(), dev, 1);
	assert_int_equal(nvl_syncobj_timeline_signal(c, &h, &p, 1), 0);
	p = 2;
	assert_int_equal(nvl_syncobj_timeline_signal(c, &h, &p, 1), 0);
	assert_int_equal(nvl_syncobj_query(c, &h, &q, 1, 0), 0);
	assert_int_equal(q, 0); /* prefix rule */
	assert_int_equal(nvl_syncobj_query(c, &h, &q, 1,
					   NVL_SYNCOBJ_QUERY_LAST_SUBMITTED),
			 0);
	assert_int_equal(q, 3); /* unordered 2 keeps seqno max(3, 2) */
	nvl_fence_signal(dev);
	assert_int_equal(nvl_syncobj_query(c, &h, &q, 1, 0), 0);
	assert_int_equal(q, 3);
	/* binary syncobj answers 0; bad flags; unknown handle */
	assert_int_equal(nvl_syncobj_query(c, &b, &q, 1, 0), 0);
	assert_int_equal(q, 0);
	assert_int_equal(nvl_syncobj_query(c, &b, &q, 1, 4), -EINVAL);
	p = 0;
	q = 77;
	b = 4242;
	assert_int_equal(nvl_syncobj_query(c, &b, &q, 1, 0), -ENOENT);
	assert_int_equal(q, 77);
	nvl_fence_put(dev);
	nvl_syncobj_put(o);
	nvl_client_destroy(c);
}

static void binary_wait_with_point_is_einval(void **state)
{
	struct nvl_client *c = client();
	uint32_t h = mk(c, NVL_SYNCOBJ_CREATE_SIGNALED);
	uint64_t p = 1;

	assert_int_equal(nvl_syncobj_wait(c, &h, &p, 1, 0, 0, NULL), -EINVAL);
	p = 0; /* point 0 = binary */
	assert_int_equal(nvl_syncobj_wait(c, &h, &p, 1, 0, 0, NULL), 0);
	assert_int_equal(nvl_syncobj_wait(c, &h, NULL, 1, 0,
					  NVL_SYNCOBJ_WAIT_AVAILABLE, NULL),
			 -EINVAL);
	nvl_client_destroy(c);
}

struct snap_waiter {
	struct nvl_client *c;
	uint32_t h;
	int ret;
};

static void *snap_wait_thread(void *arg)
{
	struct snap_waiter *w = arg;

	w->ret = nvl_syncobj_wait(w->c, &w->h, NULL, 1, in_ms(100), 0, NULL);
	return NULL;
}

static void wait_snapshots_the_fence(void **state)
{
	struct nvl_client *c = client();
	uint32_t h = mk(c, 0);
	struct nvl_syncobj *o = nvl_syncobj_find(c, h);
	struct snap_waiter w = {.c = c, .h = h};
	struct nvl_fence *f;
	pthread_t t;

	assert_int_equal(nvl_fence_create(&f, nvl_fence_context_alloc(1), 1),
			 0);
	nvl_syncobj_replace_fence(o, f);
	/*
	 * Once the waiter sleeps on f (its callback is queued), a signal()
	 * installs another, signalled fence: the wait keeps f and times out.
	 */
	pthread_create(&t, NULL, snap_wait_thread, &w);
	for (int i = 0; i < 5000 && !(atomic_load(&f->flags) &
				      (1u << NVL_FENCE_FLAG_HAS_CB_BIT));
	     i++)
		usleep(100);
	assert_int_equal(nvl_syncobj_signal(c, &h, 1), 0);
	pthread_join(t, NULL);
	assert_int_equal(w.ret, -ETIME);
	assert_int_equal(nvl_syncobj_wait(c, &h, NULL, 1, 0, 0, NULL), 0);
	nvl_fence_signal(f);
	nvl_fence_put(f);
	nvl_syncobj_put(o);
	nvl_client_destroy(c);
}

static void transfer_between_binary_and_timeline(void **state)
{
	struct nvl_client *c = client();
	uint32_t bin = mk(c, 0), tl = mk(c, 0), bin2 = mk(c, 0);
	struct nvl_syncobj *o = nvl_syncobj_find(c, bin);
	struct nvl_fence *f;
	uint64_t p = 4, q;

	assert_int_equal(nvl_fence_create(&f, nvl_fence_context_alloc(1), 1),
			 0);
	nvl_syncobj_replace_fence(o, f);
	/* binary -> timeline point 4 */
	assert_int_equal(nvl_syncobj_transfer(c, tl, 4, bin, 0, 0), 0);
	assert_int_equal(nvl_syncobj_wait(c, &tl, &p, 1, 0,
					  NVL_SYNCOBJ_WAIT_AVAILABLE, NULL),
			 0);
	assert_int_equal(nvl_syncobj_wait(c, &tl, &p, 1, 0, 0, NULL), -ETIME);
	/* timeline point 4 -> binary */
	assert_int_equal(nvl_syncobj_transfer(c, bin2, 0, tl, 4, 0), 0);
	assert_int_equal(nvl_syncobj_wait(c, &bin2, NULL, 1, 0, 0, NULL),
			 -ETIME);
	nvl_fence_signal(f);
	assert_int_equal(nvl_syncobj_wait(c, &bin2, NULL, 1, 0, 0, NULL), 0);
	assert_int_equal(nvl_syncobj_query(c, &tl, &q, 1, 0), 0);
	assert_int_equal(q, 4);
	/* bad input */
	assert_int_equal(nvl_syncobj_transfer(c, 999, 0, bin, 0, 0), -ENOENT);
	assert_int_equal(nvl_syncobj_transfer(c, tl, 0, 999, 0, 0), -ENOENT);
	assert_int_equal(nvl_syncobj_transfer(c, tl, 5, bin, 0, 4), -EINVAL);
	assert_int_equal(nvl_syncobj_transfer(c, bin2, 0, tl, 9, 0), -EINVAL);
	nvl_fence_put(f);
	nvl_syncobj_put(o);
	nvl_client_destroy(c);
}

/*
 * Item 18: TRANSFER to a timeline point flattens the source: the new
 * point wraps one plain fence (or a signal-on-all array of the unsignalled
 * leaves, one per context, the later fence of a context kept), never a
 * chain inside a chain; all leaves signalled gives the signalled stub.
 */
struct xfer {
	struct nvl_client *c;
	uint32_t src, dst;
};

static int xfer_op(void *arg)
{
	struct xfer *x = arg;

	return nvl_syncobj_transfer(x->c, x->dst, 1, x->src, 3, 0);
}

static void xfer_check(int ret, void *arg)
{
	struct xfer *x = arg;
	uint64_t q = 99;

	assert_int_equal(ret, -ENOMEM);
	/* each failure says what it was (the chain node one used not to) */
	assert_non_null(strstr(nvl_last_error(), "transfer: out of memory"));
	nvl_error(-EIO, "stale");
	assert_int_equal(nvl_syncobj_query(x->c, &x->dst, &q, 1,
					   NVL_SYNCOBJ_QUERY_LAST_SUBMITTED),
			 0);
	assert_int_equal(q, 0); /* nothing was added */
}

/* The fence a timeline point of @h wraps (reference). */
static struct nvl_fence *point_leaf(struct nvl_client *c, uint32_t h,
				    uint64_t point)
{
	struct nvl_fence *f, *leaf;

	assert_int_equal(nvl_syncobj_find_fence(c, h, point, 0, &f), 0);
	assert_non_null(nvl_to_fence_chain(f));
	leaf = nvl_fence_get(nvl_fence_chain_contained(f));
	nvl_fence_put(f);
	return leaf;
}

static void transfer_to_a_point_flattens_the_source(void **state)
{
	struct xfer x = {.c = client()};
	struct nvl_syncobj *src;
	uint64_t ctx_a = nvl_fence_context_alloc(1);
	uint64_t ctx_b = nvl_fence_context_alloc(1), p1 = 1, p2 = 2;
	struct nvl_fence *a1, *a2, *b1, *leaf;
	struct nvl_fence_array *arr;

	x.src = mk(x.c, 0);
	x.dst = mk(x.c, 0);
	src = nvl_syncobj_find(x.c, x.src);
	assert_int_equal(nvl_fence_create(&a1, ctx_a, 1), 0);
	assert_int_equal(nvl_fence_create(&b1, ctx_b, 1), 0);
	assert_int_equal(nvl_fence_create(&a2, ctx_a, 2), 0);
	nvl_syncobj_add_point(src, nvl_fence_chain_alloc(), a1, 1);
	nvl_syncobj_add_point(src, nvl_fence_chain_alloc(), b1, 2);
	nvl_syncobj_add_point(src, nvl_fence_chain_alloc(), a2, 3);
	/* allocation failures (array, chain node) change nothing */
	nvl_error(-EIO, "stale");
	assert_true(t_fail_each_alloc(xfer_op, xfer_check, &x, 10) >= 2);
	/* dst point 1 wraps an array of {a2, b1}: a1 is covered by a2 */
	leaf = point_leaf(x.c, x.dst, 1);
	arr = nvl_to_fence_array(leaf);
	assert_non_null(arr);
	assert_null(nvl_to_fence_chain(leaf));
	assert_int_equal(arr->num_fences, 2);
	for (unsigned i = 0; i < 2; i++) {
		assert_null(nvl_to_fence_chain(arr->fences[i]));
		assert_true(arr->fences[i] == a2 || arr->fences[i] == b1);
	}
	assert_true(arr->fences[0] != arr->fences[1]);
	nvl_fence_put(leaf);
	assert_int_equal(nvl_syncobj_wait(x.c, &x.dst, &p1, 1, 0, 0, NULL),
			 -ETIME);
	nvl_fence_signal(a1);
	nvl_fence_signal(a2);
	assert_int_equal(nvl_syncobj_wait(x.c, &x.dst, &p1, 1, 0, 0, NULL),
			 -ETIME);
	/* one unsignalled leaf left: the next point wraps it directly */
	assert_int_equal(nvl_syncobj_transfer(x.c, x.dst, 2, x.src, 3, 0), 0);
	leaf = point_leaf(x.c, x.dst, 2);
	assert_ptr_equal(leaf, b1);
	nvl_fence_put(leaf);
	nvl_fence_signal(b1);
	assert_int_equal(nvl_syncobj_wait(x.c, &x.dst, &p2, 1, 0,
					  NVL_SYNCOBJ_WAIT_ALL, NULL),
			 0);
	assert_int_equal(nvl_syncobj_wait(x.c, &x.dst, &p1, 1, 0, 0, NULL), 0);
	/* everything signalled: the point wraps the signalled stub */
	assert_int_equal(nvl_syncobj_transfer(x.c, x.dst, 3, x.src, 3, 0), 0);
	leaf = point_leaf(x.c, x.dst, 3);
	assert_int_equal(leaf->context, 0);
	assert_true(nvl_fence_is_signaled(leaf));
	nvl_fence_put(leaf);
	nvl_fence_put(a1);
	nvl_fence_put(a2);
	nvl_fence_put(b1);
	nvl_syncobj_put(src);
	nvl_client_destroy(x.c);
}

static void driver_find_fence_rules(void **state)
{
	struct nvl_client *c = client();
	uint32_t h = mk(c, 0);
	struct nvl_fence *f;
	struct later l = {.c = c, .h = h, .delay_us = 5000};
	pthread_t t;

	assert_int_equal(nvl_syncobj_find_fence(c, 99, 0, 0, &f), -ENOENT);
	assert_int_equal(nvl_syncobj_find_fence(c, h, 0, 0, &f), -EINVAL);
	assert_int_equal(
		nvl_syncobj_find_fence(c, h, 0, NVL_SYNCOBJ_WAIT_ALL, &f),
		-EINVAL);
	pthread_create(&t, NULL, signal_later, &l);
	assert_int_equal(nvl_syncobj_find_fence(
				 c, h, 0, NVL_SYNCOBJ_WAIT_FOR_SUBMIT, &f),
			 0);
	pthread_join(t, NULL);
	assert_true(nvl_fence_is_signaled(f));
	nvl_fence_put(f);
	nvl_client_destroy(c);
}

static NVL_LOCK_CLASS(drv_class, "test_driver_lock", 0);

static NVL_LOCK_CLASS(poll_class, "test_syncobj_poller", 0);

/* A syncobj wait decided by its fast path still records its dependency. */
static void signalled_wait_records_its_dependency(void **state)
{
	enum nvl_checker_mode m = nvl_checker_set_mode(NVL_CHECKER_COUNT);
	struct nvl_client *c = client();
	uint32_t h = mk(c, NVL_SYNCOBJ_CREATE_SIGNALED);
	struct nvl_signalling_cookie ck;
	struct nvl_mutex a;

	nvl_checker_reset();
	nvl_mutex_init(&a, &poll_class);
	nvl_mutex_lock(&a);
	assert_int_equal(nvl_syncobj_wait(c, &h, NULL, 1, in_ms(1000), 0, NULL),
			 0);
	nvl_mutex_unlock(&a);
	assert_int_equal(nvl_checker_violations(), 0);
	ck = nvl_fence_begin_signalling();
	nvl_mutex_lock(&a);
	nvl_mutex_unlock(&a);
	nvl_fence_end_signalling(ck);
	assert_int_equal(nvl_checker_violations(), 1);
	nvl_mutex_destroy(&a);
	nvl_client_destroy(c);
	nvl_checker_reset();
	nvl_checker_set_mode(m);
}

static void wait_for_submit_with_lock_held_is_reported(void **state)
{
	enum nvl_checker_mode m = nvl_checker_set_mode(NVL_CHECKER_COUNT);
	struct nvl_client *c = client();
	uint32_t h = mk(c, 0);
	struct nvl_mutex mu;
	char rep[4096];

	nvl_checker_reset();
	nvl_mutex_init(&mu, &drv_class);
	nvl_mutex_lock(&mu);
	assert_int_equal(nvl_syncobj_wait(c, &h, NULL, 1, 0,
					  NVL_SYNCOBJ_WAIT_FOR_SUBMIT, NULL),
			 -ETIME);
	nvl_mutex_unlock(&mu);
	assert_int_equal(nvl_checker_violations(), 1);
	nvl_checker_last_report(rep, sizeof(rep));
	assert_non_null(strstr(rep, "wait-for-submit-with-locks-held"));
	assert_non_null(strstr(rep, "test_driver_lock"));
	nvl_mutex_destroy(&mu);
	nvl_checker_reset();
	nvl_checker_set_mode(m);
	nvl_client_destroy(c);
}

struct waitop {
	struct nvl_client *c;
	uint32_t h[3];
	uint64_t p[3];
};

static int timeline_signal_op(void *arg)
{
	struct waitop *w = arg;

	return nvl_syncobj_timeline_signal(w->c, w->h, w->p, 3);
}

static void timeline_signal_check(int ret, void *arg)
{
	struct waitop *w = arg;
	uint64_t q[3];

	assert_int_equal(ret, -ENOMEM);
	assert_int_equal(nvl_syncobj_query(w->c, w->h, q, 3,
					   NVL_SYNCOBJ_QUERY_LAST_SUBMITTED),
			 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(q[i], 0);
}

static int slow_wait_op(void *arg)
{
	struct waitop *w = arg;

	return nvl_syncobj_wait(w->c, w->h, NULL, 3, 0, 0, NULL);
}

static void slow_wait_check(int ret, void *arg)
{
	assert_int_equal(ret, -ENOMEM);
}

static void allocation_failures_change_nothing(void **state)
{
	struct waitop w = {.c = client(), .p = {1, 2, 3}};
	uint32_t h;

	for (int i = 0; i < 3; i++)
		w.h[i] = mk(w.c, 0);
	assert_int_equal(t_fail_each_alloc(timeline_signal_op,
					   timeline_signal_check, &w, 10),
			 4);
	/* timeline points force wait-any onto the slow path: it allocates
	 * once */
	w.p[0] = w.p[1] = w.p[2] = 1;
	assert_int_equal(
		t_fail_each_alloc(slow_wait_op, slow_wait_check, &w, 10), 1);
	/* WAIT_ALL with every fence present waits on the fences themselves:
	 * nothing to allocate, nothing to fail */
	nvl_fault_fail_nth(1, NVL_FAULT_THIS_THREAD);
	assert_int_equal(nvl_syncobj_wait(w.c, w.h, NULL, 3, 0,
					  NVL_SYNCOBJ_WAIT_ALL, NULL),
			 0);
	nvl_fault_off();
	nvl_fault_fail_nth(1, NVL_FAULT_THIS_THREAD);
	assert_int_equal(nvl_syncobj_create(w.c, 0, &h), -ENOMEM);
	nvl_fault_off();
	assert_int_equal(nvl_client_handle_count(w.c, NVL_HANDLE_SYNCOBJ), 3);
	nvl_client_destroy(w.c);
}

struct stress {
	struct nvl_client *c;
	uint32_t h[4];
	atomic_int stop;
	atomic_long waits;
};

static void *stress_waiter(void *arg)
{
	struct stress *s = arg;

	while (!atomic_load(&s->stop)) {
		uint32_t first = 99;
		int ret = nvl_syncobj_wait(
			s->c, s->h, NULL, 4,
			nvl_deadline_after(5 * NVL_NSEC_PER_SEC),
			NVL_SYNCOBJ_WAIT_FOR_SUBMIT, &first);

		if (ret)
			return (void *)(intptr_t)ret;
		if (first >= 4)
			return (void *)1;
		atomic_fetch_add(&s->waits, 1);
	}
	return NULL;
}

/*
 * Waiters on four syncobjs that a producer keeps resetting, publishing
 * pending fences and signalling them: every wait completes well before its
 * 5 s deadline (no lost wake-up).
 */
static void concurrent_waiters_and_signallers_lose_no_wakeup(void **state)
{
	struct stress s = {.c = client()};
	int rounds = (int)(300 * t_scale());
	pthread_t t[3];

	for (int i = 0; i < 4; i++)
		s.h[i] = mk(s.c, 0);
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, stress_waiter, &s);
	for (int r = 0; r < rounds; r++) {
		struct nvl_syncobj *o = nvl_syncobj_find(s.c, s.h[r % 4]);
		struct nvl_fence *f;

		assert_int_equal(nvl_syncobj_reset(s.c, s.h, 4), 0);
		assert_int_equal(
			nvl_fence_create(&f, nvl_fence_context_alloc(1), 1), 0);
		nvl_syncobj_replace_fence(o, f);
		if (r % 7 == 0)
			usleep(100);
		nvl_fence_signal(f);
		nvl_fence_put(f);
		nvl_syncobj_put(o);
	}
	atomic_store(&s.stop, 1);
	nvl_syncobj_signal(s.c, s.h, 4);
	for (int i = 0; i < 3; i++) {
		void *r;

		pthread_join(t[i], &r);
		assert_null(r);
	}
	assert_true(atomic_load(&s.waits) > 0);
	nvl_client_destroy(s.c);
}

static void signalled_fast_path_allocates_nothing(void **state)
{
	struct nvl_client *c = client();
	uint32_t h[64], first = 99;
	unsigned long before;

	for (int i = 0; i < 64; i++)
		h[i] = mk(c, NVL_SYNCOBJ_CREATE_SIGNALED);
	before = nvl_alloc_count();
	assert_int_equal(
		nvl_syncobj_wait(c, h, NULL, 64, 0, NVL_SYNCOBJ_WAIT_ALL, NULL),
		0);
	assert_int_equal(nvl_syncobj_wait(c, h, NULL, 64, 0, 0, &first), 0);
	assert_int_equal(nvl_alloc_count(), before);
	assert_int_equal(first, 0);
	nvl_client_destroy(c);
}

static void publishing_out_fences_is_allowed_in_signalling(void **state)
{
	struct nvl_client *c = client();
	uint32_t bin = mk(c, 0), tl = mk(c, 0);
	struct nvl_syncobj *ob = nvl_syncobj_find(c, bin);
	struct nvl_syncobj *ot = nvl_syncobj_find(c, tl);
	struct nvl_fence_chain *chain = nvl_fence_chain_alloc();
	unsigned long v = nvl_checker_violations();
	struct nvl_fence *f;
	struct nvl_signalling_cookie cookie;

	assert_int_equal(nvl_fence_create(&f, nvl_fence_context_alloc(1), 1),
			 0);
	/* a driver's run path: publish, then signal; no allocation */
	cookie = nvl_fence_begin_signalling();
	nvl_syncobj_replace_fence(ob, f);
	nvl_syncobj_add_point(ot, chain, f, 1);
	nvl_fence_signal(f);
	nvl_fence_end_signalling(cookie);
	assert_int_equal(nvl_checker_violations(), v);
	assert_int_equal(nvl_syncobj_wait(c, &bin, NULL, 1, 0, 0, NULL), 0);
	nvl_fence_put(f);
	nvl_syncobj_put(ob);
	nvl_syncobj_put(ot);
	nvl_client_destroy(c);
}

struct submit_waiter {
	struct nvl_client *c;
	uint32_t h;
	int ret;
	_Atomic int64_t done_at;
};

static void *for_submit_thread(void *arg)
{
	struct submit_waiter *w = arg;

	w->ret = nvl_syncobj_wait(w->c, &w->h, NULL, 1,
				  nvl_deadline_after(5 * NVL_NSEC_PER_SEC),
				  NVL_SYNCOBJ_WAIT_FOR_SUBMIT, NULL);
	atomic_store(&w->done_at, nvl_time_ns());
	return NULL;
}

static void reset_neither_wakes_nor_fails_submit_waiters(void **state)
{
	struct submit_waiter w = {.c = client()};
	int64_t signalled_at;
	pthread_t t;

	w.h = mk(w.c, 0);
	pthread_create(&t, NULL, for_submit_thread, &w);
	usleep(10000);
	assert_int_equal(nvl_syncobj_reset(w.c, &w.h, 1), 0);
	usleep(10000);
	assert_int_equal(atomic_load(&w.done_at), 0); /* still waiting */
	signalled_at = nvl_time_ns();
	assert_int_equal(nvl_syncobj_signal(w.c, &w.h, 1), 0);
	pthread_join(t, NULL);
	assert_int_equal(w.ret, 0);
	assert_true(atomic_load(&w.done_at) >= signalled_at);
	nvl_client_destroy(w.c);
}

/*
 * Item 13: a waiter sleeping in WAIT_FOR_SUBMIT takes the first fence that
 * appears, under the syncobj's lock, as the kernel does; a reset right
 * after the attach must not take it away. The waiter then waits on that
 * fence, which signals after the reset.
 */
struct first_fence_waiter {
	struct nvl_client *c;
	uint32_t h;
	uint64_t point;
	bool driver;
	struct nvl_fence *found;
	int ret;
	atomic_bool done;
};

static void *first_fence_thread(void *arg)
{
	struct first_fence_waiter *w = arg;
	uint64_t *pt = w->point ? &w->point : NULL;

	if (w->driver)
		w->ret = nvl_syncobj_find_fence(w->c, w->h, w->point,
						NVL_SYNCOBJ_WAIT_FOR_SUBMIT,
						&w->found);
	else
		w->ret = nvl_syncobj_wait(
			w->c, &w->h, pt, 1,
			nvl_deadline_after(300 * NVL_NSEC_PER_MSEC),
			NVL_SYNCOBJ_WAIT_FOR_SUBMIT, NULL);
	atomic_store(&w->done, true);
	return NULL;
}

/* Until a submit waiter is queued on @o (at most 5 s). */
static void wait_for_waiter(struct nvl_syncobj *o)
{
	for (int i = 0; i < 5000; i++) {
		bool queued;

		nvl_flock_lock(&o->lock);
		queued = !nvl_list_empty(&o->waiters);
		nvl_flock_unlock(&o->lock);
		if (queued)
			return;
		usleep(1000);
	}
	fail_msg("no submit waiter queued within 5 s");
}

/* Attach a fence (or point) while @w sleeps, reset at once, signal. */
static void attach_then_reset(struct first_fence_waiter *w)
{
	struct nvl_syncobj *o = nvl_syncobj_find(w->c, w->h);
	struct nvl_fence_chain *chain = nvl_fence_chain_alloc();
	struct nvl_fence *f;
	pthread_t t;

	assert_non_null(o);
	assert_non_null(chain);
	assert_int_equal(nvl_fence_create(&f, nvl_fence_context_alloc(1), 1),
			 0);
	pthread_create(&t, NULL, first_fence_thread, w);
	wait_for_waiter(o);
	if (w->point)
		nvl_syncobj_add_point(o, chain, f, w->point);
	else
		nvl_syncobj_replace_fence(o, f);
	if (!w->point)
		nvl_fence_chain_free(chain);
	nvl_syncobj_replace_fence(o, NULL); /* reset right after */
	nvl_fence_signal(f);
	pthread_join(t, NULL);
	assert_int_equal(w->ret, 0);
	if (w->driver) {
		/* the driver got the fence that appeared (binary) or the
		 * chain node of the point, which signalled with it */
		if (!w->point)
			assert_ptr_equal(w->found, f);
		assert_true(nvl_fence_is_signaled(w->found));
		nvl_fence_put(w->found);
	}
	nvl_fence_put(f);
	nvl_syncobj_put(o);
}

static void submit_waiter_keeps_first_fence_across_reset(void **state)
{
	struct nvl_client *c = client();

	for (int i = 0; i < 8; i++) {
		struct first_fence_waiter w = {
			.c = c,
			.h = mk(c, 0),
			.point = (i & 1) ? 3 : 0,
			.driver = (i & 2) != 0,
		};

		attach_then_reset(&w);
		/* the syncobj itself was reset: a new wait has no fence */
		assert_int_equal(nvl_syncobj_wait(c, &w.h, NULL, 1, 0, 0, NULL),
				 -EINVAL);
	}
	nvl_client_destroy(c);
}

/* A submit waiter for point 5 does not take point 3's fence. */
static void submit_waiter_skips_earlier_points(void **state)
{
	struct nvl_client *c = client();
	struct first_fence_waiter w = {.c = c, .h = mk(c, 0), .point = 5};
	struct nvl_syncobj *o = nvl_syncobj_find(c, w.h);
	struct nvl_fence *f3, *f5;
	pthread_t t;

	assert_int_equal(nvl_fence_create(&f3, nvl_fence_context_alloc(1), 3),
			 0);
	assert_int_equal(nvl_fence_create(&f5, nvl_fence_context_alloc(1), 5),
			 0);
	pthread_create(&t, NULL, first_fence_thread, &w);
	wait_for_waiter(o);
	nvl_syncobj_add_point(o, nvl_fence_chain_alloc(), f3, 3);
	nvl_fence_signal(f3);
	usleep(5000);
	assert_false(atomic_load(&w.done)); /* point 5 not there yet */
	nvl_syncobj_add_point(o, nvl_fence_chain_alloc(), f5, 5);
	nvl_syncobj_replace_fence(o, NULL);
	nvl_fence_signal(f5);
	pthread_join(t, NULL);
	assert_int_equal(w.ret, 0);
	nvl_fence_put(f3);
	nvl_fence_put(f5);
	nvl_syncobj_put(o);
	nvl_client_destroy(c);
}

static void on_usr1(int sig)
{
	(void)sig;
}

struct intr_syncobj_wait {
	struct nvl_client *c;
	uint32_t h;
	uint32_t flags;
	int ret;
	atomic_bool done;
};

static void *intr_syncobj_thread(void *arg)
{
	struct intr_syncobj_wait *w = arg;

	w->ret = nvl_syncobj_wait(
		w->c, &w->h, NULL, 1,
		(w->flags & NVL_SYNCOBJ_WAIT_INTERRUPTIBLE)
			? NVL_TIMEOUT_INFINITE
			: nvl_deadline_after(30 * NVL_NSEC_PER_MSEC),
		w->flags, NULL);
	atomic_store(&w->done, true);
	return NULL;
}

static void interruptible_wait_returns_eintr(void **state)
{
	struct sigaction sa = {.sa_handler = on_usr1, .sa_flags = SA_RESTART},
			 old;

	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
	for (int k = 0; k < 2; k++) {
		struct intr_syncobj_wait w = {.c = client()};
		pthread_t t;

		/* k 0: a fence that never signals; k 1: waiting for submit */
		w.h = mk(w.c, 0);
		w.flags = k ? NVL_SYNCOBJ_WAIT_FOR_SUBMIT : 0;
		if (!k) {
			struct nvl_syncobj *o = nvl_syncobj_find(w.c, w.h);
			struct nvl_fence *f;

			assert_int_equal(
				nvl_fence_create(&f, nvl_fence_context_alloc(1),
						 1),
				0);
			nvl_syncobj_replace_fence(o, f);
			nvl_fence_put(f);
			nvl_syncobj_put(o);
		}
		for (int intr = 1; intr >= 0; intr--) {
			w.flags = (w.flags & ~NVL_SYNCOBJ_WAIT_INTERRUPTIBLE) |
				  (intr ? NVL_SYNCOBJ_WAIT_INTERRUPTIBLE : 0);
			atomic_store(&w.done, false);
			pthread_create(&t, NULL, intr_syncobj_thread, &w);
			for (int i = 0; i < 5000 && !atomic_load(&w.done);
			     i++) {
				pthread_kill(t, SIGUSR1);
				usleep(1000);
			}
			pthread_join(t, NULL);
			/* interruptible: -EINTR; plain: the deadline */
			assert_int_equal(w.ret, intr ? -EINTR : -ETIME);
		}
		/* the syncobj is untouched */
		assert_int_equal(
			nvl_syncobj_wait(w.c, &w.h, NULL, 1, 0, 0, NULL),
			k ? -EINVAL : -ETIME);
		{
			/* k 0: unblock the fence's release (no waiters) */
			struct nvl_syncobj *o = nvl_syncobj_find(w.c, w.h);
			struct nvl_fence *f = nvl_syncobj_fence_get(o);

			if (f)
				nvl_fence_signal(f);
			nvl_fence_put(f);
			nvl_syncobj_put(o);
		}
		nvl_client_destroy(w.c);
	}
	sigaction(SIGUSR1, &old, NULL);
}

struct dl_fence {
	struct nvl_fence base;
	int64_t deadline;
};

static void dl_set(struct nvl_fence *f, int64_t d)
{
	container_of(f, struct dl_fence, base)->deadline = d;
}

static void dl_release(struct nvl_fence *f)
{
}

static const struct nvl_fence_ops dl_ops = {
	.set_deadline = dl_set,
	.release = dl_release,
};

static void wait_deadline_reaches_the_producer(void **state)
{
	struct nvl_client *c = client();
	uint32_t h = mk(c, 0);
	struct nvl_syncobj *o = nvl_syncobj_find(c, h);
	struct dl_fence f = {0};
	int64_t when = in_ms(3);

	nvl_fence_init(&f.base, &dl_ops, nvl_fence_context_alloc(1), 1);
	nvl_syncobj_replace_fence(o, &f.base);
	assert_int_equal(nvl_syncobj_wait(c, &h, NULL, 1, when,
					  NVL_SYNCOBJ_WAIT_DEADLINE, NULL),
			 -ETIME);
	assert_int_equal(f.deadline, when);
	nvl_fence_signal(&f.base);
	nvl_syncobj_reset(c, &h, 1);
	nvl_syncobj_put(o);
	nvl_client_destroy(c);
	nvl_fence_put(&f.base);
}

/*
 * Random increasing timeline points, some host-signalled, some backed by
 * pending fences signalled in random order; after every step QUERY must be
 * the last point of the longest fully signalled prefix, LAST_SUBMITTED the
 * last point, and waits on each point must agree with the model.
 */
static void query_matches_a_reference_model(void **state)
{
	enum { N = 120 };
	struct nvl_client *c = client();
	uint32_t h = mk(c, 0);
	struct nvl_syncobj *o = nvl_syncobj_find(c, h);
	struct nvl_fence *f[N] = {NULL};
	uint64_t pt[N], rng = t_seed(0x71e), point = 0;
	bool done[N];
	int n = 0;

	for (int step = 0; step < 3 * N; step++) {
		uint64_t r = t_rand(&rng) % 4, q, expect = 0;

		if (r <= 1 && n < N) {
			point += 1 + t_rand(&rng) % 3;
			pt[n] = point;
			if (r == 0) {
				assert_int_equal(nvl_syncobj_timeline_signal(
							 c, &h, &point, 1),
						 0);
				done[n] = true;
			} else {
				assert_int_equal(
					nvl_fence_create(
						&f[n],
						nvl_fence_context_alloc(1), 1),
					0);
				nvl_syncobj_add_point(o,
						      nvl_fence_chain_alloc(),
						      f[n], point);
				done[n] = false;
			}
			n++;
		} else if (n) {
			int i = (int)(t_rand(&rng) % (uint64_t)n);

			if (!done[i]) {
				nvl_fence_signal(f[i]);
				done[i] = true;
			}
		}
		for (int i = 0; i < n && done[i]; i++)
			expect = pt[i];
		assert_int_equal(nvl_syncobj_query(c, &h, &q, 1, 0), 0);
		assert_int_equal(q, expect);
		if (n) {
			int i = (int)(t_rand(&rng) % (uint64_t)n);
			bool all = true;

			for (int k = 0; k <= i; k++)
				all &= done[k];
			assert_int_equal(
				nvl_syncobj_wait(c, &h, &pt[i], 1, 0, 0, NULL),
				all ? 0 : -ETIME);
			assert_int_equal(
				nvl_syncobj_query(
					c, &h, &q, 1,
					NVL_SYNCOBJ_QUERY_LAST_SUBMITTED),
				0);
			assert_int_equal(q, pt[n - 1]);
		}
	}
	for (int i = 0; i < n; i++) {
		if (f[i]) {
			nvl_fence_signal(f[i]);
			nvl_fence_put(f[i]);
		}
	}
	nvl_syncobj_put(o);
	nvl_client_destroy(c);
}

struct tl_stress {
	struct nvl_client *c;
	uint32_t h;
	int points;
	struct nvl_fence **f;
	_Atomic int submitted;
	atomic_int failed;
};

static void *tl_producer(void *arg)
{
	struct tl_stress *s = arg;
	struct nvl_syncobj *o = nvl_syncobj_find(s->c, s->h);

	for (int i = 0; i < s->points; i++) {
		nvl_syncobj_add_point(o, nvl_fence_chain_alloc(), s->f[i],
				      (uint64_t)i + 1);
		atomic_store(&s->submitted, i + 1);
		if (i % 16 == 0)
			sched_yield();
	}
	nvl_syncobj_put(o);
	return NULL;
}

static void *tl_signaller(void *arg)
{
	struct tl_stress *s = arg;

	for (int i = 0; i < s->points; i++) {
		while (atomic_load(&s->submitted) <= i)
			sched_yield();
		nvl_fence_signal(s->f[i]);
	}
	return NULL;
}

static void *tl_waiter(void *arg)
{
	struct tl_stress *s = arg;
	uint64_t rng = (uint64_t)(uintptr_t)&rng, last = 0;

	for (int k = 0; k < 200; k++) {
		uint64_t p = 1 + t_rand(&rng) % (uint64_t)s->points, q = 0;

		if (nvl_syncobj_wait(s->c, &s->h, &p, 1,
				     nvl_deadline_after(10 * NVL_NSEC_PER_SEC),
				     NVL_SYNCOBJ_WAIT_FOR_SUBMIT, NULL) ||
		    nvl_syncobj_query(s->c, &s->h, &q, 1, 0) || q < p ||
		    q < last)
			atomic_store(&s->failed, 1);
		last = q;
	}
	return NULL;
}

/*
 * A producer appends points, a signaller signals them in order, waiters
 * wait for random points (often not yet submitted) and check that QUERY is
 * monotonic and covers what they waited for; walks garbage-collect the
 * chain concurrently.
 */
static void timeline_producer_signaller_and_waiters_race(void **state)
{
	struct tl_stress s = {.c = client(), .points = 2000};
	pthread_t t[5];

	s.h = mk(s.c, 0);
	s.f = calloc((size_t)s.points, sizeof(*s.f));
	for (int i = 0; i < s.points; i++)
		assert_int_equal(nvl_fence_create(&s.f[i],
						  nvl_fence_context_alloc(1),
						  1),
				 0);
	pthread_create(&t[0], NULL, tl_producer, &s);
	pthread_create(&t[1], NULL, tl_signaller, &s);
	for (int i = 2; i < 5; i++)
		pthread_create(&t[i], NULL, tl_waiter, &s);
	for (int i = 0; i < 5; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(atomic_load(&s.failed), 0);
	for (int i = 0; i < s.points; i++)
		nvl_fence_put(s.f[i]);
	free(s.f);
	nvl_client_destroy(s.c);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(timeline_producer_signaller_and_waiters_race),
	cmocka_unit_test(query_matches_a_reference_model),
	cmocka_unit_test(reset_neither_wakes_nor_fails_submit_waiters),
	cmocka_unit_test(submit_waiter_keeps_first_fence_across_reset),
	cmocka_unit_test(submit_waiter_skips_earlier_points),
	cmocka_unit_test(interruptible_wait_returns_eintr),
	cmocka_unit_test(wait_deadline_reaches_the_producer),
	cmocka_unit_test(signalled_fast_path_allocates_nothing),
	cmocka_unit_test(publishing_out_fences_is_allowed_in_signalling),
	cmocka_unit_test(concurrent_waiters_and_signallers_lose_no_wakeup),
	cmocka_unit_test(create_destroy_and_bad_input),
	cmocka_unit_test(wait_on_no_fence_is_einval_even_if_other_signalled),
	cmocka_unit_test(wait_any_reports_first_signalled_index),
	cmocka_unit_test(timeout_in_the_past_polls),
	cmocka_unit_test(reset_and_signal_are_all_or_nothing),
	cmocka_unit_test(wait_for_submit_waits_for_the_fence),
	cmocka_unit_test(timeline_points_not_yet_submitted),
	cmocka_unit_test(wait_available_is_done_once_point_exists),
	cmocka_unit_test(query_follows_the_signalled_prefix),
	cmocka_unit_test(binary_wait_with_point_is_einval),
	cmocka_unit_test(wait_snapshots_the_fence),
	cmocka_unit_test(transfer_between_binary_and_timeline),
	cmocka_unit_test(transfer_to_a_point_flattens_the_source),
	cmocka_unit_test(driver_find_fence_rules),
	cmocka_unit_test(wait_for_submit_with_lock_held_is_reported),
	cmocka_unit_test(signalled_wait_records_its_dependency),
	cmocka_unit_test(allocation_failures_change_nothing),
};

T_MAIN(tests)

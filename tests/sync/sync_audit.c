// SPDX-License-Identifier: MIT
/*
 * TEST: sync_audit
 * Description: regressions from an adversarial review of fences, chains
 * and timeline syncobjs (session 18): an EVENTFD registration whose
 * eventfd counter is already saturated does not block the thread that
 * signals the fence (inside its signalling section, under the fence's
 * lock); every fence wait takes NULL as bad input; a timeline that is
 * only signalled (never waited for or queried), or whose jobs finish
 * behind a queue, keeps a bounded chain (a walk every few points
 * collects the signalled ones).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <nouvelle/core.h>

#include "t.h"
#include "synckit.h"
#include "base/client.h"
#include "base/compiler.h"
#include "base/time.h"
#include "sync/fence_chain.h"
#include "sync/syncobj.h"

/* points linked behind @head, counted without walking (no collection) */
static unsigned chain_len(struct nvl_fence *head)
{
	struct nvl_fence *f = nvl_fence_get(head);
	unsigned n = 0;

	while (f) {
		struct nvl_fence_chain *c = nvl_to_fence_chain(f);
		struct nvl_fence *p = c ? nvl_fence_chain_get_prev(c) : NULL;

		n++;
		nvl_fence_put(f);
		f = p;
	}
	return n;
}

static unsigned syncobj_chain_len(struct nvl_client *c, uint32_t h)
{
	struct nvl_syncobj *o = nvl_syncobj_find(c, h);
	struct nvl_fence *f;
	unsigned n;

	assert_non_null(o);
	f = nvl_syncobj_fence_get(o);
	n = chain_len(f);
	nvl_fence_put(f);
	nvl_syncobj_put(o);
	return n;
}

/*
 * A timeline only signalled from the host (TIMELINE_SIGNAL), never waited
 * for nor queried: every point is signalled when added, yet each kept the
 * one before it alive, 1000 nodes for 1000 signals. Points are collected
 * by a walk every 16 points or so (syncobj.c), so a few dozen stay at
 * most.
 */
static void signalled_timeline_keeps_a_bounded_chain(void **state)
{
	struct nvl_client *c = client();
	uint32_t h = mk(c, 0);

	(void)state;
	for (uint64_t p = 1; p <= 1000; p++)
		assert_int_equal(nvl_syncobj_timeline_signal(c, &h, &p, 1), 0);
	assert_true(syncobj_chain_len(c, h) <= 40);
	nvl_client_destroy(c);
}

/*
 * The exec pattern: each job's out-fence is a new point, and the jobs
 * @depth points back finished by then (a queue @depth deep). A point
 * whose fence does not signal stays, and so do the points after it, but
 * not the signalled points behind it.
 */
static void exec_points(struct nvl_client *c, uint32_t h, unsigned depth)
{
	struct nvl_fence *f[1000];

	for (unsigned i = 0; i < 1000; i++) {
		f[i] = pending_fence();
		add_point(c, h, f[i], i + 1);
		if (i >= depth)
			nvl_fence_signal(f[i - depth]);
	}
	for (unsigned i = 0; i < 1000; i++) {
		nvl_fence_signal(f[i]);
		nvl_fence_put(f[i]);
	}
}

static void driver_points_keep_a_bounded_chain(void **state)
{
	struct nvl_client *c = client();
	uint32_t h = mk(c, 0), h2 = mk(c, 0), h3 = mk(c, 0);
	struct nvl_fence *stuck = pending_fence();

	(void)state;
	exec_points(c, h, 1);
	assert_true(syncobj_chain_len(c, h) <= 40);
	exec_points(c, h3, 8);
	assert_true(syncobj_chain_len(c, h3) <= 60);

	add_point(c, h2, stuck, 1);
	for (uint64_t p = 2; p <= 1000; p++) {
		struct nvl_fence *f = pending_fence();

		nvl_fence_signal(f);
		add_point(c, h2, f, p);
		nvl_fence_put(f);
	}
	assert_true(syncobj_chain_len(c, h2) <= 40);
	nvl_fence_signal(stuck);
	nvl_fence_put(stuck);
	nvl_client_destroy(c);
}

struct gc_race {
	struct nvl_client *c;
	uint32_t h, h2;
	struct nvl_fence *f[4000];
	atomic_uint added, signalled;
	atomic_bool failed;
};

/* points 1..4000 on h; now and then h's head moved to h2 (binary) and a
 * point appended there, so h2's points share h's nodes as predecessors */
static void *gc_producer(void *arg)
{
	struct gc_race *r = arg;

	for (unsigned i = 0; i < 4000; i++) {
		add_point(r->c, r->h, r->f[i], i + 1);
		atomic_store(&r->added, i + 1);
		if (i % 7 == 0) {
			struct nvl_fence *g = pending_fence();

			nvl_fence_signal(g);
			assert_int_equal(nvl_syncobj_transfer(r->c, r->h2, 0,
							      r->h, i + 1, 0),
					 0);
			add_point(r->c, r->h2, g, i + 2);
			nvl_fence_put(g);
		}
	}
	return NULL;
}

static void *gc_signaller(void *arg)
{
	struct gc_race *r = arg;

	for (unsigned i = 0; i < 4000; i++) {
		while (atomic_load(&r->added) < NVL_MIN(i + 4, 4000u))
			sched_yield();
		nvl_fence_signal(r->f[i]);
		atomic_store(&r->signalled, i + 1);
	}
	return NULL;
}

/* waits for and queries points while they are collected */
static void *gc_walker(void *arg)
{
	struct gc_race *r = arg;
	uint64_t last = 0;

	while (atomic_load(&r->signalled) < 4000) {
		unsigned s = atomic_load(&r->signalled);
		uint64_t q = 0, p = s ? s : 1;

		/* the signaller stores signalled after it signals: at most one
		 * point ahead of it may have signalled already */
		if (nvl_syncobj_query(r->c, &r->h, &q, 1, 0) || q < last ||
		    q > atomic_load(&r->signalled) + 1)
			atomic_store(&r->failed, true);
		last = q;
		if (s && nvl_syncobj_wait(r->c, &r->h, &p, 1, 0, 0, NULL))
			atomic_store(&r->failed, true);
		(void)!nvl_syncobj_query(r->c, &r->h2, &q, 1, 0);
	}
	return NULL;
}

/*
 * The collecting walk of add_point against everything else that walks or
 * links the timeline: waits and queries (which collect too), a signaller,
 * and a second syncobj whose points link to this one's nodes (a node with
 * two successors is unlinked the shared way). QUERY stays monotonic and
 * never passes what signalled; ASan and TSan watch the rest.
 */
static void collection_races_walkers_and_shared_nodes(void **state)
{
	static struct gc_race r;
	pthread_t t[4];

	(void)state;
	r.c = client();
	r.h = mk(r.c, 0);
	r.h2 = mk(r.c, 0);
	atomic_store(&r.added, 0);
	atomic_store(&r.signalled, 0);
	atomic_store(&r.failed, false);
	for (unsigned i = 0; i < 4000; i++)
		r.f[i] = pending_fence();
	pthread_create(&t[0], NULL, gc_producer, &r);
	pthread_create(&t[1], NULL, gc_signaller, &r);
	pthread_create(&t[2], NULL, gc_walker, &r);
	pthread_create(&t[3], NULL, gc_walker, &r);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	assert_false(atomic_load(&r.failed));
	for (unsigned i = 0; i < 4000; i++)
		nvl_fence_put(r.f[i]);
	nvl_client_destroy(r.c);
}

struct sig_arg {
	struct nvl_fence *f;
	atomic_bool done;
};

static void *signal_thread(void *arg)
{
	struct sig_arg *a = arg;

	nvl_fence_signal(a->f);
	atomic_store(&a->done, true);
	return NULL;
}

/*
 * An eventfd write blocks while the counter would overflow: the client
 * that registered the eventfd filled it (a single write of 2^64 - 2 does),
 * and the signaller of the watched fence, maybe a thread that completes
 * every client's jobs, blocked in write() inside its signalling section,
 * holding the fence's lock, until the client read the eventfd. A
 * saturated eventfd is readable already: the signaller leaves it alone.
 */
static void saturated_eventfd_does_not_block_the_signaller(void **state)
{
	struct nvl_client *c = client();
	uint32_t h = mk(c, 0);
	struct sig_arg a = {.f = pending_fence()};
	struct nvl_syncobj *o = nvl_syncobj_find(c, h);
	uint64_t v = 0xfffffffffffffffeull;
	struct pollfd pfd;
	pthread_t t;
	bool done = false;
	int efd = eventfd(0, EFD_CLOEXEC);

	(void)state;
	assert_true(efd >= 0);
	assert_int_equal(write(efd, &v, sizeof(v)), sizeof(v));
	nvl_syncobj_replace_fence(o, a.f);
	nvl_syncobj_put(o);
	assert_int_equal(nvl_syncobj_eventfd(c, h, 0, efd, 0), 0);
	pthread_create(&t, NULL, signal_thread, &a);
	for (int i = 0; i < 200 && !done; i++) {
		usleep(10000);
		done = atomic_load(&a.done);
	}
	pfd = (struct pollfd){.fd = efd, .events = POLLIN};
	assert_int_equal(poll(&pfd, 1, 0), 1); /* still readable */
	/* unblocks a signaller stuck in write() */
	assert_int_equal(read(efd, &v, sizeof(v)), sizeof(v));
	pthread_join(t, NULL);
	assert_true(done);
	nvl_fence_put(a.f);
	close(efd);
	nvl_client_destroy(c);
}

/* NULL is bad input for every wait, not only nvl_fence_wait_flags() */
static void wait_on_null_is_einval(void **state)
{
	(void)state;
	assert_int_equal(nvl_fence_wait(NULL, 0), -EINVAL);
	assert_int_equal(nvl_fence_wait(NULL, NVL_NSEC_PER_MSEC), -EINVAL);
	assert_int_equal(nvl_fence_wait_until(NULL, 0), -EINVAL);
	assert_int_equal(nvl_fence_wait_until(NULL, NVL_TIMEOUT_INFINITE),
			 -EINVAL);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(signalled_timeline_keeps_a_bounded_chain),
	cmocka_unit_test(driver_points_keep_a_bounded_chain),
	cmocka_unit_test(collection_races_walkers_and_shared_nodes),
	cmocka_unit_test(saturated_eventfd_does_not_block_the_signaller),
	cmocka_unit_test(wait_on_null_is_einval),
};

T_MAIN(tests)

// SPDX-License-Identifier: MIT
/*
 * TEST: flock_asym
 * Description: the asymmetric release of a futex lock (issue 19): takers
 * that sleep are woken whether the holder releases with
 * nvl_flock_unlock_asym() or nvl_flock_unlock(); mutual exclusion holds;
 * a lost wake-up would hang the test (meson's timeout fails it).
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "t.h"
#include "base/flock.h"

#define THREADS 3
#define ITERS 4000

struct shared {
	struct nvl_flock lock;
	long counter; /* under the lock */
	atomic_int inside;
	int overlap;
};

struct worker {
	struct shared *s;
	int id;
};

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	struct shared *s = w->s;

	for (int i = 0; i < ITERS; i++) {
		nvl_flock_lock(&s->lock);
		if (atomic_fetch_add(&s->inside, 1))
			s->overlap = 1;
		s->counter++;
		/* hold it across a yield now and then: others go to sleep */
		if ((i + w->id) % 8 == 0)
			sched_yield();
		atomic_fetch_sub(&s->inside, 1);
		if ((i + w->id) % 3)
			nvl_flock_unlock_asym(&s->lock);
		else
			nvl_flock_unlock(&s->lock);
	}
	return NULL;
}

static void sleepers_are_woken_by_either_release(void **state)
{
	struct shared s = {.counter = 0};
	struct worker w[THREADS];
	pthread_t th[THREADS];

	(void)state;
	nvl_flock_init(&s.lock);
	nvl_flock_asym_enable(&s.lock);
	for (int i = 0; i < THREADS; i++) {
		w[i] = (struct worker){.s = &s, .id = i};
		assert_int_equal(pthread_create(&th[i], NULL, worker_fn, &w[i]),
				 0);
	}
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(s.overlap, 0);
	assert_int_equal(s.counter, (long)THREADS * ITERS);
	assert_int_equal(atomic_load(&s.lock.v), 0);
	assert_int_equal(
		atomic_load(&nvl_flock_sleepers[nvl_flock_bucket(&s.lock)]), 0);
	nvl_flock_asym_disable(&s.lock);
}

/* an uncontended asymmetric release frees the lock for the next taker */
static void an_asymmetric_release_frees_the_lock(void **state)
{
	struct nvl_flock l;

	(void)state;
	nvl_flock_init(&l);
	nvl_flock_asym_enable(&l);
	assert_true(nvl_flock_trylock(&l));
	assert_false(nvl_flock_trylock(&l));
	nvl_flock_unlock_asym(&l);
	assert_true(nvl_flock_trylock(&l));
	nvl_flock_unlock(&l);
	nvl_flock_asym_disable(&l);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(an_asymmetric_release_frees_the_lock),
	cmocka_unit_test(sleepers_are_woken_by_either_release),
};

T_MAIN(tests)

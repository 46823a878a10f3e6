// SPDX-License-Identifier: MIT
/*
 * TEST: freelist
 * Description: the bounded process-wide object cache: what is put comes
 * back (once), a full cache refuses, a thread's list goes back to the
 * shared stack at the thread's exit with the count right, and threads
 * putting and getting at once lose and duplicate nothing.
 */
#include <pthread.h>
#include <stdlib.h>

#include "t.h"
#include "base/alloc.h"
#include "base/freelist.h"

struct obj {
	void *link; /* the cache's */
	int id;
};

static struct nvl_freelist fl4 = NVL_FREELIST_INIT(4);
static _Thread_local struct nvl_freelist_local fl4_local =
	NVL_FREELIST_LOCAL_INIT(&fl4);

static void drain_all(void)
{
	void *o;

	while ((o = nvl_freelist_get(&fl4_local)))
		free(o);
}

static void put_get_round_trip_and_bound(void **state)
{
	struct obj *o[5];
	bool seen[5] = {false};

	(void)state;
	assert_null(nvl_freelist_get(&fl4_local));
	for (int i = 0; i < 5; i++) {
		o[i] = malloc(sizeof(*o[i]));
		o[i]->id = i;
	}
	for (int i = 0; i < 4; i++)
		assert_true(nvl_freelist_put(&fl4, o[i]));
	/* the fifth does not fit: the caller frees it */
	assert_false(nvl_freelist_put(&fl4, o[4]));
	free(o[4]);
	for (int i = 0; i < 4; i++) {
		struct obj *g = nvl_freelist_get(&fl4_local);

		assert_non_null(g);
		for (int k = 0; k < 4; k++)
			if (g == o[k]) {
				assert_false(seen[k]);
				seen[k] = true;
			}
		free(g);
	}
	assert_null(nvl_freelist_get(&fl4_local));
	assert_int_equal(atomic_load(&fl4.cached), 0);
}

static void *take_one_and_exit(void *arg)
{
	(void)arg;
	/* takes the whole stack into its own list, uses one */
	free(nvl_freelist_get(&fl4_local));
	return NULL;
}

static void thread_exit_gives_its_list_back(void **state)
{
	pthread_t th;

	(void)state;
	for (int i = 0; i < 4; i++)
		assert_true(nvl_freelist_put(&fl4, malloc(sizeof(struct obj))));
	assert_int_equal(pthread_create(&th, NULL, take_one_and_exit, NULL), 0);
	pthread_join(th, NULL);
	/* three went back to the stack; one more fits */
	assert_int_equal(atomic_load(&fl4.cached), 3);
	assert_true(nvl_freelist_put(&fl4, malloc(sizeof(struct obj))));
	assert_int_equal(atomic_load(&fl4.cached), 4);
	drain_all();
	assert_int_equal(atomic_load(&fl4.cached), 0);
}

#define NT 4
#define ROUNDS 20000

struct cobj {
	void *link; /* the cache's */
	atomic_int owned; /* 1 while a thread holds it */
};

static struct nvl_freelist fl64 = NVL_FREELIST_INIT(64);
static _Thread_local struct nvl_freelist_local fl64_local =
	NVL_FREELIST_LOCAL_INIT(&fl64);
static atomic_int errors;

static void *churn(void *arg)
{
	struct cobj *mine[8] = {0};

	(void)arg;
	for (int r = 0; r < ROUNDS; r++) {
		int k = r % 8;

		if (mine[k]) {
			atomic_store(&mine[k]->owned, 0);
			if (!nvl_freelist_put(&fl64, mine[k]))
				free(mine[k]);
			mine[k] = NULL;
			continue;
		}
		mine[k] = nvl_freelist_get(&fl64_local);
		if (!mine[k]) {
			mine[k] = malloc(sizeof(*mine[k]));
			atomic_init(&mine[k]->owned, 0);
		}
		/* handed to one thread at a time */
		if (atomic_exchange(&mine[k]->owned, 1))
			atomic_fetch_add(&errors, 1);
	}
	for (int k = 0; k < 8; k++)
		free(mine[k]);
	return NULL;
}

static void threads_put_and_get_at_once(void **state)
{
	pthread_t th[NT];
	void *o;
	int n = 0;

	(void)state;
	for (int i = 0; i < NT; i++)
		assert_int_equal(pthread_create(&th[i], NULL, churn, NULL), 0);
	for (int i = 0; i < NT; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(atomic_load(&errors), 0);
	/* every thread's list went back: the count is what is cached */
	while ((o = nvl_freelist_get(&fl64_local))) {
		free(o);
		n++;
	}
	assert_true(n <= 64);
	assert_int_equal(atomic_load(&fl64.cached), 0);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(put_get_round_trip_and_bound),
	cmocka_unit_test(thread_exit_gives_its_list_back),
	cmocka_unit_test(threads_put_and_get_at_once),
};

T_MAIN(tests)

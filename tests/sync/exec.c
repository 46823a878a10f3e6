// SPDX-License-Identifier: MIT
/*
 * TEST: exec
 * Description: multi-object locking with the exec helper: duplicates,
 * prepare (reserve), many threads locking overlapping sets in different
 * orders with no deadlock and no lost wake-up, mutual exclusion verified by
 * per-object owner counters, allocation failure while tracking.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "t.h"
#include "sync/exec.h"

#define NOBJ 16

struct obj {
	struct nvl_resv resv;
	atomic_int holders;
	long counter;
};

static struct obj objs[NOBJ];

static void init_objs(void)
{
	for (int i = 0; i < NOBJ; i++) {
		nvl_resv_init(&objs[i].resv);
		atomic_init(&objs[i].holders, 0);
		objs[i].counter = 0;
	}
}

static void fini_objs(void)
{
	for (int i = 0; i < NOBJ; i++)
		nvl_resv_fini(&objs[i].resv);
}

static void duplicates_are_rejected_or_ignored(void **state)
{
	struct nvl_exec exec;
	int ret = 0;

	init_objs();
	nvl_exec_init(&exec, 0, 0);
	nvl_exec_until_all_locked(&exec)
	{
		ret = nvl_exec_lock_obj(&exec, &objs[0].resv);
		nvl_exec_retry_on_contention(&exec);
		assert_int_equal(ret, 0);
		ret = nvl_exec_lock_obj(&exec, &objs[0].resv);
		nvl_exec_retry_on_contention(&exec);
	}
	assert_int_equal(ret, -EALREADY);
	assert_int_equal(exec.num_objects, 1);
	nvl_exec_fini(&exec);
	assert_false(nvl_ww_mutex_is_locked(&objs[0].resv.lock));

	nvl_exec_init(&exec, NVL_EXEC_IGNORE_DUPLICATES, 0);
	nvl_exec_until_all_locked(&exec)
	{
		for (int i = 0; i < 3; i++) {
			ret = nvl_exec_prepare_obj(&exec, &objs[1].resv, 2);
			nvl_exec_retry_on_contention(&exec);
			assert_int_equal(ret, 0);
		}
	}
	assert_int_equal(exec.num_objects, 1);
	assert_true(objs[1].resv.usable >= 2);
	nvl_exec_unlock_obj(&exec, &objs[1].resv);
	assert_int_equal(exec.num_objects, 0);
	assert_false(nvl_ww_mutex_is_locked(&objs[1].resv.lock));
	nvl_exec_fini(&exec);
	fini_objs();
}

struct worker {
	int id;
	int iters;
	uint64_t seed;
	long retries;
};

static void *worker_fn(void *p)
{
	struct worker *w = p;
	uint64_t rng = w->seed;

	for (int it = 0; it < w->iters; it++) {
		int set[6], n = 2 + (int)(t_rand(&rng) % 5);
		struct nvl_exec exec;
		int ret = 0, passes = 0;

		for (int i = 0; i < n; i++)
			set[i] = (int)(t_rand(&rng) % NOBJ);
		nvl_exec_init(&exec, NVL_EXEC_IGNORE_DUPLICATES, (unsigned)n);
		nvl_exec_until_all_locked(&exec)
		{
			passes++;
			for (int i = 0; i < n; i++) {
				ret = nvl_exec_lock_obj(&exec,
							&objs[set[i]].resv);
				nvl_exec_retry_on_contention(&exec);
				if (ret)
					break;
			}
		}
		w->retries += passes - 1;
		if (ret) {
			nvl_exec_fini(&exec);
			return (void *)1;
		}
		/* exclusive: nobody else may be inside these objects */
		for (unsigned i = 0; i < exec.num_objects; i++) {
			struct obj *o =
				container_of(exec.objects[i], struct obj, resv);

			if (atomic_fetch_add(&o->holders, 1) != 0)
				return (void *)2;
			o->counter++;
		}
		if (it % 4 == 0)
			sched_yield(); /* hold the locks a while: contention */
		for (unsigned i = 0; i < exec.num_objects; i++) {
			struct obj *o =
				container_of(exec.objects[i], struct obj, resv);

			atomic_fetch_sub(&o->holders, 1);
		}
		nvl_exec_fini(&exec);
	}
	return NULL;
}

static void many_threads_overlapping_sets_no_deadlock(void **state)
{
	enum { NT = 8 };
	struct worker w[NT];
	pthread_t t[NT];
	uint64_t seed = t_seed(0x5eed);
	long total = 0, expect = 0, retries = 0;

	init_objs();
	for (int i = 0; i < NT; i++) {
		w[i] = (struct worker){.id = i,
				       .iters = (int)(400 * t_scale()),
				       .seed = seed + (uint64_t)i * 7919};
		pthread_create(&t[i], NULL, worker_fn, &w[i]);
	}
	for (int i = 0; i < NT; i++) {
		void *r;

		pthread_join(t[i], &r);
		assert_null(r);
	}
	for (int i = 0; i < NOBJ; i++) {
		total += objs[i].counter;
		assert_false(nvl_ww_mutex_is_locked(&objs[i].resv.lock));
	}
	/* recompute the expected number of distinct-object visits */
	for (int i = 0; i < NT; i++) {
		uint64_t rng = w[i].seed;

		for (int it = 0; it < w[i].iters; it++) {
			int n = 2 + (int)(t_rand(&rng) % 5);
			bool seen[NOBJ] = {false};

			for (int k = 0; k < n; k++) {
				int o = (int)(t_rand(&rng) % NOBJ);

				expect += !seen[o];
				seen[o] = true;
			}
		}
	}
	assert_int_equal(total, expect);
	for (int i = 0; i < NT; i++)
		retries += w[i].retries;
	printf("# %ld back-offs in %d transactions\n", retries,
	       NT * w[0].iters);
	fini_objs();
}

static int lock_many_op(void *arg)
{
	struct nvl_exec exec;
	int ret = 0;

	nvl_exec_init(&exec, 0, 0);
	nvl_exec_until_all_locked(&exec)
	{
		for (int i = 0; i < NOBJ; i++) {
			ret = nvl_exec_prepare_obj(&exec, &objs[i].resv, 1);
			nvl_exec_retry_on_contention(&exec);
			if (ret)
				goto out;
		}
	}
out:
	nvl_exec_fini(&exec);
	return ret;
}

static void check_unlocked(int ret, void *arg)
{
	assert_int_equal(ret, -ENOMEM);
	for (int i = 0; i < NOBJ; i++)
		assert_false(nvl_ww_mutex_is_locked(&objs[i].resv.lock));
}

static void tracking_fails_cleanly_without_memory(void **state)
{
	init_objs();
	assert_true(t_fail_each_alloc(lock_many_op, check_unlocked, NULL, 100) >
		    0);
	fini_objs();
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(duplicates_are_rejected_or_ignored),
	cmocka_unit_test(many_threads_overlapping_sets_no_deadlock),
	cmocka_unit_test(tracking_fails_cleanly_without_memory),
};

T_MAIN(tests)

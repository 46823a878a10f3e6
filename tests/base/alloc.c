// SPDX-License-Identifier: MIT
/*
 * TEST: alloc
 * Description: allocation hooks: failure injection (nth, random, per-thread
 * scope), the observer hook, overflow checks, and failing each allocation of
 * a multi-allocation operation in turn (no leak, -ENOMEM, nothing changed).
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "t.h"
#include "base/alloc.h"
#include "base/client.h"
#include "base/idr.h"

static void nth_allocation_fails_then_recovers(void **state)
{
	void *a, *b, *c;

	nvl_fault_fail_nth(2, NVL_FAULT_THIS_THREAD);
	a = nvl_malloc(16);
	b = nvl_malloc(16);
	c = nvl_malloc(16);
	assert_non_null(a);
	assert_null(b);
	assert_non_null(c);
	assert_int_equal(nvl_fault_hits(), 1);
	nvl_free(a);
	nvl_free(c);
	nvl_fault_off();
}

static void every_wrapper_honours_injection(void **state)
{
	void *p = nvl_malloc(8);

	assert_non_null(p);
	nvl_fault_fail_nth(1, NVL_FAULT_THIS_THREAD);
	assert_null(nvl_zalloc(8));
	nvl_fault_fail_nth(1, NVL_FAULT_THIS_THREAD);
	assert_null(nvl_calloc(2, 8));
	nvl_fault_fail_nth(1, NVL_FAULT_THIS_THREAD);
	assert_null(nvl_realloc(p, 64)); /* p stays valid on failure */
	nvl_fault_fail_nth(1, NVL_FAULT_THIS_THREAD);
	assert_null(nvl_aligned_alloc(64, 128));
	nvl_fault_fail_nth(1, NVL_FAULT_THIS_THREAD);
	assert_null(nvl_strdup("x"));
	nvl_fault_fail_nth(1, NVL_FAULT_THIS_THREAD);
	assert_int_equal(nvl_might_alloc(8), -ENOMEM);
	assert_int_equal(nvl_might_alloc(8), 0);
	nvl_free(p);
}

static void overflowing_array_sizes_fail(void **state)
{
	assert_null(nvl_calloc(SIZE_MAX / 2, 4));
	assert_null(nvl_reallocarray(NULL, SIZE_MAX / 2, 4));
}

static void random_injection_is_reproducible(void **state)
{
	int first[64], second[64];

	for (int round = 0; round < 2; round++) {
		int *out = round ? second : first;

		nvl_fault_fail_random(0.3, 42, NVL_FAULT_THIS_THREAD);
		for (int i = 0; i < 64; i++) {
			void *p = nvl_malloc(4);

			out[i] = p != NULL;
			nvl_free(p);
		}
		nvl_fault_off();
	}
	assert_memory_equal(first, second, sizeof(first));
	/* p = 0.3 over 64 draws: some failed, some did not. */
	int fails = 0;
	for (int i = 0; i < 64; i++)
		fails += !first[i];
	assert_true(fails > 3 && fails < 40);
}

static void *alloc_in_thread(void *arg)
{
	void *p = nvl_malloc(8);

	*(bool *)arg = p != NULL;
	nvl_free(p);
	return NULL;
}

static void this_thread_scope_spares_other_threads(void **state)
{
	pthread_t t;
	bool ok = false;
	void *p;

	nvl_fault_fail_nth(1, NVL_FAULT_THIS_THREAD);
	pthread_create(&t, NULL, alloc_in_thread, &ok);
	pthread_join(t, NULL);
	assert_true(ok);
	p = nvl_malloc(8);
	assert_null(p);
	nvl_fault_off();
}

static size_t observed_bytes;

static void observer(size_t size_B)
{
	observed_bytes += size_B;
}

static void observer_sees_every_allocation(void **state)
{
	void *p;

	observed_bytes = 0;
	nvl_alloc_set_observer(observer);
	p = nvl_malloc(100);
	nvl_free(p);
	p = nvl_zalloc(28);
	nvl_free(p);
	nvl_alloc_set_observer(NULL);
	assert_int_equal(observed_bytes, 128);
}

/*
 * A multi-allocation operation: a client with 300 handles needs the client,
 * then several growths of its id tables. Failing each allocation in turn must
 * return -ENOMEM, leak nothing (ASan) and leave no client behind.
 */
static int build_client(void *arg)
{
	static int dummy[300];
	struct nvl_client *c;
	uint32_t h;
	int ret = nvl_client_alloc(NULL, &c);

	if (ret)
		return ret;
	for (int i = 0; i < 300; i++) {
		ret = nvl_client_handle_add(c, NVL_HANDLE_SYNCOBJ, &dummy[i],
					    &h);
		if (ret) {
			nvl_client_put(c);
			return ret;
		}
		assert_int_equal(h, (uint32_t)i + 1);
	}
	*(int *)arg += 1;
	nvl_client_put(c);
	return 0;
}

static void check_enomem(int ret, void *arg)
{
	assert_int_equal(ret, -ENOMEM);
	assert_int_equal(*(int *)arg, 0);
}

static void multi_allocation_op_fails_cleanly_at_each_allocation(void **state)
{
	int completed = 0;
	unsigned long n =
		t_fail_each_alloc(build_client, check_enomem, &completed, 1000);

	assert_int_equal(completed, 1);
	/* client + several slot/free-array growths */
	assert_true(n >= 5);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(nth_allocation_fails_then_recovers),
	cmocka_unit_test(every_wrapper_honours_injection),
	cmocka_unit_test(overflowing_array_sizes_fail),
	cmocka_unit_test(random_injection_is_reproducible),
	cmocka_unit_test(this_thread_scope_spares_other_threads),
	cmocka_unit_test(observer_sees_every_allocation),
	cmocka_unit_test(multi_allocation_op_fails_cleanly_at_each_allocation),
};

T_MAIN(tests)

// SPDX-License-Identifier: MIT
/*
 * TEST: idr
 * Description: handle ids start at 1, lowest free id is reused, lookups of
 * unknown ids fail, reserve guarantees later allocations, random operations
 * against a reference.
 */
#include <errno.h>
#include <stdlib.h>

#include "t.h"
#include "base/idr.h"

static void ids_start_at_one_and_zero_is_invalid(void **state)
{
	struct nvl_idr idr;
	uint32_t id;
	int x;

	nvl_idr_init(&idr);
	assert_int_equal(nvl_idr_alloc(&idr, &x, &id), 0);
	assert_int_equal(id, 1);
	assert_null(nvl_idr_find(&idr, 0));
	assert_ptr_equal(nvl_idr_find(&idr, 1), &x);
	assert_null(nvl_idr_find(&idr, 2));
	assert_null(nvl_idr_find(&idr, UINT32_MAX));
	assert_int_equal(nvl_idr_alloc(&idr, NULL, &id), -EINVAL);
	nvl_idr_fini(&idr);
}

static void lowest_free_id_is_reused(void **state)
{
	struct nvl_idr idr;
	uint32_t id;
	int x[10];

	nvl_idr_init(&idr);
	for (int i = 0; i < 10; i++)
		assert_int_equal(nvl_idr_alloc(&idr, &x[i], &id), 0);
	assert_ptr_equal(nvl_idr_remove(&idr, 7), &x[6]);
	assert_ptr_equal(nvl_idr_remove(&idr, 3), &x[2]);
	assert_null(nvl_idr_remove(&idr, 3));
	assert_int_equal(nvl_idr_alloc(&idr, &x[0], &id), 0);
	assert_int_equal(id, 3);
	assert_int_equal(nvl_idr_alloc(&idr, &x[0], &id), 0);
	assert_int_equal(id, 7);
	assert_int_equal(nvl_idr_alloc(&idr, &x[0], &id), 0);
	assert_int_equal(id, 11);
	assert_int_equal(idr.count, 11);
	nvl_idr_fini(&idr);
}

static void reserve_makes_allocations_infallible(void **state)
{
	struct nvl_idr idr;
	uint32_t id;
	int x;

	nvl_idr_init(&idr);
	assert_int_equal(nvl_idr_reserve(&idr, 100), 0);
	nvl_fault_fail_random(1.0, 1, NVL_FAULT_THIS_THREAD);
	for (int i = 0; i < 100; i++)
		assert_int_equal(nvl_idr_alloc(&idr, &x, &id), 0);
	nvl_fault_off();
	assert_true(nvl_fault_hits() == 0);
	assert_int_equal(idr.count, 100);
	nvl_idr_fini(&idr);
}

static void random_ops_match_reference(void **state)
{
	enum { N = 2000 };
	struct nvl_idr idr;
	void **ref = calloc(N + 1, sizeof(*ref));
	uint64_t rng = t_seed(7);
	int obj[N + 1];

	nvl_idr_init(&idr);
	for (int k = 0; k < 50000; k++) {
		uint32_t id;

		if (t_rand(&rng) % 3) {
			if (idr.count >= N)
				continue;
			assert_int_equal(nvl_idr_alloc(&idr, &obj[k % N], &id),
					 0);
			assert_true(id >= 1 && id <= N);
			assert_null(ref[id]);
			/* lowest free: every id below is live */
			for (uint32_t j = 1; j < id; j++)
				assert_non_null(ref[j]);
			ref[id] = &obj[k % N];
		} else {
			id = (uint32_t)(t_rand(&rng) % N) + 1;
			assert_ptr_equal(nvl_idr_remove(&idr, id), ref[id]);
			ref[id] = NULL;
		}
	}
	for (uint32_t id = 1; id <= N; id++)
		assert_ptr_equal(nvl_idr_find(&idr, id), ref[id]);
	{
		void *p;
		uint32_t id = 0, seen = 0;

		while ((id = nvl_idr_next(&idr, id + 1, &p)) != 0) {
			assert_ptr_equal(p, ref[id]);
			seen++;
		}
		assert_int_equal(seen, idr.count);
	}
	nvl_idr_fini(&idr);
	free(ref);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(ids_start_at_one_and_zero_is_invalid),
	cmocka_unit_test(lowest_free_id_is_reused),
	cmocka_unit_test(reserve_makes_allocations_infallible),
	cmocka_unit_test(random_ops_match_reference),
};

T_MAIN(tests)

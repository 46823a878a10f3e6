// SPDX-License-Identifier: MIT
/*
 * TEST: array_chain
 * Description: fence arrays (all/any, first error wins, lazy polling,
 * deadlines, allocation split) and chains (in-order point semantics,
 * unordered points, find_seqno, garbage collection, error propagation,
 * long timelines released without recursion), and unwrap.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "t.h"
#include "sync/fence_array.h"
#include "sync/fence_chain.h"

static struct nvl_fence *mkf(void)
{
	struct nvl_fence *f;

	assert_int_equal(nvl_fence_create(&f, nvl_fence_context_alloc(1), 1),
			 0);
	return f;
}

static struct nvl_fence_array *mk_array(struct nvl_fence **kids, unsigned n,
					bool any)
{
	struct nvl_fence **arr = nvl_calloc(n, sizeof(*arr));
	struct nvl_fence_array *a;

	assert_non_null(arr);
	for (unsigned i = 0; i < n; i++)
		arr[i] = nvl_fence_get(kids[i]);
	assert_int_equal(nvl_fence_array_create(n, arr,
						nvl_fence_context_alloc(1), 1,
						any, &a),
			 0);
	return a;
}

static void array_all_signals_after_last_child(void **state)
{
	struct nvl_fence *k[3] = {mkf(), mkf(), mkf()};
	struct nvl_fence_array *a = mk_array(k, 3, false);

	assert_int_equal(nvl_fence_wait(&a->base, 0), -ETIME);
	nvl_fence_enable_sw_signaling(&a->base);
	nvl_fence_signal(k[1]);
	nvl_fence_signal(k[0]);
	assert_false(nvl_fence_is_signaled(&a->base));
	nvl_fence_signal(k[2]);
	assert_true(nvl_fence_is_signaled(&a->base));
	assert_int_equal(nvl_fence_get_status(&a->base), 1);
	assert_true(nvl_to_fence_array(&a->base) == a);
	assert_null(nvl_to_fence_array(k[0]));
	nvl_fence_put(&a->base);
	for (int i = 0; i < 3; i++)
		nvl_fence_put(k[i]);
}

static void array_any_signals_on_first_child(void **state)
{
	struct nvl_fence *k[3] = {mkf(), mkf(), mkf()};
	struct nvl_fence_array *a = mk_array(k, 3, true);

	nvl_fence_enable_sw_signaling(&a->base);
	nvl_fence_signal(k[2]);
	assert_true(nvl_fence_is_signaled(&a->base));
	/* every fence signals eventually: the rest release their callbacks */
	nvl_fence_signal(k[0]);
	nvl_fence_signal(k[1]);
	nvl_fence_put(&a->base);
	for (int i = 0; i < 3; i++)
		nvl_fence_put(k[i]);
}

static void array_first_error_wins(void **state)
{
	struct nvl_fence *k[3] = {mkf(), mkf(), mkf()};
	struct nvl_fence_array *a = mk_array(k, 3, false);

	nvl_fence_enable_sw_signaling(&a->base);
	nvl_fence_signal(k[0]);
	nvl_fence_set_error(k[2], -EIO);
	nvl_fence_signal(k[2]);
	nvl_fence_set_error(k[1], -ENODEV);
	nvl_fence_signal(k[1]);
	assert_int_equal(nvl_fence_get_status(&a->base), -EIO);
	nvl_fence_put(&a->base);
	for (int i = 0; i < 3; i++)
		nvl_fence_put(k[i]);
}

static void array_polled_without_arming_and_prearmed_children(void **state)
{
	struct nvl_fence *k[2] = {mkf(), mkf()};
	struct nvl_fence_array *a = mk_array(k, 2, false), *b;

	nvl_fence_set_error(k[1], -ECANCELED);
	nvl_fence_signal(k[0]);
	nvl_fence_signal(k[1]);
	/* never armed: signaled() polls the children */
	assert_true(nvl_fence_is_signaled(&a->base));
	assert_int_equal(nvl_fence_get_status(&a->base), -ECANCELED);
	/* armed after the children signalled: enable returns false */
	b = mk_array(k, 2, false);
	assert_int_equal(nvl_fence_wait(&b->base, NVL_NSEC_PER_SEC), 0);
	assert_int_equal(nvl_fence_get_status(&b->base), -ECANCELED);
	nvl_fence_put(&a->base);
	nvl_fence_put(&b->base);
	nvl_fence_put(k[0]);
	nvl_fence_put(k[1]);
}

static void *signal_later(void *p)
{
	usleep(5000);
	nvl_fence_signal(p);
	return NULL;
}

static void array_of_arrays_waited_from_other_thread(void **state)
{
	struct nvl_fence *k[2] = {mkf(), mkf()};
	struct nvl_fence_array *in = mk_array(k, 2, false);
	struct nvl_fence *outer_kids[1] = {&in->base};
	struct nvl_fence_array *out = mk_array(outer_kids, 1, false);
	pthread_t t;

	nvl_fence_signal(k[0]);
	pthread_create(&t, NULL, signal_later, k[1]);
	assert_int_equal(nvl_fence_wait(&out->base, 5 * NVL_NSEC_PER_SEC), 0);
	pthread_join(t, NULL);
	nvl_fence_put(&out->base);
	nvl_fence_put(&in->base);
	nvl_fence_put(k[0]);
	nvl_fence_put(k[1]);
}

static void array_bad_input_and_alloc_failure(void **state)
{
	struct nvl_fence_array *a;
	struct nvl_fence *k = mkf(), **arr;

	assert_null(nvl_fence_array_alloc(0));
	assert_int_equal(nvl_fence_array_create(0, &k, 1, 1, false, &a),
			 -EINVAL);
	arr = nvl_calloc(1, sizeof(*arr));
	arr[0] = nvl_fence_get(k);
	nvl_fault_fail_nth(1, NVL_FAULT_THIS_THREAD);
	assert_int_equal(nvl_fence_array_create(1, arr, 1, 1, false, &a),
			 -ENOMEM);
	nvl_fault_off();
	/* ownership did not pass */
	assert_int_equal(nvl_kref_read(&k->refcount), 2);
	assert_int_equal(nvl_fence_array_create(1, arr, 1, 1, false, &a), 0);
	nvl_fence_put(&a->base);
	nvl_fence_put(k);
}

/* ---- chains ---------------------------------------------------------- */

static struct nvl_fence *add_point(struct nvl_fence *head, struct nvl_fence *f,
				   uint64_t seqno)
{
	struct nvl_fence_chain *c = nvl_fence_chain_alloc();

	assert_non_null(c);
	nvl_fence_chain_init(c, head, nvl_fence_get(f), seqno);
	return &c->base;
}

static void chain_point_waits_for_all_earlier_points(void **state)
{
	struct nvl_fence *f[3] = {mkf(), mkf(), mkf()};
	struct nvl_fence *head = NULL, *p2;

	for (int i = 0; i < 3; i++)
		head = add_point(head, f[i], (uint64_t)i + 1);
	assert_int_equal(head->seqno, 3);
	/* point 3's own fence signals first: still pending */
	nvl_fence_enable_sw_signaling(head);
	nvl_fence_signal(f[2]);
	assert_false(nvl_fence_is_signaled(head));
	nvl_fence_signal(f[0]);
	assert_false(nvl_fence_is_signaled(head));
	p2 = nvl_fence_get(head);
	assert_int_equal(nvl_fence_chain_find_seqno(&p2, 2), 0);
	assert_non_null(p2);
	assert_false(nvl_fence_is_signaled(p2));
	nvl_fence_signal(f[1]);
	assert_true(nvl_fence_is_signaled(head));
	assert_true(nvl_fence_is_signaled(p2));
	nvl_fence_put(p2);
	nvl_fence_put(head);
	for (int i = 0; i < 3; i++)
		nvl_fence_put(f[i]);
}

static void find_seqno_rejects_unsubmitted_and_completes_done(void **state)
{
	struct nvl_fence *f[2] = {mkf(), mkf()};
	struct nvl_fence *head = NULL, *p, *plain = mkf();

	head = add_point(head, f[0], 5);
	head = add_point(head, f[1], 10);
	p = nvl_fence_get(head);
	assert_int_equal(nvl_fence_chain_find_seqno(&p, 11), -EINVAL);
	assert_true(p == head);
	assert_int_equal(nvl_fence_chain_find_seqno(&p, 0), 0);
	assert_true(p == head);
	assert_int_equal(nvl_fence_chain_find_seqno(&plain, 1), -EINVAL);
	/* point 3 lies in (0, 5]: covered by the first node */
	assert_int_equal(nvl_fence_chain_find_seqno(&p, 3), 0);
	assert_int_equal(p->seqno, 5);
	nvl_fence_put(p);
	nvl_fence_signal(f[0]);
	nvl_fence_signal(f[1]);
	p = nvl_fence_get(head);
	/* everything done and collected: NULL means complete */
	assert_int_equal(nvl_fence_chain_find_seqno(&p, 3), 0);
	assert_null(p);
	nvl_fence_put(head);
	nvl_fence_put(plain);
	nvl_fence_put(f[0]);
	nvl_fence_put(f[1]);
}

static void unordered_point_gets_new_context_and_max_seqno(void **state)
{
	struct nvl_fence *f[2] = {mkf(), mkf()};
	struct nvl_fence *head = add_point(NULL, f[0], 10);
	uint64_t ctx = head->context;

	head = add_point(head, f[1], 4);
	assert_true(head->context != ctx);
	assert_int_equal(head->seqno, 10);
	assert_int_equal(nvl_to_fence_chain(head)->prev_seqno, 0);
	nvl_fence_signal(f[0]);
	nvl_fence_signal(f[1]);
	assert_true(nvl_fence_is_signaled(head));
	nvl_fence_put(head);
	nvl_fence_put(f[0]);
	nvl_fence_put(f[1]);
}

static void chain_error_propagates_to_the_point(void **state)
{
	struct nvl_fence *f[2] = {mkf(), mkf()};
	struct nvl_fence *head = add_point(NULL, f[0], 1);

	head = add_point(head, f[1], 2);
	nvl_fence_enable_sw_signaling(head);
	nvl_fence_signal(f[0]);
	nvl_fence_set_error(f[1], -EIO);
	nvl_fence_signal(f[1]);
	assert_int_equal(nvl_fence_get_status(head), -EIO);
	nvl_fence_put(head);
	nvl_fence_put(f[0]);
	nvl_fence_put(f[1]);
}

static void *chain_signaller(void *p)
{
	struct nvl_fence **f = p;

	for (int i = 0; i < 64; i++)
		nvl_fence_signal(f[i]);
	return NULL;
}

static void chain_waited_while_other_thread_signals(void **state)
{
	struct nvl_fence *f[64], *head = NULL;
	pthread_t t;

	for (int i = 0; i < 64; i++) {
		f[i] = mkf();
		head = add_point(head, f[i], (uint64_t)i + 1);
	}
	pthread_create(&t, NULL, chain_signaller, f);
	assert_int_equal(nvl_fence_wait(head, 5 * NVL_NSEC_PER_SEC), 0);
	pthread_join(t, NULL);
	nvl_fence_put(head);
	for (int i = 0; i < 64; i++)
		nvl_fence_put(f[i]);
}

static void long_timeline_is_collected_and_released(void **state)
{
	struct nvl_fence *head = NULL, *stub = nvl_fence_get_stub(), *iter;
	int n = 200000, visited = 0;

	for (int i = 0; i < n; i++)
		head = add_point(head, stub, (uint64_t)i + 1);
	assert_true(nvl_fence_is_signaled(head));
	/* walking collected every signalled predecessor */
	nvl_fence_chain_for_each(iter, head) visited++;
	assert_true(visited <= 2);
	nvl_fence_put(head);

	/* and without a walk: release must not recurse */
	head = NULL;
	for (int i = 0; i < n; i++)
		head = add_point(head, stub, (uint64_t)i + 1);
	nvl_fence_put(head);
	nvl_fence_put(stub);
}

static void unwrap_visits_leaves_of_chains_of_arrays(void **state)
{
	struct nvl_fence *k[3] = {mkf(), mkf(), mkf()}, *single = mkf();
	struct nvl_fence_array *a = mk_array(k, 3, false);
	struct nvl_fence *head = add_point(NULL, single, 1);
	struct nvl_fence_unwrap cur;
	struct nvl_fence *f;
	int n = 0, seen = 0;

	head = add_point(head, &a->base, 2);
	nvl_fence_unwrap_for_each(f, &cur, head)
	{
		for (int i = 0; i < 3; i++)
			if (f == k[i])
				seen |= 1 << i;
		if (f == single)
			seen |= 8;
		assert_false(nvl_fence_is_array(f));
		assert_null(nvl_to_fence_chain(f));
		n++;
	}
	assert_int_equal(n, 4);
	assert_int_equal(seen, 15);
	/* breaking out early */
	f = nvl_fence_unwrap_first(head, &cur);
	assert_non_null(f);
	nvl_fence_unwrap_end(&cur);
	nvl_fence_put(head);
	nvl_fence_put(&a->base);
	for (int i = 0; i < 3; i++) {
		nvl_fence_signal(k[i]);
		nvl_fence_put(k[i]);
	}
	nvl_fence_put(single);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(array_all_signals_after_last_child),
	cmocka_unit_test(array_any_signals_on_first_child),
	cmocka_unit_test(array_first_error_wins),
	cmocka_unit_test(array_polled_without_arming_and_prearmed_children),
	cmocka_unit_test(array_of_arrays_waited_from_other_thread),
	cmocka_unit_test(array_bad_input_and_alloc_failure),
	cmocka_unit_test(chain_point_waits_for_all_earlier_points),
	cmocka_unit_test(find_seqno_rejects_unsubmitted_and_completes_done),
	cmocka_unit_test(unordered_point_gets_new_context_and_max_seqno),
	cmocka_unit_test(chain_error_propagates_to_the_point),
	cmocka_unit_test(chain_waited_while_other_thread_signals),
	cmocka_unit_test(long_timeline_is_collected_and_released),
	cmocka_unit_test(unwrap_visits_leaves_of_chains_of_arrays),
};

T_MAIN(tests)

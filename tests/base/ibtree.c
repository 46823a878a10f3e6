// SPDX-License-Identifier: MIT
/*
 * TEST: ibtree
 * Description: the augmented interval tree against a brute-force reference
 * on random insert/remove/overlap queries.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "base/ibtree.h"

struct item {
	struct nvl_ibtree_entry node;
	bool in;
};

static void check_overlaps(struct nvl_ibtree *t, struct item *items, int n,
			   uint64_t s, uint64_t l)
{
	struct nvl_ibtree_entry *it;
	int expect = 0, got = 0;
	uint64_t prev_start = 0;

	for (int i = 0; i < n; i++)
		if (items[i].in && items[i].node.start <= l &&
		    items[i].node.last >= s)
			expect++;
	nvl_ibtree_for_each(it, t, s, l)
	{
		struct item *x = container_of(it, struct item, node);

		assert_true(x->in);
		assert_true(it->start <= l && it->last >= s);
		assert_true(it->start >= prev_start);
		prev_start = it->start;
		got++;
	}
	assert_int_equal(expect, got);
}

static void random_ops(uint64_t seed, int n, int ops, uint64_t space,
		       uint64_t maxlen)
{
	struct item *items = calloc((size_t)n, sizeof(*items));
	struct nvl_ibtree t = NVL_IBTREE_INIT;
	uint64_t rng = seed;

	assert_non_null(items);
	for (int k = 0; k < ops; k++) {
		int i = (int)(t_rand(&rng) % (uint64_t)n);
		struct item *x = &items[i];

		if (x->in) {
			nvl_ibtree_remove(&t, &x->node);
			x->in = false;
		} else {
			x->node.start = t_rand(&rng) % space;
			x->node.last = x->node.start + t_rand(&rng) % maxlen;
			assert_int_equal(nvl_ibtree_insert(&t, &x->node), 0);
			x->in = true;
		}
		if (k % 7 == 0) {
			uint64_t s = t_rand(&rng) % space;
			uint64_t l = s + t_rand(&rng) % (maxlen * 2);

			check_overlaps(&t, items, n, s, l);
		}
		if (k % 64 == 0)
			assert_int_equal(nvl_ibtree_check(&t), 0);
	}
	assert_int_equal(nvl_ibtree_check(&t), 0);
	for (int i = 0; i < n; i++)
		if (items[i].in)
			nvl_ibtree_remove(&t, &items[i].node);
	assert_true(nvl_ibtree_empty(&t));
	assert_int_equal(nvl_ibtree_count(&t), 0);
	nvl_ibtree_fini(&t);
	free(items);
}

static void random_vs_reference(void **state)
{
	uint64_t seed = t_seed(0x1234);

	for (int s = 0; s < 20; s++)
		random_ops(seed + (uint64_t)s, 300, 6000, 10000, 200);
}

static void random_dense_duplicates(void **state)
{
	/* Few distinct keys: many equal (start,last) pairs. */
	random_ops(t_seed(99), 200, 20000, 16, 4);
}

static void empty_tree(void **state)
{
	struct nvl_ibtree t = NVL_IBTREE_INIT;

	assert_null(nvl_ibtree_first(&t, 0, UINT64_MAX));
	assert_null(nvl_ibtree_min(&t));
	assert_null(nvl_ibtree_max(&t));
	assert_null(nvl_ibtree_lower_bound(&t, 0));
	assert_int_equal(nvl_ibtree_check(&t), 0);
}

static void full_range_edges(void **state)
{
	struct nvl_ibtree t = NVL_IBTREE_INIT;
	struct item a = {.node = {.start = 0, .last = 0}};
	struct item b = {.node = {.start = UINT64_MAX - 1, .last = UINT64_MAX}};

	assert_int_equal(nvl_ibtree_insert(&t, &a.node), 0);
	assert_int_equal(nvl_ibtree_insert(&t, &b.node), 0);
	assert_ptr_equal(nvl_ibtree_first(&t, 0, 0), &a.node);
	assert_ptr_equal(nvl_ibtree_first(&t, UINT64_MAX, UINT64_MAX), &b.node);
	assert_null(nvl_ibtree_first(&t, 1, UINT64_MAX - 2));
	assert_ptr_equal(nvl_ibtree_next(&a.node, 0, UINT64_MAX), &b.node);
	assert_null(nvl_ibtree_next(&b.node, 0, UINT64_MAX));
	nvl_ibtree_remove(&t, &a.node);
	nvl_ibtree_remove(&t, &b.node);
	assert_true(nvl_ibtree_empty(&t));
	nvl_ibtree_fini(&t);
}

static void inorder_neighbours(void **state)
{
	struct nvl_ibtree t = NVL_IBTREE_INIT;
	struct item it[100];
	struct nvl_ibtree_entry *n;
	int i = 0;

	for (int k = 0; k < 100; k++) {
		/* Insert in a scrambled order. */
		int v = (k * 37) % 100;

		it[v].node.start = (uint64_t)v * 10;
		it[v].node.last = (uint64_t)v * 10 + 9;
		assert_int_equal(nvl_ibtree_insert(&t, &it[v].node), 0);
	}
	for (n = nvl_ibtree_min(&t); n; n = nvl_ibtree_succ(n), i++)
		assert_int_equal(n->start, (uint64_t)i * 10);
	assert_int_equal(i, 100);
	for (n = nvl_ibtree_max(&t); n; n = nvl_ibtree_pred(n))
		i--;
	assert_int_equal(i, 0);
	assert_ptr_equal(nvl_ibtree_lower_bound(&t, 501), &it[51].node);
	assert_ptr_equal(nvl_ibtree_lower_bound(&t, 500), &it[50].node);
	assert_null(nvl_ibtree_lower_bound(&t, 991));
	nvl_ibtree_fini(&t);
}

static void replace_in_place(void **state)
{
	struct nvl_ibtree t = NVL_IBTREE_INIT;
	struct item it[20], repl;

	for (int k = 0; k < 20; k++) {
		it[k].node.start = (uint64_t)k * 4;
		it[k].node.last = (uint64_t)k * 4 + 3;
		assert_int_equal(nvl_ibtree_insert(&t, &it[k].node), 0);
	}
	repl.node.start = 40;
	repl.node.last = 43;
	nvl_ibtree_replace(&t, &it[10].node, &repl.node);
	assert_int_equal(nvl_ibtree_check(&t), 0);
	assert_ptr_equal(nvl_ibtree_first(&t, 41, 41), &repl.node);
	nvl_ibtree_fini(&t);
}

static void random_large_multilevel(void **state)
{
	/* enough entries for four levels */
	random_ops(t_seed(5), 20000, 120000, 1000000, 3000);
}

static void preload_makes_inserts_infallible(void **state)
{
	struct nvl_ibtree t = NVL_IBTREE_INIT;
	static struct item it[5000];
	uint64_t rng = t_seed(11);

	for (int k = 0; k < 4000; k++) {
		it[k].node.start = t_rand(&rng) % 100000;
		it[k].node.last = it[k].node.start + 10;
		assert_int_equal(nvl_ibtree_insert(&t, &it[k].node), 0);
	}
	for (int k = 4000; k < 5000; k += 4) {
		assert_int_equal(nvl_ibtree_preload(&t, 4), 0);
		nvl_fault_fail_random(1.0, 1, NVL_FAULT_THIS_THREAD);
		for (int j = k; j < k + 4; j++) {
			it[j].node.start = t_rand(&rng) % 100000;
			it[j].node.last = it[j].node.start + 10;
			assert_int_equal(nvl_ibtree_insert(&t, &it[j].node), 0);
		}
		nvl_fault_off();
		assert_int_equal(nvl_fault_hits(), 0);
	}
	assert_int_equal(nvl_ibtree_check(&t), 0);
	assert_int_equal(nvl_ibtree_count(&t), 5000);
	assert_true(nvl_ibtree_bytes(&t) > 0);
	nvl_ibtree_fini(&t);
}

/*
 * GPUVM's abort path: remove many entries, then put them all back with no
 * allocation allowed. The preload for that must be bounded by the tree's
 * size, not by n * (height + 1) worst-case splits.
 */
static void large_preload_is_bounded_by_tree_size(void **state)
{
	enum { N = 40000 };
	struct nvl_ibtree t = NVL_IBTREE_INIT;
	struct item *it = calloc(N, sizeof(*it));
	uint64_t rng = t_seed(21);
	size_t before;

	assert_non_null(it);
	for (int k = 0; k < N; k++) {
		it[k].node.start = t_rand(&rng) % (1ull << 40);
		it[k].node.last = it[k].node.start + 4095;
		assert_int_equal(nvl_ibtree_insert(&t, &it[k].node), 0);
	}
	before = nvl_ibtree_bytes(&t);
	assert_int_equal(nvl_ibtree_preload(&t, N), 0);
	/*
	 * a tree of 2N entries at minimum fill (~255 bytes per insert), not
	 * N * (height + 1) splits (~2.5 KiB per insert)
	 */
	assert_true(nvl_ibtree_bytes(&t) - before < (size_t)N * 320);
	nvl_fault_fail_random(1.0, 1, NVL_FAULT_THIS_THREAD);
	for (int k = 0; k < N; k++)
		nvl_ibtree_remove(&t, &it[k].node);
	for (int k = N - 1; k >= 0; k--)
		assert_int_equal(nvl_ibtree_insert(&t, &it[k].node), 0);
	nvl_fault_off();
	assert_int_equal(nvl_fault_hits(), 0);
	assert_int_equal(nvl_ibtree_check(&t), 0);
	assert_int_equal(nvl_ibtree_count(&t), N);
	nvl_ibtree_fini(&t);
	free(it);
}

static void failed_insert_changes_nothing(void **state)
{
	struct nvl_ibtree t = NVL_IBTREE_INIT;
	static struct item it[3000];
	int failures = 0;

	for (int k = 0; k < 3000; k++) {
		it[k].node.start = (uint64_t)k * 7;
		it[k].node.last = it[k].node.start + 3;
		/* every allocation fails: inserts that need a node fail */
		nvl_fault_fail_random(1.0, 3, NVL_FAULT_THIS_THREAD);
		if (nvl_ibtree_insert(&t, &it[k].node) == -ENOMEM) {
			failures++;
			nvl_fault_off();
			assert_int_equal(nvl_ibtree_count(&t), (size_t)k);
			assert_int_equal(nvl_ibtree_check(&t), 0);
			assert_null(nvl_ibtree_first(&t, it[k].node.start,
						     it[k].node.last));
			assert_int_equal(nvl_ibtree_insert(&t, &it[k].node), 0);
		}
		nvl_fault_off();
	}
	assert_true(failures >= 2); /* one per pool chunk */
	assert_int_equal(nvl_ibtree_check(&t), 0);
	nvl_ibtree_fini(&t);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(empty_tree),
	cmocka_unit_test(full_range_edges),
	cmocka_unit_test(inorder_neighbours),
	cmocka_unit_test(replace_in_place),
	cmocka_unit_test(random_vs_reference),
	cmocka_unit_test(random_dense_duplicates),
	cmocka_unit_test(random_large_multilevel),
	cmocka_unit_test(preload_makes_inserts_infallible),
	cmocka_unit_test(failed_insert_changes_nothing),
	cmocka_unit_test(large_preload_is_bounded_by_tree_size),
};

T_MAIN(tests)

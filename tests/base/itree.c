// SPDX-License-Identifier: MIT
/*
 * TEST: itree
 * Description: the augmented interval tree against a brute-force reference
 * on random insert/remove/overlap queries.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "base/itree.h"

struct item {
	struct nvl_itree_node node;
	bool in;
};

static void check_overlaps(struct nvl_itree *t, struct item *items, int n,
			   uint64_t s, uint64_t l)
{
	struct nvl_itree_node *it;
	int expect = 0, got = 0;
	uint64_t prev_start = 0;

	for (int i = 0; i < n; i++)
		if (items[i].in && items[i].node.start <= l &&
		    items[i].node.last >= s)
			expect++;
	nvl_itree_for_each (it, t, s, l) {
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
	struct nvl_itree t = NVL_ITREE_INIT;
	uint64_t rng = seed;

	assert_non_null(items);
	for (int k = 0; k < ops; k++) {
		int i = (int)(t_rand(&rng) % (uint64_t)n);
		struct item *x = &items[i];

		if (x->in) {
			nvl_itree_remove(&t, &x->node);
			x->in = false;
		} else {
			x->node.start = t_rand(&rng) % space;
			x->node.last = x->node.start + t_rand(&rng) % maxlen;
			nvl_itree_insert(&t, &x->node);
			x->in = true;
		}
		if (k % 7 == 0) {
			uint64_t s = t_rand(&rng) % space;
			uint64_t l = s + t_rand(&rng) % (maxlen * 2);

			check_overlaps(&t, items, n, s, l);
		}
		if (k % 64 == 0)
			assert_int_equal(nvl_itree_check(&t), 0);
	}
	assert_int_equal(nvl_itree_check(&t), 0);
	for (int i = 0; i < n; i++)
		if (items[i].in)
			nvl_itree_remove(&t, &items[i].node);
	assert_true(nvl_itree_empty(&t));
	assert_int_equal(nvl_itree_count(&t), 0);
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
	struct nvl_itree t = NVL_ITREE_INIT;

	assert_null(nvl_itree_first(&t, 0, UINT64_MAX));
	assert_null(nvl_itree_min(&t));
	assert_null(nvl_itree_max(&t));
	assert_null(nvl_itree_lower_bound(&t, 0));
	assert_int_equal(nvl_itree_check(&t), 0);
}

static void full_range_edges(void **state)
{
	struct nvl_itree t = NVL_ITREE_INIT;
	struct item a = {.node = {.start = 0, .last = 0}};
	struct item b = {.node = {.start = UINT64_MAX - 1, .last = UINT64_MAX}};

	nvl_itree_insert(&t, &a.node);
	nvl_itree_insert(&t, &b.node);
	assert_ptr_equal(nvl_itree_first(&t, 0, 0), &a.node);
	assert_ptr_equal(nvl_itree_first(&t, UINT64_MAX, UINT64_MAX), &b.node);
	assert_null(nvl_itree_first(&t, 1, UINT64_MAX - 2));
	assert_ptr_equal(nvl_itree_next(&a.node, 0, UINT64_MAX), &b.node);
	assert_null(nvl_itree_next(&b.node, 0, UINT64_MAX));
	nvl_itree_remove(&t, &a.node);
	nvl_itree_remove(&t, &b.node);
	assert_true(nvl_itree_empty(&t));
}

static void inorder_neighbours(void **state)
{
	struct nvl_itree t = NVL_ITREE_INIT;
	struct item it[100];
	struct nvl_itree_node *n;
	int i = 0;

	for (int k = 0; k < 100; k++) {
		/* Insert in a scrambled order. */
		int v = (k * 37) % 100;

		it[v].node.start = (uint64_t)v * 10;
		it[v].node.last = (uint64_t)v * 10 + 9;
		nvl_itree_insert(&t, &it[v].node);
	}
	for (n = nvl_itree_min(&t); n; n = nvl_itree_succ(n), i++)
		assert_int_equal(n->start, (uint64_t)i * 10);
	assert_int_equal(i, 100);
	for (n = nvl_itree_max(&t); n; n = nvl_itree_pred(n))
		i--;
	assert_int_equal(i, 0);
	assert_ptr_equal(nvl_itree_lower_bound(&t, 501), &it[51].node);
	assert_ptr_equal(nvl_itree_lower_bound(&t, 500), &it[50].node);
	assert_null(nvl_itree_lower_bound(&t, 991));
}

static void replace_in_place(void **state)
{
	struct nvl_itree t = NVL_ITREE_INIT;
	struct item it[20], repl;

	for (int k = 0; k < 20; k++) {
		it[k].node.start = (uint64_t)k * 4;
		it[k].node.last = (uint64_t)k * 4 + 3;
		nvl_itree_insert(&t, &it[k].node);
	}
	repl.node.start = 40;
	repl.node.last = 43;
	nvl_itree_replace(&t, &it[10].node, &repl.node);
	assert_int_equal(nvl_itree_check(&t), 0);
	assert_ptr_equal(nvl_itree_first(&t, 41, 41), &repl.node);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(empty_tree),
	cmocka_unit_test(full_range_edges),
	cmocka_unit_test(inorder_neighbours),
	cmocka_unit_test(replace_in_place),
	cmocka_unit_test(random_vs_reference),
	cmocka_unit_test(random_dense_duplicates),
};

T_MAIN(tests)

// SPDX-License-Identifier: MIT
/*
 * TEST: list
 * Description: intrusive list insertion order, deletion, splicing, safe
 * iteration while deleting.
 */
#include "t.h"
#include "base/list.h"

struct item {
	int v;
	struct nvl_list link;
};

static void add_tail_keeps_queue_order_and_add_is_stack(void **state)
{
	struct nvl_list q = NVL_LIST_INIT(q), s = NVL_LIST_INIT(s);
	struct item a[5], b[5], *it;
	int i = 0;

	for (int k = 0; k < 5; k++) {
		a[k].v = b[k].v = k;
		nvl_list_add_tail(&a[k].link, &q);
		nvl_list_add(&b[k].link, &s);
	}
	nvl_list_for_each_entry (it, &q, link)
		assert_int_equal(it->v, i++);
	nvl_list_for_each_entry (it, &s, link)
		assert_int_equal(it->v, --i);
	nvl_list_for_each_entry_reverse (it, &q, link)
		assert_int_equal(it->v, 4 - i++);
	assert_int_equal(nvl_list_first_entry(&q, struct item, link)->v, 0);
	assert_int_equal(nvl_list_last_entry(&q, struct item, link)->v, 4);
}

static void safe_iteration_allows_deletion(void **state)
{
	struct nvl_list q = NVL_LIST_INIT(q);
	struct item a[6], *it, *tmp;
	int n = 0;

	for (int k = 0; k < 6; k++) {
		a[k].v = k;
		nvl_list_add_tail(&a[k].link, &q);
	}
	nvl_list_for_each_entry_safe (it, tmp, &q, link)
		if (it->v % 2)
			nvl_list_del(&it->link);
	nvl_list_for_each_entry (it, &q, link) {
		assert_int_equal(it->v % 2, 0);
		n++;
	}
	assert_int_equal(n, 3);
	/* deleting twice is harmless: the node is self-linked */
	nvl_list_del(&a[1].link);
	assert_true(nvl_list_empty(&a[1].link));
}

static void splice_moves_everything(void **state)
{
	struct nvl_list x = NVL_LIST_INIT(x), y = NVL_LIST_INIT(y);
	struct item a[4], *it;
	int i = 0;

	nvl_list_add_tail(&a[0].link, &y);
	nvl_list_add_tail(&a[1].link, &x);
	nvl_list_add_tail(&a[2].link, &x);
	for (int k = 0; k < 3; k++)
		a[k].v = k;
	nvl_list_splice_tail_init(&x, &y);
	assert_true(nvl_list_empty(&x));
	nvl_list_for_each_entry (it, &y, link)
		assert_int_equal(it->v, i++);
	assert_int_equal(i, 3);
	nvl_list_splice_tail_init(&x, &y); /* empty splice: no-op */
	a[3].v = 3;
	nvl_list_move_tail(&a[0].link, &y);
	assert_int_equal(nvl_list_last_entry(&y, struct item, link)->v, 0);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(add_tail_keeps_queue_order_and_add_is_stack),
	cmocka_unit_test(safe_iteration_allows_deletion),
	cmocka_unit_test(splice_moves_everything),
};

T_MAIN(tests)

// SPDX-License-Identifier: MIT
/*
 * TEST: buddy_audit
 * Description: session 19's review of the buddy allocator: a block freed
 * to an allocator that did not hand it out, or freed twice, is refused
 * with -EINVAL and a message, and neither allocator changes (a foreign
 * order-0 block went into the chunk cache of the wrong allocator, which
 * then handed it out as its own; drm_buddy does not catch this either).
 */
#include <errno.h>
#include <string.h>

#include "t.h"
#include "base/log.h"
#include "mm/buddy.h"

#define PG 4096ull

struct snap {
	uint64_t avail_B, clear_B;
};

static struct snap snap(struct nvl_buddy *mm)
{
	struct nvl_buddy_stats s;

	nvl_buddy_stats(mm, &s);
	return (struct snap){s.avail_B, s.clear_avail_B};
}

static void same(struct snap a, struct snap b)
{
	assert_int_equal(a.avail_B, b.avail_B);
	assert_int_equal(a.clear_B, b.clear_B);
}

#define REFUSED(x)                                                             \
	do {                                                                   \
		assert_int_equal((x), -EINVAL);                                \
		assert_non_null(strstr(nvl_error_msg(), "buddy: free"));       \
	} while (0)

/*
 * One block of allocator A freed to allocator B (same size, same layout):
 * an order-0 dirty chunk (the inline chunk-cache path), an order-0 clear
 * one and an order-2 block (the slow path), and a root (a whole allocator
 * of one root).
 */
static void foreign_block_is_refused(void **state)
{
	static const struct {
		uint64_t size_B, mm_B;
		unsigned flags;
	} c[] = {
		{PG, 64 * PG, 0},
		{PG, 64 * PG, NVL_BUDDY_CLEARED},
		{4 * PG, 64 * PG, 0},
		{64 * PG, 64 * PG, 0},
	};

	(void)state;
	for (unsigned i = 0; i < NVL_ARRAY_SIZE(c); i++) {
		struct nvl_buddy a, b;
		struct nvl_list la, lb;
		struct nvl_buddy_block *blk;
		struct snap sa, sb;

		assert_int_equal(nvl_buddy_init(&a, c[i].mm_B, PG), 0);
		assert_int_equal(nvl_buddy_init(&b, c[i].mm_B, PG), 0);
		nvl_list_init(&la);
		nvl_list_init(&lb);
		assert_int_equal(nvl_buddy_alloc(&a, 0, 0, c[i].size_B, PG, &la,
						 NVL_BUDDY_CONTIGUOUS),
				 0);
		/* B has the same block allocated too, so a merge cannot hide */
		assert_int_equal(nvl_buddy_alloc(&b, 0, 0, c[i].size_B, PG, &lb,
						 NVL_BUDDY_CONTIGUOUS),
				 0);
		blk = nvl_list_first_entry(&la, struct nvl_buddy_block, link);
		nvl_list_del(&blk->link);
		sa = snap(&a);
		sb = snap(&b);
		REFUSED(nvl_buddy_free_block(&b, blk, c[i].flags));
		same(snap(&a), sa);
		same(snap(&b), sb);
		/* and as a one-block list (the inline list path) */
		nvl_list_add_tail(&blk->link, &la);
		REFUSED(nvl_buddy_free_list(&b, &la, c[i].flags));
		assert_false(nvl_list_empty(&la));
		same(snap(&b), sb);
		assert_int_equal(nvl_buddy_free_list(&a, &la, c[i].flags), 0);
		assert_int_equal(nvl_buddy_free_list(&b, &lb, 0), 0);
		assert_int_equal(snap(&a).avail_B, c[i].mm_B);
		assert_int_equal(snap(&b).avail_B, c[i].mm_B);
		nvl_buddy_fini(&a);
		nvl_buddy_fini(&b);
	}
}

/*
 * A list of own blocks with one foreign block in the middle: nothing is
 * freed, the list is left as it was.
 */
static void list_with_a_foreign_block_frees_nothing(void **state)
{
	struct nvl_buddy a, b;
	struct nvl_list la, lb;
	struct nvl_buddy_block *x, *it, *order[8];
	struct snap sa, sb;
	unsigned n = 0, count = 0;

	(void)state;
	assert_int_equal(nvl_buddy_init(&a, 64 * PG, PG), 0);
	assert_int_equal(nvl_buddy_init(&b, 64 * PG, PG), 0);
	nvl_list_init(&la);
	nvl_list_init(&lb);
	assert_int_equal(nvl_buddy_alloc(&a, 0, 0, 3 * PG, PG, &la, 0), 0);
	assert_int_equal(nvl_buddy_alloc(&b, 0, 0, PG, PG, &lb, 0), 0);
	x = nvl_list_first_entry(&lb, struct nvl_buddy_block, link);
	nvl_list_del(&x->link);
	/* x(b) after the first of a's blocks */
	nvl_list_add(&x->link, la.next);
	nvl_list_for_each_entry (it, &la, link) {
		assert_true(count < 8);
		order[count++] = it;
	}
	sa = snap(&a);
	sb = snap(&b);
	REFUSED(nvl_buddy_free_list(&a, &la, 0));
	same(snap(&a), sa);
	same(snap(&b), sb);
	nvl_list_for_each_entry (it, &la, link)
		assert_ptr_equal(it, order[n++]);
	assert_int_equal(n, count);
	nvl_list_del(&x->link);
	nvl_list_init(&lb);
	nvl_list_add_tail(&x->link, &lb);
	assert_int_equal(nvl_buddy_free_list(&a, &la, 0), 0);
	assert_int_equal(nvl_buddy_free_list(&b, &lb, 0), 0);
	assert_int_equal(snap(&a).avail_B, 64 * PG);
	assert_int_equal(snap(&b).avail_B, 64 * PG);
	nvl_buddy_fini(&a);
	nvl_buddy_fini(&b);
}

/* A second free (cached, merged, or left unmerged) is refused, no abort. */
static void second_free_is_refused(void **state)
{
	static const unsigned flags[] = {0, NVL_BUDDY_CLEARED};

	(void)state;
	for (unsigned i = 0; i < 2; i++) {
		struct nvl_buddy a;
		struct nvl_list l;
		struct nvl_buddy_block *blk;
		struct snap s;

		assert_int_equal(nvl_buddy_init(&a, 64 * PG, PG), 0);
		nvl_list_init(&l);
		assert_int_equal(nvl_buddy_alloc(&a, 0, 0, PG, PG, &l, 0), 0);
		blk = nvl_list_first_entry(&l, struct nvl_buddy_block, link);
		nvl_list_del(&blk->link);
		assert_int_equal(nvl_buddy_free_block(&a, blk, flags[i]), 0);
		s = snap(&a);
		REFUSED(nvl_buddy_free_block(&a, blk, flags[i]));
		same(snap(&a), s);
		nvl_buddy_fini(&a);
	}
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(foreign_block_is_refused),
	cmocka_unit_test(list_with_a_foreign_block_frees_nothing),
	cmocka_unit_test(second_free_is_refused),
};

T_MAIN(tests)

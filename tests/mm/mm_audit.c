// SPDX-License-Identifier: MIT
/*
 * TEST: session 18's audit of the memory manager, without a device; each
 * test failed before its fix.
 *
 * - buddy: freeing a block twice is caught (an assertion in a debug build,
 *   ignored with nothing changed otherwise) whether or not the first free
 *   merged it with its buddy. A block that merged kept its ALLOCATED state
 *   in the pair given back to the slab, so the second free merged it
 *   again: the free bytes counted twice and the pair went back to the
 *   slab's spare list twice.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t.h"
#include "mm/buddy.h"

#define PG 4096ull

/*
 * Free @b of @mm a second time in a child: it must die of the assertion
 * (SIGABRT) or, in a build without assertions, leave the free bytes at
 * @avail_B.
 */
static void second_free_is_caught(struct nvl_buddy *mm,
				  struct nvl_buddy_block *b, unsigned flags,
				  uint64_t avail_B)
{
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0) {
		struct nvl_buddy_stats s;

		(void)!freopen("/dev/null", "w", stderr);
		nvl_buddy_free_block(mm, b, flags);
		nvl_buddy_stats(mm, &s);
		_exit(s.avail_B == avail_B ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (WIFSIGNALED(st))
		assert_int_equal(WTERMSIG(st), SIGABRT);
	else
		assert_int_equal(WEXITSTATUS(st), 0);
}

static void buddy_double_free(void **state)
{
	/* order-1 (merges with its free buddy), dirty and clean; order 0
	 * clean (no cache) with its buddy free; order 0 with its buddy held */
	static const struct {
		uint64_t size_B;
		unsigned flags;
		bool hold_buddy;
	} c[] = {
		{2 * PG, 0, false},
		{2 * PG, NVL_BUDDY_CLEARED, false},
		{PG, NVL_BUDDY_CLEARED, false},
		{PG, 0, true},
	};

	(void)state;
	for (unsigned i = 0; i < NVL_ARRAY_SIZE(c); i++) {
		struct nvl_list l, h;
		struct nvl_buddy mm;
		struct nvl_buddy_block *b;
		struct nvl_buddy_stats s;

		assert_int_equal(nvl_buddy_init(&mm, 64 * PG, PG), 0);
		nvl_list_init(&l);
		nvl_list_init(&h);
		assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, c[i].size_B, PG, &l,
						 NVL_BUDDY_CONTIGUOUS),
				 0);
		if (c[i].hold_buddy)
			assert_int_equal(
				nvl_buddy_alloc(&mm, 0, 0, PG, PG, &h, 0), 0);
		b = nvl_list_first_entry(&l, struct nvl_buddy_block, link);
		nvl_list_del(&b->link);
		nvl_buddy_free_block(&mm, b, c[i].flags);
		/* merged back (the cache flushed by stats) */
		nvl_buddy_stats(&mm, &s);
		second_free_is_caught(&mm, b, c[i].flags, s.avail_B);
		nvl_buddy_free_list(&mm, &h, 0);
		nvl_buddy_stats(&mm, &s);
		assert_int_equal(s.avail_B, 64 * PG);
		nvl_buddy_fini(&mm);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(buddy_double_free),
	};

	return t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
}

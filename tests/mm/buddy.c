// SPDX-License-Identifier: MIT
/*
 * TEST: buddy
 * Description: the VRAM buddy allocator against a brute-force page map on
 * random alloc/free (no overlap, alignment and range honoured, clear tracking
 * right, full merge on free), plus the drm_buddy behaviours of the reference
 * notes (limit, optimistic, pessimistic, pathological, contiguous, clear,
 * range bias, exceeding the largest order) and bad input.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "base/log.h"
#include "mm/buddy.h"

#define PG 4096ull

struct ref {
	uint64_t pages;
	int *owner; /* 0 = free, else allocation id */
	uint8_t *clean; /* page known zero */
};

struct alloc_rec {
	struct nvl_list blocks;
	uint64_t size_B;
	bool live;
};

/* Walk the tree: free buddies never coexist; counts match the lists. */
static void check_tree(struct nvl_buddy *mm, struct nvl_buddy_block *b,
		       uint64_t *free_B, uint64_t *clear_B)
{
	assert_true(NVL_IS_ALIGNED(nvl_buddy_block_offset(b),
				   nvl_buddy_block_size(mm, b)));
	if (nvl_buddy_block_state(b) == NVL_BUDDY_FREE) {
		*free_B += nvl_buddy_block_size(mm, b);
		if (nvl_buddy_block_is_clear(b))
			*clear_B += nvl_buddy_block_size(mm, b);
	} else if (nvl_buddy_block_state(b) == NVL_BUDDY_SPLIT) {
		struct nvl_buddy_block *l = nvl_buddy_block_child(b, 0);
		struct nvl_buddy_block *r = nvl_buddy_block_child(b, 1);

		assert_int_equal(nvl_buddy_block_order(l),
				 nvl_buddy_block_order(b) - 1);
		assert_int_equal(nvl_buddy_block_order(r),
				 nvl_buddy_block_order(b) - 1);
		assert_true(nvl_buddy_block_offset(r) ==
			    nvl_buddy_block_offset(l) +
				    nvl_buddy_block_size(mm, l));
		/* Free buddies coexist only when one is clear. */
		assert_false(nvl_buddy_block_state(l) == NVL_BUDDY_FREE &&
			     nvl_buddy_block_state(r) == NVL_BUDDY_FREE &&
			     nvl_buddy_block_is_clear(l) ==
				     nvl_buddy_block_is_clear(r));
		check_tree(mm, l, free_B, clear_B);
		check_tree(mm, r, free_B, clear_B);
	}
}

static void check_invariants(struct nvl_buddy *mm)
{
	uint64_t free_B = 0, clear_B = 0, off = 0;

	nvl_buddy_flush_cache(mm); /* cached chunks show as CACHED */
	for (unsigned r = 0; r < mm->n_roots; r++) {
		assert_int_equal(nvl_buddy_block_offset(&mm->roots[r]), off);
		off += nvl_buddy_block_size(mm, &mm->roots[r]);
		check_tree(mm, &mm->roots[r], &free_B, &clear_B);
	}
	assert_int_equal(off, mm->size_B);
	assert_int_equal(free_B, mm->avail_B);
	assert_int_equal(clear_B, mm->clear_avail_B);
}

static uint64_t ref_free(struct ref *r)
{
	uint64_t n = 0;

	for (uint64_t i = 0; i < r->pages; i++)
		n += r->owner[i] == 0;
	return n * PG;
}

/*
 * @small_pct: share (in %) of allocations of one page, which the chunk cache
 * serves when their flags allow.
 */
static void random_vs_reference(uint64_t size_B, int iters, uint64_t seed,
				unsigned small_pct)
{
	struct nvl_buddy mm;
	struct ref r = {.pages = size_B / PG};
	struct alloc_rec *recs = calloc(256, sizeof(*recs));
	uint64_t rng = t_seed(seed);

	r.owner = calloc(r.pages, sizeof(int));
	r.clean = malloc(r.pages);
	memset(r.clean, 1, r.pages);
	assert_int_equal(nvl_buddy_init(&mm, size_B, PG), 0);
	for (int i = 0; i < 256; i++)
		nvl_list_init(&recs[i].blocks);

	for (int it = 0; it < iters; it++) {
		int id = (int)(t_rand(&rng) % 256);
		struct alloc_rec *a = &recs[id];
		struct nvl_buddy_block *b;

		if (a->live) {
			bool cleared = t_rand(&rng) & 1;

			nvl_list_for_each_entry (b, &a->blocks, link) {
				uint64_t p0 = nvl_buddy_block_offset(b) / PG;
				uint64_t n = nvl_buddy_block_size(&mm, b) / PG;

				for (uint64_t p = p0; p < p0 + n; p++) {
					assert_int_equal(r.owner[p], id + 1);
					r.owner[p] = 0;
					r.clean[p] = cleared;
				}
			}
			nvl_buddy_free_list(&mm, &a->blocks,
					    cleared ? NVL_BUDDY_CLEARED : 0);
			assert_true(nvl_list_empty(&a->blocks));
			a->live = false;
		} else {
			uint64_t pages =
				t_rand(&rng) % 100 < small_pct
					? 1
					: 1 + t_rand(&rng) % (r.pages / 16);
			unsigned mo = (unsigned)(t_rand(&rng) % 4);
			uint64_t min_b = PG << mo;
			unsigned flags = (unsigned)(t_rand(&rng) & 0xf);
			uint64_t start = 0, end = size_B, got = 0, prev_end;
			uint64_t want, before = mm.avail_B;
			int ret;

			if (flags & NVL_BUDDY_RANGE) {
				start = (t_rand(&rng) % r.pages) * PG;
				end = start +
				      (1 +
				       t_rand(&rng) % (r.pages - start / PG)) *
					      PG;
			}
			want = NVL_ALIGN_UP(pages * PG, min_b);
			ret = nvl_buddy_alloc(&mm, start, end, pages * PG,
					      min_b, &a->blocks, flags);
			if (ret) {
				assert_true(ret == -ENOSPC || ret == -EINVAL);
				if (ret == -EINVAL)
					assert_true(
						end - start < want ||
						want > size_B ||
						(flags & NVL_BUDDY_CONTIGUOUS));
				/* scattered 4K without range: only when full */
				if (!(flags & (NVL_BUDDY_RANGE |
					       NVL_BUDDY_CONTIGUOUS)) &&
				    mo == 0)
					assert_true(ref_free(&r) < want);
				assert_int_equal(mm.avail_B, before);
				assert_true(nvl_list_empty(&a->blocks));
				continue;
			}
			prev_end = UINT64_MAX;
			nvl_list_for_each_entry (b, &a->blocks, link) {
				uint64_t bs = nvl_buddy_block_size(&mm, b);
				uint64_t p0 = nvl_buddy_block_offset(b) / PG;

				assert_int_equal(nvl_buddy_block_state(b),
						 NVL_BUDDY_ALLOCATED);
				assert_true(bs >= min_b);
				assert_true(NVL_IS_ALIGNED(
					nvl_buddy_block_offset(b), min_b));
				assert_true(NVL_IS_ALIGNED(
					nvl_buddy_block_offset(b), bs));
				assert_true(nvl_buddy_block_offset(b) >= start);
				assert_true(nvl_buddy_block_offset(b) + bs <=
					    end);
				if ((flags & NVL_BUDDY_CONTIGUOUS) &&
				    prev_end != UINT64_MAX)
					assert_int_equal(
						nvl_buddy_block_offset(b),
						prev_end);
				prev_end = nvl_buddy_block_offset(b) + bs;
				for (uint64_t p = p0; p < p0 + bs / PG; p++) {
					assert_int_equal(r.owner[p], 0);
					if (nvl_buddy_block_is_clear(b))
						assert_true(r.clean[p]);
					r.owner[p] = id + 1;
				}
				got += bs;
			}
			assert_int_equal(got, want);
			a->live = true;
		}
		assert_int_equal(mm.avail_B, ref_free(&r));
		if (it % 64 == 0)
			check_invariants(&mm);
	}
	for (int i = 0; i < 256; i++)
		nvl_buddy_free_list(&mm, &recs[i].blocks, 0);
	check_invariants(&mm);
	assert_int_equal(mm.avail_B, mm.size_B);
	/* Everything merges back (forcing clear/dirty merges). */
	{
		struct nvl_list all;

		nvl_list_init(&all);
		assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, mm.size_B, PG, &all,
						 NVL_BUDDY_CONTIGUOUS),
				 0);
		nvl_buddy_free_list(&mm, &all, 0);
	}
	nvl_buddy_flush_cache(&mm);
	for (unsigned i = 0; i < mm.n_roots; i++)
		assert_int_equal(nvl_buddy_block_state(&mm.roots[i]),
				 NVL_BUDDY_FREE);
	nvl_buddy_fini(&mm);
	free(recs);
	free(r.owner);
	free(r.clean);
}

static void random_alloc_free_matches_reference_pow2(void **state)
{
	random_vs_reference(64ull << 20, (int)(20000 * t_scale()), 1, 0);
}

static void random_alloc_free_matches_reference_non_pow2(void **state)
{
	random_vs_reference((64ull << 20) + (12 << 10) + (256 << 10),
			    (int)(20000 * t_scale()), 2, 0);
}

/*
 * Mostly one-page requests in a space small enough to fill: the chunk cache
 * takes most frees, and bigger, ranged, top-down, clear and contiguous
 * requests, and those that find the space full, must see it drained.
 */
static void random_small_allocs_through_the_cache_match_reference(void **state)
{
	random_vs_reference(1ull << 20, (int)(40000 * t_scale()), 3, 90);
	random_vs_reference((1ull << 20) + (20 << 10), (int)(40000 * t_scale()),
			    4, 70);
}

static void limit_size_gives_max_order_block(void **state)
{
	struct nvl_buddy mm;
	struct nvl_list l;
	struct nvl_buddy_block *b;

	nvl_list_init(&l);
	assert_int_equal(nvl_buddy_init(&mm, UINT64_MAX, PG), 0);
	assert_int_equal(mm.max_order, 51);
	assert_int_equal(mm.n_roots, 52);
	assert_int_equal(
		nvl_buddy_alloc(&mm, 0, 0, PG << mm.max_order, PG, &l, 0), 0);
	b = nvl_list_first_entry(&l, struct nvl_buddy_block, link);
	assert_ptr_equal(b->link.next, &l);
	assert_int_equal(nvl_buddy_block_order(b), mm.max_order);
	nvl_buddy_free_list(&mm, &l, 0);
	nvl_buddy_fini(&mm);
}

static void optimistic_one_block_per_order_fills(void **state)
{
	struct nvl_buddy mm;
	struct nvl_list l;
	unsigned k = 10;

	nvl_list_init(&l);
	assert_int_equal(nvl_buddy_init(&mm, PG * ((2ull << k) - 1), PG), 0);
	for (unsigned o = 0; o <= k; o++)
		assert_int_equal(
			nvl_buddy_alloc(&mm, 0, 0, PG << o, PG << o, &l, 0), 0);
	assert_int_equal(mm.avail_B, 0);
	assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, PG, PG, &l, 0), -ENOSPC);
	nvl_buddy_free_list(&mm, &l, 0);
	nvl_buddy_fini(&mm);
}

static void pessimistic_freeing_in_order_frees_next_order(void **state)
{
	struct nvl_buddy mm;
	struct nvl_list blocks[12], extra, l;
	unsigned k = 11;

	nvl_list_init(&extra);
	nvl_list_init(&l);
	assert_int_equal(nvl_buddy_init(&mm, PG << k, PG), 0);
	for (unsigned o = 0; o < k; o++) {
		nvl_list_init(&blocks[o]);
		assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, PG << o, PG << o,
						 &blocks[o], 0),
				 0);
	}
	assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, PG, PG, &extra, 0), 0);
	assert_int_equal(mm.avail_B, 0);
	for (unsigned o = 0; o < k; o++)
		assert_int_equal(
			nvl_buddy_alloc(&mm, 0, 0, PG << o, PG << o, &l, 0),
			-ENOSPC);
	nvl_buddy_free_list(&mm, &extra, 0);
	for (unsigned o = 0; o < k; o++) {
		nvl_buddy_free_list(&mm, &blocks[o], 0);
		/* The freed run merged up to the next order. */
		assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, PG << (o + 1),
						 PG << (o + 1), &l, 0),
				 o + 1 < k ? 0 : 0);
		nvl_buddy_free_list(&mm, &l, 0);
	}
	assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, PG << k, PG << k, &l, 0),
			 0);
	nvl_buddy_free_list(&mm, &l, 0);
	nvl_buddy_fini(&mm);
}

static void pathological_fragmentation_leaves_only_small_blocks(void **state)
{
	struct nvl_buddy mm;
	struct nvl_list held, l, holes;
	unsigned k = 8;

	nvl_list_init(&held);
	nvl_list_init(&l);
	nvl_list_init(&holes);
	assert_int_equal(nvl_buddy_init(&mm, PG << k, PG), 0);
	/* Allocate everything in pages, then free every other page. */
	for (uint64_t i = 0; i < (1u << k); i++)
		assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, PG, PG, &l, 0), 0);
	while (!nvl_list_empty(&l)) {
		struct nvl_buddy_block *b =
			nvl_list_first_entry(&l, struct nvl_buddy_block, link);

		nvl_list_del(&b->link);
		if ((nvl_buddy_block_offset(b) / PG) & 1)
			nvl_buddy_free_block(&mm, b, 0);
		else
			nvl_list_add_tail(&b->link, &held);
	}
	assert_int_equal(mm.avail_B, (PG << k) / 2);
	for (unsigned o = 1; o <= k; o++)
		assert_int_equal(
			nvl_buddy_alloc(&mm, 0, 0, PG << o, PG << o, &l, 0),
			-ENOSPC);
	{
		struct nvl_buddy_stats st;

		nvl_buddy_stats(&mm, &st);
		assert_int_equal(st.largest_free_B, PG);
		assert_true(st.fragmentation > 0.99);
	}
	nvl_buddy_free_list(&mm, &held, 0);
	nvl_buddy_fini(&mm);
}

static void contiguous_needs_adjacent_free_pages(void **state)
{
	struct nvl_buddy mm;
	struct nvl_list lists[3], l;
	struct nvl_buddy_block *b;
	uint64_t prev;

	nvl_list_init(&l);
	for (int i = 0; i < 3; i++)
		nvl_list_init(&lists[i]);
	assert_int_equal(nvl_buddy_init(&mm, 48 * PG, PG), 0);
	for (int i = 0; i < 48; i++)
		assert_int_equal(
			nvl_buddy_alloc(&mm, 0, 0, PG, PG, &lists[i % 3], 0),
			0);
	/* Sort pages into lists by address so they interleave. */
	for (int i = 0; i < 3; i++)
		nvl_list_splice_tail_init(&lists[i], &l);
	while (!nvl_list_empty(&l)) {
		b = nvl_list_first_entry(&l, struct nvl_buddy_block, link);
		nvl_list_del(&b->link);
		nvl_list_add_tail(&b->link,
				  &lists[(nvl_buddy_block_offset(b) / PG) % 3]);
	}
	nvl_buddy_free_list(&mm, &lists[0], 0);
	assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, 3 * PG, PG, &l,
					 NVL_BUDDY_CONTIGUOUS),
			 -ENOSPC);
	assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, 2 * PG, PG, &l,
					 NVL_BUDDY_CONTIGUOUS),
			 -ENOSPC);
	nvl_buddy_free_list(&mm, &lists[1], 0);
	/* Pairs of adjacent pages exist now, not all of them buddies. */
	assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, 3 * PG, PG, &l,
					 NVL_BUDDY_CONTIGUOUS),
			 -ENOSPC);
	assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, 2 * PG, PG, &l,
					 NVL_BUDDY_CONTIGUOUS),
			 0);
	nvl_buddy_free_list(&mm, &l, 0);
	nvl_buddy_free_list(&mm, &lists[2], 0);
	assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, 3 * PG, PG, &l,
					 NVL_BUDDY_CONTIGUOUS),
			 0);
	prev = UINT64_MAX;
	nvl_list_for_each_entry (b, &l, link) {
		if (prev != UINT64_MAX)
			assert_int_equal(nvl_buddy_block_offset(b), prev);
		prev = nvl_buddy_block_offset(b) + nvl_buddy_block_size(&mm, b);
	}
	nvl_buddy_free_list(&mm, &l, 0);
	check_invariants(&mm);
	nvl_buddy_fini(&mm);
}

static void clear_allocations_prefer_clear_blocks(void **state)
{
	struct nvl_buddy mm;
	struct nvl_list a, b, c;
	struct nvl_buddy_block *blk;

	nvl_list_init(&a);
	nvl_list_init(&b);
	nvl_list_init(&c);
	assert_int_equal(nvl_buddy_init(&mm, 64 * PG, PG), 0);
	assert_int_equal(mm.clear_avail_B, 64 * PG);
	/* Dirty half the space. */
	assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, 32 * PG, PG, &a, 0), 0);
	nvl_list_for_each_entry (blk, &a, link)
		assert_true(nvl_buddy_block_is_clear(blk));
	nvl_buddy_free_list(&mm, &a, 0);
	assert_int_equal(mm.clear_avail_B, 32 * PG);
	/* A zeroing request gets clear blocks, a plain one dirty blocks. */
	assert_int_equal(
		nvl_buddy_alloc(&mm, 0, 0, 16 * PG, PG, &b, NVL_BUDDY_CLEAR),
		0);
	nvl_list_for_each_entry (blk, &b, link)
		assert_true(nvl_buddy_block_is_clear(blk));
	assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, 16 * PG, PG, &c, 0), 0);
	nvl_list_for_each_entry (blk, &c, link)
		assert_false(nvl_buddy_block_is_clear(blk));
	/* Freed cleared: clear again; merged with dirty: dirty. */
	nvl_buddy_free_list(&mm, &b, NVL_BUDDY_CLEARED);
	nvl_buddy_free_list(&mm, &c, 0);
	assert_int_equal(mm.avail_B, 64 * PG);
	/* Clear and dirty halves stay apart... */
	assert_int_equal(mm.clear_avail_B, 32 * PG);
	/* A contiguous run over both reports each block's own state. */
	assert_int_equal(
		nvl_buddy_alloc(&mm, 0, 0, 64 * PG, PG, &a,
				NVL_BUDDY_CLEAR | NVL_BUDDY_CONTIGUOUS),
		0);
	{
		uint64_t clear_B = 0;

		nvl_list_for_each_entry (blk, &a, link)
			clear_B += nvl_buddy_block_is_clear(blk)
					   ? nvl_buddy_block_size(&mm, blk)
					   : 0;
		assert_int_equal(clear_B, 32 * PG);
	}
	nvl_buddy_free_list(&mm, &a, 0);
	assert_int_equal(
		nvl_buddy_alloc(&mm, 0, 0, 32 * PG, PG, &b, NVL_BUDDY_CLEAR),
		0);
	nvl_buddy_free_list(&mm, &b, NVL_BUDDY_CLEARED);
	assert_int_equal(mm.clear_avail_B, 32 * PG);
	/* A request for one 64-page block force-merges: the result is dirty. */
	assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, 64 * PG, 64 * PG, &a,
					 NVL_BUDDY_CLEAR),
			 0);
	nvl_list_for_each_entry (blk, &a, link)
		assert_false(nvl_buddy_block_is_clear(blk));
	nvl_buddy_free_list(&mm, &a, NVL_BUDDY_CLEARED);
	assert_int_equal(mm.clear_avail_B, 64 * PG);
	nvl_buddy_fini(&mm);
}

static void range_bias_blocks_stay_inside(void **state)
{
	struct nvl_buddy mm;
	struct nvl_list l;
	struct nvl_buddy_block *b;
	uint64_t rng = t_seed(7);

	nvl_list_init(&l);
	assert_int_equal(nvl_buddy_init(&mm, 1024 * PG, PG), 0);
	for (int i = 0; i < 200; i++) {
		uint64_t s = (t_rand(&rng) % 1000) * PG;
		uint64_t e = s + (1 + t_rand(&rng) % (1024 - s / PG)) * PG;
		uint64_t sz = (1 + t_rand(&rng) % ((e - s) / PG)) * PG;
		struct nvl_list got;
		int ret;

		nvl_list_init(&got);
		ret = nvl_buddy_alloc(&mm, s, e, sz, PG, &got,
				      NVL_BUDDY_RANGE |
					      (i & 1 ? NVL_BUDDY_TOPDOWN : 0));
		assert_true(ret == 0 || ret == -ENOSPC);
		nvl_list_for_each_entry (b, &got, link) {
			assert_true(nvl_buddy_block_offset(b) >= s);
			assert_true(nvl_buddy_block_offset(b) +
					    nvl_buddy_block_size(&mm, b) <=
				    e);
		}
		nvl_list_splice_tail_init(&got, &l);
		if (i % 3 == 0)
			nvl_buddy_free_list(&mm, &l, 0);
	}
	/* Misaligned and too-small ranges fail. */
	assert_int_equal(
		nvl_buddy_alloc(&mm, 1, 8 * PG, PG, PG, &l, NVL_BUDDY_RANGE),
		-EINVAL);
	assert_int_equal(nvl_buddy_alloc(&mm, 0, 2 * PG, 4 * PG, PG, &l,
					 NVL_BUDDY_RANGE),
			 -EINVAL);
	nvl_buddy_free_list(&mm, &l, 0);
	/* An exact range: everything in it or nothing. */
	assert_int_equal(nvl_buddy_alloc(&mm, 3 * PG, 10 * PG, 7 * PG, PG, &l,
					 NVL_BUDDY_RANGE),
			 0);
	{
		struct nvl_list l2;

		nvl_list_init(&l2);
		assert_int_equal(nvl_buddy_alloc(&mm, 2 * PG, 4 * PG, 2 * PG,
						 PG, &l2, NVL_BUDDY_RANGE),
				 -ENOSPC);
		assert_true(nvl_list_empty(&l2));
	}
	nvl_buddy_free_list(&mm, &l, 0);
	check_invariants(&mm);
	assert_int_equal(mm.avail_B, 1024 * PG);
	nvl_buddy_fini(&mm);
}

static void topdown_takes_highest_addresses(void **state)
{
	struct nvl_buddy mm;
	struct nvl_list l;
	struct nvl_buddy_block *b;

	nvl_list_init(&l);
	assert_int_equal(nvl_buddy_init(&mm, 1024 * PG, PG), 0);
	assert_int_equal(
		nvl_buddy_alloc(&mm, 0, 0, PG, PG, &l, NVL_BUDDY_TOPDOWN), 0);
	b = nvl_list_first_entry(&l, struct nvl_buddy_block, link);
	assert_int_equal(nvl_buddy_block_offset(b), 1023 * PG);
	nvl_buddy_free_list(&mm, &l, NVL_BUDDY_CLEARED);
	assert_int_equal(nvl_buddy_block_state(&mm.roots[0]), NVL_BUDDY_FREE);
	assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, PG, PG, &l, 0), 0);
	b = nvl_list_first_entry(&l, struct nvl_buddy_block, link);
	assert_int_equal(nvl_buddy_block_offset(b), 0);
	nvl_buddy_free_list(&mm, &l, 0);
	nvl_buddy_fini(&mm);
}

static void exceeding_max_order_contiguous_tries_harder(void **state)
{
	struct nvl_buddy mm;
	struct nvl_list l;
	uint64_t g = 1ull << 30;

	nvl_list_init(&l);
	assert_int_equal(nvl_buddy_init(&mm, 10 * g, PG), 0);
	assert_int_equal(
		nvl_buddy_alloc(&mm, 0, 0, 9 * g, PG, &l, NVL_BUDDY_CONTIGUOUS),
		0);
	nvl_buddy_free_list(&mm, &l, 0);
	assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, 9 * g, 8 * g, &l,
					 NVL_BUDDY_CONTIGUOUS),
			 -EINVAL);
	assert_int_equal(
		nvl_buddy_alloc(&mm, 0, 10 * g - PG, 9 * g, PG, &l,
				NVL_BUDDY_CONTIGUOUS | NVL_BUDDY_RANGE),
		-EINVAL);
	assert_true(nvl_list_empty(&l));
	nvl_buddy_fini(&mm);
}

static void bad_input_is_rejected(void **state)
{
	struct nvl_buddy mm;
	struct nvl_list l;

	nvl_list_init(&l);
	assert_int_equal(nvl_buddy_init(&mm, 1 << 20, 1000), -EINVAL);
	assert_int_equal(nvl_buddy_init(&mm, 1 << 20, 2048), -EINVAL);
	assert_int_equal(nvl_buddy_init(&mm, 2048, PG), -EINVAL);
	assert_int_equal(nvl_buddy_init(&mm, 1 << 20, PG), 0);
	assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, 0, PG, &l, 0), -EINVAL);
	assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, 100, PG, &l, 0), -EINVAL);
	assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, 2 << 20, PG, &l, 0),
			 -EINVAL);
	assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, PG, 3 * PG, &l, 0),
			 -EINVAL);
	assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, PG, PG, &l, 1u << 9),
			 -EINVAL);
	assert_int_equal(nvl_buddy_alloc(&mm, 8 * PG, 4 * PG, PG, PG, &l,
					 NVL_BUDDY_RANGE),
			 -EINVAL);
	assert_int_equal(
		nvl_buddy_alloc(&mm, 0, 2 << 20, PG, PG, &l, NVL_BUDDY_RANGE),
		-EINVAL);
	assert_true(nvl_list_empty(&l));
	assert_int_equal(mm.avail_B, 1 << 20);
	nvl_buddy_fini(&mm);
}

struct inj {
	struct nvl_buddy mm;
	struct nvl_list l;
	unsigned flags;
};

static int inj_op(void *arg)
{
	struct inj *x = arg;

	return nvl_buddy_alloc(&x->mm, 0, 0, 1 << 20, PG, &x->l, x->flags);
}

static void inj_check(int ret, void *arg)
{
	struct inj *x = arg;

	assert_int_equal(ret, -ENOMEM);
	assert_true(nvl_list_empty(&x->l));
	assert_int_equal(x->mm.avail_B, x->mm.size_B);
	check_invariants(&x->mm);
}

static void allocation_failure_changes_nothing(void **state)
{
	static const unsigned fl[] = {0, NVL_BUDDY_TOPDOWN,
				      NVL_BUDDY_CONTIGUOUS};

	for (unsigned i = 0; i < NVL_ARRAY_SIZE(fl); i++) {
		struct inj x = {.flags = fl[i]};

		nvl_list_init(&x.l);
		assert_int_equal(nvl_buddy_init(&x.mm, 1ull << 40, PG), 0);
		t_fail_each_alloc(inj_op, inj_check, &x, 10);
		assert_false(nvl_list_empty(&x.l));
		nvl_buddy_free_list(&x.mm, &x.l, 0);
		check_invariants(&x.mm);
		nvl_buddy_fini(&x.mm);
	}
}

static void stats_report_free_per_order(void **state)
{
	struct nvl_buddy mm;
	struct nvl_buddy_stats st;
	struct nvl_list l;
	char buf[512];

	nvl_list_init(&l);
	assert_int_equal(nvl_buddy_init(&mm, 8 * PG, PG), 0);
	assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, PG, PG, &l, 0), 0);
	nvl_buddy_stats(&mm, &st);
	assert_int_equal(st.avail_B, 7 * PG);
	assert_int_equal(st.free_blocks[0], 1);
	assert_int_equal(st.free_blocks[1], 1);
	assert_int_equal(st.free_blocks[2], 1);
	assert_int_equal(st.free_blocks[3], 0);
	assert_int_equal(st.largest_free_B, 4 * PG);
	assert_true(nvl_buddy_print(&mm, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "order  2 (16 KiB): 1 free"));
	nvl_buddy_free_list(&mm, &l, 0);
	nvl_buddy_fini(&mm);
}

/*
 * The chunk cache: dirty 4 KiB frees are kept unmerged and handed out
 * again; no chunk is ever handed out twice, other requests (contiguous,
 * range, clear) see the cache merged back, and stats show a merged tree.
 */
static void chunk_cache_hands_out_each_page_once(void **state)
{
	struct nvl_buddy mm;
	struct nvl_list pg[64], l;
	bool used[64] = {false};
	struct nvl_buddy_stats st;
	struct nvl_buddy_block *b;
	uint64_t rng = 12345;

	assert_int_equal(nvl_buddy_init(&mm, 64 * PG, PG), 0);
	for (int i = 0; i < 64; i++) {
		nvl_list_init(&pg[i]);
		assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, PG, PG, &pg[i], 0),
				 0);
	}
	/* Random frees and re-allocations, never checking in between. */
	for (int round = 0; round < 2000; round++) {
		int i;

		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		i = (int)(rng % 64);
		if (!nvl_list_empty(&pg[i])) {
			nvl_buddy_free_list(&mm, &pg[i], 0);
		} else {
			assert_int_equal(
				nvl_buddy_alloc(&mm, 0, 0, PG, PG, &pg[i], 0),
				0);
		}
		assert_true(mm.ncached <= NVL_BUDDY_CACHE);
	}
	memset(used, 0, sizeof(used));
	for (int i = 0; i < 64; i++) {
		if (nvl_list_empty(&pg[i]))
			continue;
		b = nvl_list_first_entry(&pg[i], struct nvl_buddy_block, link);
		assert_int_equal(nvl_buddy_block_state(b), NVL_BUDDY_ALLOCATED);
		assert_false(used[nvl_buddy_block_offset(b) / PG]);
		used[nvl_buddy_block_offset(b) / PG] = true;
	}
	for (int i = 0; i < 64; i++)
		nvl_buddy_free_list(&mm, &pg[i], 0);
	assert_true(mm.ncached > 0);
	assert_int_equal(mm.avail_B, 64 * PG);
	/* The whole space contiguous: the cache merges back first. */
	nvl_list_init(&l);
	assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, 64 * PG, PG, &l,
					 NVL_BUDDY_CONTIGUOUS),
			 0);
	assert_int_equal(mm.ncached, 0);
	nvl_buddy_free_list(&mm, &l, 0);
	/* A clear request skips the cache: the only clear page it finds. */
	for (int i = 0; i < 64; i++)
		assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, PG, PG, &pg[i], 0),
				 0);
	nvl_buddy_free_list(&mm, &pg[5], NVL_BUDDY_CLEARED);
	for (int i = 6; i < 20; i++)
		nvl_buddy_free_list(&mm, &pg[i], 0);
	assert_int_equal(
		nvl_buddy_alloc(&mm, 0, 0, PG, PG, &l, NVL_BUDDY_CLEAR), 0);
	b = nvl_list_first_entry(&l, struct nvl_buddy_block, link);
	assert_true(nvl_buddy_block_is_clear(b));
	nvl_buddy_free_list(&mm, &l, 0);
	for (int i = 0; i < 64; i++)
		nvl_buddy_free_list(&mm, &pg[i], 0);
	nvl_buddy_stats(&mm, &st);
	assert_int_equal(st.free_blocks[6], 1);
	assert_int_equal(st.avail_B, 64 * PG);
	check_invariants(&mm);
	nvl_buddy_fini(&mm);
}

/* Free pages [from, to) of @pg (one page each), dirty. */
static void free_pages(struct nvl_buddy *mm, struct nvl_list *pg, int from,
		       int to)
{
	for (int i = from; i < to; i++)
		nvl_buddy_free_list(mm, &pg[i], 0);
}

/* Free whichever of @pg (64 one-page lists) holds page @page. */
static void free_page_at(struct nvl_buddy *mm, struct nvl_list *pg,
			 uint64_t page)
{
	for (int i = 0; i < 64; i++) {
		struct nvl_buddy_block *b;

		if (nvl_list_empty(&pg[i]))
			continue;
		b = nvl_list_first_entry(&pg[i], struct nvl_buddy_block, link);
		if (nvl_buddy_block_offset(b) == page * PG) {
			nvl_buddy_free_list(mm, &pg[i], 0);
			return;
		}
	}
	fail_msg("page %llu not allocated", (unsigned long long)page);
}

/*
 * Requests the cache cannot serve take the blocks it holds: a scattered
 * request for every free page, a bigger block whose halves are both cached,
 * a contiguous run, a ranged and a clear page.
 */
static void chunk_cache_drains_for_requests_that_need_it(void **state)
{
	struct nvl_buddy mm;
	struct nvl_list pg[64], l;
	struct nvl_buddy_block *b;
	uint64_t got = 0;

	assert_int_equal(nvl_buddy_init(&mm, 64 * PG, PG), 0);
	for (int i = 0; i < 64; i++) {
		nvl_list_init(&pg[i]);
		assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, PG, PG, &pg[i], 0),
				 0);
	}
	nvl_list_init(&l);
	/* Full: the cache holds its limit, the rest goes to the lists. */
	free_pages(&mm, pg, 0, NVL_BUDDY_CACHE + 4);
	assert_int_equal(mm.ncached, NVL_BUDDY_CACHE);
	assert_int_equal(mm.avail_B, (NVL_BUDDY_CACHE + 4) * PG);
	/* Every free page, scattered: only possible with the cache. */
	assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, (NVL_BUDDY_CACHE + 4) * PG,
					 PG, &l, 0),
			 0);
	assert_int_equal(mm.ncached, 0);
	assert_int_equal(mm.avail_B, 0);
	nvl_list_for_each_entry (b, &l, link) {
		assert_int_equal(nvl_buddy_block_state(b), NVL_BUDDY_ALLOCATED);
		assert_true(nvl_buddy_block_offset(b) <
			    (NVL_BUDDY_CACHE + 4) * PG);
		got += nvl_buddy_block_size(&mm, b);
	}
	assert_int_equal(got, (NVL_BUDDY_CACHE + 4) * PG);
	/* No more room, cache or not. */
	assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, PG, PG, &pg[0], 0),
			 -ENOSPC);
	nvl_buddy_free_list(&mm, &l, 0);
	check_invariants(&mm);

	/* Pages 0 and 1 cached, nothing else free: one 8 KiB block. */
	for (int i = 0; i < NVL_BUDDY_CACHE + 4; i++)
		assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, PG, PG, &pg[i], 0),
				 0);
	assert_int_equal(mm.avail_B, 0);
	free_page_at(&mm, pg, 0);
	free_page_at(&mm, pg, 1);
	assert_int_equal(mm.ncached, 2);
	assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, 2 * PG, 2 * PG, &l, 0), 0);
	b = nvl_list_first_entry(&l, struct nvl_buddy_block, link);
	assert_int_equal(nvl_buddy_block_order(b), 1);
	assert_int_equal(nvl_buddy_block_offset(b), 0);
	assert_int_equal(mm.ncached, 0);
	nvl_buddy_free_list(&mm, &l, 0); /* order 1: to the lists */
	assert_int_equal(mm.ncached, 0);

	/* Pages 5 and 6 cached: a contiguous 8 KiB run across buddies. */
	free_page_at(&mm, pg, 5);
	free_page_at(&mm, pg, 6);
	assert_int_equal(mm.ncached, 2);
	assert_int_equal(
		nvl_buddy_alloc(&mm, 4 * PG, 8 * PG, 2 * PG, PG, &l,
				NVL_BUDDY_CONTIGUOUS | NVL_BUDDY_RANGE),
		0);
	assert_int_equal(
		nvl_list_first_entry(&l, struct nvl_buddy_block, link)->hdr &
			NVL_BUDDY_HDR_OFFSET_MASK,
		5 * PG);
	assert_int_equal(mm.ncached, 0);
	nvl_buddy_free_list(&mm, &l, 0); /* two chunks: cached */
	assert_int_equal(mm.ncached, 2);
	/* A cached page in a range. */
	free_page_at(&mm, pg, 9);
	assert_int_equal(mm.ncached, 3);
	assert_int_equal(nvl_buddy_alloc(&mm, 8 * PG, 12 * PG, PG, PG, &l,
					 NVL_BUDDY_RANGE),
			 0);
	b = nvl_list_first_entry(&l, struct nvl_buddy_block, link);
	assert_int_equal(nvl_buddy_block_offset(b), 9 * PG);
	nvl_buddy_free_list(&mm, &l, 0);
	/* A top-down page: the highest free one, which is cached. */
	free_page_at(&mm, pg, 63);
	assert_int_equal(mm.ncached, 2);
	assert_int_equal(
		nvl_buddy_alloc(&mm, 0, 0, PG, PG, &l, NVL_BUDDY_TOPDOWN), 0);
	b = nvl_list_first_entry(&l, struct nvl_buddy_block, link);
	assert_int_equal(nvl_buddy_block_offset(b), 63 * PG);
	nvl_buddy_free_list(&mm, &l, 0);
	free_pages(&mm, pg, 0, 64);
	check_invariants(&mm);
	assert_int_equal(mm.avail_B, mm.size_B);
	nvl_buddy_fini(&mm);
}

static int warnings;

static void count_warnings(enum nvl_log_level level, enum nvl_log_cat cat,
			   const char *msg, void *ctx)
{
	if (level <= NVL_LOG_WARN)
		warnings++;
}

/*
 * Cached chunks are free to every query (avail, stats, print) before and
 * after a drain, a multi-block list frees through the cache too, and fini
 * with cached chunks finds everything free.
 */
static void chunk_cache_counts_as_free_and_fini_takes_it(void **state)
{
	struct nvl_buddy mm;
	struct nvl_buddy_stats st;
	struct nvl_list l, one;
	char buf[512];

	assert_int_equal(nvl_buddy_init(&mm, 16 * PG, PG), 0);
	nvl_list_init(&l);
	nvl_list_init(&one);
	for (int i = 0; i < 16; i++)
		assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, PG, PG, &l, 0), 0);
	/* One list of 16 chunks: every one is cached, none merged. */
	nvl_buddy_free_list(&mm, &l, 0);
	assert_true(nvl_list_empty(&l));
	assert_int_equal(mm.ncached, 16);
	assert_int_equal(mm.avail_B, 16 * PG);
	assert_int_equal(mm.clear_avail_B, 0);
	/* A page from the cache, then the rest drained by stats. */
	assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, PG, PG, &one, 0), 0);
	assert_int_equal(mm.ncached, 15);
	assert_int_equal(mm.avail_B, 15 * PG);
	nvl_buddy_stats(&mm, &st);
	assert_int_equal(mm.ncached, 0);
	assert_int_equal(st.avail_B, 15 * PG);
	assert_int_equal(st.clear_avail_B, 0);
	assert_int_equal(st.largest_free_B, 8 * PG);
	assert_int_equal(st.free_blocks[0], 1);
	assert_int_equal(st.free_blocks[3], 1);
	/* Clean frees bypass the cache. */
	nvl_buddy_free_list(&mm, &one, NVL_BUDDY_CLEARED);
	assert_int_equal(mm.ncached, 0);
	assert_int_equal(mm.clear_avail_B, PG);
	assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, PG, PG, &one, 0), 0);
	nvl_buddy_free_list(&mm, &one, 0);
	assert_int_equal(mm.ncached, 1);
	assert_true(nvl_buddy_print(&mm, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "free: 64 KiB"));
	/* Fini with chunks in the cache: all free, no warning. */
	assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, PG, PG, &one, 0), 0);
	nvl_buddy_free_list(&mm, &one, 0);
	assert_int_equal(mm.ncached, 1);
	warnings = 0;
	nvl_log_set_sink(count_warnings, NULL);
	nvl_buddy_fini(&mm);
	nvl_log_set_sink(NULL, NULL);
	assert_int_equal(warnings, 0);
}

struct inj_cached {
	struct nvl_buddy mm;
	struct nvl_list l;
	unsigned flags;
};

static int inj_cached_op(void *arg)
{
	struct inj_cached *x = arg;
	struct nvl_list pg[8];

	/* Fill the cache (the first page may need the slab), then ask. */
	for (int i = 0; i < 8; i++) {
		nvl_list_init(&pg[i]);
		if (nvl_buddy_alloc(&x->mm, 0, 0, PG, PG, &pg[i], 0)) {
			for (int j = 0; j < i; j++)
				nvl_buddy_free_list(&x->mm, &pg[j], 0);
			return -ENOMEM;
		}
	}
	for (int i = 0; i < 8; i++)
		nvl_buddy_free_list(&x->mm, &pg[i], 0);
	return nvl_buddy_alloc(&x->mm, 0, 0, 1 << 20, PG, &x->l, x->flags);
}

static void inj_cached_check(int ret, void *arg)
{
	struct inj_cached *x = arg;

	assert_int_equal(ret, -ENOMEM);
	assert_true(nvl_list_empty(&x->l));
	assert_int_equal(x->mm.avail_B, x->mm.size_B);
	check_invariants(&x->mm);
}

/* Allocation failure while the cache holds chunks: everything free again. */
static void allocation_failure_with_a_full_cache_changes_nothing(void **state)
{
	static const unsigned fl[] = {0, NVL_BUDDY_TOPDOWN,
				      NVL_BUDDY_CONTIGUOUS};

	for (unsigned i = 0; i < NVL_ARRAY_SIZE(fl); i++) {
		struct inj_cached x = {.flags = fl[i]};

		nvl_list_init(&x.l);
		assert_int_equal(nvl_buddy_init(&x.mm, 1ull << 40, PG), 0);
		t_fail_each_alloc(inj_cached_op, inj_cached_check, &x, 10);
		assert_false(nvl_list_empty(&x.l));
		nvl_buddy_free_list(&x.mm, &x.l, 0);
		check_invariants(&x.mm);
		nvl_buddy_fini(&x.mm);
	}
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(chunk_cache_hands_out_each_page_once),
	cmocka_unit_test(random_alloc_free_matches_reference_pow2),
	cmocka_unit_test(random_alloc_free_matches_reference_non_pow2),
	cmocka_unit_test(random_small_allocs_through_the_cache_match_reference),
	cmocka_unit_test(chunk_cache_drains_for_requests_that_need_it),
	cmocka_unit_test(chunk_cache_counts_as_free_and_fini_takes_it),
	cmocka_unit_test(allocation_failure_with_a_full_cache_changes_nothing),
	cmocka_unit_test(limit_size_gives_max_order_block),
	cmocka_unit_test(optimistic_one_block_per_order_fills),
	cmocka_unit_test(pessimistic_freeing_in_order_frees_next_order),
	cmocka_unit_test(pathological_fragmentation_leaves_only_small_blocks),
	cmocka_unit_test(contiguous_needs_adjacent_free_pages),
	cmocka_unit_test(clear_allocations_prefer_clear_blocks),
	cmocka_unit_test(range_bias_blocks_stay_inside),
	cmocka_unit_test(topdown_takes_highest_addresses),
	cmocka_unit_test(exceeding_max_order_contiguous_tries_harder),
	cmocka_unit_test(bad_input_is_rejected),
	cmocka_unit_test(allocation_failure_changes_nothing),
	cmocka_unit_test(stats_report_free_per_order),
};

T_MAIN(tests)

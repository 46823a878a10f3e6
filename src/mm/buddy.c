// SPDX-License-Identifier: MIT
/*
 * DOC: Buddy allocator
 *
 * Blocks form a binary tree per root (one root per set bit of the managed
 * size). A block is free, allocated or split; a split block owns a pair of
 * children, allocated together from a slab of pairs that grows in big chunks
 * and never returns memory before fini, so the hot path never calls malloc.
 * Every operation that may split first reserves enough pairs; after that,
 * nothing can fail, so a failing allocation gives back everything it took.
 * One exception: a request that had to force-merge clear and dirty buddies
 * (below) leaves them merged, and dirty, even when it then fails: the free
 * space is the same, clear_avail is lower.
 *
 * Free blocks sit on per-order lists, one list for dirty and one for clear
 * blocks, with a 64-bit mask per kind saying which orders are non-empty: an
 * allocation without placement constraints finds the smallest usable order
 * with one count-trailing-zeros and pops a list head (O(1) plus the splits).
 * Allocations that must be zeroed prefer clear blocks, the others prefer
 * dirty ones, so clear memory is kept for whoever needs it.
 *
 * Range-restricted and top-down allocations walk the tree depth first over
 * the blocks that intersect the range (in reverse address order for
 * top-down) and split a free block only once it is known to contain an
 * aligned block of the wanted order inside the range, so a failed search
 * never leaves split free buddies behind.
 *
 * The chunk cache: a dirty order-0 block being freed is kept unmerged in a
 * small LIFO array (state CACHED, counted as free) and handed to the next
 * order-0 request that has no range, no top-down and no clear preference.
 * That request then touches only the block's own line, already hot from
 * its free, instead of a free list's neighbours and the buddy and parent
 * lines of a merge followed by a split. Every other request, stats and
 * fini merge the cache back first, so they see the tree as without it.
 * The cache's two paths are inline in buddy.h, with no call and no frame:
 * callers freeing random blocks of a large VRAM wait on cache misses, and
 * the CPU overlaps more of them the fewer instructions each pair costs.
 *
 * Free merges a block with its buddy while the buddy is free and has the same
 * clear state, so clear memory is not lost to a dirty neighbour. Two free
 * buddies therefore coexist only when one is clear and the other dirty; when
 * an allocation cannot be satisfied but enough memory is free, such pairs are
 * force-merged (the result is dirty) and the allocation is retried.
 *
 * Contiguous allocations round the size up to a power of two, take one
 * block and trim the tail back to the free lists. If no such block exists
 * (or, without a range, the rounded order exceeds the largest), the
 * allocator "tries harder": it looks for a run of free blocks around each
 * free block, clipped to the range, allocated as an exact range. (drm_buddy
 * tries harder only without a range, so a 2.5 MiB contiguous request in a
 * 3 MiB window fails there on empty memory; here it succeeds.)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "base/alloc.h"
#include "base/log.h"
#include "buddy.h"

/* Slow paths stay out of line, so the chunk cache's paths save no registers. */
#define SLOW_PATH __attribute__((noinline))

struct nvl_buddy_pair {
	struct nvl_buddy_block b[2];
};

_Static_assert(sizeof(struct nvl_buddy_block) == 32, "block size");

/*
 * Slab chunks are 2 MiB, 2 MiB aligned (transparent huge pages where the
 * system allows them: random frees of millions of blocks would otherwise
 * miss the TLB on every block); the first pair slot holds the chunk link.
 */
#define SLAB_CHUNK_B NVL_BUDDY_SLAB_B
#define SLAB_PAIRS (SLAB_CHUNK_B / sizeof(struct nvl_buddy_pair))

/* the chunk's first pair slot: the chunk list and the owner (buddy.h) */
#define slab_chunk nvl_buddy_slab_head
_Static_assert(sizeof(struct slab_chunk) <= sizeof(struct nvl_buddy_pair),
	       "slab head in one pair slot");

/* The buddy of a non-root block: the other half of its 64-byte pair. */
static inline struct nvl_buddy_block *buddy_of(struct nvl_buddy_block *b)
{
	return (struct nvl_buddy_block *)((uintptr_t)b ^
					  sizeof(struct nvl_buddy_block));
}

static inline unsigned floor_log2(uint64_t v)
{
	return 63u - (unsigned)__builtin_clzll(v);
}

static inline unsigned ceil_log2(uint64_t v)
{
	return v <= 1 ? 0 : floor_log2(v - 1) + 1;
}

static inline uint64_t bsize(const struct nvl_buddy *mm, unsigned order)
{
	return mm->chunk_B << order;
}

/* ---- packed block fields ---------------------------------------------- */

#define boff(b) nvl_buddy_block_offset(b)
#define bord(b) nvl_buddy_block_order(b)
#define bstate(b) nvl_buddy_block_state(b)
#define bclr(b) nvl_buddy_block_is_clear(b)
#define bkids(b) ((struct nvl_buddy_pair *)(b)->link.next)

static inline void bset_state(struct nvl_buddy_block *b, unsigned st)
{
	b->hdr = (b->hdr & ~(3ull << NVL_BUDDY_HDR_STATE_SHIFT)) |
		 ((uint64_t)st << NVL_BUDDY_HDR_STATE_SHIFT);
}

static inline void bset_clear(struct nvl_buddy_block *b, bool clear)
{
	b->hdr = (b->hdr & ~NVL_BUDDY_HDR_CLEAR) |
		 (clear ? NVL_BUDDY_HDR_CLEAR : 0);
}

static inline void binit(struct nvl_buddy_block *b, uint64_t offset,
			 unsigned order, unsigned st, bool clear)
{
	b->hdr = offset | order | ((uint64_t)st << NVL_BUDDY_HDR_STATE_SHIFT) |
		 (clear ? NVL_BUDDY_HDR_CLEAR : 0);
}

/* ---- slab of pairs ---------------------------------------------------- */

static int reserve_pairs(struct nvl_buddy *mm, uint64_t n)
{
	while (mm->nspare < n) {
		struct slab_chunk *c =
			nvl_aligned_alloc(SLAB_CHUNK_B, SLAB_CHUNK_B);
		struct nvl_buddy_pair *pairs = (struct nvl_buddy_pair *)c;

		if (!c)
			return -ENOMEM;
		madvise(c, SLAB_CHUNK_B, MADV_HUGEPAGE);
		c->owner = mm;
		c->next = mm->chunks;
		mm->chunks = c;
		for (size_t i = SLAB_PAIRS - 1; i >= 1; i--) {
			pairs[i].b[0].link.next = (struct nvl_list *)mm->spare;
			mm->spare = &pairs[i];
		}
		mm->nspare += SLAB_PAIRS - 1;
	}
	return 0;
}

static inline struct nvl_buddy_pair *pair_get(struct nvl_buddy *mm)
{
	struct nvl_buddy_pair *p = mm->spare;

	mm->spare = (struct nvl_buddy_pair *)p->b[0].link.next;
	mm->nspare--;
	return p;
}

static inline void pair_put(struct nvl_buddy *mm, struct nvl_buddy_pair *p)
{
	p->b[0].link.next = (struct nvl_list *)mm->spare;
	mm->spare = p;
	mm->nspare++;
}

/* ---- free lists ------------------------------------------------------- */

static inline void fl_add(struct nvl_buddy *mm, struct nvl_buddy_block *b)
{
	unsigned kind = bclr(b);
	uint64_t sz = bsize(mm, bord(b));

	bset_state(b, NVL_BUDDY_FREE);
	nvl_list_add(&b->link, &mm->free[kind][bord(b)]);
	mm->nonempty[kind] |= 1ull << bord(b);
	mm->nfree[bord(b)]++;
	mm->avail_B += sz;
	if (kind)
		mm->clear_avail_B += sz;
}

static inline void fl_del(struct nvl_buddy *mm, struct nvl_buddy_block *b)
{
	unsigned kind = bclr(b);
	uint64_t sz = bsize(mm, bord(b));
	struct nvl_list *head = &mm->free[kind][bord(b)];

	nvl_list_del(&b->link);
	if (nvl_list_empty(head))
		mm->nonempty[kind] &= ~(1ull << bord(b));
	mm->nfree[bord(b)]--;
	mm->avail_B -= sz;
	if (kind)
		mm->clear_avail_B -= sz;
}

/* Split @b (off every list) into two children; a spare pair is reserved. */
static inline void split(struct nvl_buddy *mm, struct nvl_buddy_block *b)
{
	struct nvl_buddy_pair *p = pair_get(mm);
	uint64_t half = bsize(mm, bord(b) - 1);

	for (int i = 0; i < 2; i++) {
		struct nvl_buddy_block *c = &p->b[i];

		binit(c, boff(b) + (uint64_t)i * half, bord(b) - 1,
		      NVL_BUDDY_ALLOCATED, bclr(b));
		c->parent = b;
		nvl_list_init(&c->link);
	}
	b->link.next = (struct nvl_list *)p;
	bset_state(b, NVL_BUDDY_SPLIT);
}

/* Split free block @b (off its list) down to @order around @addr. */
static struct nvl_buddy_block *carve(struct nvl_buddy *mm,
				     struct nvl_buddy_block *b, unsigned order,
				     uint64_t addr)
{
	while (bord(b) > order) {
		uint64_t half = bsize(mm, bord(b) - 1);
		int i = addr >= boff(b) + half;

		split(mm, b);
		fl_add(mm, &bkids(b)->b[!i]);
		b = &bkids(b)->b[i];
	}
	bset_state(b, NVL_BUDDY_ALLOCATED);
	return b;
}

static void merge_up(struct nvl_buddy *mm, struct nvl_buddy_block *b,
		     bool clear, bool force)
{
	/*
	 * FREE at once (fl_add would say so too): a block that merges away
	 * goes back to the slab in its pair, and a second free of it must
	 * still find it not ALLOCATED. Same store as the clear bit.
	 */
	b->hdr = (b->hdr & ~(NVL_BUDDY_HDR_CLEAR |
			     (3ull << NVL_BUDDY_HDR_STATE_SHIFT))) |
		 ((uint64_t)NVL_BUDDY_FREE << NVL_BUDDY_HDR_STATE_SHIFT) |
		 (clear ? NVL_BUDDY_HDR_CLEAR : 0);
	while (b->parent) {
		struct nvl_buddy_block *buddy = buddy_of(b);
		struct nvl_buddy_block *parent;
		struct nvl_buddy_pair *p;

		if (bstate(buddy) != NVL_BUDDY_FREE ||
		    (!force && bclr(buddy) != bclr(b)))
			break;
		parent = b->parent;
		p = bkids(parent);
		fl_del(mm, buddy);
		bset_clear(parent, bclr(b) && bclr(buddy));
		pair_put(mm, p);
		b = parent;
	}
	fl_add(mm, b);
}

static inline void free_block(struct nvl_buddy *mm, struct nvl_buddy_block *b,
			      bool clear)
{
	merge_up(mm, b, clear, false);
}

/*
 * Merge every free clear block with its free dirty buddy (and on up).
 * Return: true if anything merged.
 */
static bool force_merge(struct nvl_buddy *mm)
{
	bool merged = false;

	for (unsigned o = 0; o < mm->max_order; o++) {
		struct nvl_buddy_block *c, *n;

		nvl_list_for_each_entry_safe (c, n, &mm->free[1][o], link) {
			struct nvl_buddy_block *buddy;

			if (!c->parent)
				continue;
			buddy = buddy_of(c);
			if (bstate(buddy) != NVL_BUDDY_FREE)
				continue;
			/* Only the parent's lists (orders > o) change. */
			fl_del(mm, c);
			merge_up(mm, c, false, true);
			merged = true;
		}
	}
	return merged;
}

void nvl_buddy_flush_cache(struct nvl_buddy *mm)
{
	while (mm->ncached) {
		struct nvl_buddy_block *b = mm->cache[--mm->ncached];

		mm->avail_B -= mm->chunk_B; /* fl_add counts it again */
		merge_up(mm, b, false, false);
	}
}

/* 0 if @block may be freed to @mm, else -EINVAL with a message */
static SLOW_PATH int check_free(struct nvl_buddy *mm,
				struct nvl_buddy_block *block)
{
	if (!block)
		return nvl_error(-EINVAL, "buddy: free of NULL");
	if (!nvl_buddy_owns(mm, block))
		return nvl_error(-EINVAL,
				 "buddy: free of a block at %#llx (order %u) "
				 "that this allocator did not hand out",
				 (unsigned long long)boff(block), bord(block));
	if (bstate(block) != NVL_BUDDY_ALLOCATED)
		return nvl_error(-EINVAL,
				 "buddy: free of the block at %#llx (order %u) "
				 "that is not allocated (state %u: freed "
				 "already?)",
				 (unsigned long long)boff(block), bord(block),
				 bstate(block));
	return 0;
}

static SLOW_PATH int free_slow(struct nvl_buddy *mm,
			       struct nvl_buddy_block *block, unsigned flags)
{
	int ret = check_free(mm, block);

	if (ret)
		return ret;
	free_block(mm, block, flags & NVL_BUDDY_CLEARED);
	return 0;
}

int nvl_buddy_free_block(struct nvl_buddy *mm, struct nvl_buddy_block *block,
			 unsigned flags)
{
	/* A dirty chunk goes to the cache, unmerged: its line is hot now. */
	if (likely(block && nvl_buddy_cache_put(mm, block, flags)))
		return 0;
	return free_slow(mm, block, flags);
}

int nvl_buddy_free_list_slow(struct nvl_buddy *mm, struct nvl_list *blocks,
			     unsigned flags)
{
	struct nvl_list *pos;

	/* all or nothing: every block is checked before any is freed */
	for (pos = blocks->next; pos != blocks; pos = pos->next) {
		int ret = check_free(
			mm, nvl_list_entry(pos, struct nvl_buddy_block, link));

		if (ret)
			return ret;
	}
	/*
	 * The blocks are the allocator's again: no need to unlink them one
	 * by one (the cache does not use their links, the free lists
	 * overwrite them), so only the head is reset, once.
	 */
	pos = blocks->next;
	while (pos != blocks) {
		struct nvl_buddy_block *b =
			nvl_list_entry(pos, struct nvl_buddy_block, link);

		pos = pos->next;
		if (likely(nvl_buddy_cache_put(mm, b, flags)))
			continue;
		free_block(mm, b, flags & NVL_BUDDY_CLEARED);
	}
	nvl_list_init(blocks);
	return 0;
}

/* Give back what a failed allocation took, keeping each block's state. */
static void rollback(struct nvl_buddy *mm, struct nvl_list *taken)
{
	struct nvl_buddy_block *b, *n;

	nvl_list_for_each_entry_safe (b, n, taken, link) {
		nvl_list_del(&b->link);
		free_block(mm, b, bclr(b));
	}
}

/* ---- init / fini ------------------------------------------------------ */

int nvl_buddy_init(struct nvl_buddy *mm, uint64_t size_B, uint64_t chunk_B)
{
	uint64_t pages, off = 0;
	unsigned r = 0;

	memset(mm, 0, sizeof(*mm));
	if (chunk_B < 4096 || !NVL_IS_POW2(chunk_B))
		return nvl_error(-EINVAL,
				 "buddy: chunk %#llx not a power of "
				 "two >= 4 KiB",
				 (unsigned long long)chunk_B);
	if (size_B < chunk_B)
		return nvl_error(-EINVAL, "buddy: size %#llx below one chunk",
				 (unsigned long long)size_B);
	mm->chunk_B = chunk_B;
	mm->chunk_shift = floor_log2(chunk_B);
	pages = size_B >> mm->chunk_shift;
	mm->size_B = pages << mm->chunk_shift;
	mm->max_order = floor_log2(pages);
	mm->n_roots = (unsigned)__builtin_popcountll(pages);
	mm->roots = nvl_calloc(mm->n_roots, sizeof(*mm->roots));
	mm->free[0] =
		nvl_calloc(2 * (mm->max_order + 1), sizeof(struct nvl_list));
	if (!mm->roots || !mm->free[0]) {
		nvl_free(mm->roots);
		nvl_free(mm->free[0]);
		memset(mm, 0, sizeof(*mm));
		return -ENOMEM;
	}
	mm->free[1] = mm->free[0] + mm->max_order + 1;
	for (unsigned i = 0; i < 2 * (mm->max_order + 1); i++)
		nvl_list_init(&mm->free[0][i]);
	for (int o = (int)mm->max_order; o >= 0; o--) {
		struct nvl_buddy_block *b;

		if (!(pages & (1ull << o)))
			continue;
		b = &mm->roots[r++];
		binit(b, off, (unsigned)o, NVL_BUDDY_FREE, true);
		nvl_list_init(&b->link);
		fl_add(mm, b);
		off += bsize(mm, (unsigned)o);
	}
	return 0;
}

void nvl_buddy_fini(struct nvl_buddy *mm)
{
	struct slab_chunk *c = mm->chunks;

	nvl_buddy_flush_cache(mm);
	if (mm->avail_B != mm->size_B)
		nvl_warn(NVL_CAT_MM, "buddy: fini with %llu bytes allocated",
			 (unsigned long long)(mm->size_B - mm->avail_B));
	while (c) {
		struct slab_chunk *n = c->next;

		nvl_free(c);
		c = n;
	}
	nvl_free(mm->roots);
	nvl_free(mm->free[0]);
	memset(mm, 0, sizeof(*mm));
}

/* ---- allocation ------------------------------------------------------- */

struct search {
	uint64_t start, end;
	unsigned order;
	bool topdown;
	uint64_t addr;
};

/* Depth-first search for a free block holding an aligned block of s->order
 * inside [start, end); on success s->addr is that block's address. */
static struct nvl_buddy_block *dfs(struct nvl_buddy *mm,
				   struct nvl_buddy_block *b, struct search *s)
{
	uint64_t bs, lo, hi, a, want;

	if (bord(b) < s->order)
		return NULL;
	lo = boff(b);
	hi = lo + bsize(mm, bord(b));
	if (hi <= s->start || lo >= s->end)
		return NULL;
	switch (bstate(b)) {
	case NVL_BUDDY_FREE:
		lo = NVL_MAX(lo, s->start);
		hi = NVL_MIN(hi, s->end);
		want = bsize(mm, s->order);
		if (hi - lo < want)
			return NULL;
		bs = want;
		a = s->topdown ? NVL_ALIGN_DOWN(hi - bs, bs)
			       : NVL_ALIGN_UP(lo, bs);
		if (a < lo || a + bs > hi)
			return NULL;
		s->addr = a;
		return b;
	case NVL_BUDDY_SPLIT: {
		int first = s->topdown ? 1 : 0;
		struct nvl_buddy_block *r;

		r = dfs(mm, &bkids(b)->b[first], s);
		if (!r)
			r = dfs(mm, &bkids(b)->b[!first], s);
		return r;
	}
	default:
		return NULL;
	}
}

/*
 * One block of @order: from the free lists, or by tree search for ranges and
 * top-down. Return: 0 with *out set, -ENOSPC, -ENOMEM.
 */
static int alloc_one(struct nvl_buddy *mm, unsigned order, uint64_t start,
		     uint64_t end, unsigned flags, struct nvl_buddy_block **out)
{
	struct nvl_buddy_block *b = NULL;
	uint64_t addr;

	if (!(flags & (NVL_BUDDY_RANGE | NVL_BUDDY_TOPDOWN))) {
		unsigned pref = (flags & NVL_BUDDY_CLEAR) ? 1 : 0;
		uint64_t m = mm->nonempty[pref] >> order;
		unsigned kind = pref, j;

		if (!m) {
			kind = !pref;
			m = mm->nonempty[kind] >> order;
			if (!m)
				return -ENOSPC;
		}
		j = order + (unsigned)__builtin_ctzll(m);
		if (unlikely(mm->nspare < j - order) &&
		    reserve_pairs(mm, j - order))
			return -ENOMEM;
		b = nvl_list_first_entry(&mm->free[kind][j],
					 struct nvl_buddy_block, link);
		addr = boff(b);
	} else {
		struct search s = {.start = start,
				   .end = end,
				   .order = order,
				   .topdown = flags & NVL_BUDDY_TOPDOWN};

		if (s.topdown) {
			for (int r = (int)mm->n_roots - 1; r >= 0 && !b; r--)
				b = dfs(mm, &mm->roots[r], &s);
		} else {
			for (unsigned r = 0; r < mm->n_roots && !b; r++)
				b = dfs(mm, &mm->roots[r], &s);
		}
		if (!b)
			return -ENOSPC;
		if (mm->nspare < (uint64_t)(bord(b) - order) &&
		    reserve_pairs(mm, bord(b) - order))
			return -ENOMEM;
		addr = s.addr;
	}
	fl_del(mm, b);
	*out = carve(mm, b, order, addr);
	return 0;
}

/* Trim allocated block @b to its first @size_B bytes, appending the kept
 * blocks to @out in address order; pairs are reserved. */
static void trim(struct nvl_buddy *mm, struct nvl_buddy_block *b,
		 uint64_t size_B, struct nvl_list *out)
{
	while (size_B < bsize(mm, bord(b))) {
		uint64_t half = bsize(mm, bord(b) - 1);
		struct nvl_buddy_block *l, *r;

		split(mm, b);
		l = &bkids(b)->b[0];
		r = &bkids(b)->b[1];
		if (size_B <= half) {
			fl_add(mm, r);
			b = l;
		} else {
			nvl_list_add_tail(&l->link, out);
			size_B -= half;
			b = r;
		}
	}
	bset_state(b, NVL_BUDDY_ALLOCATED);
	nvl_list_add_tail(&b->link, out);
}

/* Scattered (or exact-range) allocation of @size_B in blocks >= min_order. */
static int alloc_blocks(struct nvl_buddy *mm, uint64_t start, uint64_t end,
			uint64_t size_B, unsigned min_order, unsigned flags,
			struct nvl_list *taken)
{
	uint64_t left = size_B;
	unsigned order =
		NVL_MIN(floor_log2(left >> mm->chunk_shift), mm->max_order);

	while (left) {
		struct nvl_buddy_block *b;
		int ret;

		order = NVL_MIN(order, floor_log2(left >> mm->chunk_shift));
		for (;;) {
			ret = alloc_one(mm, order, start, end, flags, &b);
			if (ret != -ENOSPC || order == min_order)
				break;
			order--;
		}
		if (ret) {
			rollback(mm, taken);
			return ret;
		}
		nvl_list_add_tail(&b->link, taken);
		left -= bsize(mm, bord(b));
	}
	return 0;
}

static void sort_by_offset(struct nvl_list *l)
{
	struct nvl_list sorted;

	nvl_list_init(&sorted);
	while (!nvl_list_empty(l)) {
		struct nvl_buddy_block *b =
			nvl_list_first_entry(l, struct nvl_buddy_block, link);
		struct nvl_list *pos;

		nvl_list_del(&b->link);
		for (pos = sorted.prev; pos != &sorted; pos = pos->prev)
			if (boff(nvl_list_entry(pos, struct nvl_buddy_block,
						link)) < boff(b))
				break;
		__nvl_list_add(&b->link, pos, pos->next);
	}
	nvl_list_splice_tail_init(&sorted, l);
}

/* The unsplit block right after (@dir 1) or before (@dir 0) @b, or NULL. */
static struct nvl_buddy_block *neighbour(struct nvl_buddy *mm,
					 struct nvl_buddy_block *b, int dir)
{
	while (b->parent && b == &bkids(b->parent)->b[dir])
		b = b->parent;
	if (b->parent) {
		b = &bkids(b->parent)->b[dir];
	} else {
		long r = (b - mm->roots) + (dir ? 1 : -1);

		if (r < 0 || r >= (long)mm->n_roots)
			return NULL;
		b = &mm->roots[r];
	}
	while (bstate(b) == NVL_BUDDY_SPLIT)
		b = &bkids(b)->b[!dir];
	return b;
}

/*
 * Contiguous fallback: any free run of @size_B bytes holds an aligned free
 * block of at least half the largest power of two below the size,
 * so look at the free blocks of that order and up, extend each one over its
 * free neighbours, clip the run to [@start, @end), and allocate the first
 * aligned run that fits as an exact range.
 */
static int try_harder(struct nvl_buddy *mm, uint64_t start, uint64_t end,
		      uint64_t size_B, unsigned min_order,
		      struct nvl_list *taken)
{
	uint64_t align = bsize(mm, min_order);
	unsigned k = floor_log2(size_B >> mm->chunk_shift);

	k = k >= 1 ? k - 1 : 0;
	for (unsigned o = k; o <= mm->max_order; o++) {
		for (int kind = 0; kind < 2; kind++) {
			struct nvl_buddy_block *f;

			nvl_list_for_each_entry (f, &mm->free[kind][o], link) {
				struct nvl_buddy_block *n;
				uint64_t lo = boff(f), cand;
				uint64_t hi = lo + bsize(mm, bord(f));
				int ret;

				if (hi <= start || lo >= end)
					continue;
				for (n = neighbour(mm, f, 0);
				     n && bstate(n) == NVL_BUDDY_FREE &&
				     hi - lo < 2 * size_B;
				     n = neighbour(mm, n, 0))
					lo = boff(n);
				for (n = neighbour(mm, f, 1);
				     n && bstate(n) == NVL_BUDDY_FREE &&
				     hi - lo < 2 * size_B;
				     n = neighbour(mm, n, 1))
					hi = boff(n) + bsize(mm, bord(n));
				lo = NVL_MAX(lo, start);
				hi = NVL_MIN(hi, end);
				cand = NVL_ALIGN_UP(lo, align);
				if (cand < lo || cand + size_B > hi)
					continue;
				/* The lists change now: succeed or stop. */
				ret = alloc_blocks(mm, cand, cand + size_B,
						   size_B, min_order,
						   NVL_BUDDY_RANGE, taken);
				if (!ret)
					sort_by_offset(taken);
				return ret;
			}
		}
	}
	return -ENOSPC;
}

static int alloc_any(struct nvl_buddy *mm, uint64_t start, uint64_t end,
		     uint64_t size_B, unsigned min_order, unsigned flags,
		     struct nvl_list *taken);

#define ALLOC_FLAGS                                                            \
	(NVL_BUDDY_RANGE | NVL_BUDDY_TOPDOWN | NVL_BUDDY_CONTIGUOUS |          \
	 NVL_BUDDY_CLEAR)

int nvl_buddy_alloc_slow(struct nvl_buddy *mm, uint64_t start, uint64_t end,
			 uint64_t size_B, uint64_t min_block_B,
			 struct nvl_list *blocks, unsigned flags)
{
	uint64_t mask = mm->chunk_B - 1;
	struct nvl_list taken;
	unsigned min_order;
	int ret;

	if (flags & ~ALLOC_FLAGS)
		return nvl_error(-EINVAL, "buddy: unknown flags %#x", flags);
	if (!size_B || (size_B & mask))
		return nvl_error(-EINVAL,
				 "buddy: size %#llx not a non-zero "
				 "multiple of the chunk",
				 (unsigned long long)size_B);
	if (min_block_B < mm->chunk_B || !NVL_IS_POW2(min_block_B))
		return nvl_error(-EINVAL, "buddy: min block %#llx",
				 (unsigned long long)min_block_B);
	min_order = floor_log2(min_block_B) - mm->chunk_shift;
	if (min_order > mm->max_order)
		return nvl_error(-EINVAL,
				 "buddy: min block %#llx above the "
				 "largest block",
				 (unsigned long long)min_block_B);
	if (size_B > mm->size_B)
		return nvl_error(-EINVAL,
				 "buddy: size %#llx above the managed "
				 "size",
				 (unsigned long long)size_B);
	size_B = NVL_ALIGN_UP(size_B, min_block_B);
	if (!size_B || size_B > mm->size_B)
		return nvl_error(-EINVAL,
				 "buddy: size %#llx above the managed "
				 "size once aligned",
				 (unsigned long long)size_B);
	if (flags & NVL_BUDDY_RANGE) {
		if ((start & mask) || (end & mask) || start >= end ||
		    end > mm->size_B)
			return nvl_error(-EINVAL,
					 "buddy: bad range [%#llx, "
					 "%#llx)",
					 (unsigned long long)start,
					 (unsigned long long)end);
		if (end - start < size_B)
			return nvl_error(-EINVAL,
					 "buddy: range [%#llx, %#llx) "
					 "smaller than %#llx",
					 (unsigned long long)start,
					 (unsigned long long)end,
					 (unsigned long long)size_B);
		if (start == 0 && end == mm->size_B)
			flags &= ~NVL_BUDDY_RANGE;
	} else {
		start = 0;
		end = mm->size_B;
	}

	if (mm->ncached)
		nvl_buddy_flush_cache(mm);
	nvl_list_init(&taken);
	ret = alloc_any(mm, start, end, size_B, min_order, flags, &taken);
	if (ret == -ENOSPC && mm->avail_B >= size_B && force_merge(mm))
		ret = alloc_any(mm, start, end, size_B, min_order, flags,
				&taken);
	if (ret)
		return ret;
	nvl_list_splice_tail_init(&taken, blocks);
	return 0;
}

static int alloc_any(struct nvl_buddy *mm, uint64_t start, uint64_t end,
		     uint64_t size_B, unsigned min_order, unsigned flags,
		     struct nvl_list *taken)
{
	int ret;

	if (flags & NVL_BUDDY_CONTIGUOUS) {
		unsigned order = ceil_log2(size_B >> mm->chunk_shift);
		struct nvl_buddy_block *b;

		if (order > mm->max_order) {
			if (flags & NVL_BUDDY_RANGE)
				return nvl_error(-EINVAL,
						 "buddy: contiguous "
						 "%#llx in a range exceeds the "
						 "largest block",
						 (unsigned long long)size_B);
			ret = -ENOSPC;
		} else {
			ret = reserve_pairs(mm, 2 * mm->max_order);
			if (ret)
				return ret;
			ret = alloc_one(mm, order, start, end, flags, &b);
			if (!ret)
				trim(mm, b, size_B, taken);
		}
		if (ret == -ENOSPC)
			ret = try_harder(mm, start, end, size_B, min_order,
					 taken);
		return ret;
	}
	return alloc_blocks(mm, start, end, size_B, min_order, flags, taken);
}

/* ---- statistics ------------------------------------------------------- */

void nvl_buddy_stats(struct nvl_buddy *mm, struct nvl_buddy_stats *st)
{
	uint64_t any;

	nvl_buddy_flush_cache(mm);
	any = mm->nonempty[0] | mm->nonempty[1];
	memset(st, 0, sizeof(*st));
	st->size_B = mm->size_B;
	st->chunk_B = mm->chunk_B;
	st->avail_B = mm->avail_B;
	st->clear_avail_B = mm->clear_avail_B;
	st->max_order = mm->max_order;
	for (unsigned o = 0; o <= mm->max_order; o++)
		st->free_blocks[o] = mm->nfree[o];
	if (any)
		st->largest_free_B = bsize(mm, floor_log2(any));
	if (st->avail_B)
		st->fragmentation =
			1.0 - (double)st->largest_free_B / (double)st->avail_B;
}

int nvl_buddy_print(struct nvl_buddy *mm, char *buf, size_t len)
{
	struct nvl_buddy_stats st;
	size_t n = 0;
	int w;

	nvl_buddy_stats(mm, &st);
	w = snprintf(buf, len,
		     "size: %llu KiB, free: %llu KiB (clear %llu "
		     "KiB), largest free: %llu KiB, fragmentation: %.3f\n",
		     (unsigned long long)(st.size_B >> 10),
		     (unsigned long long)(st.avail_B >> 10),
		     (unsigned long long)(st.clear_avail_B >> 10),
		     (unsigned long long)(st.largest_free_B >> 10),
		     st.fragmentation);
	n += (size_t)w;
	for (unsigned o = 0; o <= st.max_order; o++) {
		if (!st.free_blocks[o])
			continue;
		w = snprintf(n < len ? buf + n : NULL, n < len ? len - n : 0,
			     "order %2u (%llu KiB): %llu free\n", o,
			     (unsigned long long)((st.chunk_B << o) >> 10),
			     (unsigned long long)st.free_blocks[o]);
		n += (size_t)w;
	}
	return (int)n;
}

/* SPDX-License-Identifier: MIT */
/*
 * The VRAM buddy allocator: power-of-two blocks from one chunk (4 KiB or
 * more) up, allocated by size with alignment, contiguous or scattered, inside
 * a range, bottom-up or top-down; free merges buddies; free blocks remember
 * whether they are known to be zero ("clear") so that allocations that must
 * be zeroed only clear the dirty ones.
 *
 * Not thread-safe: the owner (the VRAM manager) serialises calls.
 */
#ifndef NVL_MM_BUDDY_H
#define NVL_MM_BUDDY_H

#include "base/compiler.h"
#include "base/list.h"

/** Highest order a block may have (size = chunk << order). */
#define NVL_BUDDY_MAX_ORDER 63

/** Allocation and free flags. */
enum nvl_buddy_flags {
	/** @NVL_BUDDY_RANGE: restrict blocks to [start, end) */
	NVL_BUDDY_RANGE = 1u << 0,
	/** @NVL_BUDDY_TOPDOWN: take the highest free addresses */
	NVL_BUDDY_TOPDOWN = 1u << 1,
	/** @NVL_BUDDY_CONTIGUOUS: one physically contiguous run */
	NVL_BUDDY_CONTIGUOUS = 1u << 2,
	/** @NVL_BUDDY_CLEAR: prefer blocks known to be zero */
	NVL_BUDDY_CLEAR = 1u << 3,
	/** @NVL_BUDDY_CLEARED: (free) the blocks were zeroed by the caller */
	NVL_BUDDY_CLEARED = 1u << 4,
};

enum nvl_buddy_state {
	NVL_BUDDY_FREE = 0,
	NVL_BUDDY_ALLOCATED = 1,
	NVL_BUDDY_SPLIT = 2,
	/* free, held unmerged in the allocator's cache of chunks */
	NVL_BUDDY_CACHED = 3,
};

/** Chunks (order-0 blocks) kept unmerged for the next order-0 request. */
#define NVL_BUDDY_CACHE 32

struct nvl_buddy_pair;

/**
 * struct nvl_buddy_block - one block, 32 bytes. Blocks come in buddy pairs
 * (one 64-byte cache line) from a slab owned by the allocator; allocated
 * blocks are handed to the caller on a list through @link. Read the packed
 * fields with the nvl_buddy_block_*() accessors.
 */
struct nvl_buddy_block {
	/**
	 * @hdr: byte offset (aligned to the block size, so bits 11:0 are
	 * free) | order 5:0 | state 7:6 | clear 8
	 */
	uint64_t hdr;
	/** @parent: the block this one was split from, NULL for a root */
	struct nvl_buddy_block *parent;
	/**
	 * @link: free list while free, the owner's list while allocated;
	 * while split, link.next points to the pair of children
	 */
	struct nvl_list link;
};

#define NVL_BUDDY_HDR_ORDER_MASK 0x3full
#define NVL_BUDDY_HDR_STATE_SHIFT 6
#define NVL_BUDDY_HDR_CLEAR (1ull << 8)
#define NVL_BUDDY_HDR_OFFSET_MASK (~0xfffull)

/** nvl_buddy_block_offset() - byte offset of @b. */
static inline uint64_t nvl_buddy_block_offset(const struct nvl_buddy_block *b)
{
	return b->hdr & NVL_BUDDY_HDR_OFFSET_MASK;
}

/** nvl_buddy_block_order() - order of @b (size = chunk << order). */
static inline unsigned nvl_buddy_block_order(const struct nvl_buddy_block *b)
{
	return (unsigned)(b->hdr & NVL_BUDDY_HDR_ORDER_MASK);
}

/** nvl_buddy_block_state() - &enum nvl_buddy_state of @b. */
static inline unsigned nvl_buddy_block_state(const struct nvl_buddy_block *b)
{
	return (unsigned)(b->hdr >> NVL_BUDDY_HDR_STATE_SHIFT) & 3;
}

/** nvl_buddy_block_is_clear() - @b's memory is known to be zero. */
static inline bool nvl_buddy_block_is_clear(const struct nvl_buddy_block *b)
{
	return b->hdr & NVL_BUDDY_HDR_CLEAR;
}

/** nvl_buddy_block_child() - half @i (0 low, 1 high) of a split block. */
static inline struct nvl_buddy_block *
nvl_buddy_block_child(const struct nvl_buddy_block *b, int i)
{
	return (struct nvl_buddy_block *)b->link.next + i;
}

/** struct nvl_buddy_stats - a snapshot of nvl_buddy_stats(). */
struct nvl_buddy_stats {
	uint64_t size_B;
	uint64_t chunk_B;
	/** @avail_B: free bytes */
	uint64_t avail_B;
	/** @clear_avail_B: free bytes known to be zero */
	uint64_t clear_avail_B;
	/** @largest_free_B: the biggest free block */
	uint64_t largest_free_B;
	/** @free_blocks: free blocks per order */
	uint64_t free_blocks[NVL_BUDDY_MAX_ORDER + 1];
	/**
	 * @fragmentation: 1 - largest_free / avail (0 when nothing is free):
	 * the share of free memory not usable for the largest request
	 */
	double fragmentation;
	unsigned max_order;
};

/** struct nvl_buddy - one managed space. Fields are private. */
struct nvl_buddy {
	uint64_t size_B;
	uint64_t chunk_B;
	unsigned chunk_shift;
	unsigned max_order;
	unsigned n_roots;
	struct nvl_buddy_block *roots;
	/* free lists per order: [0] dirty, [1] clear */
	struct nvl_list *free[2];
	/* bit n set = free[kind][n] not empty */
	uint64_t nonempty[2];
	uint64_t nfree[NVL_BUDDY_MAX_ORDER + 1];
	uint64_t avail_B;
	uint64_t clear_avail_B;
	/*
	 * cache of dirty order-0 blocks freed last (LIFO): an order-0
	 * request without placement constraints pops one, touching no free
	 * list; anything else flushes it first. Counted in avail_B.
	 */
	struct nvl_buddy_block *cache[NVL_BUDDY_CACHE];
	unsigned ncached;
	/* slab of block pairs */
	struct nvl_buddy_pair *spare;
	uint64_t nspare;
	void *chunks; /* singly linked list of slab chunks */
};

/*
 * Private: the rest of nvl_buddy_alloc() and nvl_buddy_free_list() behind
 * their inline chunk-cache paths.
 */
int nvl_buddy_alloc_slow(struct nvl_buddy *mm, uint64_t start, uint64_t end,
			 uint64_t size_B, uint64_t min_block_B,
			 struct nvl_list *blocks,
			 unsigned flags) NVL_MUST_CHECK;
int nvl_buddy_free_list_slow(struct nvl_buddy *mm, struct nvl_list *blocks,
			     unsigned flags);

/*
 * Private: non-root blocks live in 2 MiB-aligned slab chunks whose first
 * pair slot is this header, so a block's owner is one load away (a line
 * every block of the chunk shares, so usually cached).
 */
#define NVL_BUDDY_SLAB_B (2u << 20)
struct nvl_buddy_slab_head {
	struct nvl_buddy_slab_head *next;
	const struct nvl_buddy *owner;
};

/*
 * Private: did @mm hand out @b? A root is one of @mm's roots, any other
 * block sits in one of @mm's slab chunks.
 */
static inline bool nvl_buddy_owns(const struct nvl_buddy *mm,
				  const struct nvl_buddy_block *b)
{
	if (likely(b->parent))
		return ((const struct nvl_buddy_slab_head
				 *)((uintptr_t)b &
				    ~(uintptr_t)(NVL_BUDDY_SLAB_B - 1)))
			       ->owner == mm;
	return (uintptr_t)b - (uintptr_t)mm->roots <
	       (uintptr_t)mm->n_roots * sizeof(*b);
}

/*
 * Private: put allocated dirty chunk @b of @mm in the cache if there is
 * room. Return: true if it did; false for anything else (not a chunk, not
 * allocated, clean, cache full, not @mm's), which the caller frees (or
 * refuses) the slow way.
 */
static inline bool nvl_buddy_cache_put(struct nvl_buddy *mm,
				       struct nvl_buddy_block *b,
				       unsigned flags)
{
	const uint64_t state = 3ull << NVL_BUDDY_HDR_STATE_SHIFT;
	uint64_t hdr = b->hdr;

	if ((hdr & (NVL_BUDDY_HDR_ORDER_MASK | state)) !=
		    (uint64_t)NVL_BUDDY_ALLOCATED
			    << NVL_BUDDY_HDR_STATE_SHIFT ||
	    (flags & NVL_BUDDY_CLEARED) || mm->ncached >= NVL_BUDDY_CACHE ||
	    unlikely(!nvl_buddy_owns(mm, b)))
		return false;
	b->hdr = (hdr & ~(NVL_BUDDY_HDR_CLEAR | state)) |
		 ((uint64_t)NVL_BUDDY_CACHED << NVL_BUDDY_HDR_STATE_SHIFT);
	mm->cache[mm->ncached++] = b;
	mm->avail_B += mm->chunk_B;
	return true;
}

/**
 * nvl_buddy_init() - manage @size_B bytes in chunks of @chunk_B.
 * @mm: the allocator
 * @size_B: bytes managed, rounded down to @chunk_B; one root block per set
 *          bit of the rounded size, largest first
 * @chunk_B: smallest block, a power of two >= 4 KiB
 *
 * All memory starts free and clear (fresh memory is zero).
 * Return: 0, -EINVAL (bad chunk, size below a chunk), -ENOMEM.
 */
int nvl_buddy_init(struct nvl_buddy *mm, uint64_t size_B,
		   uint64_t chunk_B) NVL_MUST_CHECK;

/**
 * nvl_buddy_fini() - release the allocator; every block must be free.
 * @mm: the allocator
 */
void nvl_buddy_fini(struct nvl_buddy *mm);

/**
 * nvl_buddy_alloc() - allocate @size_B bytes as blocks appended to @blocks.
 * @mm: the allocator
 * @start: lowest byte (with %NVL_BUDDY_RANGE), chunk aligned
 * @end: one past the highest byte (with %NVL_BUDDY_RANGE), chunk aligned
 * @size_B: bytes, chunk aligned, rounded up to @min_block_B
 * @min_block_B: smallest block (and so the alignment), a power of two
 *               >= chunk
 * @blocks: list receiving the blocks (through their @link)
 * @flags: &enum nvl_buddy_flags
 *
 * With %NVL_BUDDY_CONTIGUOUS the result is one run: a power-of-two block
 * trimmed back to the size (blocks on @blocks in address order). On failure
 * every block taken is given back; only clear/dirty buddies force-merged to
 * try to satisfy the request stay merged (dirty): the free bytes are the
 * same, the clear bytes may be fewer.
 * Return: 0, -EINVAL (bad arguments), -ENOSPC (no room), -ENOMEM (block
 * bookkeeping).
 */
static inline NVL_MUST_CHECK int
nvl_buddy_alloc(struct nvl_buddy *mm, uint64_t start, uint64_t end,
		uint64_t size_B, uint64_t min_block_B, struct nvl_list *blocks,
		unsigned flags)
{
	/*
	 * One chunk, no placement, not asking for clear memory: the chunk
	 * cache, inline. A caller freeing random blocks of a large VRAM misses
	 * the cache on each block; the CPU overlaps more of those misses the
	 * fewer instructions a pair costs, so this path has no call.
	 */
	if (likely(size_B == mm->chunk_B && min_block_B == mm->chunk_B &&
		   !(flags & ~NVL_BUDDY_CONTIGUOUS) && mm->ncached)) {
		struct nvl_buddy_block *b = mm->cache[--mm->ncached];

		b->hdr ^= (uint64_t)(NVL_BUDDY_CACHED ^ NVL_BUDDY_ALLOCATED)
			  << NVL_BUDDY_HDR_STATE_SHIFT;
		mm->avail_B -= mm->chunk_B;
		nvl_list_add_tail(&b->link, blocks);
		return 0;
	}
	return nvl_buddy_alloc_slow(mm, start, end, size_B, min_block_B, blocks,
				    flags);
}

/**
 * nvl_buddy_free_block() - free one allocated block, merging buddies.
 * @mm: the allocator
 * @block: the block (unlinked from the owner's list by the caller)
 * @flags: %NVL_BUDDY_CLEARED if its memory is zero now; otherwise it is
 *         dirty
 *
 * A block @mm did not hand out, or one not allocated now (freed already,
 * so free, cached or merged away), is refused. A block freed and handed
 * out again is allocated again: freeing it through a stale pointer cannot
 * be told from its new owner's free.
 * Return: 0, or -EINVAL (refused, with a message; nothing changed).
 */
int nvl_buddy_free_block(struct nvl_buddy *mm, struct nvl_buddy_block *block,
			 unsigned flags);

/**
 * nvl_buddy_flush_cache() - merge the cached order-0 blocks back into the
 * free lists, so that the tree shows every free block as FREE and merged.
 * Every call but the order-0 fast path does this first; callers need it only
 * to inspect blocks' states themselves.
 * @mm: the allocator
 */
void nvl_buddy_flush_cache(struct nvl_buddy *mm);

/**
 * nvl_buddy_free_list() - free every block on @blocks (left empty).
 * @mm: the allocator
 * @blocks: list of allocated blocks
 * @flags: %NVL_BUDDY_CLEARED, or 0 for dirty
 *
 * Every block is checked first as nvl_buddy_free_block() does: one
 * refused block refuses the list.
 * Return: 0, or -EINVAL (nothing freed, @blocks left as it was).
 */
static inline int nvl_buddy_free_list(struct nvl_buddy *mm,
				      struct nvl_list *blocks, unsigned flags)
{
	struct nvl_list *first = blocks->next;

	/* One chunk (a 4 KiB buffer) to the chunk cache, inline. */
	if (likely(first != blocks && first->next == blocks &&
		   nvl_buddy_cache_put(
			   mm,
			   container_of(first, struct nvl_buddy_block, link),
			   flags))) {
		nvl_list_init(blocks);
		return 0;
	}
	return nvl_buddy_free_list_slow(mm, blocks, flags);
}

/** nvl_buddy_block_size() - bytes in @block. */
static inline uint64_t nvl_buddy_block_size(const struct nvl_buddy *mm,
					    const struct nvl_buddy_block *block)
{
	return mm->chunk_B << nvl_buddy_block_order(block);
}

/**
 * nvl_buddy_stats() - fill @st with a snapshot (flushes the cache).
 * @mm: the allocator
 * @st: output
 */
void nvl_buddy_stats(struct nvl_buddy *mm, struct nvl_buddy_stats *st);

/**
 * nvl_buddy_print() - format the statistics as text ("order N: free M").
 * @mm: the allocator
 * @buf: output buffer
 * @len: its size
 * Return: characters that the full text needs (as snprintf).
 */
int nvl_buddy_print(struct nvl_buddy *mm, char *buf, size_t len);

#endif /* NVL_MM_BUDDY_H */

/* SPDX-License-Identifier: MIT */
/*
 * The recording page-table backend's layout (pt_record.c: the backend;
 * pt_record_view.c: queries, hash, stats, for_each), shared by its two
 * files and its unit test (tests/vm/pt_record.c) only.
 */
#ifndef NVL_VM_PT_RECORD_INTERNAL_H
#define NVL_VM_PT_RECORD_INTERNAL_H

#include <sched.h>
#include <stdatomic.h>

#include "vm/pt_record.h"

#define CHUNK_SHIFT 9 /* pages per chunk: 512 */
#define CHUNK_PAGES (1u << CHUNK_SHIFT)
#define PAGE_SHIFT 12
#define HUGE_B (2u << 20)

/* entry values */
#define E_INVALID 0
#define E_SPARSE 1
#define E_DESC 2 /* descriptor i is entry E_DESC + i */
#define NO_DESC 0xffffu
#define E_SPLIT 0xffffu /* a block entry: see the page entries */
#define BLK_SHIFT 4 /* pages per block: 16 (64 KiB) */
#define BLK_PAGES (1u << BLK_SHIFT)
#define NBLK (CHUNK_PAGES / BLK_PAGES)

/* what the pages naming it map; 24 bytes */
struct desc {
	struct nvl_gem_object *obj;
	/* offset in obj minus VA (mod 2^64): the page at va maps delta + va;
	 * a free descriptor keeps the index of the next free one here */
	uint64_t delta;
	uint32_t flags;
	uint16_t npages; /* entries naming it; 0: free */
	uint8_t page_shift;
};

/*
 * A chunk: its header with 32 block entries, then @cap descriptors; its
 * 512 page entries, if any, are a separate 1 KiB array (@pe). Like a GPU's
 * big and small page tables: a block entry says what all 16 pages of its
 * 64 KiB hold, unless it is E_SPLIT, and then the block's page entries say
 * it (they are stale otherwise, and never read). A 64 KiB tile is one
 * store in the header's two cache lines, next to its descriptor; a page
 * entry is written only when a block holds more than one thing. The page
 * entries exist once a get() asked for pages below 64 KiB (as a GPU
 * backend allocates a small page table) and are not touched until a block
 * splits: a chunk of a sparse region holding 64 KiB tiles reads 128 bytes,
 * where chunks with their page entries inline were 1.2 KiB and missed the
 * caches. Its key is its directory entry's place: a header of 16 bytes,
 * its block entries and two descriptors are 128 bytes, and 8,192 such
 * chunks (16 GiB of tiles) 1 MiB (192 bytes and 1.5 MiB with the key and
 * four descriptors; issue 19).
 */
struct chunk {
	uint16_t *pe; /* page entries, or NULL */
	uint16_t cap; /* descriptors */
	uint16_t top; /* descriptors ever handed out; the rest never used */
	uint16_t free; /* free list of descriptors, or NO_DESC */
	uint16_t present; /* pages that are not invalid */
	uint16_t big[NBLK];
	struct desc d[];
};

/*
 * The chunk directory: a radix tree over the key (va >> (PAGE_SHIFT +
 * CHUNK_SHIFT)), 512 entries a node, like a GPU's page directories: a
 * leaf holds the entries of 512 consecutive chunks (1 GiB of VA), an
 * interior node 512 pointers to the nodes below, and the tree is as tall
 * as the highest key needs (four interior levels for any 64-bit VA; two
 * below 512 GiB). A lookup is two or three indexed loads, the top ones
 * always cached; nothing is probed or hashed, and a contiguous region's
 * chunks sit at consecutive 16-byte entries, four to a cache line (issue
 * 19: the hash index's slots were 32 bytes, two neighbours a line, and a
 * tile op in a 16 GiB region missed on one of 4,096 lines; its entries
 * are 2,048 lines here).
 *
 * An entry holds the chunk, its reference count and descriptor capacity,
 * whether it has page entries, and the references of sparse regions, so
 * get() and put() read the entry and never the chunk itself (unless it
 * must grow); get() prefetches what the map that follows writes. The
 * leaf keeps the chunks' page-entry pointers apart (@pe), read only by a
 * get() of part of a block, which prefetches its page entry.
 *
 * @regs counts the references of sparse regions (get_region()), which
 * write no descriptor: a chunk keeps one descriptor more than its other
 * references (see pt_record.c), so a region's tile needs two, not three
 * (four, the size class). It saturates, and is then lower than the true
 * count: a chunk keeps more room than it needs, never less.
 *
 * Interior nodes are never freed before the record is (at most 512 above
 * the leaves for a 48-bit VA), so rec_prefetch() walks the tree without
 * the lock: every pointer of it (@top, the interior nodes' @sub) is
 * published with a release store after the node it points at is zeroed.
 * A leaf goes with its last chunk (one empty leaf is kept for the next,
 * so a lone mapping coming and going does not allocate); the hook only
 * prefetches inside a leaf, which a freed one survives.
 */
#define DIR_SHIFT 9
#define DIR_N (1u << DIR_SHIFT)
#define DIR_MASK (DIR_N - 1)
/* @top's low bits: the tree's height (interior levels; nodes are 64-byte
 * aligned, and keys have at most 43 bits: four levels above the leaves) */
#define TOP_H 7u

struct ent {
	struct chunk *c; /* NULL: none */
	uint32_t refs;
	uint16_t cap; /* mirrors c->cap */
	uint8_t has_pe; /* c->pe is not NULL */
	uint8_t regs;
};
_Static_assert(sizeof(struct ent) == 16, "four entries a cache line");

struct dleaf {
	struct ent e[DIR_N];
	uint16_t *pe[DIR_N]; /* mirrors e[i].c->pe */
	uint32_t live; /* entries with a chunk */
};

struct dnode {
	void *sub[DIR_N]; /* struct dnode, or struct dleaf one level up */
};

/* @key's index in its node at height @h (0: its leaf) */
static inline uint32_t dir_idx(uint64_t key, unsigned int h)
{
	return (uint32_t)(key >> (DIR_SHIFT * h)) & DIR_MASK;
}

/* the leaf holding entry @e of key @key */
static inline struct dleaf *leaf_of(struct ent *e, uint64_t key)
{
	return (struct dleaf *)(void *)(e - (key & DIR_MASK));
}

/* descriptors a chunk of @sl must have room for before one more get() */
static inline uint32_t ent_need(const struct ent *sl)
{
	uint32_t n = sl->refs - sl->regs + 2;

	return n < CHUNK_PAGES ? n : CHUNK_PAGES;
}

/*
 * Chunks come from a pool of power-of-two size classes (2, 4, ... 512
 * descriptors; and the 1 KiB page-entry arrays) carved from slabs that
 * grow to 2 MiB on huge pages: a million mappings spread their chunks over
 * ~200 MiB, and with 4 KiB pages nearly every chunk access also missed the
 * TLB. Freed chunks go to their class's free list, all-invalid; slabs are
 * returned at destroy.
 */
#define POOL_CLASSES 10 /* 2 .. 512 descriptors, page entries */
#define PE_CLASS 9
#define PE_BYTES (CHUNK_PAGES * sizeof(uint16_t))
#define DESC_MIN 2u
#define SLAB_MIN (64u << 10)

struct pool {
	void *free[POOL_CLASSES];
	void *slabs; /* each starts with the previous slab's address */
	char *bump, *end;
	size_t slab_B, bytes;
};

struct nvl_vm_pt_record {
	/** @busy: the lock (rec_lock()) */
	atomic_bool busy;
	struct pool pool;
	/* @top: the directory's root | its height (struct ent) */
	uintptr_t top;
	/* @last: the entry of key @last_key, the last lookup's (or NULL) */
	struct ent *last;
	uint64_t last_key;
	/* @spare: an empty leaf, all entries zero, or NULL */
	struct dleaf *spare;
	uint64_t nchunks, chunk_B, dir_B;
	uint64_t refs, ref_bytes;
	uint64_t maps, unmaps, sparses, flushes, errors;
	unsigned int fail_map_after;
	int pending_error;
};

/*
 * The lock: held for a few hundred instructions at most, by binds of one VM
 * on different queues, so a test-and-set with a yield beats a mutex's two
 * atomics and call per write (issue 19: the backend's per-bind cost).
 */
static inline void rec_lock_raw(struct nvl_vm_pt_record *rec)
{
	while (atomic_exchange_explicit(&rec->busy, true, memory_order_acquire))
		while (atomic_load_explicit(&rec->busy, memory_order_relaxed))
			sched_yield();
}

/*
 * nvl_vm_pt_record_held (pt_record.h): the record this thread holds through
 * the @lock hook (rec_hold()) or owns (nvl_vm_pt_record_own()): its calls
 * in between find it there and skip the lock.
 */
static inline void rec_lock(struct nvl_vm_pt_record *rec)
{
	if (nvl_vm_pt_record_held != rec)
		rec_lock_raw(rec);
}

static inline void rec_unlock(struct nvl_vm_pt_record *rec)
{
	if (nvl_vm_pt_record_held != rec)
		atomic_store_explicit(&rec->busy, false, memory_order_release);
}

static inline uint16_t *ents(struct chunk *c)
{
	return c->pe;
}

static inline const uint16_t *cents(const struct chunk *c)
{
	return c->pe;
}

/* The entry of @key, or NULL when its leaf does not exist. */
static inline struct ent *dir_find(const struct nvl_vm_pt_record *rec,
				   uint64_t key)
{
	unsigned int h = rec->top & TOP_H;
	void *n = (void *)(rec->top & ~(uintptr_t)TOP_H);

	if (!n || key >> (DIR_SHIFT * (h + 1)))
		return NULL;
	for (; h; h--) {
		n = ((struct dnode *)n)->sub[dir_idx(key, h)];
		if (!n)
			return NULL;
	}
	return &((struct dleaf *)n)->e[key & DIR_MASK];
}

/*
 * The entry of @key (its chunk NULL if none), or NULL when the directory
 * has no leaf for it; the last one is tried first.
 */
static inline struct ent *find_ent(struct nvl_vm_pt_record *rec, uint64_t key)
{
	struct ent *sl;

	if (rec->last_key == key)
		return rec->last;
	sl = dir_find(rec, key);
	if (sl && sl->c) {
		rec->last = sl;
		rec->last_key = key;
	}
	return sl;
}

static inline struct chunk *find(struct nvl_vm_pt_record *rec, uint64_t key)
{
	struct ent *sl = find_ent(rec, key);

	return sl ? sl->c : NULL;
}

/* What page @i of @c holds (an entry value). */
static inline uint16_t page_get(const struct chunk *c, uint32_t i)
{
	uint16_t v = c->big[i >> BLK_SHIFT];

	return v == E_SPLIT ? cents(c)[i] : v;
}

static inline bool desc_same(const struct desc *a, const struct desc *b)
{
	return a->obj == b->obj && a->delta == b->delta &&
	       a->flags == b->flags && a->page_shift == b->page_shift;
}

/* Entries @a and @b record the same state (at contiguous offsets). */
static inline bool ent_same(const struct chunk *c, uint16_t a, uint16_t b)
{
	return a == b || (a >= E_DESC && b >= E_DESC &&
			  desc_same(&c->d[a - E_DESC], &c->d[b - E_DESC]));
}

#endif /* NVL_VM_PT_RECORD_INTERNAL_H */

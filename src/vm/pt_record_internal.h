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
/* a split block's entry value (to can_fill(): a new descriptor) */
#define E_SPLIT 0xffffu
#define BLK_SHIFT 4 /* pages per block: 16 (64 KiB) */
#define BLK_PAGES (1u << BLK_SHIFT)
#define NBLK (CHUNK_PAGES / BLK_PAGES)
/*
 * Block entries are four bits, two a byte (block b in byte b / 2, the low
 * half for even b): 0 to BLK_MAX hold an entry value (invalid, sparse,
 * descriptors 0 to BLK_DESC_MAX), BLK_SPLIT says "see the page entries".
 * A block whose pages all name a descriptor above BLK_DESC_MAX is written
 * split (its page entries, two bytes, name any of the 512), so a chunk
 * with room for more than PE_CAP / 2 descriptors has page entries
 * (chunk_ref()): a chunk without holds descriptors 0 to 7 only.
 */
#define BLK_SPLIT 0xfu
#define BLK_MAX 0xeu
#define BLK_DESC_MAX (BLK_MAX - E_DESC)
#define PE_CAP 16u

/*
 * What the pages naming it map, in 16 bytes (issue 19: a 64 KiB tile's
 * map and unmap read and write one cache line of its chunk):
 *  - @w0: the BO pointer (bits 0-47), the page shift (48-53) and how many
 *    entries name it (54-63; 0: free);
 *  - @w1: the BO offset minus the VA (mod 2^64; both are page aligned, so
 *    its low 12 bits are zero: the page at va maps delta + va) with the
 *    flags in those 12 bits; a free descriptor keeps the index of the
 *    next free one here.
 * desc_pack() says whether a mapping fits; rec_map() refuses one that
 * does not (see there).
 */
struct desc {
	uint64_t w0, w1;
};

#define D_PTR_BITS 48
#define D_PTR_MASK ((1ull << D_PTR_BITS) - 1)
#define D_SHIFT_POS 48
#define D_SHIFT_MASK 0x3fu
#define D_NP_POS 54
#define D_KEY_MASK ((1ull << D_NP_POS) - 1) /* all but the page count */
#define D_FLAG_BITS 12
#define D_FLAG_MASK ((1ull << D_FLAG_BITS) - 1)

/* @n pages more (or, negative, fewer) name @d */
static inline void desc_add(struct desc *d, int32_t n)
{
	d->w0 += (uint64_t)(int64_t)n << D_NP_POS;
}

static inline uint32_t desc_npages(const struct desc *d)
{
	return (uint32_t)(d->w0 >> D_NP_POS);
}

static inline struct nvl_gem_object *desc_obj(const struct desc *d)
{
	return (struct nvl_gem_object *)(uintptr_t)(d->w0 & D_PTR_MASK);
}

static inline unsigned int desc_shift(const struct desc *d)
{
	return (unsigned int)(d->w0 >> D_SHIFT_POS) & D_SHIFT_MASK;
}

static inline uint64_t desc_delta(const struct desc *d)
{
	return d->w1 & ~D_FLAG_MASK;
}

static inline uint32_t desc_flags(const struct desc *d)
{
	return (uint32_t)(d->w1 & D_FLAG_MASK);
}

/*
 * @out: a mapping of @obj at @delta (BO offset minus VA) with @flags and
 * @page_shift, named by no page yet. Return: false when it does not fit
 * (a pointer above 2^48, a delta that is not a multiple of 4 KiB, flags
 * above bit 11, a page shift above 63); @out is then not a descriptor.
 */
static inline bool desc_pack(struct desc *out, struct nvl_gem_object *obj,
			     uint64_t delta, uint32_t flags,
			     unsigned int page_shift)
{
	uintptr_t p = (uintptr_t)obj;

	out->w0 = (uint64_t)p | (uint64_t)page_shift << D_SHIFT_POS;
	out->w1 = delta | flags;
	return !(((uint64_t)p >> D_PTR_BITS) | (delta & D_FLAG_MASK) |
		 (flags >> D_FLAG_BITS) | (page_shift >> 6));
}

/*
 * A chunk: a header, 32 one-byte block entries and @cap descriptors; its
 * 512 page entries, if any, are a separate 1 KiB array (@pe). Like a GPU's
 * big and small page tables: a block entry says what all 16 pages of its
 * 64 KiB hold, unless it is BLK_SPLIT, and then the block's page entries
 * say it (they are stale otherwise, and never read). The page entries
 * exist once a get() asked for pages below 64 KiB (as a GPU backend
 * allocates a small page table) and are not touched until a block splits.
 * The header (16 bytes), the block entries (16) and the first two
 * descriptors (32) are the chunk's first cache line: a chunk of two
 * descriptors (a sparse region's, holding a tile) is one line, where a
 * 64 KiB tile is mapped and unmapped (issue 19, the twentieth round: with
 * two-byte block entries and 24-byte descriptors it was two lines, both
 * read a tile op). Its key is its directory entry's place; 8,192 such
 * chunks (16 GiB of tiles) are 512 KiB.
 */
struct chunk {
	uint16_t *pe; /* page entries, or NULL */
	uint16_t cap; /* descriptors */
	uint16_t top; /* descriptors ever handed out; the rest never used */
	uint16_t free; /* free list of descriptors, or NO_DESC */
	uint16_t present; /* pages that are not invalid */
	uint8_t blk[NBLK / 2]; /* block entries, two a byte */
	struct desc d[];
};
_Static_assert(sizeof(struct desc) == 16, "four descriptors a line");
_Static_assert(sizeof(struct chunk) + 2 * sizeof(struct desc) == 64,
	       "a chunk of two descriptors is one line");

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
 * No node is freed before the record is, so rec_prefetch() walks the tree
 * and reads an entry's chunk pointer without the lock: every pointer of
 * the tree (@top, the interior nodes' @sub) is published with a release
 * store after the node it points at is zeroed, and every store of an
 * entry's chunk pointer is atomic (ent_set_chunk()). Interior nodes stay
 * where they are (at most 512 above the leaves for a 48-bit VA). A leaf
 * is unhooked with its last chunk and goes to the record's idle list,
 * from which the next new leaf is taken (so a lone mapping coming and
 * going does not allocate): the directory holds at most as many leaves
 * as it ever needed at once, like the chunk pool its slabs. A hook that
 * read an unhooked leaf's address reads a chunk pointer of live memory
 * (NULL, or another key's chunk once the leaf is reused) and prefetches
 * it: a wasted prefetch, never a use after free (issue 19: the chunk's
 * line loaded at the call's entry, the twenty-first round).
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
	struct dleaf *next_idle; /* on the idle list: the next one */
};

/* @sl's chunk becomes @c: an atomic store, rec_prefetch() reads it unlocked */
static inline void ent_set_chunk(struct ent *sl, struct chunk *c)
{
	__atomic_store_n(&sl->c, c, __ATOMIC_RELAXED);
}

/* @sl names @c (NULL: none) of @cap descriptors, no reference or region */
static inline void ent_reset(struct ent *sl, struct chunk *c, uint16_t cap)
{
	sl->refs = 0;
	sl->cap = cap;
	sl->has_pe = 0;
	sl->regs = 0;
	ent_set_chunk(sl, c);
}

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
	/*
	 * @idle: unhooked empty leaves (all entries zero), linked through
	 * @next_idle, freed at destroy only; @nidle of them
	 */
	struct dleaf *idle;
	uint64_t nidle;
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

/* Block entry @b of @c as it is stored (BLK_SPLIT: split). */
static inline uint32_t blk_raw(const struct chunk *c, uint32_t b)
{
	return (uint32_t)(c->blk[b >> 1] >> ((b & 1) << 2)) & 0xfu;
}

/* Block entry @b of @c becomes @v (at most BLK_SPLIT). */
static inline void blk_set(struct chunk *c, uint32_t b, uint32_t v)
{
	unsigned int sh = (b & 1) << 2;

	c->blk[b >> 1] =
		(uint8_t)((c->blk[b >> 1] & ~(0xfu << sh)) | (v << sh));
}

/* What page @i of @c holds (an entry value). */
/* What page @i of @c holds, @raw its block's entry (read once). */
static inline uint16_t page_in(const struct chunk *c, uint32_t raw, uint32_t i)
{
	return raw == BLK_SPLIT ? cents(c)[i] : (uint16_t)raw;
}

static inline uint16_t page_get(const struct chunk *c, uint32_t i)
{
	return page_in(c, blk_raw(c, i >> BLK_SHIFT), i);
}

/* @a and @b map the same (whatever their page counts) */
static inline bool desc_same(const struct desc *a, const struct desc *b)
{
	return !((a->w0 ^ b->w0) & D_KEY_MASK) && a->w1 == b->w1;
}

/* Entries @a and @b record the same state (at contiguous offsets). */
static inline bool ent_same(const struct chunk *c, uint16_t a, uint16_t b)
{
	return a == b || (a >= E_DESC && b >= E_DESC &&
			  desc_same(&c->d[a - E_DESC], &c->d[b - E_DESC]));
}

#endif /* NVL_VM_PT_RECORD_INTERNAL_H */

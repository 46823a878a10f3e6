// SPDX-License-Identifier: MIT
/*
 * DOC: The recording page-table backend
 *
 * Records, exactly and per page, what the page tables map. Like real page
 * tables, the record is split in chunks of 512 pages (one 2 MiB "table"
 * each), found through a radix directory like the page directories above
 * page tables: a write touches only the chunks of its range, whatever the
 * VM holds, so the cost of a 4 KiB bind does not grow with the number of
 * mappings.
 *
 * A chunk is written like a page table (issue 19: "the recording backend's
 * per-bind cost near a store"): 512 two-byte entries, one a page, under
 * 32 one-byte block entries, one a 64 KiB block, that say what a whole
 * block holds unless it is split: 0 invalid, 1 sparse, else the index (+ 2)
 * of a descriptor of the chunk that says what the page maps: the BO, BO
 * offset minus VA (so one descriptor serves every page of a mapping, at
 * contiguous offsets), flags and page size, and how many entries name it,
 * packed in 16 bytes (pt_record_internal.h). A 4 KiB map is one page-entry
 * store, a 64 KiB tile one block-entry store, in the chunk's first cache
 * line with the header and the first descriptor; nothing is searched,
 * shifted or merged. A map reuses the descriptor of the page it overwrites or of a neighbour
 * when it says the same (a fault or a remap writing a mapping again), else
 * takes a free one. Runs (maximal pieces of one state) are derived when
 * asked for (stats, hash, for_each), never kept.
 *
 * Writes (map, unmap, sparse) happen in the commit phase and must not
 * allocate, so get() does what a real backend does: it allocates the chunks
 * ("page-table pages") of the range, takes a reference on each, and makes
 * room in each for one more descriptor than it has references other than
 * sparse regions' (every live descriptor has a page that a live mapping,
 * which holds a reference, maps; a region writes none).
 * put() drops the references and frees a chunk with its last. A write that
 * finds no chunk or no free descriptor, or would split a block of a chunk
 * whose get()s asked for no page entries, is counted in stats.errors: a
 * GPUVM bug, which the tests check never happens.
 *
 * A chunk's last put leaves its entries all invalid (GPUVM unmaps first), so
 * freed chunks go back to the pool all-invalid and a new chunk is never
 * zeroed on the way (only fresh pool memory is, once). The entry of the last
 * lookup is remembered: the get, write and put of one op, and the write and
 * put of the next op on the same page, walk the directory once.
 *
 * One lock (a leaf: nothing waits under it; a test-and-set spin lock that
 * yields) makes the backend safe for binds committing from several bind
 * queues at once.
 */
#include <errno.h>
#include <stddef.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/alloc.h"
#include "base/log.h"
#include "vm/pt_record_internal.h"

/* the record this thread holds through the @lock hook (rec_hold()) */
_Thread_local const struct nvl_vm_pt_record *nvl_vm_pt_record_held
	__attribute__((tls_model("initial-exec")));

/* The @lock hook: one lock for a whole bind. Not nested. */
static void rec_hold(void *priv)
{
	struct nvl_vm_pt_record *rec = priv;

	rec_lock_raw(rec);
	nvl_vm_pt_record_held = rec;
}

static void rec_release(void *priv)
{
	struct nvl_vm_pt_record *rec = priv;

	nvl_vm_pt_record_held = NULL;
	atomic_store_explicit(&rec->busy, false, memory_order_release);
}

/* bytes of a chunk of @cap descriptors, a multiple of the cache line */
static size_t chunk_bytes(uint32_t cap)
{
	size_t b = sizeof(struct chunk) + cap * sizeof(struct desc);

	return (b + 63) & ~(size_t)63;
}

/* Size class of a @cap-descriptor chunk (a power of two, 2 to 512). */
static int pool_class(uint32_t cap)
{
	return __builtin_ctz(cap) - 1;
}

/* @bytes from class @k (always the same size), or NULL */
static void *pool_get(struct pool *p, int k, size_t bytes)
{
	void *m;

	if ((m = p->free[k])) {
		p->free[k] = *(void **)m;
		return m;
	}
	if (!p->bump || (size_t)(p->end - p->bump) < bytes) {
		size_t sz = p->slab_B ? p->slab_B : SLAB_MIN;
		char *slab = nvl_aligned_alloc(sz >= HUGE_B ? HUGE_B : 64, sz);

		if (!slab)
			return NULL;
		if (sz >= HUGE_B)
			madvise(slab, sz, MADV_HUGEPAGE);
		/* the old slab's tail is lost: at most one chunk's bytes */
		*(void **)slab = p->slabs;
		p->slabs = slab;
		p->bump = slab + 64;
		p->end = slab + sz;
		p->bytes += sz;
		p->slab_B = sz < HUGE_B ? sz * 2 : HUGE_B;
	}
	m = p->bump;
	p->bump += bytes;
	return m;
}

static void pool_put(struct pool *p, int k, void *m)
{
	*(void **)m = p->free[k];
	p->free[k] = m;
}

/*
 * A chunk of @cap descriptors, all pages invalid (through its block
 * entries: page entries are read only under a split block, which writes
 * them first), without page entries; or NULL.
 */
static struct chunk *chunk_alloc(struct pool *p, uint32_t cap)
{
	struct chunk *c = pool_get(p, pool_class(cap), chunk_bytes(cap));

	if (!c)
		return NULL;
	c->cap = (uint16_t)cap;
	c->pe = NULL;
	memset(c->blk, 0, sizeof(c->blk));
	return c;
}

static void pool_fini(struct pool *p)
{
	while (p->slabs) {
		void *next = *(void **)p->slabs;

		nvl_free(p->slabs);
		p->slabs = next;
	}
}

int nvl_vm_pt_record_create(struct nvl_vm_pt_record **rec_out)
{
	struct nvl_vm_pt_record *rec = nvl_zalloc(sizeof(*rec));

	if (!rec)
		return -ENOMEM;
	rec->last_key = UINT64_MAX; /* no key: keys are va >> 21 */
	*rec_out = rec;
	return 0;
}

/* Free directory node @n of height @h (0: a leaf) and all below it. */
static void dir_free(void *n, unsigned int h)
{
	if (h)
		for (uint32_t i = 0; i < DIR_N; i++)
			if (((struct dnode *)n)->sub[i])
				dir_free(((struct dnode *)n)->sub[i], h - 1);
	nvl_free(n);
}

void nvl_vm_pt_record_destroy(struct nvl_vm_pt_record *rec)
{
	if (!rec)
		return;
	pool_fini(&rec->pool);
	if (rec->top)
		dir_free((void *)(rec->top & ~(uintptr_t)TOP_H),
			 rec->top & TOP_H);
	while (rec->idle) {
		struct dleaf *l = rec->idle;

		rec->idle = l->next_idle;
		nvl_free(l);
	}
	nvl_free(rec);
}

/*
 * A zeroed directory node of height @h (0: a leaf: an idle one if any,
 * whose entries are zero and page-entry pointers unread), or NULL.
 */
static void *dir_node(struct nvl_vm_pt_record *rec, unsigned int h)
{
	size_t bytes = h ? sizeof(struct dnode) : sizeof(struct dleaf);
	void *n;

	if (!h && rec->idle) {
		struct dleaf *l = rec->idle;

		rec->idle = l->next_idle;
		l->next_idle = NULL;
		rec->nidle--;
		rec->dir_B += bytes;
		return l;
	}
	n = nvl_aligned_alloc(64, bytes);
	if (n) {
		memset(n, 0, bytes);
		rec->dir_B += bytes;
	}
	return n;
}

/* the height a directory needs for @key */
static unsigned int dir_height(uint64_t key)
{
	unsigned int h = 0;

	while (key >> (DIR_SHIFT * (h + 1)))
		h++;
	return h;
}

/*
 * The entry of @key, making the directory nodes it needs (a taller root,
 * the nodes on its path); NULL when one cannot be allocated. Nodes made
 * before a failure stay, empty: the record's state is unchanged.
 */
static struct ent *dir_path(struct nvl_vm_pt_record *rec, uint64_t key)
{
	unsigned int h = rec->top & TOP_H, need = dir_height(key);
	void *n = (void *)(rec->top & ~(uintptr_t)TOP_H);

	if (!n) {
		if (!(n = dir_node(rec, need)))
			return NULL;
		h = need;
		__atomic_store_n(&rec->top, (uintptr_t)n | h, __ATOMIC_RELEASE);
	}
	while (h < need) { /* the old root becomes the new one's first */
		struct dnode *up = dir_node(rec, h + 1);

		if (!up)
			return NULL;
		up->sub[0] = n;
		n = up;
		h++;
		__atomic_store_n(&rec->top, (uintptr_t)n | h, __ATOMIC_RELEASE);
	}
	for (; h; h--) {
		void **sub = &((struct dnode *)n)->sub[dir_idx(key, h)];

		if (!*sub) {
			void *m = dir_node(rec, h - 1);

			if (!m)
				return NULL;
			__atomic_store_n(sub, m, __ATOMIC_RELEASE);
		}
		n = *sub;
	}
	return &((struct dleaf *)n)->e[key & DIR_MASK];
}

/*
 * Unhook leaf @l (of key @key), which holds no chunk, and put it on the
 * idle list (never freed before the record: a prefetch hook that read its
 * address before may still read an entry of it).
 */
static void dir_drop_leaf(struct nvl_vm_pt_record *rec, uint64_t key,
			  struct dleaf *l)
{
	unsigned int h = rec->top & TOP_H;
	void *n = (void *)(rec->top & ~(uintptr_t)TOP_H);

	if (!h) {
		__atomic_store_n(&rec->top, 0, __ATOMIC_RELEASE);
	} else {
		for (; h > 1; h--)
			n = ((struct dnode *)n)->sub[dir_idx(key, h)];
		__atomic_store_n(&((struct dnode *)n)->sub[dir_idx(key, 1)],
				 NULL, __ATOMIC_RELEASE);
	}
	if (rec->last_key >> DIR_SHIFT == key >> DIR_SHIFT) {
		rec->last_key = UINT64_MAX;
		rec->last = NULL;
	}
	rec->dir_B -= sizeof(*l);
	l->next_idle = rec->idle;
	rec->idle = l;
	rec->nidle++;
}

/*
 * Empty @sl (of key @key) and return its chunk to the pool (its leaf's
 * page-entry pointer goes stale: it is read only while @sl->has_pe); the
 * leaf goes with its last chunk.
 */
static void chunk_drop(struct nvl_vm_pt_record *rec, struct ent *sl,
		       uint64_t key)
{
	struct chunk *c = sl->c;
	struct dleaf *l = leaf_of(sl, key);

	if (c->present)
		rec->errors++; /* a table freed while still mapping something */
	ent_reset(sl, NULL, 0);
	if (!--l->live)
		dir_drop_leaf(rec, key, l);
	rec->nchunks--;
	rec->chunk_B -= chunk_bytes(c->cap) + (c->pe ? PE_BYTES : 0);
	if (c->pe)
		pool_put(&rec->pool, PE_CLASS, c->pe);
	pool_put(&rec->pool, pool_class(c->cap), c);
}

/* Drop a reference on chunk @key; @reg: a sparse region's (get_region()). */
static void chunk_unref(struct nvl_vm_pt_record *rec, uint64_t key, bool reg)
{
	struct ent *sl = find_ent(rec, key);

	if (!sl || !sl->c || !sl->refs) {
		rec->errors++;
		return;
	}
	if (reg && sl->regs)
		sl->regs--;
	if (!--sl->refs)
		chunk_drop(rec, sl, key);
}

/* A new chunk for @key, referenced by nobody yet; Return: its entry or NULL. */
static struct ent *chunk_new(struct nvl_vm_pt_record *rec, uint64_t key)
{
	struct ent *sl = dir_path(rec, key);
	struct chunk *c;

	if (!sl)
		return NULL;
	c = chunk_alloc(&rec->pool, DESC_MIN);
	if (!c) {
		if (!leaf_of(sl, key)->live)
			dir_drop_leaf(rec, key, leaf_of(sl, key));
		return NULL;
	}
	leaf_of(sl, key)->live++;
	c->top = 0;
	c->free = NO_DESC;
	c->present = 0;
	ent_reset(sl, c, DESC_MIN);
	rec->nchunks++;
	rec->chunk_B += chunk_bytes(DESC_MIN);
	rec->last = sl;
	rec->last_key = key;
	return sl;
}

/* @sl's chunk copied with room for @cap descriptors; Return: 0 or -ENOMEM. */
static int chunk_grow(struct nvl_vm_pt_record *rec, struct ent *sl,
		      uint32_t cap)
{
	struct chunk *c = sl->c, *nc = chunk_alloc(&rec->pool, cap);

	if (!nc)
		return -ENOMEM;
	memcpy(nc, c, sizeof(*c) + c->cap * sizeof(struct desc));
	nc->cap = (uint16_t)cap;
	ent_set_chunk(sl, nc); /* the page entries do not move */
	sl->cap = (uint16_t)cap;
	rec->chunk_B += chunk_bytes(cap) - chunk_bytes(c->cap);
	pool_put(&rec->pool, pool_class(c->cap), c);
	return 0;
}

/*
 * Take one reference on chunk @key with a spare descriptor, and page
 * entries if @pg; @reg: a sparse region's reference, which writes no
 * descriptor (the chunk's room is enough as it is).
 */
static int chunk_ref(struct nvl_vm_pt_record *rec, uint64_t key, bool pg,
		     bool reg)
{
	struct ent *sl = find_ent(rec, key);
	uint32_t need, cap;

	if ((!sl || !sl->c) && !(sl = chunk_new(rec, key)))
		return -ENOMEM;
	need = reg ? 0 : ent_need(sl);
	for (cap = sl->cap; cap < need;)
		cap *= 2;
	/*
	 * Page entries first: a chunk with room for more descriptors than
	 * its block entries name has them (BLK_DESC_MAX), so a grown chunk
	 * never lacks them, even when growing fails.
	 */
	if ((pg || cap >= PE_CAP) && !sl->has_pe) {
		uint16_t *pe = pool_get(&rec->pool, PE_CLASS, PE_BYTES);

		if (!pe)
			goto fail;
		sl->c->pe = pe;
		leaf_of(sl, key)->pe[key & DIR_MASK] = pe;
		sl->has_pe = 1;
		rec->chunk_B += PE_BYTES;
	}
	if (cap != sl->cap && chunk_grow(rec, sl, cap))
		goto fail;
	sl->refs++;
	if (reg && sl->regs < UINT8_MAX)
		sl->regs++;
	return 0;
fail:
	if (!sl->refs)
		chunk_drop(rec, sl, key);
	return -ENOMEM;
}

/* a range that is not whole 64 KiB blocks */
static bool part_blocks(uint64_t va, uint64_t range)
{
	return ((va | range) & ((1ull << (PAGE_SHIFT + BLK_SHIFT)) - 1)) != 0;
}

/* get_range() of more than one chunk, or of one that must be made or grow */
static __attribute__((noinline)) int get_slow(struct nvl_vm_pt_record *rec,
					      uint64_t va, uint64_t range,
					      bool pg, bool reg);

/*
 * get() and get_region() (@reg): @pg, the range's writes may split blocks.
 * One existing chunk with room for another descriptor is a reference more.
 */
static inline int get_range(struct nvl_vm_pt_record *rec, uint64_t va,
			    uint64_t range, bool pg, bool reg)
{
	uint64_t k0 = va >> (PAGE_SHIFT + CHUNK_SHIFT);
	uint64_t k1 = (va + range - 1) >> (PAGE_SHIFT + CHUNK_SHIFT);
	struct ent *sl;

	if (k0 != k1)
		return get_slow(rec, va, range, pg, reg);
	rec_lock(rec);
	sl = find_ent(rec, k0);
	if (!sl || !sl->c || (!reg && sl->cap < ent_need(sl)) ||
	    (pg && !sl->has_pe)) {
		rec_unlock(rec);
		return get_slow(rec, va, range, pg, reg);
	}
	sl->refs++;
	if (reg && sl->regs < UINT8_MAX)
		sl->regs++;
	/*
	 * What the map will write, loaded while GPUVM works on: the header,
	 * the block entries and the descriptors (the one it takes is the
	 * free list's head, anywhere among them: at a million mappings, 16
	 * descriptors over five lines), at most 512 bytes; one line for a
	 * chunk of two descriptors (a region's tile). Its page entries when
	 * it writes part of a block (whole blocks are written through their
	 * block entries: a 64 KiB tile's chunk has page entries when its
	 * pages are 4 KiB, for a lazy mapping's faults, but the tile's map
	 * and unmap never read them; prefetching them was a line a tile op
	 * out of 8 MiB of them in sparse_tiles).
	 */
	for (size_t o = 0; o < NVL_MIN(chunk_bytes(sl->cap), (size_t)512);
	     o += 64)
		__builtin_prefetch((const char *)sl->c + o);
	if (sl->has_pe && part_blocks(va, range)) {
		const uint16_t *pe = leaf_of(sl, k0)->pe[dir_idx(k0, 0)];

		__builtin_prefetch(&pe[(va >> PAGE_SHIFT) & (CHUNK_PAGES - 1)]);
	}
	rec->refs++;
	rec->ref_bytes += range;
	rec_unlock(rec);
	return 0;
}

static int get_slow(struct nvl_vm_pt_record *rec, uint64_t va, uint64_t range,
		    bool pg, bool reg)
{
	uint64_t k0 = va >> (PAGE_SHIFT + CHUNK_SHIFT);
	uint64_t k1 = (va + range - 1) >> (PAGE_SHIFT + CHUNK_SHIFT);
	int ret = 0;

	/*
	 * Allocation under the lock: the lock is a leaf only taken by this
	 * backend, and get() runs in the prepare phase, never in a
	 * signalling section.
	 */
	rec_lock(rec);
	for (uint64_t k = k0; k <= k1; k++) {
		ret = chunk_ref(rec, k, pg, reg);
		if (ret) {
			while (k-- > k0)
				chunk_unref(rec, k, reg);
			break;
		}
	}
	if (!ret) {
		/*
		 * What the map will write, loaded while GPUVM works on: the
		 * first chunk's header (block entries) and first descriptors,
		 * and for part of a block its page entries.
		 */
		struct ent *sl = find_ent(rec, k0);
		uint32_t s = (uint32_t)(va >> PAGE_SHIFT) & (CHUNK_PAGES - 1);

		__builtin_prefetch(sl->c); /* all of a two-descriptor chunk */
		if (sl->cap > DESC_MIN)
			__builtin_prefetch((const char *)sl->c + 64);
		if (sl->has_pe && part_blocks(va, range))
			__builtin_prefetch(&sl->c->pe[s]);
		rec->refs++;
		rec->ref_bytes += range;
	}
	rec_unlock(rec);
	return ret;
}

/*
 * Page entries for pages below 64 KiB (a fault of a lazy mapping writes
 * one) or a range that is not whole blocks (writes of the mapping, or of
 * the pieces a REMAP leaves around a hole, split blocks).
 */
static int rec_get(void *priv, uint64_t va, uint64_t range,
		   unsigned int page_shift)
{
	return get_range(priv, va, range,
			 page_shift < PAGE_SHIFT + BLK_SHIFT ||
				 part_blocks(va, range),
			 false);
}

/*
 * A sparse region's writes are the region's whole range (sparse on and
 * off) and its mappings' unmaps to sparse, which their own get() covers:
 * unlike get() at the VM's page size, a 64 KiB aligned region needs no page
 * entries.
 */
static int rec_get_region(void *priv, uint64_t va, uint64_t range)
{
	return get_range(priv, va, range, part_blocks(va, range), true);
}

/* put() and put_region() (@reg) */
static inline void put_range(struct nvl_vm_pt_record *rec, uint64_t va,
			     uint64_t range, bool reg)
{
	uint64_t k0 = va >> (PAGE_SHIFT + CHUNK_SHIFT);
	uint64_t k1 = (va + range - 1) >> (PAGE_SHIFT + CHUNK_SHIFT);

	rec_lock(rec);
	for (uint64_t k = k0; k <= k1; k++)
		chunk_unref(rec, k, reg);
	if (!rec->refs)
		rec->errors++;
	else
		rec->refs--, rec->ref_bytes -= range;
	rec_unlock(rec);
}

static void rec_put(void *priv, uint64_t va, uint64_t range,
		    unsigned int page_shift)
{
	(void)page_shift;
	put_range(priv, va, range, false);
}

static void rec_put_region(void *priv, uint64_t va, uint64_t range)
{
	put_range(priv, va, range, true);
}

/* Page entries go four to a 64-bit word: a block is four loads or stores. */
#define EPAT(v) ((uint64_t)(v)*0x0001000100010001ull)

/* Do page entries [s, e) of @c all hold @v? */
/* a descriptor slot of @c for a new mapping: the free list's head, else
 * one past the used ones; false when @c is full */
static inline bool desc_take(struct chunk *c, uint32_t *i)
{
	if (c->free != NO_DESC) {
		*i = c->free;
		c->free = (uint16_t)c->d[*i].w1;
	} else if (c->top < c->cap) {
		*i = c->top++;
	} else {
		return false;
	}
	return true;
}

static bool all_ents(const struct chunk *c, uint32_t s, uint32_t e, uint16_t v)
{
	const uint16_t *ent = cents(c);
	uint32_t i = s;

	for (; i < e && (i & 3); i++)
		if (ent[i] != v)
			return false;
	for (; i + 4 <= e; i += 4) {
		uint64_t w;

		memcpy(&w, ent + i, sizeof(w));
		if (w != EPAT(v))
			return false;
	}
	for (; i < e; i++)
		if (ent[i] != v)
			return false;
	return true;
}

/* Page entries [s, e) of @c become @v. */
static void set_ents(struct chunk *c, uint32_t s, uint32_t e, uint16_t v)
{
	uint16_t *ent = ents(c);
	uint32_t i = s;

	for (; i < e && (i & 3); i++)
		ent[i] = v;
	for (; i + 4 <= e; i += 4) {
		uint64_t w = EPAT(v);

		memcpy(ent + i, &w, sizeof(w));
	}
	for (; i < e; i++)
		ent[i] = v;
}

/* @n pages of @c that held @old stop naming it. */
static void release_n(struct chunk *c, uint16_t old, uint32_t n)
{
	struct desc *d;

	if (old == E_INVALID)
		return;
	c->present -= (uint16_t)n;
	if (old < E_DESC)
		return;
	d = &c->d[old - E_DESC];
	desc_add(d, -(int32_t)n);
	if (!desc_npages(d)) {
		d->w1 = c->free;
		c->free = (uint16_t)(old - E_DESC);
	}
}

/* Pages [s, e) of one split block of @c stop naming what they name. */
static void release_ents(struct chunk *c, uint32_t s, uint32_t e)
{
	const uint16_t *ent = cents(c);

	if (all_ents(c, s, e, ent[s])) {
		release_n(c, ent[s], e - s);
		return;
	}
	for (uint32_t i = s; i < e;) {
		uint16_t old = ent[i];
		uint32_t j = i + 1;

		while (j < e && ent[j] == old)
			j++;
		release_n(c, old, j - i);
		i = j;
	}
}

/* release() of more than a page */
static __attribute__((noinline)) void release_range(struct chunk *c, uint32_t s,
						    uint32_t e)
{
	for (uint32_t b = s >> BLK_SHIFT; b << BLK_SHIFT < e; b++) {
		uint32_t bs = NVL_MAX(s, b << BLK_SHIFT);
		uint32_t be = NVL_MIN(e, (b + 1) << BLK_SHIFT);
		uint32_t v = blk_raw(c, b);

		if (v != BLK_SPLIT)
			release_n(c, (uint16_t)v, be - bs);
		else
			release_ents(c, bs, be);
	}
}

/* Pages [s, e) of @c stop naming what they name. */
static inline void release(struct chunk *c, uint32_t s, uint32_t e)
{
	if (e - s == 1)
		release_n(c, page_get(c, s), 1);
	else if (e - s == BLK_PAGES && !(s & (BLK_PAGES - 1)) &&
		 blk_raw(c, s >> BLK_SHIFT) != BLK_SPLIT)
		release_n(c, (uint16_t)blk_raw(c, s >> BLK_SHIFT), BLK_PAGES);
	else
		release_range(c, s, e);
}

/* Split block @b of @c (not split): its page entries take its value. */
static void split(struct chunk *c, uint32_t b)
{
	set_ents(c, b << BLK_SHIFT, (b + 1) << BLK_SHIFT,
		 (uint16_t)blk_raw(c, b));
	blk_set(c, b, BLK_SPLIT);
}

/* Does block @b of @c hold @v whole (not split)? */
static inline bool blk_is(const struct chunk *c, uint32_t b, uint16_t v)
{
	return v <= BLK_MAX && blk_raw(c, b) == v;
}

/* fill() of more than a page */
static __attribute__((noinline)) void fill_range(struct chunk *c, uint32_t s,
						 uint32_t e, uint16_t v)
{
	for (uint32_t b = s >> BLK_SHIFT; b << BLK_SHIFT < e; b++) {
		uint32_t b0 = b << BLK_SHIFT, b1 = b0 + BLK_PAGES;
		uint32_t bs = NVL_MAX(s, b0), be = NVL_MIN(e, b1);

		if (blk_is(c, b, v))
			continue;
		if (bs == b0 && be == b1 && v <= BLK_MAX) {
			blk_set(c, b, v);
			continue;
		}
		/* part of the block, or a descriptor above BLK_DESC_MAX */
		if (blk_raw(c, b) != BLK_SPLIT)
			split(c, b);
		set_ents(c, bs, be, v);
	}
}

/*
 * Pages [s, e) of @c (released) become @v: whole blocks by their block
 * entry; part of a block splits it (its page entries take its old value
 * first). A split block stays split until a write covers it whole: joining
 * it after every small write cost a check of its 16 entries, and a 4 KiB
 * bind + unbind split and joined its block each time.
 */
static inline void fill(struct chunk *c, uint32_t s, uint32_t e, uint16_t v)
{
	uint32_t b = s >> BLK_SHIFT;

	if (v != E_INVALID)
		c->present += (uint16_t)(e - s);
	if (e - s == BLK_PAGES && !(s & (BLK_PAGES - 1)) && v <= BLK_MAX) {
		blk_set(c, b, v);
	} else if (e - s != 1) {
		fill_range(c, s, e, v);
	} else if (!blk_is(c, b, v)) {
		if (blk_raw(c, b) != BLK_SPLIT)
			split(c, b);
		ents(c)[s] = v;
	}
}

/*
 * Can [s, e) of @c become @v (E_SPLIT: a new descriptor)? Not when that
 * splits a block of a chunk without page entries: its get() did not ask
 * for them (a GPUVM bug, or a rewrite of part of a block with something
 * else than the get()'s mapping put there); nor when a block entry
 * cannot name the descriptor (above BLK_DESC_MAX; for a new one, when
 * the chunk has handed out more than that, so that the one taken may be
 * above). Neither happens: a chunk with room for more descriptors than
 * block entries name has page entries (chunk_ref()).
 */
static bool can_fill(const struct chunk *c, uint32_t s, uint32_t e, uint16_t v)
{
	if (c->pe)
		return true;
	if (v == E_SPLIT ? c->top > BLK_DESC_MAX : v > BLK_MAX)
		return false;
	if ((s & (BLK_PAGES - 1)) && blk_raw(c, s >> BLK_SHIFT) != v)
		return false;
	return !(e & (BLK_PAGES - 1)) || blk_raw(c, (e - 1) >> BLK_SHIFT) == v;
}

/*
 * Map [s, e) of @c as @want says: with the descriptor of the page it
 * overwrites or of a neighbour when that says the same, else a free one.
 * Return: false when there is none (a GPUVM bug: get() keeps one spare).
 */
static bool map_ents(struct chunk *c, uint32_t s, uint32_t e,
		     const struct desc *want)
{
	uint32_t i;

	for (int k = 0; k < 3; k++) {
		uint16_t v = k == 0   ? page_get(c, s)
			     : k == 1 ? (s ? page_get(c, s - 1) : E_INVALID)
				      : (e < CHUNK_PAGES ? page_get(c, e)
							 : E_INVALID);

		if (v >= E_DESC && desc_same(&c->d[v - E_DESC], want)) {
			if (!can_fill(c, s, e, v))
				return false;
			desc_add(&c->d[v - E_DESC], (int32_t)(e - s));
			release(c, s, e);
			fill(c, s, e, v);
			return true;
		}
	}
	if (!can_fill(c, s, e, E_SPLIT))
		return false;
	release(c, s, e);
	if (!desc_take(c, &i))
		return false;
	c->d[i] = *want;
	desc_add(&c->d[i], (int32_t)(e - s));
	fill(c, s, e, (uint16_t)(E_DESC + i));
	return true;
}

/* A neighbour @i of a page of block @b (@raw), or E_INVALID beyond @c. */
static inline uint16_t page_near(const struct chunk *c, uint32_t b,
				 uint32_t raw, uint32_t i)
{
	if (i >= CHUNK_PAGES) /* also i == -1 */
		return E_INVALID;
	return i >> BLK_SHIFT == b ? page_in(c, raw, i) : page_get(c, i);
}

/* Does entry value @v name a descriptor that maps as @want does? */
static inline bool names(const struct chunk *c, uint16_t v,
			 const struct desc *want)
{
	return v >= E_DESC && desc_same(&c->d[v - E_DESC], want);
}

/*
 * One page @s of @c, which has page entries (a 4 KiB page's map or
 * unmap): map_ents() (@want), or release() and fill() with @what, with
 * the same result, reading the block's entry once and its page entries
 * directly (issue 19: with four-bit block entries map_ents() read the
 * block entry through page_get() four times and release() and fill() three
 * more, each a shift and a mask). Return: false when no descriptor is
 * free (as map_ents()).
 */
static inline bool write_page(struct chunk *c, uint32_t s, uint16_t what,
			      const struct desc *want)
{
	uint32_t b = s >> BLK_SHIFT, raw = blk_raw(c, b), i;
	uint16_t cur = page_in(c, raw, s), v = cur;

	if (!want) {
		release_n(c, cur, 1);
		v = what;
	} else if (names(c, v, want) || /* the page, then its neighbours */
		   names(c, v = page_near(c, b, raw, s - 1), want) ||
		   names(c, v = page_near(c, b, raw, s + 1), want)) {
		desc_add(&c->d[v - E_DESC], 1);
		release_n(c, cur, 1);
	} else {
		release_n(c, cur, 1);
		if (!desc_take(c, &i))
			return false;
		c->d[i] = *want;
		desc_add(&c->d[i], 1);
		v = (uint16_t)(E_DESC + i);
	}
	if (v != E_INVALID)
		c->present++;
	/* as fill(): release_n() and desc_take() left the block entry */
	if (v > BLK_MAX || raw != v) {
		if (raw != BLK_SPLIT)
			split(c, b);
		ents(c)[s] = v;
	}
	return true;
}

/* Write pages [s, e) of chunk @key: @what, or a map (@want). */
static inline void write_chunk(struct nvl_vm_pt_record *rec, uint64_t key,
			       uint32_t s, uint32_t e, uint16_t what,
			       const struct desc *want)
{
	struct chunk *c = find(rec, key);

	if (!c) {
		rec->errors++; /* written without get() */
	} else if (e - s == 1 && c->pe) {
		if (!write_page(c, s, what, want))
			rec->errors++;
	} else if (want) {
		if (!map_ents(c, s, e, want))
			rec->errors++;
	} else if (!can_fill(c, s, e, what)) {
		rec->errors++;
	} else {
		release(c, s, e);
		fill(c, s, e, what);
	}
}

/* write_range() over more than one chunk */
static __attribute__((noinline)) void write_chunks(struct nvl_vm_pt_record *rec,
						   uint64_t p, uint64_t pe,
						   uint16_t what,
						   const struct desc *want)
{
	while (p < pe) {
		uint64_t key = p >> CHUNK_SHIFT;
		uint64_t cend = (key + 1) << CHUNK_SHIFT;
		uint64_t q = pe < cend ? pe : cend;

		write_chunk(rec, key, (uint32_t)(p & (CHUNK_PAGES - 1)),
			    (uint32_t)(q - (key << CHUNK_SHIFT)), what, want);
		p = q;
	}
}

/* Write [va, va + range): @what is E_INVALID, E_SPARSE, or a map (@want). */
static inline void write_range(struct nvl_vm_pt_record *rec, uint64_t va,
			       uint64_t range, uint16_t what,
			       const struct desc *want)
{
	uint64_t p = va >> PAGE_SHIFT, pe = (va + range) >> PAGE_SHIFT;

	if ((p ^ (pe - 1)) >> CHUNK_SHIFT)
		write_chunks(rec, p, pe, what, want);
	else
		write_chunk(rec, p >> CHUNK_SHIFT,
			    (uint32_t)(p & (CHUNK_PAGES - 1)),
			    (uint32_t)((pe - 1) & (CHUNK_PAGES - 1)) + 1, what,
			    want);
}

/* [va, va + range) is one whole 64 KiB block (a tile) */
static inline bool one_block(uint64_t va, uint64_t range)
{
	return range == (1ull << (PAGE_SHIFT + BLK_SHIFT)) &&
	       !(va & (range - 1));
}

/* the block index of @va in its chunk */
static inline uint32_t block_of(uint64_t va)
{
	return (uint32_t)(va >> (PAGE_SHIFT + BLK_SHIFT)) & (NBLK - 1);
}

/*
 * map_ents() of block @b of @c, the common tile: when neither the block
 * nor its neighbours name a descriptor or are split, no descriptor can be
 * shared and the map takes a free one; the same stores as map_ents(),
 * without its general case (issue 19: a tile op's record instructions).
 * Return: false, nothing changed, when the general way must map.
 */
static inline bool map_block(struct chunk *c, uint32_t b,
			     const struct desc *want)
{
	/*
	 * The block's byte holds it and its neighbour on the other side
	 * of the pair (the right one for an even block, the left for an
	 * odd); the other neighbour is a nibble of the next or previous
	 * byte, none at the chunk's ends: one byte and a masked one,
	 * without a branch on the block's parity. E_INVALID and E_SPARSE
	 * are 0 and 1, anything else (BLK_SPLIT too) has a bit of 0xe.
	 */
	const uint8_t *hdr = (const uint8_t *)c + offsetof(struct chunk, blk);
	uint32_t sh = (b & 1) << 2, byte = c->blk[b >> 1];
	uint32_t nb = (b >> 1) + (b & 1) * 2 - 1; /* may be -1 or 16 */
	uint32_t mask = b & 1 ? (b + 1 < NBLK ? 0x0eu : 0) : (b ? 0xe0u : 0);
	uint32_t old = (byte >> sh) & 0xfu;
	uint32_t i = c->free != NO_DESC ? c->free : c->top;

	/* the descriptor it would take must fit a block entry */
	if (((byte & 0xeeu) | (hdr[(int32_t)nb] & mask)) || i > BLK_DESC_MAX ||
	    !desc_take(c, &i))
		return false;
	c->d[i].w0 = want->w0 + ((uint64_t)BLK_PAGES << D_NP_POS);
	c->d[i].w1 = want->w1;
	if (old == E_INVALID)
		c->present += BLK_PAGES;
	c->blk[b >> 1] = (uint8_t)((byte & ~(0xfu << sh)) | (E_DESC + i) << sh);
	return true;
}

/*
 * release() and fill() of block @b of @c with @what (E_INVALID or
 * E_SPARSE) when it names a descriptor whole: a tile's unmap. Return:
 * false, nothing changed, when the general way must write.
 */
static inline bool unmap_block(struct chunk *c, uint32_t b, uint8_t what)
{
	uint32_t sh = (b & 1) << 2, byte = c->blk[b >> 1];
	uint32_t old = (byte >> sh) & 0xfu;
	struct desc *d;

	if (old < E_DESC || old == BLK_SPLIT)
		return false;
	d = &c->d[old - E_DESC];
	desc_add(d, -(int32_t)BLK_PAGES);
	if (!desc_npages(d)) {
		d->w1 = c->free;
		c->free = (uint16_t)(old - E_DESC);
	}
	if (what == E_INVALID)
		c->present -= BLK_PAGES;
	c->blk[b >> 1] =
		(uint8_t)((byte & ~(0xfu << sh)) | (uint32_t)what << sh);
	return true;
}

/*
 * A map whose descriptor does not fit desc_pack()'s 16 bytes (never one
 * GPUVM makes: its BOs are heap objects below 2^48, its VAs and offsets
 * page aligned, its flags four bits) is refused: counted in stats.errors,
 * recorded nowhere, and the next take_error() returns -E2BIG (unless an
 * error is pending already), so GPUVM fails the bind's fence and bans
 * the VM rather than have the record say something else than was asked.
 */
static __attribute__((noinline, cold)) void
map_refused(struct nvl_vm_pt_record *rec, uint64_t va, uint64_t range,
	    unsigned int page_shift, struct nvl_gem_object *obj,
	    uint64_t bo_offset, uint32_t flags)
{
	int none = 0;

	rec->errors++;
	__atomic_compare_exchange_n(&rec->pending_error, &none, -E2BIG, false,
				    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
	nvl_err(NVL_CAT_VM,
		"pt_record: map [%#llx, +%#llx) of %p at %#llx, flags %#x, "
		"page shift %u: beyond what a descriptor holds, not recorded",
		(unsigned long long)va, (unsigned long long)range, (void *)obj,
		(unsigned long long)bo_offset, flags, page_shift);
}

static void rec_map(void *priv, uint64_t va, uint64_t range,
		    unsigned int page_shift, struct nvl_gem_object *obj,
		    uint64_t bo_offset, uint32_t flags)
{
	struct nvl_vm_pt_record *rec = priv;
	struct desc d;
	/* SETTLED says how to resolve a backing: none is resolved */
	bool fits = desc_pack(&d, obj, obj ? bo_offset - va : 0,
			      flags & ~(uint32_t)NVL_VM_PT_SETTLED, page_shift);

	rec_lock(rec);
	rec->maps++;
	if (rec->fail_map_after && --rec->fail_map_after == 0)
		__atomic_store_n(&rec->pending_error, -EIO, __ATOMIC_RELEASE);
	if (unlikely(!fits)) {
		map_refused(rec, va, range, page_shift, obj, bo_offset, flags);
		goto out;
	}
	if (one_block(va, range)) {
		struct chunk *c = find(rec, va >> (PAGE_SHIFT + CHUNK_SHIFT));

		if (c && map_block(c, block_of(va), &d))
			goto out;
	}
	write_range(rec, va, range, E_DESC, &d);
out:
	rec_unlock(rec);
}

static void rec_unmap(void *priv, uint64_t va, uint64_t range,
		      unsigned int page_shift, bool to_sparse)
{
	struct nvl_vm_pt_record *rec = priv;

	(void)page_shift;
	rec_lock(rec);
	rec->unmaps++;
	if (one_block(va, range)) {
		struct chunk *c = find(rec, va >> (PAGE_SHIFT + CHUNK_SHIFT));

		if (c && unmap_block(c, block_of(va),
				     to_sparse ? E_SPARSE : E_INVALID))
			goto out;
	}
	write_range(rec, va, range, to_sparse ? E_SPARSE : E_INVALID, NULL);
out:
	rec_unlock(rec);
}

static void rec_sparse(void *priv, uint64_t va, uint64_t range, bool enable)
{
	struct nvl_vm_pt_record *rec = priv;

	rec_lock(rec);
	rec->sparses++;
	write_range(rec, va, range, enable ? E_SPARSE : E_INVALID, NULL);
	rec_unlock(rec);
}

static void rec_flush(void *priv, uint64_t va, uint64_t range)
{
	struct nvl_vm_pt_record *rec = priv;

	(void)va;
	(void)range;
	/*
	 * A statistic: a load and a store, not a locked add, which would wait
	 * for this commit's cache-missing page-table writes to drain (the
	 * count may miss a flush when two queues' commits race).
	 */
	__atomic_store_n(&rec->flushes,
			 __atomic_load_n(&rec->flushes, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
}

/* the key of this thread's last hook call that loaded no chunk pointer */
static _Thread_local uint64_t rec_hook_key
	__attribute__((tls_model("initial-exec"))) = UINT64_MAX;

/*
 * Start loading the directory entry of the range's first chunk (and its
 * page-entry pointer for part of a block), without the lock: directory
 * nodes live as long as the record, and every pointer to one is
 * published (a release store) after it is zeroed, so the walk reads only
 * live nodes; a missing one ends it.
 *
 * For whole blocks (a tile), also the first line of its chunk (header,
 * block entries, first descriptors: all a region's tile op reads), on the
 * second call in a row for the same key: a one-op bind calls the hook at
 * its entry (nvl_vm_bind()'s checks) and again before GPUVM's tree
 * search, and by then the first call's prefetch has brought the entry's
 * line, so loading its chunk pointer does not wait for a miss (loading it
 * in the first call stalled a 64-op call, which calls the hook for each
 * op in turn, twice: -1.6 % on sparse_tiles_batch_64 in-process; the
 * second call: +2.6 % on a tile op over 16 GiB, issue 19, the twenty-
 * first round). The chunk pointer is stored atomically (ent_set_chunk())
 * and leaves are never freed before the record; a stale pointer (a chunk
 * freed or grown since, a leaf unhooked and reused) points into the
 * pool, which lives as long as the record too, and is only prefetched.
 * Part of a block (4 KiB pages: the 1k and 1M pairs, whose chunks are
 * larger) loads nothing more: -1.5 % on the 1k pair in-process.
 */
static void rec_prefetch(void *priv, uint64_t va, uint64_t range)
{
	struct nvl_vm_pt_record *rec = priv;
	uint64_t k = va >> (PAGE_SHIFT + CHUNK_SHIFT);
	uintptr_t top = __atomic_load_n(&rec->top, __ATOMIC_ACQUIRE);
	unsigned int h = top & TOP_H;
	void *n = (void *)(top & ~(uintptr_t)TOP_H);
	struct ent *e;
	struct chunk *c;

	if (!n || k >> (DIR_SHIFT * (h + 1)))
		return;
	for (; h; h--) {
		n = __atomic_load_n(&((struct dnode *)n)->sub[dir_idx(k, h)],
				    __ATOMIC_ACQUIRE);
		if (!n)
			return;
	}
	e = &((struct dleaf *)n)->e[k & DIR_MASK];
	__builtin_prefetch(e);
	/* the page-entry pointer a get() of part of a block reads */
	if (part_blocks(va, range)) {
		__builtin_prefetch(&((struct dleaf *)n)->pe[k & DIR_MASK]);
		return;
	}
	/* whole blocks: the chunk, on this key's second call in a row */
	if (rec_hook_key != k) {
		rec_hook_key = k;
		return;
	}
	rec_hook_key = UINT64_MAX;
	c = __atomic_load_n(&e->c, __ATOMIC_RELAXED);
	if (c)
		__builtin_prefetch(c);
}

static int rec_take_error(void *priv)
{
	struct nvl_vm_pt_record *rec = priv;

	/* a load first: nearly every bind has nothing to take */
	if (!__atomic_load_n(&rec->pending_error, __ATOMIC_ACQUIRE))
		return 0;
	return __atomic_exchange_n(&rec->pending_error, 0, __ATOMIC_ACQ_REL);
}

const struct nvl_vm_pt_ops nvl_vm_pt_record_ops = {
	.get = rec_get,
	.put = rec_put,
	.get_region = rec_get_region,
	.put_region = rec_put_region,
	.map = rec_map,
	.unmap = rec_unmap,
	.sparse = rec_sparse,
	.flush = rec_flush,
	.take_error = rec_take_error,
	.prefetch = rec_prefetch,
	.lock = rec_hold,
	.unlock = rec_release,
};

void nvl_vm_pt_record_fail_map_after(struct nvl_vm_pt_record *rec,
				     unsigned int n)
{
	rec_lock(rec);
	rec->fail_map_after = n;
	rec_unlock(rec);
}

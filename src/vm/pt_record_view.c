// SPDX-License-Identifier: MIT
/*
 * The recording page-table backend's read side: what a page holds
 * (query, query_span), the record's hash, its counters and its runs in
 * order. Runs are not kept: they are the maximal pieces of one state of
 * each chunk's pages, derived here.
 */
#include <string.h>

#include "vm/pt_record_internal.h"

/* What page @page of @c (the chunk of @key) holds. */
static void fill_page(const struct chunk *c, uint64_t key, uint32_t page,
		      struct nvl_vm_pt_page *out)
{
	uint16_t v = page_get(c, page);
	const struct desc *d;

	memset(out, 0, sizeof(*out));
	if (v == E_SPARSE)
		out->state = NVL_VM_PT_SPARSE;
	if (v < E_DESC)
		return;
	d = &c->d[v - E_DESC];
	out->state = NVL_VM_PT_MAPPED;
	out->obj = desc_obj(d);
	out->flags = desc_flags(d);
	out->page_shift = desc_shift(d);
	if (out->obj)
		out->bo_offset = desc_delta(d) +
				 ((key << CHUNK_SHIFT | page) << PAGE_SHIFT);
}

/* The end of the piece of one state that starts at page @s of @c. */
static uint32_t piece_end(const struct chunk *c, uint32_t s)
{
	uint32_t e = s + 1;

	while (e < CHUNK_PAGES &&
	       ent_same(c, page_get(c, e - 1), page_get(c, e)))
		e++;
	return e;
}

uint64_t nvl_vm_pt_record_query_span(struct nvl_vm_pt_record *rec, uint64_t va,
				     struct nvl_vm_pt_page *out)
{
	uint64_t p = va >> PAGE_SHIFT;
	uint64_t base = (p >> CHUNK_SHIFT) << CHUNK_SHIFT;
	uint32_t s = (uint32_t)(p & (CHUNK_PAGES - 1)), e = CHUNK_PAGES;
	struct chunk *c;

	memset(out, 0, sizeof(*out));
	rec_lock(rec);
	c = find(rec, p >> CHUNK_SHIFT);
	if (c) {
		fill_page(c, p >> CHUNK_SHIFT, s, out);
		e = piece_end(c, s);
	}
	rec_unlock(rec);
	return (base + e) << PAGE_SHIFT;
}

void nvl_vm_pt_record_query(struct nvl_vm_pt_record *rec, uint64_t va,
			    struct nvl_vm_pt_page *out)
{
	(void)nvl_vm_pt_record_query_span(rec, va, out);
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/*
 * Call @fn with each entry of directory node @n (of height @h, 0: a leaf,
 * whose first key is @base) that has a chunk, in key order.
 */
static void dir_walk(const void *n, unsigned int h, uint64_t base,
		     void (*fn)(uint64_t key, const struct ent *sl, void *arg),
		     void *arg)
{
	for (uint32_t i = 0; i < DIR_N; i++) {
		if (!h) {
			const struct ent *sl = &((const struct dleaf *)n)->e[i];

			if (sl->c)
				fn(base + i, sl, arg);
		} else if (((const struct dnode *)n)->sub[i]) {
			dir_walk(((const struct dnode *)n)->sub[i], h - 1,
				 base + ((uint64_t)i << (DIR_SHIFT * h)), fn,
				 arg);
		}
	}
}

/* dir_walk() of the whole directory */
static void dir_each(const struct nvl_vm_pt_record *rec,
		     void (*fn)(uint64_t key, const struct ent *sl, void *arg),
		     void *arg)
{
	if (rec->top)
		dir_walk((const void *)(rec->top & ~(uintptr_t)TOP_H),
			 rec->top & TOP_H, 0, fn, arg);
}

/*
 * Call @fn for each piece of one state (not invalid) of chunk @c (of key
 * @key), in order.
 */
static void chunk_pieces(uint64_t key, const struct chunk *c,
			 void (*fn)(uint64_t key, const struct chunk *c,
				    uint32_t s, uint32_t e, void *arg),
			 void *arg)
{
	for (uint32_t s = 0; s < CHUNK_PAGES;) {
		uint32_t e = piece_end(c, s);

		if (page_get(c, s) != E_INVALID)
			fn(key, c, s, e, arg);
		s = e;
	}
}

static void hash_piece(uint64_t key, const struct chunk *c, uint32_t s,
		       uint32_t e, void *arg)
{
	struct nvl_vm_pt_page p;

	fill_page(c, key, s, &p);
	*(uint64_t *)arg += mix(key * 31 + s) ^
			    mix(e ^ (uint64_t)p.state << 40 ^
				(uint64_t)p.page_shift << 48) ^
			    mix((uintptr_t)p.obj + p.bo_offset + p.flags);
}

static void hash_chunk(uint64_t key, const struct ent *sl, void *arg)
{
	*(uint64_t *)arg += mix(key ^ mix(sl->refs));
	chunk_pieces(key, sl->c, hash_piece, arg);
}

uint64_t nvl_vm_pt_record_hash(struct nvl_vm_pt_record *rec)
{
	uint64_t h = 0;

	rec_lock(rec);
	dir_each(rec, hash_chunk, &h);
	h += mix(rec->refs) ^ mix(rec->ref_bytes);
	rec_unlock(rec);
	return h;
}

static void count_piece(uint64_t key, const struct chunk *c, uint32_t s,
			uint32_t e, void *arg)
{
	(void)key, (void)c, (void)s, (void)e;
	++*(uint64_t *)arg;
}

static void count_chunk(uint64_t key, const struct ent *sl, void *arg)
{
	if (sl->c->present)
		chunk_pieces(key, sl->c, count_piece, arg);
}

void nvl_vm_pt_record_stats(struct nvl_vm_pt_record *rec,
			    struct nvl_vm_pt_record_stats *out)
{
	uint64_t runs = 0;

	rec_lock(rec);
	dir_each(rec, count_chunk, &runs);
	out->refs = rec->refs;
	out->ref_bytes = rec->ref_bytes;
	out->runs = runs;
	out->maps = rec->maps;
	out->unmaps = rec->unmaps;
	out->sparses = rec->sparses;
	out->flushes = __atomic_load_n(&rec->flushes, __ATOMIC_RELAXED);
	out->errors = rec->errors;
	out->heap_B = sizeof(*rec) + rec->dir_B + rec->chunk_B;
	rec_unlock(rec);
}

static bool continues(const struct nvl_vm_pt_page *a, uint64_t a_end,
		      const struct nvl_vm_pt_page *b, uint64_t b_va,
		      uint64_t a_va)
{
	if (a_end != b_va || a->state != b->state || a->obj != b->obj ||
	    a->flags != b->flags)
		return false;
	return !a->obj || a->bo_offset + (b_va - a_va) == b->bo_offset;
}

struct walk {
	void (*fn)(uint64_t va, uint64_t range, const struct nvl_vm_pt_page *p,
		   void *arg);
	void *arg;
	struct nvl_vm_pt_page cur;
	uint64_t cur_va, cur_end;
	bool have;
};

/* one chunk's piece: extend the current run or report it and start anew */
static void walk_piece(uint64_t key, const struct chunk *c, uint32_t s,
		       uint32_t e, void *arg)
{
	struct walk *w = arg;
	uint64_t base = key << (CHUNK_SHIFT + PAGE_SHIFT);
	uint64_t va = base + ((uint64_t)s << PAGE_SHIFT);
	uint64_t end = base + ((uint64_t)e << PAGE_SHIFT);
	struct nvl_vm_pt_page p;

	fill_page(c, key, s, &p);
	if (w->have && continues(&w->cur, w->cur_end, &p, va, w->cur_va)) {
		w->cur_end = end;
		return;
	}
	if (w->have)
		w->fn(w->cur_va, w->cur_end - w->cur_va, &w->cur, w->arg);
	w->cur = p;
	w->cur_va = va;
	w->cur_end = end;
	w->have = true;
}

static void walk_chunk(uint64_t key, const struct ent *sl, void *arg)
{
	chunk_pieces(key, sl->c, walk_piece, arg);
}

void nvl_vm_pt_record_for_each(struct nvl_vm_pt_record *rec,
			       void (*fn)(uint64_t va, uint64_t range,
					  const struct nvl_vm_pt_page *p,
					  void *arg),
			       void *arg)
{
	struct walk w = {.fn = fn, .arg = arg};

	rec_lock(rec);
	dir_each(rec, walk_chunk, &w);
	if (w.have)
		fn(w.cur_va, w.cur_end - w.cur_va, &w.cur, arg);
	rec_unlock(rec);
}

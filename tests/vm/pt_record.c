// SPDX-License-Identifier: MIT
/*
 * TEST: pt_record
 * Description: the recording page-table backend on its own, against a
 * page-by-page model: block entries and split blocks, descriptors shared
 * and reused, chunks with and without page entries, freed chunks coming
 * back all-invalid, and the GPUVM-bug check (stats.errors) of a write that
 * would split a block its get() did not ask page entries for (issue 19);
 * its chunk directory over thousands of chunks in several layouts, a
 * region's chunks at consecutive entries, and directory allocations
 * failing without a change; the packed chunk (a region's tile in one
 * line), the largest values a 16-byte descriptor holds, maps refused when
 * one would not fit, and descriptors a one-byte block entry cannot name.
 */
#include <errno.h>
#include <string.h>

#include "t.h"
#include "base/alloc.h"
#include "vm/pt_record.h"
#include "vm/pt_record_internal.h"

#define PG 4096ull
#define CHUNK (512 * PG)
#define BASE (7 * CHUNK) /* a few chunks in, to test keys */
#define NPAGES (3 * 512)
#define MAXMAP 64

/* fake BOs: the record stores the pointers and never follows them */
static char objs[3];
#define OBJ(i) ((struct nvl_gem_object *)(void *)&objs[i])

static const struct nvl_vm_pt_ops *ops = &nvl_vm_pt_record_ops;

struct mpage {
	enum nvl_vm_pt_state state;
	struct nvl_gem_object *obj;
	uint64_t off;
	uint32_t flags;
	unsigned int shift;
};

struct mmap_ {
	uint64_t a, n; /* pages */
	unsigned int shift;
};

struct model {
	struct nvl_vm_pt_record *rec;
	struct mpage p[NPAGES];
	struct mmap_ m[MAXMAP];
	int nm;
	bool sparse; /* a region covers the window */
	uint64_t rng;
};

static uint64_t rnd(struct model *m, uint64_t n)
{
	m->rng ^= m->rng << 13;
	m->rng ^= m->rng >> 7;
	m->rng ^= m->rng << 17;
	return m->rng % n;
}

static void check(struct model *m)
{
	struct nvl_vm_pt_record_stats st;

	for (uint64_t i = 0; i < NPAGES;) {
		uint64_t start = BASE + i * PG;
		struct nvl_vm_pt_page q;
		uint64_t end = nvl_vm_pt_record_query_span(m->rec, start, &q);

		assert_true(end > start);
		/* every page of the span is what the model says, and what
		 * the span's first page says, at contiguous offsets */
		for (uint64_t a = start; a < end && i < NPAGES; a += PG, i++) {
			const struct mpage *e = &m->p[i];
			struct nvl_vm_pt_page one;

			nvl_vm_pt_record_query(m->rec, a, &one);
			assert_int_equal(one.state, e->state);
			assert_int_equal(q.state, one.state);
			if (e->state != NVL_VM_PT_MAPPED)
				continue;
			assert_ptr_equal(one.obj, e->obj);
			assert_int_equal(one.bo_offset, e->off);
			assert_int_equal(one.flags, e->flags);
			assert_int_equal(one.page_shift, e->shift);
			assert_ptr_equal(q.obj, one.obj);
			assert_int_equal(q.flags, one.flags);
			if (one.obj)
				assert_int_equal(q.bo_offset + (a - start),
						 one.bo_offset);
		}
	}
	nvl_vm_pt_record_stats(m->rec, &st);
	assert_int_equal(st.errors, 0);
	assert_int_equal(st.refs, (uint64_t)m->nm + m->sparse);
}

static void set_pages(struct model *m, uint64_t a, uint64_t n,
		      enum nvl_vm_pt_state s, struct nvl_gem_object *obj,
		      uint64_t off, uint32_t flags, unsigned int shift)
{
	for (uint64_t i = 0; i < n; i++)
		m->p[a + i] = (struct mpage){s, obj, obj ? off + i * PG : 0,
					     flags, shift};
}

static bool overlaps(const struct model *m, uint64_t a, uint64_t n)
{
	for (int i = 0; i < m->nm; i++)
		if (a < m->m[i].a + m->m[i].n && m->m[i].a < a + n)
			return true;
	return false;
}

/* a new mapping: 4 KiB pages anywhere, or 64 KiB tiles (whole blocks) */
static void op_map(struct model *m)
{
	bool tile = rnd(m, 2);
	uint64_t n = tile ? 16 * (1 + rnd(m, 3)) : 1 + rnd(m, 40);
	uint64_t a = tile ? 16 * rnd(m, (NPAGES - n) / 16) : rnd(m, NPAGES - n);
	struct nvl_gem_object *obj = rnd(m, 4) ? OBJ(rnd(m, 2)) : NULL;
	uint64_t off = obj ? rnd(m, 1000) * PG : 0;
	uint32_t flags =
		obj ? (uint32_t)rnd(m, 2) * NVL_VM_PT_READONLY : NVL_VM_PT_NULL;

	if (m->nm == MAXMAP || overlaps(m, a, n))
		return;
	assert_int_equal(ops->get(m->rec, BASE + a * PG, n * PG, 12), 0);
	ops->map(m->rec, BASE + a * PG, n * PG, 12, obj, off, flags);
	set_pages(m, a, n, NVL_VM_PT_MAPPED, obj, off, flags, 12);
	m->m[m->nm++] = (struct mmap_){a, n, 12};
}

/*
 * Unmap a mapping whole, or punch a hole in it as a REMAP does: the pieces
 * left get their own references first, the hole is unmapped, then the old
 * mapping's references go.
 */
static void op_unmap(struct model *m)
{
	int k;
	struct mmap_ o;
	uint64_t h, hn;
	enum nvl_vm_pt_state to =
		m->sparse ? NVL_VM_PT_SPARSE : NVL_VM_PT_INVALID;

	if (!m->nm)
		return;
	k = (int)rnd(m, (uint64_t)m->nm);
	o = m->m[k];
	h = rnd(m, 2) ? o.a : o.a + rnd(m, o.n);
	hn = 1 + rnd(m, o.a + o.n - h);
	if (m->nm == MAXMAP) { /* no room for two pieces: all of it */
		h = o.a;
		hn = o.n;
	}
	m->m[k] = m->m[--m->nm];
	if (h > o.a) {
		assert_int_equal(
			ops->get(m->rec, BASE + o.a * PG, (h - o.a) * PG, 12),
			0);
		m->m[m->nm++] = (struct mmap_){o.a, h - o.a, 12};
	}
	if (h + hn < o.a + o.n) {
		assert_int_equal(ops->get(m->rec, BASE + (h + hn) * PG,
					  (o.a + o.n - h - hn) * PG, 12),
				 0);
		m->m[m->nm++] = (struct mmap_){h + hn, o.a + o.n - h - hn, 12};
	}
	ops->unmap(m->rec, BASE + h * PG, hn * PG, 12, m->sparse);
	ops->flush(m->rec, BASE + h * PG, hn * PG);
	ops->put(m->rec, BASE + o.a * PG, o.n * PG, o.shift);
	set_pages(m, h, hn, to, NULL, 0, 0, 0);
}

/* a fault's or a moved BO's rewrite of a mapped page: same content */
static void op_rewrite(struct model *m)
{
	const struct mmap_ *o;
	const struct mpage *e;
	uint64_t i;

	if (!m->nm)
		return;
	o = &m->m[rnd(m, (uint64_t)m->nm)];
	i = o->a + rnd(m, o->n);
	e = &m->p[i];
	ops->map(m->rec, BASE + i * PG, PG, e->shift, e->obj, e->off, e->flags);
}

static void region(struct model *m, bool on)
{
	if (on) {
		assert_int_equal(ops->get_region(m->rec, BASE, NPAGES * PG), 0);
		ops->sparse(m->rec, BASE, NPAGES * PG, true);
	} else {
		ops->sparse(m->rec, BASE, NPAGES * PG, false);
		ops->put_region(m->rec, BASE, NPAGES * PG);
	}
	m->sparse = on;
	set_pages(m, 0, NPAGES, on ? NVL_VM_PT_SPARSE : NVL_VM_PT_INVALID, NULL,
		  0, 0, 0);
}

/*
 * @r, all of whose mappings went, holds nothing (no error, run, reference
 * or chunk left); destroy it
 */
static void expect_empty_then_destroy(struct nvl_vm_pt_record *r)
{
	struct nvl_vm_pt_record_stats st;

	nvl_vm_pt_record_stats(r, &st);
	assert_int_equal(st.errors, 0);
	assert_int_equal(st.refs, 0);
	assert_int_equal(st.runs, 0);
	assert_int_equal(r->nchunks, 0);
	nvl_vm_pt_record_destroy(r);
}

static void random_ops_match_a_page_model(void **state)
{
	static struct model m;
	struct nvl_vm_pt_record_stats st;

	(void)state;
	for (uint64_t seed = 1; seed <= 6; seed++) {
		memset(&m, 0, sizeof(m));
		m.rng = seed * 0x9e3779b97f4a7c15ull;
		assert_int_equal(nvl_vm_pt_record_create(&m.rec), 0);
		if (seed & 1)
			region(&m, true);
		for (int i = 0; i < 3000; i++) {
			uint64_t k = rnd(&m, 10);

			if (k < 5)
				op_map(&m);
			else if (k < 9)
				op_unmap(&m);
			else
				op_rewrite(&m);
			if (i % 50 == 0)
				check(&m);
		}
		check(&m);
		while (m.nm) {
			struct mmap_ o = m.m[--m.nm];

			ops->unmap(m.rec, BASE + o.a * PG, o.n * PG, 12,
				   m.sparse);
			ops->put(m.rec, BASE + o.a * PG, o.n * PG, 12);
			set_pages(&m, o.a, o.n,
				  m.sparse ? NVL_VM_PT_SPARSE
					   : NVL_VM_PT_INVALID,
				  NULL, 0, 0, 0);
		}
		check(&m);
		if (m.sparse)
			region(&m, false);
		nvl_vm_pt_record_stats(m.rec, &st);
		assert_int_equal(st.refs, 0);
		assert_int_equal(st.runs, 0);
		assert_int_equal(st.errors, 0);
		nvl_vm_pt_record_destroy(m.rec);
	}
}

static void count_run(uint64_t va, uint64_t range,
		      const struct nvl_vm_pt_page *p, void *arg)
{
	(void)va, (void)range, (void)p;
	++*(int *)arg;
}

/* the same pages reached two ways: one hash, one run */
static void hash_and_runs_follow_the_state(void **state)
{
	struct nvl_vm_pt_record *a, *b;
	struct nvl_vm_pt_record_stats sa, sb;
	int ra = 0, rb = 0;

	(void)state;
	assert_int_equal(nvl_vm_pt_record_create(&a), 0);
	assert_int_equal(nvl_vm_pt_record_create(&b), 0);
	assert_int_equal(ops->get(a, BASE, 48 * PG, 12), 0);
	assert_int_equal(ops->get(b, BASE, 48 * PG, 12), 0);
	/* a: three writes, one of another BO overwritten; b: one */
	ops->map(a, BASE + 16 * PG, 32 * PG, 12, OBJ(1), 0, 0);
	ops->map(a, BASE, 16 * PG, 12, OBJ(0), 100 * PG, 0);
	ops->map(a, BASE + 16 * PG, 32 * PG, 12, OBJ(0), 116 * PG, 0);
	ops->map(b, BASE, 48 * PG, 12, OBJ(0), 100 * PG, 0);
	assert_int_equal(nvl_vm_pt_record_hash(a), nvl_vm_pt_record_hash(b));
	nvl_vm_pt_record_stats(a, &sa);
	nvl_vm_pt_record_stats(b, &sb);
	assert_int_equal(sa.runs, 1);
	assert_int_equal(sb.runs, 1);
	nvl_vm_pt_record_for_each(a, count_run, &ra);
	nvl_vm_pt_record_for_each(b, count_run, &rb);
	assert_int_equal(ra, 1);
	assert_int_equal(rb, 1);
	/* a page of another BO in the middle: three runs, another hash */
	ops->map(b, BASE + 20 * PG, PG, 12, OBJ(1), 0, 0);
	assert_int_not_equal(nvl_vm_pt_record_hash(a),
			     nvl_vm_pt_record_hash(b));
	nvl_vm_pt_record_stats(b, &sb);
	assert_int_equal(sb.runs, 3);
	ops->unmap(a, BASE, 48 * PG, 12, false);
	ops->unmap(b, BASE, 48 * PG, 12, false);
	ops->put(a, BASE, 48 * PG, 12);
	ops->put(b, BASE, 48 * PG, 12);
	nvl_vm_pt_record_stats(b, &sb);
	assert_int_equal(sb.errors, 0);
	assert_int_equal(sb.runs, 0);
	nvl_vm_pt_record_destroy(a);
	nvl_vm_pt_record_destroy(b);
}

/*
 * A region's chunks have no page entries (their get_region() was of whole
 * blocks): a write of part of a block with something new is a GPUVM bug,
 * counted and not done; with a get() of that page first it is done.
 */
static void a_split_needs_a_get_that_asked_for_it(void **state)
{
	struct nvl_vm_pt_record *r;
	struct nvl_vm_pt_record_stats st;
	struct nvl_vm_pt_page p;

	(void)state;
	assert_int_equal(nvl_vm_pt_record_create(&r), 0);
	assert_int_equal(ops->get_region(r, BASE, CHUNK), 0);
	ops->sparse(r, BASE, CHUNK, true);
	/* a tile: whole blocks, fine without page entries */
	assert_int_equal(ops->get(r, BASE + 64 * PG, 16 * PG, 16), 0);
	ops->map(r, BASE + 64 * PG, 16 * PG, 16, OBJ(0), 0, 0);
	/* the same content again over one page of it: nothing to split */
	ops->map(r, BASE + 70 * PG, PG, 16, OBJ(0), 6 * PG, 0);
	nvl_vm_pt_record_stats(r, &st);
	assert_int_equal(st.errors, 0);
	/* one page of something else without a get() asking for it */
	ops->map(r, BASE + 3 * PG, PG, 12, OBJ(1), 0, 0);
	nvl_vm_pt_record_stats(r, &st);
	assert_int_equal(st.errors, 1);
	nvl_vm_pt_record_query(r, BASE + 3 * PG, &p);
	assert_int_equal(p.state, NVL_VM_PT_SPARSE);
	/* with one: mapped, its neighbours still sparse */
	assert_int_equal(ops->get(r, BASE + 3 * PG, PG, 12), 0);
	ops->map(r, BASE + 3 * PG, PG, 12, OBJ(1), 0, 0);
	nvl_vm_pt_record_query(r, BASE + 3 * PG, &p);
	assert_int_equal(p.state, NVL_VM_PT_MAPPED);
	assert_ptr_equal(p.obj, OBJ(1));
	nvl_vm_pt_record_query(r, BASE + 2 * PG, &p);
	assert_int_equal(p.state, NVL_VM_PT_SPARSE);
	nvl_vm_pt_record_query(r, BASE + 4 * PG, &p);
	assert_int_equal(p.state, NVL_VM_PT_SPARSE);
	nvl_vm_pt_record_query(r, BASE + 79 * PG, &p);
	assert_int_equal(p.state, NVL_VM_PT_MAPPED);
	assert_int_equal(p.bo_offset, 15 * PG);
	nvl_vm_pt_record_destroy(r);
}

/* a chunk freed with its last put comes back all-invalid for another key */
static void freed_chunks_come_back_invalid(void **state)
{
	struct nvl_vm_pt_record *r;
	struct nvl_vm_pt_page p;

	(void)state;
	assert_int_equal(nvl_vm_pt_record_create(&r), 0);
	assert_int_equal(ops->get(r, BASE, CHUNK, 12), 0);
	ops->map(r, BASE, CHUNK, 12, OBJ(0), 0, 0);
	ops->unmap(r, BASE + 5 * PG, 3 * PG, 12, false);
	ops->unmap(r, BASE, CHUNK, 12, false);
	ops->put(r, BASE, CHUNK, 12);
	assert_int_equal(ops->get(r, BASE + 4 * CHUNK, PG, 12), 0);
	for (uint64_t a = 0; a < CHUNK; a += PG) {
		nvl_vm_pt_record_query(r, BASE + 4 * CHUNK + a, &p);
		assert_int_equal(p.state, NVL_VM_PT_INVALID);
	}
	/* one span: the whole chunk */
	assert_int_equal(nvl_vm_pt_record_query_span(r, BASE + 4 * CHUNK, &p),
			 BASE + 5 * CHUNK);
	ops->put(r, BASE + 4 * CHUNK, PG, 12);
	nvl_vm_pt_record_destroy(r);
}

/*
 * A sparse region's references write no descriptor (issue 19): a region's
 * chunk holding one tile keeps its two descriptors (128 bytes, heap_B does
 * not move); a second tile in it, or a region over a chunk already
 * holding a mapping, leaves the room every other reference needs. Writes
 * of tiles coming and going over several regions' references never find
 * a chunk without a free descriptor (stats.errors).
 */
static void region_references_need_no_descriptor(void **state)
{
	struct nvl_vm_pt_record *r;
	struct nvl_vm_pt_record_stats st;
	struct nvl_vm_pt_page p;
	uint64_t heap;

	(void)state;
	assert_int_equal(nvl_vm_pt_record_create(&r), 0);
	assert_int_equal(ops->get_region(r, BASE, CHUNK), 0);
	ops->sparse(r, BASE, CHUNK, true);
	nvl_vm_pt_record_stats(r, &st);
	heap = st.heap_B;
	/* a tile bound and unbound: the chunk neither grows nor goes */
	for (int i = 0; i < 3; i++) {
		assert_int_equal(ops->get(r, BASE + 16 * PG, 16 * PG, 16), 0);
		ops->map(r, BASE + 16 * PG, 16 * PG, 16, OBJ(0), 0, 0);
		nvl_vm_pt_record_stats(r, &st);
		assert_int_equal(st.heap_B, heap);
		ops->unmap(r, BASE + 16 * PG, 16 * PG, 16, true);
		ops->put(r, BASE + 16 * PG, 16 * PG, 16);
	}
	/* two more regions' references (as a second and third region of
	 * the chunk would take), then tiles of three BOs at once */
	assert_int_equal(ops->get_region(r, BASE, CHUNK), 0);
	assert_int_equal(ops->get_region(r, BASE, CHUNK), 0);
	for (int t = 0; t < 3; t++) {
		assert_int_equal(ops->get(r, BASE + t * 32 * PG, 16 * PG, 16),
				 0);
		ops->map(r, BASE + t * 32 * PG, 16 * PG, 16, OBJ(t), 0, 0);
	}
	nvl_vm_pt_record_stats(r, &st);
	assert_int_equal(st.errors, 0);
	assert_true(st.heap_B > heap);
	for (int t = 0; t < 3; t++) {
		nvl_vm_pt_record_query(r, BASE + t * 32 * PG + PG, &p);
		assert_int_equal(p.state, NVL_VM_PT_MAPPED);
		assert_ptr_equal(p.obj, OBJ(t));
		assert_int_equal(p.bo_offset, PG);
		ops->unmap(r, BASE + t * 32 * PG, 16 * PG, 16, true);
		ops->put(r, BASE + t * 32 * PG, 16 * PG, 16);
	}
	ops->put_region(r, BASE, CHUNK);
	ops->put_region(r, BASE, CHUNK);
	ops->sparse(r, BASE, CHUNK, false);
	ops->put_region(r, BASE, CHUNK);
	nvl_vm_pt_record_stats(r, &st);
	assert_int_equal(st.errors, 0);
	assert_int_equal(st.refs, 0);
	assert_int_equal(st.runs, 0);
	/* a region over a chunk that already holds a mapping, then a tile */
	assert_int_equal(ops->get(r, BASE, 16 * PG, 16), 0);
	ops->map(r, BASE, 16 * PG, 16, OBJ(0), 0, 0);
	assert_int_equal(ops->get_region(r, BASE + 64 * PG, 64 * PG), 0);
	ops->sparse(r, BASE + 64 * PG, 64 * PG, true);
	assert_int_equal(ops->get(r, BASE + 80 * PG, 16 * PG, 16), 0);
	ops->map(r, BASE + 80 * PG, 16 * PG, 16, OBJ(1), 0, 0);
	nvl_vm_pt_record_stats(r, &st);
	assert_int_equal(st.errors, 0);
	nvl_vm_pt_record_query(r, BASE + 81 * PG, &p);
	assert_ptr_equal(p.obj, OBJ(1));
	nvl_vm_pt_record_query(r, BASE + PG, &p);
	assert_ptr_equal(p.obj, OBJ(0));
	nvl_vm_pt_record_destroy(r);
}

#define NKEYS 3000

/* the key (chunk number) of the @i-th chunk of @layout */
static uint64_t layout_key(int layout, uint64_t i, uint64_t *rng)
{
	switch (layout) {
	case 0: /* consecutive: a sparse region's chunks */
		return 1000 + i;
	case 1: /* every other chunk */
		return 2 * i;
	case 2: /* the same low bits: a leaf each */
		return (i + 1) << 14;
	default: /* anywhere in a 2^48 space */
		*rng ^= *rng << 13;
		*rng ^= *rng >> 7;
		*rng ^= *rng << 17;
		return (*rng >> 37) * NKEYS + i; /* distinct */
	}
}

/*
 * The chunk directory over thousands of chunks (issue 19): a tile in every
 * chunk of each layout (consecutive, every other, the same low bits, keys
 * anywhere below 2^39 over a tree of five levels), every one found again,
 * half of them dropped, the rest still found, then all dropped; nothing is
 * lost or left.
 */
static void the_index_finds_every_chunk_of_any_layout(void **state)
{
	for (int layout = 0; layout < 4; layout++) {
		struct nvl_vm_pt_record *r;
		struct nvl_vm_pt_page p;
		uint64_t rng = 88172645463325252ull, va[NKEYS];

		(void)state;
		assert_int_equal(nvl_vm_pt_record_create(&r), 0);
		for (uint64_t i = 0; i < NKEYS; i++) {
			va[i] = layout_key(layout, i, &rng) * CHUNK +
				(i % 32) * 16 * PG;
			assert_int_equal(ops->get(r, va[i], 16 * PG, 16), 0);
			ops->map(r, va[i], 16 * PG, 16, OBJ(i % 3), i * 16 * PG,
				 0);
		}
		for (int pass = 0; pass < 2; pass++) {
			for (uint64_t i = 0; i < NKEYS; i++) {
				bool gone = pass && i % 2;

				nvl_vm_pt_record_query(r, va[i] + PG, &p);
				assert_int_equal(p.state,
						 gone ? NVL_VM_PT_INVALID
						      : NVL_VM_PT_MAPPED);
				if (!gone)
					assert_int_equal(p.bo_offset,
							 i * 16 * PG + PG);
			}
			for (uint64_t i = 1; !pass && i < NKEYS; i += 2) {
				ops->unmap(r, va[i], 16 * PG, 16, false);
				ops->put(r, va[i], 16 * PG, 16);
			}
		}
		for (uint64_t i = 0; i < NKEYS; i += 2) {
			ops->unmap(r, va[i], 16 * PG, 16, false);
			ops->put(r, va[i], 16 * PG, 16);
		}
		expect_empty_then_destroy(r);
	}
}

/*
 * A contiguous region's chunks sit at consecutive entries of the
 * directory (a radix tree like page directories): four to a cache line,
 * each found by indexing, none probed for. Keys below 2^18 (512 GiB) need
 * one level above the leaves.
 */
static void a_region_s_chunks_are_consecutive_entries(void **state)
{
	struct nvl_vm_pt_record *r;
	uint64_t lines = 0;

	(void)state;
	assert_int_equal(nvl_vm_pt_record_create(&r), 0);
	assert_null(dir_find(r, 1000));
	assert_int_equal(ops->get_region(r, 1000 * CHUNK, NKEYS * CHUNK), 0);
	assert_int_equal(r->top & TOP_H, 1);
	for (uint64_t k = 1000; k < 1000 + NKEYS; k++) {
		struct ent *e = dir_find(r, k);

		assert_non_null(e);
		assert_non_null(e->c);
		assert_int_equal(e->refs, 1);
		assert_int_equal((uintptr_t)e % sizeof(*e), 0);
		/* the next key's entry is the next one in its leaf */
		if ((k + 1) % DIR_N && k + 1 < 1000 + NKEYS)
			assert_ptr_equal(dir_find(r, k + 1), e + 1);
		lines += k == 1000 || (uintptr_t)e % 64 == 0;
	}
	/* NKEYS entries over NKEYS / 4 lines (1000 is a multiple of 4) */
	assert_int_equal(lines, NKEYS / 4);
	assert_null(dir_find(r, 1ull << 20)); /* above the tree: not there */
	ops->put_region(r, 1000 * CHUNK, NKEYS * CHUNK);
	assert_null(dir_find(r, 1000)); /* its leaves went with their chunks */
	assert_int_equal(r->nchunks, 0);
	nvl_vm_pt_record_destroy(r);
}

/*
 * A leaf is unhooked with its last chunk and kept on the idle list, never
 * freed before the record (the prefetch hook reads entries without the
 * lock): tiles in 64 GiBs leave, once all are unmapped, the interior node
 * and 64 idle leaves, the same memory that held them; tiles in 64 other
 * GiBs then take those leaves and allocate none, and a lone tile coming
 * and going in a fresh GiB allocates nothing.
 */
static void empty_leaves_go_idle_and_are_reused(void **state)
{
	struct nvl_vm_pt_record *r;
	struct dleaf *held[64];
	uint64_t interior, n;
	const uint64_t gib = 512 * CHUNK;

	(void)state;
	assert_int_equal(nvl_vm_pt_record_create(&r), 0);
	for (uint64_t g = 0; g < 64; g++) {
		assert_int_equal(ops->get(r, g * gib + CHUNK, 16 * PG, 16), 0);
		ops->map(r, g * gib + CHUNK, 16 * PG, 16, OBJ(0), 0, 0);
		held[g] = leaf_of(dir_find(r, g * 512 + 1), g * 512 + 1);
	}
	interior = r->dir_B - 64 * sizeof(struct dleaf);
	assert_int_equal(interior, sizeof(struct dnode));
	assert_int_equal(r->nidle, 0);
	for (uint64_t g = 0; g < 64; g++) {
		ops->unmap(r, g * gib + CHUNK, 16 * PG, 16, false);
		ops->put(r, g * gib + CHUNK, 16 * PG, 16);
		assert_null(dir_find(r, g * 512 + 1));
	}
	assert_int_equal(r->dir_B, interior);
	assert_int_equal(r->nidle, 64);
	/* the idle list is the leaves that held the tiles, entries zero */
	for (struct dleaf *l = r->idle; l; l = l->next_idle) {
		bool found = false;

		for (int g = 0; g < 64; g++)
			found |= held[g] == l;
		assert_true(found);
		assert_int_equal(l->live, 0);
		for (uint32_t i = 0; i < DIR_N; i++)
			assert_null(l->e[i].c);
	}
	n = nvl_alloc_count();
	for (uint64_t g = 64; g < 128; g++) {
		assert_int_equal(ops->get(r, g * gib + CHUNK, 16 * PG, 16), 0);
		ops->map(r, g * gib + CHUNK, 16 * PG, 16, OBJ(0), 0, 0);
	}
	assert_int_equal(nvl_alloc_count(), n);
	assert_int_equal(r->nidle, 0);
	assert_int_equal(r->dir_B, interior + 64 * sizeof(struct dleaf));
	for (uint64_t g = 64; g < 128; g++) {
		ops->unmap(r, g * gib + CHUNK, 16 * PG, 16, false);
		ops->put(r, g * gib + CHUNK, 16 * PG, 16);
	}
	assert_int_equal(r->nidle, 64);
	n = nvl_alloc_count();
	for (int i = 0; i < 3; i++) {
		assert_int_equal(ops->get(r, 200 * gib, 16 * PG, 16), 0);
		ops->map(r, 200 * gib, 16 * PG, 16, OBJ(1), 0, 0);
		ops->unmap(r, 200 * gib, 16 * PG, 16, false);
		ops->put(r, 200 * gib, 16 * PG, 16);
	}
	assert_int_equal(nvl_alloc_count(), n);
	assert_int_equal(r->nchunks, 0);
	assert_int_equal(r->nidle, 64);
	nvl_vm_pt_record_destroy(r);
}

struct dir_fail {
	struct nvl_vm_pt_record *r;
	uint64_t va, range, hash;
};

/* a get() of two chunks in two subtrees of the directory, far above it */
static int dir_fail_op(void *arg)
{
	struct dir_fail *f = arg;

	return ops->get(f->r, f->va, f->range, 12);
}

static void dir_fail_check(int ret, void *arg)
{
	struct dir_fail *f = arg;
	struct nvl_vm_pt_record_stats st;
	struct nvl_vm_pt_page p;

	assert_int_equal(ret, -ENOMEM);
	assert_int_equal(nvl_vm_pt_record_hash(f->r), f->hash);
	nvl_vm_pt_record_stats(f->r, &st);
	assert_int_equal(st.refs, 1);
	assert_int_equal(st.errors, 0);
	assert_int_equal(f->r->nchunks, 1);
	/* what was there is still found */
	nvl_vm_pt_record_query(f->r, BASE + PG, &p);
	assert_int_equal(p.state, NVL_VM_PT_MAPPED);
	assert_int_equal(p.bo_offset, 17 * PG);
}

/*
 * A get() whose directory nodes (a taller root, a path down to two new
 * leaves) or chunks cannot all be allocated fails with -ENOMEM at every
 * allocation and changes nothing: the record's hash, references and
 * chunks are as before (nodes already made stay, empty); once it
 * succeeds, its pages map and a put leaves the first hash again.
 */
static void a_failed_directory_allocation_changes_nothing(void **state)
{
	struct dir_fail f;
	struct nvl_vm_pt_page p;
	unsigned long n;

	(void)state;
	assert_int_equal(nvl_vm_pt_record_create(&f.r), 0);
	assert_int_equal(ops->get(f.r, BASE, 16 * PG, 12), 0);
	ops->map(f.r, BASE, 16 * PG, 12, OBJ(0), 16 * PG, 0);
	/* keys 2^40 - 1 and 2^40: different nodes at every level */
	f.va = (1ull << 40) * CHUNK - 8 * PG;
	f.range = 16 * PG;
	f.hash = nvl_vm_pt_record_hash(f.r);
	/* nodes made by a failed run stay: each run fails further on */
	n = t_fail_each_alloc(dir_fail_op, dir_fail_check, &f, 100);
	assert_true(n >= 4);
	assert_int_equal(f.r->top & TOP_H, 4);
	ops->map(f.r, f.va, f.range, 12, OBJ(1), 0, 0);
	nvl_vm_pt_record_query(f.r, f.va + 12 * PG, &p);
	assert_int_equal(p.state, NVL_VM_PT_MAPPED);
	assert_ptr_equal(p.obj, OBJ(1));
	assert_int_equal(p.bo_offset, 12 * PG);
	ops->unmap(f.r, f.va, f.range, 12, false);
	ops->put(f.r, f.va, f.range, 12);
	assert_int_equal(nvl_vm_pt_record_hash(f.r), f.hash);
	nvl_vm_pt_record_query(f.r, BASE + PG, &p);
	assert_int_equal(p.bo_offset, 17 * PG);
	ops->unmap(f.r, BASE, 16 * PG, 12, false);
	ops->put(f.r, BASE, 16 * PG, 12);
	nvl_vm_pt_record_destroy(f.r);
}

/*
 * A chunk of two descriptors (a region's, holding a tile) is one cache
 * line: its header, its 32 block entries and both descriptors (issue 19,
 * the twentieth round). A tile alone in it is mapped and unmapped there,
 * its block entry naming descriptor 0, which its unmap frees for the
 * next tile.
 */
static void a_region_s_tile_is_one_chunk_line(void **state)
{
	struct nvl_vm_pt_record *r;
	struct chunk *c;
	struct nvl_vm_pt_page p;

	(void)state;
	assert_int_equal(nvl_vm_pt_record_create(&r), 0);
	assert_int_equal(ops->get_region(r, BASE, CHUNK), 0);
	ops->sparse(r, BASE, CHUNK, true);
	c = dir_find(r, BASE / CHUNK)->c;
	assert_int_equal((uintptr_t)c % 64, 0);
	assert_int_equal((char *)&c->d[2] - (char *)c, 64);
	for (uint32_t b = 0; b < NBLK; b += 7) {
		uint64_t va = BASE + b * 16 * PG;

		assert_int_equal(ops->get(r, va, 16 * PG, 12), 0);
		ops->map(r, va, 16 * PG, 12, OBJ(b % 3), b * 16 * PG, 0);
		assert_int_equal(blk_raw(c, b), E_DESC);
		assert_int_equal(c->cap, 2);
		assert_int_equal(desc_npages(&c->d[0]), 16);
		nvl_vm_pt_record_query(r, va + 3 * PG, &p);
		assert_int_equal(p.state, NVL_VM_PT_MAPPED);
		assert_ptr_equal(p.obj, OBJ(b % 3));
		assert_int_equal(p.bo_offset, (b * 16 + 3) * PG);
		ops->unmap(r, va, 16 * PG, 12, true);
		ops->put(r, va, 16 * PG, 12);
		assert_int_equal(blk_raw(c, b), E_SPARSE);
		assert_int_equal(c->free, 0);
	}
	ops->sparse(r, BASE, CHUNK, false);
	ops->put_region(r, BASE, CHUNK);
	assert_int_equal(r->nchunks, 0);
	nvl_vm_pt_record_destroy(r);
}

/* a fake BO pointer: the record stores it and never follows it */
#define PTR(x) ((struct nvl_gem_object *)(uintptr_t)(x))

/*
 * The largest values a 16-byte descriptor holds come back as they went
 * in: a BO pointer just below 2^48, a page shift of 63, all twelve flag
 * bits but SETTLED (which the record never keeps), a BO offset below the
 * VA (the delta wraps below zero), and a descriptor named by all 512 pages of
 * its chunk (its count's largest value), written in two halves that
 * share it.
 */
static void a_descriptor_holds_its_largest_values(void **state)
{
	struct nvl_vm_pt_record *r;
	struct nvl_vm_pt_record_stats st;
	struct nvl_vm_pt_page p;
	struct nvl_gem_object *big = PTR((1ull << 48) - 8);
	uint64_t off = 5 * PG;
	struct ent *e;

	(void)state;
	assert_int_equal(nvl_vm_pt_record_create(&r), 0);
	assert_int_equal(ops->get(r, BASE, CHUNK, 12), 0);
	ops->map(r, BASE, CHUNK / 2, 63, big, off, 0xfff);
	ops->map(r, BASE + CHUNK / 2, CHUNK / 2, 63, big, off + CHUNK / 2,
		 0xfff);
	e = dir_find(r, BASE / CHUNK);
	assert_int_equal(desc_npages(&e->c->d[0]), CHUNK_PAGES);
	assert_int_equal(e->c->top, 1);
	for (uint64_t a = 0; a < CHUNK; a += 37 * PG) {
		nvl_vm_pt_record_query(r, BASE + a, &p);
		assert_int_equal(p.state, NVL_VM_PT_MAPPED);
		assert_ptr_equal(p.obj, big);
		assert_int_equal(p.page_shift, 63);
		assert_int_equal(p.flags, 0xfff & ~NVL_VM_PT_SETTLED);
		assert_int_equal(p.bo_offset, off + a);
	}
	assert_int_equal(nvl_vm_pt_record_query_span(r, BASE, &p),
			 BASE + CHUNK);
	nvl_vm_pt_record_stats(r, &st);
	assert_int_equal(st.runs, 1);
	assert_int_equal(st.errors, 0);
	/* a page of it unmapped and mapped again: the count goes back */
	ops->unmap(r, BASE + 9 * PG, PG, 12, false);
	assert_int_equal(desc_npages(&e->c->d[0]), CHUNK_PAGES - 1);
	ops->map(r, BASE + 9 * PG, PG, 63, big, off + 9 * PG, 0xfff);
	assert_int_equal(desc_npages(&e->c->d[0]), CHUNK_PAGES);
	assert_int_equal(e->c->top, 1);
	ops->unmap(r, BASE, CHUNK, 12, false);
	ops->put(r, BASE, CHUNK, 12);
	nvl_vm_pt_record_stats(r, &st);
	assert_int_equal(st.errors, 0);
	assert_int_equal(st.runs, 0);
	nvl_vm_pt_record_destroy(r);
}

struct refused {
	struct nvl_gem_object *obj;
	uint64_t off;
	uint32_t flags;
	unsigned int shift;
};

/*
 * A map whose descriptor would not fit (a BO pointer at or above 2^48, a
 * BO offset that is not page aligned against the VA, a flag above bit
 * 11, a page shift above 63) is refused: nothing recorded (the hash and
 * the pages as before, over a sparse page, a mapped tile, an invalid
 * page), one error counted, and take_error() says -E2BIG once; an error
 * already pending (fail_map_after) is not replaced.
 */
static void a_descriptor_that_does_not_fit_is_refused(void **state)
{
	static const struct refused bad[] = {
		{PTR(1ull << 48), 0, 0, 12},
		{PTR(0xa5ull << 56 | 0x1000), 0, 0, 12},
		{OBJ(0), 0x800, 0, 12},
		{OBJ(0), 0, 1u << 12, 12},
		{NULL, 0, NVL_VM_PT_NULL | 1u << 31, 12},
		{OBJ(0), 0, 0, 64},
	};
	struct nvl_vm_pt_record *r;
	struct nvl_vm_pt_record_stats st;
	struct nvl_vm_pt_page p;
	uint64_t hash, errors = 0;

	(void)state;
	assert_int_equal(nvl_vm_pt_record_create(&r), 0);
	assert_int_equal(ops->get_region(r, BASE, CHUNK), 0);
	ops->sparse(r, BASE, CHUNK, true);
	assert_int_equal(ops->get(r, BASE + 16 * PG, 16 * PG, 12), 0);
	ops->map(r, BASE + 16 * PG, 16 * PG, 12, OBJ(1), 0, 0);
	assert_int_equal(ops->get(r, BASE + CHUNK, PG, 12), 0);
	hash = nvl_vm_pt_record_hash(r);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		/* over sparse pages, over the tile, over an invalid page */
		static const uint64_t where[][2] = {
			{0, 16 * PG}, {16 * PG, 16 * PG}, {CHUNK, PG}};

		for (int w = 0; w < 3; w++) {
			ops->map(r, BASE + where[w][0], where[w][1],
				 bad[i].shift, bad[i].obj, bad[i].off,
				 bad[i].flags);
			errors++;
			assert_int_equal(ops->take_error(r), -E2BIG);
			assert_int_equal(ops->take_error(r), 0);
			assert_int_equal(nvl_vm_pt_record_hash(r), hash);
			nvl_vm_pt_record_stats(r, &st);
			assert_int_equal(st.errors, errors);
		}
	}
	nvl_vm_pt_record_query(r, BASE + PG, &p);
	assert_int_equal(p.state, NVL_VM_PT_SPARSE);
	nvl_vm_pt_record_query(r, BASE + 17 * PG, &p);
	assert_ptr_equal(p.obj, OBJ(1));
	assert_int_equal(p.bo_offset, PG);
	nvl_vm_pt_record_query(r, BASE + CHUNK, &p);
	assert_int_equal(p.state, NVL_VM_PT_INVALID);
	/* an error pending already stays the one reported */
	nvl_vm_pt_record_fail_map_after(r, 1);
	ops->map(r, BASE, 16 * PG, 12, bad[0].obj, 0, 0);
	assert_int_equal(ops->take_error(r), -EIO);
	assert_int_equal(ops->take_error(r), 0);
	assert_int_equal(nvl_vm_pt_record_hash(r), hash);
	ops->put(r, BASE + CHUNK, PG, 12);
	ops->unmap(r, BASE + 16 * PG, 16 * PG, 12, true);
	ops->put(r, BASE + 16 * PG, 16 * PG, 12);
	ops->sparse(r, BASE, CHUNK, false);
	ops->put_region(r, BASE, CHUNK);
	nvl_vm_pt_record_destroy(r);
}

#define MANY 300 /* descriptors in one chunk, above BLK_DESC_MAX */

/*
 * A block entry names descriptors 0 to BLK_DESC_MAX only: a chunk holding
 * more mappings (300 single pages of their own) writes a block whose
 * pages name a descriptor above that through its page entries, whole or
 * in part, by a tile, by a mapping of two blocks, and by a page that
 * shares such a descriptor; unmapped, every page is invalid again and no
 * write was an error.
 */
static void descriptors_beyond_a_block_entry_go_to_the_pages(void **state)
{
	struct nvl_vm_pt_record *r;
	struct nvl_vm_pt_record_stats st;
	struct nvl_vm_pt_page p;
	struct chunk *c;
	const uint64_t tile = 480, two = 448; /* pages: blocks 30, 28-29 */

	(void)state;
	assert_int_equal(nvl_vm_pt_record_create(&r), 0);
	for (uint64_t i = 0; i < MANY; i++) {
		assert_int_equal(ops->get(r, BASE + i * PG, PG, 12), 0);
		/* offsets apart: no two share a descriptor */
		ops->map(r, BASE + i * PG, PG, 12, OBJ(0), 7 * i * PG, 0);
	}
	c = dir_find(r, BASE / CHUNK)->c;
	assert_int_equal(c->top, MANY);
	assert_int_equal(ops->get(r, BASE + tile * PG, 16 * PG, 16), 0);
	ops->map(r, BASE + tile * PG, 16 * PG, 16, OBJ(1), 0, 0);
	assert_int_equal(blk_raw(c, tile / 16), BLK_SPLIT);
	assert_int_equal(ops->get(r, BASE + two * PG, 32 * PG, 12), 0);
	ops->map(r, BASE + two * PG, 32 * PG, 12, OBJ(2), 64 * PG, 0);
	assert_int_equal(blk_raw(c, two / 16), BLK_SPLIT);
	assert_int_equal(blk_raw(c, two / 16 + 1), BLK_SPLIT);
	/* its last page again, same content: shares the descriptor */
	ops->map(r, BASE + (two + 31) * PG, PG, 12, OBJ(2), 95 * PG, 0);
	assert_int_equal(c->top, MANY + 2);
	nvl_vm_pt_record_stats(r, &st);
	assert_int_equal(st.errors, 0);
	assert_int_equal(st.runs, MANY + 2);
	for (uint64_t i = 0; i < MANY; i += 13) {
		nvl_vm_pt_record_query(r, BASE + i * PG, &p);
		assert_int_equal(p.bo_offset, 7 * i * PG);
	}
	assert_int_equal(nvl_vm_pt_record_query_span(r, BASE + tile * PG, &p),
			 BASE + (tile + 16) * PG);
	assert_ptr_equal(p.obj, OBJ(1));
	assert_int_equal(p.page_shift, 16);
	assert_int_equal(
		nvl_vm_pt_record_query_span(r, BASE + (two + 5) * PG, &p),
		BASE + (two + 32) * PG);
	assert_int_equal(p.bo_offset, 69 * PG);
	ops->unmap(r, BASE + two * PG, 32 * PG, 12, false);
	ops->put(r, BASE + two * PG, 32 * PG, 12);
	ops->unmap(r, BASE + tile * PG, 16 * PG, 16, false);
	ops->put(r, BASE + tile * PG, 16 * PG, 16);
	for (uint64_t i = 0; i < MANY; i++) {
		ops->unmap(r, BASE + i * PG, PG, 12, false);
		ops->put(r, BASE + i * PG, PG, 12);
	}
	expect_empty_then_destroy(r);
}

/*
 * Tiles of 64 KiB pages need no page entries (their get()s ask for none),
 * but a four-bit block entry names descriptors 0 to BLK_DESC_MAX only: a
 * chunk that must hold more than eight descriptors gets page entries as
 * it grows, and the tiles whose descriptors are above BLK_DESC_MAX are
 * written through them, split; each reads back, a tile's whole block is
 * one span, none of it is an error; unmapped, the chunk goes.
 */
static void a_chunk_of_many_tiles_gets_page_entries(void **state)
{
	struct nvl_vm_pt_record *r;
	struct nvl_vm_pt_record_stats st;
	struct nvl_vm_pt_page p;
	struct ent *e;
	uint32_t split = 0;

	(void)state;
	assert_int_equal(nvl_vm_pt_record_create(&r), 0);
	for (uint64_t t = 0; t < NBLK; t++) {
		assert_int_equal(ops->get(r, BASE + t * 16 * PG, 16 * PG, 16),
				 0);
		e = dir_find(r, BASE / CHUNK);
		/* room for up to eight descriptors: no page entries */
		assert_int_equal(e->has_pe, e->cap >= PE_CAP);
		/* offsets apart: every tile a descriptor of its own */
		ops->map(r, BASE + t * 16 * PG, 16 * PG, 16, OBJ(t % 3),
			 (3 * t + 1) * 16 * PG, 0);
	}
	e = dir_find(r, BASE / CHUNK);
	assert_true(e->cap > BLK_DESC_MAX + 1);
	for (uint32_t b = 0; b < NBLK; b++)
		split += blk_raw(e->c, b) == BLK_SPLIT;
	assert_int_equal(split, NBLK - (BLK_DESC_MAX + 1));
	for (uint64_t t = 0; t < NBLK; t++) {
		uint64_t va = BASE + t * 16 * PG;

		assert_int_equal(nvl_vm_pt_record_query_span(r, va + PG, &p),
				 va + 16 * PG);
		assert_int_equal(p.state, NVL_VM_PT_MAPPED);
		assert_ptr_equal(p.obj, OBJ(t % 3));
		assert_int_equal(p.page_shift, 16);
		assert_int_equal(p.bo_offset, (3 * t + 1) * 16 * PG + PG);
	}
	nvl_vm_pt_record_stats(r, &st);
	assert_int_equal(st.errors, 0);
	assert_int_equal(st.runs, NBLK);
	for (uint64_t t = 0; t < NBLK; t++) {
		ops->unmap(r, BASE + t * 16 * PG, 16 * PG, 16, false);
		ops->put(r, BASE + t * 16 * PG, 16 * PG, 16);
	}
	nvl_vm_pt_record_stats(r, &st);
	assert_int_equal(st.errors, 0);
	assert_int_equal(st.runs, 0);
	assert_int_equal(r->nchunks, 0);
	nvl_vm_pt_record_destroy(r);
}

/* the chunk of BASE (it moves when it grows) */
static struct chunk *chunk0(struct nvl_vm_pt_record *r)
{
	return dir_find(r, BASE / CHUNK)->c;
}

/* descriptors of @c that some page names */
static uint32_t descs_used(const struct chunk *c)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < c->top; i++)
		n += desc_npages(&c->d[i]) != 0;
	return n;
}

/* what one page (@a, in pages from BASE) maps: obj 0 at @off pages */
static void one_page(struct nvl_vm_pt_record *r, uint64_t a, uint64_t off)
{
	assert_int_equal(ops->get(r, BASE + a * PG, PG, 12), 0);
	ops->map(r, BASE + a * PG, PG, 12, OBJ(0), off * PG, 0);
}

static void page_is(struct nvl_vm_pt_record *r, uint64_t a, uint64_t off)
{
	struct nvl_vm_pt_page p;

	nvl_vm_pt_record_query(r, BASE + a * PG, &p);
	assert_int_equal(p.state, NVL_VM_PT_MAPPED);
	assert_ptr_equal(p.obj, OBJ(0));
	assert_int_equal(p.bo_offset, off * PG);
}

/*
 * A one-page write of a chunk with page entries (the 4 KiB path, written
 * with the block entry read once): a page takes the descriptor of the page
 * it overwrites, else of its left, else of its right neighbour when that
 * maps the same, in the block or across a block's edge (split or whole),
 * never beyond the chunk's ends; else a free one. A rewrite with the same
 * content leaves a whole block whole; another content splits it. Unmapped,
 * each descriptor is free once no page names it, and present counts the
 * pages.
 */
static void one_page_writes_share_descriptors_as_the_general_path(void **state)
{
	struct nvl_vm_pt_record *r;
	struct nvl_vm_pt_record_stats st;
	struct chunk *c;
	/* pages and their offsets: 4-6 one run, 15-16 across blocks 0/1,
	 * 31 beside whole block 2 (32-47), 0 and 511 at the ends */
	static const uint64_t pg[][2] = {
		{5, 100},  {6, 101}, {4, 99},	 {15, 120}, {16, 121},
		{31, 199}, {0, 300}, {511, 301}, {1, 301},  {510, 300},
	};
	static const uint32_t used[] = {1, 1, 1, 2, 2, 2, 3, 4, 4, 4};

	(void)state;
	assert_int_equal(nvl_vm_pt_record_create(&r), 0);
	/* block 2 whole: its block entry names a descriptor */
	assert_int_equal(ops->get(r, BASE + 32 * PG, 16 * PG, 12), 0);
	ops->map(r, BASE + 32 * PG, 16 * PG, 12, OBJ(0), 200 * PG, 0);
	c = chunk0(r);
	assert_non_null(c->pe);
	assert_int_equal(blk_raw(c, 2), E_DESC);
	for (size_t i = 0; i < NVL_ARRAY_SIZE(pg); i++) {
		one_page(r, pg[i][0], pg[i][1]);
		c = chunk0(r);
		/* block 2's descriptor and the runs so far */
		assert_int_equal(descs_used(c), 1 + used[i]);
	}
	/* 31 shared block 2's descriptor (its right neighbour, whole) */
	assert_int_equal(desc_npages(&c->d[0]), 17);
	assert_int_equal(blk_raw(c, 2), E_DESC);
	/* page 33 again, same content: block 2 stays whole */
	one_page(r, 33, 201);
	c = chunk0(r);
	assert_int_equal(blk_raw(c, 2), E_DESC);
	assert_int_equal(desc_npages(&c->d[0]), 17);
	/* page 34, another content: a descriptor of its own, block split */
	one_page(r, 34, 500);
	c = chunk0(r);
	assert_int_equal(blk_raw(c, 2), BLK_SPLIT);
	assert_int_equal(desc_npages(&c->d[0]), 16);
	assert_int_equal(descs_used(c), 6);
	assert_int_equal(c->present, 16 + NVL_ARRAY_SIZE(pg));
	for (size_t i = 0; i < NVL_ARRAY_SIZE(pg); i++)
		page_is(r, pg[i][0], pg[i][1]);
	page_is(r, 33, 201);
	page_is(r, 34, 500);
	page_is(r, 35, 203);
	nvl_vm_pt_record_stats(r, &st);
	assert_int_equal(st.errors, 0);
	/* 0-1, 4-6, 15-16, 31-33, 34, 35-47, 510-511 */
	assert_int_equal(st.runs, 7);
	/* one page at a time: the descriptors go with their last page */
	ops->unmap(r, BASE + 34 * PG, PG, 12, false);
	ops->put(r, BASE + 34 * PG, PG, 12);
	ops->put(r, BASE + 33 * PG, PG, 12); /* the rewrite's reference */
	assert_int_equal(descs_used(c), 5);
	for (size_t i = 0; i < NVL_ARRAY_SIZE(pg); i++) {
		ops->unmap(r, BASE + pg[i][0] * PG, PG, 12, false);
		ops->put(r, BASE + pg[i][0] * PG, PG, 12);
	}
	assert_int_equal(descs_used(c), 1);
	assert_int_equal(c->present, 15);
	ops->unmap(r, BASE + 32 * PG, 16 * PG, 12, false);
	ops->put(r, BASE + 32 * PG, 16 * PG, 12);
	expect_empty_then_destroy(r);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(random_ops_match_a_page_model),
	cmocka_unit_test(hash_and_runs_follow_the_state),
	cmocka_unit_test(a_split_needs_a_get_that_asked_for_it),
	cmocka_unit_test(freed_chunks_come_back_invalid),
	cmocka_unit_test(region_references_need_no_descriptor),
	cmocka_unit_test(the_index_finds_every_chunk_of_any_layout),
	cmocka_unit_test(a_region_s_chunks_are_consecutive_entries),
	cmocka_unit_test(a_failed_directory_allocation_changes_nothing),
	cmocka_unit_test(empty_leaves_go_idle_and_are_reused),
	cmocka_unit_test(a_region_s_tile_is_one_chunk_line),
	cmocka_unit_test(a_descriptor_holds_its_largest_values),
	cmocka_unit_test(a_descriptor_that_does_not_fit_is_refused),
	cmocka_unit_test(descriptors_beyond_a_block_entry_go_to_the_pages),
	cmocka_unit_test(a_chunk_of_many_tiles_gets_page_entries),
	cmocka_unit_test(one_page_writes_share_descriptors_as_the_general_path),
};

T_MAIN(tests)

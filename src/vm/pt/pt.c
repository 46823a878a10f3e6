// SPDX-License-Identifier: MIT
/*
 * DOC: the generic page-table manager: tables, references, get and put
 *
 * The manager keeps one struct pt_table per GPU table. When the table
 * memory offers a CPU mapping (nvl_pt_mem_ops.map, a BAR on hardware), the
 * entries are read and written there in place, so every entry is written
 * exactly once; a new table is filled before the directory entry pointing
 * at it is written (with a release fence), so a concurrent walker never
 * follows a directory entry to a table that is not written yet. Without a
 * mapping, entries live in a CPU shadow and writes mark them dirty;
 * pt_writeback() copies the dirty entries to table memory once per
 * operation, page tables first and the root last, for the same reason.
 *
 * Reference counting: a get() of a range at a page size takes one
 * reference on each "target" table of that page size (the page tables for
 * 4 KiB and 64 KiB pages, the PD0 for 2 MiB, the PD1 for 512 MiB); every
 * table also holds one reference on its parent. put() drops them; a table
 * reaching zero is unlinked from its parent and, if the GPU could see it,
 * freed only after a synchronous TLB invalidate.
 *
 * get() allocates without holding the lock that the commit-phase
 * operations take: it counts the missing tables, allocates them, then
 * re-checks under the lock and installs them (retrying if a concurrent put
 * freed more in between).
 */
#include <errno.h>
#include <string.h>

#include "base/alloc.h"
#include "base/log.h"
#include "vm/pt/pt_internal.h"

static size_t table_host_size(const struct nvl_pt *pt, unsigned int kind)
{
	size_t n = pt_entries(pt, kind);
	size_t s = sizeof(struct pt_table) +
		   (pt->direct ? 0 : n * pt->geo[kind].entry_size);

	if (kind < pt->f->nlevels)
		s += n * pt_nch(pt, kind) * sizeof(struct pt_table *) + n;
	return s;
}

/*
 * Set up the host side of a table of @kind at @t (table_host_size() bytes)
 * whose memory is at @addr. Return: 0, or -ENOMEM when the memory cannot
 * be mapped.
 */
static int table_init(struct nvl_pt *pt, struct pt_table *t, unsigned int kind,
		      uint64_t addr)
{
	const struct nvl_pt_level *g = &pt->geo[kind];
	size_t n = pt_entries(pt, kind);
	uint8_t *p = (uint8_t *)(t + 1);

	/*
	 * The entries are left uninitialised: they are all written when the
	 * table is linked (make_dir), before anything reads them.
	 */
	memset(t, 0, sizeof(*t));
	t->kind = (uint8_t)kind;
	t->addr = addr;
	if (pt->direct) {
		t->e = pt->mem->map(pt->mem_priv, addr, g->table_size);
		if (!t->e)
			return -ENOMEM;
	} else {
		t->e = (uint64_t *)p;
		p += n * g->entry_size;
	}
	if (kind < pt->f->nlevels) {
		size_t nc = n * pt_nch(pt, kind) * sizeof(struct pt_table *);

		t->ch = (struct pt_table **)p;
		memset(p, 0, nc + n);
		p += nc;
		t->st = p;
	}
	return 0;
}

/* A table of @kind with its memory; not in the tree. */
static struct pt_table *table_alloc(struct nvl_pt *pt, unsigned int kind)
{
	const struct nvl_pt_level *g = &pt->geo[kind];
	struct pt_table *t = nvl_malloc(table_host_size(pt, kind));
	uint64_t addr;

	if (!t)
		return NULL;
	if (pt->mem->alloc(pt->mem_priv, g->table_size, g->align, &addr)) {
		nvl_free(t);
		return NULL;
	}
	if (table_init(pt, t, kind, addr)) {
		pt->mem->free(pt->mem_priv, addr, g->table_size);
		nvl_free(t);
		return NULL;
	}
	return t;
}

/* Give @t's memory back for good. */
static void table_destroy(struct nvl_pt *pt, struct pt_table *t)
{
	struct pt_slab *slab = t->slab;

	pt->mem->free(pt->mem_priv, t->addr, pt->geo[t->kind].table_size);
	if (!slab)
		nvl_free(t);
	else if (!__atomic_sub_fetch(&slab->live, 1, __ATOMIC_ACQ_REL))
		nvl_free(slab);
}

/* Preallocated tables per kind, for one get(). */
struct pool {
	struct pt_table *list[PT_KINDS];
	unsigned int n[PT_KINDS];
};

/*
 * The table cache (as Nouveau's page-table cache): a freed table keeps its
 * host structure and table memory on a per-kind list, up to cache_max, and
 * the next get() takes it instead of allocating. Only tables that no TLB
 * can reach any more arrive here (after the covering invalidate), and a
 * reused table's entries are rewritten when it is linked, like a new one's.
 */
static void table_free(struct nvl_pt *pt, struct pt_table *t)
{
	unsigned int k = t->kind;

	pthread_mutex_lock(&pt->cache_lock);
	if (pt->ncache[k] < pt->cache_max) {
		t->next = pt->cache[k];
		pt->cache[k] = t;
		pt->ncache[k]++;
		t = NULL;
	}
	pthread_mutex_unlock(&pt->cache_lock);
	if (t)
		table_destroy(pt, t);
}

/* A cached table made new: host fields cleared, memory and slab kept. */
static void table_reuse(struct nvl_pt *pt, struct pt_table *t)
{
	/* field by field: a memset of the struct became `rep stos`, whose
	 * start-up cost was most of a reuse */
	t->parent = NULL;
	t->next = NULL;
	t->dnext = NULL;
	t->va = 0;
	t->refs = 0;
	t->slot = 0;
	t->linked = false;
	t->dirty = false;
	t->blank = false;
	t->dlo = t->dhi = 0;
	if (t->ch) {
		size_t n = pt_entries(pt, t->kind);

		memset(t->ch, 0, n * pt_nch(pt, t->kind) * sizeof(*t->ch));
		memset(t->st, 0, n);
	}
}

/* Up to @n cached tables of @kind into @pool. Return: how many. */
static unsigned int pool_from_cache(struct nvl_pt *pt, struct pool *pool,
				    unsigned int kind, unsigned int n)
{
	struct pt_table *list, *t;
	unsigned int got = 0;

	pthread_mutex_lock(&pt->cache_lock);
	list = pt->cache[kind];
	for (t = list; t && got < n; t = t->next)
		got++;
	if (got) {
		struct pt_table *last = list;

		for (unsigned int i = 1; i < got; i++)
			last = last->next;
		pt->cache[kind] = last->next;
		pt->ncache[kind] -= got;
		last->next = NULL;
	}
	pthread_mutex_unlock(&pt->cache_lock);
	while ((t = list)) {
		list = t->next;
		table_reuse(pt, t);
		t->next = pool->list[kind];
		pool->list[kind] = t;
		pool->n[kind]++;
	}
	return got;
}

/**
 * nvl_pt_trim() - see pt.h.
 */
void nvl_pt_trim(struct nvl_pt *pt)
{
	for (unsigned int k = 0; k < PT_KINDS; k++) {
		struct pt_table *t;

		pthread_mutex_lock(&pt->cache_lock);
		t = pt->cache[k];
		pt->cache[k] = NULL;
		pt->ncache[k] = 0;
		pthread_mutex_unlock(&pt->cache_lock);
		while (t) {
			struct pt_table *next = t->next;

			table_destroy(pt, t);
			t = next;
		}
	}
}

/* Table memory for @n tables of @kind at once (or one by one). */
static int mem_alloc_many(struct nvl_pt *pt, unsigned int kind, unsigned int n,
			  uint64_t *addrs)
{
	const struct nvl_pt_level *g = &pt->geo[kind];

	if (pt->mem->alloc_many)
		return pt->mem->alloc_many(pt->mem_priv, g->table_size,
					   g->align, n, addrs);
	for (unsigned int i = 0; i < n; i++) {
		if (pt->mem->alloc(pt->mem_priv, g->table_size, g->align,
				   &addrs[i])) {
			while (i--)
				pt->mem->free(pt->mem_priv, addrs[i],
					      g->table_size);
			return -ENOMEM;
		}
	}
	return 0;
}

/**
 * pt_mark() - entries [@i, @i + @n) of @t changed in the shadow.
 */
void pt_mark(struct nvl_pt *pt, struct pt_table *t, unsigned int i,
	     unsigned int n)
{
	t->blank = false;
	if (pt->direct) {
		/* already in table memory: only count */
		pt->stats.bytes_written +=
			(uint64_t)n * pt->geo[t->kind].entry_size;
		return;
	}
	if (!t->dirty) {
		t->dirty = true;
		t->dlo = (uint16_t)i;
		t->dhi = (uint16_t)(i + n);
		t->dnext = pt->dirty[t->kind];
		pt->dirty[t->kind] = t;
		return;
	}
	if (i < t->dlo)
		t->dlo = (uint16_t)i;
	if (i + n > t->dhi)
		t->dhi = (uint16_t)(i + n);
}

/* Copy the dirty entries of every table of @kind to table memory. */
static void writeback_kind(struct nvl_pt *pt, unsigned int kind)
{
	unsigned int es = pt->geo[kind].entry_size;
	struct pt_table *t = pt->dirty[kind];

	pt->dirty[kind] = NULL;
	while (t) {
		struct pt_table *next = t->dnext;
		size_t len = (size_t)(t->dhi - t->dlo) * es;

		if (!pt->direct)
			pt->mem->write(pt->mem_priv, t->addr + t->dlo * es,
				       (uint8_t *)t->e + t->dlo * es, len);
		pt->stats.bytes_written += len;
		t->dirty = false;
		t->dnext = NULL;
		t = next;
	}
}

/**
 * pt_writeback_pts() - copy the dirty page tables to table memory now,
 * while their shadows are still in the CPU caches. Page tables are always
 * written before the directories, so this may run at any time.
 */
void pt_writeback_pts(struct nvl_pt *pt)
{
	writeback_kind(pt, pt->small);
	if (pt->big)
		writeback_kind(pt, pt->big);
}

/**
 * pt_writeback() - copy every dirty entry to table memory, leaves first.
 */
void pt_writeback(struct nvl_pt *pt)
{
	pt_writeback_pts(pt);
	for (int k = (int)pt->last; k >= 0; k--)
		writeback_kind(pt, (unsigned int)k);
}

/**
 * pt_pde() - rewrite directory entry @i of @t to point at its children.
 */
void pt_pde(struct nvl_pt *pt, struct pt_table *t, unsigned int i)
{
	unsigned int nch = pt_nch(pt, t->kind);
	uint64_t child[2] = {NVL_PT_NO_TABLE, NVL_PT_NO_TABLE};
	uint64_t out[2] = {0, 0};

	for (unsigned int j = 0; j < nch; j++)
		if (t->ch[i * nch + j])
			child[j] = t->ch[i * nch + j]->addr;
	pt->f->ops->pde(pt->f->priv, out, t->kind, child);
	/* the children's entries are written before the GPU can reach them */
	if (pt->direct)
		__atomic_thread_fence(__ATOMIC_RELEASE);
	pt_set_entry(pt, t, i, out);
	pt_mark(pt, t, i, 1);
}

/* ---- get / put ------------------------------------------------------- */

/*
 * The tables one get() unit needs: which kinds, and where. A unit is one
 * entry of the last directory level (page tables as targets) or one table
 * of a directory level (directories as targets).
 */
struct plan {
	unsigned int target; /* directory kind, or pt->last for PTs */
	bool pt_small, pt_big; /* PT targets under a last-level entry */
	unsigned int step_shift; /* unit span */
};

static int make_plan(const struct nvl_pt *pt, uint64_t va, uint64_t range,
		     unsigned int shift, struct plan *p)
{
	memset(p, 0, sizeof(*p));
	if (!range || va + range < va || va + range > pt->va_end ||
	    shift >= 64 || (va | range) & ((1ull << shift) - 1))
		return -EINVAL;
	if (shift <= pt->geo[pt->small].shift ||
	    (!pt->big && shift < pt->geo[pt->last].shift)) {
		p->pt_small = true;
		p->pt_big = pt->big != 0;
	} else if (pt->big && shift <= pt->geo[pt->big].shift) {
		p->pt_big = true;
	}
	if (p->pt_small || p->pt_big) {
		p->target = pt->last;
		p->step_shift = pt->geo[pt->last].shift;
		return 0;
	}
	for (int k = (int)pt->last; k >= 0; k--) {
		if (pt->geo[k].leaf && pt->geo[k].shift == shift) {
			p->target = (unsigned int)k;
			p->step_shift = pt->geo[k].shift + pt->geo[k].bits;
			return 0;
		}
	}
	return -EINVAL;
}

static struct pt_table *take(struct pool *pool, unsigned int kind)
{
	struct pt_table *t = pool->list[kind];

	if (t) {
		pool->list[kind] = t->next;
		pool->n[kind]--;
		t->next = NULL;
	}
	return t;
}

/*
 * Child @j of entry @i of @t: existing, or (with @pool) installed from it,
 * or (without) NULL after counting it in @need.
 */
static struct pt_table *child(struct nvl_pt *pt, struct pt_table *t,
			      unsigned int i, unsigned int j, struct pool *pool,
			      unsigned int *need)
{
	unsigned int slot = i * pt_nch(pt, t->kind) + j;
	unsigned int kind;
	struct pt_table *c = t->ch[slot];

	if (c)
		return c;
	kind = t->kind < pt->last ? t->kind + 1u : (j ? pt->big : pt->small);
	if (!pool) {
		need[kind]++;
		return NULL;
	}
	c = take(pool, kind);
	if (NVL_NEVER(!c))
		return NULL;
	c->parent = t;
	c->slot = slot;
	c->va = pt_entry_va(pt, t, i);
	t->ch[slot] = c;
	t->refs++;
	pt->stats.tables++;
	pt->stats.table_bytes += pt->geo[kind].table_size;
	return c;
}

/*
 * Counting pass, a table of kind @ck at @cva missing: every table below it
 * is missing too, so count what the units in [@va, hi) need at once, hi
 * being the end of the missing table's span or @end. @seen holds, per
 * kind, the VA + 1 of the last table counted, so that a table shared with
 * the previous unit is not counted twice. Return: hi.
 */
static uint64_t count_missing(const struct nvl_pt *pt, const struct plan *p,
			      uint64_t va, uint64_t end, unsigned int ck,
			      uint64_t cva, unsigned int *need, uint64_t *seen)
{
	uint64_t hi = NVL_MIN(end, cva + (1ull << pt->geo[ck - 1].shift));

	for (unsigned int k = ck; k <= p->target; k++) {
		unsigned int sh = pt->geo[k - 1].shift; /* span of a table */
		uint64_t first = va >> sh, last = (hi - 1) >> sh;
		uint64_t n = last - first + 1;

		if (seen[k] == (first << sh) + 1)
			n--;
		seen[k] = (last << sh) + 1;
		need[k] += (unsigned int)n;
	}
	if (p->target == pt->last) {
		unsigned int sh = pt->geo[pt->last].shift;
		unsigned int n =
			(unsigned int)(((hi - 1) >> sh) - (va >> sh) + 1);

		need[pt->small] += p->pt_small ? n : 0;
		if (pt->big)
			need[pt->big] += p->pt_big ? n : 0;
	}
	return hi;
}

/*
 * Page-table units: every unit of [@va, @end) under the last-level
 * directory @t at once (its entries, each with a small and/or big page
 * table), in one loop rather than one walk per unit. Counts missing tables
 * in @need, or with @pool installs them and takes the units' references.
 * Return: where the next unit starts (the end of @t's span, or @end).
 */
static uint64_t pt_units(struct nvl_pt *pt, const struct plan *p,
			 struct pt_table *t, uint64_t va, uint64_t end,
			 struct pool *pool, unsigned int *need)
{
	unsigned int nch = pt_nch(pt, t->kind), es = pt->geo[t->kind].shift;
	uint64_t t_end = t->va + (1ull << (es + pt->geo[t->kind].bits));
	uint64_t hi = NVL_MIN(end, t_end);
	unsigned int i0 = pt_index(pt, t, va), i1 = pt_index(pt, t, hi - 1);

	for (unsigned int j = 0; j < nch; j++) {
		if (!(j ? p->pt_big : p->pt_small))
			continue;
		if (!pool) {
			unsigned int kind = j ? pt->big : pt->small;

			for (unsigned int i = i0; i <= i1; i++)
				need[kind] += !t->ch[i * nch + j];
			continue;
		}
		for (unsigned int i = i0; i <= i1; i++) {
			struct pt_table *c = child(pt, t, i, j, pool, need);

			if (c)
				c->refs++;
		}
	}
	return hi;
}

/*
 * Walk one get() unit at @va: install (@pool) or count (@need) the missing
 * tables, and with @pool take the unit's references. A counting walk that
 * meets a missing table counts the following units below it too, and page
 * table units are done for their whole directory at once (pt_units());
 * both return where the next unit starts. Otherwise it returns 0.
 */
static uint64_t unit(struct nvl_pt *pt, const struct plan *p, uint64_t va,
		     uint64_t end, struct pool *pool, unsigned int *need,
		     uint64_t *seen, struct pt_table **hint)
{
	struct pt_table *t = pt->root;
	struct pt_table *h = *hint;

	/* consecutive units share their target directory: start there */
	if (h && va >= h->va &&
	    va - h->va <
		    1ull << (pt->geo[h->kind].shift + pt->geo[h->kind].bits))
		t = h;
	while (t->kind < p->target) {
		unsigned int i = pt_index(pt, t, va);
		struct pt_table *c = t->ch[i];

		if (!c && !pool)
			return count_missing(pt, p, va, end, t->kind + 1u,
					     pt_entry_va(pt, t, i), need, seen);
		t = child(pt, t, i, 0, pool, need);
	}
	*hint = t;
	if (p->target != pt->last || !(p->pt_small || p->pt_big)) {
		if (pool)
			t->refs++;
		return 0;
	}
	return pt_units(pt, p, t, va, end, pool, need);
}

static void pass(struct nvl_pt *pt, const struct plan *p, uint64_t va,
		 uint64_t range, struct pool *pool, unsigned int *need)
{
	uint64_t seen[PT_KINDS] = {0};
	uint64_t step = 1ull << p->step_shift;
	uint64_t end = va + range;
	struct pt_table *hint = NULL;

	for (uint64_t u = va & ~(step - 1); u < end;) {
		uint64_t next = unit(pt, p, u < va ? va : u, end, pool, need,
				     seen, &hint);

		u = next ? next : u + step;
	}
}

/* Tables a get() did not use: to the cache, or (@destroy) freed. */
static void pool_free(struct nvl_pt *pt, struct pool *pool, bool destroy)
{
	for (unsigned int k = 0; k < PT_KINDS; k++) {
		struct pt_table *t;

		while ((t = take(pool, k))) {
			if (destroy)
				table_destroy(pt, t);
			else
				table_free(pt, t);
		}
	}
}

/* One range of a get or put with its plan. */
struct piece {
	struct plan p;
	uint64_t va, range;
};

/* Enough for a region: two pieces per level and two page-table edges. */
#define PT_PIECES (2 * PT_KINDS + 2)

/* Slab stride of a table of @kind. */
static size_t slab_stride(const struct nvl_pt *pt, unsigned int kind)
{
	return (table_host_size(pt, kind) + 15) & ~(size_t)15;
}

#define SLAB_HEAD 16 /* struct pt_slab, padded */
#define ADDR_BATCH 64

/*
 * Add @n tables of @kind to @pool: one host allocation (a slab that lives
 * until its last table is freed) and table memory in batches.
 */
static int pool_fill(struct nvl_pt *pt, struct pool *pool, unsigned int kind,
		     unsigned int n)
{
	size_t stride = slab_stride(pt, kind);
	struct pt_slab *slab;
	uint64_t addrs[ADDR_BATCH];
	unsigned int done = 0;

	n -= pool_from_cache(pt, pool, kind, n);
	if (!n)
		return 0;
	if (n == 1) {
		struct pt_table *t = table_alloc(pt, kind);

		if (!t)
			return -ENOMEM;
		t->next = pool->list[kind];
		pool->list[kind] = t;
		pool->n[kind]++;
		return 0;
	}
	slab = nvl_malloc(SLAB_HEAD + n * stride);
	if (!slab)
		return -ENOMEM;
	/* the pool owns one reference until the slab is filled */
	slab->live = 1;
	while (done < n) {
		unsigned int m = NVL_MIN(n - done, (unsigned int)ADDR_BATCH);

		if (mem_alloc_many(pt, kind, m, addrs)) {
			/* table memory is short: the cache gives its back */
			nvl_pt_trim(pt);
			if (mem_alloc_many(pt, kind, m, addrs))
				break;
		}
		for (unsigned int i = 0; i < m; i++) {
			struct pt_table *t =
				(struct pt_table *)((uint8_t *)slab +
						    SLAB_HEAD +
						    (done + i) * stride);

			if (table_init(pt, t, kind, addrs[i])) {
				/* cannot happen with a working map op */
				for (; i < m; i++)
					pt->mem->free(pt->mem_priv, addrs[i],
						      pt->geo[kind].table_size);
				m = 0;
				break;
			}
			t->slab = slab;
			__atomic_add_fetch(&slab->live, 1, __ATOMIC_RELAXED);
			t->next = pool->list[kind];
			pool->list[kind] = t;
			pool->n[kind]++;
		}
		if (!m)
			break;
		done += m;
	}
	if (!__atomic_sub_fetch(&slab->live, 1, __ATOMIC_ACQ_REL))
		nvl_free(slab);
	return done == n ? 0 : -ENOMEM;
}

/* get() of every piece, all or nothing. */
static int get_pieces(struct nvl_pt *pt, const struct piece *pc,
		      unsigned int npc)
{
	struct pool pool = {0};

	for (;;) {
		unsigned int need[PT_KINDS] = {0};
		bool enough = true;

		pthread_mutex_lock(&pt->lock);
		for (unsigned int i = 0; i < npc; i++)
			pass(pt, &pc[i].p, pc[i].va, pc[i].range, NULL, need);
		for (unsigned int k = 0; k < pt->nkinds; k++)
			enough &= pool.n[k] >= need[k];
		if (enough) {
			for (unsigned int i = 0; i < npc; i++)
				pass(pt, &pc[i].p, pc[i].va, pc[i].range, &pool,
				     need);
			pthread_mutex_unlock(&pt->lock);
			break;
		}
		pthread_mutex_unlock(&pt->lock);
		for (unsigned int k = 0; k < pt->nkinds; k++) {
			if (pool.n[k] >= need[k])
				continue;
			if (pool_fill(pt, &pool, k, need[k] - pool.n[k])) {
				/* out of memory: keep nothing back */
				pool_free(pt, &pool, true);
				return nvl_error(
					-ENOMEM,
					"pt: out of memory for page tables");
			}
		}
	}
	pool_free(pt, &pool, false);
	return 0;
}

/**
 * nvl_pt_get() - see pt.h.
 */
int nvl_pt_get(struct nvl_pt *pt, uint64_t va, uint64_t range,
	       unsigned int page_shift)
{
	struct piece pc = {.va = va, .range = range};
	int ret = make_plan(pt, va, range, page_shift, &pc.p);

	if (ret)
		return nvl_error(ret,
				 "pt: get of [%#llx, +%#llx) at page shift %u: "
				 "unaligned or unsupported",
				 (unsigned long long)va,
				 (unsigned long long)range, page_shift);
	return get_pieces(pt, &pc, 1);
}

static void add_piece(struct piece *pc, unsigned int *n, const struct plan *p,
		      uint64_t lo, uint64_t hi)
{
	pc[*n].p = *p;
	pc[*n].va = lo;
	pc[*n].range = hi - lo;
	(*n)++;
}

/*
 * Page tables for [lo, hi), an edge of a region inside one last-level
 * entry: both kinds, as for the smallest page. A mapping across the edge
 * leaves sparse and invalid entries mixed in them, which no directory
 * entry can express: the region's reference keeps them until it goes.
 */
static void add_pt_piece(const struct nvl_pt *pt, struct piece *pc,
			 unsigned int *n, uint64_t lo, uint64_t hi)
{
	struct plan p;

	if (!NVL_NEVER(
		    make_plan(pt, lo, hi - lo, pt->geo[pt->small].shift, &p)))
		add_piece(pc, n, &p, lo, hi);
}

/*
 * The pieces of a sparse region: A(k), the part covered by whole entries
 * of level k, grows from the root down; A(k) minus A(k - 1) is written at
 * level k and needs the tables of level k there; what no directory entry
 * covers whole needs page tables.
 */
static int region_pieces(const struct nvl_pt *pt, uint64_t va, uint64_t range,
			 struct piece *pc, unsigned int *npc)
{
	uint64_t end = va + range, plo = 0, phi = 0;
	bool have = false;

	*npc = 0;
	if (!range || end < va || end > pt->va_end ||
	    ((va | range) & ((1ull << pt->geo[pt->small].shift) - 1)))
		return -EINVAL;
	for (unsigned int k = 0; k <= pt->last; k++) {
		uint64_t span = 1ull << pt->geo[k].shift;
		uint64_t lo = (va + span - 1) & ~(span - 1);
		uint64_t hi = end & ~(span - 1);
		struct plan p = {
			.target = k,
			.step_shift = pt->geo[k].shift + pt->geo[k].bits,
		};

		if (lo >= hi || lo < va)
			continue;
		if (!have) {
			add_piece(pc, npc, &p, lo, hi);
		} else {
			if (lo < plo)
				add_piece(pc, npc, &p, lo, plo);
			if (phi < hi)
				add_piece(pc, npc, &p, phi, hi);
		}
		plo = lo;
		phi = hi;
		have = true;
	}
	if (!have) {
		add_pt_piece(pt, pc, npc, va, end);
	} else {
		if (va < plo)
			add_pt_piece(pt, pc, npc, va, plo);
		if (phi < end)
			add_pt_piece(pt, pc, npc, phi, end);
	}
	return 0;
}

/**
 * nvl_pt_get_region() - see pt.h.
 */
int nvl_pt_get_region(struct nvl_pt *pt, uint64_t va, uint64_t range)
{
	struct piece pc[PT_PIECES];
	unsigned int n;
	int ret = region_pieces(pt, va, range, pc, &n);

	if (ret)
		return nvl_error(ret,
				 "pt: sparse region [%#llx, +%#llx): unaligned "
				 "or beyond the VA space",
				 (unsigned long long)va,
				 (unsigned long long)range);
	return get_pieces(pt, pc, n);
}

struct release {
	struct pt_table
		*zombies; /* were visible to the GPU: free after a flush */
	struct pt_table *dead; /* never linked: free now */
	uint64_t zlo, zhi;
};

/* Take child @c out of the tree (its parent loses the reference). */
static void detach(struct nvl_pt *pt, struct pt_table *c, struct release *r)
{
	struct pt_table *p = c->parent;

	p->ch[c->slot] = NULL;
	p->refs--;
	pt->stats.tables--;
	pt->stats.table_bytes -= pt->geo[c->kind].table_size;
	if (c->linked) {
		uint64_t end = c->va + (1ull << (pt->geo[c->kind].shift +
						 pt->geo[c->kind].bits));

		r->zlo = NVL_MIN(r->zlo, c->va);
		r->zhi = NVL_MAX(r->zhi, end);
		c->next = r->zombies;
		r->zombies = c;
	} else {
		c->next = r->dead;
		r->dead = c;
	}
}

/* Every entry of page table @c invalid (so that dropping it changes nothing)? */
static bool neutral(const struct nvl_pt *pt, const struct pt_table *c)
{
	if (c->blank)
		return true;
	for (unsigned int j = 0; j < pt_entries(pt, c->kind); j++)
		if (c->e[j] != pt->inval[c->kind][0])
			return false;
	return true;
}

/*
 * What directory entry @i of @p means through its children: E_INVALID or
 * E_SPARSE when uniform, -1 when anything else (a mix, or a leaf).
 */
static int entry_state(const struct nvl_pt *pt, const struct pt_table *p,
		       unsigned int i)
{
	unsigned int nch = pt_nch(pt, p->kind);
	struct pt_table *s = p->ch[i * nch];
	struct pt_table *b = nch > 1 ? p->ch[i * nch + 1] : NULL;
	int st = -1;

	if (p->kind < pt->last) {
		for (unsigned int j = 0; s && j < pt_entries(pt, s->kind);
		     j++) {
			if (s->st[j] != E_INVALID && s->st[j] != E_SPARSE)
				return -1;
			if (st >= 0 && st != s->st[j])
				return -1;
			st = s->st[j];
		}
		return st < 0 ? E_INVALID : st;
	}
	if (s && !s->linked)
		s = NULL;
	if (b && !b->linked)
		b = NULL;
	for (unsigned int j = 0; j < pt_entries(pt, pt->small); j++) {
		unsigned int g =
			j >> (pt->big ? pt->geo[pt->big].shift -
						pt->geo[pt->small].shift
				      : 0);
		uint64_t v;
		int k;

		if (b && b->e[g] != pt->inval[b->kind][0]) {
			v = b->e[g];
			k = v == pt->sparse[b->kind][0] ? E_SPARSE : -1;
		} else if (s) {
			v = s->e[j];
			k = v == pt->inval[s->kind][0]	  ? E_INVALID
			    : v == pt->sparse[s->kind][0] ? E_SPARSE
							  : -1;
		} else {
			k = E_INVALID;
		}
		if (k < 0 || (st >= 0 && st != k))
			return -1;
		st = k;
	}
	return st;
}

/*
 * Drop one reference on @t; release it (and parents) at zero. A table is
 * released only if that changes no translation: its parent entry takes
 * over the uniform meaning of its entries, or (a dual entry's half whose
 * sibling stays) all its entries are invalid. Otherwise it stays in the
 * tree unreferenced until reused or destroyed (stats.kept counts it when
 * the entry's last referenced child goes).
 */
static void unref(struct nvl_pt *pt, struct pt_table *t, struct release *r)
{
	t->refs--;
	while (t != pt->root && t->refs == 0) {
		struct pt_table *p = t->parent;
		unsigned int nch = pt_nch(pt, p->kind);
		unsigned int i = t->slot / nch;
		bool last = true;

		for (unsigned int j = 0; j < nch; j++) {
			struct pt_table *c = p->ch[i * nch + j];

			last &= !c || c == t || !c->refs;
		}
		if (!t->linked || p->st[i] != E_DIR) {
			detach(pt, t, r);
		} else if (last) {
			int st = entry_state(pt, p, i);

			if (st < 0) {
				pt->stats.kept++;
				return;
			}
			for (unsigned int j = 0; j < nch; j++)
				if (p->ch[i * nch + j])
					detach(pt, p->ch[i * nch + j], r);
			p->st[i] = (uint8_t)st;
			memcpy(&p->e[i * pt_qw(pt, p->kind)],
			       st == E_SPARSE ? pt->sparse[p->kind]
					      : pt->inval[p->kind],
			       pt->geo[p->kind].entry_size);
			pt_mark(pt, p, i, 1);
		} else {
			/*
			 * Not neutral: left for its sibling's last put, which
			 * folds the entry (a mapping in a sparse region drops
			 * its small and big tables one after the other) or
			 * counts it kept.
			 */
			if (!neutral(pt, t))
				return;
			detach(pt, t, r);
			pt_pde(pt, p, i);
		}
		t = p;
	}
}

/*
 * The table a unit at @va targets, or NULL. @hint remembers the directory
 * above the last table found: consecutive units of a put share it, and it
 * stays in the tree while a later unit of the same put still has a table
 * below it (that table holds a reference on it).
 */
static struct pt_table *find(struct nvl_pt *pt, unsigned int kind, uint64_t va,
			     struct pt_table **hint)
{
	struct pt_table *t = pt->root;
	struct pt_table *h = *hint;

	if (h && h->refs && h->kind < kind && va >= h->va &&
	    va - h->va <
		    1ull << (pt->geo[h->kind].shift + pt->geo[h->kind].bits))
		t = h;
	while (t && t->kind < kind && t->kind <= pt->last) {
		unsigned int i = pt_index(pt, t, va);

		*hint = t;
		if (t->kind == pt->last)
			return t->ch[i * pt_nch(pt, t->kind) +
				     (kind == pt->big ? 1 : 0)];
		t = t->ch[i];
	}
	return t;
}

/* Drop the references of one get() piece (lock held). */
static void put_piece(struct nvl_pt *pt, const struct piece *pc,
		      struct release *r)
{
	const struct plan *p = &pc->p;
	uint64_t step = 1ull << p->step_shift, va = pc->va;
	uint64_t end = va + pc->range;
	struct pt_table *hint = NULL;

	for (uint64_t u = va & ~(step - 1); u < end; u += step) {
		uint64_t a = u < va ? va : u;
		unsigned int kinds[2], n = 0;

		if (p->target != pt->last || !(p->pt_small || p->pt_big)) {
			kinds[n++] = p->target;
		} else {
			if (p->pt_small)
				kinds[n++] = pt->small;
			if (p->pt_big)
				kinds[n++] = pt->big;
		}
		for (unsigned int k = 0; k < n; k++) {
			struct pt_table *t = find(pt, kinds[k], a, &hint);

			if (NVL_NEVER(!t || t->kind != kinds[k] || !t->refs))
				continue;
			unref(pt, t, r);
		}
	}
}

static void put_pieces(struct nvl_pt *pt, const struct piece *pc,
		       unsigned int npc)
{
	struct release r = {.zlo = UINT64_MAX};
	struct pt_table *t;
	int err;

	pthread_mutex_lock(&pt->lock);
	for (unsigned int i = 0; i < npc; i++)
		put_piece(pt, &pc[i], &r);
	pt_writeback(pt);
	if (r.zombies) {
		err = pt->invalidate(pt->priv, r.zlo, r.zhi - r.zlo);
		pt->stats.invalidates++;
		if (err) {
			/* the GPU may still walk them: never reuse them */
			nvl_pt_invalidate_failed(pt, err);
			while ((t = r.zombies)) {
				r.zombies = t->next;
				t->next = pt->quarantine;
				pt->quarantine = t;
				pt->stats.quarantined++;
			}
		}
	}
	pthread_mutex_unlock(&pt->lock);
	while ((t = r.zombies)) {
		r.zombies = t->next;
		table_free(pt, t);
	}
	while ((t = r.dead)) {
		r.dead = t->next;
		table_free(pt, t);
	}
}

/**
 * nvl_pt_put() - see pt.h.
 */
void nvl_pt_put(struct nvl_pt *pt, uint64_t va, uint64_t range,
		unsigned int page_shift)
{
	struct piece pc = {.va = va, .range = range};

	if (NVL_NEVER(make_plan(pt, va, range, page_shift, &pc.p)))
		return;
	put_pieces(pt, &pc, 1);
}

/**
 * nvl_pt_put_region() - see pt.h.
 */
void nvl_pt_put_region(struct nvl_pt *pt, uint64_t va, uint64_t range)
{
	struct piece pc[PT_PIECES];
	unsigned int n;

	if (NVL_NEVER(region_pieces(pt, va, range, pc, &n)))
		return;
	put_pieces(pt, pc, n);
}

/* ---- create / destroy ----------------------------------------------- */

static int check_format(const struct nvl_pt_format *f)
{
	if (!f || !f->ops || f->nlevels < 1 || f->nlevels > NVL_PT_MAX_LEVELS ||
	    f->npt < 1 || f->npt > 2)
		return -EINVAL;
	for (unsigned int k = 0; k < f->nlevels; k++) {
		const struct nvl_pt_level *g = &f->level[k];

		if ((g->entry_size != 8 && g->entry_size != 16) || !g->bits ||
		    g->bits > 9 ||
		    g->table_size < (uint32_t)g->entry_size << g->bits)
			return -EINVAL;
		if (k && f->level[k - 1].shift != g->shift + g->bits)
			return -EINVAL;
	}
	for (unsigned int j = 0; j < f->npt; j++) {
		const struct nvl_pt_level *g = &f->pt[j];

		if (g->entry_size != 8 ||
		    g->shift + g->bits != f->level[f->nlevels - 1].shift)
			return -EINVAL;
	}
	return 0;
}

/**
 * nvl_pt_create() - see pt.h.
 */
int nvl_pt_create(const struct nvl_pt_args *args, struct nvl_pt **pt_out)
{
	const struct nvl_pt_format *f = args->fmt;
	struct nvl_pt *pt;

	if (check_format(f) || !args->mem || !args->invalidate)
		return nvl_error(-EINVAL, "pt: unusable page-table format");
	pt = nvl_zalloc(sizeof(*pt));
	if (!pt)
		return -ENOMEM;
	pt->f = f;
	pt->last = f->nlevels - 1;
	pt->small = f->nlevels;
	pt->big = f->npt == 2 ? f->nlevels + 1 : 0;
	pt->nkinds = f->nlevels + f->npt;
	for (unsigned int k = 0; k < f->nlevels; k++)
		pt->geo[k] = f->level[k];
	pt->geo[pt->small] = f->pt[0];
	if (pt->big)
		pt->geo[pt->big] = f->pt[1];
	for (unsigned int k = 0; k < pt->nkinds; k++) {
		f->ops->uniform(f->priv, pt->inval[k], k, false);
		f->ops->uniform(f->priv, pt->sparse[k], k, true);
	}
	pt->va_end = f->level[0].shift + f->level[0].bits >= 64
			     ? UINT64_MAX
			     : 1ull << (f->level[0].shift + f->level[0].bits);
	pt->mem = args->mem;
	pt->mem_priv = args->mem_priv;
	pt->invalidate = args->invalidate;
	pt->page_shift = args->page_shift;
	pt->priv = args->priv;
	pt->any_backing = args->any_backing;
	pt->direct = args->mem->map != NULL;
	pt->root = table_alloc(pt, 0);
	if (!pt->root) {
		nvl_free(pt);
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < pt_entries(pt, 0); i++)
		memcpy(&pt->root->e[i * pt_qw(pt, 0)], pt->inval[0],
		       pt->geo[0].entry_size);
	pt->root->linked = true;
	pt->root->refs = 1;
	pt->stats.tables = 1;
	pt->stats.table_bytes = pt->geo[0].table_size;
	pt_mark(pt, pt->root, 0, pt_entries(pt, 0));
	pt_writeback(pt);
	pthread_mutex_init(&pt->lock, NULL);
	pthread_mutex_init(&pt->cache_lock, NULL);
	pt->cache_max = args->cache_tables < 0 ? 0
			: args->cache_tables ? (unsigned int)args->cache_tables
					     : NVL_PT_CACHE_DEFAULT;
	*pt_out = pt;
	return 0;
}

static void free_tree(struct nvl_pt *pt, struct pt_table *t)
{
	if (t->ch) {
		unsigned int n = pt_entries(pt, t->kind) * pt_nch(pt, t->kind);

		for (unsigned int i = 0; i < n; i++)
			if (t->ch[i])
				free_tree(pt, t->ch[i]);
	}
	table_destroy(pt, t);
}

/**
 * nvl_pt_destroy() - see pt.h.
 */
void nvl_pt_destroy(struct nvl_pt *pt)
{
	struct pt_table *t;

	if (!pt)
		return;
	free_tree(pt, pt->root);
	/* the owner took the tables off the GPU before destroying them */
	while ((t = pt->quarantine)) {
		pt->quarantine = t->next;
		table_destroy(pt, t);
	}
	nvl_pt_trim(pt);
	pthread_mutex_destroy(&pt->cache_lock);
	pthread_mutex_destroy(&pt->lock);
	nvl_free(pt);
}

/**
 * nvl_pt_root() - see pt.h.
 */
uint64_t nvl_pt_root(const struct nvl_pt *pt)
{
	return pt->root->addr;
}

/**
 * nvl_pt_get_stats() - see pt.h.
 */
void nvl_pt_get_stats(struct nvl_pt *pt, struct nvl_pt_stats *out)
{
	pthread_mutex_lock(&pt->lock);
	*out = pt->stats;
	pthread_mutex_unlock(&pt->lock);
	out->cached = out->cached_bytes = 0;
	pthread_mutex_lock(&pt->cache_lock);
	for (unsigned int k = 0; k < pt->nkinds; k++) {
		out->cached += pt->ncache[k];
		out->cached_bytes +=
			(uint64_t)pt->ncache[k] * pt->geo[k].table_size;
	}
	pthread_mutex_unlock(&pt->cache_lock);
}

// SPDX-License-Identifier: MIT
/*
 * DOC: the generic page-table manager: writing entries
 *
 * map, unmap and sparse run in the commit phase: they only rewrite
 * entries of tables that get() allocated, never allocate and never fail.
 *
 * Every directory entry has a software state: uniformly invalid, uniformly
 * sparse, a leaf, or a directory pointing at its children. An operation
 * covering a whole entry writes it at that level (a 2 MiB unmap is one
 * 16-byte PD0 write, a 2 MiB map with suitable backing one 2 MiB PTE).
 * An operation covering part of an entry turns it into a directory first:
 * the children are filled with what the entry meant (invalid, sparse, or
 * the leaf split into smaller leaves) and linked, then written.
 *
 * Under a dual last-level entry the big table takes precedence: a big
 * entry that is 0 defers to the small table. The manager keeps each big
 * page either "big" (its big entry non-zero, its small entries 0) or
 * "small" (big entry 0, small entries authoritative), pushing a big
 * entry's meaning down into the small entries when a write needs
 * 4 KiB granularity inside it.
 */
#include <errno.h>
#include <string.h>

#include "base/alloc.h"
#include "base/log.h"
#include "vm/pt/pt_internal.h"

struct op {
	bool map;
	bool sparse; /* uniform ops: sparse, else invalid */
	unsigned int min_shift; /* map: never a smaller page */
	uint64_t va0; /* map: VA of page.addr */
	struct nvl_pt_page page;
};

static uint64_t pa_at(const struct op *op, uint64_t va)
{
	return op->page.addr + (va - op->va0);
}

static bool aligned(uint64_t v, unsigned int shift)
{
	return !(v & ((1ull << shift) - 1));
}

static void count_leaf(struct nvl_pt *pt, unsigned int shift, uint64_t n)
{
	int c = shift <= 12 ? 0 : shift <= 16 ? 1 : shift <= 21 ? 2 : 3;

	pt->stats.leaves[c] += n;
}

static void encode(struct nvl_pt *pt, const struct op *op, uint64_t va,
		   uint64_t *out, unsigned int n, unsigned int shift)
{
	struct nvl_pt_page pg = op->page;

	pg.addr = pa_at(op, va);
	pt->f->ops->pte(pt->f->priv, out, n, shift, &pg);
	count_leaf(pt, shift, n);
}

static void set_qw(struct nvl_pt *pt, struct pt_table *t, unsigned int i,
		   const uint64_t v[2])
{
	pt_set_entry(pt, t, i, v);
}

static void unlink_children(struct nvl_pt *pt, struct pt_table *t,
			    unsigned int i)
{
	unsigned int nch = pt_nch(pt, t->kind);

	for (unsigned int j = 0; j < nch; j++)
		if (t->ch[i * nch + j])
			t->ch[i * nch + j]->linked = false;
}

static void set_uniform(struct nvl_pt *pt, struct pt_table *t, unsigned int i,
			bool sparse)
{
	if (t->st[i] == E_DIR)
		unlink_children(pt, t, i);
	t->st[i] = sparse ? E_SPARSE : E_INVALID;
	set_qw(pt, t, i, sparse ? pt->sparse[t->kind] : pt->inval[t->kind]);
	pt_mark(pt, t, i, 1);
}

static void set_leaf(struct nvl_pt *pt, struct pt_table *t, unsigned int i,
		     uint64_t pte)
{
	uint64_t v[2] = {pte, 0};

	if (t->st[i] == E_DIR)
		unlink_children(pt, t, i);
	t->st[i] = E_LEAF;
	set_qw(pt, t, i, v);
	pt_mark(pt, t, i, 1);
}

/* Fill every entry of page table @c with @v, or with @leaf split. */
static void fill_pt(struct nvl_pt *pt, struct pt_table *c, uint64_t v,
		    bool split, uint64_t leaf)
{
	unsigned int n = pt_entries(pt, c->kind);
	unsigned int shift = pt->geo[c->kind].shift;

	for (unsigned int j = 0; j < n; j++)
		c->e[j] = split ? pt->f->ops->pte_offset(pt->f->priv, leaf,
							 (uint64_t)j << shift)
				: v;
	pt_mark(pt, c, 0, n);
	c->blank = !split && v == pt->inval[c->kind][0];
	c->linked = true;
}

/* Fill directory @c with @state (or @leaf split into its entries). */
static void fill_dir(struct nvl_pt *pt, struct pt_table *c, uint8_t state,
		     uint64_t leaf)
{
	unsigned int n = pt_entries(pt, c->kind);
	unsigned int shift = pt->geo[c->kind].shift;
	unsigned int qw = pt_qw(pt, c->kind);
	const uint64_t *u =
		state == E_SPARSE ? pt->sparse[c->kind] : pt->inval[c->kind];

	for (unsigned int j = 0; j < n; j++)
		if (c->st[j] == E_DIR)
			unlink_children(pt, c, j);
	memset(c->st, state, n);
	if (state == E_LEAF) {
		for (unsigned int j = 0; j < n; j++) {
			uint64_t d = (uint64_t)j << shift;

			c->e[j * qw] =
				pt->f->ops->pte_offset(pt->f->priv, leaf, d);
			if (qw > 1)
				c->e[j * qw + 1] = 0;
		}
	} else if (qw == 1) {
		for (unsigned int j = 0; j < n; j++)
			c->e[j] = u[0];
	} else {
		for (unsigned int j = 0; j < n; j++) {
			c->e[2 * j] = u[0];
			c->e[2 * j + 1] = u[1];
		}
	}
	pt_mark(pt, c, 0, n);
	c->linked = true;
}

/*
 * Make entry @i of directory @t point at its children (see DOC). With
 * @skip_small (@skip_big) the caller rewrites every small (big) entry right
 * after, so that table is not filled first.
 */
static void make_dir(struct nvl_pt *pt, struct pt_table *t, unsigned int i,
		     bool skip_small, bool skip_big)
{
	unsigned int nch = pt_nch(pt, t->kind);
	struct pt_table **ch = &t->ch[i * nch];
	uint8_t prev = t->st[i];
	uint64_t leaf = t->e[i * pt_qw(pt, t->kind)];

	if (prev == E_DIR) {
		bool relink = false;

		for (unsigned int j = 0; j < nch; j++) {
			if (ch[j] && !ch[j]->linked &&
			    ((j == 0 && skip_small) || (j == 1 && skip_big))) {
				ch[j]->linked = true;
				relink = true;
			} else if (ch[j] && !ch[j]->linked) {
				/* a new table beside a live one: neutral */
				fill_pt(pt, ch[j], pt->inval[ch[j]->kind][0],
					false, 0);
				relink = true;
			}
		}
		if (relink)
			pt_pde(pt, t, i);
		return;
	}
	if (t->kind < pt->last) {
		fill_dir(pt, ch[0], prev, leaf);
	} else {
		struct pt_table *s = ch[0], *b = nch > 1 ? ch[1] : NULL;

		if (b && skip_big) {
			b->linked = true;
		} else if (b) {
			fill_pt(pt, b,
				prev == E_SPARSE ? pt->sparse[b->kind][0]
						 : pt->inval[b->kind][0],
				prev == E_LEAF, leaf);
		}
		if (b) {
			if (s && skip_small)
				s->linked = true;
			else if (s)
				fill_pt(pt, s, pt->inval[s->kind][0], false, 0);
		} else if (s && skip_small) {
			s->linked = true;
		} else if (s) {
			fill_pt(pt, s,
				prev == E_SPARSE ? pt->sparse[s->kind][0]
						 : pt->inval[s->kind][0],
				prev == E_LEAF, leaf);
		}
	}
	t->st[i] = E_DIR;
	pt_pde(pt, t, i);
}

static void error(struct nvl_pt *pt, uint64_t a, uint64_t b)
{
	if (!pt->stats.errors++)
		nvl_warn(NVL_CAT_VM,
			 "pt: no page table for [%#llx, %#llx) at the page "
			 "size its backing needs; left unmapped",
			 (unsigned long long)a, (unsigned long long)b);
}

/* Can a map use big pages inside entry @i of the last directory @t? */
static bool big_fits(struct nvl_pt *pt, struct pt_table *t, unsigned int i,
		     uint64_t a, const struct op *op)
{
	struct pt_table *bt =
		pt->big ? t->ch[i * pt_nch(pt, t->kind) + 1] : NULL;
	unsigned int bs = pt->big ? pt->geo[pt->big].shift : 0;

	return bt && (!op->map ||
		      (op->min_shift <= bs && aligned(pa_at(op, a) - a, bs)));
}

/* Write [a, b) inside entry @i of the last directory @t. */
static void apply_pts(struct nvl_pt *pt, struct pt_table *t, unsigned int i,
		      uint64_t a, uint64_t b, const struct op *op)
{
	unsigned int nch = pt_nch(pt, t->kind);
	struct pt_table *s = t->ch[i * nch];
	struct pt_table *bt = nch > 1 ? t->ch[i * nch + 1] : NULL;
	unsigned int ss = pt->geo[pt->small].shift;
	unsigned int bs = bt ? pt->geo[pt->big].shift : ss;
	unsigned int per = 1u << (bs - ss); /* small entries per big page */
	uint64_t base = pt_entry_va(pt, t, i);
	bool big_ok = big_fits(pt, t, i, a, op);
	uint64_t p = a;

	while (p < b) {
		unsigned int g = (unsigned int)((p - base) >> bs);
		uint64_t glo = base + ((uint64_t)g << bs);
		uint64_t q = NVL_MIN(b, glo + (1ull << bs));

		if (big_ok && p == glo && q == glo + (1ull << bs)) {
			/* every whole big page from here on, at once */
			unsigned int ng = (unsigned int)((b - p) >> bs);

			if (op->map) {
				encode(pt, op, p, &bt->e[g], ng, bs);
			} else {
				uint64_t v = op->sparse
						     ? pt->sparse[bt->kind][0]
						     : pt->inval[bt->kind][0];

				for (unsigned int k = 0; k < ng; k++)
					bt->e[g + k] = v;
			}
			pt_mark(pt, bt, g, ng);
			if (s) {
				for (unsigned int j = g * per;
				     j < (g + ng) * per; j++) {
					if (s->e[j] != pt->inval[s->kind][0]) {
						s->e[j] = pt->inval[s->kind][0];
						pt_mark(pt, s, j, 1);
					}
				}
			}
			p += (uint64_t)ng << bs;
			continue;
		}
		if (!s || (op->map && op->min_shift > ss)) {
			error(pt, p, q);
			p = q;
			continue;
		}
		/* small entries; extend over following big pages that stay small */
		if (!bt)
			q = b;
		for (;;) {
			if (bt && !bt->blank &&
			    bt->e[g] != pt->inval[bt->kind][0]) {
				uint64_t v = bt->e[g];
				unsigned int j0 = g * per;

				if (NVL_MAX(p, glo) != glo ||
				    q != glo + (1ull << bs)) {
					/* push the big entry's meaning down */
					for (unsigned int j = 0; j < per; j++)
						s->e[j0 + j] =
							v == pt->sparse[bt->kind]
								       [0]
								? pt->sparse
									  [s->kind]
									  [0]
							: v == pt->inval[bt->kind]
									[0]
								? pt->inval
									  [s->kind]
									  [0]
								: pt->f->ops->pte_offset(
									  pt->f->priv,
									  v,
									  (uint64_t)j
										  << ss);
					pt_mark(pt, s, j0, per);
				}
				bt->e[g] = pt->inval[bt->kind][0];
				pt_mark(pt, bt, g, 1);
			}
			if (q >= b || big_ok || !bt)
				break;
			g++;
			glo += 1ull << bs;
			q = NVL_MIN(b, glo + (1ull << bs));
		}
		{
			unsigned int j0 = (unsigned int)((p - base) >> ss);
			unsigned int n = (unsigned int)((q - p) >> ss);

			if (op->map) {
				encode(pt, op, p, &s->e[j0], n, ss);
			} else {
				uint64_t v = op->sparse ? pt->sparse[s->kind][0]
							: pt->inval[s->kind][0];

				for (unsigned int j = 0; j < n; j++)
					s->e[j0 + j] = v;
			}
			pt_mark(pt, s, j0, n);
		}
		p = q;
	}
}

/*
 * The common case of a big-page bind: whole last-level entries of big pages
 * over entries that are not directories yet and have no small table. This
 * does what make_dir() and apply_pts() would do, without their case
 * analysis (every big entry is written, nothing needs filling first), for
 * the run of such entries from @i up to entry @i1 or @hi. Big pages fit
 * every entry of the run once they fit the first: the VA-to-PA offset is
 * the op's. Return: entries done (at least 1).
 */
static unsigned int map_big_run(struct nvl_pt *pt, struct pt_table *t,
				unsigned int i, unsigned int i1, uint64_t hi,
				const struct op *op)
{
	unsigned int nch = pt_nch(pt, t->kind), es = pt->geo[t->kind].shift;
	unsigned int bk = pt->big, n = pt_entries(pt, bk);
	unsigned int bs = pt->geo[bk].shift;
	const struct nvl_pt_format_ops *f = pt->f->ops;
	struct nvl_pt_page pg = op->page;
	unsigned int j = i + 1;

	while (j <= i1 && pt_entry_va(pt, t, j) + (1ull << es) <= hi &&
	       t->st[j] != E_DIR && !t->ch[j * nch] && t->ch[j * nch + 1])
		j++;
	/* the PTEs of every table first, in batches, flags encoded once */
	for (unsigned int b = i; b < j;) {
		uint64_t *outs[64];
		unsigned int m = NVL_MIN(j - b, 64u);

		for (unsigned int k = 0; k < m; k++) {
			struct pt_table *bt = t->ch[(b + k) * nch + 1];

			outs[k] = bt->e;
			bt->linked = true;
			bt->blank = false;
		}
		pg.addr = pa_at(op, pt_entry_va(pt, t, b));
		if (f->pte_tables) {
			f->pte_tables(pt->f->priv, outs, m, n, bs, &pg);
		} else {
			for (unsigned int k = 0; k < m; k++) {
				f->pte(pt->f->priv, outs[k], n, bs, &pg);
				pg.addr += (uint64_t)n << bs;
			}
		}
		if (!pt->direct) {
			for (unsigned int k = 0; k < m; k++)
				pt_mark(pt, t->ch[(b + k) * nch + 1], 0, n);
			pt_writeback_pts(pt);
		}
		b += m;
	}
	/* then the directory entries: the tables are written before the
	 * GPU can reach them */
	if (pt->direct)
		__atomic_thread_fence(__ATOMIC_RELEASE);
	for (unsigned int e = i; e < j; e++) {
		uint64_t child[2] = {NVL_PT_NO_TABLE, t->ch[e * nch + 1]->addr};
		uint64_t pde[2] = {0, 0};

		f->pde(pt->f->priv, pde, t->kind, child);
		pt_set_entry(pt, t, e, pde);
		t->st[e] = E_DIR;
	}
	count_leaf(pt, bs, (uint64_t)(j - i) * n);
	if (pt->direct) {
		pt->stats.bytes_written +=
			(uint64_t)(j - i) * (n * pt->geo[bk].entry_size +
					     pt->geo[t->kind].entry_size);
		t->blank = false;
	} else {
		pt_mark(pt, t, i, j - i);
	}
	return j - i;
}

/* Write [lo, hi) (inside @t's span) into directory @t and below. */
static void apply(struct nvl_pt *pt, struct pt_table *t, uint64_t lo,
		  uint64_t hi, const struct op *op)
{
	unsigned int k = t->kind;
	unsigned int es = pt->geo[k].shift;
	unsigned int i0 = pt_index(pt, t, lo), i1 = pt_index(pt, t, hi - 1);
	unsigned int nch = pt_nch(pt, k);

	for (unsigned int i = i0; i <= i1; i++) {
		uint64_t elo = pt_entry_va(pt, t, i);
		uint64_t ehi = elo + (1ull << es);
		uint64_t a = NVL_MAX(lo, elo), b = NVL_MIN(hi, ehi);
		bool full = a == elo && b == ehi;
		bool any = false;

		if (!op->map) {
			if (full) {
				set_uniform(pt, t, i, op->sparse);
				continue;
			}
			if (t->st[i] == (op->sparse ? E_SPARSE : E_INVALID))
				continue;
		} else if (full && pt->geo[k].leaf && es >= op->min_shift &&
			   aligned(pa_at(op, a), es)) {
			uint64_t pte;

			encode(pt, op, a, &pte, 1, es);
			set_leaf(pt, t, i, pte);
			continue;
		}
		for (unsigned int j = 0; j < nch; j++)
			any |= t->ch[i * nch + j] != NULL;
		if (!any) {
			error(pt, a, b);
			continue;
		}
		if (k == pt->last && full && op->map) {
			bool big = big_fits(pt, t, i, a, op);

			if (big && t->st[i] != E_DIR && !t->ch[i * nch]) {
				i += map_big_run(pt, t, i, i1, hi, op) - 1;
				continue;
			}

			/* a whole entry of big pages rewrites every big entry */
			make_dir(pt, t, i, !big, big);
		} else {
			make_dir(pt, t, i, false, false);
		}
		if (k < pt->last) {
			apply(pt, t->ch[i], a, b, op);
		} else {
			apply_pts(pt, t, i, a, b, op);
			/* write the page tables while they are cache-hot */
			pt_writeback_pts(pt);
		}
	}
}

static void run(struct nvl_pt *pt, uint64_t va, uint64_t range,
		const struct op *op)
{
	if (NVL_NEVER(!range || va + range < va || va + range > pt->va_end))
		return;
	apply(pt, pt->root, va, va + range, op);
}

/**
 * nvl_pt_map_pages() - see pt.h.
 */
void nvl_pt_map_pages(struct nvl_pt *pt, uint64_t va, uint64_t range,
		      unsigned int page_shift, const struct nvl_pt_page *page)
{
	struct op op = {
		.map = true, .min_shift = page_shift, .va0 = va, .page = *page};

	pthread_mutex_lock(&pt->lock);
	run(pt, va, range, &op);
	pt_writeback(pt);
	pthread_mutex_unlock(&pt->lock);
}

/**
 * nvl_pt_map() - see pt.h.
 */
void nvl_pt_map(struct nvl_pt *pt, uint64_t va, uint64_t range,
		unsigned int page_shift, struct nvl_gem_object *obj,
		uint64_t bo_offset, uint32_t flags)
{
	uint64_t end = va + range;
	bool settled = flags & NVL_VM_PT_SETTLED;

	flags &= ~(uint32_t)NVL_VM_PT_SETTLED;
	pthread_mutex_lock(&pt->lock);
	if ((flags & NVL_VM_PT_NULL) || !obj) {
		struct op op = {.sparse = true};

		run(pt, va, range, &op);
		goto out;
	}
	while (va < end) {
		struct nvl_gem_backing bk = {0};
		uint64_t n;

		if (obj->ops->get_backing(obj, bo_offset, &bk) ||
		    bk.domain == NVL_GEM_DOMAIN_NONE ||
		    bk.len_B < (1ull << 12) || (settled && bk.pending)) {
			/* not resident (or not yet filled): leave one page
			 * invalid */
			struct op op = {.sparse = false};

			n = NVL_MIN(end - va, 1ull << page_shift);
			run(pt, va, n, &op);
		} else {
			struct op op = {
				.map = true,
				.min_shift = page_shift,
				.va0 = va,
				.page = {.domain = bk.domain,
					 .addr = bk.addr,
					 .flags = flags},
			};

			struct nvl_gem_backing nx = {0};

			n = NVL_MIN(end - va, bk.len_B);
			/* merge physically contiguous pieces into one run */
			while (va + n < end &&
			       !obj->ops->get_backing(obj, bo_offset + n,
						      &nx) &&
			       nx.domain == bk.domain && nx.len_B &&
			       nx.addr == bk.addr + n)
				n = NVL_MIN(end - va, n + nx.len_B);
			run(pt, va, n, &op);
		}
		va += n;
		bo_offset += n;
	}
out:
	pt_writeback(pt);
	pthread_mutex_unlock(&pt->lock);
}

/**
 * nvl_pt_unmap() - see pt.h.
 */
void nvl_pt_unmap(struct nvl_pt *pt, uint64_t va, uint64_t range,
		  unsigned int page_shift, bool to_sparse)
{
	struct op op = {.sparse = to_sparse};

	pthread_mutex_lock(&pt->lock);
	run(pt, va, range, &op);
	pt_writeback(pt);
	pthread_mutex_unlock(&pt->lock);
}

/**
 * nvl_pt_sparse() - see pt.h.
 */
void nvl_pt_sparse(struct nvl_pt *pt, uint64_t va, uint64_t range, bool enable)
{
	nvl_pt_unmap(pt, va, range, 0, enable);
}

/**
 * nvl_pt_flush() - see pt.h.
 */
int nvl_pt_flush(struct nvl_pt *pt, uint64_t va, uint64_t range)
{
	int ret;

	pthread_mutex_lock(&pt->lock);
	pt_writeback(pt);
	ret = pt->invalidate(pt->priv, va, range);
	pt->stats.invalidates++;
	if (ret)
		nvl_pt_invalidate_failed(pt, ret);
	pthread_mutex_unlock(&pt->lock);
	return ret;
}

/* The page shift GPUVM's calls are served at (see any_backing). */
static unsigned int ops_shift(const struct nvl_pt *pt, unsigned int shift)
{
	return pt->any_backing ? pt->geo[pt->small].shift : shift;
}

static int ops_get(void *priv, uint64_t va, uint64_t range,
		   unsigned int page_shift)
{
	return nvl_pt_get(priv, va, range, ops_shift(priv, page_shift));
}

static void ops_put(void *priv, uint64_t va, uint64_t range,
		    unsigned int page_shift)
{
	nvl_pt_put(priv, va, range, ops_shift(priv, page_shift));
}

static void ops_map(void *priv, uint64_t va, uint64_t range,
		    unsigned int page_shift, struct nvl_gem_object *obj,
		    uint64_t bo_offset, uint32_t flags)
{
	nvl_pt_map(priv, va, range, ops_shift(priv, page_shift), obj, bo_offset,
		   flags);
}

static void ops_unmap(void *priv, uint64_t va, uint64_t range,
		      unsigned int page_shift, bool to_sparse)
{
	nvl_pt_unmap(priv, va, range, ops_shift(priv, page_shift), to_sparse);
}

static void ops_sparse(void *priv, uint64_t va, uint64_t range, bool enable)
{
	nvl_pt_sparse(priv, va, range, enable);
}

static void ops_flush(void *priv, uint64_t va, uint64_t range)
{
	/* a failure is kept for ops_take_error */
	(void)nvl_pt_flush(priv, va, range);
}

static int ops_take_error(void *priv)
{
	struct nvl_pt *pt = priv;
	int err;

	pthread_mutex_lock(&pt->lock);
	err = pt->error;
	pt->error = 0;
	pthread_mutex_unlock(&pt->lock);
	return err;
}

static int ops_get_region(void *priv, uint64_t va, uint64_t range)
{
	return nvl_pt_get_region(priv, va, range);
}

static void ops_put_region(void *priv, uint64_t va, uint64_t range)
{
	nvl_pt_put_region(priv, va, range);
}

static unsigned int ops_page_shift(void *priv, struct nvl_gem_object *obj,
				   uint64_t bo_offset, uint64_t va,
				   uint64_t range, unsigned int max_shift)
{
	struct nvl_pt *pt = priv;
	unsigned int s;

	/* any_backing: map picks every leaf from the backing anyway */
	if (pt->any_backing || !pt->page_shift)
		return max_shift;
	s = pt->page_shift(pt->priv, obj, bo_offset, va, range, max_shift);
	return NVL_MIN(s, max_shift);
}

const struct nvl_vm_pt_ops nvl_pt_ops = {
	.get = ops_get,
	.put = ops_put,
	.map = ops_map,
	.unmap = ops_unmap,
	.sparse = ops_sparse,
	.flush = ops_flush,
	.take_error = ops_take_error,
	.page_shift = ops_page_shift,
	.get_region = ops_get_region,
	.put_region = ops_put_region,
};

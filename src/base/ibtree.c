// SPDX-License-Identifier: MIT
/*
 * DOC: Interval B+tree
 *
 * Leaves hold up to W entries sorted by (start, last) with the keys copied
 * into the leaf, so searches never touch the entries themselves. Inner nodes
 * hold, per child, the child's smallest key and the largest `last` below it:
 *
 *   inner:  | key0 maxl0 c0 | key1 maxl1 c1 | ...          (count <= W)
 *   leaf:   | s0 l0 e0 | s1 l1 e1 | ...                    (count <= W)
 *
 * First overlap of [s, l]: at each level take the leftmost child whose maxl
 * >= s; if that child's smallest start is > l nothing overlaps (everything
 * after it starts later still). No backtracking, so a lookup visits one node
 * per level, about log24(n) of them (nodes run three quarters full).
 *
 * Why 32 wide: a lookup pays one cache miss per level that is not cached,
 * and the bytes of the levels above the leaves depend only on the number
 * of leaves. 32-wide leaves halve that number against 16-wide ones, so at
 * a million entries the level above the leaves (about 1.5 MiB) mostly
 * stays in the last-level cache; 64-wide nodes measured no better.
 *
 * Inserts split full nodes bottom-up; removals merge a node that falls
 * under W/4 with a sibling, or borrow from it. Before an insert changes
 * anything it counts the nodes its splits need and takes them from the
 * node pool (reserved by nvl_ibtree_preload(), or allocated on the spot),
 * so an insert either fails with nothing changed or cannot fail.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "alloc.h"
#include "ibtree.h"
#include "log.h"

#define W 32
#define MIN_FILL (W / 4)
#define MAX_HEIGHT 20

typedef struct nvl_ibtree_entry entry_t;

struct nvl_ibt_node {
	struct nvl_ibt_node *parent;
	uint8_t count;
	uint8_t leaf;
	uint64_t start[W]; /* leaf: entry keys; inner: child's min key */
	uint64_t last[W];
	void *ptr[W]; /* leaf: entries; inner: children */
	uint64_t maxl[W]; /* inner only: leaves are allocated without it */
};

typedef struct nvl_ibt_node node_t;

static const size_t node_size[2] = {
	[0] = sizeof(node_t), /* inner */
	[1] = offsetof(node_t, maxl), /* leaf */
};

/* ---- node pool ------------------------------------------------------- */
/*
 * Nodes come from chunks owned by the tree: 16 KiB first, growing 4x up to
 * 2 MiB (aligned and madvise(MADV_HUGEPAGE)d). Freed nodes go to a free list
 * per kind. Reservation (`reserve`) guarantees that the next `take` calls
 * are served without allocating.
 */

#define CHUNK_MIN (16u << 10)
#define CHUNK_MAX (2u << 20)

struct chunk_hdr {
	void *next;
	size_t size;
};

static inline size_t bump_room(const struct nvl_ibtree *t)
{
	return t->bump ? (size_t)(t->bump_end - t->bump) : 0;
}

static int add_chunk(struct nvl_ibtree *t, size_t need)
{
	size_t size = t->pool_bytes ? NVL_MIN(t->pool_bytes * 3, CHUNK_MAX)
				    : CHUNK_MIN;
	struct chunk_hdr *c;

	if (size < CHUNK_MIN)
		size = CHUNK_MIN;
	need += sizeof(*c);
	if (need > CHUNK_MAX)
		size = NVL_ALIGN_UP(need, (size_t)CHUNK_MAX);
	while (size < need)
		size *= 2;
	c = size >= CHUNK_MAX ? nvl_aligned_alloc(CHUNK_MAX, size)
			      : nvl_malloc(size);
	if (!c)
		return -ENOMEM;
	if (size >= CHUNK_MAX)
		madvise(c, size, MADV_HUGEPAGE);
	/* Give the old chunk's tail to the leaf free list. */
	while (bump_room(t) >= node_size[1]) {
		node_t *n = (node_t *)t->bump;

		t->bump += node_size[1];
		n->parent = t->free[1];
		t->free[1] = n;
		t->nfree[1]++;
	}
	c->next = t->chunks;
	c->size = size;
	t->chunks = c;
	t->pool_bytes += size;
	t->bump = (char *)(c + 1);
	t->bump_end = (char *)c + size;
	return 0;
}

/* Make sure @leaves leaf nodes and @inners inner nodes can be taken. */
static int reserve(struct nvl_ibtree *t, size_t leaves, size_t inners)
{
	size_t bytes = 0;

	if (leaves > t->nfree[1])
		bytes += (leaves - t->nfree[1]) * node_size[1];
	if (inners > t->nfree[0])
		bytes += (inners - t->nfree[0]) * node_size[0];
	if (bytes <= bump_room(t))
		return 0;
	return add_chunk(t, bytes);
}

static node_t *new_node(struct nvl_ibtree *t, int leaf)
{
	node_t *n = t->free[leaf];

	if (n) {
		t->free[leaf] = n->parent;
		t->nfree[leaf]--;
	} else {
		n = (node_t *)t->bump;
		t->bump += node_size[leaf];
	}
	n->parent = NULL;
	n->count = 0;
	n->leaf = (uint8_t)leaf;
	t->nnodes[leaf]++;
	return n;
}

static void drop_node(struct nvl_ibtree *t, node_t *n)
{
	int leaf = n->leaf;

	t->nnodes[leaf]--;
	n->parent = t->free[leaf];
	t->free[leaf] = n;
	t->nfree[leaf]++;
}

/*
 * How many nodes can @n_inserts inserts (with any removals in between) need
 * beyond the tree's current nodes? Two bounds, and the smaller one holds:
 *
 *  - per insert: the leaf and every inner level split, plus a new root;
 *  - for the whole tree: every non-root node holds at least MIN_FILL slots,
 *    so a tree of M entries never has more than M / MIN_FILL + 1 leaves and
 *    (leaves / (MIN_FILL - 1) + one per level) inner nodes. Nodes freed by
 *    removals stay in the pool, so covering the largest tree the inserts can
 *    build covers every moment on the way.
 *
 * The second bound keeps a batch of a million re-inserts (an aborted unmap
 * of a million mappings) at a few hundred bytes per entry instead of the
 * first bound's kilobytes.
 */
int nvl_ibtree_preload(struct nvl_ibtree *t, unsigned n_inserts)
{
	size_t m = t->count + n_inserts;
	size_t max_leaves = m / MIN_FILL + 1;
	size_t max_inner = max_leaves / (MIN_FILL - 1) + MAX_HEIGHT + 1;
	size_t leaves = n_inserts, inner = (size_t)n_inserts * (t->height + 1);

	if (max_leaves > t->nnodes[1])
		leaves = NVL_MIN(leaves, max_leaves - t->nnodes[1]);
	else
		leaves = 0;
	if (max_inner > t->nnodes[0])
		inner = NVL_MIN(inner, max_inner - t->nnodes[0]);
	else
		inner = 0;
	return reserve(t, leaves, inner);
}

void nvl_ibtree_fini(struct nvl_ibtree *t)
{
	struct chunk_hdr *c = t->chunks;

	while (c) {
		struct chunk_hdr *next = c->next;

		nvl_free(c);
		c = next;
	}
	nvl_ibtree_init(t);
}

size_t nvl_ibtree_bytes(const struct nvl_ibtree *t)
{
	return t->pool_bytes;
}

/* ---- slot helpers ------------------------------------------------------ */

static inline bool key_le(uint64_t s1, uint64_t l1, uint64_t s2, uint64_t l2)
{
	return s1 < s2 || (s1 == s2 && l1 <= l2);
}

static inline unsigned index_in_parent(const node_t *n)
{
	const node_t *p = n->parent;
	unsigned i = 0;

	while (p->ptr[i] != n)
		i++;
	return i;
}

static inline uint64_t node_maxl(const node_t *n)
{
	const uint64_t *v = n->leaf ? n->last : n->maxl;
	uint64_t m = v[0];

	for (unsigned i = 1; i < n->count; i++)
		if (v[i] > m)
			m = v[i];
	return m;
}

/* Write child @c's summary into slot @i of @p. */
static inline void set_slot(node_t *p, unsigned i, node_t *c)
{
	p->ptr[i] = c;
	p->start[i] = c->start[0];
	p->last[i] = c->last[0];
	p->maxl[i] = node_maxl(c);
	c->parent = p;
}

/* Re-derive summaries from @n up towards the root, stopping when stable. */
static void refresh_up(node_t *n)
{
	while (n->parent) {
		node_t *p = n->parent;
		unsigned i = index_in_parent(n);
		uint64_t m = node_maxl(n);

		if (p->start[i] == n->start[0] && p->last[i] == n->last[0] &&
		    p->maxl[i] == m)
			return;
		p->start[i] = n->start[0];
		p->last[i] = n->last[0];
		p->maxl[i] = m;
		n = p;
	}
}

/*
 * refresh_up() after an entry ending at @l went into @n without a split:
 * the maxima can only grow to @l, so no node is scanned for its maximum.
 */
static void refresh_up_insert(node_t *n, uint64_t l)
{
	while (n->parent) {
		node_t *p = n->parent;
		unsigned i = index_in_parent(n);

		if (p->start[i] == n->start[0] && p->last[i] == n->last[0] &&
		    p->maxl[i] >= l)
			return;
		p->start[i] = n->start[0];
		p->last[i] = n->last[0];
		if (p->maxl[i] < l)
			p->maxl[i] = l;
		n = p;
	}
}

static inline void adopt(node_t *n, unsigned i)
{
	if (n->leaf)
		((entry_t *)n->ptr[i])->__leaf = n;
	else
		((node_t *)n->ptr[i])->parent = n;
}

/*
 * Two slots of one array, loaded both before either is stored, so a pair
 * copy is right for overlapping ranges in either direction as long as the
 * pairs are taken in the copy's order (16-byte moves: one load and one
 * store per array where a slot at a time took two of each).
 */
static inline void pair_copy(uint64_t *d, const uint64_t *s)
{
	uint64_t t[2];

	memcpy(t, s, sizeof(t));
	memcpy(d, t, sizeof(t));
}

static inline void pair_slots(node_t *dst, unsigned a, const node_t *src,
			      unsigned f, bool inner)
{
	pair_copy(&dst->start[a], &src->start[f]);
	pair_copy(&dst->last[a], &src->last[f]);
	pair_copy((uint64_t *)&dst->ptr[a], (const uint64_t *)&src->ptr[f]);
	if (inner)
		pair_copy(&dst->maxl[a], &src->maxl[f]);
}

static inline void one_slot(node_t *dst, unsigned a, const node_t *src,
			    unsigned f, bool inner)
{
	dst->start[a] = src->start[f];
	dst->last[a] = src->last[f];
	dst->ptr[a] = src->ptr[f];
	if (inner)
		dst->maxl[a] = src->maxl[f];
}

/*
 * Copy slots [from, from + k) of @src to [at, at + k) of @dst, which may be
 * @src. One loop over all three (four) arrays instead of a memmove call
 * each: an insert or a removal shifts a few slots, and three or four calls
 * for that were a tenth of a batch of tile binds (issue 19); the loop moves
 * two slots a step.
 */
static void copy_slots(node_t *dst, unsigned at, const node_t *src,
		       unsigned from, unsigned k)
{
	bool inner = !dst->leaf;
	unsigned j;

	if (dst == src && at > from) {
		/* opening slots: back to front, pairs from the end */
		for (j = k; j >= 2; j -= 2)
			pair_slots(dst, at + j - 2, src, from + j - 2, inner);
		if (j)
			one_slot(dst, at, src, from, inner);
		return;
	}
	for (j = 0; j + 2 <= k; j += 2)
		pair_slots(dst, at + j, src, from + j, inner);
	if (j < k)
		one_slot(dst, at + j, src, from + j, inner);
}

/* Open @k empty slots at @i (room guaranteed). */
static void open_slots(node_t *n, unsigned i, unsigned k)
{
	copy_slots(n, i + k, n, i, n->count - i);
	n->count = (uint8_t)(n->count + k);
}

/* Close @k slots at @i. */
static void close_slots(node_t *n, unsigned i, unsigned k)
{
	copy_slots(n, i, n, i + k, n->count - i - k);
	n->count = (uint8_t)(n->count - k);
}

/* Move @k slots from @src at @from to @dst at @at, re-parenting them. */
static void move_slots(node_t *dst, unsigned at, node_t *src, unsigned from,
		       unsigned k)
{
	open_slots(dst, at, k);
	copy_slots(dst, at, src, from, k);
	close_slots(src, from, k);
	for (unsigned i = at; i < at + k; i++)
		adopt(dst, i);
}

/* ---- insert ------------------------------------------------------------ */

/*
 * Put (s, l, ptr) into slot @i of @n. When @n is full, split it first and
 * return the new right half (which the caller links into the parent).
 */
static node_t *node_insert(struct nvl_ibtree *t, node_t *n, unsigned i,
			   uint64_t s, uint64_t l, void *ptr)
{
	node_t *r = NULL, *dst = n;

	if (n->count == W) {
		unsigned half = W / 2;

		r = new_node(t, n->leaf);
		move_slots(r, 0, n, half, W - half);
		if (i > half) {
			dst = r;
			i -= half;
		}
	}
	open_slots(dst, i, 1);
	dst->start[i] = s;
	dst->last[i] = l;
	dst->ptr[i] = ptr;
	if (!dst->leaf)
		dst->maxl[i] = node_maxl(ptr);
	adopt(dst, i);
	return r;
}

/*
 * Link @r, the new right half of @n, into @n's parent (splitting that, and
 * so on up, or growing a new root), then refresh the summaries above.
 */
static inline __attribute__((always_inline)) void
link_split(struct nvl_ibtree *t, node_t *n, node_t *r)
{
	while (r) {
		node_t *p = n->parent;
		unsigned i;

		if (!p) {
			p = new_node(t, 0);
			set_slot(p, 0, n);
			set_slot(p, 1, r);
			p->count = 2;
			t->root = p;
			t->height++;
			return;
		}
		i = index_in_parent(n);
		set_slot(p, i, n);
		r = node_insert(t, p, i + 1, r->start[0], r->last[0], r);
		n = p;
	}
	refresh_up(n);
}

int nvl_ibtree_insert(struct nvl_ibtree *t, entry_t *e)
{
	node_t *path[MAX_HEIGHT];
	unsigned h = 0, need = 0, pos;
	node_t *n = t->root, *r;
	int k, ret;

	if (!n) {
		ret = reserve(t, 1, 0);
		if (ret)
			return ret;
		n = new_node(t, 1);
		t->root = n;
		t->height = 1;
		n->start[0] = e->start;
		n->last[0] = e->last;
		n->ptr[0] = e;
		n->count = 1;
		e->__leaf = n;
		t->count++;
		return 0;
	}
	for (;;) {
		path[h++] = n;
		if (n->leaf)
			break;
		/* last child whose min key <= e's key, else the first */
		k = n->count - 1;
		while (k > 0 &&
		       !key_le(n->start[k], n->last[k], e->start, e->last))
			k--;
		n = n->ptr[k];
	}
	/* Count splits: a chain of full nodes from the leaf up. */
	for (k = (int)h - 1; k >= 0 && path[k]->count == W; k--)
		need++;
	ret = reserve(t, path[h - 1]->count == W ? 1 : 0,
		      need ? need - 1 + (k < 0) : 0);
	if (ret)
		return ret;

	n = path[h - 1];
	pos = n->count;
	while (pos > 0 &&
	       !key_le(n->start[pos - 1], n->last[pos - 1], e->start, e->last))
		pos--;
	r = node_insert(t, n, pos, e->start, e->last, e);
	t->count++;
	if (!r) {
		refresh_up_insert(n, e->last);
		return 0;
	}
	link_split(t, n, r);
	return 0;
}

/* ---- sorted runs ------------------------------------------------------- */
/*
 * A run of entries in key order goes in leaf by leaf: one descent finds the
 * leaf of the run's next entry and the key where that leaf's range ends (the
 * smallest key of the next subtree), every following entry below that key
 * goes to the same leaf, and the leaf takes them in one merge pass from its
 * end with one summary refresh. A leaf that would overflow is merged with
 * (up to 2W slots of) its run into itself and one new right sibling, half
 * each, linked in as an insert's split is. Both halves hold at least W/2, as
 * an insert's split leaves them, so nvl_ibtree_preload()'s bounds cover a
 * run as they cover as many single inserts.
 */

/*
 * The leaf nvl_ibtree_insert() would put key (@s, @l) in, and the key that
 * ends its range in *@hs, *@hl (*@bounded: false for the last leaf).
 */
static node_t *leaf_for(node_t *n, uint64_t s, uint64_t l, uint64_t *hs,
			uint64_t *hl, bool *bounded)
{
	*bounded = false;
	while (!n->leaf) {
		int k = n->count - 1;

		while (k > 0 && !key_le(n->start[k], n->last[k], s, l))
			k--;
		if (k + 1 < n->count) {
			*hs = n->start[k + 1];
			*hl = n->last[k + 1];
			*bounded = true;
		}
		n = n->ptr[k];
	}
	return n;
}

/*
 * Merge the run @e[0, k) into @n, which has room for it: one pass from the
 * back, an entry of @n before a run entry of the same key (as an insert
 * puts a new entry after its equals). Return: the run's largest `last`.
 */
static uint64_t leaf_merge(node_t *n, entry_t *const *e, unsigned k)
{
	int a = (int)n->count - 1, b = (int)k - 1, d = (int)(n->count + k) - 1;
	uint64_t m = 0;

	while (b >= 0) {
		entry_t *x = e[b];

		if (a >= 0 &&
		    !key_le(n->start[a], n->last[a], x->start, x->last)) {
			n->start[d] = n->start[a];
			n->last[d] = n->last[a];
			n->ptr[d] = n->ptr[a];
			a--;
		} else {
			n->start[d] = x->start;
			n->last[d] = x->last;
			n->ptr[d] = x;
			x->__leaf = n;
			if (x->last > m)
				m = x->last;
			b--;
		}
		d--;
	}
	n->count = (uint8_t)(n->count + k);
	return m;
}

/*
 * Merge the run @e[0, k) and @n's slots (k + count <= 2W, more than W) into
 * @n and a new right sibling, half each, and link the sibling in.
 */
static void leaf_merge_split(struct nvl_ibtree *t, node_t *n, entry_t *const *e,
			     unsigned k)
{
	uint64_t os[W], ol[W];
	void *op[W];
	unsigned c = n->count, total = c + k, left = total / 2, a = 0, b = 0;
	node_t *r = new_node(t, 1);

	memcpy(os, n->start, c * sizeof(os[0]));
	memcpy(ol, n->last, c * sizeof(ol[0]));
	memcpy(op, n->ptr, c * sizeof(op[0]));
	for (unsigned d = 0; d < total; d++) {
		node_t *dst = d < left ? n : r;
		unsigned i = d < left ? d : d - left;
		entry_t *x;

		if (a < c &&
		    (b == k || key_le(os[a], ol[a], e[b]->start, e[b]->last)))
			x = op[a++];
		else
			x = e[b++];
		dst->start[i] = x->start;
		dst->last[i] = x->last;
		dst->ptr[i] = x;
		x->__leaf = dst;
	}
	n->count = (uint8_t)left;
	r->count = (uint8_t)(total - left);
	link_split(t, n, r);
}

int nvl_ibtree_insert_sorted(struct nvl_ibtree *t, entry_t *const *e,
			     unsigned n)
{
	unsigned i, k;
	int ret;

	for (i = 1; i < n; i++)
		if (!key_le(e[i - 1]->start, e[i - 1]->last, e[i]->start,
			    e[i]->last))
			return nvl_error(
				-EINVAL,
				"ibtree: sorted insert: entry %u of %u "
				"is out of order",
				i, n);
	if (!n)
		return 0;
	ret = nvl_ibtree_preload(t, n);
	if (ret)
		return ret;
	if (!t->root) {
		t->root = new_node(t, 1);
		t->height = 1;
	}
	for (i = 0; i < n; i += k) {
		uint64_t hs = 0, hl = 0;
		bool bounded;
		node_t *leaf = leaf_for(t->root, e[i]->start, e[i]->last, &hs,
					&hl, &bounded);

		for (k = 1; i + k < n; k++)
			if (bounded &&
			    key_le(hs, hl, e[i + k]->start, e[i + k]->last))
				break;
		if (leaf->count + k <= W) {
			refresh_up_insert(leaf, leaf_merge(leaf, e + i, k));
		} else {
			k = NVL_MIN(k, 2u * W - leaf->count);
			leaf_merge_split(t, leaf, e + i, k);
		}
		t->count += k;
	}
	return 0;
}

/* ---- remove ------------------------------------------------------------ */

/* @n (not the root) fell under MIN_FILL: merge with or borrow from a
 * sibling. Return: the parent when it lost a child, else NULL. */
static node_t *rebalance(struct nvl_ibtree *t, node_t *n)
{
	node_t *p = n->parent, *left, *right;
	unsigned i = index_in_parent(n), li;

	li = i > 0 ? i - 1 : i;
	left = p->ptr[li];
	right = p->ptr[li + 1];
	if (left->count + right->count <= W) {
		move_slots(left, left->count, right, 0, right->count);
		close_slots(p, li + 1, 1);
		drop_node(t, right);
		set_slot(p, li, left);
		return p;
	}
	if (left->count < right->count) {
		unsigned k = (right->count - left->count) / 2;

		move_slots(left, left->count, right, 0, k);
	} else {
		unsigned k = (left->count - right->count) / 2;

		move_slots(right, 0, left, left->count - k, k);
	}
	set_slot(p, li, left);
	set_slot(p, li + 1, right);
	refresh_up(p);
	return NULL;
}

/*
 * @n lost slots: drop an empty root or a root with one child, merge or
 * borrow up the tree, or refresh the summaries above. Inline in both
 * removals: out of line it cost nvl_ibtree_remove() 11 instructions a call.
 */
static inline __attribute__((always_inline)) void settle(struct nvl_ibtree *t,
							 node_t *n)
{
	for (;;) {
		if (n == t->root) {
			if (n->count == 0) {
				drop_node(t, n);
				t->root = NULL;
				t->height = 0;
			} else if (!n->leaf && n->count == 1) {
				t->root = n->ptr[0];
				t->root->parent = NULL;
				t->height--;
				drop_node(t, n);
			}
			return;
		}
		if (n->count >= MIN_FILL) {
			refresh_up(n);
			return;
		}
		n = rebalance(t, n);
		if (!n)
			return;
	}
}

void nvl_ibtree_remove(struct nvl_ibtree *t, entry_t *e)
{
	node_t *n = e->__leaf;
	unsigned i = n->count - 1u;

	/* from the end: removals in descending order find theirs at once */
	while (n->ptr[i] != e)
		i--;
	close_slots(n, i, 1);
	t->count--;
	e->__leaf = NULL;
	settle(t, n);
}

/*
 * Entries of one leaf that follow each other in @e go in one pass over the
 * leaf (slots kept move down once) and one settle(). An entry that does not
 * come in the leaf's order is missed by the pass and removed on its own.
 */
void nvl_ibtree_remove_sorted(struct nvl_ibtree *t, entry_t *const *e,
			      unsigned n)
{
	for (unsigned i = 0, j; i < n; i = j) {
		node_t *leaf = e[i]->__leaf;
		unsigned s = 0, d, m = i;

		for (j = i + 1; j < n && e[j]->__leaf == leaf; j++)
			;
		while (leaf->ptr[s] != e[i])
			s++;
		for (d = s; s < leaf->count; s++) {
			if (m == j) {
				copy_slots(leaf, d, leaf, s, leaf->count - s);
				d += leaf->count - s;
				break;
			}
			if (leaf->ptr[s] == e[m]) {
				e[m++]->__leaf = NULL;
				continue;
			}
			if (d != s)
				one_slot(leaf, d, leaf, s, false);
			d++;
		}
		leaf->count = (uint8_t)d;
		t->count -= m - i;
		if (m == j) {
			settle(t, leaf);
			continue;
		}
		/* out of the leaf's order: the rest one at a time */
		for (; m < j; m++)
			if (e[m]->__leaf)
				nvl_ibtree_remove(t, e[m]);
	}
}

void nvl_ibtree_replace(struct nvl_ibtree *t, entry_t *old, entry_t *new_e)
{
	node_t *n = old->__leaf;
	unsigned i = 0;

	while (n->ptr[i] != old)
		i++;
	n->ptr[i] = new_e;
	new_e->start = old->start;
	new_e->last = old->last;
	new_e->__leaf = n;
	old->__leaf = NULL;
}

/* ---- queries ----------------------------------------------------------- */

/*
 * Ask for every cache line of @n at once: a node spans 13 (leaf) or 17
 * (inner) lines, and a search reads three or four of them in an order that
 * depends on what it finds, which would otherwise pay their misses one after
 * the other. In a tree larger than the cache that is most of a lookup's time.
 * The caller says which kind @n is (it knows the level), so the lines are
 * asked for as soon as the node's address is known: reading n->leaf first
 * to size the node made each level two misses in a row, the header's and
 * then the rest's (issue 19: at a million mappings 70 % of a lookup's
 * samples sat on that first load).
 */
static inline void prefetch_node(const node_t *n, bool leaf)
{
	const char *p = (const char *)n;

	for (size_t o = 0; o < node_size[leaf]; o += 64)
		__builtin_prefetch(p + o);
}

/*
 * Leftmost entry overlapping [s, l] in the subtree of @h levels under @n
 * (1: @n is a leaf), or NULL (see DOC). @pf: ask for each node's lines
 * first; a tree of one or two levels (up to about 800 entries, some 30 KiB
 * of nodes) is in the cache when it is used often, and its prefetches are
 * only instructions.
 */
static entry_t *descend_first(const node_t *n, uint64_t s, uint64_t l,
			      unsigned int h, bool pf)
{
	if (pf)
		prefetch_node(n, h == 1);
	for (; h > 1; h--) {
		unsigned i = 0;

		while (i < n->count && n->maxl[i] < s)
			i++;
		if (i == n->count || n->start[i] > l)
			return NULL;
		n = n->ptr[i];
		if (pf)
			prefetch_node(n, h == 2);
	}
	for (unsigned i = 0; i < n->count; i++) {
		if (n->start[i] > l)
			return NULL;
		if (n->last[i] >= s)
			return n->ptr[i];
	}
	return NULL;
}

entry_t *nvl_ibtree_first(const struct nvl_ibtree *t, uint64_t start,
			  uint64_t last)
{
	return t->root ? descend_first(t->root, start, last, t->height,
				       t->height > 2)
		       : NULL;
}

entry_t *nvl_ibtree_next(const entry_t *e, uint64_t start, uint64_t last)
{
	const node_t *n = e->__leaf;
	unsigned i = 0;

	while (n->ptr[i] != e)
		i++;
	for (i++; i < n->count; i++) {
		if (n->start[i] > last)
			return NULL;
		if (n->last[i] >= start)
			return n->ptr[i];
	}
	/* @h: the levels of the subtrees under n's parent (1: leaves) */
	for (unsigned int h = 1; n->parent; h++) {
		const node_t *p = n->parent;

		for (i = index_in_parent(n) + 1; i < p->count; i++) {
			if (p->start[i] > last)
				return NULL;
			if (p->maxl[i] >= start)
				return descend_first(p->ptr[i], start, last, h,
						     true);
		}
		n = p;
	}
	return NULL;
}

static entry_t *leftmost(const node_t *n)
{
	while (!n->leaf)
		n = n->ptr[0];
	return n->ptr[0];
}

static entry_t *rightmost(const node_t *n)
{
	while (!n->leaf)
		n = n->ptr[n->count - 1];
	return n->ptr[n->count - 1];
}

entry_t *nvl_ibtree_min(const struct nvl_ibtree *t)
{
	return t->root ? leftmost(t->root) : NULL;
}

entry_t *nvl_ibtree_max(const struct nvl_ibtree *t)
{
	return t->root ? rightmost(t->root) : NULL;
}

entry_t *nvl_ibtree_succ(const entry_t *e)
{
	const node_t *n = e->__leaf;
	unsigned i = 0;

	while (n->ptr[i] != e)
		i++;
	if (i + 1 < n->count)
		return n->ptr[i + 1];
	for (; n->parent; n = n->parent) {
		i = index_in_parent(n);
		if (i + 1 < n->parent->count)
			return leftmost(n->parent->ptr[i + 1]);
	}
	return NULL;
}

entry_t *nvl_ibtree_pred(const entry_t *e)
{
	const node_t *n = e->__leaf;
	unsigned i = 0;

	while (n->ptr[i] != e)
		i++;
	if (i > 0)
		return n->ptr[i - 1];
	for (; n->parent; n = n->parent) {
		i = index_in_parent(n);
		if (i > 0)
			return rightmost(n->parent->ptr[i - 1]);
	}
	return NULL;
}

entry_t *nvl_ibtree_cursor_first(const struct nvl_ibtree *t,
				 struct nvl_ibtree_cursor *c, uint64_t start,
				 uint64_t last)
{
	entry_t *e = nvl_ibtree_first(t, start, last);
	unsigned i = 0;

	c->e = e;
	if (!e)
		return NULL;
	c->leaf = e->__leaf;
	while (c->leaf->ptr[i] != e)
		i++;
	c->slot = i;
	return e;
}

entry_t *nvl_ibtree_cursor_next(struct nvl_ibtree_cursor *c)
{
	const node_t *n = c->leaf;

	if (!c->e)
		return NULL;
	if (c->slot + 1 < n->count) {
		c->e = n->ptr[++c->slot];
		return c->e;
	}
	for (; n->parent; n = n->parent) {
		unsigned i = index_in_parent(n);

		if (i + 1 < n->parent->count) {
			n = n->parent->ptr[i + 1];
			while (!n->leaf)
				n = n->ptr[0];
			c->leaf = n;
			c->slot = 0;
			c->e = n->ptr[0];
			return c->e;
		}
	}
	c->e = NULL;
	return NULL;
}

entry_t *nvl_ibtree_lower_bound(const struct nvl_ibtree *t, uint64_t addr)
{
	const node_t *n = t->root;
	unsigned i;

	if (!n)
		return NULL;
	while (!n->leaf) {
		/* last child whose min start < addr, else the first */
		i = n->count - 1;
		while (i > 0 && n->start[i] >= addr)
			i--;
		n = n->ptr[i];
	}
	for (i = 0; i < n->count; i++)
		if (n->start[i] >= addr)
			return n->ptr[i];
	return nvl_ibtree_succ(n->ptr[n->count - 1]);
}

/* ---- checking ---------------------------------------------------------- */

struct check_state {
	size_t count;
	bool have_prev;
	uint64_t ps, pl;
};

static int check_node(const struct nvl_ibtree *t, const node_t *n,
		      unsigned depth, struct check_state *st)
{
	if (n->count == 0 || n->count > W)
		return nvl_error(-EINVAL, "ibtree: node with %u slots",
				 n->count);
	if (n != t->root && n->count < MIN_FILL)
		return nvl_error(-EINVAL, "ibtree: underfull node (%u)",
				 n->count);
	if (n->leaf) {
		if (depth != t->height)
			return nvl_error(-EINVAL,
					 "ibtree: leaf at depth %u of %u",
					 depth, t->height);
		for (unsigned i = 0; i < n->count; i++) {
			const entry_t *e = n->ptr[i];

			if (e->__leaf != n || e->start != n->start[i] ||
			    e->last != n->last[i] || e->start > e->last)
				return nvl_error(-EINVAL, "ibtree: bad entry");
			if (st->have_prev &&
			    !key_le(st->ps, st->pl, e->start, e->last))
				return nvl_error(-EINVAL,
						 "ibtree: out of order");
			st->have_prev = true;
			st->ps = e->start;
			st->pl = e->last;
			st->count++;
		}
		return 0;
	}
	for (unsigned i = 0; i < n->count; i++) {
		const node_t *c = n->ptr[i];
		int ret;

		if (c->parent != n)
			return nvl_error(-EINVAL, "ibtree: bad parent link");
		if (n->start[i] != c->start[0] || n->last[i] != c->last[0] ||
		    n->maxl[i] != node_maxl(c))
			return nvl_error(-EINVAL, "ibtree: stale summary");
		ret = check_node(t, c, depth + 1, st);
		if (ret)
			return ret;
	}
	return 0;
}

int nvl_ibtree_check(const struct nvl_ibtree *t)
{
	struct check_state st = {0};
	int ret;

	if (!t->root)
		return t->count || t->height
			       ? nvl_error(-EINVAL, "ibtree: empty with count")
			       : 0;
	if (t->root->parent)
		return nvl_error(-EINVAL, "ibtree: root has a parent");
	ret = check_node(t, t->root, 1, &st);
	if (ret)
		return ret;
	if (st.count != t->count)
		return nvl_error(-EINVAL, "ibtree: count %zu, %zu entries",
				 t->count, st.count);
	return 0;
}

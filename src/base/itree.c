// SPDX-License-Identifier: MIT
/*
 * DOC: Augmented interval tree
 *
 * An AVL tree ordered by (start, last), each node augmented with the largest
 * `last` of its subtree. AVL rather than red-black: lookups dominate GPUVM's
 * traffic (every bind asks "what overlaps?") and AVL trees are shallower
 * (height <= 1.44 log2 n against 2 log2 n).
 *
 * The balance factor (height(right) - height(left), one of -1, 0, +1) lives
 * in the two low bits of the parent pointer, so a node costs 48 bytes with its
 * key. Rotations keep the node set of the rotated subtree, so they only
 * recompute the augmentation of the two nodes they move; inserts raise it on
 * the way down and removals recompute the path to the root before they
 * rebalance.
 */
#include <errno.h>

#include "itree.h"
#include "log.h"

typedef struct nvl_itree_node node_t;

static inline node_t *parent_of(const node_t *n)
{
	return (node_t *)(n->__parent & ~(uintptr_t)3);
}

static inline int bal(const node_t *n)
{
	return (int)(n->__parent & 3) - 1;
}

static inline void set_parent(node_t *n, node_t *p)
{
	n->__parent = (uintptr_t)p | (n->__parent & 3);
}

static inline void set_bal(node_t *n, int b)
{
	n->__parent = (n->__parent & ~(uintptr_t)3) | (uintptr_t)(b + 1);
}

static inline uint64_t sub_last(const node_t *n)
{
	return n ? n->__subtree_last : 0;
}

static inline void recompute(node_t *n)
{
	uint64_t m = n->last;

	if (n->__left && n->__left->__subtree_last > m)
		m = n->__left->__subtree_last;
	if (n->__right && n->__right->__subtree_last > m)
		m = n->__right->__subtree_last;
	n->__subtree_last = m;
}

static inline void replace_child(struct nvl_itree *t, node_t *p, node_t *old,
				 node_t *new_node)
{
	if (!p)
		t->root = new_node;
	else if (p->__left == old)
		p->__left = new_node;
	else
		p->__right = new_node;
}

/* Rotate @x left: its right child takes its place. Balances untouched. */
static node_t *rotate_left(struct nvl_itree *t, node_t *x)
{
	node_t *y = x->__right, *p = parent_of(x);

	x->__right = y->__left;
	if (y->__left)
		set_parent(y->__left, x);
	y->__left = x;
	set_parent(y, p);
	replace_child(t, p, x, y);
	set_parent(x, y);
	y->__subtree_last = x->__subtree_last;
	recompute(x);
	return y;
}

static node_t *rotate_right(struct nvl_itree *t, node_t *x)
{
	node_t *y = x->__left, *p = parent_of(x);

	x->__left = y->__right;
	if (y->__right)
		set_parent(y->__right, x);
	y->__right = x;
	set_parent(y, p);
	replace_child(t, p, x, y);
	set_parent(x, y);
	y->__subtree_last = x->__subtree_last;
	recompute(x);
	return y;
}

/*
 * Fix a node whose balance reached +-2. Returns the new subtree root; its
 * balance is 0 when the subtree got shorter than before the imbalance.
 */
static node_t *rebalance(struct nvl_itree *t, node_t *p, int b)
{
	if (b < 0) {
		node_t *l = p->__left;
		int lb = bal(l);

		if (lb <= 0) {
			rotate_right(t, p);
			if (lb == 0) {
				set_bal(p, -1);
				set_bal(l, 1);
			} else {
				set_bal(p, 0);
				set_bal(l, 0);
			}
			return l;
		} else {
			node_t *lr = l->__right;
			int rb = bal(lr);

			rotate_left(t, l);
			rotate_right(t, p);
			set_bal(l, rb > 0 ? -1 : 0);
			set_bal(p, rb < 0 ? 1 : 0);
			set_bal(lr, 0);
			return lr;
		}
	} else {
		node_t *r = p->__right;
		int rb = bal(r);

		if (rb >= 0) {
			rotate_left(t, p);
			if (rb == 0) {
				set_bal(p, 1);
				set_bal(r, -1);
			} else {
				set_bal(p, 0);
				set_bal(r, 0);
			}
			return r;
		} else {
			node_t *rl = r->__left;
			int lb = bal(rl);

			rotate_right(t, r);
			rotate_left(t, p);
			set_bal(r, lb < 0 ? 1 : 0);
			set_bal(p, lb > 0 ? -1 : 0);
			set_bal(rl, 0);
			return rl;
		}
	}
}

static inline bool less(const node_t *a, const node_t *b)
{
	return a->start < b->start ||
	       (a->start == b->start && a->last < b->last);
}

void nvl_itree_insert(struct nvl_itree *t, node_t *n)
{
	node_t *p = NULL, **link = &t->root;

	while (*link) {
		p = *link;
		if (p->__subtree_last < n->last)
			p->__subtree_last = n->last;
		link = less(n, p) ? &p->__left : &p->__right;
	}
	n->__left = n->__right = NULL;
	n->__subtree_last = n->last;
	n->__parent = (uintptr_t)p;
	set_bal(n, 0);
	*link = n;
	t->count++;

	/* Retrace: the subtree rooted at n grew by one level. */
	while (p) {
		int b = bal(p) + (p->__left == n ? -1 : 1);

		if (b == 0) {
			set_bal(p, 0);
			return;
		}
		if (b == 1 || b == -1) {
			set_bal(p, b);
			n = p;
			p = parent_of(p);
			continue;
		}
		rebalance(t, p, b);
		return;
	}
}

/* The subtree on @left_side of @p got one level shorter. */
static void retrace_remove(struct nvl_itree *t, node_t *p, bool left_side)
{
	while (p) {
		int b = bal(p) + (left_side ? 1 : -1);
		node_t *gp;

		if (b == 1 || b == -1) {
			set_bal(p, b);
			return;
		}
		if (b == 0) {
			set_bal(p, 0);
		} else {
			p = rebalance(t, p, b);
			if (bal(p) != 0)
				return;
		}
		gp = parent_of(p);
		if (gp)
			left_side = gp->__left == p;
		p = gp;
	}
}

static void fix_path(node_t *n)
{
	for (; n; n = parent_of(n))
		recompute(n);
}

void nvl_itree_remove(struct nvl_itree *t, node_t *n)
{
	node_t *p = parent_of(n), *child, *start;
	bool left_side;

	if (!n->__left || !n->__right) {
		child = n->__left ? n->__left : n->__right;
		left_side = p && p->__left == n;
		replace_child(t, p, n, child);
		if (child)
			set_parent(child, p);
		start = p;
	} else {
		node_t *s = n->__right;

		if (!s->__left) {
			/* Successor is n's right child: it moves up. */
			s->__left = n->__left;
			set_parent(n->__left, s);
			s->__parent = n->__parent; /* parent and n's balance */
			replace_child(t, p, n, s);
			start = s;
			left_side = false;
		} else {
			node_t *sp;

			while (s->__left)
				s = s->__left;
			sp = parent_of(s);
			sp->__left = s->__right;
			if (s->__right)
				set_parent(s->__right, sp);
			s->__left = n->__left;
			set_parent(n->__left, s);
			s->__right = n->__right;
			set_parent(n->__right, s);
			s->__parent = n->__parent;
			replace_child(t, p, n, s);
			start = sp;
			left_side = true;
		}
	}
	t->count--;
	fix_path(start);
	retrace_remove(t, start, left_side);
	n->__parent = 0;
	n->__left = n->__right = NULL;
}

void nvl_itree_replace(struct nvl_itree *t, node_t *old, node_t *new_node)
{
	node_t *p = parent_of(old);

	*new_node = *old;
	new_node->start = old->start;
	new_node->last = old->last;
	replace_child(t, p, old, new_node);
	if (old->__left)
		set_parent(old->__left, new_node);
	if (old->__right)
		set_parent(old->__right, new_node);
}

/*
 * Leftmost node in @n's subtree overlapping [start, last], given that
 * n->__subtree_last >= start.
 */
static node_t *subtree_first(node_t *n, uint64_t start, uint64_t last)
{
	for (;;) {
		if (n->__left && n->__left->__subtree_last >= start) {
			n = n->__left;
			continue;
		}
		if (n->start > last)
			return NULL;
		if (n->last >= start)
			return n;
		if (n->__right && n->__right->__subtree_last >= start) {
			n = n->__right;
			continue;
		}
		return NULL;
	}
}

node_t *nvl_itree_first(const struct nvl_itree *t, uint64_t start,
			uint64_t last)
{
	if (!t->root || t->root->__subtree_last < start)
		return NULL;
	return subtree_first(t->root, start, last);
}

node_t *nvl_itree_next(const node_t *n, uint64_t start, uint64_t last)
{
	node_t *cur = (node_t *)n;

	for (;;) {
		node_t *r = cur->__right, *prev;

		if (r && r->__subtree_last >= start)
			return subtree_first(r, start, last);
		/* Climb until we come up from a left child. */
		do {
			prev = cur;
			cur = parent_of(cur);
			if (!cur)
				return NULL;
		} while (cur->__right == prev);
		if (cur->start > last)
			return NULL;
		if (cur->last >= start)
			return cur;
	}
}

node_t *nvl_itree_min(const struct nvl_itree *t)
{
	node_t *n = t->root;

	while (n && n->__left)
		n = n->__left;
	return n;
}

node_t *nvl_itree_max(const struct nvl_itree *t)
{
	node_t *n = t->root;

	while (n && n->__right)
		n = n->__right;
	return n;
}

node_t *nvl_itree_succ(const node_t *n)
{
	node_t *p;

	if (n->__right) {
		n = n->__right;
		while (n->__left)
			n = n->__left;
		return (node_t *)n;
	}
	while ((p = parent_of(n)) && p->__right == n)
		n = p;
	return p;
}

node_t *nvl_itree_pred(const node_t *n)
{
	node_t *p;

	if (n->__left) {
		n = n->__left;
		while (n->__right)
			n = n->__right;
		return (node_t *)n;
	}
	while ((p = parent_of(n)) && p->__left == n)
		n = p;
	return p;
}

node_t *nvl_itree_lower_bound(const struct nvl_itree *t, uint64_t addr)
{
	node_t *n = t->root, *best = NULL;

	while (n) {
		if (n->start >= addr) {
			best = n;
			n = n->__left;
		} else {
			n = n->__right;
		}
	}
	return best;
}

static int check_node(const node_t *n, const node_t *parent, int *height,
		      size_t *count)
{
	int hl = 0, hr = 0, ret;
	uint64_t m;

	if (!n) {
		*height = 0;
		return 0;
	}
	if (parent_of(n) != parent)
		return nvl_error(-EINVAL, "itree: bad parent link at [%#llx]",
				 (unsigned long long)n->start);
	if (n->start > n->last)
		return nvl_error(-EINVAL, "itree: start > last");
	if (n->__left && less(n, n->__left))
		return nvl_error(-EINVAL, "itree: left child out of order");
	if (n->__right && less(n->__right, n))
		return nvl_error(-EINVAL, "itree: right child out of order");
	ret = check_node(n->__left, n, &hl, count);
	if (ret)
		return ret;
	ret = check_node(n->__right, n, &hr, count);
	if (ret)
		return ret;
	if (hr - hl != bal(n) || hr - hl > 1 || hl - hr > 1)
		return nvl_error(-EINVAL, "itree: balance %d, heights %d/%d",
				 bal(n), hl, hr);
	m = n->last;
	if (sub_last(n->__left) > m)
		m = sub_last(n->__left);
	if (sub_last(n->__right) > m)
		m = sub_last(n->__right);
	if (m != n->__subtree_last)
		return nvl_error(-EINVAL, "itree: stale subtree_last");
	*height = (hl > hr ? hl : hr) + 1;
	(*count)++;
	return 0;
}

int nvl_itree_check(const struct nvl_itree *t)
{
	int h;
	size_t count = 0;
	int ret = check_node(t->root, NULL, &h, &count);

	if (ret)
		return ret;
	if (count != t->count)
		return nvl_error(-EINVAL, "itree: count %zu, %zu nodes",
				 t->count, count);
	return 0;
}

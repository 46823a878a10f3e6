/* SPDX-License-Identifier: MIT */
/*
 * Interval B+tree: the cache-friendly interval tree.
 *
 * Same job as base/itree.h (which nodes overlap [start, last]?) with the
 * memory behaviour large address spaces need: keys live in 32-wide leaves
 * and inner nodes carry each child's smallest key and largest `last`, so a
 * lookup in a million intervals touches about four nodes, the top ones
 * always cached, instead of twenty scattered AVL nodes.
 *
 * Users embed struct nvl_ibtree_entry and fill start/last before inserting.
 * The tree allocates its own nodes from a per-tree pool of chunks (growing
 * to 2 MiB, transparent-huge-page backed, so a large tree costs few TLB
 * entries); nvl_ibtree_preload() reserves nodes in advance so that inserts
 * inside a fence-signalling section (GPUVM's commit phase) never allocate
 * and never fail. Removal never allocates; freed nodes return to the pool,
 * which is released by nvl_ibtree_fini().
 *
 * Not thread-safe: the owner's lock protects it.
 */
#ifndef NVL_BASE_IBTREE_H
#define NVL_BASE_IBTREE_H

#include "compiler.h"

struct nvl_ibt_node;

struct nvl_ibtree_entry {
	/** @start: first address covered (inclusive) */
	uint64_t start;
	/** @last: last address covered (inclusive) */
	uint64_t last;
	/* private: the leaf holding this entry */
	struct nvl_ibt_node *__leaf;
};

struct nvl_ibtree {
	struct nvl_ibt_node *root;
	size_t count;
	/* private: */
	unsigned height; /* 0 when empty, 1 = root is a leaf */
	/* node pool: free lists per node kind, bump space, chunk list */
	struct nvl_ibt_node *free[2];
	size_t nfree[2];
	size_t nnodes[2]; /* nodes in the tree, per kind */
	char *bump, *bump_end;
	void *chunks;
	size_t pool_bytes;
};

#define NVL_IBTREE_INIT                                                        \
	{                                                                      \
		0                                                              \
	}

static inline void nvl_ibtree_init(struct nvl_ibtree *t)
{
	*t = (struct nvl_ibtree)NVL_IBTREE_INIT;
}

/** nvl_ibtree_fini() - free the tree's nodes; entries are not touched. */
void nvl_ibtree_fini(struct nvl_ibtree *t);

static inline bool nvl_ibtree_empty(const struct nvl_ibtree *t)
{
	return t->count == 0;
}

static inline size_t nvl_ibtree_count(const struct nvl_ibtree *t)
{
	return t->count;
}

/**
 * nvl_ibtree_preload() - reserve nodes so that the next @n_inserts inserts
 * cannot fail or allocate.
 * Return: 0, or -ENOMEM (nothing changed in the tree).
 */
int nvl_ibtree_preload(struct nvl_ibtree *t, unsigned n_inserts) NVL_MUST_CHECK;

/**
 * nvl_ibtree_insert() - insert @e (start/last set by the caller; duplicates
 * and overlaps allowed). Uses preloaded nodes first.
 * Return: 0, or -ENOMEM when a node was needed and could not be allocated
 * (the tree is unchanged then).
 */
int nvl_ibtree_insert(struct nvl_ibtree *t,
		      struct nvl_ibtree_entry *e) NVL_MUST_CHECK;

/** nvl_ibtree_remove() - remove @e. Never allocates. */
void nvl_ibtree_remove(struct nvl_ibtree *t, struct nvl_ibtree_entry *e);

/**
 * nvl_ibtree_insert_sorted() - insert the @n entries of @e (start/last set
 * by the caller), which come in key order: by start, then by last.
 * Duplicates and overlaps allowed; an entry goes after the tree's entries
 * of the same key, as nvl_ibtree_insert() puts it. The entries that land in
 * one leaf go in as one merge pass with one summary refresh (issue 19).
 * Return: 0; -EINVAL when @e is out of order, -ENOMEM when nodes were
 * needed and could not be allocated (the tree is unchanged then).
 */
int nvl_ibtree_insert_sorted(struct nvl_ibtree *t,
			     struct nvl_ibtree_entry *const *e,
			     unsigned n) NVL_MUST_CHECK;

/**
 * nvl_ibtree_remove_sorted() - remove the @n entries of @e, all in the tree
 * and each once. Any order is right; in the tree's order (as
 * nvl_ibtree_succ() visits them) the entries of one leaf go in one pass
 * over it with one summary refresh. Never allocates.
 */
void nvl_ibtree_remove_sorted(struct nvl_ibtree *t,
			      struct nvl_ibtree_entry *const *e, unsigned n);

/** nvl_ibtree_first() - lowest entry overlapping [@start, @last], or NULL. */
struct nvl_ibtree_entry *nvl_ibtree_first(const struct nvl_ibtree *t,
					  uint64_t start, uint64_t last);

/** nvl_ibtree_next() - next entry after @e overlapping [@start, @last]. */
struct nvl_ibtree_entry *nvl_ibtree_next(const struct nvl_ibtree_entry *e,
					 uint64_t start, uint64_t last);

/** nvl_ibtree_min() / _max() - first / last entry in order, or NULL. */
struct nvl_ibtree_entry *nvl_ibtree_min(const struct nvl_ibtree *t);
struct nvl_ibtree_entry *nvl_ibtree_max(const struct nvl_ibtree *t);

/** nvl_ibtree_succ() / _pred() - in-order neighbours, or NULL. */
struct nvl_ibtree_entry *nvl_ibtree_succ(const struct nvl_ibtree_entry *e);
struct nvl_ibtree_entry *nvl_ibtree_pred(const struct nvl_ibtree_entry *e);

/**
 * struct nvl_ibtree_cursor - a place in the tree for an in-order walk
 * @e: the entry at the place, or NULL past the last entry
 *
 * Valid until the tree changes. A step costs what a step in a leaf costs,
 * where nvl_ibtree_succ() first scans the entry's leaf for its slot.
 */
struct nvl_ibtree_cursor {
	struct nvl_ibtree_entry *e;
	/* private: */
	const struct nvl_ibt_node *leaf;
	unsigned slot;
};

/**
 * nvl_ibtree_cursor_first() - put @c at nvl_ibtree_first(@t, @start, @last).
 * Return: @c->e, the lowest entry overlapping [@start, @last], or NULL.
 */
struct nvl_ibtree_entry *nvl_ibtree_cursor_first(const struct nvl_ibtree *t,
						 struct nvl_ibtree_cursor *c,
						 uint64_t start, uint64_t last);

/**
 * nvl_ibtree_cursor_next() - step @c to the in-order successor of @c->e.
 * Return: the new @c->e (NULL past the last entry, and from then on).
 */
struct nvl_ibtree_entry *nvl_ibtree_cursor_next(struct nvl_ibtree_cursor *c);

/** nvl_ibtree_lower_bound() - first entry with start >= @addr, or NULL. */
struct nvl_ibtree_entry *nvl_ibtree_lower_bound(const struct nvl_ibtree *t,
						uint64_t addr);

/**
 * nvl_ibtree_replace() - put @new_e in @old's place (same start and last).
 */
void nvl_ibtree_replace(struct nvl_ibtree *t, struct nvl_ibtree_entry *old,
			struct nvl_ibtree_entry *new_e);

/**
 * nvl_ibtree_bytes() - heap bytes the tree's nodes use (incl. spares).
 */
size_t nvl_ibtree_bytes(const struct nvl_ibtree *t);

/**
 * nvl_ibtree_check() - verify order, summaries, links and fill (tests).
 * Return: 0, or -EINVAL with a message through nvl_error().
 */
int nvl_ibtree_check(const struct nvl_ibtree *t);

#define nvl_ibtree_for_each(pos, tree, s, l)                                   \
	for (pos = nvl_ibtree_first(tree, s, l); pos;                          \
	     pos = nvl_ibtree_next(pos, s, l))

#endif /* NVL_BASE_IBTREE_H */

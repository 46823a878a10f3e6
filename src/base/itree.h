/* SPDX-License-Identifier: MIT */
/*
 * Augmented balanced interval tree, intrusive.
 *
 * Nodes are keyed by [start, last] (inclusive last, so a range may end at
 * UINT64_MAX) and ordered by start, then last. Every node keeps the largest
 * `last` of its subtree, so the first node overlapping a query range is found
 * in O(log n), and the next overlapping one in amortised O(log n). Users embed
 * struct nvl_itree_node and fill start/last before inserting; the tree never
 * allocates. Used by GPUVM (VA mappings) and the memory managers.
 *
 * Not thread-safe: the owner's lock protects it.
 */
#ifndef NVL_BASE_ITREE_H
#define NVL_BASE_ITREE_H

#include "compiler.h"

struct nvl_itree_node {
	/* private: parent pointer with the balance/colour bits packed low */
	uintptr_t __parent;
	struct nvl_itree_node *__left, *__right;
	/** @__subtree_last: max `last` in this subtree (private) */
	uint64_t __subtree_last;
	/* public: */
	/** @start: first address covered (inclusive) */
	uint64_t start;
	/** @last: last address covered (inclusive) */
	uint64_t last;
};

struct nvl_itree {
	struct nvl_itree_node *root;
	size_t count;
};

#define NVL_ITREE_INIT                                                         \
	{                                                                      \
		NULL, 0                                                        \
	}

static inline void nvl_itree_init(struct nvl_itree *t)
{
	t->root = NULL;
	t->count = 0;
}

static inline bool nvl_itree_empty(const struct nvl_itree *t)
{
	return t->root == NULL;
}

static inline size_t nvl_itree_count(const struct nvl_itree *t)
{
	return t->count;
}

/**
 * nvl_itree_insert() - insert @n, whose start/last the caller has set.
 * Overlapping and duplicate ranges are allowed. O(log n).
 */
void nvl_itree_insert(struct nvl_itree *t, struct nvl_itree_node *n);

/** nvl_itree_remove() - remove @n from @t. O(log n). */
void nvl_itree_remove(struct nvl_itree *t, struct nvl_itree_node *n);

/**
 * nvl_itree_first() - the lowest-start node overlapping [@start, @last].
 * Return: the node, or NULL when nothing overlaps.
 */
struct nvl_itree_node *nvl_itree_first(const struct nvl_itree *t,
				       uint64_t start, uint64_t last);

/**
 * nvl_itree_next() - the next node after @n (in start order) that overlaps
 * [@start, @last]. Return: the node, or NULL.
 */
struct nvl_itree_node *nvl_itree_next(const struct nvl_itree_node *n,
				      uint64_t start, uint64_t last);

/** nvl_itree_min() / nvl_itree_max() - first/last node in order, or NULL. */
struct nvl_itree_node *nvl_itree_min(const struct nvl_itree *t);
struct nvl_itree_node *nvl_itree_max(const struct nvl_itree *t);

/** nvl_itree_succ() / nvl_itree_pred() - in-order neighbours, or NULL. */
struct nvl_itree_node *nvl_itree_succ(const struct nvl_itree_node *n);
struct nvl_itree_node *nvl_itree_pred(const struct nvl_itree_node *n);

/**
 * nvl_itree_lower_bound() - the first node (in order) whose start is >= @addr,
 * or NULL.
 */
struct nvl_itree_node *nvl_itree_lower_bound(const struct nvl_itree *t,
					     uint64_t addr);

/**
 * nvl_itree_replace() - put @new in @old's place; both must have the same
 * start and last. O(1).
 */
void nvl_itree_replace(struct nvl_itree *t, struct nvl_itree_node *old,
		       struct nvl_itree_node *new_node);

/**
 * nvl_itree_check() - verify ordering, balance and augmentation (tests).
 * Return: 0, or -EINVAL with a message through nvl_error().
 */
int nvl_itree_check(const struct nvl_itree *t);

#define nvl_itree_for_each(pos, tree, s, l)                                    \
	for (pos = nvl_itree_first(tree, s, l); pos;                           \
	     pos = nvl_itree_next(pos, s, l))

#endif /* NVL_BASE_ITREE_H */

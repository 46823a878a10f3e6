/* SPDX-License-Identifier: MIT */
/*
 * Fence chains: timeline points. A chain node wraps a fence and links to the
 * previous point; node N signals only once its fence and every earlier node
 * signalled. Points keep the previous chain's context when their seqno is
 * later; otherwise ("unordered point") the node gets a fresh context and
 * seqno max(prev, requested). Walking garbage-collects signalled nodes.
 *
 * Extension over the kernel: a node that signals carries the error of its
 * own fence, so a failed point is visible to waiters.
 *
 * Also here: nvl_fence_unwrap, iteration over the leaves of chains and
 * arrays.
 */
#ifndef NVL_SYNC_FENCE_CHAIN_H
#define NVL_SYNC_FENCE_CHAIN_H

#include "sync/fence.h"

/**
 * struct nvl_fence_chain - one timeline point.
 * @base: the fence (seqno = the point)
 * @prev: the previous point (reference), under @prev_lock
 * @prev_seqno: seqno of @prev when linked (0 for a fresh context)
 * @fence: the point's fence (reference)
 * @prev_lock: protects @prev
 * @cb: callback on the fence being waited for
 * @work: deferred walk
 */
struct nvl_fence_chain {
	struct nvl_fence base;
	struct nvl_fence *prev;
	uint64_t prev_seqno;
	struct nvl_fence *fence;
	struct nvl_flock prev_lock;
	struct nvl_fence_cb cb;
	struct nvl_fence_work work;
};

/**
 * nvl_fence_chain_alloc() - allocate a node (before a signalling section).
 *
 * Return: the node, or NULL on -ENOMEM.
 */
struct nvl_fence_chain *nvl_fence_chain_alloc(void);

/**
 * nvl_fence_chain_free() - free a node that was never initialised.
 * @chain: the node, may be NULL
 */
void nvl_fence_chain_free(struct nvl_fence_chain *chain);

/**
 * nvl_fence_chain_init() - link a new point; takes ownership of the
 * references to @prev and @fence. Never fails, never allocates.
 * @chain: from nvl_fence_chain_alloc()
 * @prev: the previous point (or any fence, or NULL)
 * @fence: the point's fence
 * @seqno: the point
 */
void nvl_fence_chain_init(struct nvl_fence_chain *chain, struct nvl_fence *prev,
			  struct nvl_fence *fence, uint64_t seqno);

/** nvl_fence_chain_ops - the operations of every chain node. */
extern const struct nvl_fence_ops nvl_fence_chain_ops;

/**
 * nvl_to_fence_chain() - downcast.
 * @f: a fence, may be NULL
 *
 * Inline (a compare): every resv add_fence checks it (issue 15).
 *
 * Return: the chain node, or NULL when @f is not one.
 */
static inline struct nvl_fence_chain *nvl_to_fence_chain(struct nvl_fence *f)
{
	if (!f || f->ops != &nvl_fence_chain_ops)
		return NULL;
	return container_of(f, struct nvl_fence_chain, base);
}

/**
 * nvl_fence_chain_contained() - the fence a node wraps, or @f itself when
 * it is not a chain node.
 * @f: a fence
 *
 * Return: a fence (no reference taken).
 */
struct nvl_fence *nvl_fence_chain_contained(struct nvl_fence *f);

/**
 * nvl_fence_chain_get_prev() - the previous point.
 * @chain: a node
 *
 * Return: the previous fence with a reference, or NULL.
 */
struct nvl_fence *nvl_fence_chain_get_prev(struct nvl_fence_chain *chain);

/**
 * nvl_fence_chain_walk() - step to the previous point, unlinking signalled
 * ones; consumes the reference to @fence.
 * @fence: the current point (reference)
 *
 * Return: the previous point with a reference, or NULL at the end.
 */
struct nvl_fence *nvl_fence_chain_walk(struct nvl_fence *fence);

/**
 * nvl_fence_chain_collect() - unlink, from @head back, every point whose
 * fence signalled (what a walk does, with one lock per point and without
 * polling producers): garbage collection for a timeline nobody walks.
 * @head: the newest point (the caller holds a reference), or any fence
 * Return: the chain nodes still linked from @head, @head included.
 */
unsigned nvl_fence_chain_collect(struct nvl_fence *head);

/**
 * nvl_fence_chain_for_each() - walk from @head back to the first point;
 * @iter holds a reference to the current one (put it when breaking out).
 */
#define nvl_fence_chain_for_each(iter, head)                                   \
	for ((iter) = nvl_fence_get(head); (iter);                             \
	     (iter) = nvl_fence_chain_walk(iter))

/**
 * nvl_fence_chain_find_seqno() - find the point to wait for to reach
 * @seqno on the timeline in *@pfence.
 * @pfence: in: the head (reference); out: the fence to wait for, or NULL
 *          when the point already completed (reference moves)
 * @seqno: the point; 0 leaves *@pfence alone
 *
 * Return: 0, or -EINVAL when @seqno was not submitted yet (*@pfence is not
 * a chain or its head is older than @seqno).
 */
int nvl_fence_chain_find_seqno(struct nvl_fence **pfence, uint64_t seqno);

/**
 * struct nvl_fence_unwrap - cursor over the leaves of chains and arrays.
 * @chain: the current chain point (reference) or plain fence
 * @array: the container being enumerated
 * @index: next child of @array
 */
struct nvl_fence_unwrap {
	struct nvl_fence *chain;
	struct nvl_fence *array;
	unsigned index;
};

/**
 * nvl_fence_unwrap_first() - start unwrapping @head.
 * @head: a fence (reference taken by the cursor)
 * @cursor: the cursor
 *
 * Return: the first leaf (no reference of its own), or NULL.
 */
struct nvl_fence *nvl_fence_unwrap_first(struct nvl_fence *head,
					 struct nvl_fence_unwrap *cursor);

/**
 * nvl_fence_unwrap_next() - the next leaf.
 * @cursor: the cursor
 *
 * Return: the next leaf, or NULL at the end (the cursor dropped its
 * references).
 */
struct nvl_fence *nvl_fence_unwrap_next(struct nvl_fence_unwrap *cursor);

/**
 * nvl_fence_unwrap_end() - drop the cursor's references when breaking out.
 * @cursor: the cursor
 */
void nvl_fence_unwrap_end(struct nvl_fence_unwrap *cursor);

/** nvl_fence_unwrap_for_each() - iterate the leaves of @head. */
#define nvl_fence_unwrap_for_each(fence, cursor, head)                         \
	for ((fence) = nvl_fence_unwrap_first((head), (cursor)); (fence);      \
	     (fence) = nvl_fence_unwrap_next(cursor))

#endif /* NVL_SYNC_FENCE_CHAIN_H */

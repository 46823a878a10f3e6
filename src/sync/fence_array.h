/* SPDX-License-Identifier: MIT */
/*
 * Fence arrays: one fence that signals when all (or any) of its children
 * signalled. The first child error in signalling order becomes the array's
 * error: of the children signalled when the array signals, the failed one
 * with the earliest signal timestamp (nvl_fence_timestamp(); ties go to the
 * lower index), whether it signalled before or after the array was armed
 * (the kernel's dma_fence_array records the first error it notices, which
 * for children already signalled at arming is index order). Allocation (nvl_fence_array_alloc) is split from initialisation
 * (nvl_fence_array_init, never fails) so the allocation can happen before a
 * signalling section. Never store an array in a resv.
 */
#ifndef NVL_SYNC_FENCE_ARRAY_H
#define NVL_SYNC_FENCE_ARRAY_H

#include "sync/fence.h"

/** struct nvl_fence_array_cb - per-child callback (internal). */
struct nvl_fence_array_cb {
	struct nvl_fence_cb cb;
	struct nvl_fence_array *array;
};

/**
 * struct nvl_fence_array - the array fence.
 * @base: the fence
 * @num_fences: children
 * @num_pending: children still to signal (1 for signal-on-any)
 * @fences: the children (owned: one reference each, nvl_malloc'd array)
 * @first_error: the array's error once decided (0 none), 1 before
 * @signal_on_any: signal on the first child
 * @work: deferred signalling
 * @callbacks: one per child
 */
struct nvl_fence_array {
	struct nvl_fence base;
	unsigned num_fences;
	atomic_int num_pending;
	struct nvl_fence **fences;
	atomic_int first_error;
	bool signal_on_any;
	struct nvl_fence_work work;
	struct nvl_fence_array_cb callbacks[];
};

/**
 * nvl_fence_array_alloc() - allocate an array for @num_fences children.
 * @num_fences: children (>= 1)
 *
 * Return: the uninitialised array, or NULL (-ENOMEM or @num_fences 0).
 */
struct nvl_fence_array *nvl_fence_array_alloc(unsigned num_fences);

/**
 * nvl_fence_array_init() - initialise; takes ownership of @fences (the
 * nvl_malloc'd array and one reference per child). Never fails.
 * @array: from nvl_fence_array_alloc(@num_fences)
 * @num_fences: children
 * @fences: the children
 * @context: timeline id of the array fence
 * @seqno: its seqno
 * @signal_on_any: signal on the first child instead of the last
 */
void nvl_fence_array_init(struct nvl_fence_array *array, unsigned num_fences,
			  struct nvl_fence **fences, uint64_t context,
			  uint64_t seqno, bool signal_on_any);

/**
 * nvl_fence_array_create() - alloc + init; on failure nothing is owned.
 * @num_fences: children
 * @fences: the children (ownership passes on success)
 * @context: timeline id
 * @seqno: seqno
 * @signal_on_any: any instead of all
 * @array_out: the array
 *
 * Return: 0, -EINVAL (@num_fences 0), -ENOMEM.
 */
int nvl_fence_array_create(unsigned num_fences, struct nvl_fence **fences,
			   uint64_t context, uint64_t seqno, bool signal_on_any,
			   struct nvl_fence_array **array_out) NVL_MUST_CHECK;

/**
 * nvl_to_fence_array() - downcast.
 * @f: a fence, may be NULL
 *
 * Return: the array, or NULL when @f is not one.
 */
struct nvl_fence_array *nvl_to_fence_array(struct nvl_fence *f);

/** nvl_fence_array_ops - the operations of every fence array. */
extern const struct nvl_fence_ops nvl_fence_array_ops;

/**
 * nvl_fence_is_array() - is @f a fence array?
 * @f: a fence
 *
 * Inline (a compare): every resv add_fence checks it (issue 15).
 *
 * Return: true for arrays.
 */
static inline bool nvl_fence_is_array(struct nvl_fence *f)
{
	return f && f->ops == &nvl_fence_array_ops;
}

#endif /* NVL_SYNC_FENCE_ARRAY_H */

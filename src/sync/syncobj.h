/* SPDX-License-Identifier: MIT */
/*
 * Syncobjs, driver side (uAPI in <nouvelle/sync.h>). Drivers look up the
 * in-syncs of a submission with nvl_syncobj_find_fence(), and publish
 * out-fences with nvl_syncobj_replace_fence() (binary) or
 * nvl_syncobj_add_point() (timeline; the chain node preallocated before the
 * signalling section).
 */
#ifndef NVL_SYNC_SYNCOBJ_H
#define NVL_SYNC_SYNCOBJ_H

#include <nouvelle/sync.h>

#include "base/client.h"
#include "base/list.h"
#include "base/refcount.h"
#include "sync/fence.h"
#include "sync/fence_chain.h"
#include "sync/flock.h"

/**
 * struct nvl_syncobj - a replaceable fence pointer.
 * @ref: references (handles, fds, waiters)
 * @lock: protects @fence and @waiters
 * @fence: the current fence (reference) or NULL
 * @waiters: struct nvl_syncobj_waiter, run when a fence is installed
 * @gc_count: timeline points added since the last collecting walk (@lock)
 * @gc_every: points between two collecting walks (@lock)
 */
struct nvl_syncobj {
	struct nvl_kref ref;
	struct nvl_flock lock;
	struct nvl_fence *fence;
	struct nvl_list waiters;
	uint32_t gc_count;
	uint32_t gc_every;
};

/**
 * struct nvl_syncobj_waiter - waits for a fence to appear at @point (the
 * kernel's WAIT_FOR_SUBMIT entry). When a fence that covers @point is
 * installed, the syncobj, under its lock, takes a reference to it into
 * @fence, unlinks the waiter and runs @func: the waiter keeps the first
 * fence that appeared even if the syncobj is reset or replaced right after.
 * @func runs under the syncobj lock and must not block or allocate.
 * @node: link in nvl_syncobj.waiters
 * @func: the notification
 * @point: 0 (any fence) or the timeline point waited for
 * @fence: the captured fence (reference), read with
 *         nvl_syncobj_waiter_take()
 * @release: optional; for waiters that hold no reference on the syncobj
 *           (EVENTFD entries): called for a waiter still queued when the
 *           syncobj is freed
 */
struct nvl_syncobj_waiter {
	struct nvl_list node;
	void (*func)(struct nvl_syncobj_waiter *w);
	uint64_t point;
	struct nvl_fence *fence;
	void (*release)(struct nvl_syncobj_waiter *w);
};

/**
 * nvl_syncobj_alloc() - a new syncobj with no handle.
 * @flags: 0 or NVL_SYNCOBJ_CREATE_SIGNALED
 * @obj_out: the object, one reference
 *
 * Return: 0, -EINVAL, -ENOMEM.
 */
int nvl_syncobj_alloc(uint32_t flags,
		      struct nvl_syncobj **obj_out) NVL_MUST_CHECK;

/**
 * nvl_syncobj_get() - take a reference.
 * @obj: the syncobj
 *
 * Return: @obj.
 */
struct nvl_syncobj *nvl_syncobj_get(struct nvl_syncobj *obj);

/** nvl_syncobj_put() - drop a reference. @obj: the syncobj, may be NULL */
void nvl_syncobj_put(struct nvl_syncobj *obj);

/**
 * nvl_syncobj_find() - look up @handle.
 * @client: the client
 * @handle: the handle
 *
 * Return: the syncobj with a reference, or NULL.
 */
struct nvl_syncobj *nvl_syncobj_find(struct nvl_client *client,
				     uint32_t handle);

/**
 * nvl_syncobj_fence_get() - the current fence.
 * @obj: the syncobj
 *
 * Return: the fence with a reference, or NULL.
 */
struct nvl_fence *nvl_syncobj_fence_get(struct nvl_syncobj *obj);

/**
 * nvl_syncobj_find_fence() - the fence a driver waits for: @handle at
 * @point (0 = current fence). With NVL_SYNCOBJ_WAIT_FOR_SUBMIT waits up to
 * 5 s for it to appear (no locks may be held). A point already completed
 * and garbage-collected resolves to a signalled stub.
 * @client: the client
 * @handle: the handle
 * @point: timeline point or 0
 * @flags: 0 or NVL_SYNCOBJ_WAIT_FOR_SUBMIT
 * @fence_out: the fence with a reference
 *
 * Return: 0, -ENOENT (unknown handle), -EINVAL (bad flags, no fence), -ETIME
 * (WAIT_FOR_SUBMIT expired).
 */
int nvl_syncobj_find_fence(struct nvl_client *client, uint32_t handle,
			   uint64_t point, uint32_t flags,
			   struct nvl_fence **fence_out) NVL_MUST_CHECK;

/**
 * nvl_syncobj_replace_fence() - install @fence (reference taken) or NULL.
 * Never allocates; wakes WAIT_FOR_SUBMIT waiters when @fence is not NULL.
 * @obj: the syncobj
 * @fence: the new fence, or NULL (reset)
 */
void nvl_syncobj_replace_fence(struct nvl_syncobj *obj,
			       struct nvl_fence *fence);

/**
 * nvl_syncobj_add_point() - append timeline point @point wrapping @fence
 * (reference taken); consumes @chain. Never allocates. Now and then (see
 * syncobj.c) walks the timeline to unlink points that signalled.
 * @obj: the syncobj
 * @chain: from nvl_fence_chain_alloc()
 * @fence: the point's fence
 * @point: the point (should exceed the last one; else "unordered")
 */
void nvl_syncobj_add_point(struct nvl_syncobj *obj,
			   struct nvl_fence_chain *chain,
			   struct nvl_fence *fence, uint64_t point);

/**
 * nvl_syncobj_add_waiter() - register @w for @w->point: if a fence already
 * covers it, capture it at once (without running @w->func), else queue @w.
 * @obj: the syncobj
 * @w: the waiter (@w->point and @w->func set; @w->fence NULL)
 *
 * Return: true when queued (no fence yet), false when captured.
 */
bool nvl_syncobj_add_waiter(struct nvl_syncobj *obj,
			    struct nvl_syncobj_waiter *w);

/**
 * nvl_syncobj_waiter_take() - the fence @w captured, if any.
 * @obj: the syncobj @w was added to
 * @w: the waiter
 *
 * Return: the fence with the waiter's reference (the waiter forgets it), or
 * NULL while nothing appeared.
 */
struct nvl_fence *nvl_syncobj_waiter_take(struct nvl_syncobj *obj,
					  struct nvl_syncobj_waiter *w);

/**
 * nvl_syncobj_remove_waiter() - unregister @w (harmless if not queued) and
 * drop a fence it captured but nobody took.
 * @obj: the syncobj
 * @w: the waiter
 */
void nvl_syncobj_remove_waiter(struct nvl_syncobj *obj,
			       struct nvl_syncobj_waiter *w);

#endif /* NVL_SYNC_SYNCOBJ_H */

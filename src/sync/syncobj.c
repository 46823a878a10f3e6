// SPDX-License-Identifier: MIT
/*
 * DOC: Syncobjs
 *
 * A syncobj is a refcounted fence pointer guarded by a leaf flock. Binary
 * use replaces the fence; timeline use links a preallocated chain node in
 * front of it. Installing a (non-NULL) fence runs the registered
 * WAIT_FOR_SUBMIT waiters, which only bump a futex word: nothing here
 * allocates or blocks, so drivers publish out-fences from signalling
 * sections.
 *
 * The multi-handle ioctls follow the kernel's rules: flags and counts are
 * checked first (-EINVAL), then every handle is looked up (-ENOENT) with the
 * client's table lock held across lookup and mutation, so a bad handle
 * changes nothing; allocation (timeline chain nodes) happens before.
 *
 * Waits live in syncobj_wait.c.
 */
#include <errno.h>

#include "base/alloc.h"
#include "base/log.h"
#include "sync/checker.h"
#include "sync/fence_array.h"
#include "sync/sync_file.h"
#include "sync/syncobj.h"
#include "sync/syncobj_priv.h"

/*
 * Timeline garbage collection. A point keeps the one before it alive
 * until a walk (a wait, a query, a driver's in-sync lookup) unlinks the
 * points whose fence signalled; a timeline that is only signalled kept
 * every point it ever had. The kernel walks the whole timeline from the
 * previous point at every add, which costs one step per pending point:
 * a deep queue of jobs makes every exec pay for all of them. Here the
 * walk comes once per GC_MIN points, or per as many points as the last
 * walk left linked if more: amortised O(1) a point, and the timeline stays
 * within twice its unsignalled points plus 2 * GC_MIN.
 */
#define GC_MIN 16

static NVL_HOT void handle_get(void *obj)
{
	nvl_syncobj_get(obj);
}

static void handle_put(void *obj)
{
	nvl_syncobj_put(obj);
}

static const struct nvl_handle_ops syncobj_handle_ops = {
	.get = handle_get,
	.put = handle_put,
};

static pthread_once_t kind_once = PTHREAD_ONCE_INIT;

static void register_kind(void)
{
	nvl_handle_kind_register(NVL_HANDLE_SYNCOBJ, &syncobj_handle_ops);
}

NVL_HOT void nvl_syncobj_register_kind(void)
{
	pthread_once(&kind_once, register_kind);
}

int nvl_syncobj_alloc(uint32_t flags, struct nvl_syncobj **obj_out)
{
	struct nvl_syncobj *obj;

	if (flags & ~NVL_SYNCOBJ_CREATE_SIGNALED)
		return nvl_error(-EINVAL, "syncobj: create: unknown flags %#x",
				 flags & ~NVL_SYNCOBJ_CREATE_SIGNALED);
	obj = nvl_zalloc(sizeof(*obj));
	if (!obj)
		return nvl_error(-ENOMEM, "syncobj: out of memory");
	nvl_kref_init(&obj->ref);
	nvl_flock_init(&obj->lock);
	nvl_list_init(&obj->waiters);
	obj->gc_every = GC_MIN;
	if (flags & NVL_SYNCOBJ_CREATE_SIGNALED)
		obj->fence = nvl_fence_get_stub();
	*obj_out = obj;
	return 0;
}

struct nvl_syncobj *nvl_syncobj_get(struct nvl_syncobj *obj)
{
	nvl_kref_get(&obj->ref);
	return obj;
}

NVL_HOT void nvl_syncobj_put(struct nvl_syncobj *obj)
{
	struct nvl_syncobj_waiter *w, *tmp;

	if (!obj || !nvl_kref_put(&obj->ref))
		return;
	/* Only waiters without a reference (EVENTFD) can be left. */
	nvl_list_for_each_entry_safe (w, tmp, &obj->waiters, node) {
		nvl_list_del(&w->node);
		if (!NVL_NEVER(!w->release))
			w->release(w);
	}
	nvl_fence_put(obj->fence);
	nvl_free(obj);
}

NVL_HOT struct nvl_syncobj *nvl_syncobj_find(struct nvl_client *client,
					     uint32_t handle)
{
	if (!client)
		return NULL;
	nvl_syncobj_register_kind();
	return nvl_client_handle_get(client, NVL_HANDLE_SYNCOBJ, handle);
}

struct nvl_fence *nvl_syncobj_fence_get(struct nvl_syncobj *obj)
{
	struct nvl_fence *f;

	nvl_flock_lock(&obj->lock);
	f = nvl_fence_get(obj->fence);
	nvl_flock_unlock(&obj->lock);
	return f;
}

/*
 * obj->lock held: the fence a waiter for @point takes now, with a
 * reference, or NULL when @point is not submitted yet. A point already
 * complete and collected resolves to the stub.
 */
static struct nvl_fence *fence_at_locked(struct nvl_syncobj *obj,
					 uint64_t point)
{
	struct nvl_fence *f = nvl_fence_get(obj->fence);

	if (!f)
		return NULL;
	if (nvl_fence_chain_find_seqno(&f, point)) {
		nvl_fence_put(f);
		return NULL;
	}
	return f ? f : nvl_fence_get_stub();
}

/*
 * obj->lock held: a fence appeared. Each waiter whose point it covers takes
 * it here, under the lock (a reset right after cannot take it away), leaves
 * the list and is told.
 */
static NVL_HOT void run_waiters(struct nvl_syncobj *obj)
{
	struct nvl_syncobj_waiter *w, *tmp;

	nvl_list_for_each_entry_safe (w, tmp, &obj->waiters, node) {
		struct nvl_fence *f = fence_at_locked(obj, w->point);

		if (!f)
			continue;
		w->fence = f;
		nvl_list_del(&w->node);
		w->func(w);
	}
}

NVL_HOT void nvl_syncobj_replace_fence(struct nvl_syncobj *obj,
				       struct nvl_fence *fence)
{
	struct nvl_fence *old;

	nvl_fence_get(fence);
	nvl_flock_lock(&obj->lock);
	old = obj->fence;
	obj->fence = fence;
	if (fence)
		run_waiters(obj);
	nvl_flock_unlock(&obj->lock);
	nvl_fence_put(old);
}

static void gc_walk(struct nvl_syncobj *obj, struct nvl_fence *from)
{
	uint32_t n = nvl_fence_chain_collect(from);

	nvl_fence_put(from);
	nvl_flock_lock(&obj->lock);
	obj->gc_every = n > GC_MIN ? n : GC_MIN;
	nvl_flock_unlock(&obj->lock);
}

void nvl_syncobj_add_point(struct nvl_syncobj *obj,
			   struct nvl_fence_chain *chain,
			   struct nvl_fence *fence, uint64_t point)
{
	struct nvl_fence *prev, *gc = NULL;

	nvl_fence_get(fence);
	nvl_flock_lock(&obj->lock);
	prev = obj->fence; /* its reference moves into the chain */
	if (prev && prev->seqno >= point)
		nvl_dbg(NVL_CAT_SYNC,
			"syncobj: point %llu added after %llu (unordered)",
			(unsigned long long)point,
			(unsigned long long)prev->seqno);
	if (++obj->gc_count >= obj->gc_every && nvl_to_fence_chain(prev)) {
		obj->gc_count = 0;
		gc = nvl_fence_get(prev);
	}
	nvl_fence_chain_init(chain, prev, fence, point);
	obj->fence = &chain->base;
	run_waiters(obj);
	nvl_flock_unlock(&obj->lock);
	/* no allocation, no blocking: fine in signalling sections */
	if (gc)
		gc_walk(obj, gc);
}

bool nvl_syncobj_add_waiter(struct nvl_syncobj *obj,
			    struct nvl_syncobj_waiter *w)
{
	struct nvl_fence *f;

	nvl_list_init(&w->node);
	nvl_flock_lock(&obj->lock);
	f = fence_at_locked(obj, w->point);
	if (f)
		w->fence = f;
	else
		nvl_list_add_tail(&w->node, &obj->waiters);
	nvl_flock_unlock(&obj->lock);
	return !f;
}

struct nvl_fence *nvl_syncobj_waiter_take(struct nvl_syncobj *obj,
					  struct nvl_syncobj_waiter *w)
{
	struct nvl_fence *f;

	nvl_flock_lock(&obj->lock);
	f = w->fence;
	w->fence = NULL;
	nvl_flock_unlock(&obj->lock);
	return f;
}

void nvl_syncobj_remove_waiter(struct nvl_syncobj *obj,
			       struct nvl_syncobj_waiter *w)
{
	struct nvl_fence *f;

	nvl_flock_lock(&obj->lock);
	nvl_list_del(&w->node);
	f = w->fence;
	w->fence = NULL;
	nvl_flock_unlock(&obj->lock);
	nvl_fence_put(f);
}

int nvl_syncobj_resolve(struct nvl_syncobj *obj, uint64_t point,
			struct nvl_fence **fence_out)
{
	struct nvl_fence *f = nvl_syncobj_fence_get(obj);

	*fence_out = NULL;
	if (!f)
		return -EINVAL;
	if (point) {
		if (nvl_fence_chain_find_seqno(&f, point)) {
			nvl_fence_put(f);
			return -EINVAL;
		}
		if (!f) /* already complete and collected */
			f = nvl_fence_get_stub();
	}
	*fence_out = f;
	return 0;
}

struct submit_wait {
	struct nvl_syncobj_waiter w;
	_Atomic uint32_t seq;
};

static void submit_wake(struct nvl_syncobj_waiter *w)
{
	struct submit_wait *s = container_of(w, struct submit_wait, w);

	atomic_fetch_add(&s->seq, 1);
	nvl_futex_wake_all(&s->seq);
}

int nvl_syncobj_find_fence(struct nvl_client *client, uint32_t handle,
			   uint64_t point, uint32_t flags,
			   struct nvl_fence **fence_out)
{
	struct submit_wait sw = {.w.func = submit_wake, .w.point = point};
	struct nvl_syncobj *obj;
	int64_t deadline;
	int ret;

	*fence_out = NULL;
	if (flags & ~NVL_SYNCOBJ_WAIT_FOR_SUBMIT)
		return nvl_error(-EINVAL, "syncobj: find_fence: bad flags %#x",
				 flags);
	obj = nvl_syncobj_find(client, handle);
	if (!obj)
		return nvl_error(-ENOENT, "syncobj: unknown handle %u", handle);
	ret = nvl_syncobj_resolve(obj, point, fence_out);
	if (ret && (flags & NVL_SYNCOBJ_WAIT_FOR_SUBMIT)) {
		nvl_checker_assert_no_locks("syncobj WAIT_FOR_SUBMIT");
		deadline = nvl_deadline_after(5 * NVL_NSEC_PER_SEC);
		/* The first fence that appears is ours, even if reset after. */
		nvl_syncobj_add_waiter(obj, &sw.w);
		for (;;) {
			uint32_t seq = atomic_load(&sw.seq);

			*fence_out = nvl_syncobj_waiter_take(obj, &sw.w);
			if (*fence_out) {
				ret = 0;
				break;
			}
			if (nvl_futex_wait(&sw.seq, seq, deadline) == -ETIME &&
			    atomic_load(&sw.seq) == seq) {
				*fence_out =
					nvl_syncobj_waiter_take(obj, &sw.w);
				ret = *fence_out ? 0 : -ETIME;
				break;
			}
		}
		nvl_syncobj_remove_waiter(obj, &sw.w);
	}
	nvl_syncobj_put(obj);
	if (ret == -ETIME)
		return nvl_error(-ETIME,
				 "syncobj: handle %u point %llu: no "
				 "fence submitted within 5 s",
				 handle, (unsigned long long)point);
	if (ret)
		return nvl_error(ret,
				 "syncobj: handle %u point %llu has no "
				 "fence",
				 handle, (unsigned long long)point);
	return 0;
}

/* ---- uAPI ------------------------------------------------------------ */

/* Give @obj a handle in @client; the handle takes over our reference. */
static int install_handle(struct nvl_client *client, struct nvl_syncobj *obj,
			  uint32_t *handle_out, const char *what)
{
	int ret = nvl_client_handle_add(client, NVL_HANDLE_SYNCOBJ, obj,
					handle_out);

	nvl_syncobj_put(obj);
	if (ret)
		return nvl_error(ret, "syncobj: %s: no handle", what);
	return 0;
}

NVL_API int nvl_syncobj_create(struct nvl_client *client, uint32_t flags,
			       uint32_t *handle_out)
{
	struct nvl_syncobj *obj;
	int ret;

	if (!client || !handle_out)
		return nvl_error(-EINVAL, "syncobj: create with NULL %s",
				 !client ? "client" : "handle_out");
	nvl_syncobj_register_kind();
	ret = nvl_syncobj_alloc(flags, &obj);
	if (ret)
		return ret;
	return install_handle(client, obj, handle_out, "create");
}

NVL_API int nvl_syncobj_destroy(struct nvl_client *client, uint32_t handle)
{
	if (!client)
		return nvl_error(-EINVAL, "syncobj: destroy with NULL client");
	nvl_syncobj_register_kind();
	if (nvl_client_handle_remove(client, NVL_HANDLE_SYNCOBJ, handle))
		return nvl_error(-EINVAL, "syncobj: destroy: unknown handle %u",
				 handle);
	return 0;
}

static int check_array(const char *op, struct nvl_client *client,
		       const void *handles, uint32_t count)
{
	if (!client)
		return nvl_error(-EINVAL, "syncobj: %s with NULL client", op);
	if (!count)
		return nvl_error(-EINVAL, "syncobj: %s of zero handles", op);
	if (!handles)
		return nvl_error(-EINVAL, "syncobj: %s with NULL handles", op);
	nvl_syncobj_register_kind();
	return 0;
}

/* client->lock held: every handle known? */
static int lookup_all_locked(struct nvl_client *client, const char *op,
			     const uint32_t *handles, uint32_t count)
{
	for (uint32_t i = 0; i < count; i++)
		if (!nvl_idr_find(&client->tables[NVL_HANDLE_SYNCOBJ],
				  handles[i]))
			return nvl_error(-ENOENT,
					 "syncobj: %s: unknown handle %u "
					 "(entry %u)",
					 op, handles[i], i);
	return 0;
}

static struct nvl_syncobj *obj_locked(struct nvl_client *client, uint32_t h)
{
	return nvl_idr_find(&client->tables[NVL_HANDLE_SYNCOBJ], h);
}

static int replace_all(const char *op, struct nvl_client *client,
		       const uint32_t *handles, uint32_t count, bool signal)
{
	struct nvl_fence *stub = NULL;
	int ret = check_array(op, client, handles, count);

	if (ret)
		return ret;
	if (signal)
		stub = nvl_fence_get_stub();
	nvl_client_lock(client);
	ret = lookup_all_locked(client, op, handles, count);
	for (uint32_t i = 0; !ret && i < count; i++)
		nvl_syncobj_replace_fence(obj_locked(client, handles[i]), stub);
	nvl_client_unlock(client);
	nvl_fence_put(stub);
	return ret;
}

NVL_API int nvl_syncobj_reset(struct nvl_client *client,
			      const uint32_t *handles, uint32_t count)
{
	return replace_all("reset", client, handles, count, false);
}

NVL_API int nvl_syncobj_signal(struct nvl_client *client,
			       const uint32_t *handles, uint32_t count)
{
	return replace_all("signal", client, handles, count, true);
}

NVL_API int nvl_syncobj_timeline_signal(struct nvl_client *client,
					const uint32_t *handles,
					const uint64_t *points, uint32_t count)
{
	struct nvl_fence_chain **chains;
	struct nvl_fence *stub;
	int ret = check_array("timeline_signal", client, handles, count);

	if (ret)
		return ret;
	if (!points)
		return nvl_error(-EINVAL, "syncobj: timeline_signal without "
					  "points");
	chains = nvl_calloc(count, sizeof(*chains));
	if (!chains)
		return nvl_error(-ENOMEM, "syncobj: timeline_signal: out of "
					  "memory");
	for (uint32_t i = 0; i < count; i++) {
		if (!points[i])
			continue;
		chains[i] = nvl_fence_chain_alloc();
		if (!chains[i]) {
			ret = -ENOMEM;
			goto out;
		}
	}
	stub = nvl_fence_get_stub();
	nvl_client_lock(client);
	ret = lookup_all_locked(client, "timeline_signal", handles, count);
	for (uint32_t i = 0; !ret && i < count; i++) {
		struct nvl_syncobj *obj = obj_locked(client, handles[i]);

		if (points[i]) {
			nvl_syncobj_add_point(obj, chains[i], stub, points[i]);
			chains[i] = NULL;
		} else {
			nvl_syncobj_replace_fence(obj, stub);
		}
	}
	nvl_client_unlock(client);
	nvl_fence_put(stub);
out:
	for (uint32_t i = 0; i < count; i++)
		nvl_fence_chain_free(chains[i]);
	nvl_free(chains);
	return ret;
}

/* Highest point whose whole prefix signalled. */
static uint64_t query_signalled(struct nvl_fence *head)
{
	struct nvl_fence *iter, *last = NULL;
	struct nvl_fence_chain *lc;
	uint64_t point;

	nvl_fence_chain_for_each(iter, head)
	{
		if (iter->context != head->context ||
		    !nvl_to_fence_chain(iter)) {
			nvl_fence_put(iter);
			break;
		}
		nvl_fence_put(last);
		last = nvl_fence_get(iter);
	}
	lc = nvl_to_fence_chain(last);
	/* the node signals only once everything before it did */
	point = nvl_fence_is_signaled(last) ? last->seqno : lc->prev_seqno;
	nvl_fence_put(last);
	return point;
}

NVL_API int nvl_syncobj_status(struct nvl_client *client, uint32_t handle,
			       uint64_t point, int *status)
{
	struct nvl_fence *f;
	int ret;

	if (!client || !status)
		return nvl_error(-EINVAL, "syncobj: status: NULL argument");
	ret = nvl_syncobj_find_fence(client, handle, point, 0, &f);
	/* sync.h: no fence (or point) there is -ENOENT, like no syncobj */
	if (ret)
		return nvl_error(ret == -EINVAL ? -ENOENT : ret,
				 "syncobj: status: no fence at %u:%llu", handle,
				 (unsigned long long)point);
	*status = nvl_fence_get_status(f);
	nvl_fence_put(f);
	return 0;
}

NVL_API int nvl_syncobj_query(struct nvl_client *client,
			      const uint32_t *handles, uint64_t *points,
			      uint32_t count, uint32_t flags)
{
	int ret = check_array("query", client, handles, count);

	if (ret)
		return ret;
	if (flags & ~NVL_SYNCOBJ_QUERY_LAST_SUBMITTED)
		return nvl_error(-EINVAL, "syncobj: query: unknown flags %#x",
				 flags);
	if (!points)
		return nvl_error(-EINVAL, "syncobj: query without points");
	nvl_client_lock(client);
	ret = lookup_all_locked(client, "query", handles, count);
	nvl_client_unlock(client);
	if (ret)
		return ret;
	for (uint32_t i = 0; i < count; i++) {
		struct nvl_syncobj *obj = nvl_syncobj_find(client, handles[i]);
		struct nvl_fence *f;

		if (!obj)
			return nvl_error(-ENOENT,
					 "syncobj: query: handle %u "
					 "closed meanwhile",
					 handles[i]);
		f = nvl_syncobj_fence_get(obj);
		if (!nvl_to_fence_chain(f))
			points[i] = 0;
		else if (flags & NVL_SYNCOBJ_QUERY_LAST_SUBMITTED)
			points[i] = f->seqno;
		else
			points[i] = query_signalled(f);
		nvl_fence_put(f);
		nvl_syncobj_put(obj);
	}
	return 0;
}

/*
 * A leaf flatten() keeps: one still pending, or one of @f's own point (the
 * unwrap cursor still on @f) that ended with an error, so that the flat
 * fence ends with the status @f ends with (nvl_syncobj_status()). Earlier
 * points' leaves that signalled are dropped, errors included, as their
 * nodes' errors are not @f's either (chains do not aggregate errors).
 */
static bool flatten_keeps(struct nvl_fence *leaf,
			  const struct nvl_fence_unwrap *cur,
			  struct nvl_fence *f)
{
	if (!nvl_fence_is_signaled(leaf))
		return true;
	return cur->chain == f && nvl_fence_get_status(leaf) < 0;
}

/*
 * One plain fence for everything @f stands for: the unsignalled leaves of
 * its chains and arrays (and @f's own errored ones), one per context, in
 * a signal-on-all array.
 */
static int flatten(struct nvl_fence *f, struct nvl_fence **out)
{
	struct nvl_fence_unwrap cur;
	struct nvl_fence *leaf, **arr;
	struct nvl_fence_array *a;
	unsigned n = 0, i = 0;

	if (!nvl_to_fence_chain(f) && !nvl_fence_is_array(f)) {
		*out = nvl_fence_get(f);
		return 0;
	}
	nvl_fence_unwrap_for_each(leaf, &cur, f) n +=
		flatten_keeps(leaf, &cur, f);
	if (n == 0) {
		*out = nvl_fence_get_stub();
		return 0;
	}
	arr = nvl_calloc(n, sizeof(*arr));
	if (!arr)
		return nvl_error(-ENOMEM, "syncobj: transfer: out of memory");
	/* dedup by context, keeping the later fence (as dma_fence_unwrap) */
	nvl_fence_unwrap_for_each(leaf, &cur, f)
	{
		unsigned j;

		if (!flatten_keeps(leaf, &cur, f))
			continue;
		for (j = 0; j < i; j++)
			if (arr[j]->context == leaf->context)
				break;
		if (j < i) {
			if (leaf != arr[j] &&
			    nvl_fence_is_later(leaf, arr[j])) {
				nvl_fence_put(arr[j]);
				arr[j] = nvl_fence_get(leaf);
			}
		} else if (i < n) {
			arr[i++] = nvl_fence_get(leaf);
		}
	}
	if (i == 1) {
		*out = arr[0];
		nvl_free(arr);
		return 0;
	}
	if (i == 0) { /* all signalled meanwhile */
		nvl_free(arr);
		*out = nvl_fence_get_stub();
		return 0;
	}
	if (nvl_fence_array_create(i, arr, nvl_fence_context_alloc(1), 1, false,
				   &a)) {
		while (i)
			nvl_fence_put(arr[--i]);
		nvl_free(arr);
		return nvl_error(-ENOMEM, "syncobj: transfer: out of memory "
					  "for a fence array");
	}
	*out = &a->base;
	return 0;
}

NVL_API int nvl_syncobj_transfer(struct nvl_client *client, uint32_t dst,
				 uint64_t dst_point, uint32_t src,
				 uint64_t src_point, uint32_t flags)
{
	struct nvl_fence_chain *chain = NULL;
	struct nvl_fence *f = NULL, *flat;
	struct nvl_syncobj *obj;
	int ret;

	if (!client)
		return nvl_error(-EINVAL, "syncobj: transfer with NULL client");
	if (flags & ~NVL_SYNCOBJ_WAIT_FOR_SUBMIT)
		return nvl_error(-EINVAL, "syncobj: transfer: bad flags %#x",
				 flags);
	obj = nvl_syncobj_find(client, dst);
	if (!obj)
		return nvl_error(-ENOENT, "syncobj: transfer: unknown dst %u",
				 dst);
	ret = nvl_syncobj_find_fence(client, src, src_point, flags, &f);
	if (ret)
		goto out;
	if (!dst_point) {
		nvl_syncobj_replace_fence(obj, f);
		goto out;
	}
	ret = flatten(f, &flat);
	if (ret)
		goto out;
	chain = nvl_fence_chain_alloc();
	if (!chain) {
		nvl_fence_put(flat);
		ret = nvl_error(-ENOMEM, "syncobj: transfer: out of memory "
					 "for a timeline point");
		goto out;
	}
	nvl_syncobj_add_point(obj, chain, flat, dst_point);
	nvl_fence_put(flat);
out:
	nvl_fence_put(f);
	nvl_syncobj_put(obj);
	return ret;
}

NVL_API int nvl_syncobj_handle_to_fd(struct nvl_client *client, uint32_t handle,
				     int *fd_out)
{
	struct nvl_syncobj *obj;
	int ret;

	if (!fd_out)
		return nvl_error(-EINVAL, "syncobj: handle_to_fd without fd");
	obj = nvl_syncobj_find(client, handle);
	if (!obj)
		return nvl_error(-EINVAL,
				 "syncobj: handle_to_fd: unknown "
				 "handle %u",
				 handle);
	ret = nvl_sync_file_export_syncobj(obj, fd_out);
	nvl_syncobj_put(obj);
	return ret;
}

NVL_API int nvl_syncobj_fd_to_handle(struct nvl_client *client, int fd,
				     uint32_t *handle_out)
{
	struct nvl_syncobj *obj;
	int ret;

	if (!client || !handle_out)
		return nvl_error(-EINVAL, "syncobj: fd_to_handle with NULL %s",
				 !client ? "client" : "handle_out");
	nvl_syncobj_register_kind();
	ret = nvl_sync_file_import_syncobj(fd, &obj);
	if (ret)
		return ret;
	return install_handle(client, obj, handle_out, "fd_to_handle");
}

NVL_API int nvl_syncobj_export_sync_file(struct nvl_client *client,
					 uint32_t handle, uint64_t point,
					 int *fd_out)
{
	struct nvl_syncobj *obj;
	struct nvl_fence *f;
	int ret;

	if (!client || !fd_out)
		return nvl_error(-EINVAL, "syncobj: export with NULL %s",
				 !client ? "client" : "fd_out");
	obj = nvl_syncobj_find(client, handle);
	if (!obj)
		return nvl_error(-ENOENT, "syncobj: export: unknown handle %u",
				 handle);
	ret = nvl_syncobj_resolve(obj, point, &f);
	nvl_syncobj_put(obj);
	if (ret)
		return nvl_error(-EINVAL,
				 "syncobj: export: handle %u point "
				 "%llu has no fence",
				 handle, (unsigned long long)point);
	ret = nvl_sync_file_export(f, fd_out);
	nvl_fence_put(f);
	return ret;
}

NVL_API int nvl_syncobj_import_sync_file(struct nvl_client *client,
					 uint32_t handle, uint64_t point,
					 int fd)
{
	struct nvl_fence_chain *chain = NULL;
	struct nvl_syncobj *obj;
	struct nvl_fence *f;
	int ret;

	if (!client)
		return nvl_error(-EINVAL, "syncobj: import with NULL client");
	ret = nvl_sync_file_import(fd, &f);
	if (ret)
		return ret;
	obj = nvl_syncobj_find(client, handle);
	if (!obj) {
		nvl_fence_put(f);
		return nvl_error(-ENOENT, "syncobj: import: unknown handle %u",
				 handle);
	}
	if (point) {
		struct nvl_fence *flat;

		/* never nest containers in a point: walks would multiply */
		ret = flatten(f, &flat);
		if (ret)
			goto out;
		chain = nvl_fence_chain_alloc();
		if (!chain) {
			nvl_fence_put(flat);
			ret = -ENOMEM;
			goto out;
		}
		nvl_syncobj_add_point(obj, chain, flat, point);
		nvl_fence_put(flat);
	} else {
		nvl_syncobj_replace_fence(obj, f);
	}
out:
	nvl_fence_put(f);
	nvl_syncobj_put(obj);
	return ret;
}

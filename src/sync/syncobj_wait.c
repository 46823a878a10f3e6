// SPDX-License-Identifier: MIT
/*
 * DOC: Syncobj waits
 *
 * Fast path: with the client's table lock held, every handle is looked up
 * and its fence flag peeked under the syncobj lock; when that decides the
 * call (all signalled for WAIT_ALL, any for wait-any, or an error) nothing
 * is allocated and no reference is taken.
 *
 * Fence path: when every entry already has its fence and the call waits
 * for all of them (WAIT_ALL, or one entry), wait on each fence's futex word
 * in turn: no callback, no lock for the signaller to hold while it wakes us.
 *
 * Slow path, with the kernel's rules: look up every handle (-ENOENT), snapshot
 * each entry's fence (binary fence, or the chain node covering the point);
 * an entry without one fails the call with -EINVAL unless WAIT_FOR_SUBMIT or
 * WAIT_AVAILABLE. Then loop: read a futex word, check every entry (arming a
 * fence callback or a submit waiter that bumps the word), decide, sleep until
 * the word moves or the absolute deadline passes (-ETIME). Entries waiting for
 * submission take the first fence that appears, under the syncobj's lock
 * (struct nvl_syncobj_waiter), so a reset right after does not take it away;
 * a reset (NULL) wakes no one. With WAIT_INTERRUPTIBLE a signal handler
 * running in the waiting thread ends the wait with -EINTR.
 */
#include <errno.h>

#include "base/alloc.h"
#include "base/log.h"
#include "sync/checker.h"
#include "sync/syncobj.h"
#include "sync/syncobj_priv.h"

#define WAIT_FLAGS                                                             \
	(NVL_SYNCOBJ_WAIT_ALL | NVL_SYNCOBJ_WAIT_FOR_SUBMIT |                  \
	 NVL_SYNCOBJ_WAIT_AVAILABLE | NVL_SYNCOBJ_WAIT_DEADLINE |              \
	 NVL_SYNCOBJ_WAIT_INTERRUPTIBLE)

/* See fence.c: an interruptible futex sleep needs a finite deadline. */
#define INTR_FOREVER_NS (INT64_MAX / 2)

struct waitq {
	_Atomic uint32_t seq;
};

struct wait_entry {
	struct nvl_syncobj *obj;
	struct nvl_fence *fence;
	uint64_t point;
	struct waitq *wq;
	struct nvl_fence_cb cb;
	struct nvl_syncobj_waiter sw;
	bool cb_added;
	bool sw_added;
	bool done;
};

enum peek { PEEK_DONE, PEEK_PENDING, PEEK_NOFENCE, PEEK_UNKNOWN };

/*
 * Lock-held peek at one entry; obj->lock taken briefly. A pending fence
 * is also returned in @ref with a reference, if @ref is given.
 */
static enum peek peek(struct nvl_syncobj *obj, uint64_t point, uint32_t flags,
		      struct nvl_fence **ref)
{
	enum peek p;
	struct nvl_fence *f;

	nvl_flock_lock(&obj->lock);
	f = obj->fence;
	if (!f)
		p = PEEK_NOFENCE;
	else if (point)
		p = (nvl_to_fence_chain(f) && f->seqno >= point &&
		     ((flags & NVL_SYNCOBJ_WAIT_AVAILABLE) ||
		      nvl_fence_test_signaled_flag(f)))
			    ? PEEK_DONE
			    : PEEK_UNKNOWN;
	else if ((flags & NVL_SYNCOBJ_WAIT_AVAILABLE) ||
		 nvl_fence_test_signaled_flag(f))
		p = PEEK_DONE;
	else
		p = PEEK_PENDING;
	if (p == PEEK_PENDING && ref)
		*ref = nvl_fence_get(f);
	nvl_flock_unlock(&obj->lock);
	return p;
}

/*
 * Return: 1 decided with *ret set, 0 needs the slow path. With @pending
 * given (one entry, no point), the fence the entry waits for is returned
 * there with a reference when it is pending (then 0): the caller waits on
 * it without looking the handle up again.
 */
static int fast_path(struct nvl_client *client, const uint32_t *handles,
		     const uint64_t *points, uint32_t count, uint32_t flags,
		     uint32_t *first_signaled, int *ret,
		     struct nvl_fence **pending)
{
	uint32_t first = UINT32_MAX, done = 0, unknown_at = UINT32_MAX;
	uint32_t nofence_at = UINT32_MAX;
	bool slow = false;

	nvl_client_lock(client);
	for (uint32_t i = 0; i < count; i++) {
		struct nvl_syncobj *obj = nvl_idr_find(
			&client->tables[NVL_HANDLE_SYNCOBJ], handles[i]);
		enum peek p;

		if (!obj) {
			unknown_at = i;
			break;
		}
		p = peek(obj, points ? points[i] : 0, flags, pending);
		if (p == PEEK_DONE) {
			done++;
			if (first == UINT32_MAX)
				first = i;
		} else if (p == PEEK_NOFENCE) {
			if (nofence_at == UINT32_MAX)
				nofence_at = i;
		} else if (p == PEEK_UNKNOWN) {
			slow = true;
		}
	}
	nvl_client_unlock(client);
	if (unknown_at != UINT32_MAX) {
		*ret = nvl_error(-ENOENT,
				 "syncobj: wait: unknown handle %u "
				 "(entry %u)",
				 handles[unknown_at], unknown_at);
		return 1;
	}
	/* no fence: -EINVAL whatever the other entries are (the kernel's
	 * first pass), also when a point entry needs the slow path */
	if (nofence_at != UINT32_MAX) {
		if (flags &
		    (NVL_SYNCOBJ_WAIT_FOR_SUBMIT | NVL_SYNCOBJ_WAIT_AVAILABLE))
			return 0;
		*ret = nvl_error(-EINVAL,
				 "syncobj: wait: handle %u (entry %u) "
				 "has no fence",
				 handles[nofence_at], nofence_at);
		return 1;
	}
	if (slow)
		return 0;
	if ((flags & NVL_SYNCOBJ_WAIT_ALL) ? done == count : done > 0) {
		if (!(flags & NVL_SYNCOBJ_WAIT_ALL) && first_signaled)
			*first_signaled = first;
		*ret = 0;
		return 1;
	}
	return 0;
}

static void wake_wq(struct waitq *wq)
{
	atomic_fetch_add(&wq->seq, 1);
	nvl_futex_wake_all(&wq->seq);
}

static void entry_fence_cb(struct nvl_fence *f, struct nvl_fence_cb *cb)
{
	wake_wq(container_of(cb, struct wait_entry, cb)->wq);
}

static void entry_submit_cb(struct nvl_syncobj_waiter *w)
{
	wake_wq(container_of(w, struct wait_entry, sw)->wq);
}

/*
 * Check one entry, arming wake-ups; true when it is done. An entry without
 * a fence registers a submit waiter, which captures the first fence that
 * covers its point under the syncobj lock: a reset right after does not
 * take it away.
 */
static bool entry_check(struct wait_entry *e, uint32_t flags)
{
	if (!e->fence) {
		if (!e->sw_added) {
			e->sw.point = e->point;
			nvl_syncobj_add_waiter(e->obj, &e->sw);
			e->sw_added = true;
		}
		e->fence = nvl_syncobj_waiter_take(e->obj, &e->sw);
		if (!e->fence)
			return false;
	}
	if (flags & NVL_SYNCOBJ_WAIT_AVAILABLE)
		return true;
	if (nvl_fence_is_signaled(e->fence))
		return true;
	if (!e->cb_added) {
		if (nvl_fence_add_callback(e->fence, &e->cb, entry_fence_cb))
			return true;
		e->cb_added = true;
	}
	return false;
}

static void entries_release(struct wait_entry *ents, uint32_t count)
{
	for (uint32_t i = 0; i < count; i++) {
		struct wait_entry *e = &ents[i];

		if (e->cb_added)
			nvl_fence_remove_callback(e->fence, &e->cb);
		if (e->sw_added)
			nvl_syncobj_remove_waiter(e->obj, &e->sw);
		nvl_fence_put(e->fence);
		nvl_syncobj_put(e->obj);
	}
	nvl_free(ents);
}

/* Does (@handle, @point) resolve to a fence now? */
static bool has_fence(struct nvl_client *client, uint32_t handle,
		      uint64_t point)
{
	struct nvl_syncobj *obj = nvl_syncobj_find(client, handle);
	struct nvl_fence *f = NULL;
	int r;

	if (!obj)
		return false;
	r = nvl_syncobj_resolve(obj, point, &f);
	nvl_syncobj_put(obj);
	nvl_fence_put(f);
	return !r;
}

/*
 * Every entry already has its fence and the call waits for all of them
 * (WAIT_ALL, or a single entry): wait on each fence's own futex word in
 * turn. No callback is armed, so the signaller never runs foreign code for
 * us under the fence's lock and the woken waiter has no lock to take back
 * (with a callback, the waiter woken from inside the signaller's callback
 * loop contends for that lock on its way out). Return 1 when it decided
 * the call (*@ret set), 0 when the general path must (an entry without a
 * fence).
 */
static int fences_path(struct nvl_client *client, const uint32_t *handles,
		       const uint64_t *points, uint32_t count,
		       int64_t abs_timeout_ns, uint32_t flags,
		       uint32_t *first_signaled, int *ret)
{
	uint32_t wf = (flags & NVL_SYNCOBJ_WAIT_INTERRUPTIBLE)
			      ? NVL_FENCE_WAIT_INTERRUPTIBLE
			      : 0;

	/*
	 * Every entry must have its fence before anything waits: an entry
	 * without one fails the call at once with -EINVAL (the kernel's
	 * first pass), not after the entries before it signalled or timed
	 * out. The general path decides that case. The fast path found a
	 * fence on every binary entry; a point may not be submitted yet.
	 */
	for (uint32_t i = 1; points && i < count; i++)
		if (points[i] && !has_fence(client, handles[i], points[i]))
			return 0;
	for (uint32_t i = 0; i < count; i++) {
		struct nvl_syncobj *obj = nvl_syncobj_find(client, handles[i]);
		struct nvl_fence *f = NULL;
		int r;

		/*
		 * An entry without a fence (or a handle gone meanwhile): the
		 * general path decides. The entries before it were waited
		 * for only if it lost its fence after the check above (a
		 * reset meanwhile).
		 */
		if (!obj)
			return 0;
		r = nvl_syncobj_resolve(obj, points ? points[i] : 0, &f);
		nvl_syncobj_put(obj);
		if (r || !f)
			return 0;
		if (flags & NVL_SYNCOBJ_WAIT_DEADLINE)
			nvl_fence_set_deadline(f, abs_timeout_ns);
		r = nvl_fence_wait_recorded(f, abs_timeout_ns, wf);
		nvl_fence_put(f);
		if (r == -EINTR) {
			*ret = nvl_error(-EINTR, "syncobj: wait interrupted "
						 "by a signal");
			return 1;
		}
		if (r) {
			*ret = -ETIME;
			return 1;
		}
	}
	if (!(flags & NVL_SYNCOBJ_WAIT_ALL) && first_signaled)
		*first_signaled = 0;
	*ret = 0;
	return 1;
}

static int slow_path(struct nvl_client *client, const uint32_t *handles,
		     const uint64_t *points, uint32_t count,
		     int64_t abs_timeout_ns, uint32_t flags,
		     uint32_t *first_signaled)
{
	bool any_missing = false;
	struct wait_entry *ents;
	struct waitq wq;
	int ret = 0;

	atomic_init(&wq.seq, 0);
	ents = nvl_calloc(count, sizeof(*ents));
	if (!ents)
		return nvl_error(-ENOMEM,
				 "syncobj: wait: out of memory for "
				 "%u entries",
				 count);
	for (uint32_t i = 0; i < count; i++) {
		ents[i].obj = nvl_syncobj_find(client, handles[i]);
		if (!ents[i].obj) {
			ret = nvl_error(-ENOENT,
					"syncobj: wait: unknown handle "
					"%u (entry %u)",
					handles[i], i);
			goto out;
		}
		ents[i].point = points ? points[i] : 0;
		ents[i].wq = &wq;
		ents[i].sw.func = entry_submit_cb;
	}
	for (uint32_t i = 0; i < count; i++) {
		if (nvl_syncobj_resolve(ents[i].obj, ents[i].point,
					&ents[i].fence) == 0)
			continue;
		any_missing = true;
		if (!(flags & (NVL_SYNCOBJ_WAIT_FOR_SUBMIT |
			       NVL_SYNCOBJ_WAIT_AVAILABLE))) {
			ret = nvl_error(-EINVAL,
					"syncobj: wait: handle %u "
					"point %llu (entry %u) has no "
					"fence",
					handles[i],
					(unsigned long long)ents[i].point, i);
			goto out;
		}
	}
	if (any_missing && (flags & NVL_SYNCOBJ_WAIT_FOR_SUBMIT))
		nvl_checker_assert_no_locks("syncobj WAIT_FOR_SUBMIT");
	if (flags & NVL_SYNCOBJ_WAIT_DEADLINE)
		for (uint32_t i = 0; i < count; i++)
			if (ents[i].fence)
				nvl_fence_set_deadline(ents[i].fence,
						       abs_timeout_ns);
	for (;;) {
		uint32_t seq = atomic_load(&wq.seq), ndone = 0;
		uint32_t first = UINT32_MAX;
		int64_t until = abs_timeout_ns;

		for (uint32_t i = 0; i < count; i++) {
			struct wait_entry *e = &ents[i];

			if (!e->done)
				e->done = entry_check(e, flags);
			if (e->done) {
				ndone++;
				if (first == UINT32_MAX)
					first = i;
			}
		}
		if ((flags & NVL_SYNCOBJ_WAIT_ALL) ? ndone == count
						   : ndone > 0) {
			if (!(flags & NVL_SYNCOBJ_WAIT_ALL) && first_signaled)
				*first_signaled = first;
			ret = 0;
			break;
		}
		if (abs_timeout_ns != NVL_TIMEOUT_INFINITE &&
		    nvl_time_ns() >= abs_timeout_ns) {
			ret = -ETIME;
			break;
		}
		if ((flags & NVL_SYNCOBJ_WAIT_INTERRUPTIBLE) &&
		    until == NVL_TIMEOUT_INFINITE)
			until = INTR_FOREVER_NS;
		if (nvl_futex_wait(&wq.seq, seq, until) == -EINTR &&
		    (flags & NVL_SYNCOBJ_WAIT_INTERRUPTIBLE)) {
			ret = nvl_error(-EINTR, "syncobj: wait interrupted by "
						"a signal");
			break;
		}
	}
out:
	entries_release(ents, count);
	return ret;
}

/* the fences path's wait for the one entry's pending fence @f (put here) */
static int wait_one(struct nvl_fence *f, int64_t abs_timeout_ns, uint32_t flags,
		    uint32_t *first_signaled)
{
	int r;

	if (flags & NVL_SYNCOBJ_WAIT_DEADLINE)
		nvl_fence_set_deadline(f, abs_timeout_ns);
	r = nvl_fence_wait_recorded(f, abs_timeout_ns,
				    (flags & NVL_SYNCOBJ_WAIT_INTERRUPTIBLE)
					    ? NVL_FENCE_WAIT_INTERRUPTIBLE
					    : 0);
	nvl_fence_put(f);
	if (r == -EINTR)
		return nvl_error(-EINTR, "syncobj: wait interrupted by a "
					 "signal");
	if (r)
		return -ETIME;
	if (!(flags & NVL_SYNCOBJ_WAIT_ALL) && first_signaled)
		*first_signaled = 0;
	return 0;
}

NVL_API NVL_HOT int nvl_syncobj_wait(struct nvl_client *client,
				     const uint32_t *handles,
				     const uint64_t *points, uint32_t count,
				     int64_t abs_timeout_ns, uint32_t flags,
				     uint32_t *first_signaled)
{
	struct nvl_fence *pending = NULL;
	bool one;
	int ret;

	if (!client)
		return nvl_error(-EINVAL, "syncobj: wait with NULL client");
	if (flags & ~WAIT_FLAGS)
		return nvl_error(-EINVAL, "syncobj: wait: unknown flags %#x",
				 flags & ~WAIT_FLAGS);
	if ((flags & NVL_SYNCOBJ_WAIT_AVAILABLE) && !points)
		return nvl_error(-EINVAL, "syncobj: wait: WAIT_AVAILABLE needs "
					  "timeline points");
	if (!count)
		return 0;
	if (!handles)
		return nvl_error(-EINVAL, "syncobj: wait with NULL handles");
	nvl_syncobj_register_kind();
	/* Recorded on entry, also for a wait decided at once (checker.h). */
	nvl_fence_wait_annotate_until(abs_timeout_ns);
	/* one entry without a point: its pending fence straight from the
	 * lookup (what the fences path would resolve) */
	one = count == 1 && !(points && points[0]) &&
	      !(flags & NVL_SYNCOBJ_WAIT_AVAILABLE);
	if (fast_path(client, handles, points, count, flags, first_signaled,
		      &ret, one ? &pending : NULL))
		return ret;
	if (pending)
		return wait_one(pending, abs_timeout_ns, flags, first_signaled);
	/* (a deadline hint goes to every fence before the wait: slow path) */
	if ((count == 1 || ((flags & NVL_SYNCOBJ_WAIT_ALL) &&
			    !(flags & NVL_SYNCOBJ_WAIT_DEADLINE))) &&
	    !(flags & NVL_SYNCOBJ_WAIT_AVAILABLE) &&
	    fences_path(client, handles, points, count, abs_timeout_ns, flags,
			first_signaled, &ret))
		return ret;
	return slow_path(client, handles, points, count, abs_timeout_ns, flags,
			 first_signaled);
}

/* SPDX-License-Identifier: MIT */
/*
 * Fences: one-shot completion events on a timeline (the kernel's dma_fence).
 *
 * A fence belongs to a context (a timeline, 64-bit id) and carries a seqno;
 * fences of one context signal in seqno order. A fence signals exactly once;
 * an error set before that is seen by every waiter. Callbacks run in the
 * signalling thread, inside a fence-signalling section (see checker.h): they
 * must not allocate, block or wait.
 *
 * Lifetime: whoever signals, waits or adds callbacks must hold a reference.
 */
#ifndef NVL_SYNC_FENCE_H
#define NVL_SYNC_FENCE_H

#include <stdatomic.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/list.h"
#include "base/refcount.h"
#include "base/time.h"
#include "sync/flock.h"

struct nvl_fence;
struct nvl_fence_cb;

/**
 * typedef nvl_fence_func_t - a fence callback.
 * @fence: the fence that signalled
 * @cb: the callback node that was registered (embed it, use container_of)
 *
 * Runs once, in the signalling thread, with the fence's callback lock held:
 * it may signal other fences or free @cb, but must not add or remove
 * callbacks on @fence itself.
 */
typedef void (*nvl_fence_func_t)(struct nvl_fence *fence,
				 struct nvl_fence_cb *cb);

/**
 * struct nvl_fence_cb - a callback node, embedded in the waiter's structure.
 * @node: link in the fence's callback list (self-linked when not queued)
 * @func: the function to run on signal
 */
struct nvl_fence_cb {
	struct nvl_list node;
	nvl_fence_func_t func;
};

/**
 * struct nvl_fence_ops - what a fence producer implements. Every op is
 * optional.
 */
struct nvl_fence_ops {
	/** @get_driver_name: producer name for debugging ("nvl_sched") */
	const char *(*get_driver_name)(struct nvl_fence *f);
	/** @get_timeline_name: timeline name for debugging */
	const char *(*get_timeline_name)(struct nvl_fence *f);
	/**
	 * @enable_signaling: called once, lazily, on the first add_callback,
	 * wait or enable_sw_signaling, without the fence's lock held. Return
	 * false when the fence is already complete (the core then signals
	 * it); may set an error only then.
	 */
	bool (*enable_signaling)(struct nvl_fence *f);
	/**
	 * @signaled: optional peek at completion; returning true makes
	 * nvl_fence_is_signaled() signal the fence.
	 */
	bool (*signaled)(struct nvl_fence *f);
	/** @set_deadline: a waiter would like completion by @deadline_ns */
	void (*set_deadline)(struct nvl_fence *f, int64_t deadline_ns);
	/**
	 * @release: free the fence after the last reference; NULL means
	 * nvl_free(f) (for fences allocated with nvl_malloc as the first
	 * member).
	 */
	void (*release)(struct nvl_fence *f);
};

/* Flag bits of nvl_fence.flags. */
enum nvl_fence_flag_bits {
	NVL_FENCE_FLAG_SIGNALED_BIT = 0,
	NVL_FENCE_FLAG_TIMESTAMP_BIT = 1,
	NVL_FENCE_FLAG_ENABLE_SIGNAL_BIT = 2,
	NVL_FENCE_FLAG_SEQNO64_BIT = 3,
	/* internal: a thread sleeps on the flags word */
	NVL_FENCE_FLAG_WAITERS_BIT = 4,
	/* internal: the callback list was used at least once */
	NVL_FENCE_FLAG_HAS_CB_BIT = 5,
	NVL_FENCE_FLAG_INITIALIZED_BIT = 6,
	/* first bit free for implementers (scheduler, drivers) */
	NVL_FENCE_FLAG_USER_BITS = 8,
};

/**
 * struct nvl_fence - a fence; embed it in a producer's structure.
 * @ops: producer ops
 * @context: timeline id (nvl_fence_context_alloc())
 * @seqno: position on the timeline
 * @flags: NVL_FENCE_FLAG_*; also the futex word waiters sleep on
 * @error: 0 or a negative errno, set before signalling
 * @refcount: references
 * @lock: protects @cb_list
 * @timestamp: when the fence signalled (read it with nvl_fence_timestamp();
 *             internal encoding in fence.c)
 * @cb_list: pending callbacks
 */
struct nvl_fence {
	const struct nvl_fence_ops *ops;
	uint64_t context;
	uint64_t seqno;
	_Atomic uint32_t flags;
	atomic_int error;
	struct nvl_kref refcount;
	struct nvl_flock lock;
	_Atomic int64_t timestamp;
	struct nvl_list cb_list;
};

/**
 * nvl_fence_context_alloc() - reserve @num consecutive timeline ids.
 * @num: how many
 *
 * Return: the first id (never 0, which belongs to the stub fence).
 */
uint64_t nvl_fence_context_alloc(unsigned num);

/**
 * nvl_fence_init() - initialise an embedded fence with one reference.
 * @f: the fence
 * @ops: producer ops (may be NULL for a plain software fence)
 * @context: timeline id
 * @seqno: position on the timeline; compared 32-bit wrap-aware
 */
void nvl_fence_init(struct nvl_fence *f, const struct nvl_fence_ops *ops,
		    uint64_t context, uint64_t seqno);

/**
 * nvl_fence_init64() - as nvl_fence_init(), with plain 64-bit seqno order.
 * @f: the fence
 * @ops: producer ops
 * @context: timeline id
 * @seqno: position on the timeline
 */
void nvl_fence_init64(struct nvl_fence *f, const struct nvl_fence_ops *ops,
		      uint64_t context, uint64_t seqno);

/**
 * nvl_fence_create() - allocate a plain software fence (signalled with
 * nvl_fence_signal()).
 * @f_out: the fence, one reference
 * @context: timeline id
 * @seqno: position on the timeline
 *
 * Return: 0, or -ENOMEM.
 */
int nvl_fence_create(struct nvl_fence **f_out, uint64_t context,
		     uint64_t seqno) NVL_MUST_CHECK;

/**
 * nvl_fence_get() - take a reference.
 * @f: the fence, may be NULL
 *
 * Return: @f.
 */
static inline struct nvl_fence *nvl_fence_get(struct nvl_fence *f)
{
	if (f)
		nvl_kref_get(&f->refcount);
	return f;
}

/**
 * nvl_fence_put() - drop a reference; the last one releases the fence. An
 * unsignalled fence released with callbacks queued is signalled with
 * -EDEADLK first (with a warning) so its waiters are not stranded. The
 * sole holder frees without an atomic decrement, so fences support no weak
 * (get_unless_zero) references.
 * @f: the fence, may be NULL
 */
void nvl_fence_put(struct nvl_fence *f);

/**
 * nvl_fence_signal() - signal @f now: wake waiters, run callbacks.
 * @f: the fence (caller holds a reference)
 *
 * A fence-signalling section by itself.
 * Return: 0, or -EALREADY when @f had already signalled (nothing done).
 */
int nvl_fence_signal(struct nvl_fence *f);

/**
 * nvl_fence_signal_timestamp() - nvl_fence_signal() with a given timestamp.
 * @f: the fence
 * @timestamp_ns: CLOCK_MONOTONIC ns to record as the signalling time (>= 0)
 *
 * Return: 0, -EALREADY (another signaller won: its timestamp stays), or
 * -EINVAL (NULL @f, negative @timestamp_ns; nothing done).
 */
int nvl_fence_signal_timestamp(struct nvl_fence *f, int64_t timestamp_ns);

/**
 * nvl_fence_set_error() - record an error before signalling.
 * @f: the fence, not yet signalled
 * @err: a negative errno (>= -4095)
 *
 * Ignored with a warning after signalling or for a bad @err.
 */
void nvl_fence_set_error(struct nvl_fence *f, int err);

/**
 * nvl_fence_get_status() - completion state.
 * @f: the fence
 *
 * Return: 0 pending, 1 signalled without error, or the negative error.
 */
int nvl_fence_get_status(struct nvl_fence *f);

/**
 * nvl_fence_test_signaled_flag() - has @f signalled (flag only, no ops)?
 * @f: the fence
 *
 * Return: true once signalled.
 */
static inline bool nvl_fence_test_signaled_flag(struct nvl_fence *f)
{
	return atomic_load_explicit(&f->flags, memory_order_acquire) &
	       (1u << NVL_FENCE_FLAG_SIGNALED_BIT);
}

/**
 * nvl_fence_is_signaled() - has @f signalled? Polls ops->signaled and
 * signals @f when it reports completion.
 * @f: the fence
 *
 * Return: true once signalled.
 */
bool nvl_fence_is_signaled(struct nvl_fence *f);

/**
 * nvl_fence_timestamp() - when @f signalled.
 * @f: a signalled fence
 *
 * The time of the signaller that won (concurrent losers record nothing);
 * every read returns the same value (a raw TSC stamp is converted once, by
 * the first reader).
 *
 * Return: CLOCK_MONOTONIC ns, or 0 when @f has not signalled.
 */
int64_t nvl_fence_timestamp(struct nvl_fence *f);

/**
 * nvl_fence_timestamp_nowait() - nvl_fence_timestamp() for a signalling
 * path: never waits for a stamp still being stored.
 * @f: the fence
 *
 * Return: CLOCK_MONOTONIC ns, or INT64_MAX when @f has not signalled or its
 * signaller has not stored its stamp yet (it is signalling right now).
 */
int64_t nvl_fence_timestamp_nowait(struct nvl_fence *f);

/**
 * nvl_fence_add_callback() - run @func when @f signals.
 * @f: the fence
 * @cb: the callback node (not queued elsewhere)
 * @func: the callback
 *
 * Return: 0 queued; -ENOENT when @f already signalled (@func is NOT run;
 * @cb is left self-linked); -EINVAL on NULL arguments.
 */
int nvl_fence_add_callback(struct nvl_fence *f, struct nvl_fence_cb *cb,
			   nvl_fence_func_t func);

/**
 * nvl_fence_remove_callback() - unqueue @cb.
 * @f: the fence it was added to
 * @cb: the callback node
 *
 * Return: true when @cb was still queued (it will not run), false when it
 * already ran (or was never queued).
 */
bool nvl_fence_remove_callback(struct nvl_fence *f, struct nvl_fence_cb *cb);

/**
 * nvl_fence_enable_sw_signaling() - call ops->enable_signaling now.
 * @f: the fence
 */
void nvl_fence_enable_sw_signaling(struct nvl_fence *f);

/**
 * nvl_fence_wait() - wait for @f to signal.
 * @f: the fence
 * @timeout_ns: relative timeout; 0 polls; NVL_TIMEOUT_INFINITE waits forever
 *
 * Return: 0 signalled (check nvl_fence_get_status() for an error), -ETIME on
 * expiry, -EINVAL for a NULL fence or a negative timeout.
 */
int nvl_fence_wait(struct nvl_fence *f, int64_t timeout_ns);

/**
 * nvl_fence_wait_until() - wait for @f up to an absolute deadline.
 * @f: the fence
 * @abs_ns: CLOCK_MONOTONIC deadline; in the past polls; NVL_TIMEOUT_INFINITE
 *
 * Return: 0 signalled, -ETIME on expiry, -EINVAL for a NULL fence.
 */
int nvl_fence_wait_until(struct nvl_fence *f, int64_t abs_ns);

/**
 * NVL_FENCE_WAIT_INTERRUPTIBLE - a signal handler running in the waiting
 * thread ends the wait with -EINTR (the kernel's "intr" waits; the fence is
 * left as it was: no callback stays queued, nothing is signalled).
 */
#define NVL_FENCE_WAIT_INTERRUPTIBLE (1u << 0)

/**
 * nvl_fence_wait_flags() - nvl_fence_wait_until() with flags.
 * @f: the fence
 * @abs_ns: CLOCK_MONOTONIC deadline; in the past polls; NVL_TIMEOUT_INFINITE
 * @flags: 0 or NVL_FENCE_WAIT_INTERRUPTIBLE
 *
 * Return: 0 signalled, -ETIME on expiry, -EINTR interrupted by a signal
 * (INTERRUPTIBLE only), -EINVAL unknown flags.
 */
int nvl_fence_wait_flags(struct nvl_fence *f, int64_t abs_ns, uint32_t flags);

/**
 * nvl_fence_wait_recorded() - nvl_fence_wait_flags() for a caller that has
 * recorded this very wait already
 * @f: the fence
 * @abs_ns: as nvl_fence_wait_flags(); the deadline the caller passed to
 * nvl_fence_wait_annotate_until() on this thread before it
 * @flags: 0 or NVL_FENCE_WAIT_INTERRUPTIBLE
 *
 * The same wait without its second, identical annotation (the checker's
 * edges and reports are recorded once): for nvl_syncobj_wait(), which
 * records every wait on entry, also one decided at once.
 *
 * Return: as nvl_fence_wait_flags().
 */
int nvl_fence_wait_recorded(struct nvl_fence *f, int64_t abs_ns,
			    uint32_t flags);

/**
 * nvl_fence_wait_any() - wait until one of @fences signals and say which
 * (the kernel's dma_fence_wait_any_timeout()).
 * @fences: @count fences (references held by the caller)
 * @count: > 0
 * @abs_ns: CLOCK_MONOTONIC deadline; in the past polls; NVL_TIMEOUT_INFINITE
 * @flags: 0 or NVL_FENCE_WAIT_INTERRUPTIBLE
 * @idx_out: may be NULL; the lowest index found signalled
 *
 * Allocates one callback per fence when more than 8 fences are passed:
 * never call it from a signalling path.
 *
 * Return: 0 (*@idx_out set), -ETIME on expiry, -EINTR interrupted,
 * -EINVAL (no fences, a NULL fence, unknown flags), -ENOMEM.
 */
int nvl_fence_wait_any(struct nvl_fence *const *fences, uint32_t count,
		       int64_t abs_ns, uint32_t flags, uint32_t *idx_out);

/**
 * nvl_fence_set_deadline() - hint the producer that completion is wanted by
 * @deadline_ns (absolute). Ignored once signalled.
 * @f: the fence
 * @deadline_ns: CLOCK_MONOTONIC ns
 */
void nvl_fence_set_deadline(struct nvl_fence *f, int64_t deadline_ns);

/**
 * nvl_fence_get_stub() - the global always-signalled fence (context 0).
 *
 * Return: the stub, with a reference.
 */
struct nvl_fence *nvl_fence_get_stub(void);

/**
 * nvl_fence_seqno_is_later() - @s1 later than @s2 on @f's timeline?
 * @f: a fence of the timeline (decides 32-bit or 64-bit order)
 * @s1: seqno
 * @s2: seqno
 *
 * Return: true when @s1 is later.
 */
static inline bool nvl_fence_seqno_is_later(const struct nvl_fence *f,
					    uint64_t s1, uint64_t s2)
{
	if (atomic_load_explicit(&((struct nvl_fence *)f)->flags,
				 memory_order_relaxed) &
	    (1u << NVL_FENCE_FLAG_SEQNO64_BIT))
		return s1 > s2;
	return (int32_t)((uint32_t)s1 - (uint32_t)s2) > 0;
}

/**
 * nvl_fence_is_later() - is @a later than @b? Both must share a context
 * (warns and answers false otherwise).
 * @a: fence
 * @b: fence
 *
 * Return: true when @a is later.
 */
bool nvl_fence_is_later(struct nvl_fence *a, struct nvl_fence *b);

/**
 * nvl_fence_is_later_or_same() - nvl_fence_is_later() or the same seqno.
 * @a: fence
 * @b: fence
 *
 * Return: true when @a is later or the same point.
 */
bool nvl_fence_is_later_or_same(struct nvl_fence *a, struct nvl_fence *b);

/**
 * nvl_fence_driver_name() - ops->get_driver_name or "nvl".
 * @f: the fence
 *
 * Return: a string.
 */
const char *nvl_fence_driver_name(struct nvl_fence *f);

/**
 * nvl_fence_timeline_name() - ops->get_timeline_name or "unbound".
 * @f: the fence
 *
 * Return: a string.
 */
const char *nvl_fence_timeline_name(struct nvl_fence *f);

/* ---- internal: deferred work run at the end of the outermost signal ---- */

/**
 * struct nvl_fence_work - work queued from a callback to run after the
 * current signal completes (avoids recursion and lock nesting).
 * @next: link
 * @fn: the work
 */
struct nvl_fence_work {
	struct nvl_fence_work *next;
	void (*fn)(struct nvl_fence_work *w);
};

/**
 * nvl_fence_defer() - run @w after the outermost nvl_fence_signal() of this
 * thread returns from its callbacks (or now, when not signalling).
 * @w: the work, not queued
 */
void nvl_fence_defer(struct nvl_fence_work *w);

#endif /* NVL_SYNC_FENCE_H */

/* SPDX-License-Identifier: MIT */
/*
 * Reservation objects (the kernel's dma_resv): a per-buffer container of
 * fences, each tagged with a usage, behind a wound/wait mutex.
 *
 * Usage order KERNEL < WRITE < READ < BOOKKEEP; asking at level U returns
 * every fence whose usage is <= U. Adding a fence of a context replaces an
 * older fence of that context with the same or a "higher" usage, and
 * recycles signalled entries. Writers hold the lock and reserve slots first
 * (nvl_resv_reserve_fences() may allocate), so nvl_resv_add_fence() never
 * fails and never allocates (it runs inside signalling sections).
 * Reservations lapse on unlock. Readers (get_fences, test_signaled, wait) do
 * not need the lock.
 *
 * Never store a container (array, chain) in a resv.
 */
#ifndef NVL_SYNC_RESV_H
#define NVL_SYNC_RESV_H

#include "base/compiler.h"
#include "sync/fence.h"
#include "sync/flock.h"
#include "sync/ww_mutex.h"

/** enum nvl_resv_usage - how a fence uses the buffer, in wait order. */
enum nvl_resv_usage {
	/** @NVL_RESV_USAGE_KERNEL: memory management (moves, clears) */
	NVL_RESV_USAGE_KERNEL = 0,
	/** @NVL_RESV_USAGE_WRITE: implicit-sync writers */
	NVL_RESV_USAGE_WRITE = 1,
	/** @NVL_RESV_USAGE_READ: implicit-sync readers */
	NVL_RESV_USAGE_READ = 2,
	/** @NVL_RESV_USAGE_BOOKKEEP: no implicit sync (explicit sync, PT) */
	NVL_RESV_USAGE_BOOKKEEP = 3,
};

/**
 * nvl_resv_usage_rw() - the usage a new access waits for.
 * @write: a new writer (waits for readers and writers) or reader (writers)
 *
 * Return: READ for a writer, WRITE for a reader.
 */
static inline enum nvl_resv_usage nvl_resv_usage_rw(bool write)
{
	return write ? NVL_RESV_USAGE_READ : NVL_RESV_USAGE_WRITE;
}

/** struct nvl_resv_entry - one fence slot. */
struct nvl_resv_entry {
	struct nvl_fence *fence;
	enum nvl_resv_usage usage;
};

/**
 * struct nvl_resv - a reservation object; embed it.
 * @lock: the wound/wait mutex writers hold
 * @flock: protects @fences/@num/@max against lock-free readers
 * @fences: slots
 * @num: used slots (only grows; written with a release store, so
 *        nvl_resv_get_fences() may read 0 without @flock)
 * @max: allocated slots
 * @usable: slots add_fence may use under the current lock hold
 */
struct nvl_resv {
	struct nvl_ww_mutex lock;
	struct nvl_flock flock;
	struct nvl_resv_entry *fences;
	unsigned num;
	unsigned max;
	unsigned usable;
};

/** nvl_resv_init() - an empty, unlocked resv. @resv: the resv */
void nvl_resv_init(struct nvl_resv *resv);

/** nvl_resv_fini() - drop every fence; @resv must be unlocked. @resv: it */
void nvl_resv_fini(struct nvl_resv *resv);

/**
 * nvl_resv_lock() - take the resv lock.
 * @resv: the resv
 * @ctx: acquire context for multi-object locking, or NULL
 *
 * Return: 0; -EDEADLK (back off, nvl_resv_lock_slow(), retry); -EALREADY
 * when @ctx already holds it.
 */
static inline NVL_MUST_CHECK int nvl_resv_lock(struct nvl_resv *resv,
					       struct nvl_ww_acquire_ctx *ctx)
{
	/* inline: a call level fewer on every exec's two resvs (issue 15) */
	return nvl_ww_mutex_lock(&resv->lock, ctx);
}

/**
 * nvl_resv_lock_slow() - take the contended lock after backing off.
 * @resv: the resv
 * @ctx: acquire context (holding nothing)
 */
void nvl_resv_lock_slow(struct nvl_resv *resv, struct nvl_ww_acquire_ctx *ctx);

/**
 * nvl_resv_trylock() - take the lock if free.
 * @resv: the resv
 *
 * Return: true when taken.
 */
bool nvl_resv_trylock(struct nvl_resv *resv);

/** nvl_resv_unlock() - release; unused reservations lapse. @resv: the resv */
static inline void nvl_resv_unlock(struct nvl_resv *resv)
{
	resv->usable = resv->num;
	nvl_ww_mutex_unlock(&resv->lock);
}

/** nvl_resv_not_held() - nvl_resv_assert_held()'s complaint. @resv: it */
void nvl_resv_not_held(struct nvl_resv *resv);

/**
 * nvl_resv_assert_held() - complain (debug assert) unless the caller holds
 * the lock.
 * @resv: the resv
 */
static inline void nvl_resv_assert_held(struct nvl_resv *resv)
{
	/* inline: every locked resv call checks it (issue 15) */
	if (NVL_NEVER(!nvl_ww_mutex_held_by_me(&resv->lock)))
		nvl_resv_not_held(resv);
}

/**
 * nvl_resv_acquire_init() - start a multi-resv transaction.
 * @ctx: the context
 */
void nvl_resv_acquire_init(struct nvl_ww_acquire_ctx *ctx);

/**
 * nvl_resv_reserve_fences() - make room so that @num add_fence calls cannot
 * fail. Lock held.
 * @resv: the resv
 * @num: slots wanted
 *
 * Return: 0 or -ENOMEM (nothing changed).
 */
int nvl_resv_reserve_fences(struct nvl_resv *resv, unsigned num) NVL_MUST_CHECK;

/**
 * nvl_resv_add_fence() - add @fence with @usage (takes a reference); lock
 * held, a slot reserved. Replaces an older fence of the same context with
 * usage >= @usage, or a signalled entry.
 * @resv: the resv
 * @fence: a plain fence (not an array or chain)
 * @usage: its usage
 *
 * Never allocates. Misuse is refused in every build (debug and release),
 * with nvl_last_error() set, and changes nothing: with the lock held and
 * a slot reserved it cannot fail.
 *
 * Return: 0; -EPERM when the caller does not hold the lock; -ENOSPC when
 * no slot was reserved under this lock hold (nvl_resv_reserve_fences());
 * -EINVAL for a NULL argument, a container fence or a bad usage.
 */
int nvl_resv_add_fence(struct nvl_resv *resv, struct nvl_fence *fence,
		       enum nvl_resv_usage usage);

/**
 * nvl_resv_replace_fences() - replace every fence of @context with
 * @replacement at @usage (e.g. a preemption fence by a page-table fence).
 * Lock held; never allocates.
 * @resv: the resv
 * @context: the context whose fences go
 * @replacement: the new fence (a reference taken per slot replaced): a
 *               plain fence (not an array or chain), as for add_fence
 * @usage: its usage
 *
 * Misuse is refused, with nvl_last_error() set, and changes nothing.
 *
 * Return: 0 (also when no fence of @context is there); -EINVAL for a NULL
 * argument, a container fence or a bad usage; -EPERM when the caller does
 * not hold the lock.
 */
int nvl_resv_replace_fences(struct nvl_resv *resv, uint64_t context,
			    struct nvl_fence *replacement,
			    enum nvl_resv_usage usage) NVL_MUST_CHECK;

/**
 * struct nvl_resv_iter - cursor of nvl_resv_for_each_fence().
 * @resv: the resv
 * @usage: maximum usage
 * @index: next slot
 * @fence_usage: usage of the fence last returned
 */
struct nvl_resv_iter {
	struct nvl_resv *resv;
	enum nvl_resv_usage usage;
	unsigned index;
	enum nvl_resv_usage fence_usage;
};

/**
 * nvl_resv_iter_next() - continue a locked iteration.
 * @it: the cursor
 *
 * Return: the next fence, or NULL at the end.
 */
static inline struct nvl_fence *nvl_resv_iter_next(struct nvl_resv_iter *it)
{
	struct nvl_resv *resv = it->resv;

	while (it->index < resv->num) {
		struct nvl_resv_entry *e = &resv->fences[it->index++];

		if (e->usage <= it->usage) {
			it->fence_usage = e->usage;
			return e->fence;
		}
	}
	return NULL;
}

/**
 * nvl_resv_iter_first() - start a locked iteration (lock held).
 * @it: the cursor
 * @resv: the resv
 * @usage: maximum usage
 *
 * Return: the first fence (no reference taken), or NULL.
 *
 * Inline, as the step: an exec walks two resvs that hold no KERNEL fence.
 */
static inline struct nvl_fence *nvl_resv_iter_first(struct nvl_resv_iter *it,
						    struct nvl_resv *resv,
						    enum nvl_resv_usage usage)
{
	nvl_resv_assert_held(resv);
	it->resv = resv;
	it->usage = usage;
	it->index = 0;
	return nvl_resv_iter_next(it);
}

/**
 * nvl_resv_for_each_fence() - iterate (lock held) the fences with usage
 * <= @usage_; @cursor is a struct nvl_resv_iter *.
 */
#define nvl_resv_for_each_fence(cursor, resv_, usage_, fence)                  \
	for ((fence) = nvl_resv_iter_first((cursor), (resv_), (usage_));       \
	     (fence); (fence) = nvl_resv_iter_next(cursor))

/**
 * nvl_resv_get_fences() - snapshot the fences with usage <= @usage (no lock
 * needed); each array entry holds a reference.
 * @resv: the resv
 * @usage: maximum usage
 * @num_out: how many
 * @fences_out: nvl_malloc'd array (NULL when none); put each, nvl_free it
 *
 * Return: 0, -ENOMEM, or -EINVAL for a NULL argument or a bad usage
 * (nothing taken; *@num_out 0 and *@fences_out NULL when they exist).
 */
int nvl_resv_get_fences(struct nvl_resv *resv, enum nvl_resv_usage usage,
			unsigned *num_out,
			struct nvl_fence ***fences_out) NVL_MUST_CHECK;

/**
 * nvl_resv_get_singleton() - one fence for everything at @usage: NULL when
 * none, the fence itself when one, else a signal-on-all fence array.
 * @resv: the resv
 * @usage: maximum usage
 * @fence_out: the fence (reference) or NULL
 *
 * Return: 0, -ENOMEM, or -EINVAL as nvl_resv_get_fences().
 */
int nvl_resv_get_singleton(struct nvl_resv *resv, enum nvl_resv_usage usage,
			   struct nvl_fence **fence_out) NVL_MUST_CHECK;

/**
 * nvl_resv_test_signaled() - are all fences with usage <= @usage signalled?
 * @resv: the resv
 * @usage: maximum usage
 *
 * Return: 1 when all signalled, 0 when one is pending, -EINVAL for a NULL
 * resv or a bad usage (with nvl_last_error() set): test for > 0, as a bad
 * query is no answer.
 */
int nvl_resv_test_signaled(struct nvl_resv *resv,
			   enum nvl_resv_usage usage) NVL_MUST_CHECK;

/**
 * nvl_resv_wait() - wait for the fences with usage <= @usage.
 * @resv: the resv
 * @usage: maximum usage
 * @timeout_ns: relative; 0 polls; NVL_TIMEOUT_INFINITE
 *
 * Return: 0, -ETIME on expiry, -EINVAL for a negative timeout, a NULL
 * resv or a bad usage.
 */
int nvl_resv_wait(struct nvl_resv *resv, enum nvl_resv_usage usage,
		  int64_t timeout_ns);

#endif /* NVL_SYNC_RESV_H */

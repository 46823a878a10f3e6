// SPDX-License-Identifier: MIT
/*
 * DOC: Reservation objects
 *
 * Writers hold the ww mutex; the slot array is additionally guarded by a
 * tiny leaf lock (flock) so that readers (get_fences, test_signaled, wait)
 * never take the ww mutex and never block behind a long-held reservation.
 * Readers take references under the flock and wait outside it.
 *
 * Capacity: reserve_fences() grows the array (allocating, outside the flock)
 * and sets `usable` = slots add_fence may fill under this lock hold; unlock
 * resets `usable` to the used count, so a forgotten reservation is caught
 * the next time (NVL_NEVER + an error log) instead of silently allocating in
 * a signalling section.
 */
#include <errno.h>

#include "base/alloc.h"
#include "base/log.h"
#include "sync/checker.h"
#include "sync/fence_array.h"
#include "sync/fence_chain.h"
#include "sync/resv.h"

void nvl_resv_init(struct nvl_resv *resv)
{
	nvl_ww_mutex_init(&resv->lock, &nvl_resv_lock_class);
	nvl_flock_init(&resv->flock);
	resv->fences = NULL;
	resv->num = resv->max = resv->usable = 0;
}

void nvl_resv_fini(struct nvl_resv *resv)
{
	for (unsigned i = 0; i < resv->num; i++)
		nvl_fence_put(resv->fences[i].fence);
	nvl_free(resv->fences);
	resv->fences = NULL;
	resv->num = resv->max = resv->usable = 0;
	nvl_ww_mutex_destroy(&resv->lock);
}

NVL_HOT void nvl_resv_acquire_init(struct nvl_ww_acquire_ctx *ctx)
{
	nvl_ww_acquire_init(ctx, &nvl_resv_lock_class);
}

void nvl_resv_lock_slow(struct nvl_resv *resv, struct nvl_ww_acquire_ctx *ctx)
{
	nvl_ww_mutex_lock_slow(&resv->lock, ctx);
}

bool nvl_resv_trylock(struct nvl_resv *resv)
{
	return nvl_ww_mutex_trylock(&resv->lock, NULL);
}

/* the complaint of nvl_resv_assert_held() (inline in resv.h) */
void nvl_resv_not_held(struct nvl_resv *resv)
{
	nvl_err(NVL_CAT_SYNC, "resv %p: used without holding its lock",
		(void *)resv);
}

/* nvl_resv_reserve_fences() beyond the array's capacity: grow it */
static __attribute__((noinline)) int resv_grow(struct nvl_resv *resv,
					       unsigned num, unsigned want)
{
	struct nvl_resv_entry *n, *old;
	unsigned cap;

	cap = NVL_MAX(want, resv->max * 2);
	cap = NVL_MAX(cap, 4u);
	n = nvl_calloc(cap, sizeof(*n));
	if (!n)
		return nvl_error(-ENOMEM,
				 "resv: out of memory reserving %u "
				 "fence slots",
				 num);
	nvl_flock_lock(&resv->flock);
	for (unsigned i = 0; i < resv->num; i++)
		n[i] = resv->fences[i];
	old = resv->fences;
	resv->fences = n;
	resv->max = cap;
	nvl_flock_unlock(&resv->flock);
	resv->usable = want;
	nvl_free(old);
	return 0;
}

NVL_HOT int nvl_resv_reserve_fences(struct nvl_resv *resv, unsigned num)
{
	unsigned want;

	nvl_resv_assert_held(resv);
	if (__builtin_add_overflow(resv->num, num, &want))
		return nvl_error(-ENOMEM, "resv: reserving %u slots overflows",
				 num);
	/* the usual case (room in the array) without a stack frame */
	if (likely(want <= resv->max)) {
		if (want > resv->usable)
			resv->usable = want;
		return 0;
	}
	return resv_grow(resv, num, want);
}

static int check_usage(enum nvl_resv_usage usage, const char *what)
{
	if (unlikely((unsigned)usage > NVL_RESV_USAGE_BOOKKEEP))
		return nvl_error(-EINVAL, "resv: %s: bad usage %d", what,
				 (int)usage);
	return 0;
}

/*
 * What storing @f in @resv needs (add_fence, replace_fences): both there,
 * a known usage, no container, and @resv's lock held by the caller
 * (checked in release builds too: the caller gets an error)
 */
static inline int check_store(struct nvl_resv *resv, struct nvl_fence *f,
			      enum nvl_resv_usage usage, const char *op,
			      const char *fname)
{
	int ret;

	if (unlikely(!resv || !f))
		return nvl_error(-EINVAL, "resv: %s with NULL %s", op,
				 !resv ? "resv" : fname);
	ret = check_usage(usage, op);
	if (unlikely(ret))
		return ret;
	if (unlikely(nvl_fence_is_array(f) || nvl_to_fence_chain(f)))
		return nvl_error(-EINVAL,
				 "resv: %s: containers cannot be stored", op);
	if (unlikely(!nvl_ww_mutex_held_by_me(&resv->lock)))
		return nvl_error(-EPERM, "resv %p: %s without holding its lock",
				 (void *)resv, op);
	return 0;
}

NVL_HOT int nvl_resv_add_fence(struct nvl_resv *resv, struct nvl_fence *fence,
			       enum nvl_resv_usage usage)
{
	struct nvl_fence *old = NULL;
	unsigned i;
	int ret;

	ret = check_store(resv, fence, usage, "add_fence", "fence");
	if (ret)
		return ret;
	nvl_fence_get(fence);
	nvl_flock_lock(&resv->flock);
	for (i = 0; i < resv->num; i++) {
		struct nvl_resv_entry *e = &resv->fences[i];

		/* a signalled entry first: one load, and the usual case (the
		 * previous exec's fence) without the ordering call */
		if (nvl_fence_test_signaled_flag(e->fence) ||
		    (e->fence->context == fence->context && e->usage >= usage &&
		     nvl_fence_is_later_or_same(fence, e->fence))) {
			old = e->fence;
			e->fence = fence;
			e->usage = usage;
			break;
		}
	}
	if (i == resv->num) {
		if (resv->num >= resv->usable || resv->num >= resv->max) {
			nvl_flock_unlock(&resv->flock);
			nvl_fence_put(fence);
			return nvl_error(-ENOSPC,
					 "resv: add_fence without a reserved "
					 "slot: fence %llu:%llu not added",
					 (unsigned long long)fence->context,
					 (unsigned long long)fence->seqno);
		}
		resv->fences[resv->num].fence = fence;
		resv->fences[resv->num].usage = usage;
		/* after the entry: nvl_resv_get_fences() peeks without flock */
		__atomic_store_n(&resv->num, resv->num + 1, __ATOMIC_RELEASE);
	}
	nvl_flock_unlock(&resv->flock);
	nvl_fence_put(old);
	return 0;
}

/* a usage of enum nvl_resv_usage, else an error for @what */
int nvl_resv_replace_fences(struct nvl_resv *resv, uint64_t context,
			    struct nvl_fence *replacement,
			    enum nvl_resv_usage usage)
{
	int ret;

	ret = check_store(resv, replacement, usage, "replace_fences",
			  "replacement");
	if (ret)
		return ret;
	for (unsigned i = 0; i < resv->num; i++) {
		struct nvl_resv_entry *e = &resv->fences[i];
		struct nvl_fence *old;

		if (e->fence->context != context)
			continue;
		nvl_fence_get(replacement);
		nvl_flock_lock(&resv->flock);
		old = e->fence;
		e->fence = replacement;
		e->usage = usage;
		nvl_flock_unlock(&resv->flock);
		nvl_fence_put(old);
	}
	return 0;
}

int nvl_resv_get_fences(struct nvl_resv *resv, enum nvl_resv_usage usage,
			unsigned *num_out, struct nvl_fence ***fences_out)
{
	struct nvl_fence **arr = NULL;
	unsigned cap = 0, n;
	int ret;

	if (unlikely(!num_out || !fences_out))
		return nvl_error(-EINVAL, "resv: get_fences: NULL output");
	*num_out = 0;
	*fences_out = NULL;
	if (unlikely(!resv))
		return nvl_error(-EINVAL, "resv: get_fences: NULL resv");
	ret = check_usage(usage, "get_fences");
	if (ret)
		return ret;
	/*
	 * A resv that never held a fence (entries are recycled, never
	 * removed, so num only grows) answers without the flock: the
	 * snapshot is the same as one taken under it at this instant, and a
	 * bind of such a BO no longer pays two locked instructions for it
	 * (issue 19).
	 */
	if (!__atomic_load_n(&resv->num, __ATOMIC_ACQUIRE))
		return 0;
	for (;;) {
		unsigned need = 0;

		nvl_flock_lock(&resv->flock);
		for (unsigned i = 0; i < resv->num; i++)
			need += resv->fences[i].usage <= usage;
		if (need <= cap) {
			n = 0;
			for (unsigned i = 0; i < resv->num; i++)
				if (resv->fences[i].usage <= usage)
					arr[n++] = nvl_fence_get(
						resv->fences[i].fence);
			nvl_flock_unlock(&resv->flock);
			break;
		}
		nvl_flock_unlock(&resv->flock);
		nvl_free(arr);
		cap = need;
		arr = nvl_calloc(cap, sizeof(*arr));
		if (!arr) {
			return nvl_error(-ENOMEM,
					 "resv: out of memory for a "
					 "%u-fence snapshot",
					 cap);
		}
	}
	if (!n) {
		nvl_free(arr);
		arr = NULL;
	}
	*num_out = n;
	*fences_out = arr;
	return 0;
}

int nvl_resv_get_singleton(struct nvl_resv *resv, enum nvl_resv_usage usage,
			   struct nvl_fence **fence_out)
{
	struct nvl_fence_array *array;
	struct nvl_fence **fences;
	unsigned n;
	int ret;

	if (!fence_out)
		return nvl_error(-EINVAL, "resv: get_singleton: NULL output");
	*fence_out = NULL;
	ret = nvl_resv_get_fences(resv, usage, &n, &fences);
	if (ret)
		return ret;
	if (n <= 1) {
		*fence_out = n ? fences[0] : NULL;
		nvl_free(fences);
		return 0;
	}
	ret = nvl_fence_array_create(n, fences, nvl_fence_context_alloc(1), 1,
				     false, &array);
	if (ret) {
		for (unsigned i = 0; i < n; i++)
			nvl_fence_put(fences[i]);
		nvl_free(fences);
		return ret;
	}
	*fence_out = &array->base;
	return 0;
}

/* A reference to the first unsignalled fence with usage <= @usage. */
static struct nvl_fence *first_pending(struct nvl_resv *resv,
				       enum nvl_resv_usage usage)
{
	struct nvl_fence *f = NULL;

	nvl_flock_lock(&resv->flock);
	for (unsigned i = 0; i < resv->num; i++) {
		struct nvl_resv_entry *e = &resv->fences[i];

		if (e->usage <= usage &&
		    !nvl_fence_test_signaled_flag(e->fence)) {
			f = nvl_fence_get(e->fence);
			break;
		}
	}
	nvl_flock_unlock(&resv->flock);
	return f;
}

int nvl_resv_test_signaled(struct nvl_resv *resv, enum nvl_resv_usage usage)
{
	struct nvl_fence *f;
	int ret;

	if (!resv)
		return nvl_error(-EINVAL, "resv: test_signaled: NULL resv");
	ret = check_usage(usage, "test_signaled");
	if (ret)
		return ret;
	/* signaled() polling may complete fences: re-check until stable */
	while ((f = first_pending(resv, usage))) {
		bool done = nvl_fence_is_signaled(f);

		nvl_fence_put(f);
		if (!done)
			return 0;
	}
	return 1;
}

int nvl_resv_wait(struct nvl_resv *resv, enum nvl_resv_usage usage,
		  int64_t timeout_ns)
{
	int64_t deadline;
	struct nvl_fence *f;
	int ret;

	if (!resv)
		return nvl_error(-EINVAL, "resv: wait: NULL resv");
	ret = check_usage(usage, "wait");
	if (ret)
		return ret;
	if (timeout_ns < 0)
		return nvl_error(-EINVAL, "resv: negative timeout %lld",
				 (long long)timeout_ns);
	deadline = timeout_ns == 0 ? nvl_time_ns()
				   : nvl_deadline_after(timeout_ns);
	/* Recorded on entry, also when no fence is pending (checker.h). */
	nvl_fence_wait_annotate(timeout_ns == 0 ? NVL_WAIT_POLL
				: deadline == NVL_TIMEOUT_INFINITE
					? NVL_WAIT_UNBOUNDED
					: NVL_WAIT_BOUNDED);
	while ((f = first_pending(resv, usage))) {
		ret = timeout_ns == 0 ? (nvl_fence_is_signaled(f) ? 0 : -ETIME)
				      : nvl_fence_wait_until(f, deadline);

		nvl_fence_put(f);
		if (ret)
			return ret;
	}
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * DOC: Wound/wait mutexes
 *
 * Each mutex is a flag plus a futex word its sleepers wait on, under a
 * small internal lock (sync/flock.h). A context that must wait for a lock held by a *younger* context
 * wounds it (sets its `wounded` flag and wakes it if it sleeps on another
 * mutex); a wounded context that holds locks gives up with -EDEADLK at its
 * next contended acquisition. Waking a sleeping victim is race-free: the
 * victim publishes `blocked_on` and re-checks `wounded` under the internal
 * mutex of the lock it sleeps on, and the wounder sets `wounded` before it
 * reads `blocked_on` and broadcasts under that same internal mutex (both
 * sequentially consistent), so one of them sees the other.
 *
 * Contexts keep their stamp across back-offs, so the oldest transaction
 * always makes progress: no deadlock, no starvation.
 */
#include <errno.h>

#include "base/log.h"
#include "base/time.h"
#include "sync/ww_mutex.h"

static atomic_uint_fast64_t ww_stamp = 1;

void nvl_ww_mutex_init(struct nvl_ww_mutex *m, struct nvl_lock_class *cls)
{
	nvl_flock_init(&m->wait_lock);
	atomic_init(&m->seq, 0);
	m->waiters = 0;
	m->locked = false;
	m->ctx = NULL;
	atomic_init(&m->owner, 0);
	m->cls = cls;
}

void nvl_ww_mutex_destroy(struct nvl_ww_mutex *m)
{
	(void)NVL_NEVER(m->locked);
}

NVL_HOT void nvl_ww_acquire_init(struct nvl_ww_acquire_ctx *ctx,
				 struct nvl_lock_class *cls)
{
	ctx->stamp = atomic_fetch_add(&ww_stamp, 1);
	ctx->acquired = 0;
	atomic_init(&ctx->wounded, false);
	atomic_init(&ctx->blocked_on, NULL);
	ctx->cls = cls;
}

NVL_HOT void nvl_ww_acquire_fini(struct nvl_ww_acquire_ctx *ctx)
{
	(void)NVL_NEVER(ctx->acquired != 0);
}

/*
 * wound() - mark the holder of @m (a younger context) wounded. Called with
 * @m->wait_lock held, so the holder's context is alive; returns the mutex
 * the victim sleeps on, to be woken after dropping @m->wait_lock.
 */
static struct nvl_ww_mutex *wound(struct nvl_ww_mutex *m)
{
	struct nvl_ww_acquire_ctx *victim = m->ctx;

	if (atomic_exchange(&victim->wounded, true))
		return NULL;
	return atomic_load(&victim->blocked_on);
}

/* wake every sleeper of @m (@m->wait_lock held) */
static void wake_all_locked(struct nvl_ww_mutex *m)
{
	atomic_fetch_add_explicit(&m->seq, 1, memory_order_relaxed);
	nvl_futex_wake_all(&m->seq);
}

/*
 * Sleep until a wake-up of @m (@m->wait_lock held, dropped while asleep,
 * held again on return). The word is read under the lock and every
 * wake-up changes it under the lock: one that comes after the read makes
 * the futex wait return at once.
 */
static void sleep_locked(struct nvl_ww_mutex *m)
{
	uint32_t seq = atomic_load_explicit(&m->seq, memory_order_relaxed);

	m->waiters++;
	nvl_flock_unlock(&m->wait_lock);
	(void)nvl_futex_wait(&m->seq, seq, NVL_TIMEOUT_INFINITE);
	nvl_flock_lock(&m->wait_lock);
	m->waiters--;
}

static void wake_victim(struct nvl_ww_mutex *b)
{
	nvl_flock_lock(&b->wait_lock);
	wake_all_locked(b);
	nvl_flock_unlock(&b->wait_lock);
}

/* the id held_by_me compares */
static inline uintptr_t self_id(void)
{
	return nvl_ww_self();
}

static void take(struct nvl_ww_mutex *m, struct nvl_ww_acquire_ctx *ctx)
{
	m->locked = true;
	m->ctx = ctx;
	atomic_store_explicit(&m->owner, self_id(), memory_order_relaxed);
	if (ctx)
		ctx->acquired++;
}

/*
 * The rest of an acquisition that found @m held (or its wait_lock
 * contended): entered with the checker told and @m->wait_lock held.
 */
static __attribute__((noinline)) int
ww_lock_locked(struct nvl_ww_mutex *m, struct nvl_ww_acquire_ctx *ctx,
	       bool slow)
{
	bool blocked = false;

	for (;;) {
		if (!m->locked) {
			take(m, ctx);
			break;
		}
		if (ctx && m->ctx == ctx) {
			nvl_flock_unlock(&m->wait_lock);
			nvl_checker_lock_release(m->cls);
			return -EALREADY;
		}
		if (ctx) {
			atomic_store(&ctx->blocked_on, m);
			blocked = true;
			if (!slow && ctx->acquired > 0 &&
			    atomic_load(&ctx->wounded)) {
				atomic_store(&ctx->blocked_on, NULL);
				nvl_flock_unlock(&m->wait_lock);
				nvl_checker_lock_release(m->cls);
				return -EDEADLK;
			}
			if (m->ctx && m->ctx->stamp > ctx->stamp) {
				struct nvl_ww_mutex *b = wound(m);

				if (b && b != m) {
					/* never nest two wait_locks */
					nvl_flock_unlock(&m->wait_lock);
					wake_victim(b);
					nvl_flock_lock(&m->wait_lock);
					continue;
				}
			}
		}
		sleep_locked(m);
	}
	if (blocked)
		atomic_store(&ctx->blocked_on, NULL);
	nvl_flock_unlock(&m->wait_lock);
	return 0;
}

/*
 * The common acquisition (a free mutex, its wait_lock free) is inline
 * here, without the wait loop's frame; anything else continues in
 * ww_lock_locked() with the same checks.
 */
static inline int ww_lock(struct nvl_ww_mutex *m,
			  struct nvl_ww_acquire_ctx *ctx, bool slow)
{
	/* a wound of this context happened under the wait_lock of a mutex
	 * it held, before it dropped it: with none held, the load sees it
	 * (the store, a locked exchange on x86, only when needed) */
	if (ctx && ctx->acquired == 0 &&
	    atomic_load_explicit(&ctx->wounded, memory_order_relaxed))
		atomic_store(&ctx->wounded, false);
	nvl_checker_lock_acquire(m->cls, false);
	if (likely(nvl_flock_trylock(&m->wait_lock))) {
		if (likely(!m->locked)) {
			take(m, ctx);
			nvl_flock_unlock(&m->wait_lock);
			return 0;
		}
	} else {
		nvl_flock_lock_slow(&m->wait_lock);
	}
	return ww_lock_locked(m, ctx, slow);
}

NVL_HOT int nvl_ww_mutex_lock(struct nvl_ww_mutex *m,
			      struct nvl_ww_acquire_ctx *ctx)
{
	return ww_lock(m, ctx, false);
}

void nvl_ww_mutex_lock_slow(struct nvl_ww_mutex *m,
			    struct nvl_ww_acquire_ctx *ctx)
{
	int ret;

	(void)NVL_NEVER(ctx && ctx->acquired != 0);
	ret = ww_lock(m, ctx, true);
	(void)NVL_NEVER(ret != 0);
}

bool nvl_ww_mutex_trylock(struct nvl_ww_mutex *m,
			  struct nvl_ww_acquire_ctx *ctx)
{
	bool ok;

	nvl_flock_lock(&m->wait_lock);
	ok = !m->locked;
	if (ok)
		take(m, ctx);
	nvl_flock_unlock(&m->wait_lock);
	if (ok)
		nvl_checker_lock_acquire(m->cls, true);
	return ok;
}

NVL_HOT void nvl_ww_mutex_unlock(struct nvl_ww_mutex *m)
{
	nvl_checker_lock_release(m->cls);
	nvl_flock_lock(&m->wait_lock);
	(void)NVL_NEVER(!m->locked);
	if (m->ctx)
		m->ctx->acquired--;
	m->locked = false;
	m->ctx = NULL;
	atomic_store_explicit(&m->owner, 0, memory_order_relaxed);
	if (m->waiters)
		wake_all_locked(m);
	nvl_flock_unlock(&m->wait_lock);
}

bool nvl_ww_mutex_is_locked(struct nvl_ww_mutex *m)
{
	bool l;

	nvl_flock_lock(&m->wait_lock);
	l = m->locked;
	nvl_flock_unlock(&m->wait_lock);
	return l;
}

/*
 * Lock-free: @m->owner holds our id exactly while we hold @m (we stored it
 * and only our unlock clears it; another thread stores only its own id, and
 * only while @m is free), so a relaxed load cannot see our id otherwise.
 */

/* SPDX-License-Identifier: MIT */
/*
 * A tiny futex-based lock (4 bytes). Used bare, for short critical
 * sections (fence callback lists, resv fence arrays, syncobj fence
 * pointers, a client's handle tables), it is never held across a wait or
 * an allocation and is invisible to the checker (a leaf, like a kernel
 * spinlock). It is also the lock inside struct nvl_mutex, ww_mutex's
 * internal lock and the driver's channel locks: there the checker (or the
 * ww protocol) tracks the lock, which may be held across allocations; a
 * contended taker spins briefly, then sleeps on the futex.
 *
 * States: 0 free, 1 locked, 2 locked with sleepers.
 *
 * It lives in base (on base/futex.h only) so that base's own tables can
 * use it; sync/flock.h is the name the upper layers include.
 */
#ifndef NVL_BASE_FLOCK_H
#define NVL_BASE_FLOCK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "compiler.h"
#include "futex.h"

struct nvl_flock {
	_Atomic uint32_t v;
};

#define NVL_FLOCK_INIT                                                         \
	{                                                                      \
		0                                                              \
	}

/** nvl_flock_init() - an unlocked lock. @l: the lock */
static inline void nvl_flock_init(struct nvl_flock *l)
{
	atomic_init(&l->v, 0);
}

/**
 * nvl_flock_lock_slow() - contended path of nvl_flock_lock(): spin a little,
 * then sleep on the futex.
 * @l: the lock
 */
void nvl_flock_lock_slow(struct nvl_flock *l);

/**
 * nvl_flock_wake() - wake one sleeper after an unlock saw contention.
 * @l: the lock
 */
void nvl_flock_wake(struct nvl_flock *l);

/**
 * nvl_flock_trylock() - take @l if it is free, without waiting.
 * @l: the lock
 *
 * Return: true when taken.
 */
static inline bool nvl_flock_trylock(struct nvl_flock *l)
{
	uint32_t z = 0;

	return atomic_compare_exchange_strong_explicit(
		&l->v, &z, 1, memory_order_acquire, memory_order_relaxed);
}

/** nvl_flock_lock() - take @l. @l: the lock */
static inline void nvl_flock_lock(struct nvl_flock *l)
{
	if (likely(nvl_flock_trylock(l)))
		return;
	nvl_flock_lock_slow(l);
}

/** nvl_flock_unlock() - release @l. @l: the lock */
static inline void nvl_flock_unlock(struct nvl_flock *l)
{
	if (unlikely(atomic_exchange_explicit(&l->v, 0, memory_order_release) ==
		     2))
		nvl_flock_wake(l);
}

/*
 * Asymmetric release (issue 19): a lock enabled with nvl_flock_asym_enable()
 * may be released with nvl_flock_unlock_asym(), a plain release store and
 * a plain load instead of a locked exchange (which also waits for the
 * holder's pending stores to drain). A taker of such a lock about to sleep
 * counts itself in its bucket's sleepers and makes every running thread of
 * the process execute a barrier (membarrier(2)) before it checks the lock
 * again: then either the releaser's load sees the sleeper, or the
 * sleeper's check sees the lock free. Buckets are a hash of the lock's
 * address, so the releaser's load never touches the lock's memory after
 * the store (the lock may be freed by then); another enabled lock in the
 * bucket costs at most a needless wake-up. nvl_flock_unlock() stays right
 * for every lock. Without membarrier (or under ThreadSanitizer, which does
 * not see its barrier) nvl_flock_unlock_asym() is nvl_flock_unlock().
 */
#define NVL_FLOCK_BUCKETS 256

extern _Atomic uint32_t nvl_flock_sleepers[NVL_FLOCK_BUCKETS];
extern bool nvl_flock_asym_ok;

/* the bucket of @l (a multiplicative hash of its address) */
static inline unsigned nvl_flock_bucket(const struct nvl_flock *l)
{
	return (unsigned)(((uint64_t)(uintptr_t)l * 0x9e3779b97f4a7c15ull) >>
			  56);
}

/**
 * nvl_flock_asym_enable() - let @l be released with
 * nvl_flock_unlock_asym(), before anyone else can use it.
 * @l: the lock
 */
void nvl_flock_asym_enable(struct nvl_flock *l);

/**
 * nvl_flock_asym_disable() - undo nvl_flock_asym_enable() once @l is no
 * longer used.
 * @l: the lock
 */
void nvl_flock_asym_disable(struct nvl_flock *l);

/**
 * nvl_flock_unlock_asym() - release @l, enabled by nvl_flock_asym_enable(),
 * without a locked instruction (see above).
 * @l: the lock
 */
static inline void nvl_flock_unlock_asym(struct nvl_flock *l)
{
#if defined(__SANITIZE_THREAD__)
	nvl_flock_unlock(l);
#else
	unsigned b = nvl_flock_bucket(l);

	if (unlikely(!nvl_flock_asym_ok)) {
		nvl_flock_unlock(l);
		return;
	}
	atomic_store_explicit(&l->v, 0, memory_order_release);
	/* a sleeper's membarrier orders the store before this load */
	atomic_signal_fence(memory_order_seq_cst);
	if (unlikely(atomic_load_explicit(&nvl_flock_sleepers[b],
					  memory_order_relaxed)))
		nvl_flock_wake(l);
#endif
}

#endif /* NVL_BASE_FLOCK_H */

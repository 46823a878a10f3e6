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

#endif /* NVL_BASE_FLOCK_H */

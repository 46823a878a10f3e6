// SPDX-License-Identifier: MIT
/*
 * DOC: flock slow path
 *
 * The slow path of struct nvl_flock (a three-state futex mutex: spin a
 * little, then mark "contended" and sleep), on base/futex.h; and the
 * sleepers' side of the asymmetric release (flock.h): a taker of a lock in
 * a bucket with an enabled lock counts itself in the bucket's sleepers and
 * calls membarrier(2) once before its first check that may sleep. Later
 * releasers see the count without a barrier: it was incremented (a locked
 * instruction) before the check that saw the lock held, so before the
 * holder's release and before any later taker's acquire.
 */
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/compiler.h"
#include "base/flock.h"
#include "base/time.h"

_Atomic uint32_t nvl_flock_sleepers[NVL_FLOCK_BUCKETS];
bool nvl_flock_asym_ok;
/* enabled locks in each bucket */
static _Atomic uint32_t asym_locks[NVL_FLOCK_BUCKETS];

__attribute__((constructor)) static void flock_asym_init(void)
{
#if !defined(__SANITIZE_THREAD__)
	nvl_flock_asym_ok =
		!syscall(SYS_membarrier,
			 MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0);
#endif
}

void nvl_flock_asym_enable(struct nvl_flock *l)
{
	atomic_fetch_add_explicit(&asym_locks[nvl_flock_bucket(l)], 1,
				  memory_order_relaxed);
}

void nvl_flock_asym_disable(struct nvl_flock *l)
{
	atomic_fetch_sub_explicit(&asym_locks[nvl_flock_bucket(l)], 1,
				  memory_order_relaxed);
}

/* the sleeping part for a lock that may be released asymmetrically */
static void sleep_asym(struct nvl_flock *l, unsigned b)
{
	uint32_t c;

	atomic_fetch_add_explicit(&nvl_flock_sleepers[b], 1,
				  memory_order_relaxed);
	/* every releaser's store is now seen, or it sees our count */
	/* registered at start-up: cannot fail */
	(void)NVL_NEVER(syscall(SYS_membarrier,
				MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0);
	c = atomic_exchange_explicit(&l->v, 2, memory_order_acquire);
	while (c != 0) {
		(void)nvl_futex_wait(&l->v, 2, NVL_TIMEOUT_INFINITE);
		c = atomic_exchange_explicit(&l->v, 2, memory_order_acquire);
	}
	atomic_fetch_sub_explicit(&nvl_flock_sleepers[b], 1,
				  memory_order_relaxed);
}

void nvl_flock_lock_slow(struct nvl_flock *l)
{
	uint32_t c;

	for (int i = 0; i < 64; i++) {
		c = 0;
		if (atomic_compare_exchange_weak_explicit(&l->v, &c, 1,
							  memory_order_acquire,
							  memory_order_relaxed))
			return;
		if (c == 2)
			break;
		nvl_cpu_relax();
	}
	if (nvl_flock_asym_ok &&
	    atomic_load_explicit(&asym_locks[nvl_flock_bucket(l)],
				 memory_order_relaxed)) {
		sleep_asym(l, nvl_flock_bucket(l));
		return;
	}
	c = atomic_exchange_explicit(&l->v, 2, memory_order_acquire);
	while (c != 0) {
		(void)nvl_futex_wait(&l->v, 2, NVL_TIMEOUT_INFINITE);
		c = atomic_exchange_explicit(&l->v, 2, memory_order_acquire);
	}
}

void nvl_flock_wake(struct nvl_flock *l)
{
	nvl_futex_wake(&l->v, 1);
}

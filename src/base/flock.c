// SPDX-License-Identifier: MIT
/*
 * DOC: flock slow path
 *
 * The slow path of struct nvl_flock (a three-state futex mutex: spin a
 * little, then mark "contended" and sleep), on base/futex.h.
 */
#include "base/compiler.h"
#include "base/flock.h"
#include "base/time.h"

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

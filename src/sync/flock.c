// SPDX-License-Identifier: MIT
/*
 * DOC: Futex helpers
 *
 * The slow path of struct nvl_flock (a three-state futex mutex: spin a
 * little, then mark "contended" and sleep) and the futex wait/wake used by
 * fence and syncobj waiters. Waits take an absolute CLOCK_MONOTONIC deadline
 * (FUTEX_WAIT_BITSET), so a loop around spurious wake-ups never stretches a
 * timeout.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/compiler.h"
#include "base/time.h"
#include "sync/flock.h"

int nvl_futex_wait(_Atomic uint32_t *w, uint32_t val, int64_t abs_ns)
{
	struct timespec ts, *tsp = NULL;
	long r;

	if (abs_ns != NVL_TIMEOUT_INFINITE) {
		if (abs_ns <= nvl_time_ns())
			return -ETIME;
		ts = nvl_ns_to_timespec(abs_ns);
		tsp = &ts;
	}
	r = syscall(SYS_futex, w, FUTEX_WAIT_BITSET_PRIVATE, val, tsp, NULL,
		    FUTEX_BITSET_MATCH_ANY);
	if (r < 0 && errno == ETIMEDOUT)
		return -ETIME;
	if (r < 0 && errno == EINTR)
		return -EINTR;
	return 0;
}

void nvl_futex_wake_all(_Atomic uint32_t *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
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
	c = atomic_exchange_explicit(&l->v, 2, memory_order_acquire);
	while (c != 0) {
		syscall(SYS_futex, &l->v, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
		c = atomic_exchange_explicit(&l->v, 2, memory_order_acquire);
	}
}

void nvl_flock_wake(struct nvl_flock *l)
{
	syscall(SYS_futex, &l->v, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

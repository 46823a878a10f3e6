// SPDX-License-Identifier: MIT
/*
 * DOC: Futex wait and wake (see futex.h)
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/futex.h"
#include "base/time.h"

NVL_HOT int nvl_futex_wait(_Atomic uint32_t *w, uint32_t val, int64_t abs_ns)
{
	return nvl_futex_wait_bits(w, val, abs_ns, FUTEX_BITSET_MATCH_ANY);
}

int nvl_futex_wait_bits(_Atomic uint32_t *w, uint32_t val, int64_t abs_ns,
			uint32_t bits)
{
	struct timespec ts, *tsp = NULL;
	long r;

	/*
	 * No clock read here: the kernel times out an absolute deadline that
	 * has passed at once (after checking the word, so a changed word
	 * still gives -EAGAIN). Callers read the clock for their deadline
	 * already; a second read cost every sleeping wait 25-40 ns.
	 */
	if (abs_ns != NVL_TIMEOUT_INFINITE) {
		if (abs_ns <= 0)
			return -ETIME;
		ts = nvl_ns_to_timespec(abs_ns);
		tsp = &ts;
	}
	r = syscall(SYS_futex, w, FUTEX_WAIT_BITSET_PRIVATE, val, tsp, NULL,
		    bits);
	if (r == 0)
		return 0;
	if (errno == ETIMEDOUT)
		return -ETIME;
	if (errno == EINTR)
		return -EINTR;
	return errno == EAGAIN ? -EAGAIN : 0;
}

NVL_HOT void nvl_futex_wake(_Atomic uint32_t *w, int n)
{
	syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

void nvl_futex_wake_bits(_Atomic uint32_t *w, int n, uint32_t bits)
{
	syscall(SYS_futex, w, FUTEX_WAKE_BITSET_PRIVATE, n, NULL, NULL, bits);
}

NVL_HOT void nvl_futex_wake_all(_Atomic uint32_t *w)
{
	nvl_futex_wake(w, INT_MAX);
}

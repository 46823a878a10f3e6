/* SPDX-License-Identifier: MIT */
/*
 * Futex wait and wake on a 32-bit word, for every layer that sleeps on one
 * (fence and syncobj waiters, the flock, the scheduler's events, the
 * model's runlist and firmware threads). Waits take an absolute
 * CLOCK_MONOTONIC deadline (FUTEX_WAIT_BITSET), so a loop around spurious
 * wake-ups never stretches a timeout. Process-private futexes only.
 */
#ifndef NVL_BASE_FUTEX_H
#define NVL_BASE_FUTEX_H

#include <stdatomic.h>
#include <stdint.h>

/**
 * nvl_futex_wait() - sleep while *@w == @val, until @abs_ns (absolute
 * CLOCK_MONOTONIC, NVL_TIMEOUT_INFINITE for none).
 * @w: the word
 * @val: expected value
 * @abs_ns: deadline
 *
 * A signal handler that runs while it sleeps makes it return -EINTR; with
 * a finite @abs_ns the kernel never restarts the call (SA_RESTART or not),
 * so interruptible waiters pass a finite deadline.
 *
 * Return: 0 woken (possibly spuriously), -EAGAIN *@w was not @val (it did
 * not sleep; also when @abs_ns has passed: the word is checked first),
 * -ETIME at the deadline, -EINTR a signal handler ran.
 */
int nvl_futex_wait(_Atomic uint32_t *w, uint32_t val, int64_t abs_ns);

/**
 * nvl_futex_wake() - wake up to @n sleepers on @w.
 * @w: the word
 * @n: how many at most (INT_MAX: all)
 */
void nvl_futex_wake(_Atomic uint32_t *w, int n);

/**
 * nvl_futex_wait_bits() - nvl_futex_wait() as one of the sleepers on @w
 * that nvl_futex_wake_bits() tells apart by @bits.
 * @w: the word
 * @val: expected value
 * @abs_ns: deadline (as nvl_futex_wait())
 * @bits: this sleeper's bits (not 0)
 *
 * Return: as nvl_futex_wait().
 */
int nvl_futex_wait_bits(_Atomic uint32_t *w, uint32_t val, int64_t abs_ns,
			uint32_t bits);

/**
 * nvl_futex_wake_bits() - wake up to @n sleepers on @w whose bits meet
 * @bits, in one system call: several chosen sleepers on one word.
 * @w: the word
 * @n: how many at most (INT_MAX: all)
 * @bits: the sleepers' bits to wake (not 0)
 */
void nvl_futex_wake_bits(_Atomic uint32_t *w, int n, uint32_t bits);

/** nvl_futex_wake_all() - wake every sleeper on @w. @w: the word */
void nvl_futex_wake_all(_Atomic uint32_t *w);

#endif /* NVL_BASE_FUTEX_H */

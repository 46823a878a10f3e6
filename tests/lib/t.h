/* SPDX-License-Identifier: MIT */
/*
 * Test helpers shared by every cmocka test program.
 *
 * Each program ends with T_MAIN(tests) where tests is its
 * `struct CMUnitTest[]`. T_MAIN
 *  - prints TAP (so Meson counts every case) unless T_OUTPUT=stdout,
 *  - takes `--list` (print the case names) and `--run GLOB` (run a subset),
 *  - exits 0 on success, 1 on failure, 77 when the whole program skips.
 */
#ifndef NVL_TESTS_T_H
#define NVL_TESTS_T_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/alloc.h"

int t_main(const char *group, const struct CMUnitTest *tests, size_t n,
	   int argc, char **argv);

#define T_MAIN(tests_)                                                         \
	int main(int argc, char **argv)                                        \
	{                                                                      \
		return t_main(__FILE__, tests_,                                \
			      sizeof(tests_) / sizeof((tests_)[0]), argc,      \
			      argv);                                           \
	}

/**
 * t_fail_each_alloc() - run @op with the 1st, 2nd, ... allocation (on this
 * thread) failing until @op succeeds with no failure injected. After each
 * failed run @check(ret, arg) verifies the op failed cleanly (returned
 * -ENOMEM and changed nothing), then @undo is not called. After the final
 * successful run, returns the number of allocations it made.
 *
 * @op:    the operation; returns 0 or a negative errno
 * @check: called after each injected failure with op's return value
 * @max:   give up (test failure) after this many attempts
 */
unsigned long t_fail_each_alloc(int (*op)(void *arg),
				void (*check)(int ret, void *arg), void *arg,
				unsigned long max);

/** t_rand() - xorshift64* PRNG for reproducible random tests. */
static inline uint64_t t_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1Dull;
}

/** t_seed() - seed from T_SEED env var or @def; printed for reproduction. */
uint64_t t_seed(uint64_t def);

/** t_scale() - T_SCALE env (default 1): multiply iteration counts. */
double t_scale(void);

#endif

// SPDX-License-Identifier: MIT
/*
 * DOC: Allocation hooks and failure injection
 *
 * The fast path is one relaxed atomic load (is injection armed?) and one
 * observer call. Failure injection follows sqlite's faultsim: a countdown
 * ("fail the Nth") or a seeded coin ("fail with probability p"); the scope
 * restricts counting to the arming thread so that background workers do not
 * make a test's countdown non-deterministic.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"

enum { FI_OFF, FI_NTH, FI_RANDOM };

static atomic_int fi_mode;
static atomic_long fi_countdown;
static atomic_ulong fi_hits;
static atomic_uint_fast64_t fi_rng;
static _Atomic uint64_t fi_threshold; /* p scaled to 2^64 */
/* read by every allocating thread while a test re-arms: atomic */
static atomic_int fi_scope;
static _Atomic(pthread_t) fi_thread;

static _Thread_local unsigned long alloc_count;
static _Atomic(nvl_alloc_observer_fn) observer;

void nvl_alloc_set_observer(nvl_alloc_observer_fn fn)
{
	atomic_store(&observer, fn);
}

unsigned long nvl_alloc_count(void)
{
	return alloc_count;
}

unsigned long nvl_fault_hits(void)
{
	return atomic_load(&fi_hits);
}

void nvl_fault_off(void)
{
	atomic_store(&fi_mode, FI_OFF);
}

void nvl_fault_fail_nth(unsigned long nth, enum nvl_fault_scope scope)
{
	atomic_store(&fi_mode, FI_OFF);
	if (!nth)
		return;
	atomic_store_explicit(&fi_scope, scope, memory_order_relaxed);
	atomic_store_explicit(&fi_thread, pthread_self(), memory_order_relaxed);
	atomic_store(&fi_hits, 0);
	atomic_store(&fi_countdown, (long)nth);
	atomic_store(&fi_mode, FI_NTH);
}

void nvl_fault_fail_random(double p, uint64_t seed, enum nvl_fault_scope scope)
{
	atomic_store(&fi_mode, FI_OFF);
	if (p <= 0.0)
		return;
	atomic_store_explicit(&fi_scope, scope, memory_order_relaxed);
	atomic_store_explicit(&fi_thread, pthread_self(), memory_order_relaxed);
	atomic_store(&fi_hits, 0);
	atomic_store(&fi_rng, seed ? seed : 0x9e3779b97f4a7c15ull);
	atomic_store(&fi_threshold,
		     p >= 1.0 ? UINT64_MAX
			      : (uint64_t)(p * 18446744073709551615.0));
	atomic_store(&fi_mode, FI_RANDOM);
}

static uint64_t splitmix_next(void)
{
	uint64_t z = atomic_fetch_add(&fi_rng, 0x9e3779b97f4a7c15ull) +
		     0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Breakpoint target: every injected failure passes through here. */
__attribute__((noinline)) static void nvl_fault_fired(void)
{
	atomic_fetch_add(&fi_hits, 1);
}

static bool should_fail(void)
{
	int mode = atomic_load_explicit(&fi_mode, memory_order_relaxed);

	if (likely(mode == FI_OFF))
		return false;
	if (atomic_load_explicit(&fi_scope, memory_order_relaxed) ==
		    NVL_FAULT_THIS_THREAD &&
	    !pthread_equal(
		    atomic_load_explicit(&fi_thread, memory_order_relaxed),
		    pthread_self()))
		return false;
	if (mode == FI_NTH) {
		if (atomic_fetch_sub(&fi_countdown, 1) != 1)
			return false;
		atomic_store(&fi_mode, FI_OFF);
		nvl_fault_fired();
		return true;
	}
	if (splitmix_next() <= atomic_load(&fi_threshold)) {
		nvl_fault_fired();
		return true;
	}
	return false;
}

static inline bool pre_alloc(size_t size_B)
{
	nvl_alloc_observer_fn fn =
		atomic_load_explicit(&observer, memory_order_relaxed);

	alloc_count++;
	if (fn)
		fn(size_B);
	return should_fail();
}

static inline void *post_alloc(void *p)
{
	return p;
}

NVL_HOT int nvl_might_alloc(size_t size_B)
{
	return pre_alloc(size_B) ? -ENOMEM : 0;
}

void *nvl_malloc(size_t size_B)
{
	if (pre_alloc(size_B))
		return NULL;
	return post_alloc(malloc(size_B ? size_B : 1));
}

void *nvl_zalloc(size_t size_B)
{
	if (pre_alloc(size_B))
		return NULL;
	return post_alloc(calloc(1, size_B ? size_B : 1));
}

void *nvl_calloc(size_t n, size_t size_B)
{
	size_t total;

	if (__builtin_mul_overflow(n, size_B, &total))
		return NULL;
	if (pre_alloc(total))
		return NULL;
	return post_alloc(calloc(1, total ? total : 1));
}

void *nvl_realloc(void *p, size_t size_B)
{
	void *q;

	if (!p)
		return nvl_malloc(size_B);
	if (pre_alloc(size_B))
		return NULL;
	q = realloc(p, size_B ? size_B : 1);
	return q;
}

void *nvl_reallocarray(void *p, size_t n, size_t size_B)
{
	size_t total;

	if (__builtin_mul_overflow(n, size_B, &total))
		return NULL;
	return nvl_realloc(p, total);
}

void *nvl_aligned_alloc(size_t align_B, size_t size_B)
{
	void *p = NULL;

	if (pre_alloc(size_B))
		return NULL;
	if (posix_memalign(&p,
			   align_B < sizeof(void *) ? sizeof(void *) : align_B,
			   size_B ? size_B : 1))
		return NULL;
	return post_alloc(p);
}

char *nvl_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = nvl_malloc(n);

	if (d)
		memcpy(d, s, n);
	return d;
}

NVL_HOT void nvl_free(void *p)
{
	free(p);
}

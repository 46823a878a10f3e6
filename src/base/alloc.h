/* SPDX-License-Identifier: MIT */
/*
 * Allocation hooks. Every allocation in the library goes through these
 * wrappers, so that
 *  - tests can make any allocation fail (the Nth one from now, or each with a
 *    probability from a seed), on every thread or on the arming thread only;
 *  - the fence-signalling checker (src/sync/) sees every allocation and
 *    reports the ones made inside a signalling critical section.
 */
#ifndef NVL_BASE_ALLOC_H
#define NVL_BASE_ALLOC_H

#include "compiler.h"

void *nvl_malloc(size_t size_B) NVL_MUST_CHECK;
void *nvl_zalloc(size_t size_B) NVL_MUST_CHECK;
void *nvl_calloc(size_t n, size_t size_B) NVL_MUST_CHECK;
void *nvl_realloc(void *p, size_t size_B) NVL_MUST_CHECK;
/** nvl_reallocarray() - realloc of @n * @size_B with overflow check. */
void *nvl_reallocarray(void *p, size_t n, size_t size_B) NVL_MUST_CHECK;
void *nvl_aligned_alloc(size_t align_B, size_t size_B) NVL_MUST_CHECK;
void nvl_free(void *p);
char *nvl_strdup(const char *s) NVL_MUST_CHECK;

/**
 * nvl_might_alloc() - tell the checker an allocation could happen here, and
 * roll the failure-injection dice, without allocating.
 *
 * For code that allocates outside the wrappers (memfd, mmap, pthread_create).
 * Return: 0, or -ENOMEM when failure injection fires.
 */
int nvl_might_alloc(size_t size_B) NVL_MUST_CHECK;

/* ---- failure injection ---------------------------------------------- */

/** Scope of an armed failure injection. */
enum nvl_fault_scope {
	/** @NVL_FAULT_ALL_THREADS: count allocations from every thread. */
	NVL_FAULT_ALL_THREADS = 0,
	/** @NVL_FAULT_THIS_THREAD: count only the arming thread's. */
	NVL_FAULT_THIS_THREAD = 1,
};

/**
 * nvl_fault_fail_nth() - make the @nth allocation from now fail (1 = the next
 * one). Allocations after it succeed again. 0 disarms.
 * @nth: which allocation fails
 * @scope: which threads' allocations are counted
 */
void nvl_fault_fail_nth(unsigned long nth, enum nvl_fault_scope scope);

/**
 * nvl_fault_fail_random() - make each allocation fail with probability
 * @p (0..1), from a deterministic @seed. @p == 0 disarms.
 */
void nvl_fault_fail_random(double p, uint64_t seed, enum nvl_fault_scope scope);

/** nvl_fault_off() - disarm injection. */
void nvl_fault_off(void);

/** nvl_fault_hits() - how many allocations injection has failed since armed. */
unsigned long nvl_fault_hits(void);

/**
 * nvl_alloc_count() - allocations attempted by the calling thread since it
 * started; tests use differences of it to size failure-injection loops.
 */
unsigned long nvl_alloc_count(void);

/**
 * typedef nvl_alloc_observer_fn - called before every allocation attempt with
 * its size; installed by the fence-signalling checker.
 */
typedef void (*nvl_alloc_observer_fn)(size_t size_B);

/** nvl_alloc_set_observer() - install (or clear with NULL) the observer. */
void nvl_alloc_set_observer(nvl_alloc_observer_fn fn);

#endif /* NVL_BASE_ALLOC_H */

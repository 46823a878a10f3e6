/* SPDX-License-Identifier: MIT */
/*
 * Atomic reference counts (the kernel's kref): get never fails on a live
 * object, put reports the final reference so the caller releases the object.
 */
#ifndef NVL_BASE_REFCOUNT_H
#define NVL_BASE_REFCOUNT_H

#include <stdatomic.h>
#include "compiler.h"

struct nvl_kref {
	atomic_uint refcount;
};

static inline void nvl_kref_init(struct nvl_kref *k)
{
	atomic_init(&k->refcount, 1);
}

static inline unsigned nvl_kref_read(const struct nvl_kref *k)
{
	return atomic_load_explicit(&((struct nvl_kref *)k)->refcount,
				    memory_order_relaxed);
}

static inline void nvl_kref_get(struct nvl_kref *k)
{
	unsigned old = atomic_fetch_add_explicit(&k->refcount, 1,
						 memory_order_relaxed);
	(void)NVL_NEVER(old == 0);
	(void)old;
}

/**
 * nvl_kref_get_unless_zero() - take a reference unless the count already hit
 * zero (the object is being released); for lookups racing with the last put.
 * Return: true when a reference was taken.
 */
static inline bool nvl_kref_get_unless_zero(struct nvl_kref *k)
{
	unsigned old = atomic_load_explicit(&k->refcount, memory_order_relaxed);

	do {
		if (old == 0)
			return false;
	} while (!atomic_compare_exchange_weak_explicit(
		&k->refcount, &old, old + 1, memory_order_acquire,
		memory_order_relaxed));
	return true;
}

/**
 * nvl_kref_put() - drop a reference.
 * Return: true when this was the last reference; the caller then releases.
 */
static inline bool nvl_kref_put(struct nvl_kref *k)
{
	/* acq_rel: the releaser must see every other holder's writes. */
	unsigned old = atomic_fetch_sub_explicit(&k->refcount, 1,
						 memory_order_acq_rel);
	(void)NVL_NEVER(old == 0);
	return old == 1;
}

#endif /* NVL_BASE_REFCOUNT_H */

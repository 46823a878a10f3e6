/* SPDX-License-Identifier: MIT */
/*
 * ID allocator for per-client handles: small integers from 1 (0 is never a
 * valid handle, as for DRM GEM and syncobj handles), lowest free id first,
 * O(1) lookup. Not thread-safe: the owner's lock protects every change.
 *
 * An idr made with nvl_idr_init_rcu() may also be read without that lock
 * (nvl_idr_find_rcu()): ids and slot pointers are stored atomically and a
 * grown slot array is retired, not freed, until the owner knows no such
 * reader can still hold it (nvl_idr_take_retired(), then a grace period,
 * then nvl_idr_free_retired(); see base/client.c).
 */
#ifndef NVL_BASE_IDR_H
#define NVL_BASE_IDR_H

#include "compiler.h"

struct nvl_idr {
	void **slots; /* slots[id - 1] */
	uint32_t *free; /* stack of free ids below `top`, sorted-ish */
	uint32_t nfree;
	uint32_t top; /* ids >= top + 1 never used */
	uint32_t cap;
	uint32_t count;
	/** @rcu: read without the lock too (nvl_idr_init_rcu()) */
	bool rcu;
	/** @retired: slot arrays replaced by a larger one, chained through
	 * the word before each array; freed by nvl_idr_free_retired() */
	void **retired;
};

void nvl_idr_init(struct nvl_idr *idr);

/**
 * nvl_idr_init_rcu() - nvl_idr_init() for an idr that nvl_idr_find_rcu()
 * also reads: growth retires the old slot array instead of freeing it.
 */
void nvl_idr_init_rcu(struct nvl_idr *idr);
void nvl_idr_fini(struct nvl_idr *idr);

/**
 * nvl_idr_alloc() - bind a new id to @ptr (not NULL).
 * @id_out: the id, >= 1
 * Return: 0, -ENOMEM, or -ENOSPC when 2^32-2 ids are live.
 */
int nvl_idr_alloc(struct nvl_idr *idr, void *ptr,
		  uint32_t *id_out) NVL_MUST_CHECK;

/**
 * nvl_idr_reserve() - make sure the next @n allocations cannot fail.
 * Return: 0 or -ENOMEM.
 */
int nvl_idr_reserve(struct nvl_idr *idr, uint32_t n) NVL_MUST_CHECK;

/** nvl_idr_find() - the pointer bound to @id, or NULL. */
static inline void *nvl_idr_find(const struct nvl_idr *idr, uint32_t id)
{
	if (id == 0 || id > idr->top)
		return NULL;
	return idr->slots[id - 1];
}

/**
 * nvl_idr_find_rcu() - nvl_idr_find() without the owner's lock, for an idr
 * made by nvl_idr_init_rcu(). The answer may be stale by the time it is
 * used: the caller makes sure (base/client.c's read sections) that what it
 * points at outlives the read. Sequentially consistent loads (plain loads
 * on x86): with the read section's announcement they form the reader's
 * half of a store-then-load handshake with nvl_client_handle_remove().
 */
static inline void *nvl_idr_find_rcu(const struct nvl_idr *idr, uint32_t id)
{
	void **slots;

	if (id == 0 || id > __atomic_load_n(&idr->top, __ATOMIC_SEQ_CST))
		return NULL;
	/* top is stored after the array that holds it is published */
	slots = __atomic_load_n(&idr->slots, __ATOMIC_SEQ_CST);
	return __atomic_load_n(&slots[id - 1], __ATOMIC_SEQ_CST);
}

/**
 * nvl_idr_take_retired() - detach the slot arrays retired so far (owner's
 * lock held). Return: a chain for nvl_idr_free_retired(), or NULL.
 */
static inline void **nvl_idr_take_retired(struct nvl_idr *idr)
{
	void **r = idr->retired;

	idr->retired = NULL;
	return r;
}

/**
 * nvl_idr_free_retired() - free a chain from nvl_idr_take_retired(), once
 * no lock-free reader can still hold one of its arrays.
 */
void nvl_idr_free_retired(void **chain);

/** nvl_idr_remove() - unbind @id. Return: the pointer it had, or NULL. */
void *nvl_idr_remove(struct nvl_idr *idr, uint32_t id);

/**
 * nvl_idr_next() - first live id >= @id, with its pointer in @ptr_out.
 * Return: the id, or 0 when none.
 */
uint32_t nvl_idr_next(const struct nvl_idr *idr, uint32_t id, void **ptr_out);

#endif /* NVL_BASE_IDR_H */

/* SPDX-License-Identifier: MIT */
/*
 * ID allocator for per-client handles: small integers from 1 (0 is never a
 * valid handle, as for DRM GEM and syncobj handles), lowest free id first,
 * O(1) lookup. Not thread-safe: the owner's lock protects it.
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
};

void nvl_idr_init(struct nvl_idr *idr);
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

/** nvl_idr_remove() - unbind @id. Return: the pointer it had, or NULL. */
void *nvl_idr_remove(struct nvl_idr *idr, uint32_t id);

/**
 * nvl_idr_next() - first live id >= @id, with its pointer in @ptr_out.
 * Return: the id, or 0 when none.
 */
uint32_t nvl_idr_next(const struct nvl_idr *idr, uint32_t id, void **ptr_out);

#endif /* NVL_BASE_IDR_H */

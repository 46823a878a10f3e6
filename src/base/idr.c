// SPDX-License-Identifier: MIT
/*
 * DOC: ID allocator
 *
 * A slot array indexed by id - 1 and a binary min-heap of freed ids below the
 * high-water mark, so the lowest free id is reused first (as the kernel's
 * idr_alloc(.., 1, 0) does) in O(log n) and lookup is one bounds check and
 * one load.
 *
 * An rcu idr (nvl_idr_init_rcu()) is also read without the owner's lock:
 * its ids, top and slot pointer are stored atomically, and growing it
 * publishes a new slot array (with one word before it that chains it once
 * it is retired) and keeps the old one on @retired: a reader may still be
 * reading it. The owner frees them after a grace period (base/client.c).
 */
#include <errno.h>
#include <string.h>

#include "alloc.h"
#include "idr.h"

#define IDR_MAX_ID (UINT32_MAX - 1)

void nvl_idr_init(struct nvl_idr *idr)
{
	memset(idr, 0, sizeof(*idr));
}

void nvl_idr_init_rcu(struct nvl_idr *idr)
{
	memset(idr, 0, sizeof(*idr));
	idr->rcu = true;
}

void nvl_idr_free_retired(void **chain)
{
	while (chain) {
		void **next = chain[0];

		nvl_free(chain);
		chain = next;
	}
}

void nvl_idr_fini(struct nvl_idr *idr)
{
	if (idr->rcu) {
		nvl_idr_free_retired(idr->retired);
		if (idr->slots)
			nvl_free(idr->slots - 1);
	} else {
		nvl_free(idr->slots);
	}
	nvl_free(idr->free);
	memset(idr, 0, sizeof(*idr));
}

/*
 * An rcu idr's growth: the free-id heap first (a larger one is harmless if
 * the slots fail), then a new slot array with the live entries, published
 * whole; the old one is retired, never freed under a reader.
 */
static int grow_rcu(struct nvl_idr *idr, uint32_t cap)
{
	uint32_t *free_ids;
	void **base;

	free_ids = nvl_reallocarray(idr->free, cap, sizeof(*free_ids));
	if (!free_ids)
		return -ENOMEM;
	idr->free = free_ids;
	base = nvl_calloc((size_t)cap + 1, sizeof(*base));
	if (!base)
		return -ENOMEM;
	if (idr->slots) {
		memcpy(base + 1, idr->slots, (size_t)idr->top * sizeof(*base));
		idr->slots[-1] = idr->retired;
		idr->retired = idr->slots - 1;
	}
	__atomic_store_n(&idr->slots, base + 1, __ATOMIC_RELEASE);
	idr->cap = cap;
	return 0;
}

static int grow(struct nvl_idr *idr, uint32_t need)
{
	uint32_t cap;
	void **slots;
	uint32_t *free_ids;

	if (need <= idr->cap)
		return 0;
	cap = idr->cap ? idr->cap : 16;
	while (cap < need)
		cap = cap > UINT32_MAX / 2 ? UINT32_MAX : cap * 2;
	if (idr->rcu)
		return grow_rcu(idr, cap);
	slots = nvl_reallocarray(idr->slots, cap, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	idr->slots = slots;
	free_ids = nvl_reallocarray(idr->free, cap, sizeof(*free_ids));
	if (!free_ids)
		return -ENOMEM; /* slots grew; harmless, cap unchanged */
	idr->free = free_ids;
	memset(idr->slots + idr->cap, 0,
	       (size_t)(cap - idr->cap) * sizeof(*slots));
	idr->cap = cap;
	return 0;
}

int nvl_idr_reserve(struct nvl_idr *idr, uint32_t n)
{
	uint64_t need = (uint64_t)idr->count + n;

	if (need > IDR_MAX_ID)
		return -ENOSPC;
	if (n <= idr->nfree)
		return 0;
	need = (uint64_t)idr->top + (n - idr->nfree);
	if (need > IDR_MAX_ID)
		return -ENOSPC;
	return grow(idr, (uint32_t)need);
}

static void heap_push(struct nvl_idr *idr, uint32_t id)
{
	uint32_t i = idr->nfree++;

	while (i) {
		uint32_t p = (i - 1) / 2;

		if (idr->free[p] <= id)
			break;
		idr->free[i] = idr->free[p];
		i = p;
	}
	idr->free[i] = id;
}

static uint32_t heap_pop(struct nvl_idr *idr)
{
	uint32_t top = idr->free[0];
	uint32_t last = idr->free[--idr->nfree];
	uint32_t i = 0, n = idr->nfree;

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && idr->free[c + 1] < idr->free[c])
			c++;
		if (idr->free[c] >= last)
			break;
		idr->free[i] = idr->free[c];
		i = c;
	}
	if (n)
		idr->free[i] = last;
	return top;
}

int nvl_idr_alloc(struct nvl_idr *idr, void *ptr, uint32_t *id_out)
{
	uint32_t id;
	int ret;

	if (!ptr)
		return -EINVAL;
	if (idr->nfree) {
		id = heap_pop(idr);
	} else {
		if (idr->top >= IDR_MAX_ID)
			return -ENOSPC;
		ret = grow(idr, idr->top + 1);
		if (ret)
			return ret;
		id = idr->top + 1;
		/* the slot is in the published array before top covers it */
		__atomic_store_n(&idr->top, id, __ATOMIC_SEQ_CST);
	}
	__atomic_store_n(&idr->slots[id - 1], ptr, __ATOMIC_SEQ_CST);
	idr->count++;
	*id_out = id;
	return 0;
}

void *nvl_idr_remove(struct nvl_idr *idr, uint32_t id)
{
	void *ptr = nvl_idr_find(idr, id);

	if (!ptr)
		return NULL;
	/* seq_cst: the remover's half of the handshake (nvl_idr_find_rcu) */
	__atomic_store_n(&idr->slots[id - 1], NULL, __ATOMIC_SEQ_CST);
	idr->count--;
	if (id == idr->top) {
		__atomic_store_n(&idr->top, id - 1, __ATOMIC_SEQ_CST);
		/* The heap may hold ids above the new top; they stay valid
		 * free ids below cap, so nothing to fix. */
	} else {
		heap_push(idr, id); /* cannot fail: free[] has cap entries */
	}
	return ptr;
}

uint32_t nvl_idr_next(const struct nvl_idr *idr, uint32_t id, void **ptr_out)
{
	if (id == 0)
		id = 1;
	for (; id <= idr->top; id++) {
		if (idr->slots[id - 1]) {
			if (ptr_out)
				*ptr_out = idr->slots[id - 1];
			return id;
		}
	}
	return 0;
}

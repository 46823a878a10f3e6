/* SPDX-License-Identifier: MIT */
/*
 * The memory manager tests' set-up: a memory manager of the given sizes
 * and a device-less client whose BOs live in it. Shared by bo.c,
 * fidelity.c, shrink.c and mm_audit.c; filling and checking a BO's bytes
 * through a CPU map; where a BO lives, using it, dropping it once idle
 * (evict.c, move_chain.c).
 */
#ifndef NVL_TESTS_MM_MMKIT_H
#define NVL_TESTS_MM_MMKIT_H

#include <string.h>

#include "t.h"
#include "base/client.h"
#include "mm/bo.h"

/* a memory manager of @vram_B VRAM (@visible_B CPU-visible), @budget_B host */
static inline struct nvl_mm *mmkit_mm(uint64_t vram_B, uint64_t visible_B,
				      uint64_t budget_B)
{
	struct nvl_mm_config cfg = {.vram_B = vram_B,
				    .visible_B = visible_B,
				    .host_budget_B = budget_B};
	struct nvl_mm *mm;

	assert_int_equal(nvl_mm_create(&cfg, &mm), 0);
	return mm;
}

/* a device-less client whose BOs live in @mm */
static inline struct nvl_client *mmkit_client(struct nvl_mm *mm)
{
	struct nvl_client *c;

	assert_int_equal(nvl_client_alloc(NULL, &c), 0);
	c->mm = mm;
	return c;
}

/* @size bytes of @h set to @v through a CPU map */
static inline void mmkit_fill(struct nvl_client *c, uint32_t h, uint64_t size,
			      uint8_t v)
{
	uint8_t *p;

	assert_int_equal(nvl_bo_map(c, h, (void **)&p), 0);
	memset(p, v, size);
	assert_int_equal(nvl_bo_unmap(c, h), 0);
}

/* every one of @size bytes of @h reads @v through a CPU map */
static inline void mmkit_expect(struct nvl_client *c, uint32_t h, uint64_t size,
				uint8_t v)
{
	uint8_t *p;

	assert_int_equal(nvl_bo_map(c, h, (void **)&p), 0);
	for (uint64_t i = 0; i < size; i++)
		if (p[i] != v)
			fail_msg("byte %llu is %#x, not %#x",
				 (unsigned long long)i, p[i], v);
	assert_int_equal(nvl_bo_unmap(c, h), 0);
}

/* where @bo lives now (read under its manager's lock) */
static inline enum nvl_gem_domain mmkit_where(struct nvl_bo *bo)
{
	enum nvl_gem_domain d;

	nvl_mutex_lock(&bo->mm->lock);
	d = bo->dom;
	nvl_mutex_unlock(&bo->mm->lock);
	return d;
}

/* @bo brought to its preferred place, as a use of it does */
static inline void mmkit_use(struct nvl_bo *bo)
{
	assert_int_equal(nvl_resv_lock(bo->gem.resv, NULL), 0);
	assert_int_equal(nvl_bo_validate_preferred(bo), 0);
	nvl_resv_unlock(bo->gem.resv);
}

/* drop @bo once every fence on it signalled */
static inline void mmkit_idle_put(struct nvl_bo *bo)
{
	(void)nvl_resv_wait(bo->gem.resv, NVL_RESV_USAGE_BOOKKEEP,
			    NVL_TIMEOUT_INFINITE);
	nvl_bo_put(bo);
}

/* every byte of @bo reads @v through a kernel map (its lock held) */
static inline void mmkit_expect_bo(struct nvl_bo *bo, uint8_t v)
{
	uint8_t *p;

	assert_int_equal(nvl_resv_lock(bo->gem.resv, NULL), 0);
	assert_int_equal(nvl_bo_kmap(bo, (void **)&p), 0);
	for (size_t i = 0; i < bo->gem.size_B; i++)
		if (p[i] != v)
			fail_msg("byte %zu is %#x, not %#x", i, p[i], v);
	nvl_bo_kunmap(bo);
	nvl_resv_unlock(bo->gem.resv);
}

#endif

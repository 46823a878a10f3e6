/* SPDX-License-Identifier: MIT */
/*
 * The memory manager tests' set-up: a memory manager of the given sizes
 * and a device-less client whose BOs live in it. Shared by bo.c,
 * fidelity.c, shrink.c and mm_audit.c.
 */
#ifndef NVL_TESTS_MM_MMKIT_H
#define NVL_TESTS_MM_MMKIT_H

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

#endif

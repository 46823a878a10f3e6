/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the mmu tests: a model device with a fault buffer, a bump
 * allocator of VRAM for hand-built tables, and the tests' own encoders of
 * the v2/v3 formats (a third reading of the manual, independent of the
 * driver's and the model's).
 */
#ifndef NVL_TESTS_MMUT_H
#define NVL_TESTS_MMUT_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "hw/fault.h"
#include "hw/hwif.h"
#include "hw/regs.h"
#include "model/mmu.h"
#include "model/model.h"

#define MIB (1ull << 20)
#define FAULT_BUF_ENTRIES 64u

struct dev {
	struct nvl_model *m;
	struct nvl_hw *hw;
	uint64_t next; /* bump allocator for tables (grows up) */
	uint64_t fbuf; /* fault buffer (VRAM) */
	uint32_t fget; /* entries consumed */
};

/* VRAM layout of the tests: tables from 192 MiB, fault buffer at 190. */
#define TABLES_BASE (192 * MIB)
#define FBUF_BASE (190 * MIB)

static inline struct dev *dev_up(const char *profile)
{
	struct dev *d = calloc(1, sizeof(*d));

	assert_non_null(d);
	assert_int_equal(
		nvl_model_create(nvl_model_profile_find(profile), &d->m), 0);
	d->hw = nvl_model_hw(d->m);
	d->next = TABLES_BASE;
	d->fbuf = FBUF_BASE;
	nvl_hw_wr32(
		d->hw, NVL_HW_FAULT_BUF_LO(0),
		NVL_HW_FAULT_BUF_LO_PHYS(d->fbuf, NVL_HW_FAULT_APERTURE_VID));
	nvl_hw_wr32(d->hw, NVL_HW_FAULT_BUF_HI(0), (uint32_t)(d->fbuf >> 32));
	nvl_hw_wr32(d->hw, NVL_HW_FAULT_BUF_SIZE(0),
		    FAULT_BUF_ENTRIES | NVL_HW_FAULT_BUF_SIZE_ENABLE);
	return d;
}

static inline void dev_down(struct dev *d)
{
	nvl_model_destroy(d->m);
	free(d);
}

static inline uint64_t dev_alloc(struct dev *d, uint64_t size, uint64_t align)
{
	uint64_t a = (d->next + align - 1) & ~(align - 1);
	uint8_t zero[4096] = {0};

	d->next = a + size;
	for (uint64_t o = 0; o < size; o += sizeof(zero))
		assert_int_equal(nvl_hw_vram_write(d->hw, a + o, zero,
						   size - o < sizeof(zero)
							   ? size - o
							   : sizeof(zero)),
				 0);
	return a;
}

static inline void w64(struct dev *d, uint64_t pa, uint64_t v)
{
	assert_int_equal(nvl_hw_vram_write(d->hw, pa, &v, 8), 0);
}

static inline uint64_t r64(struct dev *d, uint64_t pa)
{
	uint64_t v = 0;

	assert_int_equal(nvl_hw_vram_read(d->hw, pa, &v, 8), 0);
	return v;
}

/* The next fault-buffer entry, or false when none is pending. */
struct fault_ent {
	uint64_t va;
	unsigned int type, access, engine;
};

static inline bool dev_next_fault(struct dev *d, struct fault_ent *f)
{
	uint32_t put = nvl_hw_rd32(d->hw, NVL_HW_FAULT_BUF_PUT(0)) &
		       NVL_HW_FAULT_BUF_PTR_MASK;
	uint32_t e[8];

	if (put == d->fget)
		return false;
	assert_int_equal(
		nvl_hw_vram_read(d->hw, d->fbuf + d->fget * 32ull, e, 32), 0);
	assert_true(e[NVL_HW_FAULT_ENTRY_INFO] & NVL_HW_FAULT_INFO_VALID);
	f->va = (uint64_t)e[NVL_HW_FAULT_ENTRY_ADDR_HI] << 32 |
		e[NVL_HW_FAULT_ENTRY_ADDR_LO];
	f->type = e[NVL_HW_FAULT_ENTRY_INFO] & NVL_HW_FAULT_INFO_TYPE_MASK;
	f->access =
		e[NVL_HW_FAULT_ENTRY_INFO] >> NVL_HW_FAULT_INFO_ACCESS_SHIFT &
		NVL_HW_FAULT_INFO_ACCESS_MASK;
	f->engine = e[NVL_HW_FAULT_ENTRY_ENGINE] & 0x1ff;
	d->fget = (d->fget + 1) % FAULT_BUF_ENTRIES;
	nvl_hw_wr32(d->hw, NVL_HW_FAULT_BUF_GET(0), d->fget);
	return true;
}

/* ---- the tests' own v2 encoders ------------------------------------- */

#define V2_PDE_VID(pa) ((((uint64_t)(pa) >> 12) << 8) | 1u << 1)
#define V2_DUAL_BIG_VID(pa) ((((uint64_t)(pa) >> 8) << 4) | 1u << 1)
#define V2_DUAL_SMALL_VID(pa) V2_PDE_VID(pa)
#define V2_PTE_VID(pa) (1u | (((uint64_t)(pa) >> 12) << 8))
#define V2_PTE_SYS(pa) (1u | 2u << 1 | 1u << 3 | (((uint64_t)(pa) >> 12) << 8))
#define V2_PTE_RO (1u << 6)
#define V2_PTE_PRIV (1u << 5)
#define V2_SPARSE (1u << 3)

#endif /* NVL_TESTS_MMUT_H */

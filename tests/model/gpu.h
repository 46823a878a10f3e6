/* SPDX-License-Identifier: MIT */
/*
 * Fixture for the model tests: a "tiny" device, a bring-up kit whose
 * allocations live in the top part of VRAM, and one address space that
 * maps all VRAM identically (VA = VRAM address) with 2 MiB pages. Test
 * buffers use the low GPU_FREE bytes of VRAM.
 */
#ifndef NVL_TESTS_MODEL_GPU_H
#define NVL_TESTS_MODEL_GPU_H

#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "t.h"
#include "base/time.h"
#include "hw/ce.h"
#include "hw/fault.h"
#include "hw/host.h"
#include "hw/regs.h"
#include "model/model_regs.h"
#include "kit.h"
#include "model/model.h"

#define GPU_FREE (64ull << 20)
#define GPU_WAIT (5 * NVL_NSEC_PER_SEC)

struct gpu {
	struct nvl_model *m;
	struct nvl_hw *hw;
	struct nvl_kit kit;
	struct nvl_kit_vm vm;
	uint32_t ce_class;
	atomic_uint irqs;
	atomic_uint nonstall;
	atomic_uint stall;
};

static void gpu_irq(void *arg)
{
	struct gpu *g = arg;
	uint32_t s = nvl_hw_rd32(g->hw, NVL_HW_INTR_STATUS(0));
	uint32_t n = nvl_hw_rd32(g->hw, NVL_HW_INTR_STATUS(1));

	atomic_fetch_or(&g->stall, s);
	atomic_fetch_or(&g->nonstall, n);
	nvl_hw_wr32(g->hw, NVL_HW_INTR_STATUS(0), s);
	nvl_hw_wr32(g->hw, NVL_HW_INTR_STATUS(1), n);
	/* counted last: a test that waits for the count sees the bits and
	 * the cleared status */
	atomic_fetch_add(&g->irqs, 1);
}

static inline struct gpu *gpu_up(const char *profile)
{
	struct gpu *g = calloc(1, sizeof(*g));

	assert_non_null(g);
	assert_int_equal(
		nvl_model_create(nvl_model_profile_find(profile), &g->m), 0);
	g->hw = nvl_model_hw(g->m);
	g->ce_class = g->m->profile->ce_class;
	assert_int_equal(nvl_kit_init(&g->kit, g->hw, GPU_FREE), 0);
	assert_int_equal(nvl_kit_vm_init(&g->kit, &g->vm), 0);
	assert_int_equal(nvl_kit_map(&g->kit, &g->vm, 0, 0, g->kit.vram_size,
				     21, NVL_HW_APERTURE_VIDMEM, 0),
			 0);
	assert_int_equal(nvl_hw_set_irq_handler(g->hw, gpu_irq, g), 0);
	nvl_hw_wr32(g->hw, NVL_HW_INTR_EN_SET(0), ~0u);
	nvl_hw_wr32(g->hw, NVL_HW_INTR_EN_SET(1), ~0u);
	return g;
}

static inline void gpu_down(struct gpu *g)
{
	nvl_model_destroy(g->m);
	free(g);
}

static inline void gpu_chan(struct gpu *g, unsigned chid, unsigned rl,
			    struct nvl_kit_chan *ch)
{
	assert_int_equal(nvl_kit_chan_create(&g->kit, &g->vm, chid, rl, 6,
					     64 << 10, false, ch),
			 0);
}

/* a privileged channel (RAMFC CONFIG PRIV: dev_pbdma AUTH_LEVEL), the
 * only kind that may push MEM_OP_D's TLB invalidates */
static inline void gpu_chan_priv(struct gpu *g, unsigned chid, unsigned rl,
				 struct nvl_kit_chan *ch)
{
	assert_int_equal(nvl_kit_chan_create(&g->kit, &g->vm, chid, rl, 6,
					     64 << 10, true, ch),
			 0);
}

static inline void gpu_push(struct nvl_kit_chan *ch, const uint32_t *p,
			    uint32_t n)
{
	assert_int_equal(nvl_kit_push(ch, p, n), 0);
}

static inline uint32_t gpu_rd(struct gpu *g, uint64_t pa)
{
	uint32_t v = 0;

	assert_int_equal(nvl_hw_vram_read(g->hw, pa, &v, 4), 0);
	return v;
}

static inline void gpu_wr(struct gpu *g, uint64_t pa, uint32_t v)
{
	assert_int_equal(nvl_hw_vram_write(g->hw, pa, &v, 4), 0);
}

/* write one raw GPFIFO entry @e at the ring's start of @ch and kick it */
static inline void gpu_raw_entry(struct gpu *g, struct nvl_kit_chan *ch,
				 uint64_t e)
{
	assert_int_equal(nvl_hw_vram_write(g->hw, ch->gpfifo, &e, 8), 0);
	ch->gp_put = 1;
	gpu_wr(g, ch->userd + NVL_HW_USERD_GP_PUT, 1);
	nvl_hw_wr32(g->hw, NVL_HW_DOORBELL,
		    NVL_HW_DOORBELL_TOKEN(ch->chid, ch->runlist));
}

/* fill @len bytes at @pa with a pattern derived from @seed */
static inline void gpu_fill(struct gpu *g, uint64_t pa, size_t len,
			    uint32_t seed)
{
	uint32_t *b = malloc(len);

	assert_non_null(b);
	for (size_t i = 0; i < len / 4; i++)
		b[i] = seed * 2654435761u + (uint32_t)i;
	assert_int_equal(nvl_hw_vram_write(g->hw, pa, b, len), 0);
	free(b);
}

static inline bool gpu_same(struct gpu *g, uint64_t a, uint64_t b, size_t len)
{
	uint8_t *x = malloc(len), *y = malloc(len);
	bool same;

	assert_non_null(x);
	assert_non_null(y);
	assert_int_equal(nvl_hw_vram_read(g->hw, a, x, len), 0);
	assert_int_equal(nvl_hw_vram_read(g->hw, b, y, len), 0);
	same = !memcmp(x, y, len);
	free(x);
	free(y);
	return same;
}

/* wait for a condition on an atomic counter, bounded */
static inline bool gpu_wait_nonzero(atomic_uint *v, int64_t timeout_ns)
{
	int64_t deadline = nvl_time_ns() + timeout_ns;

	while (!atomic_load(v)) {
		struct timespec ts = {0, 50000};

		if (nvl_time_ns() > deadline)
			return false;
		nanosleep(&ts, NULL);
	}
	return true;
}

/* wait until every bit of @mask is set in @v (an interrupt handler's
 * bits come after the semaphore the test waited for) */
static inline bool gpu_wait_bits(atomic_uint *v, uint32_t mask,
				 int64_t timeout_ns)
{
	int64_t deadline = nvl_time_ns() + timeout_ns;

	while ((atomic_load(v) & mask) != mask) {
		struct timespec ts = {0, 50000};

		if (nvl_time_ns() > deadline)
			return false;
		nanosleep(&ts, NULL);
	}
	return true;
}

#endif /* NVL_TESTS_MODEL_GPU_H */

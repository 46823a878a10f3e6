// SPDX-License-Identifier: MIT
/*
 * TEST: moves chained on the driver's kernel copy channel (docs/driver.md
 * "Memory moves on the copy engine"): two BOs that only one at a time fits
 * in VRAM beside a mapped (unmovable) filler, used in turn, so that each
 * use evicts the other BO right behind its own move back, still in flight.
 * The move worker hands such a move to the channel at once (the channel
 * runs its jobs in order) instead of waiting for the earlier move on the
 * CPU: over the ping-pong it waits for nothing (mm stats dep_waits), and
 * moves were handed over behind pending ones (dep_chained); every byte is
 * right. A copy-engine error inside a chain (a CE_LAUNCH channel error
 * kills the channel: the failing move and those behind it are redone by
 * the CPU, in order) and every allocation of a chained move's submission
 * failing in turn lose nothing, and the engine works after. The fake-
 * engine version, with the hand-over observed while nothing ran:
 * tests/mm/move_chain.c.
 */
#include <errno.h>
#include <string.h>

#include <nouvelle/nouvelle.h>

#include "core/device.h"
#include "mm/bo.h"
#include "t.h"

#define MIB (1ull << 20)
/* the device keeps 32 MiB of usable VRAM for page tables and channels */
#define DRIVER_VRAM (32 * MIB)
#define BO_SIZE (8 * MIB)
#define ROUNDS 8

struct pp {
	struct nvl_device *dev;
	struct nvl_client *c;
	uint32_t fill, bo[2];
};

static uint64_t word(unsigned bo, uint64_t i)
{
	return (uint64_t)(bo + 1) << 48 ^ i * 0x9e3779b97f4a7c15ull;
}

static void pp_up(struct pp *x)
{
	struct nvl_device_opts o = {.vram_size = 256 * MIB};
	struct nvl_device_info in;
	void *fp;

	memset(x, 0, sizeof(*x));
	assert_int_equal(nvl_device_open("model:tiny", &o, &x->dev), 0);
	assert_int_equal(nvl_device_query(x->dev, &in), 0);
	assert_int_equal(nvl_device_client_create(x->dev, &x->c), 0);
	/* room for one BO and a half beside it */
	assert_int_equal(
		nvl_bo_create(x->c,
			      in.vram_usable - DRIVER_VRAM - BO_SIZE * 3 / 2,
			      NVL_BO_DOMAIN_VRAM, NVL_BO_DOMAIN_VRAM,
			      NVL_BO_CPU_VISIBLE, &x->fill),
		0);
	assert_int_equal(nvl_bo_map(x->c, x->fill, &fp), 0);
	for (unsigned i = 0; i < 2; i++) {
		uint64_t *p;

		assert_int_equal(
			nvl_bo_create(x->c, BO_SIZE,
				      NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
				      NVL_BO_DOMAIN_VRAM, NVL_BO_CPU_VISIBLE,
				      &x->bo[i]),
			0);
		assert_int_equal(nvl_bo_map(x->c, x->bo[i], (void **)&p), 0);
		for (uint64_t k = 0; k < BO_SIZE / 8; k++)
			p[k] = word(i, k);
		assert_int_equal(nvl_bo_unmap(x->c, x->bo[i]), 0);
	}
}

static void pp_down(struct pp *x)
{
	assert_int_equal(nvl_bo_unmap(x->c, x->fill), 0);
	nvl_client_destroy(x->c);
	nvl_device_close(x->dev);
}

static void pp_check(struct pp *x)
{
	for (unsigned i = 0; i < 2; i++) {
		uint64_t *p, bad = 0;

		assert_int_equal(nvl_bo_map(x->c, x->bo[i], (void **)&p), 0);
		for (uint64_t k = 0; k < BO_SIZE / 8; k++)
			bad += p[k] != word(i, k);
		assert_int_equal(nvl_bo_unmap(x->c, x->bo[i]), 0);
		assert_int_equal(bad, 0);
	}
}

/* @n uses in turn (each moves one BO in and the other out), then wait */
static void pp_run(struct pp *x, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(nvl_bo_use(x->c, x->bo[i % 2]), 0);
	for (unsigned i = 0; i < 2; i++)
		assert_int_equal(
			nvl_bo_wait(x->c, x->bo[i], 60ll * 1000 * 1000 * 1000),
			0);
}

static void ping_pong_chains_on_the_kernel_channel(void **state)
{
	struct nvl_mm_move_stats m0, m1;
	struct nvl_move_stats s0, s1;
	struct nvl_bo_info bi;
	struct pp x;

	(void)state;
	pp_up(&x);
	/* one fits: the first use evicts the other one */
	pp_run(&x, 2);
	assert_int_equal(nvl_bo_query(x.c, x.bo[0], &bi), 0);
	assert_int_equal(bi.current, NVL_BO_DOMAIN_GTT);
	assert_int_equal(nvl_device_move_stats(x.dev, &s0), 0);
	nvl_mm_move_stats(x.dev->mm, &m0);
	pp_run(&x, 2 * ROUNDS);
	nvl_mm_move_stats(x.dev->mm, &m1);
	assert_int_equal(nvl_device_move_stats(x.dev, &s1), 0);
	/* every use evicted the other BO and moved one back, on the copy
	 * engine */
	assert_true(s1.evictions - s0.evictions >= 2 * ROUNDS);
	assert_true(s1.gpu_jobs - s0.gpu_jobs >= 4 * ROUNDS);
	assert_int_equal(s1.cpu_jobs, s0.cpu_jobs);
	assert_int_equal(s1.gpu_failures, s0.gpu_failures);
	/* each eviction depended on the BO's move back only: never waited
	 * for on the CPU (16 waits here before chaining) */
	assert_int_equal(m1.dep_waits, m0.dep_waits);
	/* and some were handed over still pending (an 8 MiB copy each, the
	 * next use microseconds later: 25 of 32 under ASan; a few more
	 * rounds if a loaded machine let every copy finish first) */
	for (unsigned r = 0; r < 4 && m1.dep_chained == m0.dep_chained; r++) {
		pp_run(&x, 2 * ROUNDS);
		nvl_mm_move_stats(x.dev->mm, &m1);
	}
	assert_true(m1.dep_chained > m0.dep_chained);
	assert_int_equal(m1.dep_waits, m0.dep_waits);
	pp_check(&x);
	pp_down(&x);
}

static void engine_error_in_a_chain_loses_nothing(void **state)
{
	struct nvl_move_stats s0, s1, s2;
	struct pp x;

	(void)state;
	pp_up(&x);
	pp_run(&x, 2);
	assert_int_equal(nvl_device_move_stats(x.dev, &s0), 0);
	/* the eviction of the next use fails on the engine; the move back
	 * and the next use's moves are chained behind it */
	assert_int_equal(
		nvl_device_inject_move_error(x.dev, NVL_MOVE_ERROR_ENGINE, 1),
		0);
	pp_run(&x, 4);
	assert_int_equal(nvl_device_move_stats(x.dev, &s1), 0);
	assert_true(s1.gpu_failures - s0.gpu_failures >= 1);
	assert_int_equal(s1.cpu_jobs - s0.cpu_jobs,
			 s1.gpu_failures - s0.gpu_failures);
	pp_check(&x);
	/* a new channel does the next ones (the moves chained behind the
	 * failed one were all queued on the dead one, cancelled: the next
	 * submission finds it dead) */
	pp_run(&x, 4);
	assert_int_equal(nvl_device_move_stats(x.dev, &s2), 0);
	assert_true(s2.channel_restarts > s0.channel_restarts);
	assert_true(s2.gpu_jobs - s1.gpu_jobs >= 8);
	assert_int_equal(s2.cpu_jobs, s1.cpu_jobs);
	pp_check(&x);
	pp_down(&x);
}

static void chained_move_alloc_failures(void **state)
{
	struct nvl_move_stats s0, s1;
	unsigned tried = 0;
	struct pp x;

	(void)state;
	pp_up(&x);
	pp_run(&x, 2);
	for (uint32_t nth = 1; nth < 64; nth++) {
		assert_int_equal(nvl_device_move_stats(x.dev, &s0), 0);
		assert_int_equal(nvl_device_inject_move_error(
					 x.dev, NVL_MOVE_ERROR_ALLOC, nth),
				 0);
		/* the failing job is the first of four chained ones */
		pp_run(&x, 2);
		pp_check(&x);
		assert_int_equal(nvl_device_move_stats(x.dev, &s1), 0);
		assert_int_equal(s1.gpu_failures, s0.gpu_failures);
		if (s1.cpu_jobs == s0.cpu_jobs)
			break; /* nth is past the job's allocations */
		tried++;
	}
	assert_int_equal(
		nvl_device_inject_move_error(x.dev, NVL_MOVE_ERROR_ALLOC, 0),
		0);
	assert_true(tried >= 1);
	assert_int_equal(nvl_device_move_stats(x.dev, &s0), 0);
	pp_run(&x, 4);
	assert_int_equal(nvl_device_move_stats(x.dev, &s1), 0);
	assert_true(s1.gpu_jobs - s0.gpu_jobs >= 8);
	assert_int_equal(s1.cpu_jobs, s0.cpu_jobs);
	pp_check(&x);
	pp_down(&x);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(ping_pong_chains_on_the_kernel_channel),
	cmocka_unit_test(engine_error_in_a_chain_loses_nothing),
	cmocka_unit_test(chained_move_alloc_failures),
};

T_MAIN(tests)

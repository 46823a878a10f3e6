// SPDX-License-Identifier: MIT
/*
 * TEST: the memory manager's moves and clears run on the copy engine
 * (docs/driver.md "Memory moves"), through the public headers only.
 *
 * - Oversubscription: BOs of four times (tiny; ga102: twice) the usable
 *   VRAM (VRAM preferred,
 *   GTT allowed) written and read round-robin through CPU maps; using one
 *   (nvl_bo_use(), as a submission does) brings it back to VRAM and evicts
 *   the least recently used ones. The
 *   evictions and moves back are copy-engine jobs (physical-mode copies:
 *   SET_SRC_PHYS_MODE / SET_DST_PHYS_MODE TARGET LOCAL_FB and
 *   COHERENT_SYSMEM, LAUNCH_DMA SRC_TYPE / DST_TYPE PHYSICAL); every byte
 *   of every BO is checked after each pass.
 * - Isolation: one client fills VRAM with a pattern and frees it; another
 *   client's new BOs on that memory read zero, cleared by copy-engine
 *   jobs (a fill through the remap unit: SET_REMAP_COMPONENTS DST_X
 *   CONST_A, COMPONENT_SIZE FOUR, LAUNCH_DMA REMAP_ENABLE).
 * - A failing copy-engine move (the copy engine reads outside memory
 *   after the move's first run: a CE_LAUNCH error kills the driver's copy
 *   channel) loses nothing: the CPU redoes it, the next move makes a new
 *   channel and runs on the copy engine again.
 * - Allocation failures on the move path (each allocation of the move
 *   worker's submission in turn): the CPU does that move, no byte lost.
 * - Concurrency: clients mapping and writing their own BOs at once under
 *   oversubscription, every byte checked.
 * - Pipelining: moves queued many at once, with CPU maps and an EXEC of
 *   BOs whose moves are still in flight (they wait for the move fence),
 *   BOs closed mid-move, and an engine error in the middle of a pipeline.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include <nouvelle/nouvelle.h>

#include "kit.h"
#include "t.h"
#include "t_nv.h"

#define MIB (1ull << 20)
/* the device keeps 32 MiB of usable VRAM for page tables and channels
 * (docs/driver.md, "Device life cycle") */
#define DRIVER_VRAM (32 * MIB)
#define BO_SIZE (8 * MIB)
#define NBO_MAX 128

struct dev {
	struct nvl_device *dev;
	struct nvl_client *c;
	uint64_t usable;
};

static void dev_up(struct dev *x, const char *spec)
{
	/* 256 MiB of VRAM on every chip: four times that stays small */
	struct nvl_device_opts o = {.vram_size = 256 * MIB};
	struct nvl_device_info in;

	memset(x, 0, sizeof(*x));
	assert_int_equal(nvl_device_open(spec, &o, &x->dev), 0);
	assert_int_equal(nvl_device_query(x->dev, &in), 0);
	x->usable = in.vram_usable - DRIVER_VRAM;
	assert_int_equal(nvl_device_client_create(x->dev, &x->c), 0);
}

static void dev_down(struct dev *x)
{
	nvl_client_destroy(x->c);
	nvl_device_close(x->dev);
}

static uint64_t word(uint32_t seed, uint32_t bo, uint64_t i)
{
	return (uint64_t)seed << 48 ^ (uint64_t)bo << 32 ^ i ^
	       i * 0x9e3779b97f4a7c15ull;
}

static void write_bo(struct nvl_client *c, uint32_t h, uint32_t seed,
		     uint32_t idx)
{
	uint64_t *p;

	assert_int_equal(nvl_bo_map(c, h, (void **)&p), 0);
	for (uint64_t i = 0; i < BO_SIZE / 8; i++)
		p[i] = word(seed, idx, i);
	assert_int_equal(nvl_bo_unmap(c, h), 0);
}

/* bring the BO back to VRAM (as a submission does), check every byte */
static void check_bo(struct nvl_client *c, uint32_t h, uint32_t seed,
		     uint32_t idx)
{
	struct nvl_bo_info bi;
	uint64_t *p, bad = 0;

	assert_int_equal(nvl_bo_use(c, h), 0);
	assert_int_equal(nvl_bo_map(c, h, (void **)&p), 0);
	assert_int_equal(nvl_bo_query(c, h, &bi), 0);
	assert_int_equal(bi.current, NVL_BO_DOMAIN_VRAM);
	for (uint64_t i = 0; i < BO_SIZE / 8; i++)
		bad += p[i] != word(seed, idx, i);
	assert_int_equal(bad, 0);
	assert_int_equal(nvl_bo_unmap(c, h), 0);
}

static unsigned make_bos(struct nvl_client *c, uint64_t total, uint32_t *h)
{
	unsigned n = (unsigned)(total / BO_SIZE);

	assert_true(n <= NBO_MAX);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(
			nvl_bo_create(c, BO_SIZE,
				      NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
				      NVL_BO_DOMAIN_VRAM, NVL_BO_CPU_VISIBLE,
				      &h[i]),
			0);
	return n;
}

static void oversub_on(const char *spec, unsigned factor)
{
	struct nvl_move_stats s0, s1;
	uint32_t h[NBO_MAX];
	struct dev x;
	unsigned n;

	dev_up(&x, spec);
	n = make_bos(x.c, factor * x.usable, h);
	assert_int_equal(nvl_device_move_stats(x.dev, &s0), 0);
	for (unsigned i = 0; i < n; i++)
		write_bo(x.c, h[i], 1, i);
	for (unsigned i = 0; i < n; i++)
		check_bo(x.c, h[i], 1, i);
	assert_int_equal(nvl_device_move_stats(x.dev, &s1), 0);
	/* the evictions and moves back ran on the copy engine */
	assert_true(s1.evictions - s0.evictions >= n);
	assert_true(s1.gpu_jobs - s0.gpu_jobs >= n);
	assert_true(s1.gpu_bytes - s0.gpu_bytes >= (uint64_t)n * BO_SIZE);
	assert_int_equal(s1.gpu_failures, 0);
	assert_int_equal(s1.cpu_jobs - s0.cpu_jobs, 0);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(nvl_bo_close(x.c, h[i]), 0);
	dev_down(&x);
}

static void oversubscription(void **state)
{
	(void)state;
	oversub_on("model:tiny", 4);
	oversub_on("model:ga102", 2);
}

/* another client's freed VRAM reads zero: the copy engine cleared it */
static void cleared_bos_read_zero(void **state)
{
	struct nvl_move_stats s0, s1;
	struct nvl_client *b;
	uint32_t h[NBO_MAX];
	struct dev x;
	unsigned n;

	(void)state;
	dev_up(&x, "model:tiny");
	n = make_bos(x.c, x.usable - BO_SIZE, h);
	for (unsigned i = 0; i < n; i++)
		write_bo(x.c, h[i], 0xa5, i);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(nvl_bo_close(x.c, h[i]), 0);
	assert_int_equal(nvl_device_client_create(x.dev, &b), 0);
	assert_int_equal(nvl_device_move_stats(x.dev, &s0), 0);
	for (unsigned i = 0; i < n; i++) {
		uint64_t *p, nz = 0;

		assert_int_equal(nvl_bo_create(b, BO_SIZE, NVL_BO_DOMAIN_VRAM,
					       0, NVL_BO_CPU_VISIBLE, &h[i]),
				 0);
		assert_int_equal(nvl_bo_map(b, h[i], (void **)&p), 0);
		for (uint64_t k = 0; k < BO_SIZE / 8; k++)
			nz += p[k] != 0;
		assert_int_equal(nz, 0);
		assert_int_equal(nvl_bo_unmap(b, h[i]), 0);
	}
	assert_int_equal(nvl_device_move_stats(x.dev, &s1), 0);
	/* the freed memory was dirty: clears, all on the copy engine */
	assert_true(s1.gpu_jobs - s0.gpu_jobs >= n / 2);
	assert_int_equal(s1.cpu_jobs - s0.cpu_jobs, 0);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(nvl_bo_close(b, h[i]), 0);
	nvl_client_destroy(b);
	dev_down(&x);
}

/* oversubscribe by two BOs: mapping BO @i evicts one other */
static unsigned small_oversub(struct dev *x, uint32_t *h)
{
	unsigned n = make_bos(x->c, x->usable + 2 * BO_SIZE, h);

	for (unsigned i = 0; i < n; i++)
		write_bo(x->c, h[i], 3, i);
	return n;
}

static void engine_error_loses_nothing(void **state)
{
	struct nvl_move_stats s0, s1, s2;
	uint32_t h[NBO_MAX];
	struct dev x;
	unsigned n;

	(void)state;
	dev_up(&x, "model:tiny");
	n = small_oversub(&x, h);
	assert_int_equal(nvl_device_inject_move_error(x.dev, 0, 1), -EINVAL);
	assert_int_equal(nvl_device_inject_move_error(NULL, 1, 1), -EINVAL);
	assert_int_equal(nvl_device_move_stats(x.dev, &s0), 0);
	assert_int_equal(
		nvl_device_inject_move_error(x.dev, NVL_MOVE_ERROR_ENGINE, 1),
		0);
	/* the first BO was evicted: bringing it back evicts another; the
	 * first of those copies fails on the GPU */
	for (unsigned i = 0; i < n; i++)
		check_bo(x.c, h[i], 3, i);
	assert_int_equal(nvl_device_move_stats(x.dev, &s1), 0);
	/* the failing eviction, and the move back when it was queued
	 * behind it on the channel the error killed (cancelled): each
	 * redone by the CPU */
	assert_true(s1.gpu_failures - s0.gpu_failures >= 1);
	assert_true(s1.gpu_failures - s0.gpu_failures <= 2);
	assert_int_equal(s1.cpu_jobs - s0.cpu_jobs,
			 s1.gpu_failures - s0.gpu_failures);
	/* later moves made a new channel and ran on the copy engine */
	assert_true(s1.channel_restarts >= 1);
	for (unsigned i = 0; i < n; i++)
		check_bo(x.c, h[i], 3, i);
	assert_int_equal(nvl_device_move_stats(x.dev, &s2), 0);
	assert_true(s2.gpu_jobs - s1.gpu_jobs >= n);
	assert_int_equal(s2.gpu_failures, s1.gpu_failures);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(nvl_bo_close(x.c, h[i]), 0);
	dev_down(&x);
}

static void move_alloc_failures(void **state)
{
	struct nvl_move_stats s0, s1;
	uint32_t h[NBO_MAX];
	unsigned n, next = 0, tried = 0;
	struct dev x;

	(void)state;
	dev_up(&x, "model:tiny");
	n = small_oversub(&x, h);
	for (uint32_t nth = 1; nth < 64; nth++) {
		assert_int_equal(nvl_device_move_stats(x.dev, &s0), 0);
		assert_int_equal(nvl_device_inject_move_error(
					 x.dev, NVL_MOVE_ERROR_ALLOC, nth),
				 0);
		/* bring back the least recently used: one eviction, one
		 * move back */
		check_bo(x.c, h[next], 3, next);
		next = (next + 1) % n;
		assert_int_equal(nvl_device_move_stats(x.dev, &s1), 0);
		assert_int_equal(s1.gpu_failures, s0.gpu_failures);
		if (s1.cpu_jobs == s0.cpu_jobs)
			break; /* nth is past the job's allocations */
		tried++;
	}
	assert_int_equal(
		nvl_device_inject_move_error(x.dev, NVL_MOVE_ERROR_ALLOC, 0),
		0);
	assert_true(tried >= 2);
	/* nothing lost, and the copy engine still works */
	assert_int_equal(nvl_device_move_stats(x.dev, &s0), 0);
	for (unsigned i = 0; i < n; i++)
		check_bo(x.c, h[i], 3, i);
	assert_int_equal(nvl_device_move_stats(x.dev, &s1), 0);
	assert_true(s1.gpu_jobs > s0.gpu_jobs);
	assert_int_equal(s1.cpu_jobs, s0.cpu_jobs);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(nvl_bo_close(x.c, h[i]), 0);
	dev_down(&x);
}

/* read every byte of BO @h through a CPU map, in place (no nvl_bo_use()) */
static uint64_t bad_words(struct nvl_client *c, uint32_t h, uint32_t seed,
			  uint32_t idx)
{
	uint64_t *p, bad = 0;

	assert_int_equal(nvl_bo_map(c, h, (void **)&p), 0);
	for (uint64_t i = 0; i < BO_SIZE / 8; i++)
		bad += p[i] != word(seed, idx, i);
	assert_int_equal(nvl_bo_unmap(c, h), 0);
	return bad;
}

/*
 * Moves are pipelined: bringing every BO back in turn queues an eviction
 * and a move back each, all in flight at once; the BO's new placement is
 * valid at once behind its move fence, so a CPU map right away waits for
 * the move (and sees every byte), and the BO reports busy until then.
 */
static void map_waits_for_pipelined_move(void **state)
{
	struct nvl_move_stats s0, s1;
	uint32_t h[NBO_MAX];
	unsigned n, busy = 0;
	struct dev x;

	(void)state;
	dev_up(&x, "model:tiny");
	n = make_bos(x.c, 2 * x.usable, h);
	for (unsigned i = 0; i < n; i++)
		write_bo(x.c, h[i], 5, i);
	assert_int_equal(nvl_device_move_stats(x.dev, &s0), 0);
	for (unsigned r = 0; r < 2; r++) {
		/* the first half is in GTT: each use moves one back and
		 * evicts one of the second half, nothing waited for */
		for (unsigned i = 0; i < n / 2; i++)
			assert_int_equal(nvl_bo_use(x.c, h[i]), 0);
		for (unsigned i = 0; i < n / 2; i++)
			busy += nvl_bo_wait(x.c, h[i], 0) == -ETIME;
		for (unsigned i = 0; i < n / 2; i++)
			assert_int_equal(bad_words(x.c, h[i], 5, i), 0);
		/* and the second half back */
		for (unsigned i = n / 2; i < n; i++)
			assert_int_equal(nvl_bo_use(x.c, h[i]), 0);
		for (unsigned i = n / 2; i < n; i++)
			assert_int_equal(bad_words(x.c, h[i], 5, i), 0);
	}
	assert_int_equal(nvl_device_move_stats(x.dev, &s1), 0);
	/* the moves were still in flight when they were looked at */
	assert_true(busy > 0);
	assert_true(s1.gpu_jobs - s0.gpu_jobs >= 2 * n);
	assert_int_equal(s1.cpu_jobs, s0.cpu_jobs);
	assert_int_equal(s1.gpu_failures, 0);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(nvl_bo_close(x.c, h[i]), 0);
	dev_down(&x);
}

/*
 * BOs closed while their moves are in flight: the memory they leave is
 * given back only after the moves finish (freed VRAM is cleared before a
 * new BO reads it, and reads zero); the BOs that stay keep every byte.
 */
static void close_bo_mid_move(void **state)
{
	struct nvl_move_stats s0, s1;
	uint32_t h[NBO_MAX], g[NBO_MAX];
	unsigned n, ng;
	struct dev x;

	(void)state;
	dev_up(&x, "model:tiny");
	n = make_bos(x.c, 2 * x.usable, h);
	for (unsigned i = 0; i < n; i++)
		write_bo(x.c, h[i], 6, i);
	assert_int_equal(nvl_device_move_stats(x.dev, &s0), 0);
	/* every other BO of the first half: brought back, then closed with
	 * its move back (and the eviction it caused) in flight */
	for (unsigned i = 0; i < n / 2; i += 2) {
		assert_int_equal(nvl_bo_use(x.c, h[i]), 0);
		assert_int_equal(nvl_bo_close(x.c, h[i]), 0);
	}
	/* the others are intact wherever they are */
	for (unsigned i = 0; i < n; i++)
		if (i >= n / 2 || i % 2)
			assert_int_equal(bad_words(x.c, h[i], 6, i), 0);
	/* new BOs on the freed memory read zero */
	ng = make_bos(x.c, (n / 4) * BO_SIZE, g);
	for (unsigned i = 0; i < ng; i++) {
		uint64_t *p, nz = 0;

		assert_int_equal(nvl_bo_use(x.c, g[i]), 0);
		assert_int_equal(nvl_bo_map(x.c, g[i], (void **)&p), 0);
		for (uint64_t k = 0; k < BO_SIZE / 8; k++)
			nz += p[k] != 0;
		assert_int_equal(nz, 0);
		assert_int_equal(nvl_bo_unmap(x.c, g[i]), 0);
	}
	for (unsigned i = 0; i < n; i++)
		if (i >= n / 2 || i % 2)
			check_bo(x.c, h[i], 6, i);
	assert_int_equal(nvl_device_move_stats(x.dev, &s1), 0);
	assert_int_equal(s1.cpu_jobs, s0.cpu_jobs);
	assert_int_equal(s1.gpu_failures, 0);
	for (unsigned i = 0; i < ng; i++)
		assert_int_equal(nvl_bo_close(x.c, g[i]), 0);
	for (unsigned i = 0; i < n; i++)
		if (i >= n / 2 || i % 2)
			assert_int_equal(nvl_bo_close(x.c, h[i]), 0);
	dev_down(&x);
}

/*
 * A copy-engine error in the middle of a pipeline of moves: the failing
 * move and those queued behind it on the channel it killed are redone by
 * the CPU, in order, before their fences signal; the moves after run on a
 * new channel; no byte is lost anywhere.
 */
static void engine_error_mid_pipeline(void **state)
{
	struct nvl_move_stats s0, s1, s2;
	uint32_t h[NBO_MAX];
	struct dev x;
	unsigned n;

	(void)state;
	dev_up(&x, "model:tiny");
	n = make_bos(x.c, 2 * x.usable, h);
	for (unsigned i = 0; i < n; i++)
		write_bo(x.c, h[i], 7, i);
	assert_int_equal(nvl_device_move_stats(x.dev, &s0), 0);
	/* a few moves in flight, then the failing one, then more */
	for (unsigned i = 0; i < n / 2; i++) {
		if (i == 3)
			assert_int_equal(
				nvl_device_inject_move_error(
					x.dev, NVL_MOVE_ERROR_ENGINE, 1),
				0);
		assert_int_equal(nvl_bo_use(x.c, h[i]), 0);
	}
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(bad_words(x.c, h[i], 7, i), 0);
	assert_int_equal(nvl_device_move_stats(x.dev, &s1), 0);
	assert_true(s1.gpu_failures - s0.gpu_failures >= 1);
	assert_int_equal(s1.cpu_jobs - s0.cpu_jobs,
			 s1.gpu_failures - s0.gpu_failures);
	/* the copy engine does the moves again, on a new channel (with
	 * chained moves every move of the first loop may have been queued on
	 * the old one before it died: the restart comes with the next) */
	for (unsigned i = 0; i < n; i++)
		check_bo(x.c, h[i], 7, i);
	assert_int_equal(nvl_device_move_stats(x.dev, &s2), 0);
	assert_true(s2.channel_restarts > s0.channel_restarts);
	assert_true(s2.gpu_jobs - s1.gpu_jobs >= n / 2);
	assert_int_equal(s2.gpu_failures, s1.gpu_failures);
	assert_int_equal(s2.cpu_jobs, s1.cpu_jobs);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(nvl_bo_close(x.c, h[i]), 0);
	dev_down(&x);
}

#define VA_PB (32 * MIB)
#define VA_SEM (40 * MIB)
#define VA_X (64 * MIB)
#define VA_Y (128 * MIB)

/* the rig's client with a semaphore BO */
static void ecl_up(struct nvl_device *dev, struct t_nv_cl *k)
{
	t_nv_cl_up(k, dev, VA_PB, 0);
	t_nv_cl_sem(k, 4 * T_NV_KIB, VA_SEM);
}

/*
 * An EXEC of a BO whose move back is queued but held up waits for the
 * move: client A's job waits on the GPU for a semaphore before filling X,
 * so X's eviction (which waits for A's job) holds up the moves queued
 * behind it, among them the move back of client C's Y, which C's exec
 * copies from. While the semaphore is not released C's exec has not run
 * and Y reads busy; after, C's copy holds Y's bytes and X holds A's fill.
 */
static void exec_waits_for_move(void **state)
{
	struct nvl_device_opts o = {.vram_size = 256 * MIB};
	struct nvl_device_info info;
	struct nvl_device *dev;
	struct nvl_bo_info bi;
	struct t_nv_cl a, b, c;
	uint32_t x, y, z, big, n;
	uint64_t *q, bad = 0;

	(void)state;
	assert_int_equal(nvl_device_open("model:ga102", &o, &dev), 0);
	assert_int_equal(nvl_device_query(dev, &info), 0);
	ecl_up(dev, &a);
	ecl_up(dev, &b);
	ecl_up(dev, &c);
	x = t_nv_cl_bo(&a, BO_SIZE, NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
		       VA_X, NULL);
	assert_int_equal(nvl_bo_use(a.c, x), 0);
	y = t_nv_cl_bo(&c, BO_SIZE, NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
		       VA_X, NULL);
	z = t_nv_cl_bo(&c, BO_SIZE, NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
		       VA_Y, NULL);
	write_bo(c.c, y, 9, 0);
	assert_int_equal(nvl_bo_use(c.c, z), 0);
	/* A's job: wait for the semaphore, then fill X */
	a.psem[0] = 0;
	n = nvl_kit_pb_acquire(a.ppb, VA_SEM, 1);
	n += nvl_kit_pb_memset(a.ppb + n, info.ce_class, VA_X, 0x600dcafe,
			       BO_SIZE);
	assert_int_equal(t_nv_cl_exec(&a, a.chan, 0, n), 0);
	/* B takes all of VRAM but a little: X, Y and Z go to GTT; X's
	 * eviction waits for A's job, and the moves behind it with it */
	assert_int_equal(nvl_bo_create(b.c,
				       info.vram_usable - DRIVER_VRAM - 4 * MIB,
				       NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
				       NVL_BO_DOMAIN_VRAM, 0, &big),
			 0);
	assert_int_equal(nvl_bo_use(b.c, big), 0);
	assert_int_equal(nvl_bo_query(c.c, y, &bi), 0);
	assert_int_equal(bi.current, NVL_BO_DOMAIN_GTT);
	/* C copies Y to Z: the exec brings both back (evicting B's BO) */
	n = nvl_kit_pb_copy(c.ppb, info.ce_class, VA_Y, VA_X, BO_SIZE);
	assert_int_equal(t_nv_cl_exec(&c, c.chan, 0, n), 0);
	/* held up behind X's eviction: C's job has not run, Y is busy */
	assert_int_equal(nvl_syncobj_wait(c.c, &c.sync, NULL, 1, 0, 0, NULL),
			 -ETIME);
	assert_int_equal(nvl_bo_wait(c.c, y, 0), -ETIME);
	atomic_store_explicit((_Atomic uint32_t *)&a.psem[0], 1,
			      memory_order_release);
	assert_int_equal(t_nv_cl_wait(&a, 60 * T_NV_SEC), 0);
	assert_int_equal(t_nv_cl_wait(&c, 60 * T_NV_SEC), 0);
	assert_int_equal(nvl_bo_map(c.c, z, (void **)&q), 0);
	for (uint64_t i = 0; i < BO_SIZE / 8; i++)
		bad += q[i] != word(9, 0, i);
	assert_int_equal(nvl_bo_unmap(c.c, z), 0);
	assert_int_equal(bad, 0);
	t_nv_expect_words(a.c, x, 0, BO_SIZE / 4, 0x600dcafe, "A's fill of X");
	t_nv_cl_close(&a);
	t_nv_cl_close(&b);
	t_nv_cl_close(&c);
	nvl_device_close(dev);
}

#define CC_CLIENTS 3
#define CC_ROUNDS 3

struct cc {
	struct nvl_device *dev;
	uint32_t idx;
	uint64_t each;
};

static void *cc_main(void *arg)
{
	struct cc *k = arg;
	struct nvl_client *c;
	uint32_t h[NBO_MAX];
	unsigned n;

	assert_int_equal(nvl_device_client_create(k->dev, &c), 0);
	n = make_bos(c, k->each, h);
	for (uint32_t r = 0; r < CC_ROUNDS; r++) {
		for (unsigned i = 0; i < n; i++)
			write_bo(c, h[i], k->idx << 8 | r, i);
		for (unsigned i = 0; i < n; i++)
			check_bo(c, h[i], k->idx << 8 | r, i);
	}
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(nvl_bo_close(c, h[i]), 0);
	nvl_client_destroy(c);
	return NULL;
}

static void concurrent_clients(void **state)
{
	struct nvl_move_stats s;
	pthread_t th[CC_CLIENTS];
	struct cc k[CC_CLIENTS];
	struct dev x;

	(void)state;
	dev_up(&x, "model:tiny");
	for (unsigned i = 0; i < CC_CLIENTS; i++) {
		k[i].dev = x.dev;
		k[i].idx = i + 1;
		/* together twice the usable VRAM */
		k[i].each = 2 * x.usable / CC_CLIENTS / BO_SIZE * BO_SIZE;
		assert_int_equal(pthread_create(&th[i], NULL, cc_main, &k[i]),
				 0);
	}
	for (unsigned i = 0; i < CC_CLIENTS; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(nvl_device_move_stats(x.dev, &s), 0);
	assert_true(s.gpu_jobs > 0);
	assert_int_equal(s.gpu_failures, 0);
	dev_down(&x);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(oversubscription),
		cmocka_unit_test(cleared_bos_read_zero),
		cmocka_unit_test(engine_error_loses_nothing),
		cmocka_unit_test(move_alloc_failures),
		cmocka_unit_test(concurrent_clients),
		cmocka_unit_test(map_waits_for_pipelined_move),
		cmocka_unit_test(close_bo_mid_move),
		cmocka_unit_test(engine_error_mid_pipeline),
		cmocka_unit_test(exec_waits_for_move),
	};

	return t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
}

// SPDX-License-Identifier: MIT
/*
 * TEST: move_chain
 * Description: a move behind a move of the same BO still in flight on the
 * device goes to the device at once (mm.c wait_deps(): the device runs
 * the manager's jobs in order on one channel, so an earlier job of the
 * FIFO needs no CPU wait), against a fake copy engine whose jobs run only
 * when the test says so: all four jobs of two BOs evicting each other are
 * handed over before the first runs; the data is right after; a job of
 * the chain that fails (and those the dead channel cancels behind it) is
 * redone by the CPU in order, nothing lost, and the next jobs go to a new
 * channel; a purge behind a move in flight still waits for it; a
 * dependency of another context is still waited for on the CPU.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "t.h"
#include "mmkit.h"
#include "base/log.h"
#include "mm/bo.h"
#include "sync/fence.h"

#define MiB (1ull << 20)
#define NJOB 32

/* a job handed to the fake engine: its runs and its fence */
struct fjob {
	struct nvl_mm_extent src[4], dst[4];
	unsigned nsrc, ndst;
	bool clear;
	struct nvl_fence *f;
};

/*
 * The fake engine: jobs queue up until the test runs them, in order; a
 * failed job kills the channel (those behind it are cancelled), and the
 * next submission finds it dead (-EAGAIN, then a new channel).
 */
static struct {
	pthread_mutex_t lock;
	uint64_t ctx;
	struct fjob job[NJOB];
	unsigned n, done; /* submitted, finished (ran or failed) */
	bool dead;
	unsigned restarts;
} fe = {.lock = PTHREAD_MUTEX_INITIALIZER};

static int fe_queue(const struct nvl_mm_extent *src, unsigned nsrc,
		    const struct nvl_mm_extent *dst, unsigned ndst,
		    struct nvl_fence **out)
{
	struct fjob *j;
	int ret = 0;

	pthread_mutex_lock(&fe.lock);
	if (fe.dead) {
		/* the caller waits for the jobs in flight, then calls again */
		fe.dead = false;
		fe.restarts++;
		ret = -EAGAIN;
	} else if (fe.n == NJOB || nsrc > 4 || ndst > 4) {
		ret = -ENOSPC;
	} else {
		j = &fe.job[fe.n];
		memset(j, 0, sizeof(*j));
		j->clear = !src;
		if (src)
			memcpy(j->src, src, nsrc * sizeof(*src));
		memcpy(j->dst, dst, ndst * sizeof(*dst));
		j->nsrc = nsrc;
		j->ndst = ndst;
		ret = nvl_fence_create(&j->f, fe.ctx, fe.n + 1);
		if (!ret) {
			*out = nvl_fence_get(j->f);
			fe.n++;
		}
	}
	pthread_mutex_unlock(&fe.lock);
	return ret;
}

static int fe_copy(void *priv, const struct nvl_mm_extent *src, unsigned nsrc,
		   const struct nvl_mm_extent *dst, unsigned ndst,
		   struct nvl_fence **out)
{
	(void)priv;
	return fe_queue(src, nsrc, dst, ndst, out);
}

static int fe_clear(void *priv, const struct nvl_mm_extent *dst, unsigned ndst,
		    struct nvl_fence **out)
{
	(void)priv;
	return fe_queue(NULL, 0, dst, ndst, out);
}

static const struct nvl_mm_move_ops fe_ops = {
	.copy = fe_copy,
	.clear = fe_clear,
};

/* the job's work, as the worker's CPU copy does it */
static void fe_exec(struct fjob *j)
{
	nvl_mm_extents_copy(j->clear ? NULL : j->src, j->nsrc, j->dst, j->ndst);
}

/* run the jobs queued so far, in order; the @fail-th (1-based; 0: none)
 * fails after writing half its first run, those behind it are cancelled */
static void fe_run(unsigned fail)
{
	pthread_mutex_lock(&fe.lock);
	for (; fe.done < fe.n; fe.done++) {
		struct fjob *j = &fe.job[fe.done];

		if (fail && fe.done + 1 == fail) {
			memset(j->dst[0].p, 0xee, j->dst[0].len / 2);
			nvl_fence_set_error(j->f, -EIO);
			fe.dead = true;
		} else if (fail && fe.done + 1 > fail) {
			nvl_fence_set_error(j->f, -ECANCELED);
		} else {
			fe_exec(j);
		}
		assert_int_equal(nvl_fence_signal(j->f), 0);
		nvl_fence_put(j->f);
		j->f = NULL;
	}
	pthread_mutex_unlock(&fe.lock);
}

static unsigned fe_queued(void)
{
	unsigned n;

	pthread_mutex_lock(&fe.lock);
	n = fe.n;
	pthread_mutex_unlock(&fe.lock);
	return n;
}

/* wait (bounded: 5 s) until @n jobs were handed to the engine */
static bool fe_wait_queued(unsigned n)
{
	for (int i = 0; i < 50000 && fe_queued() < n; i++)
		usleep(100);
	return fe_queued() >= n;
}

/* host pages the fake engine "reaches": their CPU address as DMA address */
static uint64_t fe_dma_addr(void *priv, const void *p)
{
	(void)priv;
	return (uint64_t)(uintptr_t)p;
}

static const struct nvl_mm_mem_ops fe_mem = {
	.vram_map = nvl_mm_anon_pages_alloc,
	.vram_unmap = nvl_mm_anon_pages_free,
	.pages_alloc = nvl_mm_anon_pages_alloc,
	.pages_free = nvl_mm_anon_pages_free,
	.dma_addr = fe_dma_addr,
};

static struct nvl_bo *mk(struct nvl_mm *mm, uint8_t v)
{
	uint32_t dom = NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT;
	struct nvl_bo *bo;
	uint8_t *p;

	assert_int_equal(
		nvl_bo_create_internal(mm, 1, 2 * MiB, dom, NVL_BO_DOMAIN_VRAM,
				       NVL_BO_CPU_VISIBLE, NULL, NULL, &bo),
		0);
	assert_int_equal(nvl_resv_lock(bo->gem.resv, NULL), 0);
	assert_int_equal(nvl_bo_kmap(bo, (void **)&p), 0);
	memset(p, v, 2 * MiB);
	nvl_bo_kunmap(bo);
	nvl_resv_unlock(bo->gem.resv);
	return bo;
}

/*
 * 2 MiB of VRAM, two 2 MiB BOs: a (0x11) in GTT, x (0x22) in VRAM, made
 * with the CPU; then the fake engine takes the moves.
 */
static struct nvl_mm *two_bos(struct nvl_bo **a, struct nvl_bo **x)
{
	struct nvl_mm_config cfg = {.vram_B = 2 * MiB, .ops = &fe_mem};
	struct nvl_mm *mm;

	pthread_mutex_lock(&fe.lock);
	fe.ctx = nvl_fence_context_alloc(1);
	fe.n = fe.done = 0;
	fe.dead = false;
	fe.restarts = 0;
	pthread_mutex_unlock(&fe.lock);
	assert_int_equal(nvl_mm_create(&cfg, &mm), 0);
	*a = mk(mm, 0x11);
	*x = mk(mm, 0x22); /* evicts a */
	assert_int_equal(nvl_mm_wait_idle(mm, NVL_TIMEOUT_INFINITE), 0);
	assert_int_equal(mmkit_where(*a), NVL_GEM_DOMAIN_GTT);
	nvl_mm_set_move_ops(mm, &fe_ops, NULL);
	return mm;
}

static void done(struct nvl_mm *mm, struct nvl_bo *a, struct nvl_bo *x)
{
	nvl_mm_set_move_ops(mm, NULL, NULL);
	(void)nvl_resv_wait(a->gem.resv, NVL_RESV_USAGE_BOOKKEEP,
			    NVL_TIMEOUT_INFINITE);
	(void)nvl_resv_wait(x->gem.resv, NVL_RESV_USAGE_BOOKKEEP,
			    NVL_TIMEOUT_INFINITE);
	nvl_bo_put(a);
	nvl_bo_put(x);
	nvl_mm_destroy(mm);
}

/*
 * mmkit_use(a), mmkit_use(x): x's eviction, a's move back, a's eviction (behind a's
 * move back), x's move back (behind x's eviction): four jobs, the last
 * two each behind an earlier one of the same BO, all handed to the engine
 * while none of them ran. Before wait_deps(), the worker waited on the
 * CPU for a's move back before handing a's eviction over: two jobs.
 */
static void queue_ping_pong(struct nvl_mm *mm, struct nvl_bo *a,
			    struct nvl_bo *x)
{
	struct nvl_mm_move_stats s0, s1;

	nvl_mm_move_stats(mm, &s0);
	mmkit_use(a);
	mmkit_use(x);
	assert_int_equal(mmkit_where(a), NVL_GEM_DOMAIN_GTT);
	assert_int_equal(mmkit_where(x), NVL_GEM_DOMAIN_VRAM);
	assert_true(fe_wait_queued(4));
	nvl_mm_move_stats(mm, &s1);
	/* a's eviction behind a's move back, x's move back behind x's
	 * eviction; nothing waited for on the CPU */
	assert_int_equal(s1.dep_chained - s0.dep_chained, 2);
	assert_int_equal(s1.dep_waits - s0.dep_waits, 0);
	/* none has run: the BOs' fences pend */
	assert_false(
		nvl_resv_test_signaled(a->gem.resv, NVL_RESV_USAGE_KERNEL));
	assert_false(
		nvl_resv_test_signaled(x->gem.resv, NVL_RESV_USAGE_KERNEL));
}

static void moves_chain_on_the_device(void **state)
{
	struct nvl_mm_move_stats s0, s1;
	struct nvl_bo *a, *x;
	struct nvl_mm *mm = two_bos(&a, &x);

	(void)state;
	nvl_mm_move_stats(mm, &s0);
	queue_ping_pong(mm, a, x);
	fe_run(0);
	assert_int_equal(nvl_mm_wait_idle(mm, NVL_TIMEOUT_INFINITE), 0);
	mmkit_expect_bo(a, 0x11);
	mmkit_expect_bo(x, 0x22);
	nvl_mm_move_stats(mm, &s1);
	assert_int_equal(s1.gpu_jobs - s0.gpu_jobs, 4);
	assert_int_equal(s1.cpu_jobs - s0.cpu_jobs, 0);
	done(mm, a, x);
}

/*
 * The chain's second job (a's move back, which a's eviction is chained
 * behind) fails half-written: it and the two the dead channel cancels
 * behind it are redone by the CPU in order (a's move back before a's
 * eviction reads it); nothing lost; the next jobs make a new channel.
 */
static void failed_move_in_a_chain_is_redone_in_order(void **state)
{
	struct nvl_mm_move_stats s0, s1;
	struct nvl_bo *a, *x;
	struct nvl_mm *mm = two_bos(&a, &x);

	(void)state;
	nvl_mm_move_stats(mm, &s0);
	queue_ping_pong(mm, a, x);
	fe_run(2);
	assert_int_equal(nvl_mm_wait_idle(mm, NVL_TIMEOUT_INFINITE), 0);
	nvl_mm_move_stats(mm, &s1);
	assert_int_equal(s1.gpu_jobs - s0.gpu_jobs, 1);
	assert_int_equal(s1.gpu_failures - s0.gpu_failures, 3);
	assert_int_equal(s1.cpu_jobs - s0.cpu_jobs, 3);
	mmkit_expect_bo(a, 0x11);
	mmkit_expect_bo(x, 0x22);
	/* again, on a new channel: the first submission found it dead */
	mmkit_use(a);
	assert_true(fe_wait_queued(6));
	fe_run(0);
	assert_int_equal(nvl_mm_wait_idle(mm, NVL_TIMEOUT_INFINITE), 0);
	assert_int_equal(fe.restarts, 1);
	mmkit_expect_bo(a, 0x11);
	mmkit_use(x);
	assert_true(fe_wait_queued(8));
	fe_run(0);
	mmkit_expect_bo(x, 0x22);
	nvl_mm_move_stats(mm, &s0);
	assert_int_equal(s0.gpu_jobs - s1.gpu_jobs, 4);
	assert_int_equal(s0.cpu_jobs, s1.cpu_jobs);
	done(mm, a, x);
}

/*
 * A dependency of another context (a client's job writing the BO) is still
 * waited for on the CPU: the eviction behind it is not handed over.
 */
static void foreign_dependency_is_waited_for(void **state)
{
	struct nvl_mm_move_stats s0, s1;
	struct nvl_fence *gpu;
	struct nvl_bo *a, *x;
	struct nvl_mm *mm = two_bos(&a, &x);

	(void)state;
	assert_int_equal(nvl_fence_create(&gpu, nvl_fence_context_alloc(1), 1),
			 0);
	assert_int_equal(nvl_resv_lock(x->gem.resv, NULL), 0);
	assert_int_equal(nvl_resv_reserve_fences(x->gem.resv, 1), 0);
	nvl_resv_add_fence(x->gem.resv, gpu, NVL_RESV_USAGE_WRITE);
	nvl_resv_unlock(x->gem.resv);
	nvl_mm_move_stats(mm, &s0);
	mmkit_use(a); /* x's eviction waits for the client's job */
	usleep(20000);
	assert_int_equal(fe_queued(), 0);
	assert_int_equal(nvl_fence_signal(gpu), 0);
	assert_true(fe_wait_queued(2));
	fe_run(0);
	assert_int_equal(nvl_mm_wait_idle(mm, NVL_TIMEOUT_INFINITE), 0);
	nvl_mm_move_stats(mm, &s1);
	assert_int_equal(s1.dep_waits - s0.dep_waits, 1);
	mmkit_expect_bo(a, 0x11);
	mmkit_expect_bo(x, 0x22);
	nvl_fence_put(gpu);
	done(mm, a, x);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(moves_chain_on_the_device),
	cmocka_unit_test(failed_move_in_a_chain_is_redone_in_order),
	cmocka_unit_test(foreign_dependency_is_waited_for),
};

T_MAIN(tests)

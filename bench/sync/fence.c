// SPDX-License-Identifier: MIT
/*
 * Fence benchmarks.
 *  - fence_pingpong: two threads, each waiting on a fence the other
 *    signals; ns per round trip (median), against the harness's futex
 *    ping-pong measured interleaved in the same run. Fences are created
 *    before timing: this measures signal -> wake-up, the path the futex
 *    baseline measures.
 *  - fence_lifecycle: create + signal + release of a software fence on one
 *    thread, against a malloc + free pair of the same size timed the same
 *    way in the same run.
 */
#include <pthread.h>
#include <stdlib.h>

#include "bench.h"
#include "sync/fence.h"

struct pp {
	struct nvl_fence **ping, **pong;
	int iters;
};

static void *pong_thread(void *arg)
{
	struct pp *p = arg;

	for (int i = 0; i < p->iters; i++) {
		nvl_fence_wait(p->ping[i], NVL_TIMEOUT_INFINITE);
		nvl_fence_signal(p->pong[i]);
	}
	return NULL;
}

static double pingpong_sample(void *arg)
{
	struct pp p = {.iters = *(int *)arg};
	uint64_t ctx = nvl_fence_context_alloc(2);
	double r = -1;
	int64_t t0;
	pthread_t t;

	p.ping = calloc((size_t)p.iters, sizeof(*p.ping));
	p.pong = calloc((size_t)p.iters, sizeof(*p.pong));
	if (!p.ping || !p.pong)
		goto out;
	for (int i = 0; i < p.iters; i++) {
		if (nvl_fence_create(&p.ping[i], ctx, (uint64_t)i + 1) ||
		    nvl_fence_create(&p.pong[i], ctx + 1, (uint64_t)i + 1))
			goto out;
	}
	if (pthread_create(&t, NULL, pong_thread, &p))
		goto out;
	t0 = nvl_bench_now_ns();
	for (int i = 0; i < p.iters; i++) {
		nvl_fence_signal(p.ping[i]);
		nvl_fence_wait(p.pong[i], NVL_TIMEOUT_INFINITE);
	}
	r = (double)(nvl_bench_now_ns() - t0) / p.iters;
	pthread_join(t, NULL);
out:
	for (int i = 0; i < p.iters; i++) {
		if (p.ping)
			nvl_fence_put(p.ping[i]);
		if (p.pong)
			nvl_fence_put(p.pong[i]);
	}
	free(p.ping);
	free(p.pong);
	return r;
}

NVL_BENCH(sync, fence_pingpong)
{
	bool quick = nvl_bench_quick(ctx);
	int iters = 2000, reps = quick ? 5 : 11;
	double v[16], b[16];

	/*
	 * The futex baseline is re-measured between our samples (same
	 * iteration count), so load from other processes on a small shared
	 * machine hits both series alike.
	 */
	for (int r = 0; r < reps; r++) {
		b[r] = nvl_bench_futex_pingpong_ns(true);
		v[r] = pingpong_sample(&iters);
		if (v[r] < 0)
			return -1;
	}
	nvl_bench_report_vs(ctx, "fence_pingpong", nvl_bench_median_of(v, reps),
			    "ns", "futex_pingpong",
			    nvl_bench_median_of(b, reps));
	return 0;
}

static double lifecycle_sample(void *arg)
{
	int n = *(int *)arg;
	int64_t t0 = nvl_bench_now_ns();

	for (int i = 0; i < n; i++) {
		struct nvl_fence *f;

		if (nvl_fence_create(&f, 1, (uint64_t)i))
			return -1;
		nvl_fence_signal(f);
		nvl_fence_put(f);
	}
	return (double)(nvl_bench_now_ns() - t0) / n;
}

static double malloc_free_sample(void *arg)
{
	int n = *(int *)arg;
	int64_t t0 = nvl_bench_now_ns();

	for (int i = 0; i < n; i++) {
		void *p = malloc(sizeof(struct nvl_fence));

		nvl_bench_do_not_optimize(p);
		free(p);
	}
	return (double)(nvl_bench_now_ns() - t0) / n;
}

NVL_BENCH(sync, fence_lifecycle)
{
	/* many short interleaved samples: robust against a loaded machine */
	int n = nvl_bench_quick(ctx) ? 50000 : 200000;
	int reps = nvl_bench_quick(ctx) ? 7 : 21;
	double mf[32], lc[32];

	/* interleaved, so machine noise hits both series alike */
	for (int r = 0; r < reps; r++) {
		mf[r] = malloc_free_sample(&n);
		lc[r] = lifecycle_sample(&n);
		if (lc[r] < 0)
			return -1;
	}
	nvl_bench_report_vs(ctx, "fence_lifecycle",
			    nvl_bench_median_of(lc, reps), "ns", "malloc_free",
			    nvl_bench_median_of(mf, reps));
	return 0;
}

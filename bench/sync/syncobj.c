// SPDX-License-Identifier: MIT
/*
 * Syncobj wait benchmarks: ns per nvl_syncobj_wait() on 1, 64 and 1024
 * already-signalled binary syncobjs (WAIT_ALL), and wait-any on 1024. This
 * is the allocation-free fast path (one table lock, a flag peek per handle).
 */
#include <stdlib.h>

#include "bench.h"
#include "base/client.h"
#include "sync/syncobj.h"

struct sw {
	struct nvl_client *c;
	uint32_t *h;
	uint32_t n;
	uint32_t flags;
	int iters;
};

static double wait_sample(void *arg)
{
	struct sw *s = arg;
	int64_t t0 = nvl_bench_now_ns();
	uint32_t first;

	for (int i = 0; i < s->iters; i++)
		if (nvl_syncobj_wait(s->c, s->h, NULL, s->n, 0, s->flags,
				     &first))
			return -1;
	return (double)(nvl_bench_now_ns() - t0) / s->iters;
}

static int run(struct nvl_bench_ctx *ctx, const char *name, uint32_t n,
	       uint32_t flags)
{
	struct sw s = {.n = n, .flags = flags};
	double v = -1;

	if (nvl_client_create(&s.c))
		return -1;
	s.h = calloc(n, sizeof(*s.h));
	if (!s.h)
		goto out;
	for (uint32_t i = 0; i < n; i++)
		if (nvl_syncobj_create(s.c, NVL_SYNCOBJ_CREATE_SIGNALED,
				       &s.h[i]))
			goto out;
	s.iters = (int)((nvl_bench_quick(ctx) ? 200000 : 2000000) / n);
	if (s.iters < 50)
		s.iters = 50;
	v = nvl_bench_median(nvl_bench_quick(ctx) ? 3 : 7, wait_sample, &s);
	nvl_bench_report(ctx, name, v, "ns", NULL);
out:
	free(s.h);
	nvl_client_destroy(s.c);
	return v < 0 ? -1 : 0;
}

NVL_BENCH(sync, syncobj_wait_all_1)
{
	return run(ctx, "syncobj_wait_all_1", 1, NVL_SYNCOBJ_WAIT_ALL);
}

NVL_BENCH(sync, syncobj_wait_all_64)
{
	return run(ctx, "syncobj_wait_all_64", 64, NVL_SYNCOBJ_WAIT_ALL);
}

NVL_BENCH(sync, syncobj_wait_all_1024)
{
	return run(ctx, "syncobj_wait_all_1024", 1024, NVL_SYNCOBJ_WAIT_ALL);
}

NVL_BENCH(sync, syncobj_wait_any_1024)
{
	return run(ctx, "syncobj_wait_any_1024", 1024, 0);
}

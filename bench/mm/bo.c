// SPDX-License-Identifier: MIT
/*
 * Buffer-object benchmarks.
 *
 * move_throughput: bytes per second that eviction and restore move. Two
 * 64 MiB BOs share a 64 MiB VRAM; using one evicts the other to GTT and
 * restores the first (two 64 MiB copies by the move worker), timed until
 * both moves' fences signal. Baseline: memcpy_bandwidth.
 *
 * bo_create_destroy: create + release pairs per second of 64 KiB VRAM BOs
 * (each create queues a clear of the dirty memory the previous one left).
 */
#include <errno.h>

#include "bench.h"
#include "mm/bo.h"

#define MiB (1ull << 20)

static int use(struct nvl_bo *bo)
{
	int ret;

	if (nvl_resv_lock(bo->gem.resv, NULL))
		return -EINTR;
	ret = nvl_bo_validate_preferred(bo);
	nvl_resv_unlock(bo->gem.resv);
	return ret;
}

static void settle(struct nvl_bo *bo)
{
	(void)nvl_resv_wait(bo->gem.resv, NVL_RESV_USAGE_BOOKKEEP,
			    NVL_TIMEOUT_INFINITE);
}

NVL_BENCH(mm, move_throughput)
{
	struct nvl_mm_config cfg = {.vram_B = 64 * MiB};
	uint32_t dom = NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT;
	int iters = nvl_bench_quick(ctx) ? 3 : 15;
	struct nvl_bo *bo[2];
	struct nvl_mm *mm;
	double v[16];
	int n = 0;

	if (nvl_mm_create(&cfg, &mm))
		return -1;
	for (int i = 0; i < 2; i++)
		if (nvl_bo_create_internal(mm, 1, 64 * MiB, dom,
					   NVL_BO_DOMAIN_VRAM, 0, NULL, NULL,
					   &bo[i]))
			return -1;
	settle(bo[0]);
	settle(bo[1]);
	/* Warm-up: every page touched once. */
	for (int i = 0; i < 2; i++) {
		if (use(bo[i % 2]))
			return -1;
		settle(bo[0]);
		settle(bo[1]);
	}
	for (int i = 0; i < iters; i++) {
		int64_t t0 = nvl_bench_now_ns();

		if (use(bo[i % 2]))
			return -1;
		settle(bo[0]);
		settle(bo[1]);
		v[n++] = 2.0 * 64 * MiB /
			 ((double)(nvl_bench_now_ns() - t0) / 1e9);
	}
	/* Host-memory moves are memcpy: the ratio is overhead, not a limit. */
	nvl_bench_report_label(
		ctx, "move_throughput", nvl_bench_median_of(v, n), "B/s",
		"memcpy_bandwidth", NVL_BENCH_LABEL_MEMCPY_OVERHEAD, NULL, 0);
	nvl_bo_put(bo[0]);
	nvl_bo_put(bo[1]);
	nvl_mm_destroy(mm);
	return 0;
}

NVL_BENCH(mm, bo_create_destroy)
{
	struct nvl_mm_config cfg = {.vram_B = 256 * MiB};
	long ops = nvl_bench_quick(ctx) ? 20000 : 200000;
	struct nvl_mm *mm;
	double v[3];
	int reps = nvl_bench_quick(ctx) ? 1 : 3;

	if (nvl_mm_create(&cfg, &mm))
		return -1;
	for (int r = 0; r < reps; r++) {
		int64_t t0 = nvl_bench_now_ns();

		for (long i = 0; i < ops; i++) {
			struct nvl_bo *bo;

			if (nvl_bo_create_internal(mm, 1, 64 << 10,
						   NVL_BO_DOMAIN_VRAM, 0, 0,
						   NULL, NULL, &bo))
				return -1;
			nvl_bo_put(bo);
		}
		v[r] = (double)ops / ((double)(nvl_bench_now_ns() - t0) / 1e9);
	}
	nvl_bench_report(ctx, "bo_create_destroy", nvl_bench_median_of(v, reps),
			 "pairs/s", NULL);
	nvl_mm_destroy(mm);
	return 0;
}

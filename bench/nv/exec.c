// SPDX-License-Identifier: MIT
/*
 * EXEC benchmarks (suite "exec"), through the public API on the model:
 *  - exec_latency: ns from nvl_exec() of a one-dword push (a NOP method
 *    header) to its syncobj signalled, on an idle device; baseline
 *    futex_pingpong (a thread round trip: submission to the model's
 *    PBDMA thread and the interrupt back are two such hops);
 *  - exec_throughput_1: such jobs per second, pipelined on one channel
 *    (only the last signals a syncobj), no baseline (target: 300 k/s).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nouvelle/nouvelle.h>

#include "bench.h"

#define MIB (1ull << 20)
#define VA_PB (16 * MIB)

struct rig {
	struct nvl_device *dev;
	struct nvl_client *c;
	uint32_t vm, pb, ch, sync;
	uint32_t *ppb;
	int iters;
};

static int rig_up(struct rig *r)
{
	struct nvl_vm_create_args va = {.start = MIB,
					.end = 1ull << 40,
					.kernel_start = 1ull << 39,
					.kernel_range = 16 * MIB};
	struct nvl_vm_bind_op op = {
		.op = NVL_VM_BIND_OP_MAP, .addr = VA_PB, .range = 4096};
	int ret;

	ret = nvl_device_open(NULL, NULL, &r->dev);
	if (ret)
		return ret;
	ret = nvl_device_client_create(r->dev, &r->c);
	if (!ret)
		ret = nvl_vm_create(r->c, &va, &r->vm);
	if (!ret)
		ret = nvl_bo_create(r->c, 4096, NVL_BO_DOMAIN_VRAM, 0,
				    NVL_BO_CPU_VISIBLE, &r->pb);
	if (!ret)
		ret = nvl_bo_map(r->c, r->pb, (void **)&r->ppb);
	op.handle = r->pb;
	if (!ret)
		ret = nvl_vm_bind(r->c, r->vm, 0, &op, 1, NULL, 0, NULL, 0, 0);
	if (!ret)
		ret = nvl_channel_create(r->c, r->vm, NVL_ENGINE_COPY, 0,
					 &r->ch);
	if (!ret)
		ret = nvl_syncobj_create(r->c, 0, &r->sync);
	if (!ret)
		r->ppb[0] = 0; /* the universal NOP header */
	return ret;
}

static void rig_down(struct rig *r)
{
	if (r->c) {
		nvl_bo_unmap(r->c, r->pb);
		nvl_client_destroy(r->c);
	}
	nvl_device_close(r->dev);
}

static int64_t abs_in(int64_t ns)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec + ns;
}

static int one(struct rig *r, bool sig)
{
	struct nvl_exec_push p = {.va = VA_PB, .len = 4};
	struct nvl_vm_sync s = {.handle = r->sync};

	return nvl_exec(r->c, r->ch, &p, 1, NULL, 0, sig ? &s : NULL,
			sig ? 1 : 0, 0);
}

static int wait_sync(struct rig *r)
{
	return nvl_syncobj_wait(r->c, &r->sync, NULL, 1, abs_in(5000000000ll),
				0, NULL);
}

static double lat_sample(void *arg)
{
	struct rig *r = arg;
	int64_t t0 = nvl_bench_now_ns();

	for (int i = 0; i < r->iters; i++)
		if (one(r, true) || wait_sync(r))
			return -1;
	return (double)(nvl_bench_now_ns() - t0) / r->iters;
}

static double tput_sample(void *arg)
{
	struct rig *r = arg;
	int64_t t0 = nvl_bench_now_ns();

	for (int i = 0; i < r->iters; i++)
		if (one(r, i == r->iters - 1))
			return -1;
	if (wait_sync(r))
		return -1;
	return r->iters * 1e9 / (double)(nvl_bench_now_ns() - t0);
}

NVL_BENCH(exec, exec_latency)
{
	struct rig r = {0};
	double ns;

	r.iters = nvl_bench_quick(ctx) ? 200 : 5000;
	if (rig_up(&r)) {
		rig_down(&r);
		return -EIO;
	}
	lat_sample(&r);
	ns = nvl_bench_median(nvl_bench_quick(ctx) ? 3 : 7, lat_sample, &r);
	rig_down(&r);
	if (ns < 0)
		return -EIO;
	nvl_bench_report(ctx, "exec_latency", ns, "ns", "futex_pingpong");
	return 0;
}

NVL_BENCH(exec, exec_throughput_1)
{
	struct rig r = {0};
	double v;

	r.iters = nvl_bench_quick(ctx) ? 500 : 20000;
	if (rig_up(&r)) {
		rig_down(&r);
		return -EIO;
	}
	tput_sample(&r);
	v = nvl_bench_median(nvl_bench_quick(ctx) ? 3 : 5, tput_sample, &r);
	rig_down(&r);
	if (v < 0)
		return -EIO;
	nvl_bench_report(ctx, "exec_throughput_1", v, "jobs/s", NULL);
	return 0;
}

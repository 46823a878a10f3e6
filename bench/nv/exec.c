// SPDX-License-Identifier: MIT
/*
 * EXEC benchmarks (suite "exec"), through the public API on the model:
 *  - exec_latency: ns from nvl_exec() of a one-dword push (a NOP method
 *    header) to its syncobj signalled, on an idle device; baseline
 *    futex_pingpong (a thread round trip: submission to the model's
 *    PBDMA thread and the interrupt back are two such hops), sampled
 *    alternately with it (nvl_bench_median_vs_futex());
 *    exec_latency_sleeps: the process's voluntary context switches per
 *    exec (and the involuntary ones) over one more sample: the wake-ups
 *    an exec costs, load-independent, unlike the time;
 *  - exec_throughput_1: such jobs per second, pipelined on one channel
 *    (only the last signals a syncobj), no baseline (target: 300 k/s);
 *  - exec_throughput_8: the same over 8 channels of one client, submitted
 *    round-robin from one thread (target: 300 k/s);
 *  - exec_copy: bytes per second of 64 MiB VRAM-to-VRAM copies through
 *    EXEC (the copy engine's LAUNCH_DMA, one line), from nvl_exec() to the
 *    syncobj signalled; baseline memcpy_bandwidth. The model's copy engine
 *    is itself a memcpy, so the ratio is the overhead of the exec path
 *    around it (target >= 0.6);
 *  - evict_throughput: bytes per second the memory manager moves on the
 *    copy engine under 4x VRAM oversubscription: BOs of four times the
 *    usable VRAM of a 256 MiB device (VRAM preferred, GTT allowed), used
 *    round-robin (nvl_bo_use(), as a submission does), so that each use
 *    moves one BO back from GTT and evicts the least recently used one to
 *    GTT; from the first use to the last move's fence; baseline
 *    memcpy_bandwidth (the model's copy engine copies physical runs with
 *    one memcpy each, so the ratio is the overhead of the move path
 *    around it; target >= 0.4). The BOs' content is
 *    checked after the runs and the copy engine must have done every move;
 *  - move_pingpong: bytes per second of moves of two 256 KiB BOs (VRAM
 *    preferred, GTT allowed) that only one at a time fits beside a mapped
 *    (unmovable) BO filling the rest of VRAM, used in turn: each use
 *    evicts the other one right behind its own move back, still in flight
 *    (a move of a BO whose previous move is not finished); from the first
 *    use to the last move's fence; baseline memcpy_bandwidth (as
 *    evict_throughput); sleeps_per_move: the process's voluntary context
 *    switches per move over the samples (the move worker's waits among
 *    them). Both BOs' content is checked after the runs;
 *  - channel_create: nvl_channel_create() + nvl_channel_destroy() pairs per
 *    second on an idle client;
 *  - channel_bytes: host memory held per idle channel: the growth of the C
 *    library's in-use heap bytes (mallinfo2) over 32 channel creations
 *    (driver, firmware and model sides together), divided by 32
 *    (target <= 16 KiB).
 */
#include <errno.h>
#include <stdbool.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <nouvelle/nouvelle.h>

#include "bench.h"
#include "nvb.h"
#include "hw/ce.h"
#include "hw/host.h"

#define MIB (1ull << 20)
#define VA_PB NVB_VA_PB
#define NCH 8

struct rig {
	struct nvl_device *dev;
	struct nvl_client *c;
	uint32_t vm, pb, ch, sync;
	uint32_t chs[NCH], syncs[NCH];
	uint32_t bos[2];
	uint8_t *cpu[2];
	uint64_t vram; /* 0: the default chip's */
	uint32_t *ppb;
	int iters;
};

static int rig_up(struct rig *r)
{
	struct nvl_device_opts o = {.vram_size = r->vram};
	int ret;

	ret = nvl_device_open(NULL, &o, &r->dev);
	if (ret)
		return ret;
	return nvb_client_up(r->dev, &r->c, &r->vm, &r->pb, &r->ppb, &r->ch,
			     &r->sync);
}

static void rig_down(struct rig *r)
{
	if (r->c) {
		for (int i = 0; i < 2; i++)
			if (r->bos[i])
				nvl_bo_unmap(r->c, r->bos[i]);
		nvl_bo_unmap(r->c, r->pb);
		nvl_client_destroy(r->c);
	}
	nvl_device_close(r->dev);
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
	return nvb_wait(r->c, &r->sync, 1);
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
	struct rusage ru0, ru1;
	double ns, sw_ns, base;

	r.iters = nvl_bench_quick(ctx) ? 200 : 5000;
	if (rig_up(&r)) {
		rig_down(&r);
		return -EIO;
	}
	lat_sample(&r);
	ns = nvl_bench_median_vs_futex(nvl_bench_quick(ctx),
				       nvl_bench_quick(ctx) ? 3 : 7, lat_sample,
				       &r, &base);
	/* the sleeps (voluntary context switches of every thread of the
	 * process: submitter, scheduler, model) per exec, over one more
	 * sample; 2 is the runlist thread's wake-up plus the waiter's */
	getrusage(RUSAGE_SELF, &ru0);
	sw_ns = lat_sample(&r);
	getrusage(RUSAGE_SELF, &ru1);
	rig_down(&r);
	if (ns < 0 || sw_ns < 0)
		return -EIO;
	nvl_bench_report_vs(ctx, "exec_latency", ns, "ns", "futex_pingpong",
			    base);
	nvl_bench_report_extra(
		ctx, "exec_latency_sleeps",
		(double)(ru1.ru_nvcsw - ru0.ru_nvcsw) / r.iters, "per_exec",
		NULL, "involuntary_per_exec",
		(double)(ru1.ru_nivcsw - ru0.ru_nivcsw) / r.iters, NULL);
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

static double tput8_sample(void *arg)
{
	struct rig *r = arg;
	struct nvl_exec_push p = {.va = VA_PB, .len = 4};
	int64_t t0 = nvl_bench_now_ns();
	int per = r->iters / NCH;

	for (int i = 0; i < per; i++)
		for (int k = 0; k < NCH; k++) {
			struct nvl_vm_sync s = {.handle = r->syncs[k]};
			bool sig = i == per - 1;

			if (nvl_exec(r->c, r->chs[k], &p, 1, NULL, 0,
				     sig ? &s : NULL, sig ? 1 : 0, 0))
				return -1;
		}
	if (nvb_wait(r->c, r->syncs, NCH))
		return -1;
	return per * NCH * 1e9 / (double)(nvl_bench_now_ns() - t0);
}

NVL_BENCH(exec, exec_throughput_8)
{
	struct rig r = {0};
	double v;
	int ret;

	r.iters = nvl_bench_quick(ctx) ? 800 : 40000;
	ret = rig_up(&r);
	for (int k = 0; k < NCH && !ret; k++) {
		ret = nvl_channel_create(r.c, r.vm, NVL_ENGINE_COPY, 0,
					 &r.chs[k]);
		if (!ret)
			ret = nvl_syncobj_create(r.c, 0, &r.syncs[k]);
	}
	if (ret) {
		rig_down(&r);
		return -EIO;
	}
	tput8_sample(&r);
	v = nvl_bench_median(nvl_bench_quick(ctx) ? 3 : 5, tput8_sample, &r);
	rig_down(&r);
	if (v < 0)
		return -EIO;
	nvl_bench_report(ctx, "exec_throughput_8", v, "jobs/s", NULL);
	return 0;
}

#define COPY_BYTES (64 * MIB)
#define VA_SRC (1ull << 30)
#define VA_DST (2ull << 30)

static int copy_bufs(struct rig *r)
{
	struct nvl_device_info info;
	uint32_t n = 0, *p = r->ppb;
	struct nvl_vm_bind_op op[2] = {
		{.op = NVL_VM_BIND_OP_MAP, .addr = VA_SRC, .range = COPY_BYTES},
		{.op = NVL_VM_BIND_OP_MAP, .addr = VA_DST, .range = COPY_BYTES},
	};
	int ret;

	/* a CPU mapping makes a BO resident (and keeps it so while mapped);
	 * the page tables map only resident BOs */
	ret = nvl_device_query(r->dev, &info);
	if (!ret)
		ret = nvl_bo_create(r->c, COPY_BYTES, NVL_BO_DOMAIN_VRAM, 0,
				    NVL_BO_CPU_VISIBLE, &r->bos[0]);
	if (!ret)
		ret = nvl_bo_map(r->c, r->bos[0], (void **)&r->cpu[0]);
	if (!ret)
		ret = nvl_bo_create(r->c, COPY_BYTES, NVL_BO_DOMAIN_VRAM, 0,
				    NVL_BO_CPU_VISIBLE, &r->bos[1]);
	if (!ret)
		ret = nvl_bo_map(r->c, r->bos[1], (void **)&r->cpu[1]);
	if (ret)
		return ret;
	/* a pattern the copy must carry (checked after the runs) */
	for (uint64_t i = 0; i < COPY_BYTES; i += 4096)
		memset(r->cpu[0] + i, (int)(i >> 12) | 1, 4096);
	op[0].handle = r->bos[0];
	op[1].handle = r->bos[1];
	ret = nvl_vm_bind(r->c, r->vm, 0, op, 2, NULL, 0, NULL, 0, 0);
	if (ret)
		return ret;
	/* SET_OBJECT, then one pitch line of COPY_BYTES (LINE_LENGTH_IN is
	 * 32 bits wide), pipelined, with a flush */
	p[n++] = NVL_HW_MTHD_INC(4, NVL_HW_SET_OBJECT, 1);
	p[n++] = info.ce_class;
	p[n++] = NVL_HW_MTHD_INC(4, NVL_HW_CE_OFFSET_IN_UPPER, 8);
	p[n++] = (uint32_t)(VA_SRC >> 32);
	p[n++] = (uint32_t)VA_SRC;
	p[n++] = (uint32_t)(VA_DST >> 32);
	p[n++] = (uint32_t)VA_DST;
	p[n++] = (uint32_t)COPY_BYTES;
	p[n++] = (uint32_t)COPY_BYTES;
	p[n++] = (uint32_t)COPY_BYTES;
	p[n++] = 1;
	p[n++] = NVL_HW_MTHD_INC(4, NVL_HW_CE_LAUNCH_DMA, 1);
	p[n++] = NVL_HW_CE_TRANSFER_NON_PIPELINED | NVL_HW_CE_LAUNCH_FLUSH |
		 NVL_HW_CE_LAUNCH_SRC_PITCH | NVL_HW_CE_LAUNCH_DST_PITCH;
	r->iters = (int)n;
	return 0;
}

static double copy_sample(void *arg)
{
	struct rig *r = arg;
	struct nvl_exec_push p = {.va = VA_PB, .len = (uint32_t)r->iters * 4};
	struct nvl_vm_sync s = {.handle = r->sync};
	int64_t t0 = nvl_bench_now_ns();

	if (nvl_exec(r->c, r->ch, &p, 1, NULL, 0, &s, 1, 0) || wait_sync(r))
		return -1;
	return COPY_BYTES * 1e9 / (double)(nvl_bench_now_ns() - t0);
}

NVL_BENCH(exec, exec_copy)
{
	struct nvl_channel_info ci;
	struct rig r = {.vram = 1ull << 30};
	double v;

	if (rig_up(&r) || copy_bufs(&r)) {
		rig_down(&r);
		return -EIO;
	}
	copy_sample(&r); /* the first touch of both buffers */
	v = nvl_bench_median(nvl_bench_quick(ctx) ? 3 : 7, copy_sample, &r);
	/* a copy that faulted would kill the channel, one that did nothing
	 * would look fast: count only real ones */
	if (nvl_channel_query(r.c, r.ch, &ci) || !ci.alive ||
	    memcmp(r.cpu[0], r.cpu[1], COPY_BYTES))
		v = -1;
	rig_down(&r);
	if (v < 0)
		return -EIO;
	nvl_bench_report_label(ctx, "exec_copy", v, "bytes/s",
			       "memcpy_bandwidth",
			       NVL_BENCH_LABEL_MEMCPY_OVERHEAD, NULL, 0);
	return 0;
}

#define EV_BO (16 * MIB)
#define EV_NBO_MAX 64

struct ev {
	struct nvl_device *dev;
	struct nvl_client *c;
	uint32_t bo[EV_NBO_MAX];
	unsigned n;
};

static uint64_t ev_word(unsigned bo, uint64_t i)
{
	return (uint64_t)bo << 40 ^ i * 0x9e3779b97f4a7c15ull;
}

/* a BO of @size preferring VRAM (GTT allowed), every word ev_word(@i, k) */
static int ev_bo(struct nvl_client *c, uint64_t size, unsigned i, uint32_t *h)
{
	uint64_t *p;
	int ret;

	ret = nvl_bo_create(c, size, NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
			    NVL_BO_DOMAIN_VRAM, NVL_BO_CPU_VISIBLE, h);
	if (!ret)
		ret = nvl_bo_map(c, *h, (void **)&p);
	if (ret)
		return ret;
	for (uint64_t k = 0; k < size / 8; k++)
		p[k] = ev_word(i, k);
	return nvl_bo_unmap(c, *h);
}

static int ev_up(struct ev *e)
{
	struct nvl_device_opts o = {.vram_size = 256 * MIB};
	struct nvl_device_info in;
	int ret;

	ret = nvl_device_open(NULL, &o, &e->dev);
	if (!ret)
		ret = nvl_device_query(e->dev, &in);
	if (!ret)
		ret = nvl_device_client_create(e->dev, &e->c);
	if (ret)
		return ret;
	/* four times the usable VRAM (32 MiB of it stay the driver's) */
	e->n = (unsigned)(4 * (in.vram_usable - 32 * MIB) / EV_BO);
	if (e->n > EV_NBO_MAX)
		e->n = EV_NBO_MAX;
	for (unsigned i = 0; i < e->n && !ret; i++)
		ret = ev_bo(e->c, EV_BO, i, &e->bo[i]);
	return ret;
}

static double ev_sample(void *arg)
{
	struct ev *e = arg;
	struct nvl_move_stats s0, s1;
	int64_t t0 = nvl_bench_now_ns();

	if (nvl_device_move_stats(e->dev, &s0))
		return -1;
	for (unsigned i = 0; i < e->n; i++)
		if (nvl_bo_use(e->c, e->bo[i]))
			return -1;
	/* the worker runs the moves in order: the last BO's is the last */
	for (unsigned i = 0; i < e->n; i++)
		if (nvl_bo_wait(e->c, e->bo[i], 60ll * 1000 * 1000 * 1000))
			return -1;
	if (nvl_device_move_stats(e->dev, &s1) || s1.cpu_jobs != s0.cpu_jobs ||
	    s1.gpu_bytes == s0.gpu_bytes)
		return -1;
	return (double)(s1.gpu_bytes - s0.gpu_bytes) * 1e9 /
	       (double)(nvl_bench_now_ns() - t0);
}

/* every word of the @n BOs @bo of @size still ev_word(i, k) */
static bool ev_bos_intact(struct nvl_client *c, const uint32_t *bo, unsigned n,
			  uint64_t size)
{
	for (unsigned i = 0; i < n; i++) {
		uint64_t *p, bad = 0;

		if (nvl_bo_map(c, bo[i], (void **)&p))
			return false;
		for (uint64_t k = 0; k < size / 8; k++)
			bad += p[k] != ev_word(i, k);
		if (nvl_bo_unmap(c, bo[i]) || bad)
			return false;
	}
	return true;
}

NVL_BENCH(exec, evict_throughput)
{
	struct ev e = {0};
	double v = -1;

	if (!ev_up(&e)) {
		ev_sample(&e); /* the first touch of the GTT pages */
		v = nvl_bench_median(nvl_bench_quick(ctx) ? 3 : 5, ev_sample,
				     &e);
		if (!ev_bos_intact(e.c, e.bo, e.n, EV_BO))
			v = -1;
	}
	nvl_client_destroy(e.c);
	nvl_device_close(e.dev);
	if (v < 0)
		return -EIO;
	nvl_bench_report_label(ctx, "evict_throughput", v, "bytes/s",
			       "memcpy_bandwidth",
			       NVL_BENCH_LABEL_MEMCPY_OVERHEAD, NULL, 0);
	return 0;
}

/* two BOs that do not fit in VRAM at once beside a mapped filler */
#define PP_BO (256 * 1024)
#define PP_USES 1024

struct pp {
	struct nvl_device *dev;
	struct nvl_client *c;
	uint32_t fill, bo[2];
	uint64_t sleeps, moves;
};

static int pp_up(struct pp *e)
{
	struct nvl_device_opts o = {.vram_size = 256 * MIB};
	struct nvl_device_info in;
	void *fp;
	int ret;

	ret = nvl_device_open(NULL, &o, &e->dev);
	if (!ret)
		ret = nvl_device_query(e->dev, &in);
	if (!ret)
		ret = nvl_device_client_create(e->dev, &e->c);
	/* the filler leaves room for one BO and a half (32 MiB of the
	 * usable VRAM stay the driver's); mapped, it never moves */
	if (!ret)
		ret = nvl_bo_create(e->c,
				    in.vram_usable - 32 * MIB - PP_BO * 3 / 2,
				    NVL_BO_DOMAIN_VRAM, NVL_BO_DOMAIN_VRAM,
				    NVL_BO_CPU_VISIBLE, &e->fill);
	if (!ret)
		ret = nvl_bo_map(e->c, e->fill, &fp);
	for (unsigned i = 0; i < 2 && !ret; i++)
		ret = ev_bo(e->c, PP_BO, i, &e->bo[i]);
	return ret;
}

static double pp_sample(void *arg)
{
	struct pp *e = arg;
	struct nvl_move_stats s0, s1;
	struct rusage ru0, ru1;
	int64_t t0 = nvl_bench_now_ns();

	getrusage(RUSAGE_SELF, &ru0);
	if (nvl_device_move_stats(e->dev, &s0))
		return -1;
	for (unsigned i = 0; i < PP_USES; i++)
		if (nvl_bo_use(e->c, e->bo[i % 2]))
			return -1;
	for (unsigned i = 0; i < 2; i++)
		if (nvl_bo_wait(e->c, e->bo[i], 60ll * 1000 * 1000 * 1000))
			return -1;
	getrusage(RUSAGE_SELF, &ru1);
	/* every use moved one BO in and the other out, on the copy engine */
	if (nvl_device_move_stats(e->dev, &s1) || s1.cpu_jobs != s0.cpu_jobs ||
	    s1.evictions - s0.evictions < PP_USES - 1)
		return -1;
	e->sleeps += (uint64_t)(ru1.ru_nvcsw - ru0.ru_nvcsw);
	e->moves += s1.gpu_jobs - s0.gpu_jobs;
	return (double)(s1.gpu_bytes - s0.gpu_bytes) * 1e9 /
	       (double)(nvl_bench_now_ns() - t0);
}

NVL_BENCH(exec, move_pingpong)
{
	struct pp e = {0};
	double v = -1;

	if (!pp_up(&e)) {
		pp_sample(&e); /* the first touch of the GTT pages */
		e.sleeps = e.moves = 0;
		v = nvl_bench_median(nvl_bench_quick(ctx) ? 3 : 7, pp_sample,
				     &e);
		if (!e.moves || !ev_bos_intact(e.c, e.bo, 2, PP_BO))
			v = -1;
	}
	if (e.fill)
		nvl_bo_unmap(e.c, e.fill);
	nvl_client_destroy(e.c);
	nvl_device_close(e.dev);
	if (v < 0)
		return -EIO;
	nvl_bench_report_label(
		ctx, "move_pingpong", v, "bytes/s", "memcpy_bandwidth",
		NVL_BENCH_LABEL_MEMCPY_OVERHEAD, "sleeps_per_move",
		(double)e.sleeps / (double)e.moves);
	return 0;
}

static double create_sample(void *arg)
{
	struct rig *r = arg;
	int64_t t0 = nvl_bench_now_ns();
	uint32_t h;

	for (int i = 0; i < r->iters; i++)
		if (nvl_channel_create(r->c, r->vm, NVL_ENGINE_COPY, 0, &h) ||
		    nvl_channel_destroy(r->c, h))
			return -1;
	return r->iters * 1e9 / (double)(nvl_bench_now_ns() - t0);
}

NVL_BENCH(exec, channel_create)
{
	struct rig r = {0};
	double v;

	if (rig_up(&r)) {
		rig_down(&r);
		return -EIO;
	}
	r.iters = nvl_bench_quick(ctx) ? 20 : 500;
	create_sample(&r);
	v = nvl_bench_median(nvl_bench_quick(ctx) ? 3 : 5, create_sample, &r);
	rig_down(&r);
	if (v < 0)
		return -EIO;
	nvl_bench_report(ctx, "channel_create", v, "pairs/s", NULL);
	return 0;
}

#define NBYTES_CH 32

/* bytes the C library has handed out: heap chunks and mmap()ed ones */
static size_t heap_bytes(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

NVL_BENCH(exec, channel_bytes)
{
	uint32_t h[NBYTES_CH];
	struct rig r = {0};
	size_t before, after;
	int ret = 0, n = 0;

	if (rig_up(&r)) {
		rig_down(&r);
		return -EIO;
	}
	/* one create and destroy first: lazily made caches are not a
	 * channel's cost */
	if (nvl_channel_create(r.c, r.vm, NVL_ENGINE_COPY, 0, &h[0]) ||
	    nvl_channel_destroy(r.c, h[0])) {
		rig_down(&r);
		return -EIO;
	}
	before = heap_bytes();
	for (; n < NBYTES_CH && !ret; n++)
		ret = nvl_channel_create(r.c, r.vm, NVL_ENGINE_COPY, 0, &h[n]);
	after = heap_bytes();
	rig_down(&r);
	if (ret)
		return -EIO;
	nvl_bench_report(ctx, "channel_bytes",
			 (double)(after - before) / NBYTES_CH, "bytes", NULL);
	return 0;
}

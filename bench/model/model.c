// SPDX-License-Identifier: MIT
/*
 * Model benchmarks (suite "model"):
 *  - ce_copy: bytes/s of one copy-engine LAUNCH_DMA of 256 MiB between two
 *    VRAM buffers mapped with 2 MiB pages (64 MiB with --quick), from the
 *    doorbell to the completion semaphore; baseline memcpy_bandwidth;
 *  - method_decode: methods per second through GPFIFO fetch and method
 *    decode, a pushbuffer of copy-engine state methods in incrementing and
 *    non-incrementing runs;
 *  - semaphore_irq_latency: ns from a Host semaphore release (its PTIMER
 *    timestamp) to the start of the driver's interrupt callback; baseline
 *    futex_pingpong.
 * Every run drives the device through the bring-up kit (tests/lib/kit.h), i.e.
 * registers and memory only.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "base/time.h"
#include "hw/ce.h"
#include "hw/host.h"
#include "hw/regs.h"
#include "kit.h"
#include "model/model.h"

#define MIB (1ull << 20)
#define SEM 0x10000ull

struct rig {
	struct nvl_model *m;
	struct nvl_hw *hw;
	struct nvl_kit kit;
	struct nvl_kit_vm vm;
	struct nvl_kit_chan ch;
	uint32_t seq;
};

/* a tu102 with [0, @mapped) identity-mapped with 2 MiB pages */
static int rig_up(struct rig *r, uint64_t mapped)
{
	int ret;

	memset(r, 0, sizeof(*r));
	ret = nvl_model_create(nvl_model_profile_find("tu102"), &r->m);
	if (ret)
		return ret;
	r->hw = nvl_model_hw(r->m);
	if (nvl_kit_init(&r->kit, r->hw, mapped) ||
	    nvl_kit_vm_init(&r->kit, &r->vm) ||
	    nvl_kit_map(&r->kit, &r->vm, 0, 0, r->kit.vram_size, 21,
			NVL_HW_APERTURE_VIDMEM, 0) ||
	    nvl_kit_chan_create(&r->kit, &r->vm, 1, 0, 10, 8 << 20, false,
				&r->ch)) {
		nvl_model_destroy(r->m);
		return -ENOMEM;
	}
	return 0;
}

static void rig_down(struct rig *r)
{
	nvl_kit_chan_fini(&r->kit, &r->ch);
	nvl_model_destroy(r->m);
}

/* submit the staged dwords plus a release of the next sequence number,
 * wait for it; returns ns from kick to completion or -1 */
static double run_and_wait(struct rig *r)
{
	uint32_t p[16], n;
	int64_t t0;

	n = nvl_kit_pb_release(p, SEM, ++r->seq);
	if (nvl_kit_push(&r->ch, p, n))
		return -1;
	t0 = nvl_bench_now_ns();
	if (nvl_kit_kick(&r->kit, &r->ch) ||
	    nvl_kit_wait_u32(&r->kit, SEM, r->seq, 30 * NVL_NSEC_PER_SEC))
		return -1;
	return (double)(nvl_bench_now_ns() - t0);
}

struct copy_arg {
	struct rig *r;
	uint64_t bytes;
};

static double copy_sample(void *arg)
{
	struct copy_arg *a = arg;
	uint32_t p[32], n;
	double ns;

	n = nvl_kit_pb_copy(p, a->r->m->profile->ce_class, 512 * MIB, 0,
			    (uint32_t)a->bytes);
	if (nvl_kit_push(&a->r->ch, p, n))
		return 0;
	ns = run_and_wait(a->r);
	return ns > 0 ? (double)a->bytes * 1e9 / ns : 0;
}

NVL_BENCH(model, ce_copy)
{
	struct copy_arg a = {.bytes = (nvl_bench_quick(ctx) ? 64 : 256) * MIB};
	struct rig r;
	uint8_t *fill;
	double bw;

	if (rig_up(&r, 1024 * MIB))
		return -ENOMEM;
	a.r = &r;
	/* touch both buffers so the copy does not time first-touch faults */
	fill = malloc(16 * MIB);
	if (!fill) {
		rig_down(&r);
		return -ENOMEM;
	}
	memset(fill, 0x5a, 16 * MIB);
	for (uint64_t o = 0; o < a.bytes; o += 16 * MIB) {
		(void)nvl_hw_vram_write(r.hw, o, fill, 16 * MIB);
		(void)nvl_hw_vram_write(r.hw, 512 * MIB + o, fill, 16 * MIB);
	}
	free(fill);
	bw = nvl_bench_median(nvl_bench_quick(ctx) ? 3 : 5, copy_sample, &a);
	/* The model's copy engine copies with memcpy: the ratio is overhead. */
	nvl_bench_report_label(ctx, "ce_copy", bw, "bytes/s",
			       "memcpy_bandwidth",
			       NVL_BENCH_LABEL_MEMCPY_OVERHEAD, NULL, 0);
	rig_down(&r);
	return 0;
}

struct decode_arg {
	struct rig *r;
	uint32_t *pb;
	uint32_t ndw;
	uint64_t methods;
};

static double decode_sample(void *arg)
{
	struct decode_arg *a = arg;
	double ns;

	if (nvl_kit_push(&a->r->ch, a->pb, a->ndw))
		return 0;
	ns = run_and_wait(a->r);
	return ns > 0 ? (double)a->methods * 1e9 / ns : 0;
}

NVL_BENCH(model, method_decode)
{
	struct decode_arg a = {0};
	uint32_t ce, cap;
	struct rig r;
	double mps;

	if (rig_up(&r, 256 * MIB))
		return -ENOMEM;
	a.r = &r;
	ce = r.m->profile->ce_class;
	cap = (nvl_bench_quick(ctx) ? 1u << 18 : 1u << 20) - 16;
	a.pb = malloc((size_t)cap * 4);
	if (!a.pb) {
		rig_down(&r);
		return -ENOMEM;
	}
	a.pb[a.ndw++] = NVL_HW_MTHD_INC(4, NVL_HW_SET_OBJECT, 1);
	a.pb[a.ndw++] = ce;
	a.methods = 1;
	while (a.ndw + 16 <= cap) {
		/* 8 incrementing state methods, 6 non-incrementing, 1 immd */
		a.pb[a.ndw++] =
			NVL_HW_MTHD_INC(4, NVL_HW_CE_OFFSET_IN_UPPER, 8);
		for (int i = 0; i < 8; i++)
			a.pb[a.ndw++] = (uint32_t)i;
		a.pb[a.ndw++] = NVL_HW_MTHD_NINC(4, NVL_HW_CE_PITCH_IN, 5);
		for (int i = 0; i < 5; i++)
			a.pb[a.ndw++] = (uint32_t)i;
		a.pb[a.ndw++] = NVL_HW_MTHD_IMMD(0, NVL_HW_NOP, 0);
		a.methods += 14;
	}
	mps = nvl_bench_median(nvl_bench_quick(ctx) ? 3 : 7, decode_sample, &a);
	nvl_bench_report(ctx, "method_decode", mps, "methods/s", NULL);
	free(a.pb);
	rig_down(&r);
	return 0;
}

struct irq_arg {
	struct rig *r;
	atomic_uint_fast64_t t_irq;
	int iters;
};

static void lat_irq(void *arg)
{
	struct irq_arg *a = arg;
	uint64_t t = nvl_model_time_ns(a->r->m);
	uint32_t s = nvl_hw_rd32(a->r->hw, NVL_HW_INTR_STATUS(1));

	nvl_hw_wr32(a->r->hw, NVL_HW_INTR_STATUS(1), s);
	if (!atomic_load(&a->t_irq))
		atomic_store(&a->t_irq, t);
}

static double irq_sample(void *arg)
{
	struct irq_arg *a = arg;
	double sum = 0;
	int ok = 0;

	for (int i = 0; i < a->iters; i++) {
		uint32_t p[16], n = 0, w[4];
		uint64_t ts;

		p[n++] = NVL_HW_MTHD_INC(0, NVL_HW_SEM_ADDR_LO, 5);
		p[n++] = (uint32_t)SEM;
		p[n++] = 0;
		p[n++] = ++a->r->seq;
		p[n++] = 0;
		p[n++] = NVL_HW_SEM_OP_RELEASE | NVL_HW_SEM_RELEASE_TIMESTAMP;
		p[n++] = NVL_HW_MTHD_INC(0, NVL_HW_NON_STALL_INTERRUPT, 1);
		p[n++] = 0;
		atomic_store(&a->t_irq, 0);
		if (nvl_kit_push(&a->r->ch, p, n) ||
		    nvl_kit_kick(&a->r->kit, &a->r->ch) ||
		    nvl_kit_wait_idle(&a->r->kit, &a->r->ch, NVL_NSEC_PER_SEC))
			return 0;
		while (!atomic_load(&a->t_irq))
			;
		if (nvl_hw_vram_read(a->r->hw, SEM, w, 16))
			return 0;
		ts = (uint64_t)w[3] << 32 | w[2];
		sum += (double)(atomic_load(&a->t_irq) - ts);
		ok++;
	}
	return ok ? sum / ok : 0;
}

NVL_BENCH(model, semaphore_irq_latency)
{
	struct irq_arg a = {.iters = nvl_bench_quick(ctx) ? 200 : 2000};
	struct rig r;
	double ns;

	if (rig_up(&r, 64 * MIB))
		return -ENOMEM;
	a.r = &r;
	(void)nvl_hw_set_irq_handler(r.hw, lat_irq, &a);
	nvl_hw_wr32(r.hw, NVL_HW_INTR_EN_SET(1), ~0u);
	ns = nvl_bench_median(nvl_bench_quick(ctx) ? 3 : 7, irq_sample, &a);
	(void)nvl_hw_set_irq_handler(r.hw, NULL, NULL);
	nvl_bench_report(ctx, "semaphore_irq_latency", ns, "ns",
			 "futex_pingpong");
	rig_down(&r);
	return 0;
}

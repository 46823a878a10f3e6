// SPDX-License-Identifier: MIT
/*
 * GSP benchmarks (suite "gsp"), against the model's firmware:
 *  - rpc_roundtrip: ns per small GSP_RM_CONTROL round trip (64 bytes of
 *    parameters each way); baseline futex_pingpong (a thread round trip,
 *    the least any doorbell-and-interrupt exchange between two threads
 *    costs), sampled alternately with it (nvl_bench_median_vs_futex());
 *    rpc_roundtrip_sleeps: the process's voluntary context
 *    switches per call (the wake-ups a call costs; load-independent,
 *    unlike the time, on a shared machine);
 *  - rpc_large: bytes/s through 1 MiB GSP_RM_CONTROL calls (1 MiB out in
 *    17 elements, 1 MiB back; both directions counted); baseline
 *    memcpy_bandwidth; rpc_large_sleeps: voluntary context switches per
 *    call, the caller's and the other threads' (the model's firmware);
 *  - rpc_concurrent_8: round trips per second with 8 threads calling at
	once, against the single-thread rate measured in the same run;
 *    rpc_concurrent_8_sleeps: voluntary context switches per call of
 *    the 8-thread phase;
 *  - sensor_query: ns per full nvl_gsp_sensors_read() (five controls
 *    in flight at once); baseline the ECHO round trip (rpc_roundtrip)
 *    measured in the same run;
 *  - boot_time, boot_time_zst: ns from nvl_gsp_fw_load() of the build's
 *    535.113.01 tu102 set (the image ga102 shares) (plain, then .zst) to a booted GSP (INIT_DONE,
 *    static info, interrupt table); baseline one memcpy plus one SHA-256
 *    pass over the same .fwimage, measured here.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <openssl/sha.h>

#include "bench.h"
#include "firmware/abi/535.113.01/gsp.h"
#include "gsp/boot.h"
#include "gsp/gsp.h"
#include "gsp/image.h"
#include "gsp/rm.h"
#include "gsp/sensors.h"
#include "model/gsp/gsp.h"
#include "model/model.h"
#include "nvl_config.h"

#define SIG "nvl-bench-fused!"

static int bench_verify(const void *img, size_t size, const void *sig,
			size_t sig_size)
{
	return sig_size == sizeof(SIG) && !memcmp(sig, SIG, sizeof(SIG))
		       ? 0
		       : -EKEYREJECTED;
}

struct rig {
	struct nvl_model *m;
	struct nvl_gsp *gsp;
	uint32_t root, sub;
	uint8_t image[65536];
};

static int rig_up(struct rig *r)
{
	NV0080_ALLOC_PARAMETERS dp = {0};
	struct nvl_gsp_image img = {.version = NVL_FW_ABI_VERSION,
				    .fwimage = r->image,
				    .fwimage_size = sizeof(r->image),
				    .sig = SIG,
				    .sig_size = sizeof(SIG)};
	uint32_t dev;

	if (nvl_model_create(nvl_model_profile_find("tiny"), &r->m))
		return -ENOMEM;
	nvl_model_gsp_set_verify(r->m, bench_verify);
	if (nvl_gsp_create(nvl_model_hw(r->m), &r->gsp)) {
		nvl_model_destroy(r->m);
		return -ENOMEM;
	}
	if (nvl_gsp_boot(r->gsp, &img, NULL) ||
	    nvl_gsp_rm_alloc(r->gsp, 0, NV01_ROOT, NULL, 0, &r->root) ||
	    nvl_gsp_rm_alloc(r->gsp, r->root, NV01_DEVICE_0, &dp, sizeof(dp),
			     &dev) ||
	    nvl_gsp_rm_alloc(r->gsp, dev, NV20_SUBDEVICE_0, NULL, 0, &r->sub)) {
		nvl_gsp_destroy(r->gsp);
		nvl_model_destroy(r->m);
		return -EIO;
	}
	return 0;
}

static void rig_down(struct rig *r)
{
	nvl_gsp_destroy(r->gsp);
	nvl_model_destroy(r->m);
}

struct rt {
	struct rig *r;
	int iters;
	size_t size;
	uint8_t *buf;
};

static double rt_sample(void *arg)
{
	struct rt *t = arg;
	int64_t t0 = nvl_bench_now_ns();

	for (int i = 0; i < t->iters; i++)
		if (nvl_gsp_rm_control(t->r->gsp, t->r->sub,
				       NVL_MODEL_CTRL_CMD_ECHO, t->buf,
				       t->size))
			return -1;
	return (double)(nvl_bench_now_ns() - t0) / t->iters;
}

NVL_BENCH(gsp, rpc_roundtrip)
{
	uint8_t p[64] = {0};
	struct rig *r = calloc(1, sizeof(*r));
	struct rt t = {r, nvl_bench_quick(ctx) ? 2000 : 20000, sizeof(p), p};
	struct rusage ru0, ru1;
	double ns, sw_ns, base;

	if (!r || rig_up(r)) {
		free(r);
		return -EIO;
	}
	rt_sample(&t); /* warm */
	ns = nvl_bench_median_vs_futex(nvl_bench_quick(ctx),
				       nvl_bench_quick(ctx) ? 3 : 7, rt_sample,
				       &t, &base);
	/* where a round trip's time can go on a two-thread exchange: the
	 * sleeps (voluntary context switches of every thread of the
	 * process, driver and model firmware) per call, over one more
	 * sample; 2 is a doorbell wake-up plus a reply wake-up */
	getrusage(RUSAGE_SELF, &ru0);
	sw_ns = rt_sample(&t);
	getrusage(RUSAGE_SELF, &ru1);
	rig_down(r);
	free(r);
	if (ns < 0 || sw_ns < 0)
		return -EIO;
	nvl_bench_report_vs(ctx, "rpc_roundtrip", ns, "ns", "futex_pingpong",
			    base);
	nvl_bench_report_extra(
		ctx, "rpc_roundtrip_sleeps",
		(double)(ru1.ru_nvcsw - ru0.ru_nvcsw) / t.iters, "per_call",
		NULL, "involuntary_per_call",
		(double)(ru1.ru_nivcsw - ru0.ru_nivcsw) / t.iters, NULL);
	return 0;
}

static double sq_sample(void *arg)
{
	struct rt *t = arg;
	struct nvl_sensors s;
	int64_t t0 = nvl_bench_now_ns();

	for (int i = 0; i < t->iters; i++)
		if (nvl_gsp_sensors_read(t->r->gsp, t->r->sub, &s))
			return -1;
	nvl_bench_do_not_optimize(&s);
	return (double)(nvl_bench_now_ns() - t0) / t->iters;
}

NVL_BENCH(gsp, sensor_query)
{
	uint8_t p[64] = {0};
	struct rig *r = calloc(1, sizeof(*r));
	int iters = nvl_bench_quick(ctx) ? 500 : 3000;
	int reps = nvl_bench_quick(ctx) ? 3 : 7;
	struct rt t = {r, iters, sizeof(p), p};
	double sq[7], rt[7], ns, base;

	if (!r || rig_up(r)) {
		free(r);
		return -EIO;
	}
	sq_sample(&t); /* warm */
	/* interleaved, so both see the same load on a shared machine */
	for (int i = 0; i < reps; i++) {
		rt[i] = rt_sample(&t);
		sq[i] = sq_sample(&t);
		if (rt[i] < 0 || sq[i] < 0)
			reps = 0; /* a call failed */
	}
	rig_down(r);
	free(r);
	if (!reps)
		return -EIO;
	ns = nvl_bench_median_of(sq, reps);
	base = nvl_bench_median_of(rt, reps);
	nvl_bench_report_vs(ctx, "sensor_query", ns, "ns", "rpc_roundtrip",
			    base);
	return 0;
}

NVL_BENCH(gsp, rpc_large)
{
	struct rig *r = calloc(1, sizeof(*r));
	struct rt t = {r, nvl_bench_quick(ctx) ? 5 : 40, 1u << 20, NULL};
	double ns;

	t.buf = calloc(1, t.size);
	if (!r || !t.buf || rig_up(r)) {
		free(r);
		free(t.buf);
		return -EIO;
	}
	struct rusage me0, me1, all0, all1;
	double sw_ns;
	long mine, rest;

	rt_sample(&t);
	ns = nvl_bench_median(nvl_bench_quick(ctx) ? 3 : 5, rt_sample, &t);
	/* where a large call's time can go: the sleeps per call, of the
	 * calling thread (room in the cmdq, the reply) and of the others
	 * (the model's firmware: commands, room in the statq), over one
	 * more sample; each costs a wake-up (tens of us on an idle VM) */
	getrusage(RUSAGE_THREAD, &me0);
	getrusage(RUSAGE_SELF, &all0);
	sw_ns = rt_sample(&t);
	getrusage(RUSAGE_THREAD, &me1);
	getrusage(RUSAGE_SELF, &all1);
	rig_down(r);
	free(r);
	free(t.buf);
	if (ns < 0 || sw_ns < 0)
		return -EIO;
	nvl_bench_report(ctx, "rpc_large", 2.0 * (1u << 20) * 1e9 / ns,
			 "bytes/s", "memcpy_bandwidth");
	mine = me1.ru_nvcsw - me0.ru_nvcsw;
	rest = (all1.ru_nvcsw - all0.ru_nvcsw) - mine;
	nvl_bench_report_extra(ctx, "rpc_large_sleeps",
			       (double)(mine + rest) / t.iters, "per_call",
			       NULL, "caller_per_call", (double)mine / t.iters,
			       "others_per_call", (double)rest / t.iters, NULL);
	return 0;
}

struct conc {
	struct rig *r;
	int iters;
	int err;
};

static void *conc_thread(void *arg)
{
	struct conc *c = arg;
	uint8_t p[64] = {0};

	for (int i = 0; i < c->iters; i++)
		if (nvl_gsp_rm_control(c->r->gsp, c->r->sub,
				       NVL_MODEL_CTRL_CMD_ECHO, p, sizeof(p)))
			c->err = -EIO;
	return NULL;
}

NVL_BENCH(gsp, rpc_concurrent_8)
{
	struct rig *r = calloc(1, sizeof(*r));
	int iters = nvl_bench_quick(ctx) ? 500 : 4000;
	uint8_t p[64] = {0};
	struct rt t = {r, iters, sizeof(p), p};
	struct conc c[8];
	pthread_t th[8];
	struct rusage ru0, ru1;
	struct nvl_gsp_stats s0, s1;
	double single, rate;
	int64_t t0;
	int err = 0;

	if (!r || rig_up(r)) {
		free(r);
		return -EIO;
	}
	single = 1e9 / nvl_bench_median(3, rt_sample, &t);
	nvl_gsp_get_stats(r->gsp, &s0);
	getrusage(RUSAGE_SELF, &ru0);
	t0 = nvl_bench_now_ns();
	for (int i = 0; i < 8; i++) {
		c[i] = (struct conc){r, iters, 0};
		pthread_create(&th[i], NULL, conc_thread, &c[i]);
	}
	for (int i = 0; i < 8; i++) {
		pthread_join(th[i], NULL);
		err |= c[i].err;
	}
	rate = 8.0 * iters * 1e9 / (double)(nvl_bench_now_ns() - t0);
	getrusage(RUSAGE_SELF, &ru1);
	nvl_gsp_get_stats(r->gsp, &s1);
	rig_down(r);
	free(r);
	if (err)
		return -EIO;
	nvl_bench_report_vs(ctx, "rpc_concurrent_8", rate, "calls/s",
			    "single_thread_calls", single);
	/* where the 8 callers' time goes: sleeps (voluntary context
	 * switches of every thread, driver and firmware) per call */
	nvl_bench_report_extra(
		ctx, "rpc_concurrent_8_sleeps",
		(double)(ru1.ru_nvcsw - ru0.ru_nvcsw) / (8.0 * iters),
		"per_call", NULL, "involuntary_per_call",
		(double)(ru1.ru_nivcsw - ru0.ru_nivcsw) / (8.0 * iters), NULL);
	/* whether its waiting callers yielded their CPUs (gsp.md, "Waiting
	 * callers yield while wake-ups are dear"): waits that did, and that
	 * slept at once because wake-ups were cheap (the cost measured, ns,
	 * before and after) or because a yield had lost its CPU (losses, and
	 * of the spins watching for all; the CPU time lost, ms) */
	nvl_bench_report_extra(
		ctx, "rpc_concurrent_8_yields",
		(double)(s1.yield_waits - s0.yield_waits), "waits", NULL,
		"slept_cheap", (double)(s1.yield_cheap - s0.yield_cheap),
		"slept_shut", (double)(s1.yield_shut - s0.yield_shut),
		"wake_ns_before", (double)s0.wake_cost_ns, "wake_ns_after",
		(double)s1.wake_cost_ns, "yield_lost",
		(double)(s1.yield_lost - s0.yield_lost),
		"yield_lost_same_stall",
		(double)(s1.yield_lost_dup - s0.yield_lost_dup), "spin_lost",
		(double)(s1.multi_lost - s0.multi_lost), "lost_ms",
		(double)(s1.lost_ns - s0.lost_ns) / 1e6, NULL);
	return 0;
}

/* one memcpy plus one SHA-256 pass over @n bytes */
static double copy_hash_ns(const uint8_t *img, size_t n)
{
	uint8_t *dst = malloc(n), md[32];
	int64_t t0;
	double ns;

	if (!dst)
		return -1;
	memcpy(dst, img, n); /* fault the pages in first */
	t0 = nvl_bench_now_ns();
	memcpy(dst, img, n);
	SHA256(dst, n, md);
	ns = (double)(nvl_bench_now_ns() - t0);
	nvl_bench_do_not_optimize(md);
	free(dst);
	return ns;
}

static int boot_once(const char *dir, double *ns, double *base, double *load_ns,
		     struct nvl_gsp_boot_report *rep)
{
	static const char *const v535[] = {"535.113.01", NULL};
	struct nvl_gsp_fw_opts o = {
		.versions = v535, .search_path = dir, .no_builtin = true};
	struct nvl_gsp_image img;
	struct nvl_gsp_fw *fw;
	struct nvl_model *m;
	struct nvl_gsp *gsp;
	int64_t t0;
	int ret;

	if (nvl_model_create(nvl_model_profile_find("tu102"), &m))
		return -ENOMEM;
	ret = nvl_gsp_create(nvl_model_hw(m), &gsp);
	if (ret) {
		nvl_model_destroy(m);
		return ret;
	}
	t0 = nvl_bench_now_ns();
	ret = nvl_gsp_fw_load("tu102", &o, &fw);
	*load_ns = (double)(nvl_bench_now_ns() - t0);
	if (!ret) {
		nvl_gsp_image_from_fw(fw, &img);
		ret = nvl_gsp_boot(gsp, &img, rep);
		*ns = (double)(nvl_bench_now_ns() - t0);
		if (!ret)
			*base = copy_hash_ns(fw->fwimage, fw->fwimage_size);
		nvl_gsp_fw_put(fw);
	}
	nvl_gsp_destroy(gsp);
	nvl_model_destroy(m);
	return ret;
}

NVL_BENCH(gsp, boot_time)
{
	static const char *const dirs[] = {NVL_BUILD_FIRMWARE_DIR,
					   NVL_BUILD_FIRMWARE_DIR
					   "/../firmware-zst"};
	static const char *const names[] = {"boot_time", "boot_time_zst"};

	for (int d = 0; d < 2; d++) {
		double v[3], b[3], l[3], ns = 0, base = 0, last = 0;
		struct nvl_gsp_boot_report rep;
		int reps = nvl_bench_quick(ctx) ? 1 : 3;

		for (int i = 0; i < reps; i++)
			if (boot_once(dirs[d], &v[i], &b[i], &l[i], &rep))
				return -EIO;
		last = v[reps - 1]; /* the run @rep and @l describe */
		ns = nvl_bench_median_of(v, reps);
		base = nvl_bench_median_of(b, reps);
		nvl_bench_report_vs(ctx, names[d], ns, "ns",
				    "memcpy_plus_sha256", base);
		/* where the time went (last run) */
		nvl_bench_report_extra(
			ctx, d ? "boot_steps_zst" : "boot_steps", l[reps - 1],
			"ns", NULL, "memory_ns",
			(double)rep.step_ns[NVL_GSP_STEP_MEMORY], "booter_ns",
			(double)rep.step_ns[NVL_GSP_STEP_BOOTER],
			"init_done_ns",
			(double)rep.step_ns[NVL_GSP_STEP_INIT_DONE],
			"other_steps_ns",
			(double)(rep.step_ns[NVL_GSP_STEP_LAYOUT] +
				 rep.step_ns[NVL_GSP_STEP_INIT_RPCS] +
				 rep.step_ns[NVL_GSP_STEP_RISCV] +
				 rep.step_ns[NVL_GSP_STEP_STATIC_INFO] +
				 rep.step_ns[NVL_GSP_STEP_INTR_TABLE]),
			"total_ns", last, NULL);
	}
	return 0;
}

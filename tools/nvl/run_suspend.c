// SPDX-License-Identifier: MIT
/*
 * nvl run suspend: suspend-to-RAM cycles under a live client. Each cycle,
 * the client's BOs in VRAM get a new pattern from the CPU and their last
 * page from the copy engine; every CPU mapping is dropped (a mapped BO
 * cannot move); the device is suspended (BOs evicted to GTT, page tables
 * and channels saved, the GSP's state saved through GspFwSRMeta, the board
 * powered off) and resumed (the GSP resumes from its saved state); then
 * every byte is checked and the same channel runs the next cycle's job.
 * The sampler stays off the device from suspend to resume (nothing else
 * may call into a device while it suspends: include/nouvelle/device.h).
 */
#include <errno.h>
#include <string.h>

#include "run.h"

#define NBO 4u
#define BO_SIZE (8 * RUN_MIB)
#define PAGE (4 * RUN_KIB)

struct sbo {
	uint32_t h;
	uint64_t va;
};

/* @seed's pattern by the CPU, run_gpu_word()'s in the last page (CE) */
static int write_bos(struct run_ctx *x, struct run_client *cl, struct sbo *b,
		     uint64_t seed)
{
	uint64_t pt = 0;
	int ret = 0;

	for (unsigned int i = 0; i < NBO && !ret; i++) {
		uint32_t pb[32], n;
		void *p;

		ret = nvl_bo_map(cl->c, b[i].h, &p);
		if (ret)
			return run_fail(x, ret, "suspend: map BO %u", i);
		run_pattern(p, BO_SIZE - PAGE, seed + i);
		nvl_bo_unmap(cl->c, b[i].h);
		n = run_pb_fill(pb, x->info.ce_class, b[i].va + BO_SIZE - PAGE,
				run_gpu_word(seed + i), PAGE);
		ret = run_exec(cl, 0, pb, n, NULL, 0, &pt);
	}
	if (!ret && pt)
		ret = run_wait(cl, pt);
	return ret;
}

static int check_bos(struct run_ctx *x, struct run_client *cl, struct sbo *b,
		     uint64_t seed)
{
	int ret = 0;

	for (unsigned int i = 0; i < NBO && !ret; i++) {
		uint32_t want = run_gpu_word(seed + i);
		char what[64];
		uint32_t *p;

		ret = nvl_bo_map(cl->c, b[i].h, (void **)&p);
		if (ret)
			return run_fail(x, ret, "suspend: map BO %u", i);
		snprintf(what, sizeof(what), "suspend: BO %u after resume", i);
		ret = run_pattern_check(x, p, BO_SIZE - PAGE, seed + i, what);
		if (!ret)
			ret = run_gpu_words_check(x, p + (BO_SIZE - PAGE) / 4,
						  PAGE / 4, want, what);
		nvl_bo_unmap(cl->c, b[i].h);
		if (!ret)
			run_stat_add(x, "bytes_checked", "B", BO_SIZE);
	}
	return ret;
}

/* one suspend and resume, timed, with the sampler held off */
static int cycle(struct run_ctx *x, struct run_client *cl, double *sus_ms,
		 double *res_ms)
{
	struct nvl_device_memory m;
	int64_t t0, t1;
	int ret;

	ret = run_client_unmap_pb(cl);
	if (ret)
		return ret;
	pthread_mutex_lock(&x->power_lock);
	t0 = run_now();
	ret = nvl_device_suspend(x->dev);
	t1 = run_now();
	if (ret) {
		pthread_mutex_unlock(&x->power_lock);
		return run_fail(x, ret, "suspend: nvl_device_suspend");
	}
	if (!nvl_device_memory(x->dev, &m) && m.vram_used)
		run_stat_add(x, "vram_left_suspended", "B",
			     (double)m.vram_used);
	ret = nvl_device_resume(x->dev);
	*sus_ms = (t1 - t0) / 1e6;
	*res_ms = (run_now() - t1) / 1e6;
	pthread_mutex_unlock(&x->power_lock);
	if (ret)
		return run_fail(x, ret, "suspend: nvl_device_resume");
	return run_client_map_pb(cl);
}

int run_suspend(struct run_ctx *x)
{
	double sus_sum = 0, res_sum = 0, sus_max = 0, res_max = 0;
	struct run_client *cl;
	struct sbo b[NBO];
	unsigned int made = 0, cycles = 0;
	uint64_t seed = 0x5eed;
	int ret;

	if (x->o->clients != 1) /* cmd_run.c refuses it */
		return run_fail(x, -EINVAL, "suspend runs one client");
	ret = run_client_open(x, "suspend", 1, &cl);
	if (ret)
		return ret;
	for (; made < NBO && !ret; made++) {
		void *p;

		ret = run_bo(cl, BO_SIZE,
			     NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
			     NVL_BO_DOMAIN_VRAM, NVL_BO_CPU_VISIBLE, &b[made].h,
			     &b[made].va, &p);
		if (!ret)
			nvl_bo_unmap(cl->c, b[made].h);
	}
	if (ret)
		made--;
	if (!ret)
		ret = write_bos(x, cl, b, seed);
	while (!ret && (cycles < 2 || !run_should_stop(x))) {
		double s = 0, r = 0;

		ret = cycle(x, cl, &s, &r);
		if (!ret)
			ret = check_bos(x, cl, b, seed);
		if (ret)
			break;
		cycles++;
		sus_sum += s;
		res_sum += r;
		sus_max = s > sus_max ? s : sus_max;
		res_max = r > res_max ? r : res_max;
		run_stat_add(x, "cycles", NULL, 1);
		seed += NBO;
		/* the channel and the VM work after resume: the next pattern */
		ret = write_bos(x, cl, b, seed);
	}
	if (cycles) {
		run_stat_set(x, "suspend_ms_mean", "ms", sus_sum / cycles);
		run_stat_set(x, "suspend_ms_max", "ms", sus_max);
		run_stat_set(x, "resume_ms_mean", "ms", res_sum / cycles);
		run_stat_set(x, "resume_ms_max", "ms", res_max);
	}
	if (cl->point)
		nvl_syncobj_wait(cl->c, &cl->tl, &cl->point, 1,
				 run_now() + RUN_WAIT_NS, 0, NULL);
	run_client_close(cl);
	return ret;
}

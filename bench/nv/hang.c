// SPDX-License-Identifier: MIT
/*
 * Job timeout detection and recovery (suite "rc"; docs/faults.md "Job
 * timeouts and recovery"), through the public API on the model:
 *  - hang_recovery: ns from a hung job's fence signalled -ETIMEDOUT to the
 *    job queued behind it on the same channel signalled done: the driver
 *    worker's RESET_CHANNEL control to the firmware (RM stops the channel,
 *    resets the engine, drops the unfetched entries), the scheduler
 *    writing the innocent job again and the engine running it; no
 *    baseline (a GSP round trip and a submission are its parts:
 *    rpc_roundtrip and exec_latency in the same run of `nvl bench rc gsp
 *    exec`); extras: detect_ns, from the job timeout's expiry (the
 *    submission plus nvl_device_opts.job_timeout_ms, here 20 ms) to the
 *    hung job's fence signalled (the scheduler's timer, the engine-status
 *    check, the fence's error), and the timeout used.
 * Each sample is a fresh client (the third hang of a client bans it,
 * NVL_NV_HANG_BAN) whose copy channel's engine hangs by
 * nvl_channel_inject_hang(); every fence's status is checked.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <nouvelle/nouvelle.h>

#include "bench.h"
#include "nvb.h"

#define TIMEOUT_MS 20

struct hang_rig {
	struct nvl_client *c;
	uint32_t vm, pb, ch, sync[2];
	uint32_t *ppb;
};

static int wait_status(struct hang_rig *k, int i, int want)
{
	int st = 0;
	int ret = nvb_wait(k->c, &k->sync[i], 1);

	if (!ret)
		ret = nvl_syncobj_status(k->c, k->sync[i], 0, &st);
	return ret ? ret : st == want ? 0 : -EPROTO;
}

/* one hang on a fresh client: *detect and *recover in ns */
static int hang_once(struct nvl_device *dev, double *detect, double *recover)
{
	struct nvl_exec_push p = {.va = NVB_VA_PB, .len = 4};
	struct nvl_vm_sync s0, s1;
	struct hang_rig k = {0};
	int64_t t0, t1, t2;
	int ret;

	ret = nvb_client_up(dev, &k.c, &k.vm, &k.pb, &k.ppb, &k.ch, &k.sync[0]);
	if (!ret)
		ret = nvl_syncobj_create(k.c, 0, &k.sync[1]);
	if (!ret)
		ret = nvl_channel_inject_hang(k.c, k.ch);
	s0 = (struct nvl_vm_sync){.handle = k.sync[0]};
	s1 = (struct nvl_vm_sync){.handle = k.sync[1]};
	t0 = nvl_bench_now_ns();
	if (!ret)
		ret = nvl_exec(k.c, k.ch, &p, 1, NULL, 0, &s0, 1, 0);
	if (!ret)
		ret = nvl_exec(k.c, k.ch, &p, 1, NULL, 0, &s1, 1, 0);
	if (!ret)
		ret = wait_status(&k, 0, -ETIMEDOUT);
	t1 = nvl_bench_now_ns();
	if (!ret)
		ret = wait_status(&k, 1, 1);
	t2 = nvl_bench_now_ns();
	*detect = (double)(t1 - t0) - TIMEOUT_MS * 1e6;
	*recover = (double)(t2 - t1);
	if (k.c) {
		if (k.ppb)
			nvl_bo_unmap(k.c, k.pb);
		nvl_client_destroy(k.c);
	}
	return ret;
}

NVL_BENCH(rc, hang_recovery)
{
	struct nvl_device_opts o = {.job_timeout_ms = TIMEOUT_MS};
	int n = nvl_bench_quick(ctx) ? 3 : 9, ret = 0;
	double detect[9], recover[9];
	struct nvl_device *dev = NULL;

	ret = nvl_device_open("model:tiny", &o, &dev);
	for (int i = 0; i < n && !ret; i++)
		ret = hang_once(dev, &detect[i], &recover[i]);
	if (dev)
		nvl_device_close(dev);
	if (ret) {
		fprintf(stderr, "nvl bench: hang_recovery: %s\n",
			strerror(-ret));
		return ret;
	}
	nvl_bench_report_extra(ctx, "hang_recovery",
			       nvl_bench_median_of(recover, n), "ns", NULL,
			       "detect_ns", nvl_bench_median_of(detect, n),
			       "job_timeout_ms", (double)TIMEOUT_MS, NULL);
	return 0;
}

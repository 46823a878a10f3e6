// SPDX-License-Identifier: MIT
/*
 * nvl run hang: an engine hang and its recovery. Client 0 runs a good job,
 * then its channel's engine is made to hang (nvl_channel_inject_hang(),
 * model devices only) and two jobs go behind it: the first hangs the
 * engine, the second waits on the ring. After the device's job timeout
 * (RUN_HANG_TIMEOUT_MS here) the driver resets the channel through the
 * firmware: the hung job completes with -ETIMEDOUT, the one behind it is
 * resubmitted and runs (its bytes are checked), and the channel takes new
 * work. Clients 1.. (--clients, default 2) copy on the same engine for the
 * whole run, every byte checked; they wait while the engine is stuck and
 * go on after the reset, their channels alive. Reported: the time from the
 * hung job's submission to its -ETIMEDOUT and to the resubmitted job's
 * completion.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "run.h"

#define LEN (64 * RUN_KIB)

struct hang_state {
	atomic_uint workers_up;
	atomic_bool recovered;
};

static int check_fill(struct run_ctx *x, const uint8_t *p, size_t n, uint8_t v,
		      const char *what)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			return run_fail(x, -EIO, "%s: byte %zu is %#x, not %#x",
					what, i, p[i], v);
	return 0;
}

/* wait for the binary syncobj @h, then its fence's status */
static int sync_status(struct run_client *cl, uint32_t h, int *st)
{
	int ret = nvl_syncobj_wait(cl->c, &h, NULL, 1, run_now() + RUN_WAIT_NS,
				   NVL_SYNCOBJ_WAIT_FOR_SUBMIT, NULL);

	if (ret)
		return run_fail(cl->x, ret, "client %s: wait for syncobj %u",
				cl->name, h);
	return nvl_syncobj_status(cl->c, h, 0, st);
}

static int hanger(struct run_ctx *x, struct hang_state *hs)
{
	struct nvl_channel_info ci = {0};
	struct run_client *cl;
	uint32_t pb[32], n, dst, sa = 0, sb = 0;
	uint64_t dst_va, pt;
	int64_t t0, t_hung, t_resub;
	int ret, st_a = 0, st_b = 0;
	uint8_t *pdst;

	ret = run_client_open(x, "hanger", 1, &cl);
	if (ret)
		return ret;
	ret = run_bo(cl, 2 * LEN, NVL_BO_DOMAIN_VRAM, 0, NVL_BO_CPU_VISIBLE,
		     &dst, &dst_va, (void **)&pdst);
	if (!ret)
		ret = nvl_syncobj_create(cl->c, 0, &sa);
	if (!ret)
		ret = nvl_syncobj_create(cl->c, 0, &sb);
	if (ret)
		goto out;
	/* a good job first: the channel works */
	n = run_pb_fill(pb, x->info.ce_class, dst_va, 0x11111111u, 2 * LEN);
	ret = run_exec(cl, 0, pb, n, NULL, 0, &pt);
	if (!ret)
		ret = run_wait(cl, pt);
	if (!ret)
		ret = check_fill(x, pdst, 2 * LEN, 0x11, "hanger, first job");
	if (ret)
		goto out_unmap;
	/* let the other clients get going, then hang the engine */
	for (int i = 0;
	     i < 2000 && atomic_load(&hs->workers_up) < x->o->clients - 1; i++)
		nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
	ret = nvl_channel_inject_hang(cl->c, cl->chan[0]);
	if (ret) {
		ret = run_fail(x, ret, "hanger: %s", nvl_last_error());
		goto out_unmap;
	}
	t0 = run_now();
	n = run_pb_fill(pb, x->info.ce_class, dst_va, 0x33333333u, LEN);
	ret = run_exec_sig(cl, 0, pb, n, NULL, 0, sa, NULL);
	n = run_pb_fill(pb, x->info.ce_class, dst_va + LEN, 0x44444444u, LEN);
	if (!ret)
		ret = run_exec_sig(cl, 0, pb, n, NULL, 0, sb, NULL);
	if (!ret)
		ret = sync_status(cl, sa, &st_a);
	t_hung = run_now();
	if (!ret)
		ret = sync_status(cl, sb, &st_b);
	t_resub = run_now();
	if (ret)
		goto out_unmap;
	run_stat_add(x, "hung_job_status", "errno", st_a);
	run_stat_add(x, "timeout_detected_ms", "ms",
		     (double)(t_hung - t0) / 1e6);
	run_stat_add(x, "resubmitted_job_status", NULL, st_b);
	run_stat_add(x, "resubmitted_done_ms", "ms",
		     (double)(t_resub - t0) / 1e6);
	if (st_a != -ETIMEDOUT) {
		ret = run_fail(x, -EIO,
			       "the hung job completed with %d, not "
			       "-ETIMEDOUT",
			       st_a);
		goto out_unmap;
	}
	if (st_b != 1) {
		ret = run_fail(x, -EIO,
			       "the job behind the hung one completed "
			       "with %d, not 1",
			       st_b);
		goto out_unmap;
	}
	/* the resubmitted job wrote its half */
	ret = check_fill(x, pdst + LEN, LEN, 0x44, "hanger, resubmitted job");
	if (ret)
		goto out_unmap;
	ret = nvl_channel_query(cl->c, cl->chan[0], &ci);
	if (ret) {
		ret = run_fail(x, ret, "hanger: channel query");
		goto out_unmap;
	}
	run_stat_add(x, "channel_alive_after_reset", NULL, ci.alive);
	/* and the channel takes new work */
	n = run_pb_fill(pb, x->info.ce_class, dst_va, 0x55555555u, 2 * LEN);
	ret = run_exec(cl, 0, pb, n, NULL, 0, &pt);
	if (!ret)
		ret = run_wait(cl, pt);
	if (!ret)
		ret = check_fill(x, pdst, 2 * LEN, 0x55, "hanger, after reset");
	if (!ret) {
		run_stat_add(x, "bytes_checked", "B", 5 * LEN);
		atomic_store(&hs->recovered, true);
	}
out_unmap:
	atomic_store(&hs->recovered, true); /* release the workers */
	nvl_bo_unmap(cl->c, dst);
out:
	run_client_close(cl);
	return ret;
}

static int hang_thread(struct run_ctx *x, unsigned int i, void *arg)
{
	struct hang_state *hs = arg;
	struct nvl_channel_info ci;
	struct run_client *cl;
	char name[32];
	int ret;

	if (i == 0)
		return hanger(x, hs);
	snprintf(name, sizeof(name), "worker%u", i);
	ret = run_client_open(x, name, x->o->channels, &cl);
	if (ret)
		return ret;
	atomic_fetch_add(&hs->workers_up, 1);
	/* keep copying at least until the hang was recovered */
	ret = run_copies_client(x, cl, 2 * cl->nchan, 0);
	while (!ret && !atomic_load(&hs->recovered) && !x->error)
		ret = run_copies_client(x, cl, cl->nchan, 0);
	for (unsigned int c = 0; !ret && c < cl->nchan; c++) {
		ret = nvl_channel_query(cl->c, cl->chan[c], &ci);
		if (!ret && !ci.alive)
			ret = run_fail(x, -EIO,
				       "client %s: channel %u was killed (%d) "
				       "by another client's hang",
				       cl->name, c, ci.error);
		else if (!ret)
			run_stat_add(x, "other_channels_alive", NULL, 1);
	}
	run_client_close(cl);
	return ret;
}

int run_hang(struct run_ctx *x)
{
	struct hang_state hs = {0};

	return run_threads(x, x->o->clients, hang_thread, &hs);
}

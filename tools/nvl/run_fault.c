// SPDX-License-Identifier: MIT
/*
 * nvl run fault: one client faults, the others keep going. Client 0 runs
 * a few good jobs, then a fill into a VA nothing is mapped at; its channel
 * must be killed (nvl_channel_query: not alive, an error), further execs
 * on it refused with -ENODEV, and a new channel of the same client must
 * work. Clients 1.. (--clients, default 2) run run_copies_client() for the
 * whole run on their own threads, every byte checked, and their channels
 * must stay alive. The errno the channel is killed with is reported, not
 * asserted (it is -EIO from the stall tree today).
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "run.h"

#define UNMAPPED_VA (1ull << 38)
#define LEN (64 * RUN_KIB)

struct fault_state {
	atomic_uint workers_up;
	atomic_bool faulted;
};

static int faulter(struct run_ctx *x, struct fault_state *fs)
{
	struct nvl_channel_info ci = {0};
	struct run_client *cl;
	uint32_t pb[32], n, dst, ch2;
	uint64_t dst_va, pt;
	uint8_t *pdst;
	int ret, wret;

	ret = run_client_open(x, "faulter", 1, &cl);
	if (ret)
		return ret;
	ret = run_bo(cl, LEN, NVL_BO_DOMAIN_VRAM, 0, NVL_BO_CPU_VISIBLE, &dst,
		     &dst_va, (void **)&pdst);
	if (ret)
		goto out;
	/* a good job first: the channel works */
	n = run_pb_fill(pb, x->info.ce_class, dst_va, 0x11111111u, LEN);
	ret = run_exec(cl, 0, pb, n, NULL, 0, &pt);
	if (!ret)
		ret = run_wait(cl, pt);
	for (size_t i = 0; !ret && i < LEN; i++)
		if (pdst[i] != 0x11)
			ret = run_fail(x, -EIO, "faulter: byte %zu is %#x", i,
				       pdst[i]);
	if (ret)
		goto out_unmap;
	/* let the other clients get going, then fault */
	for (int i = 0;
	     i < 2000 && atomic_load(&fs->workers_up) < x->o->clients - 1; i++)
		nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
	n = run_pb_fill(pb, x->info.ce_class, UNMAPPED_VA, 0xdeadbeefu, LEN);
	ret = run_exec(cl, 0, pb, n, NULL, 0, &pt);
	if (ret)
		goto out_unmap;
	/* the faulting job's fence completes (with an error or not) */
	wret = nvl_syncobj_wait(cl->c, &cl->tl, &pt, 1, run_now() + RUN_WAIT_NS,
				0, NULL);
	for (int i = 0; i < 5000; i++) {
		ret = nvl_channel_query(cl->c, cl->chan[0], &ci);
		if (ret || !ci.alive)
			break;
		nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
	}
	if (ret) {
		ret = run_fail(x, ret, "faulter: channel query");
		goto out_unmap;
	}
	atomic_store(&fs->faulted, true);
	run_stat_add(x, "fault_fence_wait", "errno", wret);
	run_stat_add(x, "faulted_channel_alive", NULL, ci.alive);
	run_stat_add(x, "faulted_channel_error", "errno", ci.error);
	run_stat_add(x, "faulted_channel_hw_error", NULL, ci.hw_error);
	if (ci.alive || !ci.error) {
		ret = run_fail(x, -EIO,
			       "the faulting channel is still alive (error "
			       "%d)",
			       ci.error);
		goto out_unmap;
	}
	ret = nvl_exec(cl->c, cl->chan[0],
		       &(struct nvl_exec_push){.va = 2 * RUN_MIB, .len = 8}, 1,
		       NULL, 0, NULL, 0, 0);
	run_stat_add(x, "exec_after_kill", "errno", ret);
	if (ret != -ENODEV) {
		ret = run_fail(x, -EIO,
			       "exec on the killed channel returned %d, not "
			       "-ENODEV",
			       ret);
		goto out_unmap;
	}
	/* the client recovers on a new channel */
	ret = nvl_channel_create(cl->c, cl->vm, NVL_ENGINE_COPY, 0, &ch2);
	if (ret) {
		ret = run_fail(x, ret, "faulter: a new channel");
		goto out_unmap;
	}
	nvl_channel_destroy(cl->c, cl->chan[0]);
	cl->chan[0] = ch2;
	n = run_pb_fill(pb, x->info.ce_class, dst_va, 0x22222222u, LEN);
	ret = run_exec(cl, 0, pb, n, NULL, 0, &pt);
	if (!ret)
		ret = run_wait(cl, pt);
	for (size_t i = 0; !ret && i < LEN; i++)
		if (pdst[i] != 0x22)
			ret = run_fail(x, -EIO,
				       "faulter, new channel: byte %zu is %#x",
				       i, pdst[i]);
	if (!ret) {
		run_stat_add(x, "recovered_on_new_channel", NULL, 1);
		run_stat_add(x, "bytes_checked", "B", 2 * LEN);
	}
out_unmap:
	nvl_bo_unmap(cl->c, dst);
out:
	run_client_close(cl);
	return ret;
}

static int fault_thread(struct run_ctx *x, unsigned int i, void *arg)
{
	struct fault_state *fs = arg;
	struct nvl_channel_info ci;
	struct run_client *cl;
	char name[32];
	int ret;

	if (i == 0)
		return faulter(x, fs);
	snprintf(name, sizeof(name), "worker%u", i);
	ret = run_client_open(x, name, x->o->channels, &cl);
	if (ret)
		return ret;
	atomic_fetch_add(&fs->workers_up, 1);
	/* keep going at least until the fault happened */
	ret = run_copies_client(x, cl, 2 * cl->nchan, 0);
	while (!ret && !atomic_load(&fs->faulted) && !x->error)
		ret = run_copies_client(x, cl, cl->nchan, 0);
	for (unsigned int c = 0; !ret && c < cl->nchan; c++) {
		ret = nvl_channel_query(cl->c, cl->chan[c], &ci);
		if (!ret && !ci.alive)
			ret = run_fail(x, -EIO,
				       "client %s: channel %u was killed "
				       "(%d) by another client's fault",
				       cl->name, c, ci.error);
		else if (!ret)
			run_stat_add(x, "other_channels_alive", NULL, 1);
	}
	run_client_close(cl);
	return ret;
}

int run_fault(struct run_ctx *x)
{
	struct fault_state fs = {0};

	return run_threads(x, x->o->clients, fault_thread, &fs);
}

// SPDX-License-Identifier: MIT
/*
 * nvl run thermal: a sustained copy load against the device's power limit.
 * Each client (--clients, default 1) keeps its channels (--channels,
 * default 2) busy with 4 MiB copies, four jobs in flight per channel, for
 * the whole run; the sampler records temperature, power against the
 * enforced limit, clocks and the clock-event reasons (the summary's
 * sensor section, --record). Every destination is checked at the end.
 * Before the load starts, the board power limit is lowered (--power-limit,
 * default 40 % of the board's default limit) through a client with the
 * right to change device state, so the recording shows the clocks coming
 * down until power settles under the limit (docs/tools.md).
 */
#include <errno.h>
#include <string.h>

#include "run.h"

#define LEN (4 * RUN_MIB)
#define DEPTH 4u

static int thermal_thread(struct run_ctx *x, unsigned int i, void *arg)
{
	uint32_t src, dst[RUN_MAX_CHANNELS];
	uint64_t src_va, dst_va[RUN_MAX_CHANNELS], pts[RUN_MAX_CHANNELS][DEPTH];
	uint8_t *psrc, *pdst[RUN_MAX_CHANNELS];
	struct run_client *cl;
	unsigned int made = 0;
	uint64_t jobs = 0;
	char name[32];
	int ret;

	(void)arg;
	memset(pts, 0, sizeof(pts));
	snprintf(name, sizeof(name), "load%u", i);
	ret = run_client_open(x, name, x->o->channels, &cl);
	if (ret)
		return ret;
	ret = run_bo(cl, LEN, NVL_BO_DOMAIN_VRAM, 0, NVL_BO_CPU_VISIBLE, &src,
		     &src_va, (void **)&psrc);
	if (ret)
		goto out;
	run_pattern(psrc, LEN, (uint64_t)cl->id << 40);
	for (; made < cl->nchan && !ret; made++)
		ret = run_bo(cl, LEN, NVL_BO_DOMAIN_VRAM, 0, NVL_BO_CPU_VISIBLE,
			     &dst[made], &dst_va[made], (void **)&pdst[made]);
	if (ret)
		made--;
	while (!ret && (jobs < 2 * cl->nchan || !run_should_stop(x))) {
		unsigned int k = (unsigned int)(jobs % cl->nchan);
		uint64_t *slot = &pts[k][jobs / cl->nchan % DEPTH];
		uint32_t pb[32], n;

		if (*slot)
			ret = run_wait(cl, *slot);
		n = run_pb_copy(pb, x->info.ce_class, dst_va[k], src_va, LEN);
		if (!ret)
			ret = run_exec(cl, k, pb, n, NULL, 0, slot);
		if (!ret) {
			jobs++;
			run_stat_add(x, "jobs", NULL, 1);
			run_stat_add(x, "bytes_copied", "B", LEN);
		}
	}
	if (!ret && cl->point)
		ret = run_wait(cl, cl->point);
	for (unsigned int k = 0; !ret && k < made; k++) {
		ret = run_check(x, pdst[k], psrc, LEN, "thermal: destination");
		if (!ret)
			run_stat_add(x, "bytes_checked", "B", LEN);
	}
	if (cl->point)
		nvl_syncobj_wait(cl->c, &cl->tl, &cl->point, 1,
				 run_now() + RUN_WAIT_NS, 0, NULL);
	for (unsigned int k = 0; k < made; k++)
		nvl_bo_unmap(cl->c, dst[k]);
	nvl_bo_unmap(cl->c, src);
out:
	run_client_close(cl);
	return ret;
}

int run_thermal(struct run_ctx *x)
{
	return run_threads(x, x->o->clients, thermal_thread, NULL);
}

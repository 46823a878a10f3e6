// SPDX-License-Identifier: MIT
/*
 * nvl run multiclient: N clients (--clients, default 4), each on its own
 * thread with C channels (--channels, default 2), submitting and binding
 * at once. Each job: a new BO is bound asynchronously on the client's bind
 * queue; the job waits for that bind, fills the BO through the remap unit,
 * copies a CPU-written chunk and the filled BO into the channel's
 * destination; every byte of the destination is checked; the BO is
 * unbound asynchronously and closed. One job per channel is in flight.
 * run_copies_client() is also the "other client" of fault, thermal and
 * the demo.
 */
#include <errno.h>
#include <string.h>

#include "run.h"

#define CHUNK (64 * RUN_KIB)

struct chan_bufs {
	uint32_t src, dst, nb;
	uint8_t *psrc, *pdst;
	uint64_t src_va, dst_va, nb_va, pt, seed;
};

static uint32_t fill_word(uint64_t seed)
{
	return (uint32_t)(seed * 0x9e3779b1u) ^ 0x5a5a5a5au;
}

static int submit(struct run_ctx *x, struct run_client *cl, uint32_t queue,
		  uint32_t bind_tl, uint64_t *bind_pt, struct chan_bufs *b,
		  unsigned int ch, uint32_t wait_sync)
{
	struct nvl_vm_bind_op op = {.op = NVL_VM_BIND_OP_MAP, .range = CHUNK};
	struct nvl_vm_sync bsig = {.handle = bind_tl, .point = ++*bind_pt};
	struct nvl_vm_sync waits[2] = {bsig};
	uint64_t shared = atomic_load(&x->shared_point);
	uint32_t pb[64], n, nw = 1;
	int ret;

	run_pattern(b->psrc, CHUNK, b->seed);
	ret = nvl_bo_create(cl->c, CHUNK, NVL_BO_DOMAIN_VRAM, 0, 0, &b->nb);
	if (ret)
		return run_fail(x, ret, "client %s: BO", cl->name);
	b->nb_va = op.addr = run_va(cl, CHUNK);
	op.handle = b->nb;
	ret = nvl_vm_bind(cl->c, cl->vm, queue, &op, 1, NULL, 0, &bsig, 1,
			  NVL_VM_BIND_ASYNC);
	if (ret)
		return run_fail(x, ret, "client %s: async bind", cl->name);
	run_stat_add(x, "async_binds", NULL, 1);
	if (wait_sync && shared) {
		waits[nw++] = (struct nvl_vm_sync){.handle = wait_sync,
						   .point = shared};
		run_stat_add(x, "cross_client_waits", NULL, 1);
	}
	n = run_pb_fill(pb, x->info.ce_class, b->nb_va, fill_word(b->seed),
			CHUNK);
	n += run_pb_copy(pb + n, x->info.ce_class, b->dst_va, b->src_va, CHUNK);
	n += run_pb_copy(pb + n, x->info.ce_class, b->dst_va + CHUNK, b->nb_va,
			 CHUNK);
	ret = run_exec(cl, ch, pb, n, waits, nw, &b->pt);
	if (!ret) {
		run_stat_add(x, "jobs", NULL, 1);
		run_stat_add(x, "bytes_copied", "B", 3 * CHUNK);
	}
	return ret;
}

static int complete(struct run_ctx *x, struct run_client *cl, uint32_t queue,
		    struct chan_bufs *b)
{
	struct nvl_vm_bind_op op = {
		.op = NVL_VM_BIND_OP_UNMAP, .addr = b->nb_va, .range = CHUNK};
	uint32_t fw = fill_word(b->seed);
	char what[64];
	int ret = run_wait(cl, b->pt);

	if (ret)
		return ret;
	snprintf(what, sizeof(what), "client %s: copy", cl->name);
	ret = run_pattern_check(x, b->pdst, CHUNK, b->seed, what);
	for (size_t i = 0; !ret && i < CHUNK / 4; i++)
		if (((uint32_t *)b->pdst)[CHUNK / 4 + i] != fw)
			ret = run_fail(x, -EIO,
				       "client %s: fill word %zu is %#x, not "
				       "%#x",
				       cl->name, i,
				       ((uint32_t *)b->pdst)[CHUNK / 4 + i],
				       fw);
	if (!ret)
		run_stat_add(x, "bytes_checked", "B", 2 * CHUNK);
	if (!ret) {
		ret = nvl_vm_bind(cl->c, cl->vm, queue, &op, 1, NULL, 0, NULL,
				  0, NVL_VM_BIND_ASYNC);
		if (ret)
			run_fail(x, ret, "client %s: async unbind", cl->name);
	}
	nvl_bo_close(cl->c, b->nb);
	b->nb = 0;
	return ret;
}

int run_copies_client(struct run_ctx *x, struct run_client *cl,
		      unsigned int min_jobs, uint32_t wait_sync)
{
	struct chan_bufs b[RUN_MAX_CHANNELS] = {0};
	uint32_t queue = 0, bind_tl = 0;
	uint64_t bind_pt = 0, jobs = 0;
	unsigned int made = 0;
	int ret;

	ret = nvl_vm_bind_queue_create(cl->c, cl->vm, &queue);
	if (!ret)
		ret = nvl_syncobj_create(cl->c, 0, &bind_tl);
	if (ret)
		return run_fail(x, ret, "client %s: bind queue", cl->name);
	for (; made < cl->nchan && !ret; made++) {
		ret = run_bo(cl, CHUNK, NVL_BO_DOMAIN_VRAM, 0,
			     NVL_BO_CPU_VISIBLE, &b[made].src, &b[made].src_va,
			     (void **)&b[made].psrc);
		if (ret)
			break;
		ret = run_bo(cl, 2 * CHUNK, NVL_BO_DOMAIN_VRAM, 0,
			     NVL_BO_CPU_VISIBLE, &b[made].dst, &b[made].dst_va,
			     (void **)&b[made].pdst);
		if (ret) {
			nvl_bo_unmap(cl->c, b[made].src);
			break;
		}
	}
	while (!ret && (jobs < min_jobs || !run_should_stop(x))) {
		unsigned int k;

		if (atomic_load(&x->stop) && x->error)
			break;
		for (k = 0; k < cl->nchan && !ret; k++) {
			b[k].seed = ((uint64_t)cl->id << 40) + jobs++;
			ret = submit(x, cl, queue, bind_tl, &bind_pt, &b[k], k,
				     wait_sync);
		}
		for (unsigned int i = 0; i < k; i++) {
			int r = b[i].nb ? complete(x, cl, queue, &b[i]) : 0;

			ret = ret ? ret : r;
		}
	}
	if (cl->point)
		nvl_syncobj_wait(cl->c, &cl->tl, &cl->point, 1,
				 run_now() + RUN_WAIT_NS, 0, NULL);
	for (unsigned int i = 0; i < made; i++) {
		nvl_bo_unmap(cl->c, b[i].src);
		nvl_bo_unmap(cl->c, b[i].dst);
	}
	nvl_vm_bind_queue_destroy(cl->c, queue);
	return ret;
}

static int mc_thread(struct run_ctx *x, unsigned int i, void *arg)
{
	struct run_client *cl;
	char name[32];
	int ret;

	(void)arg;
	snprintf(name, sizeof(name), "multi%u", i);
	ret = run_client_open(x, name, x->o->channels, &cl);
	if (ret)
		return ret;
	ret = run_copies_client(x, cl, 2 * x->o->channels, 0);
	run_client_close(cl);
	return ret;
}

int run_multiclient(struct run_ctx *x)
{
	return run_threads(x, x->o->clients, mc_thread, NULL);
}

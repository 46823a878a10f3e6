// SPDX-License-Identifier: MIT
/*
 * nvl run sparse: texture streaming. Each client reserves a sparse texture
 * (a SPARSE region of NT tiles of 64 KiB: unbacked tiles read zero) and
 * streams tiles into it: a pool of D VRAM tiles is recycled, each step
 * queueing an asynchronous VM_BIND (unmap the tile the slot held, map it
 * at the next tile's place) that signals a bind timeline, and an EXEC that
 * waits for that point and copies the tile's texels from a staging buffer.
 * D - 1 tiles are in flight while the CPU checks every byte of the oldest
 * one. At the end, tiles that were streamed out and never-bound ones must
 * read zero through the copy engine, and writes to them must be dropped.
 */
#include <errno.h>
#include <string.h>

#include "base/alloc.h"
#include "run.h"

#define TILE (64 * RUN_KIB)
#define NT 256u /* tiles of the texture: 16 MiB of VA */
#define D 8u /* resident tiles */
#define STRIDE 97u /* tile order: coprime with NT, every tile once per lap */

struct sparse {
	struct run_client *cl;
	uint32_t queue, bind_tl, slot[D], stg, zero;
	uint8_t *pslot[D], *pstg, *pzero;
	uint64_t tex_va, stg_va, zero_va;
	uint64_t exec_pt[D];
	uint64_t seed;
};

static uint64_t tile_va(struct sparse *s, uint64_t t)
{
	return s->tex_va + (t * STRIDE % NT) * TILE;
}

static int verify(struct run_ctx *x, struct sparse *s, uint64_t t)
{
	char what[64];
	int ret = run_wait(s->cl, s->exec_pt[t % D]);

	if (ret)
		return ret;
	snprintf(what, sizeof(what), "client %s: tile %llu", s->cl->name,
		 (unsigned long long)(t * STRIDE % NT));
	ret = run_pattern_check(x, s->pslot[t % D], TILE, s->seed + t, what);
	if (!ret)
		run_stat_add(x, "bytes_checked", "B", TILE);
	return ret;
}

/* stream tile @t into slot t % D */
static int stream(struct run_ctx *x, struct sparse *s, uint64_t t,
		  uint32_t signal_sync)
{
	struct run_client *cl = s->cl;
	unsigned int k = (unsigned int)(t % D), nops = 0;
	struct nvl_vm_bind_op ops[2];
	struct nvl_vm_sync bsig = {.handle = s->bind_tl, .point = t + 1};
	struct nvl_vm_sync wait = bsig;
	uint32_t pb[32], n;
	int ret;

	if (t >= D)
		ops[nops++] =
			(struct nvl_vm_bind_op){.op = NVL_VM_BIND_OP_UNMAP,
						.addr = tile_va(s, t - D),
						.range = TILE};
	ops[nops++] = (struct nvl_vm_bind_op){.op = NVL_VM_BIND_OP_MAP,
					      .handle = s->slot[k],
					      .addr = tile_va(s, t),
					      .range = TILE};
	run_pattern(s->pstg + k * TILE, TILE, s->seed + t);
	ret = nvl_vm_bind(cl->c, cl->vm, s->queue, ops, nops, NULL, 0, &bsig, 1,
			  NVL_VM_BIND_ASYNC);
	if (ret)
		return run_fail(x, ret, "client %s: async bind of tile %llu",
				cl->name, (unsigned long long)t);
	run_stat_add(x, "async_binds", NULL, 1);
	n = run_pb_copy(pb, x->info.ce_class, tile_va(s, t),
			s->stg_va + k * TILE, TILE);
	ret = run_exec(cl, 0, pb, n, &wait, 1, &s->exec_pt[k]);
	if (ret)
		return ret;
	if (signal_sync) {
		/* the same job's fence, as a point of the shared timeline */
		ret = nvl_syncobj_transfer(cl->c, signal_sync, t + 1, cl->tl,
					   s->exec_pt[k], 0);
		if (ret)
			return run_fail(x, ret, "client %s: share point %llu",
					cl->name, (unsigned long long)t + 1);
		atomic_store(&x->shared_point, t + 1);
	}
	run_stat_add(x, "tiles_streamed", NULL, 1);
	run_stat_add(x, "bytes_copied", "B", TILE);
	return 0;
}

/* tile VA @va, not backed, reads zero and drops writes */
static int expect_unbacked(struct run_ctx *x, struct sparse *s, uint64_t va)
{
	uint32_t pb[64], n;
	uint64_t pt;
	int ret;

	memset(s->pzero, 0xa5, TILE);
	n = run_pb_fill(pb, x->info.ce_class, va, 0x5a5a5a5au, TILE);
	n += run_pb_copy(pb + n, x->info.ce_class, s->zero_va, va, TILE);
	ret = run_exec(s->cl, 0, pb, n, NULL, 0, &pt);
	if (!ret)
		ret = run_wait(s->cl, pt);
	for (size_t i = 0; !ret && i < TILE; i++)
		if (s->pzero[i])
			return run_fail(x, -EIO,
					"client %s: unbacked sparse tile at "
					"%#llx: byte %zu reads %#x, not 0",
					s->cl->name, (unsigned long long)va, i,
					s->pzero[i]);
	if (!ret) {
		run_stat_add(x, "sparse_zero_checks", NULL, 1);
		run_stat_add(x, "bytes_checked", "B", TILE);
	}
	return ret;
}

int run_sparse_client(struct run_ctx *x, struct run_client *cl,
		      unsigned int min_tiles, uint32_t signal_sync)
{
	struct nvl_vm_bind_op op = {.op = NVL_VM_BIND_OP_MAP,
				    .flags = NVL_VM_BIND_SPARSE};
	struct sparse s = {.cl = cl, .seed = (uint64_t)cl->id << 40};
	unsigned int made = 0;
	uint64_t t = 0;
	int ret;

	ret = nvl_vm_bind_queue_create(cl->c, cl->vm, &s.queue);
	if (!ret)
		ret = nvl_syncobj_create(cl->c, 0, &s.bind_tl);
	if (ret)
		return run_fail(x, ret, "client %s: bind queue", cl->name);
	s.tex_va = op.addr = run_va(cl, NT * TILE);
	op.range = NT * TILE;
	ret = nvl_vm_bind(cl->c, cl->vm, 0, &op, 1, NULL, 0, NULL, 0, 0);
	if (ret)
		return run_fail(x, ret, "client %s: sparse region", cl->name);
	for (; made < D; made++) {
		ret = run_bo(cl, TILE, NVL_BO_DOMAIN_VRAM, 0,
			     NVL_BO_CPU_VISIBLE, &s.slot[made], NULL,
			     (void **)&s.pslot[made]);
		if (ret)
			goto out;
	}
	ret = run_bo(cl, D * TILE, NVL_BO_DOMAIN_VRAM, 0, NVL_BO_CPU_VISIBLE,
		     &s.stg, &s.stg_va, (void **)&s.pstg);
	if (ret)
		goto out;
	ret = run_bo(cl, TILE, NVL_BO_DOMAIN_VRAM, 0, NVL_BO_CPU_VISIBLE,
		     &s.zero, &s.zero_va, (void **)&s.pzero);
	if (ret)
		goto out_stg;
	for (; !ret && (t < min_tiles || !run_should_stop(x)); t++) {
		if (atomic_load(&x->stop) && x->error)
			break;
		if (t >= D)
			ret = verify(x, &s, t - D);
		if (!ret)
			ret = stream(x, &s, t, signal_sync);
	}
	for (uint64_t v = t > D ? t - D : 0; !ret && v < t; v++)
		ret = verify(x, &s, v);
	/* streamed out (unmapped back to sparse) and never bound */
	if (!ret && t > D)
		ret = expect_unbacked(x, &s, tile_va(&s, t - D - 1));
	if (!ret && t + D < NT)
		ret = expect_unbacked(x, &s, tile_va(&s, t + 1));
	nvl_bo_unmap(cl->c, s.zero);
out_stg:
	nvl_bo_unmap(cl->c, s.stg);
out:
	/* let queued binds and copies finish before the BOs' maps go */
	if (cl->point)
		nvl_syncobj_wait(cl->c, &cl->tl, &cl->point, 1,
				 run_now() + RUN_WAIT_NS, 0, NULL);
	for (unsigned int i = 0; i < made; i++)
		nvl_bo_unmap(cl->c, s.slot[i]);
	nvl_vm_bind_queue_destroy(cl->c, s.queue);
	return ret;
}

static int sparse_thread(struct run_ctx *x, unsigned int i, void *arg)
{
	struct run_client *cl;
	char name[32];
	int ret;

	(void)arg;
	snprintf(name, sizeof(name), "sparse%u", i);
	ret = run_client_open(x, name, 1, &cl);
	if (ret)
		return ret;
	ret = run_sparse_client(x, cl, 2 * D, 0);
	run_client_close(cl);
	return ret;
}

int run_sparse(struct run_ctx *x)
{
	run_stat_add(x, "tile_size", "B", TILE);
	return run_threads(x, x->o->clients, sparse_thread, NULL);
}

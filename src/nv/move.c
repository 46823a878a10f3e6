// SPDX-License-Identifier: MIT
/*
 * DOC: memory moves on the copy engine
 *
 * The device's memory manager moves and clears BOs on its move worker
 * (mm/mm.c); with this engine plugged in (nvl_mm_set_move_ops()) the
 * worker hands each job to the GPU instead of copying with the CPU, as
 * TTM's move goes through Nouveau's copy engine.
 *
 * The driver owns a client (not on the device's client list), a VM with
 * the channel window's kernel range and one privileged copy channel on it
 * (RM's PRIVILEGED_CHANNEL flag, so that its copy engine may use physical
 * addresses), made by the first job that needs it (a device that never
 * moves memory leaves all its hardware channels to its clients; if it
 * cannot be made, the CPU does the job). A job is one or more pushes written into the spare end of
 * the channel's slot (nvl_nv_chan_kernel_pushbuf()) and queued through the
 * channel's scheduler (nvl_nv_chan_submit()); the fence the channel's
 * idiom signals is the job's. Each run is a physical-mode pitch copy
 * (SET_SRC_PHYS_MODE / SET_DST_PHYS_MODE TARGET: LOCAL_FB for VRAM,
 * COHERENT_SYSMEM for GTT, NONCOHERENT_SYSMEM for SYSTEM at the pages'
 * DMA address; LAUNCH_DMA SRC_TYPE / DST_TYPE PHYSICAL); a clear is a fill
 * of zeroes through the remap unit (SET_REMAP_COMPONENTS DST_X CONST_A,
 * four-byte components).
 *
 * The move worker calls in one job at a time but does not wait for it:
 * jobs are pipelined. The pushbuffer is a ring of NSEG segments; a job is
 * written into the next segment once the job that used it last has
 * finished (its fence), and a job that does not fit goes on in the
 * following segments (each full one queued as it fills). The channel runs
 * its jobs in order, and a copy-engine error kills it: the guilty job's
 * fence carries the error, those queued behind it are cancelled, and the
 * memory manager's completer redoes each with the CPU. A submission that
 * finds the channel dead drops it and returns -EAGAIN: the worker waits
 * for every job in flight, then calls again, and that call makes a new
 * channel (so no job on a new channel runs while the CPU redoes an old
 * one). A job that fails half-way for another reason (no memory) waits
 * for the pieces it queued before returning the error, so that the
 * worker's CPU copy does not race them. Nothing here takes a lock of the
 * memory manager, a resv or a VM lock.
 */
#include <errno.h>
#include <stdatomic.h>

#include "base/alloc.h"
#include "base/client.h"
#include "base/log.h"
#include "hw/ce.h"
#include "mm/bo.h"
#include "nouvelle/exec.h"
#include "nouvelle/push.h"
#include "nouvelle/vm.h"
#include "nv/chan.h"
#include "nv/device.h"
#include "nv/move.h"
#include "sync/fence.h"

#define MIB (1ull << 20)
/* bytes per LAUNCH_DMA (LINE_LENGTH_IN is 32 bits) */
#define PIECE_MAX (1ull << 30)
/* dwords of one copy and one fill (below), and SET_OBJECT */
#define COPY_DW 14
#define FILL_DW 14
#define OBJ_DW 2
/* the pushbuffer is a ring of this many segments, one job (or one piece of
 * a long one) each, reused once the job that used it last is finished: as
 * many as the memory manager keeps in flight, so that the worker does not
 * wait for a segment while the pipeline has room (16: 2816 bytes, 50 runs
 * each) */
#define NSEG NVL_MM_INFLIGHT_MAX

struct nvl_nv_move {
	struct nvl_nv_device *d;
	struct nvl_mm *mm;
	struct nvl_client *client;
	uint32_t vm, chan;
	/* the channel's pushbuffer */
	uint32_t *pb;
	uint64_t pb_va;
	uint32_t pb_bytes;
	struct nvl_push p;
	/* the segment being written, and the fence of each segment's last
	 * job (NULL: free) */
	unsigned seg;
	struct nvl_fence *seg_fence[NSEG];
	/* copies to make fail on purpose, and which allocation of the next
	 * job to fail (nvl_nv_move_inject()) */
	_Atomic uint32_t inject;
	_Atomic uint32_t inject_alloc;
	_Atomic uint64_t restarts;
};

/* the kernel range holds the channel window's slots */
static const struct nvl_vm_create_args vm_args = {
	.start = 1 * MIB,
	.end = 1ull << 40,
	.kernel_start = 1ull << 39,
	.kernel_range = (uint64_t)NVL_NV_CHAN_SLOTS * NVL_NV_CHAN_SLOT_SIZE,
};

static int chan_up(struct nvl_nv_move *mv)
{
	void *cpu;
	int ret;

	if (mv->chan)
		return 0;
	if (atomic_load(&mv->d->lost))
		return nvl_error(-ENODEV, "move: the device is lost");
	ret = nvl_nv_chan_create_kernel(mv->client, mv->vm, &mv->chan);
	if (ret) {
		/* a VM of the firmware before a reset is gone with it: a new
		 * VM, once */
		uint32_t vm;

		if (nvl_vm_create(mv->client, &vm_args, &vm))
			return ret;
		(void)nvl_vm_destroy(mv->client, mv->vm);
		mv->vm = vm;
		ret = nvl_nv_chan_create_kernel(mv->client, mv->vm, &mv->chan);
		if (ret)
			return ret;
	}
	ret = nvl_nv_chan_kernel_pushbuf(mv->client, mv->chan, &cpu, &mv->pb_va,
					 &mv->pb_bytes);
	if (ret) {
		(void)nvl_channel_destroy(mv->client, mv->chan);
		mv->chan = 0;
		return ret;
	}
	mv->pb = cpu;
	return 0;
}

/* the channel's jobs are finished or will never run: forget them */
static void chan_down(struct nvl_nv_move *mv)
{
	if (mv->chan)
		(void)nvl_channel_destroy(mv->client, mv->chan);
	mv->chan = 0;
	for (unsigned i = 0; i < NSEG; i++) {
		nvl_fence_put(mv->seg_fence[i]);
		mv->seg_fence[i] = NULL;
	}
	mv->seg = 0;
}

static uint32_t seg_bytes(struct nvl_nv_move *mv)
{
	return mv->pb_bytes / NSEG & ~3u;
}

/*
 * Start a push in the current segment of the ring (waiting for the job
 * that used it last): the copy class on subchannel 0.
 */
static void push_begin(struct nvl_nv_move *mv)
{
	struct nvl_fence *f = mv->seg_fence[mv->seg];

	if (f) {
		(void)nvl_fence_wait(f, NVL_TIMEOUT_INFINITE);
		nvl_fence_put(f);
		mv->seg_fence[mv->seg] = NULL;
	}
	(void)nvl_push_init(&mv->p, mv->pb + mv->seg * (seg_bytes(mv) / 4),
			    seg_bytes(mv));
	nvl_push_ce_set_object(&mv->p, 0, mv->d->boot.ce_class);
}

/*
 * Queue the current segment's push; *@f is its fence, which the segment
 * keeps too. A dead channel (a failed job killed it, or a reset) is
 * dropped: -EAGAIN, and the caller's next call makes a new one.
 */
static int push_submit(struct nvl_nv_move *mv, struct nvl_fence **f)
{
	long n = nvl_push_end(&mv->p);
	int ret;

	if (n < 0)
		return (int)n;
	ret = nvl_nv_chan_submit(mv->client, mv->chan,
				 mv->pb_va + (uint64_t)mv->seg * seg_bytes(mv),
				 nvl_push_bytes(&mv->p), f);
	if (ret == -ENODEV) {
		chan_down(mv);
		atomic_fetch_add(&mv->restarts, 1);
		return -EAGAIN;
	}
	if (ret)
		return ret;
	mv->seg_fence[mv->seg] = nvl_fence_get(*f);
	mv->seg = (mv->seg + 1) % NSEG;
	return 0;
}

/* the segment is full: queue it (the job goes on in the next one) */
static int push_flush(struct nvl_nv_move *mv)
{
	struct nvl_fence *f;
	int ret = push_submit(mv, &f);

	if (ret)
		return ret;
	nvl_fence_put(f);
	push_begin(mv);
	return 0;
}

/* room for @ndw more dwords (and the pushbuffer's own header) */
static int push_room(struct nvl_nv_move *mv, size_t ndw)
{
	if ((size_t)(mv->p.end - mv->p.cur) >= ndw)
		return 0;
	return push_flush(mv);
}

/* SET_*_PHYS_MODE TARGET of a run, and its physical address */
static uint32_t target(struct nvl_nv_move *mv, const struct nvl_mm_extent *e,
		       uint64_t off, uint64_t *pa)
{
	switch (e->dom) {
	case NVL_GEM_DOMAIN_VRAM:
		*pa = mv->d->vram_base + e->addr + off;
		return NVL_PUSH_CE_SET_SRC_PHYS_MODE_TARGET_LOCAL_FB;
	case NVL_GEM_DOMAIN_GTT:
		*pa = e->addr + off;
		return NVL_PUSH_CE_SET_SRC_PHYS_MODE_TARGET_COHERENT_SYSMEM;
	default:
		*pa = e->addr + off;
		return NVL_PUSH_CE_SET_SRC_PHYS_MODE_TARGET_NONCOHERENT_SYSMEM;
	}
}

/* LAUNCH_DMA: push.h's pitch-to-pitch launch, with a physical destination */
#define LAUNCH_PHYS_                                                           \
	(NVL_PUSH_CE_LAUNCH_PITCH_ |                                           \
	 NVL_PUSH_CE_LAUNCH_DMA_DST_TYPE_PHYSICAL                              \
		 << NVL_PUSH_CE_LAUNCH_DMA_DST_TYPE_SHIFT)

/* one physical copy of @n bytes: 14 dwords */
static void emit_copy(struct nvl_push *p, uint32_t st, uint64_t src,
		      uint32_t dt, uint64_t dst, uint32_t n)
{
	uint32_t m[2] = {st, dt};
	uint32_t o[8] = {
		(uint32_t)(src >> 32),
		(uint32_t)src,
		(uint32_t)(dst >> 32),
		(uint32_t)dst,
		n,
		n,
		n,
		1, /* LINE_COUNT: one line */
	};

	nvl_push_mthd(p, 0, NVL_PUSH_CE_SET_SRC_PHYS_MODE, m, 2);
	nvl_push_mthd(p, 0, NVL_PUSH_CE_OFFSET_IN_UPPER, o, 8);
	nvl_push_1(p, 0, NVL_PUSH_CE_LAUNCH_DMA,
		   LAUNCH_PHYS_ |
			   NVL_PUSH_CE_LAUNCH_DMA_SRC_TYPE_PHYSICAL
				   << NVL_PUSH_CE_LAUNCH_DMA_SRC_TYPE_SHIFT);
}

/* a zero fill of @n bytes (a multiple of 4) at @dst: 14 dwords */
static void emit_fill(struct nvl_push *p, uint32_t dt, uint64_t dst, uint64_t n)
{
	uint32_t r[3] = {
		0, /* SET_REMAP_CONST_A */
		0, /* SET_REMAP_CONST_B */
		NVL_PUSH_CE_SET_REMAP_COMPONENTS_DST_X_CONST_A
				<< NVL_PUSH_CE_SET_REMAP_COMPONENTS_DST_X_SHIFT |
			NVL_PUSH_CE_SET_REMAP_COMPONENTS_COMPONENT_SIZE_FOUR
				<< NVL_PUSH_CE_SET_REMAP_COMPONENTS_COMPONENT_SIZE_SHIFT,
	};
	uint32_t o[2] = {(uint32_t)(dst >> 32), (uint32_t)dst};
	uint32_t l[2] = {(uint32_t)(n / 4), 1}; /* components, one line */

	nvl_push_mthd(p, 0, NVL_PUSH_CE_SET_REMAP_CONST_A, r, 3);
	nvl_push_1(p, 0, NVL_PUSH_CE_SET_DST_PHYS_MODE, dt);
	nvl_push_mthd(p, 0, NVL_PUSH_CE_OFFSET_OUT_UPPER, o, 2);
	nvl_push_mthd(p, 0, NVL_PUSH_CE_LINE_LENGTH_IN, l, 2);
	nvl_push_1(p, 0, NVL_PUSH_CE_LAUNCH_DMA,
		   LAUNCH_PHYS_ |
			   1u << NVL_PUSH_CE_LAUNCH_DMA_REMAP_ENABLE_SHIFT);
}

/*
 * A copy whose source is outside every memory: the copy engine reports a
 * CE_LAUNCH channel error and RM kills the channel (fault injection).
 */
static void emit_bad_copy(struct nvl_nv_move *mv)
{
	emit_copy(&mv->p, NVL_PUSH_CE_SET_SRC_PHYS_MODE_TARGET_LOCAL_FB,
		  1ull << 52, NVL_PUSH_CE_SET_SRC_PHYS_MODE_TARGET_LOCAL_FB,
		  mv->d->vram_base, 4096);
}

static int do_copy(struct nvl_nv_move *mv, const struct nvl_mm_extent *src,
		   unsigned nsrc, const struct nvl_mm_extent *dst,
		   unsigned ndst, struct nvl_fence **fence_out)
{
	unsigned si = 0, di = 0;
	uint64_t so = 0, dof = 0;
	bool bad = false;
	int ret;

	ret = chan_up(mv);
	if (ret)
		return ret;
	push_begin(mv);
	/* injected failure: after the first run, so the destination is
	 * partly written when the job fails */
	if (atomic_load(&mv->inject)) {
		uint32_t n = atomic_load(&mv->inject);

		while (n &&
		       !atomic_compare_exchange_weak(&mv->inject, &n, n - 1))
			;
		bad = n != 0;
	}
	while (si < nsrc && di < ndst) {
		uint64_t n = NVL_MIN(src[si].len - so, dst[di].len - dof);
		uint64_t sa, da;
		uint32_t st, dt;

		n = NVL_MIN(n, PIECE_MAX);
		ret = push_room(mv, COPY_DW * 2);
		if (ret)
			return ret;
		st = target(mv, &src[si], so, &sa);
		dt = target(mv, &dst[di], dof, &da);
		emit_copy(&mv->p, st, sa, dt, da, (uint32_t)n);
		if (bad) {
			emit_bad_copy(mv);
			bad = false;
		}
		so += n;
		dof += n;
		if (so == src[si].len) {
			si++;
			so = 0;
		}
		if (dof == dst[di].len) {
			di++;
			dof = 0;
		}
	}
	return push_submit(mv, fence_out);
}

static int do_clear(struct nvl_nv_move *mv, const struct nvl_mm_extent *dst,
		    unsigned ndst, struct nvl_fence **fence_out)
{
	int ret = chan_up(mv);

	if (ret)
		return ret;
	push_begin(mv);
	for (unsigned i = 0; i < ndst; i++) {
		for (uint64_t o = 0; o < dst[i].len; o += PIECE_MAX) {
			uint64_t n = NVL_MIN(dst[i].len - o, PIECE_MAX), pa;
			uint32_t dt = target(mv, &dst[i], o, &pa);

			ret = push_room(mv, FILL_DW);
			if (ret)
				return ret;
			emit_fill(&mv->p, dt, pa, n);
		}
	}
	return push_submit(mv, fence_out);
}

/* arm the allocation failure asked for, on this (the worker's) thread */
static uint32_t alloc_fault_arm(struct nvl_nv_move *mv)
{
	uint32_t nth = atomic_exchange(&mv->inject_alloc, 0);

	if (nth)
		nvl_fault_fail_nth(nth, NVL_FAULT_THIS_THREAD);
	return nth;
}

/*
 * A job that failed half-way (out of memory) may have queued pieces: wait
 * for them, the worker's CPU copy must not race them.
 */
static int job_end(struct nvl_nv_move *mv, int ret)
{
	if (!ret || ret == -EAGAIN)
		return ret;
	for (unsigned i = 0; i < NSEG; i++)
		if (mv->seg_fence[i])
			(void)nvl_fence_wait(mv->seg_fence[i],
					     NVL_TIMEOUT_INFINITE);
	return ret;
}

/* -EAGAIN: the channel was dead; the worker calls again once the jobs in
 * flight on it are finished, and the call makes a new channel */
static int mv_copy(void *priv, const struct nvl_mm_extent *src, unsigned nsrc,
		   const struct nvl_mm_extent *dst, unsigned ndst,
		   struct nvl_fence **fence_out)
{
	uint32_t nth = alloc_fault_arm(priv);
	int ret = job_end(priv, do_copy(priv, src, nsrc, dst, ndst, fence_out));

	if (nth)
		nvl_fault_off();
	return ret;
}

static int mv_clear(void *priv, const struct nvl_mm_extent *dst, unsigned ndst,
		    struct nvl_fence **fence_out)
{
	uint32_t nth = alloc_fault_arm(priv);
	int ret = job_end(priv, do_clear(priv, dst, ndst, fence_out));

	if (nth)
		nvl_fault_off();
	return ret;
}

static const struct nvl_mm_move_ops move_ops = {
	.copy = mv_copy,
	.clear = mv_clear,
};

int nvl_nv_move_init(struct nvl_nv_device *d, struct nvl_mm *mm,
		     struct nvl_nv_move **out)
{
	struct nvl_nv_move *mv;
	int ret;

	mv = nvl_zalloc(sizeof(*mv));
	if (!mv)
		return nvl_error(-ENOMEM, "move: out of memory");
	mv->d = d;
	mv->mm = mm;
	ret = nvl_client_alloc(&d->cdev, &mv->client);
	if (ret) {
		ret = nvl_error(ret, "move: no client");
		goto fail;
	}
	ret = nvl_vm_create(mv->client, &vm_args, &mv->vm);
	if (ret) {
		ret = nvl_error(ret, "move: no VM: %s", nvl_error_msg());
		goto fail;
	}
	nvl_mm_set_move_ops(mm, &move_ops, mv);
	*out = mv;
	return 0;
fail:
	nvl_nv_move_fini(mv);
	return ret;
}

void nvl_nv_move_fini(struct nvl_nv_move *mv)
{
	if (!mv)
		return;
	/* the worker stops calling in (a job in flight finishes first) */
	if (mv->mm)
		nvl_mm_set_move_ops(mv->mm, NULL, NULL);
	if (mv->client) {
		chan_down(mv);
		if (mv->vm)
			(void)nvl_vm_destroy(mv->client, mv->vm);
		nvl_client_put(mv->client);
	}
	nvl_free(mv);
}

void nvl_nv_move_inject(struct nvl_nv_move *mv, bool alloc, uint32_t count)
{
	atomic_store(alloc ? &mv->inject_alloc : &mv->inject, count);
}

uint64_t nvl_nv_move_restarts(struct nvl_nv_move *mv)
{
	return atomic_load(&mv->restarts);
}

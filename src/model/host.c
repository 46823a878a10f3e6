// SPDX-License-Identifier: MIT
/*
 * DOC: Host methods
 *
 * The channel-class methods below 0x100 (hw/host.h): NOP, ILLEGAL,
 * NON_STALL_INTERRUPT, the semaphore methods (SEM_ADDR/PAYLOAD/EXECUTE),
 * MEM_OP_A..D (TLB invalidate: all VAs, or targeted at 4 KiB <<
 * MEM_OP_A INVALIDATION_SIZE bytes around the target, draining with
 * SYSMEMBAR and an ACK, then MEM_OP_C's REPLAY as MMU_INVALIDATE's when
 * TLB_INVALIDATE_GPC is ENABLE; privileged channels only, a METHOD
 * error from any other, as dev_pbdma says; membars), WFI, YIELD,
 * SET_REFERENCE, CLEAR_FAULTED and FB_FLUSH.
 *
 * Semaphores live at GPU virtual addresses, accessed through the MMU as
 * engine HOST(runlist):
 *  - release writes the 32- or 64-bit payload; with RELEASE_TIMESTAMP it
 *    writes the PTIMER value at +8 first, needs 16-byte alignment, and a
 *    32-bit payload is written as 8 bytes (bytes 4..7 zero).
 *    Completion interrupts come from a following NON_STALL_INTERRUPT;
 *  - SEM_ADDR_HI OFFSET is 7:0 (VA 39:32) up to C56F, 24:0 in C86F;
 *  - acquire compares (==, unsigned >=, circular >=, AND, NOR); when the
 *    condition does not hold the channel parks and retries the method
 *    until it holds, or the channel's acquire timeout (RAMFC) expires
 *    (ACQUIRE error);
 *  - reduction applies IMIN..DEC atomically with respect to every other
 *    model reduction (REDUCTION_FORMAT 31: 0 SIGNED); with
 *    RELEASE_TIMESTAMP it needs 16-byte alignment and writes the timestamp
 *    at +8. Signed 64-bit IADD, and INC/DEC other than 32-bit unsigned,
 *    are SEMAPHORE errors.
 * Misaligned addresses or unknown operations are SEMAPHORE errors. The
 * legacy SEMAPHOREA..D methods are not modelled and are METHOD errors, as
 * any unknown Host method is.
 *
 * Engines execute in order on the runlist thread, so WFI and RELEASE_WFI
 * are satisfied by construction.
 */
#include <errno.h>

#include "base/time.h"
#include "hw/fault.h"
#include "hw/regs.h"
#include "model/fifo.h"

static unsigned host_engine(struct nvl_model_chan *ch)
{
	return ch->m->eng->host0 + ch->runlist;
}

/*
 * Semaphore memory: translate first (the TLB as any access), then touch
 * the word under the device's semaphore lock, so that releases, acquires
 * and reductions are atomic with respect to each other as in the
 * hardware's semaphore units. Anything unusual (a fault, a sparse page, a
 * word crossing its page) is left to nvl_model_vm_access(), outside the
 * lock, which applies the MMU's rules and reports the fault.
 */
static bool sem_xlate(struct nvl_model_chan *ch, uint64_t va, size_t len,
		      unsigned access, struct nvl_model_xlate *x)
{
	if (nvl_model_mmu_translate(ch->m, &ch->vm, va, access, x) ||
	    x->state != NVL_MODEL_XLATE_MAPPED)
		return false;
	return (va & ((1ull << x->page_shift) - 1)) + len <=
	       (1ull << x->page_shift);
}

int nvl_model_sem_access(struct nvl_model_chan *ch, unsigned engine_id,
			 uint64_t va, void *buf, size_t len, bool write)
{
	struct nvl_model_fifo *f = ch->m->fifo;
	const struct nvl_model_utlb_entry *e;
	struct nvl_model_xlate x;
	int ret = -EFAULT;
	enum nvl_hw_aperture ap;
	uint64_t pa;

	/* the PBDMA's micro-TLB first (runlist thread only) */
	unsigned t = nvl_model_mmu_enter(ch->m->mmu, ch->chid);

	if (((e = nvl_model_chan_utlb_find(ch, NVL_MODEL_UTLB_SEM, va, len,
					   write)) &&
	     (ap = e->aperture, pa = e->pa + (va - e->va), true)) ||
	    (sem_xlate(ch, va, len,
		       write ? NVL_HW_FAULT_ACCESS_WRITE
			     : NVL_HW_FAULT_ACCESS_READ,
		       &x) &&
	     (ap = x.aperture, pa = x.pa, true))) {
		nvl_flock_lock(&f->atomic_lock);
		ret = nvl_model_phys_access(ch->m, ap, pa, buf, len, write);
		nvl_flock_unlock(&f->atomic_lock);
	}
	nvl_model_mmu_exit(ch->m->mmu, t);
	if (ret)
		ret = nvl_model_vm_access(ch->m, &ch->vm, va, buf, len, write,
					  engine_id, ch->chid);
	return ret;
}

/*
 * A release with RELEASE_TIMESTAMP: the timestamp at +8, then the payload
 * (8 bytes), with one translation and one hold of the semaphore lock when
 * both land in one mapped page (always, for the 16-byte aligned address
 * the method requires, unless the page is sparse or faults); otherwise
 * two nvl_model_sem_access() calls, which apply the MMU's rules.
 */
static int sem_release_ts(struct nvl_model_chan *ch, unsigned engine_id,
			  uint64_t va, uint64_t t, uint64_t payload)
{
	struct nvl_model_fifo *f = ch->m->fifo;
	unsigned tk = nvl_model_mmu_enter(ch->m->mmu, ch->chid);
	const struct nvl_model_utlb_entry *e =
		nvl_model_chan_utlb_find(ch, NVL_MODEL_UTLB_SEM, va, 16, true);
	struct nvl_model_xlate x;
	enum nvl_hw_aperture ap;
	uint64_t pa;
	int ret = -EFAULT;

	/* the usual case: a VRAM page the micro-TLB holds; two stores */
	if (likely(e && e->host)) {
		uint8_t *p = e->host + (va - e->va);

		nvl_flock_lock(&f->atomic_lock);
		nvl_model_mem_copy(p + 8, &t, 8);
		nvl_model_mem_copy(p, &payload, 8);
		nvl_flock_unlock(&f->atomic_lock);
		nvl_model_mmu_exit(ch->m->mmu, tk);
		return 0;
	}
	if ((e && (ap = e->aperture, pa = e->pa + (va - e->va), true)) ||
	    (sem_xlate(ch, va, 16, NVL_HW_FAULT_ACCESS_WRITE, &x) &&
	     (ap = x.aperture, pa = x.pa, true))) {
		nvl_flock_lock(&f->atomic_lock);
		ret = nvl_model_phys_access(ch->m, ap, pa + 8, &t, 8, true);
		if (!ret)
			ret = nvl_model_phys_access(ch->m, ap, pa, &payload, 8,
						    true);
		nvl_flock_unlock(&f->atomic_lock);
	}
	nvl_model_mmu_exit(ch->m->mmu, tk);
	if (!ret)
		return 0;
	if (nvl_model_sem_access(ch, engine_id, va + 8, &t, 8, true))
		return -EFAULT;
	return nvl_model_sem_access(ch, engine_id, va, &payload, 8, true);
}

static uint64_t reduce(unsigned op, bool is_signed, bool wide, uint64_t v,
		       uint64_t p)
{
	uint64_t mask = wide ? UINT64_MAX : UINT32_MAX;
	int64_t sv, sp;

	v &= mask;
	p &= mask;
	sv = wide ? (int64_t)v : (int64_t)(int32_t)v;
	sp = wide ? (int64_t)p : (int64_t)(int32_t)p;
	switch (op) {
	case NVL_HW_SEM_RED_IMIN:
		return is_signed ? (uint64_t)(sv < sp ? sv : sp) & mask
				 : (v < p ? v : p);
	case NVL_HW_SEM_RED_IMAX:
		return is_signed ? (uint64_t)(sv > sp ? sv : sp) & mask
				 : (v > p ? v : p);
	case NVL_HW_SEM_RED_IXOR:
		return v ^ p;
	case NVL_HW_SEM_RED_IAND:
		return v & p;
	case NVL_HW_SEM_RED_IOR:
		return v | p;
	case NVL_HW_SEM_RED_IADD:
		return (v + p) & mask;
	case NVL_HW_SEM_RED_INC:
		return v >= p ? 0 : v + 1;
	default: /* DEC */
		return (v == 0 || v > p) ? p : v - 1;
	}
}

int nvl_model_sem_reduce(struct nvl_model_chan *ch, unsigned engine_id,
			 uint64_t va, unsigned op, bool is_signed, bool wide,
			 uint64_t payload)
{
	struct nvl_model_fifo *f = ch->m->fifo;
	struct nvl_model_xlate x;
	size_t sz = wide ? 8 : 4;
	uint64_t v = 0;
	int ret = -EFAULT;
	unsigned t = nvl_model_mmu_enter(ch->m->mmu, ch->chid);

	if (sem_xlate(ch, va, sz, NVL_HW_FAULT_ACCESS_ATOMIC, &x)) {
		nvl_flock_lock(&f->atomic_lock);
		ret = nvl_model_phys_access(ch->m, x.aperture, x.pa, &v, sz,
					    false);
		if (!ret) {
			v = reduce(op, is_signed, wide, v, payload);
			ret = nvl_model_phys_access(ch->m, x.aperture, x.pa, &v,
						    sz, true);
		}
		nvl_flock_unlock(&f->atomic_lock);
	}
	nvl_model_mmu_exit(ch->m->mmu, t);
	if (!ret)
		return 0;
	if (x.state == NVL_MODEL_XLATE_FAULT &&
	    x.fault_type == NVL_HW_FAULT_ATOMIC_VIOLATION) {
		/* readable and writable, but not atomically: report it */
		struct nvl_model_fault flt = {
			.va = va,
			.type = NVL_HW_FAULT_ATOMIC_VIOLATION,
			.access = NVL_HW_FAULT_ACCESS_ATOMIC,
			.engine_id = engine_id,
			.chid = ch->chid,
		};

		nvl_model_fault_report(ch->m, &flt);
		return -EFAULT;
	}
	/* sparse, faulting or page-crossing: the MMU's rules, unlocked */
	ret = nvl_model_vm_access(ch->m, &ch->vm, va, &v, sz, false, engine_id,
				  ch->chid);
	if (ret)
		return ret;
	v = reduce(op, is_signed, wide, v, payload);
	return nvl_model_vm_access(ch->m, &ch->vm, va, &v, sz, true, engine_id,
				   ch->chid);
}

static bool acquire_holds(unsigned op, bool wide, uint64_t v, uint64_t p)
{
	if (!wide) {
		v &= UINT32_MAX;
		p &= UINT32_MAX;
	}
	switch (op) {
	case NVL_HW_SEM_OP_ACQUIRE:
		return v == p;
	case NVL_HW_SEM_OP_ACQ_STRICT_GEQ:
		return v >= p;
	case NVL_HW_SEM_OP_ACQ_CIRC_GEQ:
		return wide ? (int64_t)(v - p) >= 0
			    : (int32_t)(uint32_t)(v - p) >= 0;
	case NVL_HW_SEM_OP_ACQ_AND:
		return (v & p) != 0;
	default: /* ACQ_NOR */
		return (~(v | p) & (wide ? UINT64_MAX : UINT32_MAX)) != 0;
	}
}

/* out of line, as mem_op(): the register methods of
 * nvl_model_host_method() (four per fence idiom) stay a bare switch */
static NVL_HOT __attribute__((noinline)) enum nvl_model_mthd_res
sem_execute(struct nvl_model_chan *ch, uint32_t data)
{
	struct nvl_model *m = ch->m;
	unsigned op = data & NVL_HW_SEM_OP_MASK;
	bool wide = data & NVL_HW_SEM_PAYLOAD_64BIT;
	bool ts = data & NVL_HW_SEM_RELEASE_TIMESTAMP;
	/* SEM_ADDR_HI OFFSET: 7:0 up to C56F, 24:0 in C86F */
	uint32_t hi_mask =
		m->profile->host_class >= 0xc86f ? 0x1ffffffu : 0xffu;
	uint64_t va = (uint64_t)(ch->sem_addr_hi & hi_mask) << 32 |
		      (ch->sem_addr_lo & ~3u);
	uint64_t payload =
		(uint64_t)ch->sem_payload_hi << 32 | ch->sem_payload_lo;
	uint64_t v = 0;
	unsigned red;
	bool is_signed;

	if (!wide)
		payload &= UINT32_MAX;
	/* the fence idiom's release first */
	if (op == NVL_HW_SEM_OP_RELEASE) {
		if ((wide && (va & 7)) || (ts && (va & 15)))
			goto bad;
		/* with a timestamp a 32-bit release writes bytes 4..7 as 0 */
		if (ts ? sem_release_ts(ch, host_engine(ch), va,
					nvl_model_time_ns(m), payload)
		       : nvl_model_sem_access(ch, host_engine(ch), va, &payload,
					      wide ? 8 : 4, true))
			goto fault;
		nvl_model_fifo_sem_released(m);
		return NVL_MODEL_MTHD_OK;
	}
	if (op > NVL_HW_SEM_OP_REDUCTION || (wide && (va & 7)) ||
	    (ts && op == NVL_HW_SEM_OP_REDUCTION && (va & 15)))
		goto bad;
	red = data >> NVL_HW_SEM_REDUCTION_SHIFT & NVL_HW_SEM_REDUCTION_MASK;
	is_signed = !(data & NVL_HW_SEM_FORMAT_UNSIGNED);
	if (op == NVL_HW_SEM_OP_REDUCTION) {
		/* what the unit cannot do: signed 64-bit IADD, and INC/DEC
		 * other than 32-bit unsigned */
		if (red > NVL_HW_SEM_RED_DEC ||
		    (wide && is_signed && red == NVL_HW_SEM_RED_IADD) ||
		    ((red == NVL_HW_SEM_RED_INC || red == NVL_HW_SEM_RED_DEC) &&
		     (wide || is_signed)))
			goto bad;
		if (nvl_model_sem_reduce(ch, host_engine(ch), va, red,
					 is_signed, wide, payload))
			goto fault;
		if (ts) {
			uint64_t t = nvl_model_time_ns(m);

			if (nvl_model_sem_access(ch, host_engine(ch), va + 8,
						 &t, 8, true))
				goto fault;
		}
		nvl_model_fifo_sem_released(m);
		return NVL_MODEL_MTHD_OK;
	}
	/* acquire */
	if (nvl_model_sem_access(ch, host_engine(ch), va, &v, wide ? 8 : 4,
				 false))
		goto fault;
	if (acquire_holds(op, wide, v, payload)) {
		ch->acquiring = false;
		return NVL_MODEL_MTHD_OK;
	}
	if (!ch->acquiring) {
		ch->acquiring = true;
		ch->acquire_deadline =
			ch->acquire_timeout_ns
				? nvl_deadline_after(
					  (int64_t)ch->acquire_timeout_ns)
				: NVL_TIMEOUT_INFINITE;
	} else if (nvl_time_ns() >= ch->acquire_deadline) {
		ch->acquiring = false;
		nvl_model_chan_error(ch, NVL_HW_CHERR_ACQUIRE,
				     NVL_HW_SEM_EXECUTE, data);
		return NVL_MODEL_MTHD_STOP;
	}
	return NVL_MODEL_MTHD_BLOCK;
bad:
	nvl_model_chan_error(ch, NVL_HW_CHERR_SEMAPHORE, NVL_HW_SEM_EXECUTE,
			     data);
	return NVL_MODEL_MTHD_STOP;
fault:
	nvl_model_chan_fault(ch, false, NVL_HW_SEM_EXECUTE);
	return NVL_MODEL_MTHD_STOP;
}

/*
 * TLB_INVALIDATE with MEM_OP_A SYSMEMBAR and a MEM_OP_C ACK_TYPE
 * (GLOBALLY; INTRANODE too, the model being one GPU) drains as the
 * MMU_INVALIDATE register does with SYS_MEMBAR and ACK (hub.c): the
 * channel does not go past the method until every engine access in
 * flight at the flush is done (the method is retried, as a semaphore
 * acquire is, and the TLBs are flushed only the first time). clc56f.h
 * says of ACK_TYPE "only relevant if GPC ENABLE": with
 * TLB_INVALIDATE_GPC DISABLE no ACK is asked for, and the invalidate is
 * a plain flush.
 */
static bool mem_op_drains(const struct nvl_model_chan *ch)
{
	enum nvl_hw_mem_op_ack ack = ch->mem_op_c >> NVL_HW_MEM_OP_C_ACK_SHIFT &
				     NVL_HW_MEM_OP_C_ACK_MASK;

	return (ch->mem_op_a & NVL_HW_MEM_OP_A_SYSMEMBAR) &&
	       !(ch->mem_op_c & NVL_HW_MEM_OP_C_GPC_DISABLE) &&
	       ack != NVL_HW_MEM_OP_ACK_NONE;
}

static __attribute__((noinline)) enum nvl_model_mthd_res
mem_op(struct nvl_model_chan *ch, uint32_t data)
{
	enum nvl_hw_mem_op op =
		data >> NVL_HW_MEM_OP_D_OP_SHIFT & NVL_HW_MEM_OP_D_OP_MASK;
	struct nvl_model_vmctx ctx = ch->vm;
	uint64_t va, bytes;
	unsigned size, replay, level;
	bool done;

	if (ch->mem_op_draining) {
		if (!nvl_model_mmu_drained(ch->m->mmu))
			return NVL_MODEL_MTHD_BLOCK;
		ch->mem_op_draining = false;
		return NVL_MODEL_MTHD_OK;
	}
	switch (op) {
	case NVL_HW_MEM_OP_MMU_TLB_INVALIDATE:
	case NVL_HW_MEM_OP_MMU_TLB_INVALIDATE_TARGETED:
		/* dev_pbdma MEM_OP_D: TLB invalidates are privileged (RAMFC
		 * CONFIG AUTH_LEVEL); from another channel they raise
		 * NV_PPBDMA_INTR_0_METHOD. REPLAY 4:2 above CANCEL_VA_GLOBAL
		 * has no value in clc56f.h: refused as well */
		replay = ch->mem_op_c >> NVL_HW_MEM_OP_C_REPLAY_SHIFT &
			 NVL_HW_MEM_OP_C_REPLAY_MASK;
		if (!ch->priv ||
		    replay > NVL_HW_MMU_INVALIDATE_REPLAY_CANCEL_VA_GLOBAL)
			break;
		/* with CANCEL_TARGETED and CANCEL_VA_GLOBAL MEM_OP_A 5:0 is
		 * the uTLB's or engine's id, not a size (one 4 KiB page),
		 * and with CANCEL_VA_GLOBAL PAGE_TABLE_LEVEL is an access
		 * type (every level) */
		size = ch->mem_op_a & NVL_HW_MEM_OP_A_INVALIDATION_SIZE_MASK;
		level = ch->mem_op_c >> NVL_HW_MEM_OP_C_PAGE_TABLE_LEVEL_SHIFT &
			NVL_HW_MEM_OP_C_PAGE_TABLE_LEVEL_MASK;
		if (replay == NVL_HW_MMU_INVALIDATE_REPLAY_CANCEL_TARGETED ||
		    replay == NVL_HW_MMU_INVALIDATE_REPLAY_CANCEL_VA_GLOBAL)
			size = 0;
		if (replay == NVL_HW_MMU_INVALIDATE_REPLAY_CANCEL_VA_GLOBAL)
			level = 0;
		/* REPLAY (like ACK_TYPE and SYSMEMBAR) is the GPC TLBs':
		 * ignored with TLB_INVALIDATE_GPC DISABLE */
		if (ch->mem_op_c & NVL_HW_MEM_OP_C_GPC_DISABLE)
			replay = NVL_HW_MMU_INVALIDATE_REPLAY_NONE;
		if (!(ch->mem_op_c & NVL_HW_MEM_OP_C_PDB_ALL)) {
			unsigned ap =
				ch->mem_op_c >>
					NVL_HW_MEM_OP_C_PDB_APERTURE_SHIFT &
				3;

			ctx.pdb = (uint64_t)(data & NVL_HW_MEM_OP_D_PDB_HI_MASK)
					  << 32 |
				  (ch->mem_op_c & NVL_HW_MEM_OP_C_PDB_LO_MASK);
			ctx.aperture = ap == 0	 ? NVL_HW_APERTURE_VIDMEM
				       : ap == 3 ? NVL_HW_APERTURE_SYS_NONCOH
						 : NVL_HW_APERTURE_SYS_COH;
		}
		va = (uint64_t)ch->mem_op_b << 32 |
		     (ch->mem_op_a & NVL_HW_MEM_OP_A_VA_MASK);
		/* targeted: 4 KiB << INVALIDATION_SIZE, aligned down */
		bytes = size >= 52 ? 0 : 4096ull << size;
		if (bytes)
			va &= ~(bytes - 1);
		else
			va = 0; /* covers the whole VA space */
		done = nvl_model_mmu_invalidate_level(
			ch->m->mmu,
			(ch->mem_op_c & NVL_HW_MEM_OP_C_PDB_ALL) ? NULL : &ctx,
			op == NVL_HW_MEM_OP_MMU_TLB_INVALIDATE ? 0 : va,
			op == NVL_HW_MEM_OP_MMU_TLB_INVALIDATE ? 0 : bytes,
			level, mem_op_drains(ch));
		/* parked replayable accesses go again (or are cancelled)
		 * once the TLBs are clean, as with the register's REPLAY */
		nvl_model_replay_request(
			ch->m, replay << NVL_HW_MMU_INVALIDATE_REPLAY_SHIFT);
		if (!done) {
			ch->mem_op_draining = true;
			return NVL_MODEL_MTHD_BLOCK;
		}
		return NVL_MODEL_MTHD_OK;
	case NVL_HW_MEM_OP_ACCESS_COUNTER_CLR:
		/* privileged as the invalidates (dev_pbdma); the model
		 * counts no accesses, so there is nothing to clear */
		if (!ch->priv)
			break;
		return NVL_MODEL_MTHD_OK;
	case NVL_HW_MEM_OP_MEMBAR:
	case NVL_HW_MEM_OP_L2_PEERMEM_INVALIDATE:
	case NVL_HW_MEM_OP_L2_SYSMEM_INVALIDATE:
	case NVL_HW_MEM_OP_L2_CLEAN_COMPTAGS:
	case NVL_HW_MEM_OP_L2_FLUSH_DIRTY:
	case NVL_HW_MEM_OP_L2_WAIT_FOR_SYS_PENDING_READS:
		return NVL_MODEL_MTHD_OK; /* no caches to flush in the model */
	default:
		break;
	}
	nvl_model_chan_error(ch, NVL_HW_CHERR_METHOD, NVL_HW_MEM_OP_D, data);
	return NVL_MODEL_MTHD_STOP;
}

static __attribute__((noinline)) enum nvl_model_mthd_res
bad_method(struct nvl_model_chan *ch, uint32_t mthd, uint32_t data)
{
	nvl_model_chan_error(ch, NVL_HW_CHERR_METHOD, mthd, data);
	return NVL_MODEL_MTHD_STOP;
}

static __attribute__((noinline)) enum nvl_model_mthd_res
set_reference(struct nvl_model_chan *ch, uint32_t data)
{
	/* USERD Reference (0x48); unreachable USERD is ignored */
	(void)nvl_model_phys_access(ch->m, ch->userd_ap, ch->userd + 0x48,
				    &data, 4, true);
	return NVL_MODEL_MTHD_OK;
}

static __attribute__((noinline)) enum nvl_model_mthd_res
clear_faulted(struct nvl_model_chan *ch, uint32_t data)
{
	struct nvl_model *m = ch->m;
	/* HANDLE 30:0 = CHID 15:0 | RUNLIST_ID 22:16 */
	unsigned chid = data & NVL_HW_CLEAR_FAULTED_CHID_MASK;
	unsigned rl = data >> NVL_HW_CLEAR_FAULTED_RUNLIST_SHIFT &
		      NVL_HW_CLEAR_FAULTED_RUNLIST_MASK;
	uint32_t bit = (data & NVL_HW_CLEAR_FAULTED_ENG)
			       ? NVL_HW_CHRAM_CTRL_ENG_FAULTED
			       : NVL_HW_CHRAM_CTRL_PBDMA_FAULTED;
	bool ok;

	/* the HANDLE is RM's token, which only the kernel's fault service
	 * holds and pushes on its own (privileged) channel: from a user
	 * channel, which could name any channel, the method is refused */
	if (!ch->priv || chid >= m->profile->num_channels ||
	    nvl_model_fifo_rd(m, NVL_HW_CHRAM_RUNLIST(chid), &ok) != rl)
		return bad_method(ch, NVL_HW_CLEAR_FAULTED, data);
	nvl_model_fifo_wr(m, NVL_HW_CHRAM_CTRL(chid), bit);
	return NVL_MODEL_MTHD_OK;
}

/*
 * The register methods are stores into the channel; everything with
 * more to do (semaphores, MEM_OP, CLEAR_FAULTED, errors) is out of line,
 * so that this switch needs no stack frame: the fence idiom alone sends
 * six methods through it per job.
 */
NVL_HOT enum nvl_model_mthd_res
nvl_model_host_method(struct nvl_model_chan *ch, uint32_t mthd, uint32_t data)
{
	switch (mthd) {
	case NVL_HW_NOP:
	case NVL_HW_WFI:
	case NVL_HW_FB_FLUSH:
		return NVL_MODEL_MTHD_OK;
	case NVL_HW_YIELD:
		/* OP 1:0: NOP 0, TSG 3 (clc56f.h); an unknown OP is a
		 * METHOD error (dev_pbdma NV_PPBDMA_INTR_0_METHOD) */
		if ((data & NVL_HW_YIELD_OP_MASK) == 1 ||
		    (data & NVL_HW_YIELD_OP_MASK) == 2)
			break;
		return NVL_MODEL_MTHD_OK;
	case NVL_HW_NON_STALL_INTERRUPT:
		nvl_model_nonstall_defer(
			ch, NVL_HW_INTR_NONSTALL_ENGINE(ch->runlist));
		return NVL_MODEL_MTHD_OK;
	case NVL_HW_SEM_ADDR_LO:
		ch->sem_addr_lo = data;
		return NVL_MODEL_MTHD_OK;
	case NVL_HW_SEM_ADDR_HI:
		ch->sem_addr_hi = data;
		return NVL_MODEL_MTHD_OK;
	case NVL_HW_SEM_PAYLOAD_LO:
		ch->sem_payload_lo = data;
		return NVL_MODEL_MTHD_OK;
	case NVL_HW_SEM_PAYLOAD_HI:
		ch->sem_payload_hi = data;
		return NVL_MODEL_MTHD_OK;
	case NVL_HW_SEM_EXECUTE:
		return sem_execute(ch, data);
	case NVL_HW_MEM_OP_A:
		ch->mem_op_a = data;
		return NVL_MODEL_MTHD_OK;
	case NVL_HW_MEM_OP_B:
		ch->mem_op_b = data;
		return NVL_MODEL_MTHD_OK;
	case NVL_HW_MEM_OP_C:
		ch->mem_op_c = data;
		return NVL_MODEL_MTHD_OK;
	case NVL_HW_MEM_OP_D:
		return mem_op(ch, data);
	case NVL_HW_SET_REFERENCE:
		return set_reference(ch, data);
	case NVL_HW_CLEAR_FAULTED:
		return clear_faulted(ch, data);
	default:
		break;
	}
	return bad_method(ch, mthd, data);
}

// SPDX-License-Identifier: MIT
/*
 * DOC: copy engine class
 *
 * The dma-copy class (hw/ce.h) as one channel's copy engine state plus
 * LAUNCH_DMA. Supported: pitch layouts on both sides, one or many lines
 * (LINE_LENGTH_IN bytes each, PITCH_IN/PITCH_OUT strides), virtual
 * addresses through the MMU (engine CE(runlist)) or physical ones for
 * privileged channels (SRC/DST_PHYS_MODE: local FB, coherent or
 * non-coherent system memory), the component remap (constants, swizzles,
 * NO_WRITE; memset is a remap of CONST_A/CONST_B), a one- or four-word
 * semaphore release or reduction after the copy (SEMAPHORE_REDUCTION_SIGN
 * 0 = SIGNED; 64-bit payloads with SEMAPHORE_PAYLOAD_SIZE and
 * SET_SEMAPHORE_PAYLOAD_UPPER on C7B5/C8B5, which the older classes lack:
 * there the method is a METHOD error and the bit a CE_LAUNCH error), and a
 * non-stall interrupt.
 *
 * Virtual-to-virtual copies translate through the TLB once per page and
 * copy whole physically contiguous VRAM runs (up to 64 MiB) at once, so a
 * copy between buffers mapped with 2 MiB pages streams at memcpy speed;
 * everything else (system memory, sparse pages, faults) goes through
 * nvl_model_vm_copy(), and fills through nvl_model_vm_fill().
 * Contiguous multi-line copies (pitch == line length) are one run.
 * Physical-to-physical copies and physical constant fills go straight from
 * memory to memory (nvl_model_phys_copy(), nvl_model_phys_fill()), one
 * memcpy per run contiguous in VRAM or in one DMA mapping, with the same
 * IOMMU translation and errors as every physical access; a copy between a
 * physical and a virtual side goes through the bounce buffer.
 *
 * Errors: blocklinear layouts, physical modes from an unprivileged channel,
 * peer memory and physical accesses outside memory are CE_LAUNCH channel
 * errors; an MMU fault stops the channel (ENG_FAULTED). A long copy checks
 * every 16 MiB of streamed VRAM, every page it copies the slow way and
 * every 1 MiB through the bounce buffer or between physical addresses
 * whether its engine is being reset or its channel disabled, and abandons
 * the rest if so.
 */
#include <errno.h>
#include <string.h>

#include "base/time.h"
#include "hw/ce.h"
#include "hw/fault.h"
#include "hw/regs.h"
#include "model/fifo.h"
#include "model/pmu.h"

#define CE_RUN (16ull << 20) /* bytes between abort checks */
#define CE_BOUNCE 4096 /* bytes of the remap/physical bounce */
#define CE_PHYS_RUN (1ull << 20) /* physical bytes between abort checks */

struct ce_side {
	bool phys;
	enum nvl_hw_aperture ap;
	uint64_t addr;
	uint32_t pitch;
};

static unsigned ce_engine(struct nvl_model_chan *ch)
{
	return ch->m->eng->ce0 + ch->runlist;
}

static bool ce_aborted(struct nvl_model_chan *ch)
{
	return atomic_load_explicit(&ch->stop_req, memory_order_relaxed) ||
	       atomic_load_explicit(&ch->m->fifo->rl[ch->runlist].reset_flag,
				    memory_order_relaxed);
}

/* -EFAULT: MMU fault reported; -EIO: bad physical access */
static int side_access(struct nvl_model_chan *ch, const struct ce_side *s,
		       uint64_t addr, void *buf, size_t len, bool write)
{
	if (s->phys)
		return nvl_model_phys_access(ch->m, s->ap, addr, buf, len,
					     write)
			       ? -EIO
			       : 0;
	return nvl_model_vm_access(ch->m, &ch->vm, addr, buf, len, write,
				   ce_engine(ch), ch->chid);
}

/*
 * The longest physically contiguous VRAM run at @va, up to @len bytes,
 * that @access may touch without a fault (through the TLB, as every engine
 * access). 0 when the first page is not plain mapped VRAM.
 */
static uint64_t vid_run(struct nvl_model_chan *ch, uint64_t va, uint64_t len,
			unsigned access, uint8_t **ptr)
{
	struct nvl_model_xlate x;
	uint64_t n = 0, pa0 = 0;

	while (n < len) {
		uint64_t span;

		if (nvl_model_mmu_translate(ch->m, &ch->vm, va + n, access,
					    &x) ||
		    x.state != NVL_MODEL_XLATE_MAPPED ||
		    x.aperture != NVL_HW_APERTURE_VIDMEM)
			break;
		if (!n)
			pa0 = x.pa;
		else if (x.pa != pa0 + n)
			break;
		span = (1ull << x.page_shift) -
		       ((va + n) & ((1ull << x.page_shift) - 1));
		n += span;
	}
	n = NVL_MIN(n, len);
	*ptr = n ? nvl_model_phys_ptr(ch->m, pa0, (size_t)n) : NULL;
	return *ptr ? n : 0;
}

/*
 * Virtual to virtual: long physically contiguous VRAM runs are copied in
 * one go (large copies stream, as a real copy engine does); anything else
 * (system memory, sparse pages, faults) goes through nvl_model_vm_copy(),
 * which applies every MMU rule and reports faults.
 */
static int copy_virtual(struct nvl_model_chan *ch, uint64_t sa, uint64_t da,
			uint64_t n)
{
	while (n) {
		/* translations and the copy through them: one access, which
		 * a draining invalidate waits for */
		unsigned t = nvl_model_mmu_enter(ch->m->mmu, ch->chid);
		uint8_t *s, *d;
		uint64_t k = vid_run(ch, sa, n, NVL_HW_FAULT_ACCESS_READ, &s);
		int ret;

		if (k)
			k = vid_run(ch, da, k, NVL_HW_FAULT_ACCESS_WRITE, &d);
		if (!k) {
			nvl_model_mmu_exit(ch->m->mmu, t);
			/* one page the slow way, then try again; slow pages
			 * check for a reset or disable each */
			if (ce_aborted(ch))
				return -ECANCELED;
			k = NVL_MIN(n, 4096 - (sa & 4095));
			k = NVL_MIN(k, 4096 - (da & 4095));
			ret = nvl_model_vm_copy(ch->m, &ch->vm, da, &ch->vm, sa,
						(size_t)k, ce_engine(ch),
						ch->chid);
			if (ret)
				return ret;
		} else {
			if (s + k <= d || d + k <= s)
				nvl_model_mem_copy(d, s, (size_t)k);
			else
				memmove(d, s, (size_t)k);
			nvl_model_mmu_exit(ch->m->mmu, t);
		}
		sa += k;
		da += k;
		n -= k;
	}
	return 0;
}

/*
 * Physical to physical: straight from memory to memory, one copy per run
 * contiguous on both sides (VRAM, one DMA mapping), checking for a reset
 * or disable every CE_PHYS_RUN bytes. An address outside VRAM or every
 * mapping is -EIO (a CE_LAUNCH error), the bytes before it copied.
 */
static int copy_phys(struct nvl_model_chan *ch, const struct ce_side *src,
		     uint64_t sa, const struct ce_side *dst, uint64_t da,
		     uint64_t len)
{
	for (uint64_t o = 0; o < len; o += CE_PHYS_RUN) {
		uint64_t k = NVL_MIN(len - o, CE_PHYS_RUN);

		if (o && ce_aborted(ch))
			return -ECANCELED;
		if (nvl_model_phys_copy(ch->m, dst->ap, da + o, src->ap, sa + o,
					k))
			return -EIO;
	}
	return 0;
}

static int copy_run(struct nvl_model_chan *ch, const struct ce_side *src,
		    uint64_t sa, const struct ce_side *dst, uint64_t da,
		    uint64_t len)
{
	uint8_t buf[CE_BOUNCE];

	while (len) {
		uint64_t n = NVL_MIN(len, CE_RUN);
		int ret;

		if (ce_aborted(ch))
			return -ECANCELED;
		if (!src->phys && !dst->phys) {
			ret = copy_virtual(ch, sa, da, n);
			if (ret)
				return ret;
		} else if (src->phys && dst->phys) {
			ret = copy_phys(ch, src, sa, dst, da, n);
			if (ret)
				return ret;
		} else {
			for (uint64_t o = 0; o < n; o += CE_BOUNCE) {
				size_t k = (size_t)NVL_MIN(n - o, CE_BOUNCE);

				if (!(o & ((1u << 20) - 1)) && o &&
				    ce_aborted(ch))
					return -ECANCELED;

				ret = side_access(ch, src, sa + o, buf, k,
						  false);
				if (!ret)
					ret = side_access(ch, dst, da + o, buf,
							  k, true);
				if (ret)
					return ret;
			}
		}
		sa += n;
		da += n;
		len -= n;
	}
	return 0;
}

/* element-wise remap of @elems elements of one line */
static int remap_line(struct nvl_model_chan *ch, const struct ce_side *src,
		      uint64_t sa, const struct ce_side *dst, uint64_t da,
		      uint64_t elems)
{
	const struct nvl_model_ce_state *ce = &ch->ce;
	uint32_t rc = ce->remap_components;
	unsigned cs = (rc >> NVL_HW_CE_REMAP_COMP_SIZE_SHIFT & 3) + 1;
	unsigned ns = (rc >> NVL_HW_CE_REMAP_NUM_SRC_SHIFT & 3) + 1;
	unsigned nd = (rc >> NVL_HW_CE_REMAP_NUM_DST_SHIFT & 3) + 1;
	unsigned es = cs * ns, ed = cs * nd, sel[4];
	bool need_src = false, need_dst = false;
	uint8_t sbuf[CE_BOUNCE], dbuf[CE_BOUNCE];
	uint64_t per = CE_BOUNCE / 16; /* elements per chunk */
	int ret;

	for (unsigned c = 0; c < nd; c++) {
		sel[c] = rc >> NVL_HW_CE_REMAP_DST_SHIFT(c) & 7;
		if (sel[c] <= NVL_HW_CE_REMAP_SRC_W) {
			if (sel[c] >= ns)
				return -EINVAL;
			need_src = true;
		} else if (sel[c] == NVL_HW_CE_REMAP_NO_WRITE) {
			need_dst = true;
		} else if (sel[c] > NVL_HW_CE_REMAP_NO_WRITE) {
			return -EINVAL;
		}
	}
	/* memset fast path: one 4-byte constant component */
	if (nd == 1 && cs == 4 && !dst->phys &&
	    (sel[0] == NVL_HW_CE_REMAP_CONST_A ||
	     sel[0] == NVL_HW_CE_REMAP_CONST_B)) {
		uint32_t k = sel[0] == NVL_HW_CE_REMAP_CONST_A ? ce->remap_a
							       : ce->remap_b;

		while (elems) {
			uint64_t n = NVL_MIN(elems, CE_RUN / 4);

			if (ce_aborted(ch))
				return -ECANCELED;
			ret = nvl_model_vm_fill(ch->m, &ch->vm, da, k,
						(size_t)n * 4, ce_engine(ch),
						ch->chid);
			if (ret)
				return ret;
			da += n * 4;
			elems -= n;
		}
		return 0;
	}
	/* the same for a physical destination, straight into memory */
	if (nd == 1 && cs == 4 && dst->phys &&
	    (sel[0] == NVL_HW_CE_REMAP_CONST_A ||
	     sel[0] == NVL_HW_CE_REMAP_CONST_B)) {
		uint32_t k = sel[0] == NVL_HW_CE_REMAP_CONST_A ? ce->remap_a
							       : ce->remap_b;

		while (elems) {
			uint64_t n = NVL_MIN(elems, CE_PHYS_RUN / 4);

			if (ce_aborted(ch))
				return -ECANCELED;
			if (nvl_model_phys_fill(ch->m, dst->ap, da, k, n * 4))
				return -EIO;
			da += n * 4;
			elems -= n;
		}
		return 0;
	}
	while (elems) {
		uint64_t n = NVL_MIN(elems, per);

		if (ce_aborted(ch))
			return -ECANCELED;
		if (need_src) {
			ret = side_access(ch, src, sa, sbuf, (size_t)(n * es),
					  false);
			if (ret)
				return ret;
		}
		if (need_dst) {
			ret = side_access(ch, dst, da, dbuf, (size_t)(n * ed),
					  false);
			if (ret)
				return ret;
		}
		for (uint64_t e = 0; e < n; e++) {
			for (unsigned c = 0; c < nd; c++) {
				uint8_t *d = dbuf + e * ed + c * cs;

				if (sel[c] <= NVL_HW_CE_REMAP_SRC_W)
					memcpy(d, sbuf + e * es + sel[c] * cs,
					       cs);
				else if (sel[c] == NVL_HW_CE_REMAP_CONST_A)
					memcpy(d, &ce->remap_a, cs);
				else if (sel[c] == NVL_HW_CE_REMAP_CONST_B)
					memcpy(d, &ce->remap_b, cs);
			}
		}
		ret = side_access(ch, dst, da, dbuf, (size_t)(n * ed), true);
		if (ret)
			return ret;
		sa += n * es;
		da += n * ed;
		elems -= n;
	}
	return 0;
}

static bool phys_side(struct nvl_model_chan *ch, uint32_t mode,
		      struct ce_side *s)
{
	s->phys = true;
	switch (mode & 3) {
	case NVL_HW_CE_PHYS_LOCAL_FB:
		s->ap = NVL_HW_APERTURE_VIDMEM;
		return true;
	case NVL_HW_CE_PHYS_COHERENT_SYSMEM:
		s->ap = NVL_HW_APERTURE_SYS_COH;
		return true;
	case NVL_HW_CE_PHYS_NONCOHERENT_SYSMEM:
		s->ap = NVL_HW_APERTURE_SYS_NONCOH;
		return true;
	default: /* peer memory: no peers in the model */
		return false;
	}
}

static int ce_transfer(struct nvl_model_chan *ch, uint32_t launch)
{
	struct nvl_model_ce_state *ce = &ch->ce;
	struct ce_side src = {0}, dst = {0};
	bool remap = launch & NVL_HW_CE_LAUNCH_REMAP;
	uint64_t lines = 1, len = ce->line_length;
	int ret;

	if (!(launch & NVL_HW_CE_LAUNCH_SRC_PITCH) ||
	    !(launch & NVL_HW_CE_LAUNCH_DST_PITCH))
		return -EINVAL; /* blocklinear is not modelled */
	if ((launch &
	     (NVL_HW_CE_LAUNCH_SRC_PHYS | NVL_HW_CE_LAUNCH_DST_PHYS)) &&
	    !ch->priv)
		return -EINVAL;
	if ((launch & NVL_HW_CE_LAUNCH_SRC_PHYS) &&
	    !phys_side(ch, ce->src_phys, &src))
		return -EINVAL;
	if ((launch & NVL_HW_CE_LAUNCH_DST_PHYS) &&
	    !phys_side(ch, ce->dst_phys, &dst))
		return -EINVAL;
	src.addr = (uint64_t)ce->in_upper << 32 | ce->in_lower;
	dst.addr = (uint64_t)ce->out_upper << 32 | ce->out_lower;
	src.pitch = ce->pitch_in;
	dst.pitch = ce->pitch_out;
	if (launch & NVL_HW_CE_LAUNCH_MULTI_LINE)
		lines = ce->line_count;
	/* contiguous lines are one run */
	if (!remap && lines > 1 && src.pitch == len && dst.pitch == len) {
		len *= lines;
		lines = 1;
	}
	for (uint64_t l = 0; l < lines; l++) {
		uint64_t sa = src.addr + l * src.pitch;
		uint64_t da = dst.addr + l * dst.pitch;

		/* lines may be empty: check here too, not only per run */
		if (ce_aborted(ch))
			return -ECANCELED;
		if (remap)
			ret = remap_line(ch, &src, sa, &dst, da, len);
		else
			ret = copy_run(ch, &src, sa, &dst, da, len);
		if (ret)
			return ret;
	}
	/* the engine's speed follows the graphics clock (model/pmu.h) */
	nvl_model_pmu_ce_account(ch->m, ch->runlist, len * lines);
	return 0;
}

static int ce_semaphore(struct nvl_model_chan *ch, uint32_t launch)
{
	struct nvl_model_ce_state *ce = &ch->ce;
	unsigned type = launch >> NVL_HW_CE_LAUNCH_SEM_SHIFT & 3;
	uint64_t va = (uint64_t)(ce->sem_a &
				 nvl_hw_ce_upper_mask(ch->m->profile->ce_class))
			      << 32 |
		      ce->sem_b;
	bool wide = launch & NVL_HW_CE_LAUNCH_SEM_PAYLOAD_64;
	uint64_t payload = (wide ? (uint64_t)ce->sem_payload_upper << 32 : 0) |
			   ce->sem_payload;
	size_t sz = wide ? 8 : 4;
	int ret;

	if (wide && !NVL_HW_CE_HAS_PAYLOAD_UPPER(ch->m->profile->ce_class))
		return -EINVAL; /* reserved bit in this class */
	if (type == NVL_HW_CE_SEM_NONE ||
	    type == NVL_HW_CE_SEM_CONDITIONAL_INTR)
		return 0;
	if (launch & NVL_HW_CE_LAUNCH_SEM_REDUCTION_ENABLE) {
		unsigned op =
			launch >> NVL_HW_CE_LAUNCH_SEM_REDUCTION_SHIFT & 0xf;

		if (op > NVL_HW_SEM_RED_DEC || (va & (sz - 1)))
			return -EINVAL;
		/* SEMAPHORE_REDUCTION_SIGN: SIGNED 0, UNSIGNED 1 */
		ret = nvl_model_sem_reduce(
			ch, ce_engine(ch), va, op,
			!(launch & NVL_HW_CE_LAUNCH_SEM_REDUCTION_UNSIGNED),
			wide, payload);
	} else if (type == NVL_HW_CE_SEM_ONE_WORD) {
		if (va & (sz - 1))
			return -EINVAL;
		ret = nvl_model_sem_access(ch, ce_engine(ch), va, &payload, sz,
					   true);
	} else {
		uint64_t t = nvl_model_time_ns(ch->m);

		/* four words: payload (upper word 0 unless 64-bit), then
		 * the timestamp at +8 */
		if (va & 15)
			return -EINVAL;
		ret = nvl_model_sem_access(ch, ce_engine(ch), va + 8, &t, 8,
					   true);
		if (!ret)
			ret = nvl_model_sem_access(ch, ce_engine(ch), va,
						   &payload, 8, true);
	}
	if (!ret)
		nvl_model_fifo_sem_released(ch->m);
	return ret;
}

static enum nvl_model_mthd_res ce_launch(struct nvl_model_chan *ch,
					 uint32_t launch)
{
	unsigned intr = launch >> NVL_HW_CE_LAUNCH_INTR_SHIFT & 3;
	int ret = 0;

	if ((launch & NVL_HW_CE_LAUNCH_TRANSFER_MASK) !=
	    NVL_HW_CE_TRANSFER_NONE)
		ret = ce_transfer(ch, launch);
	if (!ret)
		ret = ce_semaphore(ch, launch);
	if (ret == -ECANCELED)
		return NVL_MODEL_MTHD_STOP; /* reset or disable: caller blames */
	if (ret == -EFAULT) {
		nvl_model_chan_fault(ch, true, NVL_HW_CE_LAUNCH_DMA);
		return NVL_MODEL_MTHD_STOP;
	}
	if (ret) {
		nvl_model_chan_error(ch, NVL_HW_CHERR_CE_LAUNCH,
				     NVL_HW_CE_LAUNCH_DMA, launch);
		return NVL_MODEL_MTHD_STOP;
	}
	/* INTERRUPT_TYPE 6:5: NON_BLOCKING is dev_ce's NONBLOCKPIPE, the
	 * non-stall tree's; BLOCKING is BLOCKPIPE, a stalling interrupt
	 * (dev_ce NV_CE_LCE_INTR_STATUS; the stall tree's CE bit). The
	 * model does not hold the engine until it is cleared */
	if (intr == NVL_HW_CE_INTR_NON_BLOCKING) {
		nvl_model_intr_raise(ch->m, NVL_HW_INTR_TREE_NONSTALL,
				     NVL_HW_INTR_NONSTALL_ENGINE(ch->runlist));
	} else if (intr == NVL_HW_CE_INTR_BLOCKING) {
		atomic_fetch_or(&ch->m->ce_intr_status[ch->runlist],
				NVL_HW_CE_LCE_INTR_BLOCKPIPE);
		nvl_model_intr_raise(ch->m, NVL_HW_INTR_TREE_STALL,
				     NVL_HW_INTR_CE);
	}
	return NVL_MODEL_MTHD_OK;
}

enum nvl_model_mthd_res nvl_model_ce_method(struct nvl_model_chan *ch,
					    uint32_t mthd, uint32_t data)
{
	struct nvl_model_ce_state *ce = &ch->ce;

	switch (mthd) {
	case NVL_HW_CE_SET_SEMAPHORE_A:
	case NVL_HW_CE_OFFSET_IN_UPPER:
	case NVL_HW_CE_OFFSET_OUT_UPPER:
		/* UPPER is 16:0 up to C7B5, 24:0 on C8B5 (hw/ce.h) */
		if (data & ~nvl_hw_ce_upper_mask(ch->m->profile->ce_class)) {
			nvl_model_chan_error(ch, NVL_HW_CHERR_CE_LAUNCH, mthd,
					     data);
			return NVL_MODEL_MTHD_STOP;
		}
		break;
	default:
		break;
	}
	switch (mthd) {
	case NVL_HW_CE_NOP:
		return NVL_MODEL_MTHD_OK;
	case NVL_HW_CE_SET_SEMAPHORE_A:
		ce->sem_a = data;
		break;
	case NVL_HW_CE_SET_SEMAPHORE_B:
		ce->sem_b = data;
		break;
	case NVL_HW_CE_SET_SEMAPHORE_PAYLOAD:
		ce->sem_payload = data;
		break;
	case NVL_HW_CE_SET_SEMAPHORE_PAYLOAD_UPPER:
		/* only C7B5 and C8B5 have it */
		if (!NVL_HW_CE_HAS_PAYLOAD_UPPER(ch->m->profile->ce_class)) {
			nvl_model_chan_error(ch, NVL_HW_CHERR_METHOD, mthd,
					     data);
			return NVL_MODEL_MTHD_STOP;
		}
		ce->sem_payload_upper = data;
		break;
	case NVL_HW_CE_SET_SRC_PHYS_MODE:
		ce->src_phys = data;
		break;
	case NVL_HW_CE_SET_DST_PHYS_MODE:
		ce->dst_phys = data;
		break;
	case NVL_HW_CE_LAUNCH_DMA:
		return ce_launch(ch, data);
	case NVL_HW_CE_OFFSET_IN_UPPER:
		ce->in_upper = data;
		break;
	case NVL_HW_CE_OFFSET_IN_LOWER:
		ce->in_lower = data;
		break;
	case NVL_HW_CE_OFFSET_OUT_UPPER:
		ce->out_upper = data;
		break;
	case NVL_HW_CE_OFFSET_OUT_LOWER:
		ce->out_lower = data;
		break;
	case NVL_HW_CE_PITCH_IN:
		ce->pitch_in = data;
		break;
	case NVL_HW_CE_PITCH_OUT:
		ce->pitch_out = data;
		break;
	case NVL_HW_CE_LINE_LENGTH_IN:
		ce->line_length = data;
		break;
	case NVL_HW_CE_LINE_COUNT:
		ce->line_count = data;
		break;
	case NVL_HW_CE_SET_REMAP_CONST_A:
		ce->remap_a = data;
		break;
	case NVL_HW_CE_SET_REMAP_CONST_B:
		ce->remap_b = data;
		break;
	case NVL_HW_CE_SET_REMAP_COMPONENTS:
		ce->remap_components = data;
		break;
	default:
		nvl_model_chan_error(ch, NVL_HW_CHERR_METHOD, mthd, data);
		return NVL_MODEL_MTHD_STOP;
	}
	return NVL_MODEL_MTHD_OK;
}

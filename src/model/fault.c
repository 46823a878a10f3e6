// SPDX-License-Identifier: MIT
/*
 * DOC: fault buffers
 *
 * Two circular buffers of 32-byte fault entries in GPU-visible memory
 * (VRAM or DMA-mapped system memory), described by the FAULT_BUF_LO/HI/
 * SIZE registers; the model advances PUT, software advances GET. An entry
 * is written with VALID (the last byte) last. A full buffer (PUT + 1 ==
 * GET) or a disabled one drops the fault: OVERFLOW is set in GET and the
 * FAULT_OVERFLOW interrupt raised. Every recorded fault raises FAULT (or
 * FAULT_REPLAY for the replayable buffer).
 */
#include <errno.h>
#include <string.h>

#include "hw/fault.h"
#include "hw/host.h"
#include "hw/regs.h"
#include "model/priv.h"

int nvl_model_fault_init(struct nvl_model *m)
{
	pthread_mutex_init(&m->fault_lock, NULL);
	return 0;
}

void nvl_model_fault_fini(struct nvl_model *m)
{
	pthread_mutex_destroy(&m->fault_lock);
}

static enum nvl_hw_aperture buf_aperture(uint32_t lo)
{
	switch (lo & NVL_HW_FAULT_BUF_LO_APERTURE_MASK) {
	case NVL_HW_FAULT_APERTURE_SYS_COH:
		return NVL_HW_APERTURE_SYS_COH;
	case NVL_HW_FAULT_APERTURE_SYS_NONCOH:
		return NVL_HW_APERTURE_SYS_NONCOH;
	case NVL_HW_FAULT_APERTURE_VID:
		return NVL_HW_APERTURE_VIDMEM;
	default:
		return NVL_HW_APERTURE_COUNT; /* invalid: access fails */
	}
}

static uint32_t inst_aperture_code(enum nvl_hw_aperture ap)
{
	switch (ap) {
	case NVL_HW_APERTURE_SYS_COH:
		return NVL_HW_FAULT_APERTURE_SYS_COH;
	case NVL_HW_APERTURE_SYS_NONCOH:
		return NVL_HW_FAULT_APERTURE_SYS_NONCOH;
	default:
		return NVL_HW_FAULT_APERTURE_VID;
	}
}

void nvl_model_fault_report(struct nvl_model *m,
			    const struct nvl_model_fault *f)
{
	unsigned b = f->replayable ? NVL_HW_FAULT_BUF_REPLAY
				   : NVL_HW_FAULT_BUF_NONREPLAY;
	enum nvl_hw_aperture inst_ap = NVL_HW_APERTURE_VIDMEM;
	uint64_t inst = 0, base, ts = nvl_model_time_ns(m);
	uint32_t e[8], entries, put, get, intr;
	int ret;

	/* before fault_lock: the FIFO lock is never taken inside it */
	(void)nvl_model_fifo_chan_inst(m, f->chid, &inst_ap, &inst);

	e[NVL_HW_FAULT_ENTRY_INST_LO] =
		((uint32_t)inst & 0xfffff000u) |
		inst_aperture_code(inst_ap)
			<< NVL_HW_FAULT_ENTRY_INST_APERTURE_SHIFT;
	e[NVL_HW_FAULT_ENTRY_INST_HI] = (uint32_t)(inst >> 32);
	e[NVL_HW_FAULT_ENTRY_ADDR_LO] = (uint32_t)f->va & 0xfffff000u;
	e[NVL_HW_FAULT_ENTRY_ADDR_HI] = (uint32_t)(f->va >> 32);
	e[NVL_HW_FAULT_ENTRY_TIMESTAMP_LO] = (uint32_t)ts;
	e[NVL_HW_FAULT_ENTRY_TIMESTAMP_HI] = (uint32_t)(ts >> 32);
	e[NVL_HW_FAULT_ENTRY_ENGINE] = f->engine_id & 0x1ffu;
	e[NVL_HW_FAULT_ENTRY_INFO] =
		(f->type & NVL_HW_FAULT_INFO_TYPE_MASK) |
		(f->replayable ? NVL_HW_FAULT_INFO_REPLAYABLE : 0) |
		(f->client & NVL_HW_FAULT_INFO_CLIENT_MASK)
			<< NVL_HW_FAULT_INFO_CLIENT_SHIFT |
		(f->access & NVL_HW_FAULT_INFO_ACCESS_MASK)
			<< NVL_HW_FAULT_INFO_ACCESS_SHIFT |
		(NVL_HW_MMU_ENGINE_IS_CE(f->engine_id) ||
				 NVL_HW_MMU_ENGINE_IS_HOST(f->engine_id)
			 ? NVL_HW_FAULT_INFO_HUB
			 : 0);

	pthread_mutex_lock(&m->fault_lock);
	entries = m->fault_buf[b].size & NVL_HW_FAULT_BUF_PTR_MASK;
	put = m->fault_buf[b].put & NVL_HW_FAULT_BUF_PTR_MASK;
	get = m->fault_buf[b].get & NVL_HW_FAULT_BUF_PTR_MASK;
	if (!(m->fault_buf[b].size & NVL_HW_FAULT_BUF_SIZE_ENABLE) ||
	    entries < 2 || put >= entries || (put + 1) % entries == get) {
		m->fault_buf[b].get |= NVL_HW_FAULT_BUF_GET_OVERFLOW;
		m->faults_dropped++;
		pthread_mutex_unlock(&m->fault_lock);
		nvl_model_intr_raise(m, NVL_HW_INTR_TREE_STALL,
				     NVL_HW_INTR_FAULT_OVERFLOW);
		return;
	}
	base = ((uint64_t)m->fault_buf[b].hi << 32 |
		(m->fault_buf[b].lo & NVL_HW_FAULT_BUF_LO_ADDR_MASK)) +
	       (uint64_t)put * NVL_HW_FAULT_ENTRY_SIZE;
	/* body first, then the dword holding VALID */
	ret = nvl_model_phys_access(m, buf_aperture(m->fault_buf[b].lo), base,
				    e, 28, true);
	if (!ret) {
		e[NVL_HW_FAULT_ENTRY_INFO] |= NVL_HW_FAULT_INFO_VALID;
		ret = nvl_model_phys_access(m,
					    buf_aperture(m->fault_buf[b].lo),
					    base + 28, &e[7], 4, true);
	}
	if (ret) {
		/* the buffer itself is unreachable: report it as corrupted */
		m->fault_buf[b].get |= NVL_HW_FAULT_BUF_GET_CORRUPTED;
		m->faults_dropped++;
	} else {
		m->fault_buf[b].put = (put + 1) % entries;
	}
	pthread_mutex_unlock(&m->fault_lock);
	intr = b == NVL_HW_FAULT_BUF_REPLAY ? NVL_HW_INTR_FAULT_REPLAY
					    : NVL_HW_INTR_FAULT;
	nvl_model_intr_raise(m, NVL_HW_INTR_TREE_STALL, intr);
}

uint32_t nvl_model_fault_rd(struct nvl_model *m, uint32_t addr, bool *ok)
{
	unsigned b = (addr - NVL_HW_FAULT_BUF_LO(0)) / 0x20;
	uint32_t off = (addr - NVL_HW_FAULT_BUF_LO(0)) % 0x20, v;

	*ok = true;
	if (addr < NVL_HW_FAULT_BUF_LO(0) || b >= NVL_HW_FAULT_BUF_COUNT) {
		*ok = false;
		return 0;
	}
	pthread_mutex_lock(&m->fault_lock);
	switch (off) {
	case 0x00:
		v = m->fault_buf[b].lo;
		break;
	case 0x04:
		v = m->fault_buf[b].hi;
		break;
	case 0x08:
		v = m->fault_buf[b].get;
		break;
	case 0x0c:
		v = m->fault_buf[b].put;
		break;
	case 0x10:
		v = m->fault_buf[b].size;
		break;
	default:
		*ok = false;
		v = 0;
	}
	pthread_mutex_unlock(&m->fault_lock);
	return v;
}

void nvl_model_fault_wr(struct nvl_model *m, uint32_t addr, uint32_t val)
{
	unsigned b = (addr - NVL_HW_FAULT_BUF_LO(0)) / 0x20;
	uint32_t off = (addr - NVL_HW_FAULT_BUF_LO(0)) % 0x20;
	uint32_t flags = NVL_HW_FAULT_BUF_GET_OVERFLOW |
			 NVL_HW_FAULT_BUF_GET_CORRUPTED;

	if (addr < NVL_HW_FAULT_BUF_LO(0) || b >= NVL_HW_FAULT_BUF_COUNT)
		return;
	pthread_mutex_lock(&m->fault_lock);
	switch (off) {
	case 0x00:
		m->fault_buf[b].lo = val;
		break;
	case 0x04:
		m->fault_buf[b].hi = val;
		break;
	case 0x08: /* GET pointer; OVERFLOW/CORRUPTED are write-1-to-clear */
		m->fault_buf[b].get = (m->fault_buf[b].get & flags & ~val) |
				      (val & NVL_HW_FAULT_BUF_PTR_MASK);
		break;
	case 0x10: /* (re)configuring resets both pointers */
		m->fault_buf[b].size = val;
		m->fault_buf[b].get = 0;
		m->fault_buf[b].put = 0;
		break;
	default: /* PUT is read-only */
		break;
	}
	pthread_mutex_unlock(&m->fault_lock);
}

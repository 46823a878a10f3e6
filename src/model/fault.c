// SPDX-License-Identifier: MIT
/*
 * DOC: fault buffers
 *
 * Two circular buffers of 32-byte fault entries in GPU-visible memory
 * (VRAM or DMA-mapped system memory), described by the FAULT_BUF_LO/HI/
 * SIZE registers; the model advances PUT, software advances GET. An entry
 * is written with VALID (the last byte) last.
 *
 * Addressing (LO ADDR_MODE): PHYSICAL takes ADDR in PHYS_APERTURE;
 * VIRTUAL (0, what RM and Nouveau program) takes ADDR as a BAR2 virtual
 * address, translated through the page tables of the instance block bound
 * in BAR2_BLOCK (an unbound BAR2 or an unmapped entry marks the buffer
 * GETPTR_CORRUPTED and drops the fault).
 *
 * A full buffer (PUT + 1 == GET) or a disabled one drops the fault and
 * sets OVERFLOW in GET; from then on every fault is dropped until software
 * clears OVERFLOW (write 1): the hardware does not resume by itself. The
 * FAULT_OVERFLOW interrupt is raised only when SIZE OVERFLOW_INTR is set.
 * Writing SIZE with SET_DEFAULT loads VAL with the default size
 * (NVL_MODEL_FAULT_BUF_DEFAULT entries), which software reads back. Every
 * recorded fault raises FAULT (or FAULT_REPLAY for the replayable buffer).
 */
#include <errno.h>
#include <string.h>

#include "hw/fault.h"
#include "hw/host.h"
#include "hw/regs.h"
#include "model/mmu.h"
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

/* the model's default buffer size (SET_DEFAULT), in entries */
#define NVL_MODEL_FAULT_BUF_DEFAULT 1024u

static enum nvl_hw_aperture buf_aperture(uint32_t lo)
{
	switch (lo >> NVL_HW_FAULT_BUF_LO_PHYS_APERTURE_SHIFT &
		NVL_HW_FAULT_BUF_LO_PHYS_APERTURE_MASK) {
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

static enum nvl_hw_aperture ram_aperture(uint32_t target)
{
	switch (target & 3) {
	case NVL_HW_RAM_TARGET_SYS_COH:
		return NVL_HW_APERTURE_SYS_COH;
	case NVL_HW_RAM_TARGET_SYS_NONCOH:
		return NVL_HW_APERTURE_SYS_NONCOH;
	case NVL_HW_RAM_TARGET_VID:
		return NVL_HW_APERTURE_VIDMEM;
	default:
		return NVL_HW_APERTURE_COUNT;
	}
}

/*
 * Where entry bytes at buffer address @addr go: physical as given, or
 * through BAR2 for a virtual buffer. Called under fault_lock; translation
 * reports no fault, so no lock of the fault path is taken again.
 */
static int buf_resolve(struct nvl_model *m, uint32_t lo, uint64_t addr,
		       enum nvl_hw_aperture *ap, uint64_t *pa)
{
	struct nvl_model_vmctx ctx;
	struct nvl_model_xlate x;
	uint32_t bar2 = m->bar2_block, pdb[2];
	uint64_t inst;

	if (lo & NVL_HW_FAULT_BUF_LO_ADDR_MODE_PHYS) {
		*ap = buf_aperture(lo);
		*pa = addr;
		return *ap == NVL_HW_APERTURE_COUNT ? -EFAULT : 0;
	}
	if (!(bar2 & NVL_HW_BAR2_BLOCK_MODE_VIRTUAL))
		return -EFAULT;
	inst = (uint64_t)(bar2 & NVL_HW_BAR2_BLOCK_PTR_MASK) << 12;
	*ap = ram_aperture(bar2 >> NVL_HW_BAR2_BLOCK_TARGET_SHIFT);
	if (*ap == NVL_HW_APERTURE_COUNT ||
	    nvl_model_phys_access(m, *ap, inst + NVL_HW_RAMIN_PDB, pdb,
				  sizeof(pdb), false))
		return -EFAULT;
	ctx.aperture = ram_aperture(pdb[0]);
	if (ctx.aperture == NVL_HW_APERTURE_COUNT)
		return -EFAULT;
	ctx.pdb = (uint64_t)pdb[1] << 32 | (pdb[0] & NVL_HW_RAMIN_PDB_LO_MASK);
	ctx.version = m->profile->mmu_version;
	/* the MMU's own write: a privileged request */
	if (nvl_model_mmu_translate(m, &ctx, addr,
				    NVL_HW_FAULT_ACCESS_WRITE |
					    NVL_MODEL_MMU_ACCESS_PRIV,
				    &x) ||
	    x.state != NVL_MODEL_XLATE_MAPPED)
		return -EFAULT;
	*ap = x.aperture;
	*pa = x.pa;
	return 0;
}

/* write one entry at slot @put of buffer @b; 0 or -EFAULT */
static int buf_write(struct nvl_model *m, unsigned b, uint32_t put,
		     uint32_t e[8])
{
	uint32_t lo = m->fault_buf[b].lo;
	uint64_t addr = ((uint64_t)m->fault_buf[b].hi << 32 |
			 (lo & NVL_HW_FAULT_BUF_LO_ADDR_MASK)) +
			(uint64_t)put * NVL_HW_FAULT_ENTRY_SIZE;
	enum nvl_hw_aperture ap;
	uint64_t pa;

	/* a 32-byte slot never crosses a 4 KiB page */
	if (buf_resolve(m, lo, addr, &ap, &pa) ||
	    nvl_model_phys_access(m, ap, pa, e, 28, true))
		return -EFAULT;
	/* body first, then the dword holding VALID */
	e[NVL_HW_FAULT_ENTRY_INFO] |= NVL_HW_FAULT_INFO_VALID;
	return nvl_model_phys_access(m, ap, pa + 28, &e[7], 4, true);
}

/* the hub client behind @f's engine, unless the reporter named one */
static unsigned fault_client(struct nvl_model *m,
			     const struct nvl_model_fault *f)
{
	unsigned e = f->engine_id;

	if (f->client)
		return f->client;
	if (e >= m->eng->ce0 && e < m->eng->ce0 + 10u)
		return NVL_HW_FAULT_CLIENT_HUB_HSCE(e - m->eng->ce0);
	if (e >= m->eng->host0 && e < m->eng->host0 + 32u)
		return NVL_HW_FAULT_CLIENT_HUB_HOST;
	if (e == m->eng->bar1 || e == m->eng->bar2)
		return NVL_HW_FAULT_CLIENT_HUB_HOST_CPU;
	return 0;
}

void nvl_model_fault_report(struct nvl_model *m,
			    const struct nvl_model_fault *f)
{
	unsigned b = f->replayable ? NVL_HW_FAULT_BUF_REPLAY
				   : NVL_HW_FAULT_BUF_NONREPLAY;
	enum nvl_hw_aperture inst_ap = NVL_HW_APERTURE_VIDMEM;
	uint64_t inst = 0, ts = nvl_model_time_ns(m);
	uint32_t e[8], entries, put, get, intr;
	bool ovf_intr;

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
		(fault_client(m, f) & NVL_HW_FAULT_INFO_CLIENT_MASK)
			<< NVL_HW_FAULT_INFO_CLIENT_SHIFT |
		(f->access & NVL_HW_FAULT_INFO_ACCESS_MASK)
			<< NVL_HW_FAULT_INFO_ACCESS_SHIFT |
		(f->engine_id != m->eng->graphics ? NVL_HW_FAULT_INFO_HUB : 0);

	pthread_mutex_lock(&m->fault_lock);
	entries = m->fault_buf[b].size & NVL_HW_FAULT_BUF_PTR_MASK;
	put = m->fault_buf[b].put & NVL_HW_FAULT_BUF_PTR_MASK;
	get = m->fault_buf[b].get & NVL_HW_FAULT_BUF_PTR_MASK;
	if (m->fault_buf[b].get & NVL_HW_FAULT_BUF_GET_OVERFLOW) {
		/* overflowed: dropped until software clears OVERFLOW */
		m->faults_dropped++;
		pthread_mutex_unlock(&m->fault_lock);
		return;
	}
	if (!(m->fault_buf[b].size & NVL_HW_FAULT_BUF_SIZE_ENABLE) ||
	    entries < 2 || put >= entries || (put + 1) % entries == get) {
		m->fault_buf[b].get |= NVL_HW_FAULT_BUF_GET_OVERFLOW;
		m->faults_dropped++;
		ovf_intr = m->fault_buf[b].size &
			   NVL_HW_FAULT_BUF_SIZE_OVERFLOW_INTR;
		pthread_mutex_unlock(&m->fault_lock);
		if (ovf_intr)
			nvl_model_intr_raise(m, NVL_HW_INTR_TREE_STALL,
					     NVL_HW_INTR_FAULT_OVERFLOW);
		return;
	}
	if (buf_write(m, b, put, e)) {
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
	if (addr == NVL_HW_BAR2_BLOCK) {
		pthread_mutex_lock(&m->fault_lock);
		v = m->bar2_block;
		pthread_mutex_unlock(&m->fault_lock);
		return v;
	}
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
	uint32_t flags =
		NVL_HW_FAULT_BUF_GET_OVERFLOW | NVL_HW_FAULT_BUF_GET_CORRUPTED;

	if (addr == NVL_HW_BAR2_BLOCK) {
		pthread_mutex_lock(&m->fault_lock);
		m->bar2_block = val;
		pthread_mutex_unlock(&m->fault_lock);
		return;
	}
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
		if (val & NVL_HW_FAULT_BUF_SIZE_SET_DEFAULT)
			val = (val & ~(NVL_HW_FAULT_BUF_SIZE_SET_DEFAULT |
				       NVL_HW_FAULT_BUF_PTR_MASK)) |
			      NVL_MODEL_FAULT_BUF_DEFAULT;
		m->fault_buf[b].size = val;
		m->fault_buf[b].get = 0;
		m->fault_buf[b].put = 0;
		break;
	default: /* PUT is read-only */
		break;
	}
	pthread_mutex_unlock(&m->fault_lock);
}

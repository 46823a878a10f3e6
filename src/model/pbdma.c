// SPDX-License-Identifier: MIT
/*
 * DOC: PBDMA: GPFIFO fetch and method decode
 *
 * Runs one channel on its runlist's thread. The channel context (GPFIFO
 * base and size, USERD, page directory, privilege, acquire timeout) is read
 * from the instance block on the first run after a bind or enable.
 *
 * Fetch: GP_PUT is read from USERD; each GPFIFO entry between GP_GET and
 * GP_PUT is read through the MMU (engine HOST(runlist)). A control entry
 * (LENGTH 0) carries its opcode in GP_ENTRY1 OPCODE 7:0 and its operand in
 * the whole first dword: NOP (any operand) is consumed; ILLEGAL, and the
 * CRC opcodes the model does not implement, are GPENTRY errors. A
 * segment's LEVEL (MAIN or SUBROUTINE: only USERD's TOP_LEVEL_GET, which
 * the model does not write, tells them apart) and FETCH (CONDITIONAL:
 * fetched while SUBDEVICE_STATUS is ACTIVE, which it always is in the
 * model) change nothing. A segment
 * is fetched through the MMU in chunks of NVL_MODEL_PB_CHUNK dwords.
 * Host's reads and writes (GPFIFO entries, pushbuffer chunks, semaphores)
 * go through a micro-TLB of NVL_MODEL_UTLB_ENTRIES pages per channel, as a
 * PBDMA keeps one in front of the GMMU: a hit skips the MMU's lock and TLB
 * probe; every MMU invalidate (its generation count) and every context
 * load empties it; a miss, a fault or a page crossing takes the MMU path,
 * which reports faults as before.
 * GP_GET advances (and is written back to USERD) as soon as an entry has
 * begun processing, as on the hardware: it says which entries Host has
 * taken, not that their work is done (a semaphore release is that
 * signal).
 *
 * Decode: method headers (SEC_OP incrementing, non-incrementing,
 * increment-once, immediate, END_PB_SEGMENT, the NOP and subdevice-mask
 * group) as in the dev_pbdma facts; data dwords may straddle segments.
 * Host-only methods (below 0x100, SET_OBJECT aside) ignore the subchannel,
 * 5..7 included. The
 * decoder state lives in the channel, so a channel parked in a semaphore
 * acquire resumes at the very method that blocked. Reserved SEC_OPs, the
 * reserved header bit, incrementing and increment-once headers whose
 * method addresses would wrap past 0x3ffc (dev_pbdma's PBENTRY; recorded
 * as METHOD errors with the header as the data), engine methods on
 * software subchannels (5..7) and unknown methods are channel errors that
 * record the method and data, never a crash. A segment whose last dword
 * is the last of the 40-bit VA space is a GPENTRY error, as one that
 * crosses it (dev_pbdma GP_ENTRY).
 */
#include <errno.h>
#include <string.h>

#include "base/time.h"
#include "hw/compute.h"
#include "hw/fault.h"
#include "hw/mthd.h"
#include "hw/regs.h"
#include "model/fifo.h"

static enum nvl_hw_aperture ram_target(uint32_t t, bool *ok)
{
	*ok = true;
	switch (t & 3) {
	case NVL_HW_RAM_TARGET_VID:
		return NVL_HW_APERTURE_VIDMEM;
	case NVL_HW_RAM_TARGET_SYS_COH:
		return NVL_HW_APERTURE_SYS_COH;
	case NVL_HW_RAM_TARGET_SYS_NONCOH:
		return NVL_HW_APERTURE_SYS_NONCOH;
	default:
		*ok = false;
		return NVL_HW_APERTURE_VIDMEM;
	}
}

/* Load the channel context from its instance block; 0 or -EINVAL. */
int nvl_model_pbdma_load(struct nvl_model_chan *ch)
{
	struct nvl_model *m = ch->m;
	enum nvl_hw_aperture inst_ap;
	uint64_t inst;
	/* RAMFC and RAMIN's page directory words: all Host reads of the
	 * 4 KiB block (the rest is the engines' context) */
	uint32_t ram[(NVL_HW_RAMIN_PDB_HI + 4) / 4];
	uint32_t pdb, limit2, get, acq;
	bool ok;

	if (nvl_model_fifo_chan_inst(m, ch->chid, &inst_ap, &inst) ||
	    nvl_model_phys_access(m, inst_ap, inst, ram, sizeof(ram), false))
		return -EINVAL;
	ch->userd_ap = ram_target(ram[NVL_HW_RAMFC_USERD / 4], &ok);
	if (!ok)
		return -EINVAL;
	ch->userd = (uint64_t)ram[NVL_HW_RAMFC_USERD_HI / 4] << 32 |
		    (ram[NVL_HW_RAMFC_USERD / 4] & ~0x1ffu);
	ch->gp_base = (uint64_t)(ram[NVL_HW_RAMFC_GP_BASE_HI / 4] & 0xff)
			      << 32 |
		      (ram[NVL_HW_RAMFC_GP_BASE / 4] & ~7u);
	limit2 = ram[NVL_HW_RAMFC_GP_BASE_HI / 4] >>
			 NVL_HW_RAMFC_GP_BASE_HI_LIMIT2_SHIFT &
		 NVL_HW_RAMFC_GP_BASE_HI_LIMIT2_MASK;
	if (limit2 > 20)
		return -EINVAL;
	ch->gp_entries = 1u << limit2;
	ch->priv = ram[NVL_HW_RAMFC_CONFIG / 4] & NVL_HW_RAMFC_CONFIG_PRIV;
	acq = ram[NVL_HW_RAMFC_ACQUIRE / 4];
	/* TIMEOUT_EN 0: no timeout (0 below means wait forever) */
	ch->acquire_timeout_ns =
		(acq & NVL_HW_ACQUIRE_TIMEOUT_EN)
			? ((uint64_t)(acq >> NVL_HW_ACQUIRE_TIMEOUT_MAN_SHIFT &
				      NVL_HW_ACQUIRE_TIMEOUT_MAN_MASK)
			   << (acq >> NVL_HW_ACQUIRE_TIMEOUT_EXP_SHIFT &
			       NVL_HW_ACQUIRE_TIMEOUT_EXP_MASK)) *
				  NVL_HW_ACQUIRE_UNIT_NS
			: 0;
	if ((acq & NVL_HW_ACQUIRE_TIMEOUT_EN) && !ch->acquire_timeout_ns)
		ch->acquire_timeout_ns = 1; /* MAN 0: fails at once */
	pdb = ram[NVL_HW_RAMIN_PDB / 4];
	/* BIG_PAGE_SIZE 0 (128 KiB) is a format the model does not walk */
	if ((pdb & NVL_HW_RAMIN_PDB_TARGET_MASK) == NVL_HW_RAM_TARGET_INVALID ||
	    !(pdb & NVL_HW_RAMIN_PDB_USE_VER2) ||
	    !(pdb & NVL_HW_RAMIN_PDB_BIG_PAGE_64K))
		return -EINVAL;
	ch->vm.aperture = ram_target(pdb, &ok);
	ch->vm.pdb = (uint64_t)ram[NVL_HW_RAMIN_PDB_HI / 4] << 32 |
		     (pdb & NVL_HW_RAMIN_PDB_LO_MASK);
	ch->vm.version = m->profile->mmu_version;
	ch->vm.replayable = pdb & (NVL_HW_RAMIN_PDB_FAULT_REPLAY_TEX |
				   NVL_HW_RAMIN_PDB_FAULT_REPLAY_GCC);
	ch->rl = &m->fifo->rl[ch->runlist];
	/* a fresh context starts with no object bound and GP_GET at 0 */
	memset(ch->subch_class, 0, sizeof(ch->subch_class));
	/* publish where the PBDMA starts (0 after a bind) */
	get = atomic_load(&ch->gp_get);
	if (get >= ch->gp_entries ||
	    nvl_model_phys_access(m, ch->userd_ap,
				  ch->userd + NVL_HW_USERD_GP_GET, &get, 4,
				  true))
		return -EINVAL;
	memset(&ch->utlb, 0, sizeof(ch->utlb)); /* another VM, maybe */
	/* each slot: the dword 0 and its header (NOP, zeros) */
	memset(ch->hdr_cache, 0, sizeof(ch->hdr_cache));
	ch->utlb.gen_word = nvl_model_mmu_generation_word(m->mmu);
	ch->utlb.gen =
		atomic_load_explicit(ch->utlb.gen_word, memory_order_acquire);
	ch->ctx_loaded = true;
	return 0;
}

static unsigned host_engine(struct nvl_model_chan *ch)
{
	return ch->m->eng->host0 + ch->runlist;
}

/* ---- the micro-TLB --------------------------------------------------- */

void nvl_model_chan_utlb_drop(struct nvl_model_utlb *u, unsigned int gen)
{
	memset(u->e, 0, sizeof(u->e));
	u->gen = gen;
}

/*
 * Cache the page of @va after an access that succeeded through the MMU,
 * with the translation that access used (@x). It is under the generation
 * the lookup before the access read: if an invalidate came in between,
 * the next lookup drops this entry.
 */
static void utlb_fill(struct nvl_model_chan *ch, uint64_t va,
		      const struct nvl_model_xlate *x)
{
	struct nvl_model_utlb *u = &ch->utlb;
	struct nvl_model_utlb_entry *e;
	uint64_t mask;

	if (x->state != NVL_MODEL_XLATE_MAPPED)
		return;
	mask = (1ull << x->page_shift) - 1;
	e = &u->e[u->next++ % NVL_MODEL_UTLB_ENTRIES];
	e->va = va & ~mask;
	e->size = mask + 1;
	e->pa = x->pa - (va & mask);
	e->aperture = x->aperture;
	e->read_only = x->read_only;
	e->host = x->aperture == NVL_HW_APERTURE_VIDMEM
			  ? nvl_model_phys_ptr(ch->m, e->pa, e->size)
			  : NULL;
}

/* the MMU's rules (faults reported), then cache what worked */
static __attribute__((noinline)) int chan_vm_rw_slow(struct nvl_model_chan *ch,
						     uint64_t va, void *buf,
						     size_t len, bool write)
{
	struct nvl_model_xlate x;
	int ret;

	ret = nvl_model_vm_access_page(ch->m, &ch->vm, va, buf, len, write,
				       host_engine(ch), ch->chid, &x);
	if (!ret)
		utlb_fill(ch, va, &x);
	return ret;
}

/*
 * A hit on a VRAM page is a copy, without a frame; a hit on system memory
 * goes through the DMA mapping; the rest out of line. The lookup and the
 * copy through the entry are one access for the drain.
 */
static inline int chan_vm_rw(struct nvl_model_chan *ch, unsigned int kind,
			     uint64_t va, void *buf, size_t len, bool write)
{
	unsigned int t = nvl_model_mmu_enter(ch->m->mmu, ch->chid);
	const struct nvl_model_utlb_entry *e =
		nvl_model_chan_utlb_find(ch, kind, va, len, write);
	int ret = -EFAULT;

	if (likely(e && e->host)) {
		uint8_t *p = e->host + (va - e->va);

		if (write)
			nvl_model_mem_copy(p, buf, len);
		else
			nvl_model_mem_copy(buf, p, len);
		ret = 0;
	} else if (e) {
		ret = nvl_model_phys_access(ch->m, e->aperture,
					    e->pa + (va - e->va), buf, len,
					    write);
	}
	nvl_model_mmu_exit(ch->m->mmu, t);
	if (likely(!ret))
		return 0;
	return chan_vm_rw_slow(ch, va, buf, len, write);
}

static void gp_get_writeback(struct nvl_model_chan *ch, uint32_t get)
{
	/* release, not sequentially consistent (a locked exchange on x86):
	 * readers (GP_GET, CHRAM BUSY) take a snapshot */
	atomic_store_explicit(&ch->gp_get, get, memory_order_release);
	/* USERD unreachable: GP_GET simply is not visible there */
	(void)nvl_model_phys_access(ch->m, ch->userd_ap,
				    ch->userd + NVL_HW_USERD_GP_GET, &get, 4,
				    true);
}

/* SET_OBJECT and engine methods (exec_method()) */
static __attribute__((noinline)) enum nvl_model_mthd_res
engine_method(struct nvl_model_chan *ch, uint32_t subch, uint32_t mthd,
	      uint32_t data)
{
	if (subch >= NVL_HW_SUBCH_SW_FIRST) {
		nvl_model_chan_error(ch, NVL_HW_CHERR_DEVICE, mthd, data);
		return NVL_MODEL_MTHD_STOP;
	}
	if (mthd == NVL_HW_SET_OBJECT) {
		uint32_t cls = data & NVL_HW_SET_OBJECT_CLASS_MASK;
		bool compute = ch->runlist ==
			       NVL_HW_RUNLIST_COMPUTE(ch->m->profile->num_ce);

		/* a copy runlist's PBDMA checks the class against its
		 * copy engine and raises HCE_ILLEGAL_CLASS for any other
		 * (dev_pbdma NV_UDMA_OBJECT, NV_PPBDMA_INTR_1 bit 4: the
		 * compute class included); the compute runlist's engine
		 * takes only the compute class */
		if (!compute && cls != ch->m->profile->ce_class) {
			nvl_model_chan_error(ch, NVL_HW_CHERR_CE_LAUNCH, mthd,
					     data);
			return NVL_MODEL_MTHD_STOP;
		}
		if (compute && cls != ch->m->profile->compute_class) {
			nvl_model_chan_error(ch, NVL_HW_CHERR_METHOD, mthd,
					     data);
			return NVL_MODEL_MTHD_STOP;
		}
		ch->subch_class[subch] = cls;
		return NVL_MODEL_MTHD_OK;
	}
	/* engine methods go to the class bound to the subchannel; an
	 * engine's work may take long: completions before it go out first */
	nvl_model_nonstall_flush(&ch->m->fifo->rl[ch->runlist]);
	if (ch->subch_class[subch] == ch->m->profile->ce_class)
		return nvl_model_ce_method(ch, mthd, data);
	if (ch->subch_class[subch] == ch->m->profile->compute_class)
		return nvl_model_compute_method(ch, mthd, data);
	nvl_model_chan_error(ch, NVL_HW_CHERR_METHOD, mthd, data);
	return NVL_MODEL_MTHD_STOP;
}

/*
 * Execute one method; the decoder state is advanced by the caller. Two
 * tail calls, without a frame of its own: the Host methods (the fence
 * idiom's six) go straight to their switch.
 */
static inline enum nvl_model_mthd_res exec_method(struct nvl_model_chan *ch,
						  uint32_t subch, uint32_t mthd,
						  uint32_t data)
{
	/* Host-only methods ignore the subchannel, 5..7 included */
	if (mthd < NVL_HW_HOST_METHOD_LIMIT && mthd != NVL_HW_SET_OBJECT)
		return nvl_model_host_method(ch, mthd, data);
	return engine_method(ch, subch, mthd, data);
}

#define HDR_CACHE_BITS 3
_Static_assert(NVL_MODEL_HDR_CACHE == 1 << HDR_CACHE_BITS, "hdr cache size");
/* the fence idiom's order: ADDR_LO, ADDR_HI, PAYLOAD_LO, PAYLOAD_HI, EXECUTE */
_Static_assert(NVL_HW_SEM_ADDR_HI == NVL_HW_SEM_ADDR_LO + 4 &&
		       NVL_HW_SEM_PAYLOAD_LO == NVL_HW_SEM_ADDR_LO + 8 &&
		       NVL_HW_SEM_PAYLOAD_HI == NVL_HW_SEM_ADDR_LO + 12 &&
		       NVL_HW_SEM_EXECUTE == NVL_HW_SEM_ADDR_LO + 16,
	       "the semaphore methods are consecutive");
/* what hw/mthd.h decodes the all-zero dword to: an all-zero slot is valid */
_Static_assert(NVL_HW_HDR_NOP == 0, "the NOP header kind is 0");

/* decode a header dword (no data pending); returns the method result */
static enum nvl_model_mthd_res decode_hdr(struct nvl_model_chan *ch, uint32_t d)
{
	/* the header format is the shared decoder's (hw/mthd.h); a channel
	 * sends the same few headers again and again (the fence idiom's
	 * two), so it keeps what the decoder said for each, by dword */
	unsigned int slot = (d * 0x9e3779b1u) >> (32 - HDR_CACHE_BITS);
	struct nvl_hw_mthd_hdr h;

	if (likely(ch->hdr_cache[slot].d == d)) {
		h = ch->hdr_cache[slot].h;
	} else {
		nvl_hw_mthd_hdr_decode(d, &h);
		ch->hdr_cache[slot].d = d;
		ch->hdr_cache[slot].h = h;
	}
	switch (h.kind) {
	case NVL_HW_HDR_NOP:
	case NVL_HW_HDR_SUBDEV:
		/* subdevice-mask ops: a single-GPU device accepts and
		 * ignores them */
		return NVL_MODEL_MTHD_OK;
	case NVL_HW_HDR_INC:
	case NVL_HW_HDR_NON_INC:
	case NVL_HW_HDR_ONE_INC:
		ch->mthd = h.mthd;
		ch->mthd_count = h.count;
		ch->mthd_subch = h.subch;
		ch->mthd_op = d >> NVL_HW_MTHD_SEC_OP_SHIFT;
		return NVL_MODEL_MTHD_OK;
	case NVL_HW_HDR_IMMD:
		return exec_method(ch, h.subch, h.mthd, h.count);
	case NVL_HW_HDR_END_SEGMENT:
		/* ends the segment: drop its remaining dwords */
		ch->seg_left = 0;
		return NVL_MODEL_MTHD_OK;
	case NVL_HW_HDR_INVALID:
		break;
	}
	nvl_model_chan_error(ch, NVL_HW_CHERR_METHOD, h.mthd, d);
	return NVL_MODEL_MTHD_STOP;
}

/*
 * Run the fetched chunk ch->pb[0..n); returns the method result and in
 * *@done the dwords consumed (not the one that blocked or stopped). The
 * data dwords of a header run in a loop of their own, with the method,
 * count and SEC_OP in registers (written back when the run ends or
 * stops: a blocked method is retried, the state names it); only headers
 * go through decode_hdr().
 */
static enum nvl_model_mthd_res run_chunk(struct nvl_model_chan *ch, uint32_t n,
					 uint32_t *done)
{
	enum nvl_model_mthd_res r;
	uint32_t i = 0;

	while (i < n) {
		if (ch->mthd_count) {
			uint32_t mthd = ch->mthd, left = ch->mthd_count;
			uint32_t op = ch->mthd_op, subch = ch->mthd_subch;

			/*
			 * The semaphore's registers and SEM_EXECUTE under one
			 * incrementing header (the fence idiom's): the four
			 * register stores without a dispatch each; the
			 * execute goes through the loop below.
			 */
			if (mthd == NVL_HW_SEM_ADDR_LO &&
			    op == NVL_HW_SEC_OP_INC && left >= 5 &&
			    n - i >= 5) {
				ch->sem_addr_lo = ch->pb[i];
				ch->sem_addr_hi = ch->pb[i + 1];
				ch->sem_payload_lo = ch->pb[i + 2];
				ch->sem_payload_hi = ch->pb[i + 3];
				i += 4;
				left -= 4;
				mthd = NVL_HW_SEM_EXECUTE;
			}
			do {
				r = exec_method(ch, subch, mthd, ch->pb[i]);
				if (r != NVL_MODEL_MTHD_OK)
					break;
				i++;
				left--;
				if (op == NVL_HW_SEC_OP_INC) {
					mthd += 4;
				} else if (op == NVL_HW_SEC_OP_ONE_INC) {
					mthd += 4;
					op = NVL_HW_SEC_OP_NON_INC;
				}
				mthd &= NVL_HW_MTHD_ADDR_MASK << 2;
			} while (left && i < n);
			ch->mthd = mthd;
			ch->mthd_count = left;
			ch->mthd_op = op;
			if (r != NVL_MODEL_MTHD_OK) {
				*done = i;
				return r;
			}
			continue;
		}
		r = decode_hdr(ch, ch->pb[i]);
		if (r != NVL_MODEL_MTHD_OK) {
			*done = i;
			return r;
		}
		i++;
		if (!ch->seg_left) { /* END_PB_SEGMENT */
			*done = i;
			return NVL_MODEL_MTHD_OK;
		}
	}
	*done = n;
	return NVL_MODEL_MTHD_OK;
}

/* Outcome of fetching a GPFIFO entry. */
enum fetch_res {
	FETCH_SEGMENT, /* a pushbuffer segment is ready */
	FETCH_CONTROL, /* a NOP control entry was consumed */
	FETCH_EMPTY, /* GP_GET == GP_PUT */
	FETCH_STOPPED, /* error or fault recorded */
};

/* GPFIFO entries fetched at once (at most; within one 4 KiB page) */
#define GP_BATCH 8

/*
 * What one nvl_model_pbdma_run() has read of the ring: the GP_PUT it last
 * read from USERD (UINT32_MAX: none yet), and entries [first, first + n)
 * fetched ahead of GP_GET. The entries before a GP_PUT were written before
 * it was, and are not rewritten until GP_GET has passed them.
 */
struct gp_ahead {
	uint32_t put;
	uint32_t first, n;
	uint32_t e[GP_BATCH][2];
};

/*
 * USERD's GP_PUT is read again only when GP_GET has caught up with the
 * last value read: once per run of entries and once to find the ring
 * empty, not once per entry. The entries between GP_GET and GP_PUT are
 * read together, up to GP_BATCH and not past the ring's end or GP_GET's
 * 4 KiB page (a fault is then the first entry's, as when one is read):
 * a job's two entries (its push and the fence idiom) are one read.
 */
static enum fetch_res fetch_entry(struct nvl_model_chan *ch,
				  struct gp_ahead *ga)
{
	struct nvl_model *m = ch->m;
	uint32_t get = atomic_load(&ch->gp_get), e[2], len;
	uint64_t va;

	if (ga->put == get || ga->put == UINT32_MAX) {
		if (nvl_model_phys_access(m, ch->userd_ap,
					  ch->userd + NVL_HW_USERD_GP_PUT,
					  &ga->put, 4, false)) {
			ga->put = UINT32_MAX;
			nvl_model_chan_error(ch, NVL_HW_CHERR_INSTANCE, 0, 0);
			return FETCH_STOPPED;
		}
		if (ga->put >= ch->gp_entries) {
			nvl_model_chan_error(ch, NVL_HW_CHERR_GPPTR, 0,
					     ga->put);
			ga->put = UINT32_MAX;
			return FETCH_STOPPED;
		}
		if (ga->put == get)
			return FETCH_EMPTY;
	}
	if (get - ga->first >= ga->n) {
		uint64_t gva = ch->gp_base + (uint64_t)get * 8;
		uint32_t n = (ga->put > get ? ga->put : ch->gp_entries) - get;

		n = NVL_MIN(n, GP_BATCH);
		n = NVL_MIN(n, (uint32_t)((4096 - (gva & 4095)) / 8));
		ga->n = 0;
		if (chan_vm_rw(ch, NVL_MODEL_UTLB_GPFIFO, gva, ga->e,
			       (size_t)n * 8, false)) {
			nvl_model_chan_fault(ch, false, 0);
			return FETCH_STOPPED;
		}
		ga->first = get;
		ga->n = n;
	}
	e[0] = ga->e[get - ga->first][0];
	e[1] = ga->e[get - ga->first][1];
	len = e[1] >> NVL_HW_GP_ENTRY1_LENGTH_SHIFT &
	      NVL_HW_GP_ENTRY1_LENGTH_MASK;
	va = (uint64_t)(e[1] & NVL_HW_GP_ENTRY1_GET_HI_MASK) << 32 |
	     (e[0] & NVL_HW_GP_ENTRY0_GET_MASK);
	if (!len) {
		if ((e[1] & NVL_HW_GP_ENTRY1_OPCODE_MASK) !=
		    NVL_HW_GP_OPCODE_NOP) {
			nvl_model_chan_error(ch, NVL_HW_CHERR_GPENTRY, e[0],
					     e[1]);
			return FETCH_STOPPED;
		}
		gp_get_writeback(ch, (get + 1) % ch->gp_entries);
		return FETCH_CONTROL;
	}
	/*
	 * dev_pbdma GP_ENTRY: LEVEL_SUBROUTINE only keeps the segment's
	 * progress out of USERD's TOP_LEVEL_GET, which the model does not
	 * keep: it runs as a LEVEL_MAIN one. FETCH_CONDITIONAL fetches only
	 * while SUBDEVICE_STATUS is ACTIVE, which it always is here (the
	 * subdevice-mask headers are accepted and ignored): it is fetched.
	 * The last dword of the VA space cannot hold a PB entry (the
	 * PBDMA's PUT is the address past the segment): GPENTRY.
	 */
	if (va + (uint64_t)len * 4 >= (1ull << 40)) {
		nvl_model_chan_error(ch, NVL_HW_CHERR_GPENTRY, e[0], e[1]);
		return FETCH_STOPPED;
	}
	ch->seg_entry = get;
	atomic_store_explicit(&ch->in_seg, true, memory_order_release);
	ch->seg_va = va;
	ch->seg_left = len;
	/* the entry has begun processing: GP_GET moves past it now */
	gp_get_writeback(ch, (get + 1) % ch->gp_entries);
	return FETCH_SEGMENT;
}

/*
 * Interrupt moderation: a NON_STALL_INTERRUPT method marks its bits on the
 * runlist and the runlist thread raises them once it is done with the run
 * (the channel blocked, yielding or stopped; fifo.c rl_main, with the
 * FIFO lock dropped, so a woken submitter does not find it held), as soon
 * as the PBDMA finds the channel's ring empty (still in
 * nvl_model_pbdma_run(), before the runlist's bookkeeping: what is done
 * is signalled first), before an engine method (the completions before a
 * long copy are not held behind it), or when NVL_MODEL_NONSTALL_BATCH
 * have piled up. The semaphore releases before them are already visible, so the
 * handler finds every completion; a burst of small jobs costs one handler
 * call instead of one each, as interrupts coalesce on hardware while the
 * CPU is slower than the engine.
 */
void nvl_model_nonstall_flush(struct nvl_model_runlist *rl)
{
	uint32_t bits = rl->nonstall_bits;

	if (!bits)
		return;
	rl->nonstall_bits = 0;
	rl->nonstall_n = 0;
	nvl_model_intr_raise(rl->m, NVL_HW_INTR_TREE_NONSTALL, bits);
}

void nvl_model_set_pb_trace(struct nvl_model *m, nvl_model_pb_trace_fn fn,
			    void *arg)
{
	m->pb_trace_arg = arg;
	m->pb_trace = fn;
}

NVL_HOT enum nvl_model_run nvl_model_pbdma_run(struct nvl_model_chan *ch)
{
	struct nvl_model_runlist *rl = &ch->m->fifo->rl[ch->runlist];
	unsigned budget = NVL_MODEL_PB_BUDGET;
	struct gp_ahead ga; /* e[] only below n: not cleared */

	ga.put = UINT32_MAX;
	ga.first = 0;
	ga.n = 0;

	if (!ch->ctx_loaded && nvl_model_pbdma_load(ch)) {
		nvl_model_chan_error(ch, NVL_HW_CHERR_INSTANCE, 0, 0);
		return NVL_MODEL_RUN_STOPPED;
	}
	while (budget) {
		enum nvl_model_mthd_res r;
		uint32_t n, done, cls[8];

		if (atomic_load_explicit(&ch->stop_req, memory_order_relaxed) ||
		    atomic_load_explicit(&rl->reset_flag, memory_order_relaxed))
			return NVL_MODEL_RUN_STOPPED;
		if (!ch->in_seg) {
			/*
			 * A hang armed while this channel was being served
			 * takes effect before its next entry: back to the
			 * runlist, which finds it armed and stops there.
			 */
			if (unlikely(atomic_load_explicit(
					     &rl->hang_chid,
					     memory_order_relaxed) ==
				     ch->chid + 1))
				return NVL_MODEL_RUN_YIELD;
			switch (fetch_entry(ch, &ga)) {
			case FETCH_SEGMENT:
				break;
			case FETCH_CONTROL:
				budget--;
				continue;
			case FETCH_EMPTY:
				/* the ring is drained: the completions go
				 * out now, not after the runlist's
				 * bookkeeping (the waiter's wake-up is on
				 * the clock) */
				nvl_model_nonstall_flush(rl);
				return NVL_MODEL_RUN_IDLE;
			case FETCH_STOPPED:
				return NVL_MODEL_RUN_STOPPED;
			}
		}
		n = NVL_MIN(ch->seg_left, NVL_MODEL_PB_CHUNK);
		n = NVL_MIN(n, budget);
		if (chan_vm_rw(ch, NVL_MODEL_UTLB_PB, ch->seg_va, ch->pb,
			       (size_t)n * 4, false)) {
			nvl_model_chan_fault(ch, false, 0);
			return NVL_MODEL_RUN_STOPPED;
		}
		if (ch->m->pb_trace)
			memcpy(cls, ch->subch_class, sizeof(cls));
		r = run_chunk(ch, n, &done);
		if (ch->m->pb_trace) {
			/* what was processed: a stopping dword included */
			uint32_t k = r == NVL_MODEL_MTHD_STOP && done < n
					     ? done + 1
					     : done;

			if (k)
				ch->m->pb_trace(ch->m->pb_trace_arg, ch->chid,
						ch->seg_va, cls, ch->pb, k);
		}
		/* END_PB_SEGMENT left seg_left at 0 */
		if (ch->seg_left)
			ch->seg_left -= done;
		ch->seg_va += (uint64_t)done * 4;
		budget -= NVL_MIN(budget, done ? done : 1);
		if (r == NVL_MODEL_MTHD_STOP)
			return NVL_MODEL_RUN_STOPPED;
		if (r == NVL_MODEL_MTHD_BLOCK)
			return NVL_MODEL_RUN_BLOCKED;
		if (!ch->seg_left)
			atomic_store_explicit(&ch->in_seg, false,
					      memory_order_release);
	}
	return NVL_MODEL_RUN_YIELD;
}

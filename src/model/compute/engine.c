// SPDX-License-Identifier: MIT
/*
 * DOC: compute engine (launch path)
 *
 * The compute class on a channel's subchannel (hw/compute.h). The setup
 * methods (shared and local memory windows, local memory, cache
 * invalidations) are recorded or accepted; SEND_PCAS_A records the QMD
 * address and the scheduling signal (SEND_SIGNALING_PCAS_B.SCHEDULE on
 * C5C0, SEND_SIGNALING_PCAS2_B with a scheduling ACTION from C6C0) runs
 * the grid to completion on the runlist thread:
 *
 *  1. the QMD (the class's version, qmd_layout_of()) is read through the
 *     MMU as the graphics/compute engine, and its version (and on
 *     V04_00 its QMD_TYPE: GRID_CTA) and release form checked;
 *  2. the valid constant buffers are read (kernel parameters live in
 *     bank 0, where the client put them);
 *  3. the program is fetched from its address instruction by
 *     instruction until the last instruction reachable by falling through
 *     (an unconditional EXIT or BRA past every branch target seen), or up
 *     to an undecodable word, which executes as an illegal instruction;
 *  4. compute_sms worker threads run nvl_cs_run(), each taking chunks of
 *     consecutive CTAs from a counter they share until the grid is
 *     done (a worker the host schedules less runs fewer); global
 *     memory goes through nvl_model_mmu_translate() (the TLB) with a
 *     4-page cache per worker, and an access that faults is reported
 *     to the fault buffer with the GRAPHICS engine id and stops every
 *     worker, unless the channel's VA space is replayable
 *     (FAULT_REPLAY_TEX/GCC): then the access parks until the driver
 *     replays or cancels it (replay.c);
 *  5. the release semaphore of the QMD is written (RELEASE0_STRUCTURE_SIZE
 *     ONE_WORD: the 32-bit payload; FOUR_WORDS: payload, zero, timestamp;
 *     or a reduction) and channels waiting in acquires are woken.
 *
 * Errors: an MMU fault (QMD, constants, code, global memory, semaphore)
 * faults the channel (ENG_FAULTED, CHERR_MMU_FAULT); execution errors
 * and bad QMDs are NVL_HW_CHERR_COMPUTE with the reason in ERR_DATA.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "base/alloc.h"
#include "base/log.h"
#include "hw/compute.h"
#include "hw/fault.h"
#include "hw/host.h"
#include "hw/regs.h"
#include "model/compute/pool.h"
#include "model/compute/sm.h"
#include "model/fifo.h"

#define CS_MAX_INSN (1u << 16)
#define CS_MAX_CBUF (64u << 10)
#define CS_MAX_SMS 64
#define CS_BUDGET (1ull << 30) /* warp instructions per worker */
#define CS_UTLB 4 /* pages cached per worker */
#define CS_CHUNKS 16 /* chunks of CTAs per worker and grid, at least */
#define CS_CHUNK_MAX 64 /* CTAs */
#define CS_SM_REGS 65536u /* an SM's 32-bit registers (reference §3) */
/* grids one scheduling signal may run through DEPENDENT_QMD0 links: a
 * loop of QMDs (A -> B -> A) is a job that never ends, which the model
 * stops as it stops a kernel that runs out of instructions */
#define CS_MAX_CHAIN 4096u

struct cs_worker {
	struct nvl_model_chan *ch;
	struct nvl_cs_launch l;
	struct nvl_cs_fault fault;
	struct nvl_cs_stats stats;
	_Atomic bool *stop;
	int ret;
	/* a small per-worker translation cache (the SM's uTLB) */
	struct {
		uint64_t va, mask;
		uint8_t *p;
		bool write;
	} pg[CS_UTLB];
	unsigned pg_next;
	uint8_t zero[16];
	/*
	 * The MMU drain section the worker's translations are good for
	 * (cs_mmu_in()): entered at the first translation, left when a
	 * draining invalidate waits for it (polled between CTAs and every
	 * poll slice), before the worker parks or reports a fault, and at
	 * the end of its run. Leaving drops the uTLB and bumps @xgen, the
	 * interpreter's nvl_cs_launch.map_gen, which drops its TLB too: no
	 * page translated in one section is used in another.
	 */
	bool in;
	unsigned ticket, hint;
	unsigned gen; /* nvl_model_mmu_generation() at the last look */
	unsigned xgen;
};

/*
 * The fields of a QMD a launch uses, decoded from its words. A launch whose
 * QMD has the same words as the last one this thread decoded (with the same
 * layout) takes them from there: the same words give the same fields, so
 * every field is still honoured, without some thirty field extractions.
 */
struct cs_qmd {
	/* bad_version: also a V04_00 QMD_TYPE other than GRID_CTA;
	 * bad_release: a release the model does not write (TWO_WORDS, a
	 * 64-bit payload, an unknown format) or misaligned for its size */
	bool bad_version, release, bad_release, four_words, reduce;
	uint8_t red_op; /* Host's NVL_HW_SEM_RED_* */
	bool red_signed;
	uint8_t cb_valid; /* bank i valid: bit i */
	int8_t bad_cb; /* first valid bank of a bad size, or -1 */
	uint32_t grid[3], block[3], shared_B;
	uint32_t cb_size[8];
	uint64_t cb_va[8];
	uint64_t pva;
	uint64_t release_va;
	uint32_t release_payload;
	/* REGISTER_COUNT, BARRIER_COUNT; bad_limits: more than the
	 * architecture has, or the CTA's warps do not fit an SM's
	 * registers */
	uint16_t reg_count;
	uint8_t bar_count;
	bool bad_limits;
	/* DEPENDENT_QMD0: launch the QMD at dep_va when this grid is
	 * done; bad_dep: an ACTION the model does not do */
	bool dep, bad_dep;
	uint64_t dep_va;
};

/*
 * What a launch needs besides the QMD, kept per runlist thread (the thread
 * that runs grid after grid) instead of allocated per launch: the copies
 * of the constant buffers, the fetched program's words ([1]: the last
 * fetch's, which the next launch of the same address compares to skip
 * decoding them again; [0]: the words being fetched) and the SM workers.
 * Grown when a launch needs more; freed when the thread exits, and at the
 * next launch after nvl_cs_cache_clear().
 */
struct cs_scratch {
	uint64_t gen; /* nvl_cs_cache_gen() when filled */
	void *cbuf[8];
	uint32_t cbuf_cap[8];
	uint64_t *code[2];
	uint32_t code_cap[2]; /* instructions */
	/* the fetch whose words are in code[1] */
	bool last_ok, last_bad;
	enum nvl_isa_arch last_arch;
	uint64_t last_va;
	uint32_t last_n;
	struct cs_worker *w;
	unsigned w_cap;
	/* the last QMD's words (of layout qly; NULL: none) and its fields */
	const struct nvl_hw_qmd_layout *qly;
	uint32_t qwords[96];
	struct cs_qmd qd;
	/* the SM worker threads (kept when the buffers above are dropped) */
	struct nvl_cs_pool pool;
};

static pthread_key_t scratch_key;
static bool scratch_key_ok;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

/* drop the buffers (not the threads, which may be waiting on the pool) */
static void cs_scratch_empty(struct cs_scratch *s)
{
	for (unsigned i = 0; i < 8; i++) {
		nvl_free(s->cbuf[i]);
		s->cbuf[i] = NULL;
		s->cbuf_cap[i] = 0;
	}
	for (unsigned i = 0; i < 2; i++) {
		nvl_free(s->code[i]);
		s->code[i] = NULL;
		s->code_cap[i] = 0;
	}
	s->last_ok = false;
	s->qly = NULL;
	nvl_free(s->w);
	s->w = NULL;
	s->w_cap = 0;
}

static void cs_scratch_free(void *p)
{
	struct cs_scratch *s = p;

	if (!s)
		return;
	nvl_cs_pool_fini(&s->pool);
	cs_scratch_empty(s);
	nvl_free(s);
}

static void scratch_key_init(void)
{
	scratch_key_ok = !pthread_key_create(&scratch_key, cs_scratch_free);
}

/* this thread's scratch (*@own: the caller frees it: no per-thread slot),
 * or NULL */
static struct cs_scratch *cs_scratch_get(bool *own)
{
	struct cs_scratch *s = NULL;
	uint64_t gen = nvl_cs_cache_gen();

	pthread_once(&scratch_once, scratch_key_init);
	*own = !scratch_key_ok;
	if (scratch_key_ok)
		s = pthread_getspecific(scratch_key);
	if (s) {
		if (s->gen != gen) {
			cs_scratch_empty(s);
			s->gen = gen;
		}
		return s;
	}
	s = nvl_zalloc(sizeof(*s));
	if (!s)
		return NULL;
	if (nvl_cs_pool_init(&s->pool)) {
		nvl_free(s);
		return NULL;
	}
	s->gen = gen;
	if (scratch_key_ok && pthread_setspecific(scratch_key, s))
		*own = true;
	return s;
}

/* *@p with room for @size bytes (its content is not kept) */
static int cs_room(void **p, uint32_t *cap, uint32_t size)
{
	if (*cap >= size)
		return 0;
	nvl_free(*p);
	*cap = 0;
	*p = nvl_malloc(size);
	if (!*p)
		return -ENOMEM;
	*cap = size;
	return 0;
}

static unsigned cs_engine(struct nvl_model_chan *ch)
{
	return ch->m->eng->graphics;
}

/* drop every page the worker (and so the interpreter) holds */
static void cs_utlb_drop(struct cs_worker *w)
{
	for (unsigned i = 0; i < CS_UTLB; i++)
		w->pg[i].p = NULL;
	w->xgen++;
}

/* be in a drain section (before any translation) */
static inline void cs_mmu_in(struct cs_worker *w)
{
	if (w->in)
		return;
	w->ticket = nvl_model_mmu_enter(w->ch->m->mmu, w->hint);
	w->gen = nvl_model_mmu_generation(w->ch->m->mmu);
	w->in = true;
}

/* leave the section: nothing translated in it may be used after */
static void cs_mmu_out(struct cs_worker *w)
{
	if (!w->in)
		return;
	cs_utlb_drop(w);
	nvl_model_mmu_exit(w->ch->m->mmu, w->ticket);
	w->in = false;
}

/*
 * At a poll (between CTAs, every NVL_CS_POLL_SLICE warp instructions): a
 * draining invalidate that waits for this worker's section completes once
 * it is left (the next translation enters a new one, the TLBs empty); a
 * plain invalidate since the last look empties the TLBs too. Two loads
 * when nothing happened.
 */
static void cs_mmu_poll(struct cs_worker *w)
{
	struct nvl_model_mmu *mmu = w->ch->m->mmu;
	unsigned g;

	if (!w->in)
		return;
	if (nvl_model_mmu_section_stale(mmu, w->ticket)) {
		cs_mmu_out(w);
		return;
	}
	g = nvl_model_mmu_generation(mmu);
	if (g != w->gen) {
		w->gen = g;
		cs_utlb_drop(w);
	}
}

static void cs_report(struct cs_worker *w, uint64_t va, unsigned type,
		      bool write)
{
	struct nvl_model_fault f = {
		.va = va,
		.type = type,
		.access = write ? NVL_HW_FAULT_ACCESS_WRITE
				: NVL_HW_FAULT_ACCESS_READ,
		.engine_id = cs_engine(w->ch),
		.chid = w->ch->chid,
	};

	/* faults are reported outside a section (model/mmu.h): the
	 * report may reach a driver that invalidates and waits */
	cs_mmu_out(w);
	/* the first fault of the grid stops it: report that one */
	if (!atomic_exchange(w->stop, true))
		nvl_model_fault_report(w->ch->m, &f);
}

/*
 * A miss in a replayable VA space parks the access (model/replay.c): 0 to
 * re-issue it, -ECANCELED to re-issue it a last time, else it fails.
 */
static int cs_park(struct cs_worker *w, uint64_t va, unsigned type, bool write)
{
	struct nvl_model_fault f = {
		.va = va,
		.type = type,
		.access = write ? NVL_HW_FAULT_ACCESS_WRITE
				: NVL_HW_FAULT_ACCESS_READ,
		.engine_id = cs_engine(w->ch),
		.chid = w->ch->chid,
		.replayable = true,
	};

	return nvl_model_replay_park(w->ch->m, &f, w->stop);
}

/* the worker's uTLB: the page holding @va, or NULL */
static uint8_t *cs_utlb(struct cs_worker *w, uint64_t va, bool write,
			unsigned *slot)
{
	for (unsigned i = 0; i < CS_UTLB; i++)
		if (w->pg[i].p && (va & ~w->pg[i].mask) == w->pg[i].va &&
		    (!write || w->pg[i].write)) {
			*slot = i;
			return w->pg[i].p;
		}
	return NULL;
}

/* a translated page of VRAM (or NULL: not VRAM, reported by the caller)
 * into the uTLB */
static uint8_t *cs_utlb_fill(struct cs_worker *w, uint64_t va, bool write,
			     const struct nvl_model_xlate *x, unsigned *slot)
{
	uint64_t span = 1ull << x->page_shift;
	unsigned i;
	uint8_t *p;

	/* SMs reach VRAM only: system memory is not modelled here */
	p = x->aperture == NVL_HW_APERTURE_VIDMEM
		    ? nvl_model_phys_ptr(w->ch->m, x->pa & ~(span - 1), span)
		    : NULL;
	if (!p)
		return NULL;
	i = w->pg_next++ % CS_UTLB;
	w->pg[i].p = p;
	w->pg[i].va = va & ~(span - 1);
	w->pg[i].mask = span - 1;
	w->pg[i].write = write;
	*slot = i;
	return p;
}

/* the interpreter's global memory: the MMU and its TLB */
static void *cs_translate(void *ctx, uint64_t va, uint32_t size, bool write)
{
	struct cs_worker *w = ctx;
	struct nvl_model *m = w->ch->m;
	struct nvl_model_xlate x;
	bool last = false;
	unsigned i;
	uint8_t *p;
	int ret;

	(void)size; /* the interpreter never crosses a page */
	cs_mmu_in(w);
	p = cs_utlb(w, va, write, &i);
	if (p)
		return p + (va & w->pg[i].mask);
	while (nvl_model_mmu_translate(m, &w->ch->vm, va,
				       write ? NVL_HW_FAULT_ACCESS_WRITE
					     : NVL_HW_FAULT_ACCESS_READ,
				       &x)) {
		if (!w->ch->vm.replayable) {
			cs_report(w, va, x.fault_type, write);
			return NULL;
		}
		/* fault and stall: wait for the driver's replay or cancel,
		 * outside the section (the driver's invalidates drain) */
		cs_mmu_out(w);
		ret = last ? -ENODEV : cs_park(w, va, x.fault_type, write);
		cs_mmu_in(w);
		if (ret == -ECANCELED) {
			last = true;
		} else if (ret) {
			/* cancelled (the channel gets RC), or given up */
			atomic_store(w->stop, true);
			return NULL;
		}
	}
	if (x.state == NVL_MODEL_XLATE_SPARSE) {
		/* reads zero, writes dropped */
		memset(w->zero, 0, sizeof(w->zero));
		return w->zero;
	}
	p = cs_utlb_fill(w, va, write, &x, &i);
	if (!p) {
		cs_report(w, va, NVL_HW_FAULT_REGION_VIOLATION, write);
		return NULL;
	}
	return p + (va & w->pg[i].mask);
}

/*
 * Whole pages for the interpreter's TLB: a uTLB hit, or a translation that
 * needs no fault. Never reports or parks: a miss here goes through
 * cs_translate, which does.
 */
static void *cs_map(void *ctx, uint64_t va, bool write, uint64_t *base,
		    uint64_t *len)
{
	struct cs_worker *w = ctx;
	struct nvl_model_xlate x;
	unsigned i;
	uint8_t *p;

	cs_mmu_in(w);
	p = cs_utlb(w, va, write, &i);
	if (!p) {
		if (nvl_model_mmu_translate(w->ch->m, &w->ch->vm, va,
					    write ? NVL_HW_FAULT_ACCESS_WRITE
						  : NVL_HW_FAULT_ACCESS_READ,
					    &x) ||
		    x.state != NVL_MODEL_XLATE_MAPPED)
			return NULL;
		p = cs_utlb_fill(w, va, write, &x, &i);
		if (!p)
			return NULL;
	}
	*base = w->pg[i].va;
	*len = w->pg[i].mask + 1;
	return p;
}

/*
 * The engine is being reset or the channel disabled (a job timeout's
 * recovery, a destroy): the grid stops as the copy engine's work does.
 */
static bool cs_aborted(void *ctx)
{
	struct cs_worker *w = ctx;
	struct nvl_model_chan *ch = w->ch;

	cs_mmu_poll(w);
	return atomic_load_explicit(&ch->stop_req, memory_order_relaxed) ||
	       atomic_load_explicit(&ch->m->fifo->rl[ch->runlist].reset_flag,
				    memory_order_relaxed);
}

static void cs_worker_main(void *arg)
{
	struct cs_worker *w = arg;

	w->ret = nvl_cs_run(&w->l, &w->fault, &w->stats);
	cs_mmu_out(w);
	if (w->ret)
		atomic_store(w->stop, true);
}

/*
 * Field @f of the QMD at @q: a shift and a mask when it lies in one word
 * (nearly all do), else nvl_hw_qmd_get()'s bit loop (a launch reads about
 * thirty fields; the loop was a quarter of an empty launch's own work).
 */
static inline uint64_t cs_qget(const uint32_t *q, struct nvl_hw_qmd_field f)
{
	unsigned sh = f.lo % 32;

	if (f.width && sh + f.width <= 32)
		return q[f.lo / 32] >> sh & (uint32_t)(~0ull >> (64 - f.width));
	return nvl_hw_qmd_get(q, f);
}

/*
 * The release's form: RELEASE0_STRUCTURE_SIZE ONE_WORD writes the 32-bit
 * payload, FOUR_WORDS (the zero value) the payload, a zero word and the
 * timestamp, 16-byte aligned; REDUCTION_ENABLE makes the payload word a
 * reduction (the QMD's op numbers are not Host's). TWO_WORDS and the
 * 64-bit payload are not modelled: a bad QMD, refused before the grid
 * runs, as is a release address not aligned to its size.
 */
static void cs_qmd_release(const struct nvl_hw_qmd_layout *ly,
			   const uint32_t *q, struct cs_qmd *d)
{
	static const uint8_t red[8] = {
		[NVL_HW_QMD_RED_ADD] = NVL_HW_SEM_RED_IADD,
		[NVL_HW_QMD_RED_MIN] = NVL_HW_SEM_RED_IMIN,
		[NVL_HW_QMD_RED_MAX] = NVL_HW_SEM_RED_IMAX,
		[NVL_HW_QMD_RED_INC] = NVL_HW_SEM_RED_INC,
		[NVL_HW_QMD_RED_DEC] = NVL_HW_SEM_RED_DEC,
		[NVL_HW_QMD_RED_AND] = NVL_HW_SEM_RED_IAND,
		[NVL_HW_QMD_RED_OR] = NVL_HW_SEM_RED_IOR,
		[NVL_HW_QMD_RED_XOR] = NVL_HW_SEM_RED_IXOR,
	};
	uint64_t size = cs_qget(q, ly->release_size);
	uint64_t fmt = cs_qget(q, ly->release_red_format);

	d->four_words = size == NVL_HW_QMD_RELEASE_FOUR_WORDS;
	d->reduce = cs_qget(q, ly->release_red_enable);
	d->red_op = red[cs_qget(q, ly->release_red_op) & 7];
	d->red_signed = fmt == NVL_HW_QMD_RED_FORMAT_SIGNED;
	d->bad_release = (size != NVL_HW_QMD_RELEASE_FOUR_WORDS &&
			  size != NVL_HW_QMD_RELEASE_ONE_WORD) ||
			 cs_qget(q, ly->release_payload64b) ||
			 (d->reduce && fmt > NVL_HW_QMD_RED_FORMAT_SIGNED) ||
			 (d->release_va & (d->four_words ? 15 : 3));
}

/*
 * REGISTER_COUNT (R0 .. R254 exist: at most 255) and BARRIER_COUNT (16
 * named barriers: at most 16), and whether the CTA fits an SM: its warps
 * take the registers in units of 256 per warp, 64K in all (reference §3;
 * ⚠ what hardware does with a CTA that can never be resident is not
 * public: the model refuses the launch, as the CUDA driver does).
 */
static void cs_qmd_limits(const struct nvl_hw_qmd_layout *ly, const uint32_t *q,
			  struct cs_qmd *d)
{
	uint64_t regs = cs_qget(q, ly->register_count);
	uint64_t bars = cs_qget(q, ly->barrier_count);
	uint64_t threads = (uint64_t)d->block[0] * d->block[1] * d->block[2];
	uint64_t warp_regs = (regs * 32 + 255) / 256 * 256;

	d->reg_count = (uint16_t)regs;
	d->bar_count = (uint8_t)bars;
	d->bad_limits = regs > NVL_HW_QMD_MAX_REGISTERS ||
			bars > NVL_HW_QMD_MAX_BARRIERS ||
			(threads + 31) / 32 * warp_regs > CS_SM_REGS;
}

/* decode the fields of the QMD words @q (layout @ly) into @d */
static void cs_qmd_decode(const struct nvl_hw_qmd_layout *ly, const uint32_t *q,
			  struct cs_qmd *d)
{
	memset(d, 0, sizeof(*d));
	d->bad_cb = -1;
	d->bad_version = cs_qget(q, ly->version_major) != ly->major ||
			 cs_qget(q, ly->version_minor) != ly->minor;
	for (unsigned i = 0; i < 3; i++) {
		d->grid[i] = (uint32_t)cs_qget(q, ly->grid[i]);
		d->block[i] = (uint32_t)cs_qget(q, ly->cta[i]);
	}
	d->shared_B = (uint32_t)cs_qget(q, ly->shared_B);
	for (unsigned i = 0; i < 8; i++) {
		uint64_t va, size;

		if (!cs_qget(q, nvl_hw_qmd_at(ly->cb_valid,
					      ly->cb_valid_stride * i)))
			continue;
		va = cs_qget(q, nvl_hw_qmd_at(ly->cb_addr_lo, 64 * i)) |
		     cs_qget(q, nvl_hw_qmd_at(ly->cb_addr_hi, 64 * i)) << 32;
		size = cs_qget(q, nvl_hw_qmd_at(ly->cb_size, 64 * i)) << 4;
		d->cb_valid |= (uint8_t)(1u << i);
		d->cb_va[i] = va << ly->cb_addr_shift;
		if ((!size || size > CS_MAX_CBUF) && d->bad_cb < 0)
			d->bad_cb = (int8_t)i;
		d->cb_size[i] = size > CS_MAX_CBUF ? 0 : (uint32_t)size;
	}
	d->pva = cs_qget(q, ly->prog_lo) | cs_qget(q, ly->prog_hi) << 32;
	/* V04_00: a QUEUE (0) or a cluster grid is not a plain grid */
	if (ly->qmd_type.width &&
	    cs_qget(q, ly->qmd_type) != NVL_HW_QMD_TYPE_GRID_CTA)
		d->bad_version = true;
	d->release = cs_qget(q, ly->release_enable);
	d->release_va = cs_qget(q, ly->release_addr_lo) |
			cs_qget(q, ly->release_addr_hi) << 32;
	d->release_payload = (uint32_t)cs_qget(q, ly->release_payload);
	if (d->release)
		cs_qmd_release(ly, q, d);
	cs_qmd_limits(ly, q, d);
	d->dep = cs_qget(q, ly->dep_enable);
	if (d->dep) {
		uint64_t a = cs_qget(q, ly->dep_action);

		d->bad_dep = a != NVL_HW_QMD_DEP_SCHEDULE &&
			     a != NVL_HW_QMD_DEP_INVALIDATE_COPY_SCHEDULE;
		d->dep_va = cs_qget(q, ly->dep_pointer) << 8;
	}
}

static enum nvl_isa_arch cs_arch(uint32_t cls)
{
	switch (cls) {
	case NVL_HW_COMPUTE_CLASS_TURING:
		return NVL_ISA_SM75;
	case NVL_HW_COMPUTE_CLASS_AMPERE_A:
		return NVL_ISA_SM80;
	case NVL_HW_COMPUTE_CLASS_AMPERE_B:
		return NVL_ISA_SM86;
	case NVL_HW_COMPUTE_CLASS_ADA:
		return NVL_ISA_SM89;
	default:
		return NVL_ISA_SM90;
	}
}

/* code[0] with room for @n instructions (its words are kept) */
static int cs_code_room(struct cs_scratch *s, uint32_t n)
{
	uint32_t cap = s->code_cap[0] ? s->code_cap[0] : 16;
	uint64_t *p;

	while (cap < n)
		cap *= 2;
	if (cap == s->code_cap[0])
		return 0;
	p = nvl_realloc(s->code[0], 16ull * cap);
	if (!p)
		return -ENOMEM;
	s->code[0] = p;
	s->code_cap[0] = cap;
	return 0;
}

/*
 * Read instructions from *@have on into code[0], up to the end of the
 * 4 KiB block (every page size is a multiple of it, so it is mapped when
 * its first instruction is) and below @limit, in one access instead of
 * one per instruction.
 */
static int cs_code_read(struct nvl_model_chan *ch, struct cs_scratch *s,
			uint64_t va, uint32_t limit, uint32_t *have)
{
	uint64_t a = va + 16ull * *have;
	uint32_t k = (uint32_t)((4096 - (a & 4095)) / 16);
	int ret;

	k = k < limit - *have ? k : limit - *have;
	ret = cs_code_room(s, *have + k);
	if (!ret)
		ret = nvl_model_vm_access(ch->m, &ch->vm, a,
					  &s->code[0][2 * *have], 16ull * k,
					  false, cs_engine(ch), ch->chid);
	if (!ret)
		*have += k;
	return ret;
}

/*
 * Fetch the program at @va into code[1]: instructions up to the last one
 * reachable by falling through. *@bad: stopped at an undecodable word
 * (index *@n). When the last fetch was of the same address and
 * architecture, its words are read and compared first, a block at a time:
 * the same words end the same way, so the fetch is done without decoding
 * them again; at the first block that differs the fetch goes on as usual
 * from there (the same pages are read, in the same order, as without the
 * comparison, so a fault is the same too).
 * Return: 0, -EFAULT (reported), -ENOMEM.
 */
static int cs_fetch(struct nvl_model_chan *ch, struct cs_scratch *s,
		    uint64_t va, enum nvl_isa_arch arch, uint32_t *n, bool *bad)
{
	uint32_t have = 0, maxt = 0, i;
	int ret = 0;

	if (s->last_ok && s->last_va == va && s->last_arch == arch) {
		uint32_t want = s->last_n + s->last_bad, from;
		bool same = true;

		/* block by block: the fetch below would read the next block
		 * only if the words so far are the same (it ends where they
		 * end), so a block after a changed word is never read here */
		while (same && have < want) {
			from = have;
			ret = cs_code_read(ch, s, va, want, &have);
			if (ret)
				return ret;
			same = !memcmp(&s->code[0][2 * from],
				       &s->code[1][2 * from],
				       16ull * (have - from));
		}
		if (same) {
			*n = s->last_n;
			*bad = s->last_bad;
			return 0;
		}
	}
	*bad = false;
	for (i = 0; i < CS_MAX_INSN; i++) {
		struct nvl_isa_insn in;
		bool term = false;

		if (i == have) {
			ret = cs_code_read(ch, s, va, CS_MAX_INSN, &have);
			if (ret)
				return ret;
		}
		if (nvl_isa_decode(&s->code[0][2 * i], arch, &in)) {
			*bad = true;
			break;
		}
		for (unsigned k = 0; k < in.row->nopnd; k++) {
			int64_t t;

			if (in.op[k].kind != NVL_ISA_V_TARGET)
				continue;
			t = (int64_t)i + 1 + in.op[k].imm / 16;
			if (t > (int64_t)maxt && t < CS_MAX_INSN)
				maxt = (uint32_t)t;
		}
		if (in.guard == 7 && !in.guard_not &&
		    (in.row->sem == NVL_SEM_EXIT || in.row->sem == NVL_SEM_BRA))
			term = true;
		if (term && i >= maxt) {
			i++;
			break;
		}
	}
	/* these words are now the last fetch's */
	{
		uint64_t *c = s->code[1];
		uint32_t cap = s->code_cap[1];

		s->code[1] = s->code[0];
		s->code_cap[1] = s->code_cap[0];
		s->code[0] = c;
		s->code_cap[0] = cap;
	}
	s->last_ok = true;
	s->last_va = va;
	s->last_arch = arch;
	s->last_n = i;
	s->last_bad = *bad;
	*n = i;
	return 0;
}

static uint32_t cs_reason_err(enum nvl_cs_reason r)
{
	switch (r) {
	case NVL_CS_ILLEGAL_INSTRUCTION:
		return NVL_HW_COMPUTE_ERR_ILLEGAL_INSTRUCTION;
	case NVL_CS_PC_OUT_OF_RANGE:
		return NVL_HW_COMPUTE_ERR_PC_OUT_OF_RANGE;
	case NVL_CS_MISALIGNED:
		return NVL_HW_COMPUTE_ERR_MISALIGNED;
	case NVL_CS_SHARED_OUT_OF_BOUNDS:
		return NVL_HW_COMPUTE_ERR_SHARED_OUT_OF_BOUNDS;
	case NVL_CS_CONST_OUT_OF_BOUNDS:
		return NVL_HW_COMPUTE_ERR_CONST_OUT_OF_BOUNDS;
	case NVL_CS_DEADLOCK:
		return NVL_HW_COMPUTE_ERR_DEADLOCK;
	case NVL_CS_TIMEOUT:
		return NVL_HW_COMPUTE_ERR_TIMEOUT;
	case NVL_CS_HAZARD:
		return NVL_HW_COMPUTE_ERR_HAZARD;
	case NVL_CS_OUT_OF_RANGE_REGISTER:
		return NVL_HW_COMPUTE_ERR_OOR_REG;
	case NVL_CS_ILLEGAL_PARAM:
		return NVL_HW_COMPUTE_ERR_ILLEGAL_INSTR_PARAM;
	default:
		return NVL_HW_COMPUTE_ERR_BAD_QMD;
	}
}

/* run @l over the SM workers; 0, -EFAULT (fault reported), -ECANCELED
 * (the engine reset or the channel disabled: cs_aborted()) or an error
 * code for CHRAM_ERR_DATA in *@err */
static int cs_run_grid(struct nvl_model_chan *ch, struct cs_scratch *s,
		       const struct nvl_cs_launch *l, uint32_t bad_at,
		       uint32_t *err)
{
	uint64_t nctas = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
	unsigned nw = ch->m->compute_sms ? ch->m->compute_sms : 2;
	_Atomic bool stop = false;
	_Atomic uint64_t next = 0;
	uint64_t chunk;
	struct cs_worker *w;
	int ret = 0;

	/* a zero grid dimension is nvl_cs_run()'s bad shape, but no worker
	 * would run to say so: refused here, never released */
	if (!nctas) {
		nvl_info(NVL_CAT_MODEL, "compute: channel %u: grid %ux%ux%u",
			 ch->chid, l->grid[0], l->grid[1], l->grid[2]);
		*err = NVL_HW_COMPUTE_ERR_BAD_QMD;
		return -EIO;
	}
	nw = nw > CS_MAX_SMS ? CS_MAX_SMS : nw;
	if (nctas < nw)
		nw = (unsigned)nctas;
	if (s->w_cap < nw) {
		nvl_free(s->w);
		s->w_cap = 0;
		s->w = nvl_calloc(nw, sizeof(*s->w));
		if (!s->w)
			return -ENOMEM;
		s->w_cap = nw;
	}
	w = s->w;
	memset(w, 0, nw * sizeof(*w));
	/* CTAs are taken in chunks as the workers go (a worker the host
	 * runs less takes fewer): about CS_CHUNKS chunks per worker, of at
	 * most CS_CHUNK_MAX CTAs; a lone worker runs the whole grid */
	chunk = nctas / ((uint64_t)nw * CS_CHUNKS);
	chunk = chunk < 1 ? 1 : chunk > CS_CHUNK_MAX ? CS_CHUNK_MAX : chunk;
	for (unsigned i = 0; i < nw; i++) {
		w[i].ch = ch;
		w[i].l = *l;
		w[i].l.cta_next = nw > 1 ? &next : NULL;
		w[i].l.cta_chunk = (uint32_t)chunk;
		w[i].l.stop = &stop;
		w[i].l.aborted = cs_aborted;
		w[i].l.map_gen = &w[i].xgen;
		w[i].l.mem_ctx = &w[i];
		w[i].stop = &stop;
		/* each worker's section counter on its own stripe */
		w[i].hint = ch->chid + i;
	}
	/* worker 0 runs on the runlist thread, the others on the pool's */
	nvl_cs_pool_run(&s->pool, cs_worker_main, w, sizeof(*w), nw);
	for (unsigned i = 0; i < nw && !ret; i++) {
		struct nvl_cs_fault *f = &w[i].fault;

		/* a worker stopped by another's failure (or by a reset:
		 * below) reports nothing */
		if (!w[i].ret || w[i].ret == -ECANCELED)
			continue;
		if (f->reason == NVL_CS_GLOBAL_FAULT) {
			ret = -EFAULT;
			break;
		}
		ret = w[i].ret == -ENOMEM ? -ENOMEM : -EIO;
		*err = cs_reason_err(f->reason);
		/* running off the fetched program into the undecodable
		 * word that ended it executes that word */
		if (f->reason == NVL_CS_PC_OUT_OF_RANGE &&
		    f->pc == l->code_va + 16ull * bad_at)
			*err = NVL_HW_COMPUTE_ERR_ILLEGAL_INSTRUCTION;
		nvl_info(NVL_CAT_MODEL, "compute: channel %u: %s at 0x%llx",
			 ch->chid, nvl_cs_reason_name(f->reason),
			 (unsigned long long)f->pc);
	}
	for (unsigned i = 0; i < nw && !ret; i++)
		if (w[i].ret == -ECANCELED)
			ret = -ECANCELED;
	return ret;
}

struct cs_grid {
	uint32_t q[96];
	struct cs_scratch *s;
	const struct cs_qmd *d; /* the QMD's fields */
};

/* read and check the QMD at @qva; 0, -EFAULT, -EINVAL or -ENOMEM */
static int cs_setup(struct nvl_model_chan *ch,
		    const struct nvl_hw_qmd_layout *ly, uint64_t qva,
		    struct cs_grid *g, struct nvl_cs_launch *l,
		    uint32_t *bad_at)
{
	struct cs_scratch *s = g->s;
	const struct cs_qmd *d = &s->qd;
	bool bad;
	int ret;

	ret = nvl_model_vm_access(ch->m, &ch->vm, qva, g->q, ly->size_B, false,
				  cs_engine(ch), ch->chid);
	if (ret)
		return ret;
	if (s->qly != ly || memcmp(s->qwords, g->q, ly->size_B)) {
		cs_qmd_decode(ly, g->q, &s->qd);
		memcpy(s->qwords, g->q, ly->size_B);
		s->qly = ly;
	}
	g->d = d;
	if (d->bad_version || d->bad_release || d->bad_limits || d->bad_dep) {
		nvl_info(NVL_CAT_MODEL,
			 "compute: channel %u: bad QMD at 0x%llx (%s)",
			 ch->chid, (unsigned long long)qva,
			 d->bad_version	  ? "version or type"
			 : d->bad_release ? "release form"
			 : d->bad_limits  ? "register or barrier count"
					  : "dependent QMD action");
		return -EINVAL;
	}
	memcpy(l->grid, d->grid, sizeof(l->grid));
	memcpy(l->block, d->block, sizeof(l->block));
	l->shared_B = d->shared_B;
	l->limits = true;
	l->reg_count = d->reg_count;
	l->bar_count = d->bar_count;
	/* the banks in order, up to the first of a bad size (the banks
	 * before it are read, and may fault, first) */
	for (unsigned i = 0; i < 8; i++) {
		if (!(d->cb_valid & (1u << i)))
			continue;
		if ((int)i == d->bad_cb)
			return -EINVAL;
		ret = cs_room(&s->cbuf[i], &s->cbuf_cap[i], d->cb_size[i]);
		if (!ret)
			ret = nvl_model_vm_access(
				ch->m, &ch->vm, d->cb_va[i], s->cbuf[i],
				d->cb_size[i], false, cs_engine(ch), ch->chid);
		if (ret)
			return ret;
		l->cbuf[i] = s->cbuf[i];
		l->cbuf_B[i] = d->cb_size[i];
	}
	if (d->pva & 15)
		return -EINVAL;
	l->arch = cs_arch(ch->m->profile->compute_class);
	ret = cs_fetch(ch, s, d->pva, l->arch, &l->ninsn, &bad);
	if (ret)
		return ret;
	*bad_at = bad ? l->ninsn : UINT32_MAX;
	l->code = s->code[1];
	l->code_va = d->pva;
	l->translate = cs_translate;
	l->map = cs_map;
	l->max_warp_instrs = CS_BUDGET;
	return 0;
}

/* the QMD's release semaphore (fields @d), if enabled */
static int cs_release(struct nvl_model_chan *ch, const struct cs_qmd *d)
{
	uint64_t payload = d->release_payload, t;
	int ret;

	if (!d->release)
		return 0;
	/* the form and alignment were checked before the grid ran */
	if (d->reduce)
		ret = nvl_model_sem_reduce(ch, cs_engine(ch), d->release_va,
					   d->red_op, d->red_signed, false,
					   payload);
	else if (d->four_words)
		ret = 0; /* the timestamp first, then payload and zero */
	else
		ret = nvl_model_sem_access(ch, cs_engine(ch), d->release_va,
					   &payload, 4, true);
	if (!ret && d->four_words) {
		t = nvl_model_time_ns(ch->m);
		ret = nvl_model_sem_access(ch, cs_engine(ch), d->release_va + 8,
					   &t, 8, true);
		if (!ret && !d->reduce)
			ret = nvl_model_sem_access(ch, cs_engine(ch),
						   d->release_va, &payload, 8,
						   true);
	}
	if (!ret)
		nvl_model_fifo_sem_released(ch->m);
	return ret;
}

/* run the grid of the QMD at @qva and write its release; *@next: the
 * dependent QMD to launch now (0: none) */
static int cs_grid(struct nvl_model_chan *ch,
		   const struct nvl_hw_qmd_layout *ly, struct cs_grid *g,
		   uint64_t qva, uint32_t *err, uint64_t *next)
{
	struct nvl_cs_launch l = {0};
	uint32_t bad_at = UINT32_MAX;
	int ret;

	*next = 0;
	ret = cs_setup(ch, ly, qva, g, &l, &bad_at);
	if (!ret && !l.ninsn) {
		ret = -EIO; /* the first word is undecodable */
		*err = NVL_HW_COMPUTE_ERR_ILLEGAL_INSTRUCTION;
	}
	if (!ret)
		ret = cs_run_grid(ch, g->s, &l, bad_at, err);
	if (!ret)
		ret = cs_release(ch, g->d);
	ch->compute.launches++;
	if (!ret && g->d->dep)
		*next = g->d->dep_va;
	return ret;
}

/*
 * SEND_PCAS_A's QMD, then each DEPENDENT_QMD0 it names as the grid before
 * completes (its release written first), up to CS_MAX_CHAIN grids: a
 * dependent pointer to unmapped memory faults like any QMD read, a loop
 * stops with TIMEOUT, and a reset or disable between two grids stops the
 * chain as it stops a grid.
 */
static int cs_launch(struct nvl_model_chan *ch, uint32_t mthd)
{
	const struct nvl_hw_qmd_layout *ly =
		nvl_hw_qmd_layout_of(ch->m->profile->compute_class);
	struct cs_grid g = {.d = NULL};
	uint32_t err = NVL_HW_COMPUTE_ERR_BAD_QMD;
	uint64_t qva = (uint64_t)ch->compute.pcas_a << 8;
	bool own = false;
	int ret;

	g.s = cs_scratch_get(&own);
	if (!g.s)
		ret = -ENOMEM;
	else if (!ly)
		ret = -EINVAL;
	else
		ret = cs_grid(ch, ly, &g, qva, &err, &qva);
	for (unsigned n = 1; !ret && qva; n++) {
		struct cs_worker w = {.ch = ch};

		if (n == CS_MAX_CHAIN) {
			nvl_info(NVL_CAT_MODEL,
				 "compute: channel %u: %u dependent QMDs "
				 "in a row (0x%llx next): stopped",
				 ch->chid, n, (unsigned long long)qva);
			ret = -EIO;
			err = NVL_HW_COMPUTE_ERR_TIMEOUT;
		} else if (cs_aborted(&w)) {
			ret = -ECANCELED;
		} else {
			ret = cs_grid(ch, ly, &g, qva, &err, &qva);
		}
	}
	if (own)
		cs_scratch_free(g.s);
	if (ret == -ECANCELED)
		return NVL_MODEL_MTHD_STOP; /* reset or disable: caller blames */
	if (ret == -ENOMEM)
		err = NVL_HW_COMPUTE_ERR_NO_MEMORY;
	if (ret == -EFAULT) {
		nvl_model_chan_fault(ch, true, mthd);
		return NVL_MODEL_MTHD_STOP;
	}
	if (ret) {
		nvl_model_chan_error(ch, NVL_HW_CHERR_COMPUTE, mthd, err);
		return NVL_MODEL_MTHD_STOP;
	}
	return NVL_MODEL_MTHD_OK;
}

int nvl_model_compute_method(struct nvl_model_chan *ch, uint32_t mthd,
			     uint32_t data)
{
	struct nvl_model_compute_state *cs = &ch->compute;
	uint32_t cls = ch->m->profile->compute_class;

	switch (mthd) {
	case NVL_HW_COMPUTE_NO_OPERATION:
	case NVL_HW_COMPUTE_INVALIDATE_SHADER_CACHES:
	case NVL_HW_COMPUTE_INVALIDATE_SHADER_CACHES_NO_WFI:
	case NVL_HW_COMPUTE_INVALIDATE_SKED_CACHES:
	case NVL_HW_COMPUTE_SEND_PCAS_B:
		/* the model caches nothing between grids */
		return NVL_MODEL_MTHD_OK;
	case NVL_HW_COMPUTE_SET_SHADER_SHARED_MEMORY_WINDOW_A:
		cs->shared_window_a = data & 0x1ffff;
		break;
	case NVL_HW_COMPUTE_SET_SHADER_SHARED_MEMORY_WINDOW_B:
		cs->shared_window_b = data;
		break;
	case NVL_HW_COMPUTE_SET_SHADER_LOCAL_MEMORY_A:
		cs->local_a = data;
		break;
	case NVL_HW_COMPUTE_SET_SHADER_LOCAL_MEMORY_B:
		cs->local_b = data;
		break;
	case NVL_HW_COMPUTE_SET_SHADER_LOCAL_MEMORY_WINDOW_A:
		cs->local_window_a = data;
		break;
	case NVL_HW_COMPUTE_SET_SHADER_LOCAL_MEMORY_WINDOW_B:
		cs->local_window_b = data;
		break;
	case NVL_HW_COMPUTE_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_A:
		cs->local_nt_a = data;
		break;
	case NVL_HW_COMPUTE_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_B:
		cs->local_nt_b = data;
		break;
	case NVL_HW_COMPUTE_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_C:
		cs->local_nt_c = data;
		break;
	case NVL_HW_COMPUTE_SEND_PCAS_A:
		cs->pcas_a = data;
		break;
	case NVL_HW_COMPUTE_SEND_SIGNALING_PCAS_B:
		if (nvl_hw_compute_has_pcas2(cls))
			goto bad;
		if (data & NVL_HW_COMPUTE_PCAS_B_SCHEDULE)
			return cs_launch(ch, mthd);
		break;
	case NVL_HW_COMPUTE_SEND_SIGNALING_PCAS2_B:
		if (!nvl_hw_compute_has_pcas2(cls))
			goto bad;
		if (nvl_hw_compute_pcas2_schedules(data & 0xf))
			return cs_launch(ch, mthd);
		break;
	default:
		goto bad;
	}
	return NVL_MODEL_MTHD_OK;
bad:
	nvl_model_chan_error(ch, NVL_HW_CHERR_METHOD, mthd, data);
	return NVL_MODEL_MTHD_STOP;
}

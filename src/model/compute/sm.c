// SPDX-License-Identifier: MIT
/*
 * DOC: SM interpreter, scheduling and control flow
 *
 * A launch runs its CTAs one after the other on the calling thread. Within
 * a CTA the warps take turns: each runs until it finishes or reaches
 * BAR.SYNC; when every live warp waits at the barrier, all go on.
 *
 * Within a warp every lane has its own PC (Volta's independent thread
 * scheduling, simplified): the group of runnable lanes with the lowest PC
 * runs; a divergent branch parks the lanes going elsewhere; lanes parked at
 * the PC the group reaches join it. BSSY records a barrier mask, BSYNC
 * parks the arriving lanes until every live lane of the mask has arrived
 * (exited lanes and BREAK leave the mask), then they go on together.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "base/alloc.h"
#include "base/log.h"
#include "model/compute/priv.h"

static const char *const reason_names[] = {
	[NVL_CS_OK] = "ok",
	[NVL_CS_ILLEGAL_INSTRUCTION] = "illegal instruction",
	[NVL_CS_PC_OUT_OF_RANGE] = "PC out of range",
	[NVL_CS_MISALIGNED] = "misaligned address",
	[NVL_CS_SHARED_OUT_OF_BOUNDS] = "shared memory out of bounds",
	[NVL_CS_CONST_OUT_OF_BOUNDS] = "constant buffer out of bounds",
	[NVL_CS_GLOBAL_FAULT] = "global memory fault",
	[NVL_CS_DEADLOCK] = "barrier deadlock",
	[NVL_CS_TIMEOUT] = "instruction budget exhausted",
	[NVL_CS_HAZARD] = "register hazard (missing scoreboard wait)",
	[NVL_CS_OUT_OF_RANGE_REGISTER] = "register out of range",
	[NVL_CS_ILLEGAL_PARAM] = "illegal instruction parameter",
};

const char *nvl_cs_reason_name(enum nvl_cs_reason r)
{
	if ((unsigned)r >= sizeof(reason_names) / sizeof(reason_names[0]))
		return "?";
	return reason_names[r];
}

static inline uint32_t popcount32(uint32_t x)
{
	x = x - ((x >> 1) & 0x55555555u);
	x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
	x = (x + (x >> 4)) & 0x0f0f0f0fu;
	return (x * 0x01010101u) >> 24;
}

/* release BSYNC barriers that every live lane of their mask reached */
static void release_bsync(struct cs_warp *w)
{
	for (uint32_t bs = w->bwset; bs; bs &= bs - 1) {
		int b = __builtin_ctz(bs);
		uint32_t need, lanes;

		need = w->bmask[b] & w->valid & ~w->exited;
		if (need & ~w->bwait[b])
			continue;
		lanes = w->bwait[b];
		w->bwait[b] = 0;
		w->bwset &= ~(1u << b);
		for (uint32_t m = lanes; m; m &= m - 1)
			w->lane_pc[__builtin_ctz(m)] = w->bwait_pc[b] + 1;
		w->parked |= lanes;
	}
}

/* pick the lowest-PC group of parked lanes; 1 = the warp is done */
static int reselect(struct cs_cta *cta, struct cs_warp *w)
{
	uint32_t minpc = UINT32_MAX, grp = 0;

	if (w->bwset)
		release_bsync(w);
	if (!w->parked) {
		if (w->bwset) {
			int b = __builtin_ctz(w->bwset);

			return cs_fail(cta, w, NVL_CS_DEADLOCK,
				       (uint32_t)__builtin_ctz(w->bwait[b]), 0);
		}
		w->done = true;
		return 1;
	}
	for (uint32_t m = w->parked; m; m &= m - 1) {
		int i = __builtin_ctz(m);

		if (w->lane_pc[i] < minpc) {
			minpc = w->lane_pc[i];
			grp = 0;
		}
		if (w->lane_pc[i] == minpc)
			grp |= 1u << i;
	}
	w->pc = minpc;
	w->active = grp;
	w->parked &= ~grp;
	return 0;
}

static void park(struct cs_warp *w, uint32_t lanes, uint32_t pc)
{
	for (uint32_t m = lanes; m; m &= m - 1)
		w->lane_pc[__builtin_ctz(m)] = pc;
	w->parked |= lanes;
}

static void merge(struct cs_warp *w)
{
	uint32_t join = 0;

	for (uint32_t m = w->parked; m; m &= m - 1) {
		int i = __builtin_ctz(m);

		if (w->lane_pc[i] == w->pc)
			join |= 1u << i;
	}
	w->active |= join;
	w->parked &= ~join;
}

static uint32_t pred(const struct cs_warp *w, const struct nvl_isa_val *v)
{
	uint32_t m = w->p[v->reg];

	return v->not_ ? ~m : m;
}

/* the operand at field @lo of the row (control-flow operands) */
static const struct nvl_isa_val *opnd_at(const struct cs_insn *ci, unsigned lo)
{
	for (unsigned i = 0; i < ci->in.row->nopnd; i++)
		if (ci->in.row->opnd[i].lo == lo)
			return &ci->in.op[i];
	return NULL;
}

/*
 * Lanes @t take branch @ci to a target outside the program (before its
 * first instruction, or past the end by more than one): the PC error is
 * reported at the target's byte address (modulo 2^64), which an
 * instruction index cannot hold.
 */
static int cs_far_branch(struct cs_cta *cta, struct cs_warp *w,
			 const struct cs_insn *ci, uint32_t t)
{
	const struct nvl_isa_val *v = opnd_at(ci, 34);
	uint64_t next =
		cta->l->code_va + 16ull * (uint64_t)(ci - cta->prog + 1);
	int ret = cs_fail(cta, w, NVL_CS_PC_OUT_OF_RANGE,
			  (uint32_t)__builtin_ctz(t), 0);

	cta->fault->pc = next + (uint64_t)(v ? v->imm : 0);
	return ret;
}

/* BAR mode, bits 78:77: SYNC 0, ARV 1, RED 2, SCAN 3 */
static unsigned bar_mode(const struct cs_insn *ci)
{
	return ci->mv[77] < 0 ? 0 : (unsigned)ci->mv[77];
}

/*
 * Every NVL_CS_POLL_SLICE warp instructions: -ECANCELED when the run was
 * asked to stop (another worker failed, the engine was reset, the
 * channel disabled), so that a CTA that never ends does not hold the
 * engine until its budget runs out.
 */
static int cs_poll(struct cs_cta *cta)
{
	const struct nvl_cs_launch *l = cta->l;

	cta->poll_at = cta->budget > NVL_CS_POLL_SLICE
			       ? cta->budget - NVL_CS_POLL_SLICE
			       : 0;
	if ((l->stop && atomic_load_explicit(l->stop, memory_order_relaxed)) ||
	    (l->aborted && l->aborted(l->mem_ctx)))
		return -ECANCELED;
	cs_tlb_sync(cta);
	return 0;
}

/*
 * The QMD's REGISTER_COUNT and BARRIER_COUNT (a launch whose program
 * exceeds one: cta->check_limits): issuing an instruction that names a
 * GPR the warp was not given is the SM's OOR_REG warp error; a BAR naming
 * a barrier the CTA was not given, ILLEGAL_INSTR_PARAM. Checked at issue,
 * whatever the guard (⚠ the model's choice: the headers name the errors,
 * not when they are raised).
 */
static int cs_limits(struct cs_cta *cta, struct cs_warp *w,
		     const struct cs_insn *ci)
{
	const struct nvl_cs_launch *l = cta->l;
	uint32_t lane = (uint32_t)__builtin_ctz(w->active);

	if (ci->gprs > l->reg_count)
		return cs_fail(cta, w, NVL_CS_OUT_OF_RANGE_REGISTER, lane,
			       ci->gprs - 1u);
	if (ci->bars > l->bar_count)
		return cs_fail(cta, w, NVL_CS_ILLEGAL_PARAM, lane,
			       ci->bars - 1u);
	return 0;
}

/* run warp @w until it finishes, waits at BAR.SYNC, or fails */
static int run_warp(struct cs_cta *cta, struct cs_warp *w)
{
	const struct nvl_cs_launch *l = cta->l;
	int ret;

	for (;;) {
		const struct cs_insn *ci;
		const struct nvl_isa_val *pv;
		uint32_t g, exec, t;

		if (!w->active) {
			ret = reselect(cta, w);
			if (ret)
				return ret > 0 ? 0 : ret;
		}
		if (cta->budget <= cta->poll_at) {
			ret = cs_poll(cta);
			if (ret)
				return ret;
		}
		/* a converged warp runs pre-decoded instructions in a loop */
		if (!w->parked && !l->check_hazards && !l->generic_only &&
		    !cta->check_limits) {
			ret = cs_run_fast(cta, w);
			if (ret)
				return ret;
			if (!w->active)
				continue;
		}
		if (w->pc >= l->ninsn)
			return cs_fail(cta, w, NVL_CS_PC_OUT_OF_RANGE,
				       (uint32_t)__builtin_ctz(w->active), 0);
		if (!cta->budget--)
			return cs_fail(cta, w, NVL_CS_TIMEOUT, 0, 0);
		ci = &cta->prog[w->pc];
		cta->stats->warp_instrs++;
		cta->stats->thread_instrs += popcount32(w->active);
		cta->clock++;
		if (ci->uniform)
			g = (w->up >> ci->in.guard) & 1 ? NVL_CS_ALL : 0;
		else
			g = w->p[ci->in.guard];
		if (ci->in.guard_not)
			g = ~g;
		exec = w->active & g;
		if (cta->check_limits) {
			ret = cs_limits(cta, w, ci);
			if (ret)
				return ret;
		}
		if (l->check_hazards) {
			ret = cs_hazard_check(cta, w, ci);
			if (ret)
				return ret;
			cs_hazard_track(w, ci);
		}

		switch (ci->in.row->sem) {
		case NVL_SEM_BRA:
			pv = opnd_at(ci, 87);
			t = exec & pred(w, pv);
			if (t && ci->target < 0)
				return cs_far_branch(cta, w, ci, t);
			if (t == w->active) {
				w->pc = (uint32_t)ci->target;
				merge(w);
				continue;
			}
			if (t) {
				park(w, t, (uint32_t)ci->target);
				park(w, w->active & ~t, w->pc + 1);
				w->active = 0;
				continue;
			}
			break;
		case NVL_SEM_BSSY:
			if (exec)
				w->bmask[opnd_at(ci, 16)->reg] = exec;
			break;
		case NVL_SEM_BSYNC: {
			unsigned b = opnd_at(ci, 16)->reg;

			if (!exec)
				break;
			w->bwait[b] |= exec;
			w->bwset |= 1u << b;
			w->bwait_pc[b] = w->pc;
			w->active &= ~exec;
			if (w->active)
				park(w, w->active, w->pc + 1);
			w->active = 0;
			continue;
		}
		case NVL_SEM_BREAK:
			pv = opnd_at(ci, 87);
			w->bmask[opnd_at(ci, 16)->reg] &= ~(exec & pred(w, pv));
			break;
		case NVL_SEM_EXIT:
			pv = opnd_at(ci, 87);
			t = exec & pred(w, pv);
			w->exited |= t;
			w->active &= ~t;
			if (!w->active)
				continue;
			break;
		case NVL_SEM_WARPSYNC:
			break;
		case NVL_SEM_BAR:
			if (!exec || bar_mode(ci) == 1)
				break;
			if (bar_mode(ci) != 0)
				return cs_fail(cta, w,
					       NVL_CS_ILLEGAL_INSTRUCTION, 0,
					       0);
			w->pc++;
			merge(w);
			w->at_bar = true;
			return 0;
		default:
			if (exec || ci->uniform) {
				if (ci->uniform && !g)
					break;
				if (ci->fast.kind == CS_FAST_OP &&
				    !l->generic_only &&
				    cs_fast_kok(cta, &ci->fast)) {
					ci->fast.fn(w, &ci->fast, exec);
					break;
				}
				ret = cs_exec(cta, w, ci,
					      ci->uniform ? w->active | 1
							  : exec);
				if (ret)
					return ret;
			}
			break;
		}
		w->pc++;
		if (w->parked)
			merge(w);
	}
}

static int run_cta(struct cs_cta *cta)
{
	for (;;) {
		bool live = false, waiting = true;

		for (uint32_t i = 0; i < cta->nwarps; i++) {
			struct cs_warp *w = &cta->warps[i];
			int ret;

			if (w->done || w->at_bar)
				continue;
			ret = run_warp(cta, w);
			if (ret)
				return ret;
		}
		for (uint32_t i = 0; i < cta->nwarps; i++) {
			if (cta->warps[i].done)
				continue;
			live = true;
			waiting &= cta->warps[i].at_bar;
		}
		if (!live)
			return 0;
		if (!waiting)
			continue;
		/* every live warp is at the barrier: release them */
		for (uint32_t i = 0; i < cta->nwarps; i++)
			cta->warps[i].at_bar = false;
	}
}

/* @shape: compute the lanes' thread ids (the same for every CTA of a
 * grid: done for the first CTA only) */
static void init_warp(struct cs_cta *cta, struct cs_warp *w, uint32_t id,
		      bool shape)
{
	const struct nvl_cs_launch *l = cta->l;
	uint32_t nthreads = l->block[0] * l->block[1] * l->block[2];

	/* the rows a lane may read before writing them (zero_rows()); RZ's
	 * row is zeroed once per run (nothing writes it); the uniform
	 * registers only for a program that can see them */
	for (uint32_t i = 0; i < cta->pr->nzr; i++)
		memset(w->r[cta->pr->zr[i][0]], 0,
		       sizeof(w->r[0]) * cta->pr->zr[i][1]);
	if (cta->pr->uses_ur)
		memset(w->ur, 0, sizeof(w->ur));
	memset(w->p, 0, sizeof(w->p));
	w->p[NVL_ISA_PT] = NVL_CS_ALL;
	w->up = 0x80;
	w->krow = (const uint32_t(*)[NVL_CS_LANES])cta->krow;
	if (shape) {
		/* thread t = id * 32 + lane: its x, y, z counted up from
		 * the warp's first thread (one division per warp) */
		uint32_t t = id * NVL_CS_LANES, xy = l->block[0] * l->block[1];
		uint32_t x = t % l->block[0], y = t / l->block[0] % l->block[1];
		uint32_t z = t / xy;

		w->valid = 0;
		for (uint32_t lane = 0; lane < NVL_CS_LANES; lane++, t++) {
			if (t < nthreads)
				w->valid |= 1u << lane;
			w->tid[0][lane] = x;
			w->tid[1][lane] = y;
			w->tid[2][lane] = z;
			if (++x == l->block[0]) {
				x = 0;
				if (++y == l->block[1]) {
					y = 0;
					z++;
				}
			}
		}
	}
	w->exited = 0;
	w->active = w->valid;
	w->pc = 0;
	w->parked = 0;
	memset(w->bmask, 0, sizeof(w->bmask));
	/* bwait[b] is non-zero exactly when bit b of bwset is set */
	for (uint32_t bs = w->bwset; bs; bs &= bs - 1)
		w->bwait[__builtin_ctz(bs)] = 0;
	w->bwset = 0;
	if (l->check_hazards) {
		memset(w->pend, 0, sizeof(w->pend));
		memset(w->rpend, 0, sizeof(w->rpend));
	}
	w->at_bar = false;
	w->done = false;
	w->id = id;
	memcpy(w->ctaid, cta->ctaid, sizeof(w->ctaid));
}

/*
 * The warps of a run, its shared memory and its constant rows come from
 * buffers kept per thread (the runlist thread and the SM workers run grid
 * after grid): a warp is 35 KiB, and allocating it per launch cost more
 * than running a small kernel (the allocator consolidates its free lists
 * for a block that size). Grown when a run needs more; freed when the
 * thread exits, and at its next run after nvl_cs_cache_clear().
 */
struct warp_buf {
	uint64_t gen; /* nvl_cs_cache_gen() when filled */
	uint8_t *shared;
	uint32_t shared_cap;
	uint32_t (*krow)[NVL_CS_LANES];
	uint8_t *kok;
	uint32_t krow_cap;
	uint32_t n;
	struct cs_warp *w;
	/* the thread ids (tid, valid) of the first shape_n warps are those
	 * of a block of shape[] threads (computed by an earlier run) */
	uint32_t shape[3], shape_n;
	/* the last run's program, referenced (cs_prog_get()'s @keep; kept
	 * when the buffers above are dropped) */
	struct cs_prog *prog;
};

static pthread_key_t warp_key;
static bool warp_key_ok;
static pthread_once_t warp_once = PTHREAD_ONCE_INIT;

static void warp_buf_empty(struct warp_buf *b)
{
	struct cs_prog *prog = b->prog;

	nvl_free(b->shared);
	nvl_free(b->krow);
	nvl_free(b->kok);
	nvl_free(b->w);
	memset(b, 0, sizeof(*b));
	b->prog = prog;
}

static void warp_buf_free(void *p)
{
	struct warp_buf *b = p;

	if (b) {
		cs_prog_keep_drop(&b->prog);
		warp_buf_empty(b);
	}
	nvl_free(b);
}

static void warp_key_init(void)
{
	warp_key_ok = !pthread_key_create(&warp_key, warp_buf_free);
}

/* this thread's buffers (*@own: the caller frees them: no per-thread
 * slot), or NULL */
static struct warp_buf *warps_buf(bool *own)
{
	struct warp_buf *b = NULL;
	uint64_t gen = nvl_cs_cache_gen();

	pthread_once(&warp_once, warp_key_init);
	*own = !warp_key_ok;
	if (warp_key_ok)
		b = pthread_getspecific(warp_key);
	if (b) {
		if (b->gen != gen) {
			warp_buf_empty(b);
			b->gen = gen;
		}
		return b;
	}
	b = nvl_zalloc(sizeof(*b));
	if (!b)
		return NULL;
	b->gen = gen;
	if (warp_key_ok && pthread_setspecific(warp_key, b))
		*own = true;
	return b;
}

/* this thread's buffers if it has any yet (no allocation), or NULL;
 * *@fresh: filled since the last nvl_cs_cache_clear() */
static struct warp_buf *warps_buf_peek(bool *fresh)
{
	struct warp_buf *b;

	pthread_once(&warp_once, warp_key_init);
	if (!warp_key_ok)
		return NULL;
	b = pthread_getspecific(warp_key);
	*fresh = b && b->gen == nvl_cs_cache_gen();
	return b;
}

/* room in @b for @nwarps warps, @shared_B bytes of shared memory and
 * @nkrow constant rows; -ENOMEM (what @b had stays usable) */
static int warps_room(struct warp_buf *b, uint32_t nwarps, uint32_t shared_B,
		      uint32_t nkrow)
{
	shared_B = shared_B ? shared_B : 1;
	nkrow = nkrow ? nkrow : 1;
	if (b->n < nwarps) {
		struct cs_warp *w =
			nvl_aligned_alloc(64, sizeof(*w) * (size_t)nwarps);

		if (!w)
			return -ENOMEM;
		/* init_warp clears only the BSYNC waits bwset names and the
		 * registers a lane may read before writing them: the rest
		 * starts as zeros here, never as the heap's old bytes */
		memset(w, 0, sizeof(*w) * (size_t)nwarps);
		nvl_free(b->w);
		b->w = w;
		b->n = nwarps;
		b->shape_n = 0;
	}
	if (b->shared_cap < shared_B) {
		uint8_t *p = nvl_malloc(shared_B);

		if (!p)
			return -ENOMEM;
		nvl_free(b->shared);
		b->shared = p;
		b->shared_cap = shared_B;
	}
	if (b->krow_cap < nkrow) {
		uint32_t(*k)[NVL_CS_LANES] =
			nvl_aligned_alloc(64, sizeof(*k) * (size_t)nkrow);
		uint8_t *ok = k ? nvl_malloc(nkrow) : NULL;

		if (!ok) {
			nvl_free(k);
			return -ENOMEM;
		}
		nvl_free(b->krow);
		nvl_free(b->kok);
		b->krow = k;
		b->kok = ok;
		b->krow_cap = nkrow;
	}
	return 0;
}

/* registers @ci reads or writes (@n entries of first, count) into @set */
static void reg_set(uint64_t set[4], const uint8_t (*r)[2], unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		for (unsigned k = 0; k < r[i][1] && r[i][0] + k < NVL_ISA_RZ;
		     k++)
			set[(r[i][0] + k) / 64] |= 1ull << ((r[i][0] + k) % 64);
}

/* instructions whose GPR reads and writes cs_prepare() records exactly */
static bool regs_exact(const struct cs_insn *ci)
{
	switch (ci->in.row->sem) {
	case NVL_SEM_MOV:
	case NVL_SEM_S2R:
	case NVL_SEM_IADD3:
	case NVL_SEM_IMAD:
	case NVL_SEM_IMAD_WIDE:
	case NVL_SEM_LOP3:
	case NVL_SEM_SHF:
	case NVL_SEM_ISETP:
	case NVL_SEM_SEL:
	case NVL_SEM_FADD:
	case NVL_SEM_FMUL:
	case NVL_SEM_FFMA:
	case NVL_SEM_LDG:
	case NVL_SEM_STG:
	case NVL_SEM_EXIT:
		return !ci->uniform;
	default:
		return false;
	}
}

/*
 * Which register rows a warp must start with zeroed (p->zr), instead of
 * all nregs: a row the program's entry run writes before any lane can
 * read it is never seen as it was. The entry run is the instructions from
 * the first on, up to the first branch, barrier, convergence instruction,
 * unconditional EXIT or instruction whose register use is not exactly
 * known (regs_exact()): the lanes run it together, every lane that is not
 * exited runs each of its instructions, and a lane can only leave it at
 * its end or exit. So a register an unguarded instruction of the run
 * writes is written, for every lane still running, before anything after
 * the run (or a branch back into it) reads it; only the rows read inside
 * the run before that write, or never written in it, are cleared. Lanes
 * that exited inside the run, or do not exist, keep what the buffer held:
 * a program that can read another lane's registers (SHFL) clears them all.
 * When every instruction's register use is known, a row no instruction
 * reads is not cleared either.
 */
static void zero_rows(struct cs_prog *p)
{
	uint64_t wr[4] = {0}, zero[4] = {0}, any[4] = {0};
	bool all = false;
	unsigned run = 0;

	for (uint32_t i = 0; i < p->ninsn && !all; i++) {
		const struct cs_insn *ci = &p->insn[i];

		all = ci->in.row->sem == NVL_SEM_SHFL;
		/* the rows any instruction reads, when all are known */
		if (regs_exact(ci))
			reg_set(any, ci->rd, ci->nrd);
		else if (ci->in.row->sem != NVL_SEM_BRA)
			memset(any, 0xff, sizeof(any));
	}
	for (uint32_t i = 0; i < p->ninsn && !all; i++) {
		const struct cs_insn *ci = &p->insn[i];
		uint64_t rd[4] = {0};
		bool guarded = ci->in.guard != NVL_ISA_PT || ci->in.guard_not;

		if (!regs_exact(ci))
			break;
		if (ci->in.row->sem == NVL_SEM_EXIT) {
			if (!guarded && ci->fast.kind == CS_FAST_EXIT &&
			    ci->fast.ps0 == NVL_ISA_PT && !ci->fast.ps0_xor)
				break;
			continue;
		}
		reg_set(rd, ci->rd, ci->nrd);
		for (unsigned k = 0; k < 4; k++)
			zero[k] |= rd[k] & ~wr[k];
		if (!guarded)
			reg_set(wr, ci->wr, ci->nwr);
	}
	p->nzr = 0;
	for (uint32_t r = 0; r < p->nregs && !all; r++) {
		bool need = ((zero[r / 64] >> (r % 64) & 1) ||
			     !(wr[r / 64] >> (r % 64) & 1)) &&
			    (any[r / 64] >> (r % 64) & 1);

		if (!need)
			continue;
		if (run && p->zr[run - 1][0] + p->zr[run - 1][1] == r) {
			p->zr[run - 1][1]++;
			continue;
		}
		if (run == CS_ZERO_RUNS) {
			all = true;
			break;
		}
		p->zr[run][0] = (uint8_t)r;
		p->zr[run][1] = 1;
		run++;
	}
	p->nzr = (uint8_t)run;
	if (all) {
		p->zr[0][0] = 0;
		p->zr[0][1] = (uint8_t)p->nregs;
		p->nzr = 1;
	}
}

/*
 * @ci's gprs (nvl_isa_gpr_end(): pairs and quads whole, as the driver
 * counts them for REGISTER_COUNT) and bars (BAR's barrier, operand 0: an
 * immediate, only 0 encodes in the table).
 */
static void insn_limits(struct cs_insn *ci)
{
	ci->gprs = (uint8_t)nvl_isa_gpr_end(&ci->in);
	ci->bars = ci->in.row->sem == NVL_SEM_BAR
			   ? (uint8_t)(ci->in.op[0].imm + 1)
			   : 0;
}

int cs_decode_program(const struct nvl_cs_launch *l, struct cs_prog *p,
		      struct nvl_cs_fault *fault)
{
	struct cs_insn *prog = p->insn;
	uint32_t *nregs = &p->nregs;

	*nregs = 1;
	for (uint32_t i = 0; i < l->ninsn; i++) {
		struct cs_insn *ci = &prog[i];
		const struct nvl_isa_row *row;

		if (nvl_isa_decode(&l->code[2 * i], l->arch, &ci->in)) {
			fault->reason = NVL_CS_ILLEGAL_INSTRUCTION;
			fault->pc = l->code_va + 16ull * i;
			return nvl_error(-EINVAL,
					 "compute: instruction at "
					 "0x%llx: %s",
					 (unsigned long long)fault->pc,
					 nvl_error_msg());
		}
		row = ci->in.row;
		cs_prepare(ci);
		ci->uniform = row->flags & NVL_ISA_R_UNIFORM;
		p->uses_ur |= ci->uniform;
		ci->target = -1;
		for (unsigned k = 0; k < row->nopnd; k++) {
			const struct nvl_isa_val *v = &ci->in.op[k];
			int64_t t;

			if (v->kind == NVL_ISA_V_UR)
				p->uses_ur = true;
			if (v->kind == NVL_ISA_V_TARGET) {
				if (v->imm % 16) {
					fault->reason =
						NVL_CS_ILLEGAL_INSTRUCTION;
					fault->pc = l->code_va + 16ull * i;
					return nvl_error(
						-EINVAL,
						"compute: branch at "
						"0x%llx not to an "
						"instruction",
						(unsigned long long)fault->pc);
				}
				t = (int64_t)i + 1 + v->imm / 16;
				/* outside the program: taking it is a PC
				 * error at the target (cs_far_branch()) */
				ci->target = t >= 0 && t <= l->ninsn
						     ? (int32_t)t
						     : -2;
			}
			if ((v->kind == NVL_ISA_V_R ||
			     v->kind == NVL_ISA_V_MEM) &&
			    v->reg != NVL_ISA_RZ && v->reg + 4u > *nregs)
				*nregs = v->reg + 4u > NVL_ISA_RZ ? NVL_ISA_RZ
								  : v->reg + 4u;
		}
		cs_predecode(ci);
		if (cs_fast_krefs(p, &ci->fast))
			return -ENOMEM;
		insn_limits(ci);
		p->gprs = ci->gprs > p->gprs ? ci->gprs : p->gprs;
		p->bars = ci->bars > p->bars ? ci->bars : p->bars;
	}
	zero_rows(p);
	return 0;
}

/*
 * The next CTAs of a run, linear indices [*@next, *@last): the whole grid
 * at once, or the next chunk from the grid's shared counter (the launch
 * path's SM workers take CTAs as they go). False when none is left.
 */
static bool next_ctas(const struct nvl_cs_launch *l, uint64_t *next,
		      uint64_t *last)
{
	uint64_t n = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
	uint64_t chunk = l->cta_chunk ? l->cta_chunk : 1;

	if (!l->cta_next) {
		if (*last)
			return false;
		*next = 0;
		*last = n;
		return true;
	}
	*next = atomic_fetch_add_explicit(l->cta_next, chunk,
					  memory_order_relaxed);
	if (*next >= n)
		return false;
	*last = *next + chunk < n ? *next + chunk : n;
	return true;
}

int nvl_cs_run(const struct nvl_cs_launch *l, struct nvl_cs_fault *fault,
	       struct nvl_cs_stats *stats)
{
	struct nvl_cs_fault dummy_fault;
	struct nvl_cs_stats dummy_stats, st = {0};
	struct cs_cta cta = {.l = l};
	uint32_t nthreads;
	uint64_t threads, next = 0, last = 0;
	struct cs_prog *prog;
	struct warp_buf *wb;
	struct cs_prog **keep;
	bool hit, shaped = false, own_wb, fresh = false;
	int ret;

	if (!fault)
		fault = &dummy_fault;
	if (!stats)
		stats = &dummy_stats;
	memset(fault, 0, sizeof(*fault));
	memset(stats, 0, sizeof(*stats));
	if (!l->code || !l->ninsn || !l->translate ||
	    (unsigned)l->arch >= NVL_ISA_ARCH_COUNT)
		return nvl_error(-EINVAL, "compute: launch without program, "
					  "memory or architecture");
	/* in 64 bits: three 16-bit QMD fields can wrap 32 (33025 x 65026 x
	 * 2 is 4 modulo 2^32) */
	threads = (uint64_t)l->block[0] * l->block[1] * l->block[2];
	nthreads = (uint32_t)threads;
	if (!l->block[0] || !l->block[1] || !l->block[2] || threads > 1024 ||
	    !l->grid[0] || !l->grid[1] || !l->grid[2])
		return nvl_error(-EINVAL,
				 "compute: bad launch shape "
				 "(block %ux%ux%u, at most 1024 "
				 "threads; grid %ux%ux%u)",
				 l->block[0], l->block[1], l->block[2],
				 l->grid[0], l->grid[1], l->grid[2]);
	/* the thread's last program first: no lock when it is the same */
	wb = warps_buf_peek(&fresh);
	keep = wb ? &wb->prog : NULL;
	ret = cs_prog_get(l, fault, keep, fresh, &prog, &hit);
	if (ret)
		return ret;
	cta.prog = prog->insn;
	cta.pr = prog;
	cta.check_limits = l->limits && (prog->gprs > l->reg_count ||
					 prog->bars > l->bar_count);
	st.decoded_instrs = hit ? 0 : l->ninsn;
	cta.nwarps = (nthreads + NVL_CS_LANES - 1) / NVL_CS_LANES;
	wb = warps_buf(&own_wb);
	if (!wb) {
		ret = -ENOMEM;
		goto out_prog;
	}
	ret = warps_room(wb, cta.nwarps, l->shared_B, prog->nkrow);
	if (ret)
		goto out_warps;
	cta.warps = wb->w;
	/* the lanes' thread ids are the last run's when its block was the
	 * same shape (the warp buffer is this thread's) */
	shaped = wb->shape_n >= cta.nwarps &&
		 !memcmp(wb->shape, l->block, sizeof(wb->shape));
	if (!shaped) {
		memcpy(wb->shape, l->block, sizeof(wb->shape));
		wb->shape_n = 0;
	}
	cta.shared = wb->shared;
	/* the program's constants, broadcast once for this launch */
	cta.krow = wb->krow;
	cta.kok = wb->kok;
	cs_fast_kload(&cta, prog);
	for (uint32_t i = 0; i < cta.nwarps; i++)
		memset(cta.warps[i].r[NVL_ISA_RZ], 0,
		       sizeof(cta.warps[i].r[0]));
	cta.fault = fault;
	/* counted on this thread's stack, copied out at the end: the
	 * caller's counters may share a cache line with another worker's */
	cta.stats = &st;
	cta.budget = l->max_warp_instrs ? l->max_warp_instrs : 1ull << 32;
	cs_poll(&cta); /* the first slice (the flags are looked at below) */
	while (next_ctas(l, &next, &last)) {
		/* the first CTA's coordinates: one division per chunk */
		uint32_t x = (uint32_t)(next % l->grid[0]);
		uint32_t y = (uint32_t)(next / l->grid[0] % l->grid[1]);
		uint32_t z = (uint32_t)(next / l->grid[0] / l->grid[1]);

		for (; next < last; next++) {
			if (l->stop &&
			    atomic_load_explicit(l->stop, memory_order_relaxed))
				goto out_warps;
			if (l->aborted && l->aborted(l->mem_ctx)) {
				ret = -ECANCELED;
				goto out_warps;
			}
			cs_tlb_sync(&cta);
			cta.ctaid[0] = x;
			cta.ctaid[1] = y;
			cta.ctaid[2] = z;
			memset(cta.shared, 0, l->shared_B);
			for (uint32_t i = 0; i < cta.nwarps; i++)
				init_warp(&cta, &cta.warps[i], i, !shaped);
			if (!shaped)
				wb->shape_n = cta.nwarps;
			shaped = true;
			ret = run_cta(&cta);
			if (ret == -ECANCELED)
				goto out_warps;
			if (ret) {
				ret = fault->reason == NVL_CS_TIMEOUT
					      ? -ETIMEDOUT
					      : -EFAULT;
				nvl_error(ret,
					  "compute: %s at 0x%llx (cta %u,%u,%u "
					  "warp %u lane %u, address 0x%llx)",
					  nvl_cs_reason_name(fault->reason),
					  (unsigned long long)fault->pc, x, y,
					  z, fault->warp, fault->lane,
					  (unsigned long long)fault->addr);
				goto out_warps;
			}
			st.ctas++;
			if (++x == l->grid[0]) {
				x = 0;
				if (++y == l->grid[1]) {
					y = 0;
					z++;
				}
			}
		}
	}
out_warps:
	if (own_wb)
		warp_buf_free(wb);
out_prog:
	*stats = st;
	cs_prog_put(prog, keep);
	return ret;
}

// SPDX-License-Identifier: MIT
/*
 * DOC: pre-decoded fast path of the SM interpreter
 *
 * When a program is decoded for a launch, each instruction also gets a
 * compact fast form (struct cs_fast): a handler chosen by opcode, operand
 * form and modifiers, its register rows resolved, immediates broadcast over
 * the 32 lanes, the guard and predicate operands as (row, xor) pairs, and
 * branch targets as instruction indices. Only forms whose result the handler
 * computes exactly as the generic path (exec.c) does get one; everything
 * else (uniform instructions, memory, conversions, carries, negated or
 * absolute register sources, constant-bank operands, ...) stays
 * CS_FAST_NONE.
 *
 * cs_run_fast() then runs a converged warp (no parked lanes) straight
 * through consecutive fast instructions: per instruction one guard mask,
 * one indirect call and 32-wide loops on the lane-major register rows,
 * with the counters kept in locals. Branches taken by every active lane or
 * by none stay in the loop; a diverging branch, any instruction without a
 * fast form, the end of the budget or of the program return to run_warp,
 * which handles them exactly as before. Checked (hazard) mode never enters
 * the loop; run_warp still uses a fast handler for a single instruction
 * after its hazard checks, since the result is the same.
 *
 * The handlers are compiled twice (fastops.h): for the baseline ISA and
 * for AVX2+FMA, picked once per process with __builtin_cpu_supports.
 */
#include <stdint.h>
#include <string.h>

#include "model/compute/priv.h"

static inline uint32_t pack_base(const uint32_t *t)
{
	uint32_t m = 0;

	for (int i = 0; i < NVL_CS_LANES; i++)
		m |= (t[i] & 1u) << i;
	return m;
}

#define FAST(name) fast_##name
#define FAST_ATTR
#define FAST_PACK pack_base
#include "model/compute/fastops.h"
#undef FAST
#undef FAST_ATTR
#undef FAST_PACK

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define HAVE_AVX2_COPY 1

/* the sign bits of 4 x 8 lanes (each all ones or zero) */
__attribute__((target("avx2"))) static inline uint32_t
pack_avx2(const uint32_t *t)
{
	uint32_t m = 0;

	for (int k = 0; k < 4; k++)
		m |= (uint32_t)_mm256_movemask_ps(
			     _mm256_loadu_ps((const float *)(t + 8 * k)))
		     << (8 * k);
	return m;
}

#define FAST(name) fast_avx2_##name
#define FAST_ATTR __attribute__((target("avx2,fma")))
#define FAST_PACK pack_avx2
#include "model/compute/fastops.h"
#undef FAST
#undef FAST_ATTR
#undef FAST_PACK
#endif

enum {
	H_MOV,
	H_IADD3,
	H_IMAD,
	H_LOP3,
	H_LOP3_XOR,
	H_LOP3_AND,
	H_LOP3_OR,
	H_LOP3_XOR3,
	H_SEL,
	H_SHF_L,
	H_SHF_R,
	H_SHF_RA,
	H_SHL_LO,
	H_SHR_HI,
	H_SAR_HI,
	H_ISETP,
	H_ISETP1,
	H_FFMA,
	H_S2R,
	H_FADD,
	H_IMAD_WIDE,
	H_COUNT
};

#define HANDLERS(p)                                                            \
	{                                                                      \
		[H_MOV] = p##mov, [H_IADD3] = p##iadd3, [H_IMAD] = p##imad,    \
		[H_LOP3] = p##lop3, [H_LOP3_XOR] = p##lop3_xor,                \
		[H_LOP3_AND] = p##lop3_and, [H_LOP3_OR] = p##lop3_or,          \
		[H_LOP3_XOR3] = p##lop3_xor3, [H_SEL] = p##sel,                \
		[H_SHF_L] = p##shf_l, [H_SHF_R] = p##shf_r,                    \
		[H_SHF_RA] = p##shf_ra, [H_SHL_LO] = p##shl_lo,                \
		[H_SHR_HI] = p##shr_hi, [H_SAR_HI] = p##sar_hi,                \
		[H_ISETP] = p##isetp, [H_ISETP1] = p##isetp1,                  \
		[H_FFMA] = p##ffma, [H_S2R] = p##s2r, [H_FADD] = p##fadd,      \
		[H_IMAD_WIDE] = p##imad_wide,                                  \
	}

static const cs_fast_fn base_handlers[H_COUNT] = HANDLERS(fast_);
#ifdef HAVE_AVX2_COPY
static const cs_fast_fn avx2_handlers[H_COUNT] = HANDLERS(fast_avx2_);
#endif

static const cs_fast_fn *handlers(void)
{
#ifdef HAVE_AVX2_COPY
	static int avx2 = -1;
	int v = __atomic_load_n(&avx2, __ATOMIC_RELAXED);

	if (v < 0) {
		v = __builtin_cpu_supports("avx2") &&
		    __builtin_cpu_supports("fma");
		__atomic_store_n(&avx2, v, __ATOMIC_RELAXED);
	}
	if (v)
		return avx2_handlers;
#endif
	return base_handlers;
}

/* resolve source @k (role @r): a register row without modifiers or an
 * immediate (whose sign is in its value, as the generic path reads it) */
static bool fast_src(struct cs_fast *f, const struct cs_insn *ci, int r,
		     unsigned k)
{
	const struct nvl_isa_val *v = cs_opnd(ci, r);

	f->imm[k] = false;
	if (!v) {
		f->src[k] = NVL_ISA_RZ;
		return true;
	}
	switch (v->kind) {
	case NVL_ISA_V_R:
		if (v->neg || v->abs)
			return false;
		f->src[k] = v->reg;
		return true;
	case NVL_ISA_V_IMM:
		f->imm[k] = true;
		for (int i = 0; i < NVL_CS_LANES; i++)
			f->k[k][i] = (uint32_t)v->imm;
		return true;
	case NVL_ISA_V_CBUF:
		/* the launch's constant, loaded when the instruction runs */
		if (v->neg || v->abs || v->bank >= 8 || v->imm < 0 ||
		    v->imm > UINT32_MAX - 8)
			return false;
		f->imm[k] = true;
		f->cbm |= (uint8_t)(1u << k);
		f->cbank[k] = v->bank;
		f->coff[k] = (uint32_t)v->imm;
		return true;
	default:
		return false;
	}
}

/* a predicate operand as (row, xor); absent reads as PT */
static bool fast_pred(const struct cs_insn *ci, int r, uint8_t *row,
		      uint32_t *xor_)
{
	const struct nvl_isa_val *v = cs_opnd(ci, r);

	*row = NVL_ISA_PT;
	if (xor_)
		*xor_ = 0;
	if (!v)
		return true;
	if (v->kind != NVL_ISA_V_P || (!xor_ && v->not_))
		return false;
	*row = v->reg;
	if (xor_)
		*xor_ = v->not_ ? NVL_CS_ALL : 0;
	return true;
}

static bool fast_abc(struct cs_fast *f, const struct cs_insn *ci)
{
	return fast_src(f, ci, R_A, 0) && fast_src(f, ci, R_B, 1) &&
	       fast_src(f, ci, R_C, 2);
}

/* the handler for @ci, or -1 */
static int choose(struct cs_fast *f, const struct cs_insn *ci)
{
	const struct nvl_isa_val *v;

	switch (ci->in.row->sem) {
	case NVL_SEM_MOV:
		return fast_abc(f, ci) ? H_MOV : -1;
	case NVL_SEM_IADD3:
		if (cs_modv(ci, 74, 0) || !fast_abc(f, ci) ||
		    !fast_pred(ci, R_PD0, &f->pd0, NULL) ||
		    !fast_pred(ci, R_PD1, &f->pd1, NULL) ||
		    f->pd0 != NVL_ISA_PT || f->pd1 != NVL_ISA_PT)
			return -1;
		return H_IADD3;
	case NVL_SEM_IMAD:
		return fast_abc(f, ci) ? H_IMAD : -1;
	case NVL_SEM_LOP3:
		v = cs_opnd(ci, R_IMM0);
		if (!v || !fast_abc(f, ci) ||
		    !fast_pred(ci, R_PD0, &f->pd0, NULL) ||
		    f->pd0 != NVL_ISA_PT)
			return -1;
		f->u0 = (uint32_t)v->imm & 0xff;
		switch (f->u0) {
		case 0x3c:
			return H_LOP3_XOR;
		case 0xc0:
			return H_LOP3_AND;
		case 0xfc:
			return H_LOP3_OR;
		case 0x96:
			return H_LOP3_XOR3;
		default:
			return H_LOP3;
		}
	case NVL_SEM_SEL:
		if (!fast_abc(f, ci) ||
		    !fast_pred(ci, R_PS0, &f->ps0, &f->ps0_xor))
			return -1;
		return H_SEL;
	case NVL_SEM_SHF: {
		unsigned type = cs_modv(ci, 73, 3), bits = type >= 2 ? 32 : 64;
		unsigned s;

		if (!fast_abc(f, ci) || !f->imm[1] || (f->cbm & 2))
			return -1;
		s = f->k[1][0];
		s = cs_modv(ci, 75, 0) ? s & (bits - 1) : (s > bits ? bits : s);
		if (s >= 64)
			return -1;
		f->u0 = s;
		f->u1 = cs_modv(ci, 80, 0) ? 4 : 0;
		if (s < 32) {
			/* one word of {c:a} decides the result */
			if (!cs_modv(ci, 76, 0) && !f->u1)
				return H_SHL_LO;
			if (cs_modv(ci, 76, 0) && f->u1)
				return type == 0 || type == 2 ? H_SAR_HI
							      : H_SHR_HI;
		}
		if (!cs_modv(ci, 76, 0))
			return H_SHF_L;
		return type == 0 || type == 2 ? H_SHF_RA : H_SHF_R;
	}
	case NVL_SEM_ISETP:
		if (!fast_abc(f, ci) ||
		    !fast_pred(ci, R_PS0, &f->ps0, &f->ps0_xor) ||
		    !fast_pred(ci, R_PD0, &f->pd0, NULL) ||
		    !fast_pred(ci, R_PD1, &f->pd1, NULL))
			return -1;
		f->u0 = (cs_modv(ci, 76, 0) & 0xff) | cs_modv(ci, 74, 0) << 8;
		f->u1 = cs_modv(ci, 73, 1) ? 0x80000000u : 0;
		if ((f->u0 & 0xff) == 0 || (f->u0 & 0xff) >= 7)
			return H_ISETP;
		{
			/* LT EQ LE GT NE GE as one compare, maybe inverted */
			static const uint8_t one[7] = {0, 1,	 0,    2 | 4,
						       2, 0 | 4, 1 | 4};

			f->u0 = one[f->u0 & 0xff] | (f->u0 & ~0xffu);
			f->u1 ^= 0x80000000u; /* signed compare of flipped */
		}
		return H_ISETP1;
	case NVL_SEM_FFMA:
		if (cs_modv(ci, 78, 0) || cs_modv(ci, 80, 0) ||
		    cs_modv(ci, 77, 0) || !fast_abc(f, ci))
			return -1;
		return H_FFMA;
	case NVL_SEM_FADD:
		if (cs_modv(ci, 78, 0) || cs_modv(ci, 80, 0) ||
		    cs_modv(ci, 77, 0) || !fast_abc(f, ci))
			return -1;
		return H_FADD;
	case NVL_SEM_S2R:
		v = cs_opnd(ci, R_SR);
		if (!v || !(v->reg == 0 || (v->reg >= 0x21 && v->reg <= 0x23) ||
			    (v->reg >= 0x25 && v->reg <= 0x27)))
			return -1;
		f->u0 = v->reg;
		return H_S2R;
	case NVL_SEM_IMAD_WIDE:
		v = cs_opnd(ci, R_C);
		if (!v || v->neg || v->abs || !fast_src(f, ci, R_A, 0) ||
		    !fast_src(f, ci, R_B, 1))
			return -1;
		f->u0 = cs_modv(ci, 73, 1);
		switch (v->kind) {
		case NVL_ISA_V_R:
			f->u1 = 0;
			f->src[2] = v->reg;
			break;
		case NVL_ISA_V_CBUF:
			if (!fast_src(f, ci, R_C, 2))
				return -1;
			f->u1 = 1;
			f->c64 = true;
			break;
		case NVL_ISA_V_IMM: {
			uint64_t c = (uint64_t)(int64_t)(int32_t)v->imm;

			f->u1 = 2;
			f->k[2][0] = (uint32_t)c;
			f->k[2][1] = (uint32_t)(c >> 32);
			break;
		}
		default:
			return -1;
		}
		return H_IMAD_WIDE;
	default:
		return -1;
	}
}

/* a plain instruction the fast loop may hand to cs_exec(): not control */
static bool generic_ok(unsigned sem)
{
	switch (sem) {
	case NVL_SEM_BRA:
	case NVL_SEM_BSSY:
	case NVL_SEM_BSYNC:
	case NVL_SEM_BREAK:
	case NVL_SEM_WARPSYNC:
	case NVL_SEM_EXIT:
	case NVL_SEM_BAR:
		return false;
	default:
		return true;
	}
}

void cs_predecode(struct cs_insn *ci)
{
	struct cs_fast *f = &ci->fast;
	const struct nvl_isa_val *v;
	int h;

	memset(f, 0, sizeof(*f));
	f->kind = CS_FAST_NONE;
	if (ci->uniform)
		return;
	f->guard = ci->in.guard;
	f->guard_xor = ci->in.guard_not ? NVL_CS_ALL : 0;
	f->d = NVL_ISA_RZ;
	f->pd0 = f->pd1 = f->ps0 = NVL_ISA_PT;
	if (ci->in.row->sem == NVL_SEM_EXIT) {
		/* EXIT's own predicate, bits 89:87 (PT when absent) */
		f->ps0 = NVL_ISA_PT;
		for (unsigned i = 0; i < ci->in.row->nopnd; i++)
			if (ci->in.row->opnd[i].lo == 87 &&
			    ci->in.op[i].kind == NVL_ISA_V_P) {
				f->ps0 = ci->in.op[i].reg;
				f->ps0_xor = ci->in.op[i].not_ ? NVL_CS_ALL : 0;
			}
		f->kind = CS_FAST_EXIT;
		return;
	}
	if (ci->in.row->sem == NVL_SEM_BRA) {
		/* the branch's own predicate, bits 89:87 */
		for (unsigned i = 0; i < ci->in.row->nopnd; i++)
			if (ci->in.row->opnd[i].lo == 87 &&
			    ci->in.op[i].kind == NVL_ISA_V_P) {
				f->ps0 = ci->in.op[i].reg;
				f->ps0_xor = ci->in.op[i].not_ ? NVL_CS_ALL : 0;
				f->target = ci->target;
				f->kind = CS_FAST_BRA;
			}
		return;
	}
	v = cs_opnd(ci, R_DST);
	if (v && v->kind != NVL_ISA_V_R)
		return;
	h = choose(f, ci);
	if (h < 0) {
		memset(f, 0, sizeof(*f));
		f->guard = ci->in.guard;
		f->guard_xor = ci->in.guard_not ? NVL_CS_ALL : 0;
		f->kind = generic_ok(ci->in.row->sem) ? CS_FAST_GENERIC
						      : CS_FAST_NONE;
		return;
	}
	f->d = v ? v->reg : NVL_ISA_RZ;
	f->fn = handlers()[h];
	f->kind = CS_FAST_OP;
}

static inline uint32_t popc(uint32_t x)
{
	return (uint32_t)__builtin_popcount(x);
}

bool cs_fast_prep(const struct cs_cta *cta, struct cs_warp *w,
		  const struct cs_fast *f)
{
	const struct nvl_cs_launch *l = cta->l;

	for (unsigned k = 0; k < 3; k++) {
		/* IMAD.WIDE reads 8 bytes of its constant */
		unsigned size = k == 2 && f->c64 ? 8 : 4;
		unsigned b = f->cbank[k];
		uint32_t off = f->coff[k], x;

		if (!(f->cbm >> k & 1))
			continue;
		if (!l->cbuf[b] || (uint64_t)off + size > l->cbuf_B[b] ||
		    off % size)
			return false;
		memcpy(&x, (const uint8_t *)l->cbuf[b] + off, 4);
		for (int i = 0; i < NVL_CS_LANES; i++)
			w->kc[k][i] = x;
		if (size == 8)
			memcpy(&w->kc_hi, (const uint8_t *)l->cbuf[b] + off + 4,
			       4);
	}
	return true;
}

int cs_run_fast(struct cs_cta *cta, struct cs_warp *w)
{
	const struct cs_insn *prog = cta->prog;
	uint32_t pc = w->pc, active = w->active, ninsn = cta->l->ninsn;
	uint64_t n = 0, threads = 0, budget = cta->budget;
	int ret = 0;

	while (pc < ninsn && n < budget) {
		const struct cs_fast *f = &prog[pc].fast;
		uint32_t exec;

		if (f->kind == CS_FAST_NONE)
			break;
		exec = active & (w->p[f->guard] ^ f->guard_xor);
		if (f->kind == CS_FAST_BRA) {
			uint32_t t = exec & (w->p[f->ps0] ^ f->ps0_xor);

			if (t == active)
				pc = (uint32_t)f->target;
			else if (!t)
				pc++;
			else
				break; /* diverges: run_warp parks lanes */
			n++;
			threads += popc(active);
			continue;
		}
		if (f->kind == CS_FAST_EXIT) {
			uint32_t t = exec & (w->p[f->ps0] ^ f->ps0_xor);

			if (t == active)
				break; /* the whole group: run_warp reselects */
			n++;
			threads += popc(active);
			w->exited |= t;
			active &= ~t;
			pc++;
			continue;
		}
		if (f->kind == CS_FAST_GENERIC) {
			n++;
			threads += popc(active);
			if (exec) {
				w->pc = pc;
				w->active = active;
				ret = cs_exec(cta, w, &prog[pc], exec);
				if (ret)
					break;
			}
			pc++;
			continue;
		}
		if (f->cbm && !cs_fast_prep(cta, w, f))
			break; /* out of bounds: the generic path reports it */
		n++;
		threads += popc(active);
		if (exec)
			f->fn(w, f, exec);
		pc++;
	}
	w->pc = pc;
	w->active = active;
	cta->budget -= n;
	cta->clock += n;
	cta->stats->warp_instrs += n;
	cta->stats->thread_instrs += threads;
	return ret;
}

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
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "base/alloc.h"
#include "model/compute/priv.h"
#include "model/model.h"

/*
 * Copies of GPU-visible memory by the SM: nvl_model_mem_copy() in
 * ThreadSanitizer builds (uninstrumented: device traffic is racy by
 * nature), else a memcpy the compiler expands for the fixed sizes here.
 */
/* how many warps' rows ahead a coalesced LDG/STG prefetches (fastops.h) */
#define CS_PREFETCH_ROWS 4

#if defined(__SANITIZE_THREAD__)
#define CS_MEM_COPY(d, s, n) nvl_model_mem_copy(d, s, n)
#else
#define CS_MEM_COPY(d, s, n) memcpy(d, s, n)
#endif

/* a range of the interpreter's TLB holding [va, va + len), or NULL: the
 * other entries, then the launch's map callback (cs_tlb_get's miss) */
static __attribute__((noinline)) uint8_t *cs_tlb_fill(struct cs_cta *cta,
						      uint64_t va, uint64_t len,
						      bool write, uint8_t *hint)
{
	const struct nvl_cs_launch *l = cta->l;
	uint64_t base, size, off;
	struct cs_tlb *t;
	uint8_t *p;

	for (unsigned i = 0; i < CS_TLB; i++) {
		t = &cta->tlb[i];
		off = va - t->va;
		if (off < t->len && t->len - off >= len &&
		    (t->write || !write)) {
			*hint = (uint8_t)i;
			return t->p + off;
		}
	}
	if (!l->map)
		return NULL;
	p = l->map(l->mem_ctx, va, write, &base, &size);
	if (!p || va - base >= size || size - (va - base) < len)
		return NULL;
	*hint = (uint8_t)(cta->tlb_next % CS_TLB);
	t = &cta->tlb[cta->tlb_next++ % CS_TLB];
	t->va = base;
	t->len = size;
	t->p = p;
	t->write = write;
	return p + (va - base);
}

/* a range of the interpreter's TLB holding [va, va + len), or NULL: the
 * entry the instruction at @pc hit last is tried first */
static inline uint8_t *cs_tlb_get(struct cs_cta *cta, uint64_t va, uint64_t len,
				  bool write, uint32_t pc)
{
	uint8_t *hint = &cta->tlb_hint[pc % CS_TLB_HINTS];
	const struct cs_tlb *t = &cta->tlb[*hint % CS_TLB];
	uint64_t off = va - t->va;

	if (off < t->len && t->len - off >= len && (t->write || !write))
		return t->p + off;
	return cs_tlb_fill(cta, va, len, write, hint);
}

/*
 * 8 lanes of register rows as one vector (the handlers' unit; two SSE
 * registers in the baseline copy, one AVX register in the other),
 * unaligned and allowed to alias the rows' uint32_t
 */
typedef uint32_t cs_v8u __attribute__((vector_size(32), aligned(4), may_alias));
typedef float cs_v8f __attribute__((vector_size(32), aligned(4), may_alias));

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
#define FAST_AVX2 1
#include "model/compute/fastops.h"
#undef FAST_AVX2
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
	H_IMAD_WIDE_S,
	H_IMAD_WIDE_K,
	H_IMAD_WIDE_KS,
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
		[H_IMAD_WIDE] = p##imad_wide_u,                                \
		[H_IMAD_WIDE_S] = p##imad_wide_s,                              \
		[H_IMAD_WIDE_K] = p##imad_wide_ku,                             \
		[H_IMAD_WIDE_KS] = p##imad_wide_ks,                            \
	}

static const cs_fast_fn base_handlers[H_COUNT] = HANDLERS(fast_);
#ifdef HAVE_AVX2_COPY
static const cs_fast_fn avx2_handlers[H_COUNT] = HANDLERS(fast_avx2_);
#endif

static bool use_avx2(void)
{
#ifdef HAVE_AVX2_COPY
	static int avx2 = -1;
	int v = __atomic_load_n(&avx2, __ATOMIC_RELAXED);

	if (v < 0) {
		v = __builtin_cpu_supports("avx2") &&
		    __builtin_cpu_supports("fma");
		__atomic_store_n(&avx2, v, __ATOMIC_RELAXED);
	}
	return v;
#else
	return false;
#endif
}

static const cs_fast_fn *handlers(void)
{
#ifdef HAVE_AVX2_COPY
	if (use_avx2())
		return avx2_handlers;
#endif
	return base_handlers;
}

static cs_mem_fn mem_handler(void)
{
#ifdef HAVE_AVX2_COPY
	if (use_avx2())
		return fast_avx2_mem;
#endif
	return fast_mem;
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
			f->src[2] = v->reg;
			return f->u0 ? H_IMAD_WIDE_S : H_IMAD_WIDE;
		case NVL_ISA_V_CBUF:
			/* the 64-bit constant: kref[2] and the row after it */
			if (!fast_src(f, ci, R_C, 2))
				return -1;
			f->c64 = true;
			break;
		case NVL_ISA_V_IMM: {
			uint64_t c = (uint64_t)(int64_t)(int32_t)v->imm;

			f->imm[2] = true;
			f->k[2][0] = (uint32_t)c;
			f->k[2][1] = (uint32_t)(c >> 32);
			break;
		}
		default:
			return -1;
		}
		return f->u0 ? H_IMAD_WIDE_KS : H_IMAD_WIDE_K;
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

/*
 * LDG/STG.E of 32, 64 or 128 bits with its data in registers below RZ:
 * CS_FAST_MEM (its mfn runs a whole coalesced warp, cs_exec the rest;
 * cache hints and memory order are ignored by both, docs/compute.md).
 */
static bool mem_form(struct cs_fast *f, const struct cs_insn *ci)
{
	unsigned sem = ci->in.row->sem, type = cs_modv(ci, 73, 4);
	const struct nvl_isa_val *m = cs_opnd(ci, R_MEM);
	const struct nvl_isa_val *d =
		cs_opnd(ci, sem == NVL_SEM_STG ? R_B : R_DST);

	if ((sem != NVL_SEM_LDG && sem != NVL_SEM_STG) || !cs_modv(ci, 72, 0) ||
	    type < 4 || type > 6 || !m || !d || d->kind != NVL_ISA_V_R ||
	    m->reg + 1 >= NVL_ISA_RZ)
		return false;
	f->msize = (uint8_t)(4u << (type - 4));
	if (d->reg + f->msize / 4 > NVL_ISA_RZ)
		return false;
	f->mreg = m->reg;
	f->mdata = d->reg;
	f->mstore = sem == NVL_SEM_STG;
	f->moff = m->imm;
	/* each lane's offset from lane 0 in a coalesced access */
	for (int i = 0; i < NVL_CS_LANES; i++)
		f->k[0][i] = f->msize * (uint32_t)i;
	f->kind = CS_FAST_MEM;
	f->mfn = mem_handler();
	return true;
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
	if (mem_form(f, ci))
		return;
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

/* without a libgcc call where the baseline ISA has no POPCNT */
static inline uint32_t popc(uint32_t x)
{
	x = x - ((x >> 1) & 0x55555555u);
	x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
	x = (x + (x >> 4)) & 0x0f0f0f0fu;
	return (x * 0x01010101u) >> 24;
}

/* the kref rows only go up to 16 bits; a source past that is demoted */
#define KROW_MAX 0xfff0u

int cs_fast_krefs(struct cs_prog *p, struct cs_fast *f)
{
	for (unsigned k = 0; k < 3; k++) {
		unsigned size = k == 2 && f->c64 ? 8 : 4;
		struct cs_kref *e = NULL;

		if (!(f->cbm >> k & 1))
			continue;
		/* the same word is usually read by neighbours: look back a
		 * little, a duplicate row is harmless */
		for (uint32_t i = p->nkref; i-- && i + 64 >= p->nkref;) {
			struct cs_kref *x = &p->kref[i];

			if (x->bank == f->cbank[k] && x->off == f->coff[k] &&
			    x->size == size) {
				e = x;
				break;
			}
		}
		if (!e && p->nkrow + 2 > KROW_MAX) {
			/* too many constants: the generic path reads them */
			uint8_t g = f->guard;
			uint32_t gx = f->guard_xor;

			memset(f, 0, sizeof(*f));
			f->guard = g;
			f->guard_xor = gx;
			f->kind = CS_FAST_GENERIC;
			return 0;
		}
		if (!e) {
			if (!(p->nkref & (p->nkref + 1)) || !p->kref) {
				/* grow at 1, 2, 4, ... entries */
				struct cs_kref *nk = nvl_realloc(
					p->kref,
					sizeof(*nk) *
						(2 * (size_t)p->nkref + 1));

				if (!nk)
					return -ENOMEM;
				p->kref = nk;
			}
			e = &p->kref[p->nkref++];
			e->bank = f->cbank[k];
			e->off = f->coff[k];
			e->size = (uint8_t)size;
			e->row = (uint16_t)p->nkrow;
			p->nkrow += size / 4;
		}
		f->kref[k] = e->row;
	}
	return 0;
}

void cs_fast_kload(struct cs_cta *cta, const struct cs_prog *p)
{
	const struct nvl_cs_launch *l = cta->l;

	cta->kbad = false;
	for (uint32_t i = 0; i < p->nkref; i++) {
		const struct cs_kref *e = &p->kref[i];
		bool ok = l->cbuf[e->bank] &&
			  (uint64_t)e->off + e->size <= l->cbuf_B[e->bank] &&
			  !(e->off % e->size);

		for (unsigned k = 0; k < e->size / 4u; k++) {
			uint32_t x = 0;

			if (ok)
				memcpy(&x,
				       (const uint8_t *)l->cbuf[e->bank] +
					       e->off + 4 * k,
				       4);
			for (int j = 0; j < NVL_CS_LANES; j++)
				cta->krow[e->row + k][j] = x;
			cta->kok[e->row + k] = ok;
		}
		cta->kbad |= !ok;
	}
}

int cs_run_fast(struct cs_cta *cta, struct cs_warp *w)
{
	const struct cs_insn *ci = cta->prog + w->pc;
	uint32_t active = w->active, pc;
	/* up to the next poll of the stop flags (run_warp) */
	uint64_t start = cta->budget - cta->poll_at, left = start;
	uint64_t clock0 = cta->clock;
	struct nvl_cs_stats *st = cta->stats;
	int ret = 0;

	/* prog[ninsn] is a CS_FAST_NONE sentinel (cs_prog_get), so running
	 * off the end stops the loop; a branch is checked where it jumps */
	if (w->pc >= cta->l->ninsn)
		return 0;
	/* thread instructions: the active lanes' count per instruction
	 * (only an EXIT changes it), kept in the cta: fewer values live
	 * across the handlers' calls */
	cta->cnt = popc(active);
	while (left) {
		const struct cs_fast *f = &ci->fast;
		uint32_t exec = active & (w->p[f->guard] ^ f->guard_xor);

		switch (f->kind) {
		case CS_FAST_OP:
			if (f->cbm && !cs_fast_kok(cta, f))
				goto out; /* the generic path reports it */
			left--;
			st->thread_instrs += cta->cnt;
			if (exec)
				f->fn(w, f, exec);
			ci++;
			continue;
		case CS_FAST_MEM:
			left--;
			st->thread_instrs += cta->cnt;
			if (exec == NVL_CS_ALL &&
			    f->mfn(cta, w, f, (uint32_t)(ci - cta->prog))) {
				ci++;
				continue;
			}
			break;
		case CS_FAST_BRA: {
			uint32_t t = exec & (w->p[f->ps0] ^ f->ps0_xor);

			/* diverges (run_warp parks lanes), or leaves the
			 * program (run_warp reports where) */
			if (t && (t != active || f->target < 0))
				goto out;
			left--;
			st->thread_instrs += cta->cnt;
			if (!t) {
				ci++;
				continue;
			}
			if ((uint32_t)f->target >= cta->l->ninsn) {
				/* run_warp reports the PC */
				pc = (uint32_t)f->target;
				goto out_pc;
			}
			ci = cta->prog + f->target;
			continue;
		}
		case CS_FAST_EXIT: {
			uint32_t t = exec & (w->p[f->ps0] ^ f->ps0_xor);

			left--;
			st->thread_instrs += cta->cnt;
			w->exited |= t;
			if (t == active) {
				/* the whole group: done here, run_warp
				 * reselects (parked or BSYNC-waiting lanes) */
				active = 0;
				goto out;
			}
			active &= ~t;
			cta->cnt = popc(active);
			ci++;
			continue;
		}
		case CS_FAST_GENERIC:
			left--;
			st->thread_instrs += cta->cnt;
			break;
		default: /* CS_FAST_NONE: run_warp */
			goto out;
		}
		/* a plain instruction the generic executor runs (S2R
		 * SR_CLOCKLO reads the clock: counted up to this one, as
		 * run_warp counts it) */
		if (exec) {
			w->pc = (uint32_t)(ci - cta->prog);
			w->active = active;
			cta->clock = clock0 + (start - left);
			ret = cs_exec(cta, w, ci, exec);
			if (ret)
				break;
		}
		ci++;
	}
out:
	pc = (uint32_t)(ci - cta->prog);
out_pc:
	w->pc = pc;
	w->active = active;
	left = start - left; /* instructions run */
	cta->budget -= left;
	cta->clock = clock0 + left;
	st->warp_instrs += left;
	return ret;
}

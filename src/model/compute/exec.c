// SPDX-License-Identifier: MIT
/*
 * DOC: instruction semantics of the SM interpreter
 *
 * Every instruction works on all 32 lanes at once: sources are fetched as
 * arrays of 32 values (a register row directly, immediates and constants
 * broadcast), the result is computed for every lane and written back under
 * the execution mask. Predicates are lane masks, so predicate logic is a
 * few bitwise operations per warp. Uniform (U*) instructions compute the
 * same way on broadcast UR values and keep lane 0's result.
 */
#include <errno.h>
#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "model/compute/priv.h"
#include "model/model.h"

#define L NVL_CS_LANES

static const uint32_t zero32[L];

static inline unsigned modv(const struct cs_insn *ci, unsigned lo, unsigned def)
{
	return cs_modv(ci, lo, def);
}

static inline const struct nvl_isa_val *V(const struct cs_insn *ci, int r)
{
	return cs_opnd(ci, r);
}

int cs_fail(struct cs_cta *cta, struct cs_warp *w, enum nvl_cs_reason r,
	    uint32_t lane, uint64_t addr)
{
	struct nvl_cs_fault *f = cta->fault;

	f->reason = r;
	f->pc = cta->l->code_va + 16ull * w->pc;
	memcpy(f->cta, cta->ctaid, sizeof(f->cta));
	f->warp = w->id;
	f->lane = lane;
	f->addr = addr;
	return -EFAULT;
}

static int role(const struct nvl_isa_row *row, int r)
{
	int imm = 0;

	for (unsigned i = 0; i < row->nopnd; i++) {
		const struct nvl_isa_odesc *d = &row->opnd[i];
		int k = -1;

		switch (d->kind) {
		case NVL_ISA_O_R:
		case NVL_ISA_O_UR:
			k = d->lo == 16	  ? R_DST
			    : d->lo == 24 ? R_A
			    : d->lo == 32 ? R_B
			    : d->lo == 64 ? R_C
					  : -1;
			break;
		case NVL_ISA_O_FLEXB:
			k = R_B;
			break;
		case NVL_ISA_O_FLEXC:
			k = R_C;
			break;
		case NVL_ISA_O_P:
		case NVL_ISA_O_UP:
			k = d->lo == 81	  ? R_PD0
			    : d->lo == 84 ? R_PD1
			    : d->lo == 87 ? R_PS0
			    : d->lo == 77 ? R_PS1
			    : d->lo == 68 ? R_PS2
					  : -1;
			break;
		case NVL_ISA_O_IMM:
			if (d->lo == 53)
				k = R_B;
			else if (d->lo == 40)
				k = R_C;
			else
				k = imm++ ? R_IMM1 : R_IMM0;
			break;
		case NVL_ISA_O_MEM:
			k = R_MEM;
			break;
		case NVL_ISA_O_CBUF:
			k = R_CBUF;
			break;
		case NVL_ISA_O_SR:
			k = R_SR;
			break;
		}
		if (k == r)
			return (int)i;
	}
	return -1;
}

/*
 * The GPRs an instruction reads and writes, with their widths: the ISA
 * table's one description (nvl_isa_gprs(), src/hw/isa/regs.c), which the
 * driver's REGISTER_COUNT and the OOR_REG check use too.
 */
static void prepare_regs(struct cs_insn *ci)
{
	struct nvl_isa_gpr g[NVL_ISA_MAX_OPNDS];
	unsigned n = nvl_isa_gprs(&ci->in, g);

	ci->nrd = ci->nwr = 0;
	for (unsigned i = 0; i < n; i++) {
		uint8_t(*set)[2] = g[i].dst ? ci->wr : ci->rd;
		uint8_t *cnt = g[i].dst ? &ci->nwr : &ci->nrd;
		unsigned max = g[i].dst ? 2 : 6;

		if (*cnt >= max)
			continue;
		set[*cnt][0] = g[i].reg;
		set[*cnt][1] = g[i].n;
		(*cnt)++;
	}
}

void cs_prepare(struct cs_insn *ci)
{
	const struct nvl_isa_row *row = ci->in.row;

	for (int r = 0; r < R_COUNT; r++)
		ci->role[r] = (int8_t)role(row, r);
	for (int b = 0; b < 128; b++)
		ci->mv[b] = -1;
	for (int g = row->nmod - 1; g >= 0; g--)
		if (row->mod[g]->width)
			ci->mv[row->mod[g]->lo] = (int16_t)ci->in.mod[g];
	prepare_regs(ci);
}

static void fill(uint32_t *t, uint32_t v)
{
	for (int i = 0; i < L; i++)
		t[i] = v;
}

static int cread(struct cs_cta *cta, struct cs_warp *w, unsigned bank,
		 uint64_t off, uint32_t size, void *out)
{
	const struct nvl_cs_launch *l = cta->l;

	if (bank >= 8 || !l->cbuf[bank] || off + size > l->cbuf_B[bank] ||
	    off % size)
		return cs_fail(cta, w, NVL_CS_CONST_OUT_OF_BOUNDS, 0,
			       (uint64_t)bank << 32 | off);
	memcpy(out, (const uint8_t *)l->cbuf[bank] + off, size);
	return 0;
}

/* Fetch a source for all lanes; NULL on a fault. */
static inline const uint32_t *src(struct cs_cta *cta, struct cs_warp *w,
				  const struct nvl_isa_val *v, uint32_t *tmp,
				  bool fp)
{
	const uint32_t *s = tmp;
	uint32_t x;

	if (!v)
		return zero32;
	switch (v->kind) {
	case NVL_ISA_V_R:
		s = w->r[v->reg];
		break;
	case NVL_ISA_V_UR:
		fill(tmp, w->ur[v->reg]);
		break;
	case NVL_ISA_V_IMM:
		fill(tmp, (uint32_t)v->imm);
		return tmp;
	case NVL_ISA_V_CBUF:
		if (cread(cta, w, v->bank, (uint64_t)v->imm, 4, &x))
			return NULL;
		fill(tmp, x);
		break;
	default:
		return zero32;
	}
	if (v->abs || v->neg) {
		for (int i = 0; i < L; i++) {
			x = s[i];
			if (fp) {
				if (v->abs)
					x &= 0x7fffffffu;
				if (v->neg)
					x ^= 0x80000000u;
			} else {
				if (v->abs && (int32_t)x < 0)
					x = -x;
				if (v->neg)
					x = -x;
			}
			tmp[i] = x;
		}
		s = tmp;
	}
	return s;
}

static uint32_t pget(const struct cs_warp *w, const struct nvl_isa_val *v,
		     bool uni)
{
	uint32_t m;

	if (!v)
		return NVL_CS_ALL;
	if (uni || v->kind == NVL_ISA_V_UP)
		m = (w->up >> v->reg) & 1 ? NVL_CS_ALL : 0;
	else
		m = w->p[v->reg];
	return v->not_ ? ~m : m;
}

static void pset(struct cs_warp *w, const struct nvl_isa_val *v, uint32_t res,
		 uint32_t mask)
{
	if (!v || v->reg == NVL_ISA_PT)
		return;
	if (v->kind == NVL_ISA_V_UP) {
		w->up = (uint8_t)((w->up & ~(1u << v->reg)) |
				  ((res & 1) << v->reg));
		return;
	}
	w->p[v->reg] = (w->p[v->reg] & ~mask) | (res & mask);
}

static inline void rset(struct cs_warp *w, const struct nvl_isa_val *v,
			const uint32_t *res, uint32_t mask)
{
	if (!v)
		return;
	if (v->kind == NVL_ISA_V_UR) {
		if (v->reg != NVL_ISA_URZ)
			w->ur[v->reg] = res[__builtin_ctz(mask | 0x80000000u)];
		return;
	}
	if (v->reg == NVL_ISA_RZ)
		return;
	uint32_t *d = w->r[v->reg];

	if (mask == NVL_CS_ALL) {
		memcpy(d, res, sizeof(uint32_t) * L);
		return;
	}
	for (int i = 0; i < L; i++)
		d[i] = (mask >> i) & 1 ? res[i] : d[i];
}

/* write the pair (reg, reg + 1) */
static void rset2(struct cs_warp *w, const struct nvl_isa_val *v,
		  const uint64_t *res, uint32_t mask)
{
	uint32_t lo[L], hi[L];
	struct nvl_isa_val v1;

	if (!v || v->reg == NVL_ISA_RZ)
		return;
	for (int i = 0; i < L; i++) {
		lo[i] = (uint32_t)res[i];
		hi[i] = (uint32_t)(res[i] >> 32);
	}
	rset(w, v, lo, mask);
	v1 = *v;
	v1.reg = v->kind == NVL_ISA_V_UR ? (uint8_t)(v->reg + 1)
					 : (uint8_t)(v->reg + 1);
	if (v1.reg < (v->kind == NVL_ISA_V_UR ? NVL_ISA_URZ : NVL_ISA_RZ))
		rset(w, &v1, hi, mask);
}

static const uint32_t *hi_of(const struct cs_warp *w,
			     const struct nvl_isa_val *v)
{
	if (!v || v->kind != NVL_ISA_V_R || v->reg >= 254)
		return zero32;
	return w->r[v->reg + 1];
}

static float f32(uint32_t x)
{
	float f;

	memcpy(&f, &x, 4);
	return f;
}

static uint32_t u32f(float f)
{
	uint32_t x;

	memcpy(&x, &f, 4);
	return x;
}

static float ftz(float f, bool on)
{
	return on && fpclassify(f) == FP_SUBNORMAL ? copysignf(0.0f, f) : f;
}

/* fused multiply-add on 32 lanes: the FMA instruction when the host has
 * it (chosen once), libm's fmaf otherwise; both are exact */
__attribute__((target("fma"))) static void ffma_lanes_hw(const uint32_t *a,
							 const uint32_t *b,
							 const uint32_t *c,
							 uint32_t *res)
{
	for (int i = 0; i < L; i++) {
		float x, y, z, r;

		memcpy(&x, &a[i], 4);
		memcpy(&y, &b[i], 4);
		memcpy(&z, &c[i], 4);
		r = __builtin_fmaf(x, y, z);
		memcpy(&res[i], &r, 4);
	}
}

static void ffma_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c,
		       uint32_t *res)
{
	static int hw = -1;
	int v = __atomic_load_n(&hw, __ATOMIC_RELAXED);

	if (v < 0) {
		v = __builtin_cpu_supports("fma") ? 1 : 0;
		__atomic_store_n(&hw, v, __ATOMIC_RELAXED);
	}
	if (v) {
		ffma_lanes_hw(a, b, c, res);
		return;
	}
	for (int i = 0; i < L; i++)
		res[i] = u32f(fmaf(f32(a[i]), f32(b[i]), f32(c[i])));
}

static uint32_t lop3(uint32_t a, uint32_t b, uint32_t c, uint32_t lut)
{
	uint32_t r = 0;

	for (int k = 0; k < 8; k++)
		if ((lut >> k) & 1)
			r |= (k & 4 ? a : ~a) & (k & 2 ? b : ~b) &
			     (k & 1 ? c : ~c);
	return r;
}

static uint32_t combine(unsigned op, uint32_t x, uint32_t acc)
{
	return op == 0 ? x & acc : op == 1 ? x | acc : x ^ acc;
}

static const uint8_t msize_tab[8] = {1, 1, 2, 2, 4, 8, 16, 0};

static bool global_sem(unsigned sem)
{
	return sem == NVL_SEM_LDG || sem == NVL_SEM_STG ||
	       sem == NVL_SEM_ATOMG || sem == NVL_SEM_ATOMG_CAS ||
	       sem == NVL_SEM_RED;
}

static uint64_t atomic_op(unsigned op, unsigned type, uint64_t old, uint64_t v)
{
	bool wide = type == 2 || type == 5 || type == 6;
	bool sgn = type == 1 || type == 5;
	uint64_t m = wide ? ~0ull : 0xffffffffull;
	int64_t so = wide ? (int64_t)old : (int32_t)old;
	int64_t sv = wide ? (int64_t)v : (int32_t)v;

	if (type == 3 || type == 6) { /* float add/min/max */
		double x, y, r;

		if (type == 3) {
			x = f32((uint32_t)old);
			y = f32((uint32_t)v);
		} else {
			memcpy(&x, &old, 8);
			memcpy(&y, &v, 8);
		}
		r = op == 1 ? fmin(x, y) : op == 2 ? fmax(x, y) : x + y;
		if (type == 3)
			return u32f((float)r);
		memcpy(&old, &r, 8);
		return old;
	}
	switch (op) {
	case 0:
		return (old + v) & m;
	case 1:
		return (sgn ? so < sv : old < v) ? old : v;
	case 2:
		return (sgn ? so > sv : old > v) ? old : v;
	case 3:
		return old >= v ? 0 : (old + 1) & m;
	case 4:
		return (old == 0 || old > v) ? v : (old - 1) & m;
	case 5:
		return old & v;
	case 6:
		return old | v;
	case 7:
		return old ^ v;
	default:
		return v;
	}
}

/* one atomic on host memory @p; returns the old value */
static uint64_t do_atomic(void *p, bool wide, unsigned op, unsigned type,
			  bool cas, uint64_t cmp, uint64_t v)
{
	if (wide) {
		uint64_t *q = p, old = __atomic_load_n(q, __ATOMIC_RELAXED);

		for (;;) {
			uint64_t nv = cas ? (old == cmp ? v : old)
					  : atomic_op(op, type, old, v);

			if (__atomic_compare_exchange_n(q, &old, nv, false,
							__ATOMIC_SEQ_CST,
							__ATOMIC_RELAXED))
				return old;
		}
	}
	uint32_t *q = p, old = __atomic_load_n(q, __ATOMIC_RELAXED);

	for (;;) {
		uint32_t nv = cas ? (old == (uint32_t)cmp ? (uint32_t)v : old)
				  : (uint32_t)atomic_op(op, type, old, v);

		if (__atomic_compare_exchange_n(q, &old, nv, false,
						__ATOMIC_SEQ_CST,
						__ATOMIC_RELAXED))
			return old;
	}
}

static uint32_t reg_at(const struct cs_warp *w, unsigned r, unsigned k,
		       int lane)
{
	return r + k < NVL_ISA_RZ ? w->r[r + k][lane] : 0;
}

static void reg_put(struct cs_warp *w, unsigned r, unsigned k, int lane,
		    uint32_t v)
{
	if (r + k < NVL_ISA_RZ)
		w->r[r + k][lane] = v;
}

/*
 * The launch's translate; the interpreter's TLB is dropped when the memory
 * owner moved map_gen meanwhile (an access that parked left its section:
 * pages mapped before may be gone).
 */
static inline uint8_t *xlate(struct cs_cta *cta, uint64_t va, uint32_t size,
			     bool write)
{
	uint8_t *p = cta->l->translate(cta->l->mem_ctx, va, size, write);

	cs_tlb_sync(cta);
	return p;
}

/*
 * LDG/STG whose active lanes all fall in one 4 KiB block (a coalesced
 * warp access, the common case): translate the block once (its first
 * and last byte, through the uTLB) instead of once per lane. Every page
 * size is a multiple of 4 KiB, so the block lies in one page and the
 * translation is linear across it; a sparse page (both ends give the
 * same zero buffer) or anything else fails the linearity check. Returns
 * 1 when the access is not of that shape (the per-lane path then runs,
 * and reports misalignment and faults exactly), 0 when done, or the
 * per-lane path's fault for the first lane (a fault in the block).
 */
static int cs_memory_block(struct cs_cta *cta, struct cs_warp *w,
			   const struct nvl_isa_val *m,
			   const struct nvl_isa_val *d,
			   const struct nvl_isa_val *vb, bool st, bool e,
			   unsigned size, uint32_t mask)
{
	uint64_t addr[L], lo = UINT64_MAX, hi = 0;
	uint32_t lo_lane = 0;
	uint8_t *p, *q;
	unsigned seen;

	/* the whole warp on 32 consecutive words (lane i at base + 4 i, 64-bit
	 * addresses in a register pair): one block copy of the row */
	if (mask == NVL_CS_ALL && size == 4 && e && m->reg + 1 < NVL_ISA_RZ &&
	    (st ? vb->reg : d->reg) < NVL_ISA_RZ) {
		const uint32_t *alo = w->r[m->reg], *ahi = w->r[m->reg + 1];
		uint32_t bad = 0;
		uint64_t a0 =
			(alo[0] | (uint64_t)ahi[0] << 32) + (uint64_t)m->imm;

		for (int i = 0; i < L; i++)
			bad |= (alo[i] - alo[0] - 4u * (uint32_t)i) |
			       (ahi[i] ^ ahi[0]);
		/* no lane's low word wraps, all in one 4 KiB block */
		if (!bad && alo[0] <= UINT32_MAX - 4 * (L - 1) && !(a0 % 4) &&
		    a0 >> 12 == (a0 + 4 * L - 1) >> 12) {
			p = xlate(cta, a0, 4, st);
			if (!p)
				return cs_fail(cta, w, NVL_CS_GLOBAL_FAULT, 0,
					       a0);
			seen = cta->map_seen;
			q = xlate(cta, a0 + 4 * L - 4, 4, st);
			if (q && q - p == 4 * L - 4 && seen == cta->map_seen) {
				/* device memory: nvl_model_mem_copy */
				if (st) {
					nvl_model_mem_copy(p, w->r[vb->reg],
							   4 * L);
					__atomic_thread_fence(__ATOMIC_SEQ_CST);
				} else {
					nvl_model_mem_copy(w->r[d->reg], p,
							   4 * L);
				}
				return 0;
			}
		}
	}
	for (int i = 0; i < L; i++) {
		uint64_t a;

		if (!((mask >> i) & 1))
			continue;
		a = m->reg == NVL_ISA_RZ ? 0 : w->r[m->reg][i];
		if (e && m->reg != NVL_ISA_RZ)
			a |= (uint64_t)reg_at(w, m->reg, 1, i) << 32;
		a += (uint64_t)m->imm;
		if (a % size)
			return 1;
		addr[i] = a;
		if (a < lo) {
			lo = a;
			lo_lane = (uint32_t)i;
		}
		hi = a > hi ? a : hi;
	}
	hi += size - 1;
	if (lo >> 12 != hi >> 12)
		return 1;
	p = xlate(cta, lo, size, st);
	if (!p)
		return cs_fail(cta, w, NVL_CS_GLOBAL_FAULT, lo_lane, lo);
	seen = cta->map_seen;
	q = xlate(cta, hi & ~(uint64_t)(size - 1), size, st);
	/* p is good only if q's translation did not leave the section */
	if (!q || (uint64_t)(q - p) != (hi & ~(uint64_t)(size - 1)) - lo ||
	    seen != cta->map_seen)
		return 1;
	for (int i = 0; i < L; i++) {
		uint8_t *x;

		if (!((mask >> i) & 1))
			continue;
		x = p + (addr[i] - lo);
		for (unsigned k = 0; k < size / 4; k++) {
			uint32_t v;

			if (st) {
				v = reg_at(w, vb->reg, k, i);
				nvl_model_mem_copy(x + 4 * k, &v, 4);
			} else {
				nvl_model_mem_copy(&v, x + 4 * k, 4);
				reg_put(w, d->reg, k, i, v);
			}
		}
	}
	if (st)
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return 0;
}

static int cs_memory(struct cs_cta *cta, struct cs_warp *w,
		     const struct cs_insn *ci, const uint32_t *a_unused,
		     uint32_t mask)
{
	const struct nvl_isa_insn *in = &ci->in;
	unsigned sem = in->row->sem;
	const struct nvl_isa_val *m = V(ci, R_MEM), *d = V(ci, R_DST);
	const struct nvl_isa_val *vb = V(ci, R_B), *vc = V(ci, R_C);
	bool global = global_sem(sem), atom = false, cas = false, wide;
	bool e = modv(ci, 72, 0);
	unsigned type, size, op = 0;

	switch (sem) {
	case NVL_SEM_ATOMG:
	case NVL_SEM_ATOMG_CAS:
	case NVL_SEM_RED:
	case NVL_SEM_ATOMS:
	case NVL_SEM_ATOMS_CAS:
		atom = true;
		cas = sem == NVL_SEM_ATOMG_CAS || sem == NVL_SEM_ATOMS_CAS;
		type = modv(ci, 73, 0);
		if (type == 4) /* F16x2 */
			return cs_fail(cta, w, NVL_CS_ILLEGAL_INSTRUCTION, 0,
				       0);
		wide = type == 2 || type == 5 || type == 6;
		size = wide ? 8 : 4;
		op = modv(ci, 87, 0);
		/* float atomics are ADD, MIN, MAX; shared 64-bit ones EXCH
		 * (and CAS) (reference §2.4): the rest would run as
		 * something else */
		if (!cas && (((type == 3 || type == 6) && op > 2) ||
			     (sem == NVL_SEM_ATOMS && wide && op != 8)))
			return cs_fail(cta, w, NVL_CS_ILLEGAL_INSTRUCTION, 0,
				       0);
		break;
	default:
		type = modv(ci, 73, 4);
		size = msize_tab[type];
		wide = false;
	}
	if ((sem == NVL_SEM_LDG || sem == NVL_SEM_STG) && size >= 4 && mask) {
		int r = cs_memory_block(cta, w, m, d, vb, sem == NVL_SEM_STG, e,
					size, mask);

		if (r <= 0)
			return r;
	}
	for (int i = 0; i < L; i++) {
		uint64_t addr;
		uint8_t *p, buf[16];

		if (!((mask >> i) & 1))
			continue;
		if (global) {
			addr = m->reg == NVL_ISA_RZ ? 0 : w->r[m->reg][i];
			if (e && m->reg != NVL_ISA_RZ)
				addr |= (uint64_t)reg_at(w, m->reg, 1, i) << 32;
		} else {
			addr = m->reg == NVL_ISA_RZ ? 0 : w->r[m->reg][i];
		}
		addr += (uint64_t)m->imm;
		if (!global)
			addr &= 0xffffffffu;
		if (addr % size)
			return cs_fail(cta, w, NVL_CS_MISALIGNED, (uint32_t)i,
				       addr);
		if (global) {
			p = xlate(cta, addr, size, sem != NVL_SEM_LDG);
			if (!p)
				return cs_fail(cta, w, NVL_CS_GLOBAL_FAULT,
					       (uint32_t)i, addr);
		} else {
			if (addr + size > cta->l->shared_B)
				return cs_fail(cta, w,
					       NVL_CS_SHARED_OUT_OF_BOUNDS,
					       (uint32_t)i, addr);
			p = cta->shared + addr;
		}
		if (atom) {
			uint64_t v = reg_at(w, vb->reg, 0, i), cmp = 0, old;

			if (wide)
				v |= (uint64_t)reg_at(w, vb->reg, 1, i) << 32;
			if (cas) {
				cmp = v;
				v = reg_at(w, vc->reg, 0, i);
				if (wide)
					v |= (uint64_t)reg_at(w, vc->reg, 1, i)
					     << 32;
			}
			old = do_atomic(p, wide, op, type, cas, cmp, v);
			if (d && d->reg != NVL_ISA_RZ) {
				reg_put(w, d->reg, 0, i, (uint32_t)old);
				if (wide)
					reg_put(w, d->reg, 1, i,
						(uint32_t)(old >> 32));
			}
			continue;
		}
		if (sem == NVL_SEM_STG || sem == NVL_SEM_STS) {
			for (unsigned k = 0; k < (size + 3) / 4; k++) {
				uint32_t v = reg_at(w, vb->reg, k, i);

				memcpy(buf + 4 * k, &v, 4);
			}
			if (global)
				nvl_model_mem_copy(p, buf, size);
			else
				memcpy(p, buf, size);
			continue;
		}
		memset(buf, 0, sizeof(buf));
		if (global)
			nvl_model_mem_copy(buf, p, size);
		else
			memcpy(buf, p, size);
		if (size < 4) {
			uint32_t v = size == 1
					     ? buf[0]
					     : (uint32_t)(buf[0] | buf[1] << 8);

			if (type == 1)
				v = (uint32_t)(int32_t)(int8_t)v;
			else if (type == 3)
				v = (uint32_t)(int32_t)(int16_t)v;
			reg_put(w, d->reg, 0, i, v);
			continue;
		}
		for (unsigned k = 0; k < size / 4; k++) {
			uint32_t v;

			memcpy(&v, buf + 4 * k, 4);
			reg_put(w, d->reg, k, i, v);
		}
	}
	if (atom || sem == NVL_SEM_STG)
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return 0;
}

static int cs_ldc(struct cs_cta *cta, struct cs_warp *w,
		  const struct cs_insn *ci, const uint32_t *a_unused,
		  uint32_t mask)
{
	const struct nvl_isa_val *cb = V(ci, R_CBUF), *d = V(ci, R_DST);
	unsigned size = msize_tab[modv(ci, 73, 4)];
	uint32_t lo[L], hi[L];

	if (size != 4 && size != 8)
		return cs_fail(cta, w, NVL_CS_ILLEGAL_INSTRUCTION, 0, 0);
	for (int i = 0; i < L; i++) {
		uint32_t v[2] = {0, 0};
		uint64_t off = (uint64_t)cb->imm;

		if (!((mask >> i) & 1) && !ci->uniform)
			continue;
		if (cb->reg != NVL_ISA_RZ)
			off += w->r[cb->reg][i];
		if (cread(cta, w, cb->bank, off, size, v))
			return -EFAULT;
		lo[i] = v[0];
		hi[i] = v[1];
		if (ci->uniform) {
			fill(lo, v[0]);
			fill(hi, v[1]);
			break;
		}
	}
	rset(w, d, lo, mask);
	if (size == 8) {
		struct nvl_isa_val d1 = *d;

		d1.reg++;
		if (d->reg != NVL_ISA_RZ && d->reg != NVL_ISA_URZ)
			rset(w, &d1, hi, mask);
	}
	return 0;
}

static int cs_shfl(struct cs_warp *w, const struct cs_insn *ci,
		   const uint32_t *a, const uint32_t *b, const uint32_t *c,
		   uint32_t mask)
{
	unsigned mode = modv(ci, 58, 0);
	uint32_t res[L], pv = 0;

	for (int i = 0; i < L; i++) {
		unsigned bval = b[i] & 0x1f, cval = c[i];
		unsigned seg = (cval >> 8) & 0x1f;
		unsigned maxl = ((unsigned)i & seg) | (cval & 0x1f & ~seg);
		unsigned minl = (unsigned)i & seg;
		int j;
		bool ok;

		switch (mode) {
		case 0:
			j = (int)(minl | (bval & ~seg));
			ok = (unsigned)j <= maxl;
			break;
		case 1:
			j = i - (int)bval;
			ok = j >= (int)maxl;
			break;
		case 2:
			j = i + (int)bval;
			ok = (unsigned)j <= maxl;
			break;
		default:
			j = i ^ (int)bval;
			ok = (unsigned)j <= maxl;
			break;
		}
		if (!ok || j < 0 || j > 31)
			j = i, ok = false;
		res[i] = a[j];
		pv |= (uint32_t)ok << i;
	}
	rset(w, V(ci, R_DST), res, mask);
	pset(w, V(ci, R_PD0), pv, mask);
	return 0;
}

static int cs_convert(struct cs_cta *cta, struct cs_warp *w,
		      const struct cs_insn *ci, const uint32_t *b,
		      uint32_t mask)
{
	const struct nvl_isa_insn *in = &ci->in;
	const uint32_t *bh = hi_of(w, V(ci, R_B));
	uint32_t res[L];
	uint64_t r2[L];
	static const int modes[4] = {FE_TONEAREST, FE_DOWNWARD, FE_UPWARD,
				     FE_TOWARDZERO};

	if (in->row->sem == NVL_SEM_I2F) {
		unsigned st = modv(ci, 74, 5), dst = modv(ci, 75, 2);
		unsigned rnd = modv(ci, 78, 0), ssz = st >> 1;
		bool sgn = st & 1;

		if (dst < 2)
			return cs_fail(cta, w, NVL_CS_ILLEGAL_INSTRUCTION, 0,
				       0);
		if (rnd)
			fesetround(modes[rnd]);
		for (int i = 0; i < L; i++) {
			uint64_t v = b[i];
			int64_t sv;

			if (ssz == 3)
				v |= (uint64_t)bh[i] << 32;
			else if (ssz < 2)
				v &= ssz ? 0xffff : 0xff;
			sv = ssz == 3	? (int64_t)v
			     : ssz == 2 ? (int32_t)v
			     : ssz == 1 ? (int16_t)v
					: (int8_t)v;
			if (dst == 2) {
				float f = sgn ? (float)sv : (float)v;

				res[i] = u32f(f);
			} else {
				double f = sgn ? (double)sv : (double)v;

				memcpy(&r2[i], &f, 8);
			}
		}
		if (rnd)
			fesetround(FE_TONEAREST);
		if (dst == 2)
			rset(w, V(ci, R_DST), res, mask);
		else
			rset2(w, V(ci, R_DST), r2, mask);
		return 0;
	}
	unsigned dt = modv(ci, 72, 5), ssz = modv(ci, 84, 2);
	unsigned rnd = modv(ci, 78, 0), dsz = dt >> 1;
	bool sgn = dt & 1, fz = modv(ci, 80, 0);

	if (ssz < 2 || dsz < 2)
		return cs_fail(cta, w, NVL_CS_ILLEGAL_INSTRUCTION, 0, 0);
	for (int i = 0; i < L; i++) {
		double x, lo, hi;

		if (ssz == 3) {
			uint64_t bits = (uint64_t)bh[i] << 32 | b[i];

			memcpy(&x, &bits, 8);
		} else {
			x = ftz(f32(b[i]), fz);
		}
		x = rnd == 0   ? nearbyint(x)
		    : rnd == 1 ? floor(x)
		    : rnd == 2 ? ceil(x)
			       : trunc(x);
		if (dsz == 3) {
			lo = sgn ? -9223372036854775808.0 : 0.0;
			hi = sgn ? 9223372036854775807.0
				 : 18446744073709551615.0;
		} else {
			lo = sgn ? -2147483648.0 : 0.0;
			hi = sgn ? 2147483647.0 : 4294967295.0;
		}
		if (isnan(x))
			r2[i] = 0;
		else if (x <= lo)
			r2[i] = sgn ? (uint64_t)(int64_t)lo : 0;
		else if (x >= hi)
			r2[i] = dsz == 3 ? (sgn ? INT64_MAX : UINT64_MAX)
					 : (uint64_t)hi;
		else
			r2[i] = sgn ? (uint64_t)(int64_t)x : (uint64_t)x;
		res[i] = (uint32_t)r2[i];
	}
	if (dsz == 3)
		rset2(w, V(ci, R_DST), r2, mask);
	else
		rset(w, V(ci, R_DST), res, mask);
	return 0;
}

int cs_exec(struct cs_cta *cta, struct cs_warp *w, const struct cs_insn *ci,
	    uint32_t mask)
{
	const struct nvl_isa_insn *in = &ci->in;
	uint32_t ta[L], tb[L], tc[L], res[L];
	const uint32_t *a, *b, *c;
	bool uni = ci->uniform;
	bool fp;
	int i;

	switch (in->row->sem) {
	case NVL_SEM_FADD:
	case NVL_SEM_FMUL:
	case NVL_SEM_FFMA:
	case NVL_SEM_FMNMX:
	case NVL_SEM_FSETP:
	case NVL_SEM_MUFU:
	case NVL_SEM_F2I:
		fp = true;
		break;
	default:
		fp = false;
	}
	a = src(cta, w, V(ci, R_A), ta, fp);
	b = src(cta, w, V(ci, R_B), tb, fp);
	c = src(cta, w, V(ci, R_C), tc, fp);
	if (!a || !b || !c)
		return -EFAULT;

	switch (in->row->sem) {
	case NVL_SEM_NOP:
	case NVL_SEM_MEMBAR:
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		return 0;
	case NVL_SEM_MOV:
		rset(w, V(ci, R_DST), b, mask);
		return 0;
	case NVL_SEM_R2UR:
		rset(w, V(ci, R_DST), a, mask);
		return 0;
	case NVL_SEM_S2R:
	case NVL_SEM_CS2R: {
		unsigned sr = V(ci, R_SR)->reg;

		for (i = 0; i < L; i++) {
			uint32_t x = 0;

			switch (sr) {
			case 0x00:
				x = (uint32_t)i;
				break;
			case 0x21:
			case 0x22:
			case 0x23:
				x = w->tid[sr - 0x21][i];
				break;
			case 0x25:
			case 0x26:
			case 0x27:
				x = cta->ctaid[sr - 0x25];
				break;
			case 0x38:
				x = 1u << i;
				break;
			case 0x39:
				x = (1u << i) - 1;
				break;
			case 0x3a:
				x = (uint32_t)((2ull << i) - 1);
				break;
			case 0x3b:
				x = ~(uint32_t)((2ull << i) - 1);
				break;
			case 0x3c:
				x = ~((1u << i) - 1);
				break;
			case 0x50:
			case 0x52:
				x = (uint32_t)cta->clock;
				break;
			}
			res[i] = x;
		}
		if (in->row->sem == NVL_SEM_CS2R && modv(ci, 80, 1)) {
			uint64_t r2[L];

			for (i = 0; i < L; i++)
				r2[i] = sr == 0xff ? 0 : res[i];
			rset2(w, V(ci, R_DST), r2, mask);
			return 0;
		}
		rset(w, V(ci, R_DST), res, mask);
		return 0;
	}
	case NVL_SEM_IADD3: {
		const struct nvl_isa_val *va = V(ci, R_A), *vb = V(ci, R_B),
					 *vc = V(ci, R_C);
		bool x = modv(ci, 74, 0);
		uint32_t cin0 = x ? pget(w, V(ci, R_PS0), uni) : 0;
		uint32_t cin1 = x ? pget(w, V(ci, R_PS1), uni) : 0;
		uint32_t co0 = 0, co1 = 0;

		if (!va->neg && !vb->neg && !vc->neg && !cin0 && !cin1 &&
		    (!V(ci, R_PD0) || V(ci, R_PD0)->reg == NVL_ISA_PT) &&
		    (!V(ci, R_PD1) || V(ci, R_PD1)->reg == NVL_ISA_PT)) {
			for (i = 0; i < L; i++)
				res[i] = a[i] + b[i] + c[i];
		} else {
			for (i = 0; i < L; i++) {
				uint64_t s = (uint64_t)a[i] + b[i] + c[i];

				/* a negated source was fetched as -x; as
				 * ~x + 1 it carries when x == 0 */
				s += (uint64_t)((va->neg && a[i] == 0) +
						(vb->neg && b[i] == 0) +
						(vc->neg && c[i] == 0))
				     << 32;
				s += ((cin0 >> i) & 1) + ((cin1 >> i) & 1);
				res[i] = (uint32_t)s;
				co0 |= (uint32_t)((s >> 32) >= 1) << i;
				co1 |= (uint32_t)((s >> 32) >= 2) << i;
			}
		}
		rset(w, V(ci, R_DST), res, mask);
		pset(w, V(ci, R_PD0), co0, mask);
		pset(w, V(ci, R_PD1), co1, mask);
		return 0;
	}
	case NVL_SEM_IMAD:
		for (i = 0; i < L; i++)
			res[i] = a[i] * b[i] + c[i];
		rset(w, V(ci, R_DST), res, mask);
		return 0;
	case NVL_SEM_IMAD_HI:
	case NVL_SEM_IMAD_WIDE: {
		bool sgn = modv(ci, 73, 1);
		const struct nvl_isa_val *vc = V(ci, R_C);
		uint64_t r2[L], c64 = 0;

		/* c of IMAD.WIDE is 64 bits wide in every form */
		if (vc->kind == NVL_ISA_V_CBUF) {
			if (cread(cta, w, vc->bank, (uint64_t)vc->imm, 8, &c64))
				return -EFAULT;
		} else if (vc->kind == NVL_ISA_V_UR) {
			c64 = (uint64_t)w->ur[vc->reg] |
			      (vc->reg < 62 ? (uint64_t)w->ur[vc->reg + 1] << 32
					    : 0);
		} else if (vc->kind == NVL_ISA_V_IMM) {
			c64 = (uint64_t)(int64_t)(int32_t)vc->imm;
		}
		if (vc->kind != NVL_ISA_V_R && vc->neg)
			c64 = -c64;
		for (i = 0; i < L; i++) {
			uint64_t p = sgn ? (uint64_t)((int64_t)(int32_t)a[i] *
						      (int32_t)b[i])
					 : (uint64_t)a[i] * b[i];
			uint64_t cc = c64;

			if (in->row->sem == NVL_SEM_IMAD_HI) {
				res[i] = (uint32_t)(p >> 32) + c[i];
				continue;
			}
			if (vc->kind == NVL_ISA_V_R) {
				cc = (uint64_t)hi_of(w, vc)[i] << 32 |
				     (vc->reg == NVL_ISA_RZ ? 0
							    : w->r[vc->reg][i]);
				if (vc->neg)
					cc = -cc;
			}
			r2[i] = p + cc;
		}
		if (in->row->sem == NVL_SEM_IMAD_HI)
			rset(w, V(ci, R_DST), res, mask);
		else
			rset2(w, V(ci, R_DST), r2, mask);
		return 0;
	}
	case NVL_SEM_LEA: {
		unsigned s = (unsigned)V(ci, R_IMM0)->imm;
		bool hi = modv(ci, 80, 0), x = modv(ci, 74, 0);
		uint32_t cin = x ? pget(w, V(ci, R_PS0), uni) : 0, co = 0;

		for (i = 0; i < L; i++) {
			uint64_t v =
				hi ? (((uint64_t)c[i] << 32 | a[i]) << s) >> 32
				   : (uint64_t)a[i] << s;
			uint64_t sum =
				(uint64_t)(uint32_t)v + b[i] + ((cin >> i) & 1);

			res[i] = (uint32_t)sum;
			co |= (uint32_t)(sum >> 32 & 1) << i;
		}
		rset(w, V(ci, R_DST), res, mask);
		pset(w, V(ci, R_PD0), co, mask);
		return 0;
	}
	case NVL_SEM_LOP3: {
		uint32_t lut = (uint32_t)V(ci, R_IMM0)->imm, nz = 0;

		/* sum of the minterms the LUT selects, lane-parallel */
		memset(res, 0, sizeof(res));
		for (int k = 0; k < 8; k++) {
			uint32_t ma = k & 4 ? 0 : NVL_CS_ALL;
			uint32_t mb = k & 2 ? 0 : NVL_CS_ALL;
			uint32_t mc = k & 1 ? 0 : NVL_CS_ALL;

			if (!((lut >> k) & 1))
				continue;
			for (i = 0; i < L; i++)
				res[i] |=
					(a[i] ^ ma) & (b[i] ^ mb) & (c[i] ^ mc);
		}
		rset(w, V(ci, R_DST), res, mask);
		if (V(ci, R_PD0) && V(ci, R_PD0)->reg != NVL_ISA_PT) {
			for (i = 0; i < L; i++)
				nz |= (uint32_t)(res[i] != 0) << i;
			pset(w, V(ci, R_PD0), nz, mask);
		}
		return 0;
	}
	case NVL_SEM_SHF: {
		bool right = modv(ci, 76, 0), wrap = modv(ci, 75, 0);
		bool hi = modv(ci, 80, 0);
		unsigned type = modv(ci, 73, 3); /* S64 U64 S32 U32 */
		unsigned bits = type >= 2 ? 32 : 64;

		bool arith = type == 0 || type == 2;

		/* {c:a} shifted in 128 bits so every amount up to 64 is
		 * defined; one loop per direction keeps the lanes branchless */
		for (i = 0; i < L; i++) {
			unsigned s = b[i];

			s = wrap ? s & (bits - 1) : (s > bits ? bits : s);
			res[i] = s;
		}
		if (!right) {
			for (i = 0; i < L; i++) {
				unsigned __int128 v =
					(unsigned __int128)((uint64_t)c[i]
								    << 32 |
							    a[i])
					<< res[i];

				res[i] = hi ? (uint32_t)((uint64_t)v >> 32)
					    : (uint32_t)v;
			}
		} else if (arith) {
			for (i = 0; i < L; i++) {
				__int128 v = (__int128)(int64_t)((uint64_t)c[i]
									 << 32 |
								 a[i]) >>
					     res[i];

				res[i] = hi ? (uint32_t)((uint64_t)v >> 32)
					    : (uint32_t)v;
			}
		} else {
			for (i = 0; i < L; i++) {
				unsigned __int128 v =
					(unsigned __int128)((uint64_t)c[i]
								    << 32 |
							    a[i]) >>
					res[i];

				res[i] = hi ? (uint32_t)((uint64_t)v >> 32)
					    : (uint32_t)v;
			}
		}
		rset(w, V(ci, R_DST), res, mask);
		return 0;
	}
	case NVL_SEM_IMNMX: {
		uint32_t pm = pget(w, V(ci, R_PS0), uni);
		bool sgn = modv(ci, 73, 1);

		for (i = 0; i < L; i++) {
			bool lt = sgn ? (int32_t)a[i] < (int32_t)b[i]
				      : a[i] < b[i];
			bool mn = (pm >> i) & 1;

			res[i] = (lt == mn) ? a[i] : b[i];
		}
		rset(w, V(ci, R_DST), res, mask);
		return 0;
	}
	case NVL_SEM_IABS:
		for (i = 0; i < L; i++)
			res[i] = (int32_t)b[i] < 0 ? -b[i] : b[i];
		rset(w, V(ci, R_DST), res, mask);
		return 0;
	case NVL_SEM_POPC:
		for (i = 0; i < L; i++)
			res[i] = (uint32_t)__builtin_popcount(b[i]);
		rset(w, V(ci, R_DST), res, mask);
		return 0;
	case NVL_SEM_FLO:
		for (i = 0; i < L; i++) {
			uint32_t x = b[i];

			if (modv(ci, 73, 1) && (int32_t)x < 0)
				x = ~x;
			res[i] = x ? 31u - (uint32_t)__builtin_clz(x)
				   : 0xffffffffu;
		}
		rset(w, V(ci, R_DST), res, mask);
		return 0;
	case NVL_SEM_BREV:
		for (i = 0; i < L; i++) {
			uint32_t x = b[i], r = 0;

			for (int k = 0; k < 32; k++)
				r |= ((x >> k) & 1) << (31 - k);
			res[i] = r;
		}
		rset(w, V(ci, R_DST), res, mask);
		return 0;
	case NVL_SEM_PRMT:
		for (i = 0; i < L; i++) {
			uint64_t v = (uint64_t)c[i] << 32 | a[i];
			uint32_t r = 0;

			for (int k = 0; k < 4; k++) {
				unsigned sel = (b[i] >> (4 * k)) & 0xf;
				uint32_t byte =
					(uint32_t)(v >> (8 * (sel & 7))) & 0xff;

				if (sel & 8)
					byte = byte & 0x80 ? 0xff : 0;
				r |= byte << (8 * k);
			}
			res[i] = r;
		}
		rset(w, V(ci, R_DST), res, mask);
		return 0;
	case NVL_SEM_ISETP:
	case NVL_SEM_FSETP: {
		/* compare codes are masks: LT 1, EQ 2, GT 4 (+ unordered 8) */
		bool f = in->row->sem == NVL_SEM_FSETP;
		unsigned op = modv(ci, 76, 0), bop = modv(ci, 74, 0);
		bool sgn = modv(ci, 73, 1), fz = f && modv(ci, 80, 0);
		uint32_t acc = pget(w, V(ci, R_PS0), uni), cm = 0;
		uint32_t mlt = op & 1 ? NVL_CS_ALL : 0;
		uint32_t meq = op & 2 ? NVL_CS_ALL : 0;
		uint32_t mgt = op & 4 ? NVL_CS_ALL : 0;
		uint32_t mun = op & 8 ? NVL_CS_ALL : 0;

		if (f) {
			for (i = 0; i < L; i++) {
				float x = ftz(f32(a[i]), fz);
				float y = ftz(f32(b[i]), fz);
				uint32_t un = isnan(x) || isnan(y);
				uint32_t lt = x<y, eq = x == y, gt = x> y;

				cm |= (((0u - lt) & mlt) | ((0u - eq) & meq) |
				       ((0u - gt) & mgt) | ((0u - un) & mun)) &
				      (1u << i);
			}
		} else {
			/* lane results as full masks (vectorizes), then pack */
			uint32_t t[L];
			uint32_t flip = sgn ? 0x80000000u : 0;

			for (i = 0; i < L; i++) {
				uint32_t x = a[i] ^ flip, y = b[i] ^ flip;

				t[i] = ((0u - (x < y)) & mlt) |
				       ((0u - (x == y)) & meq) |
				       ((0u - (x > y)) & mgt);
			}
			for (i = 0; i < L; i++)
				cm |= (t[i] & 1u) << i;
		}
		if (!f && op == 7)
			cm = NVL_CS_ALL;
		if (uni)
			cm = cm & 1 ? NVL_CS_ALL : 0;
		pset(w, V(ci, R_PD0), combine(bop, cm, acc), mask);
		pset(w, V(ci, R_PD1), combine(bop, ~cm, acc), mask);
		return 0;
	}
	case NVL_SEM_PLOP3: {
		uint32_t p0 = pget(w, V(ci, R_PS0), uni);
		uint32_t p1 = pget(w, V(ci, R_PS1), uni);
		uint32_t p2 = pget(w, V(ci, R_PS2), uni);

		pset(w, V(ci, R_PD0),
		     lop3(p0, p1, p2, (uint32_t)V(ci, R_IMM0)->imm), mask);
		pset(w, V(ci, R_PD1),
		     lop3(p0, p1, p2, (uint32_t)V(ci, R_IMM1)->imm), mask);
		return 0;
	}
	case NVL_SEM_SEL: {
		uint32_t pm = pget(w, V(ci, R_PS0), uni);

		for (i = 0; i < L; i++)
			res[i] = (pm >> i) & 1 ? a[i] : b[i];
		rset(w, V(ci, R_DST), res, mask);
		return 0;
	}
	case NVL_SEM_FADD:
	case NVL_SEM_FMUL:
	case NVL_SEM_FFMA:
	case NVL_SEM_FMNMX: {
		unsigned rnd = modv(ci, 78, 0), sem = in->row->sem;
		bool fz = modv(ci, 80, 0), sat = modv(ci, 77, 0);
		uint32_t pm = pget(w, V(ci, R_PS0), uni);
		static const int modes[4] = {FE_TONEAREST, FE_DOWNWARD,
					     FE_UPWARD, FE_TOWARDZERO};

		if (sem == NVL_SEM_FFMA && !rnd && !fz && !sat) {
			ffma_lanes(a, b, c, res);
			rset(w, V(ci, R_DST), res, mask);
			return 0;
		}
		if (rnd)
			fesetround(modes[rnd]);
		for (i = 0; i < L; i++) {
			float x = ftz(f32(a[i]), fz), y = ftz(f32(b[i]), fz);
			float r;

			if (sem == NVL_SEM_FADD)
				r = x + y;
			else if (sem == NVL_SEM_FMUL)
				r = x * y;
			else if (sem == NVL_SEM_FFMA)
				r = fmaf(x, y, ftz(f32(c[i]), fz));
			else
				r = (pm >> i) & 1 ? fminf(x, y) : fmaxf(x, y);
			r = ftz(r, fz);
			if (sat)
				r = isnan(r) ? 0.0f
					     : fminf(fmaxf(r, 0.0f), 1.0f);
			res[i] = u32f(r);
		}
		if (rnd)
			fesetround(FE_TONEAREST);
		rset(w, V(ci, R_DST), res, mask);
		return 0;
	}
	case NVL_SEM_MUFU: {
		unsigned fn = modv(ci, 74, 4);

		for (i = 0; i < L; i++) {
			float x = f32(b[i]), r;
			double d;

			switch (fn) {
			case 0: /* turns: NAK scales by 1/(2 pi) first */
				r = cosf(x * 6.2831853071795864f);
				break;
			case 1:
				r = sinf(x * 6.2831853071795864f);
				break;
			case 2:
				r = exp2f(x);
				break;
			case 3:
				r = log2f(x);
				break;
			case 4:
				r = 1.0f / x;
				break;
			case 5:
				r = 1.0f / sqrtf(x);
				break;
			case 6: /* high word of a double reciprocal */
			case 7: {
				uint64_t bits = (uint64_t)b[i] << 32;

				memcpy(&d, &bits, 8);
				d = fn == 6 ? 1.0 / d : 1.0 / sqrt(d);
				memcpy(&bits, &d, 8);
				res[i] = (uint32_t)(bits >> 32);
			}
				continue;
			case 8:
				r = sqrtf(x);
				break;
			default:
				r = tanhf(x);
				break;
			}
			res[i] = u32f(r);
		}
		rset(w, V(ci, R_DST), res, mask);
		return 0;
	}
	case NVL_SEM_I2F:
	case NVL_SEM_F2I:
		return cs_convert(cta, w, ci, b, mask);
	case NVL_SEM_LDG:
	case NVL_SEM_STG:
	case NVL_SEM_LDS:
	case NVL_SEM_STS:
	case NVL_SEM_ATOMG:
	case NVL_SEM_ATOMG_CAS:
	case NVL_SEM_RED:
	case NVL_SEM_ATOMS:
	case NVL_SEM_ATOMS_CAS:
		return cs_memory(cta, w, ci, a, mask);
	case NVL_SEM_LDC:
		return cs_ldc(cta, w, ci, a, mask);
	case NVL_SEM_SHFL:
		return cs_shfl(w, ci, a, b, c, mask);
	case NVL_SEM_VOTE: {
		uint32_t pm = pget(w, V(ci, R_PS0), uni) & mask, r;
		unsigned op = modv(ci, 72, 0);

		if (op == 0)
			r = pm == mask ? NVL_CS_ALL : 0;
		else if (op == 1)
			r = pm ? NVL_CS_ALL : 0;
		else
			r = (pm == mask || !pm) ? NVL_CS_ALL : 0;
		fill(res, pm);
		rset(w, V(ci, R_DST), res, mask);
		pset(w, V(ci, R_PD0), r, mask);
		return 0;
	}
	}
	return cs_fail(cta, w, NVL_CS_ILLEGAL_INSTRUCTION, 0, 0);
}

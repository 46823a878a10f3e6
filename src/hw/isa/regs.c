// SPDX-License-Identifier: MIT
/*
 * DOC: the GPRs an instruction names
 *
 * How many registers a thread needs is the highest GPR any instruction
 * names, counting the whole of a 64-bit pair or a 128-bit quad (reference
 * §1.1: a pair starts at an even register, a quad at a multiple of four,
 * with Rn the low word). The QMD's REGISTER_COUNT must cover it: the
 * driver's nvl_compute_program_info() sets it from here, and the model's
 * SM raises OOR_REG for an instruction past it (docs/compute.md).
 */
#include "hw/isa/isa.h"

/* the value of the modifier group whose field starts at bit @lo, or @def */
static unsigned mod_at(const struct nvl_isa_insn *in, unsigned lo, unsigned def)
{
	const struct nvl_isa_row *row = in->row;

	for (unsigned g = 0; g < row->nmod; g++)
		if (row->mod[g]->width && row->mod[g]->lo == lo)
			return in->mod[g];
	return def;
}

/* registers of a memory type (75:73): U8..32 one, 64 two, 128 four */
static unsigned mem_regs(unsigned t)
{
	return t == 5 ? 2 : t == 6 ? 4 : 1;
}

unsigned nvl_isa_gprs(const struct nvl_isa_insn *in, struct nvl_isa_gpr *out)
{
	const struct nvl_isa_row *row = in->row;
	unsigned dw = 1, sw = 1, mw = 1, cnt = 0, t;

	switch (row->sem) {
	case NVL_SEM_LDG:
	case NVL_SEM_LDS:
	case NVL_SEM_LDC:
		dw = mem_regs(mod_at(in, 73, 4));
		break;
	case NVL_SEM_STG:
	case NVL_SEM_STS:
		sw = mem_regs(mod_at(in, 73, 4));
		break;
	case NVL_SEM_CS2R:
		dw = mod_at(in, 80, 0) ? 2 : 1;
		break;
	case NVL_SEM_I2F:
		dw = mod_at(in, 75, 2) == 3 ? 2 : 1;
		sw = (mod_at(in, 74, 5) >> 1) == 3 ? 2 : 1;
		break;
	case NVL_SEM_F2I:
		dw = (mod_at(in, 72, 5) >> 1) == 3 ? 2 : 1;
		sw = mod_at(in, 84, 2) == 3 ? 2 : 1;
		break;
	case NVL_SEM_ATOMG:
	case NVL_SEM_ATOMG_CAS:
	case NVL_SEM_RED:
	case NVL_SEM_ATOMS:
	case NVL_SEM_ATOMS_CAS:
		/* U64 2, S64 5, F64 6: the result and the data are pairs */
		t = mod_at(in, 73, 0);
		dw = sw = (t == 2 || t == 5 || t == 6) ? 2 : 1;
		break;
	default:
		break;
	}
	/* a global address is a pair with .E (bit 72) */
	if (row->sem == NVL_SEM_LDG || row->sem == NVL_SEM_STG ||
	    row->sem == NVL_SEM_ATOMG || row->sem == NVL_SEM_ATOMG_CAS ||
	    row->sem == NVL_SEM_RED)
		mw = mod_at(in, 72, 0) ? 2 : 1;
	for (unsigned k = 0; k < row->nopnd; k++) {
		const struct nvl_isa_val *v = &in->op[k];
		uint8_t fl = row->opnd[k].flags;
		unsigned n;

		if (v->kind == NVL_ISA_V_MEM)
			n = mw;
		else if (v->kind == NVL_ISA_V_CBUF)
			n = 1; /* the index register: a 32-bit byte offset */
		else if (v->kind != NVL_ISA_V_R)
			continue;
		else if (fl & NVL_ISA_F_PAIR)
			n = 2;
		else if (fl & NVL_ISA_F_DST)
			n = dw;
		else
			n = sw;
		if (v->reg == NVL_ISA_RZ)
			continue;
		/* a pair or quad from R254 on would reach RZ: not a GPR */
		if (v->reg + n > NVL_ISA_RZ)
			n = NVL_ISA_RZ - v->reg;
		out[cnt].reg = v->reg;
		out[cnt].n = (uint8_t)n;
		out[cnt].dst = v->kind == NVL_ISA_V_R && (fl & NVL_ISA_F_DST);
		cnt++;
	}
	return cnt;
}

unsigned nvl_isa_gpr_end(const struct nvl_isa_insn *in)
{
	struct nvl_isa_gpr g[NVL_ISA_MAX_OPNDS];
	unsigned n = nvl_isa_gprs(in, g), end = 0;

	for (unsigned i = 0; i < n; i++)
		if (g[i].reg + g[i].n > end)
			end = g[i].reg + g[i].n;
	return end;
}

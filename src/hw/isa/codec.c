// SPDX-License-Identifier: MIT
/*
 * DOC: encoder and decoder
 *
 * Both walk a row of the table: the opcode (with the operand form for ALU
 * rows), the guard, each operand at its fields, each modifier group, the
 * fixed fields, the uniform bit and the control field. The decoder marks
 * every bit it consumed and rejects words with any other bit set, so a
 * decoded instruction always encodes back to the same 128 bits.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "hw/isa/isa.h"
#include "hw/isa/priv.h"

static const char *const arch_names[NVL_ISA_ARCH_COUNT] = {
	"sm75", "sm80", "sm86", "sm89", "sm90"};

const char *nvl_isa_arch_name(enum nvl_isa_arch arch)
{
	return (unsigned)arch < NVL_ISA_ARCH_COUNT ? arch_names[arch] : NULL;
}

int nvl_isa_arch_parse(const char *s, enum nvl_isa_arch *arch_out)
{
	if (!strncmp(s, "sm_", 3))
		s += 3;
	else if (!strncmp(s, "sm", 2))
		s += 2;
	for (int i = 0; i < NVL_ISA_ARCH_COUNT; i++) {
		if (!strcmp(s, arch_names[i] + 2)) {
			*arch_out = (enum nvl_isa_arch)i;
			return 0;
		}
	}
	return nvl_error(-EINVAL,
			 "isa: unknown architecture '%s' "
			 "(sm75, sm80, sm86, sm89, sm90)",
			 s);
}

const char *nvl_isa_row_name(const struct nvl_isa_row *row,
			     enum nvl_isa_arch arch)
{
	if (row->alt_name && arch >= row->alt_arch)
		return row->alt_name;
	return row->name;
}

const char *const *nvl_isa_mod_names(const struct nvl_isa_mdesc *m,
				     enum nvl_isa_arch arch)
{
	if (m->alt_names && arch >= m->alt_from)
		return m->alt_names;
	return m->names;
}

unsigned nvl_isa_mod_count(const struct nvl_isa_mdesc *m,
			   enum nvl_isa_arch arch)
{
	if (m->alt_names && arch >= m->alt_from)
		return m->alt_nnames;
	return m->nnames;
}

struct nvl_isa_ctrl nvl_isa_ctrl_default(void)
{
	return (struct nvl_isa_ctrl){.stall = 1, .wbar = 7, .rbar = 7};
}

/* ---- operand forms ----------------------------------------------------- */

/*
 * Where sources b and c of an ALU row sit for each form (reference §1.2):
 * kind (V_R, V_IMM, V_CBUF, V_UR) and area (32: slot 1, 64: 71:64).
 */
bool nvl_isa_form_layout(uint8_t alu, uint8_t form, struct nvl_isa_slot *b,
			 struct nvl_isa_slot *c)
{
	static const struct nvl_isa_slot none = {0, 0};
	static const struct nvl_isa_slot alu3[8][2] = {
		[1] = {{NVL_ISA_V_R, 32}, {NVL_ISA_V_R, 64}},
		[2] = {{NVL_ISA_V_R, 64}, {NVL_ISA_V_IMM, 32}},
		[3] = {{NVL_ISA_V_R, 64}, {NVL_ISA_V_CBUF, 32}},
		[4] = {{NVL_ISA_V_IMM, 32}, {NVL_ISA_V_R, 64}},
		[5] = {{NVL_ISA_V_CBUF, 32}, {NVL_ISA_V_R, 64}},
		[6] = {{NVL_ISA_V_UR, 32}, {NVL_ISA_V_R, 64}},
		[7] = {{NVL_ISA_V_R, 64}, {NVL_ISA_V_UR, 32}},
	};
	static const uint8_t alu2[8] = {[1] = NVL_ISA_V_R,
					[4] = NVL_ISA_V_IMM,
					[5] = NVL_ISA_V_CBUF,
					[6] = NVL_ISA_V_UR};
	static const uint8_t alu2x[8] = {[1] = NVL_ISA_V_R,
					 [2] = NVL_ISA_V_IMM,
					 [3] = NVL_ISA_V_CBUF,
					 [7] = NVL_ISA_V_UR};

	*b = none;
	*c = none;
	if (form > 7)
		return false;
	switch (alu) {
	case NVL_ISA_ALU3:
		*b = alu3[form][0];
		*c = alu3[form][1];
		return b->kind != 0;
	case NVL_ISA_ALU3U:
		if (form != 1 && form != 2 && form != 4)
			return false;
		*b = alu3[form][0];
		*c = alu3[form][1];
		if (b->kind == NVL_ISA_V_R)
			b->kind = NVL_ISA_V_UR;
		if (c->kind == NVL_ISA_V_R)
			c->kind = NVL_ISA_V_UR;
		return true;
	case NVL_ISA_ALU2U:
		if (form != 1 && form != 4)
			return false;
		b->kind = form == 1 ? NVL_ISA_V_UR : NVL_ISA_V_IMM;
		b->area = 32;
		return true;
	case NVL_ISA_ALU2:
		b->kind = alu2[form];
		b->area = 32;
		return b->kind != 0;
	case NVL_ISA_ALU2X:
		b->kind = alu2x[form];
		b->area = 32;
		return b->kind != 0;
	}
	return false;
}

int nvl_isa_pick_form(uint8_t alu, uint8_t bk, uint8_t ck)
{
	struct nvl_isa_slot b, c;

	for (uint8_t f = 1; f <= 7; f++) {
		if (!nvl_isa_form_layout(alu, f, &b, &c))
			continue;
		if (b.kind == bk && c.kind == ck)
			return f;
	}
	return -1;
}

/* ---- bit helpers ----------------------------------------------------- */

struct bits {
	uint64_t w[2];
	uint64_t used[2];
};

static uint64_t take(struct bits *b, unsigned lo, unsigned width)
{
	if (!width)
		return 0;
	nvl_isa_set(b->used, lo, width, ~0ull);
	return nvl_isa_get(b->w, lo, width);
}

static int64_t sext(uint64_t v, unsigned width)
{
	if (width == 0 || width >= 64)
		return (int64_t)v;
	return (int64_t)(v << (64 - width)) >> (64 - width);
}

static bool fits_u(int64_t v, unsigned width)
{
	return v >= 0 && (width >= 64 || (uint64_t)v < (1ull << width));
}

static bool fits_s(int64_t v, unsigned width)
{
	int64_t lim = 1ll << (width - 1);

	return v >= -lim && v < lim;
}

static unsigned reuse_slot(unsigned lo)
{
	return lo == 24 ? 1 : lo == 32 ? 2 : lo == 64 ? 3 : 0;
}

/* a row's "at least one of" constraint */
static bool any_holds(const struct nvl_isa_row *row, const uint64_t w[2])
{
	if (!row->nany)
		return true;
	for (unsigned i = 0; i < row->nany; i++)
		if (nvl_isa_get(w, row->any[i].lo, row->any[i].width) ==
		    row->any[i].value)
			return true;
	return false;
}

/* ---- encoder --------------------------------------------------------- */

static int enc_flex(const struct nvl_isa_val *v, struct nvl_isa_slot s,
		    uint8_t flags, uint64_t w[2], uint8_t *reuse)
{
	bool at32 = s.area == 32;

	if (v->kind != s.kind)
		return nvl_error(-EINVAL, "isa: operand kind does not match "
					  "form");
	if ((v->neg && !(flags & NVL_ISA_F_NEG)) ||
	    (v->abs && !(flags & NVL_ISA_F_ABS)))
		return nvl_error(-EINVAL, "isa: operand cannot be negated or "
					  "take |abs|");
	switch (v->kind) {
	case NVL_ISA_V_R:
		nvl_isa_set(w, s.area, 8, v->reg);
		if (v->reuse)
			*reuse |= 1u << (reuse_slot(s.area) - 1);
		break;
	case NVL_ISA_V_UR:
		if (v->reg > NVL_ISA_URZ)
			return nvl_error(-EINVAL, "isa: bad uniform register");
		nvl_isa_set(w, s.area, 8, v->reg);
		nvl_isa_set(w, 91, 1, 1);
		break;
	case NVL_ISA_V_IMM:
		if (v->neg || v->abs)
			return nvl_error(-EINVAL, "isa: an immediate takes no "
						  "modifier");
		if (v->imm < -(1ll << 31) || v->imm >= (1ll << 32))
			return nvl_error(-EINVAL, "isa: immediate does not fit "
						  "32 bits");
		nvl_isa_set(w, 32, 32, (uint64_t)v->imm);
		return 0;
	case NVL_ISA_V_CBUF:
		if (v->bank > 31 || !fits_u(v->imm, 16) || v->reg != NVL_ISA_RZ)
			return nvl_error(-EINVAL, "isa: c[bank][offset] out of "
						  "range (bank < 32, offset < "
						  "0x10000)");
		nvl_isa_set(w, 54, 5, v->bank);
		nvl_isa_set(w, 38, 16, (uint64_t)v->imm);
		break;
	default:
		return nvl_error(-EINVAL, "isa: bad source operand");
	}
	if (v->neg)
		nvl_isa_set(w, at32 ? 63 : 75, 1, 1);
	if (v->abs)
		nvl_isa_set(w, at32 ? 62 : 74, 1, 1);
	return 0;
}

static int enc_opnd(const struct nvl_isa_odesc *d, const struct nvl_isa_val *v,
		    uint64_t w[2], uint8_t *reuse, uint64_t pc_unused)
{
	switch (d->kind) {
	case NVL_ISA_O_R:
		if (v->kind != NVL_ISA_V_R)
			goto kind;
		nvl_isa_set(w, d->lo, 8, v->reg);
		if ((v->neg && !(d->flags & NVL_ISA_F_NEG)) ||
		    (v->abs && !(d->flags & NVL_ISA_F_ABS)))
			return nvl_error(-EINVAL, "isa: register cannot be "
						  "negated or take |abs|");
		if (v->neg)
			nvl_isa_set(w, d->neg_bit, 1, 1);
		if (v->abs)
			nvl_isa_set(w, d->abs_bit, 1, 1);
		if (v->reuse) {
			if (!reuse_slot(d->lo) || (d->flags & NVL_ISA_F_DST))
				return nvl_error(-EINVAL, "isa: .reuse on an "
							  "operand without a "
							  "reuse slot");
			*reuse |= 1u << (reuse_slot(d->lo) - 1);
		}
		return 0;
	case NVL_ISA_O_UR:
		if (v->kind != NVL_ISA_V_UR)
			goto kind;
		if (v->reg > NVL_ISA_URZ)
			return nvl_error(-EINVAL, "isa: bad uniform register");
		nvl_isa_set(w, d->lo, 8, v->reg);
		return 0;
	case NVL_ISA_O_P:
	case NVL_ISA_O_UP:
		if (v->kind !=
		    (d->kind == NVL_ISA_O_P ? NVL_ISA_V_P : NVL_ISA_V_UP))
			goto kind;
		if (v->reg > 7)
			return nvl_error(-EINVAL, "isa: bad predicate");
		nvl_isa_set(w, d->lo, 3, v->reg);
		if (d->flags & NVL_ISA_F_NOT)
			nvl_isa_set(w, d->lo2, 1, v->not_);
		else if (v->not_)
			return nvl_error(-EINVAL, "isa: a destination "
						  "predicate cannot be "
						  "negated");
		return 0;
	case NVL_ISA_O_B:
		if (v->kind != NVL_ISA_V_B)
			goto kind;
		if (v->reg > 15)
			return nvl_error(-EINVAL, "isa: bad barrier register");
		nvl_isa_set(w, d->lo, 4, v->reg);
		return 0;
	case NVL_ISA_O_SR:
		if (v->kind != NVL_ISA_V_SR)
			goto kind;
		nvl_isa_set(w, d->lo, 8, v->reg);
		return 0;
	case NVL_ISA_O_IMM: {
		unsigned width = d->width + d->width2;

		if (v->kind != NVL_ISA_V_IMM)
			goto kind;
		if (width == 0) {
			if (v->imm != 0)
				return nvl_error(-EINVAL, "isa: only 0 is "
							  "encodable here");
			return 0;
		}
		if (!fits_u(v->imm, width) &&
		    !((d->flags & NVL_ISA_F_SIGNED) && fits_s(v->imm, width)))
			return nvl_error(-EINVAL,
					 "isa: immediate %lld does "
					 "not fit %u bits",
					 (long long)v->imm, width);
		nvl_isa_set(w, d->lo, d->width, (uint64_t)v->imm);
		if (d->width2)
			nvl_isa_set(w, d->lo2, d->width2,
				    (uint64_t)v->imm >> d->width);
		return 0;
	}
	case NVL_ISA_O_CBUF:
		if (v->kind != NVL_ISA_V_CBUF)
			goto kind;
		if (v->bank > 31 || !fits_u(v->imm, 16))
			return nvl_error(-EINVAL, "isa: c[bank][offset] out of "
						  "range");
		if (!d->width && v->reg != NVL_ISA_RZ)
			return nvl_error(-EINVAL, "isa: no index register "
						  "here");
		if (d->width)
			nvl_isa_set(w, d->lo, 8, v->reg);
		nvl_isa_set(w, 54, 5, v->bank);
		nvl_isa_set(w, 38, 16, (uint64_t)v->imm);
		return 0;
	case NVL_ISA_O_MEM:
		if (v->kind != NVL_ISA_V_MEM)
			goto kind;
		if (!fits_s(v->imm, d->width2))
			return nvl_error(-EINVAL,
					 "isa: address offset %lld "
					 "does not fit %u signed bits",
					 (long long)v->imm, d->width2);
		nvl_isa_set(w, d->lo, 8, v->reg);
		nvl_isa_set(w, d->lo2, d->width2, (uint64_t)v->imm);
		return 0;
	case NVL_ISA_O_TARGET:
		if (v->kind != NVL_ISA_V_TARGET)
			goto kind;
		if (v->imm & 3 || !fits_s(v->imm / 4, d->width))
			return nvl_error(-EINVAL,
					 "isa: branch offset %lld out "
					 "of range",
					 (long long)v->imm);
		nvl_isa_set(w, d->lo, d->width, (uint64_t)(v->imm / 4));
		return 0;
	}
kind:
	return nvl_error(-EINVAL, "isa: operand of the wrong kind");
}

static int encode(const struct nvl_isa_insn *insn, enum nvl_isa_arch arch,
		  uint64_t w[2], int *bad_opnd)
{
	const struct nvl_isa_row *row = insn->row;
	struct nvl_isa_slot sb, sc;
	uint8_t reuse = 0;
	int ret;

	w[0] = w[1] = 0;
	if (!row || (unsigned)arch >= NVL_ISA_ARCH_COUNT ||
	    arch < row->arch_min)
		return nvl_error(-EINVAL,
				 "isa: instruction not available on "
				 "%s",
				 nvl_isa_arch_name(arch) ?: "?");
	if (row->alu) {
		if (!nvl_isa_form_layout(row->alu, insn->form, &sb, &sc))
			return nvl_error(-EINVAL,
					 "isa: %s has no operand form "
					 "%u",
					 row->name, insn->form);
		nvl_isa_set(w, 0, 9, row->opcode & 0x1ff);
		nvl_isa_set(w, 9, 3, insn->form);
	} else {
		nvl_isa_set(w, 0, 12, row->opcode);
	}
	if (insn->guard > 7)
		return nvl_error(-EINVAL, "isa: bad guard predicate");
	nvl_isa_set(w, 12, 3, insn->guard);
	nvl_isa_set(w, 15, 1, insn->guard_not);

	for (unsigned i = 0; i < row->nopnd; i++) {
		const struct nvl_isa_odesc *d = &row->opnd[i];

		if (d->kind == NVL_ISA_O_FLEXB)
			ret = enc_flex(&insn->op[i], sb, d->flags, w, &reuse);
		else if (d->kind == NVL_ISA_O_FLEXC)
			ret = enc_flex(&insn->op[i], sc, d->flags, w, &reuse);
		else
			ret = enc_opnd(d, &insn->op[i], w, &reuse, 0);
		if (ret) {
			*bad_opnd = (int)i;
			return ret;
		}
	}
	for (unsigned i = 0; i < row->nmod; i++) {
		const struct nvl_isa_mdesc *m = row->mod[i];
		const char *const *names = nvl_isa_mod_names(m, arch);
		unsigned v = insn->mod[i];

		if (v >= nvl_isa_mod_count(m, arch) || !names[v])
			return nvl_error(-EINVAL,
					 "isa: %s: reserved modifier "
					 "value %u",
					 row->name, v);
		nvl_isa_set(w, m->lo, m->width, v);
		if (m->width2)
			nvl_isa_set(w, m->lo2, m->width2, v >> m->width);
	}
	for (unsigned i = 0; i < row->nfixed; i++)
		nvl_isa_set(w, row->fixed[i].lo, row->fixed[i].width,
			    row->fixed[i].value);
	if (row->flags & NVL_ISA_R_UNIFORM)
		nvl_isa_set(w, 91, 1, 1);
	if (!any_holds(row, w))
		return nvl_error(-EINVAL,
				 "isa: %s: this opcode needs a 64-bit "
				 "side (.F64, .S64, .U64)",
				 row->name);

	const struct nvl_isa_ctrl *c = &insn->ctrl;

	if (c->stall > 15 || c->yield > 1 || c->wbar > 7 || c->rbar > 7 ||
	    c->wait > 63 || c->reuse > 15)
		return nvl_error(-EINVAL, "isa: control field out of range");
	if (c->wbar == 6 || c->rbar == 6)
		return nvl_error(-EINVAL, "isa: no scoreboard 6 (0-5, 7 = "
					  "none)");
	nvl_isa_set(w, 105, 4, c->stall);
	nvl_isa_set(w, 109, 1, c->yield);
	nvl_isa_set(w, 110, 3, c->wbar);
	nvl_isa_set(w, 113, 3, c->rbar);
	nvl_isa_set(w, 116, 6, c->wait);
	nvl_isa_set(w, 122, 4, c->reuse | reuse);
	return 0;
}

/*
 * The text of the last nvl_error(@err, ...) (an operand's or field's
 * check) without its "isa: " prefix and " (strerror)" suffix, for a
 * message that wraps it.
 */
static void reason(int err, char *why, size_t size)
{
	const char *m = nvl_error_msg(), *e = strerror(-err);
	size_t n, k = strlen(e);

	if (!strncmp(m, "isa: ", 5))
		m += 5;
	n = strlen(m);
	if (n >= k + 3 && m[n - 1] == ')' && !strncmp(m + n - k - 1, e, k) &&
	    !strncmp(m + n - k - 3, " (", 2))
		n -= k + 3;
	snprintf(why, size, "%.*s", (int)n, m);
}

int nvl_isa_encode_why(const struct nvl_isa_insn *insn, enum nvl_isa_arch arch,
		       uint64_t w[2], int *bad_opnd, char *why, size_t size)
{
	int ret;

	*bad_opnd = -1;
	ret = encode(insn, arch, w, bad_opnd);
	if (ret)
		reason(ret, why, size);
	return ret;
}

int nvl_isa_encode(const struct nvl_isa_insn *insn, enum nvl_isa_arch arch,
		   uint64_t w[2])
{
	char why[160];
	int bad,
		ret = nvl_isa_encode_why(insn, arch, w, &bad, why, sizeof(why));

	if (ret && bad >= 0)
		return nvl_error(ret, "isa: %s operand %d: %s", insn->row->name,
				 bad + 1, why);
	if (ret)
		return nvl_error(ret, "isa: %s", why);
	return 0;
}

/* ---- decoder --------------------------------------------------------- */

static uint8_t op_index[NVL_ISA_ARCH_COUNT][4096];
static pthread_once_t op_index_once = PTHREAD_ONCE_INIT;

static void build_index(void)
{
	size_t n;
	const struct nvl_isa_row *rows = nvl_isa_rows(&n);

	for (size_t i = 0; i < n; i++) {
		const struct nvl_isa_row *r = &rows[i];

		for (int a = r->arch_min; a < NVL_ISA_ARCH_COUNT; a++) {
			if (!r->alu) {
				op_index[a][r->opcode] = (uint8_t)(i + 1);
				continue;
			}
			for (uint8_t f = 1; f <= 7; f++) {
				struct nvl_isa_slot b, c;

				if (nvl_isa_form_layout(r->alu, f, &b, &c))
					op_index[a][(r->opcode & 0x1ff) |
						    f << 9] = (uint8_t)(i + 1);
			}
		}
	}
}

const struct nvl_isa_row *nvl_isa_lookup(uint16_t opcode,
					 enum nvl_isa_arch arch)
{
	size_t n;
	const struct nvl_isa_row *rows = nvl_isa_rows(&n);
	uint8_t i;

	pthread_once(&op_index_once, build_index);
	i = op_index[arch][opcode & 0xfff];
	return i ? &rows[i - 1] : NULL;
}

static int dec_flex(struct bits *b, struct nvl_isa_slot s, uint8_t flags,
		    struct nvl_isa_val *v, uint8_t reuse)
{
	bool at32 = s.area == 32;

	v->kind = s.kind;
	switch (s.kind) {
	case NVL_ISA_V_R:
		v->reg = (uint8_t)take(b, s.area, 8);
		v->reuse = (reuse >> (reuse_slot(s.area) - 1)) & 1;
		if (v->reuse)
			take(b, 121 + reuse_slot(s.area), 1);
		break;
	case NVL_ISA_V_UR:
		v->reg = (uint8_t)take(b, s.area, 8);
		if (v->reg > NVL_ISA_URZ)
			return nvl_error(-EINVAL,
					 "isa: bad uniform register "
					 "%u",
					 v->reg);
		if (!take(b, 91, 1))
			return nvl_error(-EINVAL, "isa: UR operand without bit "
						  "91");
		break;
	case NVL_ISA_V_IMM:
		v->imm = (int64_t)take(b, 32, 32);
		if ((flags & NVL_ISA_F_SIGNED) && !(flags & NVL_ISA_F_FLOAT))
			v->imm = sext((uint64_t)v->imm, 32);
		return 0;
	case NVL_ISA_V_CBUF:
		v->bank = (uint8_t)take(b, 54, 5);
		v->imm = (int64_t)take(b, 38, 16);
		v->reg = NVL_ISA_RZ;
		break;
	}
	if (flags & NVL_ISA_F_NEG)
		v->neg = take(b, at32 ? 63 : 75, 1);
	if (flags & NVL_ISA_F_ABS)
		v->abs = take(b, at32 ? 62 : 74, 1);
	return 0;
}

static int dec_opnd(struct bits *b, const struct nvl_isa_odesc *d,
		    struct nvl_isa_val *v, uint8_t reuse)
{
	switch (d->kind) {
	case NVL_ISA_O_R:
		v->kind = NVL_ISA_V_R;
		v->reg = (uint8_t)take(b, d->lo, 8);
		if (d->flags & NVL_ISA_F_NEG)
			v->neg = take(b, d->neg_bit, 1);
		if (d->flags & NVL_ISA_F_ABS)
			v->abs = take(b, d->abs_bit, 1);
		if (reuse_slot(d->lo) && !(d->flags & NVL_ISA_F_DST)) {
			v->reuse = (reuse >> (reuse_slot(d->lo) - 1)) & 1;
			if (v->reuse)
				take(b, 121 + reuse_slot(d->lo), 1);
		}
		return 0;
	case NVL_ISA_O_UR:
		v->kind = NVL_ISA_V_UR;
		v->reg = (uint8_t)take(b, d->lo, 8);
		if (v->reg > NVL_ISA_URZ)
			return nvl_error(-EINVAL,
					 "isa: bad uniform register "
					 "%u",
					 v->reg);
		return 0;
	case NVL_ISA_O_P:
	case NVL_ISA_O_UP:
		v->kind = d->kind == NVL_ISA_O_P ? NVL_ISA_V_P : NVL_ISA_V_UP;
		v->reg = (uint8_t)take(b, d->lo, 3);
		if (d->flags & NVL_ISA_F_NOT)
			v->not_ = take(b, d->lo2, 1);
		return 0;
	case NVL_ISA_O_B:
		v->kind = NVL_ISA_V_B;
		v->reg = (uint8_t)take(b, d->lo, 4);
		return 0;
	case NVL_ISA_O_SR:
		v->kind = NVL_ISA_V_SR;
		v->reg = (uint8_t)take(b, d->lo, 8);
		return 0;
	case NVL_ISA_O_IMM:
		v->kind = NVL_ISA_V_IMM;
		v->imm = (int64_t)take(b, d->lo, d->width);
		if (d->width2)
			v->imm |= (int64_t)(take(b, d->lo2, d->width2)
					    << d->width);
		return 0;
	case NVL_ISA_O_CBUF:
		v->kind = NVL_ISA_V_CBUF;
		v->reg = d->width ? (uint8_t)take(b, d->lo, 8) : NVL_ISA_RZ;
		v->bank = (uint8_t)take(b, 54, 5);
		v->imm = (int64_t)take(b, 38, 16);
		return 0;
	case NVL_ISA_O_MEM:
		v->kind = NVL_ISA_V_MEM;
		v->reg = (uint8_t)take(b, d->lo, 8);
		v->imm = sext(take(b, d->lo2, d->width2), d->width2);
		return 0;
	case NVL_ISA_O_TARGET:
		v->kind = NVL_ISA_V_TARGET;
		v->imm = sext(take(b, d->lo, d->width), d->width) * 4;
		return 0;
	}
	return nvl_error(-EINVAL, "isa: bad table operand");
}

int nvl_isa_decode(const uint64_t w[2], enum nvl_isa_arch arch,
		   struct nvl_isa_insn *insn_out)
{
	struct nvl_isa_insn insn = {0};
	struct bits b = {.w = {w[0], w[1]}};
	const struct nvl_isa_row *row;
	struct nvl_isa_slot sb = {0}, sc = {0};
	uint8_t reuse;
	int ret;

	if ((unsigned)arch >= NVL_ISA_ARCH_COUNT)
		return nvl_error(-EINVAL, "isa: bad architecture");
	row = nvl_isa_lookup((uint16_t)(w[0] & 0xfff), arch);
	if (!row)
		return nvl_error(-EINVAL, "isa: unknown opcode 0x%03x",
				 (unsigned)(w[0] & 0xfff));
	take(&b, 0, 12);
	insn.row = row;
	if (row->alu) {
		insn.form = (uint8_t)((w[0] >> 9) & 7);
		nvl_isa_form_layout(row->alu, insn.form, &sb, &sc);
	}
	insn.guard = (uint8_t)take(&b, 12, 3);
	insn.guard_not = take(&b, 15, 1);
	insn.ctrl.stall = (uint8_t)take(&b, 105, 4);
	insn.ctrl.yield = (uint8_t)take(&b, 109, 1);
	insn.ctrl.wbar = (uint8_t)take(&b, 110, 3);
	insn.ctrl.rbar = (uint8_t)take(&b, 113, 3);
	/* six scoreboards (the wait mask's bits), 7 = none */
	if (insn.ctrl.wbar == 6 || insn.ctrl.rbar == 6)
		return nvl_error(-EINVAL,
				 "isa: %s: no scoreboard 6 in bits %u:%u",
				 row->name, insn.ctrl.wbar == 6 ? 112 : 115,
				 insn.ctrl.wbar == 6 ? 110 : 113);
	insn.ctrl.wait = (uint8_t)take(&b, 116, 6);
	reuse = (uint8_t)nvl_isa_get(w, 122, 4);
	insn.ctrl.reuse = reuse;

	for (unsigned i = 0; i < row->nopnd; i++) {
		const struct nvl_isa_odesc *d = &row->opnd[i];

		if (d->kind == NVL_ISA_O_FLEXB)
			ret = dec_flex(&b, sb, d->flags, &insn.op[i], reuse);
		else if (d->kind == NVL_ISA_O_FLEXC)
			ret = dec_flex(&b, sc, d->flags, &insn.op[i], reuse);
		else
			ret = dec_opnd(&b, d, &insn.op[i], reuse);
		if (ret)
			return ret;
	}
	for (unsigned i = 0; i < row->nmod; i++) {
		const struct nvl_isa_mdesc *m = row->mod[i];
		const char *const *names = nvl_isa_mod_names(m, arch);
		unsigned v = (unsigned)take(&b, m->lo, m->width);

		if (m->width2)
			v |= (unsigned)take(&b, m->lo2, m->width2) << m->width;
		if (v >= nvl_isa_mod_count(m, arch) || !names[v])
			return nvl_error(-EINVAL,
					 "isa: %s: reserved modifier "
					 "value %u at bit %u",
					 row->name, v, m->lo);
		insn.mod[i] = (uint16_t)v;
	}
	for (unsigned i = 0; i < row->nfixed; i++) {
		const struct nvl_isa_fixed *f = &row->fixed[i];

		if (take(&b, f->lo, f->width) != f->value)
			return nvl_error(-EINVAL,
					 "isa: %s: bits %u:%u must be "
					 "0x%x",
					 row->name, f->lo + f->width - 1, f->lo,
					 f->value);
	}
	if (row->flags & NVL_ISA_R_UNIFORM) {
		if (!take(&b, 91, 1))
			return nvl_error(-EINVAL,
					 "isa: %s without the uniform "
					 "bit 91",
					 row->name);
	}
	if (!any_holds(row, w))
		return nvl_error(-EINVAL,
				 "isa: %s: opcode 0x%03x without a "
				 "64-bit side",
				 row->name, (unsigned)(w[0] & 0xfff));
	for (int k = 0; k < 2; k++) {
		uint64_t extra = w[k] & ~b.used[k];

		if (extra) {
			unsigned bit = (unsigned)__builtin_ctzll(extra) +
				       64u * (unsigned)k;

			return nvl_error(-EINVAL,
					 "isa: %s: bit %u is set but "
					 "has no meaning in this "
					 "encoding",
					 row->name, bit);
		}
	}
	*insn_out = insn;
	return 0;
}

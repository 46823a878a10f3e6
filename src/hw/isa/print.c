// SPDX-License-Identifier: MIT
/*
 * DOC: disassembler text
 *
 *   [B0-----:R-:W1:Y:S04] @!P0 IADD3 R1, R2.reuse, -0x1, RZ ;
 *
 * The control prefix follows CuAssembler: B = wait mask (digit i when
 * waiting on scoreboard i), R/W = read/write scoreboard ('-' = 7, none),
 * Y when the yield bit 109 is clear, S = stall cycles. The assembler
 * (asm.c) reads exactly this syntax back.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/log.h"
#include "hw/isa/priv.h"

static const struct {
	uint8_t idx;
	const char *name;
} sr_names[] = {
	{0x00, "SR_LANEID"},	    {0x03, "SR_VIRTID"},
	{0x20, "SR_TID"},	    {0x21, "SR_TID.X"},
	{0x22, "SR_TID.Y"},	    {0x23, "SR_TID.Z"},
	{0x25, "SR_CTAID.X"},	    {0x26, "SR_CTAID.Y"},
	{0x27, "SR_CTAID.Z"},	    {0x38, "SR_EQMASK"},
	{0x39, "SR_LTMASK"},	    {0x3a, "SR_LEMASK"},
	{0x3b, "SR_GTMASK"},	    {0x3c, "SR_GEMASK"},
	{0x43, "SR_VIRTUALSMID"},   {0x50, "SR_CLOCKLO"},
	{0x52, "SR_GLOBALTIMERLO"}, {0xff, "SRZ"},
};

const char *nvl_isa_sr_name(unsigned i)
{
	for (size_t k = 0; k < sizeof(sr_names) / sizeof(sr_names[0]); k++)
		if (sr_names[k].idx == i)
			return sr_names[k].name;
	return NULL;
}

struct out {
	char *buf;
	size_t size, len;
};

static void put(struct out *o, const char *fmt, ...) NVL_PRINTF(2, 3);

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->len < o->size ? o->buf + o->len : NULL,
		      o->len < o->size ? o->size - o->len : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

static void put_hex(struct out *o, int64_t v, bool is_signed)
{
	if (is_signed && v < 0)
		put(o, "-0x%" PRIx64, (uint64_t)-v);
	else
		put(o, "0x%" PRIx64, (uint64_t)v);
}

/* An f32 immediate: the shortest decimal that reads back to the same bits,
 * or the raw bits in hex for Inf and NaN. */
static void put_f32(struct out *o, uint32_t bits)
{
	char tmp[40];
	float f;

	memcpy(&f, &bits, 4);
	if (!isfinite(f)) {
		put(o, "0x%08x", bits);
		return;
	}
	for (int prec = 1; prec <= 9; prec++) {
		float back;
		uint32_t bb;

		snprintf(tmp, sizeof(tmp), "%.*g", prec, (double)f);
		back = strtof(tmp, NULL);
		memcpy(&bb, &back, 4);
		if (bb == bits)
			break;
	}
	put(o, "%s", tmp);
}

static void put_reg(struct out *o, const struct nvl_isa_val *v)
{
	if (v->neg)
		put(o, "-");
	if (v->abs)
		put(o, "|");
	switch (v->kind) {
	case NVL_ISA_V_R:
		if (v->reg == NVL_ISA_RZ)
			put(o, "RZ");
		else
			put(o, "R%u", v->reg);
		break;
	case NVL_ISA_V_UR:
		if (v->reg == NVL_ISA_URZ)
			put(o, "URZ");
		else
			put(o, "UR%u", v->reg);
		break;
	case NVL_ISA_V_CBUF:
		put(o, "c[0x%x][", v->bank);
		if (v->reg != NVL_ISA_RZ) {
			put(o, "R%u", v->reg);
			if (v->imm)
				put(o, "+0x%" PRIx64, (uint64_t)v->imm);
		} else {
			put(o, "0x%" PRIx64, (uint64_t)v->imm);
		}
		put(o, "]");
		break;
	}
	if (v->abs)
		put(o, "|");
	if (v->reuse)
		put(o, ".reuse");
}

static void put_val(struct out *o, const struct nvl_isa_odesc *d,
		    const struct nvl_isa_val *v, uint64_t pc)
{
	const char *s;

	switch (v->kind) {
	case NVL_ISA_V_R:
	case NVL_ISA_V_UR:
	case NVL_ISA_V_CBUF:
		put_reg(o, v);
		return;
	case NVL_ISA_V_P:
	case NVL_ISA_V_UP:
		put(o, "%s%s", v->not_ ? "!" : "",
		    v->kind == NVL_ISA_V_UP ? "U" : "");
		if (v->reg == NVL_ISA_PT)
			put(o, "PT");
		else
			put(o, "P%u", v->reg);
		return;
	case NVL_ISA_V_B:
		put(o, "B%u", v->reg);
		return;
	case NVL_ISA_V_SR:
		s = nvl_isa_sr_name(v->reg);
		if (s)
			put(o, "%s", s);
		else
			put(o, "SR%u", v->reg);
		return;
	case NVL_ISA_V_IMM:
		if (d->flags & NVL_ISA_F_FLOAT)
			put_f32(o, (uint32_t)v->imm);
		else
			put_hex(o, v->imm, d->flags & NVL_ISA_F_SIGNED);
		return;
	case NVL_ISA_V_MEM:
		put(o, "[");
		if (v->reg == NVL_ISA_RZ)
			put(o, "RZ");
		else
			put(o, "R%u", v->reg);
		if (v->imm > 0)
			put(o, "+0x%" PRIx64, (uint64_t)v->imm);
		else if (v->imm < 0)
			put(o, "-0x%" PRIx64, (uint64_t)-v->imm);
		put(o, "]");
		return;
	case NVL_ISA_V_TARGET:
		put(o, "0x%" PRIx64, pc + 16 + (uint64_t)v->imm);
		return;
	}
}

static bool is_default(const struct nvl_isa_odesc *d,
		       const struct nvl_isa_val *v)
{
	uint32_t cur = v->reg | (uint32_t)v->not_ << 3;

	return cur == d->def;
}

int nvl_isa_print(const struct nvl_isa_insn *insn, enum nvl_isa_arch arch,
		  uint64_t pc, bool ctrl, char *buf, size_t size)
{
	const struct nvl_isa_row *row = insn->row;
	struct out o = {buf, size, 0};
	bool first = true;

	if (!row || (unsigned)arch >= NVL_ISA_ARCH_COUNT)
		return nvl_error(-EINVAL, "isa: nothing to print");
	if (size)
		buf[0] = 0;
	if (ctrl) {
		const struct nvl_isa_ctrl *c = &insn->ctrl;

		put(&o, "[B");
		for (int i = 0; i < 6; i++)
			put(&o, "%c", (c->wait >> i) & 1 ? '0' + i : '-');
		put(&o, ":R%c:W%c:%c:S%02u] ",
		    c->rbar == 7 ? '-' : '0' + c->rbar,
		    c->wbar == 7 ? '-' : '0' + c->wbar, c->yield ? '-' : 'Y',
		    c->stall);
	}
	if (insn->guard != NVL_ISA_PT || insn->guard_not)
		put(&o, "@%s%s ", insn->guard_not ? "!" : "",
		    insn->guard == NVL_ISA_PT
			    ? "PT"
			    : (char[]){'P', '0' + insn->guard, 0});
	put(&o, "%s", nvl_isa_row_name(row, arch));
	for (unsigned i = 0; i < row->nmod; i++) {
		const char *n =
			nvl_isa_mod_names(row->mod[i], arch)[insn->mod[i]];

		if (n && *n)
			put(&o, ".%s", n);
	}
	for (unsigned i = 0; i < row->nopnd; i++) {
		const struct nvl_isa_odesc *d = &row->opnd[i];

		if (d->flags & NVL_ISA_F_OPT) {
			/* a run of optional operands prints all or none */
			unsigned j = i;
			bool any = false;

			while (j < row->nopnd &&
			       (row->opnd[j].flags & NVL_ISA_F_OPT)) {
				any |= !is_default(&row->opnd[j], &insn->op[j]);
				j++;
			}
			if (!any) {
				i = j - 1;
				continue;
			}
		}
		if (d->kind == NVL_ISA_O_IMM && d->width + d->width2 == 0 &&
		    insn->op[i].imm == 0 && row->sem != NVL_SEM_BAR)
			continue;
		put(&o, first ? " " : ", ");
		first = false;
		put_val(&o, d, &insn->op[i], pc);
	}
	put(&o, " ;");
	if (o.len > INT32_MAX)
		return nvl_error(-EINVAL, "isa: text too long");
	return (int)o.len;
}

int nvl_isa_disasm(const uint64_t *w, size_t n, enum nvl_isa_arch arch,
		   uint64_t base, bool ctrl, char **text_out)
{
	size_t cap = n * 96 + 1, len = 0;
	char *text = nvl_malloc(cap);
	struct nvl_isa_insn insn;
	int ret;

	if (!text)
		return -ENOMEM;
	text[0] = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t pc = base + 16 * i;
		char line[256];

		ret = nvl_isa_decode(&w[2 * i], arch, &insn);
		if (ret) {
			char why[160];

			snprintf(why, sizeof(why), "%s", nvl_error_msg());
			ret = nvl_error(ret, "isa: at 0x%" PRIx64 ": %s", pc,
					why);
			nvl_free(text);
			return ret;
		}
		ret = nvl_isa_print(&insn, arch, pc, ctrl, line, sizeof(line));
		if (ret < 0) {
			nvl_free(text);
			return ret;
		}
		if (len + (size_t)ret + 2 > cap) {
			char *t = nvl_realloc(text, cap * 2 + (size_t)ret + 2);

			if (!t) {
				nvl_free(text);
				return -ENOMEM;
			}
			text = t;
			cap = cap * 2 + (size_t)ret + 2;
		}
		memcpy(text + len, line, (size_t)ret);
		len += (size_t)ret;
		text[len++] = '\n';
		text[len] = 0;
	}
	*text_out = text;
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * DOC: assembler
 *
 * Reads the text nvl_isa_print() writes, one instruction per line:
 *
 *   [label:] [ctrl] [@[!]Pn] NAME[.MOD...] [operand {, operand}] [;]
 *
 * with "//" or "#" comments and labels as branch targets. Two passes:
 * the first finds label addresses, the second matches each line against the
 * table rows of its mnemonic (modifiers first, then operands, then the ALU
 * operand form) and encodes it. Errors carry line, column and what was
 * expected.
 */
#include <ctype.h>
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

#define MAX_POPS 12
#define MAX_PARTS 12

struct label {
	char name[64];
	uint64_t addr;
};

struct ctx {
	enum nvl_isa_arch arch;
	uint64_t base;
	struct nvl_isa_asm_error *err;
	unsigned line;
	const char *bol; /* beginning of the current line */
	struct label *labels;
	size_t nlabels, cap;
	/* open addressing over labels[]: index + 1, 0 = empty; hcap a power
	 * of two, at least twice nlabels */
	uint32_t *hash;
	size_t hcap;
	bool failed;
};

/* a parsed operand, before it meets a row */
struct pop {
	uint8_t kind; /* V_* or NUM / NAME */
	struct nvl_isa_val v;
	const char *at, *end; /* the operand's text */
};

#define POP_NUM 100
#define POP_NAME 101

static int fail(struct ctx *c, const char *at, const char *fmt, ...)
	NVL_PRINTF(3, 4);

static int fail(struct ctx *c, const char *at, const char *fmt, ...)
{
	va_list ap;
	char msg[160];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!c->failed && c->err) {
		c->err->line = c->line;
		c->err->col = (unsigned)(at - c->bol) + 1;
		snprintf(c->err->msg, sizeof(c->err->msg), "%s", msg);
	}
	c->failed = true;
	return nvl_error(-EINVAL, "asm: line %u, column %u: %s", c->line,
			 (unsigned)(at - c->bol) + 1, msg);
}

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	return p;
}

static bool is_ident(char ch, bool first)
{
	return isalpha((unsigned char)ch) || ch == '_' || ch == '$' ||
	       (!first && (isdigit((unsigned char)ch) || ch == '.'));
}

/* end of the code on a line: before a comment */
static const char *code_end(const char *p, const char *eol)
{
	for (const char *q = p; q < eol; q++) {
		if (*q == '#')
			return q;
		if (*q == '/' && q + 1 < eol && q[1] == '/')
			return q;
	}
	return eol;
}

static bool span_eq(const char *a, const char *aend, const char *s)
{
	size_t n = strlen(s);

	return (size_t)(aend - a) == n && !strncmp(a, s, n);
}

/* ---- labels ------------------------------------------------------------ */

/* FNV-1a of a label name */
static size_t label_hash(const char *s, const char *e)
{
	uint32_t h = 2166136261u;

	for (; s < e; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

/* the slot of name [@s, @e) in the hash: its label's, or the empty one
 * where it would go */
static uint32_t *label_slot(struct ctx *c, const char *s, const char *e)
{
	size_t m = c->hcap - 1, i = label_hash(s, e) & m;

	while (c->hash[i] && !span_eq(s, e, c->labels[c->hash[i] - 1].name))
		i = (i + 1) & m;
	return &c->hash[i];
}

/* a hash table of 2 * @cap slots over the labels defined so far */
static int label_rehash(struct ctx *c, size_t cap)
{
	uint32_t *h = nvl_calloc(2 * cap, sizeof(*h));

	if (!h)
		return -ENOMEM;
	nvl_free(c->hash);
	c->hash = h;
	c->hcap = 2 * cap;
	for (size_t i = 0; i < c->nlabels; i++) {
		const char *n = c->labels[i].name;

		*label_slot(c, n, n + strlen(n)) = (uint32_t)(i + 1);
	}
	return 0;
}

static struct label *find_label(struct ctx *c, const char *s, const char *e)
{
	uint32_t *slot;

	if (!c->hcap)
		return NULL;
	slot = label_slot(c, s, e);
	return *slot ? &c->labels[*slot - 1] : NULL;
}

static bool parse_regname(const char *s, const char *e, uint8_t *kind,
			  uint8_t *reg);
static bool parse_sr(const char *s, const char *e, uint8_t *reg);

static int add_label(struct ctx *c, const char *s, const char *e, uint64_t addr)
{
	uint8_t kind, reg;

	if ((size_t)(e - s) >= sizeof(c->labels[0].name))
		return fail(c, s,
			    "label name too long (at most 63 characters)");
	/* every use of it would read as the register */
	if (parse_regname(s, e, &kind, &reg) || parse_sr(s, e, &reg))
		return fail(c, s,
			    "'%.*s' is a register name, not a label "
			    "name",
			    (int)(e - s), s);
	if (find_label(c, s, e))
		return fail(c, s, "label '%.*s' defined twice", (int)(e - s),
			    s);
	if (c->nlabels == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		struct label *l;

		if (cap > UINT32_MAX / 2)
			return fail(c, s, "too many labels");
		l = nvl_reallocarray(c->labels, cap, sizeof(*l));
		if (!l)
			return -ENOMEM;
		c->labels = l;
		c->cap = cap;
		if (label_rehash(c, cap))
			return -ENOMEM;
	}
	memcpy(c->labels[c->nlabels].name, s, (size_t)(e - s));
	c->labels[c->nlabels].name[e - s] = 0;
	c->labels[c->nlabels].addr = addr;
	*label_slot(c, s, e) = (uint32_t)++c->nlabels;
	return 0;
}

/* Skip leading "name:" labels; define them when @define. */
static int eat_labels(struct ctx *c, const char **pp, const char *end,
		      uint64_t addr, bool define)
{
	const char *p = skip_ws(*pp, end);

	for (;;) {
		const char *s = p, *q;

		if (p >= end || !is_ident(*p, true))
			break;
		q = p;
		while (q < end && is_ident(*q, false))
			q++;
		const char *e = q;

		q = skip_ws(q, end);
		if (q >= end || *q != ':')
			break;
		if (define) {
			int ret = add_label(c, s, e, addr);

			if (ret)
				return ret;
		}
		p = skip_ws(q + 1, end);
	}
	*pp = p;
	return 0;
}

/* ---- operands ---------------------------------------------------------- */

static bool parse_regname(const char *s, const char *e, uint8_t *kind,
			  uint8_t *reg)
{
	const char *p = s;
	unsigned long v;
	char *q;
	uint8_t k;
	unsigned max;

	if (span_eq(s, e, "RZ")) {
		*kind = NVL_ISA_V_R, *reg = NVL_ISA_RZ;
		return true;
	}
	if (span_eq(s, e, "URZ")) {
		*kind = NVL_ISA_V_UR, *reg = NVL_ISA_URZ;
		return true;
	}
	if (span_eq(s, e, "PT")) {
		*kind = NVL_ISA_V_P, *reg = NVL_ISA_PT;
		return true;
	}
	if (span_eq(s, e, "UPT")) {
		*kind = NVL_ISA_V_UP, *reg = NVL_ISA_PT;
		return true;
	}
	if (e - s >= 3 && !strncmp(s, "UR", 2))
		k = NVL_ISA_V_UR, max = 62, p += 2;
	else if (e - s >= 3 && !strncmp(s, "UP", 2))
		k = NVL_ISA_V_UP, max = 6, p += 2;
	else if (e - s >= 3 && !strncmp(s, "SR", 2) &&
		 isdigit((unsigned char)s[2]))
		k = NVL_ISA_V_SR, max = 255, p += 2;
	else if (*s == 'R')
		k = NVL_ISA_V_R, max = 254, p++;
	else if (*s == 'P')
		k = NVL_ISA_V_P, max = 6, p++;
	else if (*s == 'B')
		k = NVL_ISA_V_B, max = 15, p++;
	else
		return false;
	if (p >= e || !isdigit((unsigned char)*p) || (*p == '0' && p + 1 < e))
		return false;
	v = strtoul(p, &q, 10);
	if (q != e || v > max)
		return false;
	*kind = k;
	*reg = (uint8_t)v;
	return true;
}

static bool parse_sr(const char *s, const char *e, uint8_t *reg)
{
	for (unsigned i = 0; i < 256; i++) {
		const char *n = nvl_isa_sr_name(i);

		if (n && span_eq(s, e, n)) {
			*reg = (uint8_t)i;
			return true;
		}
	}
	return false;
}

/*
 * integer: [-](0x hex | decimal), -2^63 .. 2^63 - 1; with @addr (absolute
 * branch targets, which wrap modulo 2^64) also 2^63 .. 2^64 - 1. A value
 * past that range is an error, never taken modulo 2^64.
 */
static bool parse_num(const char *s, const char *e, int64_t *out, bool addr)
{
	bool neg = false;
	uint64_t v;
	char buf[40], *q;
	size_t n;

	if (s < e && *s == '-')
		neg = true, s++;
	n = (size_t)(e - s);
	if (!n || n >= sizeof(buf) || !isdigit((unsigned char)*s))
		return false;
	memcpy(buf, s, n);
	buf[n] = 0;
	errno = 0;
	if (n > 2 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X'))
		v = strtoull(buf + 2, &q, 16);
	else
		v = strtoull(buf, &q, 10);
	if (*q || errno)
		return false;
	if (neg ? v > 1ull << 63 : v > (uint64_t)INT64_MAX && !addr)
		return false;
	/* callers check their field's range */
	*out = (int64_t)(neg ? 0 - v : v);
	return true;
}

static bool parse_int(const char *s, const char *e, int64_t *out)
{
	return parse_num(s, e, out, false);
}

/*
 * f32 immediate: raw bits as 0x... (no sign: strtof() would read "-0x1"
 * as the hex float -1.0), or a decimal number within f32's range (one
 * that overflows to Inf or underflows to 0 is an error; subnormals, as
 * the printer writes them, are fine)
 */
static bool parse_f32(const char *s, const char *e, int64_t *out)
{
	char buf[64], *q;
	size_t n = (size_t)(e - s);
	float f;
	uint32_t bits;

	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return parse_int(s, e, out) && *out >= 0 && *out <= UINT32_MAX;
	if (!n || n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = 0;
	if (!isdigit((unsigned char)buf[buf[0] == '-']) &&
	    buf[buf[0] == '-'] != '.')
		return false;
	if (buf[0] == '-' && buf[1] == '0' && (buf[2] == 'x' || buf[2] == 'X'))
		return false;
	errno = 0;
	f = strtof(buf, &q);
	if (*q || isinf(f) || (errno == ERANGE && f == 0))
		return false;
	memcpy(&bits, &f, 4);
	*out = bits;
	return true;
}

static int parse_pop(struct ctx *c, const char *s, const char *e, struct pop *o)
{
	const char *p = s;
	struct nvl_isa_val *v = &o->v;
	uint8_t kind, reg;

	memset(o, 0, sizeof(*o));
	o->at = s;
	o->end = e;
	if (p < e && *p == '!') {
		v->not_ = true;
		p++;
		if (!parse_regname(p, e, &kind, &reg) ||
		    (kind != NVL_ISA_V_P && kind != NVL_ISA_V_UP))
			return fail(c, p, "expected a predicate after '!'");
		o->kind = v->kind = kind;
		v->reg = reg;
		return 0;
	}
	if (p + 1 < e && *p == '-' && !isdigit((unsigned char)p[1]) &&
	    p[1] != '.') {
		v->neg = true;
		p++;
	}
	if (e - p > 6 && !strncmp(e - 6, ".reuse", 6)) {
		v->reuse = true;
		e -= 6;
	}
	if (p < e && *p == '|') {
		if (e - p < 2 || e[-1] != '|')
			return fail(c, p, "expected a closing '|'");
		v->abs = true;
		p++;
		e--;
	}
	if (e - p >= 2 && p[0] == 'c' && p[1] == '[') {
		const char *b = p + 2, *be = memchr(b, ']', (size_t)(e - b));
		int64_t bank, off = 0;
		const char *q, *qe;

		if (!be || !parse_int(b, be, &bank) || bank < 0 || bank > 31)
			return fail(c, b,
				    "expected a constant bank 0x0-0x1f "
				    "in c[bank][offset]");
		q = be + 1;
		if (q >= e || *q != '[' || e[-1] != ']')
			return fail(c, q, "expected [offset] after c[bank]");
		q++;
		qe = e - 1;
		v->reg = NVL_ISA_RZ;
		if (q < qe && *q == 'R') {
			const char *r = q;

			while (q < qe && *q != '+')
				q++;
			if (!parse_regname(r, q, &kind, &reg) ||
			    kind != NVL_ISA_V_R)
				return fail(c, r, "expected an index register");
			v->reg = reg;
			if (q < qe)
				q++;
			else
				q = qe;
		}
		if (q < qe && (!parse_int(q, qe, &off) || off < 0))
			return fail(c, q, "expected a byte offset");
		o->kind = v->kind = NVL_ISA_V_CBUF;
		v->bank = (uint8_t)bank;
		v->imm = off;
		return 0;
	}
	if (p < e && *p == '[') {
		const char *q = p + 1, *qe = e - 1, *r;
		int64_t off = 0;

		if (*qe != ']')
			return fail(c, e, "expected ']'");
		r = q;
		while (q < qe && *q != '+' && *q != '-')
			q++;
		if (!parse_regname(r, q, &kind, &reg) || kind != NVL_ISA_V_R)
			return fail(c, r,
				    "expected a base register in "
				    "[Rn+offset]");
		if (q < qe) {
			const char *n = *q == '+' ? q + 1 : q;

			if (!parse_int(n, qe, &off))
				return fail(c, n, "expected an offset");
		}
		o->kind = v->kind = NVL_ISA_V_MEM;
		v->reg = reg;
		v->imm = off;
		return 0;
	}
	if (p < e && (isdigit((unsigned char)*p) || *p == '-' || *p == '.')) {
		if (v->neg || v->abs || v->reuse)
			return fail(c, s,
				    "an immediate takes no '-', '|' or "
				    ".reuse modifier");
		o->kind = POP_NUM;
		o->at = p;
		return 0;
	}
	if (parse_regname(p, e, &kind, &reg) ||
	    (parse_sr(p, e, &reg) && (kind = NVL_ISA_V_SR))) {
		o->kind = v->kind = kind;
		v->reg = reg;
		if ((v->neg || v->abs) && kind != NVL_ISA_V_R &&
		    kind != NVL_ISA_V_UR)
			return fail(c, s, "only registers take '-' or '|'");
		if (v->reuse && kind != NVL_ISA_V_R)
			return fail(c, s, ".reuse applies to registers only");
		return 0;
	}
	if (p < e && is_ident(*p, true) && !v->neg && !v->abs) {
		for (const char *q = p; q < e; q++)
			if (!is_ident(*q, false))
				return fail(c, q, "unexpected character '%c'",
					    *q);
		o->kind = POP_NAME;
		return 0;
	}
	return fail(c, s,
		    "expected an operand (register, predicate, "
		    "immediate, c[bank][offset], [address] or label)");
}

/* ---- rows ------------------------------------------------------------ */

static bool pop_fits(const struct nvl_isa_odesc *d, const struct pop *o)
{
	switch (d->kind) {
	case NVL_ISA_O_P:
		return o->kind == NVL_ISA_V_P;
	case NVL_ISA_O_UP:
		return o->kind == NVL_ISA_V_UP;
	default:
		return false;
	}
}

static const char *kind_name(const struct nvl_isa_odesc *d)
{
	switch (d->kind) {
	case NVL_ISA_O_R:
		return "a register R0-R254 or RZ";
	case NVL_ISA_O_UR:
		return "a uniform register UR0-UR62 or URZ";
	case NVL_ISA_O_P:
		return "a predicate P0-P6 or PT";
	case NVL_ISA_O_UP:
		return "a uniform predicate UP0-UP6 or UPT";
	case NVL_ISA_O_B:
		return "a convergence barrier B0-B15";
	case NVL_ISA_O_SR:
		return "a special register (SR_TID.X, ...)";
	case NVL_ISA_O_IMM:
		return "an immediate";
	case NVL_ISA_O_FLEXB:
	case NVL_ISA_O_FLEXC:
		return "a register, immediate, c[bank][offset] or UR";
	case NVL_ISA_O_CBUF:
		return "c[bank][offset]";
	case NVL_ISA_O_MEM:
		return "an address [Rn+offset]";
	case NVL_ISA_O_TARGET:
		return "a branch target (label or address)";
	}
	return "?";
}

struct attempt {
	int depth; /* how far the row matched: higher = better error */
	const char *at;
	char msg[160];
};

static void note(struct attempt *a, int depth, const char *at, const char *fmt,
		 ...) NVL_PRINTF(4, 5);

static void note(struct attempt *a, int depth, const char *at, const char *fmt,
		 ...)
{
	va_list ap;

	if (depth < a->depth)
		return;
	a->depth = depth;
	a->at = at;
	va_start(ap, fmt);
	vsnprintf(a->msg, sizeof(a->msg), fmt, ap);
	va_end(ap);
}

static bool match_mods(struct ctx *c, const struct nvl_isa_row *row,
		       const char *const *ps, const char *const *pe,
		       unsigned nparts, struct nvl_isa_insn *insn,
		       struct attempt *a)
{
	bool set[NVL_ISA_MAX_MODS] = {false};

	for (unsigned g = 0; g < row->nmod; g++) {
		const char *const *names =
			nvl_isa_mod_names(row->mod[g], c->arch);
		unsigned n = nvl_isa_mod_count(row->mod[g], c->arch);

		insn->mod[g] = 0xffff;
		for (unsigned v = 0; v < n; v++)
			if (names[v] && !*names[v])
				insn->mod[g] = (uint16_t)v;
	}
	for (unsigned k = 1; k < nparts;) {
		unsigned best_len = 0, best_g = 0, best_v = 0;

		for (unsigned g = 0; g < row->nmod; g++) {
			const char *const *names =
				nvl_isa_mod_names(row->mod[g], c->arch);
			unsigned n = nvl_isa_mod_count(row->mod[g], c->arch);

			for (unsigned v = 0; v < n; v++) {
				const char *nm = names[v], *dot;
				unsigned len = 0, j = k;
				bool ok = true;

				if (!nm || !*nm)
					continue;
				while (ok) {
					dot = strchr(nm, '.');
					size_t l = dot ? (size_t)(dot - nm)
						       : strlen(nm);

					ok = j < nparts &&
					     (size_t)(pe[j] - ps[j]) == l &&
					     !strncmp(ps[j], nm, l);
					j++;
					len++;
					if (!dot)
						break;
					nm = dot + 1;
				}
				if (ok && len > best_len)
					best_len = len, best_g = g, best_v = v;
			}
		}
		if (!best_len) {
			note(a, 1, ps[k], "%s has no modifier .%.*s", row->name,
			     (int)(pe[k] - ps[k]), ps[k]);
			return false;
		}
		if (set[best_g]) {
			note(a, 1, ps[k],
			     "modifier .%.*s conflicts with an "
			     "earlier one",
			     (int)(pe[k] - ps[k]), ps[k]);
			return false;
		}
		set[best_g] = true;
		insn->mod[best_g] = (uint16_t)best_v;
		k += best_len;
	}
	for (unsigned g = 0; g < row->nmod; g++) {
		if (insn->mod[g] == 0xffff) {
			const char *const *names =
				nvl_isa_mod_names(row->mod[g], c->arch);
			unsigned n = nvl_isa_mod_count(row->mod[g], c->arch);
			char list[100] = "";
			size_t l = 0;

			for (unsigned v = 0; v < n && l < sizeof(list) - 12;
			     v++)
				if (names[v])
					l += (size_t)snprintf(list + l,
							      sizeof(list) - l,
							      " .%s", names[v]);
			note(a, row->mod[g]->width ? 1 : 0, pe[nparts - 1],
			     "%s needs one of%s", row->name, list);
			return false;
		}
	}
	return true;
}

/*
 * Match @pops against @row's operands; @at[i] / @num[i]: where row operand
 * i was written and its number in the text (0: omitted, a default), for
 * errors the encoder finds later.
 */
static bool match_opnds(struct ctx *c, const struct nvl_isa_row *row,
			const struct pop *pops, unsigned npops, uint64_t pc,
			struct nvl_isa_insn *insn, struct attempt *a,
			const char *eol, const char **at, unsigned *num)
{
	unsigned j = 0;
	uint8_t bk = 0, ck = 0;

	for (unsigned i = 0; i < row->nopnd; i++) {
		const struct nvl_isa_odesc *d = &row->opnd[i];
		struct nvl_isa_val *v = &insn->op[i];
		const struct pop *o = j < npops ? &pops[j] : NULL;

		at[i] = o ? o->at : eol;
		num[i] = 0;
		if ((d->flags & NVL_ISA_F_OPT) && (!o || !pop_fits(d, o))) {
			for (; i < row->nopnd &&
			       (row->opnd[i].flags & NVL_ISA_F_OPT);
			     i++) {
				d = &row->opnd[i];
				v = &insn->op[i];
				v->kind = d->kind == NVL_ISA_O_UP ? NVL_ISA_V_UP
								  : NVL_ISA_V_P;
				v->reg = d->def & 7;
				v->not_ = d->def >> 3;
				at[i] = o ? o->at : eol;
				num[i] = 0;
			}
			i--;
			continue;
		}
		if (d->kind == NVL_ISA_O_IMM && d->width + d->width2 == 0 &&
		    !o) {
			v->kind = NVL_ISA_V_IMM;
			continue;
		}
		if (!o) {
			note(a, 10 + (int)i, eol, "operand %u: expected %s",
			     j + 1, kind_name(d));
			return false;
		}
		j++;
		num[i] = j;
		*v = o->v;
		if ((v->neg && !(d->flags & NVL_ISA_F_NEG)) ||
		    (v->abs && !(d->flags & NVL_ISA_F_ABS))) {
			note(a, 10 + (int)i, o->at,
			     "operand %u: '-' or '|x|' is not allowed here", j);
			return false;
		}
		switch (d->kind) {
		case NVL_ISA_O_R:
		case NVL_ISA_O_UR:
		case NVL_ISA_O_P:
		case NVL_ISA_O_UP:
		case NVL_ISA_O_B:
		case NVL_ISA_O_SR:
		case NVL_ISA_O_CBUF:
		case NVL_ISA_O_MEM: {
			static const uint8_t want[] = {
				[NVL_ISA_O_R] = NVL_ISA_V_R,
				[NVL_ISA_O_UR] = NVL_ISA_V_UR,
				[NVL_ISA_O_P] = NVL_ISA_V_P,
				[NVL_ISA_O_UP] = NVL_ISA_V_UP,
				[NVL_ISA_O_B] = NVL_ISA_V_B,
				[NVL_ISA_O_SR] = NVL_ISA_V_SR,
				[NVL_ISA_O_CBUF] = NVL_ISA_V_CBUF,
				[NVL_ISA_O_MEM] = NVL_ISA_V_MEM,
			};

			if (o->kind != want[d->kind])
				goto bad;
			if (v->not_ && !(d->flags & NVL_ISA_F_NOT))
				goto bad;
			break;
		}
		case NVL_ISA_O_IMM:
			if (o->kind != POP_NUM ||
			    !parse_int(o->at, o->end, &v->imm))
				goto bad;
			v->kind = NVL_ISA_V_IMM;
			break;
		case NVL_ISA_O_TARGET:
			if (o->kind == POP_NAME) {
				struct label *l = find_label(c, o->at, o->end);

				if (!l) {
					note(a, 10 + (int)i, o->at,
					     "unknown label '%.*s'",
					     (int)(o->end - o->at), o->at);
					return false;
				}
				v->imm = (int64_t)(l->addr - (pc + 16));
			} else if (o->kind == POP_NUM &&
				   parse_num(o->at, o->end, &v->imm, true)) {
				/* an absolute address, modulo 2^64 */
				v->imm =
					(int64_t)((uint64_t)v->imm - (pc + 16));
			} else {
				goto bad;
			}
			v->kind = NVL_ISA_V_TARGET;
			break;
		case NVL_ISA_O_FLEXB:
		case NVL_ISA_O_FLEXC:
			if (o->kind == POP_NUM) {
				bool ok = d->flags & NVL_ISA_F_FLOAT
						  ? parse_f32(o->at, o->end,
							      &v->imm)
						  : parse_int(o->at, o->end,
							      &v->imm);
				if (!ok) {
					note(a, 10 + (int)i, o->at,
					     "operand %u: bad %s", j,
					     d->flags & NVL_ISA_F_FLOAT
						     ? "float immediate (a "
						       "decimal in f32's "
						       "range, or its raw "
						       "bits 0x...)"
						     : "integer immediate");
					return false;
				}
				v->kind = NVL_ISA_V_IMM;
			} else if (o->kind == NVL_ISA_V_CBUF) {
				if (o->v.reg != NVL_ISA_RZ)
					goto bad;
			} else if (o->kind != NVL_ISA_V_R &&
				   o->kind != NVL_ISA_V_UR) {
				goto bad;
			}
			if (d->kind == NVL_ISA_O_FLEXB)
				bk = v->kind;
			else
				ck = v->kind;
			break;
		}
		continue;
	bad:
		note(a, 10 + (int)i, o->at, "operand %u: expected %s", j,
		     kind_name(d));
		return false;
	}
	if (j < npops) {
		note(a, 10 + (int)row->nopnd, pops[j].at,
		     "unexpected operand %u (%s takes fewer)", j + 1,
		     row->name);
		return false;
	}
	if (row->alu) {
		int f;

		if (row->alu == NVL_ISA_ALU3U || row->alu == NVL_ISA_ALU2U) {
			/* uniform rows spell their registers UR */
			if (bk == NVL_ISA_V_R || ck == NVL_ISA_V_R) {
				note(a, 50, pops[0].at,
				     "%s takes uniform registers", row->name);
				return false;
			}
		}
		f = nvl_isa_pick_form(row->alu, bk, ck);
		if (f < 0) {
			note(a, 50, pops[0].at,
			     "no operand form of %s takes these sources "
			     "(at most one immediate, constant or UR)",
			     row->name);
			return false;
		}
		insn->form = (uint8_t)f;
	}
	return true;
}

static int parse_ctrl(struct ctx *c, const char **pp, const char *end,
		      struct nvl_isa_ctrl *ctl)
{
	const char *p = *pp, *s = p;
	unsigned v;

	/* [B------:R-:W-:Y:S04] */
	if (end - p < 21)
		return fail(c, s,
			    "expected a control field "
			    "[B------:R-:W-:Y:S00]");
	if (p[1] != 'B')
		return fail(c, p + 1, "expected 'B' (wait mask)");
	ctl->wait = 0;
	for (int i = 0; i < 6; i++) {
		char ch = p[2 + i];

		if (ch == '0' + i)
			ctl->wait |= (uint8_t)(1u << i);
		else if (ch != '-')
			return fail(c, p + 2 + i,
				    "expected '%c' or '-' in the "
				    "wait mask",
				    '0' + i);
	}
	p += 8;
	/* scoreboards 0-5, '-' = none (7): the wait mask has six bits */
	if (p[0] != ':' || p[1] != 'R' ||
	    !(p[2] == '-' || (p[2] >= '0' && p[2] <= '5')))
		return fail(c, p,
			    "expected ':R' and a read scoreboard 0-5 or "
			    "'-'");
	ctl->rbar = p[2] == '-' ? 7 : (uint8_t)(p[2] - '0');
	p += 3;
	if (p[0] != ':' || p[1] != 'W' ||
	    !(p[2] == '-' || (p[2] >= '0' && p[2] <= '5')))
		return fail(c, p,
			    "expected ':W' and a write scoreboard 0-5 "
			    "or '-'");
	ctl->wbar = p[2] == '-' ? 7 : (uint8_t)(p[2] - '0');
	p += 3;
	if (p[0] != ':' || (p[1] != 'Y' && p[1] != '-'))
		return fail(c, p, "expected ':Y' or ':-' (yield)");
	ctl->yield = p[1] == '-';
	p += 2;
	if (p[0] != ':' || p[1] != 'S' || !isdigit((unsigned char)p[2]) ||
	    !isdigit((unsigned char)p[3]) || p[4] != ']')
		return fail(c, p,
			    "expected ':S' and two stall digits, then "
			    "']'");
	v = (unsigned)(p[2] - '0') * 10 + (unsigned)(p[3] - '0');
	if (v > 15)
		return fail(c, p + 2, "stall must be 0-15");
	ctl->stall = (uint8_t)v;
	*pp = p + 5;
	return 0;
}

static int assemble_line(struct ctx *c, const char *p, const char *end,
			 uint64_t pc, uint64_t w[2])
{
	struct nvl_isa_insn insn = {0};
	const char *ps[MAX_PARTS], *pe[MAX_PARTS], *mn;
	struct pop pops[MAX_POPS];
	unsigned nparts = 0, npops = 0;
	struct attempt best = {.depth = -1};
	size_t nrows;
	const struct nvl_isa_row *rows = nvl_isa_rows(&nrows);
	const char *at[NVL_ISA_MAX_OPNDS];
	unsigned num[NVL_ISA_MAX_OPNDS];
	char why[160];
	bool named = false;
	int ret, bad;

	insn.ctrl = nvl_isa_ctrl_default();
	insn.guard = NVL_ISA_PT;
	if (p < end && *p == '[') {
		ret = parse_ctrl(c, &p, end, &insn.ctrl);
		if (ret)
			return ret;
		p = skip_ws(p, end);
	}
	if (p < end && *p == '@') {
		const char *s = ++p;
		uint8_t kind, reg;

		if (p < end && *p == '!')
			insn.guard_not = true, p++;
		const char *r = p;

		while (p < end && isalnum((unsigned char)*p))
			p++;
		if (!parse_regname(r, p, &kind, &reg) || kind != NVL_ISA_V_P)
			return fail(c, s,
				    "expected a guard predicate "
				    "(@P0-@P6, @PT, @!Pn)");
		insn.guard = reg;
		p = skip_ws(p, end);
	}
	mn = p;
	while (p < end && !isspace((unsigned char)*p) && *p != ';') {
		if (!is_ident(*p, false) && *p != '.')
			return fail(c, p,
				    "unexpected character '%c' in the "
				    "mnemonic",
				    *p);
		p++;
	}
	if (p == mn)
		return fail(c, mn, "expected an instruction name");
	for (const char *q = mn; q < p;) {
		const char *d = memchr(q, '.', (size_t)(p - q));

		if (nparts == MAX_PARTS)
			return fail(c, q, "too many modifiers");
		ps[nparts] = q;
		pe[nparts] = d ? d : p;
		if (pe[nparts] == ps[nparts])
			return fail(c, q, "empty modifier");
		nparts++;
		q = d ? d + 1 : p;
	}
	/* operands up to ';' */
	const char *oend = memchr(p, ';', (size_t)(end - p));

	if (oend) {
		const char *t = skip_ws(oend + 1, end);

		if (t < end)
			return fail(c, t, "unexpected text after ';'");
	} else {
		oend = end;
	}
	p = skip_ws(p, oend);
	while (p < oend) {
		const char *s = p, *e;

		while (p < oend && *p != ',')
			p++;
		e = p;
		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		if (e == s)
			return fail(c, s, "expected an operand");
		if (npops == MAX_POPS)
			return fail(c, s, "too many operands");
		ret = parse_pop(c, s, e, &pops[npops++]);
		if (ret)
			return ret;
		if (p < oend) {
			p = skip_ws(p + 1, oend);
			if (p >= oend)
				return fail(c, p,
					    "expected an operand after "
					    "','");
		}
	}

	for (size_t r = 0; r < nrows; r++) {
		const struct nvl_isa_row *row = &rows[r];
		struct nvl_isa_insn t = insn;

		if (!span_eq(ps[0], pe[0], row->name) &&
		    !(row->alt_name && span_eq(ps[0], pe[0], row->alt_name)))
			continue;
		named = true;
		if (c->arch < row->arch_min) {
			note(&best, 0, mn, "%s is not available on %s",
			     row->name, nvl_isa_arch_name(c->arch));
			continue;
		}
		t.row = row;
		if (!match_mods(c, row, ps, pe, nparts, &t, &best))
			continue;
		if (!match_opnds(c, row, pops, npops, pc, &t, &best, oend, at,
				 num))
			continue;
		/* a value its field cannot hold: at that operand */
		ret = nvl_isa_encode_why(&t, c->arch, w, &bad, why,
					 sizeof(why));
		if (ret && bad >= 0 && num[bad]) {
			note(&best, 100, at[bad], "operand %u: %s", num[bad],
			     why);
			continue;
		}
		if (ret) {
			note(&best, 100, mn, "%s", why);
			continue;
		}
		return 0;
	}
	if (!named)
		return fail(c, mn, "unknown instruction '%.*s'",
			    (int)(pe[0] - ps[0]), ps[0]);
	return fail(c, best.at ? best.at : mn, "%s", best.msg);
}

int nvl_isa_assemble(const char *text, enum nvl_isa_arch arch, uint64_t base,
		     uint64_t **w_out, size_t *n_out,
		     struct nvl_isa_asm_error *err)
{
	struct ctx c = {.arch = arch, .base = base, .err = err};
	size_t n = 0, cap = 0;
	uint64_t *w = NULL;
	int ret = 0;

	if (err)
		memset(err, 0, sizeof(*err));
	if ((unsigned)arch >= NVL_ISA_ARCH_COUNT)
		return nvl_error(-EINVAL, "asm: bad architecture");
	/* pass 1: labels */
	for (int pass = 0; pass < 2; pass++) {
		const char *p = text;
		size_t idx = 0;

		c.line = 0;
		while (*p) {
			const char *eol = strchr(p, '\n');
			const char *end, *q;

			if (!eol)
				eol = p + strlen(p);
			c.line++;
			c.bol = p;
			end = code_end(p, eol);
			while (end > p && isspace((unsigned char)end[-1]))
				end--;
			q = p;
			ret = eat_labels(&c, &q, end, base + 16 * idx,
					 pass == 0);
			if (ret)
				goto out;
			if (q < end) {
				if (pass == 1) {
					if (idx >= cap) {
						size_t nc = cap ? cap * 2 : 64;
						uint64_t *nw = nvl_reallocarray(
							w, nc, 16);

						if (!nw) {
							ret = -ENOMEM;
							goto out;
						}
						w = nw;
						cap = nc;
					}
					ret = assemble_line(&c, q, end,
							    base + 16 * idx,
							    &w[2 * idx]);
					if (ret)
						goto out;
				}
				idx++;
			}
			p = *eol ? eol + 1 : eol;
		}
		n = idx;
	}
	if (!w) {
		w = nvl_malloc(16);
		if (!w) {
			ret = -ENOMEM;
			goto out;
		}
	}
	*w_out = w;
	*n_out = n;
	w = NULL;
out:
	nvl_free(w);
	nvl_free(c.labels);
	nvl_free(c.hash);
	return ret;
}

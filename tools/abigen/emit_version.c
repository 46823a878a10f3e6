// SPDX-License-Identifier: MIT
/*
 * abigen: the per-version outputs: <p>_<version>.c (pack/unpack with a
 * _Static_assert on every size and offset they use, so the C compiler
 * re-checks libclang; tables; constants; the bitfield selfcheck) and the
 * ops-table skeleton <p>_ops_skel.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "abigen.h"
#include "emit.h"
#include "model.h"

/* ---- <p>_<version>.c ---------------------------------------------------- */

static void lit_u(FILE *f, uint64_t v)
{
	fprintf(f, "UINT64_C(0x%" PRIx64 ")", v);
}

static uint64_t maxu(unsigned bits)
{
	return bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
}

/* Range check of one neutral integer lvalue @lv into a wire field. */
static void range_check(FILE *f, const char *ind, const char *lv,
			const struct ag_nf *nf, unsigned wb, bool vsgn)
{
	unsigned nb = nf->esize * 8;

	if (!nf->sgn) {
		if (nb > wb) {
			fprintf(f, "%sif ((uint64_t)%s > ", ind, lv);
			lit_u(f, maxu(wb));
			fprintf(f,
				")\n%s\treturn ABIGEN_FAIL(-ERANGE, \"%s out "
				"of "
				"range\");\n",
				ind, lv);
		}
	} else if (vsgn) {
		if (nb > wb)
			fprintf(f,
				"%sif ((int64_t)%s < INT64_C(%" PRId64
				") || (int64_t)%s > INT64_C(%" PRId64 "))\n"
				"%s\treturn ABIGEN_FAIL(-ERANGE, \"%s out of "
				"range\");\n",
				ind, lv, -(int64_t)(UINT64_C(1) << (wb - 1)),
				lv, (int64_t)((UINT64_C(1) << (wb - 1)) - 1),
				ind, lv);
	} else {
		fprintf(f, "%sif (%s < 0", ind, lv);
		if (nb - 1 > wb) {
			fprintf(f, " || (uint64_t)%s > ", lv);
			lit_u(f, maxu(wb));
		}
		fprintf(f,
			")\n%s\treturn ABIGEN_FAIL(-ERANGE, \"%s out of "
			"range\");\n",
			ind, lv);
	}
}

struct vctx {
	struct em *e;
	const struct ag_version *v;
	size_t wi;
	const char *id; /* version ident */
	char *nu; /* NEUTRAL upper */
};

static void off_name(FILE *f, const struct vctx *c, size_t j)
{
	fprintf(f, "ABIGEN_OFF_%s__%s", c->e->ctx->want[c->wi].neutral,
		c->e->ctx->want[c->wi].fields[j].neutral);
}

static void emit_unpack_field(const struct vctx *c, size_t j,
			      const struct ag_field *vf, const struct ag_nf *nf)
{
	FILE *f = c->e->f;
	const char *p = c->e->p;
	const char *fn = c->e->ctx->want[c->wi].fields[j].neutral;

	switch (nf->kind) {
	case AG_NF_INT:
		if (vf->bit_width && vf->is_signed)
			fprintf(f,
				"\tout->%s = (%s)%s_sext(%s_ldbits(w, %" PRIu64
				", %u), %u);\n",
				fn, ag_ntype(nf), p, p, vf->bit_off,
				vf->bit_width, vf->bit_width);
		else if (vf->bit_width)
			fprintf(f,
				"\tout->%s = (%s)%s_ldbits(w, %" PRIu64
				", %u);\n",
				fn, ag_ntype(nf), p, vf->bit_off,
				vf->bit_width);
		else {
			unsigned b = (unsigned)vf->size * 8;

			fprintf(f, "\tout->%s = (%s)", fn, ag_ntype(nf));
			if (vf->is_signed)
				fprintf(f, "(int%u_t)", b);
			fprintf(f, "%s_ld%u(w + ", p, b);
			off_name(f, c, j);
			fprintf(f, ");\n");
		}
		break;
	case AG_NF_IARRAY:
		if (vf->elem_size == nf->esize) {
			fprintf(f, "\tmemcpy(out->%s, w + ", fn);
			off_name(f, c, j);
			fprintf(f, ", %" PRIu64 ");\n",
				vf->count * vf->elem_size);
		} else {
			unsigned b = (unsigned)vf->elem_size * 8;

			fprintf(f,
				"\tfor (size_t i = 0; i < %" PRIu64 "; i++)\n"
				"\t\tout->%s[i] = (%s)%s%s%s%s_ld%u(w + ",
				vf->count, fn, ag_ntype(nf),
				vf->is_signed ? "(" : "",
				vf->is_signed
					? ag_bits_type((unsigned)vf->elem_size,
						       true)
					: "",
				vf->is_signed ? ")" : "", p, b);
			off_name(f, c, j);
			fprintf(f, " + i * %" PRIu64 ");\n", vf->elem_size);
		}
		break;
	case AG_NF_BYTES:
		fprintf(f, "\tmemcpy(out->%s, w + ", fn);
		off_name(f, c, j);
		fprintf(f, ", %" PRIu64 ");\n", vf->size);
		break;
	case AG_NF_FAM:
		fprintf(f, "\tout->%s = ", fn);
		off_name(f, c, j);
		fprintf(f, ";\n");
		break;
	}
}

static void emit_pack_check(const struct vctx *c, size_t j,
			    const struct ag_field *vf, const struct ag_nf *nf)
{
	FILE *f = c->e->f;
	const char *fn = c->e->ctx->want[c->wi].fields[j].neutral;
	char *lv;

	switch (nf->kind) {
	case AG_NF_INT:
		/* a _Bool byte holds 0 or 1: as a 1-bit field */
		lv = ag_fmt("in->%s", fn);
		range_check(f, "\t", lv, nf,
			    vf->bit_width ? vf->bit_width
			    : vf->is_bool ? 1
					  : (unsigned)vf->size * 8,
			    vf->is_signed);
		free(lv);
		break;
	case AG_NF_IARRAY:
		if (vf->elem_size < nf->esize || vf->is_signed != nf->sgn) {
			struct ag_nf el = *nf;

			fprintf(f,
				"\tfor (size_t i = 0; i < %" PRIu64
				"; i++) {\n",
				vf->count);
			lv = ag_fmt("in->%s[i]", fn);
			range_check(f, "\t\t", lv, &el,
				    (unsigned)vf->elem_size * 8, vf->is_signed);
			free(lv);
			fprintf(f, "\t}\n");
		}
		if (nf->count > vf->count)
			fprintf(f,
				"\tif (%s_nonzero(in->%s + %" PRIu64
				", sizeof(in->%s) - "
				"%" PRIu64 " * sizeof(in->%s[0])))\n"
				"\t\treturn ABIGEN_FAIL(-ERANGE, \"%s longer "
				"than this version's array\");\n",
				c->e->p, fn, vf->count, fn, vf->count, fn, fn);
		break;
	case AG_NF_BYTES:
		if (nf->count > vf->size)
			fprintf(f,
				"\tif (%s_nonzero(in->%s + %" PRIu64
				", %" PRIu64 "))\n"
				"\t\treturn ABIGEN_FAIL(-ERANGE, \"%s longer "
				"than this version's field\");\n",
				c->e->p, fn, vf->size, nf->count - vf->size,
				fn);
		break;
	case AG_NF_FAM:
		break;
	}
}

static void emit_pack_field(const struct vctx *c, size_t j,
			    const struct ag_field *vf, const struct ag_nf *nf,
			    bool cond)
{
	FILE *f = c->e->f;
	const char *p = c->e->p;
	const char *fn = c->e->ctx->want[c->wi].fields[j].neutral;
	const char *ind = cond ? "\t\t" : "\t";

	/* union arms: only non-zero values overwrite the zeroed image, so
	 * the arm the caller filled wins over arms it left zero */
	if (cond && nf->kind != AG_NF_FAM) {
		if (nf->kind == AG_NF_INT)
			fprintf(f, "\tif (in->%s)\n", fn);
		else
			fprintf(f,
				"\tif (%s_nonzero(in->%s, sizeof(in->%s)))\n",
				p, fn, fn);
	}
	switch (nf->kind) {
	case AG_NF_INT:
		if (vf->bit_width) {
			fprintf(f,
				"%s%s_stbits(w, %" PRIu64
				", %u, (uint64_t)in->%s);\n",
				ind, p, vf->bit_off, vf->bit_width, fn);
		} else {
			unsigned b = (unsigned)vf->size * 8;

			fprintf(f, "%s%s_st%u(w + ", ind, p, b);
			off_name(f, c, j);
			fprintf(f, ", (uint%u_t)in->%s);\n", b, fn);
		}
		break;
	case AG_NF_IARRAY:
		if (vf->elem_size == nf->esize) {
			fprintf(f, "%smemcpy(w + ", ind);
			off_name(f, c, j);
			fprintf(f, ", in->%s, %" PRIu64 ");\n", fn,
				vf->count * vf->elem_size);
		} else {
			unsigned b = (unsigned)vf->elem_size * 8;

			fprintf(f,
				"%sfor (size_t i = 0; i < %" PRIu64 "; i++)\n"
				"%s\t%s_st%u(w + ",
				ind, vf->count, ind, p, b);
			off_name(f, c, j);
			fprintf(f,
				" + i * %" PRIu64 ", (uint%u_t)in->%s[i]);\n",
				vf->elem_size, b, fn);
		}
		break;
	case AG_NF_BYTES:
		fprintf(f, "%smemcpy(w + ", ind);
		off_name(f, c, j);
		fprintf(f, ", in->%s, %" PRIu64 ");\n", fn, vf->size);
		break;
	case AG_NF_FAM:
		break;
	}
}

/* Neutral member offsets and sizes of want @wi, as the C compiler lays
 * them out (natural alignment); checked by _Static_assert where used. */
static void neutral_layout(const struct ag_ctx *ctx, size_t wi, uint64_t *noff,
			   uint64_t *nsize)
{
	uint64_t off = 8; /* present */

	for (size_t j = 0; j < ctx->want[wi].nfields; j++) {
		struct ag_nf nf;
		uint64_t al;

		ag_neutral_field(ctx, wi, j, &nf);
		al = !j			    ? AG_NEUTRAL_ALIGN
		     : nf.kind == AG_NF_FAM ? 4
					    : nf.esize;
		nsize[j] = nf.kind == AG_NF_FAM	    ? 4
			   : nf.kind == AG_NF_BYTES ? (nf.count ? nf.count : 1)
						    : nf.esize * nf.count;
		off = (off + al - 1) / al * al;
		noff[j] = off;
		off += nsize[j];
	}
}

/* Same bytes in the wire and in the neutral member, no conversion? */
static bool direct(const struct ag_field *vf, const struct ag_nf *nf)
{
	if (!vf || vf->bit_width)
		return false;
	switch (nf->kind) {
	case AG_NF_INT:
		return vf->size == nf->esize;
	case AG_NF_IARRAY:
		return vf->elem_size == nf->esize && vf->count == nf->count;
	case AG_NF_BYTES:
		return vf->size == nf->count;
	default:
		return false;
	}
}

/* Wire bytes [*lo, *hi) field @vf touches (none for a flexible array). */
static void wire_span(const struct ag_field *vf, uint64_t *lo, uint64_t *hi)
{
	*lo = vf->bit_off / 8;
	if (vf->kind == AG_F_FAM)
		*hi = *lo;
	else if (vf->bit_width)
		*hi = (vf->bit_off + vf->bit_width + 7) / 8;
	else
		*hi = *lo + vf->size;
}

/* Does a field of want @wi present in @v (other than @j), with an index
 * below @below, touch wire bytes [lo, hi)? */
static bool wire_used(const struct vctx *c, size_t j, size_t below, uint64_t lo,
		      uint64_t hi)
{
	if (lo >= hi)
		return false;
	for (size_t i = 0; i < below; i++) {
		const struct ag_field *vf =
			ag_vfield(c->e->ctx, c->v, c->wi, i);
		uint64_t a, b;

		if (!vf || i == j)
			continue;
		wire_span(vf, &a, &b);
		if (a < hi && lo < b)
			return true;
	}
	return false;
}

/*
 * Does pack store field @j unconditionally? Every field outside a union
 * does. A union arm is stored only when non-zero, so that the arm the
 * caller filled wins over arms left zero; but when no field before it
 * shares its bytes, the zeroed image is all it could overwrite, and an
 * unconditional store gives the same bytes.
 */
static bool pack_uncond(const struct vctx *c, size_t j,
			const struct ag_field *vf)
{
	uint64_t lo, hi;

	if (!vf->in_union)
		return true;
	wire_span(vf, &lo, &hi);
	return !wire_used(c, j, j, lo, hi);
}

/*
 * End (exclusive) of the run of fields from @j that are direct and laid
 * out alike in the wire and in the neutral struct: each next field as far
 * from the one before in both, the bytes between (neutral padding; wire
 * padding or fields not wanted, never a wanted field's) copied along, so
 * the run is one memcpy. For pack (@pack) a member of a run must also be
 * stored unconditionally (pack_uncond()); pack zeroes the wire bytes
 * between afterwards.
 */
static size_t run_end(const struct vctx *c, size_t j, const uint64_t *noff,
		      const uint64_t *nsize, bool pack)
{
	const struct ag_ctx *ctx = c->e->ctx;
	size_t n = ctx->want[c->wi].nfields, k = j;
	const struct ag_field *prev = NULL;

	for (; k < n; k++) {
		const struct ag_field *vf = ag_vfield(ctx, c->v, c->wi, k);
		struct ag_nf nf;

		ag_neutral_field(ctx, c->wi, k, &nf);
		if (!direct(vf, &nf) || (pack && !pack_uncond(c, k, vf)))
			break;
		if (prev) {
			uint64_t wend = prev->bit_off / 8 + prev->size;
			uint64_t nend = noff[k - 1] + nsize[k - 1];

			if (vf->bit_off / 8 < wend || noff[k] < nend ||
			    vf->bit_off / 8 - wend != noff[k] - nend ||
			    wire_used(c, SIZE_MAX, n, wend, vf->bit_off / 8))
				break;
		}
		prev = vf;
	}
	return k - j >= 2 ? k : j + 1;
}

/*
 * The comment over the memcpy of run [@j, @k): the fields it covers, and
 * how many bytes between them come along (neutral padding on unpack; on
 * pack, wire bytes zeroed after the copy).
 */
static void emit_run_comment(const struct vctx *c, size_t j, size_t k,
			     const uint64_t *noff, const uint64_t *nsize,
			     bool pack)
{
	const struct ag_want *w = &c->e->ctx->want[c->wi];
	FILE *f = c->e->f;
	uint64_t gap = noff[k - 1] + nsize[k - 1] - noff[j];
	int col;

	for (size_t i = j; i < k; i++)
		gap -= nsize[i];
	col = 8 + fprintf(f, "\t/* %zu fields:", k - j) - 1;
	for (size_t i = j; i < k; i++) {
		int len = (int)strlen(w->fields[i].neutral) + 1;

		if (col + len > 76) {
			fprintf(f, "\n\t *");
			col = 10;
		}
		fprintf(f, " %s", w->fields[i].neutral);
		col += len;
	}
	if (gap)
		fprintf(f, "\n\t * (and the %" PRIu64 " byte%s between them%s)",
			gap, gap == 1 ? "" : "s", pack ? ", zeroed below" : "");
	fprintf(f, " */\n");
}

/* An `elem` field: its element type is exactly the wanted element
 * struct, and its length is what the generated counts say. */
static void emit_elem_asserts(const struct vctx *c, size_t j,
			      const struct ag_field *vf)
{
	const struct ag_want *w = &c->e->ctx->want[c->wi];
	const struct ag_record *r = c->v->rec[c->wi];
	const struct ag_record *er =
		c->v->rec[ag_elem_want(c->e->ctx, c->wi, j)];
	FILE *f = c->e->f;

	fprintf(f,
		"_Static_assert(__builtin_types_compatible_p(\n"
		"\t\t       __typeof__(((%s *)0)->%s[0]), %s),\n"
		"\t       \"abigen: %s: %s.%s is an array of %s\");\n",
		r->spelling, vf->path, er->spelling, c->v->in.tag, r->spelling,
		vf->path, er->spelling);
	fprintf(f,
		"_Static_assert(sizeof(((%s *)0)->%s) / sizeof(%s) == "
		"%" PRIu64 ",\n\t       \"abigen: %s: length of %s.%s\");\n",
		r->spelling, vf->path, er->spelling, vf->count, c->v->in.tag,
		r->spelling, w->fields[j].neutral);
}

static bool has_elems(const struct ag_want *w)
{
	for (size_t j = 0; j < w->nfields; j++)
		if (w->fields[j].elem)
			return true;
	return false;
}

static void emit_vstruct(struct em *e, const struct ag_version *v, size_t wi)
{
	const struct ag_want *w = &e->ctx->want[wi];
	const struct ag_record *r = v->rec[wi];
	FILE *f = e->f;
	const char *p = e->p, *id = v->in.ident;
	struct vctx c = {e, v, wi, id, ag_up(w->neutral)};
	uint64_t mask = 0, *noff, *nsize;

	fprintf(f, "/* %s: %s, %" PRIu64 " bytes */\n", w->neutral, r->spelling,
		r->size);
	fprintf(f, "#define ABIGEN_SIZE_%s %" PRIu64 "\n", w->neutral, r->size);
	fprintf(f,
		"_Static_assert(sizeof(%s) == ABIGEN_SIZE_%s,\n\t       "
		"\"abigen: %s: sizeof(%s)\");\n",
		r->spelling, w->neutral, v->in.tag, r->spelling);
	fprintf(f,
		"_Static_assert(_Alignof(%s) == %" PRIu64 ",\n\t       "
		"\"abigen: %s: _Alignof(%s)\");\n",
		r->spelling, r->align, v->in.tag, r->spelling);
	for (size_t j = 0; j < w->nfields; j++) {
		const struct ag_field *vf = ag_vfield(e->ctx, v, wi, j);

		if (!vf)
			continue;
		mask |= UINT64_C(1) << j;
		if (vf->bit_width)
			continue; /* checked at run time by selfcheck */
		fprintf(f, "#define ");
		off_name(f, &c, j);
		fprintf(f, " %" PRIu64 "\n", vf->bit_off / 8);
		fprintf(f, "_Static_assert(offsetof(%s, %s) == ", r->spelling,
			vf->path);
		off_name(f, &c, j);
		fprintf(f, ",\n\t       \"abigen: %s: offsetof(%s, %s)\");\n",
			v->in.tag, r->spelling, vf->path);
		if (vf->kind != AG_F_FAM)
			fprintf(f,
				"_Static_assert(sizeof(((%s *)0)->%s) == "
				"%" PRIu64
				",\n\t       \"abigen: %s: sizeof(%s.%s)\");\n",
				r->spelling, vf->path, vf->size, v->in.tag,
				r->spelling, vf->path);
		if (w->fields[j].elem)
			emit_elem_asserts(&c, j, vf);
	}
	/* the neutral layout the coalesced copies rely on */
	noff = ag_alloc(w->nfields * sizeof(*noff));
	nsize = ag_alloc(w->nfields * sizeof(*nsize));
	neutral_layout(e->ctx, wi, noff, nsize);
	for (size_t j = 0, k; j < w->nfields; j = k) {
		k = run_end(&c, j, noff, nsize, false);
		for (size_t i = j; k > j + 1 && i < k; i++)
			fprintf(f,
				"_Static_assert(offsetof(struct %s_%s, %s) == "
				"%" PRIu64
				",\n\t       \"abigen: neutral %s.%s\");\n",
				p, w->neutral, w->fields[i].neutral, noff[i],
				w->neutral, w->fields[i].neutral);
	}
	/* unpack */
	fprintf(f,
		"\nint %s_%s_%s_unpack(const void *wire, size_t len,\n"
		"\t\t\tstruct %s_%s *out)\n{\n\tconst uint8_t *w = wire;\n\n"
		"\tif (!wire || !out || len < ABIGEN_SIZE_%s)\n"
		"\t\treturn ABIGEN_FAIL(-EINVAL, \"no buffer or wire too "
		"short\");\n"
		"\tout->present = UINT64_C(0x%" PRIx64 ");\n",
		p, id, w->neutral, p, w->neutral, w->neutral, mask);
	/* every neutral member is written: loaded, or zeroed when absent
	 * (its HAS_ bit is clear) or beyond this version's array length */
	for (size_t j = 0, k; j < w->nfields; j = k) {
		const struct ag_field *vf = ag_vfield(e->ctx, v, wi, j);
		const char *fn = w->fields[j].neutral;
		struct ag_nf nf;

		k = run_end(&c, j, noff, nsize, false);
		if (k > j + 1) {
			emit_run_comment(&c, j, k, noff, nsize, false);
			fprintf(f,
				"\tmemcpy((uint8_t *)out + offsetof(struct "
				"%s_%s, %s), w + ",
				p, w->neutral, fn);
			off_name(f, &c, j);
			fprintf(f, ", %" PRIu64 ");\n",
				noff[k - 1] + nsize[k - 1] - noff[j]);
			continue;
		}
		ag_neutral_field(e->ctx, wi, j, &nf);
		if (!vf) {
			if (nf.kind == AG_NF_INT || nf.kind == AG_NF_FAM)
				fprintf(f, "\tout->%s = 0; /* absent */\n", fn);
			else
				fprintf(f,
					"\tmemset(out->%s, 0, "
					"sizeof(out->%s)); "
					"/* absent */\n",
					fn, fn);
			continue;
		}
		emit_unpack_field(&c, j, vf, &nf);
		if (nf.kind == AG_NF_IARRAY && vf->count < nf.count)
			fprintf(f,
				"\tmemset(out->%s + %" PRIu64 ", 0, %" PRIu64
				" * sizeof(out->%s[0]));\n",
				fn, vf->count, nf.count - vf->count, fn);
		if (nf.kind == AG_NF_BYTES && vf->size < nf.count)
			fprintf(f,
				"\tmemset(out->%s + %" PRIu64 ", 0, %" PRIu64
				");\n",
				fn, vf->size, nf.count - vf->size);
	}
	fprintf(f, "\treturn 0;\n}\n\n");
	/* pack */
	fprintf(f,
		"int %s_%s_%s_pack_as(const struct %s_%s *in, uint64_t "
		"present,\n\t\t\t void *wire, size_t len)\n{\n"
		"\tuint8_t *w = wire;\n\n"
		"\tif (!in || !wire || len < ABIGEN_SIZE_%s)\n"
		"\t\treturn ABIGEN_FAIL(-EINVAL, \"no buffer or wire too "
		"short\");\n"
		"\tif (present & ~UINT64_C(0x%" PRIx64 "))\n"
		"\t\treturn ABIGEN_FAIL(-EOPNOTSUPP, \"a present field this "
		"version lacks\");\n",
		p, id, w->neutral, p, w->neutral, w->neutral, mask);
	for (size_t j = 0; j < w->nfields; j++) {
		const struct ag_field *vf = ag_vfield(e->ctx, v, wi, j);
		struct ag_nf nf;

		if (!vf)
			continue;
		ag_neutral_field(e->ctx, wi, j, &nf);
		emit_pack_check(&c, j, vf, &nf);
	}
	/* the runs first, one memcpy each (the wire bytes between their
	 * fields come along and are zeroed next) */
	for (size_t j = 0, k; j < w->nfields; j = k) {
		k = run_end(&c, j, noff, nsize, true);
		if (k == j + 1)
			continue;
		emit_run_comment(&c, j, k, noff, nsize, true);
		fprintf(f, "\tmemcpy(w + ");
		off_name(f, &c, j);
		fprintf(f,
			", (const uint8_t *)in + offsetof(struct %s_%s, %s), "
			"%" PRIu64 ");\n",
			p, w->neutral, w->fields[j].neutral,
			noff[k - 1] + nsize[k - 1] - noff[j]);
	}
	/* then zero what no unconditional store covers: padding, fields
	 * not wanted, bitfield storage and union arms stored only when
	 * non-zero */
	{
		uint8_t *cov = ag_alloc(r->size + 1);

		for (size_t j = 0; j < w->nfields; j++) {
			const struct ag_field *vf = ag_vfield(e->ctx, v, wi, j);
			uint64_t lo, hi;

			if (!vf || vf->bit_width || vf->kind == AG_F_FAM ||
			    !pack_uncond(&c, j, vf))
				continue;
			wire_span(vf, &lo, &hi);
			for (uint64_t b = lo; b < hi && b < r->size; b++)
				cov[b] = 1;
		}
		for (uint64_t b = 0; b < r->size;) {
			uint64_t end = b;

			if (cov[b]) {
				b++;
				continue;
			}
			while (end < r->size && !cov[end])
				end++;
			fprintf(f,
				"\tmemset(w + %" PRIu64 ", 0, %" PRIu64 ");\n",
				b, end - b);
			b = end;
		}
		free(cov);
	}
	/* then every other field, in order, onto the zeroed bytes */
	for (size_t j = 0, k; j < w->nfields; j = k) {
		const struct ag_field *vf = ag_vfield(e->ctx, v, wi, j);
		struct ag_nf nf;

		k = run_end(&c, j, noff, nsize, true);
		if (k > j + 1 || !vf)
			continue;
		ag_neutral_field(e->ctx, wi, j, &nf);
		emit_pack_field(&c, j, vf, &nf, !pack_uncond(&c, j, vf));
	}
	fprintf(f, "\treturn 0;\n}\n\n");
	fprintf(f,
		"int %s_%s_%s_pack(const struct %s_%s *in, void *wire, size_t "
		"len)\n{\n"
		"\treturn %s_%s_%s_pack_as(in, in ? in->present : 0, wire, "
		"len);\n}\n\n",
		p, id, w->neutral, p, w->neutral, p, id, w->neutral);
	fprintf(f,
		"static int unpack_%s(const void *wire, size_t len, void "
		"*out)\n"
		"{\n\treturn %s_%s_%s_unpack(wire, len, out);\n}\n\n"
		"/* straight to the body: no extra hop for the dispatcher */\n"
		"static int pack_%s(const void *in, void *wire, size_t len)\n"
		"{\n\tconst struct %s_%s *n = in;\n\n"
		"\treturn %s_%s_%s_pack_as(n, n ? n->present : 0, wire, "
		"len);\n}\n\n"
		"static int packas_%s(const void *in, uint64_t present, "
		"void *wire,\n\t\t\tsize_t len)\n"
		"{\n\treturn %s_%s_%s_pack_as(in, present, wire, len);"
		"\n}\n\n",
		w->neutral, p, id, w->neutral, w->neutral, p, w->neutral, p, id,
		w->neutral, w->neutral, p, id, w->neutral);
	/* byte offsets for callers that must touch one field in place
	 * (shared-memory pointers); absent fields and bitfields have none */
	fprintf(f, "static const uint32_t off_%s[%zu] = {\n", w->neutral,
		w->nfields ? w->nfields : 1);
	for (size_t j = 0; j < w->nfields; j++) {
		const struct ag_field *vf = ag_vfield(e->ctx, v, wi, j);

		fprintf(f, "\t");
		if (vf && !vf->bit_width)
			off_name(f, &c, j);
		else
			fprintf(f, "UINT32_MAX");
		fprintf(f, ", /* %s */\n", w->fields[j].neutral);
	}
	if (!w->nfields)
		fprintf(f, "\tUINT32_MAX,\n");
	fprintf(f, "};\n\n");
	/* element counts of `elem` arrays (0: absent or not one) */
	if (has_elems(w)) {
		fprintf(f, "static const uint32_t cnt_%s[%zu] = {\n",
			w->neutral, w->nfields);
		for (size_t j = 0; j < w->nfields; j++) {
			const struct ag_field *vf = ag_vfield(e->ctx, v, wi, j);

			fprintf(f, "\t%" PRIu64 ", /* %s */\n",
				vf && w->fields[j].elem ? vf->count : 0,
				w->fields[j].neutral);
		}
		fprintf(f, "};\n\n");
	}
	free(noff);
	free(nsize);
	free(c.nu);
}

static void emit_selfcheck(struct em *e, const struct ag_version *v)
{
	FILE *f = e->f;

	fprintf(f, "static int selfcheck(char *msg, size_t len)\n{\n");
	for (size_t i = 0; i < e->ctx->nwant; i++) {
		const struct ag_want *w = &e->ctx->want[i];
		const struct ag_record *r = v->rec[i];

		if (w->kind != AG_W_STRUCT || !r)
			continue;
		for (size_t j = 0; j < w->nfields; j++) {
			const struct ag_field *vf = ag_vfield(e->ctx, v, i, j);

			if (!vf || !vf->bit_width)
				continue;
			fprintf(f,
				"\t{ /* bitfield %s.%s: bits %" PRIu64
				"..%" PRIu64 " */\n"
				"\t\t%s t;\n\t\tuint8_t ref[sizeof(t)];\n\n"
				"\t\tmemset(&t, 0, sizeof(t));\n"
				"\t\tmemset(ref, 0, sizeof(ref));\n"
				"\t\tt.%s = ",
				r->spelling, vf->path, vf->bit_off,
				vf->bit_off + vf->bit_width - 1, r->spelling,
				vf->path);
			if (vf->is_signed)
				fprintf(f, "-1;\n");
			else
				fprintf(f, "0x%" PRIx64 "u;\n",
					maxu(vf->bit_width));
			fprintf(f,
				"\t\t%s_stbits(ref, %" PRIu64
				", %u, UINT64_MAX);\n"
				"\t\tif (memcmp(&t, ref, sizeof(t))) {\n"
				"\t\t\tsnprintf(msg, len, \"abigen: %s: "
				"bitfield "
				"%s.%s is not at bits %" PRIu64 "+%u\");\n"
				"\t\t\treturn -EPROTO;\n\t\t}\n\t}\n",
				e->p, vf->bit_off, vf->bit_width, v->in.tag,
				r->spelling, vf->path, vf->bit_off,
				vf->bit_width);
		}
	}
	fprintf(f, "\t(void)msg;\n\t(void)len;\n\treturn 0;\n}\n\n");
}

static void lit_value(FILE *f, const struct ag_const *k)
{
	if (k->is_unsigned)
		fprintf(f, "%" PRIu64 "ull", (uint64_t)k->value);
	else if (k->value == INT64_MIN)
		fprintf(f, "(-9223372036854775807ll - 1)");
	else
		fprintf(f, "%" PRId64 "ll", k->value);
}

void ag_emit_version(struct em *e, const struct ag_version *v)
{
	const struct ag_ctx *ctx = e->ctx;
	FILE *f = e->f;
	const char *p = e->p, *pu = e->pu, *id = v->in.ident;

	ag_banner(f, ctx, "One firmware version's side of the neutral layer.");
	fprintf(f, "/* version %s, pinned define profile: */\n", v->in.tag);
	for (size_t i = 0; i < v->in.defs.n; i++) {
		char *d = ag_strdup(v->in.defs.v[i]), *eq = strchr(d, '=');

		*eq = '\0';
		fprintf(f, "#undef %s\n#define %s %s\n", d, d, eq + 1);
		free(d);
	}
	fprintf(f, "\n#include <stddef.h>\n");
	for (size_t i = 0; i < v->in.headers.n; i++)
		fprintf(f, "#include \"%s\"\n", v->in.headers.v[i]);
	fprintf(f, "\n#include \"%s.h\"\n\n", p);
	fprintf(f,
		"static __attribute__((cold, noinline)) int\n"
		"fail_(int err, const char *fn, const char *why)\n"
		"{\n\t%s_error(err, \"%s\", fn, why);\n\treturn err;\n}\n"
		"#define ABIGEN_FAIL(err, why) fail_(err, __func__, why)\n\n",
		p, v->in.tag);
	for (size_t i = 0; i < ctx->nwant; i++)
		if (ctx->want[i].kind == AG_W_STRUCT && v->rec[i])
			emit_vstruct(e, v, i);
	emit_selfcheck(e, v);
	/* constants */
	for (size_t i = 0; i < ctx->nwant; i++) {
		const struct ag_const *k = &v->konst[i];

		if (!k->found)
			continue;
		if (k->drf) {
			fprintf(f,
				"_Static_assert((1 ? %s) == %u && (0 ? %s) == "
				"%u,\n"
				"\t       \"abigen: %s: DRF %s\");\n",
				k->vname, k->hi, k->vname, k->lo, v->in.tag,
				k->vname);
		} else {
			fprintf(f, "_Static_assert((%s) == ", k->vname);
			lit_value(f, k);
			fprintf(f,
				",\n\t       \"abigen: %s: value of %s\");\n",
				v->in.tag, k->vname);
		}
	}
	/* tables */
	for (size_t i = 0; i < ctx->nwant; i++) {
		const struct ag_table *t = &v->tables[i];
		struct ag_strv names = {0};
		char *tu;

		if (ctx->want[i].kind != AG_W_TABLE || !t->n)
			continue;
		tu = ag_up(ctx->want[i].neutral);
		ag_table_names(ctx, i, &names);
		fprintf(f, "\nstatic const struct %s_tentry tab_%s[] = {\n", p,
			ctx->want[i].neutral);
		for (size_t k = 0; k < t->n; k++)
			fprintf(f, "\t{ %s_%s_%s, 0x%" PRIx64 " }, /* %s */\n",
				pu, tu, t->e[k].name, (uint64_t)t->e[k].value,
				t->e[k].vname);
		fprintf(f, "};\n");
		for (size_t k = 0; k < t->n; k++)
			fprintf(f,
				"_Static_assert((%s) == 0x%" PRIx64
				", \"abigen: "
				"%s: %s\");\n",
				t->e[k].vname, (uint64_t)t->e[k].value,
				v->in.tag, t->e[k].vname);
		free(tu);
		ag_free_strv(&names);
	}
	/* descriptor */
	fprintf(f,
		"\nconst struct %s_version %s_%s = {\n\t.tag = \"%s\",\n"
		"\t.selfcheck = selfcheck,\n\t.structs = {\n",
		p, p, id, v->in.tag);
	for (size_t i = 0; i < ctx->nwant; i++) {
		const struct ag_want *w = &ctx->want[i];
		char *u;
		uint64_t mask = 0;

		if (w->kind != AG_W_STRUCT || !v->rec[i])
			continue;
		for (size_t j = 0; j < w->nfields; j++)
			if (ag_vfield(ctx, v, i, j))
				mask |= UINT64_C(1) << j;
		u = ag_up(w->neutral);
		fprintf(f,
			"\t\t[%s_S_%s] = { \"%s\", true, %" PRIu64
			", UINT64_C(0x%" PRIx64
			"),\n\t\t\t unpack_%s, pack_%s, packas_%s, off_%s, ",
			pu, u, w->neutral, v->rec[i]->size, mask, w->neutral,
			w->neutral, w->neutral, w->neutral);
		if (has_elems(w))
			fprintf(f, "cnt_%s },\n", w->neutral);
		else
			fprintf(f, "NULL },\n");
		free(u);
	}
	fprintf(f, "\t},\n\t.tables = {\n");
	for (size_t i = 0; i < ctx->nwant; i++) {
		char *u;

		if (ctx->want[i].kind != AG_W_TABLE || !v->tables[i].n)
			continue;
		u = ag_up(ctx->want[i].neutral);
		fprintf(f, "\t\t[%s_T_%s] = { tab_%s, %zu },\n", pu, u,
			ctx->want[i].neutral, v->tables[i].n);
		free(u);
	}
	fprintf(f, "\t},\n\t.consts = {\n");
	for (size_t i = 0; i < ctx->nwant; i++) {
		const struct ag_const *k = &v->konst[i];
		char *u;

		if (!k->found)
			continue;
		u = ag_up(ctx->want[i].neutral);
		fprintf(f, "\t\t[%s_C_%s] = { true, %s, %u, %u, ", pu, u,
			k->drf ? "true" : "false", k->hi, k->lo);
		if (k->is_unsigned)
			fprintf(f, "(int64_t)%" PRIu64 "ull",
				(uint64_t)k->value);
		else
			lit_value(f, k);
		fprintf(f, " },\n");
		free(u);
	}
	fprintf(f, "\t},\n};\n");
}

/* ---- <p>_ops_skel.c ------------------------------------------------------ */

void ag_emit_ops_skel(struct em *e)
{
	const struct ag_ctx *ctx = e->ctx;
	FILE *f = e->f;
	const char *p = e->p;

	ag_banner(f, ctx,
		  "Ops-table skeleton: copy into the driver and fill in the "
		  "hooks\n"
		  " * where a version behaves differently. Each version "
		  "inherits\n"
		  " * from the one before it (.base).");
	fprintf(f, "#include \"%s.h\"\n\n", p);
	for (size_t v = 0; v < ctx->nver; v++) {
		const struct ag_version *ver = &ctx->ver[v];

		fprintf(f, "extern const struct %s_ops %s_ops_%s;\n", p, p,
			ver->in.ident);
		fprintf(f,
			"const struct %s_ops %s_ops_%s = {\n\t.tag = \"%s\",\n",
			p, p, ver->in.ident, ver->in.tag);
		if (v)
			fprintf(f, "\t.base = &%s_ops_%s,\n", p,
				ctx->ver[v - 1].in.ident);
		for (size_t i = 0; i < ctx->nwant; i++) {
			const struct ag_want *w = &ctx->want[i];

			if (w->kind != AG_W_STRUCT || !w->role)
				continue;
			if (!ver->rec[i]) {
				fprintf(f,
					"\t/* %s: %s absent in this version "
					"*/\n",
					w->neutral, w->name);
				continue;
			}
			for (size_t j = 0; j < w->nfields; j++)
				if (!ag_vfield(ctx, ver, i, j))
					fprintf(f,
						"\t/* .%s: field %s absent "
						"here: "
						"supply it another way */\n",
						w->neutral, w->fields[j].path);
		}
		fprintf(f, "};\n\n");
	}
}

// SPDX-License-Identifier: MIT
/*
 * abigen: the version-neutral outputs: <p>.h (neutral structs, presence
 * bits, ids, table enums, version descriptors, wire helpers) and
 * <p>_common.c (printers, generic dispatch, table lookups).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "abigen.h"
#include "emit.h"
#include "model.h"

/* ---- <p>.h ------------------------------------------------------------ */

/* the element accessors of want @wi's `elem` fields */
static void emit_elem_decls(struct em *e, size_t wi)
{
	const struct ag_want *w = &e->ctx->want[wi];
	const char *p = e->p;

	for (size_t j = 0; j < w->nfields; j++) {
		const char *fn = w->fields[j].neutral, *en = w->fields[j].elem;

		if (!en)
			continue;
		fprintf(e->f,
			"/* %s.%s: an array of %s_%s; its length in @v\n"
			" * (0 when @v lacks it), element @i unpacked from or "
			"packed into\n"
			" * the raw member in @v's layout (-EOPNOTSUPP absent, "
			"-ERANGE\n"
			" * beyond @v's length) */\n"
			"uint32_t %s_%s_%s_count(const struct %s_version *v);\n"
			"int %s_%s_%s_get(const struct %s_version *v,\n"
			"\t\tconst struct %s_%s *s, uint32_t i,\n"
			"\t\tstruct %s_%s *out);\n"
			"int %s_%s_%s_set(const struct %s_version *v, struct "
			"%s_%s *s,\n"
			"\t\tuint32_t i, const struct %s_%s *in);\n",
			w->neutral, fn, p, en, p, w->neutral, fn, p, p,
			w->neutral, fn, p, p, w->neutral, p, en, p, w->neutral,
			fn, p, p, w->neutral, p, en);
	}
}

static void emit_helpers(struct em *e)
{
	FILE *f = e->f;
	const char *p = e->p;

	fprintf(f, "_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,\n"
		   "\t       \"abigen: wire images are little-endian\");\n\n");
	for (unsigned b = 8; b <= 64; b *= 2) {
		fprintf(f,
			"static inline uint%u_t %s_ld%u(const uint8_t *p)\n{\n"
			"\tuint%u_t v;\n\n\tmemcpy(&v, p, sizeof(v));\n"
			"\treturn v;\n}\n\n",
			b, p, b, b);
		fprintf(f,
			"static inline void %s_st%u(uint8_t *p, uint%u_t v)\n"
			"{\n\tmemcpy(p, &v, sizeof(v));\n}\n\n",
			p, b, b);
	}
	fprintf(f,
		"/* bits [bit, bit + width) of a little-endian image */\n"
		"static inline uint64_t %s_ldbits(const uint8_t *p, uint64_t "
		"bit,\n\t\t\t\t     unsigned width)\n{\n"
		"\tunsigned __int128 v = 0;\n"
		"\tunsigned sh = (unsigned)(bit & 7), n = (sh + width + 7) / "
		"8;\n\n"
		"\tp += bit >> 3;\n"
		"\tfor (unsigned i = 0; i < n; i++)\n"
		"\t\tv |= (unsigned __int128)p[i] << (8 * i);\n"
		"\tv >>= sh;\n"
		"\treturn width >= 64 ? (uint64_t)v\n"
		"\t\t\t   : (uint64_t)v & ((UINT64_C(1) << width) - 1);\n}\n\n",
		p);
	fprintf(f,
		"static inline void %s_stbits(uint8_t *p, uint64_t bit, "
		"unsigned width,\n\t\t\t\t  uint64_t val)\n{\n"
		"\tunsigned sh = (unsigned)(bit & 7), n = (sh + width + 7) / "
		"8;\n"
		"\tunsigned __int128 m = width >= 64 ? (unsigned "
		"__int128)UINT64_MAX\n"
		"\t\t\t\t\t\t: ((unsigned __int128)1 << width) - 1;\n"
		"\tunsigned __int128 v = 0;\n\n"
		"\tm <<= sh;\n\tp += bit >> 3;\n"
		"\tfor (unsigned i = 0; i < n; i++)\n"
		"\t\tv |= (unsigned __int128)p[i] << (8 * i);\n"
		"\tv = (v & ~m) | (((unsigned __int128)val << sh) & m);\n"
		"\tfor (unsigned i = 0; i < n; i++)\n"
		"\t\tp[i] = (uint8_t)(v >> (8 * i));\n}\n\n",
		p);
	fprintf(f,
		"static inline int64_t %s_sext(uint64_t v, unsigned width)\n{\n"
		"\treturn width >= 64 ? (int64_t)v\n"
		"\t\t\t   : (int64_t)(v << (64 - width)) >> (64 - "
		"width);\n}\n\n"
		"static inline bool %s_nonzero(const void *p, size_t n)\n{\n"
		"\tconst uint8_t *b = p;\n\n"
		"\tfor (size_t i = 0; i < n; i++)\n\t\tif (b[i])\n"
		"\t\t\treturn true;\n\treturn false;\n}\n\n",
		p, p);
}

static int emit_struct_decl(struct em *e, size_t wi)
{
	const struct ag_want *w = &e->ctx->want[wi];
	char *nu = ag_up(w->neutral);
	FILE *f = e->f;

	fprintf(f, "/* %s%s%s (wire type %s) */\n", w->role ? w->role : "",
		w->role ? " " : "", w->neutral, w->name);
	for (size_t j = 0; j < w->nfields; j++) {
		char *fu = ag_up(w->fields[j].neutral);

		fprintf(f, "#define %s_%s_HAS_%s (UINT64_C(1) << %zu)\n", e->pu,
			nu, fu, j);
		free(fu);
	}
	fprintf(f,
		"struct %s_%s {\n\t/* %s_%s_HAS_* bits: fields the version "
		"has; an absent\n\t * field is never a silent zero */\n"
		"\tuint64_t present;\n",
		e->p, w->neutral, e->pu, nu);
	for (size_t j = 0; j < w->nfields; j++) {
		struct ag_nf nf;
		const char *fn = w->fields[j].neutral;
		int r = ag_neutral_field(e->ctx, wi, j, &nf);

		if (r) {
			ag_error("%s:%d: field '%s' of '%s': %s",
				 e->ctx->want_file, w->fields[j].line,
				 w->fields[j].path, w->name, ag_neutral_why(r));
			free(nu);
			return -EINVAL;
		}
		if (!j)
			fprintf(f,
				"\t/* aligned: whole-run copies in aligned "
				"pieces */\n\t_Alignas(%d) ",
				AG_NEUTRAL_ALIGN);
		else
			fprintf(f, "\t");
		switch (nf.kind) {
		case AG_NF_INT:
			fprintf(f, "%s %s;\n", ag_ntype(&nf), fn);
			break;
		case AG_NF_IARRAY:
			fprintf(f, "%s %s[%" PRIu64 "];\n", ag_ntype(&nf), fn,
				nf.count);
			break;
		case AG_NF_BYTES:
			fprintf(f, "uint8_t %s[%" PRIu64 "]; /* raw */\n", fn,
				nf.count ? nf.count : 1);
			break;
		case AG_NF_FAM:
			fprintf(f,
				"uint32_t %s; /* flexible array: its byte "
				"offset in the wire */\n",
				fn);
			break;
		}
	}
	fprintf(f, "};\n\n");
	free(nu);
	return 0;
}

static void emit_ids(struct em *e)
{
	FILE *f = e->f;
	const struct ag_ctx *ctx = e->ctx;

	fprintf(f, "enum %s_struct_id {\n", e->p);
	for (size_t i = 0; i < ctx->nwant; i++)
		if (ctx->want[i].kind == AG_W_STRUCT) {
			char *u = ag_up(ctx->want[i].neutral);

			fprintf(f, "\t%s_S_%s,\n", e->pu, u);
			free(u);
		}
	fprintf(f, "\t%s_S__COUNT\n};\n\n", e->pu);
	fprintf(f, "enum %s_const_id {\n", e->p);
	for (size_t i = 0; i < ctx->nwant; i++)
		if (ctx->want[i].kind == AG_W_CONST ||
		    ctx->want[i].kind == AG_W_DRF) {
			char *u = ag_up(ctx->want[i].neutral);

			fprintf(f, "\t%s_C_%s,\n", e->pu, u);
			free(u);
		}
	fprintf(f, "\t%s_C__COUNT\n};\n\n", e->pu);
	fprintf(f, "enum %s_table_id {\n", e->p);
	for (size_t i = 0; i < ctx->nwant; i++)
		if (ctx->want[i].kind == AG_W_TABLE) {
			char *u = ag_up(ctx->want[i].neutral);

			fprintf(f, "\t%s_T_%s,\n", e->pu, u);
			free(u);
		}
	fprintf(f, "\t%s_T__COUNT\n};\n\n", e->pu);
}

static void emit_table_enums(struct em *e)
{
	const struct ag_ctx *ctx = e->ctx;

	for (size_t i = 0; i < ctx->nwant; i++) {
		struct ag_strv names = {0};
		char *tu;

		if (ctx->want[i].kind != AG_W_TABLE)
			continue;
		tu = ag_up(ctx->want[i].neutral);
		ag_table_names(ctx, i, &names);
		fprintf(e->f,
			"/* table %s: neutral numbering (0: unknown) */\n"
			"enum %s_%s_id {\n\t%s_%s__UNKNOWN = 0,\n",
			ctx->want[i].name, e->p, ctx->want[i].neutral, e->pu,
			tu);
		for (size_t k = 0; k < names.n; k++)
			fprintf(e->f, "\t%s_%s_%s = %zu,\n", e->pu, tu,
				names.v[k], k + 1);
		fprintf(e->f, "\t%s_%s__COUNT = %zu\n};\n\n", e->pu, tu,
			names.n + 1);
		ag_free_strv(&names);
		free(tu);
	}
}

/* a compile-time value as the header wrote it (hex: the same C type) */
static void k_value(FILE *f, int64_t v, bool is_unsigned)
{
	if (is_unsigned || v >= 0)
		fprintf(f, "0x%" PRIx64, (uint64_t)v);
	else if (v == INT64_MIN)
		fprintf(f, "(-0x7fffffffffffffff - 1)");
	else
		fprintf(f, "(-0x%" PRIx64 ")", (uint64_t)-v);
}

/* the value of table entry @name in version @v; false when it lacks it */
static bool k_entry(const struct ag_version *v, size_t wi, const char *name,
		    int64_t *out)
{
	const struct ag_table *t = &v->tables[wi];

	for (size_t k = 0; k < t->n; k++)
		if (!strcmp(t->e[k].name, name)) {
			*out = t->e[k].value;
			return true;
		}
	return false;
}

/*
 * Compile-time values: `fixed` constants (every version agrees, checked
 * in main.c and static-asserted in every version file) and the entries of
 * `fixed` or `numbers TAG` tables, with an X-macro list per table.
 */
static void emit_fixed(struct em *e)
{
	const struct ag_ctx *ctx = e->ctx;
	FILE *f = e->f;

	for (size_t i = 0; i < ctx->nwant; i++) {
		const struct ag_want *w = &ctx->want[i];
		const struct ag_const *k = &ctx->ver[0].konst[i];
		char *u;

		if (w->kind != AG_W_CONST || !w->fixed || !k->found)
			continue;
		u = ag_up(w->neutral);
		fprintf(f, "#define %s_K_%s ", e->pu, u);
		k_value(f, k->value, k->is_unsigned);
		fprintf(f, " /* %s, every version */\n", w->name);
		free(u);
	}
	for (size_t i = 0; i < ctx->nwant; i++) {
		const struct ag_want *w = &ctx->want[i];
		struct ag_strv names = {0};
		const struct ag_version *nv = NULL;
		char *tu;

		if (w->kind != AG_W_TABLE || (!w->fixed && !w->numbers))
			continue;
		for (size_t v = 0; v < ctx->nver; v++)
			if (w->numbers &&
			    !strcmp(ctx->ver[v].in.tag, w->numbers))
				nv = &ctx->ver[v];
		tu = ag_up(w->neutral);
		ag_table_names(ctx, i, &names);
		fprintf(f, "\n/* table %s: %s numbers */\n", w->name,
			nv ? nv->in.tag : "every version's (fixed)");
		for (int pass = 0; pass < 2; pass++) {
			if (pass)
				fprintf(f, "#define %s_K_%s_LIST(X) \\\n",
					e->pu, tu);
			for (size_t n = 0; n < names.n; n++) {
				int64_t val;
				bool has = false;

				for (size_t v = 0; v < ctx->nver && !has; v++)
					if (!nv || nv == &ctx->ver[v])
						has = k_entry(&ctx->ver[v], i,
							      names.v[n], &val);
				if (!has)
					continue;
				if (!pass) {
					fprintf(f, "#define %s_K_%s_%s ", e->pu,
						tu, names.v[n]);
					k_value(f, val, false);
					fprintf(f, "\n");
				} else {
					fprintf(f, "\tX(%s, ", names.v[n]);
					k_value(f, val, false);
					fprintf(f, ") \\\n");
				}
			}
			if (pass)
				fprintf(f, "\t/* end */\n");
		}
		ag_free_strv(&names);
		free(tu);
	}
	fprintf(f, "\n");
}

int ag_emit_header(struct em *e)
{
	const struct ag_ctx *ctx = e->ctx;
	FILE *f = e->f;
	const char *p = e->p, *pu = e->pu;

	ag_banner(f, ctx, "Version-neutral firmware ABI layer.");
	fprintf(f,
		"#ifndef %s_GENERATED_H\n#define %s_GENERATED_H\n\n"
		"#include <errno.h>\n#include <stdbool.h>\n#include "
		"<stddef.h>\n"
		"#include <stdint.h>\n#include <stdio.h>\n#include "
		"<string.h>\n\n",
		pu, pu);
	emit_helpers(e);
	emit_ids(e);
	emit_table_enums(e);
	emit_fixed(e);
	for (size_t i = 0; i < ctx->nwant; i++)
		if (ctx->want[i].kind == AG_W_STRUCT && emit_struct_decl(e, i))
			return -EINVAL;
	fprintf(f,
		"/** struct %s_const - a constant in one version. */\n"
		"struct %s_const {\n\tbool present;\n\tbool drf; /* hi:lo bit "
		"range */\n\tuint8_t hi, lo;\n\tint64_t value;\n};\n\n"
		"/** struct %s_tentry - neutral <-> wire number. */\n"
		"struct %s_tentry {\n\tuint32_t neutral;\n\tuint64_t "
		"wire;\n};\n\n"
		"/** struct %s_table - entries sorted by wire number. */\n"
		"struct %s_table {\n\tconst struct %s_tentry *e;\n\tsize_t "
		"n;\n};\n\n"
		"/** struct %s_struct_ops - one struct in one version. */\n"
		"struct %s_struct_ops {\n\tconst char *name;\n\tbool present;\n"
		"\tsize_t wire_size;\n\tuint64_t fields; /* HAS_* bits */\n"
		"\tint (*unpack)(const void *wire, size_t len, void "
		"*neutral);\n"
		"\tint (*pack)(const void *neutral, void *wire, size_t "
		"len);\n"
		"\t/* pack as if the neutral's present were @present */\n"
		"\tint (*pack_as)(const void *neutral, uint64_t present, "
		"void *wire,\n\t\t       size_t len);\n"
		"\t/* byte offset of each field (index: HAS_ bit number);\n"
		"\t * UINT32_MAX when absent or a bitfield */\n"
		"\tconst uint32_t *offsets;\n"
		"\t/* element count of each `elem` array field (same index;\n"
		"\t * 0 otherwise); NULL when the struct has none */\n"
		"\tconst uint32_t *counts;\n};\n\n"
		"#define %s_N(x) ((x) ? (x) : 1)\n\n"
		"/** struct %s_version - everything generated for one version. "
		"*/\n"
		"struct %s_version {\n\tconst char *tag;\n"
		"\tstruct %s_struct_ops structs[%s_N(%s_S__COUNT)];\n"
		"\tstruct %s_table tables[%s_N(%s_T__COUNT)];\n"
		"\tstruct %s_const consts[%s_N(%s_C__COUNT)];\n"
		"\t/* run-time checks the compiler cannot do statically\n"
		"\t * (bitfield positions); 0 or -EPROTO with @msg set */\n"
		"\tint (*selfcheck)(char *msg, size_t len);\n};\n\n",
		p, p, p, p, p, p, p, p, p, pu, p, p, p, pu, pu, p, pu, pu, p,
		pu, pu);
	fprintf(f,
		"/*\n * %s_error() - called with the reason whenever a "
		"generated "
		"pack or\n * unpack refuses its input. The default (weak) does "
		"nothing; the\n * driver defines its own to log the message.\n "
		"*/\n"
		"void %s_error(int err, const char *tag, const char *fn, const "
		"char "
		"*why);\n\n",
		p, p);
	for (size_t v = 0; v < ctx->nver; v++)
		fprintf(f, "extern const struct %s_version %s_%s; /* %s */\n",
			p, p, ctx->ver[v].in.ident, ctx->ver[v].in.tag);
	fprintf(f,
		"\n/* all versions, in version-list order */\n"
		"extern const struct %s_version *const %s_versions[];\n"
		"extern const size_t %s_nversions;\n\n",
		p, p, p);
	fprintf(f,
		"/*\n * %s_offset() - byte offset in @v's wire struct @id of "
		"the "
		"field\n * whose HAS_ bit is @has; -1 when @v lacks the struct "
		"or the\n * field, or the field is a bitfield.\n */\n"
		"static inline int64_t %s_offset(const struct %s_version *v,\n"
		"\t\t\t\t     enum %s_struct_id id, uint64_t has)\n{\n"
		"\tconst struct %s_struct_ops *s = &v->structs[id];\n\n"
		"\tif (!s->present || !s->offsets || !has || (has & (has - 1)) "
		"||\n\t    !(s->fields & has) ||\n"
		"\t    s->offsets[__builtin_ctzll(has)] == UINT32_MAX)\n"
		"\t\treturn -1;\n"
		"\treturn s->offsets[__builtin_ctzll(has)];\n}\n\n",
		p, p, p, p, p);
	fprintf(f,
		"const struct %s_version *%s_version_find(const char *tag);\n"
		"int %s_unpack(const struct %s_version *v, enum %s_struct_id "
		"id,\n"
		"\t\tconst void *wire, size_t len, void *neutral);\n"
		"int %s_pack(const struct %s_version *v, enum %s_struct_id "
		"id,\n"
		"\t      const void *neutral, void *wire, size_t len);\n"
		"/*\n * %s_pack_as() - %s_pack() as if @neutral's present "
		"were @present\n * (the version's fields: every field it "
		"has), without writing\n * @neutral: a refused pack changes "
		"nothing.\n */\n"
		"int %s_pack_as(const struct %s_version *v, enum "
		"%s_struct_id id,\n"
		"\t\tconst void *neutral, uint64_t present, void *wire,\n"
		"\t\tsize_t len);\n"
		"int %s_to_wire(const struct %s_version *v, enum %s_table_id "
		"t,\n"
		"\t\t uint32_t neutral, uint64_t *wire);\n"
		"int %s_from_wire(const struct %s_version *v, enum %s_table_id "
		"t,\n"
		"\t\t   uint64_t wire, uint32_t *neutral);\n"
		"const char *%s_entry_name(enum %s_table_id t, uint32_t "
		"neutral);\n"
		"int %s_const_get(const struct %s_version *v, enum %s_const_id "
		"id,\n"
		"\t\t  int64_t *value);\n"
		"void %s_print(enum %s_struct_id id, const void *neutral, FILE "
		"*f);\n"
		"int %s_print_wire(const struct %s_version *v, enum "
		"%s_struct_id "
		"id,\n\t\t    const void *wire, size_t len, FILE *f);\n\n",
		p, p, p, p, p, p, p, p, p, p, p, p, p, p, p, p, p, p, p, p, p,
		p, p, p, p, p, p, p, p);
	for (size_t i = 0; i < ctx->nwant; i++) {
		const struct ag_want *w = &ctx->want[i];

		if (w->kind != AG_W_STRUCT)
			continue;
		fprintf(f,
			"void %s_%s_print(const struct %s_%s *s, FILE *f);\n",
			p, w->neutral, p, w->neutral);
		emit_elem_decls(e, i);
		for (size_t v = 0; v < ctx->nver; v++) {
			const char *id = ctx->ver[v].in.ident;

			if (!ctx->ver[v].rec[i])
				continue;
			fprintf(f,
				"int %s_%s_%s_unpack(const void *wire, size_t "
				"len,"
				"\n\t\t\tstruct %s_%s *out);\n"
				"int %s_%s_%s_pack(const struct %s_%s *in, "
				"void "
				"*wire,\n\t\t      size_t len);\n"
				"int %s_%s_%s_pack_as(const struct %s_%s *in, "
				"uint64_t present,\n\t\t\t void *wire, "
				"size_t len);\n",
				p, id, w->neutral, p, w->neutral, p, id,
				w->neutral, p, w->neutral, p, id, w->neutral, p,
				w->neutral);
		}
	}
	/* ops table skeleton type */
	fprintf(f,
		"\n/*\n * struct %s_ops - per-version behaviour (hand-written; "
		"see\n"
		" * %s_ops_skel.c). A NULL hook falls back to @base.\n */\n"
		"struct %s_ops {\n\tconst char *tag;\n\tconst struct %s_ops "
		"*base;\n",
		p, p, p, p);
	for (size_t i = 0; i < ctx->nwant; i++) {
		const struct ag_want *w = &ctx->want[i];

		if (w->kind == AG_W_STRUCT && w->role)
			fprintf(f,
				"\tint (*%s)(void *drv, struct %s_%s *msg);\n",
				w->neutral, p, w->neutral);
	}
	fprintf(f, "};\n\n#endif\n");
	return 0;
}

/* ---- <p>_common.c ------------------------------------------------------ */

static void emit_printer(struct em *e, size_t wi)
{
	const struct ag_want *w = &e->ctx->want[wi];
	char *nu = ag_up(w->neutral);
	FILE *f = e->f;

	fprintf(f,
		"void %s_%s_print(const struct %s_%s *s, FILE *f)\n{\n"
		"\tfprintf(f, \"%s:\\n\");\n",
		e->p, w->neutral, e->p, w->neutral, w->neutral);
	for (size_t j = 0; j < w->nfields; j++) {
		const char *fn = w->fields[j].neutral;
		char *fu = ag_up(fn);
		struct ag_nf nf;

		ag_neutral_field(e->ctx, wi, j, &nf);
		fprintf(f,
			"\tif (!(s->present & %s_%s_HAS_%s)) {\n"
			"\t\tfprintf(f, \"  %s: absent\\n\");\n\t} else {\n",
			e->pu, nu, fu, fn);
		switch (nf.kind) {
		case AG_NF_INT:
			if (nf.sgn)
				fprintf(f,
					"\t\tfprintf(f, \"  %s: %%lld\\n\", "
					"(long long)s->%s);\n",
					fn, fn);
			else
				fprintf(f,
					"\t\tfprintf(f, \"  %s: %%llu "
					"(0x%%llx)\\n\", "
					"(unsigned long long)s->%s,\n\t\t\t"
					"(unsigned long long)s->%s);\n",
					fn, fn, fn);
			break;
		case AG_NF_FAM:
			fprintf(f,
				"\t\tfprintf(f, \"  %s: flexible array at "
				"byte %%u\\n\", (unsigned)s->%s);\n",
				fn, fn);
			break;
		case AG_NF_IARRAY:
		case AG_NF_BYTES:
			fprintf(f,
				"\t\tfprintf(f, \"  %s: [\");\n"
				"\t\tfor (size_t i = 0; i < sizeof(s->%s) / "
				"sizeof(s->%s[0]); i++)\n"
				"\t\t\tfprintf(f, \"%%s%s\", i ? \" \" : \"\", "
				"(%s)s->%s[i]);\n"
				"\t\tfprintf(f, \"]\\n\");\n",
				fn, fn, fn, nf.sgn ? "%lld" : "0x%llx",
				nf.sgn ? "long long" : "unsigned long long",
				fn);
			break;
		}
		fprintf(f, "\t}\n");
		free(fu);
	}
	fprintf(f, "}\n\n");
	free(nu);
}

/* the element accessors of want @wi's `elem` fields */
static void emit_elem_defs(struct em *e, size_t wi)
{
	const struct ag_want *w = &e->ctx->want[wi];
	const char *p = e->p, *pu = e->pu;
	char *su = ag_up(w->neutral);
	FILE *f = e->f;

	for (size_t j = 0; j < w->nfields; j++) {
		const char *fn = w->fields[j].neutral, *en = w->fields[j].elem;
		char *fu, *eu;

		if (!en)
			continue;
		fu = ag_up(fn);
		eu = ag_up(en);
		fprintf(f,
			"\nuint32_t %s_%s_%s_count(const struct %s_version "
			"*v)\n"
			"{\n\tconst struct %s_struct_ops *s;\n\n"
			"\tif (!v)\n\t\treturn 0;\n"
			"\ts = &v->structs[%s_S_%s];\n"
			"\tif (!s->present || !s->counts ||\n"
			"\t    !(s->fields & %s_%s_HAS_%s))\n\t\treturn 0;\n"
			"\treturn s->counts[%zu];\n}\n",
			p, w->neutral, fn, p, p, pu, su, pu, su, fu, j);
		/* where element @i lies in the raw member, in @v's layout */
		fprintf(f,
			"\nstatic int %s_%s_at(const struct %s_version *v, "
			"bool has,\n\t\t\tuint32_t i, size_t *at, size_t "
			"*esz, const char *fn)\n{\n"
			"\tif (!has) {\n\t\t%s_error(-EOPNOTSUPP, v->tag, fn,\n"
			"\t\t\t\"%s.%s absent in this version\");\n"
			"\t\treturn -EOPNOTSUPP;\n\t}\n"
			"\t*esz = v->structs[%s_S_%s].wire_size;\n"
			"\tif (i >= %s_%s_%s_count(v) || !*esz ||\n"
			"\t    ((size_t)i + 1) * *esz > sizeof(((struct %s_%s "
			"*)0)->%s)) {\n"
			"\t\t%s_error(-ERANGE, v->tag, fn,\n"
			"\t\t\t\"%s.%s index beyond this version's "
			"length\");\n"
			"\t\treturn -ERANGE;\n\t}\n"
			"\t*at = (size_t)i * *esz;\n\treturn 0;\n}\n",
			w->neutral, fn, p, p, w->neutral, fn, pu, eu, p,
			w->neutral, fn, p, w->neutral, fn, p, w->neutral, fn);
		fprintf(f,
			"\nint %s_%s_%s_get(const struct %s_version *v,\n"
			"\t\tconst struct %s_%s *s, uint32_t i,\n"
			"\t\tstruct %s_%s *out)\n{\n"
			"\tsize_t at, esz;\n\tint r;\n\n"
			"\tif (!v || !s || !out)\n\t\treturn -EINVAL;\n"
			"\tr = %s_%s_at(v, s->present & %s_%s_HAS_%s, i, &at, "
			"&esz,\n\t\t\t__func__);\n"
			"\treturn r ? r : %s_unpack(v, %s_S_%s, s->%s + at, "
			"esz, out);\n}\n",
			p, w->neutral, fn, p, p, w->neutral, p, en, w->neutral,
			fn, pu, su, fu, p, pu, eu, fn);
		fprintf(f,
			"\nint %s_%s_%s_set(const struct %s_version *v, struct "
			"%s_%s *s,\n"
			"\t\tuint32_t i, const struct %s_%s *in)\n{\n"
			"\tsize_t at, esz;\n\tint r;\n\n"
			"\tif (!v || !s || !in)\n\t\treturn -EINVAL;\n"
			"\tr = %s_%s_at(v,\n\t\t\tv->structs[%s_S_%s].fields "
			"& %s_%s_HAS_%s,\n\t\t\ti, &at, &esz, __func__);\n"
			"\treturn r ? r : %s_pack(v, %s_S_%s, in, s->%s + at, "
			"esz);\n}\n",
			p, w->neutral, fn, p, p, w->neutral, p, en, w->neutral,
			fn, pu, su, pu, su, fu, p, pu, eu, fn);
		free(fu);
		free(eu);
	}
	free(su);
}

int ag_emit_common(struct em *e)
{
	const struct ag_ctx *ctx = e->ctx;
	FILE *f = e->f;
	const char *p = e->p, *pu = e->pu;

	ag_banner(f, ctx, "Version-independent part of the neutral layer.");
	fprintf(f, "#include \"%s.h\"\n\n", p);
	fprintf(f,
		"__attribute__((weak)) void %s_error(int err, const char "
		"*tag,\n"
		"\t\t\t\t   const char *fn, const char *why)\n{\n"
		"\t(void)err;\n\t(void)tag;\n\t(void)fn;\n\t(void)why;\n}\n\n",
		p);
	fprintf(f, "const struct %s_version *const %s_versions[] = {\n", p, p);
	for (size_t v = 0; v < ctx->nver; v++)
		fprintf(f, "\t&%s_%s,\n", p, ctx->ver[v].in.ident);
	fprintf(f, "};\nconst size_t %s_nversions = %zu;\n\n", p, ctx->nver);
	fprintf(f,
		"const struct %s_version *%s_version_find(const char *tag)\n{\n"
		"\tfor (size_t i = 0; tag && i < %s_nversions; i++)\n"
		"\t\tif (!strcmp(%s_versions[i]->tag, tag))\n"
		"\t\t\treturn %s_versions[i];\n\treturn NULL;\n}\n\n",
		p, p, p, p, p);
	fprintf(f,
		"int %s_unpack(const struct %s_version *v, enum %s_struct_id "
		"id,\n"
		"\t\tconst void *wire, size_t len, void *neutral)\n{\n"
		"\tif (!v || (unsigned)id >= %s_S__COUNT)\n\t\treturn "
		"-EINVAL;\n"
		"\tif (!v->structs[id].present)\n\t\treturn -ENOENT;\n"
		"\treturn v->structs[id].unpack(wire, len, neutral);\n}\n\n",
		p, p, p, pu);
	fprintf(f,
		"int %s_pack(const struct %s_version *v, enum %s_struct_id "
		"id,\n"
		"\t      const void *neutral, void *wire, size_t len)\n{\n"
		"\tif (!v || (unsigned)id >= %s_S__COUNT)\n\t\treturn "
		"-EINVAL;\n"
		"\tif (!v->structs[id].present)\n\t\treturn -ENOENT;\n"
		"\treturn v->structs[id].pack(neutral, wire, len);\n}\n\n",
		p, p, p, pu);
	fprintf(f,
		"int %s_pack_as(const struct %s_version *v, enum "
		"%s_struct_id id,\n"
		"\t\tconst void *neutral, uint64_t present, void *wire,\n"
		"\t\tsize_t len)\n{\n"
		"\tif (!v || (unsigned)id >= %s_S__COUNT)\n\t\treturn "
		"-EINVAL;\n"
		"\tif (!v->structs[id].present)\n\t\treturn -ENOENT;\n"
		"\treturn v->structs[id].pack_as(neutral, present, wire, "
		"len);\n}\n\n",
		p, p, p, pu);
	fprintf(f,
		"int %s_to_wire(const struct %s_version *v, enum %s_table_id "
		"t,\n"
		"\t\t uint32_t neutral, uint64_t *wire)\n{\n"
		"\tif (!v || (unsigned)t >= %s_T__COUNT)\n\t\treturn -EINVAL;\n"
		"\tfor (size_t i = 0; i < v->tables[t].n; i++)\n"
		"\t\tif (v->tables[t].e[i].neutral == neutral) {\n"
		"\t\t\t*wire = v->tables[t].e[i].wire;\n\t\t\treturn "
		"0;\n\t\t}\n"
		"\treturn -ENOENT;\n}\n\n",
		p, p, p, pu);
	fprintf(f,
		"int %s_from_wire(const struct %s_version *v, enum %s_table_id "
		"t,\n"
		"\t\t   uint64_t wire, uint32_t *neutral)\n{\n"
		"\tsize_t lo = 0, hi;\n\n"
		"\tif (!v || (unsigned)t >= %s_T__COUNT)\n\t\treturn -EINVAL;\n"
		"\thi = v->tables[t].n;\n"
		"\twhile (lo < hi) {\n\t\tsize_t mid = lo + (hi - lo) / 2;\n\n"
		"\t\tif (v->tables[t].e[mid].wire < wire)\n\t\t\tlo = mid + "
		"1;\n"
		"\t\telse\n\t\t\thi = mid;\n\t}\n"
		"\tif (lo == v->tables[t].n || v->tables[t].e[lo].wire != "
		"wire)\n"
		"\t\treturn -ENOENT;\n"
		"\t*neutral = v->tables[t].e[lo].neutral;\n\treturn 0;\n}\n\n",
		p, p, p, pu);
	fprintf(f,
		"int %s_const_get(const struct %s_version *v, enum %s_const_id "
		"id,\n"
		"\t\t  int64_t *value)\n{\n"
		"\tif (!v || (unsigned)id >= %s_C__COUNT)\n\t\treturn "
		"-EINVAL;\n"
		"\tif (!v->consts[id].present)\n\t\treturn -ENOENT;\n"
		"\t*value = v->consts[id].value;\n\treturn 0;\n}\n\n",
		p, p, p, pu);
	/* entry names */
	fprintf(f,
		"const char *%s_entry_name(enum %s_table_id t, uint32_t "
		"neutral)\n{\n\t(void)neutral; /* unused without tables "
		"*/\n\tswitch (t) {\n",
		p, p);
	for (size_t i = 0; i < ctx->nwant; i++) {
		struct ag_strv names = {0};
		char *tu;

		if (ctx->want[i].kind != AG_W_TABLE)
			continue;
		tu = ag_up(ctx->want[i].neutral);
		ag_table_names(ctx, i, &names);
		fprintf(f,
			"\tcase %s_T_%s: {\n\t\tstatic const char *const "
			"n[] = {\n\t\t\t\"(unknown)\",\n",
			pu, tu);
		for (size_t k = 0; k < names.n; k++)
			fprintf(f, "\t\t\t\"%s\",\n", names.v[k]);
		fprintf(f,
			"\t\t};\n\t\treturn neutral < sizeof(n) / sizeof(n[0]) "
			"? n[neutral] : NULL;\n\t}\n");
		free(tu);
		ag_free_strv(&names);
	}
	fprintf(f, "\tdefault:\n\t\treturn NULL;\n\t}\n}\n\n");
	for (size_t i = 0; i < ctx->nwant; i++)
		if (ctx->want[i].kind == AG_W_STRUCT)
			emit_printer(e, i);
	fprintf(f,
		"void %s_print(enum %s_struct_id id, const void *neutral, "
		"FILE *f)\n{\n\tswitch (id) {\n",
		p, p);
	for (size_t i = 0; i < ctx->nwant; i++) {
		char *u;

		if (ctx->want[i].kind != AG_W_STRUCT)
			continue;
		u = ag_up(ctx->want[i].neutral);
		fprintf(f,
			"\tcase %s_S_%s:\n\t\t%s_%s_print(neutral, f);\n"
			"\t\tbreak;\n",
			pu, u, p, ctx->want[i].neutral);
		free(u);
	}
	fprintf(f, "\tdefault:\n\t\tfprintf(f, \"(unknown struct %%d)\\n\", "
		   "(int)id);\n\t}\n}\n\n");
	fprintf(f, "union %s_any {\n\tuint64_t align;\n", p);
	for (size_t i = 0; i < ctx->nwant; i++)
		if (ctx->want[i].kind == AG_W_STRUCT)
			fprintf(f, "\tstruct %s_%s s%zu;\n", p,
				ctx->want[i].neutral, i);
	fprintf(f,
		"};\n\nint %s_print_wire(const struct %s_version *v, enum "
		"%s_struct_id id,\n\t\t    const void *wire, size_t len, FILE "
		"*f)\n{\n\tunion %s_any n;\n\tint r = %s_unpack(v, id, wire, "
		"len, &n);\n\n\tif (r)\n\t\treturn r;\n"
		"\t%s_print(id, &n, f);\n\treturn 0;\n}\n",
		p, p, p, p, p, p);
	for (size_t i = 0; i < ctx->nwant; i++)
		if (ctx->want[i].kind == AG_W_STRUCT)
			emit_elem_defs(e, i);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * abigen: the layout database as JSON, and the human-readable diff report
 * between consecutive versions (added, removed, moved, resized and retyped
 * fields; same-name-different-layout; renumbered and reused table entries;
 * changed and define-dependent constants; wanted fields a version lacks).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "abigen.h"
#include "model.h"

static void jstr(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static const char *kind_name(enum ag_fkind k)
{
	switch (k) {
	case AG_F_INT:
		return "int";
	case AG_F_ARRAY:
		return "array";
	case AG_F_FAM:
		return "flexible_array";
	case AG_F_RECORD:
		return "record";
	default:
		return "other";
	}
}

static void json_record(FILE *f, const struct ag_want *w,
			const struct ag_record *r)
{
	fprintf(f, "      {\"want\": ");
	jstr(f, w->name);
	fprintf(f, ", \"name\": ");
	jstr(f, r->name);
	fprintf(f, ", \"c\": ");
	jstr(f, r->spelling);
	fprintf(f,
		", \"size\": %" PRIu64 ", \"align\": %" PRIu64
		", \"union\": %s,\n       \"fields\": [\n",
		r->size, r->align, r->is_union ? "true" : "false");
	for (size_t i = 0; i < r->nf; i++) {
		const struct ag_field *x = &r->f[i];

		fprintf(f, "        {\"path\": ");
		jstr(f, x->path);
		fprintf(f, ", \"type\": ");
		jstr(f, x->type);
		fprintf(f,
			", \"kind\": \"%s\", \"offset\": %" PRIu64
			", \"bit_offset\": %" PRIu64 ", \"size\": %" PRIu64,
			kind_name(x->kind), x->bit_off / 8, x->bit_off,
			x->size);
		if (x->bit_width)
			fprintf(f, ", \"bit_width\": %u", x->bit_width);
		if (x->kind == AG_F_INT || x->elem_int)
			fprintf(f, ", \"signed\": %s",
				x->is_signed ? "true" : "false");
		if (x->in_union)
			fprintf(f, ", \"in_union\": true");
		if (x->kind == AG_F_ARRAY) {
			fprintf(f, ", \"dims\": [");
			for (unsigned d = 0; d < x->ndims; d++)
				fprintf(f, "%s%" PRIu64, d ? ", " : "",
					x->dims[d]);
			fprintf(f, "], \"elem_size\": %" PRIu64, x->elem_size);
		}
		if (x->kind == AG_F_FAM)
			fprintf(f, ", \"elem_size\": %" PRIu64, x->elem_size);
		fprintf(f, "}%s\n", i + 1 < r->nf ? "," : "");
	}
	fprintf(f, "       ]}");
}

int ag_emit_json(const struct ag_ctx *ctx, FILE *f)
{
	fprintf(f, "{\"generator\": \"abigen\", \"versions\": [\n");
	for (size_t v = 0; v < ctx->nver; v++) {
		const struct ag_version *ver = &ctx->ver[v];
		bool first = true;

		fprintf(f, "  {\"tag\": ");
		jstr(f, ver->in.tag);
		fprintf(f, ", \"defines\": [");
		for (size_t i = 0; i < ver->in.defs.n; i++) {
			fprintf(f, "%s", i ? ", " : "");
			jstr(f, ver->in.defs.v[i]);
		}
		fprintf(f, "],\n   \"records\": [\n");
		for (size_t i = 0; i < ctx->nwant; i++) {
			if (!ver->rec[i])
				continue;
			fprintf(f, "%s", first ? "" : ",\n");
			json_record(f, &ctx->want[i], ver->rec[i]);
			first = false;
		}
		fprintf(f, "\n   ],\n   \"constants\": {");
		first = true;
		for (size_t i = 0; i < ctx->nwant; i++) {
			const struct ag_const *k = &ver->konst[i];

			if (!k->found)
				continue;
			fprintf(f, "%s\n    ", first ? "" : ",");
			jstr(f, ctx->want[i].name);
			if (k->drf)
				fprintf(f, ": {\"hi\": %u, \"lo\": %u}", k->hi,
					k->lo);
			else if (k->is_unsigned)
				fprintf(f, ": {\"value\": %" PRIu64,
					(uint64_t)k->value);
			else
				fprintf(f, ": {\"value\": %" PRId64, k->value);
			if (!k->drf) {
				if (k->probe_note) {
					fprintf(f, ", \"define_dependent\": ");
					jstr(f, k->probe_note);
				}
				fprintf(f, "}");
			}
			first = false;
		}
		fprintf(f, "},\n   \"tables\": {");
		first = true;
		for (size_t i = 0; i < ctx->nwant; i++) {
			const struct ag_table *t = &ver->tables[i];

			if (ctx->want[i].kind != AG_W_TABLE)
				continue;
			fprintf(f, "%s\n    ", first ? "" : ",");
			jstr(f, ctx->want[i].name);
			fprintf(f, ": {");
			for (size_t k = 0; k < t->n; k++) {
				fprintf(f, "%s", k ? ", " : "");
				jstr(f, t->e[k].name);
				fprintf(f, ": %" PRId64, t->e[k].value);
			}
			fprintf(f, "}");
			first = false;
		}
		fprintf(f, "}}%s\n", v + 1 < ctx->nver ? "," : "");
	}
	fprintf(f, "]}\n");
	return ferror(f) ? -1 : 0;
}

/* ---- diff ------------------------------------------------------------- */

/* Neutral path of a version's field (rename map applied). */
static char *npath(const struct ag_ctx *ctx, const struct ag_version *v,
		   const struct ag_want *w, const char *path)
{
	char *key = ag_fmt("%s.%s", w->name, path);
	const char *n = ag_rename_to_neutral(ctx, v->in.tag, "field", key);
	const char *dot = strchr(n, '.');
	char *r = ag_strdup(n == key || !dot ? path : dot + 1);

	free(key);
	return r;
}

static const struct ag_field *find_n(const struct ag_ctx *ctx,
				     const struct ag_version *v,
				     const struct ag_want *w,
				     const struct ag_record *r, const char *np)
{
	for (size_t i = 0; i < r->nf; i++) {
		char *p = npath(ctx, v, w, r->f[i].path);
		bool hit = !strcmp(p, np);

		free(p);
		if (hit)
			return &r->f[i];
	}
	return NULL;
}

static void field_shape(FILE *f, const struct ag_field *x)
{
	if (x->bit_width)
		fprintf(f, "bits %" PRIu64 "+%u", x->bit_off, x->bit_width);
	else
		fprintf(f, "@%" PRIu64 " +%" PRIu64, x->bit_off / 8, x->size);
	fprintf(f, " (%s)", x->type);
}

static bool versioned_name(const char *n)
{
	const char *v = strstr(n, "_v");

	while (v) {
		int a, b, len = 0;

		if (sscanf(v, "_v%d_%d%n", &a, &b, &len) == 2 && !v[len])
			return true;
		v = strstr(v + 1, "_v");
	}
	return false;
}

static void diff_record(const struct ag_ctx *ctx, FILE *f, size_t wi,
			const struct ag_version *a, const struct ag_version *b)
{
	const struct ag_want *w = &ctx->want[wi];
	const struct ag_record *ra = a->rec[wi], *rb = b->rec[wi];
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	bool changed = false;

	if (!ra && !rb)
		return;
	if (!ra || !rb) {
		fprintf(f, "struct %s: %s\n", w->name,
			ra ? "removed" : "added");
		return;
	}
	m = open_memstream(&buf, &len);
	if (!m)
		exit(1);
	if (ra->size != rb->size)
		fprintf(m, "  size      %" PRIu64 " -> %" PRIu64 "\n", ra->size,
			rb->size);
	if (ra->align != rb->align)
		fprintf(m, "  align     %" PRIu64 " -> %" PRIu64 "\n",
			ra->align, rb->align);
	for (size_t i = 0; i < ra->nf; i++) {
		const struct ag_field *x = &ra->f[i], *y;
		char *np;

		if (x->kind == AG_F_RECORD)
			continue;
		np = npath(ctx, a, w, x->path);
		y = find_n(ctx, b, w, rb, np);
		if (!y) {
			fprintf(m, "  removed   %s ", np);
			field_shape(m, x);
			fputc('\n', m);
		} else {
			char *nb = npath(ctx, b, w, y->path);

			if (strcmp(x->path, y->path))
				fprintf(m, "  renamed   %s -> %s\n", x->path,
					y->path);
			if (x->bit_off != y->bit_off)
				fprintf(m,
					"  moved     %s @%" PRIu64
					" -> @%" PRIu64 "%s\n",
					np, x->bit_off / 8, y->bit_off / 8,
					x->bit_width || y->bit_width ? " (bits)"
								     : "");
			if (x->size != y->size ||
			    x->bit_width != y->bit_width) {
				fprintf(m, "  resized   %s ", np);
				if (x->bit_width || y->bit_width)
					fprintf(m, "%u -> %u bits",
						x->bit_width, y->bit_width);
				else
					fprintf(m,
						"%" PRIu64 " -> %" PRIu64
						" bytes",
						x->size, y->size);
				fprintf(m, " (%s -> %s)\n", x->type, y->type);
			} else if (strcmp(x->type, y->type)) {
				fprintf(m, "  retyped   %s (%s -> %s)\n", np,
					x->type, y->type);
			} else if (x->is_signed != y->is_signed) {
				/* the same spelling, another type: an enum
				 * that gained a negative value, a typedef
				 * redefined */
				fprintf(m, "  resigned  %s (%s: %s -> %s)\n",
					np, x->type,
					x->is_signed ? "signed" : "unsigned",
					y->is_signed ? "signed" : "unsigned");
			}
			free(nb);
		}
		free(np);
	}
	for (size_t i = 0; i < rb->nf; i++) {
		const struct ag_field *y = &rb->f[i];
		char *np;

		if (y->kind == AG_F_RECORD)
			continue;
		np = npath(ctx, b, w, y->path);
		if (!find_n(ctx, a, w, ra, np)) {
			fprintf(m, "  added     %s ", np);
			field_shape(m, y);
			fputc('\n', m);
		}
		free(np);
	}
	fclose(m);
	changed = len > 0;
	if (changed) {
		fprintf(f, "struct %s", w->name);
		if (strcmp(ra->name, rb->name))
			fprintf(f, " (%s -> %s)", ra->name, rb->name);
		else
			fprintf(f, ": same name, different layout%s",
				versioned_name(ra->name)
					? " (versioned name unchanged: "
					  "its suffix cannot be trusted)"
					: "");
		fprintf(f, "\n%s", buf);
	}
	free(buf);
}

static const struct ag_tentry *tfind(const struct ag_table *t, const char *n)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->e[i].name, n))
			return &t->e[i];
	return NULL;
}

static void diff_table(const struct ag_ctx *ctx, FILE *f, size_t wi,
		       const struct ag_version *a, const struct ag_version *b)
{
	const struct ag_table *ta = &a->tables[wi], *tb = &b->tables[wi];
	bool head = false;

#define HEAD()                                                                 \
	do {                                                                   \
		if (!head)                                                     \
			fprintf(f, "table %s:\n", ctx->want[wi].name);         \
		head = true;                                                   \
	} while (0)
	for (size_t i = 0; i < ta->n; i++) {
		const struct ag_tentry *x = &ta->e[i], *y = tfind(tb, x->name);

		if (!y) {
			HEAD();
			fprintf(f, "  removed     %s 0x%" PRIx64 "\n", x->name,
				(uint64_t)x->value);
		} else {
			if (strcmp(x->vname, y->vname)) {
				HEAD();
				fprintf(f, "  renamed     %s -> %s\n", x->vname,
					y->vname);
			}
			if (x->value == y->value)
				continue;
			HEAD();
			fprintf(f,
				"  renumbered  %s 0x%" PRIx64 " -> 0x%" PRIx64
				"\n",
				x->name, (uint64_t)x->value,
				(uint64_t)y->value);
		}
	}
	for (size_t i = 0; i < tb->n; i++)
		if (!tfind(ta, tb->e[i].name)) {
			HEAD();
			fprintf(f, "  added       %s 0x%" PRIx64 "\n",
				tb->e[i].name, (uint64_t)tb->e[i].value);
		}
	/* the same number meaning a different entry */
	for (size_t i = 0; i < tb->n; i++)
		for (size_t k = 0; k < ta->n; k++)
			if (ta->e[k].value == tb->e[i].value &&
			    strcmp(ta->e[k].name, tb->e[i].name)) {
				bool alias = false;

				/* skip if B still has A's name at this value */
				for (size_t j = 0; j < tb->n; j++)
					alias |= tb->e[j].value ==
							 ta->e[k].value &&
						 !strcmp(tb->e[j].name,
							 ta->e[k].name);
				if (alias)
					continue;
				HEAD();
				fprintf(f,
					"  reused      0x%" PRIx64
					": %s -> %s\n",
					(uint64_t)tb->e[i].value, ta->e[k].name,
					tb->e[i].name);
			}
#undef HEAD
}

static void diff_const(const struct ag_ctx *ctx, FILE *f, size_t wi,
		       const struct ag_version *a, const struct ag_version *b)
{
	const struct ag_const *x = &a->konst[wi], *y = &b->konst[wi];
	const char *n = ctx->want[wi].name;

	if (!x->found && !y->found)
		return;
	if (!x->found || !y->found) {
		fprintf(f, "const %s: %s\n", n, x->found ? "removed" : "added");
		return;
	}
	if (x->drf && (x->hi != y->hi || x->lo != y->lo))
		fprintf(f, "const %s: bits %u:%u -> %u:%u\n", n, x->hi, x->lo,
			y->hi, y->lo);
	else if (!x->drf && x->value != y->value)
		fprintf(f, "const %s: %" PRId64 " -> %" PRId64 "\n", n,
			x->value, y->value);
}

int ag_emit_diff(const struct ag_ctx *ctx, FILE *f)
{
	fprintf(f, "abigen diff report\nversions:");
	for (size_t v = 0; v < ctx->nver; v++)
		fprintf(f, " %s", ctx->ver[v].in.tag);
	fprintf(f, "\n\n== wanted but absent (HAS_ bit clear in the neutral "
		   "struct) ==\n");
	for (size_t v = 0; v < ctx->nver; v++) {
		const struct ag_version *ver = &ctx->ver[v];

		for (size_t i = 0; i < ctx->nwant; i++) {
			const struct ag_want *w = &ctx->want[i];

			if (w->kind == AG_W_STRUCT && !ver->rec[i]) {
				fprintf(f, "%s: struct %s\n", ver->in.tag,
					w->name);
				continue;
			}
			if (w->kind == AG_W_STRUCT)
				for (size_t j = 0; j < w->nfields; j++)
					if (!ag_vfield(ctx, ver, i, j))
						fprintf(f, "%s: %s.%s\n",
							ver->in.tag, w->name,
							w->fields[j].path);
			if ((w->kind == AG_W_CONST || w->kind == AG_W_DRF) &&
			    !ver->konst[i].found)
				fprintf(f, "%s: const %s\n", ver->in.tag,
					w->name);
		}
	}
	fprintf(f, "\n== define-dependent constants (value under the pinned "
		   "profile; under a probe) ==\n");
	for (size_t v = 0; v < ctx->nver; v++)
		for (size_t i = 0; i < ctx->nwant; i++) {
			const struct ag_const *k = &ctx->ver[v].konst[i];

			if (k->found && k->probe_note)
				fprintf(f, "%s: %s = %" PRId64 " pinned; %s\n",
					ctx->ver[v].in.tag, ctx->want[i].name,
					k->value, k->probe_note);
		}
	for (size_t v = 1; v < ctx->nver; v++) {
		const struct ag_version *a = &ctx->ver[v - 1],
					*b = &ctx->ver[v];

		fprintf(f, "\n== %s -> %s ==\n", a->in.tag, b->in.tag);
		for (size_t i = 0; i < ctx->nwant; i++) {
			switch (ctx->want[i].kind) {
			case AG_W_STRUCT:
				diff_record(ctx, f, i, a, b);
				break;
			case AG_W_TABLE:
				diff_table(ctx, f, i, a, b);
				break;
			default:
				diff_const(ctx, f, i, a, b);
				break;
			}
		}
	}
	return ferror(f) ? -1 : 0;
}

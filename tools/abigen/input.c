// SPDX-License-Identifier: MIT
/*
 * abigen: the three input files (version list, want list, rename map).
 * All are line based: '#' starts a comment, words are separated by blanks.
 * Every error names file:line.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abigen.h"

#define AG_MAX_WORDS 8

struct ag_lines {
	const char *file;
	FILE *f;
	int line;
	char buf[4096];
	char *w[AG_MAX_WORDS];
	int nw;
};

/* Next non-empty line split into words; 1 on a line, 0 at EOF, <0 error. */
static int next_line(struct ag_lines *l)
{
	while (fgets(l->buf, sizeof(l->buf), l->f)) {
		char *p = l->buf, *hash = strchr(p, '#');

		l->line++;
		if (!strchr(p, '\n') && !feof(l->f)) {
			ag_error("%s:%d: line too long", l->file, l->line);
			return -EINVAL;
		}
		if (hash)
			*hash = '\0';
		l->nw = 0;
		for (;;) {
			while (isspace((unsigned char)*p))
				p++;
			if (!*p)
				break;
			if (l->nw == AG_MAX_WORDS) {
				ag_error("%s:%d: too many words", l->file,
					 l->line);
				return -EINVAL;
			}
			l->w[l->nw++] = p;
			while (*p && !isspace((unsigned char)*p))
				p++;
			if (*p)
				*p++ = '\0';
		}
		if (l->nw)
			return 1;
	}
	return 0;
}

static int open_lines(struct ag_lines *l, const char *path)
{
	memset(l, 0, sizeof(*l));
	l->file = path;
	l->f = fopen(path, "r");
	if (!l->f) {
		ag_error("%s: cannot open: %s", path, strerror(errno));
		return -errno;
	}
	return 0;
}

static bool is_ident(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (s++; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/* A version tag: letters, digits, '.', '-', '_' (it is written into C
 * strings and identifiers). */
static bool is_tag(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(".-_", *s))
			return false;
	return true;
}

/* A C keyword (a neutral member name is written bare into C). */
static bool is_keyword(const char *s)
{
	static const char *const kw[] = {
		"auto",	      "break",	   "case",	     "char",
		"const",      "continue",  "default",	     "do",
		"double",     "else",	   "enum",	     "extern",
		"float",      "for",	   "goto",	     "if",
		"inline",     "int",	   "long",	     "register",
		"restrict",   "return",	   "short",	     "signed",
		"sizeof",     "static",	   "struct",	     "switch",
		"typedef",    "union",	   "unsigned",	     "void",
		"volatile",   "while",	   "_Alignas",	     "_Alignof",
		"_Atomic",    "_Bool",	   "_Complex",	     "_Generic",
		"_Imaginary", "_Noreturn", "_Static_assert", "_Thread_local",
		"asm",	      "typeof",	   "__typeof__",
	};

	for (size_t i = 0; i < sizeof(kw) / sizeof(kw[0]); i++)
		if (!strcmp(s, kw[i]))
			return true;
	return false;
}

/* A field path: identifiers joined by '.'. */
static bool is_path(const char *s)
{
	char *c = ag_strdup(s), *save = NULL;
	bool ok = *s && s[strlen(s) - 1] != '.';

	for (char *t = strtok_r(c, ".", &save); t && ok;
	     t = strtok_r(NULL, ".", &save))
		ok = is_ident(t);
	free(c);
	return ok;
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return ag_strdup(".");
	return ag_fmt("%.*s", (int)(slash - path), path);
}

static char *resolve(const char *dir, const char *p)
{
	char *joined = p[0] == '/' ? ag_strdup(p) : ag_fmt("%s/%s", dir, p);
	char *abs = realpath(joined, NULL);

	if (!abs)
		return joined;
	free(joined);
	return abs;
}

int ag_read_versions(struct ag_ctx *ctx, const char *path)
{
	struct ag_lines l;
	struct ag_version_in *cur = NULL;
	char *dir = dir_of(path);
	int r = open_lines(&l, path);

	while (r >= 0 && (r = next_line(&l)) > 0) {
		const char *k = l.w[0];

		if (!strcmp(k, "version") && l.nw == 2) {
			ctx->ver = realloc(ctx->ver,
					   (ctx->nver + 1) * sizeof(*ctx->ver));
			if (!ctx->ver)
				exit(1);
			memset(&ctx->ver[ctx->nver], 0, sizeof(*ctx->ver));
			cur = &ctx->ver[ctx->nver++].in;
			cur->tag = ag_strdup(l.w[1]);
			cur->ident = ag_ident(l.w[1]);
			cur->file = path;
			cur->line = l.line;
			if (!is_tag(cur->tag)) {
				ag_error(
					"%s:%d: bad version tag '%s' (letters, "
					"digits, '.', '-', '_')",
					path, l.line, cur->tag);
				r = -EINVAL;
			}
			for (size_t i = 0; i + 1 < ctx->nver; i++)
				if (!strcmp(ctx->ver[i].in.ident, cur->ident)) {
					ag_error(
						"%s:%d: duplicate version '%s'",
						path, l.line, cur->tag);
					r = -EINVAL;
				}
			continue;
		}
		if (!cur || l.nw != 2) {
			ag_error("%s:%d: expected 'version TAG' then "
				 "'include|define|header|probe ARG' lines",
				 path, l.line);
			r = -EINVAL;
			break;
		}
		if (!strcmp(k, "include")) {
			char *p = resolve(dir, l.w[1]);

			ag_strv_push(&cur->incs, p);
			free(p);
		} else if (!strcmp(k, "define") || !strcmp(k, "probe")) {
			char *d = strchr(l.w[1], '=') ? ag_strdup(l.w[1])
						      : ag_fmt("%s=1", l.w[1]);
			char *eq = strchr(d, '=');

			*eq = '\0';
			if (!is_ident(d)) {
				ag_error("%s:%d: bad macro name '%s'", path,
					 l.line, d);
				r = -EINVAL;
			}
			*eq = '=';
			ag_strv_push(k[0] == 'd' ? &cur->defs : &cur->probes,
				     d);
			free(d);
		} else if (!strcmp(k, "header")) {
			ag_strv_push(&cur->headers, l.w[1]);
		} else {
			ag_error("%s:%d: unknown keyword '%s'", path, l.line,
				 k);
			r = -EINVAL;
		}
	}
	if (l.f)
		fclose(l.f);
	free(dir);
	if (r < 0)
		return r;
	if (!ctx->nver) {
		ag_error("%s: no versions", path);
		return -EINVAL;
	}
	for (size_t i = 0; i < ctx->nver; i++)
		if (!ctx->ver[i].in.headers.n) {
			ag_error("%s:%d: version '%s' has no header", path,
				 ctx->ver[i].in.line, ctx->ver[i].in.tag);
			return -EINVAL;
		}
	return 0;
}

/* Parse "[as NAME] [rpc|event] [strip P] [fixed] [numbers TAG]" after
 * the fixed words. */
static int want_opts(struct ag_lines *l, int from, struct ag_want *w)
{
	for (int i = from; i < l->nw; i++) {
		if (!strcmp(l->w[i], "as") && i + 1 < l->nw &&
		    is_ident(l->w[i + 1])) {
			free(w->neutral);
			w->neutral = ag_strdup(l->w[++i]);
		} else if (!strcmp(l->w[i], "strip") && i + 1 < l->nw) {
			w->strip = ag_strdup(l->w[++i]);
		} else if ((w->kind == AG_W_CONST || w->kind == AG_W_TABLE) &&
			   !strcmp(l->w[i], "fixed")) {
			w->fixed = true;
		} else if (w->kind == AG_W_TABLE &&
			   !strcmp(l->w[i], "numbers") && i + 1 < l->nw) {
			free(w->numbers);
			w->numbers = ag_strdup(l->w[++i]);
		} else if (w->kind == AG_W_STRUCT &&
			   (!strcmp(l->w[i], "rpc") ||
			    !strcmp(l->w[i], "event"))) {
			w->role = ag_strdup(l->w[i]);
		} else {
			ag_error("%s:%d: unexpected '%s'", l->file, l->line,
				 l->w[i]);
			return -EINVAL;
		}
	}
	return 0;
}

static struct ag_want *new_want(struct ag_ctx *ctx, enum ag_want_kind kind,
				const char *name, int line)
{
	struct ag_want *w;

	ctx->want = realloc(ctx->want, (ctx->nwant + 1) * sizeof(*ctx->want));
	if (!ctx->want)
		exit(1);
	w = &ctx->want[ctx->nwant++];
	memset(w, 0, sizeof(*w));
	w->kind = kind;
	w->name = ag_strdup(name);
	w->neutral = ag_strdup(name);
	w->line = line;
	return w;
}

static int want_line(struct ag_ctx *ctx, struct ag_lines *l,
		     struct ag_want **cur)
{
	const char *k = l->w[0];
	struct ag_want *w;

	if ((!strcmp(k, "struct") || !strcmp(k, "const") ||
	     !strcmp(k, "drf")) &&
	    l->nw >= 2) {
		if (!is_ident(l->w[1])) {
			ag_error("%s:%d: bad name '%s'", l->file, l->line,
				 l->w[1]);
			return -EINVAL;
		}
		w = new_want(ctx,
			     k[0] == 's'   ? AG_W_STRUCT
			     : k[0] == 'c' ? AG_W_CONST
					   : AG_W_DRF,
			     l->w[1], l->line);
		*cur = w;
		return want_opts(l, 2, w);
	}
	if (!strcmp(k, "table") && l->nw >= 2 && is_ident(l->w[1])) {
		int next = 2;

		w = new_want(ctx, AG_W_TABLE, l->w[1], l->line);
		w->src = AG_T_LIST;
		if (l->nw >= 4 &&
		    (!strcmp(l->w[2], "enum") || !strcmp(l->w[2], "prefix"))) {
			w->src = l->w[2][0] == 'e' ? AG_T_ENUM : AG_T_PREFIX;
			w->src_name = ag_strdup(l->w[3]);
			if (w->src == AG_T_PREFIX)
				w->strip = ag_strdup(l->w[3]);
			next = 4;
		}
		*cur = w;
		return want_opts(l, next, w);
	}
	if (!strcmp(k, "field") && l->nw >= 2) {
		struct ag_want_field *f;
		size_t nw = l->nw;

		if (!*cur || (*cur)->kind != AG_W_STRUCT) {
			ag_error("%s:%d: 'field' outside a struct", l->file,
				 l->line);
			return -EINVAL;
		}
		w = *cur;
		if (!is_path(l->w[1])) {
			ag_error("%s:%d: bad field path '%s'", l->file, l->line,
				 l->w[1]);
			return -EINVAL;
		}
		if (w->nfields == AG_MAX_FIELDS) {
			ag_error("%s:%d: more than %d fields in '%s'", l->file,
				 l->line, AG_MAX_FIELDS, w->name);
			return -EINVAL;
		}
		w->fields = realloc(w->fields,
				    (w->nfields + 1) * sizeof(*w->fields));
		if (!w->fields)
			exit(1);
		f = &w->fields[w->nfields++];
		f->path = ag_strdup(l->w[1]);
		f->line = l->line;
		f->elem = NULL;
		/* field PATH [as NAME] [elem STRUCT] */
		if (nw >= 4 && !strcmp(l->w[nw - 2], "elem") &&
		    is_ident(l->w[nw - 1])) {
			f->elem = ag_strdup(l->w[nw - 1]);
			nw -= 2;
		}
		if (nw == 4 && !strcmp(l->w[2], "as") && is_ident(l->w[3])) {
			f->neutral = ag_strdup(l->w[3]);
		} else if (nw == 2) {
			f->neutral = ag_ident(l->w[1]);
		} else {
			ag_error("%s:%d: expected 'field PATH [as NAME] "
				 "[elem STRUCT]'",
				 l->file, l->line);
			return -EINVAL;
		}
		if (is_keyword(f->neutral)) {
			ag_error("%s:%d: field '%s': neutral name '%s' is a C "
				 "keyword",
				 l->file, l->line, f->path, f->neutral);
			return -EINVAL;
		}
		if (!strcmp(f->neutral, "present")) {
			ag_error("%s:%d: field '%s': 'present' is the neutral "
				 "struct's presence mask; name it with 'as'",
				 l->file, l->line, f->path);
			return -EINVAL;
		}
		for (size_t i = 0; i + 1 < w->nfields; i++)
			if (!strcmp(w->fields[i].neutral, f->neutral)) {
				ag_error("%s:%d: duplicate field '%s'", l->file,
					 l->line, f->neutral);
				return -EINVAL;
			}
		return 0;
	}
	if (!strcmp(k, "value") && l->nw == 2) {
		w = *cur;
		if (!w || w->kind != AG_W_TABLE || w->src != AG_T_LIST) {
			ag_error("%s:%d: 'value' outside a list table", l->file,
				 l->line);
			return -EINVAL;
		}
		ag_strv_push(&w->values, l->w[1]);
		w->value_lines =
			realloc(w->value_lines, w->values.n * sizeof(int));
		if (!w->value_lines)
			exit(1);
		w->value_lines[w->values.n - 1] = l->line;
		return 0;
	}
	ag_error("%s:%d: cannot parse '%s' (see docs/abigen.md)", l->file,
		 l->line, k);
	return -EINVAL;
}

int ag_read_want(struct ag_ctx *ctx, const char *path)
{
	struct ag_lines l;
	struct ag_want *cur = NULL;
	int r = open_lines(&l, path);

	ctx->want_file = path;
	while (r >= 0 && (r = next_line(&l)) > 0)
		r = want_line(ctx, &l, &cur);
	if (l.f)
		fclose(l.f);
	if (r < 0)
		return r;
	for (size_t i = 0; i < ctx->nwant; i++) {
		struct ag_want *w = &ctx->want[i];

		if (w->kind == AG_W_STRUCT && !w->nfields) {
			ag_error("%s:%d: struct '%s' wants no fields", path,
				 w->line, w->name);
			return -EINVAL;
		}
		if (w->kind == AG_W_TABLE && w->src == AG_T_LIST &&
		    !w->values.n) {
			ag_error("%s:%d: table '%s' has no values", path,
				 w->line, w->name);
			return -EINVAL;
		}
		for (size_t j = 0; j < i; j++)
			if (ctx->want[j].kind == w->kind &&
			    !strcmp(ctx->want[j].neutral, w->neutral)) {
				ag_error("%s:%d: duplicate name '%s'", path,
					 w->line, w->neutral);
				return -EINVAL;
			}
	}
	return 0;
}

int ag_read_renames(struct ag_ctx *ctx, const char *path)
{
	struct ag_lines l;
	int r = open_lines(&l, path);

	while (r >= 0 && (r = next_line(&l)) > 0) {
		struct ag_rename *n;
		bool known = false;

		if (l.nw != 4 ||
		    (strcmp(l.w[1], "type") && strcmp(l.w[1], "field") &&
		     strcmp(l.w[1], "const"))) {
			ag_error("%s:%d: expected 'TAG type|field|const FROM "
				 "TO'",
				 path, l.line);
			r = -EINVAL;
			break;
		}
		for (size_t i = 0; i < ctx->nver; i++)
			known |= !strcmp(ctx->ver[i].in.tag, l.w[0]);
		if (!known) {
			ag_error("%s:%d: unknown version '%s'", path, l.line,
				 l.w[0]);
			r = -EINVAL;
			break;
		}
		ctx->ren = realloc(ctx->ren, (ctx->nren + 1) * sizeof(*n));
		if (!ctx->ren)
			exit(1);
		n = &ctx->ren[ctx->nren++];
		n->tag = ag_strdup(l.w[0]);
		n->kind = ag_strdup(l.w[1]);
		n->from = ag_strdup(l.w[2]);
		n->to = ag_strdup(l.w[3]);
	}
	if (l.f)
		fclose(l.f);
	return r < 0 ? r : 0;
}

const char *ag_rename_to_version(const struct ag_ctx *ctx, const char *tag,
				 const char *kind, const char *neutral)
{
	for (size_t i = 0; i < ctx->nren; i++) {
		const struct ag_rename *n = &ctx->ren[i];

		if (!strcmp(n->tag, tag) && !strcmp(n->kind, kind) &&
		    !strcmp(n->to, neutral))
			return n->from;
	}
	return neutral;
}

const char *ag_rename_to_neutral(const struct ag_ctx *ctx, const char *tag,
				 const char *kind, const char *vname)
{
	for (size_t i = 0; i < ctx->nren; i++) {
		const struct ag_rename *n = &ctx->ren[i];

		if (!strcmp(n->tag, tag) && !strcmp(n->kind, kind) &&
		    !strcmp(n->from, vname))
			return n->to;
	}
	return vname;
}

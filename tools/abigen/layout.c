// SPDX-License-Identifier: MIT
/*
 * abigen: the libclang layer. Parses one version's headers under its pinned
 * define profile and fills that version's layout database: flattened record
 * layouts, enum values, and macro values evaluated by clang itself (each
 * wanted macro becomes `static const __typeof__((M) + 0) v = (M);` in a
 * second parse, evaluated with clang_Cursor_Evaluate). DRF macros
 * (`#define NV_X 7:0`) are split at the top-level ':' and both ends are
 * evaluated the same way. Diagnostics are printed, never fatal to the tool.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <clang-c/Index.h>

#include "abigen.h"
#include "clang.h"

struct ag_macro {
	char *name;
	char *body; /* tokens joined by blanks */
	char *hi, *lo;
};

struct ag_scan {
	struct ag_macro *m;
	size_t nm, capm;
	CXCursor *decl; /* typedefs, records, enums with a name */
	size_t nd, capd;
	struct ag_strv enumc; /* enum constant names */
	CXTranslationUnit tu;
	/* name -> index + 1 (0: empty); built after the scan */
	size_t *mhash, *ehash, hcap;
};

/* one expression to evaluate in the second parse */
struct ag_eval {
	char *expr;
	int line;
	bool ok;
	bool is_unsigned;
	int64_t value;
};

struct ag_evals {
	struct ag_eval *e;
	size_t n, cap;
};

static size_t eval_add(struct ag_evals *ev, const char *expr)
{
	if (ev->n == ev->cap) {
		ev->cap = ev->cap ? ev->cap * 2 : 64;
		ev->e = realloc(ev->e, ev->cap * sizeof(*ev->e));
		if (!ev->e)
			exit(1);
	}
	memset(&ev->e[ev->n], 0, sizeof(*ev->e));
	ev->e[ev->n].expr = ag_strdup(expr);
	return ev->n++;
}

char *ag_cx_str(CXString s)
{
	char *r = ag_strdup(clang_getCString(s) ? clang_getCString(s) : "");

	clang_disposeString(s);
	return r;
}

/* ---- parsing --------------------------------------------------------- */

static char *main_source(const struct ag_version *v)
{
	size_t cap = 256;
	char *s;

	for (size_t i = 0; i < v->in.headers.n; i++)
		cap += strlen(v->in.headers.v[i]) + 16;
	s = ag_alloc(cap);
	for (size_t i = 0; i < v->in.headers.n; i++) {
		strcat(s, "#include \"");
		strcat(s, v->in.headers.v[i]);
		strcat(s, "\"\n");
	}
	return s;
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/*
 * Parse @src as the version's main file. @extra_def (or NULL) is one more
 * -D. Errors outside the main file fail the parse; errors inside it (the
 * evaluation lines) are returned in @bad_lines.
 */
static int parse(CXIndex idx, const struct ag_version *v, const char *src,
		 const char *extra_def, unsigned opts, CXTranslationUnit *out,
		 bool *bad_line, int nlines)
{
	const char *fname = "abigen-main.c";
	struct CXUnsavedFile uf = {fname, src, (unsigned long)strlen(src)};
	size_t na = 0, cap = 8 + v->in.incs.n + v->in.defs.n;
	const char **args = ag_alloc(cap * sizeof(*args));
	char **owned = ag_alloc(cap * sizeof(*owned));
	enum CXErrorCode ec;
	int errors = 0;

	args[na++] = "-xc";
	args[na++] = "-std=gnu17";
	args[na++] = "-w";
	args[na++] = "-ferror-limit=0";
	for (size_t i = 0; i < v->in.incs.n; i++) {
		owned[na] = ag_fmt("-I%s", v->in.incs.v[i]);
		args[na] = owned[na];
		na++;
	}
	for (size_t i = 0; i < v->in.defs.n; i++) {
		owned[na] = ag_fmt("-D%s", v->in.defs.v[i]);
		args[na] = owned[na];
		na++;
	}
	if (extra_def) {
		owned[na] = ag_fmt("-D%s", extra_def);
		args[na] = owned[na];
		na++;
	}
	ec = clang_parseTranslationUnit2(idx, fname, args, (int)na, &uf, 1,
					 opts, out);
	for (size_t i = 0; i < na; i++)
		free(owned[i]);
	free(owned);
	free(args);
	if (ec != CXError_Success || !*out) {
		ag_error("%s: libclang could not parse the headers (error %d)",
			 v->in.tag, (int)ec);
		*out = NULL;
		return -EINVAL;
	}
	for (unsigned i = 0; i < clang_getNumDiagnostics(*out); i++) {
		CXDiagnostic d = clang_getDiagnostic(*out, i);
		enum CXDiagnosticSeverity sev = clang_getDiagnosticSeverity(d);
		CXFile file;
		unsigned line;
		char *fn;

		if (sev < CXDiagnostic_Error) {
			clang_disposeDiagnostic(d);
			continue;
		}
		clang_getSpellingLocation(clang_getDiagnosticLocation(d), &file,
					  &line, NULL, NULL);
		fn = ag_cx_str(clang_getFileName(file));
		if (bad_line && !strcmp(fn, fname) && (int)line <= nlines &&
		    line > 0) {
			bad_line[line - 1] = true;
		} else {
			char *msg = ag_cx_str(clang_formatDiagnostic(
				d, clang_defaultDiagnosticDisplayOptions()));

			ag_error("%s%s%s: %s", v->in.tag,
				 extra_def ? " with " : "",
				 extra_def ? extra_def : "", msg);
			free(msg);
			errors++;
		}
		free(fn);
		clang_disposeDiagnostic(d);
	}
	if (errors) {
		/* a probe's failure is noted in the report (not fatal) */
		if (extra_def)
			ag_error("%s: the headers do not parse with %s (%d "
				 "error%s); noted in the diff report",
				 v->in.tag, extra_def, errors,
				 errors == 1 ? "" : "s");
		else
			ag_error("%s: the headers do not parse (%d error%s); "
				 "nothing generated",
				 v->in.tag, errors, errors == 1 ? "" : "s");
		clang_disposeTranslationUnit(*out);
		*out = NULL;
		return -EINVAL;
	}
	return 0;
}

/* ---- scanning declarations and macros -------------------------------- */

static void split_drf(struct ag_macro *m)
{
	int depth = 0;
	char *colon = NULL;

	if (strchr(m->body, '?'))
		return;
	for (char *p = m->body; *p; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')')
			depth--;
		else if (*p == ':' && depth == 0 && !colon)
			colon = p;
	}
	if (!colon || colon == m->body || !colon[1])
		return;
	m->hi = ag_fmt("%.*s", (int)(colon - m->body), m->body);
	m->lo = ag_strdup(colon + 1);
}

static void scan_macro(struct ag_scan *s, CXCursor c)
{
	CXToken *tok = NULL;
	unsigned ntok = 0;
	struct ag_macro *m;
	size_t len = 1;

	if (clang_Cursor_isMacroFunctionLike(c) ||
	    clang_Location_isInSystemHeader(clang_getCursorLocation(c)))
		return;
	clang_tokenize(s->tu, clang_getCursorExtent(c), &tok, &ntok);
	if (s->nm == s->capm) {
		s->capm = s->capm ? s->capm * 2 : 256;
		s->m = realloc(s->m, s->capm * sizeof(*s->m));
		if (!s->m)
			exit(1);
	}
	m = &s->m[s->nm++];
	memset(m, 0, sizeof(*m));
	m->name = ag_cx_str(clang_getCursorSpelling(c));
	for (unsigned i = 1; i < ntok; i++) {
		CXString t = clang_getTokenSpelling(s->tu, tok[i]);

		len += strlen(clang_getCString(t)) + 1;
		clang_disposeString(t);
	}
	m->body = ag_alloc(len);
	for (unsigned i = 1; i < ntok; i++) {
		CXString t = clang_getTokenSpelling(s->tu, tok[i]);

		if (i > 1)
			strcat(m->body, " ");
		strcat(m->body, clang_getCString(t));
		clang_disposeString(t);
	}
	clang_disposeTokens(s->tu, tok, ntok);
	split_drf(m);
}

static enum CXChildVisitResult enumc_visit(CXCursor c, CXCursor p, void *d)
{
	struct ag_scan *s = d;

	if (clang_getCursorKind(c) == CXCursor_EnumConstantDecl) {
		char *n = ag_cx_str(clang_getCursorSpelling(c));

		ag_strv_push(&s->enumc, n);
		free(n);
	}
	return CXChildVisit_Continue;
}

static void add_decl(struct ag_scan *s, CXCursor c)
{
	if (s->nd == s->capd) {
		s->capd = s->capd ? s->capd * 2 : 256;
		s->decl = realloc(s->decl, s->capd * sizeof(*s->decl));
		if (!s->decl)
			exit(1);
	}
	s->decl[s->nd++] = c;
}

static enum CXChildVisitResult top_visit(CXCursor c, CXCursor p, void *d)
{
	struct ag_scan *s = d;

	switch (clang_getCursorKind(c)) {
	case CXCursor_MacroDefinition:
		scan_macro(s, c);
		break;
	case CXCursor_EnumDecl:
		clang_visitChildren(c, enumc_visit, s);
		/* fall through */
	case CXCursor_StructDecl:
	case CXCursor_UnionDecl:
		/* nested definitions are reachable by tag too */
		if (clang_isCursorDefinition(c))
			add_decl(s, c);
		if (clang_getCursorKind(c) != CXCursor_EnumDecl)
			clang_visitChildren(c, top_visit, s);
		break;
	case CXCursor_TypedefDecl:
		add_decl(s, c);
		break;
	default:
		break;
	}
	return CXChildVisit_Continue;
}

static size_t hash_str(const char *s)
{
	size_t h = 14695981039346656037ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* Slot of @name in @tab (names looked up through @name_of). */
static size_t *hash_slot(size_t *tab, size_t cap, const char *name,
			 const char *(*name_of)(const struct ag_scan *, size_t),
			 const struct ag_scan *s)
{
	size_t i = hash_str(name) & (cap - 1);

	while (tab[i] && strcmp(name_of(s, tab[i] - 1), name))
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

static const char *macro_name(const struct ag_scan *s, size_t i)
{
	return s->m[i].name;
}

static const char *enumc_name(const struct ag_scan *s, size_t i)
{
	return s->enumc.v[i];
}

/* Index macros (the last definition wins) and enumerators by name. */
static void build_hash(struct ag_scan *s)
{
	size_t n = s->nm > s->enumc.n ? s->nm : s->enumc.n;

	s->hcap = 64;
	while (s->hcap < 2 * n)
		s->hcap *= 2;
	s->mhash = ag_alloc(s->hcap * sizeof(*s->mhash));
	s->ehash = ag_alloc(s->hcap * sizeof(*s->ehash));
	for (size_t i = 0; i < s->nm; i++)
		*hash_slot(s->mhash, s->hcap, s->m[i].name, macro_name, s) =
			i + 1;
	for (size_t i = 0; i < s->enumc.n; i++)
		*hash_slot(s->ehash, s->hcap, s->enumc.v[i], enumc_name, s) =
			i + 1;
}

static const struct ag_macro *find_macro(const struct ag_scan *s,
					 const char *name)
{
	size_t i = *hash_slot(s->mhash, s->hcap, name, macro_name, s);

	return i ? &s->m[i - 1] : NULL;
}

static bool is_enumc(const struct ag_scan *s, const char *name)
{
	return *hash_slot(s->ehash, s->hcap, name, enumc_name, s) != 0;
}

/* Typedef @name first, then struct/union/enum tag @name. */
static bool find_type(const struct ag_scan *s, const char *name, CXType *type,
		      char **spelling)
{
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < s->nd; i++) {
			CXCursor c = s->decl[i];
			enum CXCursorKind k = clang_getCursorKind(c);
			char *n;
			bool hit;

			if ((pass == 0) != (k == CXCursor_TypedefDecl))
				continue;
			n = ag_cx_str(clang_getCursorSpelling(c));
			hit = !strcmp(n, name) &&
			      !(pass == 1 && clang_Cursor_isAnonymous(c));
			free(n);
			if (!hit)
				continue;
			if (pass == 0) {
				*type = clang_getTypedefDeclUnderlyingType(c);
				*spelling = ag_strdup(name);
			} else {
				*type = clang_getCursorType(c);
				*spelling = ag_fmt(
					"%s %s",
					k == CXCursor_StructDecl  ? "struct"
					: k == CXCursor_UnionDecl ? "union"
								  : "enum",
					name);
			}
			*type = clang_getCanonicalType(*type);
			return true;
		}
	}
	return false;
}

static struct ag_record *build_record(const struct ag_scan *s, const char *name)
{
	CXType t;
	char *spelling;

	if (!find_type(s, name, &t, &spelling))
		return NULL;
	return ag_record_build(t, name, spelling);
}

/* ---- enums and constants --------------------------------------------- */

struct enum_collect {
	struct ag_table *t;
	const struct ag_ctx *ctx;
	const struct ag_version *v;
	const char *strip;
	bool is_unsigned; /* the enum's integer type */
};

static char *entry_name(const struct ag_ctx *ctx, const struct ag_version *v,
			const char *vname, const char *strip)
{
	const char *n = ag_rename_to_neutral(ctx, v->in.tag, "const", vname);

	if (strip && !strncmp(n, strip, strlen(strip)) && n[strlen(strip)])
		n += strlen(strip);
	return ag_strdup(n);
}

static void table_add(struct ag_table *t, char *name, const char *vname,
		      int64_t value)
{
	t->e = realloc(t->e, (t->n + 1) * sizeof(*t->e));
	if (!t->e)
		exit(1);
	t->e[t->n].name = name;
	t->e[t->n].vname = ag_strdup(vname);
	t->e[t->n].value = value;
	t->n++;
}

static enum CXChildVisitResult enum_visit(CXCursor c, CXCursor p, void *d)
{
	struct enum_collect *ec = d;
	char *vn;

	if (clang_getCursorKind(c) != CXCursor_EnumConstantDecl)
		return CXChildVisit_Continue;
	vn = ag_cx_str(clang_getCursorSpelling(c));
	/* libclang's signed getter sign-extends an unsigned enum's
	 * 0x80000000 and up */
	table_add(ec->t, entry_name(ec->ctx, ec->v, vn, ec->strip), vn,
		  ec->is_unsigned
			  ? (int64_t)clang_getEnumConstantDeclUnsignedValue(c)
			  : clang_getEnumConstantDeclValue(c));
	free(vn);
	return CXChildVisit_Continue;
}

struct eval_find {
	struct ag_evals *ev;
};

static enum CXChildVisitResult eval_visit(CXCursor c, CXCursor p, void *d)
{
	struct ag_evals *ev = d;
	char *n;
	unsigned long idx;

	if (clang_getCursorKind(c) != CXCursor_VarDecl)
		return CXChildVisit_Continue;
	n = ag_cx_str(clang_getCursorSpelling(c));
	if (!strncmp(n, "__abigen_v", 10)) {
		CXEvalResult r;

		idx = strtoul(n + 10, NULL, 10);
		r = clang_Cursor_Evaluate(c);
		if (idx < ev->n && r &&
		    clang_EvalResult_getKind(r) == CXEval_Int) {
			struct ag_eval *e = &ev->e[idx];

			e->ok = true;
			e->is_unsigned = clang_EvalResult_isUnsignedInt(r);
			e->value =
				e->is_unsigned
					? (int64_t)
						  clang_EvalResult_getAsUnsigned(
							  r)
					: clang_EvalResult_getAsLongLong(r);
		}
		if (r)
			clang_EvalResult_dispose(r);
	}
	free(n);
	return CXChildVisit_Continue;
}

/* Evaluate every expression of @ev after @base under @extra_def. */
static int run_evals(CXIndex idx, const struct ag_version *v, const char *base,
		     struct ag_evals *ev, const char *extra_def)
{
	size_t cap = strlen(base) + 64;
	int first = count_lines(base), nlines;
	char *src;
	bool *bad;
	CXTranslationUnit tu;
	int r;

	for (size_t i = 0; i < ev->n; i++)
		cap += 2 * strlen(ev->e[i].expr) + 96;
	src = ag_alloc(cap);
	strcpy(src, base);
	for (size_t i = 0; i < ev->n; i++) {
		char *line = ag_fmt("static const __typeof__((%s) + 0) "
				    "__abigen_v%zu = (%s);\n",
				    ev->e[i].expr, i, ev->e[i].expr);

		strcat(src, line);
		free(line);
		ev->e[i].line = first + (int)i + 1;
		ev->e[i].ok = false;
	}
	nlines = count_lines(src);
	bad = ag_alloc((size_t)nlines + 1);
	r = parse(idx, v, src, extra_def, CXTranslationUnit_SkipFunctionBodies,
		  &tu, bad, nlines);
	if (!r) {
		clang_visitChildren(clang_getTranslationUnitCursor(tu),
				    eval_visit, ev);
		for (size_t i = 0; i < ev->n; i++)
			if (bad[ev->e[i].line - 1])
				ev->e[i].ok = false;
		clang_disposeTranslationUnit(tu);
	}
	free(bad);
	free(src);
	return r;
}

/* ---- per version ----------------------------------------------------- */

struct pending {
	size_t want;
	size_t ev, ev_lo; /* indexes into evals (lo: DRF only) */
	char *vname;
	bool table;
};

static void free_scan(struct ag_scan *s)
{
	for (size_t i = 0; i < s->nm; i++) {
		free(s->m[i].name);
		free(s->m[i].body);
		free(s->m[i].hi);
		free(s->m[i].lo);
	}
	free(s->m);
	free(s->decl);
	free(s->mhash);
	free(s->ehash);
	for (size_t i = 0; i < s->enumc.n; i++)
		free(s->enumc.v[i]);
	free(s->enumc.v);
}

static void want_const(const struct ag_ctx *ctx, struct ag_version *v,
		       const struct ag_scan *s, size_t i, struct ag_evals *ev,
		       struct pending **pend, size_t *np)
{
	const struct ag_want *w = &ctx->want[i];
	const char *vn = ag_rename_to_version(ctx, v->in.tag, "const", w->name);
	const struct ag_macro *m = find_macro(s, vn);
	struct pending *p;

	if (!m && !is_enumc(s, vn))
		return;
	if (w->kind == AG_W_DRF && (!m || !m->hi))
		return;
	*pend = realloc(*pend, (*np + 1) * sizeof(**pend));
	if (!*pend)
		exit(1);
	p = &(*pend)[(*np)++];
	memset(p, 0, sizeof(*p));
	p->want = i;
	p->vname = ag_strdup(vn);
	if (w->kind == AG_W_DRF) {
		p->ev = eval_add(ev, m->hi);
		p->ev_lo = eval_add(ev, m->lo);
	} else {
		p->ev = eval_add(ev, vn);
	}
}

static void want_table_name(const struct ag_ctx *ctx, struct ag_version *v,
			    const struct ag_scan *s, size_t i, const char *vn,
			    struct ag_evals *ev, struct pending **pend,
			    size_t *np)
{
	struct pending *p;

	*pend = realloc(*pend, (*np + 1) * sizeof(**pend));
	if (!*pend)
		exit(1);
	p = &(*pend)[(*np)++];
	memset(p, 0, sizeof(*p));
	p->want = i;
	p->vname = ag_strdup(vn);
	p->table = true;
	p->ev = eval_add(ev, vn);
}

static void want_table(const struct ag_ctx *ctx, struct ag_version *v,
		       const struct ag_scan *s, size_t i, struct ag_evals *ev,
		       struct pending **pend, size_t *np)
{
	const struct ag_want *w = &ctx->want[i];

	if (w->src == AG_T_ENUM) {
		CXType t;
		char *sp;
		struct enum_collect ec = {&v->tables[i], ctx, v, w->strip};

		if (find_type(s, w->src_name, &t, &sp)) {
			free(sp);
			if (t.kind == CXType_Enum) {
				bool sgn = true;

				ag_type_is_int(t, &sgn);
				ec.is_unsigned = !sgn;
				clang_visitChildren(clang_getTypeDeclaration(t),
						    enum_visit, &ec);
			}
		}
		return;
	}
	if (w->src == AG_T_PREFIX) {
		size_t plen = strlen(w->src_name);

		for (size_t k = 0; k < s->nm; k++) {
			const struct ag_macro *m = &s->m[k];

			if (strncmp(m->name, w->src_name, plen) || m->hi ||
			    find_macro(s, m->name) != m)
				continue;
			want_table_name(ctx, v, s, i, m->name, ev, pend, np);
		}
		/* enumerators too (X-macro lists expand to an enum) */
		for (size_t k = 0; k < s->enumc.n; k++) {
			const char *n = s->enumc.v[k];

			if (!strncmp(n, w->src_name, plen) && !find_macro(s, n))
				want_table_name(ctx, v, s, i, n, ev, pend, np);
		}
		return;
	}
	for (size_t k = 0; k < w->values.n; k++) {
		const char *vn = ag_rename_to_version(ctx, v->in.tag, "const",
						      w->values.v[k]);

		if (find_macro(s, vn) || is_enumc(s, vn))
			want_table_name(ctx, v, s, i, vn, ev, pend, np);
	}
}

static int cmp_entry(const void *a, const void *b)
{
	const struct ag_tentry *x = a, *y = b;

	/* as from_wire() compares: uint64_t (a negative number last) */
	if (x->value != y->value)
		return (uint64_t)x->value < (uint64_t)y->value ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Record every file the headers include, once (the build's depfile). */
static void dep_visit(CXFile file, CXSourceLocation *stack, unsigned depth,
		      void *d)
{
	struct ag_strv *deps = d;
	char *n = ag_cx_str(clang_getFileName(file));

	if (depth && *n) { /* depth 0: the generated main file */
		bool dup = false;

		for (size_t i = 0; i < deps->n && !dup; i++)
			dup = !strcmp(deps->v[i], n);
		if (!dup)
			ag_strv_push(deps, n);
	}
	free(n);
}

int ag_build_version(struct ag_ctx *ctx, struct ag_version *v)
{
	CXIndex idx = clang_createIndex(0, 0);
	struct ag_scan s = {0};
	struct ag_evals ev = {0};
	struct pending *pend = NULL;
	size_t np = 0;
	char *base = main_source(v);
	int r;

	v->rec = ag_alloc(ctx->nwant * sizeof(*v->rec));
	v->konst = ag_alloc(ctx->nwant * sizeof(*v->konst));
	v->tables = ag_alloc(ctx->nwant * sizeof(*v->tables));
	r = parse(idx, v, base, NULL,
		  CXTranslationUnit_DetailedPreprocessingRecord |
			  CXTranslationUnit_SkipFunctionBodies,
		  &s.tu, NULL, 0);
	if (r)
		goto out;
	clang_visitChildren(clang_getTranslationUnitCursor(s.tu), top_visit,
			    &s);
	clang_getInclusions(s.tu, dep_visit, &ctx->deps);
	build_hash(&s);
	for (size_t i = 0; i < ctx->nwant; i++) {
		const struct ag_want *w = &ctx->want[i];

		switch (w->kind) {
		case AG_W_STRUCT:
			v->rec[i] = build_record(
				&s, ag_rename_to_version(ctx, v->in.tag, "type",
							 w->name));
			break;
		case AG_W_CONST:
		case AG_W_DRF:
			want_const(ctx, v, &s, i, &ev, &pend, &np);
			break;
		case AG_W_TABLE:
			want_table(ctx, v, &s, i, &ev, &pend, &np);
			break;
		}
	}
	if (ev.n)
		r = run_evals(idx, v, base, &ev, NULL);
	for (size_t k = 0; !r && k < np; k++) {
		const struct pending *p = &pend[k];
		const struct ag_want *w = &ctx->want[p->want];
		struct ag_const *c = &v->konst[p->want];
		const struct ag_eval *e = &ev.e[p->ev];

		if (!e->ok && p->table && w->src == AG_T_PREFIX)
			continue; /* a non-numeric macro sharing the prefix */
		if (!e->ok) {
			ag_error("%s: %s: '%s' is not an integer constant "
				 "expression in version %s",
				 ctx->want_file, w->name, p->vname, v->in.tag);
			continue;
		}
		if (p->table) {
			table_add(&v->tables[p->want],
				  entry_name(ctx, v, p->vname, w->strip),
				  p->vname, e->value);
			continue;
		}
		c->found = true;
		c->vname = ag_strdup(p->vname);
		c->is_unsigned = e->is_unsigned;
		c->value = e->value;
		if (w->kind == AG_W_DRF) {
			const struct ag_eval *lo = &ev.e[p->ev_lo];

			c->drf = true;
			c->hi = (unsigned)e->value;
			c->lo = lo->ok ? (unsigned)lo->value : 0;
			if (!lo->ok || lo->value < 0 || lo->value > e->value ||
			    e->value > 63) {
				ag_error("%s: %s: bad DRF range in version %s",
					 ctx->want_file, w->name, v->in.tag);
				c->found = false;
			}
		}
	}
	/* define-dependence: re-evaluate under each probe define */
	for (size_t pi = 0; !r && pi < v->in.probes.n; pi++) {
		struct ag_evals pe = {0};
		const char *probe = v->in.probes.v[pi];

		bool broken;

		for (size_t k = 0; k < ev.n; k++)
			eval_add(&pe, ev.e[k].expr);
		/* headers that do not parse under the probe: every wanted
		 * constant says so (the report was silent) */
		broken = run_evals(idx, v, base, &pe, probe) != 0;
		for (size_t k = 0; k < np; k++) {
			const struct pending *p = &pend[k];
			struct ag_const *c = &v->konst[p->want];
			const struct ag_eval *e = &pe.e[p->ev];
			char *note, *old;

			if (p->table || !c->found ||
			    (!broken && e->ok && e->value == ev.e[p->ev].value))
				continue;
			note = broken  ? ag_fmt("headers do not parse with %s",
						probe)
			       : e->ok ? ag_fmt("%lld with %s",
						(long long)e->value, probe)
				       : ag_fmt("undefined with %s", probe);
			old = c->probe_note;
			c->probe_note = old ? ag_fmt("%s; %s", old, note)
					    : ag_strdup(note);
			free(old);
			free(note);
		}
		for (size_t k = 0; k < pe.n; k++)
			free(pe.e[k].expr);
		free(pe.e);
	}
	for (size_t i = 0; i < ctx->nwant; i++)
		if (v->tables[i].n)
			qsort(v->tables[i].e, v->tables[i].n,
			      sizeof(v->tables[i].e[0]), cmp_entry);
out:
	for (size_t k = 0; k < np; k++)
		free(pend[k].vname);
	free(pend);
	for (size_t k = 0; k < ev.n; k++)
		free(ev.e[k].expr);
	free(ev.e);
	if (s.tu)
		clang_disposeTranslationUnit(s.tu);
	free_scan(&s);
	free(base);
	clang_disposeIndex(idx);
	return r;
}

// SPDX-License-Identifier: MIT
/*
 * abigen - generate a version-neutral C layer over several firmware ABI
 * versions. Usage:
 *
 *   abigen --versions LIST --want WANT [--rename MAP] [--prefix abi]
 *          --outdir DIR
 *
 * Writes DIR/<prefix>.h, <prefix>_common.c, <prefix>_<version>.c per
 * version, <prefix>_ops_skel.c, <prefix>_layout.json and
 * <prefix>_diff.txt. Exit status 0 on success, 1 on any error (every
 * error is printed; want-list errors name file:line). See docs/abigen.md.
 */
#include <errno.h>
#include <inttypes.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "abigen.h"
#include "model.h"
#include "model.h"

/*
 * The layout database lives until exit by design (the tool is short-lived):
 * keep AddressSanitizer's other checks but not its exit-time leak report.
 */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}

static void usage(FILE *f)
{
	fprintf(f, "usage: abigen --versions LIST --want WANT [--rename MAP]\n"
		   "              [--prefix NAME] --outdir DIR\n"
		   "              [--depfile FILE [--deptarget OUTPUT]]\n");
}

static bool any_enum(const struct ag_ctx *ctx, size_t wi, const char *name)
{
	for (size_t v = 0; v < ctx->nver; v++) {
		const struct ag_table *t = &ctx->ver[v].tables[wi];

		for (size_t k = 0; k < t->n; k++)
			if (!name || !strcmp(t->e[k].vname, name) ||
			    !strcmp(t->e[k].name, name))
				return true;
	}
	return false;
}

/* Every wanted thing must exist in at least one version. */
static int check_wants(const struct ag_ctx *ctx)
{
	const char *wf = ctx->want_file;
	int bad = 0;

	for (size_t i = 0; i < ctx->nwant; i++) {
		const struct ag_want *w = &ctx->want[i];
		bool found = false;

		switch (w->kind) {
		case AG_W_STRUCT:
			for (size_t v = 0; v < ctx->nver; v++)
				found |= ctx->ver[v].rec[i] != NULL;
			if (!found) {
				ag_error("%s:%d: unknown type '%s' (no version "
					 "defines it as a struct or union)",
					 wf, w->line, w->name);
				bad++;
				break;
			}
			for (size_t j = 0; j < w->nfields; j++) {
				bool has = false;

				for (size_t v = 0; v < ctx->nver; v++) {
					const struct ag_version *ver =
						&ctx->ver[v];
					char *key = ag_fmt("%s.%s", w->name,
							   w->fields[j].path);
					const char *vk = ag_rename_to_version(
						ctx, ver->in.tag, "field", key);
					const char *dot = strchr(vk, '.');

					has |= ag_find_field(
						       ver->rec[i],
						       vk == key || !dot
							       ? w->fields[j]
									 .path
							       : dot + 1) !=
					       NULL;
					free(key);
				}
				if (!has) {
					ag_error("%s:%d: unknown field '%s' in "
						 "'%s' (no version has it)",
						 wf, w->fields[j].line,
						 w->fields[j].path, w->name);
					bad++;
				}
			}
			break;
		case AG_W_CONST:
		case AG_W_DRF:
			for (size_t v = 0; v < ctx->nver; v++)
				found |= ctx->ver[v].konst[i].found;
			if (!found) {
				ag_error("%s:%d: unknown %s '%s' (no version "
					 "defines it%s)",
					 wf, w->line,
					 w->kind == AG_W_DRF ? "DRF field"
							     : "constant",
					 w->name,
					 w->kind == AG_W_DRF ? " as HI:LO"
							     : "");
				bad++;
			}
			break;
		case AG_W_TABLE:
			if (w->src != AG_T_LIST) {
				if (!any_enum(ctx, i, NULL)) {
					ag_error(
						"%s:%d: table '%s': no %s '%s' "
						"in any version",
						wf, w->line, w->name,
						w->src == AG_T_ENUM
							? "enum"
							: "macros with prefix",
						w->src_name);
					bad++;
				}
				break;
			}
			for (size_t k = 0; k < w->values.n; k++)
				if (!any_enum(ctx, i, w->values.v[k])) {
					ag_error("%s:%d: unknown constant '%s' "
						 "in table '%s'",
						 wf, w->value_lines[k],
						 w->values.v[k], w->name);
					bad++;
				}
			break;
		}
	}
	return bad ? -EINVAL : 0;
}

/*
 * Every wanted field has a neutral representation holding what each
 * version stores there; checked before anything is written.
 */
static int check_neutral(const struct ag_ctx *ctx)
{
	int bad = 0;

	for (size_t i = 0; i < ctx->nwant; i++) {
		const struct ag_want *w = &ctx->want[i];

		for (size_t j = 0; w->kind == AG_W_STRUCT && j < w->nfields;
		     j++) {
			struct ag_nf nf;
			int r = ag_neutral_field(ctx, i, j, &nf);

			if (r < 0) {
				ag_error("%s:%d: field '%s' of '%s': %s",
					 ctx->want_file, w->fields[j].line,
					 w->fields[j].path, w->name,
					 ag_neutral_why(r));
				bad++;
			}
		}
	}
	return bad ? -EINVAL : 0;
}

/*
 * `elem S` fields: in every version that has the field it is a
 * one-dimensional array whose element is exactly as large as that
 * version's S (the generated file also static-asserts the element type).
 */
static int check_elems(const struct ag_ctx *ctx)
{
	const char *wf = ctx->want_file;
	int bad = 0;

	for (size_t i = 0; i < ctx->nwant; i++) {
		const struct ag_want *w = &ctx->want[i];

		if (w->kind != AG_W_STRUCT)
			continue;
		for (size_t j = 0; j < w->nfields; j++) {
			const struct ag_want_field *fw = &w->fields[j];
			long ei = ag_elem_want(ctx, i, j);

			if (!fw->elem)
				continue;
			if (ei < 0 || (size_t)ei == i) {
				ag_error("%s:%d: field '%s' of '%s': elem '%s' "
					 "is not another wanted struct",
					 wf, fw->line, fw->path, w->name,
					 fw->elem);
				bad++;
				continue;
			}
			for (size_t v = 0; v < ctx->nver; v++) {
				const struct ag_version *ver = &ctx->ver[v];
				const struct ag_field *vf =
					ag_vfield(ctx, ver, i, j);
				const struct ag_record *er = ver->rec[ei];

				if (!vf)
					continue;
				if (vf->kind != AG_F_ARRAY || vf->ndims != 1 ||
				    vf->elem_int || !er ||
				    vf->elem_size != er->size) {
					ag_error("%s:%d: field '%s' of '%s' is "
						 "not an array of '%s' in %s",
						 wf, fw->line, fw->path,
						 w->name, fw->elem,
						 ver->in.tag);
					bad++;
				}
			}
		}
	}
	return bad ? -EINVAL : 0;
}

/*
 * `fixed` wants: every version that has the constant (or table entry)
 * gives it the same value, so the neutral header can carry it as a
 * compile-time <P>_K_ value; a `fixed` constant must be in every version.
 * `numbers TAG` names a version of the list.
 */
static int check_fixed(const struct ag_ctx *ctx)
{
	const char *wf = ctx->want_file;
	int bad = 0;

	for (size_t i = 0; i < ctx->nwant; i++) {
		const struct ag_want *w = &ctx->want[i];

		if (w->kind == AG_W_CONST && w->fixed) {
			const struct ag_const *k0 = &ctx->ver[0].konst[i];

			for (size_t v = 0; v < ctx->nver; v++) {
				const struct ag_const *k =
					&ctx->ver[v].konst[i];

				if (!k->found) {
					ag_error("%s:%d: fixed constant '%s' "
						 "is missing in %s",
						 wf, w->line, w->name,
						 ctx->ver[v].in.tag);
					bad++;
				} else if (k0->found && k->value != k0->value) {
					ag_error("%s:%d: fixed constant '%s' "
						 "differs: %" PRId64
						 " in %s, %" PRId64 " in %s",
						 wf, w->line, w->name,
						 k0->value, ctx->ver[0].in.tag,
						 k->value, ctx->ver[v].in.tag);
					bad++;
				}
			}
		}
		if (w->kind != AG_W_TABLE)
			continue;
		if (w->numbers && w->fixed) {
			ag_error("%s:%d: table '%s': 'fixed' or 'numbers', "
				 "not both",
				 wf, w->line, w->name);
			bad++;
		}
		if (w->numbers) {
			bool known = false;

			for (size_t v = 0; v < ctx->nver; v++)
				known |=
					!strcmp(ctx->ver[v].in.tag, w->numbers);
			if (!known) {
				ag_error("%s:%d: table '%s': numbers of "
					 "unknown version '%s'",
					 wf, w->line, w->name, w->numbers);
				bad++;
			}
		}
		if (!w->fixed)
			continue;
		for (size_t v = 1; v < ctx->nver; v++) {
			const struct ag_table *t = &ctx->ver[v].tables[i];

			for (size_t a = 0; a < t->n; a++)
				for (size_t u = 0; u < v; u++) {
					const struct ag_table *o =
						&ctx->ver[u].tables[i];

					for (size_t b = 0; b < o->n; b++)
						if (!strcmp(o->e[b].name,
							    t->e[a].name) &&
						    o->e[b].value !=
							    t->e[a].value) {
							ag_error(
								"%s:%d: fixed "
								"table '%s': "
								"%s is %" PRId64
								" in %s, "
								"%" PRId64
								" in %s",
								wf, w->line,
								w->name,
								t->e[a].name,
								o->e[b].value,
								ctx->ver[u]
									.in.tag,
								t->e[a].value,
								ctx->ver[v]
									.in
									.tag);
							bad++;
						}
				}
		}
	}
	return bad ? -EINVAL : 0;
}

static int write_file(const struct ag_ctx *ctx, const char *dir,
		      const char *suffix,
		      int (*fn)(const struct ag_ctx *, FILE *))
{
	char *path = ag_fmt("%s/%s_%s", dir, ctx->prefix, suffix);
	FILE *f = fopen(path, "w");
	int r;

	if (!f) {
		ag_error("%s: cannot write: %s", path, strerror(errno));
		free(path);
		return -EIO;
	}
	r = fn(ctx, f);
	if (fclose(f) || r) {
		ag_error("%s: write failed", path);
		r = -EIO;
	}
	free(path);
	return r;
}

static void dep_word(FILE *f, const char *s)
{
	fputc(' ', f);
	for (; *s; s++) {
		if (*s == ' ' || *s == '#' || *s == '\\')
			fputc('\\', f);
		if (*s == '$')
			fputc('$', f);
		fputc(*s, f);
	}
}

/* Make-style dependencies: every header parsed, and the input files. */
static int write_depfile(const struct ag_ctx *ctx, const char *path,
			 const char *target, const char *versions,
			 const char *want, const char *rename)
{
	FILE *f = fopen(path, "w");
	int r;

	if (!f) {
		ag_error("%s: cannot write: %s", path, strerror(errno));
		return -EIO;
	}
	fprintf(f, "%s:", target ? target : ctx->prefix);
	dep_word(f, versions);
	dep_word(f, want);
	if (rename)
		dep_word(f, rename);
	for (size_t i = 0; i < ctx->deps.n; i++)
		dep_word(f, ctx->deps.v[i]);
	fputc('\n', f);
	r = ferror(f);
	if (fclose(f) || r) {
		ag_error("%s: write failed", path);
		return -EIO;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"versions", required_argument, NULL, 'v'},
		{"want", required_argument, NULL, 'w'},
		{"rename", required_argument, NULL, 'r'},
		{"prefix", required_argument, NULL, 'p'},
		{"outdir", required_argument, NULL, 'o'},
		{"depfile", required_argument, NULL, 'd'},
		{"deptarget", required_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *versions = NULL, *want = NULL, *rename = NULL,
		   *outdir = NULL, *depfile = NULL, *deptarget = NULL;
	struct ag_ctx ctx = {.prefix = "abi"};
	int c, r = 0;

	while ((c = getopt_long(argc, argv, "v:w:r:p:o:d:t:h", opts, NULL)) !=
	       -1) {
		switch (c) {
		case 'v':
			versions = optarg;
			break;
		case 'w':
			want = optarg;
			break;
		case 'r':
			rename = optarg;
			break;
		case 'p':
			ctx.prefix = optarg;
			break;
		case 'o':
			outdir = optarg;
			break;
		case 'd':
			depfile = optarg;
			break;
		case 't':
			deptarget = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!versions || !want || !outdir || optind != argc) {
		usage(stderr);
		return 2;
	}
	for (const char *p = ctx.prefix; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || *p == '_' ||
		      (p != ctx.prefix && *p >= '0' && *p <= '9'))) {
			ag_error("--prefix: lower-case C identifier expected");
			return 2;
		}
	if (ag_read_versions(&ctx, versions) || ag_read_want(&ctx, want) ||
	    (rename && ag_read_renames(&ctx, rename)))
		return 1;
	for (size_t v = 0; v < ctx.nver; v++) {
		const struct ag_version_in *in = &ctx.ver[v].in;
		char *own = ag_fmt("%s.h", ctx.prefix);

		/* the generated header would shadow the version's own */
		for (size_t h = 0; h < in->headers.n; h++) {
			const char *b = strrchr(in->headers.v[h], '/');

			if (!strcmp(b ? b + 1 : in->headers.v[h], own)) {
				ag_error(
					"%s:%d: header '%s' has the name of "
					"the generated header: change --prefix",
					in->file, in->line, in->headers.v[h]);
				r = -EINVAL;
			}
		}
		free(own);
	}
	for (size_t v = 0; !r && v < ctx.nver; v++)
		if (ag_build_version(&ctx, &ctx.ver[v]))
			r = -EINVAL;
	if (r || check_wants(&ctx) || check_fixed(&ctx) || check_elems(&ctx) ||
	    check_neutral(&ctx)) {
		ag_error("failed; nothing written");
		return 1;
	}
	if (ag_emit_c(&ctx, outdir) ||
	    write_file(&ctx, outdir, "layout.json", ag_emit_json) ||
	    write_file(&ctx, outdir, "diff.txt", ag_emit_diff))
		return 1;
	if (depfile &&
	    write_depfile(&ctx, depfile, deptarget, versions, want, rename))
		return 1;
	return 0;
}

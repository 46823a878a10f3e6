// SPDX-License-Identifier: MIT
/*
 * abigen: the neutral model derived from all versions' layout databases:
 * which field of which version backs each wanted neutral field, and the
 * neutral representation (widest integer, longest array, or raw bytes).
 */
#include <stdlib.h>
#include <string.h>

#include "abigen.h"
#include "model.h"

const struct ag_field *ag_vfield(const struct ag_ctx *ctx,
				 const struct ag_version *v, size_t wi,
				 size_t fj)
{
	const struct ag_want *w = &ctx->want[wi];
	char *key = ag_fmt("%s.%s", w->name, w->fields[fj].path);
	const char *vk = ag_rename_to_version(ctx, v->in.tag, "field", key);
	const char *dot = strchr(vk, '.');
	const struct ag_field *f;

	f = ag_find_field(v->rec[wi],
			  vk == key || !dot ? w->fields[fj].path : dot + 1);
	free(key);
	return f;
}

long ag_elem_want(const struct ag_ctx *ctx, size_t wi, size_t fj)
{
	const char *e = ctx->want[wi].fields[fj].elem;

	if (!e)
		return -1;
	for (size_t i = 0; i < ctx->nwant; i++)
		if (ctx->want[i].kind == AG_W_STRUCT &&
		    !strcmp(ctx->want[i].neutral, e))
			return (long)i;
	return -1;
}

static unsigned bytes_for_bits(unsigned bits)
{
	return bits <= 8 ? 1 : bits <= 16 ? 2 : bits <= 32 ? 4 : 8;
}

/* Version-field classification before merging across versions. */
static void classify(const struct ag_field *f, struct ag_nf *nf)
{
	memset(nf, 0, sizeof(*nf));
	switch (f->kind) {
	case AG_F_INT:
		if (!f->bit_width && f->size != 1 && f->size != 2 &&
		    f->size != 4 && f->size != 8) {
			nf->kind = AG_NF_BYTES;
			nf->esize = 1;
			nf->count = f->size;
			break;
		}
		nf->kind = AG_NF_INT;
		nf->esize = f->bit_width ? bytes_for_bits(f->bit_width)
					 : (unsigned)f->size;
		nf->sgn = f->is_signed;
		nf->count = 1;
		break;
	case AG_F_ARRAY:
		if (f->elem_int && (f->elem_size == 1 || f->elem_size == 2 ||
				    f->elem_size == 4 || f->elem_size == 8)) {
			nf->kind = AG_NF_IARRAY;
			nf->esize = (unsigned)f->elem_size;
			nf->sgn = f->is_signed;
			nf->count = f->count;
			break;
		}
		/* fall through */
	default:
		nf->kind = AG_NF_BYTES;
		nf->esize = 1;
		nf->count = f->size;
		break;
	case AG_F_FAM:
		nf->kind = AG_NF_FAM;
		nf->esize = 4;
		nf->count = 1;
		break;
	}
}

int ag_neutral_field(const struct ag_ctx *ctx, size_t wi, size_t fj,
		     struct ag_nf *out)
{
	bool any = false, bits = false;
	unsigned max_u = 0; /* widest unsigned integer among the versions */
	const struct ag_field *arr = NULL; /* first version's array */

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < ctx->nver; i++) {
		const struct ag_field *f = ag_vfield(ctx, &ctx->ver[i], wi, fj);
		struct ag_nf nf;

		if (!f)
			continue;
		/* the neutral array is flat: a row of another length would
		 * put neutral element i in another row in each version */
		if (f->kind == AG_F_ARRAY) {
			if (!arr)
				arr = f;
			else if (arr->ndims != f->ndims ||
				 memcmp(arr->dims + 1, f->dims + 1,
					(f->ndims - 1) * sizeof(f->dims[0])))
				return AG_NF_ERR_DIMS;
		}
		classify(f, &nf);
		bits |= f->bit_width != 0;
		if ((nf.kind == AG_NF_INT || nf.kind == AG_NF_IARRAY) &&
		    !nf.sgn && nf.esize > max_u)
			max_u = nf.esize;
		if (!any) {
			*out = nf;
			any = true;
			continue;
		}
		if (nf.kind == AG_NF_FAM || out->kind == AG_NF_FAM) {
			if (nf.kind != out->kind)
				return AG_NF_ERR_KINDS;
			continue;
		}
		if (nf.kind != out->kind) { /* mixed kinds: raw bytes */
			uint64_t a = out->count * out->esize,
				 b = nf.count * nf.esize;

			out->kind = AG_NF_BYTES;
			out->esize = 1;
			out->count = a > b ? a : b;
			out->sgn = false;
			continue;
		}
		if (nf.esize > out->esize)
			out->esize = nf.esize;
		if (nf.count > out->count)
			out->count = nf.count;
		out->sgn |= nf.sgn;
	}
	if (out->kind == AG_NF_BYTES) {
		if (bits)
			return AG_NF_ERR_KINDS; /* a bitfield cannot be raw
						 * bytes */
		out->sgn = false;
	}
	/* signed in one version, unsigned as wide in another: one size up
	 * holds both ranges; nothing holds both int64_t and uint64_t */
	if (out->sgn && max_u >= out->esize) {
		if (out->esize == 8)
			return AG_NF_ERR_SIGN;
		out->esize *= 2;
	}
	return any ? 0 : 1;
}

const char *ag_neutral_why(int r)
{
	switch (r) {
	case 1:
		return "no version has it";
	case AG_NF_ERR_SIGN:
		return "signed in one version and unsigned 64-bit in another: "
		       "no neutral integer holds both";
	case AG_NF_ERR_DIMS:
		return "array dimension other than the first differs across "
		       "versions (the neutral array is flat)";
	default:
		return "incompatible kinds across versions";
	}
}

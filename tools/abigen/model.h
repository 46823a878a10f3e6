/* SPDX-License-Identifier: MIT */
/* abigen: neutral representation of wanted fields (see model.c). */
#ifndef ABIGEN_MODEL_H
#define ABIGEN_MODEL_H

#include "abigen.h"

enum ag_nf_kind { AG_NF_INT, AG_NF_IARRAY, AG_NF_BYTES, AG_NF_FAM };

/** struct ag_nf - neutral field: element size, signedness, count. */
struct ag_nf {
	enum ag_nf_kind kind;
	unsigned esize; /* 1, 2, 4, 8 (bytes: 1) */
	bool sgn;
	uint64_t count; /* array length, or byte count for AG_NF_BYTES */
};

/** ag_vfield() - the field of version @v backing want @wi field @fj. */
const struct ag_field *ag_vfield(const struct ag_ctx *ctx,
				 const struct ag_version *v, size_t wi,
				 size_t fj);

/* ag_neutral_field() errors */
#define AG_NF_ERR_KINDS (-1) /* flexible vs fixed, bitfield vs bytes */
#define AG_NF_ERR_SIGN (-2) /* int64_t in one version, uint64_t in one */
#define AG_NF_ERR_DIMS (-3) /* multi-dimensional array reshaped */

/**
 * ag_neutral_field() - merge the field over all versions.
 * Returns 0, 1 if no version has it, or an AG_NF_ERR_ code.
 */
int ag_neutral_field(const struct ag_ctx *ctx, size_t wi, size_t fj,
		     struct ag_nf *out);

/** ag_neutral_why() - what a non-zero ag_neutral_field() result means. */
const char *ag_neutral_why(int r);

/**
 * ag_elem_want() - the struct want whose neutral name is @fj's `elem` of
 * want @wi. Returns its index, or -1 (no `elem`, or no such struct).
 */
long ag_elem_want(const struct ag_ctx *ctx, size_t wi, size_t fj);

#endif /* ABIGEN_MODEL_H */

/* SPDX-License-Identifier: MIT */
/* abigen: shared state and helpers of the C emitters (emit*.c). */
#ifndef ABIGEN_EMIT_H
#define ABIGEN_EMIT_H

#include <stdio.h>

#include "abigen.h"
#include "model.h"

/** struct em - one emitter run. */
struct em {
	const struct ag_ctx *ctx;
	const char *p; /* prefix */
	char *pu; /* PREFIX */
	FILE *f;
};

/*
 * Alignment of a neutral struct's first member (after `present`), and so
 * of the struct: the coalesced copies of pack/unpack then write and read
 * it in aligned 16-byte pieces that never straddle a cache line.
 */
#define AG_NEUTRAL_ALIGN 16

/* emit.c */
const char *ag_ntype(const struct ag_nf *nf);
const char *ag_bits_type(unsigned bytes, bool sgn);
char *ag_up(const char *s);
void ag_banner(FILE *f, const struct ag_ctx *ctx, const char *what);
void ag_table_names(const struct ag_ctx *ctx, size_t wi, struct ag_strv *out);
void ag_free_strv(struct ag_strv *v);

/* emit_neutral.c: <p>.h and <p>_common.c */
int ag_emit_header(struct em *e);
int ag_emit_common(struct em *e);

/* emit_version.c: <p>_<version>.c and <p>_ops_skel.c */
void ag_emit_version(struct em *e, const struct ag_version *v);
void ag_emit_ops_skel(struct em *e);

#endif /* ABIGEN_EMIT_H */

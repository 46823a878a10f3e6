/* SPDX-License-Identifier: MIT */
/*
 * abigen: firmware ABI generator (see docs/abigen.md).
 *
 * Reads a version list, a want list and a rename map, builds one layout
 * database per version with libclang, and emits version-neutral C plus
 * per-version pack/unpack code, translation tables, a JSON layout database
 * and a diff report. This header holds the in-memory model shared by the
 * input parser (input.c), the libclang layer (layout.c) and the emitters
 * (emit.c, report.c).
 */
#ifndef ABIGEN_H
#define ABIGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define AG_MAX_DIMS 4
#define AG_MAX_FIELDS 64 /* wanted fields per struct (presence bitmask) */

/* ---- inputs ---------------------------------------------------------- */

/** struct ag_strv - growable string vector. */
struct ag_strv {
	char **v;
	size_t n, cap;
};

/** struct ag_version_in - one entry of the version list. */
struct ag_version_in {
	char *tag; /* "535.113.01" */
	char *ident; /* C identifier form: "r535_113_01" */
	struct ag_strv incs; /* absolute include directories */
	struct ag_strv defs; /* pinned profile: NAME=VALUE */
	struct ag_strv headers; /* root headers, as written in #include "" */
	struct ag_strv
		probes; /* extra NAME=VALUE to detect define-dependence */
	const char *file;
	int line;
};

enum ag_want_kind { AG_W_STRUCT, AG_W_CONST, AG_W_DRF, AG_W_TABLE };
enum ag_table_src { AG_T_ENUM, AG_T_PREFIX, AG_T_LIST };

/** struct ag_want_field - a field line of the want list. */
struct ag_want_field {
	char *path; /* C access path in the neutral naming: "hdr.seqNum" */
	char *neutral; /* neutral member name ("hdr_seqNum" or `as` name) */
	/* `elem S`: an array whose elements are the wanted struct S (its
	 * neutral name): element accessors are emitted */
	char *elem;
	int line;
};

/** struct ag_want - one struct/const/drf/table line of the want list. */
struct ag_want {
	enum ag_want_kind kind;
	char *name; /* type, macro or table name */
	char *neutral; /* neutral identifier */
	char *role; /* "rpc", "event" or NULL (structs) */
	int line;
	/* consts and tables: `fixed` (every version agrees: a compile-time
	 * <P>_K_ value); tables: `numbers TAG` (TAG's numbers as the
	 * compile-time <P>_K_ values, the driver's own numbering) */
	bool fixed;
	char *numbers;
	/* structs */
	struct ag_want_field *fields;
	size_t nfields;
	/* tables */
	enum ag_table_src src;
	char *src_name; /* enum type or macro prefix */
	char *strip; /* prefix stripped from entry names */
	struct ag_strv values;
	int *value_lines;
};

/** struct ag_rename - one line of the rename map. */
struct ag_rename {
	char *tag; /* version tag */
	char *kind; /* "type", "field", "const" */
	char *from; /* name in that version ("Type.path" for fields) */
	char *to; /* neutral name ("Type.path" for fields) */
};

/* ---- layout database ------------------------------------------------- */

enum ag_fkind {
	AG_F_INT, /* integer, enum or bool (maybe a bitfield) */
	AG_F_ARRAY, /* constant array */
	AG_F_FAM, /* flexible array member */
	AG_F_RECORD, /* nested struct/union (also flattened) */
	AG_F_OTHER, /* pointer, floating point, ... */
};

/** struct ag_field - one member of a record, flattened to a C path. */
struct ag_field {
	char *path;
	char *type; /* type spelling */
	enum ag_fkind kind;
	uint64_t bit_off; /* from the start of the top-level record */
	uint64_t size; /* bytes (the whole array for arrays) */
	unsigned bit_width;
	bool is_signed;
	bool is_bool; /* _Bool (not a bitfield): holds only 0 and 1 */
	bool in_union;
	/* arrays: dims, element count, element size, element is an integer */
	unsigned ndims;
	uint64_t dims[AG_MAX_DIMS];
	uint64_t count;
	uint64_t elem_size;
	bool elem_int;
};

/** struct ag_record - layout of one wanted struct in one version. */
struct ag_record {
	char *name; /* name as found in this version */
	char *spelling; /* C spelling: "Foo" or "struct foo" */
	uint64_t size, align;
	bool is_union;
	struct ag_field *f;
	size_t nf;
};

/** struct ag_const - evaluated macro or enum constant. */
struct ag_const {
	bool found;
	bool drf;
	bool is_unsigned;
	int64_t value;
	unsigned hi, lo;
	char *vname; /* name in this version */
	/* define-dependence: value under each probe (NULL when equal) */
	char *probe_note;
};

/** struct ag_tentry - one entry of a translation table. */
struct ag_tentry {
	char *name; /* neutral name (renamed, stripped) */
	char *vname;
	int64_t value;
};

/** struct ag_table - one translation table in one version. */
struct ag_table {
	struct ag_tentry *e;
	size_t n;
};

/** struct ag_version - everything known about one version. */
struct ag_version {
	struct ag_version_in in;
	struct ag_record **rec; /* per want (NULL: not a struct/absent) */
	struct ag_const *konst; /* per want */
	struct ag_table *tables; /* per want */
};

/** struct ag_ctx - the whole run. */
struct ag_ctx {
	struct ag_version *ver;
	size_t nver;
	struct ag_want *want;
	size_t nwant;
	struct ag_rename *ren;
	size_t nren;
	const char *want_file;
	const char *prefix;
	bool verbose;
	struct ag_strv deps; /* every header parsed (for --depfile) */
};

/* util.c */
void *ag_alloc(size_t n);
char *ag_strdup(const char *s);
char *ag_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ag_strv_push(struct ag_strv *v, const char *s);
void ag_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *ag_ident(const char *s);
char *ag_upper(const char *s);

/* input.c */
int ag_read_versions(struct ag_ctx *ctx, const char *path);
int ag_read_want(struct ag_ctx *ctx, const char *path);
int ag_read_renames(struct ag_ctx *ctx, const char *path);
const char *ag_rename_to_version(const struct ag_ctx *ctx, const char *tag,
				 const char *kind, const char *neutral);
const char *ag_rename_to_neutral(const struct ag_ctx *ctx, const char *tag,
				 const char *kind, const char *vname);

/* layout.c */
int ag_build_version(struct ag_ctx *ctx, struct ag_version *v);
const struct ag_field *ag_find_field(const struct ag_record *r,
				     const char *path);

/* emit.c */
int ag_emit_c(const struct ag_ctx *ctx, const char *outdir);

/* report.c */
int ag_emit_json(const struct ag_ctx *ctx, FILE *f);
int ag_emit_diff(const struct ag_ctx *ctx, FILE *f);

#endif /* ABIGEN_H */

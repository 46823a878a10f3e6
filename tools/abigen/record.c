// SPDX-License-Identifier: MIT
/*
 * abigen: record flattening. Walks a struct or union with libclang and
 * records every member under its C access path ("hdr.seqNum"; members of
 * anonymous structs and unions by their own name) with its bit offset from
 * the start of the top-level record, size, bitfield width, array
 * dimensions, signedness and whether it overlaps others in a union.
 */
#include <stdlib.h>
#include <string.h>

#include "abigen.h"
#include "clang.h"

/* ---- record flattening ----------------------------------------------- */

struct flat {
	struct ag_record *r;
	size_t cap;
	CXType parent; /* type of the record being visited */
	uint64_t base; /* bit offset of that record */
	const char *prefix;
	bool in_union;
};

static bool int_kind(enum CXTypeKind k, bool *is_signed)
{
	switch (k) {
	case CXType_Bool:
	case CXType_Char_U:
	case CXType_UChar:
	case CXType_UShort:
	case CXType_UInt:
	case CXType_ULong:
	case CXType_ULongLong:
		*is_signed = false;
		return true;
	case CXType_Char_S:
	case CXType_SChar:
	case CXType_Short:
	case CXType_Int:
	case CXType_Long:
	case CXType_LongLong:
		*is_signed = true;
		return true;
	default:
		return false;
	}
}

/* Integer (or enum) type? Sets signedness. */
bool ag_type_is_int(CXType t, bool *is_signed)
{
	t = clang_getCanonicalType(t);
	if (t.kind == CXType_Enum)
		t = clang_getCanonicalType(clang_getEnumDeclIntegerType(
			clang_getTypeDeclaration(t)));
	return int_kind(t.kind, is_signed);
}

static struct ag_field *flat_add(struct flat *fl)
{
	struct ag_record *r = fl->r;

	if (r->nf == fl->cap) {
		fl->cap = fl->cap ? fl->cap * 2 : 32;
		r->f = realloc(r->f, fl->cap * sizeof(*r->f));
		if (!r->f)
			exit(1);
	}
	memset(&r->f[r->nf], 0, sizeof(r->f[0]));
	return &r->f[r->nf++];
}

static enum CXChildVisitResult flat_visit(CXCursor c, CXCursor p, void *d);

static void flatten(struct flat *fl, CXCursor rec, CXType type, uint64_t base,
		    const char *prefix, bool in_union)
{
	struct flat sub = *fl;

	sub.parent = type;
	sub.base = base;
	sub.prefix = prefix;
	sub.in_union =
		in_union || clang_getCursorKind(rec) == CXCursor_UnionDecl;
	clang_visitChildren(rec, flat_visit, &sub);
	fl->cap = sub.cap;
}

/* First named field below anonymous record @c: name and bit offset in @c. */
static bool first_leaf(CXCursor c, char **name, long long *off);

struct leaf_find {
	char *name;
	long long off;
};

static enum CXChildVisitResult leaf_visit(CXCursor c, CXCursor p, void *d)
{
	struct leaf_find *lf = d;
	enum CXCursorKind k = clang_getCursorKind(c);

	if (k == CXCursor_FieldDecl) {
		char *n = ag_cx_str(clang_getCursorSpelling(c));

		if (!*n) {
			free(n);
			return CXChildVisit_Continue;
		}
		lf->name = n;
		lf->off = clang_Cursor_getOffsetOfField(c);
		return CXChildVisit_Break;
	}
	if ((k == CXCursor_StructDecl || k == CXCursor_UnionDecl) &&
	    clang_Cursor_isAnonymousRecordDecl(c)) {
		long long inner;
		char *n;

		if (first_leaf(c, &n, &inner)) {
			lf->name = n;
			/* inner is relative to c; c's own offset is unknown */
			lf->off = -1;
			return CXChildVisit_Break;
		}
	}
	return CXChildVisit_Continue;
}

static bool first_leaf(CXCursor c, char **name, long long *off)
{
	struct leaf_find lf = {NULL, 0};

	clang_visitChildren(c, leaf_visit, &lf);
	*name = lf.name;
	*off = lf.off;
	return lf.name != NULL;
}

/* Bit offset of anonymous member record @c inside @parent. */
static long long anon_offset(CXType parent, CXCursor c)
{
	CXType t = clang_getCursorType(c);
	char *n;
	long long inner, in_parent, in_self;

	if (!first_leaf(c, &n, &inner))
		return -1;
	in_parent = clang_Type_getOffsetOf(parent, n);
	in_self = clang_Type_getOffsetOf(t, n);
	free(n);
	if (in_parent < 0 || in_self < 0)
		return -1;
	return in_parent - in_self;
}

static void fill_array(struct ag_field *f, CXType t)
{
	t = clang_getCanonicalType(t);
	f->count = 1;
	while (t.kind == CXType_ConstantArray) {
		long long n = clang_getArraySize(t);

		if (f->ndims < AG_MAX_DIMS)
			f->dims[f->ndims++] = (uint64_t)n;
		f->count *= (uint64_t)n;
		t = clang_getCanonicalType(clang_getArrayElementType(t));
	}
	f->elem_size = (uint64_t)clang_Type_getSizeOf(t);
	f->elem_int = ag_type_is_int(t, &f->is_signed);
}

static enum CXChildVisitResult flat_visit(CXCursor c, CXCursor p, void *d)
{
	struct flat *fl = d;
	enum CXCursorKind k = clang_getCursorKind(c);
	CXType t, ct;
	struct ag_field *f;
	long long off;
	char *name;

	if ((k == CXCursor_StructDecl || k == CXCursor_UnionDecl) &&
	    clang_Cursor_isAnonymousRecordDecl(c)) {
		off = anon_offset(fl->parent, c);
		if (off >= 0)
			flatten(fl, c, clang_getCursorType(c),
				fl->base + (uint64_t)off, fl->prefix,
				fl->in_union);
		return CXChildVisit_Continue;
	}
	if (k != CXCursor_FieldDecl)
		return CXChildVisit_Continue;
	name = ag_cx_str(clang_getCursorSpelling(c));
	if (!*name) { /* unnamed bitfield: padding */
		free(name);
		return CXChildVisit_Continue;
	}
	off = clang_Cursor_getOffsetOfField(c);
	t = clang_getCursorType(c);
	ct = clang_getCanonicalType(t);
	f = flat_add(fl);
	f->path = ag_fmt("%s%s", fl->prefix, name);
	f->type = ag_cx_str(clang_getTypeSpelling(t));
	f->bit_off = fl->base + (uint64_t)(off < 0 ? 0 : off);
	f->in_union = fl->in_union;
	f->size = ct.kind == CXType_IncompleteArray
			  ? 0
			  : (uint64_t)clang_Type_getSizeOf(ct);
	if (clang_Cursor_isBitField(c)) {
		f->kind = AG_F_INT;
		f->bit_width = (unsigned)clang_getFieldDeclBitWidth(c);
		ag_type_is_int(ct, &f->is_signed);
	} else if (ag_type_is_int(ct, &f->is_signed)) {
		f->kind = AG_F_INT;
		f->is_bool = ct.kind == CXType_Bool;
	} else if (ct.kind == CXType_ConstantArray && f->size) {
		f->kind = AG_F_ARRAY;
		fill_array(f, ct);
	} else if (ct.kind == CXType_IncompleteArray ||
		   ct.kind == CXType_ConstantArray) { /* also GNU [0] */
		f->kind = AG_F_FAM;
		f->elem_size = (uint64_t)clang_Type_getSizeOf(
			clang_getArrayElementType(ct));
		f->elem_int = ag_type_is_int(clang_getArrayElementType(ct),
					     &f->is_signed);
	} else if (ct.kind == CXType_Record) {
		char *pre = ag_fmt("%s%s.", fl->prefix, name);
		uint64_t base = f->bit_off;

		f->kind = AG_F_RECORD;
		/* f may move while flattening: do not use it after this;
		 * a named record inside a union is a union arm, and so is
		 * everything in it */
		flatten(fl, clang_getTypeDeclaration(ct), ct, base, pre,
			fl->in_union);
		free(pre);
	} else {
		f->kind = AG_F_OTHER;
	}
	free(name);
	return CXChildVisit_Continue;
}

struct ag_record *ag_record_build(CXType t, const char *name, char *spelling)
{
	struct ag_record *r;
	struct flat fl = {0};

	if (t.kind != CXType_Record || clang_Type_getSizeOf(t) < 0) {
		free(spelling);
		return NULL;
	}
	r = ag_alloc(sizeof(*r));
	r->name = ag_strdup(name);
	r->spelling = spelling;
	r->size = (uint64_t)clang_Type_getSizeOf(t);
	r->align = (uint64_t)clang_Type_getAlignOf(t);
	r->is_union = clang_getCursorKind(clang_getTypeDeclaration(t)) ==
		      CXCursor_UnionDecl;
	fl.r = r;
	flatten(&fl, clang_getTypeDeclaration(t), t, 0, "", false);
	return r;
}

const struct ag_field *ag_find_field(const struct ag_record *r,
				     const char *path)
{
	if (!r)
		return NULL;
	for (size_t i = 0; i < r->nf; i++)
		if (!strcmp(r->f[i].path, path))
			return &r->f[i];
	return NULL;
}

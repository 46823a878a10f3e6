/* SPDX-License-Identifier: MIT */
/* abigen: helpers shared by the libclang files (layout.c, record.c). */
#ifndef ABIGEN_CLANG_H
#define ABIGEN_CLANG_H

#include <stdbool.h>

#include <clang-c/Index.h>

#include "abigen.h"

/** ag_cx_str() - copy and dispose a libclang string. */
char *ag_cx_str(CXString s);

/** ag_type_is_int() - integer, bool or enum type? Sets signedness. */
bool ag_type_is_int(CXType t, bool *is_signed);

/**
 * ag_record_build() - flatten the record type @t found as @name (C
 * spelling @spelling, taken over). NULL if @t is not a complete record.
 */
struct ag_record *ag_record_build(CXType t, const char *name, char *spelling);

#endif /* ABIGEN_CLANG_H */

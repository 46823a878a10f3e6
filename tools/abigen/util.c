// SPDX-License-Identifier: MIT
/* abigen: small helpers (allocation that exits cleanly, strings). */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abigen.h"

void *ag_alloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p) {
		fprintf(stderr, "abigen: out of memory\n");
		exit(1);
	}
	return p;
}

char *ag_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = ag_alloc(n);

	memcpy(p, s, n);
	return p;
}

char *ag_fmt(const char *fmt, ...)
{
	va_list ap;
	int n;
	char *p;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	p = ag_alloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

void ag_strv_push(struct ag_strv *v, const char *s)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 8;
		char **nv = realloc(v->v, cap * sizeof(*nv));

		if (!nv) {
			fprintf(stderr, "abigen: out of memory\n");
			exit(1);
		}
		v->v = nv;
		v->cap = cap;
	}
	v->v[v->n++] = ag_strdup(s);
}

void ag_error(const char *fmt, ...)
{
	va_list ap;

	fputs("abigen: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* "535.54.03" -> "r535_54_03"; "hdr.seq" -> "hdr_seq" */
char *ag_ident(const char *s)
{
	char *p = ag_alloc(strlen(s) + 2), *q = p;

	if (isdigit((unsigned char)*s))
		*q++ = 'r';
	for (; *s; s++)
		*q++ = isalnum((unsigned char)*s) ? *s : '_';
	return p;
}

char *ag_upper(const char *s)
{
	char *p = ag_strdup(s);

	for (char *q = p; *q; q++)
		*q = (char)toupper((unsigned char)*q);
	return p;
}

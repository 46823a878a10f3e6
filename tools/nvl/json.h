/* SPDX-License-Identifier: MIT */
/*
 * DOC: a small JSON reader for nvl's line formats
 *
 * Parses one JSON text (RFC 8259) into a tree of nodes allocated with the
 * project's allocation hooks. Limits keep hostile input cheap: nesting depth
 * NVL_JSON_MAX_DEPTH, strings up to the input's length. Numbers are read in
 * the C locale. Used by the recorded time-series reader (record.c).
 */
#ifndef NVL_TOOL_JSON_H
#define NVL_TOOL_JSON_H

#include <stdbool.h>
#include <stddef.h>

#define NVL_JSON_MAX_DEPTH 16

enum nvl_json_type {
	NVL_JSON_NULL,
	NVL_JSON_BOOL,
	NVL_JSON_NUMBER,
	NVL_JSON_STRING,
	NVL_JSON_ARRAY,
	NVL_JSON_OBJECT,
};

/**
 * struct nvl_json - one value
 * @type: what it is
 * @key: member name when the parent is an object, else NULL
 * @str: NUL-terminated UTF-8 text of a string (may contain no NUL)
 * @num: a number's value
 * @boolean: a boolean's value
 * @kids: an array's elements or an object's members, in order
 * @nkids: how many
 */
struct nvl_json {
	enum nvl_json_type type;
	char *key;
	char *str;
	double num;
	bool boolean;
	struct nvl_json *kids;
	unsigned int nkids;
};

/**
 * nvl_json_parse() - parse @len bytes of @text as exactly one JSON value
 * @text: the input (need not be NUL-terminated)
 * @len: its length in bytes
 * @out: the tree, to free with nvl_json_free()
 *
 * Return: 0; -EINVAL with a message (and the byte column) through
 * nvl_error(); -ENOMEM.
 */
int nvl_json_parse(const char *text, size_t len, struct nvl_json **out);

/** nvl_json_free() - free a tree from nvl_json_parse() (NULL is fine). */
void nvl_json_free(struct nvl_json *j);

/** nvl_json_get() - an object's member named @key, or NULL. */
const struct nvl_json *nvl_json_get(const struct nvl_json *obj,
				    const char *key);

/** nvl_json_type_name() - "null", "number", ... for messages. */
const char *nvl_json_type_name(enum nvl_json_type t);

#endif

// SPDX-License-Identifier: MIT
/*
 * A recursive-descent JSON reader (RFC 8259 grammar), bounded in depth.
 * See json.h.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/log.h"
#include "json.h"

struct jp {
	const char *s;
	size_t len, pos;
};

static int fail(struct jp *p, const char *what)
{
	return nvl_error(-EINVAL, "column %zu: %s", p->pos + 1, what);
}

static void skip_ws(struct jp *p)
{
	while (p->pos < p->len &&
	       (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
		p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
		p->pos++;
}

static bool lit(struct jp *p, const char *word)
{
	size_t n = strlen(word);

	if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n))
		return false;
	p->pos += n;
	return true;
}

static int hex4(struct jp *p, unsigned int *out)
{
	unsigned int v = 0;

	if (p->len - p->pos < 4)
		return fail(p, "truncated \\u escape");
	for (int i = 0; i < 4; i++) {
		char c = p->s[p->pos++];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned int)(c - 'A' + 10);
		else
			return fail(p, "bad hex digit in \\u escape");
	}
	*out = v;
	return 0;
}

static size_t put_utf8(char *d, unsigned int cp)
{
	if (cp < 0x80) {
		d[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		d[0] = (char)(0xc0 | (cp >> 6));
		d[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		d[0] = (char)(0xe0 | (cp >> 12));
		d[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		d[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	d[0] = (char)(0xf0 | (cp >> 18));
	d[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	d[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	d[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* A string starting at the opening quote; the decoded text is never longer
 * than the escaped one, so one buffer of the remaining length suffices. */
static int parse_string(struct jp *p, char **out)
{
	size_t start = ++p->pos, end = start;
	char *d;
	size_t n = 0;
	int ret;

	while (end < p->len && p->s[end] != '"') {
		if (p->s[end] == '\\')
			end++;
		end++;
	}
	if (end >= p->len)
		return fail(p, "unterminated string");
	d = nvl_malloc(end - start + 1);
	if (!d)
		return -ENOMEM;
	while (p->s[p->pos] != '"') {
		unsigned char c = (unsigned char)p->s[p->pos];

		if (c < 0x20) {
			ret = fail(p, "control character in string");
			goto err;
		}
		if (c != '\\') {
			d[n++] = (char)c;
			p->pos++;
			continue;
		}
		p->pos++;
		c = (unsigned char)p->s[p->pos++];
		switch (c) {
		case '"':
		case '\\':
		case '/':
			d[n++] = (char)c;
			break;
		case 'b':
			d[n++] = '\b';
			break;
		case 'f':
			d[n++] = '\f';
			break;
		case 'n':
			d[n++] = '\n';
			break;
		case 'r':
			d[n++] = '\r';
			break;
		case 't':
			d[n++] = '\t';
			break;
		case 'u': {
			unsigned int cp, lo;

			ret = hex4(p, &cp);
			if (ret)
				goto err;
			if (cp >= 0xdc00 && cp <= 0xdfff) {
				ret = fail(p, "lone low surrogate");
				goto err;
			}
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (!lit(p, "\\u")) {
					ret = fail(p, "lone high surrogate");
					goto err;
				}
				ret = hex4(p, &lo);
				if (ret)
					goto err;
				if (lo < 0xdc00 || lo > 0xdfff) {
					ret = fail(p, "bad surrogate pair");
					goto err;
				}
				cp = 0x10000 + ((cp - 0xd800) << 10) +
				     (lo - 0xdc00);
			}
			if (cp == 0) {
				ret = fail(p, "NUL in string");
				goto err;
			}
			/* 6 escaped bytes always make at most 4 UTF-8 ones. */
			n += put_utf8(d + n, cp);
			break;
		}
		default:
			p->pos--;
			ret = fail(p, "bad escape in string");
			goto err;
		}
	}
	p->pos++;
	d[n] = 0;
	*out = d;
	return 0;
err:
	nvl_free(d);
	return ret;
}

static int parse_number(struct jp *p, double *out)
{
	size_t start = p->pos;
	char buf[64];

	if (p->pos < p->len && p->s[p->pos] == '-')
		p->pos++;
	if (p->pos >= p->len)
		return fail(p, "truncated number");
	if (p->s[p->pos] == '0') {
		p->pos++;
	} else if (p->s[p->pos] >= '1' && p->s[p->pos] <= '9') {
		while (p->pos < p->len && p->s[p->pos] >= '0' &&
		       p->s[p->pos] <= '9')
			p->pos++;
	} else {
		return fail(p, "bad number");
	}
	if (p->pos < p->len && p->s[p->pos] == '.') {
		p->pos++;
		if (p->pos >= p->len || p->s[p->pos] < '0' ||
		    p->s[p->pos] > '9')
			return fail(p, "bad fraction in number");
		while (p->pos < p->len && p->s[p->pos] >= '0' &&
		       p->s[p->pos] <= '9')
			p->pos++;
	}
	if (p->pos < p->len && (p->s[p->pos] == 'e' || p->s[p->pos] == 'E')) {
		p->pos++;
		if (p->pos < p->len &&
		    (p->s[p->pos] == '+' || p->s[p->pos] == '-'))
			p->pos++;
		if (p->pos >= p->len || p->s[p->pos] < '0' ||
		    p->s[p->pos] > '9')
			return fail(p, "bad exponent in number");
		while (p->pos < p->len && p->s[p->pos] >= '0' &&
		       p->s[p->pos] <= '9')
			p->pos++;
	}
	if (p->pos - start >= sizeof(buf))
		return fail(p, "number too long");
	memcpy(buf, p->s + start, p->pos - start);
	buf[p->pos - start] = 0;
	*out = strtod(buf, NULL);
	if (!isfinite(*out))
		return fail(p, "number out of range");
	return 0;
}

static int parse_value(struct jp *p, struct nvl_json *j, unsigned int depth);

static int add_kid(struct nvl_json *j, unsigned int *cap, struct nvl_json **kid)
{
	if (j->nkids == *cap) {
		unsigned int ncap = *cap ? *cap * 2 : 4;
		struct nvl_json *k =
			nvl_reallocarray(j->kids, ncap, sizeof(*k));

		if (!k)
			return -ENOMEM;
		j->kids = k;
		*cap = ncap;
	}
	*kid = &j->kids[j->nkids++];
	memset(*kid, 0, sizeof(**kid));
	return 0;
}

static int parse_container(struct jp *p, struct nvl_json *j, unsigned int depth)
{
	bool obj = p->s[p->pos] == '{';
	char close = obj ? '}' : ']';
	unsigned int cap = 0;
	int ret;

	if (depth >= NVL_JSON_MAX_DEPTH)
		return fail(p, "nested too deeply");
	j->type = obj ? NVL_JSON_OBJECT : NVL_JSON_ARRAY;
	p->pos++;
	skip_ws(p);
	if (p->pos < p->len && p->s[p->pos] == close) {
		p->pos++;
		return 0;
	}
	for (;;) {
		struct nvl_json *kid;
		char *key = NULL;

		skip_ws(p);
		if (obj) {
			if (p->pos >= p->len || p->s[p->pos] != '"')
				return fail(p, "expected a member name");
			ret = parse_string(p, &key);
			if (ret)
				return ret;
			skip_ws(p);
			if (p->pos >= p->len || p->s[p->pos] != ':') {
				nvl_free(key);
				return fail(p, "expected ':'");
			}
			p->pos++;
		}
		ret = add_kid(j, &cap, &kid);
		if (ret) {
			nvl_free(key);
			return ret;
		}
		kid->key = key;
		ret = parse_value(p, kid, depth + 1);
		if (ret)
			return ret;
		skip_ws(p);
		if (p->pos >= p->len)
			return fail(p, obj ? "unterminated object"
					   : "unterminated array");
		if (p->s[p->pos] == close) {
			p->pos++;
			return 0;
		}
		if (p->s[p->pos] != ',')
			return fail(p, obj ? "expected ',' or '}'"
					   : "expected ',' or ']'");
		p->pos++;
	}
}

static int parse_value(struct jp *p, struct nvl_json *j, unsigned int depth)
{
	skip_ws(p);
	if (p->pos >= p->len)
		return fail(p, "expected a value");
	switch (p->s[p->pos]) {
	case '{':
	case '[':
		return parse_container(p, j, depth);
	case '"':
		j->type = NVL_JSON_STRING;
		return parse_string(p, &j->str);
	case 't':
	case 'f':
		j->type = NVL_JSON_BOOL;
		j->boolean = p->s[p->pos] == 't';
		if (!lit(p, j->boolean ? "true" : "false"))
			return fail(p, "bad literal");
		return 0;
	case 'n':
		j->type = NVL_JSON_NULL;
		if (!lit(p, "null"))
			return fail(p, "bad literal");
		return 0;
	default:
		j->type = NVL_JSON_NUMBER;
		return parse_number(p, &j->num);
	}
}

static void free_kids(struct nvl_json *j)
{
	for (unsigned int i = 0; i < j->nkids; i++) {
		free_kids(&j->kids[i]);
		nvl_free(j->kids[i].key);
		nvl_free(j->kids[i].str);
	}
	nvl_free(j->kids);
}

void nvl_json_free(struct nvl_json *j)
{
	if (!j)
		return;
	free_kids(j);
	nvl_free(j->key);
	nvl_free(j->str);
	nvl_free(j);
}

int nvl_json_parse(const char *text, size_t len, struct nvl_json **out)
{
	struct jp p = {.s = text, .len = len};
	struct nvl_json *j = nvl_zalloc(sizeof(*j));
	int ret;

	*out = NULL;
	if (!j)
		return -ENOMEM;
	ret = parse_value(&p, j, 0);
	if (!ret) {
		skip_ws(&p);
		if (p.pos != p.len)
			ret = fail(&p, "trailing characters after the value");
	}
	if (ret) {
		nvl_json_free(j);
		return ret;
	}
	*out = j;
	return 0;
}

const struct nvl_json *nvl_json_get(const struct nvl_json *obj, const char *key)
{
	if (!obj || obj->type != NVL_JSON_OBJECT)
		return NULL;
	for (unsigned int i = 0; i < obj->nkids; i++)
		if (!strcmp(obj->kids[i].key, key))
			return &obj->kids[i];
	return NULL;
}

const char *nvl_json_type_name(enum nvl_json_type t)
{
	static const char *const names[] = {"null",   "boolean", "number",
					    "string", "array",	 "object"};

	return t <= NVL_JSON_OBJECT ? names[t] : "?";
}

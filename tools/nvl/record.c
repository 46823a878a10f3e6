// SPDX-License-Identifier: MIT
/*
 * Recorded time series: the JSON-lines writer and reader (see record.h and
 * docs/tools.md for the format).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "base/log.h"
#include "json.h"
#include "record.h"

/* The units of format version 1, in the order the header lists them. */
static const struct {
	const char *key, *unit;
} rec_units[] = {
	{"t", "s"},	      {"temp", "C"},	   {"power", "W"},
	{"power_limit", "W"}, {"gr_clock", "MHz"}, {"mem_clock", "MHz"},
	{"busy", "%"},	      {"vram", "MiB"},	   {"gtt", "MiB"},
};

/* Device sensors: member name, series kind, unit, legend word. */
static const struct {
	const char *key;
	enum nvl_rec_kind kind;
	const char *unit, *label;
} dev_fields[] = {
	{"temp", NVL_REC_TEMP, "C", "temperature"},
	{"power", NVL_REC_POWER, "W", "power"},
	{"power_limit", NVL_REC_POWER_LIMIT, "W", "power limit"},
	{"gr_clock", NVL_REC_GR_CLOCK, "MHz", "graphics clock"},
	{"mem_clock", NVL_REC_MEM_CLOCK, "MHz", "memory clock"},
};

static const double *dev_field(const struct nvl_rec_dev_sample *s,
			       unsigned int i)
{
	const double *f[] = {&s->temp_C, &s->power_W, &s->power_limit_W,
			     &s->gr_clock_MHz, &s->mem_clock_MHz};

	return f[i];
}

/* ---- writer ------------------------------------------------------------ */

static bool engine_name_ok(const char *s)
{
	size_t n = strnlen(s, NVL_REC_NAME_MAX);

	if (!n || n == NVL_REC_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-'))
			return false;
	}
	return true;
}

/*
 * A name reaches the terminal (plot --list): 1..63 bytes of well-formed
 * UTF-8 (no overlong form, surrogate or code point past U+10FFFF) without
 * a control character: C0, DEL, nor C1 (U+0080..U+009F, C2 80..C2 9F,
 * where U+009B is CSI). What is not UTF-8 is refused too: a lone 9B byte
 * is CSI to a terminal in 8-bit mode.
 */
static bool name_ok(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strnlen(s, NVL_REC_NAME_MAX);

	if (!n || n == NVL_REC_NAME_MAX)
		return false;
	for (size_t i = 0; i < n;) {
		unsigned int c = p[i], len, cp, min;

		if (c < 0x80) {
			if (c < 0x20 || c == 0x7f)
				return false;
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			len = 2, cp = c & 0x1f, min = 0x80;
		} else if (c >= 0xe0 && c <= 0xef) {
			len = 3, cp = c & 0x0f, min = 0x800;
		} else if (c >= 0xf0 && c <= 0xf4) {
			len = 4, cp = c & 0x07, min = 0x10000;
		} else {
			return false;
		}
		if (n - i < len)
			return false;
		for (unsigned int k = 1; k < len; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (p[i + k] & 0x3fu);
		}
		if (cp < min || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff) || cp <= 0x9f)
			return false;
		i += len;
	}
	return true;
}

static void put_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void put_num(FILE *f, double v)
{
	if (isnan(v))
		fputs("null", f);
	else
		fprintf(f, "%.6g", v);
}

static int end_line(struct nvl_rec_writer *w)
{
	fputc('\n', w->f);
	if (fflush(w->f) || ferror(w->f))
		return nvl_error(-EIO, "record: write failed");
	w->lines++;
	return 0;
}

static const struct nvl_rec_device *writer_dev(const struct nvl_rec_writer *w,
					       unsigned int id)
{
	for (unsigned int i = 0; i < w->ndev; i++)
		if (w->dev[i].id == id)
			return &w->dev[i];
	return NULL;
}

int nvl_rec_writer_init(struct nvl_rec_writer *w, FILE *f,
			const struct nvl_rec_device *devs, unsigned int ndev)
{
	memset(w, 0, sizeof(*w));
	if (!f || !devs || !ndev || ndev > NVL_REC_MAX_DEVICES)
		return nvl_error(-EINVAL, "record: %u devices (1..%d)", ndev,
				 NVL_REC_MAX_DEVICES);
	for (unsigned int i = 0; i < ndev; i++) {
		const struct nvl_rec_device *d = &devs[i];

		if (!name_ok(d->name))
			return nvl_error(-EINVAL, "record: device %u: bad name",
					 d->id);
		if (d->nengines > NVL_REC_MAX_ENGINES)
			return nvl_error(-EINVAL,
					 "record: device %u: %u engines "
					 "(at most %d)",
					 d->id, d->nengines,
					 NVL_REC_MAX_ENGINES);
		for (unsigned int j = 0; j < i; j++)
			if (devs[j].id == d->id)
				return nvl_error(-EINVAL,
						 "record: device id %u twice",
						 d->id);
		for (unsigned int e = 0; e < d->nengines; e++) {
			if (!engine_name_ok(d->engines[e]))
				return nvl_error(-EINVAL,
						 "record: device %u: bad "
						 "engine name",
						 d->id);
			for (unsigned int k = 0; k < e; k++)
				if (!strcmp(d->engines[k], d->engines[e]))
					return nvl_error(-EINVAL,
							 "record: device %u: "
							 "engine '%s' twice",
							 d->id, d->engines[e]);
		}
	}
	w->f = f;
	w->ndev = ndev;
	memcpy(w->dev, devs, ndev * sizeof(*devs));
	w->last_t = 0;
	fprintf(f, "{\"nvl_record\":%d,\"units\":{", NVL_REC_VERSION);
	for (size_t i = 0; i < sizeof(rec_units) / sizeof(rec_units[0]); i++)
		fprintf(f, "%s\"%s\":\"%s\"", i ? "," : "", rec_units[i].key,
			rec_units[i].unit);
	fputs("},\"devices\":[", f);
	for (unsigned int i = 0; i < ndev; i++) {
		fprintf(f, "%s{\"id\":%u,\"name\":", i ? "," : "", devs[i].id);
		put_str(f, devs[i].name);
		fputs(",\"engines\":[", f);
		for (unsigned int e = 0; e < devs[i].nengines; e++) {
			if (e)
				fputc(',', f);
			put_str(f, devs[i].engines[e]);
		}
		fputs("]}", f);
	}
	fputs("]}", f);
	return end_line(w);
}

int nvl_rec_write_client(struct nvl_rec_writer *w,
			 const struct nvl_rec_client *c)
{
	if (!writer_dev(w, c->device))
		return nvl_error(-EINVAL, "record: client %u: no device %u",
				 c->id, c->device);
	if (!name_ok(c->name))
		return nvl_error(-EINVAL, "record: client %u: bad name", c->id);
	if (w->nclients == NVL_REC_MAX_CLIENTS)
		return nvl_error(-EINVAL, "record: more than %d clients",
				 NVL_REC_MAX_CLIENTS);
	for (unsigned int i = 0; i < w->nclients; i++)
		if (w->clients[i].id == c->id)
			return nvl_error(-EINVAL,
					 "record: client %u declared twice",
					 c->id);
	w->clients[w->nclients++] = *c;
	fprintf(w->f, "{\"client\":{\"id\":%u,\"device\":%u,\"name\":", c->id,
		c->device);
	put_str(w->f, c->name);
	fputs("}}", w->f);
	return end_line(w);
}

static bool value_ok(double v, bool may_be_negative)
{
	return isnan(v) || (isfinite(v) && (may_be_negative || v >= 0));
}

static const struct nvl_rec_client *
writer_client(const struct nvl_rec_writer *w, unsigned int id)
{
	for (unsigned int i = 0; i < w->nclients; i++)
		if (w->clients[i].id == id)
			return &w->clients[i];
	return NULL;
}

static void put_busy(FILE *f, const struct nvl_rec_device *d,
		     const double *busy)
{
	fputs(",\"busy\":{", f);
	for (unsigned int e = 0; e < d->nengines; e++) {
		fprintf(f, "%s\"%s\":", e ? "," : "", d->engines[e]);
		put_num(f, busy[e]);
	}
	fputc('}', f);
}

int nvl_rec_write_sample(struct nvl_rec_writer *w, double t_s,
			 const struct nvl_rec_dev_sample *devs,
			 const struct nvl_rec_client_sample *clients,
			 unsigned int nclients)
{
	if (!isfinite(t_s) || t_s < w->last_t)
		return nvl_error(-EINVAL, "record: time %g s before %g s", t_s,
				 w->last_t);
	for (unsigned int i = 0; i < w->ndev; i++) {
		for (unsigned int k = 0; k < 5; k++)
			if (!value_ok(*dev_field(&devs[i], k), k == 0))
				return nvl_error(
					-EINVAL, "record: device %u: bad %s",
					w->dev[i].id, dev_fields[k].key);
		for (unsigned int e = 0; e < w->dev[i].nengines; e++)
			if (!value_ok(devs[i].busy_pct[e], false))
				return nvl_error(-EINVAL,
						 "record: device %u: bad busy",
						 w->dev[i].id);
	}
	for (unsigned int i = 0; i < nclients; i++) {
		const struct nvl_rec_client *c =
			writer_client(w, clients[i].id);
		const struct nvl_rec_device *d;

		if (!c)
			return nvl_error(-EINVAL,
					 "record: client %u not declared",
					 clients[i].id);
		for (unsigned int j = 0; j < i; j++)
			if (clients[j].id == clients[i].id)
				return nvl_error(-EINVAL,
						 "record: client %u twice in "
						 "a sample",
						 c->id);
		d = writer_dev(w, c->device);
		for (unsigned int e = 0; e < d->nengines; e++)
			if (!value_ok(clients[i].busy_pct[e], false))
				return nvl_error(-EINVAL,
						 "record: client %u: bad busy",
						 c->id);
		if (!value_ok(clients[i].vram_MiB, false) ||
		    !value_ok(clients[i].gtt_MiB, false))
			return nvl_error(-EINVAL,
					 "record: client %u: bad memory",
					 c->id);
	}
	w->last_t = t_s;
	fprintf(w->f, "{\"t\":%.9g,\"devices\":[", t_s);
	for (unsigned int i = 0; i < w->ndev; i++) {
		fprintf(w->f, "%s{\"id\":%u", i ? "," : "", w->dev[i].id);
		for (unsigned int k = 0; k < 5; k++) {
			fprintf(w->f, ",\"%s\":", dev_fields[k].key);
			put_num(w->f, *dev_field(&devs[i], k));
		}
		put_busy(w->f, &w->dev[i], devs[i].busy_pct);
		fputc('}', w->f);
	}
	fputs("],\"clients\":[", w->f);
	for (unsigned int i = 0; i < nclients; i++) {
		const struct nvl_rec_client *c =
			writer_client(w, clients[i].id);

		fprintf(w->f, "%s{\"id\":%u", i ? "," : "", c->id);
		put_busy(w->f, writer_dev(w, c->device), clients[i].busy_pct);
		fputs(",\"vram\":", w->f);
		put_num(w->f, clients[i].vram_MiB);
		fputs(",\"gtt\":", w->f);
		put_num(w->f, clients[i].gtt_MiB);
		fputc('}', w->f);
	}
	fputs("]}", w->f);
	return end_line(w);
}

void nvl_rec_dev_sample_unknown(struct nvl_rec_dev_sample *s)
{
	s->temp_C = s->power_W = s->power_limit_W = NAN;
	s->gr_clock_MHz = s->mem_clock_MHz = NAN;
	for (unsigned int e = 0; e < NVL_REC_MAX_ENGINES; e++)
		s->busy_pct[e] = NAN;
}

void nvl_rec_client_sample_unknown(struct nvl_rec_client_sample *s,
				   unsigned int id)
{
	s->id = id;
	s->vram_MiB = s->gtt_MiB = NAN;
	for (unsigned int e = 0; e < NVL_REC_MAX_ENGINES; e++)
		s->busy_pct[e] = NAN;
}

/* ---- reader ------------------------------------------------------------ */

struct rd {
	struct nvl_record *r;
	const char *name;
	unsigned long line;
};

static int bad(struct rd *rd, const char *fmt, ...) NVL_PRINTF(2, 3);
static int bad(struct rd *rd, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return nvl_error(-EINVAL, "%s:%lu: %s", rd->name, rd->line, why);
}

static int want(struct rd *rd, const struct nvl_json *obj, const char *key,
		enum nvl_json_type type, const struct nvl_json **out)
{
	const struct nvl_json *j = nvl_json_get(obj, key);

	if (!j)
		return bad(rd, "missing \"%s\"", key);
	if (j->type != type)
		return bad(rd, "\"%s\" is a %s, expected a %s", key,
			   nvl_json_type_name(j->type),
			   nvl_json_type_name(type));
	*out = j;
	return 0;
}

static int want_id(struct rd *rd, const struct nvl_json *obj, const char *key,
		   unsigned int *out)
{
	const struct nvl_json *j;
	int ret = want(rd, obj, key, NVL_JSON_NUMBER, &j);

	if (ret)
		return ret;
	if (j->num < 0 || j->num > 1e9 || j->num != floor(j->num))
		return bad(rd, "\"%s\" is not an id (0..1e9): %g", key, j->num);
	*out = (unsigned int)j->num;
	return 0;
}

static int want_name(struct rd *rd, const struct nvl_json *obj, const char *key,
		     char *out)
{
	const struct nvl_json *j;
	int ret = want(rd, obj, key, NVL_JSON_STRING, &j);

	if (ret)
		return ret;
	if (!name_ok(j->str))
		return bad(rd,
			   "\"%s\" must be 1..%d bytes of UTF-8 without "
			   "control characters",
			   key, NVL_REC_NAME_MAX - 1);
	strcpy(out, j->str);
	return 0;
}

static int add_series(struct rd *rd, enum nvl_rec_kind kind, unsigned int dev,
		      unsigned int client, const char *unit, const char *key,
		      const char *label)
{
	struct nvl_record *r = rd->r;
	struct nvl_rec_series *s, *ns;
	size_t cap = r->cap;

	ns = nvl_reallocarray(r->series, r->nseries + 1, sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	r->series = ns;
	s = &ns[r->nseries];
	memset(s, 0, sizeof(*s));
	s->v = nvl_calloc(cap, sizeof(double));
	if (!s->v)
		return -ENOMEM;
	for (size_t i = 0; i < cap; i++)
		s->v[i] = NAN;
	s->kind = kind;
	s->device = dev;
	s->client = client;
	s->unit = unit;
	snprintf(s->key, sizeof(s->key), "%s", key);
	snprintf(s->label, sizeof(s->label), "%s", label);
	r->nseries++;
	return 0;
}

static int find_dev(const struct nvl_record *r, unsigned int id)
{
	for (unsigned int i = 0; i < r->ndev; i++)
		if (r->dev[i].id == id)
			return (int)i;
	return -1;
}

static int find_client(const struct nvl_record *r, unsigned int id)
{
	for (unsigned int i = 0; i < r->nclients; i++)
		if (r->clients[i].id == id)
			return (int)i;
	return -1;
}

static int find_engine(const struct nvl_rec_device *d, const char *name)
{
	for (unsigned int e = 0; e < d->nengines; e++)
		if (!strcmp(d->engines[e], name))
			return (int)e;
	return -1;
}

static int read_device(struct rd *rd, const struct nvl_json *jd,
		       struct nvl_rec_device *d)
{
	const struct nvl_json *je;
	int ret;

	if (jd->type != NVL_JSON_OBJECT)
		return bad(rd, "a device is a %s, expected an object",
			   nvl_json_type_name(jd->type));
	ret = want_id(rd, jd, "id", &d->id);
	if (!ret)
		ret = want_name(rd, jd, "name", d->name);
	if (!ret)
		ret = want(rd, jd, "engines", NVL_JSON_ARRAY, &je);
	if (ret)
		return ret;
	if (je->nkids > NVL_REC_MAX_ENGINES)
		return bad(rd, "device %u: %u engines (at most %d)", d->id,
			   je->nkids, NVL_REC_MAX_ENGINES);
	for (unsigned int e = 0; e < je->nkids; e++) {
		const struct nvl_json *n = &je->kids[e];

		if (n->type != NVL_JSON_STRING || !engine_name_ok(n->str))
			return bad(rd,
				   "device %u: engine %u is not a name "
				   "([A-Za-z0-9_-], 1..%d bytes)",
				   d->id, e, NVL_REC_NAME_MAX - 1);
		if (find_engine(d, n->str) >= 0)
			return bad(rd, "device %u: engine '%s' twice", d->id,
				   n->str);
		strcpy(d->engines[d->nengines++], n->str);
	}
	return 0;
}

static int read_header(struct rd *rd, const struct nvl_json *j)
{
	struct nvl_record *r = rd->r;
	const struct nvl_json *v, *units, *devs;
	int ret;

	ret = want(rd, j, "nvl_record", NVL_JSON_NUMBER, &v);
	if (ret)
		return ret;
	if (v->num != NVL_REC_VERSION)
		return bad(rd, "format version %g, this nvl reads %d", v->num,
			   NVL_REC_VERSION);
	ret = want(rd, j, "units", NVL_JSON_OBJECT, &units);
	if (!ret)
		ret = want(rd, j, "devices", NVL_JSON_ARRAY, &devs);
	if (ret)
		return ret;
	for (size_t i = 0; i < sizeof(rec_units) / sizeof(rec_units[0]); i++) {
		const struct nvl_json *u;

		ret = want(rd, units, rec_units[i].key, NVL_JSON_STRING, &u);
		if (ret)
			return ret;
		if (strcmp(u->str, rec_units[i].unit))
			return bad(rd,
				   "unit of \"%s\" is \"%s\", expected "
				   "\"%s\"",
				   rec_units[i].key, u->str, rec_units[i].unit);
	}
	if (!devs->nkids || devs->nkids > NVL_REC_MAX_DEVICES)
		return bad(rd, "%u devices (1..%d)", devs->nkids,
			   NVL_REC_MAX_DEVICES);
	for (unsigned int i = 0; i < devs->nkids; i++) {
		struct nvl_rec_device *d = &r->dev[i];

		ret = read_device(rd, &devs->kids[i], d);
		if (ret)
			return ret;
		if (find_dev(r, d->id) >= 0)
			return bad(rd, "device id %u twice", d->id);
		r->ndev++;
	}
	for (unsigned int i = 0; i < r->ndev; i++) {
		const struct nvl_rec_device *d = &r->dev[i];
		char key[96], label[160];

		for (unsigned int k = 0; k < 5; k++) {
			snprintf(key, sizeof(key), "gpu%u.%s", d->id,
				 dev_fields[k].key);
			snprintf(label, sizeof(label), "GPU%u %s", d->id,
				 dev_fields[k].label);
			ret = add_series(rd, dev_fields[k].kind, i, 0,
					 dev_fields[k].unit, key, label);
			if (ret)
				return ret;
		}
		for (unsigned int e = 0; e < d->nengines; e++) {
			snprintf(key, sizeof(key), "gpu%u.busy.%s", d->id,
				 d->engines[e]);
			snprintf(label, sizeof(label), "GPU%u %s", d->id,
				 d->engines[e]);
			ret = add_series(rd, NVL_REC_ENGINE_BUSY, i, 0, "%",
					 key, label);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static int read_client(struct rd *rd, const struct nvl_json *jc)
{
	struct nvl_record *r = rd->r;
	struct nvl_rec_client c = {0};
	const struct nvl_rec_device *d;
	char key[96], label[160];
	int ret, di;

	if (jc->type != NVL_JSON_OBJECT)
		return bad(rd, "\"client\" is a %s, expected an object",
			   nvl_json_type_name(jc->type));
	ret = want_id(rd, jc, "id", &c.id);
	if (!ret)
		ret = want_id(rd, jc, "device", &c.device);
	if (!ret)
		ret = want_name(rd, jc, "name", c.name);
	if (ret)
		return ret;
	di = find_dev(r, c.device);
	if (di < 0)
		return bad(rd, "client %u: no device %u in the header", c.id,
			   c.device);
	if (find_client(r, c.id) >= 0)
		return bad(rd, "client %u declared twice", c.id);
	if (r->nclients == NVL_REC_MAX_CLIENTS)
		return bad(rd, "more than %d clients", NVL_REC_MAX_CLIENTS);
	d = &r->dev[di];
	for (unsigned int e = 0; e < d->nengines; e++) {
		snprintf(key, sizeof(key), "client%u.busy.%s", c.id,
			 d->engines[e]);
		snprintf(label, sizeof(label), "%u %s %s", c.id, c.name,
			 d->engines[e]);
		ret = add_series(rd, NVL_REC_CLIENT_BUSY, (unsigned int)di,
				 c.id, "%", key, label);
		if (ret)
			return ret;
	}
	snprintf(key, sizeof(key), "client%u.vram", c.id);
	snprintf(label, sizeof(label), "%u %s VRAM", c.id, c.name);
	ret = add_series(rd, NVL_REC_CLIENT_VRAM, (unsigned int)di, c.id, "MiB",
			 key, label);
	if (ret)
		return ret;
	snprintf(key, sizeof(key), "client%u.gtt", c.id);
	snprintf(label, sizeof(label), "%u %s GTT", c.id, c.name);
	ret = add_series(rd, NVL_REC_CLIENT_GTT, (unsigned int)di, c.id, "MiB",
			 key, label);
	if (ret)
		return ret;
	r->clients[r->nclients++] = c;
	return 0;
}

static struct nvl_rec_series *series_of(struct nvl_record *r,
					enum nvl_rec_kind kind,
					unsigned int dev, unsigned int client,
					unsigned int nth)
{
	for (unsigned int i = 0; i < r->nseries; i++) {
		struct nvl_rec_series *s = &r->series[i];

		if (s->kind != kind || s->device != dev ||
		    (kind >= NVL_REC_CLIENT_BUSY && s->client != client))
			continue;
		if (!nth--)
			return s;
	}
	return NULL;
}

/* A value: number (not negative unless @neg) or null, or absent. */
static int read_value(struct rd *rd, const struct nvl_json *obj,
		      const char *key, bool neg, double *out)
{
	const struct nvl_json *j = nvl_json_get(obj, key);

	*out = NAN;
	if (!j || j->type == NVL_JSON_NULL)
		return 0;
	if (j->type != NVL_JSON_NUMBER)
		return bad(rd, "\"%s\" is a %s, expected a number or null", key,
			   nvl_json_type_name(j->type));
	if (!neg && j->num < 0)
		return bad(rd, "\"%s\" is negative: %g", key, j->num);
	*out = j->num;
	return 0;
}

static int read_busy(struct rd *rd, const struct nvl_json *obj,
		     const struct nvl_rec_device *d, enum nvl_rec_kind kind,
		     unsigned int di, unsigned int client, size_t n)
{
	const struct nvl_json *b = nvl_json_get(obj, "busy");

	if (!b || b->type == NVL_JSON_NULL)
		return 0;
	if (b->type != NVL_JSON_OBJECT)
		return bad(rd, "\"busy\" is a %s, expected an object",
			   nvl_json_type_name(b->type));
	for (unsigned int k = 0; k < b->nkids; k++) {
		int e = find_engine(d, b->kids[k].key);
		double v;
		int ret;

		if (e < 0)
			return bad(rd, "device %u has no engine \"%s\"", d->id,
				   b->kids[k].key);
		ret = read_value(rd, b, b->kids[k].key, false, &v);
		if (ret)
			return ret;
		series_of(rd->r, kind, di, client, (unsigned int)e)->v[n] = v;
	}
	return 0;
}

/* Room for one more sample in t[] and every series. */
static int grow(struct nvl_record *r)
{
	size_t ncap = r->cap * 2;
	double *t;

	if (r->nsamples < r->cap)
		return 0;
	t = nvl_reallocarray(r->t, ncap, sizeof(double));
	if (!t)
		return -ENOMEM;
	r->t = t;
	for (unsigned int i = 0; i < r->nseries; i++) {
		double *v =
			nvl_reallocarray(r->series[i].v, ncap, sizeof(double));

		if (!v)
			return -ENOMEM;
		r->series[i].v = v;
	}
	/* Only now: a failure above leaves cap as it was, and the next
	 * attempt reallocates the same sizes again. */
	r->cap = ncap;
	return 0;
}

static int read_sample(struct rd *rd, const struct nvl_json *j)
{
	struct nvl_record *r = rd->r;
	const struct nvl_json *t, *devs, *cls;
	bool seen[NVL_REC_MAX_DEVICES] = {0};
	size_t n = r->nsamples;
	int ret;

	ret = want(rd, j, "t", NVL_JSON_NUMBER, &t);
	if (!ret)
		ret = want(rd, j, "devices", NVL_JSON_ARRAY, &devs);
	if (ret)
		return ret;
	if (t->num < 0 || (n && t->num < r->t[n - 1]))
		return bad(rd, "time %g s goes back (previous %g s)", t->num,
			   n ? r->t[n - 1] : 0.0);
	cls = nvl_json_get(j, "clients");
	if (cls && cls->type != NVL_JSON_ARRAY)
		return bad(rd, "\"clients\" is a %s, expected an array",
			   nvl_json_type_name(cls->type));
	ret = grow(r);
	if (ret)
		return ret;
	/* A failure below leaves values in row n, which is not counted and
	 * is overwritten (every series is reset to NAN) by the next sample. */
	for (unsigned int i = 0; i < r->nseries; i++)
		r->series[i].v[n] = NAN;
	r->t[n] = t->num;
	for (unsigned int i = 0; i < devs->nkids; i++) {
		const struct nvl_json *jd = &devs->kids[i];
		unsigned int id;
		int di;

		if (jd->type != NVL_JSON_OBJECT)
			return bad(rd,
				   "a device sample is a %s, expected an "
				   "object",
				   nvl_json_type_name(jd->type));
		ret = want_id(rd, jd, "id", &id);
		if (ret)
			return ret;
		di = find_dev(r, id);
		if (di < 0)
			return bad(rd, "no device %u in the header", id);
		if (seen[di])
			return bad(rd, "device %u twice in a sample", id);
		seen[di] = true;
		for (unsigned int k = 0; k < 5; k++) {
			double v;

			ret = read_value(rd, jd, dev_fields[k].key, k == 0, &v);
			if (ret)
				return ret;
			series_of(r, dev_fields[k].kind, (unsigned int)di, 0, 0)
				->v[n] = v;
		}
		ret = read_busy(rd, jd, &r->dev[di], NVL_REC_ENGINE_BUSY,
				(unsigned int)di, 0, n);
		if (ret)
			return ret;
	}
	for (unsigned int i = 0; cls && i < cls->nkids; i++) {
		const struct nvl_json *jc = &cls->kids[i];
		struct nvl_rec_series *s;
		unsigned int id;
		int ci;
		double v;

		if (jc->type != NVL_JSON_OBJECT)
			return bad(rd,
				   "a client sample is a %s, expected an "
				   "object",
				   nvl_json_type_name(jc->type));
		ret = want_id(rd, jc, "id", &id);
		if (ret)
			return ret;
		ci = find_client(r, id);
		if (ci < 0)
			return bad(rd,
				   "client %u not declared before its "
				   "sample",
				   id);
		for (unsigned int k = 0; k < i; k++) {
			const struct nvl_json *o =
				nvl_json_get(&cls->kids[k], "id");

			if (o && o->num == id)
				return bad(rd, "client %u twice in a sample",
					   id);
		}
		unsigned int di =
			(unsigned int)find_dev(r, r->clients[ci].device);

		ret = read_busy(rd, jc, &r->dev[di], NVL_REC_CLIENT_BUSY, di,
				id, n);
		if (ret)
			return ret;
		ret = read_value(rd, jc, "vram", false, &v);
		if (ret)
			return ret;
		s = series_of(r, NVL_REC_CLIENT_VRAM, di, id, 0);
		s->v[n] = v;
		ret = read_value(rd, jc, "gtt", false, &v);
		if (ret)
			return ret;
		s = series_of(r, NVL_REC_CLIENT_GTT, di, id, 0);
		s->v[n] = v;
	}
	r->nsamples++;
	return 0;
}

static int read_line(struct rd *rd, const char *s, size_t len)
{
	struct nvl_json *j;
	int ret;

	if (len > NVL_REC_LINE_MAX)
		return bad(rd, "line longer than %d bytes", NVL_REC_LINE_MAX);
	ret = nvl_json_parse(s, len, &j);
	if (ret == -EINVAL) {
		char why[256], suffix[64];
		size_t n, k;

		/* the inner message without nvl_error()'s " (strerror)" */
		snprintf(why, sizeof(why), "%s", nvl_error_msg());
		snprintf(suffix, sizeof(suffix), " (%s)", strerror(EINVAL));
		n = strlen(why);
		k = strlen(suffix);
		if (n >= k && !strcmp(why + n - k, suffix))
			why[n - k] = 0;
		return bad(rd, "not JSON: %s", why);
	}
	if (ret)
		return ret;
	if (j->type != NVL_JSON_OBJECT) {
		ret = bad(rd, "a line is a %s, expected an object",
			  nvl_json_type_name(j->type));
	} else if (rd->line == 1 || !rd->r->ndev) {
		if (!nvl_json_get(j, "nvl_record"))
			ret = bad(rd, "not an nvl recording: the first line "
				      "has no \"nvl_record\"");
		else
			ret = read_header(rd, j);
	} else if (nvl_json_get(j, "nvl_record")) {
		ret = bad(rd, "a second header");
	} else if (nvl_json_get(j, "client")) {
		ret = read_client(rd, nvl_json_get(j, "client"));
	} else if (nvl_json_get(j, "t")) {
		ret = read_sample(rd, j);
	} else {
		ret = bad(rd, "neither a client nor a sample (no \"client\" "
			      "or \"t\")");
	}
	nvl_json_free(j);
	return ret;
}

void nvl_record_free(struct nvl_record *r)
{
	if (!r)
		return;
	for (unsigned int i = 0; i < r->nseries; i++)
		nvl_free(r->series[i].v);
	nvl_free(r->series);
	nvl_free(r->t);
	nvl_free(r);
}

int nvl_record_parse(const char *buf, size_t len, const char *name,
		     struct nvl_record **out)
{
	struct rd rd = {.name = name ? name : "<input>"};
	size_t pos = 0;
	int ret = 0;

	*out = NULL;
	rd.r = nvl_zalloc(sizeof(*rd.r));
	if (!rd.r)
		return -ENOMEM;
	rd.r->cap = 16;
	rd.r->t = nvl_calloc(rd.r->cap, sizeof(double));
	if (!rd.r->t) {
		nvl_free(rd.r);
		return -ENOMEM;
	}
	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - buf) : len;
		size_t l = end - pos;

		rd.line++;
		if (l && buf[pos + l - 1] == '\r')
			l--;
		if (l) {
			ret = read_line(&rd, buf + pos, l);
			if (ret)
				break;
		} else if (rd.line == 1) {
			ret = bad(&rd, "empty first line (expected the "
				       "header)");
			break;
		}
		pos = end + 1;
	}
	if (!ret && !rd.r->ndev) {
		rd.line = rd.line ? rd.line : 1;
		ret = bad(&rd, "no header: an empty recording");
	}
	if (ret) {
		nvl_record_free(rd.r);
		return ret;
	}
	*out = rd.r;
	return 0;
}

/*
 * nvl run records 20 samples a second: a day of one device and a few
 * clients is about 0.4 GiB. /dev/zero, a FIFO that never ends or a huge
 * file is refused, not read until memory runs out.
 */
#define REC_FILE_MAX (1ull << 30)

int nvl_record_load(const char *path, struct nvl_record **out)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	size_t cap = 1 << 16, len = 0;
	struct stat st;
	char *buf;
	int ret;

	*out = NULL;
	if (!f)
		return nvl_error(-errno, "%s: %s", path, strerror(errno));
	if (!fstat(fileno(f), &st) && S_ISREG(st.st_mode) &&
	    (unsigned long long)st.st_size > REC_FILE_MAX) {
		if (f != stdin)
			fclose(f);
		return nvl_error(-EFBIG, "%s: %lld bytes, more than %llu MiB",
				 path, (long long)st.st_size,
				 REC_FILE_MAX >> 20);
	}
	buf = nvl_malloc(cap);
	while (buf) {
		size_t n = fread(buf + len, 1, cap - len, f);

		len += n;
		if (len < cap)
			break;
		if (len >= REC_FILE_MAX) {
			nvl_free(buf);
			if (f != stdin)
				fclose(f);
			return nvl_error(-EFBIG, "%s: more than %llu MiB", path,
					 REC_FILE_MAX >> 20);
		}
		char *nb = nvl_realloc(buf, cap * 2);

		if (!nb) {
			nvl_free(buf);
			buf = NULL;
			break;
		}
		buf = nb;
		cap *= 2;
	}
	ret = buf && ferror(f) ? nvl_error(-EIO, "%s: read error", path) : 0;
	if (f != stdin)
		fclose(f);
	if (!buf)
		return nvl_error(-ENOMEM, "%s: out of memory", path);
	if (!ret)
		ret = nvl_record_parse(buf, len, path, out);
	nvl_free(buf);
	return ret;
}

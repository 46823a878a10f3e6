// SPDX-License-Identifier: MIT
/*
 * TEST: the recorded time-series format (tools/nvl/record.h, docs/tools.md):
 * writer -> reader round trip with nulls and clients appearing later, the
 * writer's refusals (nothing written), the reader's refusals of malformed
 * lines with their line numbers, growth past the first allocation, and
 * allocation failures in the reader.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "t.h"
#include "base/log.h"
#include "json.h"
#include "record.h"

static const struct nvl_rec_device dev0 = {
	.id = 0, .name = "model GA102", .nengines = 2, .engines = {"gr", "ce"}};

struct buf {
	char *data;
	size_t len;
	FILE *f;
};

static void buf_open(struct buf *b)
{
	memset(b, 0, sizeof(*b));
	b->f = open_memstream(&b->data, &b->len);
	assert_non_null(b->f);
}

static void buf_close(struct buf *b)
{
	fclose(b->f);
	free(b->data);
}

static const struct nvl_rec_series *find(const struct nvl_record *r,
					 const char *key)
{
	for (unsigned int i = 0; i < r->nseries; i++)
		if (!strcmp(r->series[i].key, key))
			return &r->series[i];
	return NULL;
}

/* nsamples samples; client 7 appears at sample 2; power unknown at 1. */
static void write_run(struct buf *b, unsigned int nsamples)
{
	struct nvl_rec_writer w;
	struct nvl_rec_client c = {.id = 7, .device = 0, .name = "sparse"};

	assert_int_equal(nvl_rec_writer_init(&w, b->f, &dev0, 1), 0);
	for (unsigned int i = 0; i < nsamples; i++) {
		struct nvl_rec_dev_sample d;
		struct nvl_rec_client_sample cs;

		nvl_rec_dev_sample_unknown(&d);
		d.temp_C = 40 + i;
		d.power_W = i == 1 ? NAN : 100 + 2 * i;
		d.power_limit_W = 250;
		d.gr_clock_MHz = 1500;
		d.mem_clock_MHz = 9501;
		d.busy_pct[0] = 10.0 * (i % 10);
		d.busy_pct[1] = 5;
		if (i == 2)
			assert_int_equal(nvl_rec_write_client(&w, &c), 0);
		nvl_rec_client_sample_unknown(&cs, 7);
		cs.busy_pct[0] = 8.0 * (i % 10);
		cs.vram_MiB = 64 * i;
		cs.gtt_MiB = 4;
		assert_int_equal(
			nvl_rec_write_sample(&w, 0.25 * i, &d, &cs, i >= 2), 0);
	}
	fflush(b->f);
}

static void round_trip(void **state)
{
	struct nvl_record *r;
	const struct nvl_rec_series *s;
	struct buf b;

	buf_open(&b);
	write_run(&b, 5);
	assert_int_equal(nvl_record_parse(b.data, b.len, "run", &r), 0);
	assert_int_equal(r->ndev, 1);
	assert_int_equal(r->nclients, 1);
	assert_string_equal(r->clients[0].name, "sparse");
	assert_int_equal(r->nsamples, 5);
	/* 5 sensors + 2 engines; client: 2 engines + vram + gtt */
	assert_int_equal(r->nseries, 11);
	assert_true(fabs(r->t[4] - 1.0) < 1e-9);
	s = find(r, "gpu0.temp");
	assert_non_null(s);
	assert_string_equal(s->unit, "C");
	assert_true(s->v[3] == 43);
	s = find(r, "gpu0.power");
	assert_true(isnan(s->v[1]) && s->v[2] == 104);
	s = find(r, "gpu0.busy.gr");
	assert_true(s->v[4] == 40 && !strcmp(s->unit, "%"));
	s = find(r, "client7.busy.gr");
	assert_non_null(s);
	/* before the client existed: absent, not zero */
	assert_true(isnan(s->v[0]) && isnan(s->v[1]) && s->v[3] == 24);
	s = find(r, "client7.busy.ce");
	assert_true(isnan(s->v[3]));
	s = find(r, "client7.vram");
	assert_true(s->v[4] == 256 && !strcmp(s->unit, "MiB"));
	nvl_record_free(r);
	buf_close(&b);
}

/* More samples than the reader's first allocation holds. */
static void many_samples(void **state)
{
	struct nvl_record *r;
	struct buf b;

	buf_open(&b);
	write_run(&b, 300);
	assert_int_equal(nvl_record_parse(b.data, b.len, "run", &r), 0);
	assert_int_equal(r->nsamples, 300);
	assert_true(find(r, "gpu0.temp")->v[299] == 339);
	assert_true(find(r, "client7.gtt")->v[299] == 4);
	nvl_record_free(r);
	buf_close(&b);
}

static void writer_refuses(void **state)
{
	struct nvl_rec_writer w;
	struct nvl_rec_dev_sample d;
	struct nvl_rec_client_sample cs;
	struct nvl_rec_device two[2] = {dev0, dev0};
	struct nvl_rec_device badeng = dev0;
	struct nvl_rec_client c = {.id = 1, .device = 3, .name = "x"};
	struct buf b;
	size_t len;

	buf_open(&b);
	assert_int_equal(nvl_rec_writer_init(&w, b.f, two, 2), -EINVAL);
	assert_non_null(strstr(nvl_error_msg(), "twice"));
	strcpy(badeng.engines[1], "c e");
	assert_int_equal(nvl_rec_writer_init(&w, b.f, &badeng, 1), -EINVAL);
	assert_int_equal(nvl_rec_writer_init(&w, b.f, &dev0, 0), -EINVAL);
	fflush(b.f);
	assert_int_equal(b.len, 0);

	assert_int_equal(nvl_rec_writer_init(&w, b.f, &dev0, 1), 0);
	fflush(b.f);
	len = b.len;
	assert_int_equal(nvl_rec_write_client(&w, &c), -EINVAL);
	/* a C1 control (CSI) in a name: refused as the reader would */
	c.device = 0;
	strcpy(c.name, "a\xc2\x9b"
		       "2J");
	assert_int_equal(nvl_rec_write_client(&w, &c), -EINVAL);
	nvl_rec_dev_sample_unknown(&d);
	assert_int_equal(nvl_rec_write_sample(&w, 1, &d, NULL, 0), 0);
	fflush(b.f);
	len = b.len;
	assert_int_equal(nvl_rec_write_sample(&w, 0.5, &d, NULL, 0), -EINVAL);
	assert_non_null(strstr(nvl_error_msg(), "before"));
	d.power_W = -1;
	assert_int_equal(nvl_rec_write_sample(&w, 2, &d, NULL, 0), -EINVAL);
	d.power_W = INFINITY;
	assert_int_equal(nvl_rec_write_sample(&w, 2, &d, NULL, 0), -EINVAL);
	nvl_rec_dev_sample_unknown(&d);
	nvl_rec_client_sample_unknown(&cs, 9);
	assert_int_equal(nvl_rec_write_sample(&w, 2, &d, &cs, 1), -EINVAL);
	assert_non_null(strstr(nvl_error_msg(), "not declared"));
	fflush(b.f);
	assert_int_equal(b.len, len);
	buf_close(&b);
}

#define HDR                                                                    \
	"{\"nvl_record\":1,\"units\":{\"t\":\"s\",\"temp\":\"C\","             \
	"\"power\":\"W\",\"power_limit\":\"W\",\"gr_clock\":\"MHz\","          \
	"\"mem_clock\":\"MHz\",\"busy\":\"%\",\"vram\":\"MiB\",\"gtt\":"       \
	"\"MiB\"},\"devices\":[{\"id\":0,\"name\":\"g\",\"engines\":[\"gr\"]}" \
	"]}\n"
#define S0 "{\"t\":0,\"devices\":[{\"id\":0,\"temp\":40}]}\n"

static const struct {
	const char *in, *why;
} malformed[] = {
	{"", "f:1: no header"},
	{"\n", "f:1: empty first line"},
	{"[1]\n", "f:1: a line is a array"},
	{"{\"t\":0}\n", "f:1: not an nvl recording"},
	{"{\"nvl_record\":2}\n", "f:1: format version 2"},
	{"{\"nvl_record\":1,\"units\":{},\"devices\":[]}\n",
	 "f:1: missing \"t\""},
	{HDR "{\"t\":0,\"devices\":[]\n",
	 "f:2: not JSON: column 20: unterminated object ("},
	{HDR S0 "{\"t\":-1,\"devices\":[]}\n", "f:3: time -1 s goes back"},
	{HDR S0 "{\"t\":0.5,\"devices\":[{\"id\":0,\"power\":-3}]}\n",
	 "f:3: \"power\" is negative"},
	{HDR S0 "{\"t\":1,\"devices\":[{\"id\":1}]}\n",
	 "f:3: no device 1 in the header"},
	{HDR S0 "{\"t\":1,\"devices\":[{\"id\":0,\"busy\":{\"ce\":1}}]}\n",
	 "f:3: device 0 has no engine \"ce\""},
	{HDR S0 "{\"t\":1,\"devices\":[{\"id\":0,\"temp\":\"hot\"}]}\n",
	 "f:3: \"temp\" is a string"},
	{HDR S0 "{\"t\":1,\"devices\":[],\"clients\":[{\"id\":4}]}\n",
	 "f:3: client 4 not declared"},
	{HDR "{\"client\":{\"id\":4,\"device\":2,\"name\":\"x\"}}\n",
	 "f:2: client 4: no device 2"},
	{HDR "{\"client\":{\"id\":4,\"device\":0,\"name\":\"x\"}}\n"
	     "{\"client\":{\"id\":4,\"device\":0,\"name\":\"y\"}}\n",
	 "f:3: client 4 declared twice"},
	{HDR HDR, "f:2: a second header"},
	{HDR "{\"x\":1}\n", "f:2: neither a client nor a sample"},
	{HDR S0 "\n" S0 "{\"t\":1,\"devices\":{}}\n",
	 "f:5: \"devices\" is a object"},
	{HDR "{\"t\":0,\"devices\":[{\"id\":0.5}]}\n",
	 "f:2: \"id\" is not an id"},
	{HDR "{\"t\":1e999,\"devices\":[]}\n", "f:2: not JSON"},
	{HDR "{\"t\":0,\"devices\":[],\"x\":\"\\ud800\"}\n",
	 "f:2: not JSON: column 32: lone high surrogate"},
	/*
	 * names reach the terminal (plot --list): C1 controls (U+0080..
	 * U+009F: C2 80..C2 9F in UTF-8; U+009B is CSI) are refused as C0
	 * ones are, escaped or raw, and so is what is not UTF-8 (a lone 9B
	 * byte is CSI to a terminal in 8-bit mode)
	 */
	{HDR "{\"client\":{\"id\":4,\"device\":0,\"name\":\"a\\u009b2J\"}}\n",
	 "f:2: \"name\" must be 1..63 bytes of UTF-8 without control"},
	{HDR "{\"client\":{\"id\":4,\"device\":0,\"name\":\"a\xc2\x9b"
	     "2J\"}}\n",
	 "f:2: \"name\" must be 1..63 bytes of UTF-8 without control"},
	{HDR "{\"client\":{\"id\":4,\"device\":0,\"name\":\"\xc2\x80\"}}\n",
	 "f:2: \"name\" must be 1..63 bytes of UTF-8 without control"},
	{HDR "{\"client\":{\"id\":4,\"device\":0,\"name\":\"\xc2\x9f\"}}\n",
	 "f:2: \"name\" must be 1..63 bytes of UTF-8 without control"},
	{HDR "{\"client\":{\"id\":4,\"device\":0,\"name\":\"a\x9b"
	     "2J\"}}\n",
	 "f:2: \"name\" must be 1..63 bytes of UTF-8 without control"},
	{HDR "{\"client\":{\"id\":4,\"device\":0,\"name\":\"\xc0\x9b\"}}\n",
	 "f:2: \"name\" must be 1..63 bytes of UTF-8 without control"},
	{HDR "{\"client\":{\"id\":4,\"device\":0,\"name\":\"\xe0\x82\x9b\"}}\n",
	 "f:2: \"name\" must be 1..63 bytes of UTF-8 without control"},
	{HDR "{\"client\":{\"id\":4,\"device\":0,\"name\":\"\xed\xa0\x80\"}}\n",
	 "f:2: \"name\" must be 1..63 bytes of UTF-8 without control"},
	{HDR "{\"client\":{\"id\":4,\"device\":0,\"name\":\"caf\xc3\"}}\n",
	 "f:2: \"name\" must be 1..63 bytes of UTF-8 without control"},
	{"{\"nvl_record\":1,\"units\":{\"t\":\"s\",\"temp\":\"C\","
	 "\"power\":\"W\",\"power_limit\":\"W\",\"gr_clock\":\"MHz\","
	 "\"mem_clock\":\"MHz\",\"busy\":\"%\",\"vram\":\"MiB\",\"gtt\":"
	 "\"MiB\"},\"devices\":[{\"id\":0,\"name\":\"g\\u0085\","
	 "\"engines\":[\"gr\"]}]}\n",
	 "f:1: \"name\" must be 1..63 bytes of UTF-8 without control"},
};

static void reader_refuses(void **state)
{
	for (size_t i = 0; i < sizeof(malformed) / sizeof(malformed[0]); i++) {
		struct nvl_record *r = (void *)1;
		int ret = nvl_record_parse(malformed[i].in,
					   strlen(malformed[i].in), "f", &r);

		if (ret != -EINVAL ||
		    !strstr(nvl_error_msg(), malformed[i].why))
			fail_msg("case %zu: ret %d, message '%s', expected "
				 "'%s'",
				 i, ret, nvl_error_msg(), malformed[i].why);
		assert_null(r);
	}
}

/* A good file with a blank line, CRLF and nulls reads fine. */
static void reader_accepts(void **state)
{
	static const char in[] =
		HDR "\r\n" S0
		    "{\"t\":1,\"devices\":[{\"id\":0,\"temp\":null,\"busy\":"
		    "{\"gr\":null},\"future_field\":[1,{\"a\":true}]}]}";
	struct nvl_record *r;

	assert_int_equal(nvl_record_parse(in, strlen(in), "f", &r), 0);
	assert_int_equal(r->nsamples, 2);
	assert_true(isnan(find(r, "gpu0.temp")->v[1]));
	nvl_record_free(r);
}

/* Names in UTF-8 beyond ASCII read fine: only controls are refused. */
static void reader_accepts_utf8_names(void **state)
{
	static const char in[] = HDR
		"{\"client\":{\"id\":4,\"device\":0,\"name\":"
		"\"caf\xc3\xa9 \\u00a0\xf0\x9f\x98\x80\xe2\x82\xac\"}}\n" S0;
	struct nvl_record *r;

	assert_int_equal(nvl_record_parse(in, strlen(in), "f", &r), 0);
	assert_int_equal(r->nclients, 1);
	assert_string_equal(r->clients[0].name,
			    "caf\xc3\xa9 \xc2\xa0\xf0\x9f\x98\x80\xe2\x82\xac");
	nvl_record_free(r);
}

struct parse_arg {
	struct buf b;
	struct nvl_record *r;
};

static int parse_op(void *arg)
{
	struct parse_arg *a = arg;

	return nvl_record_parse(a->b.data, a->b.len, "run", &a->r);
}

static void parse_check(int ret, void *arg)
{
	struct parse_arg *a = arg;

	assert_int_equal(ret, -ENOMEM);
	assert_null(a->r);
}

static void reader_alloc_failures(void **state)
{
	struct parse_arg a;
	unsigned long n;

	buf_open(&a.b);
	write_run(&a.b, 40);
	n = t_fail_each_alloc(parse_op, parse_check, &a, 100000);
	assert_true(n > 10);
	assert_int_equal(a.r->nsamples, 40);
	nvl_record_free(a.r);
	buf_close(&a.b);
}

static void load_file(void **state)
{
	char path[] = "/tmp/nvl-record-XXXXXX";
	int fd = mkstemp(path);
	struct nvl_record *r;
	struct buf b;

	assert_true(fd >= 0);
	buf_open(&b);
	write_run(&b, 3);
	assert_int_equal(write(fd, b.data, b.len), (ssize_t)b.len);
	close(fd);
	assert_int_equal(nvl_record_load(path, &r), 0);
	assert_int_equal(r->nsamples, 3);
	nvl_record_free(r);
	unlink(path);
	assert_int_equal(nvl_record_load(path, &r), -ENOENT);
	assert_non_null(strstr(nvl_error_msg(), path));
	buf_close(&b);
}

/* The JSON reader under the recording reader (RFC 8259 grammar). */
static void json_reader(void **state)
{
	static const char *const bad[] = {
		"",
		"{",
		"[1,]",
		"{\"a\":1,}",
		"01",
		"1.",
		".5",
		"1e",
		"-",
		"+1",
		"tru",
		"nul",
		"\"a",
		"\"\\x\"",
		"\"\\u12\"",
		"\"\x01\"",
		"{1:2}",
		"{\"a\" 1}",
		"[1 2]",
		"1 2",
		"\"\\udc00\"",
		"\"\\u0000\"",
		"[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]",
	};
	struct nvl_json *j;
	const struct nvl_json *k;
	static const char good[] =
		" {\"s\":\"a\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\","
		"\"n\":-1.5e2,\"z\":0,\"t\":true,\"f\":false,\"0\":null,"
		"\"a\":[[],{}]} ";

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		j = (void *)1;
		if (nvl_json_parse(bad[i], strlen(bad[i]), &j) != -EINVAL)
			fail_msg("accepted '%s'", bad[i]);
		assert_null(j);
		assert_non_null(strstr(nvl_error_msg(), "column "));
	}
	assert_int_equal(nvl_json_parse(good, strlen(good), &j), 0);
	assert_int_equal(j->type, NVL_JSON_OBJECT);
	assert_int_equal(j->nkids, 7);
	k = nvl_json_get(j, "s");
	assert_string_equal(k->str, "a\"\\/\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80");
	assert_true(nvl_json_get(j, "n")->num == -150);
	assert_true(nvl_json_get(j, "t")->boolean);
	assert_int_equal(nvl_json_get(j, "0")->type, NVL_JSON_NULL);
	k = nvl_json_get(j, "a");
	assert_int_equal(k->nkids, 2);
	assert_int_equal(k->kids[1].type, NVL_JSON_OBJECT);
	assert_null(nvl_json_get(j, "missing"));
	nvl_json_free(j);
	/* 16 levels are fine, 17 are not */
	{
		static const char d16[] = "[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]";

		assert_int_equal(nvl_json_parse(d16, strlen(d16), &j), 0);
	}
	nvl_json_free(j);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(json_reader),
	cmocka_unit_test(round_trip),
	cmocka_unit_test(many_samples),
	cmocka_unit_test(writer_refuses),
	cmocka_unit_test(reader_refuses),
	cmocka_unit_test(reader_accepts),
	cmocka_unit_test(reader_accepts_utf8_names),
	cmocka_unit_test(reader_alloc_failures),
	cmocka_unit_test(load_file),
};

T_MAIN(tests)

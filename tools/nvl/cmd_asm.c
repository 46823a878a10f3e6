// SPDX-License-Identifier: MIT
/*
 * `nvl asm` and `nvl dis`: SASS text <-> 128-bit instruction words, through
 * the ISA table (src/hw/isa/isa.h).
 *
 *   nvl asm [--arch smNN] [--base ADDR] [-o FILE] [FILE|-]
 *       assemble; with -o write the little-endian binary, else print one
 *       instruction per line as two hex u64 words "lo hi"
 *   nvl dis [--arch smNN] [--base ADDR] [--hex] [--no-ctrl] [FILE|-]
 *       disassemble a binary (or, with --hex, "lo hi" lines)
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/log.h"
#include "hw/isa/isa.h"
#include "cmd.h"
#include "help.h"
#include "outfile.h"
#include "term.h"

/* more than any program: /dev/zero or a FIFO that never ends is refused */
#define SLURP_MAX (64u << 20)

/*
 * NULL with errno set on a read error (a directory too), not an empty text;
 * EFBIG past SLURP_MAX
 */
static char *slurp(const char *path, size_t *len_out)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	size_t cap = 4096, len = 0;
	char *buf;
	int err;

	if (!f)
		return NULL;
	buf = malloc(cap + 1);
	while (buf) {
		size_t n = fread(buf + len, 1, cap - len, f);

		len += n;
		if (len < cap)
			break;
		if (len > SLURP_MAX) {
			free(buf);
			buf = NULL;
			if (f != stdin)
				fclose(f);
			errno = EFBIG;
			return NULL;
		}
		cap *= 2;
		char *nb = realloc(buf, cap + 1);

		if (!nb) {
			free(buf);
			buf = NULL;
		}
		buf = nb;
	}
	err = ferror(f) ? (errno ? errno : EIO) : 0;
	if (f != stdin)
		fclose(f);
	if (buf && err) {
		free(buf);
		buf = NULL;
		errno = err;
	}
	if (buf) {
		buf[len] = 0;
		*len_out = len;
	}
	return buf;
}

struct opts {
	enum nvl_isa_arch arch;
	uint64_t base;
	const char *out;
	bool hex, ctrl;
	const char *in;
};

static int parse_opts(int argc, char **argv, struct opts *o, bool dis)
{
	const char *cmd = dis ? "dis" : "asm";
	static const struct option lo[] = {
		{"arch", required_argument, NULL, 'a'},
		{"base", required_argument, NULL, 'b'},
		{"output", required_argument, NULL, 'o'},
		{"hex", no_argument, NULL, 'x'},
		{"no-ctrl", no_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	int ch;

	*o = (struct opts){.arch = NVL_ISA_SM80, .ctrl = true, .in = "-"};
	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":a:b:o:xnh", lo, NULL)) != -1) {
		switch (ch) {
		case 'a':
			if (nvl_isa_arch_parse(optarg, &o->arch))
				return nvl_usage_error(cmd, "%s",
						       nvl_error_msg());
			break;
		case 'b': {
			char *end;

			/* a digit first: strtoull() skips blanks and takes
			 * " -16" for 2^64 - 16 */
			errno = 0;
			o->base = strtoull(optarg, &end, 0);
			if (*optarg < '0' || *optarg > '9' || *end || errno)
				return nvl_usage_error(
					cmd,
					"--base wants an address, not '%s'",
					optarg);
			break;
		}
		case 'o':
			o->out = optarg;
			break;
		case 'x':
			o->hex = true;
			break;
		case 'n':
			o->ctrl = false;
			break;
		case 'h':
			return nvl_help_print(stdout, cmd);
		default:
			return nvl_usage_getopt(cmd, ch, argv);
		}
	}
	if (optind < argc)
		o->in = argv[optind++];
	if (optind < argc)
		return nvl_usage_error(cmd, "one FILE only, not '%s' too",
				       argv[optind]);
	if (!dis && (o->hex || !o->ctrl))
		return nvl_usage_error(cmd, "--hex and --no-ctrl are dis's");
	if (dis && o->out)
		return nvl_usage_error(cmd, "-o is asm's");
	return -1;
}

int nvl_cmd_asm(int argc, char **argv)
{
	char esc[NVL_LOG_ESCAPED(sizeof(((struct nvl_isa_asm_error *)0)->msg))];
	struct nvl_isa_asm_error err;
	struct opts o;
	uint64_t *w;
	size_t len, n;
	char *text;
	int ret = parse_opts(argc, argv, &o, false);

	if (ret >= 0)
		return ret;
	text = slurp(o.in, &len);
	if (!text) {
		return errno == EFBIG
			       ? nvl_tool_fail("asm", "%s: more than %u MiB",
					       o.in, SLURP_MAX >> 20)
			       : nvl_tool_fail("asm", "cannot read %s: %s",
					       o.in, strerror(errno));
	}
	ret = nvl_isa_assemble(text, o.arch, o.base, &w, &n, &err);
	free(text);
	if (ret) {
		/* the message quotes the text: its control bytes as \xNN */
		if (ret == -EINVAL)
			return nvl_tool_fail(
				"asm", "%s:%u:%u: %s", o.in, err.line, err.col,
				nvl_log_escape(esc, sizeof(esc), err.msg,
					       sizeof(err.msg)));
		return nvl_tool_fail("asm", "%s", strerror(-ret));
	}
	if (o.out) {
		struct nvl_out f;

		/* whole or not at all: a full disk leaves no cut program */
		ret = nvl_out_open(&f, o.out);
		if (!ret)
			ret = nvl_out_close(&f, fwrite(w, 16, n, f.f) == n);
		if (ret) {
			nvl_free(w);
			return nvl_tool_fail("asm", "cannot write %s: %s",
					     o.out, strerror(-ret));
		}
	} else {
		for (size_t i = 0; i < n; i++)
			printf("0x%016" PRIx64 " 0x%016" PRIx64 "\n", w[2 * i],
			       w[2 * i + 1]);
	}
	nvl_free(w);
	return 0;
}

int nvl_cmd_dis(int argc, char **argv)
{
	struct opts o;
	uint64_t *w = NULL;
	size_t len, n = 0;
	char *data, *out;
	int ret = parse_opts(argc, argv, &o, true);

	if (ret >= 0)
		return ret;
	data = slurp(o.in, &len);
	if (!data) {
		return errno == EFBIG
			       ? nvl_tool_fail("dis", "%s: more than %u MiB",
					       o.in, SLURP_MAX >> 20)
			       : nvl_tool_fail("dis", "cannot read %s: %s",
					       o.in, strerror(errno));
	}
	if (o.hex) {
		char *p = data, *q;
		size_t cap = 0;

		for (;;) {
			uint64_t v;

			while (*p == ' ' || *p == '\t' || *p == '\n' ||
			       *p == '\r')
				p++;
			/* strtoull() takes "-5" as 2^64 - 5 and clamps a
			 * word of more than 64 bits: neither is a word */
			if (*p == '-' || *p == '+')
				break;
			errno = 0;
			v = strtoull(p, &q, 16);
			if (q == p)
				break;
			if (errno == ERANGE) {
				nvl_tool_fail("dis",
					      "a hex word of more than 64 bits "
					      "at byte %zu of %s",
					      (size_t)(p - data), o.in);
				free(w);
				free(data);
				return 1;
			}
			p = q;
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				uint64_t *nw = realloc(w, cap * 8);

				if (!nw) {
					free(w);
					free(data);
					return nvl_tool_fail("dis",
							     "out of memory");
				}
				w = nw;
			}
			w[n++] = v;
		}
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		/* not a silent end: the words after it would be lost */
		if (*p) {
			nvl_tool_fail("dis", "not a hex word at byte %zu of %s",
				      (size_t)(p - data), o.in);
			free(w);
			free(data);
			return 1;
		}
		if (n % 2) {
			nvl_tool_fail("dis", "odd number of hex words");
			free(w);
			free(data);
			return 1;
		}
		n /= 2;
	} else {
		if (len % 16) {
			nvl_tool_fail("dis",
				      "%zu bytes is not a multiple of 16", len);
			free(data);
			return 1;
		}
		n = len / 16;
		w = malloc(n ? len : 16);
		if (w)
			memcpy(w, data, len);
	}
	free(data);
	if (!n) {
		free(w);
		return 0;
	}
	if (!w)
		return nvl_tool_fail("dis", "out of memory");
	ret = nvl_isa_disasm(w, n, o.arch, o.base, o.ctrl, &out);
	free(w);
	if (ret)
		return nvl_tool_fail("dis", "%s", nvl_error_msg());
	fputs(out, stdout);
	nvl_free(out);
	return 0;
}

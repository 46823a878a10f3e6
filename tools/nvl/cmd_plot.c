// SPDX-License-Identifier: MIT
/*
 * `nvl plot FILE -o OUT`: draw a recorded time series (record.h) as PNG or
 * SVG (plot.c). Exit 0, 1 on a bad file or a failed write, 2 on bad usage.
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "cmd.h"
#include "help.h"
#include "plot.h"
#include "record.h"
#include "term.h"

/* one side of --size: decimal digits only, 1..NVL_PLOT_MAX_SIDE */
static int parse_side(const char *s, const char **end, int *out)
{
	long v = 0;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (*s - '0');
		if (v > NVL_PLOT_MAX_SIDE)
			return -ERANGE;
	}
	if (!v)
		return -ERANGE;
	*end = s;
	*out = (int)v;
	return 0;
}

/* "WxH" in pixels; nothing after H (sscanf's %d overflowed on long sides) */
static int parse_size(const char *s, int *w, int *h)
{
	const char *p;
	int pw, ph;

	if (parse_side(s, &p, &pw) || *p != 'x' || parse_side(p + 1, &p, &ph) ||
	    *p)
		return -EINVAL;
	*w = pw;
	*h = ph;
	return 0;
}

/* Does @key match one of the comma-separated @globs? A glob without a dot
 * also matches any one dot-separated part of the key ("temp" matches
 * gpu0.temp, "busy" every busy series). */
static bool part_matches(const char *g, const char *key)
{
	char part[96];

	while (*key) {
		size_t n = strcspn(key, ".");

		if (n < sizeof(part)) {
			memcpy(part, key, n);
			part[n] = 0;
			if (!fnmatch(g, part, 0))
				return true;
		}
		key += n + (key[n] == '.');
	}
	return false;
}

static bool selected(const char *key, const char *globs)
{
	char g[128];

	while (*globs) {
		size_t n = strcspn(globs, ",");

		if (n && n < sizeof(g)) {
			memcpy(g, globs, n);
			g[n] = 0;
			if (!fnmatch(g, key, 0) ||
			    (!strchr(g, '.') && part_matches(g, key)))
				return true;
		}
		globs += n + (globs[n] == ',');
	}
	return false;
}

static void list(const struct nvl_record *r, const char *path)
{
	printf("%s: %u device(s), %u client(s), %zu samples", path, r->ndev,
	       r->nclients, r->nsamples);
	if (r->nsamples)
		printf(", %.3f..%.3f s", r->t[0], r->t[r->nsamples - 1]);
	printf("\n%-28s %-5s %8s  %s\n", "KEY", "UNIT", "SAMPLES", "LABEL");
	for (unsigned int i = 0; i < r->nseries; i++) {
		const struct nvl_rec_series *s = &r->series[i];
		size_t n = 0;

		for (size_t k = 0; k < r->nsamples; k++)
			n += s->v[k] == s->v[k];
		printf("%-28s %-5s %8zu  %s\n", s->key, s->unit, n, s->label);
	}
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcasecmp(s + a - b, suffix);
}

int nvl_cmd_plot(int argc, char **argv)
{
	static const struct option lo[] = {
		{"output", required_argument, NULL, 'o'},
		{"format", required_argument, NULL, 'f'},
		{"series", required_argument, NULL, 's'},
		{"size", required_argument, NULL, 'S'},
		{"title", required_argument, NULL, 'T'},
		{"list", no_argument, NULL, 'l'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	struct nvl_plot_opts o = {.width = 1000};
	const char *format = NULL, *globs = NULL, *path;
	struct nvl_record *r;
	bool do_list = false, *sel;
	unsigned int nsel = 0;
	int ch, ret;

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":o:f:s:lvh", lo, NULL)) != -1) {
		switch (ch) {
		case 'o':
			o.out = optarg;
			break;
		case 'f':
			format = optarg;
			break;
		case 's':
			globs = optarg;
			break;
		case 'S':
			if (parse_size(optarg, &o.width, &o.height))
				return nvl_help_usage_error(
					"plot", "--size wants WxH in pixels, "
						"each side 1 to 20000");
			break;
		case 'T':
			o.title = optarg;
			break;
		case 'l':
			do_list = true;
			break;
		case 'v':
			o.verbose = true;
			break;
		case 'h':
			return nvl_help_print(stdout, "plot");
		default:
			return nvl_usage_getopt("plot", ch, argv);
		}
	}
	if (optind + 1 != argc)
		return nvl_help_usage_error(
			"plot", optind < argc ? "one FILE only" : "no FILE");
	path = argv[optind];
	if (!do_list) {
		if (!o.out)
			return nvl_help_usage_error("plot", "no -o OUT");
		if (!format)
			format = ends_with(o.out, ".svg")   ? "svg"
				 : ends_with(o.out, ".png") ? "png"
							    : NULL;
		if (!format)
			return nvl_help_usage_error(
				"plot", "OUT is neither .png nor .svg: give "
					"--format png|svg");
		if (strcmp(format, "png") && strcmp(format, "svg"))
			return nvl_help_usage_error("plot",
						    "--format is png or svg");
		o.svg = !strcmp(format, "svg");
	}
	ret = nvl_record_load(path, &r);
	if (ret)
		return nvl_tool_error("plot", "cannot read the recording");
	if (do_list) {
		list(r, path);
		nvl_record_free(r);
		return NVL_EXIT_OK;
	}
	sel = nvl_calloc(r->nseries ? r->nseries : 1, sizeof(*sel));
	if (!sel) {
		nvl_record_free(r);
		return nvl_tool_fail("plot", "out of memory");
	}
	for (unsigned int i = 0; i < r->nseries; i++) {
		sel[i] = !globs || selected(r->series[i].key, globs);
		nsel += sel[i];
	}
	if (!nsel) {
		nvl_free(sel);
		nvl_record_free(r);
		return nvl_help_usage_error("plot",
					    "--series matches no series "
					    "(see nvl plot --list FILE)");
	}
	o.selected = sel;
	if (!o.title)
		o.title = path;
	ret = nvl_plot_draw(r, &o);
	nvl_free(sel);
	nvl_record_free(r);
	if (ret)
		return nvl_tool_error("plot", "cannot draw %s", o.out);
	return NVL_EXIT_OK;
}

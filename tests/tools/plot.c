// SPDX-License-Identifier: MIT
/*
 * TEST: `nvl plot` end to end. A recording written here with the writer
 * (tools/nvl/record.h) is plotted by the nvl binary ($NVL_EXE) to PNG and
 * SVG. Checks: the image's size; that it is not blank; that --verbose
 * reports the expected panels and series; that inside each reported panel
 * the PNG has pixels of every reported series' colour; SVG strokes; --series
 * selection; malformed recordings fail with the line number and exit 1;
 * usage errors exit 2.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cairo.h>

#include "t.h"
#include "record.h"

static char dir[] = "/tmp/nvl-plot-XXXXXX";
static char rec_path[256];

/* 1 device, engines gr and ce; clients 1 and 2 (client 2 from t=2 s). */
static void write_recording(const char *path, unsigned int n)
{
	static const struct nvl_rec_device dev = {.id = 0,
						  .name = "model",
						  .nengines = 2,
						  .engines = {"gr", "ce"}};
	struct nvl_rec_client c1 = {.id = 1, .device = 0, .name = "sparse"};
	struct nvl_rec_client c2 = {.id = 2, .device = 0, .name = "oversub"};
	struct nvl_rec_writer w;
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(nvl_rec_writer_init(&w, f, &dev, 1), 0);
	assert_int_equal(nvl_rec_write_client(&w, &c1), 0);
	for (unsigned int i = 0; i < n; i++) {
		double t = 0.1 * i;
		struct nvl_rec_dev_sample d;
		struct nvl_rec_client_sample cs[2];

		nvl_rec_dev_sample_unknown(&d);
		d.temp_C = 40 + 30 * (1 - exp(-t / 2));
		d.power_W = 150 + 80 * sin(t);
		d.power_limit_W = 250;
		d.gr_clock_MHz = 1800 - 300 * (t > 3);
		d.mem_clock_MHz = 1000;
		d.busy_pct[0] = 50 + 40 * sin(t * 2);
		d.busy_pct[1] = 20 + 10 * cos(t);
		nvl_rec_client_sample_unknown(&cs[0], 1);
		cs[0].busy_pct[0] = 30 + 20 * sin(t * 2);
		cs[0].busy_pct[1] = 10;
		cs[0].vram_MiB = 512 + 100 * t;
		cs[0].gtt_MiB = 64;
		nvl_rec_client_sample_unknown(&cs[1], 2);
		cs[1].busy_pct[0] = 20 + 20 * sin(t * 2);
		cs[1].busy_pct[1] = 10 + 10 * cos(t);
		cs[1].vram_MiB = 2048;
		cs[1].gtt_MiB = 300 + 50 * t;
		if (i == 20)
			assert_int_equal(nvl_rec_write_client(&w, &c2), 0);
		assert_int_equal(
			nvl_rec_write_sample(&w, t, &d, cs, i >= 20 ? 2 : 1),
			0);
	}
	fclose(f);
}

struct run {
	int status;
	char out[16384], err[4096];
};

/* Run nvl with @args (a shell word list), capturing stdout and stderr. */
static void nvl(struct run *r, const char *args)
{
	const char *exe = getenv("NVL_EXE");
	char cmd[1024], errp[300];
	FILE *p, *e;
	size_t n;

	assert_non_null(exe);
	snprintf(errp, sizeof(errp), "%s/stderr", dir);
	snprintf(cmd, sizeof(cmd), "NO_COLOR=1 '%s' %s 2>'%s'", exe, args,
		 errp);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(r->out, 1, sizeof(r->out) - 1, p);
	r->out[n] = 0;
	r->status = pclose(p);
	assert_true(WIFEXITED(r->status));
	r->status = WEXITSTATUS(r->status);
	e = fopen(errp, "r");
	assert_non_null(e);
	n = fread(r->err, 1, sizeof(r->err) - 1, e);
	r->err[n] = 0;
	fclose(e);
}

static int setup(void **state)
{
	if (!mkdtemp(dir))
		return -1;
	snprintf(rec_path, sizeof(rec_path), "%s/run.jsonl", dir);
	write_recording(rec_path, 60);
	return 0;
}

static int teardown(void **state)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

struct panel {
	int x, y, w, h;
};

static unsigned int count_lines(const char *s, const char *prefix)
{
	unsigned int n = 0;

	for (const char *l = s; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : l)
		n += !strncmp(l, prefix, strlen(prefix));
	return n;
}

/* Pixels inside @p within a small distance of colour @c. */
static unsigned int colour_pixels(cairo_surface_t *img, const struct panel *p,
				  unsigned int c)
{
	const unsigned char *d = cairo_image_surface_get_data(img);
	int stride = cairo_image_surface_get_stride(img);
	unsigned int n = 0;

	for (int y = p->y + 2; y < p->y + p->h - 2; y++)
		for (int x = p->x + 2; x < p->x + p->w - 2; x++) {
			uint32_t px =
				*(const uint32_t *)(d + y * stride + x * 4);
			int dr = (int)((px >> 16) & 0xff) -
				 (int)((c >> 16) & 0xff);
			int dg = (int)((px >> 8) & 0xff) -
				 (int)((c >> 8) & 0xff);
			int db = (int)(px & 0xff) - (int)(c & 0xff);

			n += dr * dr + dg * dg + db * db <= 12 * 12;
		}
	return n;
}

static void png_full(void **state)
{
	struct run r;
	char args[1024], png[300];
	struct panel panels[8];
	unsigned int np = 0, ns = 0, blank = 0, w, h;
	cairo_surface_t *img;
	const char *l;

	snprintf(png, sizeof(png), "%s/run.png", dir);
	snprintf(args, sizeof(args), "plot '%s' -o '%s' --verbose", rec_path,
		 png);
	nvl(&r, args);
	assert_int_equal(r.status, 0);
	/* 5 device sensors + 2 engines + 2 clients x (2 engines + VRAM + GTT) */
	assert_non_null(strstr(r.out, "plot: drew 15 series in 6 panels, "
				      "1000x1260 png"));
	assert_int_equal(count_lines(r.out, "panel "), 6);
	assert_int_equal(count_lines(r.out, "series "), 15);

	img = cairo_image_surface_create_from_png(png);
	assert_int_equal(cairo_surface_status(img), CAIRO_STATUS_SUCCESS);
	w = (unsigned int)cairo_image_surface_get_width(img);
	h = (unsigned int)cairo_image_surface_get_height(img);
	assert_int_equal(w, 1000);
	assert_int_equal(h, 1260);
	cairo_surface_flush(img);
	{
		const unsigned char *d = cairo_image_surface_get_data(img);
		int stride = cairo_image_surface_get_stride(img);

		for (unsigned int y = 0; y < h; y++)
			for (unsigned int x = 0; x < w; x++)
				blank += (*(const uint32_t *)(d + y * stride +
							      x * 4) &
					  0xffffff) == 0xffffff;
		/* not blank: well under 90 % white */
		assert_true(blank < w * h * 9 / 10);
	}
	for (l = r.out; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		unsigned int c, pi, pts;
		char key[96];

		if (!strncmp(l, "panel ", 6)) {
			const char *x = strstr(l, " x=");

			assert_non_null(x);
			assert_int_equal(sscanf(x, " x=%d y=%d w=%d h=%d",
						&panels[np].x, &panels[np].y,
						&panels[np].w, &panels[np].h),
					 4);
			np++;
		} else if (sscanf(l,
				  "series %95s panel=%u colour=#%x points=%u",
				  key, &pi, &c, &pts) == 4) {
			unsigned int n;

			assert_true(pi < np);
			n = colour_pixels(img, &panels[pi], c);
			if (n < 60)
				fail_msg("series %s: %u pixels of #%06x in "
					 "panel %u",
					 key, n, c, pi);
			if (!strncmp(key, "client2.", 8))
				assert_int_equal(pts, 40);
			else
				assert_int_equal(pts, 60);
			ns++;
		}
	}
	assert_int_equal(ns, 15);
	cairo_surface_destroy(img);
}

static unsigned int svg_stroke_colours(const char *svg)
{
	char seen[32][64];
	unsigned int n = 0;

	for (const char *s = strstr(svg, "stroke:rgb("); s;
	     s = strstr(s + 1, "stroke:rgb(")) {
		size_t len = strcspn(s, ")");
		bool dup = false;

		if (len >= sizeof(seen[0]))
			continue;
		for (unsigned int i = 0; i < n; i++)
			dup |= !strncmp(seen[i], s, len) && !seen[i][len];
		if (!dup && n < 32) {
			memcpy(seen[n], s, len);
			seen[n++][len] = 0;
		}
	}
	return n;
}

static void svg_subset(void **state)
{
	struct run r;
	char args[1024], svg[300], *text;
	FILE *f;
	long len;

	snprintf(svg, sizeof(svg), "%s/run.svg", dir);
	snprintf(args, sizeof(args),
		 "plot '%s' -o '%s' -v --size 900x500 --series 'temp,power*'",
		 rec_path, svg);
	nvl(&r, args);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "plot: drew 3 series in 2 panels, "
				      "900x500 svg"));
	f = fopen(svg, "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	text = calloc(1, (size_t)len + 1);
	assert_int_equal(fread(text, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	assert_non_null(strstr(text, "<svg"));
	assert_non_null(strstr(text, "width=\"900"));
	assert_non_null(strstr(text, "height=\"500"));
	/* colours restart in each panel: power and its limit make 2, plus the
	 * axes' and the grid's greys */
	assert_true(svg_stroke_colours(text) >= 2 + 2);
	/* every reported series' colour is stroked (cairo writes percentages
	 * with at most 6 decimals, trailing zeros cut) */
	for (const char *l = strstr(r.out, "series "); l;
	     l = strstr(l + 1, "\nseries ")) {
		unsigned int c, n = 0;
		char want[96], pct[3][24];

		assert_int_equal(
			sscanf(strstr(l, "colour=#"), "colour=#%x", &c), 1);
		for (int k = 0; k < 3; k++) {
			char *e;

			snprintf(pct[k], sizeof(pct[k]), "%f",
				 ((c >> (16 - 8 * k)) & 0xff) * 100.0 / 255);
			e = pct[k] + strlen(pct[k]) - 1;
			while (*e == '0')
				*e-- = 0;
			if (*e == '.')
				*e = 0;
		}
		snprintf(want, sizeof(want), "stroke:rgb(%s%%,%s%%,%s%%)",
			 pct[0], pct[1], pct[2]);
		for (const char *p = strstr(text, want); p;
		     p = strstr(p + 1, want))
			n++;
		/* the line and its legend swatch */
		if (n < 2)
			fail_msg("%s stroked %u times", want, n);
	}
	free(text);
}

static void errors(void **state)
{
	struct run r;
	char args[1024], bad[300];
	FILE *f;

	snprintf(bad, sizeof(bad), "%s/bad.jsonl", dir);
	f = fopen(bad, "w");
	assert_non_null(f);
	fputs("{\"nvl_record\":1,\"units\":{\"t\":\"s\",\"temp\":\"C\","
	      "\"power\":\"W\",\"power_limit\":\"W\",\"gr_clock\":\"MHz\","
	      "\"mem_clock\":\"MHz\",\"busy\":\"%\",\"vram\":\"MiB\","
	      "\"gtt\":\"MiB\"},\"devices\":[{\"id\":0,\"name\":\"g\","
	      "\"engines\":[]}]}\n{\"t\":0,\"devices\":[]}\n{\"t\":1,\n",
	      f);
	fclose(f);
	snprintf(args, sizeof(args), "plot '%s' -o '%s/x.png'", bad, dir);
	nvl(&r, args);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "bad.jsonl:3: not JSON"));
	assert_null(strstr(r.err, "\033["));

	snprintf(args, sizeof(args), "plot '%s/missing.jsonl' -o '%s/x.png'",
		 dir, dir);
	nvl(&r, args);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "missing.jsonl"));

	snprintf(args, sizeof(args), "plot '%s' -o '%s/x.gif'", rec_path, dir);
	nvl(&r, args);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--format"));
	snprintf(args, sizeof(args), "plot '%s' -o '%s/x.png' --series nope",
		 rec_path, dir);
	nvl(&r, args);
	assert_int_equal(r.status, 2);
	nvl(&r, "plot --bogus");
	assert_int_equal(r.status, 2);
	nvl(&r, "plot");
	assert_int_equal(r.status, 2);
	snprintf(args, sizeof(args), "plot '%s' -o '%s/x.png' --size 10x10",
		 rec_path, dir);
	nvl(&r, args);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "too small"));
	/* a side that overflows int (sscanf's %d was undefined there: the
	 * error named a wrapped width) or passes plot's 20000: a usage error */
	static const char *const bad_size[] = {
		"99999999999x500",
		"900x4294967297",
		"20001x500",
		"+900x500",
		"-5x100",
		"900x",
		"x500",
		"900x500x2",
		"0x10",
		"900 x500",
	};
	for (size_t i = 0; i < sizeof(bad_size) / sizeof(bad_size[0]); i++) {
		snprintf(args, sizeof(args),
			 "plot '%s' -o '%s/x.png' --size %s", rec_path, dir,
			 bad_size[i]);
		nvl(&r, args);
		if (r.status != 2 || !strstr(r.err, "--size"))
			fail_msg("--size %s: exit %d, %s", bad_size[i],
				 r.status, r.err);
	}

	snprintf(args, sizeof(args), "plot --list '%s'", rec_path);
	nvl(&r, args);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "client2.gtt"));
	assert_non_null(strstr(r.out, "60 samples"));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(png_full),
	cmocka_unit_test(svg_subset),
	cmocka_unit_test(errors),
};

int main(int argc, char **argv)
{
	int ret;

	if (setup(NULL))
		return 1;
	ret = t_main(__FILE__, tests, sizeof(tests) / sizeof(tests[0]), argc,
		     argv);
	teardown(NULL);
	return ret;
}

// SPDX-License-Identifier: MIT
/*
 * nvl plot's drawing, with cairo: one panel per quantity (temperature, power
 * and its limit, clocks, utilisation per engine, per client, client memory),
 * time on x, axes with units and ticks, a legend right of each panel.
 * See plot.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cairo-svg.h>
#include <cairo.h>
#ifdef NVL_HAVE_FONTCONFIG
#include <fontconfig/fontconfig.h>
#endif

#include "base/log.h"
#include "outfile.h"
#include "plot.h"

/* Colour-blind-friendly, distinct on white (Tableau 10). */
static const unsigned int palette[] = {
	0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f,
	0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac,
};
#define NPALETTE (sizeof(palette) / sizeof(palette[0]))

static const struct panel_def {
	const char *title, *unit;
	enum nvl_rec_kind kinds[2];
	unsigned int nkinds;
	bool from_zero;
} panel_defs[] = {
	{"Temperature", "\u00b0C", {NVL_REC_TEMP}, 1, false},
	{"Power and limit", "W", {NVL_REC_POWER, NVL_REC_POWER_LIMIT}, 2, true},
	{"Clocks", "MHz", {NVL_REC_GR_CLOCK, NVL_REC_MEM_CLOCK}, 2, true},
	{"Engine utilisation", "%", {NVL_REC_ENGINE_BUSY}, 1, true},
	{"Client utilisation", "%", {NVL_REC_CLIENT_BUSY}, 1, true},
	{"Client memory (VRAM, GTT)",
	 "MiB",
	 {NVL_REC_CLIENT_VRAM, NVL_REC_CLIENT_GTT},
	 2,
	 true},
};
#define NPANELS (sizeof(panel_defs) / sizeof(panel_defs[0]))

#define MARGIN_L 80
#define MARGIN_R 240
#define TITLE_H 40
#define PANEL_MIN_H 120

static bool in_panel(const struct panel_def *p, enum nvl_rec_kind k)
{
	for (unsigned int i = 0; i < p->nkinds; i++)
		if (p->kinds[i] == k)
			return true;
	return false;
}

static size_t points(const struct nvl_record *r, const struct nvl_rec_series *s)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nsamples; i++)
		n += !isnan(s->v[i]);
	return n;
}

static void rgb(cairo_t *cr, unsigned int c)
{
	cairo_set_source_rgb(cr, ((c >> 16) & 0xff) / 255.0,
			     ((c >> 8) & 0xff) / 255.0, (c & 0xff) / 255.0);
}

/* 1, 2 or 5 times a power of ten, at least @x. */
static double nice_step(double x)
{
	double p = pow(10, floor(log10(x))), m = x / p;

	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

static void text(cairo_t *cr, double x, double y, const char *s, double align_x,
		 double align_y)
{
	cairo_text_extents_t e;

	cairo_text_extents(cr, s, &e);
	cairo_move_to(cr, x - e.x_advance * align_x - e.x_bearing * 0,
		      y + e.height * align_y);
	cairo_show_text(cr, s);
}

static void fmt_tick(char *buf, size_t n, double v, double step)
{
	int dec = step >= 1 ? 0 : (int)ceil(-log10(step));

	snprintf(buf, n, "%.*f", dec, fabs(v) < step * 1e-6 ? 0.0 : v);
}

/*
 * The ticks of [lo, hi]: k * step for k from ceil(lo / step) to
 * floor(hi / step), at most 64 of them. Counted rather than stepped ("v +=
 * step" stands still when step is below the values' precision: times of
 * 1e17 s and 16 s apart, temperatures of 2^60 C and 256 apart), so a
 * recording's extreme values cannot make the drawing loop forever.
 */
static int ticks(double lo, double hi, double step, double *k0)
{
	double a = ceil(lo / step), b = floor(hi / step + 1e-9);

	if (!isfinite(a) || !isfinite(b) || b < a)
		return 0;
	*k0 = a;
	return b - a >= 63 ? 64 : (int)(b - a) + 1;
}

struct frame {
	double x, y, w, h;
	double t0, t1, y0, y1;
};

static double px(const struct frame *f, double t)
{
	return f->x + (t - f->t0) / (f->t1 - f->t0) * f->w;
}

static double py(const struct frame *f, double v)
{
	return f->y + f->h - (v - f->y0) / (f->y1 - f->y0) * f->h;
}

static void axes(cairo_t *cr, const struct frame *f, const char *title,
		 const char *unit, bool last)
{
	double ystep = nice_step((f->y1 - f->y0) / 5);
	double xstep = nice_step((f->t1 - f->t0) / 8);
	char buf[32];
	double k0;
	int n;

	/* background, grid and ticks */
	cairo_set_source_rgb(cr, 0.97, 0.97, 0.97);
	cairo_rectangle(cr, f->x, f->y, f->w, f->h);
	cairo_fill(cr);
	cairo_set_line_width(cr, 1);
	cairo_set_font_size(cr, 11);
	n = ticks(f->y0, f->y1, ystep, &k0);
	for (int i = 0; i < n; i++) {
		double v = (k0 + i) * ystep;
		double y = round(py(f, v)) + 0.5;

		cairo_set_source_rgb(cr, 0.85, 0.85, 0.85);
		cairo_move_to(cr, f->x, y);
		cairo_line_to(cr, f->x + f->w, y);
		cairo_stroke(cr);
		cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
		cairo_move_to(cr, f->x - 5, y);
		cairo_line_to(cr, f->x, y);
		cairo_stroke(cr);
		fmt_tick(buf, sizeof(buf), v, ystep);
		text(cr, f->x - 8, y, buf, 1, 0.5);
	}
	n = ticks(f->t0, f->t1, xstep, &k0);
	for (int i = 0; i < n; i++) {
		double t = (k0 + i) * xstep;
		double x = round(px(f, t)) + 0.5;

		cairo_set_source_rgb(cr, 0.85, 0.85, 0.85);
		cairo_move_to(cr, x, f->y);
		cairo_line_to(cr, x, f->y + f->h);
		cairo_stroke(cr);
		cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
		cairo_move_to(cr, x, f->y + f->h);
		cairo_line_to(cr, x, f->y + f->h + 5);
		cairo_stroke(cr);
		fmt_tick(buf, sizeof(buf), t, xstep);
		text(cr, x, f->y + f->h + 9, buf, 0.5, 1);
	}
	cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
	cairo_rectangle(cr, f->x + 0.5, f->y + 0.5, f->w - 1, f->h - 1);
	cairo_stroke(cr);
	if (last)
		text(cr, f->x + f->w, f->y + f->h + 24, "time [s]", 1, 1);
	cairo_set_font_size(cr, 13);
	snprintf(buf, sizeof(buf), "[%s]", unit);
	text(cr, f->x - 8, f->y - 8, buf, 1, 0);
	text(cr, f->x, f->y - 8, title, 0, 0);
}

/* Limits and GTT are dashed, to tell them from the solid draw and VRAM. */
static bool dashed(const struct nvl_rec_series *s)
{
	return s->kind == NVL_REC_POWER_LIMIT || s->kind == NVL_REC_CLIENT_GTT;
}

static const double legend_dash[] = {5, 3};

static void series_line(cairo_t *cr, const struct nvl_record *r,
			const struct nvl_rec_series *s, const struct frame *f)
{
	bool pen = false;

	cairo_save(cr);
	cairo_rectangle(cr, f->x, f->y, f->w, f->h);
	cairo_clip(cr);
	cairo_set_line_width(cr, 2.5);
	cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
	if (dashed(s)) {
		static const double dash[] = {8, 5};

		cairo_set_dash(cr, dash, 2, 0);
	}
	for (size_t i = 0; i < r->nsamples; i++) {
		if (isnan(s->v[i])) {
			pen = false;
			continue;
		}
		if (pen)
			cairo_line_to(cr, px(f, r->t[i]), py(f, s->v[i]));
		else
			cairo_move_to(cr, px(f, r->t[i]), py(f, s->v[i]));
		pen = true;
	}
	cairo_stroke(cr);
	cairo_restore(cr);
}

static cairo_status_t to_file(void *closure, const unsigned char *data,
			      unsigned int len)
{
	return fwrite(data, 1, len, closure) == len ? CAIRO_STATUS_SUCCESS
						    : CAIRO_STATUS_WRITE_ERROR;
}

int nvl_plot_draw(const struct nvl_record *r, const struct nvl_plot_opts *o)
{
	bool use[NPANELS] = {0};
	unsigned int npanels = 0, nseries = 0;
	cairo_surface_t *surf;
	cairo_t *cr;
	double ph, t0, t1;
	int w = o->width, h = o->height, ret = 0, p = 0;
	struct nvl_out out;
	/* The report never mixes with an image written to stdout. */
	FILE *rep = strcmp(o->out, "-") ? stdout : stderr;

	if (!r->nsamples)
		return nvl_error(-EINVAL, "%s: no samples to draw", o->title);
	for (unsigned int i = 0; i < r->nseries; i++) {
		if (!o->selected[i] || !points(r, &r->series[i]))
			continue;
		for (size_t k = 0; k < NPANELS; k++)
			if (in_panel(&panel_defs[k], r->series[i].kind))
				use[k] = true;
	}
	for (size_t k = 0; k < NPANELS; k++)
		npanels += use[k];
	if (!npanels)
		return nvl_error(-EINVAL, "no selected series has a value");
	if (!h)
		h = TITLE_H + 200 * (int)npanels + 20;
	if (w < MARGIN_L + MARGIN_R + 100 || w > NVL_PLOT_MAX_SIDE ||
	    h < TITLE_H + PANEL_MIN_H * (int)npanels + 20 ||
	    h > NVL_PLOT_MAX_SIDE)
		return nvl_error(-EINVAL,
				 "image size %dx%d too small or too large for "
				 "%u panels (at least %dx%d, at most %dx%d)",
				 w, h, npanels, MARGIN_L + MARGIN_R + 100,
				 TITLE_H + PANEL_MIN_H * (int)npanels + 20,
				 NVL_PLOT_MAX_SIDE, NVL_PLOT_MAX_SIDE);
	/* the image whole or no file: a full disk leaves none cut short */
	ret = nvl_out_open(&out, o->out);
	if (ret)
		return nvl_error(ret, "%s: %s", o->out, strerror(-ret));
	if (o->svg)
		surf = cairo_svg_surface_create_for_stream(to_file, out.f, w,
							   h);
	else
		surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
	if (cairo_surface_status(surf) != CAIRO_STATUS_SUCCESS) {
		ret = nvl_error(
			-EIO, "%s: %s", o->out,
			cairo_status_to_string(cairo_surface_status(surf)));
		cairo_surface_destroy(surf);
		nvl_out_close(&out, false);
		return ret;
	}
	cr = cairo_create(surf);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
			       CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_font_size(cr, 16);
	text(cr, MARGIN_L, 12, o->title, 0, 1);

	t0 = r->t[0];
	t1 = r->t[r->nsamples - 1];
	if (t1 <= t0)
		t1 = t0 + 1;
	ph = (double)(h - TITLE_H - 20) / npanels;
	for (size_t k = 0; k < NPANELS; k++) {
		const struct panel_def *pd = &panel_defs[k];
		struct frame f = {
			.x = MARGIN_L,
			.y = TITLE_H + p * ph + 24,
			.w = w - MARGIN_L - MARGIN_R,
			.h = ph - 24 - 36,
			.t0 = t0,
			.t1 = t1,
			.y0 = INFINITY,
			.y1 = -INFINITY,
		};
		unsigned int colour = 0, row = 0;

		if (!use[k])
			continue;
		for (unsigned int i = 0; i < r->nseries; i++) {
			const struct nvl_rec_series *s = &r->series[i];

			if (!o->selected[i] || !in_panel(pd, s->kind))
				continue;
			for (size_t j = 0; j < r->nsamples; j++) {
				if (isnan(s->v[j]))
					continue;
				f.y0 = fmin(f.y0, s->v[j]);
				f.y1 = fmax(f.y1, s->v[j]);
			}
		}
		if (pd->from_zero)
			f.y0 = fmin(f.y0, 0);
		if (!strcmp(pd->unit, "%"))
			f.y1 = fmax(f.y1, 100);
		if (f.y1 - f.y0 < 1)
			f.y1 = f.y0 + 1;
		{
			double step = nice_step((f.y1 - f.y0) / 5);

			f.y0 = floor(f.y0 / step) * step;
			f.y1 = ceil(f.y1 / step) * step;
			/* headroom above the last tick: no line hides on
			 * the frame's top edge */
			f.y1 += (f.y1 - f.y0) * 0.04;
		}
		axes(cr, &f, pd->title, pd->unit, p + 1 == (int)npanels);
		if (o->verbose)
			fprintf(rep,
				"panel %d %s unit=%s x=%d y=%d w=%d h=%d\n", p,
				pd->title, pd->unit, (int)f.x, (int)f.y,
				(int)f.w, (int)f.h);
		for (unsigned int i = 0; i < r->nseries; i++) {
			const struct nvl_rec_series *s = &r->series[i];
			unsigned int c = palette[colour % NPALETTE];
			double ly = f.y + 8 + row * 16;

			if (!o->selected[i] || !in_panel(pd, s->kind) ||
			    !points(r, s))
				continue;
			colour++;
			rgb(cr, c);
			series_line(cr, r, s, &f);
			if (ly + 8 <= f.y + f.h + 30) {
				rgb(cr, c);
				cairo_set_line_width(cr, 3);
				if (dashed(s))
					cairo_set_dash(cr, legend_dash, 2, 0);
				cairo_move_to(cr, f.x + f.w + 10, ly);
				cairo_line_to(cr, f.x + f.w + 34, ly);
				cairo_stroke(cr);
				cairo_set_dash(cr, NULL, 0, 0);
				cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
				cairo_set_font_size(cr, 11);
				text(cr, f.x + f.w + 38, ly, s->label, 0, 0.4);
				row++;
			}
			nseries++;
			if (o->verbose)
				fprintf(rep,
					"series %s panel=%d colour=#%06x "
					"points=%zu unit=%s\n",
					s->key, p, c, points(r, s), s->unit);
		}
		p++;
	}
	cairo_destroy(cr);
	if (!o->svg) {
		cairo_status_t st =
			cairo_surface_write_to_png_stream(surf, to_file, out.f);

		if (st != CAIRO_STATUS_SUCCESS)
			ret = nvl_error(-EIO, "%s: %s", o->out,
					cairo_status_to_string(st));
	}
	cairo_surface_finish(surf);
	if (!ret && cairo_surface_status(surf) != CAIRO_STATUS_SUCCESS)
		ret = nvl_error(
			-EIO, "%s: %s", o->out,
			cairo_status_to_string(cairo_surface_status(surf)));
	cairo_surface_destroy(surf);
	{
		int err = nvl_out_close(&out, !ret);

		if (!ret && err)
			ret = nvl_error(err, "%s: %s", o->out, strerror(-err));
	}
	/* Drop cairo's and fontconfig's caches, so that leak checkers see only
	 * real leaks. */
	cairo_debug_reset_static_data();
#ifdef NVL_HAVE_FONTCONFIG
	FcFini();
#endif
	if (!ret && o->verbose)
		fprintf(rep,
			"plot: drew %u series in %u panels, %dx%d %s, %s\n",
			nseries, npanels, w, h, o->svg ? "svg" : "png", o->out);
	return ret;
}

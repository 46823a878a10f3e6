/* SPDX-License-Identifier: MIT */
/*
 * DOC: drawing a recorded time series (nvl plot)
 *
 * plot.c draws with cairo; it is built only when cairo is found (meson
 * dependency 'cairo'), otherwise plot_none.c reports that the tool was built
 * without it. cmd_plot.c (options, series selection, --list) is always built.
 */
#ifndef NVL_TOOL_PLOT_H
#define NVL_TOOL_PLOT_H

/* the largest image side nvl_plot() draws, in pixels */
#define NVL_PLOT_MAX_SIDE 20000

#include <stdbool.h>

#include "record.h"

/**
 * struct nvl_plot_opts - what to draw where
 * @out: the file to write, "-" for stdout
 * @svg: SVG rather than PNG
 * @width: image width in pixels
 * @height: image height in pixels, 0 for 200 per panel plus the title
 * @title: the title line
 * @verbose: report each panel and series drawn, and a summary, on stdout
 * @selected: one flag per series of the recording
 */
struct nvl_plot_opts {
	const char *out;
	bool svg;
	int width, height;
	const char *title;
	bool verbose;
	const bool *selected;
};

/**
 * nvl_plot_draw() - draw @r's selected series into @o->out
 * Return: 0; -EINVAL (nothing to draw, bad size), -EIO (cannot write),
 * -ENOSYS (built without cairo), with a message.
 */
int nvl_plot_draw(const struct nvl_record *r, const struct nvl_plot_opts *o);

#endif

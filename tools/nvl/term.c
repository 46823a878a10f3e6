// SPDX-License-Identifier: MIT
/* Colour and error conventions of the nvl commands; see term.h. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nouvelle/nouvelle.h"
#include "term.h"

static bool env_set(const char *name)
{
	const char *v = getenv(name);

	return v && *v;
}

bool nvl_term_colour(FILE *f)
{
	const char *term = getenv("TERM");

	if (env_set("NO_COLOR"))
		return false;
	if (env_set("FORCE_COLOR") || env_set("CLICOLOR_FORCE"))
		return true;
	if (term && !strcmp(term, "dumb"))
		return false;
	return isatty(fileno(f));
}

const char *nvl_term_sgr(FILE *f, const char *sgr)
{
	return nvl_term_colour(f) ? sgr : "";
}

void nvl_tool_prefix(const char *cmd, const char *kind)
{
	bool c = nvl_term_colour(stderr);
	bool top = !cmd || !strcmp(cmd, "nvl");

	fprintf(stderr, "nvl%s%s: %s%s:%s ", top ? "" : " ", top ? "" : cmd,
		c ? NVL_SGR_RED : "", kind, c ? NVL_SGR_RESET : "");
}

int nvl_tool_error(const char *cmd, const char *fmt, ...)
{
	const char *last = nvl_last_error();
	va_list ap;

	nvl_tool_prefix(cmd, "error");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (last && *last)
		fprintf(stderr, ": %s", last);
	fputc('\n', stderr);
	return NVL_EXIT_FAIL;
}

int nvl_tool_fail(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	nvl_tool_prefix(cmd, "error");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return NVL_EXIT_FAIL;
}

void nvl_tool_warn(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	nvl_tool_prefix(cmd, "warning");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

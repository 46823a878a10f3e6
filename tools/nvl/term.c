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

/* one message: the prefix, the text, ": @last" when it has one, a newline */
static void vsay(const char *cmd, const char *kind, const char *last,
		 const char *fmt, va_list ap)
{
	nvl_tool_prefix(cmd, kind);
	vfprintf(stderr, fmt, ap);
	if (last && *last)
		fprintf(stderr, ": %s", last);
	fputc('\n', stderr);
}

int nvl_tool_error(const char *cmd, const char *fmt, ...)
{
	const char *last = nvl_last_error();
	va_list ap;

	va_start(ap, fmt);
	vsay(cmd, "error", last, fmt, ap);
	va_end(ap);
	return NVL_EXIT_FAIL;
}

int nvl_tool_fail(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(cmd, "error", NULL, fmt, ap);
	va_end(ap);
	return NVL_EXIT_FAIL;
}

void nvl_tool_warn(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(cmd, "warning", NULL, fmt, ap);
	va_end(ap);
}

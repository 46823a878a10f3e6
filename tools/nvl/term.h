/* SPDX-License-Identifier: MIT */
/*
 * DOC: terminal conventions shared by nvl's commands
 *
 * Colour only on a terminal: never when NO_COLOR is set and non-empty
 * (no-color.org), nor with TERM=dumb, nor when the stream is not a TTY.
 * FORCE_COLOR / CLICOLOR_FORCE (non-empty) force it on a pipe, but never
 * against NO_COLOR.
 *
 * Every message of every command has one form, on stderr (docs/tools.md):
 *
 *   nvl CMD: error: WHAT[: the library's nvl_last_error() text]   exit 1
 *   nvl CMD: usage error: WHY                                      exit 2
 *   usage: nvl CMD ...          (the synopsis's first line)
 *   Try 'nvl CMD --help'.
 *   nvl CMD: warning: WHAT      (the command goes on)
 *
 * "nvl:" alone for what concerns no command (an unknown command). Exit
 * codes: 0 success, 1 failure, 2 usage error, 6 `smi -i` naming no GPU.
 */
#ifndef NVL_TOOL_TERM_H
#define NVL_TOOL_TERM_H

#include <stdbool.h>
#include <stdio.h>

#include "base/compiler.h"

/** Exit codes of every nvl command. */
enum {
	NVL_EXIT_OK = 0,
	NVL_EXIT_FAIL = 1,
	NVL_EXIT_USAGE = 2,
	/* nvidia-smi's NVML_ERROR_NOT_FOUND: `smi -i` names no GPU */
	NVL_EXIT_NOT_FOUND = 6,
};

/** nvl_term_colour() - whether to colour what is written to @f. */
bool nvl_term_colour(FILE *f);

#define NVL_SGR_BOLD "\033[1m"
#define NVL_SGR_RED "\033[1;31m"
#define NVL_SGR_RESET "\033[0m"

/**
 * nvl_term_sgr() - @sgr (an NVL_SGR_* escape sequence) when @f gets colour,
 * else "".
 */
const char *nvl_term_sgr(FILE *f, const char *sgr);

/**
 * nvl_tool_error() - print "nvl CMD: error: WHAT: LAST_ERROR" on stderr,
 * "error" in red on a terminal; LAST_ERROR is nvl_last_error() and left out
 * when empty.
 * Return: NVL_EXIT_FAIL, for `return nvl_tool_error(...)`.
 */
int nvl_tool_error(const char *cmd, const char *fmt, ...) NVL_PRINTF(2, 3);

/**
 * nvl_tool_fail() - print "nvl CMD: error: WHAT" on stderr, without the
 * library's last error (for failures no library call reported: a stale
 * message would name the wrong cause).
 * Return: NVL_EXIT_FAIL.
 */
int nvl_tool_fail(const char *cmd, const char *fmt, ...) NVL_PRINTF(2, 3);

/** nvl_tool_warn() - print "nvl CMD: warning: WHAT" on stderr. */
void nvl_tool_warn(const char *cmd, const char *fmt, ...) NVL_PRINTF(2, 3);

/**
 * nvl_tool_prefix() - print "nvl CMD: KIND: " on stderr ("nvl: KIND: " when
 * @cmd is NULL or "nvl"), KIND in red on a terminal; the caller prints the
 * rest of the line.
 */
void nvl_tool_prefix(const char *cmd, const char *kind);

#endif

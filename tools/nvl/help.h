/* SPDX-License-Identifier: MIT */
/*
 * DOC: nvl's help text, the one source of truth
 *
 * One table (help.c) holds every command's synopsis, description, options
 * and examples. From it come `nvl COMMAND --help`, the nvl(1) man page
 * (`nvl help --man`, run by the build) and the bash completion
 * (`nvl help --bash-completion`, also run by the build). A command added to
 * main.c's table adds its entry here; tests/tools/nvl_conventions.py checks
 * that every command has one.
 */
#ifndef NVL_TOOL_HELP_H
#define NVL_TOOL_HELP_H

#include <stdio.h>

#include "base/compiler.h"

/**
 * struct nvl_help_opt - one option
 * @flags: "-o, --output" (short first, if any)
 * @arg: its argument's name ("FILE"), or NULL
 * @text: what it does
 */
struct nvl_help_opt {
	const char *flags;
	const char *arg;
	const char *text;
};

/** struct nvl_help_example - a command line and what it shows */
struct nvl_help_example {
	const char *cmd;
	const char *text;
};

/**
 * struct nvl_help - a command's help
 * @name: the command ("plot"); "nvl" for the tool itself
 * @summary: one line
 * @synopsis: usage lines, '\n'-separated, each starting "nvl"
 * @description: paragraphs, '\n\n'-separated
 * @opts: options, ending with an entry whose @flags is NULL
 * @examples: examples, ending with an entry whose @cmd is NULL
 * @words: words completed after the command (subcommands), or NULL
 */
struct nvl_help {
	const char *name;
	const char *summary;
	const char *synopsis;
	const char *description;
	const struct nvl_help_opt *opts;
	const struct nvl_help_example *examples;
	const char *words;
};

/** nvl_help_find() - the entry for @name, or NULL. */
const struct nvl_help *nvl_help_find(const char *name);

/**
 * nvl_help_print() - `nvl NAME --help` on @f (headings in bold on a terminal)
 * Return: 0, or 1 when @name has no entry.
 */
int nvl_help_print(FILE *f, const char *name);

/**
 * nvl_help_usage_error() - a usage error: "nvl NAME: usage error: WHY", the
 * synopsis's first line and a pointer to --help, on stderr.
 * Return: 2, the usage exit code.
 */
int nvl_help_usage_error(const char *name, const char *why);

/** nvl_usage_error() - nvl_help_usage_error() with a printf format. */
int nvl_usage_error(const char *name, const char *fmt, ...) NVL_PRINTF(2, 3);

/**
 * nvl_usage_getopt() - the usage error for what getopt_long() returned
 * (with opterr 0 and ':' leading the short options): '?' an unknown
 * option, ':' a missing value, each named.
 * @name: the command
 * @ch: getopt_long()'s return
 * @argv: the argument vector getopt_long() walked
 * Return: 2.
 */
int nvl_usage_getopt(const char *name, int ch, char **argv);

/** nvl_help_man() - write the nvl(1) man page (roff) to @f. */
void nvl_help_man(FILE *f);

/** nvl_help_bash() - write the bash completion script to @f. */
void nvl_help_bash(FILE *f);

#endif

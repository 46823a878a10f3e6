// SPDX-License-Identifier: MIT
/*
 * `nvl help [COMMAND]`, `nvl help --man`, `nvl help --bash-completion`:
 * the help table (help.c) as text, as the nvl(1) man page, as a bash
 * completion script. The build runs the last two (tools/nvl/meson.build).
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "help.h"
#include "term.h"

int nvl_cmd_help(int argc, char **argv)
{
	if (argc > 2)
		return nvl_help_usage_error("help", "one COMMAND at most");
	if (argc < 2)
		return nvl_help_print(stdout, "nvl");
	if (!strcmp(argv[1], "--man")) {
		nvl_help_man(stdout);
	} else if (!strcmp(argv[1], "--bash-completion")) {
		nvl_help_bash(stdout);
	} else if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		return nvl_help_print(stdout, "help");
	} else if (argv[1][0] == '-') {
		return nvl_usage_error("help", "unknown option '%s'", argv[1]);
	} else if (nvl_help_print(stdout, argv[1])) {
		return nvl_usage_error("help", "no command '%s'", argv[1]);
	}
	return fflush(stdout) ? NVL_EXIT_FAIL : NVL_EXIT_OK;
}

// SPDX-License-Identifier: MIT
/*
 * DOC: nvl, the nouvelle command-line tool
 *
 * `nvl [--version] [--help] COMMAND [ARGS]`. Without a command it runs the
 * main job (`nvl demo`) on the built-in model.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nouvelle/nouvelle.h"
#include "nvl_config.h"
#include "cmd.h"
#include "help.h"
#include "term.h"

static const struct nvl_cmd cmds[] = {
	{"demo", "the main job: exercise the stack on the built-in model",
	 nvl_cmd_demo},
	{"bench", "run benchmarks (--json for JSON lines)", nvl_cmd_bench},
	{"fw", "GSP firmware: list, info, verify, needed", nvl_cmd_fw},
	{"asm", "assemble SASS text into 128-bit words", nvl_cmd_asm},
	{"dis", "disassemble 128-bit SASS words", nvl_cmd_dis},
	{"plot", "draw a recorded time series as PNG or SVG", nvl_cmd_plot},
	{"run", "run a workload on a device: sparse, oversub, fault, ...",
	 nvl_cmd_run},
	{"smi", "nvidia-smi's interface: table, -q, -L, CSV queries",
	 nvl_cmd_smi},
	{"top", "live view of engines, clocks, power and clients", nvl_cmd_top},
	{"trace", "decode GSP RPCs and pushbuffers of a traced run or capture",
	 nvl_cmd_trace},
	{"help", "help on a command; the man page; bash completion",
	 nvl_cmd_help},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: nvl [--version] [--help] COMMAND [ARGS]\n\n"
		   "commands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(f, "\nWithout a command, nvl runs 'demo'.\n");
}

static const char *cmd_name(int argc, char **argv)
{
	if (argc < 2)
		return "demo";
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].name;
	return "nvl";
}

static int run(int argc, char **argv)
{
	if (argc < 2)
		return nvl_cmd_demo(argc, argv);
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("nvl (nouvelle) %s, %s build\n", nvl_version(),
		       NVL_BUILD_TYPE);
		return 0;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return nvl_help_print(stdout, "nvl");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].run(argc - 1, argv + 1);
	nvl_tool_prefix("nvl", "usage error");
	fprintf(stderr, "unknown command '%s'\n", argv[1]);
	usage(stderr);
	fprintf(stderr, "Try 'nvl --help'.\n");
	return NVL_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	int ret = run(argc, argv);

	/*
	 * Output that did not reach stdout (a full disk, a closed pipe with
	 * SIGPIPE ignored) is a failure, as in coreutils: a script must not
	 * take a cut report for a whole one.
	 */
	errno = 0;
	if (fflush(stdout) || ferror(stdout)) {
		if (errno != EPIPE)
			nvl_tool_fail(cmd_name(argc, argv),
				      "cannot write the output%s%s",
				      errno ? ": " : "",
				      errno ? strerror(errno) : "");
		return ret ? ret : NVL_EXIT_FAIL;
	}
	return ret;
}

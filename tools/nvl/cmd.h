/* SPDX-License-Identifier: MIT */
/* nvl subcommands. Exit codes: 0 success, 1 failure, 2 usage error. */
#ifndef NVL_TOOL_CMD_H
#define NVL_TOOL_CMD_H

struct nvl_cmd {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
};

int nvl_cmd_asm(int argc, char **argv);
int nvl_cmd_bench(int argc, char **argv);
int nvl_cmd_dis(int argc, char **argv);
int nvl_cmd_demo(int argc, char **argv);
int nvl_cmd_fw(int argc, char **argv);
int nvl_cmd_help(int argc, char **argv);
int nvl_cmd_plot(int argc, char **argv);
int nvl_cmd_run(int argc, char **argv);
int nvl_cmd_smi(int argc, char **argv);
int nvl_cmd_top(int argc, char **argv);
int nvl_cmd_trace(int argc, char **argv);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The process's own threads as /proc/self/task shows them, for benchmarks
 * that classify their samples after the fact (bench/nv/split.c,
 * bench/nv/rc_split.c): a thread found by the name the library gave it
 * (the model's runlist threads nvl-rl<id>, its GSP firmware thread
 * nvl-gspfw, the driver's GSP threads nvl-gsp-rx and nvl-gsp-ev), the CPU
 * it last ran on, its voluntary context switches (its sleeps) and how
 * often it was put on a CPU.
 */
#ifndef NVL_BENCH_NV_NVB_TASK_H
#define NVL_BENCH_NV_NVB_TASK_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** nvb_task_vcs() - voluntary context switches of task @tid, -1 unknown. */
static inline long long nvb_task_vcs(int tid)
{
	char path[64], line[128];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %lld", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

/**
 * nvb_task_runs() - how many times task @tid was put on a CPU (the third
 * field of /proc/self/task/<tid>/schedstat, with schedstats in the
 * kernel), -1 when unknown. A thread that ran in a window was put on a CPU
 * in it, whereas its voluntary switches also count the sleep that ends a
 * piece of work begun before the window.
 */
static inline long long nvb_task_runs(int tid)
{
	char path[64];
	unsigned long long run, wait, n;
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", tid);
	f = fopen(path, "r");
	if (f && fscanf(f, "%llu %llu %llu", &run, &wait, &n) == 3)
		v = (long long)n;
	if (f)
		fclose(f);
	return v;
}

/**
 * nvb_task_cpu() - the CPU task @tid last ran on (field 39 of its stat),
 * -1 when unknown.
 */
static inline int nvb_task_cpu(int tid)
{
	char path[64], buf[1024], *q;
	int cpu = -1, field = 2;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f) && (q = strrchr(buf, ')'))) {
		/* fields after the name, counted from 3 */
		for (q++; *q && field < 39; q++)
			if (*q == ' ')
				field++;
		if (field == 39)
			cpu = atoi(q);
	}
	fclose(f);
	return cpu;
}

/**
 * nvb_tasks_named() - the process's threads whose name starts with
 * @prefix: up to @max thread ids into @tid. Return: how many.
 */
static inline int nvb_tasks_named(const char *prefix, int *tid, int max)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)) && n < max) {
		char path[300], comm[32] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm",
			 e->d_name);
		f = fopen(path, "r");
		if (f) {
			if (!fgets(comm, sizeof(comm), f))
				comm[0] = '\0';
			fclose(f);
		}
		if (strncmp(comm, prefix, strlen(prefix)))
			continue;
		tid[n++] = atoi(e->d_name);
	}
	if (d)
		closedir(d);
	return n;
}

#endif /* NVL_BENCH_NV_NVB_TASK_H */

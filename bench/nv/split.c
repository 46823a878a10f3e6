// SPDX-License-Identifier: MIT
/*
 * Where the exec path's latency tail comes from (suite "split"): the
 * round trip split by whether its two threads shared a CPU.
 *
 *  - futex_pingpong_split: single futex round trips between this thread
 *    and one partner thread, both pinned to CPU 0 ("same") or the partner
 *    pinned to CPU 1 ("cross"), in alternating blocks of 50 so that both
 *    see the same machine state; value: the median cross round trip, with
 *    same_ns beside it, and this thread's own CPU time per round trip of
 *    each kind (cross_waker_cpu_ns, same_waker_cpu_ns: what the wake-ups
 *    cost the thread that makes them, the kernel's part included). The
 *    harness's futex_pingpong leaves placement to the kernel, which on a
 *    busy machine keeps the pair on one CPU almost always: it measures
 *    "same".
 *  - exec_latency_split: exec_latency's round trip (a one-dword NOP push,
 *    nvl_exec() to its syncobj signalled), each one classified after the
 *    fact by the CPU the model's runlist thread last ran on (the thread
 *    named nvl-rl<id>, /proc/self/task/<tid>/stat) against the CPU the
 *    waiter returned on; value: the median of all, with the count and
 *    median of each class beside it.
 *
 * On the 2-vCPU VM this was written on (December 2026), with the CPUs
 * busy, a cross-CPU futex round trip costs 40-64 us (median) against
 * 1.6-2.4 us on one CPU, 30-37 us of it CPU time of the waking thread,
 * and exec/launch round trips whose runlist thread ran on the other vCPU
 * cost the same; which one a process gets is the kernel's placement and
 * it often sticks for a whole run (docs/model.md, "Where the runlist
 * thread runs").
 * Needs two online CPUs (and CPUs 0 and 1 usable): -ENODEV otherwise.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <nouvelle/nouvelle.h>

#include "bench.h"
#include "nvb.h"
#include "nvb_task.h"

#define SPLIT_BLOCK 50

struct partner {
	_Atomic uint32_t word; /* odd: the partner's turn */
	atomic_bool quit;
};

static void *partner_main(void *arg)
{
	struct partner *p = arg;
	uint32_t v;

	for (;;) {
		while (!((v = atomic_load(&p->word)) & 1)) {
			if (atomic_load(&p->quit))
				return NULL;
			nvl_bench_futex_wait(&p->word, v);
		}
		atomic_store(&p->word, v + 1);
		nvl_bench_futex_wake(&p->word);
	}
}

/* one round trip to the partner, ns */
static double round_trip(struct partner *p)
{
	int64_t t0 = nvl_bench_now_ns();
	uint32_t v = atomic_load(&p->word) + 1, w;

	atomic_store(&p->word, v);
	nvl_bench_futex_wake(&p->word);
	while ((w = atomic_load(&p->word)) == v)
		nvl_bench_futex_wait(&p->word, w);
	return (double)(nvl_bench_now_ns() - t0);
}

static int pin(pthread_t t, int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	return pthread_setaffinity_np(t, sizeof(s), &s);
}

static int unpin(pthread_t t)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	for (int i = 0; i < CPU_SETSIZE; i++)
		CPU_SET(i, &s);
	return pthread_setaffinity_np(t, sizeof(s), &s);
}

NVL_BENCH(split, futex_pingpong_split)
{
	int n = nvl_bench_quick(ctx) ? 200 : 2000, ns = 0, nx = 0, ret = 0;
	double *same = calloc(n, sizeof(double));
	double *cross = calloc(n, sizeof(double));
	double cpu[2] = {0}, rounds[2] = {0};
	struct partner p = {0};
	int64_t c0;
	pthread_t t;
	int k;

	if (!same || !cross || sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		ret = same && cross ? -ENODEV : -ENOMEM;
		goto out;
	}
	if (pthread_create(&t, NULL, partner_main, &p)) {
		ret = -EAGAIN;
		goto out;
	}
	if (pin(pthread_self(), 0) || pin(t, 0)) {
		ret = -ENODEV;
		goto stop;
	}
	for (int b = 0; ns < n || nx < n; b++) {
		bool x = b & 1;

		if (pin(t, x ? 1 : 0)) {
			ret = -ENODEV;
			goto stop;
		}
		round_trip(&p); /* the partner moves */
		c0 = nvl_bench_thread_cpu_ns();
		k = 0;
		for (int i = 0; i < SPLIT_BLOCK; i++, k++) {
			if (x && nx < n)
				cross[nx++] = round_trip(&p);
			else if (!x && ns < n)
				same[ns++] = round_trip(&p);
			else
				break;
		}
		cpu[x] += (double)(nvl_bench_thread_cpu_ns() - c0);
		rounds[x] += k;
	}
stop:
	atomic_store(&p.quit, true);
	atomic_fetch_add(&p.word, 2);
	nvl_bench_futex_wake(&p.word);
	pthread_join(t, NULL);
	unpin(pthread_self());
	if (!ret)
		nvl_bench_report_extra(
			ctx, "futex_pingpong_split",
			nvl_bench_median_of(cross, n), "ns", NULL, "same_ns",
			nvl_bench_median_of(same, n), "cross_waker_cpu_ns",
			cpu[1] / rounds[1], "same_waker_cpu_ns",
			cpu[0] / rounds[0], NULL);
out:
	free(same);
	free(cross);
	return ret;
}

struct rl_task {
	int tid;
	long long vcs;
};

/* the model's runlist threads (named nvl-rl<id>, model/fifo.c) */
static int rl_tasks(struct rl_task *t, int max)
{
	int tid[16], n = nvb_tasks_named("nvl-rl", tid, max < 16 ? max : 16);

	for (int i = 0; i < n; i++) {
		t[i].tid = tid[i];
		t[i].vcs = nvb_task_vcs(tid[i]);
	}
	return n;
}

static double exec_once(struct nvl_client *c, uint32_t ch, uint32_t sync)
{
	struct nvl_exec_push p = {.va = NVB_VA_PB, .len = 4};
	struct nvl_vm_sync s = {.handle = sync};
	int64_t t0 = nvl_bench_now_ns();

	if (nvl_exec(c, ch, &p, 1, NULL, 0, &s, 1, 0) || nvb_wait(c, &sync, 1))
		return -1;
	return (double)(nvl_bench_now_ns() - t0);
}

NVL_BENCH(split, exec_latency_split)
{
	int n = nvl_bench_quick(ctx) ? 200 : 2000, ns = 0, nx = 0, nt, rl = -1;
	double *all = calloc(n, sizeof(double));
	double *same = calloc(n, sizeof(double));
	double *cross = calloc(n, sizeof(double));
	struct nvl_device *dev = NULL;
	struct nvl_client *c = NULL;
	uint32_t vm = 0, pb = 0, ch = 0, sync = 0, *ppb = NULL;
	struct rl_task t[16];
	long long best = 0;
	int ret = -ENOMEM;

	if (!all || !same || !cross)
		goto out;
	ret = nvl_device_open(NULL, NULL, &dev);
	if (!ret)
		ret = nvb_client_up(dev, &c, &vm, &pb, &ppb, &ch, &sync);
	if (ret)
		goto out;
	/* the runlist thread serving @ch: the one the warm-up woke most */
	nt = rl_tasks(t, 16);
	for (int i = 0; i < 50 && !ret; i++)
		ret = exec_once(c, ch, sync) < 0 ? -EIO : 0;
	for (int i = 0; i < nt; i++) {
		long long d = nvb_task_vcs(t[i].tid) - t[i].vcs;

		if (d > best) {
			best = d;
			rl = t[i].tid;
		}
	}
	if (!ret && rl < 0)
		ret = -ENODEV; /* no named runlist thread */
	for (int i = 0; i < n && !ret; i++) {
		int cpu;

		all[i] = exec_once(c, ch, sync);
		if (all[i] < 0) {
			ret = -EIO;
			break;
		}
		cpu = nvb_task_cpu(rl);
		if (cpu >= 0 && cpu == sched_getcpu())
			same[ns++] = all[i];
		else if (cpu >= 0)
			cross[nx++] = all[i];
	}
	if (!ret)
		nvl_bench_report_extra(
			ctx, "exec_latency_split", nvl_bench_median_of(all, n),
			"ns", NULL, "same_n", (double)ns, "same_ns",
			ns ? nvl_bench_median_of(same, ns) : 0.0, "cross_n",
			(double)nx, "cross_ns",
			nx ? nvl_bench_median_of(cross, nx) : 0.0, NULL);
out:
	if (c) {
		if (ppb)
			nvl_bo_unmap(c, pb);
		nvl_client_destroy(c);
	}
	nvl_device_close(dev);
	free(all);
	free(same);
	free(cross);
	return ret;
}

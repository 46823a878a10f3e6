// SPDX-License-Identifier: MIT
/*
 * Where fault_to_kill's tail comes from (suite "split", beside
 * exec_latency_split): fault_to_kill's sample, one faulting job on a fresh
 * copy channel, nvl_exec() to its syncobj signalled (with -EFAULT, checked),
 * each one classified after the fact, outside the timed window:
 *
 *  - cross: the model's runlist thread that ran the job (and, on the fault
 *    path, RM's service and the driver's kill) last ran on another CPU
 *    than the one the waiter returned on (its /proc stat field 39), so at
 *    least one of the two hand-offs crossed CPUs; else same;
 *  - slept / preempted: the waiting thread's own voluntary / involuntary
 *    context switches in the window (getrusage(RUSAGE_THREAD));
 *  - fw: the model's GSP firmware thread (nvl-gspfw) was put on a CPU in
 *    the window (its schedstat's count moved: it took the CPU from the
 *    path's threads, or RM's service ran on its own thread, not on the
 *    raising one);
 *  - ev: the same for the driver's GSP event thread (nvl-gsp-ev).
 *
 * value: the median of all samples; mean_ns (what fault_to_kill's samples
 * average) and p90_ns beside it, then each class's count and median. A run
 * whose mean is far above its median was made by a few samples; the
 * classes say what those had in common. Needs the named threads and the
 * kernel's schedstat files (-ENODEV otherwise).
 */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/resource.h>

#include <nouvelle/nouvelle.h>

#include "bench.h"
#include "kit.h"
#include "nvb.h"
#include "nvb_task.h"

#define VA_HOLE (64ull << 20) /* unmapped in nvb_client_up()'s VM */

enum { ALL, SAME, CROSS, SLEPT, PREEMPTED, FW, EV, NCLASS };

static const char *const class_name[NCLASS][2] = {
	[SAME] = {"same_n", "same_ns"},
	[CROSS] = {"cross_n", "cross_ns"},
	[SLEPT] = {"slept_n", "slept_ns"},
	[PREEMPTED] = {"preempted_n", "preempted_ns"},
	[FW] = {"fw_n", "fw_ns"},
	[EV] = {"ev_n", "ev_ns"},
};

struct rc_split {
	struct nvl_client *c;
	uint32_t vm, pb, ch, sync, flen;
	uint32_t *ppb;
	int rl[16], nrl, fw, ev;
	double *v[NCLASS];
	int n[NCLASS];
};

/* one faulting job on a fresh channel, classified; 0 or an error */
static int sample(struct rc_split *s, int rl)
{
	struct nvl_exec_push p = {.va = NVB_VA_PB + 256, .len = s->flen};
	struct nvl_vm_sync sy = {.handle = s->sync};
	long long fw0, ev0;
	struct rusage r0, r1;
	int64_t t0, t1;
	uint32_t ch;
	int st = 0, ret, cpu, rcpu;
	bool fw, ev;
	double ns;

	ret = nvl_channel_create(s->c, s->vm, NVL_ENGINE_COPY, 0, &ch);
	if (ret)
		return ret;
	fw0 = nvb_task_runs(s->fw);
	ev0 = nvb_task_runs(s->ev);
	getrusage(RUSAGE_THREAD, &r0);
	t0 = nvl_bench_now_ns();
	ret = nvl_exec(s->c, ch, &p, 1, NULL, 0, &sy, 1, 0);
	if (!ret)
		ret = nvb_wait(s->c, &s->sync, 1);
	t1 = nvl_bench_now_ns();
	getrusage(RUSAGE_THREAD, &r1);
	cpu = sched_getcpu();
	rcpu = rl >= 0 ? nvb_task_cpu(rl) : -1;
	/* before the channel's free (an RPC: the firmware's thread runs) */
	fw = nvb_task_runs(s->fw) > fw0;
	ev = nvb_task_runs(s->ev) > ev0;
	if (!ret)
		ret = nvl_syncobj_status(s->c, s->sync, 0, &st);
	nvl_channel_destroy(s->c, ch);
	if (!ret && st != -EFAULT)
		ret = -EPROTO;
	if (ret)
		return ret;
	ns = (double)(t1 - t0);
	s->v[ALL][s->n[ALL]++] = ns;
	if (rcpu >= 0 && rcpu == cpu)
		s->v[SAME][s->n[SAME]++] = ns;
	else if (rcpu >= 0)
		s->v[CROSS][s->n[CROSS]++] = ns;
	if (r1.ru_nvcsw > r0.ru_nvcsw)
		s->v[SLEPT][s->n[SLEPT]++] = ns;
	if (r1.ru_nivcsw > r0.ru_nivcsw)
		s->v[PREEMPTED][s->n[PREEMPTED]++] = ns;
	if (fw)
		s->v[FW][s->n[FW]++] = ns;
	if (ev)
		s->v[EV][s->n[EV]++] = ns;
	return 0;
}

/* the runlist thread that serves copy channels: the one warm-up woke most */
static int find_rl(struct rc_split *s)
{
	long long before[16], best = 0;
	int rl = -1, ret = 0;

	s->nrl = nvb_tasks_named("nvl-rl", s->rl, 16);
	for (int i = 0; i < s->nrl; i++)
		before[i] = nvb_task_vcs(s->rl[i]);
	for (int i = 0; i < 20 && !ret; i++)
		ret = sample(s, -1);
	for (int i = 0; i < s->nrl; i++) {
		long long d = nvb_task_vcs(s->rl[i]) - before[i];

		if (d > best) {
			best = d;
			rl = s->rl[i];
		}
	}
	return ret ? ret : rl;
}

static double mean_of(const double *v, int n)
{
	double sum = 0;

	for (int i = 0; i < n; i++)
		sum += v[i];
	return n ? sum / n : 0;
}

/* the @q quantile (0..1) of @v, sorted in place by nvl_bench_median_of() */
static double sorted_q(const double *v, int n, double q)
{
	int i = (int)(q * (n - 1) + 0.5);

	return n ? v[i] : 0;
}

static void report(struct nvl_bench_ctx *ctx, struct rc_split *s)
{
	int n = s->n[ALL];
	double mean = mean_of(s->v[ALL], n), med, p90;
	double x[NCLASS][2];

	med = nvl_bench_median_of(s->v[ALL], n); /* sorts */
	p90 = sorted_q(s->v[ALL], n, 0.9);
	for (int k = SAME; k < NCLASS; k++) {
		x[k][0] = s->n[k];
		x[k][1] = s->n[k] ? nvl_bench_median_of(s->v[k], s->n[k]) : 0;
	}
	nvl_bench_report_extra(
		ctx, "fault_to_kill_split", med, "ns", NULL, "mean_ns", mean,
		"p90_ns", p90, class_name[SAME][0], x[SAME][0],
		class_name[SAME][1], x[SAME][1], class_name[CROSS][0],
		x[CROSS][0], class_name[CROSS][1], x[CROSS][1],
		class_name[SLEPT][0], x[SLEPT][0], class_name[SLEPT][1],
		x[SLEPT][1], class_name[PREEMPTED][0], x[PREEMPTED][0],
		class_name[PREEMPTED][1], x[PREEMPTED][1], class_name[FW][0],
		x[FW][0], class_name[FW][1], x[FW][1], class_name[EV][0],
		x[EV][0], class_name[EV][1], x[EV][1], NULL);
}

NVL_BENCH(split, fault_to_kill_split)
{
	int n = nvl_bench_quick(ctx) ? 100 : 1000, ret = -ENOMEM, rl;
	struct nvl_device *dev = NULL;
	struct nvl_device_info in;
	struct rc_split s = {0};
	int tid[1];

	for (int k = 0; k < NCLASS; k++)
		if (!(s.v[k] = calloc(n, sizeof(double))))
			goto out;
	ret = nvl_device_open(NULL, NULL, &dev);
	if (!ret)
		ret = nvl_device_query(dev, &in);
	if (!ret)
		ret = nvb_client_up(dev, &s.c, &s.vm, &s.pb, &s.ppb, &s.ch,
				    &s.sync);
	if (ret)
		goto out;
	s.flen = nvl_kit_pb_memset(s.ppb + 64, in.ce_class, VA_HOLE, 1, 64) * 4;
	s.fw = nvb_tasks_named("nvl-gspfw", tid, 1) ? tid[0] : -1;
	s.ev = nvb_tasks_named("nvl-gsp-ev", tid, 1) ? tid[0] : -1;
	rl = find_rl(&s);
	if (rl < 0 || s.fw < 0 || s.ev < 0 || nvb_task_runs(s.fw) < 0) {
		ret = rl < -1 ? rl : -ENODEV;
		goto out;
	}
	for (int k = 0; k < NCLASS; k++)
		s.n[k] = 0; /* the warm-up's samples out */
	for (int i = 0; i < n && !ret; i++)
		ret = sample(&s, rl);
	if (!ret)
		report(ctx, &s);
out:
	if (s.c) {
		if (s.ppb)
			nvl_bo_unmap(s.c, s.pb);
		nvl_client_destroy(s.c);
	}
	nvl_device_close(dev);
	for (int k = 0; k < NCLASS; k++)
		free(s.v[k]);
	return ret;
}

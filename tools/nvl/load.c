// SPDX-License-Identifier: MIT
/*
 * DOC: the built-in loads nvl top --run and nvl smi --run watch
 *
 * "copy[:N]": N clients (default 2, at most 8), named copy0, copy1, ...,
 * each with a VM, two 4 MiB VRAM BOs and a copy channel, copying one BO
 * to the other and waiting for each copy, back to back.
 *
 * "busy[:PCT]": one client, "busy", whose channel is busy PCT % (default
 * 50) of every 100 ms period: its job waits on a semaphore acquire (Host
 * SEM_EXECUTE ACQ_CIRC_GEQ) that the CPU releases PCT ms later, and the
 * rest of the period it has no work. Its drm-engine-copy therefore grows
 * by PCT % of the wall time, a known figure for tests of the tools. On a
 * loaded machine the CPU's release and the engine's wake-up come late and
 * each busy spell runs over; so the spell is not a fixed PCT ms but what
 * brings the client's own drm-engine-copy (its fdinfo, read at each
 * period's start) to PCT % of the time since the load began: a late spell
 * shortens the next one instead of raising the share.
 *
 * Pushbuffers are encoded with the bring-up kit's copy-class and Host
 * helpers (tests/lib/kit.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpus.h"
#include "help.h"
#include "term.h"
#include "kit.h"

#define MIB (1ull << 20)
#define BUF (4 * MIB)
#define VA_A (16 * MIB)
#define VA_B (32 * MIB)
#define VA_PB (48 * MIB)
#define KSTART (1ull << 39)
#define LOAD_MAX 8
#define PERIOD_NS 100000000ll

struct worker {
	struct nvl_load *l;
	pthread_t thread;
	bool started;
	struct nvl_client *c;
	uint32_t vm, a, b, pb, chan, sync;
	void *pa, *pb_cpu;
	uint32_t *ppb;
	unsigned pct; /* busy: the duty; copy: 0 */
};

struct nvl_load {
	struct nvl_device *dev;
	struct nvl_device_info info;
	int stop; /* atomic */
	unsigned n;
	struct worker w[LOAD_MAX];
};

static int bo(struct worker *w, uint64_t va, uint32_t *h, void **cpu)
{
	struct nvl_vm_bind_op op = {
		.op = NVL_VM_BIND_OP_MAP, .addr = va, .range = BUF};
	int ret = nvl_bo_create(w->c, BUF, NVL_BO_DOMAIN_VRAM, 0,
				NVL_BO_CPU_VISIBLE, h);

	if (!ret)
		ret = nvl_bo_map(w->c, *h, cpu);
	op.handle = *h;
	if (!ret)
		ret = nvl_vm_bind(w->c, w->vm, 0, &op, 1, NULL, 0, NULL, 0, 0);
	return ret;
}

static int worker_up(struct nvl_load *l, struct worker *w, const char *name)
{
	struct nvl_vm_create_args va = {.start = 1 * MIB,
					.end = 1ull << 40,
					.kernel_start = KSTART,
					.kernel_range = NVL_EXEC_KERNEL_RANGE};
	void *tmp;
	int ret;

	w->l = l;
	ret = nvl_device_client_create(l->dev, &w->c);
	if (ret)
		return ret;
	ret = nvl_client_set_name(w->c, name);
	if (!ret)
		ret = nvl_vm_create(w->c, &va, &w->vm);
	if (!ret)
		ret = bo(w, VA_A, &w->a, &w->pa);
	if (!ret)
		ret = bo(w, VA_B, &w->b, &tmp);
	if (!ret)
		ret = bo(w, VA_PB, &w->pb, &w->pb_cpu);
	if (!ret)
		ret = nvl_channel_create(w->c, w->vm, NVL_ENGINE_COPY, 0,
					 &w->chan);
	if (!ret)
		ret = nvl_syncobj_create(w->c, 0, &w->sync);
	w->ppb = w->pb_cpu;
	return ret;
}

static void worker_down(struct worker *w)
{
	if (!w->c)
		return;
	/* the client's destruction closes every handle, maps included */
	if (w->a)
		nvl_bo_unmap(w->c, w->a);
	if (w->b)
		nvl_bo_unmap(w->c, w->b);
	if (w->pb)
		nvl_bo_unmap(w->c, w->pb);
	nvl_client_destroy(w->c);
	w->c = NULL;
}

static int run_wait(struct worker *w, uint32_t off, uint32_t ndw,
		    volatile uint32_t *release, uint32_t value,
		    int64_t release_ns)
{
	struct nvl_exec_push p = {.va = VA_PB + off, .len = ndw * 4};
	struct nvl_vm_sync s = {.handle = w->sync};
	int ret = nvl_exec(w->c, w->chan, &p, 1, NULL, 0, &s, 1, 0);

	if (ret)
		return ret;
	if (release) {
		int64_t ns = release_ns;

		nanosleep(&(struct timespec){ns / 1000000000, ns % 1000000000},
			  NULL);
		__atomic_store_n(release, value, __ATOMIC_RELEASE);
	}
	return nvl_syncobj_wait(w->c, &w->sync, NULL, 1,
				nvl_now_ns() + 10000000000ll, 0, NULL);
}

/* the client's drm-engine-copy (ns), or -1 */
static int64_t copy_busy_ns(struct worker *w)
{
	char buf[2048];
	const char *p;
	unsigned long long v;

	if (nvl_client_fdinfo(w->c, buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, "drm-engine-copy:");
	if (!p || sscanf(p, "drm-engine-copy: %llu", &v) != 1)
		return -1;
	return (int64_t)v;
}

/* this period's busy spell: what brings the client's busy time to pct %
 * of the time since @start at the period's end, within 0 .. the period */
static int64_t busy_spell(struct worker *w, int64_t start, int64_t t0)
{
	int64_t busy = copy_busy_ns(w), spell;

	if (busy < 0)
		return PERIOD_NS * w->pct / 100;
	spell = (t0 + PERIOD_NS - start) * w->pct / 100 - busy;
	return spell < 0 ? 0 : spell > PERIOD_NS ? PERIOD_NS : spell;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct nvl_load *l = w->l;
	volatile uint32_t *sem = w->pa;
	uint32_t seq = 0, n;
	int64_t start = nvl_now_ns();

	while (!__atomic_load_n(&l->stop, __ATOMIC_RELAXED)) {
		int64_t t0 = nvl_now_ns();

		if (!w->pct) {
			n = nvl_kit_pb_copy(w->ppb, l->info.ce_class, VA_B,
					    VA_A, BUF);
			if (run_wait(w, 0, n, NULL, 0, 0))
				break;
			continue;
		}
		/* a job blocked on an acquire for pct % of the period */
		seq++;
		n = nvl_kit_pb_acquire(w->ppb + (seq % 16) * 16, VA_A, seq);
		if (run_wait(w, (seq % 16) * 64, n, sem, seq,
			     busy_spell(w, start, t0)))
			break;
		{
			int64_t rest = t0 + PERIOD_NS - nvl_now_ns();

			if (rest > 0)
				nanosleep(&(struct timespec){0, rest}, NULL);
		}
	}
	return NULL;
}

/* WORKLOAD -> clients and busy percent (0: copy); false when malformed */
static bool load_parse(const char *workload, unsigned *n_out, unsigned *pct_out)
{
	unsigned n = 2, pct = 0;
	const char *arg = strchr(workload, ':');
	char *end = NULL;

	if (!strncmp(workload, "copy", 4) &&
	    (arg == workload + 4 || !workload[4])) {
		if (arg)
			n = (unsigned)strtoul(arg + 1, &end, 10);
		if ((arg && (*end || !arg[1] || arg[1] == '-')) || !n ||
		    n > LOAD_MAX)
			return false;
	} else if (!strncmp(workload, "busy", 4) &&
		   (arg == workload + 4 || !workload[4])) {
		pct = 50;
		if (arg)
			pct = (unsigned)strtoul(arg + 1, &end, 10);
		if ((arg && (*end || !arg[1] || arg[1] == '-')) || !pct ||
		    pct > 99)
			return false;
		n = 1;
	} else {
		return false;
	}
	*n_out = n;
	*pct_out = pct;
	return true;
}

bool nvl_load_valid(const char *workload, const char *cmd)
{
	unsigned n, pct;

	if (load_parse(workload, &n, &pct))
		return true;
	nvl_usage_error(cmd,
			"unknown workload '%s' (copy[:N], N 1..%d; "
			"busy[:PCT], PCT 1..99)",
			workload, LOAD_MAX);
	return false;
}

int nvl_load_start(struct nvl_device *dev, const char *workload,
		   const char *cmd, struct nvl_load **out)
{
	struct nvl_load *l;
	unsigned n, pct;
	int ret = 0;

	if (!load_parse(workload, &n, &pct))
		goto bad;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->dev = dev;
	nvl_device_query(dev, &l->info);
	for (unsigned i = 0; i < n && !ret; i++) {
		char name[16];

		snprintf(name, sizeof(name), pct ? "busy" : "copy%u", i);
		l->w[i].pct = pct;
		ret = worker_up(l, &l->w[i], name);
		l->n = i + 1;
	}
	for (unsigned i = 0; i < n && !ret; i++) {
		ret = -pthread_create(&l->w[i].thread, NULL, worker_main,
				      &l->w[i]);
		l->w[i].started = !ret;
	}
	if (ret) {
		nvl_tool_fail(cmd, "workload '%s': %s", workload,
			      nvl_last_error());
		nvl_load_stop(l);
		return ret;
	}
	*out = l;
	return 0;
bad:
	nvl_tool_fail(cmd,
		      "unknown workload '%s' (copy[:N], N 1..%d; "
		      "busy[:PCT], PCT 1..99)",
		      workload, LOAD_MAX);
	return -EINVAL;
}

void nvl_load_stop(struct nvl_load *l)
{
	if (!l)
		return;
	__atomic_store_n(&l->stop, 1, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < l->n; i++) {
		struct worker *w = &l->w[i];

		/* a busy job waits for its release: give it */
		if (w->pa)
			__atomic_store_n((uint32_t *)w->pa, UINT32_MAX / 2,
					 __ATOMIC_RELEASE);
		if (w->started)
			pthread_join(w->thread, NULL);
	}
	for (unsigned i = 0; i < l->n; i++)
		worker_down(&l->w[i]);
	free(l);
}

// SPDX-License-Identifier: MIT
/*
 * Scheduler benchmarks (suite "sched"), all on the null backend:
 *  - null_jobs_1/16/1024: jobs per second through one ring with that many
 *    entities (pushed round robin, no dependencies, delay 0), from the
 *    first push until every job was freed — job allocation, fences, run,
 *    completion and free_job included; null_jobs_1_worker is null_jobs_1
 *    with the direct-run path off (every job through a pool worker);
 *  - push_run_latency_worker (the headline): median ns from
 *    nvl_sched_entity_push_job() to run_job() on an idle scheduler (one
 *    way) through a pool worker, the path any job can take (a worker must
 *    wake up), against the futex ping-pong round trip; the direct path is
 *    reported beside it (field direct_ns) and as push_run_latency: run_job()
 *    called in the pushing thread, which only an idle scheduler allows;
 *  - idle_scheduler_bytes: heap growth per idle one-entity scheduler
 *    (mallinfo2 over 10,000 of them).
 */
#include <malloc.h>
#include <stdlib.h>

#include "bench.h"
#include "base/alloc.h"
#include "base/time.h"
#include "sched/null_backend.h"
#include "sched/sched.h"

struct jobs_bench {
	int entities;
	int jobs;
	uint32_t flags;
	bool failed;
};

static double jobs_sample(void *arg)
{
	struct jobs_bench *b = arg;
	struct nvl_sched_null_args a = {
		.credit_limit = 64, .name = "bench", .sched_flags = b->flags};
	struct nvl_sched_null *ring;
	struct nvl_sched_entity *es;
	int64_t t0, t1;

	if (nvl_sched_null_create(&a, &ring)) {
		b->failed = true;
		return 0;
	}
	es = calloc(b->entities, sizeof(*es));
	for (int i = 0; es && i < b->entities; i++)
		if (nvl_sched_entity_init(&es[i], NVL_SCHED_PRIO_NORMAL,
					  nvl_sched_null_sched(ring)))
			b->failed = true;
	if (!es || b->failed) {
		b->failed = true;
		free(es);
		nvl_sched_null_destroy(ring);
		return 0;
	}
	t0 = nvl_bench_now_ns();
	for (int i = 0; i < b->jobs; i++) {
		struct nvl_sched_null_job *j;

		if (nvl_sched_null_job_create(ring, &es[i % b->entities], 1, 0,
					      &j) ||
		    nvl_sched_job_arm(&j->base) ||
		    nvl_sched_entity_push_job(&j->base)) {
			b->failed = true;
			break;
		}
	}
	if (nvl_sched_null_wait_freed(ring, b->jobs, 30 * NVL_NSEC_PER_SEC))
		b->failed = true;
	t1 = nvl_bench_now_ns();
	for (int i = 0; i < b->entities; i++)
		nvl_sched_entity_fini(&es[i]);
	free(es);
	nvl_sched_null_destroy(ring);
	return (double)b->jobs * 1e9 / (double)(t1 - t0);
}

static double jobs_per_s(struct nvl_bench_ctx *ctx, int entities,
			 uint32_t flags)
{
	struct jobs_bench b = {.entities = entities,
			       .flags = flags,
			       .jobs = nvl_bench_quick(ctx) ? 20000 : 200000};
	double r;

	jobs_sample(&b); /* warm-up: heap growth, pool threads */
	r = nvl_bench_median(nvl_bench_quick(ctx) ? 3 : 5, jobs_sample, &b);

	return b.failed ? -1 : r;
}

NVL_BENCH(sched, null_jobs)
{
	double j1 = jobs_per_s(ctx, 1, 0);
	double j16 = jobs_per_s(ctx, 16, 0);
	double j1024 = jobs_per_s(ctx, 1024, 0);
	double jw = jobs_per_s(ctx, 1, NVL_SCHED_NO_DIRECT_RUN);

	if (j1 <= 0 || j16 <= 0 || j1024 <= 0 || jw <= 0)
		return -1;
	nvl_bench_report(ctx, "null_jobs_1", j1, "jobs/s", NULL);
	nvl_bench_report_vs(ctx, "null_jobs_16", j16, "jobs/s", "null_jobs_1",
			    j1);
	nvl_bench_report_vs(ctx, "null_jobs_1024", j1024, "jobs/s",
			    "null_jobs_1", j1);
	nvl_bench_report_vs(ctx, "null_jobs_1_worker", jw, "jobs/s",
			    "null_jobs_1", j1);
	return 0;
}

/* ---- push -> run_job latency ------------------------------------------ */

static _Atomic int64_t run_at;

static void latency_hook(struct nvl_sched_null_job *job, void *arg)
{
	(void)job;
	(void)arg;
	atomic_store(&run_at, nvl_bench_now_ns());
}

static double latency(struct nvl_bench_ctx *ctx, uint32_t flags, bool *ok)
{
	struct nvl_sched_null_args a = {.credit_limit = 4,
					.name = "lat",
					.sched_flags = flags,
					.on_run = latency_hook};
	int n = nvl_bench_quick(ctx) ? 2000 : 20000;
	struct nvl_sched_null *ring;
	struct nvl_sched_entity e;
	double *v = malloc(n * sizeof(*v)), r;

	*ok = false;
	if (!v || nvl_sched_null_create(&a, &ring)) {
		free(v);
		return 0;
	}
	if (nvl_sched_entity_init(&e, NVL_SCHED_PRIO_NORMAL,
				  nvl_sched_null_sched(ring)))
		goto out;
	for (int i = 0; i < n; i++) {
		struct nvl_sched_null_job *j;
		struct nvl_fence *f;
		int64_t t0;

		if (nvl_sched_null_job_create(ring, &e, 1, 0, &j) ||
		    nvl_sched_job_arm(&j->base))
			goto out_e;
		f = nvl_fence_get(nvl_sched_job_finished(&j->base));
		atomic_store(&run_at, 0);
		t0 = nvl_bench_now_ns();
		if (nvl_sched_entity_push_job(&j->base))
			goto out_e;
		/* Idle again before the next sample. */
		nvl_fence_wait(f, NVL_TIMEOUT_INFINITE);
		nvl_fence_put(f);
		v[i] = (double)(atomic_load(&run_at) - t0);
	}
	*ok = true;
out_e:
	nvl_sched_entity_fini(&e);
out:
	nvl_sched_null_destroy(ring);
	r = *ok ? nvl_bench_median_of(v, n) : 0;
	free(v);
	return r;
}

NVL_BENCH(sched, push_run_latency)
{
	bool ok1, ok2;
	double direct = latency(ctx, 0, &ok1);
	double worker = latency(ctx, NVL_SCHED_NO_DIRECT_RUN, &ok2);

	if (!ok1 || !ok2)
		return -1;
	/* The headline first: the worker path, the direct one beside it. */
	nvl_bench_report_label(
		ctx, "push_run_latency_worker", worker, "ns", "futex_pingpong",
		"headline: push to run_job through a pool worker", "direct_ns",
		direct);
	nvl_bench_report_label(ctx, "push_run_latency", direct, "ns",
			       "futex_pingpong",
			       "direct path: run_job in the pushing thread "
			       "(idle scheduler only)",
			       NULL, 0);
	return 0;
}

/* ---- idle scheduler footprint ----------------------------------------- */

static struct nvl_fence *noop_run(struct nvl_sched_job *job)
{
	(void)job;
	return NULL;
}

static void noop_free(struct nvl_sched_job *job)
{
	nvl_sched_job_cleanup(job);
}

static const struct nvl_sched_backend_ops noop_ops = {
	.run_job = noop_run,
	.free_job = noop_free,
};

/* Under ASan/TSan malloc is the sanitizer's: ask it, mallinfo2 sees 0. */
extern size_t __sanitizer_get_current_allocated_bytes(void)
	__attribute__((weak));

static double heap_bytes(void)
{
	if (__sanitizer_get_current_allocated_bytes)
		return (double)__sanitizer_get_current_allocated_bytes();
	return (double)mallinfo2().uordblks;
}

struct chan {
	struct nvl_sched *sched;
	struct nvl_sched_entity *e;
};

NVL_BENCH(sched, idle_scheduler_bytes)
{
	const int n = 10000;
	struct nvl_sched_args a = {.ops = &noop_ops,
				   .credit_limit = 64,
				   .timeout_ns = 5 * NVL_NSEC_PER_SEC,
				   .name = "channel"};
	struct chan *c = calloc(n, sizeof(*c));
	struct nvl_sched *warm;
	double before, after;
	int64_t t0, t_create, t_destroy;
	int ok = 0;

	if (!c || nvl_sched_create(&a, &warm)) { /* starts the pool */
		free(c);
		return -1;
	}
	before = heap_bytes();
	t0 = nvl_bench_now_ns();
	for (int i = 0; i < n; i++) {
		c[i].e = nvl_malloc(sizeof(*c[i].e));
		if (!c[i].e || nvl_sched_create(&a, &c[i].sched) ||
		    nvl_sched_entity_init(c[i].e, NVL_SCHED_PRIO_NORMAL,
					  c[i].sched))
			break;
		ok++;
	}
	t_create = nvl_bench_now_ns() - t0;
	after = heap_bytes();
	t0 = nvl_bench_now_ns();
	for (int i = 0; i < n; i++) {
		if (c[i].sched && c[i].e)
			nvl_sched_entity_fini(c[i].e);
		nvl_sched_destroy(c[i].sched);
		nvl_free(c[i].e);
	}
	t_destroy = nvl_bench_now_ns() - t0;
	nvl_sched_destroy(warm);
	free(c);
	if (ok != n)
		return -1;
	nvl_bench_report(ctx, "idle_scheduler_bytes", (after - before) / n,
			 "bytes", NULL);
	nvl_bench_report(ctx, "scheduler_create_ns", (double)t_create / n, "ns",
			 NULL);
	nvl_bench_report(ctx, "scheduler_destroy_ns", (double)t_destroy / n,
			 "ns", NULL);
	return 0;
}

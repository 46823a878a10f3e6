// SPDX-License-Identifier: MIT
/*
 * DOC: Benchmark harness
 *
 * Registration, selection, JSON/text printing and the physical-limit
 * baselines. Each baseline is measured at most once per run and only when a
 * selected benchmark refers to it, so `nvl bench sync` costs no memcpy run.
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "nvl_config.h"
#include "bench.h"
#include "help.h" /* tools/nvl: bench.c is linked into nvl only */
#include "term.h"

struct nvl_bench_ctx {
	bool json;
	bool quick;
	const char *suite;
	double base_memcpy, base_memset, base_futex, base_random;
	int failures;
};

static struct nvl_bench_def *defs;

void nvl_bench_register(struct nvl_bench_def *def)
{
	/* Keep registration order stable: append. */
	struct nvl_bench_def **p = &defs;

	while (*p)
		p = &(*p)->next;
	def->next = NULL;
	*p = def;
}

static int64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

int64_t nvl_bench_now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

int64_t nvl_bench_thread_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double nvl_bench_median_of(double *v, int n)
{
	if (n <= 0)
		return 0;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double nvl_bench_median(int reps, double (*sample)(void *arg), void *arg)
{
	double v[64];

	if (reps > 64)
		reps = 64;
	if (reps < 1)
		reps = 1;
	for (int i = 0; i < reps; i++)
		v[i] = sample(arg);
	return nvl_bench_median_of(v, reps);
}

bool nvl_bench_quick(const struct nvl_bench_ctx *ctx)
{
	return ctx->quick;
}

/* ---- baselines ------------------------------------------------------ */

struct bw_arg {
	char *src, *dst;
	size_t size;
	int loops;
	bool set;
};

static double bw_sample(void *p)
{
	struct bw_arg *a = p;
	int64_t t0 = nvl_bench_now_ns(), t1;

	for (int i = 0; i < a->loops; i++) {
		if (a->set)
			memset(a->dst, i, a->size);
		else
			memcpy(a->dst, a->src, a->size);
		nvl_bench_do_not_optimize(a->dst);
	}
	t1 = nvl_bench_now_ns();
	return (double)a->size * a->loops * 1e9 / (double)(t1 - t0);
}

static double bandwidth(bool quick, bool set)
{
	struct bw_arg a = {.size = (size_t)(quick ? 16 : 64) << 20,
			   .loops = quick ? 2 : 4,
			   .set = set};
	double r;

	a.src = malloc(a.size);
	a.dst = malloc(a.size);
	if (!a.src || !a.dst) {
		free(a.src);
		free(a.dst);
		return 0;
	}
	/* Fault every page in before timing. */
	memset(a.src, 1, a.size);
	memset(a.dst, 2, a.size);
	r = nvl_bench_median(quick ? 3 : 7, bw_sample, &a);
	free(a.src);
	free(a.dst);
	return r;
}

double nvl_bench_memcpy_bandwidth(bool quick)
{
	return bandwidth(quick, false);
}

double nvl_bench_memset_bandwidth(bool quick)
{
	return bandwidth(quick, true);
}

struct pingpong {
	_Atomic uint32_t word;
	int iters;
};

void nvl_bench_futex_wait(_Atomic uint32_t *w, uint32_t val)
{
	syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

void nvl_bench_futex_wake(_Atomic uint32_t *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* The word counts turns: even = ping's turn, odd = pong's turn. */
static void *pong_thread(void *p)
{
	struct pingpong *pp = p;

	for (int i = 0; i < pp->iters; i++) {
		uint32_t want = 2u * (uint32_t)i + 1, v;

		while ((v = atomic_load(&pp->word)) != want)
			nvl_bench_futex_wait(&pp->word, v);
		atomic_store(&pp->word, want + 1);
		nvl_bench_futex_wake(&pp->word);
	}
	return NULL;
}

static double pingpong_sample(void *arg)
{
	struct pingpong pp = {.iters = *(int *)arg};
	pthread_t t;
	int64_t t0, t1;

	atomic_init(&pp.word, 0);
	if (pthread_create(&t, NULL, pong_thread, &pp))
		return 0;
	t0 = nvl_bench_now_ns();
	for (int i = 0; i < pp.iters; i++) {
		uint32_t want = 2u * (uint32_t)i + 2, v;

		atomic_store(&pp.word, want - 1);
		nvl_bench_futex_wake(&pp.word);
		while ((v = atomic_load(&pp.word)) != want)
			nvl_bench_futex_wait(&pp.word, v);
	}
	t1 = nvl_bench_now_ns();
	pthread_join(t, NULL);
	return (double)(t1 - t0) / pp.iters;
}

double nvl_bench_futex_pingpong_ns(bool quick)
{
	int iters = quick ? 2000 : 20000;

	return nvl_bench_median(quick ? 3 : 7, pingpong_sample, &iters);
}

double nvl_bench_futex_sample_ns(bool quick)
{
	int iters = quick ? 200 : 2000;

	return pingpong_sample(&iters);
}

double nvl_bench_median_vs_futex(bool quick, int reps,
				 double (*sample)(void *arg), void *arg,
				 double *base_ns)
{
	double v[64], b[64];

	if (reps > 64)
		reps = 64;
	if (reps < 1)
		reps = 1;
	for (int i = 0; i < reps; i++) {
		b[i] = nvl_bench_futex_sample_ns(quick);
		v[i] = sample(arg);
	}
	*base_ns = nvl_bench_median_of(b, reps);
	return nvl_bench_median_of(v, reps);
}

/*
 * Dependent random reads: a pointer chase through one random cycle over a
 * buffer far larger than the caches (Sattolo's shuffle, so every step is a
 * new line), on huge pages where the kernel gives them so that it measures
 * the memory, not the page walks. The physical limit of any lookup that
 * must follow pointers through a structure of that size.
 */
struct chase {
	uint32_t *next;
	size_t n;
	long steps;
};

static double chase_sample(void *arg)
{
	struct chase *c = arg;
	uint32_t i = 0;
	int64_t t0 = nvl_bench_now_ns(), t1;

	for (long k = 0; k < c->steps; k++)
		i = c->next[(size_t)i * 16];
	t1 = nvl_bench_now_ns();
	nvl_bench_do_not_optimize(&i);
	return (double)c->steps * 1e9 / (double)(t1 - t0);
}

double nvl_bench_random_access_rate(bool quick)
{
	/* one 64-byte line per element: index i lives at next[i * 16] */
	struct chase c = {.n = (size_t)(quick ? 64 : 256) << 20 >> 6,
			  .steps = quick ? 200000 : 1000000};
	size_t bytes = c.n * 64;
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	uint32_t *perm;
	double r;

	if (posix_memalign((void **)&c.next, 2u << 20, bytes))
		return 0;
	madvise(c.next, bytes, MADV_HUGEPAGE);
	perm = malloc(c.n * sizeof(*perm));
	if (!perm) {
		free(c.next);
		return 0;
	}
	for (size_t i = 0; i < c.n; i++)
		perm[i] = (uint32_t)i;
	for (size_t i = c.n - 1; i > 0; i--) { /* Sattolo: one cycle */
		size_t j;

		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		j = rng % i;
		uint32_t t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	memset(c.next, 0, bytes);
	for (size_t i = 0; i < c.n; i++)
		c.next[(size_t)perm[i] * 16] = perm[(i + 1) % c.n];
	free(perm);
	r = nvl_bench_median(quick ? 3 : 5, chase_sample, &c);
	free(c.next);
	return r;
}

double nvl_bench_baseline(struct nvl_bench_ctx *ctx, const char *name)
{
	if (!strcmp(name, "memcpy_bandwidth")) {
		if (!ctx->base_memcpy)
			ctx->base_memcpy =
				nvl_bench_memcpy_bandwidth(ctx->quick);
		return ctx->base_memcpy;
	}
	if (!strcmp(name, "memset_bandwidth")) {
		if (!ctx->base_memset)
			ctx->base_memset =
				nvl_bench_memset_bandwidth(ctx->quick);
		return ctx->base_memset;
	}
	if (!strcmp(name, "random_access_rate")) {
		if (!ctx->base_random)
			ctx->base_random =
				nvl_bench_random_access_rate(ctx->quick);
		return ctx->base_random;
	}
	if (!strcmp(name, "futex_pingpong")) {
		if (!ctx->base_futex)
			ctx->base_futex =
				nvl_bench_futex_pingpong_ns(ctx->quick);
		return ctx->base_futex;
	}
	nvl_tool_fail("bench", "unknown baseline '%s'", name);
	ctx->failures++;
	return 0;
}

NVL_BENCH(baseline, memcpy_bandwidth)
{
	nvl_bench_report(ctx, "memcpy_bandwidth",
			 nvl_bench_baseline(ctx, "memcpy_bandwidth"), "bytes/s",
			 NULL);
	return 0;
}

NVL_BENCH(baseline, memset_bandwidth)
{
	nvl_bench_report(ctx, "memset_bandwidth",
			 nvl_bench_baseline(ctx, "memset_bandwidth"), "bytes/s",
			 NULL);
	return 0;
}

NVL_BENCH(baseline, random_access_rate)
{
	nvl_bench_report(ctx, "random_access_rate",
			 nvl_bench_baseline(ctx, "random_access_rate"),
			 "accesses/s", NULL);
	return 0;
}

NVL_BENCH(baseline, futex_pingpong)
{
	nvl_bench_report(ctx, "futex_pingpong",
			 nvl_bench_baseline(ctx, "futex_pingpong"), "ns", NULL);
	return 0;
}

/* ---- printing ------------------------------------------------------- */

static void print_num(const char *key, double v)
{
	if (v == (double)(int64_t)v && v < 9e15 && v > -9e15)
		printf(",\"%s\":%lld", key, (long long)v);
	else
		printf(",\"%s\":%.6g", key, v);
}

/* Set by nvl_bench_report_label() for the one report it makes. */
static const char *cur_label;

static void report(struct nvl_bench_ctx *ctx, const char *name, double value,
		   const char *unit, const char *baseline, double base_value,
		   const char *key, double kv, va_list *ap)
{
	if (ctx->json) {
		printf("{\"bench\":\"%s\",\"name\":\"%s\"", ctx->suite, name);
		print_num("value", value);
		printf(",\"unit\":\"%s\"", unit);
		if (cur_label)
			printf(",\"label\":\"%s\"", cur_label);
		if (baseline) {
			printf(",\"baseline\":\"%s\"", baseline);
			print_num("baseline_value", base_value);
			print_num("ratio", base_value ? value / base_value : 0);
		}
		while (key) {
			print_num(key, kv);
			key = va_arg(*ap, const char *);
			if (key)
				kv = va_arg(*ap, double);
		}
		printf("}\n");
	} else {
		printf("%-8s %-28s %16.6g %-10s", ctx->suite, name, value,
		       unit);
		if (baseline)
			printf("  %s=%.6g ratio=%.3f", baseline, base_value,
			       base_value ? value / base_value : 0);
		while (key) {
			printf("  %s=%.6g", key, kv);
			key = va_arg(*ap, const char *);
			if (key)
				kv = va_arg(*ap, double);
		}
		if (cur_label)
			printf("  (%s)", cur_label);
		printf("\n");
	}
	fflush(stdout);
}

void nvl_bench_report(struct nvl_bench_ctx *ctx, const char *name, double value,
		      const char *unit, const char *baseline)
{
	double bv = baseline ? nvl_bench_baseline(ctx, baseline) : 0;

	report(ctx, name, value, unit, baseline, bv, NULL, 0, NULL);
}

void nvl_bench_report_vs(struct nvl_bench_ctx *ctx, const char *name,
			 double value, const char *unit, const char *baseline,
			 double baseline_value)
{
	report(ctx, name, value, unit, baseline, baseline_value, NULL, 0, NULL);
}

void nvl_bench_report_extra(struct nvl_bench_ctx *ctx, const char *name,
			    double value, const char *unit,
			    const char *baseline, const char *key, double v,
			    ...)
{
	double bv = baseline ? nvl_bench_baseline(ctx, baseline) : 0;
	va_list ap;

	va_start(ap, v);
	report(ctx, name, value, unit, baseline, bv, key, v, &ap);
	va_end(ap);
}

void nvl_bench_report_vs_extra(struct nvl_bench_ctx *ctx, const char *name,
			       double value, const char *unit,
			       const char *baseline, double baseline_value,
			       const char *key, double v, ...)
{
	va_list ap;

	va_start(ap, v);
	report(ctx, name, value, unit, baseline, baseline_value, key, v, &ap);
	va_end(ap);
}

void nvl_bench_report_label(struct nvl_bench_ctx *ctx, const char *name,
			    double value, const char *unit,
			    const char *baseline, const char *label,
			    const char *key, double v)
{
	cur_label = label;
	if (key)
		nvl_bench_report_extra(ctx, name, value, unit, baseline, key, v,
				       (const char *)NULL);
	else
		nvl_bench_report(ctx, name, value, unit, baseline);
	cur_label = NULL;
}

/* ---- main ------------------------------------------------------------- */

static bool selected(const struct nvl_bench_def *d, int n, char **names)
{
	if (n == 0)
		return true;
	for (int i = 0; i < n; i++)
		if (!fnmatch(names[i], d->suite, 0) ||
		    !fnmatch(names[i], d->name, 0))
			return true;
	return false;
}

int nvl_bench_main(int argc, char **argv)
{
	static const struct option opts[] = {{"json", no_argument, NULL, 'j'},
					     {"quick", no_argument, NULL, 'q'},
					     {"list", no_argument, NULL, 'L'},
					     {"help", no_argument, NULL, 'h'},
					     {0}};
	struct nvl_bench_ctx ctx = {0};
	bool list = false;
	int c, matched = 0;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":jqLh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			ctx.json = true;
			break;
		case 'q':
			ctx.quick = true;
			break;
		case 'L':
			list = true;
			break;
		case 'h':
			return nvl_help_print(stdout, "bench");
		default:
			return nvl_usage_getopt("bench", c, argv);
		}
	}
	argc -= optind;
	argv += optind;

	/* a NAME that matches nothing is a typo: say so before running any */
	for (int i = 0; i < argc; i++) {
		struct nvl_bench_def *d = defs;

		while (d && !selected(d, 1, &argv[i]))
			d = d->next;
		if (!d) {
			return nvl_usage_error(
				"bench", "no benchmark matches '%s'", argv[i]);
		}
	}
	for (struct nvl_bench_def *d = defs; d; d = d->next) {
		if (!selected(d, argc, argv))
			continue;
		if (!matched++ && !list) {
			long cores = sysconf(_SC_NPROCESSORS_ONLN);

			if (ctx.json)
				printf("{\"bench\":\"meta\",\"name\":"
				       "\"machine\","
				       "\"value\":%ld,\"unit\":\"cores\","
				       "\"build_type\":\"%s\",\"compiler\":\"%"
				       "s\","
				       "\"version\":\"%s\",\"quick\":%s}\n",
				       cores, NVL_BUILD_TYPE, NVL_COMPILER,
				       NVL_VERSION,
				       ctx.quick ? "true" : "false");
			else
				printf("# nouvelle %s, %s build (%s), %ld "
				       "cores\n",
				       NVL_VERSION, NVL_BUILD_TYPE,
				       NVL_COMPILER, cores);
		}
		if (list) {
			/* --json: JSON lines, as every other --json output */
			if (ctx.json)
				printf("{\"bench\":\"%s\",\"name\":\"%s\"}\n",
				       d->suite, d->name);
			else
				printf("%s %s\n", d->suite, d->name);
			continue;
		}
		ctx.suite = d->suite;
		if (d->fn(&ctx)) {
			nvl_tool_fail("bench", "%s/%s failed", d->suite,
				      d->name);
			ctx.failures++;
		}
	}
	if (!matched) {
		return nvl_usage_error("bench", "no benchmark matches");
	}
	return ctx.failures ? 1 : 0;
}

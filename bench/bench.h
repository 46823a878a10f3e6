/* SPDX-License-Identifier: MIT */
/*
 * The benchmark harness behind `nvl bench`.
 *
 * A benchmark is a function registered with NVL_BENCH(suite, name) that
 * measures and reports one or more results with nvl_bench_report(). Results
 * print as one JSON object per line:
 *
 *   {"bench":"sync","name":"fence_pingpong","value":812.5,"unit":"ns",
 *    "baseline":"futex_pingpong","baseline_value":700.1,"ratio":1.16}
 *
 * Baselines (memcpy_bandwidth, memset_bandwidth, futex_pingpong,
 * random_access_rate: dependent cache-missing reads per second) are measured
 * once per run, lazily, by the first result that names them. Report medians
 * of repeated runs: nvl_bench_median() helps.
 */
#ifndef NVL_BENCH_H
#define NVL_BENCH_H

#include <stdbool.h>
#include <stdint.h>

struct nvl_bench_ctx;

typedef int (*nvl_bench_fn)(struct nvl_bench_ctx *ctx);

struct nvl_bench_def {
	const char *suite;
	const char *name;
	nvl_bench_fn fn;
	struct nvl_bench_def *next;
};

void nvl_bench_register(struct nvl_bench_def *def);

/** NVL_BENCH() - define and register a benchmark function. */
#define NVL_BENCH(suite_, name_)                                               \
	static int nvl_bench_fn_##name_(struct nvl_bench_ctx *ctx);            \
	static struct nvl_bench_def nvl_bench_def_##name_ = {                  \
		.suite = #suite_, .name = #name_, .fn = nvl_bench_fn_##name_}; \
	__attribute__((constructor)) static void nvl_bench_reg_##name_(void)   \
	{                                                                      \
		nvl_bench_register(&nvl_bench_def_##name_);                    \
	}                                                                      \
	static int nvl_bench_fn_##name_(struct nvl_bench_ctx *ctx)

/**
 * nvl_bench_report() - print one result.
 * @baseline: name of a harness baseline ("memcpy_bandwidth",
 *            "memset_bandwidth", "futex_pingpong", "random_access_rate"),
 *            or NULL
 */
void nvl_bench_report(struct nvl_bench_ctx *ctx, const char *name, double value,
		      const char *unit, const char *baseline);

/**
 * nvl_bench_report_vs() - print one result against a baseline the benchmark
 * measured itself in the same run (e.g. "malloc_free").
 */
void nvl_bench_report_vs(struct nvl_bench_ctx *ctx, const char *name,
			 double value, const char *unit, const char *baseline,
			 double baseline_value);

/**
 * nvl_bench_report_extra() - print one result with extra numeric fields
 * ("occupancy", ...), given as NULL-terminated name/value pairs.
 */
void nvl_bench_report_extra(struct nvl_bench_ctx *ctx, const char *name,
			    double value, const char *unit,
			    const char *baseline, const char *key, double v,
			    ...);

/**
 * NVL_BENCH_LABEL_MEMCPY_OVERHEAD - label for a ratio against
 * memcpy_bandwidth whose implementation is itself a memcpy (a modelled copy
 * engine, a host-memory move): the ratio is the overhead of our path around
 * that memcpy, not a distance to a physical limit.
 */
#define NVL_BENCH_LABEL_MEMCPY_OVERHEAD "overhead against memcpy"

/**
 * nvl_bench_report_vs_extra() - nvl_bench_report_vs() with extra numeric
 * fields, given as NULL-terminated name/value pairs.
 */
void nvl_bench_report_vs_extra(struct nvl_bench_ctx *ctx, const char *name,
			       double value, const char *unit,
			       const char *baseline, double baseline_value,
			       const char *key, double v, ...);

/**
 * nvl_bench_report_label() - nvl_bench_report() with a "label" field that
 * says what the result (and its ratio) means, and an optional extra numeric
 * field @key (NULL for none) reported beside it.
 */
void nvl_bench_report_label(struct nvl_bench_ctx *ctx, const char *name,
			    double value, const char *unit,
			    const char *baseline, const char *label,
			    const char *key, double v);

/** nvl_bench_baseline() - value of a harness baseline (measured on demand). */
double nvl_bench_baseline(struct nvl_bench_ctx *ctx, const char *name);

/** nvl_bench_quick() - true for short runs (`nvl bench --quick`, tests). */
bool nvl_bench_quick(const struct nvl_bench_ctx *ctx);

/** nvl_bench_now_ns() - monotonic clock for timing. */
int64_t nvl_bench_now_ns(void);

/**
 * nvl_bench_thread_cpu_ns() - the calling thread's CPU time, for figures
 * defined "on one core": on a shared machine wall time also counts the
 * time other tenants held the CPU.
 */
int64_t nvl_bench_thread_cpu_ns(void);

/**
 * nvl_bench_median() - median of @reps samples of @sample(arg), each one
 * measurement in the result's unit.
 */
double nvl_bench_median(int reps, double (*sample)(void *arg), void *arg);

/** nvl_bench_median_of() - median of @n doubles (sorts @v in place). */
double nvl_bench_median_of(double *v, int n);

/** Baseline measurements, also used directly by benchmarks. */
double nvl_bench_memcpy_bandwidth(bool quick);
double nvl_bench_memset_bandwidth(bool quick);
double nvl_bench_futex_pingpong_ns(bool quick);
double nvl_bench_random_access_rate(bool quick);

/**
 * nvl_bench_futex_wait() / nvl_bench_futex_wake() - the raw private futex
 * calls the futex_pingpong baseline makes (wait while *@w is @val; wake
 * one), for benchmarks that build the same round trip in another setting.
 */
void nvl_bench_futex_wait(_Atomic uint32_t *w, uint32_t val);
void nvl_bench_futex_wake(_Atomic uint32_t *w);

/**
 * nvl_bench_futex_sample_ns() - one short futex_pingpong sample (ns per
 * round trip over 2,000 round trips; 200 when @quick), for benchmarks
 * that alternate the baseline with their own samples.
 */
double nvl_bench_futex_sample_ns(bool quick);

/**
 * nvl_bench_median_vs_futex() - nvl_bench_median() of @sample, each of
 * the @reps samples preceded by a nvl_bench_futex_sample_ns(); the
 * baseline samples' median goes to *@base_ns.
 *
 * A latency and its futex_pingpong baseline then see the same machine
 * states: on a virtual machine a futex round trip ranges from under 2 us
 * (busy CPUs) to tens of us (idle vCPUs the host parks), and the state can
 * change between a baseline measured once per process and a benchmark run
 * seconds later: two runs of one latency 15 % apart gave ratios 5x apart.
 */
double nvl_bench_median_vs_futex(bool quick, int reps,
				 double (*sample)(void *arg), void *arg,
				 double *base_ns);

/** nvl_bench_main() - `nvl bench [--json] [--quick] [--list] [NAME...]`. */
int nvl_bench_main(int argc, char **argv);

/**
 * nvl_bench_do_not_optimize() - keep a value alive for the compiler.
 */
static inline void nvl_bench_do_not_optimize(const void *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
}

#endif /* NVL_BENCH_H */

// SPDX-License-Identifier: MIT
/*
 * Interval-tree benchmarks: cost of insert + overlap lookup + remove with a
 * tree of 1,000 and 1,000,000 nodes; their ratio shows O(log n) growth.
 */
#include <stdlib.h>

#include "bench.h"
#include "base/itree.h"

struct tree_bench {
	struct nvl_itree t;
	struct nvl_itree_node *nodes;
	size_t n;
	uint64_t rng;
	int ops;
};

static uint64_t xs(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static double op_sample(void *arg)
{
	struct tree_bench *b = arg;
	struct nvl_itree_node extra;
	int64_t t0 = nvl_bench_now_ns();

	for (int i = 0; i < b->ops; i++) {
		uint64_t a = (xs(&b->rng) % (b->n * 16)) << 12;

		extra.start = a;
		extra.last = a + 4095;
		nvl_itree_insert(&b->t, &extra);
		nvl_bench_do_not_optimize(
			nvl_itree_first(&b->t, a + 100, a + 200));
		nvl_itree_remove(&b->t, &extra);
	}
	return (double)(nvl_bench_now_ns() - t0) / b->ops;
}

static double run(struct nvl_bench_ctx *ctx, size_t n)
{
	struct tree_bench b = {.n = n,
			       .rng = 88172645463325252ull,
			       .ops = nvl_bench_quick(ctx) ? 20000 : 200000};
	double r;

	nvl_itree_init(&b.t);
	b.nodes = malloc(n * sizeof(*b.nodes));
	if (!b.nodes)
		return -1;
	for (size_t i = 0; i < n; i++) {
		uint64_t a = (xs(&b.rng) % (n * 16)) << 12;

		b.nodes[i].start = a;
		b.nodes[i].last = a + 4095;
		nvl_itree_insert(&b.t, &b.nodes[i]);
	}
	r = nvl_bench_median(nvl_bench_quick(ctx) ? 3 : 7, op_sample, &b);
	free(b.nodes);
	return r;
}

NVL_BENCH(base, itree)
{
	double a = run(ctx, 1000);
	double b = run(ctx, 1000000);

	if (a <= 0 || b <= 0)
		return -1;
	nvl_bench_report(ctx, "itree_op_1k", a, "ns", NULL);
	nvl_bench_report(ctx, "itree_op_1m", b, "ns", NULL);
	nvl_bench_report(ctx, "itree_growth", b / a, "ratio", NULL);
	return 0;
}

/* The same operations on the interval B+tree (base/ibtree.h). */
#include "base/ibtree.h"

struct btree_bench {
	struct nvl_ibtree t;
	struct nvl_ibtree_entry *ents;
	size_t n;
	uint64_t rng;
	int ops;
};

static double bop_sample(void *arg)
{
	struct btree_bench *b = arg;
	struct nvl_ibtree_entry extra;
	int64_t t0 = nvl_bench_now_ns();

	for (int i = 0; i < b->ops; i++) {
		uint64_t a = (xs(&b->rng) % (b->n * 16)) << 12;

		extra.start = a;
		extra.last = a + 4095;
		if (nvl_ibtree_insert(&b->t, &extra))
			return -1;
		nvl_bench_do_not_optimize(
			nvl_ibtree_first(&b->t, a + 100, a + 200));
		nvl_ibtree_remove(&b->t, &extra);
	}
	return (double)(nvl_bench_now_ns() - t0) / b->ops;
}

static double brun(struct nvl_bench_ctx *ctx, size_t n, double *bytes)
{
	struct btree_bench b = {.n = n,
				.rng = 88172645463325252ull,
				.ops = nvl_bench_quick(ctx) ? 20000 : 200000};
	double r;

	nvl_ibtree_init(&b.t);
	b.ents = malloc(n * sizeof(*b.ents));
	if (!b.ents)
		return -1;
	for (size_t i = 0; i < n; i++) {
		uint64_t a = (xs(&b.rng) % (n * 16)) << 12;

		b.ents[i].start = a;
		b.ents[i].last = a + 4095;
		if (nvl_ibtree_insert(&b.t, &b.ents[i]))
			return -1;
	}
	r = nvl_bench_median(nvl_bench_quick(ctx) ? 3 : 7, bop_sample, &b);
	*bytes = (double)(nvl_ibtree_bytes(&b.t) + n * sizeof(*b.ents)) / n;
	nvl_ibtree_fini(&b.t);
	free(b.ents);
	return r;
}

NVL_BENCH(base, ibtree)
{
	double bytes_a, bytes_b;
	double a = brun(ctx, 1000, &bytes_a);
	double b = brun(ctx, 1000000, &bytes_b);

	if (a <= 0 || b <= 0)
		return -1;
	nvl_bench_report(ctx, "ibtree_op_1k", a, "ns", NULL);
	nvl_bench_report(ctx, "ibtree_op_1m", b, "ns", NULL);
	nvl_bench_report(ctx, "ibtree_growth", b / a, "ratio", NULL);
	nvl_bench_report(ctx, "ibtree_bytes_per_entry_1m", bytes_b, "bytes",
			 NULL);
	return 0;
}

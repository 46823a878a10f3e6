// SPDX-License-Identifier: MIT
/*
 * Buddy allocator benchmarks: alloc+free pairs per second on a 16 GiB VRAM
 * (4 KiB chunks) held at 90 % occupancy with 4 KiB blocks (buddy_4k) or
 * blocks of 4 KiB, 64 KiB, 2 MiB and 16 MiB (buddy_mixed, with the mean
 * occupancy), and contiguous allocations of 4 KiB to 64 MiB at 50 %
 * occupancy (buddy_contig). The kernel's drm_buddy, built as a userspace
 * program, does about 1.2 M, 8 M and 390 k pairs/s on this kind of machine.
 * buddy_4k_ns is buddy_4k as ns per pair against malloc_free (ns per
 * malloc+free pair of one hot 64-byte object: issue 19's baseline);
 * buddy_4k_random_ns is the same against malloc_free_random (malloc+free
 * pairs of 64 bytes with buddy_4k's access pattern: as many objects held,
 * in records of the same size, a random one freed and its replacement
 * allocated each pair), all measured interleaved in the same run;
 * buddy_4k_hot_ns, at the same occupancy, frees each block right after
 * allocating it, against malloc_free (the same pattern). The random pattern's cost is two dependent
 * cache misses (the record, then the object or block it names) in both.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "bench.h"
#include "mm/buddy.h"

#define PG 4096ull

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25 /* Linux 6.1 */
#endif

struct held {
	struct nvl_list blocks;
	uint64_t size_B;
};

struct bb {
	struct nvl_buddy mm;
	struct held *h;
	size_t n, cap;
	uint64_t used_B, rng;
	double occ_sum;
	uint64_t occ_n;
};

static uint64_t xs(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int take(struct bb *b, uint64_t size_B, unsigned flags)
{
	struct held *h;
	int ret;

	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 4096;
		struct held *nh = realloc(b->h, cap * sizeof(*nh));

		if (!nh)
			return -ENOMEM;
		/* Lists point into the array: relink after moving. */
		for (size_t i = 0; i < b->n; i++) {
			nh[i].blocks.next->prev = &nh[i].blocks;
			nh[i].blocks.prev->next = &nh[i].blocks;
		}
		b->h = nh;
		b->cap = cap;
	}
	h = &b->h[b->n];
	nvl_list_init(&h->blocks);
	ret = nvl_buddy_alloc(&b->mm, 0, 0, size_B, PG, &h->blocks, flags);
	if (ret)
		return ret;
	/* Relink: the list head lives in the array slot. */
	h->size_B = size_B;
	b->n++;
	b->used_B += size_B;
	return 0;
}

static void drop_random(struct bb *b)
{
	size_t i = xs(&b->rng) % b->n;
	struct held *h = &b->h[i];

	nvl_buddy_free_list(&b->mm, &h->blocks, 0);
	b->used_B -= h->size_B;
	b->n--;
	if (i != b->n) {
		struct held *last = &b->h[b->n];

		h->size_B = last->size_B;
		nvl_list_init(&h->blocks);
		nvl_list_splice_tail_init(&last->blocks, &h->blocks);
	}
}

static void bb_fini(struct bb *b)
{
	while (b->n)
		drop_random(b);
	nvl_buddy_fini(&b->mm);
	free(b->h);
}

typedef uint64_t (*size_fn)(uint64_t *rng);

static uint64_t size_4k(uint64_t *rng)
{
	return PG;
}

static uint64_t size_mixed(uint64_t *rng)
{
	static const uint64_t s[] = {4 << 10, 64 << 10, 2 << 20, 16 << 20};

	return s[xs(rng) & 3];
}

static uint64_t size_contig(uint64_t *rng)
{
	unsigned k = (unsigned)(xs(rng) % 15);
	uint64_t pages = (1ull << k) + xs(rng) % (1ull << k);

	return NVL_MIN(pages, 16384ull) * PG;
}

/*
 * Hold @occ of @vram_B, then time @ops pairs: drop random holdings until the
 * next request fits under the target, allocate it.
 */
static double run(struct nvl_bench_ctx *ctx, uint64_t vram_B, double occ,
		  size_fn sz, unsigned flags, long ops, double *mean_occ,
		  double *hot_ns)
{
	struct bb b = {.rng = 0x9e3779b97f4a7c15ull};
	uint64_t target;
	int64_t t0, t1;
	long done = 0;

	if (nvl_buddy_init(&b.mm, vram_B, PG))
		return -1;
	/* Room for every chunk, on huge pages: the holdings are random. */
	b.cap = vram_B / PG + 1;
	b.h = aligned_alloc(2u << 20,
			    NVL_ALIGN_UP(b.cap * sizeof(*b.h), 2u << 20));
	if (!b.h)
		return -1;
	madvise(b.h, NVL_ALIGN_UP(b.cap * sizeof(*b.h), 2u << 20),
		MADV_HUGEPAGE);
	target = (uint64_t)((double)vram_B * occ);
	while (b.used_B < target) {
		uint64_t s = sz(&b.rng);

		if (b.used_B + s > target)
			break;
		if (take(&b, s, flags))
			break;
	}
	t0 = nvl_bench_now_ns();
	while (done < ops) {
		uint64_t s = sz(&b.rng);
		int ret;

		while (b.n && b.used_B + s > target)
			drop_random(&b);
		ret = take(&b, s, flags);
		if (ret == -ENOSPC && b.n) {
			drop_random(&b);
			continue;
		}
		if (ret)
			break;
		b.occ_sum += (double)b.used_B / (double)vram_B;
		b.occ_n++;
		done++;
	}
	t1 = nvl_bench_now_ns();
	if (mean_occ)
		*mean_occ = b.occ_n ? b.occ_sum / (double)b.occ_n : 0;
	if (hot_ns && done == ops) {
		/* Same occupancy, the block freed right after its allocation:
		 * the access pattern of the malloc_free baseline. */
		int64_t h0 = nvl_bench_now_ns();
		long i;

		for (i = 0; i < ops; i++) {
			struct held *h;

			if (take(&b, PG, flags))
				break;
			h = &b.h[--b.n];
			nvl_buddy_free_list(&b.mm, &h->blocks, 0);
			b.used_B -= h->size_B;
		}
		*hot_ns = i < ops ? -1
				  : (double)(nvl_bench_now_ns() - h0) /
					    (double)ops;
	}
	bb_fini(&b);
	if (done < ops)
		return -1;
	return (double)done / ((double)(t1 - t0) / 1e9);
}

static uint64_t vram_size(struct nvl_bench_ctx *ctx)
{
	return nvl_bench_quick(ctx) ? (2ull << 30) : (16ull << 30);
}

/*
 * ns per malloc+free pair of 64 bytes, buddy_4k_random_ns's baseline:
 * @held objects, each named by a record as large as buddy_4k's (struct
 * held) in an array on huge pages like its own; each pair frees the object
 * of a random record and stores a new one there. The same work as a
 * buddy_4k pair minus the allocator: the record's cache miss, then the
 * freed object's (malloc's header is beside it, as a buddy block's state
 * is in the block). Return: ns per pair, or -1.
 */
static double malloc_free_ns(size_t held, long n)
{
	size_t bytes = NVL_ALIGN_UP(held * sizeof(struct held), 2u << 20);
	struct held *r = aligned_alloc(2u << 20, bytes);
	uint64_t rng = 0x2545f4914f6cdd1dull;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	double ns = -1;
	size_t made = 0;
	int64_t t0;

	if (!r)
		return -1;
	madvise(r, bytes, MADV_HUGEPAGE);
	for (; made < held; made++) {
		/* the object's address in the record's first word */
		r[made].blocks.next = malloc(64);
		r[made].size_B = 64;
		if (!r[made].blocks.next)
			goto out;
		lo = NVL_MIN(lo, (uintptr_t)r[made].blocks.next);
		hi = NVL_MAX(hi, (uintptr_t)r[made].blocks.next);
	}
	/*
	 * The buddy's blocks sit on huge pages; so do the objects here (a
	 * floor has no TLB misses the allocator under test does not have):
	 * collapse the heap's 2 MiB pages now. Content is unchanged.
	 */
	lo = NVL_ALIGN_UP(lo, (uintptr_t)2 << 20);
	hi = hi & ~(((uintptr_t)2 << 20) - 1);
	if (hi > lo) {
		madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
		madvise((void *)lo, hi - lo, MADV_COLLAPSE);
	}
	t0 = nvl_bench_now_ns();
	for (long i = 0; i < n; i++) {
		struct held *h = &r[xs(&rng) % held];
		void *p;

		free(h->blocks.next);
		p = malloc(64);
		if (!p)
			goto out;
		nvl_bench_do_not_optimize(p);
		h->blocks.next = p;
	}
	ns = (double)(nvl_bench_now_ns() - t0) / (double)n;
out:
	while (made)
		free(r[--made].blocks.next);
	/* the heap's range is the process's again: no huge pages for later
	 * benchmarks' allocations there (bytes_per_mapping counts RSS) */
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_NOHUGEPAGE);
	free(r);
	return ns;
}

/* ns per malloc+free pair of one hot 64-byte object (malloc_free). */
static double malloc_free_hot_ns(long n)
{
	int64_t t0 = nvl_bench_now_ns();

	for (long i = 0; i < n; i++) {
		void *p = malloc(64);

		nvl_bench_do_not_optimize(p);
		free(p);
	}
	return (double)(nvl_bench_now_ns() - t0) / (double)n;
}

NVL_BENCH(mm, buddy_4k)
{
	long ops = nvl_bench_quick(ctx) ? 200000 : 2000000;
	int reps = nvl_bench_quick(ctx) ? 1 : 5;
	double v[5], mf[5], mfh[5], ns[5], hot[5], occ = 0;
	/* buddy_4k's holdings: 90 % of the VRAM in chunks */
	size_t held = (size_t)((double)(vram_size(ctx) / PG) * 0.9);

	/* Interleaved, so machine noise hits both series alike. */
	for (int i = 0; i < reps; i++) {
		mf[i] = malloc_free_ns(held, ops);
		mfh[i] = malloc_free_hot_ns(ops);
		v[i] = run(ctx, vram_size(ctx), 0.9, size_4k, 0, ops, &occ,
			   &hot[i]);
		if (v[i] <= 0 || hot[i] <= 0 || mf[i] <= 0)
			return -1;
		ns[i] = 1e9 / v[i];
	}
	nvl_bench_report_extra(ctx, "buddy_4k", nvl_bench_median_of(v, reps),
			       "pairs/s", NULL, "occupancy", occ, NULL);
	/* issue 19's figure: against the hot malloc+free pair, as defined */
	nvl_bench_report(ctx, "malloc_free", nvl_bench_median_of(mfh, reps),
			 "ns", NULL);
	nvl_bench_report(ctx, "malloc_free_random",
			 nvl_bench_median_of(mf, reps), "ns", NULL);
	nvl_bench_report_vs(ctx, "buddy_4k_ns", nvl_bench_median_of(ns, reps),
			    "ns", "malloc_free",
			    nvl_bench_median_of(mfh, reps));
	/* like for like: the same random access pattern on both sides */
	nvl_bench_report_vs(
		ctx, "buddy_4k_random_ns", nvl_bench_median_of(ns, reps), "ns",
		"malloc_free_random", nvl_bench_median_of(mf, reps));
	nvl_bench_report_vs(ctx, "buddy_4k_hot_ns",
			    nvl_bench_median_of(hot, reps), "ns", "malloc_free",
			    nvl_bench_median_of(mfh, reps));
	/*
	 * The physical floor: each pair frees a random holding, so it reads
	 * the holding's record and then the block it names, two dependent
	 * cache misses that the core overlaps in part with the next pair's:
	 * a ratio between 0.5 and about 1 is at that floor.
	 */
	nvl_bench_report(ctx, "buddy_4k_vs_random_access",
			 nvl_bench_median_of(v, reps), "pairs/s",
			 "random_access_rate");
	return 0;
}

NVL_BENCH(mm, buddy_mixed)
{
	long ops = nvl_bench_quick(ctx) ? 200000 : 2000000;
	double v[3], occ = 0;
	int reps = nvl_bench_quick(ctx) ? 1 : 3;

	for (int i = 0; i < reps; i++)
		v[i] = run(ctx, vram_size(ctx), 0.9, size_mixed, 0, ops, &occ,
			   NULL);
	nvl_bench_report_extra(ctx, "buddy_mixed", nvl_bench_median_of(v, reps),
			       "pairs/s", NULL, "occupancy", occ, NULL);
	return 0;
}

NVL_BENCH(mm, buddy_contig)
{
	long ops = nvl_bench_quick(ctx) ? 50000 : 500000;
	double v[3], occ = 0;
	int reps = nvl_bench_quick(ctx) ? 1 : 3;

	for (int i = 0; i < reps; i++)
		v[i] = run(ctx, vram_size(ctx), 0.5, size_contig,
			   NVL_BUDDY_CONTIGUOUS, ops, &occ, NULL);
	nvl_bench_report_extra(ctx, "buddy_contig",
			       nvl_bench_median_of(v, reps), "pairs/s", NULL,
			       "occupancy", occ, NULL);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * Page-table benchmarks: the driver's NVIDIA page tables (generic manager +
 * v2 format + VRAM table allocator) on a model device.
 *
 *  - pte_write_4k / pte_write_64k: leaf-PTE bytes per second while binding
 *    1 GiB (get + map + TLB flush, all timed) at that page size; the
 *    physical limit is memset bandwidth. The mapping's VA is offset from
 *    its physical address so that only that page size fits. The samples
 *    are binds of a VM in use (bind, unbind, bind again: tables come from
 *    the table cache); the first bind of a new VM, which allocates every
 *    table, is reported as cold_bind_ns. Extra fields: the bind's ns, the
 *    rate of the map step alone, and the get/map/flush breakdown.
 *  - bind_1g_2m: ns to bind 1 GiB of 2 MiB pages.
 *  - pt_bytes_per_gib_{4k,64k,2m}: table memory a 1 GiB mapping needs.
 *  - pt_bytes_sparse_16g: table memory a 16 GiB sparse region (2 MiB
 *    aligned, not 512 MiB aligned) takes before anything is mapped in it;
 *    extra field: what a get of the region at 4 KiB pages took before.
 */
#include <errno.h>
#include <stdlib.h>

#include "bench.h"
#include "hw/hwif.h"
#include "model/model.h"
#include "nv/gmmu.h"
#include "nv/ptmem.h"

#define GIB (1ull << 30)
#define MIB (1ull << 20)
#define PTMEM_BASE (4 * GIB)
#define PTMEM_SIZE (64 * MIB)
#define BO_PA GIB

struct ptb {
	struct nvl_model *m;
	struct nvl_nv_ptmem *pm;
	struct nvl_nv_gmmu *g;
	struct nvl_pt *pt;
	uint64_t va;
	unsigned int shift;
	double map_ns[16];
	double get_ns[16];
	double flush_ns[16];
	int n;
};

static int ptb_up(struct ptb *b)
{
	struct nvl_nv_gmmu_args ga = {0};

	if (nvl_model_create(nvl_model_profile_find("tu102"), &b->m))
		return -1;
	if (nvl_nv_ptmem_create(nvl_model_hw(b->m), PTMEM_BASE, PTMEM_SIZE,
				&b->pm))
		return -1;
	ga.hw = nvl_model_hw(b->m);
	ga.version = 2;
	ga.mem = &nvl_nv_ptmem_ops;
	ga.mem_priv = b->pm;
	if (nvl_nv_gmmu_create(&ga, &b->g))
		return -1;
	b->pt = nvl_nv_gmmu_pt(b->g);
	/* the model reserves VRAM lazily: touch the table window once, as
	 * real VRAM never page-faults */
	{
		static const uint8_t zero[65536];

		for (uint64_t o = 0; o < PTMEM_SIZE; o += sizeof(zero))
			nvl_hw_vram_write(nvl_model_hw(b->m), PTMEM_BASE + o,
					  zero, sizeof(zero));
	}
	return 0;
}

static void ptb_down(struct ptb *b)
{
	nvl_nv_gmmu_destroy(b->g);
	nvl_nv_ptmem_destroy(b->pm);
	nvl_model_destroy(b->m);
}

struct bind_times {
	double bind_ns; /* get + map + flush */
	double map_ns; /* map alone: encoding and writing the entries */
	double get_ns; /* get alone: allocating the tables */
	double flush_ns; /* the TLB invalidate */
	double cold_ns; /* the first bind of a new VM */
};

/* One bind + unbind of 1 GiB; returns ns of the bind. */
static double bind_sample(void *arg)
{
	struct ptb *b = arg;
	struct nvl_pt_page pg = {.domain = NVL_GEM_DOMAIN_VRAM, .addr = BO_PA};
	int64_t t0 = nvl_bench_now_ns(), t1, t2, t3;

	if (nvl_pt_get(b->pt, b->va, GIB, b->shift))
		return -1;
	t1 = nvl_bench_now_ns();
	nvl_pt_map_pages(b->pt, b->va, GIB, b->shift, &pg);
	t2 = nvl_bench_now_ns();
	nvl_pt_flush(b->pt, b->va, GIB);
	t3 = nvl_bench_now_ns();
	nvl_pt_unmap(b->pt, b->va, GIB, b->shift, false);
	nvl_pt_flush(b->pt, b->va, GIB);
	nvl_pt_put(b->pt, b->va, GIB, b->shift);
	b->get_ns[b->n % 16] = (double)(t1 - t0);
	b->flush_ns[b->n % 16] = (double)(t3 - t2);
	b->map_ns[b->n++ % 16] = (double)(t2 - t1);
	return (double)(t3 - t0);
}

static int bind_ns(struct nvl_bench_ctx *ctx, uint64_t va, unsigned int shift,
		   struct bind_times *out)
{
	struct ptb b = {.va = va, .shift = shift};
	int reps = nvl_bench_quick(ctx) ? 3 : 15;
	int ret = -1;

	if (!ptb_up(&b)) {
		/* the first bind of a new VM allocates every table: reported
		 * apart; the samples are binds of a VM in use */
		out->cold_ns = bind_sample(&b);
		b.n = 0;
		out->bind_ns = nvl_bench_median(reps, bind_sample, &b);
		out->map_ns = nvl_bench_median_of(b.map_ns, reps);
		out->get_ns = nvl_bench_median_of(b.get_ns, reps);
		out->flush_ns = nvl_bench_median_of(b.flush_ns, reps);
		ret = out->bind_ns > 0 ? 0 : -1;
	}
	ptb_down(&b);
	return ret;
}

static void report_pte(struct nvl_bench_ctx *ctx, const char *name,
		       double bytes, const struct bind_times *t)
{
	double rate = bytes * 1e9 / t->bind_ns;

	nvl_bench_report_extra(ctx, name, rate, "bytes/s", "memset_bandwidth",
			       "bind_ns", t->bind_ns, "map_only_bytes_per_s",
			       bytes * 1e9 / t->map_ns, "get_ns", t->get_ns,
			       "map_ns", t->map_ns, "flush_ns", t->flush_ns,
			       "cold_bind_ns", t->cold_ns, NULL);
}

NVL_BENCH(mmu, pte_write)
{
	struct bind_times t4, t64;

	/* VA - PA = 4 KiB: no larger page fits; 64 KiB: 64K pages only */
	if (bind_ns(ctx, 16 * GIB + 4096, 12, &t4) ||
	    bind_ns(ctx, 16 * GIB + (64 << 10), 16, &t64))
		return -1;
	report_pte(ctx, "pte_write_4k", (double)(GIB >> 12) * 8, &t4);
	report_pte(ctx, "pte_write_64k", (double)(GIB >> 16) * 8, &t64);
	return 0;
}

NVL_BENCH(mmu, bind_1g_2m)
{
	struct bind_times t;

	if (bind_ns(ctx, 16 * GIB, 21, &t))
		return -1;
	nvl_bench_report(ctx, "bind_1g_2m", t.bind_ns, "ns", NULL);
	return 0;
}

static int64_t pt_bytes(unsigned int shift)
{
	struct ptb b = {0};
	struct nvl_pt_stats s0, s1;
	int64_t r = -1;

	if (!ptb_up(&b)) {
		nvl_pt_get_stats(b.pt, &s0);
		if (!nvl_pt_get(b.pt, 16 * GIB, GIB, shift)) {
			nvl_pt_get_stats(b.pt, &s1);
			r = (int64_t)(s1.table_bytes - s0.table_bytes);
			nvl_pt_put(b.pt, 16 * GIB, GIB, shift);
		}
	}
	ptb_down(&b);
	return r;
}

NVL_BENCH(mmu, pt_bytes_per_gib)
{
	int64_t a = pt_bytes(12), b = pt_bytes(16), c = pt_bytes(21);

	if (a < 0 || b < 0 || c < 0)
		return -1;
	nvl_bench_report(ctx, "pt_bytes_per_gib_4k", (double)a, "bytes", NULL);
	nvl_bench_report(ctx, "pt_bytes_per_gib_64k", (double)b, "bytes", NULL);
	nvl_bench_report(ctx, "pt_bytes_per_gib_2m", (double)c, "bytes", NULL);
	return 0;
}

/* Table bytes a 16 GiB sparse region references: as a region, or (@as_4k)
 * as a get at 4 KiB pages, the way regions were prepared before. */
static int64_t pt_bytes_region(bool as_4k)
{
	const uint64_t va = 16 * GIB + 2 * MIB, range = 16 * GIB;
	struct ptb b = {0};
	struct nvl_pt_stats s0, s1;
	int64_t r = -1;

	if (!ptb_up(&b)) {
		nvl_pt_get_stats(b.pt, &s0);
		if (!(as_4k ? nvl_pt_get(b.pt, va, range, 12)
			    : nvl_pt_get_region(b.pt, va, range))) {
			nvl_pt_get_stats(b.pt, &s1);
			r = (int64_t)(s1.table_bytes - s0.table_bytes);
			if (as_4k)
				nvl_pt_put(b.pt, va, range, 12);
			else
				nvl_pt_put_region(b.pt, va, range);
		}
	}
	ptb_down(&b);
	return r;
}

NVL_BENCH(mmu, pt_bytes_sparse)
{
	int64_t region = pt_bytes_region(false), old = pt_bytes_region(true);

	if (region < 0 || old < 0)
		return -1;
	nvl_bench_report_extra(ctx, "pt_bytes_sparse_16g", (double)region,
			       "bytes", NULL, "bytes_as_4k_get", (double)old,
			       NULL);
	return 0;
}

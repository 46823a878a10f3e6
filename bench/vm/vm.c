// SPDX-License-Identifier: MIT
/*
 * GPUVM / VM_BIND benchmarks. Every bind goes through the client API
 * (nvl_vm_bind: handle lookups, validation, op list, prepare, commit into
 * the recording page-table backend, finish), synchronously, one op per call.
 *
 *  - map_unmap_1k/100k/1m: map + unmap pairs per second of a 4 KiB page at
 *    a random free place of a VM already holding that many 4 KiB mappings
 *    at random places; map_unmap_growth: cost per pair at 1m over 1k.
 *    map_unmap_1m is reported against random_access_rate (dependent
 *    cache-missing reads per second): its ratio is pairs per miss, so its
 *    inverse is what a pair costs in cold misses;
 *  - sparse_tiles: 64 KiB tile binds + unbinds per second at random in a
 *    16 GiB sparse region;
 *  - bytes_per_mapping: resident memory a mapping adds (growth of the
 *    process's RSS over the second half of 1,000,000 mappings, per mapping;
 *    heap_B: the old heap-growth figure, which counts whole slabs as
 *    soon as they are allocated), mapping nodes and tree included, with a
 *    page-table
 *    backend that stores nothing; bytes_per_mapping_recorded adds the
 *    recording backend's own record. The nvl tool measures both in a
 *    fresh nvl process (fresh_process: 1), so the benchmarks run before
 *    them in the same process do not change them.
 *
 * Rates are per second of the benchmarking thread's CPU time
 * (CLOCK_THREAD_CPUTIME_ID): synchronous binds run entirely on the calling
 * thread, and on a shared machine wall time mostly measures the other
 * tenants.
 */
#include <malloc.h>
#include <stdio.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vmb.h"
#include "base/client.h"

/* populated mappings sit on even pages, the measured pairs on odd ones */
static int populate(struct vmb *b, long n)
{
	for (long i = 0; i < n; i++) {
		uint64_t slot = xs(&b->rng) % b->slots;
		uint64_t off = (xs(&b->rng) % (BO_SIZE / PAGE)) * PAGE;

		if (bind1(b, NVL_VM_BIND_OP_MAP, slot * 2 * PAGE, PAGE, off))
			return -1;
	}
	return 0;
}

static double pair_sample(void *arg)
{
	struct vmb *b = arg;
	int64_t t0 = nvl_bench_thread_cpu_ns();

	for (long i = 0; i < b->pairs; i++) {
		uint64_t va = (xs(&b->rng) % b->slots * 2 + 1) * PAGE;
		uint64_t off = (xs(&b->rng) % (BO_SIZE / PAGE)) * PAGE;

		if (bind1(b, NVL_VM_BIND_OP_MAP, va, PAGE, off) ||
		    bind1(b, NVL_VM_BIND_OP_UNMAP, va, PAGE, 0))
			return -1;
	}
	return (double)(nvl_bench_thread_cpu_ns() - t0) / (double)b->pairs;
}

static double pairs_ns(struct nvl_bench_ctx *ctx, long n)
{
	struct vmb b = {0};
	double r = -1;

	/* a VA space 64x the mappings: they sit at random, sparse places */
	b.slots = (uint64_t)n * 32;
	b.pairs = nvl_bench_quick(ctx) ? 20000 : 200000;
	if (!vmb_init(&b, b.slots * 2 * PAGE) && !populate(&b, n))
		r = nvl_bench_median(nvl_bench_quick(ctx) ? 3 : 5, pair_sample,
				     &b);
	nvl_client_destroy(b.c);
	return r;
}

NVL_BENCH(vm, map_unmap)
{
	double a = pairs_ns(ctx, 1000);
	double m = pairs_ns(ctx, 100000);
	double g = pairs_ns(ctx, 1000000);

	if (a <= 0 || m <= 0 || g <= 0)
		return -1;
	nvl_bench_report(ctx, "map_unmap_1k", 1e9 / a, "pairs/s", NULL);
	nvl_bench_report(ctx, "map_unmap_100k", 1e9 / m, "pairs/s", NULL);
	/* against dependent cache misses per second: 1 / ratio is the pair's
	 * cost in cold misses */
	nvl_bench_report_extra(ctx, "map_unmap_1m", 1e9 / g, "pairs/s",
			       "random_access_rate", "ns_per_pair", g, NULL);
	nvl_bench_report(ctx, "map_unmap_growth", g / a, "ratio", NULL);
	return 0;
}

static double tile_sample(void *arg)
{
	struct vmb *b = arg;
	const uint64_t tile = 64 * 1024, base = GiB;
	int64_t t0 = nvl_bench_thread_cpu_ns();

	for (long i = 0; i < b->pairs; i++) {
		uint64_t va = base + xs(&b->rng) % (16 * GiB / tile) * tile;
		uint64_t off = xs(&b->rng) % (BO_SIZE / tile) * tile;

		if (bind1(b, NVL_VM_BIND_OP_MAP, va, tile, off) ||
		    bind1(b, NVL_VM_BIND_OP_UNMAP, va, tile, 0))
			return -1;
	}
	/* two ops per iteration */
	return (double)(nvl_bench_thread_cpu_ns() - t0) /
	       (double)(2 * b->pairs);
}

NVL_BENCH(vm, sparse_tiles)
{
	struct vmb b = {0};
	struct nvl_vm_bind_op region = {
		.op = NVL_VM_BIND_OP_MAP,
		.flags = NVL_VM_BIND_SPARSE,
		.addr = GiB,
		.range = 16 * GiB,
	};
	double ns = -1;

	b.pairs = nvl_bench_quick(ctx) ? 20000 : 200000;
	if (!vmb_init(&b, 32 * GiB) &&
	    !nvl_vm_bind(b.c, b.vm, 0, &region, 1, NULL, 0, NULL, 0, 0))
		ns = nvl_bench_median(nvl_bench_quick(ctx) ? 3 : 5, tile_sample,
				      &b);
	nvl_client_destroy(b.c);
	if (ns <= 0)
		return -1;
	nvl_bench_report(ctx, "sparse_tiles", 1e9 / ns, "ops/s", NULL);
	return 0;
}

static int n_get(void *p, uint64_t va, uint64_t r, unsigned int s)
{
	(void)p, (void)va, (void)r, (void)s;
	return 0;
}

static void n_put(void *p, uint64_t va, uint64_t r, unsigned int s)
{
	(void)p, (void)va, (void)r, (void)s;
}

static void n_map(void *p, uint64_t va, uint64_t r, unsigned int s,
		  struct nvl_gem_object *o, uint64_t off, uint32_t f)
{
	(void)p, (void)va, (void)r, (void)s, (void)o, (void)off, (void)f;
}

static void n_unmap(void *p, uint64_t va, uint64_t r, unsigned int s, bool x)
{
	(void)p, (void)va, (void)r, (void)s, (void)x;
}

static void n_sparse(void *p, uint64_t va, uint64_t r, bool e)
{
	(void)p, (void)va, (void)r, (void)e;
}

static void n_flush(void *p, uint64_t va, uint64_t r)
{
	(void)p, (void)va, (void)r;
}

const struct nvl_vm_pt_ops nvl_bench_null_pt = {
	.get = n_get,
	.put = n_put,
	.map = n_map,
	.unmap = n_unmap,
	.sparse = n_sparse,
	.flush = n_flush,
};

/* resident bytes of the process (/proc/self/statm), or -1 */
static double rss_B(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long size, res = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld %ld", &size, &res) != 2)
		res = -1;
	fclose(f);
	return res < 0 ? -1 : (double)res * (double)sysconf(_SC_PAGESIZE);
}

struct per_mapping {
	double rss; /* resident bytes a mapping adds, second half */
	double heap; /* heap bytes per mapping (mallinfo2), all of them */
};

/*
 * What a mapping costs at @n mappings; @null: a backend storing nothing.
 * The headline is resident memory (pages actually touched) added by the
 * second n/2 mappings, per mapping: one-time costs (the vm_bo, the first
 * slabs) are in the first half, and slab space not yet handed out is
 * never touched (mapping nodes come from a bump pointer; big slabs are
 * mmapped), so it does not count. The heap figure counts whole slabs as
 * soon as they are allocated, padding and untouched tails included.
 */
static int bytes_per(long n, bool null, struct per_mapping *out)
{
	/* 2^25 slots, visited in a scattered order (odd multiplier) */
	const uint64_t slots = 1ull << 25;
	struct nvl_vm_create_args a = {.start = 0, .end = slots * 2 * PAGE};
	struct nvl_vm_backend be = {.ops = &nvl_bench_null_pt};
	struct vmb b = {.rng = 88172645463325252ull};
	struct mallinfo2 m0, m1;
	double r_half = 0, r1;
	struct nvl_vm *vm;
	int ret = -1;

	if (nvl_client_create(&b.c) ||
	    nvl_bo_create(b.c, BO_SIZE, NVL_BO_DOMAIN_SYSTEM, 0, 0, &b.bo))
		goto out;
	if (nvl_vm_create_internal(&a, null ? &be : NULL, 0, &vm))
		goto out;
	if (nvl_client_handle_add(b.c, NVL_HANDLE_VM, vm, &b.vm)) {
		nvl_vm_put(vm);
		goto out;
	}
	nvl_vm_put(vm);
	/* the first binds create the vm_bo and the first slabs */
	m0 = mallinfo2();
	for (long i = 0; i < n; i++) {
		uint64_t off = (xs(&b.rng) % (BO_SIZE / PAGE)) * PAGE;

		uint64_t slot = ((uint64_t)i * 2654435761u) & (slots - 1);

		if (i == n / 2)
			r_half = rss_B();
		/* distinct slots: every bind adds one mapping */
		if (bind1(&b, NVL_VM_BIND_OP_MAP, slot * 2 * PAGE, PAGE, off))
			goto out;
	}
	m1 = mallinfo2();
	r1 = rss_B();
	if (r_half < 0 || r1 < 0)
		goto out;
	out->heap =
		(double)(m1.uordblks + m1.hblkhd - m0.uordblks - m0.hblkhd) /
		(double)n;
	out->rss = (r1 - r_half) / (double)(n - n / 2);
	ret = 0;
out:
	nvl_client_destroy(b.c);
	return ret;
}

/* one figure of the child's output: @line is the whole JSON line */
static bool child_figure(const char *line, const char *name,
			 struct per_mapping *out)
{
	char key[80];
	const char *v, *h;

	snprintf(key, sizeof(key), "\"name\":\"%s\",\"value\":", name);
	v = strstr(line, key);
	h = strstr(line, "\"heap_B\":");
	if (!v || !h)
		return false;
	out->rss = strtod(v + strlen(key), NULL);
	out->heap = strtod(h + strlen("\"heap_B\":"), NULL);
	return true;
}

/*
 * RSS growth counts only pages this process had not touched yet, so what
 * earlier benchmarks of the same run left behind (freed heap pages still
 * resident, glibc's raised mmap threshold, fragmentation) changes the
 * figure: a full `nvl bench` run measured 0-15 B per mapping, `nvl bench
 * vm` ~100 B. The nvl tool therefore measures it in a fresh nvl process of
 * its own; true when the child gave both figures.
 */
static bool bytes_per_fresh(bool quick, struct per_mapping *plain,
			    struct per_mapping *rec)
{
	char *argv[] = {"nvl", "bench", "--json", "bytes_per_mapping",
			NULL,  NULL};
	posix_spawn_file_actions_t fa;
	char self[4096], line[512];
	bool got_plain = false, got_rec = false;
	ssize_t n;
	int fd[2], st;
	FILE *f;
	pid_t pid;

	if (getenv("NVL_BENCH_FRESH_CHILD"))
		return false;
	if (quick) {
		argv[3] = "--quick";
		argv[4] = "bytes_per_mapping";
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return false;
	self[n] = 0;
	/* only the nvl tool (or a copy named nvl-*) has the bench command */
	if (strncmp(strrchr(self, '/') ? strrchr(self, '/') + 1 : self, "nvl",
		    3))
		return false;
	if (pipe(fd))
		return false;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd[1], STDOUT_FILENO);
	posix_spawn_file_actions_addclose(&fa, fd[0]);
	posix_spawn_file_actions_addclose(&fa, fd[1]);
	setenv("NVL_BENCH_FRESH_CHILD", "1", 1);
	st = posix_spawn(&pid, self, &fa, NULL, argv, environ);
	unsetenv("NVL_BENCH_FRESH_CHILD");
	posix_spawn_file_actions_destroy(&fa);
	close(fd[1]);
	if (st) {
		close(fd[0]);
		return false;
	}
	f = fdopen(fd[0], "r");
	while (f && fgets(line, sizeof(line), f)) {
		got_rec |=
			child_figure(line, "bytes_per_mapping_recorded", rec);
		got_plain |= child_figure(line, "bytes_per_mapping", plain);
	}
	if (f)
		fclose(f);
	else
		close(fd[0]);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return false;
	return got_plain && got_rec;
}

NVL_BENCH(vm, bytes_per_mapping)
{
	struct per_mapping plain, rec;
	bool fresh = bytes_per_fresh(nvl_bench_quick(ctx), &plain, &rec);

	if (!fresh && (bytes_per(1000000, true, &plain) ||
		       bytes_per(1000000, false, &rec)))
		return -1;
	nvl_bench_report_extra(ctx, "bytes_per_mapping", plain.rss, "B", NULL,
			       "heap_B", plain.heap, "fresh_process",
			       (double)fresh, NULL);
	nvl_bench_report_extra(ctx, "bytes_per_mapping_recorded", rec.rss, "B",
			       NULL, "heap_B", rec.heap, "fresh_process",
			       (double)fresh, NULL);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * Compute launch benchmarks, through the driver's public API on the
 * model (ga102): BOs bound with VM_BIND, a channel on NVL_ENGINE_COMPUTE,
 * the launch helper (nouvelle/compute.h) for the QMD, constant buffer 0
 * and the methods, nvl_exec() with a signal syncobj, nvl_syncobj_wait().
 *
 * launch_latency: ns from nvl_exec() of a launch of an empty kernel (one
 * CTA of 32 threads, EXIT) to its syncobj signalled, median of 203
 * launches; baseline futex_pingpong (a thread wake-up and back), sampled
 * between blocks of 29 launches; launch_latency_sleeps: the
 * process's voluntary context switches per launch (and the involuntary
 * ones) over as many launches again: the wake-ups a launch costs,
 * load-independent, unlike the time.
 *
 * launch_latency_16: the same with a grid of 16 such CTAs, on the model's
 * default 2 SM workers (the runlist thread and one SM thread woken for
 * the grid); baseline futex_pingpong.
 *
 * vector_add_bw: bytes/s (3 x 4 bytes per element) of a vector add over
 * 64 MiB vectors (4 MiB with --quick), exec to fence, on the model's
 * default 2 SM worker threads; baseline memcpy_bandwidth. The vectors are
 * written by the CPU before timing, as the baseline's buffers are: every
 * page is faulted in and the inputs are real data (untouched memory would
 * read the host's shared zero page, from cache). Extra field
 * bytes_per_cpu_s: the same bytes per second of the process's CPU time
 * (all threads), which load on a shared machine does not dilute.
 *
 * replay_fault: ns per serviced replayable fault: a vector add over three
 * arrays lazily bound in 4 KiB pages (NVL_VM_BIND_LAZY; rebound before
 * each sample), minus the same launch once every page is mapped, divided
 * by the faults serviced (nvl_device_fault_stats); baseline
 * futex_pingpong (each fault is an interrupt, a thread wake-up, a replay
 * and the parked SM's wake-up).
 */
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <nouvelle/nouvelle.h>

#include "base/alloc.h"
#include "bench.h"
#include "hw/isa/isa.h"
/* the kernels the tests check against C references (one copy) */
#include "../../tests/compute/kern_src.h"

#define MIB (1ull << 20)
#define VA_CTL (16 * MIB)
#define CTL_SIZE (1 * MIB)
#define OFF_QMD 0x10000
#define OFF_CB 0x20000
#define OFF_PUSH 0x30000
#define CB_SIZE 0x200u
#define VA_DATA (1ull << 32)
/* 4 KiB past a 2 MiB boundary: a lazy mapping of 4 KiB pages */
#define VA_LAZY ((1ull << 33) + 4096)

struct crig {
	struct nvl_device *dev;
	struct nvl_device_info info;
	struct nvl_client *c;
	uint32_t vm, ctl, data, ch, sync, push_dw;
	uint8_t *pctl;
	uint64_t data_size;
};

static int bind_bo(struct crig *r, uint64_t size, uint64_t va, uint32_t *h,
		   void **cpu, uint32_t flags)
{
	struct nvl_vm_bind_op op = {.op = NVL_VM_BIND_OP_MAP,
				    .flags = flags,
				    .addr = va,
				    .range = size};
	int ret;

	ret = nvl_bo_create(r->c, size, NVL_BO_DOMAIN_VRAM, 0,
			    cpu ? NVL_BO_CPU_VISIBLE : 0, h);
	if (!ret && cpu)
		ret = nvl_bo_map(r->c, *h, cpu);
	op.handle = *h;
	if (!ret)
		ret = nvl_vm_bind(r->c, r->vm, 0, &op, 1, NULL, 0, NULL, 0, 0);
	return ret;
}

/* the device, a VM, the control BO with the program in it, @data_size
 * bytes of data (0: none; at VA_DATA, or lazily bound at VA_LAZY in a
 * faultable VM when @lazy) and a compute channel */
static int crig_up(struct crig *r, const char *src, uint64_t data_size,
		   bool lazy)
{
	struct nvl_vm_create_args va = {.start = MIB,
					.end = 1ull << 40,
					.kernel_start = 1ull << 39,
					.kernel_range = 16 * MIB,
					.flags = lazy ? NVL_VM_CREATE_FAULTABLE
						      : 0};
	enum nvl_isa_arch arch = NVL_ISA_SM86; /* ga102 */
	struct nvl_isa_asm_error err;
	uint64_t *w;
	size_t n;
	int ret;

	/* a grid may run for seconds on a loaded machine: not a hang */
	struct nvl_device_opts o = {.job_timeout_ms = 120000};

	memset(r, 0, sizeof(*r));
	ret = nvl_device_open("model:ga102", &o, &r->dev);
	if (ret)
		return ret;
	ret = nvl_device_query(r->dev, &r->info);
	if (!ret)
		ret = nvl_device_client_create(r->dev, &r->c);
	if (!ret)
		ret = nvl_vm_create(r->c, &va, &r->vm);
	if (!ret)
		ret = bind_bo(r, CTL_SIZE, VA_CTL, &r->ctl, (void **)&r->pctl,
			      0);
	if (!ret && data_size && lazy)
		ret = bind_bo(r, data_size, VA_LAZY, &r->data, NULL,
			      NVL_VM_BIND_LAZY);
	if (!ret && data_size && !lazy) {
		void *cpu;

		ret = bind_bo(r, data_size, VA_DATA, &r->data, &cpu, 0);
		if (!ret) {
			/* fault every page in, with data (see the top) */
			for (uint64_t i = 0; i < data_size / 4; i++)
				((uint32_t *)cpu)[i] =
					(uint32_t)(i * 2654435761u);
			nvl_bo_unmap(r->c, r->data);
		}
	}
	r->data_size = data_size;
	if (!ret)
		ret = nvl_channel_create(r->c, r->vm, NVL_ENGINE_COMPUTE, 0,
					 &r->ch);
	if (!ret)
		ret = nvl_syncobj_create(r->c, 0, &r->sync);
	if (!ret && nvl_isa_assemble(src, arch, VA_CTL, &w, &n, &err))
		ret = -EINVAL;
	if (!ret) {
		memcpy(r->pctl, w, n * 16);
		nvl_free(w);
	}
	return ret;
}

static void crig_down(struct crig *r)
{
	if (r->c) {
		if (r->pctl)
			nvl_bo_unmap(r->c, r->ctl);
		nvl_client_destroy(r->c);
	}
	nvl_device_close(r->dev);
}

/* the QMD, c[0] and the push of a 1-D grid */
static int crig_prepare(struct crig *r, uint32_t grid, uint32_t block,
			const void *params, uint32_t params_B)
{
	struct nvl_compute_launch l = {
		.program_va = VA_CTL,
		.grid = {grid, 1, 1},
		.block = {block, 1, 1},
		.register_count = 16,
		.cbuf0_va = VA_CTL + OFF_CB,
		.cbuf0_size = CB_SIZE,
		.params = params,
		.params_size = params_B,
	};
	int n;

	if (nvl_compute_launch_encode(r->info.compute_class, &l,
				      r->pctl + OFF_QMD, r->pctl + OFF_CB))
		return -1;
	n = nvl_compute_push_launch(r->info.compute_class, 1, VA_CTL + OFF_QMD,
				    NVL_COMPUTE_PUSH_BIND,
				    (uint32_t *)(r->pctl + OFF_PUSH),
				    NVL_COMPUTE_PUSH_MAX_DW);
	if (n < 0)
		return -1;
	r->push_dw = (uint32_t)n;
	return 0;
}

/* exec the prepared launch and wait for its fence; ns or -1 */
static double crig_launch(struct crig *r)
{
	struct nvl_exec_push p = {.va = VA_CTL + OFF_PUSH,
				  .len = r->push_dw * 4};
	struct nvl_vm_sync s = {.handle = r->sync};
	struct timespec ts;
	int64_t t0, dl;

	t0 = nvl_bench_now_ns();
	clock_gettime(CLOCK_MONOTONIC, &ts);
	dl = ts.tv_sec * 1000000000ll + ts.tv_nsec + 120 * 1000000000ll;
	if (nvl_exec(r->c, r->ch, &p, 1, NULL, 0, &s, 1, 0) ||
	    nvl_syncobj_wait(r->c, &r->sync, NULL, 1, dl, 0, NULL))
		return -1;
	return (double)(nvl_bench_now_ns() - t0);
}

/*
 * median ns of launches of an empty kernel over @ctas CTAs of 32 threads,
 * in 7 blocks (3 with --quick) each after one futex_pingpong sample, whose
 * median goes to *@base (nvl_bench_median_vs_futex()'s reason); with
 * @sleeps, also the process's voluntary and involuntary context switches
 * per launch over as many launches again
 */
static double empty_launches(struct nvl_bench_ctx *ctx, uint32_t ctas,
			     double *base, double sleeps[2])
{
	bool quick = nvl_bench_quick(ctx);
	int blocks = quick ? 3 : 7, per = quick ? 7 : 29, n = blocks * per;
	double v[7 * 29], b[7];
	struct rusage ru0, ru1;
	struct crig r;
	uint64_t none = 0;
	double med = -1;

	if (!crig_up(&r, "EXIT\n", 0, false) &&
	    !crig_prepare(&r, ctas, 32, &none, sizeof(none))) {
		crig_launch(&r); /* warm: the program cache, the channel */
		med = 0;
		for (int k = 0; k < blocks && med == 0; k++) {
			b[k] = nvl_bench_futex_sample_ns(quick);
			for (int i = 0; i < per; i++) {
				v[k * per + i] = crig_launch(&r);
				if (v[k * per + i] < 0)
					med = -1;
			}
		}
		if (!med) {
			med = nvl_bench_median_of(v, n);
			*base = nvl_bench_median_of(b, blocks);
		}
		if (med > 0 && sleeps) {
			getrusage(RUSAGE_SELF, &ru0);
			for (int i = 0; i < n && med > 0; i++)
				if (crig_launch(&r) < 0)
					med = -1;
			getrusage(RUSAGE_SELF, &ru1);
			sleeps[0] = (double)(ru1.ru_nvcsw - ru0.ru_nvcsw) / n;
			sleeps[1] = (double)(ru1.ru_nivcsw - ru0.ru_nivcsw) / n;
		}
	}
	crig_down(&r);
	return med;
}

NVL_BENCH(compute, launch_latency)
{
	double sleeps[2], base;
	double v = empty_launches(ctx, 1, &base, sleeps);

	if (v <= 0)
		return -1;
	nvl_bench_report_vs(ctx, "launch_latency", v, "ns", "futex_pingpong",
			    base);
	/* 2: the runlist thread's wake-up plus the waiter's */
	nvl_bench_report_extra(ctx, "launch_latency_sleeps", sleeps[0],
			       "per_launch", NULL, "involuntary_per_launch",
			       sleeps[1], NULL);
	return 0;
}

NVL_BENCH(compute, launch_latency_16)
{
	double base;
	double v = empty_launches(ctx, 16, &base, NULL);

	if (v <= 0)
		return -1;
	nvl_bench_report_vs(ctx, "launch_latency_16", v, "ns", "futex_pingpong",
			    base);
	return 0;
}

struct vadd_arg {
	struct crig *r;
	uint32_t n;
	int k;
	double cpu_bw[3]; /* bytes per second of the process's CPU time */
};

static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double sample_vadd(void *arg)
{
	struct vadd_arg *a = arg;
	double bytes = 3.0 * 4.0 * (double)a->n, c0 = cpu_ns(), ns;

	ns = crig_launch(a->r);
	if (a->k < 3)
		a->cpu_bw[a->k++] = bytes * 1e9 / (cpu_ns() - c0);
	return ns > 0 ? bytes * 1e9 / ns : -1;
}

NVL_BENCH(compute, vector_add_bw)
{
	uint64_t bytes = (nvl_bench_quick(ctx) ? 4 : 64) * MIB;
	struct crig r;
	struct vadd_arg a = {&r, (uint32_t)(bytes / 4)};
	struct {
		uint64_t x, y, z;
		uint32_t n;
	} p = {VA_DATA, VA_DATA + bytes, VA_DATA + 2 * bytes, a.n};
	double v = -1;

	if (!crig_up(&r, vadd_src, 3 * bytes, false) &&
	    !crig_prepare(&r, (a.n + 255) / 256, 256, &p, sizeof(p)))
		v = nvl_bench_median(3, sample_vadd, &a);
	crig_down(&r);
	if (v <= 0)
		return -1;
	/* beside the wall-clock rate: bytes per second of CPU time of the
	 * whole process (the SM workers, the runlist thread, the driver),
	 * which a loaded machine does not dilute */
	nvl_bench_report_extra(ctx, "vector_add_bw", v, "bytes/s",
			       "memcpy_bandwidth", "bytes_per_cpu_s",
			       nvl_bench_median_of(a.cpu_bw, a.k), NULL);
	return 0;
}

struct replay_arg {
	struct crig *r;
	uint64_t bytes;
};

/* the data range lazily bound again: every page unmapped */
static int rebind_lazy(struct crig *r, uint64_t bytes)
{
	struct nvl_vm_bind_op op[2] = {
		{.op = NVL_VM_BIND_OP_UNMAP, .addr = VA_LAZY, .range = bytes},
		{.op = NVL_VM_BIND_OP_MAP,
		 .flags = NVL_VM_BIND_LAZY,
		 .handle = r->data,
		 .addr = VA_LAZY,
		 .range = bytes},
	};

	return nvl_vm_bind(r->c, r->vm, 0, op, 2, NULL, 0, NULL, 0, 0);
}

static double sample_replay(void *arg)
{
	struct replay_arg *a = arg;
	struct nvl_fault_stats s0, s1;
	double faulting, mapped;

	if (rebind_lazy(a->r, 3 * a->bytes) ||
	    nvl_device_fault_stats(a->r->dev, &s0))
		return -1;
	faulting = crig_launch(a->r);
	if (faulting <= 0 || nvl_device_fault_stats(a->r->dev, &s1) ||
	    s1.serviced == s0.serviced || s1.cancelled)
		return -1;
	mapped = crig_launch(a->r);
	if (mapped <= 0)
		return -1;
	return (faulting - mapped) / (double)(s1.serviced - s0.serviced);
}

NVL_BENCH(compute, replay_fault)
{
	uint64_t bytes = (nvl_bench_quick(ctx) ? 64 : 512) * 1024;
	struct crig r;
	struct replay_arg a = {&r, bytes};
	struct {
		uint64_t x, y, z;
		uint32_t n;
	} p = {VA_LAZY, VA_LAZY + bytes, VA_LAZY + 2 * bytes,
	       (uint32_t)(bytes / 4)};
	double v = -1;

	if (!crig_up(&r, vadd_src, 3 * bytes, true) &&
	    !crig_prepare(&r, (p.n + 255) / 256, 256, &p, sizeof(p)))
		v = nvl_bench_median(5, sample_replay, &a);
	crig_down(&r);
	if (v <= 0)
		return -1;
	nvl_bench_report(ctx, "replay_fault", v, "ns", "futex_pingpong");
	return 0;
}

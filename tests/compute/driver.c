// SPDX-License-Identifier: MIT
/*
 * TEST: compute_driver
 * Description: compute through the driver, the way a Vulkan-shaped client
 * will launch it: nvl_device_open → a client → BOs in VRAM bound with
 * VM_BIND → a channel on NVL_ENGINE_COMPUTE (RM allocates the chip's
 * compute class under it, on the compute runlist) → the launch helper
 * (nouvelle/compute.h) writes the QMD, constant buffer 0 and the methods
 * → nvl_exec with a signal syncobj → wait. Vector add, SAXPY, a
 * shared-memory reduction, a two-pass prefix sum, a histogram with
 * atomics, a tiled matrix multiply and a divergent loop (the kernels of
 * compute_launch, kern_src.h) are checked against C references on random
 * inputs of sizes that are not multiples of the block, on tu102, ga102,
 * ad102 and gh100. Then: many launches in one exec and across execs on a
 * timeline; the QMD's own release; an execution error kills only that
 * channel (fence error -EIO, Xid 13 with its reason) and a fault
 * outside any BO too; bad helper and channel input is rejected and
 * changes nothing; channel creation under allocation failure.
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include <nouvelle/nouvelle.h>

#include "hw/isa/isa.h"
#include "kern_src.h"
#include "t.h"
#include "t_nv.h"

#define KIB (1ull << 10)
#define MIB (1ull << 20)
#define KSTART (1ull << 39)
#define KRANGE (16 * MIB)
#define VA_CTL (16 * MIB) /* code, QMDs, constant buffers, pushes */
#define CTL_SIZE (1 * MIB)
#define OFF_CODE 0x0
#define OFF_QMD 0x40000 /* 32 slots of 512 B */
#define OFF_CB 0x50000 /* 32 slots of 1 KiB */
#define OFF_PUSH 0x60000
#define OFF_SEM 0x70000
#define CB_SIZE 0x200u
#define VA_DATA (64 * MIB) /* three 1 MiB BOs */
#define DATA_SIZE (1 * MIB)
#define SLOTS 32
#define HOLE (1ull << 38) /* nothing is bound here */

/* CHERR codes (the channel's hw_error), hw/regs.h */

static const char *const chips[] = {"model:tu102", "model:ga102", "model:ad102",
				    "model:gh100"};

struct ctx {
	struct nvl_device *dev;
	struct nvl_device_info info;
	struct nvl_client *c;
	enum nvl_isa_arch arch;
	uint32_t vm, ctl, data[3], chan, sync;
	uint8_t *pctl, *pdata[3];
	uint64_t code_next;
	unsigned slot; /* next QMD/cbuf slot */
	uint32_t push_dw; /* dwords of the push being built */
	bool bound; /* the compute class is on subchannel 1 */
};

static uint32_t bo(struct ctx *x, uint64_t size, uint64_t va, uint8_t **cpu)
{
	return t_nv_vram_bo(x->c, x->vm, size, va, (void **)cpu);
}

static enum nvl_isa_arch arch_of(uint32_t cls)
{
	switch (cls) {
	case 0xc5c0: /* TURING_COMPUTE_A: SM75 */
		return NVL_ISA_SM75;
	case 0xc7c0: /* AMPERE_COMPUTE_B: SM86 */
		return NVL_ISA_SM86;
	case 0xc9c0: /* ADA_COMPUTE_A: SM89 */
		return NVL_ISA_SM89;
	case 0xcbc0: /* HOPPER_COMPUTE_A: SM90 */
		return NVL_ISA_SM90;
	}
	fail_msg("unexpected compute class %#x", cls);
	return NVL_ISA_SM75;
}

static void up(struct ctx *x, const char *spec)
{
	struct nvl_vm_create_args va = {.start = 1 * MIB,
					.end = 1ull << 40,
					.kernel_start = KSTART,
					.kernel_range = KRANGE};

	memset(x, 0, sizeof(*x));
	assert_int_equal(nvl_device_open(spec, NULL, &x->dev), 0);
	assert_int_equal(nvl_device_query(x->dev, &x->info), 0);
	x->arch = arch_of(x->info.compute_class);
	assert_int_equal(nvl_device_client_create(x->dev, &x->c), 0);
	assert_int_equal(nvl_vm_create(x->c, &va, &x->vm), 0);
	x->ctl = bo(x, CTL_SIZE, VA_CTL, &x->pctl);
	for (int i = 0; i < 3; i++)
		x->data[i] =
			bo(x, DATA_SIZE, VA_DATA + i * DATA_SIZE, &x->pdata[i]);
	assert_int_equal(nvl_channel_create(x->c, x->vm, NVL_ENGINE_COMPUTE, 0,
					    &x->chan),
			 0);
	assert_int_equal(nvl_syncobj_create(x->c, 0, &x->sync), 0);
}

static void down(struct ctx *x)
{
	assert_int_equal(nvl_channel_destroy(x->c, x->chan), 0);
	assert_int_equal(nvl_bo_unmap(x->c, x->ctl), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(nvl_bo_unmap(x->c, x->data[i]), 0);
	nvl_client_destroy(x->c);
	nvl_device_close(x->dev);
}

/* assemble @src into the code area; returns its VA */
static uint64_t load(struct ctx *x, const char *src)
{
	struct nvl_isa_asm_error err;
	uint64_t va = VA_CTL + OFF_CODE + x->code_next, *w;
	size_t n;

	if (nvl_isa_assemble(src, x->arch, va, &w, &n, &err))
		fail_msg("line %u col %u: %s", err.line, err.col, err.msg);
	assert_true(x->code_next + n * 16 <= OFF_QMD);
	memcpy(x->pctl + OFF_CODE + x->code_next, w, n * 16);
	nvl_free(w);
	x->code_next = (x->code_next + n * 16 + 0xff) & ~0xffull;
	return va;
}

/* data VA of BO @i at byte @off */
static uint64_t dva(unsigned i, uint64_t off)
{
	return VA_DATA + i * DATA_SIZE + off;
}

/* append one launch to the push being built */
static void add_launch(struct ctx *x, uint64_t prog, uint32_t n, uint32_t bs,
		       uint32_t smem, const void *params, uint32_t params_B)
{
	unsigned s = x->slot++ % SLOTS;
	struct nvl_compute_launch l = {
		.program_va = prog,
		.grid = {(n + bs - 1) / bs, 1, 1},
		.block = {bs, 1, 1},
		.shared_bytes = smem,
		.register_count = 32,
		.barrier_count = 1, /* reduce, scan and matmul: BAR.SYNC 0 */
		.cbuf0_va = VA_CTL + OFF_CB + s * 1024,
		.cbuf0_size = CB_SIZE,
		.params = params,
		.params_size = params_B,
	};
	uint32_t *push = (uint32_t *)(x->pctl + OFF_PUSH) + x->push_dw;
	int n_dw;

	assert_int_equal(nvl_compute_launch_encode(x->info.compute_class, &l,
						   x->pctl + OFF_QMD + s * 512,
						   x->pctl + OFF_CB + s * 1024),
			 0);
	n_dw = nvl_compute_push_launch(x->info.compute_class, 1,
				       VA_CTL + OFF_QMD + s * 512,
				       x->bound ? 0 : NVL_COMPUTE_PUSH_BIND,
				       push, NVL_COMPUTE_PUSH_MAX_DW);
	assert_true(n_dw > 0);
	x->bound = true;
	x->push_dw += (uint32_t)n_dw;
}

/* run the push built so far and wait; returns 0, or the channel's error
 * when the launch killed it (the fence carries it too) */
static int flush(struct ctx *x)
{
	struct nvl_exec_push p = {.va = VA_CTL + OFF_PUSH,
				  .len = x->push_dw * 4};
	struct nvl_vm_sync s = {.handle = x->sync};
	struct nvl_channel_info ci;
	int ret;

	ret = nvl_exec(x->c, x->chan, &p, 1, NULL, 0, &s, 1, 0);
	x->push_dw = 0;
	if (ret)
		return ret;
	assert_int_equal(nvl_syncobj_wait(x->c, &x->sync, NULL, 1,
					  t_nv_deadline(20000000000ll), 0,
					  NULL),
			 0);
	assert_int_equal(nvl_channel_query(x->c, x->chan, &ci), 0);
	return ci.alive ? 0 : ci.error;
}

static void run(struct ctx *x, uint64_t prog, uint32_t n, uint32_t bs,
		uint32_t smem, const void *params, uint32_t params_B)
{
	struct nvl_channel_info ci;

	add_launch(x, prog, n, bs, smem, params, params_B);
	if (flush(x)) {
		assert_int_equal(nvl_channel_query(x->c, x->chan, &ci), 0);
		fail_msg("launch failed: channel error %u", ci.hw_error);
	}
}

static uint32_t *rand_u32(uint64_t *s, uint8_t *dst, uint32_t n)
{
	uint32_t *b = test_malloc(4ull * n + 4);

	for (uint32_t i = 0; i < n; i++)
		b[i] = (uint32_t)t_rand(s);
	memcpy(dst, b, 4ull * n);
	return b;
}

static const uint32_t sizes[] = {1, 200, 4099};
static const uint32_t blocks[] = {32, 96, 256};
static const uint32_t pow2[] = {32, 128, 512};

static void k_vadd(struct ctx *x, uint64_t *s, unsigned k)
{
	uint64_t prog = load(x, vadd_src);

	for (unsigned si = 0; si < 3; si++) {
		uint32_t n = sizes[si], bs = blocks[(si + k) % 3];
		float *a = (float *)x->pdata[0], *b = (float *)x->pdata[1],
		      *c = (float *)x->pdata[2];
		struct {
			uint64_t a, b, c;
			uint32_t n;
		} p = {dva(0, 0), dva(1, 0), dva(2, 0), n};

		for (uint32_t i = 0; i < n; i++) {
			a[i] = (float)(t_rand(s) % 10000) / 7.0f;
			b[i] = (float)(t_rand(s) % 10000) / 3.0f;
		}
		c[n] = 1234.0f;
		run(x, prog, n, bs, 0, &p, sizeof(p));
		for (uint32_t i = 0; i < n; i++)
			assert_true(c[i] == a[i] + b[i]);
		assert_true(c[n] == 1234.0f);
	}
}

static void k_saxpy(struct ctx *x, uint64_t *s, unsigned k)
{
	uint64_t prog = load(x, saxpy_src);

	for (unsigned si = 0; si < 3; si++) {
		uint32_t n = sizes[si], bs = blocks[(si + k + 1) % 3];
		float *xs = (float *)x->pdata[0], *ys = (float *)x->pdata[1];
		float *ref = test_malloc(4ull * n), a = 2.5f + (float)si;
		struct {
			uint64_t x, y;
			float a;
			uint32_t n;
		} p = {dva(0, 0), dva(1, 0), a, n};

		for (uint32_t i = 0; i < n; i++) {
			xs[i] = (float)(t_rand(s) % 1000) / 8.0f;
			ys[i] = (float)(t_rand(s) % 1000) / 4.0f;
			ref[i] = fmaf(a, xs[i], ys[i]);
		}
		run(x, prog, n, bs, 0, &p, sizeof(p));
		for (uint32_t i = 0; i < n; i++)
			assert_true(ys[i] == ref[i]);
		test_free(ref);
	}
}

static void k_reduce(struct ctx *x, uint64_t *s, unsigned k)
{
	uint64_t prog = load(x, reduce_src);

	for (unsigned si = 0; si < 3; si++) {
		uint32_t n = sizes[si], bs = pow2[(si + k) % 3], sum = 0;
		uint32_t *in = rand_u32(s, x->pdata[0], n);
		uint32_t *total = (uint32_t *)x->pdata[1];
		struct {
			uint64_t in;
			uint32_t n, pad;
			uint64_t total;
		} p = {dva(0, 0), n, 0, dva(1, 0)};

		for (uint32_t i = 0; i < n; i++)
			sum += in[i];
		*total = 0;
		run(x, prog, n, bs, bs * 4, &p, sizeof(p));
		assert_int_equal(*total, sum);
		test_free(in);
	}
}

/* both passes in one exec: the second sees the first's results */
static void k_scan(struct ctx *x, uint64_t *s, unsigned k)
{
	uint64_t scan = load(x, scan_src), add = load(x, scan_add_src);

	for (unsigned si = 0; si < 3; si++) {
		uint32_t n = sizes[si], bs = pow2[(si + k + 1) % 3], acc = 0;
		uint32_t *in = rand_u32(s, x->pdata[0], n);
		uint32_t *out = (uint32_t *)x->pdata[1];
		struct {
			uint64_t in;
			uint32_t n, pad;
			uint64_t out, part;
		} p1 = {dva(0, 0), n, 0, dva(1, 0), dva(2, 0)};
		struct {
			uint64_t out;
			uint32_t n, pad;
			uint64_t part;
		} p2 = {dva(1, 0), n, 0, dva(2, 0)};

		add_launch(x, scan, n, bs, bs * 4, &p1, sizeof(p1));
		add_launch(x, add, n, bs, 0, &p2, sizeof(p2));
		assert_int_equal(flush(x), 0);
		for (uint32_t i = 0; i < n; i++) {
			acc += in[i];
			assert_int_equal(out[i], acc);
		}
		test_free(in);
	}
}

static void k_hist(struct ctx *x, uint64_t *s, unsigned k)
{
	uint64_t prog = load(x, hist_src);

	for (unsigned si = 0; si < 3; si++) {
		/* the kernel clears 64 shared bins: blocks >= 64 */
		uint32_t n = sizes[si] * 3, bs = si + k == 1 ? 64 : 256;
		uint32_t *in = rand_u32(s, x->pdata[0], n), ref[64] = {0};
		uint32_t *bins = (uint32_t *)x->pdata[1];
		struct {
			uint64_t in;
			uint32_t n, pad;
			uint64_t bins;
		} p = {dva(0, 0), n, 0, dva(1, 0)};

		for (uint32_t i = 0; i < n; i++)
			ref[in[i] & 63]++;
		memset(bins, 0, 256);
		run(x, prog, n, bs, 256, &p, sizeof(p));
		assert_memory_equal(bins, ref, sizeof(ref));
		test_free(in);
	}
}

static void k_matmul(struct ctx *x, uint64_t *s)
{
	static const uint32_t dims[][3] = {
		{1, 1, 1}, {13, 7, 19}, {40, 33, 17}};
	uint64_t prog = load(x, matmul_src);

	for (unsigned di = 0; di < 3; di++) {
		uint32_t m = dims[di][0], nn = dims[di][1], kk = dims[di][2];
		uint32_t *a = rand_u32(s, x->pdata[0], m * kk);
		uint32_t *b = rand_u32(s, x->pdata[1], kk * nn);
		uint32_t *c = (uint32_t *)x->pdata[2];
		struct {
			uint64_t a, b, c;
			uint32_t m, n, k;
		} p = {dva(0, 0), dva(1, 0), dva(2, 0), m, nn, kk};
		struct nvl_compute_launch l = {
			.program_va = prog,
			.grid = {(nn + 7) / 8, (m + 7) / 8, 1},
			.block = {8, 8, 1},
			.shared_bytes = 512,
			.barrier_count = 1, /* BAR.SYNC 0 */
			.cbuf0_va = VA_CTL + OFF_CB,
			.cbuf0_size = CB_SIZE,
			.params = &p,
			.params_size = sizeof(p),
		};
		int n_dw;

		assert_int_equal(nvl_compute_launch_encode(
					 x->info.compute_class, &l,
					 x->pctl + OFF_QMD, x->pctl + OFF_CB),
				 0);
		n_dw = nvl_compute_push_launch(
			x->info.compute_class, 1, VA_CTL + OFF_QMD,
			NVL_COMPUTE_PUSH_BIND, (uint32_t *)(x->pctl + OFF_PUSH),
			NVL_COMPUTE_PUSH_MAX_DW);
		assert_true(n_dw > 0);
		x->push_dw = (uint32_t)n_dw;
		assert_int_equal(flush(x), 0);
		for (uint32_t i = 0; i < m; i++)
			for (uint32_t j = 0; j < nn; j++) {
				uint32_t acc = 0;

				for (uint32_t q = 0; q < kk; q++)
					acc += a[i * kk + q] * b[q * nn + j];
				assert_int_equal(c[i * nn + j], acc);
			}
		test_free(a);
		test_free(b);
	}
}

static uint32_t collatzish(uint32_t v)
{
	for (uint32_t k = v & 31; k; k--)
		v = v * 3 + 1;
	return v;
}

static void k_diverge(struct ctx *x, uint64_t *s, unsigned k)
{
	uint64_t prog = load(x, diverge_src);

	for (unsigned si = 0; si < 3; si++) {
		uint32_t n = sizes[si], bs = blocks[(si + k) % 3];
		uint32_t *in = rand_u32(s, x->pdata[0], n);
		uint32_t *out = (uint32_t *)x->pdata[1];
		struct {
			uint64_t in, out;
			uint32_t n;
		} p = {dva(0, 0), dva(1, 0), n};

		run(x, prog, n, bs, 0, &p, sizeof(p));
		/* each lane's value plus its butterfly partner's (a lane
		 * past n loaded 0) */
		for (uint32_t i = 0; i < n; i++) {
			uint32_t j = i ^ 1;

			assert_int_equal(
				out[i],
				collatzish(in[i]) +
					(j < n ? collatzish(in[j]) : 0));
		}
		test_free(in);
	}
}

static void kernels_on(const char *spec, unsigned k)
{
	uint64_t s = t_seed(0xc0de + k);
	struct nvl_channel_info ci;
	struct ctx x;

	up(&x, spec);
	k_vadd(&x, &s, k);
	k_saxpy(&x, &s, k);
	k_reduce(&x, &s, k);
	k_scan(&x, &s, k);
	k_hist(&x, &s, k);
	k_matmul(&x, &s);
	k_diverge(&x, &s, k);
	assert_int_equal(nvl_channel_query(x.c, x.chan, &ci), 0);
	assert_int_equal(ci.alive, 1);
	assert_int_equal(ci.submitted, ci.completed);
	down(&x);
}

static void kernels_tu102(void **state)
{
	(void)state;
	kernels_on(chips[0], 0);
}

static void kernels_ga102(void **state)
{
	(void)state;
	kernels_on(chips[1], 1);
}

static void kernels_ad102(void **state)
{
	(void)state;
	kernels_on(chips[2], 2);
}

static void kernels_gh100(void **state)
{
	(void)state;
	kernels_on(chips[3], 3);
}

/* many launches in one exec, then execs chained on a timeline; the QMD's
 * own release semaphore */
static void pipelined(void **state)
{
	uint64_t s = t_seed(0x919e), pt = 8;
	struct nvl_vm_sync tl = {0}, w;
	struct ctx x;
	uint64_t vadd, saxpy;
	float *a, *b, *c, *ref;
	const uint32_t n = 1000;

	(void)state;
	up(&x, "model:ga102");
	vadd = load(&x, vadd_src);
	saxpy = load(&x, saxpy_src);
	a = (float *)x.pdata[0];
	b = (float *)x.pdata[1];
	c = (float *)x.pdata[2];
	/* 8 vector adds over 8 slices, one exec */
	for (uint32_t i = 0; i < 8 * n; i++) {
		a[i] = (float)(t_rand(&s) % 512);
		b[i] = (float)(t_rand(&s) % 512) / 2.0f;
	}
	for (uint32_t k = 0; k < 8; k++) {
		struct {
			uint64_t a, b, c;
			uint32_t n;
		} p = {dva(0, 4 * k * n), dva(1, 4 * k * n), dva(2, 4 * k * n),
		       n};

		add_launch(&x, vadd, n, 128, 0, &p, sizeof(p));
	}
	assert_int_equal(flush(&x), 0);
	for (uint32_t i = 0; i < 8 * n; i++)
		assert_true(c[i] == a[i] + b[i]);
	/* y = a x + y eight times, each exec waiting for the one before */
	ref = test_malloc(4ull * n);
	memcpy(ref, b, 4ull * n);
	for (uint32_t k = 0; k < 8; k++)
		for (uint32_t i = 0; i < n; i++)
			ref[i] = fmaf(0.5f, a[i], ref[i]);
	assert_int_equal(nvl_syncobj_create(x.c, 0, &tl.handle), 0);
	for (uint32_t k = 0; k < 8; k++) {
		struct nvl_exec_push p = {.va = VA_CTL + OFF_PUSH + k * 64};
		struct {
			uint64_t x, y;
			float a;
			uint32_t n;
		} pa = {dva(0, 0), dva(1, 0), 0.5f, n};
		unsigned sl = x.slot++ % SLOTS;
		struct nvl_compute_launch l = {
			.program_va = saxpy,
			.grid = {(n + 63) / 64, 1, 1},
			.block = {64, 1, 1},
			.cbuf0_va = VA_CTL + OFF_CB + sl * 1024,
			.cbuf0_size = CB_SIZE,
			.params = &pa,
			.params_size = sizeof(pa),
			.release_va = VA_CTL + OFF_SEM,
			.release_payload = 0x100 + k,
		};
		int n_dw;

		assert_int_equal(
			nvl_compute_launch_encode(x.info.compute_class, &l,
						  x.pctl + OFF_QMD + sl * 512,
						  x.pctl + OFF_CB + sl * 1024),
			0);
		n_dw = nvl_compute_push_launch(
			x.info.compute_class, 1, VA_CTL + OFF_QMD + sl * 512, 0,
			(uint32_t *)(x.pctl + OFF_PUSH + k * 64),
			NVL_COMPUTE_PUSH_MAX_DW);
		assert_true(n_dw > 0);
		p.len = (uint32_t)n_dw * 4;
		w = (struct nvl_vm_sync){.handle = tl.handle, .point = k};
		tl.point = k + 1;
		assert_int_equal(
			nvl_exec(x.c, x.chan, &p, 1, &w, k ? 1 : 0, &tl, 1, 0),
			0);
	}
	assert_int_equal(nvl_syncobj_wait(x.c, &tl.handle, &pt, 1,
					  t_nv_deadline(20000000000ll), 0,
					  NULL),
			 0);
	for (uint32_t i = 0; i < n; i++)
		assert_true(b[i] == ref[i]);
	/* the last QMD's RELEASE0 */
	assert_int_equal(*(uint32_t *)(x.pctl + OFF_SEM), 0x107);
	test_free(ref);
	down(&x);
}

/* an execution error or a fault kills that channel only */
static void errors_kill_the_channel(void **state)
{
	static const char misaligned_src[] = "  MOV R2, c[0x0][0x160]\n"
					     "  MOV R3, c[0x0][0x164]\n"
					     "  LDG.E R4, [R2+0x2]\n"
					     "  EXIT\n";
	static const char hole_src[] = "  MOV R2, c[0x0][0x160]\n"
				       "  MOV R3, c[0x0][0x164]\n"
				       "  STG.E [R2], RZ\n"
				       "  EXIT\n";
	struct nvl_channel_info ci;
	struct nvl_exec_push p = {.va = VA_CTL + OFF_PUSH, .len = 8};
	struct ctx x;
	uint64_t bad, hole, vadd, addr;
	uint32_t ch0;
	float *c;

	(void)state;
	up(&x, "model:ad102");
	bad = load(&x, misaligned_src);
	hole = load(&x, hole_src);
	vadd = load(&x, vadd_src);
	/* a misaligned load: CHERR_COMPUTE, which RM reports as Xid 13
	 * (nverror.h ROBUST_CHANNEL_GR_EXCEPTION); the fence errors, exec
	 * -ENODEV */
	addr = dva(0, 0);
	add_launch(&x, bad, 32, 32, 0, &addr, sizeof(addr));
	assert_int_equal(flush(&x), -EIO);
	assert_int_equal(nvl_channel_query(x.c, x.chan, &ci), 0);
	assert_int_equal(ci.alive, 0);
	assert_int_equal(ci.hw_error, 13);
	assert_int_equal(ci.reason, NVL_CHANNEL_ENGINE_EXCEPTION);
	assert_int_equal(nvl_exec(x.c, x.chan, &p, 1, NULL, 0, NULL, 0, 0),
			 -ENODEV);
	/* a store outside any BO: an MMU fault, the channel dies */
	ch0 = x.chan;
	assert_int_equal(
		nvl_channel_create(x.c, x.vm, NVL_ENGINE_COMPUTE, 0, &x.chan),
		0);
	x.bound = false;
	addr = HOLE;
	add_launch(&x, hole, 32, 32, 0, &addr, sizeof(addr));
	/* Xid 31 (ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT): -EFAULT */
	assert_int_equal(flush(&x), -EFAULT);
	assert_int_equal(nvl_channel_query(x.c, x.chan, &ci), 0);
	assert_int_equal(ci.hw_error, 31);
	assert_int_equal(ci.reason, NVL_CHANNEL_MMU_FAULT);
	assert_int_equal(ci.fault_va, HOLE & ~0xfffull);
	assert_int_equal(nvl_channel_destroy(x.c, x.chan), 0);
	assert_int_equal(nvl_channel_destroy(x.c, ch0), 0);
	/* a new compute channel on the same VM works */
	assert_int_equal(
		nvl_channel_create(x.c, x.vm, NVL_ENGINE_COMPUTE, 0, &x.chan),
		0);
	x.bound = false;
	{
		struct {
			uint64_t a, b, c;
			uint32_t n;
		} pv = {dva(0, 0), dva(1, 0), dva(2, 0), 100};

		for (int i = 0; i < 100; i++) {
			((float *)x.pdata[0])[i] = (float)i;
			((float *)x.pdata[1])[i] = 0.25f;
		}
		run(&x, vadd, 100, 64, 0, &pv, sizeof(pv));
	}
	c = (float *)x.pdata[2];
	for (int i = 0; i < 100; i++)
		assert_true(c[i] == (float)i + 0.25f);
	down(&x);
}

/*
 * A program fetched once across two pages, then rewritten to end in the
 * first page and its second page unmapped: the next launch at the same
 * address reads only what a fetch without the engine's saved words would
 * (the first page) and runs. The old program again needs the second page:
 * an MMU fault at it.
 */
static void a_shortened_program_does_not_read_its_old_pages(void **state)
{
	const uint64_t pva = 128 * MIB;
	struct nvl_vm_bind_op op = {.op = NVL_VM_BIND_OP_UNMAP,
				    .addr = pva + 4 * KIB,
				    .range = 4 * KIB};
	struct nvl_isa_asm_error err;
	struct nvl_channel_info ci;
	uint64_t *w, *e, none = 0;
	size_t n, ne;
	uint32_t pbo;
	uint8_t *pp;
	char *src;
	struct ctx x;

	(void)state;
	up(&x, "model:ga102");
	pbo = bo(&x, 8 * KIB, pva, &pp);
	/* 299 MOVs and an EXIT: 4800 bytes, into the second page */
	src = test_malloc(300 * 16);
	src[0] = 0;
	for (int i = 0; i < 299; i++)
		strcat(src, "MOV R0, RZ\n");
	strcat(src, "EXIT\n");
	if (nvl_isa_assemble(src, x.arch, pva, &w, &n, &err))
		fail_msg("line %u col %u: %s", err.line, err.col, err.msg);
	assert_int_equal(n, 300);
	assert_int_equal(nvl_isa_assemble("EXIT\n", x.arch, pva, &e, &ne, &err),
			 0);
	memcpy(pp, w, n * 16);
	run(&x, pva, 32, 32, 0, &none, sizeof(none));
	run(&x, pva, 32, 32, 0, &none, sizeof(none));
	/* EXIT first; the second page goes */
	memcpy(pp, e, 16);
	assert_int_equal(nvl_vm_bind(x.c, x.vm, 0, &op, 1, NULL, 0, NULL, 0, 0),
			 0);
	run(&x, pva, 32, 32, 0, &none, sizeof(none));
	/* the long program again: it faults at the second page */
	memcpy(pp, w, 16);
	add_launch(&x, pva, 32, 32, 0, &none, sizeof(none));
	assert_int_equal(flush(&x), -EFAULT);
	assert_int_equal(nvl_channel_query(x.c, x.chan, &ci), 0);
	assert_int_equal(ci.reason, NVL_CHANNEL_MMU_FAULT);
	assert_int_equal(ci.fault_va, pva + 4 * KIB);
	assert_int_equal(nvl_channel_destroy(x.c, x.chan), 0);
	assert_int_equal(
		nvl_channel_create(x.c, x.vm, NVL_ENGINE_COMPUTE, 0, &x.chan),
		0);
	nvl_free(w);
	nvl_free(e);
	test_free(src);
	assert_int_equal(nvl_bo_unmap(x.c, pbo), 0);
	down(&x);
}

/* the copy class is not the compute runlist's: a METHOD error */
static void copy_class_on_compute_channel(void **state)
{
	struct nvl_channel_info ci;
	struct ctx x;
	uint32_t *pb;

	(void)state;
	up(&x, "model:tu102");
	pb = (uint32_t *)(x.pctl + OFF_PUSH);
	pb[0] = 0x20010000u; /* INC, count 1, subchannel 0, SET_OBJECT */
	pb[1] = x.info.ce_class;
	x.push_dw = 2;
	/* a bad method: Xid 32 (ROBUST_CHANNEL_PBDMA_ERROR) */
	assert_int_equal(flush(&x), -EIO);
	assert_int_equal(nvl_channel_query(x.c, x.chan, &ci), 0);
	assert_int_equal(ci.hw_error, 32);
	assert_int_equal(ci.reason, NVL_CHANNEL_PUSHBUFFER);
	down(&x);
}

/*
 * Shared memory is an SM's: 64 KiB on Turing, 164 KiB on GA100, 100 KiB
 * on GA10x and Ada, 228 KiB on Hopper (the CUDA guide's per-SM shared
 * memory by compute capability 7.5, 8.0, 8.6, 8.9, 9.0). A QMD asking
 * for more than the chip has is refused, nothing written.
 */
static void shared_per_chip(void **state)
{
	static const struct {
		uint32_t cls, kib;
	} lim[] = {
		{0xc5c0, 64},  {0xc6c0, 164}, {0xc7c0, 100},
		{0xc9c0, 100}, {0xcbc0, 228},
	};
	uint32_t qmd[96], cb[CB_SIZE / 4];
	struct nvl_compute_launch l = {
		.program_va = 0x100000,
		.grid = {1, 1, 1},
		.block = {32, 1, 1},
		.cbuf0_va = 0x200000,
		.cbuf0_size = CB_SIZE,
	};

	(void)state;
	for (size_t i = 0; i < sizeof(lim) / sizeof(lim[0]); i++) {
		l.shared_bytes = lim[i].kib << 10;
		assert_int_equal(
			nvl_compute_launch_encode(lim[i].cls, &l, qmd, cb), 0);
		l.shared_bytes = (lim[i].kib << 10) + 16;
		memset(qmd, 0xab, sizeof(qmd));
		assert_int_equal(
			nvl_compute_launch_encode(lim[i].cls, &l, qmd, cb),
			-EINVAL);
		assert_non_null(strstr(nvl_last_error(), "shared"));
		for (size_t j = 0; j < sizeof(qmd); j++)
			assert_int_equal(((uint8_t *)qmd)[j], 0xab);
	}
}

/* bad input to the helper and to channel create changes nothing */
static void bad_input(void **state)
{
	uint32_t qmd[96], cb[CB_SIZE / 4], push[8], cls, h;
	uint64_t params[2] = {1, 2};
	struct nvl_compute_launch ok =
					  {
						  .program_va = 0x100000,
						  .grid = {4, 1, 1},
						  .block = {128, 1, 1},
						  .cbuf0_va = 0x200000,
						  .cbuf0_size = CB_SIZE,
						  .params = params,
						  .params_size = sizeof(params),
					  },
				  l;
	struct ctx x;

	(void)state;
	up(&x, "model:gh100");
	cls = x.info.compute_class;
	assert_int_equal(nvl_compute_qmd_size(cls), 384);
	assert_int_equal(nvl_compute_qmd_size(0xc5c0), 256);
	assert_int_equal(nvl_compute_qmd_size(0xc7c0), 256);
	assert_int_equal(nvl_compute_qmd_size(0x1234), -EINVAL);
	assert_int_equal(nvl_compute_launch_encode(cls, &ok, qmd, cb), 0);
	/* the parameters land at 0x160, the shape at 0 */
	assert_int_equal(cb[0], 128);
	assert_int_equal(cb[3], 4);
	assert_memory_equal((uint8_t *)cb + NVL_COMPUTE_PARAM_OFFSET, params,
			    sizeof(params));
	memset(qmd, 0xab, sizeof(qmd));
	memset(cb, 0xcd, sizeof(cb));
#define BAD(field_assign)                                                      \
	do {                                                                   \
		l = ok;                                                        \
		field_assign;                                                  \
		assert_int_equal(nvl_compute_launch_encode(cls, &l, qmd, cb),  \
				 -EINVAL);                                     \
		assert_true(nvl_last_error()[0]);                              \
	} while (0)
	BAD(l.grid[0] = 0);
	BAD(l.grid[1] = 0x10000);
	BAD(l.block[2] = 0);
	BAD((l.block[0] = 64, l.block[1] = 32)); /* 2048 threads */
	BAD(l.program_va = 0x100008);
	BAD(l.cbuf0_va = 0x200040);
	BAD(l.cbuf0_size = 0x168); /* no room for 16 bytes at 0x160 */
	BAD(l.cbuf0_size = 0x204);
	BAD(l.cbuf0_size = NVL_COMPUTE_CBUF0_MAX + 16);
	BAD(l.shared_bytes = 229 << 10);
	BAD(l.register_count = 256);
	BAD(l.release_va = 0x1002);
	BAD(l.params = NULL);
#undef BAD
	assert_int_equal(nvl_compute_launch_encode(0x1234, &ok, qmd, cb),
			 -EINVAL);
	for (size_t i = 0; i < sizeof(qmd); i++)
		assert_int_equal(((uint8_t *)qmd)[i], 0xab);
	for (size_t i = 0; i < sizeof(cb); i++)
		assert_int_equal(((uint8_t *)cb)[i], 0xcd);
	/* the push: class, subchannel, alignment, flags, room */
	memset(push, 0xee, sizeof(push));
	assert_int_equal(nvl_compute_push_launch(cls, 5, 0x1000, 0, push, 8),
			 -EINVAL);
	assert_int_equal(nvl_compute_push_launch(cls, 1, 0x1080, 0, push, 8),
			 -EINVAL);
	assert_int_equal(
		nvl_compute_push_launch(cls, 1, 1ull << 40, 0, push, 8),
		-EINVAL);
	assert_int_equal(nvl_compute_push_launch(cls, 1, 0x1000, 2, push, 8),
			 -EINVAL);
	assert_int_equal(nvl_compute_push_launch(0xc0c0, 1, 0x1000, 0, push, 8),
			 -EINVAL);
	assert_int_equal(nvl_compute_push_launch(cls, 1, 0x1000,
						 NVL_COMPUTE_PUSH_BIND, push,
						 5),
			 -ENOSPC);
	for (size_t i = 0; i < 8; i++)
		assert_int_equal(push[i], 0xeeeeeeeeu);
	/* SEND_PCAS_A = QMD >> 8 (clc6c0.h 0x02b4), then PCAS2_B = 3 */
	assert_int_equal(nvl_compute_push_launch(cls, 1, 0x12300, 0, push, 4),
			 4);
	assert_int_equal(push[2], 0x123);
	assert_int_equal(push[3] & 0x1fff, 0x02c0 >> 2);
	assert_int_equal(push[3] >> 16 & 0xfff, 3);
	/* Turing's SEND_SIGNALING_PCAS_B (0x02bc) = INVALIDATE | SCHEDULE */
	assert_int_equal(nvl_compute_push_launch(0xc5c0, 1, 0x12300,
						 NVL_COMPUTE_PUSH_BIND, push,
						 8),
			 6);
	assert_int_equal(push[1], 0xc5c0);
	assert_int_equal(push[5] & 0x1fff, 0x02bc >> 2);
	assert_int_equal(push[5] >> 16 & 0xfff, 3);
	/* channel create: an engine that does not exist */
	assert_int_equal(nvl_channel_create(x.c, x.vm, 2, 0, &h), -EINVAL);
	assert_int_equal(
		nvl_channel_create(x.c, x.vm, NVL_ENGINE_COMPUTE, 1, &h),
		-EINVAL);
	down(&x);
}

/* compute channel create under allocation failure: -ENOMEM, no leak */
static void alloc_failures(void **state)
{
	unsigned long n0, n, tried = 0;
	struct ctx x;
	uint32_t h;

	(void)state;
	up(&x, NULL);
	n0 = nvl_alloc_count();
	assert_int_equal(
		nvl_channel_create(x.c, x.vm, NVL_ENGINE_COMPUTE, 0, &h), 0);
	n = nvl_alloc_count() - n0;
	assert_int_equal(nvl_channel_destroy(x.c, h), 0);
	for (unsigned long nth = 1; nth <= n + 1; nth++) {
		int ret;

		nvl_fault_fail_nth(nth, NVL_FAULT_THIS_THREAD);
		ret = nvl_channel_create(x.c, x.vm, NVL_ENGINE_COMPUTE, 0, &h);
		if (!nvl_fault_hits()) {
			nvl_fault_off();
			assert_int_equal(ret, 0);
			assert_int_equal(nvl_channel_destroy(x.c, h), 0);
			break;
		}
		nvl_fault_off();
		tried++;
		assert_int_equal(ret, -ENOMEM);
	}
	assert_true(tried >= 3);
	down(&x);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(bad_input),
	cmocka_unit_test(shared_per_chip),
	cmocka_unit_test(a_shortened_program_does_not_read_its_old_pages),
	cmocka_unit_test(copy_class_on_compute_channel),
	cmocka_unit_test(errors_kill_the_channel),
	cmocka_unit_test(pipelined),
	cmocka_unit_test(alloc_failures),
	cmocka_unit_test(kernels_tu102),
	cmocka_unit_test(kernels_ga102),
	cmocka_unit_test(kernels_ad102),
	cmocka_unit_test(kernels_gh100),
};

T_MAIN(tests)

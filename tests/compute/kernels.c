// SPDX-License-Identifier: MIT
/*
 * TEST: compute_kernels
 * Description: hand-written SASS kernels, assembled with the ISA
 * assembler and run by the model's SM interpreter on a CPU buffer as
 * global memory: vector add, SAXPY, a shared-memory reduction with
 * barriers and atomics, a divergent loop that reconverges at BSYNC (and a
 * shuffle that needs the whole warp), each against a C reference on random
 * inputs of several sizes (not multiples of the block) on every
 * architecture; then the errors: misaligned, out-of-bounds shared memory,
 * faults, illegal instructions, deadlock, timeout, allocation failures.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "t.h"
#include "base/log.h"
#include "hw/isa/isa.h"
#include "kern_src.h"
#include "model/compute/sm.h"

#define VA 0x100000000ull
#define PARAM 0x160

struct mem {
	uint8_t *buf;
	uint64_t size;
	unsigned faults;
};

static void *translate(void *ctx, uint64_t va, uint32_t size, bool write)
{
	struct mem *m = ctx;

	if (va < VA || va + size > VA + m->size) {
		m->faults++;
		return NULL;
	}
	return m->buf + (va - VA);
}

struct kernel {
	uint64_t *code;
	size_t n;
};

static void build(struct kernel *k, const char *src, enum nvl_isa_arch arch)
{
	struct nvl_isa_asm_error err;

	if (nvl_isa_assemble(src, arch, 0, &k->code, &k->n, &err))
		fail_msg("kernel line %u col %u: %s", err.line, err.col,
			 err.msg);
}

/* c[0]: ntid.xyz at 0x0, nctaid.xyz at 0xc, parameters at 0x160 */
static void launch(const struct kernel *k, enum nvl_isa_arch arch,
		   struct mem *m, uint32_t grid, uint32_t block,
		   const void *params, size_t params_B, uint32_t shared_B,
		   struct nvl_cs_fault *fault, int want)
{
	static uint32_t c0[0x200 / 4];
	struct nvl_cs_launch l = {
		.arch = arch,
		.code = k->code,
		.ninsn = (uint32_t)k->n,
		.grid = {grid, 1, 1},
		.block = {block, 1, 1},
		.shared_B = shared_B,
		.cbuf = {c0},
		.cbuf_B = {sizeof(c0)},
		.translate = translate,
		.mem_ctx = m,
		.max_warp_instrs = 1ull << 28,
	};
	struct nvl_cs_stats st;
	int ret;

	memset(c0, 0, sizeof(c0));
	c0[0] = block;
	c0[1] = c0[2] = 1;
	c0[3] = grid;
	c0[4] = c0[5] = 1;
	memcpy((uint8_t *)c0 + PARAM, params, params_B);
	ret = nvl_cs_run(&l, fault, &st);
	if (ret != want)
		fail_msg("run: %d (want %d): %s", ret, want, nvl_error_msg());
	if (!ret)
		assert_int_equal(st.ctas, grid);
}

static const uint32_t sizes[] = {1, 31, 33, 200, 1000, 4099};
static const uint32_t blocks[] = {32, 64, 96, 128, 256};
static const uint32_t pow2_blocks[] = {32, 64, 128, 256, 512};

/* vadd_src (kern_src.h) with its control codes written out: the
 * scoreboards its loads set and its FADD waits on */
static const char vadd_ctl_src[] =
	"  S2R R0, SR_TID.X\n"
	"  S2R R1, SR_CTAID.X\n"
	"  MOV R2, c[0x0][0x0]\n"
	"  IMAD R0, R1, R2, R0              // i = ctaid * ntid + tid\n"
	"  ISETP.GE.U32.AND P0, PT, R0, c[0x0][0x178], PT\n"
	"  @P0 EXIT\n"
	"  MOV R9, 0x4\n"
	"  IMAD.WIDE.U32 R2, R0, R9, c[0x0][0x160]\n"
	"  IMAD.WIDE.U32 R4, R0, R9, c[0x0][0x168]\n"
	"  IMAD.WIDE.U32 R6, R0, R9, c[0x0][0x170]\n"
	"  [B------:R-:W0:-:S01] LDG.E R2, [R2]\n"
	"  [B------:R-:W1:-:S01] LDG.E R4, [R4]\n"
	"  [B01----:R-:W-:-:S04] FADD R8, R2, R4\n"
	"  STG.E [R6], R8\n"
	"  EXIT\n";

static void vector_add(void **state)
{
	uint64_t s = t_seed(0xadd);

	for (int a = 0; a < NVL_ISA_ARCH_COUNT; a++) {
		struct kernel k;

		build(&k, vadd_ctl_src, (enum nvl_isa_arch)a);
		for (size_t si = 0; si < sizeof(sizes) / sizeof(*sizes); si++) {
			uint32_t n = sizes[si], bs = blocks[(si + a) % 5];
			struct mem m = {.size = 3ull * 4 * n + 64};
			float *x, *y, *z;
			struct {
				uint64_t a, b, c;
				uint32_t n;
			} p = {VA, VA + 4ull * n, VA + 8ull * n, n};

			m.buf = test_calloc(1, m.size);
			x = (float *)m.buf;
			y = x + n;
			z = y + n;
			for (uint32_t i = 0; i < n; i++) {
				x[i] = (float)(t_rand(&s) % 10000) / 7.0f;
				y[i] = (float)(t_rand(&s) % 10000) / 3.0f;
			}
			z[n] = 1234.0f; /* a guard just past the end */
			launch(&k, (enum nvl_isa_arch)a, &m, (n + bs - 1) / bs,
			       bs, &p, sizeof(p), 0, NULL, 0);
			for (uint32_t i = 0; i < n; i++)
				assert_true(z[i] == x[i] + y[i]);
			assert_true(z[n] == 1234.0f);
			test_free(m.buf);
		}
		nvl_free(k.code);
	}
}

static void saxpy(void **state)
{
	uint64_t s = t_seed(0x5a5a);

	for (int a = 0; a < NVL_ISA_ARCH_COUNT; a++) {
		struct kernel k;

		build(&k, saxpy_src, (enum nvl_isa_arch)a);
		for (size_t si = 0; si < sizeof(sizes) / sizeof(*sizes); si++) {
			uint32_t n = sizes[si], bs = blocks[(si + 2 * a) % 5];
			struct mem m = {.size = 2ull * 4 * n};
			float *x, *y, *ref;
			struct {
				uint64_t x, y;
				float a;
				uint32_t n;
			} p = {VA, VA + 4ull * n, 1.5f + (float)a, n};

			m.buf = test_calloc(1, m.size);
			ref = test_calloc(n, sizeof(float));
			x = (float *)m.buf;
			y = x + n;
			for (uint32_t i = 0; i < n; i++) {
				x[i] = (float)((int)(t_rand(&s) % 2001) -
					       1000) /
				       8.0f;
				y[i] = (float)(t_rand(&s) % 1000) / 16.0f;
				ref[i] = fmaf(p.a, x[i], y[i]);
			}
			launch(&k, (enum nvl_isa_arch)a, &m, (n + bs - 1) / bs,
			       bs, &p, sizeof(p), 0, NULL, 0);
			for (uint32_t i = 0; i < n; i++)
				assert_true(y[i] == ref[i]);
			test_free(ref);
			test_free(m.buf);
		}
		nvl_free(k.code);
	}
}

/* per-CTA sums through shared memory, a tree of BAR.SYNCs, and a RED
 * (kern_src.h's reduce_src with BAR.SYNC.DEFER_BLOCKING, each CTA's sum
 * stored too, and an ATOMG besides the RED) */
static const char reduce_atom_src[] =
	"  S2R R0, SR_TID.X\n"
	"  S2R R1, SR_CTAID.X\n"
	"  MOV R2, c[0x0][0x0]\n"
	"  IMAD R3, R1, R2, R0\n"
	"  MOV R4, RZ\n"
	"  ISETP.GE.U32.AND P0, PT, R3, c[0x0][0x168], PT\n"
	"  MOV R9, 0x4\n"
	"  IMAD.WIDE.U32 R6, R3, R9, c[0x0][0x160]\n"
	"  @!P0 LDG.E R4, [R6]\n"
	"  SHF.L.U32 R5, R0, 0x2, RZ\n"
	"  STS [R5], R4\n"
	"  BAR.SYNC.DEFER_BLOCKING 0x0\n"
	"  SHF.R.U32.HI R8, RZ, 0x1, R2       // s = ntid / 2\n"
	"loop:\n"
	"  ISETP.GE.U32.AND P1, PT, R0, R8, PT\n"
	"  @!P1 IMAD R10, R8, 0x4, R5\n"
	"  @!P1 LDS R11, [R10]\n"
	"  @!P1 LDS R12, [R5]\n"
	"  @!P1 IADD3 R12, R11, R12, RZ\n"
	"  @!P1 STS [R5], R12\n"
	"  BAR.SYNC 0x0\n"
	"  SHF.R.U32.HI R8, RZ, 0x1, R8\n"
	"  ISETP.NE.U32.AND P2, PT, R8, RZ, PT\n"
	"  @P2 BRA loop\n"
	"  ISETP.NE.U32.AND P3, PT, R0, RZ, PT\n"
	"  @P3 EXIT\n"
	"  LDS R12, [RZ]\n"
	"  IMAD.WIDE.U32 R6, R1, R9, c[0x0][0x170]\n"
	"  STG.E [R6], R12\n"
	"  MOV R14, c[0x0][0x178]\n"
	"  MOV R15, c[0x0][0x17c]\n"
	"  RED.E.ADD.STRONG.GPU [R14], R12\n"
	"  ATOMG.E.ADD.STRONG.GPU PT, R13, [R14+0x4], R9\n"
	"  EXIT\n";

static void reduction(void **state)
{
	uint64_t s = t_seed(0x5e5e);

	for (int a = 0; a < NVL_ISA_ARCH_COUNT; a++) {
		struct kernel k;

		build(&k, reduce_atom_src, (enum nvl_isa_arch)a);
		for (size_t si = 0; si < sizeof(sizes) / sizeof(*sizes); si++) {
			/* the tree halves the block: powers of two only */
			uint32_t n = sizes[si], bs = pow2_blocks[(si + a) % 5];
			uint32_t grid = (n + bs - 1) / bs;
			struct mem m = {.size = 4ull * n + 4ull * grid + 8};
			uint32_t *in, *part, *total, sum = 0;
			struct {
				uint64_t in;
				uint32_t n, pad;
				uint64_t part, total;
			} p = {VA, n, 0, VA + 4ull * n,
			       VA + 4ull * n + 4ull * grid};

			m.buf = test_calloc(1, m.size);
			in = (uint32_t *)m.buf;
			part = in + n;
			total = part + grid;
			for (uint32_t i = 0; i < n; i++) {
				in[i] = (uint32_t)t_rand(&s);
				sum += in[i];
			}
			launch(&k, (enum nvl_isa_arch)a, &m, grid, bs, &p,
			       sizeof(p), bs * 4, NULL, 0);
			for (uint32_t c = 0; c < grid; c++) {
				uint32_t ps = 0;

				for (uint32_t i = c * bs;
				     i < n && i < (c + 1) * bs; i++)
					ps += in[i];
				assert_int_equal(part[c], ps);
			}
			assert_int_equal(total[0], sum);
			assert_int_equal(total[1], 4 * grid); /* ATOMG adds 4 */
			test_free(m.buf);
		}
		nvl_free(k.code);
	}
}

static uint32_t collatzish(uint32_t x)
{
	uint32_t v = x;

	for (uint32_t k = x & 31; k; k--)
		v = v * 3 + 1;
	return v;
}

static void divergent_loop(void **state)
{
	uint64_t s = t_seed(0xd1e);

	for (int a = 0; a < NVL_ISA_ARCH_COUNT; a++) {
		struct kernel k;

		build(&k, diverge_src, (enum nvl_isa_arch)a);
		for (size_t si = 0; si < sizeof(sizes) / sizeof(*sizes); si++) {
			uint32_t n = sizes[si], bs = blocks[(si + 3 * a) % 5];
			struct mem m = {.size = 2ull * 4 * n};
			uint32_t *in, *out;
			struct {
				uint64_t in, out;
				uint32_t n;
			} p = {VA, VA + 4ull * n, n};

			m.buf = test_calloc(1, m.size);
			in = (uint32_t *)m.buf;
			out = in + n;
			for (uint32_t i = 0; i < n; i++)
				in[i] = (uint32_t)t_rand(&s);
			launch(&k, (enum nvl_isa_arch)a, &m, (n + bs - 1) / bs,
			       bs, &p, sizeof(p), 0, NULL, 0);
			for (uint32_t i = 0; i < n; i++) {
				uint32_t j = i ^ 1;
				uint32_t pv = j < n ? collatzish(in[j]) : 0;

				assert_int_equal(out[i],
						 collatzish(in[i]) + pv);
			}
			test_free(m.buf);
		}
		nvl_free(k.code);
	}
}

struct bad_kernel {
	const char *src;
	uint32_t shared_B;
	int ret;
	enum nvl_cs_reason reason;
	uint64_t pc;
};

static const struct bad_kernel bad_kernels[] = {
	/* a 4-byte load from VA + 2 */
	{"MOV R2, 0x2\nMOV R3, 0x1\nLDG.E R0, [R2]\nEXIT", 0, -EFAULT,
	 NVL_CS_MISALIGNED, 0x20},
	/* global address outside the buffer */
	{"MOV R2, 0x0\nMOV R3, 0x2\nSTG.E [R2], R0\nEXIT", 0, -EFAULT,
	 NVL_CS_GLOBAL_FAULT, 0x20},
	{"MOV R2, 0x40\nLDS R0, [R2]\nEXIT", 64, -EFAULT,
	 NVL_CS_SHARED_OUT_OF_BOUNDS, 0x10},
	{"LDC R0, c[0x3][0x0]\nEXIT", 0, -EFAULT, NVL_CS_CONST_OUT_OF_BOUNDS,
	 0x0},
	{"I2F.F16 R0, R1\nEXIT", 0, -EFAULT, NVL_CS_ILLEGAL_INSTRUCTION, 0},
	{"top: BRA top", 0, -ETIMEDOUT, NVL_CS_TIMEOUT, 0},
	{"NOP", 0, -EFAULT, NVL_CS_PC_OUT_OF_RANGE, 0x10},
	{"S2R R0, SR_LANEID\n"
	 "BSSY B0, x\nBSSY B1, x\n"
	 "ISETP.LT.U32.AND P0, PT, R0, 0x10, PT\n"
	 "@P0 BRA a\nBSYNC B1\nEXIT\na: BSYNC B0\nx: EXIT",
	 0, -EFAULT, NVL_CS_DEADLOCK, 0},
};

static void errors_stop_the_launch(void **state)
{
	for (size_t i = 0; i < sizeof(bad_kernels) / sizeof(*bad_kernels);
	     i++) {
		const struct bad_kernel *b = &bad_kernels[i];
		struct mem m = {.size = 4096};
		struct nvl_cs_fault f;
		struct kernel k;
		uint32_t zero = 0;
		struct nvl_cs_launch l;

		m.buf = test_calloc(1, m.size);
		build(&k, b->src, NVL_ISA_SM80);
		l = (struct nvl_cs_launch){
			.arch = NVL_ISA_SM80,
			.code = k.code,
			.ninsn = (uint32_t)k.n,
			.grid = {1, 1, 1},
			.block = {32, 1, 1},
			.shared_B = b->shared_B,
			.cbuf = {&zero},
			.cbuf_B = {4},
			.translate = translate,
			.mem_ctx = &m,
			.max_warp_instrs = 1000,
		};
		if (nvl_cs_run(&l, &f, NULL) != b->ret || f.reason != b->reason)
			fail_msg("kernel %zu: %s (reason %d, want %d)", i,
				 nvl_error_msg(), f.reason, b->reason);
		if (b->pc)
			assert_int_equal(f.pc, b->pc);
		assert_non_null(
			strstr(nvl_error_msg(), nvl_cs_reason_name(b->reason)));
		nvl_free(k.code);
		test_free(m.buf);
	}
}

/*
 * A warp whose lanes were left waiting at a BSYNC (the deadlock above)
 * must not leave that wait to the next launch on the same thread, which
 * gets the same warp buffer: the interpreter clears only the barriers it
 * noted as waited on. Each thread stores (at its global index) 1 for lanes
 * 0-15, 2 for the others, after both sides reconverge at BSYNC B0.
 */
static void a_failed_barrier_leaves_nothing_behind(void **state)
{
	/* automatic: an element read from another array is not a constant
	 * expression in C (gcc accepts it in a static initialiser, clang
	 * does not) */
	const char *const src[] = {
		bad_kernels[sizeof(bad_kernels) / sizeof(*bad_kernels) - 1].src,
		"S2R R0, SR_LANEID\n"
		"S2R R5, SR_TID.X\n"
		"S2R R6, SR_CTAID.X\n"
		"IMAD R5, R6, 0x40, R5\n"
		"BSSY B0, j\n"
		"ISETP.LT.U32.AND P0, PT, R0, 0x10, PT\n"
		"@P0 BRA a\n"
		"MOV R4, 0x2\n"
		"BRA j\n"
		"a: MOV R4, 0x1\n"
		"j: BSYNC B0\n"
		"SHF.L.U32 R2, R5, 0x2, RZ\n"
		"MOV R3, 0x1\n"
		"STG.E [R2], R4\n"
		"EXIT",
	};
	struct mem m = {.size = 4096};
	uint32_t zero = 0, *out;

	(void)state;
	m.buf = test_calloc(1, m.size);
	out = (uint32_t *)m.buf;
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < 2; i++) {
			struct nvl_cs_fault f;
			struct kernel k;
			struct nvl_cs_launch l;

			build(&k, src[i], NVL_ISA_SM80);
			l = (struct nvl_cs_launch){
				.arch = NVL_ISA_SM80,
				.code = k.code,
				.ninsn = (uint32_t)k.n,
				.grid = {2, 1, 1},
				.block = {64, 1, 1},
				.cbuf = {&zero},
				.cbuf_B = {4},
				.translate = translate,
				.mem_ctx = &m,
				.max_warp_instrs = 1000,
			};
			memset(m.buf, 0, m.size);
			assert_int_equal(nvl_cs_run(&l, &f, NULL),
					 i ? 0 : -EFAULT);
			if (!i)
				assert_int_equal(f.reason, NVL_CS_DEADLOCK);
			for (uint32_t t = 0; i && t < 128; t++)
				assert_int_equal(out[t], t % 32 < 16 ? 1 : 2);
			nvl_free(k.code);
		}
	}
	test_free(m.buf);
}

static void bad_launches(void **state)
{
	struct mem m = {.size = 64};
	uint64_t junk[2] = {0xfff, 0};
	struct nvl_cs_fault f;
	struct kernel k;
	struct nvl_cs_launch l = {
		.arch = NVL_ISA_SM75,
		.grid = {1, 1, 1},
		.block = {1025, 1, 1},
		.translate = translate,
		.mem_ctx = &m,
	};

	build(&k, "EXIT", NVL_ISA_SM75);
	l.code = k.code;
	l.ninsn = 1;
	assert_int_equal(nvl_cs_run(&l, &f, NULL), -EINVAL);
	l.block[0] = 32;
	l.grid[1] = 0;
	assert_int_equal(nvl_cs_run(&l, &f, NULL), -EINVAL);
	l.grid[1] = 1;
	l.code = junk;
	assert_int_equal(nvl_cs_run(&l, &f, NULL), -EINVAL);
	assert_int_equal(f.reason, NVL_CS_ILLEGAL_INSTRUCTION);
	l.code = k.code;
	assert_int_equal(nvl_cs_run(&l, &f, NULL), 0);
	nvl_free(k.code);
}

struct alloc_ctx {
	struct kernel k;
	struct mem m;
};

static int alloc_op(void *arg)
{
	struct alloc_ctx *c = arg;
	uint32_t c0[0x60] = {64, 1, 1};
	struct nvl_cs_launch l = {
		.arch = NVL_ISA_SM89,
		.code = c->k.code,
		.ninsn = (uint32_t)c->k.n,
		.grid = {2, 1, 1},
		.block = {64, 1, 1},
		.shared_B = 256,
		.cbuf = {c0},
		.cbuf_B = {sizeof(c0)},
		.translate = translate,
		.mem_ctx = &c->m,
	};
	struct {
		uint64_t in;
		uint32_t n, pad;
		uint64_t part, total;
	} p = {VA, 128, 0, VA + 512, VA + 520};

	memcpy((uint8_t *)c0 + PARAM, &p, sizeof(p));
	memset(c->m.buf, 0, c->m.size);
	for (uint32_t i = 0; i < 128; i++)
		((uint32_t *)c->m.buf)[i] = i;
	return nvl_cs_run(&l, NULL, NULL);
}

static void alloc_check(int ret, void *arg)
{
	assert_int_equal(ret, -ENOMEM);
}

static void allocation_failures(void **state)
{
	struct alloc_ctx c = {.m = {.size = 1024}};

	c.m.buf = test_calloc(1, c.m.size);
	build(&c.k, reduce_atom_src, NVL_ISA_SM89);
	t_fail_each_alloc(alloc_op, alloc_check, &c, 20);
	assert_int_equal(((uint32_t *)c.m.buf)[130], 127 * 128 / 2);
	nvl_free(c.k.code);
	test_free(c.m.buf);
}

/* vector add scheduled like a compiler would: every variable-latency result
 * has a write scoreboard and its consumers wait on it */
static const char vadd_sched_src[] =
	"[B------:R-:W0:-:S01] S2R R0, SR_TID.X\n"
	"[B------:R-:W1:-:S01] S2R R1, SR_CTAID.X\n"
	"[B------:R-:W-:-:S01] MOV R2, c[0x0][0x0]\n"
	"[B01----:R-:W-:-:S04] IMAD R0, R1, R2, R0\n"
	"ISETP.GE.U32.AND P0, PT, R0, c[0x0][0x178], PT\n"
	"@P0 EXIT\n"
	"MOV R9, 0x4\n"
	"IMAD.WIDE.U32 R2, R0, R9, c[0x0][0x160]\n"
	"IMAD.WIDE.U32 R4, R0, R9, c[0x0][0x168]\n"
	"IMAD.WIDE.U32 R6, R0, R9, c[0x0][0x170]\n"
	"[B------:R-:W2:-:S01] LDG.E R2, [R2]\n"
	"[B------:R-:W3:-:S01] LDG.E R4, [R4]\n"
	"[B--23--:R-:W-:-:S04] FADD R8, R2, R4\n"
	"[B------:R4:W-:-:S01] STG.E [R6], R8\n"
	"%s"
	"EXIT\n";

static int run_checked(const char *extra, const char *wait_fix,
		       struct nvl_cs_fault *f)
{
	char src[2048], text[2048];
	struct kernel k;
	struct mem m = {.size = 3 * 4 * 40};
	uint32_t c0[0x200 / 4] = {32, 1, 1, 2, 1, 1};
	struct {
		uint64_t a, b, c;
		uint32_t n;
	} p = {VA, VA + 160, VA + 320, 40};
	struct nvl_cs_launch l;
	int ret;

	snprintf(src, sizeof(src), vadd_sched_src, extra);
	if (wait_fix) {
		/* drop the FADD's wait mask */
		char *at = strstr(src, wait_fix);

		memcpy(text, src, (size_t)(at - src));
		snprintf(text + (at - src), sizeof(text) - (size_t)(at - src),
			 "[B------%s", at + strlen(wait_fix));
		memcpy(src, text, sizeof(src));
	}
	build(&k, src, NVL_ISA_SM80);
	m.buf = test_calloc(1, m.size);
	memcpy((uint8_t *)c0 + PARAM, &p, sizeof(p));
	l = (struct nvl_cs_launch){
		.arch = NVL_ISA_SM80,
		.code = k.code,
		.ninsn = (uint32_t)k.n,
		.grid = {2, 1, 1},
		.block = {32, 1, 1},
		.cbuf = {c0},
		.cbuf_B = {sizeof(c0)},
		.translate = translate,
		.mem_ctx = &m,
		.check_hazards = true,
	};
	ret = nvl_cs_run(&l, f, NULL);
	nvl_free(k.code);
	test_free(m.buf);
	return ret;
}

static void hazards_are_detected(void **state)
{
	struct nvl_cs_fault f;

	/* correctly scheduled: runs */
	assert_int_equal(run_checked("", NULL, &f), 0);
	/* the FADD does not wait for the loads: R2 is read too early */
	assert_int_equal(run_checked("", "[B--23--", &f), -EFAULT);
	assert_int_equal(f.reason, NVL_CS_HAZARD);
	assert_int_equal(f.addr, 2);
	assert_int_equal(f.pc, 12 * 16);
	assert_non_null(strstr(nvl_error_msg(), "hazard"));
	/* overwriting the store's data before its read scoreboard */
	assert_int_equal(run_checked("MOV R8, 0x1\n", NULL, &f), -EFAULT);
	assert_int_equal(f.reason, NVL_CS_HAZARD);
	assert_int_equal(f.addr, 8);
	assert_int_equal(
		run_checked("[B----4-:R-:W-:-:S01] MOV R8, 0x1\n", NULL, &f),
		0);
	/* a load with no scoreboard at all can never be consumed */
	assert_int_equal(
		run_checked("LDG.E R10, [R6]\nMOV R11, R10\n", NULL, &f),
		-EFAULT);
	assert_int_equal(f.addr, 10);
	/* register widths from the ISA's one description (nvl_isa_gprs()):
	 * LDC.64 writes the pair R12:R13, and its index register is R21
	 * alone (R22, still pending on scoreboard 5, is not read) */
	assert_int_equal(
		run_checked(
			"MOV R21, RZ\n"
			"[B------:R-:W5:-:S01] S2R R22, SR_TID.X\n"
			"[B------:R-:W0:-:S01] LDC.64 R12, c[0x0][R21+0x8]\n"
			"[B0----5:R-:W-:-:S01] MOV R14, R13\n",
			NULL, &f),
		0);
	assert_int_equal(
		run_checked(
			"MOV R21, RZ\n"
			"[B------:R-:W5:-:S01] S2R R22, SR_TID.X\n"
			"[B------:R-:W0:-:S01] LDC.64 R12, c[0x0][R21+0x8]\n"
			"[B-----5:R-:W-:-:S01] MOV R14, R13\n",
			NULL, &f),
		-EFAULT);
	assert_int_equal(f.reason, NVL_CS_HAZARD);
	assert_int_equal(f.addr, 13);
}

/*
 * Thread ids follow the block's shape from run to run on one thread (the
 * interpreter keeps them in its per-thread warp buffer while the shape
 * stays the same): each thread stores z << 20 | y << 10 | x at its
 * linear index, over shapes of the same warp count and then another.
 */
/*
 * A warp's registers read as zero until written, in every CTA, although a
 * run clears only the rows its entry run does not write first (sm.c,
 * zero_rows()): CTA 0 writes R5 under a guard and R8 behind a branch,
 * every CTA reads R7 before writing it; CTAs after the first (the same
 * warp buffer, one run) must still see zeros there. Thread i writes its
 * R5, R6 (= R7 as first read) and R8 to out[3i..3i+2].
 */
static const char zero_src[] = "  S2R R0, SR_CTAID.X\n"
			       "  S2R R1, SR_TID.X\n"
			       "  ISETP.NE.U32.AND P0, PT, R0, RZ, PT\n"
			       "  @!P0 MOV R5, 0x7\n"
			       "  MOV R6, R7\n"
			       "  MOV R7, 0x9\n"
			       "  MOV R2, c[0x0][0x0]\n"
			       "  IMAD R3, R0, R2, R1\n"
			       "  MOV R9, 0xc\n"
			       "  IMAD.WIDE.U32 R10, R3, R9, c[0x0][0x160]\n"
			       "  @P0 BRA skip\n"
			       "  MOV R8, 0x5\n"
			       "skip:\n"
			       "  STG.E [R10], R5\n"
			       "  STG.E [R10+0x4], R6\n"
			       "  STG.E [R10+0x8], R8\n"
			       "  MOV R5, 0x1\n"
			       "  MOV R8, 0x2\n"
			       "  EXIT\n";

static void registers_read_zero_until_written(void **state)
{
	for (int a = 0; a < NVL_ISA_ARCH_COUNT; a++) {
		const uint32_t grid = 3, bs = 96, n = grid * bs;
		struct mem m = {.size = 12ull * n};
		uint64_t p = VA;
		struct kernel k;
		uint32_t *out;

		(void)state;
		build(&k, zero_src, (enum nvl_isa_arch)a);
		m.buf = test_malloc(m.size);
		memset(m.buf, 0xee, m.size);
		out = (uint32_t *)m.buf;
		launch(&k, (enum nvl_isa_arch)a, &m, grid, bs, &p, sizeof(p), 0,
		       NULL, 0);
		for (uint32_t i = 0; i < n; i++) {
			bool first = i < bs;

			assert_int_equal(out[3 * i], first ? 7 : 0);
			assert_int_equal(out[3 * i + 1], 0);
			assert_int_equal(out[3 * i + 2], first ? 5 : 0);
		}
		test_free(m.buf);
		nvl_free(k.code);
	}
}

static void thread_ids_follow_the_block_shape(void **state)
{
	static const char src[] = "  S2R R0, SR_TID.X\n"
				  "  S2R R1, SR_TID.Y\n"
				  "  S2R R2, SR_TID.Z\n"
				  "  MOV R3, c[0x0][0x0]\n"
				  "  MOV R4, c[0x0][0x4]\n"
				  "  IMAD R5, R2, R4, R1\n"
				  "  IMAD R5, R5, R3, R0\n"
				  "  SHF.L.U32 R6, R1, 0xa, RZ\n"
				  "  SHF.L.U32 R7, R2, 0x14, RZ\n"
				  "  IADD3 R6, R6, R7, R0\n"
				  "  MOV R9, 0x4\n"
				  "  IMAD.WIDE.U32 R10, R5, R9, c[0x0][0x160]\n"
				  "  STG.E [R10], R6\n"
				  "  EXIT\n";
	static const uint32_t shapes[][3] = {
		{64, 1, 1}, {32, 2, 1}, {16, 2, 2}, {8, 8, 1},
		{64, 1, 1}, {7, 5, 3},	{7, 5, 3},  {2, 2, 2},
	};
	static uint32_t c0[0x200 / 4];
	struct mem m = {.size = 4096};
	struct kernel k;

	m.buf = test_calloc(1, m.size);
	build(&k, src, NVL_ISA_SM86);
	for (size_t si = 0; si < sizeof(shapes) / sizeof(shapes[0]); si++) {
		const uint32_t *b = shapes[si];
		struct nvl_cs_launch l = {
			.arch = NVL_ISA_SM86,
			.code = k.code,
			.ninsn = (uint32_t)k.n,
			.grid = {1, 1, 1},
			.block = {b[0], b[1], b[2]},
			.cbuf = {c0},
			.cbuf_B = {sizeof(c0)},
			.translate = translate,
			.mem_ctx = &m,
		};
		uint64_t out = VA;
		uint32_t i = 0;

		memset(m.buf, 0xff, m.size);
		memset(c0, 0, sizeof(c0));
		memcpy(c0, b, 12);
		memcpy((uint8_t *)c0 + PARAM, &out, sizeof(out));
		assert_int_equal(nvl_cs_run(&l, NULL, NULL), 0);
		for (uint32_t z = 0; z < b[2]; z++)
			for (uint32_t y = 0; y < b[1]; y++)
				for (uint32_t x = 0; x < b[0]; x++, i++)
					assert_int_equal(((uint32_t *)m.buf)[i],
							 z << 20 | y << 10 | x);
		/* nothing past the block */
		assert_int_equal(((uint32_t *)m.buf)[i], 0xffffffffu);
	}
	nvl_free(k.code);
	test_free(m.buf);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(thread_ids_follow_the_block_shape),
	cmocka_unit_test(registers_read_zero_until_written),
	cmocka_unit_test(hazards_are_detected),
	cmocka_unit_test(vector_add),
	cmocka_unit_test(saxpy),
	cmocka_unit_test(reduction),
	cmocka_unit_test(divergent_loop),
	cmocka_unit_test(errors_stop_the_launch),
	cmocka_unit_test(a_failed_barrier_leaves_nothing_behind),
	cmocka_unit_test(bad_launches),
	cmocka_unit_test(allocation_failures),
};

T_MAIN(tests)

// SPDX-License-Identifier: MIT
/*
 * TEST: compute_audit
 * Description: regressions from an adversarial review of the compute
 * stack (session 15): the assembler's numbers, the interpreter's branch
 * targets and launch shapes, the launch helper's limits. Each case failed
 * before its fix.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <nouvelle/nouvelle.h>

#include "t.h"
#include "t_nv.h"
#include "base/alloc.h"
#include "base/time.h"
#include "base/log.h"
#include "hw/isa/isa.h"
#include "model/compute/sm.h"
#include "nouvelle/compute.h"

/* ---- assembler ---------------------------------------------------------- */

struct bad {
	const char *text;
	unsigned col;
	const char *msg;
};

static void expect_asm_error(const struct bad *b)
{
	struct nvl_isa_asm_error err;
	uint64_t *w = (uint64_t *)0x1;
	size_t n = 77;
	int ret = nvl_isa_assemble(b->text, NVL_ISA_SM80, 0, &w, &n, &err);

	if (ret != -EINVAL || err.line != 1 || err.col != b->col ||
	    !strstr(err.msg, b->msg))
		fail_msg("'%s': ret %d at %u:%u '%s' (want 1:%u '%s')", b->text,
			 ret, err.line, err.col, err.msg, b->col, b->msg);
	assert_ptr_equal(w, (uint64_t *)0x1);
	assert_int_equal(n, 77);
}

/*
 * An integer literal past 64 bits' range was taken modulo 2^64:
 * "-0xffffffffffffffff" assembled as the immediate 1 and
 * "0xffffffffffffffff" as -1 (0xffffffff in a 32-bit field).
 */
static void integer_literals_do_not_wrap(void **state)
{
	static const struct bad bad[] = {
		{"IADD3 R1, R2, -0xffffffffffffffff, RZ", 15, "integer"},
		{"IADD3 R1, R2, -18446744073709551615, RZ", 15, "integer"},
		{"IADD3 R1, R2, 0xffffffffffffffff, RZ", 15, "integer"},
		{"IADD3 R1, R2, -0x8000000000000001, RZ", 15, "integer"},
		{"LDG.E R0, [R2+0xffffffffffffffff]", 15, "offset"},
		{"LOP3.LUT R0, R1, R2, R3, 0x100000000000000ff, !PT", 26,
		 "operand 5"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_asm_error(&bad[i]);
}

/*
 * An f32 immediate is a decimal or its raw bits in hex. "-0x1" was read by
 * strtof() as the hex float -1.0 (while "0x1" is the bits 0x00000001), and
 * a decimal out of f32's range silently became Inf (1e40) or 0 (1e-50).
 */
static void float_literals_are_exact_or_rejected(void **state)
{
	static const struct bad bad[] = {
		{"FADD R0, R0, -0x1", 14, "float"},
		{"FADD R0, R0, -0x3f800000", 14, "float"},
		{"FMUL R0, R0, 1e40", 14, "float"},
		{"FMUL R0, R0, -3.5e38", 14, "float"},
		{"FFMA R0, R0, 1e-50, R1", 14, "float"},
	};
	static const struct {
		const char *text;
		uint32_t bits;
	} ok[] = {
		{"FADD R0, R0, 0x1", 0x1}, /* raw bits */
		{"FADD R0, R0, 1e-45", 0x1}, /* the smallest subnormal */
		{"FADD R0, R0, 3.4028235e38", 0x7f7fffff},
		{"FADD R0, R0, -0", 0x80000000},
		{"FADD R0, R0, 0x7f800000", 0x7f800000}, /* Inf, as printed */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_asm_error(&bad[i]);
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct nvl_isa_asm_error err;
		uint64_t *w;
		size_t n;

		if (nvl_isa_assemble(ok[i].text, NVL_ISA_SM80, 0, &w, &n, &err))
			fail_msg("'%s': %s", ok[i].text, err.msg);
		assert_int_equal(w[0] >> 32, ok[i].bits);
		nvl_free(w);
	}
}

/*
 * Scoreboards are 0-5 (the wait mask has six bits) and 7 means none
 * (reference §1.3). Scoreboard 6 was assembled, encoded and decoded: a
 * result no wait can ever release.
 */
static void scoreboard_6_does_not_exist(void **state)
{
	static const struct bad bad[] = {
		{"[B------:R6:W-:Y:S04] NOP", 9, "0-5"},
		{"[B------:R-:W6:Y:S04] NOP", 12, "0-5"},
	};
	struct nvl_isa_insn insn;
	uint64_t w[2], *o;
	size_t n;
	struct nvl_isa_asm_error err;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_asm_error(&bad[i]);
	assert_int_equal(nvl_isa_assemble("[B------:R5:W0:Y:S04] NOP",
					  NVL_ISA_SM80, 0, &o, &n, &err),
			 0);
	w[0] = o[0];
	w[1] = o[1];
	nvl_free(o);
	assert_int_equal(nvl_isa_decode(w, NVL_ISA_SM80, &insn), 0);
	insn.ctrl.wbar = 6;
	assert_int_equal(nvl_isa_encode(&insn, NVL_ISA_SM80, w), -EINVAL);
	insn.ctrl.wbar = 0;
	insn.ctrl.rbar = 6;
	assert_int_equal(nvl_isa_encode(&insn, NVL_ISA_SM80, w), -EINVAL);
	/* the words: write scoreboard 112:110, read 115:113 */
	insn.ctrl.rbar = 5;
	assert_int_equal(nvl_isa_encode(&insn, NVL_ISA_SM80, w), 0);
	nvl_isa_set(w, 110, 3, 6);
	assert_int_equal(nvl_isa_decode(w, NVL_ISA_SM80, &insn), -EINVAL);
	assert_non_null(strstr(nvl_error_msg(), "scoreboard"));
	nvl_isa_set(w, 110, 3, 0);
	nvl_isa_set(w, 113, 3, 6);
	assert_int_equal(nvl_isa_decode(w, NVL_ISA_SM80, &insn), -EINVAL);
}

/*
 * A value its field cannot hold (found by the encoder) was reported at
 * column 1, as "isa: MOV operand 2: isa: c[bank][offset] out of range
 * (...) (Invalid argument) (Invalid argument)": the row's operand number
 * (not the text's: IADD3's omitted carry-outs count), the encoder's
 * prefixes and one errno text per nesting. Now at the operand's column,
 * numbered as written, once.
 */
static void field_errors_point_at_the_operand(void **state)
{
	static const struct bad bad[] = {
		{"MOV R1, c[0x0][0x10000]", 9, "operand 2: c[bank][offset]"},
		{"LDG.E R0, [R2+0x800000]", 11, "operand 2: address offset"},
		{"SHFL.IDX PT, R0, R1, 32, 0x1fff", 22,
		 "operand 4: immediate 32 does not fit 5 bits"},
		{"IADD3 R1, R2, 0x100000000, RZ", 15,
		 "operand 3: immediate does not fit 32 bits"},
		{"IADD3 R1, P0, R2, 0x100000000, RZ", 19, "operand 4: "},
		{"BAR.SYNC 0x1", 10, "operand 1: only 0"},
		{"BSSY B0, 0x100000000", 10, "operand 2: branch offset"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct nvl_isa_asm_error err;
		uint64_t *w;
		size_t n;

		expect_asm_error(&bad[i]);
		assert_int_equal(nvl_isa_assemble(bad[i].text, NVL_ISA_SM80, 0,
						  &w, &n, &err),
				 -EINVAL);
		if (strstr(err.msg, "isa:") || strstr(err.msg, "Invalid"))
			fail_msg("'%s': '%s'", bad[i].text, err.msg);
		/* the library's message: the position and one errno text */
		assert_non_null(strstr(nvl_error_msg(), err.msg));
		assert_null(strstr(strstr(nvl_error_msg(), "(Invalid") + 1,
				   "(Invalid"));
	}
}

/*
 * Labels were looked up by a linear scan, at each definition (the
 * duplicate check) and each use: quadratic in their number (5000 labels:
 * 1.35 G instructions for `nvl asm`, 20000: 6 s of CPU under ASan). Now a
 * hash table. This checks that many labels, defined and used in a
 * scrambled order, all resolve (the speed is in the commit, as a unit
 * test is never timed).
 */
static void many_labels_resolve(void **state)
{
	enum { N = 20000 };
	char *src = test_malloc((size_t)N * 32), *p = src;
	struct nvl_isa_asm_error err;
	struct nvl_isa_insn insn;
	uint64_t *w;
	size_t n;

	(void)state;
	for (unsigned i = 0; i < N; i++)
		p += sprintf(p, "L%u: BRA L%u\n", i, (i * 7919u) % N);
	if (nvl_isa_assemble(src, NVL_ISA_SM80, 0x1000, &w, &n, &err))
		fail_msg("%u:%u %s", err.line, err.col, err.msg);
	assert_int_equal(n, N);
	for (unsigned i = 0; i < N; i++) {
		int64_t want = 16 * (int64_t)((i * 7919u) % N) - 16 * (i + 1);

		assert_int_equal(nvl_isa_decode(&w[2 * i], NVL_ISA_SM80, &insn),
				 0);
		assert_int_equal(insn.op[1].imm, want);
	}
	nvl_free(w);
	/* a duplicate among many is still found, at its line */
	strcpy(p, "L123: EXIT\n");
	assert_int_equal(nvl_isa_assemble(src, NVL_ISA_SM80, 0, &w, &n, &err),
			 -EINVAL);
	assert_int_equal(err.line, N + 1);
	assert_non_null(strstr(err.msg, "defined twice"));
	test_free(src);
}

/*
 * A label spelled like a register, predicate or special register was
 * defined, but every use of it reads as that register: "R1: EXIT" then
 * "BRA R1" said "expected a branch target". The definition is the error.
 */
static void labels_are_not_register_names(void **state)
{
	static const struct bad bad[] = {
		{"R1: EXIT", 1, "register"},
		{"  PT: EXIT", 3, "register"},
		{"URZ: EXIT", 1, "register"},
		{"B15: EXIT", 1, "register"},
		{"SR_TID.X: EXIT", 1, "register"},
		{"UP3: EXIT", 1, "register"},
	};
	struct nvl_isa_asm_error err;
	uint64_t *w;
	size_t n;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_asm_error(&bad[i]);
	/* names that only start like one are labels */
	assert_int_equal(nvl_isa_assemble("R1x: BRA R1x\nB16: BRA B16\n"
					  "PTX: BRA PTX\nR01: BRA R01\n",
					  NVL_ISA_SM80, 0, &w, &n, &err),
			 0);
	assert_int_equal(n, 4);
	nvl_free(w);
}

/* ---- interpreter --------------------------------------------------------- */

#define VA 0x10000ull

static uint32_t gmem[64];

static void *translate(void *ctx, uint64_t va, uint32_t size, bool write)
{
	(void)ctx;
	(void)write;
	if (va < VA || va + size > VA + sizeof(gmem))
		return NULL;
	return (uint8_t *)gmem + (va - VA);
}

static uint64_t *assemble(const char *src, size_t *n)
{
	struct nvl_isa_asm_error err;
	uint64_t *code;

	if (nvl_isa_assemble(src, NVL_ISA_SM80, 0x1000, &code, n, &err))
		fail_msg("'%s': %u:%u %s", src, err.line, err.col, err.msg);
	return code;
}

static int run(const uint64_t *code, size_t n, const uint32_t block[3],
	       bool generic, struct nvl_cs_fault *fault)
{
	static const uint32_t c0[0x200 / 4];
	struct nvl_cs_launch l = {
		.arch = NVL_ISA_SM80,
		.code = code,
		.ninsn = (uint32_t)n,
		.code_va = 0x1000,
		.grid = {1, 1, 1},
		.block = {block[0], block[1], block[2]},
		.shared_B = 64,
		.cbuf = {c0},
		.cbuf_B = {sizeof(c0)},
		.translate = translate,
		.max_warp_instrs = 1000,
		.generic_only = generic,
	};

	return nvl_cs_run(&l, fault, NULL);
}

/*
 * A branch target is an instruction index kept in 32 bits: a BRA whose
 * 48-bit offset reaches 2^36 bytes past the program wrapped to the next
 * instruction (and ran it) instead of leaving the program.
 */
static void far_branch_leaves_the_program(void **state)
{
	/* at 0x1000: BRA to 0x1010 + 2^36 (index 1 + 2^32); then a store
	 * that must not run */
	static const char src[] = "BRA 0x1000001010\n"
				  "MOV R2, 0x10000\n"
				  "MOV R3, RZ\n"
				  "STG.E [R2], R2\n"
				  "EXIT\n";
	static const uint32_t block[3] = {1, 1, 1};
	size_t n;
	uint64_t *code = assemble(src, &n);

	(void)state;
	for (int generic = 0; generic < 2; generic++) {
		struct nvl_cs_fault fault;

		memset(gmem, 0, sizeof(gmem));
		assert_int_equal(run(code, n, block, generic, &fault), -EFAULT);
		assert_int_equal(fault.reason, NVL_CS_PC_OUT_OF_RANGE);
		assert_int_equal(fault.pc, 0x1010ull + (1ull << 36));
		assert_int_equal(gmem[0], 0);
	}
	nvl_free(code);
	/* before the program: the error names the target, not index
	 * 0xffffffff past code_va */
	code = assemble("BRA 0xff0\nEXIT\n", &n);
	for (int generic = 0; generic < 2; generic++) {
		struct nvl_cs_fault fault;

		assert_int_equal(run(code, n, block, generic, &fault), -EFAULT);
		assert_int_equal(fault.reason, NVL_CS_PC_OUT_OF_RANGE);
		assert_int_equal(fault.pc, 0xff0);
	}
	nvl_free(code);
}

/*
 * SR_CLOCKLO counts the warp instructions run. In the fast loop (a
 * converged warp) it read the clock as of the loop's start: the two reads
 * around a 16-iteration loop gave the same value, where the generic path
 * gave 49 more (the fuzzer saw the paths' addresses differ).
 */
static void clock_advances_in_the_fast_loop(void **state)
{
	static const char src[] = "MOV R6, 0x10000\n"
				  "MOV R7, RZ\n"
				  "S2R R0, SR_CLOCKLO\n"
				  "MOV R5, 0x10\n"
				  "L: IADD3 R5, R5, -0x1, RZ\n"
				  "ISETP.NE.AND P0, PT, R5, RZ, PT\n"
				  "@P0 BRA L\n"
				  "S2R R1, SR_CLOCKLO\n"
				  "IADD3 R2, R1, -R0, RZ\n"
				  "STG.E [R6], R2\n"
				  "EXIT\n";
	static const uint32_t block[3] = {32, 1, 1};
	uint32_t d[2];
	size_t n;
	uint64_t *code = assemble(src, &n);

	(void)state;
	for (int generic = 0; generic < 2; generic++) {
		struct nvl_cs_fault fault;

		memset(gmem, 0, sizeof(gmem));
		assert_int_equal(run(code, n, block, generic, &fault), 0);
		d[generic] = gmem[0];
	}
	/* S2R, MOV, 16 x 3, then the second S2R: 50 instructions */
	assert_int_equal(d[1], 50);
	assert_int_equal(d[0], d[1]);
	nvl_free(code);
}

/*
 * Float atomics are ADD, MIN and MAX; shared 64-bit atomics only EXCH and
 * CAS (reference §2.4). A float type with any other operation (AND, XOR,
 * INC, DEC, EXCH, ...) ran as a float add, and ATOMS.ADD.64 as a 64-bit
 * add; now they are illegal instructions.
 */
static void atomics_outside_their_types_are_illegal(void **state)
{
	static const char *const bad[] = {
		"ATOMG.E.AND.F32.FTZ.RN PT, R0, [R2], R4",
		"ATOMG.E.EXCH.F32.FTZ.RN PT, R0, [R2], R4",
		"ATOMG.E.INC.F64.RN PT, R0, [R2], R4",
		"RED.E.XOR.F64.RN [R2], R4",
		"RED.E.OR.F32.FTZ.RN [R2], R4",
		"ATOMS.ADD.64 R0, [RZ], R4",
		"ATOMS.MAX.64 R0, [RZ], R4",
	};
	static const char *const good[] = {
		"ATOMG.E.ADD.F32.FTZ.RN PT, R0, [R2], R4",
		"RED.E.ADD.F64.RN [R2], R4",
		"ATOMS.EXCH.64 R0, [RZ], R4",
		"ATOMG.E.XOR.64 PT, R0, [R2], R4",
	};
	static const uint32_t block[3] = {1, 1, 1};
	char src[256];

	(void)state;
	for (size_t i = 0; i < 11; i++) {
		const char *insn = i < 7 ? bad[i] : good[i - 7];
		struct nvl_cs_fault fault;
		uint64_t *code;
		size_t n;
		int ret;

		snprintf(src, sizeof(src),
			 "MOV R2, 0x10000\nMOV R3, RZ\nMOV R4, 0x40000000\n"
			 "MOV R5, RZ\n%s\nEXIT\n",
			 insn);
		code = assemble(src, &n);
		memset(gmem, 0, sizeof(gmem));
		ret = run(code, n, block, i & 1, &fault);
		if (i < 7 && (ret != -EFAULT ||
			      fault.reason != NVL_CS_ILLEGAL_INSTRUCTION ||
			      fault.pc != 0x1040 || gmem[0] || gmem[1]))
			fail_msg("'%s': ret %d reason %d pc %#llx mem %#x",
				 insn, ret, fault.reason,
				 (unsigned long long)fault.pc, gmem[0]);
		if (i >= 7 && ret)
			fail_msg("'%s': ret %d", insn, ret);
		nvl_free(code);
	}
}

/*
 * The threads of a block were counted in 32 bits: 33025 x 65026 x 2
 * threads (each dimension fits a QMD's 16-bit field) is 4 modulo 2^32,
 * and the interpreter ran it as a block of 4 threads.
 */
static void block_product_does_not_wrap(void **state)
{
	static const uint32_t block[3] = {33025, 65026, 2};
	struct nvl_cs_fault fault;
	size_t n;
	uint64_t *code = assemble("EXIT\n", &n);

	(void)state;
	assert_int_equal(run(code, n, block, false, &fault), -EINVAL);
	assert_non_null(strstr(nvl_error_msg(), "block"));
	nvl_free(code);
}

/* ---- launch helper ------------------------------------------------------- */

/*
 * An SM has 64K 32-bit registers, allocated per warp in units of 256
 * (reference §3): a block of 1024 threads can have at most 64 registers
 * per thread. The helper accepted any register count up to 255 with any
 * block, a launch no chip can run.
 */
static void registers_fit_the_sm(void **state)
{
	static const uint32_t cls[] = {0xc5c0, 0xc6c0, 0xc7c0, 0xc9c0, 0xcbc0};
	uint32_t qmd[96], cb[0x200 / 4];
	struct nvl_compute_launch l = {
		.program_va = 0x100000,
		.grid = {1, 1, 1},
		.block = {1024, 1, 1},
		.cbuf0_va = 0x200000,
		.cbuf0_size = sizeof(cb),
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cls) / sizeof(cls[0]); i++) {
		l.block[0] = 1024;
		l.register_count = 64; /* 32 warps x 2048 */
		assert_int_equal(nvl_compute_launch_encode(cls[i], &l, qmd, cb),
				 0);
		memset(qmd, 0xab, sizeof(qmd));
		l.register_count = 65; /* 32 warps x 2304 */
		assert_int_equal(nvl_compute_launch_encode(cls[i], &l, qmd, cb),
				 -EINVAL);
		assert_non_null(strstr(nvl_last_error(), "register"));
		for (size_t j = 0; j < sizeof(qmd); j++)
			assert_int_equal(((uint8_t *)qmd)[j], 0xab);
		l.register_count = 0; /* 255: 8 warps at most */
		assert_int_equal(nvl_compute_launch_encode(cls[i], &l, qmd, cb),
				 -EINVAL);
		l.block[0] = 256;
		assert_int_equal(nvl_compute_launch_encode(cls[i], &l, qmd, cb),
				 0);
		l.block[0] = 257;
		assert_int_equal(nvl_compute_launch_encode(cls[i], &l, qmd, cb),
				 -EINVAL);
	}
}

/* ---- through the driver -------------------------------------------------- */

#define MIB (1ull << 20)
#define VA_CTL (16 * MIB)
#define OFF_QMD 0x1000
#define OFF_CB 0x2000
#define OFF_PUSH 0x3000

struct drv {
	struct nvl_device *dev;
	struct nvl_device_info info;
	struct nvl_client *c;
	uint32_t vm, ctl, chan, sync;
	uint8_t *p;
};

static void drv_up(struct drv *x, const char *spec, uint32_t timeout_ms)
{
	struct nvl_device_opts o = {.job_timeout_ms = timeout_ms};
	struct nvl_vm_create_args va = {.start = 1 * MIB,
					.end = 1ull << 40,
					.kernel_start = 1ull << 39,
					.kernel_range = 16 * MIB};

	memset(x, 0, sizeof(*x));
	assert_int_equal(nvl_device_open(spec, &o, &x->dev), 0);
	assert_int_equal(nvl_device_query(x->dev, &x->info), 0);
	assert_int_equal(nvl_device_client_create(x->dev, &x->c), 0);
	assert_int_equal(nvl_vm_create(x->c, &va, &x->vm), 0);
	x->ctl = t_nv_vram_bo(x->c, x->vm, MIB, VA_CTL, (void **)&x->p);
	assert_int_equal(nvl_channel_create(x->c, x->vm, NVL_ENGINE_COMPUTE, 0,
					    &x->chan),
			 0);
	assert_int_equal(nvl_syncobj_create(x->c, 0, &x->sync), 0);
}

static void drv_down(struct drv *x)
{
	assert_int_equal(nvl_channel_destroy(x->c, x->chan), 0);
	assert_int_equal(nvl_bo_unmap(x->c, x->ctl), 0);
	nvl_client_destroy(x->c);
	nvl_device_close(x->dev);
}

/* submit @src (at VA_CTL) over @grid CTAs of 64 threads, signalling
 * x->sync */
static void drv_submit(struct drv *x, const char *src, uint32_t grid)
{
	enum nvl_isa_arch arch = x->info.compute_class == 0xc5c0 ? NVL_ISA_SM75
				 : x->info.compute_class == 0xcbc0
					 ? NVL_ISA_SM90
					 : NVL_ISA_SM86;
	struct nvl_isa_asm_error err;
	struct nvl_compute_launch l = {
		.program_va = VA_CTL,
		.grid = {grid, 1, 1},
		.block = {64, 1, 1},
		.register_count = 32,
		.cbuf0_va = VA_CTL + OFF_CB,
		.cbuf0_size = 0x200,
	};
	struct nvl_exec_push p = {.va = VA_CTL + OFF_PUSH};
	struct nvl_vm_sync sy = {.handle = x->sync};
	uint64_t *w;
	size_t n;
	int n_dw;

	if (nvl_isa_assemble(src, arch, VA_CTL, &w, &n, &err))
		fail_msg("%u:%u %s", err.line, err.col, err.msg);
	memcpy(x->p, w, n * 16);
	nvl_free(w);
	assert_int_equal(nvl_compute_launch_encode(x->info.compute_class, &l,
						   x->p + OFF_QMD,
						   x->p + OFF_CB),
			 0);
	n_dw = nvl_compute_push_launch(x->info.compute_class, 1,
				       VA_CTL + OFF_QMD, NVL_COMPUTE_PUSH_BIND,
				       (uint32_t *)(x->p + OFF_PUSH),
				       NVL_COMPUTE_PUSH_MAX_DW);
	assert_true(n_dw > 0);
	p.len = (uint32_t)n_dw * 4;
	assert_int_equal(nvl_syncobj_reset(x->c, &x->sync, 1), 0);
	assert_int_equal(nvl_exec(x->c, x->chan, &p, 1, NULL, 0, &sy, 1, 0), 0);
}

/* wait for x->sync: its status (1 done, or the job's error) */
static int drv_wait(struct drv *x)
{
	int st = 0;

	assert_int_equal(nvl_syncobj_wait(x->c, &x->sync, NULL, 1,
					  t_nv_deadline(120000000000ll), 0,
					  NULL),
			 0);
	assert_int_equal(nvl_syncobj_status(x->c, x->sync, 0, &st), 0);
	return st;
}

/* drv_submit() and drv_wait(); *@ns: how long it took */
static int drv_launch(struct drv *x, const char *src, uint32_t grid,
		      int64_t *ns)
{
	int64_t t0 = nvl_time_ns();
	int st;

	drv_submit(x, src, grid);
	st = drv_wait(x);
	*ns = nvl_time_ns() - t0;
	return st;
}

/*
 * A kernel that never exits is a hung job: the job timeout's channel
 * reset must stop it. The grid did not look at the reset: it ran until
 * its instruction budget (2^30 warp instructions per SM worker, seconds
 * to tens of seconds), the firmware's reset waited for it (and gave up
 * after 10 s, killing the channel), and the engine stayed busy.
 */
static void a_kernel_that_never_exits_is_reset(void **state)
{
	struct drv x;
	struct nvl_channel_info ci;
	int64_t ns;

	(void)state;
	drv_up(&x, "model:ga102", 200);
	assert_int_equal(drv_launch(&x, "L: BRA L\n", 4, &ns), -ETIMEDOUT);
	/* the timeout, its recovery and the grid's stop: well under the
	 * budget's seconds */
	if (ns > 3000000000ll)
		fail_msg("the hung kernel's job took %lld ms",
			 (long long)(ns / 1000000));
	assert_int_equal(nvl_channel_query(x.c, x.chan, &ci), 0);
	assert_int_equal(ci.alive, 1);
	/* the channel takes work again */
	assert_int_equal(drv_launch(&x, "EXIT\n", 4, &ns), 1);
	drv_down(&x);
}

/*
 * Destroying a channel while its endless kernel runs: the firmware frees
 * the channel once its engine let go of it, so the grid must stop at the
 * disable; the device (and a new channel) go on.
 */
static void a_channel_with_an_endless_kernel_is_destroyed(void **state)
{
	struct drv x;
	int64_t t0, ns;
	int st;

	(void)state;
	drv_up(&x, "model:tu102", 0); /* the default 5 s job timeout */
	drv_submit(&x, "L: BRA L\n", 4);
	nanosleep(&(struct timespec){.tv_nsec = 50000000}, NULL);
	t0 = nvl_time_ns();
	assert_int_equal(nvl_channel_destroy(x.c, x.chan), 0);
	ns = nvl_time_ns() - t0;
	if (ns > 3000000000ll)
		fail_msg("destroy took %lld ms", (long long)(ns / 1000000));
	st = drv_wait(&x);
	assert_true(st == -ECANCELED || st == -ETIMEDOUT);
	assert_int_equal(
		nvl_channel_create(x.c, x.vm, NVL_ENGINE_COMPUTE, 0, &x.chan),
		0);
	assert_int_equal(drv_launch(&x, "EXIT\n", 4, &ns), 1);
	drv_down(&x);
}

/*
 * A block is at most 1024 x 1024 x 64 threads (reference §3, the CUDA
 * guide's limits for every chip here), 1024 in all. The helper checked
 * only the product and the QMD's 16-bit fields: {1, 1, 1024} passed.
 */
static void block_depth_is_at_most_64(void **state)
{
	static const struct {
		uint32_t x, y, z;
		int ret;
	} c[] = {
		{1, 1, 64, 0},	      {16, 1, 64, 0},
		{1, 1024, 1, 0},      {1024, 1, 1, 0},
		{1, 1, 65, -EINVAL},  {1, 1, 1024, -EINVAL},
		{2, 2, 128, -EINVAL},
	};
	uint32_t qmd[96], cb[0x200 / 4];
	struct nvl_compute_launch l = {
		.program_va = 0x100000,
		.grid = {1, 1, 1},
		.register_count = 32,
		.cbuf0_va = 0x200000,
		.cbuf0_size = sizeof(cb),
	};

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		l.block[0] = c[i].x;
		l.block[1] = c[i].y;
		l.block[2] = c[i].z;
		if (nvl_compute_launch_encode(0xc7c0, &l, qmd, cb) != c[i].ret)
			fail_msg("block %ux%ux%u: want %d", c[i].x, c[i].y,
				 c[i].z, c[i].ret);
	}
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(integer_literals_do_not_wrap),
	cmocka_unit_test(far_branch_leaves_the_program),
	cmocka_unit_test(block_product_does_not_wrap),
	cmocka_unit_test(registers_fit_the_sm),
	cmocka_unit_test(a_kernel_that_never_exits_is_reset),
	cmocka_unit_test(float_literals_are_exact_or_rejected),
	cmocka_unit_test(scoreboard_6_does_not_exist),
	cmocka_unit_test(a_channel_with_an_endless_kernel_is_destroyed),
	cmocka_unit_test(field_errors_point_at_the_operand),
	cmocka_unit_test(block_depth_is_at_most_64),
	cmocka_unit_test(many_labels_resolve),
	cmocka_unit_test(clock_advances_in_the_fast_loop),
	cmocka_unit_test(labels_are_not_register_names),
	cmocka_unit_test(atomics_outside_their_types_are_illegal),
};

T_MAIN(tests)

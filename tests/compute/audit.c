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

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(integer_literals_do_not_wrap),
	cmocka_unit_test(far_branch_leaves_the_program),
	cmocka_unit_test(block_product_does_not_wrap),
	cmocka_unit_test(registers_fit_the_sm),
};

T_MAIN(tests)

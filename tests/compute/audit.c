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

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(integer_literals_do_not_wrap),
};

T_MAIN(tests)

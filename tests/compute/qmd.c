// SPDX-License-Identifier: MIT
/*
 * TEST: compute_qmd
 * Description: the QMD fields the model ignored until session 19, through
 * the bring-up kit on every compute class: REGISTER_COUNT (an instruction
 * naming a register past it is the SM's OOR_REG warp error, a pair or a
 * quad counted whole; a CTA whose warps do not fit an SM's 64K registers,
 * or a count past R254, is refused), BARRIER_COUNT (a BAR naming a
 * barrier past it is ILLEGAL_INSTR_PARAM; more than 16 is refused) and
 * DEPENDENT_QMD0 (a grid naming a dependent QMD launches it when it is
 * done; a loop of QMDs is stopped and reported, a dependent QMD in
 * unmapped memory is an MMU fault). Then the driver's
 * nvl_compute_program_info(), which sets the two counts from a program.
 *
 * The QMD bits patched here are written as NVIDIA's headers give them
 * (open-gpu-doc classes/compute/clc9c0qmd.h QMDV02_04 — V02_02's bits —
 * and QMDV03_00, clcbc0qmd.h QMDV04_00), not through src/hw/compute.h.
 * The error names are the SM's HWW_WARP_ESR errors (OOR_REG,
 * ILLEGAL_INSTR_PARAM) as NVIDIA's open nvgpu driver lists them for
 * Volta.
 */
#include <errno.h>
#include <stdlib.h>

#include "cxkit.h"

#define CODE2 0x140000ull
#define QMD2 0x200800ull /* 256-byte aligned, past a 384-byte QMD */
#define FBUF 0x230000ull
#define HOLE (1ull << 39) /* unmapped, below the pointer's 2^40 */

static const char *const profiles[] = {"tu102", "ga102", "ad102", "gh100"};

/* REGISTER_COUNT, BARRIER_COUNT, DEPENDENT_QMD0_ENABLE / _ACTION /
 * _POINTER and the release's PAYLOAD and ADDRESS_LOWER: {hi, lo} */
struct qpos {
	unsigned regs[2], bars[2], dep_en, dep_act[2], dep_ptr[2], payload[2],
		rel_lo[2];
};

static const struct qpos *qpos_of(uint32_t cls)
{
	/* QMDV02_04: REGISTER_COUNT_V 656:648, BARRIER_COUNT 959:955,
	 * DEPENDENT_QMD0_ENABLE 141, _ACTION 144:142, _POINTER 511:480,
	 * RELEASE0_PAYLOAD 831:800, RELEASE0_ADDRESS_LOWER 767:736 */
	static const struct qpos v2 = {{656, 648}, {959, 955}, 141,
				       {144, 142}, {511, 480}, {831, 800},
				       {767, 736}};
	/* QMDV03_00: REGISTER_COUNT_V 656:648, BARRIER_COUNT 767:763,
	 * DEPENDENT_QMD0_ENABLE 512, _ACTION 515:513, _POINTER 511:480,
	 * RELEASE0_PAYLOAD_LOWER 863:832, RELEASE0_ADDRESS_LOWER 799:768 */
	static const struct qpos v3 = {{656, 648}, {767, 763}, 512,
				       {515, 513}, {511, 480}, {863, 832},
				       {799, 768}};
	/* QMDV04_00: REGISTER_COUNT 1208:1200, BARRIER_COUNT 1215:1211,
	 * DEPENDENT_QMD_ENABLE(0) 368, _ACTION(0) 371:369,
	 * DEPENDENT_QMD0_POINTER 479:448, RELEASE_SEMAPHORE0_PAYLOAD_LOWER
	 * 735:704, _ADDR_LOWER 671:640 */
	static const struct qpos v4 = {{1208, 1200}, {1215, 1211}, 368,
				       {371, 369},   {479, 448},   {735, 704},
				       {671, 640}};

	return cls == NVL_HW_COMPUTE_CLASS_TURING   ? &v2
	       : cls == NVL_HW_COMPUTE_CLASS_HOPPER ? &v4
						    : &v3;
}

/* DEPENDENT_QMD0_ACTION values (all three headers) */
#define ACT_INCREMENT_PUT 0
#define ACT_SCHEDULE 1
#define ACT_INVALIDATE_COPY_SCHEDULE 3

/* clear SEM too, then cx_launch() with SET_OBJECT */
static int qx_launch(struct cx *x)
{
	gpu_wr(x->g, SEM, 0);
	return cx_launch(x, true);
}

/* the launch was a CHERR_COMPUTE channel error with @data */
static void qx_expect_error(struct cx *x, uint32_t data)
{
	assert_int_equal(qx_launch(x), -EIO);
	assert_int_equal(nvl_hw_rd32(x->g->hw, NVL_HW_CHRAM_ERROR(x->chid)),
			 NVL_HW_CHERR_COMPUTE);
	assert_int_equal(nvl_hw_rd32(x->g->hw, NVL_HW_CHRAM_ERR_DATA(x->chid)),
			 data);
	cx_new_chan(x);
}

static void qx_expect_ok(struct cx *x)
{
	assert_int_equal(qx_launch(x), 0);
	assert_int_equal(gpu_rd(x->g, DATA), MARK);
	assert_int_equal(gpu_rd(x->g, SEM), 7);
}

static void set_regs(struct cx *x, uint32_t n)
{
	qbits(x->q, qpos_of(x->cls)->regs[0], qpos_of(x->cls)->regs[1], n);
}

static void set_bars(struct cx *x, uint32_t n)
{
	qbits(x->q, qpos_of(x->cls)->bars[0], qpos_of(x->cls)->bars[1], n);
}

/*
 * REGISTER_COUNT: cx_store_src names R0..R3, so 4 registers run it and 3 do
 * not: MOV R3 is an OOR_REG warp error, before the store (DATA stays 0,
 * no release). The model ran it with any count, 0 included.
 */
static void a_register_past_register_count_is_oor_reg(void **state)
{
	struct cx x;

	(void)state;
	for (unsigned p = 0; p < 4; p++) {
		cx_up(&x, profiles[p], -1, 32);
		set_regs(&x, 4);
		qx_expect_ok(&x);
		set_regs(&x, 3);
		qx_expect_error(&x, NVL_HW_COMPUTE_ERR_OOR_REG);
		assert_int_equal(gpu_rd(x.g, DATA), 0);
		assert_int_equal(gpu_rd(x.g, SEM), 0);
		set_regs(&x, 0);
		qx_expect_error(&x, NVL_HW_COMPUTE_ERR_OOR_REG);
		/* the channel after: the same QMD with enough runs */
		set_regs(&x, 4);
		qx_expect_ok(&x);
		cx_down(&x);
	}
}

/*
 * A 64-bit operand names a pair (reference §1.1): IMAD.WIDE's R2:R3 and
 * STG.E's address need 4 registers though nothing names R3 alone; a
 * 128-bit store's quad R4..R7 needs 8. And only an instruction a warp
 * issues counts: one past the count that a branch skips is harmless.
 */
static void pairs_and_quads_count_whole_and_only_issued_ones(void **state)
{
	static const char wide_src[] =
		"MOV R0, 0xbeef\nMOV R1, RZ\n"
		"IMAD.WIDE.U32 R2, R1, R0, c[0x0][0x160]\n"
		"STG.E [R2], R0\nEXIT\n";
	static const char quad_src[] =
		"MOV R4, 0xbeef\nMOV R2, 0x400000\nMOV R3, RZ\n"
		"STG.E.128 [R2], R4\nEXIT\n";
	static const char skip_src[] =
		"BRA skip\nMOV R200, RZ\nskip:\nMOV R0, 0xbeef\n"
		"MOV R2, 0x400000\nMOV R3, RZ\nSTG.E [R2], R0\nEXIT\n";
	uint64_t param = DATA;
	struct cx x;

	(void)state;
	cx_up(&x, "ga102", -1, 32);
	assert_int_equal(nvl_hw_vram_write(x.g->hw, CB0 + 0x160, &param, 8), 0);
	/* IMAD.WIDE R2 writes R2:R3 (R0 * 0 + DATA), nothing names R3
	 * alone */
	cx_load_at(&x, CODE, wide_src);
	set_regs(&x, 4);
	qx_expect_ok(&x);
	set_regs(&x, 3);
	qx_expect_error(&x, NVL_HW_COMPUTE_ERR_OOR_REG);
	/* STG.E.128 reads R4..R7 */
	cx_load_at(&x, CODE, quad_src);
	set_regs(&x, 8);
	qx_expect_ok(&x);
	set_regs(&x, 7);
	qx_expect_error(&x, NVL_HW_COMPUTE_ERR_OOR_REG);
	/* R200 is fetched (the BRA's target lies past it) but not run */
	cx_load_at(&x, CODE, skip_src);
	set_regs(&x, 4);
	qx_expect_ok(&x);
	cx_down(&x);
}

/*
 * An SM has 64K registers, given to warps in units of 256 (reference
 * §3): 1024 threads of 64 registers fit (32 warps x 2048), of 65 do not
 * (32 x 2304), and no thread has more than 255 (R0..R254). A launch that
 * cannot fit is refused before it runs (BAD_QMD); the model ran it.
 */
static void a_cta_past_the_register_file_is_refused(void **state)
{
	struct cx x;

	(void)state;
	for (unsigned p = 0; p < 4; p++) {
		cx_up(&x, profiles[p], -1, 1024);
		set_regs(&x, 64);
		qx_expect_ok(&x);
		set_regs(&x, 65);
		qx_expect_error(&x, NVL_HW_COMPUTE_ERR_BAD_QMD);
		assert_int_equal(gpu_rd(x.g, DATA), 0);
		cx_down(&x);
		cx_up(&x, profiles[p], -1, 32);
		set_regs(&x, 255);
		qx_expect_ok(&x);
		set_regs(&x, 256);
		qx_expect_error(&x, NVL_HW_COMPUTE_ERR_BAD_QMD);
		set_regs(&x, 511);
		qx_expect_error(&x, NVL_HW_COMPUTE_ERR_BAD_QMD);
		assert_int_equal(gpu_rd(x.g, DATA), 0);
		cx_down(&x);
	}
}

/*
 * BARRIER_COUNT: BAR.SYNC 0 needs 1 barrier; with 0 it is an
 * ILLEGAL_INSTR_PARAM warp error before the store after it (the model
 * ran it). More than the 16 named barriers a CTA has is refused.
 */
static void a_bar_past_barrier_count_is_illegal_instr_param(void **state)
{
	static const char bar_src[] = "BAR.SYNC 0x0\nMOV R0, 0xbeef\n"
				      "MOV R2, 0x400000\nMOV R3, RZ\n"
				      "STG.E [R2], R0\nEXIT\n";
	static const char arv_src[] = "BAR.ARV 0x0\nMOV R0, 0xbeef\n"
				      "MOV R2, 0x400000\nMOV R3, RZ\n"
				      "STG.E [R2], R0\nEXIT\n";
	struct cx x;

	(void)state;
	for (unsigned p = 0; p < 4; p++) {
		cx_up(&x, profiles[p], -1, 64);
		cx_load_at(&x, CODE, bar_src);
		set_bars(&x, 1);
		qx_expect_ok(&x);
		set_bars(&x, 16);
		qx_expect_ok(&x);
		set_bars(&x, 0);
		qx_expect_error(&x, NVL_HW_COMPUTE_ERR_ILLEGAL_INSTR_PARAM);
		assert_int_equal(gpu_rd(x.g, DATA), 0);
		assert_int_equal(gpu_rd(x.g, SEM), 0);
		set_bars(&x, 17);
		qx_expect_error(&x, NVL_HW_COMPUTE_ERR_BAD_QMD);
		/* every BAR mode names the barrier */
		cx_load_at(&x, CODE, arv_src);
		set_bars(&x, 0);
		qx_expect_error(&x, NVL_HW_COMPUTE_ERR_ILLEGAL_INSTR_PARAM);
		/* a program without BAR needs none */
		cx_load_at(&x, CODE, cx_store_src);
		qx_expect_ok(&x);
		cx_down(&x);
	}
}

/* x->q as a second QMD at QMD2: program CODE2, release @payload at
 * SEM + 16 */
static void qx_second(struct cx *x, uint32_t *q2, uint32_t payload)
{
	const struct qpos *qp = qpos_of(x->cls);
	uint32_t prog_lo = x->cls == NVL_HW_COMPUTE_CLASS_HOPPER ? 1216 : 1536;

	memcpy(q2, x->q, sizeof(x->q));
	/* PROGRAM_ADDRESS_LOWER: QMDV04_00 1247:1216, else 1567:1536 */
	qbits(q2, prog_lo + 31, prog_lo, (uint32_t)CODE2);
	qbits(q2, qp->payload[0], qp->payload[1], payload);
	qbits(q2, qp->rel_lo[0], qp->rel_lo[1], (uint32_t)(SEM + 16));
}

static void set_dep(uint32_t *q, const struct qpos *qp, bool en, uint32_t act,
		    uint64_t va)
{
	qbits(q, qp->dep_en, qp->dep_en, en);
	qbits(q, qp->dep_act[0], qp->dep_act[1], act);
	qbits(q, qp->dep_ptr[0], qp->dep_ptr[1], (uint32_t)(va >> 8));
}

/*
 * DEPENDENT_QMD0 (TG chains kernels this way, reference §4.2): a grid
 * whose QMD names a dependent QMD with ENABLE and ACTION QMD_SCHEDULE (or
 * INVALIDATE_COPY_SCHEDULE) launches it when it is done, after its own
 * release: the second program reads what the first stored. Without
 * ENABLE nothing follows; an ACTION the model does not do (a queue's
 * INCREMENT_PUT) is refused before the first grid runs. The model ignored
 * the fields: the second grid never ran.
 */
static void a_dependent_qmd_runs_when_its_parent_is_done(void **state)
{
	static const char next_src[] =
		"MOV R2, 0x400000\nMOV R3, RZ\nLDG.E R0, [R2]\n"
		"IADD3 R0, R0, 0x1, RZ\nSTG.E [R2+0x4], R0\nEXIT\n";
	uint32_t q2[96];
	struct cx x;

	(void)state;
	for (unsigned p = 0; p < 4; p++) {
		cx_up(&x, profiles[p], -1, 32);
		cx_load_at(&x, CODE2, next_src);
		qx_second(&x, q2, 8);
		assert_int_equal(
			nvl_hw_vram_write(x.g->hw, QMD2, q2, (size_t)x.qsize),
			0);
		for (unsigned k = 0; k < 2; k++) {
			set_dep(x.q, qpos_of(x.cls), true,
				k ? ACT_INVALIDATE_COPY_SCHEDULE : ACT_SCHEDULE,
				QMD2);
			gpu_wr(x.g, DATA + 4, 0);
			gpu_wr(x.g, SEM + 16, 0);
			qx_expect_ok(&x);
			assert_int_equal(gpu_rd(x.g, DATA + 4), MARK + 1);
			assert_int_equal(gpu_rd(x.g, SEM + 16), 8);
		}
		/* not enabled: the pointer alone launches nothing */
		set_dep(x.q, qpos_of(x.cls), false, ACT_SCHEDULE, QMD2);
		gpu_wr(x.g, DATA + 4, 0);
		gpu_wr(x.g, SEM + 16, 0);
		qx_expect_ok(&x);
		assert_int_equal(gpu_rd(x.g, DATA + 4), 0);
		assert_int_equal(gpu_rd(x.g, SEM + 16), 0);
		/* INCREMENT_PUT: not modelled, refused */
		set_dep(x.q, qpos_of(x.cls), true, ACT_INCREMENT_PUT, QMD2);
		qx_expect_error(&x, NVL_HW_COMPUTE_ERR_BAD_QMD);
		assert_int_equal(gpu_rd(x.g, DATA), 0);
		assert_int_equal(gpu_rd(x.g, SEM + 16), 0);
		cx_down(&x);
	}
}

/*
 * Hostile chains: A -> B -> A (and A -> A) would run forever, as a kernel
 * that never exits; the model stops the chain after a bound (TIMEOUT, as
 * its instruction budget) instead of holding the runlist thread. A
 * dependent pointer to unmapped memory is an MMU fault of the GRAPHICS
 * engine naming the VA, after the parent's release; a new channel runs.
 */
static void hostile_dependent_qmds_are_bounded_and_reported(void **state)
{
	uint32_t q2[96], e[8];
	struct cx x;

	(void)state;
	cx_up(&x, "ga102", -1, 32);
	cx_load_at(&x, CODE2, cx_store_src);
	/* A -> B -> A */
	qx_second(&x, q2, 8);
	set_dep(q2, qpos_of(x.cls), true, ACT_SCHEDULE, QMD);
	assert_int_equal(nvl_hw_vram_write(x.g->hw, QMD2, q2, (size_t)x.qsize),
			 0);
	set_dep(x.q, qpos_of(x.cls), true, ACT_SCHEDULE, QMD2);
	qx_expect_error(&x, NVL_HW_COMPUTE_ERR_TIMEOUT);
	/* both ran, both released, before the bound stopped them */
	assert_int_equal(gpu_rd(x.g, DATA), MARK);
	assert_int_equal(gpu_rd(x.g, SEM), 7);
	assert_int_equal(gpu_rd(x.g, SEM + 16), 8);
	/* A -> A */
	set_dep(x.q, qpos_of(x.cls), true, ACT_SCHEDULE, QMD);
	qx_expect_error(&x, NVL_HW_COMPUTE_ERR_TIMEOUT);
	/* A -> a hole */
	nvl_hw_wr32(x.g->hw, NVL_HW_FAULT_BUF_LO(0),
		    NVL_HW_FAULT_BUF_LO_PHYS(FBUF, NVL_HW_FAULT_APERTURE_VID));
	nvl_hw_wr32(x.g->hw, NVL_HW_FAULT_BUF_HI(0), 0);
	nvl_hw_wr32(x.g->hw, NVL_HW_FAULT_BUF_SIZE(0),
		    16 | NVL_HW_FAULT_BUF_SIZE_ENABLE);
	set_dep(x.q, qpos_of(x.cls), true, ACT_SCHEDULE, HOLE);
	assert_int_equal(qx_launch(&x), -EIO);
	assert_int_equal(nvl_hw_rd32(x.g->hw, NVL_HW_CHRAM_ERROR(x.chid)),
			 NVL_HW_CHERR_MMU_FAULT);
	assert_int_equal(nvl_hw_rd32(x.g->hw, NVL_HW_FAULT_BUF_PUT(0)), 1);
	assert_int_equal(nvl_hw_vram_read(x.g->hw, FBUF, e, sizeof(e)), 0);
	assert_int_equal(e[NVL_HW_FAULT_ENTRY_ENGINE], x.g->m->eng->graphics);
	assert_int_equal(e[NVL_HW_FAULT_ENTRY_ADDR_HI], (uint32_t)(HOLE >> 32));
	/* the parent ran and released first */
	assert_int_equal(gpu_rd(x.g, DATA), MARK);
	assert_int_equal(gpu_rd(x.g, SEM), 7);
	cx_new_chan(&x);
	set_dep(x.q, qpos_of(x.cls), false, 0, 0);
	qx_expect_ok(&x);
	cx_down(&x);
}

/*
 * nvl_compute_program_info(): the registers a program names + the 2 a
 * Volta+ thread reserves, at least 4 (NAK's count, reference §3), a pair
 * or quad counted whole; the barriers its BAR names; bad input refused
 * with -EINVAL and nothing written. A launch with those counts runs.
 */
static void program_info_gives_the_counts_a_launch_needs(void **state)
{
	static const struct {
		const char *src;
		uint32_t regs, bars;
	} c[] = {
		{"EXIT\n", 4, 0},
		{"MOV R0, 0x1\nEXIT\n", 4, 0},
		{"MOV R9, 0x1\nEXIT\n", 12, 0},
		/* the pair R10:R11 */
		{"IMAD.WIDE.U32 R10, R0, R1, c[0x0][0x160]\nEXIT\n", 14, 0},
		/* the quad R8..R11 */
		{"MOV R2, RZ\nMOV R3, RZ\nSTG.E.128 [R2], R8\nEXIT\n", 14, 0},
		{"BAR.SYNC 0x0\nEXIT\n", 4, 1},
		{"MOV R254, RZ\nEXIT\n", 255, 0},
	};
	struct nvl_compute_program_info info;
	const uint32_t cls = NVL_HW_COMPUTE_CLASS_AMPERE_B;
	uint64_t *w;
	size_t n;

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct nvl_isa_asm_error err;

		if (nvl_isa_assemble(c[i].src, NVL_ISA_SM86, 0, &w, &n, &err))
			fail_msg("%zu: %s", i, err.msg);
		memset(&info, 0xa5, sizeof(info));
		assert_int_equal(
			nvl_compute_program_info(cls, w, n * 16, &info), 0);
		assert_int_equal(info.register_count, c[i].regs);
		assert_int_equal(info.barrier_count, c[i].bars);
		assert_int_equal(info.instructions, n);
		nvl_free(w);
	}
	/* bad input */
	{
		uint64_t bad[2] = {~0ull, ~0ull}, one[2] = {0};
		struct nvl_isa_asm_error err;

		assert_int_equal(nvl_isa_assemble("EXIT\n", NVL_ISA_SM86, 0, &w,
						  &n, &err),
				 0);
		memcpy(one, w, 16);
		nvl_free(w);
		memset(&info, 0x5a, sizeof(info));
		assert_int_equal(nvl_compute_program_info(cls, bad, 16, &info),
				 -EINVAL);
		assert_int_equal(nvl_compute_program_info(cls, one, 0, &info),
				 -EINVAL);
		assert_int_equal(nvl_compute_program_info(cls, one, 8, &info),
				 -EINVAL);
		assert_int_equal(
			nvl_compute_program_info(0x1234, one, 16, &info),
			-EINVAL);
		assert_int_equal(nvl_compute_program_info(cls, NULL, 16, &info),
				 -EINVAL);
		assert_int_equal(nvl_compute_program_info(cls, one, 16, NULL),
				 -EINVAL);
		assert_int_equal(info.register_count, 0x5a5a5a5au);
	}
	/* the helper's barrier count: at most 16 */
	{
		struct nvl_compute_launch l = {
			.program_va = CODE,
			.grid = {1, 1, 1},
			.block = {32, 1, 1},
			.cbuf0_va = CB0,
			.cbuf0_size = CB0_B,
			.barrier_count = 17,
		};
		uint32_t q[96], cb[CB0_B / 4];

		assert_int_equal(nvl_compute_launch_encode(cls, &l, q, cb),
				 -EINVAL);
		l.barrier_count = 16;
		assert_int_equal(nvl_compute_launch_encode(cls, &l, q, cb), 0);
		/* QMDV03_00 BARRIER_COUNT 767:763 */
		assert_int_equal(q[767 / 32] >> (763 % 32) & 31, 16);
	}
}

/* a launch whose counts come from nvl_compute_program_info() runs the
 * barrier kernel; with the counts one lower it stops */
static void program_info_counts_run_on_every_class(void **state)
{
	static const char src[] = "S2R R5, SR_TID.X\nBAR.SYNC 0x0\n"
				  "MOV R0, 0xbeef\nMOV R2, 0x400000\n"
				  "MOV R3, RZ\nSTG.E [R2], R0\nEXIT\n";
	struct nvl_compute_program_info info;
	struct nvl_isa_asm_error err;
	struct cx x;
	uint64_t *w;
	size_t n;

	(void)state;
	for (unsigned p = 0; p < 4; p++) {
		cx_up(&x, profiles[p], -1, 64);
		if (nvl_isa_assemble(src, x.arch, CODE, &w, &n, &err))
			fail_msg("%s", err.msg);
		assert_int_equal(nvl_hw_vram_write(x.g->hw, CODE, w, n * 16),
				 0);
		assert_int_equal(
			nvl_compute_program_info(x.cls, w, n * 16, &info), 0);
		nvl_free(w);
		assert_int_equal(info.register_count, 8);
		assert_int_equal(info.barrier_count, 1);
		set_regs(&x, info.register_count);
		set_bars(&x, info.barrier_count);
		qx_expect_ok(&x);
		/* R5 is the highest: 6 registers are the least that run */
		set_regs(&x, 6);
		qx_expect_ok(&x);
		set_regs(&x, 5);
		qx_expect_error(&x, NVL_HW_COMPUTE_ERR_OOR_REG);
		set_regs(&x, info.register_count);
		set_bars(&x, info.barrier_count - 1);
		qx_expect_error(&x, NVL_HW_COMPUTE_ERR_ILLEGAL_INSTR_PARAM);
		cx_down(&x);
	}
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(a_register_past_register_count_is_oor_reg),
	cmocka_unit_test(pairs_and_quads_count_whole_and_only_issued_ones),
	cmocka_unit_test(a_cta_past_the_register_file_is_refused),
	cmocka_unit_test(a_bar_past_barrier_count_is_illegal_instr_param),
	cmocka_unit_test(a_dependent_qmd_runs_when_its_parent_is_done),
	cmocka_unit_test(hostile_dependent_qmds_are_bounded_and_reported),
	cmocka_unit_test(program_info_gives_the_counts_a_launch_needs),
	cmocka_unit_test(program_info_counts_run_on_every_class),
};

T_MAIN(tests)

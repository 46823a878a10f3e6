// SPDX-License-Identifier: MIT
/*
 * TEST: compute_audit2
 * Description: regressions from the second adversarial review of the
 * compute stack (session 17): SET_OBJECT of the compute class on a copy
 * runlist, the QMD release's structure size and reduction, Hopper's
 * QMD_TYPE. Each case failed before its fix. The QMD bits checked here
 * are written as NVIDIA's headers give them (open-gpu-doc
 * classes/compute/clc9c0qmd.h QMDV02_04 (V02_02's bits) and QMDV03_00,
 * clcbc0qmd.h QMDV04_00), not through src/hw/compute.h.
 */
#include <errno.h>
#include <stdlib.h>

#include "cxkit.h"

static const char *const profiles[] = {"tu102", "ga102", "ad102", "gh100"};

static uint32_t qget(const uint32_t *q, unsigned hi, unsigned lo)
{
	uint32_t v = 0;

	for (unsigned b = lo; b <= hi; b++)
		v |= (q[b / 32] >> (b % 32) & 1u) << (b - lo);
	return v;
}

/* RELEASE0_STRUCTURE_SIZE, _REDUCTION_ENABLE, _REDUCTION_OP,
 * _REDUCTION_FORMAT, PAYLOAD64B, ADDRESS_LOWER of each QMD version (hi,
 * lo); payload64b hi 0: absent */
struct relbits {
	unsigned size_hi, size_lo, red_en, op_hi, op_lo, fmt_hi, fmt_lo, p64,
		addr_hi, addr_lo;
};

static const struct relbits *relbits_of(uint32_t cls)
{
	/* QMDV02_04 (V02_02): STRUCTURE_SIZE 799, REDUCTION_ENABLE 794,
	 * REDUCTION_OP 790:788, REDUCTION_FORMAT 793:792, ADDRESS_LOWER
	 * 767:736 */
	static const struct relbits v2 = {799, 799, 794, 790, 788,
					  793, 792, 0,	 767, 736};
	/* QMDV03_00: STRUCTURE_SIZE 831:830, REDUCTION_ENABLE 826,
	 * REDUCTION_OP 822:820, FORMAT 825:824, PAYLOAD64B 829,
	 * ADDRESS_LOWER 799:768 */
	static const struct relbits v3 = {831, 830, 826, 822, 820,
					  825, 824, 829, 799, 768};
	/* QMDV04_00 RELEASE_*(0): STRUCTURE_SIZE 322:321, REDUCTION_ENABLE
	 * 324, REDUCTION_OP 327:325, FORMAT 329:328, PAYLOAD64B 332;
	 * RELEASE_SEMAPHORE0_ADDR_LOWER 671:640 */
	static const struct relbits v4 = {322, 321, 324, 327, 325,
					  329, 328, 332, 671, 640};

	return cls == NVL_HW_COMPUTE_CLASS_TURING   ? &v2
	       : cls == NVL_HW_COMPUTE_CLASS_HOPPER ? &v4
						    : &v3;
}

/* ---- the model through the bring-up kit ---------------------------------- */

/*
 * A copy runlist's PBDMA checks SET_OBJECT's class against its copy
 * engine and raises HCE_ILLEGAL_CLASS for any other (open-gpu-doc
 * Host-Fifo/volta/gv100/dev_pbdma.ref.txt, NV_UDMA_OBJECT; the interrupt
 * NV_PPBDMA_INTR_1_HCE_ILLEGAL_CLASS, bit 4: "a SetObject method that
 * specifies an unrecognized class ID"). The model took the compute class
 * on a copy channel and ran the grid there, beside the copy engine.
 */
static void compute_class_on_a_copy_channel_is_an_illegal_class(void **state)
{
	struct cx x;

	(void)state;
	cx_up(&x, "ga102", 0, 32);
	gpu_wr(x.g, SEM, 0);
	assert_int_equal(cx_launch(&x, true), -EIO);
	assert_int_equal(nvl_hw_rd32(x.g->hw, NVL_HW_CHRAM_ERROR(x.chid)),
			 NVL_HW_CHERR_CE_LAUNCH);
	assert_int_equal(nvl_hw_rd32(x.g->hw, NVL_HW_CHRAM_ERR_METHOD(x.chid)),
			 NVL_HW_SET_OBJECT);
	assert_int_equal(nvl_hw_rd32(x.g->hw, NVL_HW_CHRAM_ERR_DATA(x.chid)),
			 x.cls);
	/* no grid ran, no release */
	assert_int_equal(gpu_rd(x.g, DATA), 0);
	assert_int_equal(gpu_rd(x.g, SEM), 0);
	/* the copy class still binds on a copy channel */
	cx_new_chan(&x);
	{
		uint32_t p[2] = {NVL_HW_MTHD_INC(4, NVL_HW_SET_OBJECT, 1),
				 x.g->ce_class};

		gpu_push(&x.ch, p, 2);
		assert_int_equal(nvl_kit_kick(&x.g->kit, &x.ch), 0);
		assert_int_equal(nvl_kit_wait_idle(&x.g->kit, &x.ch, GPU_WAIT),
				 0);
	}
	cx_down(&x);
	/* and the compute runlist's channel runs the grid */
	cx_up(&x, "ga102", -1, 32);
	assert_int_equal(cx_launch(&x, true), 0);
	assert_int_equal(gpu_rd(x.g, DATA), MARK);
	assert_int_equal(gpu_rd(x.g, SEM), 7);
	cx_down(&x);
}

/* the helper asks for a one-word release, and a plain grid on Hopper */
static void helper_qmd_release_is_one_word(void **state)
{
	static const uint32_t cls[] = {0xc5c0, 0xc6c0, 0xc7c0, 0xc9c0, 0xcbc0};
	struct nvl_compute_launch l = {
		.program_va = CODE,
		.grid = {1, 1, 1},
		.block = {32, 1, 1},
		.cbuf0_va = CB0,
		.cbuf0_size = CB0_B,
		.release_va = SEM + 4,
		.release_payload = 9,
	};
	uint32_t q[96], cb[CB0_B / 4];

	(void)state;
	for (size_t i = 0; i < sizeof(cls) / sizeof(cls[0]); i++) {
		const struct relbits *r = relbits_of(cls[i]);

		assert_int_equal(nvl_compute_launch_encode(cls[i], &l, q, cb),
				 0);
		/* STRUCTURE_SIZE ONE_WORD = 1 (FOUR_WORDS = 0 writes 16
		 * bytes with a timestamp, 16-byte aligned) */
		assert_int_equal(qget(q, r->size_hi, r->size_lo), 1);
		assert_int_equal(qget(q, r->red_en, r->red_en), 0);
		/* QMDV04_00 QMD_TYPE 25:23: GRID_CTA 2 (QUEUE is 0) */
		if (cls[i] == NVL_HW_COMPUTE_CLASS_HOPPER)
			assert_int_equal(qget(q, 25, 23), 2);
	}
}

/* launch x->q on a fresh channel; expect BAD_QMD and no grid, no release */
static void expect_bad_qmd(struct cx *x)
{
	cx_new_chan(x);
	gpu_wr(x->g, SEM, 0x5a5a5a5a);
	assert_int_equal(cx_launch(x, true), -EIO);
	assert_int_equal(nvl_hw_rd32(x->g->hw, NVL_HW_CHRAM_ERROR(x->chid)),
			 NVL_HW_CHERR_COMPUTE);
	assert_int_equal(nvl_hw_rd32(x->g->hw, NVL_HW_CHRAM_ERR_DATA(x->chid)),
			 NVL_HW_COMPUTE_ERR_BAD_QMD);
	assert_int_equal(gpu_rd(x->g, DATA), 0);
	assert_int_equal(gpu_rd(x->g, SEM), 0x5a5a5a5a);
}

/* a release reduction @op (RELEASE0_REDUCTION_OP) of format @fmt
 * (UNSIGNED 0, SIGNED 1) on @old at SEM: launch, the word at SEM after */
static uint32_t reduce(struct cx *x, const struct relbits *r, unsigned op,
		       unsigned fmt, uint32_t old)
{
	qbits(x->q, r->op_hi, r->op_lo, op);
	qbits(x->q, r->fmt_hi, r->fmt_lo, fmt);
	gpu_wr(x->g, SEM, old);
	assert_int_equal(cx_launch(x, false), 0);
	return gpu_rd(x->g, SEM);
}

/*
 * RELEASE0_STRUCTURE_SIZE: ONE_WORD writes the 32-bit payload alone,
 * FOUR_WORDS (the field's zero value) the payload, a zero word and a
 * 64-bit timestamp; REDUCTION_ENABLE makes it a reduction with the QMD's
 * own op numbers (RED_ADD 0 ... RED_XOR 7, FORMAT UNSIGNED 0 / SIGNED 1).
 * The model wrote the 32-bit payload whatever the QMD asked for.
 */
static void release_structure_and_reduction_are_honoured(void **state)
{
	(void)state;
	for (size_t pi = 0; pi < sizeof(profiles) / sizeof(profiles[0]); pi++) {
		struct cx x;
		const struct relbits *r;
		uint32_t w[4], fill[4] = {0xa5a5a5a5, 0xa5a5a5a5, 0xa5a5a5a5,
					  0xa5a5a5a5};

		cx_up(&x, profiles[pi], -1, 32);
		r = relbits_of(x.cls);
		/* ONE_WORD: bytes 4..15 untouched */
		assert_int_equal(nvl_hw_vram_write(x.g->hw, SEM, fill, 16), 0);
		assert_int_equal(cx_launch(&x, true), 0);
		assert_int_equal(nvl_hw_vram_read(x.g->hw, SEM, w, 16), 0);
		assert_int_equal(w[0], 7);
		assert_int_equal(w[1], 0xa5a5a5a5);
		assert_int_equal(w[3], 0xa5a5a5a5);
		assert_int_equal(gpu_rd(x.g, DATA), MARK);
		/* FOUR_WORDS: payload, 0, timestamp */
		qbits(x.q, r->size_hi, r->size_lo, 0);
		assert_int_equal(nvl_hw_vram_write(x.g->hw, SEM, fill, 16), 0);
		assert_int_equal(cx_launch(&x, false), 0);
		assert_int_equal(nvl_hw_vram_read(x.g->hw, SEM, w, 16), 0);
		assert_int_equal(w[0], 7);
		assert_int_equal(w[1], 0);
		assert_true(w[2] != 0xa5a5a5a5 || w[3] != 0xa5a5a5a5);
		assert_true(((uint64_t)w[3] << 32 | w[2]) != 0);
		/* a reduction: RED_ADD of 7 to 5, unsigned, one word */
		qbits(x.q, r->size_hi, r->size_lo, 1);
		qbits(x.q, r->red_en, r->red_en, 1);
		assert_int_equal(reduce(&x, r, 0, 0, 5), 12);
		/* RED_MIN signed: min(-3, 7) */
		assert_int_equal(reduce(&x, r, 1, 1, (uint32_t)-3),
				 (uint32_t)-3);
		/* RED_XOR (7 in the QMD, IXOR 2 for Host) */
		assert_int_equal(reduce(&x, r, 7, 0, 0xf0), 0xf7);
		qbits(x.q, r->red_en, r->red_en, 0);
		/* FOUR_WORDS at an address that is not 16-byte aligned */
		qbits(x.q, r->size_hi, r->size_lo, 0);
		qbits(x.q, r->addr_hi, r->addr_lo, (uint32_t)SEM + 4);
		expect_bad_qmd(&x);
		qbits(x.q, r->addr_hi, r->addr_lo, (uint32_t)SEM);
		if (r->p64) {
			/* TWO_WORDS and a 64-bit payload: not modelled */
			qbits(x.q, r->size_hi, r->size_lo, 2);
			expect_bad_qmd(&x);
			qbits(x.q, r->size_hi, r->size_lo, 1);
			qbits(x.q, r->p64, r->p64, 1);
			expect_bad_qmd(&x);
		}
		cx_down(&x);
	}
}

/*
 * QMDV04_00 QMD_TYPE 25:23: QUEUE 0, GRID_NULL 1, GRID_CTA 2, the CGA
 * grids 3..5. The helper wrote 0 (a queue) and the model ran it as a grid.
 */
static void hopper_qmd_type_must_be_a_grid(void **state)
{
	struct cx x;

	(void)state;
	cx_up(&x, "gh100", -1, 32);
	assert_int_equal(cx_launch(&x, true), 0);
	assert_int_equal(gpu_rd(x.g, DATA), MARK);
	for (uint32_t t = 0; t < 8; t++) {
		if (t == 2)
			continue;
		qbits(x.q, 25, 23, t);
		expect_bad_qmd(&x);
	}
	cx_down(&x);
}

/*
 * A QMD in unmapped memory: the engine's read of it is an MMU fault of the
 * GRAPHICS engine (a non-replayable fault-buffer entry naming the QMD's
 * page), the channel is faulted and no grid runs; another channel still
 * launches.
 */
static void a_qmd_in_unmapped_memory_faults_the_channel(void **state)
{
	const uint64_t hole = 1ull << 39; /* below SEND_PCAS_A's 2^40 */
	const uint64_t fbuf = 0x230000;
	uint32_t p[NVL_COMPUTE_PUSH_MAX_DW], e[8];
	struct cx x;
	int n;

	(void)state;
	cx_up(&x, "ga102", -1, 32);
	nvl_hw_wr32(x.g->hw, NVL_HW_FAULT_BUF_LO(0),
		    NVL_HW_FAULT_BUF_LO_PHYS(fbuf, NVL_HW_FAULT_APERTURE_VID));
	nvl_hw_wr32(x.g->hw, NVL_HW_FAULT_BUF_HI(0), 0);
	nvl_hw_wr32(x.g->hw, NVL_HW_FAULT_BUF_SIZE(0),
		    16 | NVL_HW_FAULT_BUF_SIZE_ENABLE);
	gpu_wr(x.g, DATA, 0);
	gpu_wr(x.g, SEM, 0);
	n = nvl_compute_push_launch(x.cls, SUBCH, hole, NVL_COMPUTE_PUSH_BIND,
				    p, NVL_COMPUTE_PUSH_MAX_DW);
	assert_true(n > 0);
	gpu_push(&x.ch, p, (uint32_t)n);
	assert_int_equal(nvl_kit_kick(&x.g->kit, &x.ch), 0);
	assert_int_equal(nvl_kit_wait_idle(&x.g->kit, &x.ch, GPU_WAIT), -EIO);
	assert_int_equal(nvl_hw_rd32(x.g->hw, NVL_HW_CHRAM_ERROR(x.chid)),
			 NVL_HW_CHERR_MMU_FAULT);
	assert_true(nvl_hw_rd32(x.g->hw, NVL_HW_CHRAM_CTRL(x.chid)) &
		    NVL_HW_CHRAM_CTRL_ENG_FAULTED);
	assert_int_equal(nvl_hw_rd32(x.g->hw, NVL_HW_FAULT_BUF_PUT(0)), 1);
	assert_int_equal(nvl_hw_vram_read(x.g->hw, fbuf, e, sizeof(e)), 0);
	assert_int_equal(e[NVL_HW_FAULT_ENTRY_ENGINE], x.g->m->eng->graphics);
	assert_int_equal(e[NVL_HW_FAULT_ENTRY_ADDR_HI], (uint32_t)(hole >> 32));
	assert_int_equal(gpu_rd(x.g, DATA), 0);
	assert_int_equal(gpu_rd(x.g, SEM), 0);
	/* the QMD where it belongs, on a new channel: runs */
	cx_new_chan(&x);
	assert_int_equal(cx_launch(&x, true), 0);
	assert_int_equal(gpu_rd(x.g, DATA), MARK);
	cx_down(&x);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(compute_class_on_a_copy_channel_is_an_illegal_class),
	cmocka_unit_test(helper_qmd_release_is_one_word),
	cmocka_unit_test(release_structure_and_reduction_are_honoured),
	cmocka_unit_test(hopper_qmd_type_must_be_a_grid),
	cmocka_unit_test(a_qmd_in_unmapped_memory_faults_the_channel),
};

T_MAIN(tests)

// SPDX-License-Identifier: MIT
/*
 * TEST: model_host_audit
 * Description: adversarial review of the model's PBDMA and Host methods
 * against NVIDIA's dev_pbdma manual (open-gpu-doc Host-Fifo/volta/gv100/
 * dev_pbdma.ref.txt) and class header clc56f.h: method headers whose
 * addresses would wrap, a segment ending at the top of the 40-bit VA
 * space, the privilege of MEM_OP's TLB invalidates and MEM_OP_C's REPLAY
 * field.
 */
#include <pthread.h>
#include <stdlib.h>

#include "gpu.h"

#define DONE 0x20000ull
#define PB_PAGE 0x40000ull /* VRAM behind the page at the top of 2^40 */

/* the channel error run_on() saw (disabling the channel clears it) */
static uint32_t last_err, last_mthd, last_data;

/* run @p[0..n) on a fresh channel @chid (privileged when @priv), wait */
static int run_on(struct gpu *g, unsigned chid, bool priv, const uint32_t *p,
		  uint32_t n)
{
	struct nvl_kit_chan ch;
	int ret;

	if (priv)
		gpu_chan_priv(g, chid, 0, &ch);
	else
		gpu_chan(g, chid, 0, &ch);
	gpu_push(&ch, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &ch), 0);
	ret = nvl_kit_wait_idle(&g->kit, &ch, GPU_WAIT);
	last_err = nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(chid));
	last_mthd = nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERR_METHOD(chid));
	last_data = nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERR_DATA(chid));
	nvl_kit_chan_fini(&g->kit, &ch);
	return ret;
}

static void expect_error(uint32_t err, uint32_t mthd, uint32_t data)
{
	assert_int_equal(last_err, err);
	assert_int_equal(last_mthd, mthd);
	assert_int_equal(last_data, data);
}

/*
 * dev_pbdma NV_PPBDMA_INTR_0_PBENTRY: an incrementing or increment-once
 * header whose COUNT would take the method address past the last one
 * (NV_FIFO_DMA_METHOD_ADDRESS 11:0, byte offset 0x3ffc) is an invalid PB
 * entry; the model wrapped the address to method 0 (SET_OBJECT) and ran
 * the data. The header itself is the error (its dword as the data); the
 * non-incrementing header, and ones that end at 0x3ffc, are valid.
 */
static void inc_header_past_last_method_is_invalid(void **state)
{
	const uint32_t inc = NVL_HW_MTHD_INC(0, 0x3ffc, 2);
	const uint32_t one = NVL_HW_MTHD_1INC(0, 0x3ffc, 2);
	const uint32_t inc_wide = NVL_HW_MTHD_INC(0, 0x3000, 0x1001);
	struct gpu *g = gpu_up("tiny");
	uint32_t p[8];

	(void)state;
	/* INC from the last method: 0x3ffc, then 0x0 */
	p[0] = inc;
	p[1] = 0x1111;
	p[2] = g->ce_class;
	assert_int_equal(run_on(g, 1, false, p, 3), -EIO);
	expect_error(NVL_HW_CHERR_METHOD, 0x3ffc, inc);
	/* increment-once from the last method */
	p[0] = one;
	assert_int_equal(run_on(g, 2, false, p, 3), -EIO);
	expect_error(NVL_HW_CHERR_METHOD, 0x3ffc, one);
	/* a COUNT that overruns by far (it would wrap through 0x0..0x0) */
	p[0] = inc_wide;
	assert_int_equal(run_on(g, 3, false, p, 1), -EIO);
	expect_error(NVL_HW_CHERR_METHOD, 0x3000, inc_wide);
	/* valid headers: the first datum goes to 0x3ff8 / 0x3ffc, which
	 * no class bound here has (METHOD error on the datum) */
	p[0] = NVL_HW_MTHD_INC(0, 0x3ff8, 2);
	assert_int_equal(run_on(g, 4, false, p, 3), -EIO);
	expect_error(NVL_HW_CHERR_METHOD, 0x3ff8, 0x1111);
	p[0] = NVL_HW_MTHD_NINC(0, 0x3ffc, 2);
	assert_int_equal(run_on(g, 5, false, p, 3), -EIO);
	expect_error(NVL_HW_CHERR_METHOD, 0x3ffc, 0x1111);
	gpu_down(g);
}

/*
 * dev_pbdma GP_ENTRY: a segment whose last PB entry is the last dword of
 * the 40-bit VA space is not valid (the PBDMA's PUT is the address past
 * it) and raises NV_PPBDMA_INTR_0_GPENTRY, like one crossing the end; the
 * model took the one ending at 2^40 exactly. One dword lower runs.
 */
static void segment_ending_at_va_top_is_gpentry(void **state)
{
	const uint64_t page = (1ull << 40) - 4096;
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan a, b;
	uint32_t p[16], n;
	uint64_t va;

	(void)state;
	assert_int_equal(nvl_kit_map(&g->kit, &g->vm, page, PB_PAGE, 4096, 12,
				     NVL_HW_APERTURE_VIDMEM, 0),
			 0);
	n = nvl_kit_pb_release(p, DONE, 7);
	/* ends at 2^40 - 4: fine */
	va = (1ull << 40) - 4 - 4ull * n;
	assert_int_equal(
		nvl_hw_vram_write(g->hw, PB_PAGE + (va - page), p, 4ull * n),
		0);
	gpu_chan(g, 1, 0, &a);
	gpu_raw_entry(g, &a, nvl_hw_gp_entry(va, n, 0));
	assert_int_equal(nvl_kit_wait_u32(&g->kit, DONE, 7, GPU_WAIT), 0);
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &a, GPU_WAIT), 0);
	/* ends at 2^40: GPENTRY, the entry as the error's method and data */
	va = (1ull << 40) - 4ull * n;
	assert_int_equal(
		nvl_hw_vram_write(g->hw, PB_PAGE + (va - page), p, 4ull * n),
		0);
	gpu_chan(g, 2, 0, &b);
	gpu_raw_entry(g, &b, nvl_hw_gp_entry(va, n, 0));
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &b, GPU_WAIT), -EIO);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(2)),
			 NVL_HW_CHERR_GPENTRY);
	nvl_kit_chan_fini(&g->kit, &a);
	nvl_kit_chan_fini(&g->kit, &b);
	gpu_down(g);
}

/* MEM_OP_A..D with @a, @c and @d, then a release of @seq at DONE */
static uint32_t mem_op(uint32_t *p, uint32_t a, uint32_t c, uint32_t d,
		       uint32_t seq)
{
	uint32_t n = 0;

	p[n++] = NVL_HW_MTHD_INC(0, NVL_HW_MEM_OP_A, 4);
	p[n++] = a;
	p[n++] = 0;
	p[n++] = c;
	p[n++] = d;
	return n + nvl_kit_pb_release(p + n, DONE, seq);
}

/*
 * dev_pbdma MEM_OP_D (MMU_TLB_INVALIDATE*): "These operations are
 * privileged and can only be executed from channels with
 * NV_PPBDMA_CONFIG_AUTH_LEVEL set to PRIVILEGED"; from another channel
 * the PBDMA raises NV_PPBDMA_INTR_0_METHOD. The model let any channel
 * invalidate any VA space's TLB (TLB_INVALIDATE_PDB ALL). MEMBAR is not
 * privileged.
 */
static void mem_op_tlb_invalidate_is_privileged(void **state)
{
	static const uint32_t ops[] = {
		NVL_HW_MEM_OP_MMU_TLB_INVALIDATE,
		NVL_HW_MEM_OP_MMU_TLB_INVALIDATE_TARGETED,
	};
	struct gpu *g = gpu_up("tiny");
	uint32_t p[32], n, d;

	(void)state;
	for (unsigned i = 0; i < NVL_ARRAY_SIZE(ops); i++) {
		d = (uint32_t)ops[i] << NVL_HW_MEM_OP_D_OP_SHIFT;
		n = mem_op(p, 0, NVL_HW_MEM_OP_C_PDB_ALL, d, 1);
		gpu_wr(g, DONE, 0);
		assert_int_equal(run_on(g, 10 + i, false, p, n), -EIO);
		expect_error(NVL_HW_CHERR_METHOD, NVL_HW_MEM_OP_D, d);
		assert_int_equal(gpu_rd(g, DONE), 0);
		/* the same from a privileged channel runs */
		assert_int_equal(run_on(g, 20 + i, true, p, n), 0);
		assert_int_equal(gpu_rd(g, DONE), 1);
	}
	gpu_down(g);
}

/*
 * clc56f.h NVC56F_MEM_OP_D_OPERATION 31:27: MEMBAR 5 and the L2 ones,
 * L2_PEERMEM_INVALIDATE 0xd, L2_SYSMEM_INVALIDATE 0xe, L2_CLEAN_COMPTAGS
 * 0xf, L2_FLUSH_DIRTY 0x10, L2_WAIT_FOR_SYS_PENDING_READS 0x15, run from
 * any channel; the model raised METHOD for 0xf and 0x15, which real Host
 * runs. ACCESS_COUNTER_CLR 0x16 is privileged (dev_pbdma "The
 * ACCESS_COUNTER_CLR operation"); an unnamed operation is a METHOD error.
 */
static void mem_op_d_operations(void **state)
{
	static const uint32_t anyone[] = {0x5, 0xd, 0xe, 0xf, 0x10, 0x15};
	struct gpu *g = gpu_up("tiny");
	uint32_t p[32], n, d, seq = 0;

	(void)state;
	for (unsigned i = 0; i < NVL_ARRAY_SIZE(anyone); i++) {
		d = anyone[i] << NVL_HW_MEM_OP_D_OP_SHIFT;
		n = mem_op(p, 0, 0, d, ++seq);
		if (run_on(g, 10 + i, false, p, n))
			fail_msg(
				"OPERATION %#x: channel error %u", anyone[i],
				nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(10 + i)));
		assert_int_equal(gpu_rd(g, DONE), seq);
	}
	d = (uint32_t)NVL_HW_MEM_OP_ACCESS_COUNTER_CLR
	    << NVL_HW_MEM_OP_D_OP_SHIFT;
	n = mem_op(p, 0, 0, d, ++seq);
	assert_int_equal(run_on(g, 20, false, p, n), -EIO);
	expect_error(NVL_HW_CHERR_METHOD, NVL_HW_MEM_OP_D, d);
	assert_int_equal(run_on(g, 21, true, p, n), 0);
	assert_int_equal(gpu_rd(g, DONE), seq);
	d = 0x11u << NVL_HW_MEM_OP_D_OP_SHIFT; /* not a C56F operation */
	n = mem_op(p, 0, 0, d, ++seq);
	assert_int_equal(run_on(g, 22, true, p, n), -EIO);
	expect_error(NVL_HW_CHERR_METHOD, NVL_HW_MEM_OP_D, d);
	gpu_down(g);
}

static void replay_counts(struct gpu *g, uint64_t *replay, uint64_t *cancel)
{
	pthread_mutex_lock(&g->m->replay_lock);
	*replay = g->m->replay_gen;
	*cancel = g->m->cancel_gen;
	pthread_mutex_unlock(&g->m->replay_lock);
}

/*
 * clc56f.h NVC56F_MEM_OP_C_TLB_INVALIDATE_REPLAY 4:2 (NONE 0, START 1,
 * START_ACK_ALL 2, CANCEL_TARGETED 3, CANCEL_GLOBAL 4, CANCEL_VA_GLOBAL
 * 5) and TLB_INVALIDATE_GPC 1:1 (ENABLE 0, DISABLE 1): dev_pbdma's
 * MEM_OP_D says the invalidate may "trigger a replay or cancel event for
 * replayable faults", ignored with GPC DISABLE. The model dropped the
 * field: a driver replaying through its privileged channel never woke
 * the parked accesses. The same requests as MMU_INVALIDATE's REPLAY now;
 * the values clc56f.h does not name are refused (METHOD).
 */
static void mem_op_c_replay(void **state)
{
	static const struct {
		uint32_t replay, gpc_disable;
		unsigned dr, dc; /* replay_gen, cancel_gen steps */
	} cases[] = {
		{0, 0, 0, 0}, {1, 0, 1, 0}, {2, 0, 1, 0}, {3, 0, 0, 1},
		{4, 0, 0, 1}, {5, 0, 0, 1}, {1, 1, 0, 0}, {4, 1, 0, 0},
	};
	const uint32_t d = (uint32_t)NVL_HW_MEM_OP_MMU_TLB_INVALIDATE
			   << NVL_HW_MEM_OP_D_OP_SHIFT;
	struct gpu *g = gpu_up("tiny");
	uint32_t p[32], n, c;
	uint64_t r0, c0, r1, c1;

	(void)state;
	for (unsigned i = 0; i < NVL_ARRAY_SIZE(cases); i++) {
		c = NVL_HW_MEM_OP_C_PDB_ALL |
		    cases[i].replay << NVL_HW_MEM_OP_C_REPLAY_SHIFT |
		    (cases[i].gpc_disable ? NVL_HW_MEM_OP_C_GPC_DISABLE : 0);
		replay_counts(g, &r0, &c0);
		n = mem_op(p, 0, c, d, i + 1);
		assert_int_equal(run_on(g, 40 + i, true, p, n), 0);
		replay_counts(g, &r1, &c1);
		if (r1 - r0 != cases[i].dr || c1 - c0 != cases[i].dc)
			fail_msg("REPLAY %u GPC_DISABLE %u: %llu replays, "
				 "%llu cancels",
				 cases[i].replay, cases[i].gpc_disable,
				 (unsigned long long)(r1 - r0),
				 (unsigned long long)(c1 - c0));
	}
	for (uint32_t r = 6; r < 8; r++) {
		c = NVL_HW_MEM_OP_C_PDB_ALL | r << NVL_HW_MEM_OP_C_REPLAY_SHIFT;
		n = mem_op(p, 0, c, d, 99);
		assert_int_equal(run_on(g, 50 + r, true, p, n), -EIO);
		expect_error(NVL_HW_CHERR_METHOD, NVL_HW_MEM_OP_D, d);
	}
	gpu_down(g);
}

/*
 * clc56f.h NVC56F_YIELD_OP 1:0: NOP 0, TSG 3. dev_pbdma
 * NV_PPBDMA_INTR_0_METHOD: "An NV_UDMA_YIELD method with an unknown OP
 * is encountered"; the model took every OP.
 */
static void yield_op(void **state)
{
	struct gpu *g = gpu_up("tiny");
	uint32_t p[16], n;

	(void)state;
	for (uint32_t op = 0; op < 4; op++) {
		p[0] = NVL_HW_MTHD_INC(0, NVL_HW_YIELD, 1);
		p[1] = op;
		n = 2 + nvl_kit_pb_release(p + 2, DONE, 100 + op);
		if (op == 1 || op == 2) {
			assert_int_equal(run_on(g, 10 + op, false, p, n), -EIO);
			expect_error(NVL_HW_CHERR_METHOD, NVL_HW_YIELD, op);
		} else {
			assert_int_equal(run_on(g, 10 + op, false, p, n), 0);
			assert_int_equal(gpu_rd(g, DONE), 100 + op);
		}
	}
	gpu_down(g);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(yield_op),
	cmocka_unit_test(inc_header_past_last_method_is_invalid),
	cmocka_unit_test(segment_ending_at_va_top_is_gpentry),
	cmocka_unit_test(mem_op_tlb_invalidate_is_privileged),
	cmocka_unit_test(mem_op_d_operations),
	cmocka_unit_test(mem_op_c_replay),
};

T_MAIN(tests)

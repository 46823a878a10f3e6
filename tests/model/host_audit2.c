// SPDX-License-Identifier: MIT
/*
 * TEST: model_host_audit2
 * Description: second review of the model's Host, PBDMA and copy engine
 * against NVIDIA's headers and manuals: the copy class's LAUNCH_DMA
 * INTERRUPT_TYPE (clc5b5.h, dev_ce.ref NV_CE_LCE_INTR_STATUS), MEM_OP_C's
 * ACK_TYPE with TLB_INVALIDATE_GPC DISABLE (clc56f.h / clc86f.h), the
 * GPFIFO entry's LEVEL and FETCH fields (dev_pbdma GP_ENTRY) and the
 * trace's MEM_OP fields.
 */
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "hw/mthd.h"
#include "model/mmu.h"

#define SEM 0x20000ull
#define DONE 0x20100ull

/* LAUNCH_DMA with no transfer, a one-word release of @seq at SEM and
 * INTERRUPT_TYPE @intr, on copy runlist @rl's channel @chid */
static void ce_launch_intr(struct gpu *g, unsigned chid, unsigned rl,
			   uint32_t intr, uint32_t seq)
{
	struct nvl_kit_chan ch;
	uint32_t p[16], n = 0;

	gpu_chan(g, chid, rl, &ch);
	p[n++] = NVL_HW_MTHD_INC(0, NVL_HW_SET_OBJECT, 1);
	p[n++] = g->ce_class;
	p[n++] = NVL_HW_MTHD_INC(0, NVL_HW_CE_SET_SEMAPHORE_A, 3);
	p[n++] = 0;
	p[n++] = (uint32_t)SEM;
	p[n++] = seq;
	p[n++] = NVL_HW_MTHD_INC(0, NVL_HW_CE_LAUNCH_DMA, 1);
	p[n++] = NVL_HW_CE_TRANSFER_NONE |
		 NVL_HW_CE_SEM_ONE_WORD << NVL_HW_CE_LAUNCH_SEM_SHIFT |
		 intr << NVL_HW_CE_LAUNCH_INTR_SHIFT;
	gpu_push(&ch, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &ch), 0);
	assert_int_equal(nvl_kit_wait_u32(&g->kit, SEM, seq, GPU_WAIT), 0);
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &ch, GPU_WAIT), 0);
	nvl_kit_chan_fini(&g->kit, &ch);
}

/*
 * clc5b5.h NVC5B5_LAUNCH_DMA_INTERRUPT_TYPE 6:5 (NONE 0, BLOCKING 1,
 * NON_BLOCKING 2); dev_ce.ref NV_CE_LCE_INTR_STATUS(i) BLOCKPIPE 0:0 and
 * NONBLOCKPIPE 1:1: the blocking interrupt is the engine's stalling one
 * (NVIDIA's drivers service BLOCKPIPE in the stall handler, NONBLOCKPIPE
 * in the non-stall one). The model raised the non-stall interrupt for
 * both. Now BLOCKING latches BLOCKPIPE in engine 1's status (write 1 to
 * clear) and raises the stall tree's CE bit, not the engine's non-stall
 * bit; NON_BLOCKING is unchanged; NONE raises neither.
 */
static void ce_blocking_interrupt_is_stalling(void **state)
{
	struct gpu *g = gpu_up("tiny");
	const uint32_t ne = NVL_HW_INTR_NONSTALL_ENGINE(1);
	const uint32_t st = NVL_HW_CE_LCE_INTR_STATUS(1);

	(void)state;
	assert_int_equal(nvl_hw_rd32(g->hw, st), 0);
	ce_launch_intr(g, 3, 1, NVL_HW_CE_INTR_BLOCKING, 1);
	assert_true(gpu_wait_bits(&g->stall, NVL_HW_INTR_CE, GPU_WAIT));
	assert_int_equal(atomic_load(&g->nonstall) & ne, 0);
	assert_int_equal(nvl_hw_rd32(g->hw, st), NVL_HW_CE_LCE_INTR_BLOCKPIPE);
	/* the other engine's status is untouched; W1C clears it */
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CE_LCE_INTR_STATUS(0)), 0);
	nvl_hw_wr32(g->hw, st, NVL_HW_CE_LCE_INTR_BLOCKPIPE);
	assert_int_equal(nvl_hw_rd32(g->hw, st), 0);
	/* past the last copy engine: no register */
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CE_LCE_INTR_STATUS(
						    g->m->profile->num_ce)),
			 NVL_HW_REG_BAD);

	atomic_store(&g->stall, 0);
	ce_launch_intr(g, 4, 1, NVL_HW_CE_INTR_NON_BLOCKING, 2);
	assert_true(gpu_wait_bits(&g->nonstall, ne, GPU_WAIT));
	assert_int_equal(atomic_load(&g->stall) & NVL_HW_INTR_CE, 0);
	assert_int_equal(nvl_hw_rd32(g->hw, st), 0);

	atomic_store(&g->nonstall, 0);
	ce_launch_intr(g, 5, 1, NVL_HW_CE_INTR_NONE, 3);
	assert_int_equal(atomic_load(&g->stall) & NVL_HW_INTR_CE, 0);
	assert_int_equal(atomic_load(&g->nonstall) & ne, 0);
	gpu_down(g);
}

/* clc56f.h MEM_OP_A TLB_INVALIDATE_SYSMEMBAR 11:11, MEM_OP_C
 * TLB_INVALIDATE_GPC 1:1 (DISABLE 1), TLB_INVALIDATE_ACK_TYPE 6:5 */
static void push_mem_op(struct gpu *g, struct nvl_kit_chan *ch, uint32_t c,
			uint32_t seq)
{
	uint32_t p[32], n = 0;

	p[n++] = NVL_HW_MTHD_INC(0, NVL_HW_MEM_OP_A, 4);
	p[n++] = NVL_HW_MEM_OP_A_SYSMEMBAR;
	p[n++] = 0;
	p[n++] = c | NVL_HW_MEM_OP_C_PDB_ALL;
	p[n++] = nvl_hw_mem_op_d(NVL_HW_MEM_OP_MMU_TLB_INVALIDATE);
	n += nvl_kit_pb_release(p + n, DONE, seq);
	gpu_push(ch, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, ch), 0);
}

/*
 * clc56f.h / clc86f.h NVC56F_MEM_OP_C_TLB_INVALIDATE_ACK_TYPE 6:5: "only
 * relevant if GPC ENABLE". An invalidate with SYSMEMBAR and ACK_TYPE
 * GLOBALLY drains (tests/compute/drain.c), but with TLB_INVALIDATE_GPC
 * DISABLE no acknowledgement is asked for: the model drained anyway and
 * held the channel behind an engine access in flight. It goes on at once
 * now; with GPC ENABLE it still waits for the access.
 */
static void mem_op_ack_needs_gpc_enable(void **state)
{
	const uint32_t ack = NVL_HW_MEM_OP_ACK_GLOBALLY
			     << NVL_HW_MEM_OP_C_ACK_SHIFT;
	struct gpu *g = gpu_up("ga102");
	struct nvl_kit_chan ch;
	unsigned t;

	(void)state;
	gpu_chan_priv(g, 3, 0, &ch);
	gpu_wr(g, DONE, 0);
	t = nvl_model_mmu_enter(g->m->mmu, 1);
	push_mem_op(g, &ch, ack | NVL_HW_MEM_OP_C_GPC_DISABLE, 1);
	assert_int_equal(nvl_kit_wait_u32(&g->kit, DONE, 1, GPU_WAIT), 0);
	/* GPC ENABLE: held until the access ends */
	push_mem_op(g, &ch, ack, 2);
	assert_int_equal(
		nvl_kit_wait_u32(&g->kit, DONE, 2, 50 * NVL_NSEC_PER_MSEC),
		-ETIME);
	nvl_model_mmu_exit(g->m->mmu, t);
	assert_int_equal(nvl_kit_wait_u32(&g->kit, DONE, 2, GPU_WAIT), 0);
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &ch, GPU_WAIT), 0);
	nvl_kit_chan_fini(&g->kit, &ch);
	gpu_down(g);
}

/*
 * dev_pbdma GP_ENTRY: LEVEL 9:9 (MAIN 0, SUBROUTINE 1) only says whether
 * the segment's progress shows in USERD's TOP_LEVEL_GET, and FETCH 0:0
 * CONDITIONAL fetches the segment when SUBDEVICE_STATUS is ACTIVE. The
 * model keeps no TOP_LEVEL_GET and its subdevice status is always ACTIVE
 * (it accepts and ignores the subdevice-mask headers), yet it refused
 * both with a GPENTRY error, killing the channel. Both segments run now.
 */
static void gp_entry_level_and_fetch_run(void **state)
{
	static const struct {
		uint32_t d0, d1;
	} bits[] = {
		{0, NVL_HW_GP_ENTRY1_LEVEL_SUBROUTINE},
		{NVL_HW_GP_ENTRY0_FETCH_COND, 0},
		{NVL_HW_GP_ENTRY0_FETCH_COND,
		 NVL_HW_GP_ENTRY1_LEVEL_SUBROUTINE},
	};
	const uint64_t pb = 0x30000;
	struct gpu *g = gpu_up("tiny");

	(void)state;
	for (unsigned i = 0; i < NVL_ARRAY_SIZE(bits); i++) {
		struct nvl_kit_chan ch;
		uint32_t p[16], n = nvl_kit_pb_release(p, DONE, 10 + i);
		uint64_t e = nvl_hw_gp_entry(pb, n, 0) |
			     (uint64_t)bits[i].d1 << 32 | bits[i].d0;

		assert_int_equal(nvl_hw_vram_write(g->hw, pb, p, 4ull * n), 0);
		gpu_chan(g, 1 + i, 0, &ch);
		gpu_raw_entry(g, &ch, e);
		assert_int_equal(
			nvl_kit_wait_u32(&g->kit, DONE, 10 + i, GPU_WAIT), 0);
		assert_int_equal(nvl_kit_wait_idle(&g->kit, &ch, GPU_WAIT), 0);
		assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(1 + i)),
				 0);
		nvl_kit_chan_fini(&g->kit, &ch);
	}
	gpu_down(g);
}

static void expect_fields(uint32_t mthd, uint32_t data, const char *const *want)
{
	char b[512];

	nvl_hw_method_fields(NVL_HW_CLASS_HOST_AMPERE, mthd, data, b,
			     sizeof(b));
	for (; *want; want++)
		if (!strstr(b, *want))
			fail_msg("%#x %#x: '%s' lacks '%s'", mthd, data, b,
				 *want);
}

/*
 * clc56f.h MEM_OP_C TLB_INVALIDATE_GPC 1:1, _REPLAY 4:2, _ACK_TYPE 6:5,
 * _PAGE_TABLE_LEVEL 9:7 and MEM_OP_D OPERATION L2_CLEAN_COMPTAGS 0xf,
 * L2_WAIT_FOR_SYS_PENDING_READS 0x15, ACCESS_COUNTER_CLR 0x16: the model
 * runs all of them, but nvl trace's table named none (a TLB invalidate
 * with a replay printed as bare PDB fields, the operations as numbers).
 */
static void trace_names_mem_op_fields(void **state)
{
	static const char *const c[] = {
		"TLB_INVALIDATE_PDB=ALL",
		"TLB_INVALIDATE_GPC=DISABLE",
		"TLB_INVALIDATE_REPLAY=START_ACK_ALL",
		"TLB_INVALIDATE_ACK_TYPE=INTRANODE",
		"TLB_INVALIDATE_PAGE_TABLE_LEVEL=PTE_ONLY",
		NULL,
	};
	static const char *const d1[] = {"OPERATION=L2_CLEAN_COMPTAGS", NULL};
	static const char *const d2[] = {
		"OPERATION=L2_WAIT_FOR_SYS_PENDING_READS", NULL};
	static const char *const d3[] = {"OPERATION=ACCESS_COUNTER_CLR", NULL};
	static const char *const b[] = {"TLB_INVALIDATE_TARGET_ADDR_HI=0x12",
					NULL};

	(void)state;
	expect_fields(NVL_HW_MEM_OP_C,
		      NVL_HW_MEM_OP_C_PDB_ALL | NVL_HW_MEM_OP_C_GPC_DISABLE |
			      2u << NVL_HW_MEM_OP_C_REPLAY_SHIFT |
			      (uint32_t)NVL_HW_MEM_OP_ACK_INTRANODE
				      << NVL_HW_MEM_OP_C_ACK_SHIFT |
			      1u << NVL_HW_MEM_OP_C_PAGE_TABLE_LEVEL_SHIFT,
		      c);
	expect_fields(NVL_HW_MEM_OP_D,
		      nvl_hw_mem_op_d(NVL_HW_MEM_OP_L2_CLEAN_COMPTAGS), d1);
	expect_fields(
		NVL_HW_MEM_OP_D,
		nvl_hw_mem_op_d(NVL_HW_MEM_OP_L2_WAIT_FOR_SYS_PENDING_READS),
		d2);
	expect_fields(NVL_HW_MEM_OP_D,
		      nvl_hw_mem_op_d(NVL_HW_MEM_OP_ACCESS_COUNTER_CLR), d3);
	expect_fields(NVL_HW_MEM_OP_B, 0x12, b);
	/* the typed operations are the header's numbers */
	assert_int_equal(NVL_HW_MEM_OP_MEMBAR, 5);
	assert_int_equal(NVL_HW_MEM_OP_MMU_TLB_INVALIDATE_TARGETED, 0xa);
	assert_int_equal(NVL_HW_MEM_OP_ACCESS_COUNTER_CLR, 0x16);
	assert_int_equal(nvl_hw_mem_op_d(NVL_HW_MEM_OP_L2_FLUSH_DIRTY),
			 0x80000000u);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(ce_blocking_interrupt_is_stalling),
	cmocka_unit_test(mem_op_ack_needs_gpc_enable),
	cmocka_unit_test(gp_entry_level_and_fetch_run),
	cmocka_unit_test(trace_names_mem_op_fields),
};

T_MAIN(tests)

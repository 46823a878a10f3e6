// SPDX-License-Identifier: MIT
/*
 * TEST: model_fault
 * Description: MMU faults from the copy engine and the PBDMA land in the
 * fault buffer with engine, channel and VA, stop only the faulting
 * channel, and can be serviced; engine hangs recover through reset; bad
 * pushbuffers and GPFIFO entries raise channel errors with the method
 * latched; the fault buffer overflows cleanly.
 */
#include <stdlib.h>
#include <unistd.h>

#include "gpu.h"

#define SEM 0x10000ull
#define DONE 0x20000ull
#define DST 0x800000ull
#define FBUF 0x40000ull
#define HOLE (1ull << 42)

static void fault_buffer_setup(struct gpu *g, unsigned entries)
{
	nvl_hw_wr32(g->hw, NVL_HW_FAULT_BUF_LO(0),
		    NVL_HW_FAULT_BUF_LO_PHYS(FBUF, NVL_HW_FAULT_APERTURE_VID));
	nvl_hw_wr32(g->hw, NVL_HW_FAULT_BUF_HI(0), 0);
	nvl_hw_wr32(g->hw, NVL_HW_FAULT_BUF_SIZE(0),
		    entries | NVL_HW_FAULT_BUF_SIZE_OVERFLOW_INTR |
			    NVL_HW_FAULT_BUF_SIZE_ENABLE);
}

static void read_entry(struct gpu *g, unsigned i, uint32_t e[8])
{
	assert_int_equal(nvl_hw_vram_read(g->hw, FBUF + 32ull * i, e, 32), 0);
}

static void unmapped_copy_faults_and_stops_only_its_channel(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan a, b;
	uint32_t p[64], n, e[8];

	fault_buffer_setup(g, 16);
	gpu_chan(g, 9, 0, &a);
	gpu_chan(g, 10, 0, &b);
	n = nvl_kit_pb_copy(p, g->ce_class, DST, HOLE + 0x1234, 64);
	n += nvl_kit_pb_release(p + n, DONE, 1);
	gpu_push(&a, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &a), 0);
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &a, GPU_WAIT), -EIO);
	/* the fault entry names the CE, the channel's instance block, VA */
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_FAULT_BUF_PUT(0)), 1);
	read_entry(g, 0, e);
	assert_true(e[NVL_HW_FAULT_ENTRY_INFO] & NVL_HW_FAULT_INFO_VALID);
	assert_int_equal(e[NVL_HW_FAULT_ENTRY_ENGINE], NVL_HW_MMU_ENGINE_CE(0));
	assert_int_equal(e[NVL_HW_FAULT_ENTRY_INST_LO] & 0xfffff000u,
			 (uint32_t)a.inst);
	assert_int_equal(e[NVL_HW_FAULT_ENTRY_ADDR_LO] & 0xfffff000u,
			 (uint32_t)(HOLE + 0x1000));
	assert_int_equal(e[NVL_HW_FAULT_ENTRY_ADDR_HI], (uint32_t)(HOLE >> 32));
	assert_int_equal(e[NVL_HW_FAULT_ENTRY_INFO] >>
					 NVL_HW_FAULT_INFO_ACCESS_SHIFT &
				 NVL_HW_FAULT_INFO_ACCESS_MASK,
			 NVL_HW_FAULT_ACCESS_READ);
	assert_true((e[NVL_HW_FAULT_ENTRY_INFO] &
		     NVL_HW_FAULT_INFO_TYPE_MASK) == NVL_HW_FAULT_PDE ||
		    (e[NVL_HW_FAULT_ENTRY_INFO] &
		     NVL_HW_FAULT_INFO_TYPE_MASK) == NVL_HW_FAULT_PTE);
	assert_true(gpu_wait_nonzero(&g->stall, GPU_WAIT));
	assert_true(atomic_load(&g->stall) & NVL_HW_INTR_FAULT);
	/* channel a stopped: faulted, error latched, its release not run */
	assert_true(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_CTRL(9)) &
		    NVL_HW_CHRAM_CTRL_ENG_FAULTED);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(9)),
			 NVL_HW_CHERR_MMU_FAULT);
	assert_true(nvl_hw_rd32(g->hw, NVL_HW_CHERR_PENDING(0)) & (1u << 9));
	assert_int_equal(gpu_rd(g, DONE), 0);
	/* channel b on the same engine keeps running */
	n = nvl_kit_pb_memset(p, g->ce_class, DST, 0x77, 4);
	n += nvl_kit_pb_release(p + n, DONE + 4, 2);
	gpu_push(&b, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &b), 0);
	assert_int_equal(nvl_kit_wait_u32(&g->kit, DONE + 4, 2, GPU_WAIT), 0);
	/* service: map the page, invalidate, clear the fault: a retries */
	assert_int_equal(nvl_kit_map(&g->kit, &g->vm, HOLE, 0x1000000, 1 << 21,
				     21, NVL_HW_APERTURE_VIDMEM, 0),
			 0);
	assert_int_equal(nvl_kit_invalidate(&g->kit, &g->vm), 0);
	nvl_hw_wr32(g->hw, NVL_HW_CHERR_PENDING(0), 1u << 9);
	nvl_hw_wr32(g->hw, NVL_HW_CHRAM_CTRL(9), NVL_HW_CHRAM_CTRL_ENG_FAULTED);
	assert_int_equal(nvl_kit_wait_u32(&g->kit, DONE, 1, GPU_WAIT), 0);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(9)), 0);
	nvl_kit_chan_fini(&g->kit, &a);
	nvl_kit_chan_fini(&g->kit, &b);
	gpu_down(g);
}

static void pushbuffer_fetch_fault_is_a_host_fault(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan a;
	uint64_t e = nvl_hw_gp_entry(1ull << 39, 16, 0); /* 40-bit VA */
	uint32_t put = 1, ent[8];

	fault_buffer_setup(g, 16);
	gpu_chan(g, 11, 1, &a);
	assert_int_equal(nvl_hw_vram_write(g->hw, a.gpfifo, &e, 8), 0);
	assert_int_equal(nvl_hw_vram_write(g->hw, a.userd + NVL_HW_USERD_GP_PUT,
					   &put, 4),
			 0);
	nvl_hw_wr32(g->hw, NVL_HW_DOORBELL, NVL_HW_DOORBELL_TOKEN(11, 1));
	a.gp_put = 1;
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &a, GPU_WAIT), -EIO);
	assert_true(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_CTRL(11)) &
		    NVL_HW_CHRAM_CTRL_PBDMA_FAULTED);
	read_entry(g, 0, ent);
	assert_int_equal(ent[NVL_HW_FAULT_ENTRY_ENGINE],
			 NVL_HW_MMU_ENGINE_HOST(1));
	nvl_kit_chan_fini(&g->kit, &a);
	gpu_down(g);
}

static void hang_blocks_engine_until_reset(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan a, b;
	uint32_t p[64], n, st;
	uint64_t busy0, busy1;
	int64_t t0, t1;

	gpu_chan(g, 1, 0, &a);
	gpu_chan(g, 2, 0, &b);
	nvl_hw_wr32(g->hw, NVL_MODEL_REG_ENGINE_HANG(0), 1 + 1);
	n = nvl_kit_pb_release(p, DONE, 1);
	gpu_push(&a, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &a), 0);
	n = nvl_kit_pb_release(p, DONE + 4, 2);
	gpu_push(&b, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &b), 0);
	for (int i = 0;
	     i < 100000 && !(nvl_hw_rd32(g->hw, NVL_HW_ENGINE_STATUS(0)) &
			     NVL_HW_ENGINE_STATUS_HUNG);
	     i++)
		usleep(50);
	st = nvl_hw_rd32(g->hw, NVL_HW_ENGINE_STATUS(0));
	assert_true(st & NVL_HW_ENGINE_STATUS_HUNG);
	assert_true(st & NVL_HW_ENGINE_STATUS_BUSY);
	assert_int_equal(st >> NVL_HW_ENGINE_STATUS_CHID_SHIFT & 0xfff, 1);
	/* no progress for anyone on the hung engine */
	assert_int_equal(gpu_rd(g, DONE), 0);
	assert_int_equal(gpu_rd(g, DONE + 4), 0);
	t0 = nvl_time_ns();
	busy0 = nvl_hw_rd32(g->hw, NVL_HW_ENGINE_BUSY_NS_LO(0));
	usleep(2000);
	busy1 = nvl_hw_rd32(g->hw, NVL_HW_ENGINE_BUSY_NS_LO(0));
	t1 = nvl_time_ns();
	/* busy all along, counted in ns (whatever clock the model keeps
	 * it in): at least the sleep, at most the time between the reads
	 * (+10 us for the conversion's rounding) */
	assert_true(busy1 - busy0 >= 2000000u - 10000u);
	assert_true((int64_t)(busy1 - busy0) <= t1 - t0 + 10000);
	/* reset: the hung channel is blamed, the other one completes */
	nvl_hw_wr32(g->hw, NVL_HW_PMC_ENGINE_RESET, 1u << 0);
	for (int i = 0;
	     i < 100000 && (nvl_hw_rd32(g->hw, NVL_HW_PMC_ENGINE_RESET) & 1);
	     i++)
		usleep(10);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_PMC_ENGINE_RESET), 0);
	assert_int_equal(nvl_kit_wait_u32(&g->kit, DONE + 4, 2, GPU_WAIT), 0);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(1)),
			 NVL_HW_CHERR_ENGINE_RESET);
	assert_int_equal(gpu_rd(g, DONE), 0);
	st = nvl_hw_rd32(g->hw, NVL_HW_ENGINE_STATUS(0));
	assert_false(st & NVL_HW_ENGINE_STATUS_HUNG);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_MODEL_REG_ENGINE_HANG(0)), 0);
	/* the driver recovers the channel: disable (clears the error),
	 * rebind and resubmit */
	nvl_kit_chan_fini(&g->kit, &a);
	gpu_chan(g, 1, 0, &a);
	n = nvl_kit_pb_release(p, DONE, 3);
	gpu_push(&a, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &a), 0);
	assert_int_equal(nvl_kit_wait_u32(&g->kit, DONE, 3, GPU_WAIT), 0);
	nvl_kit_chan_fini(&g->kit, &a);
	nvl_kit_chan_fini(&g->kit, &b);
	gpu_down(g);
}

/*
 * A firmware that died while an engine hung on a channel: the channel is
 * disabled and its id bound again to a new channel (the new firmware
 * reuses ids) before the engine reset that frees the engine is carried
 * out. The reset's CHERR_ENGINE_RESET belonged to the old binding: the new
 * channel gets no error and runs its work.
 */
static void engine_reset_spares_rebound_channel(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan a, a2;
	uint32_t p[64], n, st = 0;

	(void)state;
	gpu_chan(g, 1, 0, &a);
	nvl_hw_wr32(g->hw, NVL_MODEL_REG_ENGINE_HANG(0), 1 + 1);
	n = nvl_kit_pb_release(p, DONE, 1);
	gpu_push(&a, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &a), 0);
	for (int i = 0; i < 100000 && !(st & NVL_HW_ENGINE_STATUS_HUNG); i++) {
		usleep(50);
		st = nvl_hw_rd32(g->hw, NVL_HW_ENGINE_STATUS(0));
	}
	assert_true(st & NVL_HW_ENGINE_STATUS_HUNG);
	/* the device is lost: disabled; the new firmware binds id 1 again */
	nvl_kit_chan_fini(&g->kit, &a);
	gpu_chan(g, 1, 0, &a2);
	n = nvl_kit_pb_release(p, DONE + 4, 2);
	gpu_push(&a2, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &a2), 0);
	/* only now the engine reset of the old firmware's unload */
	nvl_hw_wr32(g->hw, NVL_HW_PMC_ENGINE_RESET, 1u << 0);
	assert_int_equal(nvl_kit_wait_u32(&g->kit, DONE + 4, 2, GPU_WAIT), 0);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(1)), 0);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHERR_PENDING(0)) & 2u, 0);
	assert_int_equal(gpu_rd(g, DONE), 0);
	nvl_kit_chan_fini(&g->kit, &a2);
	gpu_down(g);
}

struct bad_case {
	const char *what;
	uint32_t dw[8];
	unsigned n;
	uint32_t err;
	uint32_t mthd;
};

static void bad_pushbuffers_raise_channel_errors(void **state)
{
	const uint32_t ce = nvl_model_profile_find("tiny")->ce_class;
	const struct bad_case cases[] = {
		{"unknown host method",
		 {NVL_HW_MTHD_INC(0, 0xf0, 1), 5},
		 2,
		 NVL_HW_CHERR_METHOD,
		 0xf0},
		{"ILLEGAL",
		 {NVL_HW_MTHD_INC(0, NVL_HW_ILLEGAL, 1), 0},
		 2,
		 NVL_HW_CHERR_METHOD,
		 NVL_HW_ILLEGAL},
		{"reserved sec op 2",
		 {0x40000000u | (1 << 16) | 2},
		 1,
		 NVL_HW_CHERR_METHOD,
		 8},
		{"reserved sec op 6",
		 {0xc0000000u | (1 << 16) | 2},
		 1,
		 NVL_HW_CHERR_METHOD,
		 8},
		{"reserved header bit",
		 {NVL_HW_MTHD_INC(0, 8, 1) | (1 << 12), 0},
		 2,
		 NVL_HW_CHERR_METHOD,
		 8},
		{"software subchannel",
		 {NVL_HW_MTHD_INC(5, 0x100, 1), 0},
		 2,
		 NVL_HW_CHERR_DEVICE,
		 0x100},
		{"engine method unbound",
		 {NVL_HW_MTHD_INC(4, 0x300, 1), 0},
		 2,
		 NVL_HW_CHERR_METHOD,
		 0x300},
		/* a copy runlist checks SET_OBJECT's class against its
		 * copy engine: HCE_ILLEGAL_CLASS (dev_pbdma NV_UDMA_OBJECT) */
		{"wrong class",
		 {NVL_HW_MTHD_INC(4, 0, 1), 0xc597 /* 3D: not modelled */},
		 2,
		 NVL_HW_CHERR_CE_LAUNCH,
		 0},
		{"unknown CE method",
		 {NVL_HW_MTHD_INC(4, 0, 1), ce, NVL_HW_MTHD_INC(4, 0x500, 1),
		  1},
		 4,
		 NVL_HW_CHERR_METHOD,
		 0x500},
		{"blocklinear launch",
		 {NVL_HW_MTHD_INC(4, 0, 1), ce,
		  NVL_HW_MTHD_INC(4, NVL_HW_CE_LAUNCH_DMA, 1), 2},
		 4,
		 NVL_HW_CHERR_CE_LAUNCH,
		 NVL_HW_CE_LAUNCH_DMA},
		{"physical copy from user channel",
		 {NVL_HW_MTHD_INC(4, 0, 1), ce,
		  NVL_HW_MTHD_INC(4, NVL_HW_CE_LAUNCH_DMA, 1),
		  0x186 | NVL_HW_CE_LAUNCH_SRC_PHYS},
		 4,
		 NVL_HW_CHERR_CE_LAUNCH,
		 NVL_HW_CE_LAUNCH_DMA},
		{"legacy semaphore",
		 {NVL_HW_MTHD_INC(0, 0x10, 1), 0},
		 2,
		 NVL_HW_CHERR_METHOD,
		 0x10},
		{"bad semaphore op",
		 {NVL_HW_MTHD_INC(0, 0x6c, 1), 7},
		 2,
		 NVL_HW_CHERR_SEMAPHORE,
		 NVL_HW_SEM_EXECUTE},
		{"bad mem op",
		 {NVL_HW_MTHD_INC(0, 0x34, 1), 0x1fu << 27},
		 2,
		 NVL_HW_CHERR_METHOD,
		 NVL_HW_MEM_OP_D},
	};
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan good;
	uint32_t p[16], n;

	gpu_chan(g, 63, 1, &good);
	for (unsigned i = 0; i < NVL_ARRAY_SIZE(cases); i++) {
		struct nvl_kit_chan ch;
		uint32_t pad = 0;

		gpu_chan(g, 20 + i, 1, &ch);
		gpu_push(&ch, cases[i].dw, cases[i].n);
		gpu_push(&ch, &pad, 1);
		assert_int_equal(nvl_kit_kick(&g->kit, &ch), 0);
		if (nvl_kit_wait_idle(&g->kit, &ch, GPU_WAIT) != -EIO)
			fail_msg("%s: no channel error", cases[i].what);
		if (nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(20 + i)) !=
			    cases[i].err ||
		    nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERR_METHOD(20 + i)) !=
			    cases[i].mthd)
			fail_msg("%s: error %u method %#x", cases[i].what,
				 nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(20 + i)),
				 nvl_hw_rd32(g->hw,
					     NVL_HW_CHRAM_ERR_METHOD(20 + i)));
		/* the device and the other channel are unharmed */
		n = nvl_kit_pb_release(p, DONE, i + 1);
		gpu_push(&good, p, n);
		assert_int_equal(nvl_kit_kick(&g->kit, &good), 0);
		assert_int_equal(
			nvl_kit_wait_u32(&g->kit, DONE, i + 1, GPU_WAIT), 0);
		nvl_kit_chan_fini(&g->kit, &ch);
	}
	nvl_kit_chan_fini(&g->kit, &good);
	gpu_down(g);
}

static void bad_gpfifo_entries_raise_channel_errors(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan a;
	uint64_t e = nvl_hw_gp_control(NVL_HW_GP_OPCODE_ILLEGAL, 0);
	uint32_t put = 1;

	/* an ILLEGAL control entry */
	gpu_chan(g, 12, 0, &a);
	assert_int_equal(nvl_hw_vram_write(g->hw, a.gpfifo, &e, 8), 0);
	assert_int_equal(nvl_hw_vram_write(g->hw, a.userd + NVL_HW_USERD_GP_PUT,
					   &put, 4),
			 0);
	nvl_hw_wr32(g->hw, NVL_HW_DOORBELL, NVL_HW_DOORBELL_TOKEN(12, 0));
	a.gp_put = 1;
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &a, GPU_WAIT), -EIO);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(12)),
			 NVL_HW_CHERR_GPENTRY);
	nvl_kit_chan_fini(&g->kit, &a);
	/* GP_PUT outside the ring */
	gpu_chan(g, 13, 0, &a);
	put = a.gp_entries + 3;
	assert_int_equal(nvl_hw_vram_write(g->hw, a.userd + NVL_HW_USERD_GP_PUT,
					   &put, 4),
			 0);
	nvl_hw_wr32(g->hw, NVL_HW_DOORBELL, NVL_HW_DOORBELL_TOKEN(13, 0));
	a.gp_put = 1;
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &a, GPU_WAIT), -EIO);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(13)),
			 NVL_HW_CHERR_GPPTR);
	nvl_kit_chan_fini(&g->kit, &a);
	/* a doorbell with the wrong runlist is ignored */
	gpu_chan(g, 14, 0, &a);
	{
		uint32_t p[16], n = nvl_kit_pb_release(p, DONE, 9);

		gpu_push(&a, p, n);
		a.runlist = 1;
		assert_int_equal(nvl_kit_kick(&g->kit, &a), 0);
		usleep(5000);
		assert_int_equal(gpu_rd(g, DONE), 0);
		nvl_hw_wr32(g->hw, NVL_HW_DOORBELL,
			    NVL_HW_DOORBELL_TOKEN(14, 0));
		assert_int_equal(nvl_kit_wait_u32(&g->kit, DONE, 9, GPU_WAIT),
				 0);
	}
	nvl_kit_chan_fini(&g->kit, &a);
	gpu_down(g);
}

static void full_fault_buffer_drops_and_flags_overflow(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan ch[3];
	uint32_t p[64], n;

	fault_buffer_setup(g, 2); /* one usable slot */
	for (unsigned i = 0; i < 3; i++) {
		gpu_chan(g, 30 + i, 0, &ch[i]);
		n = nvl_kit_pb_copy(p, g->ce_class, DST, HOLE, 4);
		gpu_push(&ch[i], p, n);
		assert_int_equal(nvl_kit_kick(&g->kit, &ch[i]), 0);
		assert_int_equal(nvl_kit_wait_idle(&g->kit, &ch[i], GPU_WAIT),
				 -EIO);
	}
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_FAULT_BUF_PUT(0)), 1);
	assert_true(nvl_hw_rd32(g->hw, NVL_HW_FAULT_BUF_GET(0)) &
		    NVL_HW_FAULT_BUF_GET_OVERFLOW);
	assert_true(atomic_load(&g->stall) & NVL_HW_INTR_FAULT_OVERFLOW);
	/* software consumes the entry and clears the overflow */
	nvl_hw_wr32(g->hw, NVL_HW_FAULT_BUF_GET(0),
		    1 | NVL_HW_FAULT_BUF_GET_OVERFLOW);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_FAULT_BUF_GET(0)), 1);
	for (unsigned i = 0; i < 3; i++)
		nvl_kit_chan_fini(&g->kit, &ch[i]);
	gpu_down(g);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(unmapped_copy_faults_and_stops_only_its_channel),
	cmocka_unit_test(pushbuffer_fetch_fault_is_a_host_fault),
	cmocka_unit_test(hang_blocks_engine_until_reset),
	cmocka_unit_test(engine_reset_spares_rebound_channel),
	cmocka_unit_test(bad_pushbuffers_raise_channel_errors),
	cmocka_unit_test(bad_gpfifo_entries_raise_channel_errors),
	cmocka_unit_test(full_fault_buffer_drops_and_flags_overflow),
};

T_MAIN(tests)

// SPDX-License-Identifier: MIT
/*
 * TEST: model_conform
 * Description: the model against NVIDIA's public manuals and class
 * headers, one test per field, each named for the field it checks and
 * citing where the field is defined (open-gpu-doc manuals/turing/tu104,
 * classes/host/clc46f.h .. clc86f.h, classes/dma-copy/clc5b5.h .. clc8b5.h,
 * open-gpu-kernel-modules' dev_fault.h per chip).
 */
#include <stdlib.h>
#include <unistd.h>

#include "gpu.h"

#define SEM 0x10000ull
#define DONE 0x20000ull
#define BUF 0x30000ull

/* write @n raw GPFIFO entries at the ring's start and kick them */
static void raw_entries(struct gpu *g, struct nvl_model_kit_chan *ch,
			const uint64_t *e, uint32_t n)
{
	assert_int_equal(nvl_hw_vram_write(g->hw, ch->gpfifo, e, n * 8ull), 0);
	ch->gp_put = n;
	gpu_wr(g, ch->userd + NVL_HW_USERD_GP_PUT, n);
	nvl_hw_wr32(g->hw, NVL_HW_DOORBELL,
		    NVL_HW_DOORBELL_TOKEN(ch->chid, ch->runlist));
}

/* a segment at pushbuffer offset @off of @ch holding @p[0..n) */
static uint64_t seg(struct gpu *g, struct nvl_model_kit_chan *ch, uint32_t off,
		    const uint32_t *p, uint32_t n)
{
	assert_int_equal(nvl_hw_vram_write(g->hw, ch->pb + off, p, n * 4ull),
			 0);
	return nvl_hw_gp_entry(ch->pb + off, n, 0);
}

/*
 * clc46f.h NVC46F_GP_ENTRY1_OPCODE 7:0 (NOP 0, ILLEGAL 1): the opcode of a
 * control entry (LENGTH 0) is in the second dword; the first dword is its
 * operand (NVC46F_GP_ENTRY0_OPERAND 31:0), which a NOP ignores.
 */
static void gp_entry1_opcode(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_model_kit_chan a, b;
	uint32_t p[16], n;
	uint64_t e[3];

	gpu_chan(g, 1, 0, &a);
	n = nvl_model_kit_pb_release(p, DONE, 7);
	e[0] = nvl_hw_gp_control(NVL_HW_GP_OPCODE_NOP, 0xdeadbeef);
	e[1] = nvl_hw_gp_control(NVL_HW_GP_OPCODE_NOP, 0x1);
	e[2] = seg(g, &a, 0, p, n);
	raw_entries(g, &a, e, 3);
	assert_int_equal(nvl_model_kit_wait_u32(&g->kit, DONE, 7, GPU_WAIT), 0);
	assert_int_equal(nvl_model_kit_wait_idle(&g->kit, &a, GPU_WAIT), 0);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(1)), 0);
	/* ILLEGAL in GP_ENTRY1 OPCODE, operand 0 (a NOP in the old reading) */
	gpu_chan(g, 2, 0, &b);
	e[0] = nvl_hw_gp_control(NVL_HW_GP_OPCODE_ILLEGAL, 0);
	raw_entries(g, &b, e, 1);
	assert_int_equal(nvl_model_kit_wait_idle(&g->kit, &b, GPU_WAIT), -EIO);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(2)),
			 NVL_HW_CHERR_GPENTRY);
	nvl_model_kit_chan_fini(&g->kit, &a);
	nvl_model_kit_chan_fini(&g->kit, &b);
	gpu_down(g);
}

/*
 * dev_ram.ref NV_RAMUSERD_GP_GET: the index of the next entry Host will
 * take; it moves past an entry when the entry begins processing, not when
 * its segment has executed. A segment parked in an acquire has moved
 * GP_GET; only the following release says the work is done.
 */
static void userd_gp_get(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_model_kit_chan a;
	uint32_t p[32], n;
	uint64_t e;

	gpu_chan(g, 3, 0, &a);
	n = nvl_model_kit_pb_acquire(p, SEM, 1);
	n += nvl_model_kit_pb_release(p + n, DONE, 1);
	e = seg(g, &a, 0, p, n);
	raw_entries(g, &a, &e, 1);
	for (int i = 0;
	     i < 100000 && !(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_CTRL(3)) &
			     NVL_HW_CHRAM_CTRL_ACQUIRE_PENDING);
	     i++)
		usleep(50);
	assert_int_equal(nvl_model_kit_gp_get(&g->kit, &a), 1);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_GP_GET(3)), 1);
	assert_int_equal(gpu_rd(g, DONE), 0);
	assert_true(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_CTRL(3)) &
		    NVL_HW_CHRAM_CTRL_BUSY);
	assert_int_equal(nvl_model_kit_wait_idle(&g->kit, &a, 20000000),
			 -ETIME);
	gpu_wr(g, SEM, 1);
	assert_int_equal(nvl_model_kit_wait_u32(&g->kit, DONE, 1, GPU_WAIT), 0);
	assert_int_equal(nvl_model_kit_wait_idle(&g->kit, &a, GPU_WAIT), 0);
	nvl_model_kit_chan_fini(&g->kit, &a);
	gpu_down(g);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(gp_entry1_opcode),
	cmocka_unit_test(userd_gp_get),
};

T_MAIN(tests)

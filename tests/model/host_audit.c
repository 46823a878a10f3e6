// SPDX-License-Identifier: MIT
/*
 * TEST: model_host_audit
 * Description: adversarial review of the model's PBDMA and Host methods
 * against NVIDIA's dev_pbdma manual (open-gpu-doc Host-Fifo/volta/gv100/
 * dev_pbdma.ref.txt) and class header clc56f.h: method headers whose
 * addresses would wrap, a segment ending at the top of the 40-bit VA
 * space.
 */
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

	(void)priv;
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

/* write one raw GPFIFO entry @e at the ring's start of @ch and kick it */
static void raw_entry(struct gpu *g, struct nvl_kit_chan *ch, uint64_t e)
{
	assert_int_equal(nvl_hw_vram_write(g->hw, ch->gpfifo, &e, 8), 0);
	ch->gp_put = 1;
	gpu_wr(g, ch->userd + NVL_HW_USERD_GP_PUT, 1);
	nvl_hw_wr32(g->hw, NVL_HW_DOORBELL,
		    NVL_HW_DOORBELL_TOKEN(ch->chid, ch->runlist));
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
		nvl_hw_vram_write(g->hw, PB_PAGE + (va - page), p, 4ull * n), 0);
	gpu_chan(g, 1, 0, &a);
	raw_entry(g, &a, nvl_hw_gp_entry(va, n, 0));
	assert_int_equal(nvl_kit_wait_u32(&g->kit, DONE, 7, GPU_WAIT), 0);
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &a, GPU_WAIT), 0);
	/* ends at 2^40: GPENTRY, the entry as the error's method and data */
	va = (1ull << 40) - 4ull * n;
	assert_int_equal(
		nvl_hw_vram_write(g->hw, PB_PAGE + (va - page), p, 4ull * n), 0);
	gpu_chan(g, 2, 0, &b);
	raw_entry(g, &b, nvl_hw_gp_entry(va, n, 0));
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &b, GPU_WAIT), -EIO);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(2)),
			 NVL_HW_CHERR_GPENTRY);
	nvl_kit_chan_fini(&g->kit, &a);
	nvl_kit_chan_fini(&g->kit, &b);
	gpu_down(g);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(inc_header_past_last_method_is_invalid),
	cmocka_unit_test(segment_ending_at_va_top_is_gpentry),
};

T_MAIN(tests)

// SPDX-License-Identifier: MIT
/*
 * TEST: compute_audit2
 * Description: regressions from the second adversarial review of the
 * compute stack (session 17): SET_OBJECT of the compute class on a copy
 * runlist. Each case failed before its fix.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../model/gpu.h"
#include "base/alloc.h"
#include "hw/compute.h"
#include "hw/isa/isa.h"
#include "nouvelle/compute.h"

#define CODE 0x100000ull
#define QMD 0x200000ull
#define CB0 0x210000ull
#define CB0_B 0x200u
#define SEM 0x220000ull
#define DATA 0x400000ull
#define SUBCH 1
#define MARK 0xbeefu

/* ---- the model through the bring-up kit ---------------------------------- */

struct cx {
	struct gpu *g;
	struct nvl_kit_chan ch;
	unsigned chid, rl;
	uint32_t cls;
	enum nvl_isa_arch arch;
	uint32_t q[96];
	int qsize;
	uint64_t prog;
};

static void cx_load(struct cx *x, const char *src)
{
	struct nvl_isa_asm_error err;
	uint64_t *w;
	size_t n;

	if (nvl_isa_assemble(src, x->arch, CODE, &w, &n, &err))
		fail_msg("kernel %u:%u: %s", err.line, err.col, err.msg);
	assert_int_equal(nvl_hw_vram_write(x->g->hw, CODE, w, n * 16), 0);
	nvl_free(w);
	x->prog = CODE;
}

/* a device, a channel on runlist @rl (-1: the compute runlist) and a
 * program storing MARK at DATA; the helper's QMD in x->q */
static void cx_up(struct cx *x, const char *profile, int rl)
{
	struct nvl_compute_launch l = {
		.program_va = CODE,
		.grid = {1, 1, 1},
		.block = {32, 1, 1},
		.cbuf0_va = CB0,
		.cbuf0_size = CB0_B,
		.release_va = SEM,
		.release_payload = 7,
	};
	uint32_t cb[CB0_B / 4];

	memset(x, 0, sizeof(*x));
	x->g = gpu_up(profile);
	x->cls = x->g->m->profile->compute_class;
	x->arch = x->cls == NVL_HW_COMPUTE_CLASS_TURING	  ? NVL_ISA_SM75
		  : x->cls == NVL_HW_COMPUTE_CLASS_AMPERE_B ? NVL_ISA_SM86
		  : x->cls == NVL_HW_COMPUTE_CLASS_ADA	    ? NVL_ISA_SM89
							    : NVL_ISA_SM90;
	x->rl = rl < 0 ? NVL_HW_RUNLIST_COMPUTE(x->g->m->profile->num_ce)
		       : (unsigned)rl;
	x->chid = 1;
	gpu_chan(x->g, x->chid, x->rl, &x->ch);
	cx_load(x, "MOV R0, 0xbeef\nMOV R2, 0x400000\nMOV R3, RZ\n"
		   "STG.E [R2], R0\nEXIT\n");
	x->qsize = nvl_compute_qmd_size(x->cls);
	assert_true(x->qsize > 0);
	assert_int_equal(nvl_compute_launch_encode(x->cls, &l, x->q, cb), 0);
	assert_int_equal(nvl_hw_vram_write(x->g->hw, CB0, cb, sizeof(cb)), 0);
}

static void cx_down(struct cx *x)
{
	nvl_kit_chan_fini(&x->g->kit, &x->ch);
	gpu_down(x->g);
}

/* write x->q, clear DATA, push [SET_OBJECT] + the launch; wait */
static int cx_launch(struct cx *x, bool bind)
{
	uint32_t p[NVL_COMPUTE_PUSH_MAX_DW];
	int n;

	gpu_wr(x->g, DATA, 0);
	assert_int_equal(nvl_hw_vram_write(x->g->hw, QMD, x->q,
					   (size_t)x->qsize),
			 0);
	n = nvl_compute_push_launch(x->cls, SUBCH, QMD,
				    bind ? NVL_COMPUTE_PUSH_BIND : 0, p,
				    NVL_COMPUTE_PUSH_MAX_DW);
	assert_true(n > 0);
	gpu_push(&x->ch, p, (uint32_t)n);
	assert_int_equal(nvl_kit_kick(&x->g->kit, &x->ch), 0);
	return nvl_kit_wait_idle(&x->g->kit, &x->ch, GPU_WAIT);
}

static void cx_new_chan(struct cx *x)
{
	nvl_kit_chan_fini(&x->g->kit, &x->ch);
	x->chid++;
	gpu_chan(x->g, x->chid, x->rl, &x->ch);
}

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
	cx_up(&x, "ga102", 0);
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
		assert_int_equal(
			nvl_kit_wait_idle(&x.g->kit, &x.ch, GPU_WAIT), 0);
	}
	cx_down(&x);
	/* and the compute runlist's channel runs the grid */
	cx_up(&x, "ga102", -1);
	assert_int_equal(cx_launch(&x, true), 0);
	assert_int_equal(gpu_rd(x.g, DATA), MARK);
	assert_int_equal(gpu_rd(x.g, SEM), 7);
	cx_down(&x);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(compute_class_on_a_copy_channel_is_an_illegal_class),
};

T_MAIN(tests)

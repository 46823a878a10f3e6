/* SPDX-License-Identifier: MIT */
/*
 * cxkit.h - a compute channel on a model device, driven through the
 * bring-up kit with a QMD the test may edit bit by bit: the set-up shared
 * by the compute tests that write QMD fields by hand (audit2.c, qmd.c).
 *
 * cx_up() opens the device, puts a channel on a runlist and assembles
 * cx_store_src at CODE; the launch helper's QMD (one CTA, release 7 at SEM)
 * is in x->q for the test to change before cx_launch() writes it at QMD.
 */
#ifndef NVL_TESTS_COMPUTE_CXKIT_H
#define NVL_TESTS_COMPUTE_CXKIT_H

#include <stdbool.h>
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

/* set bits hi:lo of the QMD words @q to @v (as the headers' MW(hi:lo)) */
static inline void qbits(uint32_t *q, unsigned hi, unsigned lo, uint32_t v)
{
	for (unsigned b = lo; b <= hi; b++) {
		q[b / 32] &= ~(1u << (b % 32));
		q[b / 32] |= (v >> (b - lo) & 1u) << (b % 32);
	}
}

struct cx {
	struct gpu *g;
	struct nvl_kit_chan ch;
	unsigned chid, rl;
	uint32_t cls;
	enum nvl_isa_arch arch;
	uint32_t q[96];
	int qsize;
};

/* stores MARK at DATA: R0..R3 (the address a pair) */
static const char cx_store_src[] = "MOV R0, 0xbeef\nMOV R2, 0x400000\n"
				   "MOV R3, RZ\nSTG.E [R2], R0\nEXIT\n";

/* assemble @src for the device's SM and write it at @va */
static inline uint64_t cx_load_at(struct cx *x, uint64_t va, const char *src)
{
	struct nvl_isa_asm_error err;
	uint64_t *w;
	size_t n;

	if (nvl_isa_assemble(src, x->arch, va, &w, &n, &err))
		fail_msg("kernel %u:%u: %s", err.line, err.col, err.msg);
	assert_int_equal(nvl_hw_vram_write(x->g->hw, va, w, n * 16), 0);
	nvl_free(w);
	return va;
}

/*
 * A device, a channel on runlist @rl (-1: the compute runlist),
 * cx_store_src at CODE and the helper's QMD for @threads in one CTA in
 * x->q (32 registers, release 7 at SEM).
 */
static inline void cx_up(struct cx *x, const char *profile, int rl,
			 uint32_t threads)
{
	struct nvl_compute_launch l = {
		.program_va = CODE,
		.grid = {1, 1, 1},
		.block = {threads, 1, 1},
		.register_count = 32,
		.cbuf0_va = CB0,
		.cbuf0_size = CB0_B,
		.release_va = SEM,
		.release_payload = 7,
	};
	uint32_t cb[CB0_B / 4];

	memset(x, 0, sizeof(*x));
	x->g = gpu_up(profile);
	x->cls = x->g->m->profile->compute_class;
	x->arch = x->cls == NVL_HW_COMPUTE_CLASS_TURING	    ? NVL_ISA_SM75
		  : x->cls == NVL_HW_COMPUTE_CLASS_AMPERE_B ? NVL_ISA_SM86
		  : x->cls == NVL_HW_COMPUTE_CLASS_ADA	    ? NVL_ISA_SM89
							    : NVL_ISA_SM90;
	x->rl = rl < 0 ? NVL_HW_RUNLIST_COMPUTE(x->g->m->profile->num_ce)
		       : (unsigned)rl;
	x->chid = 1;
	gpu_chan(x->g, x->chid, x->rl, &x->ch);
	cx_load_at(x, CODE, cx_store_src);
	x->qsize = nvl_compute_qmd_size(x->cls);
	assert_true(x->qsize > 0);
	assert_int_equal(nvl_compute_launch_encode(x->cls, &l, x->q, cb), 0);
	assert_int_equal(nvl_hw_vram_write(x->g->hw, CB0, cb, sizeof(cb)), 0);
}

static inline void cx_down(struct cx *x)
{
	nvl_kit_chan_fini(&x->g->kit, &x->ch);
	gpu_down(x->g);
}

/* a fresh channel on the same runlist (after one a launch killed) */
static inline void cx_new_chan(struct cx *x)
{
	nvl_kit_chan_fini(&x->g->kit, &x->ch);
	x->chid++;
	gpu_chan(x->g, x->chid, x->rl, &x->ch);
}

/*
 * Clear DATA, write x->q at QMD, push [SET_OBJECT when @bind] and the
 * launch, wait for the channel to idle: 0, or -EIO when the launch
 * killed it.
 */
static inline int cx_launch(struct cx *x, bool bind)
{
	uint32_t p[NVL_COMPUTE_PUSH_MAX_DW];
	int n;

	gpu_wr(x->g, DATA, 0);
	assert_int_equal(
		nvl_hw_vram_write(x->g->hw, QMD, x->q, (size_t)x->qsize), 0);
	n = nvl_compute_push_launch(x->cls, SUBCH, QMD,
				    bind ? NVL_COMPUTE_PUSH_BIND : 0, p,
				    NVL_COMPUTE_PUSH_MAX_DW);
	assert_true(n > 0);
	gpu_push(&x->ch, p, (uint32_t)n);
	assert_int_equal(nvl_kit_kick(&x->g->kit, &x->ch), 0);
	return nvl_kit_wait_idle(&x->g->kit, &x->ch, GPU_WAIT);
}

#endif

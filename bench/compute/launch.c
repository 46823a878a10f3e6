// SPDX-License-Identifier: MIT
/*
 * Compute launch benchmarks: the model's compute engine driven through a
 * channel (bring-up kit), the QMD encoded with hw/compute.h.
 *
 * launch_latency: ns from the kick of a pushbuffer that launches an empty
 * kernel (one CTA of 32 threads, EXIT) to its QMD release seen by the
 * CPU (spin-polled); baseline futex_pingpong (a thread wake-up and back).
 *
 * vector_add_bw: bytes/s (3 x 4 bytes per element) of a vector add over
 * 64 MiB vectors (4 MiB with --quick) through the whole launch path, on
 * the default 2 SM worker threads; baseline memcpy_bandwidth.
 */
#include <errno.h>
#include <sched.h>
#include <string.h>

#include "base/alloc.h"
#include "base/time.h"
#include "bench.h"
#include "hw/compute.h"
#include "hw/host.h"
#include "hw/isa/isa.h"
#include "kit.h"
#include "model/model.h"

#define MIB (1ull << 20)
#define CODE 0x100000ull
#define QMD 0x200000ull
#define CB0 0x210000ull
#define SEM 0x220000ull
#define DATA (256 * MIB)

static const char vadd[] = "  S2R R0, SR_TID.X\n"
			   "  S2R R1, SR_CTAID.X\n"
			   "  MOV R2, c[0x0][0x0]\n"
			   "  IMAD R0, R1, R2, R0\n"
			   "  ISETP.GE.U32.AND P0, PT, R0, c[0x0][0x178], PT\n"
			   "  @P0 EXIT\n"
			   "  MOV R9, 0x4\n"
			   "  IMAD.WIDE.U32 R2, R0, R9, c[0x0][0x160]\n"
			   "  IMAD.WIDE.U32 R4, R0, R9, c[0x0][0x168]\n"
			   "  IMAD.WIDE.U32 R6, R0, R9, c[0x0][0x170]\n"
			   "  LDG.E R2, [R2]\n"
			   "  LDG.E R4, [R4]\n"
			   "  FADD R8, R2, R4\n"
			   "  STG.E [R6], R8\n"
			   "  EXIT\n";

struct crig {
	struct nvl_model *m;
	struct nvl_hw *hw;
	struct nvl_kit kit;
	struct nvl_kit_vm vm;
	struct nvl_kit_chan ch;
	const struct nvl_hw_qmd_layout *ly;
	uint32_t seq, n;
	uint64_t prog;
};

static int crig_up(struct crig *r, const char *src)
{
	struct nvl_isa_asm_error err;
	uint64_t *w;
	size_t n;

	memset(r, 0, sizeof(*r));
	if (nvl_model_create(nvl_model_profile_find("ga102"), &r->m))
		return -ENOMEM;
	r->hw = nvl_model_hw(r->m);
	r->ly = nvl_hw_qmd_layout_of(r->m->profile->compute_class);
	if (!r->ly || nvl_kit_init(&r->kit, r->hw, 1024 * MIB) ||
	    nvl_kit_vm_init(&r->kit, &r->vm) ||
	    nvl_kit_map(&r->kit, &r->vm, 0, 0, r->kit.vram_size, 21,
			NVL_HW_APERTURE_VIDMEM, 0) ||
	    nvl_kit_chan_create(&r->kit, &r->vm, 1, 0, 10, 1 << 20, false,
				&r->ch))
		goto fail;
	if (nvl_isa_assemble(src, NVL_ISA_SM86, CODE, &w, &n, &err))
		goto fail;
	nvl_hw_vram_write(r->hw, CODE, w, n * 16);
	nvl_free(w);
	r->prog = CODE;
	return 0;
fail:
	nvl_model_destroy(r->m);
	return -ENOMEM;
}

static void crig_down(struct crig *r)
{
	nvl_kit_chan_fini(&r->kit, &r->ch);
	nvl_model_destroy(r->m);
}

/* c[0] and the QMD of a 1-D grid; the release payload is r->seq + 1 */
static void crig_qmd(struct crig *r, uint32_t grid, uint32_t block,
		     const void *params, size_t params_B)
{
	const struct nvl_hw_qmd_layout *ly = r->ly;
	uint32_t c0[0x200 / 4] = {block, 1, 1, grid, 1, 1}, q[96] = {0};

	memcpy((uint8_t *)c0 + 0x160, params, params_B);
	nvl_hw_vram_write(r->hw, CB0, c0, sizeof(c0));
	nvl_hw_qmd_set(q, ly->version_major, ly->major);
	nvl_hw_qmd_set(q, ly->version_minor, ly->minor);
	nvl_hw_qmd_set(q, ly->grid[0], grid);
	nvl_hw_qmd_set(q, ly->grid[1], 1);
	nvl_hw_qmd_set(q, ly->grid[2], 1);
	nvl_hw_qmd_set(q, ly->cta[0], block);
	nvl_hw_qmd_set(q, ly->cta[1], 1);
	nvl_hw_qmd_set(q, ly->cta[2], 1);
	nvl_hw_qmd_set(q, ly->prog_lo, (uint32_t)r->prog);
	nvl_hw_qmd_set(q, ly->prog_hi, r->prog >> 32);
	nvl_hw_qmd_set(q, ly->register_count, 16);
	nvl_hw_qmd_set(q, ly->cb_valid, 1);
	nvl_hw_qmd_set(q, ly->cb_addr_lo, (uint32_t)(CB0 >> ly->cb_addr_shift));
	nvl_hw_qmd_set(q, ly->cb_size, sizeof(c0) >> 4);
	nvl_hw_qmd_set(q, ly->release_enable, 1);
	nvl_hw_qmd_set(q, ly->release_addr_lo, (uint32_t)SEM);
	nvl_hw_qmd_set(q, ly->release_payload, r->seq + 1);
	nvl_hw_vram_write(r->hw, QMD, q, ly->size_B);
}

/* kick the launch and spin until its release; ns or -1 */
static double crig_launch(struct crig *r)
{
	uint32_t p[8], n = 0, v = 0;
	int64_t t0, deadline;

	p[n++] = NVL_HW_MTHD_INC(1, NVL_HW_SET_OBJECT, 1);
	p[n++] = r->m->profile->compute_class;
	p[n++] = NVL_HW_MTHD_INC(1, NVL_HW_COMPUTE_SEND_PCAS_A, 1);
	p[n++] = (uint32_t)(QMD >> 8);
	p[n++] =
		NVL_HW_MTHD_IMMD(1, NVL_HW_COMPUTE_SEND_SIGNALING_PCAS2_B,
				 NVL_HW_COMPUTE_PCAS2_INVALIDATE_COPY_SCHEDULE);
	if (nvl_kit_push(&r->ch, p, n))
		return -1;
	r->seq++;
	t0 = nvl_bench_now_ns();
	deadline = t0 + 60 * NVL_NSEC_PER_SEC;
	if (nvl_kit_kick(&r->kit, &r->ch))
		return -1;
	while (v != r->seq) {
		if (nvl_bench_now_ns() > deadline)
			return -1;
		sched_yield();
		nvl_hw_vram_read(r->hw, SEM, &v, 4);
	}
	return (double)(nvl_bench_now_ns() - t0);
}

static double sample_empty(void *arg)
{
	struct crig *r = arg;
	uint64_t none = 0;

	crig_qmd(r, 1, 32, &none, sizeof(none));
	return crig_launch(r);
}

NVL_BENCH(compute, launch_latency)
{
	struct crig r;
	double v;

	if (crig_up(&r, "EXIT\n"))
		return -1;
	v = nvl_bench_median(nvl_bench_quick(ctx) ? 21 : 201, sample_empty, &r);
	crig_down(&r);
	if (v <= 0)
		return -1;
	nvl_bench_report(ctx, "launch_latency", v, "ns", "futex_pingpong");
	return 0;
}

struct vadd_arg {
	struct crig *r;
	uint32_t n;
};

static double sample_vadd(void *arg)
{
	struct vadd_arg *a = arg;
	uint64_t bytes = 4ull * a->n;
	struct {
		uint64_t x, y, z;
		uint32_t n;
	} p = {DATA, DATA + bytes, DATA + 2 * bytes, a->n};
	double ns;

	crig_qmd(a->r, (a->n + 255) / 256, 256, &p, sizeof(p));
	ns = crig_launch(a->r);
	return ns > 0 ? 3.0 * (double)bytes * 1e9 / ns : -1;
}

NVL_BENCH(compute, vector_add_bw)
{
	struct crig r;
	struct vadd_arg a = {
		&r, (uint32_t)((nvl_bench_quick(ctx) ? 4 : 64) * MIB / 4)};
	double v;

	if (crig_up(&r, vadd))
		return -1;
	v = nvl_bench_median(3, sample_vadd, &a);
	crig_down(&r);
	if (v <= 0)
		return -1;
	nvl_bench_report(ctx, "vector_add_bw", v, "bytes/s",
			 "memcpy_bandwidth");
	return 0;
}

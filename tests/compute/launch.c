// SPDX-License-Identifier: MIT
/*
 * TEST: compute_launch
 * Description: the compute engine of the model driven the way NVK launches
 * compute: a pushbuffer on a channel (the bring-up kit) binds the chip's
 * compute class, points SEND_PCAS_A at a QMD in VRAM and schedules it with
 * SEND_SIGNALING_PCAS_B (Turing) or SEND_SIGNALING_PCAS2_B (Ampere+); the
 * QMD names the program (assembled here with the library assembler),
 * the grid and block, shared memory, constant buffer 0 (ntid, nctaid and
 * the kernel parameters at 0x160) and the release semaphore the test
 * waits on. Vector add, SAXPY, a shared-memory reduction, a two-pass
 * prefix sum, a shared+global atomic histogram, a tiled matrix multiply
 * and a divergent loop are checked against C references on random inputs
 * of several sizes (not multiples of the block) on tu102, ga102, ad102
 * and gh100, over 1..4 SM worker threads. Then the errors: illegal
 * instructions, misaligned and shared out-of-bounds accesses are
 * CHERR_COMPUTE channel errors with their reason; a store to an unmapped
 * VA is an MMU fault whose fault-buffer entry names the GRAPHICS engine.
 *
 * The QMDs are encoded here from the bit positions of
 * ../shared/reference/compute-isa.md §4.3 (open-gpu-doc
 * classes/compute/clc3c0qmd.h V02_02, clc6c0qmd.h V03_00, clcbc0qmd.h
 * V04_00), independently of the model's table in src/hw/compute.h.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "../model/gpu.h"
#include "base/alloc.h"
#include "hw/compute.h"
#include "hw/isa/isa.h"
#include "kern_src.h"
#include "model/compute/sm.h"

#define CODE 0x100000ull
#define QMD 0x200000ull
#define CB0 0x210000ull
#define CB0_B 0x200u
#define SEM 0x220000ull
#define FBUF 0x230000ull
#define DATA 0x400000ull
#define HOLE (1ull << 42)
#define PARAM 0x160
#define SUBCH 1

static const char *const profiles[] = {"tu102", "ga102", "ad102", "gh100"};

/* QMD bit positions, reference §4.3: {lo, hi} */
struct qbits {
	unsigned lo, hi;
};

struct qpos {
	unsigned size_B, major, minor;
	struct qbits vminor, vmajor, grid[3], cta[3], prog_lo, prog_hi, regs,
		smem, cb_valid, cb_lo, cb_hi, cb_size, rel_en, rel_lo, rel_hi,
		rel_payload;
	unsigned cb_valid_step, cb_shift;
	/* RELEASE0_STRUCTURE_SIZE (ONE_WORD = 1 written); QMD_TYPE
	 * (V04_00: GRID_CTA = 2 written; {0, 0} elsewhere: absent) */
	struct qbits rel_size, qtype;
	/* BARRIER_COUNT (1 written: the kernels' BAR.SYNC 0) */
	struct qbits bars;
};

/* V02_02: VERSION 579:576, MAJOR_VERSION 583:580; CTA_RASTER_WIDTH
 * 415:384, HEIGHT 431:416, DEPTH 463:448; CTA_THREAD_DIMENSION0..2
 * 607:592, 623:608, 639:624; PROGRAM_ADDRESS_LOWER 1567:1536, _UPPER
 * 1584:1568; REGISTER_COUNT_V 656:648; SHARED_MEMORY_SIZE 561:544;
 * CONSTANT_BUFFER_VALID(i) 640+i, ADDR_LOWER 1055:1024+64i, ADDR_UPPER
 * 1072:1056+64i, SIZE_SHIFTED4 1087:1075+64i; RELEASE0_ENABLE 138,
 * RELEASE0_ADDRESS 767:736 / 775:768, RELEASE0_PAYLOAD 831:800,
 * RELEASE0_STRUCTURE_SIZE 799 (clc9c0qmd.h QMDV02_04, the same bits) */
static const struct qpos v02_02 = {
	256,
	2,
	2,
	{576, 579},
	{580, 583},
	{{384, 415}, {416, 431}, {448, 463}},
	{{592, 607}, {608, 623}, {624, 639}},
	{1536, 1567},
	{1568, 1584},
	{648, 656},
	{544, 561},
	{640, 640},
	{1024, 1055},
	{1056, 1072},
	{1075, 1087},
	{138, 138},
	{736, 767},
	{768, 775},
	{800, 831},
	1,
	0,
	{799, 799},
	{0, 0},
	{955, 959}, /* BARRIER_COUNT 959:955 */
};

/* V03_00: as V02_02 except RELEASE0_ENABLE 823, RELEASE0_ADDRESS
 * 799:768 / 807:800, RELEASE0_PAYLOAD_LOWER 863:832, RELEASE0_STRUCTURE_SIZE
 * 831:830 */
static const struct qpos v03_00 = {
	256,
	3,
	0,
	{576, 579},
	{580, 583},
	{{384, 415}, {416, 431}, {448, 463}},
	{{592, 607}, {608, 623}, {624, 639}},
	{1536, 1567},
	{1568, 1584},
	{648, 656},
	{544, 561},
	{640, 640},
	{1024, 1055},
	{1056, 1072},
	{1075, 1087},
	{823, 823},
	{768, 799},
	{800, 807},
	{832, 863},
	1,
	0,
	{830, 831},
	{0, 0},
	{763, 767}, /* BARRIER_COUNT 767:763 */
};

/* V04_00: QMD_MINOR_VERSION 579:576, QMD_MAJOR_VERSION 583:580; GRID_WIDTH
 * 1055:1024, HEIGHT 1071:1056, DEPTH 1103:1088; CTA_THREAD_DIMENSION0..2
 * 1167:1152, 1183:1168, 1199:1184; PROGRAM_ADDRESS 1247:1216 /
 * 1272:1248; REGISTER_COUNT 1208:1200;
 * SHARED_MEMORY_SIZE 601:584; CONSTANT_BUFFER_VALID(i) 416+4i,
 * ADDR_LOWER_SHIFTED6 1567:1536+64i, ADDR_UPPER_SHIFTED6 1586:1568+64i,
 * SIZE_SHIFTED4 1599:1587+64i; RELEASE_ENABLE(0) 320, RELEASE_SEMAPHORE0
 * address 671:640 / 696:672, PAYLOAD_LOWER 735:704, RELEASE_STRUCTURE_SIZE(0)
 * 322:321; QMD_TYPE 25:23 (clcbc0qmd.h) */
static const struct qpos v04_00 = {
	384,
	4,
	0,
	{576, 579},
	{580, 583},
	{{1024, 1055}, {1056, 1071}, {1088, 1103}},
	{{1152, 1167}, {1168, 1183}, {1184, 1199}},
	{1216, 1247},
	{1248, 1272},
	{1200, 1208},
	{584, 601},
	{416, 416},
	{1536, 1567},
	{1568, 1586},
	{1587, 1599},
	{320, 320},
	{640, 671},
	{672, 696},
	{704, 735},
	4,
	6,
	{321, 322},
	{23, 25},
	{1211, 1215}, /* BARRIER_COUNT 1215:1211 */
};

static void qset(uint32_t *q, struct qbits f, uint64_t v, unsigned shift)
{
	f.lo += shift;
	f.hi += shift;
	for (unsigned b = f.lo; b <= f.hi; b++) {
		q[b / 32] &= ~(1u << (b % 32));
		q[b / 32] |= (uint32_t)(v >> (b - f.lo) & 1) << (b % 32);
	}
}

struct lt {
	struct gpu *g;
	struct nvl_kit_chan ch;
	unsigned chid;
	enum nvl_isa_arch arch;
	uint32_t cls;
	const struct qpos *q;
	uint32_t seq;
	uint64_t code_next;
	unsigned long fail_nth; /* arm allocation failure at the kick */
};

static void lt_up(struct lt *t, const char *profile, unsigned sms)
{
	memset(t, 0, sizeof(*t));
	t->g = gpu_up(profile);
	t->g->m->compute_sms = sms;
	t->cls = t->g->m->profile->compute_class;
	switch (t->cls) {
	case NVL_HW_COMPUTE_CLASS_TURING:
		t->arch = NVL_ISA_SM75;
		t->q = &v02_02;
		break;
	case NVL_HW_COMPUTE_CLASS_AMPERE_B:
		t->arch = NVL_ISA_SM86;
		t->q = &v03_00;
		break;
	case NVL_HW_COMPUTE_CLASS_ADA:
		t->arch = NVL_ISA_SM89;
		t->q = &v03_00;
		break;
	case NVL_HW_COMPUTE_CLASS_HOPPER:
		t->arch = NVL_ISA_SM90;
		t->q = &v04_00;
		break;
	default:
		fail_msg("unexpected compute class 0x%x", t->cls);
	}
	t->code_next = CODE;
	t->chid = 1;
	gpu_chan(t->g, t->chid,
		 NVL_HW_RUNLIST_COMPUTE(t->g->m->profile->num_ce), &t->ch);
}

static void lt_down(struct lt *t)
{
	nvl_kit_chan_fini(&t->g->kit, &t->ch);
	gpu_down(t->g);
}

/* assemble @src for the chip and load it into VRAM; returns its VA */
static uint64_t lt_load(struct lt *t, const char *src)
{
	struct nvl_isa_asm_error err;
	uint64_t *w, va = t->code_next;
	size_t n;

	if (nvl_isa_assemble(src, t->arch, va, &w, &n, &err))
		fail_msg("kernel line %u col %u: %s", err.line, err.col,
			 err.msg);
	assert_int_equal(nvl_hw_vram_write(t->g->hw, va, w, n * 16), 0);
	nvl_free(w);
	t->code_next = (va + n * 16 + 0xff) & ~0xffull;
	return va;
}

struct shape {
	uint32_t grid[3], block[3], shared_B;
};

static void lt_push(struct lt *t);

/* write c[0] and the QMD; push SET_OBJECT, SEND_PCAS_A and the schedule */
static void lt_submit(struct lt *t, uint64_t prog, const struct shape *s,
		      const void *params, size_t params_B, uint32_t qmd_major)
{
	uint32_t c0[CB0_B / 4] = {0}, q[96] = {0};
	const struct qpos *qp = t->q;

	t->seq++;
	for (int i = 0; i < 3; i++) {
		c0[i] = s->block[i];
		c0[3 + i] = s->grid[i];
	}
	memcpy((uint8_t *)c0 + PARAM, params, params_B);
	assert_int_equal(nvl_hw_vram_write(t->g->hw, CB0, c0, sizeof(c0)), 0);
	qset(q, qp->vmajor, qmd_major, 0);
	qset(q, qp->vminor, qp->minor, 0);
	for (int i = 0; i < 3; i++) {
		qset(q, qp->grid[i], s->grid[i], 0);
		qset(q, qp->cta[i], s->block[i], 0);
	}
	qset(q, qp->prog_lo, prog & 0xffffffffu, 0);
	qset(q, qp->prog_hi, prog >> 32, 0);
	qset(q, qp->regs, 32, 0);
	qset(q, qp->bars, 1, 0);
	qset(q, qp->smem, s->shared_B, 0);
	qset(q, qp->cb_valid, 1, 0);
	qset(q, qp->cb_lo, (CB0 >> qp->cb_shift) & 0xffffffffu, 0);
	qset(q, qp->cb_hi, CB0 >> qp->cb_shift >> 32, 0);
	qset(q, qp->cb_size, CB0_B >> 4, 0);
	qset(q, qp->rel_en, 1, 0);
	qset(q, qp->rel_lo, SEM & 0xffffffffu, 0);
	qset(q, qp->rel_hi, SEM >> 32, 0);
	qset(q, qp->rel_payload, t->seq, 0);
	qset(q, qp->rel_size, 1, 0);
	if (qp->qtype.hi)
		qset(q, qp->qtype, 2, 0);
	assert_int_equal(nvl_hw_vram_write(t->g->hw, QMD, q, qp->size_B), 0);
	lt_push(t);
}

/* push SET_OBJECT, SEND_PCAS_A (the QMD at QMD) and the schedule */
static void lt_push(struct lt *t)
{
	uint32_t p[16], n = 0;

	p[n++] = NVL_HW_MTHD_INC(SUBCH, NVL_HW_SET_OBJECT, 1);
	p[n++] = t->cls;
	p[n++] = NVL_HW_MTHD_IMMD(
		SUBCH, NVL_HW_COMPUTE_INVALIDATE_SHADER_CACHES_NO_WFI, 0x1011);
	p[n++] = NVL_HW_MTHD_INC(SUBCH, NVL_HW_COMPUTE_SEND_PCAS_A, 1);
	p[n++] = (uint32_t)(QMD >> 8);
	if (nvl_hw_compute_has_pcas2(t->cls)) {
		/* NVK: INVALIDATE_COPY_SCHEDULE = 3 */
		p[n++] = NVL_HW_MTHD_IMMD(
			SUBCH, NVL_HW_COMPUTE_SEND_SIGNALING_PCAS2_B,
			NVL_HW_COMPUTE_PCAS2_INVALIDATE_COPY_SCHEDULE);
	} else {
		p[n++] = NVL_HW_MTHD_IMMD(
			SUBCH, NVL_HW_COMPUTE_SEND_SIGNALING_PCAS_B,
			NVL_HW_COMPUTE_PCAS_B_INVALIDATE |
				NVL_HW_COMPUTE_PCAS_B_SCHEDULE);
	}
	gpu_push(&t->ch, p, n);
	if (t->fail_nth)
		nvl_fault_fail_nth(t->fail_nth, NVL_FAULT_ALL_THREADS);
	assert_int_equal(nvl_kit_kick(&t->g->kit, &t->ch), 0);
}

/* launch and wait for the QMD's release */
static void lt_run(struct lt *t, uint64_t prog, const struct shape *s,
		   const void *params, size_t params_B)
{
	lt_submit(t, prog, s, params, params_B, t->q->major);
	if (nvl_kit_wait_u32(&t->g->kit, SEM, t->seq, GPU_WAIT))
		fail_msg("launch %u: no release (CHRAM_ERROR %u data %u)",
			 t->seq,
			 nvl_hw_rd32(t->g->hw, NVL_HW_CHRAM_ERROR(t->chid)),
			 nvl_hw_rd32(t->g->hw, NVL_HW_CHRAM_ERR_DATA(t->chid)));
}

static void lt_1d(struct shape *s, uint32_t n, uint32_t bs, uint32_t smem)
{
	*s = (struct shape){{(n + bs - 1) / bs, 1, 1}, {bs, 1, 1}, smem};
}

static void wr(struct lt *t, uint64_t pa, const void *b, size_t len)
{
	assert_int_equal(nvl_hw_vram_write(t->g->hw, pa, b, len), 0);
}

static void rd(struct lt *t, uint64_t pa, void *b, size_t len)
{
	assert_int_equal(nvl_hw_vram_read(t->g->hw, pa, b, len), 0);
}

static const uint32_t sizes[] = {1, 33, 200, 1000, 4099};
static const uint32_t blocks[] = {32, 64, 96, 128, 256};
static const uint32_t pow2_blocks[] = {32, 64, 128, 256, 512};

/* ---- kernel tests: every profile, 1..4 SM worker threads ---- */

#define FOR_PROFILES(t)                                                        \
	for (unsigned pi_ = 0; pi_ < 4; pi_++)                                 \
		for (int once_ = (lt_up(t, profiles[pi_], pi_ + 1), 1); once_; \
		     once_ = 0, lt_down(t))

static uint32_t *rand_u32(uint64_t *s, uint32_t n)
{
	uint32_t *b = test_malloc(4ull * n + 4);

	for (uint32_t i = 0; i < n; i++)
		b[i] = (uint32_t)t_rand(s);
	return b;
}

static void vector_add(void **state)
{
	uint64_t s = t_seed(0xadd1);
	struct lt t;

	FOR_PROFILES(&t)
	{
		uint64_t va = lt_load(&t, vadd_src);

		for (size_t si = 0; si < 5; si++) {
			uint32_t n = sizes[si], bs = blocks[(si + pi_) % 5];
			float *x = test_malloc(4ull * n),
			      *y = test_malloc(4ull * n),
			      *z = test_malloc(4ull * n + 4);
			struct {
				uint64_t a, b, c;
				uint32_t n;
			} p = {DATA, DATA + 0x100000, DATA + 0x200000, n};
			struct shape sh;
			float guard = 1234.0f;

			for (uint32_t i = 0; i < n; i++) {
				x[i] = (float)(t_rand(&s) % 10000) / 7.0f;
				y[i] = (float)(t_rand(&s) % 10000) / 3.0f;
			}
			wr(&t, p.a, x, 4ull * n);
			wr(&t, p.b, y, 4ull * n);
			wr(&t, p.c + 4ull * n, &guard, 4);
			lt_1d(&sh, n, bs, 0);
			lt_run(&t, va, &sh, &p, sizeof(p));
			rd(&t, p.c, z, 4ull * n + 4);
			for (uint32_t i = 0; i < n; i++)
				assert_true(z[i] == x[i] + y[i]);
			assert_true(z[n] == 1234.0f); /* nothing past the end */
			test_free(x);
			test_free(y);
			test_free(z);
		}
	}
}

static void saxpy(void **state)
{
	uint64_t s = t_seed(0x5a5a1);
	struct lt t;

	FOR_PROFILES(&t)
	{
		uint64_t va = lt_load(&t, saxpy_src);

		for (size_t si = 0; si < 5; si++) {
			uint32_t n = sizes[si], bs = blocks[(si + 2 * pi_) % 5];
			float *x = test_malloc(4ull * n),
			      *y = test_malloc(4ull * n),
			      *r = test_malloc(4ull * n), a = 1.5f + (float)si;
			struct {
				uint64_t x, y;
				float a;
				uint32_t n;
			} p = {DATA, DATA + 0x100000, a, n};
			struct shape sh;

			for (uint32_t i = 0; i < n; i++) {
				x[i] = (float)(t_rand(&s) % 1000) / 8.0f;
				y[i] = (float)(t_rand(&s) % 1000) / 4.0f;
			}
			wr(&t, p.x, x, 4ull * n);
			wr(&t, p.y, y, 4ull * n);
			lt_1d(&sh, n, bs, 0);
			lt_run(&t, va, &sh, &p, sizeof(p));
			rd(&t, p.y, r, 4ull * n);
			for (uint32_t i = 0; i < n; i++)
				assert_true(r[i] == fmaf(a, x[i], y[i]));
			test_free(x);
			test_free(y);
			test_free(r);
		}
	}
}

static void reduction(void **state)
{
	uint64_t s = t_seed(0x5e5e1);
	struct lt t;

	FOR_PROFILES(&t)
	{
		uint64_t va = lt_load(&t, reduce_src);

		for (size_t si = 0; si < 5; si++) {
			uint32_t n = sizes[si],
				 bs = pow2_blocks[(si + pi_) % 5];
			uint32_t *in = rand_u32(&s, n), sum = 0, got, zero = 0;
			struct {
				uint64_t in;
				uint32_t n, pad;
				uint64_t total;
			} p = {DATA, n, 0, DATA + 0x100000};
			struct shape sh;

			for (uint32_t i = 0; i < n; i++)
				sum += in[i];
			wr(&t, p.in, in, 4ull * n);
			wr(&t, p.total, &zero, 4);
			lt_1d(&sh, n, bs, bs * 4);
			lt_run(&t, va, &sh, &p, sizeof(p));
			rd(&t, p.total, &got, 4);
			assert_int_equal(got, sum);
			test_free(in);
		}
	}
}

static void prefix_sum(void **state)
{
	uint64_t s = t_seed(0x5ca1);
	struct lt t;

	FOR_PROFILES(&t)
	{
		uint64_t scan = lt_load(&t, scan_src);
		uint64_t add = lt_load(&t, scan_add_src);

		for (size_t si = 0; si < 5; si++) {
			uint32_t n = sizes[si],
				 bs = pow2_blocks[(si + pi_) % 5];
			uint32_t *in = rand_u32(&s, n), *out = rand_u32(&s, n);
			uint32_t acc = 0;
			struct {
				uint64_t in;
				uint32_t n, pad;
				uint64_t out, part;
			} p1 = {DATA, n, 0, DATA + 0x100000, DATA + 0x200000};
			struct {
				uint64_t out;
				uint32_t n, pad;
				uint64_t part;
			} p2 = {DATA + 0x100000, n, 0, DATA + 0x200000};
			struct shape sh;

			wr(&t, p1.in, in, 4ull * n);
			lt_1d(&sh, n, bs, bs * 4);
			lt_run(&t, scan, &sh, &p1, sizeof(p1));
			lt_1d(&sh, n, bs, 0);
			lt_run(&t, add, &sh, &p2, sizeof(p2));
			rd(&t, p1.out, out, 4ull * n);
			for (uint32_t i = 0; i < n; i++) {
				acc += in[i];
				assert_int_equal(out[i], acc);
			}
			test_free(in);
			test_free(out);
		}
	}
}

static void histogram(void **state)
{
	uint64_t s = t_seed(0x4157);
	struct lt t;

	FOR_PROFILES(&t)
	{
		uint64_t va = lt_load(&t, hist_src);

		for (size_t si = 0; si < 5; si++) {
			/* the kernel clears 64 shared bins: blocks >= 64 */
			uint32_t n = sizes[si] * 3,
				 bs = blocks[1 + (si + pi_) % 4];
			uint32_t *in = rand_u32(&s, n), ref[64] = {0}, got[64],
				 zero[64] = {0};
			struct {
				uint64_t in;
				uint32_t n, pad;
				uint64_t bins;
			} p = {DATA, n, 0, DATA + 0x100000};
			struct shape sh;

			for (uint32_t i = 0; i < n; i++)
				ref[in[i] & 63]++;
			wr(&t, p.in, in, 4ull * n);
			wr(&t, p.bins, zero, sizeof(zero));
			lt_1d(&sh, n, bs, 256);
			lt_run(&t, va, &sh, &p, sizeof(p));
			rd(&t, p.bins, got, sizeof(got));
			for (int b = 0; b < 64; b++)
				assert_int_equal(got[b], ref[b]);
			test_free(in);
		}
	}
}

static void matmul(void **state)
{
	static const uint32_t dims[][3] = {
		{1, 1, 1}, {8, 8, 8}, {13, 29, 7}, {33, 17, 40}, {64, 48, 20},
	};
	uint64_t s = t_seed(0x3a3a);
	struct lt t;

	FOR_PROFILES(&t)
	{
		uint64_t va = lt_load(&t, matmul_src);

		for (size_t di = 0; di < 5; di++) {
			uint32_t m = dims[di][0], n = dims[di][1],
				 k = dims[di][2];
			uint32_t *a = rand_u32(&s, m * k),
				 *b = rand_u32(&s, k * n),
				 *c = test_malloc(4ull * m * n);
			struct {
				uint64_t a, b, c;
				uint32_t m, n, k;
			} p = {DATA, DATA + 0x100000, DATA + 0x200000, m, n, k};
			struct shape sh = {
				{(n + 7) / 8, (m + 7) / 8, 1}, {8, 8, 1}, 512};

			wr(&t, p.a, a, 4ull * m * k);
			wr(&t, p.b, b, 4ull * k * n);
			lt_run(&t, va, &sh, &p, sizeof(p));
			rd(&t, p.c, c, 4ull * m * n);
			for (uint32_t r = 0; r < m; r++) {
				for (uint32_t col = 0; col < n; col++) {
					uint32_t acc = 0;

					for (uint32_t i = 0; i < k; i++)
						acc += a[r * k + i] *
						       b[i * n + col];
					assert_int_equal(c[r * n + col], acc);
				}
			}
			test_free(a);
			test_free(b);
			test_free(c);
		}
	}
}

static uint32_t collatzish(uint32_t x)
{
	uint32_t v = x;

	for (uint32_t k = x & 31; k; k--)
		v = v * 3 + 1;
	return v;
}

static void divergent_loop(void **state)
{
	uint64_t s = t_seed(0xd1e1);
	struct lt t;

	FOR_PROFILES(&t)
	{
		uint64_t va = lt_load(&t, diverge_src);

		for (size_t si = 0; si < 5; si++) {
			uint32_t n = sizes[si], bs = blocks[(si + 3 * pi_) % 5];
			uint32_t *in = rand_u32(&s, n),
				 *out = test_malloc(4ull * n);
			struct {
				uint64_t in, out;
				uint32_t n;
			} p = {DATA, DATA + 0x100000, n};
			struct shape sh;

			wr(&t, p.in, in, 4ull * n);
			lt_1d(&sh, n, bs, 0);
			lt_run(&t, va, &sh, &p, sizeof(p));
			rd(&t, p.out, out, 4ull * n);
			for (uint32_t i = 0; i < n; i++) {
				uint32_t j = i ^ 1;
				uint32_t pv = j < n ? collatzish(in[j]) : 0;

				assert_int_equal(out[i],
						 collatzish(in[i]) + pv);
			}
			test_free(in);
			test_free(out);
		}
	}
}

/*
 * Every CTA of a 3-D grid runs exactly once with its own id, whatever
 * the SM workers' chunks of CTAs (docs/compute.md): each CTA's threads
 * add 1 to the CTA's counter and write its x | y << 8 | z << 16; grids
 * of 1..4 workers and shapes whose chunks end inside a row or a plane.
 */
static const char cta_ids_src[] = "  S2R R0, SR_CTAID.X\n"
				  "  S2R R1, SR_CTAID.Y\n"
				  "  S2R R2, SR_CTAID.Z\n"
				  "  IMAD R3, R2, c[0x0][0x10], R1\n"
				  "  IMAD R3, R3, c[0x0][0xc], R0\n"
				  "  SHF.L.U32 R4, R1, 0x8, RZ\n"
				  "  SHF.L.U32 R5, R2, 0x10, RZ\n"
				  "  LOP3.LUT R4, R4, R5, R0, 0xfe, !PT\n"
				  "  MOV R9, 0x4\n"
				  "  IMAD.WIDE.U32 R6, R3, R9, c[0x0][0x160]\n"
				  "  IMAD.WIDE.U32 R10, R3, R9, c[0x0][0x168]\n"
				  "  MOV R12, 0x1\n"
				  "  RED.E.ADD.STRONG.GPU [R6], R12\n"
				  "  STG.E [R10], R4\n"
				  "  EXIT\n";

static void every_cta_runs_once_on_any_worker_count(void **state)
{
	static const uint32_t grids[][3] = {
		{1, 1, 1}, {7, 5, 3}, {33, 2, 2}, {200, 3, 1}, {3, 1, 150},
	};
	struct lt t;

	(void)state;
	for (unsigned sms = 1; sms <= 4; sms++) {
		uint64_t va;

		lt_up(&t, profiles[sms - 1], sms);
		va = lt_load(&t, cta_ids_src);
		for (size_t gi = 0; gi < 5; gi++) {
			const uint32_t *g = grids[gi];
			uint32_t n = g[0] * g[1] * g[2];
			uint32_t *cnt = test_calloc(n, 4),
				 *ids = test_malloc(4ull * n);
			struct {
				uint64_t cnt, ids;
			} p = {DATA, DATA + 0x100000};
			struct shape sh = {{g[0], g[1], g[2]}, {64, 1, 1}, 0};
			uint32_t i = 0;

			wr(&t, p.cnt, cnt, 4ull * n);
			lt_run(&t, va, &sh, &p, sizeof(p));
			rd(&t, p.cnt, cnt, 4ull * n);
			rd(&t, p.ids, ids, 4ull * n);
			for (uint32_t z = 0; z < g[2]; z++)
				for (uint32_t y = 0; y < g[1]; y++)
					for (uint32_t x = 0; x < g[0];
					     x++, i++) {
						assert_int_equal(cnt[i], 64);
						assert_int_equal(
							ids[i],
							x | y << 8 | z << 16);
					}
			test_free(cnt);
			test_free(ids);
		}
		lt_down(&t);
	}
}

/* ---- errors ---- */

static void lt_new_chan(struct lt *t)
{
	nvl_kit_chan_fini(&t->g->kit, &t->ch);
	t->chid++;
	gpu_chan(t->g, t->chid,
		 NVL_HW_RUNLIST_COMPUTE(t->g->m->profile->num_ce), &t->ch);
}

/* launch @prog (1 CTA of 64 threads), expect the channel to stop with
 * CHRAM_ERROR @err and, for NVL_HW_CHERR_COMPUTE, ERR_DATA @data */
static void lt_expect_error(struct lt *t, uint64_t prog, uint32_t smem,
			    uint32_t major, uint32_t err, uint32_t data)
{
	struct shape sh = {{1, 1, 1}, {64, 1, 1}, smem};
	uint64_t p = DATA;

	lt_new_chan(t);
	lt_submit(t, prog, &sh, &p, sizeof(p), major);
	assert_int_equal(nvl_kit_wait_idle(&t->g->kit, &t->ch, GPU_WAIT), -EIO);
	assert_int_equal(nvl_hw_rd32(t->g->hw, NVL_HW_CHRAM_ERROR(t->chid)),
			 err);
	if (err == NVL_HW_CHERR_COMPUTE)
		assert_int_equal(
			nvl_hw_rd32(t->g->hw, NVL_HW_CHRAM_ERR_DATA(t->chid)),
			data);
	/* no release for a grid that failed */
	assert_int_not_equal(gpu_rd(t->g, SEM), t->seq);
}

static void errors_are_channel_errors_with_reason(void **state)
{
	struct lt t;

	FOR_PROFILES(&t)
	{
		uint64_t junk[2] = {~0ull, ~0ull}, va;
		struct nvl_isa_insn in;

		/* an undecodable word after a MOV: the engine fetches up to
		 * it and the SM executes it as an illegal instruction */
		assert_int_not_equal(nvl_isa_decode(junk, t.arch, &in), 0);
		va = lt_load(&t, "MOV R0, RZ\nEXIT\n");
		wr(&t, va + 16, junk, 16);
		lt_expect_error(&t, va, 0, t.q->major, NVL_HW_CHERR_COMPUTE,
				NVL_HW_COMPUTE_ERR_ILLEGAL_INSTRUCTION);
		/* a first word that does not decode */
		wr(&t, va, junk, 16);
		lt_expect_error(&t, va, 0, t.q->major, NVL_HW_CHERR_COMPUTE,
				NVL_HW_COMPUTE_ERR_ILLEGAL_INSTRUCTION);
		/* decodes but is outside what the SM runs */
		va = lt_load(&t, "I2F.F16 R0, R1\nEXIT\n");
		lt_expect_error(&t, va, 0, t.q->major, NVL_HW_CHERR_COMPUTE,
				NVL_HW_COMPUTE_ERR_ILLEGAL_INSTRUCTION);
		/* a 4-byte load from DATA + 2 */
		va = lt_load(&t, "MOV R2, 0x400002\nMOV R3, RZ\n"
				 "LDG.E R0, [R2]\nEXIT\n");
		lt_expect_error(&t, va, 0, t.q->major, NVL_HW_CHERR_COMPUTE,
				NVL_HW_COMPUTE_ERR_MISALIGNED);
		/* shared memory is 256 bytes: 0x100 is outside */
		va = lt_load(&t, "MOV R2, 0x100\nLDS R0, [R2]\nEXIT\n");
		lt_expect_error(&t, va, 256, t.q->major, NVL_HW_CHERR_COMPUTE,
				NVL_HW_COMPUTE_ERR_SHARED_OUT_OF_BOUNDS);
		/* a QMD of another version */
		va = lt_load(&t, "EXIT\n");
		lt_expect_error(&t, va, 0, t.q->major + 1, NVL_HW_CHERR_COMPUTE,
				NVL_HW_COMPUTE_ERR_BAD_QMD);
		/* and a good grid still runs on a new channel */
		lt_new_chan(&t);
		{
			struct shape sh = {{2, 1, 1}, {32, 1, 1}, 0};
			uint64_t p = 0;

			lt_run(&t, va, &sh, &p, sizeof(p));
		}
	}
}

/*
 * A grid with a zero dimension (CTA_RASTER_WIDTH/HEIGHT/DEPTH, V04_00's
 * GRID_WIDTH/HEIGHT/DEPTH = 0) is a bad QMD, as a zero block is: a channel
 * error, no release. Found by fuzz-pushbuf: the engine divided the grid's
 * CTAs among no workers (UBSan: division by zero in cs_run_grid()) and
 * then released the semaphore of a grid that never ran.
 */
static void a_grid_with_a_zero_dimension_is_a_bad_qmd(void **state)
{
	struct lt t;

	FOR_PROFILES(&t)
	{
		uint64_t va = lt_load(&t, "EXIT\n"), p = DATA;

		for (unsigned d = 0; d < 6; d++) {
			struct shape sh = {{2, 2, 2}, {8, 2, 2}, 0};

			if (d < 3)
				sh.grid[d] = 0;
			else
				sh.block[d - 3] = 0;
			lt_new_chan(&t);
			lt_submit(&t, va, &sh, &p, sizeof(p), t.q->major);
			assert_int_equal(
				nvl_kit_wait_idle(&t.g->kit, &t.ch, GPU_WAIT),
				-EIO);
			assert_int_equal(
				nvl_hw_rd32(t.g->hw,
					    NVL_HW_CHRAM_ERROR(t.chid)),
				NVL_HW_CHERR_COMPUTE);
			assert_int_equal(
				nvl_hw_rd32(t.g->hw,
					    NVL_HW_CHRAM_ERR_DATA(t.chid)),
				NVL_HW_COMPUTE_ERR_BAD_QMD);
			assert_int_not_equal(gpu_rd(t.g, SEM), t.seq);
		}
	}
}

static void fault_buffer_setup(struct gpu *g, unsigned entries)
{
	nvl_hw_wr32(g->hw, NVL_HW_FAULT_BUF_LO(0),
		    NVL_HW_FAULT_BUF_LO_PHYS(FBUF, NVL_HW_FAULT_APERTURE_VID));
	nvl_hw_wr32(g->hw, NVL_HW_FAULT_BUF_HI(0), 0);
	nvl_hw_wr32(g->hw, NVL_HW_FAULT_BUF_SIZE(0),
		    entries | NVL_HW_FAULT_BUF_SIZE_ENABLE);
}

static void unmapped_store_is_an_mmu_fault_of_the_compute_engine(void **state)
{
	static const char src[] = "  S2R R0, SR_TID.X\n"
				  "  SHF.L.U32 R2, R0, 0x2, RZ\n"
				  "  MOV R3, c[0x0][0x164]\n"
				  "  STG.E [R2], R0\n"
				  "  EXIT\n";
	struct lt t;

	FOR_PROFILES(&t)
	{
		struct shape sh = {{4, 1, 1}, {64, 1, 1}, 0};
		uint64_t va = lt_load(&t, src), p = HOLE;
		uint32_t e[8];

		fault_buffer_setup(t.g, 16);
		lt_submit(&t, va, &sh, &p, sizeof(p), t.q->major);
		assert_int_equal(nvl_kit_wait_idle(&t.g->kit, &t.ch, GPU_WAIT),
				 -EIO);
		assert_int_equal(
			nvl_hw_rd32(t.g->hw, NVL_HW_CHRAM_ERROR(t.chid)),
			NVL_HW_CHERR_MMU_FAULT);
		assert_true(nvl_hw_rd32(t.g->hw, NVL_HW_CHRAM_CTRL(t.chid)) &
			    NVL_HW_CHRAM_CTRL_ENG_FAULTED);
		/* one entry: the grid stops at its first fault */
		assert_int_equal(nvl_hw_rd32(t.g->hw, NVL_HW_FAULT_BUF_PUT(0)),
				 1);
		rd(&t, FBUF, e, sizeof(e));
		assert_true(e[NVL_HW_FAULT_ENTRY_INFO] &
			    NVL_HW_FAULT_INFO_VALID);
		assert_int_equal(e[NVL_HW_FAULT_ENTRY_ENGINE],
				 t.g->m->eng->graphics);
		assert_int_equal(e[NVL_HW_FAULT_ENTRY_INST_LO] & 0xfffff000u,
				 (uint32_t)t.ch.inst);
		assert_int_equal(e[NVL_HW_FAULT_ENTRY_ADDR_HI],
				 (uint32_t)(HOLE >> 32));
		assert_int_not_equal(gpu_rd(t.g, SEM), t.seq);
	}
}

static void pcas_method_of_the_other_generation_is_a_method_error(void **state)
{
	struct lt t;

	FOR_PROFILES(&t)
	{
		uint32_t p[8], n = 0, m;

		m = nvl_hw_compute_has_pcas2(t.cls)
			    ? NVL_HW_COMPUTE_SEND_SIGNALING_PCAS_B
			    : NVL_HW_COMPUTE_SEND_SIGNALING_PCAS2_B;
		p[n++] = NVL_HW_MTHD_INC(SUBCH, NVL_HW_SET_OBJECT, 1);
		p[n++] = t.cls;
		p[n++] = NVL_HW_MTHD_IMMD(SUBCH, m, 2);
		gpu_push(&t.ch, p, n);
		assert_int_equal(nvl_kit_kick(&t.g->kit, &t.ch), 0);
		assert_int_equal(nvl_kit_wait_idle(&t.g->kit, &t.ch, GPU_WAIT),
				 -EIO);
		assert_int_equal(
			nvl_hw_rd32(t.g->hw, NVL_HW_CHRAM_ERROR(t.chid)),
			NVL_HW_CHERR_METHOD);
		assert_int_equal(
			nvl_hw_rd32(t.g->hw, NVL_HW_CHRAM_ERR_METHOD(t.chid)),
			m);
	}
}

/*
 * Every allocation of a launch (the QMD's constant buffers, the program,
 * the workers, the interpreter's) fails in turn: the channel stops with
 * CHERR_COMPUTE NO_MEMORY and no release; then the launch succeeds.
 */
static void allocation_failures_stop_the_channel(void **state)
{
	struct lt t;

	lt_up(&t, "ga102", 2);
	{
		uint64_t va = lt_load(&t, reduce_src);
		uint32_t in[100], got, zero = 0, sum = 0;
		struct {
			uint64_t in;
			uint32_t n, pad;
			uint64_t total;
		} p = {DATA, 100, 0, DATA + 0x100000};
		struct shape sh;
		unsigned long nth;

		for (uint32_t i = 0; i < 100; i++)
			sum += in[i] = i * 7 + 1;
		wr(&t, p.in, in, sizeof(in));
		lt_1d(&sh, 100, 64, 256);
		for (nth = 1; nth < 64; nth++) {
			int ret;

			lt_new_chan(&t);
			wr(&t, p.total, &zero, 4);
			/* the launch keeps its buffers and threads from grid
			 * to grid: dropped, so that it allocates them all */
			nvl_cs_cache_clear();
			t.fail_nth = nth;
			lt_submit(&t, va, &sh, &p, sizeof(p), t.q->major);
			t.fail_nth = 0;
			/* idle (0) or stopped on an error (-EIO) */
			ret = nvl_kit_wait_idle(&t.g->kit, &t.ch, GPU_WAIT);
			if (!ret && !nvl_fault_hits()) {
				nvl_fault_off();
				assert_int_equal(gpu_rd(t.g, SEM), t.seq);
				break; /* the launch made fewer allocations */
			}
			nvl_fault_off();
			assert_int_equal(ret, -EIO);
			assert_int_equal(
				nvl_hw_rd32(t.g->hw,
					    NVL_HW_CHRAM_ERROR(t.chid)),
				NVL_HW_CHERR_COMPUTE);
			assert_int_equal(
				nvl_hw_rd32(t.g->hw,
					    NVL_HW_CHRAM_ERR_DATA(t.chid)),
				NVL_HW_COMPUTE_ERR_NO_MEMORY);
		}
		assert_true(nth > 3 && nth < 64);
		rd(&t, p.total, &got, 4);
		assert_int_equal(got, sum);
	}
	lt_down(&t);
}

static atomic_ulong allocs_seen;

static void count_alloc(size_t size_B)
{
	(void)size_B;
	atomic_fetch_add(&allocs_seen, 1);
}

/*
 * Once a launch has run, the same launch again allocates nothing (its
 * buffers, the program's words and decoding, the SM worker threads are
 * kept): over one SM, none at all; over four, at most what each worker
 * thread allocates the first time it takes a part of a grid (its
 * interpreter buffers: which thread takes which part varies), never per
 * launch.
 */
static void a_repeated_launch_allocates_nothing(void **state)
{
	struct lt t;

	for (unsigned sms = 1; sms <= 4; sms += 3) {
		lt_up(&t, "ga102", sms);
		{
			uint64_t va = lt_load(&t, reduce_src);
			uint32_t in[1000], got, zero = 0, sum = 0;
			struct {
				uint64_t in;
				uint32_t n, pad;
				uint64_t total;
			} p = {DATA, 1000, 0, DATA + 0x100000};
			struct shape sh;
			unsigned long n;

			for (uint32_t i = 0; i < 1000; i++)
				sum += in[i] = i * 3 + 5;
			wr(&t, p.in, in, sizeof(in));
			lt_1d(&sh, 1000, 64, 256);
			for (int k = 0; k < 12; k++) {
				if (k == 2) {
					atomic_store(&allocs_seen, 0);
					nvl_alloc_set_observer(count_alloc);
				}
				wr(&t, p.total, &zero, 4);
				lt_run(&t, va, &sh, &p, sizeof(p));
				rd(&t, p.total, &got, 4);
				assert_int_equal(got, sum);
			}
			nvl_alloc_set_observer(NULL);
			n = atomic_load(&allocs_seen);
			if (sms == 1)
				assert_int_equal(n, 0);
			else
				assert_true(n <= 5 * (sms - 1));
		}
		lt_down(&t);
	}
}

/* a program rewritten at the same address runs its new words: the engine
 * fetches it without decoding only while its words are the same */
static void a_program_rewritten_in_place_runs_anew(void **state)
{
	static const char *const srcs[] = {
		"MOV R2, c[0x0][0x160]\nMOV R3, c[0x0][0x164]\n"
		"MOV R0, 0x1\nSTG.E [R2], R0\nEXIT\n",
		/* the same length, another value */
		"MOV R2, c[0x0][0x160]\nMOV R3, c[0x0][0x164]\n"
		"MOV R0, 0x2\nSTG.E [R2], R0\nEXIT\n",
		/* the same first four words, longer: the EXIT is gone */
		"MOV R2, c[0x0][0x160]\nMOV R3, c[0x0][0x164]\n"
		"MOV R0, 0x2\nSTG.E [R2], R0\nIADD3 R0, R0, 0x1, RZ\n"
		"STG.E [R2+0x4], R0\nEXIT\n",
		/* back to the first */
		"MOV R2, c[0x0][0x160]\nMOV R3, c[0x0][0x164]\n"
		"MOV R0, 0x1\nSTG.E [R2], R0\nEXIT\n",
	};
	static const uint32_t want[][2] = {{1, 0}, {2, 0}, {2, 3}, {1, 0}};
	struct lt t;

	FOR_PROFILES(&t)
	{
		struct shape sh = {{1, 1, 1}, {32, 1, 1}, 0};
		uint64_t va = 0, p = DATA;

		for (unsigned i = 0; i < 4; i++) {
			uint32_t out[2] = {0, 0};

			wr(&t, DATA, out, sizeof(out));
			t.code_next = CODE;
			va = lt_load(&t, srcs[i]);
			assert_int_equal(va, CODE);
			/* twice: fetched, then fetched from the same words */
			for (int k = 0; k < 2; k++) {
				lt_run(&t, va, &sh, &p, sizeof(p));
				rd(&t, DATA, out, sizeof(out));
				assert_int_equal(out[0], want[i][0]);
				assert_int_equal(out[1], want[i][1]);
			}
		}
	}
}

/* launch the QMD at QMD again (rewritten or not) and wait for @payload */
static void lt_again(struct lt *t, uint32_t payload)
{
	uint32_t zero = 0;

	wr(t, SEM, &zero, 4);
	lt_push(t);
	if (nvl_kit_wait_u32(&t->g->kit, SEM, payload, GPU_WAIT))
		fail_msg("no release %u (CHRAM_ERROR %u)", payload,
			 nvl_hw_rd32(t->g->hw, NVL_HW_CHRAM_ERROR(t->chid)));
}

/* the CTAs of cta_ids_src that ran (64 threads each), as a bitmask */
static uint32_t ctas_ran(struct lt *t)
{
	uint32_t cnt[8], ran = 0, zero[8] = {0};

	rd(t, DATA, cnt, sizeof(cnt));
	wr(t, DATA, zero, sizeof(zero));
	for (unsigned i = 0; i < 8; i++) {
		if (cnt[i])
			assert_int_equal(cnt[i], 64);
		ran |= (cnt[i] ? 1u : 0u) << i;
	}
	return ran;
}

/*
 * The engine keeps the fields of the last QMD it decoded and reuses them
 * when the QMD's words are the same: a QMD launched again unchanged runs
 * the same grid, and one rewritten in place (grid, release payload,
 * constant-buffer size, version) is decoded anew.
 */
static void a_qmd_launched_again_is_read_again(void **state)
{
	struct lt t;

	FOR_PROFILES(&t)
	{
		struct {
			uint64_t cnt, ids;
		} p = {DATA, DATA + 0x1000};
		struct shape sh = {{3, 1, 1}, {64, 1, 1}, 0};
		uint64_t va = lt_load(&t, cta_ids_src);
		const struct qpos *qp = t.q;
		uint32_t q[96];

		ctas_ran(&t);
		lt_run(&t, va, &sh, &p, sizeof(p));
		assert_int_equal(ctas_ran(&t), 0x7);
		/* the same words: the same grid, the same release */
		lt_again(&t, t.seq);
		assert_int_equal(ctas_ran(&t), 0x7);
		/* rewritten in place: five CTAs, another payload */
		rd(&t, QMD, q, qp->size_B);
		qset(q, qp->grid[0], 5, 0);
		qset(q, qp->rel_payload, t.seq + 100, 0);
		wr(&t, QMD, q, qp->size_B);
		lt_again(&t, t.seq + 100);
		assert_int_equal(ctas_ran(&t), 0x1f);
		lt_again(&t, t.seq + 100);
		assert_int_equal(ctas_ran(&t), 0x1f);
		/* a constant buffer of size 0, twice: a bad QMD both times */
		qset(q, qp->cb_size, 0, 0);
		wr(&t, QMD, q, qp->size_B);
		for (int k = 0; k < 2; k++) {
			lt_new_chan(&t);
			lt_push(&t);
			assert_int_equal(
				nvl_kit_wait_idle(&t.g->kit, &t.ch, GPU_WAIT),
				-EIO);
			assert_int_equal(
				nvl_hw_rd32(t.g->hw,
					    NVL_HW_CHRAM_ERR_DATA(t.chid)),
				NVL_HW_COMPUTE_ERR_BAD_QMD);
			assert_int_equal(ctas_ran(&t), 0);
		}
		/* and back to a good one */
		qset(q, qp->cb_size, CB0_B >> 4, 0);
		qset(q, qp->grid[0], 2, 0);
		wr(&t, QMD, q, qp->size_B);
		lt_new_chan(&t);
		lt_again(&t, t.seq + 100);
		assert_int_equal(ctas_ran(&t), 0x3);
	}
}

/* nvl_hw_qmd_get/set (word by word) against a bit-by-bit reference, for
 * every position and width of a field in a 384-byte QMD */
static void qmd_fields_match_a_bitwise_reference(void **state)
{
	uint64_t s = t_seed(0x9d);

	for (unsigned width = 1; width <= 64; width++) {
		for (unsigned lo = 0; lo + width <= 96 * 32; lo += 7) {
			struct nvl_hw_qmd_field f = {(uint16_t)lo,
						     (uint16_t)width};
			uint32_t q[96], r[96];
			uint64_t v = t_rand(&s), want = 0;

			for (unsigned i = 0; i < 96; i++)
				q[i] = r[i] = (uint32_t)t_rand(&s);
			for (unsigned i = 0; i < width; i++)
				want |= (uint64_t)(q[(lo + i) / 32] >>
							   ((lo + i) % 32) &
						   1)
					<< i;
			assert_true(nvl_hw_qmd_get(q, f) == want);
			nvl_hw_qmd_set(q, f, v);
			for (unsigned i = 0; i < width; i++) {
				unsigned b = lo + i;

				r[b / 32] &= ~(1u << (b % 32));
				r[b / 32] |= (uint32_t)(v >> i & 1) << (b % 32);
			}
			assert_memory_equal(q, r, sizeof(q));
		}
	}
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(vector_add),
	cmocka_unit_test(saxpy),
	cmocka_unit_test(reduction),
	cmocka_unit_test(prefix_sum),
	cmocka_unit_test(histogram),
	cmocka_unit_test(matmul),
	cmocka_unit_test(divergent_loop),
	cmocka_unit_test(every_cta_runs_once_on_any_worker_count),
	cmocka_unit_test(errors_are_channel_errors_with_reason),
	cmocka_unit_test(a_grid_with_a_zero_dimension_is_a_bad_qmd),
	cmocka_unit_test(unmapped_store_is_an_mmu_fault_of_the_compute_engine),
	cmocka_unit_test(pcas_method_of_the_other_generation_is_a_method_error),
	cmocka_unit_test(allocation_failures_stop_the_channel),
	cmocka_unit_test(a_repeated_launch_allocates_nothing),
	cmocka_unit_test(a_program_rewritten_in_place_runs_anew),
	cmocka_unit_test(a_qmd_launched_again_is_read_again),
	cmocka_unit_test(qmd_fields_match_a_bitwise_reference),
};

T_MAIN(tests)

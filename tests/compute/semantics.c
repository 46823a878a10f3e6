// SPDX-License-Identifier: MIT
/*
 * TEST: compute_semantics
 * Description: one instruction at a time through the SM interpreter: each
 * case loads per-lane inputs a, b, c from global memory into R2, R3, R4,
 * runs its instructions, stores R5, and compares every lane with a C
 * reference (integer and float ALU, compares and selects, conversions,
 * shuffles, votes, shared-memory atomics), on partial warps too.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "t.h"
#include "base/log.h"
#include "hw/isa/isa.h"
#include "model/compute/sm.h"

#define VA 0x200000000ull
#define N 64

struct io {
	uint32_t a[N], b[N], c[N], d[N];
};

static void *translate(void *ctx, uint64_t va, uint32_t size, bool write)
{
	struct io *io = ctx;

	if (va < VA || va + size > VA + sizeof(*io))
		return NULL;
	return (uint8_t *)io + (va - VA);
}

static float f(uint32_t x)
{
	float v;

	memcpy(&v, &x, 4);
	return v;
}

static uint32_t u(float v)
{
	uint32_t x;

	memcpy(&x, &v, 4);
	return x;
}

/* the lane's warp-relative view: @l lane index, @base first thread */
typedef uint32_t (*ref_fn)(const struct io *io, uint32_t t, uint32_t nthr);

static uint32_t r_sub(const struct io *io, uint32_t t, uint32_t n)
{
	return io->a[t] - io->b[t] + io->c[t];
}

static uint32_t r_hiu(const struct io *io, uint32_t t, uint32_t n)
{
	return (uint32_t)(((uint64_t)io->a[t] * io->b[t]) >> 32) + io->c[t];
}

static uint32_t r_his(const struct io *io, uint32_t t, uint32_t n)
{
	int64_t p = (int64_t)(int32_t)io->a[t] * (int32_t)io->b[t];

	return (uint32_t)((uint64_t)p >> 32) + io->c[t];
}

static uint32_t r_lea(const struct io *io, uint32_t t, uint32_t n)
{
	return (io->a[t] << 3) + io->b[t];
}

static uint32_t r_leahi(const struct io *io, uint32_t t, uint32_t n)
{
	uint64_t v = (uint64_t)io->c[t] << 32 | io->a[t];

	return (uint32_t)((v << 3) >> 32) + io->b[t];
}

static uint32_t r_shl(const struct io *io, uint32_t t, uint32_t n)
{
	uint32_t s = io->b[t] & 63;

	return s >= 32 ? 0 : io->a[t] << s;
}

static uint32_t r_sar(const struct io *io, uint32_t t, uint32_t n)
{
	uint32_t s = io->b[t] & 63;

	return (uint32_t)((int32_t)io->a[t] >> (s >= 32 ? 31 : s));
}

static uint32_t r_xor3(const struct io *io, uint32_t t, uint32_t n)
{
	return io->a[t] ^ io->b[t] ^ io->c[t];
}

static uint32_t r_popc(const struct io *io, uint32_t t, uint32_t n)
{
	return (uint32_t)__builtin_popcount(io->a[t]);
}

static uint32_t r_brev(const struct io *io, uint32_t t, uint32_t n)
{
	uint32_t r = 0;

	for (int k = 0; k < 32; k++)
		r |= ((io->a[t] >> k) & 1) << (31 - k);
	return r;
}

static uint32_t r_flo(const struct io *io, uint32_t t, uint32_t n)
{
	return io->a[t] ? 31u - (uint32_t)__builtin_clz(io->a[t]) : ~0u;
}

static uint32_t r_minu(const struct io *io, uint32_t t, uint32_t n)
{
	return io->a[t] < io->b[t] ? io->a[t] : io->b[t];
}

static uint32_t r_maxs(const struct io *io, uint32_t t, uint32_t n)
{
	return (int32_t)io->a[t] > (int32_t)io->b[t] ? io->a[t] : io->b[t];
}

static uint32_t lane_src(const struct io *io, uint32_t t, uint32_t n, int j)
{
	uint32_t w0 = t & ~31u;

	/* out of range: the lane's own value; a lane past the block has
	 * registers that were never loaded, the interpreter's zero */
	if (j < 0 || j > 31)
		return io->a[t];
	return w0 + (uint32_t)j >= n ? 0 : io->a[w0 + (uint32_t)j];
}

static uint32_t r_bfly(const struct io *io, uint32_t t, uint32_t n)
{
	return lane_src(io, t, n, (int)((t & 31) ^ 3));
}

static uint32_t r_down(const struct io *io, uint32_t t, uint32_t n)
{
	int j = (int)(t & 31) + 1;

	return j <= 31 ? lane_src(io, t, n, j) : io->a[t];
}

static uint32_t r_up(const struct io *io, uint32_t t, uint32_t n)
{
	int j = (int)(t & 31) - 2;

	return j >= 0 ? lane_src(io, t, n, j) : io->a[t];
}

static uint32_t r_idx(const struct io *io, uint32_t t, uint32_t n)
{
	return lane_src(io, t, n, (int)(io->b[t] & 31));
}

static uint32_t r_ballot(const struct io *io, uint32_t t, uint32_t n)
{
	uint32_t w0 = t & ~31u, m = 0;

	for (uint32_t k = 0; k < 32 && w0 + k < n; k++)
		m |= (uint32_t)(io->a[w0 + k] < io->b[w0 + k]) << k;
	return m;
}

static uint32_t r_i2fu(const struct io *io, uint32_t t, uint32_t n)
{
	return u((float)io->a[t]);
}

static uint32_t r_i2fs(const struct io *io, uint32_t t, uint32_t n)
{
	return u((float)(int32_t)io->a[t]);
}

static uint32_t r_f2i(const struct io *io, uint32_t t, uint32_t n)
{
	return (uint32_t)(int32_t)truncf(f(io->a[t]));
}

static uint32_t r_ffma(const struct io *io, uint32_t t, uint32_t n)
{
	return u(fmaf(f(io->a[t]), f(io->b[t]), f(io->c[t])));
}

static uint32_t r_fmin(const struct io *io, uint32_t t, uint32_t n)
{
	return u(fminf(f(io->a[t]), f(io->b[t])));
}

static uint32_t r_fgtsel(const struct io *io, uint32_t t, uint32_t n)
{
	return f(io->a[t]) > f(io->b[t]) ? io->a[t] : io->b[t];
}

static uint32_t r_rcp(const struct io *io, uint32_t t, uint32_t n)
{
	return u(1.0f / f(io->a[t]));
}

static uint32_t r_fneg(const struct io *io, uint32_t t, uint32_t n)
{
	return u(-fabsf(f(io->a[t])) + f(io->b[t]));
}

static uint32_t r_atoms(const struct io *io, uint32_t t, uint32_t n)
{
	uint32_t s = 0;

	/* every thread of the CTA adds its a to one shared word */
	for (uint32_t k = 0; k < n; k++)
		s += io->a[k];
	return s;
}

struct sem_case {
	const char *insn;
	ref_fn ref;
	bool fp; /* inputs are floats */
};

static const struct sem_case cases[] = {
	{"IADD3 R5, R2, -R3, R4", r_sub},
	{"IMAD.HI.U32 R5, R2, R3, R4", r_hiu},
	{"IMAD.HI R5, R2, R3, R4", r_his},
	{"LEA R5, R2, R3, RZ, 0x3", r_lea},
	{"LEA.HI R5, R2, R3, R4, 0x3", r_leahi},
	{"LOP3.LUT R8, R3, 0x3f, RZ, 0xc0, !PT\n"
	 "SHF.L.U32 R5, R2, R8, RZ",
	 r_shl},
	{"LOP3.LUT R8, R3, 0x3f, RZ, 0xc0, !PT\n"
	 "SHF.R.S32.HI R5, RZ, R8, R2",
	 r_sar},
	{"LOP3.LUT R5, R2, R3, R4, 0x96, !PT", r_xor3},
	{"POPC R5, R2", r_popc},
	{"BREV R5, R2", r_brev},
	{"FLO.U32 R5, R2", r_flo},
	{"IMNMX.U32 R5, R2, R3, PT", r_minu},
	{"IMNMX R5, R2, R3, !PT", r_maxs},
	{"ISETP.LT.U32.AND P0, PT, R2, R3, PT\nSEL R5, R2, R3, P0", r_minu},
	{"SHFL.BFLY PT, R5, R2, 0x3, 0x1f", r_bfly},
	{"SHFL.DOWN PT, R5, R2, 0x1, 0x1f", r_down},
	{"SHFL.UP PT, R5, R2, 0x2, 0x0", r_up},
	{"SHFL.IDX PT, R5, R2, R3, 0x1f", r_idx},
	{"ISETP.LT.U32.AND P0, PT, R2, R3, PT\nVOTE.ANY R5, P1, P0", r_ballot},
	{"I2F.U32 R5, R2", r_i2fu},
	{"I2F R5, R2", r_i2fs},
	{"F2I.TRUNC R5, R2", r_f2i, true},
	{"FFMA R5, R2, R3, R4", r_ffma, true},
	{"FMNMX R5, R2, R3, PT", r_fmin, true},
	{"FSETP.GT.AND P2, PT, R2, R3, PT\nSEL R5, R2, R3, P2", r_fgtsel, true},
	{"MUFU.RCP R5, R2", r_rcp, true},
	{"FADD R5, -|R2|, R3", r_fneg, true},
	{"S2R R10, SR_LANEID\n"
	 "ISETP.NE.U32.AND P3, PT, R10, RZ, PT\n"
	 "@!P3 STS [RZ], RZ\n"
	 "BAR.SYNC 0x0\n"
	 "ATOMS.ADD R11, [RZ], R2\n"
	 "BAR.SYNC 0x0\n"
	 "LDS R5, [RZ]",
	 r_atoms},
};

static void run_case(const struct sem_case *sc, enum nvl_isa_arch arch,
		     uint32_t nthr, uint64_t *seed)
{
	static struct io io;
	char src[1024];
	uint32_t c0[0x200 / 4] = {nthr, 1, 1};
	uint64_t *code;
	size_t n;
	struct nvl_isa_asm_error err;
	struct nvl_cs_fault fault;
	uint64_t p[4] = {VA, VA + 4 * N, VA + 8 * N, VA + 12 * N};

	snprintf(src, sizeof(src),
		 "S2R R0, SR_TID.X\n"
		 "MOV R9, 0x4\n"
		 "IMAD.WIDE.U32 R6, R0, R9, c[0x0][0x160]\n"
		 "LDG.E R2, [R6]\n"
		 "IMAD.WIDE.U32 R6, R0, R9, c[0x0][0x168]\n"
		 "LDG.E R3, [R6]\n"
		 "IMAD.WIDE.U32 R6, R0, R9, c[0x0][0x170]\n"
		 "LDG.E R4, [R6]\n"
		 "MOV R5, RZ\n"
		 "%s\n"
		 "IMAD.WIDE.U32 R6, R0, R9, c[0x0][0x178]\n"
		 "STG.E [R6], R5\n"
		 "EXIT\n",
		 sc->insn);
	if (nvl_isa_assemble(src, arch, 0, &code, &n, &err))
		fail_msg("'%s': %u:%u %s", sc->insn, err.line, err.col,
			 err.msg);
	for (int i = 0; i < N; i++) {
		if (sc->fp) {
			io.a[i] = u(
				(float)((int)(t_rand(seed) % 200001) - 100000) /
				64.0f);
			io.b[i] = u((float)((int)(t_rand(seed) % 2001) - 1000) /
				    8.0f);
			io.c[i] = u((float)(t_rand(seed) % 1000) / 4.0f);
		} else {
			io.a[i] = (uint32_t)t_rand(seed);
			io.b[i] = (uint32_t)t_rand(seed);
			io.c[i] = (uint32_t)t_rand(seed);
		}
		io.d[i] = 0xdeadbeef;
	}
	memcpy((uint8_t *)c0 + 0x160, p, sizeof(p));
	struct nvl_cs_launch l = {
		.arch = arch,
		.code = code,
		.ninsn = (uint32_t)n,
		.grid = {1, 1, 1},
		.block = {nthr, 1, 1},
		.shared_B = 16,
		.cbuf = {c0},
		.cbuf_B = {sizeof(c0)},
		.translate = translate,
		.mem_ctx = &io,
	};
	if (nvl_cs_run(&l, &fault, NULL))
		fail_msg("'%s': %s", sc->insn, nvl_error_msg());
	for (uint32_t t = 0; t < N; t++) {
		uint32_t want = t < nthr ? sc->ref(&io, t, nthr) : 0xdeadbeef;

		if (io.d[t] != want)
			fail_msg("'%s' (%u threads) thread %u: a 0x%x b 0x%x "
				 "c 0x%x -> 0x%x, want 0x%x",
				 sc->insn, nthr, t, io.a[t], io.b[t], io.c[t],
				 io.d[t], want);
	}
	nvl_free(code);
}

static void instructions_match_c(void **state)
{
	uint64_t s = t_seed(0x5e3a);
	static const uint32_t nthr[] = {64, 45, 32, 7};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (size_t k = 0; k < 4; k++)
			run_case(&cases[i],
				 (enum nvl_isa_arch)((i + k) %
						     NVL_ISA_ARCH_COUNT),
				 nthr[k], &s);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(instructions_match_c),
};

T_MAIN(tests)

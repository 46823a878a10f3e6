// SPDX-License-Identifier: MIT
/*
 * TEST: compute_fastpath
 * Description: the interpreter's pre-decoded fast path against its generic
 * path (nvl_cs_launch.generic_only). Random programs of the forms that have
 * fast handlers (MOV, IADD3, IMAD, LOP3 with any LUT, SEL, SHF by immediates
 * including the clamped and wrapped amounts, ISETP with every compare and
 * combine, FFMA, FADD, S2R of thread, CTA and lane ids, IMAD.WIDE with a
 * register-pair, constant or immediate addend, constant-bank sources),
 * mixed with forms that do not (negated sources, carries, predicate
 * results; these and the loads and stores run through the generic
 * executor inside the fast loop), under random guards, with EXITs of some
 * lanes and branches taken by all, none or some lanes, run both ways on
 * every profile and on partial warps:
 * every register, predicate and counter must match. An instruction budget
 * that ends inside a run of fast instructions must stop both at the same
 * instruction. The decoded-program cache is keyed by the program's words:
 * rewritten code is decoded again, and every allocation of a cache miss can
 * fail cleanly.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "t.h"
#include "base/alloc.h"
#include "base/log.h"
#include "hw/isa/isa.h"
#include "model/compute/sm.h"

#define VA 0x300000000ull
#define NT 64 /* threads at most */
#define NW 16 /* words per thread */

struct mem {
	uint32_t in[NT][NW];
	uint32_t out[NT][NW];
};

static void *translate(void *ctx, uint64_t va, uint32_t size, bool write)
{
	struct mem *m = ctx;

	if (va < VA || va + size > VA + sizeof(*m))
		return NULL;
	return (uint8_t *)m + (va - VA);
}

/*
 * Whole "pages" of @ctx for the interpreter's TLB (nvl_cs_launch.map):
 * map_page bytes each, the last one cut at the end of the buffer; 0 = no
 * map callback (every access through translate). Writes are refused in
 * the first ro_B bytes of out[], so stores there go through translate.
 */
static uint64_t map_page = 4096, ro_B;
static unsigned map_rd, map_wr; /* ranges handed out */

static void *map(void *ctx, uint64_t va, bool write, uint64_t *base,
		 uint64_t *len)
{
	struct mem *m = ctx;
	uint64_t b, end = VA + sizeof(*m), out = VA + sizeof(m->in);

	if (va < VA || va >= end || (write && va >= out && va < out + ro_B))
		return NULL;
	b = VA + ((va - VA) & ~(map_page - 1));
	if (write && b < out + ro_B)
		b = out + ro_B; /* the writable part of the page */
	*base = b;
	*(write ? &map_wr : &map_rd) += 1;
	*len = (b & ~(map_page - 1)) + map_page - b;
	if (b + *len > end)
		*len = end - b;
	return (uint8_t *)m + (b - VA);
}

static const char *const cmp[] = {"LT", "EQ", "LE", "GT", "NE", "GE"};
static const char *const bop[] = {"AND", "OR", "XOR"};
static const char *const shf[] = {
	"SHF.L.U32",	"SHF.L.U64.HI",	 "SHF.R.U32",	"SHF.R.S32.HI",
	"SHF.R.U64",	"SHF.R.S64",	 "SHF.L.W.U32", "SHF.R.U32.HI",
	"SHF.L.U32.HI", "SHF.R.W.U32.HI"};

/* a data register R2-R9 */
static unsigned reg(uint64_t *s)
{
	return 2 + (unsigned)(t_rand(s) % 8);
}

/* an optional guard "@P1 ", "@!P3 " or "" */
static void guard(char *g, size_t n, uint64_t *s)
{
	unsigned p = (unsigned)(t_rand(s) % 6);

	if (p >= 4)
		snprintf(g, n, "%s", "");
	else
		snprintf(g, n, "@%sP%u ", t_rand(s) & 1 ? "!" : "", p);
}

/* one random instruction (or a short block) appended to @p */
static void random_insn(char *p, size_t n, uint64_t *s, unsigned *label)
{
	char g[8], *e = p + strlen(p);
	size_t left = n - strlen(p);
	unsigned d = reg(s), a = reg(s), b = reg(s), c = reg(s);
	uint32_t imm = (uint32_t)t_rand(s) & 0xfffff;

	uint32_t cb = 0x170 + 8 * (uint32_t)(t_rand(s) % 18); /* c[0] word */

	guard(g, sizeof(g), s);
	switch (t_rand(s) % 22) {
	case 0:
		snprintf(e, left, "%sMOV R%u, R%u\n", g, d, b);
		break;
	case 1:
		snprintf(e, left, "%sMOV R%u, 0x%x\n", g, d, imm);
		break;
	case 2:
		snprintf(e, left, "%sIADD3 R%u, R%u, R%u, R%u\n", g, d, a, b,
			 c);
		break;
	case 3:
		snprintf(e, left, "%sIADD3 R%u, R%u, -0x%x, RZ\n", g, d, a,
			 imm);
		break;
	case 4: /* generic: negated source */
		snprintf(e, left, "%sIADD3 R%u, R%u, -R%u, R%u\n", g, d, a, b,
			 c);
		break;
	case 5:
		snprintf(e, left, "%sIMAD R%u, R%u, R%u, R%u\n", g, d, a, b, c);
		break;
	case 6:
		snprintf(e, left, "%sIMAD R%u, R%u, 0x%x, R%u\n", g, d, a, imm,
			 c);
		break;
	case 7: {
		static const unsigned luts[] = {0x3c, 0xc0, 0xfc, 0x96};
		unsigned lut = t_rand(s) & 1 ? luts[t_rand(s) % 4]
					     : (unsigned)(t_rand(s) & 0xff);

		snprintf(e, left, "%sLOP3.LUT R%u, R%u, R%u, R%u, 0x%x, !PT\n",
			 g, d, a, b, c, lut);
		break;
	}
	case 8: /* generic: LOP3 with a predicate result */
		snprintf(e, left,
			 "%sLOP3.LUT R%u, P%u, R%u, R%u, R%u, 0x%x, !PT\n", g,
			 d, (unsigned)(t_rand(s) % 4), a, b, c,
			 (unsigned)(t_rand(s) & 0xff));
		break;
	case 9:
		snprintf(e, left, "%sSEL R%u, R%u, R%u, %sP%u\n", g, d, a, b,
			 t_rand(s) & 1 ? "!" : "", (unsigned)(t_rand(s) % 4));
		break;
	case 10: {
		static const unsigned amt[] = {0,  1,  3,  31, 32,
					       33, 63, 64, 65, 100};

		snprintf(e, left, "%s%s R%u, R%u, 0x%x, R%u\n", g,
			 shf[t_rand(s) % 10], d, a, amt[t_rand(s) % 10], c);
		break;
	}
	case 11:
		snprintf(e, left, "%sISETP.%s%s.%s P%u, %s, R%u, R%u, %sP%u\n",
			 g, cmp[t_rand(s) % 6], t_rand(s) & 1 ? ".U32" : "",
			 bop[t_rand(s) % 3], (unsigned)(t_rand(s) % 4),
			 t_rand(s) & 1 ? "P5" : "PT", a, b,
			 t_rand(s) & 1 ? "!" : "", (unsigned)(t_rand(s) % 4));
		break;
	case 12:
		snprintf(e, left, "%sFFMA R%u, R%u, R%u, R%u\n", g, d, a, b, c);
		break;
	case 13: /* generic: carry out and in */
		snprintf(e, left,
			 "%sIADD3 R%u, P5, R%u, R%u, RZ\n"
			 "IADD3.X R%u, R%u, R%u, RZ, P5, !PT\n",
			 g, d, a, b, c, a, b);
		break;
	case 15: {
		static const char *const sr[] = {"SR_TID.X",   "SR_TID.Y",
						 "SR_TID.Z",   "SR_CTAID.X",
						 "SR_CTAID.Y", "SR_LANEID"};

		snprintf(e, left, "%sS2R R%u, %s\n", g, d, sr[t_rand(s) % 6]);
		break;
	}
	case 16: /* constant-bank sources */
		snprintf(e, left,
			 "%sMOV R%u, c[0x0][0x%x]\n"
			 "%sIMAD R%u, R%u, c[0x0][0x%x], R%u\n",
			 g, d, cb, g, c, a, cb + 4, b);
		break;
	case 17:
		snprintf(e, left,
			 "%sISETP.%s%s.%s P%u, PT, R%u, c[0x0][0x%x], "
			 "%sP%u\n",
			 g, cmp[t_rand(s) % 6], t_rand(s) & 1 ? ".U32" : "",
			 bop[t_rand(s) % 3], (unsigned)(t_rand(s) % 4), a, cb,
			 t_rand(s) & 1 ? "!" : "", (unsigned)(t_rand(s) % 4));
		break;
	case 18:
		snprintf(e, left, "%sFADD R%u, R%u, R%u\n", g, d, a, b);
		break;
	case 19: /* generic: FADD with a negated source, and a constant */
		snprintf(e, left,
			 "%sFADD R%u, R%u, -R%u\n"
			 "%sFADD R%u, R%u, c[0x0][0x%x]\n",
			 g, d, a, b, g, c, a, cb);
		break;
	case 20: { /* IMAD.WIDE: register pair, constant and immediate c */
		static const char *const wm[] = {"IMAD.WIDE", "IMAD.WIDE.U32"};

		switch (t_rand(s) % 3) {
		case 0:
			snprintf(e, left, "%s%s R%u, R%u, R%u, R%u\n", g,
				 wm[t_rand(s) & 1], d, a, b, c);
			break;
		case 1:
			snprintf(e, left, "%s%s R%u, R%u, R%u, c[0x0][0x%x]\n",
				 g, wm[t_rand(s) & 1], d, a, b, cb);
			break;
		default:
			snprintf(e, left, "%s%s R%u, R%u, 0x%x, R%u\n", g,
				 wm[t_rand(s) & 1], d, a, imm, c);
			break;
		}
		break;
	}
	case 21: /* some lanes exit (thread 0 never does) */
		snprintf(e, left,
			 "ISETP.GT.U32.AND P6, PT, R0, 0x%x, PT\n"
			 "@P6 EXIT\n",
			 1 + (unsigned)(t_rand(s) % 40));
		break;
	default: { /* a forward branch over a few instructions */
		unsigned k = (*label)++;

		snprintf(e, left, "%sBRA L%u\n", g, k);
		for (int i = 0; i < 3; i++)
			random_insn(p, n, s, label);
		e = p + strlen(p);
		snprintf(e, n - strlen(p), "L%u:\n", k);
		break;
	}
	}
}

static void build(char *p, size_t n, uint64_t *s, unsigned len)
{
	unsigned label = 0;

	snprintf(p, n,
		 "S2R R0, SR_TID.X\n"
		 "MOV R20, 0x40\n"
		 "IMAD.WIDE.U32 R22, R0, R20, c[0x0][0x160]\n"
		 "LDG.E R2, [R22]\n"
		 "LDG.E R3, [R22+0x4]\n"
		 "LDG.E R4, [R22+0x8]\n"
		 "LDG.E R5, [R22+0xc]\n"
		 "LDG.E R6, [R22+0x10]\n"
		 "LDG.E R7, [R22+0x14]\n"
		 "LDG.E R8, [R22+0x18]\n"
		 "LDG.E R9, [R22+0x1c]\n"
		 "LDG.E R10, [R22+0x20]\n"
		 "LOP3.LUT RZ, P0, R10, 0x1, RZ, 0xc0, !PT\n"
		 "LOP3.LUT RZ, P1, R10, 0x2, RZ, 0xc0, !PT\n"
		 "LOP3.LUT RZ, P2, R10, 0x4, RZ, 0xc0, !PT\n"
		 "LOP3.LUT RZ, P3, R10, 0x8, RZ, 0xc0, !PT\n"
		 "ISETP.GE.U32.AND P4, PT, R0, RZ, PT\n");
	for (unsigned i = 0; i < len; i++)
		random_insn(p, n, s, &label);
	snprintf(p + strlen(p), n - strlen(p),
		 "IMAD.WIDE.U32 R22, R0, R20, c[0x0][0x168]\n"
		 "STG.E [R22], R2\n"
		 "STG.E [R22+0x4], R3\n"
		 "STG.E [R22+0x8], R4\n"
		 "STG.E [R22+0xc], R5\n"
		 "STG.E [R22+0x10], R6\n"
		 "STG.E [R22+0x14], R7\n"
		 "STG.E [R22+0x18], R8\n"
		 "STG.E [R22+0x1c], R9\n"
		 "SEL R11, RZ, 0x1, !P0\n"
		 "SEL R12, RZ, 0x2, !P1\n"
		 "SEL R13, RZ, 0x4, !P2\n"
		 "SEL R14, RZ, 0x8, !P3\n"
		 "SEL R15, RZ, 0x10, !P4\n"
		 "SEL R16, RZ, 0x20, !P5\n"
		 "IADD3 R11, R11, R12, R13\n"
		 "IADD3 R11, R11, R14, R15\n"
		 "IADD3 R11, R11, R16, RZ\n"
		 "STG.E [R22+0x20], R11\n"
		 "EXIT\n");
}

static int run(struct mem *m, const uint64_t *code, size_t n,
	       enum nvl_isa_arch arch, uint32_t nthr, bool generic,
	       uint64_t budget, struct nvl_cs_fault *fault,
	       struct nvl_cs_stats *st)
{
	uint32_t c0[0x200 / 4] = {0};
	uint64_t p[2] = {VA, VA + sizeof(m->in)};
	struct nvl_cs_launch l = {
		.arch = arch,
		.code = code,
		.ninsn = (uint32_t)n,
		.grid = {2, 1, 1},
		.block = {nthr, 1, 1},
		.cbuf = {c0},
		.cbuf_B = {sizeof(c0)},
		.translate = translate,
		.map = map_page ? map : NULL,
		.mem_ctx = m,
		.max_warp_instrs = budget,
		.generic_only = generic,
	};

	memcpy((uint8_t *)c0 + 0x160, p, sizeof(p));
	for (unsigned i = 0x170 / 4; i < 0x200 / 4; i++)
		c0[i] = i * 0x9e3779b9u;
	memset(m->out, 0xa5, sizeof(m->out));
	return nvl_cs_run(&l, fault, st);
}

/* one CTA of @nthr threads, c[0][0x160] = @in, c[0][0x168] = @out */
static int run_at(struct mem *m, const uint64_t *code, size_t n, uint32_t nthr,
		  bool generic, uint64_t in, uint64_t out,
		  struct nvl_cs_fault *fault, struct nvl_cs_stats *st)
{
	uint32_t c0[0x200 / 4] = {0};
	uint64_t p[2] = {in, out};
	struct nvl_cs_launch l = {
		.arch = NVL_ISA_SM86,
		.code = code,
		.ninsn = (uint32_t)n,
		.grid = {1, 1, 1},
		.block = {nthr, 1, 1},
		.cbuf = {c0},
		.cbuf_B = {sizeof(c0)},
		.translate = translate,
		.map = map_page ? map : NULL,
		.mem_ctx = m,
		.generic_only = generic,
	};

	memcpy((uint8_t *)c0 + 0x160, p, sizeof(p));
	memset(m->out, 0xa5, sizeof(m->out));
	return nvl_cs_run(&l, fault, st);
}

static void random_programs_match_generic(void **state)
{
	static struct mem m1, m2;
	static char src[64 * 1024];
	static const uint32_t nthr[] = {64, 45, 32, 7};
	uint64_t s = t_seed(0xfa57);

	for (int prog = 0; prog < 48; prog++) {
		enum nvl_isa_arch arch =
			(enum nvl_isa_arch)(prog % NVL_ISA_ARCH_COUNT);
		struct nvl_isa_asm_error err;
		uint64_t *code;
		size_t n;

		/* the TLB in pages, in pieces too small for a warp, or off */
		map_page = prog % 3 == 0 ? 4096 : prog % 3 == 1 ? 64 : 0;
		build(src, sizeof(src), &s, 30);
		if (nvl_isa_assemble(src, arch, 0, &code, &n, &err))
			fail_msg("program %d: %u:%u %s\n%s", prog, err.line,
				 err.col, err.msg, src);
		for (int t = 0; t < NT; t++)
			for (int k = 0; k < NW; k++)
				m1.in[t][k] = (uint32_t)t_rand(&s);
		m2 = m1;
		for (int k = 0; k < 4; k++) {
			struct nvl_cs_stats s1, s2;
			struct nvl_cs_fault f1, f2;

			assert_int_equal(run(&m1, code, n, arch, nthr[k], false,
					     0, &f1, &s1),
					 0);
			assert_int_equal(run(&m2, code, n, arch, nthr[k], true,
					     0, &f2, &s2),
					 0);
			if (memcmp(m1.out, m2.out, sizeof(m1.out)))
				fail_msg("program %d, %u threads: fast and "
					 "generic paths differ\n%s",
					 prog, nthr[k], src);
			assert_true(m1.out[0][8] & 0x10); /* P4 was set */
			assert_int_equal(s1.warp_instrs, s2.warp_instrs);
			assert_int_equal(s1.thread_instrs, s2.thread_instrs);
			assert_int_equal(s1.ctas, 2);
		}
		nvl_free(code);
	}
	map_page = 4096;
}

/*
 * LDG/STG.E of 32, 64 and 128 bits (the coalesced path through the
 * interpreter's TLB when the whole warp reads or writes consecutive
 * elements, the per-lane path otherwise) against the generic path and a C
 * reference: contiguous, strided, overlapping and reversed lanes, offsets,
 * partial warps, TLB ranges of a page, of 256 and 64 bytes (a warp's
 * access crossing or never fitting one), none, and stores into a part the
 * map refuses to write; faults (a lane past the buffer) and misaligned
 * bases stop both paths at the same instruction, lane and address.
 */
static void coalesced_memory_matches_generic(void **state)
{
	static const unsigned sizes[] = {4, 8, 16};
	static const int strides[] = {1, 2, 0, -1}; /* x size */
	static const int offs[] = {0, 0x10, -0x8};
	static const uint64_t pages[] = {4096, 256, 64, 0};
	static const uint32_t nthr[] = {64, 45, 32};
	static struct mem m1, m2, ref;
	static char src[1024];
	uint64_t s = t_seed(0xc0a1);

	map_rd = map_wr = 0;
	for (unsigned z = 0; z < 3; z++) {
		for (unsigned st = 0; st < 4; st++) {
			for (unsigned o = 0; o < 3 * 4 * 3; o++) {
				unsigned sz = sizes[z], pg = o % 4;
				int stride = strides[st] * (int)sz;
				int off = offs[o / 12 % 3],
				    k = (int)(o / 4 % 3);
				/* reversed lanes start high; misaligned and
				 * faulting bases in some runs */
				uint64_t base_in = VA + 0x400;
				uint64_t base_out = VA + sizeof(m1.in) + 0x400;
				struct nvl_isa_asm_error err;
				struct nvl_cs_stats s1, s2;
				struct nvl_cs_fault f1, f2;
				uint64_t *code;
				size_t n;
				int r1, r2;

				if (o % 5 == 3)
					base_in += 2; /* misaligned */
				if (o % 7 == 6)
					base_out = VA + sizeof(m1) - 0x100;
				ro_B = o % 3 == 1 ? 0x600 : 0;
				map_page = pages[pg];
				snprintf(src, sizeof(src),
					 "S2R R0, SR_TID.X\n"
					 "MOV R9, 0x%x\n"
					 "IMAD.WIDE R2, R0, R9, c[0x0][0x160]\n"
					 "IMAD.WIDE R4, R0, R9, c[0x0][0x168]\n"
					 "LDG.E%s R10, [R2%s0x%x]\n"
					 "IADD3 R10, R10, 0x1, RZ\n"
					 "STG.E%s [R4%s0x%x], R10\n"
					 "EXIT\n",
					 (unsigned)stride,
					 sz == 4   ? ""
					 : sz == 8 ? ".64"
						   : ".128",
					 off < 0 ? "-" : "+",
					 off < 0 ? -off : off,
					 sz == 4   ? ""
					 : sz == 8 ? ".64"
						   : ".128",
					 off < 0 ? "-" : "+",
					 off < 0 ? -off : off);
				if (nvl_isa_assemble(src, NVL_ISA_SM86, 0,
						     &code, &n, &err))
					fail_msg("%u:%u %s\n%s", err.line,
						 err.col, err.msg, src);
				for (int t = 0; t < NT; t++)
					for (int w = 0; w < NW; w++)
						m1.in[t][w] =
							(uint32_t)t_rand(&s);
				m2 = m1;
				r1 = run_at(&m1, code, n, nthr[k], false,
					    base_in, base_out, &f1, &s1);
				r2 = run_at(&m2, code, n, nthr[k], true,
					    base_in, base_out, &f2, &s2);
				nvl_free(code);
				assert_int_equal(r1, r2);
				assert_memory_equal(&m1, &m2, sizeof(m1));
				assert_int_equal(s1.warp_instrs,
						 s2.warp_instrs);
				assert_int_equal(s1.thread_instrs,
						 s2.thread_instrs);
				if (r1) {
					assert_int_equal(f1.reason, f2.reason);
					assert_int_equal(f1.pc, f2.pc);
					assert_int_equal(f1.warp, f2.warp);
					assert_int_equal(f1.lane, f2.lane);
					assert_int_equal(f1.addr, f2.addr);
					assert_true(
						f1.reason ==
							NVL_CS_MISALIGNED ||
						f1.reason ==
							NVL_CS_GLOBAL_FAULT);
					continue;
				}
				if (stride != (int)sz)
					continue;
				/* contiguous: the C reference */
				memset(ref.out, 0xa5, sizeof(ref.out));
				for (uint32_t t = 0; t < nthr[k]; t++)
					for (unsigned w = 0; w < sz / 4; w++) {
						uint64_t b =
							t * sz + 4 * w +
							(uint64_t)(int64_t)off;
						uint64_t bi = base_in - VA + b;
						uint64_t bo = base_out - VA -
							      sizeof(m1.in) + b;
						uint32_t v;

						memcpy(&v,
						       (uint8_t *)m1.in + bi,
						       4);
						v += !w;
						memcpy((uint8_t *)ref.out + bo,
						       &v, 4);
					}
				assert_memory_equal(ref.out, m1.out,
						    sizeof(ref.out));
			}
		}
	}
	map_page = 4096;
	ro_B = 0;
	/* the TLB was used for loads and for stores */
	assert_true(map_rd > 0);
	assert_true(map_wr > 0);
}

/* a budget ending in a run of fast instructions stops both paths alike */
static void budget_stops_inside_fast_run(void **state)
{
	static struct mem m;
	static const char loop[] = "MOV R1, 0x40\n"
				   "MOV R2, 0x1\n"
				   "top:\n"
				   "IADD3 R2, R2, R2, RZ\n"
				   "IMAD R3, R2, R2, 0x7\n"
				   "LOP3.LUT R4, R2, R3, RZ, 0x3c, !PT\n"
				   "IADD3 R1, R1, -0x1, RZ\n"
				   "ISETP.NE.U32.AND P0, PT, R1, RZ, PT\n"
				   "@P0 BRA top\n"
				   "EXIT\n";
	struct nvl_isa_asm_error err;
	uint64_t *code;
	size_t n;

	assert_int_equal(
		nvl_isa_assemble(loop, NVL_ISA_SM80, 0x1000, &code, &n, &err),
		0);
	for (uint64_t budget = 1; budget < 60; budget += 7) {
		struct nvl_cs_fault f1, f2;
		struct nvl_cs_stats s1, s2;

		assert_int_equal(run(&m, code, n, NVL_ISA_SM80, 40, false,
				     budget, &f1, &s1),
				 -ETIMEDOUT);
		assert_int_equal(run(&m, code, n, NVL_ISA_SM80, 40, true,
				     budget, &f2, &s2),
				 -ETIMEDOUT);
		assert_int_equal(f1.reason, NVL_CS_TIMEOUT);
		assert_int_equal(f1.reason, f2.reason);
		assert_int_equal(f1.pc, f2.pc);
		assert_int_equal(f1.warp, f2.warp);
		assert_int_equal(s1.warp_instrs, budget);
		assert_int_equal(s2.warp_instrs, budget);
		assert_int_equal(s1.thread_instrs, s2.thread_instrs);
	}
	/* and the whole loop: 2 + 64 * 6 + 1 instructions per warp */
	{
		struct nvl_cs_stats st;

		assert_int_equal(
			run(&m, code, n, NVL_ISA_SM80, 40, false, 0, NULL, &st),
			0);
		assert_int_equal(st.warp_instrs, 2 * 2 * (2 + 64 * 6 + 1));
		assert_int_equal(st.thread_instrs, 2 * 40 * (2 + 64 * 6 + 1));
	}
	nvl_free(code);
}

/* one thread stores @v: the program "MOV R5, v; STG; EXIT" */
static void store_prog(uint64_t *code, uint32_t v, enum nvl_isa_arch arch)
{
	char src[256];
	struct nvl_isa_asm_error err;
	uint64_t *c;
	size_t n;

	snprintf(src, sizeof(src),
		 "MOV R5, 0x%x\n"
		 "MOV R6, c[0x0][0x168]\n"
		 "MOV R7, c[0x0][0x16c]\n"
		 "STG.E [R6], R5\n"
		 "EXIT\n",
		 v);
	assert_int_equal(nvl_isa_assemble(src, arch, 0, &c, &n, &err), 0);
	assert_int_equal(n, 5);
	memcpy(code, c, 16 * n);
	nvl_free(c);
}

static int run_one(struct mem *m, const uint64_t *code, enum nvl_isa_arch arch,
		   uint64_t va, struct nvl_cs_stats *st)
{
	uint32_t c0[0x200 / 4] = {0};
	uint64_t p[2] = {VA, VA + sizeof(m->in)};
	struct nvl_cs_launch l = {
		.arch = arch,
		.code = code,
		.ninsn = 5,
		.code_va = va,
		.grid = {1, 1, 1},
		.block = {1, 1, 1},
		.cbuf = {c0},
		.cbuf_B = {sizeof(c0)},
		.translate = translate,
		.mem_ctx = m,
	};

	memcpy((uint8_t *)c0 + 0x160, p, sizeof(p));
	m->out[0][0] = 0;
	return nvl_cs_run(&l, NULL, st);
}

/*
 * The decoded-program cache: a second launch of the same words decodes
 * nothing; rewriting the words in place, another address or another
 * architecture decode anew, and the rewritten program's result is seen.
 */
static void cache_keyed_by_content(void **state)
{
	static struct mem m;
	uint64_t code[10];
	struct nvl_cs_stats st;

	nvl_cs_cache_clear();
	store_prog(code, 0x1111, NVL_ISA_SM86);
	assert_int_equal(run_one(&m, code, NVL_ISA_SM86, 0, &st), 0);
	assert_int_equal(st.decoded_instrs, 5);
	assert_int_equal(m.out[0][0], 0x1111);
	assert_int_equal(run_one(&m, code, NVL_ISA_SM86, 0, &st), 0);
	assert_int_equal(st.decoded_instrs, 0);
	assert_int_equal(m.out[0][0], 0x1111);

	/* same buffer, same address, new words */
	store_prog(code, 0x2222, NVL_ISA_SM86);
	assert_int_equal(run_one(&m, code, NVL_ISA_SM86, 0, &st), 0);
	assert_int_equal(st.decoded_instrs, 5);
	assert_int_equal(m.out[0][0], 0x2222);
	assert_int_equal(run_one(&m, code, NVL_ISA_SM86, 0, &st), 0);
	assert_int_equal(st.decoded_instrs, 0);

	/* another program address or architecture is another entry */
	assert_int_equal(run_one(&m, code, NVL_ISA_SM86, 0x1000, &st), 0);
	assert_int_equal(st.decoded_instrs, 5);
	assert_int_equal(run_one(&m, code, NVL_ISA_SM80, 0, &st), 0);
	assert_int_equal(st.decoded_instrs, 5);
	assert_int_equal(m.out[0][0], 0x2222);

	/* more programs than slots: the oldest are evicted, all still run */
	for (uint32_t v = 0; v < 40; v++) {
		store_prog(code, v, NVL_ISA_SM86);
		assert_int_equal(run_one(&m, code, NVL_ISA_SM86, 0, &st), 0);
		assert_int_equal(m.out[0][0], v);
	}
	nvl_cs_cache_clear();
	assert_int_equal(run_one(&m, code, NVL_ISA_SM86, 0, &st), 0);
	assert_int_equal(st.decoded_instrs, 5);
	nvl_cs_cache_clear();
}

/* every allocation of a launch that misses the cache can fail cleanly */
static void cache_allocation_failures(void **state)
{
	static struct mem m;
	uint64_t code[10];
	struct nvl_cs_stats st;
	unsigned long nth;

	store_prog(code, 0x3333, NVL_ISA_SM90);
	for (nth = 1; nth < 64; nth++) {
		int ret;

		nvl_cs_cache_clear();
		nvl_fault_fail_nth(nth, NVL_FAULT_THIS_THREAD);
		ret = run_one(&m, code, NVL_ISA_SM90, 0, &st);
		if (!nvl_fault_hits()) {
			nvl_fault_off();
			assert_int_equal(ret, 0);
			break;
		}
		nvl_fault_off();
		assert_int_equal(ret, -ENOMEM);
		assert_int_equal(m.out[0][0], 0);
		/* and the next launch works */
		assert_int_equal(run_one(&m, code, NVL_ISA_SM90, 0, &st), 0);
		assert_int_equal(m.out[0][0], 0x3333);
	}
	assert_true(nth > 3); /* entry, words, decoded instructions */
	assert_true(nth < 64);
	nvl_cs_cache_clear();
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(cache_keyed_by_content),
	cmocka_unit_test(cache_allocation_failures),
	cmocka_unit_test(random_programs_match_generic),
	cmocka_unit_test(budget_stops_inside_fast_run),
	cmocka_unit_test(coalesced_memory_matches_generic),
};

T_MAIN(tests)

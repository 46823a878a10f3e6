// SPDX-License-Identifier: MIT
/*
 * TEST: compute_isa
 * Description: the SASS table, encoder, decoder, printer and assembler:
 * golden encodings from real nvcc output and from the reference, the
 * per-architecture differences, every row and modifier value in round
 * trips, a random round-trip property test, table sanity, error reports
 * with line and column, and allocation failures.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "t.h"
#include "base/log.h"
#include "hw/isa/isa.h"
#include "hw/isa/priv.h"

#define LOW105 ((1ull << 41) - 1) /* bits 104:64 of the high word */

static void asm1(const char *text, enum nvl_isa_arch arch, uint64_t base,
		 uint64_t w[2])
{
	struct nvl_isa_asm_error err;
	uint64_t *out;
	size_t n;
	int ret = nvl_isa_assemble(text, arch, base, &out, &n, &err);

	if (ret)
		fail_msg("assemble '%s': %u:%u %s", text, err.line, err.col,
			 err.msg);
	assert_int_equal(n, 1);
	w[0] = out[0];
	w[1] = out[1];
	nvl_free(out);
}

static void dis1(const uint64_t w[2], enum nvl_isa_arch arch, uint64_t pc,
		 bool ctrl, char *buf, size_t size)
{
	struct nvl_isa_insn insn;

	if (nvl_isa_decode(w, arch, &insn))
		fail_msg("decode 0x%016llx 0x%016llx: %s",
			 (unsigned long long)w[0], (unsigned long long)w[1],
			 nvl_error_msg());
	assert_true(nvl_isa_print(&insn, arch, pc, ctrl, buf, size) > 0);
}

struct golden {
	uint64_t lo, hi;
	const char *text; /* our syntax, without control and ';' */
	uint64_t pc;
};

/*
 * Full 128-bit words (control included) of nvcc-compiled kernels as
 * cuobjdump prints them, from a public corpus of sm_90+ cubins (kernels
 * t0_call / t0_switch). Only instructions whose SM70+ encoding is shared by
 * every architecture (reference §1.5, "the §2 encodings are the same on
 * SM75-SM90") are used; the text is nvdisasm's, except that float
 * immediates are printed shortest and LEA names its c operand.
 */
static const struct golden nvcc_words[] = {
	{0x0000000000007919, 0x000e2e0000002100, "S2R R0, SR_TID.X"},
	{0x00000000000479c3, 0x000e220000002500, "S2UR UR4, SR_CTAID.X"},
	{0x00000a00ff017b82, 0x000fe20000000800, "LDC R1, c[0x0][0x28]"},
	{0x00008400ff027b82, 0x000e620000000a00, "LDC.64 R2, c[0x0][0x210]"},
	{0x0080000008047b82, 0x001e240000000800, "LDC R4, c[0x2][R8]"},
	{0x0000820000067ab9, 0x000fce0000000a00, "ULDC.64 UR6, c[0x0][0x208]"},
	{0x0000000405057c24, 0x001fe2000f8e0200, "IMAD R5, R5, UR4, R0"},
	{0x0000000405027825, 0x002fe200078e0202, "IMAD.WIDE R2, R5, 0x4, R2"},
	{0x000000e000027802, 0x001fce0000000f00, "MOV R2, 0xe0"},
	{0x0000000400047c02, 0x000fc80008000f00, "MOV R4, UR4"},
	{0x0000003f00047c82, 0x000fca0008000000, "UMOV UR4, URZ"},
	{0x0000000104047890, 0x000fc8000fffe03f, "UIADD3 UR4, UR4, 0x1, URZ"},
	{0x3f00000000007820, 0x000fe20000400000, "FMUL R0, R0, 0.5"},
	{0x3e22f98303037820, 0x000fcc000040c000, "FMUL.RZ R3, R3, 0.15915494"},
	{0x4b80000005058820, 0x000fc80000400000, "@!P0 FMUL R5, R5, 16777216"},
	{0x3f80000004047421, 0x001fce0000000000, "FADD R4, R4, 1"},
	{0x4000000002027421, 0x020fcc0000000200, "FADD R2, |R2|, 2"},
	{0x0000000003037221, 0x000fe40000000000, "FADD R3, R3, R0"},
	{0x0000000004007223, 0x001fc60000000003, "FFMA R0, R4, R0, R3"},
	{0x4060000004077823, 0x000fe20000000007, "FFMA R7, R4, 3.5, R7"},
	{0x3fa0000004077823, 0x000fc80000000807, "FFMA R7, R4, 1.25, -R7"},
	{0xbf00000002027823, 0x000fc80000000005, "FFMA R2, R2, -0.5, R5"},
	{0x00000002ff047209, 0x020fe40007800000, "FMNMX R4, RZ, R2, !PT"},
	{0x0000000300037308, 0x000e240000000400, "MUFU.SIN R3, R3"},
	{0x0000000500057308, 0x000e240000000000, "MUFU.COS R5, R5"},
	{0x0000000200027308, 0x000e240000000c00, "MUFU.LG2 R2, R2"},
	{0x0000000400057308, 0x000e240000000800, "MUFU.EX2 R5, R4"},
	{0x0000000500077308, 0x000e240000001400, "MUFU.RSQ R7, R5"},
	{0x000000010600780c, 0x000fda0003f06270,
	 "ISETP.GE.AND P0, PT, R6, 0x1, PT"},
	{0x000000060800780c, 0x000fda0003f04070,
	 "ISETP.GT.U32.AND P0, PT, R8, 0x6, PT"},
	{0x0000000406007c0c, 0x000fe4000bf03270,
	 "ISETP.LE.AND P0, PT, R6, UR4, PT"},
	{0x008000000500780b, 0x000fda0003f0e200,
	 "FSETP.GEU.AND P0, PT, |R5|, 1.1754944e-38, PT"},
	{0xc2fc00000400780b, 0x000fda0003f0e000,
	 "FSETP.GEU.AND P0, PT, R4, -126, PT"},
	{0x0000000706087812, 0x008fc800078ec0ff,
	 "LOP3.LUT R8, R6, 0x7, RZ, 0xc0, !PT"},
	{0x0000001fff037819, 0x000fe40000011400,
	 "SHF.R.S32.HI R3, RZ, 0x1f, R0"},
	{0x0000000208087819, 0x000fc800000006ff, "SHF.L.U32 R8, R8, 0x2, RZ"},
	{0x0000000600027c11, 0x000fc8000f8010ff,
	 "LEA R2, P0, R0, UR6, RZ, 0x2"},
	{0x0000000700037c11, 0x000fca00080f1403,
	 "LEA.HI.X R3, R0, UR7, R3, 0x2, P0"},
	{0x0000047000007945, 0x000fe20003800000, "BSSY B0, 0x540", 0xc0},
	{0x0000000000007941, 0x000fea0003800000, "BSYNC B0"},
	{0x000000000000794d, 0x000fea0003800000, "EXIT"},
	{0x0000000000007918, 0x000fc00000000000, "NOP"},
};

/*
 * sm_75 encodings from CuAssembler's DefaultInsAsmRepos.sm_75.txt
 * (reference tag CUA): nvdisasm text and the code with the control bits
 * removed (bits 104:0). nvdisasm's IMAD.MOV alias is plain IMAD here.
 */
static const struct golden cua75[] = {
	{0x00000a00ff017624, 0x78e00ff, "IMAD.U32 R1, RZ, RZ, c[0x0][0x28]"},
	{0x0080000009077627, 0x78e0006, "IMAD.HI.U32 R7, R9, R6, c[0x2][0x0]"},
	{0x0000020005047a24, 0x78e0a04, "IMAD R4, R5, c[0x0][0x8], -R4"},
	{0x8000580029087625, 0x78e0208,
	 "IMAD.WIDE R8, R41, R8, -c[0x0][0x160]"},
	{0xe4eaae03ff127424, 0x78e00ff, "IMAD.U32 R18, RZ, RZ, -0x1b1551fd"},
	{0x00006600ff021624, 0x78e00ff,
	 "@P1 IMAD.U32 R2, RZ, RZ, c[0x0][0x198]"},
	{0x4000000400037308, 0x1000, "MUFU.RCP R3, |R4|"},
	{0x8000000600067308, 0x1400, "MUFU.RSQ R6, -R6"},
	{0x00005e0000047b06, 0x209000, "I2F.U32.RP R4, c[0x0][0x178]"},
	{0x00005c0000117b06, 0x201400, "I2F R17, c[0x0][0x170]"},
	{0x0000000000107b06, 0x201000, "I2F.U32 R16, c[0x0][0x0]"},
	/* a 64-bit side selects opcode 0x112 */
	{0x00005c0000067b12, 0x201c00, "I2F.F64 R6, c[0x0][0x170]"},
	{0x0000660000027b12, 0x301c00, "I2F.F64.S64 R2, c[0x0][0x198]"},
	{0x0000660000027b12, 0x301800, "I2F.F64.U64 R2, c[0x0][0x198]"},
	{0x00006c00000a7b12, 0x301400, "I2F.S64 R10, c[0x0][0x1b0]"},
};

static void check_golden(const struct golden *g, size_t n,
			 enum nvl_isa_arch arch, bool full)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t w[2], gw[2] = {g[i].lo, g[i].hi};
		struct nvl_isa_insn insn;
		char text[200], want[200];

		asm1(g[i].text, arch, g[i].pc, w);
		if (w[0] != g[i].lo || (w[1] & LOW105) != (g[i].hi & LOW105))
			fail_msg("%s: got 0x%016llx 0x%016llx want 0x%016llx "
				 "0x%016llx",
				 g[i].text, (unsigned long long)w[0],
				 (unsigned long long)w[1],
				 (unsigned long long)g[i].lo,
				 (unsigned long long)g[i].hi);
		dis1(gw, arch, g[i].pc, false, text, sizeof(text));
		snprintf(want, sizeof(want), "%s ;", g[i].text);
		assert_string_equal(text, want);
		if (full) {
			/* control included: decode then encode is exact */
			assert_int_equal(nvl_isa_decode(gw, arch, &insn), 0);
			assert_int_equal(nvl_isa_encode(&insn, arch, w), 0);
			assert_true(w[0] == gw[0] && w[1] == gw[1]);
		}
	}
}

static void golden_nvcc(void **state)
{
	for (int a = NVL_ISA_SM75; a < NVL_ISA_ARCH_COUNT; a++)
		check_golden(nvcc_words,
			     sizeof(nvcc_words) / sizeof(*nvcc_words),
			     (enum nvl_isa_arch)a, true);
}

static void golden_cua_sm75(void **state)
{
	check_golden(cua75, sizeof(cua75) / sizeof(*cua75), NVL_ISA_SM75,
		     false);
}

/* Facts stated in the reference itself. */
static void golden_reference(void **state)
{
	/* §1.3: padding NOP = 18 79 00 .. 00 c0 0f 00, control 0x7e0 */
	static const uint8_t nop[16] = {0x18, 0x79, 0, 0, 0, 0,	   0,	 0,
					0,    0,    0, 0, 0, 0xc0, 0x0f, 0};
	uint64_t w[2], nw[2];
	char text[200];

	memcpy(nw, nop, 16);
	assert_true(((nw[1] >> 41) & 0x1fffff) == 0x7e0);
	asm1("[B------:R-:W-:Y:S00] NOP", NVL_ISA_SM86, 0, w);
	assert_true(w[0] == nw[0] && w[1] == nw[1]);
	dis1(nw, NVL_ISA_SM86, 0, true, text, sizeof(text));
	assert_string_equal(text, "[B------:R-:W-:Y:S00] NOP ;");

	/* §1.2: the operand forms in bits 11:9 of the examples */
	asm1("IMAD R11, R14, R3, R11", NVL_ISA_SM75, 0, w);
	assert_int_equal(w[0] & 0xfff, 0x224);
	asm1("IMAD R4, R16, R9, -0x1", NVL_ISA_SM75, 0, w);
	assert_int_equal(w[0] & 0xfff, 0x424);
	assert_int_equal(w[1] & 0xff, 9); /* b moved to 71:64 */
	assert_int_equal(w[0] >> 32, 0xffffffff);
	asm1("IMAD R0, R0, R3, c[0x0][0x1a0]", NVL_ISA_SM75, 0, w);
	assert_int_equal(w[0] & 0xfff, 0x624);
	asm1("IADD3 R9, R2, -0x1, RZ", NVL_ISA_SM75, 0, w);
	assert_int_equal(w[0] & 0xfff, 0x810);
	asm1("MOV R1, c[0x0][0x28]", NVL_ISA_SM75, 0, w);
	assert_int_equal(w[0] & 0xfff, 0xa02);
	assert_int_equal((w[0] >> 38) & 0xffff, 0x28); /* offset 53:38 */
	asm1("IADD3 R3, R3, UR4, RZ", NVL_ISA_SM75, 0, w);
	assert_int_equal(w[0] & 0xfff, 0xc10);
	assert_int_equal((w[1] >> 27) & 1, 1); /* bit 91 */
	asm1("IMAD R0, R0, R3, UR6", NVL_ISA_SM75, 0, w);
	assert_int_equal(w[0] & 0xfff, 0xe24);

	/* §1.4: BRA at 0xe0 to itself encodes -16 (word offset in 81:34) */
	asm1("BRA 0xe0", NVL_ISA_SM80, 0xe0, w);
	assert_int_equal(w[0] & 0xfff, 0x947);
	assert_true(nvl_isa_get(w, 34, 48) == ((1ull << 48) - 4));
	dis1(w, NVL_ISA_SM80, 0xe0, false, text, sizeof(text));
	assert_string_equal(text, "BRA 0xe0 ;");

	/* §2.2: ISETP compare 78:76, FSETP 79:76, PLOP3 LUT split */
	asm1("PLOP3.LUT P0, PT, P0, P1, PT, 0xa8, 0x0", NVL_ISA_SM75, 0, w);
	assert_int_equal(w[0] & 0xfff, 0x81c);
	assert_int_equal(nvl_isa_get(w, 64, 3), 0xa8 & 7);
	assert_int_equal(nvl_isa_get(w, 72, 5), 0xa8 >> 3);
	/* §2.5: SHFL.BFLY PT, R4, R7, 0x1, 0x1f = form 0xf89, mode 3 */
	asm1("SHFL.BFLY PT, R4, R7, 0x1, 0x1f", NVL_ISA_SM75, 0, w);
	assert_int_equal(w[0] & 0xfff, 0xf89);
	assert_int_equal(nvl_isa_get(w, 58, 2), 3);
	assert_int_equal(nvl_isa_get(w, 53, 5), 1);
	assert_int_equal(nvl_isa_get(w, 40, 13), 0x1f);
	/* §2.5: VOTE.ANY R6, PT, P1 */
	asm1("VOTE.ANY R6, PT, P1", NVL_ISA_SM75, 0, w);
	assert_int_equal(w[0] & 0xfff, 0x806);
	assert_int_equal(nvl_isa_get(w, 72, 2), 1);
	assert_int_equal(nvl_isa_get(w, 87, 3), 1);
	/* control field: stall 108:105, yield 109, wbar, rbar, wait */
	asm1("[B0-2--5:R3:W1:-:S13] NOP", NVL_ISA_SM75, 0, w);
	assert_int_equal(nvl_isa_get(w, 105, 4), 13);
	assert_int_equal(nvl_isa_get(w, 109, 1), 1);
	assert_int_equal(nvl_isa_get(w, 110, 3), 1);
	assert_int_equal(nvl_isa_get(w, 113, 3), 3);
	assert_int_equal(nvl_isa_get(w, 116, 6), 0x25);
	/* reuse 125:122: slot 0 Ra, 1 Rb, 2 Rc */
	asm1("IMAD R5, R20.reuse, R10, R3.reuse", NVL_ISA_SM75, 0, w);
	assert_int_equal(nvl_isa_get(w, 122, 4), 0x5);
}

/* §1.5: the memory-order field 80:77 and REDG differ per architecture. */
static void per_arch(void **state)
{
	uint64_t w[2], *out;
	size_t n;
	struct nvl_isa_asm_error err;
	char text[200];

	asm1("LDG.E.STRONG.GPU R0, [R2]", NVL_ISA_SM75, 0, w);
	assert_int_equal(nvl_isa_get(w, 77, 4), 0xa); /* order 2, scope 2 */
	asm1("LDG.E.STRONG.GPU R0, [R2]", NVL_ISA_SM80, 0, w);
	assert_int_equal(nvl_isa_get(w, 77, 4), 7);
	asm1("LDG.E.STRONG.SYS R0, [R2]", NVL_ISA_SM89, 0, w);
	assert_int_equal(nvl_isa_get(w, 77, 4), 0xa);
	dis1(w, NVL_ISA_SM90, 0, false, text, sizeof(text));
	assert_string_equal(text, "LDG.E.STRONG.SYS R0, [R2] ;");
	dis1(w, NVL_ISA_SM75, 0, false, text, sizeof(text));
	assert_string_equal(text, "LDG.E.STRONG.GPU R0, [R2] ;");
	asm1("LDG.E.CONSTANT R0, [R2]", NVL_ISA_SM86, 0, w);
	assert_int_equal(nvl_isa_get(w, 77, 4), 4);
	/* MMIO exists only in the SM75 encoding */
	asm1("STG.E.MMIO.SYS [R2], R4", NVL_ISA_SM75, 0, w);
	assert_int_equal(nvl_isa_assemble("STG.E.MMIO.SYS [R2], R4",
					  NVL_ISA_SM80, 0, &out, &n, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "MMIO"));
	/* a code reserved on SM80 does not decode there */
	asm1("STG.E.WEAK.GPU [R2], R4", NVL_ISA_SM75, 0, w);
	assert_int_equal(
		nvl_isa_decode(w, NVL_ISA_SM80, &(struct nvl_isa_insn){0}),
		-EINVAL);
	/* nvcc's kernel parameters in c[0x0] */
	assert_int_equal(nvl_isa_param_base(NVL_ISA_SM75), 0x160);
	assert_int_equal(nvl_isa_param_base(NVL_ISA_SM89), 0x160);
	assert_int_equal(nvl_isa_param_base(NVL_ISA_SM90), 0x210);
	/* RED is printed REDG on SM90; both names assemble */
	asm1("RED.E.ADD.STRONG.GPU [R2], R4", NVL_ISA_SM90, 0, w);
	dis1(w, NVL_ISA_SM90, 0, false, text, sizeof(text));
	assert_string_equal(text, "REDG.E.ADD.STRONG.GPU [R2], R4 ;");
	dis1(w, NVL_ISA_SM86, 0, false, text, sizeof(text));
	assert_string_equal(text, "RED.E.ADD.STRONG.GPU [R2], R4 ;");
}

/* ---- random instructions --------------------------------------------- */

static uint64_t rnd(uint64_t *s, uint64_t n)
{
	return n ? t_rand(s) % n : 0;
}

static void rand_reg(uint64_t *s, struct nvl_isa_val *v, uint8_t flags,
		     bool reuse_ok)
{
	v->reg = (uint8_t)rnd(s, 256);
	v->neg = (flags & NVL_ISA_F_NEG) && rnd(s, 2);
	v->abs = (flags & NVL_ISA_F_ABS) && rnd(s, 2);
	v->reuse = reuse_ok && rnd(s, 2);
}

static void rand_flex(uint64_t *s, struct nvl_isa_slot sl, uint8_t flags,
		      struct nvl_isa_val *v)
{
	v->kind = sl.kind;
	switch (sl.kind) {
	case NVL_ISA_V_R:
		rand_reg(s, v, flags, true);
		break;
	case NVL_ISA_V_UR:
		rand_reg(s, v, flags, false);
		v->reg &= 63;
		break;
	case NVL_ISA_V_IMM:
		v->imm = (int64_t)rnd(s, 1ull << 32);
		if ((flags & NVL_ISA_F_SIGNED) && !(flags & NVL_ISA_F_FLOAT))
			v->imm = (int32_t)(uint32_t)v->imm;
		break;
	case NVL_ISA_V_CBUF:
		rand_reg(s, v, flags, false);
		v->reg = NVL_ISA_RZ;
		v->bank = (uint8_t)rnd(s, 32);
		v->imm = (int64_t)rnd(s, 0x10000);
		break;
	}
}

/* a scoreboard: 0-5, or 7 = none */
static uint8_t rand_sb(uint64_t *s)
{
	uint8_t v = (uint8_t)rnd(s, 7);

	return v == 6 ? 7 : v;
}

static void rand_insn(uint64_t *s, const struct nvl_isa_row *row,
		      enum nvl_isa_arch arch, uint8_t form,
		      struct nvl_isa_insn *insn)
{
	struct nvl_isa_slot sb = {0}, sc = {0};

	memset(insn, 0, sizeof(*insn));
	insn->row = row;
	if (row->alu && form) {
		insn->form = form;
		nvl_isa_form_layout(row->alu, form, &sb, &sc);
	} else if (row->alu) {
		do
			insn->form = (uint8_t)(1 + rnd(s, 7));
		while (!nvl_isa_form_layout(row->alu, insn->form, &sb, &sc));
	}
	insn->guard = (uint8_t)rnd(s, 8);
	insn->guard_not = rnd(s, 2);
	insn->ctrl = (struct nvl_isa_ctrl){
		.stall = (uint8_t)rnd(s, 16),
		.yield = (uint8_t)rnd(s, 2),
		.wbar = rand_sb(s),
		.rbar = rand_sb(s),
		.wait = (uint8_t)rnd(s, 64),
	};
	for (unsigned i = 0; i < row->nopnd; i++) {
		const struct nvl_isa_odesc *d = &row->opnd[i];
		struct nvl_isa_val *v = &insn->op[i];
		unsigned width = d->width + d->width2;

		switch (d->kind) {
		case NVL_ISA_O_R:
			v->kind = NVL_ISA_V_R;
			rand_reg(s, v, d->flags,
				 (d->lo == 24 || d->lo == 32 || d->lo == 64) &&
					 !(d->flags & NVL_ISA_F_DST));
			break;
		case NVL_ISA_O_UR:
			v->kind = NVL_ISA_V_UR;
			v->reg = (uint8_t)rnd(s, 64);
			break;
		case NVL_ISA_O_P:
		case NVL_ISA_O_UP:
			v->kind = d->kind == NVL_ISA_O_P ? NVL_ISA_V_P
							 : NVL_ISA_V_UP;
			v->reg = (uint8_t)rnd(s, 8);
			v->not_ = (d->flags & NVL_ISA_F_NOT) && rnd(s, 2);
			break;
		case NVL_ISA_O_B:
			v->kind = NVL_ISA_V_B;
			v->reg = (uint8_t)rnd(s, 16);
			break;
		case NVL_ISA_O_SR:
			v->kind = NVL_ISA_V_SR;
			v->reg = (uint8_t)rnd(s, 256);
			break;
		case NVL_ISA_O_IMM:
			v->kind = NVL_ISA_V_IMM;
			v->imm = (int64_t)rnd(s, 1ull << width);
			break;
		case NVL_ISA_O_FLEXB:
			rand_flex(s, sb, d->flags, v);
			break;
		case NVL_ISA_O_FLEXC:
			rand_flex(s, sc, d->flags, v);
			break;
		case NVL_ISA_O_CBUF:
			v->kind = NVL_ISA_V_CBUF;
			v->reg = d->width ? (uint8_t)rnd(s, 256) : NVL_ISA_RZ;
			v->bank = (uint8_t)rnd(s, 32);
			v->imm = (int64_t)rnd(s, 0x10000);
			break;
		case NVL_ISA_O_MEM:
			v->kind = NVL_ISA_V_MEM;
			v->reg = (uint8_t)rnd(s, 256);
			v->imm = (int64_t)rnd(s, 1u << 24) - (1 << 23);
			break;
		case NVL_ISA_O_TARGET:
			v->kind = NVL_ISA_V_TARGET;
			/* the whole field: targets may wrap around 2^64 */
			v->imm = ((int64_t)(rnd(s, 1ull << d->width)
					    << (64 - d->width)) >>
				  (64 - d->width)) *
				 4;
			break;
		}
	}
	for (unsigned g = 0; g < row->nmod; g++) {
		const char *const *names = nvl_isa_mod_names(row->mod[g], arch);
		unsigned n = nvl_isa_mod_count(row->mod[g], arch);
		unsigned v;

		do
			v = (unsigned)rnd(s, n);
		while (!names[v]);
		insn->mod[g] = (uint16_t)v;
	}
}

/*
 * Rows with an "at least one of" constraint (the 64-bit-side conversions):
 * re-roll the modifier groups other than @keep until the instruction
 * encodes. Return: false when no combination does.
 */
static bool fix_any(uint64_t *s, enum nvl_isa_arch arch,
		    struct nvl_isa_insn *insn, int keep)
{
	const struct nvl_isa_row *row = insn->row;
	uint64_t w[2];

	if (!row->nany)
		return true;
	for (int tries = 0; tries < 500; tries++) {
		if (!nvl_isa_encode(insn, arch, w))
			return true;
		for (unsigned g = 0; g < row->nmod; g++) {
			const char *const *names =
				nvl_isa_mod_names(row->mod[g], arch);
			unsigned n = nvl_isa_mod_count(row->mod[g], arch);
			unsigned v;

			if ((int)g == keep)
				continue;
			do
				v = (unsigned)rnd(s, n);
			while (!names[v]);
			insn->mod[g] = (uint16_t)v;
		}
	}
	return false;
}

/* encode -> decode -> encode is exact; print -> assemble gives the words */
static void round_trip(const struct nvl_isa_insn *insn, enum nvl_isa_arch arch)
{
	const uint64_t pc = 0x1000000;
	struct nvl_isa_insn back;
	uint64_t w[2], w2[2];
	char text[256];

	if (nvl_isa_encode(insn, arch, w))
		fail_msg("encode %s: %s", insn->row->name, nvl_error_msg());
	if (nvl_isa_decode(w, arch, &back))
		fail_msg("decode %s (0x%016llx 0x%016llx): %s", insn->row->name,
			 (unsigned long long)w[0], (unsigned long long)w[1],
			 nvl_error_msg());
	assert_ptr_equal(back.row, insn->row);
	assert_int_equal(nvl_isa_encode(&back, arch, w2), 0);
	if (w2[0] != w[0] || w2[1] != w[1])
		fail_msg("%s: re-encode differs", insn->row->name);
	assert_true(nvl_isa_print(&back, arch, pc, true, text, sizeof(text)) >
		    0);
	asm1(text, arch, pc, w2);
	if (w2[0] != w[0] || w2[1] != w[1])
		fail_msg("'%s' (%s) assembles to 0x%016llx 0x%016llx, not "
			 "0x%016llx 0x%016llx",
			 text, nvl_isa_arch_name(arch),
			 (unsigned long long)w2[0], (unsigned long long)w2[1],
			 (unsigned long long)w[0], (unsigned long long)w[1]);
}

/* Every row, every operand form, every value of every modifier group. */
static void every_row_and_modifier(void **state)
{
	uint64_t s = t_seed(0x15a15a);
	size_t nrows;
	const struct nvl_isa_row *rows = nvl_isa_rows(&nrows);
	unsigned cases = 0;

	assert_true(nrows >= 40);
	for (int a = 0; a < NVL_ISA_ARCH_COUNT; a++) {
		for (size_t r = 0; r < nrows; r++) {
			const struct nvl_isa_row *row = &rows[r];
			struct nvl_isa_insn insn;

			for (uint8_t f = 1; f <= 7; f++) {
				struct nvl_isa_slot b, c;

				if (row->alu &&
				    !nvl_isa_form_layout(row->alu, f, &b, &c))
					continue;
				rand_insn(&s, row, (enum nvl_isa_arch)a,
					  row->alu ? f : 0, &insn);
				assert_true(fix_any(&s, a, &insn, -1));
				round_trip(&insn, (enum nvl_isa_arch)a);
				cases++;
				if (!row->alu)
					break;
			}
			for (unsigned g = 0; g < row->nmod; g++) {
				const struct nvl_isa_mdesc *m = row->mod[g];
				const char *const *names =
					nvl_isa_mod_names(m, a);
				unsigned n = nvl_isa_mod_count(m, a);

				for (unsigned v = 0; v < n; v++) {
					if (!names[v])
						continue;
					rand_insn(&s, row, a, 0, &insn);
					insn.mod[g] = (uint16_t)v;
					assert_true(
						fix_any(&s, a, &insn, (int)g));
					round_trip(&insn, a);
					cases++;
				}
			}
		}
	}
	print_message("# %u round trips\n", cases);
}

static void random_round_trips(void **state)
{
	uint64_t s = t_seed(0xdecade);
	size_t nrows;
	const struct nvl_isa_row *rows = nvl_isa_rows(&nrows);
	unsigned n = (unsigned)(20000 * t_scale());

	for (unsigned i = 0; i < n; i++) {
		enum nvl_isa_arch a = (enum nvl_isa_arch)rnd(&s, 5);
		struct nvl_isa_insn insn;

		rand_insn(&s, &rows[rnd(&s, nrows)], a, 0, &insn);
		assert_true(fix_any(&s, a, &insn, -1));
		round_trip(&insn, a);
	}
}

/* Random words: decode either fails or round-trips exactly. */
static void random_words_decode_strictly(void **state)
{
	uint64_t s = t_seed(0xbadc0de);
	size_t nrows;
	const struct nvl_isa_row *rows = nvl_isa_rows(&nrows);
	unsigned ok = 0;

	for (unsigned i = 0; i < 200000; i++) {
		uint64_t w[2] = {t_rand(&s), t_rand(&s)}, w2[2];
		struct nvl_isa_insn insn;
		enum nvl_isa_arch a = (enum nvl_isa_arch)(i % 5);

		/* a valid opcode with sparse random bits decodes often */
		w[0] = (w[0] & t_rand(&s) & t_rand(&s) & ~0xfffull) |
		       (rows[rnd(&s, nrows)].opcode & 0xfff);
		w[1] &= t_rand(&s) & t_rand(&s);
		if (nvl_isa_decode(w, a, &insn))
			continue;
		ok++;
		assert_int_equal(nvl_isa_encode(&insn, a, w2), 0);
		assert_true(w2[0] == w[0] && w2[1] == w[1]);
	}
	assert_true(ok > 0);
}

static void table_sane(void **state)
{
	size_t nrows;
	const struct nvl_isa_row *rows = nvl_isa_rows(&nrows);

	for (int a = 0; a < NVL_ISA_ARCH_COUNT; a++) {
		for (size_t r = 0; r < nrows; r++) {
			const struct nvl_isa_row *row = &rows[r];

			/* each opcode decodes to its own row */
			for (uint8_t f = row->alu ? 1 : 0; f <= 7; f++) {
				struct nvl_isa_slot b, c;
				uint16_t op = row->opcode;

				if (row->alu) {
					if (!nvl_isa_form_layout(row->alu, f,
								 &b, &c))
						continue;
					op = (uint16_t)((op & 0x1ff) | f << 9);
				}
				assert_ptr_equal(nvl_isa_lookup(op, a), row);
				if (!row->alu)
					break;
			}
			/* modifier names unambiguous within a row */
			for (unsigned g = 0; g < row->nmod; g++) {
				const struct nvl_isa_mdesc *m = row->mod[g];
				const char *const *na = nvl_isa_mod_names(m, a);
				unsigned nn = nvl_isa_mod_count(m, a);

				assert_true(m->width + m->width2 == 0 ||
					    nn <= 1u << (m->width + m->width2));
				for (unsigned v = 0; v < nn; v++) {
					if (!na[v] || !*na[v])
						continue;
					for (unsigned h = 0; h < row->nmod;
					     h++) {
						const char *const *nb =
							nvl_isa_mod_names(
								row->mod[h], a);
						unsigned nm = nvl_isa_mod_count(
							row->mod[h], a);

						for (unsigned u = 0; u < nm;
						     u++)
							if ((h != g ||
							     u != v) &&
							    nb[u])
								assert_false(!strcmp(
									na[v],
									nb[u]));
					}
				}
			}
		}
	}
}

/* ---- errors ------------------------------------------------------------ */

struct bad {
	const char *text;
	unsigned line, col;
	const char *msg;
};

static const struct bad bad_inputs[] = {
	{"FOO R1, R2", 1, 1, "unknown instruction 'FOO'"},
	{"NOP\n  IADD3 R1, R2, R3", 2, 19, "operand 4: expected"},
	{"IADD3 R1, R2, R3, R4, R5", 1, 23, "unexpected operand 5"},
	{"ISETP.GE.FOO P0, PT, R1, R2, PT", 1, 10, "no modifier .FOO"},
	{"ISETP.AND P0, PT, R1, R2, PT", 1, 10, "needs one of"},
	{"BRA nowhere", 1, 5, "unknown label 'nowhere'"},
	{"x: NOP\nx: NOP", 2, 1, "defined twice"},
	{"NOP ; junk", 1, 7, "unexpected text after ';'"},
	{"[B------:R9:W-:Y:S01] NOP", 1, 9, "read scoreboard"},
	{"[B------:R-:W-:Y:S99] NOP", 1, 19, "stall must be 0-15"},
	{"@Q0 NOP", 1, 2, "guard predicate"},
	{"IADD3 R1, R2, 0x1, c[0x0][0x0]", 1, 7, "no operand form"},
	{"LOP3.LUT R1, -R2, R3, R4, 0xc0, !PT", 1, 14, "not allowed"},
	{"MOV R1, R300", 1, 9, "expected a register"},
	{"LDG.E R0, [R2+0x1000000]", 1, 11, "operand 2: address offset"},
	{"SHF.X.U32 R1, R2, R3, R4", 1, 5, "no modifier .X"},
	{"IMAD R1, R2, R3,", 1, 17, "expected an operand after ','"},
	{"FADD R1, R2, 1.5x", 1, 14, "bad float immediate"},
	{"LDC R1, c[0x40][0x0]", 1, 11, "constant bank"},
};

static void errors_have_line_and_column(void **state)
{
	for (size_t i = 0; i < sizeof(bad_inputs) / sizeof(*bad_inputs); i++) {
		const struct bad *b = &bad_inputs[i];
		struct nvl_isa_asm_error err;
		uint64_t *w = (uint64_t *)0x1;
		size_t n = 77;
		int ret = nvl_isa_assemble(b->text, NVL_ISA_SM80, 0, &w, &n,
					   &err);

		if (ret != -EINVAL || err.line != b->line ||
		    err.col != b->col || !strstr(err.msg, b->msg))
			fail_msg("'%s': ret %d at %u:%u '%s' (want %u:%u '%s')",
				 b->text, ret, err.line, err.col, err.msg,
				 b->line, b->col, b->msg);
		/* nothing returned on failure */
		assert_ptr_equal(w, (uint64_t *)0x1);
		assert_int_equal(n, 77);
		assert_non_null(strstr(nvl_error_msg(), b->msg));
	}
}

static void decode_errors(void **state)
{
	struct nvl_isa_insn insn;
	uint64_t w[2];

	w[0] = 0xfff;
	w[1] = 0;
	assert_int_equal(nvl_isa_decode(w, NVL_ISA_SM80, &insn), -EINVAL);
	assert_non_null(strstr(nvl_error_msg(), "unknown opcode"));
	asm1("EXIT", NVL_ISA_SM80, 0, w);
	w[1] |= 1ull << 30; /* bit 94 */
	assert_int_equal(nvl_isa_decode(w, NVL_ISA_SM80, &insn), -EINVAL);
	assert_non_null(strstr(nvl_error_msg(), "bit 94"));
	asm1("MUFU.RCP R1, R2", NVL_ISA_SM80, 0, w);
	nvl_isa_set(w, 74, 6, 0x3f); /* no MUFU function 63 */
	assert_int_equal(nvl_isa_decode(w, NVL_ISA_SM80, &insn), -EINVAL);
	assert_non_null(strstr(nvl_error_msg(), "reserved"));
	asm1("MOV R1, R2", NVL_ISA_SM80, 0, w);
	nvl_isa_set(w, 72, 4, 0x3); /* MOV lane mask must be 0xf */
	assert_int_equal(nvl_isa_decode(w, NVL_ISA_SM80, &insn), -EINVAL);
	/* reuse bit with no register in that slot */
	asm1("MOV R1, 0x5", NVL_ISA_SM80, 0, w);
	nvl_isa_set(w, 122, 1, 1);
	assert_int_equal(nvl_isa_decode(w, NVL_ISA_SM80, &insn), -EINVAL);
}

static void labels_and_program(void **state)
{
	static const char prog[] = "// a loop\n"
				   "top:\n"
				   "  IADD3 R1, R1, 0x1, RZ   # count\n"
				   "  ISETP.LT.AND P0, PT, R1, 0x10, PT\n"
				   "  @P0 BRA top ;\n"
				   "  BSSY B1, out\n"
				   "out: BSYNC B1\n"
				   "\n"
				   "  EXIT\n";
	struct nvl_isa_asm_error err;
	uint64_t *w;
	size_t n;
	char *text;

	assert_int_equal(
		nvl_isa_assemble(prog, NVL_ISA_SM86, 0x400, &w, &n, &err), 0);
	assert_int_equal(n, 6);
	assert_int_equal(
		nvl_isa_disasm(w, n, NVL_ISA_SM86, 0x400, false, &text), 0);
	assert_non_null(strstr(text, "@P0 BRA 0x400 ;"));
	assert_non_null(strstr(text, "BSSY B1, 0x440 ;"));
	/* the listing assembles back to the same words */
	{
		uint64_t *w2;
		size_t n2;

		assert_int_equal(nvl_isa_assemble(text, NVL_ISA_SM86, 0x400,
						  &w2, &n2, &err),
				 0);
		assert_int_equal(n2, n);
		assert_memory_equal(w, w2, n * 16);
		nvl_free(w2);
	}
	nvl_free(text);
	nvl_free(w);
	/* empty input is an empty program */
	assert_int_equal(nvl_isa_assemble("  // nothing\n", NVL_ISA_SM75, 0, &w,
					  &n, &err),
			 0);
	assert_int_equal(n, 0);
	nvl_free(w);
}

struct alloc_arg {
	uint64_t *w;
	size_t n;
	char *text;
	bool dis;
};

static int alloc_op(void *p)
{
	struct alloc_arg *a = p;
	struct nvl_isa_asm_error err;
	static uint64_t words[2 * 80];
	static char src[80 * 40];
	size_t l = 0;

	for (int i = 0; i < 80; i++)
		l += (size_t)snprintf(src + l, sizeof(src) - l,
				      "L%d: IADD3 R%d, R1, 0x%x, RZ\n", i, i,
				      i);
	if (a->dis) {
		uint64_t *w;
		size_t n;
		int ret = nvl_isa_assemble(src, NVL_ISA_SM80, 0, &w, &n, &err);

		if (ret)
			return ret;
		memcpy(words, w, sizeof(words));
		nvl_free(w);
		ret = nvl_isa_disasm(words, 80, NVL_ISA_SM80, 0, true,
				     &a->text);
		return ret;
	}
	return nvl_isa_assemble(src, NVL_ISA_SM80, 0, &a->w, &a->n, &err);
}

static void alloc_check(int ret, void *p)
{
	assert_int_equal(ret, -ENOMEM);
}

static void allocation_failures(void **state)
{
	struct alloc_arg a = {0};

	t_fail_each_alloc(alloc_op, alloc_check, &a, 100);
	assert_int_equal(a.n, 80);
	nvl_free(a.w);
	a.dis = true;
	t_fail_each_alloc(alloc_op, alloc_check, &a, 100);
	assert_non_null(strstr(a.text, "IADD3 R79, R1, 0x4f, RZ"));
	nvl_free(a.text);
}

/*
 * The GPRs an instruction names, with their widths (nvl_isa_gprs()): the
 * one description the driver's REGISTER_COUNT (nvl_isa_gpr_end()) and the
 * model's register use (OOR_REG, checked-mode hazards, the rows a warp
 * clears) come from; until session 20 the model had its own switch. The
 * cases where the two were written differently: IMAD.WIDE's d and c are
 * pairs (reference §2: "d, c pairs"; the row's PAIR flags, which the
 * model's switch said again by hand), and the index register of
 * c[bank][Ra+off] is one register whatever the load's width (a byte
 * offset into a bank of at most 64 KiB, reference §2 LDC; the model's
 * switch would have counted it as wide as the operand's role). "w" is a
 * write, "r" a read, ":n" a pair or quad.
 */
static void gpr_widths(void **state)
{
	static const struct {
		const char *text, *gprs;
		unsigned end;
	} t[] = {
		{"IMAD.WIDE.U32 R2, R4, R6, R8", "w2:2 r4 r6 r8:2", 10},
		{"IMAD.WIDE.U32 R2, R4, R6, c[0x0][0x160]", "w2:2 r4 r6", 7},
		{"IMAD.WIDE R2, R4, 0x4, R8", "w2:2 r4 r8:2", 10},
		{"IMAD.WIDE R2, R4, c[0x0][0x160], R8", "w2:2 r4 r8:2", 10},
		{"IMAD R2, R4, R6, R8", "w2 r4 r6 r8", 9},
		{"LDC.64 R4, c[0x0][R9+0x10]", "w4:2 r9", 10},
		{"LDC.64 R4, c[0x0][0x10]", "w4:2", 6},
		{"LDC R4, c[0x3][R8]", "w4 r8", 9},
		{"LDG.E.64 R4, [R2]", "w4:2 r2:2", 6},
		{"LDG R4, [R2]", "w4 r2", 5},
		{"STG.E.128 [R2], R4", "r2:2 r4:4", 8},
		{"STS.64 [R3], R6", "r3 r6:2", 8},
		{"ATOMS.ADD.64 R0, [RZ], R4", "w0:2 r4:2", 6},
		{"CS2R R4, SRZ", "w4:2", 6},
		{"I2F.F64 R2, R4", "w2:2 r4", 5},
		{"MOV R1, RZ", "w1", 2},
		{"UMOV UR4, 0x1", "", 0},
		{"ULDC.64 UR4, c[0x0][0x160]", "", 0},
		/* a pair from R254 would reach RZ: R254 alone is a GPR */
		{"IMAD.WIDE R254, R4, R6, R8", "w254 r4 r6 r8:2", 255},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct nvl_isa_gpr g[NVL_ISA_MAX_OPNDS];
		struct nvl_isa_insn in;
		char buf[128] = "";
		uint64_t w[2];
		unsigned n;
		size_t len = 0;

		asm1(t[i].text, NVL_ISA_SM86, 0, w);
		assert_int_equal(nvl_isa_decode(w, NVL_ISA_SM86, &in), 0);
		n = nvl_isa_gprs(&in, g);
		for (unsigned k = 0; k < n; k++) {
			len += (size_t)snprintf(buf + len, sizeof(buf) - len,
						"%s%c%u", k ? " " : "",
						g[k].dst ? 'w' : 'r', g[k].reg);
			if (g[k].n > 1)
				len += (size_t)snprintf(buf + len,
							sizeof(buf) - len,
							":%u", g[k].n);
		}
		if (strcmp(buf, t[i].gprs))
			fail_msg("%s: gprs \"%s\", expected \"%s\"", t[i].text,
				 buf, t[i].gprs);
		assert_int_equal(nvl_isa_gpr_end(&in), t[i].end);
	}
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(golden_nvcc),
	cmocka_unit_test(golden_cua_sm75),
	cmocka_unit_test(golden_reference),
	cmocka_unit_test(per_arch),
	cmocka_unit_test(table_sane),
	cmocka_unit_test(every_row_and_modifier),
	cmocka_unit_test(random_round_trips),
	cmocka_unit_test(random_words_decode_strictly),
	cmocka_unit_test(errors_have_line_and_column),
	cmocka_unit_test(decode_errors),
	cmocka_unit_test(labels_and_program),
	cmocka_unit_test(allocation_failures),
	cmocka_unit_test(gpr_widths),
};

T_MAIN(tests)

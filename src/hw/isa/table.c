// SPDX-License-Identifier: MIT
/*
 * DOC: the instruction table
 *
 * One row per encoding of the Volta+ SASS subset nouvelle supports, written
 * from ../shared/reference/compute-isa.md (bit ranges there are hi:lo; here
 * a field is {lo, width}). Shared fields:
 *
 *   11:0 opcode (ALU: 8:0 base op, 11:9 operand form), 14:12 guard, 15 its
 *   negation, 23:16 Rd, 31:24 Ra (neg 72, abs 73), 39:32 / 63:32 / 58:32
 *   slot 1 (reg / imm32 / c[bank 58:54][off 53:38]; neg 63, abs 62),
 *   71:64 Rc (neg 75, abs 74), 91 uniform operand, 125:105 control.
 *
 * Fields the reference leaves open are encoded as zero (or, where real
 * nvcc encodings show a constant, as that constant: the "fixed" fields),
 * and the decoder rejects anything else, so decode ∘ encode is exact.
 */
#include "hw/isa/isa.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define G(id_, lo_, w_, names_)                                                \
	static const struct nvl_isa_mdesc id_ = {                              \
		.lo = lo_, .width = w_, .nnames = N(names_), .names = names_}
#define G2(id_, lo_, w_, lo2_, w2_, names_)                                    \
	static const struct nvl_isa_mdesc id_ = {.lo = lo_,                    \
						 .width = w_,                  \
						 .lo2 = lo2_,                  \
						 .width2 = w2_,                \
						 .nnames = N(names_),          \
						 .names = names_}

/* ---- modifier groups ------------------------------------------------- */

static const char *const n_sign[] = {"U32", ""}; /* 73: 1 = signed */
static const char *const n_x[] = {"", "X"};
static const char *const n_hi[] = {"", "HI"};
static const char *const n_icmp[] = {"F",  "LT", "EQ", "LE",
				     "GT", "NE", "GE", "T"};
static const char *const n_fcmp[] = {"F",   "LT",  "EQ",  "LE",	 "GT",	"NE",
				     "GE",  "NUM", "NAN", "LTU", "EQU", "LEU",
				     "GTU", "NEU", "GEU", "T"};
static const char *const n_bop[] = {"AND", "OR", "XOR"};
static const char *const n_ftz[] = {"", "FTZ"};
static const char *const n_sat[] = {"", "SAT"};
static const char *const n_fmz[] = {"", "FMZ"};
static const char *const n_frnd[] = {"", "RM", "RP", "RZ"};
static const char *const n_irnd[] = {"", "FLOOR", "CEIL", "TRUNC"};
static const char *const n_ntz[] = {"", "NTZ"};
static const char *const n_mufu[] = {"COS", "SIN",    "EX2",	"LG2",	"RCP",
				     "RSQ", "RCP64H", "RSQ64H", "SQRT", "TANH"};
static const char *const n_dir[] = {"L", "R"};
static const char *const n_w[] = {"", "W"};
static const char *const n_shft[] = {"S64", "U64", "S32", "U32"};
static const char *const n_pand[] = {"", "PAND"};
/* sign | log2(bytes) << 1 */
static const char *const n_ityp[] = {"U8",  "S8", "U16", "S16",
				     "U32", "",	  "U64", "S64"};
static const char *const n_ftyp[] = {NULL, "F16", "", "F64"};
/* the <= 32-bit opcodes (I2F 0x106, F2I 0x105) have no 64-bit side */
static const char *const n_ityp32[] = {"U8", "S8", "U16", "S16", "U32", ""};
static const char *const n_ftyp32[] = {NULL, "F16", ""};
static const char *const n_e[] = {"", "E"};
static const char *const n_mtyp[] = {"U8", "S8", "U16", "S16", "", "64", "128"};
static const char *const n_evict[] = {"EF", "", "EL", "LU", "EU", "NA"};
/* SM75: scope 78:77 + order 80:79 (reference §1.5); WEAK.CTA = default */
static const char *const n_ord75[] = {
	"CONSTANT.CTA",
	"CONSTANT.SM",
	"CONSTANT.GPU",
	"CONSTANT.SYS",
	"",
	"WEAK.SM",
	"WEAK.GPU",
	"WEAK.SYS",
	"STRONG.CTA",
	"STRONG.SM",
	"STRONG.GPU",
	"STRONG.SYS",
	"MMIO.CTA",
	"MMIO.SM",
	"MMIO.GPU",
	"MMIO.SYS",
};
/* SM80+: one 4-bit code */
static const char *const n_ord80[] = {
	"",   NULL,	    NULL, NULL, "CONSTANT",   "STRONG.SM",
	NULL, "STRONG.GPU", NULL, NULL, "STRONG.SYS",
};
static const char *const n_aop[] = {"ADD", "MIN", "MAX", "INC", "DEC",
				    "AND", "OR",  "XOR", "EXCH"};
static const char *const n_rop[] = {"ADD", "MIN", "MAX", "INC",
				    "DEC", "AND", "OR",	 "XOR"};
static const char *const n_atyp[] = {"",	 "S32", "64",	 "F32.FTZ.RN",
				     "F16x2.RN", "S64", "F64.RN"};
static const char *const n_styp[] = {"", "S32", "64"};
static const char *const n_barm[] = {"SYNC", "ARV", "RED", "SCAN"};
static const char *const n_barop[] = {"", "AND", "OR"};
static const char *const n_defer[] = {"", "DEFER_BLOCKING"};
static const char *const n_shfl[] = {"IDX", "UP", "DOWN", "BFLY"};
static const char *const n_vote[] = {"ALL", "ANY", "EQ"};
static const char *const n_brm[] = {"", NULL, "DIV", "CONV"};
static const char *const n_mbsem[] = {"SC", "ALL", ""};
static const char *const n_scope[] = {"CTA", "SM", "GPU", "SYS"};
static const char *const n_cs2r[] = {"32", ""};
static const char *const t_lut[] = {"LUT"};
static const char *const t_wide[] = {"WIDE"};
static const char *const t_hi[] = {"HI"};
static const char *const t_cas[] = {"CAS"};

G(g_sign, 73, 1, n_sign);
G(g_x74, 74, 1, n_x);
G(g_hi80, 80, 1, n_hi);
G(g_icmp, 76, 3, n_icmp);
G(g_fcmp, 76, 4, n_fcmp);
G(g_bop, 74, 2, n_bop);
G(g_ftz, 80, 1, n_ftz);
G(g_sat, 77, 1, n_sat);
G(g_fmz, 76, 1, n_fmz);
G(g_frnd, 78, 2, n_frnd);
G(g_irnd, 78, 2, n_irnd);
G(g_ntz, 77, 1, n_ntz);
G(g_mufu, 74, 6, n_mufu);
G(g_dir, 76, 1, n_dir);
G(g_w, 75, 1, n_w);
G(g_shft, 73, 2, n_shft);
G(g_pand, 80, 1, n_pand);
G2(g_i2f_src, 74, 1, 84, 2, n_ityp);
G(g_i2f_dst, 75, 2, n_ftyp);
G2(g_f2i_dst, 72, 1, 75, 2, n_ityp);
G(g_f2i_src, 84, 2, n_ftyp);
G2(g_i2f_src32, 74, 1, 84, 2, n_ityp32);
G(g_i2f_dst32, 75, 2, n_ftyp32);
G2(g_f2i_dst32, 72, 1, 75, 2, n_ityp32);
G(g_f2i_src32, 84, 2, n_ftyp32);
G(g_e, 72, 1, n_e);
G(g_mtyp, 73, 3, n_mtyp);
G(g_evict, 84, 3, n_evict);
static const struct nvl_isa_mdesc g_order = {
	.lo = 77,
	.width = 4,
	.nnames = N(n_ord75),
	.names = n_ord75,
	.alt_from = NVL_ISA_SM80,
	.alt_nnames = N(n_ord80),
	.alt_names = n_ord80,
};
G(g_aop, 87, 4, n_aop);
G(g_rop, 87, 3, n_rop);
G(g_atyp, 73, 3, n_atyp);
G(g_styp, 73, 3, n_styp);
G(g_barm, 77, 2, n_barm);
G(g_barop, 74, 2, n_barop);
G(g_defer, 80, 1, n_defer);
G(g_shfl, 58, 2, n_shfl);
G(g_vote, 72, 2, n_vote);
G(g_brm, 32, 2, n_brm);
G(g_mbsem, 79, 2, n_mbsem);
G(g_mbscope, 76, 3, n_scope);
G(g_cs2r, 80, 1, n_cs2r);
G(g_lut, 0, 0, t_lut);
G(g_wide, 0, 0, t_wide);
G(g_hitag, 0, 0, t_hi);
G(g_cas, 0, 0, t_cas);

/* ---- operand shorthands ---------------------------------------------- */

#define F_NEG NVL_ISA_F_NEG
#define F_ABS NVL_ISA_F_ABS
#define F_SGN NVL_ISA_F_SIGNED
#define F_FLT NVL_ISA_F_FLOAT
#define F_PAIR NVL_ISA_F_PAIR

#define RD                                                                     \
	{                                                                      \
		.kind = NVL_ISA_O_R, .lo = 16, .width = 8,                     \
		.flags = NVL_ISA_F_DST                                         \
	}
#define RD2                                                                    \
	{                                                                      \
		.kind = NVL_ISA_O_R, .lo = 16, .width = 8,                     \
		.flags = NVL_ISA_F_DST | F_PAIR                                \
	}
#define URD                                                                    \
	{                                                                      \
		.kind = NVL_ISA_O_UR, .lo = 16, .width = 8,                    \
		.flags = NVL_ISA_F_DST                                         \
	}
#define RA(fl)                                                                 \
	{                                                                      \
		.kind = NVL_ISA_O_R, .lo = 24, .width = 8, .flags = (fl),      \
		.neg_bit = 72, .abs_bit = 73                                   \
	}
#define URA                                                                    \
	{                                                                      \
		.kind = NVL_ISA_O_UR, .lo = 24, .width = 8                     \
	}
#define RAT(lo_)                                                               \
	{                                                                      \
		.kind = NVL_ISA_O_R, .lo = lo_, .width = 8                     \
	}
#define FB(fl)                                                                 \
	{                                                                      \
		.kind = NVL_ISA_O_FLEXB, .flags = (fl)                         \
	}
#define FC(fl)                                                                 \
	{                                                                      \
		.kind = NVL_ISA_O_FLEXC, .flags = (fl)                         \
	}
#define PD(lo_)                                                                \
	{                                                                      \
		.kind = NVL_ISA_O_P, .lo = lo_, .width = 3,                    \
		.flags = NVL_ISA_F_DST                                         \
	}
#define PDO(lo_)                                                               \
	{                                                                      \
		.kind = NVL_ISA_O_P, .lo = lo_, .width = 3,                    \
		.flags = NVL_ISA_F_DST | NVL_ISA_F_OPT, .def = NVL_ISA_PT      \
	}
#define PS(lo_, n_)                                                            \
	{                                                                      \
		.kind = NVL_ISA_O_P, .lo = lo_, .width = 3, .lo2 = n_,         \
		.flags = NVL_ISA_F_NOT                                         \
	}
/* optional source predicate; def = value | not << 3 */
#define PSO(lo_, n_, def_)                                                     \
	{                                                                      \
		.kind = NVL_ISA_O_P, .lo = lo_, .width = 3, .lo2 = n_,         \
		.flags = NVL_ISA_F_NOT | NVL_ISA_F_OPT, .def = def_            \
	}
#define IMM(lo_, w_, fl)                                                       \
	{                                                                      \
		.kind = NVL_ISA_O_IMM, .lo = lo_, .width = w_, .flags = (fl)   \
	}
#define SR(lo_)                                                                \
	{                                                                      \
		.kind = NVL_ISA_O_SR, .lo = lo_, .width = 8                    \
	}
#define BR                                                                     \
	{                                                                      \
		.kind = NVL_ISA_O_B, .lo = 16, .width = 4                      \
	}
/* [Ra + signed imm24 at 63:40] */
#define MEM                                                                    \
	{                                                                      \
		.kind = NVL_ISA_O_MEM, .lo = 24, .width = 8, .lo2 = 40,        \
		.width2 = 24                                                   \
	}
#define CBUF(idx_w)                                                            \
	{                                                                      \
		.kind = NVL_ISA_O_CBUF, .lo = 24, .width = idx_w               \
	}
#define TGT(lo_, w_)                                                           \
	{                                                                      \
		.kind = NVL_ISA_O_TARGET, .lo = lo_, .width = w_               \
	}

#define PT_NOT 0xf /* !PT: a "false" carry-in or accumulator */

#define OPS(...)                                                               \
	.opnd = {__VA_ARGS__},                                                 \
	.nopnd = N(((struct nvl_isa_odesc[]){__VA_ARGS__}))
#define MODS(...)                                                              \
	.mod = {__VA_ARGS__},                                                  \
	.nmod = N(((const struct nvl_isa_mdesc *[]){__VA_ARGS__}))
#define FIX(...)                                                               \
	.fixed = {__VA_ARGS__},                                                \
	.nfixed = N(((struct nvl_isa_fixed[]){__VA_ARGS__}))

#define VAR NVL_ISA_R_VARLAT
#define UNI NVL_ISA_R_UNIFORM
#define BRN NVL_ISA_R_BRANCH

static const struct nvl_isa_row rows[] = {
	/* moves and special registers (reference §2.1) */
	{"MOV", 0x202, NVL_ISA_ALU2, NVL_SEM_MOV, 0, 0, OPS(RD, FB(0)),
	 FIX({72, 4, 0xf})},
	{"UMOV", 0xc82, 0, NVL_SEM_MOV, UNI, 0,
	 OPS(URD, {.kind = NVL_ISA_O_UR, .lo = 32, .width = 8})},
	{"UMOV", 0x882, 0, NVL_SEM_MOV, UNI, 0, OPS(URD, IMM(32, 32, 0))},
	{"S2R", 0x919, 0, NVL_SEM_S2R, VAR, 0, OPS(RD, SR(72))},
	{"S2UR", 0x9c3, 0, NVL_SEM_S2R, VAR, 0, OPS(URD, SR(72))},
	{"CS2R", 0x805, 0, NVL_SEM_CS2R, VAR, 0, OPS(RD, SR(72)),
	 MODS(&g_cs2r)},
	{"R2UR", 0x3c2, 0, NVL_SEM_R2UR, VAR, 0, OPS(URD, RA(0))},
	/* integer ALU */
	{"IADD3", 0x210, NVL_ISA_ALU3, NVL_SEM_IADD3, 0, 0,
	 OPS(RD, PDO(81), PDO(84), RA(F_NEG), FB(F_NEG | F_SGN),
	     FC(F_NEG | F_SGN), PSO(87, 90, PT_NOT), PSO(77, 80, PT_NOT)),
	 MODS(&g_x74)},
	{"UIADD3", 0x290, NVL_ISA_ALU3U, NVL_SEM_IADD3, UNI, 0,
	 OPS(URD,
	     {.kind = NVL_ISA_O_UP,
	      .lo = 81,
	      .width = 3,
	      .flags = NVL_ISA_F_DST | NVL_ISA_F_OPT,
	      .def = NVL_ISA_PT},
	     {.kind = NVL_ISA_O_UP,
	      .lo = 84,
	      .width = 3,
	      .flags = NVL_ISA_F_DST | NVL_ISA_F_OPT,
	      .def = NVL_ISA_PT},
	     URA, FB(F_NEG | F_SGN), FC(F_NEG | F_SGN)),
	 MODS(&g_x74), FIX({77, 4, PT_NOT}, {87, 4, PT_NOT})},
	{"IMAD", 0x224, NVL_ISA_ALU3, NVL_SEM_IMAD, 0, 0,
	 OPS(RD, RA(0), FB(F_NEG | F_SGN), FC(F_NEG | F_SGN)), MODS(&g_sign),
	 FIX({81, 3, 7}, {87, 4, PT_NOT})},
	{"IMAD", 0x225, NVL_ISA_ALU3, NVL_SEM_IMAD_WIDE, 0, 0,
	 OPS(RD2, RA(0), FB(F_NEG | F_SGN), FC(F_NEG | F_SGN | F_PAIR)),
	 MODS(&g_wide, &g_sign), FIX({81, 3, 7}, {87, 4, PT_NOT})},
	{"IMAD", 0x227, NVL_ISA_ALU3, NVL_SEM_IMAD_HI, 0, 0,
	 OPS(RD, RA(0), FB(F_NEG | F_SGN), FC(F_NEG | F_SGN)),
	 MODS(&g_hitag, &g_sign), FIX({81, 3, 7}, {87, 4, PT_NOT})},
	{"LEA", 0x211, NVL_ISA_ALU3, NVL_SEM_LEA, 0, 0,
	 OPS(RD, PDO(81), RA(F_NEG), FB(0), FC(0), IMM(75, 5, 0),
	     PSO(87, 90, PT_NOT)),
	 MODS(&g_hi80, &g_x74)},
	{"LOP3", 0x212, NVL_ISA_ALU3, NVL_SEM_LOP3, 0, 0,
	 OPS(RD, PDO(81), RA(0), FB(0), FC(0), IMM(72, 8, 0), PS(87, 90)),
	 MODS(&g_lut, &g_pand)},
	{"ULOP3", 0x292, NVL_ISA_ALU3U, NVL_SEM_LOP3, UNI, 0,
	 OPS(URD, URA, FB(0), FC(0), IMM(72, 8, 0),
	     {.kind = NVL_ISA_O_UP,
	      .lo = 87,
	      .width = 3,
	      .lo2 = 90,
	      .flags = NVL_ISA_F_NOT}),
	 MODS(&g_lut, &g_pand), FIX({81, 3, 7})},
	{"SHF", 0x219, NVL_ISA_ALU3, NVL_SEM_SHF, 0, 0,
	 OPS(RD, RA(0), FB(0), FC(0)), MODS(&g_dir, &g_w, &g_shft, &g_hi80)},
	{"USHF", 0x299, NVL_ISA_ALU3U, NVL_SEM_SHF, UNI, 0,
	 OPS(URD, URA, FB(0), FC(0)), MODS(&g_dir, &g_w, &g_shft, &g_hi80)},
	{"IMNMX", 0x217, NVL_ISA_ALU2, NVL_SEM_IMNMX, 0, 0,
	 OPS(RD, RA(0), FB(F_SGN), PS(87, 90)), MODS(&g_sign)},
	{"IABS", 0x213, NVL_ISA_ALU2, NVL_SEM_IABS, 0, 0, OPS(RD, FB(0))},
	{"POPC", 0x309, NVL_ISA_ALU2, NVL_SEM_POPC, VAR, 0, OPS(RD, FB(0))},
	{"FLO", 0x300, NVL_ISA_ALU2, NVL_SEM_FLO, VAR, 0, OPS(RD, FB(0)),
	 MODS(&g_sign)},
	{"BREV", 0x301, NVL_ISA_ALU2, NVL_SEM_BREV, VAR, 0, OPS(RD, FB(0))},
	{"PRMT", 0x216, NVL_ISA_ALU3, NVL_SEM_PRMT, 0, 0,
	 OPS(RD, RA(0), FB(0), FC(0))},
	/* compare, predicates, select (§2.2) */
	{"ISETP", 0x20c, NVL_ISA_ALU2, NVL_SEM_ISETP, 0, 0,
	 OPS(PD(81), PD(84), RA(0), FB(F_SGN), PS(87, 90)),
	 MODS(&g_icmp, &g_sign, &g_bop), FIX({68, 3, 7})},
	{"UISETP", 0x28c, NVL_ISA_ALU2U, NVL_SEM_ISETP, UNI, 0,
	 OPS({.kind = NVL_ISA_O_UP,
	      .lo = 81,
	      .width = 3,
	      .flags = NVL_ISA_F_DST},
	     {.kind = NVL_ISA_O_UP,
	      .lo = 84,
	      .width = 3,
	      .flags = NVL_ISA_F_DST},
	     URA, FB(F_SGN),
	     {.kind = NVL_ISA_O_UP,
	      .lo = 87,
	      .width = 3,
	      .lo2 = 90,
	      .flags = NVL_ISA_F_NOT}),
	 MODS(&g_icmp, &g_sign, &g_bop), FIX({68, 3, 7})},
	{"FSETP", 0x20b, NVL_ISA_ALU2, NVL_SEM_FSETP, 0, 0,
	 OPS(PD(81), PD(84), RA(F_NEG | F_ABS), FB(F_NEG | F_ABS | F_FLT),
	     PS(87, 90)),
	 MODS(&g_fcmp, &g_ftz, &g_bop)},
	{"PLOP3", 0x81c, 0, NVL_SEM_PLOP3, 0, 0,
	 OPS(PD(81), PD(84), PS(87, 90), PS(77, 80), PS(68, 71),
	     {.kind = NVL_ISA_O_IMM,
	      .lo = 64,
	      .width = 3,
	      .lo2 = 72,
	      .width2 = 5},
	     IMM(16, 8, 0)),
	 MODS(&g_lut)},
	{"SEL", 0x207, NVL_ISA_ALU2, NVL_SEM_SEL, 0, 0,
	 OPS(RD, RA(0), FB(F_SGN), PS(87, 90))},
	{"FSEL", 0x208, NVL_ISA_ALU2, NVL_SEM_SEL, 0, 0,
	 OPS(RD, RA(0), FB(F_FLT), PS(87, 90))},
	/* float and conversions (§2.3) */
	{"FADD", 0x221, NVL_ISA_ALU2X, NVL_SEM_FADD, 0, 0,
	 OPS(RD, RA(F_NEG | F_ABS), FB(F_NEG | F_ABS | F_FLT)),
	 MODS(&g_ftz, &g_frnd, &g_sat)},
	{"FMUL", 0x220, NVL_ISA_ALU2, NVL_SEM_FMUL, 0, 0,
	 OPS(RD, RA(F_NEG | F_ABS), FB(F_NEG | F_ABS | F_FLT)),
	 MODS(&g_fmz, &g_ftz, &g_frnd, &g_sat), FIX({84, 3, 4})},
	{"FFMA", 0x223, NVL_ISA_ALU3, NVL_SEM_FFMA, 0, 0,
	 OPS(RD, RA(F_NEG), FB(F_NEG | F_FLT), FC(F_NEG | F_FLT)),
	 MODS(&g_fmz, &g_ftz, &g_frnd, &g_sat)},
	{"FMNMX", 0x209, NVL_ISA_ALU2, NVL_SEM_FMNMX, 0, 0,
	 OPS(RD, RA(F_NEG | F_ABS), FB(F_NEG | F_ABS | F_FLT), PS(87, 90)),
	 MODS(&g_ftz)},
	{"MUFU", 0x308, NVL_ISA_ALU2, NVL_SEM_MUFU, VAR, 0,
	 OPS(RD, FB(F_NEG | F_ABS | F_FLT)), MODS(&g_mufu)},
	/* conversions with a 64-bit side use their own opcode (CUA: I2F.F64
	 * and I2F.S64 are 0x112); the 0x106/0x105 rows stop at 32 bits */
	{"I2F", 0x306, NVL_ISA_ALU2, NVL_SEM_I2F, VAR, 0, OPS(RD, FB(F_SGN)),
	 MODS(&g_i2f_dst32, &g_i2f_src32, &g_frnd)},
	{"I2F", 0x312, NVL_ISA_ALU2, NVL_SEM_I2F, VAR, 0, OPS(RD, FB(F_SGN)),
	 MODS(&g_i2f_dst, &g_i2f_src, &g_frnd), .nany = 2,
	 .any = {{75, 2, 3}, {84, 2, 3}}},
	{"F2I", 0x305, NVL_ISA_ALU2, NVL_SEM_F2I, VAR, 0,
	 OPS(RD, FB(F_NEG | F_ABS | F_FLT)),
	 MODS(&g_ftz, &g_f2i_dst32, &g_f2i_src32, &g_irnd, &g_ntz)},
	{"F2I", 0x311, NVL_ISA_ALU2, NVL_SEM_F2I, VAR, 0,
	 OPS(RD, FB(F_NEG | F_ABS | F_FLT)),
	 MODS(&g_ftz, &g_f2i_dst, &g_f2i_src, &g_irnd, &g_ntz), .nany = 2,
	 .any = {{75, 2, 3}, {84, 2, 3}}},
	/* memory (§2.4) */
	{"LDG", 0x381, 0, NVL_SEM_LDG, VAR, 0, OPS(RD, MEM),
	 MODS(&g_e, &g_evict, &g_mtyp, &g_order), FIX({81, 3, 7})},
	{"STG", 0x386, 0, NVL_SEM_STG, VAR, 0, OPS(MEM, RAT(32)),
	 MODS(&g_e, &g_evict, &g_mtyp, &g_order)},
	{"LDS", 0x984, 0, NVL_SEM_LDS, VAR, 0, OPS(RD, MEM), MODS(&g_mtyp)},
	{"STS", 0x388, 0, NVL_SEM_STS, VAR, 0, OPS(MEM, RAT(32)),
	 MODS(&g_mtyp)},
	{"LDC", 0xb82, 0, NVL_SEM_LDC, VAR, 0, OPS(RD, CBUF(8)), MODS(&g_mtyp)},
	{"ULDC", 0xab9, 0, NVL_SEM_LDC, 0, 0, OPS(URD, CBUF(0)), MODS(&g_mtyp)},
	{"ATOMG", 0x3a8, 0, NVL_SEM_ATOMG, VAR, 0,
	 OPS(PD(81), RD, MEM, RAT(32)), MODS(&g_e, &g_aop, &g_atyp, &g_order)},
	{"ATOMG", 0x3a9, 0, NVL_SEM_ATOMG_CAS, VAR, 0,
	 OPS(PD(81), RD, MEM, RAT(32), RAT(64)),
	 MODS(&g_e, &g_cas, &g_atyp, &g_order)},
	{"RED", 0x98e, 0, NVL_SEM_RED, VAR, 0, OPS(MEM, RAT(32)),
	 MODS(&g_e, &g_rop, &g_atyp, &g_order), .alt_name = "REDG",
	 .alt_arch = NVL_ISA_SM90},
	{"ATOMS", 0x38c, 0, NVL_SEM_ATOMS, VAR, 0, OPS(RD, MEM, RAT(32)),
	 MODS(&g_aop, &g_styp)},
	{"ATOMS", 0x38d, 0, NVL_SEM_ATOMS_CAS, VAR, 0,
	 OPS(RD, MEM, RAT(32), RAT(64)), MODS(&g_cas, &g_styp)},
	{"MEMBAR", 0x992, 0, NVL_SEM_MEMBAR, VAR, 0, OPS(),
	 MODS(&g_mbsem, &g_mbscope)},
	/* barriers, warp ops, control flow (§2.5) */
	{"BAR", 0xb1d, 0, NVL_SEM_BAR, VAR, 0,
	 OPS(IMM(0, 0, 0), PSO(87, 90, NVL_ISA_PT)),
	 MODS(&g_barm, &g_barop, &g_defer)},
	{"SHFL", 0x389, 0, NVL_SEM_SHFL, VAR, 0,
	 OPS(PD(81), RD, RA(0), RAT(32), RAT(64)), MODS(&g_shfl)},
	{"SHFL", 0x589, 0, NVL_SEM_SHFL, VAR, 0,
	 OPS(PD(81), RD, RA(0), RAT(32), IMM(40, 13, 0)), MODS(&g_shfl)},
	{"SHFL", 0x989, 0, NVL_SEM_SHFL, VAR, 0,
	 OPS(PD(81), RD, RA(0), IMM(53, 5, 0), RAT(64)), MODS(&g_shfl)},
	{"SHFL", 0xf89, 0, NVL_SEM_SHFL, VAR, 0,
	 OPS(PD(81), RD, RA(0), IMM(53, 5, 0), IMM(40, 13, 0)), MODS(&g_shfl)},
	{"VOTE", 0x806, 0, NVL_SEM_VOTE, 0, 0, OPS(RD, PD(81), PS(87, 90)),
	 MODS(&g_vote)},
	{"BRA", 0x947, 0, NVL_SEM_BRA, BRN, 0,
	 OPS(PSO(87, 90, NVL_ISA_PT), TGT(34, 48)), MODS(&g_brm)},
	{"BSSY", 0x945, 0, NVL_SEM_BSSY, 0, 0, OPS(BR, TGT(34, 30)),
	 FIX({87, 3, 7})},
	{"BSYNC", 0x941, 0, NVL_SEM_BSYNC, BRN, 0, OPS(BR), FIX({87, 3, 7})},
	{"BREAK", 0x942, 0, NVL_SEM_BREAK, 0, 0,
	 OPS(PSO(87, 90, NVL_ISA_PT), BR)},
	{"WARPSYNC", 0x948, 0, NVL_SEM_WARPSYNC, 0, 0,
	 OPS(PSO(87, 90, NVL_ISA_PT), IMM(32, 32, 0))},
	{"EXIT", 0x94d, 0, NVL_SEM_EXIT, BRN, 0, OPS(PSO(87, 90, NVL_ISA_PT))},
	{"NOP", 0x918, 0, NVL_SEM_NOP, 0, 0, OPS()},
};

const struct nvl_isa_row *nvl_isa_rows(size_t *n_out)
{
	*n_out = N(rows);
	return rows;
}

/* SPDX-License-Identifier: MIT */
/*
 * The Volta+ SASS instruction set (SM75, SM80, SM86, SM89, SM90) as one
 * table, and the encoder, decoder, printer and assembler driven by it.
 *
 * An instruction is 128 bits (two little-endian u64 words; bit n is bit
 * n % 64 of word n / 64). Facts: ../shared/reference/compute-isa.md §1-2.
 *
 * The table (table.c) has one row per encoding: a mnemonic, a 12-bit
 * opcode (or, for ALU rows, a 9-bit base op combined with the operand form
 * in bits 11:9), the operands with their bit positions, the modifier groups
 * (a bit field and the names of its values), fixed fields, and the
 * semantic op the model executes. Everything else (encode, decode, text)
 * is generic code over the rows; docs/compute.md describes the format.
 */
#ifndef NVL_HW_ISA_ISA_H
#define NVL_HW_ISA_ISA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Architectures whose encodings the table covers. */
enum nvl_isa_arch {
	NVL_ISA_SM75 = 0,
	NVL_ISA_SM80,
	NVL_ISA_SM86,
	NVL_ISA_SM89,
	NVL_ISA_SM90,
	NVL_ISA_ARCH_COUNT
};

#define NVL_ISA_RZ 255
#define NVL_ISA_URZ 63
#define NVL_ISA_PT 7
#define NVL_ISA_MAX_OPNDS 8
#define NVL_ISA_MAX_MODS 8

/** Operand kinds of a row (where an operand's bits are). */
enum nvl_isa_okind {
	NVL_ISA_O_R = 1, /* GPR in an 8-bit field */
	NVL_ISA_O_UR, /* uniform register in an 8-bit field (URZ = 63) */
	NVL_ISA_O_P, /* predicate, 3-bit field (+ not bit for sources) */
	NVL_ISA_O_UP, /* uniform predicate */
	NVL_ISA_O_B, /* convergence barrier B0-B15, 4-bit field */
	NVL_ISA_O_SR, /* special register, 8-bit field */
	NVL_ISA_O_IMM, /* immediate: field (+ second field for splits) */
	NVL_ISA_O_FLEXB, /* ALU source b: GPR/imm/cbuf/UR by operand form */
	NVL_ISA_O_FLEXC, /* ALU source c: GPR/imm/cbuf/UR by operand form */
	NVL_ISA_O_CBUF, /* c[bank][Ra + off] (LDC, ULDC) */
	NVL_ISA_O_MEM, /* [Ra + imm24] */
	NVL_ISA_O_TARGET /* branch target, signed word offset from PC+16 */
};

/* Operand flags. */
#define NVL_ISA_F_NEG 0x01 /* '-' allowed (bit by position) */
#define NVL_ISA_F_ABS 0x02 /* '|x|' allowed */
#define NVL_ISA_F_SIGNED 0x04 /* immediate prints/parses as signed */
#define NVL_ISA_F_FLOAT 0x08 /* imm32 is an f32 */
#define NVL_ISA_F_OPT 0x10 /* may be omitted; default value applies */
#define NVL_ISA_F_DST 0x20 /* written (for the model and hazards) */
#define NVL_ISA_F_NOT 0x40 /* predicate source with '!' (not bit) */
#define NVL_ISA_F_PAIR 0x80 /* 64-bit register pair */

/** struct nvl_isa_odesc - one operand of a row. */
struct nvl_isa_odesc {
	uint8_t kind;
	uint8_t lo, width; /* main field */
	uint8_t lo2, width2; /* IMM: high part; P: not bit in lo2 */
	uint8_t flags;
	uint8_t neg_bit, abs_bit; /* for O_R at 24 (Ra); flex: by position */
	uint32_t def; /* value when omitted (F_OPT) */
};

/**
 * struct nvl_isa_mdesc - a modifier group: a bit field (possibly split in
 * two) and the name of each value. A NULL name is an invalid value; ""
 * is the default, printed as nothing. A group with width 0 and one name
 * is a tag that selects the row (IMAD.WIDE, ATOMG.CAS).
 */
struct nvl_isa_mdesc {
	uint8_t lo, width, lo2, width2;
	uint8_t nnames;
	const char *const *names;
	/* arch >= alt_from uses alt_names (0 = none) */
	uint8_t alt_from, alt_nnames;
	const char *const *alt_names;
};

/** Operand-form styles of ALU rows (bits 11:9, reference §1.2). */
enum nvl_isa_alu {
	NVL_ISA_ALU_NONE = 0, /* fixed 12-bit opcode */
	NVL_ISA_ALU3, /* b, c: forms 1-7 */
	NVL_ISA_ALU2, /* b in slot 1: forms 1, 4, 5, 6 */
	NVL_ISA_ALU2X, /* b in slot 2 when not a GPR: forms 1, 2, 3, 7 */
	NVL_ISA_ALU3U, /* uniform op: URs, forms 1, 2, 4 */
	NVL_ISA_ALU2U, /* uniform op, b only: forms 1, 4 */
};

/** Semantic ops, what the model's interpreter executes. */
enum nvl_isa_sem {
	NVL_SEM_NOP = 0,
	NVL_SEM_MOV,
	NVL_SEM_S2R,
	NVL_SEM_CS2R,
	NVL_SEM_IADD3,
	NVL_SEM_IMAD,
	NVL_SEM_IMAD_WIDE,
	NVL_SEM_IMAD_HI,
	NVL_SEM_LEA,
	NVL_SEM_LOP3,
	NVL_SEM_SHF,
	NVL_SEM_IMNMX,
	NVL_SEM_IABS,
	NVL_SEM_POPC,
	NVL_SEM_FLO,
	NVL_SEM_BREV,
	NVL_SEM_PRMT,
	NVL_SEM_ISETP,
	NVL_SEM_FSETP,
	NVL_SEM_PLOP3,
	NVL_SEM_SEL,
	NVL_SEM_FADD,
	NVL_SEM_FMUL,
	NVL_SEM_FFMA,
	NVL_SEM_FMNMX,
	NVL_SEM_MUFU,
	NVL_SEM_I2F,
	NVL_SEM_F2I,
	NVL_SEM_LDG,
	NVL_SEM_STG,
	NVL_SEM_LDS,
	NVL_SEM_STS,
	NVL_SEM_LDC,
	NVL_SEM_ATOMG,
	NVL_SEM_ATOMG_CAS,
	NVL_SEM_RED,
	NVL_SEM_ATOMS,
	NVL_SEM_ATOMS_CAS,
	NVL_SEM_MEMBAR,
	NVL_SEM_BAR,
	NVL_SEM_SHFL,
	NVL_SEM_VOTE,
	NVL_SEM_BRA,
	NVL_SEM_BSSY,
	NVL_SEM_BSYNC,
	NVL_SEM_BREAK,
	NVL_SEM_WARPSYNC,
	NVL_SEM_EXIT,
	NVL_SEM_R2UR,
	NVL_SEM_COUNT
};

/* Row flags. */
#define NVL_ISA_R_UNIFORM 0x01 /* U* op: bit 91 always set */
#define NVL_ISA_R_VARLAT 0x02 /* variable latency: needs a scoreboard */
#define NVL_ISA_R_BRANCH 0x04 /* changes control flow */

/** struct nvl_isa_fixed - a field every encoding of a row carries. */
struct nvl_isa_fixed {
	uint8_t lo, width;
	uint32_t value;
};

/** struct nvl_isa_row - one encoding in the table. */
struct nvl_isa_row {
	const char *name;
	uint16_t opcode; /* ALU rows: base op in 8:0, register form */
	uint8_t alu; /* enum nvl_isa_alu */
	uint8_t sem; /* enum nvl_isa_sem */
	uint8_t flags;
	uint8_t arch_min; /* first arch with this row */
	uint8_t nopnd, nmod, nfixed;
	struct nvl_isa_odesc opnd[NVL_ISA_MAX_OPNDS];
	const struct nvl_isa_mdesc *mod[NVL_ISA_MAX_MODS];
	struct nvl_isa_fixed fixed[4];
	/* at least one of these fields must hold its value (I2F/F2I's
	 * 64-bit-side opcodes), nany = 0: no constraint */
	uint8_t nany;
	struct nvl_isa_fixed any[2];
	const char *alt_name; /* name from alt_arch on (RED -> REDG) */
	uint8_t alt_arch;
};

/** Kinds of a decoded operand value. */
enum nvl_isa_vkind {
	NVL_ISA_V_NONE = 0,
	NVL_ISA_V_R,
	NVL_ISA_V_UR,
	NVL_ISA_V_P,
	NVL_ISA_V_UP,
	NVL_ISA_V_B,
	NVL_ISA_V_SR,
	NVL_ISA_V_IMM,
	NVL_ISA_V_CBUF,
	NVL_ISA_V_MEM,
	NVL_ISA_V_TARGET
};

/**
 * struct nvl_isa_val - a decoded operand. @reg is the register (R, UR, P,
 * UP, B, SR; the index register of CBUF and the base of MEM), @imm the
 * immediate, the cbuf byte offset or the memory offset, @bank the cbuf bank.
 * A TARGET's @imm is the signed byte offset from the next instruction.
 */
struct nvl_isa_val {
	uint8_t kind;
	uint8_t reg;
	uint8_t bank;
	bool neg, abs, not_, reuse;
	int64_t imm;
};

/** struct nvl_isa_ctrl - the control field, bits 125:105 (reference §1.3). */
struct nvl_isa_ctrl {
	uint8_t stall; /* 108:105 */
	uint8_t yield; /* 109 (raw bit) */
	uint8_t wbar; /* 112:110, 7 = none */
	uint8_t rbar; /* 115:113, 7 = none */
	uint8_t wait; /* 121:116 */
	uint8_t reuse; /* 125:122 */
};

/** struct nvl_isa_insn - one decoded instruction. */
struct nvl_isa_insn {
	const struct nvl_isa_row *row;
	uint8_t form; /* ALU rows: 1-7 */
	uint8_t guard;
	bool guard_not;
	uint16_t mod[NVL_ISA_MAX_MODS];
	struct nvl_isa_val op[NVL_ISA_MAX_OPNDS];
	struct nvl_isa_ctrl ctrl;
};

/** nvl_isa_rows() - the table; @n_out receives its length. */
const struct nvl_isa_row *nvl_isa_rows(size_t *n_out);

/** nvl_isa_arch_name() - "sm75" ... or NULL. */
const char *nvl_isa_arch_name(enum nvl_isa_arch arch);

/** nvl_isa_arch_parse() - "sm75"/"75"/"sm_75" → arch; -EINVAL if unknown. */
int nvl_isa_arch_parse(const char *s, enum nvl_isa_arch *arch_out);

/** nvl_isa_row_name() - the row's mnemonic on @arch. */
const char *nvl_isa_row_name(const struct nvl_isa_row *row,
			     enum nvl_isa_arch arch);

/** nvl_isa_mod_names() - the names of modifier group @m on @arch. */
const char *const *nvl_isa_mod_names(const struct nvl_isa_mdesc *m,
				     enum nvl_isa_arch arch);

/**
 * nvl_isa_encode() - encode @insn into @w for @arch.
 *
 * Return: 0, or -EINVAL (with nvl_error_msg()) when a value does not fit
 * its field or the operands do not fit any operand form.
 */
int nvl_isa_encode(const struct nvl_isa_insn *insn, enum nvl_isa_arch arch,
		   uint64_t w[2]);

/**
 * nvl_isa_decode() - decode the 128-bit instruction @w for @arch.
 *
 * Strict: any set bit that the row does not define, a reserved modifier
 * value or a mismatching fixed field is an error, so that every decoded
 * instruction encodes back to the same bits.
 *
 * Return: 0, or -EINVAL (unknown opcode, reserved bits or values).
 */
int nvl_isa_decode(const uint64_t w[2], enum nvl_isa_arch arch,
		   struct nvl_isa_insn *insn_out);

/**
 * nvl_isa_print() - format @insn at byte address @pc as text (the
 * assembler's syntax, control prefix included when @ctrl).
 *
 * Return: the length written (truncated to @size - 1 like snprintf), or
 * -EINVAL.
 */
int nvl_isa_print(const struct nvl_isa_insn *insn, enum nvl_isa_arch arch,
		  uint64_t pc, bool ctrl, char *buf, size_t size);

/**
 * nvl_isa_disasm() - decode and print the @n instructions at @w (pairs of
 * u64), one per line, into a newly allocated string (*@text_out, free with
 * nvl_free()). Addresses start at @base.
 *
 * Return: 0, -EINVAL for an undecodable word (the message names its
 * address), -ENOMEM.
 */
int nvl_isa_disasm(const uint64_t *w, size_t n, enum nvl_isa_arch arch,
		   uint64_t base, bool ctrl, char **text_out);

/**
 * struct nvl_isa_asm_error - where the assembler stopped: 1-based @line and
 * @col, and what it expected, in @msg.
 */
struct nvl_isa_asm_error {
	unsigned line, col;
	char msg[160];
};

/**
 * nvl_isa_assemble() - assemble @text (lines of instructions, labels
 * "name:", comments "//" or "#") for @arch at byte address @base.
 * On success *@w_out (nvl_free()) holds 2 * *@n_out u64 words.
 *
 * Return: 0, -EINVAL with @err filled (and the same text in
 * nvl_error_msg()), -ENOMEM.
 */
int nvl_isa_assemble(const char *text, enum nvl_isa_arch arch, uint64_t base,
		     uint64_t **w_out, size_t *n_out,
		     struct nvl_isa_asm_error *err);

/** struct nvl_isa_gpr - GPRs one operand names: Rreg .. Rreg + n - 1. */
struct nvl_isa_gpr {
	uint8_t reg; /* the first, the low word (never RZ) */
	uint8_t n; /* 1, 2 (a pair) or 4 (a quad); less only where R254 + n
		    * would reach RZ */
	bool dst; /* written by the instruction (else read) */
};

/**
 * nvl_isa_gprs() - the GPRs @insn names, operand by operand (RZ left
 * out): a 64-bit operand (IMAD.WIDE's d and c, .E addresses, 64-bit
 * memory and atomic types, conversions with a 64-bit side, CS2R's pair)
 * is two registers, a 128-bit one four; the index register of
 * c[bank][Ra+off] is one (a byte offset), whatever the load's width.
 * The one description of register widths: the driver's REGISTER_COUNT
 * (nvl_isa_gpr_end()) and the model's register use (OOR_REG, hazards,
 * which rows a warp clears) both come from here.
 * @insn: a decoded instruction
 * @out: room for NVL_ISA_MAX_OPNDS entries
 *
 * Return: the number of entries written.
 */
unsigned nvl_isa_gprs(const struct nvl_isa_insn *insn, struct nvl_isa_gpr *out);

/**
 * nvl_isa_gpr_end() - one past the highest GPR @insn names (0: none; RZ
 * is not counted), from nvl_isa_gprs(). A thread running @insn needs at
 * least that many (the QMD's REGISTER_COUNT).
 */
unsigned nvl_isa_gpr_end(const struct nvl_isa_insn *insn);

/** nvl_isa_ctrl_default() - the control field of an instruction that names none. */
struct nvl_isa_ctrl nvl_isa_ctrl_default(void);

/**
 * nvl_isa_param_base() - byte offset of the kernel parameters in c[0x0]
 * under nvcc's ABI: 0x160 up to SM89, 0x210 on SM90 (reference §1.5, §3;
 * the SM90 value is marked uncertain there).
 */
static inline uint32_t nvl_isa_param_base(enum nvl_isa_arch arch)
{
	return arch >= NVL_ISA_SM90 ? 0x210 : 0x160;
}

/** Field helpers on a 128-bit word. */
static inline uint64_t nvl_isa_get(const uint64_t w[2], unsigned lo,
				   unsigned width)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < width; i++) {
		unsigned b = lo + i;

		v |= ((w[b >> 6] >> (b & 63)) & 1ull) << i;
	}
	return v;
}

static inline void nvl_isa_set(uint64_t w[2], unsigned lo, unsigned width,
			       uint64_t v)
{
	for (unsigned i = 0; i < width; i++) {
		unsigned b = lo + i;
		uint64_t bit = 1ull << (b & 63);

		if ((v >> i) & 1)
			w[b >> 6] |= bit;
		else
			w[b >> 6] &= ~bit;
	}
}

#endif /* NVL_HW_ISA_ISA_H */

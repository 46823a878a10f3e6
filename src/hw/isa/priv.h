/* SPDX-License-Identifier: MIT */
/* Internals shared by the ISA encoder, decoder, printer and assembler. */
#ifndef NVL_HW_ISA_PRIV_H
#define NVL_HW_ISA_PRIV_H

#include "hw/isa/isa.h"

/** struct nvl_isa_slot - where an ALU source sits in a form. */
struct nvl_isa_slot {
	uint8_t kind; /* enum nvl_isa_vkind: R, UR, IMM, CBUF */
	uint8_t area; /* 32: slot 1 (39:32 / 63:32 / 58:32), 64: 71:64 */
};

bool nvl_isa_form_layout(uint8_t alu, uint8_t form, struct nvl_isa_slot *b,
			 struct nvl_isa_slot *c);
/* the form whose b/c kinds are @bk/@ck (0 when the row has no c), or -1 */
int nvl_isa_pick_form(uint8_t alu, uint8_t bk, uint8_t ck);
const struct nvl_isa_row *nvl_isa_lookup(uint16_t opcode,
					 enum nvl_isa_arch arch);
unsigned nvl_isa_mod_count(const struct nvl_isa_mdesc *m,
			   enum nvl_isa_arch arch);
/*
 * nvl_isa_encode() that reports a failure without nesting messages:
 * *@bad_opnd = the row operand whose value does not fit (or -1), @why =
 * the reason alone (no "isa: " prefix, no errno text), for the
 * assembler's line:column report.
 */
int nvl_isa_encode_why(const struct nvl_isa_insn *insn, enum nvl_isa_arch arch,
		       uint64_t w[2], int *bad_opnd, char *why, size_t size);
/* special register name for index @i, or NULL */
const char *nvl_isa_sr_name(unsigned i);

#endif

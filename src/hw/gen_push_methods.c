// SPDX-License-Identifier: MIT
/*
 * Writes the public nouvelle/push_methods.h from the class method table
 * (hw/methods.h): the class numbers, method offsets, field ranges and
 * named values the pushbuffer builder (nouvelle/push.h) uses, so that no
 * method number is typed twice. Run at build time (a native program).
 */
#include <stdio.h>

#include "hw/compute.h"
#include "hw/methods.h"

#define C_(f, n, c) printf("#define NVL_PUSH_CLASS_%s_%s 0x%04x\n", #f, #n, c);
#define M_(f, n, off, first)                                                   \
	printf("#define NVL_PUSH_%s_%s 0x%04x /* from class 0x%04x */\n", #f,  \
	       #n, (unsigned)(off), (unsigned)(first));
#define F_(f, m, n, hi, lo)                                                    \
	printf("#define NVL_PUSH_%s_%s_%s_SHIFT %u\n"                          \
	       "#define NVL_PUSH_%s_%s_%s_MASK 0x%xu /* %u:%u */\n",           \
	       #f, #m, #n, (unsigned)(lo), #f, #m, #n,                         \
	       (unsigned)((1ull << ((hi) - (lo) + 1)) - 1), (unsigned)(hi),    \
	       (unsigned)(lo));
#define V_(f, m, fld, n, v)                                                    \
	printf("#define NVL_PUSH_%s_%s_%s_%s %u\n", #f, #m, #fld, #n,          \
	       (unsigned)(v));
#define H_(n, v) printf("#define NVL_PUSH_SEC_OP_%s %u\n", #n, (unsigned)(v));

int main(void)
{
	printf("/* SPDX-License-Identifier: MIT */\n"
	       "/*\n * Generated at build time from src/hw/methods.h by "
	       "gen_push_methods:\n * the class method numbers of "
	       "nouvelle/push.h. Do not edit.\n */\n"
	       "#ifndef NOUVELLE_PUSH_METHODS_H\n"
	       "#define NOUVELLE_PUSH_METHODS_H\n\n"
	       "/* classes */\n");
	NVL_HW_CLASS_LIST(C_)
	printf("\n/* method header SEC_OP 31:29 */\n");
	NVL_HW_HDR_LIST(H_)
	printf("\n/* Host (GPFIFO channel) class methods */\n");
	NVL_HW_HOST_METHODS(M_)
	NVL_HW_HOST_FIELDS(F_)
	NVL_HW_HOST_VALUES(V_)
	printf("\n/* copy class methods */\n");
	NVL_HW_CE_METHODS(M_)
	NVL_HW_CE_FIELDS(F_)
	NVL_HW_CE_VALUES(V_)
	printf("\n/* compute class methods */\n");
	NVL_HW_COMPUTE_METHODS(M_)
	printf("\n#endif /* NOUVELLE_PUSH_METHODS_H */\n");
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the SASS assembler on arbitrary text. Byte 0 picks the
 * architecture. Whatever assembles must disassemble, and the listing must
 * assemble to the same words; errors must name a line and column inside
 * the input.
 */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "hw/isa/isa.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nvl_isa_asm_error err;
	enum nvl_isa_arch arch;
	uint64_t *w, *w2;
	size_t n, n2;
	char *src, *text;
	unsigned lines = 1;

	if (size < 1 || size > 1 << 16)
		return 0;
	arch = (enum nvl_isa_arch)(data[0] % NVL_ISA_ARCH_COUNT);
	src = malloc(size);
	if (!src)
		return 0;
	memcpy(src, data + 1, size - 1);
	src[size - 1] = 0;
	for (char *p = src; *p; p++)
		lines += *p == '\n';
	if (nvl_isa_assemble(src, arch, 0x1000, &w, &n, &err)) {
		if (err.line < 1 || err.line > lines || err.col < 1 ||
		    !err.msg[0])
			abort();
		free(src);
		return 0;
	}
	free(src);
	if (nvl_isa_disasm(w, n, arch, 0x1000, true, &text))
		abort();
	if (nvl_isa_assemble(text, arch, 0x1000, &w2, &n2, &err) || n2 != n ||
	    memcmp(w, w2, n * 16))
		abort();
	nvl_free(w2);
	nvl_free(text);
	nvl_free(w);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the SASS decoder. Input: byte 0 picks the architecture,
 * then 16-byte instructions. Every word either fails to decode or decodes,
 * prints, re-encodes to the same bits and assembles back from its text.
 */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "hw/isa/isa.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum nvl_isa_arch arch;
	char text[256];

	if (size < 1)
		return 0;
	arch = (enum nvl_isa_arch)(data[0] % NVL_ISA_ARCH_COUNT);
	data++;
	size--;
	for (size_t off = 0; off + 16 <= size; off += 16) {
		struct nvl_isa_insn insn;
		struct nvl_isa_asm_error err;
		uint64_t w[2], w2[2], *a;
		size_t n;

		memcpy(w, data + off, 16);
		if (nvl_isa_decode(w, arch, &insn))
			continue;
		if (nvl_isa_encode(&insn, arch, w2) || w2[0] != w[0] ||
		    w2[1] != w[1])
			abort();
		if (nvl_isa_print(&insn, arch, 0x10000 + off, true, text,
				  sizeof(text)) <= 0)
			abort();
		if (nvl_isa_assemble(text, arch, 0x10000 + off, &a, &n, &err))
			abort();
		if (n != 1 || a[0] != w[0] || a[1] != w[1])
			abort();
		nvl_free(a);
	}
	return 0;
}

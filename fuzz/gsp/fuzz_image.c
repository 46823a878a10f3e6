// SPDX-License-Identifier: MIT
/*
 * Fuzz target: arbitrary bytes as a GSP firmware file. Every parser
 * (ELF image, booter, bootloader, nvfw_bin_hdr) reads the same input; a
 * parse that succeeds must describe only bytes inside the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gsp/image.h"

#define INSIDE(p, n, base, len)                                                \
	((const uint8_t *)(p) >= (base) &&                                     \
	 (size_t)((const uint8_t *)(p) - (base)) <= (len) &&                   \
	 (n) <= (len) - (size_t)((const uint8_t *)(p) - (base)))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A private copy: the parsers must not need the input writable. */
	uint8_t *buf = malloc(size ? size : 1);
	struct nvl_gsp_elf elf;
	struct nvl_gsp_booter booter;
	struct nvl_gsp_bootloader bl;
	struct nvl_fw_bin_hdr hdr;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	if (!nvl_gsp_elf_parse(buf, size, &elf)) {
		if (!INSIDE(elf.fwimage, elf.fwimage_size, buf, size))
			abort();
		if (strlen(elf.version) == 0)
			abort();
		for (unsigned i = 0; i < elf.num_sigs; i++)
			if (!INSIDE(elf.sigs[i].data, elf.sigs[i].size, buf,
				    size))
				abort();
	}
	if (!nvl_gsp_booter_parse(buf, size, &booter)) {
		const uint8_t *sig;

		if (!INSIDE(booter.payload, booter.payload_size, buf, size))
			abort();
		for (unsigned i = 0; i < booter.num_sig; i++) {
			if (nvl_gsp_booter_sig(&booter, i, &sig) ||
			    !INSIDE(sig, booter.sig_size, buf, size))
				abort();
		}
		if (booter.patch_loc + (uint64_t)booter.sig_size >
		    booter.payload_size)
			abort();
	}
	if (!nvl_gsp_bootloader_parse(buf, size, &bl)) {
		if (!INSIDE(bl.payload, bl.payload_size, buf, size))
			abort();
		if ((uint64_t)bl.desc.monitor_code_offset +
			    bl.desc.monitor_code_size >
		    bl.payload_size)
			abort();
	}
	if (!nvl_fw_bin_hdr_parse(buf, size, &hdr) &&
	    (uint64_t)hdr.data_offset + hdr.data_size > size)
		abort();
	free(buf);
	return 0;
}

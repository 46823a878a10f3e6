// SPDX-License-Identifier: MIT
/*
 * Fuzz target: a firmware file from disk (nvl_gsp_fw_read_file(), the
 * .zst/.xz decompression of src/gsp/fwload_read.c) is untrusted input.
 * Byte 0 picks how it is stored (plain, .zst, .xz: the file's suffix); the
 * rest is the file, written to a temporary file of that suffix. The reader
 * either refuses it (-EBADMSG, -EIO or -ENOMEM) giving nothing back, or
 * returns a buffer of the size it says, which for a plain file is the file.
 * The parsers of what it returns are fuzz-gsp_image's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "gsp/image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const sfx[] = {"", ".zst", ".xz"};
	enum nvl_gsp_fw_comp comp = NVL_GSP_FW_PLAIN;
	uint8_t *out = (uint8_t *)1;
	size_t out_len = 1;
	char dir[64], path[96];
	unsigned k;
	int fd, ret;

	if (!size)
		return 0;
	/* a directory per input, removed before returning: nothing is left
	 * behind however the fuzzer exits */
	snprintf(dir, sizeof(dir), "/tmp/nvl-fuzz-fwread.XXXXXX");
	if (!mkdtemp(dir))
		abort();
	k = data[0] % 3;
	snprintf(path, sizeof(path), "%s/fw.bin%s", dir, sfx[k]);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 ||
	    (size > 1 &&
	     write(fd, data + 1, size - 1) != (ssize_t)(size - 1)) ||
	    close(fd))
		abort();
	ret = nvl_gsp_fw_read_file(path, &out, &out_len, &comp);
	if (unlink(path) || rmdir(dir))
		abort();
	if (ret) {
		/* refused: nothing given back */
		if ((ret != -EBADMSG && ret != -EIO && ret != -ENOMEM) ||
		    out != (uint8_t *)1 || out_len != 1)
			abort();
		return 0;
	}
	if ((unsigned)comp != k || !out ||
	    out_len > NVL_GSP_FW_MAX_IMAGE + (1u << 20) ||
	    (k == 0 && (out_len != size - 1 || memcmp(out, data + 1, out_len))))
		abort();
	if (out_len)
		(void)*(volatile uint8_t *)(out + out_len - 1);
	nvl_free(out);
	return 0;
}

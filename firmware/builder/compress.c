// SPDX-License-Identifier: MIT
/* nvl-fwbuild: .zst (libzstd) and .xz (liblzma) copies of a file. */
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <zstd.h>

#include "builder.h"

static uint8_t *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p = NULL;
	long n;

	if (!f)
		goto err;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET))
		goto err_close;
	p = malloc(n ? (size_t)n : 1);
	if (!p || fread(p, 1, (size_t)n, f) != (size_t)n)
		goto err_close;
	fclose(f);
	*len = (size_t)n;
	return p;
err_close:
	fclose(f);
	free(p);
err:
	fprintf(stderr, "nvl-fwbuild: cannot read %s\n", path);
	return NULL;
}

int fwb_compress(const char *src, const char *dst, int xz)
{
	size_t len, cap, out_len = 0;
	uint8_t *in = read_all(src, &len), *out;
	int ret = -1;

	if (!in)
		return -1;
	cap = xz ? lzma_stream_buffer_bound(len) : ZSTD_compressBound(len);
	out = malloc(cap);
	if (!out)
		goto out_in;
	if (xz) {
		/* Preset 0: fast; the kernel's xz loader wants CRC32. */
		if (lzma_easy_buffer_encode(0, LZMA_CHECK_CRC32, NULL, in, len,
					    out, &out_len, cap) != LZMA_OK)
			goto out_out;
	} else {
		out_len = ZSTD_compress(out, cap, in, len, 3);
		if (ZSTD_isError(out_len))
			goto out_out;
	}
	ret = fwb_write_file(dst, out, out_len);
out_out:
	free(out);
out_in:
	free(in);
	if (ret)
		fprintf(stderr, "nvl-fwbuild: compressing %s failed\n", src);
	return ret;
}

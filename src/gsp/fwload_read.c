// SPDX-License-Identifier: MIT
/*
 * DOC: firmware file reading
 *
 * Reads a firmware file whole into an nvl_malloc'd buffer, decompressing
 * .zst (libzstd) and .xz (liblzma) as the kernel's firmware loader does
 * (CONFIG_FW_LOADER_COMPRESS_{ZSTD,XZ}). Output larger than a GSP image can
 * be (1 GiB + 1 MiB) is refused as corrupt, so a decompression bomb costs
 * nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "base/alloc.h"
#include "base/compiler.h"
#include "base/log.h"
#include "gsp/image.h"

#define MAX_OUT (NVL_GSP_FW_MAX_IMAGE + (1u << 20))

/*
 * A buffer for @n bytes of file or decompressed data. GSP images are tens
 * of MB read once into fresh memory: backed by 2 MiB pages where the
 * kernel has them, the first touch costs one fault per 2 MiB instead of
 * one per 4 KiB (docs/gsp.md, boot_time).
 */
static void *buf_alloc(size_t n)
{
	const size_t huge = (size_t)2 << 20;
	void *p;

	if (n < 2 * huge)
		return nvl_malloc(n ? n : 1);
	p = nvl_aligned_alloc(huge, NVL_ALIGN_UP(n, huge));
	if (p)
		madvise(p, NVL_ALIGN_UP(n, huge), MADV_HUGEPAGE);
	return p;
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && !strcmp(s + n - m, suf);
}

static int read_fd(int fd, const char *path, uint8_t **out, size_t *len)
{
	struct stat st;
	uint8_t *p;
	size_t n, got = 0;

	if (fstat(fd, &st))
		return nvl_error(-EIO, "fw: %s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return nvl_error(-EIO, "fw: %s: not a regular file", path);
	if ((uint64_t)st.st_size > MAX_OUT)
		return nvl_error(-EBADMSG, "fw: %s: %lld bytes is too large",
				 path, (long long)st.st_size);
	n = (size_t)st.st_size;
	p = buf_alloc(n);
	if (!p)
		return nvl_error(-ENOMEM, "fw: %s: out of memory", path);
	while (got < n) {
		ssize_t r = read(fd, p + got, n - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			nvl_free(p);
			return nvl_error(-EIO, "fw: %s: read failed at %zu",
					 path, got);
		}
		got += (size_t)r;
	}
	*out = p;
	*len = n;
	return 0;
}

/* Grow @buf to at least @want bytes (doubling, capped at MAX_OUT). */
static int grow(uint8_t **buf, size_t *cap, size_t want, const char *path)
{
	size_t n = *cap ? *cap : 1u << 20;
	uint8_t *p;

	while (n < want)
		n *= 2;
	if (n > MAX_OUT)
		n = MAX_OUT;
	if (n < want || n == *cap)
		return nvl_error(-EBADMSG,
				 "fw: %s: decompresses to more than %llu bytes",
				 path, (unsigned long long)MAX_OUT);
	p = *buf ? nvl_realloc(*buf, n) : buf_alloc(n);
	if (!p)
		return nvl_error(-ENOMEM, "fw: %s: out of memory", path);
	*buf = p;
	*cap = n;
	return 0;
}

/*
 * A frame that declares its size (zstd -c of a regular file always does)
 * is decoded in one call straight into a buffer of exactly that size: the
 * streaming decoder would decode into its own window buffer and copy every
 * byte out again (docs/gsp.md, boot_time_zst). A frame whose content does
 * not match its declared size, or that is followed by more data, is
 * rejected as the streaming path rejects it.
 */
static int unzstd_known(const uint8_t *in, size_t len, size_t known,
			const char *path, uint8_t **out, size_t *out_len)
{
	size_t flen = ZSTD_findFrameCompressedSize(in, len);
	uint8_t *buf;
	ZSTD_DCtx *dc;
	size_t r;
	int ret;

	if (ZSTD_isError(flen))
		return nvl_error(-EBADMSG, "fw: %s: zstd: %s", path,
				 ZSTD_getErrorName(flen));
	if (flen != len)
		return nvl_error(-EBADMSG,
				 "fw: %s: %zu bytes after the zstd frame", path,
				 len - flen);
	buf = buf_alloc(known);
	if (!buf)
		return nvl_error(-ENOMEM, "fw: %s: out of memory", path);
	ret = nvl_might_alloc(256 << 10); /* the decoder's own tables */
	if (ret || !(dc = ZSTD_createDCtx())) {
		nvl_free(buf);
		return nvl_error(-ENOMEM, "fw: %s: out of memory", path);
	}
	r = ZSTD_decompressDCtx(dc, buf, known, in, len);
	ZSTD_freeDCtx(dc);
	if (ZSTD_isError(r) || r != known) {
		nvl_free(buf);
		if (ZSTD_isError(r))
			return nvl_error(-EBADMSG, "fw: %s: zstd: %s", path,
					 ZSTD_getErrorName(r));
		return nvl_error(-EBADMSG,
				 "fw: %s: zstd frame holds %zu of %zu bytes",
				 path, r, known);
	}
	*out = buf;
	*out_len = known;
	return 0;
}

static int unzstd(const uint8_t *in, size_t len, const char *path,
		  uint8_t **out, size_t *out_len)
{
	unsigned long long known = ZSTD_getFrameContentSize(in, len);
	ZSTD_DStream *ds;
	ZSTD_inBuffer ib = {in, len, 0};
	uint8_t *buf = NULL;
	size_t cap = 0, pos = 0, r = 1;
	int ret;

	if (known == ZSTD_CONTENTSIZE_ERROR)
		return nvl_error(-EBADMSG, "fw: %s: not zstd data", path);
	if (known != ZSTD_CONTENTSIZE_UNKNOWN && known > MAX_OUT)
		return nvl_error(-EBADMSG,
				 "fw: %s: zstd frame claims %llu bytes", path,
				 known);
	if (known != ZSTD_CONTENTSIZE_UNKNOWN && known)
		return unzstd_known(in, len, (size_t)known, path, out, out_len);
	ret = grow(&buf, &cap,
		   known != ZSTD_CONTENTSIZE_UNKNOWN && known ? known : len * 2,
		   path);
	if (ret)
		return ret;
	ret = nvl_might_alloc(256 << 10); /* the decoder's own tables */
	if (ret || !(ds = ZSTD_createDStream())) {
		nvl_free(buf);
		return nvl_error(-ENOMEM, "fw: %s: out of memory", path);
	}
	ZSTD_initDStream(ds);
	while (r != 0) {
		ZSTD_outBuffer ob;

		if (pos == cap && (ret = grow(&buf, &cap, cap + 1, path)))
			goto out;
		ob = (ZSTD_outBuffer){buf, cap, pos};
		r = ZSTD_decompressStream(ds, &ob, &ib);
		pos = ob.pos;
		if (ZSTD_isError(r)) {
			ret = nvl_error(-EBADMSG, "fw: %s: zstd: %s", path,
					ZSTD_getErrorName(r));
			goto out;
		}
		if (r && ib.pos == ib.size && ob.pos < ob.size) {
			ret = nvl_error(-EBADMSG, "fw: %s: zstd data truncated",
					path);
			goto out;
		}
	}
	if (ib.pos != ib.size) {
		ret = nvl_error(-EBADMSG,
				"fw: %s: %zu bytes after the zstd frame", path,
				ib.size - ib.pos);
		goto out;
	}
	ret = 0;
out:
	ZSTD_freeDStream(ds);
	if (ret) {
		nvl_free(buf);
		return ret;
	}
	*out = buf;
	*out_len = pos;
	return 0;
}

static int unxz(const uint8_t *in, size_t len, const char *path, uint8_t **out,
		size_t *out_len)
{
	lzma_stream s = LZMA_STREAM_INIT;
	uint8_t *buf = NULL;
	size_t cap = 0;
	lzma_ret lr;
	int ret;

	ret = grow(&buf, &cap, len * 3 + 4096, path);
	if (ret)
		return ret;
	ret = nvl_might_alloc(1 << 20);
	if (ret || lzma_stream_decoder(&s, 256u << 20, 0) != LZMA_OK) {
		nvl_free(buf);
		return nvl_error(-ENOMEM, "fw: %s: out of memory", path);
	}
	s.next_in = in;
	s.avail_in = len;
	s.next_out = buf;
	s.avail_out = cap;
	for (;;) {
		lr = lzma_code(&s, LZMA_FINISH);
		if (lr == LZMA_STREAM_END)
			break;
		if (lr == LZMA_OK && s.avail_out == 0) {
			size_t used = cap;

			ret = grow(&buf, &cap, cap + 1, path);
			if (ret)
				goto out;
			s.next_out = buf + used;
			s.avail_out = cap - used;
			continue;
		}
		ret = nvl_error(lr == LZMA_MEM_ERROR ? -ENOMEM : -EBADMSG,
				"fw: %s: xz data is corrupt or truncated "
				"(lzma error %d)",
				path, (int)lr);
		goto out;
	}
	if (s.avail_in) {
		ret = nvl_error(-EBADMSG, "fw: %s: %zu bytes after the xz data",
				path, s.avail_in);
		goto out;
	}
	*out_len = (size_t)s.total_out;
	ret = 0;
out:
	lzma_end(&s);
	if (ret) {
		nvl_free(buf);
		return ret;
	}
	*out = buf;
	return 0;
}

int nvl_gsp_fw_read_file(const char *path, uint8_t **data_out, size_t *size_out,
			 enum nvl_gsp_fw_comp *comp_out)
{
	enum nvl_gsp_fw_comp comp = NVL_GSP_FW_PLAIN;
	uint8_t *raw = NULL, *dec = NULL;
	size_t raw_len = 0, dec_len = 0;
	int fd, ret;

	if (!path || !data_out || !size_out)
		return nvl_error(-EINVAL, "fw: no path");
	if (has_suffix(path, ".zst"))
		comp = NVL_GSP_FW_ZSTD;
	else if (has_suffix(path, ".xz"))
		comp = NVL_GSP_FW_XZ;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return nvl_error(errno == ENOENT ? -ENOENT : -EIO, "fw: %s: %s",
				 path, strerror(errno));
	ret = read_fd(fd, path, &raw, &raw_len);
	close(fd);
	if (ret)
		return ret;
	if (comp == NVL_GSP_FW_PLAIN) {
		dec = raw;
		dec_len = raw_len;
	} else {
		ret = comp == NVL_GSP_FW_ZSTD
			      ? unzstd(raw, raw_len, path, &dec, &dec_len)
			      : unxz(raw, raw_len, path, &dec, &dec_len);
		nvl_free(raw);
		if (ret)
			return ret;
	}
	*data_out = dec;
	*size_out = dec_len;
	if (comp_out)
		*comp_out = comp;
	return 0;
}

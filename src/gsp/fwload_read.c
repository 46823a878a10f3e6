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
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_d_stableOutBuffer */
#include <zstd.h>

#include "base/alloc.h"
#include "base/compiler.h"
#include "base/log.h"
#include "gsp/image.h"

#define MAX_OUT (NVL_GSP_FW_MAX_IMAGE + (1u << 20))

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

#define BIG ((size_t)4 << 20)
#define PAGE_SZ ((size_t)4096)
#define AHEAD ((size_t)1 << 20)

/*
 * A buffer for @n bytes of file or decompressed data. GSP images are tens
 * of MB read once into fresh memory, in 4 KiB pages: 2 MiB pages made the
 * first touch cheaper when the kernel had a recently used 2 MiB block
 * free and far dearer when it had only blocks handed back to the
 * hypervisor (a fresh process's first load: 35-300 ms instead of 12;
 * docs/gsp.md, boot_time). Large buffers are page-aligned so that
 * populate_ahead() can back them piece by piece.
 */
static void *buf_alloc(size_t n)
{
	if (n < BIG)
		return nvl_malloc(n ? n : 1);
	return nvl_aligned_alloc(PAGE_SZ, NVL_ALIGN_UP(n, PAGE_SZ));
}

/*
 * Back @buf (@cap bytes, from buf_alloc()) up to AHEAD bytes past @pos
 * before it is written there, one call per AHEAD instead of a fault per
 * page, so the zeroed lines are still in the cache when the data lands.
 * @done: how far it is backed. Advice only: on failure the writes fault.
 */
static void populate_ahead(uint8_t *buf, size_t cap, size_t pos, size_t *done)
{
	size_t end;

	if (cap < BIG || *done >= cap || *done >= pos + AHEAD / 2)
		return;
	end = NVL_MIN(cap, NVL_ALIGN_DOWN(pos, PAGE_SZ) + AHEAD);
	(void)madvise(buf + *done, NVL_ALIGN_UP(end - *done, PAGE_SZ),
		      MADV_POPULATE_WRITE);
	*done = end;
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
	size_t n, got = 0, done = 0;

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
		size_t k = NVL_MIN(n - got, AHEAD / 2);
		ssize_t r;

		populate_ahead(p, n, got, &done);
		r = read(fd, p + got, k);

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
 * Compressed files are streamed: read in IN_CHUNK pieces into one small
 * input buffer that each piece reuses, and decoded straight into the
 * buffer the image keeps (docs/gsp.md, boot_time_zst). The whole
 * compressed file is never held in memory.
 */
#define IN_CHUNK ((size_t)256 << 10)

struct src {
	int fd;
	const char *path;
	uint8_t *buf;
	size_t len; /* bytes in buf */
	bool eof;
};

/* refill @s->buf (its bytes all consumed); 0 with s->len == 0 at EOF */
static int src_fill(struct src *s)
{
	s->len = 0;
	while (!s->eof && s->len < IN_CHUNK) {
		ssize_t r = read(s->fd, s->buf + s->len, IN_CHUNK - s->len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return nvl_error(-EIO, "fw: %s: read failed: %s",
					 s->path, strerror(errno));
		if (r == 0)
			s->eof = true;
		s->len += (size_t)r;
	}
	return 0;
}

/* bytes left in the file after the decoder stopped with @rest unread */
static int trailing(struct src *s, size_t rest, const char *what)
{
	size_t more = rest;
	int ret;

	while (!more && !s->eof) {
		ret = src_fill(s);
		if (ret)
			return ret;
		more = s->len;
	}
	if (more)
		return nvl_error(-EBADMSG, "fw: %s: bytes after the %s",
				 s->path, what);
	return 0;
}

/*
 * A frame that declares its size (zstd -c of a regular file always does)
 * is decoded into a buffer of exactly that size, which the decoder uses as
 * its window (ZSTD_d_stableOutBuffer): no copy out of a window buffer of
 * its own. A frame that holds more or less than it declares, that is
 * truncated or that is followed by more data is rejected; a frame that
 * does not declare its size goes into a buffer grown as it decodes.
 */
static int unzstd(struct src *s, uint8_t **out, size_t *out_len)
{
	unsigned long long known;
	ZSTD_inBuffer ib;
	ZSTD_outBuffer ob = {NULL, 0, 0};
	ZSTD_DStream *ds = NULL;
	uint8_t *buf = NULL;
	size_t cap = 0, r = 1, done = 0;
	bool stable;
	int ret;

	ret = src_fill(s);
	if (ret)
		return ret;
	known = ZSTD_getFrameContentSize(s->buf, s->len);
	if (known == ZSTD_CONTENTSIZE_ERROR)
		return nvl_error(-EBADMSG, "fw: %s: not zstd data", s->path);
	if (known != ZSTD_CONTENTSIZE_UNKNOWN && known > MAX_OUT)
		return nvl_error(-EBADMSG,
				 "fw: %s: zstd frame claims %llu bytes",
				 s->path, known);
	stable = known != ZSTD_CONTENTSIZE_UNKNOWN && known;
	if (stable) {
		buf = buf_alloc((size_t)known);
		if (!buf)
			return nvl_error(-ENOMEM, "fw: %s: out of memory",
					 s->path);
		cap = (size_t)known;
	} else {
		ret = grow(&buf, &cap, s->len * 2, s->path);
		if (ret)
			return ret;
	}
	ret = nvl_might_alloc(256 << 10); /* the decoder's own tables */
	if (ret || !(ds = ZSTD_createDStream()) ||
	    (stable && ZSTD_isError(ZSTD_DCtx_setParameter(
			       ds, ZSTD_d_stableOutBuffer, 1)))) {
		ret = nvl_error(-ENOMEM, "fw: %s: out of memory", s->path);
		goto out;
	}
	ib = (ZSTD_inBuffer){s->buf, s->len, 0};
	ob = (ZSTD_outBuffer){buf, cap, 0};
	for (;;) {
		size_t in0, out0;

		if (ib.pos == ib.size && !s->eof) {
			ret = src_fill(s);
			if (ret)
				goto out;
			ib = (ZSTD_inBuffer){s->buf, s->len, 0};
		}
		if (!stable && ob.pos == ob.size) {
			ret = grow(&buf, &cap, cap + 1, s->path);
			if (ret)
				goto out;
			ob = (ZSTD_outBuffer){buf, cap, ob.pos};
		}
		if (stable)
			populate_ahead(buf, cap, ob.pos, &done);
		in0 = ib.pos;
		out0 = ob.pos;
		r = ZSTD_decompressStream(ds, &ob, &ib);
		if (ZSTD_isError(r)) {
			ret = nvl_error(-EBADMSG, "fw: %s: zstd: %s", s->path,
					ZSTD_getErrorName(r));
			goto out;
		}
		if (!r)
			break;
		if (ib.pos == ib.size && s->eof &&
		    (stable || ob.pos < ob.size)) {
			ret = nvl_error(-EBADMSG, "fw: %s: zstd data truncated",
					s->path);
			goto out;
		}
		if (ib.pos == in0 && ob.pos == out0 && ib.pos < ib.size &&
		    (stable || ob.pos < ob.size)) {
			/* input left and room, or the declared size reached,
			 * yet nothing moved */
			ret = nvl_error(-EBADMSG,
					"fw: %s: zstd frame holds more than "
					"%zu bytes",
					s->path, cap);
			goto out;
		}
	}
	if (stable && ob.pos != cap) {
		ret = nvl_error(-EBADMSG,
				"fw: %s: zstd frame holds %zu of %zu bytes",
				s->path, ob.pos, cap);
		goto out;
	}
	ret = trailing(s, ib.size - ib.pos, "zstd frame");
out:
	ZSTD_freeDStream(ds);
	if (ret) {
		nvl_free(buf);
		return ret;
	}
	*out = buf;
	*out_len = ob.pos;
	return 0;
}

static int unxz(struct src *s, size_t file_len, uint8_t **out, size_t *out_len)
{
	lzma_stream z = LZMA_STREAM_INIT;
	uint8_t *buf = NULL;
	size_t cap = 0;
	lzma_ret lr;
	int ret;

	ret = grow(&buf, &cap, file_len * 3 + 4096, s->path);
	if (ret)
		return ret;
	ret = nvl_might_alloc(1 << 20);
	if (ret || lzma_stream_decoder(&z, 256u << 20, 0) != LZMA_OK) {
		nvl_free(buf);
		return nvl_error(-ENOMEM, "fw: %s: out of memory", s->path);
	}
	z.next_out = buf;
	z.avail_out = cap;
	for (;;) {
		if (!z.avail_in && !s->eof) {
			ret = src_fill(s);
			if (ret)
				goto out;
			z.next_in = s->buf;
			z.avail_in = s->len;
		}
		lr = lzma_code(&z, s->eof ? LZMA_FINISH : LZMA_RUN);
		if (lr == LZMA_STREAM_END)
			break;
		if (lr == LZMA_OK && z.avail_out == 0) {
			size_t used = cap;

			ret = grow(&buf, &cap, cap + 1, s->path);
			if (ret)
				goto out;
			z.next_out = buf + used;
			z.avail_out = cap - used;
			continue;
		}
		if (lr == LZMA_OK && !s->eof)
			continue;
		ret = nvl_error(lr == LZMA_MEM_ERROR ? -ENOMEM : -EBADMSG,
				"fw: %s: xz data is corrupt or truncated "
				"(lzma error %d)",
				s->path, (int)lr);
		goto out;
	}
	ret = trailing(s, z.avail_in, "xz data");
	if (ret)
		goto out;
	*out_len = (size_t)z.total_out;
out:
	lzma_end(&z);
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
	struct src s = {.fd = -1, .path = path};
	uint8_t *dec = NULL;
	size_t dec_len = 0;
	struct stat st;
	int ret;

	if (!path || !data_out || !size_out)
		return nvl_error(-EINVAL, "fw: no path");
	if (has_suffix(path, ".zst"))
		comp = NVL_GSP_FW_ZSTD;
	else if (has_suffix(path, ".xz"))
		comp = NVL_GSP_FW_XZ;
	/*
	 * O_NONBLOCK: opening a named pipe would otherwise wait for a writer
	 * (forever, for `nvl fw info` on a FIFO); the fstat below refuses
	 * anything but a regular file, for which the flag changes nothing.
	 */
	s.fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (s.fd < 0)
		return nvl_error(errno == ENOENT ? -ENOENT : -EIO, "fw: %s: %s",
				 path, strerror(errno));
	if (comp == NVL_GSP_FW_PLAIN) {
		ret = read_fd(s.fd, path, &dec, &dec_len);
		goto out;
	}
	if (fstat(s.fd, &st)) {
		ret = nvl_error(-EIO, "fw: %s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = nvl_error(-EIO, "fw: %s: not a regular file", path);
		goto out;
	}
	if ((uint64_t)st.st_size > MAX_OUT) {
		ret = nvl_error(-EBADMSG, "fw: %s: %lld bytes is too large",
				path, (long long)st.st_size);
		goto out;
	}
	s.buf = nvl_malloc(IN_CHUNK);
	if (!s.buf) {
		ret = nvl_error(-ENOMEM, "fw: %s: out of memory", path);
		goto out;
	}
	ret = comp == NVL_GSP_FW_ZSTD
		      ? unzstd(&s, &dec, &dec_len)
		      : unxz(&s, (size_t)st.st_size, &dec, &dec_len);
	nvl_free(s.buf);
out:
	close(s.fd);
	if (ret)
		return ret;
	*data_out = dec;
	*size_out = dec_len;
	if (comp_out)
		*comp_out = comp;
	return 0;
}

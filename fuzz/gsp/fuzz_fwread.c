// SPDX-License-Identifier: MIT
/*
 * Fuzz target: a firmware file from disk (nvl_gsp_fw_read_file(), the
 * .zst/.xz decompression of src/gsp/fwload_read.c) is untrusted input.
 * Byte 0 picks how it is stored (plain, .zst, .xz: the file's suffix); the
 * rest is the file. The reader either refuses it (-EBADMSG, -EIO or
 * -ENOMEM) giving nothing back, or returns a buffer of the size it says,
 * which for a plain file is the file. The parsers of what it returns are
 * fuzz-gsp_image's.
 *
 * The file lives in memory: one memfd per process, rewritten for each
 * input, reached through three symbolic links (fw.bin, fw.bin.zst,
 * fw.bin.xz: the reader picks the format from the name) in one directory
 * per process under $TMPDIR (else /tmp), made on the first input and
 * removed at exit. A crash inside the reader leaves at most that one
 * directory of dangling links, never an input's bytes, and
 * scripts/run-fuzz.sh gives each target a TMPDIR it removes afterwards.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/alloc.h"
#include "gsp/image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const sfx[] = {"", ".zst", ".xz"};
static char dir[4096];
static int mfd = -1;

static void link_path(char *path, size_t len, unsigned k)
{
	if (snprintf(path, len, "%s/fw.bin%s", dir, sfx[k]) >= (int)len)
		abort();
}

static void cleanup(void)
{
	char path[4200];

	for (unsigned k = 0; k < 3; k++) {
		link_path(path, sizeof(path), k);
		(void)unlink(path);
	}
	(void)rmdir(dir);
	close(mfd);
}

/* the memfd and the directory of links to it, once per process */
static void setup_once(void)
{
	const char *tmp = getenv("TMPDIR");
	char target[64], path[4200];

	if (mfd >= 0)
		return;
	mfd = memfd_create("nvl-fuzz-fwread", MFD_CLOEXEC);
	if (mfd < 0 ||
	    snprintf(dir, sizeof(dir), "%s/nvl-fuzz-fwread.XXXXXX",
		     tmp && *tmp ? tmp : "/tmp") >= (int)sizeof(dir) ||
	    !mkdtemp(dir))
		abort();
	snprintf(target, sizeof(target), "/proc/self/fd/%d", mfd);
	for (unsigned k = 0; k < 3; k++) {
		link_path(path, sizeof(path), k);
		if (symlink(target, path))
			abort();
	}
	atexit(cleanup);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum nvl_gsp_fw_comp comp = NVL_GSP_FW_PLAIN;
	uint8_t *out = (uint8_t *)1;
	size_t out_len = 1;
	char path[4200];
	unsigned k;
	int ret;

	if (!size)
		return 0;
	setup_once();
	k = data[0] % 3;
	link_path(path, sizeof(path), k);
	if (ftruncate(mfd, 0) || (size > 1 && pwrite(mfd, data + 1, size - 1,
						     0) != (ssize_t)(size - 1)))
		abort();
	ret = nvl_gsp_fw_read_file(path, &out, &out_len, &comp);
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

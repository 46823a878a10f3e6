// SPDX-License-Identifier: MIT
/*
 * TEST: firmware file reading and search against hostile trees
 * Description: regressions from an adversarial review of the loader's
 * public entry points (nvl_gsp_fw_read_file(), which `nvl fw info`
 * calls on any path, and nvl_gsp_fw_load()): a named pipe where a
 * firmware file should be is refused, not waited on for a writer that
 * never comes; symbolic-link loops in the tree are named in the error; a
 * signature section larger than the booter takes is refused at load.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "t.h"
#include "base/alloc.h"
#include "base/log.h"
#include "gsp/image.h"
#include "hw/falcon.h"
#include "fwgen.h"

static const char *const ga10x_fams[] = {"cc_gh100", "gh100", "ad10x", "ga10x",
					 NULL};
static const char *const one_version[] = {"570.144", NULL};

static char root[256];

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/nvl-fwread-XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	fwgen_rmtree(root);
	return 0;
}

struct reader {
	const char *path;
	int ret;
	char msg[1024]; /* the reading thread's error message */
};

static void *read_thread(void *arg)
{
	struct reader *r = arg;
	uint8_t *data = NULL;
	size_t size = 0;

	r->ret = nvl_gsp_fw_read_file(r->path, &data, &size, NULL);
	snprintf(r->msg, sizeof(r->msg), "%s", nvl_error_msg());
	nvl_free(data);
	return NULL;
}

/*
 * Read @path on a thread; if it is still blocked after 5 s, open the pipe
 * for writing (and close it) so that it returns, and fail.
 */
static int read_bounded(const char *path, char *msg, size_t len)
{
	struct reader r = {.path = path, .ret = 1};
	struct timespec ts;
	pthread_t t;
	int rc;

	assert_int_equal(pthread_create(&t, NULL, read_thread, &r), 0);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 5;
	rc = pthread_timedjoin_np(t, NULL, &ts);
	if (rc == ETIMEDOUT) {
		int fd = open(path, O_WRONLY | O_NONBLOCK);

		if (fd >= 0)
			close(fd);
		pthread_join(t, NULL);
		fail_msg("reading the named pipe %s blocked", path);
	}
	assert_int_equal(rc, 0);
	snprintf(msg, len, "%s", r.msg);
	return r.ret;
}

static void named_pipe_is_refused_not_waited_on(void **state)
{
	static const char *const sfx[] = {"", ".zst", ".xz"};
	char path[512], msg[1024];

	(void)state;
	for (unsigned i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/gsp-570.144.bin%s", root,
			 sfx[i]);
		assert_int_equal(mkfifo(path, 0600), 0);
		assert_int_equal(read_bounded(path, msg, sizeof(msg)), -EIO);
		assert_non_null(strstr(msg, "not a regular file"));
		unlink(path);
	}
}

static void symlink_loops_are_named(void **state)
{
	struct nvl_gsp_fw_opts o = {.versions = one_version,
				    .no_builtin = true};
	char dir[512], p[600], q[600];
	uint8_t *data = NULL;
	size_t size = 0;
	struct nvl_gsp_fw *fw = NULL;

	(void)state;
	/* a file that is a link to itself */
	snprintf(p, sizeof(p), "%s/self.bin", root);
	assert_int_equal(symlink(p, p), 0);
	assert_int_equal(nvl_gsp_fw_read_file(p, &data, &size, NULL), -EIO);
	assert_null(data);
	assert_non_null(strstr(nvl_error_msg(), p));

	/* the chip directory a link to itself, and a looping gsp file */
	snprintf(dir, sizeof(dir), "%s/t", root);
	assert_int_equal(
		fwgen_tree(dir, "ga102", "570.144", FWGEN_ALL, ga10x_fams), 0);
	snprintf(p, sizeof(p), "%s/nvidia/ga102/gsp/gsp-570.144.bin", dir);
	snprintf(q, sizeof(q), "%s/nvidia/ga102/gsp/loop", dir);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(symlink("loop", p), 0);
	assert_int_equal(symlink("gsp-570.144.bin", q), 0);
	o.search_path = dir;
	assert_int_equal(nvl_gsp_fw_load("ga102", &o, &fw), -ENOENT);
	assert_null(fw);
	assert_non_null(strstr(nvl_error_msg(), p));
}

/*
 * A .fwsignature_<family> larger than the booter takes (the WPR meta's
 * sizeOfSignature, at most NVL_HW_BOOTER_SIG_MAX = 64 KiB) is refused by
 * the loader, -EFBIG, naming the section and the limit, not sent to the
 * booter to come back as "rejected the WPR meta" after WPR2 was laid out.
 * The largest signature that fits loads.
 */
static void oversized_signature_section_is_refused(void **state)
{
	static const char *const others[] = {"cc_gh100", "gh100", "ad10x",
					     NULL};
	struct nvl_gsp_fw_opts o = {.versions = one_version,
				    .no_builtin = true};
	struct fwgen_sect sig = {.name = ".fwsignature_ga10x", .fill = 0x5a};
	struct nvl_gsp_fw *fw = NULL;
	char dir[512], p[600];
	uint8_t *f;
	size_t len;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/t", root);
	assert_int_equal(
		fwgen_tree(dir, "ga102", "570.144", FWGEN_ALL, ga10x_fams), 0);
	snprintf(p, sizeof(p), "%s/nvidia/ga102/gsp/gsp-570.144.bin", dir);
	o.search_path = dir;
	for (unsigned i = 0; i < 2; i++) {
		sig.size = NVL_HW_BOOTER_SIG_MAX + i;
		f = fwgen_elf("570.144", 4096, others, &sig, 1, &len);
		assert_non_null(f);
		assert_int_equal(fwgen_write(p, f, len), 0);
		free(f);
		if (!i) {
			assert_int_equal(nvl_gsp_fw_load("ga102", &o, &fw), 0);
			assert_int_equal(fw->sig_size, NVL_HW_BOOTER_SIG_MAX);
			nvl_gsp_fw_put(fw);
			fw = NULL;
			continue;
		}
		assert_int_equal(nvl_gsp_fw_load("ga102", &o, &fw), -EFBIG);
		assert_null(fw);
		assert_non_null(strstr(nvl_error_msg(), ".fwsignature_ga10x"));
		assert_non_null(strstr(nvl_error_msg(), "65537"));
		assert_non_null(strstr(nvl_error_msg(), "65536"));
	}
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_setup_teardown(named_pipe_is_refused_not_waited_on,
					setup, teardown),
	cmocka_unit_test_setup_teardown(symlink_loops_are_named, setup,
					teardown),
	cmocka_unit_test_setup_teardown(oversized_signature_section_is_refused,
					setup, teardown),
};

T_MAIN(tests)

// SPDX-License-Identifier: MIT
/*
 * TEST: GSP firmware loader (src/gsp/fwload*.c) and signatures
 *
 * Small trees in linux-firmware's layout are made per test under a
 * temporary directory (fwgen.c); the build's own trees (firmware/,
 * firmware-zst/, firmware-xz/, written once per build directory by
 * nvl-fwbuild) give the full-size, signed and compressed cases.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <zstd.h>

#include "t.h"
#include "base/alloc.h"
#include "base/compiler.h"
#include "base/log.h"
#include "firmware/nvl_fw_manifest.h"
#include "gsp/image.h"
#include "model/gsp/booter_sig.h"
#include "nvl_config.h"
#include "fwgen.h"

#define BUILD_FW NVL_BUILD_FIRMWARE_DIR
#define BUILD_ZST NVL_BUILD_FIRMWARE_DIR "/../firmware-zst"
#define BUILD_XZ NVL_BUILD_FIRMWARE_DIR "/../firmware-xz"

static const char *const ga10x_fams[] = {"cc_gh100", "gh100", "ad10x", "ga10x",
					 NULL};
static const char *const tu10x_fams[] = {"tu10x", "tu11x", "ga100", NULL};
static const char *const both_versions[] = {"535.113.01", "570.144", NULL};

static char root[256];

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/nvl-fwload-XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	fwgen_rmtree(root);
	return 0;
}

static void sub(char *out, const char *name)
{
	snprintf(out, 512, "%s/%s", root, name);
}

static void search_order(void **state)
{
	char a[512], b[512], list[2 * PATH_MAX + 2];
	struct nvl_gsp_fw_opts o = {.versions = both_versions,
				    .no_builtin = true};
	struct nvl_gsp_fw *fw;

	(void)state;
	sub(a, "a");
	sub(b, "b");
	assert_int_equal(
		fwgen_tree(a, "ga102", "570.144", FWGEN_ALL, ga10x_fams), 0);
	assert_int_equal(
		fwgen_tree(b, "ga102", "570.144", FWGEN_ALL, ga10x_fams), 0);
	snprintf(list, sizeof(list), "%s:%s", a, b);
	o.search_path = list;
	assert_int_equal(nvl_gsp_fw_load("ga102", &o, &fw), 0);
	assert_string_equal(fw->version, "570.144");
	assert_ptr_equal(strstr(fw->paths[NVL_GSP_FW_GSP], a),
			 fw->paths[NVL_GSP_FW_GSP]);
	assert_non_null(strstr(fw->paths[NVL_GSP_FW_BOOTLOADER],
			       "/nvidia/ga102/gsp/bootloader-570.144.bin"));
	assert_int_equal(fw->comp[NVL_GSP_FW_GSP], NVL_GSP_FW_PLAIN);
	assert_int_equal(fw->probes, 4);
	assert_string_equal(fw->family, "ga10x");
	assert_int_equal(fw->sig_size, 4096);
	assert_int_equal(fw->sig[0], 0x13); /* the 4th section: ga10x */
	assert_int_equal(fw->booter_load.sig_size, 384);
	assert_int_equal(fw->booter_load.sig[0], 0xa0);
	assert_int_equal(fw->bootloader.desc.monitor_data_offset, 0x3000);
	nvl_gsp_fw_put(fw);

	snprintf(list, sizeof(list), "%s:%s", b, a);
	assert_int_equal(nvl_gsp_fw_load("ga102", &o, &fw), 0);
	assert_ptr_equal(strstr(fw->paths[NVL_GSP_FW_GSP], b),
			 fw->paths[NVL_GSP_FW_GSP]);
	nvl_gsp_fw_put(fw);

	/* NVL_FIRMWARE_PATH when the caller gives no path. */
	o.search_path = NULL;
	setenv("NVL_FIRMWARE_PATH", b, 1);
	assert_int_equal(nvl_gsp_fw_load("ga102", &o, &fw), 0);
	unsetenv("NVL_FIRMWARE_PATH");
	assert_ptr_equal(strstr(fw->paths[NVL_GSP_FW_GSP], b),
			 fw->paths[NVL_GSP_FW_GSP]);
	nvl_gsp_fw_put(fw);
}

static void fallback_to_older(void **state)
{
	char a[512];
	struct nvl_gsp_fw_opts o = {.versions = both_versions,
				    .no_builtin = true};
	struct nvl_gsp_fw *fw;

	(void)state;
	sub(a, "fb");
	/* 570.144 lacks booter_unload; 535.113.01 is complete. */
	fwgen_tree(a, "tu102", "570.144", FWGEN_ALL & ~FWGEN_BOOTER_UNLOAD,
		   tu10x_fams);
	fwgen_tree(a, "tu102", "535.113.01", FWGEN_ALL, tu10x_fams);
	o.search_path = a;
	assert_int_equal(nvl_gsp_fw_load("tu102", &o, &fw), 0);
	assert_string_equal(fw->version, "535.113.01");
	/* 570: gsp, booter_load, booter_unload x3; 535: four. */
	assert_int_equal(fw->probes, 2 + 3 + 4);
	nvl_gsp_fw_put(fw);
}

static void bounded_probes(void **state)
{
	char list[4096] = "";
	struct nvl_gsp_fw_opts o = {
		.versions = both_versions, .no_builtin = true, .max_probes = 5};
	struct nvl_gsp_fw *fw = NULL;

	(void)state;
	for (int i = 0; i < 12; i++) {
		size_t n = strlen(list);

		snprintf(list + n, sizeof(list) - n, "%s%s/empty%d",
			 i ? ":" : "", root, i);
	}
	o.search_path = list;
	assert_int_equal(nvl_gsp_fw_load("ga102", &o, &fw), -ENOENT);
	assert_null(fw);
	assert_non_null(strstr(nvl_error_msg(), "probe limit reached"));
	assert_non_null(strstr(nvl_error_msg(), "after 5 probes"));

	/* More than 16 directories is refused before any probe. */
	for (int i = 12; i < 20; i++) {
		size_t n = strlen(list);

		snprintf(list + n, sizeof(list) - n, ":%s/empty%d", root, i);
	}
	assert_int_equal(nvl_gsp_fw_load("ga102", &o, &fw), -EINVAL);
	assert_non_null(strstr(nvl_error_msg(), "more than 16 directories"));
}

static void error_names_every_path(void **state)
{
	char a[512], b[512], list[2 * PATH_MAX + 2], want[PATH_MAX];
	static const char *const sfx[] = {"", ".zst", ".xz"};
	struct nvl_gsp_fw_opts o = {.versions = both_versions,
				    .no_builtin = true};
	struct nvl_gsp_fw *fw;
	const char *msg;

	(void)state;
	sub(a, "none-a");
	sub(b, "none-b");
	snprintf(list, sizeof(list), "%s:%s", a, b);
	o.search_path = list;
	assert_int_equal(nvl_gsp_fw_load("ad102", &o, &fw), -ENOENT);
	msg = nvl_error_msg();
	for (int d = 0; d < 2; d++)
		for (int v = 0; v < 2; v++)
			for (int c = 0; c < 3; c++) {
				snprintf(want, sizeof(want),
					 "%s/nvidia/ad102/gsp/gsp-%s.bin%s",
					 d ? b : a, both_versions[v], sfx[c]);
				if (!strstr(msg, want))
					fail_msg("'%s' not named in: %s", want,
						 msg);
			}
	assert_non_null(strstr(msg, "after 12 probes"));
}

static void no_signature_for_family(void **state)
{
	char a[512];
	const char *const v[] = {"570.144", NULL};
	struct nvl_gsp_fw_opts o = {.versions = v, .no_builtin = true};
	struct nvl_gsp_fw *fw = NULL;

	(void)state;
	sub(a, "enoexec");
	/* ga102 handed the tu10x image: no .fwsignature_ga10x. */
	fwgen_tree(a, "ga102", "570.144", FWGEN_ALL, tu10x_fams);
	o.search_path = a;
	assert_int_equal(nvl_gsp_fw_load("ga102", &o, &fw), -ENOEXEC);
	assert_null(fw);
	assert_non_null(strstr(nvl_error_msg(), ".fwsignature_ga10x"));
	/* gh100 in confidential-computing mode picks cc_gh100. */
	fwgen_tree(a, "gh100", "570.144", FWGEN_ALL, ga10x_fams);
	o.family = "cc_gh100";
	assert_int_equal(nvl_gsp_fw_load("gh100", &o, &fw), 0);
	assert_int_equal(fw->sig[0], 0x10);
	nvl_gsp_fw_put(fw);
	/* A booter signature index the file does not have. */
	o.family = NULL;
	o.booter_sig_index = 2;
	assert_int_equal(nvl_gsp_fw_load("gh100", &o, &fw), -ENOEXEC);
	assert_non_null(strstr(nvl_error_msg(), "booter_load-570.144.bin"));
}

static void malformed_file_named(void **state)
{
	char a[512], p[PATH_MAX];
	const char *const v[] = {"570.144", NULL};
	struct nvl_gsp_fw_opts o = {.versions = v, .no_builtin = true};
	struct nvl_gsp_fw *fw = NULL;
	uint8_t *f;
	size_t len;

	(void)state;
	sub(a, "bad");
	fwgen_tree(a, "ga102", "570.144", FWGEN_ALL, ga10x_fams);
	o.search_path = a;
	f = fwgen_booter(2, 0x2000, &len);
	fwgen_put32(f, 0xdead);
	snprintf(p, sizeof(p), "%s/nvidia/ga102/gsp/booter_unload-570.144.bin",
		 a);
	fwgen_write(p, f, len);
	free(f);
	assert_int_equal(nvl_gsp_fw_load("ga102", &o, &fw), -EBADMSG);
	assert_non_null(strstr(nvl_error_msg(), p));
	assert_non_null(strstr(nvl_error_msg(), "bin_magic 0xdead"));

	/* The file name says 570.144, .fwversion says 535.113.01. */
	f = fwgen_elf("535.113.01", 4096, ga10x_fams, NULL, 0, &len);
	fwgen_tree(a, "ga102", "570.144", FWGEN_ALL, ga10x_fams);
	snprintf(p, sizeof(p), "%s/nvidia/ga102/gsp/gsp-570.144.bin", a);
	fwgen_write(p, f, len);
	free(f);
	assert_int_equal(nvl_gsp_fw_load("ga102", &o, &fw), -EBADMSG);
	assert_non_null(strstr(nvl_error_msg(), ".fwversion says"));
	/* Bad arguments. */
	assert_int_equal(nvl_gsp_fw_load("../x", &o, &fw), -EINVAL);
	assert_int_equal(nvl_gsp_fw_load("zz999", &o, &fw), -EINVAL);
}

static struct nvl_gsp_fw *load_from(const char *dir, const char *chip,
				    const char *const *versions)
{
	struct nvl_gsp_fw_opts o = {
		.versions = versions, .search_path = dir, .no_builtin = true};
	struct nvl_gsp_fw *fw = NULL;
	int ret = nvl_gsp_fw_load(chip, &o, &fw);

	if (ret)
		fail_msg("%s from %s: %d %s", chip, dir, ret, nvl_error_msg());
	return fw;
}

static void compressed_loads(void **state)
{
	const char *const v535[] = {"535.113.01", NULL};
	struct nvl_gsp_fw *plain, *zst, *xz;

	(void)state;
	plain = load_from(BUILD_FW, "tu102", v535);
	zst = load_from(BUILD_ZST, "tu102", v535);
	xz = load_from(BUILD_XZ, "tu102", v535);
	for (int f = 0; f < NVL_GSP_FW_NUM_FILES; f++) {
		assert_int_equal(zst->comp[f], NVL_GSP_FW_ZSTD);
		assert_int_equal(xz->comp[f], NVL_GSP_FW_XZ);
	}
	assert_non_null(strstr(zst->paths[0], "gsp-535.113.01.bin.zst"));
	assert_non_null(strstr(xz->paths[0], "gsp-535.113.01.bin.xz"));
	assert_int_equal(zst->fwimage_size, plain->fwimage_size);
	assert_int_equal(xz->fwimage_size, plain->fwimage_size);
	assert_memory_equal(zst->fwimage, plain->fwimage, plain->fwimage_size);
	assert_memory_equal(xz->fwimage, plain->fwimage, plain->fwimage_size);
	assert_memory_equal(xz->booter_load.hdr.payload,
			    plain->booter_load.hdr.payload,
			    plain->booter_load.hdr.payload_size);
	nvl_gsp_fw_put(plain);
	nvl_gsp_fw_put(zst);
	nvl_gsp_fw_put(xz);
}

/* Copy the first @n bytes of @from (all of it when @n is 0) to @to. */
static void copy_prefix(const char *from, const char *to, size_t n)
{
	FILE *f = fopen(from, "rb");
	uint8_t *raw;
	long len;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	assert_true(len > 0 && (size_t)len >= n);
	if (!n)
		n = (size_t)len;
	raw = malloc(n);
	assert_int_equal(fread(raw, 1, n, f), n);
	fclose(f);
	assert_int_equal(fwgen_write(to, raw, n), 0);
	free(raw);
}

static void corrupt_compressed(void **state)
{
	char a[512], p[PATH_MAX];
	const char *const v[] = {"570.144", NULL};
	struct nvl_gsp_fw_opts o = {.versions = v, .no_builtin = true};
	struct nvl_gsp_fw *fw = NULL;
	uint8_t junk[64];

	(void)state;
	sub(a, "corrupt");
	fwgen_tree(a, "tu102", "570.144", FWGEN_ALL & ~FWGEN_BOOTER_LOAD,
		   tu10x_fams);
	o.search_path = a;
	snprintf(p, sizeof(p),
		 "%s/nvidia/tu102/gsp/booter_load-570.144.bin.zst", a);
	copy_prefix(BUILD_ZST "/nvidia/tu102/gsp/booter_load-570.144.bin.zst",
		    p, 1000);
	assert_int_equal(nvl_gsp_fw_load("tu102", &o, &fw), -EBADMSG);
	assert_non_null(strstr(nvl_error_msg(), "zstd"));
	unlink(p);
	memset(junk, 0x42, sizeof(junk));
	snprintf(p, sizeof(p), "%s/nvidia/tu102/gsp/booter_load-570.144.bin.xz",
		 a);
	fwgen_write(p, junk, sizeof(junk));
	assert_int_equal(nvl_gsp_fw_load("tu102", &o, &fw), -EBADMSG);
	assert_non_null(strstr(nvl_error_msg(), "xz data is corrupt"));
}

/* Read all of @path (malloc'd) into *@out; returns its length. */
static size_t slurp(const char *path, uint8_t **out)
{
	FILE *f = fopen(path, "rb");
	long len;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	assert_true(len > 0);
	*out = malloc((size_t)len);
	assert_non_null(*out);
	assert_int_equal(fread(*out, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	return (size_t)len;
}

/*
 * Compressed files are decoded as they are read, in pieces of 256 KiB
 * (fwload_read.c): a GSP image cut off after several pieces is truncated,
 * and junk after its last piece is data after the stream, for both
 * formats; the whole file decodes to the plain one's bytes.
 */
static void streamed_errors(void **state)
{
	static const struct {
		const char *dir, *sfx, *cut_msg, *junk_msg;
	} f[] = {
		{BUILD_ZST, ".zst", "zstd data truncated",
		 "after the zstd frame"},
		{BUILD_ZST "/../firmware-xz", ".xz", "xz data is corrupt",
		 "after the xz data"},
	};
	char a[512], p[PATH_MAX], src[PATH_MAX];
	uint8_t *plain, *dec, *raw;
	size_t plain_len, dec_len, n;

	(void)state;
	sub(a, "streamed");
	assert_int_equal(
		nvl_gsp_fw_read_file(NVL_BUILD_FIRMWARE_DIR
				     "/nvidia/tu102/gsp/gsp-535.113.01.bin",
				     &plain, &plain_len, NULL),
		0);
	for (size_t i = 0; i < NVL_ARRAY_SIZE(f); i++) {
		snprintf(src, sizeof(src),
			 "%s/nvidia/tu102/gsp/gsp-535.113.01.bin%s", f[i].dir,
			 f[i].sfx);
		snprintf(p, sizeof(p), "%s/gsp%s", a, f[i].sfx);
		n = slurp(src, &raw);
		assert_true(n > (3u << 20));

		assert_int_equal(fwgen_write(p, raw, n), 0);
		assert_int_equal(nvl_gsp_fw_read_file(p, &dec, &dec_len, NULL),
				 0);
		assert_int_equal(dec_len, plain_len);
		assert_memory_equal(dec, plain, plain_len);
		nvl_free(dec);

		/* cut inside the third piece */
		assert_int_equal(fwgen_write(p, raw, (600u << 10) + 17), 0);
		dec = NULL;
		assert_int_equal(nvl_gsp_fw_read_file(p, &dec, &dec_len, NULL),
				 -EBADMSG);
		assert_null(dec);
		assert_non_null(strstr(nvl_error_msg(), f[i].cut_msg));

		raw = realloc(raw, n + 16);
		assert_non_null(raw);
		memset(raw + n, 0x42, 16);
		assert_int_equal(fwgen_write(p, raw, n + 16), 0);
		assert_int_equal(nvl_gsp_fw_read_file(p, &dec, &dec_len, NULL),
				 -EBADMSG);
		assert_null(dec);
		assert_non_null(strstr(nvl_error_msg(), f[i].junk_msg));
		free(raw);
		unlink(p);
	}
	nvl_free(plain);
}

/*
 * Both forms of zstd frame the kernel's loader accepts: one that declares
 * its content size (decoded in one call into the final buffer) and one
 * that does not (streamed, RFC 8878 Frame_Content_Size absent when the
 * Frame_Header_Descriptor's FCS flag is 0 and Single_Segment is 0), and
 * data after a sized frame rejected by name.
 */
static void zstd_frame_forms(void **state)
{
	char a[512], p[PATH_MAX];
	const char *const v[] = {"570.144", NULL};
	struct nvl_gsp_fw_opts o = {.versions = v, .no_builtin = true};
	struct nvl_gsp_fw *fw = NULL, *plain = NULL;
	uint8_t *raw, *z;
	size_t n, cap, zn;
	ZSTD_CCtx *cc;

	(void)state;
	sub(a, "zstdforms");
	fwgen_tree(a, "tu102", "570.144", FWGEN_ALL & ~FWGEN_BOOTER_LOAD,
		   tu10x_fams);
	o.search_path = a;
	snprintf(p, sizeof(p), "%s/nvidia/tu102/gsp/booter_load-570.144.bin",
		 a);
	copy_prefix(NVL_BUILD_FIRMWARE_DIR
		    "/nvidia/tu102/gsp/booter_load-570.144.bin",
		    p, 0);
	assert_int_equal(nvl_gsp_fw_load("tu102", &o, &plain), 0);
	n = slurp(p, &raw);
	unlink(p);

	cap = ZSTD_compressBound(n) + 16;
	z = malloc(cap);
	assert_non_null(z);
	cc = ZSTD_createCCtx();
	assert_non_null(cc);
	snprintf(p, sizeof(p),
		 "%s/nvidia/tu102/gsp/booter_load-570.144.bin.zst", a);

	/* no declared size: the streaming decoder */
	assert_false(ZSTD_isError(
		ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 0)));
	zn = ZSTD_compress2(cc, z, cap, raw, n);
	assert_false(ZSTD_isError(zn));
	assert_int_equal(ZSTD_getFrameContentSize(z, zn),
			 ZSTD_CONTENTSIZE_UNKNOWN);
	assert_int_equal(fwgen_write(p, z, zn), 0);
	assert_int_equal(nvl_gsp_fw_load("tu102", &o, &fw), 0);
	assert_int_equal(fw->comp[NVL_GSP_FW_BOOTER_LOAD], NVL_GSP_FW_ZSTD);
	assert_int_equal(fw->data_size[NVL_GSP_FW_BOOTER_LOAD],
			 plain->data_size[NVL_GSP_FW_BOOTER_LOAD]);
	assert_memory_equal(fw->data[NVL_GSP_FW_BOOTER_LOAD],
			    plain->data[NVL_GSP_FW_BOOTER_LOAD], n);
	nvl_gsp_fw_put(fw);
	fw = NULL;

	/* declared size: one-call decode, same bytes */
	assert_false(ZSTD_isError(
		ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 1)));
	zn = ZSTD_compress2(cc, z, cap, raw, n);
	assert_false(ZSTD_isError(zn));
	assert_int_equal(ZSTD_getFrameContentSize(z, zn), n);
	assert_int_equal(fwgen_write(p, z, zn), 0);
	assert_int_equal(nvl_gsp_fw_load("tu102", &o, &fw), 0);
	assert_memory_equal(fw->data[NVL_GSP_FW_BOOTER_LOAD],
			    plain->data[NVL_GSP_FW_BOOTER_LOAD], n);
	nvl_gsp_fw_put(fw);
	fw = NULL;

	/* a sized frame followed by junk */
	memset(z + zn, 0x42, 16);
	assert_int_equal(fwgen_write(p, z, zn + 16), 0);
	assert_int_equal(nvl_gsp_fw_load("tu102", &o, &fw), -EBADMSG);
	assert_null(fw);
	assert_non_null(strstr(nvl_error_msg(), "after the zstd frame"));

	ZSTD_freeCCtx(cc);
	free(z);
	free(raw);
	nvl_gsp_fw_put(plain);
}

static void build_tree_every_chip(void **state)
{
	static const char *const chips[] = {
		"tu102", "tu116", "ga100", "ga102", "ga103",
		"ga104", "ga106", "ga107", "ad102", "ad103",
		"ad104", "ad106", "ad107", "gh100", "tiny",
	};
	const char *const v535[] = {"535.113.01", NULL};
	struct nvl_gsp_fw_opts o = {
		.versions = v535, .search_path = BUILD_FW, .no_builtin = true};
	struct nvl_gsp_fw *fw;

	(void)state;
	for (size_t i = 0; i < NVL_ARRAY_SIZE(chips); i++) {
		struct nvl_fw_manifest m;

		fw = load_from(BUILD_FW, chips[i], both_versions);
		assert_string_equal(fw->version, "570.144");
		memcpy(&m, fw->fwimage, sizeof(m));
		assert_true(m.magic == NVL_FW_MANIFEST_MAGIC);
		assert_string_equal(m.version, "570.144");
		assert_int_equal(m.image_size, fw->fwimage_size);
		assert_string_equal(m.image_family,
				    chips[i][0] == 't' ||
						    !strcmp(chips[i], "ga100")
					    ? "tu10x"
					    : "ga10x");
		assert_int_equal(fw->sig_size, NVL_MODEL_BOOTER_SIG_SIZE);
		assert_int_equal(fw->booter_load.hdr.bin.data_offset, 0x378);
		nvl_gsp_fw_put(fw);
	}
	/* Hopper has no 535.113.01 set. */
	assert_int_equal(nvl_gsp_fw_load("gh100", &o, &fw), -ENOENT);
}

static void signature_verify(void **state)
{
	const char *const v[] = {"570.144", NULL};
	struct nvl_gsp_fw *fw = load_from(BUILD_FW, "ga102", v);
	struct nvl_fw_manifest m;
	uint8_t digest[32], *copy, sig[NVL_MODEL_BOOTER_SIG_SIZE];
	unsigned int dlen = 32;
	const struct nvl_gsp_sig *ad;

	(void)state;
	assert_int_equal(nvl_model_booter_verify(fw->fwimage, fw->fwimage_size,
						 fw->sig, fw->sig_size),
			 0);
	/* Every family's signature verifies; each is distinct (salted). */
	ad = nvl_gsp_elf_find_sig(&fw->elf, "ad10x");
	assert_non_null(ad);
	assert_memory_not_equal(ad->data, fw->sig, ad->size);
	assert_int_equal(nvl_model_booter_verify(fw->fwimage, fw->fwimage_size,
						 ad->data, ad->size),
			 0);
	/* The manifest's hash covers the payload. */
	memcpy(&m, fw->fwimage, sizeof(m));
	assert_true(EVP_Digest(fw->fwimage + m.payload_offset, m.payload_size,
			       digest, &dlen, EVP_sha256(), NULL) == 1);
	assert_memory_equal(digest, m.payload_sha256, 32);

	/* A tampered image, a tampered signature, a short signature. */
	copy = malloc(fw->fwimage_size);
	memcpy(copy, fw->fwimage, fw->fwimage_size);
	copy[fw->fwimage_size / 2] ^= 1;
	assert_int_equal(nvl_model_booter_verify(copy, fw->fwimage_size,
						 fw->sig, fw->sig_size),
			 -EKEYREJECTED);
	free(copy);
	memcpy(sig, fw->sig, sizeof(sig));
	sig[10] ^= 0x80;
	assert_int_equal(nvl_model_booter_verify(fw->fwimage, fw->fwimage_size,
						 sig, sizeof(sig)),
			 -EKEYREJECTED);
	assert_int_equal(nvl_model_booter_verify(fw->fwimage, fw->fwimage_size,
						 fw->sig, fw->sig_size - 1),
			 -EKEYREJECTED);
	assert_int_equal(nvl_model_booter_verify(NULL, 0, fw->sig, 1), -EINVAL);
	nvl_gsp_fw_put(fw);
}

/* one check fed piece by piece */
static int check_pieces(const uint8_t *img, size_t n, size_t piece,
			const void *sig, size_t sig_size)
{
	struct nvl_model_booter_check *c = nvl_model_booter_check_begin();

	assert_non_null(c);
	for (size_t off = 0; off < n; off += piece)
		nvl_model_booter_check_update(
			c, img + off, n - off < piece ? n - off : piece);
	return nvl_model_booter_check_end(c, n, sig, sig_size);
}

/*
 * The booter hashes the image while it copies it into WPR2: the check fed
 * in pieces (any size, the last one short) says what the one-call check
 * says, and covers the image's last byte.
 */
static void signature_check_pieces(void **state)
{
	const char *const v[] = {"535.113.01", NULL};
	struct nvl_gsp_fw *fw = load_from(BUILD_FW, "ga102", v);
	size_t n = fw->fwimage_size;
	uint8_t *copy;

	(void)state;
	assert_int_equal(
		check_pieces(fw->fwimage, n, 65536, fw->sig, fw->sig_size), 0);
	assert_int_equal(
		check_pieces(fw->fwimage, n, 4093, fw->sig, fw->sig_size), 0);
	/* short by a byte, a flipped last byte, a short signature */
	assert_int_equal(
		check_pieces(fw->fwimage, n - 1, 65536, fw->sig, fw->sig_size),
		-EKEYREJECTED);
	copy = malloc(n);
	assert_non_null(copy);
	memcpy(copy, fw->fwimage, n);
	copy[n - 1] ^= 1;
	assert_int_equal(check_pieces(copy, n, 65536, fw->sig, fw->sig_size),
			 -EKEYREJECTED);
	free(copy);
	assert_int_equal(
		check_pieces(fw->fwimage, n, 65536, fw->sig, fw->sig_size - 1),
		-EKEYREJECTED);
	/* a check that failed to start: rejected, nothing leaked */
	assert_int_equal(
		nvl_model_booter_check_end(NULL, n, fw->sig, fw->sig_size),
		-EKEYREJECTED);
	nvl_gsp_fw_put(fw);
}

static void version_order(void **state)
{
	(void)state;
	assert_true(nvl_gsp_fw_version_cmp("570.144", "535.113.01") > 0);
	assert_true(nvl_gsp_fw_version_cmp("535.54.03", "535.113.01") < 0);
	assert_int_equal(nvl_gsp_fw_version_cmp("535.113.01", "535.113.01"), 0);
}

struct load_arg {
	const char *dir;
};

static int load_op(void *arg)
{
	struct load_arg *a = arg;
	const char *const v[] = {"570.144", NULL};
	struct nvl_gsp_fw_opts o = {
		.versions = v, .search_path = a->dir, .no_builtin = true};
	struct nvl_gsp_fw *fw = NULL;
	int ret = nvl_gsp_fw_load("tu102", &o, &fw);

	nvl_gsp_fw_put(fw);
	return ret;
}

static void check_enomem(int ret, void *arg)
{
	(void)arg;
	assert_int_equal(ret, -ENOMEM);
}

static void alloc_failures(void **state)
{
	char a[512], p[PATH_MAX];
	struct load_arg arg = {a};

	(void)state;
	sub(a, "alloc");
	/* Three plain files and a zstd one, so both paths are covered. */
	fwgen_tree(a, "tu102", "570.144", FWGEN_ALL & ~FWGEN_BOOTER_LOAD,
		   tu10x_fams);
	snprintf(p, sizeof(p),
		 "%s/nvidia/tu102/gsp/booter_load-570.144.bin.zst", a);
	copy_prefix(BUILD_ZST "/nvidia/tu102/gsp/booter_load-570.144.bin.zst",
		    p, 0);
	assert_int_equal(load_op(&arg), 0);
	assert_true(t_fail_each_alloc(load_op, check_enomem, &arg, 64) >= 8);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(search_order),
	cmocka_unit_test(fallback_to_older),
	cmocka_unit_test(bounded_probes),
	cmocka_unit_test(error_names_every_path),
	cmocka_unit_test(no_signature_for_family),
	cmocka_unit_test(malformed_file_named),
	cmocka_unit_test(compressed_loads),
	cmocka_unit_test(corrupt_compressed),
	cmocka_unit_test(zstd_frame_forms),
	cmocka_unit_test(streamed_errors),
	cmocka_unit_test(build_tree_every_chip),
	cmocka_unit_test(signature_verify),
	cmocka_unit_test(signature_check_pieces),
	cmocka_unit_test(version_order),
	cmocka_unit_test(alloc_failures),
};

int main(int argc, char **argv)
{
	int ret;

	if (setup(NULL))
		return 1;
	ret = t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
	teardown(NULL);
	return ret;
}

// SPDX-License-Identifier: MIT
/*
 * TEST: GSP firmware file parsers (src/gsp/image_elf.c, image_bin.c)
 *
 * Files are built with NVIDIA's real structure (fwgen.c): gsp-<ver>.bin is
 * an ELF64 with .fwimage, .fwversion and 4 KiB .fwsignature_<family>
 * sections (the ga10x image carries cc_gh100, gh100, ad10x and ga10x);
 * booters have nvfw_bin_hdr (magic 0x10de) with the HS header v2 at 0x18,
 * the load header v2 at 0x354 and the payload at 0x378 as ga102's
 * booter_load-535.113.01.bin; the bootloader has the 84-byte
 * RM_RISCV_UCODE_DESC. Then each is broken in the ways files break.
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "base/log.h"
#include "gsp/image.h"
#include "fwgen.h"

static const char *const ga10x_fams[] = {"cc_gh100", "gh100", "ad10x", "ga10x",
					 NULL};

#define assert_err(expr, err, text)                                            \
	do {                                                                   \
		int r_ = (expr);                                               \
		assert_int_equal(r_, (err));                                   \
		if (!strstr(nvl_error_msg(), (text)))                          \
			fail_msg("message '%s' lacks '%s'", nvl_error_msg(),   \
				 (text));                                      \
	} while (0)

static void elf_real_structure(void **state)
{
	struct nvl_gsp_elf e;
	size_t len;
	uint8_t *f =
		fwgen_elf("535.113.01", 0x24480, ga10x_fams, NULL, 0, &len);

	(void)state;
	assert_int_equal(nvl_gsp_elf_parse(f, len, &e), 0);
	assert_string_equal(e.version, "535.113.01");
	assert_int_equal(e.fwimage_size, 0x24480);
	assert_int_equal(e.fwimage[0], 0x5a);
	assert_ptr_equal(e.fwimage, f + e.fwimage_offset);
	assert_int_equal(e.num_sigs, 4);
	assert_string_equal(e.sigs[0].family, "cc_gh100");
	assert_string_equal(e.sigs[3].family, "ga10x");
	assert_int_equal(nvl_gsp_elf_find_sig(&e, "ad10x")->size, 4096);
	assert_int_equal(nvl_gsp_elf_find_sig(&e, "ad10x")->data[0], 0x12);
	assert_null(nvl_gsp_elf_find_sig(&e, "tu10x"));
	free(f);
}

static void elf_unknown_sections_ignored(void **state)
{
	const struct fwgen_sect extra[] = {{".fwlogging", 100, 0, 1},
					   {".note", 16, 0, 2}};
	struct nvl_gsp_elf e;
	size_t len;
	uint8_t *f = fwgen_elf("570.144", 4096, ga10x_fams, extra, 2, &len);

	(void)state;
	assert_int_equal(nvl_gsp_elf_parse(f, len, &e), 0);
	assert_string_equal(e.version, "570.144");
	free(f);
}

static void elf_truncated(void **state)
{
	struct nvl_gsp_elf e;
	size_t len;
	uint8_t *f =
		fwgen_elf("535.113.01", 0x10000, ga10x_fams, NULL, 0, &len);

	(void)state;
	/* Cut inside the section header table, then inside .fwimage. */
	assert_err(nvl_gsp_elf_parse(f, len - 1, &e), -EBADMSG,
		   "section header table");
	assert_err(nvl_gsp_elf_parse(f, 0x8000, &e), -EBADMSG,
		   "section header table");
	assert_err(nvl_gsp_elf_parse(f, 10, &e), -EBADMSG, "too short");
	/* Every prefix fails cleanly. */
	for (size_t n = 0; n < len; n += 97)
		assert_int_equal(nvl_gsp_elf_parse(f, n, &e), -EBADMSG);
	free(f);
}

static void elf_section_past_end(void **state)
{
	struct nvl_gsp_elf e;
	size_t len;
	uint8_t *f = fwgen_elf("535.113.01", 0x1000, ga10x_fams, NULL, 0, &len);
	Elf64_Shdr *sh = fwgen_elf_shdr(f, 1); /* .fwimage */

	(void)state;
	sh->sh_size = 0x40000000; /* oversized: 1 GiB in a small file */
	assert_err(nvl_gsp_elf_parse(f, len, &e), -EBADMSG, "ends past the");
	sh->sh_size = 0x1000;
	sh->sh_offset = UINT64_MAX - 8; /* offset + size wraps */
	assert_err(nvl_gsp_elf_parse(f, len, &e), -EBADMSG, "ends past the");
	free(f);
}

static void elf_overlapping_sections(void **state)
{
	struct nvl_gsp_elf e;
	size_t len;
	uint8_t *f = fwgen_elf("535.113.01", 0x2000, ga10x_fams, NULL, 0, &len);
	Elf64_Shdr *img = fwgen_elf_shdr(f, 1);
	Elf64_Shdr *sig = fwgen_elf_shdr(f, 3);

	(void)state;
	sig->sh_offset = img->sh_offset + 0x1000; /* inside .fwimage */
	assert_err(nvl_gsp_elf_parse(f, len, &e), -EBADMSG, "overlaps");
	sig->sh_offset = 0x20; /* over the ELF header */
	assert_err(nvl_gsp_elf_parse(f, len, &e), -EBADMSG, "overlaps");
	free(f);
}

static void elf_header_checks(void **state)
{
	struct nvl_gsp_elf e;
	size_t len;
	uint8_t *f = fwgen_elf("535.113.01", 0x1000, ga10x_fams, NULL, 0, &len);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)f;

	(void)state;
	eh->e_ident[EI_CLASS] = ELFCLASS32;
	assert_err(nvl_gsp_elf_parse(f, len, &e), -EBADMSG, "ELFCLASS64");
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2MSB;
	assert_err(nvl_gsp_elf_parse(f, len, &e), -EBADMSG, "little-endian");
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_shstrndx = 99;
	assert_err(nvl_gsp_elf_parse(f, len, &e), -EBADMSG,
		   "section name table index");
	eh->e_shstrndx = 1; /* .fwimage is no string table */
	assert_err(nvl_gsp_elf_parse(f, len, &e), -EBADMSG,
		   "not a string table");
	f[0] = 'X';
	assert_err(nvl_gsp_elf_parse(f, len, &e), -EBADMSG, "not an ELF");
	assert_err(nvl_gsp_elf_parse(NULL, len, &e), -EINVAL, "no buffer");
	free(f);
}

static void elf_missing_and_duplicate(void **state)
{
	const struct fwgen_sect dup[] = {{".fwsignature_ga10x", 16, 0, 1}};
	const struct fwgen_sect bad[] = {{".fwsignature_GA-10", 16, 0, 1}};
	struct nvl_gsp_elf e;
	size_t len;
	uint8_t *f;
	char *name;

	(void)state;
	f = fwgen_elf("535.113.01", 0x1000, ga10x_fams, dup, 1, &len);
	assert_err(nvl_gsp_elf_parse(f, len, &e), -EBADMSG,
		   "two .fwsignature_ga10x");
	free(f);
	f = fwgen_elf("535.113.01", 0x1000, ga10x_fams, bad, 1, &len);
	assert_err(nvl_gsp_elf_parse(f, len, &e), -EBADMSG,
		   "bad signature family");
	free(f);
	/* Rename .fwversion in the string table: no version section. */
	f = fwgen_elf("535.113.01", 0x1000, ga10x_fams, NULL, 0, &len);
	name = memmem(f, len, ".fwversion", 10);
	assert_non_null(name);
	name[3] = 'X';
	assert_err(nvl_gsp_elf_parse(f, len, &e), -EBADMSG,
		   "no .fwversion section");
	free(f);
	f = fwgen_elf("", 0x1000, ga10x_fams, NULL, 0, &len);
	assert_err(nvl_gsp_elf_parse(f, len, &e), -EBADMSG, ".fwversion is 0");
	free(f);
	f = fwgen_elf("535 113", 0x1000, ga10x_fams, NULL, 0, &len);
	assert_err(nvl_gsp_elf_parse(f, len, &e), -EBADMSG, "non-printable");
	free(f);
}

/* no control byte (C0, DEL) nor non-ASCII byte (C1 in UTF-8 or 8-bit) */
static void assert_msg_plain(void)
{
	for (const unsigned char *p = (const void *)nvl_error_msg(); *p; p++)
		if (*p < 0x20 || *p > 0x7e)
			fail_msg("byte 0x%02x in '%s'", *p, nvl_error_msg());
}

/*
 * A hostile file's section names reach nvl_last_error(), which tools print
 * on a terminal: escape sequences (ESC [, an OSC title, an 8-bit CSI)
 * arrive as \xNN text.
 */
static void elf_hostile_names_escaped(void **state)
{
	const struct fwgen_sect fam[] = {
		{".fwsignature_\x1b[2J\x1b]0;x\x07", 16, 0, 1}};
	const struct fwgen_sect far[] = {{"\x1b[31m\xc2\x9b\x9b"
					  "2J",
					  16, 0, 1}};
	struct nvl_gsp_elf e;
	size_t len;
	uint8_t *f;
	Elf64_Shdr *sh;

	(void)state;
	f = fwgen_elf("535.113.01", 0x1000, ga10x_fams, fam, 1, &len);
	assert_err(nvl_gsp_elf_parse(f, len, &e), -EBADMSG,
		   "bad signature family in section name "
		   "'.fwsignature_\\x1b[2J\\x1b]0;x\\x07'");
	assert_msg_plain();
	free(f);
	f = fwgen_elf("535.113.01", 0x1000, ga10x_fams, far, 1, &len);
	sh = fwgen_elf_shdr(f, 7); /* the extra section, after 4 signatures */
	sh->sh_size = 0x40000000;
	assert_err(nvl_gsp_elf_parse(f, len, &e), -EBADMSG,
		   "section 7 '\\x1b[31m\\xc2\\x9b\\x9b"
		   "2J' at");
	assert_msg_plain();
	free(f);
}

static void booter_ga102_layout(void **state)
{
	struct nvl_gsp_booter b;
	const uint8_t *sig;
	size_t len;
	uint8_t *f = fwgen_booter(2, 0x8100, &len);

	(void)state;
	assert_int_equal(nvl_gsp_booter_parse(f, len, &b), 0);
	/* nvfw_bin_hdr */
	assert_int_equal(b.bin.bin_magic, 0x10de);
	assert_int_equal(b.bin.header_offset, 0x18);
	assert_int_equal(b.bin.data_offset, 0x378);
	/* HS header v2 */
	assert_int_equal(b.sig_prod_offset, 0x3c);
	assert_int_equal(b.sig_prod_size, 0x300);
	assert_int_equal(b.load_header_offset, 0x354);
	assert_int_equal(b.load_header_size, 36);
	assert_int_equal(b.num_sig, 2);
	assert_int_equal(b.sig_size, 384);
	assert_int_equal(b.patch_loc, 0x1000);
	assert_int_equal(b.fuse_ver, 3);
	assert_int_equal(b.engine_id, 7);
	assert_int_equal(b.ucode_id, 1);
	/* load header v2 */
	assert_int_equal(b.os_data_offset, 0x1000);
	assert_int_equal(b.num_apps, 2);
	assert_int_equal(b.apps[1].offset, 0x1800);
	assert_ptr_equal(b.payload, f + 0x378);
	assert_int_equal(b.payload_size, 0x8100);
	assert_int_equal(nvl_gsp_booter_sig(&b, 1, &sig), 0);
	assert_int_equal(sig[0], 0xa1);
	assert_ptr_equal(sig, f + 0x3c + 384);
	assert_err(nvl_gsp_booter_sig(&b, 2, &sig), -ENOEXEC, "has 2");
	free(f);
}

static void booter_rejects(void **state)
{
	struct nvl_gsp_booter b;
	size_t len;
	uint8_t *f = fwgen_booter(2, 0x2000, &len);
	uint8_t *c = malloc(len);

	(void)state;
#define MUT(off, val, text)                                                    \
	do {                                                                   \
		memcpy(c, f, len);                                             \
		fwgen_put32(c + (off), (val));                                 \
		assert_err(nvl_gsp_booter_parse(c, len, &b), -EBADMSG,         \
			   (text));                                            \
	} while (0)
	MUT(0x00, 0x10df, "bin_magic 0x10df");
	MUT(0x04, 2, "bin_ver 2");
	MUT(0x0c, 0x10000000, "header_offset");
	MUT(0x14, 0x10000, "payload 0x378+0x10000");
	MUT(0x10, 0x300, "overlaps payload (0x300+0x2000)");
	MUT(0x1c, 0x301, "not a multiple of num_sig");
	MUT(0x18, 0xfffffff0, "signatures");
	MUT(0x20, 0xffffffff, "patch_loc word");
	MUT(0x30, len, "num_sig word");
	MUT(0x33c, 0x1f90, "signature patch location"); /* +384 > payload */
	MUT(0x350, 0, "num_sig 0");
	MUT(0x2c, 4, "metadata");
	MUT(0x34, len - 8, "load header");
	MUT(0x354 + 16, 9, "num_apps 9");
	MUT(0x354 + 16, 3, "3 apps need a 44-byte load header");
	MUT(0x354 + 20, 0x1fff, "app 0x1fff+0xf00");
	MUT(0x354 + 8, 0xffffff00, "os data");
#undef MUT
	/* Every truncation of the file is rejected. */
	for (size_t n = 0; n < len; n += 13)
		assert_int_equal(nvl_gsp_booter_parse(f, n, &b), -EBADMSG);
	free(c);
	free(f);
}

static void bootloader_desc(void **state)
{
	struct nvl_gsp_bootloader bl;
	size_t len;
	uint8_t *f = fwgen_bootloader(&len);

	(void)state;
	assert_int_equal(nvl_gsp_bootloader_parse(f, len, &bl), 0);
	assert_int_equal(bl.desc.monitor_code_offset, 0x1000);
	assert_int_equal(bl.desc.monitor_data_offset, 0x3000);
	assert_int_equal(bl.desc.manifest_offset, 0x3c00);
	assert_int_equal(bl.desc.app_version, 53511301);
	assert_int_equal(bl.desc.fb_reserved_size, 0x100000);
	assert_ptr_equal(bl.payload, f + 24 + 84);
	assert_int_equal(bl.payload_size, 0x4000);
	/* monitor code ends past the payload */
	fwgen_put32(f + 24 + 13 * 4, 0x3001);
	assert_err(nvl_gsp_bootloader_parse(f, len, &bl), -EBADMSG,
		   "monitor code 0x1000+0x3001");
	fwgen_put32(f + 24 + 13 * 4, 0x2000);
	fwgen_put32(f + 16, 24 + 40); /* payload over the descriptor */
	assert_err(nvl_gsp_bootloader_parse(f, len, &bl), -EBADMSG, "overlaps");
	fwgen_put32(f + 16, 24 + 84);
	fwgen_put32(f + 12, (uint32_t)len - 40); /* descriptor cut off */
	assert_err(nvl_gsp_bootloader_parse(f, len, &bl), -EBADMSG, "cut off");
	free(f);
}

static void chip_families(void **state)
{
	(void)state;
	assert_string_equal(nvl_gsp_chip_family("tu102"), "tu10x");
	assert_string_equal(nvl_gsp_chip_family("tu117"), "tu11x");
	assert_string_equal(nvl_gsp_chip_family("ga100"), "ga100");
	assert_string_equal(nvl_gsp_chip_family("ga107"), "ga10x");
	assert_string_equal(nvl_gsp_chip_family("ad104"), "ad10x");
	assert_string_equal(nvl_gsp_chip_family("gh100"), "gh100");
	assert_null(nvl_gsp_chip_family("gk104"));
	assert_string_equal(nvl_gsp_chip_family("tiny"), "tu10x");
	assert_null(nvl_gsp_chip_family("tu10"));
}

struct buf {
	uint8_t *p;
	size_t len;
};

static int parse_elf_op(void *arg)
{
	struct buf *b = arg;
	struct nvl_gsp_elf e;

	return nvl_gsp_elf_parse(b->p, b->len, &e);
}

static void check_enomem(int ret, void *arg)
{
	(void)arg;
	assert_int_equal(ret, -ENOMEM);
}

static void elf_alloc_failures(void **state)
{
	struct buf b;

	(void)state;
	b.p = fwgen_elf("535.113.01", 0x8000, ga10x_fams, NULL, 0, &b.len);
	assert_true(t_fail_each_alloc(parse_elf_op, check_enomem, &b, 16) >= 1);
	free(b.p);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(elf_real_structure),
	cmocka_unit_test(elf_unknown_sections_ignored),
	cmocka_unit_test(elf_truncated),
	cmocka_unit_test(elf_section_past_end),
	cmocka_unit_test(elf_overlapping_sections),
	cmocka_unit_test(elf_header_checks),
	cmocka_unit_test(elf_missing_and_duplicate),
	cmocka_unit_test(elf_hostile_names_escaped),
	cmocka_unit_test(booter_ga102_layout),
	cmocka_unit_test(booter_rejects),
	cmocka_unit_test(bootloader_desc),
	cmocka_unit_test(chip_families),
	cmocka_unit_test(elf_alloc_failures),
};

T_MAIN(tests)

/* SPDX-License-Identifier: MIT */
/*
 * Test helper: firmware files with NVIDIA's real structure, built in
 * memory (independently of nvl-fwbuild and of the parser), and small
 * linux-firmware-layout trees on disk.
 */
#ifndef NVL_TESTS_GSP_FWGEN_H
#define NVL_TESTS_GSP_FWGEN_H

#include <stddef.h>
#include <stdint.h>

/** One section of a generated ELF; offset 0 = place it after the last. */
struct fwgen_sect {
	const char *name;
	size_t size;
	uint64_t offset;
	uint8_t fill;
};

/**
 * fwgen_elf() - an ELF64 gsp-<ver>.bin: .fwimage (@image_size bytes),
 * .fwversion (@version), then one 4 KiB .fwsignature_<f> per @families
 * entry (as the real ga10x image: cc_gh100, gh100, ad10x, ga10x), then any
 * @extra sections. Returns a malloc'd buffer, its size in @len.
 */
uint8_t *fwgen_elf(const char *version, size_t image_size,
		   const char *const *families, const struct fwgen_sect *extra,
		   unsigned nextra, size_t *len);

/* Section header table offset and section @i's header in a generated ELF. */
uint64_t fwgen_elf_shoff(const uint8_t *elf);
void *fwgen_elf_shdr(uint8_t *elf, unsigned i);

/**
 * fwgen_booter() - a booter in the real layout: bin header, HS header v2
 * at 0x18, @num_sig signatures of 384 bytes at 0x3c, patch_loc, patch_sig,
 * meta (fuse_ver, engine_id, ucode_id), num_sig, load header v2 (2 apps),
 * payload of @payload bytes. With 2 signatures the load header is at 0x354
 * and the payload at 0x378, as in ga102's booter_load-535.113.01.bin.
 * Signature i is filled with byte 0xa0 + i.
 */
uint8_t *fwgen_booter(unsigned num_sig, size_t payload, size_t *len);

/** fwgen_bootloader() - bin header, 84-byte RISC-V desc, 0x4000 payload. */
uint8_t *fwgen_bootloader(size_t *len);

void fwgen_put32(uint8_t *p, uint32_t v);

/* Files of a tree, as a bit mask. */
#define FWGEN_GSP 1u
#define FWGEN_BOOTER_LOAD 2u
#define FWGEN_BOOTER_UNLOAD 4u
#define FWGEN_BOOTLOADER 8u
#define FWGEN_ALL 15u

/**
 * fwgen_tree() - write @root/nvidia/@chip/gsp/<file>-@ver.bin for the files
 * in @mask, with a small (64 KiB) image signed for @families. Returns 0.
 */
int fwgen_tree(const char *root, const char *chip, const char *ver,
	       unsigned mask, const char *const *families);

/** fwgen_write() - write @len bytes to @path (creating directories). */
int fwgen_write(const char *path, const void *p, size_t len);

/** fwgen_rmtree() - remove a directory tree made by a test. */
void fwgen_rmtree(const char *root);

#endif

// SPDX-License-Identifier: MIT
/*
 * Test helper: firmware files with NVIDIA's structure. The layouts follow
 * the facts in ../shared/reference/gsp-firmware.md §1.1 (nvfw_bin_hdr,
 * nvfw_hs_header_v2, nvfw_hs_load_header_v2, RM_RISCV_UCODE_DESC) and
 * NVIDIA's extract-firmware-nouveau.py, which writes linux-firmware's files.
 */
#include <elf.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fwgen.h"

void fwgen_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

uint8_t *fwgen_elf(const char *version, size_t image_size,
		   const char *const *families, const struct fwgen_sect *extra,
		   unsigned nextra, size_t *len)
{
	struct fwgen_sect s[32];
	char names[32][40];
	char strtab[1024] = "";
	uint32_t name_off[32];
	size_t n = 0, slen = 1, off = sizeof(Elf64_Ehdr), shoff, total;
	uint8_t *f;
	Elf64_Ehdr eh;

	s[n++] = (struct fwgen_sect){".fwimage", image_size, 0, 0x5a};
	s[n++] = (struct fwgen_sect){".fwversion", strlen(version) + 1, 0, 0};
	for (unsigned i = 0; families && families[i]; i++) {
		snprintf(names[n], sizeof(names[n]), ".fwsignature_%s",
			 families[i]);
		s[n] = (struct fwgen_sect){names[n], 4096, 0,
					   (uint8_t)(0x10 + i)};
		n++;
	}
	for (unsigned i = 0; i < nextra; i++)
		s[n++] = extra[i];
	s[n++] = (struct fwgen_sect){".shstrtab", 0, 0, 0};
	for (size_t i = 0; i < n; i++) {
		name_off[i] = (uint32_t)slen;
		strcpy(strtab + slen, s[i].name);
		slen += strlen(s[i].name) + 1;
	}
	s[n - 1].size = slen;
	for (size_t i = 0; i < n; i++) {
		if (!s[i].offset) {
			off = (off + 255) & ~(size_t)255;
			s[i].offset = off;
		}
		if (s[i].offset + s[i].size > off)
			off = s[i].offset + s[i].size;
	}
	shoff = (off + 7) & ~(size_t)7;
	total = shoff + (n + 1) * sizeof(Elf64_Shdr);
	f = calloc(1, total);
	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_RISCV;
	eh.e_version = EV_CURRENT;
	eh.e_shoff = shoff;
	eh.e_ehsize = sizeof(eh);
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = (Elf64_Half)(n + 1);
	eh.e_shstrndx = (Elf64_Half)n;
	memcpy(f, &eh, sizeof(eh));
	for (size_t i = 0; i < n; i++) {
		Elf64_Shdr sh;
		bool is_str = i == n - 1;

		memset(&sh, 0, sizeof(sh));
		sh.sh_name = name_off[i];
		sh.sh_type = is_str ? SHT_STRTAB : SHT_PROGBITS;
		sh.sh_offset = s[i].offset;
		sh.sh_size = s[i].size;
		sh.sh_addralign = 1;
		memcpy(f + shoff + (i + 1) * sizeof(sh), &sh, sizeof(sh));
		if (s[i].offset + s[i].size > shoff)
			continue; /* a test's deliberately bad section */
		if (is_str)
			memcpy(f + s[i].offset, strtab, slen);
		else if (!strcmp(s[i].name, ".fwversion"))
			memcpy(f + s[i].offset, version, s[i].size);
		else
			memset(f + s[i].offset, s[i].fill, s[i].size);
	}
	*len = total;
	return f;
}

uint64_t fwgen_elf_shoff(const uint8_t *elf)
{
	Elf64_Ehdr eh;

	memcpy(&eh, elf, sizeof(eh));
	return eh.e_shoff;
}

void *fwgen_elf_shdr(uint8_t *elf, unsigned i)
{
	return elf + fwgen_elf_shoff(elf) + i * sizeof(Elf64_Shdr);
}

uint8_t *fwgen_booter(unsigned num_sig, size_t payload, size_t *len)
{
	uint32_t sigs = num_sig * 384, words = 0x3c + sigs;
	uint32_t lhdr = words + 24, data = lhdr + 36;
	size_t total = data + payload;
	uint8_t *f = calloc(1, total);

	fwgen_put32(f + 0x00, 0x10de); /* bin_magic */
	fwgen_put32(f + 0x04, 1); /* bin_ver */
	fwgen_put32(f + 0x08, (uint32_t)((total + 255) & ~(size_t)255));
	fwgen_put32(f + 0x0c, 0x18); /* header_offset: HS header v2 */
	fwgen_put32(f + 0x10, data); /* data_offset */
	fwgen_put32(f + 0x14, (uint32_t)payload);
	fwgen_put32(f + 0x18, 0x3c); /* sig_prod_offset */
	fwgen_put32(f + 0x1c, sigs); /* sig_prod_size */
	fwgen_put32(f + 0x20, words); /* patch_loc */
	fwgen_put32(f + 0x24, words + 4); /* patch_sig */
	fwgen_put32(f + 0x28, words + 8); /* meta_data_offset */
	fwgen_put32(f + 0x2c, 12); /* meta_data_size */
	fwgen_put32(f + 0x30, words + 20); /* num_sig */
	fwgen_put32(f + 0x34, lhdr); /* header_offset: load header */
	fwgen_put32(f + 0x38, 36); /* header_size */
	for (unsigned i = 0; i < num_sig; i++)
		memset(f + 0x3c + i * 384, 0xa0 + i, 384);
	fwgen_put32(f + words, 0x1000); /* patch_loc value */
	fwgen_put32(f + words + 4, 0); /* patch_sig value */
	fwgen_put32(f + words + 8, 3); /* fuse_ver */
	fwgen_put32(f + words + 12, 7); /* engine_id */
	fwgen_put32(f + words + 16, 1); /* ucode_id */
	fwgen_put32(f + words + 20, num_sig); /* num_sig value */
	fwgen_put32(f + lhdr + 0, 0); /* os_code_offset */
	fwgen_put32(f + lhdr + 4, 0x100); /* os_code_size */
	fwgen_put32(f + lhdr + 8, 0x1000); /* os_data_offset */
	fwgen_put32(f + lhdr + 12, 0x800); /* os_data_size */
	fwgen_put32(f + lhdr + 16, 2); /* num_apps */
	fwgen_put32(f + lhdr + 20, 0x100); /* app[0] offset */
	fwgen_put32(f + lhdr + 24, 0xf00); /* app[0] size */
	fwgen_put32(f + lhdr + 28, 0x1800); /* app[1] offset */
	fwgen_put32(f + lhdr + 32, 0x100); /* app[1] size */
	for (size_t i = 0; i < payload; i++)
		f[data + i] = (uint8_t)(i * 7);
	*len = total;
	return f;
}

uint8_t *fwgen_bootloader(size_t *len)
{
	const uint32_t desc[21] = {
		1,	  0,	  0x800, 0x800, 0x100, 0x1000,	 0x2000,
		53511301, 0x3c00, 0x400, /* manifest */
		0x3000,	  0xc00, /* monitor data */
		0x1000,	  0x2000, /* monitor code */
		1,	  0,	  0,	 0,	0,     0x100000, 0,
	};
	size_t total = 24 + 84 + 0x4000;
	uint8_t *f = calloc(1, total);

	fwgen_put32(f + 0, 0x10de);
	fwgen_put32(f + 4, 1);
	fwgen_put32(f + 8, (uint32_t)((total + 255) & ~(size_t)255));
	fwgen_put32(f + 12, 24);
	fwgen_put32(f + 16, 24 + 84);
	fwgen_put32(f + 20, 0x4000);
	for (int i = 0; i < 21; i++)
		fwgen_put32(f + 24 + 4 * i, desc[i]);
	*len = total;
	return f;
}

int fwgen_write(const char *path, const void *p, size_t len)
{
	char dir[4096];
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", path);
	for (char *s = dir + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		mkdir(dir, 0755);
		*s = '/';
	}
	f = fopen(path, "wb");
	if (!f)
		return -1;
	if (fwrite(p, 1, len, f) != len) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

int fwgen_tree(const char *root, const char *chip, const char *ver,
	       unsigned mask, const char *const *families)
{
	char path[4096];
	uint8_t *f;
	size_t len;
	int ret = 0;

	if (mask & FWGEN_GSP) {
		f = fwgen_elf(ver, 64 << 10, families, NULL, 0, &len);
		snprintf(path, sizeof(path), "%s/nvidia/%s/gsp/gsp-%s.bin",
			 root, chip, ver);
		ret |= fwgen_write(path, f, len);
		free(f);
	}
	for (int i = 0; i < 2; i++) {
		if (!(mask & (i ? FWGEN_BOOTER_UNLOAD : FWGEN_BOOTER_LOAD)))
			continue;
		f = fwgen_booter(2, 0x2000, &len);
		snprintf(path, sizeof(path), "%s/nvidia/%s/gsp/%s-%s.bin", root,
			 chip, i ? "booter_unload" : "booter_load", ver);
		ret |= fwgen_write(path, f, len);
		free(f);
	}
	if (mask & FWGEN_BOOTLOADER) {
		f = fwgen_bootloader(&len);
		snprintf(path, sizeof(path),
			 "%s/nvidia/%s/gsp/bootloader-%s.bin", root, chip, ver);
		ret |= fwgen_write(path, f, len);
		free(f);
	}
	return ret;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void fwgen_rmtree(const char *root)
{
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

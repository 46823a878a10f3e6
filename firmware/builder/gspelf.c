// SPDX-License-Identifier: MIT
/*
 * nvl-fwbuild: gsp-<ver>.bin, an ELF64 file shaped like NVIDIA's GSP image:
 *
 *   ELF header
 *   .fwimage                 (4 KiB aligned) manifest page + payload
 *   .fwversion               the version string, NUL-terminated
 *   .fwsignature_<family>    one per family, RSA-3072 PSS/SHA-256 over
 *                            the whole .fwimage
 *   .shstrtab
 *   section header table     (NULL, .shstrtab, .fwimage, .fwversion, sigs)
 *
 * Every family's signature differs (PSS is salted), as on real images where
 * each family is signed separately.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../nvl_fw_manifest.h"
#include "builder.h"

#define MAX_SECTIONS 16
#define SIG_MAX 512

struct sect {
	const char *name;
	uint32_t type;
	const void *data;
	size_t size;
	size_t align;
	size_t offset;
	size_t name_off;
};

static void build_fwimage(uint8_t *img, const struct fwb_image *im,
			  uint64_t seed)
{
	struct nvl_fw_manifest m;
	size_t payload = im->fwimage_size - NVL_FW_MANIFEST_PAYLOAD_OFFSET;

	memset(img, 0, NVL_FW_MANIFEST_PAYLOAD_OFFSET);
	fwb_fill(img + NVL_FW_MANIFEST_PAYLOAD_OFFSET, payload, seed);

	memset(&m, 0, sizeof(m));
	m.magic = NVL_FW_MANIFEST_MAGIC;
	m.manifest_version = NVL_FW_MANIFEST_VERSION;
	m.header_size = sizeof(m);
	m.libos_version = im->libos;
	snprintf(m.version, sizeof(m.version), "%s", im->version);
	memcpy(m.image_family, im->family,
	       strnlen(im->family, sizeof(m.image_family)));
	m.image_size = im->fwimage_size;
	m.payload_offset = NVL_FW_MANIFEST_PAYLOAD_OFFSET;
	m.payload_size = payload;
	m.build_seed = seed;
	fwb_sha256(img + NVL_FW_MANIFEST_PAYLOAD_OFFSET, payload,
		   m.payload_sha256);
	/* The host is little-endian (x86-64, arm64): the struct is the wire. */
	memcpy(img, &m, sizeof(m));
}

int fwb_write_gsp_elf(const char *path, const struct fwb_image *im,
		      EVP_PKEY *key)
{
	struct sect s[MAX_SECTIONS];
	uint8_t sigs[MAX_SECTIONS][SIG_MAX];
	char names[MAX_SECTIONS][40];
	char shstr[1024];
	size_t nsect = 0, shstr_len = 1, off, shoff, total;
	uint8_t digest[32], *img, *out;
	Elf64_Ehdr eh;
	int ret = -1;

	img = malloc(im->fwimage_size);
	if (!img)
		return -1;
	build_fwimage(img, im, fwb_seed(im->version, im->family));
	if (fwb_sha256(img, im->fwimage_size, digest))
		goto out_img;

	memset(s, 0, sizeof(s));
	s[nsect++] = (struct sect){.name = "", .type = SHT_NULL};
	s[nsect++] = (struct sect){
		.name = ".shstrtab", .type = SHT_STRTAB, .align = 1};
	s[nsect++] = (struct sect){.name = ".fwimage",
				   .type = SHT_PROGBITS,
				   .data = img,
				   .size = im->fwimage_size,
				   .align = 4096};
	s[nsect++] = (struct sect){.name = ".fwversion",
				   .type = SHT_PROGBITS,
				   .data = im->version,
				   .size = strlen(im->version) + 1,
				   .align = 1};
	for (size_t i = 0; im->sig_families[i] && nsect < MAX_SECTIONS; i++) {
		size_t len = SIG_MAX;

		if (fwb_sign_digest(key, digest, sigs[nsect], &len)) {
			fprintf(stderr, "nvl-fwbuild: signing %s failed\n",
				path);
			goto out_img;
		}
		snprintf(names[nsect], sizeof(names[nsect]), ".fwsignature_%s",
			 im->sig_families[i]);
		s[nsect] = (struct sect){.name = names[nsect],
					 .type = SHT_PROGBITS,
					 .data = sigs[nsect],
					 .size = len,
					 .align = 256};
		nsect++;
	}

	/* Names, then offsets: sections after the ELF header, in order. */
	shstr[0] = '\0';
	for (size_t i = 1; i < nsect; i++) {
		size_t n = strlen(s[i].name) + 1;

		s[i].name_off = shstr_len;
		memcpy(shstr + shstr_len, s[i].name, n);
		shstr_len += n;
	}
	s[1].data = shstr;
	s[1].size = shstr_len;
	off = sizeof(Elf64_Ehdr);
	for (size_t i = 2; i < nsect; i++) {
		off = (off + s[i].align - 1) & ~(s[i].align - 1);
		s[i].offset = off;
		off += s[i].size;
	}
	s[1].offset = off;
	off += shstr_len;
	shoff = (off + 7) & ~(size_t)7;
	total = shoff + nsect * sizeof(Elf64_Shdr);

	out = calloc(1, total);
	if (!out)
		goto out_img;
	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_REL;
	eh.e_machine = EM_RISCV;
	eh.e_version = EV_CURRENT;
	eh.e_shoff = shoff;
	eh.e_ehsize = sizeof(Elf64_Ehdr);
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = (Elf64_Half)nsect;
	eh.e_shstrndx = 1;
	memcpy(out, &eh, sizeof(eh));
	for (size_t i = 0; i < nsect; i++) {
		Elf64_Shdr sh;

		memset(&sh, 0, sizeof(sh));
		if (i) {
			sh.sh_name = (Elf64_Word)s[i].name_off;
			sh.sh_type = s[i].type;
			sh.sh_offset = s[i].offset;
			sh.sh_size = s[i].size;
			sh.sh_addralign = s[i].align;
			memcpy(out + s[i].offset, s[i].data, s[i].size);
		}
		memcpy(out + shoff + i * sizeof(sh), &sh, sizeof(sh));
	}
	ret = fwb_write_file(path, out, total);
	free(out);
out_img:
	free(img);
	return ret;
}

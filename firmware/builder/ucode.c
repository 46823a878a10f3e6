// SPDX-License-Identifier: MIT
/*
 * nvl-fwbuild: booter_{load,unload}-<ver>.bin and bootloader-<ver>.bin in
 * the layout NVIDIA's extract script gives linux-firmware's files:
 *
 * booter (SEC2 heavy-secure ucode):
 *   0x00  nvfw_bin_hdr      magic 0x10de, ver 1, size (rounded to 256),
 *                           header_offset 0x18, data_offset, data_size
 *   0x18  HS header v2      sig_prod_offset 0x3c, sig_prod_size,
 *                           patch_loc, patch_sig, meta_data_offset,
 *                           meta_data_size 12, num_sig, header_offset,
 *                           header_size 36 (all offsets into the file)
 *   0x3c  signatures        num_sig x 384 bytes
 *         patch_loc value, patch_sig value, fuse_ver, engine_id, ucode_id,
 *         num_sig value
 *         load header v2    os_code_offset/size, os_data_offset/size,
 *                           num_apps, (offset, size) x num_apps
 *         payload           (2 signatures: 0x354 / 0x378, as ga102's)
 *
 * bootloader (GSP RISC-V boot ROM image):
 *   0x00  nvfw_bin_hdr      header_offset 0x18, data_offset 0x18 + 84
 *   0x18  RISC-V ucode desc (21 words: version, bootloader offset/size,
 *                           param offset/size, ELF offset/size, appVersion,
 *                           manifest, monitor data, monitor code, ...)
 *         payload
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builder.h"

#define BIN_HDR 24
#define HS_HDR 36
#define SIG_SIZE 384
#define NUM_SIGS 2
#define LOAD_HDR 36
#define DESC_WORDS 21

static uint32_t round256(uint32_t x)
{
	return (x + 255) & ~255u;
}

static uint32_t app_version(const char *version)
{
	unsigned a = 0, b = 0, c = 0;

	sscanf(version, "%u.%u.%u", &a, &b, &c);
	return a * 100000u + b * 100u + c;
}

int fwb_write_booter(const char *path, const char *chip, const char *version,
		     int unload, EVP_PKEY *key)
{
	uint32_t code = unload ? 0x3000 : 0x6000, data = 0x2000;
	uint32_t payload = code + data + 0x100;
	uint32_t sigs = NUM_SIGS * SIG_SIZE;
	uint32_t sig_off = BIN_HDR + HS_HDR;
	uint32_t words = sig_off + sigs; /* patch_loc, patch_sig, meta, num */
	uint32_t lhdr = words + 24;
	uint32_t data_off = lhdr + LOAD_HDR;
	uint32_t size = data_off + payload;
	uint8_t *f = calloc(1, size), digest[32];
	int ret = -1;

	if (!f)
		return -1;
	fwb_put32(f + 0, 0x10de);
	fwb_put32(f + 4, 1);
	fwb_put32(f + 8, round256(size));
	fwb_put32(f + 12, BIN_HDR);
	fwb_put32(f + 16, data_off);
	fwb_put32(f + 20, payload);

	fwb_put32(f + 24, sig_off);
	fwb_put32(f + 28, sigs);
	fwb_put32(f + 32, words);
	fwb_put32(f + 36, words + 4);
	fwb_put32(f + 40, words + 8);
	fwb_put32(f + 44, 12);
	fwb_put32(f + 48, words + 20);
	fwb_put32(f + 52, lhdr);
	fwb_put32(f + 56, LOAD_HDR);

	/* patch location: in the DMEM image, where the signature goes. */
	fwb_put32(f + words, code + 0x100);
	fwb_put32(f + words + 4, 0);
	fwb_put32(f + words + 8, unload ? 2 : 3); /* fuse_ver */
	fwb_put32(f + words + 12, 0x7); /* engine_id: SEC2 */
	fwb_put32(f + words + 16, unload ? 0x2 : 0x1); /* ucode_id */
	fwb_put32(f + words + 20, NUM_SIGS);

	fwb_put32(f + lhdr + 0, 0); /* os_code_offset */
	fwb_put32(f + lhdr + 4, 0x100); /* os_code_size */
	fwb_put32(f + lhdr + 8, code); /* os_data_offset */
	fwb_put32(f + lhdr + 12, data); /* os_data_size */
	fwb_put32(f + lhdr + 16, 2); /* num_apps */
	fwb_put32(f + lhdr + 20, 0x100); /* app[0].offset */
	fwb_put32(f + lhdr + 24, code - 0x100);
	fwb_put32(f + lhdr + 28, code + data); /* app[1].offset */
	fwb_put32(f + lhdr + 32, 0x100);

	fwb_fill(f + data_off, payload,
		 fwb_seed(chip, version) ^ (unload ? 0x5555 : 0xaaaa));
	/* The signature slot in the payload is zero until the driver patches */
	memset(f + data_off + code + 0x100, 0, SIG_SIZE);
	fwb_sha256(f + data_off, payload, digest);
	for (int i = 0; i < NUM_SIGS; i++) {
		size_t len = SIG_SIZE;

		if (fwb_sign_digest(key, digest, f + sig_off + i * SIG_SIZE,
				    &len) ||
		    len != SIG_SIZE) {
			fprintf(stderr, "nvl-fwbuild: %s: signing failed\n",
				path);
			goto out;
		}
	}
	ret = fwb_write_file(path, f, size);
out:
	free(f);
	return ret;
}

int fwb_write_bootloader(const char *path, const char *chip,
			 const char *version)
{
	const uint32_t desc_off = BIN_HDR, data_off = BIN_HDR + DESC_WORDS * 4;
	const uint32_t payload = 0x4800;
	uint32_t desc[DESC_WORDS] = {
		1, /* version */
		0, /* bootloaderOffset */
		0x800, /* bootloaderSize */
		0x800, /* bootloaderParamOffset */
		0x100, /* bootloaderParamSize */
		0x1000, /* riscvElfOffset */
		0x3800, /* riscvElfSize */
		app_version(version),
		0x4400, /* manifestOffset */
		0x400, /* manifestSize */
		0x3000, /* monitorDataOffset */
		0x1000, /* monitorDataSize */
		0x1000, /* monitorCodeOffset */
		0x2000, /* monitorCodeSize */
		1, /* bIsMonitorEnabled */
		0,
		0,
		0,
		0, /* swbrom code/data */
		0x100000, /* fbReservedSize */
		0, /* bSignedAsCode */
	};
	uint32_t size = data_off + payload;
	uint8_t *f = calloc(1, size);
	int ret;

	if (!f)
		return -1;
	fwb_put32(f + 0, 0x10de);
	fwb_put32(f + 4, 1);
	fwb_put32(f + 8, round256(size));
	fwb_put32(f + 12, desc_off);
	fwb_put32(f + 16, data_off);
	fwb_put32(f + 20, payload);
	for (int i = 0; i < DESC_WORDS; i++)
		fwb_put32(f + desc_off + 4 * i, desc[i]);
	fwb_fill(f + data_off, payload, fwb_seed(chip, version));
	ret = fwb_write_file(path, f, size);
	free(f);
	return ret;
}

/* SPDX-License-Identifier: MIT */
/*
 * nvl-fwbuild: the build-time image builder for nouvelle's GSP firmware.
 *
 * A host program run by Meson custom_targets. It never links the library:
 * it writes the files from the file formats' facts, and the driver's parser
 * (src/gsp/image*.c) reads them back, so each cross-checks the other.
 */
#ifndef NVL_FWBUILD_H
#define NVL_FWBUILD_H

#include <stddef.h>
#include <stdint.h>
#include <openssl/evp.h>

/* One GSP ELF image (shared by every chip of its family). */
struct fwb_image {
	const char *version; /* "535.113.01" */
	const char *family; /* "tu10x" or "ga10x" (manifest image_family) */
	const char *const *sig_families; /* NULL-terminated */
	size_t fwimage_size; /* bytes of .fwimage */
	unsigned libos; /* 2 or 3 */
};

/* xorshift64* stream used for every deterministic fill. */
static inline uint64_t fwb_rand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1Dull;
}

uint64_t fwb_seed(const char *a, const char *b);
void fwb_fill(uint8_t *p, size_t n, uint64_t seed);
void fwb_put32(uint8_t *p, uint32_t v);
void fwb_put64(uint8_t *p, uint64_t v);

EVP_PKEY *fwb_load_key(const char *pem_path);
/* RSA-PSS (SHA-256, salt = digest length) over @digest; 0 or -1. */
int fwb_sign_digest(EVP_PKEY *key, const uint8_t digest[32], uint8_t *sig,
		    size_t *sig_len);
int fwb_sha256(const void *p, size_t n, uint8_t out[32]);

int fwb_write_file(const char *path, const void *p, size_t n);
int fwb_mkdirs(const char *path);
int fwb_symlink(const char *target, const char *linkpath);

int fwb_write_gsp_elf(const char *path, const struct fwb_image *img,
		      EVP_PKEY *key);
int fwb_write_booter(const char *path, const char *chip, const char *version,
		     int unload, EVP_PKEY *key);
int fwb_write_bootloader(const char *path, const char *chip,
			 const char *version);

int fwb_compress(const char *src, const char *dst, int xz);

#endif

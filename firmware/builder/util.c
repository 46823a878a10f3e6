// SPDX-License-Identifier: MIT
/* nvl-fwbuild: fill, hashing, signing and file helpers. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/pem.h>
#include <openssl/rsa.h>

#include "builder.h"

uint64_t fwb_seed(const char *a, const char *b)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	for (const char *s = a; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	h = (h ^ '/') * 0x100000001b3ull;
	for (const char *s = b; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h ? h : 1;
}

/*
 * Deterministic filler shaped like firmware: 64-byte lines that are zero
 * (bss-like, 1 in 4), repeat an earlier line (1 in 4), or are random words
 * with some bits masked (code-like). zstd -3 and xz -0 shrink it about
 * 2:1, and xz -0 gets through it at a few seconds per image.
 */
void fwb_fill(uint8_t *p, size_t n, uint64_t seed)
{
	uint64_t s = seed ? seed : 1;
	size_t i = 0;

	for (; i + 64 <= n; i += 64) {
		uint64_t r = fwb_rand(&s);

		if ((r & 3) == 0) {
			memset(p + i, 0, 64);
			continue;
		}
		if ((r & 3) == 1 && i >= 4096) {
			memcpy(p + i, p + i - 64 * (1 + ((r >> 8) & 63)), 64);
			continue;
		}
		for (int k = 0; k < 64; k += 8) {
			uint64_t w = fwb_rand(&s) & 0x7f0fff3f00ff1fffull;

			memcpy(p + i + k, &w, 8);
		}
	}
	for (; i < n; i++)
		p[i] = (uint8_t)fwb_rand(&s);
}

void fwb_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

void fwb_put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

EVP_PKEY *fwb_load_key(const char *pem_path)
{
	FILE *f = fopen(pem_path, "r");
	EVP_PKEY *key;

	if (!f) {
		fprintf(stderr, "nvl-fwbuild: %s: %s\n", pem_path,
			strerror(errno));
		return NULL;
	}
	key = PEM_read_PrivateKey(f, NULL, NULL, NULL);
	fclose(f);
	if (!key)
		fprintf(stderr, "nvl-fwbuild: %s: not a PEM private key\n",
			pem_path);
	return key;
}

int fwb_sha256(const void *p, size_t n, uint8_t out[32])
{
	unsigned int len = 32;

	return EVP_Digest(p, n, out, &len, EVP_sha256(), NULL) == 1 ? 0 : -1;
}

int fwb_sign_digest(EVP_PKEY *key, const uint8_t digest[32], uint8_t *sig,
		    size_t *sig_len)
{
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(key, NULL);
	int ok;

	if (!ctx)
		return -1;
	ok = EVP_PKEY_sign_init(ctx) == 1 &&
	     EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PSS_PADDING) == 1 &&
	     EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()) == 1 &&
	     EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx, RSA_PSS_SALTLEN_DIGEST) ==
		     1 &&
	     EVP_PKEY_sign(ctx, sig, sig_len, digest, 32) == 1;
	EVP_PKEY_CTX_free(ctx);
	return ok ? 0 : -1;
}

int fwb_write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	int ok;

	if (!f) {
		fprintf(stderr, "nvl-fwbuild: %s: %s\n", path, strerror(errno));
		return -1;
	}
	ok = fwrite(p, 1, n, f) == n;
	ok &= fclose(f) == 0;
	if (!ok)
		fprintf(stderr, "nvl-fwbuild: %s: write failed\n", path);
	return ok ? 0 : -1;
}

int fwb_mkdirs(const char *path)
{
	char buf[4096];
	size_t n = strlen(path);

	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, path, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST) {
			fprintf(stderr, "nvl-fwbuild: mkdir %s: %s\n", buf,
				strerror(errno));
			return -1;
		}
		buf[i] = path[i];
	}
	return 0;
}

int fwb_symlink(const char *target, const char *linkpath)
{
	unlink(linkpath);
	if (symlink(target, linkpath)) {
		fprintf(stderr, "nvl-fwbuild: symlink %s -> %s: %s\n", linkpath,
			target, strerror(errno));
		return -1;
	}
	return 0;
}

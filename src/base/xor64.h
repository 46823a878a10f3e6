/* SPDX-License-Identifier: MIT */
/*
 * The XOR of a buffer's 64-bit words, optionally copying it in the same
 * pass: the GSP message queues' checksum on both sides (the driver's
 * src/gsp/msgq.c and the model firmware's src/model/gsp/fw.c).
 */
#ifndef NVL_BASE_XOR64_H
#define NVL_BASE_XOR64_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* two 64-bit words at a time (SSE2 on x86-64; plain words elsewhere) */
typedef uint64_t nvl_xor64_v2 __attribute__((vector_size(16)));

/**
 * nvl_copy_xor64() - XOR of the 64-bit words of a buffer, copied on the way
 * @dst: where to copy the words, or NULL to only XOR them
 * @src: the buffer (any alignment)
 * @len: its length in bytes; a trailing part shorter than a word is
 *       neither XORed nor copied
 *
 * 64 bytes per iteration in four independent accumulators, so a 4 KiB page
 * costs a few hundred instructions.
 *
 * Return: the XOR of the words.
 */
static inline uint64_t nvl_copy_xor64(uint8_t *dst, const uint8_t *src,
				      size_t len)
{
	nvl_xor64_v2 a = {0, 0}, b = {0, 0}, c = {0, 0}, d = {0, 0};
	uint64_t x = 0;
	size_t i = 0;

	/* one loop: with @dst NULL at the call site, or -O3's unswitching,
	 * the stores drop out */
	for (; i + 64 <= len; i += 64) {
		nvl_xor64_v2 w0, w1, w2, w3;

		memcpy(&w0, src + i, 16);
		memcpy(&w1, src + i + 16, 16);
		memcpy(&w2, src + i + 32, 16);
		memcpy(&w3, src + i + 48, 16);
		if (dst) {
			memcpy(dst + i, &w0, 16);
			memcpy(dst + i + 16, &w1, 16);
			memcpy(dst + i + 32, &w2, 16);
			memcpy(dst + i + 48, &w3, 16);
		}
		a ^= w0;
		b ^= w1;
		c ^= w2;
		d ^= w3;
	}
	for (; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, src + i, 8);
		if (dst)
			memcpy(dst + i, &w, 8);
		x ^= w;
	}
	a ^= b ^ c ^ d;
	return x ^ a[0] ^ a[1];
}

#endif

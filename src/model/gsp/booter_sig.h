/* SPDX-License-Identifier: MIT */
/*
 * The model's booter signature check: the key "fused" into the model.
 *
 * On a real GPU booter_load (running heavy-secure on SEC2) checks the GSP
 * image's signature against a key fused into the chip before it copies the
 * image into WPR2. The model's key pair is made at build time
 * (firmware/meson.build); its public half is compiled in from a generated
 * header and the private half is used only by the image builder.
 */
#ifndef NVL_MODEL_GSP_BOOTER_SIG_H
#define NVL_MODEL_GSP_BOOTER_SIG_H

#include <stddef.h>

/** NVL_MODEL_BOOTER_SIG_SIZE - bytes in a signature (RSA-3072). */
#define NVL_MODEL_BOOTER_SIG_SIZE 384

/**
 * nvl_model_booter_verify() - check a GSP image signature.
 * @fwimage: the .fwimage bytes
 * @size: bytes in @fwimage
 * @sig: the .fwsignature_<family> section bytes
 * @sig_size: bytes in @sig
 *
 * The signature is RSA-PSS (SHA-256, salt length = 32) over the whole
 * .fwimage, made with the build's private key.
 *
 * Return: 0 when the signature is good; -EKEYREJECTED when it is not (wrong
 * size, wrong key, image or signature changed); -EINVAL for NULL buffers.
 */
int nvl_model_booter_verify(const void *fwimage, size_t size, const void *sig,
			    size_t sig_size);

/* a signature check fed the image piece by piece (booter_sig.c) */
struct nvl_model_booter_check;

/**
 * nvl_model_booter_check_begin() - start a signature check fed in pieces.
 *
 * For a booter that hashes the image while it copies it: each piece is
 * hashed from the cache right after it is written, instead of reading the
 * whole image back from memory once the copy is done.
 *
 * Return: the check, or NULL when out of memory or when the fused key is
 * unusable (nvl_model_booter_check_end() then tells which).
 */
struct nvl_model_booter_check *nvl_model_booter_check_begin(void);

/**
 * nvl_model_booter_check_update() - hash the next @len bytes of the image.
 * @c: the check (may be NULL: nothing is done)
 * @data: the bytes
 * @len: how many
 */
void nvl_model_booter_check_update(struct nvl_model_booter_check *c,
				   const void *data, size_t len);

/**
 * nvl_model_booter_check_end() - verify the signature and free @c.
 * @c: the check, or NULL (a failed begin)
 * @size: bytes hashed (for the message)
 * @sig: the signature bytes
 * @sig_size: bytes in @sig
 *
 * Return: as nvl_model_booter_verify() over the bytes fed to @c.
 */
int nvl_model_booter_check_end(struct nvl_model_booter_check *c, size_t size,
			       const void *sig, size_t sig_size);

#endif /* NVL_MODEL_GSP_BOOTER_SIG_H */

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

#endif /* NVL_MODEL_GSP_BOOTER_SIG_H */

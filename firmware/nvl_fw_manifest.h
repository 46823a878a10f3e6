/* SPDX-License-Identifier: MIT */
/*
 * The manifest at the start of nouvelle's GSP firmware image (.fwimage).
 *
 * This is the firmware's own definition, shared by the image builder (which
 * writes it), the model's GSP (which reads it by DMA to learn which firmware
 * build it runs) and tools that describe an image (nvl fw info). It is not an
 * NVIDIA structure: NVIDIA's .fwimage is a LIBOS image; ours starts with this
 * page and is followed by the payload.
 *
 * Layout of .fwimage:
 *   0x0000  struct nvl_fw_manifest (128 bytes), zero-padded to 4 KiB
 *   0x1000  payload (image_size - 0x1000 bytes), hashed by payload_sha256
 *
 * All fields little-endian.
 */
#ifndef NVL_FW_MANIFEST_H
#define NVL_FW_MANIFEST_H

#include <stdint.h>

/** NVL_FW_MANIFEST_MAGIC - "NVLFWMAN" read as a little-endian u64. */
#define NVL_FW_MANIFEST_MAGIC 0x4e414d57464c564eull
/** NVL_FW_MANIFEST_VERSION - layout revision of struct nvl_fw_manifest. */
#define NVL_FW_MANIFEST_VERSION 1
/** NVL_FW_MANIFEST_PAYLOAD_OFFSET - where the payload starts in .fwimage. */
#define NVL_FW_MANIFEST_PAYLOAD_OFFSET 0x1000u

/**
 * struct nvl_fw_manifest - first bytes of a nouvelle .fwimage.
 * @magic: NVL_FW_MANIFEST_MAGIC
 * @manifest_version: NVL_FW_MANIFEST_VERSION
 * @header_size: sizeof(struct nvl_fw_manifest) (128)
 * @version: firmware version string ("535.113.01"), NUL-padded
 * @image_family: which image this is ("tu10x" or "ga10x"), NUL-padded
 * @image_size: size of the whole .fwimage section, bytes
 * @payload_offset: NVL_FW_MANIFEST_PAYLOAD_OFFSET
 * @payload_size: image_size - payload_offset
 * @payload_sha256: SHA-256 of the payload bytes
 * @libos_version: 2 (tu10x image) or 3 (ga10x image)
 * @build_seed: the seed the builder filled the payload from
 * @reserved: zero
 */
struct nvl_fw_manifest {
	uint64_t magic;
	uint16_t manifest_version;
	uint16_t header_size;
	uint32_t libos_version;
	char version[32];
	char image_family[8];
	uint64_t image_size;
	uint64_t payload_offset;
	uint64_t payload_size;
	uint8_t payload_sha256[32];
	uint64_t build_seed;
	uint8_t reserved[8];
};

_Static_assert(sizeof(struct nvl_fw_manifest) == 128, "nvl_fw_manifest layout");

#endif /* NVL_FW_MANIFEST_H */

/* SPDX-License-Identifier: MIT */
/*
 * The chips the driver knows, by BOOT_0 chip id (ARCHITECTURE and
 * IMPLEMENTATION, 28:20): the name its firmware directory carries, the
 * firmware versions the driver accepts, and the page-table format.
 */
#ifndef NVL_NV_CHIP_H
#define NVL_NV_CHIP_H

#include <stdint.h>

/** struct nvl_nv_chip - one chip. */
struct nvl_nv_chip {
	/** @id: BOOT_0 28:20 */
	uint32_t id;
	/** @name: "tu102", ...; the firmware directory */
	const char *name;
	/** @family: "Turing", ... */
	const char *family;
	/** @fw_versions: accepted GSP firmware, NULL-terminated */
	const char *const *fw_versions;
	/** @mmu_version: 2 (Pascal..Ada) or 3 (Hopper) */
	unsigned mmu_version;
	/** @va_bits: 49 (v2) or 57 (v3) */
	unsigned va_bits;
};

/**
 * nvl_nv_chip_from_boot0() - the chip of a BOOT_0 value.
 * Return: the entry, or NULL for a chip the driver does not support.
 */
const struct nvl_nv_chip *nvl_nv_chip_from_boot0(uint32_t boot0);

#endif /* NVL_NV_CHIP_H */

/* SPDX-License-Identifier: MIT */
/*
 * Chip identification: what the driver knows about a chip it reads from
 * BOOT_0 (ARCHITECTURE 28:24, IMPLEMENTATION 23:20) and a per-chip table,
 * as nvkm does; nothing is probed from registers a real GPU lacks. Later,
 * the firmware's static info refines it.
 */
#ifndef NVL_NV_CHIP_H
#define NVL_NV_CHIP_H

#include <stdbool.h>
#include <stdint.h>

#include "base/compiler.h"

struct nvl_hw;

/** struct nvl_nv_chip - one family's facts. */
struct nvl_nv_chip {
	/** @family: "Turing", "Ampere", "Ada" or "Hopper" */
	const char *family;
	/** @arch: BOOT_0 ARCHITECTURE */
	uint32_t arch;
	/** @mmu_version: page-table format (2, or 3 from Hopper on) */
	unsigned int mmu_version;
	/** @big_leaf_pd1: 512 MiB PTEs at PD1 (Ampere and later) */
	bool big_leaf_pd1;
	/** @host_class: the channel (GPFIFO) class */
	uint32_t host_class;
	/** @ce_class: the copy engine class */
	uint32_t ce_class;
	/** @compute_class: the compute class (Ampere: GA10x's 0xC7C0) */
	uint32_t compute_class;
};

/**
 * nvl_nv_chip_identify() - read BOOT_0 and find the chip's row.
 * @hw: the device
 * @out: the row (static storage)
 *
 * Return: 0, or -ENODEV for an architecture the table does not know.
 */
int nvl_nv_chip_identify(struct nvl_hw *hw,
			 const struct nvl_nv_chip **out) NVL_MUST_CHECK;

#endif /* NVL_NV_CHIP_H */

// SPDX-License-Identifier: MIT
/*
 * DOC: chip table
 *
 * One row per architecture (BOOT_0 ARCHITECTURE): the page-table format
 * (version 3 from Hopper, dev_mmu.ref / Nouveau's vmmgh100.c), whether PD1
 * holds 512 MiB pages (Ampere on, vmmga100 / vmmgh100) and the classes.
 */
#include <errno.h>

#include "base/log.h"
#include "hw/ce.h"
#include "hw/compute.h"
#include "hw/hwif.h"
#include "hw/regs.h"
#include "nv/chip.h"

static const struct nvl_nv_chip chips[] = {
	{"Turing", NVL_HW_ARCH_TURING, 2, false, 0xc46f, NVL_HW_CE_CLASS_TURING,
	 NVL_HW_COMPUTE_CLASS_TURING},
	{"Ampere", NVL_HW_ARCH_AMPERE, 2, true, 0xc56f, NVL_HW_CE_CLASS_ADA,
	 NVL_HW_COMPUTE_CLASS_AMPERE_B},
	{"Ada", NVL_HW_ARCH_ADA, 2, true, 0xc56f, NVL_HW_CE_CLASS_ADA,
	 NVL_HW_COMPUTE_CLASS_ADA},
	{"Hopper", NVL_HW_ARCH_HOPPER, 3, true, 0xc86f, NVL_HW_CE_CLASS_HOPPER,
	 NVL_HW_COMPUTE_CLASS_HOPPER},
};

/**
 * nvl_nv_chip_identify() - see chip.h.
 */
int nvl_nv_chip_identify(struct nvl_hw *hw, const struct nvl_nv_chip **out)
{
	uint32_t boot0 = nvl_hw_rd32(hw, NVL_HW_PMC_BOOT_0);
	uint32_t arch =
		boot0 >> NVL_HW_BOOT_0_ARCH_SHIFT & NVL_HW_BOOT_0_ARCH_MASK;

	for (unsigned int i = 0; i < NVL_ARRAY_SIZE(chips); i++) {
		if (chips[i].arch == arch) {
			*out = &chips[i];
			return 0;
		}
	}
	return nvl_error(-ENODEV, "nv: unknown chip, BOOT_0 %#x", boot0);
}

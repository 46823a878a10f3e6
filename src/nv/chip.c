// SPDX-License-Identifier: MIT
/*
 * DOC: chip table
 *
 * BOOT_0's chip id (open-gpu-doc dev_boot: ARCHITECTURE 28:24,
 * IMPLEMENTATION 23:20) names the chip. The driver boots only GSP-era
 * chips whose firmware interface it speaks (535.113.01).
 */
#include <stddef.h>

#include "hw/regs.h"
#include "nv/chip.h"

static const char *const fw_535[] = {"535.113.01", NULL};
/*
 * gh100 is built with 570.144 only; until abigen gives the driver a 570
 * layer it speaks 535.113.01's interface to it, which the model's
 * firmware answers for every image it runs.
 */
static const char *const fw_gh100[] = {"570.144", NULL};

static const struct nvl_nv_chip chips[] = {
	{0x162, "tu102", "Turing", fw_535, 2, 49},
	/* the model's small Turing test board: TU117's id, own fw directory */
	{0x167, "tiny", "Turing", fw_535, 2, 49},
	{0x172, "ga102", "Ampere", fw_535, 2, 49},
	{0x192, "ad102", "Ada", fw_535, 2, 49},
	{0x180, "gh100", "Hopper", fw_gh100, 3, 57},
};

const struct nvl_nv_chip *nvl_nv_chip_from_boot0(uint32_t boot0)
{
	uint32_t id = NVL_HW_BOOT_0_CHIP_ID(boot0);

	for (size_t i = 0; i < sizeof(chips) / sizeof(chips[0]); i++)
		if (chips[i].id == id)
			return &chips[i];
	return NULL;
}

// SPDX-License-Identifier: MIT
/*
 * DOC: chip profiles
 *
 * What distinguishes the chips the model can be: identity (BOOT_0
 * architecture and implementation), VRAM size, copy engines, channels, page
 * sizes, MMU format, the classes each engine implements, performance
 * states, the power/thermal constants and the GSP firmware versions the
 * chip accepts. Figures are plausible for the named boards, not measured.
 */
#include <string.h>

#include "hw/ce.h"
#include "hw/regs.h"
#include "model/model.h"

#define GIB (1ull << 30)
#define MIB (1ull << 20)
#define PS_V2 ((1ull << 12) | (1ull << 16) | (1ull << 21))
#define PS_AMPERE (PS_V2 | (1ull << 29))

static const char *const fw_turing_ampere[] = {"535.113.01", "570.144", NULL};
static const char *const fw_ada_hopper[] = {"570.144", NULL};

static const struct nvl_model_profile profiles[] = {
	{
		.name = "tiny",
		.family = "Turing (test)",
		.boot0 = NVL_HW_BOOT_0(NVL_HW_ARCH_TURING, 0x7, 0xa, 1),
		.vram_size = 256 * MIB,
		.num_ce = 2,
		.num_channels = 64,
		.page_sizes = PS_V2,
		.mmu_version = 2,
		.va_bits = 49,
		.host_class = 0xc46f,
		.ce_class = NVL_HW_CE_CLASS_TURING,
		.compute_class = 0xc5c0,
		.fw_versions = fw_turing_ampere,
		.pstates = {{0, 1500, 5000}, {5, 900, 5000}, {8, 300, 405}},
		.num_pstates = 3,
		.idle_mw = 10000,
		.engine_mw = 30000,
		.tdp_mw = 75000,
		.r_th_mc_per_w = 800,
		.tau_ms = 2000,
		.slowdown_mc = 87000,
		.fan = true,
	},
	{
		.name = "tu102",
		.family = "Turing",
		.boot0 = NVL_HW_BOOT_0(NVL_HW_ARCH_TURING, 0x2, 0xa, 1),
		.vram_size = 11 * GIB,
		.num_ce = 5,
		.num_channels = 512,
		.page_sizes = PS_V2,
		.mmu_version = 2,
		.va_bits = 49,
		.host_class = 0xc46f,
		.ce_class = NVL_HW_CE_CLASS_TURING,
		.compute_class = 0xc5c0,
		.fw_versions = fw_turing_ampere,
		.pstates = {{0, 1545, 7000}, {5, 1035, 7000}, {8, 300, 405}},
		.num_pstates = 3,
		.idle_mw = 20000,
		.engine_mw = 60000,
		.tdp_mw = 250000,
		.r_th_mc_per_w = 200,
		.tau_ms = 3000,
		.slowdown_mc = 91000,
		.fan = true,
	},
	{
		.name = "ga102",
		.family = "Ampere",
		.boot0 = NVL_HW_BOOT_0(NVL_HW_ARCH_AMPERE, 0x2, 0xa, 1),
		.vram_size = 24 * GIB,
		.num_ce = 5,
		.num_channels = 512,
		.page_sizes = PS_AMPERE,
		.mmu_version = 2,
		.va_bits = 49,
		.host_class = 0xc56f,
		.ce_class = NVL_HW_CE_CLASS_ADA,
		.compute_class = 0xc7c0,
		.fw_versions = fw_turing_ampere,
		.pstates = {{0, 1695, 9750}, {5, 1110, 9750}, {8, 210, 405}},
		.num_pstates = 3,
		.idle_mw = 30000,
		.engine_mw = 90000,
		.tdp_mw = 350000,
		.r_th_mc_per_w = 150,
		.tau_ms = 3000,
		.slowdown_mc = 93000,
		.fan = true,
	},
	{
		.name = "ad102",
		.family = "Ada",
		.boot0 = NVL_HW_BOOT_0(NVL_HW_ARCH_ADA, 0x2, 0xa, 1),
		.vram_size = 24 * GIB,
		.num_ce = 5,
		.num_channels = 512,
		.page_sizes = PS_AMPERE,
		.mmu_version = 2,
		.va_bits = 49,
		.host_class = 0xc56f,
		.ce_class = NVL_HW_CE_CLASS_ADA,
		.compute_class = 0xc9c0,
		.fw_versions = fw_ada_hopper,
		.pstates = {{0, 2520, 10500}, {5, 1500, 10500}, {8, 210, 405}},
		.num_pstates = 3,
		.idle_mw = 25000,
		.engine_mw = 110000,
		.tdp_mw = 450000,
		.r_th_mc_per_w = 120,
		.tau_ms = 3000,
		.slowdown_mc = 90000,
		.fan = true,
	},
	{
		.name = "gh100",
		.family = "Hopper",
		.boot0 = NVL_HW_BOOT_0(NVL_HW_ARCH_HOPPER, 0x0, 0xa, 1),
		.vram_size = 80 * GIB,
		.num_ce = 10,
		.num_channels = 2048,
		.page_sizes = PS_AMPERE,
		.mmu_version = 3,
		.va_bits = 57,
		.host_class = 0xc86f,
		.ce_class = NVL_HW_CE_CLASS_HOPPER,
		.compute_class = 0xcbc0,
		.fw_versions = fw_ada_hopper,
		.pstates = {{0, 1980, 2619}, {5, 1200, 2619}, {8, 345, 1593}},
		.num_pstates = 3,
		.idle_mw = 60000,
		.engine_mw = 140000,
		.tdp_mw = 700000,
		.r_th_mc_per_w = 80,
		.tau_ms = 4000,
		.slowdown_mc = 87000,
		.mem_sensor = true,
	},
};

const struct nvl_model_profile *nvl_model_profile_find(const char *name)
{
	if (!name)
		name = "tiny";
	for (size_t i = 0; i < NVL_ARRAY_SIZE(profiles); i++)
		if (!strcmp(profiles[i].name, name))
			return &profiles[i];
	return NULL;
}

const struct nvl_model_profile *nvl_model_profile_at(unsigned i)
{
	return i < NVL_ARRAY_SIZE(profiles) ? &profiles[i] : NULL;
}

// SPDX-License-Identifier: MIT
/*
 * Fuzz target for the model's page-table walker: arbitrary table memory
 * and addresses must end in a translation or a fault, never in a crash or
 * an access outside the model's memory.
 *
 * Input: u64 va | u8 flags (bit 0: v3, bit 1: write, bit 2: sys PDB) |
 * u16 pdb (4 KiB page index inside the window) | table bytes, copied to a
 * 256 KiB window of VRAM at 64 MiB (a PDE may point anywhere, including
 * outside VRAM).
 */
#include <stdint.h>
#include <string.h>

#include "hw/fault.h"
#include "hw/hwif.h"
#include "model/mmu.h"
#include "model/model.h"

#define WIN_BASE (64ull << 20)
#define WIN_SIZE (256u << 10)

static struct nvl_model *m;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t zero[WIN_SIZE];
	struct nvl_model_vmctx ctx;
	struct nvl_model_xlate x;
	struct nvl_model_walk_trace tr;
	uint64_t va;
	uint16_t pdb;
	uint8_t flags, buf[64];
	size_t n;

	if (size < 11)
		return 0;
	if (!m && nvl_model_create(nvl_model_profile_find("ga102"), &m))
		return 0;
	memcpy(&va, data, 8);
	flags = data[8];
	memcpy(&pdb, data + 9, 2);
	data += 11;
	size -= 11;
	n = size < WIN_SIZE ? size : WIN_SIZE;
	nvl_hw_vram_write(nvl_model_hw(m), WIN_BASE, zero, WIN_SIZE);
	nvl_hw_vram_write(nvl_model_hw(m), WIN_BASE, data, n);
	nvl_model_mmu_invalidate(m->mmu, NULL, 0, 0);

	ctx.pdb = WIN_BASE + (uint64_t)(pdb % (WIN_SIZE / 4096)) * 4096;
	ctx.aperture = flags & 4 ? NVL_HW_APERTURE_SYS_COH :
				   NVL_HW_APERTURE_VIDMEM;
	ctx.version = flags & 1 ? 3 : 2;

	nvl_model_mmu_walk(m, &ctx, va, flags & 2 ? NVL_HW_FAULT_ACCESS_WRITE :
						    NVL_HW_FAULT_ACCESS_READ,
			   &x, &tr);
	if (x.state > NVL_MODEL_XLATE_FAULT || tr.n > NVL_MODEL_MMU_MAX_STEPS)
		__builtin_trap();
	if (x.state == NVL_MODEL_XLATE_MAPPED &&
	    x.aperture == NVL_HW_APERTURE_VIDMEM && x.pa >= m->vram_size)
		__builtin_trap();
	/* the same through the TLB and an engine access, twice (hit) */
	for (int i = 0; i < 2; i++) {
		nvl_model_mmu_translate(m, &ctx, va, NVL_HW_FAULT_ACCESS_READ,
					&x);
		nvl_model_vm_access(m, &ctx, va, buf, sizeof(buf), false,
				    NVL_HW_MMU_ENGINE_CE(0), 0);
	}
	/* writes land only in the window (or nowhere) */
	if (flags & 2)
		nvl_model_vm_fill(m, &ctx, va, 0xdeadbeef, 64,
				  NVL_HW_MMU_ENGINE_CE(0), 0);
	return 0;
}

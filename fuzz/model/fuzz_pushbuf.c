// SPDX-License-Identifier: MIT
/*
 * Fuzz target: arbitrary pushbuffers through the PBDMA decoder, the Host
 * methods and the copy engine of a "tiny" model.
 *
 * Input: byte 0 = flags (bit 0: privileged channel, bit 1: bytes 1..8 are
 * a raw GPFIFO entry submitted first), then little-endian dwords forming
 * one pushbuffer segment. The address space maps the low 64 MiB of VRAM
 * (2 MiB pages), a DMA-mapped system page at 4 GiB, a sparse 2 MiB at
 * 8 GiB and a read-only page at 16 GiB; everything else faults.
 *
 * The model must never crash nor touch host memory outside VRAM and the
 * DMA-mapped page (ASan checks). Work that does not finish within 100 ms
 * (endless copies, unsatisfied acquires) is abandoned by powering off the
 * device, which stops its engines.
 */
#include <stdlib.h>
#include <string.h>

#include "base/time.h"
#include "hw/fault.h"
#include "hw/regs.h"
#include "kit.h"
#include "model/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_DW (1u << 16)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nvl_kit_chan ch;
	struct nvl_kit_vm vm;
	struct nvl_kit kit;
	struct nvl_model *m;
	struct nvl_hw *hw;
	uint8_t *sys;
	uint64_t dma;
	uint32_t *dw;
	size_t ndw;
	uint8_t flags;

	if (size < 1)
		return 0;
	flags = data[0];
	data++;
	size--;
	if (nvl_model_create(nvl_model_profile_find("tiny"), &m))
		return 0;
	hw = nvl_model_hw(m);
	sys = aligned_alloc(4096, 4096);
	if (!sys)
		goto out_model;
	memset(sys, 0x3c, 4096);
	if (nvl_kit_init(&kit, hw, 64ull << 20) ||
	    nvl_kit_vm_init(&kit, &vm) ||
	    nvl_kit_map(&kit, &vm, 0, 0, 64ull << 20, 21,
			      NVL_HW_APERTURE_VIDMEM, 0) ||
	    nvl_hw_dma_map(hw, sys, 4096, &dma) ||
	    nvl_kit_map(&kit, &vm, 1ull << 32, dma, 4096, 12,
			      NVL_HW_APERTURE_SYS_COH, 0) ||
	    nvl_kit_map(&kit, &vm, 1ull << 33, 0, 2ull << 20, 21,
			      NVL_HW_APERTURE_VIDMEM, NVL_KIT_SPARSE) ||
	    nvl_kit_map(&kit, &vm, 1ull << 34, 0x10000, 4096, 12,
			      NVL_HW_APERTURE_VIDMEM, NVL_KIT_RO))
		goto out_sys;
	/* the kit maps its channel structures above 64 MiB identically */
	if (nvl_kit_map(&kit, &vm, 64ull << 20, 64ull << 20,
			      kit.vram_size - (64ull << 20), 21,
			      NVL_HW_APERTURE_VIDMEM, 0) ||
	    nvl_kit_chan_create(&kit, &vm, 3, 1, 4, 4 * MAX_DW + 64,
				      flags & 1, &ch))
		goto out_sys;
	nvl_hw_wr32(hw, NVL_HW_FAULT_BUF_LO(0),
		    NVL_HW_FAULT_BUF_LO_PHYS(0x20000, NVL_HW_FAULT_APERTURE_VID));
	nvl_hw_wr32(hw, NVL_HW_FAULT_BUF_SIZE(0),
		    64 | NVL_HW_FAULT_BUF_SIZE_ENABLE);
	if ((flags & 2) && size >= 8) {
		uint64_t e;
		uint32_t put = 1;

		memcpy(&e, data, 8);
		data += 8;
		size -= 8;
		(void)nvl_hw_vram_write(hw, ch.gpfifo, &e, 8);
		ch.gp_put = 1;
		(void)nvl_hw_vram_write(hw, ch.userd + 0x8c, &put, 4);
	}
	ndw = NVL_MIN(size / 4, (size_t)MAX_DW);
	dw = malloc(ndw * 4 + 4);
	if (dw) {
		memcpy(dw, data, ndw * 4);
		if (ndw && !nvl_kit_push(&ch, dw, (uint32_t)ndw))
			(void)nvl_kit_kick(&kit, &ch);
		else
			nvl_hw_wr32(hw, NVL_HW_DOORBELL,
				    NVL_HW_DOORBELL_TOKEN(3, 1));
		free(dw);
	}
	(void)nvl_kit_wait_idle(&kit, &ch, 100 * NVL_NSEC_PER_MSEC);
	nvl_kit_chan_fini(&kit, &ch);
out_sys:
	/* power off first: engines may still be copying from @sys */
	nvl_model_destroy(m);
	free(sys);
	return 0;
out_model:
	nvl_model_destroy(m);
	return 0;
}

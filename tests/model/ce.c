// SPDX-License-Identifier: MIT
/*
 * TEST: model_ce
 * Description: hand-built pushbuffers drive the copy engine through the
 * MMU: copies, memsets, multi-line pitch copies, system memory through
 * the IOMMU, semaphore release with a non-stall interrupt, CE semaphores,
 * non-stall interrupts coalesced within a run but never held behind a copy.
 */
#include <stdlib.h>
#include <time.h>

#include "gpu.h"

#define SRC 0x100000ull
#define DST 0x800000ull
#define SEM 0x10000ull

static void copy_through_ce_then_release_raises_nonstall_irq(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan ch;
	uint32_t p[64], n;

	gpu_chan(g, 1, 0, &ch);
	gpu_fill(g, SRC, 3 << 20, 7);
	n = nvl_kit_pb_copy(p, g->ce_class, DST, SRC, 3 << 20);
	n += nvl_kit_pb_release(p + n, SEM, 42);
	gpu_push(&ch, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &ch), 0);
	assert_int_equal(nvl_kit_wait_u32(&g->kit, SEM, 42, GPU_WAIT), 0);
	assert_true(gpu_same(g, SRC, DST, 3 << 20));
	assert_true(gpu_wait_nonzero(&g->nonstall, GPU_WAIT));
	assert_true(atomic_load(&g->nonstall) & NVL_HW_INTR_NONSTALL_ENGINE(0));
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &ch, GPU_WAIT), 0);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(1)), 0);
	assert_int_equal(nvl_kit_gp_get(&g->kit, &ch), 1);
	nvl_kit_chan_fini(&g->kit, &ch);
	gpu_down(g);
}

static void memset_through_constant_remap_fills_pattern(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan ch;
	uint32_t p[64], n, v;

	gpu_chan(g, 0, 1, &ch);
	gpu_wr(g, DST - 4, 0x11111111);
	gpu_wr(g, DST + 4096, 0x22222222);
	n = nvl_kit_pb_memset(p, g->ce_class, DST, 0xdeadbeef, 4096);
	n += nvl_kit_pb_release(p + n, SEM, 1);
	gpu_push(&ch, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &ch), 0);
	assert_int_equal(nvl_kit_wait_u32(&g->kit, SEM, 1, GPU_WAIT), 0);
	for (unsigned i = 0; i < 4096; i += 4) {
		v = gpu_rd(g, DST + i);
		assert_int_equal(v, 0xdeadbeef);
	}
	assert_int_equal(gpu_rd(g, DST - 4), 0x11111111);
	assert_int_equal(gpu_rd(g, DST + 4096), 0x22222222);
	nvl_kit_chan_fini(&g->kit, &ch);
	gpu_down(g);
}

static void multi_line_pitch_copy_moves_only_the_lines(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan ch;
	uint32_t p[64], n = 0;

	gpu_chan(g, 2, 0, &ch);
	gpu_fill(g, SRC, 64 * 256, 3);
	p[n++] = NVL_HW_MTHD_INC(4, NVL_HW_SET_OBJECT, 1);
	p[n++] = g->ce_class;
	p[n++] = NVL_HW_MTHD_INC(4, NVL_HW_CE_OFFSET_IN_UPPER, 8);
	p[n++] = 0;
	p[n++] = (uint32_t)SRC;
	p[n++] = 0;
	p[n++] = (uint32_t)DST;
	p[n++] = 256; /* pitch in */
	p[n++] = 100; /* pitch out */
	p[n++] = 100; /* line length */
	p[n++] = 64; /* lines */
	p[n++] = NVL_HW_MTHD_IMMD(4, NVL_HW_CE_LAUNCH_DMA,
				  NVL_HW_CE_LAUNCH_COPY_MULTI);
	n += nvl_kit_pb_release(p + n, SEM, 5);
	gpu_push(&ch, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &ch), 0);
	assert_int_equal(nvl_kit_wait_u32(&g->kit, SEM, 5, GPU_WAIT), 0);
	for (unsigned l = 0; l < 64; l++)
		assert_true(gpu_same(g, SRC + l * 256, DST + l * 100, 100));
	nvl_kit_chan_fini(&g->kit, &ch);
	gpu_down(g);
}

static void ce_semaphore_release_with_timestamp_and_interrupt(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan ch;
	uint32_t p[64], n = 0, w[4];
	uint64_t t0 = nvl_model_time_ns(g->m), ts;

	gpu_chan(g, 3, 1, &ch);
	p[n++] = NVL_HW_MTHD_INC(4, NVL_HW_SET_OBJECT, 1);
	p[n++] = g->ce_class;
	p[n++] = NVL_HW_MTHD_INC(4, NVL_HW_CE_SET_SEMAPHORE_A, 3);
	p[n++] = 0;
	p[n++] = (uint32_t)SEM;
	p[n++] = 77;
	p[n++] = NVL_HW_MTHD_INC(4, NVL_HW_CE_LAUNCH_DMA, 1);
	p[n++] = NVL_HW_CE_TRANSFER_NONE |
		 NVL_HW_CE_SEM_FOUR_WORD << NVL_HW_CE_LAUNCH_SEM_SHIFT |
		 NVL_HW_CE_INTR_NON_BLOCKING << NVL_HW_CE_LAUNCH_INTR_SHIFT;
	gpu_push(&ch, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &ch), 0);
	assert_int_equal(nvl_kit_wait_u32(&g->kit, SEM, 77, GPU_WAIT), 0);
	assert_true(gpu_wait_nonzero(&g->nonstall, GPU_WAIT));
	assert_true(atomic_load(&g->nonstall) & NVL_HW_INTR_NONSTALL_ENGINE(1));
	assert_int_equal(nvl_hw_vram_read(g->hw, SEM, w, 16), 0);
	ts = (uint64_t)w[3] << 32 | w[2];
	assert_true(ts >= t0 && ts <= nvl_model_time_ns(g->m));
	nvl_kit_chan_fini(&g->kit, &ch);
	gpu_down(g);
}

/*
 * clc5b5.h / clc7b5.h NVC5B5_SET_SEMAPHORE_A_UPPER, NVC5B5_OFFSET_IN_UPPER_UPPER
 * and NVC5B5_OFFSET_OUT_UPPER_UPPER are 16:0 (VA bits 48:32) before
 * Hopper; clc8b5.h widens them to 24:0. A value with a bit above the
 * class's field names no address of the class: a CE_LAUNCH channel error
 * at that method, nothing copied or released. Bit 16 itself is taken.
 */
static void upper_field_is_16_0_before_hopper(uint32_t mthd, uint32_t bad)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan ch;
	uint32_t p[64], n = 0;

	assert_int_equal(g->ce_class, NVL_HW_CE_CLASS_TURING);
	gpu_chan(g, 3, 1, &ch);
	gpu_wr(g, SEM, 0);
	p[n++] = NVL_HW_MTHD_INC(4, NVL_HW_SET_OBJECT, 1);
	p[n++] = g->ce_class;
	/* 16:0 all ones is a valid value (VA 48:32), then @bad */
	p[n++] = NVL_HW_MTHD_INC(4, mthd, 1);
	p[n++] = 0x1ffffu;
	p[n++] = NVL_HW_MTHD_INC(4, mthd, 1);
	p[n++] = bad;
	p[n++] = NVL_HW_MTHD_INC(4, NVL_HW_CE_SET_SEMAPHORE_A, 3);
	p[n++] = 0;
	p[n++] = (uint32_t)SEM;
	p[n++] = 91;
	p[n++] = NVL_HW_MTHD_INC(4, NVL_HW_CE_LAUNCH_DMA, 1);
	p[n++] = NVL_HW_CE_TRANSFER_NONE |
		 NVL_HW_CE_SEM_ONE_WORD << NVL_HW_CE_LAUNCH_SEM_SHIFT;
	gpu_push(&ch, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &ch), 0);
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &ch, GPU_WAIT), -EIO);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(3)),
			 NVL_HW_CHERR_CE_LAUNCH);
	assert_int_equal(gpu_rd(g, SEM), 0);
	nvl_kit_chan_fini(&g->kit, &ch);
	gpu_down(g);
}

static void upper_address_fields_are_16_0_before_hopper(void **state)
{
	upper_field_is_16_0_before_hopper(NVL_HW_CE_SET_SEMAPHORE_A, 1u << 17);
	upper_field_is_16_0_before_hopper(NVL_HW_CE_OFFSET_IN_UPPER, 1u << 24);
	upper_field_is_16_0_before_hopper(NVL_HW_CE_OFFSET_OUT_UPPER,
					  0xffu << 17);
}

static void copy_from_dma_mapped_system_pages(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan ch;
	uint32_t p[64], n;
	uint8_t *sys = aligned_alloc(4096, 8192);
	uint64_t dma;

	assert_non_null(sys);
	for (int i = 0; i < 8192; i++)
		sys[i] = (uint8_t)(i * 7);
	assert_int_equal(nvl_hw_dma_map(g->hw, sys, 8192, &dma), 0);
	/* map the system pages at a high VA with 4 KiB PTEs */
	assert_int_equal(nvl_kit_map(&g->kit, &g->vm, 1ull << 40, dma, 8192, 12,
				     NVL_HW_APERTURE_SYS_COH, 0),
			 0);
	gpu_chan(g, 4, 0, &ch);
	n = nvl_kit_pb_copy(p, g->ce_class, DST, 1ull << 40, 8192);
	n += nvl_kit_pb_release(p + n, SEM, 9);
	gpu_push(&ch, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &ch), 0);
	assert_int_equal(nvl_kit_wait_u32(&g->kit, SEM, 9, GPU_WAIT), 0);
	{
		uint8_t back[8192];

		assert_int_equal(nvl_hw_vram_read(g->hw, DST, back, 8192), 0);
		assert_memory_equal(back, sys, 8192);
	}
	nvl_kit_chan_fini(&g->kit, &ch);
	gpu_down(g);
	free(sys);
}

static void every_profile_copies_on_every_engine(void **state)
{
	static const char *const names[] = {"tu102", "ga102", "ad102", "gh100"};

	for (size_t i = 0; i < NVL_ARRAY_SIZE(names); i++) {
		struct gpu *g = gpu_up(names[i]);
		unsigned nce = nvl_hw_rd32(g->hw, NVL_MODEL_REG_CFG_NUM_CE);

		for (unsigned e = 0; e < nce; e++) {
			struct nvl_kit_chan ch;
			uint32_t p[64], n;

			gpu_chan(g, 100 + e, e, &ch);
			n = nvl_kit_pb_memset(p, g->ce_class, DST + 4 * e,
					      0xc0de + e, 4);
			n += nvl_kit_pb_release(p + n, SEM + 4 * e, 1 + e);
			gpu_push(&ch, p, n);
			assert_int_equal(nvl_kit_kick(&g->kit, &ch), 0);
			assert_int_equal(nvl_kit_wait_u32(&g->kit, SEM + 4 * e,
							  1 + e, GPU_WAIT),
					 0);
			assert_int_equal(gpu_rd(g, DST + 4 * e), 0xc0de + e);
			/* the engine's non-stall interrupt follows its
			 * semaphore release */
			assert_true(gpu_wait_bits(
				&g->nonstall, NVL_HW_INTR_NONSTALL_ENGINE(e),
				GPU_WAIT));
			nvl_kit_chan_fini(&g->kit, &ch);
		}
		assert_true(atomic_load(&g->nonstall) == (1u << nce) - 1);
		gpu_down(g);
	}
}

static void copy_through_scattered_small_pages(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan ch;
	uint64_t va = 1ull << 39;
	uint32_t p[64], n;

	gpu_fill(g, SRC, 16 * 4096, 11);
	/* VA page i -> physical page 15 - i, with 4 KiB PTEs */
	for (unsigned i = 0; i < 16; i++)
		assert_int_equal(nvl_kit_map(&g->kit, &g->vm, va + 4096ull * i,
					     SRC + 4096ull * (15 - i), 4096, 12,
					     NVL_HW_APERTURE_VIDMEM, 0),
				 0);
	gpu_chan(g, 9, 1, &ch);
	/* unaligned start and length: runs break at every page */
	n = nvl_kit_pb_copy(p, g->ce_class, DST + 100, va + 100,
			    16 * 4096 - 200);
	n += nvl_kit_pb_release(p + n, SEM, 4);
	gpu_push(&ch, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &ch), 0);
	assert_int_equal(nvl_kit_wait_u32(&g->kit, SEM, 4, GPU_WAIT), 0);
	assert_true(gpu_same(g, DST + 100, SRC + 15 * 4096 + 100, 4096 - 100));
	for (unsigned i = 1; i < 15; i++)
		assert_true(gpu_same(g, DST + 4096ull * i,
				     SRC + 4096ull * (15 - i), 4096));
	assert_true(gpu_same(g, DST + 15 * 4096, SRC, 4096 - 100));
	nvl_kit_chan_fini(&g->kit, &ch);
	gpu_down(g);
}

static void copy_from_unmapped_dma_address_faults(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan ch;
	uint8_t *sys = aligned_alloc(4096, 4096);
	uint32_t p[64], n, e[8];
	uint64_t dma;

	assert_non_null(sys);
	assert_int_equal(nvl_hw_dma_map(g->hw, sys, 4096, &dma), 0);
	assert_int_equal(nvl_hw_dma_unmap(g->hw, dma, 4096), 0);
	/* the PTE still points at the DMA address the IOMMU dropped */
	assert_int_equal(nvl_kit_map(&g->kit, &g->vm, 1ull << 40, dma, 4096, 12,
				     NVL_HW_APERTURE_SYS_COH, 0),
			 0);
	nvl_hw_wr32(
		g->hw, NVL_HW_FAULT_BUF_LO(0),
		NVL_HW_FAULT_BUF_LO_PHYS(0x40000, NVL_HW_FAULT_APERTURE_VID));
	nvl_hw_wr32(g->hw, NVL_HW_FAULT_BUF_SIZE(0),
		    8 | NVL_HW_FAULT_BUF_SIZE_ENABLE);
	gpu_chan(g, 8, 0, &ch);
	n = nvl_kit_pb_copy(p, g->ce_class, DST, 1ull << 40, 4096);
	gpu_push(&ch, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &ch), 0);
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &ch, GPU_WAIT), -EIO);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(8)),
			 NVL_HW_CHERR_MMU_FAULT);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_FAULT_BUF_PUT(0)), 1);
	assert_int_equal(nvl_hw_vram_read(g->hw, 0x40000, e, 32), 0);
	assert_int_equal(e[NVL_HW_FAULT_ENTRY_ENGINE], NVL_HW_MMU_ENGINE_CE(0));
	nvl_kit_chan_fini(&g->kit, &ch);
	gpu_down(g);
	free(sys);
}

static void remap_swizzle_swaps_components(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan ch;
	uint32_t p[64], n = 0;
	uint32_t src[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8];

	assert_int_equal(nvl_hw_vram_write(g->hw, SRC, src, sizeof(src)), 0);
	gpu_chan(g, 5, 0, &ch);
	p[n++] = NVL_HW_MTHD_INC(4, NVL_HW_SET_OBJECT, 1);
	p[n++] = g->ce_class;
	p[n++] = NVL_HW_MTHD_INC(4, NVL_HW_CE_SET_REMAP_COMPONENTS, 1);
	/* dst.x = src.y, dst.y = src.x; 4-byte components, 2 src, 2 dst */
	p[n++] = NVL_HW_CE_REMAP_SRC_Y << NVL_HW_CE_REMAP_DST_SHIFT(0) |
		 NVL_HW_CE_REMAP_SRC_X << NVL_HW_CE_REMAP_DST_SHIFT(1) |
		 3u << NVL_HW_CE_REMAP_COMP_SIZE_SHIFT |
		 1u << NVL_HW_CE_REMAP_NUM_SRC_SHIFT |
		 1u << NVL_HW_CE_REMAP_NUM_DST_SHIFT;
	p[n++] = NVL_HW_MTHD_INC(4, NVL_HW_CE_OFFSET_IN_UPPER, 8);
	p[n++] = 0;
	p[n++] = (uint32_t)SRC;
	p[n++] = 0;
	p[n++] = (uint32_t)DST;
	p[n++] = 0;
	p[n++] = 0;
	p[n++] = 4; /* elements */
	p[n++] = 1;
	p[n++] = NVL_HW_MTHD_INC(4, NVL_HW_CE_LAUNCH_DMA, 1);
	p[n++] = NVL_HW_CE_TRANSFER_NON_PIPELINED | NVL_HW_CE_LAUNCH_SRC_PITCH |
		 NVL_HW_CE_LAUNCH_DST_PITCH | NVL_HW_CE_LAUNCH_REMAP;
	n += nvl_kit_pb_release(p + n, SEM, 3);
	gpu_push(&ch, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &ch), 0);
	assert_int_equal(nvl_kit_wait_u32(&g->kit, SEM, 3, GPU_WAIT), 0);
	assert_int_equal(nvl_hw_vram_read(g->hw, DST, out, sizeof(out)), 0);
	for (int i = 0; i < 8; i += 2) {
		assert_int_equal(out[i], src[i + 1]);
		assert_int_equal(out[i + 1], src[i]);
	}
	nvl_kit_chan_fini(&g->kit, &ch);
	gpu_down(g);
}

static void many_submissions_complete_in_order(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan ch;
	uint32_t p[64], n;

	gpu_chan(g, 6, 1, &ch);
	for (uint32_t i = 1; i <= 200; i++) {
		n = nvl_kit_pb_memset(p, g->ce_class, DST + 4 * i, i, 4);
		n += nvl_kit_pb_release(p + n, SEM, i);
		gpu_push(&ch, p, n);
		while (nvl_kit_kick(&g->kit, &ch) == -ENOSPC)
			assert_int_equal(
				nvl_kit_wait_idle(&g->kit, &ch, GPU_WAIT), 0);
		if (i % 50 == 0)
			assert_int_equal(
				nvl_kit_wait_idle(&g->kit, &ch, GPU_WAIT), 0);
	}
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &ch, GPU_WAIT), 0);
	assert_int_equal(gpu_rd(g, SEM), 200);
	for (uint32_t i = 1; i <= 200; i++)
		assert_int_equal(gpu_rd(g, DST + 4 * i), i);
	nvl_kit_chan_fini(&g->kit, &ch);
	gpu_down(g);
}

/* a physical-mode copy of @len bytes on @ch; Return: wait_idle's result */
static int phys_copy(struct gpu *g, struct nvl_kit_chan *ch, uint32_t src_mode,
		     uint64_t src, uint32_t dst_mode, uint64_t dst,
		     uint32_t len, uint32_t phys_flags)
{
	uint32_t p[32], n = 0;

	p[n++] = NVL_HW_MTHD_INC(4, NVL_HW_SET_OBJECT, 1);
	p[n++] = g->ce_class;
	p[n++] = NVL_HW_MTHD_INC(4, NVL_HW_CE_SET_SRC_PHYS_MODE, 2);
	p[n++] = src_mode;
	p[n++] = dst_mode;
	p[n++] = NVL_HW_MTHD_INC(4, NVL_HW_CE_OFFSET_IN_UPPER, 8);
	p[n++] = (uint32_t)(src >> 32);
	p[n++] = (uint32_t)src;
	p[n++] = (uint32_t)(dst >> 32);
	p[n++] = (uint32_t)dst;
	p[n++] = len;
	p[n++] = len;
	p[n++] = len;
	p[n++] = 1;
	p[n++] = NVL_HW_MTHD_INC(4, NVL_HW_CE_LAUNCH_DMA, 1);
	p[n++] = NVL_HW_CE_TRANSFER_NON_PIPELINED | NVL_HW_CE_LAUNCH_FLUSH |
		 NVL_HW_CE_LAUNCH_SRC_PITCH | NVL_HW_CE_LAUNCH_DST_PITCH |
		 phys_flags;
	gpu_push(ch, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, ch), 0);
	return nvl_kit_wait_idle(&g->kit, ch, GPU_WAIT);
}

/*
 * clc5b5.h SET_SRC_PHYS_MODE / SET_DST_PHYS_MODE TARGET (LOCAL_FB 0,
 * COHERENT_SYSMEM 1, NONCOHERENT_SYSMEM 2) with LAUNCH_DMA SRC_TYPE /
 * DST_TYPE PHYSICAL: a privileged channel copies between DMA-mapped system
 * pages and VRAM by physical address, in both directions; a physical
 * address no DMA mapping covers is a CE_LAUNCH error.
 */
static void copy_engine_system_memory_physical_modes(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan ch, bad;
	uint8_t *sys = aligned_alloc(4096, 3 * 4096), back[4096];
	uint64_t dma;

	assert_non_null(sys);
	memset(sys, 0, 3 * 4096);
	for (int i = 0; i < 4096; i++)
		sys[i] = (uint8_t)(i * 13 + 1);
	assert_int_equal(nvl_hw_dma_map(g->hw, sys, 3 * 4096, &dma), 0);
	assert_int_equal(nvl_kit_chan_create(&g->kit, &g->vm, 5, 0, 6, 64 << 10,
					     true, &ch),
			 0);
	/* coherent system memory (physical) -> VRAM (virtual) */
	assert_int_equal(phys_copy(g, &ch, NVL_HW_CE_PHYS_COHERENT_SYSMEM, dma,
				   0, DST, 4096, NVL_HW_CE_LAUNCH_SRC_PHYS),
			 0);
	assert_int_equal(nvl_hw_vram_read(g->hw, DST, back, 4096), 0);
	assert_memory_equal(back, sys, 4096);
	/* VRAM (physical, LOCAL_FB) -> non-coherent system memory */
	assert_int_equal(phys_copy(g, &ch, NVL_HW_CE_PHYS_LOCAL_FB, DST,
				   NVL_HW_CE_PHYS_NONCOHERENT_SYSMEM,
				   dma + 4096, 4096,
				   NVL_HW_CE_LAUNCH_SRC_PHYS |
					   NVL_HW_CE_LAUNCH_DST_PHYS),
			 0);
	assert_memory_equal(sys + 4096, sys, 4096);
	/* system -> system, both coherent */
	assert_int_equal(phys_copy(g, &ch, NVL_HW_CE_PHYS_COHERENT_SYSMEM,
				   dma + 4096, NVL_HW_CE_PHYS_COHERENT_SYSMEM,
				   dma + 8192, 4096,
				   NVL_HW_CE_LAUNCH_SRC_PHYS |
					   NVL_HW_CE_LAUNCH_DST_PHYS),
			 0);
	assert_memory_equal(sys + 8192, sys, 4096);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(5)), 0);
	/* past the DMA mapping */
	assert_int_equal(nvl_kit_chan_create(&g->kit, &g->vm, 6, 0, 6, 64 << 10,
					     true, &bad),
			 0);
	assert_int_equal(phys_copy(g, &bad, NVL_HW_CE_PHYS_COHERENT_SYSMEM,
				   dma + (1ull << 30), 0, DST, 4096,
				   NVL_HW_CE_LAUNCH_SRC_PHYS),
			 -EIO);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(6)),
			 NVL_HW_CHERR_CE_LAUNCH);
	nvl_kit_chan_fini(&g->kit, &ch);
	nvl_kit_chan_fini(&g->kit, &bad);
	assert_int_equal(nvl_hw_dma_unmap(g->hw, dma, 3 * 4096), 0);
	gpu_down(g);
	free(sys);
}

/* a physical constant fill of @len bytes at @dst on @ch */
static int phys_fill(struct gpu *g, struct nvl_kit_chan *ch, uint32_t mode,
		     uint64_t dst, uint32_t pattern, uint32_t len)
{
	uint32_t p[32], n = 0;

	p[n++] = NVL_HW_MTHD_INC(4, NVL_HW_SET_OBJECT, 1);
	p[n++] = g->ce_class;
	p[n++] = NVL_HW_MTHD_INC(4, NVL_HW_CE_SET_REMAP_CONST_A, 3);
	p[n++] = pattern;
	p[n++] = 0;
	p[n++] = NVL_HW_CE_REMAP_CONST_A << NVL_HW_CE_REMAP_DST_SHIFT(0) |
		 3u << NVL_HW_CE_REMAP_COMP_SIZE_SHIFT;
	p[n++] = NVL_HW_MTHD_INC(4, NVL_HW_CE_SET_DST_PHYS_MODE, 1);
	p[n++] = mode;
	p[n++] = NVL_HW_MTHD_INC(4, NVL_HW_CE_OFFSET_OUT_UPPER, 2);
	p[n++] = (uint32_t)(dst >> 32);
	p[n++] = (uint32_t)dst;
	p[n++] = NVL_HW_MTHD_INC(4, NVL_HW_CE_LINE_LENGTH_IN, 2);
	p[n++] = len / 4;
	p[n++] = 1;
	p[n++] = NVL_HW_MTHD_INC(4, NVL_HW_CE_LAUNCH_DMA, 1);
	p[n++] = NVL_HW_CE_TRANSFER_NON_PIPELINED | NVL_HW_CE_LAUNCH_FLUSH |
		 NVL_HW_CE_LAUNCH_SRC_PITCH | NVL_HW_CE_LAUNCH_DST_PITCH |
		 NVL_HW_CE_LAUNCH_REMAP | NVL_HW_CE_LAUNCH_DST_PHYS;
	gpu_push(ch, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, ch), 0);
	return nvl_kit_wait_idle(&g->kit, ch, GPU_WAIT);
}

/*
 * Physical copies and fills go straight between memories, run by run:
 * a copy across two DMA mappings stops at the unmapped guard page between
 * them with a CE_LAUNCH error, the bytes before it copied; a physical
 * constant fill writes its four-byte pattern into system pages and VRAM,
 * not a byte past the end.
 */
static void physical_copies_and_fills_run_directly(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan ch, bad;
	uint8_t *a = aligned_alloc(4096, 2 * 4096);
	uint8_t *b = aligned_alloc(4096, 4096);
	uint64_t da, db;
	uint32_t w;

	assert_non_null(a);
	assert_non_null(b);
	for (int i = 0; i < 2 * 4096; i++)
		a[i] = (uint8_t)(i * 7 + 3);
	memset(b, 0x5a, 4096);
	assert_int_equal(nvl_hw_dma_map(g->hw, a, 2 * 4096, &da), 0);
	assert_int_equal(nvl_hw_dma_map(g->hw, b, 4096, &db), 0);
	assert_int_equal(nvl_kit_chan_create(&g->kit, &g->vm, 5, 0, 6, 64 << 10,
					     true, &ch),
			 0);
	/* 8 KiB of system pages -> VRAM in one run, then back elsewhere */
	assert_int_equal(phys_copy(g, &ch, NVL_HW_CE_PHYS_COHERENT_SYSMEM, da,
				   NVL_HW_CE_PHYS_LOCAL_FB, DST, 2 * 4096,
				   NVL_HW_CE_LAUNCH_SRC_PHYS |
					   NVL_HW_CE_LAUNCH_DST_PHYS),
			 0);
	assert_int_equal(phys_copy(g, &ch, NVL_HW_CE_PHYS_LOCAL_FB, DST + 4096,
				   NVL_HW_CE_PHYS_NONCOHERENT_SYSMEM, db, 4096,
				   NVL_HW_CE_LAUNCH_SRC_PHYS |
					   NVL_HW_CE_LAUNCH_DST_PHYS),
			 0);
	assert_memory_equal(b, a + 4096, 4096);
	/* fills: a pattern into system pages and into VRAM */
	assert_int_equal(phys_fill(g, &ch, NVL_HW_CE_PHYS_COHERENT_SYSMEM,
				   db + 8, 0xa1b2c3d4, 4096 - 16),
			 0);
	memcpy(&w, b + 8, 4);
	assert_int_equal(w, 0xa1b2c3d4);
	memcpy(&w, b + 4096 - 12, 4);
	assert_int_equal(w, 0xa1b2c3d4);
	assert_memory_equal(b, a + 4096, 8);
	assert_memory_equal(b + 4096 - 8, a + 2 * 4096 - 8, 8);
	assert_int_equal(
		phys_fill(g, &ch, NVL_HW_CE_PHYS_LOCAL_FB, DST, 0, 4096), 0);
	assert_int_equal(gpu_rd(g, DST + 4092), 0);
	assert_int_equal(gpu_rd(g, DST + 4096), *(uint32_t *)(a + 4096));
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(5)), 0);
	/* the last page of a's mapping and on into the guard page */
	memset(b, 0, 4096);
	assert_int_equal(nvl_kit_chan_create(&g->kit, &g->vm, 6, 0, 6, 64 << 10,
					     true, &bad),
			 0);
	assert_int_equal(phys_copy(g, &bad, NVL_HW_CE_PHYS_COHERENT_SYSMEM,
				   da + 4096 + 2048,
				   NVL_HW_CE_PHYS_COHERENT_SYSMEM, db, 4096,
				   NVL_HW_CE_LAUNCH_SRC_PHYS |
					   NVL_HW_CE_LAUNCH_DST_PHYS),
			 -EIO);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(6)),
			 NVL_HW_CHERR_CE_LAUNCH);
	assert_memory_equal(b, a + 4096 + 2048, 2048);
	nvl_kit_chan_fini(&g->kit, &ch);
	nvl_kit_chan_fini(&g->kit, &bad);
	assert_int_equal(nvl_hw_dma_unmap(g->hw, da, 2 * 4096), 0);
	assert_int_equal(nvl_hw_dma_unmap(g->hw, db, 4096), 0);
	gpu_down(g);
	free(a);
	free(b);
}

/* what the driver's handler saw at each call */
struct seen {
	struct gpu *g;
	atomic_uint calls;
	uint32_t sem[8];
	uint32_t dst0[8];
};

static void seen_irq(void *arg)
{
	struct seen *s = arg;
	uint32_t n = nvl_hw_rd32(s->g->hw, NVL_HW_INTR_STATUS(1));

	nvl_hw_wr32(s->g->hw, NVL_HW_INTR_STATUS(1), n);
	unsigned i = atomic_load(&s->calls);

	if (!(n & NVL_HW_INTR_NONSTALL_ENGINE(0)) || i >= 8)
		return;
	(void)nvl_hw_vram_read(s->g->hw, SEM, &s->sem[i], 4);
	(void)nvl_hw_vram_read(s->g->hw, DST, &s->dst0[i], 4);
	atomic_store(&s->calls, i + 1);
}

static void nap_ns(long ns)
{
	struct timespec ts = {0, ns};

	nanosleep(&ts, NULL);
}

/* the runlist thread raises the last batch after the channel goes idle */
static unsigned seen_wait(struct seen *s, unsigned want)
{
	int64_t deadline = nvl_deadline_after(GPU_WAIT);

	while (atomic_load(&s->calls) < want && nvl_time_ns() < deadline)
		nap_ns(100 * 1000);
	/* and nothing more comes */
	nap_ns(10 * 1000 * 1000);
	return atomic_load(&s->calls);
}

/*
 * 40 releases, each followed by NON_STALL_INTERRUPT, in one segment: the
 * runlist thread raises them in batches of NVL_MODEL_NONSTALL_BATCH (16)
 * and at the end of its run, and each handler call sees the release
 * before the interrupt that raised it.
 */
static void nonstall_interrupts_coalesce_in_a_run(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct seen s = {.g = g};
	struct nvl_kit_chan ch;
	uint32_t p[16], n;

	assert_int_equal(nvl_hw_set_irq_handler(g->hw, seen_irq, &s), 0);
	gpu_chan(g, 1, 0, &ch);
	for (uint32_t i = 1; i <= 40; i++) {
		n = nvl_kit_pb_release(p, SEM, i);
		gpu_push(&ch, p, n);
	}
	assert_int_equal(nvl_kit_kick(&g->kit, &ch), 0);
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &ch, GPU_WAIT), 0);
	assert_int_equal(seen_wait(&s, 3), 3);
	assert_int_equal(s.sem[0], 16);
	assert_int_equal(s.sem[1], 32);
	assert_int_equal(s.sem[2], 40);
	nvl_kit_chan_fini(&g->kit, &ch);
	gpu_down(g);
}

/*
 * A completion before an engine method is raised before that method
 * runs: the handler sees the release, not yet the copy after it.
 */
static void nonstall_before_a_copy_is_not_held_behind_it(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct seen s = {.g = g};
	struct nvl_kit_chan ch;
	uint32_t p[64], n;

	assert_int_equal(nvl_hw_set_irq_handler(g->hw, seen_irq, &s), 0);
	gpu_chan(g, 1, 0, &ch);
	gpu_fill(g, SRC, 1 << 20, 9);
	gpu_wr(g, DST, 0);
	n = nvl_kit_pb_release(p, SEM, 1);
	n += nvl_kit_pb_copy(p + n, g->ce_class, DST, SRC, 1 << 20);
	n += nvl_kit_pb_release(p + n, SEM, 2);
	gpu_push(&ch, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &ch), 0);
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &ch, GPU_WAIT), 0);
	assert_int_equal(seen_wait(&s, 2), 2);
	assert_int_equal(s.sem[0], 1);
	assert_int_equal(s.dst0[0], 0); /* the copy had not run */
	assert_int_equal(s.sem[1], 2);
	assert_int_equal(s.dst0[1], gpu_rd(g, SRC));
	assert_true(gpu_same(g, SRC, DST, 1 << 20));
	nvl_kit_chan_fini(&g->kit, &ch);
	gpu_down(g);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(copy_engine_system_memory_physical_modes),
	cmocka_unit_test(physical_copies_and_fills_run_directly),
	cmocka_unit_test(copy_through_ce_then_release_raises_nonstall_irq),
	cmocka_unit_test(memset_through_constant_remap_fills_pattern),
	cmocka_unit_test(multi_line_pitch_copy_moves_only_the_lines),
	cmocka_unit_test(ce_semaphore_release_with_timestamp_and_interrupt),
	cmocka_unit_test(upper_address_fields_are_16_0_before_hopper),
	cmocka_unit_test(copy_from_dma_mapped_system_pages),
	cmocka_unit_test(every_profile_copies_on_every_engine),
	cmocka_unit_test(copy_through_scattered_small_pages),
	cmocka_unit_test(copy_from_unmapped_dma_address_faults),
	cmocka_unit_test(remap_swizzle_swaps_components),
	cmocka_unit_test(many_submissions_complete_in_order),
	cmocka_unit_test(nonstall_interrupts_coalesce_in_a_run),
	cmocka_unit_test(nonstall_before_a_copy_is_not_held_behind_it),
};

T_MAIN(tests)

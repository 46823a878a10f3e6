// SPDX-License-Identifier: MIT
/*
 * TEST: model_conform
 * Description: the model against NVIDIA's public manuals and class
 * headers, one test per field, each named for the field it checks and
 * citing where the field is defined (open-gpu-doc manuals/turing/tu104,
 * classes/host/clc46f.h .. clc86f.h, classes/dma-copy/clc5b5.h .. clc8b5.h,
 * open-gpu-kernel-modules' dev_fault.h per chip).
 */
#include <stdlib.h>
#include <unistd.h>

#include "gpu.h"

#define SEM 0x10000ull
#define DONE 0x20000ull
#define BUF 0x30000ull

/* write @n raw GPFIFO entries at the ring's start and kick them */
static void raw_entries(struct gpu *g, struct nvl_kit_chan *ch,
			const uint64_t *e, uint32_t n)
{
	assert_int_equal(nvl_hw_vram_write(g->hw, ch->gpfifo, e, n * 8ull), 0);
	ch->gp_put = n;
	gpu_wr(g, ch->userd + NVL_HW_USERD_GP_PUT, n);
	nvl_hw_wr32(g->hw, NVL_HW_DOORBELL,
		    NVL_HW_DOORBELL_TOKEN(ch->chid, ch->runlist));
}

/* a segment at pushbuffer offset @off of @ch holding @p[0..n) */
static uint64_t seg(struct gpu *g, struct nvl_kit_chan *ch, uint32_t off,
		    const uint32_t *p, uint32_t n)
{
	assert_int_equal(nvl_hw_vram_write(g->hw, ch->pb + off, p, n * 4ull),
			 0);
	return nvl_hw_gp_entry(ch->pb + off, n, 0);
}

/*
 * clc46f.h NVC46F_GP_ENTRY1_OPCODE 7:0 (NOP 0, ILLEGAL 1): the opcode of a
 * control entry (LENGTH 0) is in the second dword; the first dword is its
 * operand (NVC46F_GP_ENTRY0_OPERAND 31:0), which a NOP ignores.
 */
static void gp_entry1_opcode(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan a, b;
	uint32_t p[16], n;
	uint64_t e[3];

	gpu_chan(g, 1, 0, &a);
	n = nvl_kit_pb_release(p, DONE, 7);
	e[0] = nvl_hw_gp_control(NVL_HW_GP_OPCODE_NOP, 0xdeadbeef);
	e[1] = nvl_hw_gp_control(NVL_HW_GP_OPCODE_NOP, 0x1);
	e[2] = seg(g, &a, 0, p, n);
	raw_entries(g, &a, e, 3);
	assert_int_equal(nvl_kit_wait_u32(&g->kit, DONE, 7, GPU_WAIT), 0);
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &a, GPU_WAIT), 0);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(1)), 0);
	/* ILLEGAL in GP_ENTRY1 OPCODE, operand 0 (a NOP in the old reading) */
	gpu_chan(g, 2, 0, &b);
	e[0] = nvl_hw_gp_control(NVL_HW_GP_OPCODE_ILLEGAL, 0);
	raw_entries(g, &b, e, 1);
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &b, GPU_WAIT), -EIO);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(2)),
			 NVL_HW_CHERR_GPENTRY);
	nvl_kit_chan_fini(&g->kit, &a);
	nvl_kit_chan_fini(&g->kit, &b);
	gpu_down(g);
}

/*
 * dev_ram.ref NV_RAMUSERD_GP_GET: the index of the next entry Host will
 * take; it moves past an entry when the entry begins processing, not when
 * its segment has executed. A segment parked in an acquire has moved
 * GP_GET; only the following release says the work is done.
 */
static void userd_gp_get(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan a;
	uint32_t p[32], n;
	uint64_t e;

	gpu_chan(g, 3, 0, &a);
	n = nvl_kit_pb_acquire(p, SEM, 1);
	n += nvl_kit_pb_release(p + n, DONE, 1);
	e = seg(g, &a, 0, p, n);
	raw_entries(g, &a, &e, 1);
	for (int i = 0;
	     i < 100000 && !(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_CTRL(3)) &
			     NVL_HW_CHRAM_CTRL_ACQUIRE_PENDING);
	     i++)
		usleep(50);
	assert_int_equal(nvl_kit_gp_get(&g->kit, &a), 1);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_GP_GET(3)), 1);
	assert_int_equal(gpu_rd(g, DONE), 0);
	assert_true(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_CTRL(3)) &
		    NVL_HW_CHRAM_CTRL_BUSY);
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &a, 20000000), -ETIME);
	gpu_wr(g, SEM, 1);
	assert_int_equal(nvl_kit_wait_u32(&g->kit, DONE, 1, GPU_WAIT), 0);
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &a, GPU_WAIT), 0);
	nvl_kit_chan_fini(&g->kit, &a);
	gpu_down(g);
}

/* write GPFIFO entry @idx of @ch (no kick) */
static void entry_at(struct gpu *g, struct nvl_kit_chan *ch, uint32_t idx,
		     uint64_t e)
{
	assert_int_equal(
		nvl_hw_vram_write(g->hw, ch->gpfifo + idx * 8ull, &e, 8), 0);
}

/* publish GP_PUT @put and ring the doorbell */
static void kick_put(struct gpu *g, struct nvl_kit_chan *ch, uint32_t put)
{
	ch->gp_put = put;
	gpu_wr(g, ch->userd + NVL_HW_USERD_GP_PUT, put);
	nvl_hw_wr32(g->hw, NVL_HW_DOORBELL,
		    NVL_HW_DOORBELL_TOKEN(ch->chid, ch->runlist));
}

/*
 * Host reads the entries between GP_GET and GP_PUT ahead (the model in
 * batches): every entry still runs once and in order where the batch
 * meets a page boundary of a two-page ring (entries 508..515) and where
 * the ring wraps (1020..1023, 0..3), and GP_GET ends at GP_PUT.
 */
static void gp_entries_across_page_and_wrap(void **state)
{
	static const uint32_t first[2] = {508, 1020};
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan a;
	uint32_t p[16], n, k = 0, put = 0;

	assert_int_equal(nvl_kit_chan_create(&g->kit, &g->vm, 4, 0, 10,
					     64 << 10, false, &a),
			 0);
	assert_int_equal(a.gp_entries, 1024);
	for (int r = 0; r < 2; r++) {
		uint32_t k0 = k;

		/* NOPs up to the batch's first entry */
		for (; put != first[r]; put = (put + 1) % 1024)
			entry_at(g, &a, put,
				 nvl_hw_gp_control(NVL_HW_GP_OPCODE_NOP, put));
		kick_put(g, &a, put);
		assert_int_equal(nvl_kit_wait_idle(&g->kit, &a, GPU_WAIT), 0);
		/* eight segments, each releasing its own word */
		for (int i = 0; i < 8; i++, k++, put = (put + 1) % 1024) {
			n = nvl_kit_pb_release(p, DONE + 4 * k, k + 1);
			entry_at(g, &a, put, seg(g, &a, k * 64, p, n));
		}
		kick_put(g, &a, put);
		for (uint32_t j = k0; j < k; j++)
			assert_int_equal(nvl_kit_wait_u32(&g->kit, DONE + 4 * j,
							  j + 1, GPU_WAIT),
					 0);
		assert_int_equal(nvl_kit_wait_idle(&g->kit, &a, GPU_WAIT), 0);
		assert_int_equal(nvl_kit_gp_get(&g->kit, &a), put);
	}
	assert_int_equal(put, 4);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(4)), 0);
	nvl_kit_chan_fini(&g->kit, &a);
	gpu_down(g);
}

#define HOLE (1ull << 42)
#define FBUF 0x40000ull
#define FBUF_VA (1ull << 40)

/* a channel whose copy reads an unmapped VA: one non-replayable fault */
static void make_fault(struct gpu *g, unsigned chid)
{
	struct nvl_kit_chan ch;
	uint32_t p[32], n;

	gpu_chan(g, chid, 0, &ch);
	n = nvl_kit_pb_copy(p, g->ce_class, 0x800000, HOLE, 4);
	gpu_push(&ch, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &ch), 0);
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &ch, GPU_WAIT), -EIO);
	nvl_kit_chan_fini(&g->kit, &ch);
}

/*
 * dev_vm.ref NV_VIRTUAL_FUNCTION_PRIV_MMU_FAULT_BUFFER_LO ADDR_MODE 0:0
 * (VIRTUAL 0, PHYSICAL 1), PHYS_APERTURE 2:1, ADDR 31:12 (dev_fb.ref
 * NV_PFB_PRI_MMU_FAULT_BUFFER_LO, the same fields): a VIRTUAL buffer is a
 * BAR2 virtual address (BAR2_BLOCK PTR 27:0, TARGET 29:28, MODE 31).
 */
static void fault_buffer_lo_addr_mode(void **state)
{
	struct gpu *g = gpu_up("tiny");
	uint64_t inst = nvl_kit_alloc(&g->kit, 4096, 4096);
	uint32_t e[8];

	/* BAR2's address space: the kit's VM, FBUF_VA -> FBUF */
	assert_int_equal(nvl_kit_map(&g->kit, &g->vm, FBUF_VA, FBUF, 4096, 12,
				     NVL_HW_APERTURE_VIDMEM, 0),
			 0);
	gpu_wr(g, inst + NVL_HW_RAMIN_PDB,
	       (uint32_t)g->vm.pdb | NVL_HW_RAM_TARGET_VID |
		       NVL_HW_RAMIN_PDB_USE_VER2 |
		       NVL_HW_RAMIN_PDB_BIG_PAGE_64K);
	gpu_wr(g, inst + NVL_HW_RAMIN_PDB_HI, (uint32_t)(g->vm.pdb >> 32));
	/* virtual mode (ADDR_MODE 0) before BAR2 is bound: unreachable */
	nvl_hw_wr32(g->hw, NVL_HW_FAULT_BUF_LO(0), (uint32_t)FBUF_VA);
	nvl_hw_wr32(g->hw, NVL_HW_FAULT_BUF_HI(0), (uint32_t)(FBUF_VA >> 32));
	nvl_hw_wr32(g->hw, NVL_HW_FAULT_BUF_SIZE(0),
		    8 | NVL_HW_FAULT_BUF_SIZE_ENABLE);
	make_fault(g, 1);
	assert_true(nvl_hw_rd32(g->hw, NVL_HW_FAULT_BUF_GET(0)) &
		    NVL_HW_FAULT_BUF_GET_CORRUPTED);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_FAULT_BUF_PUT(0)), 0);
	/* bind BAR2 (virtual, VRAM); the entry lands at FBUF via BAR2 */
	nvl_hw_wr32(g->hw, NVL_HW_BAR2_BLOCK,
		    (uint32_t)(inst >> 12) | NVL_HW_BAR2_BLOCK_MODE_VIRTUAL);
	nvl_hw_wr32(g->hw, NVL_HW_FAULT_BUF_SIZE(0),
		    8 | NVL_HW_FAULT_BUF_SIZE_ENABLE);
	nvl_hw_wr32(g->hw, NVL_HW_FAULT_BUF_GET(0),
		    NVL_HW_FAULT_BUF_GET_CORRUPTED);
	make_fault(g, 2);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_FAULT_BUF_PUT(0)), 1);
	assert_int_equal(nvl_hw_vram_read(g->hw, FBUF, e, 32), 0);
	assert_true(e[NVL_HW_FAULT_ENTRY_INFO] & NVL_HW_FAULT_INFO_VALID);
	assert_int_equal(e[NVL_HW_FAULT_ENTRY_ADDR_LO] & 0xfffff000u,
			 (uint32_t)HOLE);
	/* PHYSICAL (ADDR_MODE 1), PHYS_APERTURE LOCAL: FBUF + 0x1000 as is */
	nvl_hw_wr32(g->hw, NVL_HW_FAULT_BUF_LO(0),
		    NVL_HW_FAULT_BUF_LO_PHYS(FBUF + 0x1000,
					     NVL_HW_FAULT_APERTURE_VID));
	nvl_hw_wr32(g->hw, NVL_HW_FAULT_BUF_HI(0), 0);
	nvl_hw_wr32(g->hw, NVL_HW_FAULT_BUF_SIZE(0),
		    8 | NVL_HW_FAULT_BUF_SIZE_ENABLE);
	make_fault(g, 3);
	assert_int_equal(nvl_hw_vram_read(g->hw, FBUF + 0x1000, e, 32), 0);
	assert_true(e[NVL_HW_FAULT_ENTRY_INFO] & NVL_HW_FAULT_INFO_VALID);
	gpu_down(g);
}

/*
 * dev_vm.ref NV_VIRTUAL_FUNCTION_PRIV_MMU_FAULT_BUFFER_SIZE SET_DEFAULT
 * 30:30: writing YES loads VAL 19:0 with the default size, which software
 * reads back (Nouveau's gv100/tu102 fault code does exactly this).
 */
static void fault_buffer_size_set_default(void **state)
{
	struct gpu *g = gpu_up("tiny");
	uint32_t v;

	nvl_hw_wr32(g->hw, NVL_HW_FAULT_BUF_SIZE(1),
		    NVL_HW_FAULT_BUF_SIZE_SET_DEFAULT);
	v = nvl_hw_rd32(g->hw, NVL_HW_FAULT_BUF_SIZE(1));
	assert_false(v & NVL_HW_FAULT_BUF_SIZE_SET_DEFAULT);
	assert_false(v & NVL_HW_FAULT_BUF_SIZE_ENABLE);
	assert_true((v & NVL_HW_FAULT_BUF_PTR_MASK) >= 2);
	gpu_down(g);
}

/*
 * dev_vm.ref MMU_FAULT_BUFFER_SIZE OVERFLOW_INTR 29:29 and
 * MMU_FAULT_BUFFER_GET OVERFLOW 31:31: an overflow raises the interrupt
 * only when OVERFLOW_INTR is set, and after it the buffer drops every
 * entry, even with room again, until software clears OVERFLOW.
 */
static void fault_buffer_size_overflow_intr(void **state)
{
	for (int intr = 0; intr < 2; intr++) {
		struct gpu *g = gpu_up("tiny");

		nvl_hw_wr32(g->hw, NVL_HW_FAULT_BUF_LO(0),
			    NVL_HW_FAULT_BUF_LO_PHYS(
				    FBUF, NVL_HW_FAULT_APERTURE_VID));
		nvl_hw_wr32(g->hw, NVL_HW_FAULT_BUF_SIZE(0),
			    2 | NVL_HW_FAULT_BUF_SIZE_ENABLE |
				    (intr ? NVL_HW_FAULT_BUF_SIZE_OVERFLOW_INTR
					  : 0));
		make_fault(g, 1); /* the one usable slot */
		make_fault(g, 2); /* overflow */
		assert_true(nvl_hw_rd32(g->hw, NVL_HW_FAULT_BUF_GET(0)) &
			    NVL_HW_FAULT_BUF_GET_OVERFLOW);
		/* make room, but leave OVERFLOW set: still dropped */
		nvl_hw_wr32(g->hw, NVL_HW_FAULT_BUF_GET(0), 1);
		make_fault(g, 3);
		assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_FAULT_BUF_PUT(0)),
				 1);
		/* clear OVERFLOW: recording resumes */
		nvl_hw_wr32(g->hw, NVL_HW_FAULT_BUF_GET(0),
			    1 | NVL_HW_FAULT_BUF_GET_OVERFLOW);
		make_fault(g, 4);
		assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_FAULT_BUF_PUT(0)),
				 0);
		usleep(2000);
		assert_int_equal(
			!!(atomic_load(&g->stall) & NVL_HW_INTR_FAULT_OVERFLOW),
			intr);
		gpu_down(g);
	}
}

/* copy 4 bytes from @va to @dst on @ch and wait for release @seq */
static void copy_word(struct gpu *g, struct nvl_kit_chan *ch, uint64_t dst,
		      uint64_t va, uint32_t seq)
{
	uint32_t p[32], n;

	n = nvl_kit_pb_copy(p, g->ce_class, dst, va, 4);
	n += nvl_kit_pb_release(p + n, DONE, seq);
	gpu_push(ch, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, ch), 0);
	assert_int_equal(nvl_kit_wait_u32(&g->kit, DONE, seq, GPU_WAIT), 0);
}

/*
 * clc56f.h NVC56F_MEM_OP_A_TLB_INVALIDATE_INVALIDATION_SIZE 5:0: a
 * targeted invalidate (MEM_OP_D OPERATION MMU_TLB_INVALIDATE_TARGETED)
 * covers 4 KiB << SIZE bytes, the target (MEM_OP_A TARGET_ADDR_LO 31:12,
 * MEM_OP_B TARGET_ADDR_HI) aligned down to that size.
 */
static void mem_op_a_invalidation_size(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan a;
	uint64_t va = 1ull << 41, old = 0x800000, new = 0x900000;
	uint64_t pdb = g->vm.pdb;
	uint32_t p[32], n = 0;

	gpu_chan_priv(g, 5, 0, &a); /* MEM_OP invalidates are privileged */
	for (unsigned i = 0; i < 8; i++) {
		gpu_wr(g, old + i * 4096ull, 0x100 + i);
		gpu_wr(g, new + i * 4096ull, 0x200 + i);
	}
	assert_int_equal(nvl_kit_map(&g->kit, &g->vm, va, old, 8 * 4096, 12,
				     NVL_HW_APERTURE_VIDMEM, 0),
			 0);
	/* warm the TLB for pages 3 and 5, then remap all 8 pages */
	copy_word(g, &a, BUF, va + 3 * 4096, 1);
	copy_word(g, &a, BUF + 4, va + 5 * 4096, 2);
	assert_int_equal(gpu_rd(g, BUF), 0x103);
	assert_int_equal(nvl_kit_map(&g->kit, &g->vm, va, new, 8 * 4096, 12,
				     NVL_HW_APERTURE_VIDMEM, 0),
			 0);
	/* targeted at page 1 with SIZE 2 (16 KiB): pages 0..3 */
	p[n++] = NVL_HW_MTHD_INC(0, NVL_HW_MEM_OP_A, 4);
	p[n++] = (uint32_t)(va + 4096) | 2;
	p[n++] = (uint32_t)(va >> 32);
	p[n++] = (uint32_t)pdb & NVL_HW_MEM_OP_C_PDB_LO_MASK;
	p[n++] = (uint32_t)(pdb >> 32) |
		 NVL_HW_MEM_OP_MMU_TLB_INVALIDATE_TARGETED
			 << NVL_HW_MEM_OP_D_OP_SHIFT;
	gpu_push(&a, p, n);
	copy_word(g, &a, BUF + 8, va + 3 * 4096, 3);
	copy_word(g, &a, BUF + 12, va + 5 * 4096, 4);
	assert_int_equal(gpu_rd(g, BUF + 8), 0x203); /* invalidated */
	assert_int_equal(gpu_rd(g, BUF + 12), 0x105); /* outside: stale */
	nvl_kit_chan_fini(&g->kit, &a);
	gpu_down(g);
}

/*
 * A CE semaphore-only launch (no transfer): SET_SEMAPHORE_A/B/PAYLOAD
 * (and PAYLOAD_UPPER when @upper_mthd), then LAUNCH_DMA @launch; runs it
 * on @ch and waits until the channel is idle or stopped.
 * Return: what nvl_kit_wait_idle() returned.
 */
static int ce_sem(struct gpu *g, struct nvl_kit_chan *ch, uint64_t va,
		  uint32_t payload, bool upper_mthd, uint32_t upper,
		  uint32_t launch)
{
	uint32_t p[32], n = 0;

	p[n++] = NVL_HW_MTHD_INC(4, NVL_HW_SET_OBJECT, 1);
	p[n++] = g->ce_class;
	p[n++] = NVL_HW_MTHD_INC(4, NVL_HW_CE_SET_SEMAPHORE_A, 3);
	p[n++] = (uint32_t)(va >> 32);
	p[n++] = (uint32_t)va;
	p[n++] = payload;
	if (upper_mthd) {
		p[n++] = NVL_HW_MTHD_INC(
			4, NVL_HW_CE_SET_SEMAPHORE_PAYLOAD_UPPER, 1);
		p[n++] = upper;
	}
	p[n++] = NVL_HW_MTHD_INC(4, NVL_HW_CE_LAUNCH_DMA, 1);
	p[n++] = launch;
	gpu_push(ch, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, ch), 0);
	return nvl_kit_wait_idle(&g->kit, ch, GPU_WAIT);
}

#define CE_RED(op)                                                             \
	(NVL_HW_CE_SEM_ONE_WORD << NVL_HW_CE_LAUNCH_SEM_SHIFT |                \
	 NVL_HW_CE_LAUNCH_SEM_REDUCTION_ENABLE |                               \
	 (uint32_t)(op) << NVL_HW_CE_LAUNCH_SEM_REDUCTION_SHIFT)

/*
 * clc5b5.h NVC5B5_LAUNCH_DMA_SEMAPHORE_REDUCTION_SIGN 18:18: SIGNED 0,
 * UNSIGNED 1. IMAX of -2 and 5 is 5 signed, 0xfffffffe unsigned.
 */
static void launch_dma_semaphore_reduction_sign(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan a;

	gpu_chan(g, 4, 0, &a);
	gpu_wr(g, SEM, 0xfffffffe);
	assert_int_equal(
		ce_sem(g, &a, SEM, 5, false, 0, CE_RED(NVL_HW_SEM_RED_IMAX)),
		0);
	assert_int_equal(gpu_rd(g, SEM), 5); /* bit 18 clear: signed */
	gpu_wr(g, SEM, 0xfffffffe);
	assert_int_equal(
		ce_sem(g, &a, SEM, 5, false, 0,
		       CE_RED(NVL_HW_SEM_RED_IMAX) |
			       NVL_HW_CE_LAUNCH_SEM_REDUCTION_UNSIGNED),
		0);
	assert_int_equal(gpu_rd(g, SEM), 0xfffffffe);
	nvl_kit_chan_fini(&g->kit, &a);
	gpu_down(g);
}

/*
 * clc7b5.h NVC7B5_LAUNCH_DMA_SEMAPHORE_PAYLOAD_SIZE 27:27 (TWO_WORD 1) and
 * NVC7B5_SET_SEMAPHORE_PAYLOAD_UPPER (0x24c): a 64-bit release on C7B5;
 * C5B5 has neither (clc5b5.h ends the semaphore methods at 0x248), so the
 * method is a METHOD error there.
 */
static void launch_dma_semaphore_payload_size(void **state)
{
	struct gpu *g = gpu_up("ad102");
	struct nvl_kit_chan a;

	assert_int_equal(g->ce_class, NVL_HW_CE_CLASS_ADA);
	gpu_chan(g, 4, 0, &a);
	gpu_wr(g, SEM + 4, 0x55555555);
	assert_int_equal(
		ce_sem(g, &a, SEM, 0x11223344, true, 0xaabbccdd,
		       NVL_HW_CE_SEM_ONE_WORD << NVL_HW_CE_LAUNCH_SEM_SHIFT |
			       NVL_HW_CE_LAUNCH_SEM_PAYLOAD_64),
		0);
	assert_int_equal(gpu_rd(g, SEM), 0x11223344);
	assert_int_equal(gpu_rd(g, SEM + 4), 0xaabbccdd);
	/* without PAYLOAD_SIZE: 32 bits, the upper word untouched */
	gpu_wr(g, SEM + 4, 0x55555555);
	assert_int_equal(
		ce_sem(g, &a, SEM, 7, true, 0xaabbccdd,
		       NVL_HW_CE_SEM_ONE_WORD << NVL_HW_CE_LAUNCH_SEM_SHIFT),
		0);
	assert_int_equal(gpu_rd(g, SEM), 7);
	assert_int_equal(gpu_rd(g, SEM + 4), 0x55555555);
	nvl_kit_chan_fini(&g->kit, &a);
	gpu_down(g);

	g = gpu_up("tiny");
	gpu_chan(g, 4, 0, &a);
	assert_int_equal(
		ce_sem(g, &a, SEM, 1, true, 2,
		       NVL_HW_CE_SEM_ONE_WORD << NVL_HW_CE_LAUNCH_SEM_SHIFT),
		-EIO);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(4)),
			 NVL_HW_CHERR_METHOD);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERR_METHOD(4)),
			 NVL_HW_CE_SET_SEMAPHORE_PAYLOAD_UPPER);
	nvl_kit_chan_fini(&g->kit, &a);
	gpu_down(g);
}

/*
 * dev_fault.h NV_PFAULT_MMU_ENG_ID_CE0 / _HOST0 (tu102, ga102, ad102: 15
 * and 32; gh100: 43 and 64) in ENGINE_ID 8:0 of the fault entry, and
 * NV_PFAULT_CLIENT_HUB_HSCE0 (0x20) / _HOST (0x06) in CLIENT 14:8 with
 * MMU_CLIENT_TYPE HUB (dev_mmu_fault: NV_MMU_FAULT_BUF_ENTRY).
 */
static void fault_entry_engine_id(void **state)
{
	static const struct {
		const char *profile;
		unsigned ce0, host0, bar2;
	} want[] = {{"tu102", 15, 32, 192},
		    {"ad102", 15, 32, 192},
		    {"gh100", 43, 64, 320}};

	for (unsigned i = 0; i < NVL_ARRAY_SIZE(want); i++) {
		struct gpu *g = gpu_up(want[i].profile);
		struct nvl_kit_chan a;
		uint64_t e = nvl_hw_gp_entry(1ull << 39, 16, 0);
		uint32_t ent[8], info;

		assert_int_equal(g->m->eng->bar2, want[i].bar2);
		nvl_hw_wr32(g->hw, NVL_HW_FAULT_BUF_LO(0),
			    NVL_HW_FAULT_BUF_LO_PHYS(
				    FBUF, NVL_HW_FAULT_APERTURE_VID));
		nvl_hw_wr32(g->hw, NVL_HW_FAULT_BUF_SIZE(0),
			    8 | NVL_HW_FAULT_BUF_SIZE_ENABLE);
		make_fault(g, 1); /* CE 0 */
		assert_int_equal(nvl_hw_vram_read(g->hw, FBUF, ent, 32), 0);
		info = ent[NVL_HW_FAULT_ENTRY_INFO];
		assert_int_equal(ent[NVL_HW_FAULT_ENTRY_ENGINE], want[i].ce0);
		assert_int_equal(info >> NVL_HW_FAULT_INFO_CLIENT_SHIFT &
					 NVL_HW_FAULT_INFO_CLIENT_MASK,
				 NVL_HW_FAULT_CLIENT_HUB_HSCE(0));
		assert_true(info & NVL_HW_FAULT_INFO_HUB);
		/* a pushbuffer fetch fault on runlist 1: HOST1 */
		gpu_chan(g, 2, 1, &a);
		raw_entries(g, &a, &e, 1);
		assert_int_equal(nvl_kit_wait_idle(&g->kit, &a, GPU_WAIT),
				 -EIO);
		assert_int_equal(nvl_hw_vram_read(g->hw, FBUF + 32, ent, 32),
				 0);
		info = ent[NVL_HW_FAULT_ENTRY_INFO];
		assert_int_equal(ent[NVL_HW_FAULT_ENTRY_ENGINE],
				 want[i].host0 + 1);
		assert_int_equal(info >> NVL_HW_FAULT_INFO_CLIENT_SHIFT &
					 NVL_HW_FAULT_INFO_CLIENT_MASK,
				 NVL_HW_FAULT_CLIENT_HUB_HOST);
		nvl_kit_chan_fini(&g->kit, &a);
		gpu_down(g);
	}
}

/*
 * A Host semaphore: SEM_ADDR_LO/HI, PAYLOAD_LO/HI, then SEM_EXECUTE
 * @execute, on @ch. Return: what nvl_kit_wait_idle() returned.
 */
static int host_sem(struct gpu *g, struct nvl_kit_chan *ch, uint32_t addr_hi,
		    uint32_t addr_lo, uint64_t payload, uint32_t execute)
{
	uint32_t p[8], n = 0;

	p[n++] = NVL_HW_MTHD_INC(0, NVL_HW_SEM_ADDR_LO, 5);
	p[n++] = addr_lo;
	p[n++] = addr_hi;
	p[n++] = (uint32_t)payload;
	p[n++] = (uint32_t)(payload >> 32);
	p[n++] = execute;
	gpu_push(ch, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, ch), 0);
	return nvl_kit_wait_idle(&g->kit, ch, GPU_WAIT);
}

#define HOST_RED(op, flags)                                                    \
	(NVL_HW_SEM_OP_REDUCTION |                                             \
	 (uint32_t)(op) << NVL_HW_SEM_REDUCTION_SHIFT | (flags))

/*
 * clc56f.h NVC56F_SEM_EXECUTE RELEASE_TIMESTAMP 25:25 with PAYLOAD_SIZE
 * 24:24 = 32BIT: the release writes the payload as 8 bytes (4..7 zero)
 * and the timestamp at +8; a reduction with RELEASE_TIMESTAMP needs
 * 16-byte alignment and writes the timestamp too.
 */
static void sem_execute_release_timestamp(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan a;
	uint32_t w[4];

	gpu_chan(g, 6, 0, &a);
	memset(w, 0xff, sizeof(w));
	assert_int_equal(nvl_hw_vram_write(g->hw, SEM, w, 16), 0);
	assert_int_equal(
		host_sem(g, &a, 0, SEM, 0x12345678,
			 NVL_HW_SEM_OP_RELEASE | NVL_HW_SEM_RELEASE_TIMESTAMP),
		0);
	assert_int_equal(nvl_hw_vram_read(g->hw, SEM, w, 16), 0);
	assert_int_equal(w[0], 0x12345678);
	assert_int_equal(w[1], 0);
	assert_true(w[2] != 0xffffffffu || w[3] != 0xffffffffu);
	/* reduction + timestamp: IADD 5, timestamp rewritten */
	memset(w, 0, sizeof(w));
	w[0] = 10;
	assert_int_equal(nvl_hw_vram_write(g->hw, SEM, w, 16), 0);
	assert_int_equal(
		host_sem(g, &a, 0, SEM, 5,
			 HOST_RED(NVL_HW_SEM_RED_IADD,
				  NVL_HW_SEM_FORMAT_UNSIGNED |
					  NVL_HW_SEM_RELEASE_TIMESTAMP)),
		0);
	assert_int_equal(nvl_hw_vram_read(g->hw, SEM, w, 16), 0);
	assert_int_equal(w[0], 15);
	assert_true(w[2] || w[3]);
	/* ... and it needs 16-byte alignment */
	assert_int_equal(
		host_sem(g, &a, 0, SEM + 4, 5,
			 HOST_RED(NVL_HW_SEM_RED_IADD,
				  NVL_HW_SEM_FORMAT_UNSIGNED |
					  NVL_HW_SEM_RELEASE_TIMESTAMP)),
		-EIO);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(6)),
			 NVL_HW_CHERR_SEMAPHORE);
	nvl_kit_chan_fini(&g->kit, &a);
	gpu_down(g);
}

/*
 * clc56f.h NVC56F_SEM_EXECUTE REDUCTION 30:27 with REDUCTION_FORMAT 31:31
 * (SIGNED 0) and PAYLOAD_SIZE 24:24: signed 64-bit IADD, 64-bit INC/DEC
 * and signed INC/DEC are not supported: a SEMAPHORE error.
 */
static void sem_execute_reduction_format(void **state)
{
	static const uint32_t bad[] = {
		HOST_RED(NVL_HW_SEM_RED_IADD, NVL_HW_SEM_PAYLOAD_64BIT),
		HOST_RED(NVL_HW_SEM_RED_INC,
			 NVL_HW_SEM_PAYLOAD_64BIT | NVL_HW_SEM_FORMAT_UNSIGNED),
		HOST_RED(NVL_HW_SEM_RED_DEC,
			 NVL_HW_SEM_PAYLOAD_64BIT | NVL_HW_SEM_FORMAT_UNSIGNED),
		HOST_RED(NVL_HW_SEM_RED_INC, 0),
		HOST_RED(NVL_HW_SEM_RED_DEC, 0),
	};
	struct gpu *g = gpu_up("tiny");

	for (unsigned i = 0; i < NVL_ARRAY_SIZE(bad); i++) {
		struct nvl_kit_chan a;

		gpu_chan(g, 10 + i, 0, &a);
		gpu_wr(g, SEM, 3);
		if (host_sem(g, &a, 0, SEM, 1, bad[i]) != -EIO ||
		    nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(10 + i)) !=
			    NVL_HW_CHERR_SEMAPHORE)
			fail_msg("SEM_EXECUTE %#x accepted", bad[i]);
		assert_int_equal(gpu_rd(g, SEM), 3);
		nvl_kit_chan_fini(&g->kit, &a);
	}
	gpu_down(g);
}

/*
 * clc86f.h NVC86F_SEM_ADDR_HI_OFFSET 24:0 (clc56f.h: 7:0): on Hopper the
 * semaphore VA has 57 bits; bit 40 (SEM_ADDR_HI bit 8) is part of it.
 */
static void sem_addr_hi_offset(void **state)
{
	struct gpu *g = gpu_up("gh100");
	struct nvl_kit_chan a;
	uint64_t va = (1ull << 40) | 0x10;

	assert_int_equal(nvl_kit_map(&g->kit, &g->vm, va & ~0xfffull, BUF, 4096,
				     12, NVL_HW_APERTURE_VIDMEM, 0),
			 0);
	gpu_chan(g, 3, 0, &a);
	assert_int_equal(host_sem(g, &a, (uint32_t)(va >> 32), (uint32_t)va, 77,
				  NVL_HW_SEM_OP_RELEASE),
			 0);
	assert_int_equal(gpu_rd(g, BUF + 0x10), 77);
	assert_int_equal(gpu_rd(g, 0x10), 0); /* not truncated to 7:0 */
	nvl_kit_chan_fini(&g->kit, &a);
	gpu_down(g);
}

/* reduction results the model must produce: value, payload, result */
static const struct {
	unsigned op;
	uint32_t v, p, want;
} reductions[] = {
	{NVL_HW_SEM_RED_IMAX, 7, 9, 9},
	{NVL_HW_SEM_RED_IMAX, 9, 7, 9},
	{NVL_HW_SEM_RED_IXOR, 0xff00, 0x0ff0, 0xf0f0},
	{NVL_HW_SEM_RED_IAND, 0xff00, 0x0ff0, 0x0f00},
	{NVL_HW_SEM_RED_IOR, 0xff00, 0x0ff0, 0xfff0},
	{NVL_HW_SEM_RED_INC, 4, 5, 5}, /* v < p: v + 1 */
	{NVL_HW_SEM_RED_INC, 5, 5, 0}, /* v >= p: wraps to 0 */
	{NVL_HW_SEM_RED_DEC, 4, 5, 3}, /* 0 < v <= p: v - 1 */
	{NVL_HW_SEM_RED_DEC, 0, 5, 5}, /* v == 0: p */
	{NVL_HW_SEM_RED_DEC, 9, 5, 5}, /* v > p: p */
};

/*
 * clc56f.h NVC56F_SEM_EXECUTE REDUCTION IMAX 1, IXOR 2, IAND 3, IOR 4,
 * INC 6, DEC 7 (32-bit unsigned), and the copy engine's
 * NVC5B5_LAUNCH_DMA_SEMAPHORE_REDUCTION with the same codes.
 */
static void sem_execute_reduction(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan h, c;

	gpu_chan(g, 1, 0, &h);
	gpu_chan(g, 2, 0, &c);
	for (unsigned i = 0; i < NVL_ARRAY_SIZE(reductions); i++) {
		gpu_wr(g, SEM, reductions[i].v);
		assert_int_equal(host_sem(g, &h, 0, SEM, reductions[i].p,
					  HOST_RED(reductions[i].op,
						   NVL_HW_SEM_FORMAT_UNSIGNED)),
				 0);
		if (gpu_rd(g, SEM) != reductions[i].want)
			fail_msg("Host reduction %u of %#x, %#x: %#x",
				 reductions[i].op, reductions[i].v,
				 reductions[i].p, gpu_rd(g, SEM));
		gpu_wr(g, SEM, reductions[i].v);
		assert_int_equal(
			ce_sem(g, &c, SEM, reductions[i].p, false, 0,
			       CE_RED(reductions[i].op) |
				       NVL_HW_CE_LAUNCH_SEM_REDUCTION_UNSIGNED),
			0);
		if (gpu_rd(g, SEM) != reductions[i].want)
			fail_msg("CE reduction %u of %#x, %#x: %#x",
				 reductions[i].op, reductions[i].v,
				 reductions[i].p, gpu_rd(g, SEM));
	}
	nvl_kit_chan_fini(&g->kit, &h);
	nvl_kit_chan_fini(&g->kit, &c);
	gpu_down(g);
}

/*
 * dev_pbdma.ref NV_FIFO_DMA_SEC_OP ONE_INC (5) vs INC_METHOD (1): ONE_INC
 * sends its first data dword to the method and every following one to the
 * next method; INC moves on after each dword.
 */
static void sec_op_one_inc(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan a;
	uint32_t p[16], n = 0, w[2];

	gpu_chan(g, 1, 0, &a);
	/* ONE_INC: PAYLOAD_LO = 0x11, PAYLOAD_HI = 0x22 then 0x33 */
	p[n++] = NVL_HW_MTHD_INC(0, NVL_HW_SEM_ADDR_LO, 2);
	p[n++] = (uint32_t)SEM;
	p[n++] = 0;
	p[n++] = NVL_HW_MTHD_1INC(0, NVL_HW_SEM_PAYLOAD_LO, 3);
	p[n++] = 0x11;
	p[n++] = 0x22;
	p[n++] = 0x33;
	p[n++] = NVL_HW_MTHD_INC(0, NVL_HW_SEM_EXECUTE, 1);
	p[n++] = NVL_HW_SEM_OP_RELEASE | NVL_HW_SEM_PAYLOAD_64BIT;
	/* INC: PAYLOAD_LO = 0x44, PAYLOAD_HI = 0x55, EXECUTE = release */
	p[n++] = NVL_HW_MTHD_INC(0, NVL_HW_SEM_PAYLOAD_LO, 3);
	p[n++] = 0x44;
	p[n++] = 0x55;
	p[n++] = NVL_HW_SEM_OP_RELEASE | NVL_HW_SEM_PAYLOAD_64BIT;
	gpu_push(&a, p, 9);
	assert_int_equal(nvl_kit_kick(&g->kit, &a), 0);
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &a, GPU_WAIT), 0);
	assert_int_equal(nvl_hw_vram_read(g->hw, SEM, w, 8), 0);
	assert_int_equal(w[0], 0x11);
	assert_int_equal(w[1], 0x33);
	gpu_push(&a, p + 9, n - 9);
	assert_int_equal(nvl_kit_kick(&g->kit, &a), 0);
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &a, GPU_WAIT), 0);
	assert_int_equal(nvl_hw_vram_read(g->hw, SEM, w, 8), 0);
	assert_int_equal(w[0], 0x44);
	assert_int_equal(w[1], 0x55);
	nvl_kit_chan_fini(&g->kit, &a);
	gpu_down(g);
}

/* load RAMFC ACQUIRE = @acq into channel @ch (rebind to reload RAMFC) */
static void set_acquire(struct gpu *g, struct nvl_kit_chan *ch, uint32_t acq)
{
	nvl_hw_wr32(g->hw, NVL_HW_CHRAM_CTRL(ch->chid),
		    NVL_HW_CHRAM_CTRL_ENABLE_CLR);
	gpu_wr(g, ch->inst + NVL_HW_RAMFC_ACQUIRE, acq);
	nvl_hw_wr32(g->hw, NVL_HW_CHRAM_INST(ch->chid),
		    nvl_hw_rd32(g->hw, NVL_HW_CHRAM_INST(ch->chid)));
	nvl_hw_wr32(g->hw, NVL_HW_CHRAM_CTRL(ch->chid),
		    NVL_HW_CHRAM_CTRL_ENABLE_SET);
}

/*
 * dev_pbdma.ref NV_PPBDMA_ACQUIRE (RAMFC 0x030): RETRY_MAN 6:0, RETRY_EXP
 * 10:7, TIMEOUT_EXP 14:11, TIMEOUT_MAN 30:15, TIMEOUT_EN 31:31. It is not
 * a count of microseconds: with TIMEOUT_EN 0 an acquire never times out
 * (0x902: retry fields only; Nouveau's 0x7ffff902), with TIMEOUT_EN 1 it
 * fails after TIMEOUT_MAN << TIMEOUT_EXP units.
 */
static void ramfc_acquire_timeout_en(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan a, b;
	uint32_t p[16], n;

	gpu_chan(g, 1, 0, &a);
	set_acquire(g, &a, 0x902);
	n = nvl_kit_pb_acquire(p, SEM, 1);
	gpu_push(&a, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &a), 0);
	usleep(30000); /* 0x902 us would have expired by now */
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(1)), 0);
	gpu_wr(g, SEM, 1);
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &a, GPU_WAIT), 0);
	/* TIMEOUT_EN with MAN 1000, EXP 0: about 1 ms */
	gpu_chan(g, 2, 1, &b);
	set_acquire(g, &b,
		    NVL_HW_ACQUIRE_TIMEOUT_EN |
			    1000u << NVL_HW_ACQUIRE_TIMEOUT_MAN_SHIFT);
	n = nvl_kit_pb_acquire(p, SEM, 2);
	gpu_push(&b, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &b), 0);
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &b, GPU_WAIT), -EIO);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(2)),
			 NVL_HW_CHERR_ACQUIRE);
	/* the encoder: at least the asked time, in the fields above */
	assert_int_equal(nvl_hw_acquire_timeout(1024 * 3) >>
					 NVL_HW_ACQUIRE_TIMEOUT_MAN_SHIFT &
				 NVL_HW_ACQUIRE_TIMEOUT_MAN_MASK,
			 3);
	nvl_kit_chan_fini(&g->kit, &a);
	nvl_kit_chan_fini(&g->kit, &b);
	gpu_down(g);
}

/*
 * dev_pbdma.ref: subchannels 5..7 are software subchannels, but Host-only
 * methods (below 0x100: NOP, SEM_*, NON_STALL_INTERRUPT...) are executed
 * by Host whatever the subchannel; only engine methods there go to
 * software (a DEVICE interrupt).
 */
static void subch_host_methods(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan a, b;
	uint32_t p[16], n = 0;

	gpu_chan(g, 1, 0, &a);
	p[n++] = NVL_HW_MTHD_INC(6, NVL_HW_NOP, 1);
	p[n++] = 0;
	p[n++] = NVL_HW_MTHD_INC(7, NVL_HW_SEM_ADDR_LO, 5);
	p[n++] = (uint32_t)SEM;
	p[n++] = 0;
	p[n++] = 9;
	p[n++] = 0;
	p[n++] = NVL_HW_SEM_OP_RELEASE;
	gpu_push(&a, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &a), 0);
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &a, GPU_WAIT), 0);
	assert_int_equal(gpu_rd(g, SEM), 9);
	/* an engine method on subchannel 5 is software's */
	gpu_chan(g, 2, 0, &b);
	p[0] = NVL_HW_MTHD_INC(5, NVL_HW_CE_NOP, 1);
	p[1] = 0;
	gpu_push(&b, p, 2);
	assert_int_equal(nvl_kit_kick(&g->kit, &b), 0);
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &b, GPU_WAIT), -EIO);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(2)),
			 NVL_HW_CHERR_DEVICE);
	nvl_kit_chan_fini(&g->kit, &a);
	nvl_kit_chan_fini(&g->kit, &b);
	gpu_down(g);
}

/*
 * CLEAR_FAULTED (0x84) HANDLE 30:0 = CHID 15:0 | RUNLIST_ID 22:16, TYPE
 * 31:31 (ENG_FAULTED 1): a privileged channel clears another's engine
 * fault. The handle is RM's token (UVM's clear_faulted_token, pushed on
 * its own channel): from an unprivileged channel the method is a METHOD
 * error and nothing is cleared.
 */
static void clear_faulted_chid_runlist(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan f, c;
	uint32_t p[32], n;

	nvl_hw_wr32(g->hw, NVL_HW_FAULT_BUF_LO(0),
		    NVL_HW_FAULT_BUF_LO_PHYS(FBUF, NVL_HW_FAULT_APERTURE_VID));
	nvl_hw_wr32(g->hw, NVL_HW_FAULT_BUF_SIZE(0),
		    8 | NVL_HW_FAULT_BUF_SIZE_ENABLE);
	gpu_chan(g, 9, 1, &f);
	n = nvl_kit_pb_copy(p, g->ce_class, 0x800000, HOLE, 4);
	gpu_push(&f, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &f), 0);
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &f, GPU_WAIT), -EIO);
	assert_true(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_CTRL(9)) &
		    NVL_HW_CHRAM_CTRL_ENG_FAULTED);
	gpu_chan(g, 3, 0, &c);
	/* the wrong runlist for channel 9: a METHOD error, nothing cleared */
	p[0] = NVL_HW_MTHD_INC(0, NVL_HW_CLEAR_FAULTED, 1);
	p[1] = NVL_HW_CLEAR_FAULTED_HANDLE(9, 0) | NVL_HW_CLEAR_FAULTED_ENG;
	gpu_push(&c, p, 2);
	assert_int_equal(nvl_kit_kick(&g->kit, &c), 0);
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &c, GPU_WAIT), -EIO);
	assert_true(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_CTRL(9)) &
		    NVL_HW_CHRAM_CTRL_ENG_FAULTED);
	nvl_kit_chan_fini(&g->kit, &c);
	/* service the fault */
	assert_int_equal(nvl_kit_map(&g->kit, &g->vm, HOLE, 0x1000000, 4096, 12,
				     NVL_HW_APERTURE_VIDMEM, 0),
			 0);
	assert_int_equal(nvl_kit_invalidate(&g->kit, &g->vm), 0);
	nvl_hw_wr32(g->hw, NVL_HW_CHERR_PENDING(0), 1u << 9);
	/* the right handle from an unprivileged channel: a METHOD error,
	 * nothing cleared */
	gpu_chan(g, 4, 0, &c);
	p[1] = NVL_HW_CLEAR_FAULTED_HANDLE(9, 1) | NVL_HW_CLEAR_FAULTED_ENG;
	gpu_push(&c, p, 2);
	assert_int_equal(nvl_kit_kick(&g->kit, &c), 0);
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &c, GPU_WAIT), -EIO);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(4)),
			 NVL_HW_CHERR_METHOD);
	assert_true(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_CTRL(9)) &
		    NVL_HW_CHRAM_CTRL_ENG_FAULTED);
	nvl_kit_chan_fini(&g->kit, &c);
	nvl_hw_wr32(g->hw, NVL_HW_CHERR_PENDING(0), 1u << 4);
	/* from a privileged one: the faulted channel retries and
	 * completes */
	assert_int_equal(nvl_kit_chan_create(&g->kit, &g->vm, 4, 0, 6, 64 << 10,
					     true, &c),
			 0);
	gpu_push(&c, p, 2);
	assert_int_equal(nvl_kit_kick(&g->kit, &c), 0);
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &c, GPU_WAIT), 0);
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &f, GPU_WAIT), 0);
	assert_false(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_CTRL(9)) &
		     NVL_HW_CHRAM_CTRL_ENG_FAULTED);
	nvl_kit_chan_fini(&g->kit, &c);
	nvl_kit_chan_fini(&g->kit, &f);
	gpu_down(g);
}

/*
 * Clearing ENG_FAULTED (CHRAM CTRL, as CLEAR_FAULTED does) retries the
 * faulting entry, even when the clear lands while the runlist is still
 * taking the faulted channel off the engine: 200 faults, each cleared the
 * moment its error shows, each retry faulting again (the VA stays
 * unmapped). A retry lost in that window leaves the channel stopped with
 * no error, and the wait for the next fault times out.
 */
static void clear_faulted_while_stopping(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan f;
	uint32_t p[32], n;

	gpu_chan(g, 9, 1, &f);
	n = nvl_kit_pb_copy(p, g->ce_class, 0x800000, HOLE, 4);
	gpu_push(&f, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &f), 0);
	for (int i = 0; i < 200; i++) {
		int64_t deadline = nvl_deadline_after(GPU_WAIT);

		while (!nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(9)))
			assert_true(nvl_time_ns() < deadline);
		assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(9)),
				 NVL_HW_CHERR_MMU_FAULT);
		nvl_hw_wr32(g->hw, NVL_HW_CHRAM_CTRL(9),
			    NVL_HW_CHRAM_CTRL_ENG_FAULTED);
	}
	nvl_kit_chan_fini(&g->kit, &f);
	gpu_down(g);
}

/*
 * dev_ram.ref NV_RAMIN_BIG_PAGE_SIZE (bit 11 of PAGE_DIR_BASE): 0 = 128
 * KiB, 1 = 64 KiB. The model walks 64 KiB big pages only, so it checks
 * the bit: an instance block asking for 128 KiB is an INSTANCE error.
 */
static void ramin_big_page_size(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan a;
	uint32_t p[16], n, pdb;

	gpu_chan(g, 1, 0, &a);
	nvl_hw_wr32(g->hw, NVL_HW_CHRAM_CTRL(1), NVL_HW_CHRAM_CTRL_ENABLE_CLR);
	pdb = gpu_rd(g, a.inst + NVL_HW_RAMIN_PDB);
	assert_true(pdb & NVL_HW_RAMIN_PDB_BIG_PAGE_64K);
	gpu_wr(g, a.inst + NVL_HW_RAMIN_PDB,
	       pdb & ~NVL_HW_RAMIN_PDB_BIG_PAGE_64K);
	nvl_hw_wr32(g->hw, NVL_HW_CHRAM_INST(1),
		    nvl_hw_rd32(g->hw, NVL_HW_CHRAM_INST(1)));
	nvl_hw_wr32(g->hw, NVL_HW_CHRAM_CTRL(1), NVL_HW_CHRAM_CTRL_ENABLE_SET);
	n = nvl_kit_pb_release(p, DONE, 1);
	gpu_push(&a, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &a), 0);
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &a, GPU_WAIT), -EIO);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(1)),
			 NVL_HW_CHERR_INSTANCE);
	assert_int_equal(gpu_rd(g, DONE), 0);
	nvl_kit_chan_fini(&g->kit, &a);
	gpu_down(g);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(subch_host_methods),
	cmocka_unit_test(clear_faulted_chid_runlist),
	cmocka_unit_test(clear_faulted_while_stopping),
	cmocka_unit_test(ramin_big_page_size),
	cmocka_unit_test(ramfc_acquire_timeout_en),
	cmocka_unit_test(sem_execute_release_timestamp),
	cmocka_unit_test(sem_execute_reduction_format),
	cmocka_unit_test(sem_addr_hi_offset),
	cmocka_unit_test(sem_execute_reduction),
	cmocka_unit_test(sec_op_one_inc),
	cmocka_unit_test(fault_entry_engine_id),
	cmocka_unit_test(launch_dma_semaphore_reduction_sign),
	cmocka_unit_test(launch_dma_semaphore_payload_size),
	cmocka_unit_test(mem_op_a_invalidation_size),
	cmocka_unit_test(fault_buffer_lo_addr_mode),
	cmocka_unit_test(fault_buffer_size_set_default),
	cmocka_unit_test(fault_buffer_size_overflow_intr),
	cmocka_unit_test(gp_entry1_opcode),
	cmocka_unit_test(userd_gp_get),
	cmocka_unit_test(gp_entries_across_page_and_wrap),
};

T_MAIN(tests)

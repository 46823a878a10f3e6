// SPDX-License-Identifier: MIT
/*
 * TEST: compute_drain
 * Description: the compute engine under TLB invalidates, through the
 * bring-up kit. A grid that keeps reading a page while the page is
 * unmapped (or remapped to other memory) and the TLBs are invalidated
 * with SYS_MEMBAR and ACK GLOBALLY (ga102 dev_vm.h
 * NV_VIRTUAL_FUNCTION_PRIV_MMU_INVALIDATE: ALL_VA 0, SYS_MEMBAR 6, ACK 8:7,
 * TRIGGER 31; what RM sets after a PTE downgrade) must not reach the old
 * page once the invalidate has completed: the driver frees or reuses that
 * memory then. Until session 20 the SM workers kept the page in their
 * uTLB (and the interpreter's TLB) for the whole grid: the kernel went on
 * reading the freed page. The same for the channel method path: Host's
 * MEM_OP_A..D TLB invalidate (clc56f.h NVC56F_MEM_OP_A
 * TLB_INVALIDATE_SYSMEMBAR 11:11, NVC56F_MEM_OP_C TLB_INVALIDATE_PDB 0:0,
 * TLB_INVALIDATE_ACK_TYPE 6:5 (NONE 0, GLOBALLY 1, INTRANODE 2),
 * NVC56F_MEM_OP_D OPERATION 31:27 = MMU_TLB_INVALIDATE 9) completes, and
 * lets the channel go on, only once the accesses in flight are done.
 */
#include <errno.h>
#include <stdlib.h>

#include "cxkit.h"
#include "hw/host.h"
#include "model/mmu.h"

/* the window the kernel reads: one 4 KiB page, far above VRAM's identity
 * map, first mapped to OLD_PA, then to NEW_PA (or nothing) */
#define WIN (1ull << 40)
#define OLD_PA 0x500000ull
#define NEW_PA 0x501000ull
/* the kernel's words at DATA: the marker it saw (0: none), its loop
 * count, the stop flag the test sets, the last values it read */
#define R_SEEN (DATA + 0x0)
#define R_COUNT (DATA + 0x4)
#define R_STOP (DATA + 0x8)
#define R_LAST (DATA + 0xc)
#define R_LAST1 (DATA + 0x10)
#define OLD_VAL 1u
#define NEW_VAL 2u
#define FREED 0xdeadu /* written into the old page after the invalidate */

/*
 * One warp: every lane reads WIN[lane] (a coalesced load: the
 * interpreter's TLB) and all read WIN + 0x100 (one address: the per-access
 * path through the worker's uTLB), records FREED if it sees it, counts,
 * and loops until R_STOP is set.
 */
static const char reader_src[] = "  S2R R0, SR_LANEID\n"
				 "  MOV R9, 0x4\n"
				 "  MOV R10, RZ\n"
				 "  MOV R11, 0x100\n"
				 "  IMAD.WIDE.U32 R2, R0, R9, R10\n"
				 "  MOV R4, 0x100\n"
				 "  MOV R5, 0x100\n"
				 "  MOV R6, 0x400000\n"
				 "  MOV R7, RZ\n"
				 "  MOV R14, RZ\n"
				 "loop:\n"
				 "  LDG.E R12, [R2]\n"
				 "  LDG.E R13, [R4]\n"
				 "  ISETP.EQ.U32.AND P0, PT, R12, 0xdead, PT\n"
				 "  @P0 STG.E [R6], R12\n"
				 "  ISETP.EQ.U32.AND P1, PT, R13, 0xdead, PT\n"
				 "  @P1 STG.E [R6], R13\n"
				 "  IADD3 R14, R14, 0x1, RZ\n"
				 "  STG.E [R6+0x4], R14\n"
				 "  STG.E [R6+0xc], R12\n"
				 "  STG.E [R6+0x10], R13\n"
				 "  LDG.E R15, [R6+0x8]\n"
				 "  ISETP.EQ.U32.AND P2, PT, R15, RZ, PT\n"
				 "  @P2 BRA loop\n"
				 "  EXIT\n";

static void fill_page(struct cx *x, uint64_t pa, uint32_t v)
{
	uint32_t b[1024];

	for (unsigned i = 0; i < 1024; i++)
		b[i] = v;
	assert_int_equal(nvl_hw_vram_write(x->g->hw, pa, b, sizeof(b)), 0);
}

/* write the QMD, push the launch, do not wait */
static void start_reader(struct cx *x)
{
	uint32_t p[NVL_COMPUTE_PUSH_MAX_DW];
	int n;

	for (uint64_t a = DATA; a < DATA + 0x20; a += 4)
		gpu_wr(x->g, a, 0);
	fill_page(x, OLD_PA, OLD_VAL);
	fill_page(x, NEW_PA, NEW_VAL);
	assert_int_equal(nvl_kit_map(&x->g->kit, &x->g->vm, WIN, OLD_PA, 4096,
				     12, NVL_HW_APERTURE_VIDMEM, 0),
			 0);
	cx_load_at(x, CODE, reader_src);
	assert_int_equal(
		nvl_hw_vram_write(x->g->hw, QMD, x->q, (size_t)x->qsize), 0);
	n = nvl_compute_push_launch(x->cls, SUBCH, QMD, NVL_COMPUTE_PUSH_BIND,
				    p, NVL_COMPUTE_PUSH_MAX_DW);
	assert_true(n > 0);
	gpu_push(&x->ch, p, (uint32_t)n);
	assert_int_equal(nvl_kit_kick(&x->g->kit, &x->ch), 0);
}

/* wait until the kernel's count reaches @n (it is running); false when
 * the channel stopped first */
static bool count_reaches(struct cx *x, uint32_t n)
{
	int64_t deadline = nvl_time_ns() + GPU_WAIT;

	while (gpu_rd(x->g, R_COUNT) < n) {
		struct timespec ts = {0, 100000};

		if (nvl_hw_rd32(x->g->hw, NVL_HW_CHRAM_ERROR(x->chid)))
			return false;
		assert_true(nvl_time_ns() < deadline);
		nanosleep(&ts, NULL);
	}
	return true;
}

#define INVAL_DRAIN                                                            \
	(NVL_HW_MMU_INVALIDATE_ALL_VA | NVL_HW_MMU_INVALIDATE_SYS_MEMBAR |     \
	 NVL_HW_MMU_INVALIDATE_ACK_GLOBALLY)

/* the register path, as RM after a PTE downgrade; true once complete
 * (TRIGGER reads 0), false after 2 s */
static bool invalidate_drain(struct cx *x)
{
	struct nvl_hw *hw = x->g->hw;
	int64_t deadline = nvl_time_ns() + 2 * NVL_NSEC_PER_SEC;

	nvl_hw_wr32(hw, NVL_HW_MMU_INVALIDATE_PDB,
		    (uint32_t)(x->g->vm.pdb >> 12)
			    << NVL_HW_MMU_INVALIDATE_PDB_ADDR_SHIFT);
	nvl_hw_wr32(hw, NVL_HW_MMU_INVALIDATE_UPPER_PDB,
		    (uint32_t)(x->g->vm.pdb >> 40));
	nvl_hw_wr32(hw, NVL_HW_MMU_INVALIDATE,
		    INVAL_DRAIN | NVL_HW_MMU_INVALIDATE_TRIGGER);
	while (nvl_hw_rd32(hw, NVL_HW_MMU_INVALIDATE) &
	       NVL_HW_MMU_INVALIDATE_TRIGGER) {
		if (nvl_time_ns() > deadline)
			return false;
		sched_yield();
	}
	return true;
}

/*
 * The page is remapped to NEW_PA and the TLBs invalidated with a drain
 * while the grid runs; the invalidate completes while the grid is still
 * running (it waits for accesses in flight, not for the grid), and then
 * the old page is "freed" (overwritten with FREED). The grid must never
 * see FREED: it reads the new page from then on.
 */
static void a_running_grid_never_reads_a_page_after_its_invalidate(void **st)
{
	static const char *const profiles[] = {"tu102", "ga102"};
	struct cx x;

	(void)st;
	for (unsigned p = 0; p < 2; p++) {
		uint32_t c;

		cx_up(&x, profiles[p], -1, 32);
		start_reader(&x);
		assert_true(count_reaches(&x, 64));
		assert_int_equal(
			nvl_kit_unmap(&x.g->kit, &x.g->vm, WIN, 4096, 12), 0);
		assert_int_equal(nvl_kit_map(&x.g->kit, &x.g->vm, WIN, NEW_PA,
					     4096, 12, NVL_HW_APERTURE_VIDMEM,
					     0),
				 0);
		assert_true(invalidate_drain(&x));
		fill_page(&x, OLD_PA, FREED);
		/* the grid is still running and goes on */
		c = gpu_rd(x.g, R_COUNT);
		assert_true(count_reaches(&x, c + 64));
		gpu_wr(x.g, R_STOP, 1);
		assert_int_equal(nvl_kit_wait_idle(&x.g->kit, &x.ch, GPU_WAIT),
				 0);
		assert_int_equal(gpu_rd(x.g, SEM), 7);
		assert_int_equal(gpu_rd(x.g, R_SEEN), 0);
		assert_int_equal(gpu_rd(x.g, R_LAST), NEW_VAL);
		assert_int_equal(gpu_rd(x.g, R_LAST1), NEW_VAL);
		cx_down(&x);
	}
}

/*
 * The same with the page unmapped: after the invalidate the grid's next
 * read of it faults (an MMU fault of the channel), it never reads the
 * freed page.
 */
static void a_running_grid_faults_on_a_page_unmapped_under_it(void **st)
{
	int64_t deadline;
	struct cx x;

	(void)st;
	cx_up(&x, "ga102", -1, 32);
	start_reader(&x);
	assert_true(count_reaches(&x, 64));
	assert_int_equal(nvl_kit_unmap(&x.g->kit, &x.g->vm, WIN, 4096, 12), 0);
	assert_true(invalidate_drain(&x));
	fill_page(&x, OLD_PA, FREED);
	deadline = nvl_time_ns() + GPU_WAIT;
	while (!nvl_hw_rd32(x.g->hw, NVL_HW_CHRAM_ERROR(x.chid)) &&
	       nvl_time_ns() < deadline)
		sched_yield();
	gpu_wr(x.g, R_STOP, 1);
	assert_int_equal(nvl_kit_wait_idle(&x.g->kit, &x.ch, GPU_WAIT), -EIO);
	assert_int_equal(nvl_hw_rd32(x.g->hw, NVL_HW_CHRAM_ERROR(x.chid)),
			 NVL_HW_CHERR_MMU_FAULT);
	assert_int_equal(gpu_rd(x.g, R_SEEN), 0);
	assert_int_equal(gpu_rd(x.g, SEM), 0);
	cx_down(&x);
}

/* clc56f.h: NVC56F_MEM_OP_C_TLB_INVALIDATE_ACK_TYPE 6:5 (NONE 0,
 * GLOBALLY 1, INTRANODE 2), written here from the header, not hw/host.h */
#define MEM_OP_A_SYSMEMBAR (1u << 11)
#define MEM_OP_C_ACK(t) ((uint32_t)(t) << 5)
#define MEM_OP_C_PDB_ALL 1u
#define MEM_OP_D_TLB_INVALIDATE (9u << 27)
#define DONE (DATA + 0x40)

/* MEM_OP_A..D invalidating every PDB with @a and @c, then a release of
 * @seq at DONE, on @ch */
static void push_mem_op(struct gpu *g, struct nvl_kit_chan *ch, uint32_t a,
			uint32_t c, uint32_t seq)
{
	uint32_t p[32], n = 0;

	p[n++] = NVL_HW_MTHD_INC(0, NVL_HW_MEM_OP_A, 4);
	p[n++] = a;
	p[n++] = 0;
	p[n++] = c | MEM_OP_C_PDB_ALL;
	p[n++] = MEM_OP_D_TLB_INVALIDATE;
	n += nvl_kit_pb_release(p + n, DONE, seq);
	gpu_push(ch, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, ch), 0);
}

/*
 * MEM_OP's TLB invalidate with TLB_INVALIDATE_SYSMEMBAR and an ACK_TYPE
 * is a drain as the register's is: with an engine access held open (by
 * hand, as tests/mmu/walker.c does), the channel does not go past it
 * until the access ends; without the membar, or without an ACK, it is a
 * plain flush and the channel goes on at once. Until session 20 every
 * MEM_OP invalidate was a plain flush.
 */
static void mem_op_invalidate_with_membar_and_ack_drains(void **st)
{
	static const uint32_t acks[] = {1, 2}; /* GLOBALLY, INTRANODE */
	struct gpu *g = gpu_up("ga102");
	struct nvl_kit_chan ch;
	uint32_t seq = 0;
	unsigned t;

	(void)st;
	gpu_chan_priv(g, 3, 0, &ch); /* MEM_OP invalidates: privileged */
	gpu_wr(g, DONE, 0);
	/* not drains: go on while the access is open */
	t = nvl_model_mmu_enter(g->m->mmu, 1);
	push_mem_op(g, &ch, 0, MEM_OP_C_ACK(1), ++seq);
	assert_int_equal(nvl_kit_wait_u32(&g->kit, DONE, seq, GPU_WAIT), 0);
	push_mem_op(g, &ch, MEM_OP_A_SYSMEMBAR, MEM_OP_C_ACK(0), ++seq);
	assert_int_equal(nvl_kit_wait_u32(&g->kit, DONE, seq, GPU_WAIT), 0);
	nvl_model_mmu_exit(g->m->mmu, t);
	for (unsigned i = 0; i < 2; i++) {
		t = nvl_model_mmu_enter(g->m->mmu, 1);
		push_mem_op(g, &ch, MEM_OP_A_SYSMEMBAR, MEM_OP_C_ACK(acks[i]),
			    ++seq);
		/* held: the release behind the MEM_OP does not happen */
		assert_int_equal(nvl_kit_wait_u32(&g->kit, DONE, seq,
						  50 * NVL_NSEC_PER_MSEC),
				 -ETIME);
		assert_int_equal(
			nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(ch.chid)), 0);
		nvl_model_mmu_exit(g->m->mmu, t);
		assert_int_equal(nvl_kit_wait_u32(&g->kit, DONE, seq, GPU_WAIT),
				 0);
	}
	/* nothing in flight: at once */
	push_mem_op(g, &ch, MEM_OP_A_SYSMEMBAR, MEM_OP_C_ACK(1), ++seq);
	assert_int_equal(nvl_kit_wait_u32(&g->kit, DONE, seq, GPU_WAIT), 0);
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &ch, GPU_WAIT), 0);
	nvl_kit_chan_fini(&g->kit, &ch);
	gpu_down(g);
}

/*
 * The same from a copy channel while a grid runs on the compute runlist:
 * the draining MEM_OP completes (the grid's accesses in flight end; the
 * grid goes on), and then the grid never reads the old page.
 */
static void mem_op_drain_waits_for_a_running_grid(void **st)
{
	struct nvl_kit_chan ce;
	uint32_t c;
	struct cx x;

	(void)st;
	cx_up(&x, "ga102", -1, 32);
	gpu_chan_priv(x.g, 7, 0, &ce);
	start_reader(&x);
	assert_true(count_reaches(&x, 64));
	assert_int_equal(nvl_kit_unmap(&x.g->kit, &x.g->vm, WIN, 4096, 12), 0);
	assert_int_equal(nvl_kit_map(&x.g->kit, &x.g->vm, WIN, NEW_PA, 4096, 12,
				     NVL_HW_APERTURE_VIDMEM, 0),
			 0);
	gpu_wr(x.g, DONE, 0);
	push_mem_op(x.g, &ce, MEM_OP_A_SYSMEMBAR, MEM_OP_C_ACK(1), 1);
	assert_int_equal(nvl_kit_wait_u32(&x.g->kit, DONE, 1, GPU_WAIT), 0);
	fill_page(&x, OLD_PA, FREED);
	c = gpu_rd(x.g, R_COUNT);
	assert_true(count_reaches(&x, c + 64));
	gpu_wr(x.g, R_STOP, 1);
	assert_int_equal(nvl_kit_wait_idle(&x.g->kit, &x.ch, GPU_WAIT), 0);
	assert_int_equal(gpu_rd(x.g, R_SEEN), 0);
	assert_int_equal(gpu_rd(x.g, R_LAST), NEW_VAL);
	assert_int_equal(gpu_rd(x.g, R_LAST1), NEW_VAL);
	nvl_kit_chan_fini(&x.g->kit, &ce);
	cx_down(&x);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(
		a_running_grid_never_reads_a_page_after_its_invalidate),
	cmocka_unit_test(a_running_grid_faults_on_a_page_unmapped_under_it),
	cmocka_unit_test(mem_op_invalidate_with_membar_and_ack_drains),
	cmocka_unit_test(mem_op_drain_waits_for_a_running_grid),
};

T_MAIN(tests)

// SPDX-License-Identifier: MIT
/*
 * TEST: model_sem
 * Description: Host semaphores between channels: an acquire waits until
 * another channel releases (same runlist and across runlists), CPU
 * releases wake it, 64-bit payloads and conditions, reductions, release
 * timestamps, acquire timeouts, and the TLB-invalidate method.
 */
#include <stdlib.h>
#include <unistd.h>

#include "gpu.h"

#define SEM 0x10000ull
#define DONE 0x20000ull
#define DST 0x800000ull

static void acquire_waits_for_other_channels_release(void **state)
{
	for (unsigned same_rl = 0; same_rl < 2; same_rl++) {
		struct gpu *g = gpu_up("tiny");
		struct nvl_kit_chan a, b;
		uint32_t p[64], n;

		gpu_chan(g, 1, 0, &a);
		gpu_chan(g, 2, same_rl ? 0 : 1, &b);
		/* a: wait for SEM >= 5, then write DONE */
		n = nvl_kit_pb_acquire(p, SEM, 5);
		n += nvl_kit_pb_release(p + n, DONE, 1);
		gpu_push(&a, p, n);
		assert_int_equal(nvl_kit_kick(&g->kit, &a), 0);
		/* the entry is taken (BUSY: GP_GET past it) but not done; on
		 * a loaded machine the runlist thread may take it late, so
		 * wait for that (bounded) rather than a fixed time */
		{
			int64_t deadline = nvl_deadline_after(GPU_WAIT);

			while (!(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_CTRL(1)) &
				 NVL_HW_CHRAM_CTRL_BUSY)) {
				assert_true(nvl_time_ns() < deadline);
				usleep(100);
			}
		}
		usleep(20000);
		assert_int_equal(gpu_rd(g, DONE), 0);
		assert_true(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_CTRL(1)) &
			    NVL_HW_CHRAM_CTRL_BUSY);
		/* b: release 4 (not enough) then 5 */
		n = nvl_kit_pb_release(p, SEM, 4);
		gpu_push(&b, p, n);
		assert_int_equal(nvl_kit_kick(&g->kit, &b), 0);
		assert_int_equal(nvl_kit_wait_idle(&g->kit, &b, GPU_WAIT), 0);
		usleep(5000);
		assert_int_equal(gpu_rd(g, DONE), 0);
		n = nvl_kit_pb_release(p, SEM, 5);
		gpu_push(&b, p, n);
		assert_int_equal(nvl_kit_kick(&g->kit, &b), 0);
		assert_int_equal(nvl_kit_wait_u32(&g->kit, DONE, 1, GPU_WAIT),
				 0);
		assert_int_equal(nvl_kit_wait_idle(&g->kit, &a, GPU_WAIT), 0);
		nvl_kit_chan_fini(&g->kit, &a);
		nvl_kit_chan_fini(&g->kit, &b);
		gpu_down(g);
	}
}

static void cpu_write_satisfies_parked_acquire(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan a;
	uint32_t p[64], n;

	gpu_chan(g, 7, 1, &a);
	n = nvl_kit_pb_acquire(p, SEM, 3);
	n += nvl_kit_pb_release(p + n, DONE, 2);
	gpu_push(&a, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &a), 0);
	for (int i = 0;
	     i < 100000 && !(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_CTRL(7)) &
			     NVL_HW_CHRAM_CTRL_ACQUIRE_PENDING);
	     i++)
		usleep(50);
	assert_true(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_CTRL(7)) &
		    NVL_HW_CHRAM_CTRL_ACQUIRE_PENDING);
	assert_int_equal(gpu_rd(g, DONE), 0);
	gpu_wr(g, SEM, 3);
	assert_int_equal(nvl_kit_wait_u32(&g->kit, DONE, 2, GPU_WAIT), 0);
	nvl_kit_chan_fini(&g->kit, &a);
	gpu_down(g);
}

static void sem_exec(uint32_t *p, uint32_t *n, uint64_t va, uint64_t payload,
		     uint32_t exec)
{
	p[(*n)++] = NVL_HW_MTHD_INC(0, NVL_HW_SEM_ADDR_LO, 5);
	p[(*n)++] = (uint32_t)va;
	p[(*n)++] = (uint32_t)(va >> 32);
	p[(*n)++] = (uint32_t)payload;
	p[(*n)++] = (uint32_t)(payload >> 32);
	p[(*n)++] = exec;
}

static void wide_release_reduction_and_timestamp(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan a;
	uint32_t p[128], n = 0, w[4];
	uint64_t v, t0 = nvl_model_time_ns(g->m);

	gpu_chan(g, 3, 0, &a);
	/* 64-bit release of 0x1_0000_0002 */
	sem_exec(p, &n, SEM, 0x100000002ull,
		 NVL_HW_SEM_OP_RELEASE | NVL_HW_SEM_PAYLOAD_64BIT);
	/* 64-bit strict >= acquire passes */
	sem_exec(p, &n, SEM, 0x100000001ull,
		 NVL_HW_SEM_OP_ACQ_STRICT_GEQ | NVL_HW_SEM_PAYLOAD_64BIT);
	/* IADD 5 to a 32-bit word, then INC with wrap at 6 twice */
	sem_exec(p, &n, SEM + 16, 5,
		 NVL_HW_SEM_OP_REDUCTION |
			 NVL_HW_SEM_RED_IADD << NVL_HW_SEM_REDUCTION_SHIFT |
			 NVL_HW_SEM_FORMAT_UNSIGNED);
	sem_exec(p, &n, SEM + 16, 6,
		 NVL_HW_SEM_OP_REDUCTION |
			 NVL_HW_SEM_RED_INC << NVL_HW_SEM_REDUCTION_SHIFT |
			 NVL_HW_SEM_FORMAT_UNSIGNED);
	sem_exec(p, &n, SEM + 16, 6,
		 NVL_HW_SEM_OP_REDUCTION |
			 NVL_HW_SEM_RED_INC << NVL_HW_SEM_REDUCTION_SHIFT |
			 NVL_HW_SEM_FORMAT_UNSIGNED);
	/* signed IMIN with -3 */
	sem_exec(p, &n, SEM + 20, (uint32_t)-3,
		 NVL_HW_SEM_OP_REDUCTION |
			 NVL_HW_SEM_RED_IMIN << NVL_HW_SEM_REDUCTION_SHIFT);
	/* release with timestamp at a 16-byte aligned address */
	sem_exec(p, &n, SEM + 32, 9,
		 NVL_HW_SEM_OP_RELEASE | NVL_HW_SEM_RELEASE_TIMESTAMP);
	/* AND acquire: 9 & 8 != 0 passes */
	sem_exec(p, &n, SEM + 32, 8, NVL_HW_SEM_OP_ACQ_AND);
	n += nvl_kit_pb_release(p + n, DONE, 1);
	gpu_push(&a, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &a), 0);
	assert_int_equal(nvl_kit_wait_u32(&g->kit, DONE, 1, GPU_WAIT), 0);
	assert_int_equal(nvl_hw_vram_read(g->hw, SEM, &v, 8), 0);
	assert_true(v == 0x100000002ull);
	assert_int_equal(gpu_rd(g, SEM + 16), 0); /* 5 -> 6 -> 0 */
	assert_int_equal((int32_t)gpu_rd(g, SEM + 20), -3);
	assert_int_equal(nvl_hw_vram_read(g->hw, SEM + 32, w, 16), 0);
	assert_int_equal(w[0], 9);
	v = (uint64_t)w[3] << 32 | w[2];
	assert_true(v >= t0 && v <= nvl_model_time_ns(g->m));
	nvl_kit_chan_fini(&g->kit, &a);
	gpu_down(g);
}

static void acquire_timeout_raises_channel_error(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan a;
	uint32_t p[64], n, t = nvl_hw_acquire_timeout(2000000);

	gpu_chan(g, 4, 0, &a);
	/* the channel must be rebound for a new RAMFC value to load */
	nvl_hw_wr32(g->hw, NVL_HW_CHRAM_CTRL(4), NVL_HW_CHRAM_CTRL_ENABLE_CLR);
	assert_int_equal(
		nvl_hw_vram_write(g->hw, a.inst + NVL_HW_RAMFC_ACQUIRE, &t, 4),
		0);
	nvl_hw_wr32(g->hw, NVL_HW_CHRAM_INST(4),
		    nvl_hw_rd32(g->hw, NVL_HW_CHRAM_INST(4)));
	nvl_hw_wr32(g->hw, NVL_HW_CHRAM_CTRL(4), NVL_HW_CHRAM_CTRL_ENABLE_SET);
	n = nvl_kit_pb_acquire(p, SEM, 1);
	gpu_push(&a, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &a), 0);
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &a, GPU_WAIT), -EIO);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(4)),
			 NVL_HW_CHERR_ACQUIRE);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERR_METHOD(4)),
			 NVL_HW_SEM_EXECUTE);
	assert_true(nvl_hw_rd32(g->hw, NVL_HW_CHERR_PENDING(0)) & (1u << 4));
	assert_true(gpu_wait_nonzero(&g->stall, GPU_WAIT));
	assert_true(atomic_load(&g->stall) & NVL_HW_INTR_FIFO);
	nvl_kit_chan_fini(&g->kit, &a);
	gpu_down(g);
}

static void misaligned_wide_semaphore_is_an_error(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan a;
	uint32_t p[64], n = 0;

	gpu_chan(g, 5, 0, &a);
	sem_exec(p, &n, SEM + 4, 1,
		 NVL_HW_SEM_OP_RELEASE | NVL_HW_SEM_PAYLOAD_64BIT);
	gpu_push(&a, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &a), 0);
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &a, GPU_WAIT), -EIO);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(5)),
			 NVL_HW_CHERR_SEMAPHORE);
	nvl_kit_chan_fini(&g->kit, &a);
	gpu_down(g);
}

static void tlb_invalidate_method_makes_new_mapping_visible(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan a;
	uint32_t p[64], n = 0;
	uint64_t va = 1ull << 41;

	gpu_chan_priv(g, 6, 0, &a); /* MEM_OP invalidates are privileged */
	gpu_wr(g, DST, 0xabcd);
	/* 1st copy from an unmapped VA would fault: map it first, but warm
	 * the TLB with the old (2 MiB identity) mapping of DST instead */
	assert_int_equal(nvl_kit_map(&g->kit, &g->vm, va, DST, 4096, 12,
				     NVL_HW_APERTURE_VIDMEM, 0),
			 0);
	n = nvl_kit_pb_copy(p, g->ce_class, DST + 64, va, 4);
	n += nvl_kit_pb_release(p + n, DONE, 1);
	gpu_push(&a, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &a), 0);
	assert_int_equal(nvl_kit_wait_u32(&g->kit, DONE, 1, GPU_WAIT), 0);
	assert_int_equal(gpu_rd(g, DST + 64), 0xabcd);
	/* remap va to DST + 4096 without invalidating: stale */
	gpu_wr(g, DST + 4096, 0x1234);
	assert_int_equal(nvl_kit_map(&g->kit, &g->vm, va, DST + 4096, 4096, 12,
				     NVL_HW_APERTURE_VIDMEM, 0),
			 0);
	n = nvl_kit_pb_copy(p, g->ce_class, DST + 128, va, 4);
	n += nvl_kit_pb_release(p + n, DONE, 2);
	gpu_push(&a, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &a), 0);
	assert_int_equal(nvl_kit_wait_u32(&g->kit, DONE, 2, GPU_WAIT), 0);
	assert_int_equal(gpu_rd(g, DST + 128), 0xabcd);
	/* MEM_OP invalidate of every PDB, then the copy sees the new page */
	n = 0;
	p[n++] = NVL_HW_MTHD_INC(0, NVL_HW_MEM_OP_A, 4);
	p[n++] = 0;
	p[n++] = 0;
	p[n++] = NVL_HW_MEM_OP_C_PDB_ALL;
	p[n++] = NVL_HW_MEM_OP_MMU_TLB_INVALIDATE << NVL_HW_MEM_OP_D_OP_SHIFT;
	n += nvl_kit_pb_copy(p + n, g->ce_class, DST + 192, va, 4);
	n += nvl_kit_pb_release(p + n, DONE, 3);
	gpu_push(&a, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &a), 0);
	assert_int_equal(nvl_kit_wait_u32(&g->kit, DONE, 3, GPU_WAIT), 0);
	assert_int_equal(gpu_rd(g, DST + 192), 0x1234);
	nvl_kit_chan_fini(&g->kit, &a);
	gpu_down(g);
}

/* the fault buffer, a sparse page at @sparse and a read-only one at @ro */
static void perm_maps(struct gpu *g, uint64_t sparse, uint64_t ro)
{
	nvl_hw_wr32(
		g->hw, NVL_HW_FAULT_BUF_LO(0),
		NVL_HW_FAULT_BUF_LO_PHYS(0x40000, NVL_HW_FAULT_APERTURE_VID));
	nvl_hw_wr32(g->hw, NVL_HW_FAULT_BUF_SIZE(0),
		    16 | NVL_HW_FAULT_BUF_SIZE_ENABLE);
	assert_int_equal(nvl_kit_map(&g->kit, &g->vm, sparse, 0, 4096, 12,
				     NVL_HW_APERTURE_VIDMEM, NVL_KIT_SPARSE),
			 0);
	assert_int_equal(nvl_kit_map(&g->kit, &g->vm, ro, DST, 4096, 12,
				     NVL_HW_APERTURE_VIDMEM, NVL_KIT_RO),
			 0);
}

static void semaphores_obey_page_permissions(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan a, b, c;
	uint64_t sparse = 1ull << 36, ro = 1ull << 37, noat = 1ull << 38;
	uint32_t p[64], n = 0, e[8];

	perm_maps(g, sparse, ro);
	assert_int_equal(nvl_kit_map(&g->kit, &g->vm, noat, DST + 4096, 4096,
				     12, NVL_HW_APERTURE_VIDMEM,
				     NVL_KIT_NO_ATOMIC),
			 0);
	/* sparse: the release is dropped, an acquire reads zero */
	gpu_chan(g, 1, 0, &a);
	sem_exec(p, &n, sparse, 5, NVL_HW_SEM_OP_RELEASE);
	sem_exec(p, &n, sparse, 0, NVL_HW_SEM_OP_ACQUIRE);
	n += nvl_kit_pb_release(p + n, DONE, 1);
	gpu_push(&a, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &a), 0);
	assert_int_equal(nvl_kit_wait_u32(&g->kit, DONE, 1, GPU_WAIT), 0);
	/* read-only: a release faults; reading is fine */
	gpu_chan(g, 2, 0, &b);
	n = 0;
	sem_exec(p, &n, ro, 0, NVL_HW_SEM_OP_ACQUIRE);
	sem_exec(p, &n, ro, 5, NVL_HW_SEM_OP_RELEASE);
	gpu_push(&b, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &b), 0);
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &b, GPU_WAIT), -EIO);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(2)),
			 NVL_HW_CHERR_MMU_FAULT);
	assert_int_equal(nvl_hw_vram_read(g->hw, 0x40000, e, 32), 0);
	assert_int_equal(e[7] & NVL_HW_FAULT_INFO_TYPE_MASK,
			 NVL_HW_FAULT_RO_VIOLATION);
	assert_int_equal(gpu_rd(g, DST), 0);
	/* atomic-disabled: a release works, a reduction faults */
	gpu_chan(g, 3, 0, &c);
	n = 0;
	sem_exec(p, &n, noat, 5, NVL_HW_SEM_OP_RELEASE);
	sem_exec(p, &n, noat, 1,
		 NVL_HW_SEM_OP_REDUCTION |
			 NVL_HW_SEM_RED_IADD << NVL_HW_SEM_REDUCTION_SHIFT);
	gpu_push(&c, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &c), 0);
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &c, GPU_WAIT), -EIO);
	assert_int_equal(gpu_rd(g, DST + 4096), 5);
	assert_int_equal(nvl_hw_vram_read(g->hw, 0x40000 + 32, e, 32), 0);
	assert_int_equal(e[7] & NVL_HW_FAULT_INFO_TYPE_MASK,
			 NVL_HW_FAULT_ATOMIC_VIOLATION);
	assert_int_equal(e[7] >> NVL_HW_FAULT_INFO_ACCESS_SHIFT &
				 NVL_HW_FAULT_INFO_ACCESS_MASK,
			 NVL_HW_FAULT_ACCESS_ATOMIC);
	nvl_kit_chan_fini(&g->kit, &a);
	nvl_kit_chan_fini(&g->kit, &b);
	nvl_kit_chan_fini(&g->kit, &c);
	gpu_down(g);
}

/*
 * A release with RELEASE_TIMESTAMP writes its two words with one
 * translation when the page allows it; a sparse or read-only page takes
 * the MMU's rules as a plain release does: dropped, or a fault with
 * neither word written.
 */
static void timestamped_release_obeys_page_permissions(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan a, b;
	uint64_t sparse = 1ull << 36, ro = 1ull << 37;
	uint32_t p[64], n = 0, e[8], w[4];

	perm_maps(g, sparse, ro);
	/* sparse: dropped, an acquire reads zero, the channel goes on */
	gpu_chan(g, 1, 0, &a);
	sem_exec(p, &n, sparse + 16, 5,
		 NVL_HW_SEM_OP_RELEASE | NVL_HW_SEM_RELEASE_TIMESTAMP);
	sem_exec(p, &n, sparse + 16, 0, NVL_HW_SEM_OP_ACQUIRE);
	n += nvl_kit_pb_release(p + n, DONE, 1);
	gpu_push(&a, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &a), 0);
	assert_int_equal(nvl_kit_wait_u32(&g->kit, DONE, 1, GPU_WAIT), 0);
	/* read-only: the release faults, neither word is written */
	gpu_chan(g, 2, 0, &b);
	n = 0;
	sem_exec(p, &n, ro + 16, 5,
		 NVL_HW_SEM_OP_RELEASE | NVL_HW_SEM_RELEASE_TIMESTAMP);
	gpu_push(&b, p, n);
	assert_int_equal(nvl_kit_kick(&g->kit, &b), 0);
	assert_int_equal(nvl_kit_wait_idle(&g->kit, &b, GPU_WAIT), -EIO);
	assert_int_equal(nvl_hw_rd32(g->hw, NVL_HW_CHRAM_ERROR(2)),
			 NVL_HW_CHERR_MMU_FAULT);
	assert_int_equal(nvl_hw_vram_read(g->hw, 0x40000, e, 32), 0);
	assert_int_equal(e[7] & NVL_HW_FAULT_INFO_TYPE_MASK,
			 NVL_HW_FAULT_RO_VIOLATION);
	assert_int_equal(nvl_hw_vram_read(g->hw, DST + 16, w, 16), 0);
	assert_int_equal(w[0] | w[1] | w[2] | w[3], 0);
	nvl_kit_chan_fini(&g->kit, &a);
	nvl_kit_chan_fini(&g->kit, &b);
	gpu_down(g);
}

static void ping_pong_between_runlists_and_channels(void **state)
{
	enum { ROUNDS = 100, NCH = 4 };
	struct gpu *g = gpu_up("tiny");
	struct nvl_kit_chan ch[NCH];
	uint32_t p[64], n;

	/* channel c waits for SEM >= NCH * r + c, then releases + 1: the
	 * token passes round four channels on two runlists */
	for (unsigned c = 0; c < NCH; c++)
		gpu_chan(g, 40 + c, c % 2, &ch[c]);
	for (unsigned r = 0; r < ROUNDS; r++) {
		for (unsigned c = 0; c < NCH; c++) {
			uint32_t v = NCH * r + c;

			n = nvl_kit_pb_acquire(p, SEM, v);
			n += nvl_kit_pb_release(p + n, SEM, v + 1);
			gpu_push(&ch[c], p, n);
			while (nvl_kit_kick(&g->kit, &ch[c]) == -ENOSPC)
				usleep(50);
		}
	}
	assert_int_equal(
		nvl_kit_wait_u32(&g->kit, SEM, NCH * ROUNDS, 10 * GPU_WAIT), 0);
	for (unsigned c = 0; c < NCH; c++) {
		assert_int_equal(nvl_kit_wait_idle(&g->kit, &ch[c], GPU_WAIT),
				 0);
		nvl_kit_chan_fini(&g->kit, &ch[c]);
	}
	gpu_down(g);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(ping_pong_between_runlists_and_channels),
	cmocka_unit_test(semaphores_obey_page_permissions),
	cmocka_unit_test(timestamped_release_obeys_page_permissions),
	cmocka_unit_test(acquire_waits_for_other_channels_release),
	cmocka_unit_test(cpu_write_satisfies_parked_acquire),
	cmocka_unit_test(wide_release_reduction_and_timestamp),
	cmocka_unit_test(acquire_timeout_raises_channel_error),
	cmocka_unit_test(misaligned_wide_semaphore_is_an_error),
	cmocka_unit_test(tlb_invalidate_method_makes_new_mapping_visible),
};

T_MAIN(tests)

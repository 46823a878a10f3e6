// SPDX-License-Identifier: MIT
/*
 * Fuzz target: arbitrary pushbuffers through the PBDMA decoder, the Host
 * methods, the copy engine and the compute engine of a "tiny" model.
 *
 * Input: byte 0 = flags, then, in this order, what the flags ask for:
 *  - bit 0: the channel is privileged;
 *  - bit 1: 8 bytes, a raw GPFIFO entry submitted first;
 *  - bit 2: the channel is on the graphics/compute runlist (which takes
 *    only the compute class: NVL_HW_RUNLIST_COMPUTE()), not copy
 *    runlist 1;
 *  - bit 3: a little-endian 16-bit length and that many bytes (at most
 *    what is left) written to VRAM at DATA_PA = VA 1 MiB before the
 *    submission: QMDs, programs, constant buffers and semaphores for the
 *    pushbuffer to point at (fuzz/gen_seeds.py pushbuf writes seeds that
 *    launch real grids this way);
 * then little-endian dwords forming one pushbuffer segment. The address
 * space maps the low 64 MiB of VRAM (2 MiB pages), a DMA-mapped system
 * page at 4 GiB, a sparse 2 MiB at 8 GiB and a read-only page at 16 GiB;
 * everything else faults.
 *
 * The model must never crash nor touch host memory outside VRAM and the
 * DMA-mapped page (ASan checks).
 *
 * Speed: one device serves every input (powering a model on and off cost
 * about 3 ms of CPU per input, and the wait for its threads more: 1,700
 * inputs in 30 s). Each input starts from the same state: engines idle,
 * VRAM dropped back to zeros (MADV_DONTNEED), the system page
 * refilled, the fault buffer, TLBs, page tables and channel rebuilt. The
 * wait ends as soon as the channel is idle, stopped on an error or parked
 * in an acquire that nothing can satisfy (the CPU never releases here);
 * only work still running after 50 ms (endless copies) is cut off by an
 * engine reset, so the engines are idle when the next input starts.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/time.h"
#include "hw/compute.h"
#include "hw/fault.h"
#include "hw/regs.h"
#include "kit.h"
#include "model/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_DW (1u << 16)
#define CHID 3
#define RL 1
#define DATA_PA (1ull << 20)

static struct nvl_model *m;
static uint8_t *sys;
static uint64_t dma;
static uint32_t *dw;

static void teardown(void)
{
	nvl_model_destroy(m); /* engines may still read @sys: first */
	free(sys);
	free(dw);
}

static int setup_once(void)
{
	if (m)
		return 0;
	if (nvl_model_create(nvl_model_profile_find("tiny"), &m))
		return -1;
	sys = aligned_alloc(4096, 4096);
	dw = malloc(MAX_DW * 4 + 4);
	if (!sys || !dw || nvl_hw_dma_map(nvl_model_hw(m), sys, 4096, &dma)) {
		teardown();
		m = NULL;
		return -1;
	}
	atexit(teardown);
	return 0;
}

/* abort whatever the engines still run; wait (bounded) for the reset */
static void reset_engines(struct nvl_hw *hw)
{
	int64_t deadline = nvl_time_ns() + NVL_NSEC_PER_SEC;

	/* every runlist's engine: the copy engines and compute */
	uint32_t all = (2u << NVL_HW_RUNLIST_COMPUTE(m->profile->num_ce)) - 1;

	nvl_hw_wr32(hw, NVL_HW_PMC_ENGINE_RESET, all);
	while ((nvl_hw_rd32(hw, NVL_HW_PMC_ENGINE_RESET) & all) &&
	       nvl_time_ns() < deadline)
		sched_yield(); /* the runlist threads need the CPU */
}

/*
 * Wait for idle, a stop, or an acquire nothing can satisfy.
 * Return: false when the work still ran after 50 ms.
 */
static bool wait_done(struct nvl_kit *kit, struct nvl_kit_chan *ch)
{
	int64_t deadline = nvl_time_ns() + 50 * NVL_NSEC_PER_MSEC;
	struct nvl_hw *hw = kit->hw;

	while (nvl_time_ns() < deadline) {
		uint32_t ctrl = nvl_hw_rd32(hw, NVL_HW_CHRAM_CTRL(CHID));

		if (nvl_hw_rd32(hw, NVL_HW_CHRAM_ERROR(CHID)) ||
		    (ctrl & NVL_HW_CHRAM_CTRL_ACQUIRE_PENDING) ||
		    (nvl_kit_gp_get(kit, ch) == ch->gp_put &&
		     !(ctrl & NVL_HW_CHRAM_CTRL_BUSY)))
			return true;
		sched_yield();
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nvl_kit_chan ch;
	struct nvl_kit_vm vm;
	struct nvl_kit kit;
	struct nvl_hw *hw;
	size_t ndw;
	uint8_t flags;
	unsigned rl;

	if (size < 1 || setup_once())
		return 0;
	flags = data[0];
	data++;
	size--;
	hw = nvl_model_hw(m);
	rl = flags & 4 ? NVL_HW_RUNLIST_COMPUTE(m->profile->num_ce) : RL;
	/* the same starting state for every input (engines are idle) */
	nvl_hw_wr32(hw, NVL_HW_CHRAM_CTRL(CHID), NVL_HW_CHRAM_CTRL_ENABLE_CLR);
	(void)madvise(m->vram, m->vram_size, MADV_DONTNEED);
	nvl_hw_wr32(hw, NVL_HW_INTR_STATUS(0), ~0u);
	nvl_hw_wr32(hw, NVL_HW_INTR_STATUS(1), ~0u);
	memset(sys, 0x3c, 4096);
	nvl_hw_wr32(hw, NVL_HW_CHERR_PENDING(0), ~0u);
	if (nvl_kit_init(&kit, hw, 64ull << 20) || nvl_kit_vm_init(&kit, &vm) ||
	    nvl_kit_map(&kit, &vm, 0, 0, 64ull << 20, 21,
			NVL_HW_APERTURE_VIDMEM, 0) ||
	    nvl_kit_map(&kit, &vm, 1ull << 32, dma, 4096, 12,
			NVL_HW_APERTURE_SYS_COH, 0) ||
	    nvl_kit_map(&kit, &vm, 1ull << 33, 0, 2ull << 20, 21,
			NVL_HW_APERTURE_VIDMEM, NVL_KIT_SPARSE) ||
	    nvl_kit_map(&kit, &vm, 1ull << 34, 0x10000, 4096, 12,
			NVL_HW_APERTURE_VIDMEM, NVL_KIT_RO))
		return 0;
	/* the kit maps its channel structures above 64 MiB identically */
	if (nvl_kit_map(&kit, &vm, 64ull << 20, 64ull << 20,
			kit.vram_size - (64ull << 20), 21,
			NVL_HW_APERTURE_VIDMEM, 0) ||
	    nvl_kit_invalidate(&kit, &vm) ||
	    nvl_kit_chan_create(&kit, &vm, CHID, rl, 4, 4 * MAX_DW + 64,
				flags & 1, &ch))
		return 0;
	nvl_hw_wr32(
		hw, NVL_HW_FAULT_BUF_LO(0),
		NVL_HW_FAULT_BUF_LO_PHYS(0x20000, NVL_HW_FAULT_APERTURE_VID));
	nvl_hw_wr32(hw, NVL_HW_FAULT_BUF_GET(0),
		    NVL_HW_FAULT_BUF_GET_OVERFLOW |
			    NVL_HW_FAULT_BUF_GET_CORRUPTED);
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
	if ((flags & 8) && size >= 2) {
		size_t len =
			NVL_MIN((size_t)(data[0] | data[1] << 8), size - 2);

		if (len)
			(void)nvl_hw_vram_write(hw, DATA_PA, data + 2, len);
		data += 2 + len;
		size -= 2 + len;
	}
	ndw = NVL_MIN(size / 4, (size_t)MAX_DW);
	memcpy(dw, data, ndw * 4);
	if (ndw && !nvl_kit_push(&ch, dw, (uint32_t)ndw))
		(void)nvl_kit_kick(&kit, &ch);
	else
		nvl_hw_wr32(hw, NVL_HW_DOORBELL,
			    NVL_HW_DOORBELL_TOKEN(CHID, rl));
	if (!wait_done(&kit, &ch))
		reset_engines(hw); /* cut off what still runs */
	nvl_kit_chan_fini(&kit, &ch);
	return 0;
}

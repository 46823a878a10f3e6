// SPDX-License-Identifier: MIT
/*
 * DOC: bring-up kit
 *
 * A minimal "driver" for the model's own tests, benchmarks, fuzzing and
 * demo (kit.h). It talks to the device only through struct nvl_hw and
 * writes every structure from the hardware definitions, exactly as a
 * driver would: version-2 or -3 page tables, instance blocks, USERD, GPFIFO
 * entries and method headers.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/time.h"
#include "hw/ce.h"
#include "hw/host.h"
#include "hw/mmu_v2.h"
#include "hw/mmu_v3.h"
#include "hw/regs.h"
#include "model/model_regs.h"
#include "kit.h"

static void kit_sleep(void)
{
	struct timespec ts = {0, 20000};

	nanosleep(&ts, NULL);
}

int nvl_kit_init(struct nvl_kit *k, struct nvl_hw *hw, uint64_t floor)
{
	k->hw = hw;
	k->vram_size = (uint64_t)nvl_hw_rd32(hw, NVL_MODEL_REG_CFG_FB_SIZE_MB)
		       << 20;
	if (floor >= k->vram_size)
		return -EINVAL;
	k->next = k->vram_size;
	k->floor = floor;
	return 0;
}

uint64_t nvl_kit_alloc(struct nvl_kit *k, uint64_t size, uint64_t align)
{
	uint64_t a;

	if (!size || !NVL_IS_POW2(align) || size > k->next)
		return 0;
	a = NVL_ALIGN_DOWN(k->next - size, align);
	if (a < k->floor || a == 0)
		return 0;
	k->next = a;
	return a;
}

static uint64_t alloc_table(struct nvl_kit *k, uint64_t size, uint64_t align)
{
	static const uint8_t zero[4096];
	uint64_t a = nvl_kit_alloc(k, size, align);

	if (a && nvl_hw_vram_write(k->hw, a, zero, (size_t)size))
		return 0;
	return a;
}

static uint64_t rd64(struct nvl_kit *k, uint64_t pa)
{
	uint64_t v = 0;

	(void)nvl_hw_vram_read(k->hw, pa, &v, 8);
	return v;
}

static void wr64(struct nvl_kit *k, uint64_t pa, uint64_t v)
{
	(void)nvl_hw_vram_write(k->hw, pa, &v, 8);
}

int nvl_kit_vm_init(struct nvl_kit *k, struct nvl_kit_vm *vm)
{
	/* BOOT_0 ARCHITECTURE: version 3 from Hopper on */
	vm->version = (nvl_hw_rd32(k->hw, NVL_HW_PMC_BOOT_0) >>
			       NVL_HW_BOOT_0_ARCH_SHIFT &
		       NVL_HW_BOOT_0_ARCH_MASK) == NVL_HW_ARCH_HOPPER
			      ? 3
			      : 2;
	vm->pdb = alloc_table(k, 4096, 4096);
	return vm->pdb ? 0 : -ENOSPC;
}

/* a directory entry pointing at a VRAM table */
static uint64_t pde(bool v3, uint64_t table)
{
	uint64_t ap = (uint64_t)NVL_HW_MMU_PDE_APERTURE_VIDMEM
		      << NVL_HW_MMU_V2_PDE_APERTURE_SHIFT; /* same in v3 */

	if (v3)
		return ap | (table & NVL_HW_MMU_V3_PDE_ADDR_MASK);
	return ap | (table >> 12) << NVL_HW_MMU_V2_PDE_ADDR_SHIFT;
}

/* the next-level table of the PDE at @entry, made when @alloc */
static uint64_t next_table(struct nvl_kit *k, bool v3, uint64_t entry,
			   bool alloc)
{
	uint64_t v = rd64(k, entry), t;

	if (v & NVL_HW_MMU_V2_PDE_APERTURE_MASK) {
		if (v3)
			return v & NVL_HW_MMU_V3_PDE_ADDR_MASK;
		return (v >> NVL_HW_MMU_V2_PDE_ADDR_SHIFT &
			((1ull << NVL_HW_MMU_V2_PDE_ADDR_VID_BITS) - 1))
		       << 12;
	}
	if (!alloc || (v & NVL_HW_MMU_V2_PDE_IS_PTE))
		return 0;
	t = alloc_table(k, 4096, 4096);
	if (t)
		wr64(k, entry, pde(v3, t));
	return t;
}

/* address of the PD0 entry for @va */
static uint64_t pd0_entry(struct nvl_kit *k, struct nvl_kit_vm *vm, uint64_t va,
			  bool alloc)
{
	bool v3 = vm->version == 3;
	uint64_t t = vm->pdb;

	if (v3) {
		t = next_table(k, v3, t + ((va >> 56) & 1) * 8, alloc);
		if (!t)
			return 0;
		t = next_table(k, v3, t + ((va >> 47) & 511) * 8, alloc);
	} else {
		t = next_table(k, v3, t + ((va >> 47) & 3) * 8, alloc);
	}
	if (!t)
		return 0;
	t = next_table(k, v3, t + ((va >> 38) & 511) * 8, alloc);
	if (!t)
		return 0;
	t = next_table(k, v3, t + ((va >> 29) & 511) * 8, alloc);
	if (!t)
		return 0;
	return t + ((va >> 21) & 255) * 16;
}

static uint64_t pte(bool v3, uint64_t pa, enum nvl_hw_aperture ap,
		    unsigned flags)
{
	unsigned code = ap == NVL_HW_APERTURE_SYS_COH
				? NVL_HW_MMU_PTE_APERTURE_SYS_COH
			: ap == NVL_HW_APERTURE_SYS_NONCOH
				? NVL_HW_MMU_PTE_APERTURE_SYS_NONCOH
				: NVL_HW_MMU_PTE_APERTURE_VIDMEM;
	uint64_t pcf = 0;

	if (v3) {
		if (flags & NVL_KIT_SPARSE)
			return (uint64_t)NVL_HW_MMU_V3_PTE_PCF_SPARSE
			       << NVL_HW_MMU_V3_PTE_PCF_SHIFT;
		if (flags & NVL_KIT_RO)
			pcf |= NVL_HW_MMU_V3_PTE_PCF_READ_ONLY;
		if (flags & NVL_KIT_NO_ATOMIC)
			pcf |= NVL_HW_MMU_V3_PTE_PCF_NO_ATOMIC;
		if (nvl_hw_aperture_is_sys(ap))
			pcf |= NVL_HW_MMU_V3_PTE_PCF_UNCACHED;
		return NVL_HW_MMU_V3_PTE_VALID |
		       (uint64_t)code << NVL_HW_MMU_V3_PTE_APERTURE_SHIFT |
		       pcf << NVL_HW_MMU_V3_PTE_PCF_SHIFT |
		       (pa & NVL_HW_MMU_V3_PTE_ADDR_MASK);
	}
	if (flags & NVL_KIT_SPARSE)
		return NVL_HW_MMU_V2_PTE_SPARSE;
	return NVL_HW_MMU_V2_PTE_VALID |
	       (uint64_t)code << NVL_HW_MMU_V2_PTE_APERTURE_SHIFT |
	       (pa >> 12) << NVL_HW_MMU_V2_PTE_ADDR_SHIFT |
	       ((flags & NVL_KIT_RO) ? NVL_HW_MMU_V2_PTE_READ_ONLY : 0) |
	       ((flags & NVL_KIT_NO_ATOMIC) ? NVL_HW_MMU_V2_PTE_ATOMIC_DISABLE
					    : 0) |
	       (nvl_hw_aperture_is_sys(ap) ? NVL_HW_MMU_V2_PTE_VOL : 0);
}

/* the page table (big or small) under PD0 entry @e, made when @alloc */
static uint64_t leaf_table(struct nvl_kit *k, bool v3, uint64_t e, bool big,
			   bool alloc)
{
	const uint64_t vid = NVL_HW_MMU_PDE_APERTURE_VIDMEM;
	uint64_t lo = rd64(k, e), hi = rd64(k, e + 8), t;

	/* IS_PTE and the aperture fields sit at the same bits in v2 and v3 */
	if (lo & NVL_HW_MMU_V2_DUAL_IS_PTE)
		return 0; /* a 2 MiB PTE is there */
	if (big && (lo & NVL_HW_MMU_V2_DUAL_APERTURE_BIG_MASK))
		return v3 ? lo & NVL_HW_MMU_V3_DUAL_ADDR_BIG_MASK
			  : (lo >> NVL_HW_MMU_V2_DUAL_ADDR_BIG_SHIFT &
			     ((1ull << NVL_HW_MMU_V2_DUAL_ADDR_BIG_VID_BITS) -
			      1)) << 8;
	if (!big && (hi & NVL_HW_MMU_V2_DUAL_APERTURE_SMALL_MASK))
		return v3 ? hi & NVL_HW_MMU_V3_DUAL_ADDR_SMALL_MASK
			  : (hi >> NVL_HW_MMU_V2_DUAL_ADDR_SMALL_SHIFT &
			     ((1ull << NVL_HW_MMU_V2_DUAL_ADDR_SMALL_VID_BITS) -
			      1)) << 12;
	if (!alloc)
		return 0;
	if (big) {
		t = alloc_table(k, 256, 256);
		if (t)
			wr64(k, e,
			     vid << NVL_HW_MMU_V2_DUAL_APERTURE_BIG_SHIFT |
				     (v3 ? t
					 : (t >>
					    8) << NVL_HW_MMU_V2_DUAL_ADDR_BIG_SHIFT));
	} else {
		t = alloc_table(k, 4096, 4096);
		if (t)
			wr64(k, e + 8,
			     vid << NVL_HW_MMU_V2_DUAL_APERTURE_SMALL_SHIFT |
				     (v3 ? t
					 : (t >>
					    12) << NVL_HW_MMU_V2_DUAL_ADDR_SMALL_SHIFT));
	}
	return t;
}

static int map_page(struct nvl_kit *k, struct nvl_kit_vm *vm, uint64_t va,
		    uint64_t value, unsigned shift, bool alloc)
{
	uint64_t e = pd0_entry(k, vm, va, alloc), t;

	if (!e)
		return alloc ? -ENOSPC : -ENOENT;
	if (shift == 21) {
		if (!alloc) {
			wr64(k, e, 0);
		} else if (value & NVL_HW_MMU_V2_PTE_VALID) {
			wr64(k, e, value); /* VALID doubles as IS_PTE */
		} else {
			/* v2 VOL_BIG and v3 PCF_BIG = SPARSE: both bit 3 */
			wr64(k, e, NVL_HW_MMU_V2_DUAL_SPARSE_LO);
		}
		wr64(k, e + 8, 0);
		return 0;
	}
	t = leaf_table(k, vm->version == 3, e, shift == 16, alloc);
	if (!t)
		return (rd64(k, e) & NVL_HW_MMU_V2_DUAL_IS_PTE) ? -EINVAL
		       : alloc					? -ENOSPC
								: -ENOENT;
	if (shift == 16)
		wr64(k, t + ((va >> 16) & 31) * 8, value);
	else
		wr64(k, t + ((va >> 12) & 511) * 8, value);
	return 0;
}

int nvl_kit_map(struct nvl_kit *k, struct nvl_kit_vm *vm, uint64_t va,
		uint64_t pa, uint64_t size, unsigned page_shift,
		enum nvl_hw_aperture ap, unsigned flags)
{
	uint64_t ps = 1ull << page_shift;

	if ((page_shift != 12 && page_shift != 16 && page_shift != 21) ||
	    !NVL_IS_ALIGNED(va | pa | size, ps) || va + size < va ||
	    va + size > (1ull << (vm->version == 3 ? 57 : 49)))
		return -EINVAL;
	for (uint64_t o = 0; o < size; o += ps) {
		int ret = map_page(k, vm, va + o,
				   pte(vm->version == 3, pa + o, ap, flags),
				   page_shift, true);

		if (ret)
			return ret;
	}
	return 0;
}

int nvl_kit_unmap(struct nvl_kit *k, struct nvl_kit_vm *vm, uint64_t va,
		  uint64_t size, unsigned page_shift)
{
	uint64_t ps = 1ull << page_shift;

	if ((page_shift != 12 && page_shift != 16 && page_shift != 21) ||
	    !NVL_IS_ALIGNED(va | size, ps))
		return -EINVAL;
	for (uint64_t o = 0; o < size; o += ps) {
		int ret = map_page(k, vm, va + o, 0, page_shift, false);

		if (ret)
			return ret;
	}
	return 0;
}

int nvl_kit_invalidate(struct nvl_kit *k, struct nvl_kit_vm *vm)
{
	int64_t deadline = nvl_time_ns() + NVL_NSEC_PER_SEC;

	nvl_hw_wr32(k->hw, NVL_HW_MMU_INVALIDATE_PDB,
		    (uint32_t)(vm->pdb >> 12)
			    << NVL_HW_MMU_INVALIDATE_PDB_ADDR_SHIFT);
	nvl_hw_wr32(k->hw, NVL_HW_MMU_INVALIDATE_UPPER_PDB,
		    (uint32_t)(vm->pdb >> 40));
	nvl_hw_wr32(k->hw, NVL_HW_MMU_INVALIDATE,
		    NVL_HW_MMU_INVALIDATE_ALL_VA |
			    NVL_HW_MMU_INVALIDATE_TRIGGER);
	while (nvl_hw_rd32(k->hw, NVL_HW_MMU_INVALIDATE) &
	       NVL_HW_MMU_INVALIDATE_TRIGGER) {
		if (nvl_time_ns() > deadline)
			return -ETIME;
		kit_sleep();
	}
	return 0;
}

static void wr32v(struct nvl_kit *k, uint64_t pa, uint32_t v)
{
	(void)nvl_hw_vram_write(k->hw, pa, &v, 4);
}

/* disable @chid and wait until its runlist stopped running it */
static void chan_disable(struct nvl_kit *k, unsigned chid)
{
	int64_t deadline = nvl_time_ns() + NVL_NSEC_PER_SEC;

	nvl_hw_wr32(k->hw, NVL_HW_CHRAM_CTRL(chid),
		    NVL_HW_CHRAM_CTRL_ENABLE_CLR);
	while ((nvl_hw_rd32(k->hw, NVL_HW_CHRAM_CTRL(chid)) &
		NVL_HW_CHRAM_CTRL_BUSY) &&
	       nvl_time_ns() < deadline)
		kit_sleep();
}

int nvl_kit_chan_create(struct nvl_kit *k, struct nvl_kit_vm *vm, unsigned chid,
			unsigned runlist, unsigned gp_order, uint32_t pb_size,
			bool priv, struct nvl_kit_chan *ch)
{
	memset(ch, 0, sizeof(*ch));
	ch->chid = chid;
	ch->runlist = runlist;
	ch->gp_entries = 1u << gp_order;
	ch->pb_size = pb_size;
	ch->buf_cap = pb_size / 4;
	ch->inst = alloc_table(k, NVL_HW_INST_SIZE, 4096);
	ch->userd = alloc_table(k, NVL_HW_USERD_SIZE, 512);
	ch->gpfifo = nvl_kit_alloc(k, (uint64_t)ch->gp_entries * 8, 4096);
	ch->pb = nvl_kit_alloc(k, pb_size, 4096);
	if (!ch->inst || !ch->userd || !ch->gpfifo || !ch->pb)
		return -ENOSPC;
	ch->buf = nvl_calloc(ch->buf_cap, 4);
	if (!ch->buf)
		return -ENOMEM;
	wr32v(k, ch->inst + NVL_HW_RAMFC_USERD,
	      (uint32_t)ch->userd | NVL_HW_RAM_TARGET_VID);
	wr32v(k, ch->inst + NVL_HW_RAMFC_USERD_HI, (uint32_t)(ch->userd >> 32));
	wr32v(k, ch->inst + NVL_HW_RAMFC_GP_BASE, (uint32_t)ch->gpfifo);
	wr32v(k, ch->inst + NVL_HW_RAMFC_GP_BASE_HI,
	      (uint32_t)(ch->gpfifo >> 32) |
		      gp_order << NVL_HW_RAMFC_GP_BASE_HI_LIMIT2_SHIFT);
	wr32v(k, ch->inst + NVL_HW_RAMFC_CONFIG,
	      priv ? NVL_HW_RAMFC_CONFIG_PRIV : 0);
	wr32v(k, ch->inst + NVL_HW_RAMIN_PDB,
	      ((uint32_t)vm->pdb & NVL_HW_RAMIN_PDB_LO_MASK) |
		      NVL_HW_RAM_TARGET_VID | NVL_HW_RAMIN_PDB_USE_VER2 |
		      NVL_HW_RAMIN_PDB_BIG_PAGE_64K);
	wr32v(k, ch->inst + NVL_HW_RAMIN_PDB_HI, (uint32_t)(vm->pdb >> 32));
	chan_disable(k, chid);
	nvl_hw_wr32(k->hw, NVL_HW_CHRAM_RUNLIST(chid), runlist);
	nvl_hw_wr32(k->hw, NVL_HW_CHRAM_INST(chid),
		    (uint32_t)(ch->inst >> 12) |
			    NVL_HW_RAM_TARGET_VID
				    << NVL_HW_CHRAM_INST_TARGET_SHIFT |
			    NVL_HW_CHRAM_INST_BIND);
	nvl_hw_wr32(k->hw, NVL_HW_CHRAM_CTRL(chid),
		    NVL_HW_CHRAM_CTRL_ENABLE_SET);
	return 0;
}

void nvl_kit_chan_fini(struct nvl_kit *k, struct nvl_kit_chan *ch)
{
	chan_disable(k, ch->chid);
	nvl_free(ch->buf);
	ch->buf = NULL;
}

int nvl_kit_push(struct nvl_kit_chan *ch, const uint32_t *dw, uint32_t n)
{
	if (n > ch->buf_cap - ch->n)
		return -ENOSPC;
	memcpy(ch->buf + ch->n, dw, (size_t)n * 4);
	ch->n += n;
	return 0;
}

uint32_t nvl_kit_gp_get(struct nvl_kit *k, struct nvl_kit_chan *ch)
{
	uint32_t v = 0;

	(void)nvl_hw_vram_read(k->hw, ch->userd + NVL_HW_USERD_GP_GET, &v, 4);
	return v;
}

int nvl_kit_kick(struct nvl_kit *k, struct nvl_kit_chan *ch)
{
	uint32_t bytes = ch->n * 4;
	uint64_t e;

	if (!ch->n)
		return 0;
	if ((ch->gp_put + 1) % ch->gp_entries == nvl_kit_gp_get(k, ch))
		return -ENOSPC;
	if (ch->pb_pos + bytes > ch->pb_size)
		ch->pb_pos = 0; /* callers keep the ring from overrunning */
	if (nvl_hw_vram_write(k->hw, ch->pb + ch->pb_pos, ch->buf, bytes))
		return -ENOSPC;
	e = nvl_hw_gp_entry(ch->pb + ch->pb_pos, ch->n, 0);
	wr64(k, ch->gpfifo + (uint64_t)ch->gp_put * 8, e);
	ch->pb_pos += NVL_ALIGN_UP(bytes, 16u);
	ch->n = 0;
	ch->gp_put = (ch->gp_put + 1) % ch->gp_entries;
	wr32v(k, ch->userd + NVL_HW_USERD_GP_PUT, ch->gp_put);
	nvl_hw_wr32(k->hw, NVL_HW_DOORBELL,
		    NVL_HW_DOORBELL_TOKEN(ch->chid, ch->runlist));
	return 0;
}

int nvl_kit_wait_idle(struct nvl_kit *k, struct nvl_kit_chan *ch,
		      int64_t timeout_ns)
{
	int64_t deadline = nvl_deadline_after(timeout_ns);

	for (;;) {
		if (nvl_hw_rd32(k->hw, NVL_HW_CHRAM_ERROR(ch->chid)))
			return -EIO;
		/* GP_GET only says the entries were taken: idle is all
		 * taken and the channel no longer busy with the last one */
		if (nvl_kit_gp_get(k, ch) == ch->gp_put &&
		    !(nvl_hw_rd32(k->hw, NVL_HW_CHRAM_CTRL(ch->chid)) &
		      NVL_HW_CHRAM_CTRL_BUSY))
			/* the error may have come with the last entry, after
			 * the check above */
			return nvl_hw_rd32(k->hw, NVL_HW_CHRAM_ERROR(ch->chid))
				       ? -EIO
				       : 0;
		if (nvl_time_ns() > deadline)
			return -ETIME;
		kit_sleep();
	}
}

int nvl_kit_wait_u32(struct nvl_kit *k, uint64_t pa, uint32_t value,
		     int64_t timeout_ns)
{
	int64_t deadline = nvl_deadline_after(timeout_ns);
	uint32_t v;

	for (;;) {
		v = 0;
		(void)nvl_hw_vram_read(k->hw, pa, &v, 4);
		if (v == value)
			return 0;
		if (nvl_time_ns() > deadline)
			return -ETIME;
		kit_sleep();
	}
}

#define CE_SUBCH 4

uint32_t nvl_kit_pb_copy(uint32_t *p, uint32_t ce_class, uint64_t dst,
			 uint64_t src, uint32_t len)
{
	uint32_t n = 0;

	p[n++] = NVL_HW_MTHD_INC(CE_SUBCH, NVL_HW_SET_OBJECT, 1);
	p[n++] = ce_class;
	p[n++] = NVL_HW_MTHD_INC(CE_SUBCH, NVL_HW_CE_OFFSET_IN_UPPER, 8);
	p[n++] = (uint32_t)(src >> 32);
	p[n++] = (uint32_t)src;
	p[n++] = (uint32_t)(dst >> 32);
	p[n++] = (uint32_t)dst;
	p[n++] = len; /* pitch in */
	p[n++] = len; /* pitch out */
	p[n++] = len;
	p[n++] = 1;
	p[n++] = NVL_HW_MTHD_INC(CE_SUBCH, NVL_HW_CE_LAUNCH_DMA, 1);
	p[n++] = NVL_HW_CE_TRANSFER_NON_PIPELINED | NVL_HW_CE_LAUNCH_FLUSH |
		 NVL_HW_CE_LAUNCH_SRC_PITCH | NVL_HW_CE_LAUNCH_DST_PITCH;
	return n;
}

uint32_t nvl_kit_pb_memset(uint32_t *p, uint32_t ce_class, uint64_t dst,
			   uint32_t pattern, uint32_t len)
{
	uint32_t n = 0;

	p[n++] = NVL_HW_MTHD_INC(CE_SUBCH, NVL_HW_SET_OBJECT, 1);
	p[n++] = ce_class;
	p[n++] = NVL_HW_MTHD_INC(CE_SUBCH, NVL_HW_CE_SET_REMAP_CONST_A, 3);
	p[n++] = pattern;
	p[n++] = 0;
	p[n++] = NVL_HW_CE_REMAP_CONST_A << NVL_HW_CE_REMAP_DST_SHIFT(0) |
		 3u << NVL_HW_CE_REMAP_COMP_SIZE_SHIFT;
	p[n++] = NVL_HW_MTHD_INC(CE_SUBCH, NVL_HW_CE_OFFSET_OUT_UPPER, 2);
	p[n++] = (uint32_t)(dst >> 32);
	p[n++] = (uint32_t)dst;
	p[n++] = NVL_HW_MTHD_INC(CE_SUBCH, NVL_HW_CE_LINE_LENGTH_IN, 2);
	p[n++] = len / 4;
	p[n++] = 1;
	p[n++] = NVL_HW_MTHD_INC(CE_SUBCH, NVL_HW_CE_LAUNCH_DMA, 1);
	p[n++] = NVL_HW_CE_TRANSFER_NON_PIPELINED | NVL_HW_CE_LAUNCH_FLUSH |
		 NVL_HW_CE_LAUNCH_SRC_PITCH | NVL_HW_CE_LAUNCH_DST_PITCH |
		 NVL_HW_CE_LAUNCH_REMAP;
	return n;
}

/* Host semaphore: address, 32-bit payload, then @execute (6 words). */
static uint32_t pb_sem(uint32_t *p, uint64_t va, uint32_t value,
		       uint32_t execute)
{
	uint32_t n = 0;

	p[n++] = NVL_HW_MTHD_INC(0, NVL_HW_SEM_ADDR_LO, 5);
	p[n++] = (uint32_t)va;
	p[n++] = (uint32_t)(va >> 32) & 0xff;
	p[n++] = value;
	p[n++] = 0;
	p[n++] = execute;
	return n;
}

uint32_t nvl_kit_pb_release(uint32_t *p, uint64_t va, uint32_t value)
{
	uint32_t n = pb_sem(p, va, value, NVL_HW_SEM_EXECUTE_RELEASE_WFI_32);

	p[n++] = NVL_HW_MTHD_INC(0, NVL_HW_NON_STALL_INTERRUPT, 1);
	p[n++] = 0;
	return n;
}

uint32_t nvl_kit_pb_reduce_add(uint32_t *p, uint64_t va, uint32_t value)
{
	/* clc56f.h SEM_EXECUTE: OPERATION REDUCTION, REDUCTION IADD,
	 * REDUCTION_FORMAT UNSIGNED, 32-bit payload: an atomic add */
	return pb_sem(p, va, value,
		      NVL_HW_SEM_OP_REDUCTION |
			      NVL_HW_SEM_RED_IADD
				      << NVL_HW_SEM_REDUCTION_SHIFT |
			      NVL_HW_SEM_FORMAT_UNSIGNED);
}

uint32_t nvl_kit_pb_acquire(uint32_t *p, uint64_t va, uint32_t value)
{
	return pb_sem(p, va, value, NVL_HW_SEM_EXECUTE_ACQ_CIRC_GEQ_SWITCH);
}

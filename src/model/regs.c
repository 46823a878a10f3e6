// SPDX-License-Identifier: MIT
/*
 * DOC: BAR0 register dispatch
 *
 * Routes a 32-bit register access to the block that owns the offset
 * (hw/regs.h, and the model-only registers of model/model_regs.h). Unknown offsets read NVL_HW_REG_BAD and ignore writes, the
 * way a real GPU answers a bad PRI access; misaligned offsets likewise.
 */
#include "hw/regs.h"
#include "model/model_regs.h"
#include "model/gsp/gsp.h"
#include "model/priv.h"

uint32_t nvl_model_reg_rd(struct nvl_hw *hw, uint32_t addr);
void nvl_model_reg_wr(struct nvl_hw *hw, uint32_t addr, uint32_t val);

static uint32_t cfg_rd(struct nvl_model *m, uint32_t addr, bool *ok)
{
	const struct nvl_model_profile *p = m->profile;

	*ok = true;
	switch (addr) {
	case NVL_MODEL_REG_CFG_FB_SIZE_MB:
		return (uint32_t)(m->vram_size >> 20);
	case NVL_MODEL_REG_CFG_NUM_CE:
		return p->num_ce;
	case NVL_MODEL_REG_CFG_NUM_CHANNELS:
		return p->num_channels;
	case NVL_MODEL_REG_CFG_MMU_VERSION:
		return p->mmu_version;
	case NVL_MODEL_REG_CFG_PAGE_SIZES:
		return (uint32_t)(p->page_sizes >> 12);
	case NVL_MODEL_REG_CFG_HOST_CLASS:
		return p->host_class;
	case NVL_MODEL_REG_CFG_CE_CLASS:
		return p->ce_class;
	default:
		*ok = false;
		return 0;
	}
}

/*
 * LOCAL_MEMORY_RANGE for @bytes of VRAM: the largest scale whose magnitude
 * fits LOWER_MAG's 6 bits and divides the size exactly; a size no encoding
 * represents exactly reads as the largest encodable size below it.
 */
static uint32_t lmr_encode(uint64_t bytes)
{
	uint64_t mib = bytes >> 20;

	for (unsigned scale = 0; scale <= 15; scale++) {
		uint64_t mag = mib >> scale;

		if (mag <= 0x3f && (mag << scale) == mib)
			return (uint32_t)(mag << 4) | scale;
	}
	for (unsigned scale = 0; scale <= 15; scale++)
		if ((mib >> scale) <= 0x3f)
			return (uint32_t)((mib >> scale) << 4) | scale;
	return (0x3fu << 4) | 15;
}

static bool in(uint32_t addr, uint32_t base, uint32_t size)
{
	return addr >= base && addr - base < size;
}

/* every register but the interrupt status (nvl_model_reg_rd()) */
static __attribute__((noinline)) uint32_t reg_rd_slow(struct nvl_model *m,
						      uint32_t addr)
{
	bool ok = false;
	uint32_t v = 0;

	if (addr & 3)
		return NVL_HW_REG_BAD;
	if (addr == NVL_HW_PMC_BOOT_0) {
		return m->profile->boot0;
	} else if (addr == NVL_HW_PFB_LOCAL_MEMORY_RANGE) {
		return lmr_encode(m->vram_size);
	} else if (addr == NVL_HW_PTIMER_TIME_0) {
		return (uint32_t)nvl_model_time_ns(m);
	} else if (addr == NVL_HW_PTIMER_TIME_1) {
		return (uint32_t)(nvl_model_time_ns(m) >> 32);
	} else if (in(addr, NVL_HW_INTR_STATUS(0), 0x20)) {
		v = nvl_model_intr_rd(m, addr, &ok);
	} else if (addr == NVL_HW_PMC_ENGINE_RESET ||
		   in(addr, NVL_HW_ENGINE_STATUS(0),
		      0x10 * NVL_HW_ENGINE_MAX) ||
		   in(addr, NVL_HW_CHERR_PENDING(0), 4 * 128) ||
		   in(addr, NVL_HW_CHRAM(0), 0x20 * 4096)) {
		v = nvl_model_fifo_rd(m, addr, &ok);
	} else if (in(addr, NVL_MODEL_REG_CFG_FB_SIZE_MB, 0x100)) {
		v = cfg_rd(m, addr, &ok);
	} else if (in(addr, NVL_HW_THERM_TEMP, 0x100) ||
		   in(addr, NVL_HW_PERF_PSTATE, 0x100)) {
		v = nvl_model_pmu_rd(m, addr, &ok);
	} else if (in(addr, NVL_HW_MMU_INVALIDATE_PDB, 0x20) ||
		   addr == NVL_MODEL_REG_MMU_INVALIDATE_HANG) {
		v = nvl_model_hub_rd(m, addr, &ok);
	} else if (in(addr, NVL_HW_FAULT_BUF_LO(0), 0x40) ||
		   addr == NVL_HW_BAR2_BLOCK) {
		v = nvl_model_fault_rd(m, addr, &ok);
	} else if (in(addr, NVL_HW_CE_LCE_INTR_STATUS(0),
		      0x80 * m->profile->num_ce) &&
		   !((addr - NVL_HW_CE_LCE_INTR_STATUS(0)) % 0x80)) {
		return atomic_load(
			&m->ce_intr_status[(addr -
					    NVL_HW_CE_LCE_INTR_STATUS(0)) /
					   0x80]);
	} else if (nvl_model_gsp_owns(addr)) {
		v = nvl_model_gsp_rd(m, addr, &ok);
	}
	return ok ? v : NVL_HW_REG_BAD;
}

/*
 * The interrupt status registers are read by every handler on the line on
 * every completion (three reads per job's interrupt): a lock-free load
 * here, before the dispatch below and its stack frame; the rest as
 * nvl_model_intr_rd() and the other units decode them.
 */
NVL_HOT uint32_t nvl_model_reg_rd(struct nvl_hw *hw, uint32_t addr)
{
	struct nvl_model *m = container_of(hw, struct nvl_model, hw);

	if (addr == NVL_HW_INTR_STATUS(NVL_HW_INTR_TREE_STALL) ||
	    addr == NVL_HW_INTR_STATUS(NVL_HW_INTR_TREE_NONSTALL))
		return atomic_load(
			&m->intr_status[(addr - NVL_HW_INTR_STATUS(0)) / 0x10]);
	return reg_rd_slow(m, addr);
}

static NVL_HOT __attribute__((noinline)) void
reg_wr_slow(struct nvl_model *m, uint32_t addr, uint32_t val)
{
	if (addr & 3)
		return;
	if (in(addr, NVL_HW_INTR_STATUS(0), 0x20))
		nvl_model_intr_wr(m, addr, val);
	else if (addr == NVL_HW_PMC_ENGINE_RESET || addr == NVL_HW_DOORBELL ||
		 in(addr, NVL_HW_ENGINE_STATUS(0), 0x10 * NVL_HW_ENGINE_MAX) ||
		 in(addr, NVL_HW_CHERR_PENDING(0), 4 * 128) ||
		 in(addr, NVL_HW_CHRAM(0), 0x20 * 4096))
		nvl_model_fifo_wr(m, addr, val);
	else if (in(addr, NVL_HW_THERM_TEMP, 0x100) ||
		 in(addr, NVL_HW_PERF_PSTATE, 0x100))
		nvl_model_pmu_wr(m, addr, val);
	else if (in(addr, NVL_HW_MMU_INVALIDATE_PDB, 0x20) ||
		 addr == NVL_MODEL_REG_MMU_INVALIDATE_HANG)
		nvl_model_hub_wr(m, addr, val);
	else if (in(addr, NVL_HW_FAULT_BUF_LO(0), 0x40) ||
		 addr == NVL_HW_BAR2_BLOCK)
		nvl_model_fault_wr(m, addr, val);
	else if (in(addr, NVL_HW_CE_LCE_INTR_STATUS(0),
		    0x80 * m->profile->num_ce) &&
		 !((addr - NVL_HW_CE_LCE_INTR_STATUS(0)) % 0x80))
		atomic_fetch_and(
			&m->ce_intr_status
				 [(addr - NVL_HW_CE_LCE_INTR_STATUS(0)) / 0x80],
			~val); /* write 1 to clear */
	else if (nvl_model_gsp_owns(addr))
		nvl_model_gsp_wr(m, addr, val);
}

NVL_HOT void nvl_model_reg_wr(struct nvl_hw *hw, uint32_t addr, uint32_t val)
{
	struct nvl_model *m = container_of(hw, struct nvl_model, hw);

	/* the status's write-1-to-clear, once per interrupt (intr.c) */
	if (addr == NVL_HW_INTR_STATUS(NVL_HW_INTR_TREE_STALL) ||
	    addr == NVL_HW_INTR_STATUS(NVL_HW_INTR_TREE_NONSTALL)) {
		atomic_fetch_and(
			&m->intr_status[(addr - NVL_HW_INTR_STATUS(0)) / 0x10],
			~val);
		return;
	}
	reg_wr_slow(m, addr, val);
}

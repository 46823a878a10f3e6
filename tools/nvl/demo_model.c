// SPDX-License-Identifier: MIT
/*
 * Demo step "model": power on an Ampere-like model, read its identity,
 * build page tables and a channel with the bring-up kit, copy 64 MiB with
 * the copy engine ending in a semaphore release and a non-stall interrupt,
 * then read engine busy time, clocks, power and temperature.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo.h"
#include "base/time.h"
#include "hw/regs.h"
#include "model/model_regs.h"
#include "kit.h"
#include "model/model.h"

#define MIB (1ull << 20)
#define SEM 0x10000ull

struct demo_irq {
	struct nvl_hw *hw;
	atomic_uint nonstall;
	atomic_uint calls;
	atomic_uint_fast64_t at_ns;
};

static void demo_irq(void *arg)
{
	struct demo_irq *d = arg;
	uint32_t s = nvl_hw_rd32(d->hw, NVL_HW_INTR_STATUS(1));

	nvl_hw_wr32(d->hw, NVL_HW_INTR_STATUS(1), s);
	atomic_fetch_or(&d->nonstall, s);
	if (!atomic_fetch_add(&d->calls, 1))
		atomic_store(&d->at_ns, (uint64_t)nvl_time_ns());
}

static void show_sensors(struct nvl_hw *hw, const char *when)
{
	printf("    %-14s gpc %4u MHz  mem %5u MHz  power %6.1f W  "
	       "temp %5.1f C  busy(ce0) %.1f ms\n",
	       when, nvl_hw_rd32(hw, NVL_HW_CLK_GPC_MHZ),
	       nvl_hw_rd32(hw, NVL_HW_CLK_MEM_MHZ),
	       nvl_hw_rd32(hw, NVL_HW_POWER_MW) / 1000.0,
	       (int32_t)nvl_hw_rd32(hw, NVL_HW_THERM_TEMP) / 1000.0,
	       nvl_hw_rd32(hw, NVL_HW_ENGINE_BUSY_NS_LO(0)) / 1e6);
}

NVL_DEMO_STEP(50, model)
{
	const struct nvl_model_profile *p = nvl_model_profile_find("ga102");
	struct demo_irq irq = {0};
	struct nvl_kit_chan ch;
	struct nvl_kit_vm vm;
	struct nvl_kit kit;
	struct nvl_model *m;
	struct nvl_hw *hw;
	uint32_t pb[32], n, boot0, seq = 0;
	uint64_t len = 64 * MIB;
	int64_t t0, t1;
	int ret;

	ret = nvl_model_create(p, &m);
	if (ret)
		return ret;
	hw = nvl_model_hw(m);
	irq.hw = hw;
	boot0 = nvl_hw_rd32(hw, NVL_HW_PMC_BOOT_0);
	printf("  powered on '%s' (%s): BOOT_0 %#010x = arch %#x impl %#x, "
	       "chip id %#x\n",
	       p->name, p->family, boot0,
	       boot0 >> NVL_HW_BOOT_0_ARCH_SHIFT & NVL_HW_BOOT_0_ARCH_MASK,
	       boot0 >> NVL_HW_BOOT_0_IMPL_SHIFT & NVL_HW_BOOT_0_IMPL_MASK,
	       NVL_HW_BOOT_0_CHIP_ID(boot0));
	printf("  %u MiB VRAM reserved lazily, %u copy engines, %u channels, "
	       "MMU v%u, CE class %#x, firmware %s\n",
	       nvl_hw_rd32(hw, NVL_MODEL_REG_CFG_FB_SIZE_MB),
	       nvl_hw_rd32(hw, NVL_MODEL_REG_CFG_NUM_CE),
	       nvl_hw_rd32(hw, NVL_MODEL_REG_CFG_NUM_CHANNELS),
	       nvl_hw_rd32(hw, NVL_MODEL_REG_CFG_MMU_VERSION),
	       nvl_hw_rd32(hw, NVL_MODEL_REG_CFG_CE_CLASS), p->fw_versions[0]);
	ret = -ENOMEM;
	if (nvl_kit_init(&kit, hw, 256 * MIB) || nvl_kit_vm_init(&kit, &vm) ||
	    nvl_kit_map(&kit, &vm, 0, 0, 256 * MIB, 21, NVL_HW_APERTURE_VIDMEM,
			0) ||
	    nvl_kit_map(&kit, &vm, kit.next & ~(2 * MIB - 1),
			kit.next & ~(2 * MIB - 1),
			kit.vram_size - (kit.next & ~(2 * MIB - 1)), 21,
			NVL_HW_APERTURE_VIDMEM, 0) ||
	    nvl_kit_chan_create(&kit, &vm, 1, 0, 6, 64 << 10, false, &ch))
		goto out;
	printf("  page tables (v2, 2 MiB pages) at PDB %#llx, channel 1 on "
	       "runlist 0 (instance block %#llx)\n",
	       (unsigned long long)vm.pdb, (unsigned long long)ch.inst);
	nvl_hw_set_irq_handler(hw, demo_irq, &irq);
	nvl_hw_wr32(hw, NVL_HW_INTR_EN_SET(1), ~0u);
	show_sensors(hw, "idle");
	{
		uint8_t *fill = malloc(len);

		if (!fill)
			goto out_chan;
		memset(fill, 0xc3, len);
		(void)nvl_hw_vram_write(hw, 64 * MIB, fill, len);
		(void)nvl_hw_vram_write(hw, 128 * MIB, fill, len);
		free(fill);
	}
	/* a few copies to make the engine warm */
	t0 = nvl_time_ns();
	for (int i = 0; i < 8; i++) {
		n = nvl_kit_pb_copy(pb, p->ce_class, 128 * MIB, 64 * MIB,
				    (uint32_t)len);
		n += nvl_kit_pb_release(pb + n, SEM, ++seq);
		if (nvl_kit_push(&ch, pb, n) || nvl_kit_kick(&kit, &ch) ||
		    nvl_kit_wait_u32(&kit, SEM, seq, 5 * NVL_NSEC_PER_SEC)) {
			ret = -ETIME;
			goto out_chan;
		}
	}
	t1 = nvl_time_ns();
	/* idle: every entry taken (GP_GET) and the channel no longer busy */
	(void)nvl_kit_wait_idle(&kit, &ch, NVL_NSEC_PER_SEC);
	printf("  8 CE copies of %llu MiB + semaphore release: %.1f ms "
	       "(%.2f GB/s); semaphore = %u\n",
	       (unsigned long long)(len >> 20), (t1 - t0) / 1e6,
	       8.0 * (double)len / (double)(t1 - t0), seq);
	printf("  non-stall interrupts: %u callbacks for 8 releases (raises "
	       "during a callback coalesce), status bits %#x (engine 0)\n",
	       atomic_load(&irq.calls), atomic_load(&irq.nonstall));
	show_sensors(hw, "after copies");
	nvl_hw_wr32(hw, NVL_HW_PERF_PSTATE, 2);
	show_sensors(hw, "P-state 8");
	ret = 0;
out_chan:
	nvl_hw_set_irq_handler(hw, NULL, NULL);
	nvl_kit_chan_fini(&kit, &ch);
out:
	nvl_model_destroy(m);
	return ret;
}

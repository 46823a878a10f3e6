// SPDX-License-Identifier: MIT
/*
 * DOC: device instance
 *
 * Power-on and power-off of a model device, its VRAM, and the hardware
 * interface (hw/hwif.h) it offers the driver.
 *
 * VRAM is one anonymous MAP_NORESERVE mapping of the profile's size: the
 * kernel backs a page only when it is first written, so a 24 GiB profile
 * costs nothing until used. Reads of untouched VRAM return zero.
 *
 * Blocks, each in its own file: interrupts (intr.c), the IOMMU table
 * (iommu.c), fault buffers (fault.c), register dispatch (regs.c), the hub
 * thread for asynchronous MMU work (hub.c), sensors and clocks (pmu.c), and
 * FIFO/PBDMA/engines (fifo.c, pbdma.c, host.c, ce.c). The MMU is the mmu
 * engineer's (mmu.h).
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/log.h"
#include "base/time.h"
#include "hw/falcon.h"
#include "hw/fault.h"
#include "hw/regs.h"
#include "model/gsp/gsp.h"
#include "model/mmu.h"
#include "model/priv.h"

uint32_t nvl_model_reg_rd(struct nvl_hw *hw, uint32_t addr);
void nvl_model_reg_wr(struct nvl_hw *hw, uint32_t addr, uint32_t val);

static int model_vram_read(struct nvl_hw *hw, uint64_t offset, void *buf,
			   size_t len)
{
	struct nvl_model *m = container_of(hw, struct nvl_model, hw);

	return nvl_model_phys_access(m, NVL_HW_APERTURE_VIDMEM, offset, buf,
				     len, false);
}

static int model_vram_write(struct nvl_hw *hw, uint64_t offset, const void *buf,
			    size_t len)
{
	struct nvl_model *m = container_of(hw, struct nvl_model, hw);

	return nvl_model_phys_access(m, NVL_HW_APERTURE_VIDMEM, offset,
				     (void *)buf, len, true);
}

/* VRAM is host memory: the BAR1 mapping is a pointer into it. */
static void *model_vram_map(struct nvl_hw *hw, uint64_t offset, size_t len)
{
	struct nvl_model *m = container_of(hw, struct nvl_model, hw);

	return nvl_model_phys_ptr(m, offset, len);
}

static int model_dma_map(struct nvl_hw *hw, void *cpu, size_t len,
			 uint64_t *dma_out)
{
	return nvl_model_iommu_map(container_of(hw, struct nvl_model, hw), cpu,
				   len, dma_out);
}

static int model_dma_unmap(struct nvl_hw *hw, uint64_t dma, size_t len)
{
	return nvl_model_iommu_unmap(container_of(hw, struct nvl_model, hw),
				     dma, len);
}

static int model_set_irq_handler(struct nvl_hw *hw, nvl_hw_irq_fn fn, void *arg)
{
	return nvl_model_intr_set_handler(
		container_of(hw, struct nvl_model, hw), fn, arg);
}

static const struct nvl_hw_ops model_hw_ops = {
	.rd32 = nvl_model_reg_rd,
	.wr32 = nvl_model_reg_wr,
	.vram_read = model_vram_read,
	.vram_write = model_vram_write,
	.vram_map = model_vram_map,
	.dma_map = model_dma_map,
	.dma_unmap = model_dma_unmap,
	.set_irq_handler = model_set_irq_handler,
};

#if defined(__SANITIZE_THREAD__)
__attribute__((no_sanitize_thread, noinline)) void
nvl_model_mem_copy(void *dst, const void *src, size_t len)
{
	volatile uint8_t *d = dst;
	const volatile uint8_t *s = src;

	if (!(((uintptr_t)d | (uintptr_t)s | len) & 7)) {
		volatile uint64_t *d8 = dst;
		const volatile uint64_t *s8 = src;

		for (size_t i = 0; i < len / 8; i++)
			d8[i] = s8[i];
		return;
	}
	for (size_t i = 0; i < len; i++)
		d[i] = s[i];
}

/* byte by byte, uninstrumented: a pattern fill by the device */
__attribute__((no_sanitize_thread, noinline)) void
nvl_model_mem_fill(void *dst, size_t len, uint32_t pattern, unsigned phase)
{
	volatile uint8_t *d = dst;

	for (size_t i = 0; i < len; i++)
		d[i] = (uint8_t)(pattern >> (8 * ((phase + i) & 3)));
}
#else
void nvl_model_mem_fill(void *dst, size_t len, uint32_t pattern, unsigned phase)
{
	uint8_t b[4] = {pattern, pattern >> 8, pattern >> 16, pattern >> 24};
	uint8_t *p = dst;

	if (b[0] == b[1] && b[1] == b[2] && b[2] == b[3]) {
		memset(p, b[0], len);
		return;
	}
	for (; len && (phase & 3); len--)
		*p++ = b[phase++ & 3];
	for (; len >= 4; len -= 4, p += 4)
		memcpy(p, b, 4);
	for (size_t i = 0; i < len; i++)
		p[i] = b[i];
}
#endif

int nvl_model_phys_access_slow(struct nvl_model *m, enum nvl_hw_aperture ap,
			       uint64_t pa, void *buf, size_t len, bool write)
{
	uint8_t *p;

	switch (ap) {
	case NVL_HW_APERTURE_VIDMEM:
		p = nvl_model_phys_ptr(m, pa, len);
		if (!p)
			return -EFAULT;
		if (write)
			nvl_model_mem_copy(p, buf, len);
		else
			nvl_model_mem_copy(buf, p, len);
		return 0;
	case NVL_HW_APERTURE_SYS_COH:
	case NVL_HW_APERTURE_SYS_NONCOH:
		return nvl_model_iommu_access(m, pa, buf, len, write);
	default:
		return -EFAULT;
	}
}

NVL_HOT uint64_t nvl_model_time_ns(struct nvl_model *m)
{
	return (uint64_t)(nvl_clock_ns() - m->time_base_ns);
}

static int check_profile(const struct nvl_model_profile *p)
{
	if (!p)
		return nvl_error(-EINVAL, "model: no profile");
	if (!p->vram_size || !NVL_IS_ALIGNED(p->vram_size, 1ull << 21))
		return nvl_error(-EINVAL, "model: %s: VRAM size %#llx", p->name,
				 (unsigned long long)p->vram_size);
	/* one runlist per copy engine and one for compute */
	if (!p->num_ce || p->num_ce >= NVL_HW_ENGINE_MAX)
		return nvl_error(-EINVAL, "model: %s: %u copy engines", p->name,
				 p->num_ce);
	if (!p->num_channels || p->num_channels > 4096)
		return nvl_error(-EINVAL, "model: %s: %u channels", p->name,
				 p->num_channels);
	if (!p->num_pstates || p->num_pstates > NVL_MODEL_MAX_PSTATES)
		return nvl_error(-EINVAL, "model: %s: %u P-states", p->name,
				 p->num_pstates);
	return 0;
}

int nvl_model_create(const struct nvl_model_profile *profile,
		     struct nvl_model **model_out)
{
	struct nvl_model *m;
	int ret;

	ret = check_profile(profile);
	if (ret)
		return ret;
	m = nvl_zalloc(sizeof(*m));
	if (!m)
		return nvl_error(-ENOMEM, "model: no memory for a device");
	m->hw.ops = &model_hw_ops;
	m->profile = profile;
	m->eng = nvl_hw_mmu_engines(profile->boot0 >> NVL_HW_BOOT_0_ARCH_SHIFT &
				    NVL_HW_BOOT_0_ARCH_MASK);
	m->vram_size = profile->vram_size;
	m->time_base_ns = nvl_clock_ns();

	ret = nvl_might_alloc(0);
	if (ret)
		goto fail_vram;
	m->vram = mmap(NULL, m->vram_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m->vram == MAP_FAILED) {
		m->vram = NULL;
		ret = -ENOMEM;
		goto fail_vram;
	}
	ret = nvl_model_intr_init(m);
	if (ret)
		goto fail_intr;
	ret = nvl_model_fault_init(m);
	if (ret)
		goto fail_fault;
	ret = nvl_model_replay_init(m);
	if (ret)
		goto fail_replay;
	ret = nvl_model_iommu_create(m);
	if (ret)
		goto fail_iommu;
	ret = nvl_model_mmu_create(m, &m->mmu);
	if (ret)
		goto fail_mmu;
	ret = nvl_model_pmu_create(m);
	if (ret)
		goto fail_pmu;
	ret = nvl_model_fifo_create(m);
	if (ret)
		goto fail_fifo;
	ret = nvl_model_hub_create(m);
	if (ret)
		goto fail_hub;
	ret = nvl_model_gsp_create(m);
	if (ret)
		goto fail_gsp;
	nvl_dbg(NVL_CAT_MODEL, "model: %s powered on, %llu MiB VRAM",
		profile->name, (unsigned long long)(m->vram_size >> 20));
	*model_out = m;
	return 0;

fail_gsp:
	nvl_model_hub_destroy(m);
fail_hub:
	nvl_model_fifo_destroy(m);
fail_fifo:
	nvl_model_pmu_destroy(m);
fail_pmu:
	nvl_model_mmu_destroy(m->mmu);
fail_mmu:
	nvl_model_iommu_destroy(m);
fail_iommu:
	nvl_model_replay_fini(m);
fail_replay:
	nvl_model_fault_fini(m);
fail_fault:
	nvl_model_intr_fini(m);
fail_intr:
	munmap(m->vram, m->vram_size);
fail_vram:
	nvl_free(m);
	return nvl_error(ret, "model: %s: power-on failed (%d)", profile->name,
			 ret);
}

int nvl_model_power_cycle(struct nvl_model *m)
{
	bool ok;

	if (nvl_model_gsp_rd(m, NVL_HW_PFB_WPR2_ADDR_HI, &ok))
		return -EBUSY;
	/* anonymous private pages: dropped, they read zero again */
	if (madvise(m->vram, m->vram_size, MADV_DONTNEED))
		return -errno;
	return 0;
}

void nvl_model_destroy(struct nvl_model *m)
{
	if (!m)
		return;
	/* parked SM accesses fail: the runlist threads can be joined */
	nvl_model_replay_shutdown(m);
	nvl_model_gsp_destroy(m);
	/* the hub reads engine counters; engines use everything else */
	nvl_model_hub_destroy(m);
	nvl_model_fifo_destroy(m);
	nvl_model_pmu_destroy(m);
	nvl_model_mmu_destroy(m->mmu);
	nvl_model_iommu_destroy(m);
	nvl_model_replay_fini(m);
	nvl_model_fault_fini(m);
	nvl_model_intr_fini(m);
	munmap(m->vram, m->vram_size);
	nvl_free(m);
}

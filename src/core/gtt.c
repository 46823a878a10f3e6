// SPDX-License-Identifier: MIT
/*
 * DOC: GTT on a device
 *
 * The memory manager's host pages (GTT and SYSTEM BOs, and the page pool)
 * come from this provider on a device. Each run of pages is DMA-mapped
 * through the hardware interface (nvl_hw_dma_map: the model's IOMMU) when
 * it is allocated and unmapped when it is given back, so the GPU reaches a
 * GTT BO at its DMA address: the BO's backing reports that address and the
 * device VM writes it with the system-memory aperture (SYS_COH for GTT,
 * SYS_NONCOH for SYSTEM; gmmu.c). The table CPU address -> DMA address is
 * an interval tree under a read-write lock; lookups (page-table writes)
 * only read it and never allocate. Pages the manager keeps in its pool are
 * unmapped when they enter it and mapped again (at a fresh DMA address)
 * when it hands them out (dma_unmap / dma_map), so freed pages are never
 * reachable by the device.
 */
#include <errno.h>
#include <sys/mman.h>

#include "base/alloc.h"
#include "base/log.h"
#include "core/device.h"
#include "hw/hwif.h"
#include "mm/bo.h"
#include "model/model.h"
#include "nv/device.h"

#define GTT_HUGE (2u << 20)

struct gtt_map {
	struct nvl_itree_node node; /* CPU addresses */
	uint64_t dma;
};

static struct nvl_hw *hw_of(struct nvl_device *dev)
{
	return nvl_model_hw(dev->model);
}

/* DMA-map the pages at @p and record the mapping */
static int gtt_dma_map(void *priv, void *p, uint64_t size_B)
{
	struct nvl_device *dev = priv;
	struct gtt_map *m = nvl_zalloc(sizeof(*m));
	int ret;

	if (!m)
		return -ENOMEM;
	ret = nvl_hw_dma_map(hw_of(dev), p, size_B, &m->dma);
	if (ret) {
		nvl_free(m);
		return nvl_error(ret, "gtt: DMA map of %llu bytes: %d",
				 (unsigned long long)size_B, ret);
	}
	m->node.start = (uint64_t)(uintptr_t)p;
	m->node.last = m->node.start + size_B - 1;
	pthread_rwlock_wrlock(&dev->gtt_lock);
	nvl_itree_insert(&dev->gtt_maps, &m->node);
	pthread_rwlock_unlock(&dev->gtt_lock);
	return 0;
}

/* undo gtt_dma_map() (no-op for pages not mapped) */
static void gtt_dma_unmap(void *priv, void *ptr, uint64_t size_B)
{
	struct nvl_device *dev = priv;
	uint64_t a = (uint64_t)(uintptr_t)ptr;
	struct nvl_itree_node *n;

	pthread_rwlock_wrlock(&dev->gtt_lock);
	n = nvl_itree_first(&dev->gtt_maps, a, a);
	if (n)
		nvl_itree_remove(&dev->gtt_maps, n);
	pthread_rwlock_unlock(&dev->gtt_lock);
	if (n) {
		struct gtt_map *m = container_of(n, struct gtt_map, node);

		(void)nvl_hw_dma_unmap(hw_of(dev), m->dma, size_B);
		nvl_free(m);
	}
}

static int gtt_pages_alloc(void *priv, uint64_t size_B, void **ptr_out)
{
	void *p;
	int ret;

	ret = nvl_mm_anon_pages_alloc(NULL, size_B, &p);
	if (ret)
		return ret;
	/*
	 * Huge pages where they fit, populated at once as TTM populates a
	 * tt's pages: a move writes a GTT BO whole, and the copy engine
	 * streams through 2 MiB pages instead of faulting and missing the
	 * TLB on every 4 KiB (advice only: either may fail harmlessly).
	 */
	if (size_B >= GTT_HUGE)
		(void)madvise(p, size_B, MADV_HUGEPAGE);
	(void)madvise(p, size_B, MADV_POPULATE_WRITE);
	ret = gtt_dma_map(priv, p, size_B);
	if (ret) {
		nvl_mm_anon_pages_free(NULL, p, size_B);
		return ret;
	}
	*ptr_out = p;
	return 0;
}

static void gtt_pages_free(void *priv, void *ptr, uint64_t size_B)
{
	gtt_dma_unmap(priv, ptr, size_B);
	nvl_mm_anon_pages_free(NULL, ptr, size_B);
}

static uint64_t gtt_dma_addr(void *priv, const void *ptr)
{
	struct nvl_device *dev = priv;
	uint64_t a = (uint64_t)(uintptr_t)ptr, dma = 0;
	struct nvl_itree_node *n;

	pthread_rwlock_rdlock(&dev->gtt_lock);
	n = nvl_itree_first(&dev->gtt_maps, a, a);
	if (n)
		dma = container_of(n, struct gtt_map, node)->dma +
		      (a - n->start);
	pthread_rwlock_unlock(&dev->gtt_lock);
	return dma;
}

/* the memory manager's VRAM is the device's, through its BAR */
static int gtt_vram_map(void *priv, uint64_t size_B, void **base_out)
{
	struct nvl_device *dev = priv;

	if (nvl_might_alloc(0))
		return -ENOMEM;
	*base_out = nvl_hw_vram_map(hw_of(dev), dev->nv->vram_base, size_B);
	return *base_out ? 0 : -ENOMEM;
}

static void gtt_vram_unmap(void *priv, void *base, uint64_t size_B)
{
}

const struct nvl_mm_mem_ops nvl_core_gtt_ops = {
	.vram_map = gtt_vram_map,
	.vram_unmap = gtt_vram_unmap,
	.pages_alloc = gtt_pages_alloc,
	.pages_free = gtt_pages_free,
	.dma_addr = gtt_dma_addr,
	.dma_map = gtt_dma_map,
	.dma_unmap = gtt_dma_unmap,
};

int nvl_core_gtt_init(struct nvl_device *dev)
{
	nvl_itree_init(&dev->gtt_maps);
	return pthread_rwlock_init(&dev->gtt_lock, NULL) ? -ENOMEM : 0;
}

void nvl_core_gtt_fini(struct nvl_device *dev)
{
	pthread_rwlock_destroy(&dev->gtt_lock);
}

size_t nvl_core_gtt_count(struct nvl_device *dev)
{
	size_t n;

	pthread_rwlock_rdlock(&dev->gtt_lock);
	n = nvl_itree_count(&dev->gtt_maps);
	pthread_rwlock_unlock(&dev->gtt_lock);
	return n;
}

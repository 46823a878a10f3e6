// SPDX-License-Identifier: MIT
/*
 * DOC: IOMMU table
 *
 * The GPU reaches system memory only through DMA addresses that the driver
 * obtained with dma_map: each mapping is a run of whole 4 KiB pages of the
 * caller's memory, placed at a fresh DMA address (a bump allocator starting
 * at 4 GiB, never reused, leaving an unmapped guard page between runs).
 * An access to a DMA address outside every mapping fails with -EFAULT, as
 * an IOMMU fault would. The table is an interval tree under a read-write
 * lock: engine accesses take it shared, and hold it while copying so an
 * unmap cannot free the pages under a running copy.
 */
#include <errno.h>
#include <string.h>

#include "base/alloc.h"
#include "base/log.h"
#include "model/priv.h"

#define IOMMU_PAGE 4096ull
#define IOMMU_BASE (1ull << 32)
#define IOMMU_LIMIT (1ull << 46) /* ADDRESS_SYS holds 46-bit addresses */

struct nvl_model_dma_map {
	struct nvl_itree_node node;
	uint8_t *cpu;
};

int nvl_model_iommu_create(struct nvl_model *m)
{
	struct nvl_model_iommu *io = nvl_zalloc(sizeof(*io));

	if (!io)
		return -ENOMEM;
	pthread_rwlock_init(&io->lock, NULL);
	nvl_itree_init(&io->tree);
	io->next_dma = IOMMU_BASE;
	m->iommu = io;
	return 0;
}

void nvl_model_iommu_destroy(struct nvl_model *m)
{
	struct nvl_model_iommu *io = m->iommu;
	struct nvl_itree_node *n;

	if (!io)
		return;
	while ((n = nvl_itree_min(&io->tree))) {
		nvl_itree_remove(&io->tree, n);
		nvl_free(container_of(n, struct nvl_model_dma_map, node));
	}
	pthread_rwlock_destroy(&io->lock);
	nvl_free(io);
	m->iommu = NULL;
}

int nvl_model_iommu_map(struct nvl_model *m, void *cpu, size_t len,
			uint64_t *dma_out)
{
	struct nvl_model_iommu *io = m->iommu;
	struct nvl_model_dma_map *map;

	if (!len || !NVL_IS_ALIGNED(len, IOMMU_PAGE) ||
	    !NVL_IS_ALIGNED((uintptr_t)cpu, IOMMU_PAGE))
		return nvl_error(-EINVAL,
				 "model: dma_map of %zu bytes at %p: not whole "
				 "pages",
				 len, cpu);
	map = nvl_malloc(sizeof(*map));
	if (!map)
		return -ENOMEM;
	map->cpu = cpu;
	pthread_rwlock_wrlock(&io->lock);
	if (len > IOMMU_LIMIT - IOMMU_PAGE - io->next_dma) {
		pthread_rwlock_unlock(&io->lock);
		nvl_free(map);
		return nvl_error(-ENOMEM, "model: DMA address space exhausted");
	}
	map->node.start = io->next_dma;
	map->node.last = io->next_dma + len - 1;
	io->next_dma += len + IOMMU_PAGE; /* guard page */
	nvl_itree_insert(&io->tree, &map->node);
	io->nr_maps++;
	pthread_rwlock_unlock(&io->lock);
	*dma_out = map->node.start;
	return 0;
}

int nvl_model_iommu_unmap(struct nvl_model *m, uint64_t dma, size_t len)
{
	struct nvl_model_iommu *io = m->iommu;
	struct nvl_itree_node *n;

	if (!len)
		return nvl_error(-ENOENT, "model: dma_unmap of 0 bytes");
	pthread_rwlock_wrlock(&io->lock);
	n = nvl_itree_first(&io->tree, dma, dma);
	if (!n || n->start != dma || n->last != dma + len - 1) {
		pthread_rwlock_unlock(&io->lock);
		return nvl_error(-ENOENT,
				 "model: dma_unmap %#llx+%zu: no such mapping",
				 (unsigned long long)dma, len);
	}
	nvl_itree_remove(&io->tree, n);
	io->nr_maps--;
	pthread_rwlock_unlock(&io->lock);
	nvl_free(container_of(n, struct nvl_model_dma_map, node));
	return 0;
}

int nvl_model_iommu_access(struct nvl_model *m, uint64_t dma, void *buf,
			   size_t len, bool write)
{
	struct nvl_model_iommu *io = m->iommu;
	struct nvl_itree_node *n;
	uint64_t last;
	uint8_t *b = buf;

	if (!len)
		return 0;
	if (dma > UINT64_MAX - (len - 1))
		return -EFAULT;
	last = dma + len - 1;
	pthread_rwlock_rdlock(&io->lock);
	/* every byte must be covered: mappings are disjoint and never touch
	 * (guard pages), so one mapping must hold the whole range */
	n = nvl_itree_first(&io->tree, dma, dma);
	if (!n || last > n->last) {
		pthread_rwlock_unlock(&io->lock);
		return -EFAULT;
	}
	{
		uint8_t *p =
			container_of(n, struct nvl_model_dma_map, node)->cpu +
			(dma - n->start);

		if (write)
			nvl_model_mem_copy(p, b, len);
		else
			nvl_model_mem_copy(b, p, len);
	}
	pthread_rwlock_unlock(&io->lock);
	return 0;
}

/*
 * CPU address of physical byte @pa of aperture @ap and the bytes reachable
 * from it without a gap (*@avail); NULL when @pa is not reachable. The
 * IOMMU lock is held by the caller for system apertures.
 */
static uint8_t *phys_resolve(struct nvl_model *m, enum nvl_hw_aperture ap,
			     uint64_t pa, uint64_t *avail)
{
	struct nvl_itree_node *n;

	switch (ap) {
	case NVL_HW_APERTURE_VIDMEM:
		if (pa >= m->vram_size)
			return NULL;
		*avail = m->vram_size - pa;
		return m->vram + pa;
	case NVL_HW_APERTURE_SYS_COH:
	case NVL_HW_APERTURE_SYS_NONCOH:
		n = nvl_itree_first(&m->iommu->tree, pa, pa);
		if (!n)
			return NULL;
		*avail = n->last - pa + 1;
		return container_of(n, struct nvl_model_dma_map, node)->cpu +
		       (pa - n->start);
	default:
		return NULL;
	}
}

static bool ap_sys(enum nvl_hw_aperture ap)
{
	return ap == NVL_HW_APERTURE_SYS_COH ||
	       ap == NVL_HW_APERTURE_SYS_NONCOH;
}

int nvl_model_phys_copy(struct nvl_model *m, enum nvl_hw_aperture dap,
			uint64_t da, enum nvl_hw_aperture sap, uint64_t sa,
			uint64_t len)
{
	bool locked = ap_sys(dap) || ap_sys(sap);
	int ret = 0;

	if (locked)
		pthread_rwlock_rdlock(&m->iommu->lock);
	while (len) {
		uint64_t sn = 0, dn = 0, k;
		uint8_t *s = phys_resolve(m, sap, sa, &sn);
		uint8_t *d = phys_resolve(m, dap, da, &dn);

		if (!s || !d) {
			ret = -EFAULT;
			break;
		}
		k = NVL_MIN(len, NVL_MIN(sn, dn));
		if (s + k <= d || d + k <= s)
			nvl_model_mem_copy(d, s, (size_t)k);
		else
			memmove(d, s, (size_t)k);
		sa += k;
		da += k;
		len -= k;
	}
	if (locked)
		pthread_rwlock_unlock(&m->iommu->lock);
	return ret;
}

int nvl_model_phys_fill(struct nvl_model *m, enum nvl_hw_aperture ap,
			uint64_t pa, uint32_t pattern, uint64_t len)
{
	bool locked = ap_sys(ap);
	uint64_t done = 0;
	int ret = 0;

	if (locked)
		pthread_rwlock_rdlock(&m->iommu->lock);
	while (done < len) {
		uint64_t avail = 0, k;
		uint8_t *d = phys_resolve(m, ap, pa + done, &avail);

		if (!d) {
			ret = -EFAULT;
			break;
		}
		k = NVL_MIN(len - done, avail);
		nvl_model_mem_fill(d, (size_t)k, pattern, (unsigned)(done & 3));
		done += k;
	}
	if (locked)
		pthread_rwlock_unlock(&m->iommu->lock);
	return ret;
}

int nvl_model_phys_visit(struct nvl_model *m, enum nvl_hw_aperture ap,
			 uint64_t pa, size_t len,
			 void (*fn)(void *arg, uint8_t *p, size_t n), void *arg)
{
	bool locked = ap_sys(ap);
	int ret = 0;

	if (locked)
		pthread_rwlock_rdlock(&m->iommu->lock);
	while (len) {
		uint64_t avail = 0;
		uint8_t *p = phys_resolve(m, ap, pa, &avail);
		size_t k;

		if (!p) {
			ret = -EFAULT;
			break;
		}
		k = (size_t)NVL_MIN((uint64_t)len, avail);
		fn(arg, p, k);
		pa += k;
		len -= k;
	}
	if (locked)
		pthread_rwlock_unlock(&m->iommu->lock);
	return ret;
}

int nvl_model_phys_atomic32(struct nvl_model *m, enum nvl_hw_aperture ap,
			    uint64_t pa, uint32_t *val, bool write)
{
	bool locked = ap_sys(ap);
	uint64_t avail = 0;
	uint32_t *p;
	int ret = 0;

	if (pa % 4)
		return -EFAULT;
	if (locked)
		pthread_rwlock_rdlock(&m->iommu->lock);
	/* VRAM and DMA mappings are page-aligned: so is the word in memory */
	p = (uint32_t *)phys_resolve(m, ap, pa, &avail);
	if (!p || avail < 4)
		ret = -EFAULT;
	else if (write)
		__atomic_store_n(p, *val, __ATOMIC_RELEASE);
	else
		*val = __atomic_load_n(p, __ATOMIC_ACQUIRE);
	if (locked)
		pthread_rwlock_unlock(&m->iommu->lock);
	return ret;
}

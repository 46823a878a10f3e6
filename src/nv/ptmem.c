// SPDX-License-Identifier: MIT
/*
 * DOC: page-table memory in VRAM
 *
 * A bitmap of 4 KiB pages over a VRAM window, searched first-fit from the
 * lowest page that may be free, plus sub-allocation of 256-byte pieces (big page tables)
 * from pages kept on a stack of partly used pages. Tables are written in
 * place through the device's CPU mapping of VRAM (nvl_hw_vram_map()), or
 * copied through its VRAM aperture (nvl_hw_vram_write()) when it has none.
 *
 * All bookkeeping is allocated at creation; alloc never allocates host
 * memory, so it can only fail when the window is full.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "base/alloc.h"
#include "base/log.h"
#include "hw/hwif.h"
#include "nv/ptmem.h"

#define PAGE 4096u
#define SUB 256u
#define SUBS (PAGE / SUB)

struct nvl_nv_ptmem {
	struct nvl_hw *hw;
	pthread_mutex_t lock;
	uint64_t base;
	uint32_t npages;
	uint32_t hint;
	uint32_t used;
	uint64_t *bitmap; /* 1 = page in use */
	uint16_t *sub; /* per page: used 256-byte pieces (0 = whole page) */
	uint8_t *in_stack;
	uint32_t *stack; /* pages with free pieces */
	uint32_t nstack;
};

/**
 * nvl_nv_ptmem_create() - see ptmem.h.
 */
int nvl_nv_ptmem_create(struct nvl_hw *hw, uint64_t base, uint64_t size,
			struct nvl_nv_ptmem **out)
{
	struct nvl_nv_ptmem *pm;
	uint64_t n = size / PAGE;

	if (!size || base % PAGE || size % PAGE || n > UINT32_MAX)
		return nvl_error(
			-EINVAL, "ptmem: bad VRAM window [%#llx, +%#llx)",
			(unsigned long long)base, (unsigned long long)size);
	pm = nvl_zalloc(sizeof(*pm));
	if (!pm)
		return -ENOMEM;
	pm->bitmap = nvl_calloc((n + 63) / 64, sizeof(uint64_t));
	pm->sub = nvl_calloc(n, sizeof(uint16_t));
	pm->in_stack = nvl_calloc(n, 1);
	pm->stack = nvl_calloc(n, sizeof(uint32_t));
	if (!pm->bitmap || !pm->sub || !pm->in_stack || !pm->stack) {
		nvl_nv_ptmem_destroy(pm);
		return -ENOMEM;
	}
	pm->hw = hw;
	pm->base = base;
	pm->npages = (uint32_t)n;
	pthread_mutex_init(&pm->lock, NULL);
	*out = pm;
	return 0;
}

/**
 * nvl_nv_ptmem_destroy() - see ptmem.h.
 */
void nvl_nv_ptmem_destroy(struct nvl_nv_ptmem *pm)
{
	if (!pm)
		return;
	if (pm->npages)
		pthread_mutex_destroy(&pm->lock);
	nvl_free(pm->bitmap);
	nvl_free(pm->sub);
	nvl_free(pm->in_stack);
	nvl_free(pm->stack);
	nvl_free(pm);
}

/**
 * nvl_nv_ptmem_used() - see ptmem.h.
 */
uint64_t nvl_nv_ptmem_used(struct nvl_nv_ptmem *pm)
{
	uint64_t v;

	pthread_mutex_lock(&pm->lock);
	v = (uint64_t)pm->used * PAGE;
	pthread_mutex_unlock(&pm->lock);
	return v;
}

/* Lowest free page (first fit keeps tables packed and cache-warm). */
static int page_alloc(struct nvl_nv_ptmem *pm, uint32_t *out)
{
	uint32_t words = (pm->npages + 63) / 64;

	for (uint32_t w = pm->hint / 64; w < words; w++) {
		uint64_t free = ~pm->bitmap[w];
		uint32_t p;

		if (!free)
			continue;
		p = w * 64 + (uint32_t)__builtin_ctzll(free);
		if (p >= pm->npages)
			break;
		pm->bitmap[w] |= 1ull << (p % 64);
		pm->hint = p;
		pm->used++;
		*out = p;
		return 0;
	}
	return -ENOMEM;
}

static void page_free(struct nvl_nv_ptmem *pm, uint32_t p)
{
	pm->bitmap[p / 64] &= ~(1ull << (p % 64));
	pm->used--;
	if (p < pm->hint)
		pm->hint = p;
}

/* One allocation, pm->lock held. */
static int alloc_locked(struct nvl_nv_ptmem *pm, uint32_t size, uint32_t align,
			uint64_t *addr_out)
{
	uint32_t p;
	unsigned int s;

	if (size > SUB || align > SUB) {
		if (page_alloc(pm, &p))
			return -ENOMEM;
		*addr_out = pm->base + (uint64_t)p * PAGE;
		return 0;
	}
	if (!pm->nstack) {
		if (page_alloc(pm, &p))
			return -ENOMEM;
		pm->stack[pm->nstack++] = p;
		pm->in_stack[p] = 1;
	}
	p = pm->stack[pm->nstack - 1];
	s = (unsigned int)__builtin_ctz(~pm->sub[p] & 0xffffu);
	pm->sub[p] |= (uint16_t)(1u << s);
	if (pm->sub[p] == 0xffff) {
		pm->nstack--;
		pm->in_stack[p] = 0;
	}
	*addr_out = pm->base + (uint64_t)p * PAGE + s * SUB;
	return 0;
}

/* One free, pm->lock held. */
static void free_locked(struct nvl_nv_ptmem *pm, uint64_t addr, uint32_t size)
{
	uint64_t off = addr - pm->base;
	uint32_t p = (uint32_t)(off / PAGE);

	if (size > SUB) {
		page_free(pm, p);
		return;
	}
	pm->sub[p] &= (uint16_t) ~(1u << ((off % PAGE) / SUB));
	if (!pm->sub[p]) {
		if (pm->in_stack[p]) {
			/* remove from the stack: swap with the top */
			for (uint32_t i = 0; i < pm->nstack; i++) {
				if (pm->stack[i] == p) {
					pm->stack[i] = pm->stack[--pm->nstack];
					break;
				}
			}
			pm->in_stack[p] = 0;
		}
		page_free(pm, p);
	} else if (!pm->in_stack[p]) {
		pm->stack[pm->nstack++] = p;
		pm->in_stack[p] = 1;
	}
}

/* sizes up to a page, alignments a power of two up to a page (0 is none) */
static int bad_request(uint32_t size, uint32_t align)
{
	if (!size || size > PAGE || !align || align > PAGE || PAGE % align)
		return nvl_error(-EINVAL,
				 "ptmem: no table of %u bytes aligned to %u",
				 size, align);
	return 0;
}

static int ptmem_alloc(void *priv, uint32_t size, uint32_t align,
		       uint64_t *addr_out)
{
	struct nvl_nv_ptmem *pm = priv;
	int ret;

	ret = bad_request(size, align);
	if (ret)
		return ret;
	pthread_mutex_lock(&pm->lock);
	ret = alloc_locked(pm, size, align, addr_out);
	pthread_mutex_unlock(&pm->lock);
	return ret;
}

/* Many tables under one lock, all or nothing. */
static int ptmem_alloc_many(void *priv, uint32_t size, uint32_t align,
			    unsigned int n, uint64_t *addrs_out)
{
	struct nvl_nv_ptmem *pm = priv;
	int ret = bad_request(size, align);

	if (ret)
		return ret;
	pthread_mutex_lock(&pm->lock);
	for (unsigned int i = 0; i < n; i++) {
		if (alloc_locked(pm, size, align, &addrs_out[i])) {
			while (i--)
				free_locked(pm, addrs_out[i], size);
			pthread_mutex_unlock(&pm->lock);
			return -ENOMEM;
		}
	}
	pthread_mutex_unlock(&pm->lock);
	return 0;
}

static void ptmem_free(void *priv, uint64_t addr, uint32_t size)
{
	struct nvl_nv_ptmem *pm = priv;

	if (NVL_NEVER(addr < pm->base ||
		      (addr - pm->base) / PAGE >= pm->npages))
		return;
	pthread_mutex_lock(&pm->lock);
	free_locked(pm, addr, size);
	pthread_mutex_unlock(&pm->lock);
}

static void ptmem_write(void *priv, uint64_t addr, const void *buf, size_t len)
{
	struct nvl_nv_ptmem *pm = priv;

	if (nvl_hw_vram_write(pm->hw, addr, buf, len))
		nvl_err(NVL_CAT_NV, "ptmem: VRAM write at %#llx failed",
			(unsigned long long)addr);
}

static void *ptmem_map(void *priv, uint64_t addr, uint32_t size)
{
	struct nvl_nv_ptmem *pm = priv;

	return nvl_hw_vram_map(pm->hw, addr, size);
}

const struct nvl_pt_mem_ops nvl_nv_ptmem_ops = {
	.alloc = ptmem_alloc,
	.alloc_many = ptmem_alloc_many,
	.free = ptmem_free,
	.write = ptmem_write,
	.map = ptmem_map,
};

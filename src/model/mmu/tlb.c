// SPDX-License-Identifier: MIT
/*
 * DOC: the model's TLBs
 *
 * Each address space (keyed by PDB address, aperture and format version)
 * that the engines use gets a TLB in one of MMU_VM_SLOTS slots; when all
 * are taken the least recently used slot is recycled (its cached
 * translations are simply lost, as a capacity eviction would lose them).
 *
 * A TLB holds one set-associative array per leaf size (4 KiB, 64 KiB,
 * 2 MiB, 512 MiB; geometry in mmu_internal.h). Every walk result is
 * cached, faults and sparse results included ("negative caching"): after
 * mapping a page the driver must invalidate just as after unmapping one.
 * Entries change only through fills (after a walk) and invalidation; the
 * page tables themselves are never re-read for a cached address. A full
 * flush empties only the sets a fill touched since the last one (a bitmap
 * per TLB): the driver flushes a whole VM at every channel create and free,
 * and a fresh channel's job fills a handful of sets of the 116.
 *
 * All functions here run with mmu->lock held.
 */
#include <string.h>

#include "base/compiler.h"
#include "hw/mmu.h"
#include "model/mmu/mmu_internal.h"

struct tlb_class {
	unsigned int shift;
	unsigned int sets; /* power of two */
	unsigned int first; /* first set of this class */
};

static const struct tlb_class classes[TLB_CLASSES] = {
	{NVL_HW_MMU_SHIFT_4K, 64, 0},
	{NVL_HW_MMU_SHIFT_64K, 32, 64},
	{NVL_HW_MMU_SHIFT_2M, 16, 96},
	{NVL_HW_MMU_SHIFT_512M, 4, 112},
};

/* Empty every set of @t that a fill touched since the last time. */
static void tlb_clear(struct tlb *t, bool keep_walk)
{
	if (!keep_walk)
		memset(t->pd0, 0, sizeof(t->pd0));
	for (unsigned int w = 0; w < NVL_ARRAY_SIZE(t->filled); w++) {
		while (t->filled[w]) {
			unsigned int set =
				w * 64 + __builtin_ctzll(t->filled[w]);

			memset(&t->e[set * TLB_WAYS], 0,
			       TLB_WAYS * sizeof(t->e[0]));
			t->victim[set] = 0;
			t->filled[w] &= t->filled[w] - 1;
		}
	}
}

static int class_of(unsigned int shift)
{
	for (int c = 0; c < TLB_CLASSES; c++)
		if (classes[c].shift == shift)
			return c;
	return -1;
}

/**
 * nvl_model_tlb_slot() - the TLB slot of @ctx, claiming one (and
 * recycling the least recently used) when it has none.
 * Return: the slot, never NULL.
 */
struct vm_slot *nvl_model_tlb_slot(struct nvl_model_mmu *mmu,
				   const struct nvl_model_vmctx *ctx)
{
	struct vm_slot *s = mmu->last, *victim = NULL;

	mmu->clock++;
	if (s && s->used && s->pdb == ctx->pdb &&
	    s->aperture == ctx->aperture && s->version == ctx->version) {
		s->last_use = mmu->clock;
		return s;
	}
	for (unsigned int i = 0; i < MMU_VM_SLOTS; i++) {
		s = &mmu->slot[i];
		if (!s->used) {
			if (!victim || victim->used)
				victim = s;
			continue;
		}
		if (s->pdb == ctx->pdb && s->aperture == ctx->aperture &&
		    s->version == ctx->version)
			goto found;
		if (!victim || (victim->used && s->last_use < victim->last_use))
			victim = s;
	}
	s = victim;
	tlb_clear(&s->tlb, false);
	s->used = true;
	s->pdb = ctx->pdb;
	s->aperture = ctx->aperture;
	s->version = ctx->version;
found:
	s->last_use = mmu->clock;
	mmu->last = s;
	return s;
}

static void unpack(const struct tlb_entry *e, unsigned int shift, uint64_t va,
		   struct nvl_model_xlate *x)
{
	uint32_t info = e->info;

	memset(x, 0, sizeof(*x));
	x->state = (info >> TI_STATE_SHIFT) & 3;
	x->fault_type = (info >> TI_FAULT_SHIFT) & 0x1f;
	x->page_shift = shift;
	x->aperture = (info >> TI_AP_SHIFT) & 3;
	x->read_only = info & TI_RO;
	x->privileged = info & TI_PRIV;
	x->atomic_disable = info & TI_NOATOMIC;
	x->volatile_ = info & TI_VOL;
	x->kind = (info >> TI_KIND_SHIFT) & 0xff;
	if (x->state == NVL_MODEL_XLATE_MAPPED)
		x->pa = e->base | (va & ((1ull << shift) - 1));
	x->tlb_hit = true;
}

/**
 * nvl_model_tlb_lookup() - find a cached result for @va.
 * Return: true and *@out on a hit.
 */
bool nvl_model_tlb_lookup(struct vm_slot *s, uint64_t va,
			  struct nvl_model_xlate *out)
{
	for (int c = 0; c < TLB_CLASSES; c++) {
		const struct tlb_class *k = &classes[c];
		uint64_t tag = (va >> k->shift) + 1;
		unsigned int set =
			k->first + (unsigned int)(tag & (k->sets - 1));
		const struct tlb_entry *e = &s->tlb.e[set * TLB_WAYS];

		/* a set no fill touched since the last full flush is empty */
		if (!(s->tlb.filled[set / 64] & 1ull << (set % 64)))
			continue;
		for (unsigned int w = 0; w < TLB_WAYS; w++) {
			if (e[w].tag == tag) {
				unpack(&e[w], k->shift, va, out);
				return true;
			}
		}
	}
	return false;
}

/**
 * nvl_model_tlb_insert() - cache the walk result @x for @va.
 */
void nvl_model_tlb_insert(struct nvl_model_mmu *mmu, struct vm_slot *s,
			  uint64_t va, const struct nvl_model_xlate *x)
{
	int c = class_of(x->page_shift);
	const struct tlb_class *k;
	struct tlb_entry *e;
	uint64_t tag;
	unsigned int set, way;

	if (c < 0)
		return;
	k = &classes[c];
	tag = (va >> k->shift) + 1;
	set = k->first + (unsigned int)(tag & (k->sets - 1));
	e = &s->tlb.e[set * TLB_WAYS];
	s->tlb.filled[set / 64] |= 1ull << (set % 64);
	for (way = 0; way < TLB_WAYS; way++)
		if (!e[way].tag)
			break;
	if (way == TLB_WAYS) {
		way = s->tlb.victim[set]++ % TLB_WAYS;
		mmu->stats.evictions++;
	}
	e[way].tag = tag;
	e[way].base = x->state == NVL_MODEL_XLATE_MAPPED
			      ? x->pa & ~((1ull << k->shift) - 1)
			      : 0;
	e[way].info =
		(uint32_t)x->state << TI_STATE_SHIFT |
		(x->fault_type & 0x1f) << TI_FAULT_SHIFT |
		((uint32_t)x->aperture & 3) << TI_AP_SHIFT |
		(x->read_only ? TI_RO : 0) | (x->privileged ? TI_PRIV : 0) |
		(x->atomic_disable ? TI_NOATOMIC : 0) |
		(x->volatile_ ? TI_VOL : 0) | (x->kind & 0xff) << TI_KIND_SHIFT;
}

/**
 * nvl_model_tlb_flush() - drop every entry of @s overlapping
 * [@va, @va + @range); @range 0 drops everything; the walk cache too
 * unless @keep_walk.
 */
void nvl_model_tlb_flush(struct vm_slot *s, uint64_t va, uint64_t range,
			 bool keep_walk)
{
	uint64_t last = va + range - 1;

	if (!range || last < va) {
		tlb_clear(&s->tlb, keep_walk);
		return;
	}
	/* a ranged flush may follow a directory change too */
	if (!keep_walk)
		memset(s->tlb.pd0, 0, sizeof(s->tlb.pd0));
	for (int c = 0; c < TLB_CLASSES; c++) {
		const struct tlb_class *k = &classes[c];
		uint64_t lo = (va >> k->shift) + 1, hi = (last >> k->shift) + 1;
		struct tlb_entry *e = &s->tlb.e[k->first * TLB_WAYS];
		unsigned int n = k->sets * TLB_WAYS;

		if (hi - lo < k->sets) {
			/* fewer pages than sets: only their sets hold them */
			for (uint64_t t = lo; t <= hi; t++) {
				struct tlb_entry *w =
					&e[(t & (k->sets - 1)) * TLB_WAYS];

				for (unsigned int i = 0; i < TLB_WAYS; i++)
					if (w[i].tag == t)
						w[i].tag = 0;
			}
			continue;
		}
		for (unsigned int i = 0; i < n; i++)
			if (e[i].tag >= lo && e[i].tag <= hi)
				e[i].tag = 0;
	}
}

/**
 * nvl_model_tlb_pd0_lookup() - the walk cache's entry for @va's region.
 * Return: the entry, or NULL.
 */
const struct pd0_ref *nvl_model_tlb_pd0_lookup(struct vm_slot *s, uint64_t va)
{
	uint64_t tag = (va >> NVL_HW_MMU_SHIFT_512M) + 1;

	for (unsigned int i = 0; i < WALK_CACHE_ENTRIES; i++)
		if (s->tlb.pd0[i].tag == tag)
			return &s->tlb.pd0[i];
	return NULL;
}

/**
 * nvl_model_tlb_pd0_insert() - cache @r (round robin), unless empty.
 */
void nvl_model_tlb_pd0_insert(struct vm_slot *s, const struct pd0_ref *r)
{
	if (r->tag)
		s->tlb.pd0[s->tlb.pd0_next++ % WALK_CACHE_ENTRIES] = *r;
}

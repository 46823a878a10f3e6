/* SPDX-License-Identifier: MIT */
/*
 * Model MMU internals shared by walk.c, tlb.c and access.c.
 */
#ifndef NVL_MODEL_MMU_INTERNAL_H
#define NVL_MODEL_MMU_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "model/mmu.h"

/*
 * TLB geometry, per VM: one set-associative array per leaf size.
 *   4 KiB:   64 sets x 8 ways = 512 entries
 *   64 KiB:  32 sets x 8 ways = 256 entries
 *   2 MiB:   16 sets x 8 ways = 128 entries
 *   512 MiB:  4 sets x 8 ways =  32 entries
 * Set index = low bits of (va >> page_shift); victim = round robin per set.
 * Results from directory levels above PD1 are cached at 512 MiB.
 */
#define TLB_CLASSES 4
#define TLB_WAYS 8
#define TLB_ENTRIES ((64 + 32 + 16 + 4) * TLB_WAYS)
#define TLB_SETS_TOTAL (64 + 32 + 16 + 4)

/* How many address spaces have a TLB at once (least recently used goes). */
#define MMU_VM_SLOTS 32

/* info field of a TLB entry */
#define TI_STATE_SHIFT 0 /* 1:0 enum nvl_model_xlate_state */
#define TI_FAULT_SHIFT 2 /* 6:2 fault type */
#define TI_AP_SHIFT 7 /* 8:7 aperture */
#define TI_RO (1u << 9)
#define TI_PRIV (1u << 10)
#define TI_NOATOMIC (1u << 11)
#define TI_VOL (1u << 12)
#define TI_KIND_SHIFT 16 /* 23:16 */

struct tlb_entry {
	/* (va >> page_shift) + 1; 0 = empty */
	uint64_t tag;
	/* physical address of the page's first byte (MAPPED) */
	uint64_t base;
	uint32_t info;
};

/*
 * The walk cache (a PDE cache): where the upper levels (PD4/PD3..PD1) of a
 * 512 MiB region led, so a TLB miss there reads only PD0 and a page table.
 * Flushed with the TLB by every invalidate, as the hardware's.
 */
#define WALK_CACHE_ENTRIES 4

struct pd0_ref {
	/* (va >> 29) + 1; 0 = empty */
	uint64_t tag;
	/* the PD0 table and its aperture */
	uint64_t table;
	enum nvl_hw_aperture aperture;
};

struct tlb {
	struct pd0_ref pd0[WALK_CACHE_ENTRIES];
	unsigned int pd0_next;
	struct tlb_entry e[TLB_ENTRIES];
	uint8_t victim[TLB_SETS_TOTAL];
	/* sets filled since the last full flush (bit per set): a full flush
	 * clears only these, not the whole 22 KiB array */
	uint64_t filled[(TLB_SETS_TOTAL + 63) / 64];
};

struct vm_slot {
	bool used;
	enum nvl_hw_aperture aperture;
	unsigned int version;
	uint64_t pdb;
	uint64_t last_use;
	struct tlb tlb;
};

/*
 * The drain: engine accesses in flight (nvl_model_mmu_enter() to
 * nvl_model_mmu_exit()) counted per epoch parity, striped over cache lines
 * so that engines on different channels do not share one counter.
 */
#define MMU_DRAIN_STRIPES 8

struct mmu_stripe {
	atomic_uint n[2];
	/* a cache line each (padding, not an alignment nvl_zalloc lacks) */
	char pad[64 - 2 * sizeof(atomic_uint)];
};

struct nvl_model_mmu {
	struct nvl_model *m;
	pthread_mutex_t lock;
	uint64_t clock;
	struct vm_slot *last;
	struct nvl_model_mmu_stats stats;
	atomic_uint gen; /* bumped by every invalidate */
	bool big_leaf_pd1; /* 512 MiB PTEs at PD1 (Ampere and later) */
	/* the drain (lock held for the three fields; readers load epoch) */
	atomic_uint epoch;
	bool drain_pending; /* accesses of parity drain_old still in flight */
	unsigned int drain_old;
	bool drain_want; /* a drain asked for while another was pending */
	struct vm_slot slot[MMU_VM_SLOTS];
	struct mmu_stripe active[MMU_DRAIN_STRIPES];
};

/**
 * nvl_model_mmu_do_walk() - walk the tables of @ctx for @va (no TLB).
 * @mmu: the MMU (for the chip's leaf sizes and memory)
 * @ctx: address space
 * @va: address
 * @out: the result, always initialised
 * @trace: entries read, or NULL
 * @pd0: when not NULL, set to the PD0 table the upper levels led to (tag
 *       0 when they ended the walk: a fault, sparse or a PD1 leaf)
 */
void nvl_model_mmu_do_walk(struct nvl_model_mmu *mmu,
			   const struct nvl_model_vmctx *ctx, uint64_t va,
			   struct nvl_model_xlate *out,
			   struct nvl_model_walk_trace *trace,
			   struct pd0_ref *pd0);

/**
 * nvl_model_mmu_walk_pd0() - the walk of @va from its PD0 table on (the
 * upper levels' result cached in @pd0).
 * @mmu: the MMU
 * @ctx: address space
 * @va: address, in @pd0's 512 MiB region
 * @pd0: the walk cache's entry
 * @out: the result, always initialised
 */
void nvl_model_mmu_walk_pd0(struct nvl_model_mmu *mmu,
			    const struct nvl_model_vmctx *ctx, uint64_t va,
			    const struct pd0_ref *pd0,
			    struct nvl_model_xlate *out);

/**
 * nvl_model_tlb_pd0_lookup() - the walk cache's entry for @va's 512 MiB
 * region (mmu->lock held).
 * @s: the TLB
 * @va: address
 *
 * Return: the entry, or NULL.
 */
const struct pd0_ref *nvl_model_tlb_pd0_lookup(struct vm_slot *s, uint64_t va);

/**
 * nvl_model_tlb_pd0_insert() - cache where a walk's upper levels led
 * (mmu->lock held).
 * @s: the TLB
 * @r: from nvl_model_mmu_do_walk(); nothing is cached when its tag is 0
 */
void nvl_model_tlb_pd0_insert(struct vm_slot *s, const struct pd0_ref *r);

/**
 * nvl_model_mmu_check_access() - apply an access's permission checks.
 * @x: a translation; turned into a FAULT result when the access violates it
 * @access: enum nvl_hw_fault_access
 *
 * Return: 0, or -EFAULT.
 */
int nvl_model_mmu_check_access(struct nvl_model_xlate *x, unsigned int access);

/**
 * nvl_model_tlb_slot() - the TLB of @ctx (mmu->lock held), claiming the
 * least recently used slot when it has none.
 * @mmu: the MMU
 * @ctx: address space
 *
 * Return: the slot, never NULL.
 */
struct vm_slot *nvl_model_tlb_slot(struct nvl_model_mmu *mmu,
				   const struct nvl_model_vmctx *ctx);

/**
 * nvl_model_tlb_lookup() - a cached result for @va (mmu->lock held).
 * @s: the TLB
 * @va: address
 * @out: the result on a hit
 *
 * Return: true on a hit.
 */
bool nvl_model_tlb_lookup(struct vm_slot *s, uint64_t va,
			  struct nvl_model_xlate *out);

/**
 * nvl_model_tlb_insert() - cache a walk result (mmu->lock held).
 * @mmu: the MMU (eviction counter)
 * @s: the TLB
 * @va: the address walked
 * @x: the result; its page_shift picks the array
 */
void nvl_model_tlb_insert(struct nvl_model_mmu *mmu, struct vm_slot *s,
			  uint64_t va, const struct nvl_model_xlate *x);

/**
 * nvl_model_tlb_flush() - drop the entries overlapping a range
 * (mmu->lock held).
 * @s: the TLB
 * @va: first byte
 * @range: bytes; 0 drops everything
 * @keep_walk: leave the walk cache (PDE1 and up) alone
 */
void nvl_model_tlb_flush(struct vm_slot *s, uint64_t va, uint64_t range,
			 bool keep_walk);

#endif /* NVL_MODEL_MMU_INTERNAL_H */

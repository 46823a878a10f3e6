/* SPDX-License-Identifier: MIT */
/*
 * The model MMU: page-table walker, TLBs and fault generation.
 *
 * Every engine access to a GPU virtual address goes through here. The
 * walker reads the tables the driver wrote (hw/mmu_v2.h, hw/mmu_v3.h) from
 * model VRAM or DMA-mapped system memory, starting at a VM's page directory
 * base (PDB). Translations, including failed and sparse ones, are cached
 * per VM in a TLB that only walks fill and only invalidation clears: a
 * driver that changes a PTE without invalidating keeps seeing the old
 * translation, as on hardware. See model/mmu/ for the implementation and
 * docs/mmu.md for the TLB geometry.
 */
#ifndef NVL_MODEL_MMU_H
#define NVL_MODEL_MMU_H

#include <stdatomic.h>

#include "base/compiler.h"
#include "hw/aperture.h"
#include "hw/fault.h"

struct nvl_model;
struct nvl_model_mmu;

/**
 * struct nvl_model_vmctx - the address space an access is made in, as an
 * instance block's PAGE_DIR_BASE describes it.
 */
struct nvl_model_vmctx {
	/** @pdb: physical address of the root directory, 4 KiB aligned */
	uint64_t pdb;
	/** @aperture: where @pdb lives */
	enum nvl_hw_aperture aperture;
	/** @version: page-table format, 2 or 3 */
	unsigned int version;
	/**
	 * @replayable: the instance block asks for replayable SM faults
	 * (FAULT_REPLAY_TEX/GCC): compute misses park and wait for a replay
	 * (model/replay.c)
	 */
	bool replayable;
};

/** enum nvl_model_xlate_state - what a translation found. */
enum nvl_model_xlate_state {
	/** @NVL_MODEL_XLATE_MAPPED: the address maps to @pa */
	NVL_MODEL_XLATE_MAPPED = 0,
	/** @NVL_MODEL_XLATE_SPARSE: sparse: reads zero, writes dropped */
	NVL_MODEL_XLATE_SPARSE = 1,
	/** @NVL_MODEL_XLATE_FAULT: the access faults with @fault_type */
	NVL_MODEL_XLATE_FAULT = 2,
};

/** struct nvl_model_xlate - the result of translating one address. */
struct nvl_model_xlate {
	/** @state: enum nvl_model_xlate_state */
	enum nvl_model_xlate_state state;
	/** @fault_type: enum nvl_hw_fault_type when @state is FAULT */
	unsigned int fault_type;
	/** @page_shift: log2 of the span this result covers (12..29) */
	unsigned int page_shift;
	/** @aperture: memory of @pa (MAPPED) */
	enum nvl_hw_aperture aperture;
	/** @pa: physical address of the translated byte (MAPPED) */
	uint64_t pa;
	/** @kind: the PTE's kind (MAPPED) */
	unsigned int kind;
	/** @read_only: writes fault (MAPPED) */
	bool read_only;
	/**
	 * @privileged: privileged-only page (MAPPED): a request without
	 * NVL_MODEL_MMU_ACCESS_PRIV faults with PRIV_VIOLATION
	 */
	bool privileged;
	/** @atomic_disable: atomics fault (MAPPED) */
	bool atomic_disable;
	/** @volatile_: uncached in L2 (MAPPED; no effect in the model) */
	bool volatile_;
	/** @tlb_hit: the result came from the TLB, not a walk */
	bool tlb_hit;
};

/*
 * OR'ed into an access type (enum nvl_hw_fault_access) by a privileged
 * requestor, which may use privileged pages (PTE PRIVILEGE). Only the
 * MMU's own fault-buffer writes are: no engine of the model (Host, copy
 * engine, SMs) makes privileged requests.
 */
#define NVL_MODEL_MMU_ACCESS_PRIV 0x100u

/** Maximum number of table entries a walk reads (PD4 .. small PT). */
#define NVL_MODEL_MMU_MAX_STEPS 7

/**
 * struct nvl_model_walk_trace - the entries a walk read, for tools.
 */
struct nvl_model_walk_trace {
	/** @n: steps recorded */
	unsigned int n;
	/** @step: one per table entry read, root first */
	struct {
		/** @step.level: enum nvl_hw_mmu_level */
		unsigned int level;
		/** @step.aperture: where the table lives */
		enum nvl_hw_aperture aperture;
		/** @step.table: physical address of the table */
		uint64_t table;
		/** @step.index: entry index in the table */
		unsigned int index;
		/** @step.lo: the entry (low qword for a dual PDE) */
		uint64_t lo;
		/** @step.hi: the high qword of a dual PDE, else 0 */
		uint64_t hi;
	} step[NVL_MODEL_MMU_MAX_STEPS];
};

/** struct nvl_model_mmu_stats - counters, for tests and benchmarks. */
struct nvl_model_mmu_stats {
	/** @walks: page-table walks (TLB misses that walked) */
	uint64_t walks;
	/** @hits: TLB hits */
	uint64_t hits;
	/**
	 * @pd0_hits: walks that began at PD0, the upper levels' result found
	 * in the walk cache (counted in @walks too)
	 */
	uint64_t pd0_hits;
	/** @faults: faults reported to the fault buffer */
	uint64_t faults;
	/** @invalidates: invalidate requests */
	uint64_t invalidates;
	/** @evictions: valid TLB entries replaced by a fill */
	uint64_t evictions;
};

/**
 * nvl_model_mmu_create() - create the MMU of @m (called by
 * nvl_model_create()).
 * @m: device; the MMU reads m->profile and model memory
 * @mmu_out: the new MMU
 *
 * Return: 0, or -ENOMEM.
 */
int nvl_model_mmu_create(struct nvl_model *m,
			 struct nvl_model_mmu **mmu_out) NVL_MUST_CHECK;

/**
 * nvl_model_mmu_destroy() - free the MMU.
 * @mmu: the MMU, or NULL (no-op)
 */
void nvl_model_mmu_destroy(struct nvl_model_mmu *mmu);

/**
 * nvl_model_vm_access() - read or write GPU virtual memory as an engine.
 * @m: device
 * @ctx: address space
 * @va: first byte
 * @buf: destination (read) or source (write)
 * @len: bytes
 * @write: direction
 * @engine_id: NVL_HW_MMU_ENGINE_* of the accessing engine
 * @chid: channel the access is made for
 *
 * Translates once per page through the TLB and copies whole runs. Sparse
 * pages read as zero and drop writes. On the first page that faults the
 * fault is reported (nvl_model_fault_report()) and the access stops: the
 * bytes before it have been transferred. Safe from any thread; must be
 * called with no model lock held.
 *
 * Return: 0, or -EFAULT after reporting a fault.
 */
int nvl_model_vm_access(struct nvl_model *m, const struct nvl_model_vmctx *ctx,
			uint64_t va, void *buf, size_t len, bool write,
			unsigned int engine_id, unsigned int chid);

/**
 * nvl_model_vm_access_page() - nvl_model_vm_access(), and the translation
 * the access used for @va's page, for a cache in front of the MMU.
 * @m: device
 * @ctx: address space
 * @va: first byte
 * @buf: destination (read) or source (write)
 * @len: bytes
 * @write: direction
 * @engine_id: NVL_HW_MMU_ENGINE_* of the accessing engine
 * @chid: channel the access is made for
 * @x: on success, @va's translation (state MAPPED or SPARSE)
 *
 * Return: as nvl_model_vm_access().
 */
int nvl_model_vm_access_page(struct nvl_model *m,
			     const struct nvl_model_vmctx *ctx, uint64_t va,
			     void *buf, size_t len, bool write,
			     unsigned int engine_id, unsigned int chid,
			     struct nvl_model_xlate *x);

/**
 * nvl_model_vm_copy() - copy @len bytes between two virtual ranges (the
 * copy engine's pitch line), memory to memory without a bounce buffer.
 * @m: device
 * @dst_ctx: destination address space
 * @dst_va: destination address
 * @src_ctx: source address space
 * @src_va: source address
 * @len: bytes
 * @engine_id: NVL_HW_MMU_ENGINE_* of the copying engine
 * @chid: channel the copy is made for
 *
 * Semantics as nvl_model_vm_access() for each side (sparse source reads
 * zero, sparse destination drops). The copy proceeds in ascending address
 * order, one physically contiguous run at a time (memmove within a run);
 * overlapping ranges with @dst_va above @src_va are undefined, as on the
 * copy engine.
 * Return: 0, or -EFAULT after reporting a fault.
 */
int nvl_model_vm_copy(struct nvl_model *m,
		      const struct nvl_model_vmctx *dst_ctx, uint64_t dst_va,
		      const struct nvl_model_vmctx *src_ctx, uint64_t src_va,
		      size_t len, unsigned int engine_id, unsigned int chid);

/**
 * nvl_model_vm_fill() - the copy engine's memset (constant remap).
 * @m: device
 * @ctx: address space
 * @va: first byte
 * @pattern: 4-byte value repeated, little-endian, its byte 0 at @va
 * @len: bytes
 * @engine_id: NVL_HW_MMU_ENGINE_* of the engine
 * @chid: channel
 *
 * Return: 0, or -EFAULT after reporting a fault.
 */
int nvl_model_vm_fill(struct nvl_model *m, const struct nvl_model_vmctx *ctx,
		      uint64_t va, uint32_t pattern, size_t len,
		      unsigned int engine_id, unsigned int chid);

/**
 * nvl_model_mmu_translate() - translate @va as an access of type @access
 * would, through the TLB (filling it on a miss), without reporting faults.
 * @m: device
 * @ctx: address space
 * @va: address
 * @access: enum nvl_hw_fault_access (READ, WRITE, ATOMIC...): decides
 *          read-only and atomic violations
 * @out: the result (state FAULT carries the fault type)
 *
 * Return: 0 when the access may proceed (MAPPED or SPARSE), -EFAULT when it
 * would fault (@out->state FAULT).
 */
int nvl_model_mmu_translate(struct nvl_model *m,
			    const struct nvl_model_vmctx *ctx, uint64_t va,
			    unsigned int access, struct nvl_model_xlate *out);

/**
 * nvl_model_mmu_walk() - walk the page tables for @va now, bypassing and
 * not touching the TLB, optionally recording every entry read.
 * @m: device
 * @ctx: address space
 * @va: address
 * @access: enum nvl_hw_fault_access, for the permission checks
 * @out: the result
 * @trace: filled when not NULL
 *
 * Return: as nvl_model_mmu_translate().
 */
int nvl_model_mmu_walk(struct nvl_model *m, const struct nvl_model_vmctx *ctx,
		       uint64_t va, unsigned int access,
		       struct nvl_model_xlate *out,
		       struct nvl_model_walk_trace *trace);

/**
 * nvl_model_mmu_invalidate() - drop cached translations.
 * @mmu: the MMU
 * @ctx: the address space (matched by @pdb and @aperture), or NULL for
 *       every address space (ALL_PDB)
 * @va: first address of the range
 * @range: bytes; 0 means every address (ALL_VA)
 *
 * Takes effect for every translation that starts after it returns; called
 * by the model's MMU_INVALIDATE register and MEM_OP methods.
 */
void nvl_model_mmu_invalidate(struct nvl_model_mmu *mmu,
			      const struct nvl_model_vmctx *ctx, uint64_t va,
			      uint64_t range);

/**
 * nvl_model_mmu_invalidate_drain() - nvl_model_mmu_invalidate() with a
 * drain: the MMU_INVALIDATE request with SYS_MEMBAR and ACK GLOBALLY.
 * @mmu: the MMU
 * @ctx: as nvl_model_mmu_invalidate()
 * @va: as nvl_model_mmu_invalidate()
 * @range: as nvl_model_mmu_invalidate()
 *
 * The TLBs are flushed before it returns; the request is complete once
 * every engine access that was in flight then (between
 * nvl_model_mmu_enter() and nvl_model_mmu_exit(), so possibly through a
 * translation from before the flush) has exited. Never waits.
 *
 * Return: true when complete now; else poll nvl_model_mmu_drained().
 */
bool nvl_model_mmu_invalidate_drain(struct nvl_model_mmu *mmu,
				    const struct nvl_model_vmctx *ctx,
				    uint64_t va, uint64_t range);

/**
 * nvl_model_mmu_invalidate_level() - the invalidate of the MMU_INVALIDATE
 * register and the MEM_OP methods: a CACHE_LEVEL (PAGE_TABLE_LEVEL) and
 * whether it drains.
 * @mmu: the MMU
 * @ctx: as nvl_model_mmu_invalidate()
 * @va: as nvl_model_mmu_invalidate()
 * @range: as nvl_model_mmu_invalidate()
 * @level: NVL_HW_MMU_CACHE_LEVEL_*: PTE_ONLY and UP_TO_PDE0 keep the walk
 *         cache (where PDE1 and up led); every other value drops it. The
 *         TLB entries of the range go in every case.
 * @drain: as nvl_model_mmu_invalidate_drain()
 *
 * Return: true when complete (always without @drain).
 */
bool nvl_model_mmu_invalidate_level(struct nvl_model_mmu *mmu,
				    const struct nvl_model_vmctx *ctx,
				    uint64_t va, uint64_t range,
				    unsigned int level, bool drain);

/**
 * nvl_model_mmu_drained() - whether every drain asked for is complete.
 * @mmu: the MMU
 * Return: true when no access from before a drain's flush is in flight.
 */
bool nvl_model_mmu_drained(struct nvl_model_mmu *mmu);

/**
 * nvl_model_mmu_enter() - begin an engine access: its translations and
 * the memory operations through them, until nvl_model_mmu_exit(). A
 * draining invalidate completes only after the accesses that began
 * before its flush have exited. Never block or wait inside one.
 * @mmu: the MMU
 * @hint: spreads the counters (a channel id)
 * Return: the ticket for nvl_model_mmu_exit().
 */
unsigned int nvl_model_mmu_enter(struct nvl_model_mmu *mmu, unsigned int hint);

/**
 * nvl_model_mmu_exit() - end the access nvl_model_mmu_enter() began.
 * @mmu: the MMU
 * @ticket: nvl_model_mmu_enter()'s return
 */
void nvl_model_mmu_exit(struct nvl_model_mmu *mmu, unsigned int ticket);

/**
 * nvl_model_mmu_section_stale() - whether a draining invalidate waits for
 * the access @ticket began: its flush came after the access entered. An
 * engine that holds one section over many memory operations (the SM
 * workers: docs/compute.md) polls this, and exits (and enters again with
 * its translations dropped) when it is true, so that the drain completes.
 * @mmu: the MMU
 * @ticket: nvl_model_mmu_enter()'s return, not exited yet
 * Return: true when the access should exit.
 */
bool nvl_model_mmu_section_stale(struct nvl_model_mmu *mmu,
				 unsigned int ticket);

/**
 * nvl_model_mmu_generation() - a count every invalidate bumps (before it
 * returns), for caches of translations in front of the MMU (the PBDMA's
 * micro-TLB): an entry filled under another generation is stale.
 * @mmu: the MMU
 * Return: the generation (wraps).
 */
unsigned int nvl_model_mmu_generation(struct nvl_model_mmu *mmu);

/**
 * nvl_model_mmu_generation_word() - the count nvl_model_mmu_generation()
 * reads, for a cache that loads it inline (acquire) on every lookup.
 * @mmu: the MMU
 * Return: the count's address (lives as long as @mmu).
 */
const atomic_uint *nvl_model_mmu_generation_word(struct nvl_model_mmu *mmu);

/**
 * nvl_model_mmu_get_stats() - a snapshot of the MMU's counters.
 * @mmu: the MMU
 * @out: filled with the counters
 */
void nvl_model_mmu_get_stats(struct nvl_model_mmu *mmu,
			     struct nvl_model_mmu_stats *out);

#endif /* NVL_MODEL_MMU_H */

/* SPDX-License-Identifier: MIT */
/*
 * The generic page-table manager: GPUVM's page-table backend for radix-tree
 * MMUs.
 *
 * It keeps a software tree that mirrors the GPU's tables (one node per
 * table, with its entries -- in place when the table memory has a CPU
 * mapping, else a CPU shadow -- and a reference count) and
 * implements struct nvl_vm_pt_ops on top of three things the GPU-specific
 * side provides:
 *  - a format (struct nvl_pt_format): the directory levels, one or two page
 *    table kinds under the last directory (a "dual" entry: big entries that
 *    are 0 defer to the small table), and the encoders of entries;
 *  - table memory (struct nvl_pt_mem_ops): allocate, free and write table
 *    bytes, e.g. in VRAM through a BAR;
 *  - a synchronous TLB invalidate, which may fail (the device stopped
 *    answering): tables it should have covered are then never freed or
 *    reused while the manager lives (the GPU may still walk them), and
 *    the error reaches GPUVM through nvl_pt_ops.take_error, which kills
 *    the VM.
 *
 * get() is the only call that allocates: every table a later map, unmap or
 * sparse of the range at that page size touches. Allocation happens outside
 * the manager's lock, which the commit-phase calls take. Tables whose last
 * reference put() drops are unlinked at once and freed only after a TLB
 * invalidate covering them completed.
 *
 * map() picks, for every position, the largest leaf (never smaller than
 * the mapping's page size) that the virtual and physical alignment, the
 * backing's contiguity and the tables present allow.
 */
#ifndef NVL_VM_PT_PT_H
#define NVL_VM_PT_PT_H

#include "base/compiler.h"
#include "mm/gem.h"
#include "vm/pt_backend.h"

struct nvl_pt;

/** Deepest supported directory tree (PD4..PD0). */
#define NVL_PT_MAX_LEVELS 6

/** struct nvl_pt_level - one level of tables. */
struct nvl_pt_level {
	/** @shift: log2 of the span of one entry */
	uint8_t shift;
	/** @bits: index width: the table has 1 << bits entries */
	uint8_t bits;
	/** @entry_size: bytes per entry, 8 or 16 */
	uint8_t entry_size;
	/** @leaf: an entry may be a leaf PTE of 1 << @shift bytes */
	bool leaf;
	/** @table_size: bytes to allocate for a table (>= entries * size) */
	uint32_t table_size;
	/** @align: table alignment in bytes */
	uint32_t align;
};

/** struct nvl_pt_page - the physical side of a leaf run. */
struct nvl_pt_page {
	/** @domain: enum nvl_gem_domain of @addr (VRAM, GTT, SYSTEM) */
	enum nvl_gem_domain domain;
	/** @addr: VRAM offset or DMA address of the first page */
	uint64_t addr;
	/** @flags: enum nvl_vm_pt_flags */
	uint32_t flags;
};

/** struct nvl_pt_format_ops - entry encoders of one format. */
struct nvl_pt_format_ops {
	/**
	 * @pte: write @n leaf PTEs to @out for consecutive pages of
	 * 1 << @shift bytes starting at @page->addr.
	 */
	void (*pte)(const void *priv, uint64_t *out, unsigned int n,
		    unsigned int shift, const struct nvl_pt_page *page);
	/**
	 * @pte_tables: optional: @pte for @ntables whole tables at once,
	 * @n PTEs into each of @outs[0..@ntables), the pages continuing
	 * from one table to the next (a bind of many tables of big pages
	 * then encodes its flags once).
	 */
	void (*pte_tables)(const void *priv, uint64_t *const *outs,
			   unsigned int ntables, unsigned int n,
			   unsigned int shift, const struct nvl_pt_page *page);
	/**
	 * @pte_offset: @pte with its address moved up by @delta bytes
	 * (splitting a large leaf into smaller ones).
	 */
	uint64_t (*pte_offset)(const void *priv, uint64_t pte, uint64_t delta);
	/**
	 * @uniform: the invalid (@sparse false) or sparse encoding of an
	 * entry of table kind @kind (directory level index, or
	 * NVL_PT_KIND_SMALL/BIG relative to nlevels) into @out[0..1]. The
	 * invalid encoding of a big page-table entry must be 0 (defer to the
	 * small table).
	 */
	void (*uniform)(const void *priv, uint64_t out[2], unsigned int kind,
			bool sparse);
	/**
	 * @pde: a directory entry of level @level pointing at its child
	 * tables: @child[0] (the only child, or the small page table) and,
	 * at the last level of a dual format, @child[1] (the big page
	 * table); NVL_PT_NO_TABLE for an absent one.
	 */
	void (*pde)(const void *priv, uint64_t out[2], unsigned int level,
		    const uint64_t child[2]);
};

/** Address meaning "no table" in nvl_pt_format_ops.pde. */
#define NVL_PT_NO_TABLE UINT64_MAX

/** struct nvl_pt_format - a page-table format. */
struct nvl_pt_format {
	/** @nlevels: directory levels, root first; the last holds the PTs */
	unsigned int nlevels;
	/** @level: the directory levels */
	struct nvl_pt_level level[NVL_PT_MAX_LEVELS];
	/** @npt: page-table kinds under the last level: 1, or 2 (dual) */
	unsigned int npt;
	/** @pt: [0] the small (base-page) table, [1] the big one */
	struct nvl_pt_level pt[2];
	/** @ops: encoders */
	const struct nvl_pt_format_ops *ops;
	/** @priv: for @ops */
	const void *priv;
};

/* Table kinds: directory levels are 0 .. nlevels - 1, then: */
#define NVL_PT_KIND_SMALL(fmt) ((fmt)->nlevels)
#define NVL_PT_KIND_BIG(fmt) ((fmt)->nlevels + 1)

/** struct nvl_pt_mem_ops - where tables live. */
struct nvl_pt_mem_ops {
	/**
	 * @alloc: @size bytes aligned to @align. May sleep and allocate.
	 * Return: 0 and *@addr_out, or -ENOMEM.
	 */
	int (*alloc)(void *priv, uint32_t size, uint32_t align,
		     uint64_t *addr_out);
	/**
	 * @alloc_many: optional: @n allocations like @alloc at once, into
	 * @addrs_out[0..n-1]; all or nothing.
	 * Return: 0, or -ENOMEM (nothing allocated).
	 */
	int (*alloc_many)(void *priv, uint32_t size, uint32_t align,
			  unsigned int n, uint64_t *addrs_out);
	/** @free: release what @alloc returned. Never fails. */
	void (*free)(void *priv, uint64_t addr, uint32_t size);
	/** @write: copy @len bytes to table memory at @addr. Never fails. */
	void (*write)(void *priv, uint64_t addr, const void *buf, size_t len);
	/**
	 * @map: optional: a CPU pointer to the @size bytes of table memory
	 * at @addr that @alloc returned, valid until @free (e.g. through a
	 * BAR mapping of VRAM). With it the manager keeps no CPU shadow:
	 * entries are read and written in place, each written once, and
	 * @write is not used.
	 * Return: the pointer, or NULL (the table is then not used).
	 */
	void *(*map)(void *priv, uint64_t addr, uint32_t size);
};

/** struct nvl_pt_args - what nvl_pt_create() needs. */
struct nvl_pt_args {
	/** @fmt: the format (must outlive the manager) */
	const struct nvl_pt_format *fmt;
	/** @mem: table memory */
	const struct nvl_pt_mem_ops *mem;
	/** @mem_priv: for @mem */
	void *mem_priv;
	/**
	 * @invalidate: invalidate the TLB for [@va, @va + @range) and wait
	 * (a bounded time) until it completed. Return: 0, or a negative errno
	 * when it did not complete: the TLB may still hold the old entries.
	 */
	int (*invalidate)(void *priv, uint64_t va, uint64_t range);
	/** @priv: for @invalidate */
	void *priv;
	/**
	 * @any_backing: treat GPUVM's page size as a hint: nvl_pt_ops
	 * prepares tables for the smallest page and map picks every leaf
	 * from the backing alone. Costs the small page tables (about
	 * 2.1 MiB per GiB) but maps any backing, however fragmented; without
	 * it the caller must only pick page sizes the backing provides.
	 */
	bool any_backing;
	/**
	 * @cache_tables: freed tables kept per kind for reuse by later gets
	 * (host structure and table memory; their entries are rewritten when
	 * linked, as a new table's are). 0: the default,
	 * NVL_PT_CACHE_DEFAULT; -1: no cache. nvl_pt_trim() empties it.
	 */
	int cache_tables;
	/**
	 * @page_shift: optional, called with @priv: the largest page shift,
	 * at most @max_shift, that @obj's backing from @bo_offset allows for
	 * [@va, @va + @range). nvl_pt_ops offers it to GPUVM as
	 * nvl_vm_pt_ops.page_shift, so that GPUVM only picks page sizes the
	 * backing provides. Not needed with @any_backing.
	 */
	unsigned int (*page_shift)(void *priv, struct nvl_gem_object *obj,
				   uint64_t bo_offset, uint64_t va,
				   uint64_t range, unsigned int max_shift);
};

/** struct nvl_pt_stats - counters. */
struct nvl_pt_stats {
	/** @tables: tables allocated now */
	uint64_t tables;
	/** @table_bytes: bytes of table memory allocated now */
	uint64_t table_bytes;
	/** @bytes_written: bytes of entries written to table memory */
	uint64_t bytes_written;
	/** @invalidates: TLB invalidates issued (flush and put) */
	uint64_t invalidates;
	/** @failed_invalidates: invalidates that did not complete */
	uint64_t failed_invalidates;
	/**
	 * @quarantined: unlinked tables held until nvl_pt_destroy() because
	 * the invalidate that should have covered them failed
	 */
	uint64_t quarantined;
	/**
	 * @errors: map requests that could not be honoured (no table for the
	 * page size the backing needed; the range was left invalid)
	 */
	uint64_t errors;
	/** @leaves: leaves written per size: [0] 4K, [1] 64K, [2] 2M, [3] 512M */
	uint64_t leaves[4];
	/**
	 * @kept: tables whose last reference went while their entries still
	 * meant something their parent entry could not express (kept until
	 * reused or destroyed; 0 when get/put and map/unmap are balanced)
	 */
	uint64_t kept;
	/** @cached: freed tables held in the cache for reuse */
	uint64_t cached;
	/** @cached_bytes: their table memory */
	uint64_t cached_bytes;
};

/** NVL_PT_CACHE_DEFAULT - tables of each kind the cache keeps by default. */
#define NVL_PT_CACHE_DEFAULT 1024

/**
 * nvl_pt_create() - create a manager with an empty root table.
 * @args: format, memory and invalidate callback
 * @pt_out: the manager
 *
 * The root table is allocated and written invalid now.
 * Return: 0, -EINVAL (a format the manager cannot drive) or -ENOMEM.
 */
int nvl_pt_create(const struct nvl_pt_args *args,
		  struct nvl_pt **pt_out) NVL_MUST_CHECK;

/**
 * nvl_pt_destroy() - free every table, referenced or not.
 * @pt: the manager, or NULL (no-op)
 *
 * The caller makes sure the GPU no longer uses the address space.
 */
void nvl_pt_destroy(struct nvl_pt *pt);

/**
 * nvl_pt_root() - where the root directory lives.
 * @pt: the manager
 *
 * Return: the table-memory address of the root (the PDB).
 */
uint64_t nvl_pt_root(const struct nvl_pt *pt);

/**
 * nvl_pt_get_stats() - a snapshot of the counters.
 * @pt: the manager
 * @out: filled with the counters
 */
void nvl_pt_get_stats(struct nvl_pt *pt, struct nvl_pt_stats *out);

/**
 * nvl_pt_trim() - free the tables the cache holds (memory pressure, or to
 * see the table memory in use exactly).
 * @pt: the manager
 */
void nvl_pt_trim(struct nvl_pt *pt);

/**
 * nvl_pt_ops - struct nvl_vm_pt_ops over a struct nvl_pt (the @priv of
 * every call). See vm/pt_backend.h for the contract, and
 * nvl_pt_args.any_backing for how page_shift is used.
 */
extern const struct nvl_vm_pt_ops nvl_pt_ops;

/* The same operations, callable directly (priv = struct nvl_pt *). */

/**
 * nvl_pt_get() - reference (allocating) every table a range needs.
 * @pt: the manager
 * @va: first byte, aligned to 1 << @page_shift
 * @range: bytes, aligned to 1 << @page_shift
 * @page_shift: the smallest page the range will be mapped with
 *
 * Return: 0, -EINVAL (unaligned, empty, beyond the VA space, or a page
 * size the format has no leaf for) or -ENOMEM; nothing changes on failure.
 */
int nvl_pt_get(struct nvl_pt *pt, uint64_t va, uint64_t range,
	       unsigned int page_shift) NVL_MUST_CHECK;

/**
 * nvl_pt_put() - undo one nvl_pt_get() of the same arguments.
 * @pt: the manager
 * @va: as given to nvl_pt_get()
 * @range: as given to nvl_pt_get()
 * @page_shift: as given to nvl_pt_get()
 *
 * Tables left unreferenced are unlinked and freed after a TLB invalidate.
 */
void nvl_pt_put(struct nvl_pt *pt, uint64_t va, uint64_t range,
		unsigned int page_shift);

/**
 * nvl_pt_get_region() - reference the tables a sparse region needs.
 * @pt: the manager
 * @va: first byte, aligned to the smallest page
 * @range: bytes, aligned to the smallest page
 *
 * Sparse is written at the highest level whose entries the region covers
 * whole, so only the directories holding those entries (and page tables
 * where an edge cuts a last-level entry) are referenced: a 16 GiB region
 * at 2 MiB alignment needs a few directories, not 32 MiB of page tables.
 * Mappings placed inside take their own references with nvl_pt_get().
 * Return: 0, -EINVAL or -ENOMEM; nothing changes on failure.
 */
int nvl_pt_get_region(struct nvl_pt *pt, uint64_t va,
		      uint64_t range) NVL_MUST_CHECK;

/**
 * nvl_pt_put_region() - undo one nvl_pt_get_region() of the same range.
 * @pt: the manager
 * @va: as given to nvl_pt_get_region()
 * @range: as given to nvl_pt_get_region()
 */
void nvl_pt_put_region(struct nvl_pt *pt, uint64_t va, uint64_t range);

/**
 * nvl_pt_map() - point a range at a GEM object's backing.
 * @pt: the manager
 * @va: first byte
 * @range: bytes
 * @page_shift: the page size nvl_pt_get() prepared (the smallest used)
 * @obj: the object (resolved with obj->ops->get_backing()), or NULL
 * @bo_offset: offset in @obj of @va
 * @flags: enum nvl_vm_pt_flags (NVL_VM_PT_NULL: reads zero, @obj unused;
 *         NVL_VM_PT_SETTLED: pages whose backing is pending stay invalid)
 *
 * Never allocates nor fails; a page the tables cannot express is left
 * invalid and counted in stats.errors.
 */
void nvl_pt_map(struct nvl_pt *pt, uint64_t va, uint64_t range,
		unsigned int page_shift, struct nvl_gem_object *obj,
		uint64_t bo_offset, uint32_t flags);

/**
 * nvl_pt_map_pages() - nvl_pt_map() of one physically contiguous run.
 * @pt: the manager
 * @va: first byte
 * @range: bytes
 * @page_shift: the page size nvl_pt_get() prepared
 * @page: domain, address of @va's page and flags
 */
void nvl_pt_map_pages(struct nvl_pt *pt, uint64_t va, uint64_t range,
		      unsigned int page_shift, const struct nvl_pt_page *page);

/**
 * nvl_pt_unmap() - make a range invalid, or sparse.
 * @pt: the manager
 * @va: first byte
 * @range: bytes
 * @page_shift: the page size it was mapped with
 * @to_sparse: sparse (inside a sparse region) instead of invalid
 */
void nvl_pt_unmap(struct nvl_pt *pt, uint64_t va, uint64_t range,
		  unsigned int page_shift, bool to_sparse);

/**
 * nvl_pt_sparse() - make an unmapped range sparse, or invalid again.
 * @pt: the manager
 * @va: first byte
 * @range: bytes
 * @enable: sparse (true) or invalid (false)
 */
void nvl_pt_sparse(struct nvl_pt *pt, uint64_t va, uint64_t range, bool enable);

/**
 * nvl_pt_flush() - write back pending entries and invalidate the TLB.
 * @pt: the manager
 * @va: first byte
 * @range: bytes
 *
 * Returns once the invalidate completed or failed. A failure is also kept
 * for nvl_pt_ops.take_error.
 * Return: 0, or the invalidate's negative errno.
 */
int nvl_pt_flush(struct nvl_pt *pt, uint64_t va, uint64_t range);

#endif /* NVL_VM_PT_PT_H */

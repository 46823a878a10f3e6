/* SPDX-License-Identifier: MIT */
/*
 * Internals of the generic page-table manager (pt.c, pt_write.c).
 */
#ifndef NVL_VM_PT_INTERNAL_H
#define NVL_VM_PT_INTERNAL_H

#include <pthread.h>

#include "vm/pt/pt.h"

#define PT_KINDS (NVL_PT_MAX_LEVELS + 2)

/* Software state of a directory entry. */
enum pt_estate {
	E_INVALID = 0, /* uniform: every address below faults */
	E_SPARSE = 1, /* uniform: every address below is sparse */
	E_LEAF = 2, /* the entry is a leaf PTE */
	E_DIR = 3, /* the entry points at its child tables */
};

/*
 * struct pt_table - one table: its memory, its entries (@e: the table
 * memory itself when nvl_pt.direct, else a CPU shadow) and, for
 * directories, the entry states and child pointers.
 *
 * @refs counts child tables plus get() references that target this table.
 * A child is @linked when its parent's entry points at it (E_DIR); an
 * unlinked child's memory content is stale and rewritten when linked.
 */
/* Host memory of the tables one get() allocated of one kind. */
struct pt_slab {
	uint32_t live; /* tables not freed yet (atomic) */
};

struct pt_table {
	struct pt_table *parent;
	struct pt_slab *slab; /* NULL: allocated alone */
	struct pt_table *next; /* zombie list, free list or pool */
	struct pt_table *dnext; /* dirty list */
	uint64_t addr;
	uint64_t va;
	uint32_t refs;
	uint32_t slot; /* index in parent->ch */
	uint8_t kind;
	bool linked;
	bool dirty;
	bool blank; /* page tables: every entry is known to be invalid */
	uint16_t dlo, dhi; /* dirty entries [dlo, dhi) */
	uint64_t *e; /* entries, entry_size / 8 qwords each */
	uint8_t *st; /* directories: enum pt_estate per entry */
	struct pt_table **ch; /* directories: nch per entry */
};

struct nvl_pt {
	pthread_mutex_t lock;
	const struct nvl_pt_format *f;
	struct nvl_pt_level geo[PT_KINDS];
	unsigned int nkinds;
	unsigned int last; /* kind of the last directory level */
	unsigned int small, big; /* kinds of the page tables (big: 0 = none) */
	uint64_t va_end;
	const struct nvl_pt_mem_ops *mem;
	void *mem_priv;
	int (*invalidate)(void *priv, uint64_t va, uint64_t range);
	unsigned int (*page_shift)(void *priv, struct nvl_gem_object *obj,
				   uint64_t bo_offset, uint64_t va,
				   uint64_t range, unsigned int max_shift);
	void *priv;
	struct pt_table *root;
	struct pt_table *dirty[PT_KINDS];
	uint64_t inval[PT_KINDS][2];
	uint64_t sparse[PT_KINDS][2];
	struct nvl_pt_stats stats;
	/* the first failed invalidate since take_error (under lock) */
	int error;
	/* unlinked tables a failed invalidate left reachable: freed only by
	 * nvl_pt_destroy() (under lock) */
	struct pt_table *quarantine;
	/* freed tables for reuse, per kind (under cache_lock, a leaf) */
	pthread_mutex_t cache_lock;
	struct pt_table *cache[PT_KINDS];
	unsigned int ncache[PT_KINDS];
	unsigned int cache_max;
	bool any_backing;
	bool direct; /* entries written in place (mem->map) */
};

static inline unsigned int pt_nch(const struct nvl_pt *pt, unsigned int kind)
{
	return kind == pt->last ? pt->f->npt : 1;
}

static inline unsigned int pt_qw(const struct nvl_pt *pt, unsigned int kind)
{
	return pt->geo[kind].entry_size / 8;
}

static inline unsigned int pt_entries(const struct nvl_pt *pt,
				      unsigned int kind)
{
	return 1u << pt->geo[kind].bits;
}

static inline unsigned int pt_index(const struct nvl_pt *pt,
				    const struct pt_table *t, uint64_t va)
{
	return (unsigned int)((va - t->va) >> pt->geo[t->kind].shift);
}

static inline uint64_t pt_entry_va(const struct nvl_pt *pt,
				   const struct pt_table *t, unsigned int i)
{
	return t->va + ((uint64_t)i << pt->geo[t->kind].shift);
}

/*
 * Store one entry of @t (8 or 16 bytes) as qwords: a memcpy of a size known
 * only at run time became `rep movsq`, whose start-up cost dominated writing
 * one directory entry.
 */
static inline void pt_set_entry(const struct nvl_pt *pt, struct pt_table *t,
				unsigned int i, const uint64_t v[2])
{
	unsigned int qw = pt_qw(pt, t->kind);
	uint64_t *e = &t->e[i * qw];

	e[0] = v[0];
	if (qw > 1)
		e[1] = v[1];
}

/**
 * pt_mark() - entries of @t changed; write them back later (without a
 * shadow: only counted).
 * @pt: the manager (lock held)
 * @t: the table
 * @i: first entry
 * @n: entries
 */
void pt_mark(struct nvl_pt *pt, struct pt_table *t, unsigned int i,
	     unsigned int n);

/**
 * pt_writeback() - copy every dirty entry to table memory, page tables
 * first and the root last.
 * @pt: the manager (lock held)
 */
void pt_writeback(struct nvl_pt *pt);

/**
 * pt_writeback_pts() - copy the dirty entries of the page tables (not the
 * directories) to table memory.
 * @pt: the manager (lock held)
 */
void pt_writeback_pts(struct nvl_pt *pt);

/**
 * pt_pde() - rewrite directory entry @i of @t to point at its children.
 * @pt: the manager (lock held)
 * @t: the directory
 * @i: the entry
 */
void pt_pde(struct nvl_pt *pt, struct pt_table *t, unsigned int i);

/* record a failed invalidate (pt->lock held) */
static inline void nvl_pt_invalidate_failed(struct nvl_pt *pt, int err)
{
	pt->stats.failed_invalidates++;
	if (!pt->error)
		pt->error = err;
}

#endif /* NVL_VM_PT_INTERNAL_H */

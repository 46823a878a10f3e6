/* SPDX-License-Identifier: MIT */
/*
 * The recording page-table backend: implements struct nvl_vm_pt_ops and
 * records, exactly and page-granularly, what the page tables would map, for
 * tests, benchmarks and the demo.
 */
#ifndef NVL_VM_PT_RECORD_H
#define NVL_VM_PT_RECORD_H

#include "vm/pt_backend.h"

struct nvl_gem_object;
struct nvl_vm_pt_record;

/** The backend's ops table; priv is a struct nvl_vm_pt_record. */
extern const struct nvl_vm_pt_ops nvl_vm_pt_record_ops;

/*
 * The record this thread holds through the @lock hook or owns
 * (nvl_vm_pt_record_own()); its calls skip the record's lock. Thread-local,
 * so another thread never reads it.
 */
extern _Thread_local const struct nvl_vm_pt_record *nvl_vm_pt_record_held
	__attribute__((tls_model("initial-exec")));

/**
 * nvl_vm_pt_record_own() - the calling thread is the only user of @rec
 * until nvl_vm_pt_record_disown(): its backend calls skip the record's lock
 * (issue 19: two locked instructions a bind). Not nested, not inside the
 * @lock hook.
 * @rec: the recording
 *
 * Only for a caller that holds the lock every other user of @rec holds (the
 * VM lock: binds, faults, revalidation, the read side) at a moment when no
 * user that runs without it can be in flight (an async bind's commit, which
 * runs while its job is on the VM's pending list). The record cannot check
 * that; the caller's lock orders it with the record's previous users.
 */
static inline void nvl_vm_pt_record_own(struct nvl_vm_pt_record *rec)
{
	nvl_vm_pt_record_held = rec;
}

/**
 * nvl_vm_pt_record_disown() - end nvl_vm_pt_record_own(), before the
 * caller's lock is released.
 * @rec: the recording
 */
static inline void nvl_vm_pt_record_disown(struct nvl_vm_pt_record *rec)
{
	(void)rec;
	nvl_vm_pt_record_held = NULL;
}

/** What one page of the recorded page tables holds. */
enum nvl_vm_pt_state {
	NVL_VM_PT_INVALID = 0,
	NVL_VM_PT_SPARSE,
	NVL_VM_PT_MAPPED,
};

/** struct nvl_vm_pt_page - the recorded state of one page. */
struct nvl_vm_pt_page {
	enum nvl_vm_pt_state state;
	/** @obj: MAPPED: the BO (NULL with NVL_VM_PT_NULL) */
	struct nvl_gem_object *obj;
	/** @bo_offset: MAPPED: byte offset of this page in @obj */
	uint64_t bo_offset;
	/** @flags: MAPPED: enum nvl_vm_pt_flags */
	uint32_t flags;
	/** @page_shift: MAPPED: the page size it was mapped with */
	unsigned int page_shift;
};

/**
 * nvl_vm_pt_record_create() - an empty recording.
 * @rec_out: the recording
 *
 * Return: 0 or -ENOMEM.
 */
int nvl_vm_pt_record_create(struct nvl_vm_pt_record **rec_out) NVL_MUST_CHECK;

/** nvl_vm_pt_record_destroy() - free @rec (may be NULL). */
void nvl_vm_pt_record_destroy(struct nvl_vm_pt_record *rec);

/**
 * nvl_vm_pt_record_query() - the recorded state of the page holding @va.
 * @rec: the recording
 * @va: an address
 * @out: filled in
 */
void nvl_vm_pt_record_query(struct nvl_vm_pt_record *rec, uint64_t va,
			    struct nvl_vm_pt_page *out);

/**
 * nvl_vm_pt_record_query_span() - nvl_vm_pt_record_query(), and how far
 * the same state goes: every page from @va to the returned address (at
 * most the end of @va's 2 MiB chunk) is recorded like @va's, at contiguous
 * BO offsets when mapped. Lets a checker walk runs instead of pages.
 * Return: the end of that span (exclusive).
 */
uint64_t nvl_vm_pt_record_query_span(struct nvl_vm_pt_record *rec, uint64_t va,
				     struct nvl_vm_pt_page *out);

/**
 * nvl_vm_pt_record_hash() - a hash of the whole recorded state (runs, their
 * contents) and the outstanding references, to check "unchanged".
 */
uint64_t nvl_vm_pt_record_hash(struct nvl_vm_pt_record *rec);

/** struct nvl_vm_pt_record_stats - counters for tests and the demo. */
struct nvl_vm_pt_record_stats {
	/** @refs: outstanding get()s */
	uint64_t refs;
	/** @ref_bytes: sum of the ranges of the outstanding get()s */
	uint64_t ref_bytes;
	/** @runs: recorded runs (maximal pieces of one state) */
	uint64_t runs;
	/* @flushes: may miss one when commits of two queues race */
	uint64_t maps, unmaps, sparses, flushes;
	/** @errors: writes the backend could not record (must stay 0) */
	uint64_t errors;
	/** @heap_B: bytes the recording holds */
	uint64_t heap_B;
};

/** nvl_vm_pt_record_stats() - read the counters. */
void nvl_vm_pt_record_stats(struct nvl_vm_pt_record *rec,
			    struct nvl_vm_pt_record_stats *out);

/**
 * nvl_vm_pt_record_fail_map_after() - test hook: the @n-th next map call
 * (1 = the next) fails: it is still recorded, and the next take_error()
 * returns -EIO. 0 disarms.
 */
void nvl_vm_pt_record_fail_map_after(struct nvl_vm_pt_record *rec,
				     unsigned int n);

/**
 * nvl_vm_pt_record_for_each() - call @fn for each recorded run in address
 * order: [@va, @va + @range) of one state (the page fields are those of its
 * first page).
 */
void nvl_vm_pt_record_for_each(struct nvl_vm_pt_record *rec,
			       void (*fn)(uint64_t va, uint64_t range,
					  const struct nvl_vm_pt_page *p,
					  void *arg),
			       void *arg);

#endif /* NVL_VM_PT_RECORD_H */

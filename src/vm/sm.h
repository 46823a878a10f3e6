/* SPDX-License-Identifier: MIT */
/*
 * GPUVM split/merge: operation lists and the transaction that applies them.
 *
 * An operation list (struct nvl_gpuvm_ops) says how to take the VA space from
 * its current state to a requested one: MAP, UNMAP, REMAP (an existing
 * mapping cut, keeping a prev and/or next piece), PREFETCH, and the sparse
 * region ops REGION_CREATE / REGION_DESTROY. Creating a list changes nothing;
 * it can be printed, inspected, or dropped.
 *
 * A transaction (struct nvl_gpuvm_txn) applies lists in two phases:
 *  - nvl_gpuvm_txn_prepare(): allocate everything the list needs (mapping
 *    and region nodes, vm_bos, page-table pages through the backend's get,
 *    room in the transaction's logs), then nvl_gpuvm_txn_apply(): change the
 *    tree (no allocation) so the next list sees the result;
 *  - nvl_gpuvm_txn_commit(): write the page tables (backend map, unmap,
 *    sparse, flush) inside a fence-signalling section: no allocation, no
 *    failure;
 *  - nvl_gpuvm_txn_finish(): after commit, release what the changes freed
 *    (page-table references, nodes); or nvl_gpuvm_txn_abort() instead of
 *    commit to undo every applied list in reverse, leaving the VM exactly as
 *    it was.
 */
#ifndef NVL_VM_SM_H
#define NVL_VM_SM_H

#include "vm/gpuvm.h"

/** struct nvl_gpuvm_map_req - a map request. */
struct nvl_gpuvm_map_req {
	uint64_t addr, range;
	/** @obj: the BO, NULL for a NULL mapping */
	struct nvl_gem_object *obj;
	uint64_t bo_offset;
	/** @flags: NVL_GPUVA_READONLY, NVL_GPUVA_NULL, NVL_GPUVA_NOATOMIC */
	uint32_t flags;
};

enum nvl_gpuvm_op_kind {
	NVL_GPUVM_OP_MAP = 0,
	NVL_GPUVM_OP_UNMAP,
	NVL_GPUVM_OP_REMAP,
	NVL_GPUVM_OP_PREFETCH,
	NVL_GPUVM_OP_REGION_CREATE,
	NVL_GPUVM_OP_REGION_DESTROY,
};

/** struct nvl_gpuvm_piece - a prev/next piece of a REMAP (range 0: none). */
struct nvl_gpuvm_piece {
	uint64_t addr, range, bo_offset;
};

/** struct nvl_gpuvm_op - one operation of a list. */
struct nvl_gpuvm_op {
	uint8_t kind;
	/**
	 * @keep: UNMAP/REMAP inside a map request: the old mapping is the same
	 * BO at a contiguous offset, so its page-table entries may stay
	 */
	bool keep;
	/** @got: page-table references taken by prepare (private) */
	uint8_t got;
	/** @va: UNMAP/REMAP/PREFETCH: the existing mapping; MAP: the new one
	 * once prepared */
	struct nvl_gpuva *va;
	union {
		/** @map: MAP request; REGION_*: addr/range */
		struct nvl_gpuvm_map_req map;
		/** @remap: the pieces kept, with their nodes once prepared */
		struct {
			struct nvl_gpuvm_piece prev, next;
			struct nvl_gpuva *prev_va, *next_va;
		} remap;
		/** @region: REGION_DESTROY: the region; CREATE: new node */
		struct {
			uint64_t addr, range;
			struct nvl_gpuvm_region *r;
		} region;
	};
};

#define NVL_GPUVM_OPS_INLINE 3

/**
 * struct nvl_gpuvm_ops - an ordered operation list. Small lists live inline;
 * longer ones in one heap array.
 */
struct nvl_gpuvm_ops {
	uint32_t n, cap;
	struct nvl_gpuvm_op *v;
	/** @prepared: nodes below are owned by the list until applied */
	bool prepared;
	struct nvl_gpuvm_op inl[NVL_GPUVM_OPS_INLINE];
};

/** nvl_gpuvm_ops_init() - an empty list. */
static inline void nvl_gpuvm_ops_init(struct nvl_gpuvm_ops *ops)
{
	ops->n = 0;
	ops->cap = NVL_GPUVM_OPS_INLINE;
	ops->v = ops->inl;
	ops->prepared = false;
}

/* nvl_gpuvm_ops_fini() for a list that owns memory (sm.c's, txn.c) */
void nvl_gpuvm_ops_release(struct nvl_gpuvm *vm, struct nvl_gpuvm_ops *ops);

/**
 * nvl_gpuvm_ops_fini() - free the list and whatever a prepare allocated for
 * it that was not applied (nodes, vm_bo references, page-table references);
 * the list is empty again. An applied or never prepared list of a few ops
 * (a bind's usual one) owns nothing: no call.
 * @vm: the VM the list was made for
 * @ops: the list
 */
static inline void nvl_gpuvm_ops_fini(struct nvl_gpuvm *vm,
				      struct nvl_gpuvm_ops *ops)
{
	if (!ops->prepared && ops->v == ops->inl)
		ops->n = 0;
	else
		nvl_gpuvm_ops_release(vm, ops);
}

/**
 * nvl_gpuvm_sm_map_ops() - the split/merge list for mapping @req.
 * @vm: the VM (lock held)
 * @req: the mapping (alignment is the caller's business)
 * @ops: an empty list, filled in
 *
 * Return: 0; -EINVAL for an invalid range; -ENOSPC when the request straddles
 * a sparse region's boundary or touches a region destroyed in the current
 * transaction; -ENOMEM.
 */
int nvl_gpuvm_sm_map_ops(struct nvl_gpuvm *vm,
			 const struct nvl_gpuvm_map_req *req,
			 struct nvl_gpuvm_ops *ops) NVL_MUST_CHECK;

/**
 * nvl_gpuvm_sm_unmap_ops() - the list that unmaps [@addr, @addr + @range)
 * (zero ops when nothing is mapped there).
 * Return: 0, -EINVAL for an invalid range, -ENOMEM.
 */
int nvl_gpuvm_sm_unmap_ops(struct nvl_gpuvm *vm, uint64_t addr, uint64_t range,
			   struct nvl_gpuvm_ops *ops) NVL_MUST_CHECK;

/**
 * nvl_gpuvm_bo_unmap_ops() - one UNMAP per mapping of @obj in @vm, in link
 * order. Return: 0, -ENOMEM.
 */
int nvl_gpuvm_bo_unmap_ops(struct nvl_gpuvm *vm, struct nvl_gem_object *obj,
			   struct nvl_gpuvm_ops *ops) NVL_MUST_CHECK;

/**
 * nvl_gpuvm_prefetch_ops() - one PREFETCH per mapping overlapping the range.
 * Return: 0, -EINVAL for an invalid range, -ENOMEM.
 */
int nvl_gpuvm_prefetch_ops(struct nvl_gpuvm *vm, uint64_t addr, uint64_t range,
			   struct nvl_gpuvm_ops *ops) NVL_MUST_CHECK;

/**
 * nvl_gpuvm_region_create_ops() - create a sparse region.
 * Return: 0; -EINVAL for an invalid range; -ENOSPC when the range holds a
 * mapping or a region; -ENOMEM.
 */
int nvl_gpuvm_region_create_ops(struct nvl_gpuvm *vm, uint64_t addr,
				uint64_t range,
				struct nvl_gpuvm_ops *ops) NVL_MUST_CHECK;

/**
 * nvl_gpuvm_region_destroy_ops() - unmap everything inside the region that
 * is exactly [@addr, @addr + @range), then destroy it.
 * Return: 0; -EINVAL for an invalid range; -ENOENT when no live region
 * matches exactly; -ENOMEM.
 */
int nvl_gpuvm_region_destroy_ops(struct nvl_gpuvm *vm, uint64_t addr,
				 uint64_t range,
				 struct nvl_gpuvm_ops *ops) NVL_MUST_CHECK;

/**
 * nvl_gpuvm_op_format() - one line describing @op (demo, debugging).
 * Return: @buf.
 */
char *nvl_gpuvm_op_format(const struct nvl_gpuvm_op *op, char *buf, size_t len);

/* ---- transactions (txn.c) -------------------------------------------- */

enum nvl_gpuvm_pt_cmd_kind {
	NVL_GPUVM_PT_MAP = 0,
	NVL_GPUVM_PT_UNMAP,
	NVL_GPUVM_PT_SPARSE,
};

/** struct nvl_gpuvm_pt_cmd - one page-table write recorded by apply. */
struct nvl_gpuvm_pt_cmd {
	uint8_t kind;
	uint8_t page_shift;
	/** @sparse: UNMAP: to sparse; SPARSE: enable */
	bool sparse;
	uint32_t flags;
	uint64_t addr, range;
	/** @va: MAP: the mapping (its vm_bo's object is what is mapped) */
	struct nvl_gpuva *va;
	uint64_t bo_offset;
};

struct nvl_gpuvm_txn_ent {
	uint8_t kind;
	void *p;
	/**
	 * @pos: T_REMOVE_VA of a mapping with a vm_bo: the entry it followed
	 * on vm_bo->vas (abort puts it back right there, so the link order,
	 * and with it UNMAP_ALL's order, is exactly as before)
	 */
	struct nvl_list *pos;
};

#define NVL_GPUVM_TXN_INLINE 4

/** struct nvl_gpuvm_txn - a bind call's changes, for commit or undo. */
struct nvl_gpuvm_txn {
	struct nvl_gpuvm *vm;
	uint64_t seq;
	uint32_t nlog, caplog, ncmd, capcmd;
	/** @nremoved: mappings removed so far (abort re-inserts them) */
	uint32_t nremoved;
	struct nvl_gpuvm_txn_ent *log;
	struct nvl_gpuvm_pt_cmd *cmd;
	uint64_t flush_lo, flush_hi;
	/**
	 * @hint: the vm_bo of the last mapping this transaction created
	 * (no reference: that mapping keeps it alive until the transaction
	 * ends), so a call mapping one BO many times looks it up once
	 */
	struct nvl_gpuvm_bo *hint;
	/** @pt_done: nvl_gpuvm_txn_finish_pt() ran */
	bool pt_done;
	struct nvl_gpuvm_txn_ent log_inl[NVL_GPUVM_TXN_INLINE];
	struct nvl_gpuvm_pt_cmd cmd_inl[NVL_GPUVM_TXN_INLINE];
};

/**
 * nvl_gpuvm_txn_begin() - start a transaction (VM lock held until the
 * transaction is applied and either committed or aborted).
 */
void nvl_gpuvm_txn_begin(struct nvl_gpuvm *vm, struct nvl_gpuvm_txn *txn);

/**
 * nvl_gpuvm_txn_prepare() - allocate everything @ops needs to be applied
 * and committed. On failure nothing of it is kept (the list's earlier
 * preparation is released by nvl_gpuvm_ops_fini()).
 * Return: 0 or -ENOMEM.
 */
int nvl_gpuvm_txn_prepare(struct nvl_gpuvm_txn *txn,
			  struct nvl_gpuvm_ops *ops) NVL_MUST_CHECK;

/**
 * nvl_gpuvm_txn_apply() - apply a prepared list to the tree and record the
 * page-table writes; allocates nothing, cannot fail. The list then owns
 * nothing and only needs nvl_gpuvm_ops_fini().
 */
void nvl_gpuvm_txn_apply(struct nvl_gpuvm_txn *txn, struct nvl_gpuvm_ops *ops);

/* most requests one nvl_gpuvm_txn_bulk() call takes (a stack buffer each) */
#define NVL_GPUVM_BULK_MAX 64

/**
 * nvl_gpuvm_txn_bulk() - apply @n plain maps (or, with @unmap, plain
 * unmaps) as one operation, when none of them interacts with another or
 * with a mapping the VM holds; the result is that of building, preparing
 * and applying their op lists one request at a time, in order.
 * @txn: the transaction (VM lock held)
 * @unmap: the requests are unmaps (only @addr and @range are read)
 * @reqs: the requests, in call order
 * @n: how many (2 to NVL_GPUVM_BULK_MAX; otherwise 1 is returned)
 *
 * Eligible: every range valid, page aligned and disjoint from the others;
 * maps: no mapping of the VM overlaps any and each lies inside one live
 * region or outside all (nvl_gpuvm_sm_map_ops() would find nothing to
 * split); unmaps: every mapping a range overlaps lies wholly inside it (no
 * REMAP). The check changes nothing. Then every node, vm_bo reference and
 * page-table page is taken in call order (a failure releases them all and
 * leaves the tree untouched), the tree changes in address order (inserts
 * ascending, removals descending: each lands next to the last), vm_bo
 * lists and the change log in call order (abort restores lists exactly),
 * and the page-table commands go in address order, adjacent unmaps of one
 * page size and kind merged into one.
 *
 * Return: 0 applied; 1 not eligible, nothing changed (apply them one at a
 * time); or a negative errno (-ENOMEM, the backend's get() error) with
 * nothing of it applied, and the caller aborts the transaction as after a
 * failed nvl_gpuvm_txn_prepare().
 */
int nvl_gpuvm_txn_bulk(struct nvl_gpuvm_txn *txn, bool unmap,
		       const struct nvl_gpuvm_map_req *reqs, uint32_t n);

/**
 * nvl_gpuvm_txn_commit() - write the page tables. Runs in a
 * fence-signalling section; touches only the transaction and the backend,
 * so it needs no VM lock. Allocates nothing.
 */
void nvl_gpuvm_txn_commit(struct nvl_gpuvm_txn *txn);

/**
 * nvl_gpuvm_txn_finish() - after commit: drop the page-table references of
 * what was removed, free removed nodes (VM lock held), free the logs.
 */
void nvl_gpuvm_txn_finish(struct nvl_gpuvm_txn *txn);

/**
 * nvl_gpuvm_txn_finish_pt() - the page-table half of finish, which may run
 * under the backend's lock (nvl_gpuvm_pt_hold()): drops the page-table
 * references of what the changes freed and decides which nodes go, but
 * frees none (no vm_bo or BO reference is dropped). nvl_gpuvm_txn_finish()
 * then does the rest (and this first, if not done). VM lock held.
 */
void nvl_gpuvm_txn_finish_pt(struct nvl_gpuvm_txn *txn);

/**
 * nvl_gpuvm_pt_hold() - take the page-table backend's lock for a run of
 * prepare, apply, abort, commit and finish_pt calls (one lock round trip
 * for a whole bind; see nvl_vm_pt_ops.lock). Nothing that may wait for a
 * bind (a BO prefetch, a last BO reference) may run until
 * nvl_gpuvm_pt_release().
 * Return: whether it was taken (the backend may have no such lock).
 */
bool nvl_gpuvm_pt_hold(struct nvl_gpuvm *vm);

/** nvl_gpuvm_pt_release() - undo nvl_gpuvm_pt_hold() that returned true */
void nvl_gpuvm_pt_release(struct nvl_gpuvm *vm, bool held);

/**
 * nvl_gpuvm_txn_abort() - instead of commit: undo every applied list in
 * reverse (VM lock held) and free the logs.
 */
void nvl_gpuvm_txn_abort(struct nvl_gpuvm_txn *txn);

/**
 * nvl_gpuvm_txn_move() - move @from (not yet committed) into @to, e.g.
 * into a bind job; @from is left empty.
 */
void nvl_gpuvm_txn_move(struct nvl_gpuvm_txn *to, struct nvl_gpuvm_txn *from);

#endif /* NVL_VM_SM_H */

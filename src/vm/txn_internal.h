/* SPDX-License-Identifier: MIT */
/*
 * The transaction's building blocks, shared by txn.c (op lists) and
 * txn_bulk.c (batches applied as one operation). Inside src/vm only.
 */
#ifndef NVL_VM_TXN_INTERNAL_H
#define NVL_VM_TXN_INTERNAL_H

#include "vm/sm.h"

/* kinds of the change log's entries */
enum {
	T_INSERT_VA = 0,
	T_REMOVE_VA,
	T_INSERT_REGION,
	T_KILL_REGION,
	/* finish_pt's verdicts: free the node (T_FREE_VA), or nothing */
	T_FREE_VA,
	T_DONE,
};

/* a new mapping node; @ref: the caller's reference on @vm_bo goes to it */
struct nvl_gpuva *nvl_txn_new_va(struct nvl_gpuvm *vm, uint64_t addr,
				 uint64_t range, uint64_t off, uint16_t flags,
				 struct nvl_gpuvm_bo *vm_bo, bool ref);
/* the backend's page-table pages for @va (pt->get) */
int nvl_txn_pt_get(struct nvl_gpuvm *vm, struct nvl_gpuva *va);
/* undo nvl_txn_new_va() (and nvl_txn_pt_get() when @got) */
void nvl_txn_release_new_va(struct nvl_gpuvm *vm, struct nvl_gpuva *va,
			    bool got);
/* room for @nlog more log entries and @ncmd more page-table commands */
int nvl_txn_grow(struct nvl_gpuvm_txn *txn, uint32_t nlog, uint32_t ncmd);
/* room in the mapping tree for @need more inserts (counted in tree_room) */
int nvl_txn_reserve_tree(struct nvl_gpuvm *vm, uint32_t need);
/* @n inserts the last reservation covered */
void nvl_txn_took_rooms(struct nvl_gpuvm *vm, uint32_t n);
void nvl_txn_log_add(struct nvl_gpuvm_txn *txn, uint8_t kind, void *p);
void nvl_txn_cmd_add(struct nvl_gpuvm_txn *txn, uint8_t kind, uint64_t addr,
		     uint64_t range, uint8_t shift, bool sparse,
		     struct nvl_gpuva *va);
/* @va lies in a live sparse region (its unmap goes back to sparse) */
bool nvl_txn_in_region(struct nvl_gpuvm *vm, const struct nvl_gpuva *va);
/* sm.c: what nvl_gpuvm_sm_map_ops() checks of the regions, silently */
bool nvl_gpuvm_map_regions_ok(struct nvl_gpuvm *vm, uint64_t addr,
			      uint64_t range);

#endif /* NVL_VM_TXN_INTERNAL_H */

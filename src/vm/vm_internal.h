/* SPDX-License-Identifier: MIT */
/*
 * Private to src/vm: bind queues and bind jobs.
 */
#ifndef NVL_VM_VM_INTERNAL_H
#define NVL_VM_VM_INTERNAL_H

#include "base/client.h"
#include "sched/sched.h"
#include "sync/fence.h"
#include "vm/sm.h"
#include "vm/vm.h"

/** struct nvl_vm_queue - a bind queue: one scheduler entity. */
struct nvl_vm_queue {
	struct nvl_kref ref;
	struct nvl_vm *vm;
	struct nvl_sched_entity entity;
	/** @last: finished fence of the last job pushed (VM lock) */
	struct nvl_fence *last;
	/**
	 * @zlink: on vm->zombies once its handle is gone while binds were
	 * still pending on it (VM lock); the VM then owns it
	 */
	struct nvl_list zlink;
	/** @is_default: the VM's own queue (no VM reference) */
	bool is_default;
};

/** struct nvl_vm_job - an async bind: a scheduler job and its changes. */
struct nvl_vm_job {
	struct nvl_sched_job base;
	struct nvl_vm *vm;
	struct nvl_gpuvm_txn txn;
	/**
	 * @link: on vm->pending from push until freed, or for a cancelled
	 * job until the VM undoes it at teardown (VM lock)
	 */
	struct nvl_list link;
	/** @q: the queue it was pushed to */
	struct nvl_vm_queue *q;
	/**
	 * @lo, @hi: the VA span [lo, hi) its changes touch (every mapping and
	 * region it inserts or removes); lo >= hi: none
	 */
	uint64_t lo, hi;
	/** @committed: run_job wrote the page tables */
	atomic_bool committed;
	/**
	 * @cancelled: freed by the scheduler without having run (VM
	 * teardown); stays on vm->pending until the VM undoes it (VM lock)
	 */
	bool cancelled;
};

/** nvl_vm_queue_idle() - has every bind pushed to @q finished? (VM lock) */
static inline bool nvl_vm_queue_idle(const struct nvl_vm_queue *q)
{
	return !q->last || nvl_fence_is_signaled(q->last);
}

/**
 * nvl_gpuvm_txn_span() - the VA span [@lo, @hi) a transaction's changes
 * touch: every mapping and region it inserted or removed (txn.c).
 * @txn: an applied transaction
 * @lo: out: lowest address (UINT64_MAX when it changed nothing)
 * @hi: out: end of the span (0 when it changed nothing)
 */
void nvl_gpuvm_txn_span(const struct nvl_gpuvm_txn *txn, uint64_t *lo,
			uint64_t *hi);

/**
 * nvl_gpuvm_txn_cancel() - at VM teardown, instead of commit: undo a
 * transaction that never reached the page tables, after every committed
 * one was finished and every later cancelled one was cancelled (VM lock
 * held). Never allocates; mappings it removed leave the tree for good
 * (unmapped and released when they are in the page tables). Frees the logs.
 * @txn: the transaction (txn.c)
 */
void nvl_gpuvm_txn_cancel(struct nvl_gpuvm_txn *txn);

extern const struct nvl_sched_backend_ops nvl_vm_bind_sched_ops;

/**
 * nvl_vm_kop_common() - is @op one of the two common ops that
 * nvl_vm_validate_kop_args() accepts at once: a MAP of a BO with at most
 * READONLY and NO_ATOMIC, or a plain UNMAP, aligned and in range? Inline,
 * so that the bind path's common call does not pay that function's frame
 * (issue 19); anything else goes to it for the full checks and messages.
 * @vm: the VM
 * @op: the op
 * @has_bo: the op names a BO
 */
static inline bool nvl_vm_kop_common(const struct nvl_vm *vm,
				     const struct nvl_vm_kop *op, bool has_bo)
{
	const struct nvl_gpuvm *g = vm->gpuvm;
	uint64_t mask = (1ull << g->page_shift) - 1;
	uint32_t f = op->flags;

	if (unlikely(((op->addr | op->range | op->bo_offset) & mask) ||
		     !nvl_gpuvm_range_valid(g, op->addr, op->range)))
		return false;
	if (op->op == NVL_VM_BIND_OP_MAP)
		return has_bo && !(f & ~(uint32_t)(NVL_VM_BIND_READONLY |
						   NVL_VM_BIND_NO_ATOMIC));
	return op->op == NVL_VM_BIND_OP_UNMAP && !has_bo && !f &&
	       !op->bo_offset;
}

/* nvl_vm_bind_one_pinned()'s answer when the general path must bind */
#define NVL_VM_BIND_GENERAL 1

/**
 * nvl_vm_bind_one_pinned() - a one-op synchronous bind on the default
 * queue, with nothing to wait for or signal, of a VM and BO pinned only by
 * a read section of their client (no references; base/client.h, bind.c).
 * @vm: found inside the caller's read section (nvl_client_read_begin())
 * @op: the op, checked (nvl_vm_validate_kop()), its BO found there too
 *
 * Return: 0 or an error (with a message), the section ended; or
 * NVL_VM_BIND_GENERAL, nothing done and the section still open: the caller
 * takes references and the general path.
 */
int nvl_vm_bind_one_pinned(struct nvl_vm *vm, const struct nvl_vm_kop *op);

#endif /* NVL_VM_VM_INTERNAL_H */

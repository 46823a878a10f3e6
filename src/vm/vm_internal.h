/* SPDX-License-Identifier: MIT */
/*
 * Private to src/vm: bind queues and bind jobs.
 */
#ifndef NVL_VM_VM_INTERNAL_H
#define NVL_VM_VM_INTERNAL_H

#include "sched/sched.h"
#include "vm/sm.h"
#include "vm/vm.h"

/** struct nvl_vm_queue - a bind queue: one scheduler entity. */
struct nvl_vm_queue {
	struct nvl_kref ref;
	struct nvl_vm *vm;
	struct nvl_sched_entity entity;
	/** @last: finished fence of the last job pushed (VM lock) */
	struct nvl_fence *last;
	/** @is_default: the VM's own queue (no VM reference) */
	bool is_default;
};

/** struct nvl_vm_job - an async bind: a scheduler job and its changes. */
struct nvl_vm_job {
	struct nvl_sched_job base;
	struct nvl_vm *vm;
	struct nvl_gpuvm_txn txn;
};

extern const struct nvl_sched_backend_ops nvl_vm_bind_sched_ops;

#endif /* NVL_VM_VM_INTERNAL_H */

/* SPDX-License-Identifier: MIT */
/*
 * Locking a VM's reservation object and every external BO's in one go with
 * the sync layer's exec helper (drm_gpuvm_exec_lock-like).
 */
#ifndef NVL_VM_VM_EXEC_H
#define NVL_VM_VM_EXEC_H

#include "base/compiler.h"

struct nvl_exec;
struct nvl_gpuvm;

/**
 * nvl_gpuvm_prepare_objects() - inside nvl_exec_until_all_locked(): lock
 * the VM's resv and every extobj's, reserving @num_fences fence slots each.
 * @vm: the VM
 * @exec: the exec context
 * @num_fences: slots to reserve per object
 *
 * Return: 0, -EDEADLK (contention; the loop retries), -ENOMEM.
 */
int nvl_gpuvm_prepare_objects(struct nvl_gpuvm *vm, struct nvl_exec *exec,
			      unsigned int num_fences) NVL_MUST_CHECK;

/**
 * nvl_gpuvm_exec_lock() - init @exec and lock everything of @vm with
 * retry. On success the caller owns @exec (nvl_exec_fini() unlocks).
 * @vm: the VM
 * @exec: an uninitialised exec context
 * @num_fences: slots to reserve per object
 *
 * Return: 0 or -ENOMEM (then @exec is already finalised).
 */
int nvl_gpuvm_exec_lock(struct nvl_gpuvm *vm, struct nvl_exec *exec,
			unsigned int num_fences) NVL_MUST_CHECK;

#endif /* NVL_VM_VM_EXEC_H */

/* SPDX-License-Identifier: MIT */
/*
 * The VM object behind a client's VM handle, its bind queues, and the bind
 * path (VM_BIND) from validated operations down to GPUVM transactions and
 * bind jobs on the scheduler.
 */
#ifndef NVL_VM_VM_H
#define NVL_VM_VM_H

#include <stdatomic.h>
#include <stdio.h>

#include <nouvelle/vm.h>

#include "base/list.h"
#include "base/refcount.h"
#include "sync/resv.h"
#include "vm/gpuvm.h"

/*
 * Default bound of a synchronous bind's waiting (wait fences, then pending
 * binds it must follow): 10 s. struct nvl_vm.sync_timeout_ns.
 */
#define NVL_VM_SYNC_TIMEOUT_NS (10ll * 1000 * 1000 * 1000)

struct nvl_client;
struct nvl_fence;
struct nvl_sched;
struct nvl_vm_queue;
struct nvl_vm_pt_record;
struct nvl_vm;

/** struct nvl_vm_backend - a page-table backend and how to release it. */
struct nvl_vm_backend {
	const struct nvl_vm_pt_ops *ops;
	void *priv;
	/** @release: called with @priv when the VM is gone (may be NULL) */
	void (*release)(void *priv);
	/**
	 * @attach: called with @priv and the new VM once it exists (the last
	 * step of a successful nvl_vm_create_internal(); may be NULL): a
	 * device that keeps a list of its VMs links it there, without a
	 * reference (nvl_vm_tryget() takes one), and unlinks it in @release
	 */
	void (*attach)(void *priv, struct nvl_vm *vm);
	/** @big_page_shifts: see struct nvl_gpuvm_args */
	uint64_t big_page_shifts;
	/**
	 * @create_flags: in, for a device's factory: the new VM's
	 * NVL_VM_CREATE_* flags (nvl_vm_create sets it before the call)
	 */
	uint32_t create_flags;
	/**
	 * @va_end: out, from a device's factory: the end of the VA space its
	 * page tables cover (1 << the chip's VA bits); a window past it is
	 * -EINVAL. 0: no limit
	 */
	uint64_t va_end;
};

/** struct nvl_vm - a client's VM. */
struct nvl_vm {
	struct nvl_kref ref;
	struct nvl_gpuvm *gpuvm;
	uint64_t client_id;
	struct nvl_sched *sched;
	struct nvl_vm_queue *defq;
	struct nvl_vm_backend backend;
	/** @rec: the recording backend when the VM uses it, else NULL */
	struct nvl_vm_pt_record *rec;
	/** @dead: a bind failed after its point of no return */
	atomic_bool dead;
	/** @faultable: created NVL_VM_CREATE_FAULTABLE (LAZY binds allowed) */
	bool faultable;
	/** @resv: the VM's shared reservation object (VM-private BOs) */
	struct nvl_resv resv;
	/**
	 * @pending: bind jobs pushed and not yet freed, in submission order
	 * (gpuvm->lock); what a new bind orders itself after
	 */
	struct nvl_list pending;
	/**
	 * @zombies: bind queues whose last handle went while binds were
	 * pending on them; their binds still run (gpuvm->lock)
	 */
	struct nvl_list zombies;
	/**
	 * @sync_timeout_ns: how long a synchronous bind waits, in total, for
	 * its wait fences and for pending binds it must follow
	 */
	int64_t sync_timeout_ns;
};

/** struct nvl_vm_kop - a bind operation with its BO resolved. */
struct nvl_vm_kop {
	uint32_t op, flags;
	uint64_t addr, range, bo_offset;
	/** @obj: MAP/UNMAP_ALL: the BO (the caller's reference) */
	struct nvl_gem_object *obj;
};

/**
 * nvl_vm_create_internal() - create a VM on @backend (NULL: the recording
 * backend), without a handle.
 * @args: window and reserved range (uAPI struct)
 * @backend: page-table backend, or NULL; the VM owns it (and calls its
 *           release) only when this succeeds
 * @client_id: owner, for accounting
 * @vm_out: the VM (one reference)
 *
 * Return: 0, -EINVAL, -ENOMEM.
 */
int nvl_vm_create_internal(const struct nvl_vm_create_args *args,
			   const struct nvl_vm_backend *backend,
			   uint64_t client_id,
			   struct nvl_vm **vm_out) NVL_MUST_CHECK;

/** nvl_vm_get() - take a reference on @vm. */
void nvl_vm_get(struct nvl_vm *vm);

/**
 * nvl_vm_tryget() - take a reference on @vm unless its last one is gone
 * (it is being torn down: its backend's release has not run yet).
 * Return: true when a reference was taken.
 */
bool nvl_vm_tryget(struct nvl_vm *vm);

/**
 * nvl_vm_put() - drop a reference; the last one kills every bind queue of
 * the VM without waiting for anything: binds that have not run are
 * cancelled (their fences signal -ECANCELED, their prepared changes are
 * undone and released), then everything is unmapped and the VM freed.
 * @vm may be NULL.
 */
void nvl_vm_put(struct nvl_vm *vm);

/**
 * nvl_vm_lookup() - the VM behind a client's handle, with a reference.
 * Return: the VM or NULL.
 */
struct nvl_vm *nvl_vm_lookup(struct nvl_client *client, uint32_t handle);

/**
 * nvl_vm_queue_create() - a new bind queue of @vm.
 * @vm: the VM
 * @q_out: the queue (one reference)
 *
 * Return: 0, -ENOENT for an unusable VM, -ENOMEM.
 */
int nvl_vm_queue_create(struct nvl_vm *vm,
			struct nvl_vm_queue **q_out) NVL_MUST_CHECK;

/**
 * nvl_vm_queue_put() - drop a queue reference. The last one frees an idle
 * queue; a queue with binds pending is handed to the VM, its binds still
 * run, and it is freed once idle (next queue creation) or with the VM.
 */
void nvl_vm_queue_put(struct nvl_vm_queue *q);

/**
 * nvl_vm_queue_lookup() - the queue behind a handle, with a reference.
 * Return: the queue or NULL.
 */
struct nvl_vm_queue *nvl_vm_queue_lookup(struct nvl_client *client,
					 uint32_t handle);

/** nvl_vm_queue_vm() - the VM a queue belongs to. */
struct nvl_vm *nvl_vm_queue_vm(const struct nvl_vm_queue *q);

/**
 * nvl_vm_bind_kops() - the bind path below handle resolution.
 * @vm: the VM
 * @q: its queue, or NULL for the default queue
 * @ops: resolved operations
 * @n: how many
 * @waits: fences to wait for (references stay the caller's)
 * @n_waits: how many
 * @flags: enum nvl_vm_bind_flags
 * @done_out: if not NULL: the fence that signals when the page tables are
 *            written (a reference), for the caller's signal syncobjs
 *
 * Return: as nvl_vm_bind().
 */
int nvl_vm_bind_kops(struct nvl_vm *vm, struct nvl_vm_queue *q,
		     const struct nvl_vm_kop *ops, uint32_t n,
		     struct nvl_fence *const *waits, uint32_t n_waits,
		     uint32_t flags,
		     struct nvl_fence **done_out) NVL_MUST_CHECK;

/**
 * nvl_vm_validate_kop() - check one operation against @vm (no change):
 * nvl_vm_validate_kop_args() then nvl_vm_validate_kop_bo().
 * Return: 0 or -EINVAL with a message.
 */
int nvl_vm_validate_kop(const struct nvl_vm *vm, uint32_t i,
			const struct nvl_vm_kop *op) NVL_MUST_CHECK;

/**
 * nvl_vm_validate_kop_args() - the checks that need no BO: op code, flags,
 * alignment, range, and whether the op may (must) name a BO.
 * @vm: the VM
 * @i: the op's index, for the message
 * @op: the op (@op->obj is not read)
 * @has_bo: the op names a BO (a non-zero handle)
 *
 * Return: 0 or -EINVAL with a message.
 */
int nvl_vm_validate_kop_args(const struct nvl_vm *vm, uint32_t i,
			     const struct nvl_vm_kop *op,
			     bool has_bo) NVL_MUST_CHECK;

/**
 * nvl_vm_validate_kop_bo() - a MAP's BO range inside its BO.
 * Return: 0 or -EINVAL with a message.
 */
int nvl_vm_validate_kop_bo(uint32_t i,
			   const struct nvl_vm_kop *op) NVL_MUST_CHECK;

/**
 * nvl_vm_bind_checked() - nvl_vm_bind_kops() for operations the caller
 * has already checked with nvl_vm_validate_kop() (the uAPI entry point):
 * no second validation pass. Same arguments and returns.
 */
/**
 * nvl_vm_binds_pending() - has @vm async binds that have not finished
 * (queued, waiting, or their page-table writes not done)?
 * @vm: the VM
 */
bool nvl_vm_binds_pending(struct nvl_vm *vm);

int nvl_vm_bind_checked(struct nvl_vm *vm, struct nvl_vm_queue *q,
			const struct nvl_vm_kop *ops, uint32_t n,
			struct nvl_fence *const *waits, uint32_t n_waits,
			uint32_t flags,
			struct nvl_fence **done_out) NVL_MUST_CHECK;

/**
 * nvl_vm_fault_map() - service a replayable fault of @vm at @addr: write
 * the page of the mapping covering it (vm/fault.c).
 * @vm: a VM
 * @addr: the faulting address
 * @write: the access was a write (or atomic)
 * @page_out: the page written
 * @size_out: its size
 *
 * Return: 0; -ENOENT when no committed BO mapping covers @addr; -EACCES for
 * a write into a read-only mapping; the backend's error.
 */
int nvl_vm_fault_map(struct nvl_vm *vm, uint64_t addr, bool write,
		     uint64_t *page_out, uint64_t *size_out);

/**
 * nvl_vm_dump() - a readable view of @vm for debugging tools, like the
 * kernel's gpuvm debugfs file: the window, reserved range and page sizes,
 * every sparse region, then every mapping (range, size, BO and offset,
 * page size, flags, region), in address order. Takes the VM lock.
 * @vm: the VM
 * @f: where to print
 *
 * Return: 0, or -EIO when writing failed.
 */
int nvl_vm_dump(struct nvl_vm *vm, FILE *f) NVL_MUST_CHECK;

#endif /* NVL_VM_VM_H */

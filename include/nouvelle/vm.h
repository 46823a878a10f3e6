/* SPDX-License-Identifier: MIT */
/*
 * nouvelle VM API: GPU virtual address spaces managed by the client
 * (VM_BIND), bind queues, sparse regions and NULL mappings.
 *
 * A client creates a VM, then binds buffer objects into it with
 * nvl_vm_bind(): each call carries an ordered array of operations (MAP,
 * UNMAP, UNMAP_ALL, PREFETCH) applied in order, all or nothing, either
 * synchronously (the page tables are written when the call returns) or
 * asynchronously on a bind queue (in order within a queue, independently
 * across queues), after the wait syncobjs and before the signal syncobjs.
 */
#ifndef NOUVELLE_VM_H
#define NOUVELLE_VM_H

#include <nouvelle/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/** struct nvl_vm_create_args - a VM's address window. */
struct nvl_vm_create_args {
	/** @start: first byte of the window (page aligned) */
	uint64_t start;
	/** @end: end of the window, exclusive (page aligned) */
	uint64_t end;
	/** @kernel_start: start of the range reserved for the driver */
	uint64_t kernel_start;
	/** @kernel_range: its size, 0 for none */
	uint64_t kernel_range;
	/** @page_shift: bind granularity, 0 = 12 (4 KiB) */
	uint32_t page_shift;
	/** @flags: enum nvl_vm_create_flags */
	uint32_t flags;
};

/** VM creation flags (struct nvl_vm_create_args.flags). */
enum nvl_vm_create_flags {
	/**
	 * @NVL_VM_CREATE_FAULTABLE: on-demand paging: compute accesses that
	 * miss a valid page table entry are replayable faults the driver
	 * services (it maps the page of the BO bound there with
	 * NVL_VM_BIND_LAZY, then replays) or cancels (the channel dies as
	 * for any MMU fault); required by NVL_VM_BIND_LAZY
	 */
	NVL_VM_CREATE_FAULTABLE = 1u << 0,
};

/** Bind operation codes (struct nvl_vm_bind_op.op). */
enum nvl_vm_bind_opcode {
	/** @NVL_VM_BIND_OP_MAP: map a BO range (or SPARSE region, or NULL) */
	NVL_VM_BIND_OP_MAP = 0,
	/** @NVL_VM_BIND_OP_UNMAP: unmap a range (or destroy a SPARSE region) */
	NVL_VM_BIND_OP_UNMAP = 1,
	/** @NVL_VM_BIND_OP_UNMAP_ALL: unmap every mapping of a BO */
	NVL_VM_BIND_OP_UNMAP_ALL = 2,
	/** @NVL_VM_BIND_OP_PREFETCH: move the mapped BOs to their placement */
	NVL_VM_BIND_OP_PREFETCH = 3,
};

/** Bind operation flags (struct nvl_vm_bind_op.flags). */
enum nvl_vm_bind_op_flags {
	/** @NVL_VM_BIND_READONLY: MAP: GPU writes fault */
	NVL_VM_BIND_READONLY = 1u << 0,
	/**
	 * @NVL_VM_BIND_SPARSE: MAP without BO: create a sparse region (unbacked
	 * pages read zero, writes dropped); UNMAP: destroy the region that is
	 * exactly this range (Nouveau semantics)
	 */
	NVL_VM_BIND_SPARSE = 1u << 1,
	/** @NVL_VM_BIND_NULL: MAP without BO: a NULL mapping (Xe semantics) */
	NVL_VM_BIND_NULL = 1u << 2,
	/**
	 * @NVL_VM_BIND_NO_ATOMIC: MAP with a BO: the GPU may read and write
	 * but its atomics fault (ATOMIC_VIOLATION): the PTE's ATOMIC_DISABLE
	 * (v2) or PCF NO_ATOMIC (v3), e.g. for memory another agent updates
	 * without the GPU's atomics. READONLY mappings are atomic-disabled
	 * already.
	 */
	NVL_VM_BIND_NO_ATOMIC = 1u << 3,
	/**
	 * @NVL_VM_BIND_LAZY: MAP of a BO in a NVL_VM_CREATE_FAULTABLE VM: the
	 * range is the BO's, but no page is written until the GPU's first
	 * access to it faults (each page is then mapped once, by the driver,
	 * and the access replayed); copy-engine and pushbuffer accesses do
	 * not replay, so only compute should touch a lazy range first
	 */
	NVL_VM_BIND_LAZY = 1u << 4,
};

/** struct nvl_vm_bind_op - one operation of a bind call. */
struct nvl_vm_bind_op {
	/** @op: enum nvl_vm_bind_opcode */
	uint32_t op;
	/** @flags: enum nvl_vm_bind_op_flags */
	uint32_t flags;
	/** @handle: BO handle (MAP, UNMAP_ALL), else 0 */
	uint32_t handle;
	/** @pad: must be 0 */
	uint32_t pad;
	/** @addr: GPU virtual address (page aligned; 0 for UNMAP_ALL) */
	uint64_t addr;
	/** @range: size in bytes (page aligned, > 0; 0 for UNMAP_ALL) */
	uint64_t range;
	/** @bo_offset: MAP: offset into the BO (page aligned) */
	uint64_t bo_offset;
};

/** struct nvl_vm_sync - a syncobj to wait for or to signal. */
struct nvl_vm_sync {
	/** @handle: syncobj handle */
	uint32_t handle;
	/** @flags: must be 0 */
	uint32_t flags;
	/** @point: timeline point, 0 for a binary syncobj */
	uint64_t point;
};

/** Bind call flags. */
enum nvl_vm_bind_flags {
	/**
	 * @NVL_VM_BIND_ASYNC: queue the bind and return; without it the call
	 * returns once the page tables are written
	 */
	NVL_VM_BIND_ASYNC = 1u << 0,
};

/**
 * nvl_vm_create() - create a VM.
 * @client: the client
 * @args: the window and reserved range
 * @vm_out: the VM's handle
 *
 * Return: 0; -EINVAL for bad arguments (on a device, a window past the
 * chip's VA bits too: nvl_device_info.va_bits); -ENOMEM.
 */
NVL_API int nvl_vm_create(struct nvl_client *client,
			  const struct nvl_vm_create_args *args,
			  uint32_t *vm_out);

/**
 * nvl_vm_destroy() - drop the VM's handle; once its bind queues' handles
 * are gone too, the VM is torn down without waiting: binds that have not
 * run are cancelled (their signal syncobjs get fences with -ECANCELED and
 * their changes are discarded), then every mapping is unmapped.
 * @client: the client
 * @vm: the VM handle
 *
 * Return: 0, -ENOENT for an unknown handle.
 */
NVL_API int nvl_vm_destroy(struct nvl_client *client, uint32_t vm);

/**
 * nvl_vm_bind_queue_create() - a bind queue of @vm: binds on it run in
 * order, independently of other queues.
 * @client: the client
 * @vm: the VM handle
 * @queue_out: the queue's handle
 *
 * Return: 0; -ENOENT for an unknown or unusable VM; -ENOMEM.
 */
NVL_API int nvl_vm_bind_queue_create(struct nvl_client *client, uint32_t vm,
				     uint32_t *queue_out);

/**
 * nvl_vm_bind_queue_destroy() - drop a bind queue without waiting (its
 * queued binds still run, unless the VM is destroyed first).
 * @client: the client
 * @queue: the queue handle
 *
 * Return: 0, -ENOENT.
 */
NVL_API int nvl_vm_bind_queue_destroy(struct nvl_client *client,
				      uint32_t queue);

/**
 * nvl_vm_bind() - change a VM's mappings.
 * @client: the client
 * @vm: the VM handle
 * @queue: a bind queue of this VM, or 0 for its default queue
 * @ops: the operations, applied in order (a later one sees the earlier
 *       ones' result)
 * @n_ops: how many (0 is allowed: the call only waits and signals)
 * @waits: syncobjs to wait for before the page tables change
 * @n_waits: how many
 * @signals: syncobjs signalled once the page tables are written
 * @n_signals: how many
 * @flags: enum nvl_vm_bind_flags
 *
 * Every operation is checked before anything changes, and a failing call
 * changes nothing. Errors are reported here, for async binds too. Binds on
 * different queues whose changes overlap run in submission order; a
 * synchronous bind first waits (10 s at most, in total) for its waits, its
 * queue's queued binds and pending binds over its range.
 *
 * Return: 0;
 * -EINVAL for an unknown op code or flag, non-zero padding, an unaligned or
 * empty range, a range outside the VM or into its reserved range, a BO range
 * past the BO's end, a handle where none belongs or none where one does;
 * -ENOENT for an unknown VM, queue, BO or syncobj handle (another client's
 * included), a SPARSE unmap matching no region, or a VM made unusable by an
 * earlier asynchronous failure;
 * -ENOSPC for a sparse region over a non-empty range, or a mapping that
 * straddles a region's boundary;
 * -ETIME when a synchronous bind's waits did not signal in time;
 * -EBUSY when a synchronous bind's queue, or a pending bind over its
 * range, did not finish in time;
 * -EAGAIN while the VM's device is suspended (its page tables are saved
 * in system memory until the resume);
 * -ENODEV when the VM's device is lost, or was reset after the VM was
 * made (nvl_device_reset());
 * -ENOMEM.
 */
NVL_API int nvl_vm_bind(struct nvl_client *client, uint32_t vm, uint32_t queue,
			const struct nvl_vm_bind_op *ops, uint32_t n_ops,
			const struct nvl_vm_sync *waits, uint32_t n_waits,
			const struct nvl_vm_sync *signals, uint32_t n_signals,
			uint32_t flags);

#ifdef __cplusplus
}
#endif

#endif /* NOUVELLE_VM_H */

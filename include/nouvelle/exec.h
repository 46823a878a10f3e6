/* SPDX-License-Identifier: MIT */
/*
 * Channels and EXEC (Nouveau's 6.6 uAPI shape).
 *
 * A channel runs pushbuffers on one engine in one of the client's VMs.
 * nvl_exec() queues a job on the channel's scheduler entity: it waits for
 * its wait syncobjs, then its pushes (GPU VAs and lengths in the VM) are
 * written to the channel's GPFIFO, followed by the driver's fence idiom (a
 * semaphore release of the job's sequence number and a non-stall
 * interrupt); the interrupt signals the job's fence, which the signal
 * syncobjs carry.
 */
#ifndef NOUVELLE_EXEC_H
#define NOUVELLE_EXEC_H

#include <stdint.h>

#include <nouvelle/core.h>
#include <nouvelle/device.h>
#include <nouvelle/vm.h>

/**
 * nvl_device_client_create() - open a client on @dev: its BOs live in the
 * device's VRAM and its VMs use the device's page tables. Destroy it
 * (nvl_client_destroy) before closing @dev.
 * @dev: the device
 * @client_out: the new client
 * Return: 0, -EINVAL, -ENOMEM.
 */
NVL_API int nvl_device_client_create(struct nvl_device *dev,
				     struct nvl_client **client_out);

/** Engines a channel may run on. */
enum nvl_engine {
	/** @NVL_ENGINE_COPY: a copy engine (the chip's copy class) */
	NVL_ENGINE_COPY = 0,
	/** @NVL_ENGINE_COMPUTE: the graphics/compute engine (the chip's
	 * compute class, nvl_device_info.compute_class; nouvelle/compute.h) */
	NVL_ENGINE_COMPUTE = 1,
};

/**
 * The kernel range (nvl_vm_create_args.kernel_range) a device VM needs
 * for channels: the driver maps each channel's ring, USERD and semaphore
 * (64 KiB) at kernel_start + 64 KiB x its slot (of 256 per device).
 */
#define NVL_EXEC_KERNEL_RANGE (16u << 20)

/**
 * nvl_channel_create() - a channel on @engine in VM @vm.
 * @client: a device client
 * @vm: the VM handle; its kernel range must be at least
 *   NVL_EXEC_KERNEL_RANGE and end by 2^40 (the driver's GPFIFO entries
 *   and semaphores in it are addressed with 40 bits, on Hopper too)
 * @engine: enum nvl_engine
 * @flags: 0
 * @handle_out: the channel's handle
 *
 * Return: 0; -EINVAL (flags, engine, not a device client, VM without a
 * kernel range or with one past 2^40); -ENOENT (no such VM);
 * -ENOSPC (the client's or the device's channel limit); -ENODEV (the
 * device is lost, or the VM was made before its reset); -EAGAIN (the
 * device is suspended); an RM error; -ENOMEM.
 */
NVL_API int nvl_channel_create(struct nvl_client *client, uint32_t vm,
			       uint32_t engine, uint32_t flags,
			       uint32_t *handle_out);

/**
 * nvl_channel_destroy() - close a channel.
 * @client: its client
 * @channel: its handle
 * Work in flight is abandoned: the channel is taken off the hardware at
 * once and every pending job's fence has signalled when this returns.
 * A job the channel's ring had (written to its GPFIFO, running or not)
 * signals 0 if its semaphore shows it done, else -ECANCELED; a job still
 * queued, which never reached the ring (waiting for a dependency, for ring
 * space, or behind such a job), signals -ESRCH, as a DRM scheduler ends a
 * killed entity's queued jobs; on the channel whose job timeout banned its
 * client, queued jobs signal the ban's -ECANCELED instead (docs/driver.md,
 * docs/faults.md).
 * Return: 0, -EINVAL, -ENOENT.
 */
NVL_API int nvl_channel_destroy(struct nvl_client *client, uint32_t channel);

/**
 * enum nvl_channel_reason - why a channel was killed (docs/faults.md).
 */
enum nvl_channel_reason {
	/** @NVL_CHANNEL_ALIVE: not killed */
	NVL_CHANNEL_ALIVE = 0,
	/** @NVL_CHANNEL_DESTROYED: closed by its client (@error -ECANCELED;
	 * its jobs' errors: nvl_channel_destroy()) */
	NVL_CHANNEL_DESTROYED = 1,
	/** @NVL_CHANNEL_MMU_FAULT: a non-replayable MMU fault (Xid 31,
	 * -EFAULT); the fault_* fields say where */
	NVL_CHANNEL_MMU_FAULT = 2,
	/** @NVL_CHANNEL_PUSHBUFFER: a PBDMA error: bad GPFIFO entry, bad
	 * method, bad semaphore operation (Xid 32, -EIO) */
	NVL_CHANNEL_PUSHBUFFER = 3,
	/** @NVL_CHANNEL_SEM_TIMEOUT: a semaphore acquire timed out (Xid 24,
	 * -ETIMEDOUT) */
	NVL_CHANNEL_SEM_TIMEOUT = 4,
	/** @NVL_CHANNEL_ENGINE_RESET: its engine was reset under it (Xid 43,
	 * -EIO) */
	NVL_CHANNEL_ENGINE_RESET = 5,
	/** @NVL_CHANNEL_ENGINE_EXCEPTION: the engine stopped the channel's
	 * work: a compute illegal instruction, misaligned or out-of-range
	 * access (Xid 13, -EIO) */
	NVL_CHANNEL_ENGINE_EXCEPTION = 6,
	/** @NVL_CHANNEL_JOB_TIMEOUT: a job made no progress for the job
	 * timeout and the firmware could not reset the channel (its
	 * NV906F_CTRL_CMD_RESET_CHANNEL failed, -ETIMEDOUT); a channel it
	 * could reset stays alive (docs/faults.md, "Job timeouts and
	 * recovery") */
	NVL_CHANNEL_JOB_TIMEOUT = 7,
	/** @NVL_CHANNEL_DEVICE_LOST: its device was lost (the GSP died,
	 * nvl_device_status() -ENODEV; -ENODEV): a reset does not revive it */
	NVL_CHANNEL_DEVICE_LOST = 8,
};

/** struct nvl_channel_info - nvl_channel_query(). */
struct nvl_channel_info {
	/** @alive: 1 while the channel takes work */
	uint32_t alive;
	/** @error: why it was killed (a negative errno: -EFAULT for an MMU
	 * fault, -EIO or -ETIMEDOUT for a channel error RM reported,
	 * -ECANCELED when destroyed), 0 while alive */
	int32_t error;
	/** @hw_error: the Xid (robust-channel error code) RM reported in
	 * RC_TRIGGERED when it killed the channel, else 0 */
	uint32_t hw_error;
	/** @chid: the hardware channel id */
	uint32_t chid;
	/** @gp_entries: GPFIFO entries */
	uint32_t gp_entries;
	/** @submitted, @completed: jobs run and jobs finished */
	uint64_t submitted, completed;
	/** @reason: enum nvl_channel_reason */
	uint32_t reason;
	/** @fault_type: the fault entry's FAULT_TYPE (dev_fault: 0 PDE, 2
	 * PTE, 3 VA_LIMIT_VIOLATION, 6 RO_VIOLATION, 0xf ATOMIC_VIOLATION..)
	 * when @reason is NVL_CHANNEL_MMU_FAULT */
	uint32_t fault_type;
	/** @fault_access: its ACCESS_TYPE (0 READ, 1 WRITE, 2 ATOMIC, 3
	 * PREFETCH..) */
	uint32_t fault_access;
	/** @fault_engine: its MMU ENGINE_ID (the chip's CE or HOST id) */
	uint32_t fault_engine;
	/** @fault_va: the faulting VA (4 KiB aligned, as the entry holds
	 * it); 0 when the entry was lost (buffer overflow) */
	uint64_t fault_va;
};

/** struct nvl_fault_stats - nvl_device_fault_stats(). */
struct nvl_fault_stats {
	/** @faults: fault entries the driver decoded */
	uint64_t faults;
	/** @overflows: fault-buffer overflows RM reported (and cleared) */
	uint64_t overflows;
	/** @lost: entries RM could not copy (shadow queue full) */
	uint64_t lost;
	/** @rc_events: RC_TRIGGERED events received */
	uint64_t rc_events;
	/** @killed: channels killed by a fault or a channel error */
	uint64_t killed;
	/**
	 * @replayable: replayable fault entries read (compute accesses that
	 * missed in a NVL_VM_CREATE_FAULTABLE VM; a re-issued access that
	 * misses again is another entry)
	 */
	uint64_t replayable;
	/** @serviced: entries serviced by mapping the page of a bound BO */
	uint64_t serviced;
	/** @cancelled: entries nothing could service (their channel died) */
	uint64_t cancelled;
	/** @replays: REPLAY (or CANCEL) requests sent, one per batch */
	uint64_t replays;
	/** @replay_overflows: replayable-buffer overflows cleared */
	uint64_t replay_overflows;
	/**
	 * @rejected: shadow fault entries the driver refused, killing
	 * nothing: VALID clear or no timestamp (a faulty or forged
	 * firmware's; RM copies valid, PTIMER-stamped entries only)
	 */
	uint64_t rejected;
};

/** struct nvl_move_stats - nvl_device_move_stats(). */
struct nvl_move_stats {
	/** @bytes_moved: bytes the memory manager moved (evictions, moves
	 * back, swap-ins to VRAM), by the copy engine or the CPU */
	uint64_t bytes_moved;
	/** @evictions: BOs evicted from VRAM */
	uint64_t evictions;
	/** @gpu_jobs: moves and clears the copy engine did */
	uint64_t gpu_jobs;
	/** @gpu_bytes: their bytes */
	uint64_t gpu_bytes;
	/** @gpu_failures: copy-engine jobs that failed and were redone by
	 * the CPU (no data lost) */
	uint64_t gpu_failures;
	/** @cpu_jobs: moves and clears the CPU did (the copy engine could
	 * not reach the memory, or queueing the job failed) */
	uint64_t cpu_jobs;
	/** @channel_restarts: the driver's copy channel made anew after a
	 * failed job killed it */
	uint64_t channel_restarts;
};

/** Kinds of nvl_device_inject_move_error(). */
enum nvl_move_error {
	/**
	 * @NVL_MOVE_ERROR_ENGINE: the next @count copy-engine copies fail:
	 * after the copy's first run the copy engine reads outside memory
	 * (a channel error kills the driver's copy channel); the memory
	 * manager redoes them with the CPU
	 */
	NVL_MOVE_ERROR_ENGINE = 1,
	/**
	 * @NVL_MOVE_ERROR_ALLOC: allocation-failure injection on the move
	 * path: the @count-th allocation of the next move or clear's
	 * submission (on the move worker) fails; the CPU does that job
	 */
	NVL_MOVE_ERROR_ALLOC = 2,
};

/**
 * nvl_device_move_stats() - what the memory manager's moves did on @dev.
 * @dev: the device
 * @st: filled in
 * Return: 0 or -EINVAL.
 */
NVL_API int nvl_device_move_stats(struct nvl_device *dev,
				  struct nvl_move_stats *st);

/**
 * nvl_device_inject_move_error() - fault injection on the memory
 * manager's copy-engine moves (enum nvl_move_error).
 * @dev: the device
 * @kind: NVL_MOVE_ERROR_*
 * @count: how many copies fail (ENGINE), or which allocation (ALLOC); 0
 *         disarms
 * Return: 0, -EINVAL, -ENODEV (no copy-engine moves).
 */
NVL_API int nvl_device_inject_move_error(struct nvl_device *dev, uint32_t kind,
					 uint32_t count);

/**
 * nvl_device_fault_stats() - the device's fault and RC counters.
 * @dev: the device
 * @st: filled in
 * Return: 0 or -EINVAL.
 */
NVL_API int nvl_device_fault_stats(struct nvl_device *dev,
				   struct nvl_fault_stats *st);

/**
 * nvl_channel_inject_hang() - fault injection, model devices only: the
 * engine of @channel stops as soon as it picks up the channel's work and
 * makes no progress until it is reset (a job timeout's recovery resets it
 * through the firmware, docs/faults.md). For tests and `nvl run hang`.
 * @client: the channel's client
 * @channel: its handle
 * Return: 0; -EINVAL; -ENOENT (no such channel); -ENODEV (the channel is
 * dead, or the device is not a model).
 */
NVL_API int nvl_channel_inject_hang(struct nvl_client *client,
				    uint32_t channel);

/**
 * nvl_channel_query() - a channel's state.
 * @client: its client
 * @channel: its handle
 * @info: filled in
 * Return: 0, -EINVAL, -ENOENT.
 */
NVL_API int nvl_channel_query(struct nvl_client *client, uint32_t channel,
			      struct nvl_channel_info *info);

/** struct nvl_exec_push - one pushbuffer segment. */
struct nvl_exec_push {
	/** @va: GPU VA in the channel's VM, 4-byte aligned; the segment
	 * ends by 2^40 (a GPFIFO entry has 40 address bits) */
	uint64_t va;
	/** @len: bytes, a multiple of 4, 4 .. 8 MiB - 4 */
	uint32_t len;
	/** @flags: enum nvl_exec_push_flags */
	uint32_t flags;
};

/** Push flags. */
enum nvl_exec_push_flags {
	/** @NVL_EXEC_PUSH_NO_PREFETCH: fetch only after the previous
	 * segment's Host work is done (GPFIFO SYNC) */
	NVL_EXEC_PUSH_NO_PREFETCH = 1u << 0,
};

/** Most pushes in one exec. */
#define NVL_EXEC_MAX_PUSH 64

/**
 * nvl_exec() - run pushbuffers on a channel.
 * @client: the channel's client
 * @channel: its handle
 * @pushes: @n_push segments, run in order
 * @n_push: 1 .. NVL_EXEC_MAX_PUSH
 * @waits: @n_waits syncobjs (binary: point 0) to wait for first
 * @n_waits: 0 .. 64
 * @signals: @n_signals syncobjs to get the job's fence (point 0: the
 *   syncobj's fence replaced, as for a binary syncobj; point > 0: a new
 *   timeline point)
 * @n_signals: 0 .. 64
 * @flags: 0
 *
 * Everything is checked before anything is queued; a rejected exec
 * signals nothing. Return: 0; -EINVAL (no/too many pushes, a zero,
 * unaligned or too long length, a push outside the VM's user range, bad
 * flags... ); -ENOENT (unknown channel
 * or syncobj); -ENODEV (the channel was killed); -EAGAIN (the device is
 * suspended); -ECANCELED (the client is banned after repeated job
 * timeouts, docs/faults.md); -ENOMEM.
 */
NVL_API int nvl_exec(struct nvl_client *client, uint32_t channel,
		     const struct nvl_exec_push *pushes, uint32_t n_push,
		     const struct nvl_vm_sync *waits, uint32_t n_waits,
		     const struct nvl_vm_sync *signals, uint32_t n_signals,
		     uint32_t flags);

#endif /* NOUVELLE_EXEC_H */

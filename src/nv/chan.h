/* SPDX-License-Identifier: MIT */
/*
 * Channels on a device: RM allocates them (instance block, channel RAM,
 * runlist) through the GSP; the driver owns USERD, the GPFIFO ring and the
 * fence semaphore in its channel window of VRAM, mapped in the channel's
 * VM's kernel range. One scheduler and one entity per channel; credits are
 * GPFIFO entries.
 */
#ifndef NVL_NV_CHAN_H
#define NVL_NV_CHAN_H

#include <stdbool.h>
#include <stdint.h>

struct nvl_client;
struct nvl_nv_device;
struct nvl_vm;

/** Channel window slots (each 64 KiB: USERD, semaphore, idioms, ring). */
#define NVL_NV_CHAN_SLOTS 256
/* a client whose jobs timed out this many times is banned: its queued
 * and later jobs fail with -ECANCELED (docs/faults.md) */
#define NVL_NV_HANG_BAN 3
/** Bytes of one slot, and of the VM kernel range one channel uses. */
#define NVL_NV_CHAN_SLOT_SIZE (64u << 10)

/** A client's channel limit. */
#define NVL_NV_CHANS_PER_CLIENT 64

/** nvl_nv_chan_irq() - the non-stall handler: finish completed jobs. */
void nvl_nv_chan_irq(void *dev);

/** struct nvl_nv_kill - which channel to kill, why (nv/fault.c). */
struct nvl_nv_kill {
	/* in: the channel by its instance block or its id */
	bool by_inst;
	uint64_t inst;
	uint64_t timestamp; /* by instance: the entry's; a channel made after
			     * it is another one on a reused instance block */
	uint32_t chid; /* in (by id) and out */
	uint64_t rx; /* by id, optional: the event's nvl_gsp_event_rx(); a
		      * channel made after it is another one on a reused id */
	/* in: the channel's error, the guilty job's, the query's fields */
	int chan_error, job_error;
	uint32_t xid, reason;
	uint32_t fault_type, fault_access, fault_engine;
	uint64_t fault_va;
	/* in, optional: called once when this call kills the channel, before
	 * any of its fences signals (a waiter woken by them sees it counted) */
	void (*on_kill)(void *arg);
	void *on_kill_arg;
	/* out */
	uint64_t client_id;
};

/**
 * nvl_nv_chan_kill() - kill the live channel @k names (RM already stopped
 * it): its guilty job (the oldest unfinished) completes with
 * @k->job_error, those behind it with -ECANCELED.
 * Return: 1 killed now, 0 it was already dead, -ENOENT no such channel.
 */
int nvl_nv_chan_kill(struct nvl_nv_device *d, struct nvl_nv_kill *k);

/**
 * nvl_nv_chan_vm_by_inst() - the VM of the live channel on instance block
 * @inst (made before @timestamp, the fault entry's), referenced: release
 * with nvl_vm_put(). Return: 0 or -ENOENT.
 */
int nvl_nv_chan_vm_by_inst(struct nvl_nv_device *d, uint64_t inst,
			   uint64_t timestamp, struct nvl_vm **vm_out);

/**
 * nvl_nv_chan_hw_ids() - the hardware channel id and runlist of @client's
 * live channel @channel (fault injection).
 * Return: 0, -ENOENT (no such channel), -ENODEV (killed).
 */
int nvl_nv_chan_hw_ids(struct nvl_client *client, uint32_t channel,
		       uint32_t *chid, uint32_t *runlist);

/** nvl_nv_chan_register() - register the channel handle kind (once). */
void nvl_nv_chan_register(void);

/**
 * nvl_nv_chan_quiesce() - wait, bounded by @timeout_ns, until no channel of
 * @d has a job queued or on its ring. Return: 0 or -EBUSY.
 */
int nvl_nv_chan_quiesce(struct nvl_nv_device *d, int64_t timeout_ns);

/**
 * nvl_nv_chan_vms_binds_pending() - has a VM that one of @d's channels
 * runs in async binds still to finish (nvl_vm_binds_pending())? It finds
 * the VMs a client no longer names by handle.
 */
bool nvl_nv_chan_vms_binds_pending(struct nvl_nv_device *d);

/**
 * nvl_nv_chan_finish_deferred() - finish the teardown of the channels
 * destroyed while @d was suspended: RM frees them (when @rm and their
 * firmware is still the one running), their slots leave their VMs and are
 * free again. Called by the resume (@rm true) and by the device's removal.
 */
void nvl_nv_chan_finish_deferred(struct nvl_nv_device *d, bool rm);

/**
 * nvl_nv_chan_device_lost() - the device was lost: every channel is
 * disabled and killed with -ENODEV; the jobs on its ring complete with
 * -ENODEV (those queued behind them get -ENODEV when they would run).
 */
void nvl_nv_chan_device_lost(void *dev);

struct nvl_fence;

/**
 * nvl_nv_chan_create_kernel() - a privileged copy channel of the driver's
 * own @client on its VM @vm (RM's PRIVILEGED_CHANNEL flag: its copy engine
 * may use physical addresses), for the memory manager's moves (nv/move.c).
 * Return: as nvl_channel_create().
 */
int nvl_nv_chan_create_kernel(struct nvl_client *client, uint32_t vm,
			      uint32_t *handle_out);

/**
 * nvl_nv_chan_kernel_pushbuf() - the spare end of @channel's slot, mapped
 * in its VM: a kernel channel's pushbuffer (*@cpu for the CPU, *@va for
 * the GPU, *@bytes long). Return: 0 or -ENOENT.
 */
int nvl_nv_chan_kernel_pushbuf(struct nvl_client *client, uint32_t channel,
			       void **cpu, uint64_t *va, uint32_t *bytes);

/**
 * nvl_nv_chan_submit() - queue the push [@va, +@len) on @channel through
 * its scheduler, without implicit synchronisation; *@done_out (referenced)
 * is the job's finished fence (an error on it: the job failed or never
 * ran). Takes no VM, resv or memory-manager lock.
 * Return: 0, -ENOENT, -ENODEV (killed, or its queue banned), -ENOMEM.
 */
int nvl_nv_chan_submit(struct nvl_client *client, uint32_t channel, uint64_t va,
		       uint32_t len, struct nvl_fence **done_out);

#endif /* NVL_NV_CHAN_H */

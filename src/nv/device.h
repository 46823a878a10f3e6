/* SPDX-License-Identifier: MIT */
/*
 * The NVIDIA device, as the driver probes it behind a hardware interface:
 * BOOT_0 → chip, GSP boot, what the firmware's static info says, and the
 * driver's own RM client, device and subdevice.
 */
#ifndef NVL_NV_DEVICE_H
#define NVL_NV_DEVICE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <pthread.h>

#include "base/client.h"
#include "base/compiler.h"
#include "base/list.h"
#include "gsp/boot.h"
#include "hw/hwif.h"
#include "nv/chip.h"
#include "nv/fault.h"
#include "sync/flock.h"
#include "nouvelle/trace.h"

struct nvl_gsp;
struct nvl_nv_ptmem;
struct nvl_nv_fault;
struct nvl_nv_replay;

/** struct nvl_nv_probe_opts - what the caller of probe may choose. */
struct nvl_nv_probe_opts {
	/** @fw_version: accept only this firmware version (NULL: the chip's) */
	const char *fw_version;
	/** @fw_prefer: @fw_version is a preference: a chip with no files of
	 * it boots its own versions instead */
	bool fw_prefer;
	/** @boot_timeout_ns: bound of each boot wait (0: the GSP default) */
	int64_t boot_timeout_ns;
	/** @trace, @trace_arg: the GSP wire tracer (nouvelle/trace.h) */
	nvl_trace_fn trace;
	void *trace_arg;
	/** @job_timeout_ns: the channels' job timeout (0: 5 s) */
	int64_t job_timeout_ns;
};

/** struct nvl_nv_device - a probed, booted device. */
struct nvl_nv_device {
	/** @cdev: what its clients get (client->dev): the memory manager
	 * (set by the device that owns it) and the VM backend */
	struct nvl_client_dev cdev;
	/** @hw: the hardware interface */
	struct nvl_hw *hw;
	/** @chip: the family's facts, from BOOT_0 (chip.c) */
	const struct nvl_nv_chip *chip;
	/** @name: the chip's name ("tu102"), its firmware directory */
	const char *name;
	/** @fw_versions: the firmware versions the driver accepts for it */
	const char *const *fw_versions;
	/** @boot0: the register's value */
	uint32_t boot0;
	/** @gsp: the GSP client */
	struct nvl_gsp *gsp;
	/** @trace, @trace_arg: its wire tracer, set again on a reset's GSP */
	nvl_trace_fn trace;
	void *trace_arg;
	/** @fw_version: the firmware that booted */
	char fw_version[64];
	/** @boot: what boot learnt (static info, FB regions, timings) */
	struct nvl_gsp_boot_report boot;
	/** @vram_base, @vram_usable: the driver's FB: the largest region RM
	 * left unprotected and unreserved */
	uint64_t vram_base, vram_usable;
	/** @h_client, @h_device, @h_subdevice: the driver's RM objects */
	uint32_t h_client, h_device, h_subdevice;
	/** @mm_size: bytes of FB from @vram_base for BOs (the memory manager) */
	uint64_t mm_size;
	/** @ptmem: page-table memory, above the BOs */
	struct nvl_nv_ptmem *ptmem;
	/** @chan_base: the channel window (NVL_NV_CHAN_SLOTS slots), above */
	uint64_t chan_base;
	/** @chan_lock: @chans, @slot_used (a futex lock: the interrupt
	 * handler takes it for every completion) */
	struct nvl_flock chan_lock;
	/** @chans: live channels (struct nvl_nv_chan.link) */
	struct nvl_list chans;
	uint8_t slot_used[256];
	unsigned nchans;
	/**
	 * @chan_deferred: per slot, a channel destroyed while the device was
	 * suspended (chan_lock): its RM free, and the unmap of its slot from
	 * its VM (a page-table write the resume would undo), wait for the
	 * resume, and the slot stays taken until then (nv/chan.c). @vm NULL:
	 * none.
	 */
	struct nvl_nv_chan_deferred {
		struct nvl_vm *vm;
		uint64_t va;
		uint32_t h_chan, gen;
	} chan_deferred[256];
	/**
	 * @vm_deferred: VMs released while the device was suspended
	 * (struct nvl_nv_vm.deferred, chan_lock): their RM VA spaces are
	 * freed at the resume (nv/vm.c)
	 */
	struct nvl_list vm_deferred;
	/**
	 * @vms_lock: @vms (a leaf: held only to link, unlink or step)
	 */
	struct nvl_flock vms_lock;
	/**
	 * @vms: every VM of the device's clients, from its creation to its
	 * release (struct nvl_nv_vm.dev_link): what the resume brings back
	 * to the truth, channels or not (nvl_nv_vms_rezap())
	 */
	struct nvl_list vms;
	/** @fault: the shadow fault buffer and RC handlers (nv/fault.c) */
	struct nvl_nv_fault *fault;
	/** @replay: the replayable fault buffer and its service (nv/replay.c) */
	struct nvl_nv_replay *replay;
	/** @lost: the GSP died; everything that needs the GPU fails -ENODEV
	 * until nvl_nv_device_reset() */
	_Atomic bool lost;
	/** @notify_lock: @lost_notify, @lost_notify_arg; held while it runs
	 * (nvl_nv_device_set_lost_notify) */
	pthread_mutex_t notify_lock;
	void (*lost_notify)(void *arg);
	void *lost_notify_arg;
	/** @gen: boots of the GSP so far; an RM handle of an older
	 * generation is gone (never freed on the new firmware) */
	_Atomic uint32_t gen;
	/** @job_timeout_ns: the job timeout of its channels (nv/chan.c) */
	int64_t job_timeout_ns;
	/** @hang_ns: per runlist (engine), when a job was last declared
	 * hung on a channel that held that engine at the declaration
	 * (ENGINE_STATUS; time.h clock; 0 never): a channel found on the
	 * engine within a timeout of it has had the engine for less than a
	 * timeout (nv/fault.c nvl_nv_hang_declared(), nvl_nv_hang_recent()) */
	_Atomic int64_t hang_ns[NVL_NV_HANG_RUNLISTS];
	/** @heartbeat_misses: heartbeats in a row without a reply */
	unsigned heartbeat_misses;
	/** @suspended: between nvl_nv_device_suspend() and resume: new
	 * channels and execs fail -EAGAIN */
	_Atomic bool suspended;
	/** @saved, @saved_size: the driver's page tables and channel window,
	 * kept in system memory while VRAM is off (nv/suspend.c) */
	void *saved;
	size_t saved_size;
};

/**
 * nvl_nv_fw_versions() - the GSP firmware versions the driver boots, by
 * default, on the chip whose firmware directory is @name (tu102, tiny,
 * ga102, ad102, gh100): what a device open without a version (and
 * without $NVL_FW_VERSION) looks for; `nvl fw` shows it.
 * Return: a NULL-terminated list, or NULL for a chip the driver has no
 * entry for.
 */
const char *const *nvl_nv_fw_versions(const char *name);

/**
 * nvl_nv_device_probe() - probe the device behind @hw: read BOOT_0, pick
 * the chip, load its firmware, boot the GSP, read its static info and
 * allocate the driver's RM client, device and subdevice.
 * Return: 0; -ENODEV (unknown chip), a firmware-load error (-ENOENT,
 * -EBADMSG, -ENOEXEC), a boot error, -EPROTO (static info without usable
 * FB), -ENOMEM. On failure nothing is left up (GSP unloaded).
 */
int nvl_nv_device_probe(struct nvl_hw *hw, const struct nvl_nv_probe_opts *o,
			struct nvl_nv_device **dev_out) NVL_MUST_CHECK;

/**
 * nvl_nv_device_suspend() - for a suspend to RAM (nv/suspend.c): wait
 * (bounded by @timeout_ns) for the channels to go idle, copy the driver's
 * own VRAM (page tables, channel window) to system memory and suspend the
 * GSP. The caller has moved the BOs out of VRAM.
 * Return: 0; -EBUSY (jobs still running), -EALREADY, -ENODEV, -ENOMEM, a
 * GSP error. On failure nothing changed unless the device is now lost.
 */
int nvl_nv_device_suspend(struct nvl_nv_device *d,
			  int64_t timeout_ns) NVL_MUST_CHECK;

/**
 * nvl_nv_device_resume() - resume the GSP from its saved state and put the
 * driver's VRAM back. Return: 0; -EINVAL (not suspended, or the booter
 * rejected the saved state: still suspended), a GSP error.
 */
int nvl_nv_device_resume(struct nvl_nv_device *d) NVL_MUST_CHECK;

/**
 * nvl_nv_device_remove() - free the driver's RM objects, unload the GSP
 * and free everything. NULL is a no-op.
 */
void nvl_nv_device_remove(struct nvl_nv_device *d);

/**
 * nvl_nv_device_heartbeat() - one NOP round trip to the GSP (bounded by
 * @timeout_ns). A GSP that stopped reading its queue is declared dead by
 * the RPC layer; three heartbeats in a row without a reply declare it
 * dead here. Either way the device is then lost (nvl_nv_device_lost()).
 * Return: 0 alive, -ENODEV lost, -ETIMEDOUT one miss.
 */
int nvl_nv_device_heartbeat(struct nvl_nv_device *d, int64_t timeout_ns);

/**
 * nvl_nv_sysmem_alloc() - @size bytes (whole pages) of zeroed system
 * memory DMA-mapped for the GPU through the hardware interface: the fault
 * buffers the GPU or the firmware write and the driver reads.
 * @d: the device
 * @size: bytes, a multiple of the page size
 * @mem: the CPU address
 * @dma: the GPU's (bus) address
 * Return: 0, -ENOMEM (no memory), or the DMA mapping's error; on error
 * nothing is left allocated (the message says which step failed).
 */
int nvl_nv_sysmem_alloc(struct nvl_nv_device *d, size_t size, void **mem,
			uint64_t *dma);

/** nvl_nv_sysmem_free() - undo nvl_nv_sysmem_alloc(). */
void nvl_nv_sysmem_free(struct nvl_nv_device *d, void *mem, size_t size,
			uint64_t dma);

/**
 * nvl_nv_device_check() - mark the device lost if its GSP was declared
 * dead (by any call). Return: 0 or -ENODEV.
 */
int nvl_nv_device_check(struct nvl_nv_device *d);

/**
 * nvl_nv_device_set_lost_notify() - call @fn(@arg) when the GSP is declared
 * dead by any path (an RPC timing out on any thread, a corrupt queue), so
 * that someone outside the caller's locks runs nvl_nv_device_check() and
 * the waiters of every client are released without waiting for the next
 * call or heartbeat. @fn must not block: it only wakes that someone. NULL
 * removes it; no call of a removed @fn runs after this returns.
 */
void nvl_nv_device_set_lost_notify(struct nvl_nv_device *d,
				   void (*fn)(void *arg), void *arg);

/**
 * nvl_nv_device_lost() - the device is lost: the GSP is marked dead (its
 * log rings captured), every channel killed with -ENODEV and everything it
 * had completed with -ENODEV. Runs once; later calls return at once.
 */
void nvl_nv_device_lost(struct nvl_nv_device *d, const char *why);

/**
 * nvl_nv_device_reset() - after a loss: unload the dead GSP (engine reset,
 * WPR2 down), boot it again and allocate the driver's RM client, device
 * and subdevice anew (a new generation). Nothing else may use @d
 * meanwhile. Return: 0, -EBUSY (not lost), a boot error (still lost).
 */
int nvl_nv_device_reset(struct nvl_nv_device *d) NVL_MUST_CHECK;

int nvl_nv_vm_backend(struct nvl_client_dev *cdev, struct nvl_vm_backend *out);

/**
 * nvl_nv_device_of() - the driver's device of @c, or NULL when @c has no
 * device of this driver (a device-less client, another backend's).
 */
static inline struct nvl_nv_device *nvl_nv_device_of(struct nvl_client *c)
{
	if (!c || !c->dev || c->dev->vm_backend != nvl_nv_vm_backend)
		return NULL;
	return container_of(c->dev, struct nvl_nv_device, cdev);
}

#endif /* NVL_NV_DEVICE_H */

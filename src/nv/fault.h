/* SPDX-License-Identifier: MIT */
/*
 * MMU faults and robust-channel recovery through the GSP (nv/fault.c,
 * docs/faults.md).
 */
#ifndef NVL_NV_FAULT_H
#define NVL_NV_FAULT_H

#include <stdbool.h>
#include <stdint.h>

struct nvl_nv_device;
struct nvl_fault_stats;

/** Entry pages of the shadow fault buffer (128 entries each). */
#define NVL_NV_FAULT_PAGES 4

/**
 * NVL_NV_HANG_RUNLISTS - runlists whose last hang declaration is kept
 * (struct nvl_nv_device.hang_ns); a channel on a runlist past it is never
 * deferred by another channel's hang.
 */
#define NVL_NV_HANG_RUNLISTS 16

/**
 * nvl_nv_hang_declared() - a job was declared hung on a channel that held
 * @runlist's engine at the declaration (ENGINE_STATUS named it, not parked
 * on an acquire, not torn down): it held the engine, making no progress,
 * for a whole job timeout before now. Not for other declarations.
 * @d: the device
 * @runlist: the channel's runlist
 */
void nvl_nv_hang_declared(struct nvl_nv_device *d, uint32_t runlist);

/**
 * nvl_nv_hang_recent() - whether such a declaration on @runlist is less
 * than a job timeout old: a channel found on that engine now got it after
 * that channel's reset, so has had it for less than a timeout.
 * @d: the device
 * @runlist: the runlist
 * Return: true if one is that recent.
 */
bool nvl_nv_hang_recent(struct nvl_nv_device *d, uint32_t runlist);

/**
 * nvl_nv_fault_init() - register the shadow fault buffer with RM and the
 * MMU_FAULT_QUEUED, RC_TRIGGERED and OS_ERROR_LOG handlers.
 * @d: the probed device
 * @arch: BOOT_0 ARCHITECTURE (the MMU engine numbering)
 * Return: 0, -ENOMEM, a DMA-map or RPC error (nothing left registered).
 */
int nvl_nv_fault_init(struct nvl_nv_device *d, unsigned arch);

/** nvl_nv_fault_fini() - unregister and free (no-op when not set up). */
void nvl_nv_fault_fini(struct nvl_nv_device *d);

/** nvl_nv_fault_stats() - a snapshot of the counters. */
void nvl_nv_fault_stats(struct nvl_nv_device *d, struct nvl_fault_stats *st);

#endif /* NVL_NV_FAULT_H */

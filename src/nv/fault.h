/* SPDX-License-Identifier: MIT */
/*
 * MMU faults and robust-channel recovery through the GSP (nv/fault.c,
 * docs/faults.md).
 */
#ifndef NVL_NV_FAULT_H
#define NVL_NV_FAULT_H

struct nvl_nv_device;
struct nvl_fault_stats;

/** Entry pages of the shadow fault buffer (128 entries each). */
#define NVL_NV_FAULT_PAGES 4

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

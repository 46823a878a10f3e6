/* SPDX-License-Identifier: MIT */
/*
 * Replayable faults: the replayable fault buffer, its interrupt and the
 * service thread that maps lazily bound pages and replays (nv/replay.c,
 * docs/faults.md).
 */
#ifndef NVL_NV_REPLAY_H
#define NVL_NV_REPLAY_H

struct nvl_nv_device;
struct nvl_fault_stats;

/** Entry pages of the replayable fault buffer (128 entries each). */
#define NVL_NV_REPLAY_PAGES 4

/** Entries taken from the buffer before one replay (UVM's batch size). */
#define NVL_NV_REPLAY_BATCH 256

/**
 * nvl_nv_replay_init() - program the replayable fault buffer (DMA-mapped
 * system memory), enable its interrupt and start the service thread.
 * @d: the probed device
 * @arch: BOOT_0 ARCHITECTURE (the MMU engine numbering)
 * Return: 0, -ENOMEM, a DMA-map error (nothing left set up).
 */
int nvl_nv_replay_init(struct nvl_nv_device *d, unsigned arch);

/** nvl_nv_replay_fini() - stop and free (no-op when not set up). */
void nvl_nv_replay_fini(struct nvl_nv_device *d);

/**
 * nvl_nv_replay_stats() - add the replayable-fault counters to @st (the
 * non-replayable fields are left as they are).
 */
void nvl_nv_replay_stats(struct nvl_nv_device *d, struct nvl_fault_stats *st);

/**
 * nvl_nv_irq() - the device's interrupt chain after the GSP's: channel
 * completions (nvl_nv_chan_irq) and the replayable-fault interrupt.
 * @dev: the struct nvl_nv_device
 */
void nvl_nv_irq(void *dev);

#endif /* NVL_NV_REPLAY_H */

/* SPDX-License-Identifier: MIT */
/*
 * Per-client engine time (DRM fdinfo's drm-engine-<class>): each job's
 * GPU time from when it reached the ring (PTIMER, read by the driver) to
 * the timestamp its fence idiom's semaphore release wrote, charged to
 * the job's client. Jobs of one channel run in order, so a batch the
 * completion handler finishes is charged once, from the later of its
 * first job's start and the previous batch's end to the release's time.
 */
#ifndef NVL_NV_USAGE_H
#define NVL_NV_USAGE_H

#include <stdint.h>

#include "base/client.h"

struct nvl_hw;

/** nvl_nv_ptimer() - the GPU's PTIMER, ns (TIME_1, TIME_0, TIME_1). */
uint64_t nvl_nv_ptimer(struct nvl_hw *hw);

/**
 * nvl_nv_usage_charge() - charge @client's @engine class with the busy
 * interval [max(*@busy_end, @start_ns), end] where end is the timestamp
 * of the 16-byte semaphore at @sem (+8); *@busy_end becomes end. Does
 * nothing if end is not after the start (no timestamp yet).
 * @client: may be NULL (nothing charged)
 * @engine: enum nvl_client_engine
 * @busy_end: the channel's last charged end
 * @start_ns: when the batch's first job reached the ring
 * @sem: the CPU address of the released semaphore
 */
void nvl_nv_usage_charge(struct nvl_client *client, unsigned engine,
			 uint64_t *busy_end, uint64_t start_ns,
			 const void *sem);

#endif /* NVL_NV_USAGE_H */

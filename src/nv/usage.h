/* SPDX-License-Identifier: MIT */
/*
 * Per-client engine time (DRM fdinfo's drm-engine-<class>): each job's
 * GPU time from when it reached the ring (PTIMER, estimated by the driver
 * from the CPU clock: nvl_nv_ptimer_est()) to the timestamp its fence
 * idiom's semaphore release wrote, charged to the job's client. Jobs of one channel run in order, so a batch the
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
 * struct nvl_nv_ptimer_cal - PTIMER from the CPU clock between reads.
 * @off_ns: PTIMER minus CLOCK_MONOTONIC at the last read
 * @at_ns: CLOCK_MONOTONIC of the last read (0: none yet)
 */
struct nvl_nv_ptimer_cal {
	int64_t off_ns;
	int64_t at_ns;
};

/* how long an offset is used before PTIMER is read again */
#define NVL_NV_PTIMER_RECAL_NS (10 * 1000 * 1000ll)

/**
 * nvl_nv_ptimer_est() - PTIMER now, for a job's start: the cheap monotonic
 * clock (base/clock.h: nvl_clock_ns(), the model's own PTIMER source)
 * plus the offset of the last real read, which is made again once it is
 * NVL_NV_PTIMER_RECAL_NS old (three MMIO reads on hardware, one clock
 * read otherwise). The offset is taken against a clock read made before
 * the PTIMER read, so an estimate is never earlier than the true time
 * and never overstates busy time; the two clocks' drift over the period
 * (ppm) is the error. Not thread-safe: the caller serialises @cal.
 * @hw: the device
 * @cal: the calibration (zeroed before the first use)
 */
uint64_t nvl_nv_ptimer_est(struct nvl_hw *hw, struct nvl_nv_ptimer_cal *cal);

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

// SPDX-License-Identifier: MIT
/*
 * DOC: per-client engine time
 *
 * See usage.h. The semaphore release with RELEASE_TIMESTAMP writes the
 * GPU time at +8 before the payload; the completion handler reads the
 * payload first, so the time it reads is that release's or a later
 * one's. A later one only moves the end forward: the next batch then
 * starts there, and the sum of the charged intervals stays the time the
 * channel had work on the engine.
 */
#include <stdatomic.h>

#include "base/clock.h"
#include "base/time.h"
#include "hw/hwif.h"
#include "hw/regs.h"
#include "nv/usage.h"

uint64_t nvl_nv_ptimer(struct nvl_hw *hw)
{
	uint32_t hi, lo, hi2;

	do {
		hi = nvl_hw_rd32(hw, NVL_HW_PTIMER_TIME_1);
		lo = nvl_hw_rd32(hw, NVL_HW_PTIMER_TIME_0);
		hi2 = nvl_hw_rd32(hw, NVL_HW_PTIMER_TIME_1);
	} while (hi != hi2);
	return (uint64_t)hi << 32 | lo;
}

NVL_HOT uint64_t nvl_nv_ptimer_est(struct nvl_hw *hw,
				   struct nvl_nv_ptimer_cal *cal)
{
	/* the cheap clock: re-calibrated against PTIMER as before */
	int64_t now = nvl_clock_ns();
	uint64_t p;

	if (cal->at_ns && now - cal->at_ns < NVL_NV_PTIMER_RECAL_NS)
		return (uint64_t)(now + cal->off_ns);
	p = nvl_nv_ptimer(hw);
	cal->off_ns = (int64_t)p - now;
	cal->at_ns = now ? now : 1;
	return p;
}

NVL_HOT void nvl_nv_usage_charge(struct nvl_client *client, unsigned engine,
				 uint64_t *busy_end, uint64_t start_ns,
				 const void *sem)
{
	uint64_t end, start;

	end = atomic_load_explicit(
		(const _Atomic uint64_t *)((const uint8_t *)sem + 8),
		memory_order_relaxed);
	start = start_ns > *busy_end ? start_ns : *busy_end;
	if (end <= start)
		return;
	*busy_end = end;
	if (client && engine < NVL_CLIENT_ENGINE_COUNT)
		atomic_fetch_add_explicit(
			(_Atomic uint64_t *)&client->engine_ns[engine],
			end - start, memory_order_relaxed);
}

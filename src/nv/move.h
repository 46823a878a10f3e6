/* SPDX-License-Identifier: MIT */
/*
 * The memory manager's moves and clears on the device's copy engine: a
 * kernel channel the device owns, plugged into the manager as its move
 * ops (mm/bo.h struct nvl_mm_move_ops). See nv/move.c.
 */
#ifndef NVL_NV_MOVE_H
#define NVL_NV_MOVE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/compiler.h"

struct nvl_mm;
struct nvl_nv_device;
struct nvl_nv_move;

/**
 * nvl_nv_move_init() - make the driver's client, VM and privileged copy
 * channel and give @mm's moves and clears to them.
 * @d: the device (booted, interrupts on)
 * @mm: its memory manager
 * @out: the engine
 * Return: 0, -ENOMEM, or the VM's or channel's error; nothing left on
 * failure (@mm keeps CPU copies).
 */
int nvl_nv_move_init(struct nvl_nv_device *d, struct nvl_mm *mm,
		     struct nvl_nv_move **out) NVL_MUST_CHECK;

/**
 * nvl_nv_move_fini() - give the moves back to the CPU (waiting for the
 * jobs in flight), then destroy the channel, VM and client. NULL is a no-op.
 */
void nvl_nv_move_fini(struct nvl_nv_move *mv);

/**
 * nvl_nv_move_inject() - fault injection: the next @count copies fail on
 * the GPU (after their first run the copy engine reads a physical address
 * outside memory: a CE_LAUNCH channel error, RM kills the channel); or,
 * with @alloc, the @count-th allocation of the next job's submission
 * fails (0 disarms either).
 */
void nvl_nv_move_inject(struct nvl_nv_move *mv, bool alloc, uint32_t count);

/** nvl_nv_move_restarts() - kernel channels made anew after one died. */
uint64_t nvl_nv_move_restarts(struct nvl_nv_move *mv);

#endif /* NVL_NV_MOVE_H */

/* SPDX-License-Identifier: MIT */
/*
 * The driver tests' one-channel rig (rig.c), shared by tests that run
 * jobs behind hangs (hang.c, sched_audit.c) or on a lost device
 * (reset_audit.c, vm_audit.c).
 */
#ifndef NVL_TESTS_NV_RIG_H
#define NVL_TESTS_NV_RIG_H

#include <stdint.h>

#include <nouvelle/nouvelle.h>

#define KIB (1ull << 10)
#define MIB (1ull << 20)
#define VA_DST (32 * MIB)
#define VA_PB (48 * MIB)
#define KSTART (1ull << 39)
#define KRANGE (16 * MIB)
#define NSYNC 8
#define SEG 64 /* bytes of pushbuffer per job */

struct rig {
	struct nvl_client *c;
	uint32_t vm, pb, dst, chan, sync[NSYNC];
	uint32_t *ppb, *pdst;
};

int64_t rig_now_ns(void);
/* a client of @dev with its VM, BOs mapped, a copy channel, NSYNC syncobjs */
void rig_up(struct nvl_device *dev, struct rig *k);
void rig_down(struct rig *k);
/* job @i releases 0x1000 + @i into dst[@i], signals sync[@i] */
int rig_exec(struct rig *k, int i);
/* the job's fence status (1 done, or its error), waiting up to 20 s */
int rig_status(struct rig *k, int i);
/* arm the hang of copy engine 0 on @k's channel */
void rig_hang(struct rig *k);
/* a "model:tiny" device with a 1 s job timeout */
struct nvl_device *rig_open_dev(uint32_t heartbeat_ms);
/* the GSP stops reading its queue (the model's NVL_MODEL_GSP_HANG); wait
 * (bounded: 10 s) until the heartbeat finds @dev lost */
void rig_lose(struct nvl_device *dev);

#endif

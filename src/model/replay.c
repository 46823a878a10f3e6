// SPDX-License-Identifier: MIT
/*
 * DOC: replayable faults ("fault and stall")
 *
 * An SM access that misses a valid PTE in a VA space whose instance block
 * has FAULT_REPLAY_TEX/GCC set does not fail: the access parks (the SM
 * worker that made it stalls, with every warp it runs), a packet goes to
 * the replayable fault buffer (buffer 1, REPLAYABLE_FAULT set) and the
 * FAULT_REPLAY stall interrupt is raised. Software services the fault and
 * writes MMU_INVALIDATE with a REPLAY field (regs.h, the register path of
 * memory-and-hardware.md §1.7):
 *
 *  - START or START_ACK_ALL: every parked access is re-issued; one that
 *    misses again parks again with a new packet (a packet that was dropped
 *    on overflow comes back this way);
 *  - CANCEL_TARGETED, CANCEL_GLOBAL or CANCEL_VA_GLOBAL: every parked
 *    access is re-issued once more and one that still misses fails: its
 *    grid stops and its channel gets an MMU-fault error (RC). The model
 *    has one GPC and one uTLB client per SM, so a targeted cancel is a
 *    global one; re-issuing first keeps a cancel aimed at one channel from
 *    failing another channel's access the driver already serviced.
 *
 * A parked access also fails when the model powers off, when its grid was
 * stopped by another worker, or after NVL_MODEL_REPLAY_TIMEOUT_NS of real
 * time with no replay (no one services the buffer: the channel errors
 * rather than hangs).
 */
#include <errno.h>

#include "base/time.h"
#include "hw/fault.h"
#include "hw/regs.h"
#include "model/priv.h"

/* the longest an access stays parked with no REPLAY or CANCEL */
#define NVL_MODEL_REPLAY_TIMEOUT_NS (10ll * NVL_NSEC_PER_SEC)
/* how often a parked access looks at its grid's stop flag */
#define NVL_MODEL_REPLAY_SLICE_NS 1000000ll

int nvl_model_replay_init(struct nvl_model *m)
{
	pthread_condattr_t ca;

	pthread_mutex_init(&m->replay_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&m->replay_cond, &ca);
	pthread_condattr_destroy(&ca);
	return 0;
}

void nvl_model_replay_fini(struct nvl_model *m)
{
	pthread_cond_destroy(&m->replay_cond);
	pthread_mutex_destroy(&m->replay_lock);
}

void nvl_model_replay_shutdown(struct nvl_model *m)
{
	pthread_mutex_lock(&m->replay_lock);
	m->replay_stop = true;
	pthread_cond_broadcast(&m->replay_cond);
	pthread_mutex_unlock(&m->replay_lock);
}

int nvl_model_replay_park(struct nvl_model *m, const struct nvl_model_fault *f,
			  const _Atomic bool *stop)
{
	struct nvl_model_fault rf = *f;
	int64_t deadline = nvl_time_ns() + NVL_MODEL_REPLAY_TIMEOUT_NS;
	uint64_t rgen, cgen;
	int ret;

	pthread_mutex_lock(&m->replay_lock);
	if (m->replay_stop) {
		pthread_mutex_unlock(&m->replay_lock);
		return -ENODEV;
	}
	rgen = m->replay_gen;
	cgen = m->cancel_gen;
	m->replay_parked++;
	pthread_mutex_unlock(&m->replay_lock);

	/* the packet, after the generations were read: a replay that the
	 * packet's interrupt causes is never missed */
	rf.replayable = true;
	nvl_model_fault_report(m, &rf);

	pthread_mutex_lock(&m->replay_lock);
	for (;;) {
		struct timespec ts;
		int64_t now;

		if (m->cancel_gen != cgen) {
			ret = -ECANCELED;
			break;
		}
		if (m->replay_gen != rgen) {
			ret = 0;
			break;
		}
		now = nvl_time_ns();
		if (m->replay_stop || (stop && atomic_load(stop))) {
			ret = -ENODEV;
			break;
		}
		if (now >= deadline) {
			ret = -ETIMEDOUT;
			break;
		}
		ts = nvl_ns_to_timespec(now + NVL_MODEL_REPLAY_SLICE_NS);
		pthread_cond_timedwait(&m->replay_cond, &m->replay_lock, &ts);
	}
	m->replay_parked--;
	pthread_mutex_unlock(&m->replay_lock);
	return ret;
}

void nvl_model_replay_request(struct nvl_model *m, uint32_t inval)
{
	unsigned r = inval >> NVL_HW_MMU_INVALIDATE_REPLAY_SHIFT &
		     NVL_HW_MMU_INVALIDATE_REPLAY_MASK;

	if (r == NVL_HW_MMU_INVALIDATE_REPLAY_NONE || r > 5)
		return;
	pthread_mutex_lock(&m->replay_lock);
	if (r <= NVL_HW_MMU_INVALIDATE_REPLAY_START_ACK_ALL)
		m->replay_gen++;
	else
		m->cancel_gen++;
	pthread_cond_broadcast(&m->replay_cond);
	pthread_mutex_unlock(&m->replay_lock);
}

uint32_t nvl_model_replay_parked(struct nvl_model *m)
{
	uint32_t n;

	pthread_mutex_lock(&m->replay_lock);
	n = m->replay_parked;
	pthread_mutex_unlock(&m->replay_lock);
	return n;
}

// SPDX-License-Identifier: MIT
/*
 * DOC: hub
 *
 * The hub owns the MMU_INVALIDATE registers: the write with TRIGGER
 * latches PDB and flags and invalidates the TLBs (all VAs: the register
 * has no range form; MEM_OP targets ranges)
 * (nvl_model_mmu_invalidate(), under the MMU's lock) before the write
 * returns, so TRIGGER reads 0 again at the driver's first poll. Software
 * polls, as on hardware, where the invalidate takes a few hundred cycles;
 * a round trip to a thread cost the driver tens of microseconds per bind.
 * With SYS_MEMBAR and an ACK the request also drains: TRIGGER stays 1
 * until every engine access in flight at the flush (one that may have
 * translated through the old entries) is done
 * (nvl_model_mmu_invalidate_drain()); each read of the register checks.
 * The model-only MMU_INVALIDATE_HANG register (model/model_regs.h) holds
 * TRIGGER at 1, so that a driver's completion timeout can be tested.
 *
 * The hub thread does the model's asynchronous housekeeping:
 *  - re-delivery of interrupts that became deliverable through a driver
 *    register write (enable or handler installed while pending);
 *  - a 10 ms sensor tick, so thermal alerts arrive without anyone reading
 *    the sensors.
 */
#include <errno.h>

#include "base/alloc.h"
#include "base/time.h"
#include "hw/host.h"
#include "hw/regs.h"
#include "model/mmu.h"
#include "model/model_regs.h"
#include "model/priv.h"

#define HUB_TICK_NS (10 * NVL_NSEC_PER_MSEC)

struct nvl_model_hub {
	struct nvl_model *m;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	bool kick_intr;
	/* MMU_INVALIDATE registers */
	uint32_t pdb, upper_pdb, inval;
	/* the latched request; draining: flushed, accesses in flight */
	bool inval_pending;
	bool inval_started;
	bool inval_draining;
	struct nvl_model_vmctx ctx;
	bool all_pdb;
	uint64_t invalidates_done;
	/* model-only: NVL_MODEL_REG_MMU_INVALIDATE_HANG */
	uint32_t inval_hang;
};

static void hub_complete(struct nvl_model_hub *h)
{
	h->inval_pending = false;
	h->inval_started = false;
	h->inval_draining = false;
	h->inval &= ~NVL_HW_MMU_INVALIDATE_TRIGGER;
	h->invalidates_done++;
}

/*
 * SYS_MEMBAR with an ACK (GLOBALLY; INTRANODE too, the model being one GPU
 * and so one node): the request completes only when the accesses already
 * translated are done (RM's kgmmuSetTlbInvalidateMembarWarParameters_TU102
 * sets both for a PTE downgrade; UVM sets ACK GLOBALLY with a membar "to
 * make sure all the pending accesses can be picked up by the membar").
 * Without them TRIGGER clears once the TLBs are flushed.
 */
static bool hub_drains(uint32_t inval)
{
	return (inval & NVL_HW_MMU_INVALIDATE_SYS_MEMBAR) &&
	       (inval >> NVL_HW_MMU_INVALIDATE_ACK_SHIFT &
		NVL_HW_MMU_INVALIDATE_ACK_MASK);
}

/*
 * Run the latched request (h->lock held, dropped around the TLB work so
 * that the hub lock never nests the MMU lock). A concurrent TRIGGER while
 * it runs is ignored, as on hardware before completion was polled. A
 * draining request whose accesses are still in flight keeps TRIGGER at 1;
 * the reads of MMU_INVALIDATE (the driver's poll) complete it.
 */
static void hub_do_invalidate(struct nvl_model_hub *h)
{
	struct nvl_model_vmctx ctx = h->ctx;
	bool all_pdb = h->all_pdb, done = true;
	uint32_t inval = h->inval;

	h->inval_started = true; /* the HANG register keeps off */
	pthread_mutex_unlock(&h->lock);
	/* HUBTLB_ONLY: the model's one TLB serves hub and GPC clients alike,
	 * so it is flushed all the same */
	done = nvl_model_mmu_invalidate_level(
		h->m->mmu, all_pdb ? NULL : &ctx, 0, 0,
		inval >> NVL_HW_MMU_INVALIDATE_CACHE_LEVEL_SHIFT &
			NVL_HW_MMU_INVALIDATE_CACHE_LEVEL_MASK,
		hub_drains(inval));
	/* parked replayable accesses go again once the TLB is clean */
	nvl_model_replay_request(h->m, inval);
	pthread_mutex_lock(&h->lock);
	if (done)
		hub_complete(h);
	else
		h->inval_draining = true;
}

/* a read of MMU_INVALIDATE: the draining request completes when it can */
static void hub_poll(struct nvl_model_hub *h)
{
	bool done;

	if (!h->inval_draining)
		return;
	pthread_mutex_unlock(&h->lock);
	done = nvl_model_mmu_drained(h->m->mmu);
	pthread_mutex_lock(&h->lock);
	if (done && h->inval_draining)
		hub_complete(h);
}

static void *hub_main(void *arg)
{
	struct nvl_model_hub *h = arg;
	int64_t next_tick = nvl_time_ns() + HUB_TICK_NS;

	pthread_mutex_lock(&h->lock);
	while (!h->stop) {
		if (h->kick_intr) {
			h->kick_intr = false;
			pthread_mutex_unlock(&h->lock);
			nvl_model_intr_deliver(h->m);
			pthread_mutex_lock(&h->lock);
			continue;
		}
		if (nvl_time_ns() >= next_tick) {
			pthread_mutex_unlock(&h->lock);
			nvl_model_pmu_tick(h->m);
			pthread_mutex_lock(&h->lock);
			next_tick = nvl_time_ns() + HUB_TICK_NS;
			continue;
		}
		{
			struct timespec ts = nvl_ns_to_timespec(next_tick);

			pthread_cond_timedwait(&h->cond, &h->lock, &ts);
		}
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

int nvl_model_hub_create(struct nvl_model *m)
{
	struct nvl_model_hub *h = nvl_zalloc(sizeof(*h));
	pthread_condattr_t ca;
	int ret;

	if (!h)
		return -ENOMEM;
	h->m = m;
	pthread_mutex_init(&h->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&h->cond, &ca);
	pthread_condattr_destroy(&ca);
	ret = nvl_might_alloc(0);
	if (!ret && pthread_create(&h->thread, NULL, hub_main, h))
		ret = -ENOMEM;
	if (ret) {
		pthread_cond_destroy(&h->cond);
		pthread_mutex_destroy(&h->lock);
		nvl_free(h);
		return ret;
	}
	m->hub = h;
	return 0;
}

void nvl_model_hub_destroy(struct nvl_model *m)
{
	struct nvl_model_hub *h = m->hub;

	if (!h)
		return;
	pthread_mutex_lock(&h->lock);
	h->stop = true;
	pthread_cond_signal(&h->cond);
	pthread_mutex_unlock(&h->lock);
	pthread_join(h->thread, NULL);
	pthread_cond_destroy(&h->cond);
	pthread_mutex_destroy(&h->lock);
	nvl_free(h);
	m->hub = NULL;
}

void nvl_model_hub_kick_intr(struct nvl_model *m)
{
	struct nvl_model_hub *h = m->hub;

	if (!h)
		return;
	pthread_mutex_lock(&h->lock);
	h->kick_intr = true;
	pthread_cond_signal(&h->cond);
	pthread_mutex_unlock(&h->lock);
}

uint32_t nvl_model_hub_rd(struct nvl_model *m, uint32_t addr, bool *ok)
{
	struct nvl_model_hub *h = m->hub;
	uint32_t v;

	*ok = true;
	pthread_mutex_lock(&h->lock);
	switch (addr) {
	case NVL_HW_MMU_INVALIDATE_PDB:
		v = h->pdb;
		break;
	case NVL_HW_MMU_INVALIDATE_UPPER_PDB:
		v = h->upper_pdb;
		break;
	case NVL_MODEL_REG_MMU_INVALIDATE_HANG:
		v = h->inval_hang;
		break;
	case NVL_HW_MMU_INVALIDATE:
		hub_poll(h);
		v = h->inval;
		break;
	default:
		*ok = false;
		v = 0;
	}
	pthread_mutex_unlock(&h->lock);
	return v;
}

static void hub_latch(struct nvl_model_hub *h, uint32_t val)
{
	uint64_t pdb =
		(uint64_t)(h->pdb >> NVL_HW_MMU_INVALIDATE_PDB_ADDR_SHIFT)
			<< 12 |
		(uint64_t)h->upper_pdb << 40;

	h->inval = val;
	h->ctx.pdb = pdb;
	h->ctx.aperture = (h->pdb & NVL_HW_MMU_INVALIDATE_PDB_SYS)
				  ? NVL_HW_APERTURE_SYS_COH
				  : NVL_HW_APERTURE_VIDMEM;
	h->ctx.version = h->m->profile->mmu_version;
	h->all_pdb = val & NVL_HW_MMU_INVALIDATE_ALL_PDB;
	/* no VA-range form exists: every request covers all VAs */
	h->inval_pending = true;
}

void nvl_model_hub_wr(struct nvl_model *m, uint32_t addr, uint32_t val)
{
	struct nvl_model_hub *h = m->hub;

	pthread_mutex_lock(&h->lock);
	switch (addr) {
	case NVL_HW_MMU_INVALIDATE_PDB:
		/* APERTURE 1:1 and ADDR 31:4 are the register's only fields */
		h->pdb = val & (NVL_HW_MMU_INVALIDATE_PDB_ADDR_MASK |
				NVL_HW_MMU_INVALIDATE_PDB_SYS);
		break;
	case NVL_HW_MMU_INVALIDATE_UPPER_PDB:
		h->upper_pdb = val & NVL_HW_MMU_INVALIDATE_UPPER_PDB_ADDR_MASK;
		break;
	case NVL_MODEL_REG_MMU_INVALIDATE_HANG:
		/* model-only: while set, a triggered invalidate never
		 * completes; clearing it completes the pending one */
		h->inval_hang = val & 1;
		if (!h->inval_hang && h->inval_pending && !h->inval_started)
			hub_do_invalidate(h);
		break;
	case NVL_HW_MMU_INVALIDATE:
		/* a new request while one is in flight is ignored, as a
		 * trigger written before polling completion would be */
		if ((val & NVL_HW_MMU_INVALIDATE_TRIGGER) &&
		    !h->inval_pending) {
			hub_latch(h, val);
			if (!h->inval_hang)
				hub_do_invalidate(h);
		}
		break;
	default:
		break;
	}
	pthread_mutex_unlock(&h->lock);
}

// SPDX-License-Identifier: MIT
/*
 * DOC: the model RM's interrupt service: MMU faults and robust channels
 *
 * On a GSP-era GPU the firmware's RM owns the stall interrupts of channel
 * errors, MMU faults and fault-buffer overflow (intr.c routes them here
 * while RM runs); the driver learns of them only through events:
 *
 *  - FAULT / FAULT_OVERFLOW: RM reads the hardware non-replayable fault
 *    buffer it programmed in its carve-out (GET..PUT), copies each valid
 *    entry into the driver's shadow fault buffer (registered with
 *    NV2080_CTRL_CMD_INTERNAL_GMMU_REGISTER_CLIENT_SHADOW_FAULT_BUFFER),
 *    clears the entry's VALID bit, advances GET, and sends
 *    MMU_FAULT_QUEUED (no payload). A full shadow queue drops the entry
 *    (LOST); an overflowed hardware buffer is counted (OVERFLOWS) and
 *    cleared, so faults are recorded again.
 *  - FIFO: for every channel in CHERR_PENDING, RM reads the error, tears
 *    the channel down (ENABLE_CLR: it stops and stays off until freed),
 *    and sends OS_ERROR_LOG then RC_TRIGGERED with the error as an Xid
 *    (nverror.h's ROBUST_CHANNEL_*): 31 MMU fault, 24 semaphore acquire
 *    timeout, 43 engine reset, 32 every other PBDMA/engine error.
 *  - CE: a copy engine's BLOCKPIPE (LAUNCH_DMA INTERRUPT_TYPE BLOCKING):
 *    RM clears NV_CE_LCE_INTR_STATUS and counts it (ce_blockpipes).
 *
 * Faults are serviced before channel errors, and again after reading
 * CHERR_PENDING (an error seen there may be newer than the last fault
 * pass; its entry is already in the buffer), so a faulting channel's
 * MMU_FAULT_QUEUED always reaches the driver before its RC_TRIGGERED.
 *
 * Where it runs: with the GSP's core held (priv.h), on the thread that
 * raised the interrupt when the core is idle (nvl_fw_rc_run(), called by
 * intr.c once its lock is dropped), else on the firmware's own thread,
 * kicked. Either way the service, its events and their one message
 * interrupt are the same. Channel errors that are all MMU faults (their
 * entries already went out, so the driver killed the channels) are left
 * to RM's own thread at its next wake-up, at the latest the PMU's tick:
 * nothing runs on the raising thread between the kill and its sleep.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/time.h"
#include "hw/fault.h"
#include "hw/host.h"
#include "hw/regs.h"
#include "model/gsp/priv.h"

#define FAULT_INTRS (NVL_HW_INTR_FAULT | NVL_HW_INTR_FAULT_OVERFLOW)

static uint32_t rd(struct nvl_model_gsp *g, uint32_t a)
{
	return g->m->hw.ops->rd32(&g->m->hw, a);
}

static void wr(struct nvl_model_gsp *g, uint32_t a, uint32_t v)
{
	g->m->hw.ops->wr32(&g->m->hw, a, v);
}

/*
 * Called by intr.c with its lock held: take the bits while RM runs. A
 * raise taken owes one nvl_fw_rc_run(), which intr.c makes on the same
 * thread once its lock is dropped (destroy waits for it).
 */
bool nvl_fw_rc_intr(void *arg, uint32_t bits)
{
	struct nvl_model_gsp *g = arg;
	bool taken;

	pthread_mutex_lock(&g->lock);
	taken = g->state == NVL_MODEL_GSP_RUNNING;
	if (taken) {
		g->intr_pending |= bits;
		g->runners++;
	}
	pthread_mutex_unlock(&g->lock);
	return taken;
}

/*
 * Whether every channel error pending is an MMU fault: the fault's entry
 * went out before the channel stopped (the engine writes it first, and
 * the raising thread serviced it), so the driver has killed the channel
 * already, and RM's channel-error service (Xid 31's log line,
 * OS_ERROR_LOG, RC_TRIGGERED) is bookkeeping nobody waits for.
 */
static bool only_mmu_faults(struct nvl_model_gsp *g)
{
	unsigned nch = g->m->profile->num_channels;
	bool any = false;

	for (unsigned w = 0; w < (nch + 31) / 32; w++) {
		uint32_t pend = rd(g, NVL_HW_CHERR_PENDING(w));

		while (pend) {
			unsigned chid = w * 32 + (unsigned)__builtin_ctz(pend);

			pend &= pend - 1;
			if (rd(g, NVL_HW_CHRAM_ERROR(chid)) !=
			    NVL_HW_CHERR_MMU_FAULT)
				return false;
			any = true;
		}
	}
	return any;
}

/*
 * The GSP services the interrupt it took: on the raising thread when its
 * core is idle, as the firmware's thread would (the fault entries into
 * the shadow queue, MMU_FAULT_QUEUED, then the channel errors and their
 * events, then the message interrupt, with the core held: the order and
 * the state are the firmware's), else by kicking the firmware's thread,
 * which finds intr_pending when it next looks. No model lock is held
 * here (intr.c drops its own first); the driver's message interrupt runs
 * on this thread, as any raise's would.
 */
void nvl_fw_rc_run(void *arg)
{
	struct nvl_model_gsp *g = arg;
	bool kick = true, core = !pthread_mutex_trylock(&g->core);

	if (core) {
		uint32_t bits = 0;
		bool defer;

		pthread_mutex_lock(&g->lock);
		defer = g->intr_pending == NVL_HW_INTR_FIFO;
		if (defer) {
			/* only faulted channels' errors: left to RM's own
			 * thread, not even woken for them (below), so the
			 * raising thread goes back to sleep at once and the
			 * waiter the kill woke (on a busy machine often on
			 * this CPU) runs next */
			pthread_mutex_unlock(&g->lock);
			defer = only_mmu_faults(g);
			pthread_mutex_lock(&g->lock);
		}
		/* (a fault's raise takes its bits in one pass) */
		if (g->state == NVL_MODEL_GSP_RUNNING && !g->hang && !g->stop &&
		    !(defer && g->intr_pending == NVL_HW_INTR_FIFO)) {
			bits = g->intr_pending;
			g->intr_pending = 0;
			g->st.rc_inline += !!bits;
		} else if (defer) {
			g->rc_deferred = true;
		}
		pthread_mutex_unlock(&g->lock);
		if (bits) {
			g->tx_nowait = true;
			nvl_fw_service_intr(g, bits);
			g->tx_nowait = false;
		}
		pthread_mutex_unlock(&g->core);
	}
	pthread_mutex_lock(&g->lock);
	/* what is left (an event queue that filled, a status queue without
	 * room, a hang) is the firmware thread's; faulted channels' errors
	 * wait for its next wake-up (a command, an event, at the latest the
	 * PMU's tick: nvl_fw_rc_tick()). Looked at once the core is let go
	 * (one round trip of g->lock fewer on the kill's thread): whoever
	 * took the core since serves what it finds, and a kick is only a
	 * wake-up */
	if (core)
		kick = (g->intr_pending && !g->rc_deferred) || g->ev_count;
	if (kick)
		nvl_fw_kick(g);
	if (!--g->runners && g->stop)
		nvl_fw_kick(g);
	pthread_mutex_unlock(&g->lock);
}

/*
 * A freshly booted RM owns no channel: wait (bounded) until every engine
 * the reset recovered has blamed the channel it held (the old firmware's:
 * ENGINE_STATUS shows HUNG until then), then drop those channels' pending
 * errors, so that no RC_TRIGGERED reaches the new driver for a channel ID
 * it may hand out again.
 */
static void rc_forget_old_channels(struct nvl_model_gsp *g)
{
	unsigned nrl = g->m->profile->num_ce + 1; /* copy engines, compute */
	unsigned nch = g->m->profile->num_channels;
	int64_t dl = nvl_time_ns() + 100 * NVL_NSEC_PER_MSEC;

	for (unsigned e = 0; e < nrl; e++)
		while ((rd(g, NVL_HW_ENGINE_STATUS(e)) &
			NVL_HW_ENGINE_STATUS_HUNG) &&
		       nvl_time_ns() < dl)
			nanosleep(&(struct timespec){0, 100000}, NULL);
	for (unsigned w = 0; w < (nch + 31) / 32; w++)
		wr(g, NVL_HW_CHERR_PENDING(w), ~0u);
}

/* RM init: its hardware fault buffer, no shadow yet */
void nvl_fw_rc_reset(struct nvl_model_gsp *g)
{
	uint64_t pa = nvl_fw_rm_fault_buf_pa(g);

	pthread_mutex_lock(&g->lock);
	g->intr_pending = 0;
	g->rc_deferred = false;
	memset(&g->shadow, 0, sizeof(g->shadow));
	g->shadow_put = 0;
	g->shadow_get = 0;
	pthread_mutex_unlock(&g->lock);
	wr(g, NVL_HW_FAULT_BUF_LO(NVL_HW_FAULT_BUF_NONREPLAY),
	   NVL_HW_FAULT_BUF_LO_PHYS(pa, NVL_HW_FAULT_APERTURE_VID));
	wr(g, NVL_HW_FAULT_BUF_HI(NVL_HW_FAULT_BUF_NONREPLAY),
	   (uint32_t)(pa >> 32));
	wr(g, NVL_HW_FAULT_BUF_SIZE(NVL_HW_FAULT_BUF_NONREPLAY),
	   FW_FAULT_BUF_ENTRIES | NVL_HW_FAULT_BUF_SIZE_ENABLE |
		   NVL_HW_FAULT_BUF_SIZE_OVERFLOW_INTR);
	/* a freshly booted RM brings every engine up from reset: an engine a
	 * dead firmware left hung (a device reset after a lost GSP) runs
	 * again; the channel it held belongs to the old firmware */
	wr(g, NVL_HW_PMC_ENGINE_RESET, ~0u);
	rc_forget_old_channels(g);
}

uint32_t nvl_fw_rc_register_shadow(struct nvl_model_gsp *g, const void *params,
				   size_t size, bool on)
{
	struct nvl_fw_shadow_reg r;
	uint32_t pages, put = 0;

	if (!on) {
		pthread_mutex_lock(&g->lock);
		g->shadow.on = false;
		pthread_mutex_unlock(&g->lock);
		return NV_OK;
	}
	if (!g->wire->shadow_fault_buf ||
	    !g->wire->shadow_fault_buf(params, size, &r))
		return NV_ERR_INVALID_PARAM_STRUCT;
	pages = (r.size + GSP_PAGE_SIZE - 1) / GSP_PAGE_SIZE;
	if (r.type != 0 || !r.queue_pa || (r.queue_pa & 0xfff) ||
	    r.size < 2 * NVL_HW_FAULT_ENTRY_SIZE ||
	    r.size % NVL_HW_FAULT_ENTRY_SIZE || pages > r.max_pages ||
	    pages > FW_SHADOW_MAX_PAGES)
		return NV_ERR_INVALID_ARGUMENT;
	pthread_mutex_lock(&g->lock);
	g->shadow.on = true;
	g->shadow.queue_pa = r.queue_pa;
	g->shadow.entries = r.size / NVL_HW_FAULT_ENTRY_SIZE;
	for (uint32_t i = 0; i < pages; i++)
		memcpy(&g->shadow.pte[i],
		       (const uint8_t *)params + r.pte_off + i * 8, 8);
	g->shadow_put = 0;
	g->shadow_get = 0;
	pthread_mutex_unlock(&g->lock);
	/* a fresh queue: PUT = GET = 0, nothing counted */
	for (unsigned off = 0; off < 16; off += 4)
		nvl_fw_dma(g, r.queue_pa + off, &put, 4, true);
	return NV_OK;
}

static void shadow_add(struct nvl_model_gsp *g, unsigned off, uint32_t n)
{
	uint32_t v = 0;

	if (nvl_fw_dma(g, g->shadow.queue_pa + off, &v, 4, false))
		return;
	v += n;
	nvl_fw_dma(g, g->shadow.queue_pa + off, &v, 4, true);
}

/*
 * Copy one entry into the shadow queue (PUT is published by
 * shadow_publish(), once per service); false when it had to drop it.
 * The driver's GET only moves forward, so the copy last read can only
 * under-state the room: it is read again only when the queue looks full
 * (one DMA read fewer per fault on the kill's path).
 */
static bool shadow_push(struct nvl_model_gsp *g, const uint32_t e[8])
{
	uint32_t put = g->shadow_put, next;
	uint64_t at;

	if (!g->shadow.on)
		return false;
	next = (put + 1) % g->shadow.entries;
	if (next == g->shadow_get) {
		uint32_t get = 0;

		if (nvl_fw_dma(g,
			       g->shadow.queue_pa + NVL_SHADOW_FAULT_QUEUE_GET,
			       &get, 4, false))
			return false;
		g->shadow_get = get % g->shadow.entries;
		if (next == g->shadow_get)
			return false;
	}
	at = (uint64_t)put * NVL_HW_FAULT_ENTRY_SIZE;
	at = g->shadow.pte[at / GSP_PAGE_SIZE] + at % GSP_PAGE_SIZE;
	if (nvl_fw_dma(g, at, (void *)e, NVL_HW_FAULT_ENTRY_SIZE, true))
		return false;
	g->shadow_put = next;
	return true;
}

/* the new PUT, after the entries it covers */
static void shadow_publish(struct nvl_model_gsp *g)
{
	uint32_t put = g->shadow_put;

	__atomic_thread_fence(__ATOMIC_RELEASE);
	nvl_fw_dma(g, g->shadow.queue_pa + NVL_SHADOW_FAULT_QUEUE_PUT, &put, 4,
		   true);
}

/* NVL_MODEL_GSP_FORGE_FAULT: the copy of @e a forged firmware sends */
static void forge(struct nvl_model_gsp *g, uint32_t e[8])
{
	const enum nvl_model_gsp_fault f = NVL_MODEL_GSP_FORGE_FAULT;
	uint64_t arg, inst;

	if (!__atomic_load_n(&g->fault_count[f], __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&g->lock);
	if (!g->fault_count[f]) {
		pthread_mutex_unlock(&g->lock);
		return;
	}
	__atomic_store_n(&g->fault_count[f], g->fault_count[f] - 1,
			 __ATOMIC_RELAXED);
	arg = g->fault_arg[f];
	pthread_mutex_unlock(&g->lock);
	if ((arg & 0xffffffffu) != NVL_MODEL_GSP_FORGE_KEEP_INST) {
		inst = nvl_fw_rm_carve_base(g) +
		       (arg & 0xffffffffu) * NVL_HW_INST_SIZE;
		e[NVL_HW_FAULT_ENTRY_INST_LO] =
			(e[NVL_HW_FAULT_ENTRY_INST_LO] & 0xfffu) |
			((uint32_t)inst & ~0xfffu);
		e[NVL_HW_FAULT_ENTRY_INST_HI] = (uint32_t)(inst >> 32);
	}
	if (arg & NVL_MODEL_GSP_FORGE_NO_VALID)
		e[NVL_HW_FAULT_ENTRY_INFO] &= ~NVL_HW_FAULT_INFO_VALID;
	if (arg & NVL_MODEL_GSP_FORGE_NO_TIMESTAMP)
		e[NVL_HW_FAULT_ENTRY_TIMESTAMP_LO] =
			e[NVL_HW_FAULT_ENTRY_TIMESTAMP_HI] = 0;
}

static void fault_service(struct nvl_model_gsp *g)
{
	const unsigned b = NVL_HW_FAULT_BUF_NONREPLAY;
	uint64_t pa = nvl_fw_rm_fault_buf_pa(g);
	uint32_t get = rd(g, NVL_HW_FAULT_BUF_GET(b));
	uint32_t put =
		rd(g, NVL_HW_FAULT_BUF_PUT(b)) & NVL_HW_FAULT_BUF_PTR_MASK;
	uint32_t copied = 0, lost = 0;
	bool ovf = get & (NVL_HW_FAULT_BUF_GET_OVERFLOW |
			  NVL_HW_FAULT_BUF_GET_CORRUPTED);

	get &= NVL_HW_FAULT_BUF_PTR_MASK;
	while (get != put) {
		uint8_t *p = nvl_model_phys_ptr(
			g->m, pa + (uint64_t)get * NVL_HW_FAULT_ENTRY_SIZE,
			NVL_HW_FAULT_ENTRY_SIZE);
		uint32_t e[8];

		if (!p)
			break;
		nvl_model_mem_copy(e, p, sizeof(e));
		if (e[NVL_HW_FAULT_ENTRY_INFO] & NVL_HW_FAULT_INFO_VALID) {
			uint32_t c[8];

			memcpy(c, e, sizeof(c));
			forge(g, c);
			if (shadow_push(g, c))
				copied++;
			else
				lost++;
			e[NVL_HW_FAULT_ENTRY_INFO] &= ~NVL_HW_FAULT_INFO_VALID;
			nvl_model_mem_copy(p + 28, &e[7], 4);
		}
		get = (get + 1) % FW_FAULT_BUF_ENTRIES;
	}
	if (copied)
		shadow_publish(g);
	/* the new GET; an overflow is cleared (write 1) and counted */
	wr(g, NVL_HW_FAULT_BUF_GET(b),
	   get | (ovf ? NVL_HW_FAULT_BUF_GET_OVERFLOW |
				  NVL_HW_FAULT_BUF_GET_CORRUPTED
		      : 0));
	if (g->shadow.on) {
		if (ovf)
			shadow_add(g, NVL_SHADOW_FAULT_QUEUE_OVERFLOWS, 1);
		if (lost)
			shadow_add(g, NVL_SHADOW_FAULT_QUEUE_LOST, lost);
	}
	/* (the stats are read under the lock by other threads) */
	pthread_mutex_lock(&g->lock);
	g->st.faults_copied += copied;
	g->st.faults_lost += lost;
	g->st.fault_overflows += ovf;
	pthread_mutex_unlock(&g->lock);
	if (ovf)
		nvl_fw_log(g, LOG_RM, "MMU: fault buffer overflow cleared");
	if (copied || ovf)
		(void)nvl_fw_post_event(g, NV_VGPU_MSG_EVENT_MMU_FAULT_QUEUED,
					NULL, 0);
}

static uint32_t xid_of(uint32_t cherr, const char **what)
{
	switch (cherr) {
	case NVL_HW_CHERR_MMU_FAULT:
		*what = "MMU fault";
		return ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT;
	case NVL_HW_CHERR_COMPUTE:
		*what = "compute engine exception";
		return ROBUST_CHANNEL_GR_EXCEPTION;
	case NVL_HW_CHERR_ACQUIRE:
		*what = "semaphore acquire timeout";
		return ROBUST_CHANNEL_GR_SEMAPHORE_TIMEOUT;
	case NVL_HW_CHERR_ENGINE_RESET:
		*what = "engine reset";
		return ROBUST_CHANNEL_RESETCHANNEL_VERIF_ERROR;
	case NVL_HW_CHERR_GPENTRY:
		*what = "bad GPFIFO entry";
		return ROBUST_CHANNEL_PBDMA_ERROR;
	case NVL_HW_CHERR_GPPTR:
		*what = "GP_PUT outside the ring";
		return ROBUST_CHANNEL_PBDMA_ERROR;
	case NVL_HW_CHERR_METHOD:
		*what = "bad method";
		return ROBUST_CHANNEL_PBDMA_ERROR;
	case NVL_HW_CHERR_SEMAPHORE:
		*what = "bad semaphore operation";
		return ROBUST_CHANNEL_PBDMA_ERROR;
	default:
		*what = "channel error";
		return ROBUST_CHANNEL_PBDMA_ERROR;
	}
}

/* tear down and report every channel with an error; false if the event
 * queue filled up first (the rest stay pending) */
static bool chan_errors(struct nvl_model_gsp *g)
{
	unsigned nch = g->m->profile->num_channels;

	for (unsigned w = 0; w < (nch + 31) / 32; w++) {
		uint32_t pend = rd(g, NVL_HW_CHERR_PENDING(w));

		/* the engine records a fault's entry before it stops the
		 * channel: copy every entry behind these errors first, so
		 * MMU_FAULT_QUEUED precedes their RC_TRIGGERED */
		if (pend)
			fault_service(g);
		while (pend) {
			unsigned bit = (unsigned)__builtin_ctz(pend);
			unsigned chid = w * 32 + bit;
			uint32_t err, mthd, rl, xid;
			uint8_t log[512];
			char text[160];
			const char *what;
			size_t n;
			bool room;

			pend &= pend - 1;
			pthread_mutex_lock(&g->lock);
			room = FW_EVQ - g->ev_count >= 2;
			pthread_mutex_unlock(&g->lock);
			if (!room)
				return false;
			err = rd(g, NVL_HW_CHRAM_ERROR(chid));
			mthd = rd(g, NVL_HW_CHRAM_ERR_METHOD(chid));
			rl = rd(g, NVL_HW_CHRAM_RUNLIST(chid)) & 0xff;
			wr(g, NVL_HW_CHERR_PENDING(w), 1u << bit);
			if (!err)
				continue; /* already torn down (freed) */
			/* RC: the channel is stopped and stays off */
			wr(g, NVL_HW_CHRAM_CTRL(chid),
			   NVL_HW_CHRAM_CTRL_ENABLE_CLR);
			xid = xid_of(err, &what);
			snprintf(text, sizeof(text),
				 "Xid %u: channel %u (runlist %u): %s (error "
				 "%u, "
				 "method %#x)",
				 xid, chid, rl, what, err, mthd);
			nvl_fw_log(g, LOG_RM, "RC: %s", text);
			n = g->wire->os_error_log(xid, rl, chid, text, log);
			(void)nvl_fw_post_event(
				g, NV_VGPU_MSG_EVENT_OS_ERROR_LOG, log, n);
			{
				rpc_rc_triggered_v17_02 rc = {
					.nv2080EngineType = rl,
					.chid = chid,
					.exceptType = xid,
					.scope = 1,
				};

				(void)nvl_fw_post_event(
					g, NV_VGPU_MSG_EVENT_RC_TRIGGERED, &rc,
					sizeof(rc));
			}
			pthread_mutex_lock(&g->lock);
			g->st.rc_recoveries++;
			pthread_mutex_unlock(&g->lock);
		}
	}
	return true;
}

/*
 * A copy engine's stalling interrupt (LAUNCH_DMA INTERRUPT_TYPE BLOCKING:
 * dev_ce NV_CE_LCE_INTR_STATUS BLOCKPIPE): RM owns the engines' stall
 * interrupts; nothing is wrong with the channel, so it clears the status
 * and counts it (as NVIDIA's drivers log and clear it), and the driver
 * never sees it.
 */
static void ce_service(struct nvl_model_gsp *g)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < g->m->profile->num_ce; i++) {
		uint32_t st = rd(g, NVL_HW_CE_LCE_INTR_STATUS(i));

		if (st & NVL_HW_CE_LCE_INTR_BLOCKPIPE) {
			wr(g, NVL_HW_CE_LCE_INTR_STATUS(i),
			   NVL_HW_CE_LCE_INTR_BLOCKPIPE);
			n++;
		}
	}
	pthread_mutex_lock(&g->lock);
	g->st.ce_blockpipes += n;
	pthread_mutex_unlock(&g->lock);
}

void nvl_fw_rc_service(struct nvl_model_gsp *g, uint32_t bits)
{
	pthread_mutex_lock(&g->lock);
	g->rc_deferred = false; /* served now */
	pthread_mutex_unlock(&g->lock);
	if (bits & NVL_HW_INTR_CE)
		ce_service(g);
	if (bits & FAULT_INTRS)
		fault_service(g);
	if ((bits & NVL_HW_INTR_FIFO) && !chan_errors(g)) {
		/* retry once the events went out */
		pthread_mutex_lock(&g->lock);
		g->intr_pending |= NVL_HW_INTR_FIFO;
		pthread_mutex_unlock(&g->lock);
	}
}

/*
 * The PMU's 10 ms tick (any thread, no model lock held): channel errors a
 * raising thread left to RM's own thread (faulted channels', see
 * nvl_fw_rc_run()) that no other wake-up of that thread has served yet
 * are served now: they wait one tick at most.
 */
void nvl_fw_rc_tick(void *arg)
{
	struct nvl_model_gsp *g = arg;

	pthread_mutex_lock(&g->lock);
	if (g->rc_deferred && g->intr_pending)
		nvl_fw_kick(g);
	pthread_mutex_unlock(&g->lock);
}

// SPDX-License-Identifier: MIT
/*
 * DOC: FIFO: channels and runlists
 *
 * One runlist per copy engine, each served by one thread that is both the
 * runlist's PBDMA and its engine (engines execute the methods the PBDMA
 * decodes, in order, so one thread per PBDMA/engine pair is exact), and
 * after them one runlist for the graphics/compute engine
 * (NVL_HW_RUNLIST_COMPUTE(num_ce), hw/compute.h), whose channels take
 * only the compute class. A
 * channel is set up through the channel RAM registers (instance block
 * address + BIND, runlist, ENABLE_SET); its GPFIFO, USERD and page
 * directory come from the instance block (hw/host.h), read when the PBDMA
 * first runs it.
 *
 * Scheduling: a doorbell puts the channel on its runlist's ready list and
 * wakes the thread (a futex word per runlist, rl_wake()). The thread runs a
 * channel until it runs out of GPFIFO entries, uses its budget (then goes
 * to the back of the list), blocks in a semaphore acquire (then it is
 * parked and re-polled every 100 us, or at once when any semaphore is
 * released), or stops on an error or fault. Other channels keep running.
 *
 * Errors and faults stop the channel, set its bit in CHERR_PENDING and
 * raise the FIFO stall interrupt. ENABLE_CLR clears the error (the driver
 * then rebinds or re-enables); clearing PBDMA_FAULTED/ENG_FAULTED after an
 * MMU fault lets the channel retry the faulting segment.
 *
 * Fault injection (model-only, model/model_regs.h): ENGINE_HANG(e) =
 * chid + 1 hangs engine e as soon as it picks up that channel, or before
 * the next GPFIFO entry of that channel if it is serving it already; only
 * an engine reset (PMC_ENGINE_RESET bit e) recovers it; the channel it was
 * serving gets CHERR_ENGINE_RESET. The reset disarms the hang when it is
 * requested (the register write), so a hang armed after that write stays
 * armed even if the engine's thread carries the reset out later.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/cpufree.h"
#include "base/futex.h"
#include "base/log.h"
#include "base/time.h"
#include "hw/regs.h"
#include "model/fifo.h"

/*
 * Busy time (two clock reads per channel run, on the runlist thread), the
 * doorbell's kick stamp and the runlist thread's idle poll are on the
 * cheap monotonic clock (base/clock.h: nvl_clock_ns(), the TSC scaled to
 * ns where the kernel's clocksource is the TSC).
 */
static void rl_busy_start(struct nvl_model_runlist *rl)
{
	if (!rl->busy_since)
		rl->busy_since = nvl_clock_ns();
}

static void rl_busy_stop(struct nvl_model_runlist *rl)
{
	if (rl->busy_since) {
		rl->busy_ns += (uint64_t)(nvl_clock_ns() - rl->busy_since);
		rl->busy_since = 0;
	}
}

/* @rl's busy time so far in ns (fifo->lock held) */
static uint64_t rl_busy_total_ns(struct nvl_model_runlist *rl)
{
	uint64_t v = rl->busy_ns;

	if (rl->busy_since)
		v += (uint64_t)(nvl_clock_ns() - rl->busy_since);
	return v;
}

uint64_t nvl_model_fifo_busy_ns(struct nvl_model *m, unsigned e)
{
	struct nvl_model_fifo *f = m->fifo;
	uint64_t v;

	if (!f || e >= f->nrl)
		return 0;
	nvl_flock_lock(&f->lock);
	v = rl_busy_total_ns(&f->rl[e]);
	nvl_flock_unlock(&f->lock);
	return v;
}

/*
 * Wake @rl's thread: after the change it is to see (made under fifo->lock,
 * which this may be called with or without). The sleeper counts itself
 * before it reads the word, the waker bumps the word before it reads the
 * count (both sequentially consistent): a waker that sees no sleeper knows
 * a later sleeper reads the bumped word and does not sleep on it.
 */
static NVL_HOT void rl_wake(struct nvl_model_runlist *rl)
{
	atomic_fetch_add(&rl->wake_seq, 1);
	if (atomic_load(&rl->sleepers)) {
		/* for the sleeper: what its wake-up costs and where the kick
		 * came from (rl_idle_locked()) */
		atomic_store_explicit(&rl->kick_cpu, sched_getcpu(),
				      memory_order_relaxed);
		atomic_store_explicit(&rl->kick_ns, nvl_clock_ns(),
				      memory_order_relaxed);
		nvl_futex_wake(&rl->wake_seq, 1);
	}
}

/*
 * Sleep until rl_wake() or @deadline (absolute, CLOCK_MONOTONIC;
 * NVL_TIMEOUT_INFINITE: none), fifo->lock held and dropped meanwhile; the
 * caller re-checks what it waits for (wake-ups may be spurious).
 */
static void rl_sleep_locked(struct nvl_model_fifo *f,
			    struct nvl_model_runlist *rl, int64_t deadline)
{
	uint32_t seq;

	atomic_fetch_add(&rl->sleepers, 1);
	seq = atomic_load(&rl->wake_seq);
	nvl_flock_unlock(&f->lock);
	(void)nvl_futex_wait(&rl->wake_seq, seq, deadline);
	atomic_fetch_sub(&rl->sleepers, 1);
	nvl_flock_lock(&f->lock);
}

/*
 * The thread, idle (nothing ready): poll, then sleep until rl_wake() or
 * @deadline, as rl_sleep_locked(). As a real PBDMA polls for work, the
 * thread watches its wake-up word before it sleeps, with fifo->lock
 * dropped, but only while its wake-ups are dear and a CPU is free
 * (nvl_idle_poll(), base/idlepoll.h, the same rules as the GSP firmware
 * thread's). Whatever wakes a sleeper bumps the word, so a poll ends as
 * soon as a doorbell, a reset, a semaphore release or the model's stop
 * comes. What a wake-up cost is measured from rl_wake()'s stamp to the
 * thread running, before it takes the lock back.
 */
/*
 * Polls that caught a doorbell in a row before one idle period sleeps to
 * measure a wake-up again: a poll that always hits never measures one,
 * and with cheap wake-ups (other CPUs awake) the poll made exec_latency
 * slower (5.5 us against 3.3 with the sleep, futex_pingpong 1.6-1.9 us).
 * On an idle machine the measurement costs one dear wake-up per 256 jobs.
 */
#define NVL_MODEL_RL_POLL_RESAMPLE 256

/*
 * After a sleep a kick ended: learn what the wake-up cost (the poll's
 * rules), and when it was dear because it crossed to another CPU of a
 * busy machine, move next to the kicker (nvl_cpu_follow()): on a 2-vCPU
 * VM with both vCPUs busy an exec whose runlist thread runs on the other
 * vCPU took 45-53 us against 3-4 us on the submitter's, and the kernel
 * keeps the thread where it was, so that a whole run paid it
 * (docs/model.md, "Where the runlist thread runs"). With a CPU free the
 * thread polls instead, and a poll that catches the doorbell across CPUs
 * is the fastest path; but when its whole poll ran out before the kick
 * (a gap longer than NVL_IDLE_POLL_MAX_NS: fault_to_kill's channel free
 * and create, 60-140 us on the idle VM), it moves too: a sleeper woken
 * across the idle VM's vCPUs pays 25-60 us every time, one woken on the
 * kicker's 4-7 us (docs/faults.md, session 15).
 */
static NVL_HOT void rl_woken(struct nvl_model_runlist *rl)
{
	int64_t kick = atomic_load_explicit(&rl->kick_ns, memory_order_relaxed);
	int64_t now = nvl_clock_ns();
	/* a poll ran its whole budget before this sleep, and the kick
	 * came after it */
	bool outwaited = rl->idle.t0 && kick > rl->idle.t0;

	nvl_idle_poll_woken(&rl->idle, kick);
	if (kick && now > kick && now - kick < NVL_IDLE_POLL_MAX_NS)
		nvl_cpu_follow(&rl->follow,
			       atomic_load_explicit(&rl->kick_cpu,
						    memory_order_relaxed),
			       now - kick, outwaited);
}

static NVL_HOT void rl_idle_locked(struct nvl_model_fifo *f,
				   struct nvl_model_runlist *rl,
				   int64_t deadline)
{
	uint32_t seq = atomic_load(&rl->wake_seq);
	int r;

	nvl_flock_unlock(&f->lock);
	if (!nvl_idle_poll(&rl->idle, &rl->wake_seq, seq)) {
		/* a kick since @seq was read: the futex does not sleep */
		atomic_fetch_add(&rl->sleepers, 1);
		r = nvl_futex_wait(&rl->wake_seq, seq, deadline);
		atomic_fetch_sub(&rl->sleepers, 1);
		if (!r)
			rl_woken(rl);
	}
	nvl_flock_lock(&f->lock);
}

/* @ch leaves its runlist's parked list (fifo->lock held; the caller
 * unlinks it) */
static void chan_unpark_locked(struct nvl_model_chan *ch)
{
	if (ch->acquire_parked) {
		ch->acquire_parked = false;
		atomic_fetch_sub_explicit(&ch->m->fifo->nparked, 1,
					  memory_order_relaxed);
	}
}

/* put @ch on its runlist; return the runlist to wake, or NULL */
static struct nvl_model_runlist *chan_enqueue_nowake(struct nvl_model_chan *ch)
{
	struct nvl_model_runlist *rl = &ch->m->fifo->rl[ch->runlist];

	if (ch->running) {
		ch->kicked = true;
		return NULL;
	}
	if (ch->queued)
		return NULL;
	if (ch->acquire_parked) {
		nvl_list_del(&ch->link);
		chan_unpark_locked(ch);
	}
	ch->queued = true;
	nvl_list_add_tail(&ch->link, &rl->ready);
	return rl;
}

static NVL_HOT void chan_enqueue_locked(struct nvl_model_chan *ch)
{
	struct nvl_model_runlist *rl = chan_enqueue_nowake(ch);

	if (rl)
		rl_wake(rl);
}

static void chan_dequeue_locked(struct nvl_model_chan *ch)
{
	if (ch->queued || ch->acquire_parked)
		nvl_list_del(&ch->link);
	ch->queued = false;
	chan_unpark_locked(ch);
}

static bool chan_runnable_locked(struct nvl_model_chan *ch)
{
	return ch->enabled && !ch->error && !ch->pbdma_faulted &&
	       !ch->eng_faulted;
}

static void chan_mark_locked(struct nvl_model_chan *ch, uint32_t err,
			     uint32_t mthd, uint32_t data)
{
	struct nvl_model_fifo *f = ch->m->fifo;

	if (!ch->error) {
		ch->error = err;
		ch->err_mthd = mthd;
		ch->err_data = data;
	}
	f->err_pending[ch->chid / 32] |= 1u << (ch->chid % 32);
	atomic_store(&ch->stop_req, true);
	chan_dequeue_locked(ch);
}

void nvl_model_chan_error(struct nvl_model_chan *ch, uint32_t err,
			  uint32_t mthd, uint32_t data)
{
	struct nvl_model_fifo *f = ch->m->fifo;

	nvl_flock_lock(&f->lock);
	chan_mark_locked(ch, err, mthd, data);
	nvl_flock_unlock(&f->lock);
	nvl_dbg(NVL_CAT_MODEL, "model: channel %u error %u mthd %#x data %#x",
		ch->chid, err, mthd, data);
	nvl_model_intr_raise(ch->m, NVL_HW_INTR_TREE_STALL, NVL_HW_INTR_FIFO);
}

void nvl_model_chan_fault(struct nvl_model_chan *ch, bool engine, uint32_t mthd)
{
	struct nvl_model_fifo *f = ch->m->fifo;

	nvl_flock_lock(&f->lock);
	if (engine)
		ch->eng_faulted = true;
	else
		ch->pbdma_faulted = true;
	chan_mark_locked(ch, NVL_HW_CHERR_MMU_FAULT, mthd, 0);
	nvl_flock_unlock(&f->lock);
	nvl_model_intr_raise(ch->m, NVL_HW_INTR_TREE_STALL, NVL_HW_INTR_FIFO);
}

void nvl_model_fifo_sem_released_slow(struct nvl_model *m)
{
	struct nvl_model_fifo *f = m->fifo;

	nvl_flock_lock(&f->lock);
	for (unsigned i = 0; i < f->nrl; i++) {
		struct nvl_model_runlist *rl = &f->rl[i];

		while (!nvl_list_empty(&rl->parked)) {
			struct nvl_model_chan *ch = nvl_list_first_entry(
				&rl->parked, struct nvl_model_chan, link);

			nvl_list_del(&ch->link);
			chan_unpark_locked(ch);
			ch->queued = true;
			nvl_list_add_tail(&ch->link, &rl->ready);
			rl_wake(rl);
		}
	}
	nvl_flock_unlock(&f->lock);
}

int nvl_model_fifo_chan_inst(struct nvl_model *m, unsigned chid,
			     enum nvl_hw_aperture *ap, uint64_t *addr)
{
	struct nvl_model_fifo *f = m->fifo;
	uint32_t inst;

	if (!f || chid >= f->nchan)
		return -ENOENT;
	nvl_flock_lock(&f->lock);
	inst = f->chan[chid].inst_reg;
	nvl_flock_unlock(&f->lock);
	if (!(inst & NVL_HW_CHRAM_INST_BIND))
		return -ENOENT;
	*addr = (uint64_t)(inst & NVL_HW_CHRAM_INST_PTR_MASK) << 12;
	switch (inst >> NVL_HW_CHRAM_INST_TARGET_SHIFT & 3) {
	case NVL_HW_RAM_TARGET_SYS_COH:
		*ap = NVL_HW_APERTURE_SYS_COH;
		break;
	case NVL_HW_RAM_TARGET_SYS_NONCOH:
		*ap = NVL_HW_APERTURE_SYS_NONCOH;
		break;
	default:
		*ap = NVL_HW_APERTURE_VIDMEM;
	}
	return 0;
}

/* engine reset: fifo->lock held; returns the channel to blame or NULL */
static struct nvl_model_chan *rl_reset_locked(struct nvl_model_runlist *rl,
					      struct nvl_model_chan *victim)
{
	/* (an armed hang is disarmed when the reset is requested: one
	 * armed after the request, before this runs, stays armed; the
	 * caller clears hung once the victim is blamed, so ENGINE_STATUS
	 * shows HUNG until the reset's consequences are visible) */
	rl->reset_req = false;
	rl->reset_quiet = false;
	atomic_store(&rl->reset_flag, false);
	rl_busy_stop(rl);
	return victim;
}

/*
 * The engine reset aborted @ch's work: CHERR_ENGINE_RESET, unless the
 * channel was bound again since the engine took it up (@gen): a channel
 * id disabled and given to a new channel (a new firmware after a GSP
 * death reuses the ids) must not inherit the old binding's error.
 */
static void rl_blame(struct nvl_model_fifo *f, struct nvl_model_chan *ch,
		     uint32_t gen)
{
	if (!ch || ch->bind_gen != gen)
		return;
	chan_mark_locked(ch, NVL_HW_CHERR_ENGINE_RESET, 0, 0);
	nvl_flock_unlock(&f->lock);
	nvl_model_intr_raise(ch->m, NVL_HW_INTR_TREE_STALL, NVL_HW_INTR_FIFO);
	nvl_flock_lock(&f->lock);
}

static void rl_run_one_locked(struct nvl_model_runlist *rl,
			      struct nvl_model_chan *ch)
{
	struct nvl_model_fifo *f = rl->m->fifo;
	uint32_t gen = ch->bind_gen;
	enum nvl_model_run r;

	if (ch->reset_decoder) {
		ch->reset_decoder = false;
		ch->ctx_loaded = false;
		/* restart the unfinished entry: GP_GET moved past it when
		 * it was taken */
		if (ch->in_seg)
			atomic_store(&ch->gp_get, ch->seg_entry);
		ch->in_seg = false;
		ch->mthd_count = 0;
		ch->acquiring = false;
		ch->mem_op_draining = false;
	}
	if (rl->hang_chid == ch->chid + 1) {
		/* injected hang: no progress until the engine is reset */
		rl->cur = ch;
		rl->hung = true;
		rl_busy_start(rl);
		while (!rl->reset_req && !rl->stop)
			rl_sleep_locked(f, rl, NVL_TIMEOUT_INFINITE);
		rl->cur = NULL;
		if (rl->reset_req)
			rl_blame(f,
				 rl_reset_locked(rl,
						 rl->reset_quiet ? NULL : ch),
				 gen);
		rl->hung = false;
		return;
	}
	ch->running = true;
	ch->kicked = false;
	rl->cur = ch;
	rl_busy_start(rl);
	nvl_flock_unlock(&f->lock);
	r = nvl_model_pbdma_run(ch);
	nvl_flock_lock(&f->lock);
	ch->running = false;
	ch->acquire_wait = r == NVL_MODEL_RUN_BLOCKED;
	rl->cur = NULL;
	rl_busy_stop(rl);
	if (rl->reset_req) {
		/* the reset aborted (or raced with) this channel's work */
		rl_blame(f,
			 rl_reset_locked(rl, r == NVL_MODEL_RUN_IDLE ||
							     rl->reset_quiet
						     ? NULL
						     : ch),
			 gen);
		return;
	}
	if (!chan_runnable_locked(ch))
		return;
	switch (r) {
	case NVL_MODEL_RUN_YIELD:
		chan_enqueue_locked(ch);
		break;
	case NVL_MODEL_RUN_BLOCKED:
		if (ch->kicked) {
			chan_enqueue_locked(ch);
		} else {
			ch->acquire_parked = true;
			atomic_fetch_add(&f->nparked, 1);
			nvl_list_add_tail(&ch->link, &rl->parked);
		}
		break;
	case NVL_MODEL_RUN_IDLE:
		if (ch->kicked)
			chan_enqueue_locked(ch);
		break;
	case NVL_MODEL_RUN_STOPPED:
		/* stopped by an error or fault that was cleared (or a
		 * disable undone) while this thread still held the channel:
		 * the clear's enqueue found it running and left the kick */
		if (ch->kicked)
			chan_enqueue_locked(ch);
		break;
	}
}

static NVL_HOT void *rl_main(void *arg)
{
	struct nvl_model_runlist *rl = arg;
	struct nvl_model_fifo *f = rl->m->fifo;

	nvl_flock_lock(&f->lock);
	while (!rl->stop) {
		struct nvl_model_chan *ch;

		if (rl->reset_req) {
			rl_reset_locked(rl, NULL);
			rl->hung = false;
			continue;
		}
		if (nvl_list_empty(&rl->ready)) {
			if (nvl_list_empty(&rl->parked)) {
				rl_idle_locked(f, rl, NVL_TIMEOUT_INFINITE);
			} else {
				rl_idle_locked(
					f, rl,
					nvl_time_ns() +
						NVL_MODEL_ACQUIRE_POLL_NS);
				nvl_list_splice_tail_init(&rl->parked,
							  &rl->ready);
				nvl_list_for_each_entry (ch, &rl->ready, link) {
					chan_unpark_locked(ch);
					ch->queued = true;
				}
			}
			continue;
		}
		ch = nvl_list_first_entry(&rl->ready, struct nvl_model_chan,
					  link);
		nvl_list_del(&ch->link);
		ch->queued = false;
		if (chan_runnable_locked(ch))
			rl_run_one_locked(rl, ch);
		/* the run's completions, outside the lock (pbdma.c) */
		if (rl->nonstall_bits) {
			nvl_flock_unlock(&f->lock);
			nvl_model_nonstall_flush(rl);
			nvl_flock_lock(&f->lock);
		}
	}
	nvl_flock_unlock(&f->lock);
	nvl_model_nonstall_flush(rl);
	return NULL;
}

/*
 * "nvl-rl<id>": the name perf, top and /proc/self/task/<tid>/comm show,
 * so that a measurement can tell the runlist threads from the others
 * (bench/nv/split.c finds the thread serving its channel by it). A name
 * that cannot be set changes nothing else.
 */
static void rl_name(struct nvl_model_runlist *rl)
{
	char name[16];

	snprintf(name, sizeof(name), "nvl-rl%u", rl->id);
	(void)pthread_setname_np(rl->thread, name);
}

int nvl_model_fifo_create(struct nvl_model *m)
{
	const struct nvl_model_profile *p = m->profile;
	struct nvl_model_fifo *f;
	unsigned i, started = 0;
	int ret = -ENOMEM;

	f = nvl_zalloc(sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->m = m;
	f->nchan = p->num_channels;
	f->nrl = p->num_ce + 1; /* the copy engines, then compute */
	f->chan = nvl_calloc(f->nchan, sizeof(*f->chan));
	f->rl = nvl_calloc(f->nrl, sizeof(*f->rl));
	f->err_pending = nvl_calloc((f->nchan + 31) / 32, sizeof(uint32_t));
	if (!f->chan || !f->rl || !f->err_pending)
		goto fail_alloc;
	nvl_flock_init(&f->lock);
	nvl_flock_init(&f->atomic_lock);
	for (i = 0; i < f->nchan; i++) {
		f->chan[i].m = m;
		f->chan[i].chid = i;
		nvl_list_init(&f->chan[i].link);
	}
	for (i = 0; i < f->nrl; i++) {
		f->rl[i].m = m;
		f->rl[i].id = i;
		nvl_list_init(&f->rl[i].ready);
		nvl_list_init(&f->rl[i].parked);
		f->rl[i].idle.resample = NVL_MODEL_RL_POLL_RESAMPLE;
		/* poll at least as long as the wake-up it saves costs, in
		 * the lean loop (base/idlepoll.c) */
		f->rl[i].idle.floor_wake = true;
		f->rl[i].idle.lean = true;
		/* rl_wake()'s stamp and the poll's looks: the cheap clock */
		f->rl[i].idle.clock = nvl_clock_ns;
	}
	m->fifo = f;
	for (i = 0; i < f->nrl; i++) {
		ret = nvl_might_alloc(0);
		if (ret)
			break;
		if (pthread_create(&f->rl[i].thread, NULL, rl_main,
				   &f->rl[i])) {
			ret = -ENOMEM;
			break;
		}
		rl_name(&f->rl[i]);
		started++;
	}
	if (started == f->nrl)
		return 0;
	nvl_flock_lock(&f->lock);
	for (i = 0; i < started; i++) {
		f->rl[i].stop = true;
		rl_wake(&f->rl[i]);
	}
	nvl_flock_unlock(&f->lock);
	for (i = 0; i < started; i++)
		pthread_join(f->rl[i].thread, NULL);
	m->fifo = NULL;
fail_alloc:
	nvl_free(f->err_pending);
	nvl_free(f->rl);
	nvl_free(f->chan);
	nvl_free(f);
	return ret;
}

void nvl_model_fifo_destroy(struct nvl_model *m)
{
	struct nvl_model_fifo *f = m->fifo;

	if (!f)
		return;
	nvl_flock_lock(&f->lock);
	for (unsigned i = 0; i < f->nrl; i++) {
		f->rl[i].stop = true;
		atomic_store(&f->rl[i].reset_flag, true);
		rl_wake(&f->rl[i]);
	}
	nvl_flock_unlock(&f->lock);
	for (unsigned i = 0; i < f->nrl; i++)
		pthread_join(f->rl[i].thread, NULL);
	nvl_free(f->err_pending);
	nvl_free(f->rl);
	nvl_free(f->chan);
	nvl_free(f);
	m->fifo = NULL;
}

static uint32_t chram_rd_locked(struct nvl_model_chan *ch, uint32_t off)
{
	uint32_t v;

	switch (off) {
	case 0x00:
		return ch->inst_reg;
	case 0x04:
		v = (ch->enabled ? NVL_HW_CHRAM_CTRL_ENABLE : 0) |
		    (ch->pbdma_faulted ? NVL_HW_CHRAM_CTRL_PBDMA_FAULTED : 0) |
		    (ch->eng_faulted ? NVL_HW_CHRAM_CTRL_ENG_FAULTED : 0) |
		    (ch->error ? NVL_HW_CHRAM_CTRL_ERROR : 0) |
		    (ch->running || (ch->enabled && !ch->error &&
				     atomic_load(&ch->in_seg))
			     ? NVL_HW_CHRAM_CTRL_BUSY
			     : 0) |
		    (ch->acquire_wait ? NVL_HW_CHRAM_CTRL_ACQUIRE_PENDING : 0);
		return v;
	case 0x08:
		return ch->runlist;
	case 0x0c:
		return ch->error;
	case 0x10:
		return ch->err_mthd;
	case 0x14:
		return ch->err_data;
	case 0x18:
		return atomic_load(&ch->gp_get);
	default:
		return NVL_HW_REG_BAD;
	}
}

static void chram_wr_locked(struct nvl_model_fifo *f, struct nvl_model_chan *ch,
			    uint32_t off, uint32_t val)
{
	switch (off) {
	case 0x00: /* rebinding only while disabled and idle */
		if (ch->enabled || ch->running)
			break;
		ch->inst_reg = val;
		/* a new binding: no error of the old one survives it */
		ch->bind_gen++;
		ch->error = 0;
		ch->pbdma_faulted = false;
		ch->eng_faulted = false;
		f->err_pending[ch->chid / 32] &= ~(1u << (ch->chid % 32));
		ch->reset_decoder = true;
		ch->in_seg = false;
		atomic_store(&ch->gp_get, 0);
		break;
	case 0x04:
		if (val & NVL_HW_CHRAM_CTRL_ENABLE_CLR) {
			ch->enabled = false;
			ch->error = 0;
			ch->pbdma_faulted = false;
			ch->eng_faulted = false;
			ch->reset_decoder = true;
			atomic_store(&ch->stop_req, true);
			chan_dequeue_locked(ch);
		} else if (val & NVL_HW_CHRAM_CTRL_ENABLE_SET) {
			if (!(ch->inst_reg & NVL_HW_CHRAM_INST_BIND) ||
			    ch->runlist >= f->nrl)
				break;
			ch->enabled = true;
			if (!ch->error && !ch->pbdma_faulted &&
			    !ch->eng_faulted)
				atomic_store(&ch->stop_req, false);
		}
		if (val & (NVL_HW_CHRAM_CTRL_PBDMA_FAULTED |
			   NVL_HW_CHRAM_CTRL_ENG_FAULTED)) {
			if (val & NVL_HW_CHRAM_CTRL_PBDMA_FAULTED)
				ch->pbdma_faulted = false;
			if (val & NVL_HW_CHRAM_CTRL_ENG_FAULTED)
				ch->eng_faulted = false;
			if (!ch->pbdma_faulted && !ch->eng_faulted &&
			    ch->error == NVL_HW_CHERR_MMU_FAULT) {
				/* serviced: retry the faulting segment */
				ch->error = 0;
				ch->reset_decoder = true;
				atomic_store(&ch->stop_req, false);
				if (ch->enabled)
					chan_enqueue_locked(ch);
			}
		}
		break;
	case 0x08:
		if (!ch->enabled && !ch->running && val < f->nrl)
			ch->runlist = val;
		break;
	default:
		break;
	}
}

/*
 * The doorbell wakes the runlist thread after dropping the FIFO lock: a
 * thread woken while the writer still holds it would only block on it
 * again (the state it waits for is on the ready list, set under the lock,
 * so no wake-up is lost).
 */
static void doorbell(struct nvl_model_fifo *f, uint32_t token)
{
	unsigned chid = token & 0xfff, rl_id = token >> 16 & 0x7f;
	struct nvl_model_runlist *rl = NULL;
	struct nvl_model_chan *ch;

	if (chid >= f->nchan)
		return; /* invalid tokens are ignored */
	ch = &f->chan[chid];
	nvl_flock_lock(&f->lock);
	if (ch->runlist == rl_id && chan_runnable_locked(ch))
		rl = chan_enqueue_nowake(ch);
	nvl_flock_unlock(&f->lock);
	if (rl)
		rl_wake(rl);
}

uint32_t nvl_model_fifo_rd(struct nvl_model *m, uint32_t addr, bool *ok)
{
	struct nvl_model_fifo *f = m->fifo;
	uint32_t v = 0;

	*ok = true;
	nvl_flock_lock(&f->lock);
	if (addr >= NVL_HW_CHRAM(0)) {
		unsigned chid = (addr - NVL_HW_CHRAM(0)) / 0x20;

		if (chid < f->nchan)
			v = chram_rd_locked(&f->chan[chid],
					    (addr - NVL_HW_CHRAM(0)) % 0x20);
		else
			*ok = false;
	} else if (addr >= NVL_HW_CHERR_PENDING(0) &&
		   addr < NVL_HW_CHERR_PENDING(0) + 4 * 128) {
		unsigned i = (addr - NVL_HW_CHERR_PENDING(0)) / 4;

		if (i < (f->nchan + 31) / 32)
			v = f->err_pending[i];
		else
			*ok = false;
	} else if (addr == NVL_HW_PMC_ENGINE_RESET) {
		for (unsigned e = 0; e < f->nrl; e++)
			v |= f->rl[e].reset_req ? 1u << e : 0;
	} else {
		unsigned e = (addr - NVL_HW_ENGINE_STATUS(0)) / 0x10;
		struct nvl_model_runlist *rl = &f->rl[e];

		if (e >= f->nrl) {
			*ok = false;
		} else {
			switch ((addr - NVL_HW_ENGINE_STATUS(0)) % 0x10) {
			case 0x0:
				v = (rl->busy_since ? NVL_HW_ENGINE_STATUS_BUSY
						    : 0) |
				    (rl->hung ? NVL_HW_ENGINE_STATUS_HUNG : 0);
				if (rl->cur)
					v |= NVL_HW_ENGINE_STATUS_CHID_VALID |
					     rl->cur->chid
						     << NVL_HW_ENGINE_STATUS_CHID_SHIFT;
				break;
			case 0x4:
			case 0x8: {
				uint64_t b = rl_busy_total_ns(rl);

				v = (addr % 0x10) == 0x4 ? (uint32_t)b
							 : (uint32_t)(b >> 32);
				break;
			}
			default:
				v = rl->hang_chid;
			}
		}
	}
	nvl_flock_unlock(&f->lock);
	return v;
}

NVL_HOT void nvl_model_fifo_wr(struct nvl_model *m, uint32_t addr, uint32_t val)
{
	struct nvl_model_fifo *f = m->fifo;

	if (addr == NVL_HW_DOORBELL) {
		doorbell(f, val);
		return;
	}
	nvl_flock_lock(&f->lock);
	if (addr >= NVL_HW_CHRAM(0)) {
		unsigned chid = (addr - NVL_HW_CHRAM(0)) / 0x20;

		if (chid < f->nchan)
			chram_wr_locked(f, &f->chan[chid],
					(addr - NVL_HW_CHRAM(0)) % 0x20, val);
	} else if (addr >= NVL_HW_CHERR_PENDING(0) &&
		   addr < NVL_HW_CHERR_PENDING(0) + 4 * 128) {
		unsigned i = (addr - NVL_HW_CHERR_PENDING(0)) / 4;

		if (i < (f->nchan + 31) / 32)
			f->err_pending[i] &= ~val;
	} else if (addr == NVL_HW_PMC_ENGINE_RESET) {
		for (unsigned e = 0; e < f->nrl; e++) {
			if (!(val & (1u << e)))
				continue;
			f->rl[e].hang_chid = 0;
			f->rl[e].reset_req = true;
			atomic_store(&f->rl[e].reset_flag, true);
			rl_wake(&f->rl[e]);
		}
	} else {
		unsigned e = (addr - NVL_HW_ENGINE_STATUS(0)) / 0x10;

		if (e < f->nrl &&
		    (addr - NVL_HW_ENGINE_STATUS(0)) % 0x10 == 0xc)
			f->rl[e].hang_chid = val;
	}
	nvl_flock_unlock(&f->lock);
}

/* wait (bounded, 10 s) until neither the engine nor the PBDMA holds @ch */
static int reset_wait_locked(struct nvl_model_fifo *f,
			     struct nvl_model_runlist *rl,
			     struct nvl_model_chan *ch)
{
	int64_t deadline = nvl_time_ns() + 10 * NVL_NSEC_PER_SEC;

	while (rl->cur == ch || ch->running || rl->reset_req) {
		if (nvl_time_ns() > deadline)
			return -ETIMEDOUT;
		nvl_flock_unlock(&f->lock);
		nanosleep(&(struct timespec){.tv_nsec = 20 * 1000}, NULL);
		nvl_flock_lock(&f->lock);
	}
	return 0;
}

int nvl_model_fifo_reset_chan(struct nvl_model *m, unsigned chid)
{
	struct nvl_model_fifo *f = m->fifo;
	struct nvl_model_runlist *rl;
	struct nvl_model_chan *ch;
	uint32_t put = 0;
	int ret;

	if (chid >= f->nchan)
		return -EINVAL;
	ch = &f->chan[chid];
	nvl_flock_lock(&f->lock);
	if (ch->runlist >= f->nrl) {
		nvl_flock_unlock(&f->lock);
		return -EINVAL;
	}
	rl = &f->rl[ch->runlist];
	/* off the runlist; a PBDMA running it stops at its next check */
	ch->enabled = false;
	atomic_store(&ch->stop_req, true);
	chan_dequeue_locked(ch);
	if (rl->cur == ch) {
		/* the engine serves it (hung or not): reset the engine */
		rl->hang_chid = 0;
		rl->reset_quiet = true;
		rl->reset_req = true;
		atomic_store(&rl->reset_flag, true);
		rl_wake(rl);
	}
	ret = reset_wait_locked(f, rl, ch);
	if (rl->hang_chid == chid + 1)
		rl->hang_chid = 0; /* armed but not yet reached */
	nvl_flock_unlock(&f->lock);
	if (ret)
		return ret;
	/* disabled and idle: load its context to find USERD, and drop every
	 * entry it did not fetch */
	if (nvl_model_pbdma_load(ch) ||
	    nvl_model_phys_access(m, ch->userd_ap,
				  ch->userd + NVL_HW_USERD_GP_PUT, &put, 4,
				  false) ||
	    put >= ch->gp_entries ||
	    nvl_model_phys_access(m, ch->userd_ap,
				  ch->userd + NVL_HW_USERD_GP_GET, &put, 4,
				  true))
		ret = -EIO;
	nvl_flock_lock(&f->lock);
	if (!ret)
		atomic_store(&ch->gp_get, put);
	ch->reset_decoder = true;
	ch->in_seg = false;
	ch->error = 0;
	ch->pbdma_faulted = false;
	ch->eng_faulted = false;
	f->err_pending[chid / 32] &= ~(1u << (chid % 32));
	if (!ret && (ch->inst_reg & NVL_HW_CHRAM_INST_BIND)) {
		ch->enabled = true;
		atomic_store(&ch->stop_req, false);
	}
	nvl_flock_unlock(&f->lock);
	return ret;
}

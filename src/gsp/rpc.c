// SPDX-License-Identifier: MIT
/*
 * DOC: RPC client and events
 *
 * Senders take the tx lock, give the call the next RPC sequence (0 for
 * NOSEQ), register a waiter and write the message. Whoever waits drains
 * the status queue under the rx lock: replies complete their waiters
 * (matched by function and sequence; a multi-element reply is reassembled
 * from CONTINUATION_RECORD elements up to the caller's buffer), events go
 * to a bounded queue that the event thread serves, so a slow handler
 * delays no reply; an event that finds the queue full is dropped and
 * counted. While callers sleep, the interrupt handler wakes one of them
 * (the oldest), which drains for all and wakes only the callers whose
 * replies it found, once it is done; otherwise the handler drains the
 * queue itself (the receive thread drains too, on a wake-up, so the
 * status queue empties even when nobody waits and a handler is stuck).
 *
 * A sender registers its waiter without rx_lock (pushed on a lock-free
 * list under tx_lock, in sequence order; a drainer moves it to the
 * waiters when it looks for it). Each waiting caller sleeps on its own
 * word (WORD_*), not on a condition: the drain that completes its call
 * sets the word after the reply is in place, and the caller returns
 * without taking rx_lock again. With more calls in flight than CPUs, and
 * while wake-ups are dear, a waiting caller yields its CPU for a while
 * before it sleeps (yield_on_word()): its completion then wakes no one.
 *
 * Direct handlers (nvl_gsp_event_register_direct(): MMU_FAULT_QUEUED, whose
 * kill must not wait behind the event thread) are not queued: their event
 * is marked, and the interrupt handler or the receive thread runs them
 * with rx_lock dropped, one at a time, several marks making one call. A
 * caller waiting for a reply that drains one leaves it to the receive
 * thread. Each message gets a receive mark (nvl_gsp_rx_mark()): an event
 * handler can tell whether its event was read before some reply.
 *
 * Every wait has a deadline. A call that times out while the GSP has not
 * even consumed its message means the GSP hung: the client captures the
 * firmware's log rings, marks the device as needing a reset, and fails
 * every call from then on with -ENODEV.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "base/compiler.h"
#include "base/alloc.h"
#include "base/cpufree.h"
#include "base/futex.h"
#include "base/idlepoll.h"
#include "base/log.h"
#include "base/time.h"
#include "gspabi.h"
#include "gsp/abi_ver.h"
#include "gsp/priv.h"
#include "hw/falcon.h"
#include "hw/regs.h"

/*
 * The spin budget, learnt from the last round trips: a spin that catches a
 * message after ns moves the budget a quarter of the way to twice that
 * time (plus SPIN_MIN_NS); one that catches nothing halves it, and when
 * that call's reply then comes within SPIN_MAX_NS of the spin's start, the
 * budget becomes that time and a quarter. A spin only goes on while its
 * CPU is not wanted (see SPIN_BUSY_NS), so a long budget is spent only
 * beside an idle CPU: the firmware's thread runs on the other one, and
 * waking it costs a virtual machine tens of microseconds, which a reply
 * wake-up would pay once more. With busy CPUs replies come in a few
 * microseconds, and two preemptions in a row shorten the budget to
 * SPIN_MIN_NS; a spin past SPIN_SHORT_NS also needs nvl_cpus_free() (base/cpufree.h:
 * no runnable thread waits for a CPU; beside a CPU hog the GSP's thread
 * waits for the hog's time slice, and a spinner that yields to one loses
 * its CPU for a slice).
 */
#define SPIN_MIN_NS 1000
#define SPIN_MAX_NS 150000
/* longer spins only while no runnable thread waits for a CPU */
#define SPIN_SHORT_NS 12000
#define SPIN_START_NS 8000
/* a gap between two looks longer than this: another thread ran here */
#define SPIN_BUSY_NS 5000
#define SPIN_COOL 64
/*
 * While several calls are in flight, one waiter (the spinner) watches the
 * status queue for up to SPIN_MAX_NS and drains for all (spin_for_message()),
 * yielding about every microsecond to the other callers. Our own callers
 * hold a CPU for a few microseconds between two sleeps; a gap between two
 * looks longer than SPIN_MULTI_GAP_NS means a thread of another program
 * had this CPU for a time slice (and every reply waited for the spinner
 * meanwhile: the interrupt leaves the messages to it): waits with several
 * calls in flight sleep at once until nvl_poll_lost_cpu_until() (50 times the
 * gap, at most 200 ms: a hog's slice of milliseconds stops
 * the spin for a while; an idle virtual CPU's rarer, shorter stall for its
 * host, which is no reason to stop, only for a moment).
 */
#define SPIN_MULTI_GAP_NS NVL_POLL_LOST_CPU_NS

/*
 * A waiting caller's word (struct nvl_gsp_async.word). The caller sets
 * WORD_SLEEPING under rx_lock and sleeps with the lock dropped until the
 * word changes; the drain that completes the call sets WORD_DONE under
 * rx_lock, after the reply is in place, and wakes the caller, which then
 * returns without taking rx_lock again (its reply, result and error were
 * written before the store). WORD_KICK: an interrupt asks this caller to
 * drain the status queue for everyone (irq_handler()).
 *
 * The callers do not sleep on their words but on one shared futex word,
 * gsp->wake_seq, each with its own bit (wake_bit(): its RPC sequence
 * modulo 32, so concurrent callers differ): a drain that completed several
 * calls wakes them all with one system call (wake_bits()), not one each
 * (on one CPU each woken caller could also preempt the drain between two
 * of them). A sleeper reads wake_seq, then its word, then sleeps while
 * wake_seq is unchanged; a waker stores the word, then bumps wake_seq,
 * then wakes (all sequentially consistent): a sleeper that missed the
 * store finds wake_seq moved and does not sleep. Two callers 32 sequences
 * apart share a bit: one may wake for the other, finds its word unchanged
 * and sleeps again.
 */
#define WORD_PENDING 0u
#define WORD_SLEEPING 1u
#define WORD_KICK 2u
#define WORD_DONE 3u
#define WORD_YIELDING 4u

/*
 * With more callers than CPUs, a waiting caller may yield its CPU in a loop
 * instead of sleeping (yield_on_word()), so that a completed caller runs
 * again with no wake-up: but only while wake-ups are dear (the first caller
 * woken after a wake-up ran WAKE_DEAR_NS or more after it was sent, moving
 * average: a halted virtual CPU on an idle machine; with busy CPUs a
 * wake-up costs 1-3 us, and a yield to another program's thread gives it
 * the CPU for its time slice). WORD_YIELDING says so: its completer sets
 * WORD_DONE and wakes no one, an interrupt marks it WORD_KICK with no
 * wake-up; after YIELD_MAX_NS the caller turns its word to WORD_SLEEPING
 * (compare-and-swap: a completion may come first) and sleeps. A yield that
 * came back after NVL_POLL_LOST_CPU_NS lost the CPU to another program:
 * no yielding for a while (gate_lost()).
 */
#define WAKE_DEAR_NS NVL_IDLE_POLL_WAKE_NS
#define YIELD_MAX_NS 200000
/* see gate_lost() */
#define GATE_STREAK 256u
#define YIELD_LOSS_SHIFT_MAX 5u
#define GATE_COOL_MAX_NS (2 * NVL_NSEC_PER_SEC)

/*
 * The learnt back-off gates (struct nvl_gsp_backoff: the spin for several
 * callers, the yields): a poll or a yield whose look-to-look gap exceeded
 * NVL_POLL_LOST_CPU_NS lost its CPU for @gap_ns to another program's time
 * slice: the gate shuts until nvl_poll_lost_cpu_until() (50 times the gap,
 * at most 200 ms), twice as long for each loss that came within
 * GATE_STREAK tries (gate_try()) of the previous one, up to @shift_max
 * doublings and GATE_COOL_MAX_NS (a busy machine: each try costs a caller
 * a slice); an idle machine's rare stall of its virtual CPU for the host
 * comes after a long streak of good tries and shuts the gate only for a
 * moment. Several callers yielding at once all lose their CPUs in one
 * stall: only the first to see it counts it (the gate was open when it
 * began), else one stall of an idle virtual CPU doubled the pause five
 * times over, to GATE_COOL_MAX_NS, longer than a benchmark's phase.
 */
static bool gate_open(struct nvl_gsp_backoff *b)
{
	int64_t until = atomic_load_explicit(&b->until, memory_order_relaxed);

	return !until || nvl_time_ns() >= until;
}

static void gate_try(struct nvl_gsp_backoff *b)
{
	atomic_fetch_add_explicit(&b->streak, 1, memory_order_relaxed);
}

static void gate_lost(struct nvl_gsp_backoff *b, int64_t now, int64_t gap_ns,
		      unsigned shift_max)
{
	int64_t until = atomic_load_explicit(&b->until, memory_order_relaxed);
	unsigned losses =
		atomic_load_explicit(&b->losses, memory_order_relaxed);
	bool streak = atomic_load_explicit(&b->streak, memory_order_relaxed) >=
		      GATE_STREAK;
	int64_t cool;

	/* shut already: no try starts then, so this one began before the
	 * loss that shut it and lost its CPU in the same stall (several
	 * callers yield at once): one stall is one loss */
	if (until > now) {
		atomic_fetch_add_explicit(&b->lost_dup, 1,
					  memory_order_relaxed);
		return;
	}
	if (streak)
		losses = 0;
	if (losses < shift_max)
		losses++;
	cool = nvl_poll_lost_cpu_until(now, gap_ns) - now;
	if (losses > 1)
		cool <<= losses - 1;
	if (!atomic_compare_exchange_strong_explicit(
		    &b->until, &until, now + NVL_MIN(cool, GATE_COOL_MAX_NS),
		    memory_order_relaxed, memory_order_relaxed)) {
		atomic_fetch_add_explicit(&b->lost_dup, 1,
					  memory_order_relaxed);
		return;
	}
	atomic_store_explicit(&b->streak, 0, memory_order_relaxed);
	atomic_store_explicit(&b->losses, losses, memory_order_relaxed);
	atomic_fetch_add_explicit(&b->lost, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&b->lost_ns, gap_ns, memory_order_relaxed);
}

static uint32_t wake_bit(const struct nvl_gsp_async *w)
{
	return 1u << (w->sequence % 32);
}

/* wake the sleeping callers of @bits (their words already changed) */
static void wake_bits(struct nvl_gsp *gsp, uint32_t bits)
{
	if (!bits)
		return;
	/* what the wake-up costs is measured by the first caller it wakes */
	atomic_store_explicit(&gsp->wake_stamp, nvl_time_ns(),
			      memory_order_relaxed);
	atomic_fetch_add(&gsp->wake_seq, 1);
	nvl_futex_wake_bits(&gsp->wake_seq, INT_MAX, bits);
}

static void cond_init_mono(pthread_cond_t *c)
{
	pthread_condattr_t a;

	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(c, &a);
	pthread_condattr_destroy(&a);
}

/*
 * The locks are held for short stretches by threads on other CPUs (a
 * drainer that has just woken the callers it completed, a sender): a
 * short spin before sleeping saves a sleep and a wake-up per contended
 * acquisition.
 */
static void mutex_init_adaptive(pthread_mutex_t *mu)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
#ifdef __GLIBC__
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ADAPTIVE_NP);
#endif
	pthread_mutex_init(mu, &a);
	pthread_mutexattr_destroy(&a);
}

/* wait on @c (with rx_lock) until @deadline; false once it passed */
static bool cond_wait_until(struct nvl_gsp *gsp, pthread_cond_t *c,
			    int64_t deadline)
{
	struct timespec ts;

	if (nvl_time_ns() >= deadline)
		return false;
	if (deadline == NVL_TIMEOUT_INFINITE) {
		pthread_cond_wait(c, &gsp->rx_lock);
		return true;
	}
	ts = nvl_ns_to_timespec(deadline);
	pthread_cond_timedwait(c, &gsp->rx_lock, &ts);
	return true;
}

static bool rx_wait(struct nvl_gsp *gsp, int64_t deadline)
{
	return cond_wait_until(gsp, &gsp->rx_cond, deadline);
}

static void drain_locked(struct nvl_gsp *gsp);
static void run_direct_locked(struct nvl_gsp *gsp);
static void kick_direct(struct nvl_gsp *gsp);

/*
 * Move the waiters that senders registered without rx_lock to the list,
 * oldest first (they were pushed in sequence order, under tx_lock);
 * rx_lock held.
 */
static void take_incoming(struct nvl_gsp *gsp)
{
	struct nvl_gsp_async *l, *rev = NULL, *next;

	if (!atomic_load_explicit(&gsp->incoming, memory_order_relaxed))
		return;
	l = atomic_exchange_explicit(&gsp->incoming, NULL,
				     memory_order_acquire);
	for (; l; l = next) {
		next = l->in_next;
		l->in_next = rev;
		rev = l;
	}
	for (; rev; rev = next) {
		next = rev->in_next;
		rev->in_next = NULL;
		nvl_list_add_tail(&rev->link, &gsp->waiters);
	}
}

/* take @w off the waiters (not completed: a timeout, a failed send) */
static void unlink_waiter(struct nvl_gsp *gsp, struct nvl_gsp_async *w)
{
	take_incoming(gsp);
	if (!w->done)
		nvl_list_del(&w->link);
}

/*
 * Is a sleeping caller there to drain for all? The oldest one is asked to
 * (rx_lock held): *@kick is its bit, to wake once the lock is dropped (a
 * caller that has returned meanwhile is not woken). A caller already
 * asked is enough: no second one is woken.
 */
static bool pick_drainer(struct nvl_gsp *gsp, uint32_t *kick)
{
	struct nvl_gsp_async *w;

	take_incoming(gsp);
	nvl_list_for_each_entry (w, &gsp->waiters, link) {
		uint32_t v;

		if (!w->waiting)
			continue;
		v = atomic_load_explicit(&w->word, memory_order_relaxed);
		/* a yielding caller sees the kick at its next look: no
		 * wake-up (it may turn to sleeping meanwhile: then woken) */
		if (v == WORD_YIELDING &&
		    atomic_compare_exchange_strong(&w->word, &v, WORD_KICK))
			return true;
		if (v == WORD_KICK)
			return true;
		if (v == WORD_SLEEPING) {
			*kick = wake_bit(w);
			atomic_store(&w->word, WORD_KICK);
			return true;
		}
	}
	return false;
}

static NVL_HOT void irq_handler(void *arg)
{
	struct nvl_gsp *gsp = arg;
	uint32_t stat;

	/*
	 * The line is shared with the device's other interrupts (every
	 * job's non-stall completion): wake the receivers only for the
	 * GSP's message interrupt (SWGEN0). The line is cleared before the
	 * cause is read, so a message posted after the read raises it again
	 * and this handler runs once more. A line without the GSP's bit is
	 * not ours (the firmware sets SWGEN0 before it raises the bit): one
	 * lock-free status read, no falcon register read.
	 */
	if (!(nvl_hw_rd32(gsp->hw, NVL_HW_INTR_STATUS(NVL_HW_INTR_TREE_STALL)) &
	      NVL_HW_INTR_GSP))
		goto chain;
	nvl_hw_wr32(gsp->hw, NVL_HW_INTR_STATUS(NVL_HW_INTR_TREE_STALL),
		    NVL_HW_INTR_GSP);
	stat = nvl_hw_rd32(gsp->hw, NVL_HW_GSP(NVL_HW_FALCON_IRQSTAT));
	if (stat & NVL_HW_FALCON_IRQSTAT_SWGEN0) {
		nvl_hw_wr32(gsp->hw, NVL_HW_GSP(NVL_HW_FALCON_IRQSCLR),
			    NVL_HW_FALCON_IRQSTAT_SWGEN0);
		uint32_t kick = 0;

		pthread_mutex_lock(&gsp->rx_lock);
		gsp->irqs++;
		/*
		 * A spinning caller drains for itself (it sees the message,
		 * or drains once more when its spin ends). While callers
		 * sleep, this handler (on the firmware's thread: it must not
		 * do their work) wakes one of them, the oldest: it drains for
		 * all, and wakes only the callers whose replies came (no herd
		 * of waiters re-draining an empty queue). Else this handler
		 * drains, and runs the direct handlers (a fault's kill) here,
		 * no thread woken; the receive thread while the GSP is dead.
		 */
		if (gsp->spinner) {
			gsp->spin_irq = true;
		} else if (gsp->active_waiters && pick_drainer(gsp, &kick)) {
			/* woken below, or one is on its way */
		} else if (!gsp->dead && !gsp->stop) {
			gsp->irqs_drained = gsp->irqs;
			drain_locked(gsp);
			if (gsp->active_waiters)
				kick_direct(gsp);
			else
				run_direct_locked(gsp);
		} else {
			pthread_cond_signal(&gsp->drain_cond);
		}
		pthread_mutex_unlock(&gsp->rx_lock);
		/* after the unlock: the drainer takes rx_lock at once */
		wake_bits(gsp, kick);
	}
chain:
	if (gsp->irq_chain)
		gsp->irq_chain(gsp->irq_chain_arg);
}

void nvl_gsp_set_irq_chain(struct nvl_gsp *gsp, nvl_hw_irq_fn fn, void *arg)
{
	/* set_irq_handler returns once no call of the handler runs: a
	 * cleared chain is not called after this returns */
	nvl_hw_set_irq_handler(gsp->hw, NULL, NULL);
	gsp->irq_chain = fn;
	gsp->irq_chain_arg = arg;
	nvl_hw_set_irq_handler(gsp->hw, irq_handler, gsp);
}

static struct nvl_gsp_async *find_waiter(struct nvl_gsp *gsp, uint32_t function,
					 uint32_t seq)
{
	struct nvl_gsp_async *w;

	for (int pass = 0; pass < 2; pass++) {
		nvl_list_for_each_entry (w, &gsp->waiters, link)
			if (!w->done && w->function == function &&
			    w->sequence == seq)
				return w;
		/* registered since the last look (its message was sent
		 * after, so it is there now) */
		if (!atomic_load_explicit(&gsp->incoming, memory_order_relaxed))
			break;
		take_incoming(gsp);
	}
	return NULL;
}

/*
 * Tell a waiting caller its call is done, rx_lock held: after this store
 * the caller may return and its waiter be gone. Returns its bit to wake
 * (the caller sleeps or is about to), or 0; the wake-up touches only
 * gsp->wake_seq, so it may come after rx_lock is dropped.
 */
static uint32_t set_done(struct nvl_gsp_async *w)
{
	/* read before the store: after it @w may be gone (reused) */
	uint32_t bit = wake_bit(w);
	uint32_t old = atomic_exchange(&w->word, WORD_DONE);

	/* a yielding caller sees the store at its next look */
	if (old != WORD_PENDING && old != WORD_YIELDING)
		return bit;
	return 0;
}

static void wake_done(struct nvl_gsp *gsp, struct nvl_gsp_async *w)
{
	wake_bits(gsp, set_done(w));
}

static void complete(struct nvl_gsp *gsp, struct nvl_gsp_async *w, int err)
{
	w->done = true;
	if (err && !w->err)
		w->err = err;
	nvl_list_del(&w->link);
	if (w->waiting) {
		/* counted out here: the caller may return without rx_lock */
		w->waiting = false;
		gsp->active_waiters--;
		/* a drain wakes its callers once it is done, in one pass */
		if (gsp->draining &&
		    gsp->n_wake < NVL_ARRAY_SIZE(gsp->wake_pending))
			gsp->wake_pending[gsp->n_wake++] = w;
		else
			wake_done(gsp, w);
		return; /* a waited-for call is not abandoned */
	}
	if (w->abandoned)
		nvl_free(w);
}

static void queue_event(struct nvl_gsp *gsp, const struct nvl_gsp_msg *m)
{
	struct nvl_gsp_ev *ev;
	uint8_t *copy = NULL;

	if (gsp->ev_count == NVL_GSP_EVENT_QUEUE_LEN) {
		gsp->st.events_dropped++;
		if (NVL_IS_POW2(gsp->st.events_dropped))
			nvl_warn(NVL_CAT_GSP,
				 "gsp: event queue full, %s dropped (%llu so "
				 "far)",
				 nvl_gsp_function_name(m->function),
				 (unsigned long long)gsp->st.events_dropped);
		return;
	}
	if (m->len) {
		copy = nvl_malloc(m->len);
		if (!copy) {
			gsp->st.events_dropped++;
			return;
		}
		memcpy(copy, m->data, m->len);
	}
	ev = &gsp->evq[(gsp->ev_head + gsp->ev_count) %
		       NVL_GSP_EVENT_QUEUE_LEN];
	ev->event = m->function;
	ev->result = m->result;
	ev->len = m->len;
	ev->data = copy;
	ev->rx = gsp->rx_msgs;
	gsp->ev_count++;
	/* signalled when the drain drops rx_lock (wake_completed()): woken
	 * under it, the event thread would block on rx_lock at once, a
	 * second sleep and wake-up per batch of events (perf: 270-620
	 * contended rx_lock waits of the event thread per run of the
	 * fault_to_kill and storm benches, about one per fault) */
	gsp->ev_kick = true;
}

/* an event with a direct handler: marked for it, not queued; rx_lock held */
static bool mark_direct(struct nvl_gsp *gsp, uint32_t event)
{
	for (unsigned i = 0; i < NVL_GSP_MAX_HANDLERS; i++)
		if (gsp->handlers[i].fn && gsp->handlers[i].direct &&
		    gsp->handlers[i].event == event) {
			gsp->direct_pending |= 1u << i;
			return true;
		}
	return false;
}

static void take_reply(struct nvl_gsp *gsp, struct nvl_gsp_async *w,
		       const struct nvl_gsp_msg *m)
{
	size_t n = m->len;

	if (w->buf && w->len + n > w->cap) {
		gsp->st.bad_reply++;
		complete(gsp, w, -EMSGSIZE);
		gsp->asm_w = NULL;
		gsp->asm_discard = m->full;
		return;
	}
	/* a continuation may be in place already (drain_queue()) */
	if (w->buf && n && m->data != w->buf + w->len)
		memcpy(w->buf + w->len, m->data, n);
	w->len += n;
	if (m->full && w->len < w->cap) {
		gsp->asm_w = w; /* continuation records follow */
		return;
	}
	gsp->asm_w = NULL;
	complete(gsp, w, 0);
}

/*
 * Wake the callers the drain completed, with one system call, and then
 * the event thread if the drain queued events, rx_lock held and dropped
 * around it: while it runs the lock would keep the callers that have just
 * sent from starting their wait (the woken callers themselves need no
 * lock), and the event thread needs it at once. An event queued under
 * rx_lock is seen by the event thread before it waits again, or the
 * signal after the unlock finds it waiting: none is missed.
 */
static void wake_completed(struct nvl_gsp *gsp)
{
	uint32_t bits = 0;
	bool ev = gsp->ev_kick;

	for (unsigned i = 0; i < gsp->n_wake; i++)
		bits |= set_done(gsp->wake_pending[i]);
	gsp->n_wake = 0;
	gsp->draining = false;
	gsp->ev_kick = false;
	if (!bits && !ev)
		return;
	pthread_mutex_unlock(&gsp->rx_lock);
	if (bits)
		wake_bits(gsp, bits);
	if (ev)
		pthread_cond_signal(&gsp->ev_cond);
	pthread_mutex_lock(&gsp->rx_lock);
}

static void drain_queue(struct nvl_gsp *gsp);

/* read everything the GSP wrote; rx_lock held (dropped while the callers
 * it completed are woken) */
static void drain_locked(struct nvl_gsp *gsp)
{
	gsp->draining = true;
	drain_queue(gsp);
	wake_completed(gsp);
}

static void drain_queue(struct nvl_gsp *gsp)
{
	struct nvl_gsp_msg m;
	int ret;
	bool any = false;

	for (;;) {
		struct nvl_gsp_async *a = gsp->asm_w;

		/* the next continuation of a reply being reassembled may be
		 * read straight into its place (nvl_gsp_msgq_recv()) */
		if (a && a->buf && a->len <= a->cap) {
			gsp->q.rx_dst = a->buf + a->len;
			gsp->q.rx_dst_cap = a->cap - a->len;
		}
		ret = nvl_gsp_msgq_recv(&gsp->q, &m);
		if (!ret)
			break;
		any = true;
		if (ret == -EBADMSG) {
			gsp->st.bad_msgs++;
			continue;
		}
		if (ret < 0) {
			gsp->st.bad_msgs++;
			wake_completed(gsp);
			pthread_mutex_unlock(&gsp->rx_lock);
			nvl_gsp_mark_dead(gsp, "status queue header corrupt");
			pthread_mutex_lock(&gsp->rx_lock);
			return;
		}
		gsp->rx_msgs++;
		nvl_trace_fn tr = nvl_gsp_tracer(gsp);

		if (tr)
			nvl_gsp_trace_emit(
				gsp, tr, NVL_TRACE_GSP_MSG,
				m.function >= GSPABI_K_EVENT_FIRST_EVENT
					? nvl_gsp_abi_event_in(gsp->abi,
							       m.function)
					: m.function,
				m.sequence, m.result, m.data, m.len);
		if (m.function == GSPABI_K_FUNCTION_CONTINUATION_RECORD) {
			if (gsp->asm_w) {
				take_reply(gsp, gsp->asm_w, &m);
			} else if (!gsp->asm_discard) {
				gsp->st.bad_msgs++;
				gsp->st.stray_continuation++;
			} else {
				gsp->asm_discard = m.full;
			}
			continue;
		}
		if (gsp->asm_w) {
			/* the multi-element reply was cut short */
			gsp->st.bad_msgs++;
			complete(gsp, gsp->asm_w, -EPROTO);
			gsp->asm_w = NULL;
		}
		gsp->asm_discard = false;
		if (m.function >= GSPABI_K_EVENT_FIRST_EVENT) {
			/* renumbered events: the driver's numbering */
			m.function = nvl_gsp_abi_event_in(gsp->abi, m.function);
			if (!mark_direct(gsp, m.function))
				queue_event(gsp, &m);
			continue;
		}
		struct nvl_gsp_async *w =
			find_waiter(gsp, m.function, m.sequence);
		if (!w) {
			gsp->st.unclaimed++;
			gsp->asm_discard = m.full;
			continue;
		}
		w->result = m.result;
		take_reply(gsp, w, &m);
	}
	if (any)
		pthread_cond_broadcast(&gsp->rx_cond);
}

/* a caller waiting for a reply drained a direct event: the receive thread
 * runs it (never the caller, who may hold locks its handler takes) */
static void kick_direct(struct nvl_gsp *gsp)
{
	if (gsp->direct_pending && !gsp->direct_running)
		pthread_cond_signal(&gsp->drain_cond);
}

/*
 * Run the direct handlers with an event pending, rx_lock held (dropped
 * around each call). One runner at a time: a second caller returns at
 * once and the runner takes what was marked meanwhile.
 */
static void run_direct_locked(struct nvl_gsp *gsp)
{
	if (gsp->direct_running)
		return;
	gsp->direct_running = true;
	while (gsp->direct_pending && !gsp->stop) {
		uint32_t pend = gsp->direct_pending;

		gsp->direct_pending = 0;
		while (pend) {
			unsigned i = (unsigned)__builtin_ctz(pend);
			nvl_gsp_event_fn fn = gsp->handlers[i].fn;
			void *fa = gsp->handlers[i].arg;
			uint32_t event = gsp->handlers[i].event;

			pend &= pend - 1;
			if (!fn || !gsp->handlers[i].direct) {
				gsp->st.events_unhandled++;
				continue;
			}
			gsp->st.events++;
			pthread_mutex_unlock(&gsp->rx_lock);
			fn(fa, event, 0, NULL, 0);
			pthread_mutex_lock(&gsp->rx_lock);
		}
	}
	gsp->direct_running = false;
	pthread_cond_broadcast(&gsp->rx_cond);
}

/* drains the status queue on every interrupt, whoever else is busy */
static void *rx_thread(void *arg)
{
	struct nvl_gsp *gsp = arg;

	pthread_mutex_lock(&gsp->rx_lock);
	while (!gsp->stop) {
		if (gsp->irqs != gsp->irqs_drained) {
			gsp->irqs_drained = gsp->irqs;
			if (!gsp->dead)
				drain_locked(gsp);
			continue;
		}
		if (gsp->direct_pending && !gsp->direct_running) {
			run_direct_locked(gsp);
			continue;
		}
		pthread_cond_wait(&gsp->drain_cond, &gsp->rx_lock);
	}
	pthread_mutex_unlock(&gsp->rx_lock);
	return NULL;
}

/* runs event handlers, one at a time, from the bounded queue */
static void *event_thread(void *arg)
{
	struct nvl_gsp *gsp = arg;

	pthread_mutex_lock(&gsp->rx_lock);
	while (!gsp->stop) {
		if (gsp->ev_count) {
			struct nvl_gsp_ev ev = gsp->evq[gsp->ev_head];
			nvl_gsp_event_fn fn = NULL;
			void *fa = NULL;

			gsp->ev_head =
				(gsp->ev_head + 1) % NVL_GSP_EVENT_QUEUE_LEN;
			gsp->ev_count--;
			for (unsigned i = 0; i < NVL_GSP_MAX_HANDLERS; i++)
				if (gsp->handlers[i].fn &&
				    gsp->handlers[i].event == ev.event) {
					fn = gsp->handlers[i].fn;
					fa = gsp->handlers[i].arg;
				}
			if (fn)
				gsp->st.events++;
			else
				gsp->st.events_unhandled++;
			gsp->ev_running = true;
			gsp->ev_cur_rx = ev.rx;
			pthread_mutex_unlock(&gsp->rx_lock);
			if (fn)
				fn(fa, ev.event, ev.result, ev.data, ev.len);
			nvl_free(ev.data);
			pthread_mutex_lock(&gsp->rx_lock);
			gsp->ev_running = false;
			pthread_cond_broadcast(&gsp->rx_cond);
			continue;
		}
		pthread_cond_wait(&gsp->ev_cond, &gsp->rx_lock);
	}
	pthread_mutex_unlock(&gsp->rx_lock);
	return NULL;
}

int nvl_gsp_create(struct nvl_hw *hw, struct nvl_gsp **gsp_out)
{
	struct nvl_gsp *gsp = nvl_zalloc(sizeof(*gsp));
	int ret;

	if (!gsp)
		return nvl_error(-ENOMEM, "gsp: no memory for the client");
	gsp->hw = hw;
	mutex_init_adaptive(&gsp->tx_lock);
	mutex_init_adaptive(&gsp->rx_lock);
	cond_init_mono(&gsp->rx_cond);
	cond_init_mono(&gsp->drain_cond);
	cond_init_mono(&gsp->ev_cond);
	nvl_list_init(&gsp->waiters);
	gsp->ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	gsp->spin_ok = gsp->ncpus > 1;
	gsp->spin_ns = SPIN_START_NS;
	ret = nvl_gsp_msgq_init(&gsp->q, hw);
	if (ret)
		goto fail_q;
	ret = nvl_gsp_rm_init(gsp);
	if (ret)
		goto fail_rm;
	ret = nvl_might_alloc(0);
	if (!ret)
		ret = -pthread_create(&gsp->ev_thread, NULL, event_thread, gsp);
	if (ret) {
		nvl_error(-ENOMEM, "gsp: cannot start the event thread");
		goto fail_thread;
	}
	ret = nvl_might_alloc(0);
	if (!ret)
		ret = -pthread_create(&gsp->rx_thread, NULL, rx_thread, gsp);
	if (ret) {
		nvl_error(-ENOMEM, "gsp: cannot start the receive thread");
		pthread_mutex_lock(&gsp->rx_lock);
		gsp->stop = true;
		pthread_cond_broadcast(&gsp->ev_cond);
		pthread_mutex_unlock(&gsp->rx_lock);
		pthread_join(gsp->ev_thread, NULL);
		goto fail_thread;
	}
	/* for perf and /proc/self/task/<tid>/comm (bench/nv/rc_split.c) */
	(void)pthread_setname_np(gsp->ev_thread, "nvl-gsp-ev");
	(void)pthread_setname_np(gsp->rx_thread, "nvl-gsp-rx");
	nvl_hw_set_irq_handler(hw, irq_handler, gsp);
	nvl_hw_wr32(hw, NVL_HW_INTR_EN_SET(NVL_HW_INTR_TREE_STALL),
		    NVL_HW_INTR_GSP);
	*gsp_out = gsp;
	return 0;

fail_thread:
	nvl_gsp_rm_fini(gsp);
fail_rm:
	nvl_gsp_msgq_fini(&gsp->q);
fail_q:
	pthread_cond_destroy(&gsp->rx_cond);
	pthread_cond_destroy(&gsp->drain_cond);
	pthread_cond_destroy(&gsp->ev_cond);
	pthread_mutex_destroy(&gsp->rx_lock);
	pthread_mutex_destroy(&gsp->tx_lock);
	nvl_free(gsp);
	return ret == -ENOMEM ? ret
			      : nvl_error(ret, "gsp: client setup failed");
}

void nvl_gsp_destroy(struct nvl_gsp *gsp)
{
	struct nvl_gsp_async *w, *tmp;

	if (!gsp)
		return;
	nvl_hw_wr32(gsp->hw, NVL_HW_INTR_EN_CLEAR(NVL_HW_INTR_TREE_STALL),
		    NVL_HW_INTR_GSP);
	nvl_hw_set_irq_handler(gsp->hw, NULL, NULL);
	pthread_mutex_lock(&gsp->rx_lock);
	gsp->stop = true;
	pthread_cond_broadcast(&gsp->rx_cond);
	pthread_cond_broadcast(&gsp->drain_cond);
	pthread_cond_broadcast(&gsp->ev_cond);
	pthread_mutex_unlock(&gsp->rx_lock);
	pthread_join(gsp->ev_thread, NULL);
	pthread_join(gsp->rx_thread, NULL);
	while (gsp->ev_count) {
		nvl_free(gsp->evq[gsp->ev_head].data);
		gsp->ev_head = (gsp->ev_head + 1) % NVL_GSP_EVENT_QUEUE_LEN;
		gsp->ev_count--;
	}
	take_incoming(gsp);
	nvl_list_for_each_entry_safe (w, tmp, &gsp->waiters, link) {
		nvl_list_del(&w->link);
		if (w->abandoned)
			nvl_free(w);
	}
	nvl_gsp_boot_free(gsp);
	nvl_gsp_rm_fini(gsp);
	nvl_gsp_logs_free(gsp);
	nvl_gsp_msgq_fini(&gsp->q);
	pthread_cond_destroy(&gsp->rx_cond);
	pthread_cond_destroy(&gsp->drain_cond);
	pthread_cond_destroy(&gsp->ev_cond);
	pthread_mutex_destroy(&gsp->rx_lock);
	pthread_mutex_destroy(&gsp->tx_lock);
	nvl_free(gsp);
}

bool nvl_gsp_needs_reset(struct nvl_gsp *gsp)
{
	return gsp->dead;
}

void nvl_gsp_mark_dead(struct nvl_gsp *gsp, const char *why)
{
	struct nvl_gsp_async *w, *tmp;
	bool was = atomic_exchange(&gsp->dead, true);

	if (was)
		return;
	nvl_err(NVL_CAT_GSP, "gsp: %s: the device needs a reset", why);
	nvl_gsp_logs_capture(gsp);
	pthread_mutex_lock(&gsp->rx_lock);
	take_incoming(gsp);
	nvl_list_for_each_entry_safe (w, tmp, &gsp->waiters, link)
		complete(gsp, w, -ENODEV);
	pthread_cond_broadcast(&gsp->rx_cond);
	pthread_mutex_unlock(&gsp->rx_lock);
	if (gsp->dead_fn)
		gsp->dead_fn(gsp->dead_arg);
}

void nvl_gsp_set_dead_notify(struct nvl_gsp *gsp, nvl_gsp_dead_fn fn, void *arg)
{
	gsp->dead_arg = arg;
	gsp->dead_fn = fn;
}

/* send one message and (unless @w is NULL) register its waiter first */
static int send(struct nvl_gsp *gsp, uint32_t function, const void *req,
		size_t len, struct nvl_gsp_async *w, bool noseq,
		int64_t deadline)
{
	uint32_t seq;
	int ret;

	pthread_mutex_lock(&gsp->tx_lock);
	if (gsp->dead) {
		pthread_mutex_unlock(&gsp->tx_lock);
		return nvl_error(-ENODEV, "gsp: %s: the device needs a reset",
				 nvl_gsp_function_name(function));
	}
	seq = noseq ? 0 : ++gsp->next_seq;
	if (w) {
		/* registered before its message is on the wire, without
		 * rx_lock: a drainer takes it when it looks for it */
		struct nvl_gsp_async *head = atomic_load_explicit(
			&gsp->incoming, memory_order_relaxed);

		w->function = function;
		w->sequence = seq;
		do
			w->in_next = head;
		while (!atomic_compare_exchange_weak_explicit(
			&gsp->incoming, &head, w, memory_order_release,
			memory_order_relaxed));
	}
	/* traced as it goes on the wire, so before its reply */
	nvl_trace_fn tr = nvl_gsp_tracer(gsp);

	if (tr)
		nvl_gsp_trace_emit(gsp, tr, NVL_TRACE_GSP_CMD, function, seq, 0,
				   req, len);
	ret = nvl_gsp_msgq_send_quiet(&gsp->q, function, seq, req, len,
				      deadline);
	/* counted under tx_lock (nvl_gsp_get_stats() copies them): no
	 * rx_lock round trip in a send */
	gsp->tx_rpcs++;
	if (ret && w) {
		pthread_mutex_lock(&gsp->rx_lock);
		unlink_waiter(gsp, w);
		pthread_mutex_unlock(&gsp->rx_lock);
	}
	pthread_mutex_unlock(&gsp->tx_lock);
	/* the doorbell (a wake-up of the GSP's thread, in the model) with
	 * tx_lock free: the next sender does not wait behind it */
	if (!ret)
		nvl_gsp_msgq_ring(&gsp->q);
	if (ret == -ETIMEDOUT)
		nvl_gsp_mark_dead(gsp, "the command queue stayed full");
	if (ret)
		return nvl_error(ret, "gsp: sending %s failed (%d)",
				 nvl_gsp_function_name(function), ret);
	return 0;
}

/*
 * After a timeout: is the GSP hung, or did only a reply go missing? Hung
 * when it leaves commands unread and does not read one more within a grace
 * period.
 */
static bool gsp_stuck(struct nvl_gsp *gsp)
{
	uint32_t r1 = nvl_gsp_msgq_cmd_rptr(&gsp->q);
	struct timespec ts = {0, 20 * 1000 * 1000};

	if (r1 == nvl_gsp_msgq_cmd_wptr(&gsp->q))
		return false;
	nanosleep(&ts, NULL);
	return nvl_gsp_msgq_cmd_rptr(&gsp->q) == r1;
}

enum spin_end { SPIN_HIT, SPIN_MISS, SPIN_BUSY };

static void spin_adapt(struct nvl_gsp *gsp, enum spin_end how, int64_t ns)
{
	int64_t b = gsp->spin_ns;

	if (how != SPIN_BUSY)
		gsp->spin_busy = 0;
	if (how == SPIN_BUSY) {
		/* another thread wanted this CPU twice running: no CPU is
		 * idle, a spin only delays the GSP's thread; sleep at once
		 * for a while. Once is not enough: a virtual CPU also
		 * stalls now and then on an idle machine, for its host, or
		 * runs the woken GSP thread itself */
		if (++gsp->spin_busy < 2)
			return;
		gsp->spin_cool = SPIN_COOL;
		b = SPIN_MIN_NS;
	} else if (how == SPIN_HIT) {
		b += (2 * ns + SPIN_MIN_NS - b) / 4;
	} else {
		b /= 2;
	}
	gsp->spin_ns = NVL_MIN(NVL_MAX(b, SPIN_MIN_NS), SPIN_MAX_NS);
}

/*
 * A spin that started at @t0 caught nothing, then the call completed after
 * a sleep: a reply that came within SPIN_MAX_NS would have been caught by a
 * spin that long, with no sleep. rx_lock held.
 */
static void spin_learn(struct nvl_gsp *gsp, int64_t t0)
{
	int64_t ns = nvl_time_ns() - t0;

	if (ns <= SPIN_MAX_NS && !gsp->spin_cool)
		gsp->spin_ns = NVL_MIN(NVL_MAX(ns + ns / 4, gsp->spin_ns),
				       SPIN_MAX_NS);
}

/* end a spin: rx_lock held */
static void spin_end(struct nvl_gsp *gsp)
{
	gsp->spinner = false;
	if (gsp->spin_irq) {
		/* the interrupt left its messages to the spinner: they may
		 * be other waiters' replies */
		gsp->spin_irq = false;
		if (!gsp->dead) {
			drain_locked(gsp);
			kick_direct(gsp);
		}
	}
}

/*
 * Before a waiter sleeps, it polls the GSP's status queue write pointer
 * for a bounded, adaptive time with rx_lock dropped, as real drivers poll
 * for GSP replies: the reply that comes within the budget (a few
 * microseconds with busy CPUs, up to SPIN_MAX_NS beside an idle one) is
 * drained by the caller itself, with no wake-up (the interrupt handler
 * only broadcasts while a waiter is counted). Only the waiter of the
 * only call in flight spins, never on a single CPU; it yields the CPU
 * about every microsecond and
 * stops at the budget, the deadline or a dead GSP, or as soon as a yield
 * or a preemption shows that the CPU is wanted (then the next SPIN_COOL
 * waits sleep at once). rx_lock held on entry and exit.
 * Return: 1 when the queue moved (drain again), 0 when it did not, -1 when
 * this waiter did not spin (rx_lock was not dropped: nothing to drain).
 */
static int spin_for_message(struct nvl_gsp *gsp, int64_t deadline,
			    int64_t *miss_t0)
{
	struct nvl_gsp_msgq *q = &gsp->q;
	uint32_t w0 = nvl_gsp_msgq_stat_peek(q), wp;
	int64_t limit = gsp->spin_ns, t0, now, last;
	enum spin_end how = SPIN_MISS;

	bool multi =
		gsp->active_waiters > 1 ||
		atomic_load_explicit(&gsp->calls, memory_order_relaxed) > 1;

	if (!gsp->spin_ok || gsp->spinner || gsp->dead)
		return -1;
	if (multi) {
		/* several callers: one of them watches for all, so that
		 * its CPU does not go idle between batches (see
		 * SPIN_MULTI_GAP_NS) */
		if (!gate_open(&gsp->multi_gate))
			return -1;
		limit = SPIN_MAX_NS;
	} else if (gsp->spin_cool) {
		gsp->spin_cool--;
		return -1;
	} else if (limit > SPIN_SHORT_NS && !nvl_cpus_free()) {
		limit = SPIN_SHORT_NS;
	}
	gsp->spinner = true;
	pthread_mutex_unlock(&gsp->rx_lock);
	t0 = last = nvl_time_ns();
	for (unsigned i = 1;; i++) {
		wp = nvl_gsp_msgq_stat_peek(q);
		/* a new message, or one left since the last drain */
		if (wp != w0 || wp != nvl_gsp_msgq_stat_rptr(q)) {
			how = SPIN_HIT;
			break;
		}
		if (i % 16 == 0) {
			now = nvl_time_ns();
			if (now - last >
			    (multi ? SPIN_MULTI_GAP_NS : SPIN_BUSY_NS)) {
				how = SPIN_BUSY;
				break;
			}
			last = now;
			/* another call started: its sender needs a CPU
			 * (unless this spin watches for several) */
			if (now - t0 >= limit || now >= deadline ||
			    atomic_load(&gsp->dead) ||
			    (!multi &&
			     atomic_load_explicit(&gsp->calls,
						  memory_order_relaxed) > 1))
				break;
			if (i % 32 == 0)
				sched_yield();
		}
		nvl_cpu_relax();
	}
	now = nvl_time_ns();
	pthread_mutex_lock(&gsp->rx_lock);
	/* a long gap, also before a reply seen after it: the CPU was lost */
	if (multi && now - last > SPIN_MULTI_GAP_NS)
		gate_lost(&gsp->multi_gate, now, now - last, 0);
	if (!multi) {
		spin_adapt(gsp, how, now - t0);
		if (how == SPIN_MISS && !*miss_t0)
			*miss_t0 = t0;
	}
	spin_end(gsp);
	return how == SPIN_HIT;
}

/*
 * A sleeping caller was woken: the first one after a wake-up records what
 * it cost, from the waker's time stamp (a stamp older than SPIN_MAX_NS was
 * meant for an earlier sleep and is not counted).
 */
static void wake_learn(struct nvl_gsp *gsp)
{
	int64_t t = atomic_exchange_explicit(&gsp->wake_stamp, 0,
					     memory_order_relaxed);
	int64_t d, avg;

	if (!t)
		return;
	d = nvl_time_ns() - t;
	if (d < 0 || d > SPIN_MAX_NS)
		return;
	avg = atomic_load_explicit(&gsp->wake_cost_ns, memory_order_relaxed);
	atomic_store_explicit(&gsp->wake_cost_ns, avg + (d - avg) / 4,
			      memory_order_relaxed);
}

/*
 * May a waiting caller yield its CPU instead of sleeping? Only while several
 * calls are in flight (one call's caller and the firmware's thread have a
 * CPU each: the spin) and wake-ups are dear. rx_lock held.
 */
static bool yield_ok(struct nvl_gsp *gsp)
{
	if (!gsp->spin_ok ||
	    (gsp->active_waiters < 2 &&
	     atomic_load_explicit(&gsp->calls, memory_order_relaxed) < 2))
		return false;
	if (gsp->yield_always)
		return true;
	if (atomic_load_explicit(&gsp->wake_cost_ns, memory_order_relaxed) <
	    WAKE_DEAR_NS) {
		gsp->yield_cheap++;
		return false;
	}
	if (!gate_open(&gsp->yield_gate)) {
		gsp->yield_shut++;
		return false;
	}
	return true;
}

/*
 * Yield the CPU until @w's word leaves WORD_YIELDING, for at most
 * YIELD_MAX_NS, no lock held. True when it left it (done or kicked);
 * false when the word is WORD_SLEEPING now: sleep.
 */
static bool yield_on_word(struct nvl_gsp *gsp, struct nvl_gsp_async *w,
			  int64_t deadline)
{
	int64_t t0 = nvl_time_ns(), now = t0, before;
	uint32_t v;

	while (atomic_load(&w->word) == WORD_YIELDING) {
		if (now - t0 >= YIELD_MAX_NS || now >= deadline ||
		    atomic_load(&gsp->dead))
			break;
		before = now;
		sched_yield();
		now = nvl_time_ns();
		if (now - before > NVL_POLL_LOST_CPU_NS) {
			gate_lost(&gsp->yield_gate, now, now - before,
				  YIELD_LOSS_SHIFT_MAX);
			break;
		}
	}
	v = WORD_YIELDING;
	return !atomic_compare_exchange_strong(&w->word, &v, WORD_SLEEPING);
}

/*
 * Sleep until @w's call is done or the interrupt asks this caller to drain,
 * rx_lock held on entry and dropped; with @yield, yield the CPU first
 * (yield_on_word()). Returns true when the call is done (rx_lock not taken
 * back: the completer wrote everything before it set the word), false with
 * rx_lock held again.
 */
static bool sleep_on_word(struct nvl_gsp *gsp, struct nvl_gsp_async *w,
			  int64_t deadline, bool yield)
{
	uint32_t bit = wake_bit(w);

	atomic_store_explicit(&w->word, yield ? WORD_YIELDING : WORD_SLEEPING,
			      memory_order_relaxed);
	pthread_mutex_unlock(&gsp->rx_lock);
	if (yield && yield_on_word(gsp, w, deadline))
		goto moved;
	/* until the word changes: another caller's wake-up (a shared bit)
	 * or a bumped wake_seq is no reason to take rx_lock again */
	for (;;) {
		uint32_t seq = atomic_load(&gsp->wake_seq);
		int r;

		if (atomic_load(&w->word) != WORD_SLEEPING)
			break;
		r = nvl_futex_wait_bits(&gsp->wake_seq, seq, deadline, bit);
		if (r == -ETIME)
			break;
		if (!r)
			wake_learn(gsp);
	}
moved:
	if (atomic_load_explicit(&w->word, memory_order_acquire) == WORD_DONE)
		return true;
	pthread_mutex_lock(&gsp->rx_lock);
	/* completions set the word under rx_lock: not done means not done */
	if (!w->done)
		atomic_store_explicit(&w->word, WORD_PENDING,
				      memory_order_relaxed);
	return false;
}

/*
 * Wait for @w; rx_lock held on entry; on return held when *@locked (always
 * so for -ETIMEDOUT), else not (the call was completed, with or without an
 * error, and its word said so). Returns the call's errno.
 */
static int wait_loop(struct nvl_gsp *gsp, struct nvl_gsp_async *w,
		     int64_t deadline, bool *locked)
{
	bool spin = true, yield;
	int64_t miss_t0 = 0;

	*locked = true;
	for (;;) {
		if (!w->done && !gsp->dead) {
			drain_locked(gsp);
			kick_direct(gsp);
		}
		if (w->done)
			break;
		if (gsp->dead) {
			unlink_waiter(gsp, w);
			w->done = true;
			w->err = -ENODEV;
			break;
		}
		/* after a spin that caught nothing, drain once more (the
		 * interrupt found nobody asleep), then sleep */
		if (spin) {
			int r = spin_for_message(gsp, deadline, &miss_t0);

			spin = r > 0;
			if (r > 0 || (!r && gsp->spin_ok))
				continue;
		}
		spin = true;
		if (nvl_time_ns() >= deadline) {
			drain_locked(gsp);
			kick_direct(gsp);
			if (w->done)
				break;
			return -ETIMEDOUT;
		}
		yield = yield_ok(gsp);
		if (yield) {
			gsp->yield_waits++;
			gate_try(&gsp->yield_gate);
		}
		if (sleep_on_word(gsp, w, deadline, yield)) {
			*locked = false;
			break;
		}
	}
	if (miss_t0 && !w->err) {
		if (!*locked)
			pthread_mutex_lock(&gsp->rx_lock);
		spin_learn(gsp, miss_t0);
		if (!*locked)
			pthread_mutex_unlock(&gsp->rx_lock);
	}
	return w->err;
}

static int wait_locked(struct nvl_gsp *gsp, struct nvl_gsp_async *w,
		       int64_t deadline, bool *locked)
{
	int ret;

	/* this caller's own wake-up: the drain that completes the call
	 * wakes it, and no other caller */
	atomic_store_explicit(&w->word, WORD_PENDING, memory_order_relaxed);
	w->waiting = true;
	gsp->active_waiters++;
	ret = wait_loop(gsp, w, deadline, locked);
	/* a completion counted it out already */
	if (w->waiting) {
		w->waiting = false;
		gsp->active_waiters--;
	}
	return ret;
}

/* the outcome of a call; rx_lock held when @locked, dropped here */
static int finish(struct nvl_gsp *gsp, struct nvl_gsp_async *w, int ret,
		  size_t *reply_len, bool locked)
{
	uint32_t function = w->function;

	if (ret == -ETIMEDOUT) {
		gsp->st.timeouts++;
		/* abandon: a late reply is discarded */
		w->abandoned = true;
		pthread_mutex_unlock(&gsp->rx_lock);
		if (gsp_stuck(gsp))
			nvl_gsp_mark_dead(
				gsp,
				"the GSP stopped reading its command queue");
		return nvl_error(-ETIMEDOUT, "gsp: %s: no reply in time",
				 nvl_gsp_function_name(function));
	}
	if (locked)
		pthread_mutex_unlock(&gsp->rx_lock);
	if (ret == -ENODEV)
		return nvl_error(ret, "gsp: %s: the device needs a reset",
				 nvl_gsp_function_name(function));
	if (ret)
		return nvl_error(ret, "gsp: %s: bad reply (%d)",
				 nvl_gsp_function_name(function), ret);
	if (reply_len)
		*reply_len = w->len;
	if (w->result != GSPABI_K_STATUS_NV_OK)
		return nvl_error(nvl_gsp_status_errno(w->result),
				 "gsp: %s failed: %s",
				 nvl_gsp_function_name(function),
				 nvl_gsp_status_name(w->result));
	return 0;
}

static int rpc_call(struct nvl_gsp *gsp, uint32_t function, const void *req,
		    size_t req_len, void *reply, size_t reply_cap,
		    size_t *reply_len, enum nvl_gsp_reply policy,
		    int64_t timeout_ns)
{
	int64_t deadline = nvl_deadline_after(timeout_ns ? timeout_ns
							 : NVL_GSP_TIMEOUT_NS);
	struct nvl_gsp_async local = {0}, *w = &local;
	bool locked;
	int ret;

	if (req_len && !req)
		return nvl_error(-EINVAL, "gsp: RPC payload missing");
	if (atomic_load(&gsp->asleep))
		return nvl_error(
			-EAGAIN,
			"gsp: the device is suspended: resume it first");
	if (policy == NVL_GSP_REPLY_NOWAIT || policy == NVL_GSP_REPLY_NOSEQ)
		return send(gsp, function, req, req_len, NULL,
			    policy == NVL_GSP_REPLY_NOSEQ, deadline);
	if (policy == NVL_GSP_REPLY_RECV) {
		w->buf = reply;
		w->cap = reply ? reply_cap : 0;
	}
	if (policy == NVL_GSP_REPLY_POLL) {
		/* need the size to reassemble, not the bytes: a heap buffer
		 * would only be thrown away, so count into a NULL buffer */
		w->buf = NULL;
		w->cap = reply_cap;
	}
	ret = send(gsp, function, req, req_len, w, false, deadline);
	if (ret)
		return ret;
	pthread_mutex_lock(&gsp->rx_lock);
	ret = wait_locked(gsp, w, deadline, &locked);
	if (ret == -ETIMEDOUT) {
		/* a stack waiter cannot be abandoned: unlink it */
		unlink_waiter(gsp, w);
		if (gsp->asm_w == w)
			gsp->asm_w = NULL, gsp->asm_discard = true;
		w->done = true;
		gsp->st.timeouts++;
		pthread_mutex_unlock(&gsp->rx_lock);
		if (gsp_stuck(gsp))
			nvl_gsp_mark_dead(
				gsp,
				"the GSP stopped reading its command queue");
		return nvl_error(-ETIMEDOUT, "gsp: %s: no reply in time",
				 nvl_gsp_function_name(function));
	}
	return finish(gsp, w, ret, reply_len, locked);
}

int nvl_gsp_rpc(struct nvl_gsp *gsp, uint32_t function, const void *req,
		size_t req_len, void *reply, size_t reply_cap,
		size_t *reply_len, enum nvl_gsp_reply policy,
		int64_t timeout_ns)
{
	int ret;

	/* counted so that a waiter spins only while its call is the only
	 * one (spin_for_message()) */
	atomic_fetch_add_explicit(&gsp->calls, 1, memory_order_relaxed);
	ret = rpc_call(gsp, function, req, req_len, reply, reply_cap, reply_len,
		       policy, timeout_ns);
	atomic_fetch_sub_explicit(&gsp->calls, 1, memory_order_relaxed);
	return ret;
}

int nvl_gsp_rpc_async(struct nvl_gsp *gsp, uint32_t function, const void *req,
		      size_t req_len, void *reply, size_t reply_cap,
		      struct nvl_gsp_async **async_out)
{
	struct nvl_gsp_async *w = nvl_zalloc(sizeof(*w));
	int ret;

	if (!w)
		return nvl_error(-ENOMEM, "gsp: no memory for an async RPC");
	w->owned = true;
	w->buf = reply;
	w->cap = reply ? reply_cap : 0;
	ret = send(gsp, function, req, req_len, w, false,
		   nvl_deadline_after(NVL_GSP_TIMEOUT_NS));
	if (ret) {
		nvl_free(w);
		return ret;
	}
	*async_out = w;
	return 0;
}

int nvl_gsp_async_wait(struct nvl_gsp *gsp, struct nvl_gsp_async *a,
		       size_t *reply_len, int64_t timeout_ns)
{
	int64_t deadline = nvl_deadline_after(timeout_ns ? timeout_ns
							 : NVL_GSP_TIMEOUT_NS);
	bool locked;
	int ret;

	pthread_mutex_lock(&gsp->rx_lock);
	ret = wait_locked(gsp, a, deadline, &locked);
	if (ret == -ETIMEDOUT) {
		if (gsp->asm_w == a)
			gsp->asm_w = NULL, gsp->asm_discard = true;
		a->buf = NULL; /* the caller's buffer is no longer ours */
		/* a freed later */
		return finish(gsp, a, ret, reply_len, true);
	}
	ret = finish(gsp, a, ret, reply_len, locked);
	nvl_free(a);
	return ret;
}

static int event_register(struct nvl_gsp *gsp, uint32_t event,
			  nvl_gsp_event_fn fn, void *arg, bool direct)
{
	int free_slot = -1, ret = 0;

	if (event < GSPABI_K_EVENT_FIRST_EVENT)
		return nvl_error(-EINVAL, "gsp: %#x is not an event", event);
	pthread_mutex_lock(&gsp->rx_lock);
	for (unsigned i = 0; i < NVL_GSP_MAX_HANDLERS; i++) {
		if (gsp->handlers[i].fn && gsp->handlers[i].event == event) {
			free_slot = (int)i;
			break;
		}
		if (!gsp->handlers[i].fn && free_slot < 0)
			free_slot = (int)i;
	}
	if (free_slot < 0) {
		ret = nvl_error(-ENOSPC, "gsp: too many event handlers");
	} else {
		gsp->handlers[free_slot].event = event;
		gsp->handlers[free_slot].fn = fn;
		gsp->handlers[free_slot].arg = arg;
		gsp->handlers[free_slot].direct = direct;
		/* a mark left for an earlier handler of the slot */
		gsp->direct_pending &= ~(1u << free_slot);
	}
	pthread_mutex_unlock(&gsp->rx_lock);
	return ret;
}

int nvl_gsp_event_register(struct nvl_gsp *gsp, uint32_t event,
			   nvl_gsp_event_fn fn, void *arg)
{
	return event_register(gsp, event, fn, arg, false);
}

int nvl_gsp_event_register_direct(struct nvl_gsp *gsp, uint32_t event,
				  nvl_gsp_event_fn fn, void *arg)
{
	return event_register(gsp, event, fn, arg, true);
}

int nvl_gsp_events_settle(struct nvl_gsp *gsp, int64_t timeout_ns)
{
	int64_t deadline = nvl_deadline_after(timeout_ns);
	int ret = 0;

	pthread_mutex_lock(&gsp->rx_lock);
	for (;;) {
		if (!gsp->dead)
			drain_locked(gsp);
		if (!gsp->ev_count && !gsp->ev_running &&
		    !gsp->direct_pending && !gsp->direct_running)
			break;
		kick_direct(gsp);
		pthread_cond_signal(&gsp->ev_cond);
		if (!rx_wait(gsp, deadline)) {
			ret = nvl_error(
				-ETIMEDOUT,
				"gsp: events still queued at the deadline");
			break;
		}
	}
	pthread_mutex_unlock(&gsp->rx_lock);
	return ret;
}

int nvl_gsp_event_flush(struct nvl_gsp *gsp, int64_t timeout_ns)
{
	/* a round trip: the firmware sends what it raised before our NOP
	 * ahead of the NOP's reply */
	if (!gsp->dead)
		nvl_gsp_rpc(gsp, GSPABI_K_FUNCTION_NOP, NULL, 0, NULL, 0, NULL,
			    NVL_GSP_REPLY_POLL, timeout_ns);
	return nvl_gsp_events_settle(gsp, timeout_ns);
}

void nvl_gsp_get_stats(struct nvl_gsp *gsp, struct nvl_gsp_stats *out)
{
	pthread_mutex_lock(&gsp->tx_lock);
	pthread_mutex_lock(&gsp->rx_lock);
	*out = gsp->st;
	out->rpcs = gsp->tx_rpcs;
	out->bad_header = gsp->q.stats.bad_header;
	out->bad_checksum = gsp->q.stats.bad_checksum;
	out->bad_seq = gsp->q.stats.bad_seq;
	out->duplicate = gsp->q.stats.duplicate;
	out->bad_rpc = gsp->q.stats.bad_rpc;
	out->received = gsp->q.stats.received;
	out->sent = gsp->q.stats.sent;
	out->yield_waits = gsp->yield_waits;
	out->yield_cheap = gsp->yield_cheap;
	out->yield_shut = gsp->yield_shut;
	out->yield_lost = atomic_load(&gsp->yield_gate.lost);
	out->multi_lost = atomic_load(&gsp->multi_gate.lost);
	out->yield_lost_dup = atomic_load(&gsp->yield_gate.lost_dup);
	out->lost_ns = atomic_load(&gsp->yield_gate.lost_ns) +
		       atomic_load(&gsp->multi_gate.lost_ns);
	out->wake_cost_ns = atomic_load(&gsp->wake_cost_ns);
	pthread_mutex_unlock(&gsp->rx_lock);
	pthread_mutex_unlock(&gsp->tx_lock);
}

uint64_t nvl_gsp_rx_mark(struct nvl_gsp *gsp)
{
	uint64_t n;

	pthread_mutex_lock(&gsp->rx_lock);
	n = gsp->rx_msgs;
	pthread_mutex_unlock(&gsp->rx_lock);
	return n;
}

uint64_t nvl_gsp_event_rx(struct nvl_gsp *gsp)
{
	/* written by the event thread itself before the handler runs */
	return gsp->ev_cur_rx;
}

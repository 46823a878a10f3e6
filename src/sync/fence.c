// SPDX-License-Identifier: MIT
/*
 * DOC: Fences
 *
 * The state lives in one 32-bit word, nvl_fence.flags, which is also the
 * futex waiters sleep on. Signalling is a single atomic fetch-or of the
 * SIGNALED bit: whoever sets it first wins (exactly-once), the others get
 * -EALREADY. No global lock anywhere.
 *
 * - Waiters set WAITERS with a fetch-or; if the old value had SIGNALED they
 *   return, else they sleep on the word expecting "old | WAITERS". The
 *   signaller's fetch-or either sees WAITERS (and wakes) or happened first
 *   (and the waiter saw SIGNALED): both RMWs are totally ordered on the one
 *   word, so no wake-up is lost.
 * - Callbacks: add_callback sets HAS_CB with a fetch-or under the per-fence
 *   lock and queues the node unless SIGNALED was already set. The signaller
 *   takes the lock only when HAS_CB was set before its own fetch-or, then
 *   runs the queued callbacks under the lock (so remove_callback() is
 *   synchronous: false means "has run").
 * - Work a callback wants to do after the signal (signalling a parent array
 *   or walking a chain) goes through nvl_fence_defer(): it runs when the
 *   thread's outermost nvl_fence_signal() has finished its callbacks, in a
 *   loop, so nesting never recurses nor nests fence locks.
 *
 * nvl_fence_signal() is a fence-signalling section (checker.h) around the
 * callbacks and deferred work it runs.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "base/compiler.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/cpufree.h"
#include "base/idlepoll.h"
#include "base/log.h"
#include "sync/checker.h"
#include "sync/fence.h"

#define F_SIGNALED (1u << NVL_FENCE_FLAG_SIGNALED_BIT)
#define F_TIMESTAMP (1u << NVL_FENCE_FLAG_TIMESTAMP_BIT)
#define F_ENABLE (1u << NVL_FENCE_FLAG_ENABLE_SIGNAL_BIT)
#define F_SEQNO64 (1u << NVL_FENCE_FLAG_SEQNO64_BIT)
#define F_WAITERS (1u << NVL_FENCE_FLAG_WAITERS_BIT)
#define F_HAS_CB (1u << NVL_FENCE_FLAG_HAS_CB_BIT)
#define F_INIT (1u << NVL_FENCE_FLAG_INITIALIZED_BIT)

/*
 * nvl_fence.timestamp: >= 0 CLOCK_MONOTONIC ns; TS_NONE not stamped yet
 * (unsignalled, or its signaller is between its claim and its stamp);
 * any other negative value is ~(raw TSC stamp), converted by its first
 * reader, who replaces it with the ns (compare-and-swap: every reader
 * gets the same value). 62 bits of ticks: 36 years of uptime at 4 GHz.
 */
#define TS_NONE INT64_MIN
#define TS_RAW_MASK ((UINT64_C(1) << 62) - 1)

/*
 * Polling before a wait sleeps (poll_signal()): only when a CPU is free
 * (base/cpufree.h), for about twice the thread's recent wait time (an EWMA
 * starting at POLL_START_NS) plus POLL_SLACK_NS, at most POLL_CAP_NS; a
 * thread whose recent waits are longer than the cap does not poll. A
 * check-in more than POLL_PREEMPT_NS after the previous one means the
 * poller lost its CPU: the poll ends (and stops other polls for a while
 * when the loss was another program's time slice, nvl_cpu_poll_end()).
 * The poll yields its CPU once per NVL_POLL_YIELD_NS (base/idlepoll.h),
 * so that the thread it waits for runs if the kernel put it on this CPU.
 */
#define POLL_START_NS (20 * NVL_NSEC_PER_USEC)
#define POLL_SLACK_NS (5 * NVL_NSEC_PER_USEC)
#define POLL_CAP_NS (100 * NVL_NSEC_PER_USEC)
#define POLL_PREEMPT_NS (15 * NVL_NSEC_PER_USEC)

static atomic_uint_fast64_t context_counter = 1;

/*
 * Signal timestamps. clock_gettime() costs ~35 ns here, several times a
 * malloc/free pair; when the kernel itself uses the TSC as clocksource,
 * signalling records a raw stamp (base/clock.h: nvl_tsc_read()) and readers
 * convert it to CLOCK_MONOTONIC ns (nvl_tsc_to_mono_ns()).
 */

struct signal_tls {
	int depth;
	struct nvl_fence_work *head, **tail;
};

static _Thread_local struct signal_tls sig_tls;

uint64_t nvl_fence_context_alloc(unsigned num)
{
	return atomic_fetch_add_explicit(&context_counter, num,
					 memory_order_relaxed);
}

static void fence_init_flags(struct nvl_fence *f,
			     const struct nvl_fence_ops *ops, uint64_t context,
			     uint64_t seqno, uint32_t flags)
{
	f->ops = ops;
	f->context = context;
	f->seqno = seqno;
	atomic_init(&f->flags, flags | F_INIT);
	atomic_init(&f->error, 0);
	nvl_kref_init(&f->refcount);
	nvl_flock_init(&f->lock);
	atomic_init(&f->timestamp, TS_NONE);
	nvl_list_init(&f->cb_list);
}

NVL_HOT void nvl_fence_init(struct nvl_fence *f,
			    const struct nvl_fence_ops *ops, uint64_t context,
			    uint64_t seqno)
{
	fence_init_flags(f, ops, context, seqno, 0);
}

NVL_HOT void nvl_fence_init64(struct nvl_fence *f,
			      const struct nvl_fence_ops *ops, uint64_t context,
			      uint64_t seqno)
{
	fence_init_flags(f, ops, context, seqno, F_SEQNO64);
}

int nvl_fence_create(struct nvl_fence **f_out, uint64_t context, uint64_t seqno)
{
	struct nvl_fence *f;

	if (!f_out)
		return nvl_error(-EINVAL, "fence: create without f_out");
	f = nvl_malloc(sizeof(*f));
	if (!f)
		return nvl_error(-ENOMEM,
				 "fence: out of memory creating a "
				 "fence (context %llu seqno %llu)",
				 (unsigned long long)context,
				 (unsigned long long)seqno);
	nvl_fence_init(f, NULL, context, seqno);
	*f_out = f;
	return 0;
}

/* ---- deferred work --------------------------------------------------- */

void nvl_fence_defer(struct nvl_fence_work *w)
{
	struct signal_tls *t = &sig_tls;

	if (t->depth == 0) {
		t->depth = 1;
		w->fn(w);
		t->depth = 0;
		return;
	}
	w->next = NULL;
	if (!t->head)
		t->tail = &t->head;
	*t->tail = w;
	t->tail = &w->next;
}

static void drain_deferred(struct signal_tls *t)
{
	struct nvl_fence_work *w;

	while ((w = t->head)) {
		t->head = w->next;
		if (!t->head)
			t->tail = &t->head;
		w->fn(w);
	}
}

/* ---- signalling ------------------------------------------------------ */

static void run_callbacks(struct nvl_fence *f)
{
	nvl_flock_lock(&f->lock);
	while (!nvl_list_empty(&f->cb_list)) {
		struct nvl_fence_cb *cb = nvl_list_first_entry(
			&f->cb_list, struct nvl_fence_cb, node);

		nvl_list_del(&cb->node);
		cb->func(f, cb);
	}
	nvl_flock_unlock(&f->lock);
}

/* @ts: ns (>= 0), or ~ticks of a raw TSC stamp (TS_RAW_MASK'ed) */
static NVL_HOT int fence_signal(struct nvl_fence *f, int64_t ts)
{
	struct signal_tls *t;
	uint32_t old;
	struct nvl_signalling_cookie cookie;

	if (unlikely(!f))
		return nvl_error(-EINVAL, "fence: signal of NULL");
	if (atomic_load_explicit(&f->flags, memory_order_relaxed) & F_SIGNALED)
		return -EALREADY;
	/*
	 * Claim first, then stamp: a signaller that loses the fetch-or writes
	 * nothing, so the winner's time is the one every reader sees (readers
	 * that find SIGNALED before the stamp wait for it,
	 * nvl_fence_timestamp()). The same one RMW as before, the stamp a
	 * plain store after it.
	 */
	old = atomic_fetch_or_explicit(&f->flags, F_SIGNALED | F_TIMESTAMP,
				       memory_order_acq_rel);
	if (old & F_SIGNALED)
		return -EALREADY;
	atomic_store_explicit(&f->timestamp, ts, memory_order_release);

	if (old & F_WAITERS)
		nvl_futex_wake_all(&f->flags);
	if (old & F_HAS_CB) {
		/*
		 * Only callbacks run foreign code, so only they need the
		 * section (our own path above neither allocates nor blocks).
		 */
		cookie = nvl_fence_begin_signalling();
		t = &sig_tls;
		t->depth++;
		run_callbacks(f);
		if (t->depth == 1)
			drain_deferred(t);
		t->depth--;
		nvl_fence_end_signalling(cookie);
	}
	return 0;
}

int nvl_fence_signal_timestamp(struct nvl_fence *f, int64_t timestamp_ns)
{
	if (unlikely(timestamp_ns < 0))
		return nvl_error(-EINVAL,
				 "fence: signal with a negative timestamp "
				 "%lld ns",
				 (long long)timestamp_ns);
	return fence_signal(f, timestamp_ns);
}

NVL_HOT int nvl_fence_signal(struct nvl_fence *f)
{
	if (nvl_tsc_on())
		return fence_signal(f,
				    ~(int64_t)(nvl_tsc_read() & TS_RAW_MASK));
	return fence_signal(f, nvl_time_ns());
}

void nvl_fence_set_error(struct nvl_fence *f, int err)
{
	if (!f)
		return;
	if (err >= 0 || err < -4095) {
		nvl_warn(NVL_CAT_SYNC, "fence %s:%llu: bad error %d ignored",
			 nvl_fence_timeline_name(f),
			 (unsigned long long)f->seqno, err);
		return;
	}
	if (nvl_fence_test_signaled_flag(f)) {
		nvl_warn(NVL_CAT_SYNC,
			 "fence %s:%llu: error %d set after signalling ignored",
			 nvl_fence_timeline_name(f),
			 (unsigned long long)f->seqno, err);
		return;
	}
	atomic_store_explicit(&f->error, err, memory_order_relaxed);
}

NVL_HOT bool nvl_fence_is_signaled(struct nvl_fence *f)
{
	if (nvl_fence_test_signaled_flag(f))
		return true;
	if (f->ops && f->ops->signaled && f->ops->signaled(f)) {
		nvl_fence_signal(f);
		return true;
	}
	return false;
}

NVL_HOT int nvl_fence_get_status(struct nvl_fence *f)
{
	int err;

	if (!nvl_fence_is_signaled(f))
		return 0;
	err = atomic_load_explicit(&f->error, memory_order_relaxed);
	return err ? err : 1;
}

/* @ts, a stamp (not TS_NONE) read from @f, as ns */
static int64_t stamp_ns(struct nvl_fence *f, int64_t ts)
{
	int64_t ns;

	if (ts >= 0)
		return ts;
	/* a raw stamp: the first reader's conversion is everyone's */
	ns = nvl_tsc_to_mono_ns((uint64_t)~ts & TS_RAW_MASK);
	if (ns < 0)
		ns = 0;
	if (atomic_compare_exchange_strong_explicit(&f->timestamp, &ts, ns,
						    memory_order_acq_rel,
						    memory_order_acquire))
		return ns;
	return ts;
}

int64_t nvl_fence_timestamp(struct nvl_fence *f)
{
	int64_t ts;

	if (!nvl_fence_test_signaled_flag(f))
		return 0;
	/* the winner stamps right after its claim */
	while ((ts = atomic_load_explicit(&f->timestamp,
					  memory_order_acquire)) == TS_NONE)
		sched_yield();
	return stamp_ns(f, ts);
}

int64_t nvl_fence_timestamp_nowait(struct nvl_fence *f)
{
	int64_t ts;

	if (!nvl_fence_test_signaled_flag(f))
		return INT64_MAX;
	ts = atomic_load_explicit(&f->timestamp, memory_order_acquire);
	return ts == TS_NONE ? INT64_MAX : stamp_ns(f, ts);
}

/* ---- callbacks ------------------------------------------------------- */

NVL_HOT void nvl_fence_enable_sw_signaling(struct nvl_fence *f)
{
	uint32_t old;

	if (!f->ops || !f->ops->enable_signaling) {
		if (!(atomic_load_explicit(&f->flags, memory_order_relaxed) &
		      F_ENABLE))
			atomic_fetch_or_explicit(&f->flags, F_ENABLE,
						 memory_order_relaxed);
		return;
	}
	old = atomic_fetch_or_explicit(&f->flags, F_ENABLE,
				       memory_order_acq_rel);
	if (old & (F_ENABLE | F_SIGNALED))
		return;
	if (!f->ops->enable_signaling(f))
		nvl_fence_signal(f);
}

NVL_HOT int nvl_fence_add_callback(struct nvl_fence *f, struct nvl_fence_cb *cb,
				   nvl_fence_func_t func)
{
	uint32_t old;

	if (!f || !cb || !func)
		return nvl_error(-EINVAL, "fence: add_callback with NULL %s",
				 !f    ? "fence"
				 : !cb ? "node"
				       : "function");
	nvl_list_init(&cb->node);
	cb->func = func;
	if (nvl_fence_test_signaled_flag(f))
		return -ENOENT;
	nvl_fence_enable_sw_signaling(f);
	nvl_flock_lock(&f->lock);
	old = atomic_fetch_or_explicit(&f->flags, F_HAS_CB,
				       memory_order_acq_rel);
	if (old & F_SIGNALED) {
		nvl_flock_unlock(&f->lock);
		return -ENOENT;
	}
	nvl_list_add_tail(&cb->node, &f->cb_list);
	nvl_flock_unlock(&f->lock);
	return 0;
}

bool nvl_fence_remove_callback(struct nvl_fence *f, struct nvl_fence_cb *cb)
{
	bool queued;

	nvl_flock_lock(&f->lock);
	queued = !nvl_list_empty(&cb->node);
	if (queued)
		nvl_list_del(&cb->node);
	nvl_flock_unlock(&f->lock);
	return queued;
}

/* ---- waiting --------------------------------------------------------- */

/* EWMA of this thread's waits that had to wait (ns) */
static _Thread_local int64_t wait_ewma_ns = POLL_START_NS;
/* EWMA of what this thread's wake-ups cost, signal to running (ns; 0:
 * none measured) */
static _Thread_local int64_t wake_ewma_ns;

/*
 * After a sleep the signal ended: what the wake-up cost, from the fence's
 * signal time stamp to now. Only stamps of the signalling itself count
 * (within POLL_CAP_NS of now): a producer may stamp another clock's time
 * (nvl_fence_signal_timestamp()). Only after a sleep, so the clock read
 * and the stamp's conversion cost the polled path nothing.
 */
static void wake_note(struct nvl_fence *f)
{
	int64_t d = nvl_time_ns() - nvl_fence_timestamp(f);

	if (d >= 0 && d <= POLL_CAP_NS)
		wake_ewma_ns += (d - wake_ewma_ns) / 4;
}

static void wait_note(int64_t ns)
{
	/* a long wait counts as 4 caps: a few short ones bring polling back */
	if (ns > 4 * POLL_CAP_NS)
		ns = 4 * POLL_CAP_NS;
	wait_ewma_ns += (ns - wait_ewma_ns) / 4;
}

/*
 * Poll @f before sleeping on it, when a CPU is free (nvl_cpu_poll_begin())
 * and this thread's recent waits were short: for twice their EWMA plus
 * POLL_SLACK_NS, or what this thread's recent wake-ups cost if longer
 * (wake_note(): polling as long as the sleep it saves would cost is
 * never more than twice the best choice), at most POLL_CAP_NS and never
 * past @abs_ns, yielding
 * once per NVL_POLL_YIELD_NS. A signal
 * caught here costs no wake-up on either side: the signaller sees no
 * WAITERS and makes no futex call. Nothing else changes: the wait was
 * annotated before, and an interruptible wait notices a signal in the
 * sleep that follows a miss. No allocation, no lock. @t0 and @limit are
 * nvl_clock_ns() times (base/clock.h: durations only; @limit is the
 * wait's deadline on that clock).
 * Return: true when @f was seen signalled.
 */
static bool poll_signal(struct nvl_fence *f, int64_t t0, int64_t limit,
			bool polled)
{
	int64_t lat = wait_ewma_ns, end, now, last = t0, yielded = t0;
	int64_t lost = 0;
	bool hit = false;

	if (lat > POLL_CAP_NS || !nvl_cpu_poll_begin())
		return false;
	/* at least as long as the sleep it saves would cost (ski rental) */
	end = t0 + NVL_MIN(NVL_MAX(2 * lat + POLL_SLACK_NS, wake_ewma_ns),
			   POLL_CAP_NS);
	if (limit < end)
		end = limit;
	for (unsigned int i = 1;; i++) {
		if (nvl_fence_test_signaled_flag(f)) {
			hit = true;
			break;
		}
		if (i % 16) {
			nvl_cpu_relax();
			continue;
		}
		if (polled && nvl_fence_is_signaled(f)) {
			hit = true;
			break;
		}
		now = nvl_clock_ns();
		if (now - last > POLL_PREEMPT_NS) {
			/* lost the CPU: one more look, then sleep */
			hit = nvl_fence_test_signaled_flag(f);
			if (!hit)
				lost = now - last;
			break;
		}
		if (now >= end)
			break;
		last = now;
		if (now - yielded >= NVL_POLL_YIELD_NS) {
			sched_yield();
			yielded = nvl_clock_ns();
			/* the yield ran another thread (the signaller,
			 * maybe): it shares this CPU, so sleep instead */
			if (yielded - now > NVL_POLL_YIELD_LOST_NS) {
				hit = nvl_fence_test_signaled_flag(f);
				break;
			}
		}
	}
	nvl_cpu_poll_end(lost);
	return hit;
}

/*
 * An interruptible sleep needs a finite futex deadline: the kernel restarts
 * an untimed futex wait after an SA_RESTART handler instead of failing it.
 */
#define INTR_FOREVER_NS (INT64_MAX / 2)

static int fence_sleep(struct nvl_fence *f, int64_t abs_ns, bool polled,
		       bool intr)
{
	for (;;) {
		uint32_t old = atomic_fetch_or_explicit(&f->flags, F_WAITERS,
							memory_order_acq_rel);
		int64_t until = abs_ns;
		int r;

		if (old & F_SIGNALED)
			return 0;
		if (polled) {
			/* Producers that only poll may never wake us. */
			if (nvl_fence_is_signaled(f))
				return 0;
			until = nvl_deadline_after(NVL_NSEC_PER_MSEC);
			if (abs_ns < until)
				until = abs_ns;
		}
		if (intr && until == NVL_TIMEOUT_INFINITE)
			until = INTR_FOREVER_NS;
		r = nvl_futex_wait(&f->flags, old | F_WAITERS, until);
		if (!r && nvl_fence_test_signaled_flag(f))
			wake_note(f);
		if (r == -EINTR && intr)
			return nvl_fence_is_signaled(f) ? 0 : -EINTR;
		if (r == -ETIME && until == abs_ns)
			return nvl_fence_is_signaled(f) ? 0 : -ETIME;
	}
}

/* fence_wait()'s flag: the caller recorded this wait already */
#define FENCE_WAIT_RECORDED (1u << 31)

static NVL_HOT int fence_wait(struct nvl_fence *f, int64_t abs_ns,
			      uint32_t flags)
{
	bool polled = f->ops && f->ops->signaled;
	int64_t t0, limit;
	int r;

	/* Every wait is recorded, also one that returns at once. */
	if (!(flags & FENCE_WAIT_RECORDED))
		nvl_fence_wait_annotate_until(abs_ns);
	if (nvl_fence_is_signaled(f))
		return 0;
	nvl_fence_enable_sw_signaling(f);
	if (nvl_fence_is_signaled(f))
		return 0;
	/* durations on the cheap clock; the deadline stays CLOCK_MONOTONIC */
	t0 = nvl_clock_ns();
	limit = INT64_MAX;
	if (abs_ns != NVL_TIMEOUT_INFINITE) {
		int64_t left = abs_ns - nvl_time_ns();

		if (left <= 0)
			return -ETIME;
		limit = t0 + left;
	}
	if (poll_signal(f, t0, limit, polled)) {
		wait_note(nvl_clock_ns() - t0);
		return 0;
	}
	r = fence_sleep(f, abs_ns, polled,
			flags & NVL_FENCE_WAIT_INTERRUPTIBLE);
	if (!r)
		wait_note(nvl_clock_ns() - t0);
	return r;
}

int nvl_fence_wait_until(struct nvl_fence *f, int64_t abs_ns)
{
	if (!f)
		return nvl_error(-EINVAL, "fence: wait on NULL fence");
	return fence_wait(f, abs_ns, 0);
}

/* the public flags checked, then fence_wait() with @internal added */
static int wait_checked(struct nvl_fence *f, int64_t abs_ns, uint32_t flags,
			uint32_t internal)
{
	if (!f)
		return nvl_error(-EINVAL, "fence: wait on NULL fence");
	if (flags & ~NVL_FENCE_WAIT_INTERRUPTIBLE)
		return nvl_error(-EINVAL, "fence: wait: unknown flags %#x",
				 flags & ~NVL_FENCE_WAIT_INTERRUPTIBLE);
	return fence_wait(f, abs_ns, flags | internal);
}

int nvl_fence_wait_flags(struct nvl_fence *f, int64_t abs_ns, uint32_t flags)
{
	return wait_checked(f, abs_ns, flags, 0);
}

NVL_HOT int nvl_fence_wait_recorded(struct nvl_fence *f, int64_t abs_ns,
				    uint32_t flags)
{
	return wait_checked(f, abs_ns, flags, FENCE_WAIT_RECORDED);
}

int nvl_fence_wait(struct nvl_fence *f, int64_t timeout_ns)
{
	if (!f)
		return nvl_error(-EINVAL, "fence: wait on NULL fence");
	if (timeout_ns < 0)
		return nvl_error(-EINVAL, "fence: negative timeout %lld",
				 (long long)timeout_ns);
	if (timeout_ns == 0) {
		nvl_fence_wait_annotate(NVL_WAIT_POLL);
		return nvl_fence_is_signaled(f) ? 0 : -ETIME;
	}
	return fence_wait(f, nvl_deadline_after(timeout_ns), 0);
}

/* ---- wait-any -------------------------------------------------------- */

#define ANY_ON_STACK 8

struct any_cb {
	struct nvl_fence_cb cb;
	_Atomic uint32_t *seq;
};

static void any_wake(struct nvl_fence *f, struct nvl_fence_cb *cb)
{
	_Atomic uint32_t *seq = container_of(cb, struct any_cb, cb)->seq;

	(void)f;
	atomic_fetch_add(seq, 1);
	nvl_futex_wake_all(seq);
}

/* Index of the first signalled fence, or @count. */
static uint32_t any_signaled(struct nvl_fence *const *fences, uint32_t count)
{
	for (uint32_t i = 0; i < count; i++)
		if (nvl_fence_is_signaled(fences[i]))
			return i;
	return count;
}

int nvl_fence_wait_any(struct nvl_fence *const *fences, uint32_t count,
		       int64_t abs_ns, uint32_t flags, uint32_t *idx_out)
{
	struct any_cb stack_cbs[ANY_ON_STACK], *cbs = stack_cbs;
	bool intr = flags & NVL_FENCE_WAIT_INTERRUPTIBLE, polled = false;
	_Atomic uint32_t seq = 0;
	uint32_t i, added = 0;
	int ret;

	if (!fences || !count)
		return nvl_error(-EINVAL, "fence: wait_any on no fences");
	if (flags & ~NVL_FENCE_WAIT_INTERRUPTIBLE)
		return nvl_error(-EINVAL, "fence: wait_any: unknown flags %#x",
				 flags & ~NVL_FENCE_WAIT_INTERRUPTIBLE);
	for (i = 0; i < count; i++)
		if (!fences[i])
			return nvl_error(-EINVAL,
					 "fence: wait_any: fence %u "
					 "is NULL",
					 i);
	nvl_fence_wait_annotate_until(abs_ns);
	i = any_signaled(fences, count);
	if (i == count && abs_ns != NVL_TIMEOUT_INFINITE &&
	    abs_ns <= nvl_time_ns())
		return -ETIME;
	if (i < count)
		goto found;
	if (count > ANY_ON_STACK) {
		cbs = nvl_calloc(count, sizeof(*cbs));
		if (!cbs)
			return nvl_error(-ENOMEM,
					 "fence: wait_any: no memory "
					 "for %u callbacks",
					 count);
	}
	for (added = 0; added < count; added++) {
		cbs[added].seq = &seq;
		polled |= fences[added]->ops && fences[added]->ops->signaled;
		if (nvl_fence_add_callback(fences[added], &cbs[added].cb,
					   any_wake))
			break; /* signalled meanwhile */
	}
	for (;;) {
		uint32_t s = atomic_load(&seq);
		int64_t until = abs_ns;
		int r;

		i = any_signaled(fences, count);
		if (i < count) {
			ret = 0;
			break;
		}
		if (polled) {
			until = nvl_deadline_after(NVL_NSEC_PER_MSEC);
			if (abs_ns < until)
				until = abs_ns;
		}
		if (intr && until == NVL_TIMEOUT_INFINITE)
			until = INTR_FOREVER_NS;
		r = nvl_futex_wait(&seq, s, until);
		if (r == -EINTR && intr) {
			ret = -EINTR;
			break;
		}
		if (r == -ETIME && until == abs_ns) {
			ret = -ETIME;
			break;
		}
	}
	for (uint32_t k = 0; k < added && k < count; k++)
		nvl_fence_remove_callback(fences[k], &cbs[k].cb);
	if (cbs != stack_cbs)
		nvl_free(cbs);
	if (ret) {
		/* A last look, as a signal may race the wake-up. */
		i = any_signaled(fences, count);
		if (i == count)
			return ret;
	}
found:
	if (idx_out)
		*idx_out = i;
	return 0;
}

void nvl_fence_set_deadline(struct nvl_fence *f, int64_t deadline_ns)
{
	if (f->ops && f->ops->set_deadline && !nvl_fence_is_signaled(f))
		f->ops->set_deadline(f, deadline_ns);
}

/* ---- release --------------------------------------------------------- */

/* out of line: nvl_fence_put()'s common case (not the last reference)
 * then needs no stack frame (it runs ~9 times per exec, issue 15) */
static NVL_HOT __attribute__((noinline)) void fence_release(struct nvl_fence *f)
{
	if (!nvl_fence_test_signaled_flag(f)) {
		bool pending;

		nvl_flock_lock(&f->lock);
		pending = !nvl_list_empty(&f->cb_list);
		nvl_flock_unlock(&f->lock);
		if (pending) {
			nvl_warn(NVL_CAT_SYNC,
				 "fence %s:%s:%llu released unsignalled with "
				 "callbacks queued: signalling -EDEADLK",
				 nvl_fence_driver_name(f),
				 nvl_fence_timeline_name(f),
				 (unsigned long long)f->seqno);
			nvl_fence_set_error(f, -EDEADLK);
			nvl_fence_signal(f);
		}
	}
	if (f->ops && f->ops->release)
		f->ops->release(f);
	else
		nvl_free(f);
}

NVL_HOT void nvl_fence_put(struct nvl_fence *f)
{
	if (!f)
		return;
	/*
	 * The only reference: nobody else can take one, skip the RMW.
	 * Acquire pairs with the releasing decrement of the other holders.
	 */
	if (atomic_load_explicit(&f->refcount.refcount, memory_order_acquire) ==
		    1 ||
	    nvl_kref_put(&f->refcount))
		fence_release(f);
}

/* ---- stub and ordering ----------------------------------------------- */

static const char *stub_name(struct nvl_fence *f)
{
	return "stub";
}

static void stub_release(struct nvl_fence *f)
{
}

static const struct nvl_fence_ops stub_ops = {
	.get_driver_name = stub_name,
	.get_timeline_name = stub_name,
	.release = stub_release,
};

static struct nvl_fence stub_fence;
static pthread_once_t stub_once = PTHREAD_ONCE_INIT;

static void stub_init(void)
{
	fence_init_flags(&stub_fence, &stub_ops, 0, 0,
			 F_SIGNALED | F_TIMESTAMP | F_ENABLE);
	atomic_store(&stub_fence.timestamp, nvl_time_ns());
}

struct nvl_fence *nvl_fence_get_stub(void)
{
	pthread_once(&stub_once, stub_init);
	return nvl_fence_get(&stub_fence);
}

bool nvl_fence_is_later(struct nvl_fence *a, struct nvl_fence *b)
{
	if (a->context != b->context) {
		nvl_warn(NVL_CAT_SYNC,
			 "fence: comparing contexts %llu and %llu",
			 (unsigned long long)a->context,
			 (unsigned long long)b->context);
		return false;
	}
	return nvl_fence_seqno_is_later(a, a->seqno, b->seqno);
}

bool nvl_fence_is_later_or_same(struct nvl_fence *a, struct nvl_fence *b)
{
	return a == b || (a->context == b->context && a->seqno == b->seqno) ||
	       nvl_fence_is_later(a, b);
}

const char *nvl_fence_driver_name(struct nvl_fence *f)
{
	if (f->ops && f->ops->get_driver_name)
		return f->ops->get_driver_name(f);
	return "nvl";
}

const char *nvl_fence_timeline_name(struct nvl_fence *f)
{
	if (f->ops && f->ops->get_timeline_name)
		return f->ops->get_timeline_name(f);
	return "unbound";
}

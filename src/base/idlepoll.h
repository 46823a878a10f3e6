/* SPDX-License-Identifier: MIT */
/*
 * An idle thread's poll before it sleeps, only while waking it is dear.
 *
 * A service thread that sleeps on a futex word between pieces of work (the
 * model's GSP firmware thread, its runlist threads) costs each piece one
 * wake-up. On a virtual machine whose host halts idle vCPUs that wake-up
 * takes tens of microseconds when the CPUs are idle, and 1-2 us when they
 * are busy. Watching the word for a while before sleeping saves it, but
 * only pays while wake-ups are dear and a CPU is free: on a busy machine
 * the poll takes the CPU the work needs. This helper keeps what the
 * thread learnt (what its wake-ups cost, how long to poll) and stops
 * itself when it loses its CPU. No allocation, no lock; the struct belongs
 * to the one thread that polls.
 */
#ifndef NVL_BASE_IDLEPOLL_H
#define NVL_BASE_IDLEPOLL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* A wake-up costing at least this (moving average) makes polling pay. */
#define NVL_IDLE_POLL_WAKE_NS 5000
/* The learnt budget's bounds. */
#define NVL_IDLE_POLL_MIN_NS 1000
#define NVL_IDLE_POLL_MAX_NS 50000
/* A look this long after the previous one: another thread had the CPU. */
#define NVL_IDLE_POLL_GAP_NS 5000
/* The longest gap between two measuring sleeps, in @resample units. */
#define NVL_IDLE_POLL_RESAMPLE_MAX 16
/* Idle periods that sleep at once after two polls lost their CPU. */
#define NVL_IDLE_POLL_COOL 64
/*
 * A lean poll (struct nvl_idle_poll.lean) and the fence wait's yield
 * their CPU once per this long (a thread the scheduler placed on the
 * poller's CPU runs). A sched_yield() costs ~0.6 us on the 2-vCPU VM:
 * yielding every 32 looks, as nvl_poll_word() does, spends most of a poll
 * in the system call and catches the word that long after it moved.
 */
#define NVL_POLL_YIELD_NS 4000
/*
 * A yield that took longer than this ran another thread: a thread shares
 * the poller's CPU, and the poll ends as one that lost its CPU. Without
 * this, two pollers the kernel put on one vCPU while the other idled (a
 * compute runlist thread and its submitter) handed the CPU to each other
 * once per NVL_POLL_YIELD_NS, under NVL_IDLE_POLL_GAP_NS, unseen:
 * launch_latency went from 3.3 to 11 us with 2 involuntary switches per
 * launch on the idle VM (session 14).
 */
#define NVL_POLL_YIELD_LOST_NS 2000

/**
 * struct nvl_idle_poll - what one idle thread learnt about its wake-ups.
 * @wake_ns: what its recent wake-ups cost, kick to running (moving
 *	average over about four, nvl_idle_poll_woken())
 * @budget_ns: how long the next poll may last (NVL_IDLE_POLL_MIN_NS ..
 *	NVL_IDLE_POLL_MAX_NS; 0 before the first poll: the minimum)
 * @t0: when the last poll that ended in a sleep started (0: none), to
 *	learn from the kick that ended the sleep
 * @cool: idle periods left that sleep without polling
 * @busy: polls in a row that lost their CPU
 * @polls: polls started (statistics)
 * @hits: polls that saw the word move (statistics)
 * @resample: set by the owner (0: never): after this many polls in a row
 *	that caught the word, the next idle period sleeps without polling,
 *	so that a wake-up is measured again (a poll that always hits never
 *	sleeps, and would go on trusting a cost measured long ago)
 * @streak: polls in a row that caught the word
 * @gap: hits in a row before the next such sleep (0: @resample); doubled,
 *	up to NVL_IDLE_POLL_RESAMPLE_MAX times @resample, each time the
 *	wake-up it measured was still dear, back to @resample when it was
 *	cheap: on the idle VM each measurement costs a dear wake-up, and
 *	one per 256 execs added ~0.2 us to the mean of exec_latency
 * @sampling: the last sleep was such a measurement
 * @lean: set by the owner: the poll pauses after every look, yields once
 *	per NVL_POLL_YIELD_NS (not every 32 looks) and ends as a lost CPU
 *	when a yield ran another thread (idlepoll.c's DOC)
 * @floor_wake: set by the owner: a poll lasts at least @wake_ns (at most
 *	NVL_IDLE_POLL_MAX_NS), whatever the learnt budget: spinning for as
 *	long as the sleep it saves would cost is never more than twice the
 *	best choice made knowing when the word moves (the ski-rental bound),
 *	while a budget learnt from the usual gap (2-3 us between an exec's
 *	doorbells) sent every longer gap to a 30-60 us wake-up
 * @clock: the time source (NULL: nvl_time_ns()); the waker's kick stamp
 *	(nvl_idle_poll_woken()) must come from the same clock: the model's
 *	runlist threads use base/clock.h's nvl_clock_ns(), tests a fake
 *
 * Zero-initialised it is ready: no poll until a wake-up was measured dear.
 */
struct nvl_idle_poll {
	int64_t wake_ns;
	int64_t budget_ns;
	int64_t t0;
	unsigned cool;
	unsigned busy;
	uint64_t polls;
	uint64_t hits;
	unsigned resample;
	unsigned streak;
	unsigned gap;
	bool sampling;
	bool lean;
	bool floor_wake;
	int64_t (*clock)(void);
};

/**
 * nvl_idle_poll() - watch @word for a move past @seq before sleeping on it.
 * @p: the thread's poll state
 * @word: the futex word the thread would sleep on
 * @seq: the value it read before it found nothing to do
 *
 * Polls only while the thread's wake-ups are dear (@p->wake_ns >=
 * NVL_IDLE_POLL_WAKE_NS), nvl_cpus_free() says no runnable thread waits
 * for a CPU, and no cool-down is running; for at most @p->budget_ns (or
 * @p->wake_ns if longer, with @p->floor_wake),
 * yielding every 32 looks (every NVL_POLL_YIELD_NS with @p->lean) so
 * that a thread placed on this CPU runs. A look coming more than
 * NVL_IDLE_POLL_GAP_NS after the previous one (with @p->lean also a yield
 * that ran another thread) means another thread had this CPU: the poll
 * ends; twice in a row means no CPU
 * is idle, so the budget drops to the minimum and the next
 * NVL_IDLE_POLL_COOL calls return false at once. The budget is learnt: a
 * move caught after t pulls it a quarter of the way towards 2t; a poll
 * that catches nothing halves it (and if the kick then comes within
 * NVL_IDLE_POLL_MAX_NS of its start, nvl_idle_poll_woken() raises it to
 * that time and a quarter). With @p->resample set, every
 * @p->resample-th idle period after as many hits in a row sleeps at once,
 * to measure a wake-up again (every @p->gap-th once such measurements
 * found wake-ups still dear). Call with no lock held.
 *
 * Return: true when the word moved (do not sleep: look for the work);
 * false when the caller should sleep on @word as it would have.
 */
bool nvl_idle_poll(struct nvl_idle_poll *p, const _Atomic uint32_t *word,
		   uint32_t seq);

/**
 * nvl_poll_word() - watch @word for a move past @seq, bounded.
 * @word: the futex word
 * @seq: the value read before there was nothing to do
 * @limit_ns: the longest poll
 * @clock: the time source (NULL: nvl_time_ns())
 * @t0: set to the poll's start
 * @end: set to the time the poll ended
 *
 * The loop of nvl_idle_poll() without its learning, for a thread that
 * already knows it wants to poll (the GSP firmware thread between two
 * elements of one message). Looks at @word every iteration and at the
 * clock every 16, pausing then, and yields every 32 looks. No allocation,
 * no lock.
 *
 * Return: 1 when the word moved; 0 when @limit_ns passed; -1 when a look
 * came more than NVL_IDLE_POLL_GAP_NS after the previous one (another
 * thread had this CPU).
 */
int nvl_poll_word(const _Atomic uint32_t *word, uint32_t seq, int64_t limit_ns,
		  int64_t (*clock)(void), int64_t *t0, int64_t *end);

/**
 * nvl_idle_poll_woken() - record what the wake-up just taken cost.
 * @p: the thread's poll state
 * @kick_ns: when the waker stamped its kick (on @p->clock's clock,
 *	before its futex wake), 0 when unknown
 *
 * Call right after a sleep that a wake ended (nvl_futex_wait() returned
 * 0), before taking any lock. A kick older than NVL_IDLE_POLL_MAX_NS (one
 * meant for an earlier sleep) is not counted.
 */
void nvl_idle_poll_woken(struct nvl_idle_poll *p, int64_t kick_ns);

/*
 * A poll whose look-to-look gap exceeded NVL_POLL_LOST_CPU_NS lost its CPU
 * to another program's time slice: polls of that kind stay off until
 * nvl_poll_lost_cpu_until() (50 times the gap, at most 200 ms: a hog's
 * slice stops them for a while, an idle virtual CPU's shorter host stall
 * only for a moment).
 */
#define NVL_POLL_LOST_CPU_NS 200000

static inline int64_t nvl_poll_lost_cpu_until(int64_t now, int64_t gap_ns)
{
	const int64_t max_ns = 200 * 1000 * 1000;

	return now + (gap_ns * 50 < max_ns ? gap_ns * 50 : max_ns);
}

#endif /* NVL_BASE_IDLEPOLL_H */

// SPDX-License-Identifier: MIT
/*
 * DOC: an idle thread's poll (see idlepoll.h)
 *
 * Factored out of the model's GSP firmware thread (its fw_poll(), session
 * 8) so that the runlist threads poll by the same rules. The loop looks
 * at the word every iteration and at the clock every 16 (a clock read
 * costs ~20-35 ns, a look ~1), pauses every 16 and yields every 32: a
 * thread the scheduler placed on this CPU (the one that will kick, on a
 * machine with a CPU fewer than it seemed) runs at once. The firmware
 * thread's polls rely on that: its busy poll is not gated by a free CPU
 * (its callers are the runnable threads) and shares its CPU through the
 * yields.
 *
 * The lean loop (struct nvl_idle_poll.lean, the runlist threads' since
 * session 14) pauses after every look (a bare spin takes a sibling
 * hyperthread's execution units) and yields once per NVL_POLL_YIELD_NS
 * instead: with a yield costing ~0.6 us, the loop above spends ~80 % of a
 * poll in the system call and a doorbell waits ~0.3 us on average to be
 * seen. A yield that ran another thread (longer than
 * NVL_POLL_YIELD_LOST_NS) ends it as a lost CPU. (Tried for every poll
 * first: the firmware thread's busy poll then saw its callers' turns as
 * lost CPUs and stopped, rpc_concurrent_8 fell from 324-445 to 134-153
 * k/s.) The gap test
 * needs no help from the kernel: a look that comes late means this
 * thread did not run meanwhile. Once is not enough to stop (an idle
 * virtual CPU also stalls now and then for its host), twice in a row is.
 */
#include <sched.h>

#include "base/compiler.h"
#include "base/cpufree.h"
#include "base/idlepoll.h"
#include "base/time.h"

static int64_t clock_ns(int64_t (*clock)(void))
{
	return clock ? clock() : nvl_time_ns();
}

static int64_t now_ns(const struct nvl_idle_poll *p)
{
	return clock_ns(p->clock);
}

int nvl_poll_word(const _Atomic uint32_t *word, uint32_t seq, int64_t limit_ns,
		  int64_t (*clock)(void), int64_t *t0, int64_t *end)
{
	int64_t now, last;

	*t0 = last = clock_ns(clock);
	for (unsigned i = 1;; i++) {
		if (atomic_load(word) != seq) {
			*end = clock_ns(clock);
			return 1;
		}
		if (i % 16)
			continue;
		*end = now = clock_ns(clock);
		if (now - last > NVL_IDLE_POLL_GAP_NS)
			return -1;
		last = now;
		if (now - *t0 >= limit_ns)
			return 0;
		if (i % 32 == 0)
			sched_yield();
		nvl_cpu_relax();
	}
}

/* nvl_poll_word() for struct nvl_idle_poll.lean (see the DOC above) */
static int poll_word_lean(const _Atomic uint32_t *word, uint32_t seq,
			  int64_t limit_ns, int64_t (*clock)(void), int64_t *t0,
			  int64_t *end)
{
	int64_t now, last, yielded;

	*t0 = last = yielded = clock_ns(clock);
	for (unsigned i = 1;; i++) {
		if (atomic_load(word) != seq) {
			*end = clock_ns(clock);
			return 1;
		}
		/* every look paused: a bare spin takes the execution units
		 * of a sibling hyperthread, where the kicker may be working */
		nvl_cpu_relax();
		if (i % 16)
			continue;
		*end = now = clock_ns(clock);
		if (now - last > NVL_IDLE_POLL_GAP_NS)
			return -1;
		last = now;
		if (now - *t0 >= limit_ns)
			return 0;
		if (now - yielded >= NVL_POLL_YIELD_NS) {
			sched_yield();
			yielded = clock_ns(clock);
			/* the yield ran another thread: it shares this CPU
			 * (the kicker, maybe): stop taking its time */
			if (yielded - now > NVL_POLL_YIELD_LOST_NS) {
				*end = yielded;
				return -1;
			}
		}
	}
}

static int64_t clamp_budget(int64_t ns)
{
	return NVL_MIN(NVL_MAX(ns, NVL_IDLE_POLL_MIN_NS), NVL_IDLE_POLL_MAX_NS);
}

NVL_HOT bool nvl_idle_poll(struct nvl_idle_poll *p,
			   const _Atomic uint32_t *word, uint32_t seq)
{
	int64_t t0, now, limit;
	bool busy;
	int r;

	p->t0 = 0;
	if (p->wake_ns < NVL_IDLE_POLL_WAKE_NS || !nvl_cpus_free())
		return false;
	if (p->cool) {
		p->cool--;
		return false;
	}
	if (p->resample && p->streak >= (p->gap ? p->gap : p->resample)) {
		/* sleep once: is a wake-up still dear? */
		p->streak = 0;
		p->sampling = true;
		return false;
	}
	p->budget_ns = clamp_budget(p->budget_ns);
	p->polls++;
	limit = p->budget_ns;
	if (p->floor_wake)
		limit = NVL_MAX(limit, clamp_budget(p->wake_ns));
	r = p->lean ? poll_word_lean(word, seq, limit, p->clock, &t0, &now)
		    : nvl_poll_word(word, seq, limit, p->clock, &t0, &now);
	if (r > 0) {
		p->busy = 0;
		p->budget_ns +=
			(2 * (now - t0) + NVL_IDLE_POLL_MIN_NS - p->budget_ns) /
			4;
		p->budget_ns = clamp_budget(p->budget_ns);
		p->hits++;
		p->streak++;
		return true;
	}
	busy = r < 0;
	p->streak = 0;
	if (busy && ++p->busy >= 2) {
		/* no CPU is idle: sleep at once for a while */
		p->cool = NVL_IDLE_POLL_COOL;
		p->budget_ns = NVL_IDLE_POLL_MIN_NS;
		return false;
	}
	if (!busy) {
		p->busy = 0;
		p->budget_ns = clamp_budget(p->budget_ns / 2);
	}
	p->t0 = t0;
	return false;
}

NVL_HOT void nvl_idle_poll_woken(struct nvl_idle_poll *p, int64_t kick_ns)
{
	int64_t now = now_ns(p);
	bool sampling = p->sampling;

	p->sampling = false;
	if (kick_ns && now >= kick_ns && now - kick_ns < NVL_IDLE_POLL_MAX_NS) {
		p->wake_ns += (now - kick_ns - p->wake_ns) / 4;
		/* a measuring sleep: the next one later while wake-ups stay
		 * dear, at the owner's pace again once one was cheap */
		if (sampling && now - kick_ns >= NVL_IDLE_POLL_WAKE_NS)
			p->gap = NVL_MIN(2 * NVL_MAX(p->gap, p->resample),
					 NVL_IDLE_POLL_RESAMPLE_MAX *
						 p->resample);
		else if (sampling)
			p->gap = p->resample;
	}
	/* the kick came after the poll gave up: it would have paid */
	if (p->t0 && kick_ns > p->t0 && kick_ns - p->t0 <= NVL_IDLE_POLL_MAX_NS)
		p->budget_ns = clamp_budget(
			NVL_MAX(p->budget_ns, (kick_ns - p->t0) * 5 / 4));
	p->t0 = 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * The fence-signalling checker: a small runtime lockdep for the rules that
 * keep fences completing in bounded time.
 *
 * Code between the moment a fence becomes visible and the moment it signals
 * is a "signalling section": nvl_fence_begin_signalling() ..
 * nvl_fence_end_signalling(). Inside one, the checker reports
 *  - any allocation through nvl_malloc & co (rule "alloc-in-signalling"),
 *  - taking a lock of a class flagged NVL_LOCK_RECLAIM ("reclaim-lock-in-
 *    signalling"), or entering reclaim ("reclaim-in-signalling"),
 *  - waiting on a fence: unbounded ("unbounded-wait-in-signalling") or
 *    bounded but blocking ("blocking-wait-in-signalling"),
 *  - nvl_might_block() ("blocking-in-signalling"),
 *  - an end that does not match its begin ("signalling-end-without-
 *    section", "-twice", "-out-of-order", "-foreign-cookie"): sections are
 *    identified by the cookie their begin returned.
 * Every fence wait is recorded on entry (nvl_fence_wait_annotate()), also
 * one that returns at once, as the kernel's might_wait annotation.
 * Everywhere it keeps a lock-class order graph over nvl_mutex, resv and the
 * pseudo classes "fence_signalling" and "reclaim" (primed resv -> reclaim ->
 * fence_signalling) and reports a cycle ("lock-order-inversion"); and
 * nvl_checker_assert_no_locks() reports held locks ("wait-for-submit-with-
 * locks-held").
 *
 * A report names the rule and prints both call stacks to stderr, bumps a
 * counter and, in ABORT mode, aborts. Mode from env NVL_CHECKER=abort|warn|
 * count|off (default warn); COUNT records silently (for tests that break a
 * rule on purpose and read nvl_checker_last_report()).
 */
#ifndef NVL_SYNC_CHECKER_H
#define NVL_SYNC_CHECKER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/compiler.h"
#include "sync/flock.h"

/** enum nvl_checker_mode - what a violation does. */
enum nvl_checker_mode {
	/** @NVL_CHECKER_OFF: no checking at all */
	NVL_CHECKER_OFF = 0,
	/** @NVL_CHECKER_COUNT: count and remember the report, print nothing */
	NVL_CHECKER_COUNT,
	/** @NVL_CHECKER_WARN: count and print the report */
	NVL_CHECKER_WARN,
	/** @NVL_CHECKER_ABORT: print the report and abort() */
	NVL_CHECKER_ABORT,
};

/** NVL_LOCK_RECLAIM - the class is taken on reclaim paths (a shrinker). */
#define NVL_LOCK_RECLAIM 0x1u

/**
 * struct nvl_lock_class - a class of locks that share ordering rules.
 * @name: for reports
 * @flags: NVL_LOCK_*
 * @id: graph node, assigned on first use (0 = not yet)
 */
struct nvl_lock_class {
	const char *name;
	unsigned flags;
	atomic_uint id;
};

/** NVL_LOCK_CLASS() - define a lock class variable (may be static). */
#define NVL_LOCK_CLASS(var, name_, flags_)                                     \
	struct nvl_lock_class var = {.name = (name_), .flags = (flags_)}

/**
 * struct nvl_mutex - a checker-aware mutex.
 * @lock: the lock (a futex word, sync/flock.h: an uncontended lock and
 *        unlock are one atomic each, where a pthread mutex costs about 55
 *        instructions a pair)
 * @cls: its class
 */
struct nvl_mutex {
	struct nvl_flock lock;
	struct nvl_lock_class *cls;
};

/**
 * struct nvl_signalling_cookie - identifies one signalling section.
 * @id: 0 when the checker was off at begin (end ignores it); otherwise the
 *      thread's tag (high 32 bits) and the section's serial (low 32 bits)
 *
 * A struct, not a bool, so a section can only be ended by the cookie of
 * its own begin.
 */
struct nvl_signalling_cookie {
	uint64_t id;
};

/**
 * nvl_fence_begin_signalling() - enter a fence-signalling section.
 *
 * Sections nest; each begin opens a new one on the thread's section stack.
 *
 * Return: the cookie that nvl_fence_end_signalling() must get back.
 */
struct nvl_signalling_cookie nvl_fence_begin_signalling(void);

/**
 * nvl_fence_end_signalling() - leave the section opened by the begin that
 * returned @cookie; it must be the innermost open section of the thread.
 * @cookie: what nvl_fence_begin_signalling() returned
 *
 * Violations (the section stack is left as described):
 *  - "signalling-end-without-section": no section is open (nothing done);
 *  - "signalling-end-twice": @cookie's section was already ended (nothing
 *    done);
 *  - "signalling-end-out-of-order": @cookie is an outer section while
 *    inner ones are open (the inner ones and @cookie's are closed);
 *  - "signalling-end-foreign-cookie": @cookie comes from another thread
 *    (nothing done).
 */
void nvl_fence_end_signalling(struct nvl_signalling_cookie cookie);

/**
 * nvl_fence_in_signalling() - is the calling thread inside a section?
 *
 * Return: true inside a section (and checker not off).
 */
bool nvl_fence_in_signalling(void);

/**
 * nvl_mutex_init() - initialise @m in class @cls.
 * @m: the mutex
 * @cls: its lock class (static storage)
 */
void nvl_mutex_init(struct nvl_mutex *m, struct nvl_lock_class *cls);

/** nvl_mutex_destroy() - tear down an unlocked mutex. @m: the mutex */
void nvl_mutex_destroy(struct nvl_mutex *m);

/** nvl_mutex_lock() - take @m (checked). @m: the mutex */
void nvl_mutex_lock(struct nvl_mutex *m);

/**
 * nvl_mutex_trylock() - take @m if free (records no order edges).
 * @m: the mutex
 *
 * Return: true when taken.
 */
bool nvl_mutex_trylock(struct nvl_mutex *m);

/** nvl_mutex_unlock() - release @m. @m: the mutex */
void nvl_mutex_unlock(struct nvl_mutex *m);

/**
 * nvl_checker_lock_acquire() - tell the checker a lock of @cls is being
 * taken (for locks that are not nvl_mutex, e.g. the resv ww mutex).
 * @cls: the class
 * @trylock: true for a trylock (no order edges from held locks)
 */
void nvl_checker_lock_acquire(struct nvl_lock_class *cls, bool trylock);

/**
 * nvl_checker_lock_release() - the lock of @cls taken last was released.
 * @cls: the class
 */
void nvl_checker_lock_release(struct nvl_lock_class *cls);

/** nvl_might_block() - the caller may block on another thread's progress. */
void nvl_might_block(void);

/**
 * nvl_fence_might_wait() - the caller is about to block on a fence.
 * @bounded: true when the wait has a finite timeout
 *
 * Same as nvl_fence_wait_annotate(@bounded ? NVL_WAIT_BOUNDED :
 * NVL_WAIT_UNBOUNDED).
 */
void nvl_fence_might_wait(bool bounded);

/** enum nvl_wait_kind - how long a fence wait may block. */
enum nvl_wait_kind {
	/** @NVL_WAIT_POLL: never blocks (timeout 0 or already passed) */
	NVL_WAIT_POLL = 0,
	/** @NVL_WAIT_BOUNDED: may block until a finite deadline */
	NVL_WAIT_BOUNDED,
	/** @NVL_WAIT_UNBOUNDED: may block forever */
	NVL_WAIT_UNBOUNDED,
};

/**
 * nvl_fence_wait_annotate() - record a fence wait, as the kernel's
 * might_wait annotation does: called by every wait on entry, before it
 * knows whether it will return at once (already signalled, timeout 0), so
 * a path that could deadlock is reported the first time it runs.
 * @kind: how long the wait may block
 *
 * Every lock class held gets the order edge held -> "fence_signalling"
 * (also inside a section, where the locks taken in it then close a
 * cycle); inside a section a BOUNDED or UNBOUNDED wait is also reported
 * ("blocking-wait-in-signalling", "unbounded-wait-in-signalling").
 */
void nvl_fence_wait_annotate(enum nvl_wait_kind kind);

/**
 * nvl_fence_wait_annotate_until() - nvl_fence_wait_annotate() for a wait
 * with absolute deadline @abs_ns (NVL_TIMEOUT_INFINITE: unbounded; now or
 * past: a poll). Reads the clock only inside a section, where the kind
 * matters, so fast paths stay cheap.
 * @abs_ns: CLOCK_MONOTONIC deadline
 */
void nvl_fence_wait_annotate_until(int64_t abs_ns);

/**
 * nvl_checker_assert_no_locks() - report when the thread holds any checked
 * lock (e.g. before waiting for userspace to submit).
 * @what: the operation, for the report
 */
void nvl_checker_assert_no_locks(const char *what);

/**
 * nvl_checker_signalling_safe() - may this thread enter a signalling
 * section now? True when the checker proves it: it is on, and none of the
 * locks the thread holds is of a class the order graph knows to be taken
 * inside a signalling section (directly or after one that is) — holding
 * such a lock across a section is the inversion "lock -> fence_signalling
 * -> lock". False when it cannot prove it (checker off, a held class
 * beyond the graph's capacity). For fast paths that may run signalling
 * work on the caller's thread (the scheduler's direct run) and otherwise
 * hand it to a worker that holds nothing. O(1) (the held set against the
 * graph's reach of "fence_signalling", two words), no allocation, no lock.
 */
bool nvl_checker_signalling_safe(void);

/** nvl_checker_reclaim_enter() - the thread enters memory reclaim. */
void nvl_checker_reclaim_enter(void);

/** nvl_checker_reclaim_leave() - the thread leaves memory reclaim. */
void nvl_checker_reclaim_leave(void);

/**
 * nvl_checker_violations() - violations reported since start (or reset).
 *
 * Return: the count.
 */
unsigned long nvl_checker_violations(void);

/**
 * nvl_checker_last_report() - copy the last report (rule, message, both
 * stacks) into @buf.
 * @buf: destination
 * @size: its size
 *
 * Return: @buf ("" when nothing was reported).
 */
const char *nvl_checker_last_report(char *buf, size_t size);

/**
 * nvl_checker_set_mode() - switch mode at run time.
 * @mode: the new mode
 *
 * Return: the previous mode.
 */
enum nvl_checker_mode nvl_checker_set_mode(enum nvl_checker_mode mode);

/**
 * nvl_checker_get_mode() - the current mode.
 *
 * Return: the mode.
 */
enum nvl_checker_mode nvl_checker_get_mode(void);

/**
 * nvl_checker_reset() - forget the order graph and counters (tests only;
 * no other thread may hold checked locks).
 */
void nvl_checker_reset(void);

/** nvl_resv_lock_class - the class of every reservation-object lock. */
extern struct nvl_lock_class nvl_resv_lock_class;

#endif /* NVL_SYNC_CHECKER_H */

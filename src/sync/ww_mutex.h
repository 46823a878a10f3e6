/* SPDX-License-Identifier: MIT */
/*
 * Wound/wait mutexes: deadlock-free locking of many objects in any order.
 *
 * Each locking attempt runs under an acquire context stamped from a global
 * counter (older = smaller stamp). When an older context finds a lock held by
 * a younger one it "wounds" the younger: the younger's next blocking attempt
 * fails with -EDEADLK, it drops everything it holds, sleeps on the contended
 * lock with nvl_ww_mutex_lock_slow() and retries (keeping its stamp, so it
 * eventually becomes the oldest and wins). Younger contexts simply wait.
 */
#ifndef NVL_SYNC_WW_MUTEX_H
#define NVL_SYNC_WW_MUTEX_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "base/compiler.h"
#include "sync/checker.h"
#include "sync/flock.h"

struct nvl_ww_mutex;

/**
 * struct nvl_ww_acquire_ctx - one multi-lock transaction.
 * @stamp: age (smaller = older)
 * @acquired: locks held through this context
 * @wounded: an older context wants a lock we hold
 * @blocked_on: the mutex this context sleeps on, if any
 * @cls: lock class of the mutexes
 */
struct nvl_ww_acquire_ctx {
	uint64_t stamp;
	unsigned acquired;
	atomic_bool wounded;
	struct nvl_ww_mutex *_Atomic blocked_on;
	struct nvl_lock_class *cls;
};

/**
 * struct nvl_ww_mutex - a wound/wait mutex.
 * @wait_lock: protects the fields below (@owner is also read without it)
 * @seq: the sleepers' futex word: a sleeper reads it under @wait_lock and
 *       sleeps while it is unchanged; a wake-up increments it under
 *       @wait_lock, so no wake-up is lost (a condition variable's role,
 *       without its cost)
 * @waiters: threads asleep on @seq (unlock wakes only if any)
 * @locked: held?
 * @ctx: holder's context (NULL when taken without one)
 * @owner: the holding thread's nvl_ww_self() while @locked, 0 when free
 *         (written under @wait_lock, read lock-free by held_by_me: only
 *         the holder itself can store or clear its own id); unlock from
 *         the same thread
 * @cls: lock class for the checker
 */
struct nvl_ww_mutex {
	struct nvl_flock wait_lock;
	_Atomic uint32_t seq;
	unsigned waiters;
	bool locked;
	struct nvl_ww_acquire_ctx *ctx;
	_Atomic uintptr_t owner;
	struct nvl_lock_class *cls;
};

/**
 * nvl_ww_mutex_init() - an unlocked mutex.
 * @m: the mutex
 * @cls: its lock class
 */
void nvl_ww_mutex_init(struct nvl_ww_mutex *m, struct nvl_lock_class *cls);

/** nvl_ww_mutex_destroy() - tear down an unlocked mutex. @m: the mutex */
void nvl_ww_mutex_destroy(struct nvl_ww_mutex *m);

/**
 * nvl_ww_acquire_init() - start a transaction with a fresh stamp.
 * @ctx: the context
 * @cls: lock class of the mutexes it will take
 */
void nvl_ww_acquire_init(struct nvl_ww_acquire_ctx *ctx,
			 struct nvl_lock_class *cls);

/**
 * nvl_ww_acquire_fini() - end a transaction (every lock released).
 * @ctx: the context
 */
void nvl_ww_acquire_fini(struct nvl_ww_acquire_ctx *ctx);

/**
 * nvl_ww_mutex_lock() - take @m within @ctx (or plainly with NULL).
 * @m: the mutex
 * @ctx: the transaction, or NULL
 *
 * Return: 0; -EALREADY when @ctx already holds @m; -EDEADLK when @ctx was
 * wounded while holding other locks (drop them all, then lock_slow @m).
 */
int nvl_ww_mutex_lock(struct nvl_ww_mutex *m,
		      struct nvl_ww_acquire_ctx *ctx) NVL_MUST_CHECK;

/**
 * nvl_ww_mutex_lock_slow() - take the contended @m after backing off (the
 * context holds nothing); cannot fail.
 * @m: the mutex
 * @ctx: the transaction
 */
void nvl_ww_mutex_lock_slow(struct nvl_ww_mutex *m,
			    struct nvl_ww_acquire_ctx *ctx);

/**
 * nvl_ww_mutex_trylock() - take @m if free.
 * @m: the mutex
 * @ctx: the transaction, or NULL
 *
 * Return: true when taken.
 */
bool nvl_ww_mutex_trylock(struct nvl_ww_mutex *m,
			  struct nvl_ww_acquire_ctx *ctx);

/** nvl_ww_mutex_unlock() - release @m. @m: the mutex */
void nvl_ww_mutex_unlock(struct nvl_ww_mutex *m);

/**
 * nvl_ww_mutex_is_locked() - is @m held (by anyone)?
 * @m: the mutex
 *
 * Return: true when held.
 */
bool nvl_ww_mutex_is_locked(struct nvl_ww_mutex *m);

/**
 * nvl_ww_self() - the calling thread's id as @owner records it: the thread
 * pointer (one register read; unique among live threads, as every thread
 * has its own TLS block) where the compiler provides it, else
 * pthread_self() (a call into the C library, whose clobbers gave the
 * exec path's resv checks a stack frame each).
 *
 * Return: the id.
 */
#if defined(__has_builtin)
#if __has_builtin(__builtin_thread_pointer)
#define NVL_WW_SELF_TP 1
#endif
#endif

static inline uintptr_t nvl_ww_self(void)
{
#ifdef NVL_WW_SELF_TP
	return (uintptr_t)__builtin_thread_pointer();
#else
	return (uintptr_t)pthread_self();
#endif
}

/**
 * nvl_ww_mutex_held_by_me() - is @m held by the calling thread?
 * @m: the mutex
 *
 * Return: true when the caller holds it.
 */
static inline bool nvl_ww_mutex_held_by_me(struct nvl_ww_mutex *m)
{
	/* inline: every resv write checks it (issue 15, the exec path) */
	return atomic_load_explicit(&m->owner, memory_order_relaxed) ==
	       nvl_ww_self();
}

#endif /* NVL_SYNC_WW_MUTEX_H */

/* SPDX-License-Identifier: MIT */
/*
 * A bounded, process-wide cache of same-size objects that one thread frees
 * and another allocates (the C library's per-thread caches never serve such
 * an object): a stack any thread pushes onto with a compare-and-swap, which
 * an allocating thread empties in one exchange into a list of its own, so
 * that no object is ever popped from the shared stack alone (no ABA). A
 * thread's list goes back to the stack (or is freed) at the thread's exit.
 * A cached object is linked through its first pointer-sized word: its
 * memory is dead while cached.
 *
 * Objects taken from a cache are not allocations by themselves: a user in
 * front of an allocator still calls nvl_might_alloc() for each, so that
 * failure injection and the signalling checker see every one.
 */
#ifndef NVL_BASE_FREELIST_H
#define NVL_BASE_FREELIST_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

/** struct nvl_freelist_node - a cached object's first word. */
struct nvl_freelist_node {
	/** @next: the next cached object */
	struct nvl_freelist_node *next;
};

/**
 * struct nvl_freelist - the shared part of a cache (static storage).
 * @top: the shared stack
 * @cached: objects in the stack and in every thread's list
 * @max: at most this many cached; nvl_freelist_put() refuses more
 * @once: creates @key
 * @key: gives a thread's list back at its exit
 * @key_ok: @key exists (without it, threads take nothing: no leak)
 */
struct nvl_freelist {
	_Atomic(struct nvl_freelist_node *) top;
	atomic_int cached;
	int max;
	pthread_once_t once;
	pthread_key_t key;
	bool key_ok;
};

/**
 * struct nvl_freelist_local - a thread's list (a _Thread_local variable
 * initialised with NVL_FREELIST_LOCAL_INIT()).
 * @fl: its cache
 * @head: objects this thread took from the stack
 * @registered: with @fl->key
 */
struct nvl_freelist_local {
	struct nvl_freelist *fl;
	struct nvl_freelist_node *head;
	bool registered;
};

/** NVL_FREELIST_INIT() - a cache of at most @max_ objects. */
#define NVL_FREELIST_INIT(max_)                                                \
	{                                                                      \
		.max = (max_), .once = PTHREAD_ONCE_INIT                       \
	}

/** NVL_FREELIST_LOCAL_INIT() - a thread's list of cache @fl_. */
#define NVL_FREELIST_LOCAL_INIT(fl_)                                           \
	{                                                                      \
		.fl = (fl_)                                                    \
	}

/**
 * nvl_freelist_put() - cache @obj (any thread).
 * @fl: the cache
 * @obj: an object of the cache's size, no longer used
 *
 * Return: true when cached; false when the cache is full (the caller frees).
 */
bool nvl_freelist_put(struct nvl_freelist *fl, void *obj);

/**
 * nvl_freelist_get() - a cached object for the calling thread.
 * @l: the thread's list of the cache
 *
 * Return: the object (its content is undefined), or NULL when none is
 * cached.
 */
void *nvl_freelist_get(struct nvl_freelist_local *l);

#endif /* NVL_BASE_FREELIST_H */

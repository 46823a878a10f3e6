// SPDX-License-Identifier: MIT
/*
 * DOC: freelist
 *
 * See freelist.h. The count covers the shared stack and every thread's
 * list: it is incremented before an object is pushed (and given back if
 * the cache is full) and decremented when a thread takes an object off its
 * own list.
 */
#include <stdlib.h>

#include "base/alloc.h"
#include "base/compiler.h"
#include "base/freelist.h"

NVL_HOT bool nvl_freelist_put(struct nvl_freelist *fl, void *obj)
{
	struct nvl_freelist_node *n = obj, *top;

	if (atomic_fetch_add_explicit(&fl->cached, 1, memory_order_relaxed) >=
	    fl->max) {
		atomic_fetch_sub_explicit(&fl->cached, 1, memory_order_relaxed);
		return false;
	}
	top = atomic_load_explicit(&fl->top, memory_order_relaxed);
	do
		n->next = top;
	while (!atomic_compare_exchange_weak_explicit(
		&fl->top, &top, n, memory_order_release, memory_order_relaxed));
	return true;
}

/* a thread's list at its exit: back to the shared stack, or freed */
static void local_drain(void *arg)
{
	struct nvl_freelist_local *l = arg;

	while (l->head) {
		struct nvl_freelist_node *n = l->head;

		l->head = n->next;
		atomic_fetch_sub_explicit(&l->fl->cached, 1,
					  memory_order_relaxed);
		if (!nvl_freelist_put(l->fl, n))
			nvl_free(n);
	}
}

/* pthread_once() passes no argument: the cache whose key is being made,
 * set by the calling thread (key_init() runs on it) */
static _Thread_local struct nvl_freelist *key_setup;

static void key_init(void)
{
	struct nvl_freelist *fl = key_setup;

	fl->key_ok = !pthread_key_create(&fl->key, local_drain);
}

NVL_HOT void *nvl_freelist_get(struct nvl_freelist_local *l)
{
	struct nvl_freelist *fl = l->fl;
	struct nvl_freelist_node *n;

	if (!l->head) {
		if (!atomic_load_explicit(&fl->top, memory_order_relaxed))
			return NULL;
		if (unlikely(!l->registered)) {
			key_setup = fl;
			pthread_once(&fl->once, key_init);
			if (!fl->key_ok || pthread_setspecific(fl->key, l))
				return NULL;
			l->registered = true;
		}
		l->head = atomic_exchange_explicit(&fl->top, NULL,
						   memory_order_acquire);
		if (!l->head)
			return NULL;
	}
	n = l->head;
	l->head = n->next;
	atomic_fetch_sub_explicit(&fl->cached, 1, memory_order_relaxed);
	return n;
}

// SPDX-License-Identifier: MIT
/*
 * DOC: Fence chains
 *
 * A node's `prev` pointer is guarded by a per-node flock, so walkers take a
 * reference under it and garbage collection (unlinking a predecessor whose
 * fence signalled, relinking to the predecessor's predecessor) is a locked
 * compare-and-swap. Without RCU this is what keeps a concurrent walker from
 * touching a freed node.
 *
 * Signalling: enable_signaling takes a reference on the node and arms one
 * callback on the first unsignalled fence found walking back; when it fires,
 * a deferred work item (nvl_fence_defer) walks again, re-arming on the next
 * unsignalled fence or signalling the node when none is left.
 *
 * Release is iterative: a node being freed steals the `prev` of each
 * predecessor it holds the last reference to, so dropping the head of a
 * million-point timeline does not recurse.
 */
#include <errno.h>

#include "base/alloc.h"
#include "base/log.h"
#include "sync/fence_array.h"
#include "sync/fence_chain.h"

struct nvl_fence *nvl_fence_chain_contained(struct nvl_fence *f)
{
	struct nvl_fence_chain *c = nvl_to_fence_chain(f);

	return c ? c->fence : f;
}

struct nvl_fence *nvl_fence_chain_get_prev(struct nvl_fence_chain *chain)
{
	struct nvl_fence *p;

	nvl_flock_lock(&chain->prev_lock);
	p = nvl_fence_get(chain->prev);
	nvl_flock_unlock(&chain->prev_lock);
	return p;
}

struct nvl_fence *nvl_fence_chain_walk(struct nvl_fence *fence)
{
	struct nvl_fence_chain *c = nvl_to_fence_chain(fence);
	struct nvl_fence *prev;

	if (!c) {
		nvl_fence_put(fence);
		return NULL;
	}
	for (;;) {
		struct nvl_fence_chain *pc;
		struct nvl_fence *repl;
		bool replaced = false;

		prev = nvl_fence_chain_get_prev(c);
		pc = nvl_to_fence_chain(prev);
		if (!pc || !nvl_fence_is_signaled(pc->fence))
			break;
		/* prev's fence is done: link past it */
		repl = nvl_fence_chain_get_prev(pc);
		nvl_flock_lock(&c->prev_lock);
		if (c->prev == prev) {
			c->prev = repl;
			replaced = true;
		}
		nvl_flock_unlock(&c->prev_lock);
		if (replaced)
			nvl_fence_put(prev); /* the link's reference */
		else
			nvl_fence_put(repl);
		nvl_fence_put(prev);
	}
	nvl_fence_put(fence);
	return prev;
}

unsigned nvl_fence_chain_collect(struct nvl_fence *head)
{
	struct nvl_fence *keep = nvl_fence_get(head), *dropped = NULL;
	struct nvl_fence_chain *c = nvl_to_fence_chain(keep);
	unsigned n = 0;

	while (c) {
		struct nvl_fence *p, *shared = NULL, *next = NULL;
		struct nvl_fence_chain *pc;

		/*
		 * Under c's lock, as a walk's relink: c links past each
		 * predecessor whose fence signalled. One that only c's link
		 * holds (a reference count of 1, read with acquire as in
		 * chain_release()) is out of everyone's reach while c is
		 * locked: its own link moves to c without a reference taken
		 * or dropped, and it joins the list of unlinked points (by
		 * its prev pointer), released at the end in one iterative
		 * release. Another one is unlinked as a walk does (its
		 * predecessor taken under its lock; locks nest newest
		 * first, and no one nests them the other way) and put after
		 * the unlock.
		 */
		nvl_flock_lock(&c->prev_lock);
		for (;;) {
			p = c->prev;
			pc = nvl_to_fence_chain(p);
			if (!pc || !nvl_fence_test_signaled_flag(pc->fence)) {
				next = nvl_fence_get(p);
				break;
			}
			if (atomic_load_explicit(&p->refcount.refcount,
						 memory_order_acquire) == 1) {
				c->prev = pc->prev;
				pc->prev = dropped;
				dropped = p;
				continue;
			}
			nvl_flock_lock(&pc->prev_lock);
			c->prev = nvl_fence_get(pc->prev);
			nvl_flock_unlock(&pc->prev_lock);
			shared = p;
			break;
		}
		nvl_flock_unlock(&c->prev_lock);
		if (shared) {
			nvl_fence_put(shared); /* the link's reference */
			continue;
		}
		n++;
		nvl_fence_put(keep);
		keep = next;
		c = nvl_to_fence_chain(keep);
	}
	nvl_fence_put(keep);
	nvl_fence_put(dropped);
	return n;
}

static void copy_error(struct nvl_fence_chain *c)
{
	int err = atomic_load_explicit(&c->fence->error, memory_order_relaxed);

	if (err && nvl_fence_test_signaled_flag(c->fence))
		atomic_store_explicit(&c->base.error, err,
				      memory_order_relaxed);
}

static void chain_cb(struct nvl_fence *f, struct nvl_fence_cb *cb);

/* Arm a callback on the first pending fence; false when all are done. */
static bool chain_arm(struct nvl_fence_chain *head)
{
	struct nvl_fence *iter;

	nvl_fence_chain_for_each(iter, &head->base)
	{
		struct nvl_fence *f = nvl_fence_chain_contained(iter);

		if (nvl_fence_add_callback(f, &head->cb, chain_cb) == 0) {
			nvl_fence_put(iter);
			return true;
		}
	}
	return false;
}

static void chain_work(struct nvl_fence_work *w)
{
	struct nvl_fence_chain *c =
		container_of(w, struct nvl_fence_chain, work);

	if (chain_arm(c))
		return;
	copy_error(c);
	nvl_fence_signal(&c->base);
	nvl_fence_put(&c->base);
}

static void chain_cb(struct nvl_fence *f, struct nvl_fence_cb *cb)
{
	struct nvl_fence_chain *c =
		container_of(cb, struct nvl_fence_chain, cb);

	c->work.fn = chain_work;
	nvl_fence_defer(&c->work);
}

static bool chain_enable_signaling(struct nvl_fence *f)
{
	struct nvl_fence_chain *c = nvl_to_fence_chain(f);

	nvl_fence_get(f);
	if (chain_arm(c))
		return true;
	nvl_fence_put(f);
	copy_error(c);
	return false;
}

static bool chain_signaled(struct nvl_fence *f)
{
	struct nvl_fence *iter;

	nvl_fence_chain_for_each(iter, f)
	{
		if (!nvl_fence_is_signaled(nvl_fence_chain_contained(iter))) {
			nvl_fence_put(iter);
			return false;
		}
	}
	copy_error(nvl_to_fence_chain(f));
	return true;
}

static void chain_set_deadline(struct nvl_fence *f, int64_t deadline_ns)
{
	struct nvl_fence *iter;

	nvl_fence_chain_for_each(iter, f) nvl_fence_set_deadline(
		nvl_fence_chain_contained(iter), deadline_ns);
}

static void chain_release(struct nvl_fence *f)
{
	struct nvl_fence_chain *c = nvl_to_fence_chain(f);
	struct nvl_fence *prev = c->prev;

	c->prev = NULL;
	while (prev) {
		struct nvl_fence_chain *pc = nvl_to_fence_chain(prev);
		struct nvl_fence *next = NULL;

		/*
		 * Last holder of a chain node: unlink it before dropping.
		 * Acquire pairs with other holders' releasing puts, so their
		 * earlier reads of pc->prev happen before our write.
		 */
		if (pc && atomic_load_explicit(&prev->refcount.refcount,
					       memory_order_acquire) == 1) {
			next = pc->prev;
			pc->prev = NULL;
		}
		nvl_fence_put(prev);
		prev = next;
	}
	nvl_fence_put(c->fence);
	nvl_free(c);
}

static const char *chain_driver_name(struct nvl_fence *f)
{
	return "nvl_fence_chain";
}

static const char *chain_timeline_name(struct nvl_fence *f)
{
	return "unbound";
}

const struct nvl_fence_ops nvl_fence_chain_ops = {
	.get_driver_name = chain_driver_name,
	.get_timeline_name = chain_timeline_name,
	.enable_signaling = chain_enable_signaling,
	.signaled = chain_signaled,
	.set_deadline = chain_set_deadline,
	.release = chain_release,
};

struct nvl_fence_chain *nvl_fence_chain_alloc(void)
{
	struct nvl_fence_chain *c = nvl_zalloc(sizeof(*c));

	if (!c)
		nvl_error(-ENOMEM, "fence_chain: out of memory for a node");
	return c;
}

void nvl_fence_chain_free(struct nvl_fence_chain *chain)
{
	nvl_free(chain);
}

void nvl_fence_chain_init(struct nvl_fence_chain *chain, struct nvl_fence *prev,
			  struct nvl_fence *fence, uint64_t seqno)
{
	struct nvl_fence_chain *pc = nvl_to_fence_chain(prev);
	uint64_t context;

	nvl_flock_init(&chain->prev_lock);
	chain->prev = prev;
	chain->fence = fence;
	if (pc && seqno > prev->seqno) {
		context = prev->context;
		chain->prev_seqno = prev->seqno;
	} else {
		context = nvl_fence_context_alloc(1);
		chain->prev_seqno = 0;
		if (pc && prev->seqno > seqno)
			seqno = prev->seqno;
	}
	nvl_fence_init64(&chain->base, &nvl_fence_chain_ops, context, seqno);
}

int nvl_fence_chain_find_seqno(struct nvl_fence **pfence, uint64_t seqno)
{
	struct nvl_fence_chain *c;
	struct nvl_fence *iter;
	uint64_t ctx;

	if (!seqno)
		return 0;
	c = nvl_to_fence_chain(*pfence);
	if (!c || c->base.seqno < seqno)
		return -EINVAL;
	ctx = c->base.context;
	nvl_fence_chain_for_each(iter, *pfence)
	{
		struct nvl_fence_chain *ic = nvl_to_fence_chain(iter);

		if (!ic || iter->context != ctx || ic->prev_seqno < seqno)
			break;
	}
	nvl_fence_put(*pfence);
	*pfence = iter;
	return 0;
}

/* ---- unwrap ---------------------------------------------------------- */

/* First leaf of the current chain point, or NULL for an empty array. */
static struct nvl_fence *unwrap_point(struct nvl_fence_unwrap *cursor)
{
	struct nvl_fence_array *a;

	cursor->array = nvl_fence_chain_contained(cursor->chain);
	cursor->index = 0;
	a = nvl_to_fence_array(cursor->array);
	if (!a)
		return cursor->array;
	return a->num_fences ? a->fences[cursor->index++] : NULL;
}

struct nvl_fence *nvl_fence_unwrap_first(struct nvl_fence *head,
					 struct nvl_fence_unwrap *cursor)
{
	struct nvl_fence *f;

	cursor->chain = nvl_fence_get(head);
	cursor->array = NULL;
	cursor->index = 0;
	if (!head)
		return NULL;
	f = unwrap_point(cursor);
	return f ? f : nvl_fence_unwrap_next(cursor);
}

struct nvl_fence *nvl_fence_unwrap_next(struct nvl_fence_unwrap *cursor)
{
	for (;;) {
		struct nvl_fence_array *a = nvl_to_fence_array(cursor->array);
		struct nvl_fence *f;

		if (a && cursor->index < a->num_fences)
			return a->fences[cursor->index++];
		if (!cursor->chain)
			return NULL;
		cursor->chain = nvl_fence_chain_walk(cursor->chain);
		cursor->array = NULL;
		if (!cursor->chain)
			return NULL;
		f = unwrap_point(cursor);
		if (f)
			return f;
	}
}

void nvl_fence_unwrap_end(struct nvl_fence_unwrap *cursor)
{
	nvl_fence_put(cursor->chain);
	cursor->chain = NULL;
	cursor->array = NULL;
}

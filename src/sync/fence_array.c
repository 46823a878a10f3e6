// SPDX-License-Identifier: MIT
/*
 * DOC: Fence arrays
 *
 * Signalling is armed lazily (enable_signaling): a callback per child, each
 * holding a reference to the array, decrements `num_pending`; the one that
 * reaches zero defers the array's own signal (nvl_fence_defer) so that a
 * child's signal never nests the array's fence lock nor recurses through
 * arrays of arrays. Signal-on-any starts `num_pending` at 1. The array's
 * error is decided once, when it signals (publish_error()): the error of
 * the child that signalled first by signal timestamp, which orders the
 * children that signalled before the array was armed or polled as well
 * as those whose callbacks ran (index order for the first, callback order
 * for the second, before session 19). Before
 * arming, the signaled() op polls the children.
 */
#include <errno.h>

#include "base/alloc.h"
#include "base/log.h"
#include "sync/fence_array.h"

/* first_error not decided yet (errors are negative or 0) */
#define ARRAY_ERR_UNSET 1

struct nvl_fence_array *nvl_to_fence_array(struct nvl_fence *f)
{
	if (!f || f->ops != &nvl_fence_array_ops)
		return NULL;
	return container_of(f, struct nvl_fence_array, base);
}

static const char *array_driver_name(struct nvl_fence *f)
{
	return "nvl_fence_array";
}

static const char *array_timeline_name(struct nvl_fence *f)
{
	return "unbound";
}

/*
 * The array's error, once, just before it signals: of the children that
 * signalled with an error, the one that signalled first by their signal
 * timestamps (ties: the lower index). A child claimed but not stamped yet
 * is signalling right now: it counts as the latest. The first caller's
 * choice is kept (compare-and-swap on first_error from ARRAY_ERR_UNSET), so
 * two racing pollers of a signal-on-any array, which may see different
 * children signalled, still publish one error.
 */
static void publish_error(struct nvl_fence_array *a)
{
	int err = 0, unset = ARRAY_ERR_UNSET;
	int64_t first = INT64_MAX;

	if (atomic_load_explicit(&a->first_error, memory_order_acquire) ==
	    ARRAY_ERR_UNSET) {
		for (unsigned i = 0; i < a->num_fences; i++) {
			struct nvl_fence *c = a->fences[i];
			int e;
			int64_t ts;

			if (!nvl_fence_test_signaled_flag(c))
				continue;
			e = atomic_load_explicit(&c->error,
						 memory_order_relaxed);
			if (!e)
				continue;
			ts = nvl_fence_timestamp_nowait(c);
			if (!err || ts < first) {
				err = e;
				first = ts;
			}
		}
		atomic_compare_exchange_strong(&a->first_error, &unset, err);
	}
	err = atomic_load_explicit(&a->first_error, memory_order_acquire);
	if (err)
		atomic_store_explicit(&a->base.error, err,
				      memory_order_relaxed);
}

static void array_signal_work(struct nvl_fence_work *w)
{
	struct nvl_fence_array *a =
		container_of(w, struct nvl_fence_array, work);

	publish_error(a);
	nvl_fence_signal(&a->base);
	nvl_fence_put(&a->base);
}

static void array_cb_func(struct nvl_fence *f, struct nvl_fence_cb *cb)
{
	struct nvl_fence_array_cb *acb =
		container_of(cb, struct nvl_fence_array_cb, cb);
	struct nvl_fence_array *a = acb->array;

	(void)f;
	if (atomic_fetch_sub(&a->num_pending, 1) == 1)
		nvl_fence_defer(&a->work); /* keeps this callback's ref */
	else
		nvl_fence_put(&a->base);
}

static bool array_enable_signaling(struct nvl_fence *f)
{
	struct nvl_fence_array *a = nvl_to_fence_array(f);

	for (unsigned i = 0; i < a->num_fences; i++) {
		struct nvl_fence_array_cb *acb = &a->callbacks[i];

		acb->array = a;
		nvl_fence_get(&a->base);
		if (nvl_fence_add_callback(a->fences[i], &acb->cb,
					   array_cb_func) == 0)
			continue;
		/* already signalled: count it here */
		nvl_fence_put(&a->base);
		if (atomic_fetch_sub(&a->num_pending, 1) == 1) {
			publish_error(a);
			return false;
		}
	}
	return true;
}

static bool array_signaled(struct nvl_fence *f)
{
	struct nvl_fence_array *a = nvl_to_fence_array(f);
	bool any = a->signal_on_any;
	unsigned done = 0;

	if (atomic_load(&f->flags) & (1u << NVL_FENCE_FLAG_ENABLE_SIGNAL_BIT))
		return false; /* armed: the callbacks will signal */
	for (unsigned i = 0; i < a->num_fences; i++) {
		if (nvl_fence_is_signaled(a->fences[i])) {
			done++;
			if (any)
				break;
		}
	}
	if (done == 0 || (!any && done < a->num_fences))
		return false;
	publish_error(a);
	return true;
}

static void array_set_deadline(struct nvl_fence *f, int64_t deadline_ns)
{
	struct nvl_fence_array *a = nvl_to_fence_array(f);

	for (unsigned i = 0; i < a->num_fences; i++)
		nvl_fence_set_deadline(a->fences[i], deadline_ns);
}

static void array_release(struct nvl_fence *f)
{
	struct nvl_fence_array *a = nvl_to_fence_array(f);

	for (unsigned i = 0; i < a->num_fences; i++)
		nvl_fence_put(a->fences[i]);
	nvl_free(a->fences);
	nvl_free(a);
}

const struct nvl_fence_ops nvl_fence_array_ops = {
	.get_driver_name = array_driver_name,
	.get_timeline_name = array_timeline_name,
	.enable_signaling = array_enable_signaling,
	.signaled = array_signaled,
	.set_deadline = array_set_deadline,
	.release = array_release,
};

struct nvl_fence_array *nvl_fence_array_alloc(unsigned num_fences)
{
	struct nvl_fence_array *a;

	if (num_fences == 0) {
		nvl_error(-EINVAL, "fence_array: zero children");
		return NULL;
	}
	a = nvl_zalloc(sizeof(*a) +
		       (size_t)num_fences * sizeof(a->callbacks[0]));
	if (!a)
		nvl_error(-ENOMEM, "fence_array: out of memory for %u children",
			  num_fences);
	return a;
}

void nvl_fence_array_init(struct nvl_fence_array *array, unsigned num_fences,
			  struct nvl_fence **fences, uint64_t context,
			  uint64_t seqno, bool signal_on_any)
{
	nvl_fence_init(&array->base, &nvl_fence_array_ops, context, seqno);
	array->num_fences = num_fences;
	array->fences = fences;
	atomic_init(&array->num_pending, signal_on_any ? 1 : (int)num_fences);
	atomic_init(&array->first_error, ARRAY_ERR_UNSET);
	array->signal_on_any = signal_on_any;
	array->work.fn = array_signal_work;
}

int nvl_fence_array_create(unsigned num_fences, struct nvl_fence **fences,
			   uint64_t context, uint64_t seqno, bool signal_on_any,
			   struct nvl_fence_array **array_out)
{
	struct nvl_fence_array *a;

	if (!num_fences || !fences || !array_out)
		return nvl_error(-EINVAL, "fence_array: create with %s",
				 !num_fences ? "zero children"
					     : "NULL arguments");
	a = nvl_fence_array_alloc(num_fences);
	if (!a)
		return -ENOMEM;
	nvl_fence_array_init(a, num_fences, fences, context, seqno,
			     signal_on_any);
	*array_out = a;
	return 0;
}

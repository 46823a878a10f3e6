/* SPDX-License-Identifier: MIT */
/*
 * The syncobj reviews' set-up (sync_audit.c, syncobj_audit.c): a
 * device-less client, a syncobj, a pending fence and a timeline point
 * added as the driver adds its out-syncs.
 */
#ifndef NVL_TESTS_SYNC_SYNCKIT_H
#define NVL_TESTS_SYNC_SYNCKIT_H

#include "t.h"
#include "base/client.h"
#include "sync/fence.h"
#include "sync/fence_chain.h"
#include "sync/syncobj.h"

static inline struct nvl_client *client(void)
{
	struct nvl_client *c;

	assert_int_equal(nvl_client_create(&c), 0);
	return c;
}

/* a syncobj of @c made with @flags */
static inline uint32_t mk(struct nvl_client *c, uint32_t flags)
{
	uint32_t h = 0;

	assert_int_equal(nvl_syncobj_create(c, flags, &h), 0);
	return h;
}

/* a fence of a context of its own, not signalled */
static inline struct nvl_fence *pending_fence(void)
{
	struct nvl_fence *f;

	assert_int_equal(nvl_fence_create(&f, nvl_fence_context_alloc(1), 1),
			 0);
	return f;
}

/* a timeline point @point on @h wrapping @f (the driver's out-sync) */
static inline void add_point(struct nvl_client *c, uint32_t h,
			     struct nvl_fence *f, uint64_t point)
{
	struct nvl_syncobj *o = nvl_syncobj_find(c, h);

	assert_non_null(o);
	nvl_syncobj_add_point(o, nvl_fence_chain_alloc(), f, point);
	nvl_syncobj_put(o);
}

#endif

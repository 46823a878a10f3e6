/* SPDX-License-Identifier: MIT */
/* Internals shared by syncobj.c and syncobj_wait.c. */
#ifndef NVL_SYNC_SYNCOBJ_PRIV_H
#define NVL_SYNC_SYNCOBJ_PRIV_H

#include "sync/syncobj.h"

/** nvl_syncobj_register_kind() - register the handle ops (once). */
void nvl_syncobj_register_kind(void);

/**
 * nvl_syncobj_resolve() - the fence of @obj at @point (stub when the point
 * completed and was collected).
 * @obj: the syncobj
 * @point: 0 or a timeline point
 * @fence_out: the fence with a reference, or NULL
 *
 * Return: 0, or -EINVAL when there is no fence / the point is unsubmitted.
 */
int nvl_syncobj_resolve(struct nvl_syncobj *obj, uint64_t point,
			struct nvl_fence **fence_out);

#endif /* NVL_SYNC_SYNCOBJ_PRIV_H */

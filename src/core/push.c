// SPDX-License-Identifier: MIT
/*
 * DOC: pushbuffer builder (the part that is not inline)
 *
 * nouvelle/push.h is inline; its errors are recorded here so that the
 * message goes through nvl_error() like every other failing call.
 */
#include "base/log.h"
#include "nouvelle/push.h"

NVL_API int nvl_push_fail(struct nvl_push *p, int err, const char *what)
{
	if (!p)
		return nvl_error(-EINVAL, "push: NULL builder");
	/* a non-negative code would read as success, or as a dword count
	 * in nvl_push_end() */
	if (!p->err)
		p->err = err < 0 ? err : -EINVAL;
	nvl_error(p->err, "push: %s at dword %zu (%d)", what,
		  (size_t)(p->cur - p->start), err);
	return p->err;
}

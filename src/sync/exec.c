// SPDX-License-Identifier: MIT
/*
 * DOC: Exec helper
 *
 * Locks a set of reservation objects in whatever order the caller visits
 * them, through one wound/wait acquire context. On -EDEADLK the object is
 * remembered as `contended`; nvl_exec_retry_on_contention() jumps back to
 * the loop head, where nvl_exec_cleanup() unlocks everything, sleeps on the
 * contended object with lock_slow (it holds nothing then, so this cannot
 * deadlock) and runs the body again; the pre-locked object is re-listed when
 * the body locks it again. `contended == exec` marks "not started yet".
 */
#include <errno.h>
#include <string.h>

#include "base/alloc.h"
#include "base/log.h"
#include "sync/exec.h"

#define EXEC_START(exec) ((struct nvl_resv *)(exec))

NVL_HOT void nvl_exec_init(struct nvl_exec *exec, unsigned flags, unsigned nr)
{
	exec->flags = flags;
	nvl_resv_acquire_init(&exec->ticket);
	exec->num_objects = 0;
	exec->max_objects = NVL_EXEC_INLINE_OBJECTS;
	exec->objects = exec->inline_objects;
	exec->contended = EXEC_START(exec);
	exec->prelocked = NULL;
	(void)nr; /* inline first, then grows on demand when locking */
}

static void unlock_all(struct nvl_exec *exec)
{
	while (exec->num_objects)
		nvl_resv_unlock(exec->objects[--exec->num_objects]);
	if (exec->prelocked) {
		nvl_resv_unlock(exec->prelocked);
		exec->prelocked = NULL;
	}
}

NVL_HOT void nvl_exec_fini(struct nvl_exec *exec)
{
	unlock_all(exec);
	if (exec->objects != exec->inline_objects)
		nvl_free(exec->objects);
	exec->objects = exec->inline_objects;
	exec->max_objects = NVL_EXEC_INLINE_OBJECTS;
	nvl_ww_acquire_fini(&exec->ticket);
}

NVL_HOT bool nvl_exec_cleanup(struct nvl_exec *exec)
{
	struct nvl_resv *c = exec->contended;

	if (c == EXEC_START(exec)) {
		exec->contended = NULL;
		return true;
	}
	if (!c)
		return false;
	unlock_all(exec);
	exec->contended = NULL;
	nvl_resv_lock_slow(c, &exec->ticket);
	exec->prelocked = c;
	return true;
}

static int track(struct nvl_exec *exec, struct nvl_resv *resv)
{
	if (exec->num_objects == exec->max_objects) {
		bool inl = exec->objects == exec->inline_objects;
		unsigned cap = inl ? 16 : exec->max_objects * 2;
		struct nvl_resv **n = nvl_reallocarray(
			inl ? NULL : exec->objects, cap, sizeof(*n));

		if (!n)
			return nvl_error(-ENOMEM,
					 "exec: out of memory "
					 "tracking %u objects",
					 cap);
		if (inl)
			memcpy(n, exec->inline_objects,
			       sizeof(exec->inline_objects));
		exec->objects = n;
		exec->max_objects = cap;
	}
	exec->objects[exec->num_objects++] = resv;
	return 0;
}

int nvl_exec_lock_obj(struct nvl_exec *exec, struct nvl_resv *resv)
{
	int ret;

	if (exec->prelocked == resv) {
		exec->prelocked = NULL;
		ret = track(exec, resv);
		if (ret)
			nvl_resv_unlock(resv);
		return ret;
	}
	ret = nvl_resv_lock(resv, &exec->ticket);
	if (ret == -EDEADLK) {
		exec->contended = resv;
		return ret;
	}
	if (ret == -EALREADY) {
		if (exec->flags & NVL_EXEC_IGNORE_DUPLICATES)
			return 0;
		return nvl_error(-EALREADY, "exec: object %p locked twice",
				 (void *)resv);
	}
	if (ret)
		return ret;
	ret = track(exec, resv);
	if (ret)
		nvl_resv_unlock(resv);
	return ret;
}

void nvl_exec_unlock_obj(struct nvl_exec *exec, struct nvl_resv *resv)
{
	for (unsigned i = exec->num_objects; i-- > 0;) {
		if (exec->objects[i] != resv)
			continue;
		nvl_resv_unlock(resv);
		for (unsigned j = i + 1; j < exec->num_objects; j++)
			exec->objects[j - 1] = exec->objects[j];
		exec->num_objects--;
		return;
	}
}

NVL_HOT int nvl_exec_prepare_obj(struct nvl_exec *exec, struct nvl_resv *resv,
				 unsigned num_fences)
{
	int ret = nvl_exec_lock_obj(exec, resv);

	if (ret)
		return ret;
	return nvl_resv_reserve_fences(resv, num_fences);
}

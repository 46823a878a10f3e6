/* SPDX-License-Identifier: MIT */
/*
 * Exec helper (the kernel's drm_exec): lock a set of reservation objects
 * without deadlock, backing off and retrying on contention.
 *
 *	struct nvl_exec exec;
 *
 *	nvl_exec_init(&exec, NVL_EXEC_IGNORE_DUPLICATES, 0);
 *	nvl_exec_until_all_locked(&exec) {
 *		ret = nvl_exec_prepare_obj(&exec, &vm->resv, 1);
 *		nvl_exec_retry_on_contention(&exec);
 *		if (ret)
 *			goto out;
 *		for (i = 0; i < n; i++) {
 *			ret = nvl_exec_lock_obj(&exec, bo[i]);
 *			nvl_exec_retry_on_contention(&exec);
 *			if (ret)
 *				goto out;
 *		}
 *	}
 *	... everything locked: validate, submit, add fences ...
 * out:
 *	nvl_exec_fini(&exec);
 *
 * nvl_exec_retry_on_contention() may sit in nested loops: it jumps back to
 * the top of the nvl_exec_until_all_locked() block, which unlocks
 * everything, sleeps on the contended object and runs the body again.
 * Callers keep the objects alive until nvl_exec_fini().
 */
#ifndef NVL_SYNC_EXEC_H
#define NVL_SYNC_EXEC_H

#include "base/compiler.h"
#include "sync/resv.h"

/** NVL_EXEC_IGNORE_DUPLICATES - locking an object twice is not an error. */
#define NVL_EXEC_IGNORE_DUPLICATES 0x1u

/** NVL_EXEC_INLINE_OBJECTS - objects tracked without an allocation. */
#define NVL_EXEC_INLINE_OBJECTS 4

/**
 * struct nvl_exec - a locking transaction.
 * @flags: NVL_EXEC_*
 * @ticket: the wound/wait context
 * @num_objects: locked objects
 * @max_objects: capacity of @objects
 * @objects: locked objects, in locking order (@inline_objects until more
 *            are locked: an exec of a VM and a few BOs allocates nothing)
 * @contended: the object to lock slowly on retry (or a start marker)
 * @prelocked: the object taken with lock_slow, not yet re-listed
 * @inline_objects: the first NVL_EXEC_INLINE_OBJECTS entries of @objects
 */
struct nvl_exec {
	unsigned flags;
	struct nvl_ww_acquire_ctx ticket;
	unsigned num_objects;
	unsigned max_objects;
	struct nvl_resv **objects;
	struct nvl_resv *contended;
	struct nvl_resv *prelocked;
	struct nvl_resv *inline_objects[NVL_EXEC_INLINE_OBJECTS];
};

/**
 * nvl_exec_init() - start a transaction.
 * @exec: the transaction
 * @flags: NVL_EXEC_*
 * @nr: expected number of objects (0 = default), a capacity hint
 */
void nvl_exec_init(struct nvl_exec *exec, unsigned flags, unsigned nr);

/**
 * nvl_exec_fini() - unlock every object and end the transaction.
 * @exec: the transaction
 */
void nvl_exec_fini(struct nvl_exec *exec);

/**
 * nvl_exec_cleanup() - loop condition of nvl_exec_until_all_locked(): the
 * first call starts, later calls after contention unlock everything and
 * sleep on the contended object.
 * @exec: the transaction
 *
 * Return: true to run the body (again), false when all is locked.
 */
bool nvl_exec_cleanup(struct nvl_exec *exec);

/**
 * nvl_exec_lock_obj() - lock @resv and remember it.
 * @exec: the transaction
 * @resv: the object
 *
 * Return: 0; -EDEADLK on contention (retry); -EALREADY when locked twice
 * without IGNORE_DUPLICATES; -ENOMEM (object not locked).
 */
int nvl_exec_lock_obj(struct nvl_exec *exec,
		      struct nvl_resv *resv) NVL_MUST_CHECK;

/**
 * nvl_exec_unlock_obj() - unlock one object early and forget it.
 * @exec: the transaction
 * @resv: a locked object
 */
void nvl_exec_unlock_obj(struct nvl_exec *exec, struct nvl_resv *resv);

/**
 * nvl_exec_prepare_obj() - lock @resv and reserve @num_fences slots.
 * @exec: the transaction
 * @resv: the object
 * @num_fences: fence slots to reserve
 *
 * Return: as nvl_exec_lock_obj(), or -ENOMEM from the reservation (the
 * object stays locked and listed).
 */
int nvl_exec_prepare_obj(struct nvl_exec *exec, struct nvl_resv *resv,
			 unsigned num_fences) NVL_MUST_CHECK;

/**
 * nvl_exec_is_contended() - did the last lock attempt hit contention?
 * @exec: the transaction
 *
 * Return: true when the body must be restarted.
 */
static inline bool nvl_exec_is_contended(const struct nvl_exec *exec)
{
	return exec->contended != NULL &&
	       exec->contended != (struct nvl_resv *)exec;
}

#define NVL_EXEC_CAT_(a, b) a##b
#define NVL_EXEC_CAT(a, b) NVL_EXEC_CAT_(a, b)

/**
 * nvl_exec_until_all_locked() - run the following block until every lock
 * in it was taken without contention.
 */
#define nvl_exec_until_all_locked(exec)                                        \
	NVL_EXEC_CAT(nvl_exec_retry_, __LINE__)                                \
	    : for (void *nvl_exec_retry_ptr_ =                                 \
			   &&NVL_EXEC_CAT(nvl_exec_retry_, __LINE__);          \
		   (void)nvl_exec_retry_ptr_, nvl_exec_cleanup(exec);)

/**
 * nvl_exec_retry_on_contention() - restart the nvl_exec_until_all_locked()
 * block when the last lock attempt hit contention.
 */
#define nvl_exec_retry_on_contention(exec)                                     \
	do {                                                                   \
		if (unlikely(nvl_exec_is_contended(exec)))                     \
			goto *nvl_exec_retry_ptr_;                             \
	} while (0)

#endif /* NVL_SYNC_EXEC_H */

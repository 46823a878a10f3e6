/* SPDX-License-Identifier: MIT */
/*
 * nouvelle sync uAPI: syncobjs (binary and timeline) and sync-file fds.
 *
 * A syncobj is a per-client handle (from 1) to a replaceable fence pointer.
 * Binary use replaces the fence; timeline use appends points. Timeouts are
 * absolute CLOCK_MONOTONIC nanoseconds (0 or past = poll, INT64_MAX = never).
 * Every call returns 0 or a negative errno (nvl_last_error() says why); bad
 * input changes nothing.
 */
#ifndef NOUVELLE_SYNC_H
#define NOUVELLE_SYNC_H

#include <nouvelle/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/** NVL_SYNCOBJ_CREATE_SIGNALED - create already signalled. */
#define NVL_SYNCOBJ_CREATE_SIGNALED (1u << 0)

/** NVL_SYNCOBJ_WAIT_ALL - wait for all handles, not the first. */
#define NVL_SYNCOBJ_WAIT_ALL (1u << 0)
/** NVL_SYNCOBJ_WAIT_FOR_SUBMIT - wait for a fence to appear first. */
#define NVL_SYNCOBJ_WAIT_FOR_SUBMIT (1u << 1)
/** NVL_SYNCOBJ_WAIT_AVAILABLE - timeline: done once the point exists. */
#define NVL_SYNCOBJ_WAIT_AVAILABLE (1u << 2)
/** NVL_SYNCOBJ_WAIT_DEADLINE - hint the timeout as deadline to producers. */
#define NVL_SYNCOBJ_WAIT_DEADLINE (1u << 3)
/**
 * NVL_SYNCOBJ_WAIT_INTERRUPTIBLE - a signal handler that runs in the waiting
 * thread ends the wait with -EINTR (fences and syncobjs untouched); retry
 * with the same absolute deadline. Without it signals never end a wait (the
 * kernel restarts its ioctl the same way).
 */
#define NVL_SYNCOBJ_WAIT_INTERRUPTIBLE (1u << 4)

/** NVL_SYNCOBJ_QUERY_LAST_SUBMITTED - query the last point, not signalled. */
#define NVL_SYNCOBJ_QUERY_LAST_SUBMITTED (1u << 0)

/**
 * nvl_syncobj_create() - create a syncobj.
 * @client: the client
 * @flags: 0 or NVL_SYNCOBJ_CREATE_SIGNALED
 * @handle_out: the new handle
 *
 * Return: 0, -EINVAL (bad flags/arguments), -ENOMEM.
 */
NVL_API int nvl_syncobj_create(struct nvl_client *client, uint32_t flags,
			       uint32_t *handle_out);

/**
 * nvl_syncobj_destroy() - close a handle (the object lives on while other
 * handles, fds or waiters hold it).
 * @client: the client
 * @handle: the handle
 *
 * Return: 0, -EINVAL for an unknown handle.
 */
NVL_API int nvl_syncobj_destroy(struct nvl_client *client, uint32_t handle);

/**
 * nvl_syncobj_wait() - wait for syncobjs (binary, or timeline points).
 * @client: the client
 * @handles: @count handles
 * @points: @count points, or NULL for binary waits (point 0 = binary)
 * @count: entries; 0 succeeds at once
 * @abs_timeout_ns: absolute CLOCK_MONOTONIC deadline
 * @flags: NVL_SYNCOBJ_WAIT_ALL, _FOR_SUBMIT, _AVAILABLE, _DEADLINE,
 *         _INTERRUPTIBLE
 * @first_signaled: out, may be NULL: index of the first signalled entry
 *                  (wait-any)
 *
 * An entry waiting for submission (FOR_SUBMIT) takes the first fence that
 * appears at its point and waits on that one, even if the syncobj is reset
 * or replaced right after.
 *
 * Return: 0; -ETIME at the deadline; -ENOENT unknown handle; -EINVAL bad
 * flags, or an entry without a fence/point (unless FOR_SUBMIT/AVAILABLE);
 * -EINTR interrupted by a signal (INTERRUPTIBLE only); -ENOMEM.
 */
NVL_API int nvl_syncobj_wait(struct nvl_client *client, const uint32_t *handles,
			     const uint64_t *points, uint32_t count,
			     int64_t abs_timeout_ns, uint32_t flags,
			     uint32_t *first_signaled);

/**
 * nvl_syncobj_reset() - remove the fences (back to unsignalled, no fence).
 * @client: the client
 * @handles: the handles
 * @count: how many (> 0)
 *
 * Return: 0, -EINVAL (count 0), -ENOENT (nothing changed).
 */
NVL_API int nvl_syncobj_reset(struct nvl_client *client,
			      const uint32_t *handles, uint32_t count);

/**
 * nvl_syncobj_signal() - install a signalled fence.
 * @client: the client
 * @handles: the handles
 * @count: how many (> 0)
 *
 * Return: 0, -EINVAL, -ENOENT (nothing changed).
 */
NVL_API int nvl_syncobj_signal(struct nvl_client *client,
			       const uint32_t *handles, uint32_t count);

/**
 * nvl_syncobj_timeline_signal() - signal timeline points from the host
 * (point 0 = binary signal).
 * @client: the client
 * @handles: the handles
 * @points: one point per handle
 * @count: how many (> 0)
 *
 * Return: 0, -EINVAL, -ENOENT, -ENOMEM (nothing changed).
 */
NVL_API int nvl_syncobj_timeline_signal(struct nvl_client *client,
					const uint32_t *handles,
					const uint64_t *points, uint32_t count);

/**
 * nvl_syncobj_query() - the highest signalled point of each timeline (or
 * the last submitted one).
 * @client: the client
 * @handles: the handles
 * @points: out, one per handle (0 for binary syncobjs)
 * @count: how many (> 0)
 * @flags: 0 or NVL_SYNCOBJ_QUERY_LAST_SUBMITTED
 *
 * Return: 0, -EINVAL, -ENOENT.
 */
NVL_API int nvl_syncobj_query(struct nvl_client *client,
			      const uint32_t *handles, uint64_t *points,
			      uint32_t count, uint32_t flags);

/**
 * nvl_syncobj_status() - how the fence at (@handle, @point) ended, as
 * sync_file's status: 1 signalled without error, 0 not yet, or the
 * negative errno it was signalled with (an exec's fence: -EFAULT for the
 * job that faulted, -ECANCELED for the jobs behind it, docs/faults.md).
 * @client: the client
 * @handle: the syncobj
 * @point: 0 for a binary syncobj, else a timeline point
 * @status: out
 * Return: 0; -EINVAL; -ENOENT (no such syncobj, or no fence there).
 */
NVL_API int nvl_syncobj_status(struct nvl_client *client, uint32_t handle,
			       uint64_t point, int *status);

/**
 * nvl_syncobj_transfer() - copy the fence at (@src, @src_point) to
 * (@dst, @dst_point): point 0 replaces, > 0 appends a timeline point.
 * @client: the client
 * @dst: destination handle
 * @dst_point: destination point
 * @src: source handle
 * @src_point: source point
 * @flags: 0 or NVL_SYNCOBJ_WAIT_FOR_SUBMIT
 *
 * Return: 0, -EINVAL, -ENOENT, -ETIME, -ENOMEM.
 */
NVL_API int nvl_syncobj_transfer(struct nvl_client *client, uint32_t dst,
				 uint64_t dst_point, uint32_t src,
				 uint64_t src_point, uint32_t flags);

/**
 * nvl_syncobj_handle_to_fd() - export the syncobj itself as an fd another
 * client can import (nvl_syncobj_fd_to_handle()).
 * @client: the client
 * @handle: the handle
 * @fd_out: a new fd (close it when done)
 *
 * Return: 0, -EINVAL (unknown handle), -ENOMEM, -EMFILE.
 */
NVL_API int nvl_syncobj_handle_to_fd(struct nvl_client *client, uint32_t handle,
				     int *fd_out);

/**
 * nvl_syncobj_fd_to_handle() - import a syncobj fd: a new handle to the
 * same object.
 * @client: the client
 * @fd: from nvl_syncobj_handle_to_fd()
 * @handle_out: the new handle
 *
 * Return: 0, -EINVAL (not a syncobj fd), -ENOMEM.
 */
NVL_API int nvl_syncobj_fd_to_handle(struct nvl_client *client, int fd,
				     uint32_t *handle_out);

/**
 * nvl_syncobj_export_sync_file() - snapshot the fence at (@handle, @point)
 * as a sync-file fd that poll() reports readable (POLLIN) once it signals.
 * Later changes to the syncobj do not affect it.
 * @client: the client
 * @handle: the handle
 * @point: timeline point, 0 for the current fence
 * @fd_out: a new fd
 *
 * Return: 0, -ENOENT (unknown handle), -EINVAL (no fence / point not
 * submitted), -ENOMEM, -EMFILE.
 */
NVL_API int nvl_syncobj_export_sync_file(struct nvl_client *client,
					 uint32_t handle, uint64_t point,
					 int *fd_out);

/**
 * nvl_syncobj_import_sync_file() - install the fence of a sync-file fd:
 * point 0 replaces the fence, > 0 appends it as a timeline point.
 * @client: the client
 * @handle: the handle
 * @point: the point
 * @fd: a sync-file fd (from any client)
 *
 * Return: 0, -EINVAL (not a sync file), -ENOENT (unknown handle), -ENOMEM.
 */
NVL_API int nvl_syncobj_import_sync_file(struct nvl_client *client,
					 uint32_t handle, uint64_t point,
					 int fd);

/**
 * nvl_syncobj_eventfd() - signal an eventfd when the fence at (@handle,
 * @point) has signalled, or, with NVL_SYNCOBJ_WAIT_AVAILABLE, as soon as it
 * exists (the kernel's DRM_IOCTL_SYNCOBJ_EVENTFD, for poll loops). The
 * eventfd's counter is incremented by one, once; register again for the
 * next event. A fence or point that is already there (or already
 * signalled) fires at once. Like WAIT_FOR_SUBMIT, the first fence that
 * covers @point is the one watched, even if the syncobj is reset after.
 * If the syncobj is destroyed before a fence covering @point appeared,
 * the eventfd never fires; once one has, that fence is watched whatever
 * happens to the syncobj (as the kernel's entry leaves its list then).
 * @client: the client
 * @handle: the handle
 * @point: timeline point, 0 for the binary fence
 * @fd: an eventfd (eventfd(2)); the call keeps its own duplicate, so the
 *      caller may close @fd
 * @flags: 0 or NVL_SYNCOBJ_WAIT_AVAILABLE
 *
 * Return: 0; -EINVAL (bad flags, @fd not an eventfd); -ENOENT (unknown
 * handle); -EBADF (@fd not open); -ENOMEM; -EMFILE.
 */
NVL_API int nvl_syncobj_eventfd(struct nvl_client *client, uint32_t handle,
				uint64_t point, int fd, uint32_t flags);

#ifdef __cplusplus
}
#endif

#endif /* NOUVELLE_SYNC_H */

// SPDX-License-Identifier: MIT
/*
 * DOC: Syncobj eventfd
 *
 * nvl_syncobj_eventfd() (the kernel's DRM_IOCTL_SYNCOBJ_EVENTFD) lets a
 * poll loop wait for a syncobj: the eventfd is signalled (its counter
 * incremented by one) once the fence at a point exists (WAIT_AVAILABLE) or
 * has signalled. Each registration fires once.
 *
 * An entry is a syncobj submit waiter (struct nvl_syncobj_waiter) holding a
 * duplicate of the caller's fd and no reference on the syncobj: when a
 * fence covering its point is installed, the syncobj captures it under its
 * lock and the entry either fires at once (AVAILABLE) or hangs a callback
 * on that fence. Firing writes the eventfd, closes the duplicate and frees
 * the entry, all without blocking or allocating (it may run in a
 * signalling section). A syncobj freed with entries still queued frees
 * them without firing, as the kernel does.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/log.h"
#include "sync/syncobj.h"
#include "sync/syncobj_priv.h"

struct eventfd_entry {
	struct nvl_syncobj_waiter w;
	struct nvl_fence_cb cb;
	struct nvl_fence *fence;
	uint32_t flags;
	int fd;
};

static void entry_free(struct eventfd_entry *e)
{
	close(e->fd);
	nvl_fence_put(e->fence);
	nvl_free(e);
}

static void entry_fire(struct eventfd_entry *e)
{
	struct pollfd pfd = {.fd = e->fd, .events = POLLOUT};
	uint64_t one = 1;

	/*
	 * An eventfd write blocks while the counter would overflow, and the
	 * fd's blocking mode is the client's (a dup shares it): a counter
	 * the client filled (one write of 2^64 - 2 does) would hold this
	 * thread, maybe a signalling one under a fence lock, until the
	 * client reads. Such an eventfd is readable already: leave it. Only
	 * a write of the client's own between the two calls can still block.
	 */
	if (poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLOUT))
		(void)!write(e->fd, &one, sizeof(one));
	entry_free(e);
}

static void fence_signalled(struct nvl_fence *f, struct nvl_fence_cb *cb)
{
	(void)f;
	entry_fire(container_of(cb, struct eventfd_entry, cb));
}

/* The fence covering the point exists (reference in e->fence). */
static void entry_arm(struct eventfd_entry *e)
{
	if ((e->flags & NVL_SYNCOBJ_WAIT_AVAILABLE) ||
	    nvl_fence_add_callback(e->fence, &e->cb, fence_signalled))
		entry_fire(e);
}

/* Under the syncobj lock, @w left the syncobj's list. */
static void entry_appeared(struct nvl_syncobj_waiter *w)
{
	struct eventfd_entry *e = container_of(w, struct eventfd_entry, w);

	e->fence = w->fence;
	w->fence = NULL;
	entry_arm(e);
}

static void entry_release(struct nvl_syncobj_waiter *w)
{
	entry_free(container_of(w, struct eventfd_entry, w));
}

/* Return: 0 when @fd is an open eventfd, else -EBADF / -EINVAL. */
static int check_eventfd(int fd)
{
	char path[40], target[64];
	ssize_t n;

	if (fd < 0 || fcntl(fd, F_GETFD) < 0)
		return nvl_error(-EBADF, "syncobj: eventfd: bad fd %d", fd);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return nvl_error(-EBADF, "syncobj: eventfd: fd %d: %s", fd,
				 strerror(errno));
	target[n] = '\0';
	if (strcmp(target, "anon_inode:[eventfd]"))
		return nvl_error(-EINVAL,
				 "syncobj: eventfd: fd %d is not an "
				 "eventfd (%s)",
				 fd, target);
	return 0;
}

NVL_API int nvl_syncobj_eventfd(struct nvl_client *client, uint32_t handle,
				uint64_t point, int fd, uint32_t flags)
{
	struct eventfd_entry *e;
	struct nvl_syncobj *obj;
	int ret;

	if (!client)
		return nvl_error(-EINVAL, "syncobj: eventfd with NULL client");
	if (flags & ~NVL_SYNCOBJ_WAIT_AVAILABLE)
		return nvl_error(-EINVAL, "syncobj: eventfd: unknown flags %#x",
				 flags & ~NVL_SYNCOBJ_WAIT_AVAILABLE);
	obj = nvl_syncobj_find(client, handle);
	if (!obj)
		return nvl_error(-ENOENT, "syncobj: eventfd: unknown handle %u",
				 handle);
	ret = check_eventfd(fd);
	if (ret)
		goto out_put;
	e = nvl_zalloc(sizeof(*e));
	if (!e) {
		ret = nvl_error(-ENOMEM, "syncobj: eventfd: out of memory");
		goto out_put;
	}
	e->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (e->fd < 0) {
		ret = nvl_error(-errno,
				"syncobj: eventfd: cannot keep fd %d: "
				"%s",
				fd, strerror(errno));
		nvl_free(e);
		goto out_put;
	}
	e->flags = flags;
	e->w.point = point;
	e->w.func = entry_appeared;
	e->w.release = entry_release;
	if (!nvl_syncobj_add_waiter(obj, &e->w)) {
		/* The point already exists: captured without the callback. */
		e->fence = e->w.fence;
		e->w.fence = NULL;
		entry_arm(e);
	}
	ret = 0;
out_put:
	nvl_syncobj_put(obj);
	return ret;
}

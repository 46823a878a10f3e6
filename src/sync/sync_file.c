// SPDX-License-Identifier: MIT
/*
 * DOC: Sync files
 *
 * An exported fence or syncobj is one end of a Unix socket pair. We keep the
 * other end in a registry entry together with the object's reference, keyed
 * by the exported socket's (device, inode), unique while it lives. For
 * fences a callback sends one byte when the fence signals (already
 * signalled: at once), so the exported end polls readable from then on.
 * A socket rather than a pipe: send(MSG_NOSIGNAL) cannot raise SIGPIPE when
 * the application closed its end before the fence signalled (the fuzzer
 * found that one).
 *
 * Entries are collected lazily: when an export finds the registry has doubled
 * since the last sweep (at least 64 entries), entries whose exported end was
 * closed everywhere (our end polls POLLHUP) are dropped, removing the fence
 * callback first (synchronous with a running callback); and on
 * nvl_sync_file_collect().
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/list.h"
#include "base/log.h"
#include "sync/sync_file.h"
#include "sync/syncobj.h"

struct sf_entry {
	struct nvl_list node;
	dev_t dev;
	ino_t ino;
	int wfd;
	struct nvl_fence *fence; /* sync file */
	struct nvl_syncobj *obj; /* syncobj fd */
	struct nvl_fence_cb cb;
	bool cb_queued;
};

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct nvl_list registry = NVL_LIST_INIT(registry);
/* entries, and the count at which an export next sweeps (amortised O(1)) */
static unsigned reg_count, reg_sweep_at = 64;

static void sf_signalled(struct nvl_fence *f, struct nvl_fence_cb *cb)
{
	struct sf_entry *e = container_of(cb, struct sf_entry, cb);

	(void)!send(e->wfd, "s", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
}

static void entry_free(struct sf_entry *e)
{
	if (e->fence) {
		if (e->cb_queued)
			nvl_fence_remove_callback(e->fence, &e->cb);
		nvl_fence_put(e->fence);
	}
	nvl_syncobj_put(e->obj);
	close(e->wfd);
	nvl_free(e);
}

/* Drop entries nobody can reach any more; reg_lock held. */
static void collect_locked(struct nvl_list *dead)
{
	struct nvl_list *pos, *n;

	nvl_list_for_each_safe (pos, n, &registry) {
		struct sf_entry *e = nvl_list_entry(pos, struct sf_entry, node);
		struct pollfd p = {.fd = e->wfd, .events = POLLIN};

		if (poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR))) {
			nvl_list_del(&e->node);
			nvl_list_add_tail(&e->node, dead);
			reg_count--;
		}
	}
	reg_sweep_at = NVL_MAX(64u, 2 * reg_count);
}

static void free_dead(struct nvl_list *dead)
{
	while (!nvl_list_empty(dead)) {
		struct sf_entry *e =
			nvl_list_first_entry(dead, struct sf_entry, node);

		nvl_list_del(&e->node);
		entry_free(e);
	}
}

static int export_entry(struct nvl_fence *fence, struct nvl_syncobj *obj,
			int *fd_out)
{
	struct nvl_list dead = NVL_LIST_INIT(dead);
	struct sf_entry *e;
	struct stat st;
	int fds[2];

	if (!fd_out)
		return nvl_error(-EINVAL, "sync_file: export without fd_out");
	e = nvl_zalloc(sizeof(*e));
	if (!e)
		return nvl_error(-ENOMEM, "sync_file: out of memory");
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0,
		       fds)) {
		int err = errno;

		nvl_free(e);
		return nvl_error(
			err == ENFILE || err == EMFILE ? -EMFILE : -err,
			"sync_file: cannot create a socket pair (errno %d)",
			err);
	}
	if (fstat(fds[0], &st)) {
		int err = errno;

		close(fds[0]);
		close(fds[1]);
		nvl_free(e);
		return nvl_error(-err, "sync_file: fstat failed (errno %d)",
				 err);
	}
	e->dev = st.st_dev;
	e->ino = st.st_ino;
	e->wfd = fds[1];
	nvl_list_init(&e->node);
	if (fence) {
		e->fence = nvl_fence_get(fence);
		e->cb_queued = nvl_fence_add_callback(fence, &e->cb,
						      sf_signalled) == 0;
		if (!e->cb_queued)
			sf_signalled(fence, &e->cb);
	} else {
		e->obj = nvl_syncobj_get(obj);
	}
	pthread_mutex_lock(&reg_lock);
	if (++reg_count >= reg_sweep_at)
		collect_locked(&dead);
	nvl_list_add_tail(&e->node, &registry);
	pthread_mutex_unlock(&reg_lock);
	free_dead(&dead);
	*fd_out = fds[0];
	return 0;
}

int nvl_sync_file_export(struct nvl_fence *fence, int *fd_out)
{
	if (!fence)
		return nvl_error(-EINVAL, "sync_file: export of NULL fence");
	return export_entry(fence, NULL, fd_out);
}

int nvl_sync_file_export_syncobj(struct nvl_syncobj *obj, int *fd_out)
{
	if (!obj)
		return nvl_error(-EINVAL, "sync_file: export of NULL syncobj");
	return export_entry(NULL, obj, fd_out);
}

static int import_entry(int fd, bool want_fence, struct nvl_fence **fence_out,
			struct nvl_syncobj **obj_out)
{
	struct nvl_list *pos;
	struct stat st;
	int ret = -EINVAL;

	if (fd < 0 || fstat(fd, &st) || !S_ISSOCK(st.st_mode))
		return nvl_error(-EINVAL, "sync_file: fd %d is not a %s", fd,
				 want_fence ? "sync file" : "syncobj fd");
	pthread_mutex_lock(&reg_lock);
	nvl_list_for_each (pos, &registry) {
		struct sf_entry *e = nvl_list_entry(pos, struct sf_entry, node);

		if (e->dev != st.st_dev || e->ino != st.st_ino)
			continue;
		if (want_fence && e->fence) {
			*fence_out = nvl_fence_get(e->fence);
			ret = 0;
		} else if (!want_fence && e->obj) {
			*obj_out = nvl_syncobj_get(e->obj);
			ret = 0;
		}
		break;
	}
	pthread_mutex_unlock(&reg_lock);
	if (ret)
		return nvl_error(ret, "sync_file: fd %d is not a %s", fd,
				 want_fence ? "sync file" : "syncobj fd");
	return 0;
}

int nvl_sync_file_import(int fd, struct nvl_fence **fence_out)
{
	return import_entry(fd, true, fence_out, NULL);
}

int nvl_sync_file_import_syncobj(int fd, struct nvl_syncobj **obj_out)
{
	return import_entry(fd, false, NULL, obj_out);
}

unsigned nvl_sync_file_collect(void)
{
	struct nvl_list dead = NVL_LIST_INIT(dead);
	struct nvl_list *pos;
	unsigned live = 0;

	pthread_mutex_lock(&reg_lock);
	collect_locked(&dead);
	nvl_list_for_each (pos, &registry)
		live++;
	pthread_mutex_unlock(&reg_lock);
	free_dead(&dead);
	return live;
}

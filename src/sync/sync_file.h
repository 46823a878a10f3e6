/* SPDX-License-Identifier: MIT */
/*
 * Sync files: a fence (or a syncobj) behind a real file descriptor. The fd
 * is one end of a Unix socket pair; a fence callback sends one byte from the
 * other end when the fence signals, so poll()/select()/epoll report POLLIN
 * from then on (do not read() from it). Imports recognise our fds by the
 * socket's inode, so dup()'d fds and fds passed between clients work; other
 * fds are rejected with -EINVAL.
 */
#ifndef NVL_SYNC_SYNC_FILE_H
#define NVL_SYNC_SYNC_FILE_H

#include "sync/fence.h"

struct nvl_syncobj;

/**
 * nvl_sync_file_export() - a new fd for @fence (reference taken).
 * @fence: the fence
 * @fd_out: the fd
 *
 * Return: 0, -ENOMEM, -EMFILE.
 */
int nvl_sync_file_export(struct nvl_fence *fence, int *fd_out) NVL_MUST_CHECK;

/**
 * nvl_sync_file_import() - the fence behind a sync-file fd.
 * @fd: the fd
 * @fence_out: the fence with a reference
 *
 * Return: 0, -EINVAL (not a sync file).
 */
int nvl_sync_file_import(int fd, struct nvl_fence **fence_out) NVL_MUST_CHECK;

/**
 * nvl_sync_file_export_syncobj() - an fd holding a reference to @obj.
 * @obj: the syncobj
 * @fd_out: the fd
 *
 * Return: 0, -ENOMEM, -EMFILE.
 */
int nvl_sync_file_export_syncobj(struct nvl_syncobj *obj,
				 int *fd_out) NVL_MUST_CHECK;

/**
 * nvl_sync_file_import_syncobj() - the syncobj behind an fd.
 * @fd: the fd
 * @obj_out: the syncobj with a reference
 *
 * Return: 0, -EINVAL (not a syncobj fd).
 */
int nvl_sync_file_import_syncobj(int fd,
				 struct nvl_syncobj **obj_out) NVL_MUST_CHECK;

/**
 * nvl_sync_file_collect() - release the registry entries of fds that were
 * closed everywhere (also done lazily by exports, amortised).
 *
 * Return: the number of entries still alive.
 */
unsigned nvl_sync_file_collect(void);

#endif /* NVL_SYNC_SYNC_FILE_H */

// SPDX-License-Identifier: MIT
/*
 * TEST: sync_file
 * Description: sync-file fds: poll() readable exactly once the fence
 * signals (polled from another thread), snapshot semantics, import back,
 * export/import of syncobjs and sync files between clients, dup'd fds,
 * foreign and closed fds rejected, registry entries released on close,
 * bad input and allocation failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "t.h"
#include "base/client.h"
#include "base/time.h"
#include "sync/sync_file.h"
#include "sync/syncobj.h"

static struct nvl_client *client(void)
{
	struct nvl_client *c;

	assert_int_equal(nvl_client_create(&c), 0);
	return c;
}

static bool readable(int fd, int timeout_ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, timeout_ms) == 1 && (p.revents & POLLIN);
}

struct poller {
	int fd;
	int64_t woke_at;
	bool ok;
};

static void *poll_thread(void *arg)
{
	struct poller *p = arg;

	p->ok = readable(p->fd, 5000);
	p->woke_at = nvl_time_ns();
	return NULL;
}

static void exported_fd_polls_readable_once_signalled(void **state)
{
	struct nvl_client *c = client();
	struct nvl_syncobj *o;
	struct nvl_fence *f;
	struct poller p;
	uint32_t h;
	pthread_t t;
	int64_t signalled_at;

	assert_int_equal(nvl_syncobj_create(c, 0, &h), 0);
	assert_int_equal(nvl_fence_create(&f, nvl_fence_context_alloc(1), 1),
			 0);
	o = nvl_syncobj_find(c, h);
	nvl_syncobj_replace_fence(o, f);
	assert_int_equal(nvl_syncobj_export_sync_file(c, h, 0, &p.fd), 0);
	assert_false(readable(p.fd, 0));
	pthread_create(&t, NULL, poll_thread, &p);
	usleep(20000);
	signalled_at = nvl_time_ns();
	nvl_fence_signal(f);
	pthread_join(t, NULL);
	assert_true(p.ok);
	assert_true(p.woke_at >= signalled_at);
	assert_true(readable(p.fd, 0)); /* stays readable */
	close(p.fd);
	nvl_fence_put(f);
	nvl_syncobj_put(o);
	nvl_client_destroy(c);
	assert_int_equal(nvl_sync_file_collect(), 0);
}

static void sync_file_is_a_snapshot_and_imports_back(void **state)
{
	struct nvl_client *a = client(), *b = client();
	struct nvl_syncobj *o;
	struct nvl_fence *f;
	uint32_t ha, hb;
	int fd, fd2;
	uint64_t p = 7, q;

	assert_int_equal(nvl_syncobj_create(a, 0, &ha), 0);
	assert_int_equal(nvl_syncobj_create(b, 0, &hb), 0);
	assert_int_equal(nvl_fence_create(&f, nvl_fence_context_alloc(1), 1),
			 0);
	o = nvl_syncobj_find(a, ha);
	nvl_syncobj_replace_fence(o, f);
	assert_int_equal(nvl_syncobj_export_sync_file(a, ha, 0, &fd), 0);
	/* later changes to the syncobj do not affect the file */
	assert_int_equal(nvl_syncobj_signal(a, &ha, 1), 0);
	assert_false(readable(fd, 0));
	/* client b imports it as a binary fence and as timeline point 7 */
	assert_int_equal(nvl_syncobj_import_sync_file(b, hb, 0, fd), 0);
	assert_int_equal(nvl_syncobj_wait(b, &hb, NULL, 1, 0, 0, NULL), -ETIME);
	fd2 = dup(fd);
	assert_int_equal(nvl_syncobj_import_sync_file(b, hb, 7, fd2), 0);
	assert_int_equal(nvl_syncobj_query(b, &hb, &q, 1,
					   NVL_SYNCOBJ_QUERY_LAST_SUBMITTED),
			 0);
	assert_int_equal(q, 7);
	nvl_fence_signal(f);
	assert_int_equal(nvl_syncobj_wait(b, &hb, &p, 1, 0, 0, NULL), 0);
	assert_true(readable(fd2, 0));
	close(fd);
	close(fd2);
	nvl_fence_put(f);
	nvl_syncobj_put(o);
	nvl_client_destroy(a);
	nvl_client_destroy(b);
	assert_int_equal(nvl_sync_file_collect(), 0);
}

static void syncobj_fd_shares_the_object_between_clients(void **state)
{
	struct nvl_client *a = client(), *b = client();
	uint32_t ha, hb, hb2;
	int fd;

	assert_int_equal(nvl_syncobj_create(a, 0, &ha), 0);
	assert_int_equal(nvl_syncobj_handle_to_fd(a, ha, &fd), 0);
	assert_int_equal(nvl_syncobj_fd_to_handle(b, fd, &hb), 0);
	assert_int_equal(nvl_syncobj_fd_to_handle(b, fd, &hb2), 0);
	assert_true(hb != hb2); /* a new handle per import */
	/* destroying a's handle keeps the object alive for b */
	assert_int_equal(nvl_syncobj_destroy(a, ha), 0);
	assert_int_equal(nvl_syncobj_signal(b, &hb, 1), 0);
	assert_int_equal(nvl_syncobj_wait(b, &hb2, NULL, 1, 0, 0, NULL), 0);
	close(fd);
	nvl_client_destroy(a);
	nvl_client_destroy(b);
	assert_int_equal(nvl_sync_file_collect(), 0);
}

static void bad_fds_and_handles_are_rejected(void **state)
{
	struct nvl_client *c = client();
	uint32_t h, h2;
	int pfd[2], fd, sfd;

	assert_int_equal(nvl_syncobj_create(c, 0, &h), 0);
	assert_int_equal(pipe(pfd), 0);
	/* foreign fds */
	assert_int_equal(nvl_syncobj_fd_to_handle(c, pfd[0], &h2), -EINVAL);
	assert_int_equal(nvl_syncobj_import_sync_file(c, h, 0, pfd[0]),
			 -EINVAL);
	assert_int_equal(nvl_syncobj_fd_to_handle(c, -1, &h2), -EINVAL);
	assert_int_equal(nvl_syncobj_fd_to_handle(c, 0x7fff, &h2), -EINVAL);
	close(pfd[0]);
	close(pfd[1]);
	/* unknown handles */
	assert_int_equal(nvl_syncobj_handle_to_fd(c, 99, &fd), -EINVAL);
	assert_int_equal(nvl_syncobj_export_sync_file(c, 99, 0, &fd), -ENOENT);
	/* no fence, unsubmitted point */
	assert_int_equal(nvl_syncobj_export_sync_file(c, h, 0, &fd), -EINVAL);
	assert_int_equal(nvl_syncobj_signal(c, &h, 1), 0);
	assert_int_equal(nvl_syncobj_export_sync_file(c, h, 3, &fd), -EINVAL);
	/* a syncobj fd is not a sync file and vice versa */
	assert_int_equal(nvl_syncobj_handle_to_fd(c, h, &fd), 0);
	assert_int_equal(nvl_syncobj_import_sync_file(c, h, 0, fd), -EINVAL);
	assert_int_equal(nvl_syncobj_export_sync_file(c, h, 0, &sfd), 0);
	assert_true(readable(sfd, 0)); /* already signalled */
	assert_int_equal(nvl_syncobj_fd_to_handle(c, sfd, &h2), -EINVAL);
	assert_int_equal(nvl_syncobj_import_sync_file(c, 99, 0, sfd), -ENOENT);
	close(fd);
	close(sfd);
	/* closed: the registry forgets it */
	assert_int_equal(nvl_sync_file_collect(), 0);
	nvl_client_destroy(c);
}

static void export_fails_cleanly_without_memory(void **state)
{
	struct nvl_fence *f = nvl_fence_get_stub();
	int fd = -1;

	nvl_fault_fail_nth(1, NVL_FAULT_THIS_THREAD);
	assert_int_equal(nvl_sync_file_export(f, &fd), -ENOMEM);
	nvl_fault_off();
	assert_int_equal(fd, -1);
	assert_int_equal(nvl_sync_file_collect(), 0);
	assert_int_equal(nvl_sync_file_export(f, &fd), 0);
	assert_true(readable(fd, 0));
	close(fd);
	assert_int_equal(nvl_sync_file_collect(), 0);
	nvl_fence_put(f);
}

static void signal_after_fd_closed_raises_no_sigpipe(void **state)
{
	struct nvl_fence *f;
	int fd, sv[2];
	struct nvl_fence *g;

	assert_int_equal(nvl_fence_create(&f, nvl_fence_context_alloc(1), 1),
			 0);
	assert_int_equal(nvl_sync_file_export(f, &fd), 0);
	close(fd);
	nvl_fence_signal(f); /* SIGPIPE would kill the test here */
	assert_int_equal(nvl_sync_file_collect(), 0);
	nvl_fence_put(f);
	/* a socket that is not ours */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(nvl_sync_file_import(sv[0], &g), -EINVAL);
	close(sv[0]);
	close(sv[1]);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(signal_after_fd_closed_raises_no_sigpipe),
	cmocka_unit_test(exported_fd_polls_readable_once_signalled),
	cmocka_unit_test(sync_file_is_a_snapshot_and_imports_back),
	cmocka_unit_test(syncobj_fd_shares_the_object_between_clients),
	cmocka_unit_test(bad_fds_and_handles_are_rejected),
	cmocka_unit_test(export_fails_cleanly_without_memory),
};

T_MAIN(tests)

// SPDX-License-Identifier: MIT
/*
 * TEST: syncobj_eventfd
 * Description: nvl_syncobj_eventfd() with the semantics of the kernel's
 * DRM_IOCTL_SYNCOBJ_EVENTFD: the eventfd fires once, when the fence at the
 * point signals or, with WAIT_AVAILABLE, once the point exists; at once
 * when that is already so; the first fence that appears is the one watched
 * (a reset after does not lose it); bad input (flags, handle, fd) changes
 * nothing; a syncobj destroyed first never fires; allocation failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "t.h"
#include "base/client.h"
#include "sync/syncobj.h"

struct env {
	struct nvl_client *c;
	uint32_t h;
	struct nvl_syncobj *o;
	int efd;
};

static void env_init(struct env *v, uint32_t create_flags)
{
	assert_int_equal(nvl_client_create(&v->c), 0);
	assert_int_equal(nvl_syncobj_create(v->c, create_flags, &v->h), 0);
	v->o = nvl_syncobj_find(v->c, v->h);
	assert_non_null(v->o);
	v->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	assert_true(v->efd >= 0);
}

static void env_fini(struct env *v)
{
	nvl_syncobj_put(v->o);
	nvl_client_destroy(v->c);
	close(v->efd);
}

/* The eventfd's counter (read resets it); 0 when it did not fire. */
static uint64_t fired(int efd)
{
	uint64_t n = 0;

	if (read(efd, &n, sizeof(n)) != (ssize_t)sizeof(n)) {
		assert_int_equal(errno, EAGAIN);
		return 0;
	}
	return n;
}

static struct nvl_fence *mkf(uint64_t seqno)
{
	struct nvl_fence *f;

	assert_int_equal(
		nvl_fence_create(&f, nvl_fence_context_alloc(1), seqno), 0);
	return f;
}

static void binary_fires_when_the_fence_signals(void **state)
{
	struct env v;
	struct nvl_fence *f = mkf(1);
	struct pollfd p;

	env_init(&v, 0);
	assert_int_equal(nvl_syncobj_eventfd(v.c, v.h, 0, v.efd, 0), 0);
	assert_int_equal(fired(v.efd), 0);
	nvl_syncobj_replace_fence(v.o, f);
	assert_int_equal(fired(v.efd), 0); /* present, not signalled */
	/* the first fence is watched even though the syncobj is reset */
	nvl_syncobj_replace_fence(v.o, NULL);
	p = (struct pollfd){.fd = v.efd, .events = POLLIN};
	assert_int_equal(poll(&p, 1, 0), 0);
	nvl_fence_signal(f);
	assert_int_equal(poll(&p, 1, 0), 1);
	assert_int_equal(fired(v.efd), 1);
	/* once only */
	assert_int_equal(nvl_syncobj_signal(v.c, &v.h, 1), 0);
	assert_int_equal(fired(v.efd), 0);
	nvl_fence_put(f);
	env_fini(&v);
}

static void available_fires_when_the_point_exists(void **state)
{
	struct env v;
	struct nvl_fence *f1 = mkf(1), *f2 = mkf(2);

	env_init(&v, 0);
	assert_int_equal(nvl_syncobj_eventfd(v.c, v.h, 2, v.efd,
					     NVL_SYNCOBJ_WAIT_AVAILABLE),
			 0);
	nvl_syncobj_add_point(v.o, nvl_fence_chain_alloc(), f1, 1);
	assert_int_equal(fired(v.efd), 0); /* point 1 does not cover 2 */
	nvl_syncobj_add_point(v.o, nvl_fence_chain_alloc(), f2, 2);
	assert_int_equal(fired(v.efd), 1); /* exists, not signalled */
	assert_false(nvl_fence_is_signaled(f2));
	nvl_fence_signal(f1);
	nvl_fence_signal(f2);
	assert_int_equal(fired(v.efd), 0);
	nvl_fence_put(f1);
	nvl_fence_put(f2);
	env_fini(&v);
}

static void timeline_point_fires_when_signalled(void **state)
{
	struct env v;
	uint64_t pt = 3;

	env_init(&v, 0);
	assert_int_equal(nvl_syncobj_eventfd(v.c, v.h, 3, v.efd, 0), 0);
	assert_int_equal(fired(v.efd), 0);
	assert_int_equal(nvl_syncobj_timeline_signal(v.c, &v.h, &pt, 1), 0);
	assert_int_equal(fired(v.efd), 1);
	/* a point already signalled (and one collected) fires at once */
	assert_int_equal(nvl_syncobj_eventfd(v.c, v.h, 3, v.efd, 0), 0);
	assert_int_equal(nvl_syncobj_eventfd(v.c, v.h, 1, v.efd, 0), 0);
	assert_int_equal(fired(v.efd), 2);
	env_fini(&v);
}

static void already_signalled_fires_at_once(void **state)
{
	struct env v;

	env_init(&v, NVL_SYNCOBJ_CREATE_SIGNALED);
	assert_int_equal(nvl_syncobj_eventfd(v.c, v.h, 0, v.efd, 0), 0);
	assert_int_equal(fired(v.efd), 1);
	assert_int_equal(nvl_syncobj_eventfd(v.c, v.h, 0, v.efd,
					     NVL_SYNCOBJ_WAIT_AVAILABLE),
			 0);
	assert_int_equal(fired(v.efd), 1);
	env_fini(&v);
}

static void bad_input_changes_nothing(void **state)
{
	struct env v;
	int pipefd[2];

	env_init(&v, 0);
	assert_int_equal(pipe(pipefd), 0);
	assert_int_equal(nvl_syncobj_eventfd(v.c, v.h, 0, v.efd, 0x1), -EINVAL);
	assert_int_equal(
		nvl_syncobj_eventfd(v.c, v.h, 0, v.efd, NVL_SYNCOBJ_WAIT_ALL),
		-EINVAL);
	assert_int_equal(nvl_syncobj_eventfd(v.c, 99, 0, v.efd, 0), -ENOENT);
	assert_int_equal(nvl_syncobj_eventfd(v.c, 0, 0, v.efd, 0), -ENOENT);
	assert_int_equal(nvl_syncobj_eventfd(v.c, v.h, 0, -1, 0), -EBADF);
	assert_int_equal(nvl_syncobj_eventfd(v.c, v.h, 0, pipefd[0], 0),
			 -EINVAL);
	assert_int_equal(nvl_syncobj_eventfd(NULL, v.h, 0, v.efd, 0), -EINVAL);
	/* nothing was registered: a signal fires nothing */
	assert_int_equal(nvl_syncobj_signal(v.c, &v.h, 1), 0);
	assert_int_equal(fired(v.efd), 0);
	close(pipefd[0]);
	close(pipefd[1]);
	env_fini(&v);
}

static void caller_may_close_its_fd(void **state)
{
	struct env v;
	int dup_fd;

	env_init(&v, 0);
	dup_fd = dup(v.efd);
	assert_true(dup_fd >= 0);
	assert_int_equal(nvl_syncobj_eventfd(v.c, v.h, 0, dup_fd, 0), 0);
	close(dup_fd);
	assert_int_equal(nvl_syncobj_signal(v.c, &v.h, 1), 0);
	assert_int_equal(fired(v.efd), 1);
	env_fini(&v);
}

static void destroyed_syncobj_never_fires(void **state)
{
	struct env v;

	env_init(&v, 0);
	assert_int_equal(nvl_syncobj_eventfd(v.c, v.h, 0, v.efd, 0), 0);
	assert_int_equal(nvl_syncobj_eventfd(v.c, v.h, 7, v.efd,
					     NVL_SYNCOBJ_WAIT_AVAILABLE),
			 0);
	/* the last references go: queued entries are freed (ASan: no leak) */
	assert_int_equal(nvl_syncobj_destroy(v.c, v.h), 0);
	nvl_syncobj_put(v.o);
	v.o = NULL;
	assert_int_equal(fired(v.efd), 0);
	nvl_client_destroy(v.c);
	close(v.efd);
}

/*
 * The kernel's entry leaves the syncobj's list once it captured its fence:
 * destroying the syncobj then does not stop it (sync.h).
 */
static void captured_fence_fires_after_the_syncobj_is_gone(void **state)
{
	struct env v;
	struct nvl_fence *f = mkf(1);

	env_init(&v, 0);
	nvl_syncobj_replace_fence(v.o, f);
	assert_int_equal(nvl_syncobj_eventfd(v.c, v.h, 0, v.efd, 0), 0);
	assert_int_equal(nvl_syncobj_destroy(v.c, v.h), 0);
	nvl_syncobj_put(v.o);
	v.o = NULL;
	assert_int_equal(fired(v.efd), 0);
	nvl_fence_signal(f);
	assert_int_equal(fired(v.efd), 1);
	nvl_fence_put(f);
	nvl_client_destroy(v.c);
	close(v.efd);
}

static void allocation_failure_registers_nothing(void **state)
{
	struct env v;

	env_init(&v, 0);
	nvl_fault_fail_nth(1, NVL_FAULT_THIS_THREAD);
	assert_int_equal(nvl_syncobj_eventfd(v.c, v.h, 0, v.efd, 0), -ENOMEM);
	nvl_fault_off();
	assert_int_equal(nvl_syncobj_signal(v.c, &v.h, 1), 0);
	assert_int_equal(fired(v.efd), 0);
	env_fini(&v);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(binary_fires_when_the_fence_signals),
	cmocka_unit_test(available_fires_when_the_point_exists),
	cmocka_unit_test(timeline_point_fires_when_signalled),
	cmocka_unit_test(already_signalled_fires_at_once),
	cmocka_unit_test(bad_input_changes_nothing),
	cmocka_unit_test(caller_may_close_its_fd),
	cmocka_unit_test(destroyed_syncobj_never_fires),
	cmocka_unit_test(captured_fence_fires_after_the_syncobj_is_gone),
	cmocka_unit_test(allocation_failure_registers_nothing),
};

T_MAIN(tests)

// SPDX-License-Identifier: MIT
/*
 * TEST: sync_audit
 * Description: regressions from an adversarial review of fences, chains
 * and timeline syncobjs (session 18): an EVENTFD registration whose
 * eventfd counter is already saturated does not block the thread that
 * signals the fence (inside its signalling section, under the fence's
 * lock); every fence wait takes NULL as bad input.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <nouvelle/core.h>

#include "t.h"
#include "base/client.h"
#include "base/time.h"
#include "sync/syncobj.h"

static struct nvl_client *client(void)
{
	struct nvl_client *c;

	assert_int_equal(nvl_client_create(&c), 0);
	return c;
}

static uint32_t mk(struct nvl_client *c, uint32_t flags)
{
	uint32_t h = 0;

	assert_int_equal(nvl_syncobj_create(c, flags, &h), 0);
	return h;
}

static struct nvl_fence *pending_fence(void)
{
	struct nvl_fence *f;

	assert_int_equal(nvl_fence_create(&f, nvl_fence_context_alloc(1), 1),
			 0);
	return f;
}

struct sig_arg {
	struct nvl_fence *f;
	atomic_bool done;
};

static void *signal_thread(void *arg)
{
	struct sig_arg *a = arg;

	nvl_fence_signal(a->f);
	atomic_store(&a->done, true);
	return NULL;
}

/*
 * An eventfd write blocks while the counter would overflow: the client
 * that registered the eventfd filled it (a single write of 2^64 - 2 does),
 * and the signaller of the watched fence, maybe a thread that completes
 * every client's jobs, blocked in write() inside its signalling section,
 * holding the fence's lock, until the client read the eventfd. A
 * saturated eventfd is readable already: the signaller leaves it alone.
 */
static void saturated_eventfd_does_not_block_the_signaller(void **state)
{
	struct nvl_client *c = client();
	uint32_t h = mk(c, 0);
	struct sig_arg a = {.f = pending_fence()};
	struct nvl_syncobj *o = nvl_syncobj_find(c, h);
	uint64_t v = 0xfffffffffffffffeull;
	struct pollfd pfd;
	pthread_t t;
	bool done = false;
	int efd = eventfd(0, EFD_CLOEXEC);

	(void)state;
	assert_true(efd >= 0);
	assert_int_equal(write(efd, &v, sizeof(v)), sizeof(v));
	nvl_syncobj_replace_fence(o, a.f);
	nvl_syncobj_put(o);
	assert_int_equal(nvl_syncobj_eventfd(c, h, 0, efd, 0), 0);
	pthread_create(&t, NULL, signal_thread, &a);
	for (int i = 0; i < 200 && !done; i++) {
		usleep(10000);
		done = atomic_load(&a.done);
	}
	pfd = (struct pollfd){.fd = efd, .events = POLLIN};
	assert_int_equal(poll(&pfd, 1, 0), 1); /* still readable */
	/* unblocks a signaller stuck in write() */
	assert_int_equal(read(efd, &v, sizeof(v)), sizeof(v));
	pthread_join(t, NULL);
	assert_true(done);
	nvl_fence_put(a.f);
	close(efd);
	nvl_client_destroy(c);
}

/* NULL is bad input for every wait, not only nvl_fence_wait_flags() */
static void wait_on_null_is_einval(void **state)
{
	(void)state;
	assert_int_equal(nvl_fence_wait(NULL, 0), -EINVAL);
	assert_int_equal(nvl_fence_wait(NULL, NVL_NSEC_PER_MSEC), -EINVAL);
	assert_int_equal(nvl_fence_wait_until(NULL, 0), -EINVAL);
	assert_int_equal(nvl_fence_wait_until(NULL, NVL_TIMEOUT_INFINITE),
			 -EINVAL);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(saturated_eventfd_does_not_block_the_signaller),
	cmocka_unit_test(wait_on_null_is_einval),
};

T_MAIN(tests)

// SPDX-License-Identifier: MIT
/*
 * `nvl demo` step 10: synchronisation. A "GPU" thread signals points 1..3
 * of a timeline syncobj, 20 ms apart. The main thread waits for a point
 * before it was even submitted (WAIT_FOR_SUBMIT), exports point 3 as a
 * sync-file fd and poll()s it, hands the fd to a second client that imports
 * it, and finally shows the fence-signalling checker catching an
 * allocation inside a signalling section.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "demo.h"
#include "base/alloc.h"
#include "base/client.h"
#include "base/time.h"
#include "nouvelle/sync.h"
#include "sync/checker.h"
#include "sync/syncobj.h"

struct gpu {
	struct nvl_client *c;
	uint32_t timeline;
	int64_t t0;
};

static double ms_since(int64_t t0)
{
	return (double)(nvl_time_ns() - t0) / 1e6;
}

/*
 * Points 1 and 2 are host signals; point 3 is "real work": its fence is
 * submitted first and signals 20 ms later, like a GPU job.
 */
static void *gpu_thread(void *arg)
{
	struct gpu *g = arg;
	struct nvl_fence_chain *chain;
	struct nvl_syncobj *obj;
	struct nvl_fence *job;
	uint64_t p;

	for (p = 1; p <= 2; p++) {
		usleep(20000);
		printf("    %6.1f ms  gpu: signals timeline point %llu\n",
		       ms_since(g->t0), (unsigned long long)p);
		fflush(stdout);
		if (nvl_syncobj_timeline_signal(g->c, &g->timeline, &p, 1))
			return (void *)1;
	}
	usleep(20000);
	obj = nvl_syncobj_find(g->c, g->timeline);
	chain = nvl_fence_chain_alloc();
	if (!obj || !chain ||
	    nvl_fence_create(&job, nvl_fence_context_alloc(1), 1)) {
		nvl_fence_chain_free(chain);
		nvl_syncobj_put(obj);
		return (void *)1;
	}
	nvl_syncobj_add_point(obj, chain, job, 3);
	printf("    %6.1f ms  gpu: submits a job as point 3\n",
	       ms_since(g->t0));
	fflush(stdout);
	usleep(20000);
	printf("    %6.1f ms  gpu: job done, its fence signals\n",
	       ms_since(g->t0));
	fflush(stdout);
	nvl_fence_signal(job);
	nvl_fence_put(job);
	nvl_syncobj_put(obj);
	return NULL;
}

NVL_DEMO_STEP(10, sync)
{
	struct gpu g = {0};
	struct nvl_client *other = NULL;
	struct pollfd pfd = {.fd = -1, .events = POLLIN};
	uint32_t imported;
	uint64_t point = 2, q;
	pthread_t t;
	void *tret;
	int ret;

	ret = nvl_client_create(&g.c);
	if (!ret)
		ret = nvl_client_create(&other);
	if (!ret)
		ret = nvl_syncobj_create(g.c, 0, &g.timeline);
	if (!ret)
		ret = nvl_syncobj_create(other, 0, &imported);
	if (ret)
		goto out;
	printf("  timeline syncobj handle %u, no points yet\n", g.timeline);
	g.t0 = nvl_time_ns();
	if (pthread_create(&t, NULL, gpu_thread, &g)) {
		ret = -EAGAIN;
		goto out;
	}

	ret = nvl_syncobj_wait(g.c, &g.timeline, &point, 1, 0, 0, NULL);
	printf("    %6.1f ms  cpu: wait for point 2 now -> %d (not submitted: "
	       "-EINVAL)\n",
	       ms_since(g.t0), ret);
	ret = nvl_syncobj_wait(g.c, &g.timeline, &point, 1,
			       nvl_deadline_after(NVL_NSEC_PER_SEC),
			       NVL_SYNCOBJ_WAIT_FOR_SUBMIT, NULL);
	printf("    %6.1f ms  cpu: WAIT_FOR_SUBMIT on point 2 -> %d\n",
	       ms_since(g.t0), ret);
	if (ret)
		goto join;
	nvl_syncobj_query(g.c, &g.timeline, &q, 1, 0);
	printf("    %6.1f ms  cpu: query says point %llu signalled\n",
	       ms_since(g.t0), (unsigned long long)q);

	/* point 3 not yet submitted: wait until it exists, then export it */
	point = 3;
	ret = nvl_syncobj_wait(
		g.c, &g.timeline, &point, 1,
		nvl_deadline_after(NVL_NSEC_PER_SEC),
		NVL_SYNCOBJ_WAIT_FOR_SUBMIT | NVL_SYNCOBJ_WAIT_AVAILABLE, NULL);
	if (!ret)
		ret = nvl_syncobj_export_sync_file(g.c, g.timeline, 3, &pfd.fd);
	if (ret)
		goto join;
	printf("    %6.1f ms  cpu: point 3 exported as fd %d; poll() says "
	       "%s\n",
	       ms_since(g.t0), pfd.fd,
	       poll(&pfd, 1, 0) == 1 ? "readable" : "not readable yet");
	ret = nvl_syncobj_import_sync_file(other, imported, 0, pfd.fd);
	printf("    %6.1f ms  cpu: another client imported the fd -> %d\n",
	       ms_since(g.t0), ret);
	if (!ret) {
		/* sleeps in poll() until the GPU thread signals the job */
		int n = poll(&pfd, 1, 1000);

		printf("    %6.1f ms  cpu: poll() on the fd -> %s\n",
		       ms_since(g.t0), n == 1 ? "readable" : "timeout");
		if (n != 1)
			ret = -ETIME;
	}
join:
	pthread_join(t, &tret);
	if (!ret && tret)
		ret = -EIO;
	if (!ret) {
		ret = nvl_syncobj_wait(other, &imported, NULL, 1, 0, 0, NULL);
		printf("    %6.1f ms  other client: its imported syncobj is "
		       "%s\n",
		       ms_since(g.t0), ret ? "pending" : "signalled");
		nvl_syncobj_query(g.c, &g.timeline, &q, 1, 0);
		printf("  timeline completed up to point %llu\n",
		       (unsigned long long)q);
		if (!ret && q != 3)
			ret = -EIO;
	}
	if (!ret) {
		enum nvl_checker_mode m =
			nvl_checker_set_mode(NVL_CHECKER_COUNT);
		unsigned long before = nvl_checker_violations();
		struct nvl_signalling_cookie cookie =
			nvl_fence_begin_signalling();
		void *p = nvl_malloc(64);

		nvl_fence_end_signalling(cookie);
		nvl_free(p);
		printf("  checker: an allocation inside a signalling section "
		       "-> %lu violation reported (rule alloc-in-signalling)\n",
		       nvl_checker_violations() - before);
		nvl_checker_set_mode(m);
	}
out:
	if (pfd.fd >= 0)
		close(pfd.fd);
	nvl_client_destroy(other);
	nvl_client_destroy(g.c);
	return ret;
}

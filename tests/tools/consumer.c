// SPDX-License-Identifier: MIT
/*
 * TEST: consumer
 * Description: an application that includes only <nouvelle/nouvelle.h> and
 * links only the shared library: client, BO, timeline syncobj, VM, an async
 * bind that signals a point, a wait, fdinfo, and an error message. Proves the
 * public API is exported and usable on its own. Prints TAP.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <nouvelle/nouvelle.h>

static int n;
static int failed;

static void check(int cond, const char *what)
{
	n++;
	if (!cond)
		failed++;
	printf("%s %d - %s\n", cond ? "ok" : "not ok", n, what);
}

int main(void)
{
	struct nvl_client *c = NULL;
	struct nvl_vm_create_args va = {.start = 1ull << 20, .end = 1ull << 40};
	uint32_t bo = 0, syncobj = 0, vm = 0, queue = 0;
	struct timespec ts;
	char fdinfo[1024];
	int ret;

	printf("1..10\n");
	check(strlen(nvl_version()) > 0, "nvl_version");
	check(nvl_client_create(&c) == 0, "client create");
	check(nvl_bo_create(c, 1 << 20, NVL_BO_DOMAIN_GTT, NVL_BO_DOMAIN_GTT, 0,
			    &bo) == 0,
	      "bo create");
	check(nvl_syncobj_create(c, 0, &syncobj) == 0, "syncobj create");
	check(nvl_vm_create(c, &va, &vm) == 0 &&
		      nvl_vm_bind_queue_create(c, vm, &queue) == 0,
	      "vm and bind queue");
	{
		struct nvl_vm_bind_op op = {.op = NVL_VM_BIND_OP_MAP,
					    .handle = bo,
					    .addr = 1ull << 32,
					    .range = 1 << 20};
		struct nvl_vm_sync sig = {.handle = syncobj, .point = 1};

		ret = nvl_vm_bind(c, vm, queue, &op, 1, NULL, 0, &sig, 1,
				  NVL_VM_BIND_ASYNC);
		check(ret == 0, "async bind signalling timeline point 1");
	}
	{
		uint64_t point = 1;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		ret = nvl_syncobj_wait(c, &syncobj, &point, 1,
				       (int64_t)ts.tv_sec * 1000000000 +
					       ts.tv_nsec + 5000000000ll,
				       NVL_SYNCOBJ_WAIT_FOR_SUBMIT, NULL);
		check(ret == 0, "wait for the bind's point");
	}
	{
		struct nvl_vm_bind_op bad = {.op = NVL_VM_BIND_OP_MAP,
					     .handle = bo,
					     .addr = 123,
					     .range = 4096};

		ret = nvl_vm_bind(c, vm, 0, &bad, 1, NULL, 0, NULL, 0, 0);
		check(ret == -EINVAL && strlen(nvl_last_error()) > 0,
		      "unaligned bind: -EINVAL with a message");
	}
	check(nvl_client_fdinfo(c, fdinfo, sizeof(fdinfo)) >= 0 &&
		      strstr(fdinfo, "drm-") != NULL,
	      "fdinfo has drm- keys");
	check(nvl_bo_close(c, bo) == 0 && nvl_bo_close(c, bo) != 0,
	      "close, then close again fails");
	nvl_client_destroy(c);
	return failed ? 1 : 0;
}

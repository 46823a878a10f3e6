// SPDX-License-Identifier: MIT
/*
 * TEST: per-client DRM fdinfo on a device (issue 15 item 7), through the
 * public headers: drm-engine-copy busy time from job start/end
 * timestamps, read twice as nvtop and gputop do. A job that waits on a
 * semaphore acquire (Host SEM_EXECUTE ACQ_CIRC_GEQ, clc86f.h) until the CPU
 * releases it after a known sleep keeps the channel busy for at least that
 * sleep and at most the time from nvl_exec() to its fence: the difference
 * of two samples must fall in that window. The device's client list and
 * the other keys (capacity, maxfreq, pdev, client name, memory) too.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nouvelle/nouvelle.h>

#include "kit.h"
#include "t.h"
#include "t_nv.h"

#define KIB T_NV_KIB
#define MIB T_NV_MIB
#define VA_SEM (16 * MIB)
#define VA_PB (48 * MIB)
#define SLEEP_NS 300000000ll

/* the rig's client with a semaphore BO */
static void up(struct t_nv_cl *x, struct nvl_device *dev)
{
	t_nv_cl_up(x, dev, VA_PB, 0);
	t_nv_cl_sem(x, 64 * KIB, VA_SEM);
}

/* the value of @key in fdinfo text @t (-1 if absent) */
static long long key(const char *t, const char *k)
{
	size_t l = strlen(k);

	for (const char *p = t; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p)
		if (!strncmp(p, k, l) && p[l] == ':')
			return strtoll(p + l + 1, NULL, 10);
	return -1;
}

static long long engine_ns(struct nvl_client *c)
{
	char buf[4096];

	assert_true(nvl_client_fdinfo(c, buf, sizeof(buf)) > 0);
	return key(buf, "drm-engine-copy");
}

static void wait_sync(struct t_nv_cl *x)
{
	assert_int_equal(t_nv_cl_wait(x, 10 * T_NV_SEC), 0);
}

/* a job blocked on an acquire for SLEEP_NS: busy = that time */
static void known_busy(void **state)
{
	struct nvl_vm_sync s;
	struct nvl_exec_push p;
	long long e0, e1, e2;
	int64_t t0, t1;
	struct nvl_device *dev;
	struct t_nv_cl x;
	uint32_t n;

	(void)state;
	assert_int_equal(nvl_device_open("model:ad102", NULL, &dev), 0);
	up(&x, dev);
	x.psem[0] = 0;
	n = nvl_kit_pb_acquire(x.ppb, VA_SEM, 1);
	p = (struct nvl_exec_push){.va = VA_PB, .len = n * 4};
	s = (struct nvl_vm_sync){.handle = x.sync};
	e0 = engine_ns(x.c);
	assert_int_equal(e0, 0);
	t0 = t_nv_now();
	assert_int_equal(nvl_exec(x.c, x.chan, &p, 1, NULL, 0, &s, 1, 0), 0);
	nanosleep(&(struct timespec){0, SLEEP_NS}, NULL);
	__atomic_store_n(&x.psem[0], 1, __ATOMIC_RELEASE);
	wait_sync(&x);
	t1 = t_nv_now();
	e1 = engine_ns(x.c);
	/* at least the sleep (the job was on the ring before it began),
	 * at most exec-to-fence */
	if (e1 - e0 < SLEEP_NS || e1 - e0 > t1 - t0)
		fail_msg("busy %lld ns, not in [%lld, %lld]", e1 - e0, SLEEP_NS,
			 (long long)(t1 - t0));
	printf("# busy %lld ns over %lld ns: %.1f %%\n", e1 - e0,
	       (long long)(t1 - t0), 100.0 * (double)(e1 - e0) / (t1 - t0));
	/* idle: nothing more */
	nanosleep(&(struct timespec){0, 50000000}, NULL);
	e2 = engine_ns(x.c);
	assert_int_equal(e2, e1);
	/* a second such job adds its own time; the first stays counted */
	x.psem[0] = 0;
	n = nvl_kit_pb_acquire(x.ppb + 64, VA_SEM, 2);
	p = (struct nvl_exec_push){.va = VA_PB + 256, .len = n * 4};
	t0 = t_nv_now();
	assert_int_equal(nvl_exec(x.c, x.chan, &p, 1, NULL, 0, &s, 1, 0), 0);
	nanosleep(&(struct timespec){0, SLEEP_NS / 3}, NULL);
	__atomic_store_n(&x.psem[0], 2, __ATOMIC_RELEASE);
	wait_sync(&x);
	t1 = t_nv_now();
	e2 = engine_ns(x.c);
	if (e2 - e1 < SLEEP_NS / 3 || e2 - e1 > t1 - t0)
		fail_msg("second busy %lld ns, not in [%lld, %lld]", e2 - e1,
			 SLEEP_NS / 3, (long long)(t1 - t0));
	/* destroying the channel keeps what the client used */
	assert_int_equal(nvl_channel_destroy(x.c, x.chan), 0);
	assert_int_equal(engine_ns(x.c), e2);
	t_nv_cl_down(&x);
	nvl_device_close(dev);
}

/* copies charge time to their client only */
static void per_client(void **state)
{
	struct nvl_device *dev;
	struct t_nv_cl a, b;
	struct nvl_exec_push p;
	struct nvl_vm_sync s;
	uint32_t n;

	(void)state;
	assert_int_equal(nvl_device_open(NULL, NULL, &dev), 0);
	up(&a, dev);
	up(&b, dev);
	s = (struct nvl_vm_sync){.handle = a.sync};
	for (int i = 0; i < 20; i++) {
		n = nvl_kit_pb_memset(a.ppb, a.info.ce_class, VA_SEM, i,
				      64 * KIB);
		p = (struct nvl_exec_push){.va = VA_PB, .len = n * 4};
		assert_int_equal(
			nvl_exec(a.c, a.chan, &p, 1, NULL, 0, &s, 1, 0), 0);
		wait_sync(&a);
	}
	assert_true(engine_ns(a.c) > 0);
	assert_int_equal(engine_ns(b.c), 0);
	assert_int_equal(nvl_channel_destroy(a.c, a.chan), 0);
	assert_int_equal(nvl_channel_destroy(b.c, b.chan), 0);
	t_nv_cl_down(&b);
	t_nv_cl_down(&a);
	nvl_device_close(dev);
}

/* the client list, fdinfo by id, the other keys, names */
static void keys_and_list(void **state)
{
	struct nvl_device *dev;
	struct nvl_client *c, *d, *free_c;
	struct nvl_device_memory m;
	uint64_t ids[4];
	char buf[4096], want[64];

	(void)state;
	assert_int_equal(nvl_device_open("model:ga102", NULL, &dev), 0);
	assert_int_equal(nvl_device_clients(dev, NULL, 0), 0);
	assert_int_equal(nvl_device_client_create(dev, &c), 0);
	assert_int_equal(nvl_device_client_create(dev, &d), 0);
	assert_int_equal(nvl_device_clients(dev, ids, 1), 2);
	assert_int_equal(nvl_device_clients(dev, ids, 4), 2);
	assert_int_equal(nvl_client_set_name(c, "render"), 0);
	assert_int_equal(nvl_client_set_name(c, "two words"), -EINVAL);
	assert_int_equal(nvl_client_set_name(c, ""), -EINVAL);
	assert_true(nvl_device_client_fdinfo(dev, ids[0], buf, sizeof(buf)) >
		    0);
	assert_non_null(strstr(buf, "drm-driver:\tnouvelle\n"));
	snprintf(want, sizeof(want), "drm-client-id:\t%llu\n",
		 (unsigned long long)ids[0]);
	assert_non_null(strstr(buf, want));
	assert_non_null(strstr(buf, "drm-client-name:\trender\n"));
	assert_non_null(strstr(buf, "drm-pdev:\t0000:"));
	assert_non_null(strstr(buf, "drm-engine-copy:\t0 ns\n"));
	assert_true(key(buf, "drm-engine-capacity-copy") >= 1);
	assert_true(key(buf, "drm-maxfreq-copy") > 0);
	assert_non_null(strstr(buf, "drm-total-vram:\t"));
	/* a short buffer: the length the whole text needs */
	assert_int_equal(nvl_device_client_fdinfo(dev, ids[0], buf, 8),
			 nvl_client_fdinfo(c, NULL, 0));
	nvl_client_destroy(c);
	assert_int_equal(nvl_device_clients(dev, ids, 4), 1);
	assert_int_equal(
		nvl_device_client_fdinfo(dev, ids[0] - 100, buf, sizeof(buf)),
		-ENOENT);
	assert_int_equal(nvl_device_memory(dev, &m), 0);
	assert_true(m.vram_total > m.vram_reserved);
	nvl_client_destroy(d);
	assert_int_equal(nvl_device_clients(dev, ids, 4), 0);
	/* a device-less client: driver, id and memory only */
	assert_int_equal(nvl_client_create(&free_c), 0);
	assert_true(nvl_client_fdinfo(free_c, buf, sizeof(buf)) > 0);
	assert_null(strstr(buf, "drm-engine-"));
	assert_non_null(strstr(buf, "drm-client-id:"));
	nvl_client_destroy(free_c);
	assert_int_equal(nvl_device_memory(NULL, &m), -EINVAL);
	nvl_device_close(dev);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(known_busy),
		cmocka_unit_test(per_client),
		cmocka_unit_test(keys_and_list),
	};

	return t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
}

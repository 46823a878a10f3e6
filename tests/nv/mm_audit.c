// SPDX-License-Identifier: MIT
/*
 * TEST: the memory manager under pressure on a device, through the public
 * headers only (session 15's mm audit): each test is a bug such a client
 * found, failing before its fix.
 *
 * - two threads of one client mapping and unmapping one BO: a map that
 *   found the client's mapping record, then waited for the BO's lock,
 *   counted itself in a record the other thread's last unmap had freed
 *   (use after free, ASan, about one run in two with 2000 rounds); the
 *   record now stays while a map of it is pending;
 * - drm-purgeable counted a DONTNEED BO that is CPU-mapped (or pinned),
 *   which the shrinker can never drop (drm_gem_shmem's is_purgeable()
 *   excludes vmapped and pinned objects).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <nouvelle/nouvelle.h>

#include "kit.h"
#include "t.h"
#include "t_nv.h"

#define KIB T_NV_KIB
#define MIB T_NV_MIB
#define VA_PB (32 * MIB)
#define VA_SEM (40 * MIB)
#define VA_BO (64 * MIB)
#define DRIVER_VRAM (32 * MIB)

/* 1. two threads of one client map and unmap one BO */
struct mapper {
	struct nvl_client *c;
	uint32_t h;
	unsigned bad;
};

static void *map_loop(void *arg)
{
	struct mapper *m = arg;

	for (unsigned i = 0; i < 20000; i++) {
		uint32_t *p;

		if (nvl_bo_map(m->c, m->h, (void **)&p)) {
			m->bad++;
			continue;
		}
		if (p[0] != 0x5a5a5a5a)
			m->bad++;
		if (nvl_bo_unmap(m->c, m->h))
			m->bad++;
	}
	return NULL;
}

static void concurrent_map_unmap(void **state)
{
	struct nvl_device_opts o = {.vram_size = 256 * MIB};
	struct mapper m[2];
	struct nvl_device *dev;
	struct nvl_client *c;
	struct nvl_bo_info bi;
	pthread_t t[2];
	uint32_t h;
	void *p;

	(void)state;
	assert_int_equal(nvl_device_open("model:tu102", &o, &dev), 0);
	assert_int_equal(nvl_device_client_create(dev, &c), 0);
	assert_int_equal(
		nvl_bo_create(c, 64 * KIB, NVL_BO_DOMAIN_GTT, 0, 0, &h), 0);
	assert_int_equal(nvl_bo_map(c, h, &p), 0);
	memset(p, 0x5a, 64 * KIB);
	assert_int_equal(nvl_bo_unmap(c, h), 0);
	for (int i = 0; i < 2; i++) {
		m[i] = (struct mapper){.c = c, .h = h};
		assert_int_equal(pthread_create(&t[i], NULL, map_loop, &m[i]),
				 0);
	}
	for (int i = 0; i < 2; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(m[i].bad, 0);
	}
	/* every mapping ended: not pinned, one more unmap is refused */
	assert_int_equal(nvl_bo_query(c, h, &bi), 0);
	assert_false(bi.pinned);
	assert_int_equal(nvl_bo_unmap(c, h), -EINVAL);
	nvl_client_destroy(c);
	nvl_device_close(dev);
}

/* the value of fdinfo key @key of @c, in KiB */
static unsigned long long fdinfo_kib(struct nvl_client *c, const char *key)
{
	char buf[4096], *at;
	unsigned long long v;

	assert_true(nvl_client_fdinfo(c, buf, sizeof(buf)) > 0);
	at = strstr(buf, key);
	assert_non_null(at);
	assert_int_equal(sscanf(at + strlen(key), ":\t%llu KiB", &v), 1);
	return v;
}

/*
 * 2. drm-purgeable counts only what the shrinker could purge: a DONTNEED
 * BO that is CPU-mapped cannot be purged (as drm_gem_shmem's
 * is_purgeable() excludes vmapped and pinned objects).
 */
static void mapped_dontneed_not_purgeable(void **state)
{
	struct nvl_device_opts o = {.vram_size = 256 * MIB};
	struct nvl_device *dev;
	struct nvl_client *c;
	bool retained;
	uint32_t h;
	void *p;

	(void)state;
	assert_int_equal(nvl_device_open("model:tu102", &o, &dev), 0);
	assert_int_equal(nvl_device_client_create(dev, &c), 0);
	assert_int_equal(nvl_bo_create(c, 1 * MIB, NVL_BO_DOMAIN_GTT, 0, 0, &h),
			 0);
	assert_int_equal(nvl_bo_map(c, h, &p), 0);
	assert_int_equal(nvl_bo_madvise(c, h, NVL_BO_MADV_DONTNEED, &retained),
			 0);
	assert_true(retained);
	assert_int_equal(fdinfo_kib(c, "drm-resident-gtt"), 1024);
	assert_int_equal(fdinfo_kib(c, "drm-purgeable-gtt"), 0);
	/* unmapped, it is */
	assert_int_equal(nvl_bo_unmap(c, h), 0);
	assert_int_equal(fdinfo_kib(c, "drm-purgeable-gtt"), 1024);
	nvl_client_destroy(c);
	nvl_device_close(dev);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(concurrent_map_unmap),
		cmocka_unit_test(mapped_dontneed_not_purgeable),
	};

	return t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
}

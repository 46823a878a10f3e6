// SPDX-License-Identifier: MIT
/*
 * TEST: oversub
 * Description: a client allocates four times the VRAM, fills every BO with a
 * pattern, then uses them round-robin so they migrate between VRAM and GTT;
 * every byte stays intact, and the client's fdinfo adds up.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "t.h"
#include "base/client.h"
#include "mm/bo.h"

#define MiB (1ull << 20)
#define NBO 16
#define BO_B (2 * MiB)

static uint32_t pat(uint32_t bo, uint32_t gen, uint32_t i)
{
	uint32_t x = bo * 0x9e3779b9u ^ gen * 0x85ebca6bu ^ i * 0xc2b2ae35u;

	return x ^ (x >> 15);
}

static void fill(uint32_t *p, uint32_t bo, uint32_t gen)
{
	for (uint32_t i = 0; i < BO_B / 4; i++)
		p[i] = pat(bo, gen, i);
}

static void check(const uint32_t *p, uint32_t bo, uint32_t gen)
{
	for (uint32_t i = 0; i < BO_B / 4; i++)
		if (p[i] != pat(bo, gen, i))
			fail_msg("bo %u gen %u word %u: %#x", bo, gen, i, p[i]);
}

static void four_times_vram_round_robin_keeps_every_byte(void **state)
{
	struct nvl_mm_config cfg = {.vram_B = 8 * MiB};
	struct nvl_client *c;
	struct nvl_mm *mm;
	uint32_t h[NBO];
	uint32_t *p;
	char buf[2048];
	int rounds = 3;

	assert_int_equal(nvl_mm_create(&cfg, &mm), 0);
	assert_int_equal(nvl_client_alloc(NULL, &c), 0);
	c->mm = mm;
	for (uint32_t i = 0; i < NBO; i++) {
		assert_int_equal(
			nvl_bo_create(
				c, BO_B, NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
				NVL_BO_DOMAIN_VRAM, NVL_BO_CPU_VISIBLE, &h[i]),
			0);
		assert_int_equal(nvl_bo_map(c, h[i], (void **)&p), 0);
		fill(p, i, 0);
		assert_int_equal(nvl_bo_unmap(c, h[i]), 0);
	}
	assert_true(atomic_load(&mm->evictions) >= NBO - 4);
	for (int r = 0; r < rounds; r++) {
		for (uint32_t i = 0; i < NBO; i++) {
			struct nvl_bo_info info;

			assert_int_equal(nvl_bo_use(c, h[i]), 0);
			assert_int_equal(nvl_bo_query(c, h[i], &info), 0);
			assert_int_equal(info.current, NVL_BO_DOMAIN_VRAM);
			assert_int_equal(nvl_bo_map(c, h[i], (void **)&p), 0);
			check(p, i, (uint32_t)r);
			fill(p, i, (uint32_t)r + 1);
			assert_int_equal(nvl_bo_unmap(c, h[i]), 0);
		}
	}
	/* Each use migrated a BO in and another out. */
	assert_true(atomic_load(&mm->evictions) >=
		    (uint64_t)(NBO - 4) * (uint64_t)(rounds + 1));
	assert_true(atomic_load(&mm->bytes_moved) >=
		    (uint64_t)rounds * NBO * BO_B);
	assert_true(nvl_client_fdinfo(c, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "drm-resident-vram:\t8192 KiB"));
	assert_non_null(strstr(buf, "drm-total-gtt:\t24576 KiB"));
	for (uint32_t i = 0; i < NBO; i++) {
		assert_int_equal(nvl_bo_map(c, h[i], (void **)&p), 0);
		check(p, i, (uint32_t)rounds);
		assert_int_equal(nvl_bo_unmap(c, h[i]), 0);
	}
	nvl_client_put(c);
	nvl_mm_destroy(mm);
}

struct user {
	struct nvl_mm *mm;
	uint32_t id;
	int iters;
	int err;
};

static void *user_main(void *arg)
{
	struct user *u = arg;
	struct nvl_client *c;
	uint32_t h[4], gen[4] = {0};
	uint64_t rng = 77 + u->id;
	uint32_t *p;

	if (nvl_client_alloc(NULL, &c)) {
		u->err = -ENOMEM;
		return NULL;
	}
	c->mm = u->mm;
	for (uint32_t i = 0; i < 4; i++) {
		if (nvl_bo_create(
			    c, MiB, NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
			    NVL_BO_DOMAIN_VRAM, NVL_BO_CPU_VISIBLE, &h[i]) ||
		    nvl_bo_map(c, h[i], (void **)&p)) {
			u->err = -EIO;
			goto out;
		}
		for (uint32_t k = 0; k < MiB / 4; k += 256)
			p[k] = pat(u->id * 8 + i, 0, k);
		nvl_bo_unmap(c, h[i]);
	}
	for (int it = 0; it < u->iters && !u->err; it++) {
		uint32_t i = (uint32_t)(t_rand(&rng) % 4);

		if (nvl_bo_use(c, h[i]) || nvl_bo_map(c, h[i], (void **)&p)) {
			u->err = -ENOMEM;
			break;
		}
		for (uint32_t k = 0; k < MiB / 4; k += 256)
			if (p[k] != pat(u->id * 8 + i, gen[i], k))
				u->err = -EIO;
		gen[i]++;
		for (uint32_t k = 0; k < MiB / 4; k += 256)
			p[k] = pat(u->id * 8 + i, gen[i], k);
		nvl_bo_unmap(c, h[i]);
	}
out:
	nvl_client_put(c);
	return NULL;
}

static void concurrent_clients_migrating_keep_their_data(void **state)
{
	struct nvl_mm_config cfg = {.vram_B = 8 * MiB};
	struct nvl_mm *mm;
	struct user u[3];
	pthread_t th[3];

	assert_int_equal(nvl_mm_create(&cfg, &mm), 0);
	for (uint32_t i = 0; i < 3; i++) {
		u[i] = (struct user){
			.mm = mm, .id = i + 1, .iters = (int)(100 * t_scale())};
		assert_int_equal(pthread_create(&th[i], NULL, user_main, &u[i]),
				 0);
	}
	for (int i = 0; i < 3; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(u[i].err, 0);
	}
	assert_int_equal(mm->used_B[NVL_GEM_DOMAIN_VRAM], 0);
	nvl_mm_destroy(mm);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(concurrent_clients_migrating_keep_their_data),
	cmocka_unit_test(four_times_vram_round_robin_keeps_every_byte),
};

T_MAIN(tests)

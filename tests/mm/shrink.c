// SPDX-License-Identifier: MIT
/*
 * TEST: shrink
 * Description: the host-memory budget and the BO shrinker: idle BOs swap
 * out to a memfd and back intact, busy BOs are skipped after a bounded wait
 * (allocation then fails with -ENOMEM, quickly), purgeable BOs are dropped
 * first, and several threads using more than the budget concurrently make
 * progress without deadlock (signalling checker on; TSan run).
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "t.h"
#include "mmkit.h"
#include "base/client.h"
#include "base/time.h"
#include "mm/bo.h"
#include "sync/checker.h"
#include "sync/fence.h"

#define MiB (1ull << 20)

static struct nvl_mm *new_mm(uint64_t budget_B)
{
	return mmkit_mm(4 * MiB, 0, budget_B);
}

static void write_bo(struct nvl_client *c, uint32_t h, uint8_t v)
{
	uint8_t *p;

	assert_int_equal(nvl_bo_map(c, h, (void **)&p), 0);
	memset(p, v, MiB);
	assert_int_equal(nvl_bo_unmap(c, h), 0);
}

static void check_bo(struct nvl_client *c, uint32_t h, uint8_t v)
{
	uint8_t *p;

	assert_int_equal(nvl_bo_map(c, h, (void **)&p), 0);
	for (size_t i = 0; i < MiB; i++)
		if (p[i] != v)
			fail_msg("byte %zu: %#x, want %#x", i, p[i], v);
	assert_int_equal(nvl_bo_unmap(c, h), 0);
}

static void idle_bos_swap_out_and_back_intact(void **state)
{
	struct nvl_mm *mm = new_mm(2 * MiB);
	struct nvl_client *c = mmkit_client(mm);
	uint32_t h[4];
	struct nvl_bo_info info;

	for (int i = 0; i < 4; i++) {
		assert_int_equal(
			nvl_bo_create(c, MiB, NVL_BO_DOMAIN_GTT, 0, 0, &h[i]),
			0);
		write_bo(c, h[i], (uint8_t)(0x10 + i));
	}
	assert_true(atomic_load(&mm->host_B) <= 2 * MiB);
	assert_int_equal(atomic_load(&mm->swapouts), 2);
	assert_int_equal(nvl_bo_query(c, h[0], &info), 0);
	assert_int_equal(info.current, 0);
	for (int r = 0; r < 2; r++)
		for (int i = 0; i < 4; i++)
			check_bo(c, h[i], (uint8_t)(0x10 + i));
	assert_true(atomic_load(&mm->swapins) >= 6);
	nvl_client_put(c);
	nvl_mm_destroy(mm);
}

static void busy_bos_are_skipped_with_a_bounded_wait(void **state)
{
	struct nvl_mm *mm = new_mm(2 * MiB);
	struct nvl_client *c = mmkit_client(mm);
	struct nvl_fence *f[2];
	uint32_t h[2], hx;
	int64_t t0;

	for (int i = 0; i < 2; i++) {
		struct nvl_bo *bo;

		assert_int_equal(
			nvl_bo_create(c, MiB, NVL_BO_DOMAIN_GTT, 0, 0, &h[i]),
			0);
		bo = nvl_bo_lookup(c, h[i]);
		assert_int_equal(
			nvl_fence_create(&f[i], nvl_fence_context_alloc(1), 1),
			0);
		assert_int_equal(nvl_resv_lock(bo->gem.resv, NULL), 0);
		assert_int_equal(nvl_resv_reserve_fences(bo->gem.resv, 1), 0);
		nvl_resv_add_fence(bo->gem.resv, f[i], NVL_RESV_USAGE_READ);
		nvl_resv_unlock(bo->gem.resv);
		nvl_bo_put(bo);
	}
	t0 = nvl_time_ns();
	assert_int_equal(nvl_bo_create(c, MiB, NVL_BO_DOMAIN_GTT, 0, 0, &hx),
			 -ENOMEM);
	assert_true(nvl_time_ns() - t0 < NVL_NSEC_PER_SEC);
	assert_int_equal(atomic_load(&mm->swapouts), 0);
	/* Once idle, the same allocation succeeds by swapping one out. */
	nvl_fence_signal(f[0]);
	assert_int_equal(nvl_bo_create(c, MiB, NVL_BO_DOMAIN_GTT, 0, 0, &hx),
			 0);
	assert_int_equal(atomic_load(&mm->swapouts), 1);
	nvl_fence_signal(f[1]);
	nvl_fence_put(f[0]);
	nvl_fence_put(f[1]);
	nvl_client_put(c);
	nvl_mm_destroy(mm);
}

static void purgeable_bos_are_dropped_first(void **state)
{
	struct nvl_mm *mm = new_mm(2 * MiB);
	struct nvl_client *c = mmkit_client(mm);
	uint32_t a, b, x;
	bool retained;
	char buf[1024];

	assert_int_equal(nvl_bo_create(c, MiB, NVL_BO_DOMAIN_GTT, 0, 0, &a), 0);
	assert_int_equal(nvl_bo_create(c, MiB, NVL_BO_DOMAIN_GTT, 0, 0, &b), 0);
	write_bo(c, a, 0xaa);
	write_bo(c, b, 0xbb);
	assert_int_equal(nvl_bo_madvise(c, b, NVL_BO_MADV_DONTNEED, &retained),
			 0);
	assert_true(retained);
	assert_true(nvl_client_fdinfo(c, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "drm-purgeable-gtt:\t1024 KiB"));
	assert_int_equal(nvl_bo_create(c, MiB, NVL_BO_DOMAIN_GTT, 0, 0, &x), 0);
	assert_int_equal(atomic_load(&mm->swapouts), 0);
	assert_int_equal(nvl_bo_madvise(c, b, NVL_BO_MADV_WILLNEED, &retained),
			 0);
	assert_false(retained);
	check_bo(c, a, 0xaa);
	nvl_client_put(c);
	nvl_mm_destroy(mm);
}

struct worker {
	struct nvl_mm *mm;
	pthread_barrier_t *all_created;
	int id;
	int iters;
	int err;
};

static void *user_thread(void *arg)
{
	struct worker *w = arg;
	struct nvl_client *c;
	uint32_t h[4];
	uint8_t gen[4] = {0};
	uint64_t rng = 0x1234567ull + (uint64_t)w->id;

	if (nvl_client_alloc(NULL, &c)) {
		w->err = -ENOMEM;
		pthread_barrier_wait(w->all_created);
		return NULL;
	}
	c->mm = w->mm;
	for (int i = 0; i < 4; i++) {
		uint8_t *p;

		if (nvl_bo_create(c, MiB, NVL_BO_DOMAIN_GTT, 0, 0, &h[i]) ||
		    nvl_bo_map(c, h[i], (void **)&p)) {
			w->err = -EIO;
			pthread_barrier_wait(w->all_created);
			goto out;
		}
		memset(p, w->id << 4, MiB);
		nvl_bo_unmap(c, h[i]);
	}
	/* Everyone's BOs exist at once: twice the budget. */
	pthread_barrier_wait(w->all_created);
	for (int it = 0; it < w->iters && !w->err; it++) {
		int i = (int)(t_rand(&rng) % 4);
		uint8_t want = (uint8_t)(w->id << 4 | gen[i]), *p;

		if (nvl_bo_map(c, h[i], (void **)&p)) {
			w->err = -ENOMEM;
			break;
		}
		for (size_t k = 0; k < MiB; k += 4096)
			if (p[k] != want)
				w->err = -EIO;
		gen[i] = (gen[i] + 1) & 0xf;
		memset(p, w->id << 4 | gen[i], MiB);
		nvl_bo_unmap(c, h[i]);
	}
out:
	nvl_client_put(c);
	return NULL;
}

static void concurrent_users_over_budget_make_progress(void **state)
{
	struct nvl_mm *mm = new_mm(8 * MiB);
	struct worker w[4];
	pthread_t th[4];
	pthread_barrier_t bar;

	pthread_barrier_init(&bar, NULL, 4);
	for (int i = 0; i < 4; i++) {
		w[i] = (struct worker){.mm = mm,
				       .id = i + 1,
				       .all_created = &bar,
				       .iters = (int)(60 * t_scale())};
		assert_int_equal(
			pthread_create(&th[i], NULL, user_thread, &w[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(w[i].err, 0);
	}
	pthread_barrier_destroy(&bar);
	assert_true(atomic_load(&mm->swapouts) > 0);
	assert_int_equal(nvl_checker_violations(), 0);
	assert_int_equal(atomic_load(&mm->host_B), 0);
	nvl_mm_destroy(mm);
}

struct fake_shrinker {
	struct nvl_mm_shrinker s;
	uint64_t have;
	int scans;
};

static uint64_t fake_count(struct nvl_mm_shrinker *s)
{
	return container_of(s, struct fake_shrinker, s)->have;
}

static uint64_t fake_scan(struct nvl_mm_shrinker *s, uint64_t want_B)
{
	struct fake_shrinker *f = container_of(s, struct fake_shrinker, s);
	uint64_t n = NVL_MIN(want_B, f->have);

	f->scans++;
	f->have -= n;
	return n;
}

static void registered_shrinkers_are_asked_in_turn(void **state)
{
	struct nvl_mm *mm = new_mm(64 * MiB);
	struct fake_shrinker f = {.s = {.count = fake_count, .scan = fake_scan},
				  .have = 3 * MiB};

	nvl_mm_register_shrinker(mm, &f.s);
	assert_int_equal(nvl_mm_shrink(mm, 2 * MiB), 2 * MiB);
	assert_int_equal(f.scans, 1);
	/* Only 1 MiB left: all of it, and the others had nothing. */
	assert_int_equal(nvl_mm_shrink(mm, 2 * MiB), MiB);
	/* Nothing countable: not scanned. */
	assert_int_equal(nvl_mm_shrink(mm, MiB), 0);
	assert_int_equal(f.scans, 2);
	nvl_mm_unregister_shrinker(mm, &f.s);
	f.have = MiB;
	assert_int_equal(nvl_mm_shrink(mm, MiB), 0);
	nvl_mm_destroy(mm);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(registered_shrinkers_are_asked_in_turn),
	cmocka_unit_test(idle_bos_swap_out_and_back_intact),
	cmocka_unit_test(busy_bos_are_skipped_with_a_bounded_wait),
	cmocka_unit_test(purgeable_bos_are_dropped_first),
	cmocka_unit_test(concurrent_users_over_budget_make_progress),
};

T_MAIN(tests)

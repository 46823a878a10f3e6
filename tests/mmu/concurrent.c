// SPDX-License-Identifier: MIT
/*
 * The page-table manager under concurrency: binders on interleaved 2 MiB
 * slots of one VM (they share every directory table) get/map/flush/unmap/
 * flush/put in a loop, while an "engine" thread translates the same
 * addresses through the model MMU. Every translation must be either a
 * fault or exactly the page its binder mapped there; at the end only the
 * root table is left.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "drv.h"

#define BASE (1ull << 33)
#define SLOTS 16
#define ITERS 150

struct shared {
	struct drv *v;
	atomic_bool stop;
	atomic_ulong maps, checks, hits;
};

struct binder {
	struct shared *s;
	unsigned int id; /* slots id, id + 2, ... */
	uint64_t seed;
};

static uint64_t slot_va(unsigned int slot)
{
	return BASE + slot * 2 * MIB;
}

/* Slot k always maps VRAM [k * 2M, k * 2M + 2M) whatever the page size. */
static uint64_t slot_pa(unsigned int slot)
{
	return 16 * MIB + slot * 2 * MIB;
}

static void *binder_main(void *arg)
{
	struct binder *b = arg;
	struct nvl_pt *pt = b->s->v->pt;
	static const unsigned int shifts[] = {12, 16, 21};

	for (unsigned int it = 0; it < ITERS; it++) {
		unsigned int slot =
			b->id +
			2 * (unsigned int)(t_rand(&b->seed) % (SLOTS / 2));
		unsigned int shift = shifts[t_rand(&b->seed) % 3];
		uint64_t va = slot_va(slot);
		struct nvl_pt_page pg = {.domain = NVL_GEM_DOMAIN_VRAM,
					 .addr = slot_pa(slot)};

		assert_int_equal(nvl_pt_get(pt, va, 2 * MIB, shift), 0);
		nvl_pt_map_pages(pt, va, 2 * MIB, shift, &pg);
		nvl_pt_flush(pt, va, 2 * MIB);
		atomic_fetch_add(&b->s->maps, 1);
		nvl_pt_unmap(pt, va, 2 * MIB, shift, false);
		nvl_pt_flush(pt, va, 2 * MIB);
		nvl_pt_put(pt, va, 2 * MIB, shift);
	}
	return NULL;
}

static void *engine_main(void *arg)
{
	struct shared *s = arg;
	uint64_t seed = 99;

	while (!atomic_load(&s->stop)) {
		unsigned int slot = (unsigned int)(t_rand(&seed) % SLOTS);
		uint64_t off = (t_rand(&seed) % 512) * 4096;
		struct nvl_model_xlate x;

		if (!nvl_model_mmu_translate(s->v->d->m, &s->v->ctx,
					     slot_va(slot) + off, 0, &x)) {
			/* mapped: exactly this slot's page */
			assert_int_equal(x.state, NVL_MODEL_XLATE_MAPPED);
			assert_int_equal(x.pa, slot_pa(slot) + off);
			atomic_fetch_add(&s->hits, 1);
		}
		atomic_fetch_add(&s->checks, 1);
	}
	return NULL;
}

static void binders_and_engine_race_without_tearing(void **state)
{
	struct shared s = {0};
	struct binder b[2];
	pthread_t tb[2], te;
	struct nvl_pt_stats st;

	(void)state;
	s.v = drv_up("tiny", 0, 1ull << 40);
	assert_int_equal(pthread_create(&te, NULL, engine_main, &s), 0);
	for (unsigned int i = 0; i < 2; i++) {
		b[i] = (struct binder){&s, i, t_seed(17) + i};
		assert_int_equal(
			pthread_create(&tb[i], NULL, binder_main, &b[i]), 0);
	}
	for (unsigned int i = 0; i < 2; i++)
		pthread_join(tb[i], NULL);
	atomic_store(&s.stop, true);
	pthread_join(te, NULL);
	print_message("# %lu maps, %lu translations (%lu mapped)\n",
		      (unsigned long)s.maps, (unsigned long)s.checks,
		      (unsigned long)s.hits);
	assert_int_equal(s.maps, 2 * ITERS);
	nvl_pt_get_stats(s.v->pt, &st);
	assert_int_equal(st.tables, 1);
	drv_down(s.v);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(binders_and_engine_race_without_tearing),
};

T_MAIN(tests)

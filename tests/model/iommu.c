// SPDX-License-Identifier: MIT
/*
 * TEST: model_iommu
 * Description: the IOMMU table's cached translations (src/model/iommu.c):
 * every access path faults at once after an unmap, on the thread that
 * unmapped and on one whose translation was cached before; an unmap does
 * not return while a cached or locked access to the mapping runs; and
 * accesses racing map, unmap and free of the pages read either the
 * mapping's own bytes or fault, never freed memory.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "gpu.h"
#include "model/priv.h"

#define SYS NVL_HW_APERTURE_SYS_COH

static void sum_fn(void *arg, uint8_t *p, size_t n)
{
	uint64_t *sum = arg;

	for (size_t i = 0; i < n; i++)
		*sum += p[i];
}

/* every access path on [@dma, @dma + 8): 0 each, or -EFAULT each */
static void all_paths(struct nvl_model *m, uint64_t dma, int want)
{
	uint8_t b[8] = {0};
	uint32_t w = 0;
	uint64_t sum = 0;

	assert_int_equal(nvl_model_phys_access(m, SYS, dma, b, 8, false), want);
	assert_int_equal(nvl_model_phys_access(m, SYS, dma, b, 8, true), want);
	assert_int_equal(nvl_model_phys_atomic32(m, SYS, dma, &w, false), want);
	assert_int_equal(nvl_model_phys_atomic32(m, SYS, dma, &w, true), want);
	assert_int_equal(nvl_model_phys_visit(m, SYS, dma, 8, sum_fn, &sum),
			 want);
	assert_int_equal(nvl_model_phys_fill(m, SYS, dma, 0x5a5a5a5a, 8), want);
	assert_int_equal(
		nvl_model_phys_copy(m, NVL_HW_APERTURE_VIDMEM, 0, SYS, dma, 8),
		want);
	assert_int_equal(
		nvl_model_phys_copy(m, SYS, dma, NVL_HW_APERTURE_VIDMEM, 0, 8),
		want);
	assert_int_equal(nvl_model_phys_copy(m, SYS, dma, SYS, dma + 4, 4),
			 want);
}

static void every_path_faults_at_once_after_unmap(void **state)
{
	struct gpu *g = gpu_up("tiny");
	uint8_t *a = aligned_alloc(4096, 2 * 4096);
	uint64_t d1, d2;

	assert_non_null(a);
	memset(a, 0x11, 2 * 4096);
	assert_int_equal(nvl_hw_dma_map(g->hw, a, 4096, &d1), 0);
	assert_int_equal(nvl_hw_dma_map(g->hw, a + 4096, 4096, &d2), 0);
	/* twice: the second round goes through this thread's cache */
	all_paths(g->m, d1, 0);
	all_paths(g->m, d1, 0);
	all_paths(g->m, d2 + 4088, 0);
	/* a range running into the guard page faults, cached or not */
	assert_int_equal(
		nvl_model_phys_access(g->m, SYS, d1 + 4092, &d1, 8, false),
		-EFAULT);
	assert_int_equal(nvl_hw_dma_unmap(g->hw, d1, 4096), 0);
	all_paths(g->m, d1, -EFAULT);
	/* the other mapping still works, and a new one does */
	all_paths(g->m, d2, 0);
	assert_int_equal(nvl_hw_dma_map(g->hw, a, 4096, &d1), 0);
	all_paths(g->m, d1, 0);
	assert_int_equal(nvl_hw_dma_unmap(g->hw, d1, 4096), 0);
	assert_int_equal(nvl_hw_dma_unmap(g->hw, d2, 4096), 0);
	all_paths(g->m, d2, -EFAULT);
	gpu_down(g);
	free(a);
}

struct other {
	struct nvl_model *m;
	uint64_t dma;
	atomic_int step; /* 1: cached, 2: unmapped, 3: checked */
	int before, after;
};

static void *other_thread(void *arg)
{
	struct other *o = arg;
	uint32_t w;

	o->before = nvl_model_phys_atomic32(o->m, SYS, o->dma, &w, false);
	o->before |= nvl_model_phys_atomic32(o->m, SYS, o->dma, &w, false);
	atomic_store(&o->step, 1);
	while (atomic_load(&o->step) != 2)
		sched_yield();
	o->after = nvl_model_phys_atomic32(o->m, SYS, o->dma, &w, false);
	atomic_store(&o->step, 3);
	return NULL;
}

static void unmap_on_one_thread_faults_on_another(void **state)
{
	struct gpu *g = gpu_up("tiny");
	uint8_t *a = aligned_alloc(4096, 4096);
	struct other o = {.m = g->m};
	pthread_t t;

	assert_non_null(a);
	assert_int_equal(nvl_hw_dma_map(g->hw, a, 4096, &o.dma), 0);
	assert_int_equal(pthread_create(&t, NULL, other_thread, &o), 0);
	while (atomic_load(&o.step) != 1)
		sched_yield();
	assert_int_equal(nvl_hw_dma_unmap(g->hw, o.dma, 4096), 0);
	atomic_store(&o.step, 2);
	pthread_join(t, NULL);
	assert_int_equal(o.before, 0);
	assert_int_equal(o.after, -EFAULT);
	gpu_down(g);
	free(a);
}

/*
 * A visit whose callback is still running when another thread unmaps the
 * mapping: the unmap must not return before the callback does (the
 * driver would free the pages under it).
 */
struct slow {
	struct nvl_model *m;
	uint64_t dma;
	bool warm;
	atomic_int inside, unmapping, unmapped;
	int seen_unmapped, ret;
};

static void slow_fn(void *arg, uint8_t *p, size_t n)
{
	struct slow *s = arg;
	struct timespec ts = {0, 20 * 1000 * 1000};

	atomic_store(&s->inside, 1);
	while (!atomic_load(&s->unmapping))
		sched_yield();
	nanosleep(&ts, NULL); /* give the unmap time to (wrongly) finish */
	s->seen_unmapped = atomic_load(&s->unmapped);
	p[n - 1] = 1;
}

static void *slow_thread(void *arg)
{
	struct slow *s = arg;
	uint32_t w;

	if (s->warm) /* fill this thread's cache: the visit runs lock-free */
		nvl_model_phys_atomic32(s->m, SYS, s->dma, &w, false);
	s->ret = nvl_model_phys_visit(s->m, SYS, s->dma, 64, slow_fn, s);
	return NULL;
}

static void unmap_waits_for_a_running_access(void **state)
{
	for (int warm = 0; warm < 2; warm++) {
		struct gpu *g = gpu_up("tiny");
		uint8_t *a = aligned_alloc(4096, 4096);
		struct slow s = {.m = g->m, .warm = warm};
		pthread_t t;

		assert_non_null(a);
		assert_int_equal(nvl_hw_dma_map(g->hw, a, 4096, &s.dma), 0);
		assert_int_equal(pthread_create(&t, NULL, slow_thread, &s), 0);
		while (!atomic_load(&s.inside))
			sched_yield();
		atomic_store(&s.unmapping, 1);
		assert_int_equal(nvl_hw_dma_unmap(g->hw, s.dma, 4096), 0);
		atomic_store(&s.unmapped, 1);
		pthread_join(t, NULL);
		assert_int_equal(s.ret, 0);
		assert_int_equal(s.seen_unmapped, 0);
		assert_int_equal(a[63], 1);
		gpu_down(g);
		free(a);
	}
}

/*
 * One thread maps a fresh page whose first word holds its own DMA
 * address, publishes it, unmaps it, poisons and frees it, over and over;
 * another reads the published address through every path. Each read
 * must return the page's own address or fault: a poisoned or freed page
 * (AddressSanitizer) means an access outlived its unmap.
 */
#define CYCLES 2000

struct race {
	struct nvl_model *m;
	struct nvl_hw *hw;
	_Atomic uint64_t dma;
	atomic_bool done;
	unsigned ok, faults, bad;
};

static void first_word_fn(void *arg, uint8_t *p, size_t n)
{
	uint64_t *v = arg;

	memcpy(v, p, sizeof(*v));
}

static void *race_reader(void *arg)
{
	struct race *r = arg;
	unsigned i = 0;

	while (!atomic_load(&r->done)) {
		uint64_t dma = atomic_load(&r->dma), v = 0;
		uint32_t w = 0;
		int ret;

		switch (i++ % 3) {
		case 0:
			ret = nvl_model_phys_access(r->m, SYS, dma, &v, 8,
						    false);
			break;
		case 1:
			ret = nvl_model_phys_atomic32(r->m, SYS, dma, &w,
						      false);
			v = (dma & ~0xffffffffull) | w;
			break;
		default:
			ret = nvl_model_phys_visit(r->m, SYS, dma, 8,
						   first_word_fn, &v);
			break;
		}
		if (ret == -EFAULT)
			r->faults++;
		else if (!ret && v == dma)
			r->ok++;
		else
			r->bad++;
	}
	return NULL;
}

static void accesses_racing_unmap_and_free_never_see_freed_pages(void **state)
{
	struct gpu *g = gpu_up("tiny");
	struct race r = {.m = g->m, .hw = g->hw, .dma = 1};
	pthread_t t;

	assert_int_equal(pthread_create(&t, NULL, race_reader, &r), 0);
	for (int i = 0; i < CYCLES; i++) {
		uint64_t *p = aligned_alloc(4096, 4096), dma;

		assert_non_null(p);
		memset(p, 0, 4096);
		assert_int_equal(nvl_hw_dma_map(g->hw, p, 4096, &dma), 0);
		p[0] = dma;
		atomic_store(&r.dma, dma);
		if (i % 8 == 0)
			sched_yield(); /* let the reader cache it */
		assert_int_equal(nvl_hw_dma_unmap(g->hw, dma, 4096), 0);
		memset(p, 0xee, 4096);
		free(p);
	}
	atomic_store(&r.done, true);
	pthread_join(t, NULL);
	assert_int_equal(r.bad, 0);
	assert_true(r.ok + r.faults > 0);
	gpu_down(g);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(every_path_faults_at_once_after_unmap),
	cmocka_unit_test(unmap_on_one_thread_faults_on_another),
	cmocka_unit_test(unmap_waits_for_a_running_access),
	cmocka_unit_test(accesses_racing_unmap_and_free_never_see_freed_pages),
};

T_MAIN(tests)

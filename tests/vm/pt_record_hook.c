// SPDX-License-Identifier: MIT
/*
 * TEST: pt_record_hook
 * Description: the recording backend's prefetch hook runs without the
 * record's lock (issue 19: a bind calls it at its entry, before the VM
 * lock): it walks the chunk directory and reads the entry's chunk pointer
 * while another thread's writes make chunks, free them and unhook their
 * directory leaves (an async bind's free_job puts from the scheduler's
 * thread). Under ASan a leaf freed under the hook is a use after free;
 * under TSan a chunk pointer stored without an atomic store is a race.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "t.h"
#include "vm/pt_record.h"
#include "vm/pt_record_internal.h"

#define PG 4096ull
#define TILE (16 * PG)
#define GIB (1ull << 30)
#define NG 8 /* GiBs: a leaf each */

static char obj;

static const struct nvl_vm_pt_ops *ops = &nvl_vm_pt_record_ops;

struct hook_arg {
	struct nvl_vm_pt_record *rec;
	atomic_bool started, stop;
	unsigned long calls;
};

/*
 * The hook over every tile the writer uses, until told to stop: twice a
 * tile, as a one-op bind calls it (the second call loads the entry's
 * chunk pointer).
 */
static void *hook_loop(void *p)
{
	struct hook_arg *a = p;

	atomic_store(&a->started, true);
	while (!atomic_load_explicit(&a->stop, memory_order_relaxed)) {
		for (uint64_t g = 0; g < NG; g++)
			for (uint64_t t = 0; t < 4; t++)
				for (int i = 0; i < 2; i++)
					ops->prefetch(a->rec,
						      g * GIB + t * 32 * TILE,
						      TILE);
		a->calls++;
	}
	return NULL;
}

/*
 * Rounds of a tile in each of NG GiBs (each with a leaf of its own) mapped
 * and unmapped: every round unhooks all NG leaves and makes them again,
 * while a second thread runs the hook over the same tiles.
 */
static void the_hook_runs_beside_leaves_coming_and_going(void **state)
{
	struct hook_arg a = {0};
	struct nvl_vm_pt_record_stats st;
	pthread_t th;
	uint64_t rounds = (uint64_t)(2000 * t_scale());

	(void)state;
	assert_int_equal(nvl_vm_pt_record_create(&a.rec), 0);
	assert_int_equal(pthread_create(&th, NULL, hook_loop, &a), 0);
	while (!atomic_load(&a.started))
		sched_yield();
	for (uint64_t r = 0; r < rounds; r++) {
		uint64_t t = r % 4 * 32 * TILE;

		for (uint64_t g = 0; g < NG; g++) {
			assert_int_equal(ops->get(a.rec, g * GIB + t, TILE, 16),
					 0);
			ops->map(a.rec, g * GIB + t, TILE, 16,
				 (struct nvl_gem_object *)(void *)&obj, 0, 0);
		}
		for (uint64_t g = 0; g < NG; g++) {
			ops->unmap(a.rec, g * GIB + t, TILE, 16, false);
			ops->put(a.rec, g * GIB + t, TILE, 16);
		}
	}
	atomic_store(&a.stop, true);
	pthread_join(th, NULL);
	assert_true(a.calls > 0);
	nvl_vm_pt_record_stats(a.rec, &st);
	assert_int_equal(st.errors, 0);
	assert_int_equal(st.refs, 0);
	assert_int_equal(a.rec->nchunks, 0);
	/* every leaf went idle, none was freed: NG of them, reused */
	assert_int_equal(a.rec->nidle, NG);
	nvl_vm_pt_record_destroy(a.rec);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(the_hook_runs_beside_leaves_coming_and_going),
};

T_MAIN(tests)

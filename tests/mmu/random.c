// SPDX-License-Identifier: MIT
/*
 * Random bind sequences through GPUVM into NVIDIA-format tables, each call
 * checked page by page against the model's walker: v2 and v3 tables,
 * tables written in place and through CPU shadows, any_backing mode, and
 * allocation failures injected inside binds.
 */
#include "world.h"

static void random_binds_translate_as_gpuvm_says(void **state)
{
	struct world w;
	struct nvl_pt_stats st;
	unsigned long n = (unsigned long)(1500 * SCALE);

	(void)state;
	world_up(&w, "tiny", t_seed(0x8a11));
	run_random(&w, n);
	nvl_pt_get_stats(w.v->pt, &st);
	print_message("# %lu bind calls (%lu ok, %lu skipped); leaves 4K %llu "
		      "64K %llu 2M %llu; %llu tables\n",
		      w.calls, w.ok, w.skipped,
		      (unsigned long long)st.leaves[0],
		      (unsigned long long)st.leaves[1],
		      (unsigned long long)st.leaves[2],
		      (unsigned long long)st.tables);
	assert_true(w.ok > w.calls / 3);
	assert_true(st.leaves[0] && st.leaves[1] && st.leaves[2]);
	assert_int_equal(st.errors, 0);
	world_down(&w);
}

static void random_binds_through_shadow_tables(void **state)
{
	struct world w;
	unsigned long n = (unsigned long)(600 * SCALE);

	(void)state;
	drv_shadow_tables = true;
	world_up(&w, "tiny", t_seed(0x5ad0));
	run_random(&w, n);
	world_down(&w);
	drv_shadow_tables = false;
}

static void random_binds_on_hopper_v3_tables(void **state)
{
	struct world w;
	unsigned long n = (unsigned long)(600 * SCALE);

	(void)state;
	world_up(&w, "gh100", t_seed(0x3333));
	run_random(&w, n);
	world_down(&w);
}

static void any_backing_maps_fragmented_bos_at_any_alignment(void **state)
{
	struct world w;
	struct nvl_pt_stats st;
	unsigned long n = (unsigned long)(800 * SCALE);

	(void)state;
	world_up_opt(&w, "tiny", t_seed(0xab1e), true);
	run_random(&w, n);
	nvl_pt_get_stats(w.v->pt, &st);
	assert_int_equal(st.errors, 0);
	assert_true(st.leaves[1] && st.leaves[2]);
	world_down(&w);
}

static void random_binds_with_allocation_failures_stay_exact(void **state)
{
	struct world w;
	unsigned long n = (unsigned long)(800 * SCALE);

	(void)state;
	world_up(&w, "tiny", t_seed(0xfa11));
	w.fail_p = 0.02;
	run_random(&w, n);
	print_message("# %lu bind calls, %lu succeeded\n", w.calls, w.ok);
	assert_true(w.ok < w.calls);
	world_down(&w);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(random_binds_translate_as_gpuvm_says),
	cmocka_unit_test(random_binds_through_shadow_tables),
	cmocka_unit_test(random_binds_on_hopper_v3_tables),
	cmocka_unit_test(any_backing_maps_fragmented_bos_at_any_alignment),
	cmocka_unit_test(random_binds_with_allocation_failures_stay_exact),
};

T_MAIN(tests)

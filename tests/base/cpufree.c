// SPDX-License-Identifier: MIT
/*
 * TEST: cpufree
 * Description: nvl_cpu_poll_begin() refuses on one CPU and when more
 * threads are runnable than CPUs, leaves one CPU free of pollers, backs off
 * after a preempted poll, and asks the kernel without failing.
 */
#include <stdbool.h>

#include "t.h"
#include "base/cpufree.h"

static void one_cpu_never_polls(void **state)
{
	nvl_cpu_poll_test_set(1, 1);
	assert_false(nvl_cpu_poll_begin());
	nvl_cpu_poll_test_set(0, 0);
	assert_false(nvl_cpu_poll_begin());
	nvl_cpu_poll_test_set(-1, 0);
}

static void busy_machine_does_not_poll(void **state)
{
	/* two runnable besides the caller on two CPUs */
	nvl_cpu_poll_test_set(2, 3);
	assert_false(nvl_cpu_poll_begin());
	nvl_cpu_poll_test_set(8, 9);
	assert_false(nvl_cpu_poll_begin());
	/* the kernel did not answer */
	nvl_cpu_poll_test_set(8, -1);
	assert_false(nvl_cpu_poll_begin());
	nvl_cpu_poll_test_set(-1, 0);
}

static void one_cpu_is_left_for_the_signaller(void **state)
{
	nvl_cpu_poll_test_set(2, 2);
	assert_true(nvl_cpu_poll_begin());
	assert_false(nvl_cpu_poll_begin());
	nvl_cpu_poll_end(false);
	assert_true(nvl_cpu_poll_begin());
	nvl_cpu_poll_end(false);

	nvl_cpu_poll_test_set(4, 1);
	for (int i = 0; i < 3; i++)
		assert_true(nvl_cpu_poll_begin());
	assert_false(nvl_cpu_poll_begin());
	for (int i = 0; i < 3; i++)
		nvl_cpu_poll_end(false);
	nvl_cpu_poll_test_set(-1, 0);
}

static void preempted_poll_backs_off(void **state)
{
	nvl_cpu_poll_test_set(4, 1);
	assert_true(nvl_cpu_poll_begin());
	nvl_cpu_poll_end(true);
	assert_false(nvl_cpu_poll_begin());
	/* test_set clears the back-off */
	nvl_cpu_poll_test_set(4, 1);
	assert_true(nvl_cpu_poll_begin());
	nvl_cpu_poll_end(false);
	nvl_cpu_poll_test_set(-1, 0);
}

static void kernel_figures_are_usable(void **state)
{
	/* whatever the machine's load: an answer, and a slot given back */
	for (int i = 0; i < 3; i++)
		if (nvl_cpu_poll_begin())
			nvl_cpu_poll_end(false);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(one_cpu_never_polls),
	cmocka_unit_test(busy_machine_does_not_poll),
	cmocka_unit_test(one_cpu_is_left_for_the_signaller),
	cmocka_unit_test(preempted_poll_backs_off),
	cmocka_unit_test(kernel_figures_are_usable),
};

T_MAIN(tests)

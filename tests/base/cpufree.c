// SPDX-License-Identifier: MIT
/*
 * TEST: cpufree
 * Description: nvl_cpu_poll_begin() refuses on one CPU and when more
 * threads are runnable than CPUs, leaves one CPU free of pollers, backs off
 * after a poll that lost its CPU to another program's time slice (not
 * after a shorter loss), counts a runnable thread only when two samples in
 * a row saw it, and asks the kernel without failing.
 * nvl_cpu_follow() moves the caller to the CPU given only after a dear
 * wake-up on a busy machine (or, with a CPU free, one that a whole poll
 * did not outlast), at most once per gap, gives the CPU mask back, and
 * leaves a CPU outside the mask alone.
 */
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>

#include "t.h"
#include "base/clock.h"
#include "base/cpufree.h"
#include "base/idlepoll.h"

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
	nvl_cpu_poll_end(0);
	assert_true(nvl_cpu_poll_begin());
	nvl_cpu_poll_end(0);

	nvl_cpu_poll_test_set(4, 1);
	for (int i = 0; i < 3; i++)
		assert_true(nvl_cpu_poll_begin());
	assert_false(nvl_cpu_poll_begin());
	for (int i = 0; i < 3; i++)
		nvl_cpu_poll_end(0);
	nvl_cpu_poll_test_set(-1, 0);
}

static void preempted_poll_backs_off(void **state)
{
	nvl_cpu_poll_test_set(4, 1);
	/* a short loss (a thread passing by) stops no other poll */
	assert_true(nvl_cpu_poll_begin());
	nvl_cpu_poll_end(NVL_POLL_LOST_CPU_NS - 1);
	assert_true(nvl_cpu_poll_begin());
	/* another program's time slice does */
	nvl_cpu_poll_end(NVL_POLL_LOST_CPU_NS);
	assert_false(nvl_cpu_poll_begin());
	/* test_set clears the back-off */
	nvl_cpu_poll_test_set(4, 1);
	assert_true(nvl_cpu_poll_begin());
	nvl_cpu_poll_end(0);
	nvl_cpu_poll_test_set(-1, 0);
}

static void a_thread_seen_at_one_sample_does_not_count(void **state)
{
	/* two CPUs, our two pollers running: free */
	nvl_cpu_poll_test_set(2, 2);
	assert_true(nvl_cpus_free());
	/* a third thread at one sample's instant (a passing thread) */
	nvl_cpu_poll_test_sample(3);
	assert_true(nvl_cpus_free());
	assert_true(nvl_cpu_poll_begin());
	nvl_cpu_poll_end(0);
	/* still there at the next: another program's work */
	nvl_cpu_poll_test_sample(3);
	assert_false(nvl_cpus_free());
	assert_false(nvl_cpu_poll_begin());
	/* gone again: one sample is enough to poll again */
	nvl_cpu_poll_test_sample(1);
	assert_true(nvl_cpus_free());
	/* the kernel did not answer: never poll, whatever came before */
	nvl_cpu_poll_test_sample(-1);
	assert_false(nvl_cpus_free());
	nvl_cpu_poll_test_set(-1, 0);
}

static void kernel_figures_are_usable(void **state)
{
	/* whatever the machine's load: an answer, and a slot given back */
	for (int i = 0; i < 3; i++)
		if (nvl_cpu_poll_begin())
			nvl_cpu_poll_end(0);
}

/* a CPU of this thread's mask other than the one it runs on, -1: none */
static int other_cpu(const cpu_set_t *mask)
{
	int me = sched_getcpu();

	for (int i = 0; i < CPU_SETSIZE; i++)
		if (i != me && CPU_ISSET(i, mask))
			return i;
	return -1;
}

static void follow_moves_only_after_a_dear_wake_on_a_busy_machine(void **state)
{
	struct nvl_cpu_follow f = {0};
	cpu_set_t mask, now;
	int to;

	assert_int_equal(
		pthread_getaffinity_np(pthread_self(), sizeof(mask), &mask), 0);
	to = other_cpu(&mask);
	if (to < 0)
		skip(); /* one usable CPU */
	nvl_cpu_poll_test_set(2, 3); /* busy: 3 runnable, 2 CPUs */
	assert_false(nvl_cpu_follow(&f, to, NVL_CPU_FOLLOW_WAKE_NS - 1, false));
	assert_false(nvl_cpu_follow(&f, -1, NVL_CPU_FOLLOW_WAKE_NS, false));
	assert_false(
		nvl_cpu_follow(&f, CPU_SETSIZE, NVL_CPU_FOLLOW_WAKE_NS, false));
	/* a CPU free: the caller polls instead, crossing is what lets it */
	nvl_cpu_poll_test_set(2, 1);
	assert_false(nvl_cpu_follow(&f, to, NVL_CPU_FOLLOW_WAKE_NS, false));
	/* one CPU: nowhere to go */
	nvl_cpu_poll_test_set(1, 3);
	assert_false(nvl_cpu_follow(&f, to, NVL_CPU_FOLLOW_WAKE_NS, false));
	assert_int_equal(f.moves, 0);

	nvl_cpu_poll_test_set(2, 3);
	assert_true(nvl_cpu_follow(&f, to, NVL_CPU_FOLLOW_WAKE_NS, false));
	assert_int_equal(f.moves, 1);
	/* (where it runs now is the kernel's: it may have moved it on) */
	assert_int_equal(
		pthread_getaffinity_np(pthread_self(), sizeof(now), &now), 0);
	assert_true(CPU_EQUAL(&now, &mask));
	/* at most one move per gap: the move set its end (a loaded machine
	 * may let the gap pass before the next call, so it is not raced) */
	assert_true(f.next_ns > 0);
	assert_true(f.next_ns - nvl_clock_ns() <= NVL_CPU_FOLLOW_GAP_NS);
	f.next_ns = nvl_clock_ns() + NVL_CPU_FOLLOW_GAP_NS * 1000;
	to = other_cpu(&mask);
	assert_false(nvl_cpu_follow(&f, to, NVL_CPU_FOLLOW_WAKE_NS, false));
	assert_int_equal(f.moves, 1);
	nvl_cpu_poll_test_set(-1, 0);
}

static void
follow_moves_with_a_cpu_free_when_the_poll_was_outwaited(void **state)
{
	struct nvl_cpu_follow f = {0};
	cpu_set_t mask, now;
	int to;

	assert_int_equal(
		pthread_getaffinity_np(pthread_self(), sizeof(mask), &mask), 0);
	to = other_cpu(&mask);
	if (to < 0)
		skip();
	/* a CPU free: the poll covers what it can; a wake-up it did not
	 * cover is paid across CPUs unless the thread follows */
	nvl_cpu_poll_test_set(2, 1);
	assert_false(nvl_cpu_follow(&f, to, NVL_CPU_FOLLOW_WAKE_NS - 1, true));
	assert_false(nvl_cpu_follow(&f, to, NVL_CPU_FOLLOW_WAKE_NS, false));
	assert_int_equal(f.moves, 0);
	assert_true(nvl_cpu_follow(&f, to, NVL_CPU_FOLLOW_WAKE_NS, true));
	assert_int_equal(f.moves, 1);
	assert_int_equal(
		pthread_getaffinity_np(pthread_self(), sizeof(now), &now), 0);
	assert_true(CPU_EQUAL(&now, &mask));
	/* the gap holds for these moves too */
	f.next_ns = nvl_clock_ns() + NVL_CPU_FOLLOW_GAP_NS * 1000;
	to = other_cpu(&mask);
	assert_false(nvl_cpu_follow(&f, to, NVL_CPU_FOLLOW_WAKE_NS, true));
	/* one CPU: nowhere to go, whatever the poll did */
	f.next_ns = 0;
	nvl_cpu_poll_test_set(1, 1);
	assert_false(nvl_cpu_follow(&f, to, NVL_CPU_FOLLOW_WAKE_NS, true));
	assert_int_equal(f.moves, 1);
	nvl_cpu_poll_test_set(-1, 0);
}

static void follow_leaves_a_cpu_outside_the_mask_alone(void **state)
{
	struct nvl_cpu_follow f = {0};
	cpu_set_t mask, one, now;
	int me, to;

	assert_int_equal(
		pthread_getaffinity_np(pthread_self(), sizeof(mask), &mask), 0);
	to = other_cpu(&mask);
	if (to < 0)
		skip();
	me = sched_getcpu();
	CPU_ZERO(&one);
	CPU_SET(me, &one);
	assert_int_equal(
		pthread_setaffinity_np(pthread_self(), sizeof(one), &one), 0);
	nvl_cpu_poll_test_set(2, 3);
	assert_false(nvl_cpu_follow(&f, to, NVL_CPU_FOLLOW_WAKE_NS, false));
	assert_int_equal(f.moves, 0);
	assert_int_equal(
		pthread_getaffinity_np(pthread_self(), sizeof(now), &now), 0);
	assert_true(CPU_EQUAL(&now, &one));
	nvl_cpu_poll_test_set(-1, 0);
	assert_int_equal(
		pthread_setaffinity_np(pthread_self(), sizeof(mask), &mask), 0);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(one_cpu_never_polls),
	cmocka_unit_test(busy_machine_does_not_poll),
	cmocka_unit_test(one_cpu_is_left_for_the_signaller),
	cmocka_unit_test(preempted_poll_backs_off),
	cmocka_unit_test(a_thread_seen_at_one_sample_does_not_count),
	cmocka_unit_test(kernel_figures_are_usable),
	cmocka_unit_test(follow_moves_only_after_a_dear_wake_on_a_busy_machine),
	cmocka_unit_test(
		follow_moves_with_a_cpu_free_when_the_poll_was_outwaited),
	cmocka_unit_test(follow_leaves_a_cpu_outside_the_mask_alone),
};

T_MAIN(tests)

// SPDX-License-Identifier: MIT
/*
 * TEST: idlepoll
 * Description: nvl_idle_poll() polls only after a dear wake-up was
 * measured and while a CPU is free, learns its budget from what it caught
 * and from kicks that came after it gave up, cools down after losing its
 * CPU twice in a row, ends as soon as the word moves, and (when asked)
 * sleeps once after a streak of hits to measure a wake-up again. A fake clock
 * (struct nvl_idle_poll's test hook) that also moves the word at a set
 * time makes every case deterministic: no timing is asserted.
 */
#include <stdatomic.h>
#include <stdbool.h>

#include "t.h"
#include "base/cpufree.h"
#include "base/idlepoll.h"
#include "base/time.h"

static int64_t fake_now, fake_step, bump_at;
static _Atomic uint32_t word;

/* each read advances the fake time by fake_step; at bump_at the word moves */
static int64_t fake_clock(void)
{
	fake_now += fake_step;
	if (bump_at && fake_now >= bump_at) {
		bump_at = 0;
		atomic_fetch_add(&word, 1);
	}
	return fake_now;
}

static void clock_at(int64_t now, int64_t step)
{
	fake_now = now;
	fake_step = step;
	bump_at = 0;
}

/* a poll state whose thread measured one 20 us wake-up (the idle VM) */
static struct nvl_idle_poll dear(void)
{
	struct nvl_idle_poll p = {.clock = fake_clock};

	clock_at(1000000, 0);
	nvl_idle_poll_woken(&p, fake_now - 20000);
	assert_int_equal(p.wake_ns, 20000 / 4);
	return p;
}

static int setup(void **state)
{
	(void)state;
	nvl_cpu_poll_test_set(2, 1); /* two CPUs, only the caller runs */
	atomic_store(&word, 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	nvl_cpu_poll_test_set(-1, 0);
	return 0;
}

static void cold_or_cheap_does_not_poll(void **state)
{
	struct nvl_idle_poll p = {.clock = fake_clock};

	/* zero-initialised: nothing measured yet */
	atomic_store(&word, 1);
	assert_false(nvl_idle_poll(&p, &word, 0));
	assert_int_equal(p.polls, 0);
	/* cheap wake-ups (2 us, a busy machine) never reach the threshold */
	clock_at(1000000, 0);
	for (int i = 0; i < 20; i++)
		nvl_idle_poll_woken(&p, fake_now - 2000);
	assert_true(p.wake_ns < NVL_IDLE_POLL_WAKE_NS);
	assert_false(nvl_idle_poll(&p, &word, 0));
	assert_int_equal(p.polls, 0);
	/* a stale kick (an earlier sleep's) is not a measurement */
	nvl_idle_poll_woken(&p, fake_now - 2 * NVL_IDLE_POLL_MAX_NS);
	assert_true(p.wake_ns < NVL_IDLE_POLL_WAKE_NS);
	assert_false(nvl_idle_poll(&p, &word, 0));
	/* nor is an unknown one */
	nvl_idle_poll_woken(&p, 0);
	assert_false(nvl_idle_poll(&p, &word, 0));
	assert_int_equal(p.polls, 0);
}

static void busy_machine_does_not_poll(void **state)
{
	struct nvl_idle_poll p = dear();

	atomic_store(&word, 1);
	nvl_cpu_poll_test_set(2, 3); /* one runnable thread waits for a CPU */
	assert_false(nvl_idle_poll(&p, &word, 0));
	nvl_cpu_poll_test_set(1, 1); /* one CPU */
	assert_false(nvl_idle_poll(&p, &word, 0));
	assert_int_equal(p.polls, 0);
	/* a refusal does not use up a cool-down */
	p.cool = 3;
	assert_false(nvl_idle_poll(&p, &word, 0));
	assert_int_equal(p.cool, 3);
	nvl_cpu_poll_test_set(2, 1);
	p.cool = 0;
	assert_true(nvl_idle_poll(&p, &word, 0));
}

static void ends_when_the_word_moves(void **state)
{
	struct nvl_idle_poll p = dear();
	int64_t t0;

	/* moved before the poll: caught at the first look */
	atomic_store(&word, 1);
	clock_at(2000000, 100);
	assert_true(nvl_idle_poll(&p, &word, 0));
	assert_int_equal(p.polls, 1);
	assert_int_equal(p.hits, 1);
	/* caught 100 ns after the start: the budget stays near the minimum */
	assert_int_equal(p.budget_ns, NVL_IDLE_POLL_MIN_NS + 2 * 100 / 4);

	/* moved during the poll: it ends within one clock check of it */
	p.budget_ns = NVL_IDLE_POLL_MAX_NS;
	clock_at(3000000, 100);
	t0 = fake_now + 100;
	bump_at = t0 + 8000;
	assert_true(nvl_idle_poll(&p, &word, 1));
	assert_int_equal(atomic_load(&word), 2);
	assert_true(fake_now - t0 <= 8000 + 2 * 100);
	assert_int_equal(p.hits, 2);
	/* pulled from 50 us towards twice the 8 us it took */
	assert_true(p.budget_ns < NVL_IDLE_POLL_MAX_NS);
	assert_true(p.budget_ns > 2 * 8000);

	/* the real clock: a word that moved is seen as well */
	p.clock = NULL;
	assert_true(nvl_idle_poll(&p, &word, 0));
	assert_int_equal(p.hits, 3);
}

static void budget_is_learnt(void **state)
{
	struct nvl_idle_poll p = dear();
	int64_t t0;

	/* a miss: the whole budget (the minimum, at first), then halved */
	clock_at(2000000, 100);
	assert_false(nvl_idle_poll(&p, &word, 0));
	assert_int_equal(p.polls, 1);
	assert_int_equal(p.hits, 0);
	assert_true(fake_now - 2000000 >= NVL_IDLE_POLL_MIN_NS);
	assert_int_equal(p.budget_ns, NVL_IDLE_POLL_MIN_NS);
	t0 = p.t0;
	assert_true(t0 > 2000000);
	/* the kick came 20 us after the poll's start: budget 25 us */
	clock_at(t0 + 30000, 0);
	nvl_idle_poll_woken(&p, t0 + 20000);
	assert_int_equal(p.budget_ns, 20000 * 5 / 4);
	assert_int_equal(p.t0, 0);
	/* and it cost 10 us against the 5 us measured before */
	assert_int_equal(p.wake_ns, 5000 + (10000 - 5000) / 4);

	/* the next miss lasts the learnt budget, and halves it */
	clock_at(3000000, 100);
	assert_false(nvl_idle_poll(&p, &word, 0));
	assert_true(fake_now - 3000000 >= 25000);
	assert_true(fake_now - 3000000 < 25000 + 2 * 100);
	assert_int_equal(p.budget_ns, 25000 / 2);
	/* a kick that came long after the poll teaches nothing */
	t0 = p.t0;
	clock_at(t0 + 200000, 0);
	nvl_idle_poll_woken(&p, t0 + 150000);
	assert_int_equal(p.budget_ns, 25000 / 2);
	/* one within the cap grows it up to the cap at most */
	clock_at(4000000, 100);
	assert_false(nvl_idle_poll(&p, &word, 0));
	t0 = p.t0;
	clock_at(t0 + 46000, 0);
	nvl_idle_poll_woken(&p, t0 + 45000);
	assert_int_equal(p.budget_ns, NVL_IDLE_POLL_MAX_NS);
}

static void lost_cpu_cools_down(void **state)
{
	struct nvl_idle_poll p = dear();
	int64_t budget, polls;

	/* every clock check comes 6 us after the previous one: another
	 * thread ran on this CPU meanwhile */
	clock_at(2000000, NVL_IDLE_POLL_GAP_NS + 1000);
	p.budget_ns = 20000;
	assert_false(nvl_idle_poll(&p, &word, 0));
	/* once is not enough (an idle vCPU stalls now and then) */
	assert_int_equal(p.busy, 1);
	assert_int_equal(p.cool, 0);
	assert_int_equal(p.budget_ns, 20000);
	/* a poll that kept its CPU forgets it */
	clock_at(3000000, 100);
	assert_false(nvl_idle_poll(&p, &word, 0));
	assert_int_equal(p.busy, 0);
	budget = p.budget_ns;
	assert_int_equal(budget, 10000);
	/* twice in a row: minimum budget, and a cool-down */
	for (int i = 0; i < 2; i++) {
		clock_at(4000000 + i * 1000000, NVL_IDLE_POLL_GAP_NS + 1000);
		assert_false(nvl_idle_poll(&p, &word, 0));
	}
	assert_int_equal(p.cool, NVL_IDLE_POLL_COOL);
	assert_int_equal(p.budget_ns, NVL_IDLE_POLL_MIN_NS);
	assert_int_equal(p.t0, 0); /* nothing to learn from the next kick */
	/* the next NVL_IDLE_POLL_COOL idle periods sleep at once, even
	 * with the word moved */
	atomic_store(&word, 1);
	polls = (int64_t)p.polls;
	for (int i = 0; i < NVL_IDLE_POLL_COOL; i++)
		assert_false(nvl_idle_poll(&p, &word, 0));
	assert_int_equal(p.polls, polls);
	assert_int_equal(p.cool, 0);
	/* then polling resumes */
	clock_at(7000000, 100);
	assert_true(nvl_idle_poll(&p, &word, 0));
	assert_int_equal(p.polls, polls + 1);
	assert_int_equal(p.busy, 0);
}

static void resample_sleeps_once_after_a_streak(void **state)
{
	struct nvl_idle_poll p = dear();
	int64_t polls;

	/* without resample (the firmware thread's): polls hit for ever */
	atomic_store(&word, 1);
	clock_at(2000000, 100);
	for (int i = 0; i < 100; i++)
		assert_true(nvl_idle_poll(&p, &word, 0));
	/* with it: after 4 hits in a row, one idle period sleeps */
	p.resample = 4;
	p.streak = 0;
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 4; i++)
			assert_true(nvl_idle_poll(&p, &word, 0));
		polls = (int64_t)p.polls;
		assert_false(nvl_idle_poll(&p, &word, 0));
		assert_int_equal(p.polls, polls); /* slept without polling */
		assert_int_equal(p.t0, 0);
	}
	/* a measuring sleep that found a wake-up still dear: the next one
	 * after twice as many hits (at most NVL_IDLE_POLL_RESAMPLE_MAX times
	 * as many); a cheap one: back to every 4 */
	clock_at(2500000, 0);
	nvl_idle_poll_woken(&p, fake_now - 30000);
	assert_int_equal(p.gap, 8);
	clock_at(2600000, 100);
	for (int i = 0; i < 8; i++)
		assert_true(nvl_idle_poll(&p, &word, 0));
	assert_false(nvl_idle_poll(&p, &word, 0));
	for (int i = 0; i < 10; i++) {
		nvl_idle_poll_woken(&p, fake_now - 30000);
		p.sampling = true;
	}
	assert_int_equal(p.gap, 4 * NVL_IDLE_POLL_RESAMPLE_MAX);
	nvl_idle_poll_woken(&p, fake_now - 1000);
	assert_int_equal(p.gap, 4);
	/* a wake-up after an ordinary sleep changes nothing */
	nvl_idle_poll_woken(&p, fake_now - 30000);
	assert_int_equal(p.gap, 4);
	clock_at(2700000, 100);
	p.streak = 0;
	/* a miss breaks the streak */
	assert_true(nvl_idle_poll(&p, &word, 0));
	assert_true(nvl_idle_poll(&p, &word, 0));
	assert_false(nvl_idle_poll(&p, &word, 1));
	assert_int_equal(p.streak, 0);
	/* and a cheap wake-up measured meanwhile ends the polling */
	for (int i = 0; i < 20; i++) {
		clock_at(3000000 + i * 100000, 0);
		nvl_idle_poll_woken(&p, fake_now - 1500);
	}
	polls = (int64_t)p.polls;
	assert_false(nvl_idle_poll(&p, &word, 0));
	assert_int_equal(p.polls, polls);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_setup_teardown(cold_or_cheap_does_not_poll, setup,
					teardown),
	cmocka_unit_test_setup_teardown(busy_machine_does_not_poll, setup,
					teardown),
	cmocka_unit_test_setup_teardown(ends_when_the_word_moves, setup,
					teardown),
	cmocka_unit_test_setup_teardown(budget_is_learnt, setup, teardown),
	cmocka_unit_test_setup_teardown(lost_cpu_cools_down, setup, teardown),
	cmocka_unit_test_setup_teardown(resample_sleeps_once_after_a_streak,
					setup, teardown),
};

T_MAIN(tests)

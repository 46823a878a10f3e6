// SPDX-License-Identifier: MIT
/*
 * TEST: clock
 * Description: the cheap monotonic clock (base/clock.h) never goes back,
 * also across its one calibration; after it, it counts the same ns as
 * CLOCK_MONOTONIC (a span measured on both agrees within 0.1% and a few
 * microseconds, each read bracketed by two CLOCK_MONOTONIC reads so that a
 * preemption widens the bracket instead of failing the test); a raw stamp
 * (nvl_tsc_read()) converts back to the CLOCK_MONOTONIC time it was taken
 * at. No speed is asserted.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>

#include "t.h"
#include "base/clock.h"
#include "base/time.h"

static void sleep_ms(int ms)
{
	struct timespec ts = {.tv_sec = 0, .tv_nsec = ms * 1000000l};

	nanosleep(&ts, NULL);
}

/* @ns within [lo - tol, hi + tol], tol 0.1% of @span plus 5 us */
static void assert_near(int64_t ns, int64_t lo, int64_t hi, int64_t span)
{
	int64_t tol = span / 1000 + 5 * NVL_NSEC_PER_USEC;

	assert_true(ns >= lo - tol);
	assert_true(ns <= hi + tol);
}

static void monotonic_across_calibration(void **state)
{
	int64_t start = nvl_time_ns(), last = nvl_clock_ns(), now;
	unsigned long reads = 0;

	(void)state;
	/* until calibrated (a TSC clocksource) or well past the time */
	while (nvl_time_ns() - start < 4 * NVL_CLOCK_CAL_NS) {
		now = nvl_clock_ns();
		assert_true(now >= last);
		last = now;
		reads++;
		if (atomic_load(&nvl_clock_state) == 2)
			break;
		if (reads % 1024 == 0)
			sleep_ms(1);
	}
	if (nvl_tsc_on())
		assert_int_equal(atomic_load(&nvl_clock_state), 2);
	for (int i = 0; i < 100000; i++) {
		now = nvl_clock_ns();
		assert_true(now >= last);
		last = now;
	}
}

static void counts_ns(void **state)
{
	int64_t t1, t2, t3, t4, c1, c2;

	(void)state;
	/* calibrated first (the previous case) or on CLOCK_MONOTONIC */
	while (nvl_tsc_on() && atomic_load(&nvl_clock_state) != 2) {
		sleep_ms(5);
		(void)nvl_clock_ns();
	}
	for (int i = 0; i < 3; i++) {
		t1 = nvl_time_ns();
		c1 = nvl_clock_ns();
		t2 = nvl_time_ns();
		sleep_ms(20);
		t3 = nvl_time_ns();
		c2 = nvl_clock_ns();
		t4 = nvl_time_ns();
		/* c2 - c1 lies between t3 - t2 and t4 - t1 */
		assert_near(c2 - c1, t3 - t2, t4 - t1, t4 - t1);
	}
	/* and it reads as CLOCK_MONOTONIC, drifting by the rate's error */
	t1 = nvl_time_ns();
	c1 = nvl_clock_ns();
	t2 = nvl_time_ns();
	assert_near(c1, t1, t2,
		    atomic_load(&nvl_clock_state) == 2 ? t2 - nvl_clock_cal.ns
						       : 0);
}

static void raw_stamp_converts_back(void **state)
{
	int64_t t1, t2, ns;
	uint64_t raw;

	(void)state;
	t1 = nvl_time_ns();
	raw = nvl_tsc_read();
	t2 = nvl_time_ns();
	sleep_ms(10);
	ns = nvl_tsc_to_mono_ns(raw);
	assert_near(ns, t1, t2, nvl_time_ns() - t1);
	/* a stamp from the future reads as now */
	t1 = nvl_time_ns();
	ns = nvl_tsc_to_mono_ns(nvl_tsc_read() + (nvl_tsc_on() ? 1000000 : 0));
	t2 = nvl_time_ns();
	if (nvl_tsc_on())
		assert_near(ns, t1, t2, 0);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(monotonic_across_calibration),
	cmocka_unit_test(counts_ns),
	cmocka_unit_test(raw_stamp_converts_back),
};

T_MAIN(tests)

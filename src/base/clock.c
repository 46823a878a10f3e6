// SPDX-License-Identifier: MIT
/*
 * DOC: the cheap monotonic clock (see clock.h)
 *
 * Replaces the two copies of a TSC clock (the model's engine busy time,
 * fence signal timestamps) with one. At load a constructor reads the
 * kernel's clocksource and, when it is the TSC, takes the anchor: a
 * CLOCK_MONOTONIC time and the TSC around it. The first nvl_clock_ns()
 * at least NVL_CLOCK_CAL_NS later measures the rate over that span and
 * publishes it (state 0 -> 1 -> 2, once, by whichever caller wins the
 * compare-and-swap); until then, and on other clocksources, nvl_clock_ns()
 * is nvl_time_ns(). The clock continues from the calibration's own sample,
 * so it does not step there. A sample whose two TSC reads lie far apart
 * (the thread lost its CPU between them) is not used.
 */
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "base/time.h"

/* a sample's TSC reads further apart than this: not used */
#define SAMPLE_MAX_TICKS 2000

bool nvl_clock_tsc;
_Atomic int nvl_clock_state;
struct nvl_clock_cal nvl_clock_cal;

static uint64_t tsc0;
static int64_t ns0;

#if NVL_HAVE_TSC
/* CLOCK_MONOTONIC and the TSC at the same moment; false if unsure */
static bool sample(int64_t *ns, uint64_t *tsc)
{
	uint64_t a = __rdtsc(), b;

	*ns = nvl_time_ns();
	b = __rdtsc();
	*tsc = a + (b - a) / 2;
	return b >= a && b - a <= SAMPLE_MAX_TICKS;
}

__attribute__((constructor)) static void clock_init(void)
{
	FILE *fp = fopen("/sys/devices/system/clocksource/clocksource0/"
			 "current_clocksource",
			 "re");
	char buf[32] = "";
	bool tsc;

	if (!fp)
		return;
	tsc = fgets(buf, sizeof(buf), fp) && !strncmp(buf, "tsc", 3);
	fclose(fp);
	if (!tsc)
		return;
	for (int i = 0; i < 8; i++) {
		if (sample(&ns0, &tsc0)) {
			nvl_clock_tsc = true;
			return;
		}
	}
}
#endif

uint64_t nvl_tsc_read_slow(void)
{
	return (uint64_t)nvl_time_ns();
}

int64_t nvl_tsc_to_mono_ns(uint64_t t)
{
	int64_t now = nvl_time_ns();
	uint64_t tn;
	double rate;

	if (!nvl_tsc_on())
		return (int64_t)t;
	tn = nvl_tsc_read();
	if (tn <= tsc0 || now <= ns0)
		return now;
	rate = (double)(now - ns0) / (double)(tn - tsc0);
	if (t >= tn)
		return now;
	return now - (int64_t)((double)(tn - t) * rate);
}

int64_t nvl_clock_ns_slow(void)
{
#if NVL_HAVE_TSC
	int64_t now;
	uint64_t t;
	int st = 0;

	if (!nvl_clock_tsc)
		return nvl_time_ns();
	if (!sample(&now, &t) || now - ns0 < NVL_CLOCK_CAL_NS || t <= tsc0 ||
	    !atomic_compare_exchange_strong(&nvl_clock_state, &st, 1))
		return now;
	nvl_clock_cal.tsc = t;
	nvl_clock_cal.ns = now;
	nvl_clock_cal.mult =
		(uint64_t)(((unsigned __int128)(now - ns0) << 32) / (t - tsc0));
	atomic_store_explicit(&nvl_clock_state, 2, memory_order_release);
	return now;
#else
	return nvl_time_ns();
#endif
}

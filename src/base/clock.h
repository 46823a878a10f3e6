/* SPDX-License-Identifier: MIT */
/*
 * A cheap monotonic clock in nanoseconds, for stamps and durations.
 *
 * clock_gettime() costs 25-40 ns on this kind of virtual machine (more when
 * the CPUs are busy), a few times a TSC read. Where the kernel itself uses
 * the TSC as its clocksource (so it is invariant and synchronised between
 * CPUs), nvl_clock_ns() reads the TSC and scales it by a rate measured
 * once, NVL_CLOCK_CAL_NS after the library was loaded (before that, and
 * without a TSC clocksource, it is CLOCK_MONOTONIC itself). It is
 * monotonic and counts in ns, but may drift from CLOCK_MONOTONIC by the
 * rate's error (a few ppm): use it for time stamps compared with each other
 * (a wake-up's cost, an engine's busy time, the model's PTIMER), never for
 * a deadline handed to the kernel or compared with nvl_time_ns().
 *
 * nvl_tsc_read() and nvl_tsc_to_mono_ns() are the raw form, for a stamp
 * that must read as CLOCK_MONOTONIC later (fence signal timestamps).
 */
#ifndef NVL_BASE_CLOCK_H
#define NVL_BASE_CLOCK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define NVL_HAVE_TSC 1
#else
#define NVL_HAVE_TSC 0
#endif

/* How long after load the TSC's rate is measured (its error: ~1 us / this). */
#define NVL_CLOCK_CAL_NS (50 * 1000 * 1000)

/* internal: the calibration, published by nvl_clock_state (release) */
struct nvl_clock_cal {
	uint64_t tsc; /* ticks at ... */
	int64_t ns; /* ... this CLOCK_MONOTONIC time */
	uint64_t mult; /* ns per tick, 32.32 fixed point */
};

extern bool nvl_clock_tsc;
extern _Atomic int nvl_clock_state;
extern struct nvl_clock_cal nvl_clock_cal;

int64_t nvl_clock_ns_slow(void);

/**
 * nvl_tsc_on() - true when nvl_tsc_read() reads the TSC (the kernel's
 * clocksource), false when it reads CLOCK_MONOTONIC ns.
 */
static inline bool nvl_tsc_on(void)
{
	return NVL_HAVE_TSC && nvl_clock_tsc;
}

/**
 * nvl_tsc_read() - a raw stamp: TSC ticks where nvl_tsc_on(), else
 * CLOCK_MONOTONIC ns. Convert with nvl_tsc_to_mono_ns().
 */
uint64_t nvl_tsc_read_slow(void);
static inline uint64_t nvl_tsc_read(void)
{
#if NVL_HAVE_TSC
	if (nvl_clock_tsc)
		return __rdtsc();
#endif
	return nvl_tsc_read_slow();
}

/**
 * nvl_tsc_to_mono_ns() - a stamp of nvl_tsc_read() as CLOCK_MONOTONIC ns.
 * @t: the stamp
 *
 * Scales the stamp's age by the rate measured between the library's load
 * and now (one clock_gettime() and one TSC read), so the result is as
 * exact as the span is long. A stamp from the future reads as now.
 */
int64_t nvl_tsc_to_mono_ns(uint64_t t);

/**
 * nvl_clock_ns() - the cheap monotonic clock (see above), in ns.
 *
 * No allocation, no lock, never blocks.
 */
static inline int64_t nvl_clock_ns(void)
{
#if NVL_HAVE_TSC
	if (atomic_load_explicit(&nvl_clock_state, memory_order_acquire) == 2) {
		int64_t dt = (int64_t)(__rdtsc() - nvl_clock_cal.tsc);

		/* another CPU's TSC a few ticks behind the calibration's */
		if (dt < 0)
			dt = 0;
		return nvl_clock_cal.ns +
		       (int64_t)(((unsigned __int128)dt * nvl_clock_cal.mult) >>
				 32);
	}
#endif
	return nvl_clock_ns_slow();
}

#endif /* NVL_BASE_CLOCK_H */

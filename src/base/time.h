/* SPDX-License-Identifier: MIT */
/* Monotonic time in nanoseconds, the unit of every timeout in nouvelle. */
#ifndef NVL_BASE_TIME_H
#define NVL_BASE_TIME_H

#include <time.h>
#include "compiler.h"

#define NVL_NSEC_PER_SEC 1000000000ll
#define NVL_NSEC_PER_MSEC 1000000ll
#define NVL_NSEC_PER_USEC 1000ll
/** A timeout that never expires. */
#define NVL_TIMEOUT_INFINITE INT64_MAX

/** nvl_time_ns() - CLOCK_MONOTONIC now, in ns. */
static inline int64_t nvl_time_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NVL_NSEC_PER_SEC + ts.tv_nsec;
}

/** nvl_ns_to_timespec() - absolute monotonic ns to a timespec. */
static inline struct timespec nvl_ns_to_timespec(int64_t ns)
{
	struct timespec ts = {.tv_sec = ns / NVL_NSEC_PER_SEC,
			      .tv_nsec = ns % NVL_NSEC_PER_SEC};
	return ts;
}

/** nvl_deadline_after() - now + @rel_ns, saturating at infinite. */
static inline int64_t nvl_deadline_after(int64_t rel_ns)
{
	int64_t now = nvl_time_ns();

	if (rel_ns >= NVL_TIMEOUT_INFINITE - now)
		return NVL_TIMEOUT_INFINITE;
	return now + rel_ns;
}

#endif /* NVL_BASE_TIME_H */

// SPDX-License-Identifier: MIT
/*
 * DOC: Is a CPU free (see cpufree.h)
 *
 * The kernel tells how many threads are runnable in the whole system, on
 * every CPU, in the fourth field of /proc/loadavg ("running/total"; the
 * reader counts itself). Reading it costs ~1.5 us (open, read, close: no fd
 * is kept, so a program that counts its fds sees none of ours), so one
 * sample serves every caller for SAMPLE_NS: the caller that finds it stale
 * claims the refresh with a compare-and-swap on its time; the others use
 * the old figure. The machine's load changes slowly next to that; a poll
 * that lost its CPU for another program's time slice anyway reports it
 * and stops polling for a while (nvl_poll_lost_cpu_until()).
 *
 * The count is of one instant, and the pollers it is asked for are in it:
 * on two CPUs, a submitter polling for its fence and the runlist thread
 * polling for the next doorbell read 2, and any third thread runnable at
 * that instant (the scheduler's housekeeper, awake for a few us every
 * 250 us while jobs finish; a kernel thread; a shell) reads 3 and turned
 * every poll off for the next millisecond. On the idle 2-vCPU VM 7-14 %
 * of the samples of an exec_latency run read 3 or more, each costing
 * ~150 execs a dear wake-up (session 14). So the figure used is the
 * smaller of the last two samples: a third thread that stays runnable
 * (another program's work) turns polling off within two samples, one
 * that only passed by does not.
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cpufree.h"
#include "base/clock.h"
#include "base/idlepoll.h"
#include "base/time.h"

#define SAMPLE_NS (1 * NVL_NSEC_PER_MSEC)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int online; /* CPUs online, 0: never poll */
static atomic_int test_cpus = -1;
static _Atomic int64_t sample_at; /* 0: never sampled */
/* the last sample and the one before (-1: unknown, never poll) */
static atomic_int sample_running = -1, sample_prev = -1;
static _Atomic int64_t backoff_until;
static atomic_int pollers;

static void init(void)
{
	const char *e = getenv("NVL_POLL");
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (e && !strcmp(e, "0"))
		return;
	online = n > 1 ? (int)(n < 4096 ? n : 4096) : 0;
}

/* Runnable threads in the system now, -1 when the kernel does not say. */
static int read_running(void)
{
	char buf[128], *p = buf;
	int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
	ssize_t len;
	long v;

	if (fd < 0)
		return -1;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -1;
	buf[len] = '\0';
	/* "0.12 0.34 0.56 3/107 6872": the field after the third space */
	for (int spaces = 0; spaces < 3; p++) {
		if (!*p)
			return -1;
		if (*p == ' ')
			spaces++;
	}
	v = strtol(p, &p, 10);
	return *p == '/' && v > 0 && v < 1000000 ? (int)v : -1;
}

/* a new sample: the last one becomes the one before (one writer at a
 * time: the refresher the CAS on the time chose, or a test) */
static void sample_push(int running)
{
	atomic_store_explicit(
		&sample_prev,
		atomic_load_explicit(&sample_running, memory_order_relaxed),
		memory_order_relaxed);
	atomic_store_explicit(&sample_running, running, memory_order_relaxed);
}

/* the figure used: the smaller of the last two samples (-1: unknown) */
static int sample_figure(void)
{
	int cur = atomic_load_explicit(&sample_running, memory_order_relaxed);
	int prev = atomic_load_explicit(&sample_prev, memory_order_relaxed);

	/* unknown now: unknown; no earlier sample: this one alone */
	if (cur < 0 || prev < 0)
		return cur;
	return cur < prev ? cur : prev;
}

static int running_now(int64_t now)
{
	int64_t at = atomic_load_explicit(&sample_at, memory_order_relaxed);

	if (now - at >= SAMPLE_NS &&
	    atomic_compare_exchange_strong_explicit(&sample_at, &at, now,
						    memory_order_relaxed,
						    memory_order_relaxed))
		sample_push(read_running());
	return sample_figure();
}

/* online CPUs (the test's figure if set); 0 when polling is off */
static int cpus_online(void)
{
	int cpus = atomic_load_explicit(&test_cpus, memory_order_relaxed);

	if (cpus < 0) {
		pthread_once(&once, init);
		cpus = online;
	}
	return cpus;
}

/* a CPU for every runnable thread, the caller (one of them) included */
static NVL_HOT bool cpus_free(int cpus, int64_t now)
{
	int running = atomic_load_explicit(&test_cpus, memory_order_relaxed) < 0
			      ? running_now(now)
			      : sample_figure();

	return cpus >= 2 && running >= 1 && running <= cpus;
}

NVL_HOT bool nvl_cpus_free(void)
{
	return cpus_free(cpus_online(), nvl_clock_ns());
}

NVL_HOT bool nvl_cpu_poll_begin(void)
{
	int cpus = cpus_online();
	int slots;
	int64_t now;

	if (cpus < 2)
		return false;
	now = nvl_clock_ns();
	if (now < atomic_load_explicit(&backoff_until, memory_order_relaxed))
		return false;
	if (!cpus_free(cpus, now))
		return false;
	slots = cpus - 1;
	if (atomic_fetch_add_explicit(&pollers, 1, memory_order_relaxed) >=
	    slots) {
		atomic_fetch_sub_explicit(&pollers, 1, memory_order_relaxed);
		return false;
	}
	return true;
}

void nvl_cpu_poll_end(int64_t lost_ns)
{
	int64_t now;

	atomic_fetch_sub_explicit(&pollers, 1, memory_order_relaxed);
	if (lost_ns < NVL_POLL_LOST_CPU_NS)
		return;
	now = nvl_clock_ns();
	atomic_store_explicit(&backoff_until,
			      nvl_poll_lost_cpu_until(now, lost_ns),
			      memory_order_relaxed);
}

NVL_HOT bool nvl_cpu_follow(struct nvl_cpu_follow *f, int cpu, int64_t wake_ns,
			    bool outwaited)
{
	pthread_t self = pthread_self();
	cpu_set_t mask, one;
	int64_t now;

	if (cpu < 0 || cpu >= CPU_SETSIZE || wake_ns < NVL_CPU_FOLLOW_WAKE_NS)
		return false;
	now = nvl_clock_ns();
	if (f->next_ns && now < f->next_ns)
		return false;
	if (sched_getcpu() == cpu || cpus_online() < 2 ||
	    (!outwaited && nvl_cpus_free()))
		return false;
	f->next_ns = now + NVL_CPU_FOLLOW_GAP_NS;
	if (pthread_getaffinity_np(self, sizeof(mask), &mask) ||
	    !CPU_ISSET(cpu, &mask))
		return false;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (pthread_setaffinity_np(self, sizeof(one), &one))
		return false;
	/* back to the whole mask (it holds the CPU the thread now runs
	 * on, so it cannot be refused): the thread stays where it is */
	(void)pthread_setaffinity_np(self, sizeof(mask), &mask);
	f->moves++;
	return true;
}

void nvl_cpu_poll_test_set(int ncpus, int running)
{
	atomic_store(&backoff_until, 0);
	atomic_store(&sample_at, 0);
	atomic_store(&sample_prev, -1);
	atomic_store(&sample_running, ncpus < 0 ? -1 : running);
	atomic_store(&test_cpus, ncpus < 0 ? -1 : ncpus);
}

void nvl_cpu_poll_test_sample(int running)
{
	sample_push(running);
}

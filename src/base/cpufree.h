/* SPDX-License-Identifier: MIT */
/*
 * Is a CPU free for a thread that would rather poll than sleep?
 *
 * Waking a sleeping thread costs little on a busy machine and a lot (~10 us)
 * on a virtual machine whose host halts idle vCPUs. A waiter that polls
 * for a short, bounded time instead of sleeping keeps its CPU awake and
 * saves its own wake-up, but only when a CPU is free for it: on a busy
 * machine it steals the CPU the work it waits for needs. This file answers
 * the question cheaply and limits how many threads poll at once.
 */
#ifndef NVL_BASE_CPUFREE_H
#define NVL_BASE_CPUFREE_H

#include <stdbool.h>

/**
 * nvl_cpus_free() - is there a CPU for every runnable thread?
 *
 * True when more than one CPU is online and the kernel's count of runnable
 * threads in the whole system (/proc/loadavg, the caller included; the
 * same shared sample as nvl_cpu_poll_begin(), at most once a millisecond)
 * is at most the number of online CPUs. For a thread that manages its own
 * bounded poll (the GSP reply wait, the model's firmware thread); no slot
 * is taken. No allocation, no lock, never blocks; false with NVL_POLL=0.
 */
bool nvl_cpus_free(void);

/**
 * nvl_cpu_poll_begin() - claim a CPU to poll on, if one is free.
 *
 * True when (a) more than one CPU is online, (b) the kernel's count of
 * runnable threads in the whole system (/proc/loadavg, sampled at most once
 * a millisecond by whichever caller finds the sample stale, ~1.5 us)
 * leaves a CPU for every runnable thread besides the caller, (c) no poller
 * was preempted in the last millisecond (nvl_cpu_poll_end()) and (d)
 * fewer than (online CPUs - 1) threads of the process poll now, so one CPU
 * is always left for the thread that will end the poll. No allocation, no
 * lock, never blocks. NVL_POLL=0 in the environment turns polling off.
 *
 * Return: true with a slot taken (give it back with nvl_cpu_poll_end()),
 * false when the caller should sleep at once.
 */
bool nvl_cpu_poll_begin(void);

/**
 * nvl_cpu_poll_end() - give back the slot of nvl_cpu_poll_begin().
 * @preempted: the poll lost its CPU to another thread and missed what it
 *	polled for: no CPU was free after all, so every poll is refused for
 *	the next millisecond.
 */
void nvl_cpu_poll_end(bool preempted);

/**
 * nvl_cpu_poll_test_set() - for tests: pretend @ncpus online CPUs and
 * @running runnable threads instead of asking the kernel, and clear the
 * preemption back-off; @ncpus < 0 goes back to the kernel's figures.
 */
void nvl_cpu_poll_test_set(int ncpus, int running);

#endif /* NVL_BASE_CPUFREE_H */

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
#include <stdint.h>

/**
 * nvl_cpus_free() - is there a CPU for every runnable thread?
 *
 * True when more than one CPU is online and the kernel's count of runnable
 * threads in the whole system (/proc/loadavg, the caller included; the
 * same shared sample as nvl_cpu_poll_begin(), at most once a millisecond)
 * is at most the number of online CPUs (the smaller of the last two
 * samples: see nvl_cpu_poll_begin()). For a thread that manages its own
 * bounded poll (the GSP reply wait, the model's firmware thread); no slot
 * is taken. No allocation, no lock, never blocks; false with NVL_POLL=0.
 */
bool nvl_cpus_free(void);

/**
 * nvl_cpu_poll_begin() - claim a CPU to poll on, if one is free.
 *
 * True when (a) more than one CPU is online, (b) the kernel's count of
 * runnable threads in the whole system (/proc/loadavg, sampled at most once
 * a millisecond by whichever caller finds the sample stale, ~1.5 us; the
 * smaller of the last two samples, so that a thread that was runnable only
 * at one sample's instant does not count) leaves a CPU for every runnable
 * thread besides the caller, (c) no poller lost its CPU to another
 * program's time slice lately (nvl_cpu_poll_end()) and (d)
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
 * @lost_ns: the longest time the poll lost its CPU (between two looks)
 *	when it missed what it polled for, 0 when it did not. From
 *	NVL_POLL_LOST_CPU_NS on (another program's time slice: no CPU was
 *	free after all) every poll is refused until nvl_poll_lost_cpu_until()
 *	(50 times as long, at most 200 ms). A shorter loss (a thread of
 *	this process or a kernel thread passing by, a virtual CPU's stall
 *	for its host) stops no other poll: the poller itself sleeps.
 *	(Until session 14 any loss over 15 us stopped every poll for 1 ms:
 *	on the idle 2-vCPU VM that refused half of an exec_latency run's
 *	fence polls.)
 */
void nvl_cpu_poll_end(int64_t lost_ns);

/* A wake-up that cost at least this (kick to running) was dear. */
#define NVL_CPU_FOLLOW_WAKE_NS 10000
/* At most one move per this long (ns), per thread. */
#define NVL_CPU_FOLLOW_GAP_NS (2 * 1000 * 1000)

/**
 * struct nvl_cpu_follow - a service thread's moves to its waker's CPU.
 * @next_ns: no move before this time (nvl_clock_ns(); 0: none yet)
 * @moves: moves made (statistics)
 *
 * Zero-initialised it is ready. It belongs to the one thread that calls
 * nvl_cpu_follow() with it.
 */
struct nvl_cpu_follow {
	int64_t next_ns;
	uint64_t moves;
};

/**
 * nvl_cpu_follow() - move the calling thread to the CPU that woke it,
 * when a wake-up across CPUs was dear and no CPU is free.
 * @f: the caller's state
 * @cpu: the CPU the waker ran on when it kicked (sched_getcpu()), -1 when
 *	unknown
 * @wake_ns: what this wake-up cost, kick to running (ns)
 * @outwaited: the caller polled for its whole budget before it slept
 *	and the kick came after that: with a CPU free, polling across CPUs
 *	did not cover this gap, and a sleeper woken across pays the
 *	crossing every time
 *
 * For a thread that sleeps between pieces of work one other thread hands
 * it and then waits for (the model's runlist thread: the submitter rings
 * the doorbell and waits for the fence). On a virtual machine whose vCPUs
 * are all busy, a wake-up that crosses to another vCPU costs tens of
 * microseconds (the kernel's reschedule interrupt through the host), one
 * on the waker's CPU a microsecond or two, since the waker sleeps right
 * after; the kernel keeps a sleeper near its previous CPU, so once the
 * two are apart every hand-off pays the crossing. When @wake_ns is at
 * least NVL_CPU_FOLLOW_WAKE_NS, the caller runs elsewhere than @cpu,
 * nvl_cpus_free() is false (with a CPU free the caller polls instead of
 * sleeping, and crossing is what lets it) or @outwaited says the poll did
 * not cover the gap (on the idle 2-vCPU VM the hand-off on one vCPU,
 * 4-7 us, is then the cheapest path: session 15, docs/faults.md) and no
 * move happened in the last
 * NVL_CPU_FOLLOW_GAP_NS, the thread pins itself to @cpu (the kernel moves
 * it there at once) and gives its CPU mask back at once: it stays there
 * until the kernel's own placement moves it. Nothing is done if @cpu is
 * not in the thread's mask. No allocation, no lock; two system calls when
 * it moves; never on NVL_POLL=0. The kernel may put the thread back
 * across at a later wake-up (on the busy VM it did, every few
 * milliseconds in some runs): the next dear wake-up after the gap moves it
 * again.
 *
 * Return: true when the thread moved.
 */
bool nvl_cpu_follow(struct nvl_cpu_follow *f, int cpu, int64_t wake_ns,
		    bool outwaited);

/**
 * nvl_cpu_poll_test_set() - for tests: pretend @ncpus online CPUs and
 * @running runnable threads instead of asking the kernel, and clear the
 * preemption back-off; @ncpus < 0 goes back to the kernel's figures.
 */
void nvl_cpu_poll_test_set(int ncpus, int running);

/**
 * nvl_cpu_poll_test_sample() - for tests, after nvl_cpu_poll_test_set():
 * a new sample of @running runnable threads, as the next refresh of the
 * kernel's figure would bring (the figure used is the smaller of it and
 * the one before).
 */
void nvl_cpu_poll_test_sample(int running);

#endif /* NVL_BASE_CPUFREE_H */

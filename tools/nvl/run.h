/* SPDX-License-Identifier: MIT */
/*
 * DOC: nvl run, the scenario runner
 *
 * `nvl run WORKLOAD` opens one device, runs a workload on it through the
 * public API (include/nouvelle) for --seconds, checks every byte it wrote,
 * and prints a summary (text or --json). While the workload runs, the
 * calling thread samples the device's sensors and each client's fdinfo
 * every RUN_SAMPLE_NS for the progress bar, the summary's sensor section
 * and --record (record.h's format, drawn by `nvl plot`).
 *
 * cmd_run.c: options, the sampler, the summary. run_lib.c: clients, BOs,
 * exec and waits, the shared helpers below. run_push.c: the copy-class
 * encoder. run_<workload>.c: one workload each. demo_nv.c reuses the
 * workloads for the driver step of `nvl demo`.
 */
#ifndef NVL_TOOL_RUN_H
#define NVL_TOOL_RUN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <nouvelle/nouvelle.h>

#include "base/compiler.h"
#include "record.h"

#define RUN_KIB (1ull << 10)
#define RUN_MIB (1ull << 20)
#define RUN_MAX_CLIENTS 64
#define RUN_MAX_CHANNELS 8
#define RUN_MAX_STATS 40
/* the sampler's period */
#define RUN_SAMPLE_NS 50000000ll
/* waits on the GPU give up after this (a hung model is a failure) */
#define RUN_WAIT_NS 10000000000ll

/** struct run_opts - what the command line asked for */
struct run_opts {
	const char *spec, *fw_version;
	double seconds;
	unsigned int clients, channels;
	uint64_t vram_mib;
	bool json, quiet, no_rebind;
	/* watts to set as the board power limit (0: leave it); thermal
	 * defaults to 40 % of the board's default */
	double power_limit_w;
	const char *record;
};

/** struct run_stat - one line of the summary */
struct run_stat {
	const char *key;
	const char *unit;
	double v;
	bool integer;
};

struct run_client;

/** struct run_ctx - one run: the device, the clock, the results */
struct run_ctx {
	const struct run_opts *o;
	const char *workload;
	struct nvl_device *dev;
	struct nvl_device_info info;
	int64_t t0, deadline;
	atomic_bool stop;
	/* held by the sampler while it reads the device, and by a workload
	 * from nvl_device_suspend() to nvl_device_resume() */
	pthread_mutex_t power_lock;
	pthread_mutex_t lock; /* below */
	struct run_client *clients[RUN_MAX_CLIENTS];
	unsigned int nclients, next_id;
	struct run_stat stats[RUN_MAX_STATS];
	unsigned int nstats;
	int error;
	char failure[320];
	/* sampler */
	FILE *recf;
	struct nvl_rec_writer rec;
	bool rec_ok;
	unsigned int nengines;
	unsigned long samples, sensor_errors;
	double temp_min, temp_max, power_max, power_sum, limit_min;
	double clk_min, clk_max;
	uint64_t throttle_seen;
	int64_t last_sample;
	/* a timeline point one client publishes for another (demo) */
	_Atomic uint64_t shared_point;
};

/** struct run_client - a device client with one VM, channels, a timeline */
struct run_client {
	struct run_ctx *x;
	unsigned int id;
	char name[32];
	struct nvl_client *c;
	uint32_t vm, tl, pb;
	uint32_t chan[RUN_MAX_CHANNELS];
	unsigned int nchan;
	uint32_t *ppb;
	uint64_t point, va_next;
	/* fdinfo engine time at the last sample (ns), UINT64_MAX unknown */
	uint64_t busy_ns[NVL_REC_MAX_ENGINES];
	int64_t busy_t;
	/* declared in the recording */
	bool declared;
};

/* --- run_lib.c --------------------------------------------------------- */

/** run_now() - CLOCK_MONOTONIC in ns. */
int64_t run_now(void);

/**
 * run_ctx_open() - open @o->spec (with @vram_mib of VRAM when non-zero) for
 * @workload; the run ends @o->seconds from now.
 * Return: 0 or a negative errno (nvl_last_error() says why).
 */
int run_ctx_open(struct run_ctx *x, const struct run_opts *o,
		 const char *workload, uint64_t vram_mib);
/** run_ctx_close() - close the device (every client closed first). */
void run_ctx_close(struct run_ctx *x);
/**
 * run_set_power_limit() - set the board power limit to @watts (0: 40 % of
 * the board's default) through a client allowed to change device state;
 * the device must have been opened with NVL_DEVICE_OPEN_ADMIN.
 */
int run_set_power_limit(struct run_ctx *x, double watts);

/** run_should_stop() - the time is up, or a client failed. */
bool run_should_stop(struct run_ctx *x);

/**
 * run_fail() - record the run's first failure and stop every client.
 * Return: @err (a negative errno), for `return run_fail(...)`.
 */
int run_fail(struct run_ctx *x, int err, const char *fmt, ...) NVL_PRINTF(3, 4);

/** run_stat_add() - add @v to the summary value @key (created at 0). */
void run_stat_add(struct run_ctx *x, const char *key, const char *unit,
		  double v);
/** run_stat_set() - set a non-integer summary value. */
void run_stat_set(struct run_ctx *x, const char *key, const char *unit,
		  double v);
/** run_stat_get() - a summary value, 0 when absent. */
double run_stat_get(struct run_ctx *x, const char *key);

/**
 * run_client_open() - a client named @name: a VM, @nchan copy channels, a
 * 256 KiB pushbuffer ring and a timeline syncobj its execs signal.
 * Return: 0 or a negative errno (the run's failure is recorded).
 */
int run_client_open(struct run_ctx *x, const char *name, unsigned int nchan,
		    struct run_client **out);
/** run_client_close() - destroy the client and everything it holds. */
void run_client_close(struct run_client *cl);

/**
 * run_client_unmap_pb() - drop the CPU mapping of the client's pushbuffer
 * ring (a mapped BO cannot move, so cannot be suspended); run_exec() must
 * not run until run_client_map_pb().
 * Return: 0 or a negative errno (recorded).
 */
int run_client_unmap_pb(struct run_client *cl);
/** run_client_map_pb() - map the pushbuffer ring again. */
int run_client_map_pb(struct run_client *cl);

/** run_va() - @size bytes of the client's VA (64 KiB aligned, never reused). */
uint64_t run_va(struct run_client *cl, uint64_t size);

/**
 * run_bo() - a BO of @size in @domains (@preferred first), bound at a new
 * VA (synchronously) unless @va is NULL, CPU-mapped when @cpu is not NULL.
 * Return: 0 or a negative errno (recorded).
 */
int run_bo(struct run_client *cl, uint64_t size, uint32_t domains,
	   uint32_t preferred, uint32_t flags, uint32_t *handle, uint64_t *va,
	   void **cpu);

/**
 * run_exec() - write @n dwords into the next slot of the pushbuffer ring
 * and run them on channel @ch, after @waits; the exec signals the client's
 * timeline at a new point, returned in @point.
 * Return: 0 or a negative errno (recorded).
 */
int run_exec(struct run_client *cl, unsigned int ch, const uint32_t *dw,
	     uint32_t n, const struct nvl_vm_sync *waits, uint32_t n_waits,
	     uint64_t *point);

/** run_wait() - wait for point @point of the client's timeline. */
/**
 * run_exec_sig() - run_exec() that also signals the binary syncobj
 * @binary (0: none), whose status keeps the job's own error (a timeline
 * point's may not).
 */
int run_exec_sig(struct run_client *cl, unsigned int ch, const uint32_t *dw,
		 uint32_t n, const struct nvl_vm_sync *waits, uint32_t n_waits,
		 uint32_t binary, uint64_t *point);
int run_wait(struct run_client *cl, uint64_t point);

/**
 * run_check() - compare @n bytes at @got with @want; on a difference
 * record the failure (naming @what and the first byte) and return -EIO.
 */
int run_check(struct run_ctx *x, const void *got, const void *want, size_t n,
	      const char *what);

/** run_pattern() - fill @n bytes (a multiple of 4) with a pattern of @seed. */
void run_pattern(void *p, size_t n, uint64_t seed);
/** run_pattern_check() - check @n bytes against run_pattern(@seed). */
int run_pattern_check(struct run_ctx *x, const void *p, size_t n, uint64_t seed,
		      const char *what);

/**
 * run_gpu_word() - the word of @seed a workload has the copy engine fill a
 * page with (never 0, so a page the copy engine missed shows).
 */
uint32_t run_gpu_word(uint64_t seed);
/**
 * run_gpu_words_check() - check that the @n 32-bit words at @p all read
 * @want (a page run_gpu_word() filled); on a difference record the failure
 * (naming @what and the first word) and return -EIO.
 */
int run_gpu_words_check(struct run_ctx *x, const uint32_t *p, size_t n,
			uint32_t want, const char *what);

/**
 * run_threads() - run @fn(@x, i, @arg) for i in [0, @n) on @n threads and
 * join them. Return: the first non-zero result.
 */
int run_threads(struct run_ctx *x, unsigned int n,
		int (*fn)(struct run_ctx *x, unsigned int i, void *arg),
		void *arg);

/* --- run_push.c: copy-class methods (clc5b5.h fields, src/hw/ce.h) ----- */

/** run_pb_copy() - copy @len bytes from @src to @dst (VAs); dwords written. */
uint32_t run_pb_copy(uint32_t *p, uint32_t ce_class, uint64_t dst, uint64_t src,
		     uint32_t len);
/** run_pb_fill() - fill @len bytes (a multiple of 4) at @dst with @pattern. */
uint32_t run_pb_fill(uint32_t *p, uint32_t ce_class, uint64_t dst,
		     uint32_t pattern, uint32_t len);

/* --- the workloads (run_<name>.c) -------------------------------------- */

/** struct run_workload - one workload */
struct run_workload {
	const char *name;
	const char *summary;
	/* default --clients, least --clients, default VRAM in MiB (0: chip's) */
	unsigned int clients, min_clients;
	uint64_t vram_mib;
	int (*run)(struct run_ctx *x);
};

int run_sparse(struct run_ctx *x);
int run_oversub(struct run_ctx *x);
int run_multiclient(struct run_ctx *x);
int run_fault(struct run_ctx *x);
int run_hang(struct run_ctx *x);

/** RUN_HANG_TIMEOUT_MS - the job timeout `nvl run hang` opens its device with */
#define RUN_HANG_TIMEOUT_MS 500
int run_thermal(struct run_ctx *x);
int run_suspend(struct run_ctx *x);

/**
 * run_sparse_client() - one client streaming a sparse texture until the run
 * stops (at least @min_tiles tiles). When @signal_sync is non-zero (a
 * timeline syncobj of @cl another client imported), tile t's copy also
 * signals its point t + 1, published in @x->shared_point.
 */
int run_sparse_client(struct run_ctx *x, struct run_client *cl,
		      unsigned int min_tiles, uint32_t signal_sync);

/**
 * run_oversub_client() - @bytes of BOs in @cl (rounded up to whole BOs),
 * rounds of bringing each back, checking every byte and rewriting it,
 * until the run stops (at least @min_rounds rounds after the first fill).
 */
int run_oversub_client(struct run_ctx *x, struct run_client *cl, uint64_t bytes,
		       unsigned int min_rounds);

/**
 * run_copies_client() - copy jobs on every channel of @cl, each checked,
 * until the run stops (at least @min_jobs). When @wait_sync is non-zero (a
 * timeline imported from another client), each job first waits for the
 * newest point published in @x->shared_point.
 */
int run_copies_client(struct run_ctx *x, struct run_client *cl,
		      unsigned int min_jobs, uint32_t wait_sync);

#endif

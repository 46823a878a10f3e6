/* SPDX-License-Identifier: MIT */
/*
 * The GPUs nvl smi and nvl top look at. The model lives in the process,
 * so the tools open their devices themselves: --devices SPECS or
 * $NVL_DEVICES (comma-separated device specs, "model:ad102,model:gh100";
 * default "model"), index 0, 1, ... in that order. Also: a client's
 * fdinfo text parsed into numbers, and the built-in copy load that gives
 * the tools something to watch.
 */
#ifndef NVL_TOOL_GPUS_H
#define NVL_TOOL_GPUS_H

#include <stdbool.h>
#include <stdint.h>

#include "nouvelle/nouvelle.h"

#define NVL_GPUS_MAX 8
#define NVL_GPU_CLIENTS_MAX 64

/** struct nvl_gpu_client - one client's fdinfo, parsed. */
struct nvl_gpu_client {
	uint64_t id;
	char name[64]; /* drm-client-name, or "" */
	bool has_engine; /* drm-engine-copy present */
	uint64_t engine_ns; /* drm-engine-copy */
	unsigned capacity; /* drm-engine-capacity-copy (1 if absent) */
	uint64_t vram_B, gtt_B, cpu_B; /* drm-resident-<region> */
	uint64_t vram_total_B; /* drm-total-vram */
};

/** struct nvl_gpu - an open device. */
struct nvl_gpu {
	unsigned index;
	char spec[64];
	char bus_id[32]; /* nvidia-smi form, 00000000:01:00.0 */
	struct nvl_device *dev;
	struct nvl_device_info info;
};

/** struct nvl_gpus - the devices a tool opened. */
struct nvl_gpus {
	unsigned n;
	struct nvl_gpu gpu[NVL_GPUS_MAX];
};

/**
 * nvl_gpus_open() - open the devices of @specs (NULL: $NVL_DEVICES, then
 * "model"). Return: 0, or a negative errno with a message on stderr
 * (prefixed by @cmd); nothing is left open on failure.
 */
int nvl_gpus_open(struct nvl_gpus *g, const char *specs, const char *cmd);

/**
 * nvl_gpus_specs_valid() - whether @specs (a --devices value) names a
 * device: not empty, not only commas.
 */
bool nvl_gpus_specs_valid(const char *specs);

/** nvl_gpus_close() - close them all. */
void nvl_gpus_close(struct nvl_gpus *g);

/**
 * nvl_gpus_select() - keep the devices @ids names: comma-separated
 * indices or PCI bus ids (00000000:01:00.0 or 0000:01:00.0, any case).
 * Those left out are closed. Return: 0, or -ENOENT naming the id in
 * @bad (room for 64 bytes); @ids naming no GPU at all (",") is -ENOENT
 * too.
 */
int nvl_gpus_select(struct nvl_gpus *g, const char *ids, char *bad);

/**
 * nvl_gpu_clients() - read every client's fdinfo on @gpu.
 * Return: the number filled (at most @max), or a negative errno.
 */
int nvl_gpu_clients(struct nvl_gpu *gpu, struct nvl_gpu_client *c,
		    unsigned max);

/** nvl_fdinfo_parse() - parse fdinfo text @t into @c. */
void nvl_fdinfo_parse(const char *t, struct nvl_gpu_client *c);

/** nvl_now_ns() - CLOCK_MONOTONIC, ns. */
int64_t nvl_now_ns(void);

/* ---- the built-in load ------------------------------------------------- */

struct nvl_load;

/**
 * nvl_load_start() - WORKLOAD on @dev in threads of this process:
 * "copy[:N]" runs N (default 2) clients, each copying 4 MiB buffers on
 * its own channel, back to back (it waits for each copy); "busy[:PCT]"
 * one client whose channel is held PCT % of each 100 ms. Return: 0 or a negative
 * errno (message on stderr, prefixed by @cmd).
 */
int nvl_load_start(struct nvl_device *dev, const char *workload,
		   const char *cmd, struct nvl_load **out);

/**
 * nvl_load_valid() - whether WORKLOAD is well formed, checked before any
 * device is opened; false with a message on stderr, prefixed by @cmd.
 */
bool nvl_load_valid(const char *workload, const char *cmd);

/** nvl_load_stop() - stop and free the load (NULL: no-op). */
void nvl_load_stop(struct nvl_load *l);

#endif

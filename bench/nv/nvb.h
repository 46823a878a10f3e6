/* SPDX-License-Identifier: MIT */
/* What the driver benchmarks (bench/nv) share, through the public API. */
#ifndef NVL_BENCH_NV_NVB_H
#define NVL_BENCH_NV_NVB_H

#include <stdint.h>

#include <nouvelle/nouvelle.h>

#include "bench.h"

/** NVB_VA_PB - where nvb_client_up() binds its 4 KiB pushbuffer. */
#define NVB_VA_PB (16ull << 20)

/**
 * nvb_client_up() - a client of @dev with a VM (16 MiB kernel range at
 * 2^39), a CPU-mapped 4 KiB VRAM pushbuffer bound at NVB_VA_PB whose
 * dword 0 is a NOP header, a copy channel and a syncobj.
 * Return: 0 or the first error (what was made is left for the caller's
 * teardown: destroying the client frees it).
 */
static inline int nvb_client_up(struct nvl_device *dev, struct nvl_client **c,
				uint32_t *vm, uint32_t *pb, uint32_t **ppb,
				uint32_t *ch, uint32_t *sync)
{
	struct nvl_vm_create_args va = {.start = 1ull << 20,
					.end = 1ull << 40,
					.kernel_start = 1ull << 39,
					.kernel_range = 16ull << 20};
	struct nvl_vm_bind_op op = {
		.op = NVL_VM_BIND_OP_MAP, .addr = NVB_VA_PB, .range = 4096};
	int ret;

	ret = nvl_device_client_create(dev, c);
	if (!ret)
		ret = nvl_vm_create(*c, &va, vm);
	if (!ret)
		ret = nvl_bo_create(*c, 4096, NVL_BO_DOMAIN_VRAM, 0,
				    NVL_BO_CPU_VISIBLE, pb);
	if (!ret)
		ret = nvl_bo_map(*c, *pb, (void **)ppb);
	op.handle = *pb;
	if (!ret)
		ret = nvl_vm_bind(*c, *vm, 0, &op, 1, NULL, 0, NULL, 0, 0);
	if (!ret)
		ret = nvl_channel_create(*c, *vm, NVL_ENGINE_COPY, 0, ch);
	if (!ret)
		ret = nvl_syncobj_create(*c, 0, sync);
	if (!ret)
		(*ppb)[0] = 0; /* the universal NOP header */
	return ret;
}

/** NVB_WAIT_NS - how long a benchmark waits for its fences before failing. */
#define NVB_WAIT_NS 5000000000ll

/**
 * nvb_wait() - wait until all @n syncobjs @h of @c are signalled, at most
 * NVB_WAIT_NS. Return: nvl_syncobj_wait()'s.
 */
static inline int nvb_wait(struct nvl_client *c, const uint32_t *h, uint32_t n)
{
	return nvl_syncobj_wait(c, h, NULL, n, nvl_bench_now_ns() + NVB_WAIT_NS,
				n > 1 ? NVL_SYNCOBJ_WAIT_ALL : 0, NULL);
}

#endif /* NVL_BENCH_NV_NVB_H */

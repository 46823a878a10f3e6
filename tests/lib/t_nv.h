/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the driver's end-to-end tests (tests/nv, tests/compute),
 * through the public headers only.
 */
#ifndef NVL_TESTS_T_NV_H
#define NVL_TESTS_T_NV_H

#include <stdint.h>
#include <time.h>

#include <nouvelle/nouvelle.h>

#include "t.h"

/** t_nv_deadline() - the CLOCK_MONOTONIC time @ns from now (waits). */
static inline int64_t t_nv_deadline(int64_t ns)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec + ns;
}

/**
 * t_nv_bo() - a BO of @size bytes in @domain (nvl_bo_create() @bo_flags),
 * mapped for the CPU (*@cpu) and bound at @va of VM @vm with @bind_flags
 * (enum nvl_vm_bind_op_flags) by a synchronous VM_BIND; the test fails on
 * any error.
 * Return: its handle.
 */
static inline uint32_t t_nv_bo(struct nvl_client *c, uint32_t vm, uint64_t size,
			       uint32_t domain, uint32_t bo_flags, uint64_t va,
			       uint32_t bind_flags, void **cpu)
{
	struct nvl_vm_bind_op op = {.op = NVL_VM_BIND_OP_MAP,
				    .flags = bind_flags,
				    .addr = va,
				    .range = size};
	uint32_t h;

	assert_int_equal(nvl_bo_create(c, size, domain, 0, bo_flags, &h), 0);
	assert_int_equal(nvl_bo_map(c, h, cpu), 0);
	op.handle = h;
	assert_int_equal(nvl_vm_bind(c, vm, 0, &op, 1, NULL, 0, NULL, 0, 0), 0);
	return h;
}

/** t_nv_vram_bo() - t_nv_bo() of a CPU-visible VRAM BO, plain binding. */
static inline uint32_t t_nv_vram_bo(struct nvl_client *c, uint32_t vm,
				    uint64_t size, uint64_t va, void **cpu)
{
	return t_nv_bo(c, vm, size, NVL_BO_DOMAIN_VRAM, NVL_BO_CPU_VISIBLE, va,
		       0, cpu);
}

#endif /* NVL_TESTS_T_NV_H */

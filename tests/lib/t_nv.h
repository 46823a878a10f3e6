/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the driver's end-to-end tests (tests/nv, tests/compute),
 * through the public headers only.
 */
#ifndef NVL_TESTS_T_NV_H
#define NVL_TESTS_T_NV_H

#include <stdint.h>

#include <nouvelle/nouvelle.h>

#include "t.h"

/**
 * t_nv_vram_bo() - a CPU-visible VRAM BO of @size bytes, mapped for the CPU
 * (*@cpu) and bound at @va of VM @vm with a synchronous VM_BIND; the test
 * fails on any error.
 * Return: its handle.
 */
static inline uint32_t t_nv_vram_bo(struct nvl_client *c, uint32_t vm,
				    uint64_t size, uint64_t va, void **cpu)
{
	struct nvl_vm_bind_op op = {
		.op = NVL_VM_BIND_OP_MAP, .addr = va, .range = size};
	uint32_t h;

	assert_int_equal(nvl_bo_create(c, size, NVL_BO_DOMAIN_VRAM, 0,
				       NVL_BO_CPU_VISIBLE, &h),
			 0);
	assert_int_equal(nvl_bo_map(c, h, cpu), 0);
	op.handle = h;
	assert_int_equal(nvl_vm_bind(c, vm, 0, &op, 1, NULL, 0, NULL, 0, 0), 0);
	return h;
}

#endif /* NVL_TESTS_T_NV_H */

/* SPDX-License-Identifier: MIT */
/*
 * What the VM benchmarks share: the thread CPU clock, a PRNG, a client with
 * one VM and one BO, a one-op bind through the client API, and a
 * page-table backend that stores nothing.
 */
#ifndef NVL_BENCH_VMB_H
#define NVL_BENCH_VMB_H

#include <time.h>

#include <nouvelle/bo.h>
#include <nouvelle/vm.h>

#include "bench.h"
#include "vm/vm.h"

#define PAGE 4096ull
#define GiB (1ull << 30)
#define BO_SIZE (64ull << 20)

/* a backend whose every call does nothing (vm.c) */
extern const struct nvl_vm_pt_ops nvl_bench_null_pt;

static inline uint64_t xs(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

struct vmb {
	struct nvl_client *c;
	uint32_t vm, bo;
	uint64_t rng, slots;
	long pairs;
};

static inline int vmb_init(struct vmb *b, uint64_t space_B)
{
	struct nvl_vm_create_args a = {.start = 0, .end = space_B};

	b->rng = 88172645463325252ull;
	if (nvl_client_create(&b->c))
		return -1;
	if (nvl_vm_create(b->c, &a, &b->vm) ||
	    nvl_bo_create(b->c, BO_SIZE, NVL_BO_DOMAIN_SYSTEM, 0, 0, &b->bo))
		return -1;
	return 0;
}

static inline int bind1(struct vmb *b, uint32_t op, uint64_t addr,
			uint64_t range, uint64_t off)
{
	struct nvl_vm_bind_op o = {
		.op = op,
		.handle = op == NVL_VM_BIND_OP_MAP ? b->bo : 0,
		.addr = addr,
		.range = range,
		.bo_offset = off,
	};

	return nvl_vm_bind(b->c, b->vm, 0, &o, 1, NULL, 0, NULL, 0, 0);
}

#endif /* NVL_BENCH_VMB_H */

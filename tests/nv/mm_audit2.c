// SPDX-License-Identifier: MIT
/*
 * TEST: the memory manager's leftovers with the VM on a device (session
 * 18's mm audit), each failing before its fix:
 *
 * - a BO without backing (purged, or swapped out by the shrinker) bound
 *   through a vm_bo made after it lost its backing: the bind's commit left
 *   its pages invalid (nothing to map) and nothing put the vm_bo on the
 *   VM's evict list (the eviction hook had run before the vm_bo existed),
 *   so the next exec did not validate it and its job faulted;
 */
#include <errno.h>

#include <nouvelle/nouvelle.h>

#include "core/device.h"
#include "kit.h"
#include "mm/bo.h"
#include "t.h"
#include "t_nv.h"

#define KIB T_NV_KIB
#define MIB T_NV_MIB
#define VA_PB (32 * MIB)
#define VA_SEM (40 * MIB)
#define VA_BO (64 * MIB)
#define FILL 0x5eed5eedu

static uint32_t where(struct nvl_client *c, uint32_t h)
{
	struct nvl_bo_info bi;

	assert_int_equal(nvl_bo_query(c, h, &bi), 0);
	return bi.current;
}

static int bind1(struct nvl_client *c, uint32_t vm, uint32_t op, uint32_t h,
		 uint64_t va, uint64_t size)
{
	struct nvl_vm_bind_op o = {
		.op = op, .handle = h, .addr = va, .range = size};

	return nvl_vm_bind(c, vm, 0, &o, 1, NULL, 0, NULL, 0, 0);
}

/* bind @x (no backing now) at VA_BO, fill it with the copy engine */
static void bind_and_fill(struct t_nv_cl *a, uint32_t x, uint64_t size)
{
	struct nvl_channel_info ci;
	uint32_t n;

	assert_int_equal(bind1(a->c, a->vm, NVL_VM_BIND_OP_MAP, x, VA_BO, size),
			 0);
	n = nvl_kit_pb_memset(a->ppb, a->info.ce_class, VA_BO, FILL, size);
	assert_int_equal(t_nv_cl_exec(a, a->chan, 0, n), 0);
	(void)t_nv_cl_wait(a, 20 * T_NV_SEC);
	assert_int_equal(nvl_channel_query(a->c, a->chan, &ci), 0);
	if (!ci.alive)
		fail_msg("the job faulted at %#llx: the BO bound without "
			 "backing was not validated",
			 (unsigned long long)ci.fault_va);
	t_nv_expect_words(a->c, x, 0, size / 4, FILL, "the BO after the fill");
}

/*
 * 1. A purged BO bound by a new vm_bo: the next exec brings it back
 * (reading zero, then the job's fill), as GPUVM's evict list does for a
 * BO evicted while bound.
 */
static void purged_bo_bound_after_purge(void **state)
{
	struct nvl_device_info info;
	struct nvl_device *dev;
	struct nvl_client *b;
	struct t_nv_cl a;
	uint32_t x, big;
	bool retained;

	(void)state;
	dev = t_nv_dev_open(256 * MIB, &info);
	t_nv_cl_up(&a, dev, VA_PB, 0);
	assert_int_equal(nvl_device_client_create(dev, &b), 0);
	assert_int_equal(nvl_bo_create(a.c, 4 * MIB,
				       NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
				       NVL_BO_DOMAIN_VRAM, NVL_BO_CPU_VISIBLE,
				       &x),
			 0);
	assert_int_equal(where(a.c, x), NVL_BO_DOMAIN_VRAM);
	assert_int_equal(
		nvl_bo_madvise(a.c, x, NVL_BO_MADV_DONTNEED, &retained), 0);
	big = t_nv_vram_hog_all(b, &info);
	assert_int_equal(where(a.c, x), 0);
	assert_int_equal(
		nvl_bo_madvise(a.c, x, NVL_BO_MADV_WILLNEED, &retained), 0);
	assert_false(retained);
	assert_int_equal(nvl_bo_close(b, big), 0);
	bind_and_fill(&a, x, 4 * MIB);
	nvl_client_destroy(b);
	t_nv_cl_close(&a);
	nvl_device_close(dev);
}

/* 1b. the same with a GTT BO the shrinker swapped out */
static void swapped_bo_bound_after_swap_out(void **state)
{
	struct nvl_device_info info;
	struct nvl_device *dev;
	struct t_nv_cl a;
	uint32_t x, *p;

	(void)state;
	dev = t_nv_dev_open(256 * MIB, &info);
	t_nv_cl_up(&a, dev, VA_PB, 0);
	assert_int_equal(nvl_bo_create(a.c, 4 * MIB, NVL_BO_DOMAIN_GTT, 0, 0,
				       &x),
			 0);
	assert_int_equal(nvl_bo_map(a.c, x, (void **)&p), 0);
	p[0] = 0x1234;
	assert_int_equal(nvl_bo_unmap(a.c, x), 0);
	(void)nvl_mm_shrink(dev->mm, 4 * MIB);
	assert_int_equal(where(a.c, x), 0);
	bind_and_fill(&a, x, 4 * MIB);
	t_nv_cl_close(&a);
	nvl_device_close(dev);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(purged_bo_bound_after_purge),
		cmocka_unit_test(swapped_bo_bound_after_swap_out),
	};

	return t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
}

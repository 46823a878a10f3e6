// SPDX-License-Identifier: MIT
/*
 * TEST: nv_vm_audit
 * Description: adversarial review of device VMs (audit 11): VM_BIND on
 * the NVIDIA page tables of a model device when the device is lost or
 * was reset under the VM.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nouvelle/nouvelle.h>

#include "t.h"
#include "base/client.h"
#include "base/log.h"
#include "core/device.h"
#include "model/gsp/gsp.h"
#include "model/model.h"
#include "nv/device.h"
#include "kit.h"
#include "rig.h"
#include "t_nv.h"
#include "vm/vm.h"

static struct nvl_device *open_dev(void)
{
	struct nvl_device_opts o = {.heartbeat_ms = 20};
	struct nvl_device *dev;

	assert_int_equal(nvl_device_open("model:tiny", &o, &dev), 0);
	return dev;
}

/* nvl_vm_dump() of @k's VM, as a string to free */
static char *dump(struct rig *k)
{
	struct nvl_vm *vm = nvl_vm_lookup(k->c, k->vm);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(vm);
	assert_non_null(f);
	assert_int_equal(nvl_vm_dump(vm, f), 0);
	fclose(f);
	nvl_vm_put(vm);
	return buf;
}

static int unmap_dst(struct rig *k, uint32_t flags)
{
	struct nvl_vm_bind_op op = {
		.op = NVL_VM_BIND_OP_UNMAP, .addr = VA_DST, .range = 64 * KIB};

	return nvl_vm_bind(k->c, k->vm, 0, &op, 1, NULL, 0, NULL, 0, flags);
}

/*
 * device.h: a lost device fails every call that needs the GPU with
 * -ENODEV, and objects made before a reset stay dead ("VMs refuse
 * binds"); nvl_vm_bind(): "a failing call changes nothing". A MAP was
 * refused (its page-table get fails), but an UNMAP, which gets nothing,
 * went through: the mapping left the VM, the old tables were written and
 * flushed, and only then did the commit report -ENODEV and ban the VM.
 */
static void binds_on_a_lost_or_reset_device_change_nothing(void **state)
{
	struct nvl_device *dev;
	struct rig a;
	char *before, *after;

	(void)state;
	dev = open_dev();
	rig_up(dev, &a);
	before = dump(&a);
	rig_lose(dev);
	/* lost: sync (the one-op path) and async alike */
	assert_int_equal(unmap_dst(&a, 0), -ENODEV);
	assert_int_equal(unmap_dst(&a, NVL_VM_BIND_ASYNC), -ENODEV);
	after = dump(&a);
	assert_string_equal(before, after);
	free(after);
	/* reset: the VM belongs to the old firmware */
	assert_int_equal(nvl_device_reset(dev), 0);
	assert_int_equal(unmap_dst(&a, 0), -ENODEV);
	after = dump(&a);
	assert_string_equal(before, after);
	free(after);
	free(before);
	rig_down(&a);
	nvl_device_close(dev);
}

#define VA_BO (64 * MIB)
#define DRIVER_VRAM (32 * MIB)

static uint32_t where(struct nvl_client *c, uint32_t h)
{
	struct nvl_bo_info bi;

	assert_int_equal(nvl_bo_query(c, h, &bi), 0);
	return bi.current;
}

/*
 * A BO whose page-table entries point where it no longer is: GPUVM learns
 * of moves through mm's eviction hook and rewrites a vm_bo's mappings at
 * the next exec only if the vm_bo is on its VM's evict list. A BO placed
 * in its fallback (GTT) at creation because VRAM was full, bound there,
 * then moved to its preferred VRAM (nvl_bo_use()) is never listed: the
 * move was not "back from an eviction". The exec's write then went to the
 * GTT pages the BO had left, not to the BO.
 */
static void a_bo_bound_in_its_fallback_follows_its_move(void **state)
{
	struct nvl_device_opts o = {.heartbeat_ms = 0};
	struct nvl_device_info info;
	struct nvl_device *dev;
	struct nvl_client *b;
	struct t_nv_cl a;
	uint32_t hog, x, n;
	void *hp;

	(void)state;
	assert_int_equal(nvl_device_open("model:tu102", &o, &dev), 0);
	assert_int_equal(nvl_device_query(dev, &info), 0);
	t_nv_cl_up(&a, dev, VA_PB, 0);
	/* B holds (almost) all of VRAM, CPU-mapped: it cannot be evicted */
	assert_int_equal(nvl_device_client_create(dev, &b), 0);
	assert_int_equal(
		nvl_bo_create(b, info.vram_usable - DRIVER_VRAM - 4 * MIB,
			      NVL_BO_DOMAIN_VRAM, 0, NVL_BO_CPU_VISIBLE, &hog),
		0);
	assert_int_equal(nvl_bo_map(b, hog, &hp), 0);
	/* A's BO does not fit in VRAM: GTT, and bound there */
	x = t_nv_cl_bo(&a, 8 * MIB, NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
		       VA_BO, NULL);
	assert_int_equal(where(a.c, x), NVL_BO_DOMAIN_GTT);
	/* VRAM comes free; A brings its BO to VRAM */
	assert_int_equal(nvl_bo_unmap(b, hog), 0);
	nvl_client_destroy(b);
	assert_int_equal(nvl_bo_use(a.c, x), 0);
	assert_int_equal(where(a.c, x), NVL_BO_DOMAIN_VRAM);
	/* the GPU writes the BO through A's VM */
	n = nvl_kit_pb_release(a.ppb, VA_BO + 4096, 0x5eed1e55);
	t_nv_cl_run(&a, 0, n, 20 * T_NV_SEC);
	t_nv_expect_words(a.c, x, 1024, 1, 0x5eed1e55,
			  "the word the GPU wrote after the move");
	t_nv_cl_close(&a);
	nvl_device_close(dev);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(binds_on_a_lost_or_reset_device_change_nothing),
	cmocka_unit_test(a_bo_bound_in_its_fallback_follows_its_move),
};

T_MAIN(tests)

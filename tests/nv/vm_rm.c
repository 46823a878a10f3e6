// SPDX-License-Identifier: MIT
/*
 * TEST: nv_vm_rm
 * Description: a device VM's RM VA space, bound the way NVIDIA's RM takes
 * it: FERMI_VASPACE_A allocated IS_EXTERNALLY_OWNED (NV_VASPACE_ALLOCATION_
 * FLAGS_IS_EXTERNALLY_OWNED, bit 3 of nvos.h's flags), the root bound with
 * NV0080_CTRL_CMD_DMA_SET_PAGE_DIRECTORY whose numEntries is every root
 * entry (open-gpu-kernel-modules gpu_vaspace.c
 * gvaspaceExternalRootDirCommit() takes the VA limit from entry
 * numEntries - 1). The model's RM refuses anything else, as NVIDIA's does
 * (tests/gsp/rpc.c vas_rules); here: every chip's VMs, faultable ones too
 * (ENABLE_PAGE_FAULTING needs IS_EXTERNALLY_OWNED: vaspace_api.c
 * translateAllocFlagsToVASpaceFlags()), and a refused root or a failed
 * allocation leaving nothing bound on either side.
 */
#include <errno.h>
#include <string.h>

#include <nouvelle/nouvelle.h>

#include "t.h"
#include "base/log.h"
#include "core/device.h"
#include "gsp/rm.h"
#include "gspabi.h"
#include "model/gsp/gsp.h"
#include "nv/device.h"

#define MIB (1ull << 20)

static struct nvl_vm_create_args vm_args(uint32_t flags)
{
	return (struct nvl_vm_create_args){.start = 1 * MIB,
					   .end = 1ull << 40,
					   .kernel_start = 1ull << 39,
					   .kernel_range = 16 * MIB,
					   .flags = flags};
}

static uint64_t fw_objects(struct nvl_device *dev)
{
	struct nvl_model_gsp_stats ms;

	nvl_model_gsp_get_stats(dev->model, &ms);
	return ms.objects;
}

/* every chip's format (v2 PD3 4 x 2^47; v3 PD4 2 x 2^56), faultable or not:
 * RM takes the VA space, its root and a channel on it */
static void every_chip_binds(void **state)
{
	static const char *const chips[] = {"model:tiny", "model:ga102",
					    "model:gh100"};

	(void)state;
	for (unsigned i = 0; i < NVL_ARRAY_SIZE(chips); i++) {
		for (uint32_t f = 0; f <= NVL_VM_CREATE_FAULTABLE;
		     f += NVL_VM_CREATE_FAULTABLE) {
			struct nvl_vm_create_args va = vm_args(f);
			struct nvl_device *dev;
			struct nvl_client *c;
			uint32_t vm, ch;

			assert_int_equal(nvl_device_open(chips[i], NULL, &dev),
					 0);
			assert_int_equal(nvl_device_client_create(dev, &c), 0);
			assert_int_equal(nvl_vm_create(c, &va, &vm), 0);
			assert_int_equal(nvl_channel_create(c, vm,
							    NVL_ENGINE_COPY, 0,
							    &ch),
					 0);
			assert_int_equal(nvl_channel_destroy(c, ch), 0);
			assert_int_equal(nvl_vm_destroy(c, vm), 0);
			nvl_client_destroy(c);
			nvl_device_close(dev);
		}
	}
}

/*
 * RM refusing the root (the model's REFUSE_CONTROL hook: the control is
 * not run, as a refusal of RM's changes nothing) is the VM create's error,
 * named; the VA space RM made is freed, on the driver's side and the
 * firmware's; the next VM is made as if nothing happened.
 */
static void refused_root_leaves_nothing(void **state)
{
	struct nvl_vm_create_args va = vm_args(0);
	struct nvl_device *dev;
	struct nvl_client *c;
	uint64_t fw0;
	unsigned rm0;
	uint32_t vm = 0;

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", NULL, &dev), 0);
	assert_int_equal(nvl_device_client_create(dev, &c), 0);
	rm0 = nvl_gsp_rm_count(dev->nv->gsp);
	fw0 = fw_objects(dev);
	nvl_model_gsp_inject(
		dev->model, NVL_MODEL_GSP_REFUSE_CONTROL, 1,
		(uint64_t)GSPABI_K_CONTROL_NV0080_CTRL_CMD_DMA_SET_PAGE_DIRECTORY
				<< 32 |
			GSPABI_K_STATUS_NV_ERR_INVALID_ARGUMENT);
	assert_int_equal(nvl_vm_create(c, &va, &vm), -EINVAL);
	assert_non_null(strstr(nvl_error_msg(),
			       "RM refused the VA space's page "
			       "directory"));
	assert_non_null(strstr(nvl_error_msg(), "NV_ERR_INVALID_ARGUMENT"));
	assert_int_equal(nvl_gsp_rm_count(dev->nv->gsp), rm0);
	assert_int_equal(fw_objects(dev), fw0);
	/* the VA space itself refused: the same */
	nvl_model_gsp_inject(dev->model, NVL_MODEL_GSP_ERROR, 1,
			     GSPABI_K_STATUS_NV_ERR_INSUFFICIENT_RESOURCES);
	assert_int_equal(nvl_vm_create(c, &va, &vm), -ENOSPC);
	assert_non_null(strstr(nvl_error_msg(), "RM refused the VA space"));
	assert_int_equal(nvl_gsp_rm_count(dev->nv->gsp), rm0);

	assert_int_equal(nvl_vm_create(c, &va, &vm), 0);
	assert_int_equal(nvl_gsp_rm_count(dev->nv->gsp), rm0 + 1);
	assert_int_equal(nvl_vm_destroy(c, vm), 0);
	nvl_client_destroy(c);
	nvl_device_close(dev);
}

struct af {
	struct nvl_device *dev;
	struct nvl_client *c;
	unsigned rm0;
	uint64_t fw0;
	uint32_t vm;
};

static int op_vm(void *arg)
{
	struct af *a = arg;
	struct nvl_vm_create_args va = vm_args(0);

	return nvl_vm_create(a->c, &va, &a->vm);
}

static void check_vm(int ret, void *arg)
{
	struct af *a = arg;

	assert_int_equal(ret, -ENOMEM);
	assert_int_equal(nvl_gsp_rm_count(a->dev->nv->gsp), a->rm0);
	assert_int_equal(fw_objects(a->dev), a->fw0);
}

/* every allocation on the way to a bound VA space can fail: nothing of
 * it stays in RM */
static void alloc_failures_leave_nothing(void **state)
{
	struct af a = {0};

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", NULL, &a.dev), 0);
	assert_int_equal(nvl_device_client_create(a.dev, &a.c), 0);
	a.rm0 = nvl_gsp_rm_count(a.dev->nv->gsp);
	a.fw0 = fw_objects(a.dev);
	assert_true(t_fail_each_alloc(op_vm, check_vm, &a, 300) > 0);
	assert_int_equal(nvl_gsp_rm_count(a.dev->nv->gsp), a.rm0 + 1);
	assert_int_equal(nvl_vm_destroy(a.c, a.vm), 0);
	nvl_client_destroy(a.c);
	assert_int_equal(fw_objects(a.dev), a.fw0);
	nvl_device_close(a.dev);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(every_chip_binds),
	cmocka_unit_test(refused_root_leaves_nothing),
	cmocka_unit_test(alloc_failures_leave_nothing),
};

T_MAIN(tests)

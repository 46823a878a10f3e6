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
#include <pthread.h>
#include <string.h>

#include <nouvelle/nouvelle.h>

#include "t.h"
#include "base/log.h"
#include "core/device.h"
#include "firmware/abi/535.113.01/gsp.h"
#include "gsp/rm.h"
#include "gspabi.h"
#include "model/gsp/gsp.h"
#include "nv/device.h"
#include "nv/vm.h"
#include "rig.h"
#include "vm/vm.h"

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

/* what the firmware answered, in order: the root's unset and the frees */
struct rmlog {
	pthread_mutex_t lock;
	unsigned n;
	struct {
		uint32_t fn, h;
	} e[64];
};

static void log_reply(void *arg, uint32_t function, uint8_t *reply, size_t len)
{
	struct rmlog *l = arg;
	uint32_t h = 0;

	if (function == NV_VGPU_MSG_FUNCTION_GSP_RM_CONTROL &&
	    len >= sizeof(rpc_gsp_rm_control_v03_00) + 4) {
		rpc_gsp_rm_control_v03_00 rc;

		memcpy(&rc, reply, sizeof(rc));
		if (rc.cmd != NV0080_CTRL_CMD_DMA_UNSET_PAGE_DIRECTORY)
			return;
		memcpy(&h, reply + sizeof(rc), 4); /* hVASpace */
	} else if (function == NV_VGPU_MSG_FUNCTION_FREE &&
		   len >= sizeof(rpc_free_v03_00)) {
		rpc_free_v03_00 fr;

		memcpy(&fr, reply, sizeof(fr));
		h = fr.params.hObjectOld;
	} else {
		return;
	}
	pthread_mutex_lock(&l->lock);
	if (l->n < NVL_ARRAY_SIZE(l->e)) {
		l->e[l->n].fn = function;
		l->e[l->n].h = h;
		l->n++;
	}
	pthread_mutex_unlock(&l->lock);
}

/*
 * A VM's destroy takes the root back (NV0080_CTRL_CMD_DMA_UNSET_PAGE_
 * DIRECTORY, 0x801814, naming the VA space) before it frees the VA space,
 * the order of Nouveau's r535_mmu_vaspace_del(); RM refusing the unset
 * leaves the free to go on: nothing stays in RM.
 */
static void destroy_unsets_root_first(void **state)
{
	struct nvl_vm_create_args va = vm_args(0);
	struct rmlog l = {.lock = PTHREAD_MUTEX_INITIALIZER};
	struct nvl_device *dev;
	struct nvl_client *c;
	uint64_t fw0;
	uint32_t vm;
	unsigned i;

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", NULL, &dev), 0);
	assert_int_equal(nvl_device_client_create(dev, &c), 0);
	fw0 = fw_objects(dev);
	assert_int_equal(nvl_vm_create(c, &va, &vm), 0);
	nvl_model_gsp_set_reply_hook(dev->model, log_reply, &l);
	assert_int_equal(nvl_vm_destroy(c, vm), 0);
	nvl_model_gsp_set_reply_hook(dev->model, NULL, NULL);
	assert_int_equal(fw_objects(dev), fw0);
	/* the unset, then the free of the space it named */
	for (i = 0; i < l.n; i++)
		if (l.e[i].fn == NV_VGPU_MSG_FUNCTION_GSP_RM_CONTROL)
			break;
	if (i == l.n)
		fail_msg("no UNSET_PAGE_DIRECTORY before the VA space's free");
	assert_true(i + 1 < l.n);
	assert_int_equal(l.e[i + 1].fn, NV_VGPU_MSG_FUNCTION_FREE);
	assert_int_equal(l.e[i + 1].h, l.e[i].h);

	/* refused: logged, and the VA space is freed all the same */
	assert_int_equal(nvl_vm_create(c, &va, &vm), 0);
	nvl_model_gsp_inject(
		dev->model, NVL_MODEL_GSP_REFUSE_CONTROL, 1,
		(uint64_t)GSPABI_K_CONTROL_NV0080_CTRL_CMD_DMA_UNSET_PAGE_DIRECTORY
				<< 32 |
			GSPABI_K_STATUS_NV_ERR_INVALID_STATE);
	assert_int_equal(nvl_vm_destroy(c, vm), 0);
	assert_int_equal(fw_objects(dev), fw0);
	nvl_client_destroy(c);
	nvl_device_close(dev);
}

/*
 * A channel of a VA space whose root the client took back translates
 * nothing through it: RM re-points the instance blocks of the space's
 * channels at UNSET_PAGE_DIRECTORY (dma.c deviceCtrlCmdDmaUnsetPage
 * Directory_IMPL(), gvaspaceUnregisterAllChanGrps(); the model marks
 * RAMIN PAGE_DIR_BASE TARGET INVALID). The driver's own order never runs
 * a channel after it (its channels hold their VM), so the test sends the
 * unset itself while the channel lives: the next job's release does not
 * land (the channel fails: CHERR_INSTANCE, RM's recovery) instead of
 * writing through the root the driver could have freed by then.
 */
static void unset_stops_channels(void **state)
{
	struct nvl_device *dev = rig_open_dev(1000);
	struct gspabi_unset_page_directory up = {0};
	struct nvl_nv_vm *v;
	struct nvl_vm *vm;
	struct rig k;
	int st;

	(void)state;
	rig_up(dev, &k);
	assert_int_equal(rig_exec(&k, 0), 0);
	assert_int_equal(rig_status(&k, 0), 1);
	assert_int_equal(k.pdst[0], 0x1000);
	vm = nvl_vm_lookup(k.c, k.vm);
	assert_non_null(vm);
	v = nvl_nv_vm_of(vm);
	assert_non_null(v);
	up.hVASpace = v->h_vas;
	assert_int_equal(
		nvl_gsp_rm_control_abi(
			v->dev->gsp, v->dev->h_device,
			GSPABI_K_CONTROL_NV0080_CTRL_CMD_DMA_UNSET_PAGE_DIRECTORY,
			GSPABI_S_UNSET_PAGE_DIRECTORY, &up),
		0);
	nvl_vm_put(vm);
	assert_int_equal(rig_exec(&k, 1), 0);
	st = rig_status(&k, 1);
	if (st >= 0)
		fail_msg("the job after the unset ended %d: its channel still "
			 "walks the revoked root (wrote %#x)",
			 st, k.pdst[1]);
	assert_int_equal(k.pdst[1], 0);
	rig_down(&k);
	nvl_device_close(dev);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(every_chip_binds),
	cmocka_unit_test(refused_root_leaves_nothing),
	cmocka_unit_test(alloc_failures_leave_nothing),
	cmocka_unit_test(destroy_unsets_root_first),
	cmocka_unit_test(unset_stops_channels),
};

T_MAIN(tests)

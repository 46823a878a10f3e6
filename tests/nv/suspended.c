// SPDX-License-Identifier: MIT
/*
 * TEST: what a client may do to a suspended device, and a device closed
 * under its clients (this morning's audit follow-ups, each failing before
 * its fix):
 *
 * - a VM destroyed while suspended: RM took no call and the VA space
 *   stayed in RM for good (a warning); its free now waits for the resume
 *   (the model's RM object count is back where it was), or for the close
 *   of a device still suspended (no leak: ASan).
 */
#include <errno.h>
#include <string.h>

#include <nouvelle/nouvelle.h>

#include "core/device.h"
#include "model/gsp/gsp.h"
#include "t.h"
#include "t_nv.h"

#define MIB T_NV_MIB

static uint64_t rm_objects(struct nvl_device *dev)
{
	struct nvl_model_gsp_stats st;

	nvl_model_gsp_get_stats(dev->model, &st);
	return st.objects;
}

/* 1. a VM destroyed while suspended leaves RM at the resume */
static void vm_destroyed_while_suspended(void **state)
{
	struct nvl_device *dev;
	struct nvl_client *c;
	uint64_t base;
	uint32_t vm, vm2;

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", NULL, &dev), 0);
	assert_int_equal(nvl_device_client_create(dev, &c), 0);
	base = rm_objects(dev);
	vm = t_nv_vm(c);
	vm2 = t_nv_vm(c);
	assert_true(rm_objects(dev) > base);
	assert_int_equal(nvl_vm_destroy(c, vm2), 0);
	assert_int_equal(nvl_device_suspend(dev), 0);
	assert_int_equal(nvl_vm_destroy(c, vm), 0);
	assert_int_equal(nvl_device_resume(dev), 0);
	assert_int_equal(rm_objects(dev), base);
	/* a new VM works */
	vm = t_nv_vm(c);
	assert_true(rm_objects(dev) > base);
	/* destroyed, and the device closed, while suspended */
	assert_int_equal(nvl_device_suspend(dev), 0);
	assert_int_equal(nvl_vm_destroy(c, vm), 0);
	nvl_client_destroy(c);
	nvl_device_close(dev);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(vm_destroyed_while_suspended),
	};

	return t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
}

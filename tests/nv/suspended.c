// SPDX-License-Identifier: MIT
/*
 * TEST: what a client may do to a suspended device, and a device closed
 * under its clients (this morning's audit follow-ups, each failing before
 * its fix):
 *
 * - a VM destroyed while suspended: RM took no call and the VA space
 *   stayed in RM for good (a warning); its free now waits for the resume
 *   (the model's RM object count is back where it was), or for the close
 *   of a device still suspended (no leak: ASan);
 * - no VRAM placement while suspended (VRAM is lost in D3cold): a VRAM BO
 *   was created (and cleared, and CPU-written) in VRAM, and nvl_bo_use
 *   moved an evicted BO back into it, all lost by the resume; now -EAGAIN
 *   with nothing changed, while GTT BOs work as before;
 * - nvl_device_close() with clients still alive (a documented
 *   precondition, broken by a careless client) freed the device under
 *   them: the next call of a client, and its destroy, used freed memory
 *   (ASan). Clients now hold the device, as a DRM device lives while files
 *   are open: it goes with the last of them; no new client after close;
 * - memory busy is not memory full: a VRAM allocation that only a freed
 *   BO can satisfy, whose clear is stuck behind a hung copy engine until
 *   the job timeout's recovery (1 s), waits for it; it gave up after
 *   100 ms (-ENOMEM).
 */
#include <errno.h>
#include <sched.h>
#include <string.h>

#include <nouvelle/nouvelle.h>

#include "core/device.h"
#include "hw/regs.h"
#include "model/gsp/gsp.h"
#include "model/model.h"
#include "t.h"
#include "kit.h"
#include "t_nv.h"

#define KIB T_NV_KIB
#define MIB T_NV_MIB
#define VA_PB (32 * MIB)
#define VA_X (128 * MIB)

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

static void expect_bytes(struct nvl_client *c, uint32_t h, uint64_t size,
			 uint8_t v)
{
	uint8_t *p;
	uint64_t bad = 0;

	assert_int_equal(nvl_bo_map(c, h, (void **)&p), 0);
	for (uint64_t i = 0; i < size; i++)
		bad += p[i] != v;
	assert_int_equal(nvl_bo_unmap(c, h), 0);
	assert_int_equal(bad, 0);
}

static void set_bytes(struct nvl_client *c, uint32_t h, uint64_t size,
		      uint8_t v)
{
	void *p;

	assert_int_equal(nvl_bo_map(c, h, &p), 0);
	memset(p, v, size);
	assert_int_equal(nvl_bo_unmap(c, h), 0);
}

static uint32_t where(struct nvl_client *c, uint32_t h)
{
	struct nvl_bo_info in;

	assert_int_equal(nvl_bo_query(c, h, &in), 0);
	return in.current;
}

/* 2. VRAM is not there while suspended */
static void no_vram_while_suspended(void **state)
{
	const uint32_t vg = NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT;
	struct nvl_device_memory m0, m1;
	struct nvl_device *dev;
	struct nvl_client *c;
	uint32_t hv, hx, hg;
	char f0[1024], f1[1024];

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", NULL, &dev), 0);
	assert_int_equal(nvl_device_client_create(dev, &c), 0);
	assert_int_equal(nvl_bo_create(c, MIB, vg, NVL_BO_DOMAIN_VRAM,
				       NVL_BO_CPU_VISIBLE, &hv),
			 0);
	set_bytes(c, hv, MIB, 0x5a);
	assert_int_equal(where(c, hv), NVL_BO_DOMAIN_VRAM);
	assert_int_equal(nvl_device_suspend(dev), 0);
	assert_int_equal(where(c, hv), NVL_BO_DOMAIN_GTT);
	assert_int_equal(nvl_device_memory(dev, &m0), 0);
	assert_true(nvl_client_fdinfo(c, f0, sizeof(f0)) > 0);
	/* VRAM only, VRAM preferred, and a move back into VRAM */
	assert_int_equal(nvl_bo_create(c, MIB, NVL_BO_DOMAIN_VRAM, 0,
				       NVL_BO_CPU_VISIBLE, &hx),
			 -EAGAIN);
	assert_non_null(strstr(nvl_last_error(), "suspended"));
	assert_int_equal(nvl_bo_create(c, MIB, vg, NVL_BO_DOMAIN_VRAM, 0, &hx),
			 -EAGAIN);
	assert_int_equal(nvl_bo_use(c, hv), -EAGAIN);
	assert_int_equal(where(c, hv), NVL_BO_DOMAIN_GTT);
	/* nothing changed */
	assert_int_equal(nvl_device_memory(dev, &m1), 0);
	assert_memory_equal(&m0, &m1, sizeof(m0));
	assert_true(nvl_client_fdinfo(c, f1, sizeof(f1)) > 0);
	assert_string_equal(f0, f1);
	/* system memory works: the evicted BO is read and written where it
	 * is, a GTT BO is made */
	expect_bytes(c, hv, MIB, 0x5a);
	set_bytes(c, hv, MIB, 0x6b);
	assert_int_equal(nvl_bo_create(c, MIB, NVL_BO_DOMAIN_GTT, 0, 0, &hg),
			 0);
	set_bytes(c, hg, MIB, 0x7c);
	assert_int_equal(where(c, hg), NVL_BO_DOMAIN_GTT);
	assert_int_equal(nvl_device_resume(dev), 0);
	/* resumed: VRAM again, the bytes kept */
	assert_int_equal(nvl_bo_use(c, hv), 0);
	assert_int_equal(where(c, hv), NVL_BO_DOMAIN_VRAM);
	expect_bytes(c, hv, MIB, 0x6b);
	expect_bytes(c, hg, MIB, 0x7c);
	assert_int_equal(nvl_bo_create(c, MIB, NVL_BO_DOMAIN_VRAM, 0,
				       NVL_BO_CPU_VISIBLE, &hx),
			 0);
	expect_bytes(c, hx, MIB, 0);
	nvl_client_destroy(c);
	nvl_device_close(dev);
}

/* 3. a device closed under its clients goes with the last of them */
static void close_with_live_clients(void **state)
{
	struct nvl_device *dev;
	struct nvl_client *b, *x;
	struct t_nv_cl k;
	uint32_t h, hb, n;

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", NULL, &dev), 0);
	t_nv_cl_up(&k, dev, VA_PB, 0);
	h = t_nv_cl_bo(&k, 64 * KIB, NVL_BO_DOMAIN_VRAM, VA_X, NULL);
	assert_int_equal(nvl_device_client_create(dev, &b), 0);
	nvl_device_close(dev);
	/* no new client on a closed device */
	assert_int_equal(nvl_device_client_create(dev, &x), -ENODEV);
	/* the clients work: a fill by the copy engine, a new BO */
	n = nvl_kit_pb_memset(k.ppb, k.info.ce_class, VA_X, 0x600dcafe,
			      64 * KIB);
	t_nv_cl_run(&k, 0, n, 5 * T_NV_SEC);
	t_nv_expect_words(k.c, h, 0, 16 * KIB, 0x600dcafe, "the filled BO");
	assert_int_equal(nvl_bo_create(b, MIB, NVL_BO_DOMAIN_VRAM, 0,
				       NVL_BO_CPU_VISIBLE, &hb),
			 0);
	expect_bytes(b, hb, MIB, 0);
	t_nv_cl_close(&k);
	/* the last one takes the device with it (ASan: no leak) */
	nvl_client_destroy(b);
}

/* 4. a freed BO's memory, busy with its clear, is waited for */
static void busy_memory_is_not_full(void **state)
{
	struct nvl_device_opts o = {.vram_size = 256 * MIB,
				    .job_timeout_ms = 1000};
	struct nvl_device_memory m;
	struct nvl_hw *hw;
	struct nvl_device *dev;
	struct t_nv_cl k;
	uint32_t hx, hy, n;
	uint64_t size;
	int64_t dl;

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", &o, &dev), 0);
	hw = nvl_model_hw(dev->model);
	t_nv_cl_up(&k, dev, VA_PB, 0);
	(void)t_nv_cl_bo(&k, 64 * KIB, NVL_BO_DOMAIN_VRAM, VA_X, NULL);
	assert_int_equal(nvl_device_memory(dev, &m), 0);
	/* more than half of what is free: two cannot be at once */
	size = (m.vram_total - m.vram_reserved - m.vram_used) / 2 + 16 * MIB;
	size &= ~(MIB - 1);
	/* Z, made and freed: its memory is dirty (a new BO there needs a
	 * clear; fresh VRAM is known clear) */
	assert_int_equal(
		nvl_bo_create(k.c, size, NVL_BO_DOMAIN_VRAM, 0, 0, &hx), 0);
	assert_int_equal(nvl_bo_close(k.c, hx), 0);
	/* copy engine 0 stops on a job of k's channel until the recovery */
	assert_int_equal(nvl_channel_inject_hang(k.c, k.chan), 0);
	n = nvl_kit_pb_memset(k.ppb, k.info.ce_class, VA_X, 1, 64 * KIB);
	assert_int_equal(t_nv_cl_exec(&k, k.chan, 0, n), 0);
	dl = t_nv_deadline(20 * T_NV_SEC);
	while (!(nvl_hw_rd32(hw, NVL_HW_ENGINE_STATUS(0)) &
		 NVL_HW_ENGINE_STATUS_HUNG) &&
	       t_nv_now() < dl)
		sched_yield();
	/* X's clear queues behind the hang; X freed, Y needs its memory */
	assert_int_equal(
		nvl_bo_create(k.c, size, NVL_BO_DOMAIN_VRAM, 0, 0, &hx), 0);
	assert_int_equal(nvl_bo_close(k.c, hx), 0);
	assert_int_equal(nvl_bo_create(k.c, size, NVL_BO_DOMAIN_VRAM, 0,
				       NVL_BO_CPU_VISIBLE, &hy),
			 0);
	expect_bytes(k.c, hy, MIB, 0);
	t_nv_cl_down(&k);
	nvl_device_close(dev);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(vm_destroyed_while_suspended),
		cmocka_unit_test(no_vram_while_suspended),
		cmocka_unit_test(close_with_live_clients),
		cmocka_unit_test(busy_memory_is_not_full),
	};

	return t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
}

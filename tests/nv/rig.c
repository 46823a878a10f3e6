// SPDX-License-Identifier: MIT
/*
 * The driver tests' one-channel rig (rig.h): a device client with a VM, a
 * pushbuffer BO and a data BO mapped, a copy channel and NSYNC binary
 * syncobjs; each job is one semaphore release (SEM_ADDR/PAYLOAD/EXECUTE
 * RELEASE, clc36f.h) of a value of its own into the data BO.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/device.h"
#include "kit.h"
#include "model/gsp/gsp.h"
#include "rig.h"
#include "t.h"

int64_t rig_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

void rig_up(struct nvl_device *dev, struct rig *k)
{
	struct nvl_vm_create_args va = {.start = 1 * MIB,
					.end = 1ull << 40,
					.kernel_start = KSTART,
					.kernel_range = KRANGE};
	struct nvl_vm_bind_op op[2] = {
		{.op = NVL_VM_BIND_OP_MAP, .addr = VA_PB, .range = 64 * KIB},
		{.op = NVL_VM_BIND_OP_MAP, .addr = VA_DST, .range = 64 * KIB},
	};

	memset(k, 0, sizeof(*k));
	assert_int_equal(nvl_device_client_create(dev, &k->c), 0);
	assert_int_equal(nvl_vm_create(k->c, &va, &k->vm), 0);
	assert_int_equal(nvl_bo_create(k->c, 64 * KIB, NVL_BO_DOMAIN_VRAM, 0,
				       NVL_BO_CPU_VISIBLE, &k->pb),
			 0);
	assert_int_equal(nvl_bo_create(k->c, 64 * KIB, NVL_BO_DOMAIN_VRAM, 0,
				       NVL_BO_CPU_VISIBLE, &k->dst),
			 0);
	assert_int_equal(nvl_bo_map(k->c, k->pb, (void **)&k->ppb), 0);
	assert_int_equal(nvl_bo_map(k->c, k->dst, (void **)&k->pdst), 0);
	memset(k->pdst, 0, 64 * KIB);
	op[0].handle = k->pb;
	op[1].handle = k->dst;
	assert_int_equal(
		nvl_vm_bind(k->c, k->vm, 0, op, 2, NULL, 0, NULL, 0, 0), 0);
	assert_int_equal(
		nvl_channel_create(k->c, k->vm, NVL_ENGINE_COPY, 0, &k->chan),
		0);
	for (int i = 0; i < NSYNC; i++)
		assert_int_equal(nvl_syncobj_create(k->c, 0, &k->sync[i]), 0);
}

void rig_down(struct rig *k)
{
	assert_int_equal(nvl_bo_unmap(k->c, k->pb), 0);
	assert_int_equal(nvl_bo_unmap(k->c, k->dst), 0);
	nvl_client_destroy(k->c);
}

/* job @i releases 0x1000 + @i into dst[@i], signals sync[@i] */
int rig_exec(struct rig *k, int i)
{
	uint32_t *p = k->ppb + i * SEG / 4;
	uint32_t n = nvl_kit_pb_release(p, VA_DST + 4 * i, 0x1000 + i);
	struct nvl_exec_push push = {.va = VA_PB + i * SEG, .len = n * 4};
	struct nvl_vm_sync sig = {.handle = k->sync[i]};

	return nvl_exec(k->c, k->chan, &push, 1, NULL, 0, &sig, 1, 0);
}

/* the job's fence status (1 done, or its error), waiting up to 20 s */
int rig_status(struct rig *k, int i)
{
	int st = 0;

	assert_int_equal(nvl_syncobj_wait(k->c, &k->sync[i], NULL, 1,
					  rig_now_ns() + 20000000000ll, 0,
					  NULL),
			 0);
	assert_int_equal(nvl_syncobj_status(k->c, k->sync[i], 0, &st), 0);
	return st;
}

/* arm the hang of copy engine 0 on @k's channel */
void rig_hang(struct rig *k)
{
	assert_int_equal(nvl_channel_inject_hang(k->c, k->chan), 0);
}

struct nvl_device *rig_open_dev(uint32_t heartbeat_ms)
{
	struct nvl_device_opts o = {.job_timeout_ms = 1000,
				    .heartbeat_ms = heartbeat_ms};
	struct nvl_device *dev;

	assert_int_equal(nvl_device_open("model:tiny", &o, &dev), 0);
	return dev;
}

void rig_lose(struct nvl_device *dev)
{
	nvl_model_gsp_inject(dev->model, NVL_MODEL_GSP_HANG, 1, 0);
	for (int i = 0; i < 2000 && nvl_device_status(dev) != -ENODEV; i++)
		usleep(5000);
	assert_int_equal(nvl_device_status(dev), -ENODEV);
}

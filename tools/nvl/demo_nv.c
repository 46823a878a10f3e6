// SPDX-License-Identifier: MIT
/*
 * nvl demo, step "driver": the public API on one device: open the model
 * through the GSP, a client, a VM on NVIDIA page tables, VRAM BOs, a
 * copy-engine channel RM set up, one EXEC of a copy and a fill, waited on
 * through a syncobj, every byte checked.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <nouvelle/nouvelle.h>

#include "demo.h"
#include "kit.h"

#define MIB (1ull << 20)
#define LEN (1u << 20)

static int64_t in_5s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec + 5000000000ll;
}

static int map_bo(struct nvl_client *c, uint32_t vm, uint64_t size, uint64_t va,
		  uint32_t *h, void **cpu)
{
	struct nvl_vm_bind_op op = {
		.op = NVL_VM_BIND_OP_MAP, .addr = va, .range = size};
	int ret = nvl_bo_create(c, size, NVL_BO_DOMAIN_VRAM, 0,
				NVL_BO_CPU_VISIBLE, h);

	if (!ret)
		ret = nvl_bo_map(c, *h, cpu);
	op.handle = *h;
	if (!ret)
		ret = nvl_vm_bind(c, vm, 0, &op, 1, NULL, 0, NULL, 0, 0);
	return ret;
}

NVL_DEMO_STEP(70, driver)
{
	struct nvl_vm_create_args va = {.start = MIB,
					.end = 1ull << 40,
					.kernel_start = 1ull << 39,
					.kernel_range = 16 * MIB};
	struct nvl_device_info in;
	struct nvl_device *dev;
	struct nvl_client *c = NULL;
	uint32_t vm, src, dst, pb, ch, sync, n;
	uint8_t *ps, *pd;
	uint32_t *pp;
	struct nvl_exec_push push;
	struct nvl_vm_sync sig;
	int ret;

	ret = nvl_device_open("model:ga102", NULL, &dev);
	if (ret)
		return ret;
	nvl_device_query(dev, &in);
	printf("  device %s (%s, BOOT_0 %#010x): GSP %s booted in %.1f ms, "
	       "%llu MiB VRAM (%llu usable), %u copy engines, classes "
	       "%#x/%#x\n",
	       in.chip, in.family, in.boot0, in.fw_version, in.boot_ns / 1e6,
	       (unsigned long long)(in.vram_size >> 20),
	       (unsigned long long)(in.vram_usable >> 20), in.num_ce,
	       in.host_class, in.ce_class);
	ret = nvl_device_client_create(dev, &c);
	if (!ret)
		ret = nvl_vm_create(c, &va, &vm);
	if (!ret)
		ret = map_bo(c, vm, LEN, 16 * MIB, &src, (void **)&ps);
	if (!ret)
		ret = map_bo(c, vm, LEN, 32 * MIB, &dst, (void **)&pd);
	if (!ret)
		ret = map_bo(c, vm, 4096, 48 * MIB, &pb, (void **)&pp);
	if (!ret)
		ret = nvl_channel_create(c, vm, NVL_ENGINE_COPY, 0, &ch);
	if (!ret)
		ret = nvl_syncobj_create(c, 0, &sync);
	if (ret)
		goto out;
	for (uint32_t i = 0; i < LEN; i++)
		ps[i] = (uint8_t)(i * 13 + 1);
	n = nvl_kit_pb_copy(pp, in.ce_class, 32 * MIB, 16 * MIB, LEN);
	n += nvl_kit_pb_memset(pp + n, in.ce_class, 32 * MIB, 0x5a5a5a5a, 4096);
	push = (struct nvl_exec_push){.va = 48 * MIB, .len = n * 4};
	sig = (struct nvl_vm_sync){.handle = sync};
	ret = nvl_exec(c, ch, &push, 1, NULL, 0, &sig, 1, 0);
	if (!ret)
		ret = nvl_syncobj_wait(c, &sync, NULL, 1, in_5s(), 0, NULL);
	if (ret)
		goto out;
	for (uint32_t i = 0; i < LEN; i++)
		if (pd[i] != (i < 4096 ? 0x5a : ps[i])) {
			ret = -EIO;
			printf("  byte %u is %#x\n", i, pd[i]);
			goto out;
		}
	printf("  EXEC on a copy-engine channel (RM-allocated through the "
	       "GSP): 1 MiB copy + 4 KiB fill, every byte checked\n");
	nvl_bo_unmap(c, src);
	nvl_bo_unmap(c, dst);
	nvl_bo_unmap(c, pb);
out:
	if (ret)
		printf("  failed: %s\n", nvl_last_error());
	nvl_client_destroy(c);
	nvl_device_close(dev);
	return ret;
}

// SPDX-License-Identifier: MIT
/*
 * TEST: GTT on a device. A GTT BO's host pages are DMA-mapped through the
 * hardware interface (the model's IOMMU) and its VM mapping is written with
 * the system-memory aperture (PTE APERTURE = SYSTEM_COHERENT_MEMORY,
 * dev_mmu.h NV_MMU_VER2_PTE_APERTURE / NV_MMU_VER3_PTE_APERTURE), so the
 * copy engine really reads and writes it: copies VRAM->GTT and GTT->VRAM
 * with every byte checked by the CPU, on each page-table format. The
 * mapping is torn down when the BO is freed; bad inputs are rejected.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include <nouvelle/nouvelle.h>

#include "core/device.h"
#include "kit.h"
#include "t.h"
#include "t_nv.h"

#define KIB (1ull << 10)
#define MIB (1ull << 20)
#define BUF (256 * KIB)
#define VA_VRAM (16 * MIB)
#define VA_GTT (32 * MIB)
#define VA_PB (48 * MIB)

struct ctx {
	struct nvl_device *dev;
	struct nvl_device_info info;
	struct nvl_client *c;
	uint32_t vm, vram, gtt, pb, chan, sync;
	uint8_t *pvram, *pgtt;
	uint32_t *ppb;
};

static uint32_t gtt_bo(struct ctx *x, uint64_t size, uint64_t va, void **cpu)
{
	return t_nv_bo(x->c, x->vm, size, NVL_BO_DOMAIN_GTT, 0, va, 0, cpu);
}

static void run(struct ctx *x, uint32_t ndw)
{
	struct nvl_exec_push p = {.va = VA_PB, .len = ndw * 4};
	struct nvl_vm_sync s = {.handle = x->sync};
	struct nvl_channel_info ci;

	assert_int_equal(nvl_exec(x->c, x->chan, &p, 1, NULL, 0, &s, 1, 0), 0);
	assert_int_equal(nvl_syncobj_wait(x->c, &x->sync, NULL, 1,
					  t_nv_deadline(5000000000ll), 0, NULL),
			 0);
	assert_int_equal(nvl_channel_query(x->c, x->chan, &ci), 0);
	assert_int_equal(ci.alive, 1);
}

static void copy_both_ways_on(const char *spec)
{
	struct nvl_vm_create_args va = {.start = 1 * MIB,
					.end = 1ull << 40,
					.kernel_start = 1ull << 39,
					.kernel_range = 16 * MIB};
	struct nvl_vm_bind_op un = {
		.op = NVL_VM_BIND_OP_UNMAP, .addr = VA_GTT, .range = BUF};
	size_t maps0;
	struct ctx x;
	uint32_t n;

	memset(&x, 0, sizeof(x));
	assert_int_equal(nvl_device_open(spec, NULL, &x.dev), 0);
	assert_int_equal(nvl_device_query(x.dev, &x.info), 0);
	assert_int_equal(nvl_device_client_create(x.dev, &x.c), 0);
	assert_int_equal(nvl_vm_create(x.c, &va, &x.vm), 0);
	x.vram = t_nv_vram_bo(x.c, x.vm, BUF, VA_VRAM, (void **)&x.pvram);
	x.pb = t_nv_vram_bo(x.c, x.vm, 64 * KIB, VA_PB, (void **)&x.ppb);
	maps0 = nvl_core_gtt_count(x.dev);
	x.gtt = gtt_bo(&x, BUF, VA_GTT, (void **)&x.pgtt);
	/* the GTT BO's pages are one more DMA mapping */
	assert_int_equal(nvl_core_gtt_count(x.dev), maps0 + 1);
	assert_int_equal(
		nvl_channel_create(x.c, x.vm, NVL_ENGINE_COPY, 0, &x.chan), 0);
	assert_int_equal(nvl_syncobj_create(x.c, 0, &x.sync), 0);

	/* VRAM -> GTT */
	for (size_t i = 0; i < BUF; i++)
		x.pvram[i] = (uint8_t)(i * 31 + (i >> 9) + 7);
	memset(x.pgtt, 0xee, BUF);
	n = nvl_kit_pb_copy(x.ppb, x.info.ce_class, VA_GTT, VA_VRAM, BUF);
	run(&x, n);
	for (size_t i = 0; i < BUF; i++)
		if (x.pgtt[i] != x.pvram[i])
			fail_msg("%s: GTT byte %zu is %#x, not %#x", spec, i,
				 x.pgtt[i], x.pvram[i]);

	/* GTT -> VRAM */
	for (size_t i = 0; i < BUF; i++)
		x.pgtt[i] = (uint8_t)(i * 7 + (i >> 12) + 3);
	memset(x.pvram, 0x11, BUF);
	n = nvl_kit_pb_copy(x.ppb, x.info.ce_class, VA_VRAM, VA_GTT, BUF);
	run(&x, n);
	for (size_t i = 0; i < BUF; i++)
		if (x.pvram[i] != x.pgtt[i])
			fail_msg("%s: VRAM byte %zu is %#x, not %#x", spec, i,
				 x.pvram[i], x.pgtt[i]);

	/* freed (unbound, unmapped, handle closed): the mapping is gone */
	assert_int_equal(nvl_vm_bind(x.c, x.vm, 0, &un, 1, NULL, 0, NULL, 0, 0),
			 0);
	assert_int_equal(nvl_bo_unmap(x.c, x.gtt), 0);
	assert_int_equal(nvl_bo_close(x.c, x.gtt), 0);
	assert_int_equal(nvl_core_gtt_count(x.dev), maps0);

	assert_int_equal(nvl_channel_destroy(x.c, x.chan), 0);
	assert_int_equal(nvl_bo_unmap(x.c, x.vram), 0);
	assert_int_equal(nvl_bo_unmap(x.c, x.pb), 0);
	nvl_client_destroy(x.c);
	nvl_device_close(x.dev);
}

static void copy_both_ways(void **state)
{
	(void)state;
	copy_both_ways_on("model:tiny"); /* ver2 page tables */
	copy_both_ways_on("model:gh100"); /* ver3 page tables */
}

/* bad inputs: rejected with nothing mapped */
static void bad_inputs(void **state)
{
	struct nvl_device *dev;
	struct nvl_client *c;
	uint32_t h;
	size_t maps0;

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", NULL, &dev), 0);
	assert_int_equal(nvl_device_client_create(dev, &c), 0);
	maps0 = nvl_core_gtt_count(dev);
	assert_int_equal(nvl_bo_create(c, 0, NVL_BO_DOMAIN_GTT, 0, 0, &h),
			 -EINVAL);
	assert_int_equal(
		nvl_bo_create(c, 1ull << 60, NVL_BO_DOMAIN_GTT, 0, 0, &h),
		-EINVAL);
	assert_int_equal(nvl_bo_create(c, 4096, NVL_BO_DOMAIN_GTT,
				       NVL_BO_DOMAIN_VRAM, 0, &h),
			 -EINVAL);
	assert_int_equal(nvl_core_gtt_count(dev), maps0);
	nvl_client_destroy(c);
	nvl_device_close(dev);
}

struct af {
	struct nvl_device *dev;
	struct nvl_client *c;
	size_t maps0;
	uint32_t h;
	void *p;
};

static int op_gtt_bo(void *arg)
{
	struct af *a = arg;
	int ret;

	ret = nvl_bo_create(a->c, 64 * KIB, NVL_BO_DOMAIN_GTT, 0, 0, &a->h);
	if (ret)
		return ret;
	ret = nvl_bo_map(a->c, a->h, &a->p);
	if (ret)
		assert_int_equal(nvl_bo_close(a->c, a->h), 0);
	return ret;
}

static void check_gtt_bo(int ret, void *arg)
{
	struct af *a = arg;

	/* placement retries (with eviction) after a failed first try */
	if (!ret) {
		assert_int_equal(nvl_core_gtt_count(a->dev), a->maps0 + 1);
		assert_int_equal(nvl_bo_unmap(a->c, a->h), 0);
		assert_int_equal(nvl_bo_close(a->c, a->h), 0);
	} else {
		assert_int_equal(ret, -ENOMEM);
	}
	assert_int_equal(nvl_core_gtt_count(a->dev), a->maps0);
}

/* every allocation on the way to a GPU-reachable GTT BO can fail cleanly */
static void alloc_failure(void **state)
{
	struct af a = {0};

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", NULL, &a.dev), 0);
	assert_int_equal(nvl_device_client_create(a.dev, &a.c), 0);
	a.maps0 = nvl_core_gtt_count(a.dev);
	assert_true(t_fail_each_alloc(op_gtt_bo, check_gtt_bo, &a, 200) > 0);
	assert_int_equal(nvl_core_gtt_count(a.dev), a.maps0 + 1);
	assert_int_equal(nvl_bo_unmap(a.c, a.h), 0);
	assert_int_equal(nvl_bo_close(a.c, a.h), 0);
	assert_int_equal(nvl_core_gtt_count(a.dev), a.maps0);
	nvl_client_destroy(a.c);
	nvl_device_close(a.dev);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(copy_both_ways),
		cmocka_unit_test(bad_inputs),
		cmocka_unit_test(alloc_failure),
	};

	return t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
}

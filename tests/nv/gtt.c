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

#define KIB T_NV_KIB
#define MIB T_NV_MIB
#define BUF (256 * KIB)
#define VA_VRAM (16 * MIB)
#define VA_GTT (32 * MIB)
#define VA_PB (48 * MIB)

/* the rig's client with a VRAM and a GTT buffer */
struct ctx {
	struct t_nv_cl k;
	uint32_t vram, gtt;
	uint8_t *pvram, *pgtt;
};

static void run(struct ctx *x, uint32_t ndw)
{
	t_nv_cl_run(&x->k, 0, ndw, 5 * T_NV_SEC);
	t_nv_cl_expect_alive(&x->k);
}

static void copy_both_ways_on(const char *spec)
{
	struct nvl_vm_bind_op un = {
		.op = NVL_VM_BIND_OP_UNMAP, .addr = VA_GTT, .range = BUF};
	struct nvl_device *dev;
	size_t maps0;
	struct ctx x;
	uint32_t n;

	memset(&x, 0, sizeof(x));
	assert_int_equal(nvl_device_open(spec, NULL, &dev), 0);
	t_nv_cl_up(&x.k, dev, VA_PB, 0);
	x.vram = t_nv_cl_bo(&x.k, BUF, NVL_BO_DOMAIN_VRAM, VA_VRAM,
			    (void **)&x.pvram);
	maps0 = nvl_core_gtt_count(dev);
	x.gtt = t_nv_bo(x.k.c, x.k.vm, BUF, NVL_BO_DOMAIN_GTT, 0, VA_GTT, 0,
			(void **)&x.pgtt);
	/* the GTT BO's pages are one more DMA mapping */
	assert_int_equal(nvl_core_gtt_count(dev), maps0 + 1);

	/* VRAM -> GTT */
	for (size_t i = 0; i < BUF; i++)
		x.pvram[i] = (uint8_t)(i * 31 + (i >> 9) + 7);
	memset(x.pgtt, 0xee, BUF);
	n = nvl_kit_pb_copy(x.k.ppb, x.k.info.ce_class, VA_GTT, VA_VRAM, BUF);
	run(&x, n);
	for (size_t i = 0; i < BUF; i++)
		if (x.pgtt[i] != x.pvram[i])
			fail_msg("%s: GTT byte %zu is %#x, not %#x", spec, i,
				 x.pgtt[i], x.pvram[i]);

	/* GTT -> VRAM */
	for (size_t i = 0; i < BUF; i++)
		x.pgtt[i] = (uint8_t)(i * 7 + (i >> 12) + 3);
	memset(x.pvram, 0x11, BUF);
	n = nvl_kit_pb_copy(x.k.ppb, x.k.info.ce_class, VA_VRAM, VA_GTT, BUF);
	run(&x, n);
	for (size_t i = 0; i < BUF; i++)
		if (x.pvram[i] != x.pgtt[i])
			fail_msg("%s: VRAM byte %zu is %#x, not %#x", spec, i,
				 x.pvram[i], x.pgtt[i]);

	/* freed (unbound, unmapped, handle closed): the mapping is gone */
	assert_int_equal(
		nvl_vm_bind(x.k.c, x.k.vm, 0, &un, 1, NULL, 0, NULL, 0, 0), 0);
	assert_int_equal(nvl_bo_unmap(x.k.c, x.gtt), 0);
	assert_int_equal(nvl_bo_close(x.k.c, x.gtt), 0);
	assert_int_equal(nvl_core_gtt_count(dev), maps0);

	assert_int_equal(nvl_bo_unmap(x.k.c, x.vram), 0);
	t_nv_cl_close(&x.k);
	nvl_device_close(dev);
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

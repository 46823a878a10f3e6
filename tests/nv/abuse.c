// SPDX-License-Identifier: MIT
/*
 * TEST: the public API against a careless or hostile client (issue 15),
 * through the public headers only: each test is a bug such a client found,
 * failing before its fix.
 *
 * - a VM window past the chip's VA bits (49 on v2 page tables, 57 on
 *   Hopper's v3) is -EINVAL at nvl_vm_create(), as Nouveau refuses a VA
 *   range past its limit; it was accepted, and every channel and bind in
 *   it failed later with a page-table message;
 * - a client destroyed with BOs still CPU-mapped (never unmapped, or
 *   their handle closed first, so nvl_bo_unmap() could no longer name
 *   them) gives their memory back: the mappings held the BOs forever
 *   (VRAM lost until the device closed, and leaked then).
 */
#include <errno.h>
#include <string.h>

#include <nouvelle/nouvelle.h>

#include "kit.h"
#include "t.h"
#include "t_nv.h"

#define KIB T_NV_KIB
#define MIB T_NV_MIB

/* 1. a VM window the chip's page tables cannot cover */
static void vm_past_va_bits(void **state)
{
	static const char *const chips[] = {"model:tiny", "model:gh100"};

	(void)state;
	for (unsigned c = 0; c < NVL_ARRAY_SIZE(chips); c++) {
		struct nvl_device_info in;
		struct nvl_device *dev;
		struct nvl_client *cl;
		struct nvl_vm_create_args a = {.start = 1 * MIB};
		uint64_t top;
		uint32_t vm, ch;

		assert_int_equal(nvl_device_open(chips[c], NULL, &dev), 0);
		assert_int_equal(nvl_device_query(dev, &in), 0);
		assert_int_equal(in.va_bits, c ? 57 : 49);
		top = 1ull << in.va_bits;
		assert_int_equal(nvl_device_client_create(dev, &cl), 0);
		/* one page past the top, with or without a kernel range */
		a.end = top + 4 * KIB;
		assert_int_equal(nvl_vm_create(cl, &a, &vm), -EINVAL);
		assert_non_null(strstr(nvl_last_error(), "VA bits"));
		a.end = 1ull << 62;
		a.kernel_start = top - 16 * MIB;
		a.kernel_range = NVL_EXEC_KERNEL_RANGE;
		assert_int_equal(nvl_vm_create(cl, &a, &vm), -EINVAL);
		/* the whole VA space is fine, and channels work at its top */
		a.end = top;
		assert_int_equal(nvl_vm_create(cl, &a, &vm), 0);
		assert_int_equal(
			nvl_channel_create(cl, vm, NVL_ENGINE_COPY, 0, &ch), 0);
		nvl_client_destroy(cl);
		nvl_device_close(dev);
	}
}

static uint64_t vram_used(struct nvl_device *dev)
{
	struct nvl_device_memory m;

	assert_int_equal(nvl_device_memory(dev, &m), 0);
	return m.vram_used;
}

/* 2. mappings a client never ended go with the client */
static void mapped_bos_freed_with_client(void **state)
{
	struct nvl_device *dev;
	struct nvl_client *a, *b;
	uint32_t h[3], hb;
	uint64_t token, base;
	void *p;

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", NULL, &dev), 0);
	base = vram_used(dev);
	assert_int_equal(nvl_device_client_create(dev, &a), 0);
	assert_int_equal(nvl_device_client_create(dev, &b), 0);
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(nvl_bo_create(a, 4 * MIB, NVL_BO_DOMAIN_VRAM,
					       0, NVL_BO_CPU_VISIBLE, &h[i]),
				 0);
	/* h[0] mapped twice; h[1] mapped, then its handle closed */
	assert_int_equal(nvl_bo_map(a, h[0], &p), 0);
	assert_int_equal(nvl_bo_map(a, h[0], &p), 0);
	assert_int_equal(nvl_bo_map(a, h[1], &p), 0);
	memset(p, 0x5a, 4 * MIB);
	assert_int_equal(nvl_bo_close(a, h[1]), 0);
	/* the mapping still holds the BO: its memory stays */
	assert_int_equal(((uint8_t *)p)[4 * MIB - 1], 0x5a);
	/* h[2] shared with B, which maps it too */
	assert_int_equal(nvl_bo_export(a, h[2], &token), 0);
	assert_int_equal(nvl_bo_import(b, token, &hb), 0);
	assert_int_equal(nvl_bo_map(a, h[2], &p), 0);
	assert_int_equal(nvl_bo_map(b, hb, &p), 0);
	assert_int_equal(vram_used(dev), base + 12 * MIB);
	nvl_client_destroy(a);
	/* A's BOs go but the one B holds and maps */
	assert_int_equal(vram_used(dev), base + 4 * MIB);
	memset(p, 0x11, 4 * MIB);
	assert_int_equal(nvl_bo_unmap(b, hb), 0);
	/* B's mapping was B's own: A's going did not end it */
	assert_int_equal(nvl_bo_unmap(b, hb), -EINVAL);
	assert_int_equal(nvl_bo_map(b, hb, &p), 0);
	nvl_client_destroy(b);
	assert_int_equal(vram_used(dev), base);
	nvl_device_close(dev);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(vm_past_va_bits),
		cmocka_unit_test(mapped_bos_freed_with_client),
	};

	return t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
}

// SPDX-License-Identifier: MIT
/*
 * GSP boot on the model: every chip profile, the layout and WPR meta the
 * booter reads, each failure mode with its exact error, unload and boot
 * again, and boot under allocation-failure injection.
 */
#include "kit.h"
#include "base/time.h"
#include "gsp/image.h"
#include "hw/falcon.h"
#include "nvl_config.h"

static void boot_every_profile(void **state)
{
	static const char *const chips[] = {"tiny", "tu102", "ga102", "ad102"};

	for (size_t i = 0; i < NVL_ARRAY_SIZE(chips); i++) {
		struct nvl_gsp_boot_report r;
		struct nvl_model_gsp_stats ms;
		struct kit k;

		kit_create(&k, chips[i]);
		assert_int_equal(nvl_gsp_boot(k.gsp, &k.img, &r), 0);
		assert_int_equal(r.failed_step, NVL_GSP_STEP_COUNT);
		/* static info comes from the firmware's view of the chip */
		assert_string_equal(r.gpu_name,
				    nvl_model_profile_find(chips[i])->family);
		assert_int_equal(r.num_ce,
				 nvl_model_profile_find(chips[i])->num_ce);
		assert_int_equal(r.intr_entries, 1 + r.num_ce);
		assert_true(r.sequencer_ops >= 6);
		/* the model's 6 GPCs: static info on 535, GR control on 570 */
		assert_int_equal(r.gpc_mask, 0x3f);
		/* WPR2 up where the layout put it (NV_PFB_PRI_MMU_WPR2_ADDR_LO) */
		assert_int_equal(
			nvl_hw_rd32(nvl_model_hw(k.m), NVL_HW_PFB_WPR2_ADDR_LO),
			(uint32_t)((r.layout.wpr_start >> 12) << 4));
		nvl_model_gsp_get_stats(k.m, &ms);
		assert_int_equal(ms.state, NVL_MODEL_GSP_RUNNING);
		assert_int_equal(ms.boots, 1);
		assert_int_equal(ms.registry_entries, 2);
		assert_int_equal(ms.seq_asserts, 0);
		assert_int_equal(nvl_gsp_unload(k.gsp), 0);
		assert_int_equal(
			nvl_hw_rd32(nvl_model_hw(k.m), NVL_HW_PFB_WPR2_ADDR_HI),
			0);
		kit_down(&k);
	}
}

/* the heap rules of 535.113.01 (gsp_fw_heap.h), checked by hand */
static void layout_heap_rules(void **state)
{
	struct nvl_gsp_fb_layout l;
	const uint64_t MiB = 1ull << 20;

	/* Turing, LIBOS2, 11 GiB: 0 + 8 + ALIGN_UP(96 KiB * 11, 1 MiB) = 2
	 * + 96 = 106 MiB, inside 64..256 */
	assert_int_equal(
		nvl_gsp_fb_layout(11ull << 30, false, false, 1 << 20, 4096, &l),
		0);
	assert_int_equal(l.heap_size, 106 * MiB);
	/* Ampere, LIBOS3, 24 GiB: 20 + 8 + 3 + 96 = 127 MiB, in 84..276 */
	assert_int_equal(
		nvl_gsp_fb_layout(24ull << 30, true, false, 1 << 20, 4096, &l),
		0);
	assert_int_equal(l.heap_size, 127 * MiB);
	/* ordering and alignments of the layout */
	assert_true(l.wpr_end == (l.vga_offset & ~(128 * 1024ull - 1)));
	assert_int_equal(l.frts_offset + l.frts_size, l.wpr_end);
	assert_int_equal(l.fw_offset % (64 * 1024), 0);
	assert_int_equal(l.heap_offset % MiB, 0);
	assert_int_equal(l.wpr_start % MiB, 0);
	assert_true(l.non_wpr_heap_offset + l.non_wpr_heap_size <= l.wpr_start);
	assert_true(l.heap_offset + l.heap_size <= l.fw_offset);
	/* too little VRAM: an error, not an overlap */
	assert_int_equal(
		nvl_gsp_fb_layout(96 * MiB, true, false, 1 << 20, 4096, &l),
		-ENOSPC);
}

static void bad_signature(void **state)
{
	struct nvl_gsp_boot_report r;
	struct kit k;
	static const char bad[] = "nvl-test-sig-NO!";

	kit_create(&k, "tiny");
	k.img.sig = bad;
	k.img.sig_size = sizeof(bad);
	assert_int_equal(nvl_gsp_boot(k.gsp, &k.img, &r), -EKEYREJECTED);
	assert_int_equal(r.failed_step, NVL_GSP_STEP_BOOTER);
	assert_non_null(strstr(nvl_error_msg(), "booter_load"));
	/* nothing half up: a good image boots now */
	assert_int_equal(
		nvl_hw_rd32(nvl_model_hw(k.m), NVL_HW_PFB_WPR2_ADDR_HI), 0);
	k.img.sig = KIT_SIG;
	k.img.sig_size = sizeof(KIT_SIG);
	assert_int_equal(nvl_gsp_boot(k.gsp, &k.img, NULL), 0);
	kit_down(&k);
}

static void production_booter_rejects_test_signature(void **state)
{
	struct kit k;

	kit_create(&k, "tiny");
	nvl_model_gsp_set_verify(k.m, NULL); /* the fused production key */
	assert_int_equal(nvl_gsp_boot(k.gsp, &k.img, NULL), -EKEYREJECTED);
	kit_down(&k);
}

static void no_signature_for_family(void **state)
{
	struct nvl_gsp_boot_report r;
	struct kit k;

	kit_create(&k, "tiny");
	k.img.sig = NULL;
	k.img.sig_size = 0;
	assert_int_equal(nvl_gsp_boot(k.gsp, &k.img, &r), -ENOEXEC);
	assert_non_null(strstr(nvl_error_msg(), "no signature"));
	kit_down(&k);
}

static void hang_at_start(void **state)
{
	struct nvl_gsp_boot_report r;
	struct kit k;
	int64_t t0;

	kit_create(&k, "tiny");
	nvl_gsp_set_boot_timeout(k.gsp, 200 * NVL_NSEC_PER_MSEC);
	nvl_model_gsp_inject(k.m, NVL_MODEL_GSP_HANG, 1, 0);
	t0 = nvl_time_ns();
	assert_int_equal(nvl_gsp_boot(k.gsp, &k.img, &r), -ETIMEDOUT);
	assert_true(nvl_time_ns() - t0 < 2 * NVL_NSEC_PER_SEC);
	assert_int_equal(r.failed_step, NVL_GSP_STEP_RISCV);
	assert_non_null(strstr(nvl_error_msg(), "RISC-V"));
	nvl_model_gsp_clear_faults(k.m);
	assert_int_equal(nvl_gsp_boot(k.gsp, &k.img, NULL), 0);
	kit_down(&k);
}

static void init_done_lost(void **state)
{
	struct nvl_gsp_boot_report r;
	struct kit k;

	kit_create(&k, "tiny");
	nvl_gsp_set_boot_timeout(k.gsp, 200 * NVL_NSEC_PER_MSEC);
	/* replies to the two init RPCs, then INIT_DONE */
	nvl_model_gsp_inject(k.m, NVL_MODEL_GSP_DROP, 3, 0);
	assert_int_equal(nvl_gsp_boot(k.gsp, &k.img, &r), -ETIMEDOUT);
	assert_int_equal(r.failed_step, NVL_GSP_STEP_INIT_DONE);
	assert_non_null(strstr(nvl_error_msg(), "INIT_DONE"));
	assert_true(r.sequencer_ops >= 6); /* the sequencer did run */
	assert_int_equal(nvl_gsp_boot(k.gsp, &k.img, NULL), 0);
	kit_down(&k);
}

static void firmware_error_named(void **state)
{
	struct nvl_gsp_boot_report r;
	struct kit k;

	kit_create(&k, "tiny");
	/* RM rejects the first init RPC: INIT_DONE carries the status */
	nvl_model_gsp_inject(k.m, NVL_MODEL_GSP_ERROR, 1,
			     NV_ERR_INVALID_REGISTRY_KEY);
	assert_int_equal(nvl_gsp_boot(k.gsp, &k.img, &r), -EINVAL);
	assert_int_equal(r.failed_step, NVL_GSP_STEP_INIT_DONE);
	assert_non_null(strstr(nvl_error_msg(), "NV_ERR_INVALID_REGISTRY_KEY"));
	/* and the device is left down: boot again */
	assert_int_equal(nvl_gsp_boot(k.gsp, &k.img, NULL), 0);
	kit_down(&k);
}

static void unload_and_boot_again(void **state)
{
	struct kit k;
	uint32_t root, dev;
	NV0080_ALLOC_PARAMETERS dp = {0};

	kit_up(&k, "ga102");
	for (int i = 0; i < 3; i++) {
		assert_int_equal(
			nvl_gsp_rm_alloc(k.gsp, 0, NV01_ROOT, NULL, 0, &root),
			0);
		assert_int_equal(nvl_gsp_rm_alloc(k.gsp, root, NV01_DEVICE_0,
						  &dp, sizeof(dp), &dev),
				 0);
		assert_int_equal(nvl_gsp_unload(k.gsp), 0);
		assert_int_equal(
			nvl_hw_rd32(nvl_model_hw(k.m),
				    NVL_HW_GSP(NVL_HW_FALCON_MAILBOX0)),
			NVL_HW_GSP_MAILBOX0_UNLOADED);
		/* calls after unload fail; handles are gone */
		assert_int_equal(nvl_gsp_rm_count(k.gsp), 0);
		assert_int_equal(nvl_gsp_boot(k.gsp, &k.img, NULL), 0);
	}
	kit_down(&k);
}

static void wpr2_already_up(void **state)
{
	struct kit k;

	kit_up(&k, "tiny");
	/* a second boot without unload finds WPR2 up */
	assert_int_equal(nvl_gsp_boot(k.gsp, &k.img, NULL), -EBUSY);
	kit_down(&k);
}

struct boot_arg {
	struct kit *k;
};

static int boot_op(void *arg)
{
	struct kit *k = arg;

	return nvl_gsp_boot(k->gsp, &k->img, NULL);
}

static void boot_check(int ret, void *arg)
{
	struct kit *k = arg;

	if (ret == 0) {
		assert_int_equal(nvl_gsp_unload(k->gsp), 0);
		return;
	}
	assert_int_equal(ret, -ENOMEM);
	/* nothing left half up */
	assert_int_equal(
		nvl_hw_rd32(nvl_model_hw(k->m), NVL_HW_PFB_WPR2_ADDR_HI), 0);
}

static void boot_alloc_failures(void **state)
{
	struct kit k;
	unsigned long n;

	kit_create(&k, "tiny");
	n = t_fail_each_alloc(boot_op, boot_check, &k, 200);
	assert_true(n > 5);
	/* the last, clean run booted */
	assert_int_equal(nvl_gsp_unload(k.gsp), 0);
	assert_int_equal(nvl_gsp_boot(k.gsp, &k.img, NULL), 0);
	kit_down(&k);
}

/* the build's real images: RSA-signed, checked by the fused key */
static void boot_built_image(void **state)
{
	static const char *const v535[] = {"535.113.01", NULL};
	struct nvl_gsp_fw_opts o = {.versions = v535,
				    .search_path = NVL_BUILD_FIRMWARE_DIR,
				    .no_builtin = true};
	struct nvl_gsp_boot_report r;
	struct nvl_gsp_image img;
	struct nvl_gsp_fw *fw;
	struct kit k;

	assert_int_equal(nvl_gsp_fw_load("ga102", &o, &fw), 0);
	kit_create(&k, "ga102");
	/* tens of MB through RSA-PSS under the sanitizers, on a busy box */
	nvl_gsp_set_boot_timeout(k.gsp, 60 * NVL_NSEC_PER_SEC);
	nvl_model_gsp_set_verify(k.m, NULL); /* production check */
	nvl_gsp_image_from_fw(fw, &img);
	assert_true(img.fwimage_size > (1u << 20));
	assert_int_equal(nvl_gsp_boot(k.gsp, &img, &r), 0);
	assert_int_equal(nvl_gsp_unload(k.gsp), 0);
	/* one flipped byte of the image: the booter says no */
	((uint8_t *)fw->fwimage)[img.fwimage_size / 2] ^= 1;
	assert_int_equal(nvl_gsp_boot(k.gsp, &img, &r), -EKEYREJECTED);
	assert_int_equal(r.failed_step, NVL_GSP_STEP_BOOTER);
	kit_down(&k);
	nvl_gsp_fw_put(fw);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(boot_every_profile),
		cmocka_unit_test(layout_heap_rules),
		cmocka_unit_test(bad_signature),
		cmocka_unit_test(production_booter_rejects_test_signature),
		cmocka_unit_test(no_signature_for_family),
		cmocka_unit_test(hang_at_start),
		cmocka_unit_test(init_done_lost),
		cmocka_unit_test(firmware_error_named),
		cmocka_unit_test(unload_and_boot_again),
		cmocka_unit_test(wpr2_already_up),
		cmocka_unit_test(boot_alloc_failures),
		cmocka_unit_test(boot_built_image),
	};

	return t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
}

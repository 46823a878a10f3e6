// SPDX-License-Identifier: MIT
/*
 * Suspend and resume through the GSP (GspFwSRMeta, gsp-firmware.md §1.3
 * and §1.6 step 9): the firmware's state survives a power cycle that
 * loses every byte of VRAM; a corrupted SR meta or save area is rejected
 * by the booter (-EINVAL, still suspended, saved state intact); suspend
 * under allocation-failure injection fails cleanly.
 */
#include "kit.h"
#include "hw/falcon.h"
#include "hw/regs.h"

static uint32_t h_root, h_dev, h_sub;

static void objects(struct kit *k)
{
	kit_tree(k, &h_root, &h_dev, &h_sub);
}

/* the firmware knows the objects made before the suspend */
static void objects_work(struct kit *k)
{
	NV2080_CTRL_GPU_GET_INFO_V2_PARAMS gi = {0};
	NV0080_ALLOC_PARAMETERS dp = {0};
	uint32_t dev2;

	gi.gpuInfoListSize = 1;
	gi.gpuInfoList[0].index = NV2080_CTRL_GPU_INFO_INDEX_ECID_LO32;
	int ret = nvl_gsp_rm_control(k->gsp, h_sub,
				     NV2080_CTRL_CMD_GPU_GET_INFO_V2, &gi,
				     sizeof(gi));
	if (ret)
		print_message("control: %s\n", nvl_error_msg());
	assert_int_equal(ret, 0);
	assert_int_equal(gi.gpuInfoList[0].data,
			 nvl_hw_rd32(nvl_model_hw(k->m), NVL_HW_PMC_BOOT_0));
	assert_int_equal(nvl_gsp_rm_alloc(k->gsp, h_root, NV01_DEVICE_0, &dp,
					  sizeof(dp), &dev2),
			 0);
	assert_int_equal(nvl_gsp_rm_free(k->gsp, dev2), 0);
}

static uint64_t wpr_word(struct kit *k, uint64_t at)
{
	uint64_t v = ~0ull;

	assert_int_equal(nvl_hw_vram_read(nvl_model_hw(k->m), at, &v, 8), 0);
	return v;
}

static void suspend_power_cycle_resume(void **state)
{
	struct nvl_gsp_boot_report r;
	struct nvl_model_gsp_stats before, after;
	struct kit k;

	kit_create(&k, "ga102");
	assert_int_equal(nvl_gsp_boot(k.gsp, &k.img, &r), 0);
	objects(&k);
	/* booter_load put its copy of the WPR meta at the start of WPR2 */
	assert_true(wpr_word(&k, r.layout.wpr_start) == GSP_FW_WPR_META_MAGIC);
	for (int i = 0; i < 3; i++) {
		nvl_model_gsp_get_stats(k.m, &before);
		int sret = nvl_gsp_suspend(k.gsp);
		if (sret)
			print_message("suspend: %s\n", nvl_error_msg());
		assert_int_equal(sret, 0);
		assert_true(nvl_gsp_suspended(k.gsp));
		/* WPR2 is down; calls fail until resume, nothing hangs */
		assert_int_equal(
			nvl_hw_rd32(nvl_model_hw(k.m), NVL_HW_PFB_WPR2_ADDR_HI),
			0);
		assert_int_equal(nvl_gsp_rm_free(k.gsp, h_sub), -EAGAIN);
		assert_int_equal(nvl_gsp_suspend(k.gsp), -EALREADY);
		/* D3cold: VRAM, WPR2 included, is gone */
		assert_int_equal(nvl_model_power_cycle(k.m), 0);
		assert_true(wpr_word(&k, r.layout.wpr_start) == 0);
		assert_int_equal(nvl_gsp_resume(k.gsp), 0);
		assert_false(nvl_gsp_suspended(k.gsp));
		/* WPR2 back where it was, restored from system memory */
		assert_int_equal(
			nvl_hw_rd32(nvl_model_hw(k.m), NVL_HW_PFB_WPR2_ADDR_LO),
			(uint32_t)((r.layout.wpr_start >> 12) << 4));
		assert_true(wpr_word(&k, r.layout.wpr_start) ==
			    GSP_FW_WPR_META_MAGIC);
		nvl_model_gsp_get_stats(k.m, &after);
		assert_int_equal(after.state, NVL_MODEL_GSP_RUNNING);
		assert_int_equal(after.objects, before.objects);
		/* a resume is a boot of the firmware, with its sequencer */
		assert_int_equal(after.boots, before.boots + 1);
		assert_int_equal(after.sequencer_runs,
				 before.sequencer_runs + 1);
		assert_int_equal(after.seq_asserts, 0);
		objects_work(&k);
	}
	/* freeing the root frees the device and subdevice on both sides */
	assert_int_equal(nvl_gsp_rm_free(k.gsp, h_root), 0);
	nvl_model_gsp_get_stats(k.m, &after);
	assert_int_equal(after.objects, before.objects - 3);
	assert_int_equal(nvl_gsp_unload(k.gsp), 0);
	assert_int_equal(nvl_gsp_boot(k.gsp, &k.img, NULL), 0);
	kit_down(&k);
}

/* flip byte @off of the SR meta or the save area: the booter rejects the
 * resume, the device stays suspended; flipped back, the resume works */
static void corrupt_and_resume(struct kit *k, bool meta, size_t off)
{
	size_t size;
	uint8_t *p = nvl_gsp_sr_area(k->gsp, meta, &size);

	assert_non_null(p);
	assert_true(off < size);
	p[off] ^= 0x5a;
	assert_int_equal(nvl_gsp_resume(k->gsp), -EINVAL);
	assert_non_null(strstr(nvl_error_msg(), "SR meta"));
	assert_true(nvl_gsp_suspended(k->gsp));
	assert_int_equal(
		nvl_hw_rd32(nvl_model_hw(k->m), NVL_HW_PFB_WPR2_ADDR_HI), 0);
	assert_int_equal(nvl_gsp_rm_free(k->gsp, h_sub), -EAGAIN);
	p[off] ^= 0x5a;
}

static void corrupted_sr_meta_rejected(void **state)
{
	/* GspFwSRMeta (535 names): magic 0, revision 8,
	 * sysmemAddrOfSuspendResumeData 16, sizeOfSuspendResumeData 24,
	 * hmac 32, wprMetaHash 64, heapFreeListHash 96, dataHash 128,
	 * padding from 160 (570: internal 32..159, flags 160) */
	static const size_t meta_offs[] = {0, 8, 24, 33, 70, 100, 130, 200};
	struct kit k;
	size_t size;

	kit_up(&k, "tu102");
	objects(&k);
	assert_int_equal(nvl_gsp_suspend(k.gsp), 0);
	assert_int_equal(nvl_model_power_cycle(k.m), 0);
	for (size_t i = 0; i < NVL_ARRAY_SIZE(meta_offs); i++)
		corrupt_and_resume(&k, true, meta_offs[i]);
	/* the saved WPR meta (first bytes of WPR2) and the data */
	assert_non_null(nvl_gsp_sr_area(k.gsp, false, &size));
	corrupt_and_resume(&k, false, 0);
	corrupt_and_resume(&k, false, size / 2);
	corrupt_and_resume(&k, false, size - 1);
	assert_int_equal(nvl_gsp_resume(k.gsp), 0);
	objects_work(&k);
	assert_int_equal(nvl_gsp_resume(k.gsp), -EINVAL);
	kit_down(&k);
}

static int suspend_op(void *arg)
{
	struct kit *k = arg;

	return nvl_gsp_suspend(k->gsp);
}

static void suspend_check(int ret, void *arg)
{
	struct kit *k = arg;

	assert_int_equal(ret, -ENOMEM);
	/* nothing changed: still running */
	assert_false(nvl_gsp_suspended(k->gsp));
	assert_int_not_equal(
		nvl_hw_rd32(nvl_model_hw(k->m), NVL_HW_PFB_WPR2_ADDR_HI), 0);
	objects_work(k);
}

static void suspend_alloc_failures(void **state)
{
	struct kit k;
	unsigned long n;

	kit_up(&k, "tiny");
	objects(&k);
	n = t_fail_each_alloc(suspend_op, suspend_check, &k, 200);
	assert_true(n >= 5);
	assert_true(nvl_gsp_suspended(k.gsp));
	assert_int_equal(nvl_model_power_cycle(k.m), 0);
	assert_int_equal(nvl_gsp_resume(k.gsp), 0);
	objects_work(&k);
	kit_down(&k);
}

static void bad_calls(void **state)
{
	struct kit k;

	kit_create(&k, "tiny");
	/* nothing booted */
	assert_int_equal(nvl_gsp_suspend(k.gsp), -EINVAL);
	assert_int_equal(nvl_gsp_resume(k.gsp), -EINVAL);
	assert_int_equal(nvl_gsp_boot(k.gsp, &k.img, NULL), 0);
	assert_int_equal(nvl_gsp_resume(k.gsp), -EINVAL);
	/* the power cannot go while WPR2 is up */
	assert_int_equal(nvl_model_power_cycle(k.m), -EBUSY);
	assert_int_equal(nvl_gsp_suspend(k.gsp), 0);
	/* unload of a suspended GSP drops its saved state; boot is cold */
	assert_int_equal(nvl_gsp_unload(k.gsp), 0);
	assert_false(nvl_gsp_suspended(k.gsp));
	assert_null(nvl_gsp_sr_area(k.gsp, true, NULL));
	assert_int_equal(nvl_gsp_resume(k.gsp), -EINVAL);
	assert_int_equal(nvl_gsp_boot(k.gsp, &k.img, NULL), 0);
	objects(&k);
	objects_work(&k);
	kit_down(&k);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(suspend_power_cycle_resume),
	cmocka_unit_test(corrupted_sr_meta_rejected),
	cmocka_unit_test(suspend_alloc_failures),
	cmocka_unit_test(bad_calls),
};

T_MAIN(tests)

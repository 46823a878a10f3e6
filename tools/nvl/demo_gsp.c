// SPDX-License-Identifier: MIT
/*
 * `nvl demo` step 1: boot the GPU through its GSP first. For each chip
 * profile of the GSP era: load the build's 535.113.01 firmware set (or
 * the one `--firmware` names: 570.144), boot
 * (the booter checks the RSA signature with the fused key), print every
 * boot step with its time, make a few RM calls, unload.
 */
#include <errno.h>
#include <stdio.h>

#include "gspabi.h"
#include "gsp/boot.h"
#include "gsp/gsp.h"
#include "gsp/image.h"
#include "gsp/rm.h"
#include "model/model.h"
#include "demo.h"

static int boot_chip(const char *chip)
{
	const char *const versions[] = {
		nvl_demo_firmware ? nvl_demo_firmware : "535.113.01", NULL};
	struct nvl_gsp_fw_opts o = {.versions = versions};
	struct gspabi_device_alloc dp = {0};
	struct nvl_gsp_boot_report r;
	struct nvl_gsp_image img;
	struct nvl_gsp_fw *fw = NULL;
	struct nvl_model *m = NULL;
	struct nvl_gsp *gsp = NULL;
	uint32_t root, dev, sub;
	int ret;

	ret = nvl_model_create(nvl_model_profile_find(chip), &m);
	if (!ret)
		ret = nvl_gsp_create(nvl_model_hw(m), &gsp);
	if (!ret)
		ret = nvl_gsp_fw_load(chip, &o, &fw);
	if (ret)
		goto out;
	nvl_gsp_image_from_fw(fw, &img);
	ret = nvl_gsp_boot(gsp, &img, &r);
	printf("    %-6s firmware %s, .fwimage %.1f MiB, WPR2 %#llx..%#llx, "
	       "heap %llu MiB\n",
	       chip, fw->version, fw->fwimage_size / 1048576.0,
	       (unsigned long long)r.layout.wpr_start,
	       (unsigned long long)r.layout.wpr_end,
	       (unsigned long long)(r.layout.heap_size >> 20));
	for (unsigned s = 0; s < NVL_GSP_STEP_COUNT; s++) {
		if (s == r.failed_step) {
			printf("      %-22s FAILED\n", nvl_gsp_step_name(s));
			break;
		}
		printf("      %-22s %9.3f ms\n", nvl_gsp_step_name(s),
		       r.step_ns[s] / 1e6);
	}
	if (ret)
		goto out;
	printf("      GSP says: %s, %u channels, %u copy engines, %u interrupt "
	       "vectors, %u sequencer ops\n",
	       r.gpu_name, r.num_channels, r.num_ce, r.intr_entries,
	       r.sequencer_ops);
	ret = nvl_gsp_rm_alloc(gsp, 0, GSPABI_K_NV01_ROOT, NULL, 0, &root);
	if (!ret)
		ret = nvl_gsp_rm_alloc_abi(gsp, root, GSPABI_K_NV01_DEVICE_0,
					   GSPABI_S_DEVICE_ALLOC, &dp, &dev);
	if (!ret)
		ret = nvl_gsp_rm_alloc(gsp, dev, GSPABI_K_NV20_SUBDEVICE_0,
				       NULL, 0, &sub);
	if (!ret)
		ret = nvl_gsp_rm_free(gsp, root);
	if (!ret)
		ret = nvl_gsp_unload(gsp);
	if (!ret)
		printf("      RM objects allocated and freed, unloaded (WPR2 "
		       "down)\n");
out:
	nvl_gsp_fw_put(fw);
	nvl_gsp_destroy(gsp);
	nvl_model_destroy(m);
	return ret;
}

NVL_DEMO_STEP(1, gsp_boot)
{
	static const char *const chips[] = {"tu102", "ga102", "ad102"};

	printf("  booting through the GSP (model firmware, GSP-RM %s "
	       "protocol):\n",
	       nvl_demo_firmware ? nvl_demo_firmware : "535.113.01");
	for (size_t i = 0; i < sizeof(chips) / sizeof(chips[0]); i++) {
		int ret = boot_chip(chips[i]);

		if (ret)
			return ret;
	}
	return 0;
}

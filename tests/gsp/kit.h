/* SPDX-License-Identifier: MIT */
/*
 * Shared set-up of the gsp tests: a model device whose booter trusts a
 * test signature ("debug-fused"), a small firmware image, a booted client.
 */
#ifndef NVL_TESTS_GSP_KIT_H
#define NVL_TESTS_GSP_KIT_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/time.h"
#include "firmware/nvl_fw_manifest.h"
#include "firmware/abi/535.113.01/gsp.h"
#include "gsp/boot.h"
#include "gsp/gsp.h"
#include "gsp/rm.h"
#include "model/gsp/gsp.h"
#include "model/model.h"
#include "t.h"

#define KIT_SIG "nvl-test-sig-ok!"

/* the debug-fused booter: the image must carry KIT_SIG */
static inline int kit_verify(const void *img, size_t size, const void *sig,
			     size_t sig_size)
{
	if (!size || sig_size != sizeof(KIT_SIG) ||
	    memcmp(sig, KIT_SIG, sizeof(KIT_SIG)))
		return -EKEYREJECTED;
	return 0;
}

struct kit {
	struct nvl_model *m;
	struct nvl_gsp *gsp;
	uint8_t *image;
	size_t image_size;
	uint8_t bootloader[4096];
	struct nvl_gsp_image img;
};

static inline void kit_image(struct kit *k, size_t size)
{
	k->image_size = size;
	k->image = nvl_malloc(size);
	assert_non_null(k->image);
	for (size_t i = 0; i < size; i++)
		k->image[i] = (uint8_t)(i * 7 + (i >> 12));
	memset(k->bootloader, 0xb1, sizeof(k->bootloader));
	/* the firmware version under test (the matrix in meson.build): its
	 * manifest tells the model's firmware which build it runs */
	const char *ver = getenv("NVL_TEST_GSP_FW");
	struct nvl_fw_manifest mf = {.magic = NVL_FW_MANIFEST_MAGIC,
				     .manifest_version =
					     NVL_FW_MANIFEST_VERSION,
				     .header_size = sizeof(mf)};

	if (!ver || !*ver)
		ver = NVL_FW_ABI_VERSION;
	strncpy(mf.version, ver, sizeof(mf.version) - 1);
	if (size >= sizeof(mf))
		memcpy(k->image, &mf, sizeof(mf));
	k->img = (struct nvl_gsp_image){
		.version = ver,
		.fwimage = k->image,
		.fwimage_size = size,
		.sig = KIT_SIG,
		.sig_size = sizeof(KIT_SIG),
		.bootloader = k->bootloader,
		.bootloader_size = sizeof(k->bootloader),
		.bl_code_offset = 0x100,
		.bl_data_offset = 0x800,
		.bl_manifest_offset = 0xc00,
		.app_version = 0x535,
	};
}

/* model + client, not booted */
static inline void kit_create(struct kit *k, const char *profile)
{
	memset(k, 0, sizeof(*k));
	assert_int_equal(
		nvl_model_create(nvl_model_profile_find(profile), &k->m), 0);
	nvl_model_gsp_set_verify(k->m, kit_verify);
	assert_int_equal(nvl_gsp_create(nvl_model_hw(k->m), &k->gsp), 0);
	nvl_gsp_set_boot_timeout(k->gsp, 2 * NVL_NSEC_PER_SEC);
	kit_image(k, 64 * 1024);
}

static inline void kit_up(struct kit *k, const char *profile)
{
	kit_create(k, profile);
	assert_int_equal(nvl_gsp_boot(k->gsp, &k->img, NULL), 0);
}

static inline void kit_down(struct kit *k)
{
	nvl_gsp_destroy(k->gsp);
	nvl_model_destroy(k->m);
	nvl_free(k->image);
}

/* root -> device -> subdevice on the booted kit (zeroed allocation
 * parameters): their handles in @root, @dev, @sub */
static inline void kit_tree(struct kit *k, uint32_t *root, uint32_t *dev,
			    uint32_t *sub)
{
	NV0080_ALLOC_PARAMETERS dp = {0};
	NV2080_ALLOC_PARAMETERS sp = {0};

	assert_int_equal(nvl_gsp_rm_alloc(k->gsp, 0, NV01_ROOT, NULL, 0, root),
			 0);
	assert_int_equal(nvl_gsp_rm_alloc(k->gsp, *root, NV01_DEVICE_0, &dp,
					  sizeof(dp), dev),
			 0);
	assert_int_equal(nvl_gsp_rm_alloc(k->gsp, *dev, NV20_SUBDEVICE_0, &sp,
					  sizeof(sp), sub),
			 0);
}

/* root -> device -> subdevice on the booted kit: the subdevice's handle */
static inline uint32_t kit_subdevice(struct kit *k)
{
	NV0080_ALLOC_PARAMETERS dp = {0};
	uint32_t root, dev, sub;

	assert_int_equal(nvl_gsp_rm_alloc(k->gsp, 0, NV01_ROOT, NULL, 0, &root),
			 0);
	assert_int_equal(nvl_gsp_rm_alloc(k->gsp, root, NV01_DEVICE_0, &dp,
					  sizeof(dp), &dev),
			 0);
	assert_int_equal(
		nvl_gsp_rm_alloc(k->gsp, dev, NV20_SUBDEVICE_0, NULL, 0, &sub),
		0);
	return sub;
}

/*
 * One ECHO control (the model's) on @sub with @tag in its first byte: 0
 * only when the reply is the firmware's answer to this call (0xff - @tag),
 * -EBADMSG for someone else's reply, else nvl_gsp_rpc()'s error.
 */
static inline int kit_echo(struct kit *k, uint32_t sub, uint8_t tag,
			   int64_t timeout)
{
	struct {
		rpc_gsp_rm_control_v03_00 c;
		uint8_t p[64];
	} m = {0};
	int ret;

	m.c.hClient = nvl_gsp_rm_client_of(k->gsp, sub);
	m.c.hObject = sub;
	m.c.cmd = NVL_MODEL_CTRL_CMD_ECHO;
	m.c.paramsSize = sizeof(m.p);
	m.p[0] = tag;
	ret = nvl_gsp_rpc(k->gsp, NV_VGPU_MSG_FUNCTION_GSP_RM_CONTROL, &m,
			  sizeof(m), &m, sizeof(m), NULL, NVL_GSP_REPLY_RECV,
			  timeout);
	if (!ret && m.p[0] + tag != 0xff)
		return -EBADMSG;
	return ret;
}

#endif

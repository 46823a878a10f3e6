// SPDX-License-Identifier: MIT
/*
 * TEST: nv_device_audit
 * Description: an adversarial look at the seams of a device's life
 * (include/nouvelle/device.h): a reset that fails, a resume that fails
 * part way, devices opened and closed in a loop, a device closed under a
 * client that works, and the GSP boot's booter wait
 * (src/gsp/boot.c run_booter()). Each test names the promise it checks;
 * the firmware's faults are the model's (a slow or refusing booter: its
 * signature-check hook; a dead GSP: NVL_MODEL_GSP_HANG).
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <nouvelle/nouvelle.h>

#include "../gsp/kit.h" /* the GSP on its own, a debug-fused booter */
#include "base/time.h"
#include "core/device.h"
#include "hw/falcon.h"
#include "hw/regs.h"
#include "kit.h"
#include "nv/device.h"
#include "rig.h"
#include "t.h"
#include "t_nv.h"

/* a "model:tiny" device whose heartbeat finds a dead GSP in 20 ms */
static struct nvl_device *open_dev(void)
{
	struct nvl_device_opts o = {.heartbeat_ms = 20};
	struct nvl_device *dev;

	assert_int_equal(nvl_device_open("model:tiny", &o, &dev), 0);
	return dev;
}

static int reject_all(const void *img, size_t size, const void *sig,
		      size_t sig_size)
{
	(void)img;
	(void)size;
	(void)sig;
	(void)sig_size;
	return -EKEYREJECTED;
}

/* ---- what a lost device is --------------------------------------------- */

/*
 * device.h: nvl_device_query() says what the device is, and
 * nvl_device_memory() its FB size; a failed reset leaves the device lost,
 * the same device. Before, the failed boot's report (zeroed at its start)
 * was the device's: a lost device after a failed reset said 0 bytes of
 * VRAM, no copy engine, no channel, no GPU name (nvl top, fdinfo).
 */
static void failed_reset_keeps_identity(void **state)
{
	struct nvl_device_info a, b;
	struct nvl_device_memory ma, mb;
	struct nvl_device *dev;

	(void)state;
	dev = open_dev();
	assert_int_equal(nvl_device_query(dev, &a), 0);
	assert_int_equal(nvl_device_memory(dev, &ma), 0);
	rig_lose(dev);
	nvl_model_gsp_set_verify(dev->model, reject_all);
	assert_int_equal(nvl_device_reset(dev), -EKEYREJECTED);
	assert_int_equal(nvl_device_status(dev), -ENODEV);
	assert_int_equal(nvl_device_query(dev, &b), 0);
	assert_int_equal(nvl_device_memory(dev, &mb), 0);
	assert_string_equal(b.chip, a.chip);
	assert_string_equal(b.gpu_name, a.gpu_name);
	assert_string_equal(b.fw_version, a.fw_version);
	assert_int_equal(b.vram_size, a.vram_size);
	assert_int_equal(b.num_ce, a.num_ce);
	assert_int_equal(b.num_channels, a.num_channels);
	assert_int_equal(b.host_class, a.host_class);
	assert_int_equal(b.ce_class, a.ce_class);
	assert_int_equal(mb.vram_total, ma.vram_total);
	/* the production check again: the reset works */
	nvl_model_gsp_set_verify(dev->model, NULL);
	assert_int_equal(nvl_device_reset(dev), 0);
	assert_int_equal(nvl_device_query(dev, &b), 0);
	assert_int_equal(b.vram_size, a.vram_size);
	assert_int_equal(b.num_ce, a.num_ce);
	nvl_device_close(dev);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(failed_reset_keeps_identity),
};

T_MAIN(tests)

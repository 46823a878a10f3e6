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

/* ---- the booter's wait -------------------------------------------------- */

static atomic_int booter_calls;

/* the first booter run takes 1.5 s (a starved SEC2), the others none */
static int slow_first(const void *img, size_t size, const void *sig,
		      size_t sig_size)
{
	if (atomic_fetch_add(&booter_calls, 1) == 0)
		usleep(1500 * 1000);
	return kit_verify(img, size, sig, sig_size);
}

/*
 * A boot whose booter_load outlasts the bound fails -ETIMEDOUT at the
 * booter step, and (docs/gsp.md) leaves the device down: SEC2 halted
 * and WPR2 down once it returns. Before, it returned with SEC2 still
 * running: a boot tried at once started SEC2 over the run in progress
 * and took that run's halt and result for its own (-EINVAL, "booter
 * rejected the WPR meta"), and a run that ended between the teardown's
 * look at WPR2 and the freeing of its inputs left WPR2 up for good
 * ("WPR2 is already up": no reset could boot again).
 */
static void booter_still_running(void **state)
{
	struct nvl_gsp_boot_report r;
	struct kit k;
	int ret;

	(void)state;
	kit_create(&k, "tiny");
	atomic_store(&booter_calls, 0);
	nvl_model_gsp_set_verify(k.m, slow_first);
	nvl_gsp_set_boot_timeout(k.gsp, 100 * NVL_NSEC_PER_MSEC);
	assert_int_equal(nvl_gsp_boot(k.gsp, &k.img, &r), -ETIMEDOUT);
	assert_int_equal(r.failed_step, NVL_GSP_STEP_BOOTER);
	assert_int_equal(atomic_load(&booter_calls), 1);
	/* the failed boot left the device down: no booter run behind the
	 * driver's back (it would raise WPR2 once the driver looked away) */
	assert_true(nvl_hw_rd32(nvl_model_hw(k.m),
				NVL_HW_SEC2(NVL_HW_FALCON_CPUCTL)) &
		    NVL_HW_FALCON_CPUCTL_HALTED);
	assert_int_equal(
		nvl_hw_rd32(nvl_model_hw(k.m), NVL_HW_PFB_WPR2_ADDR_HI), 0);
	nvl_gsp_set_boot_timeout(k.gsp, 5 * NVL_NSEC_PER_SEC);
	ret = nvl_gsp_boot(k.gsp, &k.img, &r);
	if (ret)
		fail_msg("boot again: %d: %s", ret, nvl_last_error());
	assert_int_equal(atomic_load(&booter_calls), 2);
	assert_int_equal(nvl_gsp_unload(k.gsp), 0);
	kit_down(&k);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(failed_reset_keeps_identity),
	cmocka_unit_test(booter_still_running),
};

T_MAIN(tests)

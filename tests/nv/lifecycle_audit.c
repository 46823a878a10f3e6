// SPDX-License-Identifier: MIT
/*
 * TEST: nv_lifecycle_audit
 * Description: an adversarial look at a device's life across suspend,
 * resume and reset (include/nouvelle/device.h): a resume whose booter
 * never halts, a resume whose watchdog cannot start, moves on the copy
 * engine while another thread resets the device. Each test names the
 * promise it checks; the firmware's faults are the model's (a starved
 * SEC2: NVL_MODEL_GSP_SLOW_BOOTER; a dead GSP: NVL_MODEL_GSP_HANG).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <nouvelle/nouvelle.h>

#include "base/alloc.h"
#include "base/time.h"
#include "core/device.h"
#include "gsp/boot.h"
#include "hw/falcon.h"
#include "hw/regs.h"
#include "kit.h"
#include "model/gsp/gsp.h"
#include "model/model.h"
#include "mm/bo.h"
#include "nv/device.h"
#include "rig.h"
#include "sus.h"
#include "t.h"
#include "t_nv.h"

static uint32_t rd(struct nvl_device *dev, uint32_t reg)
{
	return nvl_hw_rd32(nvl_model_hw(dev->model), reg);
}

/* ---- a resume whose booter never halts --------------------------------- */

/*
 * device.h: a resume that fails leaves the device suspended (state kept,
 * the resume may be tried again), or, when the firmware is in no state to
 * try again, lost, and nvl_device_reset() brings it back. A starved SEC2
 * runs the resume's booter_load (the SR restore) for 1.5 s against a
 * bound of 100 ms: the resume fails -ETIMEDOUT, and the booter is still
 * running once the teardown gave up waiting for it too. Before, the
 * resume returned with SEC2 still running and nothing torn down: the
 * booter raised WPR2 and started the GSP behind the driver's back, the
 * device said it was alive and suspended, every later resume failed
 * -EBUSY ("WPR2 is up: the GPU needs a reset") and the reset refused
 * -EBUSY ("not lost"): no call could bring the device back. Now the
 * device is lost (every later call says so), and the reset (which waits
 * for SEC2 before it boots) brings it back, not suspended: new channels
 * run, and the BOs the suspend moved out hold what they held.
 */
static void resume_booter_never_halts(void **state)
{
	struct nvl_device *dev;
	struct nvl_client *c;
	struct t_nv_cl k, k2;
	uint32_t ch;

	(void)state;
	dev = sus_suspended(&k);
	nvl_gsp_set_boot_timeout(dev->nv->gsp, 100 * NVL_NSEC_PER_MSEC);
	nvl_gsp_set_sr_timeout(dev->nv->gsp, 100 * NVL_NSEC_PER_MSEC);
	nvl_model_gsp_inject(dev->model, NVL_MODEL_GSP_SLOW_BOOTER, 1,
			     1500 * NVL_NSEC_PER_MSEC);
	assert_int_equal(nvl_device_resume(dev), -ETIMEDOUT);
	/* lost, and every call that needs the GPU says so */
	assert_int_equal(nvl_device_status(dev), -ENODEV);
	assert_int_equal(nvl_device_resume(dev), -ENODEV);
	assert_int_equal(nvl_device_suspend(dev), -ENODEV);
	assert_int_equal(nvl_device_client_create(dev, &c), -ENODEV);
	assert_int_equal(nvl_channel_create(k.c, k.vm, NVL_ENGINE_COPY, 0, &ch),
			 -ENODEV);
	/* the reset lets the booter halt, takes down what it raised and
	 * boots afresh */
	assert_int_equal(nvl_device_reset(dev), 0);
	assert_int_equal(nvl_device_status(dev), 0);
	assert_true(rd(dev, NVL_HW_SEC2(NVL_HW_FALCON_CPUCTL)) &
		    NVL_HW_FALCON_CPUCTL_HALTED);
	assert_false(atomic_load(&dev->nv->suspended));
	assert_int_equal(nvl_device_resume(dev), -EINVAL); /* not suspended */
	/* the old channel stays dead; the BOs hold what they held */
	t_nv_cl_expect_slices(&k, SUS_SLICE, 0, 0, "reset after resume");
	/* a new client works, VRAM placements too */
	t_nv_cl_up(&k2, dev, SUS_VA_PB, 0);
	t_nv_cl_expect_alive(&k2);
	t_nv_cl_close(&k2);
	t_nv_cl_down(&k);
	nvl_device_close(dev);
}

/* ---- a resume whose watchdog cannot start ------------------------------ */

/*
 * device.h: nvl_device_resume() returns an error only with the device
 * still suspended (or lost); the heartbeat watchdog is not essential to a
 * resumed device, so a watchdog thread that cannot start is logged and the
 * resume succeeds (as a kernel resume path logs and goes on for a part it
 * can do without). Every allocation of the resume fails in turn (the
 * watchdog's thread is one: nvl_might_alloc()): each failed resume leaves
 * the device suspended (a second suspend says -EALREADY) and a clean
 * resume then works; each resume that returns 0 leaves a device that runs
 * jobs. Before, the watchdog's failure made the resume return -ENOMEM
 * with the device resumed: the caller, told it was still suspended,
 * suspended it again (which worked) or kept resuming.
 */
static void resume_alloc_failures(void **state)
{
	struct nvl_device_opts o = {.vram_size = 256 * T_NV_MIB};
	struct nvl_device *dev;
	struct t_nv_cl k;
	unsigned round = 0;
	bool nowd = false;

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", &o, &dev), 0);
	sus_up(&k, dev, 1);
	for (unsigned long n = 1; n < 200; n++) {
		unsigned long hits;
		int ret;

		assert_int_equal(nvl_device_suspend(dev), 0);
		nvl_fault_fail_nth(n, NVL_FAULT_THIS_THREAD);
		ret = nvl_device_resume(dev);
		hits = nvl_fault_hits();
		nvl_fault_off();
		if (ret) {
			assert_int_equal(hits, 1);
			assert_int_equal(nvl_device_status(dev), 0);
			assert_int_equal(nvl_device_suspend(dev), -EALREADY);
			assert_int_equal(nvl_device_resume(dev), 0);
		} else if (hits) {
			nowd |= !dev->wd_running;
		}
		assert_int_equal(nvl_device_status(dev), 0);
		if (round < 15) /* slices 0..15 of the 1 MiB BO */
			sus_fill(&k, round++);
		if (!hits)
			break;
	}
	/* the watchdog's thread was one of them, and a resume without it
	 * worked */
	assert_true(nowd);
	t_nv_cl_expect_slices(&k, SUS_SLICE, 0, round - 1, "resumes");
	/* the next suspend and resume start the watchdog again */
	assert_int_equal(nvl_device_suspend(dev), 0);
	assert_int_equal(nvl_device_resume(dev), 0);
	assert_true(dev->wd_running);
	t_nv_cl_close(&k);
	nvl_device_close(dev);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(resume_alloc_failures),
	cmocka_unit_test(resume_booter_never_halts),
};

T_MAIN(tests)

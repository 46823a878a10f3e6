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
#include "sus.h"
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

/* ---- a resume that fails part way -------------------------------------- */

/*
 * device.h: a resume that fails (a firmware error) leaves the device
 * suspended, not lost, with its state kept, and may be tried again. The
 * resumed GSP never comes up (it hangs before LIBOS starts: the RISC-V
 * core never reports active), twice; the third resume works, the BOs hold
 * what they held and the same channel runs new work. (The resume makes no
 * allocation of its own: its buffers are those of the boot.)
 */
static void resume_fails_then_works(void **state)
{
	struct nvl_channel_info ci;
	struct nvl_device *dev;
	struct t_nv_cl k;
	uint32_t ch;

	(void)state;
	dev = sus_suspended(&k);
	nvl_gsp_set_boot_timeout(dev->nv->gsp, 200 * NVL_NSEC_PER_MSEC);
	for (int i = 0; i < 2; i++) {
		nvl_model_gsp_inject(dev->model, NVL_MODEL_GSP_HANG, 1, 0);
		assert_int_equal(nvl_device_resume(dev), -ETIMEDOUT);
		nvl_model_gsp_clear_faults(dev->model);
		assert_int_equal(nvl_device_status(dev), 0);
		assert_int_equal(nvl_device_suspend(dev), -EALREADY);
		assert_int_equal(
			nvl_channel_create(k.c, k.vm, NVL_ENGINE_COPY, 0, &ch),
			-EAGAIN);
		assert_int_equal(nvl_channel_query(k.c, k.chan, &ci), 0);
		assert_int_equal(ci.alive, 1);
	}
	nvl_gsp_set_boot_timeout(dev->nv->gsp, 5 * NVL_NSEC_PER_SEC);
	assert_int_equal(nvl_device_resume(dev), 0);
	assert_int_equal(nvl_device_status(dev), 0);
	t_nv_cl_expect_slices(&k, SUS_SLICE, 0, 0, "resume");
	sus_fill(&k, 1);
	t_nv_cl_expect_slices(&k, SUS_SLICE, 0, 1, "resume");
	t_nv_cl_close(&k);
	nvl_device_close(dev);
}

/* ---- devices opened and closed in a loop ------------------------------- */

/* entries of /proc/self/@what (task: threads; fd: descriptors) */
static unsigned proc_count(const char *what)
{
	char path[64];
	struct dirent *e;
	unsigned n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/self/%s", what);
	d = opendir(path);
	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/*
 * The threads of the process with no device: the process-wide ones (the
 * scheduler's pool, the driver's worker) are started by the first device
 * and stay; open and close one first.
 */
static unsigned base_threads(void)
{
	nvl_device_close(open_dev());
	return proc_count("task");
}

/* the threads of the process once every device is gone: the model's and
 * the driver's threads are joined, not left to exit (bounded wait) */
static void expect_threads(unsigned want)
{
	unsigned n = proc_count("task");

	for (int i = 0; i < 200 && n != want; i++) {
		usleep(10000);
		n = proc_count("task");
	}
	assert_int_equal(n, want);
}

/*
 * device.h: nvl_device_close() unloads and powers the device off, or the
 * last client's nvl_client_destroy() does: a program that opens and
 * closes devices in a loop, in either order and with a lost one among
 * them, keeps no thread and no descriptor of any of them (and ASan: no
 * memory).
 */
static void open_close_loop(void **state)
{
	unsigned threads, fds;

	(void)state;
	threads = base_threads();
	fds = proc_count("fd");
	for (int i = 0; i < 6; i++) {
		struct nvl_device *dev = open_dev();
		struct nvl_client *c;
		struct rig k;

		switch (i % 3) {
		case 0: /* closed bare */
			break;
		case 1: /* closed under a live client, which goes last */
			rig_up(dev, &k);
			assert_int_equal(rig_exec(&k, 0), 0);
			nvl_device_close(dev);
			assert_int_equal(rig_status(&k, 0), 1);
			rig_down(&k);
			dev = NULL;
			break;
		case 2: /* lost, then closed with a client */
			assert_int_equal(nvl_device_client_create(dev, &c), 0);
			rig_lose(dev);
			nvl_device_close(dev);
			nvl_client_destroy(c);
			dev = NULL;
			break;
		}
		nvl_device_close(dev);
		expect_threads(threads);
		assert_int_equal(proc_count("fd"), fds);
	}
}

/* ---- a device closed under a client that works -------------------------- */

struct worker {
	struct rig k;
	atomic_bool stop;
	atomic_int done;
	int err; /* the first failure: -line */
};

/* jobs and binds, each checked, until told to stop (no cmocka assert off
 * the test's thread) */
static void *work(void *arg)
{
	struct worker *w = arg;
	struct nvl_vm_bind_op map = {.op = NVL_VM_BIND_OP_MAP,
				     .handle = w->k.dst,
				     .addr = VA_DST + 1 * MIB,
				     .range = 64 * KIB};
	struct nvl_vm_bind_op unmap = {.op = NVL_VM_BIND_OP_UNMAP,
				       .addr = VA_DST + 1 * MIB,
				       .range = 64 * KIB};

	for (int i = 0; !atomic_load(&w->stop) && !w->err; i++) {
		int j = i % NSYNC, st = 0;

		w->k.pdst[j] = 0;
		if (rig_exec(&w->k, j))
			w->err = -__LINE__;
		else if (nvl_syncobj_wait(w->k.c, &w->k.sync[j], NULL, 1,
					  rig_now_ns() + 20 * NVL_NSEC_PER_SEC,
					  0, NULL) ||
			 nvl_syncobj_status(w->k.c, w->k.sync[j], 0, &st) ||
			 st != 1 || w->k.pdst[j] != 0x1000u + j)
			w->err = -__LINE__;
		else if (nvl_vm_bind(w->k.c, w->k.vm, 0, &map, 1, NULL, 0, NULL,
				     0, 0) ||
			 nvl_vm_bind(w->k.c, w->k.vm, 0, &unmap, 1, NULL, 0,
				     NULL, 0, 0))
			w->err = -__LINE__;
		atomic_fetch_add(&w->done, 1);
	}
	return NULL;
}

struct tracer {
	atomic_long calls;
};

static void trace_count(void *arg, const struct nvl_trace_rec *r)
{
	(void)r;
	atomic_fetch_add(&((struct tracer *)arg)->calls, 1);
}

static void wait_done(struct worker *w, int n)
{
	for (int i = 0; i < 4000 && atomic_load(&w->done) < n && !w->err; i++)
		usleep(5000);
	assert_int_equal(w->err, 0);
	assert_true(atomic_load(&w->done) >= n);
}

/*
 * device.h: clients still alive keep a closed device, which works for
 * them until the last one goes: a client's thread runs jobs and binds
 * while another thread closes the device, and goes on; its destroy then
 * tears the device down, after which the wire tracer is never called
 * (its argument is freed at once: ASan), and no thread of the device is
 * left.
 */
static void close_under_a_working_client(void **state)
{
	struct tracer *tr = calloc(1, sizeof(*tr));
	struct nvl_device_opts o = {.heartbeat_ms = 20, .trace = trace_count};
	unsigned threads = base_threads();
	struct nvl_device *dev;
	struct worker w = {0};
	pthread_t t;

	(void)state;
	assert_non_null(tr);
	o.trace_arg = tr;
	assert_int_equal(nvl_device_open("model:tiny", &o, &dev), 0);
	rig_up(dev, &w.k);
	assert_int_equal(pthread_create(&t, NULL, work, &w), 0);
	wait_done(&w, 3);
	nvl_device_close(dev);
	wait_done(&w, atomic_load(&w.done) + 3);
	atomic_store(&w.stop, true);
	pthread_join(t, NULL);
	assert_int_equal(w.err, 0);
	assert_true(atomic_load(&tr->calls) > 0);
	rig_down(&w.k);
	free(tr);
	expect_threads(threads);
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
	cmocka_unit_test(resume_fails_then_works),
	cmocka_unit_test(open_close_loop),
	cmocka_unit_test(close_under_a_working_client),
	cmocka_unit_test(booter_still_running),
};

T_MAIN(tests)

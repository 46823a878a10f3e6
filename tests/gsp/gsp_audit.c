// SPDX-License-Identifier: MIT
/*
 * TEST: gsp_audit
 * Description: the GSP client when the firmware hangs with calls in
 * flight on several threads, synchronous and async: every caller returns
 * (-ETIMEDOUT or -ENODEV, never a reply that was not its own), the GSP is
 * marked for a reset, later calls fail at once, an abandoned async call
 * is freed (ASan) and no two threads race (ThreadSanitizer, suite
 * concurrency). Faults are the model's (NVL_MODEL_GSP_HANG).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "base/time.h"
#include "gsp/priv.h"
#include "gsp/sensors.h"
#include "kit.h"

#define NTHREADS 4

struct caller {
	struct kit *k;
	uint32_t sub;
	uint8_t tag;
	int ret;
	unsigned calls;
	atomic_bool *go;
};

static void *caller_thread(void *arg)
{
	struct caller *c = arg;

	while (!atomic_load(c->go))
		;
	do {
		c->ret =
			kit_echo(c->k, c->sub, c->tag, 200 * NVL_NSEC_PER_MSEC);
		c->calls++;
	} while (!c->ret);
	return NULL;
}

static void hang_with_calls_in_flight(void **state)
{
	struct caller c[NTHREADS];
	pthread_t th[NTHREADS];
	uint8_t rep[64];
	struct nvl_gsp_async *a;
	atomic_bool go = false;
	struct kit k;
	uint32_t sub;
	int64_t t0;
	size_t got;

	(void)state;
	kit_up(&k, "tiny");
	sub = kit_subdevice(&k);
	for (int i = 0; i < NTHREADS; i++) {
		c[i] = (struct caller){.k = &k,
				       .sub = sub,
				       .tag = (uint8_t)(0x10 + i),
				       .go = &go};
		assert_int_equal(
			pthread_create(&th[i], NULL, caller_thread, &c[i]), 0);
	}
	/* an async NOP sent before the hang and collected after it */
	assert_int_equal(nvl_gsp_rpc_async(k.gsp, NV_VGPU_MSG_FUNCTION_NOP,
					   NULL, 0, rep, sizeof(rep), &a),
			 0);
	atomic_store(&go, true);
	usleep(20000);
	t0 = nvl_time_ns();
	nvl_model_gsp_inject(k.m, NVL_MODEL_GSP_HANG, 1, 0);
	for (int i = 0; i < NTHREADS; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		if (c[i].ret != -ETIMEDOUT && c[i].ret != -ENODEV)
			fail_msg("caller %d: %d after %u calls", i, c[i].ret,
				 c[i].calls);
	}
	/* bounded: a timeout, the stuck check, not a wait per caller */
	assert_true(nvl_time_ns() - t0 < 5 * NVL_NSEC_PER_SEC);
	assert_true(nvl_gsp_needs_reset(k.gsp));
	/* the async call: its reply came before the hang, or it fails */
	{
		int r = nvl_gsp_async_wait(k.gsp, a, &got, 0);

		assert_true(r == 0 || r == -ENODEV || r == -ETIMEDOUT);
	}
	/* an async call sent now fails at once; sync calls too */
	assert_int_equal(nvl_gsp_rpc_async(k.gsp, NV_VGPU_MSG_FUNCTION_NOP,
					   NULL, 0, rep, sizeof(rep), &a),
			 -ENODEV);
	assert_int_equal(kit_echo(&k, sub, 1, 0), -ENODEV);
	kit_down(&k);
}

/*
 * An async call whose wait timed out is abandoned; the GSP then hangs:
 * the call is freed with the client (ASan), and its late reply, were it
 * to come, has no buffer to go to.
 */
static void abandoned_async_then_hang(void **state)
{
	struct nvl_gsp_async *a;
	uint8_t rep[64];
	struct kit k;

	(void)state;
	kit_up(&k, "tiny");
	nvl_model_gsp_inject(k.m, NVL_MODEL_GSP_DELAY, 1,
			     300 * NVL_NSEC_PER_MSEC);
	assert_int_equal(nvl_gsp_rpc_async(k.gsp, NV_VGPU_MSG_FUNCTION_NOP,
					   NULL, 0, rep, sizeof(rep), &a),
			 0);
	assert_int_equal(
		nvl_gsp_async_wait(k.gsp, a, NULL, 20 * NVL_NSEC_PER_MSEC),
		-ETIMEDOUT);
	nvl_model_gsp_inject(k.m, NVL_MODEL_GSP_HANG, 1, 0);
	assert_int_equal(nvl_gsp_rpc(k.gsp, NV_VGPU_MSG_FUNCTION_NOP, NULL, 0,
				     NULL, 0, NULL, NVL_GSP_REPLY_POLL,
				     100 * NVL_NSEC_PER_MSEC),
			 -ETIMEDOUT);
	kit_down(&k);
}

/*
 * Handles are the driver's, 0xcaf00000 | a 20-bit count: after a million
 * objects the count wraps onto handles still alive (the first device and
 * subdevice never go). A new object must get a free handle, not fail
 * because the firmware refuses a duplicate.
 */
static void handle_wrap(void **state)
{
	uint32_t sub, h[4];
	struct kit k;

	(void)state;
	kit_up(&k, "tiny");
	sub = kit_subdevice(&k);
	/* the next handles are 0xcaffffff, then 0xcaf00000 onwards: the
	 * live device and subdevice among them */
	nvl_gsp_rm_skip_handles(k.gsp, 0xfffff - 1 - (sub & 0xfffff));
	for (int i = 0; i < 4; i++) {
		if (nvl_gsp_rm_alloc(k.gsp, sub, NV01_EVENT_KERNEL_CALLBACK_EX,
				     NULL, 0, &h[i]))
			fail_msg("object %d after the wrap: %s", i,
				 nvl_error_msg());
		for (int j = 0; j < i; j++)
			assert_int_not_equal(h[i], h[j]);
		assert_int_not_equal(h[i], sub);
	}
	assert_int_equal(kit_echo(&k, sub, 2, 0), 0);
	kit_down(&k);
}

/* flips byte @at of the next GSP_RM_CONTROL reply (its header and params) */
struct flip {
	size_t at, len;
	atomic_int armed;
};

static void flip_hook(void *arg, uint32_t function, uint8_t *reply, size_t len)
{
	struct flip *f = arg;

	if (function != NV_VGPU_MSG_FUNCTION_GSP_RM_CONTROL ||
	    !atomic_exchange(&f->armed, 0))
		return;
	f->len = len;
	if (f->at < len)
		reply[f->at] ^= 0xff;
}

/*
 * A sensor read whose reply has one byte changed, at every offset: the
 * driver parses what the firmware says with its bounds (no ASan report),
 * returns 0 or an error, and what it returns is in range (an engine count
 * within NVL_SENSORS_MAX_ENGINES, only valid bits set).
 */
static void sensor_reply_lies(void **state)
{
	struct flip f = {0};
	struct nvl_sensors s;
	unsigned ok = 0, bad = 0;
	uint32_t sub;
	struct kit k;

	(void)state;
	kit_up(&k, "tu102");
	sub = kit_subdevice(&k);
	assert_int_equal(nvl_gsp_sensors_read(k.gsp, sub, &s), 0);
	nvl_model_gsp_set_reply_hook(k.m, flip_hook, &f);
	f.at = (size_t)-1;
	atomic_store(&f.armed, 1);
	assert_int_equal(nvl_gsp_sensors_read(k.gsp, sub, &s), 0);
	assert_true(f.len > 0);
	for (size_t at = 0; at < f.len; at++) {
		int ret;

		f.at = at;
		atomic_store(&f.armed, 1);
		memset(&s, 0, sizeof(s));
		ret = nvl_gsp_sensors_read(k.gsp, sub, &s);
		if (ret) {
			bad++;
			assert_true(ret < 0);
			continue;
		}
		ok++;
		assert_true(s.num_engines <= NVL_SENSORS_MAX_ENGINES);
		assert_int_equal(s.valid & ~((1ull << NVL_SENSOR_COUNT) - 1),
				 0);
	}
	nvl_model_gsp_set_reply_hook(k.m, NULL, NULL);
	print_message("# %zu bytes: %u reads ok, %u refused\n", f.len, ok, bad);
	assert_int_equal(nvl_gsp_sensors_read(k.gsp, sub, &s), 0);
	assert_false(nvl_gsp_needs_reset(k.gsp));
	kit_down(&k);
}

/* flips byte @at of the next reply to @function */
struct flip_fn {
	uint32_t function;
	size_t at, len;
	atomic_int armed;
};

static void flip_fn_hook(void *arg, uint32_t function, uint8_t *reply,
			 size_t len)
{
	struct flip_fn *f = arg;

	if (function != f->function || !atomic_exchange(&f->armed, 0))
		return;
	f->len = len;
	if (f->at < len)
		reply[f->at] ^= 0xff;
}

/*
 * GET_GSP_STATIC_INFO with one word changed, at every word: the boot
 * fails cleanly or reports counts in range (docs/gsp.md boot step 7).
 */
static void static_info_flips(void **state)
{
	struct flip_fn f = {.function =
				    NV_VGPU_MSG_FUNCTION_GET_GSP_STATIC_INFO};
	struct nvl_gsp_boot_report r;
	unsigned ok = 0, bad = 0;
	size_t len;
	struct kit k;

	(void)state;
	kit_create(&k, "tiny");
	nvl_model_gsp_set_reply_hook(k.m, flip_fn_hook, &f);
	f.at = (size_t)-1;
	atomic_store(&f.armed, 1);
	assert_int_equal(nvl_gsp_boot(k.gsp, &k.img, &r), 0);
	len = f.len;
	assert_true(len > 0);
	for (size_t at = 0; at < len; at += 4) {
		int ret;

		assert_int_equal(nvl_gsp_unload(k.gsp), 0);
		f.at = at;
		atomic_store(&f.armed, 1);
		ret = nvl_gsp_boot(k.gsp, &k.img, &r);
		if (ret) {
			bad++;
			assert_true(ret < 0);
			/* torn down: the next boot works */
			assert_int_equal(nvl_gsp_boot(k.gsp, &k.img, &r), 0);
			continue;
		}
		ok++;
		assert_true(r.num_ce >= 1 && r.num_ce < 16);
		assert_true(r.num_channels >= 1 && r.num_channels <= 4096);
		assert_true(r.fb_size > 0 && r.fb_size <= k.m->vram_size);
	}
	nvl_model_gsp_set_reply_hook(k.m, NULL, NULL);
	print_message("# %zu bytes: %u boots ok, %u refused\n", len, ok, bad);
	kit_down(&k);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hang_with_calls_in_flight),
		cmocka_unit_test(abandoned_async_then_hang),
		cmocka_unit_test(handle_wrap),
		cmocka_unit_test(sensor_reply_lies),
		cmocka_unit_test(static_info_flips),
	};

	return t_main(__FILE__, tests, sizeof(tests) / sizeof(tests[0]), argc,
		      argv);
}

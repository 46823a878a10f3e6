// SPDX-License-Identifier: MIT
/*
 * Fault injection in the model's firmware: dropped, corrupted, duplicated
 * and delayed replies, error statuses, a hung GSP and a stalled one. The
 * driver returns errors, recovers or marks the device for reset; nothing
 * waits forever.
 */
#include "base/time.h"
#include "gsp/priv.h"
#include "kit.h"

static void dropped_reply(void **state)
{
	struct nvl_gsp_stats st;
	struct kit k;
	uint32_t sub;

	kit_up(&k, "tiny");
	sub = kit_subdevice(&k);
	nvl_model_gsp_inject(k.m, NVL_MODEL_GSP_DROP, 1, 0);
	assert_int_equal(kit_echo(&k, sub, 0x11, 100 * NVL_NSEC_PER_MSEC),
			 -ETIMEDOUT);
	/* the GSP read the command: alive, no reset needed */
	assert_false(nvl_gsp_needs_reset(k.gsp));
	assert_int_equal(kit_echo(&k, sub, 0x11, 0), 0);
	nvl_gsp_get_stats(k.gsp, &st);
	assert_int_equal(st.timeouts, 1);
	kit_down(&k);
}

static void corrupted_reply(void **state)
{
	struct nvl_gsp_stats st;
	struct kit k;
	uint32_t sub;

	kit_up(&k, "tiny");
	sub = kit_subdevice(&k);
	nvl_model_gsp_inject(k.m, NVL_MODEL_GSP_CORRUPT, 1, 0);
	assert_int_equal(kit_echo(&k, sub, 0x11, 100 * NVL_NSEC_PER_MSEC),
			 -ETIMEDOUT);
	nvl_gsp_get_stats(k.gsp, &st);
	assert_int_equal(st.bad_checksum, 1);
	assert_int_equal(st.bad_msgs, 1);
	assert_false(nvl_gsp_needs_reset(k.gsp));
	assert_int_equal(kit_echo(&k, sub, 0x11, 0), 0);
	kit_down(&k);
}

static void duplicated_reply(void **state)
{
	struct nvl_gsp_stats st0, st;
	struct kit k;
	uint32_t sub;

	kit_up(&k, "tiny");
	sub = kit_subdevice(&k);
	nvl_gsp_get_stats(k.gsp, &st0);
	nvl_model_gsp_inject(k.m, NVL_MODEL_GSP_DUPLICATE, 1, 0);
	assert_int_equal(kit_echo(&k, sub, 0x11, 0), 0);
	assert_int_equal(kit_echo(&k, sub, 0x11, 0), 0);
	nvl_gsp_get_stats(k.gsp, &st);
	assert_int_equal(st.duplicate, 1);
	assert_int_equal(st.bad_msgs - st0.bad_msgs, 1);
	/* the copy never reached a caller */
	assert_int_equal(st.unclaimed, st0.unclaimed);
	kit_down(&k);
}

static void delayed_reply(void **state)
{
	struct kit k;
	uint32_t sub;

	kit_up(&k, "tiny");
	sub = kit_subdevice(&k);
	/* late but within the timeout: fine */
	nvl_model_gsp_inject(k.m, NVL_MODEL_GSP_DELAY, 1,
			     20 * NVL_NSEC_PER_MSEC);
	assert_int_equal(kit_echo(&k, sub, 0x11, NVL_NSEC_PER_SEC), 0);
	/* later than the timeout: -ETIMEDOUT, the late reply is discarded */
	nvl_model_gsp_inject(k.m, NVL_MODEL_GSP_DELAY, 1,
			     200 * NVL_NSEC_PER_MSEC);
	assert_int_equal(kit_echo(&k, sub, 0x11, 50 * NVL_NSEC_PER_MSEC),
			 -ETIMEDOUT);
	assert_int_equal(kit_echo(&k, sub, 0x11, NVL_NSEC_PER_SEC), 0);
	assert_false(nvl_gsp_needs_reset(k.gsp));
	kit_down(&k);
}

static void error_status(void **state)
{
	struct kit k;
	uint32_t sub;

	kit_up(&k, "tiny");
	sub = kit_subdevice(&k);
	nvl_model_gsp_inject(k.m, NVL_MODEL_GSP_ERROR, 1, NV_ERR_NO_MEMORY);
	assert_int_equal(kit_echo(&k, sub, 0x11, 0), -ENOMEM);
	assert_non_null(strstr(nvl_error_msg(), "NV_ERR_NO_MEMORY"));
	nvl_model_gsp_inject(k.m, NVL_MODEL_GSP_ERROR, 1, NV_ERR_NOT_READY);
	assert_int_equal(kit_echo(&k, sub, 0x11, 0), -EBUSY);
	assert_non_null(strstr(nvl_error_msg(), "NV_ERR_NOT_READY"));
	assert_int_equal(kit_echo(&k, sub, 0x11, 0), 0);
	kit_down(&k);
}

static char captured[4096];

static void sink(enum nvl_log_level level, enum nvl_log_cat cat,
		 const char *msg, void *ctx)
{
	size_t n = strlen(captured);

	if (cat == NVL_CAT_GSP && n + strlen(msg) + 2 < sizeof(captured)) {
		strcat(captured, msg);
		strcat(captured, "\n");
	}
}

static void hung_gsp(void **state)
{
	struct kit k;
	uint32_t sub;
	int64_t t0;

	kit_up(&k, "tiny");
	sub = kit_subdevice(&k);
	captured[0] = 0;
	nvl_log_set_sink(sink, NULL);
	nvl_model_gsp_inject(k.m, NVL_MODEL_GSP_HANG, 1, 0);
	t0 = nvl_time_ns();
	assert_int_equal(kit_echo(&k, sub, 0x11, 100 * NVL_NSEC_PER_MSEC),
			 -ETIMEDOUT);
	assert_true(nvl_gsp_needs_reset(k.gsp));
	/* from now on everything fails at once */
	assert_int_equal(kit_echo(&k, sub, 0x11, 0), -ENODEV);
	assert_int_equal(nvl_gsp_rm_alloc(k.gsp, 0, NV01_ROOT, NULL, 0, &sub),
			 -ENODEV);
	assert_true(nvl_time_ns() - t0 < NVL_NSEC_PER_SEC);
	nvl_log_set_sink(NULL, NULL);
	/* the firmware's log rings went into our log */
	assert_non_null(strstr(captured, "gsp LOGINIT: LIBOS: GSP-RM"));
	assert_non_null(strstr(captured, "gsp LOGINIT: RM: init done"));
	assert_non_null(strstr(captured, "needs a reset"));
	kit_down(&k);
}

/* GSP-RM stalls on a command element with the wrong seqNum; the driver
 * sees a GSP that stopped reading and marks it for reset */
static void stalled_on_bad_seqnum(void **state)
{
	struct nvl_model_gsp_stats ms;
	struct kit k;
	uint32_t sub;

	kit_up(&k, "tiny");
	sub = kit_subdevice(&k);
	pthread_mutex_lock(&k.gsp->tx_lock);
	k.gsp->q.tx_seq += 3;
	pthread_mutex_unlock(&k.gsp->tx_lock);
	assert_int_equal(kit_echo(&k, sub, 0x11, 100 * NVL_NSEC_PER_MSEC),
			 -ETIMEDOUT);
	nvl_model_gsp_get_stats(k.m, &ms);
	assert_int_equal(ms.state, NVL_MODEL_GSP_STALLED);
	assert_true(nvl_gsp_needs_reset(k.gsp));
	assert_int_equal(kit_echo(&k, sub, 0x11, 0), -ENODEV);
	kit_down(&k);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dropped_reply),
		cmocka_unit_test(corrupted_reply),
		cmocka_unit_test(duplicated_reply),
		cmocka_unit_test(delayed_reply),
		cmocka_unit_test(error_status),
		cmocka_unit_test(hung_gsp),
		cmocka_unit_test(stalled_on_bad_seqnum),
	};

	return t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
}

// SPDX-License-Identifier: MIT
/*
 * TEST: log
 * Description: NVL_DEBUG categories and levels filter messages; nvl_error()
 * keeps a per-thread message with the errno text and returns the errno.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "base/log.h"

static char captured[512];
static int ncaptured;

static void sink(enum nvl_log_level level, enum nvl_log_cat cat,
		 const char *msg, void *ctx)
{
	snprintf(captured, sizeof(captured), "%d:%d:%s", level, cat, msg);
	ncaptured++;
}

static void categories_select_debug_messages(void **state)
{
	setenv("NVL_DEBUG", "vm,sync", 1);
	unsetenv("NVL_LOG_LEVEL");
	nvl_log_reload_env();
	nvl_log_set_sink(sink, NULL);
	ncaptured = 0;
	nvl_dbg(NVL_CAT_VM, "bind %d", 1);
	assert_int_equal(ncaptured, 1);
	assert_string_equal(captured, "3:5:bind 1");
	nvl_dbg(NVL_CAT_MM, "evict");
	assert_int_equal(ncaptured, 1);
	nvl_warn(NVL_CAT_MM, "warnings pass at the default level");
	assert_int_equal(ncaptured, 2);
	nvl_info(NVL_CAT_MM, "info does not");
	assert_int_equal(ncaptured, 2);
	setenv("NVL_DEBUG", "all", 1);
	nvl_log_reload_env();
	nvl_dbg(NVL_CAT_MM, "now it does");
	assert_int_equal(ncaptured, 3);
	setenv("NVL_LOG_LEVEL", "error", 1);
	unsetenv("NVL_DEBUG");
	nvl_log_reload_env();
	nvl_warn(NVL_CAT_MM, "filtered");
	assert_int_equal(ncaptured, 3);
	nvl_log_set_sink(NULL, NULL);
	unsetenv("NVL_LOG_LEVEL");
	nvl_log_reload_env();
}

static void error_returns_errno_and_keeps_message(void **state)
{
	nvl_error_clear();
	assert_string_equal(nvl_error_msg(), "");
	assert_int_equal(nvl_error(-EINVAL, "vm: op %d unaligned", 3), -EINVAL);
	assert_non_null(strstr(nvl_error_msg(), "vm: op 3 unaligned"));
	assert_non_null(strstr(nvl_error_msg(), strerror(EINVAL)));
}

static void *other_thread(void *arg)
{
	/* per-thread: the main thread's message is not visible here */
	*(bool *)arg = nvl_error_msg()[0] == '\0';
	return NULL;
}

static void error_message_is_per_thread(void **state)
{
	pthread_t t;
	bool empty = false;

	nvl_error(-ENOENT, "syncobj: handle 9 unknown");
	pthread_create(&t, NULL, other_thread, &empty);
	pthread_join(t, NULL);
	assert_true(empty);
}

/* Text from a file or the firmware: controls and non-ASCII as \xNN. */
static void escape_makes_text_plain(void **state)
{
	char out[NVL_LOG_ESCAPED(16)], small[8];

	(void)state;
	assert_string_equal(
		nvl_log_escape(out, sizeof(out), "\x1b[2Jok\xc2\x9b\x7f", 16),
		"\\x1b[2Jok\\xc2\\x9b\\x7f");
	/* @n bytes at most, or up to the NUL */
	assert_string_equal(nvl_log_escape(out, sizeof(out), "abc\x01", 3),
			    "abc");
	assert_string_equal(nvl_log_escape(out, sizeof(out), "a\0\x01", 3),
			    "a");
	/* cut to fit, never inside an escape */
	assert_string_equal(
		nvl_log_escape(small, sizeof(small), "ab\x01\x02", 4),
		"ab\\x01");
	assert_string_equal(nvl_log_escape(small, sizeof(small), "abcd\x01", 5),
			    "abcd");
	assert_string_equal(nvl_log_escape(small, 1, "abc", 3), "");
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(categories_select_debug_messages),
	cmocka_unit_test(error_returns_errno_and_keeps_message),
	cmocka_unit_test(error_message_is_per_thread),
	cmocka_unit_test(escape_makes_text_plain),
};

T_MAIN(tests)

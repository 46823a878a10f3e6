/* SPDX-License-Identifier: MIT */
/*
 * Logging and error reporting.
 *
 * Errors are negative errno values. Where a person must be able to read why,
 * the failing function returns nvl_error(-EINVAL, "vm_bind: op %u ...", i):
 * the message is kept per thread (nvl_last_error() in the public API, like
 * dlerror()) and logged at the "err" category, visible with NVL_DEBUG=err.
 *
 * NVL_DEBUG is a comma list of categories (err,sync,sched,mm,vm,gsp,nv,model,
 * push,all); NVL_LOG_LEVEL=error|warn|info|debug sets the level for
 * uncategorised messages (default warn).
 */
#ifndef NVL_BASE_LOG_H
#define NVL_BASE_LOG_H

#include <stddef.h>

#include "compiler.h"

enum nvl_log_level {
	NVL_LOG_ERROR = 0,
	NVL_LOG_WARN = 1,
	NVL_LOG_INFO = 2,
	NVL_LOG_DEBUG = 3,
};

/** Debug categories, selected with NVL_DEBUG=. */
enum nvl_log_cat {
	NVL_CAT_CORE = 0,
	NVL_CAT_ERR,
	NVL_CAT_SYNC,
	NVL_CAT_SCHED,
	NVL_CAT_MM,
	NVL_CAT_VM,
	NVL_CAT_GSP,
	NVL_CAT_NV,
	NVL_CAT_MODEL,
	NVL_CAT_PUSH,
	NVL_CAT_COUNT
};

/**
 * typedef nvl_log_sink_fn - receives every message that passes the filters;
 * tests install one to capture reports.
 */
typedef void (*nvl_log_sink_fn)(enum nvl_log_level level, enum nvl_log_cat cat,
				const char *msg, void *ctx);

void nvl_log_set_sink(nvl_log_sink_fn fn, void *ctx);
bool nvl_log_enabled(enum nvl_log_level level, enum nvl_log_cat cat);
void nvl_log(enum nvl_log_level level, enum nvl_log_cat cat, const char *fmt,
	     ...) NVL_PRINTF(3, 4);
/** nvl_log_reload_env() - re-read NVL_DEBUG / NVL_LOG_LEVEL. */
void nvl_log_reload_env(void);

#define nvl_err(cat, ...) nvl_log(NVL_LOG_ERROR, cat, __VA_ARGS__)
#define nvl_warn(cat, ...) nvl_log(NVL_LOG_WARN, cat, __VA_ARGS__)
#define nvl_info(cat, ...) nvl_log(NVL_LOG_INFO, cat, __VA_ARGS__)
#define nvl_dbg(cat, ...)                                                      \
	do {                                                                   \
		if (unlikely(nvl_log_enabled(NVL_LOG_DEBUG, cat)))             \
			nvl_log(NVL_LOG_DEBUG, cat, __VA_ARGS__);              \
	} while (0)

/**
 * nvl_error() - record why a call failed and return @err.
 * @err: a negative errno
 * @fmt: a message for people, "module: what was wrong"
 *
 * Return: @err, so that callers write `return nvl_error(-EINVAL, ...)`.
 */
int nvl_error(int err, const char *fmt, ...) NVL_PRINTF(2, 3);

/** nvl_error_msg() - the calling thread's last nvl_error() message, or "". */
const char *nvl_error_msg(void);

/** nvl_error_clear() - forget the calling thread's last message. */
void nvl_error_clear(void);

/**
 * nvl_log_escape() - @s, text from a file or the firmware, fit for a
 * message that reaches a terminal: every byte outside printable ASCII
 * (C0 controls, DEL, and each byte of non-ASCII text, C1 controls
 * included) as "\xNN", as readelf prints section names.
 * @out: the escaped text, NUL-terminated, cut (never inside an escape)
 *       to fit
 * @size: bytes at @out, at least 1
 * @s: the text
 * @n: its bytes at most (it may end sooner, at a NUL)
 *
 * Return: @out.
 */
const char *nvl_log_escape(char *out, size_t size, const char *s, size_t n);

/** NVL_LOG_ESCAPED() - bytes nvl_log_escape() needs for @n bytes of text. */
#define NVL_LOG_ESCAPED(n) (4 * (n) + 1)

#endif /* NVL_BASE_LOG_H */

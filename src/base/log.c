// SPDX-License-Identifier: MIT
/*
 * DOC: Logging
 *
 * Filters are read once from the environment (lazily, thread-safe) into an
 * atomic mask so the disabled path costs one load.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

static const char *const cat_names[NVL_CAT_COUNT] = {
	[NVL_CAT_CORE] = "core",   [NVL_CAT_ERR] = "err",
	[NVL_CAT_SYNC] = "sync",   [NVL_CAT_SCHED] = "sched",
	[NVL_CAT_MM] = "mm",	   [NVL_CAT_VM] = "vm",
	[NVL_CAT_GSP] = "gsp",	   [NVL_CAT_NV] = "nv",
	[NVL_CAT_MODEL] = "model", [NVL_CAT_PUSH] = "push",
};

static const char *const level_names[] = {"error", "warn", "info", "debug"};

static atomic_uint cat_mask;
static atomic_int base_level = -1;
static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static _Atomic(nvl_log_sink_fn) sink;
static void *_Atomic sink_ctx;

static _Thread_local char last_error[4096]; /* long enough to list paths */

void nvl_log_reload_env(void)
{
	const char *dbg = getenv("NVL_DEBUG");
	const char *lvl = getenv("NVL_LOG_LEVEL");
	unsigned mask = 0;
	int level = NVL_LOG_WARN;

	if (dbg) {
		char buf[256], *save = NULL, *tok;

		snprintf(buf, sizeof(buf), "%s", dbg);
		for (tok = strtok_r(buf, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			if (!strcmp(tok, "all")) {
				mask = ~0u;
				continue;
			}
			for (unsigned i = 0; i < NVL_CAT_COUNT; i++)
				if (!strcmp(tok, cat_names[i]))
					mask |= 1u << i;
		}
	}
	if (lvl) {
		for (int i = 0; i < 4; i++)
			if (!strcmp(lvl, level_names[i]))
				level = i;
	}
	atomic_store(&cat_mask, mask);
	atomic_store(&base_level, level);
}

static void load_env(void)
{
	nvl_log_reload_env();
}

bool nvl_log_enabled(enum nvl_log_level level, enum nvl_log_cat cat)
{
	int base = atomic_load_explicit(&base_level, memory_order_relaxed);

	if (unlikely(base < 0)) {
		pthread_once(&env_once, load_env);
		base = atomic_load(&base_level);
	}
	if ((int)level <= base)
		return true;
	return (atomic_load_explicit(&cat_mask, memory_order_relaxed) >> cat) &
	       1;
}

void nvl_log_set_sink(nvl_log_sink_fn fn, void *ctx)
{
	atomic_store(&sink_ctx, ctx);
	atomic_store(&sink, fn);
}

NVL_PRINTF(3, 0)
static void vlog(enum nvl_log_level level, enum nvl_log_cat cat,
		 const char *fmt, va_list ap)
{
	char msg[4096];
	nvl_log_sink_fn fn = atomic_load(&sink);

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (fn) {
		fn(level, cat, msg, atomic_load(&sink_ctx));
		return;
	}
	fprintf(stderr, "nouvelle %s[%s]: %s\n", level_names[level],
		cat_names[cat], msg);
}

void nvl_log(enum nvl_log_level level, enum nvl_log_cat cat, const char *fmt,
	     ...)
{
	va_list ap;

	if (!nvl_log_enabled(level, cat))
		return;
	va_start(ap, fmt);
	vlog(level, cat, fmt, ap);
	va_end(ap);
}

int nvl_error(int err, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < sizeof(last_error) - 24)
		snprintf(last_error + n, sizeof(last_error) - (size_t)n,
			 " (%s)", strerror(-err));
	if (nvl_log_enabled(NVL_LOG_DEBUG, NVL_CAT_ERR))
		nvl_log(NVL_LOG_DEBUG, NVL_CAT_ERR, "%s", last_error);
	return err;
}

const char *nvl_error_msg(void)
{
	return last_error;
}

void nvl_error_clear(void)
{
	last_error[0] = '\0';
}

const char *nvl_log_escape(char *out, size_t size, const char *s, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f) {
			if (k + 2 > size)
				break;
			out[k++] = (char)c;
		} else {
			if (k + 5 > size)
				break;
			snprintf(out + k, 5, "\\x%02x", c);
			k += 4;
		}
	}
	out[k] = 0;
	return out;
}

// SPDX-License-Identifier: MIT
/*
 * `nvl run WORKLOAD`: open a device, run a workload (run_<name>.c) on it
 * on a thread of its own while this thread samples the sensors and the
 * clients' fdinfo (progress bar on a terminal, --record), then print the
 * summary (text or --json). Exit 0 when the workload passed its checks, 1
 * when it failed, 2 on bad usage. See run.h and docs/tools.md.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "help.h"
#include "run.h"
#include "term.h"

static const struct run_workload workloads[] = {
	{"sparse", "a sparse texture streamed tile by tile with async VM_BIND",
	 1, 1, 0, run_sparse},
	{"oversub", "BOs of 4x the VRAM, evicted and brought back", 1, 1, 256,
	 run_oversub},
	{"multiclient", "clients x channels submitting and binding at once", 4,
	 1, 0, run_multiclient},
	{"fault", "one client faults, the others keep going", 2, 2, 0,
	 run_fault},
	{"thermal", "a sustained copy load against the power limit", 1, 1, 0,
	 run_thermal},
	{"suspend", "suspend-to-RAM cycles, every byte checked after resume", 1,
	 1, 0, run_suspend},
	{"hang", "an engine hang, its timeout and the firmware's reset", 2, 2,
	 0, run_hang},
};

/* --- sampling ---------------------------------------------------------- */

static double mw_to_w(uint32_t mw)
{
	return mw / 1000.0;
}

static void sample_device(struct run_ctx *x, struct nvl_rec_dev_sample *d)
{
	struct nvl_sensors s;

	nvl_rec_dev_sample_unknown(d);
	if (nvl_device_sensors(x->dev, &s)) {
		x->sensor_errors++;
		return;
	}
	x->samples++;
	if (nvl_sensors_has(&s, NVL_SENSOR_GPU_TEMP)) {
		d->temp_C = s.gpu_temp_c;
		x->temp_min = fmin(x->temp_min, d->temp_C);
		x->temp_max = fmax(x->temp_max, d->temp_C);
	}
	if (nvl_sensors_has(&s, NVL_SENSOR_POWER)) {
		d->power_W = mw_to_w(s.power_mw);
		x->power_max = fmax(x->power_max, d->power_W);
		x->power_sum += d->power_W;
	}
	if (nvl_sensors_has(&s, NVL_SENSOR_POWER_LIMIT)) {
		d->power_limit_W = mw_to_w(s.power_limit_mw);
		x->limit_min = fmin(x->limit_min, d->power_limit_W);
	}
	if (nvl_sensors_has(&s, NVL_SENSOR_CLK_GR)) {
		d->gr_clock_MHz = s.clk_gr_mhz;
		x->clk_min = fmin(x->clk_min, d->gr_clock_MHz);
		x->clk_max = fmax(x->clk_max, d->gr_clock_MHz);
	}
	if (nvl_sensors_has(&s, NVL_SENSOR_CLK_MEM))
		d->mem_clock_MHz = s.clk_mem_mhz;
	if (nvl_sensors_has(&s, NVL_SENSOR_UTIL_ENGINES))
		for (unsigned int e = 0; e < s.num_engines && e < x->nengines;
		     e++)
			d->busy_pct[e] = s.util_engine[e] / 100.0;
	if (nvl_sensors_has(&s, NVL_SENSOR_THROTTLE))
		x->throttle_seen |= s.throttle;
}

/* one client's fdinfo: resident VRAM/GTT, and each engine's busy share
 * from its drm-engine-<name> time when the library reports it */
static void sample_client(struct run_ctx *x, struct run_client *cl,
			  struct nvl_rec_client_sample *c, int64_t now)
{
	char buf[4096], key[80];
	unsigned long long v;
	const char *p;

	nvl_rec_client_sample_unknown(c, cl->id);
	if (nvl_client_fdinfo(cl->c, buf, sizeof(buf)) < 0)
		return;
	for (p = buf; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : "") {
		if (sscanf(p, "%79[^:]:%llu", key, &v) != 2)
			continue;
		if (!strcmp(key, "drm-resident-vram"))
			c->vram_MiB = v / 1024.0;
		else if (!strcmp(key, "drm-resident-gtt"))
			c->gtt_MiB = v / 1024.0;
		else if (!strncmp(key, "drm-engine-", 11) &&
			 strncmp(key, "drm-engine-capacity-", 20))
			for (unsigned int e = 0; e < x->nengines; e++) {
				if (strcmp(key + 11, x->rec.dev[0].engines[e]))
					continue;
				if (cl->busy_ns[e] != UINT64_MAX &&
				    now > cl->busy_t && v >= cl->busy_ns[e])
					c->busy_pct[e] = fmin(
						100.0,
						(v - cl->busy_ns[e]) * 100.0 /
							(now - cl->busy_t));
				cl->busy_ns[e] = v;
			}
	}
	cl->busy_t = now;
}

static void sample(struct run_ctx *x)
{
	struct nvl_rec_client_sample cs[RUN_MAX_CLIENTS];
	struct nvl_rec_dev_sample d;
	int64_t now = run_now();
	unsigned int n = 0;

	x->last_sample = now;
	/* not while a workload suspends the device: skip this sample */
	if (pthread_mutex_trylock(&x->power_lock))
		return;
	sample_device(x, &d);
	if (!x->rec_ok) {
		pthread_mutex_unlock(&x->power_lock);
		return;
	}
	pthread_mutex_lock(&x->lock);
	for (unsigned int i = 0; i < x->nclients; i++) {
		struct run_client *cl = x->clients[i];

		if (!cl->declared) {
			struct nvl_rec_client rc = {.id = cl->id, .device = 0};

			snprintf(rc.name, sizeof(rc.name), "%s", cl->name);
			if (nvl_rec_write_client(&x->rec, &rc))
				continue;
			cl->declared = true;
		}
		sample_client(x, cl, &cs[n++], now);
	}
	pthread_mutex_unlock(&x->lock);
	pthread_mutex_unlock(&x->power_lock);
	if (nvl_rec_write_sample(&x->rec, (now - x->t0) / 1e9, &d, cs, n))
		x->rec_ok = false;
}

static void progress(struct run_ctx *x, bool done)
{
	double t = (run_now() - x->t0) / 1e9, f = t / x->o->seconds;
	char bar[31];
	int k;

	if (done) {
		fprintf(stderr, "\r\033[K");
		return;
	}
	f = f > 1 ? 1 : f;
	k = (int)(f * 30);
	memset(bar, '#', (size_t)k);
	memset(bar + k, '.', (size_t)(30 - k));
	bar[30] = 0;
	fprintf(stderr, "\r  %s [%s] %3d%%  %.1f/%.1f s", x->workload, bar,
		(int)(f * 100), t, x->o->seconds);
	fflush(stderr);
}

/* --- the run ----------------------------------------------------------- */

struct worker {
	struct run_ctx *x;
	const struct run_workload *wl;
	int ret;
	atomic_bool done;
};

static void *worker_main(void *p)
{
	struct worker *w = p;

	w->ret = w->wl->run(w->x);
	atomic_store(&w->done, true);
	return NULL;
}

static int record_open(struct run_ctx *x, const char *path)
{
	struct nvl_rec_device d = {.id = 0};

	x->recf = fopen(path, "w");
	if (!x->recf) {
		int err = errno;

		nvl_tool_fail("run", "cannot write %s: %s", path,
			      strerror(err));
		return -err;
	}
	snprintf(d.name, sizeof(d.name), "%.15s %.46s", x->info.chip,
		 x->info.gpu_name);
	d.nengines = x->nengines;
	for (unsigned int e = 0; e < d.nengines; e++)
		snprintf(d.engines[e], sizeof(d.engines[e]), "ce%u", e);
	if (nvl_rec_writer_init(&x->rec, x->recf, &d, 1))
		return nvl_tool_error("run", "cannot write %s", path);
	x->rec_ok = true;
	return 0;
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void json_num(double v)
{
	if (isfinite(v))
		printf("%.10g", v);
	else
		printf("null");
}

static const struct {
	uint64_t bit;
	const char *name;
} reasons[] = {
	{NVL_THROTTLE_GPU_IDLE, "gpu_idle"},
	{NVL_THROTTLE_APP_CLOCKS, "applications_clocks_setting"},
	{NVL_THROTTLE_SW_POWER_CAP, "sw_power_cap"},
	{NVL_THROTTLE_HW_SLOWDOWN, "hw_slowdown"},
	{NVL_THROTTLE_HW_THERMAL, "hw_thermal_slowdown"},
};

static void summary_json(struct run_ctx *x, double secs)
{
	bool first = true;

	printf("{\"workload\":");
	json_str(x->workload);
	printf(",\"ok\":%s,\"error\":", x->error ? "false" : "true");
	if (x->error)
		json_str(x->failure);
	else
		printf("null");
	printf(",\"device\":{\"spec\":");
	json_str(x->o->spec ? x->o->spec : "model");
	printf(",\"chip\":");
	json_str(x->info.chip);
	printf(",\"gpu_name\":");
	json_str(x->info.gpu_name);
	printf(",\"firmware\":");
	json_str(x->info.fw_version);
	printf(",\"vram_MiB\":%llu,\"vram_usable_MiB\":%llu,\"copy_engines\":"
	       "%u}",
	       (unsigned long long)(x->info.vram_size >> 20),
	       (unsigned long long)(x->info.vram_usable >> 20), x->info.num_ce);
	printf(",\"seconds\":%.3f,\"clients\":%u,\"channels\":%u,\"results\":{",
	       secs, x->o->clients, x->o->channels);
	for (unsigned int i = 0; i < x->nstats; i++) {
		printf("%s", i ? "," : "");
		json_str(x->stats[i].key);
		putchar(':');
		json_num(x->stats[i].v);
	}
	printf("},\"sensors\":{\"samples\":%lu,\"errors\":%lu,\"temp_C\":{"
	       "\"min\":",
	       x->samples, x->sensor_errors);
	json_num(x->temp_min);
	printf(",\"max\":");
	json_num(x->temp_max);
	printf("},\"power_W\":{\"max\":");
	json_num(x->power_max);
	printf(",\"mean\":");
	json_num(x->samples && x->power_max >= 0 ? x->power_sum / x->samples
						 : NAN);
	printf("},\"power_limit_W\":");
	json_num(x->limit_min);
	printf(",\"gr_clock_MHz\":{\"min\":");
	json_num(x->clk_min);
	printf(",\"max\":");
	json_num(x->clk_max);
	printf("},\"clock_events\":[");
	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		if (x->throttle_seen & reasons[i].bit) {
			printf("%s", first ? "" : ",");
			json_str(reasons[i].name);
			first = false;
		}
	printf("]}}\n");
}

static void summary_text(struct run_ctx *x, double secs)
{
	const char *b = nvl_term_sgr(stdout, NVL_SGR_BOLD);
	const char *r = nvl_term_sgr(stdout, NVL_SGR_RESET);

	printf("%snvl run %s%s on %s (%s, %s, %llu MiB VRAM): %s\n", b,
	       x->workload, r, x->o->spec ? x->o->spec : "model", x->info.chip,
	       x->info.gpu_name, (unsigned long long)(x->info.vram_size >> 20),
	       x->error ? "FAILED" : "passed");
	if (x->error)
		printf("  failure: %s\n", x->failure);
	printf("  %-26s %.2f s\n", "seconds", secs);
	printf("  %-26s %u x %u channel(s)\n", "clients", x->o->clients,
	       x->o->channels);
	for (unsigned int i = 0; i < x->nstats; i++) {
		const struct run_stat *s = &x->stats[i];

		printf("  %-26s ", s->key);
		if (s->unit && !strcmp(s->unit, "B") && s->v >= RUN_MIB)
			printf("%.1f MiB\n", s->v / RUN_MIB);
		else if (s->integer)
			printf("%.0f%s%s\n", s->v, s->unit ? " " : "",
			       s->unit ? s->unit : "");
		else
			printf("%.2f%s%s\n", s->v, s->unit ? " " : "",
			       s->unit ? s->unit : "");
	}
	printf("  %-26s %lu samples", "sensors", x->samples);
	if (x->temp_max > -INFINITY)
		printf(", %.0f..%.0f C", x->temp_min, x->temp_max);
	if (x->power_max >= 0)
		printf(", power <= %.1f W", x->power_max);
	if (x->limit_min < INFINITY)
		printf(" (limit %.1f W)", x->limit_min);
	if (x->clk_max >= 0)
		printf(", gr clock %.0f..%.0f MHz", x->clk_min, x->clk_max);
	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		if (x->throttle_seen & reasons[i].bit)
			printf(", %s", reasons[i].name);
	printf("\n");
}

static bool parse_uint(const char *s, unsigned long min, unsigned long max,
		       unsigned long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v < min || v > max)
		return false;
	*out = v;
	return true;
}

static void list(void)
{
	for (size_t i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++)
		printf("%-12s %s\n", workloads[i].name, workloads[i].summary);
}

int nvl_cmd_run(int argc, char **argv)
{
	static const struct option lo[] = {
		{"device", required_argument, NULL, 'd'},
		{"chip", required_argument, NULL, 'C'},
		{"seconds", required_argument, NULL, 's'},
		{"clients", required_argument, NULL, 'c'},
		{"channels", required_argument, NULL, 'n'},
		{"vram", required_argument, NULL, 'm'},
		{"json", no_argument, NULL, 'j'},
		{"no-rebind", no_argument, NULL, 'R'},
		{"power-limit", required_argument, NULL, 'P'},
		{"record", required_argument, NULL, 'r'},
		{"list", no_argument, NULL, 'l'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	struct run_opts o = {.seconds = 2};
	const struct run_workload *wl = NULL;
	unsigned long v, vram = 0;
	static char chip_spec[64];
	struct worker w = {0};
	struct run_ctx x;
	pthread_t th;
	double secs;
	bool bar;
	int ch, ret;
	char *end;

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":d:s:c:r:jlh", lo, NULL)) != -1) {
		switch (ch) {
		case 'd':
			/* -d "$SPEC" with SPEC unset: not the default */
			if (!*optarg)
				return nvl_help_usage_error(
					"run", "-d wants a device SPEC");
			o.spec = optarg;
			break;
		case 'C':
			if (!*optarg)
				return nvl_help_usage_error(
					"run", "--chip wants a CHIP");
			snprintf(chip_spec, sizeof(chip_spec), "model:%s",
				 optarg);
			o.spec = chip_spec;
			break;
		case 's':
			errno = 0;
			o.seconds = strtod(optarg, &end);
			if (errno || end == optarg || *end ||
			    !(o.seconds > 0 && o.seconds <= 86400))
				return nvl_help_usage_error(
					"run", "--seconds wants a number of "
					       "seconds in (0, 86400]");
			break;
		case 'c':
			if (!parse_uint(optarg, 1, RUN_MAX_CLIENTS - 1, &v))
				return nvl_help_usage_error(
					"run", "--clients wants 1..63");
			o.clients = (unsigned int)v;
			break;
		case 'n':
			if (!parse_uint(optarg, 1, RUN_MAX_CHANNELS, &v))
				return nvl_help_usage_error(
					"run", "--channels wants 1..8");
			o.channels = (unsigned int)v;
			break;
		case 'm':
			if (!parse_uint(optarg, 256, 1ul << 20, &vram))
				return nvl_help_usage_error(
					"run",
					"--vram wants MiB, 256..1048576");
			break;
		case 'j':
			o.json = true;
			break;
		case 'R':
			o.no_rebind = true;
			break;
		case 'P':
			errno = 0;
			o.power_limit_w = strtod(optarg, &end);
			if (errno || end == optarg || *end ||
			    !(o.power_limit_w > 0 && o.power_limit_w <= 10000))
				return nvl_help_usage_error(
					"run", "--power-limit wants watts in "
					       "(0, 10000]");
			break;
		case 'r':
			if (!*optarg)
				return nvl_help_usage_error(
					"run", "--record wants a FILE");
			o.record = optarg;
			break;
		case 'l':
			list();
			return NVL_EXIT_OK;
		case 'h':
			return nvl_help_print(stdout, "run");
		default:
			return nvl_usage_getopt("run", ch, argv);
		}
	}
	if (optind + 1 != argc)
		return nvl_help_usage_error(
			"run", optind < argc ? "one WORKLOAD only"
					     : "no WORKLOAD (nvl run --list)");
	for (size_t i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++)
		if (!strcmp(argv[optind], workloads[i].name))
			wl = &workloads[i];
	if (!wl)
		return nvl_usage_error("run",
				       "unknown WORKLOAD '%s' (nvl run --list)",
				       argv[optind]);
	if (!o.clients)
		o.clients = wl->clients;
	if (o.clients < wl->min_clients)
		return nvl_help_usage_error(
			"run", "this workload needs --clients 2 or more");
	/* nothing may call into a device while it suspends */
	if (!strcmp(wl->name, "suspend") && o.clients != 1)
		return nvl_help_usage_error(
			"run", "suspend runs one client (--clients 1)");
	if (!o.channels)
		o.channels = 2;
	if (!vram)
		vram = wl->vram_mib;

	ret = run_ctx_open(&x, &o, wl->name, vram);
	if (ret)
		return nvl_tool_error(
			"run", "%s %s",
			o.power_limit_w > 0 || !strcmp(wl->name, "thermal")
				? "cannot open or set the power limit of"
				: "cannot open",
			o.spec ? o.spec : "the default device");
	x.nengines = x.info.num_ce < NVL_REC_MAX_ENGINES ? x.info.num_ce
							 : NVL_REC_MAX_ENGINES;
	x.temp_min = x.clk_min = x.limit_min = INFINITY;
	x.temp_max = -INFINITY;
	x.power_max = x.clk_max = -1;
	if (o.record && record_open(&x, o.record)) {
		if (x.recf)
			fclose(x.recf);
		run_ctx_close(&x);
		return NVL_EXIT_FAIL;
	}
	bar = isatty(STDERR_FILENO) && o.seconds > 1;
	sample(&x);
	w.x = &x;
	w.wl = wl;
	if (pthread_create(&th, NULL, worker_main, &w)) {
		ret = nvl_tool_fail("run", "cannot start the workload");
		goto out;
	}
	while (!atomic_load(&w.done)) {
		nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
		if (run_now() - x.last_sample >= RUN_SAMPLE_NS) {
			sample(&x);
			if (bar)
				progress(&x, false);
		}
	}
	pthread_join(th, NULL);
	sample(&x);
	if (bar)
		progress(&x, true);
	secs = (run_now() - x.t0) / 1e9;
	if (w.ret && !x.error)
		run_fail(&x, w.ret, "%s", wl->name);
	if (o.record && !x.rec_ok && !x.error)
		run_fail(&x, -EIO, "writing %s failed", o.record);
	if (o.json)
		summary_json(&x, secs);
	else
		summary_text(&x, secs);
	ret = x.error ? NVL_EXIT_FAIL : NVL_EXIT_OK;
	if (x.error)
		nvl_tool_fail("run", "%s failed: %s", wl->name, x.failure);
out:
	if (x.recf && fclose(x.recf) && !ret)
		ret = nvl_tool_fail("run", "cannot write %s: %s", o.record,
				    strerror(errno));
	run_ctx_close(&x);
	return ret;
}

// SPDX-License-Identifier: MIT
/*
 * DOC: nvl smi, nvidia-smi's interface on nouvelle's devices
 *
 * The default table, -L, -q [-d SECTIONS], -q -x (the report as
 * nvidia-smi's XML), --query-gpu=FIELDS and
 * --query-compute-apps=FIELDS with --format=csv[,noheader][,nounits],
 * --help-query-gpu, -l/--loop, -lms/--loop-ms, -i, and --json, shaped
 * after nvidia-smi (../shared/reference/user-tools.md §1). The devices
 * are the ones the tool opens (gpus.h: --devices or $NVL_DEVICES); a
 * client is a "process" row (this process's pid, the client's name).
 * As nvidia-smi does, an unknown field prints its message on stdout and
 * exits 2; a bad option exits 2 with nvidia-smi's message on stderr; a
 * GPU that -i does not find prints "No devices were found" and exits 6.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "help.h"
#include "smi.h"
#include "term.h"

enum smi_mode { M_TABLE, M_LIST, M_QUERY, M_CSV, M_APPS, M_HELPQ };

/* -q sections (-d) */
enum {
	SEC_MEMORY = 1 << 0,
	SEC_UTILIZATION = 1 << 1,
	SEC_TEMPERATURE = 1 << 2,
	SEC_POWER = 1 << 3,
	SEC_CLOCK = 1 << 4,
	SEC_PERFORMANCE = 1 << 5,
	SEC_COMPUTE = 1 << 6,
	SEC_PIDS = 1 << 7,
	SEC_ECC = 1 << 8,
	SEC_ALL = (1 << 9) - 1,
};

static const struct {
	const char *name;
	unsigned bit;
} sections[] = {
	{"MEMORY", SEC_MEMORY},
	{"UTILIZATION", SEC_UTILIZATION},
	{"TEMPERATURE", SEC_TEMPERATURE},
	{"POWER", SEC_POWER},
	{"CLOCK", SEC_CLOCK},
	{"PERFORMANCE", SEC_PERFORMANCE},
	{"COMPUTE", SEC_COMPUTE},
	{"PIDS", SEC_PIDS},
	{"ECC", SEC_ECC},
};

struct smi_opts {
	enum smi_mode mode;
	const char *ids, *devices, *run;
	char *query; /* --query-gpu / --query-compute-apps list */
	bool csv, noheader, nounits, json, xml, format;
	unsigned sections;
	int64_t loop_ms; /* 0: once */
	long count; /* --count: reports, 0 = until interrupted */
};

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* nvidia-smi's words, in nvl's form (docs/tools.md, "errors") */
static int bad_option(const char *opt, bool missing)
{
	if (missing)
		return nvl_usage_error("smi", "Option %s is missing its value",
				       opt);
	return nvl_usage_error("smi",
			       "Invalid combination of input arguments "
			       "(at '%s')",
			       opt);
}

/* -x VALUE, -xVALUE, --long=VALUE, --long VALUE */
static const char *opt_value_raw(int argc, char **argv, int *i, const char *s,
				 const char *l)
{
	const char *a = argv[*i];
	size_t ll = l ? strlen(l) : 0;

	if (s && !strcmp(a, s)) {
		if (*i + 1 >= argc)
			return NULL;
		return argv[++*i];
	}
	if (l && !strncmp(a, l, ll) && a[ll] == '=')
		return a + ll + 1;
	if (l && !strcmp(a, l)) {
		if (*i + 1 >= argc)
			return NULL;
		return argv[++*i];
	}
	return NULL;
}

/*
 * An option's value; NULL when it is missing or empty: -i "$GPU" with GPU
 * unset must not mean every GPU.
 */
static const char *opt_value(int argc, char **argv, int *i, const char *s,
			     const char *l)
{
	const char *v = opt_value_raw(argc, argv, i, s, l);

	return v && *v ? v : NULL;
}

static bool is_opt(const char *a, const char *s, const char *l)
{
	size_t ll = l ? strlen(l) : 0;

	return (s && !strcmp(a, s)) ||
	       (l && !strncmp(a, l, ll) && (!a[ll] || a[ll] == '='));
}

static bool parse_num(const char *s, int64_t min, int64_t max, int64_t *out)
{
	char *end;
	long long v;

	if (!s || !*s)
		return false;
	v = strtoll(s, &end, 10);
	if (*end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

/*
 * -L, -q, --query-gpu, --query-compute-apps and --help-query-gpu each
 * choose the report: a second, different one is an invalid combination
 * (nvidia-smi's), not a silent "the last one wins" (-q --query-gpu=...
 * printed only the CSV).
 */
static bool set_mode(struct smi_opts *o, enum smi_mode m)
{
	if (o->mode != M_TABLE && o->mode != m)
		return false;
	o->mode = m;
	return true;
}

static int parse(int argc, char **argv, struct smi_opts *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		int64_t n;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			nvl_help_print(stdout, "smi");
			return -1;
		} else if (!strcmp(a, "-L") || !strcmp(a, "--list-gpus")) {
			if (!set_mode(o, M_LIST))
				return bad_option(a, false);
		} else if (!strcmp(a, "-q") || !strcmp(a, "--query")) {
			if (!set_mode(o, M_QUERY))
				return bad_option(a, false);
		} else if (!strcmp(a, "--json")) {
			o->json = true;
		} else if (!strcmp(a, "-x") || !strcmp(a, "--xml-format")) {
			o->xml = true;
		} else if (!strcmp(a, "--help-query-gpu")) {
			if (!set_mode(o, M_HELPQ))
				return bad_option(a, false);
		} else if (is_opt(a, "-i", "--id")) {
			if (!(o->ids = opt_value(argc, argv, &i, "-i", "--id")))
				return bad_option(a, true);
		} else if (is_opt(a, NULL, "--devices")) {
			if (!(o->devices = opt_value(argc, argv, &i, NULL,
						     "--devices")) ||
			    !nvl_gpus_specs_valid(o->devices))
				return bad_option(a, true);
		} else if (is_opt(a, NULL, "--run")) {
			if (!(o->run =
				      opt_value(argc, argv, &i, NULL, "--run")))
				return bad_option(a, true);
			if (!nvl_load_valid(o->run, "smi"))
				return NVL_EXIT_USAGE;
		} else if (is_opt(a, "-d", "--display")) {
			char *copy, *save = NULL;

			/* -d "," names no section: not every section */
			if (!(v = opt_value(argc, argv, &i, "-d",
					    "--display")) ||
			    !v[strspn(v, ",")])
				return bad_option(a, true);
			copy = strdup(v);
			if (!copy)
				return NVL_EXIT_FAIL;
			for (char *t = strtok_r(copy, ",", &save); t;
			     t = strtok_r(NULL, ",", &save)) {
				size_t k;

				for (k = 0; k < NVL_ARRAY_SIZE(sections); k++)
					if (!strcasecmp(t, sections[k].name))
						break;
				if (k == NVL_ARRAY_SIZE(sections)) {
					free(copy);
					return bad_option(a, false);
				}
				o->sections |= sections[k].bit;
			}
			free(copy);
		} else if (is_opt(a, NULL, "--query-gpu") ||
			   is_opt(a, NULL, "--query-compute-apps")) {
			bool apps = !strncmp(a, "--query-c", 9);

			v = opt_value(argc, argv, &i, NULL,
				      apps ? "--query-compute-apps"
					   : "--query-gpu");
			if (!v || !*v)
				return bad_option(a, true);
			free(o->query);
			o->query = strdup(v);
			if (!o->query)
				return NVL_EXIT_FAIL;
			if (!set_mode(o, apps ? M_APPS : M_CSV))
				return bad_option(a, false);
		} else if (is_opt(a, NULL, "--format")) {
			char *copy, *save = NULL;

			if (!(v = opt_value(argc, argv, &i, NULL, "--format")))
				return bad_option(a, true);
			o->format = true;
			copy = strdup(v);
			if (!copy)
				return NVL_EXIT_FAIL;
			for (char *t = strtok_r(copy, ",", &save); t;
			     t = strtok_r(NULL, ",", &save)) {
				while (*t == ' ')
					t++;
				if (!strcmp(t, "csv"))
					o->csv = true;
				else if (!strcmp(t, "noheader"))
					o->noheader = true;
				else if (!strcmp(t, "nounits"))
					o->nounits = true;
				else {
					free(copy);
					return bad_option(a, false);
				}
			}
			free(copy);
		} else if (!strcmp(a, "-lms") || is_opt(a, NULL, "--loop-ms")) {
			v = opt_value(argc, argv, &i, "-lms", "--loop-ms");
			if (!v)
				return bad_option(a, true);
			if (!parse_num(v, 1, 86400000, &n))
				return bad_option(a, false);
			o->loop_ms = n;
		} else if (!strcmp(a, "-l") || is_opt(a, NULL, "--loop")) {
			/* an optional value: -l [SEC], --loop[=SEC] */
			o->loop_ms = 5000;
			if (!strncmp(a, "--loop=", 7)) {
				if (!parse_num(a + 7, 1, 86400, &n))
					return bad_option(a, false);
				o->loop_ms = n * 1000;
			} else if (i + 1 < argc &&
				   parse_num(argv[i + 1], 1, 86400, &n)) {
				o->loop_ms = n * 1000;
				i++;
			}
		} else if (is_opt(a, "-c", "--count")) {
			v = opt_value(argc, argv, &i, "-c", "--count");
			if (!v)
				return bad_option(a, true);
			if (!parse_num(v, 1, 1000000000, &n))
				return bad_option(a, false);
			o->count = n;
		} else {
			return bad_option(a, false);
		}
	}
	if ((o->mode == M_CSV || o->mode == M_APPS) && !o->csv && !o->json)
		return nvl_usage_error("smi", "--query-gpu and "
					      "--query-compute-apps need "
					      "--format=csv (or --json)");
	/* options that would change nothing: not silently ignored */
	if (o->format && o->mode != M_CSV && o->mode != M_APPS)
		return nvl_usage_error("smi", "--format is for --query-gpu and "
					      "--query-compute-apps");
	if (o->count && !o->loop_ms)
		return nvl_usage_error("smi", "-c/--count counts the reports "
					      "of a loop: give -l or -lms too");
	/*
	 * the processes are in --json's report: not a CSV under --json; nor
	 * is -L's list, -q's report or the field list JSON (--json printed
	 * its own report in their place)
	 */
	if (o->json && o->mode != M_TABLE && o->mode != M_CSV)
		return bad_option("--json", false);
	/* as nvidia-smi: the XML report is -q's, whole (no -d) */
	if (o->xml && o->mode != M_QUERY && o->mode != M_TABLE)
		return bad_option("-x", false);
	if (o->xml && (o->sections || o->json))
		return bad_option(o->sections ? "-d" : "--json", false);
	if (o->xml)
		o->mode = M_QUERY;
	if (o->mode == M_QUERY && !o->sections)
		o->sections = SEC_ALL;
	if (o->sections && o->mode != M_QUERY)
		return bad_option("-d", false);
	return 0;
}

/* ---- samples --------------------------------------------------------- */

static void sample(struct nvl_gpus *g, struct smi_sample *x)
{
	char ts[32];

	smi_timestamp(ts, sizeof(ts));
	for (unsigned i = 0; i < g->n; i++) {
		struct smi_sample *y = &x[i];
		int n;

		memset(y, 0, sizeof(*y));
		y->gpu = &g->gpu[i];
		y->count = g->n;
		memcpy(y->timestamp, ts, sizeof(ts));
		y->sens_ret = nvl_device_sensors(y->gpu->dev, &y->s);
		nvl_device_memory(y->gpu->dev, &y->m);
		n = nvl_gpu_clients(y->gpu, y->clients, NVL_GPU_CLIENTS_MAX);
		y->nclients = n < 0 ? 0 : n;
	}
}

static const char *prog_name(void)
{
	static char name[64];
	FILE *f;

	if (name[0])
		return name;
	snprintf(name, sizeof(name), "nvl");
	f = fopen("/proc/self/comm", "r");
	if (f) {
		if (fgets(name, sizeof(name), f))
			name[strcspn(name, "\n")] = 0;
		fclose(f);
	}
	return name;
}

/* a client's process name: the program, and its drm-client-name */
static void client_name(const struct nvl_gpu_client *c, char *out, size_t n)
{
	if (c->name[0])
		snprintf(out, n, "%s[%s]", prog_name(), c->name);
	else
		snprintf(out, n, "%s[client %llu]", prog_name(),
			 (unsigned long long)c->id);
}

/* ---- the default table ----------------------------------------------- */

#define RULE_W 89

static void rule(char c, const char *cross)
{
	/* cells of 41, 24 and 22 characters, as nvidia-smi 590 */
	putchar(cross[0]);
	for (int i = 0; i < 41; i++)
		putchar(c);
	putchar(cross[1]);
	for (int i = 0; i < 24; i++)
		putchar(c);
	putchar(cross[1]);
	for (int i = 0; i < 22; i++)
		putchar(c);
	putchar(cross[2]);
	putchar('\n');
}

static void full_rule(char c, char end)
{
	putchar(end);
	for (int i = 0; i < RULE_W; i++)
		putchar(c);
	putchar(end);
	putchar('\n');
}

static void row(const char *a, const char *b, const char *c)
{
	printf("|%-41.41s|%-24.24s|%-22.22s|\n", a, b, c);
}

static void ctime_now(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(buf, len, "%a %b %e %H:%M:%S %Y", &tm);
}

static void fmt_or_na(char *out, size_t n, bool has, const char *pre,
		      long long v, const char *post)
{
	if (has)
		snprintf(out, n, "%s%lld%s", pre, v, post);
	else
		snprintf(out, n, "N/A");
}

static void print_table(struct smi_sample *x, unsigned n)
{
	char now[64], ban[512], a[160], b[96], c[64];
	char fan[16], temp[16], perf[16], pw[16], cap[16], util[16];
	bool any = false;

	ctime_now(now, sizeof(now));
	printf("%s\n", now);
	full_rule('-', '+');
	snprintf(ban, sizeof(ban),
		 " NVL-SMI %-14s Driver Version: %-14s GSP Firmware: %-12s",
		 nvl_version(), nvl_version(),
		 n ? x[0].gpu->info.fw_version : "N/A");
	printf("|%-89.89s|\n", ban);
	rule('-', "|+|");
	row(" GPU  Name                 Persistence-M ",
	    " Bus-Id          Disp.A ", " Volatile Uncorr. ECC ");
	row(" Fan  Temp   Perf          Pwr:Usage/Cap ",
	    "           Memory-Usage ", " GPU-Util  Compute M. ");
	row("", "", "               MIG M. ");
	rule('=', "|+|");
	for (unsigned i = 0; i < n; i++) {
		const struct nvl_sensors *s = &x[i].s;
		bool ok = !x[i].sens_ret;
		char name[80];
		size_t l = strlen(x[i].gpu->info.gpu_name);

		char used[32], total[32];

		if (l > 25)
			snprintf(name, sizeof(name), "%.22s...",
				 x[i].gpu->info.gpu_name);
		else
			snprintf(name, sizeof(name), "%s",
				 x[i].gpu->info.gpu_name);
		snprintf(a, sizeof(a), " %3u  %-25s%9s ", x[i].gpu->index, name,
			 "N/A");
		snprintf(b, sizeof(b), "   %s Off ", x[i].gpu->bus_id);
		row(a, b, "                  N/A ");
		fmt_or_na(fan, sizeof(fan),
			  ok && nvl_sensors_has(s, NVL_SENSOR_FAN), "",
			  s->fan_pct, "%");
		fmt_or_na(temp, sizeof(temp),
			  ok && nvl_sensors_has(s, NVL_SENSOR_GPU_TEMP), "",
			  s->gpu_temp_c, "C");
		fmt_or_na(perf, sizeof(perf),
			  ok && nvl_sensors_has(s, NVL_SENSOR_PSTATE), "P",
			  s->pstate, "");
		fmt_or_na(pw, sizeof(pw),
			  ok && nvl_sensors_has(s, NVL_SENSOR_POWER), "",
			  (s->power_mw + 500) / 1000, "W");
		fmt_or_na(cap, sizeof(cap),
			  ok && nvl_sensors_has(s, NVL_SENSOR_POWER_LIMIT), "",
			  (s->power_limit_mw + 500) / 1000, "W");
		fmt_or_na(util, sizeof(util),
			  ok && nvl_sensors_has(s, NVL_SENSOR_UTIL_GPU), "",
			  s->util_gpu / 100, "%");
		snprintf(a, sizeof(a), "%4s%6s%6s%16s / %5s ", fan, temp, perf,
			 pw, cap);
		snprintf(used, sizeof(used), "%lluMiB",
			 (unsigned long long)(x[i].m.vram_used >> 20));
		snprintf(total, sizeof(total), "%lluMiB",
			 (unsigned long long)(x[i].m.vram_total >> 20));
		snprintf(b, sizeof(b), "%11s / %9s ", used, total);
		snprintf(c, sizeof(c), "%8s%13s ", util, "Default");
		row(a, b, c);
		row("", "", "                  N/A");
		rule('-', "+++");
		any |= x[i].nclients > 0;
	}
	printf("\n");
	full_rule('-', '+');
	printf("|%-89s|\n", " Processes:");
	printf("|%-89s|\n", "  GPU   GI   CI              PID   Type   "
			    "Process name                        GPU Memory");
	printf("|%-89s|\n", "        ID   ID                               "
			    "                                Usage      ");
	full_rule('=', '|');
	if (!any)
		printf("|%-89s|\n", "  No running processes found");
	for (unsigned i = 0; i < n; i++)
		for (int k = 0; k < x[i].nclients; k++) {
			char nm[96], line[160], mem[32];

			client_name(&x[i].clients[k], nm, sizeof(nm));
			snprintf(mem, sizeof(mem), "%lluMiB",
				 (unsigned long long)(x[i].clients[k].vram_B >>
						      20));
			snprintf(line, sizeof(line),
				 "  %3u   N/A  N/A  %12d      C   %-37.37s "
				 "%10s ",
				 x[i].gpu->index, (int)getpid(), nm, mem);
			printf("|%-89s|\n", line);
		}
	full_rule('-', '+');
}

/* ---- -L -------------------------------------------------------------- */

static void print_list(struct smi_sample *x, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		printf("GPU %u: %s (UUID: N/A)\n", x[i].gpu->index,
		       x[i].gpu->info.gpu_name);
}

/* ---- -q -------------------------------------------------------------- */

/*
 * -q -x: the same report as XML (nvidia_smi_log, user-tools.md §1.4).
 * Each ql() line becomes an element named from its label in snake_case,
 * as nvidia-smi names them (a section's children get the section's
 * prefix or suffix: pci_bus, gpu_util, graphics_clock, current_ecc);
 * a section (no value) opens an element that the next line at its
 * indentation or less closes.
 */
static struct {
	bool on;
	int base; /* levels above the open sections: 1, 2 in a gpu */
	int n;
	struct {
		char tag[48];
		int indent;
	} open[8];
} qx;

static void xml_text(const char *s)
{
	for (; *s; s++) {
		if (*s == '&')
			fputs("&amp;", stdout);
		else if (*s == '<')
			fputs("&lt;", stdout);
		else if (*s == '>')
			fputs("&gt;", stdout);
		else if (*s == '"')
			fputs("&quot;", stdout);
		else
			putchar(*s);
	}
}

static void xml_tabs(void)
{
	for (int i = 0; i < qx.n + qx.base; i++)
		putchar('\t');
}

static void xml_close_to(int indent)
{
	while (qx.n && qx.open[qx.n - 1].indent >= indent) {
		qx.n--;
		xml_tabs();
		printf("</%s>\n", qx.open[qx.n].tag);
	}
}

static void snake(const char *label, char *out, size_t n)
{
	size_t k = 0;
	bool sep = false;

	for (; *label && k + 1 < n; label++) {
		char c = *label;

		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    (c >= '0' && c <= '9')) {
			if (sep && k)
				out[k++] = '_';
			sep = false;
			if (k + 1 < n)
				out[k++] = (char)(c >= 'A' && c <= 'Z' ? c + 32
								       : c);
		} else {
			sep = true;
		}
	}
	out[k] = 0;
}

/* the element for @label inside the open section (if any) */
static void xml_tag(const char *label, char *out, size_t n)
{
	static const struct {
		const char *parent, *label, *tag;
	} named[] = {
		{NULL, "GPU UUID", "uuid"},
		{NULL, "Serial Number", "serial"},
		{"clocks_event_reasons", "Idle",
		 "clocks_event_reason_gpu_idle"},
		{"temperature", "GPU Current Temp", "gpu_temp"},
		{"temperature", "Memory Current Temp", "memory_temp"},
		{"process_info", "Process ID", "pid"},
		{"process_info", "Name", "process_name"},
		{"process_info", "Used GPU Memory", "used_memory"},
	};
	const char *parent = qx.n ? qx.open[qx.n - 1].tag : NULL;
	char sn[48];

	for (size_t i = 0; i < NVL_ARRAY_SIZE(named); i++)
		if (!strcmp(named[i].label, label) &&
		    (named[i].parent
			     ? parent && !strcmp(named[i].parent, parent)
			     : !parent)) {
			snprintf(out, n, "%s", named[i].tag);
			return;
		}
	snake(label, sn, sizeof(sn));
	if (!parent)
		snprintf(out, n, "%s", sn);
	else if (!strcmp(parent, "pci"))
		snprintf(out, n, "pci_%s", sn);
	else if (!strcmp(parent, "clocks_event_reasons"))
		snprintf(out, n, "clocks_event_reason_%s", sn);
	else if (!strcmp(parent, "utilization"))
		snprintf(out, n, "%s_util", sn);
	else if (!strcmp(parent, "ecc_mode"))
		snprintf(out, n, "%s_ecc", sn);
	else if (!strcmp(parent, "clocks") || !strcmp(parent, "max_clocks"))
		snprintf(out, n, "%s_clock",
			 !strcmp(sn, "memory") ? "mem" : sn);
	else
		snprintf(out, n, "%s", sn);
}

static void xml_line(int indent, const char *label, const char *value)
{
	char tag[48];

	xml_close_to(indent);
	xml_tag(label, tag, sizeof(tag));
	xml_tabs();
	if (!value) {
		printf("<%s>\n", tag);
		if (qx.n < (int)NVL_ARRAY_SIZE(qx.open)) {
			snprintf(qx.open[qx.n].tag, sizeof(qx.open[qx.n].tag),
				 "%s", tag);
			qx.open[qx.n++].indent = indent;
		}
		return;
	}
	printf("<%s>", tag);
	xml_text(value);
	printf("</%s>\n", tag);
}

static void ql(int indent, const char *label, const char *fmt, ...)
	NVL_PRINTF(3, 4);

static void ql(int indent, const char *label, const char *fmt, ...)
{
	va_list ap;

	if (qx.on) {
		char v[256];

		if (fmt) {
			va_start(ap, fmt);
			vsnprintf(v, sizeof(v), fmt, ap);
			va_end(ap);
		}
		xml_line(indent, label, fmt ? v : NULL);
		return;
	}
	if (!fmt) {
		printf("%*s%s\n", indent, "", label);
		return;
	}
	printf("%*s%-*s", indent, "", 54 - indent, label);
	{
		printf(": ");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
	}
	putchar('\n');
}

/* a field's value as -q prints it: N/A bare, units after a space */
static void qf(int indent, const char *label, const struct smi_sample *x,
	       const char *field)
{
	const struct smi_field *f = smi_fields();
	int id = smi_field_find(field);
	struct smi_val v;
	char t[96];

	smi_field_value(id, x, &v);
	if (v.t == SMI_NA || v.t == SMI_NOTSUP)
		snprintf(t, sizeof(t), "N/A");
	else
		smi_val_text(&v, f[id].unit, true, t, sizeof(t));
	ql(indent, label, "%s", t);
}

static void print_q(struct smi_sample *x, unsigned n, unsigned sec)
{
	char now[64];

	ctime_now(now, sizeof(now));
	if (qx.on) {
		qx.base = 1;
		qx.n = 0;
		printf("<?xml version=\"1.0\" ?>\n"
		       "<!DOCTYPE nvidia_smi_log SYSTEM "
		       "\"nvsmi_device_v12.dtd\">\n"
		       "<nvidia_smi_log>\n");
	} else {
		printf("\n==============NVSMI LOG==============\n\n");
	}
	ql(0, "Timestamp", "%s", now);
	ql(0, "Driver Version", "%s", nvl_version());
	ql(0, "Attached GPUs", "%u", n);
	for (unsigned i = 0; i < n; i++) {
		const struct smi_sample *y = &x[i];

		if (qx.on) {
			printf("\t<gpu id=\"");
			xml_text(y->gpu->bus_id);
			printf("\">\n");
			qx.base = 2;
		} else {
			printf("GPU %s\n", y->gpu->bus_id);
		}
		if (sec == SEC_ALL) {
			ql(4, "Product Name", "%s", y->gpu->info.gpu_name);
			ql(4, "Product Architecture", "%s",
			   y->gpu->info.family);
			ql(4, "Chip", "%s", y->gpu->info.chip);
			ql(4, "Device", "%s", y->gpu->spec);
			qf(4, "Display Attached", y, "display_attached");
			qf(4, "Display Active", y, "display_active");
			qf(4, "Persistence Mode", y, "persistence_mode");
			qf(4, "Serial Number", y, "serial");
			qf(4, "GPU UUID", y, "uuid");
			qf(4, "VBIOS Version", y, "vbios_version");
			ql(4, "GSP Firmware Version", "%s",
			   y->gpu->info.fw_version);
			ql(4, "PCI", NULL);
			qf(8, "Bus", y, "pci.bus");
			qf(8, "Device", y, "pci.device");
			qf(8, "Domain", y, "pci.domain");
			qf(8, "Bus Id", y, "pci.bus_id");
			qf(4, "Fan Speed", y, "fan.speed");
		}
		if (sec & SEC_PERFORMANCE) {
			qf(4, "Performance State", y, "pstate");
			ql(4, "Clocks Event Reasons", NULL);
			qf(8, "Idle", y, "clocks_event_reasons.gpu_idle");
			qf(8, "Applications Clocks Setting", y,
			   "clocks_event_reasons.applications_clocks_setting");
			qf(8, "SW Power Cap", y,
			   "clocks_event_reasons.sw_power_cap");
			qf(8, "HW Slowdown", y,
			   "clocks_event_reasons.hw_slowdown");
			qf(8, "HW Thermal Slowdown", y,
			   "clocks_event_reasons.hw_thermal_slowdown");
		}
		if (sec & SEC_MEMORY) {
			ql(4, "FB Memory Usage", NULL);
			qf(8, "Total", y, "memory.total");
			qf(8, "Reserved", y, "memory.reserved");
			qf(8, "Used", y, "memory.used");
			qf(8, "Free", y, "memory.free");
		}
		if (sec & SEC_COMPUTE)
			qf(4, "Compute Mode", y, "compute_mode");
		if (sec & SEC_UTILIZATION) {
			bool has =
				!y->sens_ret &&
				nvl_sensors_has(&y->s, NVL_SENSOR_UTIL_ENGINES);

			ql(4, "Utilization", NULL);
			qf(8, "GPU", y, "utilization.gpu");
			qf(8, "Memory", y, "utilization.memory");
			for (unsigned e = 0; has && e < y->s.num_engines; e++) {
				char l[32];

				snprintf(l, sizeof(l), "Copy Engine %u", e);
				ql(8, l, "%u %%", y->s.util_engine[e] / 100);
			}
		}
		if (sec & SEC_ECC) {
			ql(4, "ECC Mode", NULL);
			qf(8, "Current", y, "ecc.mode.current");
		}
		if (sec & SEC_TEMPERATURE) {
			char t[32];

			ql(4, "Temperature", NULL);
			snprintf(t, sizeof(t), "%d C", y->s.gpu_temp_c);
			ql(8, "GPU Current Temp", "%s",
			   !y->sens_ret && nvl_sensors_has(&y->s,
							   NVL_SENSOR_GPU_TEMP)
				   ? t
				   : "N/A");
			snprintf(t, sizeof(t), "%d C", y->s.mem_temp_c);
			ql(8, "Memory Current Temp", "%s",
			   !y->sens_ret && nvl_sensors_has(&y->s,
							   NVL_SENSOR_MEM_TEMP)
				   ? t
				   : "N/A");
		}
		if (sec & SEC_POWER) {
			ql(4, "GPU Power Readings", NULL);
			qf(8, "Power Draw", y, "power.draw");
			qf(8, "Current Power Limit", y, "enforced.power.limit");
			qf(8, "Requested Power Limit", y, "power.limit");
			qf(8, "Default Power Limit", y, "power.default_limit");
			qf(8, "Min Power Limit", y, "power.min_limit");
			qf(8, "Max Power Limit", y, "power.max_limit");
		}
		if (sec & SEC_CLOCK) {
			ql(4, "Clocks", NULL);
			qf(8, "Graphics", y, "clocks.current.graphics");
			qf(8, "SM", y, "clocks.current.sm");
			qf(8, "Memory", y, "clocks.current.memory");
			qf(8, "Video", y, "clocks.current.video");
			ql(4, "Max Clocks", NULL);
			qf(8, "Graphics", y, "clocks.max.graphics");
			qf(8, "SM", y, "clocks.max.sm");
			qf(8, "Memory", y, "clocks.max.memory");
			qf(8, "Video", y, "clocks.max.video");
		}
		if (sec & SEC_PIDS) {
			if (!y->nclients && !qx.on)
				ql(4, "Processes", "None");
			else
				ql(4, "Processes", NULL);
			for (int k = 0; k < y->nclients; k++) {
				char nm[96];

				/* XML groups each process's lines */
				if (qx.on)
					ql(7, "Process Info", NULL);
				client_name(&y->clients[k], nm, sizeof(nm));
				ql(8, "GPU instance ID", "N/A");
				ql(8, "Compute instance ID", "N/A");
				ql(8, "Process ID", "%d", (int)getpid());
				ql(12, "Type", "C");
				ql(12, "Name", "%s", nm);
				ql(12, "Used GPU Memory", "%llu MiB",
				   (unsigned long long)(y->clients[k].vram_B >>
							20));
			}
		}
		if (qx.on) {
			xml_close_to(0);
			printf("\t</gpu>\n");
			qx.base = 1;
		} else {
			printf("\n");
		}
	}
	if (qx.on)
		printf("</nvidia_smi_log>\n");
}

/* ---- --query-gpu / --query-compute-apps ------------------------------ */

static const char *const app_fields[] = {
	"timestamp",	"gpu_name",	   "gpu_bus_id",
	"gpu_serial",	"gpu_uuid",	   "pid",
	"process_name", "used_gpu_memory", NULL,
};

static int app_field(const char *s)
{
	if (!strcmp(s, "name"))
		s = "process_name";
	if (!strcmp(s, "used_memory"))
		s = "used_gpu_memory";
	for (int i = 0; app_fields[i]; i++)
		if (!strcmp(app_fields[i], s))
			return i;
	return -1;
}

/* the fields of --query-*; an unknown one fails as nvidia-smi does */
static int query_fields(struct smi_opts *o, int *ids, int max, int *n)
{
	char *save = NULL;

	*n = 0;
	for (char *t = strtok_r(o->query, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		char *e;
		int id;

		while (*t == ' ')
			t++;
		e = t + strlen(t);
		while (e > t && e[-1] == ' ')
			*--e = 0;
		id = o->mode == M_APPS ? app_field(t) : smi_field_find(t);
		if (id < 0 || *n == max) {
			/* nvidia-smi's message on stdout, nvl's on stderr */
			printf("Field \"%s\" is not a valid field to "
			       "query.\n\n",
			       t);
			return nvl_usage_error("smi",
					       "no field '%s' (nvl smi "
					       "%s lists them)",
					       t,
					       o->mode == M_APPS
						       ? "--help"
						       : "--help-query-gpu");
		}
		ids[(*n)++] = id;
	}
	/* only commas or blanks: no field is not an empty report */
	if (!*n) {
		printf("Field \"\" is not a valid field to query.\n\n");
		return nvl_usage_error("smi", "%s names no field",
				       o->mode == M_APPS
					       ? "--query-compute-apps"
					       : "--query-gpu");
	}
	return 0;
}

static void print_csv(struct smi_opts *o, struct smi_sample *x, unsigned n,
		      const int *ids, int nf, bool header)
{
	const struct smi_field *f = smi_fields();
	char t[96];

	if (header) {
		for (int k = 0; k < nf; k++)
			printf("%s%s%s%s%s", k ? ", " : "", f[ids[k]].name,
			       f[ids[k]].unit ? " [" : "",
			       f[ids[k]].unit ? f[ids[k]].unit : "",
			       f[ids[k]].unit ? "]" : "");
		printf("\n");
	}
	for (unsigned i = 0; i < n; i++) {
		for (int k = 0; k < nf; k++) {
			struct smi_val v;

			smi_field_value(ids[k], &x[i], &v);
			smi_val_text(&v, f[ids[k]].unit, !o->nounits, t,
				     sizeof(t));
			printf("%s%s", k ? ", " : "", t);
		}
		printf("\n");
	}
}

static void app_value(int f, const struct smi_sample *x,
		      const struct nvl_gpu_client *c, bool units, char *t,
		      size_t len)
{
	switch (f) {
	case 0:
		snprintf(t, len, "%s", x->timestamp);
		break;
	case 1:
		snprintf(t, len, "%s", x->gpu->info.gpu_name);
		break;
	case 2:
		snprintf(t, len, "%s", x->gpu->bus_id);
		break;
	case 3:
	case 4:
		snprintf(t, len, "[N/A]");
		break;
	case 5:
		snprintf(t, len, "%d", (int)getpid());
		break;
	case 6:
		client_name(c, t, len);
		break;
	default:
		snprintf(t, len, "%llu%s",
			 (unsigned long long)(c->vram_B >> 20),
			 units ? " MiB" : "");
		break;
	}
}

static void print_apps(struct smi_opts *o, struct smi_sample *x, unsigned n,
		       const int *ids, int nf, bool header)
{
	char t[128];

	if (header) {
		for (int k = 0; k < nf; k++)
			printf("%s%s%s", k ? ", " : "", app_fields[ids[k]],
			       ids[k] == 7 ? " [MiB]" : "");
		printf("\n");
	}
	for (unsigned i = 0; i < n; i++)
		for (int c = 0; c < x[i].nclients; c++) {
			for (int k = 0; k < nf; k++) {
				app_value(ids[k], &x[i], &x[i].clients[c],
					  !o->nounits, t, sizeof(t));
				printf("%s%s", k ? ", " : "", t);
			}
			printf("\n");
		}
}

/* ---- --json ---------------------------------------------------------- */

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void print_json(struct smi_sample *x, unsigned n, const int *ids, int nf)
{
	const struct smi_field *f = smi_fields();
	int all[128], na = 0;

	if (!nf) {
		for (int k = 0; f[k].name && na < 128; k++)
			if (strcmp(f[k].name, "timestamp") &&
			    strcmp(f[k].name, "driver_version") &&
			    strcmp(f[k].name, "count"))
				all[na++] = k;
		ids = all;
		nf = na;
	}
	printf("{\"timestamp\": ");
	json_str(n ? x[0].timestamp : "");
	printf(", \"driver_version\": ");
	json_str(nvl_version());
	printf(", \"count\": %u, \"gpus\": [", n);
	for (unsigned i = 0; i < n; i++) {
		printf("%s{", i ? ", " : "");
		for (int k = 0; k < nf; k++) {
			struct smi_val v;

			smi_field_value(ids[k], &x[i], &v);
			printf("%s", k ? ", " : "");
			json_str(f[ids[k]].name);
			printf(": ");
			if (v.t == SMI_NUM)
				printf("%.*f", v.decimals, v.num);
			else if (v.t == SMI_STR)
				json_str(v.str);
			else
				printf("null");
		}
		printf("%s\"processes\": [", nf ? ", " : "");
		for (int c = 0; c < x[i].nclients; c++) {
			const struct nvl_gpu_client *cl = &x[i].clients[c];
			char nm[96];

			client_name(cl, nm, sizeof(nm));
			printf("%s{\"pid\": %d, \"client_id\": %llu, "
			       "\"process_name\": ",
			       c ? ", " : "", (int)getpid(),
			       (unsigned long long)cl->id);
			json_str(nm);
			printf(", \"used_memory\": %llu, \"engine_copy_ns\": ",
			       (unsigned long long)(cl->vram_B >> 20));
			if (cl->has_engine)
				printf("%llu}",
				       (unsigned long long)cl->engine_ns);
			else
				printf("null}");
		}
		printf("]}");
	}
	printf("]}\n");
}

static void print_helpq(void)
{
	const struct smi_field *f = smi_fields();

	printf("List of valid properties to query for the switch "
	       "\"--query-gpu=\":\n\n");
	for (int k = 0; f[k].name; k++) {
		printf("\"%s\"", f[k].name);
		if (f[k].alias)
			printf(" or \"%s\"", f[k].alias);
		printf("\n%s%s%s%s\n\n", f[k].help, f[k].unit ? " Unit: " : "",
		       f[k].unit ? f[k].unit : "", f[k].unit ? "." : "");
	}
}

/* ---- main ------------------------------------------------------------ */

static void sleep_ms(int64_t ms)
{
	int64_t end = nvl_now_ns() + ms * 1000000;

	/* in short steps, so that Ctrl+C ends a loop at once */
	while (!interrupted) {
		int64_t left = end - nvl_now_ns();

		if (left <= 0)
			break;
		if (left > 50000000)
			left = 50000000;
		nanosleep(&(struct timespec){0, left}, NULL);
	}
}

int nvl_cmd_smi(int argc, char **argv)
{
	struct smi_opts o = {0};
	struct smi_sample *x = NULL;
	struct nvl_load *load = NULL;
	struct nvl_gpus g;
	int *ids = NULL, nf = 0, ret;
	long reports = 0;

	ret = parse(argc, argv, &o);
	if (ret) {
		free(o.query);
		return ret < 0 ? NVL_EXIT_OK : ret;
	}
	qx.on = o.xml;
	if (o.mode == M_HELPQ) {
		print_helpq();
		return NVL_EXIT_OK;
	}
	if (o.mode == M_CSV || o.mode == M_APPS) {
		/* a field per comma and one: not 128 at most, past which a
		 * valid field was "not a valid field to query" */
		size_t max = 1;

		for (const char *c = o.query; *c; c++)
			max += *c == ',';
		ids = calloc(max, sizeof(*ids));
		ret = ids ? query_fields(&o, ids, (int)max, &nf)
			  : nvl_tool_fail("smi", "out of memory");
		if (ret) {
			free(ids);
			free(o.query);
			return ret;
		}
	}
	if (nvl_gpus_open(&g, o.devices, "smi")) {
		free(ids);
		free(o.query);
		return NVL_EXIT_FAIL;
	}
	if (o.ids) {
		char bad[64];

		ret = nvl_gpus_select(&g, o.ids, bad);
		if (ret) {
			/* nvidia-smi's words on stdout, nvl's on stderr */
			if (ret == -ENOENT) {
				printf("No devices were found\n");
				nvl_tool_fail("smi", "-i %s: no GPU '%s'",
					      o.ids, bad);
			} else {
				nvl_tool_fail("smi", "out of memory");
			}
			nvl_gpus_close(&g);
			free(ids);
			free(o.query);
			return ret == -ENOENT ? NVL_EXIT_NOT_FOUND
					      : NVL_EXIT_FAIL;
		}
	}
	x = calloc(g.n ? g.n : 1, sizeof(*x));
	if (!x) {
		ret = nvl_tool_fail("smi", "out of memory");
		goto out;
	}
	if (o.run) {
		if (nvl_load_start(g.gpu[0].dev, o.run, "smi", &load)) {
			ret = NVL_EXIT_FAIL;
			goto out;
		}
		/* let the firmware's utilisation sample see it */
		sleep_ms(1000);
	}
	signal(SIGINT, on_sigint);
	do {
		sample(&g, x);
		if (reports && o.mode == M_TABLE)
			printf("\n");
		if (o.json)
			print_json(x, g.n, ids, nf);
		else if (o.mode == M_TABLE)
			print_table(x, g.n);
		else if (o.mode == M_LIST)
			print_list(x, g.n);
		else if (o.mode == M_QUERY)
			print_q(x, g.n, o.sections);
		else if (o.mode == M_CSV)
			print_csv(&o, x, g.n, ids, nf, !o.noheader && !reports);
		else
			print_apps(&o, x, g.n, ids, nf,
				   !o.noheader && !reports);
		fflush(stdout);
		reports++;
		/* stdout gone (a full disk): stop; main() says why */
		if (ferror(stdout))
			break;
		if (!o.loop_ms || (o.count && reports >= o.count))
			break;
		sleep_ms(o.loop_ms);
	} while (!interrupted);
	ret = NVL_EXIT_OK;
out:
	nvl_load_stop(load);
	free(x);
	free(ids);
	free(o.query);
	nvl_gpus_close(&g);
	return ret;
}

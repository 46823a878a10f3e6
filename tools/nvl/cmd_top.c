// SPDX-License-Identifier: MIT
/*
 * DOC: nvl top, a live view like nvtop and gputop
 *
 * Every -d seconds: each GPU's sensors (the firmware's per-copy-engine
 * busy share, clocks, power, temperature) and memory, and every client's
 * fdinfo. A client's busy % comes from two samples of its
 * drm-engine-copy: 100 x delta ns / delta t, not divided by
 * drm-engine-capacity-copy (the share of one engine, as nvtop and
 * intel_gpu_top's JSON; gputop divides), with delta t measured per
 * client; a first sample has no rate (null, or "-" on screen), and a
 * counter that went down is held (the fdinfo rule) until it catches up.
 *
 * Three outputs: an ncurses screen on a terminal (history graphs of
 * utilisation, power and temperature; keys h, s, r, p, q), plain text
 * lines when stdout is not a terminal (or one curses cannot drive), and
 * -J: one JSON object per sample and line.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef NVL_HAVE_CURSES
#include <curses.h>
/* <term.h>'s (X/Open curses), which tools/nvl/term.h hides */
struct term;
int setupterm(const char *term, int fd, int *err);
struct term *set_curterm(struct term *t);
int del_curterm(struct term *t);
#endif

#include "cmd.h"
#include "gpus.h"
#include "help.h"
#include "term.h"

#define HIST 256

enum sort_key { SORT_BUSY, SORT_VRAM, SORT_ID, SORT_NAME, SORT_N };
static const char *const sort_name[SORT_N] = {"busy", "vram", "id", "name"};

struct top_client {
	struct nvl_gpu_client c;
	double busy; /* %, or NAN without a previous sample */
	int64_t t_ns;
	bool seen;
};

struct top_gpu {
	struct nvl_gpu *gpu;
	struct nvl_sensors s;
	int sens_ret;
	struct nvl_device_memory m;
	unsigned n, nprev;
	struct top_client cl[NVL_GPU_CLIENTS_MAX], prev[NVL_GPU_CLIENTS_MAX];
	/* sum of the clients' busy %, capped at 100 x capacity; NAN when
	 * clients run but none has a rate yet (a first sample) */
	double clients_busy;
	/* history, oldest first once full */
	double h_util[HIST], h_power[HIST], h_temp[HIST];
	unsigned hn;
};

struct top {
	struct nvl_gpus g;
	struct top_gpu tg[NVL_GPUS_MAX];
	int64_t delay_ns, period_ns, last_ns;
	long iterations;
	bool json;
	enum sort_key sort;
	bool reverse;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static bool has(const struct top_gpu *t, enum nvl_sensor f)
{
	return !t->sens_ret && nvl_sensors_has(&t->s, f);
}

static void push_hist(double *h, unsigned n, double v)
{
	if (n == HIST)
		memmove(h, h + 1, (HIST - 1) * sizeof(*h));
	h[n == HIST ? HIST - 1 : n] = v;
}

static void sample_gpu(struct top *t, struct top_gpu *tg)
{
	struct nvl_gpu_client c[NVL_GPU_CLIENTS_MAX];
	unsigned cap = 1, rated;
	int64_t now;
	int n;

	memcpy(tg->prev, tg->cl, sizeof(tg->cl));
	tg->nprev = tg->n;
	tg->sens_ret = nvl_device_sensors(tg->gpu->dev, &tg->s);
	nvl_device_memory(tg->gpu->dev, &tg->m);
	n = nvl_gpu_clients(tg->gpu, c, NVL_GPU_CLIENTS_MAX);
	now = nvl_now_ns();
	tg->n = n < 0 ? 0 : (unsigned)n;
	tg->clients_busy = 0;
	rated = 0;
	for (unsigned i = 0; i < tg->n; i++) {
		struct top_client *x = &tg->cl[i];

		x->c = c[i];
		x->t_ns = now;
		x->busy = NAN;
		for (unsigned k = 0; k < tg->nprev; k++) {
			const struct top_client *p = &tg->prev[k];
			double dt = (double)(now - p->t_ns);

			if (p->c.id != c[i].id || !c[i].has_engine || dt <= 0)
				continue;
			if (c[i].engine_ns < p->c.engine_ns) {
				/* went down: hold the larger old value */
				x->c.engine_ns = p->c.engine_ns;
				x->busy = 0;
				break;
			}
			/* not divided by the capacity: the share of one
			 * engine, as nvtop and intel_gpu_top's JSON */
			x->busy = 100.0 *
				  (double)(c[i].engine_ns - p->c.engine_ns) /
				  dt;
			cap = c[i].capacity ? c[i].capacity : 1;
			tg->clients_busy += x->busy;
			break;
		}
		rated += !isnan(x->busy);
	}
	if (tg->clients_busy > 100.0 * cap)
		tg->clients_busy = 100.0 * cap;
	/* no rate is not 0 % (nvl smi's rule: never a made-up number) */
	if (tg->n && !rated)
		tg->clients_busy = NAN;
	push_hist(tg->h_util, tg->hn,
		  has(tg, NVL_SENSOR_UTIL_GPU) ? tg->s.util_gpu / 100.0 : NAN);
	push_hist(tg->h_power, tg->hn,
		  has(tg, NVL_SENSOR_POWER) ? tg->s.power_mw / 1000.0 : NAN);
	push_hist(tg->h_temp, tg->hn,
		  has(tg, NVL_SENSOR_GPU_TEMP) ? tg->s.gpu_temp_c : NAN);
	if (tg->hn < HIST)
		tg->hn++;
	(void)t;
}

static void sample(struct top *t)
{
	int64_t now = nvl_now_ns();

	t->period_ns = t->last_ns ? now - t->last_ns : 0;
	t->last_ns = now;
	for (unsigned i = 0; i < t->g.n; i++)
		sample_gpu(t, &t->tg[i]);
}

static enum sort_key g_sort;
static bool g_reverse;

static int cmp_client(const void *a, const void *b)
{
	const struct top_client *x = a, *y = b;
	int r = 0;

	switch (g_sort) {
	case SORT_BUSY: {
		double bx = isnan(x->busy) ? -1 : x->busy;
		double by = isnan(y->busy) ? -1 : y->busy;

		r = bx < by ? 1 : bx > by ? -1 : 0;
		break;
	}
	case SORT_VRAM:
		r = x->c.vram_B < y->c.vram_B	? 1
		    : x->c.vram_B > y->c.vram_B ? -1
						: 0;
		break;
	case SORT_NAME:
		r = strcmp(x->c.name, y->c.name);
		break;
	default:
		break;
	}
	if (!r)
		r = x->c.id < y->c.id ? -1 : x->c.id > y->c.id;
	return g_reverse ? -r : r;
}

static void sort_clients(struct top *t, struct top_gpu *tg,
			 struct top_client *out)
{
	memcpy(out, tg->cl, tg->n * sizeof(*out));
	g_sort = t->sort;
	g_reverse = t->reverse;
	qsort(out, tg->n, sizeof(*out), cmp_client);
}

/* ---- -J -------------------------------------------------------------- */

static void jnum(bool ok, double v, int dec)
{
	if (ok && !isnan(v))
		printf("%.*f", dec, v);
	else
		printf("null");
}

static void jstr(const char *s)
{
	putchar('"');
	for (; *s; s++)
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s >= 0x20)
			putchar(*s);
	putchar('"');
}

static void print_json(struct top *t)
{
	printf("{\"period\": {\"duration\": %.3f, \"unit\": \"ms\"}, "
	       "\"devices\": [",
	       t->period_ns / 1e6);
	for (unsigned i = 0; i < t->g.n; i++) {
		struct top_gpu *tg = &t->tg[i];
		struct top_client cl[NVL_GPU_CLIENTS_MAX];
		const struct nvl_sensors *s = &tg->s;
		bool eng = has(tg, NVL_SENSOR_UTIL_ENGINES);

		printf("%s{\"index\": %u, \"name\": ", i ? ", " : "",
		       tg->gpu->index);
		jstr(tg->gpu->info.gpu_name);
		printf(", \"bus_id\": ");
		jstr(tg->gpu->bus_id);
		printf(", \"engines\": {");
		for (unsigned e = 0; eng && e < s->num_engines; e++)
			printf("%s\"copy%u\": {\"busy\": %.2f, \"unit\": "
			       "\"%%\"}",
			       e ? ", " : "", e, s->util_engine[e] / 100.0);
		printf("}, \"utilization\": {\"gpu\": ");
		jnum(has(tg, NVL_SENSOR_UTIL_GPU), s->util_gpu / 100.0, 2);
		printf(", \"memory\": ");
		jnum(has(tg, NVL_SENSOR_UTIL_MEM), s->util_mem / 100.0, 2);
		printf(", \"clients\": ");
		jnum(true, tg->clients_busy, 2);
		printf(", \"unit\": \"%%\"}");
		printf(", \"frequency\": {\"graphics\": ");
		jnum(has(tg, NVL_SENSOR_CLK_GR), s->clk_gr_mhz, 0);
		printf(", \"memory\": ");
		jnum(has(tg, NVL_SENSOR_CLK_MEM), s->clk_mem_mhz, 0);
		printf(", \"unit\": \"MHz\"}, \"power\": {\"draw\": ");
		jnum(has(tg, NVL_SENSOR_POWER), s->power_mw / 1000.0, 2);
		printf(", \"limit\": ");
		jnum(has(tg, NVL_SENSOR_POWER_LIMIT),
		     s->power_limit_mw / 1000.0, 2);
		printf(", \"unit\": \"W\"}, \"temperature\": {\"gpu\": ");
		jnum(has(tg, NVL_SENSOR_GPU_TEMP), s->gpu_temp_c, 0);
		printf(", \"memory\": ");
		jnum(has(tg, NVL_SENSOR_MEM_TEMP), s->mem_temp_c, 0);
		printf(", \"unit\": \"C\"}, \"pstate\": ");
		jnum(has(tg, NVL_SENSOR_PSTATE), s->pstate, 0);
		printf(", \"memory\": {\"total\": %.0f, \"used\": %.0f, "
		       "\"unit\": \"MiB\"}, \"clients\": [",
		       (double)(tg->m.vram_total >> 20),
		       (double)(tg->m.vram_used >> 20));
		sort_clients(t, tg, cl);
		for (unsigned k = 0; k < tg->n; k++) {
			printf("%s{\"id\": %llu, \"pid\": %d, \"name\": ",
			       k ? ", " : "", (unsigned long long)cl[k].c.id,
			       (int)getpid());
			jstr(cl[k].c.name);
			printf(", \"engine-classes\": {\"copy\": {\"busy\": ");
			jnum(true, cl[k].busy, 2);
			printf(", \"unit\": \"%%\"}}, \"engine_ns\": %llu, "
			       "\"memory\": {\"vram\": %llu, \"gtt\": %llu, "
			       "\"unit\": \"B\"}}",
			       (unsigned long long)cl[k].c.engine_ns,
			       (unsigned long long)cl[k].c.vram_B,
			       (unsigned long long)cl[k].c.gtt_B);
		}
		printf("]}");
	}
	printf("]}\n");
	fflush(stdout);
}

/* ---- plain text ------------------------------------------------------ */

static void na_or(char *out, size_t n, bool ok, int dec, double v,
		  const char *unit)
{
	if (ok)
		snprintf(out, n, "%.*f%s", dec, v, unit);
	else
		snprintf(out, n, "-");
}

static void gpu_line(struct top_gpu *tg, char *out, size_t n)
{
	const struct nvl_sensors *s = &tg->s;
	char u[16], gr[16], mem[16], pw[16], cap[16], te[16];

	na_or(u, sizeof(u), has(tg, NVL_SENSOR_UTIL_GPU), 0,
	      s->util_gpu / 100.0, "%");
	na_or(gr, sizeof(gr), has(tg, NVL_SENSOR_CLK_GR), 0, s->clk_gr_mhz,
	      "MHz");
	na_or(mem, sizeof(mem), has(tg, NVL_SENSOR_CLK_MEM), 0, s->clk_mem_mhz,
	      "MHz");
	na_or(pw, sizeof(pw), has(tg, NVL_SENSOR_POWER), 1,
	      s->power_mw / 1000.0, "");
	na_or(cap, sizeof(cap), has(tg, NVL_SENSOR_POWER_LIMIT), 0,
	      s->power_limit_mw / 1000.0, "W");
	na_or(te, sizeof(te), has(tg, NVL_SENSOR_GPU_TEMP), 0, s->gpu_temp_c,
	      "C");
	snprintf(out, n,
		 "GPU %u %s  GPU %s  GR %s  MEM %s  POW %s/%s  TEMP %s  "
		 "VRAM %llu/%lluMiB",
		 tg->gpu->index, tg->gpu->info.gpu_name, u, gr, mem, pw, cap,
		 te, (unsigned long long)(tg->m.vram_used >> 20),
		 (unsigned long long)(tg->m.vram_total >> 20));
}

static void client_line(const struct top_client *c, char *out, size_t n)
{
	char b[16];

	na_or(b, sizeof(b), !isnan(c->busy), 1, c->busy, "%");
	snprintf(out, n, "%8d %6llu %-16.16s %7s %8lluMiB %8lluMiB",
		 (int)getpid(), (unsigned long long)c->c.id,
		 c->c.name[0] ? c->c.name : "-", b,
		 (unsigned long long)(c->c.vram_B >> 20),
		 (unsigned long long)(c->c.gtt_B >> 20));
}

#define CLIENT_HEADER                                                          \
	"     PID     ID NAME                COPY     VRAM       GTT"

static void print_text(struct top *t)
{
	char line[256];

	for (unsigned i = 0; i < t->g.n; i++) {
		struct top_gpu *tg = &t->tg[i];
		struct top_client cl[NVL_GPU_CLIENTS_MAX];
		const struct nvl_sensors *s = &tg->s;

		gpu_line(tg, line, sizeof(line));
		printf("%s\n", line);
		if (has(tg, NVL_SENSOR_UTIL_ENGINES)) {
			printf("  ENGINES");
			for (unsigned e = 0; e < s->num_engines; e++)
				printf(" copy%u %.0f%%", e,
				       s->util_engine[e] / 100.0);
			printf("\n");
		}
		printf("%s\n", CLIENT_HEADER);
		sort_clients(t, tg, cl);
		for (unsigned k = 0; k < tg->n; k++) {
			client_line(&cl[k], line, sizeof(line));
			printf("%s\n", line);
		}
	}
	printf("\n");
	fflush(stdout);
}

/* ---- ncurses --------------------------------------------------------- */

#ifdef NVL_HAVE_CURSES
/* a history as a column graph of @h rows, newest on the right */
static void graph(int y, int x, int h, int w, const double *v, unsigned n,
		  double max, const char *label)
{
	mvprintw(y, x, "%s", label);
	for (int c = 0; c < w; c++) {
		int idx = (int)n - w + c;
		double f;
		int bar;

		if (idx < 0 || isnan(v[idx]))
			continue;
		f = max > 0 ? v[idx] / max : 0;
		if (f > 1)
			f = 1;
		bar = (int)lround(f * h);
		for (int r = 0; r < bar; r++)
			mvaddch(y + h - r, x + c, '|');
	}
}

static void draw(struct top *t, bool paused, bool help)
{
	int rows, cols, y = 0;
	char line[256];

	getmaxyx(stdscr, rows, cols);
	erase();
	for (unsigned i = 0; i < t->g.n && y < rows; i++) {
		struct top_gpu *tg = &t->tg[i];
		const struct nvl_sensors *s = &tg->s;
		struct top_client cl[NVL_GPU_CLIENTS_MAX];
		int gw = cols > 40 ? (cols - 4) / 3 : 10;

		gpu_line(tg, line, sizeof(line));
		attron(A_BOLD);
		mvprintw(y++, 0, "%.*s", cols, line);
		attroff(A_BOLD);
		if (has(tg, NVL_SENSOR_UTIL_ENGINES)) {
			for (unsigned e = 0; e < s->num_engines && y < rows;
			     e++) {
				int w = cols > 30 ? cols - 20 : 10;
				int fill = (int)(w * s->util_engine[e] / 10000);

				mvprintw(y, 0, "copy%-2u [", e);
				for (int k = 0; k < w; k++)
					addch(k < fill ? '|' : ' ');
				printw("] %3u%%", s->util_engine[e] / 100);
				y++;
			}
		}
		if (y + 7 < rows) {
			graph(y, 0, 5, gw, tg->h_util, tg->hn, 100, "GPU %");
			graph(y, gw + 2, 5, gw, tg->h_power, tg->hn,
			      has(tg, NVL_SENSOR_POWER_LIMIT)
				      ? s->power_limit_mw / 1000.0
				      : 1,
			      "POWER W");
			graph(y, 2 * gw + 4, 5, gw, tg->h_temp, tg->hn, 100,
			      "TEMP C");
			y += 7;
		}
		attron(A_REVERSE);
		mvprintw(y++, 0, "%-*.*s", cols, cols, CLIENT_HEADER);
		attroff(A_REVERSE);
		sort_clients(t, tg, cl);
		for (unsigned k = 0; k < tg->n && y < rows - 1; k++) {
			client_line(&cl[k], line, sizeof(line));
			mvprintw(y++, 0, "%.*s", cols, line);
		}
		y++;
	}
	mvprintw(rows - 1, 0, "sort: %s%s%s  h help  q quit",
		 sort_name[t->sort], t->reverse ? " (reversed)" : "",
		 paused ? "  [paused]" : "");
	if (help) {
		int hy = rows / 2 - 4 > 0 ? rows / 2 - 4 : 0;

		mvprintw(hy++, 4, "+--------------------------------+");
		mvprintw(hy++, 4, "| h      this help               |");
		mvprintw(hy++, 4, "| s      next sort key           |");
		mvprintw(hy++, 4, "| r      reverse the order       |");
		mvprintw(hy++, 4, "| p      pause / resume          |");
		mvprintw(hy++, 4, "| q Esc  quit                    |");
		mvprintw(hy++, 4, "+--------------------------------+");
	}
	refresh();
}

/*
 * -1 when the terminal cannot be drawn on: TERM unset, "dumb" (no cursor
 * addressing) or unknown to terminfo. initscr() would print "Error opening
 * terminal" and exit(1) there; newterm() returns NULL, and top prints
 * lines instead, as it does off a terminal.
 */
static int run_curses(struct top *t)
{
	const char *term = getenv("TERM");
	bool paused = false, help = false;
	SCREEN *scr;
	long n = 0;
	int err;

	if (!term || !*term || !strcmp(term, "dumb"))
		return -1;
	/* terminfo's entry first: a newterm() that fails leaks its screen */
	if (setupterm(NULL, STDOUT_FILENO, &err) != OK)
		return -1;
	del_curterm(set_curterm(NULL));
	scr = newterm(NULL, stdout, stdin);
	if (!scr)
		return -1;
	set_term(scr);
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	timeout(100);
	sample(t);
	n++;
	draw(t, paused, help);
	while (!stop) {
		int64_t next = nvl_now_ns() + t->delay_ns;

		while (!stop && nvl_now_ns() < next) {
			int ch = getch();

			if (ch == ERR)
				continue;
			if (ch == 'q' || ch == 27) {
				stop = 1;
			} else if (ch == 'h') {
				help = !help;
			} else if (ch == 's') {
				t->sort = (t->sort + 1) % SORT_N;
			} else if (ch == 'r') {
				t->reverse = !t->reverse;
			} else if (ch == 'p') {
				paused = !paused;
			}
			draw(t, paused, help);
		}
		if (stop)
			break;
		if (!paused) {
			sample(t);
			n++;
		}
		draw(t, paused, help);
		if (t->iterations && n >= t->iterations)
			break;
	}
	endwin();
	delscreen(scr);
	return NVL_EXIT_OK;
}
#endif

/* ---- main ------------------------------------------------------------ */

static int run_lines(struct top *t)
{
	long n = 0;

	while (!stop) {
		int64_t next;

		sample(t);
		n++;
		if (t->json)
			print_json(t);
		else
			print_text(t);
		/* stdout gone (a full disk): stop; main() says why */
		if (ferror(stdout))
			break;
		if (t->iterations && n >= t->iterations)
			break;
		next = nvl_now_ns() + t->delay_ns;
		while (!stop && nvl_now_ns() < next) {
			int64_t left = next - nvl_now_ns();

			if (left > 50000000)
				left = 50000000;
			if (left > 0)
				nanosleep(&(struct timespec){0, left}, NULL);
		}
	}
	return NVL_EXIT_OK;
}

static int usage_error(const char *why)
{
	return nvl_help_usage_error("top", why);
}

int nvl_cmd_top(int argc, char **argv)
{
	struct top *t;
	const char *devices = NULL, *run = NULL;
	struct nvl_load *load = NULL;
	int ret;

	t = calloc(1, sizeof(*t));
	if (!t)
		return nvl_tool_fail("top", "out of memory");
	t->delay_ns = 1000000000ll;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		char *end;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			free(t);
			return nvl_help_print(stdout, "top");
		} else if (!strcmp(a, "-J") || !strcmp(a, "--json")) {
			t->json = true;
		} else if ((!strcmp(a, "-d") || !strcmp(a, "--delay")) &&
			   i + 1 < argc) {
			double d = strtod(argv[++i], &end);

			if (*end || !(d >= 0.1 && d <= 100)) {
				free(t);
				return usage_error(
					"-d takes seconds, 0.1 .. 100");
			}
			t->delay_ns = (int64_t)(d * 1e9);
		} else if ((!strcmp(a, "-n") || !strcmp(a, "--iterations")) &&
			   i + 1 < argc) {
			long n;

			/* not LONG_MAX for a count strtol() cannot hold */
			errno = 0;
			n = strtol(argv[++i], &end, 10);
			if (*end || n < 1 || errno) {
				free(t);
				return usage_error("-n takes a count >= 1");
			}
			t->iterations = n;
		} else if ((!strcmp(a, "-s") || !strcmp(a, "--sort")) &&
			   i + 1 < argc) {
			int k;

			for (k = 0; k < SORT_N; k++)
				if (!strcmp(argv[i + 1], sort_name[k]))
					break;
			if (k == SORT_N) {
				free(t);
				return usage_error(
					"-s takes busy, vram, id or name");
			}
			t->sort = (enum sort_key)k;
			i++;
		} else if (!strcmp(a, "--devices") && i + 1 < argc) {
			devices = argv[++i];
			/* --devices "$D" with D unset: not the default */
			if (!nvl_gpus_specs_valid(devices)) {
				free(t);
				return usage_error("--devices names no device");
			}
		} else if (!strcmp(a, "--run") && i + 1 < argc) {
			run = argv[++i];
			if (!nvl_load_valid(run, "top")) {
				free(t);
				return NVL_EXIT_USAGE;
			}
		} else {
			free(t);
			if (a[0] != '-')
				return nvl_usage_error(
					"top", "unexpected argument '%s'", a);
			return nvl_usage_error(
				"top",
				"unknown option '%s' or its value missing", a);
		}
	}
	if (nvl_gpus_open(&t->g, devices, "top")) {
		free(t);
		return NVL_EXIT_FAIL;
	}
	for (unsigned i = 0; i < t->g.n; i++)
		t->tg[i].gpu = &t->g.gpu[i];
	if (run && nvl_load_start(t->g.gpu[0].dev, run, "top", &load)) {
		nvl_gpus_close(&t->g);
		free(t);
		return NVL_EXIT_FAIL;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	ret = -1;
#ifdef NVL_HAVE_CURSES
	if (!t->json && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO))
		ret = run_curses(t);
#endif
	if (ret < 0)
		ret = run_lines(t);
	nvl_load_stop(load);
	nvl_gpus_close(&t->g);
	free(t);
	return ret;
}

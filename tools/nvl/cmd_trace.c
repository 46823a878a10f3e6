// SPDX-License-Identifier: MIT
/*
 * DOC: nvl trace
 *
 * Opens a device with a wire tracer (nvl_device_opts.trace), boots it,
 * runs a small built-in workload of copy-engine jobs from several clients
 * (pushbuffers built with nouvelle/push.h, every byte checked), closes the
 * device, then decodes everything that crossed the wires: the boot's and
 * the jobs' GSP RPCs, replies and events, and every pushbuffer the
 * channels processed. --record FILE keeps the capture; --read FILE decodes
 * a capture instead of running. Filters: --client, --channel (pushbuffers),
 * --rpc (GSP messages), --gsp / --push (one side only).
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nouvelle/nouvelle.h>

#include "base/time.h"
#include "cmd.h"
#include "help.h"
#include "term.h"
#include "outfile.h"
#include "trace.h"

#define MIB (1ull << 20)
#define BUF (64 * 1024)

struct collector {
	pthread_mutex_t lock;
	struct nvl_trace_log log;
	int64_t t0;
	int err;
};

static void collect(void *arg, const struct nvl_trace_rec *r)
{
	struct collector *c = arg;
	struct nvl_trace_item it = {
		.kind = r->kind,
		.function = r->function,
		.sequence = r->sequence,
		.result = r->result,
		.chid = r->chid,
		.va = r->va,
		.len = (uint32_t)r->len,
	};

	memcpy(it.cls, r->cls, sizeof(it.cls));
	pthread_mutex_lock(&c->lock);
	it.t_ns = (uint64_t)(nvl_time_ns() - c->t0);
	if (!c->err && nvl_trace_log_add(&c->log, &it, r->data))
		c->err = -ENOMEM;
	pthread_mutex_unlock(&c->lock);
}

struct wl_client {
	struct nvl_client *c;
	uint32_t vm, bo[3], chan, sync;
	uint8_t *src, *dst;
	uint32_t *pb;
};

static int fail(const char *what, int ret)
{
	return nvl_tool_fail("trace", "%s: %s (%d)", what, nvl_last_error(),
			     ret);
}

static int wl_bo(struct wl_client *w, unsigned i, uint64_t va, void **cpu)
{
	struct nvl_vm_bind_op op = {
		.op = NVL_VM_BIND_OP_MAP, .addr = va, .range = BUF};
	int ret;

	ret = nvl_bo_create(w->c, BUF, NVL_BO_DOMAIN_VRAM, 0,
			    NVL_BO_CPU_VISIBLE, &w->bo[i]);
	if (!ret)
		ret = nvl_bo_map(w->c, w->bo[i], cpu);
	op.handle = w->bo[i];
	if (!ret)
		ret = nvl_vm_bind(w->c, w->vm, 0, &op, 1, NULL, 0, NULL, 0, 0);
	return ret;
}

/* one client: a VM, three BOs, a copy channel; its chid recorded */
static int wl_up(struct nvl_device *dev, struct collector *col,
		 struct wl_client *w, unsigned idx)
{
	struct nvl_vm_create_args va = {.start = 1 * MIB,
					.end = 1ull << 40,
					.kernel_start = 1ull << 39,
					.kernel_range = 16 * MIB};
	struct nvl_channel_info ci;
	struct nvl_trace_item it = {.kind = NVL_TRACE_TOOL_CHANNEL};
	int ret;

	ret = nvl_device_client_create(dev, &w->c);
	if (!ret)
		ret = nvl_vm_create(w->c, &va, &w->vm);
	if (!ret)
		ret = wl_bo(w, 0, 16 * MIB, (void **)&w->src);
	if (!ret)
		ret = wl_bo(w, 1, 32 * MIB, (void **)&w->dst);
	if (!ret)
		ret = wl_bo(w, 2, 48 * MIB, (void **)&w->pb);
	if (!ret)
		ret = nvl_channel_create(w->c, w->vm, NVL_ENGINE_COPY, 0,
					 &w->chan);
	if (!ret)
		ret = nvl_syncobj_create(w->c, 0, &w->sync);
	if (!ret)
		ret = nvl_channel_query(w->c, w->chan, &ci);
	if (ret)
		return fail("client setup", ret);
	it.chid = ci.chid;
	it.client = idx;
	it.channel = w->chan;
	pthread_mutex_lock(&col->lock);
	if (nvl_trace_log_add(&col->log, &it, NULL))
		col->err = -ENOMEM;
	pthread_mutex_unlock(&col->lock);
	return 0;
}

static void wl_down(struct wl_client *w)
{
	if (!w->c)
		return;
	if (w->chan)
		nvl_channel_destroy(w->c, w->chan);
	for (unsigned i = 0; i < 3; i++)
		if (w->bo[i])
			nvl_bo_unmap(w->c, w->bo[i]);
	nvl_client_destroy(w->c);
}

/* job @j of client @w: a copy, a fill, semaphore releases */
static int wl_job(struct wl_client *w, uint32_t ce_class, unsigned j)
{
	uint64_t src = 16 * MIB, dst = 32 * MIB, sem = 48 * MIB + 32 * 1024;
	struct nvl_exec_push ep = {.va = 48 * MIB};
	struct nvl_vm_sync s = {.handle = w->sync};
	struct nvl_push p;
	uint32_t *sems = w->pb + 32 * 1024 / 4;
	int ret;

	for (size_t i = 0; i < BUF; i++)
		w->src[i] = (uint8_t)(i * 7 + j + 1);
	nvl_push_init(&p, w->pb, 16 * 1024);
	nvl_push_ce_set_object(&p, 0, ce_class);
	nvl_push_ce_copy(&p, 0, dst, src, BUF / 2);
	nvl_push_ce_fill(&p, 0, dst + BUF / 2, 0x5a5a0000u | j, BUF / 2);
	nvl_push_ce_sem_release(&p, 0, sem, j + 1);
	nvl_push_host_sem_acquire(&p, sem, j + 1, NVL_PUSH_ACQ_GEQ);
	nvl_push_host_sem_release(&p, sem + 8, j + 1, 0);
	nvl_push_host_non_stall_intr(&p);
	if (nvl_push_end(&p) < 0)
		return fail("pushbuffer", (int)nvl_push_end(&p));
	ep.len = nvl_push_bytes(&p);
	ret = nvl_exec(w->c, w->chan, &ep, 1, NULL, 0, &s, 1, 0);
	if (!ret)
		ret = nvl_syncobj_wait(w->c, &w->sync, NULL, 1,
				       nvl_time_ns() + 10000000000ll, 0, NULL);
	if (ret)
		return fail("exec", ret);
	if (memcmp(w->dst, w->src, BUF / 2) || sems[0] != j + 1 ||
	    sems[2] != j + 1 ||
	    ((uint32_t *)w->dst)[BUF / 8] != (0x5a5a0000u | j)) {
		return nvl_tool_fail("trace", "job %u: wrong bytes", j);
	}
	return 0;
}

static int run_workload(const char *spec, const char *fw, unsigned nclients,
			unsigned jobs, struct collector *col)
{
	struct nvl_device_opts o = {
		.fw_version = fw, .trace = collect, .trace_arg = col};
	struct wl_client w[8];
	struct nvl_device_info info;
	struct nvl_device *dev;
	int ret, rc = 0;

	memset(w, 0, sizeof(w));
	col->t0 = nvl_time_ns();
	ret = nvl_device_open(spec, &o, &dev);
	if (ret)
		return fail("device open", ret);
	nvl_device_query(dev, &info);
	snprintf(col->log.chip, sizeof(col->log.chip), "%s", info.chip);
	snprintf(col->log.fw, sizeof(col->log.fw), "%s", info.fw_version);
	for (unsigned i = 0; i < nclients && !rc; i++)
		rc = wl_up(dev, col, &w[i], i);
	for (unsigned j = 0; j < jobs && !rc; j++)
		for (unsigned i = 0; i < nclients && !rc; i++)
			rc = wl_job(&w[i], info.ce_class, j);
	for (unsigned i = 0; i < nclients; i++)
		wl_down(&w[i]);
	nvl_device_close(dev);
	if (!rc && col->err)
		rc = fail("capture", col->err);
	return rc;
}

/* the capture in @path whole, or no file (a full disk cuts none short) */
static int record_capture(const struct nvl_trace_log *l, const char *path)
{
	struct nvl_out o;
	int ret = nvl_out_open(&o, path);

	if (ret)
		return nvl_tool_fail("trace", "cannot write %s: %s", path,
				     strerror(-ret));
	if (nvl_trace_log_write(l, o.f, path)) {
		nvl_tool_fail("trace", "%s", nvl_last_error());
		nvl_out_close(&o, false);
		return 1;
	}
	ret = nvl_out_close(&o, true);
	if (ret)
		return nvl_tool_fail("trace", "cannot write %s: %s", path,
				     strerror(-ret));
	return 0;
}

/*
 * Decimal, as the decoder prints clients and handles: base 0 took
 * "--client 010" for client 8 and refused "--client 08"
 */
static int parse_uint(const char *s, unsigned max, unsigned *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = (unsigned)v;
	return 0;
}

int nvl_cmd_trace(int argc, char **argv)
{
	static const struct option lo[] = {
		{"device", required_argument, NULL, 'd'},
		{"firmware", required_argument, NULL, 'F'},
		{"clients", required_argument, NULL, 'c'},
		{"jobs", required_argument, NULL, 'j'},
		{"record", required_argument, NULL, 'r'},
		{"read", required_argument, NULL, 'R'},
		{"client", required_argument, NULL, 'C'},
		{"channel", required_argument, NULL, 'H'},
		{"rpc", required_argument, NULL, 'P'},
		{"gsp", no_argument, NULL, 'g'},
		{"push", no_argument, NULL, 'p'},
		{"raw", no_argument, NULL, 'x'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	struct nvl_trace_filter flt = {.client = -1, .channel = -1};
	struct collector col = {.lock = PTHREAD_MUTEX_INITIALIZER};
	const char *spec = NULL, *fw = NULL, *record = NULL, *readf = NULL;
	unsigned nclients = 2, jobs = 2, v;
	struct nvl_trace_stats st;
	bool quiet = false;
	int ch, rc;

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":d:c:j:r:gpqh", lo, NULL)) !=
	       -1) {
		/* -d "$SPEC" with SPEC unset is not the default device, nor
		 * --rpc "" a filter that hides every message */
		if (ch > 0 && strchr("dFrRP", ch) && optarg && !*optarg)
			return nvl_help_usage_error(
				"trace", "an option's value is empty");
		switch (ch) {
		case 'd':
			spec = optarg;
			break;
		case 'F':
			fw = optarg;
			break;
		case 'c':
			if (parse_uint(optarg, 8, &nclients) || !nclients)
				return nvl_help_usage_error(
					"trace", "--clients wants 1..8");
			break;
		case 'j':
			if (parse_uint(optarg, 1000, &jobs))
				return nvl_help_usage_error(
					"trace", "--jobs wants 0..1000");
			break;
		case 'r':
			record = optarg;
			break;
		case 'R':
			readf = optarg;
			break;
		case 'C':
			if (parse_uint(optarg, 1u << 30, &v))
				return nvl_help_usage_error(
					"trace", "--client wants a number");
			flt.client = (int)v;
			break;
		case 'H':
			if (parse_uint(optarg, 1u << 30, &v))
				return nvl_help_usage_error(
					"trace", "--channel wants a handle");
			flt.channel = (int)v;
			break;
		case 'P':
			flt.rpc = optarg;
			break;
		case 'g':
			flt.no_push = true;
			break;
		case 'p':
			flt.no_gsp = true;
			break;
		case 'x':
			flt.raw = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			return nvl_help_print(stdout, "trace");
		default:
			return nvl_usage_getopt("trace", ch, argv);
		}
	}
	if (optind != argc)
		return nvl_usage_error("trace", "unexpected argument '%s'",
				       argv[optind]);
	if (flt.no_gsp && flt.no_push)
		return nvl_help_usage_error(
			"trace", "--gsp and --push exclude each other");
	if (readf && (record || spec || fw))
		return nvl_help_usage_error(
			"trace", "--read decodes a capture: no --record, "
				 "--device or --firmware with it");
	if (readf) {
		if (nvl_trace_log_read(&col.log, readf))
			return nvl_tool_fail("trace", "%s", nvl_last_error());
		rc = 0;
	} else {
		rc = run_workload(spec, fw, nclients, jobs, &col);
		if (!rc && record)
			rc = record_capture(&col.log, record);
	}
	if (!rc && !(record && !strcmp(record, "-"))) {
		FILE *out = quiet ? fopen("/dev/null", "w") : stdout;

		if (!out) {
			rc = nvl_tool_fail("trace", "/dev/null: %s",
					   strerror(errno));
		} else {
			nvl_trace_decode(&col.log, &flt, out, &st);
			if (quiet)
				fclose(out);
			nvl_trace_summary(stdout, &st);
		}
	}
	nvl_trace_log_free(&col.log);
	return rc;
}

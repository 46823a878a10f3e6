// SPDX-License-Identifier: MIT
/*
 * DOC: sensors and reclocking through the GSP
 *
 * Everything is a GSP_RM_CONTROL on a subdevice, as on GSP-RM: the
 * thermal instruction list for temperatures, perf utilisation samples and
 * the current P-state with NVIDIA's numbers, and nouvelle's own
 * 0x2080f1xx controls where the public ABI has none (power) or none we
 * could verify (clocks, perf status, P-state limits). A read is five
 * controls in one GSP_RM_CONTROL (nouvelle's NVL2080_CTRL_CMD_MULTI_CONTROL:
 * one round trip, each entry served as if sent alone); a firmware without
 * it (a real GSP-RM) gets the five sent at once, and is remembered. A read
 * is stateless: one instruction list discovers the sensors and reads them
 * in the same call. A control the firmware does not support (-EOPNOTSUPP) leaves its
 * fields absent; any other failure fails the read and leaves the caller's
 * struct untouched.
 *
 * Reclocking calls need the caller's privilege (the device passes whether
 * its client may change device state): without it they fail with -EPERM
 * before anything is sent.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "base/alloc.h"
#include "base/log.h"
#include "gsp/abi.h"
#include "gsp/gsp.h"
#include "gsp/priv.h"
#include "gsp/rm.h"
#include "gsp/sensors.h"
#include "gspabi.h"

#define BIT(f) NVL_SENSOR_BIT(f)
#define THERM_PROBE 4 /* targets and sensors probed per read */

/* ---- the controls of one read, sent at once ------------------------------ */

/* one control of a read: sent asynchronously, all in flight together */
struct sctl {
	uint32_t cmd;
	void *params;
	size_t size;
	int ret; /* 0, -EOPNOTSUPP (fields absent) or an error */
	uint8_t *msg; /* the request, framed by the version's layer */
	uint8_t *rep; /* the reply, in the same allocation */
	struct nvl_gsp_async *a;
};

/*
 * Send @n controls on @hsub without waiting in between, then collect the
 * replies: a read costs about one round trip plus the firmware's work,
 * not n round trips. Return: 0 when every control answered (each c->ret
 * says how), else the first error other than -EOPNOTSUPP.
 */
static int batch(struct nvl_gsp *gsp, uint32_t hsub, struct sctl *c, unsigned n)
{
	uint32_t client = nvl_gsp_rm_client_of(gsp, hsub);
	size_t hdr = nvl_gsp_rm_control_hdr(gsp);
	int ret = 0;

	if (!client)
		return nvl_error(-ENOENT, "sensors: subdevice %#x unknown",
				 hsub);
	for (unsigned i = 0; i < n; i++) {
		/* request and reply apart: the sender may still be reading
		 * one request while the receive thread writes another reply */
		size_t len = (hdr + c[i].size + 7) & ~(size_t)7;

		c[i].msg = nvl_zalloc(2 * len);
		if (!c[i].msg) {
			ret = nvl_error(-ENOMEM, "sensors: no memory");
			goto out;
		}
		c[i].rep = c[i].msg + len;
		ret = nvl_gsp_rm_control_frame(gsp, client, hsub, c[i].cmd,
					       c[i].params, c[i].size,
					       c[i].msg);
		if (ret)
			goto out;
	}
	for (unsigned i = 0; i < n && !ret; i++) {
		size_t len = hdr + c[i].size;

		ret = nvl_gsp_rpc_async(gsp,
					NV_VGPU_MSG_FUNCTION_GSP_RM_CONTROL,
					c[i].msg, len, c[i].rep, len, &c[i].a);
	}
	/* the firmware answers in order: wait for the last one first, then
	 * the others are there already (one sleep, not n) */
	for (unsigned j = n; j-- > 0;) {
		unsigned i = j;
		size_t got = 0;
		int r;

		if (!c[i].a)
			continue;
		r = nvl_gsp_async_wait(gsp, c[i].a, &got, 0);
		c[i].a = NULL;
		c[i].ret = r ? r
			     : nvl_gsp_rm_control_parse(gsp, c[i].cmd, c[i].rep,
							got, c[i].params,
							c[i].size);
		if (!ret && c[i].ret && c[i].ret != -EOPNOTSUPP)
			ret = c[i].ret;
	}
out:
	for (unsigned i = 0; i < n; i++)
		nvl_free(c[i].msg);
	return ret;
}

/*
 * The same @n controls as one NVL2080_CTRL_CMD_MULTI_CONTROL: one round
 * trip, the firmware running them in order. Return as batch(), or
 * -EOPNOTSUPP (nothing read) when the firmware has no multi control.
 */
static int multi(struct nvl_gsp *gsp, uint32_t hsub, struct sctl *c, unsigned n)
{
	NVL2080_CTRL_MULTI_CONTROL_PARAMS h = {.count = n};
	size_t total = sizeof(h), at;
	uint8_t *buf;
	int ret;

	if (n > NVL2080_CTRL_MULTI_CONTROL_MAX)
		return nvl_error(-EINVAL, "sensors: %u controls in one", n);
	for (unsigned i = 0; i < n; i++) {
		h.entries[i].cmd = c[i].cmd;
		h.entries[i].paramsSize = (uint32_t)c[i].size;
		total += (c[i].size + 7) & ~(size_t)7;
	}
	buf = nvl_zalloc(total);
	if (!buf)
		return nvl_error(-ENOMEM, "sensors: no memory");
	at = sizeof(h);
	for (unsigned i = 0; i < n; i++) {
		memcpy(buf + at, c[i].params, c[i].size);
		at += (c[i].size + 7) & ~(size_t)7;
	}
	memcpy(buf, &h, sizeof(h));
	ret = nvl_gsp_rm_control(gsp, hsub, NVL2080_CTRL_CMD_MULTI_CONTROL, buf,
				 total);
	if (ret) {
		if (ret == -EOPNOTSUPP)
			atomic_store(&gsp->no_multi_control, true);
		goto out;
	}
	memcpy(&h, buf, sizeof(h));
	at = sizeof(h);
	for (unsigned i = 0; i < n; i++) {
		uint32_t st = h.entries[i].status;

		memcpy(c[i].params, buf + at, c[i].size);
		at += (c[i].size + 7) & ~(size_t)7;
		c[i].ret = st == NV_OK ? 0
				       : nvl_error(nvl_gsp_status_errno(st),
						   "sensors: control %#x: %s",
						   c[i].cmd,
						   nvl_gsp_status_name(st));
		if (!ret && c[i].ret && c[i].ret != -EOPNOTSUPP)
			ret = c[i].ret;
	}
out:
	nvl_free(buf);
	return ret;
}

/* ---- thermal: one instruction list ---------------------------------------- */

static void ins(NV2080_CTRL_THERMAL_SYSTEM_EXECUTE_V2_PARAMS *p,
		uint32_t opcode, uint32_t index)
{
	NV2080_CTRL_THERMAL_SYSTEM_INSTRUCTION *in =
		&p->instructionList[p->instructionListSize++];

	in->opcode = opcode;
	in->operands.space[0] = index; /* every indexed operand starts so */
}

static void thermal_prepare(NV2080_CTRL_THERMAL_SYSTEM_EXECUTE_V2_PARAMS *p)
{
	p->clientAPIVersion = NV2080_CTRL_THERMAL_SYSTEM_API_VER;
	p->clientAPIRevision = NV2080_CTRL_THERMAL_SYSTEM_API_REV;
	p->clientInstructionSizeOf = sizeof(*p->instructionList);
	p->executeFlags = NV2080_CTRL_THERMAL_SYSTEM_EXECUTE_FLAGS_IGNORE_FAIL;
	/* 0: targets, 1..4: their types, 5: sensors, 6..9: their targets,
	 * 10..13: their readings */
	ins(p, NV2080_CTRL_THERMAL_SYSTEM_GET_INFO_TARGETS_AVAILABLE_OPCODE, 0);
	for (uint32_t i = 0; i < THERM_PROBE; i++)
		ins(p, NV2080_CTRL_THERMAL_SYSTEM_GET_INFO_TARGET_TYPE_OPCODE,
		    i);
	ins(p, NV2080_CTRL_THERMAL_SYSTEM_GET_INFO_SENSORS_AVAILABLE_OPCODE, 0);
	for (uint32_t i = 0; i < THERM_PROBE; i++)
		ins(p, NV2080_CTRL_THERMAL_SYSTEM_GET_INFO_SENSOR_TARGET_OPCODE,
		    i);
	for (uint32_t i = 0; i < THERM_PROBE; i++)
		ins(p,
		    NV2080_CTRL_THERMAL_SYSTEM_GET_STATUS_SENSOR_READING_OPCODE,
		    i);
}

static void thermal_parse(const NV2080_CTRL_THERMAL_SYSTEM_EXECUTE_V2_PARAMS *p,
			  struct nvl_sensors *s)
{
	const NV2080_CTRL_THERMAL_SYSTEM_INSTRUCTION *l = p->instructionList;
	uint32_t ttype[THERM_PROBE] = {0};

	for (uint32_t t = 0; t < THERM_PROBE; t++)
		if (l[1 + t].executed && l[1 + t].result == NV_OK)
			ttype[t] = l[1 + t].operands.getInfoTargetType.type;
	for (uint32_t i = 0; i < THERM_PROBE; i++) {
		const NV2080_CTRL_THERMAL_SYSTEM_INSTRUCTION *tg = &l[6 + i];
		const NV2080_CTRL_THERMAL_SYSTEM_INSTRUCTION *rd = &l[10 + i];
		uint32_t t;

		if (!tg->executed || tg->result != NV_OK || !rd->executed ||
		    rd->result != NV_OK)
			continue;
		t = tg->operands.getInfoSensorTarget.targetIndex;
		if (t >= THERM_PROBE)
			continue;
		if (ttype[t] == NV2080_CTRL_THERMAL_SYSTEM_TARGET_GPU &&
		    !(s->valid & BIT(NVL_SENSOR_GPU_TEMP))) {
			s->gpu_temp_c =
				rd->operands.getStatusSensorReading.value;
			s->valid |= BIT(NVL_SENSOR_GPU_TEMP);
		} else if (ttype[t] ==
				   NV2080_CTRL_THERMAL_SYSTEM_TARGET_MEMORY &&
			   !(s->valid & BIT(NVL_SENSOR_MEM_TEMP))) {
			s->mem_temp_c =
				rd->operands.getStatusSensorReading.value;
			s->valid |= BIT(NVL_SENSOR_MEM_TEMP);
		}
	}
}

/* ---- the rest ------------------------------------------------------------- */

static void power_parse(const NVL2080_CTRL_PMGR_GET_STATUS_PARAMS *p,
			struct nvl_sensors *s)
{
	s->power_mw = p->powerMw;
	s->power_limit_mw = p->limitMw;
	s->power_min_mw = p->minLimitMw;
	s->power_max_mw = p->maxLimitMw;
	s->power_default_mw = p->defaultLimitMw;
	s->energy_mj = p->energyMj;
	s->timestamp_ns = p->timeStamp;
	s->valid |= BIT(NVL_SENSOR_POWER) | BIT(NVL_SENSOR_POWER_LIMIT) |
		    BIT(NVL_SENSOR_ENERGY);
}

static const struct {
	uint32_t domain;
	enum nvl_sensor cur, max;
} clk_dom[] = {
	{NV2080_CTRL_CLK_DOMAIN_GPCCLK, NVL_SENSOR_CLK_GR,
	 NVL_SENSOR_CLK_GR_MAX},
	{NV2080_CTRL_CLK_DOMAIN_MCLK, NVL_SENSOR_CLK_MEM,
	 NVL_SENSOR_CLK_MEM_MAX},
	{NV2080_CTRL_CLK_DOMAIN_NVDCLK, NVL_SENSOR_CLK_VIDEO,
	 NVL_SENSOR_CLK_VIDEO_MAX},
};

static void clocks_parse(const NVL2080_CTRL_CLK_GET_INFO_PARAMS *p,
			 struct nvl_sensors *s)
{
	uint32_t *cur[] = {&s->clk_gr_mhz, &s->clk_mem_mhz, &s->clk_video_mhz};
	uint32_t *max[] = {&s->clk_gr_max_mhz, &s->clk_mem_max_mhz,
			   &s->clk_video_max_mhz};

	for (unsigned i = 0; i < NVL_ARRAY_SIZE(clk_dom); i++) {
		*cur[i] = p->clkInfoList[i].actualMHz;
		*max[i] = p->clkInfoList[i].maxMHz;
		s->valid |= BIT(clk_dom[i].cur) | BIT(clk_dom[i].max);
	}
}

static void perf_parse(const NVL2080_CTRL_PERF_GET_STATUS_PARAMS *p,
		       struct nvl_sensors *s)
{
	s->throttle = p->reasons;
	s->throttle_supported = p->reasonsSupported;
	s->valid |= BIT(NVL_SENSOR_THROTTLE);
	if (p->flags & NVL2080_CTRL_PERF_STATUS_FLAG_FAN) {
		s->fan_pct = p->fanPercent;
		s->valid |= BIT(NVL_SENSOR_FAN);
	}
	s->pstate = p->pstate;
	s->valid |= BIT(NVL_SENSOR_PSTATE);
	if (!s->timestamp_ns)
		s->timestamp_ns = p->timeStamp;
}

static void
util_parse(const NV2080_CTRL_PERF_GET_GPUMON_PERFMON_UTIL_SAMPLES_V2_PARAMS *p,
	   struct nvl_sensors *s)
{
	if (!p->count || p->tracker >= p->count)
		return;
	/* the newest of the firmware's samples */
	s->util_gpu = p->samples[p->tracker].gr.util;
	s->util_mem = p->samples[p->tracker].fb.util;
	s->valid |= BIT(NVL_SENSOR_UTIL_GPU) | BIT(NVL_SENSOR_UTIL_MEM);
}

static void engines_parse(const NVL2080_CTRL_PERF_GET_STATUS_PARAMS *e,
			  struct nvl_sensors *s)
{
	if (!e->numEngines)
		return; /* no perfmon sample yet */
	s->num_engines = e->numEngines < NVL_SENSORS_MAX_ENGINES
				 ? e->numEngines
				 : NVL_SENSORS_MAX_ENGINES;
	for (unsigned i = 0; i < s->num_engines; i++)
		s->util_engine[i] = e->engineUtil[i];
	s->valid |= BIT(NVL_SENSOR_UTIL_ENGINES);
}

/* everything one read sends, in order */
struct sread {
	NVL2080_CTRL_PMGR_GET_STATUS_PARAMS power;
	NV2080_CTRL_THERMAL_SYSTEM_EXECUTE_V2_PARAMS thermal;
	NVL2080_CTRL_CLK_GET_INFO_PARAMS clk;
	NV2080_CTRL_PERF_GET_GPUMON_PERFMON_UTIL_SAMPLES_V2_PARAMS util;
	NVL2080_CTRL_PERF_GET_STATUS_PARAMS perf;
};

enum { C_POWER, C_THERMAL, C_CLK, C_UTIL, C_PERF, C_NR };

int nvl_gsp_sensors_read(struct nvl_gsp *gsp, uint32_t hsub,
			 struct nvl_sensors *out)
{
	struct nvl_sensors s = {0};
	struct sctl c[C_NR];
	struct sread *r;
	int ret;

	if (!gsp || !out)
		return nvl_error(-EINVAL, "sensors: no GSP or no output");
	r = nvl_zalloc(sizeof(*r));
	if (!r)
		return nvl_error(-ENOMEM, "sensors: no memory");
	thermal_prepare(&r->thermal);
	r->clk.clkInfoListSize = NVL_ARRAY_SIZE(clk_dom);
	for (unsigned i = 0; i < NVL_ARRAY_SIZE(clk_dom); i++)
		r->clk.clkInfoList[i].clkDomain = clk_dom[i].domain;
	r->util.type = NV2080_CTRL_GPUMON_SAMPLE_TYPE_PERFMON_UTIL;
	r->util.bufSize = sizeof(r->util.samples);
#define C(i, c_, f_)                                                           \
	c[i] = (struct sctl){                                                  \
		.cmd = (c_), .params = &r->f_, .size = sizeof(r->f_)}
	C(C_POWER, NVL2080_CTRL_CMD_PMGR_GET_STATUS, power);
	C(C_THERMAL, NV2080_CTRL_CMD_THERMAL_SYSTEM_EXECUTE_V2, thermal);
	C(C_CLK, NVL2080_CTRL_CMD_CLK_GET_INFO, clk);
	/* the samples before the perf status: the firmware takes a sample
	 * per samples call, and the status reports its per-engine shares */
	C(C_UTIL, NV2080_CTRL_CMD_PERF_GET_GPUMON_PERFMON_UTIL_SAMPLES_V2,
	  util);
	C(C_PERF, NVL2080_CTRL_CMD_PERF_GET_STATUS, perf);
#undef C
	/* one round trip where the firmware batches; else five in flight */
	ret = atomic_load(&gsp->no_multi_control) ? -EOPNOTSUPP
						  : multi(gsp, hsub, c, C_NR);
	if (ret == -EOPNOTSUPP)
		ret = batch(gsp, hsub, c, C_NR);
	if (ret) {
		nvl_free(r);
		return ret;
	}
	if (!c[C_POWER].ret)
		power_parse(&r->power, &s);
	if (!c[C_THERMAL].ret)
		thermal_parse(&r->thermal, &s);
	if (!c[C_CLK].ret)
		clocks_parse(&r->clk, &s);
	if (!c[C_UTIL].ret)
		util_parse(&r->util, &s);
	if (!c[C_PERF].ret) {
		perf_parse(&r->perf, &s);
		engines_parse(&r->perf, &s);
	}
	nvl_free(r);
	*out = s;
	return 0;
}

/* ---- reclocking ------------------------------------------------------------ */

static int need_priv(bool privileged, const char *what)
{
	if (!privileged)
		return nvl_error(-EPERM,
				 "sensors: %s needs a client allowed to "
				 "change device state",
				 what);
	return 0;
}

int nvl_gsp_set_power_limit(struct nvl_gsp *gsp, uint32_t hsub, bool privileged,
			    uint32_t mw)
{
	NVL2080_CTRL_PMGR_SET_LIMIT_PARAMS p = {.limitMw = mw};

	return need_priv(privileged, "power limit")
		       ?: nvl_gsp_rm_control(gsp, hsub,
					     NVL2080_CTRL_CMD_PMGR_SET_LIMIT,
					     &p, sizeof(p));
}

int nvl_gsp_set_pstate_limits(struct nvl_gsp *gsp, uint32_t hsub,
			      bool privileged, unsigned fastest,
			      unsigned slowest)
{
	NVL2080_CTRL_PERF_SET_PSTATE_LIMITS_PARAMS p = {
		.pstateFastest = fastest, .pstateSlowest = slowest};

	if (need_priv(privileged, "P-state limits"))
		return -EPERM;
	if (fastest > slowest)
		return nvl_error(-EINVAL, "sensors: P%u is slower than P%u",
				 fastest, slowest);
	return nvl_gsp_rm_control(gsp, hsub,
				  NVL2080_CTRL_CMD_PERF_SET_PSTATE_LIMITS, &p,
				  sizeof(p));
}

int nvl_gsp_set_app_clocks(struct nvl_gsp *gsp, uint32_t hsub, bool privileged,
			   uint32_t gr_mhz, uint32_t mem_mhz)
{
	NVL2080_CTRL_CLK_SET_APP_CLOCKS_PARAMS p = {.gpcMHz = gr_mhz,
						    .memMHz = mem_mhz};

	return need_priv(privileged, "application clocks")
		       ?: nvl_gsp_rm_control(
				  gsp, hsub,
				  NVL2080_CTRL_CMD_CLK_SET_APP_CLOCKS, &p,
				  sizeof(p));
}

int nvl_gsp_set_boost(struct nvl_gsp *gsp, uint32_t hsub, bool privileged,
		      uint32_t seconds)
{
	NV2080_CTRL_PERF_BOOST_PARAMS p = {
		.flags = seconds ? NV2080_CTRL_PERF_BOOST_FLAGS_CMD_BOOST_TO_MAX
				 : NV2080_CTRL_PERF_BOOST_FLAGS_CMD_CLEAR,
		.duration = seconds == UINT32_MAX
				    ? NV2080_CTRL_PERF_BOOST_DURATION_INFINITE
				    : seconds,
	};

	return need_priv(privileged, "boost")
		       ?: nvl_gsp_rm_control(gsp, hsub,
					     NV2080_CTRL_CMD_PERF_BOOST, &p,
					     sizeof(p));
}

/* ---- events -------------------------------------------------------------- */

struct nvl_gsp_sensor_sub {
	struct nvl_gsp *gsp;
	uint32_t hsub, hevent, events;
	nvl_gsp_sensor_event_fn fn;
	void *arg;
};

/* one subscription per GSP client (it has one POST_EVENT handler) */
#define MAX_SUBS 16
static pthread_mutex_t subs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct nvl_gsp_sensor_sub *subs[MAX_SUBS];

static const struct {
	uint32_t event, index;
} ev_map[] = {
	{NVL_SENSOR_EVENT_THERMAL, NVL2080_NOTIFIERS_THERMAL_SLOWDOWN},
	{NVL_SENSOR_EVENT_POWER_CAP, NVL2080_NOTIFIERS_POWER_CAP},
};

static void on_post(void *arg, uint32_t event, uint32_t result,
		    const void *data, size_t len)
{
	struct nvl_gsp_sensor_sub *sub = arg;
	struct gspabi_post_event pe;

	(void)event;
	(void)result;
	/* through the version's layer (the GSP's copy: never trusted) */
	if (!sub->gsp || !sub->gsp->q.abi ||
	    gspabi_unpack(sub->gsp->q.abi, GSPABI_S_POST_EVENT, data, len,
			  &pe) ||
	    !(pe.present & GSPABI_POST_EVENT_HAS_HEVENT) ||
	    !(pe.present & GSPABI_POST_EVENT_HAS_NOTIFYINDEX))
		return;
	if (pe.hEvent != sub->hevent)
		return;
	for (unsigned i = 0; i < NVL_ARRAY_SIZE(ev_map); i++)
		if (pe.notifyIndex == ev_map[i].index &&
		    (sub->events & ev_map[i].event))
			sub->fn(sub->arg,
				(enum nvl_sensor_event)ev_map[i].event);
}

static int set_notify(struct nvl_gsp_sensor_sub *sub, uint32_t index,
		      uint32_t action)
{
	NV2080_CTRL_EVENT_SET_NOTIFICATION_PARAMS p = {.event = index,
						       .action = action};

	return nvl_gsp_rm_control(sub->gsp, sub->hsub,
				  NV2080_CTRL_CMD_EVENT_SET_NOTIFICATION, &p,
				  sizeof(p));
}

static int slot_take(struct nvl_gsp_sensor_sub *sub)
{
	int free_slot = -1;

	pthread_mutex_lock(&subs_lock);
	for (int i = 0; i < MAX_SUBS; i++) {
		if (subs[i] && subs[i]->gsp == sub->gsp) {
			pthread_mutex_unlock(&subs_lock);
			return nvl_error(-EBUSY,
					 "sensors: the GSP has a subscriber");
		}
		if (!subs[i] && free_slot < 0)
			free_slot = i;
	}
	if (free_slot >= 0)
		subs[free_slot] = sub;
	pthread_mutex_unlock(&subs_lock);
	return free_slot < 0 ? nvl_error(-ENOSPC, "sensors: too many GSPs") : 0;
}

static void slot_put(struct nvl_gsp_sensor_sub *sub)
{
	pthread_mutex_lock(&subs_lock);
	for (int i = 0; i < MAX_SUBS; i++)
		if (subs[i] == sub)
			subs[i] = NULL;
	pthread_mutex_unlock(&subs_lock);
}

static void sub_teardown(struct nvl_gsp_sensor_sub *sub)
{
	for (unsigned i = 0; i < NVL_ARRAY_SIZE(ev_map); i++)
		if (sub->events & ev_map[i].event)
			set_notify(
				sub, ev_map[i].index,
				NV2080_CTRL_EVENT_SET_NOTIFICATION_ACTION_DISABLE);
	nvl_gsp_event_register(sub->gsp, NV_VGPU_MSG_EVENT_POST_EVENT, NULL,
			       NULL);
	/* whatever was queued runs (and is ignored) before we free */
	nvl_gsp_event_flush(sub->gsp, NVL_GSP_TIMEOUT_NS);
	if (sub->hevent)
		nvl_gsp_rm_free(sub->gsp, sub->hevent);
	slot_put(sub);
	nvl_free(sub);
}

int nvl_gsp_sensors_subscribe(struct nvl_gsp *gsp, uint32_t hsub,
			      uint32_t events, nvl_gsp_sensor_event_fn fn,
			      void *arg, struct nvl_gsp_sensor_sub **sub_out)
{
	const uint32_t all =
		NVL_SENSOR_EVENT_THERMAL | NVL_SENSOR_EVENT_POWER_CAP;
	NV0005_ALLOC_PARAMETERS ep = {0};
	struct nvl_gsp_sensor_sub *sub;
	int ret;

	if (!gsp || !fn || !sub_out || !events || (events & ~all))
		return nvl_error(-EINVAL,
				 "sensors: bad subscription (events %#x)",
				 events);
	sub = nvl_zalloc(sizeof(*sub));
	if (!sub)
		return nvl_error(-ENOMEM, "sensors: no memory");
	*sub = (struct nvl_gsp_sensor_sub){.gsp = gsp,
					   .hsub = hsub,
					   .events = events,
					   .fn = fn,
					   .arg = arg};
	ret = slot_take(sub);
	if (ret) {
		nvl_free(sub);
		return ret;
	}
	ep.hParentClient = nvl_gsp_rm_client_of(gsp, hsub);
	ep.hClass = NV01_EVENT_KERNEL_CALLBACK_EX;
	ret = nvl_gsp_rm_alloc(gsp, hsub, NV01_EVENT_KERNEL_CALLBACK_EX, &ep,
			       sizeof(ep), &sub->hevent);
	if (!ret)
		ret = nvl_gsp_event_register(gsp, NV_VGPU_MSG_EVENT_POST_EVENT,
					     on_post, sub);
	for (unsigned i = 0; !ret && i < NVL_ARRAY_SIZE(ev_map); i++)
		if (events & ev_map[i].event)
			ret = set_notify(
				sub, ev_map[i].index,
				NV2080_CTRL_EVENT_SET_NOTIFICATION_ACTION_REPEAT);
	if (ret) {
		sub_teardown(sub);
		return ret;
	}
	*sub_out = sub;
	return 0;
}

void nvl_gsp_sensors_unsubscribe(struct nvl_gsp_sensor_sub *sub)
{
	if (sub)
		sub_teardown(sub);
}

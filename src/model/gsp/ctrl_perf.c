// SPDX-License-Identifier: MIT
/*
 * DOC: the model firmware's sensor, perf, clock and power controls
 *
 * GSP_RM_CONTROLs on a subdevice, answered from the model's PMU
 * (model/pmu.h) as GSP-RM answers them from its own PMU:
 *
 *  - THERMAL_SYSTEM_EXECUTE_V2 (and its PHYSICAL alias): the instruction
 *    list. Targets: 0 GPU, 1 BOARD, 2 MEMORY (chips with a memory sensor
 *    only); sensors: 0 on the GPU, 1 on the memory (same chips). Each
 *    instruction gets its own result; without IGNORE_FAIL the first
 *    failure stops the list and is the control's status;
 *  - PERF_GET_CURRENT_PSTATE, PERF_BOOST;
 *  - PERF_GET_GPUMON_PERFMON_UTIL_SAMPLES_V2: the firmware's own ring of
 *    72 samples, one taken per call (gr = the share of time one or more
 *    engines was busy, fb = the copy engines' mean share); nouvelle's PERF_GET_UTIL takes one
 *    the same way and returns only the newest sample's shares;
 *  - nouvelle's own 0x2080f1xx controls (firmware/abi/.../ctrl2080_sensors.h):
 *    power status and limit, clocks and application clocks, perf status
 *    and P-state limits (with each engine's share in the latest sample).
 *
 * Crossings the PMU reports (thermal slowdown, power cap) are posted as
 * POST_EVENT to every subdevice that armed the notifier with
 * EVENT_SET_NOTIFICATION (SINGLE disarms after one, REPEAT stays armed),
 * addressed to the first event object under that subdevice.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "base/alloc.h"
#include "model/gsp/perf.h"
#include "model/gsp/priv.h"
#include "model/pmu.h"

#define PERF_MAX_SUBS 32
#define PERF_MAX_DISABLED 8
#define NSAMPLES NV2080_CTRL_PERF_GPUMON_SAMPLE_COUNT_PERFMON_UTIL

struct perf_sub {
	uint32_t client, sub, hevent, index;
	bool repeat;
};

struct fw_perf {
	pthread_mutex_t lock;
	struct perf_sub subs[PERF_MAX_SUBS];
	unsigned nsubs;
	uint32_t disabled[PERF_MAX_DISABLED];
	/* how many of @disabled are set: 0 (always, but in tests) skips the
	 * lock on every control */
	atomic_uint ndisabled;
	NV2080_CTRL_PERF_GPUMON_PERFMON_UTIL_SAMPLE ring[NSAMPLES];
	unsigned count, tracker;
	uint32_t eng_util[NVL2080_CTRL_PERF_MAX_ENGINES];
	unsigned eng_count;
	uint64_t eng_ts;
	uint64_t posted[2]; /* THERMAL_SLOWDOWN, POWER_CAP */
	/* a batch's one PMU sample (nvl_fw_perf_batch(); the core's holder
	 * only) */
	bool batch, have_st;
	struct nvl_model_pmu_state st;
};

static uint32_t ev_index(enum nvl_model_pmu_event ev)
{
	return ev == NVL_MODEL_PMU_EV_THERMAL
		       ? NVL2080_NOTIFIERS_THERMAL_SLOWDOWN
		       : NVL2080_NOTIFIERS_POWER_CAP;
}

/* the PMU's crossing callback: any thread, no PMU lock held */
static void perf_event(void *arg, enum nvl_model_pmu_event ev)
{
	struct nvl_model_gsp *g = arg;
	struct fw_perf *pf = g->perf;
	uint32_t index = ev_index(ev);

	pthread_mutex_lock(&pf->lock);
	for (unsigned i = 0; i < pf->nsubs;) {
		struct perf_sub *s = &pf->subs[i];
		rpc_post_event_v17_00 pe = {.hClient = s->client,
					    .hEvent = s->hevent,
					    .notifyIndex = index,
					    .data = (NvU32)ev,
					    .status = NV_OK};

		if (s->index != index) {
			i++;
			continue;
		}
		if (!nvl_fw_queue_event(g->m, NV_VGPU_MSG_EVENT_POST_EVENT, &pe,
					sizeof(pe)))
			pf->posted[index -
				   NVL2080_NOTIFIERS_THERMAL_SLOWDOWN]++;
		if (!s->repeat) {
			*s = pf->subs[--pf->nsubs];
			continue;
		}
		i++;
	}
	pthread_mutex_unlock(&pf->lock);
}

int nvl_fw_perf_init(struct nvl_model_gsp *g)
{
	struct fw_perf *pf = nvl_zalloc(sizeof(*pf));

	if (!pf)
		return -ENOMEM;
	pthread_mutex_init(&pf->lock, NULL);
	g->perf = pf;
	nvl_model_pmu_set_event_fn(g->m, perf_event, g);
	/* RM's periodic work rides on the PMU's tick (rc.c) */
	nvl_model_pmu_set_tick_fn(g->m, nvl_fw_rc_tick, g);
	return 0;
}

void nvl_fw_perf_fini(struct nvl_model_gsp *g)
{
	if (!g->perf)
		return;
	nvl_model_pmu_set_tick_fn(g->m, NULL, NULL);
	nvl_model_pmu_set_event_fn(g->m, NULL, NULL);
	pthread_mutex_destroy(&g->perf->lock);
	nvl_free(g->perf);
	g->perf = NULL;
}

void nvl_fw_perf_reset(struct nvl_model_gsp *g)
{
	struct fw_perf *pf = g->perf;

	pthread_mutex_lock(&pf->lock);
	pf->nsubs = 0;
	pf->count = pf->tracker = 0;
	pf->eng_count = 0;
	pthread_mutex_unlock(&pf->lock);
}

void nvl_fw_perf_notify(struct nvl_model_gsp *g, uint32_t hclient,
			uint32_t hsubdevice, uint32_t event, uint32_t action)
{
	struct fw_perf *pf = g->perf;
	uint32_t hevent = 0;

	if (event != NVL2080_NOTIFIERS_THERMAL_SLOWDOWN &&
	    event != NVL2080_NOTIFIERS_POWER_CAP)
		return;
	for (unsigned i = 0; i < g->nobjs; i++)
		if (g->objs[i].client == hclient &&
		    g->objs[i].parent == hsubdevice &&
		    g->objs[i].hclass == NV01_EVENT_KERNEL_CALLBACK_EX) {
			hevent = g->objs[i].handle;
			break;
		}
	pthread_mutex_lock(&pf->lock);
	for (unsigned i = 0; i < pf->nsubs; i++)
		if (pf->subs[i].client == hclient &&
		    pf->subs[i].sub == hsubdevice &&
		    pf->subs[i].index == event) {
			pf->subs[i] = pf->subs[--pf->nsubs];
			break;
		}
	if (action != NV2080_CTRL_EVENT_SET_NOTIFICATION_ACTION_DISABLE &&
	    pf->nsubs < PERF_MAX_SUBS)
		pf->subs[pf->nsubs++] = (struct perf_sub){
			.client = hclient,
			.sub = hsubdevice,
			.hevent = hevent,
			.index = event,
			.repeat =
				action ==
				NV2080_CTRL_EVENT_SET_NOTIFICATION_ACTION_REPEAT,
		};
	pthread_mutex_unlock(&pf->lock);
}

int nvl_model_gsp_perf_disable(struct nvl_model *m, uint32_t cmd, bool off)
{
	struct fw_perf *pf = m->gsp->perf;
	int ret = 0;

	pthread_mutex_lock(&pf->lock);
	for (unsigned i = 0; i < PERF_MAX_DISABLED; i++)
		if (pf->disabled[i] == cmd)
			pf->disabled[i] = 0;
	if (off) {
		ret = -ENOSPC;
		for (unsigned i = 0; i < PERF_MAX_DISABLED; i++)
			if (!pf->disabled[i]) {
				pf->disabled[i] = cmd;
				ret = 0;
				break;
			}
	}
	{
		unsigned n = 0;

		for (unsigned i = 0; i < PERF_MAX_DISABLED; i++)
			n += pf->disabled[i] != 0;
		atomic_store(&pf->ndisabled, n);
	}
	pthread_mutex_unlock(&pf->lock);
	return ret;
}

uint64_t nvl_model_gsp_perf_posted(struct nvl_model *m, uint32_t index)
{
	struct fw_perf *pf = m->gsp->perf;
	uint64_t v = 0;

	if (index != NVL2080_NOTIFIERS_THERMAL_SLOWDOWN &&
	    index != NVL2080_NOTIFIERS_POWER_CAP)
		return 0;
	pthread_mutex_lock(&pf->lock);
	v = pf->posted[index - NVL2080_NOTIFIERS_THERMAL_SLOWDOWN];
	pthread_mutex_unlock(&pf->lock);
	return v;
}

void nvl_fw_perf_batch(struct nvl_model_gsp *g, bool on)
{
	g->perf->batch = on;
	g->perf->have_st = false;
}

/*
 * The PMU's state for a control: read now, or, inside a batch, the one
 * sample its first reader took (the controls of one multi control see
 * the same instant, and the PMU integrates once, not once per control).
 */
static void pmu_state(struct nvl_model_gsp *g, struct nvl_model_pmu_state *st)
{
	struct fw_perf *pf = g->perf;

	if (!pf->batch) {
		nvl_model_pmu_get(g->m, st);
		return;
	}
	if (!pf->have_st) {
		nvl_model_pmu_get(g->m, &pf->st);
		pf->have_st = true;
	}
	*st = pf->st;
}

/* ---- thermal ----------------------------------------------------------- */

static uint32_t thermal_one(const struct nvl_model_pmu_state *st,
			    NV2080_CTRL_THERMAL_SYSTEM_INSTRUCTION *in)
{
	NV2080_CTRL_THERMAL_SYSTEM_INSTRUCTION_OPERANDS *o = &in->operands;
	unsigned ntargets = st->has_mem_temp ? 3 : 2;
	unsigned nsensors = st->has_mem_temp ? 2 : 1;
	int32_t mc;
	static const uint32_t types[] = {
		NV2080_CTRL_THERMAL_SYSTEM_TARGET_GPU,
		NV2080_CTRL_THERMAL_SYSTEM_TARGET_BOARD,
		NV2080_CTRL_THERMAL_SYSTEM_TARGET_MEMORY,
	};

	switch (in->opcode) {
	case NV2080_CTRL_THERMAL_SYSTEM_GET_INFO_TARGETS_AVAILABLE_OPCODE:
		o->getInfoTargetsAvailable.availableTargets = ntargets;
		return NV_OK;
	case NV2080_CTRL_THERMAL_SYSTEM_GET_INFO_TARGET_TYPE_OPCODE:
		if (o->getInfoTargetType.targetIndex >= ntargets)
			return NV_ERR_INVALID_ARGUMENT;
		o->getInfoTargetType.type =
			types[o->getInfoTargetType.targetIndex];
		return NV_OK;
	case NV2080_CTRL_THERMAL_SYSTEM_GET_INFO_SENSORS_AVAILABLE_OPCODE:
		o->getInfoSensorsAvailable.availableSensors = nsensors;
		return NV_OK;
	case NV2080_CTRL_THERMAL_SYSTEM_GET_INFO_SENSOR_PROVIDER_OPCODE:
		if (o->getInfoSensorProvider.sensorIndex >= nsensors)
			return NV_ERR_INVALID_ARGUMENT;
		o->getInfoSensorProvider.providerIndex = 0;
		return NV_OK;
	case NV2080_CTRL_THERMAL_SYSTEM_GET_INFO_SENSOR_TARGET_OPCODE:
		if (o->getInfoSensorTarget.sensorIndex >= nsensors)
			return NV_ERR_INVALID_ARGUMENT;
		/* sensor 0 on the GPU (target 0), 1 on the memory (target 2) */
		o->getInfoSensorTarget.targetIndex =
			o->getInfoSensorTarget.sensorIndex ? 2 : 0;
		return NV_OK;
	case NV2080_CTRL_THERMAL_SYSTEM_GET_INFO_SENSOR_READING_RANGE_OPCODE:
		if (o->getInfoSensorReadingRange.sensorIndex >= nsensors)
			return NV_ERR_INVALID_ARGUMENT;
		o->getInfoSensorReadingRange.minimum = -40;
		o->getInfoSensorReadingRange.maximum = 127;
		return NV_OK;
	case NV2080_CTRL_THERMAL_SYSTEM_GET_STATUS_SENSOR_READING_OPCODE:
		if (o->getStatusSensorReading.sensorIndex >= nsensors)
			return NV_ERR_INVALID_ARGUMENT;
		/* whole degrees, the nearest (below zero too: division
		 * truncates towards zero) */
		mc = o->getStatusSensorReading.sensorIndex ? st->mem_temp_mc
							   : st->temp_mc;
		o->getStatusSensorReading.value =
			(mc < 0 ? mc - 500 : mc + 500) / 1000;
		return NV_OK;
	default:
		return NV_ERR_NOT_SUPPORTED;
	}
}

static uint32_t thermal_execute(struct nvl_model_gsp *g, void *params,
				uint32_t size)
{
	NV2080_CTRL_THERMAL_SYSTEM_EXECUTE_V2_PARAMS *p = params;
	struct nvl_model_pmu_state st;
	uint32_t status = NV_OK;

	if (size != sizeof(*p) ||
	    p->clientAPIVersion != NV2080_CTRL_THERMAL_SYSTEM_API_VER ||
	    p->clientAPIRevision != NV2080_CTRL_THERMAL_SYSTEM_API_REV ||
	    p->clientInstructionSizeOf !=
		    sizeof(NV2080_CTRL_THERMAL_SYSTEM_INSTRUCTION) ||
	    p->instructionListSize >
		    NV2080_CTRL_THERMAL_SYSTEM_INSTRUCTION_MAX_COUNT)
		return NV_ERR_INVALID_ARGUMENT;
	pmu_state(g, &st);
	p->successfulInstructions = 0;
	for (uint32_t i = 0; i < p->instructionListSize; i++) {
		NV2080_CTRL_THERMAL_SYSTEM_INSTRUCTION *in =
			&p->instructionList[i];

		in->result = thermal_one(&st, in);
		in->executed = NV_TRUE;
		if (in->result == NV_OK) {
			p->successfulInstructions++;
		} else if (
			!(p->executeFlags &
			  NV2080_CTRL_THERMAL_SYSTEM_EXECUTE_FLAGS_IGNORE_FAIL)) {
			status = in->result;
			for (i++; i < p->instructionListSize; i++)
				p->instructionList[i].executed = NV_FALSE;
			break;
		}
	}
	return status;
}

/* ---- perf -------------------------------------------------------------- */

static void take_sample(struct fw_perf *pf,
			const struct nvl_model_pmu_state *st)
{
	NV2080_CTRL_PERF_GPUMON_PERFMON_UTIL_SAMPLE *s;
	unsigned sum = 0;

	for (unsigned e = 0; e < st->num_engines; e++) {
		unsigned u = st->util_pm[e] > 1000 ? 1000 : st->util_pm[e];

		if (e < NVL2080_CTRL_PERF_MAX_ENGINES)
			pf->eng_util[e] = u * 10;
		sum += u;
	}
	pf->eng_count = st->num_engines < NVL2080_CTRL_PERF_MAX_ENGINES
				? st->num_engines
				: NVL2080_CTRL_PERF_MAX_ENGINES;
	pf->eng_ts = st->time_ns;
	pf->tracker = pf->count ? (pf->tracker + 1) % NSAMPLES : 0;
	if (pf->count < NSAMPLES)
		pf->count++;
	s = &pf->ring[pf->tracker];
	memset(s, 0, sizeof(*s));
	s->base.timeStamp = st->time_ns;
	/* the share of the period with one or more engines busy (the union
	 * of their busy time: nvidia-smi's utilization.gpu), not the
	 * busiest engine's */
	s->gr.util = (st->util_any_pm > 1000 ? 1000 : st->util_any_pm) * 10;
	s->fb.util = st->num_engines ? sum * 10 / st->num_engines : 0;
}

static unsigned pstate_index(const struct nvl_model_profile *pr, uint32_t id,
			     bool *ok)
{
	for (unsigned i = 0; i < pr->num_pstates; i++)
		if (pr->pstates[i].id == id) {
			*ok = true;
			return i;
		}
	*ok = false;
	return 0;
}

static uint32_t perf_reasons(uint32_t r)
{
	uint32_t v = 0;

	if (r & NVL_MODEL_PMU_REASON_IDLE)
		v |= NVL2080_CTRL_PERF_REASON_GPU_IDLE;
	if (r & NVL_MODEL_PMU_REASON_APP_CLOCKS)
		v |= NVL2080_CTRL_PERF_REASON_APP_CLOCKS;
	if (r & NVL_MODEL_PMU_REASON_POWER_CAP)
		v |= NVL2080_CTRL_PERF_REASON_SW_POWER_CAP;
	if (r & NVL_MODEL_PMU_REASON_THERMAL)
		v |= NVL2080_CTRL_PERF_REASON_HW_SLOWDOWN |
		     NVL2080_CTRL_PERF_REASON_HW_THERMAL;
	return v;
}

static int errno_status(int ret)
{
	return ret == -ERANGE ? NV_ERR_OUT_OF_RANGE
	       : ret	      ? NV_ERR_INVALID_ARGUMENT
			      : NV_OK;
}

static bool is_disabled(struct fw_perf *pf, uint32_t cmd)
{
	bool off = false;

	if (!atomic_load(&pf->ndisabled))
		return false;
	pthread_mutex_lock(&pf->lock);
	for (unsigned i = 0; i < PERF_MAX_DISABLED; i++)
		off |= pf->disabled[i] == cmd;
	pthread_mutex_unlock(&pf->lock);
	return off;
}

bool nvl_fw_perf_disabled(struct nvl_model_gsp *g, uint32_t cmd)
{
	return is_disabled(g->perf, cmd);
}

#define SIZE_IS(T) ((size) == sizeof(T) ? 0 : 1)

uint32_t nvl_fw_perf_control(struct nvl_model_gsp *g, uint32_t hclient,
			     uint32_t hobject, uint32_t cmd, void *params,
			     uint32_t size)
{
	const struct nvl_model_profile *pr = g->m->profile;
	struct fw_perf *pf = g->perf;
	struct nvl_model_pmu_state st;
	bool ok1, ok2;

	(void)hclient;
	(void)hobject;
	if (is_disabled(pf, cmd))
		return NV_ERR_NOT_SUPPORTED;
	/* a control that changes the PMU: a batch's later reads sample it
	 * again */
	if (cmd == NV2080_CTRL_CMD_PERF_BOOST ||
	    cmd == NVL2080_CTRL_CMD_PMGR_SET_LIMIT ||
	    cmd == NVL2080_CTRL_CMD_CLK_SET_APP_CLOCKS ||
	    cmd == NVL2080_CTRL_CMD_PERF_SET_PSTATE_LIMITS)
		pf->have_st = false;
	switch (cmd) {
	case NV2080_CTRL_CMD_THERMAL_SYSTEM_EXECUTE_V2:
	case NV2080_CTRL_CMD_THERMAL_SYSTEM_EXECUTE_V2_PHYSICAL:
		return thermal_execute(g, params, size);
	case NV2080_CTRL_CMD_PERF_GET_CURRENT_PSTATE: {
		NV2080_CTRL_PERF_GET_CURRENT_PSTATE_PARAMS *p = params;

		if (SIZE_IS(*p))
			return NV_ERR_INVALID_PARAM_STRUCT;
		pmu_state(g, &st);
		p->currPstate = NV2080_CTRL_PERF_PSTATES_P(st.pstate_id);
		return NV_OK;
	}
	case NV2080_CTRL_CMD_PERF_BOOST: {
		NV2080_CTRL_PERF_BOOST_PARAMS *p = params;
		uint32_t ms;

		if (SIZE_IS(*p))
			return NV_ERR_INVALID_PARAM_STRUCT;
		switch (p->flags & NV2080_CTRL_PERF_BOOST_FLAGS_CMD_MASK) {
		case NV2080_CTRL_PERF_BOOST_FLAGS_CMD_CLEAR:
			ms = 0;
			break;
		case NV2080_CTRL_PERF_BOOST_FLAGS_CMD_BOOST_1LEVEL:
		case NV2080_CTRL_PERF_BOOST_FLAGS_CMD_BOOST_TO_MAX:
			/* seconds, an hour at most, or until cleared
			 * (ctrl2080perf.h: NV2080_CTRL_PERF_BOOST_DURATION_MAX,
			 * _INFINITE; RM refuses others INVALID_ARGUMENT) */
			if (!p->duration ||
			    (p->duration >
				     NV2080_CTRL_PERF_BOOST_DURATION_MAX &&
			     p->duration !=
				     NV2080_CTRL_PERF_BOOST_DURATION_INFINITE))
				return NV_ERR_INVALID_ARGUMENT;
			/* UINT32_MAX ms is the PMU's "until cleared" */
			ms = p->duration == NV2080_CTRL_PERF_BOOST_DURATION_INFINITE
				     ? UINT32_MAX
				     : p->duration * 1000;
			break;
		default:
			return NV_ERR_INVALID_ARGUMENT;
		}
		return errno_status(nvl_model_pmu_set_boost(g->m, ms));
	}
	case NV2080_CTRL_CMD_PERF_GET_GPUMON_PERFMON_UTIL_SAMPLES_V2: {
		NV2080_CTRL_PERF_GET_GPUMON_PERFMON_UTIL_SAMPLES_V2_PARAMS *p =
			params;

		if (SIZE_IS(*p) || p->bufSize != sizeof(p->samples) ||
		    p->type != NV2080_CTRL_GPUMON_SAMPLE_TYPE_PERFMON_UTIL)
			return NV_ERR_INVALID_ARGUMENT;
		pmu_state(g, &st);
		pthread_mutex_lock(&pf->lock);
		take_sample(pf, &st);
		/* oldest first, newest at tracker: the ring in (at most)
		 * two runs, the slots past count zeroed */
		{
			unsigned from =
				(pf->tracker + NSAMPLES + 1 - pf->count) %
				NSAMPLES;
			unsigned run = NSAMPLES - from < pf->count
					       ? NSAMPLES - from
					       : pf->count;

			memcpy(p->samples, &pf->ring[from],
			       run * sizeof(p->samples[0]));
			memcpy(&p->samples[run], pf->ring,
			       (pf->count - run) * sizeof(p->samples[0]));
			memset(&p->samples[pf->count], 0,
			       (NSAMPLES - pf->count) * sizeof(p->samples[0]));
		}
		p->count = pf->count;
		p->tracker = pf->count - 1;
		pthread_mutex_unlock(&pf->lock);
		return NV_OK;
	}
	case NVL2080_CTRL_CMD_PERF_GET_UTIL: {
		NVL2080_CTRL_PERF_GET_UTIL_PARAMS *p = params;
		const NV2080_CTRL_PERF_GPUMON_PERFMON_UTIL_SAMPLE *u;

		if (SIZE_IS(*p))
			return NV_ERR_INVALID_PARAM_STRUCT;
		pmu_state(g, &st);
		pthread_mutex_lock(&pf->lock);
		take_sample(pf, &st);
		/* the ring reduced to its newest sample's shares */
		u = &pf->ring[pf->tracker];
		memset(p, 0, sizeof(*p));
		p->timeStamp = u->base.timeStamp;
		p->count = pf->count;
		p->grUtil = u->gr.util;
		p->fbUtil = u->fb.util;
		pthread_mutex_unlock(&pf->lock);
		return NV_OK;
	}
	case NVL2080_CTRL_CMD_PMGR_GET_STATUS: {
		NVL2080_CTRL_PMGR_GET_STATUS_PARAMS *p = params;

		if (SIZE_IS(*p))
			return NV_ERR_INVALID_PARAM_STRUCT;
		pmu_state(g, &st);
		memset(p, 0, sizeof(*p));
		p->powerMw = st.power_mw;
		p->limitMw = st.power_limit_mw;
		p->minLimitMw = st.power_min_mw;
		p->maxLimitMw = st.power_max_mw;
		p->defaultLimitMw = st.power_default_mw;
		p->energyMj = st.energy_mj;
		p->timeStamp = st.time_ns;
		return NV_OK;
	}
	case NVL2080_CTRL_CMD_PMGR_SET_LIMIT: {
		NVL2080_CTRL_PMGR_SET_LIMIT_PARAMS *p = params;

		if (SIZE_IS(*p))
			return NV_ERR_INVALID_PARAM_STRUCT;
		return errno_status(
			nvl_model_pmu_set_power_limit(g->m, p->limitMw));
	}
	case NVL2080_CTRL_CMD_CLK_GET_INFO: {
		NVL2080_CTRL_CLK_GET_INFO_PARAMS *p = params;

		if (SIZE_IS(*p) ||
		    p->clkInfoListSize > NVL2080_CTRL_CLK_MAX_DOMAINS)
			return NV_ERR_INVALID_ARGUMENT;
		pmu_state(g, &st);
		for (uint32_t i = 0; i < p->clkInfoListSize; i++) {
			NVL2080_CTRL_CLK_INFO *c = &p->clkInfoList[i];

			switch (c->clkDomain) {
			case NV2080_CTRL_CLK_DOMAIN_GPCCLK:
				c->actualMHz = st.gpc_mhz;
				c->maxMHz = st.gpc_max_mhz;
				c->appMHz = st.app_gpc_mhz;
				break;
			case NV2080_CTRL_CLK_DOMAIN_MCLK:
				c->actualMHz = st.mem_mhz;
				c->maxMHz = st.mem_max_mhz;
				c->appMHz = st.app_mem_mhz;
				break;
			case NV2080_CTRL_CLK_DOMAIN_NVDCLK:
				c->actualMHz = st.video_mhz;
				c->maxMHz = st.video_max_mhz;
				c->appMHz = 0;
				break;
			default:
				return NV_ERR_INVALID_ARGUMENT;
			}
		}
		return NV_OK;
	}
	case NVL2080_CTRL_CMD_CLK_SET_APP_CLOCKS: {
		NVL2080_CTRL_CLK_SET_APP_CLOCKS_PARAMS *p = params;

		if (SIZE_IS(*p))
			return NV_ERR_INVALID_PARAM_STRUCT;
		return errno_status(nvl_model_pmu_set_app_clocks(
			g->m, p->gpcMHz, p->memMHz));
	}
	case NVL2080_CTRL_CMD_PERF_GET_STATUS: {
		NVL2080_CTRL_PERF_GET_STATUS_PARAMS *p = params;

		if (SIZE_IS(*p))
			return NV_ERR_INVALID_PARAM_STRUCT;
		pmu_state(g, &st);
		memset(p, 0, sizeof(*p));
		p->pstate = st.pstate_id;
		p->pstateFastest = pr->pstates[st.pstate_fast].id;
		p->pstateSlowest = pr->pstates[st.pstate_slow].id;
		p->reasons = perf_reasons(st.reasons);
		p->reasonsSupported = perf_reasons(~0u);
		p->fanPercent = st.fan_pct;
		p->flags = st.has_fan ? NVL2080_CTRL_PERF_STATUS_FLAG_FAN : 0;
		p->boost = st.boost;
		p->timeStamp = st.time_ns;
		pthread_mutex_lock(&pf->lock);
		if (pf->count) {
			p->numEngines = pf->eng_count;
			memcpy(p->engineUtil, pf->eng_util,
			       sizeof(p->engineUtil));
			p->sampleTimeStamp = pf->eng_ts;
		}
		pthread_mutex_unlock(&pf->lock);
		return NV_OK;
	}
	case NVL2080_CTRL_CMD_PERF_SET_PSTATE_LIMITS: {
		NVL2080_CTRL_PERF_SET_PSTATE_LIMITS_PARAMS *p = params;
		unsigned fast, slow;

		if (SIZE_IS(*p))
			return NV_ERR_INVALID_PARAM_STRUCT;
		fast = pstate_index(pr, p->pstateFastest, &ok1);
		slow = pstate_index(pr, p->pstateSlowest, &ok2);
		if (!ok1 || !ok2)
			return NV_ERR_INVALID_ARGUMENT;
		return errno_status(
			nvl_model_pmu_set_pstate_limits(g->m, fast, slow));
	}
	default:
		return NV_ERR_NOT_SUPPORTED;
	}
}

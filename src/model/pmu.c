// SPDX-License-Identifier: MIT
/*
 * DOC: sensors, power and clocks
 *
 * A small physical model, integrated lazily whenever someone reads a
 * sensor or the hub's 10 ms tick runs:
 *
 *  - clocks: the requested P-state gives graphics and memory clocks; the
 *    effective graphics clock is halved while the temperature is above the
 *    slowdown limit (THROTTLE_THERMAL), and lowered further until power
 *    fits the power limit (THROTTLE_POWER);
 *  - power: idle_mw scaled by the memory clock (half fixed, half
 *    proportional), plus engine_mw per busy engine, scaled by
 *    (f_gpc / f_max)^2; engine activity is the busy fraction averaged with
 *    a 100 ms time constant;
 *  - temperature: a first-order RC model, T -> T_amb + P * R_th with time
 *    constant tau: T(t + dt) = T_ss + (T - T_ss) * exp(-dt / tau);
 *  - energy: the integral of power.
 *
 * Crossing the slowdown limit upwards raises the THERMAL stall interrupt.
 */
#include <errno.h>
#include <math.h>

#include "base/alloc.h"
#include "hw/regs.h"
#include "model/priv.h"

struct nvl_model_pmu {
	pthread_mutex_t lock;
	unsigned pstate;       /* index into profile->pstates */
	int ambient_mc;
	int slowdown_mc;
	unsigned power_limit_mw;
	double act;            /* busy engines, averaged over ~100 ms */
	double temp_mc;
	double power_mw;
	double energy_mj;
	unsigned gpc_mhz, mem_mhz; /* effective */
	uint32_t throttle;
	uint64_t last_ns;
	uint64_t last_busy[NVL_HW_ENGINE_MAX];
};

static void pmu_update_locked(struct nvl_model *m, struct nvl_model_pmu *p,
			      bool *alert)
{
	const struct nvl_model_profile *pr = m->profile;
	const struct nvl_model_pstate *ps = &pr->pstates[p->pstate];
	unsigned fmax = pr->pstates[0].gpc_mhz, mmax = pr->pstates[0].mem_mhz;
	uint64_t now = nvl_model_time_ns(m), dt = now - p->last_ns;
	double act = 0, f, idle, dyn, tss, was = p->temp_mc;

	if (dt == 0)
		return;
	for (unsigned e = 0; e < pr->num_ce; e++) {
		uint64_t b = nvl_model_fifo_busy_ns(m, e);
		uint64_t d = b - p->last_busy[e];

		act += d > dt ? 1.0 : (double)d / (double)dt;
		p->last_busy[e] = b;
	}
	/* smooth activity so power reflects the recent past, not the last
	 * tick alone */
	p->act += (act - p->act) * (1 - exp(-(double)dt / 100e6));
	act = p->act;
	p->throttle = 0;
	f = ps->gpc_mhz;
	if (p->temp_mc > p->slowdown_mc) {
		f /= 2;
		p->throttle |= NVL_HW_THROTTLE_THERMAL;
	}
	idle = pr->idle_mw * (0.5 + 0.5 * ps->mem_mhz / mmax);
	dyn = pr->engine_mw * act * (f / fmax) * (f / fmax);
	if (idle + dyn > p->power_limit_mw && dyn > 0) {
		/* lower f until the dynamic part fits (never below 1/8) */
		double room = p->power_limit_mw > idle
				      ? p->power_limit_mw - idle
				      : 0;
		double scale = sqrt(room / dyn);

		if (scale < 0.125)
			scale = 0.125;
		f *= scale;
		dyn = pr->engine_mw * act * (f / fmax) * (f / fmax);
		p->throttle |= NVL_HW_THROTTLE_POWER;
	}
	p->gpc_mhz = (unsigned)f;
	p->mem_mhz = ps->mem_mhz;
	p->power_mw = idle + dyn;
	p->energy_mj += p->power_mw * (double)dt / 1e9;
	tss = p->ambient_mc + p->power_mw / 1000.0 * pr->r_th_mc_per_w;
	p->temp_mc = tss + (p->temp_mc - tss) *
				   exp(-(double)dt / (pr->tau_ms * 1e6));
	p->last_ns = now;
	if (was <= p->slowdown_mc && p->temp_mc > p->slowdown_mc)
		*alert = true;
}

void nvl_model_pmu_tick(struct nvl_model *m)
{
	struct nvl_model_pmu *p = m->pmu;
	bool alert = false;

	pthread_mutex_lock(&p->lock);
	pmu_update_locked(m, p, &alert);
	pthread_mutex_unlock(&p->lock);
	if (alert)
		nvl_model_intr_raise(m, NVL_HW_INTR_TREE_STALL,
				     NVL_HW_INTR_THERMAL);
}

int nvl_model_pmu_create(struct nvl_model *m)
{
	struct nvl_model_pmu *p = nvl_zalloc(sizeof(*p));

	if (!p)
		return -ENOMEM;
	pthread_mutex_init(&p->lock, NULL);
	p->ambient_mc = 25000;
	p->temp_mc = p->ambient_mc;
	p->slowdown_mc = m->profile->slowdown_mc;
	p->power_limit_mw = m->profile->tdp_mw;
	p->gpc_mhz = m->profile->pstates[0].gpc_mhz;
	p->mem_mhz = m->profile->pstates[0].mem_mhz;
	m->pmu = p;
	return 0;
}

void nvl_model_pmu_destroy(struct nvl_model *m)
{
	if (!m->pmu)
		return;
	pthread_mutex_destroy(&m->pmu->lock);
	nvl_free(m->pmu);
	m->pmu = NULL;
}

uint32_t nvl_model_pmu_rd(struct nvl_model *m, uint32_t addr, bool *ok)
{
	const struct nvl_model_profile *pr = m->profile;
	struct nvl_model_pmu *p = m->pmu;
	bool alert = false;
	uint32_t v = 0;

	*ok = true;
	if (addr >= NVL_HW_PSTATE_ID(0) &&
	    addr < NVL_HW_PSTATE_ID(pr->num_pstates)) {
		unsigned i = (addr - NVL_HW_PSTATE_ID(0)) / 0x10;

		switch ((addr - NVL_HW_PSTATE_ID(0)) % 0x10) {
		case 0x0:
			return pr->pstates[i].id;
		case 0x4:
			return pr->pstates[i].gpc_mhz;
		case 0x8:
			return pr->pstates[i].mem_mhz;
		default:
			*ok = false;
			return 0;
		}
	}
	pthread_mutex_lock(&p->lock);
	pmu_update_locked(m, p, &alert);
	switch (addr) {
	case NVL_HW_THERM_TEMP:
		v = (uint32_t)(int32_t)lround(p->temp_mc);
		break;
	case NVL_HW_THERM_AMBIENT:
		v = (uint32_t)p->ambient_mc;
		break;
	case NVL_HW_THERM_SLOWDOWN:
		v = (uint32_t)p->slowdown_mc;
		break;
	case NVL_HW_THERM_THROTTLE:
		v = p->throttle;
		break;
	case NVL_HW_POWER_MW:
		v = (uint32_t)lround(p->power_mw);
		break;
	case NVL_HW_POWER_LIMIT_MW:
		v = p->power_limit_mw;
		break;
	case NVL_HW_ENERGY_MJ_LO:
		v = (uint32_t)(uint64_t)p->energy_mj;
		break;
	case NVL_HW_ENERGY_MJ_HI:
		v = (uint32_t)((uint64_t)p->energy_mj >> 32);
		break;
	case NVL_HW_PERF_PSTATE:
		v = p->pstate;
		break;
	case NVL_HW_PERF_NUM_PSTATES:
		v = pr->num_pstates;
		break;
	case NVL_HW_CLK_GPC_MHZ:
		v = p->gpc_mhz;
		break;
	case NVL_HW_CLK_MEM_MHZ:
		v = p->mem_mhz;
		break;
	default:
		*ok = false;
	}
	pthread_mutex_unlock(&p->lock);
	if (alert)
		nvl_model_intr_raise(m, NVL_HW_INTR_TREE_STALL,
				     NVL_HW_INTR_THERMAL);
	return v;
}

void nvl_model_pmu_wr(struct nvl_model *m, uint32_t addr, uint32_t val)
{
	struct nvl_model_pmu *p = m->pmu;
	bool alert = false;

	pthread_mutex_lock(&p->lock);
	/* settle the past under the old settings first */
	pmu_update_locked(m, p, &alert);
	switch (addr) {
	case NVL_HW_THERM_AMBIENT:
		p->ambient_mc = (int32_t)val;
		break;
	case NVL_HW_THERM_SLOWDOWN:
		p->slowdown_mc = (int32_t)val;
		break;
	case NVL_HW_POWER_LIMIT_MW:
		p->power_limit_mw = val;
		break;
	case NVL_HW_PERF_PSTATE:
		/* an unknown P-state index is ignored */
		if (val < m->profile->num_pstates) {
			p->pstate = val;
			p->gpc_mhz = m->profile->pstates[val].gpc_mhz;
			p->mem_mhz = m->profile->pstates[val].mem_mhz;
		}
		break;
	default:
		break;
	}
	pthread_mutex_unlock(&p->lock);
	if (alert)
		nvl_model_intr_raise(m, NVL_HW_INTR_TREE_STALL,
				     NVL_HW_INTR_THERMAL);
}

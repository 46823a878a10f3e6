// SPDX-License-Identifier: MIT
/*
 * DOC: sensors, power and clocks
 *
 * A small physical model with the policy GSP-RM's PMU runs, integrated
 * lazily (on every sensor read, every firmware control and the hub's
 * 10 ms tick) in steps of at most 10 ms:
 *
 *  - activity: per copy engine, the busy fraction (measured from the
 *    runlist's busy time; in simulated time, the simulated time its copies
 *    took; at least the model-only load knob) averaged with a 100 ms time
 *    constant;
 *  - clocks: the P-state (the requested one clamped into the P-state
 *    limits; the fastest allowed while a boost runs) gives graphics and
 *    memory clocks; application clocks cap them (APP_CLOCKS); the power
 *    controller's ceiling caps the graphics clock (POWER_CAP); in thermal
 *    slowdown the result is halved (THERMAL); the video clock is 3/4 of
 *    the graphics clock;
 *  - thermal slowdown engages when the temperature rises above the
 *    slowdown limit and lets go only once it has fallen PMU_SLOWDOWN_HYST
 *    below it: a chip whose halved clock cools it just under the limit
 *    does not flip between full and half clock (and post a crossing)
 *    every step;
 *  - power: idle_mw scaled by the memory clock (half fixed, half
 *    proportional), plus engine_mw per busy engine, scaled by
 *    (f_gpc / f_max)^2;
 *  - the power controller: a proportional controller on the graphics
 *    clock ceiling with its set point at 98 % of the limit: each 10 ms it
 *    moves the ceiling a quarter of the way to the clock at which the
 *    present activity would draw the set point (never below 1/8 of the
 *    maximum, never above it), so board power converges under the limit in
 *    a few hundred ms of sustained load and the clock comes back when the
 *    limit is raised or the load goes;
 *  - the power-cap reason engages when the controller lowers the clock
 *    and lets go only once the clock is back and the draw at it would be
 *    PMU_CAP_RELEASE of the limit or less: a draw hovering at the cap does
 *    not flip it (and post a crossing) with every ripple of the load;
 *  - temperature: a first-order RC model, T -> T_amb + P * R_th with time
 *    constant tau; the memory (chips with a memory sensor) follows
 *    T_amb + 0.8 P R_th + 5 degC with 1.5 tau;
 *  - fan (boards with one): 30 % up to 40 degC, then linear to 100 % at
 *    90 degC;
 *  - energy: the integral of power.
 *
 * Crossing the slowdown limit upwards raises the THERMAL stall interrupt
 * and reports NVL_MODEL_PMU_EV_THERMAL; the controller starting to cap
 * reports NVL_MODEL_PMU_EV_POWER_CAP (once per crossing each, in the
 * order they happened).
 *
 * Time is the model's clock until a test calls nvl_model_pmu_sim_advance()
 * (model-only): from then on the PMU runs on simulated time alone, so a
 * test can let seconds pass deterministically and at once.
 */
#include <errno.h>
#include <math.h>

#include "base/alloc.h"
#include "hw/regs.h"
#include "model/pmu.h"
#include "model/priv.h"

#define PMU_STEP_NS 10000000ull /* integration / controller step */
#define PMU_SETPOINT 0.98 /* of the power limit */
#define PMU_GAIN 0.25 /* of the way to the target per step */
/* thermal slowdown lets go this far below the limit (millidegrees; the
 * model's choice: NVIDIA publishes no figure) */
#define PMU_SLOWDOWN_HYST 3000
/* the power-cap reason lets go only once the draw at the unreduced clock
 * would be this share of the limit or less: 3 points under the set point
 * (the model's choice: NVIDIA publishes no figure; more than the ripple of
 * a steady load through the 100 ms activity average, and within the
 * +-5 W that nvidia-smi quotes for power.draw on a 250 W board) */
#define PMU_CAP_RELEASE 0.95

struct nvl_model_pmu {
	pthread_mutex_t lock;
	pthread_mutex_t ev_lock; /* held while the event callback runs */
	nvl_model_pmu_event_fn ev_fn;
	void *ev_arg;
	void (*tick_fn)(void *arg); /* under ev_lock too */
	void *tick_arg;
	unsigned pstate; /* requested index into profile->pstates */
	unsigned fast, slow; /* P-state index limits */
	uint32_t app_gpc, app_mem;
	uint64_t boost_until;
	int ambient_mc;
	int slowdown_mc;
	unsigned power_limit_mw;
	double eng_act[NVL_HW_ENGINE_MAX]; /* averaged over ~100 ms */
	unsigned load_pm[NVL_HW_ENGINE_MAX];
	double act; /* sum of eng_act */
	double any_act; /* share with one or more engines busy, averaged */
	double temp_mc, mem_temp_mc;
	double power_mw;
	double energy_mj;
	double f_cap; /* the power controller's graphics clock ceiling */
	bool slowdown; /* thermal slowdown engaged (with hysteresis) */
	bool capping; /* the power-cap reason engaged (with hysteresis) */
	double f_req; /* the graphics clock before the power cap */
	unsigned gpc_mhz, mem_mhz, cur_idx; /* effective */
	uint32_t throttle; /* NVL_HW_THROTTLE_* (register) */
	uint32_t reasons; /* NVL_MODEL_PMU_REASON_* */
	uint64_t last_ns;
	bool sim;
	uint64_t sim_ns;
	unsigned ce_scale; /* bytes of engine work per copied byte (0: 1) */
	uint64_t last_busy[NVL_HW_ENGINE_MAX];
	uint64_t sim_busy
		[NVL_HW_ENGINE_MAX]; /* simulated copy ns not yet counted */
	uint64_t ce_bytes[NVL_HW_ENGINE_MAX], ce_ns[NVL_HW_ENGINE_MAX];
};

/* the crossings of one integration, in the order they happened (more
 * than PMU_EV_MAX in one integration are dropped: with the thermal and
 * power-cap hysteresis a crossing takes seconds of PMU time) */
#define PMU_EV_MAX 16

struct pmu_ev {
	unsigned n;
	uint8_t ev[PMU_EV_MAX]; /* enum nvl_model_pmu_event */
};

static void ev_add(struct pmu_ev *e, enum nvl_model_pmu_event k)
{
	if (e->n < PMU_EV_MAX)
		e->ev[e->n++] = (uint8_t)k;
}

static uint64_t pmu_now(struct nvl_model *m, struct nvl_model_pmu *p)
{
	return p->sim ? p->sim_ns : nvl_model_time_ns(m);
}

static unsigned pmu_idx(struct nvl_model_pmu *p, uint64_t now)
{
	unsigned i = p->pstate;

	if (now < p->boost_until)
		return p->fast;
	if (i < p->fast)
		i = p->fast;
	if (i > p->slow)
		i = p->slow;
	return i;
}

/* clocks and power for the present state, without moving time */
static void pmu_derive(struct nvl_model *m, struct nvl_model_pmu *p,
		       uint64_t now)
{
	const struct nvl_model_profile *pr = m->profile;
	unsigned idx = pmu_idx(p, now);
	const struct nvl_model_pstate *ps = &pr->pstates[idx];
	double fmax = pr->pstates[0].gpc_mhz, mmax = pr->pstates[0].mem_mhz;
	double f = ps->gpc_mhz, mem = ps->mem_mhz, idle, dyn;
	uint32_t r = 0;

	if (p->app_gpc && p->app_gpc < f) {
		f = p->app_gpc;
		r |= NVL_MODEL_PMU_REASON_APP_CLOCKS;
	}
	if (p->app_mem && p->app_mem < mem) {
		mem = p->app_mem;
		r |= NVL_MODEL_PMU_REASON_APP_CLOCKS;
	}
	p->throttle = 0;
	p->f_req = f;
	if (p->f_cap < f - 0.5)
		f = p->f_cap;
	if (p->capping || f < p->f_req) {
		r |= NVL_MODEL_PMU_REASON_POWER_CAP;
		p->throttle |= NVL_HW_THROTTLE_POWER;
	}
	if (p->slowdown) {
		f /= 2;
		r |= NVL_MODEL_PMU_REASON_THERMAL;
		p->throttle |= NVL_HW_THROTTLE_THERMAL;
	}
	if (p->act < 0.01)
		r |= NVL_MODEL_PMU_REASON_IDLE;
	idle = pr->idle_mw * (0.5 + 0.5 * mem / mmax);
	dyn = pr->engine_mw * p->act * (f / fmax) * (f / fmax);
	p->cur_idx = idx;
	p->gpc_mhz = (unsigned)f;
	p->mem_mhz = (unsigned)mem;
	p->power_mw = idle + dyn;
	p->reasons = r;
}

/* the board power the present activity would draw with the graphics
 * clock at @f (before the thermal halving) */
static double pmu_draw(struct nvl_model *m, struct nvl_model_pmu *p, double f)
{
	const struct nvl_model_profile *pr = m->profile;
	double fmax = pr->pstates[0].gpc_mhz, mmax = pr->pstates[0].mem_mhz;

	if (p->slowdown)
		f /= 2;
	return pr->idle_mw * (0.5 + 0.5 * p->mem_mhz / mmax) +
	       pr->engine_mw * p->act * (f / fmax) * (f / fmax);
}

/* move the controller's ceiling one step of @h ns towards its target */
static void pmu_control(struct nvl_model *m, struct nvl_model_pmu *p, double h)
{
	const struct nvl_model_profile *pr = m->profile;
	double fmax = pr->pstates[0].gpc_mhz, mmax = pr->pstates[0].mem_mhz;
	double mem = p->mem_mhz, idle, k, room, target = fmax;

	idle = pr->idle_mw * (0.5 + 0.5 * mem / mmax);
	k = pr->engine_mw * p->act / (fmax * fmax); /* mW per MHz^2 */
	room = PMU_SETPOINT * p->power_limit_mw - idle;
	if (k > 0) {
		target = room > 0 ? sqrt(room / k) : 0;
		if (p->slowdown)
			target *= 2; /* the ceiling applies before halving */
	}
	if (target < fmax / 8)
		target = fmax / 8;
	if (target > fmax)
		target = fmax;
	p->f_cap +=
		(target - p->f_cap) * (1 - pow(1 - PMU_GAIN, h / PMU_STEP_NS));
}

static void pmu_step(struct nvl_model *m, struct nvl_model_pmu *p, uint64_t h,
		     const double *frac, struct pmu_ev *ev)
{
	const struct nvl_model_profile *pr = m->profile;
	double a = 1 - exp(-(double)h / 100e6), tss;
	double tau = pr->tau_ms * 1e6;

	double any = 0;

	p->act = 0;
	for (unsigned e = 0; e < pr->num_ce; e++) {
		double t = frac[e];

		if (t < p->load_pm[e] / 1000.0)
			t = p->load_pm[e] / 1000.0;
		p->eng_act[e] += (t - p->eng_act[e]) * a;
		p->act += p->eng_act[e];
		any = t > any ? t : any;
	}
	/* the union of the engines' busy time over the integration: at
	 * least the busiest one's; exact when their busy times nest (one
	 * integration per ~10 ms tick, or per sim_advance) */
	p->any_act += (any - p->any_act) * a;
	pmu_derive(m, p, p->last_ns);
	pmu_control(m, p, (double)h);
	pmu_derive(m, p, p->last_ns + h);
	p->energy_mj += p->power_mw * (double)h / 1e9;
	tss = p->ambient_mc + p->power_mw / 1000.0 * pr->r_th_mc_per_w;
	p->temp_mc = tss + (p->temp_mc - tss) * exp(-(double)h / tau);
	tss = p->ambient_mc + 0.8 * p->power_mw / 1000.0 * pr->r_th_mc_per_w +
	      5000;
	p->mem_temp_mc =
		tss + (p->mem_temp_mc - tss) * exp(-(double)h / (1.5 * tau));
	p->last_ns += h;
	if (!p->slowdown && p->temp_mc > p->slowdown_mc) {
		p->slowdown = true;
		ev_add(ev, NVL_MODEL_PMU_EV_THERMAL);
	} else if (p->slowdown &&
		   p->temp_mc < p->slowdown_mc - PMU_SLOWDOWN_HYST) {
		p->slowdown = false;
	}
	pmu_derive(m, p, p->last_ns);
	/* the power cap engages when the controller lowers the clock and
	 * lets go once the clock is back and the draw at it would be well
	 * under the limit: a draw hovering at the cap does not flip it */
	if (!p->capping && p->f_cap < p->f_req - 0.5) {
		p->capping = true;
		ev_add(ev, NVL_MODEL_PMU_EV_POWER_CAP);
	} else if (p->capping && p->f_cap >= p->f_req - 0.5 &&
		   pmu_draw(m, p, p->f_req) <=
			   PMU_CAP_RELEASE * p->power_limit_mw) {
		p->capping = false;
		pmu_derive(m, p, p->last_ns);
	}
}

static void pmu_update_locked(struct nvl_model *m, struct nvl_model_pmu *p,
			      struct pmu_ev *ev)
{
	const struct nvl_model_profile *pr = m->profile;
	uint64_t now = pmu_now(m, p), dt;
	double frac[NVL_HW_ENGINE_MAX] = {0};

	if (now <= p->last_ns)
		return;
	dt = now - p->last_ns;
	for (unsigned e = 0; e < pr->num_ce; e++) {
		uint64_t b = nvl_model_fifo_busy_ns(m, e);
		uint64_t d = p->sim ? p->sim_busy[e] : b - p->last_busy[e];

		frac[e] = d > dt ? 1.0 : (double)d / (double)dt;
		p->last_busy[e] = b;
		p->sim_busy[e] = 0;
	}
	while (dt) {
		uint64_t h = dt < PMU_STEP_NS ? dt : PMU_STEP_NS;

		pmu_step(m, p, h, frac, ev);
		dt -= h;
	}
}

static void pmu_report(struct nvl_model *m, const struct pmu_ev *ev)
{
	struct nvl_model_pmu *p = m->pmu;

	if (!ev->n)
		return;
	for (unsigned i = 0; i < ev->n; i++)
		if (ev->ev[i] == NVL_MODEL_PMU_EV_THERMAL) {
			nvl_model_intr_raise(m, NVL_HW_INTR_TREE_STALL,
					     NVL_HW_INTR_THERMAL);
			break;
		}
	/* each crossing, in the order it happened */
	pthread_mutex_lock(&p->ev_lock);
	for (unsigned i = 0; p->ev_fn && i < ev->n; i++)
		p->ev_fn(p->ev_arg, (enum nvl_model_pmu_event)ev->ev[i]);
	pthread_mutex_unlock(&p->ev_lock);
}

void nvl_model_pmu_tick(struct nvl_model *m)
{
	struct nvl_model_pmu *p = m->pmu;
	struct pmu_ev ev = {0};

	pthread_mutex_lock(&p->lock);
	pmu_update_locked(m, p, &ev);
	pthread_mutex_unlock(&p->lock);
	pmu_report(m, &ev);
	pthread_mutex_lock(&p->ev_lock);
	if (p->tick_fn)
		p->tick_fn(p->tick_arg);
	pthread_mutex_unlock(&p->ev_lock);
}

int nvl_model_pmu_create(struct nvl_model *m)
{
	const struct nvl_model_profile *pr = m->profile;
	struct nvl_model_pmu *p = nvl_zalloc(sizeof(*p));

	if (!p)
		return -ENOMEM;
	pthread_mutex_init(&p->lock, NULL);
	pthread_mutex_init(&p->ev_lock, NULL);
	p->ambient_mc = 25000;
	p->temp_mc = p->ambient_mc;
	p->mem_temp_mc = p->ambient_mc;
	p->slowdown_mc = pr->slowdown_mc;
	p->power_limit_mw = pr->tdp_mw;
	p->slow = pr->num_pstates - 1;
	p->f_cap = pr->pstates[0].gpc_mhz;
	pmu_derive(m, p, 0);
	m->pmu = p;
	return 0;
}

void nvl_model_pmu_destroy(struct nvl_model *m)
{
	if (!m->pmu)
		return;
	pthread_mutex_destroy(&m->pmu->lock);
	pthread_mutex_destroy(&m->pmu->ev_lock);
	nvl_free(m->pmu);
	m->pmu = NULL;
}

void nvl_model_pmu_get(struct nvl_model *m, struct nvl_model_pmu_state *out)
{
	const struct nvl_model_profile *pr = m->profile;
	struct nvl_model_pmu *p = m->pmu;
	struct pmu_ev ev = {0};
	double t;

	pthread_mutex_lock(&p->lock);
	pmu_update_locked(m, p, &ev);
	*out = (struct nvl_model_pmu_state){
		.time_ns = p->last_ns,
		.temp_mc = (int32_t)lround(p->temp_mc),
		.mem_temp_mc = (int32_t)lround(p->mem_temp_mc),
		.has_mem_temp = pr->mem_sensor,
		.slowdown_mc = p->slowdown_mc,
		.power_mw = (uint32_t)lround(p->power_mw),
		.power_limit_mw = p->power_limit_mw,
		.power_min_mw = pr->idle_mw,
		.power_max_mw = pr->tdp_mw + pr->tdp_mw / 5,
		.power_default_mw = pr->tdp_mw,
		.energy_mj = (uint64_t)p->energy_mj,
		.gpc_mhz = p->gpc_mhz,
		.mem_mhz = p->mem_mhz,
		.video_mhz = p->gpc_mhz * 3 / 4,
		.gpc_max_mhz = pr->pstates[0].gpc_mhz,
		.mem_max_mhz = pr->pstates[0].mem_mhz,
		.video_max_mhz = pr->pstates[0].gpc_mhz * 3 / 4,
		.pstate_idx = p->cur_idx,
		.pstate_id = pr->pstates[p->cur_idx].id,
		.pstate_fast = p->fast,
		.pstate_slow = p->slow,
		.app_gpc_mhz = p->app_gpc,
		.app_mem_mhz = p->app_mem,
		.boost = p->last_ns < p->boost_until,
		.reasons = p->reasons,
		.has_fan = pr->fan,
		.num_engines = pr->num_ce,
	};
	t = p->temp_mc / 1000.0;
	if (pr->fan)
		out->fan_pct = t <= 40 ? 30
			       : t >= 90
				       ? 100
				       : (unsigned)lround(30 + (t - 40) * 1.4);
	for (unsigned e = 0; e < pr->num_ce; e++)
		out->util_pm[e] = (unsigned)lround(p->eng_act[e] * 1000);
	out->util_any_pm = (unsigned)lround(p->any_act * 1000);
	pthread_mutex_unlock(&p->lock);
	pmu_report(m, &ev);
}

void nvl_model_pmu_set_tick_fn(struct nvl_model *m, void (*fn)(void *arg),
			       void *arg)
{
	struct nvl_model_pmu *p = m->pmu;

	pthread_mutex_lock(&p->ev_lock);
	p->tick_fn = fn;
	p->tick_arg = arg;
	pthread_mutex_unlock(&p->ev_lock);
}

void nvl_model_pmu_set_event_fn(struct nvl_model *m, nvl_model_pmu_event_fn fn,
				void *arg)
{
	struct nvl_model_pmu *p = m->pmu;

	pthread_mutex_lock(&p->ev_lock);
	p->ev_fn = fn;
	p->ev_arg = arg;
	pthread_mutex_unlock(&p->ev_lock);
}

/* settle the past under the old settings, apply @fn's change, re-derive */
#define PMU_CHANGE(m, p, body)                                                 \
	do {                                                                   \
		struct pmu_ev ev_ = {0};                                       \
		pthread_mutex_lock(&(p)->lock);                                \
		pmu_update_locked((m), (p), &ev_);                             \
		body;                                                          \
		pmu_derive((m), (p), (p)->last_ns);                            \
		pthread_mutex_unlock(&(p)->lock);                              \
		pmu_report((m), &ev_);                                         \
	} while (0)

int nvl_model_pmu_set_power_limit(struct nvl_model *m, uint32_t mw)
{
	const struct nvl_model_profile *pr = m->profile;
	struct nvl_model_pmu *p = m->pmu;

	if (mw < pr->idle_mw || mw > pr->tdp_mw + pr->tdp_mw / 5)
		return -ERANGE;
	PMU_CHANGE(m, p, p->power_limit_mw = mw);
	return 0;
}

int nvl_model_pmu_set_pstate_limits(struct nvl_model *m, unsigned fast,
				    unsigned slow)
{
	struct nvl_model_pmu *p = m->pmu;

	if (fast > slow || slow >= m->profile->num_pstates)
		return -EINVAL;
	PMU_CHANGE(m, p, (p->fast = fast, p->slow = slow));
	return 0;
}

int nvl_model_pmu_set_app_clocks(struct nvl_model *m, uint32_t gpc_mhz,
				 uint32_t mem_mhz)
{
	const struct nvl_model_profile *pr = m->profile;
	struct nvl_model_pmu *p = m->pmu;

	uint32_t gmin = pr->pstates[pr->num_pstates - 1].gpc_mhz;
	bool mem_ok = !mem_mhz;

	/* the supported-clock table: graphics every NVL_MODEL_CLK_STEP_MHZ
	 * from the slowest P-state's to the fastest's, memory the P-states'
	 * own (an application clock is a pair from it, as NVML's) */
	for (unsigned i = 0; i < pr->num_pstates; i++)
		mem_ok |= mem_mhz == pr->pstates[i].mem_mhz;
	if (gpc_mhz > pr->pstates[0].gpc_mhz || (gpc_mhz && gpc_mhz < gmin) ||
	    (gpc_mhz && (gpc_mhz - gmin) % NVL_MODEL_CLK_STEP_MHZ) || !mem_ok)
		return -EINVAL;
	PMU_CHANGE(m, p, (p->app_gpc = gpc_mhz, p->app_mem = mem_mhz));
	return 0;
}

int nvl_model_pmu_set_boost(struct nvl_model *m, uint32_t duration_ms)
{
	struct nvl_model_pmu *p = m->pmu;

	PMU_CHANGE(m, p,
		   p->boost_until =
			   duration_ms == UINT32_MAX ? UINT64_MAX
			   : duration_ms ? p->last_ns + duration_ms * 1000000ull
					 : 0);
	return 0;
}

void nvl_model_pmu_sim_advance(struct nvl_model *m, uint64_t ns)
{
	struct nvl_model_pmu *p = m->pmu;
	struct pmu_ev ev = {0};

	pthread_mutex_lock(&p->lock);
	if (!p->sim) {
		pmu_update_locked(m, p, &ev);
		p->sim = true;
		p->sim_ns = p->last_ns;
	}
	p->sim_ns += ns;
	pmu_update_locked(m, p, &ev);
	pthread_mutex_unlock(&p->lock);
	pmu_report(m, &ev);
}

int nvl_model_pmu_set_load(struct nvl_model *m, unsigned e, unsigned permille)
{
	struct nvl_model_pmu *p = m->pmu;

	if (e >= m->profile->num_ce || permille > 1000)
		return -EINVAL;
	PMU_CHANGE(m, p, p->load_pm[e] = permille);
	return 0;
}

uint64_t nvl_model_pmu_ce_ns(struct nvl_model *m, uint64_t bytes)
{
	struct nvl_model_pmu *p = m->pmu;
	unsigned f;

	pthread_mutex_lock(&p->lock);
	f = p->gpc_mhz ? p->gpc_mhz : 1;
	pthread_mutex_unlock(&p->lock);
	/* bytes / (B/clk * f MHz) us = bytes * 1000 / (B/clk * f) ns */
	return bytes * 1000 / ((uint64_t)NVL_MODEL_CE_BYTES_PER_CLK * f);
}

void nvl_model_pmu_set_ce_scale(struct nvl_model *m, unsigned scale)
{
	struct nvl_model_pmu *p = m->pmu;

	pthread_mutex_lock(&p->lock);
	p->ce_scale = scale;
	pthread_mutex_unlock(&p->lock);
}

void nvl_model_pmu_ce_account(struct nvl_model *m, unsigned e, uint64_t bytes)
{
	struct nvl_model_pmu *p = m->pmu;
	uint64_t ns;

	if (e >= NVL_HW_ENGINE_MAX)
		return;
	pthread_mutex_lock(&p->lock);
	if (p->ce_scale > 1)
		bytes *= p->ce_scale;
	pthread_mutex_unlock(&p->lock);
	ns = nvl_model_pmu_ce_ns(m, bytes);
	pthread_mutex_lock(&p->lock);
	p->ce_bytes[e] += bytes;
	p->ce_ns[e] += ns;
	p->sim_busy[e] += ns;
	pthread_mutex_unlock(&p->lock);
}

void nvl_model_pmu_ce_stats(struct nvl_model *m, unsigned e, uint64_t *bytes,
			    uint64_t *ns)
{
	struct nvl_model_pmu *p = m->pmu;

	*bytes = *ns = 0;
	if (e >= NVL_HW_ENGINE_MAX)
		return;
	pthread_mutex_lock(&p->lock);
	*bytes = p->ce_bytes[e];
	*ns = p->ce_ns[e];
	pthread_mutex_unlock(&p->lock);
}

uint32_t nvl_model_pmu_rd(struct nvl_model *m, uint32_t addr, bool *ok)
{
	const struct nvl_model_profile *pr = m->profile;
	struct nvl_model_pmu *p = m->pmu;
	struct pmu_ev ev = {0};
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
	pmu_update_locked(m, p, &ev);
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
	pmu_report(m, &ev);
	return v;
}

void nvl_model_pmu_wr(struct nvl_model *m, uint32_t addr, uint32_t val)
{
	struct nvl_model_pmu *p = m->pmu;
	struct pmu_ev ev = {0};

	pthread_mutex_lock(&p->lock);
	/* settle the past under the old settings first */
	pmu_update_locked(m, p, &ev);
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
		}
		break;
	default:
		break;
	}
	pmu_derive(m, p, p->last_ns);
	pthread_mutex_unlock(&p->lock);
	pmu_report(m, &ev);
}

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
 * one round trip, each entry served as if sent alone), the utilisation
 * through nouvelle's PERF_GET_UTIL (the firmware's samples reduced to the
 * newest one's shares), so command and reply are one queue page each; a
 * firmware without the multi control (a real GSP-RM) gets six sent at
 * once, NVIDIA's samples control and current P-state among them, and is
 * remembered. A read
 * is stateless: one instruction list discovers the sensors and reads them
 * in the same call. A control the firmware does not support (-EOPNOTSUPP)
 * leaves its fields absent; so does one whose parameter struct the booted
 * version's generated layer lacks (it is not sent), and a field that
 * version lacks; any other failure fails the read and leaves the caller's
 * struct untouched.
 *
 * Every parameter block goes through the generated, version-neutral layer
 * (gspabi.h, docs/abigen.md): filled in a neutral struct, packed in the
 * booted version's layout, unpacked from the reply; arrays of structs (the
 * instruction list, the perfmon samples, the clock list, the multi
 * control's entries) element by element through the generated element
 * accessors; numbers are GSPABI_K_ constants. No versioned header here.
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
#include "gsp/gsp.h"
#include "gsp/priv.h"
#include "gsp/rm.h"
#include "gsp/sensors.h"
#include "gspabi.h"

#define BIT(f) NVL_SENSOR_BIT(f)
#define THERM_PROBE 4 /* targets and sensors probed per read */
#define PAD8(n) (((n) + 7) & ~(size_t)7)

/* ---- the controls of one read, sent at once ------------------------------ */

/*
 * One control of a read: its parameters in a neutral struct (@id of the
 * generated layer), packed in the booted version's layout into @wire
 * (@size bytes, the version's) and unpacked back from the reply.
 */
struct sctl {
	uint32_t cmd;
	enum gspabi_struct_id id;
	void *n; /* the neutral parameters */
	uint8_t *wire;
	size_t size;
	size_t in; /* bytes the multi control's command carries; 0: all */
	int ret; /* 0, -EOPNOTSUPP (fields absent) or an error */
	uint8_t *msg; /* the request, framed by the version's layer */
	uint8_t *rep; /* the reply, in the same allocation */
	struct nvl_gsp_async *a;
};

/*
 * Pack @c's neutral parameters for @v at *@at (zeroed, 8-byte aligned;
 * advanced past them). A version without the control's struct cannot
 * send it: its fields stay absent (-EOPNOTSUPP, nothing sent), as when
 * the firmware answers NV_ERR_NOT_SUPPORTED.
 */
static int sctl_pack(const struct gspabi_version *v, struct sctl *c,
		     uint8_t **at)
{
	const struct gspabi_struct_ops *s = &v->structs[c->id];

	if (!s->present)
		return c->ret = -EOPNOTSUPP;
	c->size = s->wire_size;
	c->wire = *at;
	*at += PAD8(c->size);
	/* every field the version has, @c->n untouched when refused */
	if (gspabi_pack_as(v, c->id, c->n, s->fields, c->wire, c->size))
		return nvl_error(-EPROTO, "sensors: %s: %s does not pack",
				 v->tag, s->name);
	return 0;
}

/*
 * Send @n controls on @hsub without waiting in between, then collect the
 * replies: a read costs about one round trip plus the firmware's work,
 * not n round trips. Controls whose ret is already set are skipped.
 * Return: 0 when every control answered (each c->ret says how), else the
 * first error other than -EOPNOTSUPP.
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
		size_t len = PAD8(hdr + c[i].size);

		if (c[i].ret)
			continue;
		c[i].msg = nvl_zalloc(2 * len);
		if (!c[i].msg) {
			ret = nvl_error(-ENOMEM, "sensors: no memory");
			goto out;
		}
		c[i].rep = c[i].msg + len;
		ret = nvl_gsp_rm_control_frame(gsp, client, hsub, c[i].cmd,
					       c[i].wire, c[i].size, c[i].msg);
		if (ret)
			goto out;
	}
	for (unsigned i = 0; i < n && !ret; i++) {
		size_t len = hdr + c[i].size;

		if (c[i].ret)
			continue;
		ret = nvl_gsp_rpc_async(gsp, GSPABI_K_FUNCTION_GSP_RM_CONTROL,
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
		c[i].ret =
			r ? r
			  : nvl_gsp_rm_control_parse(gsp, c[i].cmd, c[i].rep,
						     got, c[i].wire, c[i].size);
		if (!ret && c[i].ret && c[i].ret != -EOPNOTSUPP)
			ret = c[i].ret;
	}
out:
	for (unsigned i = 0; i < n; i++) {
		nvl_free(c[i].msg);
		c[i].msg = NULL;
	}
	return ret;
}

/*
 * nvl_gsp_rm_control() on @params that have the version's GSP_RM_CONTROL
 * header's room before them: framed, sent and answered in place (no
 * message allocated, the params neither copied in nor out). The command
 * carries @in bytes of params, the reply @size (the multi control's
 * entries with an inSize come back whole).
 */
static int control_in_place(struct nvl_gsp *gsp, uint32_t hobject, uint32_t cmd,
			    uint8_t *params, size_t in, size_t size)
{
	size_t hdr = nvl_gsp_rm_control_hdr(gsp), got = 0;
	uint32_t client = nvl_gsp_rm_client_of(gsp, hobject);
	uint8_t *msg = params - hdr;
	int ret;

	if (!client)
		return nvl_error(-ENOENT, "sensors: subdevice %#x unknown",
				 hobject);
	if (size > NVL_GSP_MSG_MAX - hdr || in > size)
		return nvl_error(-EINVAL, "sensors: %zu bytes of controls",
				 size);
	ret = nvl_gsp_rm_control_frame(gsp, client, hobject, cmd, NULL, in,
				       msg);
	if (!ret)
		ret = nvl_gsp_rpc(gsp, GSPABI_K_FUNCTION_GSP_RM_CONTROL, msg,
				  hdr + in, msg, hdr + size, &got,
				  NVL_GSP_REPLY_RECV, 0);
	/* a refusal (a firmware without the multi control, a malformed
	 * one) comes back at the command's size */
	if (!ret && in != size && got == hdr + in) {
		ret = nvl_gsp_rm_control_parse(gsp, cmd, msg, got, NULL, in);
		if (!ret)
			ret = nvl_error(-EPROTO,
					"gsp: RM control %#x reply of %zu "
					"bytes, expected %zu",
					cmd, got, hdr + size);
	} else if (!ret) {
		ret = nvl_gsp_rm_control_parse(gsp, cmd, msg, got, NULL, size);
	}
	return ret;
}

/*
 * The controls of @c not yet answered as one NVL2080_CTRL_CMD_MULTI_CONTROL:
 * one round trip, the firmware running them in order. Its header and
 * entries go through the version's layer (each entry an element of the
 * header's array). @buf has room for the header's wire image and is
 * followed by the controls' packed params, each padded to 8 bytes, in
 * order (sctl_pack() put them there): that is the multi control's
 * params; the GSP_RM_CONTROL header goes in the room before @buf
 * (nvl_gsp_rm_control_hdr() bytes), and the message is sent and
 * answered in place, nothing copied. Return as batch(), or -EOPNOTSUPP
 * (nothing read) when the firmware or its version has no multi control.
 */
static int multi(struct nvl_gsp *gsp, uint32_t hsub, struct sctl *c, unsigned n,
		 uint8_t *buf)
{
	const struct gspabi_version *v = gsp->abi;
	const struct gspabi_struct_ops *hs =
		&v->structs[GSPABI_S_MULTI_CONTROL];
	struct gspabi_multi_control h = {.present = hs->fields};
	struct gspabi_multi_entry e = {
		.present = v->structs[GSPABI_S_MULTI_ENTRY].fields};
	unsigned idx[GSPABI_K_NVL2080_CTRL_MULTI_CONTROL_MAX], m = 0;
	bool has_in = e.present & GSPABI_MULTI_ENTRY_HAS_INSIZE;
	size_t total, in_total;
	int ret;

	if (!buf || !hs->present || !v->structs[GSPABI_S_MULTI_ENTRY].present)
		return -EOPNOTSUPP;
	total = in_total = hs->wire_size;
	for (unsigned i = 0; i < n; i++) {
		if (c[i].ret)
			continue;
		if (m == NVL_ARRAY_SIZE(idx))
			return nvl_error(-EINVAL, "sensors: %u controls in one",
					 n);
		if (c[i].wire != buf + total)
			return nvl_error(-EINVAL,
					 "sensors: control %#x not in the "
					 "multi control's params",
					 c[i].cmd);
		e.cmd = c[i].cmd;
		e.paramsSize = (uint32_t)c[i].size;
		e.inSize = has_in ? (uint32_t)c[i].in : 0;
		ret = gspabi_multi_control_entries_set(v, &h, m, &e);
		if (ret)
			return nvl_error(-EPROTO,
					 "sensors: %s: multi-control entry %u",
					 v->tag, m);
		idx[m++] = i;
		total += PAD8(c[i].size);
		in_total += e.inSize ? e.inSize : PAD8(c[i].size);
	}
	if (!m)
		return 0;
	h.count = m;
	if (gspabi_pack(v, GSPABI_S_MULTI_CONTROL, &h, buf, hs->wire_size))
		return nvl_error(-EPROTO,
				 "sensors: %s: multi control does not pack",
				 v->tag);
	/* the command: each entry's first inSize bytes after the previous
	 * one's (each moves down, never over one not yet moved); the
	 * reply comes back with every entry whole, in its place */
	if (in_total != total) {
		uint8_t *at = buf + hs->wire_size;

		for (unsigned k = 0; k < m; k++) {
			struct sctl *ci = &c[idx[k]];
			size_t len = ci->in ? ci->in : PAD8(ci->size);

			memmove(at, ci->wire, len);
			at += len;
		}
	}
	ret = control_in_place(gsp, hsub,
			       GSPABI_K_CONTROL_NVL2080_CTRL_CMD_MULTI_CONTROL,
			       buf, in_total, total);
	if (ret) {
		if (ret == -EOPNOTSUPP)
			atomic_store(&gsp->no_multi_control, true);
		return ret;
	}
	if (gspabi_unpack(v, GSPABI_S_MULTI_CONTROL, buf, hs->wire_size, &h))
		return nvl_error(-EPROTO,
				 "sensors: %s: multi-control reply does not "
				 "unpack",
				 v->tag);
	for (unsigned k = 0; k < m; k++) {
		struct sctl *ci = &c[idx[k]];

		if (gspabi_multi_control_entries_get(v, &h, k, &e) ||
		    !(e.present & GSPABI_MULTI_ENTRY_HAS_STATUS))
			return nvl_error(-EPROTO,
					 "sensors: %s: multi-control entry %u "
					 "does not unpack",
					 v->tag, k);
		/* the entry's reply is in place, at ci->wire */
		ci->ret =
			e.status == GSPABI_K_STATUS_NV_OK
				? 0
				: nvl_error(nvl_gsp_status_errno(e.status),
					    "sensors: control %#x: %s", ci->cmd,
					    nvl_gsp_status_name(e.status));
		if (!ret && ci->ret && ci->ret != -EOPNOTSUPP)
			ret = ci->ret;
	}
	return ret;
}

/*
 * The bytes of @c's params before element @used of its array field @bit,
 * padded to 8, when that array ends the version's struct (what follows
 * element @used is then output only, or slots the firmware does not
 * touch, zero in the command either way): the multi control's inSize.
 * 0 (send them all) when the layout is otherwise or nothing is saved.
 */
static size_t in_before(const struct gspabi_version *v, const struct sctl *c,
			uint64_t bit, enum gspabi_struct_id elem, uint32_t used)
{
	const struct gspabi_struct_ops *s = &v->structs[c->id];
	unsigned f = (unsigned)__builtin_ctzll(bit);
	size_t esz = v->structs[elem].wire_size, in;

	if (c->ret || !s->offsets || !s->counts || !(s->fields & bit) ||
	    s->offsets[f] == UINT32_MAX || used > s->counts[f] ||
	    s->offsets[f] + (size_t)s->counts[f] * esz != c->size)
		return 0;
	in = PAD8(s->offsets[f] + (size_t)used * esz);
	return in < PAD8(c->size) ? in : 0;
}

/* ---- thermal: one instruction list ---------------------------------------- */

/* thermal constants of the generated layer, shorter */
#define THERM(x) GSPABI_K_NV2080_CTRL_THERMAL_SYSTEM_##x
#define OP(x) THERM(x##_OPCODE)

/* append an instruction reading @index (every indexed operand's first
 * member: the union arm of @opcode) */
static int ins(const struct gspabi_version *v, struct gspabi_thermal_exec *p,
	       uint32_t opcode, uint32_t index)
{
	struct gspabi_thermal_ins in = {
		.present = GSPABI_THERMAL_INS_HAS_OPCODE, .opcode = opcode};

	switch (opcode) {
	case OP(GET_INFO_TARGET_TYPE):
		in.target_index = index;
		in.present |= GSPABI_THERMAL_INS_HAS_TARGET_INDEX;
		break;
	case OP(GET_INFO_SENSOR_TARGET):
		in.target_sensor = index;
		in.present |= GSPABI_THERMAL_INS_HAS_TARGET_SENSOR;
		break;
	case OP(GET_STATUS_SENSOR_READING):
		in.reading_sensor = index;
		in.present |= GSPABI_THERMAL_INS_HAS_READING_SENSOR;
		break;
	}
	if (gspabi_thermal_exec_instructionList_set(
		    v, p, p->instructionListSize, &in))
		return nvl_error(-EPROTO, "sensors: %s: thermal instruction %u",
				 v->tag, p->instructionListSize);
	p->instructionListSize++;
	return 0;
}

/* the list, in order: 0: targets, 1..4: their types, 5: sensors, 6..9:
 * their targets, 10..13: their readings (thermal_parse() reads so) */
static const struct {
	uint32_t opcode, count;
} therm_plan[] = {
	{OP(GET_INFO_TARGETS_AVAILABLE), 1},
	{OP(GET_INFO_TARGET_TYPE), THERM_PROBE},
	{OP(GET_INFO_SENSORS_AVAILABLE), 1},
	{OP(GET_INFO_SENSOR_TARGET), THERM_PROBE},
	{OP(GET_STATUS_SENSOR_READING), THERM_PROBE},
};

static int thermal_prepare(const struct gspabi_version *v,
			   struct gspabi_thermal_exec *p)
{
	int ret = 0;

	p->clientAPIVersion = THERM(API_VER);
	p->clientAPIRevision = THERM(API_REV);
	p->clientInstructionSizeOf =
		(uint32_t)v->structs[GSPABI_S_THERMAL_INS].wire_size;
	p->executeFlags = THERM(EXECUTE_FLAGS_IGNORE_FAIL);
	for (unsigned k = 0; !ret && k < NVL_ARRAY_SIZE(therm_plan); k++)
		for (uint32_t i = 0; !ret && i < therm_plan[k].count; i++)
			ret = ins(v, p, therm_plan[k].opcode, i);
	return ret;
}

/* instruction @i of the reply if it ran and succeeded, with @has */
static bool ins_ok(const struct gspabi_version *v,
		   const struct gspabi_thermal_exec *p, uint32_t i,
		   uint64_t has, struct gspabi_thermal_ins *out)
{
	const uint64_t need = GSPABI_THERMAL_INS_HAS_EXECUTED |
			      GSPABI_THERMAL_INS_HAS_RESULT | has;

	return !gspabi_thermal_exec_instructionList_get(v, p, i, out) &&
	       (out->present & need) == need && out->executed &&
	       out->result == GSPABI_K_STATUS_NV_OK;
}

static void thermal_parse(const struct gspabi_version *v,
			  const struct gspabi_thermal_exec *p,
			  struct nvl_sensors *s)
{
	uint32_t ttype[THERM_PROBE] = {0};
	struct gspabi_thermal_ins tg, rd;

	for (uint32_t t = 0; t < THERM_PROBE; t++)
		if (ins_ok(v, p, 1 + t, GSPABI_THERMAL_INS_HAS_TARGET_TYPE,
			   &tg))
			ttype[t] = tg.target_type;
	for (uint32_t i = 0; i < THERM_PROBE; i++) {
		uint32_t t;

		if (!ins_ok(v, p, 6 + i, GSPABI_THERMAL_INS_HAS_SENSOR_TARGET,
			    &tg) ||
		    !ins_ok(v, p, 10 + i, GSPABI_THERMAL_INS_HAS_READING, &rd))
			continue;
		t = tg.sensor_target;
		if (t >= THERM_PROBE)
			continue;
		if (ttype[t] == THERM(TARGET_GPU) &&
		    !(s->valid & BIT(NVL_SENSOR_GPU_TEMP))) {
			s->gpu_temp_c = rd.reading;
			s->valid |= BIT(NVL_SENSOR_GPU_TEMP);
		} else if (ttype[t] == THERM(TARGET_MEMORY) &&
			   !(s->valid & BIT(NVL_SENSOR_MEM_TEMP))) {
			s->mem_temp_c = rd.reading;
			s->valid |= BIT(NVL_SENSOR_MEM_TEMP);
		}
	}
}

/* ---- the rest ------------------------------------------------------------- */

/* every bit of @has is in @present */
#define HAS(n, has) (((n)->present & (has)) == (has))

static void power_parse(const struct gspabi_pmgr_status *p,
			struct nvl_sensors *s)
{
	if (HAS(p, GSPABI_PMGR_STATUS_HAS_POWERMW)) {
		s->power_mw = p->powerMw;
		s->valid |= BIT(NVL_SENSOR_POWER);
	}
	if (HAS(p, GSPABI_PMGR_STATUS_HAS_LIMITMW |
			   GSPABI_PMGR_STATUS_HAS_MINLIMITMW |
			   GSPABI_PMGR_STATUS_HAS_MAXLIMITMW |
			   GSPABI_PMGR_STATUS_HAS_DEFAULTLIMITMW)) {
		s->power_limit_mw = p->limitMw;
		s->power_min_mw = p->minLimitMw;
		s->power_max_mw = p->maxLimitMw;
		s->power_default_mw = p->defaultLimitMw;
		s->valid |= BIT(NVL_SENSOR_POWER_LIMIT);
	}
	if (HAS(p, GSPABI_PMGR_STATUS_HAS_ENERGYMJ)) {
		s->energy_mj = p->energyMj;
		s->valid |= BIT(NVL_SENSOR_ENERGY);
	}
	if (HAS(p, GSPABI_PMGR_STATUS_HAS_TIMESTAMP))
		s->timestamp_ns = p->timeStamp;
}

static const struct {
	uint32_t domain;
	enum nvl_sensor cur, max;
} clk_dom[] = {
	{GSPABI_K_NV2080_CTRL_CLK_DOMAIN_GPCCLK, NVL_SENSOR_CLK_GR,
	 NVL_SENSOR_CLK_GR_MAX},
	{GSPABI_K_NV2080_CTRL_CLK_DOMAIN_MCLK, NVL_SENSOR_CLK_MEM,
	 NVL_SENSOR_CLK_MEM_MAX},
	{GSPABI_K_NV2080_CTRL_CLK_DOMAIN_NVDCLK, NVL_SENSOR_CLK_VIDEO,
	 NVL_SENSOR_CLK_VIDEO_MAX},
};

static int clocks_prepare(const struct gspabi_version *v,
			  struct gspabi_clk_info *p)
{
	struct gspabi_clk_domain d = {.present =
					      GSPABI_CLK_DOMAIN_HAS_CLKDOMAIN};

	p->clkInfoListSize = NVL_ARRAY_SIZE(clk_dom);
	for (unsigned i = 0; i < NVL_ARRAY_SIZE(clk_dom); i++) {
		d.clkDomain = clk_dom[i].domain;
		if (gspabi_clk_info_clkInfoList_set(v, p, i, &d))
			return nvl_error(-EPROTO,
					 "sensors: %s: clock domain %u", v->tag,
					 i);
	}
	return 0;
}

static void clocks_parse(const struct gspabi_version *v,
			 const struct gspabi_clk_info *p, struct nvl_sensors *s)
{
	uint32_t *cur[] = {&s->clk_gr_mhz, &s->clk_mem_mhz, &s->clk_video_mhz};
	uint32_t *max[] = {&s->clk_gr_max_mhz, &s->clk_mem_max_mhz,
			   &s->clk_video_max_mhz};
	struct gspabi_clk_domain d;

	for (unsigned i = 0; i < NVL_ARRAY_SIZE(clk_dom); i++) {
		if (gspabi_clk_info_clkInfoList_get(v, p, i, &d) ||
		    !HAS(&d, GSPABI_CLK_DOMAIN_HAS_CLKDOMAIN) ||
		    d.clkDomain != clk_dom[i].domain)
			continue;
		if (HAS(&d, GSPABI_CLK_DOMAIN_HAS_ACTUALMHZ)) {
			*cur[i] = d.actualMHz;
			s->valid |= BIT(clk_dom[i].cur);
		}
		if (HAS(&d, GSPABI_CLK_DOMAIN_HAS_MAXMHZ)) {
			*max[i] = d.maxMHz;
			s->valid |= BIT(clk_dom[i].max);
		}
	}
}

static void perf_parse(const struct gspabi_perf_status *p,
		       struct nvl_sensors *s)
{
	if (HAS(p, GSPABI_PERF_STATUS_HAS_REASONS |
			   GSPABI_PERF_STATUS_HAS_REASONSSUPPORTED)) {
		s->throttle = p->reasons;
		s->throttle_supported = p->reasonsSupported;
		s->valid |= BIT(NVL_SENSOR_THROTTLE);
	}
	if (HAS(p, GSPABI_PERF_STATUS_HAS_FLAGS |
			   GSPABI_PERF_STATUS_HAS_FANPERCENT) &&
	    (p->flags & GSPABI_K_NVL2080_CTRL_PERF_STATUS_FLAG_FAN)) {
		s->fan_pct = p->fanPercent;
		s->valid |= BIT(NVL_SENSOR_FAN);
	}
	if (HAS(p, GSPABI_PERF_STATUS_HAS_PSTATE)) {
		s->pstate = p->pstate;
		s->valid |= BIT(NVL_SENSOR_PSTATE);
	}
	if (!s->timestamp_ns && HAS(p, GSPABI_PERF_STATUS_HAS_TIMESTAMP))
		s->timestamp_ns = p->timeStamp;
}

static void util_parse(const struct gspabi_version *v,
		       const struct gspabi_util_samples *p,
		       struct nvl_sensors *s)
{
	struct gspabi_util_sample u;

	if (!HAS(p, GSPABI_UTIL_SAMPLES_HAS_COUNT |
			    GSPABI_UTIL_SAMPLES_HAS_TRACKER) ||
	    !p->count || p->tracker >= p->count)
		return;
	/* the newest of the firmware's samples */
	if (gspabi_util_samples_samples_get(v, p, p->tracker, &u) ||
	    !HAS(&u, GSPABI_UTIL_SAMPLE_HAS_GR_UTIL |
			     GSPABI_UTIL_SAMPLE_HAS_FB_UTIL))
		return;
	s->util_gpu = u.gr_util;
	s->util_mem = u.fb_util;
	s->valid |= BIT(NVL_SENSOR_UTIL_GPU) | BIT(NVL_SENSOR_UTIL_MEM);
	/* the sample's time, when no control of ours gave one (a real
	 * GSP-RM) */
	if (!s->timestamp_ns && HAS(&u, GSPABI_UTIL_SAMPLE_HAS_TIMESTAMP))
		s->timestamp_ns = u.timestamp;
}

/* NVIDIA's P-state in force (Pn = 1 << n), where our perf status is not
 * served */
static void pstate_parse(const struct gspabi_perf_pstate *p,
			 struct nvl_sensors *s)
{
	if (!HAS(p, GSPABI_PERF_PSTATE_HAS_CURRPSTATE) || !p->currPstate ||
	    (p->currPstate & (p->currPstate - 1)))
		return; /* none, or not one P-state */
	s->pstate = (uint32_t)__builtin_ctz(p->currPstate);
	s->valid |= BIT(NVL_SENSOR_PSTATE);
}

/* the firmware's samples reduced to the newest one's shares (ours) */
static void perf_util_parse(const struct gspabi_perf_util *p,
			    struct nvl_sensors *s)
{
	if (!HAS(p, GSPABI_PERF_UTIL_HAS_COUNT | GSPABI_PERF_UTIL_HAS_GRUTIL |
			    GSPABI_PERF_UTIL_HAS_FBUTIL) ||
	    !p->count)
		return;
	s->util_gpu = p->grUtil;
	s->util_mem = p->fbUtil;
	s->valid |= BIT(NVL_SENSOR_UTIL_GPU) | BIT(NVL_SENSOR_UTIL_MEM);
	if (!s->timestamp_ns && HAS(p, GSPABI_PERF_UTIL_HAS_TIMESTAMP))
		s->timestamp_ns = p->timeStamp;
}

static void engines_parse(const struct gspabi_perf_status *e,
			  struct nvl_sensors *s)
{
	unsigned n;

	if (!HAS(e, GSPABI_PERF_STATUS_HAS_NUMENGINES |
			    GSPABI_PERF_STATUS_HAS_ENGINEUTIL) ||
	    !e->numEngines)
		return; /* absent, or no perfmon sample yet */
	n = e->numEngines;
	if (n > NVL_ARRAY_SIZE(e->engineUtil))
		n = NVL_ARRAY_SIZE(e->engineUtil);
	if (n > NVL_SENSORS_MAX_ENGINES)
		n = NVL_SENSORS_MAX_ENGINES;
	s->num_engines = n;
	for (unsigned i = 0; i < n; i++)
		s->util_engine[i] = e->engineUtil[i];
	s->valid |= BIT(NVL_SENSOR_UTIL_ENGINES);
}

/* everything a read sends through the multi control, in order, in
 * neutral structs; then their wire images in the booted version's layout
 * (one allocation) */
struct sread {
	struct gspabi_pmgr_status power;
	struct gspabi_thermal_exec thermal;
	struct gspabi_clk_info clk;
	struct gspabi_perf_util util;
	struct gspabi_perf_status perf;
	_Alignas(8) uint8_t wire[];
};

/* NVIDIA's samples control, its ring and its wire image: only where the
 * reduced control is not served (a firmware without the multi control,
 * or without PERF_GET_UTIL); allocated then. With it, for a firmware
 * without the multi control, NVIDIA's current P-state (its wire image
 * after the ring's). */
struct sring {
	struct gspabi_util_samples n;
	struct gspabi_perf_pstate ps;
	_Alignas(8) uint8_t wire[];
};

/*
 * The controls of a read, in the order they run: the multi control sends
 * all but C_RING (the samples reduced by the firmware: C_UTIL) and
 * C_PSTATE; six controls one by one send all but C_UTIL (C_RING and
 * C_PSTATE: NVIDIA's, which a real GSP-RM serves, where it answers our
 * perf status NV_ERR_NOT_SUPPORTED). The samples before the perf status
 * either way: the firmware takes a sample per call, and the status
 * reports its per-engine shares.
 */
enum { C_POWER, C_THERMAL, C_CLK, C_UTIL, C_RING, C_PERF, C_PSTATE, C_NR };

static const enum gspabi_struct_id read_ids[C_NR] = {
	[C_POWER] = GSPABI_S_PMGR_STATUS,  [C_THERMAL] = GSPABI_S_THERMAL_EXEC,
	[C_CLK] = GSPABI_S_CLK_INFO,	   [C_UTIL] = GSPABI_S_PERF_UTIL,
	[C_RING] = GSPABI_S_UTIL_SAMPLES,  [C_PERF] = GSPABI_S_PERF_STATUS,
	[C_PSTATE] = GSPABI_S_PERF_PSTATE,
};

static int read_prepare(const struct gspabi_version *v, struct sread *r)
{
	int ret = 0;

	if (v->structs[GSPABI_S_THERMAL_EXEC].present)
		ret = thermal_prepare(v, &r->thermal);
	if (!ret && v->structs[GSPABI_S_CLK_INFO].present)
		ret = clocks_prepare(v, &r->clk);
	return ret;
}

static void read_parse(const struct gspabi_version *v, const struct sread *r,
		       const struct sctl *c, struct nvl_sensors *s)
{
	if (!c[C_POWER].ret)
		power_parse(&r->power, s);
	if (!c[C_THERMAL].ret)
		thermal_parse(v, &r->thermal, s);
	if (!c[C_CLK].ret)
		clocks_parse(v, &r->clk, s);
	if (!c[C_UTIL].ret)
		perf_util_parse(&r->util, s);
	else if (!c[C_RING].ret)
		util_parse(v, c[C_RING].n, s);
	if (!c[C_PERF].ret) {
		perf_parse(&r->perf, s);
		engines_parse(&r->perf, s);
	}
	if (!(s->valid & BIT(NVL_SENSOR_PSTATE)) && !c[C_PSTATE].ret)
		pstate_parse(c[C_PSTATE].n, s);
}

/*
 * Pack the controls of @r but @skip into the wire images from @wire0
 * (zeroed) on, and C_RING's and C_PSTATE's (with @ring only) into
 * @ring's; *@at: the end of the first. @skip is not sent (-EOPNOTSUPP:
 * its fields come from the other samples control). The instruction
 * list's inSize for the multi control: its slots past the used ones are
 * neither read nor written by the firmware.
 */
static int read_pack(const struct gspabi_version *v, const struct sread *r,
		     struct sctl *c, unsigned skip, uint8_t *wire0,
		     uint8_t **at, struct sring *ring)
{
	int ret = 0;

	uint8_t *ring_at = ring ? ring->wire : NULL;

	*at = wire0;
	for (unsigned i = 0; !ret && i < C_NR; i++) {
		bool own = i == C_RING || i == C_PSTATE;

		c[i].ret = 0;
		c[i].in = 0;
		if (i == skip || (own && !ring)) {
			c[i].ret = -EOPNOTSUPP;
			continue;
		}
		ret = sctl_pack(v, &c[i], own ? &ring_at : at);
		if (ret == -EOPNOTSUPP)
			ret = 0; /* the version lacks it: its fields absent */
	}
	if (r->thermal.present & GSPABI_THERMAL_EXEC_HAS_INSTRUCTIONLISTSIZE)
		c[C_THERMAL].in = in_before(
			v, &c[C_THERMAL],
			GSPABI_THERMAL_EXEC_HAS_INSTRUCTIONLIST,
			GSPABI_S_THERMAL_INS, r->thermal.instructionListSize);
	return ret;
}

/*
 * NVIDIA's samples control for @c[C_RING] and its current P-state for
 * @c[C_PSTATE] (@ring: NULL, allocated here; the caller frees it): their
 * neutral structs and wire images, the ring's bytes in this version.
 */
static int ring_prepare(const struct gspabi_version *v, struct sctl *c,
			struct sring **ring)
{
	const struct gspabi_struct_ops *s = &v->structs[GSPABI_S_UTIL_SAMPLES];
	const struct gspabi_struct_ops *ps = &v->structs[GSPABI_S_PERF_PSTATE];
	struct sring *rg;

	rg = nvl_zalloc(sizeof(*rg) + (s->present ? PAD8(s->wire_size) : 0) +
			(ps->present ? PAD8(ps->wire_size) : 0));
	if (!rg)
		return nvl_error(-ENOMEM, "sensors: no memory");
	rg->n.type = GSPABI_K_NV2080_CTRL_GPUMON_SAMPLE_TYPE_PERFMON_UTIL;
	rg->n.bufSize = gspabi_util_samples_samples_count(v) *
			(uint32_t)v->structs[GSPABI_S_UTIL_SAMPLE].wire_size;
	c[C_RING].n = &rg->n;
	c[C_PSTATE].n = &rg->ps;
	*ring = rg;
	return 0;
}

int nvl_gsp_sensors_read(struct nvl_gsp *gsp, uint32_t hsub,
			 struct nvl_sensors *out)
{
	const struct gspabi_version *v;
	struct nvl_sensors s = {0};
	struct sctl c[C_NR];
	size_t wires = 0, mhdr = 0;
	struct sring *ring = NULL;
	struct sread *r;
	uint8_t *at, *wire0;
	int ret = 0;

	if (!gsp || !out)
		return nvl_error(-EINVAL, "sensors: no GSP or no output");
	v = gsp->abi;
	if (!v)
		return nvl_error(-ENODEV, "sensors: the GSP is not booted");
	/* room for the GSP_RM_CONTROL header and the multi control's (their
	 * end 8-byte aligned), then the wire images: the message of the
	 * multi control in one piece */
	if (v->structs[GSPABI_S_MULTI_CONTROL].present)
		mhdr = v->structs[GSPABI_S_MULTI_CONTROL].wire_size +
		       nvl_gsp_rm_control_hdr(gsp);
	for (unsigned i = 0; i < C_NR; i++)
		if (i != C_RING && i != C_PSTATE &&
		    v->structs[read_ids[i]].present)
			wires += PAD8(v->structs[read_ids[i]].wire_size);
	r = nvl_zalloc(sizeof(*r) + PAD8(mhdr) + wires);
	if (!r)
		return nvl_error(-ENOMEM, "sensors: no memory");
#define C(i, c_, f_)                                                           \
	c[i] = (struct sctl){                                                  \
		.cmd = GSPABI_K_CONTROL_##c_, .id = read_ids[i], .n = &r->f_}
	C(C_POWER, NVL2080_CTRL_CMD_PMGR_GET_STATUS, power);
	C(C_THERMAL, NV2080_CTRL_CMD_THERMAL_SYSTEM_EXECUTE_V2, thermal);
	C(C_CLK, NVL2080_CTRL_CMD_CLK_GET_INFO, clk);
	C(C_UTIL, NVL2080_CTRL_CMD_PERF_GET_UTIL, util);
	c[C_RING] = (struct sctl){
		.cmd = GSPABI_K_CONTROL_NV2080_CTRL_CMD_PERF_GET_GPUMON_PERFMON_UTIL_SAMPLES_V2,
		.id = read_ids[C_RING]};
	C(C_PERF, NVL2080_CTRL_CMD_PERF_GET_STATUS, perf);
	c[C_PSTATE] = (struct sctl){
		.cmd = GSPABI_K_CONTROL_NV2080_CTRL_CMD_PERF_GET_CURRENT_PSTATE,
		.id = read_ids[C_PSTATE]};
#undef C
	ret = read_prepare(v, r);
	wire0 = r->wire + PAD8(mhdr);
	at = wire0;
	/* one round trip where the firmware batches, the samples reduced
	 * by the firmware; else six in flight, NVIDIA's samples control and
	 * current P-state */
	if (!ret)
		ret = read_pack(v, r, c, C_RING, wire0, &at, NULL);
	if (!ret)
		ret = atomic_load(&gsp->no_multi_control)
			      ? -EOPNOTSUPP
			      : multi(gsp, hsub, c, C_NR,
				      mhdr ? wire0 - v->structs
							      [GSPABI_S_MULTI_CONTROL]
								      .wire_size
					   : NULL);
	if (ret == -EOPNOTSUPP) {
		/* the multi control's command may have moved the wire
		 * images: packed again, from zero */
		memset(wire0, 0, (size_t)(at - wire0));
		ret = ring_prepare(v, c, &ring);
		if (!ret)
			ret = read_pack(v, r, c, C_UTIL, wire0, &at, ring);
		if (!ret)
			ret = batch(gsp, hsub, c, C_NR);
	} else if (!ret && c[C_UTIL].ret == -EOPNOTSUPP) {
		/* batched, but no reduced samples: NVIDIA's control after */
		ret = ring_prepare(v, c, &ring);
		if (!ret) {
			uint8_t *ring_at = ring->wire;

			c[C_RING].ret = 0;
			ret = sctl_pack(v, &c[C_RING], &ring_at);
			if (ret == -EOPNOTSUPP)
				ret = 0;
			else if (!ret)
				ret = batch(gsp, hsub, &c[C_RING], 1);
		}
	}
	for (unsigned i = 0; !ret && i < C_NR; i++)
		if (!c[i].ret &&
		    gspabi_unpack(v, c[i].id, c[i].wire, c[i].size, c[i].n))
			ret = nvl_error(-EPROTO,
					"sensors: %s: reply to %#x does not "
					"unpack",
					v->tag, c[i].cmd);
	if (!ret)
		read_parse(v, r, c, &s);
	nvl_free(ring);
	nvl_free(r);
	if (!ret)
		*out = s;
	return ret;
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

/* one small control through the version's layer; a version without the
 * control's struct cannot send it */
static int control(struct nvl_gsp *gsp, uint32_t hsub, uint32_t cmd,
		   enum gspabi_struct_id id, void *neutral)
{
	if (!gsp || !gsp->abi)
		return nvl_error(-ENODEV, "sensors: the GSP is not booted");
	if (!gsp->abi->structs[id].present)
		return nvl_error(-EOPNOTSUPP,
				 "sensors: firmware %s has no control %#x",
				 gsp->abi->tag, cmd);
	return nvl_gsp_rm_control_abi(gsp, hsub, cmd, id, neutral);
}

int nvl_gsp_set_power_limit(struct nvl_gsp *gsp, uint32_t hsub, bool privileged,
			    uint32_t mw)
{
	struct gspabi_pmgr_set_limit p = {.limitMw = mw};

	return need_priv(privileged, "power limit")
		       ?: control(gsp, hsub,
				  GSPABI_K_CONTROL_NVL2080_CTRL_CMD_PMGR_SET_LIMIT,
				  GSPABI_S_PMGR_SET_LIMIT, &p);
}

int nvl_gsp_set_pstate_limits(struct nvl_gsp *gsp, uint32_t hsub,
			      bool privileged, unsigned fastest,
			      unsigned slowest)
{
	struct gspabi_pstate_limits p = {.pstateFastest = fastest,
					 .pstateSlowest = slowest};

	if (need_priv(privileged, "P-state limits"))
		return -EPERM;
	if (fastest > slowest)
		return nvl_error(-EINVAL, "sensors: P%u is slower than P%u",
				 fastest, slowest);
	return control(gsp, hsub,
		       GSPABI_K_CONTROL_NVL2080_CTRL_CMD_PERF_SET_PSTATE_LIMITS,
		       GSPABI_S_PSTATE_LIMITS, &p);
}

int nvl_gsp_set_app_clocks(struct nvl_gsp *gsp, uint32_t hsub, bool privileged,
			   uint32_t gr_mhz, uint32_t mem_mhz)
{
	struct gspabi_app_clocks p = {.gpcMHz = gr_mhz, .memMHz = mem_mhz};

	return need_priv(privileged, "application clocks")
		       ?: control(gsp, hsub,
				  GSPABI_K_CONTROL_NVL2080_CTRL_CMD_CLK_SET_APP_CLOCKS,
				  GSPABI_S_APP_CLOCKS, &p);
}

int nvl_gsp_set_boost(struct nvl_gsp *gsp, uint32_t hsub, bool privileged,
		      uint32_t seconds)
{
	struct gspabi_perf_boost p = {
		.flags =
			seconds ? GSPABI_K_NV2080_CTRL_PERF_BOOST_FLAGS_CMD_BOOST_TO_MAX
				: GSPABI_K_NV2080_CTRL_PERF_BOOST_FLAGS_CMD_CLEAR,
		.duration =
			seconds == UINT32_MAX
				? GSPABI_K_NV2080_CTRL_PERF_BOOST_DURATION_INFINITE
				: seconds,
	};

	if (need_priv(privileged, "boost"))
		return -EPERM;
	/* PERF_BOOST's duration: an hour at most, or until cleared */
	if (seconds != UINT32_MAX &&
	    seconds > GSPABI_K_NV2080_CTRL_PERF_BOOST_DURATION_MAX)
		return nvl_error(-EINVAL,
				 "sensors: a boost of %u s: at most %u s, or "
				 "UINT32_MAX (until cleared)",
				 seconds,
				 GSPABI_K_NV2080_CTRL_PERF_BOOST_DURATION_MAX);
	return control(gsp, hsub, GSPABI_K_CONTROL_NV2080_CTRL_CMD_PERF_BOOST,
		       GSPABI_S_PERF_BOOST, &p);
}

/* ---- events -------------------------------------------------------------- */

struct nvl_gsp_sensor_sub {
	struct nvl_gsp *gsp;
	uint32_t hsub, hevent, events;
	nvl_gsp_sensor_event_fn fn;
	void *arg;
};

static const struct {
	uint32_t event, index;
} ev_map[] = {
	{NVL_SENSOR_EVENT_THERMAL, GSPABI_K_NVL2080_NOTIFIERS_THERMAL_SLOWDOWN},
	{NVL_SENSOR_EVENT_POWER_CAP, GSPABI_K_NVL2080_NOTIFIERS_POWER_CAP},
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
	struct gspabi_event_notify p = {.event = index, .action = action};

	return control(sub->gsp, sub->hsub,
		       GSPABI_K_CONTROL_NV2080_CTRL_CMD_EVENT_SET_NOTIFICATION,
		       GSPABI_S_EVENT_NOTIFY, &p);
}

/* one subscription per GSP client (it has one POST_EVENT handler) */
static int slot_take(struct nvl_gsp_sensor_sub *sub)
{
	struct nvl_gsp_sensor_sub *none = NULL;

	if (!atomic_compare_exchange_strong(&sub->gsp->sensor_sub, &none, sub))
		return nvl_error(-EBUSY, "sensors: the GSP has a subscriber");
	return 0;
}

static void slot_put(struct nvl_gsp_sensor_sub *sub)
{
	struct nvl_gsp_sensor_sub *me = sub;

	atomic_compare_exchange_strong(&sub->gsp->sensor_sub, &me, NULL);
}

static void sub_teardown(struct nvl_gsp_sensor_sub *sub)
{
	for (unsigned i = 0; i < NVL_ARRAY_SIZE(ev_map); i++)
		if (sub->events & ev_map[i].event)
			set_notify(
				sub, ev_map[i].index,
				GSPABI_K_NV2080_CTRL_EVENT_SET_NOTIFICATION_ACTION_DISABLE);
	nvl_gsp_event_register(sub->gsp, GSPABI_K_EVENT_POST_EVENT, NULL, NULL);
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
	struct gspabi_event_alloc ep = {0};
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
	ep.hClass = GSPABI_K_NV01_EVENT_KERNEL_CALLBACK_EX;
	ret = gsp->abi ? nvl_gsp_rm_alloc_abi(
				 gsp, hsub,
				 GSPABI_K_NV01_EVENT_KERNEL_CALLBACK_EX,
				 GSPABI_S_EVENT_ALLOC, &ep, &sub->hevent)
		       : nvl_error(-ENODEV, "sensors: the GSP is not booted");
	if (!ret)
		ret = nvl_gsp_event_register(gsp, GSPABI_K_EVENT_POST_EVENT,
					     on_post, sub);
	for (unsigned i = 0; !ret && i < NVL_ARRAY_SIZE(ev_map); i++)
		if (events & ev_map[i].event)
			ret = set_notify(
				sub, ev_map[i].index,
				GSPABI_K_NV2080_CTRL_EVENT_SET_NOTIFICATION_ACTION_REPEAT);
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

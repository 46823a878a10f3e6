// SPDX-License-Identifier: MIT
/*
 * DOC: nvl smi's --query-gpu fields
 *
 * nvidia-smi's field names (and its older aliases), header texts and
 * units (../shared/reference/user-tools.md §1.2), each read from one
 * device sample: the sensors through the firmware, the device's memory
 * and query. A value the device does not report is absent and prints
 * [N/A]; one nouvelle cannot have (a board serial, a UUID, ECC, MIG) is
 * [N/A] as on GeForce boards; one that needs a kernel driver
 * (persistence mode) is [Not Supported]. No number is made up.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "smi.h"

#define S(f) NVL_SENSOR_##f

static const struct smi_field fields[] = {
	{"timestamp", NULL, NULL,
	 "The timestamp of when the query was made "
	 "in format \"YYYY/MM/DD HH:MM:SS.msec\"."},
	{"driver_version", NULL, NULL,
	 "The version of nouvelle (the driver; it runs in the process)."},
	{"count", NULL, NULL, "The number of GPUs the tool opened."},
	{"index", NULL, NULL,
	 "Zero based index of the GPU, in the order of --devices."},
	{"name", "gpu_name", NULL,
	 "The product name of the GPU, as its firmware reports it."},
	{"serial", "gpu_serial", NULL,
	 "The board serial number ([N/A]: the model has none)."},
	{"uuid", "gpu_uuid", NULL,
	 "The GPU's UUID ([N/A]: the model has none)."},
	{"pci.bus_id", "gpu_bus_id", NULL,
	 "PCI bus id as \"domain:bus:device.function\", in hex (the "
	 "model's: bus 1, 2, ... in open order)."},
	{"pci.domain", NULL, NULL, "PCI domain number, in hex."},
	{"pci.bus", NULL, NULL, "PCI bus number, in hex."},
	{"pci.device", NULL, NULL, "PCI device number, in hex."},
	{"pci.device_id", NULL, NULL,
	 "PCI vendor and device id ([N/A]: the model has no PCI id)."},
	{"vbios_version", NULL, NULL, "The BIOS of the GPU board ([N/A])."},
	{"display_attached", NULL, NULL,
	 "Whether a display is attached (No: the model has no display)."},
	{"display_active", NULL, NULL,
	 "Whether a display is initialised (Disabled)."},
	{"persistence_mode", NULL, NULL,
	 "A kernel driver's persistence mode ([Not Supported]: nouvelle "
	 "runs in the process)."},
	{"compute_mode", NULL, NULL, "The compute mode (Default)."},
	{"gsp.mode.current", NULL, NULL,
	 "Whether GSP firmware runs (Enabled: nouvelle always boots it)."},
	{"gsp.firmware_version", NULL, NULL,
	 "nouvelle's own field: the GSP firmware version that runs."},
	{"ecc.mode.current", NULL, NULL, "ECC mode ([N/A])."},
	{"mig.mode.current", NULL, NULL, "MIG mode ([N/A])."},
	{"fan.speed", NULL, "%",
	 "The fan's intended speed as a percent of its maximum ([N/A] on "
	 "boards without a fan)."},
	{"pstate", NULL, NULL,
	 "The current performance state, P0 (maximum) to P12 (minimum)."},
	{"clocks_event_reasons.supported", "clocks_throttle_reasons.supported",
	 NULL, "Bitmask of the clock event reasons the firmware reports."},
	{"clocks_event_reasons.active", "clocks_throttle_reasons.active", NULL,
	 "Bitmask of the active clock event reasons: 0x1 idle, 0x2 "
	 "application clocks, 0x4 SW power cap, 0x8 HW slowdown, 0x40 HW "
	 "thermal slowdown."},
	{"clocks_event_reasons.gpu_idle", "clocks_throttle_reasons.gpu_idle",
	 NULL, "Nothing runs on the GPU: clocks are lowered."},
	{"clocks_event_reasons.applications_clocks_setting",
	 "clocks_throttle_reasons.applications_clocks_setting", NULL,
	 "Clocks are limited by the application clocks setting."},
	{"clocks_event_reasons.sw_power_cap",
	 "clocks_throttle_reasons.sw_power_cap", NULL,
	 "The power controller lowers the clocks to stay under the power "
	 "limit."},
	{"clocks_event_reasons.hw_slowdown",
	 "clocks_throttle_reasons.hw_slowdown", NULL,
	 "Hardware slowdown (a factor of two or more) is engaged."},
	{"clocks_event_reasons.hw_thermal_slowdown",
	 "clocks_throttle_reasons.hw_thermal_slowdown", NULL,
	 "The GPU is above its slowdown temperature."},
	{"memory.total", NULL, "MiB", "Total installed GPU memory."},
	{"memory.reserved", NULL, "MiB",
	 "Memory the firmware and the driver keep."},
	{"memory.used", NULL, "MiB", "Memory used by clients' buffers."},
	{"memory.free", NULL, "MiB", "Free memory: total - reserved - used."},
	{"utilization.gpu", NULL, "%",
	 "Share of the last sample period with an engine busy."},
	{"utilization.memory", NULL, "%",
	 "Share of the last sample period the memory was read or written "
	 "(the copy engines' mean)."},
	{"temperature.gpu", NULL, NULL, "Core GPU temperature, degrees C."},
	{"temperature.memory", NULL, NULL,
	 "HBM memory temperature, degrees C ([N/A] without HBM)."},
	{"power.draw", NULL, "W", "The board's power draw."},
	{"power.limit", "gpu.power.requested_limit", "W",
	 "The software power limit."},
	{"enforced.power.limit", "gpu.power.current_limit", "W",
	 "The power limit in force."},
	{"power.default_limit", NULL, "W", "The default power limit."},
	{"power.min_limit", NULL, "W", "The smallest accepted power limit."},
	{"power.max_limit", NULL, "W", "The largest accepted power limit."},
	{"clocks.current.graphics", "clocks.gr", "MHz",
	 "Current graphics clock."},
	{"clocks.current.sm", "clocks.sm", "MHz",
	 "Current SM clock (the graphics clock)."},
	{"clocks.current.memory", "clocks.mem", "MHz", "Current memory clock."},
	{"clocks.current.video", "clocks.video", "MHz", "Current video clock."},
	{"clocks.max.graphics", "clocks.max.gr", "MHz",
	 "Maximum graphics clock."},
	{"clocks.max.sm", NULL, "MHz", "Maximum SM clock."},
	{"clocks.max.memory", "clocks.max.mem", "MHz", "Maximum memory clock."},
	{"clocks.max.video", NULL, "MHz", "Maximum video clock."},
	{0},
};

const struct smi_field *smi_fields(void)
{
	return fields;
}

int smi_field_find(const char *name)
{
	for (int i = 0; fields[i].name; i++)
		if (!strcmp(fields[i].name, name) ||
		    (fields[i].alias && !strcmp(fields[i].alias, name)))
			return i;
	return -1;
}

static void num(struct smi_val *v, double x, int decimals)
{
	v->t = SMI_NUM;
	v->num = x;
	v->decimals = decimals;
}

static void str(struct smi_val *v, const char *s)
{
	v->t = SMI_STR;
	snprintf(v->str, sizeof(v->str), "%s", s);
}

static bool sens(const struct smi_sample *x, enum nvl_sensor f)
{
	return !x->sens_ret && nvl_sensors_has(&x->s, f);
}

static void reason(struct smi_val *v, const struct smi_sample *x, uint64_t bit)
{
	if (!sens(x, S(THROTTLE)) || !(x->s.throttle_supported & bit))
		return;
	str(v, x->s.throttle & bit ? "Active" : "Not Active");
}

void smi_timestamp(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	size_t n;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	n = strftime(buf, len, "%Y/%m/%d %H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%03ld", ts.tv_nsec / 1000000);
}

void smi_field_value(int f, const struct smi_sample *x, struct smi_val *v)
{
	const struct nvl_sensors *s = &x->s;
	const char *name = fields[f].name;
	unsigned bus = 0;

	memset(v, 0, sizeof(*v));
	v->t = SMI_NA;
	sscanf(x->gpu->bus_id, "%*x:%x", &bus);
	if (!strcmp(name, "timestamp"))
		str(v, x->timestamp);
	else if (!strcmp(name, "driver_version"))
		str(v, nvl_version());
	else if (!strcmp(name, "count"))
		num(v, x->count, 0);
	else if (!strcmp(name, "index"))
		num(v, x->gpu->index, 0);
	else if (!strcmp(name, "name"))
		str(v, x->gpu->info.gpu_name);
	else if (!strcmp(name, "pci.bus_id"))
		str(v, x->gpu->bus_id);
	else if (!strcmp(name, "pci.domain"))
		str(v, "0x0000");
	else if (!strcmp(name, "pci.bus"))
		snprintf(v->str, sizeof(v->str), "0x%02X", bus), v->t = SMI_STR;
	else if (!strcmp(name, "pci.device"))
		str(v, "0x00");
	else if (!strcmp(name, "display_attached"))
		str(v, "No");
	else if (!strcmp(name, "display_active"))
		str(v, "Disabled");
	else if (!strcmp(name, "persistence_mode"))
		v->t = SMI_NOTSUP;
	else if (!strcmp(name, "compute_mode"))
		str(v, "Default");
	else if (!strcmp(name, "gsp.mode.current"))
		str(v, "Enabled");
	else if (!strcmp(name, "gsp.firmware_version"))
		str(v, x->gpu->info.fw_version);
	else if (!strcmp(name, "fan.speed")) {
		if (sens(x, S(FAN)))
			num(v, s->fan_pct, 0);
	} else if (!strcmp(name, "pstate")) {
		if (sens(x, S(PSTATE)))
			snprintf(v->str, sizeof(v->str), "P%u", s->pstate),
				v->t = SMI_STR;
	} else if (!strcmp(name, "clocks_event_reasons.supported")) {
		if (sens(x, S(THROTTLE)))
			snprintf(v->str, sizeof(v->str), "0x%016llX",
				 (unsigned long long)s->throttle_supported),
				v->t = SMI_STR;
	} else if (!strcmp(name, "clocks_event_reasons.active")) {
		if (sens(x, S(THROTTLE)))
			snprintf(v->str, sizeof(v->str), "0x%016llX",
				 (unsigned long long)s->throttle),
				v->t = SMI_STR;
	} else if (!strcmp(name, "clocks_event_reasons.gpu_idle"))
		reason(v, x, NVL_THROTTLE_GPU_IDLE);
	else if (!strcmp(name,
			 "clocks_event_reasons.applications_clocks_setting"))
		reason(v, x, NVL_THROTTLE_APP_CLOCKS);
	else if (!strcmp(name, "clocks_event_reasons.sw_power_cap"))
		reason(v, x, NVL_THROTTLE_SW_POWER_CAP);
	else if (!strcmp(name, "clocks_event_reasons.hw_slowdown"))
		reason(v, x, NVL_THROTTLE_HW_SLOWDOWN);
	else if (!strcmp(name, "clocks_event_reasons.hw_thermal_slowdown"))
		reason(v, x, NVL_THROTTLE_HW_THERMAL);
	else if (!strcmp(name, "memory.total"))
		num(v, (double)(x->m.vram_total >> 20), 0);
	else if (!strcmp(name, "memory.reserved"))
		num(v, (double)(x->m.vram_reserved >> 20), 0);
	else if (!strcmp(name, "memory.used"))
		num(v, (double)(x->m.vram_used >> 20), 0);
	else if (!strcmp(name, "memory.free"))
		num(v,
		    (double)((x->m.vram_total - x->m.vram_reserved -
			      x->m.vram_used) >>
			     20),
		    0);
	else if (!strcmp(name, "utilization.gpu")) {
		if (sens(x, S(UTIL_GPU)))
			num(v, s->util_gpu / 100, 0);
	} else if (!strcmp(name, "utilization.memory")) {
		if (sens(x, S(UTIL_MEM)))
			num(v, s->util_mem / 100, 0);
	} else if (!strcmp(name, "temperature.gpu")) {
		if (sens(x, S(GPU_TEMP)))
			num(v, s->gpu_temp_c, 0);
	} else if (!strcmp(name, "temperature.memory")) {
		if (sens(x, S(MEM_TEMP)))
			num(v, s->mem_temp_c, 0);
	} else if (!strcmp(name, "power.draw")) {
		if (sens(x, S(POWER)))
			num(v, s->power_mw / 1000.0, 2);
	} else if (!strcmp(name, "power.limit") ||
		   !strcmp(name, "enforced.power.limit")) {
		if (sens(x, S(POWER_LIMIT)))
			num(v, s->power_limit_mw / 1000.0, 2);
	} else if (!strcmp(name, "power.default_limit")) {
		if (sens(x, S(POWER_LIMIT)))
			num(v, s->power_default_mw / 1000.0, 2);
	} else if (!strcmp(name, "power.min_limit")) {
		if (sens(x, S(POWER_LIMIT)))
			num(v, s->power_min_mw / 1000.0, 2);
	} else if (!strcmp(name, "power.max_limit")) {
		if (sens(x, S(POWER_LIMIT)))
			num(v, s->power_max_mw / 1000.0, 2);
	} else if (!strcmp(name, "clocks.current.graphics") ||
		   !strcmp(name, "clocks.current.sm")) {
		if (sens(x, S(CLK_GR)))
			num(v, s->clk_gr_mhz, 0);
	} else if (!strcmp(name, "clocks.current.memory")) {
		if (sens(x, S(CLK_MEM)))
			num(v, s->clk_mem_mhz, 0);
	} else if (!strcmp(name, "clocks.current.video")) {
		if (sens(x, S(CLK_VIDEO)))
			num(v, s->clk_video_mhz, 0);
	} else if (!strcmp(name, "clocks.max.graphics") ||
		   !strcmp(name, "clocks.max.sm")) {
		if (sens(x, S(CLK_GR_MAX)))
			num(v, s->clk_gr_max_mhz, 0);
	} else if (!strcmp(name, "clocks.max.memory")) {
		if (sens(x, S(CLK_MEM_MAX)))
			num(v, s->clk_mem_max_mhz, 0);
	} else if (!strcmp(name, "clocks.max.video")) {
		if (sens(x, S(CLK_VIDEO_MAX)))
			num(v, s->clk_video_max_mhz, 0);
	}
	/* serial, uuid, pci.device_id, vbios_version, ecc, mig: [N/A] */
}

void smi_val_text(const struct smi_val *v, const char *unit, bool units,
		  char *out, size_t len)
{
	switch (v->t) {
	case SMI_NA:
		snprintf(out, len, "[N/A]");
		break;
	case SMI_NOTSUP:
		snprintf(out, len, "[Not Supported]");
		break;
	case SMI_STR:
		snprintf(out, len, "%s", v->str);
		break;
	case SMI_NUM:
		snprintf(out, len, "%.*f%s%s", v->decimals, v->num,
			 units && unit ? " " : "", units && unit ? unit : "");
		break;
	}
}

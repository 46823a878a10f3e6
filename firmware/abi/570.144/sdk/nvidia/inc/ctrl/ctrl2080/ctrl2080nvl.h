/* SPDX-License-Identifier: MIT */
/*
 * NOUVELLE'S OWN subdevice controls (0x2080f1xx: class 0x2080, category
 * 0xf1, a range NVIDIA does not use) for GSP-RM 570.144, as in 535:
 * power (ctrl2080pmgr.h is an empty stub in OpenRM), clock readings and
 * application clocks, perf status and P-state limits, the multi control,
 * and two notifier indices. A real GSP-RM answers these
 * NV_ERR_NOT_SUPPORTED.
 */
#ifndef NVL_FW_570_CTRL2080NVL_H
#define NVL_FW_570_CTRL2080NVL_H

#include "nvtypes.h"
#include "ctrl/ctrl2080/ctrl2080clk.h"

/* ==== NOUVELLE'S OWN CONTROLS (0x2080f1xx, not GSP-RM's) ============== */

/* power: board power, limit and its range, energy */
#define NVL2080_CTRL_CMD_PMGR_GET_STATUS 0x2080f101
#define NVL2080_CTRL_CMD_PMGR_SET_LIMIT 0x2080f102

typedef struct NVL2080_CTRL_PMGR_GET_STATUS_PARAMS {
	NvU32 powerMw; /* board power */
	NvU32 limitMw; /* enforced limit */
	NvU32 minLimitMw; /* range SET_LIMIT accepts */
	NvU32 maxLimitMw;
	NvU32 defaultLimitMw;
	NvU32 pad;
	NV_DECLARE_ALIGNED(NvU64 energyMj, 8); /* since power-on */
	NV_DECLARE_ALIGNED(NvU64 timeStamp, 8);
} NVL2080_CTRL_PMGR_GET_STATUS_PARAMS;

typedef struct NVL2080_CTRL_PMGR_SET_LIMIT_PARAMS {
	NvU32 limitMw; /* NV_ERR_OUT_OF_RANGE outside min..max */
} NVL2080_CTRL_PMGR_SET_LIMIT_PARAMS;

/* clocks: current and maximum per public domain; application clocks */
#define NVL2080_CTRL_CMD_CLK_GET_INFO 0x2080f110
#define NVL2080_CTRL_CMD_CLK_SET_APP_CLOCKS 0x2080f111
#define NVL2080_CTRL_CLK_MAX_DOMAINS 8

typedef struct NVL2080_CTRL_CLK_INFO {
	NvU32 clkDomain; /* in: NV2080_CTRL_CLK_DOMAIN_* */
	NvU32 actualMHz; /* out */
	NvU32 maxMHz; /* out */
	NvU32 appMHz; /* out: application clock, 0 = default */
} NVL2080_CTRL_CLK_INFO;

typedef struct NVL2080_CTRL_CLK_GET_INFO_PARAMS {
	NvU32 clkInfoListSize;
	NVL2080_CTRL_CLK_INFO clkInfoList[NVL2080_CTRL_CLK_MAX_DOMAINS];
} NVL2080_CTRL_CLK_GET_INFO_PARAMS;

typedef struct NVL2080_CTRL_CLK_SET_APP_CLOCKS_PARAMS {
	NvU32 gpcMHz; /* 0 and 0: back to the defaults */
	NvU32 memMHz;
} NVL2080_CTRL_CLK_SET_APP_CLOCKS_PARAMS;

/* perf: P-state, limits, clock-event reasons, fan, per-engine utilisation */
#define NVL2080_CTRL_CMD_PERF_GET_STATUS 0x2080f120
#define NVL2080_CTRL_CMD_PERF_SET_PSTATE_LIMITS 0x2080f121
#define NVL2080_CTRL_PERF_MAX_ENGINES 16

/* reasons, in NVML's clocks-event-reason bits (nvidia-smi's mask) */
#define NVL2080_CTRL_PERF_REASON_GPU_IDLE 0x0001
#define NVL2080_CTRL_PERF_REASON_APP_CLOCKS 0x0002
#define NVL2080_CTRL_PERF_REASON_SW_POWER_CAP 0x0004
#define NVL2080_CTRL_PERF_REASON_HW_SLOWDOWN 0x0008
#define NVL2080_CTRL_PERF_REASON_HW_THERMAL 0x0040

typedef struct NVL2080_CTRL_PERF_GET_STATUS_PARAMS {
	NvU32 pstate; /* current Pn number */
	NvU32 pstateFastest; /* allowed range, Pn numbers */
	NvU32 pstateSlowest;
	NvU32 reasons; /* NVL2080_CTRL_PERF_REASON_* active */
	NvU32 reasonsSupported;
	NvU32 fanPercent; /* valid with NVL2080_CTRL_PERF_STATUS_FLAG_FAN */
	NvU32 flags; /* NVL2080_CTRL_PERF_STATUS_FLAG_* */
	NvU32 boost; /* 1 while a PERF_BOOST runs */
	NV_DECLARE_ALIGNED(NvU64 timeStamp, 8);
	/* each copy engine's busy share in the firmware's latest perfmon
	 * sample (PERF_GET_GPUMON_PERFMON_UTIL_SAMPLES_V2 takes one), 1/100
	 * percent; numEngines 0 until a sample was taken */
	NvU32 numEngines;
	NvU32 engineUtil[NVL2080_CTRL_PERF_MAX_ENGINES];
	NvU32 pad;
	NV_DECLARE_ALIGNED(NvU64 sampleTimeStamp, 8);
} NVL2080_CTRL_PERF_GET_STATUS_PARAMS;

#define NVL2080_CTRL_PERF_STATUS_FLAG_FAN 0x1 /* the board has a fan */

/*
 * PERF_GET_GPUMON_PERFMON_UTIL_SAMPLES_V2 reduced (nouvelle's own): the
 * firmware takes a perfmon sample into the same ring, exactly as the V2
 * control does, and returns only what a sensor read needs of it (the
 * newest sample's gr and fb shares), not the 72-sample ring: all output.
 */
#define NVL2080_CTRL_CMD_PERF_GET_UTIL 0x2080f122

typedef struct NVL2080_CTRL_PERF_GET_UTIL_PARAMS {
	NV_DECLARE_ALIGNED(NvU64 timeStamp, 8); /* the sample's, ns */
	NvU32 count; /* samples in the firmware's ring, this one included */
	NvU32 grUtil; /* the sample's gr.util, 1/100 percent */
	NvU32 fbUtil; /* its fb.util */
	NvU32 pad;
} NVL2080_CTRL_PERF_GET_UTIL_PARAMS;

/*
 * multi: several subdevice controls in one GSP_RM_CONTROL (a sensor read
 * in one round trip). The params are this header, then each entry's
 * params in order, each padded to 8 bytes; paramsSize is their sum. The
 * firmware runs the entries in order, each exactly as if it had been sent
 * alone on the same subdevice, and sets each one's status; the control
 * itself fails (NV_ERR_INVALID_ARGUMENT, nothing run) on a count above
 * MAX, sizes that do not add up, or an entry that is itself a multi. A
 * real GSP-RM answers NV_ERR_NOT_SUPPORTED: send the controls one by one.
 *
 * An entry whose params end in output only (a samples ring, unused list
 * slots) may leave that tail out of the command: inSize is the bytes of
 * its params the command carries (a multiple of 8, at most paramsSize
 * padded to 8; 0: all of them). The command's params are the header and
 * each entry's first inSize bytes (paramsSize their sum); the firmware
 * runs the entry on its params with the tail zeroed, and the reply
 * carries every entry's params whole, as without inSize (a bad inSize
 * fails the control as bad sizes do).
 */
#define NVL2080_CTRL_CMD_MULTI_CONTROL 0x2080f130
#define NVL2080_CTRL_MULTI_CONTROL_MAX 8

typedef struct NVL2080_CTRL_MULTI_CONTROL_ENTRY {
	NvU32 cmd; /* in: a NV2080_CTRL_CMD_* of the subdevice */
	NvU32 paramsSize; /* in: its params' bytes (unpadded) */
	NvU32 status; /* out: its NV_STATUS */
	NvU32 inSize; /* in: its params' bytes in the command; 0: all */
} NVL2080_CTRL_MULTI_CONTROL_ENTRY;

typedef struct NVL2080_CTRL_MULTI_CONTROL_PARAMS {
	NvU32 count;
	NvU32 pad;
	NVL2080_CTRL_MULTI_CONTROL_ENTRY entries[NVL2080_CTRL_MULTI_CONTROL_MAX];
	/* then the entries' params */
} NVL2080_CTRL_MULTI_CONTROL_PARAMS;

typedef struct NVL2080_CTRL_PERF_SET_PSTATE_LIMITS_PARAMS {
	NvU32 pstateFastest; /* Pn numbers, fastest <= slowest */
	NvU32 pstateSlowest;
} NVL2080_CTRL_PERF_SET_PSTATE_LIMITS_PARAMS;

/* notifier indices for NV2080_CTRL_CMD_EVENT_SET_NOTIFICATION / POST_EVENT */
#define NVL2080_NOTIFIERS_THERMAL_SLOWDOWN 0xf100
#define NVL2080_NOTIFIERS_POWER_CAP 0xf101

#endif /* NVL_FW_570_CTRL2080NVL_H */

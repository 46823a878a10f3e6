/* SPDX-License-Identifier: MIT */
/*
 * Sensor, perf, clock and power controls on the subdevice (NV20_SUBDEVICE_0)
 * of GSP-RM 535.54.03, in NVIDIA's shape, written from the reference
 * notes (../shared/reference/gsp-firmware.md section 3.2) and public control
 * numbers, not copied. Two groups:
 *
 *  - NVIDIA's controls with NVIDIA's numbers: the thermal instruction
 *    list (THERMAL_SYSTEM_EXECUTE_V2), perf utilisation samples, the
 *    current P-state and PERF_BOOST. The published 535 ctrl2080thermal.h
 *    body is empty (it appears around 575), so the instruction operand
 *    layouts below are our own in the listed opcodes' meaning.
 *  - NOUVELLE'S OWN controls, 0x2080f1xx (class 0x2080, category 0xf1,
 *    a range NVIDIA does not use; the model's ECHO lives at 0x2080f0xx):
 *    power readings and limit (ctrl2080pmgr.h is an empty stub in OpenRM,
 *    so power has no public ABI), clock readings and application clocks
 *    (the public ctrl2080clk.h controls' layouts vary per version and we
 *    could not verify one for 535; the clock DOMAIN ids are the public
 *    NV2080_CTRL_CLK_DOMAIN values), perf status and P-state limits, and
 *    two notifier indices for thermal-slowdown and power-cap crossings.
 *    A real GSP-RM answers these NV_ERR_NOT_SUPPORTED.
 *
 * 535.54.03 and 535.113.01 lay every one of these out alike (no drift
 * between the two releases in the controls nouvelle uses).
 */
#ifndef NVL_FW_535_54_CTRL2080_SENSORS_H
#define NVL_FW_535_54_CTRL2080_SENSORS_H

#include "nvtypes.h"

/* ---- thermal: the instruction list (NVIDIA's numbers) --------------- */
#define NV2080_CTRL_CMD_THERMAL_SYSTEM_EXECUTE_V2 0x20800513
#define NV2080_CTRL_CMD_THERMAL_SYSTEM_EXECUTE_V2_PHYSICAL 0x20808513

#define NV2080_CTRL_THERMAL_SYSTEM_API_VER 1
#define NV2080_CTRL_THERMAL_SYSTEM_API_REV 0
#define NV2080_CTRL_THERMAL_SYSTEM_INSTRUCTION_MAX_COUNT 32
#define NV2080_CTRL_THERMAL_SYSTEM_EXECUTE_FLAGS_DEFAULT 0
#define NV2080_CTRL_THERMAL_SYSTEM_EXECUTE_FLAGS_IGNORE_FAIL 1

/* opcodes */
#define NV2080_CTRL_THERMAL_SYSTEM_GET_INFO_TARGETS_AVAILABLE_OPCODE 0x0100
#define NV2080_CTRL_THERMAL_SYSTEM_GET_INFO_TARGET_TYPE_OPCODE 0x0101
#define NV2080_CTRL_THERMAL_SYSTEM_GET_INFO_SENSORS_AVAILABLE_OPCODE 0x0500
#define NV2080_CTRL_THERMAL_SYSTEM_GET_INFO_SENSOR_PROVIDER_OPCODE 0x0510
#define NV2080_CTRL_THERMAL_SYSTEM_GET_INFO_SENSOR_TARGET_OPCODE 0x0520
#define NV2080_CTRL_THERMAL_SYSTEM_GET_INFO_SENSOR_READING_RANGE_OPCODE 0x0540
#define NV2080_CTRL_THERMAL_SYSTEM_GET_STATUS_SENSOR_READING_OPCODE 0x1500

/* target types */
#define NV2080_CTRL_THERMAL_SYSTEM_TARGET_GPU 0x01
#define NV2080_CTRL_THERMAL_SYSTEM_TARGET_MEMORY 0x02
#define NV2080_CTRL_THERMAL_SYSTEM_TARGET_POWER_SUPPLY 0x04
#define NV2080_CTRL_THERMAL_SYSTEM_TARGET_BOARD 0x08

/* operands (ours; 8 dwords each at most) */
typedef struct NV2080_CTRL_THERMAL_SYSTEM_TARGETS_AVAILABLE_OPERANDS {
	NvU32 availableTargets; /* out */
} NV2080_CTRL_THERMAL_SYSTEM_TARGETS_AVAILABLE_OPERANDS;

typedef struct NV2080_CTRL_THERMAL_SYSTEM_TARGET_TYPE_OPERANDS {
	NvU32 targetIndex; /* in */
	NvU32 type; /* out: NV2080_CTRL_THERMAL_SYSTEM_TARGET_* */
} NV2080_CTRL_THERMAL_SYSTEM_TARGET_TYPE_OPERANDS;

typedef struct NV2080_CTRL_THERMAL_SYSTEM_SENSORS_AVAILABLE_OPERANDS {
	NvU32 availableSensors; /* out */
} NV2080_CTRL_THERMAL_SYSTEM_SENSORS_AVAILABLE_OPERANDS;

typedef struct NV2080_CTRL_THERMAL_SYSTEM_SENSOR_PROVIDER_OPERANDS {
	NvU32 sensorIndex; /* in */
	NvU32 providerIndex; /* out */
} NV2080_CTRL_THERMAL_SYSTEM_SENSOR_PROVIDER_OPERANDS;

typedef struct NV2080_CTRL_THERMAL_SYSTEM_SENSOR_TARGET_OPERANDS {
	NvU32 sensorIndex; /* in */
	NvU32 targetIndex; /* out */
} NV2080_CTRL_THERMAL_SYSTEM_SENSOR_TARGET_OPERANDS;

typedef struct NV2080_CTRL_THERMAL_SYSTEM_SENSOR_READING_RANGE_OPERANDS {
	NvU32 sensorIndex; /* in */
	NvS32 minimum; /* out, degC */
	NvS32 maximum; /* out, degC */
} NV2080_CTRL_THERMAL_SYSTEM_SENSOR_READING_RANGE_OPERANDS;

typedef struct NV2080_CTRL_THERMAL_SYSTEM_GET_STATUS_SENSOR_READING_OPERANDS {
	NvU32 sensorIndex; /* in */
	NvS32 value; /* out, degC */
} NV2080_CTRL_THERMAL_SYSTEM_GET_STATUS_SENSOR_READING_OPERANDS;

typedef union NV2080_CTRL_THERMAL_SYSTEM_INSTRUCTION_OPERANDS {
	NV2080_CTRL_THERMAL_SYSTEM_TARGETS_AVAILABLE_OPERANDS
		getInfoTargetsAvailable;
	NV2080_CTRL_THERMAL_SYSTEM_TARGET_TYPE_OPERANDS getInfoTargetType;
	NV2080_CTRL_THERMAL_SYSTEM_SENSORS_AVAILABLE_OPERANDS
		getInfoSensorsAvailable;
	NV2080_CTRL_THERMAL_SYSTEM_SENSOR_PROVIDER_OPERANDS
		getInfoSensorProvider;
	NV2080_CTRL_THERMAL_SYSTEM_SENSOR_TARGET_OPERANDS getInfoSensorTarget;
	NV2080_CTRL_THERMAL_SYSTEM_SENSOR_READING_RANGE_OPERANDS
		getInfoSensorReadingRange;
	NV2080_CTRL_THERMAL_SYSTEM_GET_STATUS_SENSOR_READING_OPERANDS
		getStatusSensorReading;
	NvU32 space[8];
} NV2080_CTRL_THERMAL_SYSTEM_INSTRUCTION_OPERANDS;

typedef struct NV2080_CTRL_THERMAL_SYSTEM_INSTRUCTION {
	NvU32 result; /* out: NV_STATUS of this instruction */
	NvBool executed; /* out */
	NvU32 opcode;
	NV2080_CTRL_THERMAL_SYSTEM_INSTRUCTION_OPERANDS operands;
} NV2080_CTRL_THERMAL_SYSTEM_INSTRUCTION;

typedef struct NV2080_CTRL_THERMAL_SYSTEM_EXECUTE_V2_PARAMS {
	NvU32 clientAPIVersion; /* NV2080_CTRL_THERMAL_SYSTEM_API_VER */
	NvU32 clientAPIRevision; /* NV2080_CTRL_THERMAL_SYSTEM_API_REV */
	NvU32 clientInstructionSizeOf; /* sizeof(INSTRUCTION) */
	NvU32 executeFlags; /* ..._EXECUTE_FLAGS_* */
	NvU32 successfulInstructions; /* out */
	NvU32 instructionListSize;
	NV2080_CTRL_THERMAL_SYSTEM_INSTRUCTION
	instructionList[NV2080_CTRL_THERMAL_SYSTEM_INSTRUCTION_MAX_COUNT];
} NV2080_CTRL_THERMAL_SYSTEM_EXECUTE_V2_PARAMS;

/* ---- perf (NVIDIA's numbers) ----------------------------------------- */
#define NV2080_CTRL_CMD_PERF_BOOST 0x2080200a
#define NV2080_CTRL_CMD_PERF_GET_CURRENT_PSTATE 0x20802068
#define NV2080_CTRL_CMD_PERF_GET_GPUMON_PERFMON_UTIL_SAMPLES_V2 0x20802096

/* PERF_BOOST: flags CMD field 1:0; duration in seconds */
#define NV2080_CTRL_PERF_BOOST_FLAGS_CMD_CLEAR 0
#define NV2080_CTRL_PERF_BOOST_FLAGS_CMD_BOOST_1LEVEL 1
#define NV2080_CTRL_PERF_BOOST_FLAGS_CMD_BOOST_TO_MAX 2
#define NV2080_CTRL_PERF_BOOST_FLAGS_CMD_MASK 3
/* the longest finite duration, seconds (one hour; ctrl2080perf.h) */
#define NV2080_CTRL_PERF_BOOST_DURATION_MAX 3600
#define NV2080_CTRL_PERF_BOOST_DURATION_INFINITE 0xffffffff

typedef struct NV2080_CTRL_PERF_BOOST_PARAMS {
	NvU32 flags;
	NvU32 duration;
} NV2080_CTRL_PERF_BOOST_PARAMS;

/* P-states as bits: Pn = 1 << n */
#define NV2080_CTRL_PERF_PSTATES_UNDEFINED 0
#define NV2080_CTRL_PERF_PSTATES_P(n) (1u << (n))

typedef struct NV2080_CTRL_PERF_GET_CURRENT_PSTATE_PARAMS {
	NvU32 currPstate; /* out: NV2080_CTRL_PERF_PSTATES_P(n) */
} NV2080_CTRL_PERF_GET_CURRENT_PSTATE_PARAMS;

/* utilisation samples: the firmware's own ring, oldest first */
#define NV2080_CTRL_PERF_GPUMON_SAMPLE_COUNT_PERFMON_UTIL 72
#define NV2080_CTRL_GPUMON_SAMPLE_TYPE_PERFMON_UTIL 1

typedef struct NV2080_CTRL_PERF_GPUMON_ENGINE_UTIL_SAMPLE {
	NvU32 util; /* busy share in 1/100 percent (0..10000) */
	NvU32 procId;
	NvU32 subProcessID;
} NV2080_CTRL_PERF_GPUMON_ENGINE_UTIL_SAMPLE;

typedef struct NV2080_CTRL_GPUMON_SAMPLE {
	NV_DECLARE_ALIGNED(NvU64 timeStamp, 8); /* ns, the GPU's clock */
} NV2080_CTRL_GPUMON_SAMPLE;

typedef struct NV2080_CTRL_PERF_GPUMON_PERFMON_UTIL_SAMPLE {
	NV_DECLARE_ALIGNED(NV2080_CTRL_GPUMON_SAMPLE base, 8);
	NV2080_CTRL_PERF_GPUMON_ENGINE_UTIL_SAMPLE fb;
	NV2080_CTRL_PERF_GPUMON_ENGINE_UTIL_SAMPLE gr;
	NV2080_CTRL_PERF_GPUMON_ENGINE_UTIL_SAMPLE nvenc;
	NV2080_CTRL_PERF_GPUMON_ENGINE_UTIL_SAMPLE nvdec;
} NV2080_CTRL_PERF_GPUMON_PERFMON_UTIL_SAMPLE;

typedef struct NV2080_CTRL_PERF_GET_GPUMON_PERFMON_UTIL_SAMPLES_V2_PARAMS {
	NvU8 type; /* NV2080_CTRL_GPUMON_SAMPLE_TYPE_PERFMON_UTIL */
	NvU32 bufSize; /* sizeof(samples) */
	NvU32 count; /* out: valid samples */
	NvU32 tracker; /* out: index of the newest */
	NV_DECLARE_ALIGNED(
		NV2080_CTRL_PERF_GPUMON_PERFMON_UTIL_SAMPLE samples
			[NV2080_CTRL_PERF_GPUMON_SAMPLE_COUNT_PERFMON_UTIL],
		8);
} NV2080_CTRL_PERF_GET_GPUMON_PERFMON_UTIL_SAMPLES_V2_PARAMS;

/* ---- clock domains (public NV2080_CTRL_CLK_DOMAIN values) ------------ */
#define NV2080_CTRL_CLK_DOMAIN_GPCCLK 0x00000001
#define NV2080_CTRL_CLK_DOMAIN_MCLK 0x00000010
#define NV2080_CTRL_CLK_DOMAIN_NVDCLK 0x00100000 /* video */

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

#endif /* NVL_FW_535_54_CTRL2080_SENSORS_H */

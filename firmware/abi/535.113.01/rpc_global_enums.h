/* SPDX-License-Identifier: MIT */
/*
 * RPC function and event numbers of GSP-RM 535.113.01, as X-macros:
 * X(name, value). Functions go CPU -> GSP (and come back as replies with
 * the same number); events (>= 0x1000) go GSP -> CPU unasked. The subset
 * nouvelle speaks, with the firmware's numbering.
 */
#ifndef NVL_FW_535_RPC_GLOBAL_ENUMS_H
#define NVL_FW_535_RPC_GLOBAL_ENUMS_H

#define NV_VGPU_MSG_FUNCTIONS(X)                             \
	X(NV_VGPU_MSG_FUNCTION_NOP, 0)                       \
	X(NV_VGPU_MSG_FUNCTION_SET_GUEST_SYSTEM_INFO, 1)     \
	X(NV_VGPU_MSG_FUNCTION_ALLOC_ROOT, 2)                \
	X(NV_VGPU_MSG_FUNCTION_ALLOC_DEVICE, 3)              \
	X(NV_VGPU_MSG_FUNCTION_ALLOC_MEMORY, 4)              \
	X(NV_VGPU_MSG_FUNCTION_ALLOC_CHANNEL_DMA, 6)         \
	X(NV_VGPU_MSG_FUNCTION_ALLOC_OBJECT, 9)              \
	X(NV_VGPU_MSG_FUNCTION_FREE, 10)                     \
	X(NV_VGPU_MSG_FUNCTION_LOG, 11)                      \
	X(NV_VGPU_MSG_FUNCTION_ALLOC_SUBDEVICE, 19)          \
	X(NV_VGPU_MSG_FUNCTION_DUP_OBJECT, 21)               \
	X(NV_VGPU_MSG_FUNCTION_ALLOC_EVENT, 23)              \
	X(NV_VGPU_MSG_FUNCTION_UNLOADING_GUEST_DRIVER, 47)   \
	X(NV_VGPU_MSG_FUNCTION_GET_STATIC_INFO, 51)          \
	X(NV_VGPU_MSG_FUNCTION_GET_GSP_STATIC_INFO, 65)      \
	X(NV_VGPU_MSG_FUNCTION_CONTINUATION_RECORD, 71)      \
	X(NV_VGPU_MSG_FUNCTION_GSP_SET_SYSTEM_INFO, 72)      \
	X(NV_VGPU_MSG_FUNCTION_SET_REGISTRY, 73)             \
	X(NV_VGPU_MSG_FUNCTION_GSP_INIT_POST_OBJGPU, 74)     \
	X(NV_VGPU_MSG_FUNCTION_GSP_RM_CONTROL, 76)           \
	X(NV_VGPU_MSG_FUNCTION_GSP_RM_ALLOC, 103)            \
	X(NV_VGPU_MSG_FUNCTION_NUM_FUNCTIONS, 203)

#define NV_VGPU_MSG_EVENTS(X)                                          \
	X(NV_VGPU_MSG_EVENT_FIRST_EVENT, 0x1000)                       \
	X(NV_VGPU_MSG_EVENT_GSP_INIT_DONE, 0x1001)                     \
	X(NV_VGPU_MSG_EVENT_GSP_RUN_CPU_SEQUENCER, 0x1002)             \
	X(NV_VGPU_MSG_EVENT_POST_EVENT, 0x1003)                        \
	X(NV_VGPU_MSG_EVENT_RC_TRIGGERED, 0x1004)                      \
	X(NV_VGPU_MSG_EVENT_MMU_FAULT_QUEUED, 0x1005)                  \
	X(NV_VGPU_MSG_EVENT_OS_ERROR_LOG, 0x1006)                      \
	X(NV_VGPU_MSG_EVENT_RG_LINE_INTR, 0x1007)                      \
	X(NV_VGPU_MSG_EVENT_GPUACCT_PERFMON_UTIL_SAMPLES, 0x1008)      \
	X(NV_VGPU_MSG_EVENT_UCODE_LIBOS_PRINT, 0x100c)                 \
	X(NV_VGPU_MSG_EVENT_PERF_GPU_BOOST_SYNC_LIMITS_CALLBACK, 0x100e) \
	X(NV_VGPU_MSG_EVENT_PERF_BRIDGELESS_INFO_UPDATE, 0x100f)       \
	X(NV_VGPU_MSG_EVENT_GSP_SEND_USER_SHARED_DATA, 0x101b)         \
	X(NV_VGPU_MSG_EVENT_GSP_LOCKDOWN_NOTICE, 0x101d)

#define NV_VGPU_MSG_DEFINE_(name, value) name = value,
enum nv_vgpu_msg_function_535 { NV_VGPU_MSG_FUNCTIONS(NV_VGPU_MSG_DEFINE_) };
enum nv_vgpu_msg_event_535 { NV_VGPU_MSG_EVENTS(NV_VGPU_MSG_DEFINE_) };
#undef NV_VGPU_MSG_DEFINE_

#endif

/* SPDX-License-Identifier: MIT */
/*
 * RM arguments (the RMARGS region) of GSP-RM 570.144: where the queues
 * are and how to resume.
 */
#ifndef NVL_FW_570_GSP_INIT_ARGS_H
#define NVL_FW_570_GSP_INIT_ARGS_H

#include "nvtypes.h"

typedef NvU64 NvLength;

typedef struct {
	RmPhysAddr sharedMemPhysAddr; /* the first PTE page */
	NvU32 pageTableEntryCount;
	NvLength cmdQueueOffset;  /* from sharedMemPhysAddr */
	NvLength statQueueOffset; /* from sharedMemPhysAddr */
} MESSAGE_QUEUE_INIT_ARGUMENTS;

typedef struct {
	NvU32 oldLevel;
	NvU32 flags;
	NvBool bInPMTransition;
} GSP_SR_INIT_ARGUMENTS;

typedef struct {
	MESSAGE_QUEUE_INIT_ARGUMENTS messageQueueInitArguments;
	GSP_SR_INIT_ARGUMENTS srInitArguments;
	NvU32 gpuInstance;
	NvBool bDmemStack; /* new in 570: RM stack in DMEM */
	struct {
		NvU64 pa;
		NvU64 size;
	} profilerArgs;
} GSP_ARGUMENTS_CACHED;

#endif

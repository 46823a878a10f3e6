/* SPDX-License-Identifier: MIT */
/* abigen drift set, version 1: message queue element header (8 bytes). */
#ifndef DRIFT_QUEUE_H
#define DRIFT_QUEUE_H
#include "nvtypes.h"

typedef struct {
	NvU32 checkSum;
	NvU32 seqNum;
} GSP_MSG_QUEUE_ELEMENT;

#endif

/* SPDX-License-Identifier: MIT */
/*
 * abigen drift set, version 2: the element header grew to 48 bytes
 * (authentication tag and AAD buffers in front, element count behind).
 */
#ifndef DRIFT_QUEUE_H
#define DRIFT_QUEUE_H
#include "nvtypes.h"

typedef struct {
	NvU8 authTagBuffer[16];
	NvU8 aadBuffer[16];
	NvU32 checkSum;
	NvU32 seqNum;
	NvU32 elemCount;
	NvU32 padding;
} GSP_MSG_QUEUE_ELEMENT;

#endif

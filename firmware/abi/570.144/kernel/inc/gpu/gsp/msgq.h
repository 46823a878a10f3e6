/* SPDX-License-Identifier: MIT */
/*
 * GSP-RM 570.144 message queues: the queue headers each side owns, the
 * 48-byte element header and the 32-byte RPC header.
 *
 *   shared region:  [PTE pages][cmdq: hdr page, 63 elements][statq: same]
 *   element:        GSP_MSG_QUEUE_ELEMENT (+0x00), rpc header (+0x30),
 *                   payload (+0x50); 1..16 pages of 4 KiB
 */
#ifndef NVL_FW_570_MSGQ_H
#define NVL_FW_570_MSGQ_H

#include "nvtypes.h"

/* msgq.h: the header at the start of each queue's first page */
typedef struct msgqTxHeader {
	NvU32 version;  /* 0 */
	NvU32 size;     /* bytes of the queue, header page included */
	NvU32 msgSize;  /* bytes of one element slot (0x1000) */
	NvU32 msgCount; /* slots: (size - entryOff) / msgSize */
	NvU32 writePtr; /* slot index the writer fills next */
	NvU32 flags;    /* bit 0: swapped RX ownership */
	NvU32 rxHdrOff; /* offset of msgqRxHeader in this page */
	NvU32 entryOff; /* offset of slot 0 (0x1000) */
} msgqTxHeader;

typedef struct msgqRxHeader {
	NvU32 readPtr; /* slot index of the OTHER queue the owner reads next */
} msgqRxHeader;

#define MSGQ_VERSION 0
#define MSGQ_FLAGS_SWAP_RX 0x1

/* rpc_message_header_v03_00: first bytes of every RPC */
typedef struct rpc_message_header_v03_00 {
	NvU32 header_version;     /* 0x03000000 */
	NvU32 signature;          /* NV_VGPU_MSG_SIGNATURE_VALID */
	NvU32 length;             /* header + payload bytes */
	NvU32 function;           /* NV_VGPU_MSG_FUNCTION_* / _EVENT_* */
	NvU32 rpc_result;         /* NV_STATUS, 0xffffffff while pending */
	NvU32 rpc_result_private; /* NV_STATUS */
	NvU32 sequence;           /* RPC-level sequence */
	union {
		NvU32 spare;
		NvU32 cpuRmGfid;
	} u;
} rpc_message_header_v03_00;

#define NV_VGPU_MSG_HEADER_VERSION_MAJOR_TOT 0x00000003
#define NV_VGPU_MSG_HEADER_VERSION_MINOR_TOT 0x00000000
#define NV_VGPU_MSG_HEADER_VERSION 0x03000000
#define NV_VGPU_MSG_SIGNATURE_VALID 0x43505256
#define NV_VGPU_MSG_RESULT_RPC_PENDING 0xffffffff

/* message_queue_priv.h: one element as it sits in a queue slot */
typedef struct GSP_MSG_QUEUE_ELEMENT {
	NvU8 authTagBuffer[16]; /* confidential compute only: zero */
	NvU8 aadBuffer[16];     /* confidential compute only: zero */
	NvU32 checkSum;         /* XOR of the page-padded element folds to 0 */
	NvU32 seqNum;           /* per direction, +1 per message */
	NvU32 elemCount;        /* 4 KiB pages this message spans */
	NvU32 padding;
	NV_DECLARE_ALIGNED(rpc_message_header_v03_00 rpc, 8);
} GSP_MSG_QUEUE_ELEMENT;

#define GSP_MSG_QUEUE_ELEMENT_HDR_SIZE 0x30
#define GSP_MSG_QUEUE_ELEMENT_SIZE_MIN 0x1000
#define GSP_MSG_QUEUE_ELEMENT_SIZE_MAX 0x10000 /* 16 pages */
#define GSP_MSG_QUEUE_RPC_PAYLOAD_MAX                               \
	(GSP_MSG_QUEUE_ELEMENT_SIZE_MAX - GSP_MSG_QUEUE_ELEMENT_HDR_SIZE - \
	 sizeof(rpc_message_header_v03_00))

/* the queue geometry every driver uses with this firmware */
#define GSP_QUEUE_SIZE 0x40000
#define GSP_QUEUE_ENTRY_OFF 0x1000
#define GSP_QUEUE_MSG_SIZE 0x1000
#define GSP_QUEUE_MSG_COUNT 63
#define GSP_PAGE_SIZE 0x1000

#endif

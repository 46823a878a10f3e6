/* SPDX-License-Identifier: MIT */
/*
 * A stand-in for the firmware's side of the status queue, for tests and
 * the fuzz target: it writes elements into a driver-owned region exactly
 * as the GSP lays them out (or, on request, wrongly).
 */
#ifndef NVL_TESTS_GSP_FAKEGSP_H
#define NVL_TESTS_GSP_FAKEGSP_H

#include <string.h>

#include "firmware/abi/535.113.01/gsp.h"
#include "gsp/msgq.h"

static inline msgqTxHeader *fake_stat_tx(struct nvl_gsp_msgq *q)
{
	return (msgqTxHeader *)(q->mem + q->statq_off);
}

static inline void fake_init(struct nvl_gsp_msgq *q)
{
	*fake_stat_tx(q) = (msgqTxHeader){.size = GSP_QUEUE_SIZE,
					  .msgSize = GSP_QUEUE_MSG_SIZE,
					  .msgCount = GSP_QUEUE_MSG_COUNT,
					  .flags = MSGQ_FLAGS_SWAP_RX,
					  .rxHdrOff = 32,
					  .entryOff = GSP_QUEUE_ENTRY_OFF};
}

struct fake_elem {
	uint32_t function, seq, sequence, result;
	const void *payload;
	size_t len;
	int pages; /* 0: the right count */
	int32_t length_adj; /* added to rpc.length after checksumming */
	bool bad_sum, bad_sig;
};

static inline uint32_t fake_checksum(const uint8_t *p, size_t len)
{
	uint64_t x = 0;

	for (size_t i = 0; i < len; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		x ^= w;
	}
	return (uint32_t)(x >> 32) ^ (uint32_t)x;
}

/* write one element at the GSP's write pointer and publish it */
static inline void fake_put(struct nvl_gsp_msgq *q, const struct fake_elem *f)
{
	static uint8_t buf[0x10000];
	GSP_MSG_QUEUE_ELEMENT *e = (void *)buf;
	msgqTxHeader *h = fake_stat_tx(q);
	uint32_t pages = (uint32_t)((0x50 + f->len + 4095) / 4096);
	uint32_t w = h->writePtr;

	memset(buf, 0, sizeof(buf));
	e->seqNum = f->seq;
	e->elemCount = f->pages ? (uint32_t)f->pages : pages;
	e->rpc.header_version = NV_VGPU_MSG_HEADER_VERSION;
	e->rpc.signature =
		f->bad_sig ? 0x56525043 : NV_VGPU_MSG_SIGNATURE_VALID;
	e->rpc.length = (uint32_t)(32 + f->len);
	e->rpc.function = f->function;
	e->rpc.rpc_result = f->result;
	e->rpc.sequence = f->sequence;
	memcpy(buf + 0x50, f->payload, f->len);
	e->rpc.length += (uint32_t)f->length_adj;
	e->checkSum = fake_checksum(buf, (size_t)pages * 4096);
	if (f->bad_sum)
		e->checkSum ^= 1;
	for (uint32_t i = 0; i < pages; i++) {
		uint32_t s = (w + i) % GSP_QUEUE_MSG_COUNT;

		memcpy(q->mem + q->statq_off + GSP_QUEUE_ENTRY_OFF +
			       (size_t)s * 4096,
		       buf + (size_t)i * 4096, 4096);
	}
	__atomic_store_n(&h->writePtr, (w + pages) % GSP_QUEUE_MSG_COUNT,
			 __ATOMIC_RELEASE);
}

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The CPU side of the GSP message queues: the shared region, element
 * framing (header, checksum, sequence numbers), continuation records.
 * Not thread-safe by itself: the RPC layer (rpc.c) serialises senders
 * under its tx lock and receivers under its rx lock.
 */
#ifndef NVL_GSP_MSGQ_H
#define NVL_GSP_MSGQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hw/hwif.h"

struct gspabi_version;

/** Largest RPC payload (after the 32-byte RPC header) in one element
 * with the 48-byte element header of 535.113.01 and later; a version's
 * own figure is nvl_gsp_msgq_payload_max(). */
#define NVL_GSP_ELEM_PAYLOAD_MAX (0x10000 - 0x30 - 0x20)
/*
 * The queue geometry the driver allocates (4 KiB pages; each queue a
 * header page and 63 element slots; elements of at most 16 pages).
 * nvl_gsp_msgq_set_abi() refuses a firmware version whose layer gives
 * other figures.
 */
#define NVL_GSP_PAGE 0x1000u
#define NVL_GSP_QUEUE_SIZE 0x40000u
#define NVL_GSP_QUEUE_ENTRY_OFF 0x1000u
#define NVL_GSP_QUEUE_MSG_SIZE 0x1000u
#define NVL_GSP_QUEUE_MSG_COUNT 63u
#define NVL_GSP_ELEM_SIZE_MAX 0x10000u
/** Largest message the driver sends or reassembles (payload bytes). */
#define NVL_GSP_MSG_MAX (1u << 21)

/** struct nvl_gsp_msgq_stats - what the receive path rejected. */
struct nvl_gsp_msgq_stats {
	/** @bad_header: queue header or element header out of bounds */
	uint64_t bad_header;
	/** @bad_checksum: element checksum did not fold to 0 */
	uint64_t bad_checksum;
	/** @bad_seq: element seqNum not the expected one (gap) */
	uint64_t bad_seq;
	/** @duplicate: element seqNum repeated (discarded) */
	uint64_t duplicate;
	/** @bad_rpc: RPC header malformed (signature, version, length) */
	uint64_t bad_rpc;
	/** @stray_continuation: continuation with no message to extend */
	uint64_t stray_continuation;
	/** @sent: elements sent */
	uint64_t sent;
	/** @received: good elements received */
	uint64_t received;
};

/** struct nvl_gsp_msgq - the shared region and both directions' state. */
struct nvl_gsp_msgq {
	struct nvl_hw *hw;
	uint8_t *mem; /* whole region, page-aligned */
	size_t size; /* bytes */
	uint64_t dma; /* DMA address of page 0 (the first PTE page) */
	unsigned pte_pages;
	size_t cmdq_off, statq_off;
	uint32_t tx_seq; /* seqNum of the next element we send */
	/* per cmdq slot: bytes from its start that may be non-zero (only the
	 * CPU writes the cmdq), so a short element zeroes only the padding
	 * an earlier, longer one left (msgq.c: send_elem()) */
	uint16_t cmd_dirty[NVL_GSP_QUEUE_MSG_COUNT];
	uint32_t rx_seq; /* seqNum we expect next */
	uint8_t *tx_buf; /* 64 KiB staging for one element */
	uint8_t *rx_buf; /* 64 KiB copy of the element being read */
	/* where the next nvl_gsp_msgq_recv() may put a continuation's
	 * payload instead of rx_buf (the reply being reassembled; NULL:
	 * rx_buf), and its room; each recv takes and clears them */
	uint8_t *rx_dst;
	size_t rx_dst_cap;
	struct nvl_gsp_msgq_stats stats;
	/* the element framing of the firmware's version (msgq_set_abi) */
	const struct gspabi_version *abi;
	uint32_t elem_hdr; /* element header bytes before the RPC header */
	uint32_t payload_max; /* RPC payload bytes per element */
	uint64_t elem_fields; /* GSPABI_MSG_ELEM_HAS_* the version has */
	bool csum_padded; /* the checksum covers the page padding */
	/* the queue and RPC headers of the firmware's version */
	size_t tx_hdr; /* queue tx header bytes (the rx header follows) */
	size_t wptr_off, rptr_off; /* writePtr, readPtr in their headers */
	size_t entry_off_off; /* entryOff in the tx header */
	size_t csum_off; /* checkSum in the element header */
	uint32_t rpc_version, rpc_signature, rpc_pending;
	uint32_t fn_continuation; /* CONTINUATION_RECORD's wire number */
};

/** struct nvl_gsp_rpc_hdr - a received RPC header, host copy. */
struct nvl_gsp_msg {
	/** @function: NV_VGPU_MSG_FUNCTION_* or _EVENT_* */
	uint32_t function;
	/** @result: rpc_result (NV_STATUS) */
	uint32_t result;
	/** @sequence: RPC-level sequence */
	uint32_t sequence;
	/** @len: payload bytes in @data */
	size_t len;
	/** @data: the payload (the element's rx_buf, valid until next read) */
	const uint8_t *data;
	/** @full: the element was full: continuation records may follow */
	bool full;
};

/**
 * nvl_gsp_msgq_init() - allocate and DMA-map the shared region, fill the
 * PTE pages and the command queue's header.
 * Return: 0, -ENOMEM, or the dma_map error.
 */
int nvl_gsp_msgq_init(struct nvl_gsp_msgq *q, struct nvl_hw *hw);

/**
 * nvl_gsp_msgq_set_abi() - frame elements as firmware version @v does:
 * its element header (8 bytes with no element count in 535.54.03, 48
 * from 535.113.01), payload per element and checksum coverage, all from
 * the generated layer and the version's ops. Called at boot, before the
 * first element; the queues start with the default version's framing.
 * Return: 0, or -EPROTO when the layer lacks what the framing needs.
 */
int nvl_gsp_msgq_set_abi(struct nvl_gsp_msgq *q,
			 const struct gspabi_version *v);

/** nvl_gsp_msgq_payload_max() - RPC payload bytes one element carries. */
static inline size_t nvl_gsp_msgq_payload_max(const struct nvl_gsp_msgq *q)
{
	return q->payload_max;
}

/**
 * nvl_gsp_msgq_reset() - empty both queues and restart sequence numbers,
 * before a (re)boot; the GSP must not be running.
 */
void nvl_gsp_msgq_reset(struct nvl_gsp_msgq *q);

/** nvl_gsp_msgq_fini() - unmap and free the region. */
void nvl_gsp_msgq_fini(struct nvl_gsp_msgq *q);

/**
 * nvl_gsp_msgq_send() - send one RPC: split into a first element and as
 * many CONTINUATION_RECORD elements as needed, each published with a
 * release barrier; rings the doorbell after each element.
 * @deadline: absolute monotonic ns to wait for queue space.
 * Return: 0, -EINVAL (too large), -ETIMEDOUT (the GSP did not free space).
 */
int nvl_gsp_msgq_send(struct nvl_gsp_msgq *q, uint32_t function,
		      uint32_t sequence, const void *payload, size_t len,
		      int64_t deadline);

/**
 * nvl_gsp_msgq_send_quiet() - nvl_gsp_msgq_send() without the doorbell
 * after the last element: the caller rings it (nvl_gsp_msgq_ring()) once
 * it has dropped the lock it sends under, so other senders do not wait
 * behind the GSP's wake-up. Same arguments and return.
 */
int nvl_gsp_msgq_send_quiet(struct nvl_gsp_msgq *q, uint32_t function,
			    uint32_t sequence, const void *payload, size_t len,
			    int64_t deadline);

/**
 * nvl_gsp_msgq_ring() - ring the GSP's doorbell: it reads every element
 * published so far (one ring covers several).
 */
void nvl_gsp_msgq_ring(struct nvl_gsp_msgq *q);

/**
 * nvl_gsp_msgq_recv() - read and validate the next element of the status
 * queue (a copy; the shared page is never parsed in place) and advance the
 * read pointer past it, header included.
 * Return: 1 with @msg filled, 0 when the queue is empty, -EBADMSG when an
 * element was rejected (counted in stats; the pointer moved past it).
 */
int nvl_gsp_msgq_recv(struct nvl_gsp_msgq *q, struct nvl_gsp_msg *msg);

/** nvl_gsp_msgq_pending() - elements the GSP wrote that we have not read. */
unsigned nvl_gsp_msgq_pending(struct nvl_gsp_msgq *q);

/**
 * nvl_gsp_msgq_stat_peek() - the GSP's status queue write pointer as it
 * is now (one acquire load, no checks): a waiter polls it for a change
 * without taking the receive lock; nvl_gsp_msgq_recv() validates it.
 */
uint32_t nvl_gsp_msgq_stat_peek(struct nvl_gsp_msgq *q);

/** nvl_gsp_msgq_stat_rptr() - our read pointer into the status queue. */
uint32_t nvl_gsp_msgq_stat_rptr(struct nvl_gsp_msgq *q);

/** nvl_gsp_msgq_cmd_consumed() - the GSP's read pointer into the cmdq. */
uint32_t nvl_gsp_msgq_cmd_rptr(struct nvl_gsp_msgq *q);

/** nvl_gsp_msgq_cmd_wptr() - our write pointer into the cmdq. */
uint32_t nvl_gsp_msgq_cmd_wptr(struct nvl_gsp_msgq *q);

/** nvl_gsp_msgq_checksum() - fold of the XOR of @len bytes (8-aligned). */
uint32_t nvl_gsp_msgq_checksum(const void *buf, size_t len);

/** nvl_gsp_queue_free() - free slots with pointers @rptr/@wptr of @cnt. */
static inline uint32_t nvl_gsp_queue_free(uint32_t rptr, uint32_t wptr,
					  uint32_t cnt)
{
	return (rptr + cnt - wptr - 1) % cnt;
}

#endif /* NVL_GSP_MSGQ_H */

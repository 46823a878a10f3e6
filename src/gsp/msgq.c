// SPDX-License-Identifier: MIT
/*
 * DOC: GSP message queues, CPU side
 *
 * One DMA region holds, in order, the PTE pages (one u64 DMA address per
 * 4 KiB page of the whole region), the command queue and the status
 * queue, each a header page and 63 element slots of 4 KiB. Ownership is
 * "swapped RX": the cmdq header page holds our write pointer into the
 * cmdq and our read pointer into the statq; the statq page holds the
 * GSP's. Pointers are slot indices; one slot always stays empty.
 *
 * A message is one element of 1..16 slots (element header, 32-byte RPC
 * header, payload) and, when the payload is larger than an element can
 * carry, CONTINUATION_RECORD elements with the rest. Every element has its
 * own checksum (XOR of the element, folded to 32 bits) and the next seqNum
 * of its direction. The element header is the firmware version's, framed
 * through the generated layer (nvl_gsp_msgq_set_abi): 48 bytes with an
 * element count and a checksum over the page padding from 535.113.01;
 * 8 bytes in 535.54.03, where the RPC length gives the size and the
 * checksum stops at the element's end.
 *
 * The receive side never trusts the GSP: each element is copied out of
 * the shared pages first, then every field of the copy is checked against
 * the queue geometry before anything uses it, and the read pointer always
 * moves by the element's whole size, header included (the CVE-2024-58019
 * bug advanced it by the RPC length alone).
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/compiler.h"
#include "base/log.h"
#include "base/time.h"
#include "base/xor64.h"
#include "gsp/abi_ops.h"
#include "gsp/abi_ver.h"
#include "gsp/msgq.h"
#include "gspabi.h"
#include "hw/falcon.h"

#define PAGE NVL_GSP_PAGE
#define CNT NVL_GSP_QUEUE_MSG_COUNT
#define RPC_HDR 32u /* rpc_message_header_v03_00, in every version */
#define ELEM_MAX NVL_GSP_ELEM_SIZE_MAX
#define TX_HDR_MAX 256u /* queue tx + rx headers share the first page */

/*
 * The queue header pages, through the version's layer: the pointers the
 * two sides move are single u32s at the offsets the layer gives
 * (nvl_gsp_msgq_set_abi() checked them), read and written atomically.
 */
static uint32_t *cmd_wptr(struct nvl_gsp_msgq *q)
{
	return (uint32_t *)(q->mem + q->cmdq_off + q->wptr_off);
}

static uint32_t *cmd_rptr(struct nvl_gsp_msgq *q)
{
	return (uint32_t *)(q->mem + q->cmdq_off + q->tx_hdr + q->rptr_off);
}

static uint32_t *stat_wptr_p(struct nvl_gsp_msgq *q)
{
	return (uint32_t *)(q->mem + q->statq_off + q->wptr_off);
}

static uint32_t *stat_entry_off(struct nvl_gsp_msgq *q)
{
	return (uint32_t *)(q->mem + q->statq_off + q->entry_off_off);
}

static uint32_t *stat_rptr(struct nvl_gsp_msgq *q)
{
	return (uint32_t *)(q->mem + q->statq_off + q->tx_hdr + q->rptr_off);
}

static uint8_t *slot(struct nvl_gsp_msgq *q, size_t qoff, uint32_t i)
{
	return q->mem + qoff + NVL_GSP_QUEUE_ENTRY_OFF + (size_t)i * PAGE;
}

uint32_t nvl_gsp_msgq_checksum(const void *buf, size_t len)
{
	uint64_t x = nvl_copy_xor64(NULL, buf, len);

	return (uint32_t)(x >> 32) ^ (uint32_t)x;
}

static uint32_t fold(uint64_t x)
{
	return (uint32_t)(x >> 32) ^ (uint32_t)x;
}

/* our queue's header page, packed by the version's layer (set_abi
 * checked that the layer has every field: the packs cannot fail) */
static void cmdq_header_init(struct nvl_gsp_msgq *q)
{
	const struct gspabi_version *v = q->abi;
	int64_t version = 0, swap_rx = 0;
	struct gspabi_msgq_tx tx;
	struct gspabi_msgq_rx rx = {
		.present = GSPABI_MSGQ_RX_HAS_READPTR,
		.readPtr = 0,
	};

	gspabi_const_get(v, GSPABI_C_MSGQ_VERSION, &version);
	gspabi_const_get(v, GSPABI_C_MSGQ_FLAGS_SWAP_RX, &swap_rx);
	tx = (struct gspabi_msgq_tx){
		.present = v->structs[GSPABI_S_MSGQ_TX].fields,
		.version = (uint32_t)version,
		.size = NVL_GSP_QUEUE_SIZE,
		.msgSize = NVL_GSP_QUEUE_MSG_SIZE,
		.msgCount = CNT,
		.writePtr = 0,
		.flags = (uint32_t)swap_rx,
		.rxHdrOff = (uint32_t)q->tx_hdr,
		.entryOff = NVL_GSP_QUEUE_ENTRY_OFF,
	};
	gspabi_pack(v, GSPABI_S_MSGQ_TX, &tx, q->mem + q->cmdq_off, q->tx_hdr);
	gspabi_pack(v, GSPABI_S_MSGQ_RX, &rx, q->mem + q->cmdq_off + q->tx_hdr,
		    PAGE - q->tx_hdr);
}

int nvl_gsp_msgq_init(struct nvl_gsp_msgq *q, struct nvl_hw *hw)
{
	size_t qpages = 2 * (NVL_GSP_QUEUE_SIZE / PAGE);
	unsigned ptes;
	int ret;

	memset(q, 0, sizeof(*q));
	q->hw = hw;
	/* PTE pages cover themselves too */
	q->pte_pages = 1;
	while ((q->pte_pages + qpages) > q->pte_pages * (PAGE / 8))
		q->pte_pages++;
	ptes = q->pte_pages + (unsigned)qpages;
	q->size = (size_t)ptes * PAGE;
	q->cmdq_off = (size_t)q->pte_pages * PAGE;
	q->statq_off = q->cmdq_off + NVL_GSP_QUEUE_SIZE;
	q->mem = nvl_aligned_alloc(PAGE, q->size);
	q->tx_buf = nvl_aligned_alloc(64, ELEM_MAX);
	q->rx_buf = nvl_aligned_alloc(64, ELEM_MAX);
	if (!q->mem || !q->tx_buf || !q->rx_buf) {
		ret = nvl_error(-ENOMEM,
				"gsp: no memory for the message queues");
		goto fail;
	}
	memset(q->mem, 0, q->size);
	ret = nvl_hw_dma_map(hw, q->mem, q->size, &q->dma);
	if (ret) {
		nvl_error(ret, "gsp: cannot DMA-map the message queues (%d)",
			  ret);
		goto fail;
	}
	for (unsigned i = 0; i < ptes; i++) {
		uint64_t pte = q->dma + (uint64_t)i * PAGE;

		memcpy(q->mem + 8 * (size_t)i, &pte, 8);
	}
	ret = nvl_gsp_msgq_set_abi(q, nvl_gsp_abi_find(NVL_GSP_ABI_DEFAULT));
	if (ret) {
		nvl_hw_dma_unmap(hw, q->dma, q->size);
		goto fail;
	}
	cmdq_header_init(q);
	return 0;
fail:
	nvl_free(q->mem);
	nvl_free(q->tx_buf);
	nvl_free(q->rx_buf);
	q->mem = q->tx_buf = q->rx_buf = NULL;
	return ret;
}

/* the version's queue geometry must be the one the driver allocated */
static bool geometry_ok(const struct gspabi_version *v)
{
	static const struct {
		enum gspabi_const_id id;
		int64_t want;
	} g[] = {
		{GSPABI_C_PAGE_SIZE, NVL_GSP_PAGE},
		{GSPABI_C_QUEUE_SIZE, NVL_GSP_QUEUE_SIZE},
		{GSPABI_C_QUEUE_ENTRY_OFF, NVL_GSP_QUEUE_ENTRY_OFF},
		{GSPABI_C_QUEUE_MSG_SIZE, NVL_GSP_QUEUE_MSG_SIZE},
		{GSPABI_C_QUEUE_MSG_COUNT, NVL_GSP_QUEUE_MSG_COUNT},
	};
	int64_t x;

	for (size_t i = 0; i < NVL_ARRAY_SIZE(g); i++)
		if (gspabi_const_get(v, g[i].id, &x) || x != g[i].want)
			return false;
	return true;
}

/* a u32 field's offset in @id, or -1 when it is missing or misplaced */
static int64_t u32_at(const struct gspabi_version *v, enum gspabi_struct_id id,
		      uint64_t has)
{
	int64_t off = gspabi_offset(v, id, has);

	if (off < 0 || off % 4 || (uint64_t)off + 4 > v->structs[id].wire_size)
		return -1;
	return off;
}

/* the queue and RPC headers: every field the driver writes, u32 pointers
 * at aligned offsets, the constants it stamps; 0 or -EPROTO */
static int headers_set(struct nvl_gsp_msgq *q, const struct gspabi_version *v)
{
	const struct gspabi_struct_ops *tx = &v->structs[GSPABI_S_MSGQ_TX];
	const struct gspabi_struct_ops *rx = &v->structs[GSPABI_S_MSGQ_RX];
	int64_t wptr = u32_at(v, GSPABI_S_MSGQ_TX, GSPABI_MSGQ_TX_HAS_WRITEPTR);
	int64_t entry =
		u32_at(v, GSPABI_S_MSGQ_TX, GSPABI_MSGQ_TX_HAS_ENTRYOFF);
	int64_t rptr = u32_at(v, GSPABI_S_MSGQ_RX, GSPABI_MSGQ_RX_HAS_READPTR);
	int64_t hv, sig, pend, x;
	uint64_t cont;

	if (!tx->present || !rx->present || wptr < 0 || entry < 0 || rptr < 0 ||
	    tx->wire_size % 4 || tx->wire_size + rx->wire_size > TX_HDR_MAX ||
	    gspabi_const_get(v, GSPABI_C_MSGQ_VERSION, &x) ||
	    gspabi_const_get(v, GSPABI_C_MSGQ_FLAGS_SWAP_RX, &x) ||
	    gspabi_const_get(v, GSPABI_C_RPC_HEADER_VERSION, &hv) ||
	    gspabi_const_get(v, GSPABI_C_RPC_SIGNATURE, &sig) ||
	    gspabi_const_get(v, GSPABI_C_RPC_RESULT_PENDING, &pend) ||
	    gspabi_to_wire(v, GSPABI_T_FUNCTION,
			   GSPABI_FUNCTION_CONTINUATION_RECORD, &cont) ||
	    cont > UINT32_MAX || !geometry_ok(v))
		return -EPROTO;
	q->tx_hdr = tx->wire_size;
	q->wptr_off = (size_t)wptr;
	q->entry_off_off = (size_t)entry;
	q->rptr_off = (size_t)rptr;
	q->rpc_version = (uint32_t)hv;
	q->rpc_signature = (uint32_t)sig;
	q->rpc_pending = (uint32_t)pend;
	q->fn_continuation = (uint32_t)cont;
	return 0;
}

int nvl_gsp_msgq_set_abi(struct nvl_gsp_msgq *q, const struct gspabi_version *v)
{
	const struct gspabi_struct_ops *e = &v->structs[GSPABI_S_MSG_ELEM];
	const uint64_t need =
		GSPABI_MSG_ELEM_HAS_CHECKSUM | GSPABI_MSG_ELEM_HAS_SEQNUM;
	int64_t csum =
		u32_at(v, GSPABI_S_MSG_ELEM, GSPABI_MSG_ELEM_HAS_CHECKSUM);
	struct nvl_gsp_msgq h = *q;
	int64_t hdr, max;

	if (headers_set(&h, v) || csum < 0 || !e->present ||
	    (e->fields & need) != need ||
	    !v->structs[GSPABI_S_RPC_HDR].present ||
	    v->structs[GSPABI_S_RPC_HDR].wire_size != RPC_HDR ||
	    gspabi_const_get(v, GSPABI_C_ELEM_HDR_SIZE, &hdr) ||
	    gspabi_const_get(v, GSPABI_C_ELEM_SIZE_MAX, &max) || hdr < 8 ||
	    hdr > 256 || hdr % 8 || max != ELEM_MAX ||
	    e->wire_size != (size_t)hdr + RPC_HDR)
		return nvl_error(-EPROTO,
				 "gsp: firmware %s: the ABI layer does not "
				 "describe its element framing",
				 v->tag);
	*q = h;
	q->csum_off = (size_t)csum;
	q->abi = v;
	q->elem_hdr = (uint32_t)hdr;
	q->payload_max = (uint32_t)(max - hdr - RPC_HDR);
	q->elem_fields = e->fields;
	q->csum_padded = nvl_gsp_abi_ops_find(v->tag)->csum_padded;
	return 0;
}

void nvl_gsp_msgq_reset(struct nvl_gsp_msgq *q)
{
	memset(q->mem + q->cmdq_off, 0, q->size - q->cmdq_off);
	memset(q->cmd_dirty, 0, sizeof(q->cmd_dirty));
	cmdq_header_init(q);
	q->tx_seq = q->rx_seq = 0;
}

void nvl_gsp_msgq_fini(struct nvl_gsp_msgq *q)
{
	if (!q->mem)
		return;
	nvl_hw_dma_unmap(q->hw, q->dma, q->size);
	nvl_free(q->mem);
	nvl_free(q->tx_buf);
	nvl_free(q->rx_buf);
	q->mem = q->tx_buf = q->rx_buf = NULL;
}

uint32_t nvl_gsp_msgq_cmd_rptr(struct nvl_gsp_msgq *q)
{
	return __atomic_load_n(stat_rptr(q), __ATOMIC_ACQUIRE);
}

uint32_t nvl_gsp_msgq_stat_peek(struct nvl_gsp_msgq *q)
{
	return __atomic_load_n(stat_wptr_p(q), __ATOMIC_ACQUIRE);
}

uint32_t nvl_gsp_msgq_cmd_wptr(struct nvl_gsp_msgq *q)
{
	return __atomic_load_n(cmd_wptr(q), __ATOMIC_RELAXED);
}

/* the GSP consumes as we produce (a large RPC streams): pause, then yield
 * the CPU for a while, then sleep between looks */
static void backoff(unsigned *spins, int64_t t0)
{
	struct timespec ts = {0, 20000};

	if (++*spins < 64) {
		nvl_cpu_relax();
		return;
	}
	if (nvl_time_ns() - t0 < 200 * 1000) {
		sched_yield();
		return;
	}
	nanosleep(&ts, NULL);
}

/* wait until @pages slots are free in the cmdq */
static int wait_space(struct nvl_gsp_msgq *q, uint32_t pages, int64_t deadline,
		      uint32_t *wptr_out)
{
	uint32_t wptr = __atomic_load_n(cmd_wptr(q), __ATOMIC_RELAXED);
	int64_t t0 = 0, now; /* the clock is read only once room is short */
	unsigned spins = 0;

	for (;;) {
		uint32_t rptr = nvl_gsp_msgq_cmd_rptr(q);

		if (rptr >= CNT) {
			q->stats.bad_header++;
			return nvl_error(
				-EIO, "gsp: cmdq read pointer %u out of range",
				rptr);
		}
		if (nvl_gsp_queue_free(rptr, wptr, CNT) >= pages) {
			*wptr_out = wptr;
			return 0;
		}
		now = nvl_time_ns();
		if (!t0)
			t0 = now;
		if (now >= deadline)
			return nvl_error(-ETIMEDOUT,
					 "gsp: cmdq full (%u slots needed) "
					 "until the deadline",
					 pages);
		backoff(&spins, t0);
	}
}

/* where byte @off of an element of @first slots from @wptr lives (the
 * rest wrapped to slot 0), and how many bytes follow it in that run */
static uint8_t *elem_at(struct nvl_gsp_msgq *q, uint32_t wptr, uint32_t first,
			size_t off, size_t *run)
{
	size_t split = (size_t)first * PAGE;

	if (off < split) {
		*run = split - off;
		return slot(q, q->cmdq_off, wptr) + off;
	}
	*run = SIZE_MAX;
	return slot(q, q->cmdq_off, 0) + (off - split);
}

/* copy @len bytes (a multiple of 8) to element offset @off; their XOR */
static uint64_t elem_put(struct nvl_gsp_msgq *q, uint32_t wptr, uint32_t first,
			 size_t off, const uint8_t *src, size_t len)
{
	uint64_t x = 0;

	while (len) {
		size_t run, n;
		uint8_t *d = elem_at(q, wptr, first, off, &run);

		n = NVL_MIN(len, run);
		x ^= nvl_copy_xor64(d, src,
				    n); /* copy and checksum: one pass */
		src += n;
		off += n;
		len -= n;
	}
	return x;
}

/* zero element bytes [@off, @end) */
static void elem_zero(struct nvl_gsp_msgq *q, uint32_t wptr, uint32_t first,
		      size_t off, size_t end)
{
	while (off < end) {
		size_t run, n;
		uint8_t *d = elem_at(q, wptr, first, off, &run);

		n = NVL_MIN(end - off, run);
		memset(d, 0, n);
		off += n;
	}
}

void nvl_gsp_msgq_ring(struct nvl_gsp_msgq *q)
{
	nvl_hw_wr32(q->hw, NVL_HW_GSP(NVL_HW_GSP_QUEUE_HEAD(0)), 0);
}

/*
 * Zero the padding of an element of @pages slots from @wptr whose bytes
 * end at @end: only what an earlier, longer element left in its last slot
 * (the slots before it are written whole; only the CPU writes the cmdq,
 * and init and reset zero it). A small call zeroes nothing instead of
 * nearly a page.
 */
static void zero_padding(struct nvl_gsp_msgq *q, uint32_t wptr, uint32_t first,
			 uint32_t pages, size_t end)
{
	uint32_t last = (wptr + pages - 1) % CNT;
	size_t base = (size_t)(pages - 1) * PAGE, used = end - base;

	for (uint32_t i = 0; i + 1 < pages; i++)
		q->cmd_dirty[(wptr + i) % CNT] = PAGE;
	if (q->cmd_dirty[last] > used)
		elem_zero(q, wptr, first, end, base + q->cmd_dirty[last]);
	q->cmd_dirty[last] = (uint16_t)used;
}

static int send_elem(struct nvl_gsp_msgq *q, uint32_t function,
		     uint32_t sequence, const void *chunk, size_t len,
		     int64_t deadline, bool ring)
{
	struct gspabi_rpc_hdr r = {
		.present = GSPABI_RPC_HDR_HAS_HEADER_VERSION |
			   GSPABI_RPC_HDR_HAS_SIGNATURE |
			   GSPABI_RPC_HDR_HAS_LENGTH |
			   GSPABI_RPC_HDR_HAS_FUNCTION |
			   GSPABI_RPC_HDR_HAS_RPC_RESULT |
			   GSPABI_RPC_HDR_HAS_RPC_RESULT_PRIVATE |
			   GSPABI_RPC_HDR_HAS_SEQUENCE,
		.header_version = q->rpc_version,
		.signature = q->rpc_signature,
		.length = (uint32_t)(RPC_HDR + len),
		.function = function,
		.rpc_result = q->rpc_pending,
		.rpc_result_private = q->rpc_pending,
		.sequence = sequence,
	};
	struct gspabi_msg_elem e = {
		.present = GSPABI_MSG_ELEM_HAS_CHECKSUM |
			   GSPABI_MSG_ELEM_HAS_SEQNUM,
	};
	const size_t head = q->elem_hdr + RPC_HDR, body = len & ~(size_t)7;
	size_t bytes = head + len;
	uint32_t pages = (uint32_t)((bytes + PAGE - 1) / PAGE), wptr = 0, first;
	uint64_t x, tail = 0;
	int ret;

	ret = wait_space(q, pages, deadline, &wptr);
	if (ret)
		return ret;
	e.seqNum = q->tx_seq;
	if (q->elem_fields & GSPABI_MSG_ELEM_HAS_ELEMCOUNT) {
		e.present |= GSPABI_MSG_ELEM_HAS_ELEMCOUNT;
		e.elemCount = pages;
	}
	/* the element header (checksum 0, the RPC header's bytes zeroed),
	 * then the RPC header over them, staged; each packed once */
	if (gspabi_pack(q->abi, GSPABI_S_MSG_ELEM, &e, q->tx_buf, head) ||
	    gspabi_pack(q->abi, GSPABI_S_RPC_HDR, &r, q->tx_buf + q->elem_hdr,
			RPC_HDR))
		return nvl_error(-EPROTO, "gsp: cannot frame RPC %u for %s",
				 function, q->abi->tag);
	/*
	 * The payload goes straight into the slots (the element may wrap
	 * past the last one: two runs), checksummed as it is copied: one
	 * pass. The padding is zero, so the checksum of the used bytes is
	 * the padded element's, whichever the version covers. The headers
	 * go in last with the checksum in place (its offset is the layer's,
	 * checked by set_abi); all of it before the pointer is published.
	 */
	first = NVL_MIN(pages, CNT - wptr);
	x = elem_put(q, wptr, first, head, chunk, body);
	if (len > body) {
		memcpy(&tail, (const uint8_t *)chunk + body, len - body);
		x ^= elem_put(q, wptr, first, head + body,
			      (const uint8_t *)&tail, 8);
	}
	zero_padding(q, wptr, first, pages, head + ((len + 7) & ~(size_t)7));
	e.checkSum = fold(x ^ nvl_copy_xor64(NULL, q->tx_buf, head));
	memcpy(q->tx_buf + q->csum_off, &e.checkSum, 4);
	elem_put(q, wptr, first, 0, q->tx_buf, head);

	/* the element must be complete before the GSP can see the pointer:
	 * the model's firmware loads it with acquire order (its
	 * nvl_model_phys_atomic32()), and its reply's write pointer store
	 * releases back to stat_wptr()'s acquire load, so what the caller
	 * wrote or read before this store happens-before the reply is taken */
	__atomic_store_n(cmd_wptr(q), (wptr + pages) % CNT, __ATOMIC_RELEASE);
	q->tx_seq++;
	q->stats.sent++;
	if (ring)
		nvl_gsp_msgq_ring(q);
	return 0;
}

int nvl_gsp_msgq_send_quiet(struct nvl_gsp_msgq *q, uint32_t function,
			    uint32_t sequence, const void *payload, size_t len,
			    int64_t deadline)
{
	const uint8_t *p = payload;
	size_t chunk = NVL_MIN(len, (size_t)q->payload_max);
	int ret;

	if (len > NVL_GSP_MSG_MAX)
		return nvl_error(-EINVAL,
				 "gsp: RPC %u of %zu bytes is too large",
				 function, len);
	/* every element but the last is rung at once: the GSP reads while
	 * the rest waits for room */
	ret = send_elem(q, function, sequence, p, chunk, deadline, chunk < len);
	while (!ret && chunk < len) {
		size_t n = NVL_MIN(len - chunk, (size_t)q->payload_max);

		ret = send_elem(q, q->fn_continuation, sequence, p + chunk, n,
				deadline, chunk + n < len);
		chunk += n;
	}
	return ret;
}

int nvl_gsp_msgq_send(struct nvl_gsp_msgq *q, uint32_t function,
		      uint32_t sequence, const void *payload, size_t len,
		      int64_t deadline)
{
	int ret = nvl_gsp_msgq_send_quiet(q, function, sequence, payload, len,
					  deadline);

	if (!ret)
		nvl_gsp_msgq_ring(q);
	return ret;
}

static uint32_t our_rptr(struct nvl_gsp_msgq *q)
{
	return __atomic_load_n(cmd_rptr(q), __ATOMIC_RELAXED);
}

uint32_t nvl_gsp_msgq_stat_rptr(struct nvl_gsp_msgq *q)
{
	return our_rptr(q);
}

static void advance(struct nvl_gsp_msgq *q, uint32_t rptr, uint32_t n)
{
	__atomic_store_n(cmd_rptr(q), (rptr + n) % CNT, __ATOMIC_RELEASE);
}

/* the GSP's write pointer, after checking its queue header; -EAGAIN while
 * the GSP has not initialised it */
static int stat_wptr(struct nvl_gsp_msgq *q, uint32_t *wptr)
{
	uint8_t raw[TX_HDR_MAX];
	struct gspabi_msgq_tx h;

	if (__atomic_load_n(stat_entry_off(q), __ATOMIC_ACQUIRE) == 0)
		return -EAGAIN;
	/* the write pointer only as one atomic word (the GSP stores it
	 * while we read): the rest of the header around it, then the word */
	h.writePtr = __atomic_load_n(stat_wptr_p(q), __ATOMIC_ACQUIRE);
	memcpy(raw, q->mem + q->statq_off, q->wptr_off);
	memcpy(raw + q->wptr_off, &h.writePtr, 4);
	memcpy(raw + q->wptr_off + 4, q->mem + q->statq_off + q->wptr_off + 4,
	       q->tx_hdr - q->wptr_off - 4);
	if (gspabi_unpack(q->abi, GSPABI_S_MSGQ_TX, raw, q->tx_hdr, &h))
		return nvl_error(-EPROTO,
				 "gsp: cannot read queue headers of %s",
				 q->abi->tag);
	if (h.size != NVL_GSP_QUEUE_SIZE ||
	    h.msgSize != NVL_GSP_QUEUE_MSG_SIZE ||
	    h.entryOff != NVL_GSP_QUEUE_ENTRY_OFF || h.msgCount != CNT ||
	    h.msgCount != (h.size - h.entryOff) / h.msgSize ||
	    h.writePtr >= CNT) {
		q->stats.bad_header++;
		return nvl_error(-EIO,
				 "gsp: status queue header invalid (size %#x "
				 "msgSize %#x count %u entryOff %#x wptr %u)",
				 h.size, h.msgSize, h.msgCount, h.entryOff,
				 h.writePtr);
	}
	*wptr = h.writePtr;
	return 0;
}

unsigned nvl_gsp_msgq_pending(struct nvl_gsp_msgq *q)
{
	uint32_t wptr;

	if (stat_wptr(q, &wptr))
		return 0;
	return (wptr + CNT - our_rptr(q) % CNT) % CNT;
}

/*
 * Bytes [@off, @off + @len) of the status-queue element at @rptr whose
 * first @first pages precede the wrap: copied to @dst (NULL: only read);
 * their XOR.
 */
static uint64_t stat_pass(struct nvl_gsp_msgq *q, uint32_t rptr, uint32_t first,
			  size_t off, size_t len, uint8_t *dst)
{
	size_t split = (size_t)first * PAGE;
	uint64_t x = 0;

	while (len) {
		const uint8_t *s;
		size_t n;

		if (off < split) {
			s = slot(q, q->statq_off, rptr) + off;
			n = NVL_MIN(len, split - off);
		} else {
			s = slot(q, q->statq_off, 0) + (off - split);
			n = len;
		}
		x ^= nvl_copy_xor64(dst, s, n);
		if (dst)
			dst += n;
		off += n;
		len -= n;
	}
	return x;
}

int nvl_gsp_msgq_recv(struct nvl_gsp_msgq *q, struct nvl_gsp_msg *msg)
{
	struct gspabi_msg_elem e;
	struct gspabi_rpc_hdr r;
	uint32_t wptr, rptr = our_rptr(q), avail, pages, first, need, seq;
	const uint32_t hdr = q->elem_hdr;
	const size_t head = NVL_ALIGN_UP((size_t)hdr + RPC_HDR, 8);
	uint8_t *dst = q->rx_dst, *pay;
	size_t used, cap = q->rx_dst_cap;
	uint64_t x;
	int ret;

	q->rx_dst = NULL;
	/* nothing new (every drain ends so, and a waiter's look before it
	 * sleeps mostly finds so): one word read, no header to check. A
	 * header gone bad is found when a message comes. */
	if (rptr < CNT &&
	    __atomic_load_n(stat_wptr_p(q), __ATOMIC_ACQUIRE) == rptr &&
	    __atomic_load_n(stat_entry_off(q), __ATOMIC_ACQUIRE))
		return 0;
	ret = stat_wptr(q, &wptr);

	if (ret == -EAGAIN)
		return 0;
	if (ret)
		return ret;
	if (rptr >= CNT)
		rptr = 0; /* our own page: only a wild write gets here */
	avail = (wptr + CNT - rptr) % CNT;
	if (!avail)
		return 0;
	/* copied and checksummed in one pass (x: the XOR of what was
	 * read): the headers first, parsed from the copy */
	x = nvl_copy_xor64(q->rx_buf, slot(q, q->statq_off, rptr), head);
	if (gspabi_unpack(q->abi, GSPABI_S_MSG_ELEM, q->rx_buf, head, &e) ||
	    gspabi_unpack(q->abi, GSPABI_S_RPC_HDR, q->rx_buf + hdr, RPC_HDR,
			  &r))
		return nvl_error(-EPROTO, "gsp: cannot read elements of %s",
				 q->abi->tag);
	/* 535.54.03 has no element count: the RPC length gives the size */
	if (e.present & GSPABI_MSG_ELEM_HAS_ELEMCOUNT)
		pages = e.elemCount;
	else
		pages = (uint32_t)NVL_MIN(
			((uint64_t)hdr + r.length + PAGE - 1) / PAGE,
			(uint64_t)UINT32_MAX);
	if (pages < 1 || pages > ELEM_MAX / PAGE || pages > avail) {
		q->stats.bad_header++;
		nvl_warn(NVL_CAT_GSP,
			 "gsp: element at slot %u spans %u pages (%u written): "
			 "dropping the queue's contents",
			 rptr, pages, avail);
		advance(q, rptr, avail);
		return -EBADMSG;
	}
	/*
	 * The rest of the element: the bytes the RPC header says are used
	 * are copied, the padding after them (in its last page) only XORed
	 * (nothing reads it again), so a small reply copies ~100 bytes, not
	 * a page, and a 6 KB one 6 KB, not two pages. Each byte is still
	 * read once, and only the copy is parsed. A length that does not
	 * fit (garbage the checks below reject) copies the whole element.
	 */
	first = NVL_MIN(pages, CNT - rptr);
	used = r.length > (size_t)pages * PAGE - hdr
		       ? (size_t)pages * PAGE
		       : NVL_MAX(NVL_ALIGN_UP((size_t)hdr + r.length, 8), head);
	/*
	 * A continuation of the reply being reassembled goes straight to
	 * its place in the caller's buffer (@dst, set by the drain), not
	 * through rx_buf: one pass over the bytes, not two. Only where the
	 * checksum is complete without a second look at the copy (the
	 * padded checksum), and only when the copy fits. A bad element
	 * leaves its bytes past the reply's received length, which the
	 * failed call does not own as a result.
	 */
	pay = q->rx_buf + head;
	if (dst && q->csum_padded && r.function == q->fn_continuation &&
	    used - head <= cap)
		pay = dst;
	x ^= stat_pass(q, rptr, first, head, used - head, pay);
	x ^= stat_pass(q, rptr, first, used, (size_t)pages * PAGE - used, NULL);
	/* from here on only the copy is read; the element is consumed */
	advance(q, rptr, pages);

	need = r.length;
	/* 535.54.03's checksum stops at the element's end: what follows in
	 * the last page is not the GSP's to vouch for */
	if (!q->csum_padded && need <= (uint32_t)pages * PAGE - hdr) {
		memset(q->rx_buf + hdr + need, 0,
		       (size_t)pages * PAGE - hdr - need);
		x = nvl_copy_xor64(NULL, q->rx_buf, (size_t)pages * PAGE);
	}
	if (fold(x)) {
		q->stats.bad_checksum++;
		nvl_warn(NVL_CAT_GSP, "gsp: element seq %u: bad checksum",
			 e.seqNum);
		return -EBADMSG;
	}
	seq = e.seqNum;
	if (seq != q->rx_seq) {
		if ((uint32_t)(q->rx_seq - seq) < (1u << 31)) {
			q->stats.duplicate++;
			nvl_warn(NVL_CAT_GSP,
				 "gsp: element seq %u repeated (expected %u)",
				 seq, q->rx_seq);
			return -EBADMSG;
		}
		q->stats.bad_seq++;
		nvl_warn(NVL_CAT_GSP,
			 "gsp: element seq %u, expected %u: %u lost", seq,
			 q->rx_seq, seq - q->rx_seq);
	}
	q->rx_seq = seq + 1;
	if (r.header_version != q->rpc_version ||
	    r.signature != q->rpc_signature || need < RPC_HDR ||
	    need > (uint32_t)pages * PAGE - hdr ||
	    (hdr + need + PAGE - 1) / PAGE != pages) {
		q->stats.bad_rpc++;
		nvl_warn(NVL_CAT_GSP,
			 "gsp: element seq %u: bad RPC header (version %#x "
			 "signature %#x length %u in %u pages)",
			 seq, r.header_version, r.signature, need, pages);
		return -EBADMSG;
	}
	q->stats.received++;
	msg->function = r.function;
	msg->result = r.rpc_result;
	msg->sequence = r.sequence;
	msg->len = need - RPC_HDR;
	msg->data = pay; /* rx_buf + hdr + RPC_HDR, or the caller's */
	msg->full = msg->len == q->payload_max;
	return 1;
}

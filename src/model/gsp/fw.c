// SPDX-License-Identifier: MIT
/*
 * DOC: the model's GSP firmware
 *
 * One thread plays SEC2's booter and the GSP-RM firmware:
 *
 *  - booter_load (SEC2 STARTCPU with the booter's id in SEC2 OS): reads
 *    GspFwWprMeta at SEC2 mailbox0/1 by DMA, checks magic, revision and
 *    layout, reads .fwimage through the radix3 table and the signature,
 *    verifies them (the fused check, booter_sig.h), copies the image into
 *    WPR2, writes `verified`, raises WPR2 and starts the GSP;
 *  - LIBOS start: reads the LIBOS arguments (GSP mailbox0/1), finds the
 *    log rings and RMARGS, maps the shared queue region through its PTE
 *    pages, initialises the status queue header and goes ACTIVE;
 *  - RM init: reads the SET_SYSTEM_INFO and SET_REGISTRY the driver queued
 *    before the start, runs the CPU sequencer (RUN_CPU_SEQUENCER, then
 *    waits for the driver's core resume) and sends INIT_DONE;
 *  - running: serves RPCs (rm.c) and sends queued events.
 *
 * The thread holds the GSP's core while it works and lets it go while it
 * waits: RM's interrupt service may then run on the thread that raised
 * the interrupt (rc.c), as if on the GSP.
 *
 * It enforces what GSP-RM enforces: a command element with the wrong
 * seqNum stalls the firmware for good; an RPC sequence out of order is
 * asserted (counted and logged in LOGRM). Fault hooks drop, delay,
 * corrupt or duplicate replies, answer with an error, or hang.
 */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/compiler.h"
#include "base/cpufree.h"
#include "base/futex.h"
#include "base/idlepoll.h"
#include "base/time.h"
#include "base/xor64.h"
#include "firmware/nvl_fw_manifest.h"
#include "hw/falcon.h"
#include "hw/regs.h"
#include "model/gsp/priv.h"

#define PAGE GSP_PAGE_SIZE
#define CNT GSP_QUEUE_MSG_COUNT
#define RPC_HDR sizeof(rpc_message_header_v03_00)
/* elements up to this size are staged whole before one DMA write */
#define FW_STAGE_MAX 1024

/* the zeros that clear a staged element's slot after it (send_elem()) */
static const uint8_t fw_zero_page[PAGE];

static uint64_t id8(const char *s)
{
	uint64_t v = 0;

	for (; *s; s++)
		v = (v << 8) | (uint8_t)*s;
	return v;
}

int nvl_fw_dma(struct nvl_model_gsp *g, uint64_t pa, void *buf, size_t len,
	       bool write)
{
	return nvl_model_phys_access(g->m, NVL_HW_APERTURE_SYS_COH, pa, buf,
				     len, write);
}

/* bytes at offset @off of the shared queue region, through its PTEs */
static int region_io(struct nvl_model_gsp *g, uint64_t off, void *buf,
		     size_t len, bool write)
{
	uint8_t *p = buf;

	while (len) {
		uint64_t pg = off / PAGE, in = off % PAGE;
		size_t n = NVL_MIN(len, (size_t)(PAGE - in));
		int ret;

		if (pg >= g->npte)
			return -EFAULT;
		ret = nvl_fw_dma(g, g->pte[pg] + in, p, n, write);
		if (ret)
			return ret;
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

/*
 * One pass over queue bytes in place (nvl_model_phys_visit()): a read
 * copies them to @dst (when not NULL) and XORs them; a write copies @src
 * in and XORs it, or zeroes. Lengths and offsets are multiples of 8, so
 * every run is whole 64-bit words; four accumulators keep the loop free
 * of a dependency chain. The checksum's pass and the copy's are one, and
 * no element is staged in a buffer of its own.
 */
struct qpass {
	uint8_t *dst;
	const uint8_t *src, *src2;
	size_t left;
	bool write;
	uint64_t x;
};

static void qpass_run(void *arg, uint8_t *p, size_t n)
{
	struct qpass *q = arg;
	size_t k = NVL_MIN(n, q->left);

	if (q->write && !q->src) {
		memset(p, 0, n);
		return;
	}
	q->left -= k;
	if (q->write) {
		q->x ^= nvl_copy_xor64(p, q->src, k);
		q->src += k;
		if (k < n) {
			q->x ^= nvl_copy_xor64(p + k, q->src2, n - k);
			q->src2 += n - k;
		}
	} else {
		q->x ^= nvl_copy_xor64(q->dst, p, k);
		q->dst += k;
		if (k < n)
			q->x ^= nvl_copy_xor64(NULL, p + k, n - k);
	}
}

/* qpass_run() over bytes at offset @off of the shared queue region */
static int region_pass(struct nvl_model_gsp *g, uint64_t off, size_t len,
		       struct qpass *q)
{
	while (len) {
		uint64_t pg = off / PAGE, in = off % PAGE, end = pg + 1;
		size_t n;
		int ret;

		if (pg >= g->npte)
			return -EFAULT;
		/* pages that follow each other in DMA space: one run */
		while (end < g->npte && (end - pg) * PAGE - in < len &&
		       g->pte[end] == g->pte[end - 1] + PAGE)
			end++;
		n = NVL_MIN(len, (size_t)((end - pg) * PAGE - in));
		ret = nvl_model_phys_visit(g->m, NVL_HW_APERTURE_SYS_COH,
					   g->pte[pg] + in, n, qpass_run, q);
		if (ret)
			return ret;
		off += n;
		len -= n;
	}
	return 0;
}

/* offset in the region of byte @off of the element at slot @slot of the
 * queue at @qoff (an element may wrap to slot 0) */
static uint64_t elem_off(uint64_t qoff, uint32_t slot, size_t off)
{
	uint64_t at = (uint64_t)slot * PAGE + off;

	if (at >= (uint64_t)CNT * PAGE)
		at -= (uint64_t)CNT * PAGE;
	return qoff + GSP_QUEUE_ENTRY_OFF + at;
}

/* region_pass() over element bytes [@off, @off + @len), wrapping */
static int elem_pass(struct nvl_model_gsp *g, uint64_t qoff, uint32_t slot,
		     size_t off, size_t len, struct qpass *q)
{
	size_t split = (size_t)(CNT - slot) * PAGE;
	int ret = 0;

	if (off < split) {
		size_t n = NVL_MIN(len, split - off);

		ret = region_pass(g, elem_off(qoff, slot, off), n, q);
		off += n;
		len -= n;
	}
	if (!ret && len)
		ret = region_pass(g, elem_off(qoff, slot, off), len, q);
	return ret;
}

/*
 * The queue pointers (write pointer, read pointer, entryOff) are the
 * words that publish or consume elements: the model accesses them as one
 * ordered word each (acquire loads, release stores), pairing with the
 * driver's atomics on the same words, so the element bytes written before
 * a pointer store happen-before the reads after the other side loads it.
 */
static int region_word(struct nvl_model_gsp *g, uint64_t off, uint32_t *v,
		       bool write)
{
	uint64_t pg = off / PAGE;

	if (pg >= g->npte || off % 4)
		return -EFAULT;
	return nvl_model_phys_atomic32(g->m, NVL_HW_APERTURE_SYS_COH,
				       g->pte[pg] + off % PAGE, v, write);
}

static uint32_t region_rd32(struct nvl_model_gsp *g, uint64_t off)
{
	uint32_t v = 0xffffffff;

	if (region_word(g, off, &v, false))
		return 0xffffffff;
	return v;
}

static void region_wr32(struct nvl_model_gsp *g, uint64_t off, uint32_t v)
{
	region_word(g, off, &v, true);
}

void nvl_fw_log(struct nvl_model_gsp *g, unsigned ring, const char *fmt, ...)
{
	struct fw_log *l = &g->logs[ring];
	const size_t data_off = 8 * (1 + NVL_ARRAY_SIZE(l->pte));
	const size_t data_sz = LIBOS_LOG_RING_SIZE - data_off;
	char line[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	if (!l->ok)
		return;
	/* one DMA per run that neither crosses a page nor wraps */
	for (size_t i = 0, run; i < (size_t)n; i += run) {
		uint64_t off = (l->put + i) % data_sz, at = data_off + off;

		run = NVL_MIN((size_t)n - i,
			      (size_t)NVL_MIN(data_sz - off, PAGE - at % PAGE));
		nvl_fw_dma(g, l->pte[at / PAGE] + at % PAGE, &line[i], run,
			   true);
	}
	l->put += n;
	nvl_fw_dma(g, l->pte[0], &l->put, 8, true);
}

/* SWGEN0, then the line: a handler that cleared the line and read the
 * status before the bit was set runs again for it (gsp_irqstat is one
 * atomic word, set and cleared with no lock: falcon.c) */
static void raise_irq(struct nvl_model_gsp *g)
{
	__atomic_fetch_or(&g->gsp_irqstat, NVL_HW_FALCON_IRQSTAT_SWGEN0,
			  __ATOMIC_ACQ_REL);
	nvl_model_intr_raise(g->m, NVL_HW_INTR_TREE_STALL, NVL_HW_INTR_GSP);
}

/*
 * A message's interrupt: at once, or, while the thread serves a batch of
 * commands (serve_cmdq()), once at the end of the batch: one interrupt
 * for the replies of several callers wakes their waiters once, not once
 * per reply. A waiter that polls sees each reply as it is published.
 */
static void msg_irq(struct nvl_model_gsp *g)
{
	if (g->irq_defer)
		g->irq_due = true;
	else
		raise_irq(g);
}

static void flush_irq(struct nvl_model_gsp *g)
{
	if (g->irq_due) {
		g->irq_due = false;
		raise_irq(g);
	}
}

static uint32_t fold(uint64_t x)
{
	return (uint32_t)(x >> 32) ^ (uint32_t)x;
}

static uint32_t checksum(const uint8_t *p, size_t len)
{
	uint64_t x = 0;

	for (size_t i = 0; i < len; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		x ^= w;
	}
	return (uint32_t)(x >> 32) ^ (uint32_t)x;
}

/*
 * Take one armed fault of kind @f. The counts are stored atomically (under
 * g->lock) so that the common case, nothing armed, is one load and no lock
 * round trip (five per reply before): an injection made before a command
 * was sent happens-before the firmware reads that command.
 */
static bool take_fault(struct nvl_model_gsp *g, enum nvl_model_gsp_fault f)
{
	bool hit = false;

	if (!__atomic_load_n(&g->fault_count[f], __ATOMIC_RELAXED))
		return false;
	pthread_mutex_lock(&g->lock);
	if (g->fault_count[f]) {
		__atomic_store_n(&g->fault_count[f], g->fault_count[f] - 1,
				 __ATOMIC_RELAXED);
		hit = true;
	}
	pthread_mutex_unlock(&g->lock);
	return hit;
}

/* NVL_MODEL_GSP_REFUSE_CONTROL: is control @cmd the next one refused, with
 * which NV_STATUS */
bool nvl_fw_refuse_control(struct nvl_model_gsp *g, uint32_t cmd,
			   uint32_t *status)
{
	const enum nvl_model_gsp_fault f = NVL_MODEL_GSP_REFUSE_CONTROL;
	bool hit = false;

	if (!__atomic_load_n(&g->fault_count[f], __ATOMIC_RELAXED))
		return false;
	pthread_mutex_lock(&g->lock);
	if (g->fault_count[f] && (uint32_t)(g->fault_arg[f] >> 32) == cmd) {
		__atomic_store_n(&g->fault_count[f], g->fault_count[f] - 1,
				 __ATOMIC_RELAXED);
		*status = (uint32_t)g->fault_arg[f];
		hit = true;
	}
	pthread_mutex_unlock(&g->lock);
	return hit;
}

static bool stopping(struct nvl_model_gsp *g)
{
	bool s;

	pthread_mutex_lock(&g->lock);
	s = g->stop;
	pthread_mutex_unlock(&g->lock);
	return s;
}

/*
 * Free pages in the status queue, at least @need if there are: what is
 * known free since the driver's read pointer (in the command queue's
 * receive header) was last read, or, when that is less than @need, what
 * it says now. Each look at a queue word is a DMA translation in the
 * model; a small reply needs none while the driver keeps up.
 */
static uint32_t statq_room(struct nvl_model_gsp *g, uint32_t need)
{
	uint32_t rptr;

	if (g->statq_free >= need)
		return g->statq_free;
	rptr = region_rd32(g, g->cmdq_off + sizeof(msgqTxHeader));
	if (rptr >= CNT)
		return 0;
	g->statq_free = (rptr + CNT - g->statq_wptr - 1) % CNT;
	return g->statq_free;
}

/* one element into the status queue; false if the driver never made room */
static bool send_elem(struct nvl_model_gsp *g, uint32_t function, uint32_t seq,
		      uint32_t result, const uint8_t *data, size_t len,
		      bool corrupt, bool dup)
{
	size_t hdr = g->wire->elem_hdr, head = hdr + RPC_HDR;
	size_t body = len & ~(size_t)7, end = head + ((len + 7) & ~(size_t)7);
	rpc_message_header_v03_00 *r = (void *)(g->tx_elem + hdr);
	uint32_t pages = (uint32_t)((head + len + PAGE - 1) / PAGE);
	uint64_t tail = 0, x = 0;
	bool staged = end <= FW_STAGE_MAX;
	/* the clock is read only once room is short */
	int64_t t0 = 0, now, deadline = 0;
	uint32_t wptr = g->statq_wptr;

	for (;;) {
		if (statq_room(g, pages) >= pages)
			break;
		/* the driver must hear of what is there to make room */
		flush_irq(g);
		now = nvl_time_ns();
		if (!t0) {
			t0 = now;
			deadline = t0 + NVL_NSEC_PER_SEC;
		}
		if (now > deadline || stopping(g)) {
			nvl_fw_log(g, LOG_RM, "statq full: %s dropped",
				   function >= 0x1000 ? "event" : "reply");
			return false;
		}
		/* the driver drains as it receives (a large reply streams):
		 * yield for a while, then sleep between looks */
		if (now - t0 < 200 * 1000) {
			sched_yield();
		} else {
			struct timespec ts = {0, 20000};
			nanosleep(&ts, NULL);
		}
	}
	/*
	 * The headers are staged in tx_elem; a large payload goes straight
	 * into the slots (the element may wrap past the last one), XORed as
	 * it is copied: one pass. A small one is staged after the headers
	 * (XORed as it is copied there), so that the element goes in with
	 * one DMA access rather than two. The padding is zero (only what an
	 * earlier, longer element left in the last slot is cleared), so the
	 * checksum of the used bytes is the padded element's, whichever the
	 * version covers. The headers go in last with the checksum in place;
	 * all of it before the write pointer is published.
	 */
	memset(g->tx_elem, 0, head);
	r->header_version = NV_VGPU_MSG_HEADER_VERSION;
	r->signature = NV_VGPU_MSG_SIGNATURE_VALID;
	r->length = (NvU32)(RPC_HDR + len);
	r->function = function;
	r->rpc_result = result;
	r->rpc_result_private = result;
	r->sequence = seq;
	if (len > body)
		memcpy(&tail, data + body, len - body);
	if (staged) {
		x = nvl_copy_xor64(g->tx_elem + head, data, body);
		memcpy(g->tx_elem + head + body, &tail, 8);
		x ^= tail;
	}
	for (int copy = 0; copy < (dup ? 2 : 1); copy++) {
		uint32_t last = (wptr + pages - 1) % CNT;
		size_t base = (size_t)(pages - 1) * PAGE, used = end - base;
		struct qpass q = {.src = data,
				  .src2 = (const uint8_t *)&tail,
				  .left = body,
				  .write = true};
		struct qpass h = {.src = g->tx_elem,
				  .src2 = fw_zero_page,
				  .left = head,
				  .write = true};

		/* the payload, its last partial word from @tail */
		if (!staged) {
			elem_pass(g, g->statq_off, wptr, head, end - head, &q);
			x = q.x;
		}
		/* what an earlier, longer element left after this one is
		 * cleared: by the staged element's own pass (below) when it
		 * has one page, else by a pass of its own */
		if (g->statq_dirty[last] > used && !staged) {
			struct qpass z = {.write = true};

			elem_pass(g, g->statq_off, wptr, end,
				  base + g->statq_dirty[last] - end, &z);
		}
		if (!copy) {
			g->wire->elem_write(g->tx_elem, g->tx_seq, pages, 0);
			g->wire->elem_write(g->tx_elem, g->tx_seq++, pages,
					    checksum(g->tx_elem, head) ^
						    fold(x));
			if (corrupt) /* in the RPC header */
				g->tx_elem[hdr + 4] ^= 0x5a;
		}
		h.left = staged ? end : head;
		/*
		 * A staged element fills one page (end <= FW_STAGE_MAX): the
		 * stale bytes after it, [end, dirty), follow it in the same
		 * slot and go out as zeros in the same pass (one DMA
		 * translation instead of two for most small events and
		 * replies, whose slot an earlier reply used).
		 */
		elem_pass(g, g->statq_off, wptr, 0,
			  staged ? NVL_MAX(end, (size_t)g->statq_dirty[last])
				 : h.left,
			  &h);
		for (uint32_t i = 0; i + 1 < pages; i++)
			g->statq_dirty[(wptr + i) % CNT] = PAGE;
		g->statq_dirty[last] = (uint16_t)used;
		wptr = (wptr + pages) % CNT;
		g->statq_wptr = wptr;
		g->statq_free -= pages;
		region_wr32(g, g->statq_off + offsetof(msgqTxHeader, writePtr),
			    wptr);
		/* the copy must find room too */
		if (dup && statq_room(g, pages) < pages)
			break;
	}
	msg_irq(g);
	return true;
}

/* a whole message: first element plus continuation records */
static void send_msg(struct nvl_model_gsp *g, uint32_t function, uint32_t seq,
		     uint32_t result, const uint8_t *data, size_t len,
		     bool faults)
{
	bool corrupt = false, dup = false;
	size_t chunk = NVL_MIN(len, g->wire->payload_max);

	if (faults) {
		if (take_fault(g, NVL_MODEL_GSP_DROP)) {
			nvl_fw_log(g, LOG_RM, "inject: reply to %u dropped",
				   function);
			return;
		}
		if (take_fault(g, NVL_MODEL_GSP_DELAY)) {
			uint64_t ns = g->fault_arg[NVL_MODEL_GSP_DELAY];
			struct timespec ts = {(time_t)(ns / 1000000000ull),
					      (long)(ns % 1000000000ull)};
			nanosleep(&ts, NULL);
		}
		corrupt = take_fault(g, NVL_MODEL_GSP_CORRUPT);
		dup = take_fault(g, NVL_MODEL_GSP_DUPLICATE);
	}
	if (!send_elem(g, function, seq, result, data, chunk, corrupt, dup))
		return;
	while (chunk < len) {
		size_t n = NVL_MIN(len - chunk, g->wire->payload_max);

		if (!send_elem(g, NV_VGPU_MSG_FUNCTION_CONTINUATION_RECORD, seq,
			       result, data + chunk, n, false, false))
			return;
		chunk += n;
	}
}

/* ---- receiving commands ------------------------------------------- */

struct fw_rx {
	uint32_t function, seq;
	size_t len, total;
	bool active;
};

static struct fw_rx rx_state_init(void)
{
	return (struct fw_rx){0};
}

/* full size of a request whose first element was full */
static size_t request_total(uint32_t function, const uint8_t *p, size_t len)
{
	uint32_t v;

	switch (function) {
	case NV_VGPU_MSG_FUNCTION_GSP_RM_CONTROL:
		memcpy(&v, p + offsetof(rpc_gsp_rm_control_v03_00, paramsSize),
		       4);
		return sizeof(rpc_gsp_rm_control_v03_00) + (size_t)v;
	case NV_VGPU_MSG_FUNCTION_GSP_RM_ALLOC:
		memcpy(&v, p + offsetof(rpc_gsp_rm_alloc_v03_00, paramsSize),
		       4);
		return sizeof(rpc_gsp_rm_alloc_v03_00) + (size_t)v;
	case NV_VGPU_MSG_FUNCTION_SET_REGISTRY:
		memcpy(&v, p, 4);
		return v;
	default:
		return len;
	}
}

static void send_events(struct nvl_model_gsp *g);

/* @g's firmware state is @st: read under g->lock (a core reset writes it) */
static bool state_is(struct nvl_model_gsp *g, enum nvl_model_gsp_state st)
{
	bool yes;

	pthread_mutex_lock(&g->lock);
	yes = g->state == st;
	pthread_mutex_unlock(&g->lock);
	return yes;
}

static void dispatch(struct nvl_model_gsp *g, uint32_t function, uint32_t seq,
		     const uint8_t *req, size_t len)
{
	uint32_t result = NV_OK;
	size_t n;

	if (seq) {
		if (seq != g->rpc_seq + 1) {
			g->st.seq_asserts++;
			nvl_fw_log(g, LOG_RM,
				   "ASSERT: RPC sequence %u after %u (function "
				   "%u)",
				   seq, g->rpc_seq, function);
		}
		g->rpc_seq = seq;
	}
	/* events raised before this call go out before its reply (the
	 * state under its lock: a reset of the core writes it) */
	if (state_is(g, NVL_MODEL_GSP_RUNNING))
		send_events(g);
	n = nvl_fw_rm_serve(g, function, req, len, &result);
	if (function == NV_VGPU_MSG_FUNCTION_UNLOADING_GUEST_DRIVER &&
	    result == NV_OK) {
		const rpc_unloading_guest_driver_v1F_07 *u = (const void *)req;

		/* suspend to RAM: RM's state goes into its heap in WPR2,
		 * which booter_unload saves (sr.c) */
		if (u->bInPMTransition && u->newLevel == 3)
			result = nvl_fw_sr_save_rm(g);
	}
	if (take_fault(g, NVL_MODEL_GSP_ERROR))
		result = (uint32_t)g->fault_arg[NVL_MODEL_GSP_ERROR];
	nvl_model_gsp_reply_fn lie =
		__atomic_load_n(&g->reply_fn, __ATOMIC_ACQUIRE);

	if (lie)
		lie(__atomic_load_n(&g->reply_arg, __ATOMIC_RELAXED), function,
		    g->reply, n);
	g->st.rpcs++;
	if (state_is(g, NVL_MODEL_GSP_BOOTING) && result != NV_OK &&
	    !g->init_error)
		g->init_error = result;
	send_msg(g, function, seq, result, g->reply, n, true);
	if (function == NV_VGPU_MSG_FUNCTION_UNLOADING_GUEST_DRIVER &&
	    result == NV_OK) {
		pthread_mutex_lock(&g->lock);
		g->state = NVL_MODEL_GSP_UNLOADED;
		g->gsp_mbox[0] = NVL_HW_GSP_MAILBOX0_UNLOADED;
		pthread_mutex_unlock(&g->lock);
		nvl_fw_log(g, LOG_RM, "unloading: guest driver gone");
	}
}

/*
 * The payload of the element at @rptr (its headers already in @q): in
 * one pass, its @plen bytes rounded up to a word copied to @dst (which
 * has room for them) and XORed, and, where the version's checksum covers
 * the page-padded element, the padding XORed in place (never copied).
 * Where the checksum stops at the element's end (535.54.03), the bytes
 * after it in its last word count as zero.
 */
static void recv_payload(struct nvl_model_gsp *g, uint32_t rptr, uint32_t pages,
			 size_t plen, uint8_t *dst, struct qpass *q)
{
	size_t head = g->wire->elem_hdr + RPC_HDR;
	size_t used = (plen + 7) & ~(size_t)7;
	size_t span = g->wire->csum_padded ? (size_t)pages * PAGE - head : used;

	q->dst = dst;
	q->left = used;
	elem_pass(g, g->cmdq_off, rptr, head, span, q);
	if (used > plen && !g->wire->csum_padded) {
		uint64_t after = 0;

		memcpy(&after, dst + plen, used - plen);
		q->x ^= after << (8 * (8 - (used - plen)));
	}
}

/*
 * Read what the driver queued. @only: stop after this many messages
 * (boot reads the two init RPCs), 0 for all. Returns messages handled,
 * or -1 once stalled.
 */
static int serve_batch(struct nvl_model_gsp *g, struct fw_rx *rx, unsigned only,
		       uint32_t *fns)
{
	size_t hdr = g->wire->elem_hdr, head = hdr + RPC_HDR;
	const rpc_message_header_v03_00 *r = (const void *)(g->rx_elem + hdr);
	int handled = 0;

	for (;;) {
		uint64_t rx_hdr = g->statq_off + sizeof(msgqTxHeader);
		uint32_t wptr = region_rd32(
			g, g->cmdq_off + offsetof(msgqTxHeader, writePtr));
		uint32_t rptr = g->cmdq_rptr;
		uint32_t avail, pages, seq;
		struct qpass q;
		uint8_t *dst;
		size_t plen;
		bool fits, cont;

		if (only && (unsigned)handled >= only)
			return handled;
		/* stored atomically under g->lock: read without it */
		if (__atomic_load_n(&g->hang, __ATOMIC_RELAXED))
			return handled;
		if (wptr >= CNT) {
			g->st.bad_elems++;
			nvl_fw_log(g, LOG_RM, "cmdq pointers %u/%u invalid",
				   wptr, rptr);
			return handled;
		}
		avail = (wptr + CNT - rptr) % CNT;
		if (!avail)
			return handled;
		/* the headers, copied (only the copy is parsed) and XORed */
		q = (struct qpass){.dst = g->rx_elem, .left = head};
		elem_pass(g, g->cmdq_off, rptr, 0, head, &q);
		g->wire->elem_read(g->rx_elem, &seq, &pages);
		if (!pages) /* 535.54.03: header + RPC length, in pages */
			pages = (uint32_t)((hdr + (uint64_t)r->length + PAGE -
					    1) /
					   PAGE);
		if (pages < 1 || pages > 16 || pages > avail) {
			g->st.bad_elems++;
			nvl_fw_log(g, LOG_RM, "cmdq element of %u pages",
				   pages);
			g->cmdq_rptr = wptr;
			region_wr32(g, rx_hdr, wptr);
			continue;
		}
		if (seq != g->rx_seq) {
			/* what GSP-RM does: it waits for the element it
			 * expects, forever */
			nvl_fw_log(g, LOG_RM,
				   "cmdq seqNum %u, expected %u: stalled", seq,
				   g->rx_seq);
			pthread_mutex_lock(&g->lock);
			g->state = NVL_MODEL_GSP_STALLED;
			pthread_mutex_unlock(&g->lock);
			return -1;
		}
		g->rx_seq++;
		fits = r->length >= RPC_HDR && r->length <= pages * PAGE - hdr;
		plen = fits ? r->length - RPC_HDR : 0;
		cont = r->function == NV_VGPU_MSG_FUNCTION_CONTINUATION_RECORD;
		/* where the payload goes: in place in the message being
		 * assembled, staged while an earlier one is unfinished (it
		 * may be rejected), or nowhere (a stray continuation) */
		if (cont)
			dst = rx->active && rx->len + plen <= rx->total
				      ? g->msg + rx->len
				      : NULL;
		else
			dst = rx->active ? g->rx_elem + head : g->msg;
		if (!dst) /* not kept, but read as any other */
			dst = g->rx_elem + head;
		if (fits)
			recv_payload(g, rptr, pages, plen, dst, &q);
		/* read: the slots are the driver's again */
		g->cmdq_rptr = (rptr + pages) % CNT;
		region_wr32(g, rx_hdr, g->cmdq_rptr);
		if (!fits || fold(q.x) ||
		    r->signature != NV_VGPU_MSG_SIGNATURE_VALID ||
		    r->header_version != NV_VGPU_MSG_HEADER_VERSION) {
			g->st.bad_elems++;
			nvl_fw_log(g, LOG_RM, "cmdq element seq %u rejected",
				   seq);
			continue;
		}
		if (cont) {
			if (!rx->active || rx->len + plen > rx->total) {
				g->st.bad_elems++;
				nvl_fw_log(g, LOG_RM, "stray continuation");
				rx->active = false;
				continue;
			}
			/* already in place */
			rx->len += plen;
		} else {
			if (rx->active) {
				g->st.bad_elems++;
				nvl_fw_log(g, LOG_RM, "message %u cut short",
					   rx->function);
				memcpy(g->msg, g->rx_elem + head, plen);
			}
			rx->function = r->function;
			rx->seq = r->sequence;
			rx->len = plen;
			rx->total = plen == g->wire->payload_max
					    ? request_total(rx->function,
							    g->msg, plen)
					    : plen;
			if (rx->total > FW_MAX_MSG || rx->total < plen)
				rx->total = plen;
			rx->active = true;
		}
		if (rx->len < rx->total)
			continue;
		rx->active = false;
		if (fns)
			fns[handled] = rx->function;
		handled++;
		dispatch(g, rx->function, rx->seq, g->msg, rx->len);
	}
}

/* serve_batch() with the replies' interrupts raised once, at its end */
static int serve_cmdq(struct nvl_model_gsp *g, struct fw_rx *rx, unsigned only,
		      uint32_t *fns)
{
	int n;

	g->irq_defer = true;
	n = serve_batch(g, rx, only, fns);
	g->irq_defer = false;
	flush_irq(g);
	return n;
}

/* ---- booter ----------------------------------------------------------- */

#if __has_include("model/gsp/booter_sig.h")
#include "model/gsp/booter_sig.h"
#define BOOTER_KEY 1
#else
#define BOOTER_KEY 0
#endif

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

/*
 * Back the model's VRAM at @p for @n bytes before the booter writes it:
 * one call for the piece's 4 KiB pages instead of one fault each (advice
 * only: on failure the copy faults them in).
 */
static void booter_populate(uint8_t *p, size_t n)
{
	uintptr_t a = NVL_ALIGN_DOWN((uintptr_t)p, (uintptr_t)PAGE);
	uintptr_t e = NVL_ALIGN_UP((uintptr_t)p + n, (uintptr_t)PAGE);

	(void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);
}

/*
 * Copy @n bytes of .fwimage at DMA address @pa into WPR2 at @dst, in
 * pieces that each go into the signature check (@c, when not NULL) while
 * they are still in the cache: one pass over the image, not a copy and
 * then a second pass to hash it back from memory. Only the first @img
 * bytes are the image's (the last page's padding is copied, not hashed).
 * Each piece of WPR2 is backed just before its copy, so the zeroed
 * pages are still in the cache when the copy overwrites them.
 */
static int booter_copy(struct nvl_model_gsp *g, uint64_t pa, uint8_t *dst,
		       size_t n, size_t img, void *c)
{
	const size_t piece = 64 << 10;

	for (size_t off = 0; off < n; off += piece) {
		size_t k = NVL_MIN(piece, n - off);

		booter_populate(dst + off, k);
		if (nvl_fw_dma(g, pa + off, dst + off, k, false))
			return -EFAULT;
#if BOOTER_KEY
		if (off < img)
			nvl_model_booter_check_update(c, dst + off,
						      NVL_MIN(k, img - off));
#endif
	}
	return 0;
}

static int booter_verify_default(const void *img, size_t size, const void *sig,
				 size_t sig_size);

/* the signature check's verdict: the fed check's, else the whole copy's */
static int booter_check_end(void *check, nvl_model_booter_verify_fn verify,
			    const uint8_t *img, size_t size, const void *sig,
			    size_t sig_size)
{
#if BOOTER_KEY
	if (check)
		return nvl_model_booter_check_end(check, size, sig, sig_size);
#endif
	return (verify ? verify : booter_verify_default)(img, size, sig,
							 sig_size);
}

static uint32_t booter_load(struct nvl_model_gsp *g, uint64_t meta_pa)
{
	struct nvl_model *m = g->m;
	GspFwWprMeta meta;
	uint64_t l0, *l1 = NULL, *l2 = NULL;
	uint8_t *img, *sig = NULL;
	uint32_t ret = NVL_HW_BOOTER_ERR_DMA;
	size_t npages, run = 0;
	uint64_t run_pa = 0;
	nvl_model_booter_verify_fn verify = g->verify;
	void *check = NULL; /* the fused check, fed while copying */
	int bad;
	char version[sizeof(((struct nvl_fw_manifest *)0)->version) + 1] = {0};

	if (nvl_fw_dma(g, meta_pa, &meta, sizeof(meta), false))
		return NVL_HW_BOOTER_ERR_DMA;
	/* a GspFwSRMeta: resume from a save area (sr.c) */
	if (meta.magic == GSP_FW_SR_META_MAGIC)
		return nvl_fw_booter_sr_restore(g, meta_pa);
	if (meta.magic != GSP_FW_WPR_META_MAGIC ||
	    meta.revision != GSP_FW_WPR_META_REVISION)
		return NVL_HW_BOOTER_ERR_META;
	if (meta.fbSize != m->vram_size || meta.gspFwWprEnd > meta.fbSize ||
	    meta.gspFwWprStart >= meta.gspFwWprEnd ||
	    meta.gspFwOffset < meta.gspFwWprStart ||
	    meta.gspFwOffset + meta.sizeOfRadix3Elf > meta.gspFwWprEnd ||
	    !meta.sizeOfRadix3Elf || meta.sizeOfRadix3Elf > (1ull << 30) ||
	    meta.sizeOfSignature > 0x10000)
		return NVL_HW_BOOTER_ERR_META;
	npages = (size_t)((meta.sizeOfRadix3Elf + PAGE - 1) / PAGE);
	/* the image goes straight into WPR2 and is verified there */
	/*
	 * The model's VRAM is lazily backed host memory, in 4 KiB pages. 2
	 * MiB pages (MADV_HUGEPAGE) made the first touch ~3x cheaper when
	 * the kernel had a recently used 2 MiB block free, and 10-30x
	 * dearer when it had only blocks it had handed back to the
	 * hypervisor (free page reporting in a VM): the host then faults
	 * each one in anew. 4 KiB pages come from recently used memory: a
	 * steady cost (docs/gsp.md, boot_time).
	 */
	img = nvl_model_phys_ptr(m, meta.gspFwOffset, npages * PAGE);
	sig = nvl_malloc(meta.sizeOfSignature ? meta.sizeOfSignature : 1);
	l1 = nvl_malloc(PAGE);
	l2 = nvl_malloc(PAGE);
	if (!img || !sig || !l1 || !l2)
		goto out;
#if BOOTER_KEY
	/* no check to feed (out of memory): verify the copy whole below */
	if (!verify)
		check = nvl_model_booter_check_begin();
#endif
	/* radix3: level 0 -> level 1 -> level 2 -> image pages; runs of
	 * consecutive DMA pages are read in one go */
	if (nvl_fw_dma(g, meta.sysmemAddrOfRadix3Elf, &l0, 8, false) ||
	    nvl_fw_dma(g, l0, l1, PAGE, false))
		goto out;
	for (size_t i = 0; i < npages; i++) {
		if (i % 512 == 0 &&
		    (i / 512 >= 512 ||
		     nvl_fw_dma(g, l1[i / 512], l2, PAGE, false)))
			goto out;
		if (run && l2[i % 512] == run_pa + run * PAGE) {
			run++;
			continue;
		}
		if (run && booter_copy(g, run_pa, img + (i - run) * PAGE,
				       run * PAGE, run * PAGE, check))
			goto out;
		run_pa = l2[i % 512];
		run = 1;
	}
	/* the check covers sizeOfRadix3Elf bytes, not the page padding */
	if (run &&
	    booter_copy(g, run_pa, img + (npages - run) * PAGE, run * PAGE,
			meta.sizeOfRadix3Elf - (npages - run) * PAGE, check))
		goto out;
	if (nvl_fw_dma(g, meta.sysmemAddrOfSignature, sig, meta.sizeOfSignature,
		       false))
		goto out;
	bad = booter_check_end(check, verify, img, meta.sizeOfRadix3Elf, sig,
			       meta.sizeOfSignature);
	check = NULL; /* ended */
	if (bad) {
		ret = NVL_HW_BOOTER_ERR_SIG;
		goto out;
	}
	/* the manifest names the firmware build: its wire formats */
	if (meta.sizeOfRadix3Elf >= sizeof(struct nvl_fw_manifest)) {
		const struct nvl_fw_manifest *mf = (const void *)img;

		if (mf->magic == NVL_FW_MANIFEST_MAGIC)
			memcpy(version, mf->version, sizeof(version) - 1);
	}
	meta.verified = GSP_FW_WPR_META_VERIFIED;
	if (nvl_fw_dma(g, meta_pa + offsetof(GspFwWprMeta, verified),
		       &meta.verified, 8, true))
		goto out;
	/* WPR2 starts with the booter's copy of the meta */
	if (meta.gspFwWprStart + sizeof(meta) <= meta.gspFwHeapOffset) {
		uint8_t *w =
			nvl_model_phys_ptr(m, meta.gspFwWprStart, sizeof(meta));

		if (w)
			nvl_model_mem_copy(w, &meta, sizeof(meta));
	}
	pthread_mutex_lock(&g->lock);
	g->wpr_start = meta.gspFwWprStart;
	g->wpr_end = meta.gspFwWprEnd;
	g->heap_offset = meta.gspFwHeapOffset;
	g->heap_size = meta.gspFwHeapSize;
	g->sr_restored = false;
	g->wpr2_lo = (uint32_t)((meta.gspFwWprStart >> 12) << 4);
	g->wpr2_hi = (uint32_t)(((meta.gspFwWprEnd - 1) >> 12) << 4) | 1;
	g->verified = true;
	g->wpr_meta_pa = meta_pa;
	/* RM's own memory starts where the FB the driver laid out ends */
	g->rsvd_start = NVL_MIN(meta.nonWprHeapOffset, meta.gspFwWprStart);
	g->wire = nvl_fw_wire_find(version);
	pthread_mutex_unlock(&g->lock);
	ret = NVL_HW_BOOTER_OK;
out:
#if BOOTER_KEY
	if (check) /* not ended: a DMA failed first */
		nvl_model_booter_check_end(check, 0, NULL, 0);
#endif
	nvl_free(sig);
	nvl_free(l1);
	nvl_free(l2);
	return ret;
}

#if BOOTER_KEY
static int booter_verify_default(const void *img, size_t size, const void *sig,
				 size_t sig_size)
{
	return nvl_model_booter_verify(img, size, sig, sig_size);
}
#else
/* no key fused into this build: nothing verifies */
static int booter_verify_default(const void *img, size_t size, const void *sig,
				 size_t sig_size)
{
	return -EKEYREJECTED;
}
#endif

static void run_sec2(struct nvl_model_gsp *g)
{
	uint32_t os, code = NVL_HW_BOOTER_OK;
	uint64_t pa;

	if (take_fault(g, NVL_MODEL_GSP_SLOW_BOOTER)) {
		uint64_t ns = g->fault_arg[NVL_MODEL_GSP_SLOW_BOOTER];
		struct timespec ts = {(time_t)(ns / 1000000000ull),
				      (long)(ns % 1000000000ull)};

		nanosleep(&ts, NULL);
	}
	pthread_mutex_lock(&g->lock);
	os = g->sec2_os;
	pa = g->sec2_mbox[0] | (uint64_t)g->sec2_mbox[1] << 32;
	pthread_mutex_unlock(&g->lock);
	if (os == NVL_HW_SEC2_BOOTER_LOAD) {
		pthread_mutex_lock(&g->lock);
		if (g->wpr2_hi)
			code = NVL_HW_BOOTER_ERR_WPR;
		pthread_mutex_unlock(&g->lock);
		if (!code)
			code = booter_load(g, pa);
	} else if (os == NVL_HW_SEC2_BOOTER_UNLOAD) {
		pthread_mutex_lock(&g->lock);
		if (g->gsp_riscv & NVL_HW_RISCV_CPUCTL_ACTIVE_STAT)
			code = NVL_HW_BOOTER_ERR_WPR; /* GSP still running */
		pthread_mutex_unlock(&g->lock);
		/* after a level-3 unload with an SR meta: save WPR2 first */
		if (!code && g->sr_saved && g->wpr2_hi)
			code = nvl_fw_booter_sr_save(g, pa);
		pthread_mutex_lock(&g->lock);
		if (!code) {
			g->wpr2_lo = g->wpr2_hi = 0;
			g->verified = false;
			g->state = NVL_MODEL_GSP_OFF;
			g->sr_saved = false;
		}
		pthread_mutex_unlock(&g->lock);
	} else {
		code = NVL_HW_BOOTER_ERR_META;
	}
	pthread_mutex_lock(&g->lock);
	g->sec2_mbox[0] = code;
	g->sec2_cpuctl |= NVL_HW_FALCON_CPUCTL_HALTED;
	g->sec2_irqstat |= NVL_HW_FALCON_IRQSTAT_HALT;
	if (os == NVL_HW_SEC2_BOOTER_LOAD && code == NVL_HW_BOOTER_OK)
		g->state = NVL_MODEL_GSP_BOOTING;
	nvl_fw_kick(g);
	pthread_mutex_unlock(&g->lock);
}

/* ---- LIBOS and RM init -------------------------------------------- */

static int libos_start(struct nvl_model_gsp *g)
{
	LibosMemoryRegionInitArgument
		args[PAGE / sizeof(LibosMemoryRegionInitArgument)];
	uint8_t rmbuf[256]; /* GSP_ARGUMENTS_CACHED of the booted version */
	struct nvl_fw_rmargs qa, *q = &qa;
	uint64_t pa, rmargs = 0;
	msgqTxHeader h;

	pthread_mutex_lock(&g->lock);
	pa = g->gsp_mbox[0] | (uint64_t)g->gsp_mbox[1] << 32;
	pthread_mutex_unlock(&g->lock);
	memset(g->logs, 0, sizeof(g->logs));
	if (nvl_fw_dma(g, pa, args, sizeof(args), false))
		return -EFAULT;
	for (size_t i = 0; i < NVL_ARRAY_SIZE(args) && args[i].id8; i++) {
		int ring = args[i].id8 == id8("LOGINIT") ? LOG_INIT
			   : args[i].id8 == id8("LOGRM") ? LOG_RM
							 : -1;

		if (args[i].id8 == id8("RMARGS"))
			rmargs = args[i].pa;
		if (ring < 0 || args[i].size != LIBOS_LOG_RING_SIZE)
			continue;
		struct fw_log *l = &g->logs[ring];

		if (!nvl_fw_dma(g, args[i].pa + 8, l->pte, sizeof(l->pte),
				false)) {
			l->put = 0;
			l->ok = !nvl_fw_dma(g, l->pte[0], &l->put, 8, true);
		}
	}
	nvl_fw_log(g, LOG_INIT, "LIBOS: GSP-RM %s starting",
		   NVL_FW_ABI_VERSION);
	if (!rmargs ||
	    nvl_fw_dma(g, rmargs, rmbuf, g->wire->rmargs_size, false)) {
		nvl_fw_log(g, LOG_INIT, "LIBOS: no RMARGS region");
		return -EINVAL;
	}
	g->wire->rmargs(rmbuf, &qa);
	g->sr_resume_args = q->sr_in_pm_transition && q->sr_old_level == 3;

	if (!q->pte_count || q->pte_count > FW_MAX_PTES || q->cmdq_off % PAGE ||
	    q->statq_off % PAGE ||
	    q->cmdq_off + GSP_QUEUE_SIZE > (uint64_t)q->pte_count * PAGE ||
	    q->statq_off + GSP_QUEUE_SIZE > (uint64_t)q->pte_count * PAGE) {
		nvl_fw_log(g, LOG_INIT, "RM: message queue arguments invalid");
		return -EINVAL;
	}
	g->npte = q->pte_count;
	for (unsigned i = 0; i < g->npte; i++) {
		uint64_t page = i / (PAGE / 8);
		uint64_t base = page ? g->pte[page] : q->shared_pa;

		if (nvl_fw_dma(g, base + (i % (PAGE / 8)) * 8, &g->pte[i], 8,
			       false))
			return -EFAULT;
	}
	g->cmdq_off = q->cmdq_off;
	g->statq_off = q->statq_off;
	if (region_io(g, g->cmdq_off, &h, sizeof(h), false) ||
	    h.size != GSP_QUEUE_SIZE || h.msgSize != GSP_QUEUE_MSG_SIZE ||
	    h.msgCount != CNT || h.entryOff != GSP_QUEUE_ENTRY_OFF ||
	    h.rxHdrOff != sizeof(msgqTxHeader)) {
		nvl_fw_log(g, LOG_INIT, "RM: command queue header invalid");
		return -EINVAL;
	}
	g->tx_seq = g->rx_seq = 0;
	g->rpc_seq = 0;
	g->statq_wptr = g->cmdq_rptr = g->statq_free = 0;
	/* what the slots hold is not known: the first element written into
	 * each clears its whole padding */
	for (unsigned i = 0; i < CNT; i++)
		g->statq_dirty[i] = PAGE;
	h = (msgqTxHeader){.version = MSGQ_VERSION,
			   .size = GSP_QUEUE_SIZE,
			   .msgSize = GSP_QUEUE_MSG_SIZE,
			   .msgCount = CNT,
			   .writePtr = 0,
			   .flags = MSGQ_FLAGS_SWAP_RX,
			   .rxHdrOff = sizeof(msgqTxHeader),
			   .entryOff = 0};
	region_io(g, g->statq_off, &h, sizeof(h), true);
	region_wr32(g, g->statq_off + sizeof(msgqTxHeader), 0);
	/* entryOff last: the driver waits for it */
	region_wr32(g, g->statq_off + offsetof(msgqTxHeader, entryOff),
		    GSP_QUEUE_ENTRY_OFF);
	pthread_mutex_lock(&g->lock);
	/* a reset of the core while LIBOS started (the driver gave up on
	 * the boot) stopped it: it does not come back as active */
	if (g->state != NVL_MODEL_GSP_BOOTING) {
		pthread_mutex_unlock(&g->lock);
		return -ECANCELED;
	}
	g->gsp_riscv |= NVL_HW_RISCV_CPUCTL_ACTIVE_STAT;
	pthread_mutex_unlock(&g->lock);
	nvl_fw_log(g, LOG_INIT, "LIBOS: queues at %#llx, %u pages",
		   (unsigned long long)q->shared_pa, g->npte);
	return 0;
}

#define SEQ_MAGIC 0x5e9c0de5u

/* the sequencer asks for a few register operations and a core resume */
static uint32_t run_sequencer(struct nvl_model_gsp *g)
{
	NvU32 buf[sizeof(rpc_run_cpu_sequencer_v17_00) / 4 + 32] = {0};
	rpc_run_cpu_sequencer_v17_00 *hdr = (void *)buf;
	NvU32 *cmd = hdr->commandBuffer;
	unsigned n = 0;
	int64_t deadline;
	bool ok;

	cmd[n++] = GSP_SEQ_BUF_OPCODE_REG_WRITE;
	cmd[n++] = NVL_HW_GSP(NVL_HW_FALCON_MAILBOX0);
	cmd[n++] = SEQ_MAGIC & 0xffff0000u;
	cmd[n++] = GSP_SEQ_BUF_OPCODE_REG_MODIFY;
	cmd[n++] = NVL_HW_GSP(NVL_HW_FALCON_MAILBOX0);
	cmd[n++] = 0x0000ffffu;
	cmd[n++] = SEQ_MAGIC & 0x0000ffffu;
	cmd[n++] = GSP_SEQ_BUF_OPCODE_REG_POLL;
	cmd[n++] = NVL_HW_GSP(NVL_HW_FALCON_MAILBOX0);
	cmd[n++] = 0xffffffffu;
	cmd[n++] = SEQ_MAGIC;
	cmd[n++] = 1000; /* timeout, us */
	cmd[n++] = 0;
	cmd[n++] = GSP_SEQ_BUF_OPCODE_DELAY_US;
	cmd[n++] = 5;
	cmd[n++] = GSP_SEQ_BUF_OPCODE_REG_STORE;
	cmd[n++] = NVL_HW_GSP(NVL_HW_FALCON_MAILBOX0);
	cmd[n++] = 0;
	cmd[n++] = GSP_SEQ_BUF_OPCODE_CORE_RESUME;
	hdr->bufferSizeDWord = n;
	hdr->cmdIndex = 0;
	pthread_mutex_lock(&g->lock);
	g->core_resumed = false;
	pthread_mutex_unlock(&g->lock);
	send_msg(g, NV_VGPU_MSG_EVENT_GSP_RUN_CPU_SEQUENCER, 0, NV_OK,
		 (const uint8_t *)buf, sizeof(*hdr) + 4 * n, false);
	deadline = nvl_deadline_after(2 * NVL_NSEC_PER_SEC);
	pthread_mutex_lock(&g->lock);
	while (!g->core_resumed && !g->stop && nvl_time_ns() < deadline) {
		struct timespec ts = nvl_ns_to_timespec(deadline);

		pthread_cond_timedwait(&g->cond, &g->lock, &ts);
	}
	ok = g->core_resumed && g->gsp_mbox[0] == SEQ_MAGIC;
	pthread_mutex_unlock(&g->lock);
	if (!ok) {
		nvl_fw_log(g, LOG_INIT,
			   "sequencer: no core resume (mailbox0 %#x)",
			   g->gsp_mbox[0]);
		return NV_ERR_TIMEOUT;
	}
	g->st.sequencer_runs++;
	return NV_OK;
}

static void rm_init(struct nvl_model_gsp *g)
{
	struct fw_rx rx = rx_state_init();
	uint32_t fns[2] = {0}, result = NV_OK;
	int n;

	nvl_fw_rm_reset(g);
	g->init_error = NV_OK;
	n = serve_cmdq(g, &rx, 2, fns);
	if (n != 2 || fns[0] != NV_VGPU_MSG_FUNCTION_GSP_SET_SYSTEM_INFO ||
	    fns[1] != NV_VGPU_MSG_FUNCTION_SET_REGISTRY) {
		nvl_fw_log(g, LOG_INIT,
			   "RM init: expected SET_SYSTEM_INFO and SET_REGISTRY "
			   "first (got %d messages)",
			   n);
		result = NV_ERR_INVALID_STATE;
	} else if (g->init_error != NV_OK) {
		nvl_fw_log(g, LOG_INIT, "RM init: an init RPC failed (%#x)",
			   g->init_error);
		result = g->init_error;
	}
	/* resume: the RM arguments and the booter must agree */
	if (result == NV_OK && g->sr_resume_args != g->sr_restored) {
		nvl_fw_log(g, LOG_INIT, "RM init: %s",
			   g->sr_restored
				   ? "WPR2 restored but the RM "
				     "arguments ask for a cold boot"
				   : "resume asked but nothing restored");
		result = NV_ERR_INVALID_STATE;
	}
	if (result == NV_OK && g->sr_restored)
		result = nvl_fw_sr_restore_rm(g);
	if (result == NV_OK)
		result = run_sequencer(g);
	pthread_mutex_lock(&g->lock);
	/* reset meanwhile: the core stopped, and says nothing more */
	if (g->state != NVL_MODEL_GSP_BOOTING) {
		pthread_mutex_unlock(&g->lock);
		return;
	}
	g->state =
		result == NV_OK ? NVL_MODEL_GSP_RUNNING : NVL_MODEL_GSP_FAILED;
	pthread_mutex_unlock(&g->lock);
	if (result == NV_OK) {
		g->st.boots++;
		nvl_fw_log(g, LOG_INIT, "RM: init done");
	}
	send_msg(g, NV_VGPU_MSG_EVENT_GSP_INIT_DONE, 0, result, NULL, 0, true);
}

static void send_events(struct nvl_model_gsp *g)
{
	bool sent = false;

	/*
	 * Each event is sent from its slot and taken off the queue once it
	 * went out, in the same round trip of g->lock that looks at the next
	 * one: producers (queue_event(), under g->lock) write only past the
	 * tail, and only the core's holder takes events, so the head slot
	 * stays put while it is read without the lock (no copy of it).
	 */
	for (;;) {
		const struct fw_event *ev;

		/* stored atomically under g->lock: no lock round trip (two
		 * per RPC) while no event waits */
		if (!sent && !__atomic_load_n(&g->ev_count, __ATOMIC_RELAXED))
			return;
		pthread_mutex_lock(&g->lock);
		if (sent) {
			g->ev_head = (g->ev_head + 1) % FW_EVQ;
			__atomic_store_n(&g->ev_count, g->ev_count - 1,
					 __ATOMIC_RELAXED);
			sent = false;
		}
		if (!g->ev_count) {
			pthread_mutex_unlock(&g->lock);
			return;
		}
		ev = &g->evq[g->ev_head];
		pthread_mutex_unlock(&g->lock);
		/* on a raising thread (rc.c): an event that does not fit
		 * waits in the queue for the firmware's thread (the head
		 * stays) */
		if (g->tx_nowait) {
			uint32_t need =
				(uint32_t)((g->wire->elem_hdr + RPC_HDR +
					    ev->len + PAGE - 1) /
					   PAGE);

			if (statq_room(g, need) < need)
				return;
		}
		g->st.events++;
		send_msg(g, ev->function, 0, NV_OK, ev->data, ev->len, false);
		sent = true;
	}
}

/*
 * RM's interrupt service (rc.c) and the events it queued, their messages'
 * interrupt raised once at the end (as after a batch of commands): core
 * held, on the firmware's thread or a raising one.
 */
void nvl_fw_service_intr(struct nvl_model_gsp *g, uint32_t bits)
{
	g->irq_defer = true;
	nvl_fw_rc_service(g, bits);
	send_events(g);
	g->irq_defer = false;
	flush_irq(g);
}

/**
 * nvl_fw_kick() - wake whoever waits on the firmware's state
 * @g: the model's GSP
 *
 * After a change made under @g->lock (called with it held or not): wakes
 * the waiters on @g->cond and the firmware thread, which sleeps on a futex
 * word (fw_sleep_locked()). Woken from pthread_cond_wait(), the thread
 * took @g->lock back marked contended, so its next unlock made a
 * futex-wake system call that woke no one, once per RPC. The sleeper
 * counts itself before it reads the word, the waker bumps the word before
 * it reads the count (both sequentially consistent): a waker that sees no
 * sleeper knows a later sleeper reads the bumped word and does not sleep
 * on it. A broadcast with no waiter on @g->cond makes no system call.
 */
void nvl_fw_kick(struct nvl_model_gsp *g)
{
	pthread_cond_broadcast(&g->cond);
	atomic_store_explicit(&g->fw_kick_ns, nvl_time_ns(),
			      memory_order_relaxed);
	atomic_fetch_add(&g->fw_wake_seq, 1);
	if (atomic_load(&g->fw_sleepers)) {
		/* for the sleeper: where the kick came from (fw_woken()) */
		atomic_store_explicit(&g->fw_kick_cpu, sched_getcpu(),
				      memory_order_relaxed);
		nvl_futex_wake(&g->fw_wake_seq, 1);
	}
}

/* the longest mid-message poll (fw_poll_mid()); the driver writes a
 * 64 KiB element in 5-15 us */
#define FW_MID_POLL_NS 100000

/*
 * Half of a large message is in: the driver is writing the next element
 * (or waits for the room this thread just made) and rings once it is
 * there. Sleeping now costs a wake-up per element, 17 per 1 MiB call, and
 * on a virtual machine with idle CPUs each takes tens of microseconds: the
 * thread watches its wake-up word instead (nvl_poll_word(), the loop of
 * the idle poll), for at most FW_MID_POLL_NS, only while nvl_cpus_free()
 * says no runnable thread waits for a CPU, stopping as soon as a gap
 * between two looks shows that another thread had the CPU. True when the
 * word moved.
 */
static bool fw_poll_mid(struct nvl_model_gsp *g, uint32_t seq)
{
	int64_t t0, end;

	return nvl_cpus_free() &&
	       nvl_poll_word(&g->fw_wake_seq, seq, FW_MID_POLL_NS, NULL, &t0,
			     &end) > 0;
}

/* batches after one of several commands during which the idle thread
 * polls (fw_poll_busy()) */
#define FW_BUSY_BATCHES 8
/* a poll that lost its CPU for longer than this lost it to another
 * program's time slice (the callers hold a CPU for a few microseconds):
 * no such poll until nvl_poll_lost_cpu_until(): 50 times as long, at most 200 ms
 * (an idle virtual CPU's shorter stall for its host stops it briefly) */
#define FW_BUSY_GAP_NS NVL_POLL_LOST_CPU_NS

/*
 * Several callers are at work (a recent batch held more than one command):
 * their next commands come within microseconds of their replies, and on a
 * virtual machine with idle CPUs a sleeping firmware thread parks its CPU,
 * so that the next doorbell pays tens of microseconds to wake it (and the
 * callers woken meanwhile queue on the other CPU). The thread watches its
 * wake-up word instead, for at most NVL_IDLE_POLL_MAX_NS, while its own
 * wake-ups were dear (g->fw_idle.wake_ns: a halted virtual CPU; with busy
 * CPUs a wake-up is cheap and it sleeps as before). nvl_cpus_free() is no
 * gate here: the callers themselves are runnable threads. A gap between two
 * looks (another thread had the CPU) ends the polling until the next batch
 * of several; a poll that lasted over FW_BUSY_GAP_NS with such a gap lost
 * its CPU to another program: none for a while. True when
 * the word moved.
 */
static bool fw_poll_busy(struct nvl_model_gsp *g, uint32_t seq)
{
	int64_t t0, end;
	int r;

	if (!g->fw_busy || g->fw_ncpus < 2 ||
	    g->fw_idle.wake_ns < NVL_IDLE_POLL_WAKE_NS)
		return false;
	if (g->fw_busy_cool_until && nvl_time_ns() < g->fw_busy_cool_until)
		return false;
	r = nvl_poll_word(&g->fw_wake_seq, seq, NVL_IDLE_POLL_MAX_NS, NULL, &t0,
			  &end);
	/* a poll is bounded by NVL_IDLE_POLL_MAX_NS: one that lasted over
	 * FW_BUSY_GAP_NS lost its CPU for that long, whether the word moved
	 * meanwhile or not */
	if (end - t0 > FW_BUSY_GAP_NS)
		g->fw_busy_cool_until = nvl_poll_lost_cpu_until(end, end - t0);
	else if (r < 0)
		g->fw_busy = 0;
	return r > 0;
}

/*
 * After a sleep a kick ended: learn what the wake-up cost (the idle poll's
 * rules) and, when it was dear because it crossed to another CPU of a busy
 * machine, move next to the kicker (nvl_cpu_follow(), as the runlist
 * threads do, model/fifo.c): whoever kicks this thread (a caller's
 * doorbell, a raising thread that found the core taken) then waits for
 * what it does, and on a 2-vCPU VM with both vCPUs busy every hand-off
 * across them costs tens of microseconds against 1-2 on the kicker's,
 * while the kernel keeps a sleeper near the CPU it last ran on.
 */
static void fw_woken(struct nvl_model_gsp *g)
{
	int64_t kick =
		atomic_load_explicit(&g->fw_kick_ns, memory_order_relaxed);
	int64_t now = nvl_time_ns();

	nvl_idle_poll_woken(&g->fw_idle, kick);
	if (kick && now > kick && now - kick < NVL_IDLE_POLL_MAX_NS)
		nvl_cpu_follow(&g->fw_follow,
			       atomic_load_explicit(&g->fw_kick_cpu,
						    memory_order_relaxed),
			       now - kick, false);
}

/*
 * The firmware thread, idle: poll, then sleep until nvl_fw_kick(); g->lock
 * held and dropped (not taken back: the core comes first); wake-ups may be
 * spurious. As the real GSP polls its command queue, the thread watches
 * its wake-up word for a while before it sleeps, but only while waking it
 * is dear and a CPU is free (nvl_idle_poll(), base/idlepoll.h: a sleeping
 * virtual CPU on an idle machine takes tens of microseconds; with busy
 * CPUs a wake-up costs 1-2 us and the poll would only take a CPU others
 * need); what a wake-up cost is measured from the kick's time stamp.
 * @seq: the wake-up word, read before the thread looked for work (the
 * doorbell is rung with no lock: falcon.c)
 * @mid: a message is half-assembled: fw_poll_mid() first.
 */
static void fw_sleep_locked(struct nvl_model_gsp *g, uint32_t seq, bool mid)
{
	long r;

	pthread_mutex_unlock(&g->lock);
	if (mid && fw_poll_mid(g, seq))
		return;
	if (fw_poll_busy(g, seq))
		return;
	if (nvl_idle_poll(&g->fw_idle, &g->fw_wake_seq, seq))
		return;
	atomic_fetch_add(&g->fw_sleepers, 1);
	r = nvl_futex_wait(&g->fw_wake_seq, seq, NVL_TIMEOUT_INFINITE);
	atomic_fetch_sub(&g->fw_sleepers, 1);
	if (r)
		return; /* did not sleep */
	fw_woken(g);
}

static void *fw_thread(void *arg)
{
	struct nvl_model_gsp *g = arg;
	struct fw_rx rx = rx_state_init();
	uint64_t seen = 0, rung;
	uint32_t seq;
	int n;

	pthread_mutex_lock(&g->core);
	pthread_mutex_lock(&g->lock);
	while (!g->stop) {
		/* the wake-up word before the doorbell count: a ring after
		 * the count was read bumps the word after this read, and the
		 * sleep below does not sleep on it (both sequentially
		 * consistent) */
		seq = atomic_load(&g->fw_wake_seq);
		rung = __atomic_load_n(&g->doorbells, __ATOMIC_SEQ_CST);
		if (g->sec2_go) {
			g->sec2_go = false;
			pthread_mutex_unlock(&g->lock);
			run_sec2(g);
			pthread_mutex_lock(&g->lock);
			continue;
		}
		if (g->state == NVL_MODEL_GSP_BOOTING && !g->hang) {
			pthread_mutex_unlock(&g->lock);
			rx = rx_state_init();
			if (libos_start(g)) {
				pthread_mutex_lock(&g->lock);
				if (g->state == NVL_MODEL_GSP_BOOTING)
					g->state = NVL_MODEL_GSP_FAILED;
				continue;
			}
			rm_init(g);
			pthread_mutex_lock(&g->lock);
			continue;
		}
		if (g->state == NVL_MODEL_GSP_RUNNING && !g->hang &&
		    g->intr_pending) {
			uint32_t bits = g->intr_pending;

			g->intr_pending = 0;
			pthread_mutex_unlock(&g->lock);
			nvl_fw_service_intr(g, bits);
			pthread_mutex_lock(&g->lock);
			continue;
		}
		if (g->state == NVL_MODEL_GSP_RUNNING && !g->hang &&
		    (rung != seen || g->ev_count)) {
			seen = rung;
			pthread_mutex_unlock(&g->lock);
			send_events(g);
			n = serve_cmdq(g, &rx, 0, NULL);
			if (n >= 2)
				g->fw_busy = FW_BUSY_BATCHES;
			else if (n == 1 && g->fw_busy)
				g->fw_busy--;
			pthread_mutex_lock(&g->lock);
			continue;
		}
		/* idle: the core is free for a raising thread (rc.c), which
		 * kicks this thread when it finds the core taken; the core is
		 * taken again before anything is looked at (lock order) */
		pthread_mutex_unlock(&g->core);
		fw_sleep_locked(g, seq, rx.active);
		pthread_mutex_lock(&g->core);
		pthread_mutex_lock(&g->lock);
		/* (counted here: the statistics are read with the core) */
		g->st.fw_moves = g->fw_follow.moves;
	}
	pthread_mutex_unlock(&g->lock);
	pthread_mutex_unlock(&g->core);
	return NULL;
}

int nvl_model_gsp_create(struct nvl_model *m)
{
	struct nvl_model_gsp *g = nvl_zalloc(sizeof(*g));
	int ret = -ENOMEM;

	if (!g)
		return -ENOMEM;
	g->m = m;
	m->gsp = g;
	pthread_mutex_init(&g->core, NULL);
	pthread_mutex_init(&g->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&g->cond, &ca);
	pthread_condattr_destroy(&ca);
	g->sec2_cpuctl = NVL_HW_FALCON_CPUCTL_HALTED;
	g->fw_ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	g->wire = nvl_fw_wire_find(NULL);
	/* the booter's suspend/resume HMAC key, fused per chip (sr.c) */
	for (size_t i = 0; i < sizeof(g->sr_key); i++)
		g->sr_key[i] = (uint8_t)(nvl_time_ns() >> (i % 8) ^ i * 131 ^
					 (uintptr_t)g >> (i % 16));
	g->rx_elem = nvl_malloc(GSP_MSG_QUEUE_ELEMENT_SIZE_MAX);
	g->tx_elem = nvl_zalloc(GSP_MSG_QUEUE_ELEMENT_SIZE_MAX);
	/* room for a payload copied in whole words (recv_payload()) */
	g->msg = nvl_malloc(FW_MAX_MSG + 8);
	g->reply = nvl_malloc(FW_MAX_MSG);
	if (!g->rx_elem || !g->tx_elem || !g->msg || !g->reply)
		goto fail;
	ret = nvl_fw_rm_init(g);
	if (ret)
		goto fail;
	ret = nvl_might_alloc(0);
	if (!ret)
		ret = -pthread_create(&g->thread, NULL, fw_thread, g);
	if (ret) {
		nvl_fw_rm_fini(g);
		goto fail;
	}
	/* for perf and /proc/self/task/<tid>/comm (bench/nv/rc_split.c) */
	(void)pthread_setname_np(g->thread, "nvl-gspfw");
	/* RM owns channel errors, MMU faults and the copy engines' stall
	 * interrupts (rc.c) */
	nvl_model_intr_set_fw(m,
			      NVL_HW_INTR_FIFO | NVL_HW_INTR_FAULT |
				      NVL_HW_INTR_FAULT_OVERFLOW |
				      NVL_HW_INTR_CE,
			      nvl_fw_rc_intr, nvl_fw_rc_run, g);
	return 0;
fail:
	nvl_free(g->rx_elem);
	nvl_free(g->tx_elem);
	nvl_free(g->msg);
	nvl_free(g->reply);
	pthread_cond_destroy(&g->cond);
	pthread_mutex_destroy(&g->lock);
	pthread_mutex_destroy(&g->core);
	nvl_free(g);
	m->gsp = NULL;
	return ret < 0 ? -ENOMEM : ret;
}

void nvl_model_gsp_destroy(struct nvl_model *m)
{
	struct nvl_model_gsp *g = m->gsp;

	if (!g)
		return;
	nvl_model_intr_set_fw(m, 0, NULL, NULL, NULL);
	pthread_mutex_lock(&g->lock);
	g->stop = true;
	nvl_fw_kick(g);
	/* a raise the hook took still owes its run, which uses g */
	while (g->runners)
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
	pthread_join(g->thread, NULL);
	nvl_fw_rm_fini(g);
	nvl_free(g->rx_elem);
	nvl_free(g->tx_elem);
	nvl_free(g->msg);
	nvl_free(g->reply);
	pthread_cond_destroy(&g->cond);
	pthread_mutex_destroy(&g->lock);
	pthread_mutex_destroy(&g->core);
	nvl_free(g);
	m->gsp = NULL;
}

void nvl_model_gsp_set_verify(struct nvl_model *m,
			      nvl_model_booter_verify_fn fn)
{
	pthread_mutex_lock(&m->gsp->lock);
	m->gsp->verify = fn;
	pthread_mutex_unlock(&m->gsp->lock);
}

void nvl_model_gsp_inject(struct nvl_model *m, enum nvl_model_gsp_fault f,
			  unsigned count, uint64_t arg)
{
	struct nvl_model_gsp *g = m->gsp;

	if ((unsigned)f >= NVL_MODEL_GSP_FAULT_COUNT)
		return;
	pthread_mutex_lock(&g->lock);
	if (f == NVL_MODEL_GSP_HANG)
		__atomic_store_n(&g->hang, true, __ATOMIC_RELAXED);
	__atomic_store_n(&g->fault_count[f], count, __ATOMIC_RELAXED);
	g->fault_arg[f] = arg;
	nvl_fw_kick(g);
	pthread_mutex_unlock(&g->lock);
}

void nvl_model_gsp_set_reply_hook(struct nvl_model *m,
				  nvl_model_gsp_reply_fn fn, void *arg)
{
	struct nvl_model_gsp *g = m->gsp;

	__atomic_store_n(&g->reply_fn, NULL, __ATOMIC_RELEASE);
	__atomic_store_n(&g->reply_arg, arg, __ATOMIC_RELAXED);
	__atomic_store_n(&g->reply_fn, fn, __ATOMIC_RELEASE);
}

void nvl_model_gsp_clear_faults(struct nvl_model *m)
{
	struct nvl_model_gsp *g = m->gsp;

	pthread_mutex_lock(&g->lock);
	for (unsigned i = 0; i < NVL_MODEL_GSP_FAULT_COUNT; i++)
		__atomic_store_n(&g->fault_count[i], 0, __ATOMIC_RELAXED);
	__atomic_store_n(&g->hang, false, __ATOMIC_RELAXED);
	nvl_fw_kick(g);
	pthread_mutex_unlock(&g->lock);
}

void nvl_model_gsp_get_stats(struct nvl_model *m,
			     struct nvl_model_gsp_stats *out)
{
	struct nvl_model_gsp *g = m->gsp;

	/* the firmware counts with its core held (RPCs, events, RM's
	 * objects), on its thread or a raising one: take the core too */
	pthread_mutex_lock(&g->core);
	pthread_mutex_lock(&g->lock);
	*out = g->st;
	out->state = g->state;
	out->objects = g->nobjs;
	pthread_mutex_unlock(&g->lock);
	pthread_mutex_unlock(&g->core);
}

static int queue_event(struct nvl_model *m, uint32_t function, const void *data,
		       size_t len, bool kick)
{
	struct nvl_model_gsp *g = m->gsp;
	struct fw_event *ev;
	int ret = 0;

	pthread_mutex_lock(&g->lock);
	if (g->ev_count == FW_EVQ || len > sizeof(ev->data)) {
		ret = -ENOSPC;
	} else {
		ev = &g->evq[(g->ev_head + g->ev_count) % FW_EVQ];
		ev->function = function;
		ev->len = (uint32_t)len;
		if (len)
			memcpy(ev->data, data, len);
		__atomic_store_n(&g->ev_count, g->ev_count + 1,
				 __ATOMIC_RELAXED);
		if (kick)
			nvl_fw_kick(g);
	}
	pthread_mutex_unlock(&g->lock);
	return ret;
}

int nvl_model_gsp_event_rc(struct nvl_model *m, uint32_t chid,
			   uint32_t exception)
{
	rpc_rc_triggered_v17_02 rc = {.nv2080EngineType = 0,
				      .chid = chid,
				      .exceptType = exception,
				      .scope = 1};
	uint8_t log[512];
	char text[96];
	size_t n;
	int ret;

	snprintf(text, sizeof(text),
		 "Xid %u: channel %u: robust channel recovery", exception,
		 chid);
	n = m->gsp->wire->os_error_log(exception, 0, chid, text, log);
	ret = queue_event(m, NV_VGPU_MSG_EVENT_OS_ERROR_LOG, log, n, true);
	if (!ret)
		ret = queue_event(m, NV_VGPU_MSG_EVENT_RC_TRIGGERED, &rc,
				  sizeof(rc), true);
	return ret;
}

int nvl_model_gsp_event_mmu_fault(struct nvl_model *m)
{
	return queue_event(m, NV_VGPU_MSG_EVENT_MMU_FAULT_QUEUED, NULL, 0,
			   true);
}

int nvl_model_gsp_event_post(struct nvl_model *m, uint32_t hclient,
			     uint32_t hevent, uint32_t data)
{
	rpc_post_event_v17_00 ev = {.hClient = hclient,
				    .hEvent = hevent,
				    .notifyIndex = 0,
				    .data = data,
				    .status = NV_OK};

	return queue_event(m, NV_VGPU_MSG_EVENT_POST_EVENT, &ev, sizeof(ev),
			   true);
}

int nvl_model_gsp_event_raw(struct nvl_model *m, uint32_t function,
			    const void *data, size_t len)
{
	return queue_event(m, function, data, len, true);
}

int nvl_fw_queue_event(struct nvl_model *m, uint32_t function, const void *data,
		       size_t len)
{
	return queue_event(m, function, data, len, true);
}

int nvl_fw_post_event(struct nvl_model_gsp *g, uint32_t function,
		      const void *data, size_t len)
{
	return queue_event(g->m, function, data, len, false);
}

/* SPDX-License-Identifier: MIT */
/*
 * The driver's GSP client: RPCs, events, RM objects, boot.
 *
 * A struct nvl_gsp owns the message queues of one device. Calls may come
 * from any number of threads; replies are matched to callers by function
 * and RPC sequence; events met while draining the status queue go to a
 * bounded queue served by the client's event thread, so a slow handler
 * never holds up a reply.
 */
#ifndef NVL_GSP_GSP_H
#define NVL_GSP_GSP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "nouvelle/trace.h"

#include "base/compiler.h"
#include "hw/hwif.h"

struct nvl_gsp;

/** enum nvl_gsp_reply - what a caller wants back from one RPC. */
enum nvl_gsp_reply {
	/** @NVL_GSP_REPLY_RECV: wait for the reply and return its payload */
	NVL_GSP_REPLY_RECV = 0,
	/** @NVL_GSP_REPLY_POLL: wait for the reply, keep only its status */
	NVL_GSP_REPLY_POLL,
	/** @NVL_GSP_REPLY_NOWAIT: send only; a reply is discarded */
	NVL_GSP_REPLY_NOWAIT,
	/** @NVL_GSP_REPLY_NOSEQ: send only, with RPC sequence 0 (the
	 * fire-and-forget boot RPCs) */
	NVL_GSP_REPLY_NOSEQ,
};

/** struct nvl_gsp_stats - counters for tests and `nvl` reports. */
struct nvl_gsp_stats {
	/** @bad_msgs: status-queue elements rejected (any reason) */
	uint64_t bad_msgs;
	/** @bad_header, @bad_checksum, @bad_seq, @duplicate, @bad_rpc,
	 * @stray_continuation: the reasons */
	uint64_t bad_header, bad_checksum, bad_seq, duplicate, bad_rpc,
		stray_continuation;
	/** @bad_reply: reply that did not fit the caller's buffer */
	uint64_t bad_reply;
	/** @unclaimed: replies no caller waited for (NOWAIT, late) */
	uint64_t unclaimed;
	/** @events: events dispatched to handlers */
	uint64_t events;
	/** @events_dropped: events lost because the event queue was full */
	uint64_t events_dropped;
	/** @events_unhandled: events with no handler registered */
	uint64_t events_unhandled;
	/** @sent: elements sent; @received: good elements received */
	uint64_t sent, received;
	/** @timeouts: calls that timed out */
	uint64_t timeouts;
	/** @rpcs: calls made */
	uint64_t rpcs;
	/** @yield_waits, @yield_cheap, @yield_shut: waits with several calls
	 * in flight that yielded their CPU before sleeping, and that slept at
	 * once because wake-ups were cheap or a lost CPU shut the yields */
	uint64_t yield_waits, yield_cheap, yield_shut;
	/** @yield_lost, @multi_lost: yields, and spins watching for several
	 * callers, that lost their CPU to another program (each shuts its
	 * kind for a while); @yield_lost_dup: yields that lost it in a stall
	 * another yield counted already; @lost_ns: the time they lost */
	uint64_t yield_lost, multi_lost, yield_lost_dup, lost_ns;
	/** @wake_cost_ns: what waking a sleeping caller costs (average) */
	int64_t wake_cost_ns;
};

/**
 * typedef nvl_gsp_event_fn - an event handler, run on the event thread.
 * @arg: the registration's argument
 * @event: NV_VGPU_MSG_EVENT_*
 * @result: the rpc_result the firmware set (INIT_DONE carries its verdict)
 * @data: payload (valid during the call), @len: its bytes
 */
typedef void (*nvl_gsp_event_fn)(void *arg, uint32_t event, uint32_t result,
				 const void *data, size_t len);

/** Default timeout of a synchronous call. */
#define NVL_GSP_TIMEOUT_NS (2 * 1000000000ll)
/** Events the event queue holds before it drops (and counts) more. */
#define NVL_GSP_EVENT_QUEUE_LEN 256

/**
 * nvl_gsp_create() - set up the client of the GSP of @hw: message queues
 * (allocated and DMA-mapped, not yet running), the event thread and the
 * interrupt handler.
 * Return: 0, -ENOMEM, or a hw error.
 */
int nvl_gsp_create(struct nvl_hw *hw, struct nvl_gsp **gsp_out) NVL_MUST_CHECK;

/**
 * nvl_gsp_set_irq_chain() - call @fn(@arg) from the interrupt handler
 * after the GSP's own work (the device's engines: non-stall, faults).
 * NULL removes it; no call of a removed chain runs after this returns.
 */
void nvl_gsp_set_irq_chain(struct nvl_gsp *gsp, nvl_hw_irq_fn fn, void *arg);

/**
 * nvl_gsp_set_trace() - call @fn(@arg, record) with every RPC sent and
 * every message read (nouvelle/trace.h); NULL stops. Set it before the
 * boot to see the boot's traffic. Off, it costs one load and a branch.
 */
void nvl_gsp_set_trace(struct nvl_gsp *gsp, nvl_trace_fn fn, void *arg);

/**
 * nvl_gsp_trace_print() - pretty-print a traced RPC payload with the
 * generated printer of firmware @fw_version's layout for @function
 * (abigen's gspabi_print_wire), each line prefixed by @indent.
 * Return: 1 printed, 0 no printer for @function, or a negative errno (the
 * version is unknown, or the payload is too short for the layout).
 */
int nvl_gsp_trace_print(const char *fw_version, bool to_gsp, uint32_t function,
			const void *data, size_t len, const char *indent,
			FILE *f);

/** nvl_gsp_destroy() - stop the event thread and free everything. */
void nvl_gsp_destroy(struct nvl_gsp *gsp);

/**
 * nvl_gsp_rpc() - one RPC.
 * @function: NV_VGPU_MSG_FUNCTION_*
 * @req, @req_len: the payload after the RPC header
 * @reply, @reply_cap: where the reply payload goes (RECV); its expected
 *   size: a reply larger than one element is reassembled up to @reply_cap
 * @reply_len: out, bytes of reply (may be NULL)
 * @policy: enum nvl_gsp_reply
 * @timeout_ns: relative; NVL_GSP_TIMEOUT_NS when 0
 * Return: 0, the reply's NV_STATUS as an errno (message names it),
 * -ETIMEDOUT, -ENODEV (the device needs a reset), -EMSGSIZE, -EINVAL.
 */
int nvl_gsp_rpc(struct nvl_gsp *gsp, uint32_t function, const void *req,
		size_t req_len, void *reply, size_t reply_cap,
		size_t *reply_len, enum nvl_gsp_reply policy,
		int64_t timeout_ns);

struct nvl_gsp_async;

/**
 * nvl_gsp_rpc_async() - send an RPC now, collect its reply later with
 * nvl_gsp_async_wait(). @reply must stay valid until then.
 * Return: 0 or a negative errno (nothing sent).
 */
int nvl_gsp_rpc_async(struct nvl_gsp *gsp, uint32_t function, const void *req,
		      size_t req_len, void *reply, size_t reply_cap,
		      struct nvl_gsp_async **async_out);

/**
 * nvl_gsp_async_wait() - wait (bounded) for an async RPC and free it.
 * Return: as nvl_gsp_rpc(); on -ETIMEDOUT the call is abandoned (its late
 * reply is discarded).
 */
int nvl_gsp_async_wait(struct nvl_gsp *gsp, struct nvl_gsp_async *a,
		       size_t *reply_len, int64_t timeout_ns);

/**
 * nvl_gsp_event_register() - call @fn for every @event (one handler per
 * event; NULL removes it). Return: 0 or -EINVAL.
 */
int nvl_gsp_event_register(struct nvl_gsp *gsp, uint32_t event,
			   nvl_gsp_event_fn fn, void *arg);

/**
 * nvl_gsp_event_register_direct() - call @fn for @event where the status
 * queue is read, not on the event thread: in the GSP interrupt handler or
 * on the receive thread (never on a thread waiting for an RPC, never with
 * the receive lock held), one direct handler at a time. For doorbell
 * events whose payload does not matter: @fn gets no payload (NULL, 0) and
 * result 0, and events that arrive before it runs make one call. @fn
 * must be bounded and must not wait for the GSP (no RPC). NULL removes
 * it. Return: 0 or -EINVAL.
 */
int nvl_gsp_event_register_direct(struct nvl_gsp *gsp, uint32_t event,
				  nvl_gsp_event_fn fn, void *arg);

/**
 * nvl_gsp_rx_mark() - how many messages (replies and events) have been
 * read from the status queue so far: after an RPC returns, every event
 * the firmware sent before its reply is below the mark.
 */
uint64_t nvl_gsp_rx_mark(struct nvl_gsp *gsp);

/**
 * nvl_gsp_event_rx() - in a handler on the event thread: the event's
 * place among the messages received (compare with nvl_gsp_rx_mark()).
 */
uint64_t nvl_gsp_event_rx(struct nvl_gsp *gsp);

/**
 * nvl_gsp_event_flush() - wait until every event the firmware raised
 * before this call has been handled (or dropped): a NOP round trip, then
 * the event queue drained and no direct handler running. Return: 0 or -ETIMEDOUT.
 */
int nvl_gsp_event_flush(struct nvl_gsp *gsp, int64_t timeout_ns);

/** nvl_gsp_get_stats() - a snapshot of the counters. */
void nvl_gsp_get_stats(struct nvl_gsp *gsp, struct nvl_gsp_stats *out);

/**
 * typedef nvl_gsp_dead_fn - told once that the GSP was declared dead.
 * Runs on whichever thread found it (an RPC's caller, the receive thread),
 * with no GSP lock held; it must not block on the GSP.
 */
typedef void (*nvl_gsp_dead_fn)(void *arg);

/**
 * nvl_gsp_set_dead_notify() - call @fn(@arg) when the GSP is declared dead
 * (nvl_gsp_mark_dead(), by any path). Set it before the boot.
 */
void nvl_gsp_set_dead_notify(struct nvl_gsp *gsp, nvl_gsp_dead_fn fn,
			     void *arg);

/** nvl_gsp_needs_reset() - true once the GSP was declared hung. */
bool nvl_gsp_needs_reset(struct nvl_gsp *gsp);

/**
 * nvl_gsp_mark_dead() - declare the GSP hung: capture its log rings into
 * nouvelle's log, fail every waiter and later call with -ENODEV.
 */
void nvl_gsp_mark_dead(struct nvl_gsp *gsp, const char *why);

/**
 * nvl_gsp_status_errno() - errno of an NV_STATUS (0 for NV_OK).
 * NOT_READY and TIMEOUT_RETRY are -EBUSY (retry), NO_MEMORY -ENOMEM.
 */
int nvl_gsp_status_errno(uint32_t status);

/** nvl_gsp_status_name() - "NV_ERR_..." for an NV_STATUS ("NV_STATUS_0x..." if unknown, in a static per-thread buffer). */
const char *nvl_gsp_status_name(uint32_t status);

/** nvl_gsp_function_name() - "GSP_RM_CONTROL", ... for messages. */
const char *nvl_gsp_function_name(uint32_t function);

#endif /* NVL_GSP_GSP_H */

/* SPDX-License-Identifier: MIT */
/*
 * DOC: wire trace
 *
 * What crosses the device's wires, handed to a callback the caller gives
 * nvl_device_open() (nvl_device_opts.trace): every RPC the driver sends
 * the GSP and every message (reply, event, continuation) it reads back,
 * and every pushbuffer dword the channels' PBDMA has processed. `nvl
 * trace` records and decodes these. With no callback, the cost is one
 * predictable branch per message and per fetched chunk.
 *
 * The callback runs on the driver's and the device's threads (the GSP
 * receive thread, the runlists' threads, the caller's), concurrently, and
 * must not call back into the device. @data is valid only during the call.
 */
#ifndef NOUVELLE_TRACE_H
#define NOUVELLE_TRACE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** enum nvl_trace_kind - what a record is. */
enum nvl_trace_kind {
	/** @NVL_TRACE_GSP_CMD: an RPC element sent to the GSP */
	NVL_TRACE_GSP_CMD = 1,
	/** @NVL_TRACE_GSP_MSG: a message read from the GSP */
	NVL_TRACE_GSP_MSG = 2,
	/** @NVL_TRACE_PUSH: pushbuffer dwords a channel processed */
	NVL_TRACE_PUSH = 3,
};

/**
 * struct nvl_trace_rec - one record.
 * @kind: what it is
 * @function: GSP: the RPC function or event number (the driver's
 *	numbering, as in NVIDIA's rpc_global_enums.h)
 * @sequence: GSP: the RPC sequence number
 * @result: GSP message: its rpc_result (NV_STATUS)
 * @chid: push: the channel id
 * @va: push: the GPU VA of the first dword
 * @cls: push: the class bound to each subchannel before the first dword
 * @data: GSP: the RPC payload after its header; push: the dwords
 * @len: bytes at @data
 */
struct nvl_trace_rec {
	enum nvl_trace_kind kind;
	uint32_t function, sequence, result;
	uint32_t chid;
	uint64_t va;
	uint32_t cls[8];
	const void *data;
	size_t len;
};

/** nvl_trace_fn - the trace callback: @arg as given, the record @r. */
typedef void (*nvl_trace_fn)(void *arg, const struct nvl_trace_rec *r);

#ifdef __cplusplus
}
#endif

#endif /* NOUVELLE_TRACE_H */

// SPDX-License-Identifier: MIT
/*
 * Fuzz target: arbitrary status-queue contents fed to the driver's
 * receive path. The input is split into a queue header (its first 32
 * bytes, written over msgqTxHeader of the status queue), our read pointer
 * (1 byte; its top bit picks 535.54.03's 8-byte element framing instead of
 * the 48-byte one) and the element slots (the rest). The receive path must not
 * crash or read out of bounds, must count every element it rejects, and
 * every message it accepts must fit an element.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "firmware/abi/535.113.01/gsp.h"
#include "gsp/abi_ver.h"
#include "gsp/msgq.h"
#include "model/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct nvl_model *model;
static struct nvl_gsp_msgq q;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const size_t slots = GSP_QUEUE_SIZE - GSP_QUEUE_ENTRY_OFF;
	struct nvl_gsp_msgq_stats before;
	struct nvl_gsp_msg m;
	uint64_t bad = 0;
	uint32_t rptr;

	if (!model) {
		if (nvl_model_create(nvl_model_profile_find("tiny"), &model) ||
		    nvl_gsp_msgq_init(&q, nvl_model_hw(model)))
			abort();
	}
	if (size < 33)
		return 0;
	nvl_gsp_msgq_reset(&q);
	memcpy(q.mem + q.statq_off, data, 32);
	if (nvl_gsp_msgq_set_abi(&q, nvl_gsp_abi_find(data[32] & 0x80
							      ? "535.54.03"
							      : "535.113.01")))
		abort();
	rptr = data[32] & 0x7f;
	memcpy(q.mem + q.cmdq_off + sizeof(msgqTxHeader), &rptr, 4);
	memcpy(q.mem + q.statq_off + GSP_QUEUE_ENTRY_OFF, data + 33,
	       size - 33 < slots ? size - 33 : slots);
	before = q.stats;
	for (int i = 0; i < 2 * GSP_QUEUE_MSG_COUNT; i++) {
		int ret = nvl_gsp_msgq_recv(&q, &m);

		if (ret == 0 || ret == -EIO)
			break;
		if (ret == -EBADMSG) {
			bad++;
			continue;
		}
		if (ret != 1)
			abort();
		if (m.len > nvl_gsp_msgq_payload_max(&q) || m.data < q.rx_buf ||
		    m.data + m.len > q.rx_buf + 0x10000)
			abort();
	}
	/* every rejection was counted under one reason */
	if (q.stats.bad_header - before.bad_header + q.stats.bad_checksum -
		    before.bad_checksum + q.stats.duplicate - before.duplicate +
		    q.stats.bad_rpc - before.bad_rpc <
	    bad)
		abort();
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * Fuzz `nvl trace --read` (tools/nvl/trace.h): a capture file is untrusted
 * input. The reader either refuses it (-EINVAL with a "trace: NAME..."
 * message, or -ENOMEM) leaving an empty log, or gives records whose kind,
 * length and channel are in range; the decoder then prints every record
 * (GSP payloads through the generated printers of the firmware version the
 * capture names, pushbuffers method by method) without crashing, once
 * with every filter open and raw dwords, once filtered.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "../../tools/nvl/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nvl_trace_filter all = {
		.client = -1, .channel = -1, .raw = true};
	struct nvl_trace_filter some = {.no_gsp = (size & 1) != 0,
					.client = 1,
					.channel = -1,
					.rpc = "ALLOC,CONTROL"};
	struct nvl_trace_stats st;
	struct nvl_trace_log l;
	FILE *f;
	int ret;

	if (!devnull) {
		devnull = fopen("/dev/null", "w");
		/* a large buffer: few write calls for the printers' text */
		if (!devnull || setvbuf(devnull, NULL, _IOFBF, 1 << 20))
			abort();
	}
	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "rb");
	if (!f)
		abort();
	ret = nvl_trace_log_read_stream(&l, f, "fuzz");
	fclose(f);
	if (ret) {
		if ((ret != -EINVAL && ret != -ENOMEM) || l.n || l.items)
			abort();
		if (ret == -EINVAL &&
		    strncmp(nvl_error_msg(), "trace: fuzz", 11))
			abort();
		return 0;
	}
	if (memchr(l.chip, 0, sizeof(l.chip)) == NULL ||
	    memchr(l.fw, 0, sizeof(l.fw)) == NULL || l.n > l.cap)
		abort();
	for (size_t i = 0; i < l.n; i++) {
		const struct nvl_trace_item *it = &l.items[i];

		if ((it->kind < NVL_TRACE_GSP_CMD ||
		     it->kind > NVL_TRACE_PUSH) &&
		    it->kind != NVL_TRACE_TOOL_CHANNEL)
			abort();
		if ((it->len != 0) != (it->data != NULL))
			abort();
		if (it->kind == NVL_TRACE_PUSH && (!it->len || it->len % 4))
			abort();
	}
	nvl_trace_decode(&l, &all, devnull, &st);
	if (st.gsp_unnamed > st.gsp || st.gsp_printed > st.gsp ||
	    st.methods_unnamed > st.methods)
		abort();
	nvl_trace_summary(devnull, &st);
	nvl_trace_decode(&l, &some, devnull, &st);
	nvl_trace_log_free(&l);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * DOC: GSP wire trace
 *
 * The capture hook of the message queues and its decoder. rpc.c hands
 * every RPC it sent and every message it read to the tracer set with
 * nvl_gsp_set_trace() (when one is set: a single acquire load and branch
 * otherwise). nvl_gsp_trace_print() decodes a traced payload with the
 * pretty-printers abigen generated for the firmware version that sent it
 * (issue 14): the RPC's struct is picked by its function or event number.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gsp/abi_ver.h"
#include "gspabi.h"
#include "gsp/priv.h"

void nvl_gsp_set_trace(struct nvl_gsp *gsp, nvl_trace_fn fn, void *arg)
{
	if (fn)
		gsp->trace_arg = arg;
	atomic_store_explicit(&gsp->trace, fn, memory_order_release);
}

void nvl_gsp_trace_emit(struct nvl_gsp *gsp, nvl_trace_fn fn,
			enum nvl_trace_kind kind, uint32_t function,
			uint32_t sequence, uint32_t result, const void *data,
			size_t len)
{
	struct nvl_trace_rec r = {
		.kind = kind,
		.function = function,
		.sequence = sequence,
		.result = result,
		.data = data,
		.len = len,
	};

	fn(gsp->trace_arg, &r);
}

/* the RPC and event structs of the want list (firmware/abi/want.txt) */
static const struct {
	uint32_t function;
	int cmd; /* 1: only what the driver sends, 0: only replies, -1 both */
	enum gspabi_struct_id id;
} printers[] = {
	{GSPABI_K_FUNCTION_GSP_SET_SYSTEM_INFO, 1, GSPABI_S_SYSINFO},
	{GSPABI_K_FUNCTION_GET_GSP_STATIC_INFO, 0, GSPABI_S_STATIC_INFO},
	{GSPABI_K_FUNCTION_GSP_RM_ALLOC, -1, GSPABI_S_RM_ALLOC},
	{GSPABI_K_FUNCTION_GSP_RM_CONTROL, -1, GSPABI_S_RM_CONTROL},
	{GSPABI_K_FUNCTION_FREE, -1, GSPABI_S_RM_FREE},
	{GSPABI_K_FUNCTION_UNLOADING_GUEST_DRIVER, 1, GSPABI_S_UNLOADING},
	{GSPABI_K_EVENT_GSP_RUN_CPU_SEQUENCER, 0, GSPABI_S_RUN_CPU_SEQ},
	{GSPABI_K_EVENT_OS_ERROR_LOG, 0, GSPABI_S_OS_ERROR_LOG},
	{GSPABI_K_EVENT_RC_TRIGGERED, 0, GSPABI_S_RC_TRIGGERED},
	{GSPABI_K_EVENT_POST_EVENT, 0, GSPABI_S_POST_EVENT},
};

int nvl_gsp_trace_print(const char *fw_version, bool to_gsp, uint32_t function,
			const void *data, size_t len, const char *indent,
			FILE *f)
{
	const struct gspabi_version *v = nvl_gsp_abi_find(fw_version);
	char *buf = NULL;
	size_t blen = 0;
	FILE *m;
	int ret = 0;

	if (!v)
		return -ENOENT;
	for (size_t i = 0; i < sizeof(printers) / sizeof(printers[0]); i++) {
		if (printers[i].function != function ||
		    (printers[i].cmd >= 0 && printers[i].cmd != to_gsp))
			continue;
		/* print into memory first, to indent each line */
		m = open_memstream(&buf, &blen);
		if (!m)
			return -ENOMEM;
		ret = gspabi_print_wire(v, printers[i].id, data, len, m);
		fclose(m);
		if (!ret) {
			for (char *l = buf, *nl; l && *l; l = nl) {
				nl = strchr(l, '\n');
				if (nl)
					*nl++ = 0;
				fprintf(f, "%s%s\n", indent, l);
			}
			ret = 1;
		}
		free(buf);
		return ret;
	}
	return 0;
}

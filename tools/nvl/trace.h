/* SPDX-License-Identifier: MIT */
/*
 * DOC: nvl trace's capture format and decoder
 *
 * A capture is the wire-trace records (nouvelle/trace.h) of one device
 * with timestamps, plus the tool's own channel records (which client and
 * channel handle own a hardware channel id), written by `nvl trace
 * --record FILE` and decoded by `nvl trace --read FILE`. Format (little
 * endian): the 96-byte header "NVLTRACE", u32 version 1, u32 0, chip[16],
 * firmware version[64]; then records of an 80-byte head (u32 kind,
 * function, sequence, result, chid, client, channel, len; u64 t_ns, va;
 * u32 cls[8]) and len bytes of data padded to 4.
 */
#ifndef NVL_TOOL_TRACE_H
#define NVL_TOOL_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <nouvelle/trace.h>

/* the tool's record: a channel of the workload (client, channel, chid) */
#define NVL_TRACE_TOOL_CHANNEL 100

struct nvl_trace_item {
	uint32_t kind, function, sequence, result, chid, client, channel;
	uint64_t t_ns, va;
	uint32_t cls[8];
	uint8_t *data;
	uint32_t len;
};

struct nvl_trace_log {
	char chip[16], fw[64];
	struct nvl_trace_item *items;
	size_t n, cap;
};

/* filters of the decoder (zero: everything) */
struct nvl_trace_filter {
	bool no_gsp, no_push;
	int client, channel; /* -1: any */
	const char *rpc; /* comma-separated names (substrings), or NULL */
	bool raw; /* also print each dword in hex */
};

/* counts the decoder reports (the test checks the unnamed ones are 0) */
struct nvl_trace_stats {
	unsigned long gsp, gsp_unnamed, gsp_printed, push_dwords, methods,
		methods_unnamed;
};

int nvl_trace_log_add(struct nvl_trace_log *l, const struct nvl_trace_item *it,
		      const void *data);
void nvl_trace_log_free(struct nvl_trace_log *l);
/* the capture into @f (@path names it in messages); the caller closes @f,
 * which may still fail (outfile.h) */
int nvl_trace_log_write(const struct nvl_trace_log *l, FILE *f,
			const char *path);
int nvl_trace_log_read(struct nvl_trace_log *l, const char *path);
/* the same from an open stream (@path names it in messages); the fuzz
 * target reads from memory */
int nvl_trace_log_read_stream(struct nvl_trace_log *l, FILE *f,
			      const char *path);
void nvl_trace_decode(const struct nvl_trace_log *l,
		      const struct nvl_trace_filter *flt, FILE *f,
		      struct nvl_trace_stats *st);
/* the closing "# N GSP messages ..." line */
void nvl_trace_summary(FILE *f, const struct nvl_trace_stats *st);

#endif

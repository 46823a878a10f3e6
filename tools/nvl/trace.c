// SPDX-License-Identifier: MIT
/*
 * DOC: nvl trace's capture file and decoder
 *
 * Reads and writes the capture format (trace.h) and decodes a capture:
 * GSP RPCs and messages by name, sequence and status, with their fields
 * printed by abigen's generated printers for the capture's firmware
 * version (src/gsp/trace.c); pushbuffers method by method with the class
 * method table's names and fields (src/hw/methods.c), per channel, like
 * envytools' demmt. A malformed file is an error, never a crash.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "gsp/gsp.h"
#include "hw/mthd.h"
#include "trace.h"

#define HDR_BYTES 96
#define REC_BYTES 80
#define MAX_LEN (64u << 20)
#define MAX_CHID 4096

int nvl_trace_log_add(struct nvl_trace_log *l, const struct nvl_trace_item *it,
		      const void *data)
{
	struct nvl_trace_item *n;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 256;

		n = realloc(l->items, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		l->items = n;
		l->cap = cap;
	}
	n = &l->items[l->n];
	*n = *it;
	n->data = NULL;
	if (it->len) {
		n->data = malloc(it->len);
		if (!n->data)
			return -ENOMEM;
		memcpy(n->data, data, it->len);
	}
	l->n++;
	return 0;
}

void nvl_trace_log_free(struct nvl_trace_log *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->items[i].data);
	free(l->items);
	memset(l, 0, sizeof(*l));
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
	return get32(p) | (uint64_t)get32(p + 4) << 32;
}

int nvl_trace_log_write(const struct nvl_trace_log *l, FILE *f,
			const char *path)
{
	uint8_t h[HDR_BYTES] = "NVLTRACE", r[REC_BYTES];
	static const uint8_t pad[4];
	int ret = 0;

	put32(h + 8, 1);
	memcpy(h + 16, l->chip, sizeof(l->chip));
	memcpy(h + 32, l->fw, sizeof(l->fw));
	if (fwrite(h, sizeof(h), 1, f) != 1)
		ret = -EIO;
	for (size_t i = 0; i < l->n && !ret; i++) {
		const struct nvl_trace_item *it = &l->items[i];

		put32(r, it->kind);
		put32(r + 4, it->function);
		put32(r + 8, it->sequence);
		put32(r + 12, it->result);
		put32(r + 16, it->chid);
		put32(r + 20, it->client);
		put32(r + 24, it->channel);
		put32(r + 28, it->len);
		put64(r + 32, it->t_ns);
		put64(r + 40, it->va);
		for (int k = 0; k < 8; k++)
			put32(r + 48 + 4 * k, it->cls[k]);
		if (fwrite(r, sizeof(r), 1, f) != 1 ||
		    (it->len && fwrite(it->data, it->len, 1, f) != 1) ||
		    (it->len % 4 && fwrite(pad, 4 - it->len % 4, 1, f) != 1))
			ret = -EIO;
	}
	if (ret)
		return nvl_error(ret, "trace: writing %s failed", path);
	return 0;
}

static bool printable(const char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			return false;
	return true;
}

int nvl_trace_log_read(struct nvl_trace_log *l, const char *path)
{
	FILE *f = fopen(path, "rb");
	int ret;

	memset(l, 0, sizeof(*l));
	if (!f)
		return nvl_error(-errno, "trace: cannot read %s: %s", path,
				 strerror(errno));
	ret = nvl_trace_log_read_stream(l, f, path);
	fclose(f);
	return ret;
}

int nvl_trace_log_read_stream(struct nvl_trace_log *l, FILE *f,
			      const char *path)
{
	uint8_t h[HDR_BYTES], r[REC_BYTES];
	uint8_t *buf = NULL;
	size_t rec = 0;
	int ret = 0;

	memset(l, 0, sizeof(*l));
	if (fread(h, sizeof(h), 1, f) != 1 && ferror(f)) {
		/* a directory opens but does not read: not a bad capture */
		ret = nvl_error(errno ? -errno : -EIO,
				"trace: cannot read %s: %s", path,
				strerror(errno ? errno : EIO));
		goto out;
	}
	if (feof(f) || memcmp(h, "NVLTRACE", 8) || get32(h + 8) != 1) {
		ret = nvl_error(-EINVAL,
				"trace: %s is not an nvl trace capture "
				"(version 1)",
				path);
		goto out;
	}
	memcpy(l->chip, h + 16, sizeof(l->chip));
	memcpy(l->fw, h + 32, sizeof(l->fw));
	l->chip[sizeof(l->chip) - 1] = 0;
	l->fw[sizeof(l->fw) - 1] = 0;
	/* the decoder prints them: no escape sequence, no forged line */
	if (!printable(l->chip) || !printable(l->fw)) {
		ret = nvl_error(-EINVAL,
				"trace: %s: the header's chip or firmware "
				"version is not printable text",
				path);
		goto out;
	}
	for (;; rec++) {
		struct nvl_trace_item it;
		size_t got = fread(r, 1, sizeof(r), f);
		uint32_t padded;

		if (!got)
			break;
		if (got != sizeof(r)) {
			ret = nvl_error(-EINVAL,
					"trace: %s: record %zu cut short", path,
					rec);
			goto out;
		}
		memset(&it, 0, sizeof(it));
		it.kind = get32(r);
		it.function = get32(r + 4);
		it.sequence = get32(r + 8);
		it.result = get32(r + 12);
		it.chid = get32(r + 16);
		it.client = get32(r + 20);
		it.channel = get32(r + 24);
		it.len = get32(r + 28);
		it.t_ns = get64(r + 32);
		it.va = get64(r + 40);
		for (int k = 0; k < 8; k++)
			it.cls[k] = get32(r + 48 + 4 * k);
		if ((it.kind < NVL_TRACE_GSP_CMD || it.kind > NVL_TRACE_PUSH) &&
		    it.kind != NVL_TRACE_TOOL_CHANNEL) {
			ret = nvl_error(-EINVAL,
					"trace: %s: record %zu: kind %u", path,
					rec, it.kind);
			goto out;
		}
		if (it.len > MAX_LEN ||
		    (it.kind == NVL_TRACE_PUSH && (it.len % 4 || !it.len)) ||
		    ((it.kind == NVL_TRACE_PUSH ||
		      it.kind == NVL_TRACE_TOOL_CHANNEL) &&
		     it.chid >= MAX_CHID)) {
			ret = nvl_error(-EINVAL,
					"trace: %s: record %zu: length %u or "
					"channel %u out of range",
					path, rec, it.len, it.chid);
			goto out;
		}
		padded = (it.len + 3) & ~3u;
		free(buf);
		buf = padded ? malloc(padded) : NULL;
		if (padded && !buf) {
			ret = nvl_error(-ENOMEM, "trace: out of memory");
			goto out;
		}
		if (padded && fread(buf, padded, 1, f) != 1) {
			ret = nvl_error(-EINVAL,
					"trace: %s: record %zu: data cut short",
					path, rec);
			goto out;
		}
		if (nvl_trace_log_add(l, &it, buf)) {
			ret = nvl_error(-ENOMEM, "trace: out of memory");
			goto out;
		}
	}
out:
	free(buf);
	if (ret)
		nvl_trace_log_free(l);
	return ret;
}

/* the tool's channel records: chid -> client, channel */
struct chan_map {
	int client[MAX_CHID], channel[MAX_CHID];
};

static bool rpc_selected(const char *list, const char *name)
{
	const char *p = list;

	if (!list)
		return true;
	while (*p) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		char want[96];

		if (n && n < sizeof(want)) {
			memcpy(want, p, n);
			want[n] = 0;
			if (strstr(name, want))
				return true;
		}
		if (!e)
			break;
		p = e + 1;
	}
	return false;
}

static void decode_gsp(const struct nvl_trace_log *l,
		       const struct nvl_trace_item *it,
		       const struct nvl_trace_filter *flt, FILE *f,
		       struct nvl_trace_stats *st)
{
	bool cmd = it->kind == NVL_TRACE_GSP_CMD;
	bool event = it->function >= 0x1000;
	const char *name = nvl_gsp_function_name(it->function);

	if (flt->no_gsp || !rpc_selected(flt->rpc, name))
		return;
	st->gsp++;
	if (!strncmp(name, "RPC_", 4))
		st->gsp_unnamed++;
	fprintf(f, "[%12.6f] gsp %s %s%s seq %u", it->t_ns / 1e9,
		cmd ? ">" : "<", event ? "event " : "", name, it->sequence);
	if (!cmd)
		fprintf(f, " status %s", nvl_gsp_status_name(it->result));
	fprintf(f, " (%u bytes)\n", it->len);
	if (nvl_gsp_trace_print(l->fw, cmd, it->function, it->data, it->len,
				"                 ", f) > 0)
		st->gsp_printed++;
}

static void decode_push(const struct nvl_trace_item *it,
			const struct chan_map *cm, struct nvl_hw_pb_dec *dec,
			const struct nvl_trace_filter *flt, FILE *f,
			struct nvl_trace_stats *st)
{
	const uint8_t *d = it->data;
	uint32_t n = it->len / 4;
	int client = cm->client[it->chid], channel = cm->channel[it->chid];
	bool show = !flt->no_push &&
		    (flt->client < 0 || flt->client == client) &&
		    (flt->channel < 0 || flt->channel == channel);

	/* the classes the hardware had bound when these dwords began */
	memcpy(dec->cls, it->cls, sizeof(dec->cls));
	if (show) {
		fprintf(f, "[%12.6f] push chid %u", it->t_ns / 1e9, it->chid);
		if (client >= 0)
			fprintf(f, " (client %d channel %d)", client, channel);
		fprintf(f, " @%#llx %u dwords\n", (unsigned long long)it->va,
			n);
		st->push_dwords += n;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t w = get32(d + 4 * i);
		struct nvl_hw_pb_item pi;
		char fields[256];
		const char *mn, *cn;

		nvl_hw_pb_dec_step(dec, w, &pi);
		if (!show)
			continue;
		if (pi.is_hdr) {
			fprintf(f, "    %08x  %-4s subch %u mthd 0x%03x", w,
				nvl_hw_hdr_kind_name(pi.hdr.kind), pi.hdr.subch,
				pi.hdr.mthd);
			if (pi.hdr.kind == NVL_HW_HDR_IMMD)
				fprintf(f, " data %#x\n", pi.hdr.count);
			else if (pi.hdr.kind == NVL_HW_HDR_INC ||
				 pi.hdr.kind == NVL_HW_HDR_NON_INC ||
				 pi.hdr.kind == NVL_HW_HDR_ONE_INC)
				fprintf(f, " count %u\n", pi.hdr.count);
			else
				fputc('\n', f);
		}
		if (!pi.call)
			continue;
		st->methods++;
		mn = nvl_hw_method_name(pi.cls, pi.mthd);
		cn = pi.mthd < 0x100 ? "HOST" : nvl_hw_class_name(pi.cls);
		if (!mn)
			st->methods_unnamed++;
		nvl_hw_method_fields(pi.cls, pi.mthd, pi.data, fields,
				     sizeof(fields));
		fprintf(f, "    %s %u:%s.%s = %#x%s%s\n",
			pi.is_hdr ? "        " : "  ", pi.subch, cn ? cn : "?",
			mn ? mn : "?", pi.data, fields[0] ? "  " : "", fields);
		if (flt->raw && !pi.is_hdr)
			fprintf(f, "              (%08x)\n", w);
	}
}

void nvl_trace_decode(const struct nvl_trace_log *l,
		      const struct nvl_trace_filter *flt, FILE *f,
		      struct nvl_trace_stats *st)
{
	struct chan_map *cm = malloc(sizeof(*cm));
	struct nvl_hw_pb_dec *dec = calloc(MAX_CHID, sizeof(*dec));

	memset(st, 0, sizeof(*st));
	if (!cm || !dec) {
		fprintf(f, "nvl trace: out of memory\n");
		free(cm);
		free(dec);
		return;
	}
	for (unsigned i = 0; i < MAX_CHID; i++)
		cm->client[i] = cm->channel[i] = -1;
	fprintf(f, "# nvl trace: %s, GSP firmware %s, %zu records\n",
		l->chip[0] ? l->chip : "?", l->fw[0] ? l->fw : "?", l->n);
	for (size_t i = 0; i < l->n; i++) {
		const struct nvl_trace_item *it = &l->items[i];

		switch (it->kind) {
		case NVL_TRACE_TOOL_CHANNEL:
			cm->client[it->chid] = (int)it->client;
			cm->channel[it->chid] = (int)it->channel;
			/* a new channel on this id: fresh decoder state */
			memset(&dec[it->chid], 0, sizeof(dec[0]));
			break;
		case NVL_TRACE_GSP_CMD:
		case NVL_TRACE_GSP_MSG:
			decode_gsp(l, it, flt, f, st);
			break;
		case NVL_TRACE_PUSH:
			decode_push(it, cm, &dec[it->chid], flt, f, st);
			break;
		}
	}
	free(cm);
	free(dec);
}

void nvl_trace_summary(FILE *f, const struct nvl_trace_stats *st)
{
	fprintf(f,
		"# %lu GSP messages (%lu unnamed, %lu with fields), %lu "
		"pushbuffer dwords, %lu methods (%lu unnamed)\n",
		st->gsp, st->gsp_unnamed, st->gsp_printed, st->push_dwords,
		st->methods, st->methods_unnamed);
}

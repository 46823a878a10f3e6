// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the bytes a (possibly faulty) GSP hands the driver, through
 * abigen's generated layer (docs/abigen.md) of every firmware version the
 * build has, into the driver's neutral structs.
 *
 * Input: byte 0 picks the version (modulo gspabi_nversions), byte 1 the
 * message: below GSPABI_S__COUNT a wanted struct (RPC replies, events,
 * control parameters, element headers), above it one of the driver's
 * consumers of such bytes (the RC event decoder, the RM control reply
 * parser, the wire-trace printer, the event-number translation). The rest
 * is the wire image, of any length.
 *
 * Invariants: no crash, no undefined behaviour, nothing read or written out
 * of bounds (every buffer is exactly as long as the layer may touch); a
 * refused unpack or pack returns its errno and changes nothing; any image
 * the layer accepted packs back, and pack(unpack()) is a fixed point; the
 * element accessors stay inside the version's array.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gsp/abi_ver.h"
#include "gsp/fault.h"
#include "gsp/gsp.h"
#include "gsp/priv.h"
#include "gsp/rm.h"
#include "gspabi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* larger than every neutral struct (the largest, the shadow fault
 * buffer's parameters, is about 24 KiB) */
#define NEUTRAL_MAX 65536
#define FILL 0xa5

static _Alignas(64) uint8_t neutral[NEUTRAL_MAX], again[NEUTRAL_MAX];
static FILE *devnull;
static struct nvl_gsp gsp;

enum consumer {
	C_RC_TRIGGERED,
	C_OS_ERROR_LOG,
	C_CONTROL_REPLY,
	C_TRACE,
	C_EVENT_IN,
	C__COUNT
};

static void check_unchanged(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != FILL)
			abort();
}

/* a copy of @n bytes in a buffer of exactly that size (ASan's bounds) */
static uint8_t *dup_exact(const uint8_t *p, size_t n)
{
	uint8_t *d = malloc(n ? n : 1);

	if (!d)
		abort();
	if (n)
		memcpy(d, p, n);
	return d;
}

/* the `elem` arrays of the want list, through their accessors: element
 * @i unpacked, and with @set packed back in place */
#define ELEM_FN(s, f, e)                                                       \
	static int elem_##s##_##f(const struct gspabi_version *v, void *n,     \
				  uint32_t i, int set)                         \
	{                                                                      \
		struct gspabi_##e el;                                          \
		int r = gspabi_##s##_##f##_get(v, n, i, &el);                  \
                                                                               \
		if (r || !set)                                                 \
			return r;                                              \
		return gspabi_##s##_##f##_set(v, n, i, &el);                   \
	}
ELEM_FN(thermal_exec, instructionList, thermal_ins)
ELEM_FN(util_samples, samples, util_sample)
ELEM_FN(clk_info, clkInfoList, clk_domain)
ELEM_FN(multi_control, entries, multi_entry)

static const struct {
	enum gspabi_struct_id id;
	uint32_t (*count)(const struct gspabi_version *v);
	int (*at)(const struct gspabi_version *v, void *n, uint32_t i, int set);
} elems[] = {
	{GSPABI_S_THERMAL_EXEC, gspabi_thermal_exec_instructionList_count,
	 elem_thermal_exec_instructionList},
	{GSPABI_S_UTIL_SAMPLES, gspabi_util_samples_samples_count,
	 elem_util_samples_samples},
	{GSPABI_S_CLK_INFO, gspabi_clk_info_clkInfoList_count,
	 elem_clk_info_clkInfoList},
	{GSPABI_S_MULTI_CONTROL, gspabi_multi_control_entries_count,
	 elem_multi_control_entries},
};

static void one_struct(const struct gspabi_version *v, enum gspabi_struct_id id,
		       const uint8_t *w, size_t len)
{
	const struct gspabi_struct_ops *s = &v->structs[id];
	uint8_t *wire = dup_exact(w, len), *out, *out2;
	int r;

	memset(neutral, FILL, sizeof(neutral));
	r = gspabi_unpack(v, id, wire, len, neutral);
	if (!s->present || len < s->wire_size) {
		/* refused, nothing written */
		if (r != (s->present ? -EINVAL : -ENOENT))
			abort();
		check_unchanged(neutral, sizeof(neutral));
		if (gspabi_print_wire(v, id, wire, len, devnull) != r)
			abort();
		free(wire);
		return;
	}
	if (r || *(uint64_t *)neutral != s->fields)
		abort();
	gspabi_print(id, neutral, devnull);
	if (gspabi_print_wire(v, id, wire, len, devnull))
		abort();

	/* packs back into exactly its size; one byte less is refused and
	 * writes nothing */
	out = malloc(s->wire_size);
	out2 = malloc(s->wire_size);
	if (!out || !out2)
		abort();
	if (s->wire_size) {
		memset(out, FILL, s->wire_size);
		if (gspabi_pack(v, id, neutral, out, s->wire_size - 1) !=
		    -EINVAL)
			abort();
		check_unchanged(out, s->wire_size);
	}
	if (gspabi_pack(v, id, neutral, out, s->wire_size))
		abort();
	memset(again, FILL, sizeof(again));
	if (gspabi_unpack(v, id, out, s->wire_size, again) ||
	    gspabi_pack(v, id, again, out2, s->wire_size) ||
	    memcmp(out, out2, s->wire_size))
		abort();

	/* a field this version lacks in present: refused, nothing written */
	if (~s->fields) {
		uint64_t keep = *(uint64_t *)neutral;

		*(uint64_t *)neutral |= ~s->fields;
		memset(out2, FILL, s->wire_size);
		if (gspabi_pack(v, id, neutral, out2, s->wire_size) !=
		    -EOPNOTSUPP)
			abort();
		check_unchanged(out2, s->wire_size);
		*(uint64_t *)neutral = keep;
	}

	/* arrays of structs: every element of the version's length, and
	 * the first index beyond it refused; set(get()) of every element is
	 * a fixed point from the second round on (the first zeroes the
	 * elements' padding) */
	for (size_t k = 0; k < sizeof(elems) / sizeof(elems[0]); k++) {
		uint32_t n;

		if (elems[k].id != id)
			continue;
		n = elems[k].count(v);
		for (int round = 0; round < 2; round++) {
			for (uint32_t i = 0; i < n; i++)
				if (elems[k].at(v, neutral, i, 1))
					abort();
			if (gspabi_pack(v, id, neutral, round ? out2 : out,
					s->wire_size))
				abort();
		}
		if (memcmp(out, out2, s->wire_size) ||
		    elems[k].at(v, neutral, n, 0) !=
			    (n ? -ERANGE : -EOPNOTSUPP))
			abort();
	}
	free(out);
	free(out2);
	free(wire);
}

static uint32_t ld32(const uint8_t *p, size_t len)
{
	uint32_t x = 0;

	memcpy(&x, p, len < 4 ? len : 4);
	return x;
}

static void one_consumer(const struct gspabi_version *v, enum consumer c,
			 const uint8_t *w, size_t len)
{
	uint8_t *wire = dup_exact(w, len);
	struct nvl_gsp_rc rc;
	int r;

	gsp.abi = v;
	gsp.q.abi = v;
	switch (c) {
	case C_RC_TRIGGERED:
	case C_OS_ERROR_LOG: {
		uint32_t ev = c == C_RC_TRIGGERED ? GSPABI_K_EVENT_RC_TRIGGERED
						  : GSPABI_K_EVENT_OS_ERROR_LOG;
		enum gspabi_struct_id id = c == C_RC_TRIGGERED
						   ? GSPABI_S_RC_TRIGGERED
						   : GSPABI_S_OS_ERROR_LOG;

		r = nvl_gsp_rc_decode(&gsp, ev, wire, len, &rc);
		if (r != (len >= v->structs[id].wire_size ? 0 : -EPROTO) ||
		    memchr(rc.text, 0, sizeof(rc.text)) == NULL)
			abort();
		break;
	}
	case C_CONTROL_REPLY: {
		/* the reply to a control with @psize parameter bytes (two
		 * bytes, then the reply) */
		size_t psize = len < 2 ? 0 : (size_t)w[0] | (size_t)w[1] << 8;
		const uint8_t *reply = len < 2 ? wire : wire + 2;
		size_t rlen = len < 2 ? 0 : len - 2;
		uint8_t *params = malloc(psize ? psize : 1);

		if (!params)
			abort();
		memset(params, FILL, psize);
		r = nvl_gsp_rm_control_parse(&gsp, 0x20800000u, reply, rlen,
					     params, psize);
		if (r)
			check_unchanged(params, psize);
		else if (rlen != v->structs[GSPABI_S_RM_CONTROL].wire_size +
					 psize ||
			 memcmp(params, reply + rlen - psize, psize))
			abort();
		free(params);
		break;
	}
	case C_TRACE:
		/* a traced payload of any function or event, either way */
		if (len < 5)
			break;
		r = nvl_gsp_trace_print(v->tag, w[4] & 1, ld32(w, 4), wire + 5,
					len - 5, "  ", devnull);
		if (r != 0 && r != 1 && r != -ENOENT && r != -EINVAL &&
		    r != -ENOMEM)
			abort();
		break;
	case C_EVENT_IN: {
		const struct gspabi_version *d = nvl_gsp_abi_find(NULL);
		uint32_t in = ld32(w, len), e = nvl_gsp_abi_event_in(v, in);
		uint32_t n1, n2;

		/* the driver's event of the same meaning, or marked foreign:
		 * never the driver's event that has the same number */
		if (v == d ? e != in
			   : e != (in | NVL_GSP_ABI_EVENT_FOREIGN) &&
				     (gspabi_from_wire(v, GSPABI_T_EVENT, in,
						       &n1) ||
				      gspabi_from_wire(d, GSPABI_T_EVENT, e,
						       &n2) ||
				      n1 != n2))
			abort();
		break;
	}
	default:
		break;
	}
	free(wire);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct gspabi_version *v;
	unsigned sel;

	if (!devnull) {
		devnull = fopen("/dev/null", "w");
		/* a large buffer: few write calls for the printers' text */
		if (!devnull || setvbuf(devnull, NULL, _IOFBF, 1 << 20))
			abort();
	}
	if (size < 2)
		return 0;
	v = gspabi_versions[data[0] % gspabi_nversions];
	sel = data[1] % (GSPABI_S__COUNT + C__COUNT);
	if (sel < GSPABI_S__COUNT)
		one_struct(v, (enum gspabi_struct_id)sel, data + 2, size - 2);
	else
		one_consumer(v, (enum consumer)(sel - GSPABI_S__COUNT),
			     data + 2, size - 2);
	return 0;
}

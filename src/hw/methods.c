// SPDX-License-Identifier: MIT
/*
 * DOC: method names and the pushbuffer stream decoder
 *
 * The name, field and value tables expanded from hw/methods.h, the
 * method-header decoder the model's PBDMA uses, and a stream decoder that
 * follows the PBDMA's rules (incrementing, non-incrementing, increment
 * once, immediate; SET_OBJECT binds a subchannel) for nvl trace and the
 * builder's tests.
 */
#include <stdio.h>
#include <string.h>

#include "hw/compute.h"
#include "hw/host.h"
#include "hw/methods.h"
#include "hw/mthd.h"

struct mthd_ent {
	enum nvl_hw_family fam;
	uint32_t mthd, first;
	const char *name;
};

struct field_ent {
	enum nvl_hw_family fam;
	const char *mthd, *name;
	unsigned hi, lo;
};

struct value_ent {
	enum nvl_hw_family fam;
	const char *mthd, *field, *name;
	uint32_t v;
};

struct class_ent {
	enum nvl_hw_family fam;
	const char *name;
	uint32_t cls;
};

#define M_(f, n, off, first) {NVL_HW_FAM_##f, (off), (first), #n},
static const struct mthd_ent mthds[] = {NVL_HW_HOST_METHODS(
	M_) NVL_HW_CE_METHODS(M_) NVL_HW_COMPUTE_METHODS(M_)};
#undef M_
#define F_(f, m, n, hi, lo) {NVL_HW_FAM_##f, #m, #n, (hi), (lo)},
static const struct field_ent fields[] = {NVL_HW_HOST_FIELDS(F_)
						  NVL_HW_CE_FIELDS(F_)};
#undef F_
#define V_(f, m, fld, n, v) {NVL_HW_FAM_##f, #m, #fld, #n, (v)},
static const struct value_ent values[] = {NVL_HW_HOST_VALUES(V_)
						  NVL_HW_CE_VALUES(V_)};
#undef V_
#define C_(f, n, c) {NVL_HW_FAM_##f, #f "_" #n, (c)},
static const struct class_ent classes[] = {NVL_HW_CLASS_LIST(C_)};
#undef C_

#define N(a) (sizeof(a) / sizeof((a)[0]))

void nvl_hw_mthd_hdr_decode(uint32_t d, struct nvl_hw_mthd_hdr *h)
{
	unsigned op = d >> NVL_HW_MTHD_SEC_OP_SHIFT;

	h->count = d >> NVL_HW_MTHD_COUNT_SHIFT & NVL_HW_MTHD_COUNT_MASK;
	h->subch = d >> NVL_HW_MTHD_SUBCH_SHIFT & NVL_HW_MTHD_SUBCH_MASK;
	h->mthd = (d & NVL_HW_MTHD_ADDR_MASK) << 2;
	h->kind = NVL_HW_HDR_INVALID;
	switch (op) {
	case NVL_HW_SEC_OP_GRP0:
		/* 0 is the NOP; TERT_OP 1..3 are subdevice-mask ops */
		if (!d)
			h->kind = NVL_HW_HDR_NOP;
		else if (d >> NVL_HW_TERT_OP_SHIFT & 3)
			h->kind = NVL_HW_HDR_SUBDEV;
		break;
	case NVL_HW_SEC_OP_INC:
	case NVL_HW_SEC_OP_NON_INC:
	case NVL_HW_SEC_OP_ONE_INC:
	case NVL_HW_SEC_OP_IMMD:
		if (d & NVL_HW_MTHD_RESERVED_BIT)
			break;
		/* dev_pbdma NV_PPBDMA_INTR_0_PBENTRY: an incrementing or
		 * increment-once header whose COUNT would take the method
		 * address past the last one (ADDRESS 11:0) is an invalid
		 * PB entry, not a wrap to method 0 (SET_OBJECT) */
		if (h->count > 1 && ((op == NVL_HW_SEC_OP_INC &&
				      h->mthd + 4 * (h->count - 1) >
					      NVL_HW_MTHD_ADDR_MASK << 2) ||
				     (op == NVL_HW_SEC_OP_ONE_INC &&
				      h->mthd == NVL_HW_MTHD_ADDR_MASK << 2)))
			break;
		h->kind = op == NVL_HW_SEC_OP_INC	? NVL_HW_HDR_INC
			  : op == NVL_HW_SEC_OP_NON_INC ? NVL_HW_HDR_NON_INC
			  : op == NVL_HW_SEC_OP_ONE_INC ? NVL_HW_HDR_ONE_INC
							: NVL_HW_HDR_IMMD;
		break;
	case NVL_HW_SEC_OP_END_PB_SEGMENT:
		h->kind = NVL_HW_HDR_END_SEGMENT;
		break;
	default:
		break;
	}
}

const char *nvl_hw_hdr_kind_name(enum nvl_hw_hdr_kind k)
{
	static const char *const n[] = {
		[NVL_HW_HDR_NOP] = "NOP",
		[NVL_HW_HDR_SUBDEV] = "SUBDEV",
		[NVL_HW_HDR_INC] = "INC",
		[NVL_HW_HDR_NON_INC] = "NINC",
		[NVL_HW_HDR_ONE_INC] = "1INC",
		[NVL_HW_HDR_IMMD] = "IMMD",
		[NVL_HW_HDR_END_SEGMENT] = "END_SEGMENT",
		[NVL_HW_HDR_INVALID] = "INVALID",
	};

	return (unsigned)k < N(n) ? n[k] : "INVALID";
}

static void call(struct nvl_hw_pb_dec *s, struct nvl_hw_pb_item *it,
		 uint32_t subch, uint32_t mthd, uint32_t data)
{
	it->call = true;
	it->subch = subch;
	it->mthd = mthd;
	it->data = data;
	if (mthd == NVL_HW_SET_OBJECT)
		s->cls[subch] = data & NVL_HW_SET_OBJECT_CLASS_MASK;
	it->cls = s->cls[subch];
}

void nvl_hw_pb_dec_step(struct nvl_hw_pb_dec *s, uint32_t d,
			struct nvl_hw_pb_item *it)
{
	memset(it, 0, sizeof(*it));
	if (s->left) {
		call(s, it, s->hdr.subch, s->next, d);
		s->left--;
		if (s->hdr.kind == NVL_HW_HDR_INC) {
			s->next += 4;
		} else if (s->hdr.kind == NVL_HW_HDR_ONE_INC) {
			s->next += 4;
			s->hdr.kind = NVL_HW_HDR_NON_INC;
		}
		s->next &= NVL_HW_MTHD_ADDR_MASK << 2;
		return;
	}
	it->is_hdr = true;
	nvl_hw_mthd_hdr_decode(d, &it->hdr);
	switch (it->hdr.kind) {
	case NVL_HW_HDR_INC:
	case NVL_HW_HDR_NON_INC:
	case NVL_HW_HDR_ONE_INC:
		s->hdr = it->hdr;
		s->left = it->hdr.count;
		s->next = it->hdr.mthd;
		break;
	case NVL_HW_HDR_IMMD:
		call(s, it, it->hdr.subch, it->hdr.mthd, it->hdr.count);
		break;
	default:
		break;
	}
}

enum nvl_hw_family nvl_hw_class_family(uint32_t cls)
{
	for (size_t i = 0; i < N(classes); i++)
		if (classes[i].cls == cls)
			return classes[i].fam;
	return NVL_HW_FAM_NONE;
}

const char *nvl_hw_class_name(uint32_t cls)
{
	for (size_t i = 0; i < N(classes); i++)
		if (classes[i].cls == cls)
			return classes[i].name;
	return NULL;
}

static const struct mthd_ent *find(uint32_t cls, uint32_t mthd)
{
	enum nvl_hw_family fam = nvl_hw_class_family(cls);

	/* Host methods reach Host from any subchannel */
	if (mthd < NVL_HW_HOST_METHOD_LIMIT)
		fam = NVL_HW_FAM_HOST;
	for (size_t i = 0; i < N(mthds); i++) {
		const struct mthd_ent *e = &mthds[i];

		if (e->fam != fam || e->mthd != mthd)
			continue;
		/* the first class that has it (a Host method: any class) */
		if (fam != NVL_HW_FAM_HOST && cls < e->first)
			return NULL;
		return e;
	}
	return NULL;
}

const char *nvl_hw_method_name(uint32_t cls, uint32_t mthd)
{
	const struct mthd_ent *e = find(cls, mthd);

	return e ? e->name : NULL;
}

static const char *value_name(const struct mthd_ent *m, const char *field,
			      uint32_t v)
{
	for (size_t i = 0; i < N(values); i++)
		if (values[i].fam == m->fam && values[i].v == v &&
		    !strcmp(values[i].mthd, m->name) &&
		    !strcmp(values[i].field, field))
			return values[i].name;
	return NULL;
}

size_t nvl_hw_method_fields(uint32_t cls, uint32_t mthd, uint32_t data,
			    char *buf, size_t n)
{
	const struct mthd_ent *m = find(cls, mthd);
	bool first = true;
	size_t len = 0;

	if (n)
		buf[0] = 0;
	if (!m)
		return 0;
	for (size_t i = 0; i < N(fields); i++) {
		const struct field_ent *f = &fields[i];
		unsigned w = f->hi - f->lo + 1;
		uint32_t v;
		const char *vn;
		int r;

		if (f->fam != m->fam || strcmp(f->mthd, m->name))
			continue;
		v = (uint32_t)((uint64_t)data >> f->lo &
			       ((w >= 32 ? 0 : 1ull << w) - 1));
		/* zero fields are left out, but for the method's first
		 * (its operation or type: ACQUIRE, NONE) */
		if (!v && !first)
			continue;
		first = false;
		vn = value_name(m, f->name, v);
		if (vn)
			r = snprintf(buf + len, n > len ? n - len : 0,
				     "%s%s=%s", len ? " " : "", f->name, vn);
		else
			r = snprintf(buf + len, n > len ? n - len : 0,
				     "%s%s=%#x", len ? " " : "", f->name, v);
		if (r < 0)
			break;
		len += (size_t)r;
	}
	return len < n ? len : (n ? n - 1 : 0);
}

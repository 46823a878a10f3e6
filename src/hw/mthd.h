/* SPDX-License-Identifier: MIT */
/*
 * Pushbuffer decoding from the class method table (hw/methods.h): method
 * headers, the method stream of a segment, and the names and fields of the
 * methods of each class. Used by the model's PBDMA (headers) and by
 * nvl trace (everything).
 */
#ifndef NVL_HW_MTHD_H
#define NVL_HW_MTHD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum nvl_hw_family {
	NVL_HW_FAM_NONE,
	NVL_HW_FAM_HOST,
	NVL_HW_FAM_CE,
	NVL_HW_FAM_COMPUTE,
};

/* What a header dword is. */
enum nvl_hw_hdr_kind {
	NVL_HW_HDR_NOP, /* the all-zero dword */
	NVL_HW_HDR_SUBDEV, /* SEC_OP 0 with TERT_OP 1..3 (subdevice mask) */
	NVL_HW_HDR_INC, /* incrementing: COUNT data dwords follow */
	NVL_HW_HDR_NON_INC, /* non-incrementing */
	NVL_HW_HDR_ONE_INC, /* increment once */
	NVL_HW_HDR_IMMD, /* immediate: the data is COUNT (13 bits) */
	NVL_HW_HDR_END_SEGMENT, /* END_PB_SEGMENT */
	NVL_HW_HDR_INVALID, /* reserved SEC_OP or bit, or an INC/1INC whose
			     * method addresses would wrap (PBENTRY) */
};

/**
 * struct nvl_hw_mthd_hdr - a decoded method header.
 * @kind: what it is
 * @subch: SUBCHANNEL 15:13
 * @mthd: the method's byte offset (ADDR 11:0 << 2)
 * @count: COUNT 28:16 (the data of an immediate header)
 */
struct nvl_hw_mthd_hdr {
	enum nvl_hw_hdr_kind kind;
	uint32_t subch, mthd, count;
};

/** nvl_hw_mthd_hdr_decode() - decode header dword @d into @h. */
void nvl_hw_mthd_hdr_decode(uint32_t d, struct nvl_hw_mthd_hdr *h);

/** nvl_hw_hdr_kind_name() - "INC", "NON_INC", ... */
const char *nvl_hw_hdr_kind_name(enum nvl_hw_hdr_kind k);

/**
 * struct nvl_hw_pb_dec - a pushbuffer method stream decoder (a segment's
 * data may continue in the next segment, as on the PBDMA). Zero it to
 * start.
 */
struct nvl_hw_pb_dec {
	struct nvl_hw_mthd_hdr hdr; /* the header being served */
	uint32_t left; /* data dwords it still takes */
	uint32_t next; /* the method its next data dword goes to */
	uint32_t cls[8]; /* the class bound to each subchannel */
};

/* One step of the stream. */
struct nvl_hw_pb_item {
	bool is_hdr; /* @hdr is valid: a header dword */
	struct nvl_hw_mthd_hdr hdr;
	/* a method call (for a header: an immediate's, when @call) */
	bool call;
	uint32_t subch, mthd, data, cls;
};

/**
 * nvl_hw_pb_dec_step() - feed dword @d; fills @it with the header and/or
 * the method call it makes. SET_OBJECT binds the subchannel's class.
 */
void nvl_hw_pb_dec_step(struct nvl_hw_pb_dec *s, uint32_t d,
			struct nvl_hw_pb_item *it);

/** nvl_hw_class_family() - the family of class @cls, NONE if unknown. */
enum nvl_hw_family nvl_hw_class_family(uint32_t cls);

/** nvl_hw_class_name() - "CE_TURING", ... or NULL. */
const char *nvl_hw_class_name(uint32_t cls);

/**
 * nvl_hw_method_name() - the name of method @mthd of class @cls (Host
 * methods, below 0x100, on any class; SET_OBJECT as Host's), NULL when
 * the class has no such method.
 */
const char *nvl_hw_method_name(uint32_t cls, uint32_t mthd);

/**
 * nvl_hw_method_fields() - @data of method @mthd of class @cls as
 * "FIELD=VALUE ..." (named values by name; zero fields left out but for
 * the first) into @buf; "" when the method has no field list. Return: the length written (truncated to @n - 1).
 */
size_t nvl_hw_method_fields(uint32_t cls, uint32_t mthd, uint32_t data,
			    char *buf, size_t n);

#endif /* NVL_HW_MTHD_H */

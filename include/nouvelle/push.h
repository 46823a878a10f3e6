/* SPDX-License-Identifier: MIT */
/*
 * DOC: pushbuffer builder
 *
 * Writes method streams for nvl_exec() into memory the caller maps (a
 * CPU-mapped BO): the four method-header formats (incrementing,
 * non-incrementing, increment-once, immediate), and ready helpers for the
 * copy class (linear copy, fill through the remap unit's constant,
 * semaphore release) and the Host class (semaphore release and acquire,
 * the non-stall interrupt, WFI, NOP). The method numbers come from
 * nouvelle/push_methods.h, generated at build time from the driver's one
 * class method table (src/hw/methods.h); the model decodes what this
 * writes with the same table.
 *
 * Errors are sticky: the first failing call (no room: -ENOSPC; a bad
 * argument: -EINVAL or -ERANGE) records a message (nvl_last_error()),
 * writes nothing, and makes every later call a no-op; nvl_push_end()
 * returns it. A failed call never writes a partial method, so the buffer
 * always holds whole methods.
 *
 * Example (a copy then a semaphore release the CPU can poll)::
 *
 *	struct nvl_push p;
 *	nvl_push_init(&p, map, 4096);
 *	nvl_push_ce_set_object(&p, 0, info.ce_class);
 *	nvl_push_ce_copy(&p, 0, dst_va, src_va, size);
 *	nvl_push_host_sem_release(&p, sem_va, 1, 0);
 *	if (nvl_push_end(&p) < 0) ...
 *	push.va = buf_va; push.len = nvl_push_bytes(&p);
 */
#ifndef NOUVELLE_PUSH_H
#define NOUVELLE_PUSH_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "nouvelle/core.h"
#include "nouvelle/push_methods.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Subchannels; Host methods (below 0x100) reach Host on any of them. */
#define NVL_PUSH_SUBCH_COUNT 8
/** The largest COUNT of a header, and the largest immediate datum + 1. */
#define NVL_PUSH_MAX_COUNT 0x1fffu
#define NVL_PUSH_IMMD_LIMIT 0x2000u
/** The largest method byte offset a header can name. */
#define NVL_PUSH_MAX_METHOD 0x3ffcu

/**
 * struct nvl_push - a pushbuffer being written.
 * @start: the first dword
 * @cur: where the next dword goes
 * @end: one past the last dword
 * @err: the first error, 0 while none
 */
struct nvl_push {
	uint32_t *start, *cur, *end;
	int err;
};

/**
 * nvl_push_fail() - record @err on @p (the first error wins) with a
 * message naming @what; used by the inline builders.
 * @p: the pushbuffer
 * @err: a negative errno
 * @what: what failed
 *
 * Return: @p's first error.
 */
NVL_API int nvl_push_fail(struct nvl_push *p, int err, const char *what);

/**
 * nvl_push_init() - start a pushbuffer over @bytes of @map.
 * @p: the builder
 * @map: CPU mapping, 4-byte aligned
 * @bytes: its size
 *
 * Return: 0, or -EINVAL (NULL, misaligned, or not a whole dword) or
 * -E2BIG (more than 4 GiB - 4 bytes: nvl_push_bytes() is 32 bits, and
 * would report a truncated length) and @p's error set so every later
 * call writes nothing.
 */
static inline int nvl_push_init(struct nvl_push *p, void *map, size_t bytes)
{
	if (!p)
		return nvl_push_fail(p, -EINVAL, "NULL builder");
	p->start = p->cur = p->end = (uint32_t *)map;
	p->err = 0;
	if (!map || (uintptr_t)map % 4 || bytes % 4)
		return nvl_push_fail(p, -EINVAL, "buffer misaligned or NULL");
	if (bytes > UINT32_MAX)
		return nvl_push_fail(p, -E2BIG, "buffer over 4 GiB - 4");
	p->end = p->start + bytes / 4;
	return 0;
}

/** nvl_push_dwords() - dwords written so far. */
static inline size_t nvl_push_dwords(const struct nvl_push *p)
{
	return (size_t)(p->cur - p->start);
}

/** nvl_push_bytes() - bytes written so far (nvl_exec_push.len). */
static inline uint32_t nvl_push_bytes(const struct nvl_push *p)
{
	return (uint32_t)(nvl_push_dwords(p) * 4);
}

/** nvl_push_end() - @p's first error, or the dwords written (>= 0). */
static inline long nvl_push_end(const struct nvl_push *p)
{
	return p->err ? p->err : (long)nvl_push_dwords(p);
}

/**
 * nvl_push_space() - reserve @ndw dwords.
 * Return: where to write them, or NULL (@p's error set: -ENOSPC).
 */
static inline uint32_t *nvl_push_space(struct nvl_push *p, size_t ndw)
{
	uint32_t *at = p->cur;

	if (p->err)
		return NULL;
	if ((size_t)(p->end - p->cur) < ndw) {
		nvl_push_fail(p, -ENOSPC, "pushbuffer full");
		return NULL;
	}
	p->cur += ndw;
	return at;
}

/**
 * nvl_push_hdr() - encode a method header (no checks; see nvl_push_mthd).
 * @sec_op: NVL_PUSH_SEC_OP_INC_METHOD, ...
 * @subch: subchannel 0..7
 * @mthd: method byte offset
 * @count: data dwords (the datum of an immediate header)
 */
static inline uint32_t nvl_push_hdr(unsigned sec_op, unsigned subch,
				    uint32_t mthd, uint32_t count)
{
	return (uint32_t)sec_op << 29 | (count & NVL_PUSH_MAX_COUNT) << 16 |
	       (subch & 7u) << 13 | (mthd >> 2 & 0xfffu);
}

/* checks a header's arguments; 0 or @p's error */
static inline int nvl_push_check_(struct nvl_push *p, unsigned subch,
				  uint32_t mthd, uint32_t count)
{
	if (p->err)
		return p->err;
	if (subch >= NVL_PUSH_SUBCH_COUNT || mthd % 4 ||
	    mthd > NVL_PUSH_MAX_METHOD)
		return nvl_push_fail(p, -EINVAL, "bad subchannel or method");
	if (!count || count > NVL_PUSH_MAX_COUNT)
		return nvl_push_fail(p, -ERANGE, "method count not 1..8191");
	return 0;
}

/* a header of @sec_op and its @n data dwords, all or nothing */
static inline int nvl_push_mthd_op_(struct nvl_push *p, unsigned sec_op,
				    unsigned subch, uint32_t mthd,
				    const uint32_t *data, uint32_t n)
{
	uint32_t *w;

	if (nvl_push_check_(p, subch, mthd, n))
		return p->err;
	/* the PBDMA's address wraps to method 0 past the field's end */
	if ((sec_op == NVL_PUSH_SEC_OP_INC_METHOD &&
	     (uint64_t)mthd + 4ull * (n - 1) > NVL_PUSH_MAX_METHOD) ||
	    (sec_op == NVL_PUSH_SEC_OP_ONE_INC && n > 1 &&
	     mthd == NVL_PUSH_MAX_METHOD))
		return nvl_push_fail(p, -ERANGE,
				     "incrementing method past 0x3ffc");
	if (!data)
		return nvl_push_fail(p, -EINVAL, "NULL method data");
	w = nvl_push_space(p, (size_t)n + 1);
	if (!w)
		return p->err;
	w[0] = nvl_push_hdr(sec_op, subch, mthd, n);
	for (uint32_t i = 0; i < n; i++)
		w[1 + i] = data[i];
	return 0;
}

/**
 * nvl_push_mthd() - an incrementing method: @data[i] goes to @mthd + 4 i.
 * @p: the builder
 * @subch: subchannel 0..7
 * @mthd: the first method's byte offset (4-aligned, <= 0x3ffc)
 * @data: @n dwords
 * @n: 1..8191, and @mthd + 4 (@n - 1) <= 0x3ffc: the PBDMA's method
 *     address would wrap to method 0 (SET_OBJECT); -ERANGE
 *
 * Return: 0 or @p's error (nothing written).
 */
static inline int nvl_push_mthd(struct nvl_push *p, unsigned subch,
				uint32_t mthd, const uint32_t *data, uint32_t n)
{
	return nvl_push_mthd_op_(p, NVL_PUSH_SEC_OP_INC_METHOD, subch, mthd,
				 data, n);
}

/**
 * nvl_push_mthd_ninc() - a non-incrementing method: every dword of @data
 * goes to @mthd (arguments as nvl_push_mthd()).
 */
static inline int nvl_push_mthd_ninc(struct nvl_push *p, unsigned subch,
				     uint32_t mthd, const uint32_t *data,
				     uint32_t n)
{
	return nvl_push_mthd_op_(p, NVL_PUSH_SEC_OP_NON_INC_METHOD, subch, mthd,
				 data, n);
}

/**
 * nvl_push_mthd_1inc() - increment once: @data[0] goes to @mthd, the rest
 * to @mthd + 4 (arguments as nvl_push_mthd(); @n > 1 needs @mthd <
 * 0x3ffc).
 */
static inline int nvl_push_mthd_1inc(struct nvl_push *p, unsigned subch,
				     uint32_t mthd, const uint32_t *data,
				     uint32_t n)
{
	return nvl_push_mthd_op_(p, NVL_PUSH_SEC_OP_ONE_INC, subch, mthd, data,
				 n);
}

/**
 * nvl_push_1() - one incrementing method with datum @v.
 * Return: 0 or @p's error.
 */
static inline int nvl_push_1(struct nvl_push *p, unsigned subch, uint32_t mthd,
			     uint32_t v)
{
	return nvl_push_mthd(p, subch, mthd, &v, 1);
}

/**
 * nvl_push_immd() - an immediate method: the datum rides in the header.
 * @p: the builder
 * @subch: subchannel 0..7
 * @mthd: method byte offset
 * @v: the datum, below 8192 (-ERANGE otherwise)
 *
 * Return: 0 or @p's error.
 */
static inline int nvl_push_immd(struct nvl_push *p, unsigned subch,
				uint32_t mthd, uint32_t v)
{
	uint32_t *w;

	if (p->err)
		return p->err;
	if (v >= NVL_PUSH_IMMD_LIMIT)
		return nvl_push_fail(p, -ERANGE, "immediate datum >= 8192");
	if (nvl_push_check_(p, subch, mthd, 1))
		return p->err;
	w = nvl_push_space(p, 1);
	if (!w)
		return p->err;
	*w = nvl_push_hdr(NVL_PUSH_SEC_OP_IMMD_DATA_METHOD, subch, mthd, v);
	return 0;
}

/* ---- the copy class ------------------------------------------------ */

/**
 * nvl_push_ce_set_object() - bind copy class @cls (nvl_device_info's
 * ce_class) to @subch. Return: 0 or @p's error (-EINVAL: @cls does not
 * fit SET_OBJECT NVCLASS 15:0).
 */
static inline int nvl_push_ce_set_object(struct nvl_push *p, unsigned subch,
					 uint32_t cls)
{
	if (p->err)
		return p->err;
	if (cls > 0xffffu)
		return nvl_push_fail(p, -EINVAL, "class past NVCLASS 15:0");
	return nvl_push_1(p, subch, NVL_PUSH_HOST_SET_OBJECT, cls);
}

/* LAUNCH_DMA of a pitch-to-pitch transfer, flushed, non-pipelined */
#define NVL_PUSH_CE_LAUNCH_PITCH_                                              \
	(NVL_PUSH_CE_LAUNCH_DMA_DATA_TRANSFER_TYPE_NON_PIPELINED               \
		 << NVL_PUSH_CE_LAUNCH_DMA_DATA_TRANSFER_TYPE_SHIFT |          \
	 1u << NVL_PUSH_CE_LAUNCH_DMA_FLUSH_ENABLE_SHIFT |                     \
	 NVL_PUSH_CE_LAUNCH_DMA_SRC_MEMORY_LAYOUT_PITCH                        \
		 << NVL_PUSH_CE_LAUNCH_DMA_SRC_MEMORY_LAYOUT_SHIFT |           \
	 NVL_PUSH_CE_LAUNCH_DMA_DST_MEMORY_LAYOUT_PITCH                        \
		 << NVL_PUSH_CE_LAUNCH_DMA_DST_MEMORY_LAYOUT_SHIFT)

/**
 * nvl_push_ce_copy() - copy @bytes from GPU VA @src to @dst (one line,
 * virtual addresses, pitch layouts) on the copy class bound to @subch.
 * @bytes: 1 .. 4 GiB - 1 (-ERANGE otherwise)
 *
 * Return: 0 or @p's error (-EINVAL: @src or @dst not below 2^57,
 * OFFSET_*_UPPER 24:0). 11 dwords.
 */
static inline int nvl_push_ce_copy(struct nvl_push *p, unsigned subch,
				   uint64_t dst, uint64_t src, uint64_t bytes)
{
	uint32_t d[8];

	if (p->err)
		return p->err;
	if (!bytes || bytes > UINT32_MAX)
		return nvl_push_fail(p, -ERANGE, "copy size not 1..4 GiB-1");
	/* OFFSET_*_UPPER 24:0: a wider VA would alias a low one */
	if ((src | dst) >> 57)
		return nvl_push_fail(p, -EINVAL, "copy VA past 2^57");
	if (p->end - p->cur < 11)
		return nvl_push_fail(p, -ENOSPC, "pushbuffer full");
	d[0] = (uint32_t)(src >> 32); /* OFFSET_IN_UPPER */
	d[1] = (uint32_t)src;
	d[2] = (uint32_t)(dst >> 32); /* OFFSET_OUT_UPPER */
	d[3] = (uint32_t)dst;
	d[4] = (uint32_t)bytes; /* PITCH_IN, PITCH_OUT: one line */
	d[5] = (uint32_t)bytes;
	d[6] = (uint32_t)bytes; /* LINE_LENGTH_IN */
	d[7] = 1; /* LINE_COUNT */
	nvl_push_mthd(p, subch, NVL_PUSH_CE_OFFSET_IN_UPPER, d, 8);
	return nvl_push_1(p, subch, NVL_PUSH_CE_LAUNCH_DMA,
			  NVL_PUSH_CE_LAUNCH_PITCH_);
}

/**
 * nvl_push_ce_fill() - fill @bytes at GPU VA @dst with the 32-bit
 * @value, through the remap unit (every destination component is
 * CONST_A, 4-byte components) on the copy class bound to @subch.
 * @bytes: a multiple of 4, 4 .. 16 GiB - 4 (-EINVAL / -ERANGE)
 *
 * Return: 0 or @p's error (-EINVAL: @dst not below 2^57). 12 dwords.
 */
static inline int nvl_push_ce_fill(struct nvl_push *p, unsigned subch,
				   uint64_t dst, uint32_t value, uint64_t bytes)
{
	uint32_t r[3], o[2], l[2];

	if (p->err)
		return p->err;
	if (bytes % 4)
		return nvl_push_fail(p, -EINVAL, "fill size not 4-aligned");
	if (!bytes || bytes / 4 > UINT32_MAX)
		return nvl_push_fail(p, -ERANGE, "fill size out of range");
	if (dst >> 57)
		return nvl_push_fail(p, -EINVAL, "fill VA past 2^57");
	if (p->end - p->cur < 12)
		return nvl_push_fail(p, -ENOSPC, "pushbuffer full");
	r[0] = value; /* SET_REMAP_CONST_A */
	r[1] = 0; /* SET_REMAP_CONST_B */
	r[2] = NVL_PUSH_CE_SET_REMAP_COMPONENTS_DST_X_CONST_A
		       << NVL_PUSH_CE_SET_REMAP_COMPONENTS_DST_X_SHIFT |
	       NVL_PUSH_CE_SET_REMAP_COMPONENTS_COMPONENT_SIZE_FOUR
		       << NVL_PUSH_CE_SET_REMAP_COMPONENTS_COMPONENT_SIZE_SHIFT;
	o[0] = (uint32_t)(dst >> 32);
	o[1] = (uint32_t)dst;
	l[0] = (uint32_t)(bytes / 4); /* LINE_LENGTH_IN: components */
	l[1] = 1;
	nvl_push_mthd(p, subch, NVL_PUSH_CE_SET_REMAP_CONST_A, r, 3);
	nvl_push_mthd(p, subch, NVL_PUSH_CE_OFFSET_OUT_UPPER, o, 2);
	nvl_push_mthd(p, subch, NVL_PUSH_CE_LINE_LENGTH_IN, l, 2);
	return nvl_push_1(
		p, subch, NVL_PUSH_CE_LAUNCH_DMA,
		NVL_PUSH_CE_LAUNCH_PITCH_ |
			1u << NVL_PUSH_CE_LAUNCH_DMA_REMAP_ENABLE_SHIFT);
}

/**
 * nvl_push_ce_sem_release() - the copy engine writes @payload (32 bits)
 * to GPU VA @va after the work before it on @subch (a LAUNCH_DMA with no
 * transfer and a one-word semaphore). For an acquire the copy class has
 * no method: use nvl_push_host_sem_acquire() in the same channel.
 *
 * Return: 0 or @p's error (-EINVAL: @va not 4-aligned or not below
 * 2^57, SET_SEMAPHORE_A's UPPER 24:0). 6 dwords.
 */
static inline int nvl_push_ce_sem_release(struct nvl_push *p, unsigned subch,
					  uint64_t va, uint32_t payload)
{
	uint32_t s[3];

	if (p->err)
		return p->err;
	if (va % 4 || va >> 57)
		return nvl_push_fail(p, -EINVAL,
				     "semaphore VA misaligned or "
				     "past 2^57");
	if (p->end - p->cur < 6)
		return nvl_push_fail(p, -ENOSPC, "pushbuffer full");
	s[0] = (uint32_t)(va >> 32) & NVL_PUSH_CE_SET_SEMAPHORE_A_UPPER_MASK;
	s[1] = (uint32_t)va;
	s[2] = payload;
	nvl_push_mthd(p, subch, NVL_PUSH_CE_SET_SEMAPHORE_A, s, 3);
	return nvl_push_1(
		p, subch, NVL_PUSH_CE_LAUNCH_DMA,
		1u << NVL_PUSH_CE_LAUNCH_DMA_FLUSH_ENABLE_SHIFT |
			NVL_PUSH_CE_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_ONE_WORD_SEMAPHORE
				<< NVL_PUSH_CE_LAUNCH_DMA_SEMAPHORE_TYPE_SHIFT);
}

/* ---- the Host class ------------------------------------------------- */

/** Flags of nvl_push_host_sem_release(). */
#define NVL_PUSH_SEM_64BIT (1u << 0) /* a 64-bit payload */
#define NVL_PUSH_SEM_NO_WFI (1u << 1) /* do not wait for idle first */

/* SEM_ADDR_LO..SEM_EXECUTE in one incrementing method */
static inline int nvl_push_host_sem_(struct nvl_push *p, uint64_t va,
				     uint64_t payload, uint32_t exec,
				     unsigned align)
{
	uint32_t s[5];

	if (p->err)
		return p->err;
	/* SEM_ADDR_HI has 25 bits at most (8 before C86F: see
	 * nvl_push_host_sem_release()) */
	if (va % align || va >> 57)
		return nvl_push_fail(p, -EINVAL,
				     "semaphore VA misaligned or "
				     "past 2^57");
	s[0] = (uint32_t)va; /* SEM_ADDR_LO 31:2 */
	s[1] = (uint32_t)(va >> 32); /* SEM_ADDR_HI */
	s[2] = (uint32_t)payload;
	s[3] = (uint32_t)(payload >> 32);
	s[4] = exec;
	return nvl_push_mthd(p, 0, NVL_PUSH_HOST_SEM_ADDR_LO, s, 5);
}

/**
 * nvl_push_host_sem_release() - Host writes @payload to GPU VA @va once
 * the channel's earlier work is idle (RELEASE_WFI unless
 * %NVL_PUSH_SEM_NO_WFI).
 * @flags: %NVL_PUSH_SEM_64BIT (8-aligned @va), %NVL_PUSH_SEM_NO_WFI;
 *   other bits -EINVAL
 *
 * Without %NVL_PUSH_SEM_64BIT @payload must fit 32 bits (-ERANGE): Host
 * writes PAYLOAD_LO only and would drop the upper half.
 *
 * @va must be below 2^57 (-EINVAL); before Host class C86F (Hopper)
 * SEM_ADDR_HI has only 8 bits, so Host uses @va modulo 2^40 there: the
 * builder does not know the class, the caller keeps semaphores below
 * 2^40 on those chips.
 *
 * Return: 0 or @p's error. 6 dwords.
 */
static inline int nvl_push_host_sem_release(struct nvl_push *p, uint64_t va,
					    uint64_t payload, unsigned flags)
{
	uint32_t e = NVL_PUSH_HOST_SEM_EXECUTE_OPERATION_RELEASE;

	if (p->err)
		return p->err;
	if (flags & ~(NVL_PUSH_SEM_64BIT | NVL_PUSH_SEM_NO_WFI))
		return nvl_push_fail(p, -EINVAL, "unknown semaphore flags");
	if (!(flags & NVL_PUSH_SEM_64BIT) && payload > UINT32_MAX)
		return nvl_push_fail(p, -ERANGE,
				     "payload past 32 bits without "
				     "NVL_PUSH_SEM_64BIT");
	if (!(flags & NVL_PUSH_SEM_NO_WFI))
		e |= 1u << NVL_PUSH_HOST_SEM_EXECUTE_RELEASE_WFI_SHIFT;
	if (flags & NVL_PUSH_SEM_64BIT)
		e |= NVL_PUSH_HOST_SEM_EXECUTE_PAYLOAD_SIZE_64BIT
		     << NVL_PUSH_HOST_SEM_EXECUTE_PAYLOAD_SIZE_SHIFT;
	return nvl_push_host_sem_(p, va, payload, e,
				  flags & NVL_PUSH_SEM_64BIT ? 8 : 4);
}

/** Comparisons of nvl_push_host_sem_acquire() (SEM_EXECUTE OPERATION). */
enum nvl_push_acquire {
	NVL_PUSH_ACQ_EQ = NVL_PUSH_HOST_SEM_EXECUTE_OPERATION_ACQUIRE,
	NVL_PUSH_ACQ_GEQ = NVL_PUSH_HOST_SEM_EXECUTE_OPERATION_ACQ_STRICT_GEQ,
	NVL_PUSH_ACQ_CIRC_GEQ =
		NVL_PUSH_HOST_SEM_EXECUTE_OPERATION_ACQ_CIRC_GEQ,
};

/**
 * nvl_push_host_sem_acquire() - the channel waits until the 32-bit value
 * at GPU VA @va compares to @payload as @op says (yielding its timeslice
 * while it waits: ACQUIRE_SWITCH_TSG).
 *
 * Return: 0 or @p's error (-EINVAL: bad @op or @va). 6 dwords.
 */
static inline int nvl_push_host_sem_acquire(struct nvl_push *p, uint64_t va,
					    uint32_t payload,
					    enum nvl_push_acquire op)
{
	if (p->err)
		return p->err;
	if (op != NVL_PUSH_ACQ_EQ && op != NVL_PUSH_ACQ_GEQ &&
	    op != NVL_PUSH_ACQ_CIRC_GEQ)
		return nvl_push_fail(p, -EINVAL, "bad acquire operation");
	return nvl_push_host_sem_(
		p, va, payload,
		(uint32_t)op |
			1u << NVL_PUSH_HOST_SEM_EXECUTE_ACQUIRE_SWITCH_TSG_SHIFT,
		4);
}

/**
 * nvl_push_host_non_stall_intr() - raise the engine's non-stall
 * interrupt (the driver's fence idiom ends with one). 2 dwords.
 */
static inline int nvl_push_host_non_stall_intr(struct nvl_push *p)
{
	return nvl_push_1(p, 0, NVL_PUSH_HOST_NON_STALL_INTERRUPT, 0);
}

/** nvl_push_host_wfi() - wait until the channel's engine is idle. 1 dword. */
static inline int nvl_push_host_wfi(struct nvl_push *p)
{
	return nvl_push_immd(p, 0, NVL_PUSH_HOST_WFI, 0);
}

/** nvl_push_host_nop() - a Host NOP method. 1 dword. */
static inline int nvl_push_host_nop(struct nvl_push *p)
{
	return nvl_push_immd(p, 0, NVL_PUSH_HOST_NOP, 0);
}

#ifdef __cplusplus
}
#endif

#endif /* NOUVELLE_PUSH_H */

/* SPDX-License-Identifier: MIT */
/*
 * The compute class (TURING_COMPUTE_A 0xC5C0, AMPERE_COMPUTE_A/B
 * 0xC6C0/0xC7C0, ADA_COMPUTE_A 0xC9C0, HOPPER_COMPUTE_A 0xCBC0): the methods
 * a compute client uses to launch grids, and the QMD (queue meta data)
 * layouts that describe one grid. Facts: ../shared/reference/compute-isa.md
 * §4 (open-gpu-doc classes/compute/clc*c0.h and clc*qmd.h); method byte
 * offsets are the same on every class from C5C0 to CBC0.
 */
#ifndef NVL_HW_COMPUTE_H
#define NVL_HW_COMPUTE_H

#include <stdbool.h>
#include <stdint.h>

#define NVL_HW_COMPUTE_CLASS_TURING 0xc5c0u /* TURING_COMPUTE_A */
#define NVL_HW_COMPUTE_CLASS_AMPERE_A 0xc6c0u /* AMPERE_COMPUTE_A */
#define NVL_HW_COMPUTE_CLASS_AMPERE_B 0xc7c0u /* AMPERE_COMPUTE_B */
#define NVL_HW_COMPUTE_CLASS_ADA 0xc9c0u /* ADA_COMPUTE_A */
#define NVL_HW_COMPUTE_CLASS_HOPPER 0xcbc0u /* HOPPER_COMPUTE_A */

/*
 * The runlist of the graphics/compute engine: after the chip's @num_ce
 * copy-engine runlists. NV_CHANNEL_ALLOC_PARAMS.engineType names a
 * runlist in the model's RM (0 .. num_ce - 1: the copy engines), so a
 * compute channel is allocated with engineType = NVL_HW_RUNLIST_COMPUTE().
 */
#define NVL_HW_RUNLIST_COMPUTE(num_ce) (num_ce)

/* ---- methods (byte offsets) ---- */
#define NVL_HW_COMPUTE_SET_OBJECT 0x0000
#define NVL_HW_COMPUTE_NO_OPERATION 0x0100
#define NVL_HW_COMPUTE_INVALIDATE_SHADER_CACHES 0x021c
#define NVL_HW_COMPUTE_INVALIDATE_SKED_CACHES 0x0298
#define NVL_HW_COMPUTE_SET_SHADER_SHARED_MEMORY_WINDOW_A 0x02a0 /* 16:0 */
#define NVL_HW_COMPUTE_SET_SHADER_SHARED_MEMORY_WINDOW_B 0x02a4
/* SEND_PCAS_A: QMD address >> 8 */
#define NVL_HW_COMPUTE_SEND_PCAS_A 0x02b4
#define NVL_HW_COMPUTE_SEND_PCAS_B 0x02b8
/* Turing: SEND_SIGNALING_PCAS_B INVALIDATE bit 0, SCHEDULE bit 1 */
#define NVL_HW_COMPUTE_SEND_SIGNALING_PCAS_B 0x02bc
#define NVL_HW_COMPUTE_PCAS_B_INVALIDATE (1u << 0)
#define NVL_HW_COMPUTE_PCAS_B_SCHEDULE (1u << 1)
/* C6C0+: SEND_SIGNALING_PCAS2_B ACTION 3:0 */
#define NVL_HW_COMPUTE_SEND_SIGNALING_PCAS2_B 0x02c0
#define NVL_HW_COMPUTE_PCAS2_NOP 0x0
#define NVL_HW_COMPUTE_PCAS2_INVALIDATE 0x1
#define NVL_HW_COMPUTE_PCAS2_SCHEDULE 0x2
#define NVL_HW_COMPUTE_PCAS2_INVALIDATE_COPY_SCHEDULE 0x3
#define NVL_HW_COMPUTE_PCAS2_INCREMENT_PUT 0x6
#define NVL_HW_COMPUTE_PCAS2_DECREMENT_DEPENDENCE 0x7
#define NVL_HW_COMPUTE_PCAS2_PREFETCH 0x8
#define NVL_HW_COMPUTE_PCAS2_PREFETCH_SCHEDULE 0x9
#define NVL_HW_COMPUTE_PCAS2_INVALIDATE_PREFETCH_COPY_SCHEDULE 0xa
#define NVL_HW_COMPUTE_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_A 0x02e4
#define NVL_HW_COMPUTE_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_B 0x02e8
#define NVL_HW_COMPUTE_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_C 0x02ec
#define NVL_HW_COMPUTE_SET_SHADER_LOCAL_MEMORY_A 0x0790
#define NVL_HW_COMPUTE_SET_SHADER_LOCAL_MEMORY_B 0x0794
#define NVL_HW_COMPUTE_SET_SHADER_LOCAL_MEMORY_WINDOW_A 0x07b0
#define NVL_HW_COMPUTE_SET_SHADER_LOCAL_MEMORY_WINDOW_B 0x07b4
#define NVL_HW_COMPUTE_INVALIDATE_SHADER_CACHES_NO_WFI 0x1698

/** nvl_hw_compute_has_pcas2() - C6C0 and later have SEND_SIGNALING_PCAS2_B. */
static inline bool nvl_hw_compute_has_pcas2(uint32_t cls)
{
	return cls >= NVL_HW_COMPUTE_CLASS_AMPERE_A;
}

/** nvl_hw_compute_pcas2_schedules() - whether ACTION @a schedules the QMD. */
static inline bool nvl_hw_compute_pcas2_schedules(uint32_t a)
{
	return a == NVL_HW_COMPUTE_PCAS2_SCHEDULE ||
	       a == NVL_HW_COMPUTE_PCAS2_INVALIDATE_COPY_SCHEDULE ||
	       a == NVL_HW_COMPUTE_PCAS2_PREFETCH_SCHEDULE ||
	       a == NVL_HW_COMPUTE_PCAS2_INVALIDATE_PREFETCH_COPY_SCHEDULE;
}

/* ---- QMD layouts: bit positions (lo, width) in the QMD ---- */

/** struct nvl_hw_qmd_field - bits [lo, lo + width) of the QMD. */
struct nvl_hw_qmd_field {
	uint16_t lo, width;
};

/** struct nvl_hw_qmd_layout - the fields of one QMD version we use. */
struct nvl_hw_qmd_layout {
	const char *name;
	uint32_t size_B;
	uint8_t major, minor;
	struct nvl_hw_qmd_field version_minor, version_major;
	struct nvl_hw_qmd_field grid[3], cta[3];
	struct nvl_hw_qmd_field prog_lo, prog_hi;
	struct nvl_hw_qmd_field register_count, barrier_count, shared_B;
	/* constant buffer i: valid bit at cb_valid.lo + cb_valid_stride * i,
	 * address and size fields at + 64 * i; address in bytes >>
	 * cb_addr_shift, size in bytes >> 4 */
	struct nvl_hw_qmd_field cb_valid, cb_addr_lo, cb_addr_hi, cb_size;
	uint16_t cb_valid_stride;
	uint8_t cb_addr_shift;
	struct nvl_hw_qmd_field release_enable, release_addr_lo,
		release_addr_hi, release_payload;
	/* RELEASE0_STRUCTURE_SIZE (NVL_HW_QMD_RELEASE_*), its
	 * REDUCTION_ENABLE / _OP / _FORMAT and PAYLOAD64B (V03_00 on; a
	 * width of 0 reads as 0: the field is absent in that version) */
	struct nvl_hw_qmd_field release_size, release_red_enable,
		release_red_op, release_red_format, release_payload64b;
	/* QMD_TYPE (V04_00 only; width 0 elsewhere) */
	struct nvl_hw_qmd_field qmd_type;
	/* DEPENDENT_QMD0_ENABLE / _ACTION (NVL_HW_QMD_DEP_*) / _POINTER
	 * (the dependent QMD's address >> 8, as SEND_PCAS_A) */
	struct nvl_hw_qmd_field dep_enable, dep_action, dep_pointer;
};

/*
 * RELEASE0_STRUCTURE_SIZE: FOUR_WORDS (0, the field's zero value) writes
 * the payload, a zero word and a 64-bit timestamp (16 bytes); ONE_WORD
 * the 32-bit payload alone; TWO_WORDS (V03_00 on) is not modelled.
 */
#define NVL_HW_QMD_RELEASE_FOUR_WORDS 0u
#define NVL_HW_QMD_RELEASE_ONE_WORD 1u
#define NVL_HW_QMD_RELEASE_TWO_WORDS 2u
/* RELEASE0_REDUCTION_OP: RED_ADD 0, MIN 1, MAX 2, INC 3, DEC 4, AND 5,
 * OR 6, XOR 7; RELEASE0_REDUCTION_FORMAT: UNSIGNED 0, SIGNED 1 */
#define NVL_HW_QMD_RED_ADD 0u
#define NVL_HW_QMD_RED_MIN 1u
#define NVL_HW_QMD_RED_MAX 2u
#define NVL_HW_QMD_RED_INC 3u
#define NVL_HW_QMD_RED_DEC 4u
#define NVL_HW_QMD_RED_AND 5u
#define NVL_HW_QMD_RED_OR 6u
#define NVL_HW_QMD_RED_XOR 7u
#define NVL_HW_QMD_RED_FORMAT_SIGNED 1u
/* V04_00 QMD_TYPE: QUEUE 0, GRID_NULL 1, GRID_CTA 2, the CGA grids 3..5 */
#define NVL_HW_QMD_TYPE_GRID_CTA 2u
/*
 * DEPENDENT_QMD0_ACTION: what completing this grid does to the QMD at
 * DEPENDENT_QMD0_POINTER when DEPENDENT_QMD0_ENABLE is set: QMD_SCHEDULE
 * (1) and QMD_INVALIDATE_COPY_SCHEDULE (3) launch it; INCREMENT_PUT (0,
 * a queue QMD's) and DECREMENT_DEPENDENCE (4, its DEPENDENCE_COUNTER)
 * are not modelled.
 */
#define NVL_HW_QMD_DEP_INCREMENT_PUT 0u
#define NVL_HW_QMD_DEP_SCHEDULE 1u
#define NVL_HW_QMD_DEP_INVALIDATE_COPY_SCHEDULE 3u
#define NVL_HW_QMD_DEP_DECREMENT_DEPENDENCE 4u
/* BARRIER_COUNT: named CTA barriers 0..15 (PTX bar.sync's barrier id) */
#define NVL_HW_QMD_MAX_BARRIERS 16u
/* REGISTER_COUNT: R0..R254 are addressable (RZ is 255) */
#define NVL_HW_QMD_MAX_REGISTERS 255u

#define QF(hi, lo)                                                             \
	{                                                                      \
		(lo), (hi) - (lo) + 1                                          \
	}

/*
 * V02_02 (Volta/Turing, 256 B), reference §4.3. The release's structure
 * size and reduction fields: open-gpu-doc classes/compute/clc9c0qmd.h
 * (QMDV02_04, whose bits are V02_02's for every field here; QMDV03_00)
 * and clcbc0qmd.h (QMDV04_00, RELEASE_*(0) and QMD_TYPE). The same
 * headers give DEPENDENT_QMD0_ENABLE / _ACTION / _POINTER: QMDV02_04 141,
 * 144:142, 511:480; QMDV03_00 512, 515:513, 511:480; QMDV04_00
 * DEPENDENT_QMD_ENABLE(0) 368, DEPENDENT_QMD_ACTION(0) 371:369,
 * DEPENDENT_QMD0_POINTER 479:448.
 */
static const struct nvl_hw_qmd_layout nvl_hw_qmd_v02_02 = {
	.name = "V02_02",
	.size_B = 256,
	.major = 2,
	.minor = 2,
	.version_minor = QF(579, 576),
	.version_major = QF(583, 580),
	.grid = {QF(415, 384), QF(431, 416), QF(463, 448)},
	.cta = {QF(607, 592), QF(623, 608), QF(639, 624)},
	.prog_lo = QF(1567, 1536),
	.prog_hi = QF(1584, 1568),
	.register_count = QF(656, 648),
	.barrier_count = QF(959, 955),
	.shared_B = QF(561, 544),
	.cb_valid = QF(640, 640),
	.cb_valid_stride = 1,
	.cb_addr_lo = QF(1055, 1024),
	.cb_addr_hi = QF(1072, 1056),
	.cb_size = QF(1087, 1075),
	.cb_addr_shift = 0,
	.release_enable = QF(138, 138),
	.release_addr_lo = QF(767, 736),
	.release_addr_hi = QF(775, 768),
	.release_payload = QF(831, 800),
	.release_size = QF(799, 799),
	.release_red_enable = QF(794, 794),
	.release_red_op = QF(790, 788),
	.release_red_format = QF(793, 792),
	.dep_enable = QF(141, 141),
	.dep_action = QF(144, 142),
	.dep_pointer = QF(511, 480),
};

/* V03_00 (Ampere/Ada, 256 B) */
static const struct nvl_hw_qmd_layout nvl_hw_qmd_v03_00 = {
	.name = "V03_00",
	.size_B = 256,
	.major = 3,
	.minor = 0,
	.version_minor = QF(579, 576),
	.version_major = QF(583, 580),
	.grid = {QF(415, 384), QF(431, 416), QF(463, 448)},
	.cta = {QF(607, 592), QF(623, 608), QF(639, 624)},
	.prog_lo = QF(1567, 1536),
	.prog_hi = QF(1584, 1568),
	.register_count = QF(656, 648),
	.barrier_count = QF(767, 763),
	.shared_B = QF(561, 544),
	.cb_valid = QF(640, 640),
	.cb_valid_stride = 1,
	.cb_addr_lo = QF(1055, 1024),
	.cb_addr_hi = QF(1072, 1056),
	.cb_size = QF(1087, 1075),
	.cb_addr_shift = 0,
	.release_enable = QF(823, 823),
	.release_addr_lo = QF(799, 768),
	.release_addr_hi = QF(807, 800),
	.release_payload = QF(863, 832),
	.release_size = QF(831, 830),
	.release_red_enable = QF(826, 826),
	.release_red_op = QF(822, 820),
	.release_red_format = QF(825, 824),
	.release_payload64b = QF(829, 829),
	.dep_enable = QF(512, 512),
	.dep_action = QF(515, 513),
	.dep_pointer = QF(511, 480),
};

/* V04_00 (Hopper, 384 B) */
static const struct nvl_hw_qmd_layout nvl_hw_qmd_v04_00 = {
	.name = "V04_00",
	.size_B = 384,
	.major = 4,
	.minor = 0,
	.version_minor = QF(579, 576),
	.version_major = QF(583, 580),
	.grid = {QF(1055, 1024), QF(1071, 1056), QF(1103, 1088)},
	.cta = {QF(1167, 1152), QF(1183, 1168), QF(1199, 1184)},
	.prog_lo = QF(1247, 1216),
	.prog_hi = QF(1272, 1248),
	.register_count = QF(1208, 1200),
	.barrier_count = QF(1215, 1211),
	.shared_B = QF(601, 584),
	.cb_valid = QF(416, 416),
	.cb_valid_stride = 4,
	.cb_addr_lo = QF(1567, 1536),
	.cb_addr_hi = QF(1586, 1568),
	.cb_size = QF(1599, 1587),
	.cb_addr_shift = 6,
	.release_enable = QF(320, 320),
	.release_addr_lo = QF(671, 640),
	.release_addr_hi = QF(696, 672),
	.release_payload = QF(735, 704),
	.release_size = QF(322, 321),
	.release_red_enable = QF(324, 324),
	.release_red_op = QF(327, 325),
	.release_red_format = QF(329, 328),
	.release_payload64b = QF(332, 332),
	.qmd_type = QF(25, 23),
	.dep_enable = QF(368, 368),
	.dep_action = QF(371, 369),
	.dep_pointer = QF(479, 448),
};

#undef QF

/** nvl_hw_qmd_layout() - the QMD version compute class @cls reads, or NULL. */
static inline const struct nvl_hw_qmd_layout *nvl_hw_qmd_layout_of(uint32_t cls)
{
	switch (cls) {
	case NVL_HW_COMPUTE_CLASS_TURING:
		return &nvl_hw_qmd_v02_02;
	case NVL_HW_COMPUTE_CLASS_AMPERE_A:
	case NVL_HW_COMPUTE_CLASS_AMPERE_B:
	case NVL_HW_COMPUTE_CLASS_ADA:
		return &nvl_hw_qmd_v03_00;
	case NVL_HW_COMPUTE_CLASS_HOPPER:
		return &nvl_hw_qmd_v04_00;
	default:
		return NULL;
	}
}

/*
 * The fields are at most 64 bits wide: a few word-sized pieces, each one
 * shift and mask (a launch reads about forty of them).
 */

/** nvl_hw_qmd_get() - read field @f of the QMD at @q (u32 words). */
static inline uint64_t nvl_hw_qmd_get(const uint32_t *q,
				      struct nvl_hw_qmd_field f)
{
	uint64_t v = 0;
	unsigned i = 0;

	while (i < f.width) {
		unsigned b = f.lo + i, sh = b % 32, n = 32 - sh;

		if (n > f.width - i)
			n = f.width - i;
		v |= (uint64_t)(q[b / 32] >> sh & (uint32_t)(~0ull >> (64 - n)))
		     << i;
		i += n;
	}
	return v;
}

/** nvl_hw_qmd_set() - write @v into field @f of the QMD at @q. */
static inline void nvl_hw_qmd_set(uint32_t *q, struct nvl_hw_qmd_field f,
				  uint64_t v)
{
	unsigned i = 0;

	while (i < f.width) {
		unsigned b = f.lo + i, sh = b % 32, n = 32 - sh;
		uint32_t m;

		if (n > f.width - i)
			n = f.width - i;
		m = (uint32_t)(~0ull >> (64 - n)) << sh;
		q[b / 32] = (q[b / 32] & ~m) | ((uint32_t)(v >> i) << sh & m);
		i += n;
	}
}

/** nvl_hw_qmd_at() - field @f moved by @bits (per-cbuf fields). */
static inline struct nvl_hw_qmd_field nvl_hw_qmd_at(struct nvl_hw_qmd_field f,
						    unsigned bits)
{
	f.lo = (uint16_t)(f.lo + bits);
	return f;
}

/*
 * Channel error data (CHRAM_ERR_DATA) of NVL_HW_CHERR_COMPUTE: why the
 * compute engine stopped (model-defined, as the reasons of an SM
 * exception). ERR_METHOD is the launching method.
 */
#define NVL_HW_COMPUTE_ERR_ILLEGAL_INSTRUCTION 1
#define NVL_HW_COMPUTE_ERR_PC_OUT_OF_RANGE 2
#define NVL_HW_COMPUTE_ERR_MISALIGNED 3
#define NVL_HW_COMPUTE_ERR_SHARED_OUT_OF_BOUNDS 4
#define NVL_HW_COMPUTE_ERR_CONST_OUT_OF_BOUNDS 5
#define NVL_HW_COMPUTE_ERR_DEADLOCK 7
#define NVL_HW_COMPUTE_ERR_TIMEOUT 8
#define NVL_HW_COMPUTE_ERR_HAZARD 9
/* the SM's warp errors OOR_REG (a register at or past the QMD's
 * REGISTER_COUNT) and ILLEGAL_INSTR_PARAM (a BAR naming a barrier at or
 * past BARRIER_COUNT) */
#define NVL_HW_COMPUTE_ERR_OOR_REG 10
#define NVL_HW_COMPUTE_ERR_ILLEGAL_INSTR_PARAM 11
#define NVL_HW_COMPUTE_ERR_BAD_QMD 16 /* version, shape, cbuf, registers */
#define NVL_HW_COMPUTE_ERR_NO_MEMORY 17 /* the model ran out of memory */

#endif /* NVL_HW_COMPUTE_H */

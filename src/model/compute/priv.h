/* SPDX-License-Identifier: MIT */
/* Internals of the SM interpreter (sm.c: scheduling, exec.c: semantics). */
#ifndef NVL_MODEL_COMPUTE_PRIV_H
#define NVL_MODEL_COMPUTE_PRIV_H

#include "model/compute/sm.h"

#define NVL_CS_LANES 32
#define NVL_CS_ALL 0xffffffffu

/* one decoded instruction plus what the interpreter precomputes */
struct cs_insn {
	struct nvl_isa_insn in;
	int32_t target; /* branch target index (BRA, BSSY), -1 if none */
	bool uniform;
	int8_t role[16]; /* operand index of each role (exec.c), -1 none */
	int16_t mv[128]; /* modifier value by field low bit, -1 none */
	/* registers read and written: first register, count (checked mode) */
	uint8_t nrd, nwr;
	uint8_t rd[6][2], wr[2][2];
};

struct cs_warp {
	uint32_t r[256][NVL_CS_LANES]; /* r[255] = RZ, always 0 */
	uint32_t ur[64]; /* ur[63] = URZ */
	uint32_t p[8]; /* lane masks; p[7] = PT */
	uint8_t up; /* bit i = UPi; bit 7 = UPT */
	uint32_t valid; /* lanes that exist */
	uint32_t exited;
	uint32_t active; /* the group running at pc */
	uint32_t pc; /* instruction index of the group */
	uint32_t lane_pc[NVL_CS_LANES]; /* PCs of parked lanes */
	uint32_t parked; /* runnable lanes not in the group */
	uint32_t bmask[16]; /* BSSY masks */
	uint32_t bwait[16]; /* lanes waiting at BSYNC Bi */
	uint32_t bwait_pc[16];
	bool at_bar, done;
	uint32_t id;
	uint32_t tid[NVL_CS_LANES][3];
	uint8_t pend[256]; /* scoreboards a register's write waits on */
	uint8_t rpend[256]; /* scoreboards its pending reads wait on */
};

struct cs_cta {
	const struct nvl_cs_launch *l;
	const struct cs_insn *prog;
	uint32_t ctaid[3];
	uint8_t *shared;
	struct cs_warp *warps;
	uint32_t nwarps;
	struct nvl_cs_fault *fault;
	struct nvl_cs_stats *stats;
	uint64_t budget;
	uint64_t clock;
};

/*
 * exec.c: run one non-control instruction for the lanes in @mask (already
 * guarded). Return: 0 or -EFAULT with cta->fault filled.
 */
int cs_exec(struct cs_cta *cta, struct cs_warp *w, const struct cs_insn *ci,
	    uint32_t mask);

/* exec.c: precompute the operand roles and register sets of @ci */
void cs_prepare(struct cs_insn *ci);

/* hazard.c: checked mode, before and after an instruction */
int cs_hazard_check(struct cs_cta *cta, struct cs_warp *w,
		    const struct cs_insn *ci);
void cs_hazard_track(struct cs_warp *w, const struct cs_insn *ci);

int cs_fail(struct cs_cta *cta, struct cs_warp *w, enum nvl_cs_reason r,
	    uint32_t lane, uint64_t addr);

#endif

/* SPDX-License-Identifier: MIT */
/* Internals of the SM interpreter (sm.c: scheduling, exec.c: semantics). */
#ifndef NVL_MODEL_COMPUTE_PRIV_H
#define NVL_MODEL_COMPUTE_PRIV_H

#include <string.h>

#include "model/compute/sm.h"

#define NVL_CS_LANES 32
#define NVL_CS_ALL 0xffffffffu

/* operand roles, found by position in the row (exec.c) */
enum {
	R_DST,
	R_A,
	R_B,
	R_C,
	R_PD0,
	R_PD1,
	R_PS0,
	R_PS1,
	R_PS2,
	R_IMM0,
	R_IMM1,
	R_MEM,
	R_CBUF,
	R_SR,
	R_COUNT
};

struct cs_warp;
struct cs_fast;

struct cs_cta;

/* a specialised handler: run for the lanes in @exec (non-zero) */
typedef void (*cs_fast_fn)(struct cs_warp *w, const struct cs_fast *f,
			   uint32_t exec);

/*
 * CS_FAST_MEM's handler: run LDG/STG @f (at instruction @pc) for the whole
 * warp when its lanes access consecutive elements of one range in the
 * interpreter's TLB; false when the access has another shape or misses
 * (cs_exec then runs it, and reports misalignment and faults).
 */
typedef bool (*cs_mem_fn)(struct cs_cta *cta, struct cs_warp *w,
			  const struct cs_fast *f, uint32_t pc);

enum cs_fast_kind {
	CS_FAST_NONE, /* generic path (cs_exec / run_warp's switch) */
	CS_FAST_OP, /* ALU operation with a handler */
	CS_FAST_BRA, /* branch: taken by all, none, or diverging */
	CS_FAST_EXIT, /* EXIT: of all, none, or some lanes */
	CS_FAST_GENERIC, /* a plain instruction: cs_exec() inside the loop */
	CS_FAST_MEM, /* LDG/STG: a whole-warp coalesced access through the
		      * interpreter's TLB (mfn), else cs_exec() */
};

/*
 * The pre-decoded form of an instruction (predecode.c): a handler chosen by
 * opcode, operand form and modifiers, with register rows resolved and
 * immediates broadcast over the lanes, so that running it is one indirect
 * call and a few 32-wide loops.
 */
struct cs_fast {
	uint32_t k[3][NVL_CS_LANES]; /* broadcast immediates of a, b, c */
	cs_fast_fn fn;
	uint8_t kind; /* enum cs_fast_kind */
	uint8_t guard; /* predicate row of the guard (7 = PT) */
	uint8_t d; /* destination row, NVL_ISA_RZ = discarded */
	uint8_t src[3]; /* rows of a, b, c (NVL_ISA_RZ reads 0) */
	bool imm[3]; /* a, b, c come from k[] */
	uint8_t pd0, pd1, ps0; /* predicate rows (7 = PT / none) */
	uint32_t guard_xor, ps0_xor; /* ~0 for a negated predicate */
	uint32_t u0, u1; /* per-operation constants (LUT, shift, ...) */
	int32_t target; /* branch target index */
	/* constant-bank sources: bit k = source k reads c[cbank[k]][coff[k]]
	 * (kref[k]: its entry in the program's constant list, broadcast once
	 * per run into cs_cta.krow; kref[k] + 1 holds the high word of a
	 * 64-bit one) */
	uint8_t cbm, cbank[3];
	bool c64; /* source c's constant is 64 bits (IMAD.WIDE) */
	uint32_t coff[3];
	uint16_t kref[3]; /* row of source k's constant in cs_cta.krow */
	/* CS_FAST_MEM: bytes per lane (4, 8, 16), the address pair's row,
	 * the data rows' first row (destination of LDG, source of STG) and
	 * the offset */
	uint8_t msize, mreg, mdata;
	bool mstore;
	int64_t moff;
	cs_mem_fn mfn;
};

/*
 * A constant-bank word a fast source reads (the program's list, built at
 * decode): bank, byte offset, and the size the instruction reads (4, or 8
 * for IMAD.WIDE's 64-bit addend, whose high word is the next row).
 */
struct cs_kref {
	uint8_t bank, size;
	uint16_t row; /* its (first) row in cs_cta.krow */
	uint32_t off;
};

/* one decoded instruction plus what the interpreter precomputes */
struct cs_insn {
	struct cs_fast fast;
	struct nvl_isa_insn in;
	int32_t target; /* branch target index (BRA, BSSY), -1 if none,
			 * -2 outside the program (not one past its end) */
	bool uniform;
	int8_t role[16]; /* operand index of each role (exec.c), -1 none */
	int16_t mv[128]; /* modifier value by field low bit, -1 none */
	/* registers read and written: first register, count (checked mode) */
	uint8_t nrd, nwr;
	uint8_t rd[6][2], wr[2][2];
	/* the highest GPR it names + 1 (0: none), and the barriers its BAR
	 * names (the highest id + 1; 0: not a BAR): REGISTER_COUNT and
	 * BARRIER_COUNT must cover them (nvl_cs_launch.limits) */
	uint8_t gprs, bars;
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
	uint32_t bwset; /* bit i: bwait[i] is not empty */
	uint32_t bwait_pc[16];
	bool at_bar, done;
	uint32_t id;
	uint32_t tid[3][NVL_CS_LANES]; /* x, y, z rows (lane-major) */
	uint8_t pend[256]; /* scoreboards a register's write waits on */
	uint8_t rpend[256]; /* scoreboards its pending reads wait on */
	uint32_t ctaid[3]; /* the CTA's id (S2R) */
	/* the run's constant-bank sources, broadcast (cs_cta.krow) */
	const uint32_t (*krow)[NVL_CS_LANES];
};

/* the interpreter's TLB (per run, i.e. per SM worker): linear host ranges
 * from the launch's map callback */
#define CS_TLB 8
#define CS_TLB_HINTS 16

struct cs_tlb {
	uint64_t va, len; /* [va, va + len) is at p, len 0 = empty */
	uint8_t *p;
	bool write;
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
	uint64_t poll_at; /* poll the stop flags when budget reaches it */
	uint64_t clock;
	uint32_t cnt; /* cs_run_fast: the active lanes' count */
	/* some instruction exceeds the launch's REGISTER_COUNT or
	 * BARRIER_COUNT: run_warp checks each one it issues (and the fast
	 * loop, which does not, is not used) */
	bool check_limits;
	/* the rows of the program's constant list for this launch; kbad:
	 * some are out of bounds (kok[row] 0) */
	uint32_t (*krow)[NVL_CS_LANES];
	const struct cs_prog *pr;
	uint8_t *kok;
	bool kbad;
	struct cs_tlb tlb[CS_TLB];
	unsigned tlb_next;
	unsigned map_seen; /* *l->map_gen when the TLB was last dropped */
	/* the entry an instruction hit last, by pc % CS_TLB_HINTS */
	uint8_t tlb_hint[CS_TLB_HINTS];
};

/*
 * Drop the interpreter's TLB when the launch's map_gen moved (the memory
 * owner saw an invalidate or left its section): after every translate
 * call and every poll, the points where it can move.
 */
static inline void cs_tlb_sync(struct cs_cta *cta)
{
	const unsigned *g = cta->l->map_gen;

	if (g && *g != cta->map_seen) {
		cta->map_seen = *g;
		memset(cta->tlb, 0, sizeof(cta->tlb));
	}
}

/* the value of the modifier group at bit @lo, or @def when the row has none */
static inline unsigned cs_modv(const struct cs_insn *ci, unsigned lo,
			       unsigned def)
{
	int v = ci->mv[lo];

	return v < 0 ? def : (unsigned)v;
}

/* the operand playing role @r (R_*), NULL if the row has none */
static inline const struct nvl_isa_val *cs_opnd(const struct cs_insn *ci, int r)
{
	int i = ci->role[r];

	return i < 0 ? NULL : &ci->in.op[i];
}

#define CS_ZERO_RUNS 16

/* a decoded program, shared through the cache (progcache.c) */
struct cs_prog {
	unsigned refs; /* under the cache lock */
	enum nvl_isa_arch arch;
	uint64_t code_va;
	uint32_t ninsn, nregs;
	bool uses_ur; /* a uniform instruction or a UR operand */
	/* the most of any instruction's gprs and bars (cs_insn) */
	uint8_t gprs, bars;
	/*
	 * The register rows a warp starts with zeroed, as runs of rows
	 * (first, count): those a lane can read before writing them (sm.c,
	 * zero_rows()); the others are written before any read.
	 */
	uint8_t zr[CS_ZERO_RUNS][2];
	uint8_t nzr;
	uint64_t *code; /* the words it was decoded from (the key) */
	struct cs_insn *insn;
	/* constant-bank words read by fast forms; nkrow rows in all */
	struct cs_kref *kref;
	uint32_t nkref, nkrow;
};

/*
 * progcache.c: the decoded form of @l's program, from the cache when its
 * words are unchanged (*@hit), else decoded (errors as cs_decode_program);
 * release with cs_prog_put(p, @keep).
 *
 * @keep (optional): a program the calling thread holds a reference to
 * (its last run's), tried first and without the cache's lock when
 * @keep_ok; the program returned becomes *@keep (the reference moves), so
 * a thread running the same program again takes no lock. Without
 * @keep_ok (the cache was cleared since), *@keep is dropped first. Only
 * the owning thread touches *@keep; drop it with cs_prog_keep_drop().
 */
int cs_prog_get(const struct nvl_cs_launch *l, struct nvl_cs_fault *fault,
		struct cs_prog **keep, bool keep_ok, struct cs_prog **out,
		bool *hit);
void cs_prog_put(struct cs_prog *p, struct cs_prog **keep);
void cs_prog_keep_drop(struct cs_prog **keep);

/* sm.c: decode @l's program into @p (insn allocated, ninsn set): the
 * instructions, nregs and the constant list; -EINVAL with @fault filled,
 * -ENOMEM */
int cs_decode_program(const struct nvl_cs_launch *l, struct cs_prog *p,
		      struct nvl_cs_fault *fault);

/*
 * predecode.c: choose @ci's fast form (after cs_prepare, ->uniform and
 * ->target are set); leaves CS_FAST_NONE where only the generic path
 * implements the instruction.
 */
void cs_predecode(struct cs_insn *ci);

/*
 * predecode.c: run @w's converged group (no parked lanes) through
 * consecutive fast instructions (plain instructions without a handler run
 * through cs_exec() in the loop); stops before the first control
 * instruction the loop does not do, a diverging branch or one that leaves
 * the program, the end of the program or of the budget (or at
 * cta->poll_at: run_warp polls the stop flags), or after an exit of every
 * lane (active 0, pc at the EXIT: run_warp reselects), with pc, budget,
 * clock and statistics updated. Return: 0, or cs_exec()'s error (pc at the failing
 * instruction, which is counted).
 */
int cs_run_fast(struct cs_cta *cta, struct cs_warp *w);

/*
 * predecode.c: enter @f's constant-bank sources in @p's constant list
 * (f->kref); -ENOMEM.
 */
int cs_fast_krefs(struct cs_prog *p, struct cs_fast *f);

/*
 * predecode.c: broadcast @p's constants for @cta's launch into cta->krow
 * (allocated by the caller, p->nkrow rows) and note those out of bounds.
 */
void cs_fast_kload(struct cs_cta *cta, const struct cs_prog *p);

/* predecode.c: @f's constant-bank sources are all in bounds (else the
 * generic path runs the instruction and reports it) */
static inline bool cs_fast_kok(const struct cs_cta *cta,
			       const struct cs_fast *f)
{
	if (!cta->kbad || !f->cbm)
		return true;
	for (unsigned k = 0; k < 3; k++)
		if ((f->cbm >> k & 1) && !cta->kok[f->kref[k]])
			return false;
	return true;
}

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

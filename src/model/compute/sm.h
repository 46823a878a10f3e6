/* SPDX-License-Identifier: MIT */
/*
 * The model's SM interpreter: runs a grid of CTAs of decoded SASS (the
 * table in src/hw/isa/) on the calling thread.
 *
 * Execution model (docs/compute.md): warps of 32 lanes with per-lane
 * registers (R0-R254, RZ), predicates P0-P6/PT as lane masks, uniform
 * registers and predicates per warp, per-lane PCs with BSSY/BSYNC
 * reconvergence (the lowest-PC group of lanes runs; groups meeting at the
 * same PC merge), shared memory per CTA, BAR.SYNC across the warps of a
 * CTA, constant banks, and global memory through a translation callback
 * (so that the MMU can sit behind it). Atomics use the host's atomic
 * instructions on the translated pointer, so they are atomic with respect
 * to every other agent that uses them on the same memory.
 *
 * This is an internal interface of the model; the launch path (compute
 * class methods, QMD) will sit on top of it.
 */
#ifndef NVL_MODEL_COMPUTE_SM_H
#define NVL_MODEL_COMPUTE_SM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "hw/isa/isa.h"

/**
 * typedef nvl_cs_translate_fn - map global VA [@va, @va + @size_B) to a
 * host pointer, or NULL for a fault. @size_B <= 16 and @va is aligned to
 * it, so the range never crosses a page.
 */
typedef void *(*nvl_cs_translate_fn)(void *ctx, uint64_t va, uint32_t size_B,
				     bool write);

/**
 * typedef nvl_cs_map_fn - the linear host range behind the page holding
 * @va, for the interpreter's own TLB: the host pointer of *@base_va, with
 * *@len_B bytes (a power of two, @base_va aligned to it) linear from
 * there, usable for writes when @write. NULL when the page is not plainly
 * mapped (not translated yet, faulting, sparse, not host memory): the
 * access then goes through the translate callback, which reports the
 * fault. It must not report faults itself.
 */
typedef void *(*nvl_cs_map_fn)(void *ctx, uint64_t va, bool write,
			       uint64_t *base_va, uint64_t *len_B);

/** Why a launch stopped (channel-error reasons). */
enum nvl_cs_reason {
	NVL_CS_OK = 0,
	NVL_CS_ILLEGAL_INSTRUCTION, /* undecodable or unsupported */
	NVL_CS_PC_OUT_OF_RANGE,
	NVL_CS_MISALIGNED,
	NVL_CS_SHARED_OUT_OF_BOUNDS,
	NVL_CS_CONST_OUT_OF_BOUNDS,
	NVL_CS_GLOBAL_FAULT,
	NVL_CS_DEADLOCK, /* BSYNC or BAR that can never complete */
	NVL_CS_TIMEOUT, /* instruction budget exhausted */
	NVL_CS_HAZARD, /* checked mode: a register used before its
			 * variable-latency write (or read) was waited on */
	NVL_CS_OUT_OF_RANGE_REGISTER, /* a GPR at or past reg_count (the
				       * SM's OOR_REG warp error) */
	NVL_CS_ILLEGAL_PARAM, /* BAR naming a barrier at or past bar_count
			       * (ILLEGAL_INSTR_PARAM) */
};

/** struct nvl_cs_fault - where and why execution stopped. */
struct nvl_cs_fault {
	enum nvl_cs_reason reason;
	uint64_t pc; /* byte address */
	uint32_t cta[3];
	uint32_t warp, lane;
	uint64_t addr;
};

/** struct nvl_cs_launch - one grid. */
struct nvl_cs_launch {
	enum nvl_isa_arch arch;
	const uint64_t *code; /* 2 u64 per instruction */
	uint32_t ninsn;
	uint64_t code_va; /* byte address of code[0] (branch targets) */
	uint32_t grid[3], block[3];
	uint32_t shared_B;
	const void *cbuf[8];
	uint32_t cbuf_B[8];
	nvl_cs_translate_fn translate;
	/*
	 * Optional: whole pages for the interpreter's TLB (a few ranges per
	 * run), used by LDG/STG of a whole warp on consecutive elements (a
	 * coalesced access: one copy of the register rows). NULL = every
	 * access through translate.
	 */
	nvl_cs_map_fn map;
	/*
	 * Optional, with @map: a count the owner of the callbacks bumps when
	 * the pages @map handed out may be stale (it saw a TLB invalidate,
	 * or ended the section its translations were good for): the
	 * interpreter drops its TLB when the count moved, looked at after
	 * every @translate call and every poll of @aborted. NULL: never.
	 */
	const unsigned *map_gen;
	void *mem_ctx;
	uint64_t max_warp_instrs; /* 0 = 1 << 32 */
	/*
	 * Checked mode: honour the control field's scoreboards. A register
	 * written by a variable-latency instruction (memory, MUFU, S2R,
	 * conversions, ...) may be read or rewritten only after an
	 * instruction waited on its write scoreboard (or, with none set,
	 * never); its sources may be overwritten only after its read
	 * scoreboard was waited on. A violation stops the launch with
	 * NVL_CS_HAZARD, fault->addr = the register, as hardware would
	 * silently use a stale value.
	 */
	bool check_hazards;
	/*
	 * Run every instruction through the generic per-instruction path
	 * instead of the pre-decoded fast path (docs/compute.md); the
	 * results are the same, which the tests compare.
	 */
	bool generic_only;
	/*
	 * The QMD's REGISTER_COUNT and BARRIER_COUNT, honoured when
	 * @limits: a warp that issues an instruction naming a GPR >=
	 * @reg_count (a 64- or 128-bit operand's last register counts)
	 * stops the launch with NVL_CS_OUT_OF_RANGE_REGISTER
	 * (fault->addr = the register), one whose BAR names a barrier >=
	 * @bar_count with NVL_CS_ILLEGAL_PARAM. Without @limits every
	 * register and barrier exists (the interpreter's own tests).
	 */
	bool limits;
	uint16_t reg_count;
	uint8_t bar_count;
	/**
	 * Part of the grid (the launch path's SM workers): with @cta_next,
	 * take the CTAs in chunks of @cta_chunk (0 = 1) linear indices
	 * (x + y * grid[0] + z * grid[0] * grid[1]) from the counter the
	 * workers share, until it is past the grid (NULL = every CTA, in
	 * order); stop before the next CTA once *stop is set (NULL = never).
	 */
	_Atomic uint64_t *cta_next;
	uint32_t cta_chunk;
	const _Atomic bool *stop;
	/*
	 * Optional: polled with @mem_ctx between CTAs and every
	 * NVL_CS_POLL_SLICE warp instructions inside one (as *@stop is): true
	 * stops the run with -ECANCELED, the way an engine reset or a channel
	 * disable stops the engine (a kernel that never exits). It is also
	 * where the owner may let TLB invalidates in (@map_gen).
	 */
	bool (*aborted)(void *mem_ctx);
};

/* warp instructions between two polls of the stop flags */
#define NVL_CS_POLL_SLICE (1u << 16)

/** struct nvl_cs_stats - counters of a run. */
struct nvl_cs_stats {
	uint64_t warp_instrs;
	uint64_t thread_instrs;
	uint64_t ctas;
	/* instructions decoded by this run: 0 when the program came from
	 * the decoded-program cache (docs/compute.md) */
	uint64_t decoded_instrs;
};

/**
 * nvl_cs_run() - decode the program and run every CTA of the grid.
 * @fault: filled when the run stops early (may be NULL)
 * @stats: counters (may be NULL)
 *
 * Return: 0; -EINVAL for a bad launch (block > 1024 threads, empty grid,
 * undecodable program: fault->reason says which instruction); -EFAULT when
 * execution hit an error (fault filled); -ETIMEDOUT when the instruction
 * budget ran out; -ECANCELED when *@l->stop or @l->aborted() stopped it
 * inside a CTA, or @l->aborted() between two (*@l->stop between two CTAs
 * returns 0: whoever set it reports why); -ENOMEM.
 */
int nvl_cs_run(const struct nvl_cs_launch *l, struct nvl_cs_fault *fault,
	       struct nvl_cs_stats *stats);

/**
 * nvl_cs_cache_clear() - drop every cached decoded program (launches in
 * flight keep theirs until they return). Never needed for correctness: the
 * cache is keyed by the program's words, so rewritten code is decoded anew.
 */
void nvl_cs_cache_clear(void);

/**
 * nvl_cs_cache_gen() - how many times nvl_cs_cache_clear() ran: buffers a
 * thread keeps from launch to launch (the interpreter's warps, the launch
 * path's copies) are dropped at its next launch when this moved, so that
 * a launch after a clear allocates everything again.
 */
uint64_t nvl_cs_cache_gen(void);

/** nvl_cs_reason_name() - "misaligned address" etc. */
const char *nvl_cs_reason_name(enum nvl_cs_reason r);

#endif /* NVL_MODEL_COMPUTE_SM_H */

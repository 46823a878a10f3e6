/* SPDX-License-Identifier: MIT */
/*
 * Compute launches, the way NVK launches compute: a QMD (queue meta data)
 * in GPU memory describes one grid (program address, grid and block
 * shape, shared memory, constant buffer 0 with the kernel parameters, an
 * optional release semaphore), and a few compute-class methods on a
 * channel created with NVL_ENGINE_COMPUTE point the engine at it and
 * schedule it (SEND_PCAS_A, then SEND_SIGNALING_PCAS_B on Turing or
 * SEND_SIGNALING_PCAS2_B from Ampere on).
 *
 * The helpers only encode: the caller owns the memory. A launch is
 *
 *   1. nvl_compute_launch_encode() writes the QMD (nvl_compute_qmd_size()
 *      bytes) and constant buffer 0 into CPU mappings of BOs that are bound
 *      at qmd_va and cbuf0_va;
 *   2. nvl_compute_push_launch() writes the methods into a dword buffer
 *      (a pushbuffer BO's mapping);
 *   3. nvl_exec() runs that pushbuffer; its signal syncobjs get a fence
 *      that signals after the grid finished (the exec's semaphore release
 *      waits for the engine to idle).
 *
 * The QMD and constant buffer are read when the grid is scheduled, so a
 * caller may reuse their memory once the exec's fence signalled.
 */
#ifndef NOUVELLE_COMPUTE_H
#define NOUVELLE_COMPUTE_H

#include <stddef.h>
#include <stdint.h>

#include <nouvelle/core.h>

/*
 * Constant buffer 0 as the helper lays it out (the layout nvcc uses on
 * Volta to Ada, used here on every chip): ntid.x/y/z (the block) at 0x0,
 * 0x4, 0x8, nctaid.x/y/z (the grid) at 0xc, 0x10, 0x14, the kernel
 * parameters at NVL_COMPUTE_PARAM_OFFSET. A kernel reads its first
 * parameter as c[0x0][0x160].
 */
#define NVL_COMPUTE_PARAM_OFFSET 0x160u

/** Most bytes of constant buffer 0 (the QMD's size field). */
#define NVL_COMPUTE_CBUF0_MAX (64u << 10)

/** Most dwords nvl_compute_push_launch() writes. */
#define NVL_COMPUTE_PUSH_MAX_DW 6u

/** struct nvl_compute_launch - one grid. */
struct nvl_compute_launch {
	/** @program_va: GPU VA of the first instruction, 16-byte aligned;
	 * the program runs until every thread executed EXIT */
	uint64_t program_va;
	/** @grid: CTAs in x (1 .. 2^31 - 1), y and z (1 .. 65535) */
	uint32_t grid[3];
	/** @block: threads per CTA in x, y, z (each >= 1, z <= 64, product
	 * <= 1024) */
	uint32_t block[3];
	/** @shared_bytes: shared memory per CTA, at most an SM's: 64 KiB
	 * (Turing), 164 KiB (GA100), 100 KiB (GA10x, Ada), 228 KiB (Hopper) */
	uint32_t shared_bytes;
	/** @register_count: registers per thread (1 .. 255; 0: 255); the
	 * block's warps must fit an SM's 64K registers, allocated per warp
	 * in units of 256: 1024 threads take at most 64, 255 registers at
	 * most 256 threads */
	uint32_t register_count;
	/** @cbuf0_va: GPU VA of constant buffer 0, 256-byte aligned */
	uint64_t cbuf0_va;
	/** @cbuf0_size: its bytes: a multiple of 16, at least
	 * NVL_COMPUTE_PARAM_OFFSET + @params_size, at most
	 * NVL_COMPUTE_CBUF0_MAX */
	uint32_t cbuf0_size;
	/** @params_size: bytes at @params */
	uint32_t params_size;
	/** @params: the kernel parameters, copied to NVL_COMPUTE_PARAM_OFFSET */
	const void *params;
	/** @release_va: 0, or the 4-byte aligned GPU VA where the engine
	 * writes @release_payload once the grid is done */
	uint64_t release_va;
	/** @release_payload: the 32-bit value released */
	uint32_t release_payload;
	/** @barrier_count: named CTA barriers the program's BAR
	 * instructions use (0 .. 16): a BAR naming a barrier at or past it
	 * stops the grid with a channel error, so a program with BAR.SYNC
	 * needs at least 1 (nvl_compute_program_info() gives it) */
	uint32_t barrier_count;
};

/** struct nvl_compute_program_info - what a program needs of its QMD. */
struct nvl_compute_program_info {
	/** @register_count: registers per thread: the highest register an
	 * instruction names (a 64-bit operand's pair and a 128-bit one's
	 * quad counted whole) + 1, plus the 2 a Volta+ thread reserves,
	 * at least 4, at most 255 (as Mesa's NAK counts them) */
	uint32_t register_count;
	/** @barrier_count: the highest barrier a BAR names + 1 (0: no BAR) */
	uint32_t barrier_count;
	/** @instructions: the instructions read (size / 16) */
	uint32_t instructions;
};

/**
 * nvl_compute_qmd_size() - bytes of the QMD of a compute class: 256
 * (V02_02 on Turing, V03_00 on Ampere and Ada) or 384 (V04_00 on Hopper).
 * @cls: the compute class (nvl_device_info.compute_class)
 * Return: the size, or -EINVAL for a class the helper does not know.
 */
NVL_API int nvl_compute_qmd_size(uint32_t cls);

/**
 * nvl_compute_launch_encode() - build the QMD and constant buffer 0 of
 * launch @l for compute class @cls.
 * @cls: the device's compute class
 * @l: the launch
 * @qmd: nvl_compute_qmd_size(@cls) bytes, 4-byte aligned: the QMD
 * @cbuf0: @l->cbuf0_size bytes: constant buffer 0 (zero-filled except the
 *   block and grid shape and the parameters)
 *
 * Return: 0, or -EINVAL (unknown class, a zero or too large grid or block
 * dimension, misaligned addresses, a constant buffer too small or too
 * large for the parameters, more shared memory or registers than the
 * chip's SM has, more than 16 barriers);
 * then nothing is
 * written.
 */
NVL_API int nvl_compute_launch_encode(uint32_t cls,
				      const struct nvl_compute_launch *l,
				      void *qmd, void *cbuf0);

/**
 * nvl_compute_program_info() - the register and barrier counts a program
 * needs, for nvl_compute_launch's @register_count and @barrier_count.
 * @cls: the device's compute class (its SASS architecture)
 * @code: the program's instructions, 16 bytes each, as the GPU reads them
 * @size: bytes at @code: a non-zero multiple of 16
 * @info: filled on success
 *
 * A grid whose QMD gives fewer registers than an instruction names, or
 * fewer barriers than a BAR names, stops with a channel error when a warp
 * reaches that instruction (the SM's OOR_REG / ILLEGAL_INSTR_PARAM).
 *
 * Return: 0, or -EINVAL (unknown class, NULL or misaligned arguments, an
 * instruction the class's architecture does not decode: the message names
 * its offset); then @info is not written.
 */
NVL_API int nvl_compute_program_info(uint32_t cls, const void *code,
				     size_t size,
				     struct nvl_compute_program_info *info);

/** Flags of nvl_compute_push_launch(). */
enum nvl_compute_push_flags {
	/** @NVL_COMPUTE_PUSH_BIND: bind the compute class to the subchannel
	 * first (SET_OBJECT); needed once per channel and subchannel */
	NVL_COMPUTE_PUSH_BIND = 1u << 0,
};

/**
 * nvl_compute_push_launch() - the methods that launch the QMD at @qmd_va.
 * @cls: the device's compute class
 * @subch: the subchannel (0 .. 4)
 * @qmd_va: GPU VA of the QMD, 256-byte aligned, below 2^40
 * @flags: enum nvl_compute_push_flags
 * @push: where the methods go
 * @cap: dwords at @push (NVL_COMPUTE_PUSH_MAX_DW always suffices)
 *
 * Writes [SET_OBJECT @cls,] INVALIDATE_SHADER_CACHES_NO_WFI, SEND_PCAS_A
 * = @qmd_va >> 8 and the scheduling signal (SEND_SIGNALING_PCAS_B
 * INVALIDATE|SCHEDULE on C5C0, SEND_SIGNALING_PCAS2_B
 * INVALIDATE_COPY_SCHEDULE from C6C0 on), as NVK does.
 *
 * Return: the number of dwords written, or -EINVAL (class, subchannel,
 * alignment, flags), -ENOSPC (@cap too small); then nothing is written.
 */
NVL_API int nvl_compute_push_launch(uint32_t cls, uint32_t subch,
				    uint64_t qmd_va, uint32_t flags,
				    uint32_t *push, uint32_t cap);

#endif /* NOUVELLE_COMPUTE_H */

// SPDX-License-Identifier: MIT
/*
 * Fuzz target for the model's page-table walker: arbitrary table memory
 * and addresses must end in a translation or a fault, never in a crash or
 * an access outside the model's memory, and a write must land only where
 * the walk says it goes.
 *
 * Input: u64 va | u8 flags (bit 0: v3, bit 1: write, bit 2: sys PDB) |
 * u16 pdb (4 KiB page index inside the window) | table bytes, copied to a
 * 256 KiB window of VRAM at 64 MiB (a PDE may point anywhere, including
 * outside VRAM).
 *
 * The device is a ga102 (512 MiB pages at PD1) with 128 MiB of VRAM, so
 * that VRAM outside the window can be checked after every input: the only
 * bytes outside the window a 64-byte write may change are those the walk
 * translated it to (at most two pages); the sum of every other resident
 * byte outside the window must stay 0. Resident pages outside the window
 * are dropped back to zeros (MADV_DONTNEED) after the check, so the next
 * input starts from zeroed VRAM and the check costs only what was touched.
 */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hw/fault.h"
#include "hw/hwif.h"
#include "model/mmu.h"
#include "model/model.h"

#define WIN_BASE (64ull << 20)
#define WIN_SIZE (256u << 10)
#define VRAM_SIZE (128ull << 20)
#define PAGE 4096ull
#define LEN 64

static struct nvl_model *m;
static struct nvl_model_profile prof;
static unsigned char resident[VRAM_SIZE / PAGE];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct range {
	uint64_t pa, len;
};

/* where a write of LEN bytes at @va goes, by a walk (no TLB); 0..2 ranges */
static unsigned legit_ranges(const struct nvl_model_vmctx *ctx, uint64_t va,
			     struct range r[2])
{
	unsigned n = 0;
	uint64_t done = 0;

	while (done < LEN && n < 2) {
		struct nvl_model_xlate x;
		uint64_t span, chunk;

		if (nvl_model_mmu_walk(m, ctx, va + done,
				       NVL_HW_FAULT_ACCESS_WRITE, &x, NULL) ||
		    x.state != NVL_MODEL_XLATE_MAPPED)
			break;
		span = 1ull << x.page_shift;
		chunk = span - ((va + done) & (span - 1));
		if (chunk > LEN - done)
			chunk = LEN - done;
		if (x.aperture == NVL_HW_APERTURE_VIDMEM)
			r[n++] = (struct range){x.pa, chunk};
		done += chunk;
	}
	return n;
}

static int in_ranges(uint64_t pa, const struct range *r, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (pa >= r[i].pa && pa - r[i].pa < r[i].len)
			return 1;
	return 0;
}

/*
 * The checksum of VRAM outside the window, less the legitimate write
 * targets @r: every resident page is summed byte by byte, then dropped.
 */
static uint64_t outside_sum(const struct range *r, unsigned n)
{
	uint8_t *vram = m->vram;
	uint64_t sum = 0;

	if (mincore(vram, VRAM_SIZE, resident))
		__builtin_trap();
	for (uint64_t pg = 0; pg < VRAM_SIZE / PAGE; pg++) {
		uint64_t pa = pg * PAGE;

		if (!(resident[pg] & 1) ||
		    (pa >= WIN_BASE && pa < WIN_BASE + WIN_SIZE))
			continue;
		for (uint64_t o = 0; o < PAGE; o++)
			if (vram[pa + o] && !in_ranges(pa + o, r, n))
				sum += vram[pa + o];
		(void)madvise(vram + pa, PAGE, MADV_DONTNEED);
	}
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t zero[WIN_SIZE];
	struct nvl_model_vmctx ctx;
	struct nvl_model_xlate x;
	struct nvl_model_walk_trace tr;
	struct range legit[2];
	unsigned nlegit = 0;
	uint64_t va;
	uint16_t pdb;
	uint8_t flags, buf[LEN];
	size_t n;

	if (size < 11)
		return 0;
	if (!m) {
		prof = *nvl_model_profile_find("ga102");
		prof.vram_size = VRAM_SIZE;
		if (sysconf(_SC_PAGESIZE) != (long)PAGE ||
		    nvl_model_create(&prof, &m))
			return 0;
	}
	memcpy(&va, data, 8);
	flags = data[8];
	memcpy(&pdb, data + 9, 2);
	data += 11;
	size -= 11;
	n = size < WIN_SIZE ? size : WIN_SIZE;
	nvl_hw_vram_write(nvl_model_hw(m), WIN_BASE, zero, WIN_SIZE);
	nvl_hw_vram_write(nvl_model_hw(m), WIN_BASE, data, n);
	nvl_model_mmu_invalidate(m->mmu, NULL, 0, 0);

	ctx.pdb = WIN_BASE + (uint64_t)(pdb % (WIN_SIZE / 4096)) * 4096;
	ctx.aperture =
		flags & 4 ? NVL_HW_APERTURE_SYS_COH : NVL_HW_APERTURE_VIDMEM;
	ctx.version = flags & 1 ? 3 : 2;

	nvl_model_mmu_walk(m, &ctx, va,
			   flags & 2 ? NVL_HW_FAULT_ACCESS_WRITE
				     : NVL_HW_FAULT_ACCESS_READ,
			   &x, &tr);
	if (x.state > NVL_MODEL_XLATE_FAULT || tr.n > NVL_MODEL_MMU_MAX_STEPS)
		__builtin_trap();
	if (x.state == NVL_MODEL_XLATE_MAPPED &&
	    x.aperture == NVL_HW_APERTURE_VIDMEM && x.pa >= m->vram_size)
		__builtin_trap();
	/* the same through the TLB and an engine access, twice (hit) */
	for (int i = 0; i < 2; i++) {
		nvl_model_mmu_translate(m, &ctx, va, NVL_HW_FAULT_ACCESS_READ,
					&x);
		nvl_model_vm_access(m, &ctx, va, buf, sizeof(buf), false,
				    NVL_HW_MMU_ENGINE_CE(0), 0);
	}
	/* a write changes only what the walk translated it to */
	if (flags & 2) {
		nlegit = legit_ranges(&ctx, va, legit);
		nvl_model_vm_fill(m, &ctx, va, 0xdeadbeef, LEN,
				  NVL_HW_MMU_ENGINE_CE(0), 0);
	}
	if (outside_sum(legit, nlegit))
		__builtin_trap();
	return 0;
}

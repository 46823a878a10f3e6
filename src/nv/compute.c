// SPDX-License-Identifier: MIT
/*
 * DOC: compute launch helper
 *
 * include/nouvelle/compute.h: a launch described by a small struct
 * becomes the chip's QMD (hw/compute.h layouts: V02_02 on Turing, V03_00
 * on Ampere and Ada, V04_00 on Hopper), constant buffer 0 (block and grid
 * shape, then the parameters at 0x160) and the compute-class methods
 * that schedule it. The helpers write into caller memory and keep no
 * state; the method stream is a plain dword buffer, so it can be
 * appended to any pushbuffer builder (a builder would reserve
 * NVL_COMPUTE_PUSH_MAX_DW dwords and pass that space as @push).
 */
#include <errno.h>
#include <string.h>

#include "base/log.h"
#include "hw/compute.h"
#include "hw/host.h"
#include "hw/isa/isa.h"
#include "nouvelle/compute.h"

/*
 * Shared memory of one SM, the most a CTA can get: 64 KiB on Turing,
 * 164 KiB on GA100, 100 KiB on GA10x and Ada, 228 KiB on Hopper (the CUDA
 * guide's per-SM figures for compute capability 7.5, 8.0, 8.6, 8.9, 9.0)
 */
/* 32-bit registers of one SM (the CUDA guide: 64K from 5.0 to 9.0) */
#define NVL_COMPUTE_SM_REGS 65536u

static uint32_t shared_max(uint32_t cls)
{
	switch (cls) {
	case NVL_HW_COMPUTE_CLASS_TURING:
		return 64u << 10;
	case NVL_HW_COMPUTE_CLASS_AMPERE_A:
		return 164u << 10;
	case NVL_HW_COMPUTE_CLASS_AMPERE_B:
	case NVL_HW_COMPUTE_CLASS_ADA:
		return 100u << 10;
	default:
		return 228u << 10;
	}
}

NVL_API int nvl_compute_qmd_size(uint32_t cls)
{
	const struct nvl_hw_qmd_layout *ly = nvl_hw_qmd_layout_of(cls);

	if (!ly)
		return nvl_error(-EINVAL, "compute: no class %#x", cls);
	return (int)ly->size_B;
}

/* whether @v fits field @f */
static bool fits(struct nvl_hw_qmd_field f, uint64_t v)
{
	return f.width >= 64 || !(v >> f.width);
}

static int check(uint32_t cls, const struct nvl_hw_qmd_layout *ly,
		 const struct nvl_compute_launch *l)
{
	uint64_t threads = 1, warp_regs;
	uint32_t regs;

	if (!l->grid[0] || l->grid[0] > INT32_MAX)
		return nvl_error(-EINVAL, "compute: grid width %u", l->grid[0]);
	for (unsigned i = 1; i < 3; i++)
		if (!l->grid[i] || !fits(ly->grid[i], l->grid[i]))
			return nvl_error(-EINVAL, "compute: grid[%u] = %u", i,
					 l->grid[i]);
	for (unsigned i = 0; i < 3; i++) {
		if (!l->block[i] || !fits(ly->cta[i], l->block[i]))
			return nvl_error(-EINVAL, "compute: block[%u] = %u", i,
					 l->block[i]);
		threads *= l->block[i];
	}
	/* at most 1024 x 1024 x 64, 1024 in all (reference §3) */
	if (threads > 1024 || l->block[2] > 64)
		return nvl_error(-EINVAL,
				 "compute: block %ux%ux%u (at most 1024 "
				 "threads, 64 in z)",
				 l->block[0], l->block[1], l->block[2]);
	if (l->shared_bytes > shared_max(cls))
		return nvl_error(-EINVAL,
				 "compute: %u bytes of shared memory, class "
				 "%#x has %u",
				 l->shared_bytes, cls, shared_max(cls));
	if (l->register_count > 255)
		return nvl_error(-EINVAL, "compute: %u registers",
				 l->register_count);
	if (l->barrier_count > NVL_HW_QMD_MAX_BARRIERS)
		return nvl_error(-EINVAL, "compute: %u barriers (at most %u)",
				 l->barrier_count, NVL_HW_QMD_MAX_BARRIERS);
	/* the SM's 64K registers, allocated per warp in units of 256
	 * (reference §3; every chip from Turing to Hopper) */
	regs = l->register_count ? l->register_count : 255;
	warp_regs = (regs * 32 + 255) / 256 * 256;
	if ((threads + 31) / 32 * warp_regs > NVL_COMPUTE_SM_REGS)
		return nvl_error(
			-EINVAL,
			"compute: %llu threads of %u registers need "
			"%llu, an SM has %u",
			(unsigned long long)threads, regs,
			(unsigned long long)((threads + 31) / 32 * warp_regs),
			NVL_COMPUTE_SM_REGS);
	if (l->program_va % 16 ||
	    !fits((struct nvl_hw_qmd_field){0, (uint16_t)(ly->prog_lo.width +
							  ly->prog_hi.width)},
		  l->program_va))
		return nvl_error(-EINVAL, "compute: program VA %#llx",
				 (unsigned long long)l->program_va);
	if (l->cbuf0_va % 256 ||
	    !fits((struct nvl_hw_qmd_field){0, (uint16_t)(ly->cb_addr_lo.width +
							  ly->cb_addr_hi.width +
							  ly->cb_addr_shift)},
		  l->cbuf0_va))
		return nvl_error(-EINVAL, "compute: constant buffer VA %#llx",
				 (unsigned long long)l->cbuf0_va);
	if (l->params_size && !l->params)
		return nvl_error(-EINVAL, "compute: NULL parameters");
	if (l->cbuf0_size % 16 || l->cbuf0_size > NVL_COMPUTE_CBUF0_MAX ||
	    l->params_size > NVL_COMPUTE_CBUF0_MAX ||
	    l->cbuf0_size < NVL_COMPUTE_PARAM_OFFSET + l->params_size)
		return nvl_error(-EINVAL,
				 "compute: constant buffer of %u bytes for "
				 "%u bytes of parameters",
				 l->cbuf0_size, l->params_size);
	if (l->release_va &&
	    (l->release_va % 4 ||
	     !fits(
		     (struct nvl_hw_qmd_field){
			     0, (uint16_t)(ly->release_addr_lo.width +
					   ly->release_addr_hi.width)},
		     l->release_va)))
		return nvl_error(-EINVAL, "compute: release VA %#llx",
				 (unsigned long long)l->release_va);
	return 0;
}

NVL_API int nvl_compute_launch_encode(uint32_t cls,
				      const struct nvl_compute_launch *l,
				      void *qmd, void *cbuf0)
{
	const struct nvl_hw_qmd_layout *ly = nvl_hw_qmd_layout_of(cls);
	uint32_t *q = qmd, shape[6];
	uint64_t cb;
	int ret;

	if (!l || !qmd || !cbuf0)
		return nvl_error(-EINVAL, "compute: NULL argument");
	if (!ly)
		return nvl_error(-EINVAL, "compute: no class %#x", cls);
	ret = check(cls, ly, l);
	if (ret)
		return ret;
	memset(q, 0, ly->size_B);
	/* V04_00: a plain grid of CTAs (QMD_TYPE 0 is a queue) */
	if (ly->qmd_type.width)
		nvl_hw_qmd_set(q, ly->qmd_type, NVL_HW_QMD_TYPE_GRID_CTA);
	nvl_hw_qmd_set(q, ly->version_major, ly->major);
	nvl_hw_qmd_set(q, ly->version_minor, ly->minor);
	for (unsigned i = 0; i < 3; i++) {
		nvl_hw_qmd_set(q, ly->grid[i], l->grid[i]);
		nvl_hw_qmd_set(q, ly->cta[i], l->block[i]);
	}
	nvl_hw_qmd_set(q, ly->prog_lo, (uint32_t)l->program_va);
	nvl_hw_qmd_set(q, ly->prog_hi, l->program_va >> 32);
	nvl_hw_qmd_set(q, ly->register_count,
		       l->register_count ? l->register_count : 255);
	nvl_hw_qmd_set(q, ly->shared_B, l->shared_bytes);
	nvl_hw_qmd_set(q, ly->barrier_count, l->barrier_count);
	cb = l->cbuf0_va >> ly->cb_addr_shift;
	nvl_hw_qmd_set(q, ly->cb_valid, 1);
	nvl_hw_qmd_set(q, ly->cb_addr_lo, (uint32_t)cb);
	nvl_hw_qmd_set(q, ly->cb_addr_hi, cb >> 32);
	nvl_hw_qmd_set(q, ly->cb_size, l->cbuf0_size >> 4);
	if (l->release_va) {
		nvl_hw_qmd_set(q, ly->release_enable, 1);
		nvl_hw_qmd_set(q, ly->release_addr_lo, (uint32_t)l->release_va);
		nvl_hw_qmd_set(q, ly->release_addr_hi, l->release_va >> 32);
		nvl_hw_qmd_set(q, ly->release_payload, l->release_payload);
		/* the 32-bit payload alone: STRUCTURE_SIZE's zero value is
		 * FOUR_WORDS, 16 bytes with a timestamp */
		nvl_hw_qmd_set(q, ly->release_size,
			       NVL_HW_QMD_RELEASE_ONE_WORD);
	}
	for (unsigned i = 0; i < 3; i++) {
		shape[i] = l->block[i];
		shape[3 + i] = l->grid[i];
	}
	memset(cbuf0, 0, l->cbuf0_size);
	memcpy(cbuf0, shape, sizeof(shape));
	if (l->params_size)
		memcpy((uint8_t *)cbuf0 + NVL_COMPUTE_PARAM_OFFSET, l->params,
		       l->params_size);
	return 0;
}

/* the SASS architecture of compute class @cls (reference §4.1) */
static int arch_of(uint32_t cls, enum nvl_isa_arch *arch)
{
	switch (cls) {
	case NVL_HW_COMPUTE_CLASS_TURING:
		*arch = NVL_ISA_SM75;
		return 0;
	case NVL_HW_COMPUTE_CLASS_AMPERE_A:
		*arch = NVL_ISA_SM80;
		return 0;
	case NVL_HW_COMPUTE_CLASS_AMPERE_B:
		*arch = NVL_ISA_SM86;
		return 0;
	case NVL_HW_COMPUTE_CLASS_ADA:
		*arch = NVL_ISA_SM89;
		return 0;
	case NVL_HW_COMPUTE_CLASS_HOPPER:
		*arch = NVL_ISA_SM90;
		return 0;
	default:
		return nvl_error(-EINVAL, "compute: no class %#x", cls);
	}
}

NVL_API int nvl_compute_program_info(uint32_t cls, const void *code,
				     size_t size,
				     struct nvl_compute_program_info *info)
{
	const uint8_t *p = code;
	unsigned gprs = 0, bars = 0;
	enum nvl_isa_arch arch;
	int ret;

	if (!code || !info)
		return nvl_error(-EINVAL, "compute: NULL argument");
	ret = arch_of(cls, &arch);
	if (ret)
		return ret;
	if (!size || size % 16 || size / 16 > UINT32_MAX)
		return nvl_error(-EINVAL, "compute: a program of %zu bytes",
				 size);
	for (size_t off = 0; off < size; off += 16) {
		struct nvl_isa_insn in;
		uint64_t w[2];
		unsigned n;

		memcpy(w, p + off, 16);
		if (nvl_isa_decode(w, arch, &in))
			return nvl_error(-EINVAL,
					 "compute: instruction at +%#zx: %s",
					 off, nvl_error_msg());
		n = nvl_isa_gpr_end(&in);
		gprs = n > gprs ? n : gprs;
		if (in.row->sem == NVL_SEM_BAR &&
		    (unsigned)in.op[0].imm + 1 > bars)
			bars = (unsigned)in.op[0].imm + 1;
	}
	/* NAK's count (reference §3): the registers used + the 2 a Volta+
	 * thread reserves, at least 4; R254 is the last one there is */
	gprs += 2;
	gprs = gprs < 4 ? 4 : gprs;
	info->register_count = gprs > NVL_HW_QMD_MAX_REGISTERS
				       ? NVL_HW_QMD_MAX_REGISTERS
				       : gprs;
	info->barrier_count = bars;
	info->instructions = (uint32_t)(size / 16);
	return 0;
}

NVL_API int nvl_compute_push_launch(uint32_t cls, uint32_t subch,
				    uint64_t qmd_va, uint32_t flags,
				    uint32_t *push, uint32_t cap)
{
	uint32_t p[NVL_COMPUTE_PUSH_MAX_DW], n = 0;

	if (!push)
		return nvl_error(-EINVAL, "compute: NULL push buffer");
	if (!nvl_hw_qmd_layout_of(cls))
		return nvl_error(-EINVAL, "compute: no class %#x", cls);
	if (subch >= NVL_HW_SUBCH_SW_FIRST)
		return nvl_error(-EINVAL, "compute: subchannel %u", subch);
	if (qmd_va % 256 || qmd_va >> 40)
		return nvl_error(-EINVAL, "compute: QMD VA %#llx",
				 (unsigned long long)qmd_va);
	if (flags & ~(uint32_t)NVL_COMPUTE_PUSH_BIND)
		return nvl_error(-EINVAL, "compute: flags %#x", flags);
	if (flags & NVL_COMPUTE_PUSH_BIND) {
		p[n++] = NVL_HW_MTHD_INC(subch, NVL_HW_COMPUTE_SET_OBJECT, 1);
		p[n++] = cls;
	}
	/* INVALIDATE_SHADER_CACHES_NO_WFI: INSTRUCTION, CONSTANT and
	 * GLOBAL (bits 0, 12, 4), as NVK before a dispatch */
	p[n++] = NVL_HW_MTHD_IMMD(
		subch, NVL_HW_COMPUTE_INVALIDATE_SHADER_CACHES_NO_WFI, 0x1011);
	p[n++] = NVL_HW_MTHD_INC(subch, NVL_HW_COMPUTE_SEND_PCAS_A, 1);
	p[n++] = (uint32_t)(qmd_va >> 8);
	if (nvl_hw_compute_has_pcas2(cls))
		p[n++] = NVL_HW_MTHD_IMMD(
			subch, NVL_HW_COMPUTE_SEND_SIGNALING_PCAS2_B,
			NVL_HW_COMPUTE_PCAS2_INVALIDATE_COPY_SCHEDULE);
	else
		p[n++] = NVL_HW_MTHD_IMMD(
			subch, NVL_HW_COMPUTE_SEND_SIGNALING_PCAS_B,
			NVL_HW_COMPUTE_PCAS_B_INVALIDATE |
				NVL_HW_COMPUTE_PCAS_B_SCHEDULE);
	if (n > cap)
		return nvl_error(-ENOSPC, "compute: %u dwords, room for %u", n,
				 cap);
	memcpy(push, p, n * 4);
	return (int)n;
}

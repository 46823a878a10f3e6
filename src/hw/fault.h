/* SPDX-License-Identifier: MIT */
/*
 * MMU fault reporting: fault types, access types, MMU engine ids and the
 * 32-byte fault-buffer entry, as in the Volta/Turing fault manuals
 * (dev_mmu_fault, dev_fault). The registers that describe the buffers are in
 * regs.h (NVL_HW_FAULT_BUF_*).
 */
#ifndef NVL_HW_FAULT_H
#define NVL_HW_FAULT_H

/* Fault buffers: 0 = non-replayable (CE, PBDMA), 1 = replayable (GR/SM). */
#define NVL_HW_FAULT_BUF_NONREPLAY 0
#define NVL_HW_FAULT_BUF_REPLAY 1
#define NVL_HW_FAULT_BUF_COUNT 2

/** enum nvl_hw_fault_type - FAULT_TYPE 4:0 of entry dword 7. */
enum nvl_hw_fault_type {
	NVL_HW_FAULT_PDE = 0x0,
	NVL_HW_FAULT_PDE_SIZE = 0x1,
	NVL_HW_FAULT_PTE = 0x2,
	NVL_HW_FAULT_VA_LIMIT_VIOLATION = 0x3,
	NVL_HW_FAULT_UNBOUND_INST_BLOCK = 0x4,
	NVL_HW_FAULT_PRIV_VIOLATION = 0x5,
	NVL_HW_FAULT_RO_VIOLATION = 0x6,
	NVL_HW_FAULT_WO_VIOLATION = 0x7,
	NVL_HW_FAULT_PITCH_MASK_VIOLATION = 0x8,
	NVL_HW_FAULT_WORK_CREATION = 0x9,
	NVL_HW_FAULT_UNSUPPORTED_APERTURE = 0xa,
	NVL_HW_FAULT_COMPRESSION_FAILURE = 0xb,
	NVL_HW_FAULT_UNSUPPORTED_KIND = 0xc,
	NVL_HW_FAULT_REGION_VIOLATION = 0xd,
	NVL_HW_FAULT_POISONED = 0xe,
	NVL_HW_FAULT_ATOMIC_VIOLATION = 0xf,
};

/** enum nvl_hw_fault_access - ACCESS_TYPE 19:16 of entry dword 7. */
enum nvl_hw_fault_access {
	NVL_HW_FAULT_ACCESS_READ = 0x0,
	NVL_HW_FAULT_ACCESS_WRITE = 0x1,
	NVL_HW_FAULT_ACCESS_ATOMIC = 0x2,
	NVL_HW_FAULT_ACCESS_PREFETCH = 0x3,
	NVL_HW_FAULT_ACCESS_ATOMIC_WEAK = 0x4,
	NVL_HW_FAULT_ACCESS_PHYS_READ = 0x8,
	NVL_HW_FAULT_ACCESS_PHYS_WRITE = 0x9,
	NVL_HW_FAULT_ACCESS_PHYS_ATOMIC = 0xa,
	NVL_HW_FAULT_ACCESS_PHYS_PREFETCH = 0xb,
};

/*
 * MMU engine ids (ENGINE_ID 8:0 of dword 6), per chip family, from
 * open-gpu-kernel-modules' published dev_fault.h (NV_PFAULT_MMU_ENG_ID_*):
 * Turing, Ampere and Ada (tu102, ga102, ad102) share one numbering, GH100
 * has its own. The macros are the Turing-family values; the model and
 * tools pick a family's table with nvl_hw_mmu_engines().
 */
#define NVL_HW_MMU_ENGINE_GRAPHICS 64
#define NVL_HW_MMU_ENGINE_BAR1 128
#define NVL_HW_MMU_ENGINE_BAR2 192
#define NVL_HW_MMU_ENGINE_HOST(i) (32 + (i)) /* HOST0.. : PBDMA of runlist i */
#define NVL_HW_MMU_ENGINE_CE(i) (15 + (i)) /* CE0.. : copy engine i */

/** struct nvl_hw_mmu_engines - one family's MMU engine ids. */
struct nvl_hw_mmu_engines {
	unsigned short graphics, bar1, bar2;
	unsigned short host0; /* HOST(i) = host0 + i */
	unsigned short ce0; /* CE(i) = ce0 + i, i < 10 */
};

static const struct nvl_hw_mmu_engines nvl_hw_mmu_engines_tu102 = {
	.graphics = 64,
	.bar1 = 128,
	.bar2 = 192,
	.host0 = 32,
	.ce0 = 15,
};

static const struct nvl_hw_mmu_engines nvl_hw_mmu_engines_gh100 = {
	.graphics = 384,
	.bar1 = 256,
	.bar2 = 320,
	.host0 = 64,
	.ce0 = 43,
};

/** nvl_hw_mmu_engines() - the engine ids of BOOT_0 ARCHITECTURE @arch. */
static inline const struct nvl_hw_mmu_engines *nvl_hw_mmu_engines(unsigned arch)
{
	return arch == 0x18 /* Hopper */ ? &nvl_hw_mmu_engines_gh100
					 : &nvl_hw_mmu_engines_tu102;
}

/*
 * MMU client ids (CLIENT 14:8 of dword 7, with MMU_CLIENT_TYPE HUB) from
 * dev_fault.h NV_PFAULT_CLIENT_HUB_*: Host's PBDMA is HOST, copy engine i
 * is HSCE i, BAR accesses come from HOST_CPU.
 */
#define NVL_HW_FAULT_CLIENT_HUB_HOST 0x06
#define NVL_HW_FAULT_CLIENT_HUB_HOST_CPU 0x07
#define NVL_HW_FAULT_CLIENT_HUB_HSCE(i) (0x20 + (i))

/* Fault-buffer entry: 32 bytes = 8 dwords, dword index below. */
#define NVL_HW_FAULT_ENTRY_SIZE 32
#define NVL_HW_FAULT_ENTRY_INST_LO 0 /* INST_APERTURE 9:8, INST_LO 31:12 */
#define NVL_HW_FAULT_ENTRY_INST_APERTURE_SHIFT 8
#define NVL_HW_FAULT_ENTRY_INST_HI 1
#define NVL_HW_FAULT_ENTRY_ADDR_LO 2 /* PHYS_APERTURE 1:0, ADDR_LO 31:12 */
#define NVL_HW_FAULT_ENTRY_ADDR_HI 3
#define NVL_HW_FAULT_ENTRY_TIMESTAMP_LO 4
#define NVL_HW_FAULT_ENTRY_TIMESTAMP_HI 5
#define NVL_HW_FAULT_ENTRY_ENGINE 6 /* ENGINE_ID 8:0 */
#define NVL_HW_FAULT_ENTRY_INFO 7
#define NVL_HW_FAULT_INFO_TYPE_MASK 0x1fu /* 4:0 */
#define NVL_HW_FAULT_INFO_REPLAYABLE (1u << 7)
#define NVL_HW_FAULT_INFO_CLIENT_SHIFT 8 /* 14:8 */
#define NVL_HW_FAULT_INFO_CLIENT_MASK 0x7fu
#define NVL_HW_FAULT_INFO_ACCESS_SHIFT 16 /* 19:16 */
#define NVL_HW_FAULT_INFO_ACCESS_MASK 0xfu
#define NVL_HW_FAULT_INFO_HUB (1u << 20) /* MMU_CLIENT_TYPE */
#define NVL_HW_FAULT_INFO_GPC_SHIFT 24 /* 28:24 */
#define NVL_HW_FAULT_INFO_REPLAYABLE_EN (1u << 30)
#define NVL_HW_FAULT_INFO_VALID (1u << 31) /* written last */

/* Instance/fault aperture encoding in fault entries (INST_APERTURE). */
#define NVL_HW_FAULT_APERTURE_VID 0
#define NVL_HW_FAULT_APERTURE_SYS_COH 2
#define NVL_HW_FAULT_APERTURE_SYS_NONCOH 3

#endif /* NVL_HW_FAULT_H */

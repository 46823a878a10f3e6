/* SPDX-License-Identifier: MIT */
/*
 * Byte images of the driver's firmware structs, built by the C compiler
 * from each real version's own headers under firmware/abi/ (img_gsp.c
 * compiled once per version with -DV=1 (535.54.03), 2 (535.113.01) or
 * 3 (570.144) and that version's include directories). The gspabi test
 * unpacks them with the generated layer and packs them back.
 */
#ifndef ABIGEN_TEST_IMG_GSP_H
#define ABIGEN_TEST_IMG_GSP_H

#include <stddef.h>

#define G_CHECKSUM 0x1badb002u
#define G_SEQNUM 0x00000123u
#define G_ELEMCOUNT 2u
#define G_BOOTCOUNT 3u
#define G_HEAPSIZE 0x5800000ull
#define G_PRPC_ADDR 0x123456789000ull
#define G_ELF_CODE 0x4000u
#define G_WPR_FLAGS 0x1u
#define G_PMU_RESERVED 0x00200000u
#define G_CMDQ_OFF 0x3000ull
#define G_STATQ_OFF 0x43000ull
#define G_PTE_COUNT 0x83u
#define G_GPU_INSTANCE 0x5u
#define G_PROFILER_PA 0xabc000ull
#define G_FBIO32 0x0000ffffu
#define G_FBIO64 0x0000000f0000ffffull
#define G_FBP 0x00000fffu
#define G_GPCMASK 0x3fu
#define G_TPCCOUNT 72u
#define G_CECLASS 0xc5b5u
#define G_XID 79u
#define G_CHID 0x17u
#define G_BOARD 0x1234u

/* each returns the image size; buffers must hold 1024 bytes */
#define IMG_GSP_DECL(pfx)                                                      \
	size_t pfx##msg_elem(void *buf);                                       \
	size_t pfx##wpr_meta(void *buf);                                       \
	size_t pfx##rmargs(void *buf);                                         \
	size_t pfx##static_info(void *buf);                                    \
	size_t pfx##os_error_log(void *buf);                                   \
	size_t pfx##sku_info(void *buf);

IMG_GSP_DECL(img_g1_)
IMG_GSP_DECL(img_g2_)
IMG_GSP_DECL(img_g3_)

#endif

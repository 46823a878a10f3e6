/* SPDX-License-Identifier: MIT */
/*
 * Byte images of the drift set's structs, built by the C compiler from each
 * version's own headers (img_drift.c compiled once per version), and the
 * distinctive values they hold. The abigen test unpacks them with the
 * generated code and checks every value and the round trip.
 */
#ifndef ABIGEN_TEST_IMG_DRIFT_H
#define ABIGEN_TEST_IMG_DRIFT_H

#include <stddef.h>
#include <stdint.h>

#define V_CHECKSUM 0x11223344u
#define V_SEQNUM 0x55667788u
#define V_ELEMCOUNT 3u
#define V_MAGIC 0xdc3aae21371a60b3ull
#define V_REVISION 1u
#define V_SIZEOFSELF 0x100u
#define V_BOOTCOUNT 0x42u
#define V_WPR_FLAGS 0x81u
#define V_PMU_RESERVED 0x00800000u
#define V_VERIFIED 0xa0a0a0a0a0a0a0a0ull
#define V_SYS(i) (0x1000000000ull * (i) + 0x11 * (i)) /* 64-bit fields */
#define V_SYS32(i) (0x01010101u * (i))
#define V_IOADDR 0xfee00000ull
#define V_PCIDEV 0x2684u
#define V_PCISUBDEV 0x16f4u
#define V_FBIO32 0x0000ffffu
#define V_FBIO64 0x0000000f0000ffffull /* needs the widened field */
#define V_FBP 0x00000fffu
#define V_GPCMASK 0x3fu
#define V_L2 0x00600000u
#define V_EXCEPT 0x8u
#define V_RUNLIST 0x2u
#define V_CHID 0x17u
#define V_XID 79u
#define V_BOARD 0x1234u
#define V_SKUCFG 0x7u
#define V_UTIL(i) (1000u * (i) + 7u) /* engine i's share */
#define V_PROC(i) (0x400u + (i))
#define V_UTIL_TS 0x0000123456789abcull

/* each returns the image size, writes at most 256 bytes */
#define IMG_DECL(pfx)                                                          \
	size_t pfx##msg_elem(void *buf);                                       \
	size_t pfx##wpr_meta(void *buf);                                       \
	size_t pfx##sysinfo(void *buf);                                        \
	size_t pfx##static_config(void *buf, int wide);                        \
	size_t pfx##os_error_log(void *buf);                                   \
	size_t pfx##sku_info(void *buf);                                       \
	size_t pfx##gpc_mask(void *buf);                                       \
	size_t pfx##engine_util(void *buf);

IMG_DECL(img_v1_)
IMG_DECL(img_v2_)

#endif

/* SPDX-License-Identifier: MIT */
/*
 * This file keeps the shape of NVIDIA's headers (DRF HI:LO fields, aligned
 * X-macro lists), which is what abigen is tested on: no reformatting.
 */
/* clang-format off */
/*
 * abigen constructs set: DRF-style register field macros (HI:LO) and
 * integer-expression macros.
 */
#ifndef CONS_DRF_H
#define CONS_DRF_H

#define NV_PFB_CFG 0x00100200
#define NV_PFB_CFG_MODE 7:0
#define NV_PFB_CFG_ENABLE 8:8
#define NV_PFB_CFG_SIZE (31):(16)
#define NV_PFB_CFG_ENABLE_TRUE 0x00000001

#define CONS_HEAP_MB (4 * 16 + (1 << 3))
#define CONS_NEG (-5)
#define CONS_BIG 0xfffffffff0000000ULL
#define CONS_SHIFTED (CONS_HEAP_MB << 20)

#endif

// SPDX-License-Identifier: MIT
/*
 * nvl run: the copy-class methods the workloads push, encoded from the
 * method table in src/hw/ce.h (the dma-copy class, clc5b5.h and its
 * successors) and Host's method header (src/hw/host.h). The public
 * pushbuffer builder (include/nouvelle/push.h, issue 15 item 5) can take
 * this file's place once it is in the tree.
 */
#include "hw/ce.h"
#include "hw/host.h"
#include "run.h"

#define CE_SUBCH 4

/* SET_OBJECT on the copy subchannel: NVCLASS 15:0 */
static uint32_t bind_class(uint32_t *p, uint32_t ce_class)
{
	p[0] = NVL_HW_MTHD_INC(CE_SUBCH, NVL_HW_SET_OBJECT, 1);
	p[1] = ce_class & NVL_HW_SET_OBJECT_CLASS_MASK;
	return 2;
}

/* LAUNCH_DMA: DATA_TRANSFER_TYPE 1:0 NON_PIPELINED, FLUSH_ENABLE 2:2,
 * SRC/DST_MEMORY_LAYOUT 7:7 and 8:8 PITCH, REMAP_ENABLE 10:10 */
static uint32_t launch(uint32_t *p, bool remap)
{
	p[0] = NVL_HW_MTHD_INC(CE_SUBCH, NVL_HW_CE_LAUNCH_DMA, 1);
	p[1] = NVL_HW_CE_TRANSFER_NON_PIPELINED | NVL_HW_CE_LAUNCH_FLUSH |
	       NVL_HW_CE_LAUNCH_SRC_PITCH | NVL_HW_CE_LAUNCH_DST_PITCH |
	       (remap ? NVL_HW_CE_LAUNCH_REMAP : 0);
	return 2;
}

uint32_t run_pb_copy(uint32_t *p, uint32_t ce_class, uint64_t dst, uint64_t src,
		     uint32_t len)
{
	uint32_t n = bind_class(p, ce_class);

	/* OFFSET_IN_UPPER/LOWER, OFFSET_OUT_UPPER/LOWER, PITCH_IN, PITCH_OUT,
	 * LINE_LENGTH_IN (bytes), LINE_COUNT: one line of @len bytes */
	p[n++] = NVL_HW_MTHD_INC(CE_SUBCH, NVL_HW_CE_OFFSET_IN_UPPER, 8);
	p[n++] = (uint32_t)(src >> 32);
	p[n++] = (uint32_t)src;
	p[n++] = (uint32_t)(dst >> 32);
	p[n++] = (uint32_t)dst;
	p[n++] = len;
	p[n++] = len;
	p[n++] = len;
	p[n++] = 1;
	return n + launch(p + n, false);
}

uint32_t run_pb_fill(uint32_t *p, uint32_t ce_class, uint64_t dst,
		     uint32_t pattern, uint32_t len)
{
	uint32_t n = bind_class(p, ce_class);

	/* SET_REMAP_CONST_A, _CONST_B, SET_REMAP_COMPONENTS: DST_X 2:0 =
	 * CONST_A, COMPONENT_SIZE 17:16 = FOUR (3), one source and one
	 * destination component (NUM_*_COMPONENTS = ONE, 0) */
	p[n++] = NVL_HW_MTHD_INC(CE_SUBCH, NVL_HW_CE_SET_REMAP_CONST_A, 3);
	p[n++] = pattern;
	p[n++] = 0;
	p[n++] = NVL_HW_CE_REMAP_CONST_A << NVL_HW_CE_REMAP_DST_SHIFT(0) |
		 3u << NVL_HW_CE_REMAP_COMP_SIZE_SHIFT;
	p[n++] = NVL_HW_MTHD_INC(CE_SUBCH, NVL_HW_CE_OFFSET_OUT_UPPER, 2);
	p[n++] = (uint32_t)(dst >> 32);
	p[n++] = (uint32_t)dst;
	/* with remapping, LINE_LENGTH_IN counts components */
	p[n++] = NVL_HW_MTHD_INC(CE_SUBCH, NVL_HW_CE_LINE_LENGTH_IN, 2);
	p[n++] = len / 4;
	p[n++] = 1;
	return n + launch(p + n, true);
}

/* SPDX-License-Identifier: MIT */
/*
 * The CPU sequencer of GSP-RM 570.144: dword commands the firmware asks
 * the CPU to run mid-boot (GSP_RUN_CPU_SEQUENCER). Each command is an
 * opcode dword followed by its arguments.
 */
#ifndef NVL_FW_570_RMGSPSEQ_H
#define NVL_FW_570_RMGSPSEQ_H

#include "nvtypes.h"

typedef enum GSP_SEQ_BUF_OPCODE {
	GSP_SEQ_BUF_OPCODE_REG_WRITE = 0,     /* addr, val */
	GSP_SEQ_BUF_OPCODE_REG_MODIFY,        /* addr, mask, val */
	GSP_SEQ_BUF_OPCODE_REG_POLL,          /* addr, mask, val, timeout, error */
	GSP_SEQ_BUF_OPCODE_DELAY_US,          /* val */
	GSP_SEQ_BUF_OPCODE_REG_STORE,         /* addr, index */
	GSP_SEQ_BUF_OPCODE_CORE_RESET,
	GSP_SEQ_BUF_OPCODE_CORE_START,
	GSP_SEQ_BUF_OPCODE_CORE_WAIT_FOR_HALT,
	GSP_SEQ_BUF_OPCODE_CORE_RESUME,
} GSP_SEQ_BUF_OPCODE;

#define GSP_SEQUENCER_PAYLOAD_SIZE_DWORDS(op)                        \
	((op) == GSP_SEQ_BUF_OPCODE_REG_WRITE	 ? 2 :                \
	 (op) == GSP_SEQ_BUF_OPCODE_REG_MODIFY ? 3 :                  \
	 (op) == GSP_SEQ_BUF_OPCODE_REG_POLL   ? 5 :                  \
	 (op) == GSP_SEQ_BUF_OPCODE_DELAY_US   ? 1 :                  \
	 (op) == GSP_SEQ_BUF_OPCODE_REG_STORE  ? 2 :                  \
						 0)

#define GSP_SEQ_REG_SAVE_AREA 8

#endif

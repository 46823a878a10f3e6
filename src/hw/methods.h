/* SPDX-License-Identifier: MIT */
/*
 * DOC: the class method table
 *
 * One table of the methods of the classes nouvelle drives: the Host
 * (GPFIFO channel) class, the copy class and the compute class. Each
 * method is named once, with its byte offset and the first class of its
 * family that has it (C46F < C56F < C86F; C5B5 < C6B5 < C7B5 < C8B5;
 * C5C0 < C6C0 < C7C0 < C9C0 < CBC0: a later class is a superset). The
 * fields of the methods the driver, the builder and the decoder use are
 * listed beside them as HI:LO bit ranges, with their named values.
 *
 * Everything else is expanded from here: hw/host.h and hw/ce.h make their
 * NVL_HW_<NAME> / NVL_HW_CE_<NAME> method numbers from these lists (the
 * model's PBDMA, Host and copy engine, and the driver's fence idiom use
 * those), src/hw/methods.c makes the name and field tables of the
 * pushbuffer decoder (nvl trace), and gen_push_methods.c writes the
 * public nouvelle/push_methods.h the pushbuffer builder (nouvelle/push.h)
 * uses. The compute class's numbers stay in hw/compute.h (the compute
 * engine's header); its list here refers to those macros.
 *
 * Facts: the clc46f.h / clc56f.h / clc86f.h Host classes, clc5b5.h ..
 * clc8b5.h dma-copy classes and clc5c0.h .. clcbc0.h compute classes
 * (method offsets and DRF ranges), ../shared/reference/memory-and-hardware.md
 * §2 and compute-isa.md.
 *
 * This header includes nothing and defines only macros, so that the
 * native generator and the public header's generation can use it.
 */
#ifndef NVL_HW_METHODS_H
#define NVL_HW_METHODS_H

/* class families */
#define NVL_HW_CLASS_HOST_TURING 0xc46f /* TURING_CHANNEL_GPFIFO_A */
#define NVL_HW_CLASS_HOST_AMPERE 0xc56f /* AMPERE_CHANNEL_GPFIFO_A */
#define NVL_HW_CLASS_HOST_HOPPER 0xc86f /* HOPPER_CHANNEL_GPFIFO_A */

/* C(family, NAME, class) */
#define NVL_HW_CLASS_LIST(C)                                                   \
	C(HOST, TURING, 0xc46f)                                                \
	C(HOST, AMPERE, 0xc56f)                                                \
	C(HOST, HOPPER, 0xc86f)                                                \
	C(CE, TURING, 0xc5b5)                                                  \
	C(CE, AMPERE, 0xc6b5)                                                  \
	C(CE, ADA, 0xc7b5)                                                     \
	C(CE, HOPPER, 0xc8b5)                                                  \
	C(COMPUTE, TURING, 0xc5c0)                                             \
	C(COMPUTE, AMPERE_A, 0xc6c0)                                           \
	C(COMPUTE, AMPERE_B, 0xc7c0)                                           \
	C(COMPUTE, ADA, 0xc9c0)                                                \
	C(COMPUTE, HOPPER, 0xcbc0)

/*
 * M(family, NAME, byte offset, first class). Host methods are below 0x100
 * and reach Host on any subchannel.
 */
#define NVL_HW_HOST_METHODS(M)                                                 \
	M(HOST, SET_OBJECT, 0x000, 0xc46f)                                     \
	M(HOST, ILLEGAL, 0x004, 0xc46f)                                        \
	M(HOST, NOP, 0x008, 0xc46f)                                            \
	M(HOST, SEMAPHOREA, 0x010, 0xc46f)                                     \
	M(HOST, SEMAPHOREB, 0x014, 0xc46f)                                     \
	M(HOST, SEMAPHOREC, 0x018, 0xc46f)                                     \
	M(HOST, SEMAPHORED, 0x01c, 0xc46f)                                     \
	M(HOST, NON_STALL_INTERRUPT, 0x020, 0xc46f)                            \
	M(HOST, FB_FLUSH, 0x024, 0xc46f)                                       \
	M(HOST, MEM_OP_A, 0x028, 0xc46f)                                       \
	M(HOST, MEM_OP_B, 0x02c, 0xc46f)                                       \
	M(HOST, MEM_OP_C, 0x030, 0xc46f)                                       \
	M(HOST, MEM_OP_D, 0x034, 0xc46f)                                       \
	M(HOST, SET_REFERENCE, 0x050, 0xc46f)                                  \
	M(HOST, SEM_ADDR_LO, 0x05c, 0xc46f)                                    \
	M(HOST, SEM_ADDR_HI, 0x060, 0xc46f)                                    \
	M(HOST, SEM_PAYLOAD_LO, 0x064, 0xc46f)                                 \
	M(HOST, SEM_PAYLOAD_HI, 0x068, 0xc46f)                                 \
	M(HOST, SEM_EXECUTE, 0x06c, 0xc46f)                                    \
	M(HOST, WFI, 0x078, 0xc46f)                                            \
	M(HOST, YIELD, 0x080, 0xc46f)                                          \
	M(HOST, CLEAR_FAULTED, 0x084, 0xc46f)

#define NVL_HW_CE_METHODS(M)                                                   \
	M(CE, NOP, 0x100, 0xc5b5)                                              \
	M(CE, SET_SEMAPHORE_A, 0x240, 0xc5b5)                                  \
	M(CE, SET_SEMAPHORE_B, 0x244, 0xc5b5)                                  \
	M(CE, SET_SEMAPHORE_PAYLOAD, 0x248, 0xc5b5)                            \
	M(CE, SET_SEMAPHORE_PAYLOAD_UPPER, 0x24c, 0xc7b5)                      \
	M(CE, SET_SRC_PHYS_MODE, 0x260, 0xc5b5)                                \
	M(CE, SET_DST_PHYS_MODE, 0x264, 0xc5b5)                                \
	M(CE, LAUNCH_DMA, 0x300, 0xc5b5)                                       \
	M(CE, OFFSET_IN_UPPER, 0x400, 0xc5b5)                                  \
	M(CE, OFFSET_IN_LOWER, 0x404, 0xc5b5)                                  \
	M(CE, OFFSET_OUT_UPPER, 0x408, 0xc5b5)                                 \
	M(CE, OFFSET_OUT_LOWER, 0x40c, 0xc5b5)                                 \
	M(CE, PITCH_IN, 0x410, 0xc5b5)                                         \
	M(CE, PITCH_OUT, 0x414, 0xc5b5)                                        \
	M(CE, LINE_LENGTH_IN, 0x418, 0xc5b5)                                   \
	M(CE, LINE_COUNT, 0x41c, 0xc5b5)                                       \
	M(CE, SET_REMAP_CONST_A, 0x700, 0xc5b5)                                \
	M(CE, SET_REMAP_CONST_B, 0x704, 0xc5b5)                                \
	M(CE, SET_REMAP_COMPONENTS, 0x708, 0xc5b5)

/* the compute class: numbers from hw/compute.h (include it first) */
#define NVL_HW_COMPUTE_METHODS(M)                                              \
	M(COMPUTE, SET_OBJECT, NVL_HW_COMPUTE_SET_OBJECT, 0xc5c0)              \
	M(COMPUTE, NO_OPERATION, NVL_HW_COMPUTE_NO_OPERATION, 0xc5c0)          \
	M(COMPUTE, INVALIDATE_SHADER_CACHES,                                   \
	  NVL_HW_COMPUTE_INVALIDATE_SHADER_CACHES, 0xc5c0)                     \
	M(COMPUTE, INVALIDATE_SKED_CACHES,                                     \
	  NVL_HW_COMPUTE_INVALIDATE_SKED_CACHES, 0xc5c0)                       \
	M(COMPUTE, SET_SHADER_SHARED_MEMORY_WINDOW_A,                          \
	  NVL_HW_COMPUTE_SET_SHADER_SHARED_MEMORY_WINDOW_A, 0xc5c0)            \
	M(COMPUTE, SET_SHADER_SHARED_MEMORY_WINDOW_B,                          \
	  NVL_HW_COMPUTE_SET_SHADER_SHARED_MEMORY_WINDOW_B, 0xc5c0)            \
	M(COMPUTE, SEND_PCAS_A, NVL_HW_COMPUTE_SEND_PCAS_A, 0xc5c0)            \
	M(COMPUTE, SEND_PCAS_B, NVL_HW_COMPUTE_SEND_PCAS_B, 0xc5c0)            \
	M(COMPUTE, SEND_SIGNALING_PCAS_B,                                      \
	  NVL_HW_COMPUTE_SEND_SIGNALING_PCAS_B, 0xc5c0)                        \
	M(COMPUTE, SEND_SIGNALING_PCAS2_B,                                     \
	  NVL_HW_COMPUTE_SEND_SIGNALING_PCAS2_B, 0xc6c0)                       \
	M(COMPUTE, SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_A,                    \
	  NVL_HW_COMPUTE_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_A, 0xc5c0)      \
	M(COMPUTE, SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_B,                    \
	  NVL_HW_COMPUTE_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_B, 0xc5c0)      \
	M(COMPUTE, SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_C,                    \
	  NVL_HW_COMPUTE_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_C, 0xc5c0)      \
	M(COMPUTE, SET_SHADER_LOCAL_MEMORY_A,                                  \
	  NVL_HW_COMPUTE_SET_SHADER_LOCAL_MEMORY_A, 0xc5c0)                    \
	M(COMPUTE, SET_SHADER_LOCAL_MEMORY_B,                                  \
	  NVL_HW_COMPUTE_SET_SHADER_LOCAL_MEMORY_B, 0xc5c0)                    \
	M(COMPUTE, SET_SHADER_LOCAL_MEMORY_WINDOW_A,                           \
	  NVL_HW_COMPUTE_SET_SHADER_LOCAL_MEMORY_WINDOW_A, 0xc5c0)             \
	M(COMPUTE, SET_SHADER_LOCAL_MEMORY_WINDOW_B,                           \
	  NVL_HW_COMPUTE_SET_SHADER_LOCAL_MEMORY_WINDOW_B, 0xc5c0)             \
	M(COMPUTE, INVALIDATE_SHADER_CACHES_NO_WFI,                            \
	  NVL_HW_COMPUTE_INVALIDATE_SHADER_CACHES_NO_WFI, 0xc5c0)

/*
 * F(family, METHOD, FIELD, hi, lo): a field of a method's data.
 * V(family, METHOD, FIELD, VALUE, n): a named value of a field.
 */
#define NVL_HW_HOST_FIELDS(F)                                                  \
	F(HOST, SET_OBJECT, NVCLASS, 15, 0)                                    \
	F(HOST, SET_OBJECT, ENGINE, 20, 16)                                    \
	F(HOST, MEM_OP_A, TLB_INVALIDATE_INVALIDATION_SIZE, 5, 0)              \
	F(HOST, MEM_OP_A, SYSMEMBAR, 11, 11)                                   \
	F(HOST, MEM_OP_A, TLB_INVALIDATE_TARGET_ADDR_LO, 31, 12)               \
	F(HOST, MEM_OP_B, TLB_INVALIDATE_TARGET_ADDR_HI, 31, 0)                \
	F(HOST, MEM_OP_C, TLB_INVALIDATE_PDB, 0, 0)                            \
	F(HOST, MEM_OP_C, TLB_INVALIDATE_GPC, 1, 1)                            \
	F(HOST, MEM_OP_C, TLB_INVALIDATE_REPLAY, 4, 2)                         \
	F(HOST, MEM_OP_C, TLB_INVALIDATE_ACK_TYPE, 6, 5)                       \
	F(HOST, MEM_OP_C, TLB_INVALIDATE_PAGE_TABLE_LEVEL, 9, 7)               \
	F(HOST, MEM_OP_C, TLB_INVALIDATE_PDB_APERTURE, 11, 10)                 \
	F(HOST, MEM_OP_C, TLB_INVALIDATE_PDB_ADDR_LO, 31, 12)                  \
	F(HOST, MEM_OP_D, TLB_INVALIDATE_PDB_ADDR_HI, 26, 0)                   \
	F(HOST, MEM_OP_D, OPERATION, 31, 27)                                   \
	F(HOST, SEM_ADDR_LO, OFFSET, 31, 2)                                    \
	F(HOST, SEM_ADDR_HI, OFFSET, 7, 0)                                     \
	F(HOST, SEM_EXECUTE, OPERATION, 2, 0)                                  \
	F(HOST, SEM_EXECUTE, ACQUIRE_SWITCH_TSG, 12, 12)                       \
	F(HOST, SEM_EXECUTE, RELEASE_WFI, 20, 20)                              \
	F(HOST, SEM_EXECUTE, PAYLOAD_SIZE, 24, 24)                             \
	F(HOST, SEM_EXECUTE, RELEASE_TIMESTAMP, 25, 25)                        \
	F(HOST, SEM_EXECUTE, REDUCTION, 30, 27)                                \
	F(HOST, SEM_EXECUTE, REDUCTION_FORMAT, 31, 31)                         \
	F(HOST, CLEAR_FAULTED, CHID, 15, 0)                                    \
	F(HOST, CLEAR_FAULTED, RUNLIST_ID, 22, 16)                             \
	F(HOST, CLEAR_FAULTED, TYPE, 31, 31)

/*
 * MEM_OP_D OPERATION 31:27 (clc56f.h; clc86f.h adds MMU_OPERATION 0xb,
 * which the model does not run): hw/host.h makes enum nvl_hw_mem_op of it
 */
#define NVL_HW_MEM_OP_OPERATIONS(V)                                            \
	V(HOST, MEM_OP_D, OPERATION, MEMBAR, 5)                                \
	V(HOST, MEM_OP_D, OPERATION, MMU_TLB_INVALIDATE, 9)                    \
	V(HOST, MEM_OP_D, OPERATION, MMU_TLB_INVALIDATE_TARGETED, 10)          \
	V(HOST, MEM_OP_D, OPERATION, L2_PEERMEM_INVALIDATE, 13)                \
	V(HOST, MEM_OP_D, OPERATION, L2_SYSMEM_INVALIDATE, 14)                 \
	V(HOST, MEM_OP_D, OPERATION, L2_CLEAN_COMPTAGS, 15)                    \
	V(HOST, MEM_OP_D, OPERATION, L2_FLUSH_DIRTY, 16)                       \
	V(HOST, MEM_OP_D, OPERATION, L2_WAIT_FOR_SYS_PENDING_READS, 21)        \
	V(HOST, MEM_OP_D, OPERATION, ACCESS_COUNTER_CLR, 22)

/* MEM_OP_C TLB_INVALIDATE_ACK_TYPE 6:5 ("only relevant if GPC ENABLE") */
#define NVL_HW_MEM_OP_ACK_TYPES(V)                                             \
	V(HOST, MEM_OP_C, TLB_INVALIDATE_ACK_TYPE, NONE, 0)                    \
	V(HOST, MEM_OP_C, TLB_INVALIDATE_ACK_TYPE, GLOBALLY, 1)                \
	V(HOST, MEM_OP_C, TLB_INVALIDATE_ACK_TYPE, INTRANODE, 2)

#define NVL_HW_HOST_VALUES(V)                                                  \
	NVL_HW_MEM_OP_OPERATIONS(V)                                            \
	NVL_HW_MEM_OP_ACK_TYPES(V)                                             \
	V(HOST, MEM_OP_C, TLB_INVALIDATE_PDB, ONE, 0)                          \
	V(HOST, MEM_OP_C, TLB_INVALIDATE_PDB, ALL, 1)                          \
	V(HOST, MEM_OP_C, TLB_INVALIDATE_GPC, ENABLE, 0)                       \
	V(HOST, MEM_OP_C, TLB_INVALIDATE_GPC, DISABLE, 1)                      \
	V(HOST, MEM_OP_C, TLB_INVALIDATE_REPLAY, NONE, 0)                      \
	V(HOST, MEM_OP_C, TLB_INVALIDATE_REPLAY, START, 1)                     \
	V(HOST, MEM_OP_C, TLB_INVALIDATE_REPLAY, START_ACK_ALL, 2)             \
	V(HOST, MEM_OP_C, TLB_INVALIDATE_REPLAY, CANCEL_TARGETED, 3)           \
	V(HOST, MEM_OP_C, TLB_INVALIDATE_REPLAY, CANCEL_GLOBAL, 4)             \
	V(HOST, MEM_OP_C, TLB_INVALIDATE_REPLAY, CANCEL_VA_GLOBAL, 5)          \
	V(HOST, MEM_OP_C, TLB_INVALIDATE_PAGE_TABLE_LEVEL, ALL, 0)             \
	V(HOST, MEM_OP_C, TLB_INVALIDATE_PAGE_TABLE_LEVEL, PTE_ONLY, 1)        \
	V(HOST, MEM_OP_C, TLB_INVALIDATE_PAGE_TABLE_LEVEL, UP_TO_PDE0, 2)      \
	V(HOST, MEM_OP_C, TLB_INVALIDATE_PAGE_TABLE_LEVEL, UP_TO_PDE1, 3)      \
	V(HOST, MEM_OP_C, TLB_INVALIDATE_PAGE_TABLE_LEVEL, UP_TO_PDE2, 4)      \
	V(HOST, MEM_OP_C, TLB_INVALIDATE_PAGE_TABLE_LEVEL, UP_TO_PDE3, 5)      \
	V(HOST, MEM_OP_C, TLB_INVALIDATE_PDB_APERTURE, VID_MEM, 0)             \
	V(HOST, MEM_OP_C, TLB_INVALIDATE_PDB_APERTURE, SYS_MEM_COHERENT, 2)    \
	V(HOST, MEM_OP_C, TLB_INVALIDATE_PDB_APERTURE, SYS_MEM_NONCOHERENT, 3) \
	V(HOST, SEM_EXECUTE, OPERATION, ACQUIRE, 0)                            \
	V(HOST, SEM_EXECUTE, OPERATION, RELEASE, 1)                            \
	V(HOST, SEM_EXECUTE, OPERATION, ACQ_STRICT_GEQ, 2)                     \
	V(HOST, SEM_EXECUTE, OPERATION, ACQ_CIRC_GEQ, 3)                       \
	V(HOST, SEM_EXECUTE, OPERATION, ACQ_AND, 4)                            \
	V(HOST, SEM_EXECUTE, OPERATION, ACQ_NOR, 5)                            \
	V(HOST, SEM_EXECUTE, OPERATION, REDUCTION, 6)                          \
	V(HOST, SEM_EXECUTE, PAYLOAD_SIZE, 32BIT, 0)                           \
	V(HOST, SEM_EXECUTE, PAYLOAD_SIZE, 64BIT, 1)                           \
	V(HOST, SEM_EXECUTE, REDUCTION, IMIN, 0)                               \
	V(HOST, SEM_EXECUTE, REDUCTION, IMAX, 1)                               \
	V(HOST, SEM_EXECUTE, REDUCTION, IXOR, 2)                               \
	V(HOST, SEM_EXECUTE, REDUCTION, IAND, 3)                               \
	V(HOST, SEM_EXECUTE, REDUCTION, IOR, 4)                                \
	V(HOST, SEM_EXECUTE, REDUCTION, IADD, 5)                               \
	V(HOST, SEM_EXECUTE, REDUCTION, INC, 6)                                \
	V(HOST, SEM_EXECUTE, REDUCTION, DEC, 7)                                \
	V(HOST, SEM_EXECUTE, REDUCTION_FORMAT, SIGNED, 0)                      \
	V(HOST, SEM_EXECUTE, REDUCTION_FORMAT, UNSIGNED, 1)                    \
	V(HOST, CLEAR_FAULTED, TYPE, PBDMA_FAULTED, 0)                         \
	V(HOST, CLEAR_FAULTED, TYPE, ENG_FAULTED, 1)

#define NVL_HW_CE_FIELDS(F)                                                    \
	F(CE, SET_SEMAPHORE_A, UPPER, 24, 0)                                   \
	F(CE, SET_SRC_PHYS_MODE, TARGET, 1, 0)                                 \
	F(CE, SET_DST_PHYS_MODE, TARGET, 1, 0)                                 \
	F(CE, LAUNCH_DMA, DATA_TRANSFER_TYPE, 1, 0)                            \
	F(CE, LAUNCH_DMA, FLUSH_ENABLE, 2, 2)                                  \
	F(CE, LAUNCH_DMA, SEMAPHORE_TYPE, 4, 3)                                \
	F(CE, LAUNCH_DMA, INTERRUPT_TYPE, 6, 5)                                \
	F(CE, LAUNCH_DMA, SRC_MEMORY_LAYOUT, 7, 7)                             \
	F(CE, LAUNCH_DMA, DST_MEMORY_LAYOUT, 8, 8)                             \
	F(CE, LAUNCH_DMA, MULTI_LINE_ENABLE, 9, 9)                             \
	F(CE, LAUNCH_DMA, REMAP_ENABLE, 10, 10)                                \
	F(CE, LAUNCH_DMA, SRC_TYPE, 12, 12)                                    \
	F(CE, LAUNCH_DMA, DST_TYPE, 13, 13)                                    \
	F(CE, LAUNCH_DMA, SEMAPHORE_REDUCTION, 17, 14)                         \
	F(CE, LAUNCH_DMA, SEMAPHORE_REDUCTION_SIGN, 18, 18)                    \
	F(CE, LAUNCH_DMA, SEMAPHORE_REDUCTION_ENABLE, 19, 19)                  \
	F(CE, LAUNCH_DMA, SEMAPHORE_PAYLOAD_SIZE, 27, 27)                      \
	F(CE, SET_REMAP_COMPONENTS, DST_X, 2, 0)                               \
	F(CE, SET_REMAP_COMPONENTS, DST_Y, 6, 4)                               \
	F(CE, SET_REMAP_COMPONENTS, DST_Z, 10, 8)                              \
	F(CE, SET_REMAP_COMPONENTS, DST_W, 14, 12)                             \
	F(CE, SET_REMAP_COMPONENTS, COMPONENT_SIZE, 17, 16)                    \
	F(CE, SET_REMAP_COMPONENTS, NUM_SRC_COMPONENTS, 21, 20)                \
	F(CE, SET_REMAP_COMPONENTS, NUM_DST_COMPONENTS, 25, 24)

/* the component selectors of SET_REMAP_COMPONENTS DST_X..DST_W */
#define NVL_HW_CE_REMAP_SEL_(V, F)                                             \
	V(CE, SET_REMAP_COMPONENTS, F, SRC_X, 0)                               \
	V(CE, SET_REMAP_COMPONENTS, F, SRC_Y, 1)                               \
	V(CE, SET_REMAP_COMPONENTS, F, SRC_Z, 2)                               \
	V(CE, SET_REMAP_COMPONENTS, F, SRC_W, 3)                               \
	V(CE, SET_REMAP_COMPONENTS, F, CONST_A, 4)                             \
	V(CE, SET_REMAP_COMPONENTS, F, CONST_B, 5)                             \
	V(CE, SET_REMAP_COMPONENTS, F, NO_WRITE, 6)

#define NVL_HW_CE_VALUES(V)                                                    \
	V(CE, SET_SRC_PHYS_MODE, TARGET, LOCAL_FB, 0)                          \
	V(CE, SET_SRC_PHYS_MODE, TARGET, COHERENT_SYSMEM, 1)                   \
	V(CE, SET_SRC_PHYS_MODE, TARGET, NONCOHERENT_SYSMEM, 2)                \
	V(CE, SET_SRC_PHYS_MODE, TARGET, PEERMEM, 3)                           \
	V(CE, SET_DST_PHYS_MODE, TARGET, LOCAL_FB, 0)                          \
	V(CE, SET_DST_PHYS_MODE, TARGET, COHERENT_SYSMEM, 1)                   \
	V(CE, SET_DST_PHYS_MODE, TARGET, NONCOHERENT_SYSMEM, 2)                \
	V(CE, SET_DST_PHYS_MODE, TARGET, PEERMEM, 3)                           \
	V(CE, LAUNCH_DMA, DATA_TRANSFER_TYPE, NONE, 0)                         \
	V(CE, LAUNCH_DMA, DATA_TRANSFER_TYPE, PIPELINED, 1)                    \
	V(CE, LAUNCH_DMA, DATA_TRANSFER_TYPE, NON_PIPELINED, 2)                \
	V(CE, LAUNCH_DMA, SEMAPHORE_TYPE, NONE, 0)                             \
	V(CE, LAUNCH_DMA, SEMAPHORE_TYPE, RELEASE_ONE_WORD_SEMAPHORE, 1)       \
	V(CE, LAUNCH_DMA, SEMAPHORE_TYPE, RELEASE_FOUR_WORD_SEMAPHORE, 2)      \
	V(CE, LAUNCH_DMA, SEMAPHORE_TYPE, RELEASE_CONDITIONAL_INTR_SEMAPHORE,  \
	  3)                                                                   \
	V(CE, LAUNCH_DMA, INTERRUPT_TYPE, NONE, 0)                             \
	V(CE, LAUNCH_DMA, INTERRUPT_TYPE, BLOCKING, 1)                         \
	V(CE, LAUNCH_DMA, INTERRUPT_TYPE, NON_BLOCKING, 2)                     \
	V(CE, LAUNCH_DMA, SRC_MEMORY_LAYOUT, BLOCKLINEAR, 0)                   \
	V(CE, LAUNCH_DMA, SRC_MEMORY_LAYOUT, PITCH, 1)                         \
	V(CE, LAUNCH_DMA, DST_MEMORY_LAYOUT, BLOCKLINEAR, 0)                   \
	V(CE, LAUNCH_DMA, DST_MEMORY_LAYOUT, PITCH, 1)                         \
	V(CE, LAUNCH_DMA, SRC_TYPE, VIRTUAL, 0)                                \
	V(CE, LAUNCH_DMA, SRC_TYPE, PHYSICAL, 1)                               \
	V(CE, LAUNCH_DMA, DST_TYPE, VIRTUAL, 0)                                \
	V(CE, LAUNCH_DMA, DST_TYPE, PHYSICAL, 1)                               \
	V(CE, LAUNCH_DMA, SEMAPHORE_REDUCTION, IMIN, 0)                        \
	V(CE, LAUNCH_DMA, SEMAPHORE_REDUCTION, IMAX, 1)                        \
	V(CE, LAUNCH_DMA, SEMAPHORE_REDUCTION, IXOR, 2)                        \
	V(CE, LAUNCH_DMA, SEMAPHORE_REDUCTION, IAND, 3)                        \
	V(CE, LAUNCH_DMA, SEMAPHORE_REDUCTION, IOR, 4)                         \
	V(CE, LAUNCH_DMA, SEMAPHORE_REDUCTION, IADD, 5)                        \
	V(CE, LAUNCH_DMA, SEMAPHORE_REDUCTION, INC, 6)                         \
	V(CE, LAUNCH_DMA, SEMAPHORE_REDUCTION, DEC, 7)                         \
	V(CE, LAUNCH_DMA, SEMAPHORE_REDUCTION, FADD, 10)                       \
	V(CE, LAUNCH_DMA, SEMAPHORE_REDUCTION_SIGN, SIGNED, 0)                 \
	V(CE, LAUNCH_DMA, SEMAPHORE_REDUCTION_SIGN, UNSIGNED, 1)               \
	V(CE, LAUNCH_DMA, SEMAPHORE_PAYLOAD_SIZE, ONE_WORD, 0)                 \
	V(CE, LAUNCH_DMA, SEMAPHORE_PAYLOAD_SIZE, TWO_WORD, 1)                 \
	NVL_HW_CE_REMAP_SEL_(V, DST_X)                                         \
	NVL_HW_CE_REMAP_SEL_(V, DST_Y)                                         \
	NVL_HW_CE_REMAP_SEL_(V, DST_Z)                                         \
	NVL_HW_CE_REMAP_SEL_(V, DST_W)                                         \
	V(CE, SET_REMAP_COMPONENTS, COMPONENT_SIZE, ONE, 0)                    \
	V(CE, SET_REMAP_COMPONENTS, COMPONENT_SIZE, TWO, 1)                    \
	V(CE, SET_REMAP_COMPONENTS, COMPONENT_SIZE, THREE, 2)                  \
	V(CE, SET_REMAP_COMPONENTS, COMPONENT_SIZE, FOUR, 3)

/* method header formats (SEC_OP 31:29), for the builder and decoder */
#define NVL_HW_HDR_LIST(H)                                                     \
	H(GRP0_USE_TERT, 0)                                                    \
	H(INC_METHOD, 1)                                                       \
	H(GRP2_USE_TERT, 2)                                                    \
	H(NON_INC_METHOD, 3)                                                   \
	H(IMMD_DATA_METHOD, 4)                                                 \
	H(ONE_INC, 5)                                                          \
	H(RESERVED, 6)                                                         \
	H(END_PB_SEGMENT, 7)

#endif /* NVL_HW_METHODS_H */

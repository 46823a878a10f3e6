// SPDX-License-Identifier: MIT
/*
 * Byte images of the driver's firmware structs, built by the compiler
 * from one real version's headers (see img_gsp.h).
 */
#include <string.h>

#include "gsp.h"
#include "img_gsp.h"

#if V == 1
#define IMG(n) img_g1_##n
#elif V == 2
#define IMG(n) img_g2_##n
#else
#define IMG(n) img_g3_##n
#endif

#define OUT(s)                                                                 \
	do {                                                                   \
		memcpy(buf, &s, sizeof(s));                                    \
		return sizeof(s);                                              \
	} while (0)

size_t IMG(msg_elem)(void *buf)
{
	GSP_MSG_QUEUE_ELEMENT e;

	memset(&e, 0, sizeof(e));
	e.checkSum = G_CHECKSUM;
	e.seqNum = G_SEQNUM;
#if V >= 2 /* 535.113.01: the 48-byte header */
	e.authTagBuffer[15] = 0xa5;
	e.elemCount = G_ELEMCOUNT;
#endif
	OUT(e);
}

size_t IMG(wpr_meta)(void *buf)
{
	GspFwWprMeta m;

	memset(&m, 0, sizeof(m));
	m.magic = GSP_FW_WPR_META_MAGIC;
	m.revision = GSP_FW_WPR_META_REVISION;
	m.bootCount = G_BOOTCOUNT;
	m.gspFwHeapSize = G_HEAPSIZE;
	m.partitionRpcAddr = G_PRPC_ADDR;
	m.elfCodeOffset = G_ELF_CODE;
#if V == 3 /* 570.144: padding became flags + pmuReservedSize */
	m.flags = G_WPR_FLAGS;
	m.pmuReservedSize = G_PMU_RESERVED;
#endif
	m.verified = GSP_FW_WPR_META_VERIFIED;
	OUT(m);
}

size_t IMG(rmargs)(void *buf)
{
	GSP_ARGUMENTS_CACHED a;

	memset(&a, 0, sizeof(a));
	a.messageQueueInitArguments.pageTableEntryCount = G_PTE_COUNT;
	a.messageQueueInitArguments.cmdQueueOffset = G_CMDQ_OFF;
	a.messageQueueInitArguments.statQueueOffset = G_STATQ_OFF;
	a.gpuInstance = G_GPU_INSTANCE;
#if V == 3 /* inserted between gpuInstance and profilerArgs */
	a.bDmemStack = NV_TRUE;
#endif
	a.profilerArgs.pa = G_PROFILER_PA;
	OUT(a);
}

size_t IMG(static_info)(void *buf)
{
	GspStaticConfigInfo s;

	memset(&s, 0, sizeof(s));
#if V == 3
	s.fbio_mask = G_FBIO64; /* u64 in 570 */
	s.bIsMigSupported = NV_TRUE;
#else
	s.fbio_mask = G_FBIO32;
	s.gpcMask = G_GPCMASK; /* moved to a GR control in 570 */
	s.tpcCount = G_TPCCOUNT;
#endif
	s.fbp_mask = G_FBP;
	strcpy(s.gpuNameString, "NVIDIA model");
	s.ceClass = G_CECLASS;
	OUT(s);
}

size_t IMG(os_error_log)(void *buf)
{
	rpc_os_error_log_v17_00 l;

	memset(&l, 0, sizeof(l));
	l.chid = G_CHID;
	strcpy(l.errString, "Xid 79");
#if V == 3 /* appended without a new version suffix */
	l.preemptiveRemovalPreviousXid = G_XID;
#endif
	OUT(l);
}

size_t IMG(sku_info)(void *buf)
{
	NV2080_CTRL_BIOS_GET_SKU_INFO_PARAMS k;

	memset(&k, 0, sizeof(k));
	k.BoardID = G_BOARD;
#if V == 3 /* chipSKU[9] */
	memcpy(k.chipSKU, "TU102-A1", 8);
	k.skuConfigVersion = 2;
#else /* chipSKU[4] */
	memcpy(k.chipSKU, "102", 3);
#endif
	OUT(k);
}

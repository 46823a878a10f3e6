// SPDX-License-Identifier: MIT
/*
 * Byte images of the drift set, built by the compiler from one version's
 * headers: compiled once with -DV=1 and version 1's include path, once
 * with -DV=2 and version 2's.
 */
#include <string.h>

#include "drift_root.h"
#include "img_drift.h"

#if V == 1
#define IMG(n) img_v1_##n
#else
#define IMG(n) img_v2_##n
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
	e.checkSum = V_CHECKSUM;
	e.seqNum = V_SEQNUM;
#if V == 2
	for (int i = 0; i < 16; i++) {
		e.authTagBuffer[i] = (NvU8)(0xa0 + i);
		e.aadBuffer[i] = (NvU8)(0xb0 + i);
	}
	e.elemCount = V_ELEMCOUNT;
#endif
	OUT(e);
}

size_t IMG(wpr_meta)(void *buf)
{
	WPR_META m;

	memset(&m, 0, sizeof(m));
	m.magic = V_MAGIC;
	m.revision = V_REVISION;
	m.sizeOfSelf = V_SIZEOFSELF;
	m.bootCount = V_BOOTCOUNT;
	m.padding[1] = 0x5a; /* padding bytes survive the round trip too */
#if V == 2
	m.flags = V_WPR_FLAGS;
	m.pmuReservedSize = V_PMU_RESERVED;
#endif
	m.verified = V_VERIFIED;
	OUT(m);
}

size_t IMG(sysinfo)(void *buf)
{
	SYSTEM_INFO s;

	memset(&s, 0, sizeof(s));
	s.gpuPhysAddr = V_SYS(1);
	s.gpuPhysFbAddr = V_SYS(2);
	s.gpuPhysInstAddr = V_SYS(3);
	s.nvDomainBusDeviceFunc = V_SYS(4);
	s.simAccessBufPhysAddr = V_SYS(5);
	s.pcieAtomicsOpMask = V_SYS(6);
	s.consoleMemSize = V_SYS(7);
	s.maxUserVa = V_SYS(8);
	s.pciConfigMirrorBase = V_SYS32(9);
	s.pciConfigMirrorSize = V_SYS32(10);
	s.oorArch = 11;
	s.clPdbProperties = V_SYS(12);
#if V == 2
	s.gpuPhysIoAddr = V_IOADDR;
	s.PCIDeviceID = V_PCIDEV;
	s.PCISubDeviceID = V_PCISUBDEV;
#endif
	s.Chipset = V_SYS32(13);
	s.bGpuBehindBridge = 1;
	s.bMnocAvailable = 0;
	s.bUpstreamL0sUnsupported = 1;
	s.bUpstreamL1Unsupported = 1;
	s.hypervisorType = V_SYS32(14);
	OUT(s);
}

size_t IMG(static_config)(void *buf, int wide)
{
	STATIC_CONFIG c;

	memset(&c, 0, sizeof(c));
#if V == 2
	c.fbio_mask = wide ? V_FBIO64 : V_FBIO32;
#else
	(void)wide;
	c.fbio_mask = V_FBIO32;
	c.gpcMask = V_GPCMASK;
#endif
	c.fbp_mask = V_FBP;
	c.l2CacheSize = V_L2;
	OUT(c);
}

size_t IMG(os_error_log)(void *buf)
{
	rpc_os_error_log_v17_00 l;

	memset(&l, 0, sizeof(l));
	l.exceptType = V_EXCEPT;
	l.runlistId = V_RUNLIST;
	l.chid = V_CHID;
	strcpy(l.errString, "MMU fault");
#if V == 2
	l.preemptiveRemovalPreviousXid = V_XID;
#endif
	OUT(l);
}

size_t IMG(sku_info)(void *buf)
{
	NV2080_CTRL_BIOS_GET_SKU_INFO_PARAMS p;

	memset(&p, 0, sizeof(p));
#if V == 2
	p.boardId = V_BOARD;
	memcpy(p.chipSKU, "G001-A01", 8);
	memcpy(p.chipSKUMod, "A1b2", 4);
	p.skuConfigVersion = V_SKUCFG;
#else
	p.BoardID = V_BOARD;
	memcpy(p.chipSKU, "G01", 3);
	memcpy(p.chipSKUMod, "A", 1);
#endif
	OUT(p);
}

size_t IMG(gpc_mask)(void *buf)
{
#if V == 2
	NV2080_CTRL_GR_GET_GPC_MASK_PARAMS p;

	memset(&p, 0, sizeof(p));
	p.gpcMask = V_GPCMASK;
	OUT(p);
#else
	(void)buf;
	return 0; /* the control does not exist in version 1 */
#endif
}

/* engine samples: 3 filled (of 4 in version 1, of 6 in version 2) */
size_t IMG(engine_util)(void *buf)
{
	NV2080_CTRL_PERF_GET_ENGINE_UTIL_PARAMS p;

	memset(&p, 0, sizeof(p));
	p.count = 3;
	for (unsigned i = 0; i < 3; i++) {
		p.samples[i].util = V_UTIL(i);
		p.samples[i].procId = V_PROC(i);
#if V == 2
		p.samples[i].subProcessID = i + 1;
		p.samples[i].timeStamp = V_UTIL_TS + i;
#endif
	}
	OUT(p);
}

/* SPDX-License-Identifier: MIT */
/*
 * abigen drift set, version 2: three fields inserted in the middle of the
 * system-information struct (after clPdbProperties).
 */
#ifndef DRIFT_SYSINFO_H
#define DRIFT_SYSINFO_H
#include "nvtypes.h"

typedef struct {
	NV_DECLARE_ALIGNED(NvU64 gpuPhysAddr, 8);
	NV_DECLARE_ALIGNED(NvU64 gpuPhysFbAddr, 8);
	NV_DECLARE_ALIGNED(NvU64 gpuPhysInstAddr, 8);
	NV_DECLARE_ALIGNED(NvU64 nvDomainBusDeviceFunc, 8);
	NV_DECLARE_ALIGNED(NvU64 simAccessBufPhysAddr, 8);
	NV_DECLARE_ALIGNED(NvU64 pcieAtomicsOpMask, 8);
	NV_DECLARE_ALIGNED(NvU64 consoleMemSize, 8);
	NV_DECLARE_ALIGNED(NvU64 maxUserVa, 8);
	NvU32 pciConfigMirrorBase;
	NvU32 pciConfigMirrorSize;
	NvU8 oorArch;
	NV_DECLARE_ALIGNED(NvU64 clPdbProperties, 8);
	NV_DECLARE_ALIGNED(NvU64 gpuPhysIoAddr, 8);
	NvU16 PCIDeviceID;
	NvU16 PCISubDeviceID;
	NvU32 Chipset;
	NvBool bGpuBehindBridge;
	NvBool bMnocAvailable;
	NvBool bUpstreamL0sUnsupported;
	NvBool bUpstreamL1Unsupported;
	NvU32 hypervisorType;
} SYSTEM_INFO;

#endif

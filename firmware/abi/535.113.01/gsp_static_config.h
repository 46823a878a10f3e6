/* SPDX-License-Identifier: MIT */
/*
 * GET_GSP_STATIC_INFO reply and GSP_SET_SYSTEM_INFO payload of GSP-RM
 * 535.113.01, trimmed to the fields nouvelle reads.
 */
#ifndef NVL_FW_535_GSP_STATIC_CONFIG_H
#define NVL_FW_535_GSP_STATIC_CONFIG_H

#include "nvtypes.h"

typedef struct GspStaticConfigInfo_t {
	NvU8 grCapsBits[23];
	NvU32 gpcMask;
	NvU32 tpcCount;
	NV_DECLARE_ALIGNED(NvU64 fbLength, 8);
	NvU32 fbio_mask;
	NvU32 fbp_mask;
	NvBool poisonFuseEnabled;
	NV_DECLARE_ALIGNED(NvU64 fb_length, 8);
	NvU32 ram_type;
	NvU32 bar1PdeBase;
	NvU32 bar2PdeBase;
	NvBool bVbiosValid;
	NvU32 vbiosSubVendor;
	NvU32 vbiosSubDevice;
	NvBool bIsQuadroGeneric;
	NvBool bIsTitan;
	NvHandle hInternalClient;
	NvHandle hInternalDevice;
	NvHandle hInternalSubdevice;
	char gpuNameString[64];
	char gpuShortNameString[64];
	NvU32 numChannels;
	NvU32 numCopyEngines;
	NvU32 hostClass;
	NvU32 ceClass;
} GspStaticConfigInfo;

typedef struct GspSystemInfo {
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
	NvU32 Chipset;
	NvBool bGpuBehindBridge;
	NvBool bMnocAvailable;
	NvBool bUpstreamL0sUnsupported;
	NvBool bUpstreamL1Unsupported;
	NvBool bUpstreamL1PorSupported;
	NvBool bUpstreamL1PorMobileOnly;
	NvU8 upstreamAddressValid;
	NvBool bIsPassthru;
} GspSystemInfo;

#endif

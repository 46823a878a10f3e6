// SPDX-License-Identifier: MIT
/*
 * One firmware version's wire formats, compiled once per version with
 * NVL_FW_ROOT (that version's root header), NVL_FW_IDENT (its C form,
 * r570_144) and its include directories (src/model/gsp/meson.build).
 * The layout comes from the compiler and that version's headers, never
 * from abigen.
 */
#include <stddef.h>
#include <string.h>

#include NVL_FW_ROOT
#include "model/gsp/wire.h"

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define SYM(n) CAT(n, NVL_FW_IDENT)

static size_t static_info(const struct nvl_fw_static_src *s, void *out)
{
	GspStaticConfigInfo *si = out;

	memset(si, 0, sizeof(*si));
	si->fbLength = s->fb_length;
	si->fb_length = s->fb_length;
#ifdef NVL_FW_STATIC_INFO_HAS_GPC
	/* 570 dropped these: the GR controls report them */
	si->gpcMask = s->gpc_mask;
	si->tpcCount = s->tpc_count;
#endif
	si->bVbiosValid = NV_TRUE;
	si->hInternalClient = s->h_client;
	si->hInternalDevice = s->h_device;
	si->hInternalSubdevice = s->h_subdevice;
	strncpy(si->gpuNameString, s->name, sizeof(si->gpuNameString) - 1);
	strncpy(si->gpuShortNameString, s->short_name,
		sizeof(si->gpuShortNameString) - 1);
	si->numChannels = s->num_channels;
	si->numCopyEngines = s->num_ce;
	si->hostClass = s->host_class;
	si->ceClass = s->ce_class;
	return sizeof(*si);
}

static void rmargs(const void *in, struct nvl_fw_rmargs *out)
{
	GSP_ARGUMENTS_CACHED a;
	const MESSAGE_QUEUE_INIT_ARGUMENTS *q = &a.messageQueueInitArguments;

	memcpy(&a, in, sizeof(a));
	out->shared_pa = q->sharedMemPhysAddr;
	out->pte_count = q->pageTableEntryCount;
	out->cmdq_off = q->cmdQueueOffset;
	out->statq_off = q->statQueueOffset;
	out->sr_old_level = a.srInitArguments.oldLevel;
	out->sr_in_pm_transition = a.srInitArguments.bInPMTransition != 0;
}

static bool control(uint32_t cmd, void *params, size_t size,
		    const struct nvl_fw_static_src *src, uint32_t *status)
{
	switch (cmd) {
#ifdef NV2080_CTRL_CMD_GR_GET_GPC_MASK
	case NV2080_CTRL_CMD_GR_GET_GPC_MASK: {
		NV2080_CTRL_GR_GET_GPC_MASK_PARAMS p;

		if (size != sizeof(p)) {
			*status = NV_ERR_INVALID_PARAM_STRUCT;
			return true;
		}
		memcpy(&p, params, sizeof(p));
		p.gpcMask = src->gpc_mask;
		memcpy(params, &p, sizeof(p));
		*status = NV_OK;
		return true;
	}
#endif
	default:
		(void)params;
		(void)size;
		(void)src;
		(void)status;
		return false;
	}
}

static void elem_write(void *hdr, uint32_t seq, uint32_t pages, uint32_t csum)
{
	GSP_MSG_QUEUE_ELEMENT e;

	memcpy(&e, hdr, GSP_MSG_QUEUE_ELEMENT_HDR_SIZE);
	e.seqNum = seq;
	e.checkSum = csum;
#if GSP_MSG_QUEUE_ELEMENT_HDR_SIZE > 8
	e.elemCount = pages;
#else
	(void)pages; /* 535.54.03: the RPC length says how many */
#endif
	memcpy(hdr, &e, GSP_MSG_QUEUE_ELEMENT_HDR_SIZE);
}

static void elem_read(const void *hdr, uint32_t *seq, uint32_t *pages)
{
	GSP_MSG_QUEUE_ELEMENT e;

	memcpy(&e, hdr, GSP_MSG_QUEUE_ELEMENT_HDR_SIZE);
	*seq = e.seqNum;
#if GSP_MSG_QUEUE_ELEMENT_HDR_SIZE > 8
	*pages = e.elemCount;
#else
	*pages = 0;
#endif
}

_Static_assert(offsetof(GSP_MSG_QUEUE_ELEMENT, rpc) ==
		       GSP_MSG_QUEUE_ELEMENT_HDR_SIZE,
	       "the RPC header follows the element header");
static size_t os_error_log(uint32_t xid, uint32_t runlist, uint32_t chid,
			   const char *text, void *out)
{
	rpc_os_error_log_v17_00 l;

	memset(&l, 0, sizeof(l));
	l.exceptType = xid;
	l.runlistId = runlist;
	l.chid = chid;
	strncpy(l.errString, text, sizeof(l.errString) - 1);
	memcpy(out, &l, sizeof(l));
	return sizeof(l);
}

static bool shadow_fault_buf(const void *params, size_t size,
			     struct nvl_fw_shadow_reg *out)
{
	NV2080_CTRL_INTERNAL_GMMU_REGISTER_CLIENT_SHADOW_FAULT_BUFFER_PARAMS p;

	if (size != sizeof(p))
		return false;
	memcpy(&p, params, sizeof(p));
	memset(out, 0, sizeof(*out));
	out->queue_pa = p.shadowFaultBufferQueuePhysAddr;
	out->size = p.shadowFaultBufferSize;
#ifdef NV2080_CTRL_FAULT_BUFFER_NON_REPLAYABLE
	out->type = p.shadowFaultBufferType;
#endif
	out->pte_off = offsetof(
		NV2080_CTRL_INTERNAL_GMMU_REGISTER_CLIENT_SHADOW_FAULT_BUFFER_PARAMS,
		shadowFaultBufferPteArray);
	out->max_pages =
		NV2080_CTRL_INTERNAL_GMMU_CLIENT_SHADOW_FAULT_BUFFER_MAX_PAGES;
	return true;
}

_Static_assert(sizeof(rpc_os_error_log_v17_00) <= 512, "OS_ERROR_LOG");
_Static_assert(sizeof(GSP_ARGUMENTS_CACHED) <= 256, "RM arguments");

const struct nvl_fw_wire SYM(nvl_fw_wire_) = {
	.version = NVL_FW_ABI_VERSION,
	.static_info = static_info,
	.rmargs_size = sizeof(GSP_ARGUMENTS_CACHED),
	.rmargs = rmargs,
	.control = control,
	.elem_hdr = GSP_MSG_QUEUE_ELEMENT_HDR_SIZE,
	.payload_max = GSP_MSG_QUEUE_RPC_PAYLOAD_MAX,
	/* 535.54.03's checksum stops at the element's end */
	.csum_padded = GSP_MSG_QUEUE_ELEMENT_HDR_SIZE > 8,
	.elem_write = elem_write,
	.elem_read = elem_read,
	.os_error_log = os_error_log,
	.shadow_fault_buf = shadow_fault_buf,
};

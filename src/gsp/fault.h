/* SPDX-License-Identifier: MIT */
/*
 * Faults and robust-channel events through the GSP (docs/faults.md): the
 * shadow fault buffer registration and the decoding of RC_TRIGGERED and
 * OS_ERROR_LOG in the booted firmware version's layout.
 */
#ifndef NVL_GSP_FAULT_H
#define NVL_GSP_FAULT_H

#include <stddef.h>
#include <stdint.h>

struct nvl_gsp;

/**
 * nvl_gsp_shadow_fault_register() - register the driver's non-replayable
 * shadow fault buffer with RM (INTERNAL_GMMU_REGISTER_CLIENT_SHADOW_FAULT_
 * BUFFER on subdevice @hsub): its bookkeeping page at DMA address
 * @queue_pa and @npages entry pages at @ptes. Return: 0, -EINVAL (too
 * many pages for the version), -EPROTO (the version lacks the control),
 * an RPC or NV_STATUS error.
 */
int nvl_gsp_shadow_fault_register(struct nvl_gsp *gsp, uint32_t hsub,
				  uint64_t queue_pa, const uint64_t *ptes,
				  uint32_t npages);

/**
 * nvl_gsp_shadow_fault_unregister() - stop RM copying faults there.
 * Return: 0 or an RPC error.
 */
int nvl_gsp_shadow_fault_unregister(struct nvl_gsp *gsp, uint32_t hsub);

/** struct nvl_gsp_rc - a robust-channel event, decoded. */
struct nvl_gsp_rc {
	/** @chid: the channel; @xid: exceptType (an Xid) */
	uint32_t chid, xid;
	/** @runlist: OS_ERROR_LOG runlistId / RC_TRIGGERED engine type */
	uint32_t runlist;
	/** @text: OS_ERROR_LOG's message ("" for RC_TRIGGERED) */
	char text[256];
};

/**
 * nvl_gsp_rc_decode() - decode @event (RC_TRIGGERED or OS_ERROR_LOG) of
 * @len bytes at @data in the booted version's layout.
 * Return: 0 or -EPROTO.
 */
int nvl_gsp_rc_decode(struct nvl_gsp *gsp, uint32_t event, const void *data,
		      size_t len, struct nvl_gsp_rc *out);

#endif /* NVL_GSP_FAULT_H */

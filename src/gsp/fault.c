// SPDX-License-Identifier: MIT
/*
 * DOC: shadow fault buffer and RC events (gsp layer)
 *
 * The control and the two events whose layout moved between firmware
 * versions (570 doubled the shadow buffer's page array and appended its
 * type; OS_ERROR_LOG gained preemptiveRemovalPreviousXid), packed and
 * unpacked through the generated neutral layer of the booted version.
 */
#include <errno.h>
#include <string.h>

#include "base/alloc.h"
#include "base/log.h"
#include "gsp/fault.h"
#include "gsp/priv.h"
#include "gsp/rm.h"
#include "gspabi.h"

int nvl_gsp_shadow_fault_register(struct nvl_gsp *gsp, uint32_t hsub,
				  uint64_t queue_pa, const uint64_t *ptes,
				  uint32_t npages)
{
	const struct gspabi_version *v = gsp->abi;
	struct gspabi_shadow_fault_buf *p;
	size_t size;
	uint64_t cmd;
	void *wire;
	int ret;

	if (!v ||
	    gspabi_to_wire(
		    v, GSPABI_T_CONTROL,
		    GSPABI_CONTROL_NV2080_CTRL_CMD_INTERNAL_GMMU_REGISTER_CLIENT_SHADOW_FAULT_BUFFER,
		    &cmd))
		return nvl_error(-EPROTO,
				 "gsp: no shadow fault buffer control");
	size = v->structs[GSPABI_S_SHADOW_FAULT_BUF].wire_size;
	p = nvl_zalloc(sizeof(*p));
	wire = nvl_zalloc(size ? size : 1);
	if (!p || !wire) {
		ret = nvl_error(-ENOMEM, "gsp: out of memory");
		goto out;
	}
	p->queue_pa = queue_pa;
	p->size = npages * 4096u;
	for (uint32_t i = 0; i < npages && i < NVL_ARRAY_SIZE(p->ptes); i++)
		p->ptes[i] = ptes[i];
	p->type = 0; /* non-replayable */
	/* a version with a shorter array refuses more pages in pack */
	if (!size || npages > NVL_ARRAY_SIZE(p->ptes) ||
	    gspabi_pack(v, GSPABI_S_SHADOW_FAULT_BUF, p, wire, size)) {
		ret = nvl_error(-EINVAL,
				"gsp: %s: shadow fault buffer of %u pages",
				v->tag, npages);
		goto out;
	}
	ret = nvl_gsp_rm_control(gsp, hsub, (uint32_t)cmd, wire, size);
out:
	nvl_free(wire);
	nvl_free(p);
	return ret;
}

int nvl_gsp_shadow_fault_unregister(struct nvl_gsp *gsp, uint32_t hsub)
{
	uint32_t type = 0;

	return nvl_gsp_rm_control(
		gsp, hsub,
		GSPABI_K_CONTROL_NV2080_CTRL_CMD_INTERNAL_GMMU_UNREGISTER_CLIENT_SHADOW_FAULT_BUFFER,
		&type, sizeof(type));
}

int nvl_gsp_rc_decode(struct nvl_gsp *gsp, uint32_t event, const void *data,
		      size_t len, struct nvl_gsp_rc *out)
{
	const struct gspabi_version *v = gsp->abi;

	memset(out, 0, sizeof(*out));
	if (!v)
		return nvl_error(-EPROTO, "gsp: no firmware version");
	if (event == GSPABI_K_EVENT_RC_TRIGGERED) {
		struct gspabi_rc_triggered r;

		if (gspabi_unpack(v, GSPABI_S_RC_TRIGGERED, data, len, &r))
			return nvl_error(-EPROTO, "gsp: RC_TRIGGERED of %zu B",
					 len);
		out->chid = r.chid;
		out->xid = r.exceptType;
		out->runlist = r.nv2080EngineType;
		return 0;
	}
	if (event == GSPABI_K_EVENT_OS_ERROR_LOG) {
		struct gspabi_os_error_log l;

		if (gspabi_unpack(v, GSPABI_S_OS_ERROR_LOG, data, len, &l))
			return nvl_error(-EPROTO, "gsp: OS_ERROR_LOG of %zu B",
					 len);
		out->chid = l.chid;
		out->xid = l.exceptType;
		out->runlist = l.runlistId;
		/* the firmware's bytes, logged: escaped (nvl_log_escape) */
		nvl_log_escape(out->text, sizeof(out->text),
			       (const char *)l.errString, sizeof(l.errString));
		return 0;
	}
	return nvl_error(-EINVAL, "gsp: event %#x is not an RC event", event);
}

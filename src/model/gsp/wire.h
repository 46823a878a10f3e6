/* SPDX-License-Identifier: MIT */
/*
 * The version-dependent side of the model's GSP firmware: code compiled
 * once per firmware version against that version's own headers
 * (firmware/abi/<version>/, see src/model/gsp/meson.build), selected at
 * boot by the version in the image's manifest. Nothing here includes a
 * firmware header: the per-version files do.
 */
#ifndef NVL_MODEL_GSP_WIRE_H
#define NVL_MODEL_GSP_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** struct nvl_fw_static_src - what GET_GSP_STATIC_INFO reports. */
struct nvl_fw_static_src {
	uint64_t fb_length;
	uint32_t gpc_mask, tpc_count;
	uint32_t h_client, h_device, h_subdevice;
	const char *name, *short_name;
	uint32_t num_channels, num_ce, host_class, ce_class;
};

/** struct nvl_fw_rmargs - the queue arguments of GSP_ARGUMENTS_CACHED. */
struct nvl_fw_rmargs {
	uint64_t shared_pa, cmdq_off, statq_off;
	uint32_t pte_count;
	/* srInitArguments: oldLevel, bInPMTransition (a resume) */
	uint32_t sr_old_level;
	bool sr_in_pm_transition;
};

/** struct nvl_fw_shadow_reg - a shadow fault buffer registration. */
struct nvl_fw_shadow_reg {
	uint64_t queue_pa; /* the queue's bookkeeping page */
	uint32_t size; /* bytes of entries */
	uint32_t type; /* 0 non-replayable */
	size_t pte_off; /* byte offset of the PTE array in the params */
	uint32_t max_pages; /* its length in this version */
};

/** struct nvl_fw_wire - one firmware version's wire formats. */
struct nvl_fw_wire {
	/** @version: "570.144" */
	const char *version;
	/** @static_info: GspStaticConfigInfo of this version into @out (at
	 * least 4 KiB); returns its size */
	size_t (*static_info)(const struct nvl_fw_static_src *src, void *out);
	/** @rmargs_size: bytes of GSP_ARGUMENTS_CACHED (at most 256) */
	size_t rmargs_size;
	/** @rmargs: the queue arguments out of this version's RM arguments */
	void (*rmargs)(const void *in, struct nvl_fw_rmargs *out);
	/** @elem_hdr: bytes of the element header before the RPC header
	 * (8 in 535.54.03, 48 from 535.113.01) */
	size_t elem_hdr;
	/** @payload_max: RPC payload bytes one element carries */
	size_t payload_max;
	/** @csum_padded: the checksum covers the page-padded element (else
	 * only header + RPC length, zero-extended to 8 bytes) */
	bool csum_padded;
	/** @elem_write: the element header at @hdr: @seq, @pages where the
	 * version has elemCount, checkSum @csum */
	void (*elem_write)(void *hdr, uint32_t seq, uint32_t pages,
			   uint32_t csum);
	/** @elem_read: seqNum and elemCount (0 where the version has none:
	 * the RPC length gives the size) */
	void (*elem_read)(const void *hdr, uint32_t *seq, uint32_t *pages);
	/** @control: a control only this version has (570's GR controls,
	 * where the GPC mask moved); false when it is not one of them */
	bool (*control)(uint32_t cmd, void *params, size_t size,
			const struct nvl_fw_static_src *src, uint32_t *status);
	/** @os_error_log: this version's OS_ERROR_LOG into @out (at least
	 * 512 bytes); returns its size */
	size_t (*os_error_log)(uint32_t xid, uint32_t runlist, uint32_t chid,
			       const char *text, void *out);
	/** @shadow_fault_buf: decode REGISTER_CLIENT_SHADOW_FAULT_BUFFER;
	 * false when @size is not this version's */
	bool (*shadow_fault_buf)(const void *params, size_t size,
				 struct nvl_fw_shadow_reg *out);
};

/**
 * nvl_fw_wire_find() - the wire formats of firmware @version; NULL or an
 * unknown version gives the default (535.113.01).
 */
const struct nvl_fw_wire *nvl_fw_wire_find(const char *version);

#endif /* NVL_MODEL_GSP_WIRE_H */

/* SPDX-License-Identifier: MIT */
/*
 * The firmware version a boot uses, chosen from the image, and what the
 * driver takes from the generated ABI layer (firmware/abi/meson.build,
 * docs/abigen.md) for it.
 */
#ifndef NVL_GSP_ABI_VER_H
#define NVL_GSP_ABI_VER_H

#include <stdint.h>

struct gspabi_version;

/**
 * struct nvl_gsp_heap_rules - gsp_fw_heap.h of one firmware version, as
 * evaluated by abigen under the pinned define profile (coverage builds
 * off): MiB unless named _kb.
 */
struct nvl_gsp_heap_rules {
	uint64_t os_libos2_mb, os_libos3_mb;
	uint64_t rm_tu10x_mb, rm_gh100_mb;
	uint64_t per_gb_fb_kb, client_alloc_kb, client_alloc_count;
	uint64_t libos2_min_mb, libos2_max_mb;
	uint64_t libos3_min_mb, libos3_max_mb;
	uint64_t wpr_meta_size; /* GspFwWprMeta's bytes, below the heap */
};

/** NVL_GSP_ABI_DEFAULT - the version of an image that names none. */
#define NVL_GSP_ABI_DEFAULT "535.113.01"

/**
 * nvl_gsp_abi_find() - the generated layer of firmware @version (NULL:
 * NVL_GSP_ABI_DEFAULT).
 * Return: the version, or NULL with -ENOEXEC in nvl_last_error() when
 * the driver was not built for it.
 */
const struct gspabi_version *nvl_gsp_abi_find(const char *version);

/**
 * nvl_gsp_abi_heap_rules() - the heap constants of @v into @out.
 * Return: 0, or -EPROTO when the version lacks one (a broken want list).
 */
int nvl_gsp_abi_heap_rules(const struct gspabi_version *v,
			   struct nvl_gsp_heap_rules *out);

/**
 * nvl_gsp_abi_const() - constant @id (enum gspabi_const_id) of @v; 0 when
 * the version lacks it (callers use constants every version has).
 */
uint64_t nvl_gsp_abi_const(const struct gspabi_version *v, unsigned id);

/**
 * nvl_gsp_abi_event_in() - an event number as @v sends it, in the
 * driver's numbering (NVL_GSP_ABI_DEFAULT's, GSPABI_K_EVENT_* of
 * gspabi.h): 570.144's 0x101c (GSP_LOCKDOWN_NOTICE) becomes 0x101d.
 * NULL @v, or @v the driver's own version, passes unchanged. A number @v
 * does not define, or an event the driver's numbering lacks, comes back
 * as @wire | NVL_GSP_ABI_EVENT_FOREIGN: still an event (unhandled), never
 * the driver's event that happens to have @wire's number (570.144 has no
 * 0x101e; 535.113.01's 0x101e is MIG_CI_CONFIG_UPDATE).
 */
uint32_t nvl_gsp_abi_event_in(const struct gspabi_version *v, uint32_t wire);

/* marks an event number nvl_gsp_abi_event_in() could not translate */
#define NVL_GSP_ABI_EVENT_FOREIGN 0x80000000u

#endif /* NVL_GSP_ABI_VER_H */

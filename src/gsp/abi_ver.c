// SPDX-License-Identifier: MIT
/*
 * Firmware version selection and the generated layer's constants. The
 * version comes from the image being booted; its constants were evaluated
 * by abigen under the pinned define profile and re-checked by the C
 * compiler against that version's own headers (_Static_assert).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>

#include "base/compiler.h"
#include "base/log.h"
#include "gsp/abi_ver.h"
#include "gspabi.h"

const struct gspabi_version *nvl_gsp_abi_find(const char *version)
{
	const struct gspabi_version *v;

	if (!version)
		version = NVL_GSP_ABI_DEFAULT;
	v = gspabi_version_find(version);
	if (!v)
		nvl_error(-ENOEXEC,
			  "gsp: firmware %s: this build has no ABI layer for "
			  "it (firmware/abi/versions.txt)",
			  version);
	return v;
}

int nvl_gsp_abi_heap_rules(const struct gspabi_version *v,
			   struct nvl_gsp_heap_rules *out)
{
	static const struct {
		enum gspabi_const_id id;
		size_t off;
	} map[] = {
#define R(c, f) {GSPABI_C_##c, offsetof(struct nvl_gsp_heap_rules, f)}
		R(HEAP_OS_LIBOS2_MB, os_libos2_mb),
		R(HEAP_OS_LIBOS3_MB, os_libos3_mb),
		R(HEAP_RM_TU10X_MB, rm_tu10x_mb),
		R(HEAP_RM_GH100_MB, rm_gh100_mb),
		R(HEAP_PER_GB_FB_KB, per_gb_fb_kb),
		R(HEAP_CLIENT_ALLOC_KB, client_alloc_kb),
		R(HEAP_CLIENT_ALLOC_COUNT, client_alloc_count),
		R(HEAP_LIBOS2_MIN_MB, libos2_min_mb),
		R(HEAP_LIBOS2_MAX_MB, libos2_max_mb),
		R(HEAP_LIBOS3_MIN_MB, libos3_min_mb),
		R(HEAP_LIBOS3_MAX_MB, libos3_max_mb),
#undef R
	};
	struct nvl_gsp_heap_rules r;

	for (size_t i = 0; i < NVL_ARRAY_SIZE(map); i++) {
		int64_t val;

		if (gspabi_const_get(v, map[i].id, &val) || val < 0)
			return nvl_error(-EPROTO,
					 "gsp: firmware %s: heap constant %u "
					 "missing",
					 v->tag, (unsigned)map[i].id);
		*(uint64_t *)((char *)&r + map[i].off) = (uint64_t)val;
	}
	if (!v->structs[GSPABI_S_WPR_META].present)
		return nvl_error(-EPROTO, "gsp: firmware %s: no GspFwWprMeta",
				 v->tag);
	r.wpr_meta_size = v->structs[GSPABI_S_WPR_META].wire_size;
	*out = r;
	return 0;
}

uint64_t nvl_gsp_abi_const(const struct gspabi_version *v, unsigned id)
{
	int64_t val = 0;

	if (gspabi_const_get(v, (enum gspabi_const_id)id, &val))
		return 0;
	return (uint64_t)val;
}

/*
 * The default version's table, looked up by name once: every event the
 * driver receives is renumbered through it, and the lookup compares
 * version strings (~80 instructions per event on the fault's path). The
 * table is static, so racing first callers store the same pointer.
 */
static const struct gspabi_version *abi_default(void)
{
	static const struct gspabi_version *_Atomic cached;
	const struct gspabi_version *d =
		atomic_load_explicit(&cached, memory_order_relaxed);

	if (!d) {
		d = gspabi_version_find(NVL_GSP_ABI_DEFAULT);
		atomic_store_explicit(&cached, d, memory_order_relaxed);
	}
	return d;
}

uint32_t nvl_gsp_abi_event_in(const struct gspabi_version *v, uint32_t wire)
{
	const struct gspabi_version *d = abi_default();
	uint32_t neutral;
	uint64_t out;

	if (!v || v == d || !d)
		return wire;
	/* untranslatable: not the driver's event of the same number */
	if (gspabi_from_wire(v, GSPABI_T_EVENT, wire, &neutral) ||
	    gspabi_to_wire(d, GSPABI_T_EVENT, neutral, &out))
		return wire | NVL_GSP_ABI_EVENT_FOREIGN;
	return (uint32_t)out;
}

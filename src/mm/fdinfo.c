// SPDX-License-Identifier: MIT
/*
 * DOC: Per-client memory accounting (DRM fdinfo)
 *
 * Like drm_show_memory_stats(): walk the client's BO handles (imported ones
 * included) and sum sizes per region: "vram", "gtt" and "cpu" (SYSTEM, and
 * swapped-out BOs, which are not resident). total = every BO in the
 * region; shared = exported (the kernel counts objects with more than one
 * handle; nouvelle counts exported ones, which another client may import);
 * resident = its memory is present; active = resident with unsignalled
 * fences; purgeable = resident, idle (an active BO is not purgeable, as in
 * drm_show_memory_stats()), marked DONTNEED, not shared, not pinned and
 * not CPU-mapped (what the shrinker could drop); memory (the
 * older key) = resident. Values in KiB, as the kernel prints them.
 * The header keys (drm-driver, drm-client-id, ...) and the engine keys
 * are the core's (src/core/fdinfo.c), which appends these lines.
 */
#include <errno.h>
#include <stdio.h>

#include "base/log.h"
#include "mm/bo.h"

enum { R_VRAM, R_GTT, R_CPU, R_N };

static const char *const region_name[R_N] = {"vram", "gtt", "cpu"};

struct usage {
	uint64_t total, shared, resident, purgeable, active;
};

int nvl_mm_fdinfo(struct nvl_client *client, char *buf, size_t len)
{
	struct usage u[R_N] = {0};
	uint32_t id = 1;
	void *obj;
	size_t n = 0;
	int w;

	if (!client)
		return nvl_error(-EINVAL, "fdinfo: no client");
	nvl_client_lock(client);
	while ((id = nvl_idr_next(&client->tables[NVL_HANDLE_BO], id, &obj))) {
		struct nvl_bo *bo = nvl_bo_from_gem(obj);
		struct nvl_mm *mm = bo->mm;
		int r;
		bool res;

		nvl_mutex_lock(&mm->lock);
		switch (bo->dom) {
		case NVL_GEM_DOMAIN_VRAM:
			r = R_VRAM;
			break;
		case NVL_GEM_DOMAIN_GTT:
			r = R_GTT;
			break;
		default:
			r = R_CPU;
			break;
		}
		res = bo->dom != NVL_GEM_DOMAIN_NONE;
		u[r].total += bo->gem.size_B;
		if (nvl_bo_is_shared(bo))
			u[r].shared += bo->gem.size_B;
		if (res) {
			u[r].resident += bo->gem.size_B;
			if (nvl_resv_test_signaled(
				    bo->gem.resv, NVL_RESV_USAGE_BOOKKEEP) <= 0)
				u[r].active += bo->gem.size_B;
			else if (nvl_bo_purgeable(bo) && !bo->pin_count &&
				 !bo->map_count)
				u[r].purgeable += bo->gem.size_B;
		}
		nvl_mutex_unlock(&mm->lock);
		id++;
	}
	nvl_client_unlock(client);

#define EMIT(...)                                                              \
	do {                                                                   \
		w = snprintf(n < len ? buf + n : NULL, n < len ? len - n : 0,  \
			     __VA_ARGS__);                                     \
		n += (size_t)w;                                                \
	} while (0)
	for (int r = 0; r < R_N; r++) {
		const char *nm = region_name[r];

		EMIT("drm-memory-%s:\t%llu KiB\n", nm,
		     (unsigned long long)(u[r].resident >> 10));
		EMIT("drm-total-%s:\t%llu KiB\n", nm,
		     (unsigned long long)(u[r].total >> 10));
		EMIT("drm-shared-%s:\t%llu KiB\n", nm,
		     (unsigned long long)(u[r].shared >> 10));
		EMIT("drm-resident-%s:\t%llu KiB\n", nm,
		     (unsigned long long)(u[r].resident >> 10));
		EMIT("drm-purgeable-%s:\t%llu KiB\n", nm,
		     (unsigned long long)(u[r].purgeable >> 10));
		EMIT("drm-active-%s:\t%llu KiB\n", nm,
		     (unsigned long long)(u[r].active >> 10));
	}
#undef EMIT
	return (int)n;
}

// SPDX-License-Identifier: MIT
/*
 * Fuzz target: arbitrary sequences of syncobj calls (create, destroy, reset,
 * signal, timeline signal, polling waits with any flags and points, query,
 * transfer, sync-file export/import, driver-side pending fences signalled
 * later) on one client, handles 0..9 so unknown handles are common. Every
 * call must return 0 or one of the errno values its contract lists, and a
 * successful timeline signal of point p must make LAST_SUBMITTED >= p.
 * Input: 4-byte records (op, handle, point, flags).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/client.h"
#include "sync/syncobj.h"

#define NPEND 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void expect(int ret, int a, int b)
{
	if (ret != 0 && ret != a && ret != b)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nvl_fence *pend[NPEND] = {NULL};
	struct nvl_client *c;
	int fd = -1;

	if (nvl_client_create(&c))
		return 0;
	for (size_t off = 0; off + 4 <= size; off += 4) {
		const uint8_t *r = data + off;
		uint32_t h = r[1] % 10, h2 = (r[1] >> 4) % 10, out = 0;
		uint64_t p = r[2] % 16, q = 0;
		uint32_t flags = r[3];
		int ret;

		switch (r[0] % 12) {
		case 0:
			expect(nvl_syncobj_create(c, flags & 1, &out), 0, 0);
			break;
		case 1:
			expect(nvl_syncobj_destroy(c, h), -EINVAL, 0);
			break;
		case 2:
			expect(nvl_syncobj_reset(c, &h, 1), -ENOENT, 0);
			break;
		case 3:
			expect(nvl_syncobj_signal(c, &h, 1), -ENOENT, 0);
			break;
		case 4:
			ret = nvl_syncobj_timeline_signal(c, &h, &p, 1);
			expect(ret, -ENOENT, 0);
			if (!ret && p &&
			    (nvl_syncobj_query(
				     c, &h, &q, 1,
				     NVL_SYNCOBJ_QUERY_LAST_SUBMITTED) ||
			     q < p))
				abort();
			break;
		case 5: {
			uint32_t hs[2] = {h, h2}, first;
			uint64_t ps[2] = {p, r[3] % 8};

			ret = nvl_syncobj_wait(
				c, hs, (flags & 0x80) ? ps : NULL,
				1 + (flags & 1), 0, flags & 0x1f, &first);
			if (ret != -EINVAL && ret != -ENOENT && ret != 0 &&
			    ret != -ETIME)
				abort();
			break;
		}
		case 6:
			ret = nvl_syncobj_query(c, &h, &q, 1, flags & 3);
			expect(ret, -EINVAL, -ENOENT);
			break;
		case 7:
			ret = nvl_syncobj_transfer(c, h, p, h2, r[3] % 8, 0);
			expect(ret, -EINVAL, -ENOENT);
			break;
		case 8:
			if (fd >= 0)
				close(fd);
			fd = -1;
			ret = nvl_syncobj_export_sync_file(c, h, p, &fd);
			expect(ret, -EINVAL, -ENOENT);
			break;
		case 9:
			ret = nvl_syncobj_import_sync_file(c, h, p, fd);
			expect(ret, -EINVAL, -ENOENT);
			break;
		case 10: {
			struct nvl_syncobj *o = nvl_syncobj_find(c, h);
			struct nvl_fence **slot = &pend[flags % NPEND];
			struct nvl_fence_chain *chain;

			if (!o)
				break;
			if (!*slot &&
			    nvl_fence_create(slot, nvl_fence_context_alloc(1),
					     1)) {
				nvl_syncobj_put(o);
				break;
			}
			chain = p ? nvl_fence_chain_alloc() : NULL;
			if (chain)
				nvl_syncobj_add_point(o, chain, *slot, p);
			else
				nvl_syncobj_replace_fence(o, *slot);
			nvl_syncobj_put(o);
			break;
		}
		case 11: {
			struct nvl_fence **slot = &pend[flags % NPEND];

			if (*slot) {
				if (flags & 0x10)
					nvl_fence_set_error(*slot, -EIO);
				nvl_fence_signal(*slot);
				nvl_fence_put(*slot);
				*slot = NULL;
			}
			break;
		}
		}
	}
	for (int i = 0; i < NPEND; i++) {
		if (pend[i]) {
			nvl_fence_signal(pend[i]);
			nvl_fence_put(pend[i]);
		}
	}
	if (fd >= 0)
		close(fd);
	nvl_client_destroy(c);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * `nvl demo` step 30: memory management. Oversubscribe a small VRAM with
 * buffer objects, use them round-robin so they migrate (evictions and
 * restores by the move worker, every byte checked), squeeze the host budget
 * so the shrinker swaps idle BOs out, and print the client's fdinfo.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "demo.h"
#include "base/client.h"
#include "base/time.h"
#include "mm/bo.h"

#define MiB (1ull << 20)
#define NBO 8

static int fill_or_check(struct nvl_client *c, uint32_t h, uint32_t seed,
			 bool check)
{
	uint32_t *p;
	int ret = nvl_bo_map(c, h, (void **)&p);

	if (ret)
		return ret;
	for (uint32_t i = 0; i < (4 * MiB) / 4; i++) {
		uint32_t v = seed * 2654435761u + i;

		if (!check) {
			p[i] = v;
		} else if (p[i] != v) {
			nvl_bo_unmap(c, h);
			return -EIO;
		}
	}
	return nvl_bo_unmap(c, h);
}

NVL_DEMO_STEP(30, mm)
{
	struct nvl_mm_config cfg = {.vram_B = 16 * MiB,
				    .host_budget_B = 24 * MiB};
	struct nvl_client *c;
	struct nvl_mm *mm;
	struct nvl_buddy_stats st;
	uint32_t h[NBO];
	char buf[1024];
	int64_t t0 = nvl_time_ns();
	int ret;

	ret = nvl_mm_create(&cfg, &mm);
	if (ret)
		return ret;
	ret = nvl_client_alloc(NULL, &c);
	if (ret)
		goto out_mm;
	c->mm = mm;
	printf("  VRAM 16 MiB (buddy allocator, 4 KiB chunks), host budget "
	       "24 MiB\n");
	printf("  creating %d BOs of 4 MiB (2x VRAM), preferring VRAM, "
	       "filling each with a pattern\n",
	       NBO);
	for (uint32_t i = 0; i < NBO; i++) {
		ret = nvl_bo_create(
			c, 4 * MiB, NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
			NVL_BO_DOMAIN_VRAM, NVL_BO_CPU_VISIBLE, &h[i]);
		if (!ret)
			ret = fill_or_check(c, h[i], i, false);
		if (ret)
			goto out;
	}
	printf("    evictions so far: %llu (the oldest BOs moved to GTT)\n",
	       (unsigned long long)atomic_load(&mm->evictions));
	printf("  using them round-robin twice: each use brings a BO back to "
	       "VRAM and evicts the least recently used\n");
	for (int r = 0; r < 2; r++) {
		for (uint32_t i = 0; i < NBO; i++) {
			ret = nvl_bo_use(c, h[i]);
			if (!ret)
				ret = fill_or_check(c, h[i], i, true);
			if (ret) {
				printf("    BO %u: %s\n", h[i],
				       ret == -EIO ? "data corrupted"
						   : nvl_last_error());
				goto out;
			}
		}
	}
	printf("    evictions: %llu, bytes moved by the move worker: %llu "
	       "MiB, every byte intact\n",
	       (unsigned long long)atomic_load(&mm->evictions),
	       (unsigned long long)(atomic_load(&mm->bytes_moved) >> 20));
	nvl_buddy_stats(&mm->vram, &st);
	printf("    VRAM free %llu KiB, largest free block %llu KiB\n",
	       (unsigned long long)(st.avail_B >> 10),
	       (unsigned long long)(st.largest_free_B >> 10));
	printf("  squeezing the host budget to 8 MiB and asking the "
	       "shrinker for room\n");
	nvl_mm_set_host_budget(mm, 8 * MiB);
	nvl_mm_shrink(mm, atomic_load(&mm->host_B) > 8 * MiB
				  ? atomic_load(&mm->host_B) - 8 * MiB
				  : 0);
	printf("    swapped out to memfd: %llu BOs; host memory in use %llu "
	       "MiB\n",
	       (unsigned long long)atomic_load(&mm->swapouts),
	       (unsigned long long)(atomic_load(&mm->host_B) >> 20));
	ret = fill_or_check(c, h[0], 0, true);
	if (ret)
		goto out;
	printf("    BO %u used again: read back intact (swap-ins: %llu, "
	       "swap-outs: %llu)\n",
	       h[0], (unsigned long long)atomic_load(&mm->swapins),
	       (unsigned long long)atomic_load(&mm->swapouts));
	printf("  fdinfo of the client:\n");
	nvl_client_fdinfo(c, buf, sizeof(buf));
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		if (!strstr(line, "purgeable"))
			printf("    %s\n", line);
	printf("  (%.0f ms)\n", (double)(nvl_time_ns() - t0) / 1e6);
out:
	nvl_client_put(c);
out_mm:
	nvl_mm_destroy(mm);
	return ret;
}

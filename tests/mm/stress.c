// SPDX-License-Identifier: MIT
/*
 * TEST: stress
 * Description: random BO operations (create, use, map/write/check, close,
 * export/import, madvise, shrink) across two clients with random allocation
 * failures injected: every call succeeds or fails cleanly, the per-domain
 * accounting always matches the live BOs, data written survives, and
 * everything is released at the end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "base/client.h"
#include "mm/bo.h"

#define KiB 1024ull
#define NH 24

struct slot {
	uint32_t h;
	struct nvl_client *c;
	uint64_t size;
	uint8_t val;
	bool live, purgeable, visible;
};

static void check_accounting(struct nvl_mm *mm, struct slot *s)
{
	uint64_t sum[NVL_MM_NDOM] = {0};

	for (int i = 0; i < NH; i++) {
		struct nvl_bo_info info;

		if (!s[i].live)
			continue;
		assert_int_equal(nvl_bo_query(s[i].c, s[i].h, &info), 0);
		sum[info.current ? __builtin_ctz(info.current) + 1 : 0] +=
			info.size_B;
	}
	nvl_mutex_lock(&mm->lock);
	for (int d = 1; d < NVL_MM_NDOM; d++)
		if (sum[d] != mm->used_B[d])
			fail_msg("domain %d: live BOs %llu bytes, accounted "
				 "%llu",
				 d, (unsigned long long)sum[d],
				 (unsigned long long)mm->used_B[d]);
	{
		/* Released busy BOs keep their VRAM until idle. */
		uint64_t zombie = 0;
		struct nvl_bo *bo;

		nvl_list_for_each_entry (bo, &mm->zombies, lru)
			if (bo->dom == NVL_GEM_DOMAIN_VRAM)
				zombie += bo->gem.size_B;
		assert_int_equal(mm->vram.size_B - mm->vram.avail_B,
				 mm->used_B[NVL_GEM_DOMAIN_VRAM] + zombie);
	}
	nvl_mutex_unlock(&mm->lock);
}

static void random_operations_with_failures_stay_consistent(void **state)
{
	struct nvl_mm_config cfg = {.vram_B = 1024 * KiB,
				    .visible_B = 512 * KiB,
				    .host_budget_B = 1536 * KiB};
	struct nvl_client *c[2];
	struct slot s[NH] = {0};
	struct nvl_mm *mm;
	uint64_t rng = t_seed(99);
	int iters = (int)(3000 * t_scale());

	assert_int_equal(nvl_mm_create(&cfg, &mm), 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(nvl_client_alloc(NULL, &c[i]), 0);
		c[i]->mm = mm;
	}
	for (int it = 0; it < iters; it++) {
		struct slot *x = &s[t_rand(&rng) % NH];
		unsigned op = (unsigned)(t_rand(&rng) % 8);
		uint8_t *p;
		int ret;

		nvl_fault_fail_random(0.05, t_rand(&rng),
				      NVL_FAULT_THIS_THREAD);
		if (!x->live) {
			x->c = c[t_rand(&rng) & 1];
			x->size = (1 + t_rand(&rng) % 64) * 4 * KiB;
			/* Mappable ones in the window, others top-down. */
			x->visible = t_rand(&rng) % 4 != 0;
			ret = nvl_bo_create(
				x->c, x->size,
				NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
				NVL_BO_DOMAIN_VRAM,
				x->visible ? NVL_BO_CPU_VISIBLE : 0, &x->h);
			assert_true(ret == 0 || ret == -ENOMEM);
			x->live = !ret;
			x->val = 0;
			x->purgeable = false;
		} else if (op <= 2) {
			if (x->purgeable) {
				bool retained;

				assert_int_equal(
					nvl_bo_madvise(x->c, x->h,
						       NVL_BO_MADV_WILLNEED,
						       &retained),
					0);
				/* Content kept, or dropped to zero. */
				if (!retained)
					x->val = 0;
				x->purgeable = false;
			}
			ret = nvl_bo_map(x->c, x->h, (void **)&p);
			if (!x->visible) {
				assert_int_equal(ret, -EPERM);
				ret = -EPERM;
			} else {
				assert_true(ret == 0 || ret == -ENOMEM);
			}
			if (!ret) {
				for (uint64_t k = 0; k < x->size; k += 512)
					assert_int_equal(p[k], x->val);
				x->val++;
				memset(p, x->val, x->size);
				nvl_fault_off();
				assert_int_equal(nvl_bo_unmap(x->c, x->h), 0);
			}
		} else if (op == 3) {
			ret = nvl_bo_use(x->c, x->h);
			assert_true(ret == 0 || ret == -ENOMEM);
		} else if (op == 4) {
			bool retained;

			ret = nvl_bo_madvise(x->c, x->h, NVL_BO_MADV_DONTNEED,
					     &retained);
			assert_int_equal(ret, 0);
			x->purgeable = true;
		} else if (op == 5) {
			struct slot *y = NULL;
			uint64_t tok;

			for (int i = 0; i < NH && !y; i++)
				if (!s[i].live)
					y = &s[i];
			ret = nvl_bo_export(x->c, x->h, &tok);
			assert_true(ret == 0 || ret == -ENOMEM);
			if (!ret && y && x->c == c[0]) {
				uint32_t hy;

				ret = nvl_bo_import(c[1], tok, &hy);
				assert_true(ret == 0 || ret == -ENOMEM);
				if (!ret) {
					/* Hand the BO over to the importer:
					 * the same object, tracked once. */
					nvl_fault_off();
					assert_int_equal(
						nvl_bo_close(x->c, x->h), 0);
					*y = *x;
					y->c = c[1];
					y->h = hy;
					x->live = false;
				}
			}
		} else if (op == 6) {
			nvl_fault_off();
			nvl_mm_shrink(mm, 256 * KiB);
		} else {
			assert_int_equal(nvl_bo_close(x->c, x->h), 0);
			x->live = false;
		}
		nvl_fault_off();
		if (getenv("T_TRACE"))
			fprintf(stderr, "it %d op %u live %d\n", it, op,
				x->live);
		check_accounting(mm, s);
	}
	for (int i = 0; i < NH; i++)
		if (s[i].live)
			assert_int_equal(nvl_bo_close(s[i].c, s[i].h), 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(nvl_client_handle_count(c[i], NVL_HANDLE_BO),
				 0);
		nvl_client_put(c[i]);
	}
	nvl_mm_destroy(mm);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(random_operations_with_failures_stay_consistent),
};

T_MAIN(tests)

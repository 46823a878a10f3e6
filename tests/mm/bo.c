// SPDX-License-Identifier: MIT
/*
 * TEST: bo
 * Description: buffer-object lifetimes with per-client handles, export and
 * import between clients, CPU mapping, bad input, zeroing of memory another
 * client used, GEM lookup and backing for GPUVM, and allocation-failure
 * injection on create.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "mmkit.h"
#include "base/client.h"
#include "base/log.h"
#include "mm/bo.h"
#include "sync/fence.h"

static void handles_start_at_one_and_close_releases(void **state)
{
	struct nvl_mm *mm = mmkit_mm(64 << 20, 0, 0);
	struct nvl_client *c = mmkit_client(mm);
	uint32_t h1, h2;
	struct nvl_bo_info info;

	assert_int_equal(nvl_bo_create(c, 4096, NVL_BO_DOMAIN_VRAM, 0, 0, &h1),
			 0);
	assert_int_equal(h1, 1);
	assert_int_equal(nvl_bo_create(c, 5000, NVL_BO_DOMAIN_GTT, 0, 0, &h2),
			 0);
	assert_int_equal(h2, 2);
	assert_int_equal(nvl_bo_query(c, h2, &info), 0);
	assert_int_equal(info.size_B, 8192);
	assert_int_equal(info.current, NVL_BO_DOMAIN_GTT);
	assert_int_equal(mm->used_B[NVL_GEM_DOMAIN_VRAM], 4096);
	assert_int_equal(nvl_bo_close(c, h1), 0);
	assert_int_equal(mm->used_B[NVL_GEM_DOMAIN_VRAM], 0);
	assert_int_equal(nvl_bo_close(c, h1), -EINVAL);
	assert_int_equal(nvl_bo_query(c, h1, &info), -ENOENT);
	nvl_client_put(c); /* closes h2 */
	assert_int_equal(mm->used_B[NVL_GEM_DOMAIN_GTT], 0);
	nvl_mm_destroy(mm);
}

static void export_import_shares_one_object(void **state)
{
	struct nvl_mm *mm = mmkit_mm(64 << 20, 0, 0);
	struct nvl_client *a = mmkit_client(mm), *b = mmkit_client(mm);
	uint32_t ha, hb, hb2;
	uint64_t tok;
	uint32_t *pa, *pb;
	struct nvl_gem_object *ga, *gb;

	assert_int_equal(nvl_bo_create(a, 1 << 20, NVL_BO_DOMAIN_ALL,
				       NVL_BO_DOMAIN_VRAM, NVL_BO_CPU_VISIBLE,
				       &ha),
			 0);
	assert_int_equal(nvl_bo_export(a, ha, &tok), 0);
	assert_int_equal(nvl_bo_import(b, tok, &hb), 0);
	ga = nvl_gem_lookup(a, ha);
	gb = nvl_gem_lookup(b, hb);
	assert_ptr_equal(ga, gb);
	nvl_gem_put(ga);
	nvl_gem_put(gb);
	/* A foreign handle number means nothing in the other client. */
	assert_null(nvl_gem_lookup(b, hb + 5));
	assert_int_equal(nvl_bo_map(a, ha, (void **)&pa), 0);
	assert_int_equal(nvl_bo_map(b, hb, (void **)&pb), 0);
	pa[7] = 0xdeadbeef;
	assert_int_equal(pb[7], 0xdeadbeef);
	assert_int_equal(nvl_bo_unmap(a, ha), 0);
	/* a cannot end b's mapping, nor twice its own. */
	assert_int_equal(nvl_bo_unmap(a, ha), -EINVAL);
	assert_int_equal(nvl_bo_unmap(b, hb), 0);
	assert_int_equal(nvl_bo_unmap(b, hb), -EINVAL);
	/* The object lives while the importer holds it. */
	assert_int_equal(nvl_bo_close(a, ha), 0);
	assert_int_equal(nvl_bo_map(b, hb, (void **)&pb), 0);
	assert_int_equal(pb[7], 0xdeadbeef);
	assert_int_equal(nvl_bo_unmap(b, hb), 0);
	/* Importing again in the same client: the same handle. */
	assert_int_equal(nvl_bo_import(b, tok, &hb2), 0);
	assert_int_equal(hb2, hb);
	assert_int_equal(nvl_client_handle_count(b, NVL_HANDLE_BO), 1);
	assert_int_equal(nvl_bo_close(b, hb), 0);
	/* Stale now. */
	assert_int_equal(nvl_bo_import(b, tok, &hb2), -ENOENT);
	assert_int_equal(nvl_client_handle_count(b, NVL_HANDLE_BO), 0);
	nvl_client_put(a);
	nvl_client_put(b);
	nvl_mm_destroy(mm);
}

static void stale_export_of_reused_slot_fails(void **state)
{
	struct nvl_mm *mm = mmkit_mm(64 << 20, 0, 0);
	struct nvl_client *a = mmkit_client(mm), *b = mmkit_client(mm);
	uint32_t h, h2;
	uint64_t tok, tok2;

	assert_int_equal(nvl_bo_create(a, 4096, NVL_BO_DOMAIN_VRAM, 0, 0, &h),
			 0);
	assert_int_equal(nvl_bo_export(a, h, &tok), 0);
	assert_int_equal(nvl_bo_close(a, h), 0);
	assert_int_equal(nvl_bo_create(a, 4096, NVL_BO_DOMAIN_VRAM, 0, 0, &h),
			 0);
	assert_int_equal(nvl_bo_export(a, h, &tok2), 0);
	assert_true(tok != tok2);
	assert_int_equal(nvl_bo_import(b, tok, &h2), -ENOENT);
	assert_int_equal(nvl_bo_import(b, 0, &h2), -ENOENT);
	assert_int_equal(nvl_bo_import(b, tok2, &h2), 0);
	nvl_client_put(a);
	nvl_client_put(b);
	nvl_mm_destroy(mm);
}

static void bad_input_is_rejected_and_changes_nothing(void **state)
{
	struct nvl_mm *mm = mmkit_mm(64 << 20, 16 << 20, 128 << 20);
	struct nvl_client *c = mmkit_client(mm);
	uint32_t h = 0, hv;
	void *p;
	uint64_t tok;
	bool ret;

	assert_int_equal(nvl_bo_create(c, 0, NVL_BO_DOMAIN_VRAM, 0, 0, &h),
			 -EINVAL);
	assert_int_equal(nvl_bo_create(c, NVL_BO_MAX_SIZE + 1,
				       NVL_BO_DOMAIN_VRAM, 0, 0, &h),
			 -EINVAL);
	assert_int_equal(
		nvl_bo_create(c, 1ull << 30, NVL_BO_DOMAIN_VRAM, 0, 0, &h),
		-E2BIG);
	assert_int_equal(nvl_bo_create(c, 32 << 20, NVL_BO_DOMAIN_VRAM, 0,
				       NVL_BO_CPU_VISIBLE, &h),
			 -E2BIG);
	assert_int_equal(nvl_bo_create(c, 4096, 0, 0, 0, &h), -EINVAL);
	assert_int_equal(nvl_bo_create(c, 4096, 1u << 5, 0, 0, &h), -EINVAL);
	assert_int_equal(nvl_bo_create(c, 4096, NVL_BO_DOMAIN_VRAM,
				       NVL_BO_DOMAIN_GTT, 0, &h),
			 -EINVAL);
	assert_int_equal(nvl_bo_create(c, 4096, NVL_BO_DOMAIN_ALL,
				       NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
				       0, &h),
			 -EINVAL);
	assert_int_equal(
		nvl_bo_create(c, 4096, NVL_BO_DOMAIN_VRAM, 0, 1u << 20, &h),
		-EINVAL);
	assert_int_equal(h, 0);
	assert_int_equal(nvl_client_handle_count(c, NVL_HANDLE_BO), 0);
	assert_int_equal(mm->used_B[NVL_GEM_DOMAIN_VRAM], 0);
	/* Mapping a BO that is not CPU-visible. */
	assert_int_equal(nvl_bo_create(c, 4096, NVL_BO_DOMAIN_VRAM, 0, 0, &hv),
			 0);
	assert_int_equal(nvl_bo_map(c, hv, &p), -EPERM);
	assert_true(strlen(nvl_error_msg()) > 0);
	/* Closed and unknown handles. */
	assert_int_equal(nvl_bo_map(c, 99, &p), -ENOENT);
	assert_int_equal(nvl_bo_use(c, 99), -ENOENT);
	assert_int_equal(nvl_bo_wait(c, 99, 0), -ENOENT);
	assert_int_equal(nvl_bo_export(c, 99, &tok), -ENOENT);
	assert_int_equal(nvl_bo_wait(c, hv, -1), -EINVAL);
	assert_int_equal(nvl_bo_madvise(c, hv, 7, &ret), -EINVAL);
	assert_int_equal(nvl_bo_close(c, hv), 0);
	assert_int_equal(nvl_bo_map(c, hv, &p), -ENOENT);
	assert_int_equal(nvl_bo_close(c, hv), -EINVAL);
	/* NO_SHARE cannot be exported. */
	assert_int_equal(nvl_bo_create(c, 4096, NVL_BO_DOMAIN_GTT, 0,
				       NVL_BO_NO_SHARE, &hv),
			 0);
	assert_int_equal(nvl_bo_export(c, hv, &tok), -EPERM);
	nvl_client_put(c);
	nvl_mm_destroy(mm);
}

static void freed_memory_reaches_next_client_zeroed(void **state)
{
	struct nvl_mm *mm = mmkit_mm(8 << 20, 0, 0);
	struct nvl_client *a = mmkit_client(mm), *b = mmkit_client(mm);
	/* Small clears run inline, big ones on the move worker. */
	static const size_t sizes[] = {64 << 10, 8 << 20};
	uint32_t h;
	uint8_t *p;

	for (int round = 0; round < 4; round++) {
		size_t sz = sizes[round & 1];

		/* a fills the memory with a pattern and frees it. */
		assert_int_equal(nvl_bo_create(a, sz, NVL_BO_DOMAIN_VRAM, 0,
					       NVL_BO_CPU_VISIBLE, &h),
				 0);
		assert_int_equal(nvl_bo_map(a, h, (void **)&p), 0);
		memset(p, 0xa5, sz);
		assert_int_equal(nvl_bo_unmap(a, h), 0);
		assert_int_equal(nvl_bo_close(a, h), 0);
		/* b gets the same memory, zeroed, without asking. */
		assert_int_equal(nvl_bo_create(b, sz, NVL_BO_DOMAIN_VRAM, 0,
					       NVL_BO_CPU_VISIBLE, &h),
				 0);
		assert_int_equal(nvl_bo_map(b, h, (void **)&p), 0);
		for (size_t i = 0; i < sz; i += 8)
			assert_int_equal(*(uint64_t *)(p + i), 0);
		assert_int_equal(nvl_bo_unmap(b, h), 0);
		assert_int_equal(nvl_bo_close(b, h), 0);
	}
	/* The same holds for host pages recycled through the pool. */
	for (int round = 0; round < 2; round++) {
		assert_int_equal(
			nvl_bo_create(a, 64 << 10, NVL_BO_DOMAIN_GTT, 0, 0, &h),
			0);
		assert_int_equal(nvl_bo_map(a, h, (void **)&p), 0);
		memset(p, 0x5a, 64 << 10);
		assert_int_equal(nvl_bo_unmap(a, h), 0);
		assert_int_equal(nvl_bo_close(a, h), 0);
		assert_int_equal(
			nvl_bo_create(b, 64 << 10, NVL_BO_DOMAIN_GTT, 0, 0, &h),
			0);
		assert_int_equal(nvl_bo_map(b, h, (void **)&p), 0);
		for (size_t i = 0; i < (64 << 10); i += 8)
			assert_int_equal(*(uint64_t *)(p + i), 0);
		assert_int_equal(nvl_bo_unmap(b, h), 0);
		assert_int_equal(nvl_bo_close(b, h), 0);
	}
	nvl_client_put(a);
	nvl_client_put(b);
	nvl_mm_destroy(mm);
}

static void backing_covers_the_bo_for_gpuvm(void **state)
{
	struct nvl_mm *mm = mmkit_mm(64 << 20, 0, 0);
	struct nvl_client *c = mmkit_client(mm);
	struct nvl_gem_object *obj;
	struct nvl_gem_backing bk = {0};
	uint32_t h;
	uint64_t off = 0;

	assert_int_equal(
		nvl_bo_create(c, 3 << 20, NVL_BO_DOMAIN_VRAM, 0, 0, &h), 0);
	obj = nvl_gem_lookup(c, h);
	assert_non_null(obj);
	assert_int_equal(nvl_resv_lock(obj->resv, NULL), 0);
	while (off < obj->size_B) {
		assert_int_equal(obj->ops->get_backing(obj, off, &bk), 0);
		assert_int_equal(bk.domain, NVL_GEM_DOMAIN_VRAM);
		assert_true(bk.len_B >= 4096);
		assert_true(bk.addr + bk.len_B <= (64 << 20));
		off += bk.len_B;
	}
	assert_int_equal(off, obj->size_B);
	assert_int_equal(obj->ops->get_backing(obj, off, &bk), -ENOENT);
	nvl_resv_unlock(obj->resv);
	nvl_gem_put(obj);
	nvl_client_put(c);
	nvl_mm_destroy(mm);
}

struct inj {
	struct nvl_mm *mm;
	int dom;
	struct nvl_bo *bo;
};

static int inj_create(void *arg)
{
	struct inj *x = arg;

	x->bo = NULL;
	return nvl_bo_create_internal(x->mm, 1, 1 << 20, x->dom, 0, 0, NULL,
				      NULL, &x->bo);
}

static void inj_release(struct inj *x)
{
	if (!x->bo)
		return;
	(void)nvl_resv_wait(x->bo->gem.resv, NVL_RESV_USAGE_BOOKKEEP,
			    NVL_TIMEOUT_INFINITE);
	nvl_bo_put(x->bo);
	x->bo = NULL;
}

static void inj_check(int ret, void *arg)
{
	struct inj *x = arg;

	if (ret == 0) {
		/* A failure the create path tolerates (e.g. a fence-wait
		 * helper's); the BO must be complete. */
		assert_non_null(x->bo);
		inj_release(x);
		return;
	}
	assert_int_equal(ret, -ENOMEM);
	assert_null(x->bo);
	for (int d = 0; d < NVL_MM_NDOM; d++)
		assert_int_equal(x->mm->used_B[d], 0);
	assert_int_equal(x->mm->vram.avail_B, x->mm->vram.size_B);
}

static void create_survives_allocation_failures(void **state)
{
	struct inj x = {.mm = mmkit_mm(64 << 20, 0, 0)};
	struct nvl_bo *dirty;

	/* Dirty VRAM so that create needs a clear job. */
	assert_int_equal(nvl_bo_create_internal(x.mm, 1, 64 << 20,
						NVL_BO_DOMAIN_VRAM, 0, 0, NULL,
						NULL, &dirty),
			 0);
	nvl_bo_put(dirty);
	for (int d = NVL_BO_DOMAIN_VRAM; d <= NVL_BO_DOMAIN_SYSTEM; d <<= 1) {
		x.dom = d;
		t_fail_each_alloc(inj_create, inj_check, &x, 50);
		inj_release(&x);
	}
	nvl_mm_destroy(x.mm);
}

static void fdinfo_counts_regions_imports_and_activity(void **state)
{
	struct nvl_mm *mm = mmkit_mm(64 << 20, 0, 0);
	struct nvl_client *a = mmkit_client(mm), *b = mmkit_client(mm);
	uint32_t hv, hg, hs, hb;
	uint64_t tok;
	struct nvl_bo *bo;
	struct nvl_fence *f;
	char buf[2048];
	int n;

	assert_int_equal(
		nvl_bo_create(a, 2 << 20, NVL_BO_DOMAIN_VRAM, 0, 0, &hv), 0);
	assert_int_equal(
		nvl_bo_create(a, 1 << 20, NVL_BO_DOMAIN_GTT, 0, 0, &hg), 0);
	assert_int_equal(
		nvl_bo_create(a, 512 << 10, NVL_BO_DOMAIN_SYSTEM, 0, 0, &hs),
		0);
	/* A busy VRAM BO is active. */
	bo = nvl_bo_lookup(a, hv);
	assert_int_equal(nvl_fence_create(&f, nvl_fence_context_alloc(1), 1),
			 0);
	assert_int_equal(nvl_resv_lock(bo->gem.resv, NULL), 0);
	assert_int_equal(nvl_resv_reserve_fences(bo->gem.resv, 1), 0);
	nvl_resv_add_fence(bo->gem.resv, f, NVL_RESV_USAGE_WRITE);
	nvl_resv_unlock(bo->gem.resv);
	nvl_bo_put(bo);
	n = nvl_client_fdinfo(a, buf, sizeof(buf));
	assert_true(n > 0 && (size_t)n < sizeof(buf));
	assert_non_null(strstr(buf, "drm-driver:\tnouvelle\n"));
	assert_non_null(strstr(buf, "drm-total-vram:\t2048 KiB\n"));
	assert_non_null(strstr(buf, "drm-active-vram:\t2048 KiB\n"));
	assert_non_null(strstr(buf, "drm-resident-gtt:\t1024 KiB\n"));
	assert_non_null(strstr(buf, "drm-active-gtt:\t0 KiB\n"));
	assert_non_null(strstr(buf, "drm-memory-cpu:\t512 KiB\n"));
	/* The importer sees the shared BO too. */
	assert_int_equal(nvl_bo_export(a, hg, &tok), 0);
	assert_int_equal(nvl_bo_import(b, tok, &hb), 0);
	assert_true(nvl_client_fdinfo(b, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "drm-total-gtt:\t1024 KiB\n"));
	assert_non_null(strstr(buf, "drm-total-vram:\t0 KiB\n"));
	/* A short buffer: the needed length, text cut. */
	n = nvl_client_fdinfo(b, buf, 16);
	assert_true(n > 16);
	assert_int_equal(strlen(buf), 15);
	nvl_fence_signal(f);
	nvl_fence_put(f);
	nvl_client_put(a);
	nvl_client_put(b);
	nvl_mm_destroy(mm);
}

static struct nvl_mm *inj_mm;

static int inj_mm_create(void *arg)
{
	struct nvl_mm_config cfg = {.vram_B = 16 << 20};

	inj_mm = NULL;
	return nvl_mm_create(&cfg, &inj_mm);
}

static void inj_mm_check(int ret, void *arg)
{
	assert_int_equal(ret, -ENOMEM);
	assert_null(inj_mm);
}

static void manager_create_survives_allocation_failures(void **state)
{
	struct nvl_mm_config bad = {.vram_B = 12345};
	struct nvl_mm *mm = NULL;

	assert_int_equal(nvl_mm_create(&bad, &mm), -EINVAL);
	bad.vram_B = 1 << 20;
	bad.visible_B = 2 << 20;
	assert_int_equal(nvl_mm_create(&bad, &mm), -EINVAL);
	assert_null(mm);
	t_fail_each_alloc(inj_mm_create, inj_mm_check, NULL, 20);
	assert_non_null(inj_mm);
	nvl_mm_destroy(inj_mm);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(manager_create_survives_allocation_failures),
	cmocka_unit_test(fdinfo_counts_regions_imports_and_activity),
	cmocka_unit_test(handles_start_at_one_and_close_releases),
	cmocka_unit_test(export_import_shares_one_object),
	cmocka_unit_test(stale_export_of_reused_slot_fails),
	cmocka_unit_test(bad_input_is_rejected_and_changes_nothing),
	cmocka_unit_test(freed_memory_reaches_next_client_zeroed),
	cmocka_unit_test(backing_covers_the_bo_for_gpuvm),
	cmocka_unit_test(create_survives_allocation_failures),
};

T_MAIN(tests)

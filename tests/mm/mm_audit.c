// SPDX-License-Identifier: MIT
/*
 * TEST: session 18's audit of the memory manager, without a device; each
 * test failed before its fix.
 *
 * - buddy: freeing a block twice is caught (-EINVAL with nothing changed
 *   since session 19, an assertion before) whether or not the first free
 *   merged it with its buddy. A block that merged kept its ALLOCATED state
 *   in the pair given back to the slab, so the second free merged it
 *   again: the free bytes counted twice and the pair went back to the
 *   slab's spare list twice.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string.h>

#include "t.h"
#include "mmkit.h"
#include "base/client.h"
#include "mm/bo.h"
#include "mm/buddy.h"

#define PG 4096ull
#define MiB (1ull << 20)

/*
 * Free @b of @mm a second time in a child: it must die of the assertion
 * (SIGABRT) or, in a build without assertions, leave the free bytes at
 * @avail_B.
 */
static void second_free_is_caught(struct nvl_buddy *mm,
				  struct nvl_buddy_block *b, unsigned flags,
				  uint64_t avail_B)
{
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0) {
		struct nvl_buddy_stats s;

		(void)!freopen("/dev/null", "w", stderr);
		nvl_buddy_free_block(mm, b, flags);
		nvl_buddy_stats(mm, &s);
		_exit(s.avail_B == avail_B ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (WIFSIGNALED(st))
		assert_int_equal(WTERMSIG(st), SIGABRT);
	else
		assert_int_equal(WEXITSTATUS(st), 0);
}

static void buddy_double_free(void **state)
{
	/* order-1 (merges with its free buddy), dirty and clean; order 0
	 * clean (no cache) with its buddy free; order 0 with its buddy held */
	static const struct {
		uint64_t size_B;
		unsigned flags;
		bool hold_buddy;
	} c[] = {
		{2 * PG, 0, false},
		{2 * PG, NVL_BUDDY_CLEARED, false},
		{PG, NVL_BUDDY_CLEARED, false},
		{PG, 0, true},
	};

	(void)state;
	for (unsigned i = 0; i < NVL_ARRAY_SIZE(c); i++) {
		struct nvl_list l, h;
		struct nvl_buddy mm;
		struct nvl_buddy_block *b;
		struct nvl_buddy_stats s;

		assert_int_equal(nvl_buddy_init(&mm, 64 * PG, PG), 0);
		nvl_list_init(&l);
		nvl_list_init(&h);
		assert_int_equal(nvl_buddy_alloc(&mm, 0, 0, c[i].size_B, PG, &l,
						 NVL_BUDDY_CONTIGUOUS),
				 0);
		if (c[i].hold_buddy)
			assert_int_equal(
				nvl_buddy_alloc(&mm, 0, 0, PG, PG, &h, 0), 0);
		b = nvl_list_first_entry(&l, struct nvl_buddy_block, link);
		nvl_list_del(&b->link);
		nvl_buddy_free_block(&mm, b, c[i].flags);
		/* merged back (the cache flushed by stats) */
		nvl_buddy_stats(&mm, &s);
		second_free_is_caught(&mm, b, c[i].flags, s.avail_B);
		nvl_buddy_free_list(&mm, &h, 0);
		nvl_buddy_stats(&mm, &s);
		assert_int_equal(s.avail_B, 64 * PG);
		nvl_buddy_fini(&mm);
	}
}

/* ---- BOs ------------------------------------------------------------- */

static uint32_t where(struct nvl_client *c, uint32_t h)
{
	struct nvl_bo_info bi;

	assert_int_equal(nvl_bo_query(c, h, &bi), 0);
	return bi.current;
}

/*
 * A CPU-visible window full of mapped BOs: a VRAM-only CPU-visible BO
 * fails with nothing changed, one that may use GTT goes there, and a BO
 * that need not be visible still gets VRAM outside the window.
 */
static void visible_window_full_of_mapped_bos(void **state)
{
	struct nvl_mm *mm = mmkit_mm(16 * MiB, 4 * MiB, 0);
	struct nvl_client *c = mmkit_client(mm);
	uint32_t h[4], x;
	uint64_t used;
	void *p;

	(void)state;
	for (int i = 0; i < 4; i++) {
		assert_int_equal(nvl_bo_create(c, MiB, NVL_BO_DOMAIN_VRAM, 0,
					       NVL_BO_CPU_VISIBLE, &h[i]),
				 0);
		assert_int_equal(nvl_bo_map(c, h[i], &p), 0);
	}
	used = mm->used_B[NVL_GEM_DOMAIN_VRAM];
	assert_int_equal(nvl_bo_create(c, MiB, NVL_BO_DOMAIN_VRAM, 0,
				       NVL_BO_CPU_VISIBLE, &x),
			 -ENOMEM);
	assert_int_equal(mm->used_B[NVL_GEM_DOMAIN_VRAM], used);
	assert_int_equal(nvl_bo_create(c, MiB,
				       NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
				       0, NVL_BO_CPU_VISIBLE, &x),
			 0);
	assert_int_equal(where(c, x), NVL_BO_DOMAIN_GTT);
	assert_int_equal(
		nvl_bo_create(c, 8 * MiB, NVL_BO_DOMAIN_VRAM, 0, 0, &x), 0);
	assert_int_equal(where(c, x), NVL_BO_DOMAIN_VRAM);
	for (int i = 0; i < 4; i++)
		assert_int_equal(nvl_bo_unmap(c, h[i]), 0);
	nvl_client_put(c);
	nvl_mm_destroy(mm);
}

/*
 * Fragmented VRAM (every other 1 MiB BO closed: half free, no 2 MiB run)
 * and a contiguous 4 MiB request: eviction makes the run, as TTM evicts
 * until the allocation fits; the evicted BOs keep their bytes.
 */
static void contiguous_request_on_fragmented_vram(void **state)
{
	struct nvl_mm *mm = mmkit_mm(16 * MiB, 0, 0);
	struct nvl_client *c = mmkit_client(mm);
	uint32_t h[16], x;

	(void)state;
	for (int i = 0; i < 16; i++) {
		assert_int_equal(
			nvl_bo_create(c, MiB,
				      NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT, 0,
				      NVL_BO_CPU_VISIBLE, &h[i]),
			0);
		mmkit_fill(c, h[i], MiB, (uint8_t)i);
	}
	for (int i = 0; i < 16; i += 2)
		assert_int_equal(nvl_bo_close(c, h[i]), 0);
	assert_int_equal(nvl_bo_create(c, 4 * MiB, NVL_BO_DOMAIN_VRAM, 0,
				       NVL_BO_CONTIGUOUS | NVL_BO_CPU_VISIBLE,
				       &x),
			 0);
	mmkit_fill(c, x, 4 * MiB, 0xee);
	for (int i = 1; i < 16; i += 2)
		mmkit_expect(c, h[i], MiB, (uint8_t)i);
	nvl_client_put(c);
	nvl_mm_destroy(mm);
}

/* the fdinfo value of @key for @c, in KiB */
static unsigned long long fdinfo_kib(struct nvl_client *c, const char *key)
{
	char buf[4096], *p;
	unsigned long long v;

	assert_true(nvl_client_fdinfo(c, buf, sizeof(buf)) > 0);
	p = strstr(buf, key);
	assert_non_null(p);
	assert_int_equal(sscanf(p + strlen(key), ":\t%llu KiB", &v), 1);
	return v;
}

/*
 * fdinfo against the BOs: a GTT BO swapped out counts as cpu, not
 * resident; back in, as GTT again; a purged one is in no region's
 * resident or purgeable count.
 */
static void fdinfo_follows_swap_and_purge(void **state)
{
	struct nvl_mm *mm = mmkit_mm(16 * MiB, 0, 64 * MiB);
	struct nvl_client *c = mmkit_client(mm);
	uint32_t s, p;
	bool retained;

	(void)state;
	assert_int_equal(nvl_bo_create(c, MiB, NVL_BO_DOMAIN_GTT, 0, 0, &s), 0);
	assert_int_equal(nvl_bo_create(c, 2 * MiB, NVL_BO_DOMAIN_GTT, 0, 0, &p),
			 0);
	mmkit_fill(c, s, MiB, 0x5a);
	assert_int_equal(nvl_bo_madvise(c, p, NVL_BO_MADV_DONTNEED, &retained),
			 0);
	assert_int_equal(fdinfo_kib(c, "drm-purgeable-gtt"), 2048);
	(void)nvl_mm_shrink(mm, 3 * MiB);
	assert_int_equal(where(c, s), 0);
	assert_int_equal(where(c, p), 0);
	assert_int_equal(fdinfo_kib(c, "drm-total-gtt"), 0);
	assert_int_equal(fdinfo_kib(c, "drm-resident-gtt"), 0);
	assert_int_equal(fdinfo_kib(c, "drm-purgeable-gtt"), 0);
	assert_int_equal(fdinfo_kib(c, "drm-total-cpu"), 3072);
	assert_int_equal(fdinfo_kib(c, "drm-resident-cpu"), 0);
	assert_int_equal(fdinfo_kib(c, "drm-purgeable-cpu"), 0);
	mmkit_expect(c, s, MiB, 0x5a);
	assert_int_equal(fdinfo_kib(c, "drm-resident-gtt"), 1024);
	/* map after purge: zero, and the content is reported gone */
	mmkit_expect(c, p, 2 * MiB, 0);
	assert_int_equal(nvl_bo_madvise(c, p, NVL_BO_MADV_WILLNEED, &retained),
			 0);
	assert_false(retained);
	nvl_client_put(c);
	nvl_mm_destroy(mm);
}

/*
 * The exporter closes its handle while the importer has the BO mapped:
 * the mapping and the token stay valid while the BO lives (a third client
 * imports it and reads the bytes); once the last handle and mapping are
 * gone the token is stale.
 */
static void export_outlives_the_exporters_handle(void **state)
{
	struct nvl_mm *mm = mmkit_mm(16 * MiB, 0, 0);
	struct nvl_client *a = mmkit_client(mm), *b = mmkit_client(mm);
	struct nvl_client *c = mmkit_client(mm);
	uint32_t x, xb, xc, xc2;
	uint64_t tok;
	uint8_t *p;

	(void)state;
	assert_int_equal(nvl_bo_create(a, MiB, NVL_BO_DOMAIN_GTT, 0, 0, &x), 0);
	mmkit_fill(a, x, MiB, 0x77);
	assert_int_equal(nvl_bo_export(a, x, &tok), 0);
	assert_int_equal(nvl_bo_import(b, tok, &xb), 0);
	assert_int_equal(nvl_bo_map(b, xb, (void **)&p), 0);
	assert_int_equal(nvl_bo_close(a, x), 0);
	assert_int_equal(p[MiB - 1], 0x77);
	assert_int_equal(nvl_bo_import(c, tok, &xc), 0);
	assert_int_equal(nvl_bo_import(c, tok, &xc2), 0);
	assert_int_equal(xc, xc2);
	mmkit_expect(c, xc, MiB, 0x77);
	assert_int_equal(nvl_bo_close(c, xc), 0);
	assert_int_equal(nvl_bo_close(c, xc), -EINVAL);
	assert_int_equal(nvl_bo_close(b, xb), 0);
	/* the mapping holds the BO: the token still works */
	assert_int_equal(nvl_bo_import(c, tok, &xc), 0);
	assert_int_equal(nvl_bo_close(c, xc), 0);
	/* b's mapping went with the handle's... it cannot be unmapped by
	 * handle any more; the client's destroy ends it */
	assert_int_equal(nvl_bo_unmap(b, xb), -ENOENT);
	nvl_client_put(b);
	assert_int_equal(nvl_bo_import(c, tok, &xc), -ENOENT);
	nvl_client_put(c);
	nvl_client_put(a);
	nvl_mm_destroy(mm);
}

/* ---- allocation failures on the paths that had no injection ---------- */

struct inj {
	struct nvl_client *a, *b;
	uint32_t h, out;
	uint64_t tok;
	void *p;
};

static int inj_export(void *arg)
{
	struct inj *x = arg;

	return nvl_bo_export(x->a, x->h, &x->tok);
}

static int inj_import(void *arg)
{
	struct inj *x = arg;

	return nvl_bo_import(x->b, x->tok, &x->out);
}

static int inj_map(void *arg)
{
	struct inj *x = arg;

	return nvl_bo_map(x->a, x->h, &x->p);
}

static int inj_use(void *arg)
{
	struct inj *x = arg;

	return nvl_bo_use(x->a, x->h);
}

/* failed: -ENOMEM, no export, no handle in b, not mapped, not swapped in */
static void inj_unchanged(int ret, void *arg)
{
	struct inj *x = arg;
	struct nvl_bo_info bi;
	struct nvl_bo *bo;

	assert_int_equal(ret, -ENOMEM);
	bo = nvl_bo_lookup(x->a, x->h);
	assert_non_null(bo);
	assert_int_equal(nvl_bo_query(x->a, x->h, &bi), 0);
	assert_false(bi.pinned);
	if (!x->tok)
		assert_int_equal(bo->export_id, 0);
	nvl_bo_put(bo);
	assert_int_equal(fdinfo_kib(x->b, "drm-total-gtt") +
				 fdinfo_kib(x->b, "drm-total-cpu"),
			 0);
}

/*
 * Export, import, a map that swaps the BO in and a use that swaps it in:
 * each allocation failing in turn gives -ENOMEM and changes nothing; then
 * the call works and the bytes are intact.
 */
static void bo_calls_survive_allocation_failures(void **state)
{
	struct nvl_mm *mm = mmkit_mm(16 * MiB, 0, 64 * MiB);
	struct inj x = {.a = mmkit_client(mm), .b = mmkit_client(mm)};

	(void)state;
	assert_int_equal(nvl_bo_create(x.a, MiB, NVL_BO_DOMAIN_GTT, 0, 0, &x.h),
			 0);
	mmkit_fill(x.a, x.h, MiB, 0x42);
	/* swapped out: the map reads it back */
	(void)nvl_mm_shrink(mm, MiB);
	assert_int_equal(where(x.a, x.h), 0);
	t_fail_each_alloc(inj_map, inj_unchanged, &x, 50);
	assert_int_equal(((uint8_t *)x.p)[MiB - 1], 0x42);
	assert_int_equal(nvl_bo_unmap(x.a, x.h), 0);
	(void)nvl_mm_shrink(mm, MiB);
	assert_int_equal(where(x.a, x.h), 0);
	t_fail_each_alloc(inj_use, inj_unchanged, &x, 50);
	assert_int_equal(where(x.a, x.h), NVL_BO_DOMAIN_GTT);
	mmkit_expect(x.a, x.h, MiB, 0x42);
	t_fail_each_alloc(inj_export, inj_unchanged, &x, 50);
	assert_true(x.tok != 0);
	t_fail_each_alloc(inj_import, inj_unchanged, &x, 50);
	mmkit_expect(x.b, x.out, MiB, 0x42);
	nvl_client_put(x.b);
	nvl_client_put(x.a);
	nvl_mm_destroy(mm);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(buddy_double_free),
		cmocka_unit_test(visible_window_full_of_mapped_bos),
		cmocka_unit_test(contiguous_request_on_fragmented_vram),
		cmocka_unit_test(fdinfo_follows_swap_and_purge),
		cmocka_unit_test(export_outlives_the_exporters_handle),
		cmocka_unit_test(bo_calls_survive_allocation_failures),
	};

	return t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
}

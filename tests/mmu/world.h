/* SPDX-License-Identifier: MIT */
/*
 * A world for the contract tests: a driver (drv.h) over a 64 MiB VA window
 * straddling a PD2 boundary, four test BOs (contiguous VRAM, 64 KiB and
 * 4 KiB fragments, system pages), and random bind calls checked page by
 * page against GPUVM's view.
 */
#ifndef NVL_TESTS_MMU_WORLD_H
#define NVL_TESTS_MMU_WORLD_H

#include "drv.h"

#define ENG NVL_HW_MMU_ENGINE_CE(1)

/* ThreadSanitizer runs ~4x slower: fewer random calls there */
#if defined(__SANITIZE_THREAD__)
#define SCALE (0.3 * t_scale())
#else
#define SCALE t_scale()
#endif
#define WIN_START ((1ull << 30) - 32 * MIB) /* straddles a PD2 entry */
#define WIN (64 * MIB)

struct world {
	struct drv *v;
	struct tbo *bo[4];
	uint64_t seed;
	unsigned long calls, ok, skipped;
	double fail_p; /* allocation failure probability inside binds */
	bool any_backing;
};

static inline void world_up_opt(struct world *w, const char *profile,
				uint64_t seed, bool any_backing)
{
	memset(w, 0, sizeof(*w));
	w->any_backing = any_backing;
	w->v = drv_up_opt(profile, WIN_START, WIN_START + WIN, any_backing);
	w->bo[0] = tbo_new(w->v->d->hw, TBO_CONTIG, 16 * MIB, 16 * MIB, 0);
	w->bo[1] = tbo_new(w->v->d->hw, TBO_FRAG, 8 * MIB, 48 * MIB, 64 << 10);
	w->bo[2] = tbo_new(w->v->d->hw, TBO_FRAG, 4 * MIB, 64 * MIB, 4096);
	w->bo[3] = tbo_new(w->v->d->hw, TBO_SYS, 256 << 10, 0, 0);
	w->seed = seed;
}

static inline void world_up(struct world *w, const char *profile, uint64_t seed)
{
	world_up_opt(w, profile, seed, false);
}

static inline void world_down(struct world *w)
{
	nvl_gpuvm_destroy(w->v->vm);
	w->v->vm = NULL;
	for (int i = 0; i < 4; i++) {
		assert_int_equal(nvl_kref_read(&w->bo[i]->base.ref), 1);
		nvl_gem_put(&w->bo[i]->base);
	}
	drv_down(w->v);
}

static inline uint64_t pick_align(uint64_t *s)
{
	static const uint64_t a[] = {4096, 64 << 10, 2 * MIB};

	return a[t_rand(s) % 3];
}

/* A random op; false when it does not fit the window (counted as
 * skipped). */
static inline bool random_op(struct world *w, struct bop *b)
{
	uint64_t *s = &w->seed;
	unsigned int r = (unsigned int)(t_rand(s) % 100);
	uint64_t al = pick_align(s);

	memset(b, 0, sizeof(*b));
	if (r < 55) {
		struct tbo *bo = w->bo[t_rand(s) % 4];
		uint64_t n = (1 + t_rand(s) % 48) * (t_rand(s) % 4 ? 4096 : al);
		uint64_t size = bo->base.size_B;

		b->kind = B_MAP;
		if (n > size)
			n = size;
		b->addr = WIN_START + (t_rand(s) % ((WIN - n) / al + 1)) * al;
		b->addr &= ~(al - 1);
		if (b->addr < WIN_START)
			b->addr += al;
		if (b->addr + n > WIN_START + WIN)
			return false;
		b->range = n;
		if (t_rand(s) % 10 == 0) {
			b->flags = NVL_GPUVA_NULL;
			return true;
		}
		b->obj = &bo->base;
		b->off = (t_rand(s) % ((size - n) / 4096 + 1)) * 4096;
		if (t_rand(s) % 2)
			b->off &= ~(al - 1);
		if (t_rand(s) % 5 == 0)
			b->flags = NVL_GPUVA_READONLY;
		/*
		 * Fragmented BOs at any VA/offset congruence, 2 MiB-congruent
		 * ones included: GPUVM asks the backend (page_shift hook) and
		 * never picks a page size the backing cannot provide.
		 */
		return true;
	}
	if (r < 80) {
		b->kind = B_UNMAP;
		b->range = (1 + t_rand(s) % 64) * al;
		b->addr = WIN_START + (t_rand(s) % (WIN / al)) * al;
		if (b->addr + b->range > WIN_START + WIN)
			b->range = WIN_START + WIN - b->addr;
		return true;
	}
	if (r < 90) {
		/* some span whole PD0 entries: sparse written at PD0 level */
		uint64_t unit = t_rand(s) % 4 ? 64 << 10 : 2 * MIB;

		b->kind = B_RCREATE;
		b->range = (1 + t_rand(s) % 32) * (64 << 10);
		if (unit > (64 << 10))
			b->range = (1 + t_rand(s) % 8) * unit;
		b->addr = WIN_START + (t_rand(s) % (WIN >> 16)) * (64 << 10);
		if (t_rand(s) % 2)
			b->addr += 4096 * (t_rand(s) % 16);
		return b->addr + b->range <= WIN_START + WIN;
	}
	{
		struct nvl_gpuvm_region *g =
			nvl_gpuvm_region_find_first(w->v->vm, WIN_START, WIN);
		unsigned int k = (unsigned int)(t_rand(s) % 4);

		while (g && k--) {
			struct nvl_gpuvm_region *n =
				nvl_gpuvm_region_next(g, WIN_START, WIN);
			if (!n)
				break;
			g = n;
		}
		if (!g || g->dead_seq)
			return false;
		b->kind = B_RDESTROY;
		b->addr = g->node.start;
		b->range = g->node.last - g->node.start + 1;
		return true;
	}
}

static inline int check_range(struct world *w, uint64_t lo, uint64_t hi)
{
	int bad = 0;

	for (uint64_t va = lo & ~4095ull; va < hi && bad < 4; va += 4096)
		bad += drv_check_page(w->v, va) != 0;
	return bad;
}

static inline void run_random(struct world *w, unsigned long calls)
{
	for (unsigned long c = 0; c < calls; c++) {
		struct bop ops[3];
		int n = 1 + (int)(t_rand(&w->seed) % 3 == 0 ? 2 : 0);
		uint64_t lo = UINT64_MAX, hi = 0;
		bool usable = true;

		for (int i = 0; i < n; i++) {
			usable &= random_op(w, &ops[i]);
			lo = NVL_MIN(lo, ops[i].addr);
			hi = NVL_MAX(hi, ops[i].addr + ops[i].range);
		}
		if (!usable) {
			w->skipped++;
			continue;
		}
		w->calls++;
		{
			int ret;

			if (w->fail_p)
				nvl_fault_fail_random(w->fail_p, w->seed,
						      NVL_FAULT_THIS_THREAD);
			ret = drv_bind(w->v, ops, n);
			nvl_fault_off();

			if (!ret)
				w->ok++;
			if (getenv("MMU_TRACE"))
				for (int i = 0; i < n; i++)
					print_message(
						"# call %lu op %d: kind %d "
						"[%#llx,+%#llx) bo %d off "
						"%#llx fl %u -> %d\n",
						c, i, ops[i].kind,
						(unsigned long long)ops[i].addr,
						(unsigned long long)ops[i]
							.range,
						ops[i].obj
							? (int)(((struct
								  tbo *)ops[i]
									 .obj)
									->kind)
							: -1,
						(unsigned long long)ops[i].off,
						ops[i].flags, ret);
		}
		assert_int_equal(check_range(w, lo, hi), 0);
		for (int i = 0; i < 16; i++)
			assert_int_equal(
				drv_check_page(w->v,
					       WIN_START + (t_rand(&w->seed) %
							    (WIN / 4096)) *
								   4096),
				0);
		if (c % 200 == 199)
			assert_int_equal(
				check_range(w, WIN_START, WIN_START + WIN), 0);
	}
	assert_int_equal(check_range(w, WIN_START, WIN_START + WIN), 0);
}

#endif /* NVL_TESTS_MMU_WORLD_H */

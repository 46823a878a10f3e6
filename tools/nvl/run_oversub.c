// SPDX-License-Identifier: MIT
/*
 * nvl run oversub: more BOs than VRAM. On a device with little VRAM
 * (--vram, default 256 MiB) each client allocates BOs of 4 x the usable
 * VRAM between them (VRAM preferred, GTT allowed) and writes a pattern
 * into each. Then, in rounds: each BO is brought back into VRAM
 * (nvl_bo_use(), which evicts others), every byte is checked against what
 * was written before it was evicted, a new pattern is written, and the
 * copy engine writes the BO's last page through the client's VM while the
 * BO is held in VRAM, checked in the next round (nvl run does two rounds
 * at least, so the copy engine's writes are checked too).
 */
#include <errno.h>
#include <string.h>

#include "base/alloc.h"
#include "run.h"

#define BO_SIZE (8 * RUN_MIB)
#define PAGE (4 * RUN_KIB)

struct obo {
	uint32_t h;
	uint64_t va;
};

/*
 * Bring BO @b back, check it (the CPU wrote @seed, the GPU @gword into the
 * last page; 0: not yet), then write the next round's: @next_seed by the
 * CPU, @next_gword by the copy engine. The BO's mapping in the VM is never
 * rebound: EXEC revalidates the VM's moved BOs and rewrites their mappings
 * (docs/driver.md, "EXEC"), and fences them, so evictions wait for it.
 */
static int check_one(struct run_ctx *x, struct run_client *cl, struct obo *b,
		     unsigned int i, uint64_t seed, uint32_t gword,
		     uint64_t next_seed, uint32_t next_gword)
{
	uint32_t pb[32], ndw;
	uint64_t pt;
	struct nvl_bo_info bi;
	char what[64];
	uint32_t *p;
	int ret;

	ret = nvl_bo_query(cl->c, b->h, &bi);
	if (ret)
		return run_fail(x, ret, "client %s: query BO %u", cl->name, i);
	if (bi.current != NVL_BO_DOMAIN_VRAM)
		run_stat_add(x, "found_evicted", NULL, 1);
	ret = nvl_bo_use(cl->c, b->h);
	if (ret)
		return run_fail(x, ret, "client %s: bring BO %u back", cl->name,
				i);
	ret = nvl_bo_query(cl->c, b->h, &bi);
	if (!ret && bi.current == NVL_BO_DOMAIN_VRAM)
		run_stat_add(x, "brought_back", NULL, 1);
	ret = nvl_bo_map(cl->c, b->h, (void **)&p);
	if (ret)
		return run_fail(x, ret, "client %s: map BO %u", cl->name, i);
	snprintf(what, sizeof(what), "client %s: BO %u", cl->name, i);
	ret = run_pattern_check(x, p, BO_SIZE - PAGE, seed, what);
	if (!ret && gword)
		ret = run_gpu_words_check(x, p + (BO_SIZE - PAGE) / 4, PAGE / 4,
					  gword, what);
	if (!ret) {
		run_stat_add(x, "bytes_checked", "B",
			     gword ? BO_SIZE : BO_SIZE - PAGE);
		run_pattern(p, BO_SIZE - PAGE, next_seed);
		ndw = run_pb_fill(pb, x->info.ce_class, b->va + BO_SIZE - PAGE,
				  next_gword, PAGE);
		ret = run_exec(cl, 0, pb, ndw, NULL, 0, &pt);
		if (!ret)
			ret = run_wait(cl, pt);
	}
	nvl_bo_unmap(cl->c, b->h);
	return ret;
}

int run_oversub_client(struct run_ctx *x, struct run_client *cl, uint64_t total,
		       unsigned int min_rounds)
{
	unsigned int n = (unsigned int)((total + BO_SIZE - 1) / BO_SIZE);
	struct obo *b = nvl_calloc(n, sizeof(*b));
	uint64_t salt = (uint64_t)cl->id << 48;
	unsigned int made = 0, round = 0;
	int ret = 0;

	if (!b)
		return run_fail(x, -ENOMEM, "client %s: %u BOs", cl->name, n);
	run_stat_set(x, "vram_usable_MiB", "MiB",
		     (double)(x->info.vram_usable >> 20));
	run_stat_add(x, "bo_bytes", "B", (double)n * BO_SIZE);
	/* round 0: allocate, bind, write */
	for (; made < n && !ret; made++) {
		void *p;

		ret = run_bo(cl, BO_SIZE,
			     NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
			     NVL_BO_DOMAIN_VRAM, NVL_BO_CPU_VISIBLE, &b[made].h,
			     &b[made].va, &p);
		if (ret)
			break;
		run_pattern(p, BO_SIZE - PAGE, salt + made);
		memset((uint8_t *)p + BO_SIZE - PAGE, 0, PAGE);
		nvl_bo_unmap(cl->c, b[made].h);
	}
	/* rounds: check what round r - 1 wrote, write round r's */
	while (!ret && (round < min_rounds || !run_should_stop(x))) {
		uint64_t seed = salt + (uint64_t)round * n;
		uint64_t next = salt + (uint64_t)(round + 1) * n;

		if (atomic_load(&x->stop) && x->error)
			break;
		for (unsigned int i = 0; i < n && !ret; i++) {
			uint32_t gw = round ? run_gpu_word(seed + i) : 0;

			ret = check_one(x, cl, &b[i], i, seed + i, gw, next + i,
					run_gpu_word(next + i));
		}
		if (!ret) {
			round++;
			run_stat_add(x, "rounds", NULL, 1);
		}
	}
	nvl_free(b);
	return ret;
}

static int oversub_thread(struct run_ctx *x, unsigned int i, void *arg)
{
	struct run_client *cl;
	char name[32];
	int ret;

	snprintf(name, sizeof(name), "oversub%u", i);
	ret = run_client_open(x, name, 1, &cl);
	if (ret)
		return ret;
	/* the clients share the 4x between them */
	ret = run_oversub_client(x, cl, *(uint64_t *)arg, 2);
	run_client_close(cl);
	return ret;
}

int run_oversub(struct run_ctx *x)
{
	uint64_t each = 4 * x->info.vram_usable / x->o->clients;
	int ret;

	ret = run_threads(x, x->o->clients, oversub_thread, &each);
	run_stat_set(x, "oversubscription", "x",
		     run_stat_get(x, "bo_bytes") / (double)x->info.vram_usable);
	return ret;
}

// SPDX-License-Identifier: MIT
/*
 * TEST: evict
 * Description: placement and eviction (TTM's model): least recently used
 * first, pinned and mapped BOs never evicted, -ENOMEM when nothing can be
 * evicted, pipelined moves that wait on the BO's fences and publish a
 * KERNEL fence, evictions into the host pages of a queued move, the
 * evict hook, bulk LRU moves for VM-private BOs, zombies
 * keeping their memory until idle, and allocation-failure injection on the
 * eviction path.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "t.h"
#include "mmkit.h"
#include "base/client.h"
#include "base/log.h"
#include "mm/bo.h"
#include "sync/fence.h"

#define MiB (1ull << 20)

static struct nvl_mm *new_mm(uint64_t vram_B)
{
	struct nvl_mm_config cfg = {.vram_B = vram_B};
	struct nvl_mm *mm;

	assert_int_equal(nvl_mm_create(&cfg, &mm), 0);
	return mm;
}

static struct nvl_bo *mk(struct nvl_mm *mm, uint64_t size, uint32_t dom,
			 uint32_t flags)
{
	struct nvl_bo *bo;

	assert_int_equal(nvl_bo_create_internal(mm, 1, size, dom,
						NVL_BO_DOMAIN_VRAM, flags, NULL,
						NULL, &bo),
			 0);
	return bo;
}

static void lru_evicts_least_recently_used_first(void **state)
{
	struct nvl_mm *mm = new_mm(4 * MiB);
	struct nvl_bo *b[6];
	uint32_t dom = NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT;

	for (int i = 0; i < 4; i++)
		b[i] = mk(mm, MiB, dom, 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(mmkit_where(b[i]), NVL_GEM_DOMAIN_VRAM);
	b[4] = mk(mm, MiB, dom, 0);
	assert_int_equal(mmkit_where(b[0]), NVL_GEM_DOMAIN_GTT);
	assert_int_equal(mmkit_where(b[4]), NVL_GEM_DOMAIN_VRAM);
	/* Touch b[1]: b[2] is now the oldest in VRAM. */
	mmkit_use(b[1]);
	b[5] = mk(mm, MiB, dom, 0);
	assert_int_equal(mmkit_where(b[1]), NVL_GEM_DOMAIN_VRAM);
	assert_int_equal(mmkit_where(b[2]), NVL_GEM_DOMAIN_GTT);
	assert_int_equal(atomic_load(&mm->evictions), 2);
	/* Using an evicted BO brings it back, evicting the next oldest. */
	mmkit_use(b[0]);
	assert_int_equal(mmkit_where(b[0]), NVL_GEM_DOMAIN_VRAM);
	assert_int_equal(mmkit_where(b[3]), NVL_GEM_DOMAIN_GTT);
	for (int i = 0; i < 6; i++)
		mmkit_idle_put(b[i]);
	nvl_mm_destroy(mm);
}

static void pinned_and_mapped_bos_are_never_evicted(void **state)
{
	struct nvl_mm *mm = new_mm(3 * MiB);
	uint32_t dom = NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT;
	struct nvl_bo *a = mk(mm, MiB, dom, 0);
	struct nvl_bo *m = mk(mm, MiB, dom, NVL_BO_CPU_VISIBLE);
	struct nvl_bo *b = mk(mm, MiB, dom, 0);
	struct nvl_bo *c, *v;
	void *p;

	assert_int_equal(nvl_resv_lock(a->gem.resv, NULL), 0);
	assert_int_equal(nvl_bo_pin(a), 0);
	nvl_resv_unlock(a->gem.resv);
	assert_int_equal(nvl_resv_lock(m->gem.resv, NULL), 0);
	assert_int_equal(nvl_bo_kmap(m, &p), 0);
	nvl_resv_unlock(m->gem.resv);
	c = mk(mm, MiB, dom, 0);
	assert_int_equal(mmkit_where(a), NVL_GEM_DOMAIN_VRAM);
	assert_int_equal(mmkit_where(m), NVL_GEM_DOMAIN_VRAM);
	assert_int_equal(mmkit_where(b), NVL_GEM_DOMAIN_GTT);
	assert_int_equal(mmkit_where(c), NVL_GEM_DOMAIN_VRAM);
	/* c pinned too: a VRAM-only BO has nowhere to go. */
	assert_int_equal(nvl_resv_lock(c->gem.resv, NULL), 0);
	assert_int_equal(nvl_bo_pin(c), 0);
	nvl_resv_unlock(c->gem.resv);
	assert_int_equal(nvl_bo_create_internal(mm, 1, MiB, NVL_BO_DOMAIN_VRAM,
						0, 0, NULL, NULL, &v),
			 -ENOMEM);
	assert_true(strstr(nvl_error_msg(), "no room") != NULL);
	/* A BO that may also live in GTT falls back there. */
	v = mk(mm, MiB, dom, 0);
	assert_int_equal(mmkit_where(v), NVL_GEM_DOMAIN_GTT);
	/* A pinned BO cannot be moved by validate either. */
	assert_int_equal(nvl_resv_lock(c->gem.resv, NULL), 0);
	{
		struct nvl_place pl = {.domain = NVL_GEM_DOMAIN_GTT};

		assert_int_equal(nvl_bo_validate(c, &pl, 1), -EINVAL);
	}
	nvl_bo_unpin(c);
	nvl_resv_unlock(c->gem.resv);
	assert_int_equal(nvl_resv_lock(m->gem.resv, NULL), 0);
	nvl_bo_kunmap(m);
	nvl_resv_unlock(m->gem.resv);
	assert_int_equal(nvl_resv_lock(a->gem.resv, NULL), 0);
	nvl_bo_unpin(a);
	nvl_resv_unlock(a->gem.resv);
	mmkit_idle_put(a);
	mmkit_idle_put(m);
	mmkit_idle_put(b);
	mmkit_idle_put(c);
	mmkit_idle_put(v);
	nvl_mm_destroy(mm);
}

static struct nvl_fence *add_user_fence(struct nvl_bo *bo, uint64_t ctx)
{
	struct nvl_fence *f;

	assert_int_equal(nvl_fence_create(&f, ctx, 1), 0);
	assert_int_equal(nvl_resv_lock(bo->gem.resv, NULL), 0);
	assert_int_equal(nvl_resv_reserve_fences(bo->gem.resv, 1), 0);
	nvl_resv_add_fence(bo->gem.resv, f, NVL_RESV_USAGE_WRITE);
	nvl_resv_unlock(bo->gem.resv);
	return f;
}

static void pipelined_move_waits_for_the_bo_fences(void **state)
{
	struct nvl_mm *mm = new_mm(2 * MiB);
	uint32_t dom = NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT;
	struct nvl_bo *a = mk(mm, 2 * MiB, dom, NVL_BO_CPU_VISIBLE), *b;
	struct nvl_fence *gpu;
	uint8_t *p;

	assert_int_equal(nvl_resv_lock(a->gem.resv, NULL), 0);
	assert_int_equal(nvl_bo_kmap(a, (void **)&p), 0);
	memset(p, 0x3c, 2 * MiB);
	nvl_bo_kunmap(a);
	nvl_resv_unlock(a->gem.resv);
	/* The "GPU" is still writing a. */
	gpu = add_user_fence(a, nvl_fence_context_alloc(1));
	/* Creating b evicts a without waiting on the CPU. */
	b = mk(mm, 2 * MiB, dom, 0);
	assert_int_equal(mmkit_where(a), NVL_GEM_DOMAIN_GTT);
	assert_int_equal(mmkit_where(b), NVL_GEM_DOMAIN_VRAM);
	/* The move is queued behind the GPU work: a's KERNEL fence pends. */
	assert_int_equal(
		nvl_resv_test_signaled(a->gem.resv, NVL_RESV_USAGE_KERNEL), 0);
	assert_int_equal(nvl_resv_wait(a->gem.resv, NVL_RESV_USAGE_KERNEL,
				       20 * NVL_NSEC_PER_MSEC),
			 -ETIME);
	assert_int_equal(nvl_fence_signal(gpu), 0);
	assert_int_equal(nvl_resv_wait(a->gem.resv, NVL_RESV_USAGE_KERNEL,
				       NVL_TIMEOUT_INFINITE),
			 0);
	/* Content moved intact; b (on a's old VRAM) is zero. */
	assert_int_equal(nvl_resv_lock(a->gem.resv, NULL), 0);
	assert_int_equal(nvl_bo_kmap(a, (void **)&p), 0);
	for (size_t i = 0; i < 2 * MiB; i++)
		if (p[i] != 0x3c)
			fail_msg("byte %zu is %#x", i, p[i]);
	nvl_bo_kunmap(a);
	nvl_resv_unlock(a->gem.resv);
	nvl_fence_put(gpu);
	mmkit_idle_put(a);
	mmkit_idle_put(b);
	nvl_mm_destroy(mm);
}

static void fill(struct nvl_bo *bo, uint8_t v)
{
	uint8_t *p;

	assert_int_equal(nvl_resv_lock(bo->gem.resv, NULL), 0);
	assert_int_equal(nvl_bo_kmap(bo, (void **)&p), 0);
	memset(p, v, bo->gem.size_B);
	nvl_bo_kunmap(bo);
	nvl_resv_unlock(bo->gem.resv);
}

/*
 * An eviction takes over the host pages a move still queued gives up
 * (no new pages), and the FIFO keeps that safe: the move reads them
 * before the eviction writes them.
 */
static void eviction_takes_over_pages_of_queued_move(void **state)
{
	struct nvl_mm *mm = new_mm(2 * MiB);
	uint32_t dom = NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT;
	struct nvl_bo *a = mk(mm, 2 * MiB, dom, NVL_BO_CPU_VISIBLE), *x;
	struct nvl_mm_move_stats s0, s1;
	struct nvl_fence *gpu;
	void *a_pages;

	(void)state;
	fill(a, 0x11);
	x = mk(mm, 2 * MiB, dom, NVL_BO_CPU_VISIBLE); /* evicts a */
	fill(x, 0x22);
	assert_int_equal(mmkit_where(a), NVL_GEM_DOMAIN_GTT);
	a_pages = a->host;
	/* the "GPU" still writes x: the worker holds x's eviction back */
	gpu = add_user_fence(x, nvl_fence_context_alloc(1));
	nvl_mm_move_stats(mm, &s0);
	mmkit_use(a); /* x's eviction (held back), then a's move back: queued */
	mmkit_use(x); /* a's eviction, into the pages a's move back reads */
	nvl_mm_move_stats(mm, &s1);
	assert_int_equal(s1.host_handovers - s0.host_handovers, 1);
	assert_int_equal(mmkit_where(a), NVL_GEM_DOMAIN_GTT);
	assert_int_equal(mmkit_where(x), NVL_GEM_DOMAIN_VRAM);
	assert_ptr_equal(a->host, a_pages);
	assert_int_equal(
		nvl_resv_test_signaled(a->gem.resv, NVL_RESV_USAGE_KERNEL), 0);
	assert_int_equal(nvl_fence_signal(gpu), 0);
	assert_int_equal(nvl_mm_wait_idle(mm, NVL_TIMEOUT_INFINITE), 0);
	mmkit_expect_bo(a, 0x11);
	mmkit_expect_bo(x, 0x22);
	nvl_fence_put(gpu);
	mmkit_idle_put(a);
	mmkit_idle_put(x);
	nvl_mm_destroy(mm);
}

/* the worker holds a job (waiting for its dependencies), none queued */
static void wait_worker_holds_job(struct nvl_mm *mm)
{
	for (;;) {
		bool held;

		pthread_mutex_lock(&mm->q_lock);
		held = mm->work_job && nvl_list_empty(&mm->queue);
		pthread_mutex_unlock(&mm->q_lock);
		if (held)
			return;
		usleep(100);
	}
}

/*
 * The same with the move back already taken by the worker (off the queue,
 * waiting for its BO's fence): its pages are handed over too, and it still
 * reads them before the eviction writes them.
 */
static void eviction_takes_over_pages_of_the_workers_job(void **state)
{
	struct nvl_mm *mm = new_mm(2 * MiB);
	uint32_t dom = NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT;
	struct nvl_bo *a = mk(mm, 2 * MiB, dom, NVL_BO_CPU_VISIBLE), *x;
	struct nvl_mm_move_stats s0, s1;
	struct nvl_fence *gpu;
	void *a_pages;

	(void)state;
	fill(a, 0x33);
	x = mk(mm, 2 * MiB, dom, NVL_BO_CPU_VISIBLE); /* evicts a */
	fill(x, 0x44);
	a_pages = a->host;
	/* the "GPU" still uses a: its move back waits in the worker */
	gpu = add_user_fence(a, nvl_fence_context_alloc(1));
	nvl_mm_move_stats(mm, &s0);
	mmkit_use(a); /* x's eviction, then a's move back */
	wait_worker_holds_job(mm);
	mmkit_use(x); /* a's eviction, into the pages the worker's job reads */
	nvl_mm_move_stats(mm, &s1);
	assert_int_equal(s1.host_handovers - s0.host_handovers, 1);
	assert_ptr_equal(a->host, a_pages);
	assert_int_equal(nvl_fence_signal(gpu), 0);
	assert_int_equal(nvl_mm_wait_idle(mm, NVL_TIMEOUT_INFINITE), 0);
	mmkit_expect_bo(a, 0x33);
	mmkit_expect_bo(x, 0x44);
	nvl_fence_put(gpu);
	mmkit_idle_put(a);
	mmkit_idle_put(x);
	nvl_mm_destroy(mm);
}

/*
 * An exec fences the BOs of its VM with BOOKKEEP usage (Nouveau's VM_BIND
 * mode): an eviction must wait for those fences too, or a BO moves under a
 * running job.
 */
static void move_waits_for_bookkeep_fences(void **state)
{
	struct nvl_mm *mm = new_mm(2 * MiB);
	uint32_t dom = NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT;
	struct nvl_bo *a = mk(mm, 2 * MiB, dom, 0), *b;
	struct nvl_fence *job;

	(void)state;
	assert_int_equal(nvl_fence_create(&job, nvl_fence_context_alloc(1), 1),
			 0);
	assert_int_equal(nvl_resv_lock(a->gem.resv, NULL), 0);
	assert_int_equal(nvl_resv_reserve_fences(a->gem.resv, 1), 0);
	assert_int_equal(
		nvl_resv_add_fence(a->gem.resv, job, NVL_RESV_USAGE_BOOKKEEP),
		0);
	nvl_resv_unlock(a->gem.resv);
	b = mk(mm, 2 * MiB, dom, 0);
	assert_int_equal(mmkit_where(a), NVL_GEM_DOMAIN_GTT);
	/* the copy out of VRAM is queued behind the job */
	assert_int_equal(nvl_resv_wait(a->gem.resv, NVL_RESV_USAGE_KERNEL,
				       20 * NVL_NSEC_PER_MSEC),
			 -ETIME);
	assert_int_equal(nvl_fence_signal(job), 0);
	assert_int_equal(nvl_resv_wait(a->gem.resv, NVL_RESV_USAGE_KERNEL,
				       NVL_TIMEOUT_INFINITE),
			 0);
	nvl_fence_put(job);
	mmkit_idle_put(a);
	mmkit_idle_put(b);
	nvl_mm_destroy(mm);
}

static int hook_out, hook_in;

static void count_hook(struct nvl_gem_object *obj, bool evicted)
{
	nvl_resv_assert_held(obj->resv);
	if (evicted)
		hook_out++;
	else
		hook_in++;
}

static int hook2_out;

static void second_hook(struct nvl_gem_object *obj, bool evicted)
{
	(void)obj;
	hook2_out += evicted;
}

static void h3(struct nvl_gem_object *o, bool e)
{
	(void)o, (void)e;
}

static void h4(struct nvl_gem_object *o, bool e)
{
	(void)o, (void)e;
}

static void h5(struct nvl_gem_object *o, bool e)
{
	(void)o, (void)e;
}

/* Several listeners (GPUVM and a driver) all hear an eviction; the slots are
 * bounded and a full table is a clear error that changes nothing. */
static void evict_hooks_are_several_and_bounded(void **state)
{
	struct nvl_mm *mm = new_mm(MiB);
	uint32_t dom = NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT;
	nvl_gem_evict_fn more[] = {h3, h4, h5};
	struct nvl_bo *a, *b;
	int added = 0, ret = 0;

	(void)state;
	hook_out = hook_in = hook2_out = 0;
	assert_int_equal(nvl_gem_add_evict_hook(count_hook), 0);
	assert_int_equal(nvl_gem_add_evict_hook(second_hook), 0);
	a = mk(mm, MiB, dom, 0);
	b = mk(mm, MiB, dom, 0); /* evicts a */
	assert_int_equal(hook_out, 1);
	assert_int_equal(hook2_out, 1);
	/* other tests' VMs may hold a slot too: fill up to the bound */
	for (unsigned i = 0; i < 3 && !ret; i++) {
		ret = nvl_gem_add_evict_hook(more[i]);
		added += !ret;
	}
	if (!ret)
		ret = nvl_gem_add_evict_hook(h5); /* already in: no-op */
	assert_true(ret == 0 || ret == -ENOSPC);
	if (ret == -ENOSPC)
		assert_non_null(strstr(nvl_last_error(), "hook"));
	for (int i = 0; i < added; i++)
		nvl_gem_remove_evict_hook(more[i]);
	nvl_gem_remove_evict_hook(second_hook);
	mmkit_use(a); /* back in, b out: only count_hook is left */
	assert_int_equal(hook2_out, 1);
	assert_int_equal(hook_in, 1);
	nvl_gem_remove_evict_hook(count_hook);
	mmkit_idle_put(a);
	mmkit_idle_put(b);
	nvl_mm_destroy(mm);
}

static void evict_hook_hears_moves_out_and_back(void **state)
{
	struct nvl_mm *mm = new_mm(MiB);
	uint32_t dom = NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT;
	struct nvl_bo *a, *b;

	hook_out = hook_in = 0;
	assert_int_equal(nvl_gem_add_evict_hook(count_hook), 0);
	assert_int_equal(nvl_gem_add_evict_hook(count_hook), 0); /* once */
	a = mk(mm, MiB, dom, 0);
	b = mk(mm, MiB, dom, 0);
	assert_int_equal(hook_out, 1);
	mmkit_use(a);
	assert_int_equal(hook_in, 1);
	assert_int_equal(hook_out, 2);
	nvl_gem_remove_evict_hook(count_hook);
	mmkit_idle_put(a);
	mmkit_idle_put(b);
	nvl_mm_destroy(mm);
}

static void bulk_move_keeps_vm_bos_most_recent(void **state)
{
	struct nvl_mm *mm = new_mm(6 * MiB);
	uint32_t dom = NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT;
	struct nvl_resv vm_resv;
	struct nvl_mm_bulk bulk = {0};
	struct nvl_bo *vm[3], *other[3], *x[3];
	int vm_tag;

	nvl_resv_init(&vm_resv);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(nvl_bo_create_internal(
					 mm, 1, MiB, dom, NVL_BO_DOMAIN_VRAM, 0,
					 &vm_resv, &vm_tag, &vm[i]),
				 0);
		nvl_bo_set_bulk_move(vm[i], &bulk);
		other[i] = mk(mm, MiB, dom, 0);
	}
	assert_int_equal(vm[0]->flags & NVL_BO_NO_SHARE, NVL_BO_NO_SHARE);
	/* A submit on the VM: all its BOs become most recently used. */
	nvl_mm_bulk_move_tail(mm, &bulk);
	for (int i = 0; i < 3; i++) {
		x[i] = mk(mm, MiB, dom, 0);
		assert_int_equal(mmkit_where(other[i]), NVL_GEM_DOMAIN_GTT);
		for (int j = 0; j < 3; j++)
			assert_int_equal(mmkit_where(vm[j]),
					 NVL_GEM_DOMAIN_VRAM);
	}
	for (int i = 0; i < 3; i++) {
		nvl_bo_set_bulk_move(vm[i], NULL);
		mmkit_idle_put(vm[i]);
		mmkit_idle_put(other[i]);
		mmkit_idle_put(x[i]);
	}
	assert_null(bulk.first[NVL_GEM_DOMAIN_VRAM][0]);
	nvl_mm_destroy(mm);
	nvl_resv_fini(&vm_resv);
}

static void released_busy_bo_keeps_memory_until_idle(void **state)
{
	struct nvl_mm *mm = new_mm(MiB);
	struct nvl_bo *a = mk(mm, MiB, NVL_BO_DOMAIN_VRAM, 0), *b;
	struct nvl_fence *gpu = add_user_fence(a, nvl_fence_context_alloc(1));

	nvl_bo_put(a);
	assert_false(nvl_list_empty(&mm->zombies));
	/* no wait (by default the allocation waits for the fence) */
	mm->zombie_wait_ns = 0;
	assert_int_equal(nvl_bo_create_internal(mm, 1, MiB, NVL_BO_DOMAIN_VRAM,
						0, 0, NULL, NULL, &b),
			 -ENOMEM);
	assert_int_equal(nvl_fence_signal(gpu), 0);
	b = mk(mm, MiB, NVL_BO_DOMAIN_VRAM, 0);
	assert_true(nvl_list_empty(&mm->zombies));
	nvl_fence_put(gpu);
	mmkit_idle_put(b);
	nvl_mm_destroy(mm);
}

struct inj {
	struct nvl_mm *mm;
	struct nvl_bo *victim, *bo;
};

static int inj_evicting_create(void *arg)
{
	struct inj *x = arg;

	x->bo = NULL;
	return nvl_bo_create_internal(x->mm, 1, MiB, NVL_BO_DOMAIN_VRAM, 0, 0,
				      NULL, NULL, &x->bo);
}

static void inj_check(int ret, void *arg)
{
	struct inj *x = arg;

	if (ret == 0) {
		assert_non_null(x->bo);
		mmkit_idle_put(x->bo);
		x->bo = NULL;
		/* Put the victim back for the next round. */
		mmkit_use(x->victim);
		return;
	}
	assert_int_equal(ret, -ENOMEM);
	assert_null(x->bo);
	/*
	 * Nothing lost or leaked: only the victim holds memory (in VRAM, or
	 * in GTT when the failure came after its eviction).
	 */
	assert_int_equal(x->mm->used_B[NVL_GEM_DOMAIN_VRAM] +
				 x->mm->used_B[NVL_GEM_DOMAIN_GTT],
			 MiB);
	assert_int_equal(x->mm->vram.avail_B,
			 MiB - x->mm->used_B[NVL_GEM_DOMAIN_VRAM]);
	mmkit_use(x->victim);
}

static void eviction_survives_allocation_failures(void **state)
{
	struct inj x = {.mm = new_mm(MiB)};

	x.victim = mk(x.mm, MiB, NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT, 0);
	t_fail_each_alloc(inj_evicting_create, inj_check, &x, 60);
	assert_int_equal(mmkit_where(x.victim), NVL_GEM_DOMAIN_GTT);
	mmkit_idle_put(x.bo);
	mmkit_idle_put(x.victim);
	nvl_mm_destroy(x.mm);
}

static int inj_use(void *arg)
{
	struct inj *x = arg;
	int ret;

	assert_int_equal(nvl_resv_lock(x->bo->gem.resv, NULL), 0);
	ret = nvl_bo_validate_preferred(x->bo);
	nvl_resv_unlock(x->bo->gem.resv);
	return ret;
}

static void inj_use_check(int ret, void *arg)
{
	struct inj *x = arg;

	/*
	 * A failure while evicting the victim makes validate settle for the
	 * fallback place, GTT, where the BO already is: success, no move. A
	 * failure after the victim left lets the fallback pass find VRAM free.
	 */
	if (ret == 0)
		assert_true(mmkit_where(x->bo) == NVL_GEM_DOMAIN_GTT ||
			    mmkit_where(x->bo) == NVL_GEM_DOMAIN_VRAM);
	else
		assert_int_equal(ret, -ENOMEM);
	/* Both BOs still have exactly one home, nothing leaked. */
	assert_int_equal(x->mm->used_B[NVL_GEM_DOMAIN_VRAM] +
				 x->mm->used_B[NVL_GEM_DOMAIN_GTT],
			 2 * MiB);
	assert_int_equal(x->mm->vram.avail_B,
			 MiB - x->mm->used_B[NVL_GEM_DOMAIN_VRAM]);
}

static void restore_survives_allocation_failures(void **state)
{
	uint32_t dom = NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT;
	struct inj x = {.mm = new_mm(MiB)};
	uint8_t *p;

	x.bo = mk(x.mm, MiB, dom, NVL_BO_CPU_VISIBLE);
	assert_int_equal(nvl_resv_lock(x.bo->gem.resv, NULL), 0);
	assert_int_equal(nvl_bo_kmap(x.bo, (void **)&p), 0);
	memset(p, 0x77, MiB);
	nvl_bo_kunmap(x.bo);
	nvl_resv_unlock(x.bo->gem.resv);
	x.victim = mk(x.mm, MiB, dom, 0); /* evicts x.bo */
	assert_int_equal(mmkit_where(x.bo), NVL_GEM_DOMAIN_GTT);
	t_fail_each_alloc(inj_use, inj_use_check, &x, 60);
	assert_int_equal(mmkit_where(x.bo), NVL_GEM_DOMAIN_VRAM);
	assert_int_equal(mmkit_where(x.victim), NVL_GEM_DOMAIN_GTT);
	assert_int_equal(nvl_resv_lock(x.bo->gem.resv, NULL), 0);
	assert_int_equal(nvl_bo_kmap(x.bo, (void **)&p), 0);
	for (size_t i = 0; i < MiB; i++)
		if (p[i] != 0x77)
			fail_msg("byte %zu: %#x", i, p[i]);
	nvl_bo_kunmap(x.bo);
	nvl_resv_unlock(x.bo->gem.resv);
	mmkit_idle_put(x.bo);
	mmkit_idle_put(x.victim);
	nvl_mm_destroy(x.mm);
}

/*
 * A validate move (to another allowed place: out of VRAM, or back in) also
 * waits for what the dependency hook reports (nvl_gem_deps_fn: GPUVM gives
 * the jobs of the VMs that map the BO, which reach its old memory through
 * their page-table entries until the next validate): the old backing is
 * reused behind the copy. Before, only evictions and purges asked the hook,
 * and a job queued before the BO was bound read another client's memory
 * after the move (tests/nv/move_audit.c).
 */
static struct nvl_fence *vm_job;

static _Atomic unsigned unmaps;
static _Atomic uint64_t unmap_leave;
static struct nvl_gem_object *_Atomic unmap_obj;
static _Atomic bool unmap_early;

/* the VM job is not done (the hook runs on mm's worker: not vm_job) */
static _Atomic bool vm_job_pending;

static void unmap_hook(struct nvl_gem_object *obj, uint64_t leave)
{
	if (atomic_load(&vm_job_pending))
		atomic_store(&unmap_early, true);
	atomic_store(&unmap_obj, obj);
	atomic_store(&unmap_leave, leave);
	atomic_fetch_add(&unmaps, 1);
}

static int deps_hook(struct nvl_gem_object *obj, unsigned *n,
		     struct nvl_fence ***fences)
{
	struct nvl_fence **all;

	(void)obj;
	if (!vm_job)
		return 0;
	if (!fences) {
		*n += !nvl_fence_is_signaled(vm_job);
		return 0;
	}
	all = nvl_reallocarray(*fences, *n + 1, sizeof(*all));
	if (!all)
		return -ENOMEM;
	all[(*n)++] = nvl_fence_get(vm_job);
	*fences = all;
	return 0;
}

static int place_in(struct nvl_bo *bo, enum nvl_gem_domain d)
{
	struct nvl_place pl = {.domain = d};
	int ret;

	assert_int_equal(nvl_resv_lock(bo->gem.resv, NULL), 0);
	ret = nvl_bo_validate(bo, &pl, 1);
	nvl_resv_unlock(bo->gem.resv);
	return ret;
}

static void new_vm_job(void)
{
	assert_int_equal(
		nvl_fence_create(&vm_job, nvl_fence_context_alloc(1), 1), 0);
	atomic_store(&vm_job_pending, true);
}

static void end_vm_job(void)
{
	atomic_store(&vm_job_pending, false);
	assert_int_equal(nvl_fence_signal(vm_job), 0);
	nvl_fence_put(vm_job);
	vm_job = NULL;
}

static void validate_move_waits_for_mapping_vms(void **state)
{
	struct nvl_mm *mm = new_mm(4 * MiB);
	uint32_t dom = NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT;
	struct nvl_bo *a = mk(mm, MiB, dom, NVL_BO_CPU_VISIBLE);
	enum nvl_gem_domain to[] = {NVL_GEM_DOMAIN_GTT, NVL_GEM_DOMAIN_VRAM};

	(void)state;
	fill(a, 0x5e);
	nvl_gem_set_deps_hook(deps_hook);
	for (unsigned i = 0; i < NVL_ARRAY_SIZE(to); i++) {
		new_vm_job();
		assert_int_equal(place_in(a, to[i]), 0);
		assert_int_equal(mmkit_where(a), to[i]);
		assert_int_equal(nvl_resv_wait(a->gem.resv,
					       NVL_RESV_USAGE_KERNEL,
					       20 * NVL_NSEC_PER_MSEC),
				 -ETIME);
		end_vm_job();
		mmkit_expect_bo(a, 0x5e);
	}
	nvl_gem_set_deps_hook(NULL);
	mmkit_idle_put(a);
	nvl_mm_destroy(mm);
}

/* such a move is heard as a move in (false) by the evict hooks even for a
 * BO never evicted: GPUVM must rewrite its mappings (before, only an
 * evicted BO's return was heard) */
static void validate_move_tells_hooks(void **state)
{
	struct nvl_mm *mm = new_mm(4 * MiB);
	uint32_t dom = NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT;
	struct nvl_bo *a = mk(mm, MiB, dom, 0);

	(void)state;
	hook_out = hook_in = 0;
	assert_int_equal(nvl_gem_add_evict_hook(count_hook), 0);
	assert_int_equal(place_in(a, NVL_GEM_DOMAIN_GTT), 0);
	assert_int_equal(hook_in, 1);
	assert_int_equal(place_in(a, NVL_GEM_DOMAIN_VRAM), 0);
	assert_int_equal(hook_in, 2);
	assert_int_equal(hook_out, 0);
	nvl_gem_remove_evict_hook(count_hook);
	mmkit_idle_put(a);
	nvl_mm_destroy(mm);
}

struct inj_mv {
	struct nvl_mm *mm;
	struct nvl_bo *bo;
	enum nvl_gem_domain before;
	bool pending;
	int hooked;
};

static int inj_move(void *arg)
{
	struct inj_mv *x = arg;

	x->before = mmkit_where(x->bo);
	x->pending = nvl_bo_move_pending(x->bo);
	x->hooked = hook_in + hook_out;
	return place_in(x->bo, x->before == NVL_GEM_DOMAIN_VRAM
				       ? NVL_GEM_DOMAIN_GTT
				       : NVL_GEM_DOMAIN_VRAM);
}

static void inj_move_check(int ret, void *arg)
{
	struct inj_mv *x = arg;

	if (ret) {
		assert_int_equal(ret, -ENOMEM);
		assert_int_equal(mmkit_where(x->bo), x->before);
		/* the backing it kept is as pending as it was, and a move
		 * undone is heard (a bind's commit may have met the new
		 * backing pending and left entries to rewrite) */
		assert_int_equal(nvl_bo_move_pending(x->bo), x->pending);
		assert_true(hook_in + hook_out > x->hooked ||
			    x->before == NVL_GEM_DOMAIN_NONE);
	}
	/* the memory left is unmapped only once the VM job is done */
	assert_false(atomic_load(&unmap_early));
	assert_int_equal(x->mm->used_B[NVL_GEM_DOMAIN_VRAM] +
				 x->mm->used_B[NVL_GEM_DOMAIN_GTT],
			 MiB);
}

/* every allocation of such a move (the job, the hook's dependencies)
 * failing in turn: -ENOMEM with the BO where it was, or a move that
 * completes; the bytes survive every move */
static void validate_move_survives_allocation_failures(void **state)
{
	struct inj_mv x = {.mm = new_mm(4 * MiB)};

	(void)state;
	x.bo = mk(x.mm, MiB, NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
		  NVL_BO_CPU_VISIBLE);
	fill(x.bo, 0x6d);
	nvl_gem_set_deps_hook(deps_hook);
	assert_int_equal(nvl_gem_add_evict_hook(count_hook), 0);
	nvl_gem_set_unmap_hook(unmap_hook);
	atomic_store(&unmap_early, false);
	new_vm_job();
	assert_true(t_fail_each_alloc(inj_move, inj_move_check, &x, 100) >= 3);
	end_vm_job();
	assert_int_equal(nvl_mm_wait_idle(x.mm, 5 * NVL_NSEC_PER_SEC), 0);
	assert_false(atomic_load(&unmap_early));
	nvl_gem_set_unmap_hook(NULL);
	nvl_gem_remove_evict_hook(count_hook);
	nvl_gem_set_deps_hook(NULL);
	mmkit_expect_bo(x.bo, 0x6d);
	mmkit_idle_put(x.bo);
	nvl_mm_destroy(x.mm);
}

/* what get_backing() reports for byte 0 of @bo: its domain, *@pending */
static enum nvl_gem_domain backing(struct nvl_bo *bo, bool *pending)
{
	struct nvl_gem_backing b = {0};

	assert_int_equal(bo->gem.ops->get_backing(&bo->gem, 0, &b), 0);
	*pending = b.pending;
	/* the lock-free answer agrees while nothing moves */
	assert_int_equal(bo->gem.ops->move_pending(&bo->gem), b.pending);
	return b.domain;
}

/*
 * The memory a BO moves into is pending until the job that fills it is
 * done (a bind's commit must not map it: a job queued before the move may
 * run before the copy): a validate move each way, an eviction, and the
 * clear of a fresh BO's VRAM behind them, each held up by a job of a VM
 * that maps the BO (the dependency hook).
 */
static void moved_backing_pending_until_filled(void **state)
{
	struct nvl_mm *mm = new_mm(4 * MiB);
	uint32_t dom = NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT;
	struct nvl_bo *a = mk(mm, 2 * MiB, dom, NVL_BO_CPU_VISIBLE), *b;
	enum nvl_gem_domain to[] = {NVL_GEM_DOMAIN_GTT, NVL_GEM_DOMAIN_VRAM};
	bool pending;

	(void)state;
	fill(a, 0x4d);
	assert_int_equal(backing(a, &pending), NVL_GEM_DOMAIN_VRAM);
	assert_false(pending);
	nvl_gem_set_deps_hook(deps_hook);
	for (unsigned i = 0; i < NVL_ARRAY_SIZE(to); i++) {
		new_vm_job();
		assert_int_equal(place_in(a, to[i]), 0);
		assert_int_equal(backing(a, &pending), to[i]);
		assert_true(pending);
		end_vm_job();
		assert_int_equal(nvl_resv_wait(a->gem.resv,
					       NVL_RESV_USAGE_KERNEL,
					       NVL_TIMEOUT_INFINITE),
				 0);
		assert_int_equal(backing(a, &pending), to[i]);
		assert_false(pending);
	}
	/* an eviction by b's creation: a's new pages pending, and b's VRAM
	 * (its clear queued behind a's copy) too */
	new_vm_job();
	b = mk(mm, 3 * MiB, NVL_BO_DOMAIN_VRAM, 0);
	assert_int_equal(backing(a, &pending), NVL_GEM_DOMAIN_GTT);
	assert_true(pending);
	assert_int_equal(backing(b, &pending), NVL_GEM_DOMAIN_VRAM);
	assert_true(pending);
	end_vm_job();
	assert_int_equal(nvl_resv_wait(b->gem.resv, NVL_RESV_USAGE_KERNEL,
				       NVL_TIMEOUT_INFINITE),
			 0);
	assert_int_equal(backing(a, &pending), NVL_GEM_DOMAIN_GTT);
	assert_false(pending);
	assert_int_equal(backing(b, &pending), NVL_GEM_DOMAIN_VRAM);
	assert_false(pending);
	nvl_gem_set_deps_hook(NULL);
	mmkit_expect_bo(a, 0x4d);
	mmkit_idle_put(a);
	mmkit_idle_put(b);
	nvl_mm_destroy(mm);
}

/*
 * The unmap hook (gem.h nvl_gem_unmap_fn; GPUVM invalidates the mappings
 * there, so that a job running past a fence forged in its semaphore
 * faults instead of reaching the memory's next owner): called once for
 * every way memory leaves a BO, with the BO and the leave's number, only
 * after the jobs allowed to use that memory are done (here the deps
 * hook's "VM job"), and before the memory is used again.
 */
/* the hook has not run (20 ms), the VM job ends, then it has, once */
static void expect_unmap_after_vm_job(struct nvl_mm *mm, struct nvl_bo *bo,
				      uint64_t leave)
{
	unsigned before = atomic_load(&unmaps);

	usleep(20 * 1000);
	assert_int_equal(atomic_load(&unmaps), before);
	end_vm_job();
	assert_int_equal(nvl_mm_wait_idle(mm, 5 * NVL_NSEC_PER_SEC), 0);
	assert_int_equal(atomic_load(&unmaps), before + 1);
	assert_ptr_equal(atomic_load(&unmap_obj), &bo->gem);
	assert_int_equal(atomic_load(&unmap_leave), leave);
	assert_false(atomic_load(&unmap_early));
}

static void memory_left_is_unmapped_after_its_jobs(void **state)
{
	struct nvl_mm_config cfg = {.vram_B = MiB, .host_budget_B = 8 * MiB};
	uint32_t dom = NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT;
	struct nvl_bo *a, *b;
	struct nvl_mm *mm;
	unsigned n;

	(void)state;
	assert_int_equal(nvl_mm_create(&cfg, &mm), 0);
	a = mk(mm, MiB, dom, NVL_BO_CPU_VISIBLE);
	fill(a, 0x3d);
	atomic_store(&unmaps, 0);
	atomic_store(&unmap_early, false);
	nvl_gem_set_deps_hook(deps_hook);
	nvl_gem_set_unmap_hook(unmap_hook);
	/* a validate move out of VRAM, then back: each leaves memory */
	new_vm_job();
	assert_int_equal(place_in(a, NVL_GEM_DOMAIN_GTT), 0);
	expect_unmap_after_vm_job(mm, a, 0);
	new_vm_job();
	assert_int_equal(place_in(a, NVL_GEM_DOMAIN_VRAM), 0);
	expect_unmap_after_vm_job(mm, a, 1);
	/* an eviction (b takes a's VRAM) */
	new_vm_job();
	b = mk(mm, MiB, NVL_BO_DOMAIN_VRAM, 0);
	assert_int_equal(mmkit_where(a), NVL_GEM_DOMAIN_GTT);
	expect_unmap_after_vm_job(mm, a, 2);
	mmkit_expect_bo(a, 0x3d);
	/* the shrinker: a's pages stay while a VM job may use them, go
	 * (written to swap) once it is done, the hook called first */
	new_vm_job();
	n = atomic_load(&unmaps);
	(void)nvl_mm_shrink(mm, MiB);
	assert_int_equal(mmkit_where(a), NVL_GEM_DOMAIN_GTT);
	assert_int_equal(atomic_load(&unmaps), n);
	end_vm_job();
	(void)nvl_mm_shrink(mm, MiB);
	assert_int_equal(atomic_load(&unmaps), n + 1);
	assert_int_equal(atomic_load(&unmap_leave), 3);
	assert_int_equal(mmkit_where(a), NVL_GEM_DOMAIN_NONE);
	/* swapped in, then moved to VRAM (a leave of its pages: 4; b's
	 * eviction to make room is b's first) */
	mmkit_expect_bo(a, 0x3d);
	assert_int_equal(mmkit_where(a), NVL_GEM_DOMAIN_VRAM);
	assert_int_equal(nvl_mm_wait_idle(mm, 5 * NVL_NSEC_PER_SEC), 0);
	assert_int_equal(atomic_load(&unmaps), n + 3);
	/* a purge (empty placement) while busy: the ghost keeps the memory
	 * until the unmap job ran, after the VM job */
	new_vm_job();
	assert_int_equal(nvl_resv_lock(a->gem.resv, NULL), 0);
	assert_int_equal(nvl_bo_validate(a, NULL, 0), 0);
	nvl_resv_unlock(a->gem.resv);
	assert_false(nvl_list_empty(&mm->zombies));
	expect_unmap_after_vm_job(mm, a, 5);
	/* and idle: at once */
	mmkit_use(a);
	n = atomic_load(&unmaps);
	assert_int_equal(nvl_mm_wait_idle(mm, 5 * NVL_NSEC_PER_SEC), 0);
	assert_int_equal(nvl_resv_lock(a->gem.resv, NULL), 0);
	assert_int_equal(nvl_bo_validate(a, NULL, 0), 0);
	nvl_resv_unlock(a->gem.resv);
	assert_int_equal(atomic_load(&unmaps), n + 1);
	assert_int_equal(atomic_load(&unmap_leave), 6);
	nvl_gem_set_unmap_hook(NULL);
	nvl_gem_set_deps_hook(NULL);
	mmkit_idle_put(a);
	mmkit_idle_put(b);
	nvl_mm_destroy(mm);
}

struct inj_gut {
	struct nvl_mm *mm;
	struct nvl_bo *bo;
};

static int inj_gut_busy(void *arg)
{
	struct inj_gut *x = arg;
	int ret;

	assert_int_equal(nvl_resv_lock(x->bo->gem.resv, NULL), 0);
	ret = nvl_bo_validate(x->bo, NULL, 0);
	nvl_resv_unlock(x->bo->gem.resv);
	return ret;
}

static void inj_gut_check(int ret, void *arg)
{
	struct inj_gut *x = arg;

	/* nothing queued, nothing freed: the BO still has its memory */
	assert_int_equal(ret, -ENOMEM);
	assert_int_equal(mmkit_where(x->bo), NVL_GEM_DOMAIN_VRAM);
	assert_int_equal(x->mm->vram.avail_B, 0);
	assert_true(nvl_list_empty(&x->mm->zombies));
}

/*
 * A busy purge under every allocation failure: -ENOMEM before anything is
 * queued (the BO keeps its memory, the hook is not called) or a ghost and
 * an unmap job that runs after the VM job; every failed move path of the
 * other tests above keeps the memory too (validate_move_survives_...).
 */
static void busy_purge_survives_allocation_failures(void **state)
{
	struct inj_gut x = {.mm = new_mm(MiB)};
	unsigned n;

	(void)state;
	x.bo = mk(x.mm, MiB, NVL_BO_DOMAIN_VRAM, 0);
	nvl_gem_set_deps_hook(deps_hook);
	nvl_gem_set_unmap_hook(unmap_hook);
	atomic_store(&unmap_early, false);
	n = atomic_load(&unmaps);
	new_vm_job();
	assert_true(t_fail_each_alloc(inj_gut_busy, inj_gut_check, &x, 60) >=
		    5);
	end_vm_job();
	assert_int_equal(nvl_mm_wait_idle(x.mm, 5 * NVL_NSEC_PER_SEC), 0);
	assert_false(atomic_load(&unmap_early));
	assert_true(atomic_load(&unmaps) > n);
	nvl_gem_set_unmap_hook(NULL);
	nvl_gem_set_deps_hook(NULL);
	mmkit_idle_put(x.bo);
	nvl_mm_destroy(x.mm);
}

static void cpu_visible_bos_stay_in_the_window(void **state)
{
	struct nvl_mm_config cfg = {.vram_B = 8 * MiB, .visible_B = 2 * MiB};
	uint32_t dom = NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT;
	struct nvl_bo *hidden[8], *vis;
	struct nvl_buddy_block *b;
	struct nvl_mm *mm;
	int evicted = 0;

	assert_int_equal(nvl_mm_create(&cfg, &mm), 0);
	for (int i = 0; i < 8; i++)
		hidden[i] = mk(mm, MiB, dom, 0);
	/* VRAM is full; the visible BO evicts only BOs in the window. */
	vis = mk(mm, 2 * MiB, dom, NVL_BO_CPU_VISIBLE);
	assert_int_equal(mmkit_where(vis), NVL_GEM_DOMAIN_VRAM);
	nvl_list_for_each_entry (b, &vis->blocks, link)
		assert_true(nvl_buddy_block_offset(b) +
				    nvl_buddy_block_size(&mm->vram, b) <=
			    2 * MiB);
	for (int i = 0; i < 8; i++)
		evicted += mmkit_where(hidden[i]) == NVL_GEM_DOMAIN_GTT;
	assert_int_equal(evicted, 2);
	for (int i = 0; i < 8; i++)
		mmkit_idle_put(hidden[i]);
	mmkit_idle_put(vis);
	nvl_mm_destroy(mm);
}

static void hidden_bos_leave_the_window_free(void **state)
{
	struct nvl_mm_config cfg = {.vram_B = 8 * MiB, .visible_B = 2 * MiB};
	uint32_t dom = NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT;
	struct nvl_bo *hidden[6], *vis;
	struct nvl_buddy_block *b;
	struct nvl_mm *mm;

	assert_int_equal(nvl_mm_create(&cfg, &mm), 0);
	for (int i = 0; i < 6; i++) {
		hidden[i] = mk(mm, MiB, dom, 0);
		nvl_list_for_each_entry (b, &hidden[i]->blocks, link)
			assert_true(nvl_buddy_block_offset(b) >= 2 * MiB);
	}
	vis = mk(mm, 2 * MiB, dom, NVL_BO_CPU_VISIBLE);
	assert_int_equal(mmkit_where(vis), NVL_GEM_DOMAIN_VRAM);
	assert_int_equal(atomic_load(&mm->evictions), 0);
	for (int i = 0; i < 6; i++)
		mmkit_idle_put(hidden[i]);
	mmkit_idle_put(vis);
	nvl_mm_destroy(mm);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(hidden_bos_leave_the_window_free),
	cmocka_unit_test(restore_survives_allocation_failures),
	cmocka_unit_test(cpu_visible_bos_stay_in_the_window),
	cmocka_unit_test(lru_evicts_least_recently_used_first),
	cmocka_unit_test(pinned_and_mapped_bos_are_never_evicted),
	cmocka_unit_test(pipelined_move_waits_for_the_bo_fences),
	cmocka_unit_test(move_waits_for_bookkeep_fences),
	cmocka_unit_test(eviction_takes_over_pages_of_queued_move),
	cmocka_unit_test(eviction_takes_over_pages_of_the_workers_job),
	cmocka_unit_test(evict_hook_hears_moves_out_and_back),
	cmocka_unit_test(evict_hooks_are_several_and_bounded),
	cmocka_unit_test(bulk_move_keeps_vm_bos_most_recent),
	cmocka_unit_test(released_busy_bo_keeps_memory_until_idle),
	cmocka_unit_test(eviction_survives_allocation_failures),
	cmocka_unit_test(validate_move_waits_for_mapping_vms),
	cmocka_unit_test(validate_move_tells_hooks),
	cmocka_unit_test(validate_move_survives_allocation_failures),
	cmocka_unit_test(moved_backing_pending_until_filled),
	cmocka_unit_test(memory_left_is_unmapped_after_its_jobs),
	cmocka_unit_test(busy_purge_survives_allocation_failures),
};

T_MAIN(tests)

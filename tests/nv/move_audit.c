// SPDX-License-Identifier: MIT
/*
 * TEST: a validate move (a BO going to its preferred domain: nvl_bo_use(),
 * an exec's validate, a PREFETCH) against another client, as session 15's
 * nv_mm_audit job_before_bind_after_eviction does for an eviction. Both
 * tests found two bugs (3 of 3 runs each), each failing before its fix:
 *
 * - the "next job": a BO bound in its fallback place (never evicted), or
 *   bound after its eviction (its vm_bo made after the evict hook ran),
 *   then moved: the move told GPUVM nothing (only an evicted BO's return
 *   was heard, by the vm_bos listed at the eviction), so the VM's
 *   page-table entries stayed on the memory the BO left for good and every
 *   later job of the VM read what client B got there;
 * - the "late job", queued before the BO was bound and run after the
 *   move: the copy job waited for the BO's resv only (the job's fence is on
 *   the VM's), so the old memory was reused under it.
 *
 * Both directions: (a) VRAM -> GTT (the BO fell back to VRAM while the
 * host budget was full), the VRAM it left cleared for B's new BO;
 * (b) GTT -> VRAM, the host pages it left taken over, still DMA-mapped, by
 * the eviction of B's BO (mm.c handover_locked()).
 *
 * Then the asynchronous bind committed while a move into the BO's memory
 * is still queued (session 16's known hole, session 17's fix): the commit
 * mapped the new memory before the copy that fills it, and a job queued
 * before the bind read what it held (B's freed bytes, 2 of 2 runs). Now
 * the commit leaves those entries invalid and lists the mapping for the
 * next exec's validate (whose job waits for the move): the early job
 * faults instead, the next job reads the BO. (c) a move in; (d) an
 * eviction (move out) while the bind waits.
 *
 * Then the validate form (session 17's known hole, closed in session 18):
 * an exec's validate rewrote the entries of a BO whose move was still
 * queued at once, and a job queued before read the move's destination
 * before the copy (B's bytes, 2 of 2 runs). Now the exec's job writes
 * them when it runs, after the move (src/vm/rebind.c).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <nouvelle/nouvelle.h>

#include "core/device.h"
#include "kit.h"
#include "mm/bo.h"
#include "t.h"
#include "t_nv.h"

#define KIB T_NV_KIB
#define MIB T_NV_MIB
#define VA_PB (32 * MIB)
#define VA_SEM (40 * MIB)
#define VA_R (160 * MIB)
#define VA_X (192 * MIB)
#define X_SIZE (8 * MIB)
#define PATTERN 0x600dda7au
#define B_BYTES 0xbbbbbbbbu

/* semaphore words (16 bytes apart) of the client's semaphore BO */
#define SEM_LATE 0
#define SEM_BUSY 4
#define SEM_X 8

/* pushbuffer byte offsets of the tests' jobs */
#define PB_LATE 0
#define PB_BUSY 1024
#define PB_NEXT 2048
#define PB_X 3072
/* what R holds where no job wrote */
#define R_UNWRITTEN 0x5e5e5e5eu

/* the device, client A (a channel, a semaphore, R at VA_R) and client B */
struct audit {
	struct nvl_device *dev;
	struct nvl_device_info info;
	struct nvl_client *b;
	struct t_nv_cl a;
	uint32_t r;
};

/* R in @r_domain, CPU-mapped into *@pr unless @pr is NULL */
static void audit_up(struct audit *t, uint32_t r_domain, uint32_t **pr)
{
	t->dev = t_nv_dev_open(256 * MIB, &t->info);
	t_nv_cl_up(&t->a, t->dev, VA_PB, 0);
	t_nv_cl_sem(&t->a, 4 * KIB, VA_SEM);
	assert_int_equal(nvl_device_client_create(t->dev, &t->b), 0);
	t->r = t_nv_cl_bo(&t->a, 2 * MIB, r_domain, VA_R, (void **)pr);
}

static void audit_down(struct audit *t)
{
	nvl_client_destroy(t->b);
	t_nv_cl_down(&t->a);
	nvl_device_close(t->dev);
}

static uint32_t where(struct nvl_client *c, uint32_t h)
{
	struct nvl_bo_info bi;

	assert_int_equal(nvl_bo_query(c, h, &bi), 0);
	return bi.current;
}

static int bind1(struct nvl_client *c, uint32_t vm, uint32_t h, uint64_t va,
		 uint64_t size)
{
	struct nvl_vm_bind_op o = {.op = NVL_VM_BIND_OP_MAP,
				   .handle = h,
				   .addr = va,
				   .range = size};

	return nvl_vm_bind(c, vm, 0, &o, 1, NULL, 0, NULL, 0, 0);
}

/* VRAM not yet taken (the memory manager's figure) */
static uint64_t vram_free(struct audit *t)
{
	uint64_t free_B;

	nvl_mutex_lock(&t->dev->mm->lock);
	free_B = t->dev->mm->vram.avail_B;
	nvl_mutex_unlock(&t->dev->mm->lock);
	return free_B;
}

/* every word of BO @h of @c := @v (CPU-visible) */
static void fill(struct nvl_client *c, uint32_t h, uint64_t size, uint32_t v)
{
	uint32_t *p;

	assert_int_equal(nvl_bo_map(c, h, (void **)&p), 0);
	for (uint64_t i = 0; i < size / 4; i++)
		p[i] = v;
	assert_int_equal(nvl_bo_unmap(c, h), 0);
}

/* X of A: VRAM preferred, GTT allowed, CPU-visible, holding PATTERN */
static uint32_t new_x(struct audit *t)
{
	uint32_t x;

	assert_int_equal(nvl_bo_create(t->a.c, X_SIZE,
				       NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
				       NVL_BO_DOMAIN_VRAM, NVL_BO_CPU_VISIBLE,
				       &x),
			 0);
	fill(t->a.c, x, X_SIZE, PATTERN);
	return x;
}

/* X evicted to GTT by B's pressure (B's hog closed again) */
static uint32_t new_x_evicted(struct audit *t)
{
	uint32_t x = new_x(t);

	assert_int_equal(nvl_bo_close(t->b, t_nv_vram_hog_all(t->b, &t->info)),
			 0);
	assert_int_equal(where(t->a.c, x), NVL_BO_DOMAIN_GTT);
	return x;
}

static void sem_release(struct t_nv_cl *a, unsigned word)
{
	atomic_store_explicit((_Atomic uint32_t *)&a->psem[word], 1,
			      memory_order_release);
}

/* the late job: wait for semaphore SEM_LATE, then copy 1 MiB at VA_X into
 * R's first MiB; queued on the client's channel before X exists */
static void queue_late_job(struct t_nv_cl *a)
{
	uint32_t n;

	a->psem[SEM_LATE] = 0;
	a->psem[SEM_BUSY] = 0;
	a->psem[SEM_X] = 0;
	n = nvl_kit_pb_acquire(a->ppb + PB_LATE / 4, VA_SEM + 4 * SEM_LATE, 1);
	n += nvl_kit_pb_copy(a->ppb + PB_LATE / 4 + n, a->info.ce_class, VA_R,
			     VA_X, MIB);
	assert_int_equal(t_nv_cl_exec(a, a->chan, PB_LATE, n), 0);
}

/* a later job of the client on channel @chan (its exec validates the VM):
 * copy VA_X into R's second MiB, and wait for it */
static void run_next_job(struct t_nv_cl *a, uint32_t chan)
{
	uint32_t n = nvl_kit_pb_copy(a->ppb + PB_NEXT / 4, a->info.ce_class,
				     VA_R + MIB, VA_X, MIB);
	struct nvl_exec_push ps = {.va = VA_PB + PB_NEXT, .len = n * 4};
	struct nvl_vm_sync s = {.handle = a->sync};
	int st = 0;

	assert_int_equal(nvl_exec(a->c, chan, &ps, 1, NULL, 0, &s, 1, 0), 0);
	assert_int_equal(t_nv_cl_wait(a, 20 * T_NV_SEC), 0);
	assert_int_equal(nvl_syncobj_status(a->c, a->sync, 0, &st), 0);
	assert_int_equal(st, 1);
}

/* queue, on channel @chan, a job waiting for semaphore @word (signalling
 * syncobj @sig unless 0) */
static void queue_blocked_job(struct t_nv_cl *a, uint32_t chan, uint32_t pb,
			      unsigned word, uint32_t sig)
{
	uint32_t n = nvl_kit_pb_acquire(a->ppb + pb / 4, VA_SEM + 4 * word, 1);
	struct nvl_exec_push ps = {.va = VA_PB + pb, .len = n * 4};
	struct nvl_vm_sync s = {.handle = sig};

	a->psem[word] = 0;
	assert_int_equal(
		nvl_exec(a->c, chan, &ps, 1, NULL, 0, &s, sig ? 1 : 0, 0), 0);
}

/* an asynchronous bind of X at VA_X of A's VM, waiting for syncobj @w and
 * signalling @done */
static void bind_x_async(struct t_nv_cl *a, uint32_t x, uint32_t w,
			 uint32_t done)
{
	struct nvl_vm_sync bw = {.handle = w}, bsig = {.handle = done};
	struct nvl_vm_bind_op op = {.op = NVL_VM_BIND_OP_MAP,
				    .handle = x,
				    .addr = VA_X,
				    .range = X_SIZE};

	assert_int_equal(nvl_vm_bind(a->c, a->vm, 0, &op, 1, &bw, 1, &bsig, 1,
				     NVL_VM_BIND_ASYNC),
			 0);
}

/* the late job ran into the entries the bind left invalid: its channel
 * died of an MMU fault at VA_X, and R's first MiB is as it was */
static void expect_late_job_faulted(struct audit *t, uint32_t chan)
{
	struct nvl_channel_info ci;
	int st = 0;

	t_nv_expect_words(t->a.c, t->r, 0, MIB / 4, R_UNWRITTEN,
			  "what the late job wrote in R (B's bytes?)");
	assert_int_equal(nvl_syncobj_status(t->a.c, t->a.sync, 0, &st), 0);
	assert_true(st < 0);
	assert_int_equal(nvl_channel_query(t->a.c, chan, &ci), 0);
	assert_int_equal(ci.alive, 0);
	assert_int_equal(ci.reason, NVL_CHANNEL_MMU_FAULT);
	assert_true(ci.fault_va >= VA_X && ci.fault_va < VA_X + X_SIZE);
}

/*
 * (a) X prefers GTT; created while the host budget is full, it falls back
 * to VRAM and is bound there (after the late job was queued). With the
 * budget back, nvl_bo_use() moves it to GTT; client B's new BO takes
 * (almost) all of VRAM and is cleared there. Before: B's clear ran at once
 * (the copy did not wait for the late job) and the late job read B's zeros
 * through the entries the move left; and so did the next job of the VM,
 * since nothing listed X for its validate.
 */
static void job_before_bind_after_move_out(void **state)
{
	struct audit t;
	uint32_t x, big, *pr;

	(void)state;
	/* R in VRAM, CPU-mapped: it stays where it is */
	audit_up(&t, NVL_BO_DOMAIN_VRAM, &pr);
	queue_late_job(&t.a);
	/* X: GTT preferred, VRAM while the host budget is full */
	nvl_mm_set_host_budget(t.dev->mm, 4 * KIB);
	assert_int_equal(nvl_bo_create(t.a.c, X_SIZE,
				       NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
				       NVL_BO_DOMAIN_GTT, NVL_BO_CPU_VISIBLE,
				       &x),
			 0);
	nvl_mm_set_host_budget(t.dev->mm, 0);
	assert_int_equal(where(t.a.c, x), NVL_BO_DOMAIN_VRAM);
	assert_int_equal(bind1(t.a.c, t.a.vm, x, VA_X, X_SIZE), 0);
	fill(t.a.c, x, X_SIZE, PATTERN);
	/* the validate move out of VRAM */
	assert_int_equal(nvl_bo_use(t.a.c, x), 0);
	assert_int_equal(where(t.a.c, x), NVL_BO_DOMAIN_GTT);
	/* B's new BO over the VRAM X left, cleared once X's copy is done */
	big = t_nv_vram_hog(t.b,
			    t.info.vram_usable - T_NV_DRIVER_VRAM - 4 * MIB);
	(void)nvl_bo_wait(t.b, big, T_NV_SEC / 5);
	sem_release(&t.a, SEM_LATE);
	assert_int_equal(t_nv_cl_wait(&t.a, 20 * T_NV_SEC), 0);
	t_nv_expect_words(t.a.c, t.r, 0, MIB / 4, PATTERN,
			  "what the late job read at VA_X");
	run_next_job(&t.a, t.a.chan);
	t_nv_expect_words(t.a.c, t.r, MIB / 4, MIB / 4, PATTERN,
			  "what the next job read at VA_X");
	t_nv_expect_words(t.a.c, x, 0, X_SIZE / 4, PATTERN, "X after its move");
	assert_int_equal(nvl_bo_unmap(t.a.c, t.r), 0);
	audit_down(&t);
}

/*
 * (b) X prefers VRAM; evicted to GTT before it is bound (so its mapping is
 * made after the eviction), bound there after the late job was queued, and
 * moved back by nvl_bo_use() while another job of the client (on a second
 * channel, blocked on SEM_BUSY) keeps X busy: the copy waits, and its old
 * host pages are still to be freed when client B's BO Y (X's size, older
 * in the VRAM LRU than X) is evicted: the eviction takes them over, still
 * DMA-mapped. Before: Y's bytes landed there once the busy job ran, and
 * the late job, then the next one, read them through the entries X's move
 * left.
 */
static void job_before_bind_after_move_in(void **state)
{
	struct nvl_mm_move_stats st0, st1;
	struct audit t;
	uint32_t x, y, ch2;

	(void)state;
	audit_up(&t, NVL_BO_DOMAIN_GTT, NULL);
	assert_int_equal(
		nvl_channel_create(t.a.c, t.a.vm, NVL_ENGINE_COPY, 0, &ch2), 0);
	queue_late_job(&t.a);
	/* X in VRAM with a pattern, evicted by B's pressure, then bound */
	x = new_x_evicted(&t);
	assert_int_equal(bind1(t.a.c, t.a.vm, x, VA_X, X_SIZE), 0);
	/* B's Y in VRAM with B's bytes, older than X's move back */
	assert_int_equal(nvl_bo_create(t.b, X_SIZE,
				       NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
				       NVL_BO_DOMAIN_VRAM, NVL_BO_CPU_VISIBLE,
				       &y),
			 0);
	fill(t.b, y, X_SIZE, B_BYTES);
	/* a job on the second channel keeps X busy */
	queue_blocked_job(&t.a, ch2, PB_BUSY, SEM_BUSY, 0);
	/* the validate move back into VRAM: its copy waits */
	assert_int_equal(nvl_bo_use(t.a.c, x), 0);
	assert_int_equal(where(t.a.c, x), NVL_BO_DOMAIN_VRAM);
	/* pressure that evicts Y (the oldest) and not X: Y's eviction takes
	 * the host pages X's copy frees */
	nvl_mm_move_stats(t.dev->mm, &st0);
	(void)t_nv_vram_hog(t.b, vram_free(&t) + 4 * MIB);
	nvl_mm_move_stats(t.dev->mm, &st1);
	assert_int_equal(where(t.b, y), NVL_BO_DOMAIN_GTT);
	assert_int_equal(where(t.a.c, x), NVL_BO_DOMAIN_VRAM);
	assert_int_equal(st1.host_handovers, st0.host_handovers + 1);
	sem_release(&t.a, SEM_BUSY);
	(void)nvl_bo_wait(t.b, y, T_NV_SEC / 5);
	sem_release(&t.a, SEM_LATE);
	/* both jobs fenced R */
	assert_int_equal(nvl_bo_wait(t.a.c, t.r, 20 * T_NV_SEC), 0);
	t_nv_expect_words(t.a.c, t.r, 0, MIB / 4, PATTERN,
			  "what the late job read at VA_X");
	run_next_job(&t.a, t.a.chan);
	t_nv_expect_words(t.a.c, t.r, MIB / 4, MIB / 4, PATTERN,
			  "what the next job read at VA_X");
	t_nv_expect_words(t.a.c, x, 0, X_SIZE / 4, PATTERN, "X after its move");
	t_nv_expect_words(t.b, y, 0, X_SIZE / 4, B_BYTES,
			  "Y after its eviction");
	audit_down(&t);
}

/*
 * An asynchronous bind of X waiting for a syncobj while a move into X's
 * memory is queued, the bind run before the move's copy: (c) a move in,
 * @move_in (nvl_bo_use(), its copy queued behind a job of a second VM of
 * the client that keeps X busy, and the late job it waits for); (d) an
 * eviction, a move out (B's pressure; its copy waits for the late job,
 * which the VM that maps X holds). Before the fix (2 of 2 runs each): the
 * commit mapped X's new memory before the copy, and the late job read
 * what it held (B's freed VRAM; the new host pages' last owner's bytes).
 * Now the entries stay invalid (the late job faults, R unwritten) and the
 * next exec maps X.
 */
static void bind_while_move_queued(bool move_in)
{
	uint32_t x, y, ch2, ch3, vm2, w, bs, *pr;
	struct audit t;

	audit_up(&t, NVL_BO_DOMAIN_GTT, &pr);
	for (unsigned i = 0; i < 2 * MIB / 4; i++)
		pr[i] = R_UNWRITTEN;
	assert_int_equal(
		nvl_channel_create(t.a.c, t.a.vm, NVL_ENGINE_COPY, 0, &ch2), 0);
	assert_int_equal(nvl_syncobj_create(t.a.c, 0, &w), 0);
	assert_int_equal(nvl_syncobj_create(t.a.c, 0, &bs), 0);
	queue_late_job(&t.a);
	/* X evicted to GTT before it is bound (in), or in VRAM (out) */
	x = move_in ? new_x_evicted(&t) : new_x(&t);
	assert_int_equal(nvl_bo_wait(t.a.c, x, 20 * T_NV_SEC), 0);
	if (move_in) {
		/* B's bytes in the VRAM X will get: Y written, the rest
		 * taken, Y freed */
		assert_int_equal(nvl_bo_create(t.b, X_SIZE, NVL_BO_DOMAIN_VRAM,
					       0, NVL_BO_CPU_VISIBLE, &y),
				 0);
		fill(t.b, y, X_SIZE, B_BYTES);
		assert_int_equal(
			nvl_bo_wait(t.b,
				    t_nv_vram_hog(t.b, vram_free(&t) - 2 * MIB),
				    20 * T_NV_SEC),
			0);
		assert_int_equal(nvl_bo_close(t.b, y), 0);
	} else {
		assert_int_equal(where(t.a.c, x), NVL_BO_DOMAIN_VRAM);
	}
	/* a job on the second channel whose syncobj the bind waits for */
	queue_blocked_job(&t.a, ch2, PB_BUSY, SEM_BUSY, w);
	bind_x_async(&t.a, x, w, bs);
	if (move_in) {
		/* a second VM of A where a job keeps X busy */
		vm2 = t_nv_vm(t.a.c);
		assert_int_equal(bind1(t.a.c, vm2, t.a.pb, VA_PB, T_NV_PB_SIZE),
				 0);
		assert_int_equal(bind1(t.a.c, vm2, t.a.sem, VA_SEM, 4 * KIB),
				 0);
		assert_int_equal(bind1(t.a.c, vm2, x, VA_X, X_SIZE), 0);
		assert_int_equal(nvl_channel_create(t.a.c, vm2, NVL_ENGINE_COPY,
						    0, &ch3),
				 0);
		queue_blocked_job(&t.a, ch3, PB_X, SEM_X, 0);
		/* X moves into VRAM (B's freed bytes until its copy runs) */
		assert_int_equal(nvl_bo_use(t.a.c, x), 0);
		assert_int_equal(where(t.a.c, x), NVL_BO_DOMAIN_VRAM);
	} else {
		/* B's pressure evicts X: the copy waits for the late job */
		(void)t_nv_vram_hog_all(t.b, &t.info);
		assert_int_equal(where(t.a.c, x), NVL_BO_DOMAIN_GTT);
	}
	/* the bind runs before the copy */
	sem_release(&t.a, SEM_BUSY);
	assert_int_equal(nvl_syncobj_wait(t.a.c, &bs, NULL, 1,
					  t_nv_deadline(20 * T_NV_SEC), 0,
					  NULL),
			 0);
	if (!move_in)
		assert_int_equal(nvl_bo_wait(t.a.c, x, 0), -ETIME);
	sem_release(&t.a, SEM_LATE);
	if (move_in) {
		(void)t_nv_cl_wait(&t.a, T_NV_SEC / 5);
		sem_release(&t.a, SEM_X);
	}
	assert_int_equal(nvl_bo_wait(t.a.c, x, 20 * T_NV_SEC), 0);
	assert_int_equal(t_nv_cl_wait(&t.a, 20 * T_NV_SEC), 0);
	expect_late_job_faulted(&t, t.a.chan);
	/* the next exec's validate maps X, moved */
	run_next_job(&t.a, ch2);
	t_nv_expect_words(t.a.c, t.r, MIB / 4, MIB / 4, PATTERN,
			  "what the next job read at VA_X");
	t_nv_expect_words(t.a.c, x, 0, X_SIZE / 4, PATTERN, "X after its move");
	assert_int_equal(nvl_bo_unmap(t.a.c, t.r), 0);
	audit_down(&t);
}

static void bind_after_move_queued(void **state)
{
	(void)state;
	bind_while_move_queued(true);
}

static void bind_after_eviction_queued(void **state)
{
	(void)state;
	bind_while_move_queued(false);
}

/*
 * The validate form (session 17's known hole, closed in session 18).
 * X bound in GTT, B's bytes left in the free VRAM, the late job queued;
 * X moves into VRAM, its copy waiting for the late job. Before the fix (2
 * of 2 runs), an exec's validate rewrote VA_X to the new VRAM at once,
 * before the copy, and the late job read B's bytes there. Now the exec's
 * validate leaves the old entries (the late job reads X's bytes from the
 * memory X left, which its copy waits for) and the exec's own job writes
 * the new ones when it runs, after the copy: it reads X's bytes at VA_X
 * too.
 */

/* how the scenario goes */
enum defer_how {
	DEFER_PLAIN,
	/* allocation failure at each allocation of the exec in turn */
	DEFER_ENOMEM,
	/* the move's copy fails on the copy engine (the CPU redoes it) */
	DEFER_COPY_ERROR,
	/* a move out of VRAM, into new host pages */
	DEFER_MOVE_OUT,
};

struct defer_exec {
	struct audit *t;
	uint32_t chan, sig;
};

/* the exec's job on @d->chan: wait for SEM_BUSY, then copy VA_X into R's
 * second MiB; signals @d->sig */
static int defer_exec_op(void *arg)
{
	struct defer_exec *d = arg;
	struct t_nv_cl *a = &d->t->a;
	uint32_t n = nvl_kit_pb_acquire(a->ppb + PB_BUSY / 4,
					VA_SEM + 4 * SEM_BUSY, 1);
	struct nvl_exec_push ps;
	struct nvl_vm_sync s = {.handle = d->sig};

	n += nvl_kit_pb_copy(a->ppb + PB_BUSY / 4 + n, a->info.ce_class,
			     VA_R + MIB, VA_X, MIB);
	ps = (struct nvl_exec_push){.va = VA_PB + PB_BUSY, .len = n * 4};
	return nvl_exec(a->c, d->chan, &ps, 1, NULL, 0, &s, 1, 0);
}

/* a failed exec: -ENOMEM, nothing signalled, nothing run on its channel */
static void defer_exec_check(int ret, void *arg)
{
	struct defer_exec *d = arg;
	struct nvl_channel_info ci;
	int st = 0;

	assert_int_equal(ret, -ENOMEM);
	assert_int_equal(nvl_syncobj_status(d->t->a.c, d->sig, 0, &st),
			 -ENOENT);
	assert_int_equal(nvl_channel_query(d->t->a.c, d->chan, &ci), 0);
	assert_int_equal(ci.submitted, 0);
}

static void validate_defer(enum defer_how how)
{
	struct nvl_move_stats m0, m1;
	struct nvl_channel_info ci;
	bool out = how == DEFER_MOVE_OUT;
	uint32_t dst = out ? NVL_BO_DOMAIN_GTT : NVL_BO_DOMAIN_VRAM;
	struct defer_exec d;
	uint32_t x, y, *pr;
	struct audit t;

	/* R where a move of X leaves it alone */
	audit_up(&t, out ? NVL_BO_DOMAIN_VRAM : NVL_BO_DOMAIN_GTT, &pr);
	for (unsigned i = 0; i < 2 * MIB / 4; i++)
		pr[i] = R_UNWRITTEN;
	d.t = &t;
	assert_int_equal(
		nvl_channel_create(t.a.c, t.a.vm, NVL_ENGINE_COPY, 0, &d.chan),
		0);
	assert_int_equal(nvl_syncobj_create(t.a.c, 0, &d.sig), 0);
	if (out) {
		/* X: GTT preferred, in VRAM while the host budget is full;
		 * the new host pages hold anything but X's bytes */
		nvl_mm_set_host_budget(t.dev->mm, 4 * KIB);
		assert_int_equal(
			nvl_bo_create(t.a.c, X_SIZE,
				      NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
				      NVL_BO_DOMAIN_GTT, NVL_BO_CPU_VISIBLE,
				      &x),
			0);
		nvl_mm_set_host_budget(t.dev->mm, 0);
		assert_int_equal(where(t.a.c, x), NVL_BO_DOMAIN_VRAM);
		fill(t.a.c, x, X_SIZE, PATTERN);
		assert_int_equal(bind1(t.a.c, t.a.vm, x, VA_X, X_SIZE), 0);
	} else {
		x = new_x_evicted(&t);
		assert_int_equal(nvl_bo_wait(t.a.c, x, 20 * T_NV_SEC), 0);
		assert_int_equal(bind1(t.a.c, t.a.vm, x, VA_X, X_SIZE), 0);
		/* B's bytes in the VRAM X will get */
		assert_int_equal(nvl_bo_create(t.b, X_SIZE, NVL_BO_DOMAIN_VRAM,
					       0, NVL_BO_CPU_VISIBLE, &y),
				 0);
		fill(t.b, y, X_SIZE, B_BYTES);
		assert_int_equal(
			nvl_bo_wait(t.b,
				    t_nv_vram_hog(t.b, vram_free(&t) - 2 * MIB),
				    20 * T_NV_SEC),
			0);
		assert_int_equal(nvl_bo_close(t.b, y), 0);
	}
	queue_late_job(&t.a);
	assert_int_equal(nvl_device_move_stats(t.dev, &m0), 0);
	if (how == DEFER_COPY_ERROR)
		assert_int_equal(nvl_device_inject_move_error(
					 t.dev, NVL_MOVE_ERROR_ENGINE, 1),
				 0);
	/* the move (into VRAM, or out): its copy waits for the late job */
	assert_int_equal(nvl_bo_use(t.a.c, x), 0);
	assert_int_equal(where(t.a.c, x), dst);
	/* the exec's validate: X's move still queued, VA_X not rewritten */
	if (how == DEFER_ENOMEM)
		assert_true(t_fail_each_alloc(defer_exec_op, defer_exec_check,
					      &d, 200) >= 3);
	else
		assert_int_equal(defer_exec_op(&d), 0);
	assert_int_equal(where(t.a.c, x), dst);
	assert_int_equal(nvl_bo_wait(t.a.c, x, 0), -ETIME);
	/* the late job, on the entries it was queued with */
	sem_release(&t.a, SEM_LATE);
	assert_int_equal(t_nv_cl_wait(&t.a, 20 * T_NV_SEC), 0);
	/* the exec's job, after X's copy (X's wait would wait for it) */
	sem_release(&t.a, SEM_BUSY);
	assert_int_equal(nvl_syncobj_wait(t.a.c, &d.sig, NULL, 1,
					  t_nv_deadline(20 * T_NV_SEC), 0,
					  NULL),
			 0);
	{
		int st = 0;

		assert_int_equal(nvl_syncobj_status(t.a.c, d.sig, 0, &st), 0);
		assert_int_equal(st, 1);
	}
	for (unsigned i = 0; i < MIB / 4; i++)
		if (pr[i] == B_BYTES)
			fail_msg("the late job read B's bytes at word %u", i);
	t_nv_expect_words(t.a.c, t.r, 0, MIB / 4, PATTERN,
			  "what the late job read at VA_X");
	t_nv_expect_words(t.a.c, t.r, MIB / 4, MIB / 4, PATTERN,
			  "what the exec's job read at VA_X");
	t_nv_expect_words(t.a.c, x, 0, X_SIZE / 4, PATTERN, "X after its move");
	assert_int_equal(nvl_channel_query(t.a.c, d.chan, &ci), 0);
	assert_true(ci.alive);
	/* one job ran there: no failed exec left one queued */
	assert_int_equal(ci.submitted, 1);
	assert_int_equal(nvl_device_move_stats(t.dev, &m1), 0);
	if (how == DEFER_COPY_ERROR)
		assert_true(m1.gpu_failures > m0.gpu_failures);
	else
		assert_int_equal(m1.gpu_failures, m0.gpu_failures);
	/* and the next exec maps X where it is now */
	run_next_job(&t.a, t.a.chan);
	t_nv_expect_words(t.a.c, t.r, MIB / 4, MIB / 4, PATTERN,
			  "what the next job read at VA_X");
	assert_int_equal(nvl_bo_unmap(t.a.c, t.r), 0);
	audit_down(&t);
}

static void validate_rewrite_before_late_job(void **state)
{
	(void)state;
	validate_defer(DEFER_PLAIN);
}

/* every allocation of the exec (the deferred rewrite's among them)
 * failing in turn: -ENOMEM, nothing signalled or queued, VA_X as it was
 * (the late job still reads X's bytes there) */
static void validate_defer_survives_allocation_failures(void **state)
{
	(void)state;
	validate_defer(DEFER_ENOMEM);
}

/* the move's copy fails on the copy engine and the CPU redoes it: the
 * rewrite waits for the redone copy */
static void validate_defer_copy_error(void **state)
{
	(void)state;
	validate_defer(DEFER_COPY_ERROR);
}

/* a move out of VRAM into new host pages: the same for a GTT snapshot */
static void validate_defer_move_out(void **state)
{
	(void)state;
	validate_defer(DEFER_MOVE_OUT);
}

/*
 * The client changes X's mappings between the exec (its validate recorded
 * the rewrite) and its job (session 19). The job writes what is mapped
 * when it runs, from the backing recorded at validate: a range unmapped
 * since is never mapped again (X's new memory must not be reachable
 * there), and every range still mapped, or mapped since, names X's new
 * place (with the flags it has now). Before the fix the job wrote only the
 * mappings listed at validate, by node: a split left the kept piece
 * invalid (the unmap hook had taken the old entries off) and a mapping
 * made since stayed invalid too (its bind leaves a backing still being
 * filled unmapped), so the job faulted in its own VM (split: 3 of 3 runs, the
 * read-only bind: 1 of 1).
 */
enum between {
	/* the last half of VA_X unmapped: the kept half holds X */
	BETWEEN_SPLIT,
	/* all of VA_X unmapped: the job faults, X is not mapped again */
	BETWEEN_UNMAPPED,
	/* a read-only asynchronous bind of X at VA_X2, pending at validate,
	 * commits: the job reads X there, its write faults (RO_VIOLATION) */
	BETWEEN_BOUND_READONLY,
};

#define VA_X2 (224 * MIB)

/* @chan died of an MMU fault in [@va, @va + X_SIZE): @ro a write to a
 * read-only page, else an unmapped one */
static void expect_fault_at(struct nvl_client *c, uint32_t chan, uint64_t va,
			    bool ro)
{
	struct nvl_channel_info ci;

	assert_int_equal(nvl_channel_query(c, chan, &ci), 0);
	assert_int_equal(ci.alive, 0);
	assert_int_equal(ci.reason, NVL_CHANNEL_MMU_FAULT);
	/* dev_fault.h NV_PFAULT_FAULT_TYPE_RO_VIOLATION (6) on a write
	 * (NV_PFAULT_ACCESS_TYPE_VIRT_WRITE, 1), else _PDE (0) or _PTE (2)
	 * on a read (_VIRT_READ, 0) */
	if (ro) {
		assert_int_equal(ci.fault_type, 6);
		assert_int_equal(ci.fault_access, 1);
	} else {
		assert_true(ci.fault_type == 0 || ci.fault_type == 2);
		assert_int_equal(ci.fault_access, 0);
	}
	assert_true(ci.fault_va >= va && ci.fault_va < va + X_SIZE);
}

static void validate_defer_between(enum between how)
{
	uint64_t src = how == BETWEEN_BOUND_READONLY ? VA_X2 : VA_X;
	struct nvl_vm_bind_op op;
	struct nvl_channel_info ci;
	uint32_t x, y, chan, sig, n, w, bs, ch3, *pr;
	struct nvl_exec_push ps;
	struct nvl_vm_sync s;
	struct audit t;
	int st = 0;

	audit_up(&t, NVL_BO_DOMAIN_GTT, &pr);
	for (unsigned i = 0; i < 2 * MIB / 4; i++)
		pr[i] = R_UNWRITTEN;
	assert_int_equal(
		nvl_channel_create(t.a.c, t.a.vm, NVL_ENGINE_COPY, 0, &chan),
		0);
	assert_int_equal(nvl_syncobj_create(t.a.c, 0, &sig), 0);
	/* X in GTT, bound; B's bytes in the VRAM it will get */
	x = new_x_evicted(&t);
	assert_int_equal(nvl_bo_wait(t.a.c, x, 20 * T_NV_SEC), 0);
	assert_int_equal(bind1(t.a.c, t.a.vm, x, VA_X, X_SIZE), 0);
	assert_int_equal(nvl_bo_create(t.b, X_SIZE, NVL_BO_DOMAIN_VRAM, 0,
				       NVL_BO_CPU_VISIBLE, &y),
			 0);
	fill(t.b, y, X_SIZE, B_BYTES);
	assert_int_equal(
		nvl_bo_wait(t.b, t_nv_vram_hog(t.b, vram_free(&t) - 2 * MIB),
			    20 * T_NV_SEC),
		0);
	assert_int_equal(nvl_bo_close(t.b, y), 0);
	/* the late job holds X's move into VRAM back */
	queue_late_job(&t.a);
	if (how == BETWEEN_BOUND_READONLY) {
		/* the bind waits for a job on a third channel (@w) */
		op = (struct nvl_vm_bind_op){.op = NVL_VM_BIND_OP_MAP,
					     .flags = NVL_VM_BIND_READONLY,
					     .handle = x,
					     .addr = VA_X2,
					     .range = X_SIZE};
		assert_int_equal(nvl_syncobj_create(t.a.c, 0, &w), 0);
		assert_int_equal(nvl_syncobj_create(t.a.c, 0, &bs), 0);
		assert_int_equal(nvl_channel_create(t.a.c, t.a.vm,
						    NVL_ENGINE_COPY, 0, &ch3),
				 0);
		queue_blocked_job(&t.a, ch3, PB_X, SEM_X, w);
		assert_int_equal(
			nvl_vm_bind(t.a.c, t.a.vm, 0, &op, 1,
				    &(struct nvl_vm_sync){.handle = w}, 1,
				    &(struct nvl_vm_sync){.handle = bs}, 1,
				    NVL_VM_BIND_ASYNC),
			0);
	}
	assert_int_equal(nvl_bo_use(t.a.c, x), 0);
	assert_int_equal(where(t.a.c, x), NVL_BO_DOMAIN_VRAM);
	/* the exec: wait for SEM_BUSY, copy @src into R's second MiB (and
	 * write it back at VA_X2 when it is read-only now) */
	n = nvl_kit_pb_acquire(t.a.ppb + PB_BUSY / 4, VA_SEM + 4 * SEM_BUSY, 1);
	n += nvl_kit_pb_copy(t.a.ppb + PB_BUSY / 4 + n, t.a.info.ce_class,
			     VA_R + MIB, src, MIB);
	if (how == BETWEEN_BOUND_READONLY)
		n += nvl_kit_pb_memset(t.a.ppb + PB_BUSY / 4 + n,
				       t.a.info.ce_class, VA_X2, B_BYTES, MIB);
	ps = (struct nvl_exec_push){.va = VA_PB + PB_BUSY, .len = n * 4};
	s = (struct nvl_vm_sync){.handle = sig};
	assert_int_equal(nvl_exec(t.a.c, chan, &ps, 1, NULL, 0, &s, 1, 0), 0);
	assert_int_equal(nvl_bo_wait(t.a.c, x, 0), -ETIME);
	/* the client changes the mappings before the job runs */
	op = (struct nvl_vm_bind_op){.op = NVL_VM_BIND_OP_UNMAP};
	switch (how) {
	case BETWEEN_SPLIT:
		op.addr = VA_X + X_SIZE / 2;
		op.range = X_SIZE / 2;
		break;
	case BETWEEN_UNMAPPED:
		op.addr = VA_X;
		op.range = X_SIZE;
		break;
	case BETWEEN_BOUND_READONLY:
		/* the bind commits, X's move still queued */
		sem_release(&t.a, SEM_X);
		assert_int_equal(nvl_syncobj_wait(t.a.c, &bs, NULL, 1,
						  t_nv_deadline(20 * T_NV_SEC),
						  0, NULL),
				 0);
		assert_int_equal(nvl_bo_wait(t.a.c, x, 0), -ETIME);
		break;
	}
	if (op.range)
		assert_int_equal(nvl_vm_bind(t.a.c, t.a.vm, 0, &op, 1, NULL, 0,
					     NULL, 0, 0),
				 0);
	/* the late job (it faults when VA_X went), then the exec's job */
	sem_release(&t.a, SEM_LATE);
	(void)t_nv_cl_wait(&t.a, 20 * T_NV_SEC);
	sem_release(&t.a, SEM_BUSY);
	assert_int_equal(nvl_syncobj_wait(t.a.c, &sig, NULL, 1,
					  t_nv_deadline(20 * T_NV_SEC), 0,
					  NULL),
			 0);
	assert_int_equal(nvl_syncobj_status(t.a.c, sig, 0, &st), 0);
	for (unsigned i = 0; i < 2 * MIB / 4; i++)
		if (pr[i] == B_BYTES)
			fail_msg("a job read B's bytes at word %u", i);
	switch (how) {
	case BETWEEN_SPLIT:
		if (st != 1) {
			assert_int_equal(nvl_channel_query(t.a.c, chan, &ci),
					 0);
			fail_msg("the exec's job faulted at %#llx, in the "
				 "half of VA_X still mapped",
				 (unsigned long long)ci.fault_va);
		}
		t_nv_expect_words(t.a.c, t.r, MIB / 4, MIB / 4, PATTERN,
				  "what the exec's job read at VA_X");
		/* the next job too, and the half unmapped stays so */
		run_next_job(&t.a, chan);
		t_nv_expect_words(t.a.c, t.r, MIB / 4, MIB / 4, PATTERN,
				  "what the next job read at VA_X");
		n = nvl_kit_pb_copy(t.a.ppb + PB_NEXT / 4, t.a.info.ce_class,
				    VA_R, VA_X + X_SIZE / 2, MIB);
		ps = (struct nvl_exec_push){.va = VA_PB + PB_NEXT,
					    .len = n * 4};
		assert_int_equal(
			nvl_exec(t.a.c, chan, &ps, 1, NULL, 0, &s, 1, 0), 0);
		(void)nvl_syncobj_wait(t.a.c, &sig, NULL, 1,
				       t_nv_deadline(20 * T_NV_SEC), 0, NULL);
		expect_fault_at(t.a.c, chan, VA_X + X_SIZE / 2, false);
		break;
	case BETWEEN_UNMAPPED:
		assert_true(st < 0);
		expect_fault_at(t.a.c, chan, VA_X, false);
		t_nv_expect_words(t.a.c, t.r, MIB / 4, MIB / 4, R_UNWRITTEN,
				  "what the exec's job read at VA_X");
		break;
	case BETWEEN_BOUND_READONLY:
		assert_true(st < 0);
		t_nv_expect_words(t.a.c, t.r, MIB / 4, MIB / 4, PATTERN,
				  "what the exec's job read at VA_X2");
		expect_fault_at(t.a.c, chan, VA_X2, true);
		break;
	}
	t_nv_expect_words(t.a.c, x, 0, X_SIZE / 4, PATTERN, "X after the jobs");
	assert_int_equal(nvl_bo_unmap(t.a.c, t.r), 0);
	audit_down(&t);
}

static void validate_defer_split_before_job(void **state)
{
	(void)state;
	validate_defer_between(BETWEEN_SPLIT);
}

static void validate_defer_unmapped_before_job(void **state)
{
	(void)state;
	validate_defer_between(BETWEEN_UNMAPPED);
}

static void validate_defer_bound_readonly_before_job(void **state)
{
	(void)state;
	validate_defer_between(BETWEEN_BOUND_READONLY);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(job_before_bind_after_move_out),
		cmocka_unit_test(job_before_bind_after_move_in),
		cmocka_unit_test(bind_after_move_queued),
		cmocka_unit_test(bind_after_eviction_queued),
		cmocka_unit_test(validate_rewrite_before_late_job),
		cmocka_unit_test(validate_defer_survives_allocation_failures),
		cmocka_unit_test(validate_defer_copy_error),
		cmocka_unit_test(validate_defer_move_out),
		cmocka_unit_test(validate_defer_split_before_job),
		cmocka_unit_test(validate_defer_unmapped_before_job),
		cmocka_unit_test(validate_defer_bound_readonly_before_job),
	};

	return t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
}

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
#define DRIVER_VRAM (32 * MIB)
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

/* a BO of @c in VRAM only, @size bytes */
static uint32_t vram_hog_size(struct nvl_client *c, uint64_t size)
{
	uint32_t h;

	assert_int_equal(nvl_bo_create(c, size, NVL_BO_DOMAIN_VRAM, 0, 0, &h),
			 0);
	return h;
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

/* a later job of the client (its exec validates the VM): copy VA_X into
 * R's second MiB, and wait for it */
static void run_next_job(struct t_nv_cl *a)
{
	uint32_t n = nvl_kit_pb_copy(a->ppb + PB_NEXT / 4, a->info.ce_class,
				     VA_R + MIB, VA_X, MIB);

	t_nv_cl_run(a, PB_NEXT, n, 20 * T_NV_SEC);
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
	struct nvl_device_opts o = {.vram_size = 256 * MIB};
	struct nvl_device_info info;
	struct nvl_device *dev;
	struct nvl_client *b;
	struct t_nv_cl a;
	uint32_t x, r, big, *px, *pr;

	(void)state;
	assert_int_equal(nvl_device_open("model:tu102", &o, &dev), 0);
	assert_int_equal(nvl_device_query(dev, &info), 0);
	t_nv_cl_up(&a, dev, VA_PB, 0);
	t_nv_cl_sem(&a, 4 * KIB, VA_SEM);
	assert_int_equal(nvl_device_client_create(dev, &b), 0);
	/* R in VRAM, CPU-mapped: it stays where it is */
	r = t_nv_cl_bo(&a, 2 * MIB, NVL_BO_DOMAIN_VRAM, VA_R, (void **)&pr);
	queue_late_job(&a);
	/* X: GTT preferred, VRAM while the host budget is full */
	nvl_mm_set_host_budget(dev->mm, 4 * KIB);
	assert_int_equal(nvl_bo_create(a.c, X_SIZE,
				       NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
				       NVL_BO_DOMAIN_GTT, NVL_BO_CPU_VISIBLE,
				       &x),
			 0);
	nvl_mm_set_host_budget(dev->mm, 0);
	assert_int_equal(where(a.c, x), NVL_BO_DOMAIN_VRAM);
	assert_int_equal(bind1(a.c, a.vm, x, VA_X, X_SIZE), 0);
	assert_int_equal(nvl_bo_map(a.c, x, (void **)&px), 0);
	for (unsigned i = 0; i < X_SIZE / 4; i++)
		px[i] = PATTERN;
	assert_int_equal(nvl_bo_unmap(a.c, x), 0);
	/* the validate move out of VRAM */
	assert_int_equal(nvl_bo_use(a.c, x), 0);
	assert_int_equal(where(a.c, x), NVL_BO_DOMAIN_GTT);
	/* B's new BO over the VRAM X left, cleared once X's copy is done */
	big = vram_hog_size(b, info.vram_usable - DRIVER_VRAM - 4 * MIB);
	(void)nvl_bo_wait(b, big, T_NV_SEC / 5);
	sem_release(&a, SEM_LATE);
	assert_int_equal(t_nv_cl_wait(&a, 20 * T_NV_SEC), 0);
	t_nv_expect_words(a.c, r, 0, MIB / 4, PATTERN,
			  "what the late job read at VA_X");
	run_next_job(&a);
	t_nv_expect_words(a.c, r, MIB / 4, MIB / 4, PATTERN,
			  "what the next job read at VA_X");
	t_nv_expect_words(a.c, x, 0, X_SIZE / 4, PATTERN, "X after its move");
	assert_int_equal(nvl_bo_unmap(a.c, r), 0);
	nvl_client_destroy(b);
	t_nv_cl_down(&a);
	nvl_device_close(dev);
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
	struct nvl_device_opts o = {.vram_size = 256 * MIB};
	uint64_t free_B;
	struct nvl_device_info info;
	struct nvl_mm_move_stats st0, st1;
	struct nvl_device *dev;
	struct nvl_client *b;
	struct t_nv_cl a;
	uint32_t x, y, r, big, ch2, n, *p;

	(void)state;
	assert_int_equal(nvl_device_open("model:tu102", &o, &dev), 0);
	assert_int_equal(nvl_device_query(dev, &info), 0);
	t_nv_cl_up(&a, dev, VA_PB, 0);
	t_nv_cl_sem(&a, 4 * KIB, VA_SEM);
	assert_int_equal(
		nvl_channel_create(a.c, a.vm, NVL_ENGINE_COPY, 0, &ch2), 0);
	assert_int_equal(nvl_device_client_create(dev, &b), 0);
	r = t_nv_cl_bo(&a, 2 * MIB, NVL_BO_DOMAIN_GTT, VA_R, NULL);
	queue_late_job(&a);
	/* X in VRAM with a pattern, evicted by B's pressure, then bound */
	assert_int_equal(nvl_bo_create(a.c, X_SIZE,
				       NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
				       NVL_BO_DOMAIN_VRAM, NVL_BO_CPU_VISIBLE,
				       &x),
			 0);
	assert_int_equal(nvl_bo_map(a.c, x, (void **)&p), 0);
	for (unsigned i = 0; i < X_SIZE / 4; i++)
		p[i] = PATTERN;
	assert_int_equal(nvl_bo_unmap(a.c, x), 0);
	big = vram_hog_size(b, info.vram_usable - DRIVER_VRAM - 4 * MIB);
	assert_int_equal(where(a.c, x), NVL_BO_DOMAIN_GTT);
	assert_int_equal(nvl_bo_close(b, big), 0);
	assert_int_equal(bind1(a.c, a.vm, x, VA_X, X_SIZE), 0);
	/* B's Y in VRAM with B's bytes, older than X's move back */
	assert_int_equal(
		nvl_bo_create(b, X_SIZE, NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
			      NVL_BO_DOMAIN_VRAM, NVL_BO_CPU_VISIBLE, &y),
		0);
	assert_int_equal(nvl_bo_map(b, y, (void **)&p), 0);
	for (unsigned i = 0; i < X_SIZE / 4; i++)
		p[i] = B_BYTES;
	assert_int_equal(nvl_bo_unmap(b, y), 0);
	/* a job on the second channel keeps X busy */
	n = nvl_kit_pb_acquire(a.ppb + PB_BUSY / 4, VA_SEM + 4 * SEM_BUSY, 1);
	assert_int_equal(t_nv_cl_exec(&a, ch2, PB_BUSY, n), 0);
	/* the validate move back into VRAM: its copy waits */
	assert_int_equal(nvl_bo_use(a.c, x), 0);
	assert_int_equal(where(a.c, x), NVL_BO_DOMAIN_VRAM);
	/* pressure that evicts Y (the oldest) and not X: Y's eviction takes
	 * the host pages X's copy frees */
	nvl_mm_move_stats(dev->mm, &st0);
	nvl_mutex_lock(&dev->mm->lock);
	free_B = dev->mm->vram.avail_B;
	nvl_mutex_unlock(&dev->mm->lock);
	big = vram_hog_size(b, free_B + 4 * MIB);
	nvl_mm_move_stats(dev->mm, &st1);
	assert_int_equal(where(b, y), NVL_BO_DOMAIN_GTT);
	assert_int_equal(where(a.c, x), NVL_BO_DOMAIN_VRAM);
	assert_int_equal(st1.host_handovers, st0.host_handovers + 1);
	sem_release(&a, SEM_BUSY);
	(void)nvl_bo_wait(b, y, T_NV_SEC / 5);
	sem_release(&a, SEM_LATE);
	/* both jobs fenced R */
	assert_int_equal(nvl_bo_wait(a.c, r, 20 * T_NV_SEC), 0);
	t_nv_expect_words(a.c, r, 0, MIB / 4, PATTERN,
			  "what the late job read at VA_X");
	run_next_job(&a);
	t_nv_expect_words(a.c, r, MIB / 4, MIB / 4, PATTERN,
			  "what the next job read at VA_X");
	t_nv_expect_words(a.c, x, 0, X_SIZE / 4, PATTERN, "X after its move");
	t_nv_expect_words(b, y, 0, X_SIZE / 4, B_BYTES, "Y after its eviction");
	nvl_client_destroy(b);
	t_nv_cl_down(&a);
	nvl_device_close(dev);
}

/*
 * (c) KNOWN HOLE (MOVE_AUDIT_KNOWN=1; fails on main too): an asynchronous
 * bind of X waiting for a syncobj, X moved into VRAM meanwhile
 * (nvl_bo_use()), then the bind runs: its commit writes the entries at X's
 * new VRAM while the move's copy is still queued (behind a job of a second
 * VM of the client that keeps X busy, and the late job it waits for), and
 * the late job reads what that VRAM held before: client B's freed bytes.
 * The bind waited for the KERNEL fences it saw when it was submitted, not
 * for a move queued after.
 */
static void bind_after_move_queued(void **state)
{
	struct nvl_device_opts o = {.vram_size = 256 * MIB};
	struct nvl_device_info info;
	struct nvl_device *dev;
	struct nvl_client *b;
	struct t_nv_cl a;
	uint32_t x, y, r, big, ch2, ch3, vm2, w, bs, n, *p;
	uint64_t free_B;

	(void)state;
	assert_int_equal(nvl_device_open("model:tu102", &o, &dev), 0);
	assert_int_equal(nvl_device_query(dev, &info), 0);
	t_nv_cl_up(&a, dev, VA_PB, 0);
	t_nv_cl_sem(&a, 4 * KIB, VA_SEM);
	assert_int_equal(
		nvl_channel_create(a.c, a.vm, NVL_ENGINE_COPY, 0, &ch2), 0);
	assert_int_equal(nvl_syncobj_create(a.c, 0, &w), 0);
	assert_int_equal(nvl_syncobj_create(a.c, 0, &bs), 0);
	assert_int_equal(nvl_device_client_create(dev, &b), 0);
	r = t_nv_cl_bo(&a, 2 * MIB, NVL_BO_DOMAIN_GTT, VA_R, NULL);
	queue_late_job(&a);
	/* X evicted to GTT before it is bound */
	assert_int_equal(nvl_bo_create(a.c, X_SIZE,
				       NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
				       NVL_BO_DOMAIN_VRAM, NVL_BO_CPU_VISIBLE,
				       &x),
			 0);
	assert_int_equal(nvl_bo_map(a.c, x, (void **)&p), 0);
	for (unsigned i = 0; i < X_SIZE / 4; i++)
		p[i] = PATTERN;
	assert_int_equal(nvl_bo_unmap(a.c, x), 0);
	big = vram_hog_size(b, info.vram_usable - DRIVER_VRAM - 4 * MIB);
	assert_int_equal(where(a.c, x), NVL_BO_DOMAIN_GTT);
	assert_int_equal(nvl_bo_close(b, big), 0);
	assert_int_equal(nvl_bo_wait(a.c, x, 20 * T_NV_SEC), 0);
	/* B's bytes in the VRAM X will get: Y written, the rest taken, Y
	 * freed */
	assert_int_equal(nvl_bo_create(b, X_SIZE, NVL_BO_DOMAIN_VRAM, 0,
				       NVL_BO_CPU_VISIBLE, &y),
			 0);
	assert_int_equal(nvl_bo_map(b, y, (void **)&p), 0);
	for (unsigned i = 0; i < X_SIZE / 4; i++)
		p[i] = B_BYTES;
	assert_int_equal(nvl_bo_unmap(b, y), 0);
	nvl_mutex_lock(&dev->mm->lock);
	free_B = dev->mm->vram.avail_B;
	nvl_mutex_unlock(&dev->mm->lock);
	big = vram_hog_size(b, free_B - 2 * MIB);
	assert_int_equal(nvl_bo_wait(b, big, 20 * T_NV_SEC), 0);
	assert_int_equal(nvl_bo_close(b, y), 0);
	/* a job on the second channel whose syncobj the bind waits for */
	n = nvl_kit_pb_acquire(a.ppb + PB_BUSY / 4, VA_SEM + 4 * SEM_BUSY, 1);
	{
		struct nvl_exec_push ps = {.va = VA_PB + PB_BUSY, .len = n * 4};
		struct nvl_vm_sync s = {.handle = w};
		struct nvl_vm_sync bw = {.handle = w}, bsig = {.handle = bs};
		struct nvl_vm_bind_op op = {.op = NVL_VM_BIND_OP_MAP,
					    .handle = x,
					    .addr = VA_X,
					    .range = X_SIZE};

		assert_int_equal(nvl_exec(a.c, ch2, &ps, 1, NULL, 0, &s, 1, 0),
				 0);
		assert_int_equal(nvl_vm_bind(a.c, a.vm, 0, &op, 1, &bw, 1,
					     &bsig, 1, NVL_VM_BIND_ASYNC),
				 0);
	}
	/* a second VM of A where a job keeps X busy */
	vm2 = t_nv_vm(a.c);
	assert_int_equal(bind1(a.c, vm2, a.pb, VA_PB, T_NV_PB_SIZE), 0);
	assert_int_equal(bind1(a.c, vm2, a.sem, VA_SEM, 4 * KIB), 0);
	assert_int_equal(bind1(a.c, vm2, x, VA_X, X_SIZE), 0);
	assert_int_equal(nvl_channel_create(a.c, vm2, NVL_ENGINE_COPY, 0, &ch3),
			 0);
	a.psem[SEM_X] = 0;
	n = nvl_kit_pb_acquire(a.ppb + PB_X / 4, VA_SEM + 4 * SEM_X, 1);
	{
		struct nvl_exec_push ps = {.va = VA_PB + PB_X, .len = n * 4};

		assert_int_equal(
			nvl_exec(a.c, ch3, &ps, 1, NULL, 0, NULL, 0, 0), 0);
	}
	/* X moves into VRAM (B's freed bytes until its copy runs) */
	assert_int_equal(nvl_bo_use(a.c, x), 0);
	assert_int_equal(where(a.c, x), NVL_BO_DOMAIN_VRAM);
	/* the bind runs */
	sem_release(&a, SEM_BUSY);
	assert_int_equal(nvl_syncobj_wait(a.c, &bs, NULL, 1,
					  t_nv_deadline(20 * T_NV_SEC), 0,
					  NULL),
			 0);
	sem_release(&a, SEM_LATE);
	(void)nvl_bo_wait(a.c, r, T_NV_SEC / 5);
	sem_release(&a, SEM_X);
	assert_int_equal(nvl_bo_wait(a.c, r, 20 * T_NV_SEC), 0);
	t_nv_expect_words(a.c, r, 0, MIB / 4, PATTERN,
			  "what the late job read at VA_X");
	t_nv_expect_words(a.c, x, 0, X_SIZE / 4, PATTERN, "X after its move");
	nvl_client_destroy(b);
	t_nv_cl_down(&a);
	nvl_device_close(dev);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(job_before_bind_after_move_out),
		cmocka_unit_test(job_before_bind_after_move_in),
		/* the known hole: last, only with MOVE_AUDIT_KNOWN=1 */
		cmocka_unit_test(bind_after_move_queued),
	};
	size_t n = NVL_ARRAY_SIZE(tests) - !getenv("MOVE_AUDIT_KNOWN");

	return t_main(__FILE__, tests, n, argc, argv);
}

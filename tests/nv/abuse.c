// SPDX-License-Identifier: MIT
/*
 * TEST: the public API against a careless or hostile client (issue 15),
 * through the public headers only: each test is a bug such a client found,
 * failing before its fix.
 *
 * - a VM window past the chip's VA bits (49 on v2 page tables, 57 on
 *   Hopper's v3) is -EINVAL at nvl_vm_create(), as Nouveau refuses a VA
 *   range past its limit; it was accepted, and every channel and bind in
 *   it failed later with a page-table message;
 * - a client destroyed with BOs still CPU-mapped (never unmapped, or
 *   their handle closed first, so nvl_bo_unmap() could no longer name
 *   them) gives their memory back: the mappings held the BOs forever
 *   (VRAM lost until the device closed, and leaked then);
 * - a sensor subscription handed to another device's unsubscribe is left
 *   alone: it was unlinked from its own device's list without that
 *   device's locks and freed, so its own device's unsubscribe then freed
 *   it again;
 * - a client is gone when nvl_client_destroy() returns, even while a tool
 *   reads its fdinfo by id (nvl_device_client_fdinfo()): the reader held
 *   a reference and dropped the last one after destroy returned, so the
 *   client's BOs and channels outlived it (on the tool's thread, possibly
 *   after the device was closed);
 * - no VM_BIND changes the page tables of a suspended device, which are
 *   saved in system memory and written back on resume: binds then fail
 *   -EAGAIN and a suspend waits for queued async binds (-EBUSY at its
 *   bound). An UNMAP while suspended returned 0 and was undone by the
 *   resume: the copy engine wrote through the "unmapped" VA into another
 *   client's BOs (4 MiB of them); a MAP was lost (MMU fault);
 * - two imports of one token into one client at once give one handle;
 * - a channel destroyed while the device is suspended leaves its VM's
 *   kernel range at the resume: its slot's unmap was undone by the resume
 *   (and RM could not free it), so the slot, reused by another client's
 *   channel, was still mapped in the first client's VM and its copy
 *   engine read that channel's semaphore, USERD and ring.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include <nouvelle/nouvelle.h>

#include "kit.h"
#include "t.h"
#include "t_nv.h"

#define KIB T_NV_KIB
#define MIB T_NV_MIB

/* 1. a VM window the chip's page tables cannot cover */
static void vm_past_va_bits(void **state)
{
	static const char *const chips[] = {"model:tiny", "model:gh100"};

	(void)state;
	for (unsigned c = 0; c < NVL_ARRAY_SIZE(chips); c++) {
		struct nvl_device_info in;
		struct nvl_device *dev;
		struct nvl_client *cl;
		struct nvl_vm_create_args a = {.start = 1 * MIB};
		uint64_t top;
		uint32_t vm, ch;

		assert_int_equal(nvl_device_open(chips[c], NULL, &dev), 0);
		assert_int_equal(nvl_device_query(dev, &in), 0);
		assert_int_equal(in.va_bits, c ? 57 : 49);
		top = 1ull << in.va_bits;
		assert_int_equal(nvl_device_client_create(dev, &cl), 0);
		/* one page past the top, with or without a kernel range */
		a.end = top + 4 * KIB;
		assert_int_equal(nvl_vm_create(cl, &a, &vm), -EINVAL);
		assert_non_null(strstr(nvl_last_error(), "VA bits"));
		a.end = 1ull << 62;
		a.kernel_start = top - 16 * MIB;
		a.kernel_range = NVL_EXEC_KERNEL_RANGE;
		assert_int_equal(nvl_vm_create(cl, &a, &vm), -EINVAL);
		/* the whole VA space is fine, but the driver's GPFIFO entries
		 * and semaphores address 40 bits on every Host class, Hopper's
		 * too (exec_audit.c): its range must end by 2^40 */
		a.end = top;
		assert_int_equal(nvl_vm_create(cl, &a, &vm), 0);
		assert_int_equal(
			nvl_channel_create(cl, vm, NVL_ENGINE_COPY, 0, &ch),
			-EINVAL);
		a.kernel_start = (1ull << 40) - 16 * MIB;
		assert_int_equal(nvl_vm_create(cl, &a, &vm), 0);
		assert_int_equal(
			nvl_channel_create(cl, vm, NVL_ENGINE_COPY, 0, &ch), 0);
		nvl_client_destroy(cl);
		nvl_device_close(dev);
	}
}

static uint64_t vram_used(struct nvl_device *dev)
{
	struct nvl_device_memory m;

	assert_int_equal(nvl_device_memory(dev, &m), 0);
	return m.vram_used;
}

/* 2. mappings a client never ended go with the client */
static void mapped_bos_freed_with_client(void **state)
{
	struct nvl_device *dev;
	struct nvl_client *a, *b;
	uint32_t h[3], hb;
	uint64_t token, base;
	void *p;

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", NULL, &dev), 0);
	base = vram_used(dev);
	assert_int_equal(nvl_device_client_create(dev, &a), 0);
	assert_int_equal(nvl_device_client_create(dev, &b), 0);
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(nvl_bo_create(a, 4 * MIB, NVL_BO_DOMAIN_VRAM,
					       0, NVL_BO_CPU_VISIBLE, &h[i]),
				 0);
	/* h[0] mapped twice; h[1] mapped, then its handle closed */
	assert_int_equal(nvl_bo_map(a, h[0], &p), 0);
	assert_int_equal(nvl_bo_map(a, h[0], &p), 0);
	assert_int_equal(nvl_bo_map(a, h[1], &p), 0);
	memset(p, 0x5a, 4 * MIB);
	assert_int_equal(nvl_bo_close(a, h[1]), 0);
	/* the mapping still holds the BO: its memory stays */
	assert_int_equal(((uint8_t *)p)[4 * MIB - 1], 0x5a);
	/* h[2] shared with B, which maps it too */
	assert_int_equal(nvl_bo_export(a, h[2], &token), 0);
	assert_int_equal(nvl_bo_import(b, token, &hb), 0);
	assert_int_equal(nvl_bo_map(a, h[2], &p), 0);
	assert_int_equal(nvl_bo_map(b, hb, &p), 0);
	assert_int_equal(vram_used(dev), base + 12 * MIB);
	nvl_client_destroy(a);
	/* A's BOs go but the one B holds and maps */
	assert_int_equal(vram_used(dev), base + 4 * MIB);
	memset(p, 0x11, 4 * MIB);
	assert_int_equal(nvl_bo_unmap(b, hb), 0);
	/* B's mapping was B's own: A's going did not end it */
	assert_int_equal(nvl_bo_unmap(b, hb), -EINVAL);
	assert_int_equal(nvl_bo_map(b, hb, &p), 0);
	nvl_client_destroy(b);
	assert_int_equal(vram_used(dev), base);
	nvl_device_close(dev);
}

static void on_sensor(void *arg, enum nvl_sensor_event event)
{
	(void)arg;
	(void)event;
}

/* 3. a subscription is its device's: another device cannot end it */
static void foreign_device_subscription(void **state)
{
	struct nvl_device_sensor_sub *s1, *s2;
	struct nvl_device *d1, *d2;

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", NULL, &d1), 0);
	assert_int_equal(nvl_device_open("model:tiny", NULL, &d2), 0);
	assert_int_equal(nvl_device_sensors_subscribe(d1,
						      NVL_SENSOR_EVENT_THERMAL,
						      on_sensor, NULL, &s1),
			 0);
	assert_int_equal(nvl_device_sensors_subscribe(d2,
						      NVL_SENSOR_EVENT_THERMAL,
						      on_sensor, NULL, &s2),
			 0);
	nvl_device_sensors_unsubscribe(d2, s1);
	assert_non_null(strstr(nvl_last_error(), "another device"));
	nvl_device_sensors_unsubscribe(d1, s2);
	/* each still ends on its own device, once */
	nvl_device_sensors_unsubscribe(d1, s1);
	nvl_device_sensors_unsubscribe(d2, s2);
	nvl_device_close(d1);
	nvl_device_close(d2);
}

struct poller {
	struct nvl_device *dev;
	atomic_bool stop;
	atomic_ulong reads;
};

/* a tool reading every client's fdinfo, as gputop scans /proc */
static void *poll_fdinfo(void *arg)
{
	struct poller *p = arg;
	char buf[2048];
	uint64_t ids[8];

	while (!atomic_load(&p->stop)) {
		int n = nvl_device_clients(p->dev, ids, 8);

		assert_true(n >= 0);
		for (int i = 0; i < n && i < 8; i++) {
			int ret = nvl_device_client_fdinfo(p->dev, ids[i], buf,
							   sizeof(buf));

			assert_true(ret > 0 || ret == -ENOENT);
			if (ret > 0)
				atomic_fetch_add(&p->reads, 1);
		}
	}
	return NULL;
}

/* 4. nvl_client_destroy() ends the client, fdinfo readers or not */
static void client_gone_under_fdinfo(void **state)
{
	struct poller p = {0};
	pthread_t t;
	uint64_t base;
	unsigned i, late = 0;

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", NULL, &p.dev), 0);
	base = vram_used(p.dev);
	assert_int_equal(pthread_create(&t, NULL, poll_fdinfo, &p), 0);
	for (i = 0; i < 400; i++) {
		struct nvl_client *c;
		uint32_t h;

		assert_int_equal(nvl_device_client_create(p.dev, &c), 0);
		/* small: cleared inline, no clear job left to wait for */
		assert_int_equal(nvl_bo_create(c, 64 * KIB, NVL_BO_DOMAIN_VRAM,
					       0, 0, &h),
				 0);
		/* let the tool find it */
		for (int k = 0; k < 20000 && !atomic_load(&p.reads); k++)
			sched_yield();
		nvl_client_destroy(c);
		late += vram_used(p.dev) != base;
	}
	atomic_store(&p.stop, true);
	assert_int_equal(pthread_join(t, NULL), 0);
	if (late)
		fail_msg("%u of %u clients outlived nvl_client_destroy() "
			 "(%lu fdinfo reads)",
			 late, i, atomic_load(&p.reads));
	nvl_device_close(p.dev);
}

#define VA_PB (32 * MIB)
#define VA_X (128 * MIB)

static int bind1(struct nvl_client *c, uint32_t vm, uint32_t op, uint32_t h,
		 uint64_t va, uint64_t size, const struct nvl_vm_sync *wait,
		 uint32_t flags)
{
	struct nvl_vm_bind_op o = {
		.op = op, .handle = h, .addr = va, .range = size};

	return nvl_vm_bind(c, vm, 0, &o, 1, wait, wait ? 1 : 0, NULL, 0, flags);
}

/* 5. a suspended device's page tables do not change */
static void no_binds_while_suspended(void **state)
{
	struct nvl_device_opts o = {.vram_size = 256 * MIB,
				    .job_timeout_ms = 1000};
	struct nvl_vm_sync w = {0};
	struct nvl_device *dev, *dev2;
	struct nvl_client *b;
	struct t_nv_cl k, k2;
	uint32_t vm2, ch3;
	uint32_t h, hb[64], *cb[64], *pb, n;
	unsigned nb, hits = 0;

	(void)state;
	assert_int_equal(nvl_device_open("model:ga102", &o, &dev), 0);
	t_nv_cl_up(&k, dev, VA_PB, T_NV_CL_PB_MOVABLE);
	assert_int_equal(nvl_bo_create(k.c, 4 * MIB,
				       NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
				       NVL_BO_DOMAIN_VRAM, NVL_BO_CPU_VISIBLE,
				       &h),
			 0);
	assert_int_equal(
		bind1(k.c, k.vm, NVL_VM_BIND_OP_MAP, h, VA_X, 4 * MIB, NULL, 0),
		0);
	/*
	 * Async binds waiting for another device's jobs, which wait on its
	 * GPU for semaphores: this device is idle but for the binds. The
	 * second job (semaphore 1) runs after the first (semaphore 0).
	 */
	{
		struct nvl_vm_bind_op nul = {.op = NVL_VM_BIND_OP_MAP,
					     .flags = NVL_VM_BIND_NULL,
					     .addr = VA_X + 16 * MIB,
					     .range = 4 * MIB};
		struct nvl_vm_sync done = {0}, w2 = {0};
		struct nvl_exec_push p2 = {.va = VA_PB + 1 * KIB};
		struct nvl_vm_sync s2 = {0};
		int fd;

		assert_int_equal(nvl_device_open("model:tiny", NULL, &dev2), 0);
		t_nv_cl_up(&k2, dev2, VA_PB, 0);
		t_nv_cl_sem(&k2, 4 * KIB, VA_PB + T_NV_PB_SIZE);
		k2.psem[0] = k2.psem[1] = 0;
		n = nvl_kit_pb_acquire(k2.ppb, VA_PB + T_NV_PB_SIZE, 1);
		assert_int_equal(t_nv_cl_exec(&k2, k2.chan, 0, n), 0);
		p2.len = 4 * nvl_kit_pb_acquire(k2.ppb + KIB / 4,
						VA_PB + T_NV_PB_SIZE + 4, 1);
		assert_int_equal(nvl_syncobj_create(k2.c, 0, &s2.handle), 0);
		assert_int_equal(
			nvl_exec(k2.c, k2.chan, &p2, 1, NULL, 0, &s2, 1, 0), 0);
		assert_int_equal(
			nvl_syncobj_export_sync_file(k2.c, k2.sync, 0, &fd), 0);
		assert_int_equal(nvl_syncobj_create(k.c, 0, &w.handle), 0);
		assert_int_equal(
			nvl_syncobj_import_sync_file(k.c, w.handle, 0, fd), 0);
		close(fd);
		assert_int_equal(
			nvl_syncobj_export_sync_file(k2.c, s2.handle, 0, &fd),
			0);
		assert_int_equal(nvl_syncobj_create(k.c, 0, &w2.handle), 0);
		assert_int_equal(
			nvl_syncobj_import_sync_file(k.c, w2.handle, 0, fd), 0);
		close(fd);
		assert_int_equal(nvl_syncobj_create(k.c, 0, &done.handle), 0);
		assert_int_equal(nvl_vm_bind(k.c, k.vm, 0, &nul, 1, &w, 1,
					     &done, 1, NVL_VM_BIND_ASYNC),
				 0);
		assert_int_equal(nvl_device_suspend(dev), -EBUSY);
		assert_non_null(strstr(nvl_last_error(), "binds"));
		/* the same in a VM only a channel holds (handle destroyed) */
		vm2 = t_nv_vm(k.c);
		assert_int_equal(
			nvl_channel_create(k.c, vm2, NVL_ENGINE_COPY, 0, &ch3),
			0);
		assert_int_equal(nvl_vm_bind(k.c, vm2, 0, &nul, 1, &w2, 1, NULL,
					     0, NVL_VM_BIND_ASYNC),
				 0);
		assert_int_equal(nvl_vm_destroy(k.c, vm2), 0);
		/* the first bind done: only vm2's is pending */
		atomic_store_explicit((_Atomic uint32_t *)&k2.psem[0], 1,
				      memory_order_release);
		assert_int_equal(nvl_syncobj_wait(k.c, &done.handle, NULL, 1,
						  t_nv_deadline(5 * T_NV_SEC),
						  0, NULL),
				 0);
		assert_int_equal(nvl_device_suspend(dev), -EBUSY);
		assert_non_null(strstr(nvl_last_error(), "binds"));
		atomic_store_explicit((_Atomic uint32_t *)&k2.psem[1], 1,
				      memory_order_release);
		assert_int_equal(nvl_syncobj_wait(k2.c, &s2.handle, NULL, 1,
						  t_nv_deadline(5 * T_NV_SEC),
						  0, NULL),
				 0);
		t_nv_cl_close(&k2);
		nvl_device_close(dev2);
		assert_int_equal(nvl_channel_destroy(k.c, ch3), 0);
	}
	assert_int_equal(nvl_device_suspend(dev), 0);
	/* suspended: no bind of any kind */
	assert_int_equal(bind1(k.c, k.vm, NVL_VM_BIND_OP_UNMAP, 0, VA_X,
			       4 * MIB, NULL, 0),
			 -EAGAIN);
	assert_int_equal(bind1(k.c, k.vm, NVL_VM_BIND_OP_MAP, h, VA_X + 8 * MIB,
			       4 * MIB, NULL, 0),
			 -EAGAIN);
	assert_int_equal(bind1(k.c, k.vm, NVL_VM_BIND_OP_UNMAP, 0, VA_X,
			       4 * MIB, NULL, NVL_VM_BIND_ASYNC),
			 -EAGAIN);
	assert_int_equal(nvl_device_resume(dev), 0);
	/* X is still mapped: A's BO takes the fill */
	assert_int_equal(nvl_bo_map(k.c, k.pb, (void **)&pb), 0);
	n = nvl_kit_pb_memset(pb, k.info.ce_class, VA_X, 0xdeadbeef, 4 * MIB);
	assert_int_equal(nvl_bo_unmap(k.c, k.pb), 0);
	t_nv_cl_run(&k, 0, n, 5 * T_NV_SEC);
	t_nv_expect_words(k.c, h, 0, MIB, 0xdeadbeef, "A's BO");
	/* unmapped now, and the BO freed: B takes all the visible VRAM */
	assert_int_equal(bind1(k.c, k.vm, NVL_VM_BIND_OP_UNMAP, 0, VA_X,
			       4 * MIB, NULL, 0),
			 0);
	assert_int_equal(nvl_bo_close(k.c, h), 0);
	assert_int_equal(nvl_device_client_create(dev, &b), 0);
	for (nb = 0; nb < NVL_ARRAY_SIZE(hb); nb++) {
		if (nvl_bo_create(b, 1 * MIB, NVL_BO_DOMAIN_VRAM, 0,
				  NVL_BO_CPU_VISIBLE, &hb[nb]))
			break;
		assert_int_equal(nvl_bo_map(b, hb[nb], (void **)&cb[nb]), 0);
		memset(cb[nb], 0x11, 1 * MIB);
	}
	assert_true(nb > 8);
	/* a fill through the unmapped VA faults; B's memory is untouched */
	assert_int_equal(t_nv_cl_exec(&k, k.chan, 0, n), 0);
	(void)t_nv_cl_wait(&k, 5 * T_NV_SEC);
	{
		struct nvl_channel_info ci;

		assert_int_equal(nvl_channel_query(k.c, k.chan, &ci), 0);
		assert_int_equal(ci.alive, 0);
		assert_int_equal(ci.error, -EFAULT);
	}
	for (unsigned i = 0; i < nb; i++) {
		for (unsigned j = 0; j < MIB / 4; j++)
			hits += cb[i][j] != 0x11111111;
		assert_int_equal(nvl_bo_unmap(b, hb[i]), 0);
	}
	assert_int_equal(hits, 0);
	nvl_client_destroy(b);
	t_nv_cl_down(&k);
	nvl_device_close(dev);
}

#define IMPORTS 1000

struct importer {
	struct nvl_client *c;
	const uint64_t *tokens;
	uint32_t h[IMPORTS];
	atomic_int *turn;
	int me;
};

/* import token i once its turn comes: both threads race on each */
static void *import_all(void *arg)
{
	struct importer *im = arg;

	for (int i = 0; i < IMPORTS; i++) {
		atomic_fetch_add(im->turn, 1);
		while (atomic_load(im->turn) < 2 * (i + 1))
			;
		assert_int_equal(nvl_bo_import(im->c, im->tokens[i], &im->h[i]),
				 0);
	}
	return NULL;
}

/* 6. one handle per BO per client, even for imports at the same moment */
static void import_race_one_handle(void **state)
{
	static uint64_t tokens[IMPORTS];
	struct importer im[2];
	struct nvl_device *dev;
	struct nvl_client *a, *b;
	atomic_int turn = 0;
	pthread_t t[2];
	unsigned dup = 0;

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", NULL, &dev), 0);
	assert_int_equal(nvl_device_client_create(dev, &a), 0);
	assert_int_equal(nvl_device_client_create(dev, &b), 0);
	for (int i = 0; i < IMPORTS; i++) {
		uint32_t h;

		assert_int_equal(
			nvl_bo_create(a, 4 * KIB, NVL_BO_DOMAIN_GTT, 0, 0, &h),
			0);
		assert_int_equal(nvl_bo_export(a, h, &tokens[i]), 0);
	}
	for (int k = 0; k < 2; k++) {
		im[k] = (struct importer){
			.c = b, .tokens = tokens, .turn = &turn, .me = k};
		assert_int_equal(
			pthread_create(&t[k], NULL, import_all, &im[k]), 0);
	}
	for (int k = 0; k < 2; k++)
		assert_int_equal(pthread_join(t[k], NULL), 0);
	for (int i = 0; i < IMPORTS; i++)
		dup += im[0].h[i] != im[1].h[i];
	if (dup)
		fail_msg("%u of %u BOs imported twice at once got two handles",
			 dup, IMPORTS);
	/* one close each: B holds nothing any more */
	for (int i = 0; i < IMPORTS; i++)
		assert_int_equal(nvl_bo_close(b, im[0].h[i]), 0);
	{
		char buf[1024];

		assert_true(nvl_client_fdinfo(b, buf, sizeof(buf)) > 0);
		assert_non_null(strstr(buf, "drm-total-gtt:\t0 KiB"));
	}
	nvl_client_destroy(b);
	nvl_client_destroy(a);
	nvl_device_close(dev);
}

#define B_JOBS 37

/* 7. a channel destroyed while suspended leaves its VM with the resume */
static void destroyed_while_suspended(void **state)
{
	struct nvl_device_opts o = {.vram_size = 256 * MIB};
	struct nvl_device *dev;
	struct t_nv_cl a, b;
	uint32_t ch2, dst, n, *pa, *pd;
	unsigned seen = 0;

	(void)state;
	assert_int_equal(nvl_device_open("model:ga102", &o, &dev), 0);
	t_nv_cl_up(&a, dev, VA_PB, T_NV_CL_PB_MOVABLE);
	assert_int_equal(
		nvl_channel_create(a.c, a.vm, NVL_ENGINE_COPY, 0, &ch2), 0);
	dst = t_nv_cl_bo(&a, 64 * KIB, NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
			 VA_X, NULL);
	assert_int_equal(nvl_device_suspend(dev), 0);
	assert_int_equal(nvl_channel_destroy(a.c, ch2), 0);
	assert_int_equal(nvl_device_resume(dev), 0);
	/* B's channel (on the freed slot) runs B_JOBS jobs: its fence
	 * semaphore (slot + 0x800, docs/driver.md) reads B_JOBS */
	t_nv_cl_up(&b, dev, VA_PB, 0);
	n = nvl_kit_pb_release(b.ppb, VA_PB + 8 * KIB, 1);
	for (int i = 0; i < B_JOBS; i++)
		t_nv_cl_run(&b, 0, n, 5 * T_NV_SEC);
	/* A copies each slot of its kernel range: none may be B's */
	for (unsigned s = 0; s < 8; s++) {
		struct nvl_channel_info ci;

		assert_int_equal(nvl_bo_map(a.c, a.pb, (void **)&pa), 0);
		n = nvl_kit_pb_copy(pa, a.info.ce_class, VA_X,
				    T_NV_KSTART + s * 64 * KIB, 64 * KIB);
		assert_int_equal(nvl_bo_unmap(a.c, a.pb), 0);
		assert_int_equal(t_nv_cl_exec(&a, a.chan, 0, n), 0);
		(void)t_nv_cl_wait(&a, 5 * T_NV_SEC);
		assert_int_equal(nvl_channel_query(a.c, a.chan, &ci), 0);
		if (!ci.alive) {
			/* unmapped: the fault killed A's channel; a new one */
			assert_int_equal(ci.error, -EFAULT);
			assert_int_equal(nvl_channel_destroy(a.c, a.chan), 0);
			assert_int_equal(nvl_channel_create(a.c, a.vm,
							    NVL_ENGINE_COPY, 0,
							    &a.chan),
					 0);
			continue;
		}
		assert_int_equal(nvl_bo_map(a.c, dst, (void **)&pd), 0);
		seen += pd[0x800 / 4] == B_JOBS;
		assert_int_equal(nvl_bo_unmap(a.c, dst), 0);
	}
	if (seen)
		fail_msg("client A's VM still maps the slot of B's channel");
	t_nv_cl_down(&b);
	t_nv_cl_down(&a);
	nvl_device_close(dev);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(vm_past_va_bits),
		cmocka_unit_test(mapped_bos_freed_with_client),
		cmocka_unit_test(foreign_device_subscription),
		cmocka_unit_test(client_gone_under_fdinfo),
		cmocka_unit_test(no_binds_while_suspended),
		cmocka_unit_test(import_race_one_handle),
		cmocka_unit_test(destroyed_while_suspended),
	};

	return t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
}

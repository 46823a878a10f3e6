// SPDX-License-Identifier: MIT
/*
 * TEST: the memory manager under pressure on a device, through the public
 * headers only (session 15's mm audit): each test is a bug such a client
 * found, failing before its fix.
 *
 * - two threads of one client mapping and unmapping one BO: a map that
 *   found the client's mapping record, then waited for the BO's lock,
 *   counted itself in a record the other thread's last unmap had freed
 *   (use after free, ASan, about one run in two with 2000 rounds); the
 *   record now stays while a map of it is pending;
 * - drm-purgeable counted a DONTNEED BO that is CPU-mapped (or pinned),
 *   which the shrinker can never drop (drm_gem_shmem's is_purgeable()
 *   excludes vmapped and pinned objects);
 * - an exec bringing back a purged BO (a clear job, whose fence took the
 *   one slot the exec had reserved on the BO) dropped its own fence from
 *   the BO ("add_fence without a reserved slot"): the next eviction
 *   copied the BO out before the job wrote it, and the write went to VRAM
 *   another client's BO had got;
 * - a bind of a BO while another thread moves it in and out of VRAM: the
 *   bind's commit read the BO's placement (domain, VRAM block list, host
 *   pages) with only the VM's lock while the eviction rewrote it (a data
 *   race, TSan; the block walk could follow blocks already given back to
 *   the allocator). Also run under TSan (concurrency suite).
 *
 * - a NULL client or output pointer given to the BO calls is -EINVAL, as
 *   for every other public call; they dereferenced it (a segfault).
 *
 * And what nvl_bo_madvise() now documents (this passed before): a purged
 * BO still bound in a VM reads zero through its mapping, never the memory
 * it left, and WILLNEED reports the content gone.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <nouvelle/nouvelle.h>

#include "kit.h"
#include "t.h"
#include "t_nv.h"

#define KIB T_NV_KIB
#define MIB T_NV_MIB
#define VA_PB (32 * MIB)
#define VA_SEM (40 * MIB)
#define VA_BO (64 * MIB)

static int bind1(struct nvl_client *c, uint32_t vm, uint32_t op, uint32_t h,
		 uint64_t va, uint64_t size)
{
	struct nvl_vm_bind_op o = {
		.op = op, .handle = h, .addr = va, .range = size};

	return nvl_vm_bind(c, vm, 0, &o, 1, NULL, 0, NULL, 0, 0);
}

/* 1. two threads of one client map and unmap one BO */
struct mapper {
	struct nvl_client *c;
	uint32_t h;
	unsigned bad;
};

static void *map_loop(void *arg)
{
	struct mapper *m = arg;

	for (unsigned i = 0; i < 20000; i++) {
		uint32_t *p;

		if (nvl_bo_map(m->c, m->h, (void **)&p)) {
			m->bad++;
			continue;
		}
		if (p[0] != 0x5a5a5a5a)
			m->bad++;
		if (nvl_bo_unmap(m->c, m->h))
			m->bad++;
	}
	return NULL;
}

static void concurrent_map_unmap(void **state)
{
	struct mapper m[2];
	struct nvl_device *dev;
	struct nvl_client *c;
	struct nvl_bo_info bi;
	pthread_t t[2];
	uint32_t h;
	void *p;

	(void)state;
	dev = t_nv_dev_open(256 * MIB, NULL);
	assert_int_equal(nvl_device_client_create(dev, &c), 0);
	assert_int_equal(
		nvl_bo_create(c, 64 * KIB, NVL_BO_DOMAIN_GTT, 0, 0, &h), 0);
	assert_int_equal(nvl_bo_map(c, h, &p), 0);
	memset(p, 0x5a, 64 * KIB);
	assert_int_equal(nvl_bo_unmap(c, h), 0);
	for (int i = 0; i < 2; i++) {
		m[i] = (struct mapper){.c = c, .h = h};
		assert_int_equal(pthread_create(&t[i], NULL, map_loop, &m[i]),
				 0);
	}
	for (int i = 0; i < 2; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(m[i].bad, 0);
	}
	/* every mapping ended: not pinned, one more unmap is refused */
	assert_int_equal(nvl_bo_query(c, h, &bi), 0);
	assert_false(bi.pinned);
	assert_int_equal(nvl_bo_unmap(c, h), -EINVAL);
	nvl_client_destroy(c);
	nvl_device_close(dev);
}

static uint32_t where(struct nvl_client *c, uint32_t h)
{
	struct nvl_bo_info bi;

	assert_int_equal(nvl_bo_query(c, h, &bi), 0);
	return bi.current;
}

/* the value of fdinfo key @key of @c, in KiB */
static unsigned long long fdinfo_kib(struct nvl_client *c, const char *key)
{
	char buf[4096], *at;
	unsigned long long v;

	assert_true(nvl_client_fdinfo(c, buf, sizeof(buf)) > 0);
	at = strstr(buf, key);
	assert_non_null(at);
	assert_int_equal(sscanf(at + strlen(key), ":\t%llu KiB", &v), 1);
	return v;
}

/*
 * 2. drm-purgeable counts only what the shrinker could purge: a DONTNEED
 * BO that is CPU-mapped cannot be purged (as drm_gem_shmem's
 * is_purgeable() excludes vmapped and pinned objects).
 */
static void mapped_dontneed_not_purgeable(void **state)
{
	struct nvl_device *dev;
	struct nvl_client *c;
	bool retained;
	uint32_t h;
	void *p;

	(void)state;
	dev = t_nv_dev_open(256 * MIB, NULL);
	assert_int_equal(nvl_device_client_create(dev, &c), 0);
	assert_int_equal(nvl_bo_create(c, 1 * MIB, NVL_BO_DOMAIN_GTT, 0, 0, &h),
			 0);
	assert_int_equal(nvl_bo_map(c, h, &p), 0);
	assert_int_equal(nvl_bo_madvise(c, h, NVL_BO_MADV_DONTNEED, &retained),
			 0);
	assert_true(retained);
	assert_int_equal(fdinfo_kib(c, "drm-resident-gtt"), 1024);
	assert_int_equal(fdinfo_kib(c, "drm-purgeable-gtt"), 0);
	/* unmapped, it is */
	assert_int_equal(nvl_bo_unmap(c, h), 0);
	assert_int_equal(fdinfo_kib(c, "drm-purgeable-gtt"), 1024);
	nvl_client_destroy(c);
	nvl_device_close(dev);
}

/*
 * 3. a DONTNEED BO bound in a VM and purged by another client's pressure:
 * the GPU reads zero through its mapping afterwards, never the memory it
 * left (now the other client's), and madvise reports the content gone.
 */
static void purged_bound_bo_reads_zero(void **state)
{
	struct nvl_device_info info;
	struct nvl_device *dev;
	struct nvl_client *b;
	struct t_nv_cl a;
	uint32_t x, y, n, *p;
	bool retained;

	(void)state;
	dev = t_nv_dev_open(256 * MIB, &info);
	t_nv_cl_up(&a, dev, VA_PB, 0);
	assert_int_equal(nvl_device_client_create(dev, &b), 0);
	x = t_nv_cl_bo(&a, 4 * MIB, NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
		       VA_BO, (void **)&p);
	for (unsigned i = 0; i < MIB; i++)
		p[i] = 0x11111111;
	assert_int_equal(nvl_bo_unmap(a.c, x), 0);
	y = t_nv_cl_bo(&a, 4 * MIB, NVL_BO_DOMAIN_GTT, VA_BO + 8 * MIB, NULL);
	assert_int_equal(
		nvl_bo_madvise(a.c, x, NVL_BO_MADV_DONTNEED, &retained), 0);
	assert_true(retained);
	assert_int_equal(where(a.c, x), NVL_BO_DOMAIN_VRAM);
	/* B takes (almost) all of VRAM */
	(void)t_nv_vram_hog_all(b, &info);
	assert_int_not_equal(where(a.c, x), NVL_BO_DOMAIN_VRAM);
	/* A copies X into Y with the copy engine */
	n = nvl_kit_pb_copy(a.ppb, info.ce_class, VA_BO + 8 * MIB, VA_BO,
			    4 * MIB);
	t_nv_cl_run(&a, 0, n, 20 * T_NV_SEC);
	t_nv_expect_words(a.c, y, 0, MIB, 0, "a copy of the purged BO");
	assert_int_equal(
		nvl_bo_madvise(a.c, x, NVL_BO_MADV_WILLNEED, &retained), 0);
	assert_false(retained);
	nvl_client_destroy(b);
	t_nv_cl_close(&a);
	nvl_device_close(dev);
}

/*
 * 4. an exec that brings an evicted BO back (a move: its KERNEL fence)
 * still puts its own fence on the BO: the move took the one slot the exec
 * had reserved, the job's fence was dropped ("add_fence without a
 * reserved slot"), nvl_bo_wait said idle under a pending job, and the next
 * eviction copied the BO out before the job wrote it (the write went to
 * VRAM another BO got).
 */
static void exec_after_move_fences_bo(void **state)
{
	struct nvl_device_info info;
	struct nvl_device *dev;
	struct nvl_client *b;
	struct t_nv_cl a;
	uint32_t x, big, n;
	bool retained;

	(void)state;
	dev = t_nv_dev_open(256 * MIB, &info);
	t_nv_cl_up(&a, dev, VA_PB, 0);
	t_nv_cl_sem(&a, 4 * KIB, VA_SEM);
	assert_int_equal(nvl_device_client_create(dev, &b), 0);
	x = t_nv_cl_bo(&a, 8 * MIB, NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
		       VA_BO, NULL);
	assert_int_equal(nvl_bo_use(a.c, x), 0);
	assert_int_equal(where(a.c, x), NVL_BO_DOMAIN_VRAM);
	assert_int_equal(
		nvl_bo_madvise(a.c, x, NVL_BO_MADV_DONTNEED, &retained), 0);
	big = t_nv_vram_hog_all(b, &info);
	assert_int_equal(where(a.c, x), 0);
	assert_int_equal(
		nvl_bo_madvise(a.c, x, NVL_BO_MADV_WILLNEED, &retained), 0);
	assert_int_equal(nvl_bo_close(b, big), 0);
	/* the exec moves X back, then its job waits for the semaphore */
	a.psem[0] = 0;
	n = nvl_kit_pb_acquire(a.ppb, VA_SEM, 1);
	n += nvl_kit_pb_memset(a.ppb + n, info.ce_class, VA_BO, 0x600dcafe,
			       8 * MIB);
	assert_int_equal(t_nv_cl_exec(&a, a.chan, 0, n), 0);
	assert_int_equal(where(a.c, x), NVL_BO_DOMAIN_VRAM);
	assert_int_equal(nvl_bo_wait(a.c, x, 0), -ETIME);
	/* B's pressure again: the eviction must wait for the job */
	big = t_nv_vram_hog_all(b, &info);
	atomic_store_explicit((_Atomic uint32_t *)&a.psem[0], 1,
			      memory_order_release);
	assert_int_equal(t_nv_cl_wait(&a, 20 * T_NV_SEC), 0);
	t_nv_expect_words(a.c, x, 0, 2 * MIB, 0x600dcafe, "the evicted BO");
	nvl_client_destroy(b);
	t_nv_cl_close(&a);
	nvl_device_close(dev);
}

/*
 * 4b. the same exec with each of its allocations failing in turn (the
 * clear's job, its fence slot on top of the exec's): -ENOMEM with nothing
 * submitted, until one the exec survives or none fails; then the job's
 * fill is in the BO.
 */
static void exec_after_purge_alloc_failures(void **state)
{
	struct nvl_device_info info;
	struct nvl_channel_info ci;
	struct nvl_device *dev;
	struct nvl_client *b;
	struct t_nv_cl a;
	unsigned long tried = 0;
	uint32_t x, big, n;
	bool retained;

	(void)state;
	dev = t_nv_dev_open(256 * MIB, &info);
	t_nv_cl_up(&a, dev, VA_PB, 0);
	assert_int_equal(nvl_device_client_create(dev, &b), 0);
	x = t_nv_cl_bo(&a, 4 * MIB, NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
		       VA_BO, NULL);
	assert_int_equal(nvl_bo_use(a.c, x), 0);
	assert_int_equal(
		nvl_bo_madvise(a.c, x, NVL_BO_MADV_DONTNEED, &retained), 0);
	big = t_nv_vram_hog_all(b, &info);
	assert_int_equal(where(a.c, x), 0);
	assert_int_equal(nvl_bo_close(b, big), 0);
	n = nvl_kit_pb_memset(a.ppb, info.ce_class, VA_BO, 0x5eed5eed, 4 * MIB);
	for (unsigned long nth = 1; nth < 10000; nth++) {
		int ret;

		nvl_fault_fail_nth(nth, NVL_FAULT_THIS_THREAD);
		ret = t_nv_cl_exec(&a, a.chan, 0, n);
		if (!nvl_fault_hits()) {
			nvl_fault_off();
			assert_int_equal(ret, 0);
			break;
		}
		nvl_fault_off();
		tried++;
		/* a failure the exec survives (the validate's retry): it ran */
		if (!ret)
			break;
		assert_int_equal(ret, -ENOMEM);
		assert_int_equal(nvl_channel_query(a.c, a.chan, &ci), 0);
		assert_int_equal(ci.submitted, 0);
	}
	assert_true(tried >= 3);
	assert_int_equal(t_nv_cl_wait(&a, 20 * T_NV_SEC), 0);
	t_nv_expect_words(a.c, x, 0, MIB, 0x5eed5eed, "the BO after the exec");
	nvl_client_destroy(b);
	t_nv_cl_close(&a);
	nvl_device_close(dev);
}

/* 5. binds of a BO while other threads move it in and out of VRAM */
struct mover {
	struct nvl_client *a, *b;
	uint32_t x;
	atomic_bool stop;
	unsigned rounds;
};

static void *move_loop(void *arg)
{
	struct mover *m = arg;

	while (!atomic_load(&m->stop)) {
		uint32_t y;

		if (!nvl_bo_create(m->b, 8 * MIB, NVL_BO_DOMAIN_VRAM, 0, 0, &y))
			(void)nvl_bo_close(m->b, y);
		(void)nvl_bo_use(m->a, m->x);
		m->rounds++;
	}
	return NULL;
}

static void bind_while_moving(void **state)
{
	struct nvl_device *dev;
	struct mover m = {0};
	uint32_t fill[64], vm;
	unsigned nfill = 0;
	pthread_t t;
	void *p;

	(void)state;
	dev = t_nv_dev_open(256 * MIB, NULL);
	assert_int_equal(nvl_device_client_create(dev, &m.a), 0);
	assert_int_equal(nvl_device_client_create(dev, &m.b), 0);
	vm = t_nv_vm(m.a);
	/* B pins all of VRAM but about 8 MiB */
	while (nfill < 64 && !nvl_bo_create(m.b, 8 * MIB, NVL_BO_DOMAIN_VRAM, 0,
					    NVL_BO_CPU_VISIBLE, &fill[nfill])) {
		if (nvl_bo_map(m.b, fill[nfill], &p)) {
			(void)nvl_bo_close(m.b, fill[nfill]);
			break;
		}
		nfill++;
	}
	assert_true(nfill > 2);
	nfill--;
	assert_int_equal(nvl_bo_unmap(m.b, fill[nfill]), 0);
	assert_int_equal(nvl_bo_close(m.b, fill[nfill]), 0);
	assert_int_equal(nvl_bo_create(m.a, 4 * MIB,
				       NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
				       NVL_BO_DOMAIN_VRAM, 0, &m.x),
			 0);
	assert_int_equal(pthread_create(&t, NULL, move_loop, &m), 0);
	for (unsigned i = 0; i < 400; i++) {
		assert_int_equal(
			bind1(m.a, vm, NVL_VM_BIND_OP_MAP, m.x, VA_BO, 4 * MIB),
			0);
		assert_int_equal(
			bind1(m.a, vm, NVL_VM_BIND_OP_UNMAP, 0, VA_BO, 4 * MIB),
			0);
	}
	atomic_store(&m.stop, true);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_true(m.rounds > 0);
	nvl_client_destroy(m.b);
	nvl_client_destroy(m.a);
	nvl_device_close(dev);
}

/*
 * 6. NULL client or output pointer: -EINVAL with a message, as every
 * other public call gives (nvl_vm_create, nvl_syncobj_create, ...); the
 * BO calls dereferenced them (a segfault).
 */
static void null_arguments(void **state)
{
	struct nvl_device *dev;
	struct nvl_client *c;
	struct nvl_bo_info bi;
	uint32_t h, h2;
	uint64_t tok;
	bool retained;
	void *p;

	(void)state;
	dev = t_nv_dev_open(256 * MIB, NULL);
	assert_int_equal(nvl_device_client_create(dev, &c), 0);
	assert_int_equal(nvl_bo_create(c, 4 * KIB, NVL_BO_DOMAIN_GTT, 0, 0, &h),
			 0);
	assert_int_equal(
		nvl_bo_create(NULL, 4 * KIB, NVL_BO_DOMAIN_GTT, 0, 0, &h2),
		-EINVAL);
	assert_int_equal(
		nvl_bo_create(c, 4 * KIB, NVL_BO_DOMAIN_GTT, 0, 0, NULL),
		-EINVAL);
	assert_non_null(strstr(nvl_last_error(), "NULL"));
	assert_int_equal(nvl_bo_close(NULL, h), -EINVAL);
	assert_int_equal(nvl_bo_map(NULL, h, &p), -EINVAL);
	assert_int_equal(nvl_bo_map(c, h, NULL), -EINVAL);
	assert_int_equal(nvl_bo_unmap(NULL, h), -EINVAL);
	assert_int_equal(nvl_bo_use(NULL, h), -EINVAL);
	assert_int_equal(nvl_bo_wait(NULL, h, 0), -EINVAL);
	assert_int_equal(nvl_bo_export(NULL, h, &tok), -EINVAL);
	assert_int_equal(nvl_bo_export(c, h, NULL), -EINVAL);
	assert_int_equal(nvl_bo_export(c, h, &tok), 0);
	assert_int_equal(nvl_bo_import(NULL, tok, &h2), -EINVAL);
	assert_int_equal(nvl_bo_import(c, tok, NULL), -EINVAL);
	assert_int_equal(nvl_bo_query(NULL, h, &bi), -EINVAL);
	assert_int_equal(nvl_bo_query(c, h, NULL), -EINVAL);
	assert_int_equal(nvl_bo_madvise(NULL, h, 0, &retained), -EINVAL);
	assert_int_equal(nvl_bo_madvise(c, h, NVL_BO_MADV_DONTNEED, NULL),
			 -EINVAL);
	/* nothing changed: still mappable, not purgeable, one handle */
	assert_int_equal(nvl_bo_madvise(c, h, NVL_BO_MADV_WILLNEED, &retained),
			 0);
	assert_true(retained);
	assert_int_equal(nvl_bo_map(c, h, &p), 0);
	assert_int_equal(nvl_bo_unmap(c, h), 0);
	assert_int_equal(nvl_bo_close(c, h), 0);
	nvl_client_destroy(c);
	nvl_device_close(dev);
}

/*
 * 7. a job queued before a BO is bound, run after the BO was evicted: the
 * job's fence is on the VM's resv only (the BO was not in the VM when the
 * job was submitted), and the move leaves the page-table entries behind
 * (src/vm/vm_bo.c) until the next exec's validate. Before, the eviction
 * waited for the BO's resv only, client B's new BO was cleared in X's old
 * VRAM, and the job read B's zeros there (3 of 3 runs): a cross-client
 * leak a client can arrange. The move now also waits for the jobs of every
 * VM that maps the BO (nvl_gpuvm_gem_deps(), as Xe waits for the VM's
 * resv), so B's clear runs after the job, which reads X's bytes.
 */
#define VA_R (160 * MIB)
#define VA_X (192 * MIB)
static void job_before_bind_after_eviction(void **state)
{
	struct nvl_device_info info;
	struct nvl_device *dev;
	struct nvl_client *b;
	struct t_nv_cl a;
	uint32_t x, r, big, n, *px;

	(void)state;
	dev = t_nv_dev_open(256 * MIB, &info);
	t_nv_cl_up(&a, dev, VA_PB, 0);
	t_nv_cl_sem(&a, 4 * KIB, VA_SEM);
	assert_int_equal(nvl_device_client_create(dev, &b), 0);
	r = t_nv_cl_bo(&a, MIB, NVL_BO_DOMAIN_GTT, VA_R, NULL);
	/* the job: wait for the semaphore, then copy VA_X into R */
	a.psem[0] = 0;
	n = nvl_kit_pb_acquire(a.ppb, VA_SEM, 1);
	n += nvl_kit_pb_copy(a.ppb + n, info.ce_class, VA_R, VA_X, MIB);
	assert_int_equal(t_nv_cl_exec(&a, a.chan, 0, n), 0);
	/* X bound at VA_X after the job was queued, with a pattern */
	x = t_nv_cl_bo(&a, 8 * MIB, NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
		       VA_X, (void **)&px);
	for (unsigned i = 0; i < MIB / 4; i++)
		px[i] = 0x600dda7a;
	assert_int_equal(nvl_bo_unmap(a.c, x), 0);
	assert_int_equal(nvl_bo_use(a.c, x), 0);
	assert_int_equal(where(a.c, x), NVL_BO_DOMAIN_VRAM);
	/* B's pressure evicts X; B's new BO is cleared (zero) once X's move
	 * is done, which must wait for the job */
	big = t_nv_vram_hog_all(b, &info);
	assert_int_not_equal(where(a.c, x), NVL_BO_DOMAIN_VRAM);
	(void)nvl_bo_wait(b, big, T_NV_SEC / 5);
	atomic_store_explicit((_Atomic uint32_t *)&a.psem[0], 1,
			      memory_order_release);
	assert_int_equal(t_nv_cl_wait(&a, 20 * T_NV_SEC), 0);
	t_nv_expect_words(a.c, r, 0, MIB / 4, 0x600dda7a,
			  "what the job read at VA_X");
	t_nv_expect_words(a.c, x, 0, MIB / 4, 0x600dda7a, "X after its move");
	nvl_client_destroy(b);
	t_nv_cl_down(&a);
	nvl_device_close(dev);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(concurrent_map_unmap),
		cmocka_unit_test(mapped_dontneed_not_purgeable),
		cmocka_unit_test(purged_bound_bo_reads_zero),
		cmocka_unit_test(exec_after_move_fences_bo),
		cmocka_unit_test(exec_after_purge_alloc_failures),
		cmocka_unit_test(bind_while_moving),
		cmocka_unit_test(null_arguments),
		cmocka_unit_test(job_before_bind_after_eviction),
	};

	return t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
}

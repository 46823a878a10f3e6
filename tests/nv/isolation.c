// SPDX-License-Identifier: MIT
/*
 * TEST: isolation between the clients of one device (issue 15), end to end
 * through the public headers only: new BOs read zero (CPU map and a
 * copy-engine copy out of them) even on VRAM another client just filled and
 * freed; a push that names a VA mapped only in another client's VM faults
 * (its channel is killed, the other client's data and channels untouched);
 * a read-only mapping (NVL_VM_BIND_READONLY: the PTE's READ_ONLY bit of
 * NVIDIA's v2 format, dev_mmu.ref "PTE_READ_ONLY", and the v3 PCF) written
 * by the copy engine faults; another client's handles are -ENOENT (-EINVAL
 * for the two closes, as DRM's GEM_CLOSE and SYNCOBJ_DESTROY answer).
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include <nouvelle/nouvelle.h>

#include "kit.h"
#include "t.h"
#include "t_nv.h"

#define KIB T_NV_KIB
#define MIB T_NV_MIB
#define VA_DST (32 * MIB)
#define VA_PB (48 * MIB)
#define VA_X (64 * MIB)
#define BIG (16 * MIB)
#define NBIG_MAX 16

static uint32_t new_bo(struct nvl_client *c, uint64_t size, void **cpu)
{
	uint32_t h;

	assert_int_equal(nvl_bo_create(c, size, NVL_BO_DOMAIN_VRAM, 0,
				       NVL_BO_CPU_VISIBLE, &h),
			 0);
	if (cpu)
		assert_int_equal(nvl_bo_map(c, h, cpu), 0);
	return h;
}

static void bind(struct t_nv_cl *k, uint32_t h, uint64_t va, uint64_t size,
		 uint32_t flags)
{
	struct nvl_vm_bind_op op = {.op = NVL_VM_BIND_OP_MAP,
				    .flags = flags,
				    .handle = h,
				    .addr = va,
				    .range = size};

	assert_int_equal(
		nvl_vm_bind(k->c, k->vm, 0, &op, 1, NULL, 0, NULL, 0, 0), 0);
}

/*
 * The bind of a BO whose clear may still be pending (its KERNEL fences join
 * the bind's waits: an allocation) under allocation failure: -ENOMEM and
 * nothing bound, until it succeeds.
 */
static void bind_under_alloc_failures(struct t_nv_cl *k, uint32_t h,
				      uint64_t va, uint64_t size)
{
	struct nvl_vm_bind_op op = {.op = NVL_VM_BIND_OP_MAP,
				    .handle = h,
				    .addr = va,
				    .range = size};
	unsigned long nth;
	int ret;

	for (nth = 1; nth < 64; nth++) {
		nvl_fault_fail_nth(nth, NVL_FAULT_THIS_THREAD);
		ret = nvl_vm_bind(k->c, k->vm, 0, &op, 1, NULL, 0, NULL, 0, 0);
		if (!nvl_fault_hits()) {
			nvl_fault_off();
			assert_int_equal(ret, 0);
			break;
		}
		nvl_fault_off();
		assert_int_equal(ret, -ENOMEM);
	}
	assert_true(nth > 1 && nth < 64);
}

/* run @ndw dwords at push offset @off (bytes) on @chan, wait for its fence */
static int run_on(struct t_nv_cl *k, uint32_t chan, uint32_t off, uint32_t ndw)
{
	int ret;

	assert_int_equal(nvl_syncobj_reset(k->c, &k->sync, 1), 0);
	ret = t_nv_cl_exec(k, chan, off, ndw);
	if (ret)
		return ret;
	return t_nv_cl_wait(k, 5 * T_NV_SEC);
}

static void expect_bytes(const uint8_t *p, size_t n, uint8_t want,
			 const char *what)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != want)
			fail_msg("%s: byte %zu is %#x, not %#x", what, i, p[i],
				 want);
}

static void expect_killed(struct t_nv_cl *k, uint32_t chan)
{
	struct nvl_channel_info ci;
	struct nvl_exec_push p = {.va = VA_PB, .len = 8};

	assert_int_equal(nvl_channel_query(k->c, chan, &ci), 0);
	assert_int_equal(ci.alive, 0);
	/* the fault entry RM copied: Xid 31, -EFAULT (docs/faults.md) */
	assert_int_equal(ci.error, -EFAULT);
	assert_int_equal(ci.hw_error, 31);
	assert_int_equal(ci.reason, NVL_CHANNEL_MMU_FAULT);
	assert_int_equal(nvl_exec(k->c, chan, &p, 1, NULL, 0, NULL, 0, 0),
			 -ENODEV);
}

static void expect_alive(struct t_nv_cl *k, uint32_t chan)
{
	struct nvl_channel_info ci;

	assert_int_equal(nvl_channel_query(k->c, chan, &ci), 0);
	assert_int_equal(ci.alive, 1);
	assert_int_equal(ci.error, 0);
	assert_int_equal(ci.submitted, ci.completed);
}

/* 1. VRAM one client filled and freed reads zero in another's new BOs */
static void new_bo_reads_zero(void **state)
{
	struct nvl_device_info in;
	struct nvl_device *dev;
	struct nvl_client *a;
	struct t_nv_cl b;
	uint32_t h[NBIG_MAX], dst;
	uint8_t *p[NBIG_MAX], *pdst;
	int nbig;

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", NULL, &dev), 0);
	assert_int_equal(nvl_device_query(dev, &in), 0);
	/* three quarters of the usable VRAM: the rest holds page tables,
	 * GPFIFOs and B's small BOs, so B's big BOs reuse A's blocks */
	nbig = (int)(in.vram_usable * 3 / 4 / BIG);
	if (nbig > NBIG_MAX)
		nbig = NBIG_MAX;
	assert_true(nbig >= 4);
	assert_int_equal(nvl_device_client_create(dev, &a), 0);
	/* client A fills most of the VRAM and frees it */
	for (int i = 0; i < nbig; i++) {
		h[i] = new_bo(a, BIG, (void **)&p[i]);
		memset(p[i], 0xab, BIG);
	}
	for (int i = 0; i < nbig; i++) {
		assert_int_equal(nvl_bo_unmap(a, h[i]), 0);
		assert_int_equal(nvl_bo_close(a, h[i]), 0);
	}
	nvl_client_destroy(a);
	/*
	 * Client B's new BOs, of the same sizes, read zero: first by a
	 * copy-engine copy out of them (first and last 128 KiB of each) right
	 * after creation, never CPU-mapped, so an exec that ran ahead of the
	 * memory manager's clear would see A's bytes; then by CPU map.
	 */
	t_nv_cl_up(&b, dev, VA_PB, 0);
	dst = new_bo(b.c, 256 * KIB, (void **)&pdst);
	bind(&b, dst, VA_DST, 256 * KIB, 0);
	for (int i = 0; i < nbig; i++) {
		uint64_t va = VA_X + (uint64_t)i * BIG;
		uint32_t n;

		h[i] = new_bo(b.c, BIG, NULL);
		if (i == 0)
			bind_under_alloc_failures(&b, h[i], va, BIG);
		else
			bind(&b, h[i], va, BIG, 0);
		memset(pdst, 0xee, 256 * KIB);
		n = nvl_kit_pb_copy(b.ppb, in.ce_class, VA_DST, va, 128 * KIB);
		n += nvl_kit_pb_copy(b.ppb + n, in.ce_class, VA_DST + 128 * KIB,
				     va + BIG - 128 * KIB, 128 * KIB);
		assert_int_equal(run_on(&b, b.chan, 0, n), 0);
		expect_bytes(pdst, 256 * KIB, 0, "new BO, copy engine");
	}
	for (int i = 0; i < nbig; i++) {
		assert_int_equal(nvl_bo_map(b.c, h[i], (void **)&p[i]), 0);
		expect_bytes(p[i], BIG, 0, "new BO, CPU");
		assert_int_equal(nvl_bo_unmap(b.c, h[i]), 0);
	}
	expect_alive(&b, b.chan);
	assert_int_equal(nvl_bo_unmap(b.c, dst), 0);
	t_nv_cl_down(&b);
	nvl_device_close(dev);
}

/* 2. a push in A naming a VA mapped only in B's VM faults in A */
static void foreign_va_faults(void **state)
{
	struct nvl_device_info in;
	struct nvl_device *dev;
	struct t_nv_cl a, b;
	uint32_t bx, ax, n;
	uint8_t *pbx, *pax;

	(void)state;
	assert_int_equal(nvl_device_open(NULL, NULL, &dev), 0);
	assert_int_equal(nvl_device_query(dev, &in), 0);
	t_nv_cl_up(&a, dev, VA_PB, 0);
	t_nv_cl_up(&b, dev, VA_PB, 0);
	/* B's data at VA_X in B's VM; A maps its own BO at VA_DST only */
	bx = new_bo(b.c, 64 * KIB, (void **)&pbx);
	memset(pbx, 0x5b, 64 * KIB);
	bind(&b, bx, VA_X, 64 * KIB, 0);
	ax = new_bo(a.c, 64 * KIB, (void **)&pax);
	memset(pax, 0xa1, 64 * KIB);
	bind(&a, ax, VA_DST, 64 * KIB, 0);

	/* A fills B's VA: A's VM has nothing there, the write faults */
	n = nvl_kit_pb_memset(a.ppb, in.ce_class, VA_X, 0x11111111u, 4096);
	assert_int_equal(run_on(&a, a.chan, 0, n), 0);
	expect_killed(&a, a.chan);
	expect_bytes(pbx, 64 * KIB, 0x5b, "B's BO after A's write");

	/* A copies from B's VA into its own BO: the read faults too */
	{
		uint32_t ch2;

		assert_int_equal(
			nvl_channel_create(a.c, a.vm, NVL_ENGINE_COPY, 0, &ch2),
			0);
		n = nvl_kit_pb_copy(a.ppb + 256, in.ce_class, VA_DST, VA_X,
				    4096);
		assert_int_equal(run_on(&a, ch2, 1024, n), 0);
		expect_killed(&a, ch2);
		expect_bytes(pax, 64 * KIB, 0xa1, "A's BO after the read");
		assert_int_equal(nvl_channel_destroy(a.c, ch2), 0);
	}

	/* B's channel still works on B's data */
	n = nvl_kit_pb_memset(b.ppb, in.ce_class, VA_X, 0x77777777u, 4096);
	assert_int_equal(run_on(&b, b.chan, 0, n), 0);
	expect_alive(&b, b.chan);
	expect_bytes(pbx, 4096, 0x77, "B's fill");
	expect_bytes(pbx + 4096, 60 * KIB, 0x5b, "B's BO past the fill");

	assert_int_equal(nvl_bo_unmap(a.c, ax), 0);
	assert_int_equal(nvl_bo_unmap(b.c, bx), 0);
	t_nv_cl_down(&a);
	t_nv_cl_down(&b);
	nvl_device_close(dev);
}

/* 3. a read-only mapping written by the copy engine faults */
static void readonly_write_faults_on(const char *spec)
{
	struct nvl_device_info in;
	struct nvl_device *dev;
	struct t_nv_cl a;
	uint32_t ro, rw, ch2, n;
	uint8_t *pro, *prw;

	assert_int_equal(nvl_device_open(spec, NULL, &dev), 0);
	assert_int_equal(nvl_device_query(dev, &in), 0);
	t_nv_cl_up(&a, dev, VA_PB, 0);
	ro = new_bo(a.c, 64 * KIB, (void **)&pro);
	memset(pro, 0x3c, 64 * KIB);
	bind(&a, ro, VA_X, 64 * KIB, NVL_VM_BIND_READONLY);
	rw = new_bo(a.c, 64 * KIB, (void **)&prw);
	memset(prw, 0, 64 * KIB);
	bind(&a, rw, VA_DST, 64 * KIB, 0);
	assert_int_equal(
		nvl_channel_create(a.c, a.vm, NVL_ENGINE_COPY, 0, &ch2), 0);

	/* reading through the read-only mapping works */
	n = nvl_kit_pb_copy(a.ppb, in.ce_class, VA_DST, VA_X, 64 * KIB);
	assert_int_equal(run_on(&a, a.chan, 0, n), 0);
	expect_alive(&a, a.chan);
	expect_bytes(prw, 64 * KIB, 0x3c, "copy out of the read-only map");

	/* a fill into it faults: channel killed, memory unchanged */
	n = nvl_kit_pb_memset(a.ppb + 256, in.ce_class, VA_X, 0x99999999u,
			      4096);
	assert_int_equal(run_on(&a, a.chan, 1024, n), 0);
	expect_killed(&a, a.chan);
	expect_bytes(pro, 64 * KIB, 0x3c, spec);

	/* so does a copy into it, on another channel */
	{
		uint32_t ch3;

		assert_int_equal(
			nvl_channel_create(a.c, a.vm, NVL_ENGINE_COPY, 0, &ch3),
			0);
		memset(prw, 0x42, 64 * KIB);
		n = nvl_kit_pb_copy(a.ppb + 512, in.ce_class, VA_X, VA_DST,
				    8192);
		assert_int_equal(run_on(&a, ch3, 2048, n), 0);
		expect_killed(&a, ch3);
		expect_bytes(pro, 64 * KIB, 0x3c, spec);
		assert_int_equal(nvl_channel_destroy(a.c, ch3), 0);
	}

	/* the other channel runs */
	n = nvl_kit_pb_memset(a.ppb + 768, in.ce_class, VA_DST, 0x24242424u,
			      4096);
	assert_int_equal(run_on(&a, ch2, 3072, n), 0);
	expect_alive(&a, ch2);
	expect_bytes(prw, 4096, 0x24, "the other channel's fill");

	assert_int_equal(nvl_channel_destroy(a.c, ch2), 0);
	assert_int_equal(nvl_bo_unmap(a.c, ro), 0);
	assert_int_equal(nvl_bo_unmap(a.c, rw), 0);
	t_nv_cl_down(&a);
	nvl_device_close(dev);
}

static void readonly_write_faults(void **state)
{
	(void)state;
	readonly_write_faults_on("model:tiny"); /* v2 page tables */
	readonly_write_faults_on("model:gh100"); /* v3 page tables */
}

/* 4. another client's channel, VM, BO and syncobj handles are -ENOENT */
static void foreign_handles(void **state)
{
	struct nvl_vm_bind_op op = {
		.op = NVL_VM_BIND_OP_MAP, .addr = VA_DST, .range = 64 * KIB};
	struct nvl_exec_push p = {.va = VA_PB, .len = 8};
	struct nvl_channel_info ci;
	struct nvl_bo_info bi;
	struct nvl_device *dev;
	struct nvl_client *b;
	struct t_nv_cl a;
	uint64_t token;
	uint32_t h, abo;
	void *cpu;

	(void)state;
	assert_int_equal(nvl_device_open(NULL, NULL, &dev), 0);
	t_nv_cl_up(&a, dev, VA_PB, 0);
	abo = new_bo(a.c, 64 * KIB, NULL);
	/* B owns nothing: every A handle is unknown to it */
	assert_int_equal(nvl_device_client_create(dev, &b), 0);
	/* channel */
	assert_int_equal(nvl_channel_query(b, a.chan, &ci), -ENOENT);
	assert_int_equal(nvl_exec(b, a.chan, &p, 1, NULL, 0, NULL, 0, 0),
			 -ENOENT);
	assert_int_equal(nvl_channel_destroy(b, a.chan), -ENOENT);
	/* VM */
	assert_int_equal(nvl_channel_create(b, a.vm, 0, 0, &h), -ENOENT);
	assert_int_equal(nvl_vm_bind(b, a.vm, 0, &op, 1, NULL, 0, NULL, 0, 0),
			 -ENOENT);
	assert_int_equal(nvl_vm_destroy(b, a.vm), -ENOENT);
	/* BOs */
	assert_int_equal(nvl_bo_map(b, abo, &cpu), -ENOENT);
	assert_int_equal(nvl_bo_map(b, a.pb, &cpu), -ENOENT);
	assert_int_equal(nvl_bo_query(b, abo, &bi), -ENOENT);
	assert_int_equal(nvl_bo_export(b, abo, &token), -ENOENT);
	/* GEM_CLOSE's answer for a handle not in the table (bo.h) */
	assert_int_equal(nvl_bo_close(b, abo), -EINVAL);
	/* syncobj */
	assert_int_equal(nvl_syncobj_wait(b, &a.sync, NULL, 1, 0, 0, NULL),
			 -ENOENT);
	assert_int_equal(nvl_syncobj_signal(b, &a.sync, 1), -ENOENT);
	/* SYNCOBJ_DESTROY's answer for a handle not in the table (sync.h) */
	assert_int_equal(nvl_syncobj_destroy(b, a.sync), -EINVAL);
	nvl_client_destroy(b);

	/* nothing of A's changed: all still work */
	assert_int_equal(nvl_bo_query(a.c, abo, &bi), 0);
	assert_int_equal(bi.size_B, 64 * KIB);
	op.handle = abo;
	assert_int_equal(nvl_vm_bind(a.c, a.vm, 0, &op, 1, NULL, 0, NULL, 0, 0),
			 0);
	{
		struct nvl_device_info in;
		uint32_t n;

		assert_int_equal(nvl_device_query(dev, &in), 0);
		n = nvl_kit_pb_memset(a.ppb, in.ce_class, VA_DST, 1, 64);
		assert_int_equal(run_on(&a, a.chan, 0, n), 0);
	}
	expect_alive(&a, a.chan);
	t_nv_cl_down(&a);
	nvl_device_close(dev);
}

/*
 * A BO is one device's memory: a token exported on one device names nothing
 * on another. Each device's memory manager numbered its exports alike, so
 * before, the first export of device 1 imported on device 2 gave device 2's
 * first exported BO.
 */
static void foreign_device_token(void **state)
{
	struct nvl_device *d1, *d2;
	struct nvl_client *a, *b;
	uint64_t ta, tb;
	uint32_t ha, hb, h;
	struct nvl_bo_info bi;
	void *cpu_a, *cpu_b;

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", NULL, &d1), 0);
	assert_int_equal(nvl_device_open("model:tiny", NULL, &d2), 0);
	assert_int_equal(nvl_device_client_create(d1, &a), 0);
	assert_int_equal(nvl_device_client_create(d2, &b), 0);
	ha = new_bo(a, 64 * KIB, &cpu_a);
	hb = new_bo(b, 128 * KIB, &cpu_b);
	memset(cpu_a, 0xaa, 64 * KIB);
	memset(cpu_b, 0xbb, 128 * KIB);
	assert_int_equal(nvl_bo_export(a, ha, &ta), 0);
	assert_int_equal(nvl_bo_export(b, hb, &tb), 0);
	assert_true(ta != tb);

	/* across devices: refused both ways, nothing added */
	assert_int_equal(nvl_bo_import(b, ta, &h), -EXDEV);
	assert_int_equal(nvl_bo_import(a, tb, &h), -EXDEV);
	assert_int_equal(nvl_bo_query(b, hb + 1, &bi), -ENOENT);
	assert_int_equal(nvl_bo_query(a, ha + 1, &bi), -ENOENT);
	/* a token naming no memory manager of the process is unknown */
	assert_int_equal(nvl_bo_import(a, ta ^ (0xffffull << 48), &h), -ENOENT);

	/* within each device the tokens work as before */
	{
		struct nvl_client *a2;
		void *cpu;

		assert_int_equal(nvl_device_client_create(d1, &a2), 0);
		assert_int_equal(nvl_bo_import(a2, ta, &h), 0);
		assert_int_equal(nvl_bo_query(a2, h, &bi), 0);
		assert_int_equal(bi.size_B, 64 * KIB);
		assert_int_equal(nvl_bo_map(a2, h, &cpu), 0);
		expect_bytes(cpu, 64 * KIB, 0xaa, "device 1's BO");
		/* a CPU mapping holds its BO until unmapped (mm's rule) */
		assert_int_equal(nvl_bo_unmap(a2, h), 0);
		nvl_client_destroy(a2);
	}
	assert_int_equal(nvl_bo_unmap(a, ha), 0);
	assert_int_equal(nvl_bo_unmap(b, hb), 0);
	nvl_client_destroy(a);
	nvl_client_destroy(b);
	nvl_device_close(d1);
	nvl_device_close(d2);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(new_bo_reads_zero),
		cmocka_unit_test(foreign_va_faults),
		cmocka_unit_test(readonly_write_faults),
		cmocka_unit_test(foreign_handles),
		cmocka_unit_test(foreign_device_token),
	};

	return t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
}

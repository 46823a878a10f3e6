// SPDX-License-Identifier: MIT
/*
 * TEST: the driver end to end through the public headers: open a device,
 * a client, BOs in its VRAM, a VM on NVIDIA page tables, a copy-engine
 * channel allocated by RM through the GSP, then EXEC of copies and fills
 * built with the bring-up kit's independent copy-class encoder
 * (tests/lib/kit.h; methods of clc5b5.h / src/hw/ce.h), waited on through
 * syncobjs, every byte read back. Bad exec input is rejected with nothing
 * signalled; channel destroy with work queued; isolation between clients.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include <nouvelle/nouvelle.h>

#include "kit.h"
#include "t.h"
#include "t_nv.h"

#define KIB T_NV_KIB
#define MIB T_NV_MIB
#define BUF (256 * KIB)
#define VA_SRC (16 * MIB)
#define VA_DST (32 * MIB)
#define VA_PB (48 * MIB)

/* the rig's client, on a device of its own, with a source and a target */
struct ctx {
	struct t_nv_cl k;
	uint32_t src, dst;
	uint8_t *psrc, *pdst;
};

static void up(struct ctx *x, const char *spec)
{
	struct nvl_device *dev;

	memset(x, 0, sizeof(*x));
	assert_int_equal(nvl_device_open(spec, NULL, &dev), 0);
	t_nv_cl_up(&x->k, dev, VA_PB, 0);
	x->src = t_nv_cl_bo(&x->k, BUF, NVL_BO_DOMAIN_VRAM, VA_SRC,
			    (void **)&x->psrc);
	x->dst = t_nv_cl_bo(&x->k, BUF, NVL_BO_DOMAIN_VRAM, VA_DST,
			    (void **)&x->pdst);
}

static void down(struct ctx *x)
{
	struct nvl_device *dev = x->k.dev;

	/* a CPU mapping holds its BO until unmapped (mm's rule) */
	assert_int_equal(nvl_bo_unmap(x->k.c, x->src), 0);
	assert_int_equal(nvl_bo_unmap(x->k.c, x->dst), 0);
	t_nv_cl_close(&x->k);
	nvl_device_close(dev);
}

static void run(struct ctx *x, uint32_t pb_off, uint32_t ndw)
{
	t_nv_cl_run(&x->k, pb_off, ndw, 5 * T_NV_SEC);
}

static void copy_and_fill_on(const char *spec)
{
	struct nvl_channel_info ci;
	struct ctx x;
	uint32_t n;

	up(&x, spec);
	for (size_t i = 0; i < BUF; i++)
		x.psrc[i] = (uint8_t)(i * 31 + (i >> 9) + 7);
	memset(x.pdst, 0xee, BUF);
	/* a copy of the whole buffer */
	n = nvl_kit_pb_copy(x.k.ppb, x.k.info.ce_class, VA_DST, VA_SRC, BUF);
	run(&x, 0, n);
	assert_memory_equal(x.pdst, x.psrc, BUF);
	/* a fill of the middle through the remap unit */
	n = nvl_kit_pb_memset(x.k.ppb + 256, x.k.info.ce_class, VA_DST + 4096,
			      0xa5a55a5au, 8192);
	run(&x, 1024, n);
	for (size_t i = 0; i < BUF; i++) {
		uint8_t want = x.psrc[i];

		if (i >= 4096 && i < 4096 + 8192)
			want = ((const uint8_t[]){0x5a, 0x5a, 0xa5,
						  0xa5})[i % 4];
		if (x.pdst[i] != want)
			fail_msg("%s: byte %zu is %#x, not %#x", spec, i,
				 x.pdst[i], want);
	}
	assert_int_equal(nvl_channel_query(x.k.c, x.k.chan, &ci), 0);
	assert_int_equal(ci.alive, 1);
	assert_int_equal(ci.submitted, 2);
	assert_int_equal(ci.completed, 2);
	down(&x);
}

static void copy_and_fill(void **state)
{
	(void)state;
	copy_and_fill_on("model:tiny");
}

static void every_chip(void **state)
{
	(void)state;
	copy_and_fill_on("model:tu102");
	copy_and_fill_on("model:ga102");
	copy_and_fill_on("model:ad102");
	copy_and_fill_on("model:gh100");
}

/* many jobs pipelined, a timeline syncobj, waits between them */
static void pipelined_timeline(void **state)
{
	struct nvl_vm_sync tl = {0}, w = {0};
	struct nvl_exec_push p;
	struct ctx x;
	uint64_t pt = 40;
	uint32_t n;

	(void)state;
	up(&x, NULL);
	assert_int_equal(nvl_syncobj_create(x.k.c, 0, &tl.handle), 0);
	memset(x.pdst, 0, BUF);
	/* 40 fills of 4 KiB each, each one waiting for the one before */
	for (uint32_t i = 0; i < 40; i++) {
		n = nvl_kit_pb_memset(x.k.ppb + i * 64, x.k.info.ce_class,
				      VA_DST + i * 4096, 0x01010101u * (i + 1),
				      4096);
		p = (struct nvl_exec_push){.va = VA_PB + i * 256, .len = n * 4};
		tl.point = i + 1;
		w = (struct nvl_vm_sync){.handle = tl.handle, .point = i};
		assert_int_equal(nvl_exec(x.k.c, x.k.chan, &p, 1, &w, i ? 1 : 0,
					  &tl, 1, 0),
				 0);
	}
	assert_int_equal(nvl_syncobj_wait(x.k.c, &tl.handle, &pt, 1,
					  t_nv_deadline(5000000000ll), 0, NULL),
			 0);
	for (uint32_t i = 0; i < 40; i++)
		for (uint32_t b = 0; b < 4096; b++)
			assert_int_equal(x.pdst[i * 4096 + b], i + 1);
	down(&x);
}

static void bad_exec(void **state)
{
	struct nvl_exec_push p = {.va = VA_PB, .len = 64};
	struct nvl_exec_push many[NVL_EXEC_MAX_PUSH + 1];
	struct nvl_vm_sync s = {0}, bad = {.handle = 999};
	struct nvl_channel_info ci;
	struct ctx x;

	(void)state;
	up(&x, NULL);
	s.handle = x.k.sync;
	for (size_t i = 0; i < NVL_ARRAY_SIZE(many); i++)
		many[i] = p;
#define REJECT(err, ...) assert_int_equal(nvl_exec(x.k.c, __VA_ARGS__), err)
	REJECT(-EINVAL, x.k.chan, &p, 0, NULL, 0, &s, 1, 0);
	REJECT(-EINVAL, x.k.chan, many, NVL_EXEC_MAX_PUSH + 1, NULL, 0, &s, 1,
	       0);
	REJECT(-EINVAL, x.k.chan, &p, 1, NULL, 0, &s, 1, 1);
	p.len = 0;
	REJECT(-EINVAL, x.k.chan, &p, 1, NULL, 0, &s, 1, 0);
	p.len = 6;
	REJECT(-EINVAL, x.k.chan, &p, 1, NULL, 0, &s, 1, 0);
	p.len = 64;
	p.va = VA_PB + 2;
	REJECT(-EINVAL, x.k.chan, &p, 1, NULL, 0, &s, 1, 0);
	p.va = 4096; /* below the VM's window */
	REJECT(-EINVAL, x.k.chan, &p, 1, NULL, 0, &s, 1, 0);
	p.va = T_NV_KSTART; /* the driver's range */
	REJECT(-EINVAL, x.k.chan, &p, 1, NULL, 0, &s, 1, 0);
	p.va = VA_PB;
	p.flags = 2;
	REJECT(-EINVAL, x.k.chan, &p, 1, NULL, 0, &s, 1, 0);
	p.flags = 0;
	REJECT(-ENOENT, x.k.chan + 100, &p, 1, NULL, 0, &s, 1, 0);
	REJECT(-ENOENT, x.k.chan, &p, 1, &bad, 1, &s, 1, 0);
	REJECT(-ENOENT, x.k.chan, &p, 1, NULL, 0, &bad, 1, 0);
	/* nothing was signalled, nothing ran */
	assert_int_equal(
		nvl_syncobj_wait(x.k.c, &x.k.sync, NULL, 1, 0, 0, NULL),
		-EINVAL);
	assert_int_equal(nvl_channel_query(x.k.c, x.k.chan, &ci), 0);
	assert_int_equal(ci.submitted, 0);
	assert_int_equal(nvl_channel_create(x.k.c, x.k.vm, 7, 0, &ci.chid),
			 -EINVAL);
	assert_int_equal(nvl_channel_create(x.k.c, x.k.vm + 9, 0, 0, &ci.chid),
			 -ENOENT);
	down(&x);
}

/* destroy with work waiting: its fence completes with an error */
static void destroy_in_flight(void **state)
{
	struct nvl_exec_push p;
	struct nvl_vm_sync w = {0}, s = {0};
	struct ctx x;
	uint32_t n, gate, ch2;

	(void)state;
	up(&x, NULL);
	assert_int_equal(nvl_syncobj_create(x.k.c, 0, &gate), 0);
	n = nvl_kit_pb_memset(x.k.ppb, x.k.info.ce_class, VA_DST, 0, 4096);
	p = (struct nvl_exec_push){.va = VA_PB, .len = n * 4};
	/* a job waiting for a gate that never opens */
	assert_int_equal(nvl_syncobj_create(x.k.c, 0, &w.handle), 0);
	(void)gate;
	assert_int_equal(
		nvl_channel_create(x.k.c, x.k.vm, NVL_ENGINE_COPY, 0, &ch2), 0);
	s.handle = x.k.sync;
	/* FOR_SUBMIT-less waits need a fence: give the gate one through an
	 * exec on another channel that waits for nothing, then destroy the
	 * channel whose job waits on it before it can run */
	assert_int_equal(nvl_exec(x.k.c, x.k.chan, &p, 1, NULL, 0, &w, 1, 0),
			 0);
	assert_int_equal(nvl_exec(x.k.c, ch2, &p, 1, &w, 1, &s, 1, 0), 0);
	assert_int_equal(nvl_channel_destroy(x.k.c, ch2), 0);
	/* signalled either way: done, or cancelled with an error */
	assert_int_equal(t_nv_cl_wait(&x.k, 5 * T_NV_SEC), 0);
	/* the channel is gone for exec */
	assert_int_equal(nvl_exec(x.k.c, ch2, &p, 1, NULL, 0, NULL, 0, 0),
			 -ENOENT);
	down(&x);
}

/* a bad method kills the channel: its fence errors, later execs -ENODEV */
static void channel_error_kills(void **state)
{
	struct nvl_vm_sync s = {0};
	struct nvl_channel_info ci;
	struct nvl_exec_push p;
	struct ctx x;
	uint32_t ch2, n;

	(void)state;
	up(&x, NULL);
	/* Host method ILLEGAL (0x04) on subchannel 0: a METHOD error */
	x.k.ppb[0] = 0x20010001u; /* SEC_OP 1, COUNT 1, SUBCH 0, ADDR 0x04>>2 */
	x.k.ppb[1] = 0;
	p = (struct nvl_exec_push){.va = VA_PB, .len = 8};
	s.handle = x.k.sync;
	assert_int_equal(nvl_exec(x.k.c, x.k.chan, &p, 1, NULL, 0, &s, 1, 0),
			 0);
	assert_int_equal(t_nv_cl_wait(&x.k, 5 * T_NV_SEC), 0);
	assert_int_equal(nvl_channel_query(x.k.c, x.k.chan, &ci), 0);
	assert_int_equal(ci.alive, 0);
	/* RM's RC_TRIGGERED: Xid 32 (ROBUST_CHANNEL_PBDMA_ERROR) */
	assert_int_equal(ci.error, -EIO);
	assert_int_equal(ci.hw_error, 32);
	assert_int_equal(ci.reason, NVL_CHANNEL_PUSHBUFFER);
	n = nvl_kit_pb_memset(x.k.ppb + 64, x.k.info.ce_class, VA_DST, 1, 64);
	p = (struct nvl_exec_push){.va = VA_PB + 256, .len = n * 4};
	assert_int_equal(nvl_exec(x.k.c, x.k.chan, &p, 1, NULL, 0, NULL, 0, 0),
			 -ENODEV);
	/* the other channels go on */
	assert_int_equal(nvl_channel_create(x.k.c, x.k.vm, 0, 0, &ch2), 0);
	assert_int_equal(nvl_exec(x.k.c, ch2, &p, 1, NULL, 0, &s, 1, 0), 0);
	assert_int_equal(t_nv_cl_wait(&x.k, 5 * T_NV_SEC), 0);
	assert_int_equal(x.pdst[0], 1);
	assert_int_equal(nvl_channel_destroy(x.k.c, ch2), 0);
	down(&x);
}

/* one client cannot name another's channel, VM or syncobj */
static void isolation(void **state)
{
	struct nvl_exec_push p = {.va = VA_PB, .len = 64};
	struct nvl_client *c2;
	struct nvl_channel_info ci;
	struct ctx x;
	uint32_t vm2;

	(void)state;
	up(&x, NULL);
	assert_int_equal(nvl_device_client_create(x.k.dev, &c2), 0);
	assert_int_equal(nvl_channel_query(c2, x.k.chan, &ci), -ENOENT);
	assert_int_equal(nvl_exec(c2, x.k.chan, &p, 1, NULL, 0, NULL, 0, 0),
			 -ENOENT);
	assert_int_equal(nvl_channel_create(c2, x.k.vm, 0, 0, &vm2), -ENOENT);
	nvl_client_destroy(c2);
	down(&x);
}

/* channel create under allocation failure: -ENOMEM, nothing left over */
static void channel_alloc_failures(void **state)
{
	struct nvl_channel_info ci;
	unsigned long n0, n, tried = 0;
	uint32_t h;
	struct ctx x;

	(void)state;
	up(&x, NULL);
	n0 = nvl_alloc_count();
	assert_int_equal(nvl_channel_create(x.k.c, x.k.vm, 0, 0, &h), 0);
	n = nvl_alloc_count() - n0;
	assert_int_equal(nvl_channel_destroy(x.k.c, h), 0);
	for (unsigned long nth = 1; nth <= n + 1; nth++) {
		int ret;

		nvl_fault_fail_nth(nth, NVL_FAULT_THIS_THREAD);
		ret = nvl_channel_create(x.k.c, x.k.vm, 0, 0, &h);
		if (!nvl_fault_hits()) {
			nvl_fault_off();
			assert_int_equal(ret, 0);
			assert_int_equal(nvl_channel_destroy(x.k.c, h), 0);
			break;
		}
		nvl_fault_off();
		tried++;
		assert_int_equal(ret, -ENOMEM);
	}
	assert_true(tried >= 3);
	/* the device's and the client's limits were not eaten: all of the
	 * client's channels still fit, and the first one still works */
	assert_int_equal(nvl_channel_query(x.k.c, x.k.chan, &ci), 0);
	assert_int_equal(ci.alive, 1);
	{
		uint32_t hs[64];
		unsigned k = 0;
		int ret;

		while ((ret = nvl_channel_create(x.k.c, x.k.vm, 0, 0,
						 &hs[k])) == 0)
			k++;
		/* 64 per client, the one from up() included */
		assert_int_equal(ret, -ENOSPC);
		assert_int_equal(k, x.k.info.max_channels_per_client - 1);
		while (k)
			assert_int_equal(nvl_channel_destroy(x.k.c, hs[--k]),
					 0);
	}
	run(&x, 0,
	    nvl_kit_pb_memset(x.k.ppb, x.k.info.ce_class, VA_DST, 7, 64));
	down(&x);
}

/* a few clients x channels submitting at once, each on its own BO */
#define CC_CLIENTS 3
#define CC_CHANS 2
#define CC_JOBS 30

struct cc {
	struct nvl_device *dev;
	uint32_t ce_class;
	int idx;
};

static void *cc_main(void *arg)
{
	struct cc *a = arg;
	struct nvl_vm_sync tl = {0};
	struct nvl_client *c;
	uint32_t vm, dst, pb, ch[CC_CHANS];
	uint8_t *pdst;
	uint32_t *ppb;
	uint64_t last;

	assert_int_equal(nvl_device_client_create(a->dev, &c), 0);
	vm = t_nv_vm(c);
	dst = t_nv_vram_bo(c, vm, CC_JOBS * 4096, VA_DST, (void **)&pdst);
	pb = t_nv_vram_bo(c, vm, 64 * KIB, VA_PB, (void **)&ppb);
	for (int i = 0; i < CC_CHANS; i++)
		assert_int_equal(nvl_channel_create(c, vm, 0, 0, &ch[i]), 0);
	assert_int_equal(nvl_syncobj_create(c, 0, &tl.handle), 0);
	for (uint32_t j = 0; j < CC_JOBS; j++) {
		uint32_t n = nvl_kit_pb_memset(
			ppb + j * 64, a->ce_class, VA_DST + j * 4096,
			0x01010101u * (uint32_t)(a->idx * 40 + j + 1), 4096);
		struct nvl_exec_push p = {.va = VA_PB + j * 256, .len = n * 4};

		tl.point = j + 1;
		assert_int_equal(nvl_exec(c, ch[j % CC_CHANS], &p, 1, NULL, 0,
					  &tl, 1, 0),
				 0);
	}
	/* points may signal out of order across channels: wait for each */
	for (uint32_t j = 0; j < CC_JOBS; j++) {
		last = j + 1;
		assert_int_equal(nvl_syncobj_wait(c, &tl.handle, &last, 1,
						  t_nv_deadline(10000000000ll),
						  0, NULL),
				 0);
	}
	for (uint32_t j = 0; j < CC_JOBS; j++)
		for (uint32_t b = 0; b < 4096; b += 97)
			assert_int_equal(pdst[j * 4096 + b],
					 (uint8_t)(a->idx * 40 + j + 1));
	for (int i = 0; i < CC_CHANS; i++)
		assert_int_equal(nvl_channel_destroy(c, ch[i]), 0);
	assert_int_equal(nvl_bo_unmap(c, dst), 0);
	assert_int_equal(nvl_bo_unmap(c, pb), 0);
	nvl_client_destroy(c);
	return NULL;
}

static void concurrent_clients(void **state)
{
	struct nvl_device_info in;
	struct cc a[CC_CLIENTS];
	pthread_t t[CC_CLIENTS];
	struct nvl_device *dev;

	(void)state;
	assert_int_equal(nvl_device_open(NULL, NULL, &dev), 0);
	assert_int_equal(nvl_device_query(dev, &in), 0);
	for (int i = 0; i < CC_CLIENTS; i++) {
		a[i] = (struct cc){dev, in.ce_class, i};
		assert_int_equal(pthread_create(&t[i], NULL, cc_main, &a[i]),
				 0);
	}
	for (int i = 0; i < CC_CLIENTS; i++)
		pthread_join(t[i], NULL);
	nvl_device_close(dev);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(copy_and_fill),
		cmocka_unit_test(pipelined_timeline),
		cmocka_unit_test(bad_exec),
		cmocka_unit_test(destroy_in_flight),
		cmocka_unit_test(isolation),
		cmocka_unit_test(channel_error_kills),
		cmocka_unit_test(channel_alloc_failures),
		cmocka_unit_test(concurrent_clients),
		cmocka_unit_test(every_chip),
	};

	return t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
}

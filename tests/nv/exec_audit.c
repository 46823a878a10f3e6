// SPDX-License-Identifier: MIT
/*
 * TEST: adversarial review of channels, EXEC and the pushbuffer against
 * NVIDIA's host class (audit14): what a hostile or careless client can do
 * with channel create/destroy/query and nvl_exec(), checked against the
 * promises of nouvelle/exec.h and the published Host class facts
 * (clc36f.h/clc46f.h/clc56f.h/clc86f.h: GP_ENTRY0/1, SEM_ADDR_HI, the
 * method header) the driver and the model implement.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <nouvelle/nouvelle.h>
#include <nouvelle/push.h>

#include "core/device.h"
#include "hw/host.h"
#include "model/gsp/gsp.h"
#include "nv/device.h"
#include "kit.h"
#include "t.h"
#include "t_nv.h"

#define KIB T_NV_KIB
#define MIB T_NV_MIB
#define VA_LOW (16 * MIB)
#define VA_PB (48 * MIB)

/* ---- nvl_exec() under allocation failure ------------------------------ */

#define AF_SIGS 6 /* more than exec's signals on the stack */

struct af {
	struct t_nv_cl k;
	struct nvl_exec_push push;
	struct nvl_vm_sync waits[2], sigs[AF_SIGS];
	uint32_t tl; /* a timeline signalled at point 1 */
	uint64_t submitted;
};

static int af_op(void *arg)
{
	struct af *a = arg;

	return nvl_exec(a->k.c, a->k.chan, &a->push, 1, a->waits, 2, a->sigs,
			AF_SIGS, 0);
}

/* a failed exec queued nothing and signalled nothing */
static void af_check(int ret, void *arg)
{
	struct af *a = arg;
	struct nvl_channel_info ci;
	uint64_t pt = 99;
	int st;

	if (ret != -ENOMEM)
		fail_msg("exec under allocation failure: %d (%s), not -ENOMEM",
			 ret, nvl_last_error());
	for (unsigned i = 0; i < AF_SIGS; i++) {
		if (a->sigs[i].handle == a->tl)
			continue;
		/* a binary syncobj without a fence */
		if (nvl_syncobj_status(a->k.c, a->sigs[i].handle, 0, &st) !=
		    -ENOENT)
			fail_msg("signal %u got a fence (status %d)", i, st);
	}
	assert_int_equal(nvl_syncobj_query(a->k.c, &a->tl, &pt, 1,
					   NVL_SYNCOBJ_QUERY_LAST_SUBMITTED),
			 0);
	assert_int_equal(pt, 0);
	assert_int_equal(nvl_channel_query(a->k.c, a->k.chan, &ci), 0);
	assert_int_equal(ci.submitted, a->submitted);
	assert_int_equal(ci.alive, 1);
}

/*
 * Every allocation of nvl_exec() failing in turn (waits, more signals than
 * the stack holds, a timeline point): -ENOMEM each time with nothing
 * signalled, nothing queued and nothing leaked (ASan), then the exec runs.
 */
static void exec_alloc_failures(void **state)
{
	struct nvl_device *dev;
	struct nvl_push p;
	struct af a;
	uint64_t one = 1;
	unsigned long n;

	(void)state;
	memset(&a, 0, sizeof(a));
	assert_int_equal(nvl_device_open(NULL, NULL, &dev), 0);
	t_nv_cl_up(&a.k, dev, VA_PB, 0);
	assert_int_equal(nvl_push_init(&p, a.k.ppb, 64 * KIB), 0);
	nvl_push_host_nop(&p);
	a.push = (struct nvl_exec_push){.va = VA_PB, .len = nvl_push_bytes(&p)};
	for (unsigned i = 0; i < 2; i++)
		assert_int_equal(nvl_syncobj_create(a.k.c,
						    NVL_SYNCOBJ_CREATE_SIGNALED,
						    &a.waits[i].handle),
				 0);
	for (unsigned i = 0; i < AF_SIGS; i++)
		assert_int_equal(
			nvl_syncobj_create(a.k.c, 0, &a.sigs[i].handle), 0);
	a.tl = a.sigs[2].handle;
	a.sigs[2].point = 1;
	/* a first exec so that the job cache and the scheduler are warm */
	t_nv_cl_run(&a.k, 0, p.cur - p.start, 5 * T_NV_SEC);
	a.submitted = 1;
	n = t_fail_each_alloc(af_op, af_check, &a, 200);
	assert_true(n > 0);
	assert_int_equal(nvl_syncobj_wait(a.k.c, &a.tl, &one, 1,
					  t_nv_deadline(5 * T_NV_SEC), 0, NULL),
			 0);
	t_nv_cl_expect_alive(&a.k);
	t_nv_cl_close(&a.k);
	nvl_device_close(dev);
}

/* ---- a job parked in a semaphore acquire ---------------------------- */

#define VA_SEM (64 * MIB)

/*
 * A job whose Host SEM_EXECUTE acquire (clc46f.h OPERATION_ACQUIRE, with
 * ACQUIRE_SWITCH_TSG as the builder sets it) waits for a value nobody
 * releases makes no progress: within a few job timeouts its fence
 * signals with -ETIMEDOUT (the channel reset by the firmware, or killed),
 * as exec.h and nvl_device_opts.job_timeout_ms promise, instead of holding
 * its fence (and every eviction waiting for it) forever.
 */
static void acquire_never_satisfied_times_out(void **state)
{
	struct nvl_device_opts o = {.job_timeout_ms = 100};
	struct nvl_device *dev;
	struct nvl_exec_push ep;
	struct nvl_push p;
	struct t_nv_cl k;
	int st = 0;

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", &o, &dev), 0);
	t_nv_cl_up(&k, dev, VA_PB, 0);
	t_nv_cl_sem(&k, 64 * KIB, VA_SEM);
	k.psem[0] = 0;
	assert_int_equal(nvl_push_init(&p, k.ppb, 64 * KIB), 0);
	nvl_push_host_sem_acquire(&p, VA_SEM, 1, NVL_PUSH_ACQ_EQ);
	assert_true(nvl_push_end(&p) > 0);
	ep = (struct nvl_exec_push){.va = VA_PB, .len = nvl_push_bytes(&p)};
	assert_int_equal(nvl_exec(k.c, k.chan, &ep, 1, NULL, 0,
				  &(struct nvl_vm_sync){.handle = k.sync}, 1,
				  0),
			 0);
	/* 30 job timeouts */
	assert_int_equal(t_nv_cl_wait(&k, 3 * T_NV_SEC), 0);
	assert_int_equal(nvl_syncobj_status(k.c, k.sync, 0, &st), 0);
	assert_int_equal(st, -ETIMEDOUT);
	assert_int_equal(k.psem[0], 0);
	/* reset by the firmware: the channel takes new work */
	t_nv_cl_expect_alive(&k);
	assert_int_equal(t_nv_nop_exec(k.c, k.chan, k.ppb + 1024, VA_PB + 4096),
			 0);
	t_nv_cl_down(&k);
	nvl_device_close(dev);
}

/* ---- the GPFIFO ring wrapping --------------------------------------- */

/* an unsigned 32-bit IADD of 1 at @va: SEM_EXECUTE OPERATION_REDUCTION,
 * REDUCTION_IADD, REDUCTION_FORMAT_UNSIGNED (clc46f.h) */
static void add_one(struct nvl_push *p, uint64_t va)
{
	uint32_t s[5] = {
		(uint32_t)va,
		(uint32_t)(va >> 32),
		1,
		0,
		6u | 5u << NVL_PUSH_HOST_SEM_EXECUTE_REDUCTION_SHIFT |
			1u << NVL_PUSH_HOST_SEM_EXECUTE_REDUCTION_FORMAT_SHIFT,
	};

	nvl_push_mthd(p, 0, NVL_PUSH_HOST_SEM_ADDR_LO, s, 5);
}

#define WRAP_EXECS 150

/*
 * Many more GPFIFO entries than the ring's 256, pipelined: execs of 1 to 64
 * pushes (a job's entries wrap past the ring's end at every position), each
 * push adding 1 to a counter and to a word of its own. Every push runs
 * exactly once: none skipped or run twice where GP_PUT wraps.
 */
static void ring_wraps_in_and_across_execs(void **state)
{
	struct nvl_exec_push ep[NVL_EXEC_MAX_PUSH];
	struct nvl_vm_sync sig;
	struct nvl_channel_info ci;
	struct nvl_device *dev;
	struct nvl_push p;
	struct t_nv_cl k;
	uint32_t want[1 + NVL_EXEC_MAX_PUSH] = {0};

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", NULL, &dev), 0);
	t_nv_cl_up(&k, dev, VA_PB, 0);
	t_nv_cl_sem(&k, 64 * KIB, VA_SEM);
	memset(k.psem, 0, 4 * (1 + NVL_EXEC_MAX_PUSH));
	for (unsigned j = 0; j < NVL_EXEC_MAX_PUSH; j++) {
		assert_int_equal(nvl_push_init(&p, k.ppb + j * 64, 256), 0);
		add_one(&p, VA_SEM);
		add_one(&p, VA_SEM + 4 * (1 + j));
		assert_true(nvl_push_end(&p) > 0);
		ep[j] = (struct nvl_exec_push){
			.va = VA_PB + j * 256,
			.len = nvl_push_bytes(&p),
			.flags = j % 3 ? 0 : NVL_EXEC_PUSH_NO_PREFETCH};
	}
	sig = (struct nvl_vm_sync){.handle = k.sync};
	for (unsigned i = 0; i < WRAP_EXECS; i++) {
		unsigned n = 1 + (i * 37) % NVL_EXEC_MAX_PUSH;

		assert_int_equal(
			nvl_exec(k.c, k.chan, ep, n, NULL, 0, &sig, 1, 0), 0);
		want[0] += n;
		for (unsigned j = 0; j < n; j++)
			want[1 + j]++;
	}
	assert_int_equal(t_nv_cl_wait(&k, 10 * T_NV_SEC), 0);
	for (unsigned j = 0; j <= NVL_EXEC_MAX_PUSH; j++)
		if (k.psem[j] != want[j])
			fail_msg("word %u is %u, not %u", j, k.psem[j],
				 want[j]);
	assert_int_equal(nvl_channel_query(k.c, k.chan, &ci), 0);
	assert_int_equal(ci.alive, 1);
	assert_int_equal(ci.submitted, WRAP_EXECS);
	assert_int_equal(ci.completed, WRAP_EXECS);
	t_nv_cl_close(&k);
	nvl_device_close(dev);
}

/* ---- GPFIFO entries: lengths and faults ------------------------------ */

/*
 * The GPFIFO entry the driver writes, against clc46f.h/clc86f.h: GP_ENTRY0
 * GET 31:2 (FETCH 0:0 unconditional), GP_ENTRY1 GET_HI 7:0, LEVEL 9:9
 * (MAIN), LENGTH 30:10 in dwords, SYNC 31:31 (WAIT: exec's NO_PREFETCH).
 */
static void gp_entry_fields(void **state)
{
	uint64_t e = nvl_hw_gp_entry(0xab12345678ull, 0x1fffff, 1);

	(void)state;
	assert_int_equal((uint32_t)e, 0x12345678u);
	assert_int_equal((uint32_t)(e >> 32),
			 0xab | 0x1fffffu << 10 | 1u << 31);
	e = nvl_hw_gp_entry(0xff00000004ull, 1, 0);
	assert_int_equal((uint32_t)e, 4);
	assert_int_equal((uint32_t)(e >> 32), 0xff | 1u << 10);
	/* the PB address is dword aligned: GET holds bits 31:2 only */
	assert_int_equal((uint32_t)nvl_hw_gp_entry(0x1003, 1, 0), 0x1000);
}

#define BIG_PB (8 * MIB)
#define VA_BIG (256 * MIB)

/*
 * The longest push exec takes, 8 MiB - 4 (GP_ENTRY1 LENGTH 30:10 all
 * ones), runs to its last dword (a semaphore release after 2 M NOP
 * dwords); 4 bytes more are refused.
 */
static void longest_push(void **state)
{
	struct nvl_device *dev;
	struct nvl_exec_push ep;
	struct nvl_push p;
	struct t_nv_cl k;
	uint32_t hb, *big;
	const uint32_t len = 0x1fffffu * 4;

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", NULL, &dev), 0);
	t_nv_cl_up(&k, dev, VA_PB, 0);
	t_nv_cl_sem(&k, 64 * KIB, VA_SEM);
	k.psem[0] = 0;
	hb = t_nv_cl_bo(&k, BIG_PB, NVL_BO_DOMAIN_VRAM, VA_BIG, (void **)&big);
	memset(big, 0, BIG_PB); /* the universal NOP */
	assert_int_equal(nvl_push_init(&p, big + len / 4 - 6, 24), 0);
	nvl_push_host_sem_release(&p, VA_SEM, 0x600dbeefu, 0);
	assert_int_equal(nvl_push_end(&p), 6);
	ep = (struct nvl_exec_push){.va = VA_BIG, .len = len + 4};
	assert_int_equal(nvl_exec(k.c, k.chan, &ep, 1, NULL, 0, NULL, 0, 0),
			 -EINVAL);
	ep.len = len;
	assert_int_equal(nvl_exec(k.c, k.chan, &ep, 1, NULL, 0,
				  &(struct nvl_vm_sync){.handle = k.sync}, 1,
				  0),
			 0);
	assert_int_equal(t_nv_cl_wait(&k, 10 * T_NV_SEC), 0);
	assert_int_equal(k.psem[0], 0x600dbeefu);
	t_nv_cl_expect_alive(&k);
	assert_int_equal(nvl_bo_unmap(k.c, hb), 0);
	t_nv_cl_close(&k);
	nvl_device_close(dev);
}

/*
 * A push that starts in the pushbuffer BO and runs past its end into VA
 * nothing maps: the fetch faults (Xid 31, a READ by Host at the first
 * unmapped page), the job fails with -EFAULT and the process lives.
 */
static void push_straddles_bo_end(void **state)
{
	struct nvl_device *dev;
	struct nvl_channel_info ci;
	struct nvl_exec_push ep;
	struct t_nv_cl k;
	int st = 0;

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", NULL, &dev), 0);
	t_nv_cl_up(&k, dev, VA_PB, 0);
	memset(k.ppb, 0, T_NV_PB_SIZE);
	ep = (struct nvl_exec_push){.va = VA_PB + T_NV_PB_SIZE - 16, .len = 64};
	assert_int_equal(nvl_exec(k.c, k.chan, &ep, 1, NULL, 0,
				  &(struct nvl_vm_sync){.handle = k.sync}, 1,
				  0),
			 0);
	assert_int_equal(t_nv_cl_wait(&k, 5 * T_NV_SEC), 0);
	assert_int_equal(nvl_syncobj_status(k.c, k.sync, 0, &st), 0);
	assert_int_equal(st, -EFAULT);
	assert_int_equal(nvl_channel_query(k.c, k.chan, &ci), 0);
	assert_int_equal(ci.alive, 0);
	assert_int_equal(ci.reason, NVL_CHANNEL_MMU_FAULT);
	assert_int_equal(ci.hw_error, 31);
	assert_int_equal(ci.fault_access, 0); /* READ */
	assert_int_equal(ci.fault_va, VA_PB + T_NV_PB_SIZE);
	t_nv_cl_close(&k);
	nvl_device_close(dev);
}

/* ---- the device's channel limits ----------------------------------- */

/*
 * Channels until the device has no more (tiny: 64 hardware channel ids,
 * one the driver's own): the failure is a clean -ENOSPC or RM's error,
 * and it leaks nothing: a channel destroyed makes room for exactly one.
 */
static void device_channel_limit(void **state)
{
	struct nvl_device *dev;
	struct nvl_client *c[3];
	uint32_t vm[3], h[3][64], n[3] = {0}, extra;
	int ret = 0;

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", NULL, &dev), 0);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(nvl_device_client_create(dev, &c[i]), 0);
		vm[i] = t_nv_vm(c[i]);
	}
	for (unsigned i = 0; i < 3 && !ret; i++)
		while (n[i] < 64 &&
		       !(ret = nvl_channel_create(c[i], vm[i], NVL_ENGINE_COPY,
						  0, &h[i][n[i]])))
			n[i]++;
	if (ret != -ENOSPC)
		fail_msg("out of channels: %d (%s), not -ENOSPC", ret,
			 nvl_last_error());
	/* again, from the client that still has room */
	assert_int_equal(
		nvl_channel_create(c[2], vm[2], NVL_ENGINE_COPY, 0, &extra),
		-ENOSPC);
	assert_int_equal(nvl_channel_destroy(c[0], h[0][--n[0]]), 0);
	assert_int_equal(
		nvl_channel_create(c[2], vm[2], NVL_ENGINE_COPY, 0, &extra), 0);
	assert_int_equal(
		nvl_channel_create(c[2], vm[2], NVL_ENGINE_COPY, 0, &h[2][0]),
		-ENOSPC);
	for (unsigned i = 0; i < 3; i++)
		nvl_client_destroy(c[i]);
	nvl_device_close(dev);
}

/* ---- a channel on a VM destroyed underneath ------------------------- */

#define VA_A (16 * MIB)
#define VA_B (32 * MIB)
#define UBUF (256 * KIB)

/*
 * The VM's handle is destroyed while a channel in it lives on, then the
 * BOs that were bound in it: their VRAM goes to another client (filled
 * with a secret). A fill at the old VA and a copy from it through the
 * surviving channel must neither change nor reveal the other client's
 * memory: the VM's mappings went with its handle (vm.h), so the channel
 * faults or the exec is refused.
 */
static void channel_outlives_its_vm(void **state)
{
	struct nvl_device *dev;
	struct nvl_client *b;
	struct nvl_push p;
	struct t_nv_cl k;
	struct nvl_exec_push ep;
	uint32_t ha, hb, hs[8], *ps[8], *pb_b;
	int ret;

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", NULL, &dev), 0);
	t_nv_cl_up(&k, dev, VA_PB, 0);
	ha = t_nv_cl_bo(&k, UBUF, NVL_BO_DOMAIN_VRAM, VA_A, NULL);
	hb = t_nv_cl_bo(&k, UBUF, NVL_BO_DOMAIN_VRAM, VA_B, (void **)&pb_b);
	memset(pb_b, 0, UBUF);
	assert_int_equal(nvl_vm_destroy(k.c, k.vm), 0);
	assert_int_equal(nvl_bo_close(k.c, ha), 0);
	/* another client takes the VRAM: a secret in every BO */
	assert_int_equal(nvl_device_client_create(dev, &b), 0);
	for (unsigned i = 0; i < 8; i++) {
		assert_int_equal(nvl_bo_create(b, UBUF, NVL_BO_DOMAIN_VRAM, 0,
					       NVL_BO_CPU_VISIBLE, &hs[i]),
				 0);
		assert_int_equal(nvl_bo_map(b, hs[i], (void **)&ps[i]), 0);
		for (size_t w = 0; w < UBUF / 4; w++)
			ps[i][w] = 0x5ec7e700u + i;
	}
	/* a fill of A's old VA, then a copy from it into B */
	assert_int_equal(nvl_push_init(&p, k.ppb, 64 * KIB), 0);
	nvl_push_ce_set_object(&p, 0, k.info.ce_class);
	nvl_push_ce_fill(&p, 0, VA_A, 0xbad0bad0u, UBUF);
	assert_true(nvl_push_end(&p) > 0);
	ep = (struct nvl_exec_push){.va = VA_PB, .len = nvl_push_bytes(&p)};
	ret = nvl_exec(k.c, k.chan, &ep, 1, NULL, 0,
		       &(struct nvl_vm_sync){.handle = k.sync}, 1, 0);
	if (!ret)
		assert_int_equal(t_nv_cl_wait(&k, 5 * T_NV_SEC), 0);
	assert_int_equal(nvl_push_init(&p, k.ppb + 1024, 60 * KIB), 0);
	nvl_push_ce_set_object(&p, 0, k.info.ce_class);
	nvl_push_ce_copy(&p, 0, VA_B, VA_A, UBUF);
	assert_true(nvl_push_end(&p) > 0);
	ep = (struct nvl_exec_push){.va = VA_PB + 4096,
				    .len = nvl_push_bytes(&p)};
	ret = nvl_exec(k.c, k.chan, &ep, 1, NULL, 0,
		       &(struct nvl_vm_sync){.handle = k.sync}, 1, 0);
	if (!ret)
		assert_int_equal(t_nv_cl_wait(&k, 5 * T_NV_SEC), 0);
	for (unsigned i = 0; i < 8; i++)
		for (size_t w = 0; w < UBUF / 4; w++)
			if (ps[i][w] != 0x5ec7e700u + i)
				fail_msg("the other client's BO %u word %zu "
					 "is %#x",
					 i, w, ps[i][w]);
	for (size_t w = 0; w < UBUF / 4; w++)
		if ((pb_b[w] & 0xffffff00u) == 0x5ec7e700u)
			fail_msg("word %zu of B holds the other client's %#x",
				 w, pb_b[w]);
	for (unsigned i = 0; i < 8; i++)
		assert_int_equal(nvl_bo_unmap(b, hs[i]), 0);
	nvl_client_destroy(b);
	assert_int_equal(nvl_bo_unmap(k.c, hb), 0);
	t_nv_cl_down(&k);
	nvl_device_close(dev);
}

/* ---- nvl_channel_query() of a channel the device's loss killed ------- */

/*
 * A channel killed because its device was lost (the GSP stopped answering:
 * heartbeat) is not alive, its error is -ENODEV, and its reason must say it
 * was killed: enum nvl_channel_reason's NVL_CHANNEL_ALIVE means "not
 * killed".
 */
static void query_after_device_lost(void **state)
{
	struct nvl_device_opts o = {.heartbeat_ms = 20};
	struct nvl_channel_info ci;
	struct nvl_device *dev;
	struct t_nv_cl k;

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", &o, &dev), 0);
	t_nv_cl_up(&k, dev, VA_PB, 0);
	nvl_model_gsp_inject(dev->model, NVL_MODEL_GSP_HANG, 1, 0);
	for (int i = 0; i < 2000 && nvl_device_status(dev) != -ENODEV; i++)
		usleep(5000);
	assert_int_equal(nvl_device_status(dev), -ENODEV);
	assert_int_equal(nvl_channel_query(k.c, k.chan, &ci), 0);
	assert_int_equal(ci.alive, 0);
	assert_int_equal(ci.error, -ENODEV);
	assert_int_equal(ci.reason, NVL_CHANNEL_DEVICE_LOST);
	assert_int_equal(t_nv_nop_exec(k.c, k.chan, k.ppb, VA_PB), -ENODEV);
	t_nv_cl_down(&k);
	nvl_device_close(dev);
}

/*
 * The window inside nvl_nv_device_lost(): the device is published lost
 * (nvl_device_status() says -ENODEV) before its channels are killed one by
 * one; a query there must already say the channel is dead (seen failing in
 * a clean-clone ThreadSanitizer run of query_after_device_lost: alive 1).
 * The window is held open by publishing the flag alone.
 */
static void query_in_the_device_lost_window(void **state)
{
	struct nvl_channel_info ci;
	struct nvl_device *dev;
	struct t_nv_cl k;

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", NULL, &dev), 0);
	t_nv_cl_up(&k, dev, VA_PB, 0);
	atomic_store(&dev->nv->lost, true);
	assert_int_equal(nvl_device_status(dev), -ENODEV);
	assert_int_equal(nvl_channel_query(k.c, k.chan, &ci), 0);
	atomic_store(&dev->nv->lost, false);
	assert_int_equal(ci.alive, 0);
	assert_int_equal(ci.error, -ENODEV);
	assert_int_equal(ci.reason, NVL_CHANNEL_DEVICE_LOST);
	/* not lost after all: the channel was never killed */
	assert_int_equal(nvl_channel_query(k.c, k.chan, &ci), 0);
	assert_int_equal(ci.alive, 1);
	assert_int_equal(t_nv_nop_exec(k.c, k.chan, k.ppb, VA_PB), 0);
	t_nv_cl_down(&k);
	nvl_device_close(dev);
}

/* ---- the builder's bad arguments ------------------------------------- */

/*
 * push.h: a bad argument fails the call (-EINVAL) and writes nothing.
 * Unknown flag bits of nvl_push_host_sem_release() (only 64BIT and
 * NO_WFI exist), and a class that does not fit SET_OBJECT NVCLASS 15:0
 * (clc46f.h; 16:20 is ENGINE) are bad arguments, not silently dropped.
 */
static void builder_unknown_bits(void **state)
{
	uint32_t buf[16];
	struct nvl_push p;

	(void)state;
	for (unsigned i = 0; i < 16; i++)
		buf[i] = 0xdeadbeef;
	assert_int_equal(nvl_push_init(&p, buf, 64), 0);
	assert_int_equal(nvl_push_host_sem_release(&p, 0x1000, 1, 1u << 7),
			 -EINVAL);
	assert_int_equal(nvl_push_init(&p, buf, 64), 0);
	assert_int_equal(nvl_push_ce_set_object(&p, 0, 0x1c5b5), -EINVAL);
	assert_int_equal(buf[0], 0xdeadbeef);
	/* the known ones still work */
	assert_int_equal(nvl_push_init(&p, buf, 64), 0);
	assert_int_equal(nvl_push_host_sem_release(&p, 0x1000, 1,
						   NVL_PUSH_SEM_64BIT |
							   NVL_PUSH_SEM_NO_WFI),
			 0);
	assert_int_equal(nvl_push_ce_set_object(&p, 0, 0xc5b5), 0);
}

/* ---- a rejected exec with many syncobjs ------------------------------ */

/*
 * exec.h: everything is checked before anything is queued; a rejected
 * exec signals nothing. With more signals than exec keeps on its stack,
 * the last one bad (unknown handle, or flags), and with 65 waits or
 * signals: the error, no syncobj given a fence, nothing queued or leaked.
 */
static void rejected_exec_many_syncobjs(void **state)
{
	struct nvl_vm_sync sigs[65], waits[65];
	struct nvl_channel_info ci;
	struct nvl_device *dev;
	struct nvl_exec_push ep;
	struct nvl_push p;
	struct t_nv_cl k;
	uint32_t h5;
	int st;

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", NULL, &dev), 0);
	t_nv_cl_up(&k, dev, VA_PB, 0);
	assert_int_equal(nvl_push_init(&p, k.ppb, 64 * KIB), 0);
	nvl_push_host_nop(&p);
	ep = (struct nvl_exec_push){.va = VA_PB, .len = nvl_push_bytes(&p)};
	memset(sigs, 0, sizeof(sigs));
	memset(waits, 0, sizeof(waits));
	for (unsigned i = 0; i < 65; i++) {
		assert_int_equal(nvl_syncobj_create(k.c, 0, &sigs[i].handle),
				 0);
		assert_int_equal(nvl_syncobj_create(k.c,
						    NVL_SYNCOBJ_CREATE_SIGNALED,
						    &waits[i].handle),
				 0);
		sigs[i].point = i % 2; /* binary and timeline points */
	}
	h5 = sigs[5].handle;
	sigs[5].handle = 9999;
	assert_int_equal(nvl_exec(k.c, k.chan, &ep, 1, waits, 2, sigs, 6, 0),
			 -ENOENT);
	sigs[5].handle = h5;
	sigs[5].flags = 1;
	assert_int_equal(nvl_exec(k.c, k.chan, &ep, 1, waits, 2, sigs, 6, 0),
			 -EINVAL);
	sigs[5].flags = 0;
	waits[1].flags = 1;
	assert_int_equal(nvl_exec(k.c, k.chan, &ep, 1, waits, 2, sigs, 6, 0),
			 -EINVAL);
	waits[1].flags = 0;
	assert_int_equal(nvl_exec(k.c, k.chan, &ep, 1, waits, 65, sigs, 6, 0),
			 -EINVAL);
	assert_int_equal(nvl_exec(k.c, k.chan, &ep, 1, waits, 2, sigs, 65, 0),
			 -EINVAL);
	for (unsigned i = 0; i < 65; i++)
		if (nvl_syncobj_status(k.c, sigs[i].handle, sigs[i].point,
				       &st) != -ENOENT)
			fail_msg("signal %u got a fence (%d)", i, st);
	assert_int_equal(nvl_channel_query(k.c, k.chan, &ci), 0);
	assert_int_equal(ci.submitted, 0);
	/* and the same exec, corrected, signals all of them */
	assert_int_equal(nvl_exec(k.c, k.chan, &ep, 1, waits, 64, sigs, 64, 0),
			 0);
	assert_int_equal(t_nv_cl_wait(&k, 0), -EINVAL); /* not one of them */
	for (unsigned i = 0; i < 64; i++) {
		uint64_t pt = sigs[i].point;

		if (nvl_syncobj_wait(k.c, &sigs[i].handle, pt ? &pt : NULL, 1,
				     t_nv_deadline(5 * T_NV_SEC), 0, NULL))
			fail_msg("signal %u: %s", i, nvl_last_error());
	}
	t_nv_cl_close(&k);
	nvl_device_close(dev);
}

/* ---- a forged fence seqno: the memory stays out of reach --------------- */

#define FORGED_SEQ 0x40000000u
#define VA_R (160 * MIB)
#define VA_X (192 * MIB)
#define DRIVER_VRAM (32 * MIB)
#define R_MARK 0xdeadbeefu
#define X_WORD 0x600dda7au

/*
 * The job of @k's channel releases FORGED_SEQ at the fence semaphore of
 * channel slot @slot (kernel_start + 64 KiB x slot + 0x800), raises
 * NON_STALL_INTERRUPT, parks on the gate at VA_SEM, then runs the @ndw
 * dwords at @more. Return: true when the job was reported done at once
 * and the channel lives (the slot was its own: the fence forged); false
 * when the channel faulted (another slot is not mapped in its VM).
 */
static bool forge(struct t_nv_cl *k, unsigned slot, const uint32_t *more,
		  uint32_t ndw)
{
	uint64_t fence_va = T_NV_KSTART + slot * 64 * KIB + 0x800;
	struct nvl_channel_info ci;
	uint32_t n;
	int st = 0;

	n = nvl_kit_pb_release(k->ppb, fence_va, FORGED_SEQ);
	n += nvl_kit_pb_acquire(k->ppb + n, VA_SEM, 1);
	if (ndw)
		memcpy(k->ppb + n, more, ndw * 4);
	assert_int_equal(t_nv_cl_exec(k, k->chan, 0, n + ndw), 0);
	(void)t_nv_cl_wait(k, T_NV_SEC);
	assert_int_equal(nvl_channel_query(k->c, k->chan, &ci), 0);
	return ci.alive && !nvl_syncobj_status(k->c, k->sync, 0, &st) &&
	       st == 1;
}

/*
 * The channel slot the next channel made on @dev gets (the lowest free):
 * each guess is tried by a throw-away client whose job forges there.
 */
static unsigned next_slot(struct nvl_device *dev)
{
	for (unsigned slot = 0; slot < 8; slot++) {
		struct t_nv_cl t;
		bool mine;

		t_nv_cl_up(&t, dev, VA_PB, 0);
		t_nv_cl_sem(&t, 4 * KIB, VA_SEM);
		t.psem[0] = 0;
		mine = forge(&t, slot, NULL, 0);
		/* let a parked job end before its channel goes */
		atomic_store_explicit((_Atomic uint32_t *)&t.psem[0], 1,
				      memory_order_release);
		usleep(20 * 1000);
		t_nv_cl_close(&t);
		if (mine)
			return slot;
	}
	fail_msg("no channel slot took the forged seqno");
	return 0;
}

/*
 * A forged fence seqno (docs/driver.md, "A fence a client forges"): the
 * channel's fence semaphore is mapped writable in the client's own VM (as
 * Nouveau's), so a push can release any seqno there and raise
 * NON_STALL_INTERRUPT: its job's fence signals before the job ran. What
 * trusts that fence must still not hand the job's memory to anyone else:
 * here client A's job, parked on a gate, reads X (VRAM) through its VM
 * after B's allocation evicted X (every fence on X and A's VM says done)
 * and took X's VRAM (cleared for B). Before, the eviction left A's
 * page-table entries on that VRAM and the job copied B's zeros into R
 * (3 of 3 runs). Now the memory a BO leaves is unmapped from every VM
 * (nvl_gem_unmap_fn) before it is used again: the job faults in A's VM,
 * A's channel dies (MMU fault in X), R keeps its mark, X's bytes moved
 * intact, and A's next job maps X where it is.
 */
static void forged_fence_seqno(void **state)
{
	struct nvl_device_opts o = {.vram_size = 256 * MIB};
	uint32_t x, r, big, copy[32], ncopy, ch2, *px, *pr;
	struct nvl_channel_info ci;
	struct nvl_device *dev;
	struct nvl_client *b;
	struct nvl_bo_info bi;
	struct t_nv_cl a;
	unsigned slot;
	int64_t dl;

	(void)state;
	assert_int_equal(nvl_device_open("model:tu102", &o, &dev), 0);
	slot = next_slot(dev);
	t_nv_cl_up(&a, dev, VA_PB, 0);
	t_nv_cl_sem(&a, 4 * KIB, VA_SEM);
	a.psem[0] = 0;
	assert_int_equal(nvl_device_client_create(dev, &b), 0);
	r = t_nv_cl_bo(&a, MIB, NVL_BO_DOMAIN_GTT, VA_R, (void **)&pr);
	for (unsigned i = 0; i < MIB / 4; i++)
		pr[i] = R_MARK;
	assert_int_equal(nvl_bo_unmap(a.c, r), 0);
	x = t_nv_cl_bo(&a, 8 * MIB, NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
		       VA_X, (void **)&px);
	for (unsigned i = 0; i < MIB / 4; i++)
		px[i] = X_WORD;
	assert_int_equal(nvl_bo_unmap(a.c, x), 0);
	assert_int_equal(nvl_bo_use(a.c, x), 0);
	assert_int_equal(nvl_bo_query(a.c, x, &bi), 0);
	assert_int_equal(bi.current, NVL_BO_DOMAIN_VRAM);
	/* the forger: its job says done, parks, then copies X to R */
	ncopy = nvl_kit_pb_copy(copy, a.info.ce_class, VA_R, VA_X, MIB);
	assert_true(ncopy <= NVL_ARRAY_SIZE(copy));
	if (!forge(&a, slot, copy, ncopy))
		fail_msg("slot %u did not take the forged seqno", slot);
	/* B's pressure evicts X, and B's new BO is cleared in X's VRAM */
	assert_int_equal(
		nvl_bo_create(b, a.info.vram_usable - DRIVER_VRAM - 4 * MIB,
			      NVL_BO_DOMAIN_VRAM, 0, 0, &big),
		0);
	assert_int_equal(nvl_bo_query(a.c, x, &bi), 0);
	assert_int_not_equal(bi.current, NVL_BO_DOMAIN_VRAM);
	assert_int_equal(nvl_bo_wait(b, big, 5 * T_NV_SEC), 0);
	/* open the gate: the job copies from VA_X */
	atomic_store_explicit((_Atomic uint32_t *)&a.psem[0], 1,
			      memory_order_release);
	dl = t_nv_deadline(5 * T_NV_SEC);
	do {
		assert_int_equal(nvl_channel_query(a.c, a.chan, &ci), 0);
		if (!ci.alive)
			break;
		usleep(1000);
	} while (t_nv_now() < dl);
	t_nv_expect_words(a.c, r, 0, MIB / 4, R_MARK,
			  "R after the forger's copy from X");
	assert_int_equal(ci.alive, 0);
	assert_int_equal(ci.reason, NVL_CHANNEL_MMU_FAULT);
	assert_true(ci.fault_va >= VA_X && ci.fault_va < VA_X + 8 * MIB);
	/* X's bytes went with it; the client's next job maps X anew */
	t_nv_expect_words(a.c, x, 0, MIB / 4, X_WORD, "X after its move");
	assert_int_equal(
		nvl_channel_create(a.c, a.vm, NVL_ENGINE_COPY, 0, &ch2), 0);
	memcpy(a.ppb, copy, ncopy * 4);
	assert_int_equal(t_nv_cl_exec(&a, ch2, 0, ncopy), 0);
	assert_int_equal(t_nv_cl_wait(&a, 5 * T_NV_SEC), 0);
	t_nv_expect_words(a.c, r, 0, MIB / 4, X_WORD, "R copied from X");
	nvl_client_destroy(b);
	t_nv_cl_down(&a);
	nvl_device_close(dev);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exec_alloc_failures),
		cmocka_unit_test(acquire_never_satisfied_times_out),
		cmocka_unit_test(device_channel_limit),
		cmocka_unit_test(ring_wraps_in_and_across_execs),
		cmocka_unit_test(channel_outlives_its_vm),
		cmocka_unit_test(gp_entry_fields),
		cmocka_unit_test(longest_push),
		cmocka_unit_test(push_straddles_bo_end),
		cmocka_unit_test(query_after_device_lost),
		cmocka_unit_test(query_in_the_device_lost_window),
		cmocka_unit_test(builder_unknown_bits),
		cmocka_unit_test(rejected_exec_many_syncobjs),
		cmocka_unit_test(forged_fence_seqno),
	};

	return t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
}

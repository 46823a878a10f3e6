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
#include <string.h>
#include <time.h>

#include <nouvelle/nouvelle.h>
#include <nouvelle/push.h>

#include "t.h"
#include "t_nv.h"

#define KIB T_NV_KIB
#define MIB T_NV_MIB
#define VA_LOW (16 * MIB)
#define VA_PB (48 * MIB)

/*
 * Run one Host NOP push at @va (written through @pb) on @chan: nvl_exec()'s
 * result, or -ETIMEDOUT when its fence does not signal within 2 s; when
 * the job ran, the channel must still live.
 */
static int nop_exec(struct nvl_client *c, uint32_t chan, uint32_t *pb,
		    uint64_t va)
{
	struct nvl_exec_push ep = {.va = va};
	struct nvl_vm_sync sig = {0};
	struct nvl_channel_info ci;
	struct nvl_push p;
	int ret;

	assert_int_equal(nvl_push_init(&p, pb, 64 * KIB), 0);
	nvl_push_host_nop(&p);
	assert_true(nvl_push_end(&p) > 0);
	ep.len = nvl_push_bytes(&p);
	assert_int_equal(nvl_syncobj_create(c, 0, &sig.handle), 0);
	ret = nvl_exec(c, chan, &ep, 1, NULL, 0, &sig, 1, 0);
	if (!ret) {
		ret = nvl_syncobj_wait(c, &sig.handle, NULL, 1,
				       t_nv_deadline(2 * T_NV_SEC), 0, NULL);
		if (!ret) {
			assert_int_equal(nvl_channel_query(c, chan, &ci), 0);
			assert_int_equal(ci.alive, 1);
		}
	}
	nvl_syncobj_destroy(c, sig.handle);
	return ret;
}

/*
 * Hopper too: a GPFIFO entry carries VA bits 39:0 only (clc86f.h
 * NVC86F_GP_ENTRY1_GET_HI 7:0, as in every earlier Host class; a higher
 * segment needs a SET_PB_SEGMENT_EXTENDED_BASE control entry first), so a
 * channel whose driver range lies past 2^40 has its fence idiom fetched
 * (and, with SEM_ADDR_HI written 8 bits wide, its seqno released) at the
 * aliased address below 2^40: here the client's own BO. Either the
 * channel is refused or an exec works and the BO is untouched.
 */
static void hopper_high_kernel_range(void **state)
{
	struct nvl_vm_create_args va = {.start = 1 * MIB,
					.end = 1ull << 42,
					.kernel_start = (1ull << 40) + VA_LOW,
					.kernel_range = T_NV_KRANGE};
	struct nvl_device *dev;
	struct nvl_client *c;
	uint32_t vm, chan, hb, hpb, *pb;
	uint8_t *b;
	int ret;

	(void)state;
	assert_int_equal(nvl_device_open("model:gh100", NULL, &dev), 0);
	assert_int_equal(nvl_device_client_create(dev, &c), 0);
	assert_int_equal(nvl_vm_create(c, &va, &vm), 0);
	/* the BO sits where the aliased channel slot would be */
	hb = t_nv_vram_bo(c, vm, 2 * MIB, VA_LOW, (void **)&b);
	hpb = t_nv_vram_bo(c, vm, 64 * KIB, VA_PB, (void **)&pb);
	memset(b, 0x5a, 2 * MIB);
	ret = nvl_channel_create(c, vm, NVL_ENGINE_COPY, 0, &chan);
	if (!ret) {
		assert_int_equal(nop_exec(c, chan, pb, VA_PB), 0);
		assert_int_equal(nvl_channel_destroy(c, chan), 0);
	} else {
		assert_int_equal(ret, -EINVAL);
	}
	for (size_t i = 0; i < 2 * MIB; i++)
		if (b[i] != 0x5a)
			fail_msg("byte %#zx of the client's BO is %#x", i,
				 b[i]);
	assert_int_equal(nvl_bo_unmap(c, hb), 0);
	assert_int_equal(nvl_bo_unmap(c, hpb), 0);
	nvl_client_destroy(c);
	nvl_device_close(dev);
}

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
	t_nv_cl_down(&k);
	nvl_device_close(dev);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hopper_high_kernel_range),
		cmocka_unit_test(exec_alloc_failures),
		cmocka_unit_test(acquire_never_satisfied_times_out),
	};

	return t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
}

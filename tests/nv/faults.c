// SPDX-License-Identifier: MIT
/*
 * TEST: non-replayable MMU faults and robust-channel recovery through the
 * GSP (issue 16, docs/faults.md), end to end through the public headers.
 * RM in the model's firmware owns the interrupts: it copies fault entries
 * into the driver's shadow buffer (MMU_FAULT_QUEUED) and reports channel
 * errors with RC_TRIGGERED (an Xid). Each fault type the copy engine and
 * the PBDMA can raise kills only its channel, with the entry's FAULT_TYPE
 * and ACCESS_TYPE (dev_fault: PDE 0, RO_VIOLATION 6; READ 0, WRITE 1) and its 4 KiB-aligned VA; the faulting job's fence
 * carries -EFAULT and the jobs queued behind it -ECANCELED; another client
 * and a new channel of the same client go on. A bad method, and a copy
 * address past the copy class's 49 bits, are Xid 32.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include <nouvelle/nouvelle.h>

#include "base/log.h"
#include "core/device.h"
#include "firmware/abi/535.113.01/gsp.h"
#include "gsp/gsp.h"
#include "model/gsp/gsp.h"
#include "nv/chan.h"
#include "nv/device.h"

#include "hold.h"
#include "kit.h"
#include "t.h"
#include "t_nv.h"

#define KIB (1ull << 10)
#define MIB (1ull << 20)
#define VA_DST (32 * MIB)
#define VA_RO (40 * MIB)
#define VA_PB (48 * MIB)
#define VA_NA (56 * MIB) /* mapped NO_ATOMIC */
#define VA_HOLE (80 * MIB) /* never bound */
#define GATE 0xf00 /* in the dst BO: job 0 waits for the CPU to write 1 */
#define KSTART (1ull << 39)
#define KRANGE (16 * MIB)
#define WAIT_NS 5000000000ll

/* the firmware version to boot (NULL: the newest, 570.144 on tiny) */
static const char *fw;

struct cl {
	struct nvl_client *c;
	uint32_t vm, pb, dst, ro, na, chan;
	uint32_t sync[3];
	uint32_t *ppb;
	uint8_t *pdst;
	uint32_t ce_class;
};

static uint32_t bo_at(struct cl *k, uint64_t size, uint64_t va, uint32_t flags,
		      void **cpu)
{
	return t_nv_bo(k->c, k->vm, size, NVL_BO_DOMAIN_VRAM,
		       NVL_BO_CPU_VISIBLE, va, flags, cpu);
}

static void cl_up(struct nvl_device *dev, struct cl *k)
{
	struct nvl_vm_create_args va = {.start = 1 * MIB,
					.end = 1ull << 40,
					.kernel_start = KSTART,
					.kernel_range = KRANGE};
	struct nvl_device_info in;
	void *ro, *na;

	memset(k, 0, sizeof(*k));
	assert_int_equal(nvl_device_query(dev, &in), 0);
	k->ce_class = in.ce_class;
	assert_int_equal(nvl_device_client_create(dev, &k->c), 0);
	assert_int_equal(nvl_vm_create(k->c, &va, &k->vm), 0);
	k->pb = bo_at(k, 64 * KIB, VA_PB, 0, (void **)&k->ppb);
	k->dst = bo_at(k, 64 * KIB, VA_DST, 0, (void **)&k->pdst);
	k->ro = bo_at(k, 64 * KIB, VA_RO, NVL_VM_BIND_READONLY, &ro);
	k->na = bo_at(k, 64 * KIB, VA_NA, NVL_VM_BIND_NO_ATOMIC, &na);
	assert_int_equal(
		nvl_channel_create(k->c, k->vm, NVL_ENGINE_COPY, 0, &k->chan),
		0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(nvl_syncobj_create(k->c, 0, &k->sync[i]), 0);
}

static void cl_down(struct cl *k)
{
	assert_int_equal(nvl_bo_unmap(k->c, k->pb), 0);
	assert_int_equal(nvl_bo_unmap(k->c, k->dst), 0);
	assert_int_equal(nvl_bo_unmap(k->c, k->ro), 0);
	assert_int_equal(nvl_bo_unmap(k->c, k->na), 0);
	nvl_client_destroy(k->c);
}

/* exec @len bytes at push VA @va on @chan, signalling sync[@s] */
static void exec_on(struct cl *k, uint32_t chan, uint64_t va, uint32_t len,
		    int s)
{
	struct nvl_exec_push p = {.va = va, .len = len};
	struct nvl_vm_sync sig = {.handle = k->sync[s]};

	assert_int_equal(nvl_syncobj_reset(k->c, &k->sync[s], 1), 0);
	assert_int_equal(nvl_exec(k->c, chan, &p, 1, NULL, 0, &sig, 1, 0), 0);
}

static int wait_status(struct cl *k, int s)
{
	int st = 0;

	assert_int_equal(nvl_syncobj_wait(k->c, &k->sync[s], NULL, 1,
					  t_nv_deadline(WAIT_NS), 0, NULL),
			 0);
	assert_int_equal(nvl_syncobj_status(k->c, k->sync[s], 0, &st), 0);
	return st;
}

/* a fill of 4 KiB at @dst with dword @v, at push offset @off (dwords) */
static uint32_t fill(struct cl *k, uint32_t off, uint64_t dst, uint32_t v)
{
	return nvl_kit_pb_memset(k->ppb + off, k->ce_class, dst, v, 4096) * 4;
}

static void expect_alive_and_working(struct cl *k, uint32_t chan)
{
	struct nvl_channel_info ci;
	uint32_t len = fill(k, 1024, VA_DST, 0x5a);

	assert_int_equal(nvl_channel_query(k->c, chan, &ci), 0);
	assert_int_equal(ci.alive, 1);
	assert_int_equal(ci.reason, NVL_CHANNEL_ALIVE);
	exec_on(k, chan, VA_PB + 4096, len, 2);
	assert_int_equal(wait_status(k, 2), 1);
	assert_int_equal(((uint32_t *)k->pdst)[1023], 0x5a);
}

/*
 * The fault on the faulting client's channel: job 0 faults, jobs 1 and 2
 * (good work) are behind it; the other client and a new channel go on.
 */
/* the faulting job: @push_va as given, a CE fill of @bad_va, or a Host
 * semaphore reduction (an atomic) at @bad_va */
enum { PUSH_GIVEN, PUSH_FILL, PUSH_ATOMIC };

static void fault_case(uint64_t push_va, uint32_t push_len, int kind,
		       uint64_t bad_va, uint32_t type, uint32_t access)
{
	struct nvl_device *dev;
	struct nvl_channel_info ci;
	struct nvl_fault_stats st;
	struct cl a, b;
	struct nvl_device_opts o = {.fw_version = fw};
	uint32_t good, chan2;

	assert_int_equal(nvl_device_open("model:tiny", &o, &dev), 0);
	cl_up(dev, &a);
	cl_up(dev, &b);
	if (kind == PUSH_FILL)
		push_len = fill(&a, 0, bad_va, 1);
	else if (kind == PUSH_ATOMIC)
		push_len = nvl_kit_pb_reduce_add(a.ppb, bad_va, 1) * 4;
	good = fill(&a, 256, VA_DST, 2);
	/* job 0 first waits in a semaphore acquire, so job 1 is surely
	 * queued behind it when it faults */
	{
		uint32_t n = nvl_kit_pb_acquire(a.ppb + 768, VA_DST + GATE, 1);
		struct nvl_exec_push p[2] = {
			{.va = VA_PB + 768 * 4, .len = n * 4},
			{.va = push_va, .len = push_len},
		};
		struct nvl_vm_sync sig = {.handle = a.sync[0]};

		assert_int_equal(
			nvl_exec(a.c, a.chan, p, 2, NULL, 0, &sig, 1, 0), 0);
	}
	exec_on(&a, a.chan, VA_PB + 1024, good, 1);
	__atomic_store_n((uint32_t *)(a.pdst + GATE), 1, __ATOMIC_RELEASE);
	assert_int_equal(wait_status(&a, 0), -EFAULT);
	assert_int_equal(wait_status(&a, 1), -ECANCELED);
	assert_int_equal(nvl_channel_query(a.c, a.chan, &ci), 0);
	assert_int_equal(ci.alive, 0);
	assert_int_equal(ci.error, -EFAULT);
	assert_int_equal(ci.reason, NVL_CHANNEL_MMU_FAULT);
	assert_int_equal(ci.hw_error, 31); /* Xid: FIFO_ERROR_MMU_ERR_FLT */
	assert_int_equal(ci.fault_type, type);
	assert_int_equal(ci.fault_access, access);
	assert_int_equal(ci.fault_va, bad_va & ~0xfffull);
	/* the dead channel refuses work */
	{
		struct nvl_exec_push p = {.va = VA_PB + 1024, .len = good};

		assert_int_equal(
			nvl_exec(a.c, a.chan, &p, 1, NULL, 0, NULL, 0, 0),
			-ENODEV);
	}
	/* the other client, and a new channel of the same client, go on */
	expect_alive_and_working(&b, b.chan);
	assert_int_equal(
		nvl_channel_create(a.c, a.vm, NVL_ENGINE_COPY, 0, &chan2), 0);
	expect_alive_and_working(&a, chan2);
	assert_int_equal(nvl_device_fault_stats(dev, &st), 0);
	assert_true(st.faults >= 1);
	assert_true(st.killed >= 1);
	cl_down(&a);
	cl_down(&b);
	nvl_device_close(dev);
}

/* a CE write to a VA this VM never bound: PDE, WRITE */
static void fault_unmapped(void **state)
{
	(void)state;
	fault_case(VA_PB, 0, PUSH_FILL, VA_HOLE + 0x1234, 0x0, 0x1);
}

/* the same on 535.113.01: its shadow-buffer control and OS_ERROR_LOG
 * have the older layout */
static void fault_unmapped_fw535(void **state)
{
	(void)state;
	fw = "535.113.01";
	fault_case(VA_PB, 0, PUSH_FILL, VA_HOLE + 0x1234, 0x0, 0x1);
	fw = NULL;
}

/* a CE write to a read-only mapping: RO_VIOLATION, WRITE */
static void fault_read_only(void **state)
{
	(void)state;
	fault_case(VA_PB, 0, PUSH_FILL, VA_RO + 0x2000, 0x6, 0x1);
}

/*
 * an atomic (Host semaphore reduction, IADD) on a page mapped
 * NVL_VM_BIND_NO_ATOMIC (PTE ATOMIC_DISABLE / PCF NO_ATOMIC):
 * ATOMIC_VIOLATION (0xf, dev_fault.h), ATOMIC access (0x2)
 */
static void fault_atomic_disabled(void **state)
{
	(void)state;
	fault_case(VA_PB, 0, PUSH_ATOMIC, VA_NA + 0x1000, 0xf, 0x2);
}

/* the same atomic on an ordinary page succeeds */
static void atomic_on_a_plain_page_adds(void **state)
{
	struct nvl_device *dev;
	struct nvl_device_opts o = {.fw_version = fw};
	struct cl a;
	uint32_t n;

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", &o, &dev), 0);
	cl_up(dev, &a);
	((uint32_t *)a.pdst)[16] = 41;
	n = nvl_kit_pb_reduce_add(a.ppb, VA_DST + 64, 1);
	exec_on(&a, a.chan, VA_PB, n * 4, 0);
	assert_int_equal(wait_status(&a, 0), 1);
	assert_int_equal(((uint32_t *)a.pdst)[16], 42);
	cl_down(&a);
	nvl_device_close(dev);
}

/* the PBDMA fetching a pushbuffer at an unmapped VA: PDE, READ */
static void fault_pushbuffer_fetch(void **state)
{
	(void)state;
	fault_case(VA_HOLE + 0x3000, 64, PUSH_GIVEN, VA_HOLE + 0x3000, 0x0,
		   0x0);
}

/*
 * A channel error that is not a fault: RC_TRIGGERED Xid 32 (PBDMA error),
 * -EIO. The bad job is the dwords @bad_pb writes at the pushbuffer's start.
 */
static void rc_pushbuffer_error(uint32_t (*bad_pb)(struct cl *))
{
	struct nvl_device *dev;
	struct nvl_channel_info ci;
	struct cl a, b;
	uint32_t len;

	assert_int_equal(nvl_device_open("model:tiny", NULL, &dev), 0);
	cl_up(dev, &a);
	cl_up(dev, &b);
	len = bad_pb(&a);
	{
		uint32_t n = nvl_kit_pb_acquire(a.ppb + 768, VA_DST + GATE, 1);
		struct nvl_exec_push p[2] = {
			{.va = VA_PB + 768 * 4, .len = n * 4},
			{.va = VA_PB, .len = len},
		};
		struct nvl_vm_sync sig = {.handle = a.sync[0]};

		assert_int_equal(
			nvl_exec(a.c, a.chan, p, 2, NULL, 0, &sig, 1, 0), 0);
	}
	exec_on(&a, a.chan, VA_PB + 1024, fill(&a, 256, VA_DST, 3), 1);
	__atomic_store_n((uint32_t *)(a.pdst + GATE), 1, __ATOMIC_RELEASE);
	assert_int_equal(wait_status(&a, 0), -EIO);
	assert_int_equal(wait_status(&a, 1), -ECANCELED);
	assert_int_equal(nvl_channel_query(a.c, a.chan, &ci), 0);
	assert_int_equal(ci.alive, 0);
	assert_int_equal(ci.error, -EIO);
	assert_int_equal(ci.hw_error, 32);
	assert_int_equal(ci.reason, NVL_CHANNEL_PUSHBUFFER);
	assert_int_equal(ci.fault_va, 0);
	expect_alive_and_working(&b, b.chan);
	cl_down(&a);
	cl_down(&b);
	nvl_device_close(dev);
}

/* Host method ILLEGAL (0x04), SEC_OP 1 COUNT 1 SUBCH 0 */
static uint32_t illegal_method(struct cl *k)
{
	k->ppb[0] = 0x20010001u;
	k->ppb[1] = 0;
	return 8;
}

static void rc_bad_method(void **state)
{
	(void)state;
	rc_pushbuffer_error(illegal_method);
}

/* a CE fill of VA 2^50: beyond the 49 VA bits of MMU v2 */
static uint32_t fill_past_49_bits(struct cl *k)
{
	return fill(k, 0, 1ull << 50, 1);
}

/*
 * clc5b5.h NVC5B5_OFFSET_OUT_UPPER_UPPER is 16:0: the copy class cannot
 * name a VA past the MMU's 49 bits (which would be VA_LIMIT_VIOLATION,
 * tests/mmu/walker.c), so OFFSET_OUT_UPPER 0x40000 is a copy-engine launch
 * error, not a fault.
 */
static void ce_address_past_the_class(void **state)
{
	(void)state;
	rc_pushbuffer_error(fill_past_49_bits);
}

/* destroying a channel is not a fault: DESTROYED, -ECANCELED */
static void destroyed_reason(void **state)
{
	struct nvl_device *dev;
	struct nvl_fault_stats st;
	struct cl a;

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", NULL, &dev), 0);
	cl_up(dev, &a);
	expect_alive_and_working(&a, a.chan);
	assert_int_equal(nvl_device_fault_stats(dev, &st), 0);
	assert_int_equal(st.faults, 0);
	assert_int_equal(st.killed, 0);
	assert_int_equal(nvl_device_fault_stats(NULL, &st), -EINVAL);
	assert_int_equal(nvl_syncobj_status(a.c, a.sync[0], 0, NULL), -EINVAL);
	cl_down(&a);
	nvl_device_close(dev);
}

/* post the event the holding handler holds (RM's backlog is empty here) */
static void post_once(struct nvl_device *dev)
{
	assert_int_equal(nvl_model_gsp_event_post(dev->model, 0, 0, 0), 0);
}

/*
 * The fault entry kills the channel where the GSP's message is read, not
 * behind the event thread (held here in another handler). The fault's
 * RC_TRIGGERED (by channel id) waits behind it and is handled only after
 * the client destroyed the channel and made a new one, which RM gives the
 * same id: that stale event must not kill the new channel.
 */
static void stale_rc_spares_reused_id(void **state)
{
	struct hold h = HOLD_INIT;
	struct nvl_device *dev;
	struct nvl_fault_stats st;
	struct nvl_channel_info ci;
	struct nvl_gsp *gsp;
	struct cl a;
	struct nvl_model_gsp_stats ms;
	uint32_t bad, good, ch, chid1, chid2, rl;
	uint64_t rc0;

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", NULL, &dev), 0);
	gsp = dev->nv->gsp;
	cl_up(dev, &a);
	assert_int_equal(nvl_channel_destroy(a.c, a.chan), 0);
	bad = fill(&a, 0, VA_HOLE, 1);
	good = fill(&a, 256, VA_DST, 2);
	hold_event_thread(dev, gsp, &h, post_once);

	assert_int_equal(nvl_channel_create(a.c, a.vm, NVL_ENGINE_COPY, 0, &ch),
			 0);
	assert_int_equal(nvl_nv_chan_hw_ids(a.c, ch, &chid1, &rl), 0);
	nvl_model_gsp_get_stats(dev->model, &ms);
	rc0 = ms.rc_recoveries;
	exec_on(&a, ch, VA_PB, bad, 0);
	assert_int_equal(wait_status(&a, 0), -EFAULT);
	/* the fault's kill (MMU_FAULT_QUEUED) can come before RM tore the
	 * channel down: wait until its RC_TRIGGERED is on the way (RM frees
	 * a channel it has not reported without one), so the event is read
	 * before the id is reused */
	for (int i = 0; i < 20000; i++) {
		nvl_model_gsp_get_stats(dev->model, &ms);
		if (ms.rc_recoveries > rc0)
			break;
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	}
	assert_true(ms.rc_recoveries > rc0);
	assert_int_equal(nvl_channel_destroy(a.c, ch), 0);
	assert_int_equal(nvl_channel_create(a.c, a.vm, NVL_ENGINE_COPY, 0, &ch),
			 0);
	assert_int_equal(nvl_nv_chan_hw_ids(a.c, ch, &chid2, &rl), 0);
	assert_int_equal(chid2, chid1); /* RM reused the id */
	/* the event thread goes on: the RC_TRIGGERED of the first */
	hold_release(&h);
	assert_int_equal(nvl_gsp_event_flush(gsp, WAIT_NS), 0);
	assert_int_equal(nvl_channel_query(a.c, ch, &ci), 0);
	assert_int_equal(ci.alive, 1);
	exec_on(&a, ch, VA_PB + 1024, good, 1);
	assert_int_equal(wait_status(&a, 1), 1);
	assert_int_equal(nvl_device_fault_stats(dev, &st), 0);
	assert_int_equal(st.killed, 1);
	assert_int_equal(st.rc_events, 1);
	assert_int_equal(nvl_gsp_event_register(
				 gsp, NV_VGPU_MSG_EVENT_POST_EVENT, NULL, NULL),
			 0);
	assert_int_equal(nvl_channel_destroy(a.c, ch), 0);
	cl_down(&a);
	nvl_device_close(dev);
}

static atomic_int fault_lines;

static void count_fault_lines(enum nvl_log_level level, enum nvl_log_cat cat,
			      const char *msg, void *ctx)
{
	(void)level, (void)ctx;
	if (cat == NVL_CAT_NV && strstr(msg, "MMU fault: client"))
		atomic_fetch_add(&fault_lines, 1);
}

/*
 * A fault's log line is held off the kill's thread for the event thread;
 * when that thread lags (held here in another handler), 16 held lines make
 * the driver's worker print them: every one is printed while the event
 * thread is still held, and none twice once it goes on.
 */
static void fault_lines_printed_while_event_thread_lags(void **state)
{
	struct hold h = HOLD_INIT;
	struct nvl_device *dev;
	struct nvl_fault_stats st;
	struct nvl_gsp *gsp;
	struct cl a;
	uint32_t bad, ch;
	int n = 16, i;

	(void)state;
	if (!nvl_log_enabled(NVL_LOG_WARN, NVL_CAT_NV))
		skip();
	atomic_store(&fault_lines, 0);
	nvl_log_set_sink(count_fault_lines, NULL);
	assert_int_equal(nvl_device_open("model:tiny", NULL, &dev), 0);
	gsp = dev->nv->gsp;
	cl_up(dev, &a);
	bad = fill(&a, 0, VA_HOLE, 1);
	hold_event_thread(dev, gsp, &h, post_once);
	for (i = 0; i < n; i++) {
		assert_int_equal(
			nvl_channel_create(a.c, a.vm, NVL_ENGINE_COPY, 0, &ch),
			0);
		exec_on(&a, ch, VA_PB, bad, 0);
		assert_int_equal(wait_status(&a, 0), -EFAULT);
		assert_int_equal(nvl_channel_destroy(a.c, ch), 0);
	}
	/* the worker prints them (bounded wait), the event thread held */
	for (i = 0; i < 5000 && atomic_load(&fault_lines) < n; i++)
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	assert_int_equal(atomic_load(&fault_lines), n);
	hold_release(&h);
	assert_int_equal(nvl_gsp_event_flush(gsp, WAIT_NS), 0);
	assert_int_equal(nvl_device_fault_stats(dev, &st), 0);
	assert_int_equal(st.faults, n);
	assert_int_equal(st.killed, n);
	assert_int_equal(nvl_gsp_event_register(
				 gsp, NV_VGPU_MSG_EVENT_POST_EVENT, NULL, NULL),
			 0);
	expect_alive_and_working(&a, a.chan);
	cl_down(&a);
	nvl_device_close(dev);
	nvl_log_set_sink(NULL, NULL);
	assert_int_equal(atomic_load(&fault_lines), n);
}

/*
 * RM services a fault on the thread that raised it (the runlist thread of
 * the copy engine) when its firmware thread is idle: the same entry, VA,
 * kill and events as from its own thread. Most faults here find it idle
 * (each follows a channel create whose reply it has sent); whether one
 * does depends on the host's scheduling, so at least one must have (the
 * test goes on faulting, up to 256 times, until one did).
 */
static void fault_serviced_on_raising_thread(void **state)
{
	struct nvl_device *dev;
	struct nvl_device_opts o = {.fw_version = fw};
	struct nvl_model_gsp_stats m0, m1;
	struct nvl_fault_stats st;
	struct nvl_channel_info ci;
	struct cl a;
	uint32_t bad, ch;
	int n = 0;

	(void)state;
	assert_int_equal(nvl_device_open("model:tiny", &o, &dev), 0);
	cl_up(dev, &a);
	bad = fill(&a, 0, VA_HOLE + 0x5000, 1);
	nvl_model_gsp_get_stats(dev->model, &m0);
	/* 16 faults, more (up to 256) while none found the firmware idle */
	for (m1 = m0; n < 16 || (m1.rc_inline == m0.rc_inline && n < 256);
	     n++) {
		assert_int_equal(
			nvl_channel_create(a.c, a.vm, NVL_ENGINE_COPY, 0, &ch),
			0);
		exec_on(&a, ch, VA_PB, bad, 0);
		assert_int_equal(wait_status(&a, 0), -EFAULT);
		assert_int_equal(nvl_channel_query(a.c, ch, &ci), 0);
		assert_int_equal(ci.alive, 0);
		assert_int_equal(ci.reason, NVL_CHANNEL_MMU_FAULT);
		assert_int_equal(ci.fault_va, VA_HOLE + 0x5000);
		assert_int_equal(nvl_channel_destroy(a.c, ch), 0);
		nvl_model_gsp_get_stats(dev->model, &m1);
	}
	assert_int_equal(m1.faults_copied - m0.faults_copied, n);
	assert_true(m1.rc_inline > m0.rc_inline);
	assert_int_equal(nvl_device_fault_stats(dev, &st), 0);
	assert_int_equal(st.faults, n);
	assert_int_equal(st.killed, n);
	expect_alive_and_working(&a, a.chan);
	cl_down(&a);
	nvl_device_close(dev);
}

/*
 * The client and the device close with faulting jobs in flight: RM's
 * service (on the runlist threads, or its own) and the driver's kill in
 * its message interrupt race the channels' teardown; nothing is used
 * after it is freed (ASan, TSan). (By the time the model's GSP itself is
 * destroyed the driver has unloaded RM, so its hook takes no more raises:
 * the wait for raises in flight in nvl_model_gsp_destroy() is not reached
 * from here.)
 */
static void close_while_faulting(void **state)
{
	struct nvl_device_opts o = {.fw_version = fw};

	(void)state;
	for (int r = 0; r < 8; r++) {
		struct nvl_device *dev;
		struct cl a;
		uint32_t bad, ch[4];

		assert_int_equal(nvl_device_open("model:tiny", &o, &dev), 0);
		cl_up(dev, &a);
		bad = fill(&a, 0, VA_HOLE, 1);
		for (int i = 0; i < 4; i++) {
			struct nvl_exec_push p = {.va = VA_PB, .len = bad};

			assert_int_equal(nvl_channel_create(a.c, a.vm,
							    NVL_ENGINE_COPY, 0,
							    &ch[i]),
					 0);
			assert_int_equal(nvl_exec(a.c, ch[i], &p, 1, NULL, 0,
						  NULL, 0, 0),
					 0);
		}
		cl_down(&a);
		nvl_device_close(dev);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fault_unmapped),
		cmocka_unit_test(fault_unmapped_fw535),
		cmocka_unit_test(fault_read_only),
		cmocka_unit_test(ce_address_past_the_class),
		cmocka_unit_test(fault_atomic_disabled),
		cmocka_unit_test(atomic_on_a_plain_page_adds),
		cmocka_unit_test(fault_pushbuffer_fetch),
		cmocka_unit_test(rc_bad_method),
		cmocka_unit_test(destroyed_reason),
		cmocka_unit_test(stale_rc_spares_reused_id),
		cmocka_unit_test(fault_lines_printed_while_event_thread_lags),
		cmocka_unit_test(fault_serviced_on_raising_thread),
		cmocka_unit_test(close_while_faulting),
	};

	return t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
}

// SPDX-License-Identifier: MIT
/*
 * RPCs and events against the model's firmware: RM objects root ->
 * device -> subdevice -> VA space -> channel, the VA space's rules, continuation records both
 * ways, reply policies, RPC order, events interleaved with replies, slow
 * handlers, concurrent callers, async calls, NV_STATUS -> errno.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/cpufree.h"
#include "gsp/priv.h"
#include "gspabi.h"
#include "hw/host.h"
#include "hw/mmu.h"
#include "kit.h"
#include "model/mmu.h"

struct tree {
	uint32_t root, dev, sub, vas, chan, ce;
	uint32_t chid;
};

static void make_tree(struct kit *k, struct tree *t)
{
	/* externally owned: the client's root, bound below, is the root */
	NV_VASPACE_ALLOCATION_PARAMETERS vp = {
		.vaSize = 1ull << 40,
		.flags = NV_VASPACE_ALLOCATION_FLAGS_IS_EXTERNALLY_OWNED};
	NV_CHANNEL_ALLOC_PARAMS cp = {.gpFifoEntries = 512};
	const struct nvl_model_profile *p = k->m->profile;

	kit_tree(k, &t->root, &t->dev, &t->sub);
	assert_int_equal(nvl_gsp_rm_alloc(k->gsp, t->dev, FERMI_VASPACE_A, &vp,
					  sizeof(vp), &t->vas),
			 0);
	/* RM wants the VA space's page directory bound before a channel,
	 * and the channel's USERD in the driver's FB; one root entry spans
	 * the 1 TiB space in both formats */
	NV0080_CTRL_DMA_SET_PAGE_DIRECTORY_PARAMS pd = {
		.physAddress = 1ull << 20, .numEntries = 1, .hVASpace = t->vas};
	assert_int_equal(
		nvl_gsp_rm_control(k->gsp, t->dev,
				   NV0080_CTRL_CMD_DMA_SET_PAGE_DIRECTORY, &pd,
				   sizeof(pd)),
		0);
	cp.hVASpace = t->vas;
	cp.userdOffset = 2ull << 20;
	cp.cid = 0xdead;
	assert_int_equal(nvl_gsp_rm_alloc(k->gsp, t->dev, p->host_class, &cp,
					  sizeof(cp), &t->chan),
			 0);
	assert_true(cp.cid < p->num_channels); /* the firmware's output */
	t->chid = cp.cid;
	assert_int_equal(
		nvl_gsp_rm_alloc(k->gsp, t->chan, p->ce_class, NULL, 0, &t->ce),
		0);
}

static void rm_object_tree(void **state)
{
	struct nvl_model_gsp_stats ms0, ms;
	NV2080_CTRL_GPU_GET_INFO_V2_PARAMS gi = {0};
	struct tree t, t2;
	struct kit k;
	uint32_t bad;

	kit_up(&k, "tu102");
	nvl_model_gsp_get_stats(k.m, &ms0);
	make_tree(&k, &t);
	make_tree(&k, &t2);
	assert_int_not_equal(t.chid, t2.chid);
	/* driver-chosen handles */
	assert_int_equal(t.root & 0xffff0000u, 0xc1d00000u);
	assert_int_equal(t.dev & 0xfff00000u, 0xcaf00000u);
	nvl_model_gsp_get_stats(k.m, &ms);
	assert_int_equal(ms.objects, ms0.objects + 12);

	gi.gpuInfoListSize = 1;
	gi.gpuInfoList[0].index = NV2080_CTRL_GPU_INFO_INDEX_ECID_LO32;
	assert_int_equal(nvl_gsp_rm_control(k.gsp, t.sub,
					    NV2080_CTRL_CMD_GPU_GET_INFO_V2,
					    &gi, sizeof(gi)),
			 0);
	assert_int_equal(gi.gpuInfoList[0].data, k.m->profile->boot0);

	/* firmware-side refusals come back named */
	assert_int_equal(nvl_gsp_rm_control(k.gsp, t.dev,
					    NV2080_CTRL_CMD_GPU_GET_INFO_V2,
					    &gi, sizeof(gi)),
			 -ENOENT);
	assert_non_null(
		strstr(nvl_error_msg(), "NV_ERR_INVALID_OBJECT_HANDLE"));
	assert_int_equal(nvl_gsp_rm_alloc(k.gsp, t.dev, 0xc0b5, NULL, 0, &bad),
			 -EOPNOTSUPP);
	assert_non_null(strstr(nvl_error_msg(), "NV_ERR_INVALID_CLASS"));
	/* a subdevice under a subdevice: wrong parent */
	assert_int_equal(
		nvl_gsp_rm_alloc(k.gsp, t.sub, NV20_SUBDEVICE_0, NULL, 0, &bad),
		-EINVAL);
	assert_non_null(
		strstr(nvl_error_msg(), "NV_ERR_INVALID_OBJECT_PARENT"));
	assert_int_equal(
		nvl_gsp_rm_alloc(k.gsp, 0x1234, NV01_DEVICE_0, NULL, 0, &bad),
		-ENOENT);

	/* freeing the device frees VA space, subdevice, channel, CE: both
	 * sides */
	assert_int_equal(nvl_gsp_rm_count(k.gsp), 12 + 3);
	assert_int_equal(nvl_gsp_rm_free(k.gsp, t.dev), 0);
	assert_int_equal(nvl_gsp_rm_count(k.gsp), 7 + 3);
	nvl_model_gsp_get_stats(k.m, &ms);
	assert_int_equal(ms.objects, ms0.objects + 7);
	assert_int_equal(nvl_gsp_rm_control(k.gsp, t.sub,
					    NV2080_CTRL_CMD_GPU_GET_INFO_V2,
					    &gi, sizeof(gi)),
			 -ENOENT);
	/* the freed channel id is free again */
	uint32_t old_root = t.root;

	make_tree(&k, &t);
	assert_int_equal(nvl_gsp_rm_free(k.gsp, old_root), 0);
	assert_int_equal(nvl_gsp_rm_free(k.gsp, t.root), 0);
	assert_int_equal(nvl_gsp_rm_free(k.gsp, t2.root), 0);
	nvl_model_gsp_get_stats(k.m, &ms);
	assert_int_equal(ms.objects, ms0.objects);
	assert_int_equal(nvl_gsp_rm_free(k.gsp, t.root), -ENOENT);
	kit_down(&k);
}

static void status_errno(void **state)
{
	/* nouveau's mapping for the retry and memory statuses */
	assert_int_equal(nvl_gsp_status_errno(NV_OK), 0);
	assert_int_equal(nvl_gsp_status_errno(0x55), -EBUSY); /* NOT_READY */
	assert_int_equal(nvl_gsp_status_errno(0x66),
			 -EBUSY); /* TIMEOUT_RETRY */
	assert_int_equal(nvl_gsp_status_errno(0x51), -ENOMEM); /* NO_MEMORY */
	assert_int_equal(nvl_gsp_status_errno(0x33), -ENOENT);
	/* nvstatus.h: NV_ERR_ILLEGAL_ACTION 0x16, "current action is not
	 * allowed" */
	assert_int_equal(nvl_gsp_status_errno(0x16), -EPERM);
	assert_string_equal(nvl_gsp_status_name(0x16), "NV_ERR_ILLEGAL_ACTION");
	assert_int_equal(nvl_gsp_status_errno(0x12345), -EIO);
	assert_string_equal(nvl_gsp_status_name(0x51), "NV_ERR_NO_MEMORY");
	assert_string_equal(nvl_gsp_status_name(0x65), "NV_ERR_TIMEOUT");
	assert_string_equal(nvl_gsp_status_name(0xabc), "NV_STATUS_0xabc");
	assert_string_equal(nvl_gsp_function_name(76), "GSP_RM_CONTROL");
	assert_string_equal(nvl_gsp_function_name(0x1004), "RC_TRIGGERED");
}

static void echo(struct kit *k, uint32_t sub, size_t n, uint64_t seed)
{
	uint8_t *p = nvl_malloc(n);
	uint64_t s = seed;

	assert_non_null(p);
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(t_rand(&s) >> 56);
	assert_int_equal(
		nvl_gsp_rm_control(k->gsp, sub, NVL_MODEL_CTRL_CMD_ECHO, p, n),
		0);
	s = seed;
	for (size_t i = 0; i < n; i++)
		if (p[i] != (uint8_t) ~(t_rand(&s) >> 56))
			fail_msg("echo of %zu bytes: byte %zu wrong", n, i);
	nvl_free(p);
}

static void continuation_both_ways(void **state)
{
	const size_t ctl = sizeof(rpc_gsp_rm_control_v03_00);
	struct nvl_gsp_stats st;
	struct tree t;
	struct kit k;
	size_t hdr, max;

	kit_up(&k, "tiny");
	/* the booted version's element header: 48 bytes, 8 in 535.54.03 */
	hdr = k.gsp->q.elem_hdr;
	max = nvl_gsp_msgq_payload_max(&k.gsp->q);
	assert_int_equal(hdr, !strcmp(k.img.version, "535.54.03") ? 8 : 48);
	assert_int_equal(max, 0x10000 - hdr - 32);
	const size_t sizes[] = {
		1,
		4096 - hdr - 32 - ctl, /* exactly one page */
		4096 - hdr - 32 - ctl + 1, /* two pages */
		max - ctl, /* a full element */
		max - ctl + 1, /* + 1 continuation */
		3 * max,
		1u << 20, /* 1 MiB */
	};
	make_tree(&k, &t);
	for (size_t i = 0; i < NVL_ARRAY_SIZE(sizes); i++)
		echo(&k, t.sub, sizes[i], i + 1);
	/* 1..16-page elements in both directions, through the wrap */
	for (size_t pages = 1; pages <= 16; pages++)
		echo(&k, t.sub, pages * 4096 - hdr - 32 - ctl, pages);
	nvl_gsp_get_stats(k.gsp, &st);
	assert_int_equal(st.bad_msgs, 0);
	kit_down(&k);
}

/*
 * 1 MiB both ways with the CPUs reported free: the firmware thread polls
 * for the next element of a half-assembled request instead of sleeping
 * (fw.c: fw_poll_mid()), reading the command queue while the caller
 * still writes it and waits for room; nothing is lost or reordered.
 */
static void continuation_while_firmware_polls(void **state)
{
	struct nvl_model_gsp_stats ms0, ms;
	struct nvl_gsp_stats st;
	struct tree t;
	struct kit k;

	kit_up(&k, "tiny");
	make_tree(&k, &t);
	nvl_model_gsp_get_stats(k.m, &ms0);
	nvl_cpu_poll_test_set(2, 1);
	for (unsigned i = 0; i < 6; i++)
		echo(&k, t.sub, i % 2 ? 1u << 20 : 5 * 0x10000 + 123, i + 40);
	nvl_cpu_poll_test_set(-1, 0);
	nvl_gsp_get_stats(k.gsp, &st);
	nvl_model_gsp_get_stats(k.m, &ms);
	assert_int_equal(st.bad_msgs, 0);
	assert_int_equal(st.timeouts, 0);
	assert_int_equal(ms.bad_elems - ms0.bad_elems, 0);
	assert_int_equal(ms.seq_asserts - ms0.seq_asserts, 0);
	kit_down(&k);
}

/*
 * Calls with idle gaps between them, 0-400 us: the firmware thread's
 * poll catches some doorbells and sleeps through others, the caller's
 * spin catches some replies and sleeps for others (both budgets adapt as
 * the gaps change). Sizes alternate between a several-page reply and a
 * small one: the firmware clears only the bytes an element used, and a
 * leftover byte in the next element's padding would fail its checksum.
 */
static void calls_across_idle_gaps(void **state)
{
	struct nvl_gsp_stats st;
	struct tree t;
	struct kit k;
	uint64_t s = 7;

	kit_up(&k, "tiny");
	make_tree(&k, &t);
	for (unsigned i = 0; i < 80; i++) {
		struct timespec ts = {0, (long)(t_rand(&s) >> 40) % 400000};

		if (i % 4)
			nanosleep(&ts, NULL);
		echo(&k, t.sub, i % 2 ? 16 : 3 * 4096 + 100, i + 1);
	}
	nvl_gsp_get_stats(k.gsp, &st);
	assert_int_equal(st.bad_msgs, 0);
	assert_int_equal(st.timeouts, 0);
	kit_down(&k);
}

/* CVE-2024-58019: a reply whose RPC length fits a page but whose element
 * (with its element header: 48 bytes, 8 in 535.54.03) needs two; the next
 * reply must still parse */
static void read_pointer_counts_element_header(void **state)
{
	const size_t ctl = sizeof(rpc_gsp_rm_control_v03_00);
	struct nvl_gsp_stats st;
	struct tree t;
	struct kit k;
	size_t hdr;

	kit_up(&k, "tiny");
	hdr = k.gsp->q.elem_hdr;
	make_tree(&k, &t);
	for (int i = 0; i < 70; i++) /* > 63 slots: wraps twice over */
		echo(&k, t.sub, 4096 - 32 - ctl - hdr / 2, (uint64_t)i + 7);
	nvl_gsp_get_stats(k.gsp, &st);
	assert_int_equal(st.bad_msgs, 0);
	kit_down(&k);
}

static void reply_policies(void **state)
{
	struct nvl_model_gsp_stats ms0, ms;
	struct nvl_gsp_stats st0, st;
	uint8_t *big = nvl_zalloc((1u << 20) + 24);
	rpc_gsp_rm_control_v03_00 *c = (void *)big;
	struct tree t;
	struct kit k;

	kit_up(&k, "tiny");
	make_tree(&k, &t);
	nvl_gsp_get_stats(k.gsp, &st0);
	nvl_model_gsp_get_stats(k.m, &ms0);
	/* NOWAIT: sent, its reply discarded when it comes */
	assert_int_equal(nvl_gsp_rpc(k.gsp, NV_VGPU_MSG_FUNCTION_NOP, NULL, 0,
				     NULL, 0, NULL, NVL_GSP_REPLY_NOWAIT, 0),
			 0);
	/* NOSEQ: sequence 0 is not an order violation */
	assert_int_equal(nvl_gsp_rpc(k.gsp, NV_VGPU_MSG_FUNCTION_NOP, NULL, 0,
				     NULL, 0, NULL, NVL_GSP_REPLY_NOSEQ, 0),
			 0);
	/* POLL: a 1 MiB reply waited for and thrown away, status kept */
	c->hClient = t.root;
	c->hObject = t.sub;
	c->cmd = NVL_MODEL_CTRL_CMD_ECHO;
	c->paramsSize = 1u << 20;
	assert_int_equal(nvl_gsp_rpc(k.gsp, NV_VGPU_MSG_FUNCTION_GSP_RM_CONTROL,
				     c, (1u << 20) + 24, NULL, (1u << 20) + 24,
				     NULL, NVL_GSP_REPLY_POLL, 0),
			 0);
	assert_int_equal(big[100], 0); /* nothing written back */
	/* RECV with a buffer too small: -EMSGSIZE, and the queue stays
	 * usable */
	assert_int_equal(nvl_gsp_rpc(k.gsp, NV_VGPU_MSG_FUNCTION_GSP_RM_CONTROL,
				     c, (1u << 20) + 24, c, 4096, NULL,
				     NVL_GSP_REPLY_RECV, 0),
			 -EMSGSIZE);
	echo(&k, t.sub, 5000, 3);
	assert_int_equal(nvl_gsp_event_flush(k.gsp, NVL_NSEC_PER_SEC), 0);
	nvl_gsp_get_stats(k.gsp, &st);
	assert_int_equal(st.unclaimed - st0.unclaimed, 2);
	assert_int_equal(st.bad_reply - st0.bad_reply, 1);
	assert_int_equal(st.stray_continuation, 0);
	nvl_model_gsp_get_stats(k.m, &ms);
	assert_int_equal(ms.seq_asserts, 0);
	assert_int_equal(ms.rpcs - ms0.rpcs, 6); /* + the flush's NOP */
	nvl_free(big);
	kit_down(&k);
}

static void rpc_order_asserted(void **state)
{
	struct nvl_model_gsp_stats ms;
	struct kit k;

	kit_up(&k, "tiny");
	/* bypass the client: a message with a sequence out of order */
	pthread_mutex_lock(&k.gsp->tx_lock);
	assert_int_equal(
		nvl_gsp_msgq_send(&k.gsp->q, NV_VGPU_MSG_FUNCTION_NOP,
				  k.gsp->next_seq + 5, NULL, 0,
				  nvl_deadline_after(NVL_NSEC_PER_SEC)),
		0);
	pthread_mutex_unlock(&k.gsp->tx_lock);
	assert_int_equal(nvl_gsp_rpc(k.gsp, NV_VGPU_MSG_FUNCTION_NOP, NULL, 0,
				     NULL, 0, NULL, NVL_GSP_REPLY_POLL, 0),
			 0);
	nvl_model_gsp_get_stats(k.m, &ms);
	/* the bypass jumped ahead, the next real one went back */
	assert_int_equal(ms.seq_asserts, 2);
	kit_down(&k);
}

/* queue a NOP past the client (the firmware hung: not read yet) with one
 * of its bytes at element offset @at flipped after it was written */
static void corrupt_nop(struct kit *k, size_t len, size_t at)
{
	struct nvl_gsp_msgq *q = &k->gsp->q;
	uint32_t wptr = ((msgqTxHeader *)(q->mem + q->cmdq_off))->writePtr;
	uint8_t p[64];

	memset(p, 0x3c, sizeof(p));
	pthread_mutex_lock(&k->gsp->tx_lock);
	assert_int_equal(
		nvl_gsp_msgq_send(&k->gsp->q, NV_VGPU_MSG_FUNCTION_NOP,
				  k->gsp->next_seq, p, len,
				  nvl_deadline_after(NVL_NSEC_PER_SEC)),
		0);
	pthread_mutex_unlock(&k->gsp->tx_lock);
	q->mem[q->cmdq_off + GSP_QUEUE_ENTRY_OFF + (size_t)wptr * 4096 + at] ^=
		0x21;
}

/*
 * The firmware reads a command's used bytes and XORs the rest of its
 * page in place: a byte changed in the payload, in its last partial
 * word, or (where the version's checksum covers it) in the padding is
 * rejected and counted, and the next call goes through.
 */
static void fw_rejects_corrupt_commands(void **state)
{
	struct nvl_model_gsp_stats ms0, ms;
	struct kit k;
	size_t head;
	unsigned bad = 2;

	kit_up(&k, "tiny");
	head = k.gsp->q.elem_hdr + 32;
	nvl_model_gsp_get_stats(k.m, &ms0);
	nvl_model_gsp_inject(k.m, NVL_MODEL_GSP_HANG, 1, 0);
	corrupt_nop(&k, 24, head + 3); /* a whole word */
	corrupt_nop(&k, 21, head + 20); /* the last, partial word */
	if (k.gsp->q.csum_padded) {
		corrupt_nop(&k, 24, 4000); /* the padding */
		bad++;
	}
	nvl_model_gsp_clear_faults(k.m);
	assert_int_equal(nvl_gsp_rpc(k.gsp, NV_VGPU_MSG_FUNCTION_NOP, NULL, 0,
				     NULL, 0, NULL, NVL_GSP_REPLY_POLL, 0),
			 0);
	nvl_model_gsp_get_stats(k.m, &ms);
	assert_int_equal(ms.bad_elems - ms0.bad_elems, bad);
	assert_int_equal(ms.seq_asserts, ms0.seq_asserts);
	kit_down(&k);
}

struct evrec {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned n[16];
	uint32_t chid, xid, post_data;
	char text[64];
	bool block;
	int slow_ms;
};

static void on_event(void *arg, uint32_t event, uint32_t result,
		     const void *data, size_t len)
{
	struct evrec *r = arg;

	pthread_mutex_lock(&r->lock);
	while (r->block)
		pthread_cond_wait(&r->cond, &r->lock);
	r->n[event & 0xf]++;
	if (event == NV_VGPU_MSG_EVENT_RC_TRIGGERED &&
	    len >= sizeof(rpc_rc_triggered_v17_02))
		r->chid = ((const rpc_rc_triggered_v17_02 *)data)->chid;
	if (event == NV_VGPU_MSG_EVENT_OS_ERROR_LOG &&
	    len >= sizeof(rpc_os_error_log_v17_00)) {
		const rpc_os_error_log_v17_00 *l = data;

		r->xid = l->exceptType;
		memcpy(r->text, l->errString, sizeof(r->text) - 1);
	}
	if (event == NV_VGPU_MSG_EVENT_POST_EVENT &&
	    len >= sizeof(rpc_post_event_v17_00))
		r->post_data = ((const rpc_post_event_v17_00 *)data)->data;
	pthread_mutex_unlock(&r->lock);
	if (r->slow_ms) {
		struct timespec ts = {0, r->slow_ms * 1000000l};

		nanosleep(&ts, NULL);
	}
}

static void reg_all(struct kit *k, struct evrec *r)
{
	static const uint32_t evs[] = {NV_VGPU_MSG_EVENT_RC_TRIGGERED,
				       NV_VGPU_MSG_EVENT_OS_ERROR_LOG,
				       NV_VGPU_MSG_EVENT_MMU_FAULT_QUEUED,
				       NV_VGPU_MSG_EVENT_POST_EVENT};

	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->cond, NULL);
	for (size_t i = 0; i < NVL_ARRAY_SIZE(evs); i++)
		assert_int_equal(
			nvl_gsp_event_register(k->gsp, evs[i], on_event, r), 0);
}

static void events_delivered(void **state)
{
	struct evrec r = {0};
	struct tree t;
	struct kit k;

	kit_up(&k, "tiny");
	make_tree(&k, &t);
	reg_all(&k, &r);
	assert_int_equal(nvl_model_gsp_event_rc(k.m, t.chid, 31), 0);
	assert_int_equal(nvl_model_gsp_event_mmu_fault(k.m), 0);
	assert_int_equal(nvl_model_gsp_event_post(k.m, t.root, 0xe0, 77), 0);
	/* a call meanwhile: its reply is among the events */
	echo(&k, t.sub, 100, 1);
	assert_int_equal(nvl_gsp_event_flush(k.gsp, NVL_NSEC_PER_SEC), 0);
	assert_int_equal(r.n[NV_VGPU_MSG_EVENT_RC_TRIGGERED & 0xf], 1);
	assert_int_equal(r.n[NV_VGPU_MSG_EVENT_OS_ERROR_LOG & 0xf], 1);
	assert_int_equal(r.n[NV_VGPU_MSG_EVENT_MMU_FAULT_QUEUED & 0xf], 1);
	assert_int_equal(r.n[NV_VGPU_MSG_EVENT_POST_EVENT & 0xf], 1);
	assert_int_equal(r.chid, t.chid);
	assert_int_equal(r.xid, 31);
	assert_non_null(strstr(r.text, "Xid 31"));
	assert_int_equal(r.post_data, 77);
	kit_down(&k);
}

static void emit_events(struct kit *k, unsigned n)
{
	for (unsigned i = 0; i < n;) {
		if (nvl_model_gsp_event_mmu_fault(k->m) == 0) {
			i++;
			continue;
		}
		struct timespec ts = {0, 200000};
		nanosleep(&ts, NULL);
	}
}

/* a handler that stalls neither delays replies nor loses events up to the
 * queue's bound; beyond it, events are dropped and counted */
static void slow_handler(void **state)
{
	struct evrec r = {0};
	struct nvl_gsp_stats st;
	struct tree t;
	struct kit k;
	const unsigned total = NVL_GSP_EVENT_QUEUE_LEN + 100;
	unsigned got;

	kit_up(&k, "tiny");
	make_tree(&k, &t);
	reg_all(&k, &r);
	r.block = true;
	emit_events(&k, total);
	/* calls go on while the handler is stuck */
	for (int i = 0; i < 20; i++)
		echo(&k, t.sub, 64, (uint64_t)i);
	pthread_mutex_lock(&r.lock);
	r.block = false;
	pthread_cond_broadcast(&r.cond);
	pthread_mutex_unlock(&r.lock);
	assert_int_equal(nvl_gsp_event_flush(k.gsp, 5 * NVL_NSEC_PER_SEC), 0);
	nvl_gsp_get_stats(k.gsp, &st);
	got = r.n[NV_VGPU_MSG_EVENT_MMU_FAULT_QUEUED & 0xf];
	assert_int_equal(got + st.events_dropped, total);
	assert_true(got >= NVL_GSP_EVENT_QUEUE_LEN);
	assert_true(st.events_dropped >= 1);
	/* a merely slow handler loses nothing */
	r.slow_ms = 1;
	emit_events(&k, 100);
	echo(&k, t.sub, 64, 99);
	assert_int_equal(nvl_gsp_event_flush(k.gsp, 5 * NVL_NSEC_PER_SEC), 0);
	assert_int_equal(r.n[NV_VGPU_MSG_EVENT_MMU_FAULT_QUEUED & 0xf],
			 got + 100);
	kit_down(&k);
}

struct drec {
	atomic_uint calls;
	atomic_bool bad;
};

static void on_direct(void *arg, uint32_t event, uint32_t result,
		      const void *data, size_t len)
{
	struct drec *d = arg;

	if (event != NV_VGPU_MSG_EVENT_MMU_FAULT_QUEUED || result || data ||
	    len)
		atomic_store(&d->bad, true);
	atomic_fetch_add(&d->calls, 1);
}

/* a direct handler runs where the message is read: not behind a stuck
 * event thread, taking no queue slot, coalesced, with no payload */
static void direct_handler(void **state)
{
	const unsigned total = NVL_GSP_EVENT_QUEUE_LEN + 100;
	struct evrec r = {0};
	struct drec d = {0};
	struct nvl_gsp_stats st;
	struct tree t;
	struct kit k;
	int64_t deadline;
	unsigned calls;

	(void)state;
	kit_up(&k, "tiny");
	make_tree(&k, &t);
	reg_all(&k, &r);
	assert_int_equal(nvl_gsp_event_register_direct(
				 k.gsp, NV_VGPU_MSG_EVENT_MMU_FAULT_QUEUED,
				 on_direct, &d),
			 0);
	/* the event thread stuck in another event's handler */
	r.block = true;
	assert_int_equal(nvl_model_gsp_event_post(k.m, t.root, 0xe0, 5), 0);
	emit_events(&k, total);
	deadline = nvl_deadline_after(10 * NVL_NSEC_PER_SEC);
	while (!atomic_load(&d.calls) && nvl_time_ns() < deadline) {
		struct timespec ts = {0, 100000};

		nanosleep(&ts, NULL);
	}
	assert_true(atomic_load(&d.calls) >= 1);
	echo(&k, t.sub, 64, 3); /* replies too */
	pthread_mutex_lock(&r.lock);
	r.block = false;
	pthread_cond_broadcast(&r.cond);
	pthread_mutex_unlock(&r.lock);
	assert_int_equal(nvl_gsp_event_flush(k.gsp, 5 * NVL_NSEC_PER_SEC), 0);
	nvl_gsp_get_stats(k.gsp, &st);
	calls = atomic_load(&d.calls);
	assert_true(calls >= 1 && calls <= total);
	assert_false(atomic_load(&d.bad));
	assert_int_equal(st.events_dropped, 0);
	assert_int_equal(r.n[NV_VGPU_MSG_EVENT_MMU_FAULT_QUEUED & 0xf], 0);
	assert_int_equal(r.n[NV_VGPU_MSG_EVENT_POST_EVENT & 0xf], 1);
	/* removed: later ones are unhandled, the handler not called again */
	assert_int_equal(
		nvl_gsp_event_register_direct(
			k.gsp, NV_VGPU_MSG_EVENT_MMU_FAULT_QUEUED, NULL, NULL),
		0);
	emit_events(&k, 3);
	echo(&k, t.sub, 64, 4);
	assert_int_equal(nvl_gsp_event_flush(k.gsp, 5 * NVL_NSEC_PER_SEC), 0);
	assert_int_equal(atomic_load(&d.calls), calls);
	nvl_gsp_get_stats(k.gsp, &st);
	assert_true(st.events_unhandled >= 3);
	assert_int_equal(nvl_gsp_event_register_direct(k.gsp, 1, on_direct, &d),
			 -EINVAL);
	kit_down(&k);
}

struct conc {
	struct kit *k;
	uint32_t sub;
	unsigned id;
};

static void *conc_thread(void *arg)
{
	struct conc *c = arg;
	uint64_t s = 0x1234 + c->id;

	for (int i = 0; i < 60; i++) {
		size_t n = 1 + (size_t)(t_rand(&s) % 20000);

		echo(c->k, c->sub, n, t_rand(&s));
	}
	return NULL;
}

/*
 * 8 callers in flight while the firmware sends @events events; with @yield
 * the callers yield their CPUs while they wait (rpc.c: yield_on_word(),
 * forced on: it is used only where wake-ups are dear). Every call
 * completes, the RPC sequence in queue order whatever the threads did, no
 * event is lost, no message is bad.
 */
static void callers_in_flight(bool yield, unsigned events)
{
	struct nvl_model_gsp_stats ms;
	struct nvl_gsp_stats st;
	struct evrec r = {0};
	struct conc c[8];
	pthread_t th[8];
	struct tree t;
	struct kit k;

	kit_up(&k, "tiny");
	make_tree(&k, &t);
	if (events)
		reg_all(&k, &r);
	pthread_mutex_lock(&k.gsp->rx_lock);
	k.gsp->yield_always = yield;
	pthread_mutex_unlock(&k.gsp->rx_lock);
	for (unsigned i = 0; i < 8; i++) {
		c[i] = (struct conc){&k, t.sub, i};
		assert_int_equal(
			pthread_create(&th[i], NULL, conc_thread, &c[i]), 0);
	}
	emit_events(&k, events);
	for (unsigned i = 0; i < 8; i++)
		pthread_join(th[i], NULL);
	if (events)
		assert_int_equal(
			nvl_gsp_event_flush(k.gsp, 5 * NVL_NSEC_PER_SEC), 0);
	nvl_model_gsp_get_stats(k.m, &ms);
	nvl_gsp_get_stats(k.gsp, &st);
	if (events) {
		assert_int_equal(r.n[NV_VGPU_MSG_EVENT_MMU_FAULT_QUEUED & 0xf],
				 events);
		assert_int_equal(st.events_dropped, 0);
	}
	assert_int_equal(ms.seq_asserts, 0);
	assert_int_equal(st.bad_msgs, 0);
	/* on more than one CPU, waits with several calls in flight yielded */
	if (yield && sysconf(_SC_NPROCESSORS_ONLN) > 1)
		assert_true(k.gsp->yield_waits > 0);
	kit_down(&k);
}

/* 8 callers at once, no events */
static void concurrent_callers(void **state)
{
	callers_in_flight(false, 0);
}

/*
 * Events while 8 callers are in flight: one of them watches the status
 * queue for all (the multi-caller spin) and drains events with the
 * replies.
 */
static void concurrent_callers_with_events(void **state)
{
	callers_in_flight(false, 40);
}

/*
 * The same with callers that yield while they wait: completions that wake
 * no one, kicks of yielding callers, callers turning to sleep after the
 * bound.
 */
static void concurrent_callers_yielding(void **state)
{
	callers_in_flight(true, 40);
}

static void async_calls(void **state)
{
	struct nvl_gsp_async *a[10];
	rpc_gsp_rm_control_v03_00 *req[10];
	struct tree t;
	struct kit k;
	size_t len;

	kit_up(&k, "tiny");
	make_tree(&k, &t);
	for (int i = 0; i < 10; i++) {
		req[i] = nvl_zalloc(sizeof(*req[i]) + 8);
		req[i]->hClient = t.root;
		req[i]->hObject = t.sub;
		req[i]->cmd = NVL_MODEL_CTRL_CMD_ECHO;
		req[i]->paramsSize = 8;
		req[i]->params[0] = (uint8_t)i;
		assert_int_equal(
			nvl_gsp_rpc_async(k.gsp,
					  NV_VGPU_MSG_FUNCTION_GSP_RM_CONTROL,
					  req[i], sizeof(*req[i]) + 8, req[i],
					  sizeof(*req[i]) + 8, &a[i]),
			0);
	}
	for (int i = 9; i >= 0; i--) {
		assert_int_equal(
			nvl_gsp_async_wait(k.gsp, a[i], &len, NVL_NSEC_PER_SEC),
			0);
		assert_int_equal(len, sizeof(*req[i]) + 8);
		assert_int_equal(req[i]->params[0], (uint8_t)~i);
		nvl_free(req[i]);
	}
	kit_down(&k);
}

static struct nvl_model *fail_model;

static int create_op(void *arg)
{
	struct nvl_gsp **g = arg;

	return nvl_gsp_create(nvl_model_hw(fail_model), g);
}

static void create_check(int ret, void *arg)
{
	struct nvl_gsp **g = arg;

	if (!ret) {
		nvl_gsp_destroy(*g);
		return;
	}
	assert_int_equal(ret, -ENOMEM);
}

static void create_alloc_failures(void **state)
{
	struct nvl_gsp *g = NULL;

	assert_int_equal(
		nvl_model_create(nvl_model_profile_find("tiny"), &fail_model),
		0);
	assert_true(t_fail_each_alloc(create_op, create_check, &g, 100) >= 4);
	nvl_gsp_destroy(g); /* the clean run's */
	nvl_model_destroy(fail_model);
}

struct alloc_arg {
	struct kit *k;
	uint32_t dev;
};

static int rm_op(void *arg)
{
	struct alloc_arg *a = arg;
	uint32_t h;
	int ret = nvl_gsp_rm_alloc(a->k->gsp, a->dev, NV20_SUBDEVICE_0, NULL, 0,
				   &h);

	if (!ret)
		ret = nvl_gsp_rm_free(a->k->gsp, h);
	return ret;
}

static void rm_check(int ret, void *arg)
{
	assert_int_equal(ret, -ENOMEM);
}

static void rm_alloc_failures(void **state)
{
	NV0080_ALLOC_PARAMETERS dp = {0};
	struct alloc_arg a;
	struct kit k;
	uint32_t root;
	unsigned n;

	kit_up(&k, "tiny");
	assert_int_equal(nvl_gsp_rm_alloc(k.gsp, 0, NV01_ROOT, NULL, 0, &root),
			 0);
	assert_int_equal(nvl_gsp_rm_alloc(k.gsp, root, NV01_DEVICE_0, &dp,
					  sizeof(dp), &a.dev),
			 0);
	a.k = &k;
	n = nvl_gsp_rm_count(k.gsp);
	assert_true(t_fail_each_alloc(rm_op, rm_check, &a, 50) >= 1);
	/* nothing leaked into either object table */
	assert_int_equal(nvl_gsp_rm_count(k.gsp), n);
	kit_down(&k);
}

/*
 * A pack the booted version refuses changes nothing: rm_abi_pack() wrote
 * the version's fields into the caller's present before packing, so a
 * refused control left the caller's struct changed (note 16). A 9-byte
 * SKU does not fit 535's chipSKU[4] (NV2080_CTRL_BIOS_GET_SKU_INFO_PARAMS,
 * ctrl2080bios.h; [9] in 570): refused there before anything is sent.
 */
static void rm_abi_refused_changes_nothing(void **state)
{
	const struct gspabi_version *v;
	struct gspabi_sku_info sku = {.present = 0}, before;
	uint8_t wire[256];
	uint32_t root, dev, sub, seq;
	struct kit k;

	(void)state;
	kit_up(&k, "tu102");
	v = nvl_gsp_abi(k.gsp);
	memset(&sku, 0, sizeof(sku));
	memcpy(sku.chipSKU, "TU102-400", 9);
	sku.present = GSPABI_SKU_INFO_HAS_BOARDID; /* the caller's choice */
	memcpy(&before, &sku, sizeof(sku));
	assert_true(v->structs[GSPABI_S_SKU_INFO].wire_size <= sizeof(wire));
	if (gspabi_pack_as(v, GSPABI_S_SKU_INFO, &sku,
			   v->structs[GSPABI_S_SKU_INFO].fields, wire,
			   v->structs[GSPABI_S_SKU_INFO].wire_size) !=
	    -ERANGE) {
		/* this version's array holds it (570's chipSKU[9]): nothing
		 * to refuse */
		assert_true(v->structs[GSPABI_S_SKU_INFO].fields &
			    GSPABI_SKU_INFO_HAS_SKUCONFIGVERSION);
		kit_down(&k);
		return;
	}
	assert_memory_equal(&sku, &before, sizeof(sku));
	kit_tree(&k, &root, &dev, &sub);
	seq = k.gsp->next_seq;
	assert_int_equal(
		nvl_gsp_rm_control_abi(
			k.gsp, sub,
			GSPABI_K_CONTROL_NV2080_CTRL_CMD_BIOS_GET_SKU_INFO,
			GSPABI_S_SKU_INFO, &sku),
		-EPROTO);
	assert_memory_equal(&sku, &before, sizeof(sku));
	assert_int_equal(k.gsp->next_seq, seq); /* nothing sent */
	assert_int_equal(nvl_gsp_rm_free(k.gsp, root), 0);
	kit_down(&k);
}

/*
 * The generated layer's RM calls (issue #14): parameters in neutral
 * structs, packed in the booted version's layout and unpacked from the
 * reply (the channel id is the firmware's output); an id the layer does
 * not have is refused before anything is sent.
 */
static void rm_abi_calls(void **state)
{
	struct gspabi_device_alloc dp = {.present = ~0ull};
	struct gspabi_vaspace_alloc vp = {
		.vaSize = 1ull << 40,
		.flags =
			GSPABI_K_NV_VASPACE_ALLOCATION_FLAGS_IS_EXTERNALLY_OWNED};
	struct gspabi_set_page_directory pd = {.physAddress = 1ull << 20,
					       .numEntries = 1};
	struct gspabi_channel_alloc cp = {
		.gpFifoEntries = 512, .userdOffset = 2ull << 20, .cid = 0xdead};
	struct gspabi_work_submit_token wt = {.workSubmitToken = 0xdead};
	uint32_t root, dev, vas, chan, bad = 0;
	unsigned n;
	struct kit k;

	(void)state;
	kit_up(&k, "tu102");
	assert_ptr_equal(nvl_gsp_abi(k.gsp), k.gsp->abi);
	assert_int_equal(
		nvl_gsp_rm_alloc(k.gsp, 0, GSPABI_K_NV01_ROOT, NULL, 0, &root),
		0);
	assert_int_equal(nvl_gsp_rm_alloc_abi(k.gsp, root,
					      GSPABI_K_NV01_DEVICE_0,
					      GSPABI_S_DEVICE_ALLOC, &dp, &dev),
			 0);
	/* present is the version's fields, whatever the caller left */
	assert_int_equal(dp.present,
			 k.gsp->abi->structs[GSPABI_S_DEVICE_ALLOC].fields);
	assert_int_equal(
		nvl_gsp_rm_alloc_abi(k.gsp, dev, GSPABI_K_FERMI_VASPACE_A,
				     GSPABI_S_VASPACE_ALLOC, &vp, &vas),
		0);
	pd.hVASpace = vas;
	assert_int_equal(
		nvl_gsp_rm_control_abi(
			k.gsp, dev,
			GSPABI_K_CONTROL_NV0080_CTRL_CMD_DMA_SET_PAGE_DIRECTORY,
			GSPABI_S_SET_PAGE_DIRECTORY, &pd),
		0);
	cp.hVASpace = vas;
	assert_int_equal(
		nvl_gsp_rm_alloc_abi(k.gsp, dev, k.m->profile->host_class,
				     GSPABI_S_CHANNEL_ALLOC, &cp, &chan),
		0);
	assert_true(cp.cid < k.m->profile->num_channels);
	assert_int_equal(
		nvl_gsp_rm_control_abi(
			k.gsp, chan,
			GSPABI_K_CONTROL_NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN,
			GSPABI_S_WORK_SUBMIT_TOKEN, &wt),
		0);
	assert_int_not_equal(wt.workSubmitToken, 0xdead);

	/* refused before anything is sent: no object, no handle */
	n = nvl_gsp_rm_count(k.gsp);
	assert_int_equal(nvl_gsp_rm_alloc_abi(k.gsp, dev,
					      GSPABI_K_FERMI_VASPACE_A,
					      GSPABI_S__COUNT, &vp, &bad),
			 -EPROTO);
	assert_int_equal(bad, 0);
	assert_int_equal(
		nvl_gsp_rm_control_abi(
			k.gsp, dev,
			GSPABI_K_CONTROL_NV0080_CTRL_CMD_DMA_SET_PAGE_DIRECTORY,
			GSPABI_S__COUNT, &pd),
		-EPROTO);
	assert_int_equal(nvl_gsp_rm_count(k.gsp), n);
	assert_int_equal(nvl_gsp_rm_free(k.gsp, root), 0);
	kit_down(&k);
}

static uint32_t vas_alloc(struct kit *k, uint32_t dev, uint32_t flags,
			  uint64_t va_size, int want)
{
	NV_VASPACE_ALLOCATION_PARAMETERS vp = {.vaSize = va_size,
					       .flags = flags};
	uint32_t h = 0;

	assert_int_equal(nvl_gsp_rm_alloc(k->gsp, dev, FERMI_VASPACE_A, &vp,
					  sizeof(vp), &h),
			 want);
	return h;
}

static int set_root(struct kit *k, uint32_t dev, uint32_t vas, uint32_t entries,
		    uint32_t flags)
{
	NV0080_CTRL_DMA_SET_PAGE_DIRECTORY_PARAMS pd = {.physAddress = 1ull
								       << 20,
							.numEntries = entries,
							.flags = flags,
							.hVASpace = vas};

	return nvl_gsp_rm_control(k->gsp, dev,
				  NV0080_CTRL_CMD_DMA_SET_PAGE_DIRECTORY, &pd,
				  sizeof(pd));
}

/* a channel on @vas: refused (-EINVAL) while it has no root */
static int chan_on(struct kit *k, uint32_t dev, uint32_t vas)
{
	NV_CHANNEL_ALLOC_PARAMS cp = {.gpFifoEntries = 512,
				      .hVASpace = vas,
				      .userdOffset = 2ull << 20};
	uint32_t h = 0;
	int ret = nvl_gsp_rm_alloc(k->gsp, dev, k->m->profile->host_class, &cp,
				   sizeof(cp), &h);

	if (!ret)
		assert_int_equal(nvl_gsp_rm_free(k->gsp, h), 0);
	return ret;
}

static void expect_status(const char *name)
{
	if (!strstr(nvl_error_msg(), name))
		fail_msg("expected %s, got \"%s\"", name, nvl_error_msg());
}

/*
 * The model's RM takes a VA space and its client root only as NVIDIA's
 * RM does (open-gpu-kernel-modules src/nvidia/src/kernel/gpu/mem_mgr/
 * vaspace_api.c translateAllocFlagsToVASpaceFlags(), vaspaceapiConstruct();
 * mem_mgr/gpu_vaspace.c _gvaspaceGpuStateConstruct(),
 * gvaspaceExternalRootDirCommit()); each refusal leaves nothing: no
 * object, no root (a channel on the space is still refused). @entries
 * and @va_bits: the chip's root (v2 PD3 4 x 2^47, v3 PD4 2 x 2^56).
 */
static void vas_rules_on(const char *chip, uint32_t entries,
			 unsigned int va_bits)
{
	const uint32_t ext = NV_VASPACE_ALLOCATION_FLAGS_IS_EXTERNALLY_OWNED;
	struct nvl_model_gsp_stats ms0, ms;
	NV0080_ALLOC_PARAMETERS dp = {0};
	NV_VASPACE_ALLOCATION_PARAMETERS vp = {0};
	uint32_t root, dev, vas, bad = 0;
	struct kit k;

	kit_up(&k, chip);
	assert_int_equal(nvl_gsp_rm_alloc(k.gsp, 0, NV01_ROOT, NULL, 0, &root),
			 0);
	assert_int_equal(nvl_gsp_rm_alloc(k.gsp, root, NV01_DEVICE_0, &dp,
					  sizeof(dp), &dev),
			 0);
	nvl_model_gsp_get_stats(k.m, &ms0);

	/* allocation flags: faulting only externally owned (RM's bug
	 * 1766112), never mirrored and externally owned */
	vas_alloc(&k, dev, NV_VASPACE_ALLOCATION_FLAGS_ENABLE_PAGE_FAULTING, 0,
		  -EINVAL);
	expect_status("NV_ERR_INVALID_ARGUMENT");
	vas_alloc(&k, dev, ext | NV_VASPACE_ALLOCATION_FLAGS_IS_MIRRORED, 0,
		  -EINVAL);
	/* a vaSize past the format's VA (vasLimit > vaLimitMax) */
	vas_alloc(&k, dev, ext, (1ull << va_bits) + 4096, -EINVAL);
	/* bigPageSize 0, 64 KiB or 128 KiB; RM's own spaces by index */
	vp.bigPageSize = 4096;
	assert_int_equal(nvl_gsp_rm_alloc(k.gsp, dev, FERMI_VASPACE_A, &vp,
					  sizeof(vp), &bad),
			 -EINVAL);
	vp.bigPageSize = 0;
	vp.index = 1; /* NV_VASPACE_ALLOCATION_INDEX_GPU_HOST */
	assert_int_equal(nvl_gsp_rm_alloc(k.gsp, dev, FERMI_VASPACE_A, &vp,
					  sizeof(vp), &bad),
			 -EOPNOTSUPP);
	/* no parameters at all */
	assert_int_equal(
		nvl_gsp_rm_alloc(k.gsp, dev, FERMI_VASPACE_A, NULL, 0, &bad),
		-EINVAL);
	expect_status("NV_ERR_INVALID_PARAM_STRUCT");
	assert_int_equal(bad, 0);
	nvl_model_gsp_get_stats(k.m, &ms);
	assert_int_equal(ms.objects, ms0.objects);

	/* what the driver allocates: externally owned, faulting allowed,
	 * the whole VA */
	vas = vas_alloc(&k, dev,
			ext | NV_VASPACE_ALLOCATION_FLAGS_ENABLE_PAGE_FAULTING,
			1ull << va_bits, 0);
	/* the VA limit is root entry numEntries - 1's last VA: 0 wraps to
	 * the last 32-bit index (past the format), one too many is past
	 * the format, one too few ends below the space's vaSize - 1 */
	assert_int_equal(set_root(&k, dev, vas, 0, 0), -EINVAL);
	expect_status("NV_ERR_INVALID_ARGUMENT");
	assert_int_equal(set_root(&k, dev, vas, entries + 1, 0), -EINVAL);
	assert_int_equal(set_root(&k, dev, vas, entries - 1, 0), -EINVAL);
	/* APERTURE 1:0 = 3 is no aperture */
	assert_int_equal(set_root(&k, dev, vas, entries, 3), -EINVAL);
	assert_int_equal(chan_on(&k, dev, vas), -EINVAL);
	assert_int_equal(set_root(&k, dev, vas, entries, 0), 0);
	assert_int_equal(chan_on(&k, dev, vas), 0);
	/* an externally owned space takes one root */
	assert_int_equal(set_root(&k, dev, vas, entries, 0), -EINVAL);
	expect_status("NV_ERR_INVALID_STATE");

	/* a space RM manages (neither flag) takes no client root, whatever
	 * numEntries, and so no channel */
	vas = vas_alloc(&k, dev, 0, 1ull << 40, 0);
	assert_int_equal(set_root(&k, dev, vas, 1, 0), -EOPNOTSUPP);
	expect_status("NV_ERR_NOT_SUPPORTED");
	assert_int_equal(chan_on(&k, dev, vas), -EINVAL);
	/* ... but the limit is checked first */
	assert_int_equal(set_root(&k, dev, vas, 0, 0), -EINVAL);

	/* SHARED_MANAGEMENT: the client's root over RM's, again and again */
	vas = vas_alloc(&k, dev, NV_VASPACE_ALLOCATION_FLAGS_SHARED_MANAGEMENT,
			1ull << 40, 0);
	assert_int_equal(set_root(&k, dev, vas, 1, 0), 0);
	assert_int_equal(set_root(&k, dev, vas, entries, 0), 0);
	assert_int_equal(chan_on(&k, dev, vas), 0);

	/* IS_MIRRORED alone is taken (gvaspaceConstruct_() refuses it only
	 * for BAR spaces, NV_ERR_ILLEGAL_ACTION, and with
	 * IS_EXTERNALLY_OWNED), but a mirrored space takes no client root,
	 * SHARED_MANAGEMENT or not: NV_ERR_NOT_SUPPORTED right after the
	 * aperture, before the VA limit */
	vas = vas_alloc(&k, dev,
			NV_VASPACE_ALLOCATION_FLAGS_IS_MIRRORED |
				NV_VASPACE_ALLOCATION_FLAGS_SHARED_MANAGEMENT,
			1ull << 40, 0);
	assert_int_equal(set_root(&k, dev, vas, entries, 3), -EINVAL);
	assert_int_equal(set_root(&k, dev, vas, entries, 0), -EOPNOTSUPP);
	expect_status("NV_ERR_NOT_SUPPORTED");
	assert_int_equal(set_root(&k, dev, vas, 0, 0), -EOPNOTSUPP);
	assert_int_equal(chan_on(&k, dev, vas), -EINVAL);

	assert_int_equal(nvl_gsp_rm_free(k.gsp, root), 0);
	kit_down(&k);
}

static int unset_root(struct kit *k, uint32_t dev, uint32_t vas)
{
	NV0080_CTRL_DMA_UNSET_PAGE_DIRECTORY_PARAMS up = {.hVASpace = vas};

	return nvl_gsp_rm_control(k->gsp, dev,
				  NV0080_CTRL_CMD_DMA_UNSET_PAGE_DIRECTORY, &up,
				  sizeof(up));
}

/*
 * NV0080_CTRL_CMD_DMA_UNSET_PAGE_DIRECTORY (0x801814, ctrl0080dma.h:
 * hVASpace, subDeviceId) as NVIDIA's RM answers it (dma.c
 * deviceCtrlCmdDmaUnsetPageDirectory_IMPL(), gpu_vaspace.c
 * gvaspaceExternalRootDirRevoke()): an externally owned space forgets its
 * root, bound or not, and takes one again; a mirrored space has none
 * (NV_ERR_NOT_SUPPORTED); another space needs a client root committed
 * (NV_ERR_INVALID_STATE).
 */
static void vas_unset_on(const char *chip, uint32_t entries,
			 unsigned int va_bits)
{
	const uint32_t ext = NV_VASPACE_ALLOCATION_FLAGS_IS_EXTERNALLY_OWNED;
	const uint32_t shared = NV_VASPACE_ALLOCATION_FLAGS_SHARED_MANAGEMENT;
	NV0080_CTRL_DMA_UNSET_PAGE_DIRECTORY_PARAMS up = {0};
	NV0080_ALLOC_PARAMETERS dp = {0};
	uint32_t root, dev, dev2, vas;
	struct kit k;

	kit_up(&k, chip);
	assert_int_equal(nvl_gsp_rm_alloc(k.gsp, 0, NV01_ROOT, NULL, 0, &root),
			 0);
	assert_int_equal(nvl_gsp_rm_alloc(k.gsp, root, NV01_DEVICE_0, &dp,
					  sizeof(dp), &dev),
			 0);
	assert_int_equal(nvl_gsp_rm_alloc(k.gsp, root, NV01_DEVICE_0, &dp,
					  sizeof(dp), &dev2),
			 0);
	vas = vas_alloc(&k, dev, ext, 1ull << va_bits, 0);
	/* no such VA space, one of another device, a short struct */
	assert_int_equal(unset_root(&k, dev, vas + 0x100), -ENOENT);
	assert_int_equal(unset_root(&k, dev2, vas), -ENOENT);
	up.hVASpace = vas;
	assert_int_equal(
		nvl_gsp_rm_control(k.gsp, dev,
				   NV0080_CTRL_CMD_DMA_UNSET_PAGE_DIRECTORY,
				   &up, sizeof(up) - 4),
		-EINVAL);
	/* externally owned: unbound or bound, it forgets the root; then a
	 * channel is refused and the space takes a root again */
	assert_int_equal(unset_root(&k, dev, vas), 0);
	assert_int_equal(set_root(&k, dev, vas, entries, 0), 0);
	assert_int_equal(chan_on(&k, dev, vas), 0);
	assert_int_equal(unset_root(&k, dev, vas), 0);
	assert_int_equal(chan_on(&k, dev, vas), -EINVAL);
	assert_int_equal(set_root(&k, dev, vas, entries, 0), 0);
	assert_int_equal(chan_on(&k, dev, vas), 0);

	/* SHARED_MANAGEMENT: only a committed client root goes back */
	vas = vas_alloc(&k, dev, shared, 1ull << 40, 0);
	assert_int_equal(unset_root(&k, dev, vas), -EINVAL);
	expect_status("NV_ERR_INVALID_STATE");
	assert_int_equal(set_root(&k, dev, vas, entries, 0), 0);
	assert_int_equal(unset_root(&k, dev, vas), 0);
	assert_int_equal(unset_root(&k, dev, vas), -EINVAL);
	/* RM's own space: never a client root */
	vas = vas_alloc(&k, dev, 0, 1ull << 40, 0);
	assert_int_equal(unset_root(&k, dev, vas), -EINVAL);
	expect_status("NV_ERR_INVALID_STATE");
	/* mirrored: NV_ERR_NOT_SUPPORTED before the missing root */
	vas = vas_alloc(&k, dev,
			NV_VASPACE_ALLOCATION_FLAGS_IS_MIRRORED | shared,
			1ull << 40, 0);
	assert_int_equal(unset_root(&k, dev, vas), -EOPNOTSUPP);
	expect_status("NV_ERR_NOT_SUPPORTED");

	assert_int_equal(nvl_gsp_rm_free(k.gsp, root), 0);
	kit_down(&k);
}

/* a 4-byte word of VRAM */
static uint32_t vram_rd32(struct kit *k, uint64_t pa)
{
	uint32_t v;

	memcpy(&v, nvl_model_phys_ptr(k->m, pa, 4), 4);
	return v;
}

static uint64_t vram_rd64(struct kit *k, uint64_t pa)
{
	uint64_t v;

	memcpy(&v, nvl_model_phys_ptr(k->m, pa, 8), 8);
	return v;
}

static void vram_wr64(struct kit *k, uint64_t pa, uint64_t v)
{
	memcpy(nvl_model_phys_ptr(k->m, pa, 8), &v, 8);
}

/* a channel on @vas kept: its handle, its instance block in @inst */
static uint32_t chan_keep(struct kit *k, uint32_t dev, uint32_t vas,
			  uint64_t *inst)
{
	NV_CHANNEL_ALLOC_PARAMS cp = {.gpFifoEntries = 512,
				      .hVASpace = vas,
				      .userdOffset = 2ull << 20};
	uint32_t h = 0;

	assert_int_equal(nvl_gsp_rm_alloc(k->gsp, dev,
					  k->m->profile->host_class, &cp,
					  sizeof(cp), &h),
			 0);
	*inst = cp.instOffset;
	return h;
}

/*
 * UNSET_PAGE_DIRECTORY and the space's channels: RM updates the instance
 * block of every channel on the space (ctrl0080dma.h's control, dma.c
 * deviceCtrlCmdDmaUnsetPageDirectory_IMPL(): "the instance block of all
 * channels in the TSGs that's using the VA space",
 * gvaspaceUnregisterAllChanGrps()): RAMIN PAGE_DIR_BASE (0x200, dev_ram.h
 * NV_RAMIN_PAGE_DIR_BASE_TARGET 1:0) goes to INVALID with no address, so
 * Host finds no address space when the channel next runs; a channel of
 * another space keeps its root.
 */
static void vas_unset_channels_on(const char *chip, uint32_t entries)
{
	const uint32_t ext = NV_VASPACE_ALLOCATION_FLAGS_IS_EXTERNALLY_OWNED;
	uint32_t root, dev, sub, vas, other, ch, ch2, ch3;
	uint64_t inst, inst2, inst3;
	struct kit k;

	kit_up(&k, chip);
	kit_tree(&k, &root, &dev, &sub);
	vas = vas_alloc(&k, dev, ext, 0, 0);
	other = vas_alloc(&k, dev, ext, 0, 0);
	assert_int_equal(set_root(&k, dev, vas, entries, 0), 0);
	assert_int_equal(set_root(&k, dev, other, entries, 0), 0);
	ch = chan_keep(&k, dev, vas, &inst);
	ch2 = chan_keep(&k, dev, vas, &inst2);
	ch3 = chan_keep(&k, dev, other, &inst3);
	assert_int_equal(vram_rd32(&k, inst + NVL_HW_RAMIN_PDB) &
				 (NVL_HW_RAMIN_PDB_LO_MASK |
				  NVL_HW_RAMIN_PDB_TARGET_MASK),
			 (1u << 20) | NVL_HW_RAM_TARGET_VID);

	assert_int_equal(unset_root(&k, dev, vas), 0);
	for (int i = 0; i < 2; i++) {
		uint64_t in = i ? inst2 : inst;
		uint32_t pdb = vram_rd32(&k, in + NVL_HW_RAMIN_PDB);

		assert_int_equal(pdb & NVL_HW_RAMIN_PDB_TARGET_MASK,
				 NVL_HW_RAM_TARGET_INVALID);
		assert_int_equal(pdb & NVL_HW_RAMIN_PDB_LO_MASK, 0);
		assert_int_equal(vram_rd32(&k, in + NVL_HW_RAMIN_PDB_HI), 0);
		/* the rest of the word as RM wrote it */
		assert_true(pdb & NVL_HW_RAMIN_PDB_USE_VER2);
	}
	assert_int_equal(vram_rd32(&k, inst3 + NVL_HW_RAMIN_PDB) &
				 (NVL_HW_RAMIN_PDB_LO_MASK |
				  NVL_HW_RAMIN_PDB_TARGET_MASK),
			 (1u << 20) | NVL_HW_RAM_TARGET_VID);
	/* a new root: new channels get it, the revoked ones stay unbound */
	assert_int_equal(set_root(&k, dev, vas, entries, 0), 0);
	assert_int_equal(vram_rd32(&k, inst + NVL_HW_RAMIN_PDB) &
				 NVL_HW_RAMIN_PDB_TARGET_MASK,
			 NVL_HW_RAM_TARGET_INVALID);
	assert_int_equal(chan_on(&k, dev, vas), 0);
	assert_int_equal(nvl_gsp_rm_free(k.gsp, ch), 0);
	assert_int_equal(nvl_gsp_rm_free(k.gsp, ch2), 0);
	assert_int_equal(nvl_gsp_rm_free(k.gsp, ch3), 0);
	assert_int_equal(nvl_gsp_rm_free(k.gsp, root), 0);
	kit_down(&k);
}

static void vas_unset_channels(void **state)
{
	(void)state;
	vas_unset_channels_on("tu102", 4);
	vas_unset_channels_on("gh100", 2);
}

/* the client's page levels for the server-reserved range, root first,
 * from 1 MiB a page each, linked root -> ... -> PD1 the way the client's
 * tables are (mmu_v2.h/mmu_v3.h: aperture 2:1 video memory 1; v2 address
 * 32:8 = pa >> 12, v3 address 51:12 = pa) */
struct srv_levels {
	unsigned int n;
	NV90F1_CTRL_VASPACE_COPY_SERVER_RESERVED_PDES_PARAMS p;
};

static uint64_t t_pde(bool v3, uint64_t pa)
{
	return (v3 ? pa : (pa >> 12) << 8) | 1u << 1;
}

static void srv_levels(struct kit *k, struct srv_levels *s)
{
	const bool v3 = k->m->profile->mmu_version == 3;
	const uint8_t shift[] = {56, 47, 38, 29};
	const uint64_t va = 4ull << 30;
	const unsigned int first = v3 ? 0 : 1;

	memset(s, 0, sizeof(*s));
	s->n = 4 - first;
	s->p.pageSize = 1ull << 29;
	s->p.virtAddrLo = va;
	s->p.virtAddrHi = va + (512ull << 20) - 1;
	s->p.numLevelsToCopy = s->n;
	memset(nvl_model_phys_ptr(k->m, 1ull << 20, 4 * 4096), 0, 4 * 4096);
	for (unsigned int i = 0; i < s->n; i++) {
		NV90F1_CTRL_VASPACE_SERVER_PDE_LEVEL *l = &s->p.levels[i];
		const unsigned int lvl = first + i;
		const uint64_t pa = (1ull << 20) + i * 4096ull;

		l->physAddress = pa;
		l->aperture = GMMU_APERTURE_VIDEO;
		l->pageShift = shift[lvl];
		/* the root: 2 entries on v3's PD4, 4 on v2's PD3 */
		l->size = lvl == 0 ? 16 : (lvl == 1 && !v3) ? 32 : 4096;
		if (i + 1 < s->n)
			vram_wr64(k,
				  pa + ((va >> shift[lvl]) &
					((l->size / 8) - 1)) *
						  8,
				  t_pde(v3, pa + 4096));
	}
}

/* the control from client @client on @obj: the errno of RM's answer */
static int copy_pdes(struct kit *k, uint32_t client, uint32_t obj,
		     const struct srv_levels *s, size_t size)
{
	size_t hdr = nvl_gsp_rm_control_hdr(k->gsp), got = 0;
	uint8_t *msg = calloc(1, hdr + sizeof(s->p));
	int ret;

	assert_non_null(msg);
	ret = nvl_gsp_rm_control_frame(
		k->gsp, client, obj,
		NV90F1_CTRL_CMD_VASPACE_COPY_SERVER_RESERVED_PDES, &s->p, size,
		msg);
	if (!ret)
		ret = nvl_gsp_rpc(k->gsp, GSPABI_K_FUNCTION_GSP_RM_CONTROL, msg,
				  hdr + size, msg, hdr + sizeof(s->p), &got,
				  NVL_GSP_REPLY_RECV, 0);
	if (!ret)
		ret = nvl_gsp_rm_control_parse(
			k->gsp,
			NV90F1_CTRL_CMD_VASPACE_COPY_SERVER_RESERVED_PDES, msg,
			got, NULL, size);
	free(msg);
	return ret;
}

/* the PD1 entry of the range's first VA in the client's PD1 page */
static uint64_t srv_pd1_entry(struct kit *k, const struct srv_levels *s)
{
	return vram_rd64(k, s->p.levels[s->n - 1].physAddress + 8 * 8);
}

/* what VA 4 GiB reads through the client's root (a walk of the tables
 * now, no TLB): the word there, or ~0 when it does not translate */
static uint32_t srv_read(struct kit *k, const struct srv_levels *s)
{
	struct nvl_model_vmctx ctx = {.pdb = s->p.levels[0].physAddress,
				      .aperture = NVL_HW_APERTURE_VIDMEM,
				      .version = k->m->profile->mmu_version};
	struct nvl_model_xlate x;

	if (nvl_model_mmu_walk(k->m, &ctx, 4ull << 30, NVL_HW_FAULT_ACCESS_READ,
			       &x, NULL) ||
	    x.state != NVL_MODEL_XLATE_MAPPED)
		return ~0u;
	return vram_rd32(k, x.pa);
}

/*
 * NV90F1_CTRL_CMD_VASPACE_COPY_SERVER_RESERVED_PDES (ctrl90f1.h, control
 * 0x90f10106 on the VA space; the params the same in 535 and 570): the
 * client's PD3/PD2/PD1 (v2) or PD4/PD3/PD2/PD1 (v3) for [4 GiB, 4.5 GiB)
 * (SPLIT_VAS_SERVER_RM_MANAGED_VA_START/_SIZE), root first, pageSize
 * 512 MiB, as Nouveau's r535_mmu_vaspace_new() sends them. Every refusal
 * (RM's statuses: gpu_vaspace.c vaspaceapiCtrlCmdVaspaceCopyServer
 * ReservedPdes(), gvaspaceCopyServerReservedPdes(); and the model's) leaves
 * the space as it was: nothing in the client's PD1 page, no channel. Taken:
 * RM's page at 4 GiB resolves through the client's root, channels on the
 * space get the client's root as PDB; the space's free takes RM's entry
 * out of the client's page.
 */
static void vas_copy_on(const char *chip)
{
	const uint32_t ext = NV_VASPACE_ALLOCATION_FLAGS_IS_EXTERNALLY_OWNED;
	const uint32_t shared = NV_VASPACE_ALLOCATION_FLAGS_SHARED_MANAGEMENT;
	uint32_t root, dev, sub, root2, dev2, sub2, vas, evas, svas, ch;
	uint32_t more[8];
	uint64_t inst;
	struct srv_levels s, b;
	struct kit k;

	kit_up(&k, chip);
	kit_tree(&k, &root, &dev, &sub);
	kit_tree(&k, &root2, &dev2, &sub2);
	vas = vas_alloc(&k, dev, 0, 1ull << 40, 0);
	srv_levels(&k, &s);

	/* what names the space and the GPU */
	assert_int_equal(copy_pdes(&k, root, vas + 0x100, &s, sizeof(s.p)),
			 -ENOENT);
	expect_status("NV_ERR_INVALID_OBJECT_HANDLE");
	assert_int_equal(copy_pdes(&k, root2, vas, &s, sizeof(s.p)), -ENOENT);
	assert_int_equal(copy_pdes(&k, root, dev, &s, sizeof(s.p)),
			 -EOPNOTSUPP);
	assert_int_equal(copy_pdes(&k, root, vas, &s, sizeof(s.p) - 8),
			 -EINVAL);
	b = s;
	b.p.hSubDevice = sub2;
	assert_int_equal(copy_pdes(&k, root, vas, &b, sizeof(b.p)), -ENOENT);
	b.p.hSubDevice = dev;
	assert_int_equal(copy_pdes(&k, root, vas, &b, sizeof(b.p)), -ENOENT);
	b = s;
	b.p.subDeviceId = 2;
	assert_int_equal(copy_pdes(&k, root, vas, &b, sizeof(b.p)), -EINVAL);
	/* level count, page size, range */
	b = s;
	b.p.numLevelsToCopy = GMMU_FMT_MAX_LEVELS + 1;
	assert_int_equal(copy_pdes(&k, root, vas, &b, sizeof(b.p)), -EINVAL);
	b.p.numLevelsToCopy = s.n - 1;
	assert_int_equal(copy_pdes(&k, root, vas, &b, sizeof(b.p)), -EINVAL);
	b = s;
	b.p.pageSize = 0;
	assert_int_equal(copy_pdes(&k, root, vas, &b, sizeof(b.p)), -EINVAL);
	b.p.pageSize = 3ull << 28;
	assert_int_equal(copy_pdes(&k, root, vas, &b, sizeof(b.p)), -EINVAL);
	b.p.pageSize = 2ull << 20;
	assert_int_equal(copy_pdes(&k, root, vas, &b, sizeof(b.p)), -EINVAL);
	b = s;
	b.p.virtAddrLo += 4096;
	assert_int_equal(copy_pdes(&k, root, vas, &b, sizeof(b.p)), -EINVAL);
	b = s;
	b.p.virtAddrLo += 8ull << 30;
	b.p.virtAddrHi += 8ull << 30;
	assert_int_equal(copy_pdes(&k, root, vas, &b, sizeof(b.p)), -EINVAL);
	/* each level: aperture, address, size, shift */
	for (unsigned int i = 0; i < s.n; i++) {
		NV90F1_CTRL_VASPACE_SERVER_PDE_LEVEL *l = &b.p.levels[i];

		b = s;
		l->aperture = GMMU_APERTURE_INVALID;
		assert_int_equal(copy_pdes(&k, root, vas, &b, sizeof(b.p)),
				 -EINVAL);
		l->aperture = GMMU_APERTURE_PEER;
		assert_int_equal(copy_pdes(&k, root, vas, &b, sizeof(b.p)),
				 -EINVAL);
		l->aperture = GMMU_APERTURE_SYS_COH;
		assert_int_equal(copy_pdes(&k, root, vas, &b, sizeof(b.p)),
				 -EOPNOTSUPP);
		b = s;
		l->physAddress += 0x100;
		assert_int_equal(copy_pdes(&k, root, vas, &b, sizeof(b.p)),
				 -EINVAL);
		l->physAddress = k.m->vram_size - 4096;
		assert_int_equal(copy_pdes(&k, root, vas, &b, sizeof(b.p)),
				 -EINVAL);
		b = s;
		l->size += 8;
		assert_int_equal(copy_pdes(&k, root, vas, &b, sizeof(b.p)),
				 -EINVAL);
		b = s;
		l->pageShift = 21;
		assert_int_equal(copy_pdes(&k, root, vas, &b, sizeof(b.p)),
				 -EINVAL);
	}
	/* spaces whose root is the client's: externally owned, before and
	 * after its root; a SHARED_MANAGEMENT one with a committed root */
	evas = vas_alloc(&k, dev, ext, 0, 0);
	assert_int_equal(copy_pdes(&k, root, evas, &s, sizeof(s.p)),
			 -EOPNOTSUPP);
	assert_int_equal(set_root(&k, dev, evas,
				  k.m->profile->mmu_version == 3 ? 2 : 4, 0),
			 0);
	assert_int_equal(copy_pdes(&k, root, evas, &s, sizeof(s.p)),
			 -EOPNOTSUPP);
	assert_int_equal(unset_root(&k, dev, evas), 0);
	assert_int_equal(copy_pdes(&k, root, evas, &s, sizeof(s.p)),
			 -EOPNOTSUPP);
	svas = vas_alloc(&k, dev, shared, 1ull << 40, 0);
	assert_int_equal(set_root(&k, dev, svas,
				  k.m->profile->mmu_version == 3 ? 2 : 4, 0),
			 0);
	assert_int_equal(copy_pdes(&k, root, svas, &s, sizeof(s.p)), -EINVAL);
	expect_status("NV_ERR_INVALID_STATE");
	/* zero levels: RM mirrors nothing */
	b = s;
	b.p.numLevelsToCopy = 0;
	assert_int_equal(copy_pdes(&k, root, vas, &b, sizeof(b.p)), 0);
	/* none of it changed anything */
	assert_int_equal(srv_pd1_entry(&k, &s), 0);
	assert_int_equal(srv_read(&k, &s), ~0u);
	assert_int_equal(chan_on(&k, dev, vas), -EINVAL);

	/* taken: RM's page is at 4 GiB through the client's root, a channel
	 * walks that root; not twice, nor a root over it, nor an unset */
	assert_int_equal(copy_pdes(&k, root, vas, &s, sizeof(s.p)), 0);
	assert_int_not_equal(srv_pd1_entry(&k, &s), 0);
	assert_int_equal(srv_read(&k, &s), vas);
	ch = chan_keep(&k, dev, vas, &inst);
	assert_int_equal(vram_rd32(&k, inst + NVL_HW_RAMIN_PDB) &
				 NVL_HW_RAMIN_PDB_LO_MASK,
			 (uint32_t)s.p.levels[0].physAddress);
	assert_int_equal(copy_pdes(&k, root, vas, &s, sizeof(s.p)), -EINVAL);
	expect_status("NV_ERR_INVALID_STATE");
	assert_int_equal(set_root(&k, dev, vas, 4, 0), -EINVAL);
	assert_int_equal(unset_root(&k, dev, vas), -EINVAL);
	expect_status("NV_ERR_INVALID_STATE");
	assert_int_equal(srv_read(&k, &s), vas);
	/* the space's free takes RM's entry back out of the client's page */
	assert_int_equal(nvl_gsp_rm_free(k.gsp, ch), 0);
	assert_int_equal(nvl_gsp_rm_free(k.gsp, vas), 0);
	assert_int_equal(srv_pd1_entry(&k, &s), 0);
	assert_int_equal(srv_read(&k, &s), ~0u);

	/* RM's tables run out (the model keeps 8 sets): NV_ERR_NO_MEMORY,
	 * and the client's page keeps what the last space put there */
	for (unsigned int i = 0; i < NVL_ARRAY_SIZE(more); i++) {
		more[i] = vas_alloc(&k, dev, 0, 1ull << 40, 0);
		assert_int_equal(copy_pdes(&k, root, more[i], &s, sizeof(s.p)),
				 0);
	}
	vas = vas_alloc(&k, dev, 0, 1ull << 40, 0);
	assert_int_equal(copy_pdes(&k, root, vas, &s, sizeof(s.p)), -ENOMEM);
	assert_int_equal(srv_read(&k, &s), more[NVL_ARRAY_SIZE(more) - 1]);
	assert_int_equal(chan_on(&k, dev, vas), -EINVAL);

	assert_int_equal(nvl_gsp_rm_free(k.gsp, root2), 0);
	assert_int_equal(nvl_gsp_rm_free(k.gsp, root), 0);
	kit_down(&k);
}

static void vas_copy(void **state)
{
	(void)state;
	vas_copy_on("tu102");
	vas_copy_on("gh100");
}

static void vas_unset(void **state)
{
	(void)state;
	vas_unset_on("tu102", 4, 49);
	vas_unset_on("gh100", 2, 57);
}

static void vas_rules(void **state)
{
	(void)state;
	vas_rules_on("tu102", 4, 49);
	vas_rules_on("gh100", 2, 57);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rm_object_tree),
		cmocka_unit_test(rm_abi_calls),
		cmocka_unit_test(vas_rules),
		cmocka_unit_test(vas_unset),
		cmocka_unit_test(vas_unset_channels),
		cmocka_unit_test(vas_copy),
		cmocka_unit_test(status_errno),
		cmocka_unit_test(continuation_both_ways),
		cmocka_unit_test(continuation_while_firmware_polls),
		cmocka_unit_test(calls_across_idle_gaps),
		cmocka_unit_test(read_pointer_counts_element_header),
		cmocka_unit_test(reply_policies),
		cmocka_unit_test(rpc_order_asserted),
		cmocka_unit_test(fw_rejects_corrupt_commands),
		cmocka_unit_test(events_delivered),
		cmocka_unit_test(slow_handler),
		cmocka_unit_test(direct_handler),
		cmocka_unit_test(concurrent_callers),
		cmocka_unit_test(concurrent_callers_with_events),
		cmocka_unit_test(concurrent_callers_yielding),
		cmocka_unit_test(async_calls),
		cmocka_unit_test(create_alloc_failures),
		cmocka_unit_test(rm_alloc_failures),
		cmocka_unit_test(rm_abi_refused_changes_nothing),
	};

	return t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
}

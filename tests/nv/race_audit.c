// SPDX-License-Identifier: MIT
/*
 * TEST: races between public calls of different threads (audit 10), through
 * the public headers only: a randomized concurrent stress on one device
 * (model:tu102), three clients with four threads each looping over random
 * calls on shared handles: BOs (create, close, map, unmap, export, import,
 * madvise, use, wait, query), VMs, bind queues, synchronous and queued binds,
 * channels, execs that wait for and signal syncobjs, syncobjs (create,
 * destroy, wait, signal, reset, transfer, eventfd, sync files), fdinfo and
 * sensor reads, short-lived clients; the third client is destroyed half-way
 * while the others keep calling. Each call returns 0 or a documented
 * negative errno, every wait is bounded, and at the end every client is
 * destroyed and the device holds no BO memory. TSan (build/tsan) and the
 * lock checker watch the rest.
 *
 * The seed is T_SEED (default fixed), the run T_SCALE * 2 s.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <nouvelle/nouvelle.h>
#include <nouvelle/push.h>

#include "t.h"
#include "t_nv.h"

#define KIB T_NV_KIB
#define MIB T_NV_MIB

#define NCL 3 /* clients; the last one is destroyed half-way */
#define NTH 4 /* threads per client */
#define NBO 12
#define NVM 3
#define NCH 3
#define NSO 8
#define NQ 3
/* the pushbuffer every VM of a client has at PB_VA; random binds stay in
 * [BIND_VA, BIND_VA + BIND_SPAN) */
#define PB_VA (16 * MIB)
#define BIND_VA (1ull << 32)
#define BIND_SPAN (256 * MIB)

struct rc_client {
	struct nvl_client *c;
	uint64_t id;
	uint32_t vm0, ch0, pb;
	_Atomic uint32_t bo[NBO], vm[NVM], ch[NCH], so[NSO], q[NQ];
	atomic_bool stop;
};

#define NTOK 8
#define NSUB 4

struct rc {
	struct nvl_device *dev;
	struct rc_client cl[NCL];
	/* export tokens of every client, the third one's too: imports of
	 * tokens whose BO (or client) is going */
	_Atomic uint64_t tok[NTOK];
	_Atomic(struct nvl_device_sensor_sub *) sub[NSUB];
	atomic_ulong calls, errors, sensor_events;
	/* RACE_AUDIT_EVICT=1: 256 MiB of VRAM and big BOs, so that BOs
	 * move while other threads bind them (move_vs_bind's race) */
	bool evict;
};

struct rc_thread {
	struct rc *rc;
	unsigned ci;
	uint64_t rng;
	pthread_t t;
};

/* the errnos the public calls document (each call a subset of them) */
static bool documented(int r)
{
	switch (r) {
	case 0:
	case -EINVAL:
	case -ENOENT:
	case -ENOMEM:
	case -ENOSPC:
	case -EAGAIN:
	case -EBUSY:
	case -EPERM:
	case -ETIME:
	case -ETIMEDOUT:
	case -ECANCELED:
	case -ENODEV:
	case -EIO:
	case -EFAULT:
	case -E2BIG:
	case -EXDEV:
	case -EMFILE:
	case -EBADF:
	case -EDEADLK:
		return true;
	}
	return false;
}

static void rc_ret(struct rc *rc, const char *what, int r)
{
	atomic_fetch_add(&rc->calls, 1);
	if (r < 0)
		atomic_fetch_add(&rc->errors, 1);
	/* RACE_AUDIT_LOG=1: every call, for a histogram of what ran */
	if (getenv("RACE_AUDIT_LOG"))
		fprintf(stderr, "race_audit: %d %s: %s\n", r, what,
			r ? nvl_last_error() : "");
	if (r > 0 || !documented(r)) {
		fprintf(stderr, "race_audit: %s returned %d (%s)\n", what, r,
			nvl_last_error());
		abort();
	}
}

#define CALL(rc, e) rc_ret((rc), #e, (e))

static uint32_t pick(_Atomic uint32_t *a, unsigned n, uint64_t *rng)
{
	return atomic_load(&a[t_rand(rng) % n]);
}

/* put a new handle in a random slot; the one it replaces is closed */
static uint32_t put(_Atomic uint32_t *a, unsigned n, uint64_t *rng, uint32_t h)
{
	return atomic_exchange(&a[t_rand(rng) % n], h);
}

static uint32_t take(_Atomic uint32_t *a, unsigned n, uint64_t *rng)
{
	return atomic_exchange(&a[t_rand(rng) % n], 0);
}

static int64_t soon(uint64_t *rng)
{
	return t_nv_deadline((int64_t)(t_rand(rng) % 2000) * 1000);
}

/* a VM of the usual layout with the client's pushbuffer at PB_VA */
static int new_vm(struct rc_client *k, uint32_t *vm)
{
	struct nvl_vm_create_args va = {.start = T_NV_VA_START,
					.end = T_NV_VA_END,
					.kernel_start = T_NV_KSTART,
					.kernel_range = T_NV_KRANGE};
	struct nvl_vm_bind_op op = {.op = NVL_VM_BIND_OP_MAP,
				    .handle = k->pb,
				    .addr = PB_VA,
				    .range = T_NV_PB_SIZE};
	int r = nvl_vm_create(k->c, &va, vm);

	if (r)
		return r;
	r = nvl_vm_bind(k->c, *vm, 0, &op, 1, NULL, 0, NULL, 0, 0);
	if (r)
		nvl_vm_destroy(k->c, *vm);
	return r;
}

static uint32_t any_vm(struct rc_client *k, uint64_t *rng)
{
	uint32_t vm = pick(k->vm, NVM, rng);

	return vm && t_rand(rng) % 2 ? vm : k->vm0;
}

static uint32_t any_ch(struct rc_client *k, uint64_t *rng)
{
	uint32_t ch = pick(k->ch, NCH, rng);

	return ch && t_rand(rng) % 2 ? ch : k->ch0;
}

static void op_bo(struct rc *rc, struct rc_client *k, uint64_t *rng)
{
	static const uint32_t doms[] = {
		NVL_BO_DOMAIN_VRAM, NVL_BO_DOMAIN_GTT, NVL_BO_DOMAIN_SYSTEM,
		NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT, NVL_BO_DOMAIN_ALL};
	uint32_t h, old, d;
	uint64_t size;
	void *p;
	bool kept;
	int r;

	switch (t_rand(rng) % 8) {
	case 0:
		size = (1 + t_rand(rng) % 64) * 4 * KIB;
		if (rc->evict && t_rand(rng) % 16 == 0)
			size = (2 + t_rand(rng) % 7) * MIB;
		d = doms[t_rand(rng) % (sizeof(doms) / sizeof(doms[0]))];
		r = nvl_bo_create(k->c, size, d, d & NVL_BO_DOMAIN_VRAM,
				  t_rand(rng) % 2 ? NVL_BO_CPU_VISIBLE : 0, &h);
		rc_ret(rc, "nvl_bo_create", r);
		if (!r) {
			old = put(k->bo, NBO, rng, h);
			if (old)
				CALL(rc, nvl_bo_close(k->c, old));
		}
		break;
	case 1:
		/* sometimes close a handle another thread may be using or
		 * closing too */
		h = t_rand(rng) % 4 ? take(k->bo, NBO, rng)
				    : pick(k->bo, NBO, rng);
		if (h)
			CALL(rc, nvl_bo_close(k->c, h));
		break;
	case 2:
		h = pick(k->bo, NBO, rng);
		r = nvl_bo_map(k->c, h, &p);
		rc_ret(rc, "nvl_bo_map", r);
		if (!r) {
			/* other threads may write it too */
			__atomic_store_n((uint32_t *)p, (uint32_t)t_rand(rng),
					 __ATOMIC_RELAXED);
			r = nvl_bo_unmap(k->c, h);
			/* closed meanwhile: the mapping goes with the
			 * client */
			if (r != -ENOENT)
				rc_ret(rc, "nvl_bo_unmap", r);
		}
		break;
	case 3: {
		/* export, import into a client that lives to the end */
		struct rc_client *to = &rc->cl[t_rand(rng) % (NCL - 1)];
		uint64_t tok;

		h = pick(k->bo, NBO, rng);
		r = nvl_bo_export(k->c, h, &tok);
		rc_ret(rc, "nvl_bo_export", r);
		if (!r)
			atomic_store(&rc->tok[t_rand(rng) % NTOK], tok);
		if (t_rand(rng) % 2)
			tok = atomic_load(&rc->tok[t_rand(rng) % NTOK]);
		else if (r)
			break;
		r = nvl_bo_import(to->c, tok, &h);
		rc_ret(rc, "nvl_bo_import", r);
		/* an import into this client may give a handle the slots
		 * have already; only put foreign ones */
		if (!r && to != k) {
			old = put(to->bo, NBO, rng, h);
			if (old)
				CALL(rc, nvl_bo_close(to->c, old));
		}
		break;
	}
	case 4:
		h = pick(k->bo, NBO, rng);
		CALL(rc, nvl_bo_madvise(k->c, h, t_rand(rng) % 2, &kept));
		break;
	case 5:
		CALL(rc, nvl_bo_use(k->c, pick(k->bo, NBO, rng)));
		break;
	case 6: {
		struct nvl_bo_info in;

		CALL(rc, nvl_bo_query(k->c, pick(k->bo, NBO, rng), &in));
		break;
	}
	default:
		CALL(rc, nvl_bo_wait(k->c, pick(k->bo, NBO, rng),
				     (int64_t)(t_rand(rng) % 1000) * 1000));
		break;
	}
}

static void op_vm(struct rc *rc, struct rc_client *k, uint64_t *rng)
{
	struct nvl_vm_bind_op op = {0};
	struct nvl_vm_sync sig, wait;
	uint32_t h, old, q;
	int r;

	switch (t_rand(rng) % 7) {
	case 0:
		r = new_vm(k, &h);
		rc_ret(rc, "new_vm", r);
		if (!r) {
			old = put(k->vm, NVM, rng, h);
			if (old)
				CALL(rc, nvl_vm_destroy(k->c, old));
		}
		break;
	case 1:
		h = t_rand(rng) % 4 ? take(k->vm, NVM, rng)
				    : pick(k->vm, NVM, rng);
		if (h)
			CALL(rc, nvl_vm_destroy(k->c, h));
		break;
	case 2:
		r = nvl_vm_bind_queue_create(k->c, any_vm(k, rng), &q);
		rc_ret(rc, "nvl_vm_bind_queue_create", r);
		if (!r) {
			old = put(k->q, NQ, rng, q);
			if (old)
				CALL(rc, nvl_vm_bind_queue_destroy(k->c, old));
		}
		break;
	case 3:
		h = take(k->q, NQ, rng);
		if (h)
			CALL(rc, nvl_vm_bind_queue_destroy(k->c, h));
		break;
	default:
		/* a bind, synchronous or queued on a queue that signals a
		 * syncobj */
		op.op = t_rand(rng) % 3;
		op.addr = BIND_VA +
			  (t_rand(rng) % (BIND_SPAN / (64 * KIB))) * 64 * KIB;
		if (op.op != NVL_VM_BIND_OP_UNMAP)
			op.handle = pick(k->bo, NBO, rng);
		if (op.op == NVL_VM_BIND_OP_UNMAP_ALL) {
			op.addr = 0;
		} else {
			op.range = (1 + t_rand(rng) % 4) * 4 * KIB;
			if (!op.handle && op.op == NVL_VM_BIND_OP_MAP)
				op.flags = t_rand(rng) % 2 ? NVL_VM_BIND_SPARSE
							   : NVL_VM_BIND_NULL;
		}
		sig.handle = pick(k->so, NSO, rng);
		sig.flags = 0;
		sig.point = t_rand(rng) % 4 ? 0 : 1 + t_rand(rng) % 8;
		wait.handle = pick(k->so, NSO, rng);
		wait.flags = 0;
		wait.point = 0;
		q = pick(k->q, NQ, rng);
		if (q && sig.handle && t_rand(rng) % 2)
			CALL(rc,
			     nvl_vm_bind(k->c, any_vm(k, rng), q, &op, 1, &wait,
					 wait.handle && t_rand(rng) % 2, &sig,
					 1, NVL_VM_BIND_ASYNC));
		else
			CALL(rc, nvl_vm_bind(k->c, any_vm(k, rng), 0, &op, 1,
					     NULL, 0, NULL, 0, 0));
		break;
	}
}

static void op_ch(struct rc *rc, struct rc_client *k, uint64_t *rng)
{
	struct nvl_exec_push p = {.va = PB_VA, .len = 4 * 4};
	struct nvl_vm_sync w = {0}, s = {0};
	struct nvl_channel_info ci;
	uint32_t h, old;
	int r;

	switch (t_rand(rng) % 6) {
	case 0:
		r = nvl_channel_create(k->c, any_vm(k, rng), NVL_ENGINE_COPY, 0,
				       &h);
		rc_ret(rc, "nvl_channel_create", r);
		if (!r) {
			old = put(k->ch, NCH, rng, h);
			if (old)
				CALL(rc, nvl_channel_destroy(k->c, old));
		}
		break;
	case 1:
		h = t_rand(rng) % 4 ? take(k->ch, NCH, rng)
				    : pick(k->ch, NCH, rng);
		if (h)
			CALL(rc, nvl_channel_destroy(k->c, h));
		break;
	case 2:
		CALL(rc, nvl_channel_query(k->c, any_ch(k, rng), &ci));
		break;
	default:
		/* a job of NOPs; it waits for a syncobj that has a fence
		 * (or fails -ENOENT/-EINVAL) and signals another */
		w.handle = pick(k->so, NSO, rng);
		s.handle = pick(k->so, NSO, rng);
		/* a timeline point sometimes (syncobjs are both kinds) */
		if (t_rand(rng) % 4 == 0)
			w.point = 1 + t_rand(rng) % 8;
		if (t_rand(rng) % 4 == 0)
			s.point = 1 + t_rand(rng) % 8;
		CALL(rc, nvl_exec(k->c, any_ch(k, rng), &p, 1, &w,
				  w.handle && t_rand(rng) % 2, &s,
				  s.handle ? 1 : 0, 0));
		break;
	}
}

static void op_so(struct rc *rc, struct rc_client *k, uint64_t *rng)
{
	uint32_t h[3], old, first;
	uint64_t pts[3] = {0};
	int r, fd, st;

	for (unsigned i = 0; i < 3; i++)
		h[i] = pick(k->so, NSO, rng);
	switch (t_rand(rng) % 11) {
	case 0:
		r = nvl_syncobj_create(
			k->c, t_rand(rng) % 2 ? NVL_SYNCOBJ_CREATE_SIGNALED : 0,
			&h[0]);
		rc_ret(rc, "nvl_syncobj_create", r);
		if (!r) {
			old = put(k->so, NSO, rng, h[0]);
			if (old)
				CALL(rc, nvl_syncobj_destroy(k->c, old));
		}
		break;
	case 1:
		h[0] = t_rand(rng) % 4 ? take(k->so, NSO, rng) : h[0];
		if (h[0])
			CALL(rc, nvl_syncobj_destroy(k->c, h[0]));
		break;
	case 2:
		for (unsigned i = 0; i < 3; i++)
			pts[i] = t_rand(rng) % 2 ? 0 : 1 + t_rand(rng) % 8;
		CALL(rc, nvl_syncobj_wait(k->c, h, t_rand(rng) % 2 ? pts : NULL,
					  1 + t_rand(rng) % 3, soon(rng),
					  t_rand(rng) % 8, &first));
		break;
	case 3:
		if (t_rand(rng) % 2) {
			CALL(rc,
			     nvl_syncobj_signal(k->c, h, 1 + t_rand(rng) % 3));
		} else {
			for (unsigned i = 0; i < 3; i++)
				pts[i] = 1 + t_rand(rng) % 8;
			CALL(rc, nvl_syncobj_timeline_signal(
					 k->c, h, pts, 1 + t_rand(rng) % 3));
		}
		break;
	case 4:
		CALL(rc, nvl_syncobj_reset(k->c, h, 1 + t_rand(rng) % 3));
		break;
	case 5:
		CALL(rc, nvl_syncobj_transfer(k->c, h[0], t_rand(rng) % 3, h[1],
					      t_rand(rng) % 3, 0));
		break;
	case 6:
		CALL(rc, nvl_syncobj_query(k->c, h, pts, 3, 0));
		break;
	case 7:
		CALL(rc, nvl_syncobj_status(k->c, h[0], 0, &st));
		break;
	case 8:
		fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (fd < 0)
			break;
		CALL(rc,
		     nvl_syncobj_eventfd(
			     k->c, h[0], 0, fd,
			     t_rand(rng) % 2 ? NVL_SYNCOBJ_WAIT_AVAILABLE : 0));
		close(fd);
		break;
	case 9:
		r = nvl_syncobj_export_sync_file(k->c, h[0], 0, &fd);
		rc_ret(rc, "nvl_syncobj_export_sync_file", r);
		if (!r) {
			CALL(rc,
			     nvl_syncobj_import_sync_file(k->c, h[1], 0, fd));
			close(fd);
		}
		break;
	default:
		r = nvl_syncobj_handle_to_fd(k->c, h[0], &fd);
		rc_ret(rc, "nvl_syncobj_handle_to_fd", r);
		if (!r) {
			r = nvl_syncobj_fd_to_handle(k->c, fd, &h[2]);
			rc_ret(rc, "nvl_syncobj_fd_to_handle", r);
			close(fd);
			if (!r) {
				old = put(k->so, NSO, rng, h[2]);
				if (old)
					CALL(rc,
					     nvl_syncobj_destroy(k->c, old));
			}
		}
		break;
	}
}

static void on_sensor(void *arg, enum nvl_sensor_event ev)
{
	struct rc *rc = arg;

	(void)ev;
	atomic_fetch_add(&rc->sensor_events, 1);
}

/* reads of the device and of every client, the third one's even after it
 * is gone; sensor subscriptions */
static void op_read(struct rc *rc, struct rc_client *k, uint64_t *rng)
{
	struct nvl_device_sensor_sub *sub;
	struct nvl_device_info in;
	char buf[2048];
	struct nvl_sensors s;
	struct nvl_device_memory m;
	struct nvl_move_stats ms;
	struct nvl_fault_stats fs;
	uint64_t ids[8];
	int r;

	switch (t_rand(rng) % 8) {
	case 5:
		r = nvl_device_sensors_subscribe(rc->dev, 1 + t_rand(rng) % 3,
						 on_sensor, rc, &sub);
		rc_ret(rc, "nvl_device_sensors_subscribe", r);
		if (!r) {
			sub = atomic_exchange(&rc->sub[t_rand(rng) % NSUB],
					      sub);
			nvl_device_sensors_unsubscribe(rc->dev, sub);
		}
		break;
	case 6:
		sub = atomic_exchange(&rc->sub[t_rand(rng) % NSUB], NULL);
		nvl_device_sensors_unsubscribe(rc->dev, sub);
		break;
	case 7:
		CALL(rc, nvl_device_query(rc->dev, &in));
		CALL(rc, nvl_device_status(rc->dev));
		break;
	case 0:
		r = nvl_client_fdinfo(k->c, buf, sizeof(buf));
		rc_ret(rc, "nvl_client_fdinfo", r < 0 ? r : 0);
		break;
	case 1:
		r = nvl_device_client_fdinfo(rc->dev,
					     rc->cl[t_rand(rng) % NCL].id, buf,
					     sizeof(buf));
		rc_ret(rc, "nvl_device_client_fdinfo", r < 0 ? r : 0);
		break;
	case 2:
		r = nvl_device_clients(rc->dev, ids, 8);
		rc_ret(rc, "nvl_device_clients", r < 0 ? r : 0);
		break;
	case 3:
		CALL(rc, nvl_device_sensors(rc->dev, &s));
		break;
	default:
		CALL(rc, nvl_device_memory(rc->dev, &m));
		CALL(rc, nvl_device_move_stats(rc->dev, &ms));
		CALL(rc, nvl_device_fault_stats(rc->dev, &fs));
		break;
	}
}

/* a client made, used a little and destroyed with its objects */
static void op_short_client(struct rc *rc, uint64_t *rng)
{
	struct rc_client k = {0};
	uint32_t h, ch;
	uint64_t tok;
	int r;

	r = nvl_device_client_create(rc->dev, &k.c);
	rc_ret(rc, "nvl_device_client_create", r);
	if (r)
		return;
	r = nvl_bo_create(k.c, T_NV_PB_SIZE, NVL_BO_DOMAIN_VRAM,
			  NVL_BO_DOMAIN_VRAM, NVL_BO_CPU_VISIBLE, &k.pb);
	rc_ret(rc, "nvl_bo_create", r);
	if (!r && !new_vm(&k, &k.vm0)) {
		if (t_rand(rng) % 2)
			CALL(rc, nvl_channel_create(k.c, k.vm0, NVL_ENGINE_COPY,
						    0, &ch));
		/* a BO of a lasting client imported here */
		h = pick(rc->cl[0].bo, NBO, rng);
		if (!nvl_bo_export(rc->cl[0].c, h, &tok))
			CALL(rc, nvl_bo_import(k.c, tok, &h));
	}
	nvl_client_destroy(k.c);
}

static void *rc_main(void *arg)
{
	struct rc_thread *t = arg;
	struct rc *rc = t->rc;
	struct rc_client *k = &rc->cl[t->ci];

	while (!atomic_load(&k->stop)) {
		switch (t_rand(&t->rng) % 16) {
		case 0 ... 3:
			op_bo(rc, k, &t->rng);
			break;
		case 4 ... 6:
			op_vm(rc, k, &t->rng);
			break;
		case 7 ... 9:
			op_ch(rc, k, &t->rng);
			break;
		case 10 ... 13:
			op_so(rc, k, &t->rng);
			break;
		case 14:
			op_read(rc, k, &t->rng);
			break;
		default:
			if (t_rand(&t->rng) % 8 == 0)
				op_short_client(rc, &t->rng);
			else
				op_read(rc, k, &t->rng);
			break;
		}
	}
	return NULL;
}

static void client_up(struct rc *rc, struct rc_client *k)
{
	struct nvl_push p;
	uint32_t *pb;
	uint64_t ids[NCL + 1];
	int n;

	memset(k, 0, sizeof(*k));
	assert_int_equal(nvl_device_client_create(rc->dev, &k->c), 0);
	n = nvl_device_clients(rc->dev, ids, NCL + 1);
	assert_true(n > 0);
	k->id = ids[n - 1]; /* the newest */
	assert_int_equal(nvl_bo_create(k->c, T_NV_PB_SIZE, NVL_BO_DOMAIN_VRAM,
				       NVL_BO_DOMAIN_VRAM, NVL_BO_CPU_VISIBLE,
				       &k->pb),
			 0);
	assert_int_equal(nvl_bo_map(k->c, k->pb, (void **)&pb), 0);
	assert_int_equal(nvl_push_init(&p, pb, T_NV_PB_SIZE), 0);
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(nvl_push_host_nop(&p), 0);
	assert_int_equal(nvl_push_dwords(&p), 4);
	assert_int_equal(nvl_bo_unmap(k->c, k->pb), 0);
	assert_int_equal(new_vm(k, &k->vm0), 0);
	assert_int_equal(
		nvl_channel_create(k->c, k->vm0, NVL_ENGINE_COPY, 0, &k->ch0),
		0);
	for (unsigned i = 0; i < NSO / 2; i++)
		assert_int_equal(
			nvl_syncobj_create(k->c, 0, (uint32_t *)&k->so[i]), 0);
}

/* after the storm the client's first channel still runs a job */
static void client_check(struct rc_client *k)
{
	struct nvl_exec_push p = {.va = PB_VA, .len = 4 * 4};
	struct nvl_vm_sync s = {0};
	struct nvl_channel_info ci;

	assert_int_equal(nvl_syncobj_create(k->c, 0, &s.handle), 0);
	assert_int_equal(nvl_exec(k->c, k->ch0, &p, 1, NULL, 0, &s, 1, 0), 0);
	assert_int_equal(nvl_syncobj_wait(k->c, &s.handle, NULL, 1,
					  t_nv_deadline(20 * T_NV_SEC), 0,
					  NULL),
			 0);
	assert_int_equal(nvl_channel_query(k->c, k->ch0, &ci), 0);
	assert_int_equal(ci.alive, 1);
}

static void storm(void **state)
{
	struct nvl_device_opts opts = {.vram_size = 256 * MIB};
	struct nvl_device_memory m0, m1;
	struct rc_thread th[NCL][NTH];
	uint64_t seed = t_seed(0x5eed0a10);
	int64_t ms = (int64_t)(2000 * t_scale());
	struct rc *rc = calloc(1, sizeof(*rc));

	(void)state;
	assert_non_null(rc);
	printf("# seed %#llx, %lld ms\n", (unsigned long long)seed,
	       (long long)ms);
	rc->evict = getenv("RACE_AUDIT_EVICT");
	assert_int_equal(nvl_device_open("model:tu102",
					 rc->evict ? &opts : NULL, &rc->dev),
			 0);
	assert_int_equal(nvl_device_memory(rc->dev, &m0), 0);
	for (unsigned c = 0; c < NCL; c++)
		client_up(rc, &rc->cl[c]);
	for (unsigned c = 0; c < NCL; c++)
		for (unsigned i = 0; i < NTH; i++) {
			th[c][i] = (struct rc_thread){.rc = rc,
						      .ci = c,
						      .rng = seed *
							     (c * NTH + i + 1)};
			assert_int_equal(pthread_create(&th[c][i].t, NULL,
							rc_main, &th[c][i]),
					 0);
		}
	usleep(ms * 500);
	/* the last client goes while the others keep calling */
	atomic_store(&rc->cl[NCL - 1].stop, true);
	for (unsigned i = 0; i < NTH; i++)
		pthread_join(th[NCL - 1][i].t, NULL);
	nvl_client_destroy(rc->cl[NCL - 1].c);
	usleep(ms * 500);
	for (unsigned c = 0; c < NCL - 1; c++)
		atomic_store(&rc->cl[c].stop, true);
	for (unsigned c = 0; c < NCL - 1; c++)
		for (unsigned i = 0; i < NTH; i++)
			pthread_join(th[c][i].t, NULL);
	printf("# %lu calls, %lu failed\n", atomic_load(&rc->calls),
	       atomic_load(&rc->errors));
	for (unsigned c = 0; c < NCL - 1; c++) {
		client_check(&rc->cl[c]);
		nvl_client_destroy(rc->cl[c].c);
	}
	for (unsigned i = 0; i < NSUB; i++)
		nvl_device_sensors_unsubscribe(rc->dev, rc->sub[i]);
	/* every BO went with its client */
	assert_int_equal(nvl_device_memory(rc->dev, &m1), 0);
	assert_int_equal(m1.vram_used, m0.vram_used);
	assert_int_equal(m1.gtt_used, m0.gtt_used);
	assert_int_equal(m1.system_used, m0.system_used);
	nvl_device_close(rc->dev);
	free(rc);
}

struct ed_arg {
	struct rc_client *k;
	uint32_t ch;
	atomic_int started;
	int bad;
};

static void *ed_exec(void *arg)
{
	struct ed_arg *a = arg;
	struct nvl_exec_push p = {.va = PB_VA, .len = 4 * 4};
	struct nvl_vm_sync s = {.handle = a->k->so[0]};

	for (unsigned i = 0; i < 10000; i++) {
		int r = nvl_exec(a->k->c, a->ch, &p, 1, NULL, 0, &s, 1, 0);

		atomic_store(&a->started, 1);
		if (r == -ENOENT || r == -ENODEV)
			break;
		if (r)
			a->bad = r;
	}
	return NULL;
}

/*
 * A channel destroyed while another thread submits to it: the destroy freed
 * the channel's scheduler while the nvl_exec() that had looked the channel
 * up still initialised its job on the entity and pushed it (a use after
 * free: TSan's race on the scheduler, ASan's heap-use-after-free).
 */
static void exec_vs_destroy(void **state)
{
	struct rc *rc = calloc(1, sizeof(*rc));
	struct rc_client *k = &rc->cl[0];
	uint64_t rng = t_seed(0x5eed0a11);

	(void)state;
	assert_non_null(rc);
	assert_int_equal(nvl_device_open("model:tu102", NULL, &rc->dev), 0);
	client_up(rc, k);
	for (unsigned i = 0; i < 40; i++) {
		struct ed_arg a = {.k = k};
		pthread_t t;

		assert_int_equal(nvl_channel_create(k->c, k->vm0,
						    NVL_ENGINE_COPY, 0, &a.ch),
				 0);
		assert_int_equal(pthread_create(&t, NULL, ed_exec, &a), 0);
		while (!atomic_load(&a.started))
			sched_yield();
		for (unsigned n = t_rand(&rng) % 64; n; n--)
			sched_yield();
		assert_int_equal(nvl_channel_destroy(k->c, a.ch), 0);
		pthread_join(t, NULL);
		assert_int_equal(a.bad, 0);
	}
	client_check(k);
	nvl_client_destroy(k->c);
	nvl_device_close(rc->dev);
	free(rc);
}

struct mu_arg {
	struct nvl_client *c;
	uint32_t bo;
	unsigned idx;
	int bad;
	pthread_t t;
};

static void *mu_loop(void *arg)
{
	struct mu_arg *a = arg;

	for (unsigned i = 0; i < 2000 && !a->bad; i++) {
		uint32_t *p;
		int r = nvl_bo_map(a->c, a->bo, (void **)&p);

		if (!r) {
			p[a->idx] = i; /* its own word */
			r = nvl_bo_unmap(a->c, a->bo);
		}
		a->bad = r;
	}
	return NULL;
}

/*
 * Threads of one client mapping and unmapping one BO: the client's mapping
 * record, made by the first nvl_bo_map() before it mapped, was freed by
 * another thread's map and unmap in between (its count back at 0), and the
 * first then counted its mapping in the freed record (ASan: heap use after
 * free in nvl_bo_map()); a first map that failed freed the record another
 * thread's mapping was counted in.
 */
static void map_vs_unmap(void **state)
{
	struct nvl_device *dev;
	struct nvl_client *c;
	struct mu_arg a[4];
	struct nvl_bo_info in;
	uint32_t bo;

	(void)state;
	assert_int_equal(nvl_device_open("model:tu102", NULL, &dev), 0);
	assert_int_equal(nvl_device_client_create(dev, &c), 0);
	for (unsigned round = 0; round < 2; round++) {
		uint32_t d = round ? NVL_BO_DOMAIN_GTT : NVL_BO_DOMAIN_VRAM;

		assert_int_equal(nvl_bo_create(c, 64 * KIB, d, d,
					       NVL_BO_CPU_VISIBLE, &bo),
				 0);
		for (unsigned i = 0; i < 4; i++) {
			a[i] = (struct mu_arg){.c = c, .bo = bo, .idx = i};
			assert_int_equal(
				pthread_create(&a[i].t, NULL, mu_loop, &a[i]),
				0);
		}
		for (unsigned i = 0; i < 4; i++) {
			pthread_join(a[i].t, NULL);
			assert_int_equal(a[i].bad, 0);
		}
		/* every mapping ended: the BO is free to move */
		assert_int_equal(nvl_bo_query(c, bo, &in), 0);
		assert_false(in.pinned);
		assert_int_equal(nvl_bo_unmap(c, bo), -EINVAL);
		assert_int_equal(nvl_bo_close(c, bo), 0);
	}
	nvl_client_destroy(c);
	nvl_device_close(dev);
}

struct mb_arg {
	struct nvl_client *c;
	uint32_t vm, bo;
	atomic_bool stop;
	int ret;
};

static void *mb_bind(void *arg)
{
	struct mb_arg *a = arg;
	struct nvl_vm_bind_op op = {.op = NVL_VM_BIND_OP_MAP,
				    .handle = a->bo,
				    .addr = BIND_VA,
				    .range = 256 * KIB};
	struct nvl_vm_bind_op un = {.op = NVL_VM_BIND_OP_UNMAP,
				    .addr = BIND_VA,
				    .range = 256 * KIB};

	while (!atomic_load(&a->stop) && !a->ret) {
		a->ret = nvl_vm_bind(a->c, a->vm, 0, &op, 1, NULL, 0, NULL, 0,
				     0);
		if (!a->ret)
			a->ret = nvl_vm_bind(a->c, a->vm, 0, &un, 1, NULL, 0,
					     NULL, 0, 0);
	}
	return NULL;
}

/*
 * A BO evicted and moved back to VRAM by one thread while another binds
 * it. No bind takes the BO's resv, so the bind's commit reads the BO's
 * backing (bo_get_backing(): its domain and VRAM buddy blocks) while the
 * eviction frees those blocks and the move swaps in new ones: TSan
 * reported the race (evict_bo -> nvl_buddy_free_list against
 * bo_get_backing in nvl_pt_map) every run, and the block walk could follow
 * blocks given back to the allocator. Found here, fixed by mm->place_lock
 * (docs/mm.md "Reading a placement without the resv"; nv_mm_audit
 * bind_while_moving is the memory manager's own reduced test).
 */
static void move_vs_bind(void **state)
{
	struct nvl_device_opts opts = {.vram_size = 256 * MIB};
	struct nvl_device *dev;
	struct nvl_bo_info in;
	struct nvl_client *c;
	uint32_t fill[64];
	struct mb_arg a = {0};
	unsigned nfill;
	pthread_t t;

	(void)state;
	assert_int_equal(nvl_device_open("model:tu102", &opts, &dev), 0);
	assert_int_equal(nvl_device_client_create(dev, &c), 0);
	a.c = c;
	a.vm = t_nv_vm(c);
	assert_int_equal(nvl_bo_create(c, 256 * KIB,
				       NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
				       NVL_BO_DOMAIN_VRAM, 0, &a.bo),
			 0);
	assert_int_equal(nvl_bo_use(c, a.bo), 0);
	assert_int_equal(pthread_create(&t, NULL, mb_bind, &a), 0);
	for (unsigned i = 0; i < 20; i++) {
		/* VRAM filled up: the BO goes to GTT */
		nfill = 0;
		do {
			assert_true(nfill < 64);
			assert_int_equal(nvl_bo_create(c, 8 * MIB,
						       NVL_BO_DOMAIN_VRAM,
						       NVL_BO_DOMAIN_VRAM, 0,
						       &fill[nfill]),
					 0);
			assert_int_equal(nvl_bo_use(c, fill[nfill++]), 0);
			assert_int_equal(nvl_bo_query(c, a.bo, &in), 0);
		} while (in.current != NVL_BO_DOMAIN_GTT);
		while (nfill)
			assert_int_equal(nvl_bo_close(c, fill[--nfill]), 0);
		/* and back, while the other thread binds it */
		assert_int_equal(nvl_bo_use(c, a.bo), 0);
		assert_int_equal(nvl_bo_query(c, a.bo, &in), 0);
		assert_int_equal(in.current, NVL_BO_DOMAIN_VRAM);
	}
	atomic_store(&a.stop, true);
	pthread_join(t, NULL);
	assert_int_equal(a.ret, 0);
	nvl_client_destroy(c);
	nvl_device_close(dev);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(map_vs_unmap),
	cmocka_unit_test(exec_vs_destroy),
	cmocka_unit_test(move_vs_bind),
	cmocka_unit_test(storm),
};

int main(int argc, char **argv)
{
	return t_main(__FILE__, tests, sizeof(tests) / sizeof(tests[0]), argc,
		      argv);
}

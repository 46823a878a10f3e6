// SPDX-License-Identifier: MIT
/*
 * TEST: bind
 * Description: VM_BIND through the client API: handles, every bad input
 * (clear error, nothing changed), all-or-nothing under allocation failure at
 * every allocation, ordered multi-op calls, async ordering within a queue
 * and independence across queues, waits and signals through syncobjs,
 * zero-op calls, and a banned VM after an injected backend failure inside a
 * bind job (run under the fence-signalling checker).
 */
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

#include <nouvelle/bo.h>
#include <nouvelle/sync.h>
#include <nouvelle/vm.h>

#include "t.h"
#include "base/client.h"
#include "base/log.h"
#include "base/time.h"
#include "mm/bo.h"
#include "sync/checker.h"
#include "sync/exec.h"
#include "vm/vm_exec.h"
#include "sync/fence.h"
#include "sync/syncobj.h"
#include "vm/pt_record.h"
#include "vm/vm.h"
#include "vmt.h"

#define GiB (1ull << 30)
#define MiB (1ull << 20)

struct env {
	struct nvl_client *c;
	uint32_t vm, bo, bo2;
	struct nvl_vm *v;
};

static void env_init(struct env *e)
{
	struct nvl_vm_create_args a = {
		.start = 0,
		.end = 16 * GiB,
		.kernel_start = 15 * GiB,
		.kernel_range = GiB,
	};

	assert_int_equal(nvl_client_create(&e->c), 0);
	assert_int_equal(nvl_vm_create(e->c, &a, &e->vm), 0);
	assert_int_equal(nvl_bo_create(e->c, 4 * MiB, NVL_BO_DOMAIN_SYSTEM, 0,
				       0, &e->bo),
			 0);
	assert_int_equal(nvl_bo_create(e->c, 4 * MiB, NVL_BO_DOMAIN_SYSTEM, 0,
				       0, &e->bo2),
			 0);
	e->v = nvl_vm_lookup(e->c, e->vm);
	assert_non_null(e->v);
}

static void env_fini(struct env *e)
{
	struct nvl_vm_pt_record *rec = e->v->rec;
	struct nvl_vm_pt_record_stats st;

	nvl_vm_pt_record_stats(rec, &st);
	assert_int_equal(st.errors, 0);
	nvl_vm_put(e->v);
	nvl_client_destroy(e->c);
	assert_int_equal(nvl_checker_violations(), 0);
}

static struct nvl_vm_bind_op map_op(uint32_t bo, uint64_t addr, uint64_t range,
				    uint64_t off)
{
	return (struct nvl_vm_bind_op){.op = NVL_VM_BIND_OP_MAP,
				       .handle = bo,
				       .addr = addr,
				       .range = range,
				       .bo_offset = off};
}

static struct nvl_vm_bind_op unmap_op(uint64_t addr, uint64_t range)
{
	return (struct nvl_vm_bind_op){
		.op = NVL_VM_BIND_OP_UNMAP, .addr = addr, .range = range};
}

static int bind(struct env *e, const struct nvl_vm_bind_op *ops, uint32_t n)
{
	return nvl_vm_bind(e->c, e->vm, 0, ops, n, NULL, 0, NULL, 0, 0);
}

/* A fingerprint of the VM's state: mappings and recorded page tables. */
static uint64_t state(struct env *e)
{
	uint64_t h = nvl_vm_pt_record_hash(e->v->rec);
	struct nvl_gpuva *va;

	nvl_flock_lock(&e->v->gpuvm->lock);
	for (va = nvl_gpuvm_first_va(e->v->gpuvm); va;
	     va = nvl_gpuvm_next_va(va))
		h = h * 1000003 ^
		    (nvl_gpuva_addr(va) + nvl_gpuva_range(va) * 7 +
		     va->bo_offset * 13 + va->flags +
		     (uintptr_t)nvl_gpuva_obj(va));
	h ^= nvl_itree_count(&e->v->gpuvm->regions) * 0x1234567;
	nvl_flock_unlock(&e->v->gpuvm->lock);
	return h;
}

static void page_is(struct env *e, uint64_t va, enum nvl_vm_pt_state st)
{
	struct nvl_vm_pt_page p;

	nvl_vm_pt_record_query(e->v->rec, va, &p);
	if (p.state != st)
		fail_msg("page %#llx: state %d, expected %d",
			 (unsigned long long)va, p.state, st);
}

static void map_unmap_through_handles_writes_page_tables(void **state_)
{
	struct env e;
	struct nvl_vm_bind_op ops[2] = {map_op(0, GiB, 2 * MiB, 0)};
	struct nvl_vm_pt_page p;
	struct nvl_bo_info info;
	struct nvl_exec exec;

	(void)state_;
	env_init(&e);
	ops[0].handle = e.bo;
	assert_int_equal(bind(&e, ops, 1), 0);
	nvl_vm_pt_record_query(e.v->rec, GiB + 8192, &p);
	assert_int_equal(p.state, NVL_VM_PT_MAPPED);
	assert_int_equal(p.bo_offset, 8192);
	/* ops of one call apply in order: map then punch a hole */
	ops[0] = map_op(e.bo2, 2 * GiB, MiB, 0);
	ops[1] = unmap_op(2 * GiB + 4096, 4096);
	assert_int_equal(bind(&e, ops, 2), 0);
	page_is(&e, 2 * GiB, NVL_VM_PT_MAPPED);
	page_is(&e, 2 * GiB + 4096, NVL_VM_PT_INVALID);
	page_is(&e, 2 * GiB + 8192, NVL_VM_PT_MAPPED);
	/* PREFETCH moves the mapped BOs to their preferred placement */
	ops[0] = (struct nvl_vm_bind_op){
		.op = NVL_VM_BIND_OP_PREFETCH, .addr = GiB, .range = 2 * GiB};
	assert_int_equal(bind(&e, ops, 1), 0);
	assert_int_equal(nvl_bo_query(e.c, e.bo, &info), 0);
	assert_int_equal(info.current, NVL_BO_DOMAIN_SYSTEM);
	/* client BOs have their own resv: both are extobjs, listed once */
	assert_int_equal(nvl_gpuvm_extobj_count(e.v->gpuvm), 2);
	assert_int_equal(nvl_gpuvm_exec_lock(e.v->gpuvm, &exec, 1), 0);
	assert_int_equal(exec.num_objects, 3);
	assert_int_equal(nvl_gpuvm_validate(e.v->gpuvm), 0);
	nvl_exec_fini(&exec);
	ops[0] = unmap_op(0, 8 * GiB);
	assert_int_equal(bind(&e, ops, 1), 0);
	page_is(&e, GiB, NVL_VM_PT_INVALID);
	assert_null(nvl_gpuvm_first_va(e.v->gpuvm));
	env_fini(&e);
}

/*
 * A lazily bound page written by the replayable-fault service carries the
 * mapping's flags, as a bind's commit would have written them: NO_ATOMIC
 * (the PTE's ATOMIC_DISABLE / PCF NO_ATOMIC) and READONLY are not dropped.
 */
static void fault_service_writes_the_mappings_flags(void **state_)
{
	struct nvl_vm_create_args a = {.end = 16 * GiB,
				       .flags = NVL_VM_CREATE_FAULTABLE};
	static const uint32_t fl[] = {
		NVL_VM_BIND_NO_ATOMIC,
		NVL_VM_BIND_READONLY,
		0,
	};
	static const uint32_t want[] = {
		NVL_VM_PT_NOATOMIC,
		NVL_VM_PT_READONLY,
		0,
	};
	struct nvl_vm_bind_op op;
	struct nvl_vm_pt_page p;
	struct env e;
	uint32_t vm;
	struct nvl_vm *v;

	(void)state_;
	env_init(&e);
	assert_int_equal(nvl_vm_create(e.c, &a, &vm), 0);
	v = nvl_vm_lookup(e.c, vm);
	assert_non_null(v);
	for (unsigned i = 0; i < NVL_ARRAY_SIZE(fl); i++) {
		uint64_t va = GiB * (i + 1), page, size;

		op = map_op(e.bo, va, 2 * MiB, 0);
		op.flags = NVL_VM_BIND_LAZY | fl[i];
		assert_int_equal(
			nvl_vm_bind(e.c, vm, 0, &op, 1, NULL, 0, NULL, 0, 0),
			0);
		nvl_vm_pt_record_query(v->rec, va + 8192, &p);
		assert_int_equal(p.state, NVL_VM_PT_INVALID);
		assert_int_equal(
			nvl_vm_fault_map(v, va + 8192, false, &page, &size), 0);
		nvl_vm_pt_record_query(v->rec, va + 8192, &p);
		assert_int_equal(p.state, NVL_VM_PT_MAPPED);
		assert_int_equal(p.bo_offset, 8192);
		assert_int_equal(
			p.flags & (NVL_VM_PT_NOATOMIC | NVL_VM_PT_READONLY),
			want[i]);
	}
	nvl_vm_put(v);
	env_fini(&e);
}

static void bad_input_is_rejected_and_changes_nothing(void **state_)
{
	struct env e;
	struct nvl_client *other;
	uint32_t other_bo;
	uint64_t before;
	struct {
		struct nvl_vm_bind_op op;
		int err;
		const char *what;
	} cases[] = {
		{map_op(1, GiB + 1, MiB, 0), -EINVAL, "unaligned address"},
		{map_op(1, GiB, MiB + 1, 0), -EINVAL, "unaligned range"},
		{map_op(1, GiB, MiB, 1), -EINVAL, "unaligned offset"},
		{map_op(1, GiB, 0, 0), -EINVAL, "zero range"},
		{map_op(1, 16 * GiB - MiB, 2 * MiB, 0), -EINVAL,
		 "past the VM end"},
		{map_op(1, 15 * GiB - MiB, 2 * MiB, 0), -EINVAL,
		 "into the reserved range"},
		{map_op(1, GiB, 4 * MiB, 4096), -EINVAL, "past the BO end"},
		{map_op(1, GiB, 8 * MiB, 0), -EINVAL, "longer than the BO"},
		{map_op(999, GiB, MiB, 0), -ENOENT, "unknown BO handle"},
		{map_op(0, GiB, MiB, 0), -EINVAL, "MAP without BO"},
		{unmap_op(GiB, 0), -EINVAL, "zero-range unmap"},
		{{.op = 7, .addr = GiB, .range = MiB},
		 -EINVAL,
		 "unknown op code"},
		{{.op = NVL_VM_BIND_OP_UNMAP,
		  .flags = 1u << 9,
		  .addr = GiB,
		  .range = MiB},
		 -EINVAL,
		 "unknown flag"},
		{{.op = NVL_VM_BIND_OP_UNMAP,
		  .flags = NVL_VM_BIND_SPARSE,
		  .addr = 4 * GiB,
		  .range = MiB},
		 -ENOENT,
		 "sparse unmap matching no region"},
		{{.op = NVL_VM_BIND_OP_MAP,
		  .flags = NVL_VM_BIND_SPARSE,
		  .addr = 5 * GiB - MiB,
		  .range = 2 * MiB},
		 -ENOSPC,
		 "region over a mapping"},
		{map_op(1, 6 * GiB - MiB, 2 * MiB, 0), -ENOSPC,
		 "mapping crossing a region boundary"},
		{{.op = NVL_VM_BIND_OP_MAP,
		  .flags = NVL_VM_BIND_NULL,
		  .handle = 1,
		  .addr = GiB,
		  .range = MiB},
		 -EINVAL,
		 "NULL map with a BO"},
		{{.op = NVL_VM_BIND_OP_UNMAP_ALL, .handle = 1, .addr = GiB},
		 -EINVAL,
		 "UNMAP_ALL with a range"},
		{{.op = NVL_VM_BIND_OP_MAP,
		  .handle = 1,
		  .pad = 1,
		  .addr = GiB,
		  .range = MiB},
		 -EINVAL,
		 "non-zero padding"},
	};
	struct nvl_vm_bind_op setup[2] = {map_op(0, 5 * GiB, MiB, 0)};
	struct nvl_vm_bind_op three[3];
	uint32_t q;

	(void)state_;
	env_init(&e);
	assert_int_equal(nvl_vm_bind_queue_create(e.c, e.vm, &q), 0);
	setup[0].handle = e.bo;
	setup[1] = (struct nvl_vm_bind_op){.op = NVL_VM_BIND_OP_MAP,
					   .flags = NVL_VM_BIND_SPARSE,
					   .addr = 6 * GiB,
					   .range = GiB};
	assert_int_equal(bind(&e, setup, 2), 0);
	before = state(&e);
	for (size_t i = 0; i < NVL_ARRAY_SIZE(cases); i++) {
		struct nvl_vm_bind_op two[2] = {map_op(e.bo2, 3 * GiB, MiB, 0),
						cases[i].op};
		int ret;

		if (two[1].handle == 1)
			two[1].handle = e.bo;
		/* a valid op first: it must be undone too */
		ret = bind(&e, two, 2);
		if (ret != cases[i].err)
			fail_msg("%s: %d, expected %d (%s)", cases[i].what, ret,
				 cases[i].err, nvl_last_error());
		assert_true(strlen(nvl_last_error()) > 0);
		assert_int_equal(state(&e), before);
		/*
		 * The bad op first, valid ops with BOs after it, on a bind
		 * queue without syncobjs (the call's ops live on the stack):
		 * the ops never checked must not be released (they once put
		 * uninitialised BO pointers; ASan caught it).
		 */
		three[0] = cases[i].op;
		if (three[0].handle == 1)
			three[0].handle = e.bo;
		three[1] = map_op(e.bo2, 3 * GiB, MiB, 0);
		three[2] = map_op(e.bo, 3 * GiB + 2 * MiB, MiB, 0);
		ret = nvl_vm_bind(e.c, e.vm, q, three, 3, NULL, 0, NULL, 0, 0);
		if (ret != cases[i].err)
			fail_msg("%s first, on a queue: %d, expected %d (%s)",
				 cases[i].what, ret, cases[i].err,
				 nvl_last_error());
		assert_int_equal(state(&e), before);
	}
	/* another client's handle */
	assert_int_equal(nvl_client_create(&other), 0);
	assert_int_equal(nvl_bo_create(other, 4 * MiB, NVL_BO_DOMAIN_SYSTEM, 0,
				       0, &other_bo),
			 0);
	setup[0] = map_op(other_bo + 100, GiB, MiB, 0);
	assert_int_equal(bind(&e, setup, 1), -ENOENT);
	assert_int_equal(
		nvl_vm_bind(other, e.vm, 0, setup, 0, NULL, 0, NULL, 0, 0),
		-ENOENT);
	assert_int_equal(
		nvl_vm_bind(e.c, e.vm, 0, setup, 0, NULL, 0, NULL, 0, 1u << 7),
		-EINVAL);
	assert_int_equal(
		nvl_vm_bind(e.c, e.vm, 77, setup, 0, NULL, 0, NULL, 0, 0),
		-ENOENT);
	assert_int_equal(state(&e), before);
	nvl_client_destroy(other);
	assert_int_equal(nvl_vm_bind_queue_destroy(e.c, q), 0);
	env_fini(&e);
}

struct fail_arg {
	struct env *e;
	uint64_t before;
	const struct nvl_vm_bind_op *ops;
	uint32_t n;
	uint32_t sig;
	uint32_t flags;
};

static int fail_op(void *p)
{
	struct fail_arg *a = p;
	struct nvl_vm_sync s = {.handle = a->sig, .point = 5};

	return nvl_vm_bind(a->e->c, a->e->vm, 0, a->ops, a->n, NULL, 0, &s, 1,
			   a->flags);
}

static void fail_check(int ret, void *p)
{
	struct fail_arg *a = p;
	uint64_t pt = 0;

	assert_int_equal(ret, -ENOMEM);
	assert_int_equal(state(a->e), a->before);
	assert_int_equal(nvl_syncobj_query(a->e->c, &a->sig, &pt, 1, 0), 0);
	assert_int_equal(pt, 0);
}

static bool signalled(struct env *e, uint32_t h, int64_t wait_ns);

static void fail_anywhere(uint32_t flags)
{
	struct env e;
	struct nvl_vm_bind_op setup[3], ops[5];
	struct fail_arg a = {&e, .flags = flags};
	unsigned long n;

	env_init(&e);
	setup[0] = map_op(e.bo, GiB, 2 * MiB, 0);
	setup[1] = map_op(e.bo2, GiB + 4 * MiB, MiB, 0);
	setup[2] = (struct nvl_vm_bind_op){.op = NVL_VM_BIND_OP_MAP,
					   .flags = NVL_VM_BIND_SPARSE,
					   .addr = 8 * GiB,
					   .range = 64 * MiB};
	assert_int_equal(bind(&e, setup, 3), 0);
	assert_int_equal(nvl_syncobj_create(e.c, 0, &a.sig), 0);
	/* remaps, a new vm_bo, NULL map, region map and destroy, unmap-all */
	ops[0] = map_op(e.bo2, GiB + MiB, 4 * MiB, 0);
	ops[1] = (struct nvl_vm_bind_op){.op = NVL_VM_BIND_OP_MAP,
					 .flags = NVL_VM_BIND_NULL,
					 .addr = 3 * GiB,
					 .range = MiB};
	ops[2] = map_op(e.bo, 8 * GiB + MiB, MiB, 0);
	ops[3] = (struct nvl_vm_bind_op){.op = NVL_VM_BIND_OP_UNMAP,
					 .flags = NVL_VM_BIND_SPARSE,
					 .addr = 8 * GiB,
					 .range = 64 * MiB};
	ops[4] = (struct nvl_vm_bind_op){.op = NVL_VM_BIND_OP_UNMAP_ALL,
					 .handle = e.bo};
	a.ops = ops;
	a.n = 5;
	a.before = state(&e);
	n = t_fail_each_alloc(fail_op, fail_check, &a, 200);
	assert_true(n > 3);
	if (a.flags)
		assert_true(signalled(&e, a.sig, 5ll * 1000 * 1000 * 1000));
	page_is(&e, GiB, NVL_VM_PT_INVALID);
	page_is(&e, GiB + MiB, NVL_VM_PT_MAPPED);
	page_is(&e, 3 * GiB, NVL_VM_PT_MAPPED);
	page_is(&e, 8 * GiB, NVL_VM_PT_INVALID);
	env_fini(&e);
}

static void allocation_failure_anywhere_leaves_vm_unchanged(void **state_)
{
	(void)state_;
	fail_anywhere(0);
}

static void async_allocation_failure_anywhere_leaves_vm_unchanged(void **s)
{
	(void)s;
	fail_anywhere(NVL_VM_BIND_ASYNC);
}

/* a syncobj holding an unsignalled fence the test signals itself */
static struct nvl_fence *blocker(struct env *e, uint32_t *handle)
{
	struct nvl_syncobj *so;
	struct nvl_fence *f;

	assert_int_equal(nvl_syncobj_create(e->c, 0, handle), 0);
	so = nvl_syncobj_find(e->c, *handle);
	assert_int_equal(nvl_fence_create(&f, nvl_fence_context_alloc(1), 1),
			 0);
	nvl_syncobj_replace_fence(so, f);
	nvl_syncobj_put(so);
	return f;
}

static bool signalled(struct env *e, uint32_t h, int64_t wait_ns)
{
	return nvl_syncobj_wait(e->c, &h, NULL, 1, nvl_time_ns() + wait_ns, 0,
				NULL) == 0;
}

static void async_binds_run_in_queue_order_after_waits(void **state_)
{
	struct env e;
	struct nvl_fence *gate;
	uint32_t g, s1, s2, s3, q2;
	struct nvl_vm_sync w = {0}, sig = {0};
	struct nvl_vm_bind_op op;

	(void)state_;
	env_init(&e);
	gate = blocker(&e, &g);
	assert_int_equal(nvl_syncobj_create(e.c, 0, &s1), 0);
	assert_int_equal(nvl_syncobj_create(e.c, 0, &s2), 0);
	assert_int_equal(nvl_syncobj_create(e.c, 0, &s3), 0);
	assert_int_equal(nvl_vm_bind_queue_create(e.c, e.vm, &q2), 0);
	w.handle = g;
	op = map_op(e.bo, GiB, MiB, 0);
	sig.handle = s1;
	assert_int_equal(nvl_vm_bind(e.c, e.vm, 0, &op, 1, &w, 1, &sig, 1,
				     NVL_VM_BIND_ASYNC),
			 0);
	/* the VA view changes at submit; the page tables only after g */
	assert_non_null(nvl_gpuvm_find_at(e.v->gpuvm, GiB));
	op = unmap_op(GiB, 4096);
	sig.handle = s2;
	assert_int_equal(nvl_vm_bind(e.c, e.vm, 0, &op, 1, NULL, 0, &sig, 1,
				     NVL_VM_BIND_ASYNC),
			 0);
	/* another queue is not held up */
	op = map_op(e.bo2, 2 * GiB, MiB, 0);
	sig.handle = s3;
	assert_int_equal(nvl_vm_bind(e.c, e.vm, q2, &op, 1, NULL, 0, &sig, 1,
				     NVL_VM_BIND_ASYNC),
			 0);
	assert_true(signalled(&e, s3, 5ll * 1000 * 1000 * 1000));
	page_is(&e, 2 * GiB, NVL_VM_PT_MAPPED);
	assert_false(signalled(&e, s1, 20 * 1000 * 1000));
	assert_false(signalled(&e, s2, 0));
	page_is(&e, GiB, NVL_VM_PT_INVALID);
	nvl_fence_signal(gate);
	assert_true(signalled(&e, s2, 5ll * 1000 * 1000 * 1000));
	assert_true(signalled(&e, s1, 0));
	page_is(&e, GiB, NVL_VM_PT_INVALID);
	page_is(&e, GiB + 4096, NVL_VM_PT_MAPPED);
	nvl_fence_put(gate);
	assert_int_equal(nvl_vm_bind_queue_destroy(e.c, q2), 0);
	env_fini(&e);
}

/* A KERNEL fence (a clear, a move) on @bo's resv; Return: the fence. */
static struct nvl_fence *kernel_fence(struct env *e, uint32_t bo)
{
	struct nvl_gem_object *obj = nvl_gem_lookup(e->c, bo);
	struct nvl_fence *f;

	assert_non_null(obj);
	assert_int_equal(nvl_fence_create(&f, nvl_fence_context_alloc(1), 1),
			 0);
	assert_int_equal(nvl_resv_lock(obj->resv, NULL), 0);
	assert_int_equal(nvl_resv_reserve_fences(obj->resv, 1), 0);
	assert_int_equal(
		nvl_resv_add_fence(obj->resv, f, NVL_RESV_USAGE_KERNEL), 0);
	nvl_resv_unlock(obj->resv);
	nvl_gem_put(obj);
	return f;
}

/*
 * A call mapping one BO several times in a row snapshots the BO's KERNEL
 * fences once (issue 19); the bind still waits for them: async, its page
 * tables change only after the fence; sync, it gives up with -ETIME and
 * changes nothing.
 */
static void maps_of_one_bo_wait_for_its_kernel_fences(void **state_)
{
	struct env e;
	struct nvl_fence *k;
	struct nvl_vm_sync sig = {0};
	struct nvl_vm_bind_op ops[3];
	uint32_t s;

	(void)state_;
	env_init(&e);
	k = kernel_fence(&e, e.bo);
	assert_int_equal(nvl_syncobj_create(e.c, 0, &s), 0);
	sig.handle = s;
	ops[0] = map_op(e.bo, GiB, MiB, 0);
	ops[1] = map_op(e.bo, GiB + 2 * MiB, MiB, MiB);
	ops[2] = map_op(e.bo2, 2 * GiB, MiB, 0);
	assert_int_equal(nvl_vm_bind(e.c, e.vm, 0, ops, 3, NULL, 0, &sig, 1,
				     NVL_VM_BIND_ASYNC),
			 0);
	assert_false(signalled(&e, s, 20 * 1000 * 1000));
	page_is(&e, GiB, NVL_VM_PT_INVALID);
	page_is(&e, GiB + 2 * MiB, NVL_VM_PT_INVALID);
	nvl_fence_signal(k);
	nvl_fence_put(k);
	assert_true(signalled(&e, s, 5ll * 1000 * 1000 * 1000));
	page_is(&e, GiB, NVL_VM_PT_MAPPED);
	page_is(&e, GiB + 2 * MiB, NVL_VM_PT_MAPPED);
	page_is(&e, 2 * GiB, NVL_VM_PT_MAPPED);

	/* sync: bounded, and a call that gives up changed nothing */
	k = kernel_fence(&e, e.bo);
	e.v->sync_timeout_ns = 20 * 1000 * 1000;
	ops[0] = map_op(e.bo, 3 * GiB, MiB, 0);
	ops[1] = map_op(e.bo, 3 * GiB + 2 * MiB, MiB, MiB);
	assert_int_equal(bind(&e, ops, 2), -ETIME);
	/* (not state(): the async bind's free_job may still run now) */
	page_is(&e, 3 * GiB, NVL_VM_PT_INVALID);
	page_is(&e, 3 * GiB + 2 * MiB, NVL_VM_PT_INVALID);
	assert_null(nvl_gpuvm_find_at(e.v->gpuvm, 3 * GiB));
	assert_null(nvl_gpuvm_find_at(e.v->gpuvm, 3 * GiB + 2 * MiB));
	nvl_fence_signal(k);
	nvl_fence_put(k);
	/* (the default bound again: nothing here may give up) */
	e.v->sync_timeout_ns = 10ll * 1000 * 1000 * 1000;
	assert_int_equal(bind(&e, ops, 2), 0);
	page_is(&e, 3 * GiB + 2 * MiB, NVL_VM_PT_MAPPED);
	env_fini(&e);
}

static void sync_bind_behind_queued_work_waits_for_it(void **state_)
{
	struct env e;
	struct nvl_fence *gate;
	uint32_t g;
	struct nvl_vm_sync w = {0};
	struct nvl_vm_bind_op op = map_op(0, GiB, MiB, 0);

	(void)state_;
	env_init(&e);
	gate = blocker(&e, &g);
	w.handle = g;
	op.handle = e.bo;
	assert_int_equal(nvl_vm_bind(e.c, e.vm, 0, &op, 1, &w, 1, NULL, 0,
				     NVL_VM_BIND_ASYNC),
			 0);
	nvl_fence_signal(gate);
	op = unmap_op(GiB, 4096);
	assert_int_equal(bind(&e, &op, 1), 0);
	page_is(&e, GiB, NVL_VM_PT_INVALID);
	page_is(&e, GiB + 4096, NVL_VM_PT_MAPPED);
	nvl_fence_put(gate);
	env_fini(&e);
}

static void zero_op_calls_still_signal_timeline_points(void **state_)
{
	struct env e;
	uint32_t t;
	uint64_t pt = 0;
	struct nvl_vm_sync sig = {.point = 3};

	(void)state_;
	env_init(&e);
	assert_int_equal(nvl_syncobj_create(e.c, 0, &t), 0);
	sig.handle = t;
	assert_int_equal(
		nvl_vm_bind(e.c, e.vm, 0, NULL, 0, NULL, 0, &sig, 1, 0), 0);
	assert_int_equal(nvl_syncobj_query(e.c, &t, &pt, 1, 0), 0);
	assert_int_equal(pt, 3);
	sig.point = 4;
	assert_int_equal(nvl_vm_bind(e.c, e.vm, 0, NULL, 0, NULL, 0, &sig, 1,
				     NVL_VM_BIND_ASYNC),
			 0);
	assert_int_equal(nvl_syncobj_wait(e.c, &t, &sig.point, 1,
					  nvl_time_ns() + 5000000000ll, 0,
					  NULL),
			 0);
	/* a missing signal syncobj is reported and nothing signals */
	sig.handle = 12345;
	assert_int_equal(
		nvl_vm_bind(e.c, e.vm, 0, NULL, 0, NULL, 0, &sig, 1, 0),
		-ENOENT);
	env_fini(&e);
}

static void backend_failure_in_bind_job_bans_the_vm(void **state_)
{
	struct env e;
	uint32_t s, q;
	struct nvl_vm_sync sig = {0};
	struct nvl_vm_bind_op op = map_op(0, GiB, MiB, 0);
	struct nvl_syncobj *so;
	struct nvl_fence *f;

	(void)state_;
	env_init(&e);
	assert_int_equal(nvl_syncobj_create(e.c, 0, &s), 0);
	sig.handle = s;
	op.handle = e.bo;
	nvl_vm_pt_record_fail_map_after(e.v->rec, 1);
	assert_int_equal(nvl_vm_bind(e.c, e.vm, 0, &op, 1, NULL, 0, &sig, 1,
				     NVL_VM_BIND_ASYNC),
			 0);
	assert_true(signalled(&e, s, 5ll * 1000 * 1000 * 1000));
	so = nvl_syncobj_find(e.c, s);
	f = nvl_syncobj_fence_get(so);
	assert_int_equal(nvl_fence_get_status(f), -EIO);
	nvl_fence_put(f);
	nvl_syncobj_put(so);
	op = unmap_op(GiB, MiB);
	assert_int_equal(bind(&e, &op, 1), -ENOENT);
	assert_int_equal(nvl_vm_bind_queue_create(e.c, e.vm, &q), -ENOENT);
	env_fini(&e);
}

/*
 * The one-op sync call (bind_one()): a page-table write failing there bans
 * the VM as on the general path, with the same error and message; a
 * region/map mistake is caught there as before and changes nothing.
 */
static void backend_failure_in_one_op_sync_bind_bans_the_vm(void **state_)
{
	struct env e;
	uint32_t q;
	struct nvl_vm_bind_op op = map_op(0, GiB, MiB, 0);
	struct nvl_vm_bind_op region = {.op = NVL_VM_BIND_OP_MAP,
					.flags = NVL_VM_BIND_SPARSE,
					.addr = 2 * GiB,
					.range = 2 * MiB};
	uint64_t before;

	(void)state_;
	env_init(&e);
	op.handle = e.bo;
	assert_int_equal(bind(&e, &region, 1), 0);
	/* straddles the region: refused inside bind_one, nothing changed */
	before = state(&e);
	op.addr = 2 * GiB + MiB;
	op.range = 2 * MiB;
	assert_int_equal(bind(&e, &op, 1), -ENOSPC);
	assert_int_equal(state(&e), before);
	/* a tile inside it maps, and unmaps back to sparse */
	op.range = MiB;
	assert_int_equal(bind(&e, &op, 1), 0);
	region = unmap_op(2 * GiB + MiB, MiB);
	assert_int_equal(bind(&e, &region, 1), 0);
	assert_int_equal(state(&e), before);
	/* the write fails: reported, the VM banned */
	op.addr = GiB;
	nvl_vm_pt_record_fail_map_after(e.v->rec, 1);
	assert_int_equal(bind(&e, &op, 1), -EIO);
	assert_non_null(strstr(nvl_last_error(), "page-table update failed"));
	op = unmap_op(GiB, MiB);
	assert_int_equal(bind(&e, &op, 1), -ENOENT);
	assert_int_equal(nvl_vm_bind_queue_create(e.c, e.vm, &q), -ENOENT);
	env_fini(&e);
}

struct own_arg {
	struct env *e;
	struct nvl_vm_bind_op op;
	uint64_t before;
};

static int own_op(void *p)
{
	struct own_arg *a = p;

	return bind(a->e, &a->op, 1);
}

static void own_check(int ret, void *p)
{
	struct own_arg *a = p;

	assert_int_equal(ret, -ENOMEM);
	assert_null(nvl_vm_pt_record_held);
	assert_int_equal(state(a->e), a->before);
}

/*
 * The one-op sync call owns the VM's record (no record lock) only while it
 * holds the VM lock: whatever way it ends (done, an allocation failing
 * anywhere, a failing page-table write) this thread owns nothing after it,
 * so the next user locks again. With an async bind pending it does not own
 * the record (the job's commit runs without the VM lock) and binds by the
 * general path; the page tables end up as asked.
 */
static void one_op_binds_own_the_record_only_inside(void **state_)
{
	struct env e;
	struct own_arg a = {&e};
	struct nvl_vm_bind_op op;
	struct nvl_vm_sync sig = {0};
	struct nvl_fence *k;
	unsigned long n = 0;
	uint32_t done;

	(void)state_;
	env_init(&e);
	a.op = map_op(e.bo, GiB, 64ull << 10, 0);
	assert_int_equal(bind(&e, &a.op, 1), 0);
	assert_null(nvl_vm_pt_record_held);
	op = unmap_op(GiB, 64ull << 10);
	assert_int_equal(bind(&e, &op, 1), 0);
	assert_null(nvl_vm_pt_record_held);

	/*
	 * New chunks of the record and new vm_bos, until one call allocates
	 * (the VM's caches serve most): each allocation of it fails once
	 */
	for (int i = 0; i < 64 && !n; i++) {
		uint32_t h = i & 1 ? e.bo : e.bo2;

		a.op = map_op(h, 3 * GiB + (uint64_t)i * 4 * MiB, 4096, 8192);
		a.before = state(&e);
		n = t_fail_each_alloc(own_op, own_check, &a, 100);
		assert_null(nvl_vm_pt_record_held);
		page_is(&e, a.op.addr, NVL_VM_PT_MAPPED);
	}
	assert_true(n > 0);

	/* an async bind waiting for its BO's move: pending, commit later */
	k = kernel_fence(&e, e.bo);
	assert_int_equal(nvl_syncobj_create(e.c, 0, &done), 0);
	sig.handle = done;
	op = map_op(e.bo, 5 * GiB, MiB, 0);
	assert_int_equal(nvl_vm_bind(e.c, e.vm, 0, &op, 1, NULL, 0, &sig, 1,
				     NVL_VM_BIND_ASYNC),
			 0);
	/* the default queue is busy: the sync call gives up, unchanged */
	e.v->sync_timeout_ns = 20 * 1000 * 1000;
	op = map_op(e.bo2, 6 * GiB, 64ull << 10, 0);
	assert_int_equal(bind(&e, &op, 1), -EBUSY);
	assert_null(nvl_vm_pt_record_held);
	page_is(&e, 6 * GiB, NVL_VM_PT_INVALID);
	nvl_fence_signal(k);
	nvl_fence_put(k);
	assert_true(signalled(&e, done, 5ll * 1000 * 1000 * 1000));
	page_is(&e, 5 * GiB, NVL_VM_PT_MAPPED);
	e.v->sync_timeout_ns = 10ll * 1000 * 1000 * 1000;
	assert_int_equal(bind(&e, &op, 1), 0);
	assert_null(nvl_vm_pt_record_held);
	page_is(&e, 6 * GiB, NVL_VM_PT_MAPPED);

	/* a failing write inside the owned section: banned, owns nothing */
	op = map_op(e.bo2, 7 * GiB, 64ull << 10, 0);
	nvl_vm_pt_record_fail_map_after(e.v->rec, 1);
	assert_int_equal(bind(&e, &op, 1), -EIO);
	assert_null(nvl_vm_pt_record_held);
	env_fini(&e);
}

static void sparse_region_and_null_mapping_semantics(void **state_)
{
	struct env e;
	struct nvl_vm_bind_op ops[3];

	(void)state_;
	env_init(&e);
	ops[0] = (struct nvl_vm_bind_op){.op = NVL_VM_BIND_OP_MAP,
					 .flags = NVL_VM_BIND_SPARSE,
					 .addr = 4 * GiB,
					 .range = 16 * MiB};
	ops[1] = map_op(e.bo, 4 * GiB + MiB, MiB, 0);
	ops[2] = unmap_op(4 * GiB + MiB, 4096);
	assert_int_equal(bind(&e, ops, 3), 0);
	page_is(&e, 4 * GiB, NVL_VM_PT_SPARSE);
	page_is(&e, 4 * GiB + MiB, NVL_VM_PT_SPARSE);
	page_is(&e, 4 * GiB + MiB + 4096, NVL_VM_PT_MAPPED);
	/* destroying the region unmaps what is inside */
	ops[0].op = NVL_VM_BIND_OP_UNMAP;
	assert_int_equal(bind(&e, ops, 1), 0);
	page_is(&e, 4 * GiB, NVL_VM_PT_INVALID);
	page_is(&e, 4 * GiB + MiB + 4096, NVL_VM_PT_INVALID);
	/* Xe NULL: a mapping without BO; unmapping it leaves a hole */
	ops[0] = (struct nvl_vm_bind_op){.op = NVL_VM_BIND_OP_MAP,
					 .flags = NVL_VM_BIND_NULL,
					 .addr = 4 * GiB,
					 .range = MiB};
	ops[1] = map_op(e.bo, 4 * GiB + 4096, 4096, 0);
	assert_int_equal(bind(&e, ops, 2), 0);
	page_is(&e, 4 * GiB, NVL_VM_PT_MAPPED);
	ops[0] = unmap_op(4 * GiB + 4096, 4096);
	assert_int_equal(bind(&e, ops, 1), 0);
	page_is(&e, 4 * GiB + 4096, NVL_VM_PT_INVALID);
	page_is(&e, 4 * GiB + 8192, NVL_VM_PT_MAPPED);
	env_fini(&e);
}

struct worker {
	struct env *e;
	uint32_t queue, sig, gate;
	uint64_t base;
	int ret;
};

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	struct nvl_vm_sync sig = {.handle = w->sig};
	uint64_t rng = w->base;

	for (int i = 0; i < 300 && !w->ret; i++) {
		uint64_t va = w->base + (t_rand(&rng) % 64) * 65536;
		struct nvl_vm_bind_op ops[2] = {
			map_op(w->e->bo, va, 65536,
			       (t_rand(&rng) % 32) * 65536),
			unmap_op(va + 4096, 4096),
		};
		uint32_t flags = i % 2 ? NVL_VM_BIND_ASYNC : 0;

		w->ret = nvl_vm_bind(w->e->c, w->e->vm, w->queue, ops, 2, NULL,
				     0, &sig, 1, flags);
	}
	if (!w->ret)
		w->ret =
			nvl_syncobj_wait(w->e->c, &w->sig, NULL, 1,
					 nvl_time_ns() + 5000000000ll, 0, NULL);
	return NULL;
}

static void concurrent_binds_on_separate_queues(void **state_)
{
	struct env e;
	struct worker w[3];
	pthread_t th[3];

	(void)state_;
	env_init(&e);
	for (int i = 0; i < 3; i++) {
		w[i] = (struct worker){.e = &e,
				       .base = (uint64_t)(i + 1) * GiB};
		if (i)
			assert_int_equal(nvl_vm_bind_queue_create(e.c, e.vm,
								  &w[i].queue),
					 0);
		assert_int_equal(nvl_syncobj_create(e.c, 0, &w[i].sig), 0);
		assert_int_equal(pthread_create(&th[i], NULL, worker_fn, &w[i]),
				 0);
	}
	for (int i = 0; i < 3; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(w[i].ret, 0);
	}
	/* every bound tile has its second page punched out */
	nvl_flock_lock(&e.v->gpuvm->lock);
	for (struct nvl_gpuva *va = nvl_gpuvm_first_va(e.v->gpuvm); va;
	     va = nvl_gpuvm_next_va(va)) {
		struct nvl_vm_pt_page p;

		nvl_vm_pt_record_query(e.v->rec, nvl_gpuva_addr(va), &p);
		assert_int_equal(p.state, NVL_VM_PT_MAPPED);
		assert_int_equal(p.bo_offset, va->bo_offset);
	}
	nvl_flock_unlock(&e.v->gpuvm->lock);
	for (int i = 0; i < 3; i++) {
		page_is(&e, w[i].base + 4096, NVL_VM_PT_INVALID);
		if (w[i].queue)
			assert_int_equal(
				nvl_vm_bind_queue_destroy(e.c, w[i].queue), 0);
	}
	env_fini(&e);
}

static void *late_signal(void *arg)
{
	usleep(300 * 1000);
	nvl_fence_signal(arg);
	return NULL;
}

static void destroying_a_vm_with_a_blocked_bind_cleans_up(void **state_)
{
	pthread_t th;
	struct env e;
	struct nvl_fence *gate;
	uint32_t g;
	struct nvl_vm_sync w = {0};
	struct nvl_vm_bind_op op = map_op(0, GiB, MiB, 0);
	struct nvl_vm_pt_record_stats st;

	(void)state_;
	env_init(&e);
	gate = blocker(&e, &g);
	w.handle = g;
	op.handle = e.bo;
	assert_int_equal(nvl_vm_bind(e.c, e.vm, 0, &op, 1, &w, 1, NULL, 0,
				     NVL_VM_BIND_ASYNC),
			 0);
	/* the VM goes with its handle: its queue is drained or killed */
	nvl_vm_pt_record_stats(e.v->rec, &st);
	assert_int_equal(st.maps, 0);
	/* the wait signals while the VM is being torn down */
	assert_int_equal(pthread_create(&th, NULL, late_signal, gate), 0);
	nvl_vm_put(e.v);
	nvl_client_destroy(e.c);
	pthread_join(th, NULL);
	nvl_fence_put(gate);
	assert_int_equal(nvl_checker_violations(), 0);
}

static int factory_calls, factory_releases;

static void factory_release(void *priv)
{
	factory_releases++;
	nvl_vm_pt_record_destroy(priv);
}

/* a device of the test's: what its clients get, and whether it is lost */
struct tdev {
	struct nvl_client_dev cdev;
	int lost;
};

static int factory(struct nvl_client_dev *cdev, struct nvl_vm_backend *out)
{
	struct nvl_vm_pt_record *rec;

	factory_calls++;
	if (container_of(cdev, struct tdev, cdev)->lost)
		return -ENODEV;
	if (nvl_vm_pt_record_create(&rec))
		return -ENOMEM;
	out->ops = &nvl_vm_pt_record_ops;
	out->priv = rec;
	out->release = factory_release;
	out->big_page_shifts = 1ull << 16;
	return 0;
}

static void device_clients_get_the_driver_backend(void **state_)
{
	struct nvl_vm_create_args a = {.start = 0, .end = 16 * GiB};
	struct tdev dev = {.cdev.vm_backend = factory};
	struct nvl_client *c;
	struct nvl_vm *v;
	uint32_t vm, bo;
	struct nvl_vm_bind_op op;

	(void)state_;
	assert_int_equal(nvl_client_alloc(&dev.cdev, &c), 0);
	assert_int_equal(nvl_vm_create(c, &a, &vm), 0);
	assert_int_equal(factory_calls, 1);
	v = nvl_vm_lookup(c, vm);
	assert_null(v->rec);
	/* 64 KiB aligned: the backend's big pages are used */
	assert_int_equal(
		nvl_bo_create(c, 4 * MiB, NVL_BO_DOMAIN_SYSTEM, 0, 0, &bo), 0);
	op = map_op(bo, GiB, MiB, 0);
	assert_int_equal(nvl_vm_bind(c, vm, 0, &op, 1, NULL, 0, NULL, 0, 0), 0);
	assert_int_equal(nvl_gpuvm_find_at(v->gpuvm, GiB)->page_shift, 16);
	nvl_vm_put(v);
	dev.lost = 1;
	assert_int_equal(nvl_vm_create(c, &a, &vm), -ENODEV);
	nvl_client_put(c);
	assert_int_equal(factory_releases, 1);
}

/* ---- teardown with binds that never become ready ---------------------- */

/* What the recording backend held when the VM released it. */
static struct nvl_vm_pt_record_stats td_stats;
static int td_releases;

static void td_release(void *priv)
{
	nvl_vm_pt_record_stats(priv, &td_stats);
	td_releases++;
	nvl_vm_pt_record_destroy(priv);
}

static int td_factory(struct nvl_client_dev *cdev, struct nvl_vm_backend *out)
{
	struct nvl_vm_pt_record *rec;

	(void)cdev;
	if (nvl_vm_pt_record_create(&rec))
		return -ENOMEM;
	out->ops = &nvl_vm_pt_record_ops;
	out->priv = rec;
	out->release = td_release;
	return 0;
}

static struct nvl_fence *syncobj_fence(struct nvl_client *c, uint32_t h)
{
	struct nvl_syncobj *so = nvl_syncobj_find(c, h);
	struct nvl_fence *f;

	assert_non_null(so);
	f = nvl_syncobj_fence_get(so);
	nvl_syncobj_put(so);
	assert_non_null(f);
	return f;
}

/*
 * Binds blocked on fences that never signal, on the default queue and on a
 * second queue, one of them over a committed mapping: destroying the client
 * returns at once, the binds' fences signal -ECANCELED, nothing of them
 * reaches the page tables, every page-table reference is returned and the
 * page tables are empty (ASan checks the rest).
 */
static void teardown_cancels_binds_blocked_forever(void **state_)
{
	struct nvl_vm_create_args a = {.start = 0, .end = 16 * GiB};
	struct nvl_client_dev dev = {.vm_backend = td_factory};
	struct nvl_client *c;
	struct nvl_fence *gate, *f1, *f2;
	uint32_t vm, bo, bo2, q2, q3, g, s1, s2;
	struct nvl_vm_bind_op ops[2];
	struct nvl_vm_sync w = {0}, sig = {0};
	struct nvl_syncobj *so;
	int64_t t0;

	(void)state_;
	td_releases = 0;
	assert_int_equal(nvl_client_alloc(&dev, &c), 0);
	assert_int_equal(nvl_vm_create(c, &a, &vm), 0);
	assert_int_equal(
		nvl_bo_create(c, 4 * MiB, NVL_BO_DOMAIN_SYSTEM, 0, 0, &bo), 0);
	assert_int_equal(
		nvl_bo_create(c, 4 * MiB, NVL_BO_DOMAIN_SYSTEM, 0, 0, &bo2), 0);
	assert_int_equal(nvl_vm_bind_queue_create(c, vm, &q2), 0);
	ops[0] = map_op(bo, GiB, 2 * MiB, 0);
	assert_int_equal(nvl_vm_bind(c, vm, 0, ops, 1, NULL, 0, NULL, 0, 0), 0);

	assert_int_equal(nvl_syncobj_create(c, 0, &g), 0);
	so = nvl_syncobj_find(c, g);
	assert_int_equal(nvl_fence_create(&gate, nvl_fence_context_alloc(1), 1),
			 0);
	nvl_syncobj_replace_fence(so, gate);
	nvl_syncobj_put(so);
	assert_int_equal(nvl_syncobj_create(c, 0, &s1), 0);
	assert_int_equal(nvl_syncobj_create(c, 0, &s2), 0);
	w.handle = g;
	/* punch a hole into the committed mapping, map another BO */
	ops[0] = unmap_op(GiB, MiB);
	ops[1] = map_op(bo2, 2 * GiB, MiB, 0);
	sig.handle = s1;
	assert_int_equal(nvl_vm_bind(c, vm, 0, ops, 2, &w, 1, &sig, 1,
				     NVL_VM_BIND_ASYNC),
			 0);
	/* queued behind it: splits the mapping it has not made yet */
	ops[0] = unmap_op(2 * GiB + 4096, 4096);
	assert_int_equal(nvl_vm_bind(c, vm, 0, ops, 1, NULL, 0, NULL, 0,
				     NVL_VM_BIND_ASYNC),
			 0);
	ops[0] = map_op(bo, 3 * GiB, MiB, 0);
	sig.handle = s2;
	assert_int_equal(nvl_vm_bind(c, vm, q2, ops, 1, &w, 1, &sig, 1,
				     NVL_VM_BIND_ASYNC),
			 0);
	/* a disjoint bind on a third queue commits after them */
	assert_int_equal(nvl_vm_bind_queue_create(c, vm, &q3), 0);
	ops[0] = map_op(bo2, 4 * GiB, MiB, 0);
	assert_int_equal(nvl_vm_bind(c, vm, q3, ops, 1, NULL, 0, NULL, 0, 0),
			 0);
	f1 = syncobj_fence(c, s1);
	f2 = syncobj_fence(c, s2);

	t0 = nvl_time_ns();
	nvl_client_destroy(c);
	/* no waiting for the blocked binds: well under the 1 s flush */
	assert_true(nvl_time_ns() - t0 < 500ll * 1000 * 1000);
	assert_int_equal(td_releases, 1);
	assert_true(nvl_fence_is_signaled(f1));
	assert_true(nvl_fence_is_signaled(f2));
	assert_int_equal(nvl_fence_get_status(f1), -ECANCELED);
	assert_int_equal(nvl_fence_get_status(f2), -ECANCELED);
	assert_int_equal(td_stats.errors, 0);
	assert_int_equal(td_stats.refs, 0);
	assert_int_equal(td_stats.runs, 0);
	/* only the committed maps were ever written */
	assert_int_equal(td_stats.maps, 2);
	nvl_fence_signal(gate);
	nvl_fence_put(gate);
	nvl_fence_put(f1);
	nvl_fence_put(f2);
	assert_int_equal(nvl_checker_violations(), 0);
}

/* ---- ordering across queues, bounded sync binds ------------------------ */

#define SEC (1000ll * 1000 * 1000)

static void page_maps(struct env *e, uint64_t va, uint32_t bo, uint64_t off)
{
	struct nvl_gem_object *obj = nvl_gem_lookup(e->c, bo);
	struct nvl_vm_pt_page p;

	nvl_vm_pt_record_query(e->v->rec, va, &p);
	if (p.state != NVL_VM_PT_MAPPED || p.obj != obj || p.bo_offset != off)
		fail_msg("page %#llx: state %d obj %p @%#llx, expected BO %u "
			 "@%#llx",
			 (unsigned long long)va, p.state, (void *)p.obj,
			 (unsigned long long)p.bo_offset, bo,
			 (unsigned long long)off);
	nvl_gem_put(obj);
}

/* Every mapping's pages are in the page tables as the tree says. */
static void tree_matches_page_tables(struct env *e)
{
	struct nvl_gpuva *va;

	nvl_flock_lock(&e->v->gpuvm->lock);
	for (va = nvl_gpuvm_first_va(e->v->gpuvm); va;
	     va = nvl_gpuvm_next_va(va)) {
		for (uint64_t a = nvl_gpuva_addr(va); a < nvl_gpuva_end(va);
		     a += PG) {
			struct nvl_vm_pt_page p;

			nvl_vm_pt_record_query(e->v->rec, a, &p);
			if (p.state != NVL_VM_PT_MAPPED ||
			    p.obj != nvl_gpuva_obj(va) ||
			    p.bo_offset !=
				    va->bo_offset + (a - nvl_gpuva_addr(va)))
				fail_msg(
					"page %#llx disagrees with its mapping",
					(unsigned long long)a);
		}
	}
	nvl_flock_unlock(&e->v->gpuvm->lock);
}

/*
 * Queue 0 holds a bind blocked on a syncobj that punches a hole into a
 * mapping; queue 2's bind over the rest of that mapping (disjoint op
 * ranges, but it splits the piece the first bind leaves) must wait for it;
 * queue 3's bind elsewhere runs at once. Once the syncobj signals, both run
 * in submission order and the page tables match the tree.
 */
static void overlapping_binds_on_different_queues_run_in_order(void **s_)
{
	struct env e;
	struct nvl_fence *gate;
	uint32_t g, s1, s2, s3, q2, q3;
	struct nvl_vm_sync w = {0}, sig = {0};
	struct nvl_vm_bind_op op;

	(void)s_;
	env_init(&e);
	op = map_op(e.bo, GiB, 2 * MiB, 0);
	assert_int_equal(bind(&e, &op, 1), 0);
	gate = blocker(&e, &g);
	assert_int_equal(nvl_syncobj_create(e.c, 0, &s1), 0);
	assert_int_equal(nvl_syncobj_create(e.c, 0, &s2), 0);
	assert_int_equal(nvl_syncobj_create(e.c, 0, &s3), 0);
	assert_int_equal(nvl_vm_bind_queue_create(e.c, e.vm, &q2), 0);
	assert_int_equal(nvl_vm_bind_queue_create(e.c, e.vm, &q3), 0);
	w.handle = g;
	op = unmap_op(GiB, MiB);
	sig.handle = s1;
	assert_int_equal(nvl_vm_bind(e.c, e.vm, 0, &op, 1, &w, 1, &sig, 1,
				     NVL_VM_BIND_ASYNC),
			 0);
	op = map_op(e.bo2, GiB + MiB + 64 * PG, 64 * PG, 0);
	sig.handle = s2;
	assert_int_equal(nvl_vm_bind(e.c, e.vm, q2, &op, 1, NULL, 0, &sig, 1,
				     NVL_VM_BIND_ASYNC),
			 0);
	op = map_op(e.bo2, 4 * GiB, MiB, 0);
	sig.handle = s3;
	assert_int_equal(nvl_vm_bind(e.c, e.vm, q3, &op, 1, NULL, 0, &sig, 1,
				     NVL_VM_BIND_ASYNC),
			 0);
	/* disjoint: runs; overlapping: held back behind the blocked bind */
	assert_true(signalled(&e, s3, 5 * SEC));
	page_maps(&e, 4 * GiB, e.bo2, 0);
	assert_false(signalled(&e, s2, SEC / 20));
	assert_false(signalled(&e, s1, 0));
	page_maps(&e, GiB, e.bo, 0);
	page_maps(&e, GiB + MiB + 64 * PG, e.bo, MiB + 64 * PG);
	nvl_fence_signal(gate);
	assert_true(signalled(&e, s2, 5 * SEC));
	assert_true(signalled(&e, s1, 0));
	page_is(&e, GiB, NVL_VM_PT_INVALID);
	page_maps(&e, GiB + MiB, e.bo, MiB);
	page_maps(&e, GiB + MiB + 64 * PG, e.bo2, 0);
	page_maps(&e, GiB + MiB + 128 * PG, e.bo, MiB + 128 * PG);
	tree_matches_page_tables(&e);
	nvl_fence_put(gate);
	assert_int_equal(nvl_vm_bind_queue_destroy(e.c, q2), 0);
	assert_int_equal(nvl_vm_bind_queue_destroy(e.c, q3), 0);
	env_fini(&e);
}

/*
 * A synchronous bind waits a bounded time: for a wait that never signals
 * (-ETIME), for its own queue's blocked work and for an overlapping blocked
 * bind of another queue (-EBUSY); each failure has a message and changes
 * nothing. A disjoint synchronous bind on an idle queue goes through.
 */
static void sync_bind_behind_blocked_binds_fails_bounded(void **s_)
{
	struct env e;
	struct nvl_fence *gate, *never;
	uint32_t g, n, q2;
	struct nvl_vm_sync w = {0};
	struct nvl_vm_bind_op op;
	uint64_t before;
	int64_t t0;

	(void)s_;
	env_init(&e);
	e.v->sync_timeout_ns = SEC / 10;
	gate = blocker(&e, &g);
	never = blocker(&e, &n);
	assert_int_equal(nvl_vm_bind_queue_create(e.c, e.vm, &q2), 0);
	w.handle = g;
	op = map_op(e.bo, GiB, MiB, 0);
	assert_int_equal(nvl_vm_bind(e.c, e.vm, 0, &op, 1, &w, 1, NULL, 0,
				     NVL_VM_BIND_ASYNC),
			 0);
	before = state(&e);

	/* a wait that never signals */
	w.handle = n;
	op = map_op(e.bo2, 3 * GiB, MiB, 0);
	t0 = nvl_time_ns();
	assert_int_equal(nvl_vm_bind(e.c, e.vm, q2, &op, 1, &w, 1, NULL, 0, 0),
			 -ETIME);
	assert_true(strstr(nvl_last_error(), "did not signal") != NULL);
	/* behind its own queue's blocked bind */
	op = map_op(e.bo2, 3 * GiB, MiB, 0);
	assert_int_equal(nvl_vm_bind(e.c, e.vm, 0, &op, 1, NULL, 0, NULL, 0, 0),
			 -EBUSY);
	assert_true(strstr(nvl_last_error(), "pending") != NULL);
	/* over the range of another queue's blocked bind */
	op = unmap_op(GiB + 4096, 4096);
	assert_int_equal(
		nvl_vm_bind(e.c, e.vm, q2, &op, 1, NULL, 0, NULL, 0, 0),
		-EBUSY);
	assert_true(strstr(nvl_last_error(), "pending") != NULL);
	assert_true(nvl_time_ns() - t0 < 3 * SEC);
	assert_int_equal(state(&e), before);
	/* elsewhere: goes through at once */
	op = map_op(e.bo2, 3 * GiB, MiB, 0);
	assert_int_equal(
		nvl_vm_bind(e.c, e.vm, q2, &op, 1, NULL, 0, NULL, 0, 0), 0);
	page_maps(&e, 3 * GiB, e.bo2, 0);
	/* once the blocked bind ran, the same bind succeeds: it waits for
	 * that bind's job, which a loaded machine (TSan, 2 cores) may run
	 * later than the 100 ms the failures above were given */
	e.v->sync_timeout_ns = 10 * SEC;
	nvl_fence_signal(gate);
	op = unmap_op(GiB + 4096, 4096);
	assert_int_equal(
		nvl_vm_bind(e.c, e.vm, q2, &op, 1, NULL, 0, NULL, 0, 0), 0);
	page_maps(&e, GiB, e.bo, 0);
	page_is(&e, GiB + 4096, NVL_VM_PT_INVALID);
	tree_matches_page_tables(&e);
	nvl_fence_signal(never);
	nvl_fence_put(never);
	nvl_fence_put(gate);
	assert_int_equal(nvl_vm_bind_queue_destroy(e.c, q2), 0);
	env_fini(&e);
}

/*
 * Destroying a queue handle while its bind is blocked does not wait and
 * does not cancel it: the bind runs when its wait signals.
 */
static void destroyed_queue_still_runs_its_pending_binds(void **s_)
{
	struct env e;
	struct nvl_fence *gate;
	uint32_t g, s1, q2, q3;
	struct nvl_vm_sync w = {0}, sig = {0};
	struct nvl_vm_bind_op op = map_op(0, GiB, MiB, 0);
	int64_t t0;

	(void)s_;
	env_init(&e);
	gate = blocker(&e, &g);
	assert_int_equal(nvl_syncobj_create(e.c, 0, &s1), 0);
	assert_int_equal(nvl_vm_bind_queue_create(e.c, e.vm, &q2), 0);
	w.handle = g;
	sig.handle = s1;
	op.handle = e.bo;
	assert_int_equal(nvl_vm_bind(e.c, e.vm, q2, &op, 1, &w, 1, &sig, 1,
				     NVL_VM_BIND_ASYNC),
			 0);
	t0 = nvl_time_ns();
	assert_int_equal(nvl_vm_bind_queue_destroy(e.c, q2), 0);
	assert_true(nvl_time_ns() - t0 < SEC / 2);
	assert_int_equal(nvl_vm_bind_queue_destroy(e.c, q2), -ENOENT);
	page_is(&e, GiB, NVL_VM_PT_INVALID);
	nvl_fence_signal(gate);
	assert_true(signalled(&e, s1, 5 * SEC));
	page_maps(&e, GiB, e.bo, 0);
	/* a new queue frees the idle one */
	assert_int_equal(nvl_vm_bind_queue_create(e.c, e.vm, &q3), 0);
	assert_true(nvl_list_empty(&e.v->zombies));
	assert_int_equal(nvl_vm_bind_queue_destroy(e.c, q3), 0);
	nvl_fence_put(gate);
	env_fini(&e);
}

struct run_check {
	struct env *e;
	uint64_t bad;
};

static void run_in_tree(uint64_t va, uint64_t range,
			const struct nvl_vm_pt_page *p, void *arg)
{
	struct run_check *rc = arg;

	if (p->state != NVL_VM_PT_MAPPED)
		return;
	/* a run may span neighbouring mappings of one BO: page by page */
	for (uint64_t a = va; a < va + range; a += PG)
		if (!nvl_gpuvm_find_at(rc->e->v->gpuvm, a))
			rc->bad = a + 1;
}

static void release_held(struct nvl_fence **held, int *nh)
{
	/* newest first: the queues' jobs become ready out of order */
	while (*nh > 0) {
		nvl_fence_signal(held[--*nh]);
		nvl_fence_put(held[*nh]);
	}
}

/*
 * Async binds wait on fences the worker signals in batches, newest first,
 * so jobs of different queues become ready in another order than they were
 * submitted; before a sync bind (which may wait for other queues' jobs) the
 * worker releases everything it holds, so nobody waits on a blocked thread.
 */
static void *overlap_worker(void *arg)
{
	struct worker *w = arg;
	struct nvl_vm_sync sig = {.handle = w->sig}, wait = {.handle = w->gate};
	struct nvl_fence *held[8];
	/* workers hold their jobs back for different lengths */
	int hold = 1 + 3 * (int)(w->base % 3);
	uint64_t rng = w->base;
	int nh = 0;

	for (int i = 0; i < 200 && !w->ret; i++) {
		uint64_t va = GiB + (t_rand(&rng) % 32) * 65536;
		struct nvl_vm_bind_op ops[2] = {
			map_op(t_rand(&rng) % 2 ? w->e->bo : w->e->bo2, va,
			       (1 + t_rand(&rng) % 3) * 65536,
			       (t_rand(&rng) % 16) * 65536),
			unmap_op(va + (t_rand(&rng) % 8) * 4096,
				 (1 + t_rand(&rng) % 24) * 4096),
		};
		uint32_t flags = i % 10 ? NVL_VM_BIND_ASYNC : 0;
		struct nvl_syncobj *so;
		struct nvl_fence *f;

		if (flags) {
			if (nvl_fence_create(&f, nvl_fence_context_alloc(1),
					     1)) {
				w->ret = -ENOMEM;
				break;
			}
			so = nvl_syncobj_find(w->e->c, w->gate);
			nvl_syncobj_replace_fence(so, f);
			nvl_syncobj_put(so);
			held[nh++] = f;
		} else {
			release_held(held, &nh);
		}
		w->ret = nvl_vm_bind(w->e->c, w->e->vm, w->queue, ops, 2, &wait,
				     flags ? 1 : 0, &sig, 1, flags);
		if (nh == hold)
			release_held(held, &nh);
	}
	release_held(held, &nh);
	if (!w->ret)
		w->ret = nvl_syncobj_wait(w->e->c, &w->sig, NULL, 1,
					  nvl_time_ns() + 5 * SEC, 0, NULL);
	return NULL;
}

/*
 * Three queues bind and unbind over the same 2 MiB at once, async and sync
 * mixed: afterwards the page tables hold exactly what the tree says.
 */
static void racing_queues_over_one_range_keep_tree_and_pt_equal(void **s_)
{
	struct env e;
	struct worker w[3];
	pthread_t th[3];
	struct run_check rc = {&e, 0};

	(void)s_;
	env_init(&e);
	for (int i = 0; i < 3; i++) {
		w[i] = (struct worker){.e = &e, .base = 77 + (uint64_t)i};
		assert_int_equal(
			nvl_vm_bind_queue_create(e.c, e.vm, &w[i].queue), 0);
		assert_int_equal(nvl_syncobj_create(e.c, 0, &w[i].sig), 0);
		assert_int_equal(nvl_syncobj_create(e.c, 0, &w[i].gate), 0);
		assert_int_equal(
			pthread_create(&th[i], NULL, overlap_worker, &w[i]), 0);
	}
	for (int i = 0; i < 3; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(w[i].ret, 0);
	}
	/* the last binds' fences signalled; their jobs may not be freed yet */
	tree_matches_page_tables(&e);
	nvl_flock_lock(&e.v->gpuvm->lock);
	nvl_vm_pt_record_for_each(e.v->rec, run_in_tree, &rc);
	nvl_flock_unlock(&e.v->gpuvm->lock);
	assert_int_equal(rc.bad, 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(nvl_vm_bind_queue_destroy(e.c, w[i].queue), 0);
	env_fini(&e);
}

struct xq_arg {
	struct env *e;
	uint64_t before;
	uint32_t sig;
};

static int xq_op(void *p)
{
	struct xq_arg *a = p;
	struct nvl_vm_bind_op op = map_op(a->e->bo2, GiB, 2 * MiB, 0);
	struct nvl_vm_sync s = {.handle = a->sig};

	return nvl_vm_bind(a->e->c, a->e->vm, 0, &op, 1, NULL, 0, &s, 1,
			   NVL_VM_BIND_ASYNC);
}

static void xq_check(int ret, void *p)
{
	struct xq_arg *a = p;

	assert_int_equal(ret, -ENOMEM);
	assert_int_equal(state(a->e), a->before);
	assert_true(nvl_list_empty(&a->e->v->zombies));
}

/*
 * An async bind that must be ordered after another queue's blocked bind
 * allocates that dependency too: every allocation failing in turn leaves
 * the VM unchanged, and the bind that finally goes through runs after the
 * blocked one.
 */
static void allocation_failure_while_ordering_across_queues(void **s_)
{
	struct env e;
	struct xq_arg a = {&e};
	struct nvl_fence *gate;
	uint32_t g, q2;
	struct nvl_vm_sync w = {0};
	struct nvl_vm_bind_op op;

	(void)s_;
	env_init(&e);
	op = map_op(e.bo, GiB, 2 * MiB, 0);
	assert_int_equal(bind(&e, &op, 1), 0);
	gate = blocker(&e, &g);
	assert_int_equal(nvl_syncobj_create(e.c, 0, &a.sig), 0);
	assert_int_equal(nvl_vm_bind_queue_create(e.c, e.vm, &q2), 0);
	w.handle = g;
	op = unmap_op(GiB + MiB, 4096);
	assert_int_equal(nvl_vm_bind(e.c, e.vm, q2, &op, 1, &w, 1, NULL, 0,
				     NVL_VM_BIND_ASYNC),
			 0);
	a.before = state(&e);
	assert_true(t_fail_each_alloc(xq_op, xq_check, &a, 200) > 2);
	assert_false(signalled(&e, a.sig, SEC / 20));
	page_maps(&e, GiB, e.bo, 0);
	nvl_fence_signal(gate);
	assert_true(signalled(&e, a.sig, 5 * SEC));
	page_maps(&e, GiB, e.bo2, 0);
	page_maps(&e, GiB + MiB, e.bo2, MiB);
	tree_matches_page_tables(&e);
	nvl_fence_put(gate);
	assert_int_equal(nvl_vm_bind_queue_destroy(e.c, q2), 0);
	env_fini(&e);
}

/* ---- mm eviction reaches GPUVM's evict list -------------------------- */

static struct nvl_bo *vram_bo(struct nvl_mm *mm)
{
	struct nvl_bo *bo;

	assert_int_equal(
		nvl_bo_create_internal(mm, 1, MiB,
				       NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
				       NVL_BO_DOMAIN_VRAM, 0, NULL, NULL, &bo),
		0);
	return bo;
}

static enum nvl_gem_domain bo_dom(struct nvl_bo *bo)
{
	enum nvl_gem_domain d;

	nvl_mutex_lock(&bo->mm->lock);
	d = bo->dom;
	nvl_mutex_unlock(&bo->mm->lock);
	return d;
}

/*
 * A mapped BO pushed out of VRAM by mm (LRU eviction for another BO) lands
 * on the VM's evict list through mm's evict hook, which the first VM
 * installs; validating the VM brings it back and takes it off the list.
 */
static void mm_vram_eviction_reaches_the_vm_evict_list(void **s_)
{
	struct nvl_vm_create_args a = {.start = 0, .end = 16 * GiB};
	struct nvl_mm_config cfg = {.vram_B = MiB};
	struct nvl_vm_kop kop = {
		.op = NVL_VM_BIND_OP_MAP, .addr = GiB, .range = MiB};
	struct nvl_bo *bo, *other;
	struct nvl_exec exec;
	struct nvl_mm *mm;
	struct nvl_vm *vm;

	(void)s_;
	assert_int_equal(nvl_mm_create(&cfg, &mm), 0);
	assert_int_equal(nvl_vm_create_internal(&a, NULL, 1, &vm), 0);
	bo = vram_bo(mm);
	assert_int_equal(bo_dom(bo), NVL_GEM_DOMAIN_VRAM);
	kop.obj = &bo->gem;
	assert_int_equal(nvl_vm_bind_kops(vm, NULL, &kop, 1, NULL, 0, 0, NULL),
			 0);
	assert_int_equal(nvl_gpuvm_evict_count(vm->gpuvm), 0);
	/* no room for both: mm evicts the mapped BO */
	other = vram_bo(mm);
	assert_int_equal(bo_dom(bo), NVL_GEM_DOMAIN_GTT);
	assert_int_equal(nvl_gpuvm_evict_count(vm->gpuvm), 1);
	assert_int_equal(nvl_gpuvm_exec_lock(vm->gpuvm, &exec, 1), 0);
	assert_int_equal(nvl_gpuvm_validate(vm->gpuvm), 0);
	nvl_exec_fini(&exec);
	assert_int_equal(nvl_gpuvm_evict_count(vm->gpuvm), 0);
	assert_int_equal(bo_dom(bo), NVL_GEM_DOMAIN_VRAM);
	assert_int_equal(bo_dom(other), NVL_GEM_DOMAIN_GTT);
	nvl_vm_put(vm);
	(void)nvl_resv_wait(bo->gem.resv, NVL_RESV_USAGE_BOOKKEEP,
			    NVL_TIMEOUT_INFINITE);
	(void)nvl_resv_wait(other->gem.resv, NVL_RESV_USAGE_BOOKKEEP,
			    NVL_TIMEOUT_INFINITE);
	nvl_bo_put(bo);
	nvl_bo_put(other);
	nvl_mm_destroy(mm);
}

/* ---- the backend's lock over a whole bind (issue 19) ------------------- */

/*
 * A backend wrapping the recording one that counts its lock round trips
 * and the calls made while the calling thread did not hold it.
 */
static atomic_int hl_locks, hl_unheld;
static atomic_bool hl_watch;
static _Thread_local bool hl_held;
/* this thread's lock round trips: the scheduler's threads may free an
 * earlier async job (and lock) at any moment */
static _Thread_local int hl_my_locks;

static void hl_note(void)
{
	if (atomic_load(&hl_watch) && !hl_held)
		atomic_fetch_add(&hl_unheld, 1);
}

static int hl_get(void *priv, uint64_t va, uint64_t range, unsigned int ps)
{
	hl_note();
	return nvl_vm_pt_record_ops.get(priv, va, range, ps);
}

static void hl_put(void *priv, uint64_t va, uint64_t range, unsigned int ps)
{
	hl_note();
	nvl_vm_pt_record_ops.put(priv, va, range, ps);
}

static void hl_map(void *priv, uint64_t va, uint64_t range, unsigned int ps,
		   struct nvl_gem_object *obj, uint64_t off, uint32_t flags)
{
	hl_note();
	nvl_vm_pt_record_ops.map(priv, va, range, ps, obj, off, flags);
}

static void hl_unmap(void *priv, uint64_t va, uint64_t range, unsigned int ps,
		     bool to_sparse)
{
	hl_note();
	nvl_vm_pt_record_ops.unmap(priv, va, range, ps, to_sparse);
}

static void hl_sparse(void *priv, uint64_t va, uint64_t range, bool enable)
{
	hl_note();
	nvl_vm_pt_record_ops.sparse(priv, va, range, enable);
}

static void hl_lock(void *priv)
{
	assert_false(hl_held); /* never nested */
	nvl_vm_pt_record_ops.lock(priv);
	hl_held = true;
	hl_my_locks++;
	atomic_fetch_add(&hl_locks, 1);
}

static void hl_unlock(void *priv)
{
	assert_true(hl_held);
	hl_held = false;
	nvl_vm_pt_record_ops.unlock(priv);
}

static struct nvl_vm_pt_ops hl_ops;

static void hl_release(void *priv)
{
	nvl_vm_pt_record_destroy(priv);
}

static int hl_factory(struct nvl_client_dev *cdev, struct nvl_vm_backend *out)
{
	struct nvl_vm_pt_record *rec;

	(void)cdev;
	hl_ops = nvl_vm_pt_record_ops;
	hl_ops.get = hl_get;
	hl_ops.put = hl_put;
	hl_ops.map = hl_map;
	hl_ops.unmap = hl_unmap;
	hl_ops.sparse = hl_sparse;
	hl_ops.lock = hl_lock;
	hl_ops.unlock = hl_unlock;
	if (nvl_vm_pt_record_create(&rec))
		return -ENOMEM;
	out->ops = &hl_ops;
	out->priv = rec;
	out->release = hl_release;
	return 0;
}

/*
 * A synchronous bind of many ops takes the backend's lock once, and every
 * page-table call of its prepare, commit and finish (the references of
 * what it unmapped) is made under it; an asynchronous one takes it for its
 * build, its commit and its finish; a one-op call, and a call with a
 * PREFETCH (moving a BO may wait), lock per backend call instead. The
 * page tables end up as asked.
 */
static void a_bind_takes_the_backend_lock_once(void **state_)
{
	struct nvl_vm_create_args a = {.start = 0, .end = 16 * GiB};
	struct nvl_vm_bind_op ops[17];
	struct nvl_vm_sync sig = {0};
	struct nvl_vm_pt_page p;
	struct nvl_fence *f;
	struct nvl_client *c;
	struct nvl_vm *v;
	uint32_t vm, bo, so;
	struct nvl_client_dev dev = {.vm_backend = hl_factory};
	int before;

	(void)state_;
	assert_int_equal(nvl_client_alloc(&dev, &c), 0);
	assert_int_equal(nvl_vm_create(c, &a, &vm), 0);
	v = nvl_vm_lookup(c, vm);
	assert_non_null(v);
	assert_int_equal(
		nvl_bo_create(c, 4 * MiB, NVL_BO_DOMAIN_SYSTEM, 0, 0, &bo), 0);
	atomic_store(&hl_locks, 0);
	atomic_store(&hl_unheld, 0);
	atomic_store(&hl_watch, true);

	/* a sparse region, then 16 tiles in it and 16 tiles out of it */
	ops[0] = (struct nvl_vm_bind_op){.op = NVL_VM_BIND_OP_MAP,
					 .flags = NVL_VM_BIND_SPARSE,
					 .addr = GiB,
					 .range = GiB};
	for (int i = 0; i < 16; i++)
		ops[1 + i] = map_op(bo, GiB + (uint64_t)i * 3 * (64ull << 10),
				    (64ull << 10), (uint64_t)i * (64ull << 10));
	assert_int_equal(nvl_vm_bind(c, vm, 0, ops, 17, NULL, 0, NULL, 0, 0),
			 0);
	assert_int_equal(atomic_load(&hl_locks), 1);
	for (int i = 0; i < 16; i++)
		ops[i] = unmap_op(GiB + (uint64_t)i * 3 * (64ull << 10),
				  (64ull << 10));
	assert_int_equal(nvl_vm_bind(c, vm, 0, ops, 16, NULL, 0, NULL, 0, 0),
			 0);
	assert_int_equal(atomic_load(&hl_locks), 2);
	assert_int_equal(atomic_load(&hl_unheld), 0);
	nvl_vm_pt_record_query(v->rec ? v->rec : v->backend.priv, GiB, &p);
	assert_int_equal(p.state, NVL_VM_PT_SPARSE);

	/* async: build, then commit and finish on the scheduler's threads */
	assert_int_equal(nvl_syncobj_create(c, 0, &so), 0);
	sig.handle = so;
	ops[0] = map_op(bo, 4 * GiB, MiB, 0);
	ops[1] = map_op(bo, 4 * GiB + MiB, MiB, MiB);
	assert_int_equal(nvl_vm_bind(c, vm, 0, ops, 2, NULL, 0, &sig, 1,
				     NVL_VM_BIND_ASYNC),
			 0);
	f = syncobj_fence(c, so);
	assert_int_equal(nvl_fence_wait(f, NVL_TIMEOUT_INFINITE), 0);
	nvl_fence_put(f);
	ops[0] = unmap_op(4 * GiB, MiB);
	ops[1] = unmap_op(4 * GiB + MiB, MiB);
	assert_int_equal(nvl_vm_bind(c, vm, 0, ops, 2, NULL, 0, NULL, 0, 0), 0);
	/* build and run_job of the async bind, the sync one (and free_job) */
	assert_true(atomic_load(&hl_locks) >= 5);
	assert_int_equal(atomic_load(&hl_unheld), 0);

	/* a one-op call locks per backend call, as before */
	ops[0] = map_op(bo, 6 * GiB, MiB, 0);
	before = hl_my_locks;
	assert_int_equal(nvl_vm_bind(c, vm, 0, ops, 1, NULL, 0, NULL, 0, 0), 0);
	assert_int_equal(hl_my_locks, before);
	assert_true(atomic_load(&hl_unheld) > 0);
	nvl_vm_pt_record_query(v->rec ? v->rec : v->backend.priv, 6 * GiB, &p);
	assert_int_equal(p.state, NVL_VM_PT_MAPPED);
	atomic_store(&hl_unheld, 0);

	/* a PREFETCH in the call: built without the lock, and still right */
	ops[0] = map_op(bo, 2 * GiB + 2 * MiB, 2 * MiB, 0);
	ops[1] = (struct nvl_vm_bind_op){.op = NVL_VM_BIND_OP_PREFETCH,
					 .addr = 2 * GiB + 2 * MiB,
					 .range = 2 * MiB};
	assert_int_equal(nvl_vm_bind(c, vm, 0, ops, 2, NULL, 0, NULL, 0, 0), 0);
	assert_true(atomic_load(&hl_unheld) > 0);
	nvl_vm_pt_record_query(v->rec ? v->rec : v->backend.priv,
			       2 * GiB + 2 * MiB, &p);
	assert_int_equal(p.state, NVL_VM_PT_MAPPED);

	atomic_store(&hl_watch, false);
	nvl_vm_put(v);
	nvl_client_put(c);
	assert_int_equal(nvl_checker_violations(), 0);
}

struct closer_worker {
	struct nvl_client *c;
	uint32_t vm, bo;
	uint64_t base;
	atomic_int *binds;
	int bad;
};

/* one-op sync binds until the VM handle is gone */
static void *closer_fn(void *arg)
{
	struct closer_worker *w = arg;
	uint64_t rng = w->base;

	for (;;) {
		uint64_t va = w->base + (t_rand(&rng) % 256) * 65536;
		struct nvl_vm_bind_op op =
			map_op(w->bo, va, 65536, (t_rand(&rng) % 32) * 65536);
		int ret = nvl_vm_bind(w->c, w->vm, 0, &op, 1, NULL, 0, NULL, 0,
				      0);

		if (!ret) {
			op = unmap_op(va, 65536);
			ret = nvl_vm_bind(w->c, w->vm, 0, &op, 1, NULL, 0, NULL,
					  0, 0);
		}
		atomic_fetch_add(w->binds, 1);
		if (ret == -ENOENT) {
			/* the BO handle went first: unmaps still work */
			op = unmap_op(va, 65536);
			ret = nvl_vm_bind(w->c, w->vm, 0, &op, 1, NULL, 0, NULL,
					  0, 0);
			if (ret == -ENOENT)
				return NULL;
		}
		if (ret) {
			w->bad = ret;
			return NULL;
		}
	}
}

/*
 * A one-op bind holds neither a VM nor a BO reference (lock coupling, issue
 * 19): closing the VM and BO handles while threads bind must neither free
 * what a bind still uses nor lose a bind (each one completes or gets
 * -ENOENT). Under ASan and TSan this checks the VM teardown's wait for the
 * VM lock.
 */
static void closing_handles_under_one_op_binds(void **state_)
{
	(void)state_;
	for (int round = 0; round < 20; round++) {
		struct nvl_vm_create_args a = {.start = 0, .end = 16 * GiB};
		struct closer_worker w[3];
		pthread_t th[3];
		atomic_int binds = 0;
		struct nvl_client *c;
		uint32_t vm, bo;

		assert_int_equal(nvl_client_create(&c), 0);
		assert_int_equal(nvl_vm_create(c, &a, &vm), 0);
		assert_int_equal(nvl_bo_create(c, 2 * MiB, NVL_BO_DOMAIN_SYSTEM,
					       0, 0, &bo),
				 0);
		for (int i = 0; i < 3; i++) {
			w[i] = (struct closer_worker){
				.c = c,
				.vm = vm,
				.bo = bo,
				.base = (uint64_t)(i + 1) * GiB,
				.binds = &binds,
			};
			assert_int_equal(
				pthread_create(&th[i], NULL, closer_fn, &w[i]),
				0);
		}
		while (atomic_load(&binds) < 20 + round * 10)
			sched_yield();
		if (round % 2)
			assert_int_equal(nvl_bo_close(c, bo), 0);
		assert_int_equal(nvl_vm_destroy(c, vm), 0);
		for (int i = 0; i < 3; i++) {
			pthread_join(th[i], NULL);
			assert_int_equal(w[i].bad, 0);
		}
		nvl_client_destroy(c);
	}
	assert_int_equal(nvl_checker_violations(), 0);
}

struct reuse_worker {
	struct nvl_client *c;
	uint32_t vm, bo;
	uint64_t base;
	atomic_int *stop, *binds;
	int bad;
};

/* one-op binds by handle number, whatever VM and BO it names now */
static void *reuse_fn(void *arg)
{
	struct reuse_worker *w = arg;
	uint64_t rng = w->base;

	while (!atomic_load(w->stop)) {
		uint64_t va = w->base + (t_rand(&rng) % 64) * 65536;
		struct nvl_vm_bind_op op =
			map_op(w->bo, va, 65536, (t_rand(&rng) % 32) * 65536);
		int ret = nvl_vm_bind(w->c, w->vm, 0, &op, 1, NULL, 0, NULL, 0,
				      0);

		if (ret && ret != -ENOENT)
			w->bad = ret;
		op = unmap_op(va, 65536);
		ret = nvl_vm_bind(w->c, w->vm, 0, &op, 1, NULL, 0, NULL, 0, 0);
		if (ret && ret != -ENOENT)
			w->bad = ret;
		atomic_fetch_add(w->binds, 1);
	}
	return NULL;
}

/*
 * The one-op bind finds its VM and BO in a read section of the client,
 * without its lock (issue 19): destroying the VM and closing the BO while
 * threads bind, then making new ones that get the same handle numbers,
 * must neither free what a bind still uses (ASan) nor race (TSan); each
 * bind completes on the object its handle named or gets -ENOENT.
 */
static void destroying_and_reusing_handles_under_one_op_binds(void **state_)
{
	struct nvl_vm_create_args a = {.start = 0, .end = 16 * GiB};
	struct reuse_worker w[2];
	atomic_int stop = 0, binds = 0;
	pthread_t th[2];
	struct nvl_client *c;
	uint32_t vm, bo, h;

	(void)state_;
	assert_int_equal(nvl_client_create(&c), 0);
	assert_int_equal(nvl_vm_create(c, &a, &vm), 0);
	assert_int_equal(
		nvl_bo_create(c, 2 * MiB, NVL_BO_DOMAIN_SYSTEM, 0, 0, &bo), 0);
	for (int i = 0; i < 2; i++) {
		w[i] = (struct reuse_worker){
			.c = c,
			.vm = vm,
			.bo = bo,
			.base = (uint64_t)(i + 1) * GiB,
			.stop = &stop,
			.binds = &binds,
		};
		assert_int_equal(pthread_create(&th[i], NULL, reuse_fn, &w[i]),
				 0);
	}
	for (int round = 0; round < 40; round++) {
		int seen = atomic_load(&binds);

		while (atomic_load(&binds) < seen + 5)
			sched_yield();
		if (round % 2) {
			assert_int_equal(nvl_bo_close(c, bo), 0);
			assert_int_equal(nvl_bo_create(c, 2 * MiB,
						       NVL_BO_DOMAIN_SYSTEM, 0,
						       0, &h),
					 0);
			assert_int_equal(h, bo);
		} else {
			assert_int_equal(nvl_vm_destroy(c, vm), 0);
			assert_int_equal(nvl_vm_create(c, &a, &h), 0);
			assert_int_equal(h, vm);
		}
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < 2; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(w[i].bad, 0);
	}
	nvl_client_destroy(c);
	assert_int_equal(nvl_checker_violations(), 0);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(device_clients_get_the_driver_backend),
	cmocka_unit_test(destroying_a_vm_with_a_blocked_bind_cleans_up),
	cmocka_unit_test(teardown_cancels_binds_blocked_forever),
	cmocka_unit_test(concurrent_binds_on_separate_queues),
	cmocka_unit_test(map_unmap_through_handles_writes_page_tables),
	cmocka_unit_test(fault_service_writes_the_mappings_flags),
	cmocka_unit_test(bad_input_is_rejected_and_changes_nothing),
	cmocka_unit_test(allocation_failure_anywhere_leaves_vm_unchanged),
	cmocka_unit_test(async_allocation_failure_anywhere_leaves_vm_unchanged),
	cmocka_unit_test(async_binds_run_in_queue_order_after_waits),
	cmocka_unit_test(maps_of_one_bo_wait_for_its_kernel_fences),
	cmocka_unit_test(sync_bind_behind_queued_work_waits_for_it),
	cmocka_unit_test(zero_op_calls_still_signal_timeline_points),
	cmocka_unit_test(backend_failure_in_bind_job_bans_the_vm),
	cmocka_unit_test(backend_failure_in_one_op_sync_bind_bans_the_vm),
	cmocka_unit_test(sparse_region_and_null_mapping_semantics),
	cmocka_unit_test(overlapping_binds_on_different_queues_run_in_order),
	cmocka_unit_test(sync_bind_behind_blocked_binds_fails_bounded),
	cmocka_unit_test(destroyed_queue_still_runs_its_pending_binds),
	cmocka_unit_test(racing_queues_over_one_range_keep_tree_and_pt_equal),
	cmocka_unit_test(mm_vram_eviction_reaches_the_vm_evict_list),
	cmocka_unit_test(allocation_failure_while_ordering_across_queues),
	cmocka_unit_test(a_bind_takes_the_backend_lock_once),
	cmocka_unit_test(closing_handles_under_one_op_binds),
	cmocka_unit_test(destroying_and_reusing_handles_under_one_op_binds),
	cmocka_unit_test(one_op_binds_own_the_record_only_inside),
};

T_MAIN(tests)

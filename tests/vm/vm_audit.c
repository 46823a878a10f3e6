// SPDX-License-Identifier: MIT
/*
 * TEST: vm_audit
 * Description: adversarial review of GPUVM and VM_BIND (audit 11): what
 * a bind promises against what the page tables hold after it, at the
 * edges the other vm tests do not reach.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nouvelle/bo.h>
#include <nouvelle/sync.h>
#include <nouvelle/vm.h>

#include "t.h"
#include "base/client.h"
#include "base/log.h"
#include "mm/gem.h"
#include "sync/checker.h"
#include "sync/fence.h"
#include "sync/syncobj.h"
#include "vm/pt_record.h"
#include "vm/vm.h"

#define GiB (1ull << 30)
#define MiB (1ull << 20)

struct env {
	struct nvl_client *c;
	uint32_t vm, bo;
	struct nvl_vm *v;
};

static void env_init_args(struct env *e, const struct nvl_vm_create_args *a)
{
	assert_int_equal(nvl_client_create(&e->c), 0);
	assert_int_equal(nvl_vm_create(e->c, a, &e->vm), 0);
	assert_int_equal(nvl_bo_create(e->c, 4 * MiB, NVL_BO_DOMAIN_SYSTEM, 0,
				       0, &e->bo),
			 0);
	e->v = nvl_vm_lookup(e->c, e->vm);
	assert_non_null(e->v);
}

static void env_fini(struct env *e)
{
	struct nvl_vm_pt_record_stats st;

	nvl_vm_pt_record_stats(e->v->rec, &st);
	assert_int_equal(st.errors, 0);
	nvl_vm_put(e->v);
	nvl_client_destroy(e->c);
	assert_int_equal(nvl_checker_violations(), 0);
}

static struct nvl_vm_bind_op map_op(uint32_t bo, uint64_t addr, uint64_t range,
				    uint64_t off, uint32_t flags)
{
	return (struct nvl_vm_bind_op){.op = NVL_VM_BIND_OP_MAP,
				       .flags = flags,
				       .handle = bo,
				       .addr = addr,
				       .range = range,
				       .bo_offset = off};
}

static int bind1(struct env *e, struct nvl_vm_bind_op op)
{
	return nvl_vm_bind(e->c, e->vm, 0, &op, 1, NULL, 0, NULL, 0, 0);
}

static struct nvl_vm_pt_page page(struct env *e, uint64_t va)
{
	struct nvl_vm_pt_page p;

	nvl_vm_pt_record_query(e->v->rec, va, &p);
	return p;
}

/*
 * vm.h, NVL_VM_BIND_LAZY: "no page is written until the GPU's first
 * access to it faults", and the fault service refuses a write into a
 * READONLY mapping (-EACCES). A LAZY READONLY map over a writable mapping
 * of the same BO at the same offset (the split/merge "keep" case: the old
 * PTEs already point where the new mapping does) skipped the unmap of the
 * old entries, and a lazy map writes none: the range stayed mapped
 * writable, so the GPU wrote without ever faulting. The same held for the
 * hole of a REMAP (a lazy read-only map inside a bigger mapping).
 */
static void lazy_map_over_same_bo_leaves_no_old_entries(void **state)
{
	struct nvl_vm_create_args a = {.end = 16 * GiB,
				       .flags = NVL_VM_CREATE_FAULTABLE};
	const uint32_t lazy_ro = NVL_VM_BIND_LAZY | NVL_VM_BIND_READONLY;
	uint64_t pg, size;
	struct env e;

	(void)state;
	env_init_args(&e, &a);
	/* exact overlap: UNMAP(keep), MAP */
	assert_int_equal(bind1(&e, map_op(e.bo, GiB, 2 * MiB, 0, 0)), 0);
	assert_int_equal(page(&e, GiB + 8192).state, NVL_VM_PT_MAPPED);
	assert_int_equal(bind1(&e, map_op(e.bo, GiB, 2 * MiB, 0, lazy_ro)), 0);
	if (page(&e, GiB + 8192).state != NVL_VM_PT_INVALID)
		fail_msg("lazy read-only map: page left %s (flags %#x)",
			 page(&e, GiB + 8192).state == NVL_VM_PT_MAPPED
				 ? "mapped"
				 : "not invalid",
			 page(&e, GiB + 8192).flags);
	/* a write fault there is refused, a read maps it read-only */
	assert_int_equal(nvl_vm_fault_map(e.v, GiB + 8192, true, &pg, &size),
			 -EACCES);
	assert_int_equal(nvl_vm_fault_map(e.v, GiB + 8192, false, &pg, &size),
			 0);
	assert_int_equal(page(&e, GiB + 8192).state, NVL_VM_PT_MAPPED);
	assert_true(page(&e, GiB + 8192).flags & NVL_VM_PT_READONLY);

	/* hole punch: REMAP(prev, next, keep), MAP */
	assert_int_equal(bind1(&e, map_op(e.bo, 2 * GiB, 4 * MiB, 0, 0)), 0);
	assert_int_equal(
		bind1(&e, map_op(e.bo, 2 * GiB + MiB, MiB, MiB, lazy_ro)), 0);
	assert_int_equal(page(&e, 2 * GiB + MiB).state, NVL_VM_PT_INVALID);
	assert_int_equal(page(&e, 2 * GiB + 2 * MiB - 4096).state,
			 NVL_VM_PT_INVALID);
	/* the pieces around it keep their entries */
	assert_int_equal(page(&e, 2 * GiB + MiB - 4096).state,
			 NVL_VM_PT_MAPPED);
	assert_int_equal(page(&e, 2 * GiB + 2 * MiB).state, NVL_VM_PT_MAPPED);
	env_fini(&e);
}

/* a syncobj holding a fence that signals only when the test says */
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

/*
 * vm.h, NVL_VM_BIND_LAZY: a lazily bound BO's pages are mapped when the
 * GPU first touches them. An async unmap of the tail of such a mapping,
 * still waiting for its in-fence, replaces the mapping in the tree by its
 * head piece (new, PENDING until the bind finishes); the fault service
 * refused every address of a PENDING mapping (-ENOENT: the channel dies),
 * so an access to the head, bound all along to the same BO pages before
 * and after that bind, killed the channel. A piece a REMAP keeps of a
 * committed mapping is the old mapping's: the fault maps it.
 */
static void fault_in_a_mapping_split_by_a_pending_bind(void **state)
{
	struct nvl_vm_create_args a = {.end = 16 * GiB,
				       .flags = NVL_VM_CREATE_FAULTABLE};
	struct nvl_vm_bind_op op = {.op = NVL_VM_BIND_OP_UNMAP,
				    .addr = GiB + 3 * MiB,
				    .range = MiB};
	struct nvl_vm_sync w = {0};
	struct nvl_fence *gate;
	uint64_t pg, size;
	struct env e;
	uint32_t g;

	(void)state;
	env_init_args(&e, &a);
	assert_int_equal(
		bind1(&e, map_op(e.bo, GiB, 4 * MiB, 0, NVL_VM_BIND_LAZY)), 0);
	gate = blocker(&e, &g);
	w.handle = g;
	assert_int_equal(nvl_vm_bind(e.c, e.vm, 0, &op, 1, &w, 1, NULL, 0,
				     NVL_VM_BIND_ASYNC),
			 0);
	/* the head stays the BO's: its pages fault in */
	assert_int_equal(nvl_vm_fault_map(e.v, GiB + 8192, false, &pg, &size),
			 0);
	assert_int_equal(page(&e, GiB + 8192).state, NVL_VM_PT_MAPPED);
	assert_int_equal(page(&e, GiB + 8192).bo_offset, 8192);
	/* the tail is on its way out: no new page there */
	assert_int_equal(
		nvl_vm_fault_map(e.v, GiB + 3 * MiB, false, &pg, &size),
		-ENOENT);
	nvl_fence_signal(gate);
	nvl_fence_put(gate);
	assert_int_equal(nvl_syncobj_wait(e.c, &g, NULL, 1, INT64_MAX, 0, NULL),
			 0);
	/* flush the queue: a sync bind waits for it */
	op = (struct nvl_vm_bind_op){
		.op = NVL_VM_BIND_OP_UNMAP, .addr = 8 * GiB, .range = MiB};
	assert_int_equal(bind1(&e, op), 0);
	assert_int_equal(page(&e, GiB + 8192).state, NVL_VM_PT_MAPPED);
	assert_int_equal(page(&e, GiB + 3 * MiB).state, NVL_VM_PT_INVALID);
	env_fini(&e);
}

/*
 * vm.h: a window may end anywhere page aligned, so the last page of the
 * 64-bit space is a valid place for a mapping and a sparse region; every
 * end computed from it must not wrap.
 */
static void the_last_page_of_the_address_space(void **state)
{
	const uint64_t top = 0ull - 4096; /* the window's exclusive end */
	struct nvl_vm_create_args a = {.start = top - GiB, .end = top};
	struct nvl_vm_bind_op sp = {.op = NVL_VM_BIND_OP_MAP,
				    .flags = NVL_VM_BIND_SPARSE,
				    .addr = top - 2 * MiB,
				    .range = 2 * MiB};
	struct env e;

	(void)state;
	env_init_args(&e, &a);
	assert_int_equal(bind1(&e, map_op(e.bo, top - 4096, 4096, 4096, 0)), 0);
	assert_int_equal(page(&e, top - 4096).state, NVL_VM_PT_MAPPED);
	assert_int_equal(page(&e, top - 4096).bo_offset, 4096);
	/* one page past the window, and a range that wraps */
	assert_int_equal(bind1(&e, map_op(e.bo, top - 4096, 8192, 0, 0)),
			 -EINVAL);
	assert_int_equal(
		bind1(&e, map_op(e.bo, top - 4096, 0ull - (top - 8192), 0, 0)),
		-EINVAL);
	sp.op = NVL_VM_BIND_OP_UNMAP;
	sp.flags = 0;
	assert_int_equal(bind1(&e, sp), 0);
	assert_int_equal(page(&e, top - 4096).state, NVL_VM_PT_INVALID);
	sp.op = NVL_VM_BIND_OP_MAP;
	sp.flags = NVL_VM_BIND_SPARSE;
	assert_int_equal(bind1(&e, sp), 0);
	assert_int_equal(page(&e, top - 4096).state, NVL_VM_PT_SPARSE);
	assert_int_equal(bind1(&e, map_op(e.bo, top - 8192, 8192, 0, 0)), 0);
	assert_int_equal(page(&e, top - 4096).state, NVL_VM_PT_MAPPED);
	sp.op = NVL_VM_BIND_OP_UNMAP;
	assert_int_equal(bind1(&e, sp), 0);
	assert_int_equal(page(&e, top - 4096).state, NVL_VM_PT_INVALID);
	assert_int_equal(page(&e, top - 2 * MiB).state, NVL_VM_PT_INVALID);
	env_fini(&e);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(lazy_map_over_same_bo_leaves_no_old_entries),
	cmocka_unit_test(fault_in_a_mapping_split_by_a_pending_bind),
	cmocka_unit_test(the_last_page_of_the_address_space),
};

T_MAIN(tests)

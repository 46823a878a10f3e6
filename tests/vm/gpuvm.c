// SPDX-License-Identifier: MIT
/*
 * TEST: gpuvm
 * Description: GPUVM's core without the bind API: lookups, every split/merge
 * case of the DOC diagrams, sparse regions, vm_bo tracking, and a property
 * test of random op sequences against a page-granular reference model
 * (mapping sets, recorded page tables, and each op list's own effect).
 */
#include <stdio.h>

#include "t.h"
#include "base/log.h"
#include "sync/exec.h"
#include "vm/vm_exec.h"
#include "vmt.h"

struct fixture {
	struct nvl_gpuvm *vm;
	struct nvl_vm_pt_record *rec;
	struct nvl_gem_object *bo[4];
};

static void fx_init(struct fixture *f)
{
	struct nvl_gpuvm_args args = {
		.name = "test",
		.start = 0,
		.end = MP * PG,
		.kernel_start = MRES_START * PG,
		.kernel_range = (MP - MRES_START) * PG,
		.page_shift = 12,
		.pt_ops = &nvl_vm_pt_record_ops,
	};

	memset(f, 0, sizeof(*f));
	assert_int_equal(nvl_vm_pt_record_create(&f->rec), 0);
	args.pt_priv = f->rec;
	assert_int_equal(nvl_gpuvm_create(&args, &f->vm), 0);
	for (int i = 0; i < 4; i++)
		f->bo[i] = tobj_new(MP * PG, NULL);
}

static void fx_fini(struct fixture *f)
{
	struct nvl_vm_pt_record_stats st;

	nvl_gpuvm_destroy(f->vm);
	nvl_vm_pt_record_stats(f->rec, &st);
	assert_int_equal(st.refs, 0);
	assert_int_equal(st.runs, 0);
	assert_int_equal(st.errors, 0);
	nvl_vm_pt_record_destroy(f->rec);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(nvl_kref_read(&f->bo[i]->ref), 1);
		nvl_gem_put(f->bo[i]);
	}
}

enum { C_MAP, C_UNMAP, C_RCREATE, C_RDESTROY, C_UNMAP_ALL };

struct cop {
	int kind;
	uint32_t a, n; /* pages */
	struct nvl_gem_object *obj;
	uint64_t off;
	uint32_t flags;
};

static int make_ops(struct nvl_gpuvm *vm, const struct cop *c,
		    struct nvl_gpuvm_ops *ops)
{
	struct nvl_gpuvm_map_req req = {c->a * PG, c->n * PG, c->obj, c->off,
					c->flags};

	switch (c->kind) {
	case C_MAP:
		return nvl_gpuvm_sm_map_ops(vm, &req, ops);
	case C_UNMAP:
		return nvl_gpuvm_sm_unmap_ops(vm, req.addr, req.range, ops);
	case C_RCREATE:
		return nvl_gpuvm_region_create_ops(vm, req.addr, req.range,
						   ops);
	case C_RDESTROY:
		return nvl_gpuvm_region_destroy_ops(vm, req.addr, req.range,
						    ops);
	default:
		return nvl_gpuvm_bo_unmap_ops(vm, c->obj, ops);
	}
}

static int model_op(struct model *m, const struct cop *c)
{
	switch (c->kind) {
	case C_MAP:
		return m_map(m, c->a, c->n, c->obj, c->off, c->flags);
	case C_UNMAP:
		return m_unmap(m, c->a, c->n);
	case C_RCREATE:
		return m_region_create(m, c->a, c->n);
	case C_RDESTROY:
		return m_region_destroy(m, c->a, c->n);
	default:
		m_unmap_all(m, c->obj);
		return 0;
	}
}

/*
 * One "bind call" through the core: each op's list is created, checked
 * against the model (the list's effect equals the model's diff), prepared
 * and applied; then commit + finish, or abort on the first error.
 */
static int core_call(struct fixture *f, struct model *m, const struct cop *c,
		     int n)
{
	struct model next = *m;
	struct nvl_gpuvm_txn txn;
	int ret = 0, expect = 0;

	m_call_begin(&next);
	nvl_gpuvm_txn_begin(f->vm, &txn);
	for (int i = 0; i < n && !ret; i++) {
		struct nvl_gpuvm_ops ops;
		struct model before = next, effect;

		expect = model_op(&next, &c[i]);
		nvl_gpuvm_ops_init(&ops);
		ret = make_ops(f->vm, &c[i], &ops);
		if (ret) {
			if (ret != expect)
				print_message("op %d kind %d [%u,+%u): %s\n", i,
					      c[i].kind, c[i].a, c[i].n,
					      nvl_error_msg());
			assert_int_equal(ret, expect);
			nvl_gpuvm_ops_fini(f->vm, &ops);
			break;
		}
		assert_int_equal(expect, 0);
		effect = before;
		m_apply_ops(&effect, &ops);
		assert_true(m_same_mappings(&effect, &next));
		ret = nvl_gpuvm_txn_prepare(&txn, &ops);
		if (!ret)
			nvl_gpuvm_txn_apply(&txn, &ops);
		nvl_gpuvm_ops_fini(f->vm, &ops);
	}
	if (ret) {
		nvl_gpuvm_txn_abort(&txn);
		return ret;
	}
	nvl_gpuvm_txn_commit(&txn);
	nvl_gpuvm_txn_finish(&txn);
	*m = next;
	return 0;
}

static void check_all(struct fixture *f, const struct model *m)
{
	struct nvl_vm_pt_record_stats st;
	int bad = m_check_vm(m, f->vm);

	if (bad)
		fail_msg("vm mapping mismatch at page %d", bad - 1);
	bad = m_check_pt(m, f->rec);
	if (bad)
		fail_msg("page-table mismatch at page %d", bad - 1);
	assert_int_equal(nvl_ibtree_check(&f->vm->vas), 0);
	nvl_vm_pt_record_stats(f->rec, &st);
	assert_int_equal(st.errors, 0);
}

static void ops_for(struct nvl_gpuvm_ops *ops, struct fixture *f, uint32_t a,
		    uint32_t n, int bo, uint64_t off)
{
	struct nvl_gpuvm_map_req req = {a * PG, n * PG, f->bo[bo], off, 0};

	nvl_gpuvm_ops_init(ops);
	assert_int_equal(nvl_gpuvm_sm_map_ops(f->vm, &req, ops), 0);
}

static void map_now(struct fixture *f, struct model *m, uint32_t a, uint32_t n,
		    int bo, uint64_t off)
{
	struct cop c = {C_MAP, a, n, f->bo[bo], off, 0};

	assert_int_equal(core_call(f, m, &c, 1), 0);
}

static void exact_overlap_same_bo_gives_unmap_keep_then_map(void **state)
{
	struct fixture f;
	struct model m = {0};
	struct nvl_gpuvm_ops ops;

	(void)state;
	fx_init(&f);
	map_now(&f, &m, 10, 4, 0, 0);
	ops_for(&ops, &f, 10, 4, 0, 0);
	assert_int_equal(ops.n, 2);
	assert_int_equal(ops.v[0].kind, NVL_GPUVM_OP_UNMAP);
	assert_true(ops.v[0].keep);
	assert_int_equal(ops.v[1].kind, NVL_GPUVM_OP_MAP);
	nvl_gpuvm_ops_fini(f.vm, &ops);
	ops_for(&ops, &f, 10, 4, 1, 0);
	assert_false(ops.v[0].keep);
	nvl_gpuvm_ops_fini(f.vm, &ops);
	check_all(&f, &m);
	fx_fini(&f);
}

static void front_cut_keeps_next_with_offset_advanced(void **state)
{
	struct fixture f;
	struct model m = {0};
	struct nvl_gpuvm_ops ops;

	(void)state;
	fx_init(&f);
	map_now(&f, &m, 10, 6, 0, 8 * PG);
	ops_for(&ops, &f, 10, 3, 1, 0);
	assert_int_equal(ops.n, 2);
	assert_int_equal(ops.v[0].kind, NVL_GPUVM_OP_REMAP);
	assert_int_equal(ops.v[0].remap.prev.range, 0);
	assert_int_equal(ops.v[0].remap.next.addr, 13 * PG);
	assert_int_equal(ops.v[0].remap.next.range, 3 * PG);
	assert_int_equal(ops.v[0].remap.next.bo_offset, 11 * PG);
	nvl_gpuvm_ops_fini(f.vm, &ops);
	fx_fini(&f);
}

static void back_cut_keeps_prev_and_keep_hint_follows_offsets(void **state)
{
	struct fixture f;
	struct model m = {0};
	struct nvl_gpuvm_ops ops;

	(void)state;
	fx_init(&f);
	map_now(&f, &m, 10, 6, 0, 0);
	/* same BO, offset continuing the old mapping: keep */
	ops_for(&ops, &f, 13, 3, 0, 3 * PG);
	assert_int_equal(ops.v[0].kind, NVL_GPUVM_OP_REMAP);
	assert_int_equal(ops.v[0].remap.prev.range, 3 * PG);
	assert_int_equal(ops.v[0].remap.next.range, 0);
	assert_true(ops.v[0].keep);
	nvl_gpuvm_ops_fini(f.vm, &ops);
	ops_for(&ops, &f, 13, 3, 0, 4 * PG);
	assert_false(ops.v[0].keep);
	nvl_gpuvm_ops_fini(f.vm, &ops);
	fx_fini(&f);
}

static void hole_punch_gives_prev_and_next_with_tail_offset(void **state)
{
	struct fixture f;
	struct model m = {0};
	struct nvl_gpuvm_ops ops;

	(void)state;
	fx_init(&f);
	map_now(&f, &m, 10, 9, 0, 2 * PG);
	ops_for(&ops, &f, 13, 3, 1, 0);
	assert_int_equal(ops.n, 2);
	assert_int_equal(ops.v[0].remap.prev.addr, 10 * PG);
	assert_int_equal(ops.v[0].remap.prev.range, 3 * PG);
	assert_int_equal(ops.v[0].remap.prev.bo_offset, 2 * PG);
	assert_int_equal(ops.v[0].remap.next.addr, 16 * PG);
	assert_int_equal(ops.v[0].remap.next.range, 3 * PG);
	assert_int_equal(ops.v[0].remap.next.bo_offset, 8 * PG);
	nvl_gpuvm_ops_fini(f.vm, &ops);
	/* and applied: the doc's case 15 (tail offset n+1) */
	map_now(&f, &m, 13, 3, 1, 0);
	check_all(&f, &m);
	fx_fini(&f);
}

static void request_spanning_mappings_and_gaps_orders_ops(void **state)
{
	struct fixture f;
	struct model m = {0};
	struct nvl_gpuvm_ops ops;

	(void)state;
	fx_init(&f);
	map_now(&f, &m, 10, 3, 0, 0);
	map_now(&f, &m, 15, 2, 1, 0);
	map_now(&f, &m, 18, 4, 2, 0);
	ops_for(&ops, &f, 12, 8, 3, 0);
	assert_int_equal(ops.n, 4);
	assert_int_equal(ops.v[0].kind, NVL_GPUVM_OP_REMAP);
	assert_int_equal(ops.v[1].kind, NVL_GPUVM_OP_UNMAP);
	assert_int_equal(ops.v[2].kind, NVL_GPUVM_OP_REMAP);
	assert_int_equal(ops.v[3].kind, NVL_GPUVM_OP_MAP);
	assert_int_equal(ops.v[2].remap.next.addr, 20 * PG);
	nvl_gpuvm_ops_fini(f.vm, &ops);
	map_now(&f, &m, 12, 8, 3, 0);
	check_all(&f, &m);
	fx_fini(&f);
}

static void unmap_of_empty_range_gives_zero_ops(void **state)
{
	struct fixture f;
	struct model m = {0};
	struct nvl_gpuvm_ops ops;

	(void)state;
	fx_init(&f);
	map_now(&f, &m, 10, 3, 0, 0);
	nvl_gpuvm_ops_init(&ops);
	assert_int_equal(nvl_gpuvm_sm_unmap_ops(f.vm, 20 * PG, 5 * PG, &ops),
			 0);
	assert_int_equal(ops.n, 0);
	assert_int_equal(nvl_gpuvm_sm_unmap_ops(f.vm, 0, 0, &ops), -EINVAL);
	assert_int_equal(
		nvl_gpuvm_sm_unmap_ops(f.vm, MRES_START * PG, PG, &ops),
		-EINVAL);
	nvl_gpuvm_ops_fini(f.vm, &ops);
	fx_fini(&f);
}

static void lookups_find_first_next_and_at(void **state)
{
	struct fixture f;
	struct model m = {0};
	struct nvl_gpuva *va;
	int n = 0;

	(void)state;
	fx_init(&f);
	map_now(&f, &m, 10, 3, 0, 0);
	map_now(&f, &m, 20, 3, 0, 0);
	map_now(&f, &m, 30, 3, 0, 0);
	va = nvl_gpuvm_find_first(f.vm, 11 * PG, 15 * PG);
	assert_int_equal(nvl_gpuva_addr(va), 10 * PG);
	nvl_gpuvm_for_each_va_range(va, f.vm, 11 * PG, 15 * PG) n++;
	assert_int_equal(n, 2);
	assert_null(nvl_gpuvm_find_at(f.vm, 13 * PG));
	assert_int_equal(nvl_gpuva_addr(nvl_gpuvm_find_at(f.vm, 22 * PG)),
			 20 * PG);
	assert_non_null(nvl_gpuvm_find(f.vm, 30 * PG, 3 * PG));
	assert_null(nvl_gpuvm_find(f.vm, 30 * PG, 2 * PG));
	fx_fini(&f);
}

static void sparse_region_errors_follow_nouveau(void **state)
{
	struct fixture f;
	struct model m = {0};
	struct cop c[2] = {{C_RCREATE, 100, 50}};

	(void)state;
	fx_init(&f);
	map_now(&f, &m, 10, 3, 0, 0);
	c[0].a = 8;
	c[0].n = 10;
	assert_int_equal(core_call(&f, &m, c, 1), -ENOSPC);
	c[0].a = 100;
	assert_int_equal(core_call(&f, &m, c, 1), 0);
	c[0].a = 105;
	assert_int_equal(core_call(&f, &m, c, 1), -ENOSPC);
	/* straddling map */
	c[0] = (struct cop){C_MAP, 108, 4, f.bo[0], 0, 0};
	assert_int_equal(core_call(&f, &m, c, 1), -ENOSPC);
	/* inside: fine, then unmap goes back to sparse */
	c[0].a = 102;
	assert_int_equal(core_call(&f, &m, c, 1), 0);
	check_all(&f, &m);
	c[0] = (struct cop){C_UNMAP, 103, 1};
	assert_int_equal(core_call(&f, &m, c, 1), 0);
	check_all(&f, &m);
	/* destroy must match exactly */
	c[0] = (struct cop){C_RDESTROY, 100, 9};
	assert_int_equal(core_call(&f, &m, c, 1), -ENOENT);
	/* destroy then map over it in the same call: -ENOSPC, unchanged */
	c[0] = (struct cop){C_RDESTROY, 100, 10};
	c[1] = (struct cop){C_MAP, 100, 2, f.bo[1], 0, 0};
	assert_int_equal(core_call(&f, &m, c, 2), -ENOSPC);
	check_all(&f, &m);
	assert_int_equal(core_call(&f, &m, c, 1), 0);
	check_all(&f, &m);
	fx_fini(&f);
}

static void vm_bo_links_extobj_and_evict_lists(void **state)
{
	struct fixture f;
	struct model m = {0};
	struct nvl_gpuvm_bo *vm_bo;

	(void)state;
	fx_init(&f);
	map_now(&f, &m, 10, 3, 0, 0);
	map_now(&f, &m, 20, 3, 0, 0);
	map_now(&f, &m, 30, 3, 1, 0);
	/* no shared resv: every BO is external, listed once */
	assert_int_equal(nvl_gpuvm_extobj_count(f.vm), 2);
	vm_bo = nvl_gpuvm_bo_find(f.vm, f.bo[0]);
	assert_non_null(vm_bo);
	assert_int_equal(nvl_kref_read(&vm_bo->ref), 3);
	nvl_gpuvm_gem_evict(f.bo[0], true);
	nvl_gpuvm_gem_evict(f.bo[0], true);
	assert_int_equal(nvl_gpuvm_evict_count(f.vm), 1);
	assert_true(vm_bo->evicted);
	assert_int_equal(nvl_gpuvm_validate(f.vm), -EOPNOTSUPP);
	/* moved back: no longer evicted, but listed until validate has
	 * rewritten its mappings (they point where it was) */
	nvl_gpuvm_gem_evict(f.bo[0], false);
	assert_false(vm_bo->evicted);
	assert_int_equal(nvl_gpuvm_evict_count(f.vm), 1);
	nvl_gpuvm_bo_evict(vm_bo, false);
	assert_int_equal(nvl_gpuvm_evict_count(f.vm), 0);
	nvl_gpuvm_bo_put(vm_bo);
	/* unmap-all drops the vm_bo and its object reference */
	struct cop c = {C_UNMAP_ALL, 0, 0, f.bo[0]};

	assert_int_equal(core_call(&f, &m, &c, 1), 0);
	assert_null(nvl_gpuvm_bo_find(f.vm, f.bo[0]));
	assert_int_equal(nvl_gpuvm_extobj_count(f.vm), 1);
	assert_int_equal(nvl_kref_read(&f.bo[0]->ref), 1);
	check_all(&f, &m);
	fx_fini(&f);
}

/*
 * A vm_bo whose last reference goes outside a transaction (a find's) is
 * freed only by the next obtain; one found again through the VM's hint is
 * the live one (issue 19: obtain without the global lock).
 */
static void vm_bo_last_put_outside_a_transaction(void **state)
{
	struct fixture f;
	struct model m = {0};
	struct nvl_gpuvm_bo *held[3];

	(void)state;
	fx_init(&f);
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < 3; i++) {
			struct cop c = {C_UNMAP_ALL, 0, 0, f.bo[i]};

			map_now(&f, &m, 10 + 10 * i, 2, i, 0);
			/* the hint: the same vm_bo, one more reference */
			map_now(&f, &m, 13 + 10 * i, 2, i, 0);
			held[i] = nvl_gpuvm_bo_find(f.vm, f.bo[i]);
			assert_non_null(held[i]);
			assert_int_equal(nvl_kref_read(&held[i]->ref), 3);
			assert_int_equal(core_call(&f, &m, &c, 1), 0);
			assert_int_equal(nvl_kref_read(&held[i]->ref), 1);
		}
		/* spare, then graveyard: no VM lock needed for these puts */
		for (int i = 0; i < 3; i++) {
			nvl_gpuvm_bo_put(held[i]);
			assert_null(nvl_gpuvm_bo_find(f.vm, f.bo[i]));
			assert_int_equal(nvl_kref_read(&f.bo[i]->ref), 1);
		}
		assert_int_equal(nvl_gpuvm_extobj_count(f.vm), 0);
	}
	map_now(&f, &m, 50, 2, 3, 0);
	map_now(&f, &m, 60, 2, 0, 0);
	check_all(&f, &m);
	fx_fini(&f);
}

/* as mm's callback: the object moves back and the hook clears "evicted" */
static int validate_ok(struct nvl_gpuvm_bo *vm_bo, void *priv,
		       struct nvl_gpuvm_rebind **defer)
{
	assert_null(defer);
	(*(int *)priv)++;
	nvl_gpuvm_bo_evict(vm_bo, false);
	return 0;
}

struct vcb {
	struct nvl_gem_object *stays; /* its callback leaves it evicted */
	struct nvl_gem_object *fails; /* its callback fails */
	struct nvl_gem_object *order[8];
	int calls;
};

static int validate_some(struct nvl_gpuvm_bo *vm_bo, void *priv,
			 struct nvl_gpuvm_rebind **defer)
{
	struct vcb *v = priv;

	assert_null(defer);
	v->order[v->calls++] = vm_bo->obj;
	if (vm_bo->obj == v->fails)
		return -EIO;
	if (vm_bo->obj != v->stays)
		nvl_gpuvm_bo_evict(vm_bo, false);
	return 0;
}

/*
 * Issue 12: validate took every vm_bo off the evict list whatever its
 * callback did. The kernel (drm_gpuvm_validate_locked) removes one only
 * when the callback cleared "evicted"; a failing callback stops the walk
 * and the unvisited vm_bos stay listed, in order.
 */
static void validate_keeps_what_the_callback_left_evicted(void **state)
{
	struct fixture f;
	struct model m = {0};
	struct nvl_gpuvm_bo_ops bo_ops = {.validate = validate_some};
	struct vcb v = {0};
	struct nvl_gpuvm_bo *vb[3];

	(void)state;
	fx_init(&f);
	f.vm->bo_ops = &bo_ops;
	f.vm->bo_priv = &v;
	for (int i = 0; i < 3; i++) {
		map_now(&f, &m, 10 + 10 * (uint32_t)i, 3, i, 0);
		vb[i] = nvl_gpuvm_bo_find(f.vm, f.bo[i]);
		nvl_gpuvm_gem_evict(f.bo[i], true);
	}
	v.stays = f.bo[1];
	assert_int_equal(nvl_gpuvm_validate(f.vm), 0);
	assert_int_equal(v.calls, 3);
	assert_ptr_equal(v.order[1], f.bo[1]);
	/* bo 1's callback did not clear it: still evicted, still listed */
	assert_int_equal(nvl_gpuvm_evict_count(f.vm), 1);
	assert_true(vb[1]->evicted);
	assert_false(vb[0]->evicted);
	assert_false(vb[2]->evicted);
	/* the next validate visits it again, and only it */
	v.calls = 0;
	v.stays = NULL;
	assert_int_equal(nvl_gpuvm_validate(f.vm), 0);
	assert_int_equal(v.calls, 1);
	assert_ptr_equal(v.order[0], f.bo[1]);
	assert_int_equal(nvl_gpuvm_evict_count(f.vm), 0);
	/* a failing callback stops the walk; every vm_bo stays listed */
	for (int i = 0; i < 3; i++)
		nvl_gpuvm_gem_evict(f.bo[i], true);
	v.calls = 0;
	v.fails = f.bo[0];
	assert_int_equal(nvl_gpuvm_validate(f.vm), -EIO);
	assert_int_equal(v.calls, 1);
	assert_int_equal(nvl_gpuvm_evict_count(f.vm), 3);
	assert_true(vb[0]->evicted);
	/* in their order: the failed one first again */
	v.calls = 0;
	v.fails = NULL;
	assert_int_equal(nvl_gpuvm_validate(f.vm), 0);
	assert_int_equal(v.calls, 3);
	for (int i = 0; i < 3; i++) {
		assert_ptr_equal(v.order[i], f.bo[i]);
		nvl_gpuvm_bo_put(vb[i]);
	}
	assert_int_equal(nvl_gpuvm_evict_count(f.vm), 0);
	fx_fini(&f);
}

/* the addresses (pages) of @obj's mappings, in link order */
static int link_order(struct fixture *f, struct nvl_gem_object *obj,
		      uint32_t *pages, int max)
{
	struct nvl_gpuvm_bo *vm_bo = nvl_gpuvm_bo_find(f->vm, obj);
	struct nvl_gpuva *va;
	int n = 0;

	assert_non_null(vm_bo);
	nvl_list_for_each_entry (va, &vm_bo->vas, bo_link) {
		assert_true(n < max);
		pages[n++] = (uint32_t)(nvl_gpuva_addr(va) / PG);
	}
	nvl_gpuvm_bo_put(vm_bo);
	return n;
}

/*
 * Issue 12: a failed call re-linked the mappings it had removed at the tail
 * of their BO's list, so the link order (UNMAP_ALL's order) changed
 * although the call changed nothing. Abort now puts each back where it was.
 */
static void failed_call_restores_link_order(void **state)
{
	struct fixture f;
	struct model m = {0};
	uint32_t pg[8];
	/* unmap the first and a split of the third, then a bad region op */
	struct cop c[] = {
		{C_UNMAP, 10, 2},
		{C_UNMAP, 31, 1},
		{C_MAP, 50, 2, NULL, 0, 0},
		{C_RDESTROY, 100, 4},
	};
	struct nvl_gpuvm_ops ops;

	(void)state;
	fx_init(&f);
	c[2].obj = f.bo[0];
	map_now(&f, &m, 10, 2, 0, 0);
	map_now(&f, &m, 20, 2, 0, 0);
	map_now(&f, &m, 30, 3, 0, 0);
	map_now(&f, &m, 40, 2, 0, 0);
	assert_int_equal(link_order(&f, f.bo[0], pg, 8), 4);
	assert_int_equal(core_call(&f, &m, c, 4), -ENOENT);
	check_all(&f, &m);
	assert_int_equal(link_order(&f, f.bo[0], pg, 8), 4);
	assert_int_equal(pg[0], 10);
	assert_int_equal(pg[1], 20);
	assert_int_equal(pg[2], 30);
	assert_int_equal(pg[3], 40);
	/* and so UNMAP_ALL's list follows the original order */
	nvl_gpuvm_ops_init(&ops);
	assert_int_equal(nvl_gpuvm_bo_unmap_ops(f.vm, f.bo[0], &ops), 0);
	assert_int_equal(ops.n, 4);
	for (uint32_t i = 0; i < 4; i++)
		assert_int_equal(nvl_gpuva_addr(ops.v[i].va) / PG, 10 + 10 * i);
	nvl_gpuvm_ops_fini(f.vm, &ops);
	fx_fini(&f);
}

static void validate_revalidates_each_evicted_bo_once(void **state)
{
	struct fixture f;
	struct model m = {0};
	struct nvl_gpuvm_bo_ops bo_ops = {.validate = validate_ok};
	int calls = 0;

	(void)state;
	fx_init(&f);
	f.vm->bo_ops = &bo_ops;
	f.vm->bo_priv = &calls;
	map_now(&f, &m, 10, 3, 0, 0);
	map_now(&f, &m, 20, 3, 1, 0);
	map_now(&f, &m, 30, 3, 1, 0);
	nvl_gpuvm_gem_evict(f.bo[0], true);
	nvl_gpuvm_gem_evict(f.bo[1], true);
	assert_int_equal(nvl_gpuvm_validate(f.vm), 0);
	assert_int_equal(calls, 2);
	assert_int_equal(nvl_gpuvm_evict_count(f.vm), 0);
	fx_fini(&f);
}

static int random_call(struct fixture *f, struct model *m, uint64_t *rng)
{
	int ret;

	struct cop c[3];
	int n = 1 + (int)(t_rand(rng) % 3);

	for (int i = 0; i < n; i++) {
		uint64_t r = t_rand(rng) % 100;
		struct cop *x = &c[i];

		memset(x, 0, sizeof(*x));
		x->a = (uint32_t)(t_rand(rng) % (MP + 8));
		x->n = (uint32_t)(t_rand(rng) % 24);
		if (t_rand(rng) % 8 == 0)
			x->n = (uint32_t)(t_rand(rng) % 128);
		if (r < 45) {
			x->kind = C_MAP;
			if (t_rand(rng) % 6 == 0) {
				x->flags = NVL_GPUVA_NULL;
			} else {
				x->obj = f->bo[t_rand(rng) % 4];
				x->off = (t_rand(rng) % 64) * PG;
				if (t_rand(rng) % 5 == 0)
					x->flags = NVL_GPUVA_READONLY;
			}
		} else if (r < 80) {
			x->kind = C_UNMAP;
		} else if (r < 88) {
			x->kind = C_RCREATE;
		} else if (r < 97) {
			x->kind = C_RDESTROY;
			/* aim at an existing region sometimes */
			if (x->a < MP && m->p[x->a].region) {
				uint32_t id = m->p[x->a].region, s = x->a,
					 e = x->a;

				while (s > 0 && m->p[s - 1].region == id)
					s--;
				while (e < MP && m->p[e].region == id)
					e++;
				x->a = s;
				x->n = e - s;
			}
		} else {
			x->kind = C_UNMAP_ALL;
			x->obj = f->bo[t_rand(rng) % 4];
		}
	}
	ret = core_call(f, m, c, n);
	check_all(f, m);
	return ret;
}

static void random_sequences_match_reference_model(void **state)
{
	uint64_t seed0 = t_seed(0x5eed);
	int seeds = (int)(16 * t_scale()), calls = 2500;

	(void)state;
	for (int s = 0; s < seeds; s++) {
		struct fixture f;
		struct model *m = calloc(1, sizeof(*m));
		uint64_t rng = seed0 + (uint64_t)s * 0x9e3779b97f4a7c15ull;

		assert_non_null(m);
		fx_init(&f);
		int ok = 0, mapped = 0;

		for (int i = 0; i < calls; i++) {
			ok += random_call(&f, m, &rng) == 0;
			mapped += nvl_ibtree_count(&f.vm->vas) > 8;
		}
		/* the stream must exercise real work, not only errors */
		assert_true(ok > calls / 3);
		assert_true(mapped > calls / 2);
		fx_fini(&f);
		free(m);
	}
}

/*
 * A transaction of many op lists preloads the mapping tree for several of
 * them at a time (txn.c, reserve_tree()). A call of 480 maps (the tree
 * outgrows its node pool's first chunk), then one of their 480 unmaps,
 * each on a fresh VM failing at its k-th allocation for every k, either
 * leave the VM as it was or (a preload for more, retried for less) do
 * all of it; a call that fails at its last op after 480 removals
 * (abort re-inserts every one) too.
 */
static void long_transactions_fail_cleanly_at_every_allocation(void **state)
{
	enum { N = MRES_START };
	struct model *m = calloc(1, sizeof(*m));
	struct cop *maps = calloc(N, sizeof(*maps));
	struct cop *unmaps = calloc(N + 1, sizeof(*unmaps));
	struct fixture f;

	(void)state;
	assert_non_null(m);
	assert_non_null(maps);
	assert_non_null(unmaps);
	for (int pass = 0; pass < 2; pass++) {
		unsigned long k;

		for (k = 1;; k++) {
			unsigned long hits;
			int ret;

			memset(m, 0, sizeof(*m));
			fx_init(&f);
			for (uint32_t i = 0; i < N; i++) {
				/* every page below the reserved range, shuffled */
				uint32_t a = (i * 97u) % N;

				maps[i] = (struct cop){C_MAP,	    a,	    1,
						       f.bo[i % 4], a * PG, 0};
				unmaps[i] = (struct cop){C_UNMAP, a, 1};
			}
			/* fails after all the others: no region there */
			unmaps[N] = (struct cop){C_RDESTROY, 0, 2};
			if (pass) {
				assert_int_equal(core_call(&f, m, maps, N), 0);
				/* every mapping removed, then -ENOENT */
				assert_int_equal(
					core_call(&f, m, unmaps, N + 1),
					-ENOENT);
				check_all(&f, m);
				assert_int_equal(nvl_ibtree_count(&f.vm->vas),
						 N);
			}
			nvl_fault_fail_nth(k, NVL_FAULT_THIS_THREAD);
			ret = core_call(&f, m, pass ? unmaps : maps, N);
			hits = nvl_fault_hits();
			nvl_fault_off();
			check_all(&f, m);
			assert_int_equal(nvl_ibtree_count(&f.vm->vas),
					 (pass ? 0 : N) * !ret +
						 (pass ? N : 0) * !!ret);
			fx_fini(&f);
			/* done when the k-th allocation was never made */
			if (!ret && !hits)
				break;
			/* a failed preload for more is retried for less */
			assert_true(ret == -ENOMEM || !ret);
			assert_true(k < 10 * N);
		}
		/* the maps allocate (nodes, tree, logs); so may the unmaps */
		assert_true(pass || k > 4);
	}
	free(unmaps);
	free(maps);
	free(m);
}

/* one transaction of @n one-page maps (or unmaps) at shuffled pages */
static int big_call(struct nvl_gpuvm *vm, struct nvl_gem_object *obj,
		    uint32_t n, bool map)
{
	struct nvl_gpuvm_txn txn;
	int ret = 0;

	nvl_gpuvm_txn_begin(vm, &txn);
	for (uint32_t i = 0; i < n && !ret; i++) {
		uint64_t a = (uint64_t)((i * 7919u) % n) * PG;
		struct nvl_gpuvm_map_req req = {a, PG, obj, 0, 0};
		struct nvl_gpuvm_ops ops;

		nvl_gpuvm_ops_init(&ops);
		ret = map ? nvl_gpuvm_sm_map_ops(vm, &req, &ops)
			  : nvl_gpuvm_sm_unmap_ops(vm, a, PG, &ops);
		if (!ret)
			ret = nvl_gpuvm_txn_prepare(&txn, &ops);
		if (!ret)
			nvl_gpuvm_txn_apply(&txn, &ops);
		nvl_gpuvm_ops_fini(vm, &ops);
	}
	vm->cur_seq = 0;
	if (ret) {
		nvl_gpuvm_txn_abort(&txn);
		return ret;
	}
	nvl_gpuvm_txn_commit(&txn);
	nvl_gpuvm_txn_finish(&txn);
	return 0;
}

/*
 * The same at a size where the tree's node pool grows chunk by chunk
 * (10,000 mappings, some 400 leaves) on a VM without a model: a call
 * failing at its k-th allocation, for every k, aborts to the tree it
 * started from (checked), and then the whole call succeeds.
 */
static void big_transactions_fail_cleanly_at_every_allocation(void **state)
{
	enum { N = 10000 };
	struct nvl_gpuvm_args args = {
		.name = "big",
		.start = 0,
		.end = 2ull * N * PG,
		.page_shift = 12,
		.pt_ops = &nvl_vm_pt_record_ops,
	};

	(void)state;
	for (int pass = 0; pass < 2; pass++) {
		unsigned long k;

		for (k = 1;; k++) {
			struct nvl_gem_object *obj = tobj_new(PG, NULL);
			struct nvl_vm_pt_record *rec;
			struct nvl_gpuvm *vm;
			unsigned long hits;
			int ret;

			assert_int_equal(nvl_vm_pt_record_create(&rec), 0);
			args.pt_priv = rec;
			assert_int_equal(nvl_gpuvm_create(&args, &vm), 0);
			if (pass)
				assert_int_equal(big_call(vm, obj, N, true), 0);
			nvl_fault_fail_nth(k, NVL_FAULT_THIS_THREAD);
			ret = big_call(vm, obj, N, !pass);
			hits = nvl_fault_hits();
			nvl_fault_off();
			assert_int_equal(nvl_ibtree_check(&vm->vas), 0);
			assert_true(ret == -ENOMEM || !ret);
			assert_int_equal(nvl_ibtree_count(&vm->vas),
					 !ret == !pass ? N : 0);
			nvl_gpuvm_destroy(vm);
			nvl_vm_pt_record_destroy(rec);
			nvl_gem_put(obj);
			if (!ret && !hits)
				break;
			assert_true(k < 1000);
		}
		assert_true(pass || k > 4);
	}
}

/*
 * nvl_gpuvm_exec_lock() failing at its k-th allocation, for every k until
 * it succeeds (fewer than @max_k): -ENOMEM, and none of the @n resvs in
 * @rs left locked.
 */
static void exec_lock_fails_cleanly(struct nvl_gpuvm *vm,
				    struct nvl_resv *const *rs, int n,
				    unsigned long max_k)
{
	struct nvl_exec exec;

	for (unsigned long k = 1;; k++) {
		nvl_fault_fail_nth(k, NVL_FAULT_THIS_THREAD);
		int ret = nvl_gpuvm_exec_lock(vm, &exec, 1);

		nvl_fault_off();
		if (!ret) {
			nvl_exec_fini(&exec);
			break;
		}
		assert_int_equal(ret, -ENOMEM);
		for (int i = 0; i < n; i++)
			assert_false(nvl_ww_mutex_is_locked(&rs[i]->lock));
		assert_true(k < max_k);
	}
}

static void exec_lock_takes_vm_resv_and_each_extobj_once(void **state)
{
	struct fixture f;
	struct model m = {0};
	struct nvl_resv vm_resv, r1, r2;
	struct nvl_gem_object *priv, *e1, *e2;
	struct nvl_exec exec;

	(void)state;
	fx_init(&f);
	nvl_resv_init(&vm_resv);
	nvl_resv_init(&r1);
	nvl_resv_init(&r2);
	f.vm->resv = &vm_resv;
	priv = tobj_new(64 * PG, &vm_resv);
	e1 = tobj_new(64 * PG, &r1);
	e2 = tobj_new(64 * PG, &r2);
	struct cop c[4] = {
		{C_MAP, 10, 2, priv, 0, 0},
		{C_MAP, 20, 2, e1, 0, 0},
		{C_MAP, 30, 2, e1, 4 * PG, 0},
		{C_MAP, 40, 2, e2, 0, 0},
	};
	assert_int_equal(core_call(&f, &m, c, 3), 0);
	assert_int_equal(core_call(&f, &m, &c[3], 1), 0);
	/* private BOs share the VM resv and are not extobjs */
	assert_int_equal(nvl_gpuvm_extobj_count(f.vm), 2);
	assert_int_equal(nvl_gpuvm_exec_lock(f.vm, &exec, 1), 0);
	assert_int_equal(exec.num_objects, 3);
	nvl_exec_fini(&exec);
	/* failure injection: every allocation of the lock path */
	exec_lock_fails_cleanly(f.vm, (struct nvl_resv *[]){&vm_resv, &r1, &r2},
				3, 50);
	struct cop u = {C_UNMAP, 0, MRES_START};

	assert_int_equal(core_call(&f, &m, &u, 1), 0);
	nvl_gem_put(priv);
	nvl_gem_put(e1);
	nvl_gem_put(e2);
	nvl_resv_fini(&vm_resv);
	nvl_resv_fini(&r1);
	nvl_resv_fini(&r2);
	fx_fini(&f);
}

/*
 * More external objects than the snapshot's stack room (8, vm_exec.c): the
 * allocated path locks each once too, and fails cleanly at every
 * allocation.
 */
static void exec_lock_beyond_the_inline_snapshot(void **state)
{
	enum { N = 11 };
	struct fixture f;
	struct model m = {0};
	struct nvl_resv vm_resv, r[N], *rs[N + 1];
	struct nvl_gem_object *e[N];
	struct nvl_exec exec;

	(void)state;
	fx_init(&f);
	nvl_resv_init(&vm_resv);
	f.vm->resv = &vm_resv;
	for (int i = 0; i < N; i++) {
		struct cop c = {C_MAP, 10 + 4 * i, 2, NULL, 0, 0};

		nvl_resv_init(&r[i]);
		e[i] = tobj_new(64 * PG, &r[i]);
		c.obj = e[i];
		assert_int_equal(core_call(&f, &m, &c, 1), 0);
	}
	assert_int_equal(nvl_gpuvm_extobj_count(f.vm), N);
	assert_int_equal(nvl_gpuvm_exec_lock(f.vm, &exec, 1), 0);
	assert_int_equal(exec.num_objects, N + 1);
	for (int i = 0; i < N; i++)
		assert_true(nvl_ww_mutex_held_by_me(&r[i].lock));
	nvl_exec_fini(&exec);
	for (int i = 0; i < N; i++)
		assert_false(nvl_ww_mutex_is_locked(&r[i].lock));
	for (int i = 0; i < N; i++)
		rs[i] = &r[i];
	rs[N] = &vm_resv;
	exec_lock_fails_cleanly(f.vm, rs, N + 1, 80);
	struct cop u = {C_UNMAP, 0, MRES_START};

	assert_int_equal(core_call(&f, &m, &u, 1), 0);
	for (int i = 0; i < N; i++) {
		nvl_gem_put(e[i]);
		nvl_resv_fini(&r[i]);
	}
	nvl_resv_fini(&vm_resv);
	fx_fini(&f);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(exec_lock_takes_vm_resv_and_each_extobj_once),
	cmocka_unit_test(exec_lock_beyond_the_inline_snapshot),
	cmocka_unit_test(exact_overlap_same_bo_gives_unmap_keep_then_map),
	cmocka_unit_test(front_cut_keeps_next_with_offset_advanced),
	cmocka_unit_test(back_cut_keeps_prev_and_keep_hint_follows_offsets),
	cmocka_unit_test(hole_punch_gives_prev_and_next_with_tail_offset),
	cmocka_unit_test(request_spanning_mappings_and_gaps_orders_ops),
	cmocka_unit_test(unmap_of_empty_range_gives_zero_ops),
	cmocka_unit_test(lookups_find_first_next_and_at),
	cmocka_unit_test(sparse_region_errors_follow_nouveau),
	cmocka_unit_test(vm_bo_links_extobj_and_evict_lists),
	cmocka_unit_test(validate_revalidates_each_evicted_bo_once),
	cmocka_unit_test(validate_keeps_what_the_callback_left_evicted),
	cmocka_unit_test(failed_call_restores_link_order),
	cmocka_unit_test(vm_bo_last_put_outside_a_transaction),
	cmocka_unit_test(random_sequences_match_reference_model),
	cmocka_unit_test(long_transactions_fail_cleanly_at_every_allocation),
	cmocka_unit_test(big_transactions_fail_cleanly_at_every_allocation),
};

T_MAIN(tests)

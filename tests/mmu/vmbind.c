// SPDX-License-Identifier: MIT
/*
 * The whole VM_BIND path on the NVIDIA page tables: a VM created on the
 * GMMU backend, synchronous and asynchronous binds (the async ones run as
 * scheduler jobs, their commit inside a fence-signalling section checked
 * by the signalling checker), and the model's walker agreeing with GPUVM
 * after every call.
 */
#include "drv.h"
#include "sync/fence.h"
#include "model/model_regs.h"
#include "vm/vm.h"

#define VSTART (1ull << 32)
#define VEND (VSTART + (1ull << 30))

static int bind(struct nvl_vm *vm, struct nvl_vm_queue *q,
		const struct nvl_vm_kop *ops, uint32_t n, bool async)
{
	struct nvl_fence *done = NULL;
	int ret;

	for (uint32_t i = 0; i < n; i++) {
		ret = nvl_vm_validate_kop(vm, i, &ops[i]);
		if (ret)
			return ret;
	}
	ret = nvl_vm_bind_kops(vm, q, ops, n, NULL, 0,
			       async ? NVL_VM_BIND_ASYNC : 0, &done);
	if (ret)
		return ret;
	if (done) {
		assert_int_equal(nvl_fence_wait(done, 5000000000ll), 0);
		assert_int_equal(nvl_fence_get_status(done), 1);
		nvl_fence_put(done);
	}
	return 0;
}

/* GPUVM's tree is read under its lock: bind jobs finish on other threads */
static int check_all(struct drv *v, uint64_t lo, uint64_t hi)
{
	int bad = 0;

	nvl_flock_lock(&v->vm->lock);
	for (uint64_t va = lo; va < hi && bad < 4; va += 4096)
		bad += drv_check_page(v, va) != 0;
	nvl_flock_unlock(&v->vm->lock);
	return bad;
}

static void vm_bind_jobs_write_tables_the_model_walks(void **state)
{
	struct drv *v = drv_up("tiny", 0, 1ull << 40); /* model + tables */
	struct nvl_vm_create_args args = {.start = VSTART, .end = VEND};
	struct nvl_vm_backend be = {.ops = &nvl_pt_ops, .priv = v->pt};
	struct tbo *bo = tbo_new(v->d->hw, TBO_CONTIG, 8 * MIB, 32 * MIB, 0);
	struct nvl_vm_queue *q;
	struct nvl_vm *vm;
	uint64_t val = 0x1234, got = 0;

	(void)state;
	be.big_page_shifts = nvl_nv_gmmu_big_page_shifts(v->g);
	nvl_gpuvm_destroy(v->vm); /* drv's own GPUVM is not used here */
	assert_int_equal(nvl_vm_create_internal(&args, &be, 1, &vm), 0);
	v->vm = vm->gpuvm; /* drv_check_page reads GPUVM's view */
	assert_int_equal(nvl_vm_queue_create(vm, &q), 0);
	{
		struct nvl_vm_kop ops[] = {
			{.op = NVL_VM_BIND_OP_MAP,
			 .addr = VSTART,
			 .range = 4 * MIB,
			 .obj = &bo->base},
			{.op = NVL_VM_BIND_OP_MAP,
			 .addr = VSTART + 6 * MIB,
			 .range = 4 * MIB,
			 .flags = NVL_VM_BIND_SPARSE},
			{.op = NVL_VM_BIND_OP_MAP,
			 .addr = VSTART + 7 * MIB,
			 .range = 64 << 10,
			 .bo_offset = 4 * MIB + (64 << 10),
			 .obj = &bo->base,
			 .flags = NVL_VM_BIND_READONLY},
			{.op = NVL_VM_BIND_OP_MAP,
			 .addr = VSTART + 12 * MIB,
			 .range = 12 << 10,
			 .flags = NVL_VM_BIND_NULL},
		};

		assert_int_equal(bind(vm, q, ops, 4, true), 0);
	}
	assert_int_equal(check_all(v, VSTART, VSTART + 16 * MIB), 0);
	assert_int_equal(nvl_model_vm_access(v->d->m, &v->ctx, VSTART + 8, &val,
					     8, true, NVL_HW_MMU_ENGINE_CE(0),
					     0),
			 0);
	assert_int_equal(r64(v->d, 32 * MIB + 8), 0x1234);
	{
		/* a hole punched synchronously, then the rest asynchronously */
		struct nvl_vm_kop hole = {.op = NVL_VM_BIND_OP_UNMAP,
					  .addr = VSTART + MIB,
					  .range = 4096};
		struct nvl_vm_kop rest[] = {
			{.op = NVL_VM_BIND_OP_UNMAP,
			 .addr = VSTART,
			 .range = 4 * MIB},
			{.op = NVL_VM_BIND_OP_UNMAP,
			 .addr = VSTART + 7 * MIB,
			 .range = 64 << 10},
		};

		assert_int_equal(bind(vm, NULL, &hole, 1, false), 0);
		assert_int_equal(check_all(v, VSTART, VSTART + 4 * MIB), 0);
		assert_int_equal(nvl_model_vm_access(
					 v->d->m, &v->ctx, VSTART + MIB, &got,
					 8, false, NVL_HW_MMU_ENGINE_CE(0), 0),
				 -EFAULT);
		assert_int_equal(bind(vm, q, rest, 2, true), 0);
	}
	assert_int_equal(check_all(v, VSTART, VSTART + 16 * MIB), 0);
	nvl_vm_queue_put(q);
	nvl_vm_put(vm);
	v->vm = NULL;
	nvl_gem_put(&bo->base);
	while (dev_next_fault(v->d, &(struct fault_ent){0}))
		;
	drv_down(v);
}

/*
 * A TLB invalidate that never completes (the model's MMU_INVALIDATE_HANG,
 * model/model_regs.h; on hardware NV_VIRTUAL_FUNCTION_PRIV_MMU_INVALIDATE
 * TRIGGER staying set) during an unmap: the bind fails with the
 * invalidate's -ETIMEDOUT, the VM is dead (-ENOENT after), and the tables
 * the unmap released are not freed or reused while the page-table
 * manager lives (the GPU may still walk them): quarantined, freed only
 * when the manager is destroyed.
 */
static void
a_failed_tlb_invalidate_kills_the_vm_and_keeps_its_tables(void **state)
{
	struct drv *v = drv_up("tiny", 0, 1ull << 40);
	struct nvl_vm_create_args args = {.start = VSTART, .end = VEND};
	struct nvl_vm_backend be = {.ops = &nvl_pt_ops, .priv = v->pt};
	struct tbo *bo = tbo_new(v->d->hw, TBO_CONTIG, 8 * MIB, 32 * MIB, 0);
	struct nvl_vm_kop map = {.op = NVL_VM_BIND_OP_MAP,
				 .addr = VSTART + 2 * MIB,
				 .range = 64 << 10,
				 .obj = &bo->base};
	struct nvl_vm_kop unmap = {.op = NVL_VM_BIND_OP_UNMAP,
				   .addr = VSTART + 2 * MIB,
				   .range = 64 << 10};
	struct nvl_pt_stats s0, s1;
	struct nvl_vm *vm;

	(void)state;
	be.big_page_shifts = nvl_nv_gmmu_big_page_shifts(v->g);
	nvl_gpuvm_destroy(v->vm);
	v->vm = NULL;
	assert_int_equal(nvl_vm_create_internal(&args, &be, 1, &vm), 0);
	assert_int_equal(bind(vm, NULL, &map, 1, false), 0);
	nvl_pt_get_stats(v->pt, &s0);
	assert_int_equal(s0.failed_invalidates, 0);
	nvl_hw_wr32(v->d->hw, NVL_MODEL_REG_MMU_INVALIDATE_HANG, 1);
	assert_int_equal(bind(vm, NULL, &unmap, 1, false), -ETIMEDOUT);
	nvl_pt_get_stats(v->pt, &s1);
	assert_true(s1.failed_invalidates >= 1);
	assert_true(s1.quarantined >= 1);
	/* unlinked, but none went back to the cache for reuse */
	assert_true(s1.tables < s0.tables);
	assert_int_equal(s1.cached, s0.cached);
	/* the VM is dead */
	assert_int_equal(bind(vm, NULL, &map, 1, false), -ENOENT);
	nvl_hw_wr32(v->d->hw, NVL_MODEL_REG_MMU_INVALIDATE_HANG, 0);
	nvl_vm_put(vm);
	nvl_gem_put(&bo->base);
	/* the quarantined tables outlive the VM until the manager goes (and
	 * then their table memory is given back) */
	nvl_pt_get_stats(v->pt, &s1);
	assert_int_equal(s1.cached, s0.cached);
	assert_true(s1.quarantined >= 1);
	nvl_nv_gmmu_destroy(v->g);
	assert_int_equal(nvl_nv_ptmem_used(v->pm), 0);
	nvl_nv_ptmem_destroy(v->pm);
	dev_down(v->d);
	free(v);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(vm_bind_jobs_write_tables_the_model_walks),
	cmocka_unit_test(
		a_failed_tlb_invalidate_kills_the_vm_and_keeps_its_tables),
};

T_MAIN(tests)

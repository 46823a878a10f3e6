// SPDX-License-Identifier: MIT
/*
 * TEST: fuzz_check
 * Description: the VM fuzz targets' consistency check (fuzz/vm/fuzz_vm.h)
 * catches a planted bug of its class: a page-table backend whose unmap
 * leaves the pages mapped. The tree is then right and the page tables are
 * not; only the check's second direction (every page no mapping covers is
 * INVALID, or SPARSE inside a live region) can see it (issue 12, item 19).
 */
#include <nouvelle/bo.h>

#include "t.h"
#include "fuzz/vm/fuzz_vm.h"
#include "mm/gem.h"
#include "sync/checker.h"

/* the planted bug: unmaps of this backend are dropped */
static struct nvl_vm_pt_ops leaky;

static void leaky_unmap(void *priv, uint64_t va, uint64_t range,
			unsigned int page_shift, bool sparse)
{
	(void)priv, (void)va, (void)range, (void)page_shift, (void)sparse;
}

static int bind1(struct nvl_client *c, uint32_t vm, uint32_t op, uint32_t flags,
		 uint32_t bo, uint64_t page, uint64_t n)
{
	struct nvl_vm_bind_op o = {
		.op = op,
		.flags = flags,
		.handle = bo,
		.addr = page * FUZZ_PAGE,
		.range = n * FUZZ_PAGE,
	};

	return nvl_vm_bind(c, vm, 0, &o, 1, NULL, 0, NULL, 0, 0);
}

/* the check as it was: mappings -> page tables only */
static bool one_way_ok(struct nvl_vm *v)
{
	struct nvl_gpuva *va;

	for (va = nvl_gpuvm_first_va(v->gpuvm); va; va = nvl_gpuvm_next_va(va))
		for (uint64_t a = nvl_gpuva_addr(va); a < nvl_gpuva_end(va);
		     a += FUZZ_PAGE) {
			struct nvl_vm_pt_page p;

			nvl_vm_pt_record_query(v->rec, a, &p);
			if (p.state != NVL_VM_PT_MAPPED)
				return false;
		}
	return true;
}

static void check_catches_an_unmap_that_leaves_pages_mapped(void **state)
{
	struct nvl_vm_create_args a = fuzz_vm_args();
	const struct nvl_vm_pt_ops *real;
	struct nvl_client *c;
	struct nvl_vm *v;
	uint32_t vm, bo;

	(void)state;
	assert_int_equal(nvl_client_create(&c), 0);
	assert_int_equal(nvl_vm_create(c, &a, &vm), 0);
	assert_int_equal(nvl_bo_create(c, 64 * FUZZ_PAGE, NVL_BO_DOMAIN_SYSTEM,
				       0, 0, &bo),
			 0);
	v = nvl_vm_lookup(c, vm);
	assert_non_null(v);
	/* a correct VM passes, through maps, unmaps and a sparse region */
	assert_int_equal(bind1(c, vm, NVL_VM_BIND_OP_MAP, 0, bo, 10, 8), 0);
	assert_int_equal(bind1(c, vm, NVL_VM_BIND_OP_MAP, NVL_VM_BIND_SPARSE, 0,
			       100, 32),
			 0);
	assert_int_equal(bind1(c, vm, NVL_VM_BIND_OP_MAP, 0, bo, 104, 4), 0);
	assert_int_equal(bind1(c, vm, NVL_VM_BIND_OP_UNMAP, 0, 0, 12, 2), 0);
	assert_int_equal(bind1(c, vm, NVL_VM_BIND_OP_UNMAP, 0, 0, 105, 1), 0);
	nvl_flock_lock(&v->gpuvm->lock);
	assert_int_equal(fuzz_vm_mismatch(v), 0);
	nvl_flock_unlock(&v->gpuvm->lock);

	/* plant the bug: unmaps reach the tree but not the page tables */
	real = v->gpuvm->pt;
	leaky = *real;
	leaky.unmap = leaky_unmap;
	v->gpuvm->pt = &leaky;
	assert_int_equal(bind1(c, vm, NVL_VM_BIND_OP_UNMAP, 0, 0, 10, 2), 0);
	nvl_flock_lock(&v->gpuvm->lock);
	/* the old one-way check sees nothing wrong ... */
	assert_true(one_way_ok(v));
	/* ... the two-way one names the first page left mapped */
	assert_int_equal(fuzz_vm_mismatch(v), 1 + 10);
	nvl_flock_unlock(&v->gpuvm->lock);
	/* the same inside a sparse region: the page must go back to sparse */
	real->unmap(v->backend.priv, 10 * FUZZ_PAGE, 2 * FUZZ_PAGE, 12, false);
	assert_int_equal(bind1(c, vm, NVL_VM_BIND_OP_UNMAP, 0, 0, 104, 1), 0);
	nvl_flock_lock(&v->gpuvm->lock);
	assert_true(one_way_ok(v));
	assert_int_equal(fuzz_vm_mismatch(v), 1 + 104);
	nvl_flock_unlock(&v->gpuvm->lock);
	real->unmap(v->backend.priv, 104 * FUZZ_PAGE, FUZZ_PAGE, 12, true);
	v->gpuvm->pt = real;
	nvl_flock_lock(&v->gpuvm->lock);
	assert_int_equal(fuzz_vm_mismatch(v), 0);
	nvl_flock_unlock(&v->gpuvm->lock);

	nvl_vm_put(v);
	nvl_client_destroy(c);
	assert_int_equal(nvl_checker_violations(), 0);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(check_catches_an_unmap_that_leaves_pages_mapped),
};

T_MAIN(tests)

// SPDX-License-Identifier: MIT
/*
 * TEST: bind_edges
 * Description: the VM_BIND edges of issue 12 item 17 and the paths of item
 * 18: handles on SPARSE ops, the error precedence within one call (every
 * op's arguments before any handle, every map against the regions as they
 * were before the call), the message after an -ENOMEM, the debugging dump
 * of a VM, nvl_vm_destroy, and VM creation's unwind under allocation
 * failure at every allocation.
 */
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nouvelle/bo.h>
#include <nouvelle/sync.h>
#include <nouvelle/vm.h>

#include "t.h"
#include "base/alloc.h"
#include "base/client.h"
#include "base/log.h"
#include "mm/gem.h"
#include "sync/checker.h"
#include "vm/pt_record.h"
#include "vm/vm.h"

#define GiB (1ull << 30)
#define MiB (1ull << 20)

struct env {
	struct nvl_client *c;
	uint32_t vm, bo;
	struct nvl_vm *v;
	struct nvl_gem_object *obj;
};

static const struct nvl_vm_create_args vm_args = {
	.start = 0,
	.end = 16 * GiB,
	.kernel_start = 15 * GiB,
	.kernel_range = GiB,
};

static void env_init(struct env *e)
{
	assert_int_equal(nvl_client_create(&e->c), 0);
	assert_int_equal(nvl_vm_create(e->c, &vm_args, &e->vm), 0);
	assert_int_equal(nvl_bo_create(e->c, 4 * MiB, NVL_BO_DOMAIN_SYSTEM, 0,
				       0, &e->bo),
			 0);
	e->v = nvl_vm_lookup(e->c, e->vm);
	assert_non_null(e->v);
	e->obj = nvl_gem_lookup(e->c, e->bo);
	assert_non_null(e->obj);
}

static void env_fini(struct env *e)
{
	nvl_gem_put(e->obj);
	nvl_vm_put(e->v);
	nvl_client_destroy(e->c);
	assert_int_equal(nvl_checker_violations(), 0);
}

static struct nvl_vm_bind_op op_of(uint32_t op, uint32_t flags, uint32_t handle,
				   uint64_t addr, uint64_t range)
{
	return (struct nvl_vm_bind_op){
		.op = op,
		.flags = flags,
		.handle = handle,
		.addr = addr,
		.range = range,
	};
}

static int bind(struct env *e, const struct nvl_vm_bind_op *ops, uint32_t n)
{
	return nvl_vm_bind(e->c, e->vm, 0, ops, n, NULL, 0, NULL, 0, 0);
}

/* The VM as text (nvl_vm_dump()), malloc'ed. */
static char *dump(struct nvl_vm *v)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(nvl_vm_dump(v, f), 0);
	fclose(f);
	return buf;
}

static void has(const char *text, const char *line)
{
	if (!strstr(text, line))
		fail_msg("no \"%s\" in:\n%s", line, text);
}

/*
 * vm.h: @handle is a BO handle for MAP and UNMAP_ALL, else 0. A MAP|SPARSE
 * or UNMAP|SPARSE used to ignore it, even one naming no BO.
 */
static void sparse_ops_take_no_handle(void **state)
{
	struct env e;
	struct nvl_vm_bind_op op;
	char *before, *after;

	(void)state;
	env_init(&e);
	before = dump(e.v);
	op = op_of(NVL_VM_BIND_OP_MAP, NVL_VM_BIND_SPARSE, 999, 8 * GiB,
		   64 * MiB);
	assert_int_equal(bind(&e, &op, 1), -EINVAL);
	has(nvl_last_error(), "op 0");
	op.handle = e.bo;
	assert_int_equal(bind(&e, &op, 1), -EINVAL);
	after = dump(e.v);
	assert_string_equal(before, after);
	free(after);
	/* without a handle it works; its destroy with one is refused too */
	op.handle = 0;
	assert_int_equal(bind(&e, &op, 1), 0);
	op = op_of(NVL_VM_BIND_OP_UNMAP, NVL_VM_BIND_SPARSE, 999, 8 * GiB,
		   64 * MiB);
	assert_int_equal(bind(&e, &op, 1), -EINVAL);
	op.handle = e.bo;
	assert_int_equal(bind(&e, &op, 1), -EINVAL);
	after = dump(e.v);
	has(after, "region [0x200000000, 0x204000000) 64M live");
	free(after);
	op.handle = 0;
	assert_int_equal(bind(&e, &op, 1), 0);
	after = dump(e.v);
	assert_string_equal(before, after);
	free(after);
	free(before);
	env_fini(&e);
}

/*
 * Xe's order: every op's arguments (-EINVAL) before any BO or syncobj
 * handle is looked up (-ENOENT); then, under the VM lock, every map against
 * the regions as they were before the call (Nouveau's pre-check: -ENOSPC)
 * before any op is built (an earlier op's -ENOENT or -ENOMEM).
 */
static void errors_follow_argument_handle_region_order(void **state)
{
	struct env e;
	struct nvl_vm_bind_op ops[2];
	struct nvl_vm_sync w = {.handle = 4242};
	char *before, *after;

	(void)state;
	env_init(&e);
	ops[0] = op_of(NVL_VM_BIND_OP_MAP, NVL_VM_BIND_SPARSE, 0, 8 * GiB,
		       64 * MiB);
	assert_int_equal(bind(&e, ops, 1), 0);
	before = dump(e.v);
	/* op 0 names no BO that exists, op 1 is unaligned: -EINVAL first */
	ops[0] = op_of(NVL_VM_BIND_OP_MAP, 0, 999, GiB, MiB);
	ops[1] = op_of(NVL_VM_BIND_OP_MAP, 0, e.bo, GiB + 100, MiB);
	assert_int_equal(bind(&e, ops, 2), -EINVAL);
	has(nvl_last_error(), "op 1");
	/* ... and before an unknown wait syncobj */
	ops[0] = op_of(NVL_VM_BIND_OP_MAP, 0, e.bo, GiB, MiB);
	assert_int_equal(nvl_vm_bind(e.c, e.vm, 0, ops, 2, &w, 1, NULL, 0, 0),
			 -EINVAL);
	/* aligned: now the handle is what is wrong */
	ops[0] = op_of(NVL_VM_BIND_OP_MAP, 0, 999, GiB, MiB);
	ops[1].addr = GiB;
	assert_int_equal(bind(&e, ops, 2), -ENOENT);
	/*
	 * op 0 destroys a region that does not exist (-ENOENT when built),
	 * op 1 maps across the live region's start: the pre-check's -ENOSPC
	 */
	ops[0] = op_of(NVL_VM_BIND_OP_UNMAP, NVL_VM_BIND_SPARSE, 0, 4 * GiB,
		       64 * MiB);
	ops[1] = op_of(NVL_VM_BIND_OP_MAP, 0, e.bo, 8 * GiB - MiB, 2 * MiB);
	assert_int_equal(bind(&e, ops, 2), -ENOSPC);
	has(nvl_last_error(), "op 1");
	/* a sparse region over the live one, after a map that would work */
	ops[0] = op_of(NVL_VM_BIND_OP_MAP, 0, e.bo, GiB, MiB);
	ops[1] = op_of(NVL_VM_BIND_OP_MAP, NVL_VM_BIND_SPARSE, 0,
		       8 * GiB + 32 * MiB, 64 * MiB);
	nvl_fault_fail_nth(1, NVL_FAULT_THIS_THREAD);
	assert_int_equal(bind(&e, ops, 2), -ENOSPC);
	nvl_fault_off();
	after = dump(e.v);
	assert_string_equal(before, after);
	free(after);
	/* maps checked in sequence still see the call's own regions */
	ops[0] = op_of(NVL_VM_BIND_OP_MAP, NVL_VM_BIND_SPARSE, 0, 4 * GiB,
		       64 * MiB);
	ops[1] = op_of(NVL_VM_BIND_OP_MAP, 0, e.bo, 4 * GiB - MiB, 2 * MiB);
	assert_int_equal(bind(&e, ops, 2), -ENOSPC);
	ops[1].addr = 4 * GiB;
	assert_int_equal(bind(&e, ops, 2), 0);
	free(before);
	env_fini(&e);
}

/* nvl_last_error() after an -ENOMEM tells of it, not of the call before */
static void enomem_replaces_the_previous_message(void **state)
{
	struct env e;
	struct nvl_vm_bind_op op;
	uint32_t vm2;
	int ret;

	(void)state;
	env_init(&e);
	op = op_of(NVL_VM_BIND_OP_MAP, 0, e.bo, GiB + 1, MiB);
	assert_int_equal(bind(&e, &op, 1), -EINVAL);
	has(nvl_last_error(), "not aligned");
	op.addr = GiB;
	for (unsigned long nth = 1;; nth++) {
		nvl_fault_fail_nth(nth, NVL_FAULT_THIS_THREAD);
		ret = bind(&e, &op, 1);
		nvl_fault_off();
		if (!ret)
			break;
		assert_int_equal(ret, -ENOMEM);
		has(nvl_last_error(), "out of memory");
		/* put the old message back for the next round */
		assert_int_equal(nvl_vm_bind(e.c, e.vm, 0, &op, 1, NULL, 0,
					     NULL, 0, 1u << 7),
				 -EINVAL);
		has(nvl_last_error(), "unknown flags");
	}
	/* VM creation too */
	nvl_fault_fail_nth(1, NVL_FAULT_THIS_THREAD);
	assert_int_equal(nvl_vm_create(e.c, &vm_args, &vm2), -ENOMEM);
	nvl_fault_off();
	has(nvl_last_error(), "out of memory");
	env_fini(&e);
}

/*
 * The call's own arguments, checked before anything else, for calls shaped
 * like the one-op fast path (nvl_vm_bind() sends a one-op synchronous call
 * without syncobjs or queue straight to it): each bad one is -EINVAL with
 * its message and changes nothing, and a zero count with a NULL array is
 * fine.
 */
static void call_arguments_come_first(void **state)
{
	struct nvl_vm_sync sync = {0};
	struct nvl_vm_bind_op op;
	struct env e;
	char *before, *after;

	(void)state;
	env_init(&e);
	op = op_of(NVL_VM_BIND_OP_MAP, 0, e.bo, GiB, MiB);
	before = dump(e.v);
	assert_int_equal(
		nvl_vm_bind(NULL, e.vm, 0, &op, 1, NULL, 0, NULL, 0, 0),
		-EINVAL);
	has(nvl_last_error(), "NULL client");
	assert_int_equal(
		nvl_vm_bind(e.c, e.vm, 0, NULL, 1, NULL, 0, NULL, 0, 0),
		-EINVAL);
	has(nvl_last_error(), "NULL array");
	assert_int_equal(nvl_vm_bind(e.c, e.vm, 0, &op, 1, NULL, 1, NULL, 0, 0),
			 -EINVAL);
	has(nvl_last_error(), "NULL array");
	assert_int_equal(nvl_vm_bind(e.c, e.vm, 0, &op, 1, NULL, 0, NULL, 1, 0),
			 -EINVAL);
	has(nvl_last_error(), "NULL array");
	assert_int_equal(nvl_vm_bind(e.c, e.vm, 0, &op, (1u << 16) + 1, NULL, 0,
				     NULL, 0, 0),
			 -EINVAL);
	has(nvl_last_error(), "too many");
	assert_int_equal(
		nvl_vm_bind(e.c, e.vm, 0, &op, 1, &sync, 257, NULL, 0, 0),
		-EINVAL);
	has(nvl_last_error(), "too many");
	assert_int_equal(
		nvl_vm_bind(e.c, e.vm, 0, &op, 1, NULL, 0, NULL, 0, 1u << 5),
		-EINVAL);
	has(nvl_last_error(), "unknown flags");
	/* a bad VM handle on the one-op path */
	assert_int_equal(
		nvl_vm_bind(e.c, e.vm + 100, 0, &op, 1, NULL, 0, NULL, 0, 0),
		-ENOENT);
	has(nvl_last_error(), "no VM");
	after = dump(e.v);
	assert_string_equal(before, after);
	free(after);
	/* NULL arrays with zero counts are no error; nothing to do is 0 */
	assert_int_equal(
		nvl_vm_bind(e.c, e.vm, 0, NULL, 0, NULL, 0, NULL, 0, 0), 0);
	assert_int_equal(nvl_vm_bind(e.c, e.vm, 0, &op, 1, NULL, 0, NULL, 0, 0),
			 0);
	after = dump(e.v);
	has(after, "va [0x40000000, 0x40100000) 1M bo");
	free(after);
	free(before);
	env_fini(&e);
}

/* The dump shows window, page sizes, regions and mappings, one a line. */
static void dump_shows_regions_mappings_and_page_sizes(void **state)
{
	struct env e;
	struct nvl_vm_bind_op ops[4];
	char *text;

	(void)state;
	env_init(&e);
	text = dump(e.v);
	has(text,
	    "window [0, 0x400000000) reserved [0x3c0000000, 0x400000000)");
	has(text, "page 4K");
	has(text, "regions 0 mappings 0 pending-binds 0");
	free(text);
	ops[0] = op_of(NVL_VM_BIND_OP_MAP, 0, e.bo, GiB, 2 * MiB);
	ops[1] = op_of(NVL_VM_BIND_OP_MAP, NVL_VM_BIND_READONLY, e.bo, 2 * GiB,
		       MiB);
	ops[1].bo_offset = MiB;
	ops[2] = op_of(NVL_VM_BIND_OP_MAP, NVL_VM_BIND_SPARSE, 0, 8 * GiB,
		       64 * MiB);
	ops[3] = op_of(NVL_VM_BIND_OP_MAP, NVL_VM_BIND_NULL, 0, 8 * GiB + MiB,
		       64 * 1024);
	assert_int_equal(bind(&e, ops, 4), 0);
	text = dump(e.v);
	has(text, "regions 1 mappings 3 pending-binds 0");
	has(text, "region [0x200000000, 0x204000000) 64M live");
	has(text, "va [0x40000000, 0x40200000) 2M bo ");
	has(text, ":4M @0 page 4K\n");
	has(text, "va [0x80000000, 0x80100000) 1M bo ");
	has(text, ":4M @0x100000 page 4K ro\n");
	has(text,
	    "va [0x200100000, 0x200110000) 64K null page 4K null region\n");
	/* mappings come in address order, after the regions */
	assert_true(strstr(text, "va [0x40000000") <
		    strstr(text, "va [0x80000000"));
	assert_true(strstr(text, "region [") < strstr(text, "va ["));
	free(text);
	/* a FILE that cannot be written: -EIO */
	{
		FILE *ro = fopen("/dev/null", "r");

		assert_non_null(ro);
		assert_int_equal(nvl_vm_dump(e.v, ro), -EIO);
		fclose(ro);
	}
	env_fini(&e);
}

/*
 * nvl_vm_destroy drops the handle; the VM (with its mappings and their BO
 * references) goes once its bind queues' handles are gone too.
 */
static void destroy_drops_the_vm_once_its_queues_are_gone(void **state)
{
	struct env e;
	struct nvl_vm_bind_op op;
	uint32_t vm2, q;
	unsigned int ref0;

	(void)state;
	env_init(&e);
	ref0 = nvl_kref_read(&e.obj->ref);
	assert_int_equal(nvl_vm_create(e.c, &vm_args, &vm2), 0);
	assert_int_equal(nvl_vm_bind_queue_create(e.c, vm2, &q), 0);
	op = op_of(NVL_VM_BIND_OP_MAP, 0, e.bo, GiB, MiB);
	assert_int_equal(nvl_vm_bind(e.c, vm2, q, &op, 1, NULL, 0, NULL, 0, 0),
			 0);
	assert_true(nvl_kref_read(&e.obj->ref) > ref0);
	assert_int_equal(nvl_vm_destroy(e.c, vm2), 0);
	/* the handle is gone at once */
	assert_int_equal(nvl_vm_destroy(e.c, vm2), -ENOENT);
	assert_int_equal(nvl_vm_bind(e.c, vm2, q, &op, 1, NULL, 0, NULL, 0, 0),
			 -ENOENT);
	assert_int_equal(nvl_vm_bind_queue_create(e.c, vm2, &vm2), -ENOENT);
	/* the queue still holds the VM: its mapping (and BO ref) stay */
	assert_true(nvl_kref_read(&e.obj->ref) > ref0);
	assert_int_equal(nvl_vm_bind_queue_destroy(e.c, q), 0);
	assert_int_equal(nvl_kref_read(&e.obj->ref), ref0);
	/* the other VM and bad arguments */
	assert_int_equal(nvl_vm_destroy(e.c, 0), -ENOENT);
	assert_int_equal(nvl_vm_destroy(NULL, e.vm), -EINVAL);
	op.handle = e.bo;
	assert_int_equal(bind(&e, &op, 1), 0);
	env_fini(&e);
}

struct create_arg {
	struct nvl_client *c;
	uint32_t vm;
};

static int create_op(void *p)
{
	struct create_arg *a = p;

	return nvl_vm_create(a->c, &vm_args, &a->vm);
}

static void create_check(int ret, void *p)
{
	struct create_arg *a = p;

	assert_int_equal(ret, -ENOMEM);
	has(nvl_last_error(), "out of memory");
	/* no handle was added: the next one a VM gets is still free */
	assert_null(nvl_vm_lookup(a->c, 1));
}

/*
 * VM creation with its 1st, 2nd, ... allocation failing: -ENOMEM, nothing
 * left behind (LeakSanitizer checks every unwind step), no handle.
 */
static void create_unwinds_at_every_allocation(void **state)
{
	struct create_arg a = {0};
	struct nvl_vm_bind_op op =
		op_of(NVL_VM_BIND_OP_MAP, NVL_VM_BIND_NULL, 0, GiB, MiB);
	unsigned long n;

	(void)state;
	assert_int_equal(nvl_client_create(&a.c), 0);
	n = t_fail_each_alloc(create_op, create_check, &a, 100);
	assert_true(n >= 4);
	/* the VM that finally got made works */
	assert_int_equal(nvl_vm_bind(a.c, a.vm, 0, &op, 1, NULL, 0, NULL, 0, 0),
			 0);
	assert_int_equal(nvl_vm_destroy(a.c, a.vm), 0);
	nvl_client_destroy(a.c);
	assert_int_equal(nvl_checker_violations(), 0);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(sparse_ops_take_no_handle),
	cmocka_unit_test(errors_follow_argument_handle_region_order),
	cmocka_unit_test(enomem_replaces_the_previous_message),
	cmocka_unit_test(call_arguments_come_first),
	cmocka_unit_test(dump_shows_regions_mappings_and_page_sizes),
	cmocka_unit_test(destroy_drops_the_vm_once_its_queues_are_gone),
	cmocka_unit_test(create_unwinds_at_every_allocation),
};

T_MAIN(tests)

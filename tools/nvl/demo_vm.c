// SPDX-License-Identifier: MIT
/*
 * Demo step 40: GPUVM and VM_BIND. A few binds through the client API,
 * including a hole punch (a REMAP), a sparse region with a tile bound into
 * it, an async unbind signalling a syncobj, and a rejected straddling map;
 * for each, the op list GPUVM plans, then the VA map and the recorded page
 * tables.
 */
#include <errno.h>
#include <stdio.h>

#include <nouvelle/bo.h>
#include <nouvelle/sync.h>
#include <nouvelle/vm.h>

#include "demo.h"
#include "base/time.h"
#include "mm/gem.h"
#include "vm/pt_record.h"
#include "vm/sm.h"
#include "vm/vm.h"

#define MiB (1ull << 20)
#define GiB (1ull << 30)

struct demo {
	struct nvl_client *c;
	uint32_t vm, a, b;
	struct nvl_vm *v;
};

static const char *bo_name(struct demo *d, struct nvl_gem_object *obj)
{
	struct nvl_gem_object *a = nvl_gem_lookup(d->c, d->a);
	const char *n = !obj ? "-" : obj == a ? "A" : "B";

	nvl_gem_put(a);
	return n;
}

/* Print the op list GPUVM would apply for @op, without applying it. */
static void plan(struct demo *d, const struct nvl_vm_bind_op *op)
{
	struct nvl_gpuvm *g = d->v->gpuvm;
	struct nvl_gpuvm_map_req req = {op->addr, op->range, NULL,
					op->bo_offset, 0};
	struct nvl_gpuvm_ops ops;
	char line[160];
	int ret;

	if (op->handle)
		req.obj = nvl_gem_lookup(d->c, op->handle);
	nvl_gpuvm_ops_init(&ops);
	nvl_flock_lock(&g->lock);
	if (op->op == NVL_VM_BIND_OP_MAP && (op->flags & NVL_VM_BIND_SPARSE))
		ret = nvl_gpuvm_region_create_ops(g, op->addr, op->range, &ops);
	else if (op->op == NVL_VM_BIND_OP_MAP)
		ret = nvl_gpuvm_sm_map_ops(g, &req, &ops);
	else
		ret = nvl_gpuvm_sm_unmap_ops(g, op->addr, op->range, &ops);
	if (ret)
		printf("    plan: error %d\n", ret);
	for (uint32_t i = 0; i < ops.n; i++)
		printf("    op %u: %s\n", i,
		       nvl_gpuvm_op_format(&ops.v[i], line, sizeof(line)));
	if (!ret && !ops.n)
		printf("    (no ops)\n");
	nvl_gpuvm_ops_fini(g, &ops);
	nvl_flock_unlock(&g->lock);
	nvl_gem_put(req.obj);
}

static int bind(struct demo *d, const char *what,
		const struct nvl_vm_bind_op *op)
{
	int ret;

	printf("  bind: %s\n", what);
	plan(d, op);
	ret = nvl_vm_bind(d->c, d->vm, 0, op, 1, NULL, 0, NULL, 0, 0);
	if (ret)
		printf("    -> %d: %s\n", ret, nvl_last_error());
	return ret;
}

static void print_run(uint64_t va, uint64_t range,
		      const struct nvl_vm_pt_page *p, void *arg)
{
	struct demo *d = arg;

	if (p->state == NVL_VM_PT_SPARSE)
		printf("    pt  [%#12llx, %#12llx) sparse (reads 0)\n",
		       (unsigned long long)va,
		       (unsigned long long)(va + range));
	else
		printf("    pt  [%#12llx, %#12llx) %s@%#llx%s%s\n",
		       (unsigned long long)va, (unsigned long long)(va + range),
		       bo_name(d, p->obj), (unsigned long long)p->bo_offset,
		       p->flags & NVL_VM_PT_NULL ? " null" : "",
		       p->flags & NVL_VM_PT_READONLY ? " ro" : "");
}

static void show(struct demo *d)
{
	struct nvl_gpuvm *g = d->v->gpuvm;
	struct nvl_gpuva *va;

	nvl_flock_lock(&g->lock);
	for (va = nvl_gpuvm_first_va(g); va; va = nvl_gpuvm_next_va(va))
		printf("    va  [%#12llx, %#12llx) %s@%#llx\n",
		       (unsigned long long)nvl_gpuva_addr(va),
		       (unsigned long long)nvl_gpuva_end(va),
		       bo_name(d, nvl_gpuva_obj(va)),
		       (unsigned long long)va->bo_offset);
	nvl_flock_unlock(&g->lock);
	nvl_vm_pt_record_for_each(d->v->rec, print_run, d);
}

static struct nvl_vm_bind_op op(uint32_t code, uint32_t flags, uint32_t bo,
				uint64_t addr, uint64_t range, uint64_t off)
{
	return (struct nvl_vm_bind_op){.op = code,
				       .flags = flags,
				       .handle = bo,
				       .addr = addr,
				       .range = range,
				       .bo_offset = off};
}

NVL_DEMO_STEP(40, vm)
{
	struct nvl_vm_create_args args = {.start = 0,
					  .end = 64 * GiB,
					  .kernel_start = 63 * GiB,
					  .kernel_range = GiB};
	struct demo d = {0};
	struct nvl_vm_bind_op o;
	struct nvl_vm_sync sig = {0};
	uint32_t s;
	int ret;

	if ((ret = nvl_client_create(&d.c)) ||
	    (ret = nvl_vm_create(d.c, &args, &d.vm)) ||
	    (ret = nvl_bo_create(d.c, 8 * MiB, NVL_BO_DOMAIN_SYSTEM, 0, 0,
				 &d.a)) ||
	    (ret = nvl_bo_create(d.c, 4 * MiB, NVL_BO_DOMAIN_SYSTEM, 0, 0,
				 &d.b)) ||
	    (ret = nvl_syncobj_create(d.c, 0, &s)))
		goto out;
	d.v = nvl_vm_lookup(d.c, d.vm);
	printf("  VM [0, 64 GiB), reserved [63 GiB, 64 GiB); BO A 8 MiB, BO B "
	       "4 MiB\n");
	o = op(NVL_VM_BIND_OP_MAP, 0, d.a, GiB, 4 * MiB, 0);
	if ((ret = bind(&d, "map A [1 GiB, +4 MiB) @0", &o)))
		goto out;
	o = op(NVL_VM_BIND_OP_MAP, 0, d.b, GiB + MiB, MiB, 0);
	if ((ret = bind(&d, "map B over the middle: a hole punch", &o)))
		goto out;
	show(&d);
	o = op(NVL_VM_BIND_OP_MAP, NVL_VM_BIND_SPARSE, 0, 4 * GiB, 64 * MiB, 0);
	if ((ret = bind(&d, "sparse region [4 GiB, +64 MiB)", &o)))
		goto out;
	o = op(NVL_VM_BIND_OP_MAP, 0, d.a, 4 * GiB + 2 * MiB, 64 * 1024, MiB);
	if ((ret = bind(&d, "64 KiB tile of A into the region", &o)))
		goto out;
	o = op(NVL_VM_BIND_OP_MAP, 0, d.a, 4 * GiB + 63 * MiB, 2 * MiB, 0);
	if (bind(&d, "map straddling the region's end (must fail)", &o) !=
	    -ENOSPC) {
		ret = -EINVAL;
		goto out;
	}
	o = op(NVL_VM_BIND_OP_UNMAP, 0, 0, GiB + 3 * MiB, MiB, 0);
	printf("  bind: async unmap [1 GiB + 3 MiB, +1 MiB), signals a "
	       "syncobj\n");
	plan(&d, &o);
	sig.handle = s;
	ret = nvl_vm_bind(d.c, d.vm, 0, &o, 1, NULL, 0, &sig, 1,
			  NVL_VM_BIND_ASYNC);
	if (!ret)
		ret = nvl_syncobj_wait(d.c, &s, NULL, 1,
				       nvl_time_ns() + 2000000000ll, 0, NULL);
	if (ret)
		goto out;
	printf("    syncobj signalled: page tables written\n");
	show(&d);
out:
	if (ret)
		printf("  vm demo failed: %d (%s)\n", ret, nvl_last_error());
	nvl_vm_put(d.v);
	nvl_client_destroy(d.c);
	return ret;
}

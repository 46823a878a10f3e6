// SPDX-License-Identifier: MIT
/*
 * DOC: Split and merge
 *
 * Given a map request or an unmap range, GPUVM builds the ordered list of
 * operations that takes the VA space from its current state to the requested
 * one. Existing mappings are visited in ascending address order; UNMAP and
 * REMAP ops follow them, and a map request's MAP always comes last. Adjacent
 * mappings are never coalesced: "merge" only ever means the @keep hint.
 *
 * Notation: [a, e) is an existing mapping of BO X at offset n ("X@n"),
 * [A, E) the request; one character is one page.
 *
 * 1. Exact overlap, a == A, e == E::
 *
 *	old:	|XXXX|		X@n
 *	req:	|YYYY|		Y@m
 *	ops:	UNMAP(old, keep = (X == Y && n == m)), MAP(req)
 *
 *    A request identical to an existing mapping still yields UNMAP(keep=1),
 *    MAP: the backend keeps the PTEs and rewrites them in place.
 *
 * 2. Front cut, a == A, e > E::
 *
 *	old:	|XXXXXX|	X@n
 *	req:	|YYY|
 *	ops:	REMAP(old, next = [E, e) @ n + (E - A)), MAP(req)
 *	after:	|YYY|XXX|
 *
 * 3. Back cut, a < A, e == E (or e < E: the request goes on past it)::
 *
 *	old:	|XXXXXX|	X@n
 *	req:	   |YYY|
 *	ops:	REMAP(old, prev = [a, A) @ n), MAP(req)
 *	after:	|XXX|YYY|
 *
 * 4. Hole punch, a < A, e > E::
 *
 *	old:	|XXXXXXXXX|	X@n
 *	req:	   |YYY|
 *	ops:	REMAP(old, prev = [a, A) @ n,
 *			   next = [E, e) @ n + (E - a)), MAP(req)
 *	after:	|XXX|YYY|XXX|
 *
 * 5. Request spanning several mappings and gaps, a > A for the inner ones::
 *
 *	old:	|XXX|  |ZZ| |WWWW|
 *	req:	  |YYYYYYYYYYY|
 *	ops:	REMAP(X, prev), UNMAP(Z), REMAP(W, next), MAP(req)
 *	after:	|XX|YYYYYYYYYYY|WW|
 *
 *    Mappings entirely inside are UNMAPped; at most two REMAPs (the first
 *    and last mapping touched) and exactly one MAP.
 *
 * 6. The keep hint: a visited mapping of the same BO whose offset continues
 *    the request's (n + (A - a) == m when a < A, n == m + (a - A) when
 *    a >= A) gets keep = true: its PTEs already hold what the MAP will
 *    write. NULL mappings never keep.
 *
 * Unmap of [A, E) is the same walk without the MAP: mappings inside are
 * UNMAPped, the ones sticking out are REMAPped with prev and/or next; a range
 * holding nothing gives zero ops.
 *
 * Sparse regions sit beside the mappings: REGION_CREATE over a range with no
 * mapping and no region; REGION_DESTROY of exactly one region, after the
 * UNMAPs of whatever is mapped inside; a map must lie inside one region or
 * outside all of them (-ENOSPC otherwise).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/log.h"
#include "mm/gem.h"
#include "vm/sm.h"
#include "vm/txn_internal.h"

static struct nvl_gpuvm_op *op_add(struct nvl_gpuvm_ops *ops, uint8_t kind,
				   struct nvl_gpuva *va, bool keep)
{
	struct nvl_gpuvm_op *op;

	if (ops->n == ops->cap) {
		uint32_t cap = ops->cap * 2;
		struct nvl_gpuvm_op *v;

		if (ops->v == ops->inl) {
			v = nvl_calloc(cap, sizeof(*v));
			if (v)
				memcpy(v, ops->inl, sizeof(ops->inl));
		} else {
			v = nvl_reallocarray(ops->v, cap, sizeof(*v));
		}
		if (!v)
			return NULL;
		ops->v = v;
		ops->cap = cap;
	}
	op = &ops->v[ops->n++];
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	op->va = va;
	op->keep = keep;
	return op;
}

static bool dead_in_txn(const struct nvl_gpuvm *vm, uint64_t s, uint64_t l)
{
	struct nvl_itree_node *n;

	if (!vm->cur_seq || !vm->cur_kills || nvl_itree_empty(&vm->regions))
		return false;
	nvl_itree_for_each (n, &vm->regions, s, l)
		if (container_of(n, struct nvl_gpuvm_region, node)->dead_seq ==
		    vm->cur_seq)
			return true;
	return false;
}

static int check_map_regions(struct nvl_gpuvm *vm, uint64_t A, uint64_t range)
{
	struct nvl_gpuvm_region *r;

	if (nvl_itree_empty(&vm->regions))
		return 0;
	r = nvl_gpuvm_region_lookup(vm, A, range);
	if (r && (r->node.start > A || r->node.last < A + range - 1))
		return nvl_error(-ENOSPC,
				 "vm: map [%#llx, +%#llx) straddles sparse "
				 "region [%#llx, %#llx]",
				 (unsigned long long)A,
				 (unsigned long long)range,
				 (unsigned long long)r->node.start,
				 (unsigned long long)r->node.last);
	if (dead_in_txn(vm, A, A + range - 1))
		return nvl_error(-ENOSPC,
				 "vm: map [%#llx, +%#llx) over a region "
				 "destroyed in the same call",
				 (unsigned long long)A,
				 (unsigned long long)range);
	return 0;
}

bool nvl_gpuvm_map_regions_ok(struct nvl_gpuvm *vm, uint64_t addr,
			      uint64_t range)
{
	struct nvl_gpuvm_region *r;

	if (nvl_itree_empty(&vm->regions))
		return true;
	r = nvl_gpuvm_region_lookup(vm, addr, range);
	if (r && (r->node.start > addr || r->node.last < addr + range - 1))
		return false;
	return !dead_in_txn(vm, addr, addr + range - 1);
}

static int bad_range(const struct nvl_gpuvm *vm, uint64_t addr, uint64_t range)
{
	return nvl_error(
		-EINVAL,
		"vm %s: range [%#llx, +%#llx) empty, outside [%#llx, %#llx) or "
		"in the reserved range",
		vm->name, (unsigned long long)addr, (unsigned long long)range,
		(unsigned long long)vm->start, (unsigned long long)vm->end);
}

int nvl_gpuvm_sm_map_ops(struct nvl_gpuvm *vm,
			 const struct nvl_gpuvm_map_req *req,
			 struct nvl_gpuvm_ops *ops)
{
	const uint64_t A = req->addr, E = req->addr + req->range;
	struct nvl_gpuva *va, *next;
	struct nvl_gpuvm_op *op;
	int ret;

	if (!nvl_gpuvm_range_valid(vm, A, req->range))
		return bad_range(vm, A, req->range);
	ret = check_map_regions(vm, A, req->range);
	if (ret)
		return ret;
	if (vm->pt->prefetch)
		vm->pt->prefetch(vm->pt_priv, A, req->range);
	for (va = nvl_gpuvm_find_first(vm, A, req->range); va; va = next) {
		uint64_t a = nvl_gpuva_addr(va), e = nvl_gpuva_end(va);
		uint64_t n = va->bo_offset;
		struct nvl_gem_object *obj = nvl_gpuva_obj(va);
		bool same = obj && obj == req->obj;
		bool keep;

		next = nvl_gpuvm_find_next(va, A, req->range);
		if (a == A)
			keep = same && n == req->bo_offset;
		else if (a < A)
			keep = same && n + (A - a) == req->bo_offset;
		else
			keep = same && n == req->bo_offset + (a - A);
		if (a >= A && e <= E) {
			if (!op_add(ops, NVL_GPUVM_OP_UNMAP, va, keep))
				return -ENOMEM;
			continue;
		}
		op = op_add(ops, NVL_GPUVM_OP_REMAP, va, keep);
		if (!op)
			return -ENOMEM;
		if (a < A)
			op->remap.prev = (struct nvl_gpuvm_piece){a, A - a, n};
		if (e > E)
			op->remap.next =
				(struct nvl_gpuvm_piece){E, e - E, n + (E - a)};
	}
	op = op_add(ops, NVL_GPUVM_OP_MAP, NULL, false);
	if (!op)
		return -ENOMEM;
	op->map = *req;
	return 0;
}

static int unmap_walk(struct nvl_gpuvm *vm, uint64_t A, uint64_t range,
		      struct nvl_gpuvm_ops *ops)
{
	const uint64_t E = A + range;
	struct nvl_gpuva *va, *next;

	for (va = nvl_gpuvm_find_first(vm, A, range); va; va = next) {
		uint64_t a = nvl_gpuva_addr(va), e = nvl_gpuva_end(va);
		struct nvl_gpuvm_op *op;

		next = nvl_gpuvm_find_next(va, A, range);
		if (a >= A && e <= E) {
			if (!op_add(ops, NVL_GPUVM_OP_UNMAP, va, false))
				return -ENOMEM;
			continue;
		}
		op = op_add(ops, NVL_GPUVM_OP_REMAP, va, false);
		if (!op)
			return -ENOMEM;
		if (a < A)
			op->remap.prev = (struct nvl_gpuvm_piece){
				a, A - a, va->bo_offset};
		if (e > E)
			op->remap.next = (struct nvl_gpuvm_piece){
				E, e - E, va->bo_offset + (E - a)};
	}
	return 0;
}

int nvl_gpuvm_sm_unmap_ops(struct nvl_gpuvm *vm, uint64_t addr, uint64_t range,
			   struct nvl_gpuvm_ops *ops)
{
	if (!nvl_gpuvm_range_valid(vm, addr, range))
		return bad_range(vm, addr, range);
	return unmap_walk(vm, addr, range, ops);
}

int nvl_gpuvm_bo_unmap_ops(struct nvl_gpuvm *vm, struct nvl_gem_object *obj,
			   struct nvl_gpuvm_ops *ops)
{
	struct nvl_gpuvm_bo *vm_bo = nvl_gpuvm_bo_find(vm, obj);
	struct nvl_gpuva *va;
	int ret = 0;

	if (!vm_bo)
		return 0;
	nvl_list_for_each_entry (va, &vm_bo->vas, bo_link) {
		if (!op_add(ops, NVL_GPUVM_OP_UNMAP, va, false)) {
			ret = -ENOMEM;
			break;
		}
	}
	nvl_gpuvm_bo_put(vm_bo);
	return ret;
}

int nvl_gpuvm_prefetch_ops(struct nvl_gpuvm *vm, uint64_t addr, uint64_t range,
			   struct nvl_gpuvm_ops *ops)
{
	struct nvl_gpuva *va;

	if (!nvl_gpuvm_range_valid(vm, addr, range))
		return bad_range(vm, addr, range);
	nvl_gpuvm_for_each_va_range(
		va, vm, addr, range) if (!op_add(ops, NVL_GPUVM_OP_PREFETCH, va,
						 false)) return -ENOMEM;
	return 0;
}

int nvl_gpuvm_region_create_ops(struct nvl_gpuvm *vm, uint64_t addr,
				uint64_t range, struct nvl_gpuvm_ops *ops)
{
	struct nvl_gpuvm_op *op;

	if (!nvl_gpuvm_range_valid(vm, addr, range))
		return bad_range(vm, addr, range);
	if (nvl_gpuvm_find_first(vm, addr, range) ||
	    nvl_gpuvm_region_find_first(vm, addr, range) ||
	    dead_in_txn(vm, addr, addr + range - 1))
		return nvl_error(-ENOSPC,
				 "vm %s: sparse region [%#llx, +%#llx) over a "
				 "non-empty range",
				 vm->name, (unsigned long long)addr,
				 (unsigned long long)range);
	op = op_add(ops, NVL_GPUVM_OP_REGION_CREATE, NULL, false);
	if (!op)
		return -ENOMEM;
	op->region.addr = addr;
	op->region.range = range;
	return 0;
}

int nvl_gpuvm_region_destroy_ops(struct nvl_gpuvm *vm, uint64_t addr,
				 uint64_t range, struct nvl_gpuvm_ops *ops)
{
	struct nvl_gpuvm_region *r;
	struct nvl_gpuvm_op *op;
	int ret;

	if (!nvl_gpuvm_range_valid(vm, addr, range))
		return bad_range(vm, addr, range);
	r = nvl_gpuvm_region_find_first(vm, addr, range);
	if (!r || r->node.start != addr || r->node.last != addr + range - 1)
		return nvl_error(
			-ENOENT,
			"vm %s: no sparse region is exactly [%#llx, +%#llx)",
			vm->name, (unsigned long long)addr,
			(unsigned long long)range);
	ret = unmap_walk(vm, addr, range, ops);
	if (ret)
		return ret;
	op = op_add(ops, NVL_GPUVM_OP_REGION_DESTROY, NULL, false);
	if (!op)
		return -ENOMEM;
	op->region.addr = addr;
	op->region.range = range;
	op->region.r = r;
	return 0;
}

static const char *obj_name(char *b, size_t len, struct nvl_gem_object *obj)
{
	if (!obj)
		snprintf(b, len, "null");
	else
		snprintf(b, len, "bo%llx",
			 (unsigned long long)((uintptr_t)obj >> 4 & 0xfff));
	return b;
}

char *nvl_gpuvm_op_format(const struct nvl_gpuvm_op *op, char *buf, size_t len)
{
	const struct nvl_gpuva *va = op->va;
	char o[24];

	switch (op->kind) {
	case NVL_GPUVM_OP_MAP:
		snprintf(buf, len, "MAP      [%#llx, %#llx) -> %s@%#llx%s",
			 (unsigned long long)op->map.addr,
			 (unsigned long long)(op->map.addr + op->map.range),
			 obj_name(o, sizeof(o), op->map.obj),
			 (unsigned long long)op->map.bo_offset,
			 op->map.flags & NVL_GPUVA_READONLY ? " ro" : "");
		break;
	case NVL_GPUVM_OP_UNMAP:
	case NVL_GPUVM_OP_PREFETCH:
		snprintf(buf, len, "%s [%#llx, %#llx) %s@%#llx%s",
			 op->kind == NVL_GPUVM_OP_UNMAP ? "UNMAP   "
							: "PREFETCH",
			 (unsigned long long)nvl_gpuva_addr(va),
			 (unsigned long long)nvl_gpuva_end(va),
			 obj_name(o, sizeof(o), nvl_gpuva_obj(va)),
			 (unsigned long long)va->bo_offset,
			 op->keep ? " keep" : "");
		break;
	case NVL_GPUVM_OP_REMAP: {
		char p[64] = "-", n[64] = "-";

		if (op->remap.prev.range)
			snprintf(p, sizeof(p), "[%#llx, %#llx)@%#llx",
				 (unsigned long long)op->remap.prev.addr,
				 (unsigned long long)(op->remap.prev.addr +
						      op->remap.prev.range),
				 (unsigned long long)op->remap.prev.bo_offset);
		if (op->remap.next.range)
			snprintf(n, sizeof(n), "[%#llx, %#llx)@%#llx",
				 (unsigned long long)op->remap.next.addr,
				 (unsigned long long)(op->remap.next.addr +
						      op->remap.next.range),
				 (unsigned long long)op->remap.next.bo_offset);
		snprintf(buf, len,
			 "REMAP    [%#llx, %#llx) %s prev %s next %s%s",
			 (unsigned long long)nvl_gpuva_addr(va),
			 (unsigned long long)nvl_gpuva_end(va),
			 obj_name(o, sizeof(o), nvl_gpuva_obj(va)), p, n,
			 op->keep ? " keep" : "");
		break;
	}
	case NVL_GPUVM_OP_REGION_CREATE:
	case NVL_GPUVM_OP_REGION_DESTROY:
		snprintf(buf, len, "%s [%#llx, %#llx)",
			 op->kind == NVL_GPUVM_OP_REGION_CREATE ? "SPARSE+  "
								: "SPARSE-  ",
			 (unsigned long long)op->region.addr,
			 (unsigned long long)(op->region.addr +
					      op->region.range));
		break;
	default:
		snprintf(buf, len, "?");
	}
	return buf;
}

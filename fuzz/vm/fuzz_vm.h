/* SPDX-License-Identifier: MIT */
/*
 * What the VM_BIND fuzz targets share: the small VM they bind into, how an
 * op is decoded from 8 input bytes, and the consistency check of the
 * mapping tree against the recording backend, both ways.
 */
#ifndef NVL_FUZZ_VM_H
#define NVL_FUZZ_VM_H

#include <stdlib.h>
#include <string.h>

#include <nouvelle/vm.h>

#include "vm/pt_record.h"
#include "vm/vm.h"

#define FUZZ_PAGE 4096ull
#define FUZZ_PAGES 1024u /* the VM; its last 64 pages are kernel-reserved */

static inline struct nvl_vm_create_args fuzz_vm_args(void)
{
	return (struct nvl_vm_create_args){
		.start = 0,
		.end = FUZZ_PAGES * FUZZ_PAGE,
		.kernel_start = (FUZZ_PAGES - 64) * FUZZ_PAGE,
		.kernel_range = 64 * FUZZ_PAGE,
	};
}

/*
 * One op from @d[0..7]: any op code (some invalid), flags, one of @bo or
 * no handle, page-granular address, range and offset (some unaligned).
 */
static inline void fuzz_vm_decode(struct nvl_vm_bind_op *o, const uint8_t *d,
				  const uint32_t *bo)
{
	memset(o, 0, sizeof(*o));
	o->op = d[0] % 5;
	o->flags = d[1] & 0x8 ? 1u << 9 : d[1] & 7;
	o->handle = d[2] % 4 ? bo[d[2] & 1] : 0;
	o->addr = (uint64_t)(d[3] | d[4] << 8) % FUZZ_PAGES * FUZZ_PAGE;
	o->range = (uint64_t)(d[5] % 128) * FUZZ_PAGE;
	o->bo_offset = (uint64_t)(d[6] % 200) * FUZZ_PAGE;
	if (d[7] & 1)
		o->addr += 1;
}

/*
 * The unmapped pages [@lo, @hi): SPARSE inside a live region, INVALID
 * elsewhere. Walks recorded runs and region boundaries, not pages.
 * Return: 0, or 1 + the first page that disagrees.
 */
static inline uint64_t fuzz_vm_gap_mismatch(struct nvl_vm *v, uint64_t lo,
					    uint64_t hi)
{
	struct nvl_gpuvm *g = v->gpuvm;

	for (uint64_t a = lo; a < hi;) {
		struct nvl_gpuvm_region *r =
			nvl_gpuvm_region_find_first(g, a, hi - a);
		bool in = r && r->node.start <= a;
		uint64_t lim =
			!r   ? hi
			: in ? (r->node.last + 1 < hi ? r->node.last + 1 : hi)
			     : r->node.start;
		struct nvl_vm_pt_page p;
		uint64_t end = nvl_vm_pt_record_query_span(v->rec, a, &p);

		if (p.state != (in ? NVL_VM_PT_SPARSE : NVL_VM_PT_INVALID))
			return 1 + a / FUZZ_PAGE;
		a = end < lim ? end : lim;
	}
	return 0;
}

/*
 * The tree against the page tables, both ways (VM lock held):
 *  - the tree is a valid interval tree of non-overlapping mappings, and
 *    every mapping's pages are recorded MAPPED with its BO and offset;
 *  - every page of the window that no mapping covers is recorded SPARSE
 *    inside a live sparse region and INVALID elsewhere: an unmap that
 *    leaves pages mapped (or a stray write) fails it.
 * Return: 0, or 1 + the first page that disagrees (the tree itself: 1).
 */
static inline uint64_t fuzz_vm_mismatch(struct nvl_vm *v)
{
	struct nvl_gpuvm *g = v->gpuvm;
	struct nvl_gpuva *va;
	uint64_t prev_end = g->start, bad;

	if (nvl_ibtree_check(&g->vas))
		return 1;
	for (va = nvl_gpuvm_first_va(g); va; va = nvl_gpuvm_next_va(va)) {
		uint64_t a0 = nvl_gpuva_addr(va);

		if (a0 < prev_end)
			return 1;
		bad = fuzz_vm_gap_mismatch(v, prev_end, a0);
		if (bad)
			return bad;
		prev_end = nvl_gpuva_end(va);
		for (uint64_t a = a0; a < prev_end;) {
			struct nvl_vm_pt_page p;
			uint64_t end =
				nvl_vm_pt_record_query_span(v->rec, a, &p);

			/* a span has contiguous offsets: its first page
			 * vouches for the rest */
			if (p.state != NVL_VM_PT_MAPPED ||
			    p.obj != nvl_gpuva_obj(va) ||
			    (p.obj && p.bo_offset != va->bo_offset + (a - a0)))
				return 1 + a / FUZZ_PAGE;
			a = end < prev_end ? end : prev_end;
		}
	}
	return fuzz_vm_gap_mismatch(v, prev_end, g->end);
}

/*
 * fuzz_vm_mismatch() finds nothing and the recording backend saw no
 * inconsistent write. Aborts otherwise.
 */
static inline void fuzz_vm_check(struct nvl_vm *v)
{
	struct nvl_vm_pt_record_stats st;
	uint64_t bad;

	nvl_flock_lock(&v->gpuvm->lock);
	bad = fuzz_vm_mismatch(v);
	nvl_flock_unlock(&v->gpuvm->lock);
	if (bad)
		abort();
	nvl_vm_pt_record_stats(v->rec, &st);
	if (st.errors)
		abort();
}

#endif /* NVL_FUZZ_VM_H */

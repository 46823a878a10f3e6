// SPDX-License-Identifier: MIT
/*
 * DOC: A debugging view of a VM
 *
 * nvl_vm_dump() prints what the kernel's gpuvm debugfs file shows, and a
 * little more: the window, the reserved range and the page sizes, every
 * sparse region (live, or destroyed by a bind whose page-table writes are
 * still pending), then every mapping in address order with its size, BO and
 * offset, page size, flags and the region it lies in. One line per item,
 * so a tool can print it and a test or a script can grep it::
 *
 *	vm vm: window [0x0, 0x400000000) reserved [0x3c0000000, 0x400000000)
 *	  page 4K big 64K,2M regions 1 mappings 2 pending-binds 0
 *	region [0x200000000, 0x204000000) 64M live
 *	va [0x40000000, 0x40200000) 2M bo 0x5581..:4M @0x0 page 2M
 *	va [0x200000000, 0x200010000) 64K null page 64K null region
 *
 * BOs are named by address and size: the VM does not know client handles.
 */
#include <errno.h>
#include <stdio.h>

#include "base/log.h"
#include "mm/gem.h"
#include "vm/vm_internal.h"

/* 4096 -> "4K", 2 MiB -> "2M", anything else in bytes */
static const char *size_str(char *b, size_t len, uint64_t x)
{
	static const char unit[] = "KMGTPE";
	int u = -1;

	while (x >= 1024 && !(x & 1023) && u < 5) {
		x >>= 10;
		u++;
	}
	if (u < 0)
		snprintf(b, len, "%llu", (unsigned long long)x);
	else
		snprintf(b, len, "%llu%c", (unsigned long long)x, unit[u]);
	return b;
}

static void dump_header(struct nvl_vm *vm, FILE *f)
{
	const struct nvl_gpuvm *g = vm->gpuvm;
	const struct nvl_gpuva *va;
	struct nvl_vm_job *job;
	size_t nva = 0, npend = 0;
	char b[24];

	for (va = nvl_gpuvm_first_va(g); va; va = nvl_gpuvm_next_va(va))
		nva++;
	nvl_list_for_each_entry (job, &vm->pending, link)
		npend++;
	fprintf(f, "vm %s: window [%#llx, %#llx)", g->name,
		(unsigned long long)g->start, (unsigned long long)g->end);
	if (g->kend)
		fprintf(f, " reserved [%#llx, %#llx)",
			(unsigned long long)g->kstart,
			(unsigned long long)g->kend);
	fprintf(f, "%s\n  page %s big ", atomic_load(&vm->dead) ? " DEAD" : "",
		size_str(b, sizeof(b), 1ull << g->page_shift));
	if (!g->big_page_shifts)
		fputs("none", f);
	for (unsigned int s = 0, first = 1; s < 64; s++) {
		if (!(g->big_page_shifts >> s & 1))
			continue;
		fprintf(f, "%s%s", first ? "" : ",",
			size_str(b, sizeof(b), 1ull << s));
		first = 0;
	}
	fprintf(f, " regions %zu mappings %zu pending-binds %zu\n",
		nvl_itree_count(&g->regions), nva, npend);
}

static void dump_regions(const struct nvl_gpuvm *g, FILE *f)
{
	struct nvl_itree_node *n;
	char b[24];

	for (n = nvl_itree_min(&g->regions); n; n = nvl_itree_succ(n)) {
		const struct nvl_gpuvm_region *r =
			container_of(n, struct nvl_gpuvm_region, node);

		fprintf(f, "region [%#llx, %#llx) %s ",
			(unsigned long long)n->start,
			(unsigned long long)n->last + 1,
			size_str(b, sizeof(b), n->last - n->start + 1));
		if (r->dead_seq)
			fprintf(f, "dying (bind %llu)\n",
				(unsigned long long)r->dead_seq);
		else
			fputs("live\n", f);
	}
}

static void dump_va(const struct nvl_gpuvm *g, const struct nvl_gpuva *va,
		    FILE *f)
{
	struct nvl_gem_object *obj = nvl_gpuva_obj(va);
	char b[24], c[24];

	fprintf(f, "va [%#llx, %#llx) %s ",
		(unsigned long long)nvl_gpuva_addr(va),
		(unsigned long long)nvl_gpuva_end(va),
		size_str(b, sizeof(b), nvl_gpuva_range(va)));
	if (obj)
		fprintf(f, "bo %p:%s @%#llx", (void *)obj,
			size_str(c, sizeof(c), obj->size_B),
			(unsigned long long)va->bo_offset);
	else
		fputs("null", f);
	fprintf(f, " page %s", size_str(b, sizeof(b), 1ull << va->page_shift));
	if (va->flags & NVL_GPUVA_READONLY)
		fputs(" ro", f);
	if (va->flags & NVL_GPUVA_NULL)
		fputs(" null", f);
	if (va->flags & NVL_GPUVA_NOATOMIC)
		fputs(" noatomic", f);
	if (va->flags & NVL_GPUVA_PENDING)
		fputs(" pending", f);
	if (nvl_gpuvm_region_find_first(g, nvl_gpuva_addr(va), 1))
		fputs(" region", f);
	fputc('\n', f);
}

int nvl_vm_dump(struct nvl_vm *vm, FILE *f)
{
	struct nvl_gpuvm *g = vm->gpuvm;
	const struct nvl_gpuva *va;

	nvl_flock_lock(&g->lock);
	dump_header(vm, f);
	dump_regions(g, f);
	for (va = nvl_gpuvm_first_va(g); va; va = nvl_gpuvm_next_va(va))
		dump_va(g, va, f);
	nvl_flock_unlock(&g->lock);
	if (fflush(f) || ferror(f))
		return nvl_error(-EIO, "vm %s: dump: write failed", g->name);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * Fuzz target: VM_BIND calls decoded from the input (8 bytes per op, 1-4
 * ops per call, sync or async), through the client API on a small VM. After
 * the calls: the mapping tree is a valid interval tree of non-overlapping
 * mappings, every mapping's pages are recorded in the page tables with its
 * BO and offset, and the recording backend saw no inconsistent write.
 */
#include <stdlib.h>
#include <string.h>

#include <nouvelle/bo.h>
#include <nouvelle/sync.h>
#include <nouvelle/vm.h>

#include "base/itree.h"
#include "base/time.h"
#include "mm/gem.h"
#include "vm/pt_record.h"
#include "vm/vm.h"

#define PAGE 4096ull
#define PAGES 1024u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(struct nvl_vm *v)
{
	struct nvl_vm_pt_record_stats st;
	struct nvl_gpuva *va;
	uint64_t prev_end = 0;

	pthread_mutex_lock(&v->gpuvm->lock);
	if (nvl_ibtree_check(&v->gpuvm->vas))
		abort();
	for (va = nvl_gpuvm_first_va(v->gpuvm); va;
	     va = nvl_gpuvm_next_va(va)) {
		struct nvl_vm_pt_page p;

		if (nvl_gpuva_addr(va) < prev_end)
			abort();
		prev_end = nvl_gpuva_end(va);
		for (uint64_t a = nvl_gpuva_addr(va); a < prev_end; a += PAGE) {
			nvl_vm_pt_record_query(v->rec, a, &p);
			if (p.state != NVL_VM_PT_MAPPED ||
			    p.obj != nvl_gpuva_obj(va) ||
			    (p.obj && p.bo_offset != va->bo_offset +
							     (a - nvl_gpuva_addr(va))))
				abort();
		}
	}
	pthread_mutex_unlock(&v->gpuvm->lock);
	nvl_vm_pt_record_stats(v->rec, &st);
	if (st.errors)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nvl_vm_create_args a = { .start = 0, .end = PAGES * PAGE,
					.kernel_start = (PAGES - 64) * PAGE,
					.kernel_range = 64 * PAGE };
	struct nvl_client *c;
	struct nvl_vm *v;
	uint32_t vm, bo[2], sig;
	struct nvl_vm_sync s = { 0 };

	if (nvl_client_create(&c))
		return 0;
	if (nvl_vm_create(c, &a, &vm) || nvl_syncobj_create(c, 0, &sig) ||
	    nvl_bo_create(c, 256 * PAGE, NVL_BO_DOMAIN_SYSTEM, 0, 0, &bo[0]) ||
	    nvl_bo_create(c, 64 * PAGE, NVL_BO_DOMAIN_SYSTEM, 0, 0, &bo[1]))
		goto out;
	v = nvl_vm_lookup(c, vm);
	s.handle = sig;
	while (size >= 9) {
		struct nvl_vm_bind_op ops[4];
		uint32_t n = 1 + data[0] % 4, flags = data[0] & 0x80 ?
						NVL_VM_BIND_ASYNC : 0;

		data++, size--;
		for (uint32_t i = 0; i < n && size >= 8; i++, data += 8,
			      size -= 8) {
			memset(&ops[i], 0, sizeof(ops[i]));
			ops[i].op = data[0] % 5;
			ops[i].flags = data[1] & 0x8 ? 1u << 9 : data[1] & 7;
			ops[i].handle = data[2] % 4 ? bo[data[2] & 1] : 0;
			ops[i].addr = (uint64_t)(data[3] | data[4] << 8) % PAGES *
				      PAGE;
			ops[i].range = (uint64_t)(data[5] % 128) * PAGE;
			ops[i].bo_offset = (uint64_t)(data[6] % 200) * PAGE;
			if (data[7] & 1)
				ops[i].addr += 1;
			n = i + 1;
		}
		if (!nvl_vm_bind(c, vm, 0, ops, n, NULL, 0, &s, 1, flags))
			nvl_syncobj_wait(c, &sig, NULL, 1,
					 nvl_time_ns() + 5000000000ll, 0, NULL);
		check(v);
	}
	nvl_vm_put(v);
out:
	nvl_client_destroy(c);
	return 0;
}

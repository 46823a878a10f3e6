// SPDX-License-Identifier: MIT
/*
 * Fuzz target: VM_BIND calls decoded from the input (8 bytes per op, 1-4
 * ops per call, sync or async), through the client API on a small VM. After
 * the calls: the mapping tree is a valid interval tree of non-overlapping
 * mappings, every mapping's pages are recorded in the page tables with its
 * BO and offset, and the recording backend saw no inconsistent write.
 */
#include <nouvelle/bo.h>
#include <nouvelle/sync.h>

#include "base/time.h"
#include "fuzz_vm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nvl_vm_create_args a = fuzz_vm_args();
	struct nvl_client *c;
	struct nvl_vm *v;
	uint32_t vm, bo[2], sig;
	struct nvl_vm_sync s = {0};

	if (nvl_client_create(&c))
		return 0;
	if (nvl_vm_create(c, &a, &vm) || nvl_syncobj_create(c, 0, &sig) ||
	    nvl_bo_create(c, 256 * FUZZ_PAGE, NVL_BO_DOMAIN_SYSTEM, 0, 0,
			  &bo[0]) ||
	    nvl_bo_create(c, 64 * FUZZ_PAGE, NVL_BO_DOMAIN_SYSTEM, 0, 0,
			  &bo[1]))
		goto out;
	v = nvl_vm_lookup(c, vm);
	s.handle = sig;
	while (size >= 9) {
		struct nvl_vm_bind_op ops[4];
		uint32_t i, n = 1 + data[0] % 4,
			    flags = data[0] & 0x80 ? NVL_VM_BIND_ASYNC : 0;

		data++, size--;
		/* as many ops as the header asks for and the input holds (the
		 * loop used to set n = 1 on its first pass: one op a call) */
		for (i = 0; i < n && size >= 8; i++, data += 8, size -= 8)
			fuzz_vm_decode(&ops[i], data, bo);
		n = i;
		if (!nvl_vm_bind(c, vm, 0, ops, n, NULL, 0, &s, 1, flags))
			nvl_syncobj_wait(c, &sig, NULL, 1,
					 nvl_time_ns() + 5000000000ll, 0, NULL);
		fuzz_vm_check(v);
	}
	nvl_vm_put(v);
out:
	nvl_client_destroy(c);
	return 0;
}

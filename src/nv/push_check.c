// SPDX-License-Identifier: MIT
/*
 * DOC: checks inside an exec's pushes
 *
 * Before Host class C86F the semaphore address has 40 bits (SEM_ADDR_HI
 * OFFSET 7:0): the pushbuffer builder cannot know the class, nvl_exec()
 * does, so it reads the pushes (through the BOs' CPU mappings, the VM
 * locked) and decodes them as the PBDMA would; a SEM_ADDR_HI with a bit
 * above the field is refused before anything is queued (nv/push_check.h).
 */
#include <errno.h>

#include "base/log.h"
#include "hw/host.h"
#include "hw/methods.h"
#include "hw/mthd.h"
#include "mm/bo.h"
#include "nv/push_check.h"
#include "vm/gpuvm.h"

struct scan {
	struct nvl_hw_pb_dec dec;
	uint32_t hi_mask; /* SEM_ADDR_HI OFFSET of the class */
	uint32_t host_class;
	uint32_t push; /* index of the push being read */
	uint64_t dword; /* its dword being read */
};

static int scan_dwords(struct scan *s, const uint32_t *dw, size_t n)
{
	for (size_t i = 0; i < n; i++, s->dword++) {
		struct nvl_hw_pb_item it;

		nvl_hw_pb_dec_step(&s->dec, dw[i], &it);
		if (it.call && it.mthd == NVL_HW_SEM_ADDR_HI &&
		    (it.data & ~s->hi_mask))
			return nvl_error(
				-EINVAL,
				"exec: push %u, dword %llu: SEM_ADDR_HI %#x "
				"names a semaphore at or above 2^40; Host "
				"class %#x has VA bits 39:32 there (7:0), it "
				"would use an aliased address",
				s->push, (unsigned long long)s->dword, it.data,
				s->host_class);
	}
	return 0;
}

/* Read [@va, @va + @len) of @g through the BOs mapped there. */
static int scan_push(struct scan *s, struct nvl_gpuvm *g, uint64_t va,
		     uint64_t len)
{
	uint64_t a = va, end = va + len;

	while (a < end) {
		struct nvl_gpuva *gva = nvl_gpuvm_find_first(g, a, end - a);
		struct nvl_gem_object *obj;
		uint64_t stop, off;
		struct nvl_bo *bo;
		uint8_t *cpu;
		int ret;

		/* unmapped: Host faults there, the rest is never read */
		if (!gva || nvl_gpuva_addr(gva) > a)
			return 0;
		stop = nvl_gpuva_end(gva) < end ? nvl_gpuva_end(gva) : end;
		obj = nvl_gpuva_obj(gva);
		if (!obj) {
			/* a NULL mapping reads zeros: NOP headers */
			for (uint64_t z = a; z < stop; z += 4) {
				static const uint32_t zero;

				ret = scan_dwords(s, &zero, 1);
				if (ret)
					return ret;
			}
			a = stop;
			continue;
		}
		bo = nvl_bo_from_gem(obj);
		ret = nvl_bo_kmap(bo, (void **)&cpu);
		if (ret == -EPERM)
			return 0; /* not CPU-visible: written by the GPU */
		if (ret)
			return nvl_error(ret, "exec: reading push %u: %d",
					 s->push, ret);
		off = gva->bo_offset + (a - nvl_gpuva_addr(gva));
		ret = scan_dwords(s, (const uint32_t *)(cpu + off),
				  (size_t)((stop - a) / 4));
		nvl_bo_kunmap(bo);
		if (ret)
			return ret;
		a = stop;
	}
	return 0;
}

int nvl_nv_push_check_sem(struct nvl_gpuvm *g,
			  const struct nvl_exec_push *pushes, uint32_t n,
			  uint32_t host_class)
{
	struct scan s = {.host_class = host_class};
	int ret = 0;

	/* clc86f.h NVC86F_SEM_ADDR_HI_OFFSET 24:0: nothing can alias */
	if (host_class >= NVL_HW_CLASS_HOST_HOPPER)
		return 0;
	s.hi_mask = 0xffu; /* clc56f.h NVC56F_SEM_ADDR_HI_OFFSET 7:0 */
	for (uint32_t i = 0; i < n && !ret; i++) {
		s.push = i;
		s.dword = 0;
		ret = scan_push(&s, g, pushes[i].va, pushes[i].len);
	}
	return ret;
}

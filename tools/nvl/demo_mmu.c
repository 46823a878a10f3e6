// SPDX-License-Identifier: MIT
/*
 * `nvl demo` step 60: GPU page tables. GPUVM binds three ranges with mixed
 * page sizes into NVIDIA-format tables on a model GPU; the demo prints the
 * PDE -> PTE chain the model's MMU walks for two addresses under one dual
 * PD0 entry, then shows a stale TLB entry that only an invalidate removes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo.h"
#include "hw/fault.h"
#include "hw/hwif.h"
#include "mm/gem.h"
#include "model/mmu.h"
#include "model/model.h"
#include "nv/gmmu.h"
#include "nv/ptmem.h"
#include "vm/gpuvm.h"
#include "vm/sm.h"

#define MIB (1ull << 20)

struct dbo {
	struct nvl_gem_object base;
	uint64_t pa;
};

static void dbo_free(struct nvl_gem_object *obj)
{
	(void)obj; /* on the stack */
}

static int dbo_backing(struct nvl_gem_object *obj, uint64_t off,
		       struct nvl_gem_backing *out)
{
	struct dbo *b = (struct dbo *)obj;

	out->domain = NVL_GEM_DOMAIN_VRAM;
	out->addr = b->pa + off;
	out->len_B = obj->size_B - off;
	return 0;
}

static const struct nvl_gem_ops dbo_ops = {dbo_free, dbo_backing};

static int bind_map(struct nvl_gpuvm *vm, uint64_t va, uint64_t range,
		    struct nvl_gem_object *obj, uint64_t off)
{
	struct nvl_gpuvm_map_req req = {va, range, obj, off, 0};
	struct nvl_gpuvm_txn txn;
	struct nvl_gpuvm_ops ops;
	int ret;

	nvl_gpuvm_txn_begin(vm, &txn);
	nvl_gpuvm_ops_init(&ops);
	ret = nvl_gpuvm_sm_map_ops(vm, &req, &ops);
	if (!ret)
		ret = nvl_gpuvm_txn_prepare(&txn, &ops);
	if (!ret)
		nvl_gpuvm_txn_apply(&txn, &ops);
	nvl_gpuvm_ops_fini(vm, &ops);
	if (ret) {
		nvl_gpuvm_txn_abort(&txn);
		return ret;
	}
	nvl_gpuvm_txn_commit(&txn);
	nvl_gpuvm_txn_finish(&txn);
	printf("  bind %#" PRIx64 " +%-8" PRIu64 " KiB -> VRAM %#" PRIx64
	       ": page size %u KiB\n",
	       va, range >> 10, ((struct dbo *)obj)->pa + off,
	       1u << (nvl_gpuvm_find_at(vm, va)->page_shift - 10));
	return 0;
}

static const char *level_name(unsigned int l)
{
	static const char *n[] = {"PD4", "PD3",	  "PD2", "PD1",
				  "PD0", "bigPT", "PT"};

	return l < 7 ? n[l] : "?";
}

static void show_walk(struct nvl_model *m, const struct nvl_model_vmctx *ctx,
		      uint64_t va)
{
	struct nvl_model_walk_trace tr;
	struct nvl_model_xlate x;

	nvl_model_mmu_walk(m, ctx, va, NVL_HW_FAULT_ACCESS_READ, &x, &tr);
	printf("  walk of %#" PRIx64 ":\n", va);
	for (unsigned int i = 0; i < tr.n; i++) {
		printf("    %-5s @%#010" PRIx64 "[%3u] = %016" PRIx64,
		       level_name(tr.step[i].level), tr.step[i].table,
		       tr.step[i].index, tr.step[i].lo);
		if (tr.step[i].level == 4 /* PD0: dual entry */)
			printf(" %016" PRIx64 " (big | small)", tr.step[i].hi);
		printf("\n");
	}
	if (x.state == NVL_MODEL_XLATE_MAPPED)
		printf("    -> VRAM %#" PRIx64 " (%u KiB page)\n", x.pa,
		       1u << (x.page_shift - 10));
	else
		printf("    -> %s\n",
		       x.state == NVL_MODEL_XLATE_SPARSE ? "sparse" : "fault");
}

NVL_DEMO_STEP(60, mmu)
{
	struct nvl_model *m = NULL;
	struct nvl_nv_ptmem *pm = NULL;
	struct nvl_nv_gmmu *g = NULL;
	struct nvl_gpuvm *vm = NULL;
	struct nvl_nv_gmmu_args ga = {0};
	struct nvl_gpuvm_args va = {0};
	struct nvl_model_vmctx ctx;
	struct dbo bo = {.pa = 16 * MIB};
	uint64_t base = 1ull << 32, v = 0x600d, got = 0;
	int ret;

	nvl_kref_init(&bo.base.ref);
	bo.base.size_B = 8 * MIB;
	bo.base.ops = &dbo_ops;
	nvl_list_init(&bo.base.gpuva.list);
	ret = nvl_model_create(nvl_model_profile_find("tiny"), &m);
	if (!ret)
		ret = nvl_nv_ptmem_create(nvl_model_hw(m), 192 * MIB, 32 * MIB,
					  &pm);
	if (ret)
		goto out;
	ret = nvl_nv_gmmu_probe(nvl_model_hw(m), &ga);
	if (ret)
		goto out;
	ga.mem = &nvl_nv_ptmem_ops;
	ga.mem_priv = pm;
	ret = nvl_nv_gmmu_create(&ga, &g);
	if (ret)
		goto out;
	va.name = "demo";
	va.start = base;
	va.end = base + (1ull << 30);
	va.page_shift = 12;
	va.big_page_shifts = nvl_nv_gmmu_big_page_shifts(g);
	va.pt_ops = &nvl_pt_ops;
	va.pt_priv = nvl_nv_gmmu_pt(g);
	ret = nvl_gpuvm_create(&va, &vm);
	if (ret)
		goto out;
	ctx.pdb = nvl_nv_gmmu_pdb(g);
	ctx.aperture = NVL_HW_APERTURE_VIDMEM;
	ctx.version = ga.version;
	printf("  GPUVM -> NVIDIA v%u page tables in VRAM, root (PDB) at "
	       "%#" PRIx64 "\n",
	       ctx.version, ctx.pdb);

	ret = bind_map(vm, base, 2 * MIB, &bo.base, 0); /* 2M */
	if (!ret)
		ret = bind_map(vm, base + 2 * MIB, 256 << 10, &bo.base,
			       4 * MIB); /* 64K */
	if (!ret)
		ret = bind_map(vm, base + 2 * MIB + (512 << 10), 12 << 10,
			       &bo.base, 6 * MIB + 4096); /* 4K */
	if (ret)
		goto out;
	show_walk(m, &ctx, base + 0x1234);
	show_walk(m, &ctx, base + 2 * MIB + 0x10000);
	show_walk(m, &ctx, base + 2 * MIB + (512 << 10) + 4096);

	printf("  TLB: write %#" PRIx64 " at %#" PRIx64
	       "; unmap its PTE without an invalidate\n",
	       v, (uint64_t)(base + 2 * MIB + 0x10000));
	nvl_model_vm_access(m, &ctx, base + 2 * MIB + 0x10000, &v, 8, true,
			    NVL_HW_MMU_ENGINE_CE(0), 0);
	nvl_pt_unmap(nvl_nv_gmmu_pt(g), base + 2 * MIB, 256 << 10, 16, false);
	ret = nvl_model_vm_access(m, &ctx, base + 2 * MIB + 0x10000, &got, 8,
				  false, NVL_HW_MMU_ENGINE_CE(0), 0);
	printf("    copy engine reads it anyway: %s, value %#" PRIx64
	       " (stale TLB entry)\n",
	       ret ? "fault" : "ok", got);
	nvl_pt_flush(nvl_nv_gmmu_pt(g), base + 2 * MIB, 256 << 10);
	ret = nvl_model_vm_access(m, &ctx, base + 2 * MIB + 0x10000, &got, 8,
				  false, NVL_HW_MMU_ENGINE_CE(0), 0);
	printf("    after MMU_INVALIDATE: %s\n",
	       ret == -EFAULT ? "MMU fault (PTE), as it should"
			      : "still mapped!");
	ret = ret == -EFAULT ? 0 : -EIO;
	/* put the PTEs back so that GPUVM's teardown matches the tables */
	nvl_pt_map(nvl_nv_gmmu_pt(g), base + 2 * MIB, 256 << 10, 16, &bo.base,
		   4 * MIB, 0);
	nvl_pt_flush(nvl_nv_gmmu_pt(g), base + 2 * MIB, 256 << 10);
out:
	if (vm)
		nvl_gpuvm_destroy(vm);
	nvl_nv_gmmu_destroy(g);
	nvl_nv_ptmem_destroy(pm);
	nvl_model_destroy(m);
	return ret;
}

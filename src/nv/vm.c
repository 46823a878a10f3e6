// SPDX-License-Identifier: MIT
/*
 * DOC: device VMs
 *
 * A VM of a device client writes NVIDIA page tables (gmmu.c) into the
 * device's table memory in VRAM; every commit ends with the format's TLB
 * invalidate (MMU_INVALIDATE registers) through the page-table layer's
 * flush. The VA space is also an RM object: FERMI_VASPACE_A under the
 * driver's device, IS_EXTERNALLY_OWNED (the driver owns every page table,
 * RM allocates no VA in it), with its root page directory bound by
 * NV0080_CTRL_CMD_DMA_SET_PAGE_DIRECTORY (numEntries: all the root's
 * entries), so that RM's channels on it walk the same tables (the
 * instance block's PDB). The backend forwards
 * the generic page-table ops to the gmmu's struct nvl_pt, keeping its own
 * struct as the backend's private data. A VM created FAULTABLE is a VA
 * space with ENABLE_PAGE_FAULTING: RM sets FAULT_REPLAY_TEX/GCC in the
 * instance blocks of its channels (nv/replay.c services the faults).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>

#include "base/alloc.h"
#include "base/log.h"
#include "gspabi.h"
#include "gsp/rm.h"
#include "hw/mmu.h"
#include "nv/device.h"
#include "nv/gmmu.h"
#include "nv/ptmem.h"
#include "nv/vm.h"
#include "vm/pt/pt.h"
#include "vm/pt_backend.h"
#include "vm/vm.h"

static struct nvl_pt *pt_of(void *priv)
{
	return nvl_nv_gmmu_pt(((struct nvl_nv_vm *)priv)->gmmu);
}

/* a lost device takes no more page-table changes, nor does a VM made
 * before a reset (its RM VA space went with that firmware) */
static bool lost(void *p)
{
	struct nvl_nv_vm *v = p;

	return atomic_load(&v->dev->lost) ||
	       v->gen != atomic_load(&v->dev->gen);
}

static int f_get(void *p, uint64_t va, uint64_t range, unsigned int shift)
{
	if (lost(p))
		return nvl_error(-ENODEV, "vm: the device is lost");
	return nvl_pt_ops.get(pt_of(p), va, range, shift);
}

static void f_put(void *p, uint64_t va, uint64_t range, unsigned int shift)
{
	nvl_pt_ops.put(pt_of(p), va, range, shift);
}

static void f_map(void *p, uint64_t va, uint64_t range, unsigned int shift,
		  struct nvl_gem_object *obj, uint64_t off, uint32_t flags)
{
	nvl_pt_ops.map(pt_of(p), va, range, shift, obj, off, flags);
}

static void f_unmap(void *p, uint64_t va, uint64_t range, unsigned int shift,
		    bool to_sparse)
{
	nvl_pt_ops.unmap(pt_of(p), va, range, shift, to_sparse);
}

static void f_sparse(void *p, uint64_t va, uint64_t range, bool enable)
{
	nvl_pt_ops.sparse(pt_of(p), va, range, enable);
}

static void f_flush(void *p, uint64_t va, uint64_t range)
{
	nvl_pt_ops.flush(pt_of(p), va, range);
}

static int f_take_error(void *p)
{
	int err = nvl_pt_ops.take_error ? nvl_pt_ops.take_error(pt_of(p)) : 0;

	return !err && lost(p) ? -ENODEV : err;
}

static unsigned int f_page_shift(void *p, struct nvl_gem_object *obj,
				 uint64_t off, uint64_t va, uint64_t range,
				 unsigned int max_shift)
{
	if (!nvl_pt_ops.page_shift)
		return max_shift;
	return nvl_pt_ops.page_shift(pt_of(p), obj, off, va, range, max_shift);
}

static int f_get_region(void *p, uint64_t va, uint64_t range)
{
	if (lost(p))
		return nvl_error(-ENODEV, "vm: the device is lost");
	return nvl_pt_ops.get_region(pt_of(p), va, range);
}

/*
 * The tables live in VRAM, saved and written back over a suspend. A lost
 * device (or a VM of the firmware before a reset) refuses every bind here,
 * before anything changes: an UNMAP gets no page tables, so it would reach
 * its commit and fail only there, its mapping gone and the VM banned.
 */
static int f_ready(void *p)
{
	struct nvl_nv_device *d = ((struct nvl_nv_vm *)p)->dev;

	if (lost(p))
		return nvl_error(-ENODEV, "vm: the device is lost");
	if (atomic_load(&d->suspended))
		return nvl_error(-EAGAIN, "vm: the device is suspended");
	return 0;
}

static void f_put_region(void *p, uint64_t va, uint64_t range)
{
	nvl_pt_ops.put_region(pt_of(p), va, range);
}

static const struct nvl_vm_pt_ops nv_vm_ops = {
	.get = f_get,
	.put = f_put,
	.map = f_map,
	.unmap = f_unmap,
	.sparse = f_sparse,
	.flush = f_flush,
	.take_error = f_take_error,
	.page_shift = f_page_shift,
	.get_region = f_get_region,
	.put_region = f_put_region,
	.ready = f_ready,
};

/*
 * RM forgets the VA space first: no channel of it may walk on. Its root
 * is taken back before the space is freed, as Nouveau's r535 vmm does
 * (r535_mmu_vaspace_del(): UNSET_PAGE_DIRECTORY of an externally owned
 * space, then the free); RM's free would revoke it too
 * (_gvaspaceGpuStateDestruct()), the unset is the documented order and
 * lets RM point the space's channel groups away from the tables
 * (deviceCtrlCmdDmaUnsetPageDirectory_IMPL()) while they still exist.
 * A refusal is logged and the free goes on.
 */
static void vm_free(struct nvl_nv_vm *v, bool rm)
{
	struct nvl_nv_device *d = v->dev;

	if (rm && v->h_vas && v->gen == atomic_load(&d->gen) &&
	    !atomic_load(&d->lost)) {
		struct gspabi_unset_page_directory up = {.hVASpace = v->h_vas};

		if (v->root_set &&
		    nvl_gsp_rm_control_abi(
			    d->gsp, d->h_device,
			    GSPABI_K_CONTROL_NV0080_CTRL_CMD_DMA_UNSET_PAGE_DIRECTORY,
			    GSPABI_S_UNSET_PAGE_DIRECTORY, &up))
			nvl_warn(NVL_CAT_NV,
				 "vm: taking the RM VA space's root back: %s",
				 nvl_error_msg());
		if (nvl_gsp_rm_free(d->gsp, v->h_vas))
			nvl_warn(NVL_CAT_NV, "vm: freeing the RM VA space: %s",
				 nvl_error_msg());
	}
	nvl_nv_gmmu_destroy(v->gmmu);
	pthread_mutex_destroy(&v->kmap_lock);
	nvl_free(v);
}

/*
 * Suspended, RM takes no call (the free failed with a warning and the VA
 * space stayed in RM for good): the whole VM waits for the resume, as a
 * channel destroyed then does (nvl_nv_chan_finish_deferred()).
 */
static void nv_vm_release(void *priv)
{
	struct nvl_nv_vm *v = priv;
	struct nvl_nv_device *d = v->dev;

	if (v->vm) {
		nvl_flock_lock(&d->vms_lock);
		nvl_list_del(&v->dev_link);
		nvl_flock_unlock(&d->vms_lock);
		v->vm = NULL;
	}
	if (v->h_vas && atomic_load(&d->suspended)) {
		nvl_flock_lock(&d->chan_lock);
		nvl_list_add_tail(&v->deferred, &d->vm_deferred);
		nvl_flock_unlock(&d->chan_lock);
		return;
	}
	vm_free(v, true);
}

/* the generic VM exists: on the device's list until its release */
static void nv_vm_attach(void *priv, struct nvl_vm *vm)
{
	struct nvl_nv_vm *v = priv;
	struct nvl_nv_device *d = v->dev;

	v->vm = vm;
	nvl_flock_lock(&d->vms_lock);
	nvl_list_add_tail(&v->dev_link, &d->vms);
	nvl_flock_unlock(&d->vms_lock);
}

/*
 * One VM at a time, with a reference and without the list's lock (the
 * rezap takes the VM's locks; a last put releases, which takes the list's
 * lock). The VM held keeps its place on the list, so the walk goes on from
 * it; a VM whose last reference went (its release not yet run) is passed
 * over: nothing maps through it any more.
 */
void nvl_nv_vms_rezap(struct nvl_nv_device *d)
{
	struct nvl_nv_vm *v, *cur = NULL;

	for (;;) {
		struct nvl_list *pos;

		v = NULL;
		nvl_flock_lock(&d->vms_lock);
		for (pos = cur ? cur->dev_link.next : d->vms.next;
		     pos != &d->vms; pos = pos->next) {
			struct nvl_nv_vm *w =
				container_of(pos, struct nvl_nv_vm, dev_link);

			if (nvl_vm_tryget(w->vm)) {
				v = w;
				break;
			}
		}
		nvl_flock_unlock(&d->vms_lock);
		if (cur)
			nvl_vm_put(cur->vm);
		if (!v)
			return;
		nvl_gpuvm_rezap_evicted(v->vm->gpuvm);
		cur = v;
	}
}

void nvl_nv_vm_finish_deferred(struct nvl_nv_device *d, bool rm)
{
	for (;;) {
		struct nvl_nv_vm *v = NULL;

		nvl_flock_lock(&d->chan_lock);
		if (!nvl_list_empty(&d->vm_deferred)) {
			v = nvl_list_first_entry(&d->vm_deferred,
						 struct nvl_nv_vm, deferred);
			nvl_list_del(&v->deferred);
		}
		nvl_flock_unlock(&d->chan_lock);
		if (!v)
			return;
		vm_free(v, rm);
	}
}

/* an RM call's error, said as what RM refused */
static int refused(int err, const char *what)
{
	char why[256];

	snprintf(why, sizeof(why), "%s", nvl_error_msg());
	return nvl_error(err, "vm: RM refused %s: %s", what, why);
}

int nvl_nv_vm_backend(struct nvl_client_dev *cdev, struct nvl_vm_backend *out)
{
	struct nvl_nv_device *d =
		container_of(cdev, struct nvl_nv_device, cdev);
	struct nvl_nv_gmmu_args ga = {0};
	struct gspabi_vaspace_alloc vp = {0};
	struct gspabi_set_page_directory pd = {0};
	struct nvl_hw_mmu_geom root;
	struct nvl_nv_vm *v;
	int ret;

	if (atomic_load(&d->lost))
		return nvl_error(-ENODEV, "vm: the device is lost");
	v = nvl_zalloc(sizeof(*v));
	if (!v)
		return -ENOMEM;
	v->dev = d;
	v->gen = atomic_load(&d->gen);
	pthread_mutex_init(&v->kmap_lock, NULL);
	ret = nvl_nv_gmmu_probe(d->hw, &ga);
	if (ret)
		goto fail;
	ga.mem = &nvl_nv_ptmem_ops;
	ga.mem_priv = d->ptmem;
	ga.any_backing = true;
	ret = nvl_nv_gmmu_create(&ga, &v->gmmu);
	if (ret)
		goto fail;
	/* the whole VA the format's root spans: v2 4 x 2^47, v3 2 x 2^56 */
	root = d->chip->mmu_version == 3
		       ? (struct nvl_hw_mmu_geom)NVL_HW_MMU_GEOM_PD4
		       : (struct nvl_hw_mmu_geom)NVL_HW_MMU_GEOM_PD3_V2;
	vp.index = GSPABI_K_NV_VASPACE_ALLOCATION_INDEX_GPU_NEW;
	vp.vaSize = 1ull << (root.shift + root.bits);
	vp.bigPageSize = 64 << 10;
	/* the driver owns every page table, RM none (docs/driver.md) */
	vp.flags = GSPABI_K_NV_VASPACE_ALLOCATION_FLAGS_IS_EXTERNALLY_OWNED;
	/* on-demand paging: RM makes the channels' SM faults replayable */
	if (out->create_flags & NVL_VM_CREATE_FAULTABLE)
		vp.flags |=
			GSPABI_K_NV_VASPACE_ALLOCATION_FLAGS_ENABLE_PAGE_FAULTING;
	ret = nvl_gsp_rm_alloc_abi(d->gsp, d->h_device,
				   GSPABI_K_FERMI_VASPACE_A,
				   GSPABI_S_VASPACE_ALLOC, &vp, &v->h_vas);
	if (ret) {
		ret = refused(ret, "the VA space");
		goto fail;
	}
	/* RM's VA limit is root entry numEntries - 1's last VA: all of
	 * them, as vaSize */
	pd.physAddress = nvl_nv_gmmu_pdb(v->gmmu);
	pd.numEntries = 1u << root.bits;
	pd.hVASpace = v->h_vas;
	pd.flags =
		GSPABI_K_NV0080_CTRL_DMA_SET_PAGE_DIRECTORY_FLAGS_APERTURE_VIDMEM;
	ret = nvl_gsp_rm_control_abi(
		d->gsp, d->h_device,
		GSPABI_K_CONTROL_NV0080_CTRL_CMD_DMA_SET_PAGE_DIRECTORY,
		GSPABI_S_SET_PAGE_DIRECTORY, &pd);
	if (ret) {
		/* vm_free() frees the VA space: nothing stays bound */
		ret = refused(ret, "the VA space's page directory");
		goto fail;
	}
	v->root_set = true;
	*out = (struct nvl_vm_backend){
		.ops = &nv_vm_ops,
		.priv = v,
		.release = nv_vm_release,
		.attach = nv_vm_attach,
		.big_page_shifts = nvl_nv_gmmu_big_page_shifts(v->gmmu),
		.va_end = vp.vaSize,
	};
	return 0;
fail:
	vm_free(v, true);
	return ret;
}

struct nvl_nv_vm *nvl_nv_vm_of(struct nvl_vm *vm)
{
	return vm->backend.ops == &nv_vm_ops ? vm->backend.priv : NULL;
}

int nvl_nv_vm_kmap(struct nvl_vm *vm, uint64_t va, uint64_t pa, uint64_t size)
{
	struct nvl_nv_vm *v = nvl_nv_vm_of(vm);
	struct nvl_gpuvm *g = vm->gpuvm;
	struct nvl_pt_page pg = {NVL_GEM_DOMAIN_VRAM, pa, 0};
	struct nvl_pt *pt;
	int ret;

	if (!v || va < g->kstart || va + size > g->kend || (va | size) & 4095)
		return nvl_error(-EINVAL,
				 "vm: kernel mapping [%#llx, +%#llx) outside "
				 "the VM's kernel range",
				 (unsigned long long)va,
				 (unsigned long long)size);
	pt = nvl_nv_gmmu_pt(v->gmmu);
	/* GPUVM never writes the kernel range; its lock orders our table
	 * writes with its binds' */
	nvl_flock_lock(&g->lock);
	ret = nvl_pt_get(pt, va, size, 12);
	if (!ret) {
		nvl_pt_map_pages(pt, va, size, 12, &pg);
		ret = nvl_pt_flush(pt, va, size);
		if (ret) {
			/* the TLB did not take it: undo (the tables stay
			 * out of reuse, see nvl_pt_args.invalidate) */
			nvl_pt_unmap(pt, va, size, 12, false);
			(void)nvl_pt_flush(pt, va, size);
			nvl_pt_put(pt, va, size, 12);
			ret = nvl_error(ret,
					"vm: kernel mapping [%#llx, +%#llx): "
					"TLB invalidate failed",
					(unsigned long long)va,
					(unsigned long long)size);
		}
	}
	nvl_flock_unlock(&g->lock);
	return ret;
}

void nvl_nv_vm_kunmap(struct nvl_vm *vm, uint64_t va, uint64_t size)
{
	struct nvl_nv_vm *v = nvl_nv_vm_of(vm);
	struct nvl_pt *pt = nvl_nv_gmmu_pt(v->gmmu);

	nvl_flock_lock(&vm->gpuvm->lock);
	nvl_pt_unmap(pt, va, size, 12, false);
	/* a failed invalidate keeps the tables out of reuse (logged) */
	(void)nvl_pt_flush(pt, va, size);
	nvl_pt_put(pt, va, size, 12);
	nvl_flock_unlock(&vm->gpuvm->lock);
}

/* SPDX-License-Identifier: MIT */
/*
 * VMs of a device's clients: NVIDIA page tables in VRAM (gmmu.c over the
 * device's table memory), the VA space registered with RM
 * (FERMI_VASPACE_A + SET_PAGE_DIRECTORY), a TLB invalidate after every
 * bind (the format's invalidate hook), and kernel mappings in the VM's
 * kernel-reserved range (channel rings and semaphores).
 */
#ifndef NVL_NV_VM_H
#define NVL_NV_VM_H

#include <pthread.h>
#include <stdint.h>

#include "base/compiler.h"
#include "mm/gem.h"

struct nvl_nv_device;
struct nvl_nv_gmmu;
struct nvl_vm;
struct nvl_vm_backend;

/** struct nvl_nv_vm - the driver's side of one VM. */
struct nvl_nv_vm {
	struct nvl_nv_device *dev;
	struct nvl_nv_gmmu *gmmu;
	/** @h_vas: the RM VA-space object */
	uint32_t h_vas;
	/** @gen: the GSP generation of @h_vas (nvl_nv_device.gen) */
	uint32_t gen;
	/** @root_set: RM took the root (SET_PAGE_DIRECTORY): taken back
	 * (UNSET_PAGE_DIRECTORY) before the VA space is freed */
	bool root_set;
	/** @kmap_lock: kernel mappings (channel create/destroy) */
	pthread_mutex_t kmap_lock;
	/** @deferred: on nvl_nv_device.vm_deferred (released while the
	 * device was suspended: RM takes no call) */
	struct nvl_list deferred;
	/** @vm: the generic VM, from its attach to its release (no
	 * reference: nvl_vm_tryget()); NULL before */
	struct nvl_vm *vm;
	/** @dev_link: on nvl_nv_device.vms while @vm is set (vms_lock) */
	struct nvl_list dev_link;
};

/**
 * nvl_nv_vm_backend() - the VM backend factory (nvl_client_dev.vm_backend
 * of the driver's devices): page tables and an RM VA space for a new VM of
 * a client of the device that embeds @cdev (NVL_VM_CREATE_FAULTABLE in
 * @out->create_flags: a page-faulting VA space).
 * Return: 0, -ENOMEM, or an RM error.
 */
int nvl_nv_vm_backend(struct nvl_client_dev *cdev, struct nvl_vm_backend *out);

/**
 * nvl_nv_vm_of() - the driver's VM behind a generic VM, or NULL when @vm
 * was not made by nvl_nv_vm_backend().
 */
struct nvl_nv_vm *nvl_nv_vm_of(struct nvl_vm *vm);

/**
 * nvl_nv_vm_finish_deferred() - free the VMs released while the device was
 * suspended: their RM VA spaces when @rm (the resume), then their tables
 * (@rm false: a device closed while suspended, RM gone with it).
 */
void nvl_nv_vm_finish_deferred(struct nvl_nv_device *d, bool rm);

/**
 * nvl_nv_vms_rezap() - after the resume wrote the page tables back: in
 * every VM of @d (nvl_nv_device.vms: with channels or without), invalidate
 * again the mappings of each vm_bo on its evict list
 * (nvl_gpuvm_rezap_evicted()), which the tables saved at the suspend may
 * name where their objects no longer are. Takes each VM's locks in turn,
 * none of them under @d's.
 */
void nvl_nv_vms_rezap(struct nvl_nv_device *d);

/**
 * nvl_nv_vm_kmap() - map @size bytes of VRAM at @pa to @va of @vm's
 * kernel range (4 KiB pages) and invalidate the TLB.
 * Return: 0, -EINVAL (outside the kernel range), -ENOMEM, -ETIMEDOUT.
 */
int nvl_nv_vm_kmap(struct nvl_vm *vm, uint64_t va, uint64_t pa,
		   uint64_t size) NVL_MUST_CHECK;

/** nvl_nv_vm_kunmap() - undo nvl_nv_vm_kmap(). */
void nvl_nv_vm_kunmap(struct nvl_vm *vm, uint64_t va, uint64_t size);

#endif /* NVL_NV_VM_H */

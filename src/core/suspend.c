// SPDX-License-Identifier: MIT
/*
 * DOC: suspend to RAM (uAPI)
 *
 * nvl_device_suspend() plays what the kernel's PM core and a DRM driver's
 * suspend hook do together: stop the heartbeat, let running jobs finish
 * (bounded: src/nv/suspend.c), evict every BO from VRAM through the
 * memory manager (the same LRU eviction memory pressure uses; the move
 * worker copies them to GTT) and wait for the copies, save the driver's
 * VRAM and the firmware's state (src/nv/suspend.c, src/gsp/suspend.c),
 * then cut the board's power (the model's D3cold: every byte of VRAM is
 * lost, as on a real GPU in S3). nvl_device_resume() does the reverse;
 * the BOs return to VRAM when an EXEC next uses them.
 */
#include <errno.h>
#include <time.h>

#include "base/client.h"
#include "base/log.h"
#include "base/time.h"
#include "core/device.h"
#include "mm/bo.h"
#include "model/model.h"
#include "nouvelle/device.h"
#include "nv/chan.h"
#include "nv/device.h"
#include "vm/vm.h"

/*
 * Has a VM of @c (by its handle, or by a bind queue's) async binds still to
 * finish? Each VM is looked at with a reference, outside the client's lock.
 * (A VM whose handles are gone but a channel holds: wait_binds() asks the
 * channels.)
 */
static bool client_binds_pending(struct nvl_client *c)
{
	static const enum nvl_handle_kind kinds[] = {NVL_HANDLE_VM,
						     NVL_HANDLE_BIND_QUEUE};

	for (unsigned k = 0; k < NVL_ARRAY_SIZE(kinds); k++) {
		uint32_t id = 1;
		void *obj;

		for (;;) {
			struct nvl_vm *vm = NULL;
			bool busy;

			nvl_client_lock(c);
			id = nvl_idr_next(&c->tables[kinds[k]], id, &obj);
			if (id) {
				vm = kinds[k] == NVL_HANDLE_VM
					     ? obj
					     : nvl_vm_queue_vm(obj);
				nvl_vm_get(vm);
			}
			nvl_client_unlock(c);
			if (!id)
				break;
			busy = nvl_vm_binds_pending(vm);
			nvl_vm_put(vm);
			if (busy)
				return true;
			id++;
		}
	}
	return false;
}

/*
 * The page tables are saved and written back over a suspend, so no bind
 * may write them meanwhile: new ones are refused (-EAGAIN, the VM
 * backend's ready op) and queued ones must be done first. Wait for them
 * up to @bound_ns; -EBUSY when some are still pending then (waiting on a
 * syncobj nobody signalled), as for jobs.
 */
static int wait_binds(struct nvl_device *dev, int64_t bound_ns)
{
	int64_t deadline = nvl_time_ns() + bound_ns;

	for (;;) {
		struct nvl_client *c;
		bool busy = false;

		pthread_mutex_lock(&dev->clients_lock);
		nvl_list_for_each_entry (c, &dev->clients, dev_node) {
			busy = client_binds_pending(c);
			if (busy)
				break;
		}
		pthread_mutex_unlock(&dev->clients_lock);
		/* and the VMs only a channel still holds */
		if (!busy)
			busy = nvl_nv_chan_vms_binds_pending(dev->nv);
		if (!busy)
			return 0;
		if (nvl_time_ns() >= deadline)
			return nvl_error(-EBUSY, "device: suspend: VM binds "
						 "still pending");
		nanosleep(&(struct timespec){.tv_nsec = 1000 * 1000}, NULL);
	}
}

NVL_API int nvl_device_suspend(struct nvl_device *dev)
{
	int64_t bound;
	int ret;

	if (!dev)
		return nvl_error(-EINVAL, "device: NULL device");
	/* lost first: a device lost while suspended needs a reset */
	if (nvl_nv_device_check(dev->nv))
		return nvl_error(-ENODEV,
				 "device: suspend: the device is lost");
	if (atomic_load(&dev->nv->suspended))
		return nvl_error(-EALREADY, "device: already suspended");
	/* half the job timeout: a job that makes no progress longer than
	 * that is a hang for the channel's own recovery, not for us */
	bound = dev->nv->job_timeout_ns / 2;
	nvl_device_wd_stop(dev);
	ret = nvl_nv_chan_quiesce(dev->nv, bound);
	if (!ret)
		ret = wait_binds(dev, bound);
	/* every BO out of VRAM, by the ordinary eviction, and none back in
	 * (VRAM is lost in D3cold): VRAM placements fail -EAGAIN */
	if (!ret)
		atomic_store(&dev->mm->vram_off, true);
	/* the LRUs and the usage counters are the memory manager's, under
	 * its lock (one eviction at a time: other threads get in between) */
	while (!ret) {
		nvl_mutex_lock(&dev->mm->lock);
		ret = nvl_mm_evict_one(dev->mm, NVL_GEM_DOMAIN_VRAM, NULL, 0);
		nvl_mutex_unlock(&dev->mm->lock);
	}
	if (ret == -ENOSPC)
		ret = nvl_mm_wait_idle(dev->mm, bound)
			      ? nvl_error(-EBUSY, "device: suspend: BO moves "
						  "still running")
			      : 0;
	if (!ret) {
		uint64_t left;

		nvl_mutex_lock(&dev->mm->lock);
		left = dev->mm->used_B[NVL_GEM_DOMAIN_VRAM];
		nvl_mutex_unlock(&dev->mm->lock);
		if (left)
			ret = nvl_error(-EBUSY,
					"device: suspend: %llu bytes of BOs "
					"mapped or pinned in VRAM cannot move",
					(unsigned long long)left);
	}
	if (!ret)
		ret = nvl_nv_device_suspend(dev->nv, bound);
	if (!ret) {
		ret = nvl_model_power_cycle(dev->model);
		if (ret)
			nvl_warn(NVL_CAT_NV,
				 "device: the board kept power (%d)", ret);
		return 0;
	}
	atomic_store(&dev->mm->vram_off, false);
	if (nvl_device_wd_start(dev))
		nvl_warn(NVL_CAT_NV, "device: no watchdog after a failed "
				     "suspend");
	return ret;
}

NVL_API int nvl_device_resume(struct nvl_device *dev)
{
	int ret;

	if (!dev)
		return nvl_error(-EINVAL, "device: NULL device");
	ret = nvl_nv_device_resume(dev->nv);
	if (ret)
		return ret;
	atomic_store(&dev->mm->vram_off, false);
	/* the device is resumed and works: the heartbeat is not essential to
	 * that (a dead GSP is then found by the next call that meets it),
	 * and the next suspend and resume, or a reset, start it again */
	if (nvl_device_wd_start(dev))
		nvl_warn(NVL_CAT_NV, "device: resumed without a watchdog: %s",
			 nvl_error_msg());
	return 0;
}

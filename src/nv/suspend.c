// SPDX-License-Identifier: MIT
/*
 * DOC: device suspend and resume (the driver's half)
 *
 * A suspend to RAM puts the GPU in D3cold: VRAM loses its contents. What
 * lives there and must come back:
 *
 *  - BOs: the caller (the device, src/core) moves every one out with the
 *    memory manager's ordinary eviction (to GTT, copied by the move
 *    worker); EXEC brings them back on first use, as after any eviction;
 *  - the firmware's state (WPR2): the GSP saves it through GspFwSRMeta
 *    (gsp/suspend.c);
 *  - the driver's own structures: page tables and the channel window
 *    (USERD, GPFIFO rings, semaphores): copied here to system memory and
 *    back, as nouveau's instmem keeps a sysmem copy of its objects.
 *
 * Jobs in flight: the suspend waits for them, bounded; still running at
 * the bound, it fails -EBUSY with nothing changed. While suspended new
 * channels and execs fail -EAGAIN (the caller quiesces its submitters, as
 * for a reset).
 */
#include <errno.h>

#include "base/alloc.h"
#include "base/log.h"
#include "gsp/boot.h"
#include "gsp/gsp.h"
#include "nv/chan.h"
#include "nv/device.h"
#include "nv/vm.h"

/* the driver's VRAM above the BOs: page tables, then the channel window */
static void driver_vram(struct nvl_nv_device *d, uint64_t *base, size_t *size)
{
	*base = d->vram_base + d->mm_size;
	*size = (size_t)(d->chan_base - *base) +
		(size_t)NVL_NV_CHAN_SLOTS * NVL_NV_CHAN_SLOT_SIZE;
}

int nvl_nv_device_suspend(struct nvl_nv_device *d, int64_t timeout_ns)
{
	uint64_t base;
	size_t size;
	void *buf;
	int ret;

	if (nvl_nv_device_check(d))
		return nvl_error(-ENODEV,
				 "device: suspend: the device is lost");
	if (atomic_load(&d->suspended))
		return nvl_error(-EALREADY, "device: already suspended");
	ret = nvl_nv_chan_quiesce(d, timeout_ns);
	if (ret)
		return ret;
	driver_vram(d, &base, &size);
	buf = nvl_malloc(size);
	if (!buf)
		return nvl_error(-ENOMEM,
				 "device: suspend: no system memory for "
				 "%zu bytes of page tables and channels",
				 size);
	ret = nvl_hw_vram_read(d->hw, base, buf, size);
	if (ret) {
		nvl_free(buf);
		return nvl_error(ret, "device: suspend: cannot read VRAM");
	}
	atomic_store(&d->suspended, true);
	ret = nvl_gsp_suspend(d->gsp);
	if (ret) {
		atomic_store(&d->suspended, false);
		nvl_free(buf);
		nvl_nv_device_check(d); /* lost if the firmware went */
		return ret;
	}
	d->saved = buf;
	d->saved_size = size;
	nvl_info(NVL_CAT_NV, "device %s: suspended", d->name);
	return 0;
}

int nvl_nv_device_resume(struct nvl_nv_device *d)
{
	uint64_t base;
	size_t size;
	int ret;

	if (nvl_nv_device_check(d))
		return nvl_error(-ENODEV, "device: resume: the device is lost "
					  "(reset it)");
	if (!atomic_load(&d->suspended) || !d->saved)
		return nvl_error(-EINVAL, "device: resume: not suspended");
	ret = nvl_gsp_resume(d->gsp);
	if (ret) {
		/* lost if the firmware is in no state for another resume (a
		 * booter that did not halt): only a reset brings it back */
		nvl_nv_device_check(d);
		return ret;
	}
	driver_vram(d, &base, &size);
	ret = nvl_hw_vram_write(d->hw, base, d->saved, d->saved_size);
	if (ret) {
		/* the firmware runs but the driver's tables are gone */
		nvl_nv_device_lost(d, "resume could not restore VRAM");
		return nvl_error(ret, "device: resume: cannot write VRAM");
	}
	nvl_free(d->saved);
	d->saved = NULL;
	/*
	 * The tables are those of the suspend: what the unmap hook
	 * invalidated since they were read (a purge or swap-out while
	 * suspended, or between the read above and 'suspended') is mapped
	 * again; invalidate it again before any channel runs, in every VM of
	 * the device (one no channel uses too: nothing else would take its
	 * entries off before its next exec).
	 */
	nvl_nv_vms_rezap(d);
	atomic_store(&d->suspended, false);
	/* the channels destroyed meanwhile, now that RM and VRAM are back */
	nvl_nv_chan_finish_deferred(d, true);
	nvl_nv_vm_finish_deferred(d, true);
	nvl_info(NVL_CAT_NV, "device %s: resumed", d->name);
	return 0;
}

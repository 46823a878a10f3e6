// SPDX-License-Identifier: MIT
/*
 * DOC: device probe
 *
 * What a GSP-era driver does at probe, through the hardware interface
 * only: BOOT_0 names the chip (chip.c); the chip names its firmware
 * directory and the versions the driver accepts; the GSP boots (src/gsp);
 * GET_GSP_STATIC_INFO says how much FB there is, which regions of it RM
 * keeps, how many channels and copy engines there are and their classes.
 * The driver then makes its own RM client (NV01_ROOT), device
 * (NV01_DEVICE_0) and subdevice (NV20_SUBDEVICE_0), the parents of every
 * VA space and channel it allocates later.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "base/alloc.h"
#include "base/log.h"
#include "base/time.h"
#include "gspabi.h"
#include "gsp/gsp.h"
#include "gsp/image.h"
#include "gsp/rm.h"
#include "hw/regs.h"
#include "nv/chan.h"
#include "nv/device.h"
#include "nv/ptmem.h"
#include "nv/vm.h"

static const char *const fw_535[] = {"535.113.01", NULL};
/* gh100's images are built for 570.144 only (docs/gsp-firmware.md) */
static const char *const fw_gh100[] = {"570.144", NULL};

/* chip id (BOOT_0 28:20) → firmware directory and accepted versions */
static const struct {
	uint32_t id;
	const char *name;
	const char *const *fw;
} fw_chips[] = {
	{0x162, "tu102", fw_535},
	/* the model's small Turing test board: TU117's id, own directory */
	{0x167, "tiny", fw_535},
	{0x172, "ga102", fw_535},
	{0x192, "ad102", fw_535},
	{0x180, "gh100", fw_gh100},
};

const char *const *nvl_nv_fw_versions(const char *name)
{
	for (size_t i = 0; name && i < NVL_ARRAY_SIZE(fw_chips); i++)
		if (!strcmp(fw_chips[i].name, name))
			return fw_chips[i].fw;
	return NULL;
}

/* the FB regions RM gives the driver: take the largest usable one */
static int pick_fb(struct nvl_nv_device *d)
{
	struct gspabi_fb_regions *fr;
	const struct gspabi_version *abi = nvl_gsp_abi(d->gsp);
	size_t esz = abi->structs[GSPABI_S_FB_REGION].wire_size;
	int ret;

	fr = nvl_zalloc(sizeof(*fr));
	if (!fr)
		return nvl_error(-ENOMEM, "device: out of memory");
	ret = nvl_gsp_rm_control_abi(
		d->gsp, d->h_subdevice,
		GSPABI_K_CONTROL_NV2080_CTRL_CMD_FB_GET_FB_REGION_INFO,
		GSPABI_S_FB_REGIONS, fr);
	if (!ret &&
	    fr->numFBRegions >
		    GSPABI_K_NV2080_CTRL_CMD_FB_GET_FB_REGION_INFO_MEM_TYPES)
		ret = nvl_error(-EPROTO, "device: RM lists %u FB regions",
				fr->numFBRegions);
	for (unsigned i = 0; !ret && i < fr->numFBRegions; i++) {
		struct gspabi_fb_region region;
		const struct gspabi_fb_region *f = &region;

		/* the regions are raw bytes: one unpack each */
		if (!esz || (i + 1) * esz > sizeof(fr->fbRegion) ||
		    gspabi_unpack(abi, GSPABI_S_FB_REGION,
				  fr->fbRegion + i * esz, esz, &region)) {
			ret = nvl_error(-EPROTO,
					"device: FB region %u does "
					"not unpack",
					i);
			break;
		}

		if (f->bProtected || f->reserved || f->limit < f->base ||
		    f->limit >= d->boot.fb_size)
			continue;
		if (f->limit - f->base + 1 > d->vram_usable) {
			d->vram_base = f->base;
			d->vram_usable = f->limit - f->base + 1;
		}
	}
	nvl_free(fr);
	if (!ret && !d->vram_usable)
		ret = nvl_error(-EPROTO, "device: RM left no usable FB");
	return ret;
}

/*
 * The driver's FB, bottom up: BOs (the memory manager), page tables
 * (16 MiB), the channel window (NVL_NV_CHAN_SLOTS x 64 KiB).
 */
static int carve(struct nvl_nv_device *d)
{
	uint64_t pt = 16ull << 20;
	uint64_t ch = (uint64_t)NVL_NV_CHAN_SLOTS * NVL_NV_CHAN_SLOT_SIZE;

	if (d->vram_usable < 2 * (pt + ch))
		return nvl_error(-ENOSPC,
				 "device: %llu bytes of usable FB is "
				 "too little",
				 (unsigned long long)d->vram_usable);
	d->mm_size = d->vram_usable - pt - ch;
	d->chan_base = d->vram_base + d->mm_size + pt;
	return nvl_nv_ptmem_create(d->hw, d->vram_base + d->mm_size, pt,
				   &d->ptmem);
}

static int rm_objects(struct nvl_nv_device *d)
{
	struct gspabi_device_alloc dev = {0};
	struct gspabi_subdevice_alloc sub = {0};
	int ret;

	ret = nvl_gsp_rm_alloc(d->gsp, 0, GSPABI_K_NV01_ROOT, NULL, 0,
			       &d->h_client);
	if (!ret)
		ret = nvl_gsp_rm_alloc_abi(
			d->gsp, d->h_client, GSPABI_K_NV01_DEVICE_0,
			GSPABI_S_DEVICE_ALLOC, &dev, &d->h_device);
	if (!ret)
		ret = nvl_gsp_rm_alloc_abi(
			d->gsp, d->h_device, GSPABI_K_NV20_SUBDEVICE_0,
			GSPABI_S_SUBDEVICE_ALLOC, &sub, &d->h_subdevice);
	return ret;
}

/* the GSP was declared dead (rpc.c, any thread): tell the device's owner */
static void gsp_dead(void *arg)
{
	struct nvl_nv_device *d = arg;

	pthread_mutex_lock(&d->notify_lock);
	if (d->lost_notify)
		d->lost_notify(d->lost_notify_arg);
	pthread_mutex_unlock(&d->notify_lock);
}

void nvl_nv_device_set_lost_notify(struct nvl_nv_device *d,
				   void (*fn)(void *arg), void *arg)
{
	pthread_mutex_lock(&d->notify_lock);
	d->lost_notify = fn;
	d->lost_notify_arg = arg;
	pthread_mutex_unlock(&d->notify_lock);
}

static int boot(struct nvl_nv_device *d, const struct nvl_nv_probe_opts *o)
{
	const char *one[2] = {o ? o->fw_version : NULL, NULL};
	struct nvl_gsp_fw_opts fo = {
		.versions = one[0] ? one : d->fw_versions,
	};
	struct nvl_gsp_boot_report rep;
	struct nvl_gsp_image img;
	struct nvl_gsp_fw *fw;
	int ret;

	ret = nvl_gsp_fw_load(d->name, &fo, &fw);
	if (ret == -ENOENT && one[0] && o->fw_prefer) {
		nvl_info(NVL_CAT_NV,
			 "device: %s has no firmware %s: booting its own",
			 d->name, one[0]);
		fo.versions = d->fw_versions;
		ret = nvl_gsp_fw_load(d->name, &fo, &fw);
	}
	if (ret)
		return ret;
	snprintf(d->fw_version, sizeof(d->fw_version), "%s", fw->version);
	ret = nvl_gsp_create(d->hw, &d->gsp);
	if (ret) {
		nvl_gsp_fw_put(fw);
		return ret;
	}
	nvl_gsp_set_dead_notify(d->gsp, gsp_dead, d);
	if (o && o->boot_timeout_ns)
		nvl_gsp_set_boot_timeout(d->gsp, o->boot_timeout_ns);
	if (o && o->trace) {
		/* kept for a reset's new GSP */
		d->trace = o->trace;
		d->trace_arg = o->trace_arg;
		nvl_gsp_set_trace(d->gsp, o->trace, o->trace_arg);
	}
	nvl_gsp_image_from_fw(fw, &img);
	/* the report is the device's only once the boot worked: a failed
	 * reset leaves a lost device that still says what it is (query,
	 * memory, fdinfo), not the failed boot's zeroed report */
	ret = nvl_gsp_boot(d->gsp, &img, &rep);
	/* the GSP runs from its own copy in WPR2: the files can go */
	nvl_gsp_fw_put(fw);
	if (ret) {
		nvl_gsp_destroy(d->gsp);
		d->gsp = NULL;
		return ret;
	}
	d->boot = rep;
	return 0;
}

int nvl_nv_device_probe(struct nvl_hw *hw, const struct nvl_nv_probe_opts *o,
			struct nvl_nv_device **dev_out)
{
	struct nvl_nv_device *d;
	int ret;

	d = nvl_zalloc(sizeof(*d));
	if (!d)
		return nvl_error(-ENOMEM, "device: out of memory");
	d->hw = hw;
	d->notify_lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
	d->cdev.vm_backend = nvl_nv_vm_backend;
	d->job_timeout_ns = o && o->job_timeout_ns > 0 ? o->job_timeout_ns
						       : 5 * NVL_NSEC_PER_SEC;
	d->boot0 = nvl_hw_rd32(hw, NVL_HW_PMC_BOOT_0);
	ret = nvl_nv_chip_identify(hw, &d->chip);
	for (size_t i = 0; !ret && i < NVL_ARRAY_SIZE(fw_chips); i++)
		if (fw_chips[i].id == NVL_HW_BOOT_0_CHIP_ID(d->boot0)) {
			d->name = fw_chips[i].name;
			d->fw_versions = fw_chips[i].fw;
		}
	if (!d->name) {
		nvl_free(d);
		return nvl_error(-ENODEV,
				 "device: BOOT_0 0x%08x: chip 0x%03x is not "
				 "supported",
				 d->boot0, NVL_HW_BOOT_0_CHIP_ID(d->boot0));
	}
	ret = boot(d, o);
	if (ret) {
		nvl_free(d);
		return ret;
	}
	nvl_flock_init(&d->chan_lock);
	nvl_list_init(&d->chans);
	nvl_list_init(&d->vm_deferred);
	nvl_flock_init(&d->vms_lock);
	nvl_list_init(&d->vms);
	ret = rm_objects(d);
	if (!ret)
		ret = pick_fb(d);
	if (!ret)
		ret = carve(d);
	if (ret) {
		nvl_nv_device_remove(d);
		return ret;
	}
	*dev_out = d;
	return 0;
}

/* free the driver's RM objects (unless the GSP died), unload, destroy */
static void gsp_down(struct nvl_nv_device *d)
{
	if (!d->gsp)
		return;
	if (d->h_client && !nvl_gsp_needs_reset(d->gsp) &&
	    nvl_gsp_rm_free(d->gsp, d->h_client))
		nvl_warn(NVL_CAT_NV, "device: freeing the RM client: %s",
			 nvl_error_msg());
	/* a dead GSP answers nothing: the unload still resets the engine
	 * and has the booter take WPR2 down */
	if (nvl_gsp_unload(d->gsp) && !nvl_gsp_needs_reset(d->gsp))
		nvl_warn(NVL_CAT_NV, "device: GSP unload: %s", nvl_error_msg());
	nvl_gsp_destroy(d->gsp);
	d->gsp = NULL;
	d->h_client = d->h_device = d->h_subdevice = 0;
}

void nvl_nv_device_lost(struct nvl_nv_device *d, const char *why)
{
	if (atomic_exchange(&d->lost, true))
		return;
	/* captures the firmware's log rings (once) and fails its waiters */
	nvl_gsp_mark_dead(d->gsp, why);
	nvl_err(NVL_CAT_NV,
		"device %s: lost (%s): every channel killed, pending work "
		"completes with -ENODEV; nvl_device_reset() brings it back",
		d->name, why);
	nvl_nv_chan_device_lost(d);
}

int nvl_nv_device_check(struct nvl_nv_device *d)
{
	if (!atomic_load(&d->lost) && d->gsp && nvl_gsp_needs_reset(d->gsp))
		nvl_nv_device_lost(d, "the GSP stopped answering");
	return atomic_load(&d->lost) ? -ENODEV : 0;
}

int nvl_nv_device_heartbeat(struct nvl_nv_device *d, int64_t timeout_ns)
{
	int ret;

	if (nvl_nv_device_check(d))
		return -ENODEV;
	ret = nvl_gsp_rpc(d->gsp, GSPABI_K_FUNCTION_NOP, NULL, 0, NULL, 0, NULL,
			  NVL_GSP_REPLY_POLL, timeout_ns);
	if (nvl_nv_device_check(d))
		return -ENODEV;
	if (ret != -ETIMEDOUT) {
		/* it answered, even if with an error: alive */
		d->heartbeat_misses = 0;
		return 0;
	}
	if (++d->heartbeat_misses >= 3) {
		nvl_nv_device_lost(d, "three heartbeats without a reply");
		return -ENODEV;
	}
	return -ETIMEDOUT;
}

int nvl_nv_device_reset(struct nvl_nv_device *d)
{
	struct nvl_nv_probe_opts po = {0};
	char ver[sizeof(d->fw_version)];
	int ret;

	if (!atomic_load(&d->lost))
		return nvl_error(-EBUSY,
				 "device: reset: the device is not lost");
	snprintf(ver, sizeof(ver), "%s", d->fw_version);
	po.fw_version = ver;
	po.trace = d->trace; /* the new GSP is traced as the old one was */
	po.trace_arg = d->trace_arg;
	gsp_down(d);
	/* every RM handle of the old firmware is gone with it */
	atomic_fetch_add(&d->gen, 1);
	if (atomic_load(&d->suspended)) {
		/*
		 * Lost while suspended (a resume that failed for good): the
		 * reset is a cold boot, not a resume. The saved tables were
		 * the dead firmware's objects' (they stay dead); what waited
		 * for the resume (channels and VMs destroyed meanwhile) goes
		 * now, without RM.
		 */
		nvl_free(d->saved);
		d->saved = NULL;
		d->saved_size = 0;
		atomic_store(&d->suspended, false);
		nvl_nv_chan_finish_deferred(d, false);
		nvl_nv_vm_finish_deferred(d, false);
	}
	ret = boot(d, &po);
	if (!ret)
		ret = rm_objects(d);
	if (ret) {
		char why[256];

		snprintf(why, sizeof(why), "%s", nvl_error_msg());
		gsp_down(d);
		return nvl_error(ret, "device: reset: %s", why);
	}
	d->heartbeat_misses = 0;
	atomic_store(&d->lost, false);
	nvl_info(NVL_CAT_NV, "device %s: reset: GSP booted again (%s)", d->name,
		 d->fw_version);
	return 0;
}

int nvl_nv_sysmem_alloc(struct nvl_nv_device *d, size_t size, void **mem,
			uint64_t *dma)
{
	void *p = NULL;
	int ret;

	/* mmap is not nvl_malloc: the injection hook is asked directly */
	ret = nvl_might_alloc(0);
	if (!ret) {
		p = mmap(NULL, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			p = NULL;
	}
	if (!p)
		return nvl_error(-ENOMEM,
				 "device: no system memory for a "
				 "%zu-byte buffer",
				 size);
	ret = nvl_hw_dma_map(d->hw, p, size, dma);
	if (ret) {
		munmap(p, size);
		return nvl_error(ret,
				 "device: cannot DMA-map a %zu-byte "
				 "buffer",
				 size);
	}
	*mem = p;
	return 0;
}

void nvl_nv_sysmem_free(struct nvl_nv_device *d, void *mem, size_t size,
			uint64_t dma)
{
	(void)nvl_hw_dma_unmap(d->hw, dma, size);
	munmap(mem, size);
}

void nvl_nv_device_remove(struct nvl_nv_device *d)
{
	if (!d)
		return;
	gsp_down(d);
	nvl_free(d->saved);
	nvl_nv_ptmem_destroy(d->ptmem);
	pthread_mutex_destroy(&d->notify_lock);
	nvl_free(d);
}

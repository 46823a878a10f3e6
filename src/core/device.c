// SPDX-License-Identifier: MIT
/*
 * DOC: devices (uAPI)
 *
 * nvl_device_open() turns a spec into a hardware interface (a provider)
 * and hands it to the driver's probe (src/nv/device.c). The only provider
 * today is the model: it powers on a model of the chip named in the spec
 * (with the VRAM size asked for) and gives its hardware interface to the
 * driver, which learns everything else from BOOT_0 and the firmware.
 * "vfio:<bdf>" is parsed and refused with -ENODEV: a VFIO provider would
 * map BAR0/BAR1, set up the IOMMU and route the MSI to the same
 * interface.
 */
#include <errno.h>
#include <stdatomic.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/log.h"
#include "base/time.h"
#include "core/device.h"
#include "gsp/boot.h"
#include "base/client.h"
#include "gsp/gsp.h"
#include "gsp/sensors.h"
#include "hw/regs.h"
#include "mm/bo.h"
#include "model/model.h"
#include "model/model_regs.h"
#include "nouvelle/exec.h"
#include "nv/chan.h"
#include "nv/fault.h"
#include "nv/move.h"
#include "nv/replay.h"
#include "nv/vm.h"
#include "vm/vm.h"
#include "nouvelle/device.h"
#include "nv/device.h"

#define MIB (1ull << 20)

/* the model's PCI bus numbers, in open order (drm-pdev, pci.bus_id) */
static atomic_uint next_bus = 1;

/* the FB range register says a size as 6 bits of MiB << a scale of 0..15 */
static bool lmr_can_say(uint64_t mib)
{
	unsigned scale = (unsigned)__builtin_ctzll(mib);

	return (mib >> (scale > 15 ? 15 : scale)) <= 0x3f;
}

static int open_model(const char *chip, const struct nvl_device_opts *o,
		      struct nvl_device *dev)
{
	const struct nvl_model_profile *p = nvl_model_profile_find(chip);
	int ret;

	if (!p)
		return nvl_error(-ENODEV, "device: model has no chip '%s'",
				 chip);
	if (o && o->vram_size) {
		if (o->vram_size % MIB || o->vram_size < 256 * MIB ||
		    o->vram_size > (1ull << 40))
			return nvl_error(-EINVAL,
					 "device: VRAM size %llu is not a "
					 "multiple of 1 MiB in 256 MiB..1 TiB",
					 (unsigned long long)o->vram_size);
		if (!lmr_can_say(o->vram_size / MIB))
			return nvl_error(
				-EINVAL,
				"device: VRAM size %llu MiB is not "
				"m << s MiB with m < 64 (the FB range "
				"register cannot say it)",
				(unsigned long long)(o->vram_size / MIB));
		dev->profile = nvl_malloc(sizeof(*dev->profile));
		if (!dev->profile)
			return nvl_error(-ENOMEM, "device: out of memory");
		*dev->profile = *p;
		dev->profile->vram_size = o->vram_size;
		p = dev->profile;
	}
	ret = nvl_model_create(p, &dev->model);
	if (ret)
		return nvl_error(ret, "device: model '%s' did not power on",
				 chip);
	return 0;
}

static void register_once(void)
{
	nvl_nv_chan_register();
}

static int device_up(struct nvl_device *dev)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct nvl_mm_config mc = {
		.vram_B = dev->nv->mm_size,
		.ops = &nvl_core_gtt_ops,
		.ops_priv = dev,
	};
	int ret;

	pthread_once(&once, register_once);
	ret = nvl_mm_create(&mc, &dev->mm);
	if (ret)
		return nvl_error(ret, "device: memory manager: %d", ret);
	/* its clients' BOs live there (client->mm) */
	dev->nv->cdev.mm = dev->mm;
	/* faults and channel errors come from RM as events (nv/fault.c) */
	ret = nvl_nv_fault_init(dev->nv,
				dev->nv->boot0 >> NVL_HW_BOOT_0_ARCH_SHIFT &
					NVL_HW_BOOT_0_ARCH_MASK);
	if (ret) {
		nvl_mm_destroy(dev->mm);
		return ret;
	}
	/* replayable faults are the driver's own (nv/replay.c) */
	ret = nvl_nv_replay_init(dev->nv,
				 dev->nv->boot0 >> NVL_HW_BOOT_0_ARCH_SHIFT &
					 NVL_HW_BOOT_0_ARCH_MASK);
	if (ret) {
		nvl_nv_fault_fini(dev->nv);
		nvl_mm_destroy(dev->mm);
		return ret;
	}
	/* the engines' non-stall interrupts (the channels' fences) and the
	 * replayable-fault interrupt */
	nvl_gsp_set_irq_chain(dev->nv->gsp, nvl_nv_irq, dev->nv);
	nvl_hw_wr32(nvl_model_hw(dev->model),
		    NVL_HW_INTR_EN_SET(NVL_HW_INTR_TREE_NONSTALL), ~0u);
	/* evictions and clears on the copy engine (its fences need the
	 * interrupts above) */
	ret = nvl_nv_move_init(dev->nv, dev->mm, &dev->move);
	if (ret) {
		/* device_down() but the driver's device (the caller's) */
		nvl_hw_wr32(nvl_model_hw(dev->model),
			    NVL_HW_INTR_EN_CLEAR(NVL_HW_INTR_TREE_NONSTALL),
			    ~0u);
		nvl_gsp_set_irq_chain(dev->nv->gsp, NULL, NULL);
		nvl_nv_fault_fini(dev->nv);
		nvl_nv_replay_fini(dev->nv);
		nvl_mm_destroy(dev->mm);
		return ret;
	}
	return 0;
}

NVL_API int nvl_device_client_create(struct nvl_device *dev,
				     struct nvl_client **client_out)
{
	return nvl_device_client_create2(dev, 0, client_out);
}

static void device_down(struct nvl_device *dev);
/* the model's pushbuffer trace, as a wire-trace record */
static void dev_pb_trace(void *arg, uint32_t chid, uint64_t va,
			 const uint32_t cls[8], const uint32_t *dw, uint32_t n)
{
	struct nvl_device *dev = arg;
	struct nvl_trace_rec r = {
		.kind = NVL_TRACE_PUSH,
		.chid = chid,
		.va = va,
		.data = dw,
		.len = (size_t)n * 4,
	};

	memcpy(r.cls, cls, sizeof(r.cls));
	dev->trace(dev->trace_arg, &r);
}

int nvl_device_open(const char *spec, const struct nvl_device_opts *opts,
		    struct nvl_device **dev_out)
{
	struct nvl_nv_probe_opts po = {0};
	struct nvl_device *dev;
	const char *chip = NULL;
	int ret;

	if (!dev_out)
		return nvl_error(-EINVAL, "device: NULL dev_out");
	if (opts && opts->fw_version && !opts->fw_version[0])
		return nvl_error(-EINVAL, "device: empty firmware version");
	if (opts && (opts->flags & ~(uint32_t)NVL_DEVICE_OPEN_ADMIN))
		return nvl_error(-EINVAL, "device: unknown open flags %#x",
				 opts->flags);
	if (!spec || !spec[0] || !strcmp(spec, "model")) {
		chip = NULL;
	} else if (!strncmp(spec, "model:", 6)) {
		chip = spec + 6;
		if (!chip[0])
			return nvl_error(-EINVAL, "device: '%s' names no chip",
					 spec);
	} else if (!strncmp(spec, "vfio:", 5)) {
		return nvl_error(-ENODEV,
				 "device: '%s': no VFIO provider in this build "
				 "(only the model is available)",
				 spec);
	} else {
		return nvl_error(-EINVAL,
				 "device: unknown spec '%s' (model:<chip> or "
				 "vfio:<bdf>)",
				 spec);
	}
	dev = nvl_zalloc(sizeof(*dev));
	if (!dev)
		return nvl_error(-ENOMEM, "device: out of memory");
	pthread_mutex_init(&dev->clients_lock, NULL);
	nvl_list_init(&dev->clients);
	ret = nvl_core_gtt_init(dev);
	if (ret) {
		pthread_mutex_destroy(&dev->clients_lock);
		nvl_free(dev);
		return nvl_error(ret, "device: out of memory");
	}
	ret = open_model(chip, opts, dev);
	if (ret)
		goto fail;
	po.fw_version = opts ? opts->fw_version : NULL;
	/* the process-wide choice, as a module parameter is for a driver */
	if (!po.fw_version && getenv("NVL_FW_VERSION") &&
	    getenv("NVL_FW_VERSION")[0]) {
		po.fw_version = getenv("NVL_FW_VERSION");
		po.fw_prefer = true;
	}
	if (opts && opts->trace) {
		dev->trace = opts->trace;
		dev->trace_arg = opts->trace_arg;
		po.trace = opts->trace;
		po.trace_arg = opts->trace_arg;
		nvl_model_set_pb_trace(dev->model, dev_pb_trace, dev);
	}
	if (opts && opts->job_timeout_ms)
		po.job_timeout_ns = opts->job_timeout_ms * NVL_NSEC_PER_MSEC;
	ret = nvl_nv_device_probe(nvl_model_hw(dev->model), &po, &dev->nv);
	if (ret)
		goto fail;
	ret = device_up(dev);
	if (ret) {
		nvl_nv_device_remove(dev->nv);
		goto fail;
	}
	dev->bus = atomic_fetch_add(&next_bus, 1);
	dev->open_flags = opts ? opts->flags : 0;
	dev->heartbeat_ns =
		(opts && opts->heartbeat_ms ? opts->heartbeat_ms : 1000) *
		1000000ll;
	ret = nvl_device_state_init(dev);
	if (ret) {
		device_down(dev);
		goto fail;
	}
	atomic_init(&dev->refs, 1);
	*dev_out = dev;
	return 0;
fail:
	nvl_core_gtt_fini(dev);
	pthread_mutex_destroy(&dev->clients_lock);
	nvl_model_destroy(dev->model);
	nvl_free(dev->profile);
	nvl_free(dev);
	return ret;
}

int nvl_device_query(struct nvl_device *dev, struct nvl_device_info *info)
{
	const struct nvl_nv_device *d;
	int64_t ns = 0;

	if (!dev || !info)
		return nvl_error(-EINVAL, "device: NULL argument to query");
	d = dev->nv;
	memset(info, 0, sizeof(*info));
	strncpy(info->chip, d->name, sizeof(info->chip) - 1);
	strncpy(info->family, d->chip->family, sizeof(info->family) - 1);
	memcpy(info->gpu_name, d->boot.gpu_name, sizeof(info->gpu_name));
	info->gpu_name[sizeof(info->gpu_name) - 1] = 0;
	info->boot0 = d->boot0;
	memcpy(info->fw_version, d->fw_version, sizeof(info->fw_version));
	info->vram_size = d->boot.fb_size;
	info->vram_usable = d->vram_usable;
	info->num_ce = d->boot.num_ce;
	info->num_channels = d->boot.num_channels;
	info->host_class = d->boot.host_class;
	info->ce_class = d->boot.ce_class;
	info->mmu_version = d->chip->mmu_version;
	info->va_bits = d->chip->mmu_version == 3 ? 57 : 49;
	info->max_channels_per_client = NVL_NV_CHANS_PER_CLIENT;
	for (unsigned i = 0; i < NVL_GSP_STEP_COUNT; i++)
		ns += d->boot.step_ns[i];
	info->boot_ns = ns;
	info->compute_class = d->chip->compute_class;
	return 0;
}

int nvl_device_sensors(struct nvl_device *dev, struct nvl_sensors *s)
{
	int ret;

	if (!dev || !s)
		return nvl_error(-EINVAL, "device: NULL argument to sensors");
	if (nvl_nv_device_check(dev->nv))
		return nvl_error(-ENODEV,
				 "device: sensors: the device is lost");
	ret = nvl_gsp_sensors_read(dev->nv->gsp, dev->nv->h_subdevice, s);
	if (ret == -ENODEV || ret == -ETIMEDOUT)
		nvl_nv_device_check(dev->nv);
	return ret;
}

/* interrupts off, memory manager and driver device gone (model stays) */
static void device_down(struct nvl_device *dev)
{
	nvl_nv_move_fini(dev->move);
	dev->move = NULL;
	/* closed while suspended: the channels destroyed meanwhile (no RM) */
	nvl_nv_chan_finish_deferred(dev->nv, false);
	nvl_nv_vm_finish_deferred(dev->nv, false);
	nvl_hw_wr32(nvl_model_hw(dev->model),
		    NVL_HW_INTR_EN_CLEAR(NVL_HW_INTR_TREE_NONSTALL), ~0u);
	if (dev->nv->gsp)
		nvl_gsp_set_irq_chain(dev->nv->gsp, NULL, NULL);
	nvl_nv_fault_fini(dev->nv);
	nvl_nv_replay_fini(dev->nv);
	nvl_mm_destroy(dev->mm);
	nvl_nv_device_remove(dev->nv);
}

NVL_API int nvl_channel_inject_hang(struct nvl_client *client, uint32_t channel)
{
	uint32_t chid, rl;
	int ret;

	if (!client)
		return nvl_error(-EINVAL, "channel: NULL client");
	if (!client->udev || !client->udev->model)
		return nvl_error(-ENODEV,
				 "channel: hang injection needs a model "
				 "device");
	ret = nvl_nv_chan_hw_ids(client, channel, &chid, &rl);
	if (ret)
		return ret;
	/* model-only: the engine stops on the channel until a reset */
	nvl_hw_wr32(nvl_model_hw(client->udev->model),
		    NVL_MODEL_REG_ENGINE_HANG(rl), chid + 1);
	return 0;
}

int nvl_device_fault_stats(struct nvl_device *dev, struct nvl_fault_stats *st)
{
	if (!dev || !st)
		return nvl_error(-EINVAL,
				 "device: NULL argument to fault stats");
	nvl_nv_fault_stats(dev->nv, st);
	nvl_nv_replay_stats(dev->nv, st);
	return 0;
}

NVL_API int nvl_device_move_stats(struct nvl_device *dev,
				  struct nvl_move_stats *st)
{
	struct nvl_mm_move_stats ms;

	if (!dev || !st)
		return nvl_error(-EINVAL,
				 "device: NULL argument to move stats");
	nvl_mm_move_stats(dev->mm, &ms);
	st->bytes_moved = ms.bytes;
	st->evictions = ms.evictions;
	st->gpu_jobs = ms.gpu_jobs;
	st->gpu_bytes = ms.gpu_bytes;
	st->gpu_failures = ms.gpu_failures;
	st->cpu_jobs = ms.cpu_jobs;
	st->channel_restarts = dev->move ? nvl_nv_move_restarts(dev->move) : 0;
	return 0;
}

NVL_API int nvl_device_inject_move_error(struct nvl_device *dev, uint32_t kind,
					 uint32_t count)
{
	if (!dev)
		return nvl_error(-EINVAL, "device: NULL device");
	if (kind != NVL_MOVE_ERROR_ENGINE && kind != NVL_MOVE_ERROR_ALLOC)
		return nvl_error(-EINVAL, "device: no move error kind %u",
				 kind);
	if (!dev->move)
		return nvl_error(-ENODEV, "device: no copy-engine moves");
	nvl_nv_move_inject(dev->move, kind == NVL_MOVE_ERROR_ALLOC, count);
	return 0;
}

static void device_free(struct nvl_device *dev)
{
	nvl_device_state_fini(dev);
	device_down(dev);
	nvl_model_destroy(dev->model);
	nvl_free(dev->profile);
	nvl_core_gtt_fini(dev);
	pthread_mutex_destroy(&dev->clients_lock);
	nvl_free(dev);
}

void nvl_device_put(struct nvl_device *dev)
{
	if (atomic_fetch_sub(&dev->refs, 1) == 1)
		device_free(dev);
}

/*
 * Clients still alive (a documented precondition broken) keep the device,
 * as DRM keeps a device while files are open on it: the last
 * nvl_client_destroy() tears it down. Before, close freed it under them.
 */
void nvl_device_close(struct nvl_device *dev)
{
	if (!dev)
		return;
	if (!nvl_device_subs_end(dev)) {
		nvl_error(-EDEADLK, "device: close from one of the device's "
				    "sensor callbacks ignored");
		return;
	}
	if (atomic_exchange(&dev->closed, true)) {
		nvl_warn(NVL_CAT_NV, "device: closed twice");
		return;
	}
	nvl_device_put(dev);
}

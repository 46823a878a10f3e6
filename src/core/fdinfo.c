// SPDX-License-Identifier: MIT
/*
 * DOC: per-client usage (DRM fdinfo) and the device's client list
 *
 * A client's fdinfo text follows Documentation/gpu/drm-usage-stats.rst:
 *
 *   drm-driver:                nouvelle
 *   drm-client-id:             the client's id (global, one per client)
 *   drm-pdev:                  the device's PCI address (device clients;
 *                              the model's bus is 1, 2, ... in open order)
 *   drm-client-name:           when set with nvl_client_set_name()
 *   drm-engine-copy:           ns the client's jobs kept the copy engines
 *                              busy (src/nv/usage.h: ring time to the
 *                              fence idiom's semaphore timestamp)
 *   drm-engine-capacity-copy:  the device's copy engines
 *   drm-maxfreq-copy:          their maximum (graphics) clock, MHz
 *   drm-engine-compute:        likewise, once the client used compute
 *   drm-{total,shared,resident,purgeable,active,memory}-{vram,gtt,cpu}
 *                              (src/mm/fdinfo.c)
 *
 * Tools take two samples and compute busy % = 100 * delta ns / (delta t *
 * capacity) as nvtop and gputop do. Device-less clients print the driver,
 * id and memory keys only.
 *
 * Every device client is on its device's list, so that a tool in the same
 * process can enumerate clients as gputop scans /proc: nvl_device_clients()
 * then nvl_device_client_fdinfo() by id.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "base/client.h"
#include "base/log.h"
#include "core/device.h"
#include "mm/bo.h"
#include "nouvelle/device.h"
#include "nouvelle/exec.h"
#include "nv/device.h"

static const char *const engine_name[NVL_CLIENT_ENGINE_COUNT] = {"copy",
								 "compute"};

void nvl_core_client_unlink(struct nvl_client *c)
{
	struct nvl_device *dev = c->udev;

	pthread_mutex_lock(&dev->clients_lock);
	nvl_list_del(&c->dev_node);
	pthread_mutex_unlock(&dev->clients_lock);
}

static uint32_t maxfreq(struct nvl_device *dev)
{
	uint32_t f = __atomic_load_n(&dev->maxfreq_mhz, __ATOMIC_RELAXED);
	struct nvl_sensors s;

	if (f || nvl_device_sensors(dev, &s) ||
	    !nvl_sensors_has(&s, NVL_SENSOR_CLK_GR_MAX))
		return f;
	__atomic_store_n(&dev->maxfreq_mhz, s.clk_gr_max_mhz, __ATOMIC_RELAXED);
	return s.clk_gr_max_mhz;
}

int nvl_client_fdinfo(struct nvl_client *client, char *buf, size_t len)
{
	struct nvl_device *dev;
	size_t n = 0;
	int w;

	if (!client || (len && !buf))
		return nvl_error(-EINVAL, "fdinfo: NULL argument");
	dev = client->udev;
#define EMIT(...)                                                              \
	do {                                                                   \
		w = snprintf(n < len ? buf + n : NULL, n < len ? len - n : 0,  \
			     __VA_ARGS__);                                     \
		n += (size_t)w;                                                \
	} while (0)
	EMIT("drm-driver:\tnouvelle\n");
	EMIT("drm-client-id:\t%llu\n", (unsigned long long)client->id);
	if (dev) {
		uint32_t mhz = maxfreq(dev);

		EMIT("drm-pdev:\t0000:%02x:00.0\n", dev->bus);
		if (client->name[0])
			EMIT("drm-client-name:\t%s\n", client->name);
		for (int e = 0; e < NVL_CLIENT_ENGINE_COUNT; e++) {
			uint64_t ns = __atomic_load_n(&client->engine_ns[e],
						      __ATOMIC_RELAXED);

			/* compute only once used (amdgpu prints engines
			 * with time); copy always */
			if (e != NVL_CLIENT_ENGINE_COPY && !ns)
				continue;
			EMIT("drm-engine-%s:\t%llu ns\n", engine_name[e],
			     (unsigned long long)ns);
			if (e == NVL_CLIENT_ENGINE_COPY) {
				EMIT("drm-engine-capacity-%s:\t%u\n",
				     engine_name[e], dev->nv->boot.num_ce);
				if (mhz)
					EMIT("drm-maxfreq-%s:\t%u MHz\n",
					     engine_name[e], mhz);
			}
		}
	}
#undef EMIT
	w = nvl_mm_fdinfo(client, n < len ? buf + n : NULL,
			  n < len ? len - n : 0);
	if (w < 0)
		return w;
	return (int)(n + (size_t)w);
}

int nvl_client_set_name(struct nvl_client *client, const char *name)
{
	size_t l;

	if (!client || !name)
		return nvl_error(-EINVAL, "client: NULL argument");
	l = strlen(name);
	if (!l || l >= sizeof(client->name))
		return nvl_error(-EINVAL, "client: name of %zu bytes (1..%zu)",
				 l, sizeof(client->name) - 1);
	for (size_t i = 0; i < l; i++)
		if ((unsigned char)name[i] <= ' ' ||
		    (unsigned char)name[i] >= 0x7f)
			return nvl_error(-EINVAL,
					 "client: name with a space or "
					 "non-printable byte");
	memcpy(client->name, name, l + 1);
	return 0;
}

int nvl_device_clients(struct nvl_device *dev, uint64_t *ids, uint32_t max)
{
	struct nvl_client *c;
	uint32_t n = 0;

	if (!dev || (max && !ids))
		return nvl_error(-EINVAL, "device: NULL argument to clients");
	pthread_mutex_lock(&dev->clients_lock);
	nvl_list_for_each_entry (c, &dev->clients, dev_node) {
		if (n < max)
			ids[n] = c->id;
		n++;
	}
	pthread_mutex_unlock(&dev->clients_lock);
	return (int)n;
}

int nvl_device_client_fdinfo(struct nvl_device *dev, uint64_t id, char *buf,
			     size_t len)
{
	struct nvl_client *c, *found = NULL;
	int ret;

	if (!dev || (len && !buf))
		return nvl_error(-EINVAL, "device: NULL argument to fdinfo");
	/* the firmware call for the clock, if any, before the lock */
	(void)maxfreq(dev);
	/*
	 * The client is read under the list lock, which its destroy takes
	 * to unlink it: a reference instead let this reader drop the last
	 * one after nvl_client_destroy() returned, so the client's BOs and
	 * channels outlived it (and could be torn down after the device
	 * was closed).
	 */
	pthread_mutex_lock(&dev->clients_lock);
	nvl_list_for_each_entry (c, &dev->clients, dev_node)
		if (c->id == id) {
			found = c;
			break;
		}
	ret = found ? nvl_client_fdinfo(found, buf, len)
		    : nvl_error(-ENOENT, "device: no client %llu",
				(unsigned long long)id);
	pthread_mutex_unlock(&dev->clients_lock);
	return ret;
}

int nvl_device_memory(struct nvl_device *dev, struct nvl_device_memory *m)
{
	struct nvl_mm *mm;

	if (!dev || !m)
		return nvl_error(-EINVAL, "device: NULL argument to memory");
	mm = dev->mm;
	memset(m, 0, sizeof(*m));
	m->vram_total = dev->nv->boot.fb_size;
	m->vram_reserved = m->vram_total - dev->nv->vram_usable;
	nvl_mutex_lock(&mm->lock);
	m->vram_used = mm->used_B[NVL_GEM_DOMAIN_VRAM];
	m->gtt_used = mm->used_B[NVL_GEM_DOMAIN_GTT];
	m->system_used = mm->used_B[NVL_GEM_DOMAIN_SYSTEM];
	nvl_mutex_unlock(&mm->lock);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* An open device: the provider (the model) and the driver's device. */
#ifndef NVL_CORE_DEVICE_H
#define NVL_CORE_DEVICE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/itree.h"
#include "base/list.h"

struct nvl_client;
struct nvl_mm;
struct nvl_model;
struct nvl_model_profile;
struct nvl_nv_device;
struct nvl_nv_move;
struct nvl_gsp_sensor_sub;

/** struct nvl_device - an open device. */
#include "nouvelle/trace.h"

/* sensor crossings waiting for the device's sensor thread, at most */
#define NVL_DEVICE_SEV_QUEUE 1024

struct nvl_device {
	/** @model: the provider's device */
	struct nvl_model *model;
	/** @profile: a copy of the chip's profile when options changed it */
	struct nvl_model_profile *profile;
	/** @nv: the driver's device */
	struct nvl_nv_device *nv;
	/** @mm: the memory manager of its clients' BOs (its VRAM) */
	struct nvl_mm *mm;
	/** @clients_lock: guards @clients (struct nvl_client.dev_node) */
	pthread_mutex_t clients_lock;
	struct nvl_list clients;
	/** @bus: the model's PCI bus number (1, 2, ... in open order) */
	unsigned bus;
	/** @maxfreq_mhz: the copy engines' maximum (graphics) clock, read
	 * once from the sensors; 0 until read or when absent */
	uint32_t maxfreq_mhz;
	/** @open_flags: NVL_DEVICE_OPEN_* the opener asked for */
	uint32_t open_flags;
	/** @heartbeat_ns: period of the GSP heartbeat */
	int64_t heartbeat_ns;
	/** @wd_lock, @wd_cond, @wd_stop, @wd_thread, @wd_running, @wd_kick
	 * (the GSP was found dead: check now): the
	 * watchdog thread that runs the heartbeat (devstate.c) */
	pthread_mutex_t wd_lock;
	pthread_cond_t wd_cond;
	bool wd_stop, wd_running, wd_kick;
	pthread_t wd_thread;
	/** @sub_lock: subscribe, unsubscribe and reset, one at a time */
	pthread_mutex_t sub_lock;
	/** @ev_lock: @subs while events are delivered */
	pthread_mutex_t ev_lock;
	/** @subs: struct nvl_device_sensor_sub.link */
	struct nvl_list subs;
	/** @subs_new: subscriptions not yet on @subs (under @sev_lock, so
	 * that a subscribe never waits for a callback running under
	 * @ev_lock; the next delivery moves them to @subs) */
	struct nvl_list subs_new;
	/** @gsub: the firmware subscription while @subs or @subs_new is not
	 * empty */
	struct nvl_gsp_sensor_sub *gsub;
	/** @sev_lock, @sev_cond, @sev_pending (crossings per event bit not
	 * yet delivered), @sev_seen (crossings per event bit counted so far:
	 * a subscription is told only of those after it), @sev_order,
	 * @sev_head, @sev_count (the kind of each crossing not yet
	 * delivered, one bit each, oldest at @sev_head: they are delivered
	 * in the order they happened), @sev_stop, @sev_thread: the thread
	 * that calls the subscribers, so that a slow one holds up no GSP
	 * event (devstate.c) */
	pthread_mutex_t sev_lock;
	pthread_cond_t sev_cond;
	uint32_t sev_pending[2];
	uint64_t sev_seen[2];
	uint64_t sev_order[NVL_DEVICE_SEV_QUEUE / 64];
	uint32_t sev_head, sev_count;
	bool sev_stop;
	pthread_t sev_thread;
	/** @trace, @trace_arg: the wire tracer (nvl_device_opts), or NULL */
	nvl_trace_fn trace;
	void *trace_arg;
	/** @gtt_lock: guards @gtt_maps */
	pthread_rwlock_t gtt_lock;
	/** @gtt_maps: DMA mappings of host pages by CPU address (gtt.c) */
	struct nvl_itree gtt_maps;
	/** @move: the memory manager's moves on the copy engine (nv/move.c) */
	struct nvl_nv_move *move;
	/**
	 * @refs: the opener's (until nvl_device_close()) and one per client
	 * of the device: it is torn down when the last goes, as a DRM
	 * device lives while files are open on it
	 */
	atomic_uint refs;
	/** @closed: nvl_device_close() was called: no new client */
	atomic_bool closed;
};

/**
 * nvl_device_put() - drop a reference to @dev; the last one tears it down
 * (nvl_device_close() drops the opener's, nvl_client_destroy() a
 * client's).
 */
void nvl_device_put(struct nvl_device *dev);

/** nvl_core_client_unlink() - take a device client off its device's list. */
void nvl_core_client_unlink(struct nvl_client *c);

/* devstate.c: the heartbeat watchdog (stopped over a suspend) */
int nvl_device_wd_start(struct nvl_device *dev);
void nvl_device_wd_stop(struct nvl_device *dev);

/** nvl_device_state_init() - locks, lists, watchdog started. Return: 0 or -ENOMEM/-EAGAIN. */
int nvl_device_state_init(struct nvl_device *dev);
/** nvl_device_state_fini() - watchdog stopped, subscriptions ended. */
void nvl_device_state_fini(struct nvl_device *dev);
/**
 * nvl_device_subs_end() - at nvl_device_close(): end every sensor
 * subscription (no callback runs once it returns). Return: false from one
 * of @dev's sensor callbacks (nothing done: the close is refused).
 */
bool nvl_device_subs_end(struct nvl_device *dev);

/**
 * nvl_core_gtt_ops - the memory manager's provider on a device: VRAM through
 * the BAR, host pages DMA-mapped through the hardware interface (gtt.c).
 */
extern const struct nvl_mm_mem_ops nvl_core_gtt_ops;

/** nvl_core_gtt_init() - an empty DMA table. Return: 0 or -ENOMEM. */
int nvl_core_gtt_init(struct nvl_device *dev);
/** nvl_core_gtt_fini() - the table (every mapping already gone). */
void nvl_core_gtt_fini(struct nvl_device *dev);
/** nvl_core_gtt_count() - host-page runs DMA-mapped now. */
size_t nvl_core_gtt_count(struct nvl_device *dev);

#endif /* NVL_CORE_DEVICE_H */

/* SPDX-License-Identifier: MIT */
/*
 * Devices: what a program opens before anything else.
 *
 * A device spec names a provider: "model:<chip>" is the built-in model of
 * the GPU (chips "tiny", "tu102", "ga102", "ad102", "gh100"; "model" or
 * NULL/"" is the embedded default, "tiny"); "vfio:<bdf>" is the place of a
 * real GPU behind VFIO and returns -ENODEV today. Opening probes the
 * device as a driver does: BOOT_0 names the chip, the GSP boots with the
 * chip's firmware, and the firmware's static info says how much FB there
 * is, which of it the driver may use, and which engines and classes exist.
 */
#ifndef NOUVELLE_DEVICE_H
#define NOUVELLE_DEVICE_H

#include <stdint.h>

#include <nouvelle/core.h>
#include <nouvelle/sensors.h>
#include <nouvelle/trace.h>

/** struct nvl_device - an open device. */
struct nvl_device;

/** struct nvl_device_opts - options of nvl_device_open(); zero = defaults. */
struct nvl_device_opts {
	/** @fw_version: GSP firmware version to boot ("535.113.01"); NULL:
	 * the environment's NVL_FW_VERSION where the chip has it (a chip
	 * without it boots its own), else the newest the driver accepts for
	 * the chip */
	const char *fw_version;
	/** @vram_size: model only: bytes of VRAM (multiple of 1 MiB, 256 MiB
	 * .. 1 TiB, and m << s MiB with m < 64, as the FB range register
	 * says sizes: 592 MiB yes, 300 MiB no, -EINVAL); 0: the chip's */
	uint64_t vram_size;
	/** @flags: enum nvl_device_open_flags */
	uint32_t flags;
	/** @heartbeat_ms: how often the driver checks the GSP is alive (a
	 * NOP round trip, 2 s bound); 0: every 1000 ms */
	uint32_t heartbeat_ms;
	/** @trace: called with what crosses the wires (nouvelle/trace.h);
	 * NULL: no tracing. @trace_arg: its first argument */
	nvl_trace_fn trace;
	void *trace_arg;
	/** @job_timeout_ms: how long a channel may make no progress on its
	 * oldest job before the driver resets the channel through the
	 * firmware (the job fails with -ETIMEDOUT, the jobs behind it run
	 * again; docs/faults.md); 0: 5000 ms */
	uint32_t job_timeout_ms;
};

/**
 * enum nvl_device_open_flags - what the opener of a device is allowed.
 * @NVL_DEVICE_OPEN_ADMIN: the opener may give its clients the right to
 *   change device state (NVL_CLIENT_DEVICE_STATE): the library's
 *   CAP_SYS_ADMIN, held by whoever opens the device, never by a client
 */
enum nvl_device_open_flags {
	NVL_DEVICE_OPEN_ADMIN = 1u << 0,
};

/** Most copy engines nvl_device_info reports. */
#define NVL_DEVICE_MAX_CE 16

/** struct nvl_device_info - what nvl_device_query() reports. */
struct nvl_device_info {
	/** @chip: "tu102", ...; @family: "Turing", ...; @gpu_name: the
	 * firmware's name of the GPU */
	char chip[16], family[16], gpu_name[64];
	/** @boot0: the BOOT_0 register */
	uint32_t boot0;
	/** @fw_version: the GSP firmware that runs */
	char fw_version[64];
	/** @vram_size: bytes of FB; @vram_usable: bytes the driver may
	 * allocate (RM's carve-outs and the GSP's WPR2 excluded) */
	uint64_t vram_size, vram_usable;
	/** @num_ce: copy engines; @num_channels: channel ids of the chip */
	uint32_t num_ce, num_channels;
	/** @host_class, @ce_class: the channel and copy-engine classes */
	uint32_t host_class, ce_class;
	/** @mmu_version: page-table format (2, or 3 on Hopper); @va_bits */
	uint32_t mmu_version, va_bits;
	/** @max_channels_per_client: a client's channel limit */
	uint32_t max_channels_per_client;
	/** @boot_ns: how long the GSP boot took */
	int64_t boot_ns;
	/** @compute_class: the compute class (NVL_ENGINE_COMPUTE channels) */
	uint32_t compute_class;
};

/**
 * nvl_device_open() - open and boot a device.
 * @spec: "model:<chip>", "model", "vfio:<bdf>", or NULL/"" (the default)
 * @opts: options (NULL: defaults)
 * @dev_out: the device
 *
 * Return: 0; -EINVAL (bad spec or options), -ENODEV (no such chip,
 * vfio), a firmware or boot error (-ENOENT no firmware, -EKEYREJECTED,
 * -ETIMEDOUT, ...), -ENOMEM. nvl_last_error() says why; nothing is left
 * open on failure.
 */
NVL_API int nvl_device_open(const char *spec,
			    const struct nvl_device_opts *opts,
			    struct nvl_device **dev_out);

/**
 * nvl_device_query() - what the device is (in the spirit of GETPARAM).
 * @dev: the device
 * @info: filled in
 * Return: 0 or -EINVAL (NULL argument).
 */
NVL_API int nvl_device_query(struct nvl_device *dev,
			     struct nvl_device_info *info);

/**
 * nvl_device_sensors() - read the device's sensors through its firmware.
 * @dev: the device
 * @s: filled in: one sample with a timestamp and a validity bit per field
 *     (nvl_sensors_has()); a field the chip or the firmware version lacks
 *     is absent, never 0
 *
 * Each call is a set of GSP_RM_CONTROLs on the driver's subdevice
 * (docs/sensors.md lists the field sources).
 *
 * Return: 0; -EINVAL (NULL argument); -EAGAIN (suspended); -ENODEV,
 * -ETIMEDOUT or another firmware error (then @s is unchanged).
 * nvl_last_error() says why.
 */
NVL_API int nvl_device_sensors(struct nvl_device *dev, struct nvl_sensors *s);

/**
 * enum nvl_client_flags - rights of a client (nvl_device_client_create2()).
 * @NVL_CLIENT_DEVICE_STATE: may change device state (power limit, P-state
 *   limits, application clocks, boost), like a DRM file whose opener had
 *   CAP_SYS_ADMIN; only on a device opened with NVL_DEVICE_OPEN_ADMIN
 */
enum nvl_client_flags {
	NVL_CLIENT_DEVICE_STATE = 1u << 0,
};

/**
 * nvl_device_client_create2() - open a client on @dev with rights.
 * @dev: the device
 * @flags: enum nvl_client_flags (0: as nvl_device_client_create())
 * @client_out: the client
 *
 * Return: 0; -EINVAL (NULL argument, unknown flag); -EPERM
 * (NVL_CLIENT_DEVICE_STATE on a device not opened with
 * NVL_DEVICE_OPEN_ADMIN); -ENODEV (the device is lost: reset it);
 * -ENOMEM.
 */
NVL_API int nvl_device_client_create2(struct nvl_device *dev, uint32_t flags,
				      struct nvl_client **client_out);

/**
 * nvl_device_set_power_limit() - set the enforced board power limit.
 * @client: a client of the device with NVL_CLIENT_DEVICE_STATE
 * @mw: milliwatts, within [power_min_mw, power_max_mw] of nvl_sensors
 *
 * Under load the firmware's power controller lowers the graphics clock
 * until board power is under the limit (docs/sensors.md).
 *
 * Return: 0; -EINVAL (NULL client, a client without a device, out of
 * range: nothing changed); -EPERM (no right: nothing sent); -ENODEV (the
 * device is lost); -EAGAIN (suspended: nothing changed); another firmware
 * error.
 */
NVL_API int nvl_device_set_power_limit(struct nvl_client *client, uint32_t mw);

/**
 * nvl_device_set_pstate_limits() - allow only P-states @fastest..@slowest.
 * @client: a client with NVL_CLIENT_DEVICE_STATE
 * @fastest: the fastest allowed Pn (0 = P0)
 * @slowest: the slowest allowed Pn (>= @fastest)
 *
 * Return: as nvl_device_set_power_limit(); -EINVAL for a Pn the board
 * lacks or @fastest > @slowest.
 */
NVL_API int nvl_device_set_pstate_limits(struct nvl_client *client,
					 unsigned fastest, unsigned slowest);

/**
 * nvl_device_set_app_clocks() - cap the graphics and memory clocks.
 * @client: a client with NVL_CLIENT_DEVICE_STATE
 * @gr_mhz: graphics clock cap (MHz)
 * @mem_mhz: memory clock cap (MHz); 0, 0 restores the defaults
 *
 * Each must be 0 or on the board's supported-clock table (on the model:
 * graphics clocks every 15 MHz from the slowest P-state's to the
 * fastest's, memory clocks those of the P-states; docs/sensors.md).
 *
 * Return: as nvl_device_set_power_limit(); -EINVAL (nothing changed) for
 * a clock off the table: above the maximum, below the slowest P-state's,
 * or between two supported clocks.
 */
NVL_API int nvl_device_set_app_clocks(struct nvl_client *client,
				      uint32_t gr_mhz, uint32_t mem_mhz);

/**
 * nvl_device_set_boost() - run at the fastest allowed P-state for a while.
 * @client: a client with NVL_CLIENT_DEVICE_STATE
 * @seconds: how long (GPU time), at most 3600 (an hour: the firmware's
 *           NV2080_CTRL_PERF_BOOST_DURATION_MAX); 0 clears a boost;
 *           UINT32_MAX: until cleared
 *
 * Return: as nvl_device_set_power_limit(); -EINVAL for more than 3600
 * seconds but UINT32_MAX (nothing changed).
 */
NVL_API int nvl_device_set_boost(struct nvl_client *client, uint32_t seconds);

/** struct nvl_device_sensor_sub - a subscription to sensor events. */
struct nvl_device_sensor_sub;

/**
 * typedef nvl_device_sensor_fn - a subscriber's callback: once per
 * crossing, on the device's sensor-event thread, one callback at a time (a
 * slow one delays only the sensor events behind it, never the GSP's other
 * events: channel errors, faults); it may call the device's API but for
 * its sensor subscriptions: subscribing there fails -EDEADLK,
 * unsubscribing (and closing the device) is ignored.
 * @arg: the subscription's argument
 * @event: NVL_SENSOR_EVENT_THERMAL or NVL_SENSOR_EVENT_POWER_CAP
 */
typedef void (*nvl_device_sensor_fn)(void *arg, enum nvl_sensor_event event);

/**
 * nvl_device_sensors_subscribe() - be told of the crossings in @events.
 * @dev: the device
 * @events: NVL_SENSOR_EVENT_* mask (not 0)
 * @fn: called once per crossing (the temperature rising above the
 *      slowdown limit; the power controller starting to cap)
 * @arg: for @fn
 * @sub_out: the subscription
 *
 * Any number of subscribers; the device holds one firmware event object
 * (NV01_EVENT_KERNEL_CALLBACK_EX on its subdevice) while any exists. No
 * right is needed (it changes nothing). Subscriptions outlive a device
 * reset (they are armed again on the new firmware).
 *
 * Return: 0; -EINVAL; -EDEADLK (from a sensor callback of @dev);
 * -ENODEV (lost); -EAGAIN (the first subscription while suspended);
 * -ENOMEM; a firmware error.
 */
NVL_API int
nvl_device_sensors_subscribe(struct nvl_device *dev, uint32_t events,
			     nvl_device_sensor_fn fn, void *arg,
			     struct nvl_device_sensor_sub **sub_out);

/**
 * nvl_device_sensors_unsubscribe() - end a subscription; no call of its
 * callback runs once this returns. NULL is a no-op, and so is a
 * subscription of another device, or a call from one of @dev's sensor
 * callbacks (nvl_last_error() says so).
 * @dev: the device
 * @sub: the subscription
 */
NVL_API void nvl_device_sensors_unsubscribe(struct nvl_device *dev,
					    struct nvl_device_sensor_sub *sub);

/**
 * nvl_device_status() - is the device usable?
 * @dev: the device
 *
 * The driver declares a device lost when its GSP dies: a heartbeat (or any
 * call) finds the firmware no longer reads its command queue or no longer
 * answers. Then the firmware's log rings are copied to nouvelle's log,
 * every channel is killed, every job on a ring or queued completes with
 * -ENODEV (and so every fence, syncobj and bind waiting on them), and
 * every call that needs the GPU fails with -ENODEV until
 * nvl_device_reset().
 *
 * Return: 0 (alive), -ENODEV (lost), -EINVAL (NULL).
 */
NVL_API int nvl_device_status(struct nvl_device *dev);

/**
 * nvl_device_reset() - bring a lost device back: unload what is left of
 * the firmware (engine reset, WPR2 torn down), boot the GSP again and make
 * the driver's RM objects anew.
 * @dev: the device
 *
 * Objects made before the reset stay dead (channels report -ENODEV, VMs
 * refuse binds) until their clients destroy them; new clients, VMs and
 * channels work. Device state set before (power limit, P-state limits,
 * application clocks, boost) stays in force, as across a suspend: the
 * sensors show it (docs/sensors.md). No other call on @dev or its clients may run during the
 * reset (the caller quiesces them, as a DRM reset holds the device).
 *
 * A device lost while suspended (a resume that failed for good) is no
 * longer suspended after the reset: its channels and VMs stay dead as
 * above, the BOs the suspend moved out of VRAM keep their contents.
 *
 * Return: 0; -EINVAL (NULL); -EBUSY (the device is not lost); a boot error
 * or -ENOMEM: any failure, the boot's or the driver's own set-up after it,
 * leaves the device lost (nvl_device_status() -ENODEV), and the reset may
 * be tried again.
 */
NVL_API int nvl_device_reset(struct nvl_device *dev);

/**
 * nvl_device_suspend() - suspend to RAM: the device goes to D3cold and
 * loses its VRAM, its contents kept in system memory.
 * @dev: the device
 *
 * Waits (bounded by half the job timeout) for submitted jobs and queued
 * async VM binds to finish, moves
 * every BO out of VRAM with the memory manager's eviction (to GTT; EXEC
 * brings them back), saves the driver's page tables and channels, has the
 * GSP save its state (GspFwSRMeta) and powers the board off. BOs mapped
 * for the CPU (nvl_bo_map()) or pinned in VRAM cannot move: unmap them
 * first. No other call on @dev or its clients may run during the suspend;
 * while suspended, new channels, execs and VM binds fail with -EAGAIN, and
 * so does every VRAM placement (nvl_bo_create() preferring VRAM, a map or
 * nvl_bo_use() that would place a BO in VRAM), changing nothing: evicted
 * BOs are mapped where they are (GTT), GTT and system BOs work.
 *
 * Return: 0; -EINVAL (NULL); -ENODEV (lost, suspended or not); -EALREADY;
 * -EBUSY (jobs or binds still pending at the bound, or a mapped or pinned
 * BO in VRAM: nothing suspended, evicted BOs come back on use); -ENOMEM; a
 * firmware error.
 */
NVL_API int nvl_device_suspend(struct nvl_device *dev);

/**
 * nvl_device_resume() - power the device on and restore it: the GSP
 * resumes from its saved state (not a cold boot), the driver's page tables
 * and channels come back; channels, VMs and BOs work as before.
 * @dev: the device
 *
 * Return: 0 (a heartbeat watchdog that cannot start again is logged, not
 * an error: the device works, a dead GSP is then found by the next call
 * that meets it, and the next suspend and resume or a reset start the
 * watchdog); -EINVAL (NULL, not suspended, or the booter rejected the
 * saved state: the device stays suspended and the state is kept); -ENODEV
 * (lost: reset it); a firmware error: still suspended, and the resume may
 * be tried again, unless the firmware is in no state for that (a booter
 * that did not halt, waited for within a bound): then the device is lost,
 * and nvl_device_reset() brings it back with a cold boot.
 */
NVL_API int nvl_device_resume(struct nvl_device *dev);

/**
 * nvl_device_close() - unload the GSP and power the device off. NULL is a
 * no-op.
 * @dev: the device
 *
 * Clients still alive keep the device, as a DRM device lives while files
 * are open on it: it goes (firmware unloaded, memory freed) with the last
 * nvl_client_destroy(), and works for them until then; no new client may
 * be made (-ENODEV). @dev may not be used by the caller after this call,
 * so its sensor subscriptions end with the close: no callback runs once
 * it returns. A close from one of @dev's sensor callbacks is ignored
 * (nvl_last_error() says so).
 */
NVL_API void nvl_device_close(struct nvl_device *dev);

/** struct nvl_device_memory - what nvl_device_memory() reports, bytes. */
struct nvl_device_memory {
	/** @vram_total: FB size; @vram_reserved: what RM and the GSP keep
	 * (not allocatable); @vram_used: BOs resident in VRAM */
	uint64_t vram_total, vram_reserved, vram_used;
	/** @gtt_used, @system_used: BOs resident in GTT and system pages */
	uint64_t gtt_used, system_used;
};

/**
 * nvl_device_memory() - the device's memory use (nvidia-smi's
 * memory.total/.reserved/.used; free = total - reserved - used).
 * @dev: the device
 * @m: filled in
 * Return: 0 or -EINVAL.
 */
NVL_API int nvl_device_memory(struct nvl_device *dev,
			      struct nvl_device_memory *m);

/**
 * nvl_device_clients() - the ids of @dev's clients (drm-client-id), in
 * creation order, as a tool scans /proc for DRM fdinfo.
 * @dev: the device
 * @ids: up to @max ids written
 * @max: room in @ids (0: only count)
 * Return: the number of clients (may exceed @max), or -EINVAL.
 */
NVL_API int nvl_device_clients(struct nvl_device *dev, uint64_t *ids,
			       uint32_t max);

/**
 * nvl_device_client_fdinfo() - nvl_client_fdinfo() of @dev's client @id.
 * @dev: the device
 * @id: a client id from nvl_device_clients()
 * @buf: output
 * @len: its size
 * Return: characters the full text needs (as snprintf); -ENOENT (the
 * client is gone), -EINVAL.
 */
NVL_API int nvl_device_client_fdinfo(struct nvl_device *dev, uint64_t id,
				     char *buf, size_t len);

#endif /* NOUVELLE_DEVICE_H */

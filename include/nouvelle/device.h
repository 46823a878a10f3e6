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
	 * the newest the driver accepts for the chip */
	const char *fw_version;
	/** @vram_size: model only: bytes of VRAM (multiple of 1 MiB, 256 MiB
	 * .. 1 TiB); 0: the chip's */
	uint64_t vram_size;
	/** @trace: called with what crosses the wires (nouvelle/trace.h);
	 * NULL: no tracing. @trace_arg: its first argument */
	nvl_trace_fn trace;
	void *trace_arg;
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
 * Return: 0; -EINVAL (NULL argument); -ENODEV, -ETIMEDOUT or another
 * firmware error (then @s is unchanged). nvl_last_error() says why.
 */
NVL_API int nvl_device_sensors(struct nvl_device *dev, struct nvl_sensors *s);

/**
 * nvl_device_close() - unload the GSP and power the device off. Every
 * client of the device must be destroyed first. NULL is a no-op.
 * @dev: the device
 */
NVL_API void nvl_device_close(struct nvl_device *dev);

#endif /* NOUVELLE_DEVICE_H */

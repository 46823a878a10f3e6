/* SPDX-License-Identifier: MIT */
/*
 * Booting the GSP (Turing/Ampere/Ada): FB layout, WPR meta, radix3 table,
 * LIBOS and RM arguments, the init RPCs, booter_load on SEC2, the CPU
 * sequencer, INIT_DONE, static info and the interrupt table; and unload.
 */
#ifndef NVL_GSP_BOOT_H
#define NVL_GSP_BOOT_H

#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"

struct nvl_gsp;

/** struct nvl_gsp_image - what boot needs of a loaded firmware set. */
struct nvl_gsp_image {
	/** @version: "535.113.01" */
	const char *version;
	/** @fwimage, @fwimage_size: the GSP ELF's .fwimage section */
	const void *fwimage;
	size_t fwimage_size;
	/** @fwimage_room: bytes readable from @fwimage (>= @fwimage_size; 0:
	 * unknown). A page-aligned image with whole pages of room is
	 * DMA-mapped in place for the booter instead of copied. */
	size_t fwimage_room;
	/** @sig, @sig_size: the chip family's .fwsignature_* section (NULL:
	 * the image has none for this family) */
	const void *sig;
	size_t sig_size;
	/** @bootloader, @bootloader_size: the RISC-V bootloader payload */
	const void *bootloader;
	size_t bootloader_size;
	/** @bl_code_offset, @bl_data_offset, @bl_manifest_offset,
	 * @app_version: from its RM_RISCV_UCODE_DESC */
	uint32_t bl_code_offset, bl_data_offset, bl_manifest_offset;
	uint32_t app_version;
};

/** struct nvl_gsp_fb_layout - where everything sits in VRAM. */
struct nvl_gsp_fb_layout {
	uint64_t fb_size, vga_offset, vga_size;
	uint64_t wpr_end, frts_offset, frts_size, boot_bin_offset;
	uint64_t fw_offset, heap_offset, heap_size, wpr_start;
	uint64_t non_wpr_heap_offset, non_wpr_heap_size;
	/** @libos3: the ga10x image's LIBOS (Ampere GA10x, Ada, Hopper) */
	bool libos3;
};

/** Boot steps, in order; timings and errors name them. */
enum nvl_gsp_boot_step {
	NVL_GSP_STEP_LAYOUT = 0,
	NVL_GSP_STEP_MEMORY,
	NVL_GSP_STEP_INIT_RPCS,
	NVL_GSP_STEP_BOOTER,
	NVL_GSP_STEP_RISCV,
	NVL_GSP_STEP_INIT_DONE,
	NVL_GSP_STEP_STATIC_INFO,
	NVL_GSP_STEP_INTR_TABLE,
	NVL_GSP_STEP_COUNT
};

/** struct nvl_gsp_boot_report - what a boot did. */
struct nvl_gsp_boot_report {
	/** @step_ns: time spent in each step */
	int64_t step_ns[NVL_GSP_STEP_COUNT];
	/** @failed_step: the step that failed (NVL_GSP_STEP_COUNT if none) */
	unsigned failed_step;
	/** @layout: the FB layout used */
	struct nvl_gsp_fb_layout layout;
	/** @gpu_name: from GET_GSP_STATIC_INFO */
	char gpu_name[64];
	/** @num_channels, @num_ce: from GET_GSP_STATIC_INFO */
	uint32_t num_channels, num_ce;
	/** @intr_entries: entries of the kernel interrupt table */
	uint32_t intr_entries;
	/** @sequencer_ops: CPU sequencer commands run */
	uint32_t sequencer_ops;
	/** @fb_size: bytes of FB, from GET_GSP_STATIC_INFO */
	uint64_t fb_size;
	/** @host_class, @ce_class: the chip's channel and copy classes */
	uint32_t host_class, ce_class;
	/** @gpc_mask: GPCs present: static info (535) or a GR control
	 * (570), per the version's ops table (abi_ops.h) */
	uint32_t gpc_mask;
};

struct nvl_gsp_fw;

/**
 * nvl_gsp_image_from_fw() - describe a loaded firmware set (image.h) for
 * nvl_gsp_boot(): .fwimage, the family's signature, the bootloader
 * payload and its descriptor's monitor code/data and manifest offsets.
 * The image points into @fw, which must outlive the boot call.
 */
void nvl_gsp_image_from_fw(const struct nvl_gsp_fw *fw,
			   struct nvl_gsp_image *out);

/** nvl_gsp_step_name() - "booter", "INIT_DONE", ... */
const char *nvl_gsp_step_name(unsigned step);

/**
 * nvl_gsp_fb_layout() - compute the layout for a VRAM of @fb_size with
 * the heap rules of firmware 535.113.01.
 * Return: 0, or -ENOSPC when the VRAM cannot hold it.
 */
int nvl_gsp_fb_layout(uint64_t fb_size, bool libos3, bool gh100,
		      size_t fwimage_size, size_t bootloader_size,
		      struct nvl_gsp_fb_layout *out);

/**
 * nvl_gsp_fb_layout_version() - nvl_gsp_fb_layout() with the heap rules
 * of firmware @version (NULL: 535.113.01), taken from the generated ABI
 * layer. Boot uses the version of the image it boots.
 * Return: 0, -ENOSPC, or -ENOEXEC when the build has no ABI for @version.
 */
int nvl_gsp_fb_layout_version(const char *version, uint64_t fb_size,
			      bool libos3, bool gh100, size_t fwimage_size,
			      size_t bootloader_size,
			      struct nvl_gsp_fb_layout *out);

/**
 * nvl_gsp_boot() - boot the GSP with @img. Every wait is bounded.
 * @report: optional, filled in on success and failure.
 * Return: 0; -ENOEXEC (no signature for this chip family), -EKEYREJECTED
 * (booter rejected the signature), -ETIMEDOUT (a step did not finish),
 * -EBUSY (WPR2 already up: the GPU needs a reset), the firmware's
 * NV_STATUS as an errno (message names it), -ENOMEM, -EPROTO.
 * The message always names the step. On failure the device is left
 * down (no WPR2, GSP in reset) and may be booted again.
 */
int nvl_gsp_boot(struct nvl_gsp *gsp, const struct nvl_gsp_image *img,
		 struct nvl_gsp_boot_report *report) NVL_MUST_CHECK;

/**
 * nvl_gsp_unload() - UNLOADING_GUEST_DRIVER, GSP reset, booter_unload;
 * checks WPR2 is gone. Return: 0, -ETIMEDOUT, -EIO, -ENODEV.
 */
int nvl_gsp_unload(struct nvl_gsp *gsp);

/**
 * nvl_gsp_suspend() - save the firmware's state to system memory and take
 * the GSP down for a power loss (gsp/suspend.c): UNLOADING_GUEST_DRIVER
 * with newLevel 3, booter_unload with a GspFwSRMeta over a save area of
 * all of WPR2. RM objects stay tracked; calls fail -EAGAIN until resume.
 * Return: 0; -EINVAL (not booted), -EALREADY, -ENODEV (needs a reset),
 * -ENOMEM (nothing changed), the RPC's error (nothing changed), or an
 * error after the firmware unloaded (the device is then marked for reset).
 */
int nvl_gsp_suspend(struct nvl_gsp *gsp) NVL_MUST_CHECK;

/**
 * nvl_gsp_resume() - booter_load with the SR meta: WPR2 restored from the
 * save area, the firmware resumes its state (srInitArguments), runs the
 * sequencer and sends INIT_DONE. Return: 0; -EINVAL (not suspended, or the
 * booter rejected the SR meta or the saved data: still suspended, saved
 * state intact), -ETIMEDOUT, the firmware's NV_STATUS as an errno.
 */
int nvl_gsp_resume(struct nvl_gsp *gsp) NVL_MUST_CHECK;

/** nvl_gsp_suspended() - between a successful suspend and resume. */
bool nvl_gsp_suspended(struct nvl_gsp *gsp);

/**
 * nvl_gsp_sr_area() - while suspended, the SR meta page (@meta) or the
 * save area, and its size: for tests and tools. NULL when not suspended.
 */
void *nvl_gsp_sr_area(struct nvl_gsp *gsp, bool meta, size_t *size);

/** nvl_gsp_set_boot_timeout() - bound of each boot wait (default 5 s). */
void nvl_gsp_set_boot_timeout(struct nvl_gsp *gsp, int64_t ns);

/**
 * nvl_gsp_set_sr_timeout() - bound of a booter run that saves or restores
 * WPR2 (a suspend's booter_unload, a resume's booter_load), never less than
 * the boot timeout; 0: the default, 30 s. For tests of a starved SEC2.
 */
void nvl_gsp_set_sr_timeout(struct nvl_gsp *gsp, int64_t ns);

#endif /* NVL_GSP_BOOT_H */

/* SPDX-License-Identifier: MIT */
/*
 * Boot state shared by boot.c and suspend.c (src/gsp only): the buffers a
 * boot built, which stay for the life of the booted (or suspended)
 * firmware, and the steps suspend and resume reuse.
 */
#ifndef NVL_GSP_BOOT_PRIV_H
#define NVL_GSP_BOOT_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/time.h"
#include "gsp/boot.h"

struct nvl_gsp;
struct nvl_gsp_sr;

/* NV2080_CTRL_GPU_SET_POWER_STATE_GPU_LEVEL_3: suspend to RAM */
#define NVL_GSP_PM_LEVEL_3 3u

/* bound of a booter run that saves or restores WPR2 */
#define NVL_GSP_SR_TIMEOUT_NS (30 * NVL_NSEC_PER_SEC)

/* one DMA-mapped system buffer */
struct dmabuf {
	uint8_t *cpu;
	uint64_t dma;
	size_t size;
	/* @cpu is the caller's memory, mapped in place: unmapped, not freed */
	bool borrowed;
};

struct nvl_gsp_boot {
	struct dmabuf rmargs, libos, meta, radix[2], l2, image, sig, bl;
	/* the generated ABI layer of the version being booted */
	const struct gspabi_version *abi;
	struct nvl_gsp_fb_layout layout;
	int64_t timeout_ns;
	/* bound of a booter run with an SR meta (NVL_GSP_SR_TIMEOUT_NS, at
	 * least @timeout_ns) */
	int64_t sr_timeout_ns;
	/* INIT_DONE and the sequencer, from the event thread */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool init_done;
	uint32_t init_result;
	int seq_err;
	uint32_t seq_ops;
	bool booted;
	bool wpr_up;
	/* suspended: the firmware's state is in @sr (suspend.c), WPR2 is
	 * down, the buffers above are kept for the resume */
	bool suspended;
	struct nvl_gsp_sr *sr;
};

/* a zeroed, DMA-mapped buffer of at least @size bytes */
int nvl_gsp_dma_alloc(struct nvl_gsp *gsp, struct dmabuf *b, size_t size);
void nvl_gsp_dma_free(struct nvl_gsp *gsp, struct dmabuf *b);

/*
 * nvl_gsp_boot_pm_unload() - UNLOADING_GUEST_DRIVER with bInPMTransition
 * and newLevel 3, the GSP's unloaded report, GSP reset, booter_unload with
 * the SR meta at @sr_meta_pa (it saves WPR2 there). Return: 0 (suspended);
 * an error with the GSP still running (the RPC failed), or with the device
 * marked for reset (the firmware had unloaded: its state is gone).
 */
int nvl_gsp_boot_pm_unload(struct nvl_gsp *gsp, uint64_t sr_meta_pa);

/*
 * nvl_gsp_boot_pm_load() - resume: RM arguments with srInitArguments,
 * the init RPCs, booter_load with the SR meta at @sr_meta_pa (it restores
 * WPR2), RISC-V start, the sequencer and INIT_DONE. Return: 0 (booted
 * again); on failure the device is still suspended (WPR2 down, SEC2
 * halted) and the saved state untouched, so a resume may be tried again;
 * unless the teardown could not get there (a booter that does not halt,
 * WPR2 still up): then the GSP is marked dead and only a reset (a cold
 * boot) brings the device back.
 */
int nvl_gsp_boot_pm_load(struct nvl_gsp *gsp, uint64_t sr_meta_pa);

/* suspend.c: free the saved state */
void nvl_gsp_sr_free(struct nvl_gsp *gsp);

#endif /* NVL_GSP_BOOT_PRIV_H */

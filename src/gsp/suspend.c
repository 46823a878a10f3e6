// SPDX-License-Identifier: MIT
/*
 * DOC: GSP suspend and resume
 *
 * What nouveau r535's fini(suspend) and init do, and OpenRM's
 * kgspSavePowerMgmtState, from the reference notes (gsp-firmware.md §1.3,
 * §1.6 step 9):
 *
 * Suspend: a sysmem save area of gspFwWprEnd - gspFwWprStart bytes (all of
 * WPR2: the WPR meta, the heap with GSP-RM's state, the image), a radix3
 * table over it (the same three levels as the ELF's, 4 KiB GSP pages) and
 * a 256-byte GspFwSRMeta: magic 0x8a3bb9e6c6c39d93, revision 2,
 * sysmemAddrOfSuspendResumeData = the level-0 page,
 * sizeOfSuspendResumeData; the rest (535's hmac, wprMetaHash,
 * heapFreeListHash, dataHash; 570's internal[]) is the booter's to fill.
 * Then UNLOADING_GUEST_DRIVER with bInPMTransition = 1 and newLevel = 3,
 * the GSP's unloaded report in mailbox0, GSP reset, and booter_unload with
 * the SR-meta address in SEC2 mailbox0/1: it copies WPR2 to the save area,
 * signs the meta and takes WPR2 down. The GPU may now lose power (D3cold):
 * VRAM is gone, the firmware's state is in system memory.
 *
 * Resume: RM arguments with srInitArguments (oldLevel 3, bInPMTransition
 * 1), the init RPCs queued, booter_load with the SR-meta address (the
 * magic tells it from a WPR meta): it checks the meta and the hashes,
 * copies the save area back into WPR2 and starts the GSP, which restores
 * its state instead of a cold init, runs the CPU sequencer and sends
 * INIT_DONE. A meta or a save area the booter rejects leaves the device
 * suspended with the saved state intact (-EINVAL).
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "base/alloc.h"
#include "base/log.h"
#include "gsp/abi_ver.h"
#include "gspabi.h"
#include "gsp/boot.h"
#include "gsp/boot_priv.h"
#include "gsp/priv.h"

#define PAGE 0x1000ull

struct nvl_gsp_sr {
	/* the save area: mmap'ed (the booter writes every byte) */
	uint8_t *data;
	uint64_t data_dma;
	size_t size;
	/* radix3 over it and the GspFwSRMeta page */
	struct dmabuf l0, l1, l2, meta;
};

static void sr_free(struct nvl_gsp *gsp, struct nvl_gsp_sr *sr)
{
	if (!sr)
		return;
	if (sr->data) {
		(void)nvl_hw_dma_unmap(gsp->hw, sr->data_dma, sr->size);
		munmap(sr->data, sr->size);
	}
	nvl_gsp_dma_free(gsp, &sr->l0);
	nvl_gsp_dma_free(gsp, &sr->l1);
	nvl_gsp_dma_free(gsp, &sr->l2);
	nvl_gsp_dma_free(gsp, &sr->meta);
	nvl_free(sr);
}

void nvl_gsp_sr_free(struct nvl_gsp *gsp)
{
	if (!gsp->boot)
		return;
	sr_free(gsp, gsp->boot->sr);
	gsp->boot->sr = NULL;
}

static int sr_build(struct nvl_gsp *gsp, struct nvl_gsp_boot *b,
		    struct nvl_gsp_sr **out)
{
	const struct gspabi_version *v = b->abi;
	size_t size = b->layout.wpr_end - b->layout.wpr_start;
	size_t npages = size / PAGE, nl2 = (npages + 511) / 512;
	struct gspabi_sr_meta m;
	struct nvl_gsp_sr *sr;
	void *p = NULL;
	int ret;

	if (!v->structs[GSPABI_S_SR_META].present ||
	    v->structs[GSPABI_S_SR_META].wire_size > PAGE)
		return nvl_error(-ENOEXEC, "gsp: %s has no GspFwSRMeta",
				 v->tag);
	if (!size || size % PAGE || nl2 > 512)
		return nvl_error(-EFBIG, "gsp: suspend: WPR2 of %zu bytes",
				 size);
	sr = nvl_zalloc(sizeof(*sr));
	if (!sr)
		return nvl_error(-ENOMEM, "gsp: suspend: out of memory");
	/* mmap is not nvl_malloc: the injection hook is asked directly */
	ret = nvl_might_alloc(0);
	if (!ret) {
		p = mmap(NULL, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ret = p == MAP_FAILED ? -ENOMEM : 0;
	}
	if (ret) {
		nvl_free(sr);
		return nvl_error(-ENOMEM,
				 "gsp: suspend: no system memory for the "
				 "%zu-byte save area",
				 size);
	}
	ret = nvl_hw_dma_map(gsp->hw, p, size, &sr->data_dma);
	if (ret) {
		munmap(p, size);
		nvl_free(sr);
		return nvl_error(ret, "gsp: suspend: cannot DMA-map the "
				      "save area");
	}
	sr->data = p;
	sr->size = size;
	ret = nvl_gsp_dma_alloc(gsp, &sr->l0, PAGE);
	if (!ret)
		ret = nvl_gsp_dma_alloc(gsp, &sr->l1, PAGE);
	if (!ret)
		ret = nvl_gsp_dma_alloc(gsp, &sr->l2, nl2 * PAGE);
	if (!ret)
		ret = nvl_gsp_dma_alloc(gsp, &sr->meta, PAGE);
	if (ret) {
		sr_free(gsp, sr);
		return nvl_error(ret, "gsp: suspend: no memory for the SR "
				      "meta and its radix3 table");
	}
	/* radix3: level 0 -> level 1 -> level 2 -> save-area pages */
	memcpy(sr->l0.cpu, &sr->l1.dma, 8);
	for (size_t i = 0; i < nl2; i++) {
		uint64_t a = sr->l2.dma + i * PAGE;

		memcpy(sr->l1.cpu + 8 * i, &a, 8);
	}
	for (size_t i = 0; i < npages; i++) {
		uint64_t a = sr->data_dma + i * PAGE;

		memcpy(sr->l2.cpu + 8 * i, &a, 8);
	}
	/* the driver's fields, in the version's layout; flags are the WPR
	 * meta's (570), which boot leaves 0 */
	m = (struct gspabi_sr_meta){
		.present = v->structs[GSPABI_S_SR_META].fields,
		.magic = nvl_gsp_abi_const(v, GSPABI_C_SR_META_MAGIC),
		.revision = nvl_gsp_abi_const(v, GSPABI_C_SR_META_REVISION),
		.sysmemAddrOfSuspendResumeData = sr->l0.dma,
		.sizeOfSuspendResumeData = size,
	};
	if (gspabi_pack(v, GSPABI_S_SR_META, &m, sr->meta.cpu,
			v->structs[GSPABI_S_SR_META].wire_size)) {
		sr_free(gsp, sr);
		return nvl_error(-EPROTO, "gsp: %s: SR meta does not pack",
				 v->tag);
	}
	*out = sr;
	return 0;
}

int nvl_gsp_suspend(struct nvl_gsp *gsp)
{
	struct nvl_gsp_boot *b = gsp->boot;
	struct nvl_gsp_sr *sr = NULL;
	int ret;

	if (atomic_load(&gsp->dead))
		return nvl_error(-ENODEV,
				 "gsp: suspend: the device needs a reset");
	if (b && b->suspended)
		return nvl_error(-EALREADY, "gsp: suspend: already suspended");
	if (!b || !b->booted)
		return nvl_error(-EINVAL, "gsp: suspend: not booted");
	ret = sr_build(gsp, b, &sr);
	if (ret)
		return ret;
	ret = nvl_gsp_boot_pm_unload(gsp, sr->meta.dma);
	if (ret) {
		sr_free(gsp, sr);
		return ret;
	}
	b->sr = sr;
	nvl_info(NVL_CAT_GSP, "gsp: suspended (%zu MiB of WPR2 saved)",
		 sr->size >> 20);
	return 0;
}

int nvl_gsp_resume(struct nvl_gsp *gsp)
{
	struct nvl_gsp_boot *b = gsp->boot;
	int ret;

	if (atomic_load(&gsp->dead))
		return nvl_error(-ENODEV,
				 "gsp: resume: the device needs a reset");
	if (!b || !b->suspended || !b->sr)
		return nvl_error(-EINVAL, "gsp: resume: not suspended");
	ret = nvl_gsp_boot_pm_load(gsp, b->sr->meta.dma);
	if (ret)
		return ret;
	nvl_gsp_sr_free(gsp);
	return 0;
}

bool nvl_gsp_suspended(struct nvl_gsp *gsp)
{
	return gsp->boot && gsp->boot->suspended;
}

void *nvl_gsp_sr_area(struct nvl_gsp *gsp, bool meta, size_t *size)
{
	struct nvl_gsp_sr *sr = gsp->boot ? gsp->boot->sr : NULL;

	if (!sr)
		return NULL;
	if (size)
		*size = meta ? 256 : sr->size;
	return meta ? (void *)sr->meta.cpu : (void *)sr->data;
}
